//! Candidate pairs of many boxes by a uniform grid, recomputed every frame: the path
//! [`SweepAndPrune`](super::SweepAndPrune) takes from [`GRID_MIN_BOXES`] live boxes on.
//!
//! **Why not the sweep there.** Incremental sweep-and-prune costs one step per end-point
//! exchange. Bodies spread through a volume pass each other's end points on every axis, and the
//! exchanges per body grow as `n^(2/3)` at a fixed density (15 per body at 5 000 bodies in
//! `bench many-body`, about 110 at 100 000), each touching two boxes at random places in
//! memory. A single sorted axis instead tests every pair whose x intervals overlap: `n²·w/L`
//! for boxes of width `w` in a world of side `L`. The grid's work per frame is linear: each box
//! is tested against the boxes of about seven cells' worth of neighbouring rows.
//!
//! **Method.** The cell side `c` is at least the largest extent of every *small* box (all
//! boxes except outliers larger than [`LARGE_BOX_FACTOR`] × the mean extent), so a box spans
//! at most two cells per axis. Each small box's key is its home *row* (the cells of its min y
//! and min z) and the fine x coordinate of its min x ([`FINE_X`] per cell); boxes are kept
//! sorted by key (insertion sort of the previous frame's order for the boxes that stayed in
//! their row, a sort of the few that changed row, one merge; a full sort when coherence is
//! lost), so each row is a run of boxes sorted by min x. Two overlapping small boxes have
//! home rows at most one cell apart in y and z, and the min x of either lies within one cell
//! below the other's min x and its max x. So each box is tested against the boxes after it in
//! its own row up to its max x, and against the boxes of four forward rows (`(y + 1, z)`,
//! `(y − 1 … y + 1, z + 1)`) whose min x lies in `[min x − c, max x]`: each unordered pair
//! once, and only boxes that overlap it in x to a sixteenth of a cell (about 7 cells' worth
//! of boxes per box instead of the 13.5 cells of a cell-keyed grid). A forward row one cell
//! up in y (z) is scanned only when the box's max y (z) reaches into that cell: otherwise its
//! boxes all start above the box on that axis (about half the rows, for boxes half a cell
//! wide). The windows' key ranges grow with the box's key, so four cursors walk the sorted keys
//! once per frame (no search).
//! Large boxes are tested against every box. Every test is the
//! exact closed-box test [`Aabb::overlaps`]'s comparisons, so the result is exactly the set of
//! overlapping pairs whatever the cell arithmetic rounds (that only decides which pairs are
//! tested; the proofs that no overlapping pair is missed are at [`Grid::cell_side`] and
//! [`Grid::sweep`]).
//!
//! The cell side and origin are kept from frame to frame while they stay valid (so keys, and
//! the sorted order, change only as boxes move), and recomputed with room to spare otherwise.

use super::aabb::Aabb;
use crate::core::hash::pair_key;
use crate::core::math::DVec3;
use crate::core::tolerance::GRID_CELL_SLACK;

/// From this many live boxes on, [`SweepAndPrune::update`](super::SweepAndPrune::update)
/// finds the candidates with a uniform grid, recomputed every frame (cell side: the largest
/// box extent, outliers beyond [`LARGE_BOX_FACTOR`] × the mean tested against every box; each
/// box tested exactly against the boxes of its own and four forward neighbour rows that overlap
/// it in x; the result
/// merged into the sorted candidate list so pairs keep their data) instead of the incremental
/// sweep, whose end-point exchanges grow as `n^(2/3)` per body at a fixed density
/// ([`set_grid_threshold`](super::SweepAndPrune::set_grid_threshold)
/// changes it). The crossover, measured in cycles on a quiet machine (`broad_peer_profile`
/// under `perf record`, `bench many-body`'s scene, densities 0.05 and 0.2): the grid takes
/// fewer cycles for its pairs than the sweep from 200 bodies on at both densities (at 1 000
/// bodies about a third fewer — the sweep's exchanges are data-dependent branches), level at
/// 50–100 bodies (ahead at 0.05, behind at 0.2); the sweep stays below, where a frame's fixed
/// costs weigh. (The instruction counts favour the sweep up to about 600 bodies at density
/// 0.2: they do not see the mispredicted branches.)
pub const GRID_MIN_BOXES: usize = 128;

