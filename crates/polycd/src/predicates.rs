//! Exact geometric predicates, behind a small kernel that returns an [`Orientation`].
//!
//! The signs come from Shewchuk's adaptive-precision predicates (the `robust` crate): the
//! answer is the sign of the exact determinant of the floating-point inputs, whatever their
//! magnitude, so combinatorial decisions built on them are consistent with each other.

use crate::math::DVec3;

/// Where a point lies relative to an oriented plane through three points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Orientation {
    /// Strictly on the side the plane's normal `(b−a)×(c−a)` points to.
    Above,
    /// Exactly in the plane.
    On,
    /// Strictly on the other side.
    Below,
}

#[inline]
fn c3(p: DVec3) -> robust::Coord3D<f64> {
    robust::Coord3D { x: p.x, y: p.y, z: p.z }
}

/// Exact side of `d` relative to the plane through `a, b, c`, oriented by the normal
/// `(b − a) × (c − a)` (counter-clockwise `a, b, c` seen from above).
#[inline]
pub fn orient3d(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> Orientation {
    // robust::orient3d is positive when d lies *below* the plane in this convention.
    let s = robust::orient3d(c3(a), c3(b), c3(c), c3(d));
    if s < 0.0 {
        Orientation::Above
    } else if s > 0.0 {
        Orientation::Below
    } else {
        Orientation::On
    }
}

/// `true` when `d` is strictly above the plane through `a, b, c` (see [`orient3d`]).
#[inline]
pub fn strictly_above(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> bool {
    orient3d(a, b, c, d) == Orientation::Above
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_follow_the_right_hand_rule() {
        let a = DVec3::ZERO;
        let b = DVec3::X;
        let c = DVec3::Y;
        assert_eq!(orient3d(a, b, c, DVec3::Z), Orientation::Above);
        assert_eq!(orient3d(a, b, c, -DVec3::Z), Orientation::Below);
        assert_eq!(orient3d(a, b, c, DVec3::new(3.0, 7.0, 0.0)), Orientation::On);
        // A perturbation far below the rounding of a naive determinant is still seen.
        let big = 1e10;
        let p = DVec3::new(big, big, 1e-300);
        assert_eq!(orient3d(a, b, c, p), Orientation::Above);
    }
}
