//! Wolfe's minimum-norm-point algorithm over a pair support mapping: the corral, its affine
//! minimiser and the major/minor cycles (module docs: *Invariants*, *Termination*).

use super::{MAX_ITERATIONS, MAX_TIE_STEPS};
use crate::core::math::DVec3;
use crate::core::tolerance::WEIGHT_TIE;

/// A vertex of M: a vertex pair and its two positions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct SupPt {
    pub(super) ia: u32,
    pub(super) ib: u32,
    pub(super) a: DVec3,
    pub(super) b: DVec3,
}

/// Support mapping of the (possibly shrunk) Minkowski difference.
pub(super) trait PairSupport {
    /// The vertex pair (a, b) maximising `d · a − d · b`, i.e. the support point of the
    /// difference along `d`, with both shapes shrunk by `s` about their interior points
    /// (`a ↦ c_A + s·(a − c_A)`; `s = 1` leaves them unchanged).
    fn support(&mut self, d: DVec3, s: f64) -> SupPt;
    /// The positions of the pair (ia, ib), shrunk by `s`.
    fn point(&self, ia: u32, ib: u32, s: f64) -> SupPt;
    /// Candidate normals (A towards B, solver frame) of a plane supporting both shapes where
    /// the corral's vertex pairs meet: the face normals around its vertices and the cross
    /// products of their edges (both signs); at most `out.len()`. None without topology.
    fn contact_normals(&self, _c: &Corral, _out: &mut [DVec3; MAX_CONTACT_NORMALS]) -> usize {
        0
    }
}

/// Bound on the candidate normals tried for a touching plane (faces around the contact
/// vertices first, then edge cross products): the slot count of a stack buffer.
pub(super) const MAX_CONTACT_NORMALS: usize = 96;

/// Wolfe's corral: its points of M (each `a − b` of a vertex pair, computed once when the
/// pair joins) with their vertex pairs, weights and `x = Σ w_k m_k`. The pairs' positions
/// are not kept: [`Corral::points`] recomputes them from the ids through the support
/// mapping (the same arithmetic, so the same values), which keeps the corral small — it is
/// updated in place, never returned by value along the solve.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Corral {
    pub(super) m: [DVec3; 4],
    pub(super) id: [(u32, u32); 4],
    pub(super) w: [f64; 4],
    pub(super) n: usize,
    pub(super) x: DVec3,
}

impl Corral {
    /// The two weighted points `Σ w_k a_k`, `Σ w_k b_k` (positions shrunk by `s`, as the run
    /// that built the corral).
    pub(super) fn points<S: PairSupport>(&self, sup: &S, s: f64) -> (DVec3, DVec3) {
        let (mut pa, mut pb) = (DVec3::ZERO, DVec3::ZERO);
        for k in 0..self.n {
            let (ia, ib) = self.id[k];
            let q = sup.point(ia, ib, s);
            pa += q.a * self.w[k];
            pb += q.b * self.w[k];
        }
        (pa, pb)
    }
    pub(super) fn heaviest(&self) -> (u32, u32) {
        let mut best = 0;
        for k in 1..self.n {
            if self.w[k] > self.w[best] {
                best = k;
            }
        }
        self.id[best]
    }
    /// Drops points of non-positive weight, renormalising the rest. `x` is left as it was:
    /// the minor cycle that compacts always goes on to set it from the affine minimiser (or
    /// the major cycle stalls and restores the corral before the cycle).
    #[inline(always)]
    fn compact(&mut self) {
        let mut j = 0;
        for k in 0..self.n {
            if self.w[k] > 0.0 {
                self.m[j] = self.m[k];
                self.id[j] = self.id[k];
                self.w[j] = self.w[k];
                j += 1;
            }
        }
        self.n = j;
        let s: f64 = self.w[..j].iter().sum();
        if s > 0.0 {
            for w in &mut self.w[..j] {
                *w /= s;
            }
        }
    }
    /// For a tetrahedron containing the origin: the corral of its facet whose plane is nearest
    /// the origin, at the origin's projection on it (which lies in that facet). `None` when
    /// the corral is not a tetrahedron or the facet is degenerate.
    pub(super) fn nearest_facet(&self) -> Option<Corral> {
        if self.n < 4 {
            return None;
        }
        let m = self.m;
        let mut best = (f64::INFINITY, 0);
        for skip in 0..4 {
            let i = [(skip + 1) % 4, (skip + 2) % 4, (skip + 3) % 4];
            let n = (m[i[1]] - m[i[0]]).cross(m[i[2]] - m[i[0]]);
            let l = n.length();
            if l > 0.0 && l.is_finite() {
                let h = (n.dot(m[i[0]]) / l).abs();
                if h < best.0 {
                    best = (h, skip);
                }
            }
        }
        if !best.0.is_finite() {
            return None;
        }
        let skip = best.1;
        let i = [(skip + 1) % 4, (skip + 2) % 4, (skip + 3) % 4];
        let mut f = Corral {
            m: [m[i[0]], m[i[1]], m[i[2]], m[i[2]]],
            id: [self.id[i[0]], self.id[i[1]], self.id[i[2]], self.id[i[2]]],
            w: [0.0; 4],
            n: 3,
            x: DVec3::ZERO,
        };
        let (_, w) = affine_min(&f)?;
        // The projection lies in the facet; clamp rounding-level negative weights.
        let w = [w[0].max(0.0), w[1].max(0.0), w[2].max(0.0)];
        let sum = w[0] + w[1] + w[2];
        if !(sum > 0.0) {
            return None;
        }
        f.w = [w[0] / sum, w[1] / sum, w[2] / sum, 0.0];
        f.x = (0..3).fold(DVec3::ZERO, |acc, k| acc + f.m[k] * f.w[k]);
        Some(f)
    }

