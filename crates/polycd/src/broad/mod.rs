//! Many-body broad phase: sweep-and-prune of axis-aligned boxes, kept sorted by coherence.
//!
//! **Source.** Cohen, Lin, Manocha, Ponamgi, *I-COLLIDE: an interactive and exact collision
//! detection system for large-scale environments* (I3D 1995), cited by the V-Clip paper (004,
//! §2) and by CD-Dual and HS-jump as the system whose low-level test they replace. Its broad
//! phase ("sort and sweep"): bound every body by an axis-aligned box; keep, per axis, the list
//! of the boxes' interval end points sorted; two boxes overlap iff their intervals overlap on
//! all three axes. Frame to frame the bodies move little, so each list is re-sorted by
//! *insertion sort*, which costs O(n + s) for s exchanges, and s is small under coherence.
//! An exchange of a min end point of one box with a max end point of another is exactly a
//! change of that pair's overlap on that axis; only then can the pair enter or leave the set
//! of candidates. The narrow phase ([`crate::query`]) then runs on the candidates only, each
//! candidate pair with its own [`PairCache`] kept while the pair stays a candidate.
//!
//! **Outline of [`SweepAndPrune::update`].**
//! 1. Copy each box's current bounds into the end points of the three lists.
//! 2. Per axis, insertion-sort the list by the key `(value, kind)` with `Min < Max` at equal
//!    values. When a min end point of `i` moves below a max end point of `j`, the pair may
//!    have started overlapping: it is added if the two boxes overlap on all three axes by
//!    their *current* bounds. When a max of `i` moves below a min of `j`, the pair stopped
//!    overlapping on this axis: it is removed (if present).
//! 3. If the exchanges exceed [`REBUILD_SWAPS_PER_ENDPOINT`] × log₂ per end point in one
//!    update (a teleport, a mass insertion), the remaining sort is done by a full
//!    `sort_unstable` of the three lists and the candidate set is recomputed by one sweep along
//!    the x list; pairs present before and after keep their data (caches survive a rebuild).
//!
//! **Invariants** (between updates; checked by [`SweepAndPrune::check_invariants`], which the
//! tests call after every frame):
//! - each list holds exactly one min and one max end point per live box, with the box's
//!   current bound as value, sorted by `(value, kind)`;
//! - the candidate set is exactly the set of pairs of live boxes whose closed intervals
//!   overlap on all three axes (`lo_i ≤ hi_j` and `lo_j ≤ hi_i` per axis).
//!
//! **Why the rule is exact.** With `Min < Max` at equal values, "max of `i` precedes min of
//! `j` in the list" ⟺ `hi_i < lo_j`: a list position relation is exactly the strict
//! separation of closed intervals, so touching boxes (equal coordinates) count as
//! overlapping, as the narrow phase needs for touching shapes. Insertion sort exchanges each
//! inverted pair of end points exactly once, and only min/max exchanges change an axis's
//! overlap. Consider a pair's last exchange of the update, over all three axes: if it makes
//! the pair overlap on its axis, the pair is added iff the final boxes overlap on all axes;
//! if it separates them on its axis, that axis stays separated to the end and the pair is
//! removed. A pair with no exchange keeps its status, which was right for its unchanged list
//! order. Hence the candidate set is right after any sequence of exchanges, including an
//! aborted one followed by the rebuild.
//!
//! **Departures from I-COLLIDE and why.**
//! - I-COLLIDE keeps an n × n matrix of per-axis overlap flags (three bits per pair) and
//!   toggles a flag per exchange. We keep only the candidate set (a hash map from the pair to
//!   its slot) and test the other two axes of an exchanged pair from the boxes' bounds
//!   directly: memory O(n + candidates) instead of O(n²) (or O(pairs overlapping on one
//!   axis), which for long thin arrangements is most pairs), and the same O(1) per exchange.
//! - The full rebuild when exchanges explode (I-COLLIDE sorts incrementally only).
//! - Boxes: I-COLLIDE used fixed cubes around each body's bounding sphere or dynamically
//!   resized boxes from hill-climbing the extreme vertices. The [`World`] uses the latter:
//!   six hinted, warm-started support climbs per moved body (`support_climb_hinted`; small
//!   hulls: one pass over the vertices, cheaper), exact up to rounding and as tight as the
//!   body, padded by [`crate::core::tolerance::AABB_PAD_REL`].
//!
//! The [`World`] below puts bodies (shape, pose, margin) on top, runs the narrow phase on
//! the candidates through [`crate::query`] with the chosen [`Algorithm`], and lists the
//! answers in a deterministic order (sorted by body handle).

use crate::core::error::PolycdError;
use crate::core::math::{DMat3, DVec3, Pose};
use crate::core::tolerance::{AABB_PAD_REL, MAX_COORDINATE, POSE_UNIT_SLACK};
use crate::query::{self, Algorithm, Distance, Intersection, PairCache, Status};
use crate::shape::polyhedron::ConvexPolyhedron;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

/// An axis-aligned box `[min, max]` (closed: touching boxes overlap).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Lower corner.
    pub min: DVec3,
    /// Upper corner.
    pub max: DVec3,
}

