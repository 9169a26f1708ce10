//! HS-jump (Li, Meng, Wang, Wang, Chung, Yiu) — NOT YET IMPLEMENTED.

use crate::error::PolycdError;
use crate::math::Pose;
use crate::polyhedron::ConvexPolyhedron;
use crate::query::Intersection;

/// HS-jump's per-pair state.
#[derive(Clone, Debug, Default)]
pub struct HsJumpCache {}

/// Boolean HS-jump.
pub fn intersect(
    _a: &ConvexPolyhedron,
    _pa: &Pose,
    _b: &ConvexPolyhedron,
    _pb: &Pose,
    _cache: &mut HsJumpCache,
) -> Result<Intersection, PolycdError> {
    Err(PolycdError::Unsupported {
        algorithm: "hs_jump",
        query: "intersect",
    })
}