/// A box whose largest extent exceeds this many times the mean extent does not set the cell
/// size: it is tested against every box instead (a ground plane among pebbles).
pub const LARGE_BOX_FACTOR: f64 = 8.0;

/// Bits of a cell coordinate in the key (three per key, `x` lowest).
const CELL_BITS: u32 = 21;
/// The largest cell coordinate range used: keys leave one cell of room on both sides.
const MAX_CELLS: f64 = (1u64 << 20) as f64;
/// Fine x coordinates per cell: a box is tested against the boxes of a neighbour row whose min
/// x lies within `[min x − cell, max x]` to a sixteenth of a cell.
const FINE_X: u64 = 16;
/// The x field of a key.
const X_MASK: u64 = (1 << CELL_BITS) - 1;
/// Row offsets in key space of the four forward rows: `(dy, dz)` = `(1, 0)`, `(−1, 1)`,
/// `(0, 1)`, `(1, 1)`.
const ROW_STEPS: [u64; 4] = [
    1 << CELL_BITS,
    (1 << (2 * CELL_BITS)) - (1 << CELL_BITS),
    1 << (2 * CELL_BITS),
    (1 << (2 * CELL_BITS)) + (1 << CELL_BITS),
];
/// Per forward row, the spans ([`SPAN_Y`], [`SPAN_Z`]) a box needs for that row's boxes to
/// possibly overlap it: a row one cell up in y (or z) holds only boxes whose min y (z) lies in
/// a higher cell than the box's max y (z) unless the box reaches into that cell.
const ROW_NEEDS: [u8; 4] = [SPAN_Y, SPAN_Z, SPAN_Z, SPAN_Y | SPAN_Z];
/// The box's max y lies in the cell above its min y's.
const SPAN_Y: u8 = 1;
/// The box's max z lies in the cell above its min z's.
const SPAN_Z: u8 = 2;

/// The grid's state (cell side and origin kept across frames) and scratch.
#[derive(Debug, Default)]
pub(super) struct Grid {
    /// Cell side (0: none chosen yet).
    cell: f64,
    /// `fl(1 / cell)`: cell coordinates by one multiplication.
    inv: f64,
    /// Fine x coordinates per cell ([`FINE_X`], or 1 when the world is too wide for them) and
    /// `fl(sub / cell)`: the x part of a key is the fine coordinate of the box's min x.
    sub: u64,
    inv_x: f64,
    origin: DVec3,
    /// Largest extent a small box may have: `cell / (1 + GRID_CELL_SLACK)`.
    small_max: f64,
    /// `(key, id)` of the small boxes, sorted by key (kept: next frame's starting order).
    order: Vec<(u64, u32)>,
    /// Scratch: the next order being assembled (boxes that stayed in their row).
    next: Vec<(u64, u32)>,
    /// Scratch: boxes that changed row or are new to the grid (sorted apart, then merged).
    moved: Vec<(u64, u32)>,
    /// Per id: the frame it was last placed in `next` (to append boxes new to the grid).
    seen: Vec<u32>,
    /// Per id: 0 dead, 1 small, 2 large (this frame).
    class: Vec<u8>,
    /// Per id: this frame's key (small boxes).
    key: Vec<u64>,
    large: Vec<u32>,
    /// Sorted keys and the boxes' bounds in sorted order (contiguous for the inner loops).
    keys: Vec<u64>,
    /// Per sorted box: fine x coordinate of its max x minus that of its min x.
    xend: Vec<u64>,
    /// Per sorted box: [`SPAN_Y`] and [`SPAN_Z`] flags.
    span: Vec<u8>,
    ids: Vec<u32>,
    /// Per sorted box: min x, y, z and max x, y, z (one record: one base address in the
    /// scans' inner loop instead of six).
    bounds: Vec<[f64; 6]>,
    stamp: u32,
    /// The pairs found, in the order found: the first entries (as many as `sweep` and the
    /// large boxes wrote) are valid; never shortened, so written by index without a capacity
    /// test per pair.
    found: Vec<u64>,
    /// Scratch of [`sort_pair_keys`]: per id the start of its bucket.
    bucket: Vec<u32>,
}