impl Aabb {
    /// Do the closed boxes overlap (touching counts)?
    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        // The six comparisons joined by non-short-circuit `&`: no branch per axis (the sweep's
        // exchanges make these outcomes unpredictable), and no mask assembled from vector
        // lanes (measured: the `cmple(..).bitmask()` form cost about twice the instructions).
        let (a, b) = (self, other);
        (a.min.x <= b.max.x)
            & (b.min.x <= a.max.x)
            & (a.min.y <= b.max.y)
            & (b.min.y <= a.max.y)
            & (a.min.z <= b.max.z)
            & (b.min.z <= a.max.z)
    }

    /// Finite, `min ≤ max` on every axis, within [`MAX_COORDINATE`].
    fn check(&self) -> Result<(), PolycdError> {
        if !self.min.is_finite() || !self.max.is_finite() {
            return Err(PolycdError::NonFinitePose);
        }
        let m = self.min.abs().max(self.max.abs()).max_element();
        if m > MAX_COORDINATE {
            return Err(PolycdError::AbsurdMagnitude { value: m });
        }
        if !self.min.cmple(self.max).all() {
            return Err(PolycdError::InvalidOption {
                name: "aabb",
                message: "min exceeds max on some axis",
            });
        }
        Ok(())
    }
}

/// Above this many exchanges per end point (times log₂ of the number of end points) in one
/// update, insertion sort gives way to a full re-sort and sweep. Insertion sort costs one
/// step per exchange; the rebuild about `3 · 2n log₂ 2n` comparisons plus a sweep, so the
/// switch sits where the two are of the same order. A teleport of one body across the world
/// (about 2n exchanges on one axis) stays incremental; a frame where everything jumps does not.
pub const REBUILD_SWAPS_PER_ENDPOINT: usize = 2;

/// Hulls of at most this many vertices get their box from every vertex (one pass), larger ones
/// from six warm-started support climbs. Measured (callgrind, 1 000 coherently moving bodies,
/// broad phase per frame): climbs everywhere 2.61 M instructions; direct up to 16 vertices
/// 2.04 M, up to 32 1.88 M, up to 64 1.94 M (a 64-vertex hull's climbs beat its full pass).
const DIRECT_BOX_MAX: usize = 32;

/// Are boxes `a` and `b` apart on one of the axes `0..k` (sorted before axis `k` in an
/// update)? A separation exchange on axis `k` need not look the pair up then. Proof: let `m`
/// be the first axis on which the current boxes are apart. If the pair's end points on `m`
/// were in overlapping order before the update, its sort exchanges them, and at that
/// exchange no axis before `m` is apart, so the pair is removed there; if they were already
/// in separated order, the pair was not a candidate. Either way no later step adds it back
/// (an addition needs the current boxes to overlap on every axis).
#[inline]
fn apart_before(a: &Aabb, b: &Aabb, k: usize) -> bool {
    let x = (a.max.x < b.min.x) | (b.max.x < a.min.x);
    let y = (a.max.y < b.min.y) | (b.max.y < a.min.y);
    (k > 0 && x) || (k > 1 && y)
}

/// Per-pair data kept by [`SweepAndPrune`] while the pair is a candidate. A pair leaving the
/// candidate set has its data [`reset`](PairData::reset) and kept for the next new pair
/// (recycled, so scratch capacity survives and steady state does not allocate).
pub trait PairData: Default {
    /// Forget everything about the previous pair (keep capacity).
    fn reset(&mut self) {}
}

impl PairData for () {}

/// One end point of a box's interval on one axis: its value and `id << 1 | is_max`.
#[derive(Clone, Copy, Debug)]
struct Endpoint {
    value: f64,
    tag: u32,
}

impl Endpoint {
    #[inline]
    fn id(self) -> u32 {
        self.tag >> 1
    }
    #[inline]
    fn is_max(self) -> bool {
        self.tag & 1 == 1
    }
    /// The sort key order `(value, kind)`, `Min < Max` at equal values: strictly after?
    #[inline]
    fn after(self, other: Endpoint) -> bool {
        // Non-short-circuit `|` and `&`: one unpredictable branch (the insertion sort's loop
        // exit) instead of three.
        (self.value > other.value) | ((self.value == other.value) & ((self.tag & 1) > (other.tag & 1)))
    }
}

/// A multiplicative hash for the pair keys (two `u32` ids in a `u64`): the keys are not
/// adversarial and SipHash would cost more than the broad phase's exchanges.
#[derive(Default)]
struct PairHasher(u64);

impl Hasher for PairHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    #[inline]
    fn write_u64(&mut self, k: u64) {
        // Fibonacci hashing, high bits folded down (hashbrown uses the top 7 bits as tags and
        // the low bits as the bucket).
        let h = k.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 29);
    }
}

type PairMap = HashMap<u64, u32, BuildHasherDefault<PairHasher>>;

/// Does slot `s` hold the live pair `key`?
#[inline]
fn slot_holds<P>(slots: &[PairSlot<P>], s: u32, key: u64) -> bool {
    let slot = &slots[s as usize];
    slot.live && pair_key(slot.a, slot.b) == key
}

#[inline]
fn pair_key(a: u32, b: u32) -> u64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    (u64::from(lo) << 32) | u64::from(hi)
}

/// A candidate pair (ids `a < b`) and its data.
#[derive(Debug)]
struct PairSlot<P> {
    a: u32,
    b: u32,
    live: bool,
    data: P,
}

/// What one [`SweepAndPrune::update`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SweepStats {
    /// End-point exchanges made by the insertion sorts.
    pub swaps: usize,
    /// True when the exchanges exceeded the budget and the lists were re-sorted in full.
    pub rebuilt: bool,
    /// Pairs that became candidates.
    pub added: usize,
    /// Pairs that stopped being candidates.
    pub removed: usize,
    /// Candidates after the update.
    pub candidates: usize,
}

