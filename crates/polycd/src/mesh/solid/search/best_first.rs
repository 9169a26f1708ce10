//! [`super::super::distance`]'s traversal of the BVTT (FAST §3.3, Alg. 3: the bounding-volume
//! traversal tree of two convex hull trees), taken best first instead of by the depth-first
//! descent of [`Search::visit`] (which `intersect` and `contact_set` keep).
//!
//! # Outline
//! A node pair waits in a queue keyed by a lower bound of the distance of any two pieces below
//! it: the larger of its bounding balls' gap and its parent pair's hull distance (a child's
//! hull lies inside its parent's, so the parent's distance bounds the child's). The least key
//! is taken next; its hulls are measured (V-Clip on inner nodes, the convex distance on leaf
//! pieces, as [`Search::visit`]); an inner pair pushes its two child pairs; a leaf pair whose
//! hulls are farther than its key goes back with the hulls' distance as its key, so leaf
//! triangles are measured in the order of their hulls' distances; otherwise its triangles are
//! measured. The search ends when the least key exceeds the limit (the least triangle
//! distance so far plus the tie width): every pair left is at least that far. Among equal keys
//! the last pushed is taken first, and of two children the one whose balls are nearer (of two
//! overlapping, the deeper) is pushed last: in an overlap, where most keys are 0, the order is
//! the depth-first descent's, so the deepest pair is met as early as there and
//! [`Search::prune_depth`] prunes as much. Key-0 pairs wait on a stack (no heap sifting).
//!
//! # Invariants
//! - Every key is a lower bound of the distance of every triangle pair below its node pair;
//!   the limit only falls. So a pair left in the queue at the end, or pruned by the same tests
//!   as [`Search::visit`]'s (balls, hulls, the depth bound of an overlap), holds no triangle
//!   pair nearer than the answer or tying with it: the minimum is the descent's, and the
//!   deepest overlapping pair too (a pair pruned by the depth bound cannot be deeper).
//! - The contact set holds every overlapping piece pair met.
//!
//! # Termination
//! Each node pair enters the queue at most twice (a leaf pair once more with its hulls'
//! distance), and only as a child of a pair taken from it (the BVTT is a tree: each pair has
//! one parent), so the loop ends after at most twice the BVTT's node pairs.
//!
//! # Departures
//! FAST descends depth first with the nearer child first; best first measures only node pairs
//! whose bound is below the final limit, not merely below the limit when a descent reaches
//! them (`mesh_profile distance 120`: 2.1× fewer instructions near contact, 1.6× separated;
//! BENCHMARKS.md, *Meshes*). Among triangle pairs within the tie width of each other the one
//! kept may differ from the descent's (the facing rule of [`Search::leaf_triangles`] sees them
//! in another order): the distance then differs by at most that width (the contact tolerance).
//!
//! # Allocation
//! The queue lives in the [`super::super::SolidCache`] and keeps its capacity.

use super::Search;
use crate::core::error::PolycdError;
use crate::query::Algorithm;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A node pair waiting in the heap of [`Search::best_first`].
#[derive(Clone, Copy, Debug)]
pub(in crate::mesh::solid) struct Pending {
    /// A lower bound of the distance of any pieces below the pair.
    key: f64,
    /// The bounding balls' overlap (an upper bound of the depth of any pieces below).
    depth: f64,
    i: u32,
    j: u32,
    /// A leaf pair whose hulls were measured (`key` is their distance): its triangles are next.
    measured: bool,
    /// Order of pushing: among equal keys the last pushed is taken first.
    seq: u32,
}

impl PartialEq for Pending {
    fn eq(&self, o: &Pending) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl Eq for Pending {}

impl PartialOrd for Pending {
    fn partial_cmp(&self, o: &Pending) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Pending {
    /// The greatest is taken first: the least key, then the last pushed (a total order: the
    /// traversal does not depend on the heap's layout).
    fn cmp(&self, o: &Pending) -> Ordering {
        o.key.total_cmp(&self.key).then(self.seq.cmp(&o.seq))
    }
}

/// The node pairs waiting: pairs of key 0 (overlapping balls or hulls) on a stack, taken
/// before the others, last pushed first (as the heap would order them: the least key, then
/// the last pushed), the rest in a heap. In an overlap most pairs have key 0: the stack saves
/// the heap's sifting there.
#[derive(Clone, Debug, Default)]
pub(in crate::mesh::solid) struct Queue {
    zero: Vec<Pending>,
    heap: BinaryHeap<Pending>,
}

impl Queue {
    pub(in crate::mesh::solid) fn clear(&mut self) {
        self.zero.clear();
        self.heap.clear();
    }

