//! Discrete queries on closed non-convex solids (issue 23 items 1 and 2): [`intersect`],
//! [`distance`] and [`contact_set`] for mesh–mesh and mesh–convex pairs, through one entry
//! point ([`Solid`]) for callers that hold either kind.
//!
//! # Method
//! A branch and bound over the two hull trees (the BVTT of [`crate::mesh::bvtt_distance`]), with exact
//! triangle distances at the leaves:
//! - a node pair whose bounding spheres or hulls are at least the best triangle distance so
//!   far apart is pruned (a hull contains its triangles, so its distance is a lower bound);
//! - a pair of leaves (two convex pieces) asks the convex distance of the two piece hulls
//!   ([`query::distance`]); if the hulls overlap, the pair joins the *contact set* with its
//!   exact convex penetration (GJK/EPA depth, direction and witnesses); then every pair of
//!   the two pieces' actual triangles whose bounding boxes are nearer than the best distance
//!   is measured by [`triangle_distance`].
//!
//! Node pairs whose hulls overlap are never pruned, so the contact set holds **every** pair of
//! overlapping piece hulls.
//!
//! # Speed (issue 23 item 5)
//! - Triangle pairs are pruned by the larger of their boxes' and balls' gaps; triangle pairs
//!   whose boxes are apart skip the exact crossing tests ([`triangle_distance`]).
//! - B's vertices are moved into A's frame once per query (a stamped buffer in the cache),
//!   not once per leaf pair.
//! - Coherence: the last query's closest triangle pair, measured first at the new poses,
//!   bounds the search from the start (only a bound: the answer is still the search's).
//!
//! Callgrind, 2 880-triangle knots (`crates/polycd-bench/examples/mesh_profile.rs`, 30
//! random poses near contact measured twice; 100 coherent steps twice), answers unchanged
//! (measured with a depth-bound prune of `distance` since removed, see BENCHMARKS.md):
//! distance 265 M → 161 M instructions, intersect 208 M → 117 M, coherent distance
//! 550 M → 185 M, coherent intersect 350 M → 95 M. The minimum triangle distance is the distance of the two surfaces,
//! exact up to rounding (no piece margin: the piece hulls may leave the surface by
//! [`CCD_PIECE_REL`] × scale, but they are only used to
//! prune).
//!
//! # Decision
//! - Surfaces apart (distance `d > 0`): the solids overlap only if one contains the other;
//!   one vertex per closed shell of each mesh decides, by the winding number (the shells do
//!   not meet, so each lies wholly inside or outside). Contained: [`MeshOverlap::Contained`],
//!   with `d` as the lower bound of the depth (any translation that frees the inner solid moves
//!   each of its points out of the outer one, at least `d` away). Otherwise the answer is the
//!   distance `d` (hull overlaps in the contact set are then the pieces' margin only).
//! - Surfaces meeting (`d` within the contact tolerance): overlapping when some piece pair's
//!   relative depth exceeds the contact tolerance (the deepest pair is the witness), touching
//!   otherwise.
//!
//! # Lower bound of the penetration depth
//! Each piece hull lies inside its solid (up to the pieces' margin), so any translation that
//! separates the solids separates every pair of pieces: the deepest contact pair's depth is a
//! **lower bound** of the solids' penetration depth, not the depth itself (the solids may need
//! to move further). [`MeshAnswer::signed_distance`] reports minus this bound when the solids
//! overlap.
//!
//! # Convex sides
//! A [`Solid::Convex`] side is turned into a one-piece mesh ([`TriMesh::from_convex`], its
//! faces fan-triangulated), kept in the [`SolidCache`] while the same polyhedron is asked
//! again (compared by content, no allocation); its features are reported in the convex
//! format ([`SolidFeature::Convex`]: the vertex, edge or face of the polyhedron carrying the
//! closest point; a point inside a face on a fan diagonal is the face).
//!
//! # Allocation
//! None per query in steady state: the contact set, the transformed triangles and the
//! node-pair caches live in the [`SolidCache`] and keep their capacity. The one exception is
//! the crate's known one: the convex depth of each overlapping piece pair runs EPA, whose
//! scratch buffers grow per query (`tests/alloc.rs`'s list; `tests/mesh_query_alloc.rs`
//! checks separated pairs allocate nothing and overlapping ones about once per pair).
//!
//! # Termination
//! Each node pair is visited at most once (the recursion follows the BVTT, depth at most the
//! sum of the trees' depths); each leaf pair measures at most the product of its pieces'
//! triangle counts ([`super::MAX_PATCH`]² at most).

