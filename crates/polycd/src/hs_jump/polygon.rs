//! The spherical convex polygon `SCP = ∩ HS(d_j)` (§5): clipping by a new hemisphere, the
//! collision certificate when it empties, interior points (the auxiliary rule, §6) and the
//! candidates that replace far-outside reflections (module docs: *Invariants*, *Departures*).

use super::nearest::nearest;
use super::signs::{det_sign, dot_sign, origin_in_hull, parallel, plane_normal};
use super::{Frame, HsJumpCache};
use crate::contract::Intersection;
use crate::core::math::{DVec3, Plane, Pose};

/// Result of adding a hemisphere to the spherical polygon.
pub(super) enum Added {
    /// Still non-empty.
    Open,
    /// Empty: these constraint indices (1..=4 of them) have the origin in their hull; the
    /// [`Proof`] says whether exact signs have already verified that.
    Empty([u32; 4], u8, Proof),
}

/// Whether an emptiness certificate has been verified by exact signs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Proof {
    /// Verified (the fan certificate, or a quadruple checked from scratch).
    Verified,
    /// Not yet: the caller verifies it before answering.
    Unverified,
}

/// A reflected candidate `S` with `û·S < −FAR_OUTSIDE·|S|` for an edge normal `û` of SCP
/// (more than asin 0.1 ≈ 5.7° beyond that edge) is replaced by a centre of SCP
/// (`HsJumpCache::centre`). Only the choice of candidates depends on it. Measured
/// (instructions per query, §9 sweep poses, cold, n = 1 000), 0.05 / 0.1 / 0.2 / 0.3:
/// 200:180:180 at l = −3: 6 416 / 6 327 / 6 191 / 6 328, at l = −1: 6 817 / 6 577 / 6 673 /
/// 6 604 (l ≤ −10 the same for all: 5 440 at −40, 5 540 at −10); needles 200:20:20 at
/// l = −1: 11 405 / 12 578 / 14 212 / 17 140; 200:100:100 at l = −0.01: 9 999 / 10 290 /
/// 10 552 / 10 625. 0 (every reflection outside SCP) costs 7 350 at l = −1 on 200:180:180.
const FAR_OUTSIDE: f64 = 0.1;

impl HsJumpCache {
    #[inline]
    pub(super) fn d(&self, c: u32) -> DVec3 {
        self.cons[c as usize].d
    }
    #[inline]
    fn u(&self, c: u32) -> DVec3 {
        self.cons[c as usize].u
    }

    /// Intersects SCP with the open hemisphere of constraint `c` (already pushed).
    pub(super) fn add(&mut self, c: u32) -> Added {
        let dc = self.d(c);
        match self.edges.len() {
            0 => {
                self.edges.push(c);
                Added::Open
            }
            1 => {
                let a = self.edges[0];
                let da = self.d(a);
                if parallel(da, dc) {
                    if dot_sign(da, dc) > 0 {
                        return Added::Open; // same hemisphere
                    }
                    return Added::Empty([a, c, 0, 0], 2, Proof::Unverified);
                }
                self.edges.push(c);
                Added::Open
            }
            2 => self.add_to_lune(c),
            _ => self.add_to_polygon(c),
        }
    }

