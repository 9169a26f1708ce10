//! Support mapping: the vertex of a polyhedron farthest along a direction.
//!
//! Three strategies behind one trait, all returning *a* vertex attaining
//! `max_v dir · v` (with ties any maximiser is correct):
//! - [`Scan`]: every vertex, O(n);
//! - [`HillClimb`]: steepest ascent over the vertex graph from a caller-held warm start
//!   (Cameron's Enhanced GJK). A vertex with no strictly better neighbour is a global maximum
//!   of a linear function on a polytope, and every step strictly increases `dir · v`, so the
//!   walk ends after at most n steps;
//! - [`Hierarchy`]: the Dobkin–Kirkpatrick hierarchy ([`crate::dk`]), O(log n) levels with a
//!   local climb at each.

use crate::math::DVec3;
use crate::polyhedron::ConvexPolyhedron;
use crate::tolerance::{CONE_MARGIN, CONE_SOLVE_EPS};

/// A support mapping over a polyhedron's vertices (local frame).
pub trait SupportMap {
    /// Returns a vertex maximising `dir · v`. `warm` is a vertex to start from (strategies
    /// that do not use it ignore it).
    fn support(&self, dir: DVec3, warm: u32) -> u32;
}

/// Linear scan over all vertices.
#[derive(Clone, Copy, Debug)]
pub struct Scan<'a>(pub &'a ConvexPolyhedron);

/// Hill-climbing over vertex adjacency from a warm start.
#[derive(Clone, Copy, Debug)]
pub struct HillClimb<'a>(pub &'a ConvexPolyhedron);

/// The Dobkin–Kirkpatrick hierarchy.
#[derive(Clone, Copy, Debug)]
pub struct Hierarchy<'a>(pub &'a ConvexPolyhedron);

/// Up to this many vertices, [`ConvexPolyhedron::support_climb`] scans all of them instead of
/// walking the vertex graph (measured: a cube or icosahedron support is cheaper as a scan).
pub const SMALL_SCAN: usize = 16;

impl SupportMap for Scan<'_> {
    #[inline]
    fn support(&self, dir: DVec3, _warm: u32) -> u32 {
        self.0.support_scan(dir)
    }
}

impl SupportMap for HillClimb<'_> {
    #[inline]
    fn support(&self, dir: DVec3, warm: u32) -> u32 {
        self.0.support_climb(dir, warm)
    }
}

impl SupportMap for Hierarchy<'_> {
    #[inline]
    fn support(&self, dir: DVec3, _warm: u32) -> u32 {
        self.0.support_hierarchy(dir)
    }
}

impl ConvexPolyhedron {
    /// Support vertex by linear scan (the first maximiser in index order).
    pub fn support_scan(&self, dir: DVec3) -> u32 {
        let mut best = 0u32;
        let mut best_d = f64::NEG_INFINITY;
        for (i, v) in self.vertices.iter().enumerate() {
            let d = dir.dot(*v);
            if d > best_d {
                best_d = d;
                best = i as u32;
            }
        }
        best
    }

    /// Support vertex by steepest-ascent hill-climbing from `start` (any vertex id; an
    /// out-of-range id starts at vertex 0).
    pub fn support_climb(&self, dir: DVec3, start: u32) -> u32 {
        let mut v = if (start as usize) < self.vertices.len() {
            start
        } else {
            0
        };
        let mut d = dir.dot(self.vertices[v as usize]);
        if self.vertices.len() <= SMALL_SCAN {
            // A few contiguous dot products beat the walk's neighbour-list indirections.
            let (best_d, best) = self.scan_blocks.argmax(dir);
            // The start is kept on ties (as the climb would keep it) and for a NaN direction;
            // otherwise the first index attaining the maximum wins.
            return if best_d > d { best } else { v };
        }
        let len2 = dir.length_squared();
        // Strict increase bounds the walk by the vertex count.
        for _ in 0..self.vertices.len() {
            // A direction in the vertex's inscribed cone has it as its support: the neighbour
            // scan would find nothing better ([`VertexCones`]).
            if self.cones.contains(v, dir, len2) {
                break;
            }
            let mut best = v;
            let mut best_d = d;
            for &w in self.neighbors(v) {
                let dw = dir.dot(self.vertices[w as usize]);
                if dw > best_d {
                    best_d = dw;
                    best = w;
                }
            }
            if best == v {
                break;
            }
            v = best;
            d = best_d;
        }
        v
    }

