//! Small closest-point kernels shared by the algorithms and the oracle.

use crate::core::math::DVec3;

/// Closest point to `p` on the segment `[a, b]`, and its parameter in `[0, 1]`.
#[inline]
pub fn closest_on_segment(p: DVec3, a: DVec3, b: DVec3) -> (DVec3, f64) {
    let ab = b - a;
    let l2 = ab.length_squared();
    if !(l2 > 0.0) {
        return (a, 0.0);
    }
    let t = ((p - a).dot(ab) / l2).clamp(0.0, 1.0);
    (a + ab * t, t)
}

/// Closest point to `p` on the triangle `abc` (Voronoi-region case analysis).
pub fn closest_on_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> DVec3 {
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return closest_on_segment(p, a, b).0;
    }
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return closest_on_segment(p, a, c).0;
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return closest_on_segment(p, b, c).0;
    }
    // Inside the face region: project on the plane (more accurate than barycentric sums).
    let n = ab.cross(ac);
    let l2 = n.length_squared();
    if !(l2 > 0.0) {
        return closest_on_segment(p, a, b).0;
    }
    p - n * (n.dot(ap) / l2)
}

/// Closest points between segments `[p1, q1]` and `[p2, q2]`: (point on first, point on second).
pub fn closest_segment_segment(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> (DVec3, DVec3) {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.length_squared();
    let e = d2.length_squared();
    let f = d2.dot(r);
    let (s, t);
    if a <= 0.0 && e <= 0.0 {
        return (p1, p2);
    }
    if a <= 0.0 {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(r);
        if e <= 0.0 {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            let mut s0 = if denom > 0.0 {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let mut t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t0 = 0.0;
                s0 = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t0 = 1.0;
                s0 = ((b - c) / a).clamp(0.0, 1.0);
            }
            s = s0;
            t = t0;
        }
    }
    (p1 + d1 * s, p2 + d2 * t)
}

/// One step of iterative refinement of `v`, a computed nearest point to the origin of the
/// affine hull of `p[..n]` (n = 2 or 3; other `n` return `v`): removes from `v` its components
/// along the edge directions `p[i] − p[0]` (the exact nearest point is orthogonal to them).
/// Near contact `v` is small while its rounding error is of the order of the *coordinates*;
/// the residuals `eᵢ·v` are computed to the accuracy of `v` itself, so the correction restores
/// `v`'s direction — which duality gaps and separating planes depend on. The step is refused
/// (returns `v`) if it would lengthen `v` beyond rounding or is not finite.
#[inline(always)]
pub(crate) fn refine_nearest(p: &[DVec3; 3], n: usize, v: DVec3) -> DVec3 {
    match n {
        2 => {
            let e = p[1] - p[0];
            let ee = e.length_squared();
            if ee > 0.0 {
                v - e * (e.dot(v) / ee)
            } else {
                v
            }
        }
        3 => {
            let e1 = p[1] - p[0];
            let e2 = p[2] - p[0];
            let (g11, g12, g22) = (e1.dot(e1), e1.dot(e2), e2.dot(e2));
            let det = g11 * g22 - g12 * g12;
            if !(det > 0.0) || !det.is_finite() {
                return v;
            }
            let (r1, r2) = (e1.dot(v), e2.dot(v));
            let c1 = (g22 * r1 - g12 * r2) / det;
            let c2 = (g11 * r2 - g12 * r1) / det;
            let nv = v - e1 * c1 - e2 * c2;
            if nv.is_finite()
                && nv.length_squared() <= v.length_squared() * (1.0 + crate::core::tolerance::REFINE_GROWTH_REL)
            {
                nv
            } else {
                v
            }
        }
        _ => v,
    }
}

/// A certified lower bound on the origin's distance to the boundary of the tetrahedron `p`
/// (0 for a degenerate one or an origin outside it, or when rounding could put it there):
/// a lower bound on the penetration depth when the vertices are points of the Minkowski
/// difference.
///
/// Each face's distance `n·x / |n|`, `n = (y − x) × (z − x)`, is computed in floating point
/// with an absolute error below `ε·|x|·(c·|y − x|·|z − x| / |n| + c')`: the cross product's
/// rounding, relative to `|y − x|·|z − x|`, is amplified by the face's slenderness. On the
/// flat tetrahedra of needles and slabs that error exceeds the contact tolerance (two needles
/// touching within 1e-16 of their size gave a "depth" of 3e-13), so it is subtracted: the
/// bound holds for the tetrahedron of the given floating-point points.
pub(crate) fn tetrahedron_depth(p: [DVec3; 4]) -> f64 {
    let reach = p.iter().fold(0.0f64, |m, x| m.max(x.abs().max_element()));
    let mut depth = f64::INFINITY;
    for k in 0..4 {
        let (x, y, z, w) = (p[k], p[(k + 1) % 4], p[(k + 2) % 4], p[(k + 3) % 4]);
        let (e1, e2) = (y - x, z - x);
        let n = e1.cross(e2);
        let len = n.length();
        if !(len > 0.0) || !len.is_finite() {
            return 0.0;
        }
        // Distance of the origin inside face (x, y, z), times |n|: along the outward normal
        // (away from the fourth vertex).
        let h = if n.dot(w - x) > 0.0 { -n.dot(x) } else { n.dot(x) };
        // √3 per coordinate norm, 8 units of rounding per product and sum: generous.
        let slender = (e1.length_squared() * e2.length_squared()).sqrt() / len;
        let err = 32.0 * f64::EPSILON * 3f64.sqrt() * reach * (slender + 1.0);
        let d = h / len - err;
        if !(d > 0.0) {
            return 0.0;
        }
        depth = depth.min(d);
    }
    depth
}

/// `a + b` as an unevaluated sum `(s, e)` with `s = fl(a + b)` (Knuth's two-sum).
#[inline]
pub(crate) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `a · b` as `(p, e)` with `p = fl(a·b)` and `p + e = a·b` exactly (fused multiply-add).
#[inline]
pub(crate) fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// `Σ w_k · (p_k − q_k)` (per coordinate) and `Σ w_k − 1`, to about twice the working
/// precision: the differences and products are formed exactly, the sums compensated.
fn affine_residual(w: &[f64; 4], p: &[DVec3; 4], q: &[DVec3; 4]) -> [f64; 4] {
    let mut out = [0.0; 4];
    for (c, o) in out.iter_mut().enumerate().take(3) {
        let (mut hi, mut lo) = (0.0, 0.0);
        for k in 0..4 {
            let (d, de) = two_sum(p[k][c], -q[k][c]);
            let (x, xe) = two_prod(w[k], d);
            let (s, se) = two_sum(hi, x);
            hi = s;
            lo += se + xe + w[k] * de;
        }
        *o = hi + lo;
    }
    let (mut hi, mut lo) = (-1.0, 0.0);
    for &x in w {
        let (s, se) = two_sum(hi, x);
        hi = s;
        lo += se;
    }
    out[3] = hi + lo;
    out
}

/// Solves the 4 × 4 system `m · x = r` by Gaussian elimination with partial pivoting
/// (`None` when a pivot vanishes).
fn solve4(mut m: [[f64; 4]; 4], mut r: [f64; 4]) -> Option<[f64; 4]> {
    for col in 0..4 {
        let piv = (col..4).max_by(|&i, &j| m[i][col].abs().total_cmp(&m[j][col].abs()))?;
        if !(m[piv][col].abs() > 0.0) {
            return None;
        }
        m.swap(col, piv);
        r.swap(col, piv);
        let (pivot_row, pr) = (m[col], r[col]);
        for (row, rr) in m.iter_mut().zip(r.iter_mut()).skip(col + 1) {
            let f = row[col] / pivot_row[col];
            for (x, &p) in row.iter_mut().zip(pivot_row.iter()).skip(col) {
                *x -= f * p;
            }
            *rr -= f * pr;
        }
    }
    let mut x = [0.0; 4];
    for row in (0..4).rev() {
        let mut s = r[row];
        for k in row + 1..4 {
            s -= m[row][k] * x[k];
        }
        x[row] = s / m[row][row];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// Iterative refinement of barycentric weights `w` of the origin in the tetrahedron of the
/// differences `p_k − q_k`: the residual `Σ w_k (p_k − q_k)`, `Σ w_k − 1` is formed to about
/// twice the working precision ([`affine_residual`]) and the correction solved for in
/// working precision, a few times. On the flat tetrahedra of needles and slabs (condition
/// 10⁶–10¹⁰) the direct formula's weights leave `Σ w_k p_k` and `Σ w_k q_k` up to 1e-6 of the
/// shapes' size apart; refined, they agree to rounding, so either sum is a point of both
/// shapes. Returns `w` unchanged when the system is singular.
pub(crate) fn refine_affine_weights(mut w: [f64; 4], p: &[DVec3; 4], q: &[DVec3; 4]) -> [f64; 4] {
    let mut m = [[0.0; 4]; 4];
    for k in 0..4 {
        let d = p[k] - q[k];
        m[0][k] = d.x;
        m[1][k] = d.y;
        m[2][k] = d.z;
        m[3][k] = 1.0;
    }
    for _ in 0..4 {
        let r = affine_residual(&w, p, q);
        let Some(dx) = solve4(m, [-r[0], -r[1], -r[2], -r[3]]) else {
            return w;
        };
        let mut changed = false;
        for k in 0..4 {
            let nw = w[k] + dx[k];
            changed |= nw != w[k];
            w[k] = nw;
        }
        if !changed {
            break;
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangle_regions() {
        let (a, b, c) = (DVec3::ZERO, DVec3::X, DVec3::Y);
        assert_eq!(closest_on_triangle(DVec3::new(-1.0, -1.0, 3.0), a, b, c), a);
        assert_eq!(
            closest_on_triangle(DVec3::new(0.25, 0.25, 3.0), a, b, c),
            DVec3::new(0.25, 0.25, 0.0)
        );
        let q = closest_on_triangle(DVec3::new(1.0, 1.0, 0.0), a, b, c);
        assert!((q - DVec3::new(0.5, 0.5, 0.0)).length() < 1e-15);
        let (s, t) = closest_segment_segment(
            DVec3::new(-1.0, 0.0, 0.0),
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(0.0, -1.0, 1.0),
            DVec3::new(0.0, 1.0, 1.0),
        );
        assert!((s - DVec3::ZERO).length() < 1e-15 && (t - DVec3::Z).length() < 1e-15);
    }
}