/// Sweep-and-prune over boxes identified by small integer ids (see the module docs).
///
/// Ids are chosen by the caller (dense: storage is indexed by id). Each candidate pair
/// carries a `P` ([`PairData`]), created (or recycled) when the pair becomes a candidate.
#[derive(Debug)]
pub struct SweepAndPrune<P: PairData = ()> {
    boxes: Vec<Aabb>,
    live: Vec<bool>,
    count: usize,
    axes: [Vec<Endpoint>; 3],
    map: PairMap,
    slots: Vec<PairSlot<P>>,
    free: Vec<u32>,
    /// `(key, slot)` of the live pairs sorted by key (`a`, `b`), refreshed by `update`.
    order: Vec<(u64, u32)>,
    /// `(key, slot)` of the pairs added since the last update (some removed again since).
    added: Vec<(u64, u32)>,
    /// Rebuild scratch: the sweep's active ids, their positions, the new pair keys.
    active: Vec<u32>,
    active_pos: Vec<u32>,
    fresh: Vec<u64>,
    stats: SweepStats,
}

impl<P: PairData> Default for SweepAndPrune<P> {
    fn default() -> Self {
        Self {
            boxes: Vec::new(),
            live: Vec::new(),
            count: 0,
            axes: [Vec::new(), Vec::new(), Vec::new()],
            map: PairMap::default(),
            slots: Vec::new(),
            free: Vec::new(),
            order: Vec::new(),
            added: Vec::new(),
            active: Vec::new(),
            active_pos: Vec::new(),
            fresh: Vec::new(),
            stats: SweepStats::default(),
        }
    }
}

impl<P: PairData> SweepAndPrune<P> {
    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of live boxes.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True when no box is live.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Is `id` a live box?
    pub fn contains(&self, id: u32) -> bool {
        self.live.get(id as usize).copied().unwrap_or(false)
    }

    /// The box of `id` (as last set), if live.
    pub fn aabb(&self, id: u32) -> Option<Aabb> {
        self.contains(id).then(|| self.boxes[id as usize])
    }

    /// Adds box `id` (it takes part from the next [`update`](Self::update) on). Errors: a
    /// non-finite or inverted box, an id already live, or an id beyond `u32::MAX / 2`.
    pub fn insert(&mut self, id: u32, aabb: Aabb) -> Result<(), PolycdError> {
        aabb.check()?;
        if id >= u32::MAX / 2 || self.contains(id) {
            return Err(PolycdError::InvalidOption {
                name: "id",
                message: "id already in use or too large",
            });
        }
        let i = id as usize;
        if self.boxes.len() <= i {
            self.boxes.resize(i + 1, aabb);
            self.live.resize(i + 1, false);
            self.active_pos.resize(i + 1, 0);
        }
        self.boxes[i] = aabb;
        self.live[i] = true;
        self.count += 1;
        // Appended after every end point, min then max: in list order the new box is apart
        // from every other box, which matches its absence from the candidate set; the next
        // update sorts it in and meets every overlap as an exchange.
        for axis in &mut self.axes {
            axis.push(Endpoint {
                value: f64::INFINITY,
                tag: id << 1,
            });
            axis.push(Endpoint {
                value: f64::INFINITY,
                tag: (id << 1) | 1,
            });
        }
        Ok(())
    }

    /// Moves box `id` (effective at the next [`update`](Self::update)).
    pub fn set_aabb(&mut self, id: u32, aabb: Aabb) -> Result<(), PolycdError> {
        aabb.check()?;
        if !self.contains(id) {
            return Err(PolycdError::InvalidOption {
                name: "id",
                message: "no such box",
            });
        }
        self.boxes[id as usize] = aabb;
        Ok(())
    }

    /// Removes box `id` and every candidate pair it is in (immediately). Returns false if it
    /// was not live.
    pub fn remove(&mut self, id: u32) -> bool {
        if !self.contains(id) {
            return false;
        }
        self.live[id as usize] = false;
        self.count -= 1;
        for axis in &mut self.axes {
            axis.retain(|e| e.id() != id);
        }
        for s in 0..self.slots.len() {
            let slot = &self.slots[s];
            if slot.live && (slot.a == id || slot.b == id) {
                let key = pair_key(slot.a, slot.b);
                self.drop_slot(key, s as u32);
            }
        }
        let slots = &self.slots;
        self.order.retain(|&(k, s)| slot_holds(slots, s, k));
        true
    }

    /// Re-sorts the end points after the boxes moved and updates the candidate set (module
    /// docs). Allocation-free once the containers have reached their working sizes.
    pub fn update(&mut self) -> SweepStats {
        self.stats = SweepStats::default();
        let n_ends = self.axes[0].len();
        let log2 = (usize::BITS - n_ends.leading_zeros()) as usize;
        let budget = REBUILD_SWAPS_PER_ENDPOINT * n_ends * log2.max(1) + 64;
        let mut swaps = 0usize;
        let mut aborted = false;
        for k in 0..3 {
            self.refresh(k);
            if !aborted && !self.insertion_sort(k, &mut swaps, budget) {
                aborted = true;
            }
        }
        self.stats.swaps = swaps;
        if aborted {
            self.rebuild();
            self.stats.rebuilt = true;
        }
        self.merge_order();
        self.stats.candidates = self.order.len();
        self.stats
    }

    /// Copies the boxes' current bounds into axis `k`'s end points (`+ 0.0` makes a `-0.0`
    /// bound `+0.0`, so the full sort's `total_cmp` agrees with `==`).
    fn refresh(&mut self, k: usize) {
        let boxes = &self.boxes;
        for e in &mut self.axes[k] {
            let b = &boxes[e.id() as usize];
            // Selected by index, not by a branch on the kind (which alternates unpredictably).
            e.value = [b.min[k], b.max[k]][(e.tag & 1) as usize] + 0.0;
        }
    }