    /// Support vertices of two shapes by hill-climbing: `self` along `dir` from `start` and
    /// `other` along `other_dir` from `other_start`, the two walks advanced in lockstep so
    /// their dependent loads overlap (the same answers as two
    /// [`support_climb`](Self::support_climb) calls: each walk takes the same steps, except
    /// that a walk stops without its final neighbour scan at a vertex whose inscribed cone
    /// holds the direction, `VertexCones`, where that scan would find nothing better).
    pub fn support_climb_pair(
        &self,
        dir: DVec3,
        start: u32,
        other: &ConvexPolyhedron,
        other_dir: DVec3,
        other_start: u32,
    ) -> (u32, u32) {
        if self.vertices.len() <= SMALL_SCAN || other.vertices.len() <= SMALL_SCAN {
            return (
                self.support_climb(dir, start),
                other.support_climb(other_dir, other_start),
            );
        }
        let mut a = ClimbState::new(self, dir, start);
        let mut b = ClimbState::new(other, other_dir, other_start);
        let (la, lb) = (dir.length_squared(), other_dir.length_squared());
        // Strict increase bounds each walk by its vertex count.
        for _ in 0..self.vertices.len().max(other.vertices.len()) {
            let moved_a = a.step(self, dir, la);
            let moved_b = b.step(other, other_dir, lb);
            if !moved_a && !moved_b {
                break;
            }
        }
        (a.v, b.v)
    }

    /// Support vertex through the Dobkin–Kirkpatrick hierarchy.
    pub fn support_hierarchy(&self, dir: DVec3) -> u32 {
        self.dk.support(self, dir)
    }

    /// Support vertices of two shapes through their hierarchies: `self` along `dir` and
    /// `other` along `other_dir`, the two descents interleaved (the same answers as two
    /// [`support_hierarchy`](Self::support_hierarchy) calls).
    #[inline]
    pub fn support_hierarchy_pair(&self, dir: DVec3, other: &ConvexPolyhedron, other_dir: DVec3) -> (u32, u32) {
        self.dk.support_pair(self, dir, &other.dk, other, other_dir)
    }

    /// The support point (position) along `dir`, by hill-climbing from `warm`; updates `warm`.
    #[inline]
    pub fn support_point(&self, dir: DVec3, warm: &mut u32) -> DVec3 {
        *warm = self.support_climb(dir, *warm);
        self.vertices[*warm as usize]
    }
}

/// Start vertices for hill-climbing, by direction: the sphere of directions is cut into the
/// `6·k²` cells of a cube map (the face of the direction's largest component, then a `k × k`
/// grid on that face), and each cell stores the support vertex of its centre direction. A
/// climb for any direction in the cell starts within a cell's width of its answer — a few
/// steps on any hull — instead of wherever the previous query left it, which after a large
/// change of direction (GJK's and EPA's early iterations, cold queries) is across the hull.
///
/// Only a start: the climb decides the support, so the table never changes an answer (ties
/// aside, where any maximiser is correct). Empty for hulls of at most [`SMALL_SCAN`] vertices,
/// whose supports are scans.
#[derive(Clone, Debug, Default)]
pub(crate) struct SupportHints {
    k: usize,
    start: Vec<u32>,
}

/// Grid resolution per cube face: `k ≈ √n / HINT_SPREAD`, i.e. about one cell per vertex's
/// support region, so a hinted climb is one or two steps. Was 2 (a cell per few regions):
/// 1 saves 3 % of GJK's instructions on separated and 2.5 % on overlapping random 1 000-vertex
/// pairs (callgrind, 9 656 → 9 339 and 69.4k → 67.7k per query); 0.7 with k up to 48 only
/// 1 % more, for 2.25× the memory.
const HINT_SPREAD: f64 = 1.0;
/// Largest grid per cube face (`6·k²` entries of 4 bytes: 6 KiB at k = 16, reached at
/// n ≈ 250; 24 KiB at 32, n ≥ 1 000). Measured on ellipsoid hulls: a hinted climb costs
/// ~330 instructions at n = 100…10 000, the hierarchy 810 / 1 100 / 1 540.
const HINT_MAX_K: usize = 32;