use super::bvtt::{FrontNode, MeshCache};
use super::tri_dist::{triangle_distance, TriFeature};
use super::trimesh::TriMesh;
use crate::contract::{checked_pose, pair_scale, Distance, Penetration, Status};
use crate::core::error::PolycdError;
use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::{CCD_PIECE_REL, CONTACT_REL};
use crate::query::{self, Algorithm};
use crate::shape::feature::Feature;
use crate::shape::polyhedron::ConvexPolyhedron;

/// A solid of either kind, for the entry points above both.
#[derive(Clone, Copy, Debug)]
pub enum Solid<'a> {
    /// A convex polyhedron (radius 0, solid).
    Convex(&'a ConvexPolyhedron),
    /// A closed triangle mesh.
    Mesh(&'a TriMesh),
}

/// One of the two solids of a query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The first solid.
    A,
    /// The second solid.
    B,
}

/// A feature of a solid carrying a closest point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolidFeature {
    /// A triangle of a mesh, named by the 0-based index of the input face it came from
    /// ([`TriMesh::input_face`]).
    Triangle(u32),
    /// A feature of a convex polyhedron, in its own ids.
    Convex(Feature),
}

/// A pair of overlapping convex pieces (one of each solid) and their exact convex penetration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieceContact {
    /// The pieces of A and B ([`TriMesh::pieces`]; 0 for a convex side of one piece).
    pub pieces: (u32, u32),
    /// The penetration of the two piece hulls (EPA depth, direction, witnesses; world frame).
    pub penetration: Penetration,
}

/// Why two solids overlap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MeshOverlap {
    /// Their surfaces cross: the deepest pair of overlapping pieces.
    Pieces(PieceContact),
    /// Their surfaces are apart and one solid lies inside the other.
    Contained {
        /// The solid that is inside.
        inner: Side,
    },
}

/// Answer of [`intersect`], [`distance`] and [`contact_set`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MeshAnswer {
    /// The solids do not overlap (touching when `distance` is within the contact tolerance).
    Separated {
        /// Exact distance of the two surfaces (minimum over their triangle pairs).
        distance: f64,
        /// Closest point on A (world).
        point_a: DVec3,
        /// Closest point on B (world).
        point_b: DVec3,
        /// The features carrying them.
        features: (SolidFeature, SolidFeature),
        /// The convex pieces of A and B the closest triangles belong to.
        pieces: (u32, u32),
    },
    /// The solids' interiors overlap.
    Overlapping {
        /// Why.
        witness: MeshOverlap,
        /// A certified **lower bound** of the solids' penetration depth (see the module
        /// documentation): the deepest piece pair's depth, or for a contained solid the
        /// distance of the surfaces.
        depth_lower_bound: f64,
        /// A point of A (world): the deepest pair's witness on A, or the closest point of
        /// A's surface for a contained solid.
        point_a: DVec3,
        /// The matching point of B (world).
        point_b: DVec3,
    },
}

impl MeshAnswer {
    /// The contact status with `tolerance` ([`contact_tolerance`]).
    pub fn status(&self, tolerance: f64) -> Status {
        match self {
            MeshAnswer::Separated { distance, .. } if *distance <= tolerance => Status::Touching,
            MeshAnswer::Separated { .. } => Status::Disjoint,
            MeshAnswer::Overlapping { .. } => Status::Overlapping,
        }
    }

    /// The distance when separated; when overlapping, minus the lower bound of the depth
    /// (a bound, not the depth).
    pub fn signed_distance(&self) -> f64 {
        match self {
            MeshAnswer::Separated { distance, .. } => *distance,
            MeshAnswer::Overlapping { depth_lower_bound, .. } => -depth_lower_bound,
        }
    }
}