    /// Insertion sort of axis `k` with the exchange rule; false when the budget ran out (the
    /// list is then a permutation, partly sorted).
    fn insertion_sort(&mut self, k: usize, swaps: &mut usize, budget: usize) -> bool {
        // The list is taken out of `self` for the sort (no allocation: an empty vector is left
        // in its place), so the exchanges below can update the pair set through `self`.
        let mut axis = std::mem::take(&mut self.axes[k]);
        let done = self.insertion_sort_list(&mut axis, k, swaps, budget);
        self.axes[k] = axis;
        done
    }

    fn insertion_sort_list(&mut self, axis: &mut [Endpoint], k: usize, swaps: &mut usize, budget: usize) -> bool {
        let n = axis.len();
        for i in 1..n {
            let e = axis[i];
            let mut j = i;
            while j > 0 {
                let f = axis[j - 1];
                if !f.after(e) {
                    break;
                }
                if e.is_max() != f.is_max() {
                    let (ie, jf) = (e.id(), f.id());
                    if e.is_max() {
                        // hi_e now below lo_f: separated on this axis. The lookup is skipped
                        // when the current boxes are apart on an axis sorted before this one
                        // (see `apart_before`): most pairs that pass each other on y or z are
                        // not near on x.
                        if !apart_before(&self.boxes[ie as usize], &self.boxes[jf as usize], k) {
                            self.remove_pair(ie, jf);
                        }
                    } else if self.boxes[ie as usize].overlaps(&self.boxes[jf as usize]) {
                        // lo_e now at or below hi_f: overlapping on this axis; the other two
                        // are tested from the bounds.
                        self.add_pair(ie, jf);
                    }
                }
                axis[j] = f;
                j -= 1;
                *swaps += 1;
                if *swaps > budget {
                    axis[j] = e;
                    return false;
                }
            }
            axis[j] = e;
        }
        true
    }

    /// Full re-sort of every axis and recomputation of the candidate set by one sweep along x.
    fn rebuild(&mut self) {
        for axis in &mut self.axes {
            axis.sort_unstable_by(|p, q| {
                p.value
                    .total_cmp(&q.value)
                    .then((p.tag & 1).cmp(&(q.tag & 1)))
                    .then(p.tag.cmp(&q.tag))
            });
        }
        self.fresh.clear();
        self.active.clear();
        for e in &self.axes[0] {
            let i = e.id();
            if e.is_max() {
                let p = self.active_pos[i as usize] as usize;
                self.active.swap_remove(p);
                if let Some(&moved) = self.active.get(p) {
                    self.active_pos[moved as usize] = p as u32;
                }
            } else {
                let bi = &self.boxes[i as usize];
                for &j in &self.active {
                    if bi.overlaps(&self.boxes[j as usize]) {
                        self.fresh.push(pair_key(i, j));
                    }
                }
                self.active_pos[i as usize] = self.active.len() as u32;
                self.active.push(i);
            }
        }
        self.fresh.sort_unstable();
        for s in 0..self.slots.len() {
            let slot = &self.slots[s];
            if slot.live {
                let key = pair_key(slot.a, slot.b);
                if self.fresh.binary_search(&key).is_err() {
                    self.drop_slot(key, s as u32);
                    self.stats.removed += 1;
                }
            }
        }
        for f in 0..self.fresh.len() {
            let key = self.fresh[f];
            self.add_pair((key >> 32) as u32, key as u32);
        }
    }

    fn add_pair(&mut self, i: u32, j: u32) {
        let key = pair_key(i, j);
        if self.map.contains_key(&key) {
            return;
        }
        // The map grows only when its items (not its deletion markers) fill half its buckets;
        // otherwise running out of free buckets rehashes in place. So once the candidate count
        // has reached its high-water mark, insertions and removals do not allocate.
        let (a, b) = ((key >> 32) as u32, key as u32);
        let s = match self.free.pop() {
            Some(s) => {
                let slot = &mut self.slots[s as usize];
                slot.a = a;
                slot.b = b;
                slot.live = true;
                s
            }
            None => {
                self.slots.push(PairSlot {
                    a,
                    b,
                    live: true,
                    data: P::default(),
                });
                // The free list and the sorted order never hold more than every slot: sized
                // with the slots, they never grow at a later frame.
                let n = self.slots.len();
                self.free.reserve(n.saturating_sub(self.free.len()));
                self.order.reserve((2 * n).saturating_sub(self.order.len()));
                self.fresh.reserve(n.saturating_sub(self.fresh.len()));
                (self.slots.len() - 1) as u32
            }
        };
        self.map.insert(key, s);
        self.added.push((key, s));
        self.stats.added += 1;
    }

    fn remove_pair(&mut self, i: u32, j: u32) {
        let key = pair_key(i, j);
        if let Some(&s) = self.map.get(&key) {
            self.drop_slot(key, s);
            self.stats.removed += 1;
        }
    }

    fn drop_slot(&mut self, key: u64, s: u32) {
        self.map.remove(&key);
        let slot = &mut self.slots[s as usize];
        slot.live = false;
        slot.data.reset();
        self.free.push(s);
    }

    /// Brings `order` up to date: drops the entries of removed pairs, merges in the added ones
    /// (sorted), in place. O(candidates + a log a) for `a` additions, no allocation once the
    /// vectors have their capacity (`add_pair` reserves it with the slots).
    fn merge_order(&mut self) {
        if self.stats.added == 0 && self.stats.removed == 0 {
            return;
        }
        let slots = &self.slots;
        self.order.retain(|&(k, s)| slot_holds(slots, s, k));
        self.added.retain(|&(k, s)| slot_holds(slots, s, k));
        self.added.sort_unstable();
        self.added.dedup();
        let (old, m) = (self.order.len(), self.added.len());
        // Merge from the back: the largest remaining entry of either list goes last.
        self.order.resize(old + m, (0, 0));
        let (mut i, mut j, mut k) = (old, m, old + m);
        while j > 0 {
            k -= 1;
            if i > 0 && self.order[i - 1] > self.added[j - 1] {
                self.order[k] = self.order[i - 1];
                i -= 1;
            } else {
                self.order[k] = self.added[j - 1];
                j -= 1;
            }
        }
        // A pair removed and added again in one update, into the same slot, is in both lists.
        self.order.dedup();
        self.added.clear();
    }