impl SupportHints {
    /// Builds the table for `p` (its vertex graph must be complete).
    pub(crate) fn build(p: &ConvexPolyhedron) -> SupportHints {
        let n = p.vertices.len();
        if n <= SMALL_SCAN {
            return SupportHints::default();
        }
        let k = (((n as f64).sqrt() / HINT_SPREAD).round() as usize).clamp(2, HINT_MAX_K);
        let mut start = Vec::with_capacity(6 * k * k);
        let mut v = p.support_scan(DVec3::X);
        for face in 0..6 {
            let (m, sign) = (face / 2, if face % 2 == 0 { 1.0 } else { -1.0 });
            for iu in 0..k {
                for iv in 0..k {
                    let u = (iu as f64 + 0.5) / k as f64 * 2.0 - 1.0;
                    let w = (iv as f64 + 0.5) / k as f64 * 2.0 - 1.0;
                    let d = match m {
                        0 => DVec3::new(sign, u, w),
                        1 => DVec3::new(w, sign, u),
                        _ => DVec3::new(u, w, sign),
                    };
                    // Neighbouring cells have nearby supports: each climb is short.
                    v = p.support_climb(d, v);
                    start.push(v);
                }
            }
        }
        SupportHints { k, start }
    }

    /// The stored start for `dir` (`None` when the table is empty). Any direction, including
    /// zero or non-finite ones, maps to some cell (saturating casts).
    #[inline]
    pub(crate) fn get(&self, dir: DVec3) -> Option<u32> {
        if self.start.is_empty() {
            return None;
        }
        let a = dir.abs();
        let (m, s, u, w) = if a.x >= a.y && a.x >= a.z {
            (0, dir.x, dir.y, dir.z)
        } else if a.y >= a.z {
            (1, dir.y, dir.z, dir.x)
        } else {
            (2, dir.z, dir.x, dir.y)
        };
        let face = 2 * m + usize::from(s < 0.0);
        let k = self.k;
        let half = 0.5 * k as f64;
        let inv = half / s.abs();
        // `u·inv + half` lies in [0, k] for finite directions; the `u32` casts saturate (NaN to
        // 0) and are shorter than `usize` ones.
        let last = (k - 1) as u32;
        let iu = ((u * inv + half) as u32).min(last) as usize;
        let iw = ((w * inv + half) as u32).min(last) as usize;
        self.start.get(face * k * k + iu * k + iw).copied()
    }
}

impl ConvexPolyhedron {
    /// The direction table's climb start for `dir` (vertex 0 for hulls too small to have a
    /// table, whose supports are scans).
    #[inline]
    pub fn hint_start(&self, dir: DVec3) -> u32 {
        self.hints.get(dir).unwrap_or(0)
    }

    /// Support vertex by hill-climbing from the better (along `dir`) of `warm` and the
    /// direction table's start for `dir` (an out-of-range `warm` is ignored): a few steps
    /// after any change of direction. Consulting the table only once a warm climb has moved
    /// was measured too (instructions per query, callgrind): it saves 3–6 % on coherent GJK
    /// queries (sphere-642 at 1–2°/step) and costs 8–12 % on random 1 000-vertex pairs, so the
    /// table is always consulted.
    #[inline]
    pub fn support_climb_hinted(&self, dir: DVec3, warm: u32) -> u32 {
        let start = match self.hints.get(dir) {
            Some(h) => match self.vertices.get(warm as usize) {
                Some(w) if dir.dot(*w) >= dir.dot(self.vertices[h as usize]) => warm,
                _ => h,
            },
            None => warm,
        };
        self.support_climb(dir, start)
    }
}

/// The vertices of a hull of at most [`SMALL_SCAN`] vertices in blocks of four, coordinates
/// apart (four x's, four y's, four z's), so a scan computes four dot products per block with
/// vector instructions instead of one per vertex from interleaved `DVec3`s. The last block
/// is padded with copies of the last vertex (equal values at larger indices never win a
/// tie). Empty for larger hulls, whose supports are climbs.
#[derive(Clone, Debug, Default)]
pub(crate) struct ScanBlocks {
    blocks: Vec<[[f64; 4]; 3]>,
}

impl ScanBlocks {
    pub(crate) fn build(p: &ConvexPolyhedron) -> ScanBlocks {
        let n = p.vertices.len();
        if n == 0 || n > SMALL_SCAN {
            return ScanBlocks::default();
        }
        let blocks = (0..n.div_ceil(4))
            .map(|b| {
                let v = |k: usize| p.vertices[(4 * b + k).min(n - 1)];
                [
                    std::array::from_fn(|k| v(k).x),
                    std::array::from_fn(|k| v(k).y),
                    std::array::from_fn(|k| v(k).z),
                ]
            })
            .collect();
        ScanBlocks { blocks }
    }

