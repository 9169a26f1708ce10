//! The checks of the three convex answers (intersection, distance, directional) for shapes
//! without a radius; rounded pairs are handed to [`super::rounded`].

use super::certificate::*;
use super::{rounded, VerifyError};
use crate::contract::{Directional, Distance, Intersection, Penetration};
use crate::core::math::{DVec3, Plane, Pose};
use crate::shape::polyhedron::ConvexPolyhedron;

/// Checks an [`Intersection`] answer:
/// - `Disjoint` — the plane separates the world vertex sets (exact sign test; violations up to
///   the tolerance are admitted as rounding);
/// - `Touching` — the plane weakly separates, and the point is on both shapes and on the plane;
/// - `Overlapping` — the witness: a common point inside both, intersecting features sharing
///   the point (on at least one of them), or a Minkowski simplex whose hull contains the
///   origin;
/// - `NotConverged` — always an error.
pub fn verify_intersection(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    result: &Intersection,
) -> Result<(), VerifyError> {
    if rounded::is_rounded(a, b) {
        return rounded::intersection(a, pa, b, pb, result);
    }
    let w = world(a, pa, b, pb);
    match result {
        Intersection::Disjoint { plane, .. } => {
            check_plane(plane)?;
            weakly_separates(plane, &w)
        }
        Intersection::Touching { point, plane, .. } => {
            check_plane(plane)?;
            check_point(*point, "contact point")?;
            weakly_separates(plane, &w)?;
            inside(a, pa, *point, w.tol, 'A')?;
            inside(b, pb, *point, w.tol, 'B')?;
            let d = plane.signed_distance(*point).abs();
            if d > w.tol {
                return Err(VerifyError::NotTouching(format!(
                    "the contact point lies {d:e} off the supporting plane (tolerance {:e})",
                    w.tol
                )));
            }
            Ok(())
        }
        Intersection::Overlapping { witness, .. } => check_witness(a, pa, b, pb, &w, witness),
        Intersection::NotConverged { iterations } => Err(VerifyError::NotConverged {
            iterations: *iterations,
        }),
    }
}

/// Checks a [`Distance`] answer:
/// - `Separated` — `point_a` is on A and `point_b` on B (inside every world face plane and on
///   the reported features), `|point_b − point_a| = distance`, and the plane through `point_a`
///   with normal `point_b − point_a` weakly separates A from B (this proves no pair of points
///   is closer); for a (near-)zero distance a supporting plane from the features is used;
/// - `Penetrating` — the overlap witness as in [`verify_intersection`], and, when a
///   penetration is given, that translating B by `depth · normal` makes the shapes touch
///   (`min_B n·b + depth = max_A n·a`, support functions evaluated over all vertices) and that
///   its points lie on their shapes;
/// - `NotConverged` — always an error.
pub fn verify_distance(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    result: &Distance,
) -> Result<(), VerifyError> {
    if rounded::is_rounded(a, b) {
        return rounded::distance(a, pa, b, pb, result);
    }
    let w = world(a, pa, b, pb);
    match result {
        Distance::Separated {
            distance,
            point_a,
            point_b,
            features,
            ..
        } => {
            if !distance.is_finite() || *distance < 0.0 {
                return Err(VerifyError::Malformed(format!(
                    "distance {distance} is not a finite non-negative number"
                )));
            }
            check_point(*point_a, "closest point on A")?;
            check_point(*point_b, "closest point on B")?;
            inside(a, pa, *point_a, w.tol, 'A')?;
            inside(b, pb, *point_b, w.tol, 'B')?;
            on_feature(a, pa, features.a, *point_a, w.tol, 'A')?;
            on_feature(b, pb, features.b, *point_b, w.tol, 'B')?;
            let gap = *point_b - *point_a;
            let len = gap.length();
            if (len - distance).abs() > w.tol {
                return Err(VerifyError::DistanceMismatch(format!(
                    "reported {distance:e}, but the witness points are {len:e} apart (tolerance {:e})",
                    w.tol
                )));
            }
            // Minimality. First the plane through point_a normal to the closest-point vector
            // (exact sign tests): it weakly separates A from B moved back by the gap.
            let mut last = VerifyError::DistanceMismatch(
                "the distance is zero and no supporting plane proves the shapes do not overlap".into(),
            );
            if len > 0.0 {
                let n = gap / len;
                let plane = Plane {
                    normal: n,
                    offset: n.dot(*point_a),
                };
                let plane_b = Plane {
                    normal: n,
                    offset: n.dot(*point_b),
                };
                match plane_bounds(&plane, &w.a, 1.0, w.tol, 'A')
                    .and_then(|_| plane_bounds(&plane_b, &w.b, -1.0, w.tol, 'B'))
                {
                    Ok(()) => return Ok(()),
                    Err(e) => last = e,
                }
            }
            // The direction of a short closest-point vector is ill-conditioned (its error is
            // about tol / distance, times the shapes' extent on the plane). The normals of
            // the features at the closest points are exact; each unit normal n gives the lower
            // bound min_B n·b − max_A n·a on the distance.
            let mut best = f64::NEG_INFINITY;
            for n in local_normals(a, pa, b, pb, *point_a, *point_b, features, w.tol) {
                let max_a = w.a.iter().map(|v| n.dot(*v)).fold(f64::NEG_INFINITY, f64::max);
                let min_b = w.b.iter().map(|v| n.dot(*v)).fold(f64::INFINITY, f64::min);
                best = best.max(min_b - max_a);
                if min_b - max_a >= distance - w.tol {
                    return Ok(());
                }
            }
            if best > f64::NEG_INFINITY {
                last = VerifyError::NotSeparating(format!(
                    "the best lower bound from the features' normals is {best:e}, below the reported {distance:e} (tolerance {:e})",
                    w.tol
                ));
            }
            Err(match last {
                VerifyError::NotSeparating(m) => {
                    VerifyError::DistanceMismatch(format!("not the minimum distance: {m}"))
                }
                e => e,
            })
        }
        Distance::Penetrating {
            witness, penetration, ..
        } => {
            check_witness(a, pa, b, pb, &w, witness)?;
            if let Some(p) = penetration {
                check_penetration(a, pa, b, pb, &w, p)?;
            }
            Ok(())
        }
        Distance::NotConverged { iterations } => Err(VerifyError::NotConverged {
            iterations: *iterations,
        }),
    }
}