impl Grid {
    /// Chooses the cell side and origin for this frame (keeps the last ones when still
    /// valid) and classes every live box small or large.
    ///
    /// No overlapping pair is missed: the key coordinate of a value `v` is
    /// `⌊fl(fl(v − o) · fl(1/c))⌋`, monotone in `v` (a correctly rounded subtraction and
    /// multiplication by a positive constant are monotone). For a small box `i`,
    /// `max_i − min_i ≤ c / (1 + s)` with `s = GRID_CELL_SLACK`, and the rounded products
    /// differ from the exact quotients by a few ulps of at most `2²¹` cells (below 2⁻³⁰ cells),
    /// far below `s / (1 + s)`; so the
    /// cells of `min_i` and `max_i` differ by at most one. If `j` overlaps `i` on an axis,
    /// `min_i ≤ max_j` and `min_j ≤ max_i`, so by monotony `cell(min_j) ≤ cell(max_i) ≤
    /// cell(min_i) + 1`, and the same with `i` and `j` exchanged: home cells at most one apart.
    fn cell_side(&mut self, boxes: &[Aabb], live: &[bool]) -> bool {
        let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
        let (mut sum, mut count, mut emax) = (0.0, 0usize, 0.0f64);
        for (b, _) in boxes.iter().zip(live).filter(|(_, &l)| l) {
            lo = lo.min(b.min);
            hi = hi.max(b.max);
            let e = (b.max - b.min).max_element();
            sum += e;
            emax = emax.max(e);
            count += 1;
        }
        if count == 0 {
            return false;
        }
        let cut = LARGE_BOX_FACTOR * (sum / count as f64);
        // The largest extent of the boxes within the cut: without outliers (the common case) the
        // largest of all, known from the pass above; otherwise a second pass.
        let mut rmax: f64 = 0.0;
        if emax <= cut {
            rmax = emax;
        } else {
            for (b, _) in boxes.iter().zip(live).filter(|(_, &l)| l) {
                let e = (b.max - b.min).max_element();
                if e <= cut {
                    rmax = rmax.max(e);
                }
            }
        }
        let span = (hi - lo).max_element();
        let need = (rmax * (1.0 + GRID_CELL_SLACK)).max(span / MAX_CELLS);
        let need = if need > 0.0 { need } else { 1.0 };
        let fits = |cell: f64, origin: DVec3| {
            let far = (hi - origin) / cell;
            origin.cmple(lo).all() && far.max_element() < MAX_CELLS
        };
        // Kept while the cell is large enough, at most half as large again as needed (the
        // tests per box grow as the cube of the cell), and the boxes stay inside the key range
        // above the origin.
        if !(self.cell >= need && self.cell <= 1.5 * need && fits(self.cell, self.origin)) {
            // Room to spare: growth by a tenth and drift by a few cells keep this grid.
            let cell = (need * 1.1).max(span / (MAX_CELLS - 16.0));
            self.cell = cell;
            self.origin = lo - DVec3::splat(4.0 * cell);
            if !fits(cell, self.origin) {
                // Unreachable for finite boxes (the cell covers the span in MAX_CELLS − 16
                // cells); stay exact by treating every box as large.
                self.cell = 0.0;
            }
        }
        self.inv = 1.0 / self.cell;
        // Fine x coordinates while the widest key stays below 2²⁰ of them (the cell range
        // checked above leaves at most 2²⁰ cells; `FINE_X` times that would overflow the field).
        let far_x = (hi.x - self.origin.x) * self.inv;
        self.sub = if far_x * (FINE_X as f64) < MAX_CELLS - 16.0 {
            FINE_X
        } else {
            1
        };
        self.inv_x = self.sub as f64 * self.inv;
        self.small_max = if self.cell > 0.0 {
            self.cell / (1.0 + GRID_CELL_SLACK)
        } else {
            -1.0
        };
        true
    }

    /// The box's key: its home row (the cells of its min y and min z) and the fine x
    /// coordinate of its min x; all in `[4, 2²⁰)` by `cell_side` (the origin lies four cells
    /// below every box), so a row's key range never reaches into the next one.
    ///
    /// The floors are truncations ([`trunc`]): the operands are `≥ 0` (every box lies above the
    /// origin, and a correctly rounded difference of `v ≥ o` is `≥ 0`), where truncation is the
    /// floor; a call to `floor` is a library call on targets without SSE4.1 (measured: about a
    /// tenth of the grid's instructions).
    #[inline]
    fn key_of(&self, b: &Aabb) -> u64 {
        let q = (b.min - self.origin) * self.inv;
        self.fine_x(b.min.x) | (trunc(q.y) << CELL_BITS) | (trunc(q.z) << (2 * CELL_BITS))
    }