    fn add_to_lune(&mut self, c: u32) -> Added {
        let (a, b) = (self.edges[0], self.edges[1]);
        let (da, db, dc) = (self.d(a), self.d(b), self.d(c));
        match det_sign(da, db, dc) {
            1 => {
                self.edges.clear();
                self.edges.extend_from_slice(&[a, b, c]);
                Added::Open
            }
            -1 => {
                self.edges.clear();
                self.edges.extend_from_slice(&[b, a, c]);
                Added::Open
            }
            _ => {
                // c in the plane of a and b: a 2-D problem in that plane.
                let n = plane_normal(da, db);
                let w = det_sign(da, db, n);
                let s1 = det_sign(da, dc, n);
                let s2 = det_sign(dc, db, n);
                let within = |s: i8, t: i8| s == t || s == 0;
                if within(s1, w) && within(s2, w) {
                    return Added::Open; // c ∈ cone(a, b): redundant
                }
                if within(s1, -w) && within(s2, -w) {
                    // −c ∈ cone(a, b): 0 ∈ conv{a, b, c}.
                    return if s1 == 0 {
                        Added::Empty([a, c, 0, 0], 2, Proof::Unverified)
                    } else if s2 == 0 {
                        Added::Empty([b, c, 0, 0], 2, Proof::Unverified)
                    } else {
                        Added::Empty([a, b, c, 0], 3, Proof::Unverified)
                    };
                }
                // c lies outside both cones: it replaces the edge it overtakes.
                self.edges.clear();
                if s1 == w {
                    self.edges.extend_from_slice(&[a, c]);
                } else {
                    self.edges.extend_from_slice(&[b, c]);
                }
                Added::Open
            }
        }
    }

    fn add_to_polygon(&mut self, c: u32) -> Added {
        let dc = self.d(c);
        let m = self.edges.len();
        // Cyclic successor without a division.
        let next = |i: usize| if i + 1 == m { 0 } else { i + 1 };
        self.signs.clear();
        let (mut pos, mut neg) = (0usize, 0usize);
        let mut x = self.d(self.edges[0]);
        for i in 0..m {
            let y = self.d(self.edges[next(i)]);
            let s = det_sign(x, y, dc);
            pos += (s > 0) as usize;
            neg += (s < 0) as usize;
            self.signs.push(s);
            x = y;
        }
        if pos == 0 {
            return self.fan_certificate(c);
        }
        if neg == 0 {
            return Added::Open; // the whole closed polygon is in the closed hemisphere
        }
        // Start of the (unique, by convexity) cyclic run of strictly positive vertices.
        let mut prev = self.signs[m - 1];
        let mut start = None;
        for i in 0..m {
            let s = self.signs[i];
            if s > 0 && prev <= 0 {
                start = Some(i);
                break;
            }
            prev = s;
        }
        let Some(start) = start else {
            return Added::Open;
        };
        let mut end = start;
        while self.signs[next(end)] > 0 {
            end = next(end);
        }
        // Kept edges: e_start ..= e_{end+1}.
        let stop = next(end);
        self.scratch.clear();
        let mut i = start;
        loop {
            self.scratch.push(self.edges[i]);
            if i == stop {
                break;
            }
            i = next(i);
        }
        self.scratch.push(c);
        std::mem::swap(&mut self.edges, &mut self.scratch);
        Added::Open
    }

    /// The polygon lies in `{d_c·x ≤ 0}`: `−d_c` is in the cone of the edge normals; find a fan
    /// triangle `(e₀, e_j, e_{j+1})` containing it (Carathéodory), verified exactly.
    ///
    /// `self.signs[i] = det[d_{e_i}, d_{e_{i+1}}, d_c]` (all ≤ 0 here) are the exact signs the
    /// clip just computed. With `u_j = det[d_{e₀}, d_{e_j}, d_c]` (`u_1 = signs[0]`,
    /// `u_{m−1} = −signs[m−1]`), the four vectors `(e₀, e_j, e_{j+1}, c)` contain the origin in
    /// their hull when `det[e₀, e_j, e_{j+1}] > 0`, `u_j ≤ 0` and `u_{j+1} ≥ 0` (the test of
    /// [`origin_in_hull`] for four vectors, term by term: `−c` in the cone of the triangle).
    /// The sequence `u` goes from ≤ 0 to ≥ 0, so a sign change exists; the triangle's own
    /// orientation (positive by convexity) is the one new determinant. Any sign that does not
    /// come out as expected falls back to verifying candidate quadruples from scratch.
    fn fan_certificate(&self, c: u32) -> Added {
        let m = self.edges.len();
        let e = &self.edges;
        let dc = self.d(c);
        let d0 = self.d(e[0]);
        let u = |j: usize| -> i8 {
            if j == 1 {
                self.signs[0]
            } else if j == m - 1 {
                -self.signs[m - 1]
            } else {
                det_sign(d0, self.d(e[j]), dc)
            }
        };
        let mut uj = u(1);
        for j in 1..m - 1 {
            let un = u(j + 1);
            if uj <= 0 && un >= 0 {
                if det_sign(d0, self.d(e[j]), self.d(e[j + 1])) > 0 && self.signs[j] <= 0 {
                    return Added::Empty([e[0], e[j], e[j + 1], c], 4, Proof::Verified);
                }
                break;
            }
            uj = un;
        }
        // Defensive: every fan triangle, then any triple of edges, verified from scratch
        // (cannot be needed with exact signs and a convex polygon).
        for j in 1..m.saturating_sub(1) {
            let ids = [e[0], e[j], e[j + 1], c];
            if self.certifies(&ids) {
                return Added::Empty(ids, 4, Proof::Verified);
            }
        }
        for i in 0..m {
            for j in i + 1..m {
                for k in j + 1..m {
                    let ids = [e[i], e[j], e[k], c];
                    if self.certifies(&ids) {
                        return Added::Empty(ids, 4, Proof::Verified);
                    }
                }
            }
        }
        Added::Empty([c, 0, 0, 0], 0, Proof::Unverified)
    }

