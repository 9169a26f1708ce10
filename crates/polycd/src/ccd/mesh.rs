//! Continuous collision detection between two non-convex closed meshes: FAST's hierarchical
//! conservative advancement (Alg. 2) over the meshes' convex hull trees ([`crate::mesh`]).
//!
//! Paper: X. Zhang, M. Lee, Y. J. Kim, *Interactive Continuous Collision Detection for
//! Non-Convex Polyhedra* (2006), papers/002, §5.
//!
//! # Outline
//! Hierarchical advancement (Alg. 2): at each step the BVTT query, then the conservative
//!    step of [`crate::ccd`] on every front node (the node's hull's own motion bound along its
//!    own direction), the smallest step over the front, repeat; at contact the closest leaf
//!    pair names the pieces and the nearest triangles. The first step's query starts at the
//!    roots; each later one starts from the previous step's front (*front tracking*, the
//!    paper's §6.3 via SWIFT++): a front pair whose gap, decreased by the most its two nodes
//!    can have closed along its direction during the step, is still no smaller than the best
//!    distance so far is kept without a query; the others are re-evaluated by step 4 from that
//!    pair downward (see `bvtt_track` for the proof that the front stays a cut of the BVTT
//!    and the best distance the exact minimum). A kept pair that limits the next step gets its
//!    exact distance then.
//!
//!
//! # Invariants
//! - The front covers every pair of pieces (each piece pair lies under exactly one front node
//!   of the traversal, and a node's hull contains its subtree's pieces): a step safe for every
//!   front node is safe for the meshes (the paper's observation 1). This holds for the tracked
//!   front too: it is the previous cut with some pairs replaced by cuts of their subtrees.
//! - Every front pair's distance is a lower bound of the distances of the leaf pairs under it
//!   (exact hull distance, spheres' gap, a support gap along a direction, or a kept gap), so
//!   the step, safe for every front pair, is safe for the meshes; a leaf pair within the
//!   threshold is always found (see [`FRONT_PRUNE_REL`]).
//!
//! # Termination
//! At most `options.max_iterations` steps (as in [`crate::ccd`]); each step's traversal visits
//! each node pair at most once.
//!
//! # Departures from the paper
//! - Front tracking across the steps of one query (above); each node pair's coherence cache is
//!   kept as well, for the node pairs used by the last [`NODE_CACHE_QUERIES`](crate::mesh::NODE_CACHE_QUERIES) queries only
//!   (the map does not grow with every node pair ever visited). The paper re-evaluates every
//!   front pair at each step (Voronoi marching, cheap with coherence) and moves the front up
//!   as well as down; here a pair whose decreased gap still exceeds the best distance is kept
//!   without a query, and the front is never collapsed upward within a query (the bodies
//!   approach during an advancement, and each query starts from the roots, so fronts stay
//!   small). The previous front is visited in its depth-first order, not sorted by distance
//!   (sorting lowers the best distance at once and leaves coarser fronts, whose inner pairs
//!   then limit the step). [`MeshToiCache::set_front_tracking`] turns tracking off (every
//!   step restarts at the roots).
//! - The containment test at `t = 0` skips the winding number for a vertex outside the other
//!   mesh's bounding ball.
//! - The traversal of each step is not asked for the exact minimum while the bodies are far
//!   apart: an inner pair within a factor `1 − FRONT_PRUNE_REL` of the nearest leaf pair so
//!   far is kept on the front, not descended (see [`FRONT_PRUNE_REL`]); near the threshold
//!   the prune is exact again. Before an exact hull query, a pair is tried along a direction
//!   (its previous one, or its parent pair's), by one support climb per hull; a pair that
//!   needs the hull query and has no cached V-Clip features starts from those two support
//!   vertices. While a step's traversal has no leaf pair yet (best distance +∞) it descends
//!   inner pairs without a hull query (they are descended whatever their distance); a
//!   tracked step starts its best distance from the previous step's best leaf pair, asked
//!   at the new poses.
//! - The motion bound of a front node uses the node's hull (as the paper does), plus the
//!   within-step rotation term of [`crate::ccd`]. A pair kept without a query keeps its
//!   direction, and its bound from the previous step advanced by that step (the angular term
//!   plus slope × step, capped), a valid bound at no support query; a kept pair that limits
//!   the step is measured afresh.
//!
//! Figures for each of these choices: BENCHMARKS.md, "Continuous collision, torus knots".

use super::{closing, directional_bound, safe_step, CcdOptions, DirectionalBound, RigidMotion};
use crate::core::error::PolycdError;
use crate::core::math::Pose;
use crate::mesh::bvtt::{best_answer, bvtt_query, bvtt_track, containment, FrontNode, MeshCache, MeshDistance, Prune};
use crate::mesh::TriMesh;
use crate::query::{self, Distance};