    /// Number of candidate pairs.
    pub fn candidate_count(&self) -> usize {
        self.map.len()
    }

    /// The candidate pairs `(a, b)` with `a < b`, sorted, as of the last
    /// [`update`](Self::update) (pairs of boxes removed since are left out).
    pub fn pairs(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.order.iter().map(|&(_, s)| {
            let slot = &self.slots[s as usize];
            (slot.a, slot.b)
        })
    }

    /// The candidate pairs with their data, sorted as [`pairs`](Self::pairs).
    pub fn pairs_with_data(&self) -> impl Iterator<Item = (u32, u32, &P)> + '_ {
        self.order.iter().map(|&(_, s)| {
            let slot = &self.slots[s as usize];
            (slot.a, slot.b, &slot.data)
        })
    }

    /// Visits every candidate pair in sorted order with mutable access to its data.
    pub fn for_each_pair_mut<E>(&mut self, mut f: impl FnMut(u32, u32, &mut P) -> Result<(), E>) -> Result<(), E> {
        for &(_, s) in &self.order {
            let slot = &mut self.slots[s as usize];
            f(slot.a, slot.b, &mut slot.data)?;
        }
        Ok(())
    }

    /// The data of candidate pair `(a, b)` (either order).
    pub fn pair_data(&self, a: u32, b: u32) -> Option<&P> {
        self.map.get(&pair_key(a, b)).map(|&s| &self.slots[s as usize].data)
    }

    /// Checks the invariants of the module docs by brute force (O(n² + n log n)): the lists
    /// hold each live box's current bounds once, sorted by `(value, kind)`; the candidate set
    /// is exactly the pairs of overlapping live boxes. For tests; `Err` names the first
    /// violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        for (k, axis) in self.axes.iter().enumerate() {
            if axis.len() != 2 * self.count {
                return Err(format!("axis {k}: {} end points for {} boxes", axis.len(), self.count));
            }
            let mut seen = vec![0u8; self.boxes.len()];
            for (p, e) in axis.iter().enumerate() {
                let i = e.id() as usize;
                if !self.contains(e.id()) {
                    return Err(format!("axis {k}: end point of dead box {i}"));
                }
                let b = &self.boxes[i];
                let want = if e.is_max() { b.max[k] } else { b.min[k] };
                if e.value != want {
                    return Err(format!("axis {k}: box {i} end point {} vs bound {want}", e.value));
                }
                seen[i] += 1 + u8::from(e.is_max());
                if p > 0 && axis[p - 1].after(*e) {
                    return Err(format!("axis {k}: unsorted at {p}"));
                }
            }
            if let Some(i) = (0..self.boxes.len()).find(|&i| self.live[i] && seen[i] != 3) {
                return Err(format!("axis {k}: box {i} has end points {}", seen[i]));
            }
        }
        let ids: Vec<u32> = (0..self.boxes.len() as u32).filter(|&i| self.contains(i)).collect();
        let mut want = Vec::new();
        for (x, &i) in ids.iter().enumerate() {
            for &j in &ids[x + 1..] {
                if self.boxes[i as usize].overlaps(&self.boxes[j as usize]) {
                    want.push(pair_key(i, j));
                }
            }
        }
        let mut have: Vec<u64> = self.map.keys().copied().collect();
        have.sort_unstable();
        if have != want {
            let missing = want.iter().find(|k| have.binary_search(k).is_err());
            let extra = have.iter().find(|k| want.binary_search(k).is_err());
            return Err(format!(
                "candidates: {} vs {} overlapping; missing {missing:?}, extra {extra:?}",
                have.len(),
                want.len()
            ));
        }
        for (&key, &s) in &self.map {
            if !slot_holds(&self.slots, s, key) {
                return Err(format!("pair map entry {key:x} points at a wrong slot"));
            }
        }
        let listed: Vec<u64> = self.order.iter().map(|e| e.0).collect();
        if listed != have || self.order.iter().any(|&(k, s)| !slot_holds(&self.slots, s, k)) {
            return Err(format!(
                "sorted pair list ({}) differs from the candidates ({})",
                listed.len(),
                have.len()
            ));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// World: bodies, poses, broad + narrow phase.
// ---------------------------------------------------------------------------------------------

/// A body in a [`World`]: a slot index and the slot's generation (a handle of a removed body
/// is refused even when its slot is reused). Ordered by index, which is the order pairs are
/// reported in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyHandle {
    index: u32,
    generation: u32,
}

impl BodyHandle {
    /// The slot index (dense, reused after removal).
    pub fn index(self) -> u32 {
        self.index
    }
}

/// Which narrow-phase question a [`World`] asks of its candidate pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PairQuery {
    /// [`query::distance`]: distance and closest points, or penetration.
    #[default]
    Distance,
    /// [`query::intersect`]: overlap status with a witness.
    Intersect,
}

/// Options of a [`World`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldOptions {
    /// The narrow-phase algorithm. Default V-Clip: the candidates of a coherent simulation
    /// are queried frame after frame, which is what V-Clip's feature tracking is fast at.
    pub algorithm: Algorithm,
    /// The narrow-phase question.
    pub query: PairQuery,
}

impl Default for WorldOptions {
    fn default() -> Self {
        Self {
            algorithm: Algorithm::VClip,
            query: PairQuery::Distance,
        }
    }
}

