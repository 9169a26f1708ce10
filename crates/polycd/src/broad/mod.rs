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
//! candidate pair with its own [`PairCache`](crate::query::PairCache) kept while the pair stays a candidate.
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
//! the candidates through [`crate::query`] with the chosen [`Algorithm`](crate::query::Algorithm), and lists the
//! answers in a deterministic order (sorted by body handle).

mod aabb;
mod grid;
mod sap;
mod world;

pub use grid::{GRID_MIN_BOXES, LARGE_BOX_FACTOR};
pub use sap::{Aabb, PairData, SweepAndPrune, SweepStats, REBUILD_SWAPS_PER_ENDPOINT};
pub use world::{
    BodyHandle, PairAnswer, PairQuery, PairReport, PairState, World, WorldOptions, WorldStats, PARALLEL_MIN_PAIRS,
};
pub mod ccd_world;
pub use ccd_world::{CcdContact, CcdHandle, CcdShape, CcdWorld, CcdWorldStats, EARLIEST_ROUND};