/// Relative slack `ε` of the BVTT prune during the advancement (`bvtt_query`/`bvtt_track`'s
/// `relax`): an inner node pair, or a kept front pair, at least `(1 − ε)·b` apart (`b` the
/// nearest leaf pair found so far) is not descended while `(1 − ε)·b` exceeds the distance
/// threshold; from there on the prune is the exact one (`b`). The front is still a cut of the
/// BVTT and every front pair's distance a lower bound of the leaf pairs under it, so each step
/// is as safe as before, and a leaf pair within the threshold is always found (a pair that
/// hides one is at most the threshold apart, below either limit). What changes: the step
/// comes from a coarser front (shorter by at most a factor `1/(1 − ε)` than from the exact
/// minimum), so
/// more steps, each much cheaper. Measured by callgrind on `bench ccd`'s 40 motions of the
/// 2 880-triangle knot (`examples/ccd_profile.rs`, warm tables), with the traversal's support
/// gaps and seeded V-Clip starts: ε = 0.5 (with the sphere test still on) / 0.75 / 0.9 / 0.95
/// gave 35.7 / 32.4 / 31.4 / 30.8 M instructions (202 / 217 / 228 / 248 steps), against 68.4 M (164 steps) for the
/// exact prune before this change; 0.9 is kept (0.95 saves 2 % more for 9 % more steps).
/// The contract of the answer is unchanged (no contact on `[0, t)`, distance at `t` at most
/// the threshold); `t` itself may differ within it.
pub const FRONT_PRUNE_REL: f64 = 0.9;

/// Default slack of the size bound of the tracked front (see the continuous query (`ccd::mesh::time_of_contact`) and
/// [`MeshToiCache::set_front_slack`]), so that the small
/// fronts from the roots of bodies far apart do not force restarts. A kept front pair costs
/// its two motion bounds per step (about 10³ instructions), a query from the roots tens to
/// hundreds of hull queries (about 5·10³ each): a restart pays only for a front this much
/// larger. (With twice the front plus 64, the bench's 40 knot motions restarted 9 times and
/// cost 12 % more than with no bound.)
const MIN_FRONT: usize = 1024;

/// Caller-owned state of [`time_of_contact`] on one pair of meshes: the mesh query's cache
/// ([`MeshCache`]: the front, tracked from step to step, and the node pairs' discrete caches)
/// and the advancement's per-front-pair motion bounds and safe steps.
#[derive(Clone, Debug)]
pub struct MeshToiCache {
    /// The mesh query's state.
    query: MeshCache,
    /// Front tracking across the steps of [`time_of_contact`] (on by default).
    tracking: bool,
    /// The front pairs' motion bounds along their directions at the last step.
    rates: Vec<(DirectionalBound, DirectionalBound)>,
    /// The front pairs' safe steps at the last step.
    steps: Vec<f64>,
    /// The previous step's front pairs (node ids, in front order) with their bounds (`rates`
    /// is swapped in here), and that step's length: a pair kept without a query takes its
    /// previous bound advanced by the step ([`advanced`]) instead of two new support queries.
    prev_nodes: Vec<(u32, u32)>,
    prev_rates: Vec<(DirectionalBound, DirectionalBound)>,
    prev_dt: f64,
    /// The tracked front restarts at the roots once it exceeds four times the last front
    /// from the roots plus this ([`MIN_FRONT`] unless set by
    /// [`MeshToiCache::set_front_slack`]).
    front_slack: usize,
    /// Advancement steps that restarted at the roots because the tracked front had grown.
    restarts: u64,
}

impl Default for MeshToiCache {
    fn default() -> Self {
        Self {
            query: MeshCache::default(),
            tracking: true,
            rates: Vec::new(),
            steps: Vec::new(),
            prev_nodes: Vec::new(),
            prev_rates: Vec::new(),
            prev_dt: 0.0,
            front_slack: MIN_FRONT,
            restarts: 0,
        }
    }
}

impl MeshToiCache {
    /// Forgets the node pairs' coherence (use when reusing the cache for another mesh pair).
    pub fn forget(&mut self) {
        self.query.forget();
        self.rates.clear();
        self.steps.clear();
        self.prev_nodes.clear();
        self.prev_rates.clear();
    }

    /// Front tracking on (the default) or off. Off, every advancement step's BVTT query
    /// restarts at the roots (the answer is as conservative either way; this is for
    /// comparisons and tests).
    pub fn set_front_tracking(&mut self, on: bool) {
        self.tracking = on;
    }

    /// The slack of the tracked front's size bound: an advancement step restarts at the roots
    /// when the front has more than four times the pairs of the last front from the roots
    /// plus `slack` (default 1 024). Either way the front covers every pair of pieces; this
    /// trades the cost of a large front against that of a query from the roots (and lets the
    /// tests exercise the restart).
    pub fn set_front_slack(&mut self, slack: usize) {
        self.front_slack = slack;
    }

