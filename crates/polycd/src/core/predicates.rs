//! Exact geometric predicates, behind a small kernel that returns an [`Orientation`].
//!
//! The signs come from Shewchuk's adaptive-precision predicates (the `robust` crate): the
//! answer is the sign of the exact determinant of the floating-point inputs, so combinatorial
//! decisions built on them are consistent with each other. Shewchuk's expansions are exact
//! only while no product overflows or underflows; [`orient3d`] therefore first brings inputs
//! whose largest coordinate lies outside the safe band (`SAFE_MAGNITUDE_MIN..=MAX`,
//! tolerance.rs) to unit magnitude by a power of two, which leaves the sign unchanged.

use crate::core::math::{pow2_normaliser, DVec3};

/// Where a point lies relative to an oriented plane through three points.
// Not `#[non_exhaustive]`: the sign of an exact determinant has exactly these three values,
// and callers' exhaustive matches over them are the point of an exact predicate.
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
///
/// Exact for every finite input whose coordinates span at most ~2⁹⁰⁰ in magnitude (all
/// accepted shapes and poses): outside the safe band the four points are scaled by one power
/// of two, exact unless a coordinate more than ~2⁹⁰⁰ below the largest one goes subnormal.
#[inline]
pub fn orient3d(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> Orientation {
    let m = a.abs().max(b.abs()).max(c.abs()).max(d.abs()).max_element();
    let [a, b, c, d] = match pow2_normaliser(m) {
        Some(s) => [a * s, b * s, c * s, d * s],
        None => [a, b, c, d],
    };
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

/// Exact sign of `det[x, y, z] = (x × y) · z` (`orient3d(o, x, y, z)`: 1 above, −1 below,
/// 0 coplanar), behind a float filter that answers only where the sign is certain.
///
/// `z · (x × y)` expanded by minors is the expression orient3d evaluates with `a = o` (its
/// differences are then exact); Shewchuk's error bound for it is `(7 + 56u)·u·permanent`,
/// u = 2⁻⁵³, and `4·EPSILON = 8u` exceeds it. Underflow adds absolute errors: ≤ 2⁻¹⁰⁷⁵ per
/// product `m`, then scaled by `|z|` (covered by the `|z|₁·1e-300` term), and ≤ 2⁻¹⁰⁷⁵ per
/// product with `z` (covered by requiring the permanent far above the underflow range).
/// Otherwise, and for NaN or overflow, the comparisons fail and the exact predicate decides.
#[inline]
pub fn det_sign(x: DVec3, y: DVec3, z: DVec3) -> i8 {
    let (m0, m1) = (x.x * y.y, x.y * y.x);
    let (m2, m3) = (x.y * y.z, x.z * y.y);
    let (m4, m5) = (x.z * y.x, x.x * y.z);
    let det = z.z * (m0 - m1) + z.x * (m2 - m3) + z.y * (m4 - m5);
    let perm =
        z.z.abs() * (m0.abs() + m1.abs()) + z.x.abs() * (m2.abs() + m3.abs()) + z.y.abs() * (m4.abs() + m5.abs());
    let bound = 4.0 * f64::EPSILON * perm + (z.x.abs() + z.y.abs() + z.z.abs()) * 1e-300;
    if perm > 1e-250 && bound.is_finite() {
        if det > bound {
            return 1;
        }
        if -det > bound {
            return -1;
        }
    }
    det_sign_exact(x, y, z)
}

/// The exact predicate behind [`det_sign`]'s filter, kept out of line so the filter itself
/// inlines into its callers' loops.
#[cold]
#[inline(never)]
fn det_sign_exact(x: DVec3, y: DVec3, z: DVec3) -> i8 {
    match orient3d(DVec3::ZERO, x, y, z) {
        Orientation::Above => 1,
        Orientation::Below => -1,
        Orientation::On => 0,
    }
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

    /// The sign does not depend on the scale: at 2^±500 and among subnormals it is the sign
    /// at unit scale, where unscaled products would overflow or underflow.
    #[test]
    fn orient3d_is_scale_free() {
        let unit = [
            (DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z),
            (DVec3::ZERO, DVec3::X, DVec3::Y, -DVec3::Z),
            (
                DVec3::ONE,
                DVec3::new(-1.0, 1.0, 1.0),
                DVec3::new(-1.0, -1.0, 1.0),
                DVec3::new(1.0, 1.0, -1.0),
            ),
            (DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::new(0.5, 0.5, 0.0)),
            (DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::new(0.5, 0.5, f64::EPSILON)),
        ];
        for (a, b, c, d) in unit {
            let want = orient3d(a, b, c, d);
            for k in [-1000, -700, -500, -130, 130, 500, 1020] {
                let s = 2f64.powi(k);
                assert_eq!(orient3d(a * s, b * s, c * s, d * s), want, "scale 2^{k}");
            }
        }
        // Subnormal inputs (unit coordinates times 2^-1070 are exact subnormals).
        let s = 2f64.powi(-1070);
        assert_eq!(
            orient3d(DVec3::ZERO, DVec3::X * s, DVec3::Y * s, DVec3::Z * s),
            Orientation::Above
        );
        assert_eq!(
            orient3d(DVec3::ZERO, DVec3::X * s, DVec3::Y * s, -DVec3::Z * s),
            Orientation::Below
        );
        // A box corner at 1e150: the edge test of validate() (every product ~1e450).
        let h = 1e150;
        let p = |x: f64, y: f64, z: f64| DVec3::new(x, y, z) * h;
        assert_eq!(
            orient3d(p(1., -1., 1.), p(1., 1., 1.), p(-1., 1., 1.), p(1., 1., -1.)),
            Orientation::Below
        );
    }

    /// The filtered sign agrees with the exact predicate, including near-degenerate triples
    /// and magnitudes where products underflow.
    #[test]
    fn filtered_det_sign_is_exact() {
        let cases = [
            (DVec3::X, DVec3::Y, DVec3::Z),
            (DVec3::X, DVec3::Y, DVec3::new(1.0, 1.0, 1e-300)),
            (
                DVec3::new(1e150, 1e-160, 0.0),
                DVec3::new(1e-160, 1e150, 0.0),
                DVec3::new(1e-170, 1e-170, 1e150),
            ),
            (
                DVec3::new(1e-160, 0.0, 0.0),
                DVec3::new(0.0, 1e-160, 0.0),
                DVec3::new(0.0, 0.0, 1e150),
            ),
            (
                DVec3::new(1.0, 2.0, 3.0),
                DVec3::new(2.0, 4.0, 6.0),
                DVec3::new(0.1, 0.7, 0.3),
            ),
            (
                DVec3::new(0.1, 0.2, 0.3),
                DVec3::new(0.3, 0.1, 0.2),
                DVec3::new(0.4, 0.3, 0.5),
            ),
        ];
        for (x, y, z) in cases {
            let exact = match orient3d(DVec3::ZERO, x, y, z) {
                Orientation::Above => 1,
                Orientation::Below => -1,
                Orientation::On => 0,
            };
            assert_eq!(det_sign(x, y, z), exact, "{x} {y} {z}");
        }
    }

    /// The filter defers to the exact predicate on coplanar and nearly coplanar triples:
    /// combinations of two vectors, parallel pairs, vectors in a coordinate plane, and
    /// huge/tiny magnitudes.
    #[test]
    fn filtered_det_sign_is_exact_on_degenerate_triples() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let mut zeros = 0;
        for i in 0..20_000 {
            let scale = [1.0, 1e-120, 1e120, 3.0][i % 4];
            let x = DVec3::new(next(), next(), next()) * scale;
            let y = DVec3::new(next(), next(), next()) * scale;
            let (a, b) = (next(), next());
            let z = match i % 5 {
                0 => x * a + y * b,
                1 => x * a,
                2 => DVec3::new(x.x.round(), 0.0, x.z.round()),
                3 => x * a + y * b + DVec3::new(next(), next(), next()) * (scale * 1e-17),
                _ => DVec3::new(next(), next(), next()) * scale,
            };
            let y = if i % 5 == 2 {
                DVec3::new(y.x.round(), 0.0, y.z.round())
            } else {
                y
            };
            let x = if i % 5 == 2 {
                DVec3::new(1.0, 0.0, -1.0) * scale
            } else {
                x
            };
            let exact = match orient3d(DVec3::ZERO, x, y, z) {
                Orientation::Above => 1,
                Orientation::Below => -1,
                Orientation::On => 0,
            };
            zeros += usize::from(exact == 0);
            assert_eq!(det_sign(x, y, z), exact, "{x} {y} {z}");
        }
        // The coordinate-plane family (one triple in five) is exactly coplanar at every scale;
        // the rounded combinations are nearly so, and exactly so only by chance.
        assert!(zeros >= 4_000, "zeros {zeros}");
    }
}
