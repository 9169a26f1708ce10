//! The checks of the three convex answers (intersection, distance, directional) for shapes
//! without a radius; rounded pairs are handed to [`super::rounded`].

use super::certificate::*;
use super::{rounded, VerifyError};
use crate::contract::{Directional, Distance, Intersection, Penetration};
use crate::core::math::{DVec3, Pose};
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
            check_separated_numbers(*distance, *point_a, *point_b)?;
            inside(a, pa, *point_a, w.tol, 'A')?;
            inside(b, pb, *point_b, w.tol, 'B')?;
            on_feature(a, pa, features.a, *point_a, w.tol, 'A')?;
            on_feature(b, pb, features.b, *point_b, w.tol, 'B')?;
            check_minimal(a, pa, b, pb, &w, (*point_a, *point_b), features, *distance)
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
    check_penetration_depth(p, w, 0.0, 0.0)?;
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
    // A polytope pair is the rounded check with both radii 0 (the shifts below are then
    // exact no-ops).
    rounded::directional(a, pa, b, pb, s.normalize(), result)
}
