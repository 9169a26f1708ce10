//! Feature helpers of a contact manifold: support separations and faces, the supporting
//! feature pair of a one-point manifold, the four-point reduction and the parallel-segment
//! (capsule along capsule) contact.

use crate::contract::{ContactManifold, ContactPoint, Feature, FeaturePair, ManifoldKind};
use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::MANIFOLD_PARALLEL_SIN;
use crate::shape::polyhedron::ConvexPolyhedron;

/// The separation of the cores along `nl` (A's frame): B's least extent minus A's greatest.
pub(super) fn along(a: &ConvexPolyhedron, b: &ConvexPolyhedron, rel: &Pose, nl: DVec3) -> f64 {
    let va = a.support_climb_hinted(nl, 0);
    let vb = b.support_climb_hinted(rel.inverse_transform_vector(-nl), 0);
    nl.dot(rel.transform_point(b.vertex(vb))) - nl.dot(a.vertex(va))
}

/// Of the faces around `p`'s support vertex along `dir` (local frame), the one whose outward
/// normal is best aligned with `dir` (the first on ties). Taking the face at the support
/// vertex — not the best-aligned face of the whole shape, which on irregular hulls may lie
/// away from it — keeps the shape's extreme point along `dir` on the face, so a clip on it
/// holds the deepest point. `p` has faces.
pub(super) fn face_at_support(p: &ConvexPolyhedron, dir: DVec3) -> u32 {
    let v = p.support_climb_hinted(dir, 0);
    let mut best = (0u32, f64::NEG_INFINITY);
    for &h in p.outgoing(v) {
        let f = p.half_edge(h).face;
        if let Some(face) = p.faces().get(f as usize) {
            let c = face.normal.dot(dir);
            if c > best.1 {
                best = (f, c);
            }
        }
    }
    best.0
}

/// The feature of `p` (at `pose`) supporting the world direction `d`: the support vertex, the
/// edge to its one neighbour within `tol` of the support value, or the best-aligned face
/// around it when two or more neighbours are.
pub(super) fn support_feature(p: &ConvexPolyhedron, pose: &Pose, d: DVec3, tol: f64) -> Feature {
    let dl = pose.inverse_transform_vector(d);
    let v = p.support_climb_hinted(dl, 0);
    let top = dl.dot(p.vertex(v));
    let mut count = 0;
    let mut first = u32::MAX;
    for (k, &w) in p.neighbors(v).iter().enumerate() {
        if dl.dot(p.vertex(w)) >= top - tol {
            count += 1;
            if first == u32::MAX {
                first = p.outgoing(v)[k];
            }
        }
    }
    match count {
        0 => Feature::Vertex(v),
        1 => Feature::Edge(p.half_edge(first).edge),
        _ => {
            let mut best = (u32::MAX, f64::NEG_INFINITY);
            for &h in p.outgoing(v) {
                let f = p.half_edge(h).face;
                if let Some(face) = p.faces().get(f as usize) {
                    let c = face.normal.dot(dl);
                    if c > best.1 {
                        best = (f, c);
                    }
                }
            }
            if best.0 == u32::MAX {
                Feature::Edge(p.half_edge(first).edge)
            } else {
                Feature::Face(best.0)
            }
        }
    }
}

/// Keeps at most four of the counter-clockwise points `m` (in their order): the deepest, the
/// farthest from it, and the two spanning the largest triangles with those on either side.
pub(super) fn reduce(m: &mut Vec<ContactPoint>, normal: DVec3, keep: &mut Vec<bool>) {
    let n = m.len();
    keep.clear();
    keep.resize(n, false);
    let deepest = (0..n)
        .min_by(|&i, &j| m[i].separation.total_cmp(&m[j].separation))
        .unwrap_or(0);
    keep[deepest] = true;
    let o = m[deepest].a;
    let far = (0..n)
        .max_by(|&i, &j| (m[i].a - o).length_squared().total_cmp(&(m[j].a - o).length_squared()))
        .unwrap_or(0);
    keep[far] = true;
    let q = m[far].a;
    let area = |i: usize| (q - o).cross(m[i].a - o).dot(normal);
    let left = (0..n).max_by(|&i, &j| area(i).total_cmp(&area(j))).unwrap_or(0);
    if area(left) > 0.0 {
        keep[left] = true;
    }
    let right = (0..n).min_by(|&i, &j| area(i).total_cmp(&area(j))).unwrap_or(0);
    if area(right) < 0.0 {
        keep[right] = true;
    }
    let mut k = 0;
    m.retain(|_| {
        k += 1;
        keep[k - 1]
    });
}

/// Two segments (capsule cores) parallel within [`MANIFOLD_PARALLEL_SIN`] and normal to the
/// contact: the ends of their common stretch, two points (a capsule lying along a capsule).
/// Writes them into `out` (world frame, core separation `s`) and returns `true`; `false`
/// otherwise (the single closest-point pair is the answer).
#[allow(clippy::too_many_arguments)]
pub(super) fn parallel_segments(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    n: DVec3,
    s: f64,
    tol: f64,
    out: &mut ContactManifold,
) -> bool {
    if a.dimension() != 1 || b.dimension() != 1 {
        return false;
    }
    let (a0, a1) = (pa.transform_point(a.vertex(0)), pa.transform_point(a.vertex(1)));
    let (b0, b1) = (pb.transform_point(b.vertex(0)), pb.transform_point(b.vertex(1)));
    let la = (a1 - a0).length();
    let (Some(ua), Some(ub)) = ((a1 - a0).try_normalize(), (b1 - b0).try_normalize()) else {
        return false;
    };
    if ua.cross(ub).length() > MANIFOLD_PARALLEL_SIN || n.dot(ua).abs() > MANIFOLD_PARALLEL_SIN {
        return false;
    }
    let (t0, t1) = ((b0 - a0).dot(ua), (b1 - a0).dot(ua));
    // B's ends in A's parameter, in increasing order, with the B vertex each is.
    let ((lo_b, vlo), (hi_b, vhi)) = if t0 <= t1 {
        ((t0, 0), (t1, 1))
    } else {
        ((t1, 1), (t0, 0))
    };
    let (lo, hi) = (lo_b.max(0.0), hi_b.min(la));
    if !(hi - lo > tol) {
        return false;
    }
    let feature = |t: f64, b_end: f64, vb: u32| {
        let fa = if t <= 0.0 {
            Feature::Vertex(0)
        } else if t >= la {
            Feature::Vertex(1)
        } else {
            Feature::Edge(0)
        };
        let fb = if t == b_end {
            Feature::Vertex(vb)
        } else {
            Feature::Edge(0)
        };
        FeaturePair { a: fa, b: fb }
    };
    for (t, b_end, vb) in [(lo, lo_b, vlo), (hi, hi_b, vhi)] {
        let p = a0 + ua * t;
        out.points.push(ContactPoint {
            a: p,
            b: p + n * s,
            separation: s,
            features: feature(t, b_end, vb),
            id: 0,
            previous: None,
        });
    }
    out.kind = ManifoldKind::Point;
    true
}
