//! Open triangle surfaces (issue 23 item 7): a triangle mesh that need not be closed nor
//! manifold (open edges, edges of three or more triangles), read as a *surface* — a set of
//! triangles with no inside, as parry's `TriMesh` is.
//!
//! # Semantics
//! - Each triangle is a flat convex piece (a [`ConvexPolyhedron`] polygon, built on first use);
//!   the surface is their union. It bounds nothing: a solid inside a closed-looking surface
//!   is apart from it (distance to the walls).
//! - Surface–surface: the pair meets iff some triangle of A meets some triangle of B; the
//!   distance is the minimum over triangle pairs ([`triangle_distance`], exact).
//! - Surface–convex solid and surface–closed mesh: the other side keeps its inside, so a
//!   triangle inside it overlaps it; the distance is the minimum over the triangles of the
//!   triangle–solid distances (convex: [`query::distance`]; mesh: [`super::solid::distance`]).
//! - A triangle pair (or triangle–solid pair) *overlaps* as convex pairs do
//!   ([`Distance::status`] with the pair's contact tolerance): touching triangles (meeting at
//!   a point or an edge, depth 0) are touching, not overlapping; two triangles crossing each
//!   other, or a triangle inside a solid, overlap.
//! - When the pair overlaps, [`MeshAnswer::Overlapping::depth_lower_bound`] is the deepest
//!   overlapping pair's convex penetration depth (EPA; for a mesh side, that triangle's
//!   certified bound of [`super::solid::distance`]). It is a certified **lower bound** of the
//!   penetration depth of the whole pair: any translation that frees the surface frees each
//!   of its triangles, so it is at least as long as each triangle's own penetration depth.
//!   (Two sheets crossing one another overlap by a positive depth: the Minkowski difference of
//!   two triangles that cross is solid. Coplanar overlapping triangles have depth 0 and
//!   overlap by their in-plane depth, as flat convex pairs do: the bound is then 0.)
//! - Features: `SolidFeature::Triangle(input face)` on a surface side; pieces: the surface
//!   triangle's input face.
//!
//! # Structure and cost
//! Triangles are repaired as closed meshes are ([`MeshOptions`]: welding, zero-area and
//! duplicate triangles dropped; faces keep their input numbers), then put into a bounding
//! sphere tree (median splits of triangle centroids on the widest axis, at most
//! [`SURFACE_LEAF`] triangles per leaf): O(n log n). A query descends A's tree against B's
//! bounding sphere (B's tree, for two surfaces), pruning node pairs whose spheres are farther
//! apart than the best distance so far; each surviving triangle pair is one exact triangle
//! distance, and a convex query only where two triangles meet. Every loop is bounded by the
//! tree sizes (each node pair is visited at most once).

use super::repair::{MeshOptions, MeshRepair};
use super::solid::{self, MeshAnswer, MeshOverlap, PieceContact, Side, Solid, SolidCache, SolidFeature};
use super::tri_dist::triangle_distance;
use super::trimesh::{surface_triangles, Names, TriMesh};
use crate::contract::{Distance, Penetration, Status};
use crate::core::error::PolycdError;
use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::{CCD_PIECE_REL, CONTACT_REL};
use crate::query::{self, Algorithm, PairCache};
use crate::shape::polyhedron::ConvexPolyhedron;
use std::sync::OnceLock;

/// Most triangles in a leaf of a surface's sphere tree.
pub const SURFACE_LEAF: usize = 4;

/// A node of the sphere tree: the triangles `order[start..end]`.
#[derive(Debug)]
struct Node {
    centre: DVec3,
    radius: f64,
    start: u32,
    end: u32,
    children: Option<(u32, u32)>,
}

/// An open (or non-manifold) triangle surface: triangles without an inside.
#[derive(Debug)]
pub struct TriSurface {
    vertices: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
    tri_face: Vec<u32>,
    repair: MeshRepair,
    order: Vec<u32>,
    nodes: Vec<Node>,
    polys: Vec<OnceLock<Result<ConvexPolyhedron, PolycdError>>>,
    scale: f64,
    magnitude: f64,
    open_edges: usize,
    nonmanifold_edges: usize,
}

