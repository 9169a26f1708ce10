//! The distance question on the cores ([`super::distance`] after validation, rescaling and
//! the rounded-shape switch): each algorithm's answer, completed where the algorithm does not
//! measure a penetration depth (V-Clip, HS-jump, the convex program) by GJK/EPA.

use super::{Algorithm, PairCache};
use crate::contract::{contact_tolerance, contact_tolerance_bound, pair_scale, Distance, Status};
use crate::core::error::PolycdError;
use crate::core::math::Pose;
use crate::core::tolerance::QP_CHECK_REL;
use crate::shape::polyhedron::ConvexPolyhedron;
use crate::{gjk, hs_jump, qp, vclip};

/// [`distance`] for the cores (radii ignored), on validated poses in the safe band.
pub(super) fn core_distance(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Distance, PolycdError> {
    let d = match algorithm {
        // GJK measures the depth itself (EPA) and is the fastest distance answer without
        // coherence; V-Clip is the choice for coherent sequences.
        Algorithm::Auto | Algorithm::Gjk => return gjk::distance(a, pa, b, pb, &mut cache.gjk),
        Algorithm::VClip => return vclip_distance(a, pa, b, pb, cache),
        Algorithm::Qp => qp::distance_faithful(a, pa, b, pb)?,
        Algorithm::QpFast => qp::distance_fast(a, pa, b, pb, &mut cache.qp)?,
        // HS-jump's climb past the first separating plane (`hs_jump::distance`): exact
        // features like V-Clip's, the depth of an overlap measured by EPA.
        Algorithm::HsJump => {
            let d = hs_jump::distance(a, pa, b, pb, cache.hs_jump.get_or_default())?;
            if let Distance::NotConverged { .. } = d {
                // HS-jump gives up only within rounding of contact (its module header), or
                // when its closest pair cannot be certified (`hs_jump::distance`: a descent
                // that stops short of the closest-pair condition): GJK measures the pair.
                return gjk::distance(a, pa, b, pb, &mut cache.gjk);
            }
            return complete_penetration(a, pa, b, pb, d, ContactPoints::Own, cache);
        }
        Algorithm::CdDual => {
            return Err(PolycdError::Unsupported {
                algorithm: algorithm.name(),
                query: "distance",
            })
        }
    };
    if let Distance::NotConverged { .. } = d {
        // The convex program's interior-point iteration stalls on degenerate programs (two
        // nearly coplanar triangles touching: a slab-thin Minkowski difference whose optimal
        // weights are not unique); as for HS-jump above, GJK measures the pair.
        return gjk::distance(a, pa, b, pb, &mut cache.gjk);
    }
    // The convex program's touching answer names no exact features (see ContactPoints).
    complete_penetration(a, pa, b, pb, d, ContactPoints::FromGjk, cache)
}

/// V-Clip's distance answer, completed by [`complete_penetration`] unless V-Clip found the
/// pair beyond the tolerance bound already (its common case). V-Clip's iteration is inlined
/// here, so the answer is built in place rather than copied into the result.
#[inline(never)]
pub(super) fn vclip_distance(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    cache: &mut PairCache,
) -> Result<Distance, PolycdError> {
    vclip::supports(a, b)?;
    match vclip::distance(a, pose_a, b, pose_b, &mut cache.vclip) {
        // Beyond the tolerance bound (V-Clip compared it already): nothing to complete.
        vclip::Checked::Clear(d) => Ok(d),
        vclip::Checked::Unsettled(d) => complete_penetration(a, pose_a, b, pose_b, d, ContactPoints::Own, cache),
    }
}

/// Whose closest points a touching answer keeps ([`complete_penetration`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ContactPoints {
    /// The algorithm's own (V-Clip's exact features).
    Own,
    /// GJK's, and the answer is checked in the wider band [`QP_CHECK_REL`] (the convex
    /// program): within the contact tolerance the program's optimum is degenerate, and
    /// Wolfe's barycentric points may lie anywhere on the set of near-closest pairs — along a
    /// nearly parallel edge and face that is a long strip (differential seed 68, pair 179: 70
    /// units from the contact at scale 1e6, 4.9e-9 apart, where no feature normal proves the
    /// distance). GJK's touching answer is built from the contact's supporting features. The
    /// measurement is the one already made to tell touching from overlapping.
    FromGjk,
}