    pub(super) fn certifies(&self, ids: &[u32]) -> bool {
        let mut p = [DVec3::ZERO; 4];
        for (k, &i) in ids.iter().enumerate().take(4) {
            p[k] = self.d(i);
        }
        origin_in_hull(&p[..ids.len().min(4)])
    }

    /// Is `w` strictly inside every hemisphere added so far (exact)?
    fn inside_all(&self, w: DVec3) -> bool {
        w.is_finite() && self.cons.iter().all(|k| dot_sign(k.d, w) > 0)
    }

    /// A direction strictly inside SCP (exactly verified), or `None` if none is found.
    ///
    /// First the direction of largest margin ([`max_margin`](Self::max_margin)); then, if
    /// rounding put it outside (a margin within rounding of zero), the vertex-weighted
    /// direction, repaired.
    pub(super) fn interior_point(&self) -> Option<DVec3> {
        let w = self.max_margin().normalize_or_zero();
        if w != DVec3::ZERO && self.inside_all(w) {
            return Some(w);
        }
        let mut w = self.approx_interior();
        // Repair: the formula's point can miss a polygon thinner than its rounding (nearly
        // antiparallel edge normals make the vertex cross products inaccurate across the
        // sliver, while positions *along* it stay accurate). Move along the first violated
        // normal and bisect, with exact signs, for a point inside every hemisphere.
        w = w.normalize_or_zero();
        for _round in 0..4 {
            let Some(k) = self.cons.iter().position(|k| dot_sign(k.d, w) <= 0) else {
                return (w != DVec3::ZERO && w.is_finite()).then_some(w);
            };
            let dk = self.cons[k].d;
            let step = dk.normalize_or_zero();
            let (mut lo, mut hi) = (0.0f64, 2.0f64);
            let mut best = None;
            for _ in 0..80 {
                let t = 0.5 * (lo + hi);
                let x = w + step * t;
                if dot_sign(dk, x) <= 0 {
                    lo = t;
                } else {
                    if self.inside_all(x) {
                        return Some(x);
                    }
                    best = Some(x);
                    hi = t;
                }
            }
            w = best?;
        }
        None
    }