/// A convex side turned into a mesh, with what it was made from (to recognise it again).
#[derive(Clone, Debug)]
struct Converted {
    mesh: TriMesh,
    /// The polyhedron's face vertex lists, flattened, each preceded by its length.
    faces: Vec<u32>,
}

impl Converted {
    fn matches(&self, c: &ConvexPolyhedron) -> bool {
        if self.mesh.vertices() != c.vertices() {
            return false;
        }
        let mut k = 0;
        for f in 0..c.faces().len() as u32 {
            let vs = c.face_vertices(f);
            if self.faces.get(k) != Some(&(vs.len() as u32)) || self.faces.get(k + 1..k + 1 + vs.len()) != Some(vs) {
                return false;
            }
            k += 1 + vs.len();
        }
        k == self.faces.len()
    }

    fn new(c: &ConvexPolyhedron) -> Result<Converted, PolycdError> {
        let mesh = TriMesh::from_convex(c)?;
        let mut faces = Vec::new();
        for f in 0..c.faces().len() as u32 {
            let vs = c.face_vertices(f);
            faces.push(vs.len() as u32);
            faces.extend_from_slice(vs);
        }
        Ok(Converted { mesh, faces })
    }
}

/// Caller-owned state of the queries on one pair of solids: the BVTT's node-pair caches and
/// front ([`MeshCache`]), the last contact set, scratch buffers and the meshes of convex sides.
#[derive(Clone, Debug, Default)]
pub struct SolidCache {
    /// The BVTT state (node-pair caches reused across queries; the last query's front).
    pub mesh: MeshCache,
    contacts: Vec<PieceContact>,
    tris_b: Vec<LeafTriangle>,
    /// B's vertices in A's frame, transformed on first use in a query (`stamps` says which
    /// are current: equal to `stamp`); a piece of B meets many pieces of A in one query.
    verts_b: Vec<DVec3>,
    stamps: Vec<u32>,
    stamp: u32,
    /// The closest triangle pair of the last query (coherence): measured first at the new
    /// poses, its distance bounds the search from the start.
    last_pair: Option<(u32, u32)>,
    convex: [Option<Box<Converted>>; 2],
}

impl SolidCache {
    /// The contact set of the last query: every pair of overlapping pieces it met (all of them
    /// for [`distance`] and [`contact_set`]; [`intersect`] stops at the first deep one).
    pub fn contacts(&self) -> &[PieceContact] {
        &self.contacts
    }

    /// The deepest pair of the last query's contact set.
    pub fn deepest(&self) -> Option<&PieceContact> {
        self.contacts
            .iter()
            .max_by(|x, y| x.penetration.depth.total_cmp(&y.penetration.depth))
    }
}

/// A triangle of B's leaf piece in A's frame, with its bounding box and ball (for pruning).
#[derive(Clone, Copy, Debug)]
struct LeafTriangle {
    corners: [DVec3; 3],
    lo: DVec3,
    hi: DVec3,
    centre: DVec3,
    radius: f64,
}

impl LeafTriangle {
    fn new(corners: [DVec3; 3]) -> LeafTriangle {
        let lo = corners[0].min(corners[1]).min(corners[2]);
        let hi = corners[0].max(corners[1]).max(corners[2]);
        let centre = (lo + hi) * 0.5;
        let radius = corners.iter().fold(0.0f64, |r, c| r.max((*c - centre).length()));
        LeafTriangle {
            corners,
            lo,
            hi,
            centre,
            radius,
        }
    }

    /// A lower bound of the distance of the two triangles: the larger of their boxes' gap and
    /// their balls' gap, the latter less the rounding of the centres and radii
    /// ([`CONTACT_REL`] of the magnitudes, as [`Search::sphere_gap`]), so it never exceeds the
    /// exact distance by more than rounding far below the contact tolerance.
    fn gap(&self, o: &LeafTriangle) -> f64 {
        let boxes = (o.lo - self.hi).max(self.lo - o.hi).max(DVec3::ZERO).length();
        let slack =
            CONTACT_REL * (self.centre.abs().max_element() + o.centre.abs().max_element() + self.radius + o.radius);
        let balls = (o.centre - self.centre).length() - self.radius - o.radius - slack;
        boxes.max(balls)
    }
}

