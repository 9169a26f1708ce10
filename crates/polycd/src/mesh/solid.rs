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
//!   ([`crate::query::distance`]); if the hulls overlap, the pair joins the *contact set* with its
//!   exact convex penetration (GJK/EPA depth, direction and witnesses); then every pair of
//!   the two pieces' actual triangles whose bounding boxes are nearer than the best distance
//!   is measured by [`triangle_distance`](super::triangle_distance).
//!
//! For [`contact_set`], node pairs whose hulls overlap are never pruned, so the contact set
//! holds **every** pair of overlapping piece hulls. [`distance`] needs only the deepest one
//! once the surfaces are known to cross and a pair overlaps for certain: from then on it
//! prunes node pairs whose bounding balls overlap by less than the deepest depth met (the
//! balls' overlap bounds the depth of any pieces inside them), so its contact set may lack
//! shallower pairs; its answer is the same.
//!
//! # Speed (issue 23 item 5)
//! - Triangle pairs are pruned by the larger of their boxes' and balls' gaps; triangle pairs
//!   whose boxes are apart skip the exact crossing tests ([`triangle_distance`](super::triangle_distance)).
//! - B's vertices are moved into A's frame once per query (a stamped buffer in the cache),
//!   not once per leaf pair.
//! - Coherence: the last query's closest triangle pair, measured first at the new poses,
//!   bounds the search from the start (only a bound: the answer is still the search's); after
//!   an overlap, [`distance`] measures the last deepest piece pair first, so the depth
//!   pruning above starts at the root.
//! - Intersect: once the roots' hulls overlap, a dive down the trees by the balls alone
//!   measures a few leaf pairs first (a deep one ends the query without inner hull tests);
//!   leaf pairs' triangles are measured after the traversal, only when it met no deep pair.
//! - [`distance`] takes the BVTT best first (the node pair of least distance bound next; a
//!   queue in the cache), not depth first: only pairs whose bound is below the final answer
//!   are measured (`search/best_first.rs`).
//! - Leaf triangle pairs are pruned by their planes too (all corners of one on one side of
//!   the other's plane: the nearest corner's distance bounds theirs).
//! - Intersect: an inner node pair whose balls overlap deeply (most such hulls overlap) is
//!   tested by GJK alone instead of V-Clip then GJK.
//! - Figures: BENCHMARKS.md, "Meshes" (`crates/polycd-bench/examples/mesh_profile.rs`).
//!
//! The minimum triangle distance is the distance of the two surfaces,
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
//! sum of the trees' depths; [`distance`]'s best-first queue takes a pair at most twice); each leaf pair measures at most the product of its pieces'
//! triangle counts ([`super::MAX_PATCH`]² at most).

mod search;

use super::bvtt::MeshCache;
use super::tri_dist::TriFeature;
use super::trimesh::TriMesh;
use crate::contract::{checked_pose, pair_scale, Penetration, Status};
use crate::core::error::PolycdError;
use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::{CCD_PIECE_REL, CONTACT_REL};
use crate::shape::feature::Feature;
use crate::shape::polyhedron::ConvexPolyhedron;
use search::{search, Best, LeafTriangle, Queue};

/// A solid of either kind, for the entry points above both.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Solid<'a> {
    /// A convex polyhedron (radius 0, solid).
    Convex(&'a ConvexPolyhedron),
    /// A closed triangle mesh.
    Mesh(&'a TriMesh),
}

/// One of the two solids of a query.
// Not `#[non_exhaustive]`: a query has exactly two solids, so `A` and `B` are all there can be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The first solid.
    A,
    /// The second solid.
    B,
}