impl TriSurface {
    /// A surface of the faces (vertex index lists, polygons fan-triangulated) over `vertices`,
    /// repaired with [`MeshOptions::default`]. Errors: no triangles, a face with an index out
    /// of range or fewer than three vertices, non-finite coordinates, a degenerate triangle
    /// left after the repair — each naming the input face.
    pub fn new(vertices: &[DVec3], faces: &[Vec<u32>]) -> Result<TriSurface, PolycdError> {
        let (t, tf, r) = surface_triangles(vertices, faces, &Names::INPUT, &MeshOptions::default())?;
        Ok(TriSurface::finish(vertices.to_vec(), t, tf, r))
    }

    /// Reads a mesh file (`.obj`, `.off`, `.stl`) as a surface; errors name the file and its
    /// own numbering.
    #[cfg(feature = "io")]
    pub fn read(path: impl AsRef<std::path::Path>) -> Result<TriSurface, PolycdError> {
        let (v, (t, tf, r)) = super::trimesh::read_surface(path.as_ref())?;
        Ok(TriSurface::finish(v, t, tf, r))
    }

    /// The surface of a closed mesh's triangles (its inside forgotten).
    pub fn from_mesh(m: &TriMesh) -> TriSurface {
        let tf = (0..m.triangles().len() as u32).map(|t| m.input_face(t)).collect();
        TriSurface::finish(m.vertices().to_vec(), m.triangles().to_vec(), tf, m.repair().clone())
    }

    fn finish(vertices: Vec<DVec3>, triangles: Vec<[u32; 3]>, tri_face: Vec<u32>, repair: MeshRepair) -> TriSurface {
        let (order, nodes) = build_tree(&vertices, &triangles);
        let (open_edges, nonmanifold_edges) = edge_counts(&triangles);
        let scale = nodes.first().map_or(0.0, |n| n.radius);
        let magnitude = vertices.iter().fold(0.0f64, |m, p| m.max(p.abs().max_element()));
        let polys = (0..triangles.len()).map(|_| OnceLock::new()).collect();
        TriSurface {
            vertices,
            triangles,
            tri_face,
            repair,
            order,
            nodes,
            polys,
            scale,
            magnitude,
            open_edges,
            nonmanifold_edges,
        }
    }

    /// The vertices (input order; welded duplicates are unused).
    pub fn vertices(&self) -> &[DVec3] {
        &self.vertices
    }

    /// The triangles after repair.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// The 0-based input face of triangle `t`.
    pub fn input_face(&self, t: u32) -> u32 {
        self.tri_face.get(t as usize).copied().unwrap_or(u32::MAX)
    }

    /// What was repaired.
    pub fn repair(&self) -> &MeshRepair {
        &self.repair
    }

    /// Edges used by one triangle only (the surface's border).
    pub fn open_edges(&self) -> usize {
        self.open_edges
    }

    /// Edges used by three or more triangles.
    pub fn nonmanifold_edges(&self) -> usize {
        self.nonmanifold_edges
    }

    /// Nodes of the sphere tree.
    pub fn tree_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// The bounding radius (the root sphere's).
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// Triangle `t` as a flat convex polygon (surface frame), built on first use.
    pub fn triangle_polygon(&self, t: u32) -> Result<&ConvexPolyhedron, PolycdError> {
        let cell = self.polys.get(t as usize).ok_or(PolycdError::InvalidOption {
            name: "triangle",
            message: "no such triangle",
        })?;
        cell.get_or_init(|| ConvexPolyhedron::from_points(&self.corners(t)))
            .as_ref()
            .map_err(Clone::clone)
    }

    fn corners(&self, t: u32) -> [DVec3; 3] {
        self.triangles[t as usize].map(|v| self.vertices[v as usize])
    }
}