/// The contact tolerance of two meshes: [`CONTACT_REL`] × the pair scale of their root hulls
/// ([`crate::contract::pair_scale`]).
pub fn contact_tolerance(a: &TriMesh, pose_a: &Pose, b: &TriMesh, pose_b: &Pose) -> Result<f64, PolycdError> {
    let (ha, hb) = (a.nodes[a.root as usize].hull()?, b.nodes[b.root as usize].hull()?);
    Ok(CONTACT_REL * pair_scale(ha, pose_a, hb, pose_b))
}

/// The contact tolerance of two solids (convex pairs: [`crate::contract::contact_tolerance`]).
pub fn solid_contact_tolerance(
    a: Solid<'_>,
    pose_a: &Pose,
    b: Solid<'_>,
    pose_b: &Pose,
    cache: &mut SolidCache,
) -> Result<f64, PolycdError> {
    let mut conv = std::mem::take(&mut cache.convex);
    let r = (|| {
        let [ca, cb] = &mut conv;
        let ma = mesh_of(a, ca)?;
        let mb = mesh_of(b, cb)?;
        contact_tolerance(ma, pose_a, mb, pose_b)
    })();
    cache.convex = conv;
    r
}

/// Do the solids overlap? Stops at the first piece pair deeper than the contact tolerance plus
/// both meshes' piece margins (2 · [`CCD_PIECE_REL`] × each mesh's scale: a piece hull may
/// leave its solid by that much, so a shallower pair proves nothing); the contact set then
/// holds the pairs met so far, and the witness is that pair (also when one solid contains
/// the other: [`distance`] tells containment apart). Otherwise answers as [`distance`].
pub fn intersect(
    a: Solid<'_>,
    pose_a: &Pose,
    b: Solid<'_>,
    pose_b: &Pose,
    cache: &mut SolidCache,
) -> Result<MeshAnswer, PolycdError> {
    run(a, pose_a, b, pose_b, Mode::Intersect, cache)
}

/// Exact distance of two solids with closest points, features and pieces; or their overlap
/// with its witness and the lower bound of the depth. Fills the contact set
/// ([`SolidCache::contacts`]).
pub fn distance(
    a: Solid<'_>,
    pose_a: &Pose,
    b: Solid<'_>,
    pose_b: &Pose,
    cache: &mut SolidCache,
) -> Result<MeshAnswer, PolycdError> {
    run(a, pose_a, b, pose_b, Mode::Distance, cache)
}

/// [`distance`], with the contact set: every pair of overlapping convex pieces with its exact
/// convex penetration. The deepest pair's depth is a lower bound of the solids' penetration
/// depth (see the module documentation).
pub fn contact_set<'c>(
    a: Solid<'_>,
    pose_a: &Pose,
    b: Solid<'_>,
    pose_b: &Pose,
    cache: &'c mut SolidCache,
) -> Result<(MeshAnswer, &'c [PieceContact]), PolycdError> {
    let ans = run(a, pose_a, b, pose_b, Mode::ContactSet, cache)?;
    Ok((ans, &cache.contacts))
}

/// The mesh of a solid: itself, or the kept conversion of a convex side (made anew when the
/// polyhedron differs from the kept one).
fn mesh_of<'m>(s: Solid<'m>, slot: &'m mut Option<Box<Converted>>) -> Result<&'m TriMesh, PolycdError> {
    match s {
        Solid::Mesh(m) => Ok(m),
        Solid::Convex(c) => {
            if !slot.as_ref().is_some_and(|k| k.matches(c)) {
                *slot = Some(Box::new(Converted::new(c)?));
            }
            match slot {
                Some(k) => Ok(&k.mesh),
                None => Err(PolycdError::InvalidOption {
                    name: "solid",
                    message: "no mesh for the convex side",
                }),
            }
        }
    }
}