    /// `⌊fl(fl(v − o_x) · fl(sub / cell))⌋` for `v ≥ o_x` (truncation, see [`Grid::key_of`]):
    /// monotone in `v`.
    #[inline]
    fn fine_x(&self, v: f64) -> u64 {
        trunc((v - self.origin.x) * self.inv_x)
    }

    /// The pair keys ([`pair_key`]) of every two live boxes that overlap (closed boxes), sorted,
    /// into `out` (cleared first).
    pub(super) fn pairs(&mut self, boxes: &[Aabb], live: &[bool], out: &mut Vec<u64>) {
        out.clear();
        if !self.cell_side(boxes, live) {
            self.order.clear();
            return;
        }
        let n_ids = boxes.len();
        if self.class.len() < n_ids {
            self.class.resize(n_ids, 0);
            self.key.resize(n_ids, 0);
            self.seen.resize(n_ids, 0);
        }
        self.large.clear();
        for (i, (b, &l)) in boxes.iter().zip(live).enumerate() {
            self.class[i] = if !l {
                0
            } else if (b.max - b.min).max_element() <= self.small_max {
                self.key[i] = self.key_of(b);
                1
            } else {
                self.large.push(i as u32);
                2
            };
        }
        // Last frame's order first (nearly sorted under coherence), then boxes new to the grid.
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        // Boxes that stayed in their row keep last frame's relative order (nearly sorted: an
        // insertion sort); boxes that changed row, and boxes new to the grid, are sorted apart
        // and merged in. A box crossing into the next z slab would otherwise be carried past
        // every box of a slab by the insertion sort (at 10 000 bodies, density 0.2, such moves
        // exceeded the insertion sort's budget in most frames and forced a full sort).
        self.next.clear();
        self.moved.clear();
        for &(old, id) in &self.order {
            let i = id as usize;
            if i < n_ids && self.class[i] == 1 && self.seen[i] != stamp {
                self.seen[i] = stamp;
                let k = self.key[i];
                if (k >> CELL_BITS) == (old >> CELL_BITS) {
                    self.next.push((k, id));
                } else {
                    self.moved.push((k, id));
                }
            }
        }
        for i in 0..n_ids {
            if self.class[i] == 1 && self.seen[i] != stamp {
                self.seen[i] = stamp;
                self.moved.push((self.key[i], i as u32));
            }
        }
        sort_coherent(&mut self.next);
        self.moved.sort_unstable_by_key(|e| e.0);
        merge_by_key(&self.next, &self.moved, &mut self.order);
        // The sorted boxes' arrays, written in place (sized once per frame, no per-entry
        // capacity checks).
        let m = self.order.len();
        // `SCAN_PAD` entries past the boxes that no scan takes (key above every key, NaN
        // bounds), so `sweep` reads whole chunks without bounds tests of its own.
        self.keys.resize(m + SCAN_PAD, 0);
        self.xend.resize(m, 0);
        self.span.resize(m, 0);
        self.ids.resize(m + SCAN_PAD, 0);
        self.bounds.resize(m + SCAN_PAD, [0.0; 6]);
        self.keys[m..].fill(u64::MAX);
        self.ids[m..].fill(0);
        self.bounds[m..].fill([f64::NAN; 6]);
        {
            let (origin, inv, inv_x) = (self.origin, self.inv, self.inv_x);
            let (keys, xend, ids) = (&mut self.keys[..m], &mut self.xend[..m], &mut self.ids[..m]);
            let span = &mut self.span[..m];
            let bounds = &mut self.bounds[..m];
            for (s, &(k, id)) in self.order.iter().enumerate() {
                let b = &boxes[id as usize];
                keys[s] = k;
                // `fine_x(b.max.x)`, written out: `self` is borrowed by the arrays.
                xend[s] = trunc((b.max.x - origin.x) * inv_x) - (k & X_MASK);
                // The cells of max y and max z by the key's rule (`key_of`), against the key's.
                let top = (b.max - origin) * inv;
                let (cy, cz) = ((k >> CELL_BITS) & X_MASK, k >> (2 * CELL_BITS));
                span[s] = (u8::from(trunc(top.y) != cy) * SPAN_Y) | (u8::from(trunc(top.z) != cz) * SPAN_Z);
                ids[s] = id;
                bounds[s] = [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z];
            }
        }
        let mut found = std::mem::take(&mut self.found);
        let mut len = self.sweep(&mut found);
        // Large boxes against every live box (a pair of large boxes once).
        for &l in &self.large {
            let bl = &boxes[l as usize];
            for (j, b) in boxes.iter().enumerate() {
                let c = self.class[j];
                let take = c == 1 || (c == 2 && j as u32 > l);
                if take && bl.overlaps(b) {
                    room(&mut found, len + 1);
                    found[len] = pair_key(l, j as u32);
                    len += 1;
                }
            }
        }
        sort_pair_keys(&found[..len], out, &mut self.bucket, n_ids);
        self.found = found;
    }

