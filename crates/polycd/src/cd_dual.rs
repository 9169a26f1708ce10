//! CD-Dual (Choi, Li, Wang, Cameron) — NOT YET IMPLEMENTED.

use crate::error::PolycdError;
use crate::math::{DVec3, Pose};
use crate::polyhedron::ConvexPolyhedron;
use crate::query::{Directional, Intersection};

/// CD-Dual's per-pair state: the last optimal face.
#[derive(Clone, Debug, Default)]
pub struct CdDualCache {}

/// Boolean CD-Dual.
pub fn intersect(
    _a: &ConvexPolyhedron,
    _pa: &Pose,
    _b: &ConvexPolyhedron,
    _pb: &Pose,
    _cache: &mut CdDualCache,
) -> Result<Intersection, PolycdError> {
    Err(PolycdError::Unsupported {
        algorithm: "cd_dual",
        query: "intersect",
    })
}

/// Directional distance (§6).
pub fn directional(
    _a: &ConvexPolyhedron,
    _pa: &Pose,
    _b: &ConvexPolyhedron,
    _pb: &Pose,
    _s: DVec3,
    _cache: &mut CdDualCache,
) -> Result<Directional, PolycdError> {
    Err(PolycdError::Unsupported {
        algorithm: "cd_dual",
        query: "directional",
    })
}
