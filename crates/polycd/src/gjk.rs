//! GJK (Gilbert, Johnson, Keerthi 1988) with Cameron's enhancements — NOT YET IMPLEMENTED.

use crate::error::PolycdError;
use crate::math::Pose;
use crate::polyhedron::ConvexPolyhedron;
use crate::query::{Distance, Intersection};

/// GJK's per-pair warm-start state.
#[derive(Clone, Debug, Default)]
pub struct GjkCache {}

/// Boolean GJK.
pub fn intersect(
    _a: &ConvexPolyhedron,
    _pa: &Pose,
    _b: &ConvexPolyhedron,
    _pb: &Pose,
    _cache: &mut GjkCache,
) -> Result<Intersection, PolycdError> {
    Err(PolycdError::Unsupported {
        algorithm: "gjk",
        query: "intersect",
    })
}

/// Distance GJK.
pub fn distance(
    _a: &ConvexPolyhedron,
    _pa: &Pose,
    _b: &ConvexPolyhedron,
    _pb: &Pose,
    _cache: &mut GjkCache,
) -> Result<Distance, PolycdError> {
    Err(PolycdError::Unsupported {
        algorithm: "gjk",
        query: "distance",
    })
}