/// A feature of a solid carrying a closest point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
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
#[non_exhaustive]
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
#[non_exhaustive]
pub enum MeshAnswer {
    /// The solids do not overlap (touching when `distance` is within the contact tolerance).
    ///
    /// From [`intersect`], when the surfaces are more than twice the contact tolerance apart,
    /// the search stops as soon as that is certain: `distance` is then a certified **lower
    /// bound** of the distance (above the contact tolerance, so [`MeshAnswer::status`] is
    /// exact), the points are NaN, and the features and pieces [`NOT_MEASURED`].
    Separated {
        /// Exact distance of the two surfaces (minimum over their triangle pairs); a lower
        /// bound from [`intersect`] when they are far apart (see above).
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
    /// Intersect's leaf pairs whose triangles are measured after the traversal (pieces of A
    /// and B, hulls' distance; see `search`).
    deferred: Vec<(u32, u32, f64)>,
    /// The closest triangle pair of the last query (coherence): measured first at the new
    /// poses, its distance bounds the search from the start.
    last_pair: Option<(u32, u32)>,
    /// The leaf nodes of the deepest piece pair of the last [`distance`] that answered an
    /// overlap of pieces (coherence): measured first by the next [`distance`].
    last_deep: Option<(u32, u32)>,
    /// [`distance`]'s best-first queue of node pairs (see `search`), kept for its capacity.
    pending: Queue,
    convex: [Option<Box<Converted>>; 2],
}

impl SolidCache {
    /// Forgets all coherence state (the BVTT's node-pair caches and front, the last contact
    /// set, the last closest triangle pair), so the next query starts cold as with a new
    /// cache, but keeps the buffers' capacity. The meshes built for convex sides are kept:
    /// they are checked against the polyhedron on every query and rebuilt when it differs.
    pub fn forget(&mut self) {
        self.mesh.forget();
        self.contacts.clear();
        self.tris_b.clear();
        self.deferred.clear();
        self.stamps.fill(0);
        self.stamp = 0;
        self.last_pair = None;
        self.last_deep = None;
        self.pending.clear();
    }

    /// The contact set of the last query: every pair of overlapping pieces it met (all of them
    /// for [`contact_set`]; [`distance`] skips pairs that cannot be the deepest once the answer
    /// is an overlap of pieces, and [`intersect`] stops at the first deep one).
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
/// the other: [`distance`] tells containment apart). Surfaces within twice the contact
/// tolerance, or one solid inside the other: answers as [`distance`]. Surfaces farther
/// apart: [`MeshAnswer::Separated`] with a certified lower bound of the distance only
/// (`distance` > the contact tolerance, points NaN, features and pieces [`NOT_MEASURED`]) —
/// the search prunes every pair farther than that instead of finding the closest one.
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
/// ([`SolidCache::contacts`]) with the overlapping pairs it met: all of them, except that once
/// the surfaces cross and a pair overlaps for certain, pairs that cannot be deeper than the
/// deepest so far are skipped (use [`contact_set`] for every pair).
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

/// The triangle, feature or piece of an [`intersect`] answer that measured no pair (surfaces
/// apart by more than twice the contact tolerance): `u32::MAX`.
pub const NOT_MEASURED: u32 = u32::MAX;

/// What a search must find.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Stop at the first piece pair overlapping for certain.
    Intersect,
    /// The answer of [`distance`] (the deepest overlapping piece pair; shallower ones are
    /// skipped once the answer is certainly an overlap of pieces).
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
        if mode != Mode::Intersect {
            let raw = search(ma, pose_a, mb, pose_b, mode, certain, tol, f64::INFINITY, cache)?;
            return Ok(decide(a, ma, pose_a, b, mb, pose_b, tol, raw, cache));
        }
        // Intersect: only triangle pairs within the contact tolerance (plus the tie width)
        // matter for the status; farther ones are pruned.
        let raw = search(ma, pose_a, mb, pose_b, mode, certain, tol, tol, cache)?;
        let Some(floor) = raw.filter(|r| !r.distance.is_finite()).map(|r| r.floor) else {
            return Ok(decide(a, ma, pose_a, b, mb, pose_b, tol, raw, cache));
        };
        // No triangle pair within 2·tol: the surfaces are apart for certain. Disjoint unless
        // one solid contains the other; then the exact search, for the contained answer's
        // closest points and bound (as before this shortcut).
        if contained(ma, pose_a, mb, pose_b).is_none() {
            return Ok(MeshAnswer::Separated {
                distance: floor,
                point_a: DVec3::NAN,
                point_b: DVec3::NAN,
                features: (
                    SolidFeature::Triangle(NOT_MEASURED),
                    SolidFeature::Triangle(NOT_MEASURED),
                ),
                pieces: (NOT_MEASURED, NOT_MEASURED),
            });
        }
        let raw = search(ma, pose_a, mb, pose_b, mode, certain, tol, f64::INFINITY, cache)?;
        Ok(decide(a, ma, pose_a, b, mb, pose_b, tol, raw, cache))
    })();
    cache.convex = conv;
    r
}

