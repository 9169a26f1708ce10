//! Contact manifolds of pairs with a non-convex side (issue 25 item 3): one manifold per
//! touching convex piece pair, merged where the normals agree.
//!
//! # Outline
//! 1. The two hull trees (a convex side is one leaf) are traversed from the roots; a node pair
//!    whose world bounding spheres are apart by more than the margin plus the contact
//!    tolerance is pruned, the node with the larger sphere is split otherwise. Leaf pairs left
//!    are candidate piece pairs.
//! 2. Each candidate's convex manifold ([`crate::query::contact_manifold`]) on the two pieces'
//!    hulls, with the caller's margin; a mesh point's feature is the triangle of its piece
//!    nearest to it (as its input face, [`TriMesh::input_face`]).
//! 3. Manifolds whose normals agree within [`MANIFOLD_MERGE_COS`] are merged: their points
//!    joined (a point repeated within the contact tolerance kept once), listed
//!    counter-clockwise about the first normal, reduced to 4 points when asked.
//!
//! # Invariants
//! Every point's `a` lies on A's piece hull and `b` on B's, on one line along the normal, as
//! the convex manifold gives them; pieces lie inside the solids within the decomposition's
//! margin ([`crate::core::tolerance::CCD_PIECE_REL`]), so the points lie on the surfaces
//! within it.
//!
//! # Termination
//! The traversal visits each node pair at most once (a pair is pushed only by its parent
//! pair); the merge compares each manifold with those kept before it.
//!
//! # Departures
//! No persistence across frames for meshes yet (ids are per query); the convex manifolds'
//! feature ids name the piece hulls' features, mapped to the nearest triangle.

use super::solid::{Solid, SolidFeature};
use super::trimesh::TriMesh;
use crate::contract::{pair_scale, ManifoldOptions};
use crate::core::error::PolycdError;
use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::{CONTACT_REL, MANIFOLD_MERGE_COS};
use crate::query::{contact_manifold, ManifoldCache};
use crate::shape::feature::Feature;
use crate::shape::polyhedron::ConvexPolyhedron;

/// One contact point of a [`MeshManifold`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshContactPoint {
    /// The point on A's surface (world frame).
    pub a: DVec3,
    /// The point on B's surface (world frame), `a + separation · normal`.
    pub b: DVec3,
    /// Signed separation along the normal (negative when penetrating).
    pub separation: f64,
    /// A's and B's features: a mesh side's triangle (input face), a convex side's feature.
    pub features: (SolidFeature, SolidFeature),
}

/// The contact manifold of one or more touching piece pairs whose normals agree.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshManifold {
    /// Unit, world frame, from A toward B.
    pub normal: DVec3,
    /// The piece pairs merged into it (piece of A, piece of B; 0 for a convex side).
    pub pieces: Vec<(u32, u32)>,
    /// The points, counter-clockwise about the normal.
    pub points: Vec<MeshContactPoint>,
}

