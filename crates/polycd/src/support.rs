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
        // Strict increase bounds the walk by the vertex count.
        for _ in 0..self.vertices.len() {
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
    /// [`support_climb`](Self::support_climb) calls: each walk takes the same steps).
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
        // Strict increase bounds each walk by its vertex count.
        for _ in 0..self.vertices.len().max(other.vertices.len()) {
            let moved_a = a.step(self, dir);
            let moved_b = b.step(other, other_dir);
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

/// Grid resolution per cube face: `k ≈ √n / HINT_SPREAD`, i.e. a cell per few vertices'
/// support regions, so a hinted climb is one or two steps.
const HINT_SPREAD: f64 = 2.0;
/// Largest grid per cube face (`6·k²` entries of 4 bytes: 6 KiB at k = 16, reached at
/// n ≈ 1 000; 24 KiB at 32, n ≥ 4 000). Measured on ellipsoid hulls: a hinted climb costs
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
        let iu = ((u * inv + half) as usize).min(k - 1);
        let iw = ((w * inv + half) as usize).min(k - 1);
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
    /// no neighbour is strictly better.
    #[inline]
    fn step(&mut self, p: &ConvexPolyhedron, dir: DVec3) -> bool {
        if self.done {
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
