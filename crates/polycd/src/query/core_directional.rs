//! The directional question on the cores ([`super::directional`] after validation,
//! rescaling and the rounded-shape switch): GJK's ray casts or CD-Dual's dual-space search,
//! then the touching-at-`t = 0` settlement of the contract.

use super::{Algorithm, PairCache};
use crate::contract::{contact_tolerance, Directional, Intersection};
use crate::core::error::PolycdError;
use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::GRAZING_COS;
use crate::shape::polyhedron::ConvexPolyhedron;
use crate::{cd_dual, gjk};

/// The directional answer of `algorithm` (unit direction `s`), before [`settle_touching`].
pub(super) fn directional_by(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Directional, PolycdError> {
    match algorithm {
        Algorithm::CdDual => {
            let r = cd_dual::directional(a, pa, b, pb, s, cache.cd_dual.get_or_default())?;
            // A chord end on a face of M parallel to s is no end: the line grazes that face
            // (B slides along A), where the face pick and t = k / (N·s) are rounding noise.
            // Such answers, and non-convergence, are settled by GJK's ray casts.
            let grazing = |r: &Directional| match r {
                Directional::Contact { plane, .. } => plane.normal.dot(s).abs() <= GRAZING_COS,
                Directional::NotConverged { .. } => true,
                Directional::Never { .. } => false,
            };
            if grazing(&r) {
                let g = gjk::directional(a, pa, b, pb, s, &mut cache.gjk)?;
                return Ok(g.with_iterations(g.iterations().saturating_add(r.iterations())));
            }
            Ok(r)
        }
        // Two GJK ray casts: an order of magnitude faster than CD-Dual's two full searches.
        Algorithm::Auto | Algorithm::Gjk => gjk::directional(a, pa, b, pb, s, &mut cache.gjk),
        _ => Err(PolycdError::Unsupported {
            algorithm: algorithm.name(),
            query: "directional",
        }),
    }
}

/// The contract says `t = 0` when the shapes touch where they are. The line's chord through
/// `M = A − B` does not show that by itself: B sliding along a face of A (the line lies in
/// a face of `M`) has a chord `[lo, hi]` around 0 with both ends far away, and a line that
/// meets `M` only at the touching point (vertex on vertex, the direction pointing out of
/// both) is a miss to rounding. So a pair that is not certainly apart at `t = 0` — no chord,
/// a chord around 0, or a contact plane whose gap at `t = 0` (`−t·n·s`, a separating-plane
/// bound on the distance) is within the contact tolerance — is asked once more, by GJK's
/// boolean test (early exits: cheap when clearly apart or clearly overlapping); if it
/// touches, the answer is `t = 0` with its contact plane.
pub(super) fn settle_touching(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    r: Directional,
    cache: &mut PairCache,
) -> Result<Directional, PolycdError> {
    let tol = contact_tolerance(a, pa, b, pb);
    let check = match &r {
        Directional::Never { .. } => true,
        Directional::Contact { t, plane, .. } => t.abs() > tol && -t * plane.normal.dot(s) <= tol,
        Directional::NotConverged { .. } => false,
    };
    if !check {
        return Ok(r);
    }
    match gjk::intersect(a, pa, b, pb, &mut cache.gjk)? {
        Intersection::Touching { plane, iterations, .. } => Ok(Directional::Contact {
            t: 0.0,
            plane,
            iterations: r.iterations().saturating_add(iterations),
        }),
        _ => Ok(r),
    }
}