    fn push(&mut self, e: Pending) {
        if e.key == 0.0 {
            self.zero.push(e);
        } else {
            self.heap.push(e);
        }
    }

    fn pop(&mut self) -> Option<Pending> {
        self.zero.pop().or_else(|| self.heap.pop())
    }
}

impl Search<'_> {
    /// The best-first traversal from the roots (see the module documentation).
    pub(super) fn best_first(&mut self, heap: &mut Queue) -> Result<(), PolycdError> {
        heap.clear();
        let (ra, rb) = (self.a.root, self.b.root);
        let (gap, depth) = self.sphere_bounds(ra, rb);
        let mut seq = 0u32;
        heap.push(Pending {
            key: gap.max(0.0),
            depth,
            i: ra,
            j: rb,
            measured: false,
            seq,
        });
        while let Some(e) = heap.pop() {
            if self.stopped {
                break;
            }
            if e.key > 0.0 && e.key > self.limit() {
                // Every pair left is at least this far: the front is what is left.
                self.floor = self.floor.min(e.key);
                self.push_front(e.i, e.j, e.key);
                for r in heap.zero.drain(..).chain(heap.heap.drain()) {
                    self.push_front(r.i, r.j, r.key);
                }
                break;
            }
            self.take(e, heap, &mut seq)?;
        }
        heap.clear();
        Ok(())
    }

    /// Measures the pair `e` taken from the heap and pushes what follows from it.
    fn take(&mut self, e: Pending, heap: &mut Queue, seq: &mut u32) -> Result<(), PolycdError> {
        let (i, j) = (e.i, e.j);
        if self.skip == Some((i, j)) {
            return Ok(());
        }
        if self.prune_depth
            && self.deepest > self.certain
            && self.min_seen == 0.0
            && (e.depth < self.deepest || self.axis_depth(i, j) < self.deepest)
        {
            return Ok(());
        }
        let (a, b) = (self.a, self.b);
        let (na, nb) = (&a.nodes[i as usize], &b.nodes[j as usize]);
        if e.measured {
            self.leaf_pair_triangles(i, j, na.piece, nb.piece, e.key);
            return Ok(());
        }
        let (hull_distance, _) = self.measure_hulls(i, j, Algorithm::VClip)?;
        if hull_distance > 0.0 && hull_distance > self.limit() {
            self.floor = self.floor.min(hull_distance);
            self.push_front(i, j, hull_distance);
            return Ok(());
        }
        match (na.children, nb.children) {
            (None, None) => {
                if hull_distance > e.key {
                    // Its triangles wait for the pairs nearer than its hulls.
                    *seq += 1;
                    heap.push(Pending {
                        key: hull_distance,
                        measured: true,
                        seq: *seq,
                        ..e
                    });
                } else {
                    self.leaf_pair_triangles(i, j, na.piece, nb.piece, hull_distance);
                }
                Ok(())
            }
            (ca, cb) => {
                let kids = if na.splits_other(nb) {
                    let (l, r) = cb.unwrap_or((j, j));
                    [(i, l), (i, r)]
                } else {
                    let (l, r) = ca.unwrap_or((i, i));
                    [(l, j), (r, j)]
                };
                let bounds = kids.map(|(ci, cj)| self.sphere_bounds(ci, cj));
                // The child whose balls are nearer (of two overlapping, the deeper) is pushed
                // last, so among equal keys it is taken first (as the depth-first descent).
                let order = if bounds[0].0 <= bounds[1].0 { [1, 0] } else { [0, 1] };
                for k in order {
                    let ((ci, cj), (gap, depth)) = (kids[k], bounds[k]);
                    let key = gap.max(0.0).max(hull_distance);
                    if key > 0.0 && key > self.limit() {
                        self.floor = self.floor.min(key);
                        self.push_front(ci, cj, key);
                    } else {
                        *seq += 1;
                        heap.push(Pending {
                            key,
                            depth,
                            i: ci,
                            j: cj,
                            measured: false,
                            seq: *seq,
                        });
                    }
                }
                Ok(())
            }
        }
    }

    /// A leaf pair's triangles (as [`Search::visit`] at a leaf pair, not deferred): skipped
    /// once the answer is certainly an overlap of pieces.
    fn leaf_pair_triangles(&mut self, i: u32, j: u32, pa: u32, pb: u32, hull_distance: f64) {
        if !(self.deep && self.min_seen == 0.0) {
            self.leaf_triangles(pa, pb);
            // Every triangle pair left is farther than the limit (and the hulls).
            self.floor = self.floor.min(self.limit().max(hull_distance));
        }
        self.push_front(i, j, hull_distance);
    }
}
