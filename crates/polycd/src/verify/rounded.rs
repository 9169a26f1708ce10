//! The checks for rounded pairs (a core dilated by a ball; see the module header of
//! [`crate::verify`]).

use super::certificate::*;
use super::VerifyError;
use crate::contract::{Directional, Distance, Feature, Intersection, OverlapWitness};
use crate::core::math::{DVec3, Plane, Pose};
use crate::shape::polyhedron::ConvexPolyhedron;

pub(super) fn is_rounded(a: &ConvexPolyhedron, b: &ConvexPolyhedron) -> bool {
    a.radius() > 0.0 || b.radius() > 0.0
}

fn shifted(p: &Plane, d: f64) -> Plane {
    Plane {
        normal: p.normal,
        offset: p.offset + d,
    }
}

/// Rounded A lies below `plane`, rounded B (its world vertices `wb`) above.
fn separates(plane: &Plane, ra: f64, rb: f64, wa: &[DVec3], wb: &[DVec3], tol: f64) -> Result<(), VerifyError> {
    plane_bounds(&shifted(plane, -ra), wa, 1.0, tol, 'A')?;
    plane_bounds(&shifted(plane, rb), wb, -1.0, tol, 'B')
}

/// Distance from a world point to the core polytope (0 inside): the least distance to a
/// feature (a solid's boundary is its faces; a core without volume — a point, a segment,
/// a polygon — is its features, so vertices and edges are measured too).
fn core_distance(shape: &ConvexPolyhedron, pose: &Pose, p: DVec3) -> Result<f64, VerifyError> {
    if shape.volume() > 0.0 && excess(shape, pose, p).0 <= 0.0 {
        return Ok(0.0);
    }
    let (nv, ne, nf) = shape.counts();
    let mut best = f64::INFINITY;
    for f in 0..nf as u32 {
        best = best.min(feature_distance(shape, pose, Feature::Face(f), p)?);
    }
    for e in 0..ne as u32 {
        best = best.min(feature_distance(shape, pose, Feature::Edge(e), p)?);
    }
    for v in 0..nv as u32 {
        best = best.min(feature_distance(shape, pose, Feature::Vertex(v), p)?);
    }
    Ok(best)
}

/// `p` lies in the rounded shape (within `tol`).
fn in_rounded(shape: &ConvexPolyhedron, pose: &Pose, p: DVec3, tol: f64, name: char) -> Result<(), VerifyError> {
    check_point(p, "witness point")?;
    let d = core_distance(shape, pose, p)?;
    if d <= shape.radius() + tol {
        Ok(())
    } else {
        Err(VerifyError::PointOutside {
            shape: name,
            message: format!(
                "point {p:?} lies {d:e} from the core, beyond the radius {} (tolerance {tol:e})",
                shape.radius()
            ),
        })
    }
}

/// `p` lies on the rounded surface over `feature`: `r` from it (within `tol`).
fn on_rounded_feature(
    shape: &ConvexPolyhedron,
    pose: &Pose,
    feature: Feature,
    p: DVec3,
    tol: f64,
    name: char,
) -> Result<(), VerifyError> {
    check_point(p, "closest point")?;
    let d = feature_distance(shape, pose, feature, p)?;
    if (d - shape.radius()).abs() <= tol {
        Ok(())
    } else {
        Err(VerifyError::PointOutside {
            shape: name,
            message: format!(
                "point {p:?} lies {d:e} from its reported feature {feature:?}, not the radius {} (tolerance {tol:e})",
                shape.radius()
            ),
        })
    }
}

fn witness(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    w: &World,
    witness: &OverlapWitness,
) -> Result<(), VerifyError> {
    match *witness {
        OverlapWitness::CommonPoint(p) => {
            in_rounded(a, pa, p, w.tol, 'A')?;
            in_rounded(b, pb, p, w.tol, 'B')
        }
        // The cores' certificate: cores that overlap make rounded shapes that overlap.
        ref other => check_witness(a, pa, b, pb, w, other),
    }
}

pub(super) fn intersection(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    result: &Intersection,
) -> Result<(), VerifyError> {
    let w = world(a, pa, b, pb);
    let (ra, rb) = (a.radius(), b.radius());
    match result {
        Intersection::Disjoint { plane, .. } => {
            check_plane(plane)?;
            separates(plane, ra, rb, &w.a, &w.b, w.tol)
        }
        Intersection::Touching { point, plane, .. } => {
            check_plane(plane)?;
            separates(plane, ra, rb, &w.a, &w.b, w.tol)?;
            in_rounded(a, pa, *point, w.tol, 'A')?;
            in_rounded(b, pb, *point, w.tol, 'B')
        }
        Intersection::Overlapping { witness: wt, .. } => witness(a, pa, b, pb, &w, wt),
        Intersection::NotConverged { iterations } => Err(VerifyError::NotConverged {
            iterations: *iterations,
        }),
    }
}

pub(super) fn distance(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    result: &Distance,
) -> Result<(), VerifyError> {
    let w = world(a, pa, b, pb);
    let (ra, rb) = (a.radius(), b.radius());
    match result {
        Distance::Separated {
            distance,
            point_a,
            point_b,
            features,
            ..
        } => {
            check_separated_numbers(*distance, *point_a, *point_b)?;
            on_rounded_feature(a, pa, features.a, *point_a, w.tol, 'A')?;
            on_rounded_feature(b, pb, features.b, *point_b, w.tol, 'B')?;
            check_minimal(a, pa, b, pb, &w, (*point_a, *point_b), features, *distance)
        }
        Distance::Penetrating {
            witness: wt,
            penetration,
            ..
        } => {
            witness(a, pa, b, pb, &w, wt)?;
            let Some(p) = penetration else { return Ok(()) };
            check_penetration_depth(p, &w, ra, rb)?;
            in_rounded(a, pa, p.point_a, w.tol, 'A')?;
            in_rounded(b, pb, p.point_b, w.tol, 'B')
        }
        Distance::NotConverged { iterations } => Err(VerifyError::NotConverged {
            iterations: *iterations,
        }),
    }
}

/// The directional check for any pair: polytopes are the case of radii 0.
pub(super) fn directional(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    result: &Directional,
) -> Result<(), VerifyError> {
    let w = world(a, pa, b, pb);
    let (ra, rb) = (a.radius(), b.radius());
    match result {
        Directional::Contact { t, plane, .. } => {
            if !t.is_finite() {
                return Err(VerifyError::Malformed(format!("translation {t} is not finite")));
            }
            check_plane(plane)?;
            let shift = s * *t;
            let moved: Vec<DVec3> = w.b.iter().map(|&p| p + shift).collect();
            separates(plane, ra, rb, &w.a, &moved, w.tol)?;
            // The rounded shapes touch on the plane where the cores, B moved back by
            // R along the normal, touch on the plane shifted by −r_A.
            let back = shift - plane.normal * (ra + rb);
            touch_in_plane(&shifted(plane, -ra), &w.a, &w.b, back, w.tol)
        }
        Directional::Never { .. } => {
            // The projections' distance, not the separating-axis bound: with radii the
            // shapes meet along `s` exactly when the projected cores are within r_A + r_B.
            let sep = planar_distance(s, &w.a, &w.b) - ra - rb;
            if sep >= -w.tol {
                Ok(())
            } else {
                Err(VerifyError::NotTouching(format!(
                    "'never' is wrong: the projections along the direction (radii included) overlap by {:e}, so some translation makes the shapes touch",
                    -sep
                )))
            }
        }
        Directional::NotConverged { iterations } => Err(VerifyError::NotConverged {
            iterations: *iterations,
        }),
    }
}