/// The narrow phase's answer for one candidate pair (world frame, body `a` as shape A).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PairAnswer {
    /// From [`query::distance`].
    Distance(Distance),
    /// From [`query::intersect`].
    Intersection(Intersection),
}

/// One candidate pair's state: its coherence cache and its last answer.
#[derive(Debug, Default)]
pub struct PairState {
    cache: PairCache,
    answer: Option<(PairAnswer, Status)>,
    /// The frame the answer was computed in.
    frame: u64,
}

impl PairData for PairState {
    fn reset(&mut self) {
        self.cache.forget();
        self.answer = None;
        self.frame = 0;
    }
}

/// One candidate pair as reported by [`World::pairs`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairReport {
    /// The body of lower index (shape A of the query).
    pub a: BodyHandle,
    /// The other body (shape B).
    pub b: BodyHandle,
    /// The narrow-phase answer.
    pub answer: PairAnswer,
    /// Its contact status ([`Distance::status`] with the pair's
    /// [`query::contact_tolerance`]).
    pub status: Status,
}

impl PairReport {
    /// Signed distance when known (distance apart, minus the depth when penetrating), `Some(0)`
    /// for a touching intersection answer, `None` otherwise.
    pub fn signed_distance(&self) -> Option<f64> {
        match &self.answer {
            PairAnswer::Distance(d) => d.signed_distance(),
            PairAnswer::Intersection(Intersection::Touching { .. }) => Some(0.0),
            PairAnswer::Intersection(_) => None,
        }
    }
}

#[derive(Debug)]
struct Body {
    shape: Arc<ConvexPolyhedron>,
    pose: Pose,
    margin: f64,
    /// Warm vertices of the six support climbs (+x, −x, +y, −y, +z, −z).
    warm: [u32; 6],
    /// The first frame (broad-phase update) that sees the body's last pose or margin change.
    changed: u64,
}

#[derive(Debug, Default)]
struct BodySlot {
    generation: u32,
    body: Option<Body>,
}

/// What one [`World::update`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorldStats {
    /// The broad phase's figures.
    pub sweep: SweepStats,
    /// Boxes computed since the previous update (insertions, pose and margin changes).
    pub boxes: usize,
    /// Narrow-phase queries run (candidates with a moved body, or new).
    pub queries: usize,
}

/// Many convex bodies with poses; each [`update`](World::update) finds the pairs whose boxes
/// overlap (sweep-and-prune, module docs) and runs the narrow phase on them.
///
/// ```
/// use polycd::broad::World;
/// use polycd::{shapes, DVec3, Pose};
/// use std::sync::Arc;
///
/// let cube = Arc::new(shapes::cuboid(1.0, 1.0, 1.0).unwrap());
/// let mut world = World::default(); // V-Clip distance on every candidate pair
/// let a = world.insert(cube.clone(), Pose::IDENTITY).unwrap();
/// let b = world.insert(cube.clone(), Pose::from_translation(DVec3::new(1.5, 0.0, 0.0))).unwrap();
/// let _far = world.insert(cube, Pose::from_translation(DVec3::new(9.0, 0.0, 0.0))).unwrap();
/// world.set_margin(a, 0.5).unwrap(); // report b when within 0.5 of a
/// world.update().unwrap();
/// let near: Vec<_> = world.within(0.5).collect();
/// assert_eq!(near.len(), 1);
/// assert_eq!((near[0].a, near[0].b), (a, b));
/// assert!((near[0].signed_distance().unwrap() - 0.5).abs() < 1e-12);
/// ```
#[derive(Debug, Default)]
pub struct World {
    options: WorldOptions,
    slots: Vec<BodySlot>,
    free: Vec<u32>,
    sap: SweepAndPrune<PairState>,
    /// Frame counter: incremented by each [`World::update_broad_phase`].
    frame: u64,
    /// Boxes computed since the last broad phase.
    boxes: usize,
    stats: WorldStats,
}

impl World {
    /// An empty world with these options.
    pub fn new(options: WorldOptions) -> Self {
        Self {
            options,
            ..Self::default()
        }
    }

    /// The options.
    pub fn options(&self) -> WorldOptions {
        self.options
    }

    /// Number of bodies.
    pub fn len(&self) -> usize {
        self.sap.len()
    }

    /// True when there are no bodies.
    pub fn is_empty(&self) -> bool {
        self.sap.is_empty()
    }