/// Builds the sphere tree; node 0 is the root.
fn build_tree(vertices: &[DVec3], triangles: &[[u32; 3]]) -> (Vec<u32>, Vec<Node>) {
    let mut order: Vec<u32> = (0..triangles.len() as u32).collect();
    let cent: Vec<DVec3> = triangles
        .iter()
        .map(|t| (vertices[t[0] as usize] + vertices[t[1] as usize] + vertices[t[2] as usize]) / 3.0)
        .collect();
    let mut nodes = Vec::with_capacity(2 * triangles.len() / SURFACE_LEAF + 2);
    nodes.push(Node {
        centre: DVec3::ZERO,
        radius: 0.0,
        start: 0,
        end: triangles.len() as u32,
        children: None,
    });
    // Each node is taken once; children have strictly shorter ranges: at most 2n nodes.
    let mut next = 0;
    while next < nodes.len() {
        let (start, end) = (nodes[next].start as usize, nodes[next].end as usize);
        let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
        for &t in &order[start..end] {
            for v in triangles[t as usize] {
                lo = lo.min(vertices[v as usize]);
                hi = hi.max(vertices[v as usize]);
            }
        }
        let centre = 0.5 * (lo + hi);
        let mut radius = 0.0f64;
        for &t in &order[start..end] {
            for v in triangles[t as usize] {
                radius = radius.max((vertices[v as usize] - centre).length());
            }
        }
        // Rounding of the centre and the lengths: pad by a few ulps of the extent.
        radius += 4.0 * f64::EPSILON * (radius + centre.abs().max_element());
        nodes[next].centre = centre;
        nodes[next].radius = radius;
        if end - start > SURFACE_LEAF {
            let (mut clo, mut chi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
            for &t in &order[start..end] {
                clo = clo.min(cent[t as usize]);
                chi = chi.max(cent[t as usize]);
            }
            let ext = chi - clo;
            let axis = if ext.x >= ext.y && ext.x >= ext.z {
                0
            } else if ext.y >= ext.z {
                1
            } else {
                2
            };
            let mid = (start + end) / 2;
            order[start..end].select_nth_unstable_by(mid - start, |&a, &b| {
                cent[a as usize][axis].total_cmp(&cent[b as usize][axis])
            });
            let k = nodes.len() as u32;
            for (s, e) in [(start, mid), (mid, end)] {
                nodes.push(Node {
                    centre: DVec3::ZERO,
                    radius: 0.0,
                    start: s as u32,
                    end: e as u32,
                    children: None,
                });
            }
            nodes[next].children = Some((k, k + 1));
        }
        next += 1;
    }
    (order, nodes)
}

/// (open edges, edges of three or more triangles).
fn edge_counts(triangles: &[[u32; 3]]) -> (usize, usize) {
    let mut count: std::collections::HashMap<(u32, u32), u32> = std::collections::HashMap::new();
    for t in triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            *count.entry((a.min(b), a.max(b))).or_insert(0) += 1;
        }
    }
    let open = count.values().filter(|&&c| c == 1).count();
    let nm = count.values().filter(|&&c| c >= 3).count();
    (open, nm)
}