    /// The largest `dir · v` and the first vertex attaining it (`(-∞, 0)` when no product
    /// compares greater than −∞: a NaN direction). Each product is evaluated as
    /// `DVec3::dot` does, `(x·x' + y·y') + z·z'`, so the values are bit-identical to the
    /// climb's and the scan's.
    #[inline]
    pub(crate) fn argmax(&self, dir: DVec3) -> (f64, u32) {
        let mut best = [f64::NEG_INFINITY; 4];
        let mut idx = [0u32; 4];
        for (b, [x, y, z]) in self.blocks.iter().enumerate() {
            let d: [f64; 4] = std::array::from_fn(|k| dir.x * x[k] + dir.y * y[k] + dir.z * z[k]);
            for k in 0..4 {
                if d[k] > best[k] {
                    best[k] = d[k];
                    idx[k] = (4 * b + k) as u32;
                }
            }
        }
        // Lane k holds the first maximiser among indices ≡ k (mod 4); across lanes the larger
        // value wins, equal values the smaller index.
        let mut pick = (best[0], idx[0]);
        for k in 1..4 {
            if best[k] > pick.0 || (best[k] == pick.0 && idx[k] < pick.1) {
                pick = (best[k], idx[k]);
            }
        }
        pick
    }
}

/// Per vertex, a circular cone `{u : u·a ≥ t·|u|}` inside the vertex's normal cone
/// `{u : u·(v − w) ≥ 0 for every neighbour w}`: a direction in it has the vertex as its support,
/// with no neighbour to scan. The axis `a` is the largest inscribed cap's (the Chebyshev centre
/// of the normal cone on the sphere: the minimum-norm point of `{x : x·ê_w ≥ 1}`, `ê_w` the unit
/// edge directions `(v − w)/|v − w|`, normalised; its inscribed half-angle θ has
/// `sin θ = min_w a·ê_w`), and `t = cos θ` raised by [`CONE_MARGIN`]. On 1 000-vertex ellipsoid
/// hulls about half of all directions fall in the inscribed cone of their support.
///
/// Only a shortcut: the test accepts a vertex only where the neighbour scan would stop there
/// too (strict maximiser by far more than rounding), so the climbs' answers do not change.
/// Stored as `[a.x, a.y, a.z, t²]`; `t² > 1` (never accepted) for a vertex whose cone could not
/// be computed. Empty for hulls of at most [`SMALL_SCAN`] vertices, whose supports are scans.
#[derive(Clone, Debug, Default)]
pub(crate) struct VertexCones {
    cone: Vec<[f64; 4]>,
}

/// Vertices of more neighbours than this get no cone (the active-set enumeration is cubic in
/// the degree; such vertices are rare on the hulls where the shortcut matters).
const CONE_MAX_DEGREE: usize = 16;

impl VertexCones {
    /// Builds the cones of `p` (its vertex graph must be complete).
    pub(crate) fn build(p: &ConvexPolyhedron) -> VertexCones {
        let n = p.vertices.len();
        if n <= SMALL_SCAN {
            return VertexCones::default();
        }
        let mut e = Vec::with_capacity(CONE_MAX_DEGREE);
        let cone = (0..n as u32)
            .map(|v| {
                let pv = p.vertices[v as usize];
                e.clear();
                e.extend(
                    p.neighbors(v)
                        .iter()
                        .map(|&w| (pv - p.vertices[w as usize]).normalize_or_zero()),
                );
                inscribed_cone(&e).unwrap_or([0.0, 0.0, 0.0, 2.0])
            })
            .collect();
        VertexCones { cone }
    }

    /// Is `dir` (with `len2 = |dir|²`) inside the inscribed cone of `v`?
    #[inline]
    fn contains(&self, v: u32, dir: DVec3, len2: f64) -> bool {
        match self.cone.get(v as usize) {
            Some(c) => {
                let x = dir.x * c[0] + dir.y * c[1] + dir.z * c[2];
                x > 0.0 && x * x >= c[3] * len2
            }
            None => false,
        }
    }
}