fn check_penetration(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    w: &World,
    p: &Penetration,
) -> Result<(), VerifyError> {
    if !p.depth.is_finite() || p.depth < 0.0 {
        return Err(VerifyError::Malformed(format!(
            "penetration depth {} is not finite and ≥ 0",
            p.depth
        )));
    }
    check_plane(&Plane {
        normal: p.normal,
        offset: 0.0,
    })?;
    check_point(p.point_a, "penetration point on A")?;
    check_point(p.point_b, "penetration point on B")?;
    let n = p.normal;
    let max_a = w.a.iter().map(|v| n.dot(*v)).fold(f64::NEG_INFINITY, f64::max);
    let min_b = w.b.iter().map(|v| n.dot(*v)).fold(f64::INFINITY, f64::min);
    let gap = min_b + p.depth - max_a;
    if gap.abs() > w.tol {
        return Err(VerifyError::Penetration(format!(
            "translating B by depth·normal leaves a signed gap of {gap:e} along the normal, not 0 (tolerance {:e})",
            w.tol
        )));
    }
    inside(a, pa, p.point_a, w.tol, 'A')?;
    inside(b, pb, p.point_b, w.tol, 'B')
}

/// Checks a [`Directional`] answer for the unit direction `s` (world frame):
/// - `Contact { t, plane }` — with B translated by `t·s`, `plane` weakly separates the shapes
///   and they touch on it (their contact regions in the plane meet);
/// - `Never` — the projections of A and B along `s` are disjoint (up to the tolerance), so no
///   translation along the line brings them into contact;
/// - `NotConverged` — always an error.
pub fn verify_directional(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    result: &Directional,
) -> Result<(), VerifyError> {
    if !s.is_finite() || !(s.length() > 0.0) {
        return Err(VerifyError::Malformed(format!(
            "direction {s:?} is not a finite non-zero vector"
        )));
    }
    let s = s.normalize();
    if rounded::is_rounded(a, b) {
        return rounded::directional(a, pa, b, pb, s, result);
    }
    let w = world(a, pa, b, pb);
    match result {
        Directional::Contact { t, plane, .. } => {
            if !t.is_finite() {
                return Err(VerifyError::Malformed(format!("translation {t} is not finite")));
            }
            check_plane(plane)?;
            let shift = s * *t;
            let moved: Vec<DVec3> = w.b.iter().map(|&p| p + shift).collect();
            plane_bounds(plane, &w.a, 1.0, w.tol, 'A')?;
            plane_bounds(plane, &moved, -1.0, w.tol, 'B')?;
            touch_in_plane(plane, &w.a, &w.b, shift, w.tol)
        }
        Directional::Never { .. } => {
            let sep = planar_separation(s, &w.a, &w.b);
            if sep >= -w.tol {
                Ok(())
            } else {
                Err(VerifyError::NotTouching(format!(
                    "'never' is wrong: the projections along the direction overlap by {:e}, so some translation makes the shapes touch",
                    -sep
                )))
            }
        }
        Directional::NotConverged { iterations } => Err(VerifyError::NotConverged {
            iterations: *iterations,
        }),
    }
}
