//! Exact signs: of dot products and 3×3 determinants of float vectors (float filter, then
//! error-free transforms), and whether the origin lies in the hull of ≤ 4 vectors.

use crate::core::geometry::{two_prod, two_sum};
use crate::core::math::DVec3;

/// Exact sign of `a · b` for float vectors (exact unless products underflow).
#[inline]
pub(super) fn dot_sign(a: DVec3, b: DVec3) -> i8 {
    let (x, y, z) = (a.x * b.x, a.y * b.y, a.z * b.z);
    let p = x + y + z;
    let mag = x.abs() + y.abs() + z.abs();
    // |fl(a·b) − a·b| ≤ γ₃·Σ|aᵢbᵢ| with γ₃ < 4ε.
    if p.abs() > 4.0 * f64::EPSILON * mag {
        return if p > 0.0 { 1 } else { -1 };
    }
    dot_sign_exact(a, b, mag)
}

/// [`dot_sign`] past its float filter.
#[cold]
#[inline(never)]
fn dot_sign_exact(a: DVec3, b: DVec3, mag: f64) -> i8 {
    if mag == 0.0 {
        return 0;
    }
    let terms = [two_prod(a.x, b.x), two_prod(a.y, b.y), two_prod(a.z, b.z)];
    // Grow-expansion (Shewchuk) with zero elimination: components stay non-overlapping and
    // increasing in magnitude, so the sign is that of the last one.
    let mut e = [0.0f64; 8];
    let mut n = 0usize;
    for (hi, lo) in terms {
        for t in [lo, hi] {
            let mut q = t;
            let mut k = 0usize;
            for i in 0..n {
                let (s, h) = two_sum(q, e[i]);
                q = s;
                if h != 0.0 {
                    e[k] = h;
                    k += 1;
                }
            }
            if q != 0.0 {
                e[k] = q;
                k += 1;
            }
            n = k;
        }
    }
    match n.checked_sub(1).map(|i| e[i]) {
        Some(v) if v > 0.0 => 1,
        Some(v) if v < 0.0 => -1,
        _ => 0,
    }
}

/// Exact sign of `det[x, y, z] = (x × y) · z` (float-filtered, see
/// [`crate::core::predicates::det_sign`]).
#[inline]
pub(super) fn det_sign(x: DVec3, y: DVec3, z: DVec3) -> i8 {
    crate::core::predicates::det_sign(x, y, z)
}

/// Exactly parallel (cross product exactly zero).
#[inline]
pub(super) fn parallel(x: DVec3, y: DVec3) -> bool {
    // Float filter: a cross-product component whose rounded value exceeds its error bound
    // (each component `ab − cd` is within 2u(|ab| + |cd|) of exact, u = 2⁻⁵³, far below the
    // 4·EPSILON = 8u used; underflow needs products below 1e-250, excluded) is non-zero.
    let (m0, m1) = (x.y * y.z, x.z * y.y);
    let (m2, m3) = (x.z * y.x, x.x * y.z);
    let (m4, m5) = (x.x * y.y, x.y * y.x);
    let big = |p: f64, q: f64| {
        let perm = p.abs() + q.abs();
        perm > 1e-250 && perm.is_finite() && (p - q).abs() > 4.0 * f64::EPSILON * perm
    };
    if big(m0, m1) || big(m2, m3) || big(m4, m5) {
        return false;
    }
    parallel_exact(x, y)
}

/// [`parallel`] past its float filter.
#[cold]
#[inline(never)]
fn parallel_exact(x: DVec3, y: DVec3) -> bool {
    det_sign(x, y, DVec3::X) == 0 && det_sign(x, y, DVec3::Y) == 0 && det_sign(x, y, DVec3::Z) == 0
}

/// A vector `n` with `det[x, y, n] > 0`, for non-parallel `x, y` (orientation inside their
/// plane is then `det[·, ·, n]`).
pub(super) fn plane_normal(x: DVec3, y: DVec3) -> DVec3 {
    let c = x.cross(y);
    if det_sign(x, y, c) > 0 {
        return c;
    }
    for e in [DVec3::X, DVec3::Y, DVec3::Z] {
        match det_sign(x, y, e) {
            1 => return e,
            -1 => return -e,
            _ => {}
        }
    }
    c
}

/// Is the origin in the convex hull of these (≤ 4) vectors? Exact signs. Used to verify every
/// certificate before it is returned.
pub(super) fn origin_in_hull(p: &[DVec3]) -> bool {
    match p.len() {
        1 => p[0] == DVec3::ZERO,
        2 => parallel(p[0], p[1]) && dot_sign(p[0], p[1]) <= 0,
        3 => {
            if det_sign(p[0], p[1], p[2]) != 0 {
                return false;
            }
            // Coplanar with the origin: some pair (or the triple) contains it.
            for (i, j) in [(0, 1), (1, 2), (0, 2)] {
                if origin_in_hull(&[p[i], p[j]]) {
                    return true;
                }
            }
            let (x, y, z) = (p[0], p[1], p[2]);
            if parallel(x, y) {
                return false;
            }
            let n = plane_normal(x, y);
            let s1 = det_sign(x, y, n);
            let s2 = det_sign(y, z, n);
            let s3 = det_sign(z, x, n);
            (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0)
        }
        4 => {
            let dd = det_sign(p[0], p[1], p[2]);
            if dd != 0 {
                // 0 = Σλᵢpᵢ with λ ≥ 0 ⇔ −p₃ ∈ cone(p₀, p₁, p₂).
                let s1 = -det_sign(p[0], p[1], p[3]);
                let s2 = -det_sign(p[1], p[2], p[3]);
                let s3 = -det_sign(p[2], p[0], p[3]);
                if [s1, s2, s3].iter().all(|&s| s == dd || s == 0) {
                    return true;
                }
                // Every triple is then linearly independent (dets dd, −s1, −s2, −s3 ≠ 0), so
                // no sub-simplex is coplanar with the origin and none can contain it.
                if s1 != 0 && s2 != 0 && s3 != 0 {
                    return false;
                }
            }
            for skip in 0..4 {
                let mut q = [DVec3::ZERO; 3];
                let mut k = 0;
                for (i, &v) in p.iter().enumerate() {
                    if i != skip {
                        q[k] = v;
                        k += 1;
                    }
                }
                if origin_in_hull(&q) {
                    return true;
                }
            }
            false
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_sign_is_exact() {
        let a = DVec3::new(1e16, 1.0, -1e16);
        let b = DVec3::new(1.0, 1.0, 1.0);
        assert_eq!(dot_sign(a, b), 1);
        assert_eq!(dot_sign(a, -b), -1);
        assert_eq!(dot_sign(DVec3::new(0.1, 0.2, 0.0), DVec3::new(0.2, -0.1, 5.0)), 0);
        assert_eq!(dot_sign(DVec3::ZERO, b), 0);
    }
}