    /// The small boxes' pairs (see the module docs).
    ///
    /// Box `q` can overlap box `p` only if its home row is `p`'s or a neighbour (cells at most
    /// one apart in y and z, [`Grid::cell_side`]) and its min x lies in
    /// `[p.min.x − cell, p.max.x]`: `q.min.x ≤ p.max.x` by the overlap, and `q.max.x ≥ p.min.x`
    /// with `q`'s extent at most a cell. In fine coordinates (monotone, rounding far below one
    /// fine step): `fx(q.min.x) ∈ [fx(p.min.x) − sub, fx(p.max.x)]` — a contiguous key range
    /// of each row, since a row's boxes are sorted by their fine min x. Own row: the boxes after
    /// `p` up to `fx(p.max.x)` (a pair of the same row is found by the earlier box); the four
    /// forward rows: the whole window, for the rows `p` reaches into. A row whose y cell is
    /// `p`'s plus one holds boxes `q` with `cell(q.min.y) > cell(p.min.y)`; if `cell(p.max.y) =
    /// cell(p.min.y)` then `cell(p.max.y) < cell(q.min.y)`, so `p.max.y < q.min.y` by the
    /// cells' monotony: apart. The same for z (`ROW_NEEDS`).
    ///
    /// The scans take [`SCAN_PAD`] boxes at a time without a branch per box: a box counts when
    /// its key is within the window and the six comparisons hold, its pair key is written at
    /// the end of the output and the length advances by that count (0 or 1); the scan goes
    /// on to the next chunk while that chunk's first key is within the window (keys are
    /// sorted). A window of a few
    /// boxes is then one or two predictable iterations, where a loop with a test per box
    /// mispredicted its exit at nearly every scan and its hit test often (the pair phase's
    /// hottest lines in `perf record`). The padding entries past the last box (key
    /// `u64::MAX`, above every key; NaN bounds) never count, and every chunk read stays inside
    /// the arrays: a chunk is read only when its first key is a box's (`q < n`, the padding's
    /// keys are above every window), so it ends by `n + SCAN_PAD`; a scan stops at the
    /// latest at the first chunk starting in the padding.
    ///
    /// Returns how many pair keys it wrote at the start of `found` (grown as needed).
    fn sweep(&self, found: &mut Vec<u64>) -> usize {
        let n = self.keys.len() - SCAN_PAD;
        let keys = &self.keys[..];
        let xend = &self.xend[..n];
        let span = &self.span[..n];
        let bounds = &self.bounds[..];
        let ids = &self.ids[..];
        let sub = self.sub;
        let mut cursor = [0usize; 4];
        // The output is written by index (`len` entries valid), grown ahead of each chunk.
        let mut len = 0;
        for p in 0..n {
            let k = keys[p];
            let reach = xend[p];
            let [ax, ay, az, bx, by, bz] = bounds[p];
            let id = ids[p];
            macro_rules! scan {
                ($q:expr, $to:expr) => {{
                    let mut q = $q;
                    let to = $to;
                    while keys[q] <= to {
                        room(found, len + SCAN_PAD);
                        let (kc, ic, bc) = (
                            &keys[q..q + SCAN_PAD],
                            &ids[q..q + SCAN_PAD],
                            &bounds[q..q + SCAN_PAD],
                        );
                        // `w` hits so far in this chunk, `w ≤ t < SCAN_PAD` (the mask is a
                        // no-op that spares a bounds test per box).
                        let dst = &mut found[len..len + SCAN_PAD];
                        let mut w = 0;
                        for t in 0..SCAN_PAD {
                            let [lx, ly, lz, hx, hy, hz] = bc[t];
                            let hit = (kc[t] <= to)
                                & (ax <= hx)
                                & (lx <= bx)
                                & (ay <= hy)
                                & (ly <= by)
                                & (az <= hz)
                                & (lz <= bz);
                            dst[w & (SCAN_PAD - 1)] = pair_key(id, ic[t]);
                            w += usize::from(hit);
                        }
                        len += w;
                        q += SCAN_PAD;
                    }
                }};
            }
            scan!(p + 1, k + reach);
            // `k + step − sub` grows with `k`: each cursor only moves forward.
            let spans = span[p];
            for ((c, &step), &needs) in cursor.iter_mut().zip(&ROW_STEPS).zip(&ROW_NEEDS) {
                // A row up in y or z that the box does not reach into holds no box overlapping
                // it (see `ROW_NEEDS`): skipped (its cursor catches up at a later box).
                if spans & needs != needs {
                    continue;
                }
                let from = k + step - sub;
                while *c < n && keys[*c] < from {
                    *c += 1;
                }
                scan!(*c, k + step + reach);
            }
        }
        len
    }
}