/// One side of the pair: a hull tree or a single convex shape.
#[derive(Clone, Copy)]
enum Tree<'a> {
    Mesh(&'a TriMesh),
    Convex(&'a ConvexPolyhedron),
}

impl<'a> Tree<'a> {
    fn root(&self) -> u32 {
        match self {
            Tree::Mesh(m) => m.root,
            Tree::Convex(_) => 0,
        }
    }
    fn children(&self, i: u32) -> Option<(u32, u32)> {
        match self {
            Tree::Mesh(m) => m.nodes[i as usize].children,
            Tree::Convex(_) => None,
        }
    }
    fn sphere(&self, i: u32) -> (DVec3, f64) {
        match self {
            Tree::Mesh(m) => m.nodes[i as usize].bounding_sphere(),
            Tree::Convex(c) => c.bounding_sphere(),
        }
    }
    fn hull(&self, i: u32) -> Result<&'a ConvexPolyhedron, PolycdError> {
        match self {
            Tree::Mesh(m) => m.nodes[i as usize].hull(),
            Tree::Convex(c) => Ok(c),
        }
    }
    fn piece(&self, i: u32) -> u32 {
        match self {
            Tree::Mesh(m) => m.nodes[i as usize].piece,
            Tree::Convex(_) => 0,
        }
    }
    /// The feature of a contact point `p` (world) of piece `piece`, whose convex feature on
    /// the piece hull is `f`: on a mesh, the triangle of the piece nearest to `p` (within
    /// `tol`, the one whose outward normal is best aligned with `toward`, the direction
    /// from this side to the other: a corner of a face contact names the contact face).
    fn feature(&self, piece: u32, pose: &Pose, p: DVec3, f: Feature, toward: DVec3, tol: f64) -> SolidFeature {
        match self {
            Tree::Convex(_) => SolidFeature::Convex(f),
            Tree::Mesh(m) => {
                let q = pose.inverse_transform_point(p);
                let toward = pose.inverse_transform_vector(toward);
                let tris = &m.pieces[piece as usize];
                let dist = |t: u32| {
                    let [a, b, c] = m.triangles[t as usize].map(|v| m.vertices[v as usize]);
                    (closest_on_triangle(q, a, b, c) - q).length()
                };
                let dmin = tris.iter().map(|&t| dist(t)).fold(f64::INFINITY, f64::min);
                let align = |t: u32| {
                    let [a, b, c] = m.triangles[t as usize].map(|v| m.vertices[v as usize]);
                    (b - a).cross(c - a).normalize_or_zero().dot(toward)
                };
                let best = tris
                    .iter()
                    .copied()
                    .filter(|&t| dist(t) <= dmin + tol)
                    .max_by(|&x, &y| align(x).total_cmp(&align(y)).then(y.cmp(&x)))
                    .unwrap_or(0);
                SolidFeature::Triangle(m.input_face(best))
            }
        }
    }
}

/// The contact manifolds of two solids within `options.margin` (empty when they are apart by
/// more, or when one contains the other without their surfaces meeting): one per touching
/// piece pair, merged where the normals agree (see the module header).
pub fn contact_manifolds(
    a: Solid<'_>,
    pose_a: &Pose,
    b: Solid<'_>,
    pose_b: &Pose,
    options: &ManifoldOptions,
) -> Result<Vec<MeshManifold>, PolycdError> {
    if !(options.margin.is_finite() && options.margin >= 0.0) {
        return Err(PolycdError::InvalidOption {
            name: "margin",
            message: "the margin must be a finite number ≥ 0",
        });
    }
    let tree = |s: Solid<'_>| -> Result<(), PolycdError> {
        if let Solid::Convex(c) = s {
            if c.dimension() < 3 || c.radius() > 0.0 {
                return Err(PolycdError::UnsupportedShape {
                    algorithm: "mesh manifold",
                    shape: "flat or rounded shape",
                    reason: "a mesh pair's manifold needs polyhedra (solid, radius 0)",
                });
            }
        }
        Ok(())
    };
    tree(a)?;
    tree(b)?;
    let ta = match a {
        Solid::Mesh(m) => Tree::Mesh(m),
        Solid::Convex(c) => Tree::Convex(c),
    };
    let tb = match b {
        Solid::Mesh(m) => Tree::Mesh(m),
        Solid::Convex(c) => Tree::Convex(c),
    };
    let tol = CONTACT_REL * pair_scale(ta.hull(ta.root())?, pose_a, tb.hull(tb.root())?, pose_b);
    let reach = options.margin + tol;
    // 1. Candidate leaf pairs.
    let mut leaves = Vec::new();
    let mut stack = vec![(ta.root(), tb.root())];
    while let Some((i, j)) = stack.pop() {
        let (ca, ra) = ta.sphere(i);
        let (cb, rb) = tb.sphere(j);
        let gap = (pose_b.transform_point(cb) - pose_a.transform_point(ca)).length() - ra - rb;
        if gap > reach {
            continue;
        }
        match (ta.children(i), tb.children(j)) {
            (None, None) => leaves.push((i, j)),
            (Some((l, r)), None) => stack.extend([(r, j), (l, j)]),
            (None, Some((l, r))) => stack.extend([(i, r), (i, l)]),
            (Some((la, ra_)), Some((lb, rb_))) => {
                if ra >= rb {
                    stack.extend([(ra_, j), (la, j)]);
                } else {
                    stack.extend([(i, rb_), (i, lb)]);
                }
            }
        }
    }
    leaves.sort_unstable();
    // 2. Each candidate's convex manifold.
    let mut cache = ManifoldCache::default();
    let mut out: Vec<MeshManifold> = Vec::new();
    for (i, j) in leaves {
        let (ha, hb) = (ta.hull(i)?, tb.hull(j)?);
        let Some(m) = contact_manifold(ha, pose_a, hb, pose_b, options, &mut cache)? else {
            continue;
        };
        let (pa, pb) = (ta.piece(i), tb.piece(j));
        let points: Vec<MeshContactPoint> = m
            .points
            .iter()
            .map(|q| MeshContactPoint {
                a: q.a,
                b: q.b,
                separation: q.separation,
                features: (
                    ta.feature(pa, pose_a, q.a, q.features.a, m.normal, tol),
                    tb.feature(pb, pose_b, q.b, q.features.b, -m.normal, tol),
                ),
            })
            .collect();
        // 3. Merge into a manifold whose normal agrees.
        match out.iter_mut().find(|o| o.normal.dot(m.normal) >= MANIFOLD_MERGE_COS) {
            Some(o) => {
                o.pieces.push((pa, pb));
                for p in points {
                    if !o
                        .points
                        .iter()
                        .any(|q| (q.a - p.a).length() <= tol && (q.b - p.b).length() <= tol)
                    {
                        o.points.push(p);
                    }
                }
            }
            None => out.push(MeshManifold {
                normal: m.normal,
                pieces: vec![(pa, pb)],
                points,
            }),
        }
    }
    for o in &mut out {
        if o.pieces.len() > 1 {
            order_ccw(o);
            if options.reduce && o.points.len() > 4 {
                reduce4(o);
            }
        }
    }
    Ok(out)
}

