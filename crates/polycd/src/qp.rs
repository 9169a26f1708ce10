//! Minimum distance as a convex program (Jin, Wang, Wang, Fu) — NOT YET IMPLEMENTED.

use crate::error::PolycdError;
use crate::math::Pose;
use crate::polyhedron::ConvexPolyhedron;
use crate::query::{Distance, Intersection};

/// The fast solver's warm start.
#[derive(Clone, Debug, Default)]
pub struct QpCache {}

/// Faithful solver, boolean.
pub fn intersect_faithful(
    _a: &ConvexPolyhedron,
    _pa: &Pose,
    _b: &ConvexPolyhedron,
    _pb: &Pose,
) -> Result<Intersection, PolycdError> {
    Err(PolycdError::Unsupported {
        algorithm: "qp",
        query: "intersect",
    })
}
/// Faithful solver, distance.
pub fn distance_faithful(
    _a: &ConvexPolyhedron,
    _pa: &Pose,
    _b: &ConvexPolyhedron,
    _pb: &Pose,
) -> Result<Distance, PolycdError> {
    Err(PolycdError::Unsupported {
        algorithm: "qp",
        query: "distance",
    })
}
/// Fast solver, boolean.
pub fn intersect_fast(
    _a: &ConvexPolyhedron,
    _pa: &Pose,
    _b: &ConvexPolyhedron,
    _pb: &Pose,
    _cache: &mut QpCache,
) -> Result<Intersection, PolycdError> {
    Err(PolycdError::Unsupported {
        algorithm: "qp_fast",
        query: "intersect",
    })
}
/// Fast solver, distance.
pub fn distance_fast(
    _a: &ConvexPolyhedron,
    _pa: &Pose,
    _b: &ConvexPolyhedron,
    _pb: &Pose,
    _cache: &mut QpCache,
) -> Result<Distance, PolycdError> {
    Err(PolycdError::Unsupported {
        algorithm: "qp_fast",
        query: "distance",
    })
}