/// Either side of a query with a surface: a surface, or a solid.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Body<'a> {
    /// An open surface.
    Surface(&'a TriSurface),
    /// A solid (convex polyhedron or closed mesh).
    Solid(Solid<'a>),
}

/// What one triangle (of the surface side) meets on the other side.
#[derive(Clone, Copy, Debug)]
enum Hit {
    Sep {
        d: f64,
        pa: DVec3,
        pb: DVec3,
        fb: SolidFeature,
        piece_b: u32,
    },
    Over {
        depth: f64,
        pa: DVec3,
        pb: DVec3,
        witness: MeshOverlap,
    },
}

/// World bounding sphere, scale and coordinate magnitude of a side.
fn sphere_of(b: Body<'_>, pose: &Pose) -> Result<(DVec3, f64, f64), PolycdError> {
    Ok(match b {
        Body::Surface(s) => {
            let n = &s.nodes[0];
            (pose.transform_point(n.centre), n.radius, s.magnitude)
        }
        Body::Solid(Solid::Convex(c)) => {
            let (c0, r) = c.bounding_sphere();
            (pose.transform_point(c0), r, c.magnitude())
        }
        Body::Solid(Solid::Mesh(m)) => {
            let h = m.nodes()[m.root() as usize].hull()?;
            let (c0, r) = h.bounding_sphere();
            (pose.transform_point(c0), r, h.magnitude())
        }
    })
}

/// The contact tolerance of a pair with a surface side: [`CONTACT_REL`] × the pair scale
/// computed as [`crate::contract::pair_scale`] does, from the sides' bounding spheres
/// (a surface's sphere tree root, a mesh's root hull).
pub fn surface_contact_tolerance(a: Body<'_>, pose_a: &Pose, b: Body<'_>, pose_b: &Pose) -> Result<f64, PolycdError> {
    let (ca, ra, ma) = sphere_of(a, pose_a)?;
    let (cb, rb, mb) = sphere_of(b, pose_b)?;
    let t = pose_a
        .translation
        .abs()
        .max_element()
        .max(pose_b.translation.abs().max_element());
    Ok(CONTACT_REL * (ra + rb + (ca - cb).length() + ma.max(mb) + t))
}

/// Do the sides overlap? (at least one a surface; two solids go to [`solid::intersect`]).
/// Stops at the first overlapping triangle pair; otherwise answers as [`distance`].
pub fn intersect(a: Body<'_>, pose_a: &Pose, b: Body<'_>, pose_b: &Pose) -> Result<MeshAnswer, PolycdError> {
    run(a, pose_a, b, pose_b, true)
}

/// Exact distance of the sides (at least one a surface; two solids go to
/// [`solid::distance`]), with closest points and features; or their overlap, with the deepest
/// overlapping pair as witness and its depth as a certified lower bound (module docs).
pub fn distance(a: Body<'_>, pose_a: &Pose, b: Body<'_>, pose_b: &Pose) -> Result<MeshAnswer, PolycdError> {
    run(a, pose_a, b, pose_b, false)
}

fn run(a: Body<'_>, pose_a: &Pose, b: Body<'_>, pose_b: &Pose, first: bool) -> Result<MeshAnswer, PolycdError> {
    crate::contract::checked_pose(pose_a)?;
    crate::contract::checked_pose(pose_b)?;
    match (a, b) {
        (Body::Solid(sa), Body::Solid(sb)) => {
            let mut cache = SolidCache::default();
            if first {
                solid::intersect(sa, pose_a, sb, pose_b, &mut cache)
            } else {
                solid::distance(sa, pose_a, sb, pose_b, &mut cache)
            }
        }
        (Body::Surface(s), _) => surface_vs(s, pose_a, b, pose_b, a, first),
        (_, Body::Surface(s)) => Ok(swap(surface_vs(s, pose_b, a, pose_a, b, first)?)),
    }
}

/// The answer with A and B exchanged.
fn swap(ans: MeshAnswer) -> MeshAnswer {
    match ans {
        MeshAnswer::Separated {
            distance,
            point_a,
            point_b,
            features,
            pieces,
        } => MeshAnswer::Separated {
            distance,
            point_a: point_b,
            point_b: point_a,
            features: (features.1, features.0),
            pieces: (pieces.1, pieces.0),
        },
        MeshAnswer::Overlapping {
            witness,
            depth_lower_bound,
            point_a,
            point_b,
        } => MeshAnswer::Overlapping {
            witness: match witness {
                MeshOverlap::Pieces(pc) => MeshOverlap::Pieces(PieceContact {
                    pieces: (pc.pieces.1, pc.pieces.0),
                    penetration: Penetration {
                        normal: -pc.penetration.normal,
                        point_a: pc.penetration.point_b,
                        point_b: pc.penetration.point_a,
                        ..pc.penetration
                    },
                }),
                MeshOverlap::Contained { inner } => MeshOverlap::Contained {
                    inner: match inner {
                        Side::A => Side::B,
                        Side::B => Side::A,
                    },
                },
            },
            depth_lower_bound,
            point_a: point_b,
            point_b: point_a,
        },
    }
}

/// Best answer so far of a surface (side A) against `other` (side B).
struct Best {
    d: f64,
    sep: Option<(DVec3, DVec3, u32, SolidFeature, u32)>,
    over: Option<(f64, DVec3, DVec3, MeshOverlap)>,
}

fn surface_vs(
    s: &TriSurface,
    ps: &Pose,
    other: Body<'_>,
    po: &Pose,
    surface_body: Body<'_>,
    first: bool,
) -> Result<MeshAnswer, PolycdError> {
    let tol = surface_contact_tolerance(surface_body, ps, other, po)?;
    let (co, ro, _) = sphere_of(other, po)?;
    let mut best = Best {
        d: f64::INFINITY,
        sep: None,
        over: None,
    };
    let mut pc = PairCache::default();
    let mut stack = vec![0u32];
    // Each node of the tree is pushed at most once.
    while let Some(n) = stack.pop() {
        let node = &s.nodes[n as usize];
        let gap = (ps.transform_point(node.centre) - co).length() - node.radius - ro;
        if gap > best.d {
            continue;
        }
        if let Some((l, r)) = node.children {
            stack.push(r);
            stack.push(l);
            continue;
        }
        for &t in &s.order[node.start as usize..node.end as usize] {
            let hits = triangle_vs(s, t, ps, other, po, tol, &best, &mut pc)?;
            for (hit, fa_tri) in hits.into_iter().flatten() {
                record(&mut best, hit, s.input_face(fa_tri));
            }
            if first && best.over.is_some() {
                stack.clear();
                break;
            }
        }
    }
    Ok(match (best.over, best.sep) {
        (Some((depth, pa, pb, witness)), _) => MeshAnswer::Overlapping {
            witness,
            depth_lower_bound: depth,
            point_a: pa,
            point_b: pb,
        },
        (None, Some((pa, pb, fa, fb, piece_b))) => MeshAnswer::Separated {
            distance: best.d,
            point_a: pa,
            point_b: pb,
            features: (SolidFeature::Triangle(fa), fb),
            pieces: (fa, piece_b),
        },
        (None, None) => {
            return Err(PolycdError::NotConverged {
                query: "surface distance",
                iterations: 0,
            })
        }
    })
}

fn record(best: &mut Best, hit: Hit, face_a: u32) {
    match hit {
        Hit::Sep { d, pa, pb, fb, piece_b } => {
            if !d.is_finite() {
                return;
            }
            if d < best.d || best.sep.is_none() && d <= best.d {
                best.d = d;
                best.sep = Some((pa, pb, face_a, fb, piece_b));
            }
        }
        Hit::Over { depth, pa, pb, witness } => {
            best.d = 0.0;
            let witness = match witness {
                MeshOverlap::Pieces(p) => MeshOverlap::Pieces(PieceContact {
                    pieces: (face_a, p.pieces.1),
                    ..p
                }),
                w => w,
            };
            if best.over.as_ref().is_none_or(|o| depth > o.0) {
                best.over = Some((depth, pa, pb, witness));
            }
        }
    }
}

/// The hits of triangle `t` of `s` against `other` (up to one per triangle of a surface
/// `other`, visited by its tree; one for a solid). Returned as a small list.
#[allow(clippy::too_many_arguments)]
fn triangle_vs(
    s: &TriSurface,
    t: u32,
    ps: &Pose,
    other: Body<'_>,
    po: &Pose,
    tol: f64,
    best: &Best,
    pc: &mut PairCache,
) -> Result<Vec<Option<(Hit, u32)>>, PolycdError> {
    let ta = s.corners(t).map(|p| ps.transform_point(p));
    match other {
        Body::Solid(Solid::Convex(c)) => {
            let poly = s.triangle_polygon(t)?;
            Ok(vec![Some((convex_hit(poly, ps, c, po, tol, pc)?, t))])
        }
        Body::Solid(Solid::Mesh(m)) => Ok(vec![Some((mesh_hit(s, t, &ta, ps, m, po, tol, best.d, pc)?, t))]),
        Body::Surface(o) => {
            let (lo, hi) = (ta[0].min(ta[1]).min(ta[2]), ta[0].max(ta[1]).max(ta[2]));
            let c = 0.5 * (lo + hi);
            let r = ta.iter().fold(0.0f64, |m, p| m.max((*p - c).length())) * (1.0 + 4.0 * f64::EPSILON);
            let mut bound = best.d;
            let mut out = Vec::new();
            let mut stack = vec![0u32];
            while let Some(n) = stack.pop() {
                let node = &o.nodes[n as usize];
                let gap = (po.transform_point(node.centre) - c).length() - node.radius - r;
                if gap > bound {
                    continue;
                }
                if let Some((l, rr)) = node.children {
                    stack.push(rr);
                    stack.push(l);
                    continue;
                }
                for &u in &o.order[node.start as usize..node.end as usize] {
                    let tb = o.corners(u).map(|p| po.transform_point(p));
                    let td = triangle_distance(&ta, &tb);
                    let face_b = o.input_face(u);
                    let hit = if td.distance > 0.0 {
                        Hit::Sep {
                            d: td.distance,
                            pa: td.point_a,
                            pb: td.point_b,
                            fb: SolidFeature::Triangle(face_b),
                            piece_b: face_b,
                        }
                    } else {
                        // The triangles meet: overlapping or touching, as the convex pair says.
                        let (pa_poly, pb_poly) = (s.triangle_polygon(t)?, o.triangle_polygon(u)?);
                        match convex_hit(pa_poly, ps, pb_poly, po, tol, pc)? {
                            Hit::Sep { .. } => Hit::Sep {
                                d: 0.0,
                                pa: td.point_a,
                                pb: td.point_b,
                                fb: SolidFeature::Triangle(face_b),
                                piece_b: face_b,
                            },
                            Hit::Over {
                                depth,
                                pa,
                                pb,
                                witness: MeshOverlap::Pieces(p),
                            } => Hit::Over {
                                depth,
                                pa,
                                pb,
                                witness: MeshOverlap::Pieces(PieceContact {
                                    pieces: (0, face_b),
                                    ..p
                                }),
                            },
                            h => h,
                        }
                    };
                    if let Hit::Sep { d, .. } = hit {
                        bound = bound.min(d);
                    } else {
                        bound = 0.0;
                    }
                    out.push(Some((hit, t)));
                }
            }
            Ok(out)
        }
    }
}

/// Triangle `t` of `s` (world corners `ta`) against a closed mesh: the mesh's hull tree is
/// descended by bounding spheres (pruned beyond `bound`), and the triangles of each reached
/// piece measured exactly ([`triangle_distance`]). Where the triangle meets a mesh triangle,
/// the convex penetration of the surface triangle and that piece's hull decides: overlapping
/// when it exceeds the contact tolerance plus the piece margin (2 · [`CCD_PIECE_REL`] × the
/// mesh's scale: a piece hull may leave the solid by that much), its depth the bound. A
/// triangle that meets no mesh triangle is inside the solid iff one of its corners is (winding
/// number, reliable away from the surface); it is then overlapping with the bound its distance
/// to the surface (any shorter move leaves it inside), touching within the tolerance.
#[allow(clippy::too_many_arguments)]
fn mesh_hit(
    s: &TriSurface,
    t: u32,
    ta: &[DVec3; 3],
    ps: &Pose,
    m: &TriMesh,
    po: &Pose,
    tol: f64,
    bound: f64,
    pc: &mut PairCache,
) -> Result<Hit, PolycdError> {
    let (lo, hi) = (ta[0].min(ta[1]).min(ta[2]), ta[0].max(ta[1]).max(ta[2]));
    let c = 0.5 * (lo + hi);
    let r = ta.iter().fold(0.0f64, |x, p| x.max((*p - c).length())) * (1.0 + 4.0 * f64::EPSILON);
    let certain = tol + 2.0 * CCD_PIECE_REL * m.scale();
    let nodes = m.nodes();
    let mut stack = vec![m.root()];
    // The nearest mesh triangle, and the deepest overlapping piece.
    let mut near: Option<(f64, DVec3, DVec3, u32, u32)> = None;
    let mut deep: Option<(f64, Penetration, u32)> = None;
    let mut limit = bound;
    // Each hull-tree node is pushed at most once.
    while let Some(n) = stack.pop() {
        let node = &nodes[n as usize];
        let (nc, nr) = node.bounding_sphere();
        let gap = (po.transform_point(nc) - c).length() - nr - r;
        if gap > limit {
            continue;
        }
        if let Some((a, b)) = node.children {
            stack.push(b);
            stack.push(a);
            continue;
        }
        let piece = node.piece;
        let mut piece_met = false;
        for &u in m.pieces().get(piece as usize).map_or(&[][..], |p| &p[..]) {
            let tb = m.triangles()[u as usize].map(|k| po.transform_point(m.vertices()[k as usize]));
            let td = triangle_distance(ta, &tb);
            if near.is_none_or(|x| td.distance < x.0) {
                near = Some((td.distance, td.point_a, td.point_b, m.input_face(u), piece));
            }
            limit = limit.min(td.distance);
            piece_met |= td.distance == 0.0;
        }
        if piece_met {
            let hull = nodes[n as usize].hull()?;
            *pc = PairCache::default();
            if let Distance::Penetrating {
                penetration: Some(p), ..
            } = query::distance(s.triangle_polygon(t)?, ps, hull, po, Algorithm::Auto, pc)?
            {
                if p.relative_depth > certain && deep.as_ref().is_none_or(|d| p.depth > d.0) {
                    deep = Some((p.depth, p, piece));
                }
            }
        }
    }
    if let Some((depth, p, piece)) = deep {
        return Ok(Hit::Over {
            depth,
            pa: p.point_a,
            pb: p.point_b,
            witness: MeshOverlap::Pieces(PieceContact {
                pieces: (0, piece),
                penetration: p,
            }),
        });
    }
    let Some((d, pa, pb, face, piece)) = near else {
        // Pruned: farther than `bound`; nothing to add.
        return Ok(Hit::Sep {
            d: f64::INFINITY,
            pa: ta[0],
            pb: ta[0],
            fb: SolidFeature::Triangle(u32::MAX),
            piece_b: u32::MAX,
        });
    };
    if d > 0.0 && m.contains_point(po.inverse_transform_point(ta[0])) {
        if d > tol {
            return Ok(Hit::Over {
                depth: d,
                pa,
                pb,
                witness: MeshOverlap::Contained { inner: Side::A },
            });
        }
        return Ok(Hit::Sep {
            d: 0.0,
            pa,
            pb,
            fb: SolidFeature::Triangle(face),
            piece_b: piece,
        });
    }
    Ok(Hit::Sep {
        d,
        pa,
        pb,
        fb: SolidFeature::Triangle(face),
        piece_b: piece,
    })
}

/// A flat triangle polygon against a convex polyhedron by the convex distance query.
fn convex_hit(
    poly: &ConvexPolyhedron,
    ps: &Pose,
    c: &ConvexPolyhedron,
    po: &Pose,
    tol: f64,
    pc: &mut PairCache,
) -> Result<Hit, PolycdError> {
    *pc = PairCache::default();
    let d = query::distance(poly, ps, c, po, Algorithm::Auto, pc)?;
    Ok(match d {
        Distance::Separated {
            distance,
            point_a,
            point_b,
            features,
            ..
        } => Hit::Sep {
            d: distance,
            pa: point_a,
            pb: point_b,
            fb: SolidFeature::Convex(features.b),
            piece_b: 0,
        },
        Distance::Penetrating { penetration, .. } => {
            let p = penetration.ok_or(PolycdError::NotConverged {
                query: "surface triangle penetration",
                iterations: 0,
            })?;
            if d.status(tol) == Status::Overlapping {
                Hit::Over {
                    depth: p.depth,
                    pa: p.point_a,
                    pb: p.point_b,
                    witness: MeshOverlap::Pieces(PieceContact {
                        pieces: (0, 0),
                        penetration: p,
                    }),
                }
            } else {
                // Touching within the tolerance: distance 0, B's feature the one carrying
                // the witness point (exact point query).
                Hit::Sep {
                    d: 0.0,
                    pa: p.point_a,
                    pb: p.point_b,
                    fb: SolidFeature::Convex(query::point_query(c, po, p.point_b)?.feature),
                    piece_b: 0,
                }
            }
        }
        Distance::NotConverged { iterations } => {
            return Err(PolycdError::NotConverged {
                query: "surface triangle distance",
                iterations,
            })
        }
    })
}
