//! The minimum-norm point of the convex hull of at most four vectors (the sub-step of the
//! minimum-norm-point iterations of `distance` and of the auxiliary rule's interior point).

use crate::core::math::DVec3;

/// The minimum-norm point `w` of `conv pts` (`pts.len() ≤ 4`, the origin outside their
/// tetrahedron), as `Σ lam[k]·pts[idx[k]]` over its first `len` entries. Every non-empty subset
/// of at most 3 points is projected on its affine hull; a projection with every weight positive
/// is a candidate, built from its weights (so a point of `conv pts` whatever the rounding of
/// the weights); the least norm wins (a single point always qualifies, so there is one).
pub(super) fn nearest(pts: &[DVec3]) -> ([f64; 3], [usize; 3], usize, DVec3) {
    let n = pts.len().min(4);
    let mut best = (f64::INFINITY, [0.0; 3], [0usize; 3], 0usize, DVec3::ZERO);
    let mut consider = |idx: &[usize], lam: &[f64], w: DVec3| {
        let nn = w.length_squared();
        if nn < best.0 {
            let mut l = [0.0; 3];
            let mut ix = [0usize; 3];
            l[..lam.len()].copy_from_slice(lam);
            ix[..idx.len()].copy_from_slice(idx);
            best = (nn, l, ix, idx.len(), w);
        }
    };
    for (i, &p) in pts.iter().enumerate().take(n) {
        consider(&[i], &[1.0], p);
    }
    for i in 0..n {
        for j in (i + 1)..n {
            let (p, e) = (pts[i], pts[j] - pts[i]);
            let ee = e.length_squared();
            if ee <= 0.0 {
                continue;
            }
            let t = -p.dot(e) / ee;
            if t > 0.0 && t < 1.0 {
                consider(&[i, j], &[1.0 - t, t], p + e * t);
            }
        }
    }
    for i in 0..n {
        for j in (i + 1)..n {
            for k in (j + 1)..n {
                let p = pts[i];
                let (e1, e2) = (pts[j] - p, pts[k] - p);
                let (a11, a12, a22) = (e1.dot(e1), e1.dot(e2), e2.dot(e2));
                let (b1, b2) = (-p.dot(e1), -p.dot(e2));
                let det = a11 * a22 - a12 * a12;
                // Only an exactly flat triangle is skipped. A sliver (near-parallel faces
                // make them: `b₂ − b₁ ≈ a₂ − a₁`) solves ill-conditioned, but a candidate is
                // built from its weights, so it is a point of the hull whatever the rounding
                // of `s, t`: never below the minimum norm, and the least one wins.
                if !(det > 0.0) {
                    continue;
                }
                let s = (b1 * a22 - b2 * a12) / det;
                let t = (b2 * a11 - b1 * a12) / det;
                if s > 0.0 && t > 0.0 && s + t < 1.0 {
                    consider(&[i, j, k], &[1.0 - s - t, s, t], p + e1 * s + e2 * t);
                }
            }
        }
    }
    let (_, lam, idx, len, w) = best;
    (lam, idx, len, w)
}
