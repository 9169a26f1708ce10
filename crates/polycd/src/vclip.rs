//! V-Clip (Mirtich 1998) — NOT YET IMPLEMENTED.

use crate::error::PolycdError;
use crate::math::Pose;
use crate::polyhedron::ConvexPolyhedron;
use crate::query::{Distance, Intersection};

/// V-Clip's per-pair state: the last feature pair.
#[derive(Clone, Debug, Default)]
pub struct VClipCache {}

/// Boolean V-Clip.
pub fn intersect(
    _a: &ConvexPolyhedron,
    _pa: &Pose,
    _b: &ConvexPolyhedron,
    _pb: &Pose,
    _cache: &mut VClipCache,
) -> Result<Intersection, PolycdError> {
    Err(PolycdError::Unsupported {
        algorithm: "vclip",
        query: "intersect",
    })
}

/// Distance V-Clip.
pub fn distance(
    _a: &ConvexPolyhedron,
    _pa: &Pose,
    _b: &ConvexPolyhedron,
    _pb: &Pose,
    _cache: &mut VClipCache,
) -> Result<Distance, PolycdError> {
    Err(PolycdError::Unsupported {
        algorithm: "vclip",
        query: "distance",
    })
}