/// `⌊v⌋` for `0 ≤ v < 2⁶³` (the grid's cell and fine coordinates, all below 2²⁵ by
/// [`Grid::cell_side`]): truncation through `i64`, which on x86-64 is one `cvttsd2si`, where the
/// conversion to `u64` is a compare, a branch and two conversions (measured, callgrind on
/// `bench many-body`'s scene: the grid path's instructions fell by 4–7 % at 2 000–10 000 bodies). For
/// such `v` both truncations give the same integer, so the keys are bit-identical.
#[inline]
fn trunc(v: f64) -> u64 {
    v as i64 as u64
}

/// Boxes per chunk of [`Grid::sweep`]'s scans, and entries of padding past the sorted boxes
/// (a power of two: a chunk's write position is masked with `SCAN_PAD − 1`).
const SCAN_PAD: usize = 4;

/// Buckets larger than this are sorted by `sort_unstable`, smaller ones by insertion sort.
const BUCKET_INSERTION_MAX: usize = 16;

/// Makes `v` at least `need` long (doubling; the new entries are zero). Never shortens it.
#[inline]
fn room(v: &mut Vec<u64>, need: usize) {
    if v.len() < need {
        v.resize(need.max(2 * v.len()).max(64), 0);
    }
}

/// `out` := the pair keys `keys` (`a << 32 | b`, `a < b < n_ids`) sorted ascending. A bucket
/// sort on the smaller id `a` (count, prefix sums, scatter into `out`; O(m + n_ids) for m keys),
/// then each bucket by its keys: insertion sort up to [`BUCKET_INSERTION_MAX`] keys (a box
/// overlaps a few others, so most buckets hold 0–4 keys), `sort_unstable` beyond (so the
/// worst case, every box overlapping every other, stays O(m log m)). When the ids outnumber
/// the keys eightfold the counters would dominate: `sort_unstable` then. The result is the
/// same sorted list either way (the keys are distinct or equal as integers; the order of
/// equal keys is immaterial). Replaces a `sort_unstable` of every key, a quarter of the grid
/// path's instructions at 10 000 bodies (callgrind, `broad_peer_profile`).
/// No allocation once `sorted` and `bucket` have reached their working sizes.
fn sort_pair_keys(keys: &[u64], out: &mut Vec<u64>, bucket: &mut Vec<u32>, n_ids: usize) {
    let m = keys.len();
    out.clear();
    if m < 32 || n_ids > 8 * m || n_ids >= u32::MAX as usize {
        out.extend_from_slice(keys);
        out.sort_unstable();
        return;
    }
    bucket.clear();
    bucket.resize(n_ids + 1, 0);
    for &k in keys.iter() {
        // `a < n_ids` for every key of the grid (both ids index the boxes).
        bucket[(k >> 32) as usize] += 1;
    }
    // Exclusive prefix sums: bucket[a] = the first position of a's keys.
    let mut start = 0u32;
    for c in bucket.iter_mut() {
        let count = *c;
        *c = start;
        start += count;
    }
    out.resize(m, 0);
    for &k in keys.iter() {
        let slot = &mut bucket[(k >> 32) as usize];
        out[*slot as usize] = k;
        *slot += 1;
    }
    // Now bucket[a] is the end of a's keys, which is the start of the next non-empty bucket.
    let mut from = 0usize;
    for &end in bucket.iter() {
        let end = end as usize;
        let run = &mut out[from..end];
        if run.len() > BUCKET_INSERTION_MAX {
            run.sort_unstable();
        } else {
            for i in 1..run.len() {
                let e = run[i];
                let mut j = i;
                while j > 0 && run[j - 1] > e {
                    run[j] = run[j - 1];
                    j -= 1;
                }
                run[j] = e;
            }
        }
        from = end;
    }
}