    /// The direction `x` of SCP's largest angular margin, `max_{|x| = 1} min_e û_e·x` over
    /// its edge normals `û_e` (unverified; zero when the iteration fails). By the duality the
    /// distance climb uses (`distance`'s module header), the maximiser is the minimum-norm
    /// point `w` of `conv{û_e}`, normalised, and the margin is `|w|`: the centre of SCP's
    /// inscribed circle. A polygon whose vertices are nearly antipodal (a long sliver lune:
    /// every pair vector nearly in one plane, as for parallel edges 4.7e-4 apart) has a
    /// vertex-weighted sum of cancelling, inaccurate vertex directions, but a margin far
    /// above rounding at its inscribed centre; there the candidate is inside by that margin.
    ///
    /// Gilbert's minimum-norm-point iteration over the finite set `{û_e}`: the support is the
    /// `û_e` least along `w`; the sub-hull's minimum-norm point ([`nearest`]) replaces `w` when
    /// strictly shorter; the loop stops when the support is already held or nothing shortens
    /// (its fixed point), and runs at most `4·m + 8` rounds for `m` edges (each round strictly
    /// shortens `w`, so no sub-hull repeats; the bound only guards against rounding).
    pub(super) fn max_margin(&self) -> DVec3 {
        let m = self.edges.len();
        if m < 2 {
            return self.approx_interior();
        }
        let mut pts = [DVec3::ZERO; 4];
        pts[0] = self.u(self.edges[0]);
        let mut n = 1usize;
        let mut w = pts[0];
        for _ in 0..4 * m + 8 {
            let ww = w.length_squared();
            if !(ww > 0.0) || !ww.is_finite() {
                return DVec3::ZERO;
            }
            let mut v = pts[0];
            let mut low = f64::INFINITY;
            for &e in &self.edges {
                let u = self.u(e);
                let x = u.dot(w);
                if x < low {
                    low = x;
                    v = u;
                }
            }
            if !(low < ww) || pts[..n].contains(&v) {
                break;
            }
            pts[n] = v;
            let (_, idx, len, w2) = nearest(&pts[..n + 1]);
            if !(w2.length_squared() < ww) {
                break;
            }
            let kept = [pts[idx[0]], pts[idx[1]], pts[idx[2]]];
            pts[..len].copy_from_slice(&kept[..len]);
            n = len;
            w = w2;
        }
        w
    }

    /// Is `s` (a reflected candidate) far outside SCP: `û_e·s < −FAR_OUTSIDE·|s|` for one of
    /// its edges `e` (float test: it only chooses the candidate)? Never for the whole sphere
    /// or a hemisphere (the reflection lies inside the newest hemisphere).
    #[inline]
    pub(super) fn far_outside(&self, s: DVec3) -> bool {
        if self.edges.len() < 2 {
            return false;
        }
        let lim = -FAR_OUTSIDE * s.length();
        self.edges.iter().any(|&e| self.u(e).dot(s) < lim)
    }

    /// The candidate that replaces a reflection far outside SCP (see `FAR_OUTSIDE`): for a
    /// polygon, the sum of its unit vertex directions (every vertex weighs the same, so the
    /// cut through the candidate reaches sharp corners too: measured, 4.09 instead of 4.25
    /// iterations at l = −10 on the §9 poses against the sine weights of
    /// [`approx_interior`](Self::approx_interior)); for a lune, its mid-line point. Unverified.
    pub(super) fn centre(&self) -> DVec3 {
        let m = self.edges.len();
        if m < 3 {
            return self.approx_interior();
        }
        let mut s = DVec3::ZERO;
        let mut x = self.u(self.edges[m - 1]);
        for &e in &self.edges {
            let y = self.u(e);
            let v = x.cross(y);
            let l2 = v.length_squared();
            if l2 > 0.0 {
                s += v * (1.0 / l2.sqrt());
            }
            x = y;
        }
        s
    }

    /// An approximate interior direction (weighted sum of the vertex directions; unverified).
    fn approx_interior(&self) -> DVec3 {
        let m = self.edges.len();
        match m {
            0 => DVec3::X,
            1 => self.d(self.edges[0]),
            2 => {
                let (a, b) = (self.d(self.edges[0]), self.d(self.edges[1]));
                let (ua, ub) = (self.u(self.edges[0]), self.u(self.edges[1]));
                let mid = ua + ub;
                if mid.length() > crate::core::tolerance::ANTIPODAL_SUM_MIN {
                    mid
                } else {
                    // Nearly antiparallel: the bisector as a cross product is better conditioned.
                    let w = a.cross(b).cross(ua - ub);
                    if w.dot(mid) < 0.0 {
                        -w
                    } else {
                        w
                    }
                }
            }
            _ => {
                // Vertex directions weighted by the sine between their edge normals: a vertex of
                // nearly (anti)parallel normals has an inaccurate direction (error ≈ ε/sin) and
                // gets a proportionally small weight.
                let mut s = DVec3::ZERO;
                let mut x = self.u(self.edges[m - 1]);
                for &e in &self.edges {
                    let y = self.u(e);
                    s += x.cross(y);
                    x = y;
                }
                s
            }
        }
    }