    /// Advancement steps so far that restarted at the roots because the tracked front had
    /// grown past its bound (see [`MeshToiCache::set_front_slack`]).
    pub fn front_restarts(&self) -> u64 {
        self.restarts
    }

    /// The mesh query's cache (the last front, the node pairs' caches).
    pub fn query_cache(&self) -> &MeshCache {
        &self.query
    }

    /// Number of node pairs whose discrete-query caches are held
    /// ([`MeshCache::node_pair_caches`]).
    pub fn node_pair_caches(&self) -> usize {
        self.query.node_pair_caches()
    }
}

/// Builds, once per mesh, everything [`time_of_contact`] would otherwise build lazily on its
/// first queries: every hull of the mesh's hull tree and each hull's V-Clip tables (the
/// Voronoi-plane vectors the node-pair queries read; O(E) per hull). Without it a query that
/// reaches a node pair for the first time pays that pair's table builds: on the
/// 58 784-triangle bunny of `bench ccd-bunny` they were half of the first 12 queries'
/// instructions (BENCHMARKS.md, "Continuous collision, torus knots"). Calling it is optional
/// (the answers are the same either way) and idempotent; the mesh stays immutable (the
/// tables sit in `OnceLock`s) and may be shared across threads meanwhile. Errors: a hull
/// that cannot be built (as the first query would report it).
pub fn prepare(mesh: &TriMesh) -> Result<(), PolycdError> {
    for node in mesh.nodes() {
        let _ = node.hull()?.vclip_tables();
    }
    Ok(())
}