/// V-Clip reports penetration by witness features and the convex program by a zero distance;
/// neither measures the depth. For overlapping (or zero-distance) answers the depth is
/// measured by EPA (in [`gjk`]), so every distance answer carries a signed distance, and a
/// zero distance that hides an overlap deeper than the contact tolerance is reported as the
/// penetration it is.
pub(super) fn complete_penetration(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    d: Distance,
    points: ContactPoints,
    cache: &mut PairCache,
) -> Result<Distance, PolycdError> {
    // Clearly separated answers (the common case of coherent sequences) skip the exact
    // tolerance: an upper bound of it needs no rotation. The convex program's distance is
    // checked in a wider band ([`QP_CHECK_REL`]).
    let band = |tol: f64| {
        if points == ContactPoints::FromGjk {
            tol.max(QP_CHECK_REL * pair_scale(a, pose_a, b, pose_b))
        } else {
            tol
        }
    };
    if let Distance::Separated { distance, .. } = d {
        if distance > band(contact_tolerance_bound(a, pose_a, b, pose_b)) {
            return Ok(d);
        }
    }
    let tol = contact_tolerance(a, pose_a, b, pose_b);
    match d {
        Distance::Penetrating {
            witness,
            penetration: None,
            iterations,
        } => {
            match gjk::distance(a, pose_a, b, pose_b, &mut cache.gjk)? {
                Distance::Penetrating {
                    witness: gw,
                    penetration: Some(p),
                    ..
                } => Ok(Distance::Penetrating {
                    // V-Clip's witness is exact; the convex program's weights put the origin
                    // in their simplex only to the program's rounding (1e-11 of the scale off
                    // on slab-thin pairs), so GJK's enclosing simplex certifies instead.
                    witness: if points == ContactPoints::FromGjk { gw } else { witness },
                    penetration: Some(p),
                    iterations,
                }),
                // No overlap beyond the contact tolerance (touching shapes whose rounded
                // coordinates overlap by a few ulps, which V-Clip's exact signs see): the
                // pair touches, and GJK's closest points and features say where.
                g @ Distance::Separated { distance, .. } if distance <= tol => Ok(g.with_iterations(iterations)),
                // GJK contradicts the exact witness or does not converge: the witness stands.
                _ => Ok(d),
            }
        }
        Distance::Separated {
            distance, iterations, ..
        } if distance <= band(tol) => match gjk::distance(a, pose_a, b, pose_b, &mut cache.gjk)? {
            Distance::Penetrating {
                witness,
                penetration: Some(p),
                ..
            } if p.relative_depth > tol => Ok(Distance::Penetrating {
                witness,
                penetration: Some(p),
                iterations,
            }),
            g @ (Distance::Separated { .. } | Distance::Penetrating { .. })
                if points == ContactPoints::FromGjk && g.status(tol) == Status::Touching =>
            {
                Ok(g.with_iterations(iterations))
            }
            _ => Ok(d),
        },
        other => Ok(other),
    }
}

/// The algorithms' answers of [`super::distance_or_overlap`] (validated poses in the safe band,
/// cores only).
pub(super) fn core_distance_or_overlap(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Distance, PolycdError> {
    match algorithm {
        Algorithm::Auto | Algorithm::Gjk => gjk::distance_or_overlap(a, pa, b, pb, &mut cache.gjk),
        Algorithm::VClip => match vclip::supports(a, b).map(|()| vclip::distance(a, pa, b, pb, &mut cache.vclip))? {
            vclip::Checked::Clear(d) => Ok(d),
            vclip::Checked::Unsettled(Distance::Penetrating { .. }) => {
                gjk::distance_or_overlap(a, pa, b, pb, &mut cache.gjk)
            }
            vclip::Checked::Unsettled(d) => complete_penetration(a, pa, b, pb, d, ContactPoints::Own, cache),
        },
        _ => super::distance(a, pa, b, pb, algorithm, cache),
    }
}