    /// Adds a body (margin 0). Errors: a bad pose ([`World::set_pose`]).
    pub fn insert(&mut self, shape: Arc<ConvexPolyhedron>, pose: Pose) -> Result<BodyHandle, PolycdError> {
        let pose = checked_unit_pose(&pose)?;
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                self.slots.push(BodySlot::default());
                (self.slots.len() - 1) as u32
            }
        };
        let mut warm = [0; 6];
        let aabb = shape_aabb(&shape, &pose, 0.0, &mut warm);
        let body = Body {
            shape,
            pose,
            margin: 0.0,
            warm,
            changed: self.frame + 1,
        };
        self.boxes += 1;
        if let Err(e) = self.sap.insert(index, aabb) {
            self.free.push(index);
            return Err(e);
        }
        let slot = &mut self.slots[index as usize];
        slot.body = Some(body);
        Ok(BodyHandle {
            index,
            generation: slot.generation,
        })
    }

    /// Removes a body and its pairs (their caches are recycled). Returns false for a stale
    /// handle.
    pub fn remove(&mut self, h: BodyHandle) -> bool {
        if self.body(h).is_none() {
            return false;
        }
        let slot = &mut self.slots[h.index as usize];
        slot.body = None;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(h.index);
        self.sap.remove(h.index)
    }

    fn body(&self, h: BodyHandle) -> Option<&Body> {
        let slot = self.slots.get(h.index as usize)?;
        (slot.generation == h.generation).then_some(())?;
        slot.body.as_ref()
    }

    fn body_mut(&mut self, h: BodyHandle) -> Result<&mut Body, PolycdError> {
        match self.slots.get_mut(h.index as usize) {
            Some(BodySlot {
                generation,
                body: Some(body),
            }) if *generation == h.generation => Ok(body),
            _ => Err(PolycdError::InvalidOption {
                name: "body",
                message: "stale or unknown body handle",
            }),
        }
    }

    /// Is `h` a live body?
    pub fn contains(&self, h: BodyHandle) -> bool {
        self.body(h).is_some()
    }

    /// The handles of every body, by index.
    pub fn handles(&self) -> impl Iterator<Item = BodyHandle> + '_ {
        self.slots.iter().enumerate().filter_map(|(i, s)| {
            s.body.as_ref().map(|_| BodyHandle {
                index: i as u32,
                generation: s.generation,
            })
        })
    }

    /// A body's shape.
    pub fn shape(&self, h: BodyHandle) -> Option<&Arc<ConvexPolyhedron>> {
        self.body(h).map(|b| &b.shape)
    }

    /// A body's pose (with its rotation normalised as it is used).
    pub fn pose(&self, h: BodyHandle) -> Option<Pose> {
        self.body(h).map(|b| b.pose)
    }

    /// A body's current box (as of its last pose or margin change: the shape at its pose,
    /// padded by [`AABB_PAD_REL`] and grown by its margin).
    pub fn aabb(&self, h: BodyHandle) -> Option<Aabb> {
        self.body(h).and_then(|_| self.sap.aabb(h.index))
    }

    /// Moves a body (effective at the next update). Errors: a stale handle
    /// ([`PolycdError::InvalidOption`]); a non-finite pose ([`PolycdError::NonFinitePose`]); a
    /// zero quaternion ([`PolycdError::ZeroQuaternion`]); a quaternion whose squared length is
    /// off 1 by more than [`POSE_UNIT_SLACK`] ([`PolycdError::NonUnitQuaternion`]); a
    /// translation beyond [`MAX_COORDINATE`] ([`PolycdError::AbsurdMagnitude`]). On error the
    /// body keeps its previous pose.
    pub fn set_pose(&mut self, h: BodyHandle, pose: Pose) -> Result<(), PolycdError> {
        let pose = checked_unit_pose(&pose)?;
        let margin = self.body_mut(h)?.margin;
        self.place(h, pose, margin)
    }

    /// Sets a body's margin `m ≥ 0`: its box grows by `m` on every side, so a pair of bodies
    /// at distance at most `m_a + m_b` is always a candidate (an axis gap never exceeds the
    /// distance). Use it to ask "which bodies are within `d`" ([`World::within`]).
    pub fn set_margin(&mut self, h: BodyHandle, margin: f64) -> Result<(), PolycdError> {
        if !(margin >= 0.0) || margin > MAX_COORDINATE {
            return Err(PolycdError::InvalidOption {
                name: "margin",
                message: "must be finite and non-negative",
            });
        }
        let pose = self.body_mut(h)?.pose;
        self.place(h, pose, margin)
    }

    /// Gives body `h` a checked pose and margin and its new box; on an error (a box beyond
    /// the coordinate limit) the body keeps its previous pose and margin.
    fn place(&mut self, h: BodyHandle, pose: Pose, margin: f64) -> Result<(), PolycdError> {
        let frame = self.frame;
        let body = self.body_mut(h)?;
        let mut warm = body.warm;
        let aabb = shape_aabb(&body.shape, &pose, margin, &mut warm);
        aabb.check()?;
        body.pose = pose;
        body.margin = margin;
        body.warm = warm;
        body.changed = frame + 1;
        self.boxes += 1;
        self.sap.set_aabb(h.index, aabb)
    }

    /// Broad phase then narrow phase ([`World::update_broad_phase`],
    /// [`World::update_narrow_phase`]).
    pub fn update(&mut self) -> Result<WorldStats, PolycdError> {
        self.update_broad_phase();
        self.update_narrow_phase()
    }

    /// Sweep-and-prune only: the candidate set of the current boxes. The pairs' answers are
    /// those of the previous narrow phase (none for new pairs) until
    /// [`World::update_narrow_phase`] runs.
    pub fn update_broad_phase(&mut self) -> SweepStats {
        self.frame += 1;
        self.stats = WorldStats {
            sweep: self.sap.update(),
            boxes: self.boxes,
            queries: 0,
        };
        self.boxes = 0;
        self.stats.sweep
    }

    /// The narrow phase on every candidate pair whose answer is missing or older than one of
    /// its bodies' last move (pairs of bodies at rest keep their answer), in sorted order.
    /// Errors: the algorithm does not answer the question ([`PolycdError::Unsupported`], on the
    /// first pair queried: poses were validated when set); the pairs not reached keep their
    /// previous answer (or none) and are queried again by the next successful call.
    pub fn update_narrow_phase(&mut self) -> Result<WorldStats, PolycdError> {
        let (slots, options, frame) = (&self.slots, self.options, self.frame);
        let mut queries = 0;
        self.sap.for_each_pair_mut(|a, b, pair| {
            let (Some(ba), Some(bb)) = (&slots[a as usize].body, &slots[b as usize].body) else {
                return Ok(());
            };
            if pair.answer.is_some() && ba.changed <= pair.frame && bb.changed <= pair.frame {
                return Ok(());
            }
            let (sa, pa, sb, pb) = (&*ba.shape, &ba.pose, &*bb.shape, &bb.pose);
            let answer = match options.query {
                PairQuery::Distance => {
                    let d = query::distance(sa, pa, sb, pb, options.algorithm, &mut pair.cache)?;
                    let tol = query::contact_tolerance(sa, pa, sb, pb);
                    (PairAnswer::Distance(d), d.status(tol))
                }
                PairQuery::Intersect => {
                    let i = query::intersect(sa, pa, sb, pb, options.algorithm, &mut pair.cache)?;
                    (PairAnswer::Intersection(i), i.status())
                }
            };
            pair.answer = Some(answer);
            pair.frame = frame;
            queries += 1;
            Ok::<(), PolycdError>(())
        })?;
        self.stats.queries = queries;
        Ok(self.stats)
    }

    /// The figures of the last update.
    pub fn stats(&self) -> WorldStats {
        self.stats
    }

    /// The broad phase (its candidate pairs are body indices).
    pub fn broad_phase(&self) -> &SweepAndPrune<PairState> {
        &self.sap
    }

    fn handle(&self, index: u32) -> BodyHandle {
        BodyHandle {
            index,
            generation: self.slots[index as usize].generation,
        }
    }

    /// Every candidate pair with a narrow-phase answer, sorted by `(a, b)` handle index.
    pub fn pairs(&self) -> impl Iterator<Item = PairReport> + '_ {
        self.sap.pairs_with_data().filter_map(move |(a, b, p)| {
            let (answer, status) = p.answer?;
            Some(PairReport {
                a: self.handle(a),
                b: self.handle(b),
                answer,
                status,
            })
        })
    }

    /// The pairs that touch or overlap (status [`Status::Touching`] or
    /// [`Status::Overlapping`]), sorted.
    pub fn contacts(&self) -> impl Iterator<Item = PairReport> + '_ {
        self.pairs()
            .filter(|p| matches!(p.status, Status::Touching | Status::Overlapping))
    }

    /// The pairs whose distance is at most `d` (touching and overlapping pairs included),
    /// sorted. Complete only when every pair's margins sum to at least `d`
    /// ([`World::set_margin`]); with [`PairQuery::Intersect`] only contacts are listed.
    pub fn within(&self, d: f64) -> impl Iterator<Item = PairReport> + '_ {
        self.pairs().filter(move |p| {
            matches!(p.status, Status::Touching | Status::Overlapping) || p.signed_distance().is_some_and(|s| s <= d)
        })
    }
}