/// The first contact of two closed meshes under their motions, by hierarchical conservative
/// advancement (FAST Alg. 2), or `None` when they do not touch for `t ∈ [0, 1]`.
///
/// Use [`RigidMotion::new`] with [`TriMesh::centroid`] as the reference point for the paper's
/// motion. Guarantees as in [`crate::ccd`]: no contact on `[0, t)`, the distance at `t` at most
/// the threshold (default [`crate::core::tolerance::CCD_DISTANCE_REL`] × the summed scales).
pub fn time_of_contact(
    a: &TriMesh,
    motion_a: &RigidMotion,
    b: &TriMesh,
    motion_b: &RigidMotion,
    options: &CcdOptions,
    cache: &mut MeshToiCache,
) -> Result<Option<MeshTimeOfContact>, PolycdError> {
    let threshold = options.threshold(a.scale + b.scale)?;
    let limit = options.limit()?;
    let MeshToiCache {
        query: cache,
        tracking,
        rates,
        steps,
        prev_nodes,
        prev_rates,
        prev_dt,
        front_slack,
        restarts,
    } = cache;
    cache.begin_query();
    let mut t = 0.0f64;
    let mut iterations = 0u32;
    loop {
        let pose_a = motion_a.pose_at(t);
        let pose_b = motion_b.pose_at(t);
        // The first step from the roots, the next ones from the previous step's front (a
        // cut of the BVTT whenever the loop goes on: an early stop ends it at a contact).
        // The tracked front is never collapsed upward; should it grow past four times the
        // last front from the roots and `front_slack` more (pairs that came near and went
        // apart again, in a long grazing motion), the step restarts at the roots instead.
        let grown = cache.front.len() > 4 * cache.root_front + *front_slack;
        let track = iterations > 0 && *tracking;
        *restarts += u64::from(track && grown);
        let query = if track && !grown { bvtt_track } else { bvtt_query };
        let best = query(
            a,
            &pose_a,
            b,
            &pose_b,
            Prune {
                stop_below: threshold,
                relax: FRONT_PRUNE_REL,
            },
            options.discrete(),
            cache,
        )
        .map_err(|e| match e {
            PolycdError::CcdNotConverged { iterations: _, .. } => {
                PolycdError::CcdNotConverged { iterations, t_free: t }
            }
            e => e,
        })?;
        let contact = if best.distance <= threshold {
            Some(best_answer(a, &pose_a, b, &pose_b, &best))
        } else if iterations == 0 {
            containment(a, &pose_a, b, &pose_b)
        } else {
            None
        };
        if let Some(answer) = contact {
            return Ok(Some(MeshTimeOfContact {
                t,
                pose_a,
                pose_b,
                answer,
                iterations,
            }));
        }
        if iterations >= options.max_iterations {
            return Err(PolycdError::CcdNotConverged { iterations, t_free: t });
        }
        // Alg. 2 steps 5–10: the smallest safe step over the front.
        std::mem::swap(rates, prev_rates);
        rates.clear();
        steps.clear();
        // Kept pairs come in the previous front's order (`bvtt_track` walks it in order).
        let mut j = 0;
        for (k, f) in cache.front.iter().enumerate() {
            let kept = iterations > 0 && cache.lazy.get(k).copied().unwrap_or(false);
            if kept {
                while j < prev_nodes.len() && prev_nodes[j] != (f.node_a, f.node_b) {
                    j += 1;
                }
            }
            let (ba, bb) = match prev_rates.get(j) {
                Some((ba, bb)) if kept && j < prev_nodes.len() => (advanced(ba, *prev_dt), advanced(bb, *prev_dt)),
                _ => {
                    // Every front node is apart by more than the threshold here (a node
                    // nearer than the best distance descends; leaves within it ended the
                    // query above).
                    let n = (f.point_b - f.point_a) / f.distance;
                    (
                        directional_bound(a.nodes[f.node_a as usize].hull()?, motion_a, &pose_a, n),
                        directional_bound(b.nodes[f.node_b as usize].hull()?, motion_b, &pose_b, n),
                    )
                }
            };
            steps.push(safe_step(f.distance, &ba, &bb));
            rates.push((ba, bb));
        }
        // A pair kept from the previous step without a query (its gap a lower bound) that
        // limits the step gets its distance now, once; it replaces the kept gap when it
        // allows a longer step (either is a valid separation along its own direction).
        let dt = loop {
            let (k, dt) = steps.iter().enumerate().fold(
                (usize::MAX, f64::INFINITY),
                |m, (k, &s)| if s < m.1 { (k, s) } else { m },
            );
            if !cache.lazy.get(k).copied().unwrap_or(false) {
                break dt;
            }
            cache.lazy[k] = false;
            let f = cache.front[k];
            let ha = a.nodes[f.node_a as usize].hull()?;
            let hb = b.nodes[f.node_b as usize].hull()?;
            let pc = cache.node_pair(f.node_a, f.node_b);
            if let Ok(Distance::Separated {
                distance,
                point_a,
                point_b,
                ..
            }) = query::distance_or_overlap(ha, &pose_a, hb, &pose_b, options.discrete(), pc)
            {
                if distance > f.distance {
                    let n = (point_b - point_a) / distance;
                    let ba = directional_bound(ha, motion_a, &pose_a, n);
                    let bb = directional_bound(hb, motion_b, &pose_b, n);
                    let step = safe_step(distance, &ba, &bb);
                    if step > dt {
                        cache.front[k] = FrontNode {
                            distance,
                            point_a,
                            point_b,
                            ..f
                        };
                        rates[k] = (ba, bb);
                        steps[k] = step;
                    }
                }
            }
        };
        iterations += 1;
        prev_nodes.clear();
        prev_nodes.extend(cache.front.iter().map(|f| (f.node_a, f.node_b)));
        *prev_dt = dt;
        match super::advance(t, dt, limit, iterations)? {
            Some(next) => t = next,
            None => return Ok(None),
        }
        // Each front pair's gap along its direction at the next step, at least its distance
        // less the most the two nodes can close along it during the step (the bound `safe_step`
        // solved; `dt` is at most each pair's own safe step, so the gap stays non-negative).
        cache.gaps.clear();
        for (f, (ba, bb)) in cache.front.iter().zip(rates.iter()) {
            cache.gaps.push(f.distance - closing(dt, ba, bb));
        }
    }
}

/// The first contact of two meshes ([`time_of_contact`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshTimeOfContact {
    /// Time of contact in `[0, 1]`: no contact on `[0, t)`.
    pub t: f64,
    /// A's pose at `t`.
    pub pose_a: Pose,
    /// B's pose at `t`.
    pub pose_b: Pose,
    /// The discrete answer at `t`: `Separated` within the threshold (closest points, pieces
    /// and triangles), or `Overlapping` (at `t = 0`, or by rounding in the last step).
    pub answer: MeshDistance,
    /// Advancement steps taken.
    pub iterations: u32,
}

impl MeshTimeOfContact {
    /// The distance at `t` (0 when overlapping).
    pub fn distance(&self) -> f64 {
        match self.answer {
            MeshDistance::Separated { distance, .. } => distance,
            MeshDistance::Overlapping { .. } => 0.0,
        }
    }
}

/// A front pair's bound along its unchanged direction `n` at `t + dt`, from its bound at `t`:
/// the linear term, slope and cap do not depend on the time (the motion's velocities and the
/// node's radius about the reference point), and the angular term `max_i |c₁·r_i|` grows by
/// at most `|c₁|·θ·ρ·dt = slope·dt` as the vertices turn (the bound [`safe_step`] integrates),
/// never beyond the cap. A valid bound for the pair's gap kept without a query, at no support
/// query; looser than a fresh one by at most `slope·dt`.
fn advanced(b: &DirectionalBound, dt: f64) -> DirectionalBound {
    DirectionalBound {
        angular: (b.angular + b.slope * dt).min(b.cap),
        ..*b
    }
}