/// The convex feature of a converted polyhedron's triangle `t` at `f`.
fn convex_feature(c: &ConvexPolyhedron, m: &TriMesh, t: u32, f: TriFeature) -> Feature {
    let face = m.input_face(t);
    let tri = m.triangles[t as usize];
    match f {
        TriFeature::Vertex(k) => Feature::Vertex(tri[k as usize]),
        TriFeature::Face => Feature::Face(face),
        TriFeature::Edge(k) => {
            let (u, v) = (tri[k as usize], tri[(k as usize + 1) % 3]);
            for h in c.face_half_edges(face) {
                let he = c.half_edge(h);
                let e = c.edge(he.edge);
                if (e.vertices[0] == u && e.vertices[1] == v) || (e.vertices[0] == v && e.vertices[1] == u) {
                    return Feature::Edge(he.edge);
                }
            }
            Feature::Face(face)
        }
    }
}

/// What a search must find.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Stop at the first piece pair overlapping for certain.
    Intersect,
    /// The answer of [`distance`] (every overlapping piece pair, as [`Mode::ContactSet`]).
    Distance,
    /// Every overlapping piece pair ([`contact_set`]).
    ContactSet,
}

fn run(
    a: Solid<'_>,
    pose_a: &Pose,
    b: Solid<'_>,
    pose_b: &Pose,
    mode: Mode,
    cache: &mut SolidCache,
) -> Result<MeshAnswer, PolycdError> {
    // Poses checked and normalised once: the triangles are transformed here, not only by
    // the convex queries (which check them too).
    let (pose_a, pose_b) = (&checked_pose(pose_a)?, &checked_pose(pose_b)?);
    let mut conv = std::mem::take(&mut cache.convex);
    let r = (|| {
        let [ca, cb] = &mut conv;
        let ma = mesh_of(a, ca)?;
        let mb = mesh_of(b, cb)?;
        let tol = contact_tolerance(ma, pose_a, mb, pose_b)?;
        // Intersect stops at a piece pair deeper than the pieces' margins could make it.
        let margin = CCD_PIECE_REL * (ma.scale() + mb.scale());
        let certain = tol + 2.0 * margin;
        let raw = search(ma, pose_a, mb, pose_b, mode, certain, tol, cache)?;
        Ok(decide(a, ma, pose_a, b, mb, pose_b, tol, raw, cache))
    })();
    cache.convex = conv;
    r
}

/// The best leaf result of a search (A's frame).
#[derive(Clone, Copy, Debug)]
struct Best {
    distance: f64,
    point_a: DVec3,
    point_b: DVec3,
    triangles: (u32, u32),
    features: (TriFeature, TriFeature),
    pieces: (u32, u32),
}

#[allow(clippy::too_many_arguments)]
fn decide(
    a: Solid<'_>,
    ma: &TriMesh,
    pose_a: &Pose,
    b: Solid<'_>,
    mb: &TriMesh,
    pose_b: &Pose,
    tol: f64,
    best: Option<Best>,
    cache: &SolidCache,
) -> MeshAnswer {
    let deepest = cache.deepest().copied();
    let overlap_by_pieces = |p: PieceContact| MeshAnswer::Overlapping {
        witness: MeshOverlap::Pieces(p),
        depth_lower_bound: p.penetration.depth,
        point_a: p.penetration.point_a,
        point_b: p.penetration.point_b,
    };
    let Some(best) = best else {
        // Stopped at a deep pair (intersect).
        return match deepest {
            Some(p) => overlap_by_pieces(p),
            None => MeshAnswer::Overlapping {
                witness: MeshOverlap::Contained { inner: Side::A },
                depth_lower_bound: 0.0,
                point_a: DVec3::NAN,
                point_b: DVec3::NAN,
            },
        };
    };
    let (pa_w, pb_w) = (
        pose_a.transform_point(best.point_a),
        pose_a.transform_point(best.point_b),
    );
    if best.distance > tol {
        let inside = |x: &TriMesh, px: &Pose, y: &TriMesh, py: &Pose| {
            x.component_vertices.iter().any(|&v| {
                let w = px.transform_point(x.vertices[v as usize]);
                y.contains_point(py.inverse_transform_point(w))
            })
        };
        let inner = if inside(ma, pose_a, mb, pose_b) {
            Some(Side::A)
        } else if inside(mb, pose_b, ma, pose_a) {
            Some(Side::B)
        } else {
            None
        };
        if let Some(inner) = inner {
            let bound = deepest.map_or(0.0, |p| p.penetration.depth).max(best.distance);
            return MeshAnswer::Overlapping {
                witness: MeshOverlap::Contained { inner },
                depth_lower_bound: bound,
                point_a: pa_w,
                point_b: pb_w,
            };
        }
    } else if let Some(p) = deepest.filter(|p| p.penetration.relative_depth > tol) {
        return overlap_by_pieces(p);
    }
    let feature = |s: Solid<'_>, m: &TriMesh, t: u32, f: TriFeature| match s {
        Solid::Mesh(_) => SolidFeature::Triangle(m.input_face(t)),
        Solid::Convex(c) => SolidFeature::Convex(convex_feature(c, m, t, f)),
    };
    MeshAnswer::Separated {
        distance: best.distance,
        point_a: pa_w,
        point_b: pb_w,
        features: (
            feature(a, ma, best.triangles.0, best.features.0),
            feature(b, mb, best.triangles.1, best.features.1),
        ),
        pieces: best.pieces,
    }
}