    /// The SCP is non-empty but no float direction inside it could be certified: the pair is
    /// within rounding of contact. Certify `Touching` when both bounds hold: the penetration
    /// depth is at most `−ŵ·d` for an approximate interior direction `ŵ` and its supporting
    /// pair, and the distance is at most the norm of the nearest point of `conv{d_e}` over the
    /// polygon's edge vectors (brute force over their triangles: rare path, few edges).
    pub(super) fn touching(&self, f: &Frame, pa: &Pose, tol: f64, iterations: u32) -> Intersection {
        let nc = Intersection::NotConverged { iterations };
        let w = self.approx_interior().normalize_or_zero();
        if w == DVec3::ZERO || !w.is_finite() {
            return nc;
        }
        let pair = f.support(w);
        let (p, q) = (f.a.vertex(pair.0), f.b_point(pair.1));
        let depth = -w.dot(q - p);
        if !(depth <= tol) {
            return nc;
        }
        let e = &self.edges;
        let m = e.len().min(8);
        let mut best: Option<(f64, DVec3)> = None;
        let mut consider = |ids: &[u32], wts: &[f64]| {
            let mut pt = DVec3::ZERO;
            let mut mid = DVec3::ZERO;
            for (&i, &wt) in ids.iter().zip(wts) {
                let c = &self.cons[i as usize];
                pt += c.d * wt;
                mid += (f.a.vertex(c.pair.0) + f.b_point(c.pair.1)) * (0.5 * wt);
            }
            let n = pt.length();
            if best.is_none_or(|(b, _)| n < b) {
                best = Some((n, mid));
            }
        };
        for i in 0..m {
            consider(&[e[i]], &[1.0]);
            for j in i + 1..m {
                let (x, y) = (self.d(e[i]), self.d(e[j]));
                let t = segment_param(x, y);
                consider(&[e[i], e[j]], &[1.0 - t, t]);
                for k in j + 1..m {
                    if let Some((u, v)) = triangle_params(x, y, self.d(e[k])) {
                        consider(&[e[i], e[j], e[k]], &[1.0 - u - v, u, v]);
                    }
                }
            }
        }
        match best {
            Some((dist, mid)) if dist <= tol => {
                let plane = Plane {
                    normal: w,
                    offset: 0.5 * (w.dot(p) + w.dot(q)),
                }
                .transformed(pa);
                Intersection::Touching {
                    point: pa.transform_point(mid),
                    plane,
                    iterations,
                }
            }
            _ => nc,
        }
    }
}

/// Parameter of the point of segment `[x, y]` nearest the origin.
fn segment_param(x: DVec3, y: DVec3) -> f64 {
    let e = y - x;
    let l = e.length_squared();
    if !(l > 0.0) {
        return 0.0;
    }
    (-x.dot(e) / l).clamp(0.0, 1.0)
}

/// Barycentric `(u, v)` of the origin's projection on the plane of triangle `x, y, z`, when it
/// falls inside the triangle (the boundary cases are covered by the segments).
fn triangle_params(x: DVec3, y: DVec3, z: DVec3) -> Option<(f64, f64)> {
    let (e1, e2) = (y - x, z - x);
    let (a11, a12, a22) = (e1.dot(e1), e1.dot(e2), e2.dot(e2));
    let (b1, b2) = (-x.dot(e1), -x.dot(e2));
    let det = a11 * a22 - a12 * a12;
    if !(det > 0.0) {
        return None;
    }
    let u = (b1 * a22 - b2 * a12) / det;
    let v = (a11 * b2 - a12 * b1) / det;
    (u >= 0.0 && v >= 0.0 && u + v <= 1.0).then_some((u, v))
}

