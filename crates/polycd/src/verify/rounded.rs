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
            if !distance.is_finite() || *distance < 0.0 {
                return Err(VerifyError::Malformed(format!(
                    "distance {distance} is not a finite non-negative number"
                )));
            }
            on_rounded_feature(a, pa, features.a, *point_a, w.tol, 'A')?;
            on_rounded_feature(b, pb, features.b, *point_b, w.tol, 'B')?;
            let gap = *point_b - *point_a;
            let len = gap.length();
            if (len - distance).abs() > w.tol {
                return Err(VerifyError::DistanceMismatch(format!(
                    "reported {distance:e}, but the witness points are {len:e} apart (tolerance {:e})",
                    w.tol
                )));
            }
            // Minimality: the planes through the points normal to their difference bound
            // the rounded shapes; else the features' normals give lower bounds.
            if len > 0.0 {
                let n = gap / len;
                let plane_a = Plane {
                    normal: n,
                    offset: n.dot(*point_a) - ra,
                };
                let plane_b = Plane {
                    normal: n,
                    offset: n.dot(*point_b) + rb,
                };
                if plane_bounds(&plane_a, &w.a, 1.0, w.tol, 'A')
                    .and_then(|_| plane_bounds(&plane_b, &w.b, -1.0, w.tol, 'B'))
                    .is_ok()
                {
                    return Ok(());
                }
            }
            let mut best = f64::NEG_INFINITY;
            for n in local_normals(a, pa, b, pb, *point_a, *point_b, features, w.tol) {
                let max_a = w.a.iter().map(|v| n.dot(*v)).fold(f64::NEG_INFINITY, f64::max);
                let min_b = w.b.iter().map(|v| n.dot(*v)).fold(f64::INFINITY, f64::min);
                best = best.max(min_b - max_a - ra - rb);
            }
            if best >= distance - w.tol {
                Ok(())
            } else {
                Err(VerifyError::DistanceMismatch(format!(
                    "not the minimum distance: the best lower bound is {best:e}, below the reported {distance:e} (tolerance {:e})",
                    w.tol
                )))
            }
        }
        Distance::Penetrating {
            witness: wt,
            penetration,
            ..
        } => {
            witness(a, pa, b, pb, &w, wt)?;
            let Some(p) = penetration else { return Ok(()) };
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
            let n = p.normal;
            let max_a = w.a.iter().map(|v| n.dot(*v)).fold(f64::NEG_INFINITY, f64::max) + ra;
            let min_b = w.b.iter().map(|v| n.dot(*v)).fold(f64::INFINITY, f64::min) - rb;
            let gap = min_b + p.depth - max_a;
            if gap.abs() > w.tol {
                return Err(VerifyError::Penetration(format!(
                    "translating B by depth·normal leaves a signed gap of {gap:e} along the normal, not 0 (tolerance {:e})",
                    w.tol
                )));
            }
            in_rounded(a, pa, p.point_a, w.tol, 'A')?;
            in_rounded(b, pb, p.point_b, w.tol, 'B')
        }
        Distance::NotConverged { iterations } => Err(VerifyError::NotConverged {
            iterations: *iterations,
        }),
    }
}

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
            let sep = planar_separation(s, &w.a, &w.b) - ra - rb;
            if sep >= -w.tol {
                Ok(())
            } else {
                Err(VerifyError::NotTouching(format!(
                    "'never' is wrong: the rounded projections along the direction overlap by {:e}",
                    -sep
                )))
            }
        }
        Directional::NotConverged { iterations } => Err(VerifyError::NotConverged {
            iterations: *iterations,
        }),
    }
}