/// `out` := the merge of the key-sorted lists `a` and `b`, sorted by key (cleared first).
fn merge_by_key(a: &[(u64, u32)], b: &[(u64, u32)], out: &mut Vec<(u64, u32)>) {
    out.clear();
    out.reserve(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if b[j].0 < a[i].0 {
            out.push(b[j]);
            j += 1;
        } else {
            out.push(a[i]);
            i += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

/// Sorts by key: insertion sort while the order is nearly sorted (at most a few moves per
/// entry), a full sort otherwise.
fn sort_coherent(v: &mut [(u64, u32)]) {
    let budget = 4 * v.len() + 64;
    let mut moves = 0usize;
    for i in 1..v.len() {
        let e = v[i];
        let mut j = i;
        while j > 0 && v[j - 1].0 > e.0 {
            v[j] = v[j - 1];
            j -= 1;
            moves += 1;
        }
        v[j] = e;
        if moves > budget {
            v.sort_unstable_by_key(|e| e.0);
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bucketed pair-key sort equals `sort_unstable` (every size from 0, few and many ids,
    /// crowded buckets past the insertion-sort limit, duplicate keys, the fallback paths).
    #[test]
    fn sort_pair_keys_matches_sort_unstable() {
        let mut seed = 0x2705_u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            seed >> 33
        };
        let (mut out, mut bucket) = (Vec::new(), Vec::new());
        for round in 0..400u32 {
            let n_ids = 2 + (next() % [5, 40, 300, 3000][round as usize % 4]) as usize;
            let m = (next() % 400) as usize;
            // Some rounds crowd a few boxes (buckets beyond BUCKET_INSERTION_MAX).
            let crowd = if round % 3 == 0 { 3.min(n_ids - 1) } else { n_ids - 1 };
            let keys: Vec<u64> = (0..m)
                .map(|_| {
                    let a = next() % crowd as u64;
                    let b = a + 1 + next() % (n_ids as u64 - a - 1);
                    (a << 32) | b
                })
                .collect();
            let mut want = keys.clone();
            want.sort_unstable();
            sort_pair_keys(&keys, &mut out, &mut bucket, n_ids);
            assert_eq!(out, want, "round {round}: {m} keys, {n_ids} ids");
        }
    }

    /// The merge of two sorted lists is their sorted union (every length, ties, one side empty).
    #[test]
    fn merge_by_key_is_sorted_union() {
        let mut out = Vec::new();
        let mut seed = 0x2704_u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            seed >> 33
        };
        for round in 0..500u32 {
            let (na, nb) = ((next() % 40) as usize, (next() % 40) as usize);
            let range = 1 + next() % 30;
            let mut a: Vec<(u64, u32)> = (0..na).map(|i| (next() % range, i as u32)).collect();
            let mut b: Vec<(u64, u32)> = (0..nb).map(|i| (next() % range, 1000 + i as u32)).collect();
            a.sort_by_key(|e| e.0);
            b.sort_by_key(|e| e.0);
            merge_by_key(&a, &b, &mut out);
            let mut want: Vec<(u64, u32)> = a.iter().chain(&b).copied().collect();
            want.sort();
            let mut got = out.clone();
            assert!(got.windows(2).all(|w| w[0].0 <= w[1].0), "round {round}: not sorted");
            got.sort();
            assert_eq!(got, want, "round {round}");
        }
    }
}
