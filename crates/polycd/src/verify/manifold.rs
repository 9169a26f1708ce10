//! The check of a contact manifold.

use super::certificate::*;
use super::VerifyError;
use crate::core::math::{Plane, Pose};
use crate::shape::polyhedron::ConvexPolyhedron;

/// Checks a contact manifold ([`crate::query::contact_manifold`]) of A (at `pa`) and B (at
/// `pb`), without running any algorithm: a finite unit normal and at least one point; every
/// point finite, its `b − a` equal to `separation ·` normal, and each core point (the point
/// moved back inside by its shape's radius) on the feature its `features` name; the deepest
/// point's separation equal to the shapes' separation along the normal (their support
/// extents: B's least minus A's greatest, less both radii; within `MANIFOLD_FACE_REL` of the
/// pair scale, the face-contact test's own slack) and no point below it (so the points
/// realise the contact along the normal); more than two points
/// counter-clockwise around the normal. All within [`verify_tolerance`](super::verify_tolerance). That the normal is
/// the best contact direction is not checked (it needs the signed distance: the tests compare
/// it with the oracle).
pub fn verify_manifold(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    m: &crate::contract::ContactManifold,
) -> Result<(), VerifyError> {
    let w = world(a, pa, b, pb);
    let n = m.normal;
    check_plane(&Plane { normal: n, offset: 0.0 })?;
    if m.points.is_empty() {
        return Err(VerifyError::Malformed("a manifold without points".into()));
    }
    let (ra, rb) = (a.radius(), b.radius());
    let top_a = w.a.iter().map(|v| n.dot(*v)).fold(f64::NEG_INFINITY, f64::max);
    let low_b = w.b.iter().map(|v| n.dot(*v)).fold(f64::INFINITY, f64::min);
    let along = low_b - top_a - ra - rb;
    let mut deepest = f64::INFINITY;
    for (k, p) in m.points.iter().enumerate() {
        check_point(p.a, "manifold point a")?;
        check_point(p.b, "manifold point b")?;
        if !p.separation.is_finite() {
            return Err(VerifyError::Malformed(format!(
                "point {k}: separation {}",
                p.separation
            )));
        }
        let gap = (p.b - p.a - n * p.separation).length();
        if !(gap <= w.tol) {
            return Err(VerifyError::DistanceMismatch(format!(
                "point {k}: b − a is {gap:e} off separation × normal (tolerance {:e})",
                w.tol
            )));
        }
        for (shape, pose, feature, q, r, name) in [
            (a, pa, p.features.a, p.a, ra, 'A'),
            (b, pb, p.features.b, p.b, -rb, 'B'),
        ] {
            let d = feature_distance(shape, pose, feature, q - n * r)?;
            if !(d <= w.tol) {
                return Err(VerifyError::PointOutside {
                    shape: name,
                    message: format!(
                        "point {k} lies {d:e} from its feature {feature:?} (tolerance {:e})",
                        w.tol
                    ),
                });
            }
        }
        if p.separation < along - w.tol {
            return Err(VerifyError::DistanceMismatch(format!(
                "point {k}: separation {} below the shapes' separation {along} along the normal (points cannot be deeper)",
                p.separation
            )));
        }
        deepest = deepest.min(p.separation);
    }
    // A face is a contact face when its separation is within MANIFOLD_FACE_REL of the signed
    // distance: the incident face's deepest vertex may then overhang the reference face's
    // border, the deepest clip point sitting up to that much above the shapes' separation.
    let face_slack = crate::core::tolerance::MANIFOLD_FACE_REL * crate::contract::pair_scale(a, pa, b, pb);
    if !(deepest - along <= w.tol + face_slack) {
        return Err(VerifyError::DistanceMismatch(format!(
            "the deepest point's separation {deepest} is not the shapes' separation {along} along the normal (scale {})", crate::contract::pair_scale(a, pa, b, pb)
        )));
    }
    let k = m.points.len();
    if k >= 3 {
        let scale = crate::contract::pair_scale(a, pa, b, pb);
        for i in 0..k {
            let (p, q, r) = (m.points[i].a, m.points[(i + 1) % k].a, m.points[(i + 2) % k].a);
            let turn = (q - p).cross(r - q).dot(n);
            if turn < -w.tol * scale {
                return Err(VerifyError::Malformed(format!(
                    "points not counter-clockwise around the normal at {i}"
                )));
            }
        }
    }
    Ok(())
}
