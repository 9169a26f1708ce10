//! GJK's simplex, its nearest point to the origin (the sub-algorithm) and the GJK iteration
//! over `M = A − B`.
//!
//! Sub-algorithm: instead of Johnson's recursive determinant test, every face of the (≤ 4
//! point) simplex is tried: the origin's projection on its affine hull, with barycentric
//! coordinates computed from cross products of vectors *relative to the projection* (so they
//! carry the size of the face, not of the coordinates), is a candidate when all coordinates are
//! positive; the candidate of least norm wins (vertices are always candidates; after a
//! support step only faces containing the new point are tried, as in exact arithmetic the
//! answer lies on one of them, and a rounding-induced increase is a stall). Within 16 ulps
//! of `|v|²` candidates count as tied and the one containing the newest support point, then
//! the larger face, wins: near-parallel faces of `M` (V-Clip's degeneracy test) change `v`'s
//! *direction* by more than they change its norm, and only that keeps the iteration moving.
//! The winner is then refined once (its components along the face's edge vectors are
//! projected out): near contact `|v|` is tiny while its rounding is of the order of the
//! coordinates, and the refinement restores the direction that the support gap and the
//! separating plane depend on. In exact arithmetic this is the unique Voronoi-region answer;
//! under rounding it is still (to rounding) a point of the hull, so `|v|` stays an upper bound.
//! Shortcut: when the whole simplex's own candidate exists (the projection strictly inside
//! the segment or triangle, or inside a tetrahedron face the origin sees) it is the nearest
//! point outright and the enumeration is skipped. After a support step the tetrahedron's
//! enclosure test runs only when no face through the new point sees the origin (the old face
//! never does then), instead of before every face.
//!
//! Cold start (a distance query on two hulls with direction tables): besides the support along
//! the centre line, up to three supports whose directions are turned by Newton steps on the
//! support map of a ball about `M`'s centre through the origin (`turned_start`), the second
//! and third at the rate the last two supports measure (a secant step, `secant_rate`); the
//! start simplex then already spans the region of `M` nearest the origin.
//!
//! The iteration's warm start is dropped (cold start along the centre line) when B has turned
//! by more than `STALE_TURN_REL` × the vertex spacing relative to A since the cached query,
//! where the old simplex costs more iterations than it saves.

use super::minkowski::{Ctx, SVert};
use super::small::Small;
use super::{GjkCache, MAX_FLAT_STEPS};
use crate::contract::MinkowskiSimplex;
use crate::core::math::DVec3;
use crate::core::tolerance::{ACCEPT_GAP_REL, DISTANCE_GAP_REL, WEIGHT_TIE};

/// Relative rotation since the cached query beyond which the cached simplex is dropped and
/// the query starts cold, as a fraction of the shapes' angular vertex spacing `√(4π / n)` (n
/// the larger vertex count). A simplex of vertex pairs is a good start only while the pairs
/// stay near the supports, and rotation is what moves the supports (a translation moves all of
/// `M` rigidly) — by about one vertex per spacing turned. Measured on the V-Clip coherence
/// workload (`bench coherence`, with the direction-table cold start) the warm start stops
/// paying beyond about 3° per step on the 642-vertex sphere (spacing 8°), ~6–10° on the
/// 120-vertex disk (19°) and ~20° on the cube (72°): 0.3 of the spacing in each case. Not a
/// tolerance: it only picks the start, never an answer.
const STALE_TURN_REL: f64 = 0.3;

/// GJK's climbs start from the last supports instead of the direction table when the search
/// direction has turned by less than `acos(WARM_COS)` (2.6°) since the previous step (both
/// shapes with tables; small hulls always scan). Measured (callgrind, random 1 000-vertex
/// pairs, separated): 0.9999 / 0.999 / 0.99 / 0.95 → 8 036 / 7 875 / 7 987 / 8 405
/// instructions per query against 8 220 with the table always; overlapping pairs unchanged
/// (their directions jump). Not a tolerance: it only picks where a climb starts.
const WARM_COS: f64 = 0.999;

/// A simplex of up to four Minkowski vertices with the barycentric weights of its nearest point.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Simplex {
    pub(super) v: [SVert; 4],
    pub(super) lam: [f64; 4],
    pub(super) n: usize,
}