#[cfg(test)]
mod tests {
    use super::super::Con;
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Random constraint sets (small integers: many exact degeneracies, and general floats):
    /// after every addition, a non-empty polygon yields an exactly verified interior point and
    /// an empty one an exactly verified certificate — both outcomes are self-certifying.
    #[test]
    fn polygon_answers_are_certified() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut cache = HsJumpCache::default();
        let (mut empties, mut opens) = (0, 0);
        for trial in 0..20_000 {
            cache.begin(1, 1);
            let ints = trial % 2 == 0;
            for _ in 0..12 {
                let d = if ints {
                    DVec3::new(
                        rng.random_range(-2..=2) as f64,
                        rng.random_range(-2..=2) as f64,
                        rng.random_range(-2..=2) as f64,
                    )
                } else {
                    crate::shape::shapes::unit_vector(&mut rng)
                };
                if d == DVec3::ZERO {
                    continue;
                }
                cache.cons.push(Con::new(d, (0, 0)));
                let c = (cache.cons.len() - 1) as u32;
                match cache.add(c) {
                    Added::Open => {
                        let w = cache.interior_point();
                        assert!(w.is_some(), "trial {trial}: no interior point");
                        opens += 1;
                    }
                    Added::Empty(ids, len, _) => {
                        assert!(len > 0 && cache.certifies(&ids[..len as usize]), "trial {trial}");
                        empties += 1;
                        break;
                    }
                }
            }
        }
        assert!(empties > 1000 && opens > 1000, "{empties} {opens}");
    }

    /// Sliver polygons (issue 24 item 3, "edges 373": parallel edges 4.7e-4 apart give pair
    /// vectors nearly in one plane): constraint vectors within 1e-16 … 1e-9 (relative) of a
    /// plane, spread over a half-plane that leaves a margin `sin μ` (μ = 1e-6 … 0.1) around an
    /// in-plane axis. The polygon's vertices are then nearly antipodal; the inscribed centre
    /// (`max_margin`) must be inside SCP by exact signs, and `interior_point` must succeed.
    #[test]
    fn sliver_polygons_have_interior_points() {
        let mut rng = ChaCha8Rng::seed_from_u64(373);
        let mut cache = HsJumpCache::default();
        let mut polygons = 0;
        for trial in 0..5_000 {
            cache.begin(1, 1);
            let n = crate::shape::shapes::unit_vector(&mut rng);
            let a = n.any_orthonormal_vector();
            let b = n.cross(a);
            let mu = 10f64.powf(-rng.random_range(1.0..6.0));
            let noise = 10f64.powf(-rng.random_range(9.0..16.0));
            let k = rng.random_range(3..10);
            let mut open = true;
            for j in 0..k {
                // The extreme angles first, so the sliver is at its thinnest from the start.
                let half = std::f64::consts::FRAC_PI_2 - mu;
                let t = match j {
                    0 => half,
                    1 => -half,
                    _ => rng.random_range(-half..half),
                };
                let len = 10f64.powf(rng.random_range(-3.0..3.0));
                let d = (a * t.cos() + b * t.sin() + n * (noise * rng.random_range(-1.0..1.0))) * len;
                cache.cons.push(Con::new(d, (j, 0)));
                let c = (cache.cons.len() - 1) as u32;
                open &= matches!(cache.add(c), Added::Open);
            }
            assert!(open, "trial {trial}: emptied, but the axis is inside by {mu:e}");
            if cache.edges.len() >= 3 {
                polygons += 1;
            }
            let w = cache.max_margin().normalize_or_zero();
            assert!(
                cache.inside_all(w),
                "trial {trial}: inscribed centre {w:?} outside (margin {mu:e}, noise {noise:e})"
            );
            assert!(cache.interior_point().is_some(), "trial {trial}");
        }
        assert!(polygons > 1_000, "{polygons}");
    }
}