    /// Lower bound on the depth of the origin in M when the corral is a tetrahedron whose
    /// hull contains it: the least distance from the origin to its face planes.
    pub(super) fn inner_depth(&self) -> f64 {
        if self.n < 4 {
            return 0.0;
        }
        let m = self.m;
        let mut best = f64::INFINITY;
        for skip in 0..4 {
            let idx: [usize; 3] = match skip {
                0 => [1, 2, 3],
                1 => [0, 2, 3],
                2 => [0, 1, 3],
                _ => [0, 1, 2],
            };
            let n = (m[idx[1]] - m[idx[0]]).cross(m[idx[2]] - m[idx[0]]);
            let l = n.length();
            if !(l > 0.0) {
                return 0.0;
            }
            best = best.min((n.dot(m[idx[0]]) / l).abs());
        }
        best
    }
}

/// Affine minimiser of the corral's points: the point of least norm on their affine hull and
/// its affine (barycentric) coordinates. `None` when the points are affinely dependent.
#[inline(always)]
fn affine_min(c: &Corral) -> Option<(DVec3, [f64; 4])> {
    let m0 = c.m[0];
    match c.n {
        1 => Some((m0, [1.0, 0.0, 0.0, 0.0])),
        2 => {
            let e = c.m[1] - m0;
            let l2 = e.length_squared();
            if !(l2 > 0.0) {
                return None;
            }
            let t = -m0.dot(e) / l2;
            Some((m0 + e * t, [1.0 - t, t, 0.0, 0.0]))
        }
        3 => {
            let (m1, m2) = (c.m[1], c.m[2]);
            let n = (m1 - m0).cross(m2 - m0);
            let l2 = n.length_squared();
            if !(l2 > 0.0) || !l2.is_finite() {
                return None;
            }
            // Projection of the origin on the plane: more accurate than a weighted sum.
            let y = n * (n.dot(m0) / l2);
            let a0 = n.dot((m1 - y).cross(m2 - y)) / l2;
            let a1 = n.dot((m2 - y).cross(m0 - y)) / l2;
            let a2 = n.dot((m0 - y).cross(m1 - y)) / l2;
            let s = a0 + a1 + a2;
            if !(s > 0.0) {
                return None;
            }
            Some((y, [a0 / s, a1 / s, a2 / s, 0.0]))
        }
        _ => {
            let (m1, m2, m3) = (c.m[1], c.m[2], c.m[3]);
            let vol = (m1 - m0).dot((m2 - m0).cross(m3 - m0));
            if !(vol.abs() > 0.0) || !vol.is_finite() {
                return None;
            }
            let o = DVec3::ZERO;
            let v0 = (m1 - o).dot((m2 - o).cross(m3 - o));
            let v1 = (o - m0).dot((m2 - m0).cross(m3 - m0));
            let v2 = (m1 - m0).dot((o - m0).cross(m3 - m0));
            let v3 = (m1 - m0).dot((m2 - m0).cross(o - m0));
            let s = v0 + v1 + v2 + v3;
            if !(s.abs() > 0.0) {
                return None;
            }
            Some((DVec3::ZERO, [v0 / s, v1 / s, v2 / s, v3 / s]))
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum End {
    /// Duality gap below tolerance (or ‖x‖ itself below it).
    Optimal,
    /// The corral is a tetrahedron containing the origin.
    Inside,
    /// No further decrease possible; `gap` says how good the answer is.
    Stalled,
    /// Iteration cap.
    Limit,
}

/// How a Wolfe run ended (its corral is the caller's, updated in place).
pub(super) struct MnpOut {
    pub(super) end: End,
    pub(super) iterations: u32,
    /// Duality gap in distance units (upper − lower bound on the distance) when known.
    pub(super) gap: f64,
}

/// Wolfe's minimum-norm-point algorithm over M (shrunk by `s`), from `seed`; the final
/// corral is left in `c`.
pub(super) fn mnp<S: PairSupport>(sup: &mut S, seed: &SupPt, s: f64, gap_abs: f64, c: &mut Corral) -> MnpOut {
    // Only the first slot is read until a point is pushed.
    let m = seed.a - seed.b;
    c.m[0] = m;
    c.id[0] = (seed.ia, seed.ib);
    c.w = [1.0, 0.0, 0.0, 0.0];
    c.n = 1;
    c.x = m;
    let mut iterations = 0u32;
    // Consecutive major cycles settled by a tie (no strict decrease of ‖x‖).
    let mut flat = 0u32;
    let out = |end, iterations, gap| MnpOut { end, iterations, gap };
    loop {
        if iterations >= MAX_ITERATIONS {
            return out(End::Limit, iterations, f64::INFINITY);
        }
        iterations += 1;
        let xx = c.x.length_squared();
        let xn = xx.sqrt();
        if !xn.is_finite() {
            return out(End::Limit, iterations, f64::INFINITY);
        }
        if xn <= gap_abs {
            return out(End::Optimal, iterations, xn);
        }
        let p = sup.support(-c.x, s);
        let pm = p.a - p.b;
        let gap2 = xx - c.x.dot(pm);
        let gap = gap2.max(0.0) / xn;
        if gap <= gap_abs {
            return out(End::Optimal, iterations, gap);
        }
        if c.id[..c.n].contains(&(p.ia, p.ib)) {
            return out(End::Stalled, iterations, gap);
        }
        // The corral before this cycle, for a stall: until a minor cycle drops a point it is
        // `c` without the pushed point and with the saved weights and `x` (no copy of the
        // points); a full copy is taken only before the first drop.
        let (old_n, old_w, old_x) = (c.n, c.w, c.x);
        let mut saved: Option<Corral> = None;
        c.m[c.n] = pm;
        c.id[c.n] = (p.ia, p.ib);
        c.w[c.n] = 0.0;
        c.n += 1;
        let mut settled = false;
        let mut tie = false;
        // Rounding of a norm computed from these points: a few ulps of their coordinates (not
        // of ‖x‖, which near contact is far smaller than they are).
        let no_worse = |c: &Corral, v: DVec3| {
            let round = 64.0 * f64::EPSILON * c.m[..c.n].iter().fold(0.0f64, |m, q| m.max(q.abs().max_element()));
            v.length() <= xn + round
        };
        // Each minor cycle drops at least one point, and a single point is always settled.
        for minor in 0..5 {
            let Some((y, alpha)) = affine_min(c) else {
                break;
            };
            if alpha[..c.n].iter().all(|&a| a > 0.0) {
                // Refined as in GJK: near contact the affine minimiser's direction is only as
                // good as the coordinates' rounding, and the duality gap reads that direction.
                c.x = crate::core::geometry::refine_nearest(&[c.m[0], c.m[1], c.m[2]], c.n, y);
                c.w = alpha;
                settled = true;
                break;
            }
            // A tie within rounding (module docs): the new point's affine hull holds a point
            // no farther than `x` whose weights are non-negative up to rounding. Taking it
            // keeps the larger face, whose plane gives `x` an exact direction — without it a
            // nearest point at a vertex of `M` a hair from the origin keeps that vertex's
            // rounded direction and the gap can never close (kissing cubes in rotated frames).
            if minor == 0
                && c.n <= 3
                && flat < MAX_TIE_STEPS
                && alpha[..c.n].iter().all(|&a| a >= -WEIGHT_TIE)
                && no_worse(c, y)
            {
                let mut w = alpha;
                for wk in &mut w[..c.n] {
                    *wk = wk.max(0.0);
                }
                let sum: f64 = w[..c.n].iter().sum();
                if sum > 0.0 {
                    for wk in &mut w[..c.n] {
                        *wk /= sum;
                    }
                    c.x = crate::core::geometry::refine_nearest(&[c.m[0], c.m[1], c.m[2]], c.n, y);
                    c.w = w;
                    settled = true;
                    tie = true;
                    break;
                }
            }
            let mut theta = 1.0f64;
            let mut drop = usize::MAX;
            for (k, (&ak, &wk)) in alpha.iter().zip(c.w.iter()).enumerate().take(c.n) {
                if ak <= 0.0 {
                    let den = wk - ak;
                    let t = if den > 0.0 { wk / den } else { 0.0 };
                    if t < theta || drop == usize::MAX {
                        theta = t.min(theta);
                        drop = k;
                    }
                }
            }
            if saved.is_none() {
                let mut o = *c;
                o.n = old_n;
                o.w = old_w;
                o.x = old_x;
                saved = Some(o);
            }
            for (wk, &ak) in c.w.iter_mut().zip(alpha.iter()).take(c.n) {
                *wk = (1.0 - theta) * *wk + theta * ak;
            }
            if drop < c.n {
                c.w[drop] = 0.0;
            }
            c.compact();
            if c.n == 0 {
                break;
            }
        }
        // A settled corral without strict decrease is a tie too (equal norms within rounding
        // while the larger face sharpens the direction), within the same bound.
        if settled && !tie && c.x.length_squared() >= xx {
            tie = flat < MAX_TIE_STEPS && no_worse(c, c.x);
        }
        if !settled || (!tie && c.x.length_squared() >= xx) {
            match saved {
                Some(o) => *c = o,
                None => {
                    c.n = old_n;
                    c.w = old_w;
                    c.x = old_x;
                }
            }
            return out(End::Stalled, iterations, gap);
        }
        flat = if tie { flat + 1 } else { 0 };
        if c.n == 4 {
            c.x = DVec3::ZERO;
            return out(End::Inside, iterations, 0.0);
        }
    }
}