/// The branch and bound; `None` when `stop` (intersect) and a piece pair overlaps deeper than
/// `certain`.
#[allow(clippy::too_many_arguments)]
fn search(
    a: &TriMesh,
    pose_a: &Pose,
    b: &TriMesh,
    pose_b: &Pose,
    mode: Mode,
    certain: f64,
    tie: f64,
    cache: &mut SolidCache,
) -> Result<Option<Best>, PolycdError> {
    cache.mesh.begin_query();
    cache.mesh.front.clear();
    cache.contacts.clear();
    let nv = b.vertices.len();
    if cache.stamps.len() < nv {
        // Grows once per mesh size (not per query in steady state).
        cache.stamps.resize(nv, 0);
        cache.verts_b.resize(nv, DVec3::ZERO);
    }
    cache.stamp = cache.stamp.wrapping_add(1);
    if cache.stamp == 0 {
        cache.stamps.fill(0);
        cache.stamp = 1;
    }
    // Coherence: the last query's closest triangles, at the new poses, bound the distance
    // (any pair's distance is at least the minimum), so most of the trees are pruned at once.
    // Only a bound: the pair is found again by the search if it is still the closest.
    let bound = match cache.last_pair {
        Some((ta, tb)) if (ta as usize) < a.triangles.len() && (tb as usize) < b.triangles.len() => {
            let tri_a = a.triangles[ta as usize].map(|v| a.vertices[v as usize]);
            let tri_b = b.triangles[tb as usize]
                .map(|v| pose_a.inverse_transform_point(pose_b.transform_point(b.vertices[v as usize])));
            triangle_distance(&tri_a, &tri_b).distance
        }
        _ => f64::INFINITY,
    };
    let mut s = Search {
        bound,
        a,
        pose_a,
        b,
        pose_b,
        stop: (mode == Mode::Intersect).then_some(()),
        certain,
        deep: false,
        tie,
        min_seen: f64::INFINITY,
        best_score: f64::NEG_INFINITY,
        stopped: false,
        mesh: &mut cache.mesh,
        contacts: &mut cache.contacts,
        tris_b: &mut cache.tris_b,
        verts_b: &mut cache.verts_b,
        stamps: &mut cache.stamps,
        stamp: cache.stamp,
        best: Best {
            distance: f64::INFINITY,
            point_a: DVec3::NAN,
            point_b: DVec3::NAN,
            triangles: (0, 0),
            features: (TriFeature::Face, TriFeature::Face),
            pieces: (0, 0),
        },
    };
    s.visit(a.root, b.root)?;
    let (stopped, best) = (s.stopped, s.best);
    cache.last_pair = best.distance.is_finite().then_some(best.triangles);
    Ok((!stopped).then_some(best))
}