/// An orthonormal pair spanning the plane normal to `n`.
fn basis(n: DVec3) -> (DVec3, DVec3) {
    let u = if n.x.abs() < 0.6 { DVec3::X } else { DVec3::Y };
    let u = (u - n * n.dot(u)).normalize();
    (u, n.cross(u))
}

/// Sorts the points counter-clockwise about the normal (around their centroid, on A's side).
fn order_ccw(m: &mut MeshManifold) {
    let (u, v) = basis(m.normal);
    let c = m.points.iter().map(|p| p.a).sum::<DVec3>() / m.points.len() as f64;
    let angle = |p: &MeshContactPoint| {
        let d = p.a - c;
        d.dot(v).atan2(d.dot(u))
    };
    m.points.sort_by(|x, y| angle(x).total_cmp(&angle(y)));
}

/// Keeps 4 points: the deepest, the farthest from it, the one spanning the largest triangle
/// with those two, and the one spanning the largest triangle on the other side; then
/// counter-clockwise again.
fn reduce4(m: &mut MeshManifold) {
    let n = m.normal;
    let pts = &m.points;
    let deepest = (0..pts.len())
        .min_by(|&x, &y| pts[x].separation.total_cmp(&pts[y].separation))
        .unwrap_or(0);
    let p0 = pts[deepest].a;
    let far = (0..pts.len())
        .max_by(|&x, &y| {
            (pts[x].a - p0)
                .length_squared()
                .total_cmp(&(pts[y].a - p0).length_squared())
        })
        .unwrap_or(0);
    let p1 = pts[far].a;
    let area = |k: usize| (p1 - p0).cross(pts[k].a - p0).dot(n);
    let third = (0..pts.len()).max_by(|&x, &y| area(x).total_cmp(&area(y))).unwrap_or(0);
    let fourth = (0..pts.len()).min_by(|&x, &y| area(x).total_cmp(&area(y))).unwrap_or(0);
    let mut keep = vec![deepest, far, third, fourth];
    keep.sort_unstable();
    keep.dedup();
    m.points = keep.into_iter().map(|k| m.points[k]).collect();
    order_ccw(m);
}

/// The point of triangle `abc` nearest to `p` (by the triangle's Voronoi regions).
fn closest_on_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> DVec3 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = va + vb + vc;
    if !(denom > 0.0) {
        return a;
    }
    a + ab * (vb / denom) + ac * (vc / denom)
}
