//! Axis-aligned boxes, the currency of the broad phase: the sweep ([`super::sap`]) and the
//! grid ([`super::grid`]) both test them, so they live below both.

use crate::core::error::PolycdError;
use crate::core::math::DVec3;
use crate::core::tolerance::MAX_COORDINATE;

/// An axis-aligned box `[min, max]` (closed: touching boxes overlap).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Lower corner.
    pub min: DVec3,
    /// Upper corner.
    pub max: DVec3,
}

impl Aabb {
    /// Do the closed boxes overlap (touching counts)?
    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        // The six comparisons joined by non-short-circuit `&`: no branch per axis (the sweep's
        // exchanges make these outcomes unpredictable), and no mask assembled from vector
        // lanes (measured: the `cmple(..).bitmask()` form cost about twice the instructions).
        let (a, b) = (self, other);
        (a.min.x <= b.max.x)
            & (b.min.x <= a.max.x)
            & (a.min.y <= b.max.y)
            & (b.min.y <= a.max.y)
            & (a.min.z <= b.max.z)
            & (b.min.z <= a.max.z)
    }

    /// Finite, `min ≤ max` on every axis, within [`MAX_COORDINATE`].
    pub(super) fn check(&self) -> Result<(), PolycdError> {
        if !self.min.is_finite() || !self.max.is_finite() {
            return Err(PolycdError::NonFinitePose);
        }
        let m = self.min.abs().max(self.max.abs()).max_element();
        if m > MAX_COORDINATE {
            return Err(PolycdError::AbsurdMagnitude { value: m });
        }
        if !self.min.cmple(self.max).all() {
            return Err(PolycdError::InvalidOption {
                name: "aabb",
                message: "min exceeds max on some axis",
            });
        }
        Ok(())
    }
}
