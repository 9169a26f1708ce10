//! Exact geometric predicates, behind a small kernel that returns an [`Orientation`].
//!
//! The signs come from Shewchuk's adaptive-precision predicates (the `robust` crate): the
//! answer is the sign of the exact determinant of the floating-point inputs, so combinatorial
//! decisions built on them are consistent with each other. Shewchuk's expansions are exact
//! only while no product overflows or underflows; [`orient3d`] therefore first brings inputs
//! whose largest coordinate lies outside the safe band (`SAFE_MAGNITUDE_MIN..=MAX`,
//! tolerance.rs) to unit magnitude by a power of two, which leaves the sign unchanged.
//!
//! Both [`orient3d`] and [`det_sign`] first evaluate the determinant in floating point on the
//! raw inputs and answer inline when a proven error bound (Shewchuk's, widened for underflow)
//! makes the sign certain; only the uncertain cases, and inputs whose products overflow or
//! underflow too far, go to the exact out-of-line predicate. The filters return the exact
//! sign wherever they answer, so every caller sees the same signs as without them.

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
///
/// A float filter answers first where the sign is certain. It evaluates the determinant of
/// `a − d, b − d, c − d` in the order Shewchuk's `orient3dfast` does (the same expression the
/// `robust` crate evaluates before its adaptive stages), whose error is at most
/// `(7 + 56u)·u·permanent` (u = 2⁻⁵³; the permanent is the same expression with every product
/// and difference of products replaced by absolute values, itself computed in floating
/// point) as long as nothing overflows or underflows; `4·EPSILON = 8u` exceeds that. The
/// differences `a − d` are rounded like any other operation (Shewchuk's bound includes them)
/// and are exact when their result is subnormal. Gradual underflow adds an absolute error of
/// at most 2⁻¹⁰⁷⁵ per product: the six 2×2 products' errors, scaled by the third difference,
/// are covered by the term `(|adz| + |bdz| + |cdz|)·1e-300`, and the three outer products'
/// errors (≤ 3·2⁻¹⁰⁷⁵) by requiring the permanent above 1e-250 (then `8u·permanent` ≥ 1e-265).
/// Overflow gives an infinite or NaN bound or determinant, and every comparison below fails.
/// Wherever the filter does not answer, [`orient3d_exact`] decides.
#[inline]
pub fn orient3d(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> Orientation {
    let (adx, bdx, cdx) = (a.x - d.x, b.x - d.x, c.x - d.x);
    let (ady, bdy, cdy) = (a.y - d.y, b.y - d.y, c.y - d.y);
    let (adz, bdz, cdz) = (a.z - d.z, b.z - d.z, c.z - d.z);
    let (bdxcdy, cdxbdy) = (bdx * cdy, cdx * bdy);
    let (cdxady, adxcdy) = (cdx * ady, adx * cdy);
    let (adxbdy, bdxady) = (adx * bdy, bdx * ady);
    // Positive when d lies *below* the plane (Shewchuk's convention).
    let det = adz * (bdxcdy - cdxbdy) + bdz * (cdxady - adxcdy) + cdz * (adxbdy - bdxady);
    let perm = (bdxcdy.abs() + cdxbdy.abs()) * adz.abs()
        + (cdxady.abs() + adxcdy.abs()) * bdz.abs()
        + (adxbdy.abs() + bdxady.abs()) * cdz.abs();
    let bound = 4.0 * f64::EPSILON * perm + (adz.abs() + bdz.abs() + cdz.abs()) * 1e-300;
    if perm > 1e-250 && bound.is_finite() {
        if det > bound {
            return Orientation::Below;
        }
        if -det > bound {
            return Orientation::Above;
        }
    }
    orient3d_exact(a, b, c, d)
}

/// The exact predicate behind [`orient3d`]'s filter (the same sign, without the filter):
/// Shewchuk's adaptive `orient3d` on the inputs scaled by a power of two into the safe band
/// when their magnitude lies outside it. Kept out of line so the filter inlines into its
/// callers' loops.
#[inline(never)]
pub fn orient3d_exact(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> Orientation {
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
    match orient3d_exact(DVec3::ZERO, x, y, z) {
        Orientation::Above => 1,
        Orientation::Below => -1,
        Orientation::On => 0,
    }
}

/// A plane through `a, b, c` prepared for many [`orient3d`] tests against it: the sign of
/// `orient3d(a, b, c, p)` for any `p`, from one dot product where a float filter makes it
/// certain, else from the exact predicate (Quickhull's visibility tests: one plane, many
/// points).
///
/// The filter keeps the cross product `n = (b − a) × (c − a)` and the absolute products
/// `P = (|e_y f_z| + |e_z f_y|, …)` (e = b − a, f = c − a, all rounded) and evaluates
/// `det = ((n_x w_x + n_y w_y) + n_z w_z)` with `w = p − a`. Against the exact determinant
/// `D = (E × F) · W` of the exact differences, each `n_i` is within `γ₄·Q_i` of `N_i`
/// (Q_i the exact `|E_y F_z| + |E_z F_y|`; two differences, a product and a subtraction
/// round) and each term of the dot product carries at most four more roundings (the
/// difference `w_i`, the product, two sums), so `|det − D| ≤ γ₄(2 + γ₄)·Σ Q_i|W_i|`
/// (γ₄ = 4u/(1 − 4u), u = 2⁻⁵³), and the computed `perm = Σ P_i|w_i|` is at least
/// `(1 − γ₈)·Σ Q_i|W_i|`: the error is below `8.01u·perm`, and `6·EPSILON = 12u` exceeds it.
/// Gradual underflow adds at most 2⁻¹⁰⁷⁵ per product (differences that underflow are exact):
/// the two products of each `n_i`, scaled by `|w_i|`, are covered by `|w|₁·1e-300`, and the
/// three of the dot product by requiring `perm > 1e-250` (then `12u·perm ≥ 1e-265`). Overflow
/// gives an infinite or NaN `perm` or `det`, and the comparisons fail. Where the filter does
/// not answer, [`orient3d_exact`] on the four points decides, so [`OrientPlane::orient`] is
/// exactly `orient3d(a, b, c, p)`.
#[derive(Clone, Copy, Debug)]
pub struct OrientPlane {
    filter: OrientFilter,
    b: DVec3,
    c: DVec3,
}

impl OrientPlane {
    /// The plane through `a, b, c`, oriented by `(b − a) × (c − a)` as in [`orient3d`].
    #[inline]
    pub fn new(a: DVec3, b: DVec3, c: DVec3) -> OrientPlane {
        OrientPlane {
            filter: OrientFilter::new(a, b, c),
            b,
            c,
        }
    }

    /// `orient3d(a, b, c, p)`: the filter above, else the exact predicate.
    #[inline]
    pub fn orient(&self, p: DVec3) -> Orientation {
        self.filter.orient(self.b, self.c, p)
    }

    /// `true` when `p` is strictly above the plane (see [`strictly_above`]).
    #[inline]
    pub fn strictly_above(&self, p: DVec3) -> bool {
        self.orient(p) == Orientation::Above
    }
}

/// The float part of an [`OrientPlane`] (its first point, cross product and absolute
/// products: 72 bytes instead of 120), for callers that keep `b` and `c` elsewhere — the
/// hull keeps one per facet, millions of them for 10⁶-point clouds, and reads `b`, `c` from
/// its point array only when the filter does not answer. [`orient`](Self::orient) must be
/// given the same `b` and `c` as [`new`](Self::new); it is then exactly
/// `orient3d(a, b, c, p)` (the bound is [`OrientPlane`]'s).
#[derive(Clone, Copy, Debug)]
pub struct OrientFilter {
    a: DVec3,
    n: DVec3,
    abs: DVec3,
}

impl OrientFilter {
    /// The plane through `a, b, c`, oriented by `(b − a) × (c − a)` as in [`orient3d`].
    #[inline]
    pub fn new(a: DVec3, b: DVec3, c: DVec3) -> OrientFilter {
        let (e, f) = (b - a, c - a);
        let (yz, zy) = (e.y * f.z, e.z * f.y);
        let (zx, xz) = (e.z * f.x, e.x * f.z);
        let (xy, yx) = (e.x * f.y, e.y * f.x);
        OrientFilter {
            a,
            n: DVec3::new(yz - zy, zx - xz, xy - yx),
            abs: DVec3::new(yz.abs() + zy.abs(), zx.abs() + xz.abs(), xy.abs() + yx.abs()),
        }
    }

    /// `orient3d(a, b, c, p)` for the `b`, `c` given to [`new`](Self::new): the filter,
    /// else the exact predicate.
    #[inline]
    pub fn orient(&self, b: DVec3, c: DVec3, p: DVec3) -> Orientation {
        match self.filter(p) {
            Some(o) => o,
            None => orient3d_exact(self.a, b, c, p),
        }
    }

    /// The sign of `orient3d(a, b, c, p)` where the float filter makes it certain (never
    /// `On`), `None` where the exact predicate must decide: callers that keep `b` and `c`
    /// elsewhere read them only then.
    #[inline]
    pub fn filter(&self, p: DVec3) -> Option<Orientation> {
        let w = p - self.a;
        let det = self.n.x * w.x + self.n.y * w.y + self.n.z * w.z;
        let wa = w.abs();
        let perm = self.abs.x * wa.x + self.abs.y * wa.y + self.abs.z * wa.z;
        let bound = 6.0 * f64::EPSILON * perm + (wa.x + wa.y + wa.z) * 1e-300;
        if perm > 1e-250 && bound.is_finite() {
            if det > bound {
                return Some(Orientation::Above);
            }
            if -det > bound {
                return Some(Orientation::Below);
            }
        }
        None
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

    /// Xorshift: a uniform number in [−1, 1).
    fn uniform(seed: &mut u64) -> f64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        (*seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }

    fn uniform3(seed: &mut u64) -> DVec3 {
        DVec3::new(uniform(seed), uniform(seed), uniform(seed))
    }

    /// The filtered [`orient3d`] returns the exact predicate's sign on random quadruples,
    /// nearly and exactly coplanar ones (rounded combinations, points on a coordinate plane,
    /// collinear triples, repeated points), at tiny and huge scales (products that underflow
    /// or overflow) and far from the origin (large offsets with small spans).
    #[test]
    fn filtered_orient3d_is_exact() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let scales = [
            1.0,
            3.7,
            1e-9,
            1e9,
            1e-150,
            1e150,
            1e-160,
            1e-300,
            1e200,
            2f64.powi(-1060),
        ];
        let offsets = [0.0, 1.0, 1e3, 1e6, 1e9, -7.5e12];
        let (mut zeros, mut total) = (0usize, 0usize);
        for i in 0..120_000usize {
            let s = scales[i % scales.len()];
            let o = DVec3::splat(offsets[(i / scales.len()) % offsets.len()]) * s;
            let (a, b, c) = (
                o + uniform3(&mut seed) * s,
                o + uniform3(&mut seed) * s,
                o + uniform3(&mut seed) * s,
            );
            let (u, v) = (uniform(&mut seed), uniform(&mut seed));
            let d = match (i / 60) % 7 {
                // Rounded points of the plane through a, b, c: exactly or nearly coplanar.
                0 => a + (b - a) * u + (c - a) * v,
                // The same, nudged by about an ulp of the span.
                1 => a + (b - a) * u + (c - a) * v + uniform3(&mut seed) * (s * 1e-16),
                // On a coordinate plane with a, b, c.
                2 => DVec3::new(o.x + uniform(&mut seed) * s, o.y + uniform(&mut seed) * s, a.z),
                // A repeated point.
                3 => b,
                // On the line through a and b.
                4 => a + (b - a) * u,
                5 => o + uniform3(&mut seed) * s * 1e-12,
                _ => o + uniform3(&mut seed) * s,
            };
            let (b, c) = if (i / 60) % 7 == 2 {
                (DVec3::new(b.x, b.y, a.z), DVec3::new(c.x, c.y, a.z))
            } else {
                (b, c)
            };
            let exact = orient3d_exact(a, b, c, d);
            zeros += usize::from(exact == Orientation::On);
            total += 1;
            assert_eq!(orient3d(a, b, c, d), exact, "{a} {b} {c} {d}");
            // Every permutation keeps agreeing (the filter's expression is not symmetric).
            assert_eq!(orient3d(b, c, a, d), orient3d_exact(b, c, a, d), "{a} {b} {c} {d}");
            assert_eq!(orient3d(d, a, b, c), orient3d_exact(d, a, b, c), "{a} {b} {c} {d}");
        }
        // The families above do reach the exact predicate's zero, often.
        assert!(zeros * 10 >= total, "zeros {zeros} of {total}");
        // Non-finite inputs: the filter declines and the exact predicate decides as before.
        let inf = DVec3::new(f64::INFINITY, 0.0, 0.0);
        assert_eq!(
            orient3d(DVec3::ZERO, DVec3::X, DVec3::Y, inf),
            orient3d_exact(DVec3::ZERO, DVec3::X, DVec3::Y, inf)
        );
    }

    /// [`OrientPlane::orient`] is [`orient3d_exact`] on random, nearly and exactly coplanar,
    /// tiny, huge and far-off inputs (the plane's float filter is a different expansion of
    /// the determinant than `orient3d`'s).
    #[test]
    fn orient_plane_is_exact() {
        let mut seed = 0xD1B5_4A32_D192_ED03u64;
        let scales = [
            1.0,
            0.3,
            1e-7,
            1e8,
            1e-150,
            1e150,
            1e-160,
            1e-300,
            1e200,
            2f64.powi(-1060),
        ];
        let offsets = [0.0, 1.0, 1e4, 1e7, -3.3e11];
        let (mut zeros, mut total, mut certain) = (0usize, 0usize, 0usize);
        for i in 0..2_000usize {
            let s = scales[i % scales.len()];
            let o = DVec3::splat(offsets[(i / scales.len()) % offsets.len()]) * s;
            let (a, b, c) = (
                o + uniform3(&mut seed) * s,
                o + uniform3(&mut seed) * s,
                o + uniform3(&mut seed) * s,
            );
            let plane = OrientPlane::new(a, b, c);
            for j in 0..60usize {
                let (u, v) = (uniform(&mut seed), uniform(&mut seed));
                let p = match j % 7 {
                    0 => a + (b - a) * u + (c - a) * v,
                    1 => a + (b - a) * u + (c - a) * v + uniform3(&mut seed) * (s * 1e-16),
                    2 => [a, b, c][j % 3],
                    3 => a + (c - a) * u,
                    4 => o + uniform3(&mut seed) * s * 1e-12,
                    5 => o + uniform3(&mut seed) * s * 1e6,
                    _ => o + uniform3(&mut seed) * s,
                };
                let exact = orient3d_exact(a, b, c, p);
                zeros += usize::from(exact == Orientation::On);
                total += 1;
                assert_eq!(plane.orient(p), exact, "{a} {b} {c} {p}");
                assert_eq!(plane.strictly_above(p), exact == Orientation::Above);
                let w = p - a;
                certain += usize::from(
                    (plane.filter.n.dot(w)).abs() > 1e-3 * plane.filter.abs.dot(w.abs())
                        && plane.filter.abs.dot(w.abs()) > 1e-250,
                );
            }
        }
        assert!(zeros * 10 >= total, "zeros {zeros} of {total}");
        // The filter is not vacuous: the points in general position (two families in seven, at
        // the scales where nothing overflows) are far from the bound.
        assert!(certain * 10 >= total, "filter-decidable {certain} of {total}");
        // A plane in a coordinate plane: every point of it is exactly on it.
        let plane = OrientPlane::new(
            DVec3::new(0.1, 0.2, 0.7),
            DVec3::new(3.0, -1.0, 0.7),
            DVec3::new(-2.0, 5.0, 0.7),
        );
        assert_eq!(plane.orient(DVec3::new(1e6, -3.0, 0.7)), Orientation::On);
        assert_eq!(plane.orient(DVec3::new(1e6, -3.0, 0.7 + 1e-16)), Orientation::Above);
    }
}