impl Simplex {
    pub(super) fn contains(&self, ia: u32, ib: u32) -> bool {
        self.v[..self.n].iter().any(|s| s.ia == ia && s.ib == ib)
    }
    pub(super) fn push(&mut self, s: SVert) {
        if self.n < 4 {
            self.v[self.n] = s;
            self.lam[self.n] = 0.0;
            self.n += 1;
        }
    }
    pub(super) fn points(&self, ctx: &Ctx) -> (DVec3, DVec3) {
        let mut pa = DVec3::ZERO;
        let mut pb = DVec3::ZERO;
        for k in 0..self.n {
            pa += ctx.pa(&self.v[k]) * self.lam[k];
            pb += ctx.pb(&self.v[k]) * self.lam[k];
        }
        (pa, pb)
    }
    pub(super) fn witness(&self) -> MinkowskiSimplex {
        let mut pairs = [(0u32, 0u32); 4];
        for (k, p) in pairs.iter_mut().enumerate().take(self.n) {
            *p = (self.v[k].ia, self.v[k].ib);
        }
        MinkowskiSimplex {
            pairs,
            len: self.n as u8,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sub-algorithm
// ---------------------------------------------------------------------------------------------

/// Projection of the origin on segment `p0 p1` if it falls strictly inside: (λ0, λ1, point).
#[inline]
fn seg_candidate(p0: DVec3, p1: DVec3) -> Option<([f64; 2], DVec3)> {
    let e = p1 - p0;
    let ee = e.length_squared();
    if !(ee > 0.0) {
        return None;
    }
    let t = -p0.dot(e) / ee;
    if !(t > 0.0 && t < 1.0) {
        return None;
    }
    Some(([1.0 - t, t], p0 + e * t))
}

/// The origin's foot `q` on the plane of triangle `p0 p1 p2` with its unnormalised
/// barycentric coordinates (cross products relative to `q`, along `n = (p1 − p0) × (p2 − p0)`)
/// and `|n|²`; `None` for a degenerate triangle.
#[inline]
fn tri_foot(p0: DVec3, p1: DVec3, p2: DVec3) -> Option<([f64; 3], f64, DVec3)> {
    tri_foot_n(p0, p1, p2, (p1 - p0).cross(p2 - p0))
}

/// [`tri_foot`] with the normal `n = (p1 − p0) × (p2 − p0)` already computed.
#[inline]
fn tri_foot_n(p0: DVec3, p1: DVec3, p2: DVec3, n: DVec3) -> Option<([f64; 3], f64, DVec3)> {
    let nn = n.length_squared();
    if !(nn > 0.0) || !nn.is_finite() {
        return None;
    }
    let q = n * (n.dot(p0) / nn);
    let (a, b, c) = (p0 - q, p1 - q, p2 - q);
    Some(([n.dot(b.cross(c)), n.dot(c.cross(a)), n.dot(a.cross(b))], nn, q))
}

/// The foot of [`tri_foot`] as a candidate when it falls strictly inside the triangle.
#[inline]
fn tri_strict(l: [f64; 3], q: DVec3) -> Option<([f64; 3], DVec3)> {
    let [l0, l1, l2] = l;
    if !(l0 > 0.0 && l1 > 0.0 && l2 > 0.0) {
        return None;
    }
    let s = l0 + l1 + l2;
    Some(([l0 / s, l1 / s, l2 / s], q))
}

/// Projection of the origin on triangle `p0 p1 p2` if it falls strictly inside.
#[inline]
fn tri_candidate(p0: DVec3, p1: DVec3, p2: DVec3) -> Option<([f64; 3], DVec3)> {
    let (l, _, q) = tri_foot(p0, p1, p2)?;
    tri_strict(l, q)
}

/// The foot of [`tri_foot`] as a candidate when it lies inside the triangle up to rounding
/// (every barycentric weight ≥ −[`WEIGHT_TIE`]); weights clamped to ≥ 0.
fn tri_tied(l: [f64; 3], nn: f64, q: DVec3) -> Option<([f64; 3], DVec3)> {
    let l = [l[0] / nn, l[1] / nn, l[2] / nn];
    if !l.iter().all(|x| *x >= -WEIGHT_TIE) {
        return None;
    }
    let l = [l[0].max(0.0), l[1].max(0.0), l[2].max(0.0)];
    let s = l[0] + l[1] + l[2];
    if !(s > 0.0) {
        return None;
    }
    Some(([l[0] / s, l[1] / s, l[2] / s], q))
}

/// Barycentric coordinates of the origin in tetrahedron `p`, if strictly inside.
#[inline]
fn tet_candidate(p: &[DVec3; 4]) -> Option<[f64; 4]> {
    let det = (p[1] - p[0]).dot((p[2] - p[0]).cross(p[3] - p[0]));
    if !(det != 0.0) || !det.is_finite() {
        return None;
    }
    // Volume with the origin in place of p[i].
    let v0 = (p[1]).dot(p[2].cross(p[3]));
    let v1 = -(p[0]).dot(p[2].cross(p[3]));
    let v2 = (p[0]).dot(p[1].cross(p[3]));
    let v3 = -(p[0]).dot(p[1].cross(p[2]));
    let l = [v0 / det, v1 / det, v2 / det, v3 / det];
    if l.iter().all(|x| *x > 0.0) {
        let s: f64 = l.iter().sum();
        Some([l[0] / s, l[1] / s, l[2] / s, l[3] / s])
    } else {
        None
    }
}

/// Nearest point of the simplex hull to the origin; reduces the simplex to the supporting face
/// and sets the weights. Returns (v, enclosed): `enclosed` when a tetrahedron strictly contains
/// the origin (then v = 0 and the simplex is kept whole).
pub(super) fn solve(s: &mut Simplex) -> (DVec3, bool) {
    solve_with(s, false)
}

/// [`solve`], optionally restricted to the faces that contain the newest point (the last one):
/// after a support step the nearest point must lie on such a face (exact arithmetic), which
/// halves the work; a rounding-induced increase of `|v|` is caught by the caller's stall test.
#[allow(clippy::needless_range_loop)]
pub(super) fn solve_with(s: &mut Simplex, newest_only: bool) -> (DVec3, bool) {
    let n = s.n;
    let p = [s.v[0].w, s.v[1].w, s.v[2].w, s.v[3].w];
    // Restricted to the newest point, the enclosure test waits for the faces below: it can
    // only hold when none of them sees the origin.
    if n == 4 && !newest_only {
        if let Some(l) = tet_candidate(&p) {
            s.lam = l;
            return (DVec3::ZERO, true);
        }
    }
    // The full simplex's (or, for a tetrahedron, a face's) own candidate, when it exists, is
    // the nearest point outright: a projection strictly inside a segment or triangle is its
    // nearest point, and one strictly inside a tetrahedron face the origin sees is the
    // tetrahedron's (the tetrahedron lies behind that face's plane). This settles the common
    // step without the subset enumeration below, which it would pick anyway up to rounding.
    // Subsets whose candidate was computed (and failed) above, by mask bit: the enumeration
    // below skips them (it would compute the same failing candidate again).
    let mut tried = 0u32;
    match n {
        2 => {
            tried |= 1 << 0b11;
            if let Some((l, q)) = seg_candidate(p[0], p[1]) {
                s.lam = [l[0], l[1], 0.0, 0.0];
                return (refine(s, q), false);
            }
        }
        3 => {
            tried |= 1 << 0b111;
            let foot = tri_foot(p[0], p[1], p[2]);
            if let Some((l, q)) = foot.and_then(|(l, _, q)| tri_strict(l, q)) {
                s.lam = [l[0], l[1], l[2], 0.0];
                return (refine(s, q), false);
            }
            // A foot point on the triangle's boundary up to rounding
            // (a weight of −WEIGHT_TIE or more) is taken on the triangle too: near contact the
            // nearest point of `M` may be a vertex or edge a hair from the origin, whose own
            // direction is only as good as the coordinates' rounding, while the triangle's
            // plane gives the exact normal (kissing cubes in rotated frames stalled without it).
            if let Some((l, q)) = foot.and_then(|(l, nn, q)| tri_tied(l, nn, q)) {
                s.lam = [l[0], l[1], l[2], 0.0];
                return (refine(s, q), false);
            }
        }
        4 => {
            // Faces with the newest point (index 3) when restricted, else all four; `r` is
            // the opposite vertex.
            const FACES: [([usize; 3], usize); 4] = [([0, 1, 3], 2), ([1, 2, 3], 0), ([2, 0, 3], 1), ([0, 1, 2], 3)];
            let count = if newest_only { 3 } else { 4 };
            let mut seen = false;
            for &(f, r) in &FACES[..count] {
                let (a, b, c) = (p[f[0]], p[f[1]], p[f[2]]);
                let nrm = (b - a).cross(c - a);
                let side_o = nrm.dot(a);
                let side_r = nrm.dot(p[r] - a);
                // Visible: the origin (at −side_o) and `r` strictly on opposite sides.
                if !(side_o * side_r > 0.0) {
                    continue;
                }
                seen = true;
                // Same vertex order as the enumeration's (ascending) only: another order
                // may round differently at the triangle's border.
                if f[0] < f[1] && f[1] < f[2] {
                    tried |= 1 << ((1u32 << f[0]) | (1 << f[1]) | (1 << f[2]));
                }
                if let Some((l, q)) = tri_foot_n(a, b, c, nrm).and_then(|(l, _, q)| tri_strict(l, q)) {
                    let out = Simplex {
                        v: [s.v[f[0]], s.v[f[1]], s.v[f[2]], SVert::default()],
                        lam: [l[0], l[1], l[2], 0.0],
                        n: 3,
                    };
                    *s = out;
                    return (refine(s, q), false);
                }
            }
            // After a support step the old face (0, 1, 2) never sees the origin (the origin
            // and the new point lie on the same side of it: `v·w < |v|²`), so with no face
            // through the new point seeing it either, the origin may be enclosed: only then is
            // the tetrahedron's own test run. A face that sees the origin by its own sign test
            // rules enclosure out (both tests agree outside rounding of the origin's distance
            // to that face, where touching and enclosed are one answer to the contract; EPA and
            // the tetrahedron's certified depth decide it either way).
            if newest_only && !seen {
                if let Some(l) = tet_candidate(&p) {
                    s.lam = l;
                    return (DVec3::ZERO, true);
                }
            }
        }
        _ => {}
    }
    let first = if newest_only && n > 0 { n - 1 } else { 0 };
    let mut best_mask = 1u32 << first;
    let mut best_lam = [0.0; 4];
    best_lam[first] = 1.0;
    let mut best_v = p[first];
    let mut best_d = p[first].length_squared();
    let mut best_k = 1usize;
    let full = 1u32 << n;
    for &(mask, sel, k) in &SUBSETS[..(full - 1) as usize] {
        if newest_only && mask & (1 << (n - 1)) == 0 || tried & (1 << mask) != 0 {
            continue;
        }
        let cand: Option<([f64; 4], DVec3)> = match k {
            1 => {
                let mut l = [0.0; 4];
                l[sel[0]] = 1.0;
                Some((l, p[sel[0]]))
            }
            2 => seg_candidate(p[sel[0]], p[sel[1]]).map(|(lam, q)| {
                let mut l = [0.0; 4];
                l[sel[0]] = lam[0];
                l[sel[1]] = lam[1];
                (l, q)
            }),
            3 => tri_candidate(p[sel[0]], p[sel[1]], p[sel[2]]).map(|(lam, q)| {
                let mut l = [0.0; 4];
                l[sel[0]] = lam[0];
                l[sel[1]] = lam[1];
                l[sel[2]] = lam[2];
                (l, q)
            }),
            _ => None,
        };
        if let Some((l, q)) = cand {
            let d = q.length_squared();
            // Within rounding of the best, the larger face wins: it carries the direction
            // change that lets the next support make progress.
            let slack = 16.0 * f64::EPSILON * best_d;
            let newest = mask & (1 << (n - 1)) != 0;
            let rank = (newest as usize) * 8 + k;
            if d < best_d - slack || (d <= best_d + slack && rank > best_k) {
                best_k = rank;
                best_d = d;
                best_v = q;
                best_lam = l;
                best_mask = mask;
            }
        }
    }
    // Reduce.
    let mut out = Simplex::default();
    for i in 0..n {
        if best_mask & (1 << i) != 0 {
            out.v[out.n] = s.v[i];
            out.lam[out.n] = best_lam[i];
            out.n += 1;
        }
    }
    *s = out;
    (refine(s, best_v), false)
}

/// The non-empty subsets of four simplex points in ascending mask order: (mask, the points'
/// indices in ascending order, their count); those of `n` points are the first `2ⁿ − 1`.
const SUBSETS: [(u32, [usize; 4], usize); 15] = [
    (1, [0, 0, 0, 0], 1),
    (2, [1, 0, 0, 0], 1),
    (3, [0, 1, 0, 0], 2),
    (4, [2, 0, 0, 0], 1),
    (5, [0, 2, 0, 0], 2),
    (6, [1, 2, 0, 0], 2),
    (7, [0, 1, 2, 0], 3),
    (8, [3, 0, 0, 0], 1),
    (9, [0, 3, 0, 0], 2),
    (10, [1, 3, 0, 0], 2),
    (11, [0, 1, 3, 0], 3),
    (12, [2, 3, 0, 0], 2),
    (13, [0, 2, 3, 0], 3),
    (14, [1, 2, 3, 0], 3),
    (15, [0, 1, 2, 3], 4),
];

/// One step of iterative refinement of the simplex's nearest point (see
/// [`crate::core::geometry::refine_nearest`]).
fn refine(s: &Simplex, v: DVec3) -> DVec3 {
    crate::core::geometry::refine_nearest(&[s.v[0].w, s.v[1].w, s.v[2].w], s.n, v)
}

// ---------------------------------------------------------------------------------------------
// GJK core
// ---------------------------------------------------------------------------------------------

pub(super) enum Core {
    /// Converged: `v` is the nearest point of `M` (within the gap), `sup` the last support.
    Separated {
        sim: Simplex,
        v: DVec3,
        sup: SVert,
        iters: u32,
    },
    /// Boolean early exit: `v · sup.w > tol · |v|`.
    Disjoint {
        v: DVec3,
        sup: SVert,
        iters: u32,
    },
    /// A tetrahedron strictly encloses the origin.
    Enclosed {
        sim: Simplex,
        iters: u32,
    },
    /// The origin is on (or within rounding of) the simplex: touching or overlapping.
    Contact {
        sim: Simplex,
        iters: u32,
    },
    NotConverged {
        iters: u32,
    },
}

pub(super) fn gjk_core(ctx: &Ctx, cache: &mut GjkCache, boolean: bool) -> Core {
    if ctx.paired {
        gjk_loop::<true>(ctx, cache, boolean)
    } else {
        gjk_loop::<false>(ctx, cache, boolean)
    }
}

/// [`gjk_core`] with `P = ctx.paired` (see [`Ctx::support_with`]).
fn gjk_loop<const P: bool>(ctx: &Ctx, cache: &mut GjkCache, boolean: bool) -> Core {
    let gap = DISTANCE_GAP_REL * ctx.scale;
    let accept = ACCEPT_GAP_REL * ctx.scale;
    let mut sim = Simplex::default();
    if let Some(q) = cache.last_rel {
        // Rotation angle ≈ 2·√(2(1 − |q·q'|)) (small angles; larger ones only need to exceed
        // the threshold).
        let turn = 2.0 * (2.0 * (1.0 - q.dot(ctx.quat).abs()).max(0.0)).sqrt();
        let n = ctx.a.vertices().len().max(ctx.b.vertices().len()).max(1) as f64;
        let limit = STALE_TURN_REL * (4.0 * std::f64::consts::PI / n).sqrt();
        if !(turn <= limit) {
            cache.len = 0;
            cache.epa_len = 0;
        }
    }
    cache.last_rel = Some(ctx.quat);
    for k in 0..(cache.len as usize).min(4) {
        let (ia, ib) = cache.pairs[k];
        if ctx.valid(ia, ib) && !sim.contains(ia, ib) {
            sim.push(ctx.vert(ia, ib));
        }
    }
    if !ctx.valid(cache.warm_a, cache.warm_b) {
        cache.warm_a = 0;
        cache.warm_b = 0;
    }
    if sim.n == 0 {
        // Cold start: the support of M towards the origin from the centre of M.
        let d0 = ctx.a.bounding_sphere().0 - (ctx.rot * ctx.b.bounding_sphere().0 + ctx.trans);
        let s0 = if d0.length_squared() > 0.0 {
            // The first (longest) climbs start from the direction table's vertex (the warm
            // vertices of a forgotten cache are arbitrary).
            ctx.support_with::<P, false>(-d0, cache)
        } else {
            ctx.vert(cache.warm_a, cache.warm_b)
        };
        sim.push(s0);
        // Not when the centre-line support lies beyond the origin by more than
        // `DEEP_START × r` (`s0·u > DEEP_START r`, `u = −d0/r`): see `DEEP_START`.
        if P && !boolean && !(s0.w.dot(-d0) > DEEP_START * d0.length_squared()) {
            // Up to three Newton steps towards the point of `M` nearest the origin, each a
            // support pushed on the start simplex (see `turned_start`); the first turns at
            // the ball model's rate `r`, the later ones at the secant's estimate from the
            // last two supports (`secant_rate`).
            let r = d0.length();
            let (mut u, mut w, mut k) = (-d0 / r, s0.w, r);
            for _ in 0..NEWTON_STEPS {
                let Some(next) = turned_start(u, k, w) else {
                    break;
                };
                let s = ctx.support_with::<true, false>(next, cache);
                if sim.contains(s.ia, s.ib) {
                    break;
                }
                sim.push(s);
                let un = next.normalize();
                k = secant_rate(u, w, un, s.w, r).unwrap_or(k);
                (u, w) = (un, s.w);
            }
        }
    }
    let (mut v, enc) = solve(&mut sim);
    if enc {
        cache.store(&sim);
        return Core::Enclosed { sim, iters: 0 };
    }
    let mut result = Core::NotConverged { iters: ctx.max_iter };
    let mut flat = 0u32;
    let mut vprev = DVec3::ZERO;
    for it in 1..=ctx.max_iter {
        let vv = v.length_squared();
        if vv == 0.0 {
            result = Core::Contact { sim, iters: it };
            break;
        }
        let vlen = vv.sqrt();
        // Once `v` has settled (turned by less than `acos WARM_COS` since the last step) the
        // last supports are a step or two from the new ones: the climbs start there, without
        // the direction table's lookup.
        let sup = if P {
            let dp = v.dot(vprev);
            let settled = dp > 0.0 && dp * dp >= WARM_COS * WARM_COS * vv * vprev.length_squared();
            vprev = v;
            if settled {
                ctx.support_with::<true, true>(-v, cache)
            } else {
                ctx.support_with::<true, false>(-v, cache)
            }
        } else {
            ctx.support_with::<false, false>(-v, cache)
        };
        let vw = v.dot(sup.w);
        if boolean && vw > ctx.tol * vlen {
            // The simplex whose nearest point gave the separating direction is the next
            // query's start: after a small motion it gives a separating direction again, one
            // support step (without it the next query restarted from the last distance answer's
            // simplex, or cold).
            cache.store(&sim);
            result = Core::Disjoint { v, sup, iters: it };
            break;
        }
        let slack = vv - vw;
        if slack <= gap * vlen {
            result = Core::Separated { sim, v, sup, iters: it };
            break;
        }
        if sim.contains(sup.ia, sup.ib) {
            // Cameron's repeated-vertex test: in exact arithmetic `w` in the simplex means
            // `v·w ≥ |v|²`, i.e. `v` is optimal; here the support gap must confirm it.
            result = stall(sim, v, sup, slack, vlen, accept, ctx.tol, it);
            break;
        }
        let prev = sim;
        sim.push(sup);
        let (nv, enc) = solve_with(&mut sim, true);
        if enc {
            result = Core::Enclosed { sim, iters: it };
            break;
        }
        // Rounding can hide a real (sub-ulp) decrease of |v| while v's direction still moves:
        // equal norms are accepted a bounded number of times in a row.
        let nvv = nv.length_squared();
        // Rounding of `|v|²`: relative to `|v|²`, plus that of a norm computed from the
        // simplex's coordinates (a few ulps of them times `|v|`), which dominates near contact.
        let mag = (0..sim.n).fold(0.0f64, |m, k| m.max(sim.v[k].w.abs().max_element()));
        let ulps = 16.0 * f64::EPSILON * (vv + 4.0 * mag * vlen);
        let is_flat = nvv >= vv - ulps;
        if nvv > vv + ulps || (is_flat && flat >= MAX_FLAT_STEPS) || nv == v {
            result = stall(prev, v, sup, slack, vlen, accept, ctx.tol, it);
            break;
        }
        flat = if is_flat { flat + 1 } else { 0 };
        v = nv;
    }
    if let Core::NotConverged { iters } = result {
        result = settle_small(ctx, cache, boolean, iters);
    }
    match &result {
        Core::Separated { sim, .. } | Core::Enclosed { sim, .. } | Core::Contact { sim, .. } => cache.store(sim),
        _ => {}
    }
    result
}

/// The next cold-start direction after a support `w = s_M(u)` (unit `u`): near contact the
/// origin lies on `M`'s surface about `r = |d0|` from `M`'s centre `d0`, so `M` curves there
/// with a radius of about `r`, and `w` lies off the line of `u` by `ℓ = w − (w·u) u`; turning
/// the direction by `−ℓ/r` (a Newton step on the support map of a ball of radius `r`, the
/// turn capped at one radian) aims the next support at the point of `M` nearest the origin
/// rather than at `M`'s extreme point along `u`. `r` is the rate of that model for the first
/// step and the secant's estimate ([`secant_rate`]) for the later ones. `None` when the turn
/// is below [`NEWTON_MIN_TURN`] or not finite (`d0 = 0`). It only picks start points: the
/// iteration certifies the answer as before.
#[inline]
fn turned_start(u: DVec3, r: f64, w: DVec3) -> Option<DVec3> {
    let step = (w - u * w.dot(u)) / r;
    let len = step.length();
    if !(len > NEWTON_MIN_TURN && len.is_finite()) {
        return None;
    }
    let step = if len > 1.0 { step / len } else { step };
    Some(u - step)
}

/// The secant estimate of the rate `k` at which the support's offset from its direction's
/// line, `ℓ(u) = w − (w·u) u`, changes with the direction, from two supports `w0 = s_M(u0)` and
/// `w1 = s_M(u1)` (unit `u0 ≠ u1`): `k = (ℓ1 − ℓ0)·(u1 − u0) / |u1 − u0|²`. The ball model of
/// [`turned_start`] takes `k = r` (`|d0|`, exact for a ball centred at `M`'s centre), but
/// near the origin `M` curves as it does there (`k` = the curvature radius plus the origin's
/// distance along the normal), which on elongated hulls differs from `r` by a factor of a few;
/// the secant measures it. `None` when not finite or not within a factor
/// [`SECANT_RATE_RANGE`] of `r` (a polytope's support map is piecewise constant: two supports
/// a vertex spacing apart say little), and the last rate is kept. It only picks start points.
#[inline]
fn secant_rate(u0: DVec3, w0: DVec3, u1: DVec3, w1: DVec3, r: f64) -> Option<f64> {
    let du = u1 - u0;
    let dl = (w1 - u1 * w1.dot(u1)) - (w0 - u0 * w0.dot(u0));
    let k = dl.dot(du) / du.length_squared();
    (k.is_finite() && k > r / SECANT_RATE_RANGE && k < r * SECANT_RATE_RANGE).then_some(k)
}

/// The secant rates [`secant_rate`] accepts lie within this factor of the ball model's `r`
/// (measured on the py-bench and near-contact workloads with a factor of 10; not tuned). Not
/// a tolerance: it only picks start points.
const SECANT_RATE_RANGE: f64 = 10.0;

/// Cold start of a distance query on two hulls with direction tables: at most this many
/// Newton steps ([`turned_start`]), each one more support on the start simplex (so it has at
/// most 1 + 3 = 4 points); a step whose support is already in the simplex ends them.
/// Measured (`examples/narrow_profile.rs`, 2026-11-28; an exploratory build, the same fixed
/// overhead in every variant): 1 / 2 / 3 steps took near contact (`near-stats`) from 12.55 to
/// 11.16 / 9.53 / 7.36 GJK iterations and the py-bench workload (`py-stats`) from 5.98 to
/// 4.11 / 3.02 / 2.50, instructions per query near contact −5 % / −12 % / −22 %, py-bench
/// −10 % / −13 % / −6 %; steps only above half the vertex spacing's turn were worse than two
/// steps on both (−9 % / −8 %).
/// Landed (three steps, stopping at a repeated support): near contact 7.95 iterations,
/// 17 797 → 14 342 instructions; py-bench 2.66 iterations, 12 295 → 11 417 (BENCHMARKS.md,
/// *Near contact, cold*). With the secant's rate for the second and third steps
/// ([`secant_rate`]; 2026-11-28, an exploratory build with the variants switched at run
/// time): near contact 7.95 → 7.16 iterations, py-bench 2.66 → 2.31; two steps with the
/// secant 8.59 / 2.87 (py-bench −6 % instructions against three without it, near contact
/// +2 %), three with it −3 % / −5 %: three are kept. A full 3 × 3 Broyden update instead of
/// the scalar rate (7.41 / 2.28), steps stopped below half or one vertex spacing of turn
/// (9.16–10.11 / 3.24–4.09), first rates 0.5 / 0.7 / 1.4 × `r` and climbs started from the
/// last support instead of the direction table (+3 % / +8 % instructions) were no better.
/// Not a tolerance: it only picks start points.
const NEWTON_STEPS: usize = 3;
/// The Newton-turned start is skipped when the centre-line support reaches beyond the origin
/// by more than this fraction of `r = |d0|`. The start models the origin just outside `M`,
/// about `r` from its centre; the support along the centre line lies beyond the origin by
/// about `r (1 − cos θ)` when the contact normal is `θ` off that line (`0.1 ↔ θ ≈ 26°`), and
/// by the overlap's depth along it when the origin is inside `M`. There the three Newton
/// supports, clustered about the centre line's extreme point, stay in the simplex GJK hands
/// EPA, and EPA pays for that thin seed in expansions; GJK's ordinary steps from the one
/// support give a better spread seed (callgrind, `examples/narrow_profile.rs` `pen-epa`:
/// EPA 29.8 k → 25.4 k instructions a query with the skip at 0.02, GJK 6.3 k → 7.6 k; at
/// 0.02 near contact lost the start on most poses, 13.5 k → 17.0 k). A cost choice only:
/// the iteration certifies every answer either way.
const DEEP_START: f64 = 0.1;

/// Smallest turn (radians) for which [`turned_start`] takes another support: below it the
/// last support is on the line of its direction to rounding. Not a tolerance: it only picks
/// start points.
const NEWTON_MIN_TURN: f64 = 1e-9;

/// A stalled (or exhausted) iteration on a pair with at most [`super::small::SMALL_PAIRS`]
/// vertex pairs: `M` enumerated ([`super::small`]); its enclosing tetrahedron or nearest
/// feature decides as the iteration's own end tests would. Larger pairs stay `NotConverged`.
#[cold]
#[inline(never)]
fn settle_small(ctx: &Ctx, cache: &mut GjkCache, boolean: bool, iters: u32) -> Core {
    let Some(found) = super::small::enumerate(ctx, None) else {
        return Core::NotConverged { iters };
    };
    match from_small(found) {
        (sim, None) => Core::Enclosed { sim, iters },
        (sim, Some(v)) => {
            let vv = v.length_squared();
            if vv == 0.0 {
                return Core::Contact { sim, iters };
            }
            let vlen = vv.sqrt();
            let sup = ctx.support(-v, cache);
            let vw = v.dot(sup.w);
            if boolean && vw > ctx.tol * vlen {
                return Core::Disjoint { v, sup, iters };
            }
            stall(sim, v, sup, vv - vw, vlen, ACCEPT_GAP_REL * ctx.scale, ctx.tol, iters)
        }
    }
}

/// The simplex of an enumeration's answer ([`super::small`]): an enclosing tetrahedron
/// (equal weights, no nearest point), or the nearest feature re-solved as a fresh simplex
/// with its nearest point.
pub(super) fn from_small(found: Small) -> (Simplex, Option<DVec3>) {
    let mut sim = Simplex::default();
    match found {
        Small::Enclosed(t) => {
            for p in t {
                sim.push(p);
            }
            sim.lam = [0.25; 4];
            (sim, None)
        }
        Small::Nearest(f, len) => {
            for &p in &f[..len.min(3)] {
                sim.push(p);
            }
            let (v, _) = solve(&mut sim);
            (sim, Some(v))
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn stall(sim: Simplex, v: DVec3, sup: SVert, slack: f64, vlen: f64, accept: f64, tol: f64, it: u32) -> Core {
    if slack <= accept * vlen {
        Core::Separated { sim, v, sup, iters: it }
    } else if vlen <= tol {
        Core::Contact { sim, iters: it }
    } else {
        Core::NotConverged { iters: it }
    }
}