/// The inscribed cone `[a, t²]` for the unit edge directions `e` of one vertex (see
/// `VertexCones`), or `None` when the degree is too high or the cone is degenerate.
fn inscribed_cone(e: &[DVec3]) -> Option<[f64; 4]> {
    let m = e.len();
    if !(3..=CONE_MAX_DEGREE).contains(&m) || e.iter().any(|x| *x == DVec3::ZERO || !x.is_finite()) {
        return None;
    }
    // Minimum-norm point of {x : x·e_i ≥ 1}: the equality-constrained minimiser of every
    // active set of one to three constraints; the feasible one of least norm is the optimum.
    let feasible = |x: DVec3| e.iter().all(|ei| x.dot(*ei) >= 1.0 - CONE_SOLVE_EPS);
    let mut best: Option<DVec3> = None;
    let mut consider = |x: DVec3| {
        if x.is_finite() && feasible(x) && best.is_none_or(|b| x.length_squared() < b.length_squared()) {
            best = Some(x);
        }
    };
    for i in 0..m {
        consider(e[i] / e[i].length_squared());
        for j in i + 1..m {
            // x = λ e_i + μ e_j with x·e_i = x·e_j = 1.
            let (g11, g12, g22) = (e[i].dot(e[i]), e[i].dot(e[j]), e[j].dot(e[j]));
            let det = g11 * g22 - g12 * g12;
            if det > CONE_SOLVE_EPS {
                let (l, mu) = ((g22 - g12) / det, (g11 - g12) / det);
                consider(e[i] * l + e[j] * mu);
            }
            for k in j + 1..m {
                // x·e_i = x·e_j = x·e_k = 1: x = (e_j×e_k + e_k×e_i + e_i×e_j) / det.
                let det = e[i].dot(e[j].cross(e[k]));
                if det.abs() > CONE_SOLVE_EPS {
                    consider((e[j].cross(e[k]) + e[k].cross(e[i]) + e[i].cross(e[j])) / det);
                }
            }
        }
    }
    let a = best?.normalize_or_zero();
    // sin θ = min a·ê (recomputed from the normalised axis); t = cos θ.
    let s = e.iter().map(|ei| a.dot(*ei)).fold(f64::INFINITY, f64::min);
    if !(s > 0.0) || !a.is_finite() {
        return None;
    }
    let t = (1.0 - s * s).max(0.0).sqrt() + CONE_MARGIN;
    Some([a.x, a.y, a.z, t * t])
}

/// One hill-climbing walk (see [`ConvexPolyhedron::support_climb_pair`]).
struct ClimbState {
    v: u32,
    d: f64,
    done: bool,
}

impl ClimbState {
    #[inline]
    fn new(p: &ConvexPolyhedron, dir: DVec3, start: u32) -> Self {
        let v = if (start as usize) < p.vertices.len() { start } else { 0 };
        ClimbState {
            v,
            d: dir.dot(p.vertices[v as usize]),
            done: false,
        }
    }

    /// One steepest-ascent step (as in [`ConvexPolyhedron::support_climb`]); `false` once
    /// no neighbour is strictly better, or without scanning when `dir` (`len2 = |dir|²`) lies
    /// in the vertex's inscribed cone (`VertexCones`: then no neighbour is better).
    #[inline(always)]
    fn step(&mut self, p: &ConvexPolyhedron, dir: DVec3, len2: f64) -> bool {
        if self.done {
            return false;
        }
        if p.cones.contains(self.v, dir, len2) {
            self.done = true;
            return false;
        }
        let mut best = self.v;
        let mut best_d = self.d;
        for &w in p.neighbors(self.v) {
            let dw = dir.dot(p.vertices[w as usize]);
            if dw > best_d {
                best_d = dw;
                best = w;
            }
        }
        if best == self.v {
            self.done = true;
            return false;
        }
        self.v = best;
        self.d = best_d;
        true
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Every direction a vertex's inscribed cone accepts has that vertex as its support, by a
    /// margin (no other vertex comes within rounding), and the cones accept a good share.
    #[test]
    fn inscribed_cones_hold_only_their_supports() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for (n, axes) in [
            (1000, [200.0, 180.0, 180.0]),
            (200, [200.0, 20.0, 20.0]),
            (60, [1.0, 1.0, 1.0]),
        ] {
            let p = crate::shapes::ellipsoid(n, axes[0], axes[1], axes[2], 3).unwrap();
            let mut accepted = 0;
            for k in 0..20_000 {
                let d = crate::shapes::unit_vector(&mut rng) * (1.0 + k as f64);
                let s = p.support_scan(d);
                let len2 = d.length_squared();
                for v in 0..p.vertices().len() as u32 {
                    if p.cones.contains(v, d, len2) {
                        accepted += 1;
                        assert_eq!(v, s, "n {n}: cone of {v} holds a direction supported by {s}");
                        let top = d.dot(p.vertex(v));
                        for (w, x) in p.vertices().iter().enumerate() {
                            assert!(w as u32 == v || d.dot(*x) < top, "n {n}: tie at {w}");
                        }
                    }
                }
            }
            assert!(accepted > 4_000, "n {n}: only {accepted} of 20 000 directions accepted");
        }
    }
}
