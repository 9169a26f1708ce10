//! Sweep-and-prune over axis-aligned boxes: end points kept sorted per axis by insertion
//! sort, overlap changes found at min/max exchanges (see the module header of [`crate::broad`]);
//! from [`GRID_MIN_BOXES`] boxes on, the candidates are found by a uniform grid instead
//! ([`super::grid`]).

use crate::core::error::PolycdError;
use crate::core::hash::{pair_key, IdBuildHasher};
use std::collections::HashMap;

pub use super::aabb::Aabb;
use super::grid::{Grid, GRID_MIN_BOXES};

/// Above this many exchanges per end point (times log₂ of the number of end points) in one
/// update, insertion sort gives way to a full re-sort and sweep. Insertion sort costs one
/// step per exchange; the rebuild about `3 · 2n log₂ 2n` comparisons plus a sweep, so the
/// switch sits where the two are of the same order. A teleport of one body across the world
/// (about 2n exchanges on one axis) stays incremental; a frame where everything jumps does not.
pub const REBUILD_SWAPS_PER_ENDPOINT: usize = 2;

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

type PairMap = HashMap<u64, u32, IdBuildHasher>;

/// Does slot `s` hold the live pair `key`?
#[inline]
fn slot_holds<P>(slots: &[PairSlot<P>], s: u32, key: u64) -> bool {
    let slot = &slots[s as usize];
    slot.live && pair_key(slot.a, slot.b) == key
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
    /// The grid path ([`GRID_MIN_BOXES`]): its state, the box count it starts at, whether
    /// the end-point lists were left stale by it, and the second buffer of `order`.
    grid: Grid,
    grid_min: usize,
    lists_stale: bool,
    order_next: Vec<(u64, u32)>,
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
            grid: Grid::default(),
            grid_min: GRID_MIN_BOXES,
            lists_stale: false,
            order_next: Vec::new(),
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

    /// From this many live boxes on, [`update`](Self::update) finds the candidates with the
    /// uniform grid described at [`GRID_MIN_BOXES`] (default [`GRID_MIN_BOXES`]; 0: always, `usize::MAX`: never).
    /// The candidate set and the pairs' data are the same either way.
    pub fn set_grid_threshold(&mut self, boxes: usize) {
        self.grid_min = boxes;
    }

    /// Re-sorts the end points after the boxes moved and updates the candidate set (module
    /// docs); with [`GRID_MIN_BOXES`] boxes or more, recomputes the candidate set by the grid
    /// and merges it into the last one (pairs present in both keep their data).
    /// Allocation-free once the containers have reached their working sizes.
    pub fn update(&mut self) -> SweepStats {
        self.stats = SweepStats::default();
        if self.count >= self.grid_min {
            self.update_grid();
            self.stats.candidates = self.order.len();
            return self.stats;
        }
        if self.lists_stale {
            // Back from the grid: the lists are re-sorted and the set recomputed.
            for k in 0..3 {
                self.refresh(k);
            }
            self.rebuild();
            self.lists_stale = false;
            self.stats.rebuilt = true;
            self.merge_order();
            self.stats.candidates = self.order.len();
            return self.stats;
        }
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

    /// The grid path: every overlapping pair, sorted, merged with the sorted candidate list
    /// (one pass): pairs in both keep their slot, pairs only in the old list are dropped,
    /// pairs only in the new one get a slot. The end-point lists are not maintained.
    fn update_grid(&mut self) {
        self.lists_stale = true;
        let mut fresh = std::mem::take(&mut self.fresh);
        self.grid.pairs(&self.boxes, &self.live, &mut fresh);
        let old = std::mem::take(&mut self.order);
        let mut next = std::mem::take(&mut self.order_next);
        next.clear();
        // The new list is exactly the fresh set.
        next.reserve(fresh.len());
        let (mut i, mut j) = (0, 0);
        while i < old.len() || j < fresh.len() {
            let o = old.get(i).copied();
            let f = fresh.get(j).copied();
            match (o, f) {
                (Some((ko, s)), Some(kf)) if ko == kf => {
                    next.push((ko, s));
                    i += 1;
                    j += 1;
                }
                (Some((ko, s)), f) if f.is_none_or(|kf| ko < kf) => {
                    self.drop_slot(ko, s);
                    self.stats.removed += 1;
                    i += 1;
                }
                (_, Some(kf)) => {
                    let s = self.new_slot(kf);
                    next.push((kf, s));
                    self.stats.added += 1;
                    j += 1;
                }
                // Both exhausted is the loop's exit; listed for completeness.
                (_, None) => break,
            }
        }
        self.order = next;
        self.order_next = old;
        self.fresh = fresh;
        self.added.clear();
        self.reserve_with_slots();
    }

    fn add_pair(&mut self, i: u32, j: u32) {
        let key = pair_key(i, j);
        if self.map.contains_key(&key) {
            return;
        }
        let slots = self.slots.len();
        let s = self.new_slot(key);
        if self.slots.len() > slots {
            self.reserve_with_slots();
        }
        self.added.push((key, s));
        self.stats.added += 1;
    }

    /// Sizes the sorted order, its second buffer and the fresh-key scratch with the slots (they
    /// never hold more entries than there are slots, twice for the merges), so they never grow
    /// at a later frame. Called where those vectors are in place: after a slot is added by the
    /// sweep, and at the end of the grid path (which takes them out of `self` while it creates
    /// slots: reserving then would allocate on the empty vectors left in their place).
    fn reserve_with_slots(&mut self) {
        let n = self.slots.len();
        self.order.reserve((2 * n).saturating_sub(self.order.len()));
        self.order_next.reserve((2 * n).saturating_sub(self.order_next.len()));
        self.fresh.reserve(n.saturating_sub(self.fresh.len()));
    }

    /// A slot (recycled or new) for the new candidate `key`, entered in the map.
    fn new_slot(&mut self, key: u64) -> u32 {
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
                // The free list never holds more than every slot: sized with the slots, it
                // never grows at a later frame (the other lists: `reserve_with_slots`).
                let n = self.slots.len();
                self.free.reserve(n.saturating_sub(self.free.len()));
                (self.slots.len() - 1) as u32
            }
        };
        self.map.insert(key, s);
        s
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

    /// Calls `f` on every candidate pair's data — in the order of the slots in memory, or, with
    /// `parallel` (and the cargo feature `parallel`), on every core in any order — and visits every pair even when
    /// some fail. Returns the sum of `f`'s counts, or the error of the first failing pair in
    /// sorted order: the same result either way when `f` depends only on its own pair.
    pub fn try_for_each_pair_all<E: Send>(
        &mut self,
        parallel: bool,
        f: impl Fn(u32, u32, &mut P) -> Result<usize, E> + Sync,
    ) -> Result<usize, E>
    where
        P: Send,
    {
        #[cfg(feature = "parallel")]
        if parallel {
            use rayon::prelude::*;
            let (n, err) = self
                .slots
                .par_iter_mut()
                .filter(|slot| slot.live)
                .map(|slot| match f(slot.a, slot.b, &mut slot.data) {
                    Ok(n) => (n, None),
                    Err(e) => (0, Some((pair_key(slot.a, slot.b), e))),
                })
                .reduce(
                    || (0, None),
                    |(n, x), (m, y)| {
                        let first = match (x, y) {
                            (Some(x), Some(y)) => Some(if y.0 < x.0 { y } else { x }),
                            (x, y) => x.or(y),
                        };
                        (n + m, first)
                    },
                );
            return match err {
                Some((_, e)) => Err(e),
                None => Ok(n),
            };
        }
        let _ = parallel;
        // The slots in memory order, as the parallel path: sorted order would visit them at
        // random (slots are recycled), and each visit's first load of a slot was a cache miss
        // (`perf record` of `broad_peer_profile` with the serial narrow phase at 5 000 bodies:
        // the slot and body loads a third of the narrow phase's cycles outside the queries).
        // The first error in sorted order is the one of least key, as in the parallel path.
        let (mut n, mut first): (usize, Option<(u64, E)>) = (0, None);
        for slot in self.slots.iter_mut().filter(|slot| slot.live) {
            match f(slot.a, slot.b, &mut slot.data) {
                Ok(k) => n += k,
                Err(e) => {
                    let key = pair_key(slot.a, slot.b);
                    if first.as_ref().is_none_or(|(k, _)| key < *k) {
                        first = Some((key, e));
                    }
                }
            }
        }
        match first {
            Some((_, e)) => Err(e),
            None => Ok(n),
        }
    }

    /// The data of candidate pair `(a, b)` (either order).
    pub fn pair_data(&self, a: u32, b: u32) -> Option<&P> {
        self.map.get(&pair_key(a, b)).map(|&s| &self.slots[s as usize].data)
    }

    /// Checks the invariants of the module docs (for tests; `Err` names the first violation):
    /// unless the last update took the grid path, the lists hold each live box's current
    /// bounds once, sorted by `(value, kind)`; the candidate set is exactly the pairs of
    /// overlapping live boxes. The oracle for the latter is independent of both paths: the
    /// boxes sorted by their lower x bound, each tested against the following boxes whose
    /// lower x bound is at most its upper one (O(n log n + pairs overlapping in x), so it can
    /// check 10⁵ boxes; every pair it skips is apart in x).
    pub fn check_invariants(&self) -> Result<(), String> {
        for (k, axis) in self.axes.iter().enumerate().filter(|_| !self.lists_stale) {
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
        let mut ids: Vec<u32> = (0..self.boxes.len() as u32).filter(|&i| self.contains(i)).collect();
        ids.sort_by(|&i, &j| self.boxes[i as usize].min.x.total_cmp(&self.boxes[j as usize].min.x));
        let mut want = Vec::new();
        for (x, &i) in ids.iter().enumerate() {
            let bi = &self.boxes[i as usize];
            for &j in &ids[x + 1..] {
                let bj = &self.boxes[j as usize];
                if bj.min.x > bi.max.x {
                    break;
                }
                if bi.overlaps(bj) {
                    want.push(pair_key(i, j));
                }
            }
        }
        want.sort_unstable();
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