struct Search<'a> {
    a: &'a TriMesh,
    pose_a: &'a Pose,
    b: &'a TriMesh,
    pose_b: &'a Pose,
    /// Stop at the first pair overlapping for certain (intersect).
    stop: Option<()>,
    /// A piece pair deeper than this overlaps for certain (the contact tolerance plus both
    /// meshes' piece margins).
    certain: f64,
    /// Whether such a pair was met.
    deep: bool,
    /// Distances within this of the best are ties (the contact tolerance), broken by the
    /// triangles' facing (see [`Search::leaf_triangles`]).
    tie: f64,
    /// The least triangle distance met (the best pair's may exceed it by a tie).
    min_seen: f64,
    /// An upper bound of the least triangle distance known before the search (the last
    /// query's closest pair at the new poses; +∞ without one).
    bound: f64,
    /// The facing score of the best pair.
    best_score: f64,
    stopped: bool,
    mesh: &'a mut MeshCache,
    contacts: &'a mut Vec<PieceContact>,
    tris_b: &'a mut Vec<LeafTriangle>,
    verts_b: &'a mut [DVec3],
    stamps: &'a mut [u32],
    stamp: u32,
    best: Best,
}

impl Search<'_> {
    /// A lower bound of the distance of nodes `i` (A) and `j` (B) by their bounding spheres
    /// (0 when they meet), widened by the rounding of the poses.
    fn sphere_gap(&self, i: u32, j: u32) -> f64 {
        let (ca, ra) = self.a.nodes[i as usize].bounding_sphere();
        let (cb, rb) = self.b.nodes[j as usize].bounding_sphere();
        let (ca, cb) = (self.pose_a.transform_point(ca), self.pose_b.transform_point(cb));
        let slack = CONTACT_REL * (ca.abs().max_element() + cb.abs().max_element() + ra + rb);
        let gap = (cb - ca).length() - ra - rb - slack;
        gap.max(0.0)
    }

    /// Node and triangle pairs whose distance bound exceeds this cannot be (or tie with) the
    /// closest pair: the least distance known so far plus the tie width.
    fn limit(&self) -> f64 {
        self.min_seen.min(self.bound) + self.tie
    }

    fn push_front(&mut self, i: u32, j: u32, distance: f64) {
        self.mesh.front.push(FrontNode {
            node_a: i,
            node_b: j,
            distance,
            point_a: DVec3::NAN,
            point_b: DVec3::NAN,
        });
    }

    fn visit(&mut self, i: u32, j: u32) -> Result<(), PolycdError> {
        if self.stopped {
            return Ok(());
        }
        let gap = self.sphere_gap(i, j);
        if gap > 0.0 && gap > self.limit() {
            self.push_front(i, j, gap);
            return Ok(());
        }
        let (a, b) = (self.a, self.b);
        let (na, nb) = (&a.nodes[i as usize], &b.nodes[j as usize]);
        let pc = self.mesh.node_pair(i, j);
        let leaves = na.children.is_none() && nb.children.is_none();
        let d = if leaves {
            query::distance(na.hull()?, self.pose_a, nb.hull()?, self.pose_b, Algorithm::Auto, pc)?
        } else {
            query::distance_or_overlap(na.hull()?, self.pose_a, nb.hull()?, self.pose_b, Algorithm::VClip, pc)?
        };
        let hull_distance = match d {
            Distance::Separated { distance, .. } => distance,
            Distance::Penetrating { penetration, .. } => {
                if let (true, Some(p)) = (leaves, penetration) {
                    self.contacts.push(PieceContact {
                        pieces: (na.piece, nb.piece),
                        penetration: p,
                    });
                    if p.relative_depth > self.certain {
                        self.deep = true;
                        if self.stop.is_some() {
                            self.stopped = true;
                            return Ok(());
                        }
                    }
                }
                0.0
            }
            Distance::NotConverged { iterations } => {
                return Err(PolycdError::CcdNotConverged {
                    iterations,
                    t_free: 0.0,
                })
            }
        };
        if hull_distance > 0.0 && hull_distance > self.limit() {
            self.push_front(i, j, hull_distance);
            return Ok(());
        }
        match (na.children, nb.children) {
            (None, None) => {
                // Once the surfaces are known to meet and a pair overlaps for certain, the
                // answer is an overlap whatever the other triangles' distances: skip them.
                if !(self.deep && self.min_seen == 0.0) {
                    self.leaf_triangles(na.piece, nb.piece);
                }
                self.push_front(i, j, hull_distance);
                Ok(())
            }
            (ca, cb) => {
                let split_b = match (ca, cb) {
                    (None, _) => true,
                    (_, None) => false,
                    _ => nb.scale() >= na.scale(),
                };
                if split_b {
                    let (l, r) = cb.unwrap_or((j, j));
                    let (l, r) = if self.sphere_gap(i, l) <= self.sphere_gap(i, r) {
                        (l, r)
                    } else {
                        (r, l)
                    };
                    self.visit(i, l)?;
                    self.visit(i, r)
                } else {
                    let (l, r) = ca.unwrap_or((i, i));
                    let (l, r) = if self.sphere_gap(l, j) <= self.sphere_gap(r, j) {
                        (l, r)
                    } else {
                        (r, l)
                    };
                    self.visit(l, j)?;
                    self.visit(r, j)
                }
            }
        }
    }

    /// Exact distances of the two pieces' triangles (in A's frame), pruned by their boxes.
    ///
    /// Ties: where the closest points are not unique (parallel faces, an edge parallel to a
    /// face), several triangle pairs are equally near — e.g. a cube's facing quad and the
    /// quads that share its edges. Among pairs within [`Search::tie`] of the best distance, the
    /// pair whose triangles face each other best is kept (the sum of the cosines of the
    /// outward normals with the closest direction), so the features named are the facing
    /// faces where there are such.
    fn leaf_triangles(&mut self, pa: u32, pb: u32) {
        let (a, b) = (self.a, self.b);
        self.tris_b.clear();
        for &t in &b.pieces[pb as usize] {
            let tri = b.triangles[t as usize].map(|v| {
                let v = v as usize;
                if self.stamps[v] != self.stamp {
                    self.stamps[v] = self.stamp;
                    self.verts_b[v] = self
                        .pose_a
                        .inverse_transform_point(self.pose_b.transform_point(b.vertices[v]));
                }
                self.verts_b[v]
            });
            self.tris_b.push(LeafTriangle::new(tri));
        }
        let facing = |t: &[DVec3; 3], dir: DVec3| {
            let n = (t[1] - t[0]).cross(t[2] - t[0]);
            let l = n.length() * dir.length();
            if l > 0.0 {
                n.dot(dir) / l
            } else {
                0.0
            }
        };
        for &ta in &a.pieces[pa as usize] {
            let la = LeafTriangle::new(a.triangles[ta as usize].map(|v| a.vertices[v as usize]));
            let tri_a = la.corners;
            for (k, &tb) in b.pieces[pb as usize].iter().enumerate() {
                let lb = self.tris_b[k];
                if la.gap(&lb) > self.limit() {
                    continue;
                }
                let tri_b = lb.corners;
                let d = triangle_distance(&tri_a, &tri_b);
                if d.distance > self.limit() {
                    continue;
                }
                let dir = d.point_b - d.point_a;
                let score = if d.distance > 0.0 {
                    facing(&tri_a, dir) - facing(&tri_b, dir)
                } else {
                    // Touching: the triangles whose normals are most opposed.
                    let nb = (tri_b[1] - tri_b[0]).cross(tri_b[2] - tri_b[0]);
                    -facing(&tri_a, nb)
                };
                let better = if d.distance < self.min_seen - self.tie {
                    true
                } else if score != self.best_score {
                    score > self.best_score
                } else {
                    d.distance < self.best.distance
                };
                self.min_seen = self.min_seen.min(d.distance);
                if better {
                    self.best_score = score;
                    self.best = Best {
                        distance: d.distance,
                        point_a: d.point_a,
                        point_b: d.point_b,
                        triangles: (ta, tb),
                        features: (d.feature_a, d.feature_b),
                        pieces: (pa, pb),
                    };
                }
            }
        }
    }
}