/// The pose validated for the world: finite, translation within [`MAX_COORDINATE`], the
/// quaternion unit within [`POSE_UNIT_SLACK`] (normalised unless already unit within the
/// query layer's slack, as [`crate::query`] would use it).
fn checked_unit_pose(p: &Pose) -> Result<Pose, PolycdError> {
    // The query layer's checks (finite, non-zero quaternion, magnitude) and normalisation,
    // plus the world's own: a quaternion far from unit is refused, not normalised.
    let checked = crate::contract::checked_pose(p)?;
    let l2 = p.rotation.length_squared();
    if (l2 - 1.0).abs() > POSE_UNIT_SLACK {
        return Err(PolycdError::NonUnitQuaternion { length: l2.sqrt() });
    }
    Ok(checked)
}

/// The body's box: per world axis ±e_k, the support vertex of the shape along the local
/// direction `±Rᵀe_k` (row k of R) and its world coordinate `row_k · v + t_k` — found by a
/// hinted climb from the last frame's vertex, or for hulls of at most [`DIRECT_BOX_MAX`]
/// vertices by computing every vertex's coordinates; padded by [`AABB_PAD_REL`] × (shape
/// scale + coordinate magnitude + largest translation component), then grown by the margin.
///
/// Why extreme vertices and not the rotated local box: the box is as tight as the shape (a
/// rotated local box is up to √3 times wider for round shapes: more candidates), and under
/// coherence each climb is a step or two. Containment: the climb's vertex maximises the
/// rounded dot product, so a vertex it missed is above it by rounding only (a few ulps of the
/// coordinates), and every coordinate the narrow phase computes from the pose differs from
/// `row_k · v + t_k` by rounding as well; the pad is hundreds of ulps of that scale.
fn shape_aabb(s: &ConvexPolyhedron, pose: &Pose, margin: f64, warm: &mut [u32; 6]) -> Aabb {
    let r = DMat3::from_quat(pose.rotation);
    let t = pose.translation;
    let rows = [r.row(0), r.row(1), r.row(2)];
    let mut lo = DVec3::ZERO;
    let mut hi = DVec3::ZERO;
    if s.vertices().len() <= DIRECT_BOX_MAX {
        // Every vertex through the rotation: for small hulls one pass of three dot products per
        // vertex costs less than six climbs (the same products, so the same box).
        let (mut l, mut h) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
        for &v in s.vertices() {
            let p = DVec3::new(rows[0].dot(v), rows[1].dot(v), rows[2].dot(v));
            l = l.min(p);
            h = h.max(p);
        }
        lo = l + t;
        hi = h + t;
    }
    for k in (0..3).filter(|_| s.vertices().len() > DIRECT_BOX_MAX) {
        let up = s.support_climb_hinted(rows[k], warm[2 * k]);
        let down = s.support_climb_hinted(-rows[k], warm[2 * k + 1]);
        warm[2 * k] = up;
        warm[2 * k + 1] = down;
        hi[k] = rows[k].dot(s.vertex(up)) + t[k];
        lo[k] = rows[k].dot(s.vertex(down)) + t[k];
    }
    let pad = AABB_PAD_REL * (s.scale() + s.magnitude() + t.abs().max_element()) + margin;
    Aabb {
        min: lo - DVec3::splat(pad),
        max: hi + DVec3::splat(pad),
    }
}