/// The solid inside the other, for surfaces known to be apart: one vertex per closed shell
/// decides (by the winding number), each shell lying wholly inside or outside.
///
/// A point clearly outside the other mesh's root hull (beyond rounding: [`CONTACT_REL`] of
/// the magnitudes) is outside the solid without the winding sum over every triangle (the
/// sum would say so too: the point is outside the hull and, the surfaces being apart, not
/// near the surface).
fn contained(ma: &TriMesh, pose_a: &Pose, mb: &TriMesh, pose_b: &Pose) -> Option<Side> {
    let inside = |x: &TriMesh, px: &Pose, y: &TriMesh, py: &Pose| {
        let root = y.nodes[y.root as usize].hull().ok();
        x.component_vertices.iter().any(|&v| {
            let w = px.transform_point(x.vertices[v as usize]);
            let q = py.inverse_transform_point(w);
            if let Some(h) = root {
                let slack = CONTACT_REL * (q.abs().max_element() + h.magnitude());
                if (0..h.faces().len() as u32).any(|f| h.face_plane(f).signed_distance(q) > slack) {
                    return false;
                }
            }
            y.contains_point(q)
        })
    };
    if inside(ma, pose_a, mb, pose_b) {
        Some(Side::A)
    } else if inside(mb, pose_b, ma, pose_a) {
        Some(Side::B)
    } else {
        None
    }
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
        if let Some(inner) = contained(ma, pose_a, mb, pose_b) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::math::DQuat;
    use crate::shape::shapes;

    fn knot() -> TriMesh {
        let (v, f) = shapes::torus_knot(2, 3, 40, 6, 0.45).unwrap();
        TriMesh::new(&v, &f).unwrap()
    }

    fn pose(x: f64, angle: f64) -> Pose {
        Pose::new(
            DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 0.5).normalize(), angle),
            DVec3::new(x, 0.2, -0.1),
        )
    }

    /// After `forget()`, a cache that served other queries (another pair, other poses)
    /// answers exactly as a new cache: same answer, same contact set.
    #[test]
    fn forget_answers_as_a_fresh_cache() {
        let (k, cube) = (knot(), shapes::cuboid(1.0, 0.6, 0.8).unwrap());
        let ico = shapes::icosphere(1, 0.7).unwrap();
        let pairs = [
            (Solid::Mesh(&k), Solid::Mesh(&k)),
            (Solid::Mesh(&k), Solid::Convex(&cube)),
            (Solid::Convex(&ico), Solid::Mesh(&k)),
        ];
        let xs = [0.0, 0.4, 1.3, 2.6, 4.0, 7.0];
        let mut used = SolidCache::default();
        let (mut overlapping, mut separated) = (0, 0);
        for (n, &(a, b)) in pairs.iter().enumerate() {
            for (i, &x) in xs.iter().enumerate() {
                // Warm the cache on the other pairs and nearby poses first.
                for &(wa, wb) in &pairs {
                    for dx in [0.05, -0.3] {
                        contact_set(wa, &Pose::IDENTITY, wb, &pose(x + dx, 0.2 * i as f64), &mut used).unwrap();
                    }
                }
                assert!(used.mesh.node_pair_caches() > 0);
                used.forget();
                assert_eq!(used.mesh.node_pair_caches(), 0);
                assert!(used.contacts().is_empty());
                let p = pose(x, 0.3 + 0.1 * n as f64);
                let mut fresh = SolidCache::default();
                let (want, want_set) = contact_set(a, &Pose::IDENTITY, b, &p, &mut fresh).unwrap();
                let want_set = want_set.to_vec();
                let (got, got_set) = contact_set(a, &Pose::IDENTITY, b, &p, &mut used).unwrap();
                // Compared through `Debug` (shortest round-trip digits, so bit-exact): an
                // intersect answer far apart carries NaN points, which `==` never equates.
                assert_eq!(format!("{got:?}"), format!("{want:?}"), "pair {n}, x = {x}");
                assert_eq!(format!("{got_set:?}"), format!("{want_set:?}"), "pair {n}, x = {x}");
                used.forget();
                let mut fresh = SolidCache::default();
                let want = intersect(a, &Pose::IDENTITY, b, &p, &mut fresh).unwrap();
                let got = intersect(a, &Pose::IDENTITY, b, &p, &mut used).unwrap();
                assert_eq!(format!("{got:?}"), format!("{want:?}"), "pair {n}, x = {x}");
                match want {
                    MeshAnswer::Overlapping { .. } => overlapping += 1,
                    MeshAnswer::Separated { .. } => separated += 1,
                }
            }
        }
        // The poses cover both answers.
        assert!(
            overlapping >= 3 && separated >= 3,
            "{overlapping} overlapping, {separated} separated"
        );
    }
}
