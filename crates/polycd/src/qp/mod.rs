//! Minimum distance as a convex program, solved two ways.
//!
//! Paper: Jin, Wang, Wang, Fu, *An Algorithm on Collision Detection by Computing the Minimum
//! Distance between Two Convex Polyhedra* (2006), papers/001.
//!
//! Rounded shapes ([`crate::shape::polyhedron::ConvexPolyhedron::with_radius`]): this algorithm answers for the
//! cores and never reads the radius; `query::rounded` turns its answers into the rounded
//! shapes' (through [`crate::query`] only).
//!
//! The paper's model (1): with A = co{x_i}, B = co{y_j}, minimise ‖Σσ_j y_j − Σλ_i x_i‖ over
//! λ ≥ 0, Σλ = 1, σ ≥ 0, Σσ = 1. The optimal weights give the closest points (or, at distance
//! 0, a collided point).
//!
//! # Outline
//! - **faithful** (`faithful`, `ipm`; [`solve_faithful`], [`solve_points`],
//!   [`distance_faithful`], [`intersect_faithful`]): the model as written, as a sparse convex
//!   QP in (λ, σ, w) with `w = Yσ − Xλ` and objective ½‖w‖², solved by clarabel's
//!   interior-point method on coordinates centred and scaled to O(1) (`ipm`). Interior-point
//!   accuracy (≈1e-10 on ‖w‖², so only ≈1e-5 on a distance near 0) is then *polished* on the
//!   active set: Wolfe's minimum-norm-point algorithm over the explicit vertex lists, seeded
//!   with the IPM's largest-weight vertex pair, ends on an exact optimal corral of ≤ 4 vertex
//!   pairs. The IPM answer is kept as an independent cross-check: the polished squared
//!   distance must agree with it within [`IPM_AGREEMENT`], otherwise the result is
//!   `NotConverged`. When the polish does not converge (slender shapes touching within
//!   rounding), the query functions answer with the fast solver's run, the same algorithm
//!   over the support mapping; [`solve_faithful`] reports the failure in its notes.
//! - **fast** (`fast`; [`distance_fast`], [`intersect_fast`]): Wolfe's algorithm directly,
//!   over the vertices of the Minkowski difference M = A − B generated on demand by the
//!   support mapping (`support_climb_hinted`: warm-started from [`QpCache`] or the direction
//!   table), in A's frame; fixed arrays, corral ≤ 4 pairs, no allocation.
//! - `wolfe`: Wolfe's algorithm over a pair support mapping (`PairSupport`: the hill-climbing
//!   one of the fast solver, the linear scan of the faithful one), its corral and affine
//!   minimiser. `solve`: one full solve — the distance, then the certified overlap test below.
//!   `answer`: the touching plane, the closest features and the contract's answers.
//!   `unique`: the uniqueness analysis of [`QpSolution::unique`].
//!
//! # Invariants
//! Wolfe's algorithm (both solvers): the corral is a set of ≤ 4 affinely independent points
//! of M, with positive weights summing to 1, and `x = Σ w_k m_k` is the minimum-norm point of
//! its hull. Every major cycle adds the support point `p = s_M(−x)`, which satisfies
//! `x·p < ‖x‖²` unless `x` is optimal (duality gap `‖x‖² − x·p`, whose quotient by ‖x‖ bounds
//! the distance error); minor cycles drop points until the affine minimiser lies in the
//! relative interior again. Overlap is reported only when certified (below); a `Disjoint`
//! plane is checked against both vertex sets through the support mapping.
//!
//! # Termination
//! Each major cycle strictly decreases ‖x‖, or is a tie within rounding (it keeps ‖x‖ and
//! takes a larger face, at most `MAX_TIE_STEPS` in a row); a cycle with neither stops the
//! run, so no corral repeats and the run is finite. Each major cycle has ≤ 4 minor cycles
//! (each drops a point). The major cycles of one run are capped by [`MAX_ITERATIONS`], and a
//! solve makes at most two runs (the second for the overlap test); hitting the cap gives the
//! `NotConverged` variant, never a distance. A run that stops without decrease is accepted
//! only if its duality gap is below [`ACCEPT_GAP_REL`] × pair scale. The interior-point
//! solver is capped at 200 iterations (clarabel's `max_iter`); a status other than solved
//! gives `NotConverged`.
//!
//! # Departures from the paper (and decisions where it is silent)
//! - The paper solves (1) with MATLAB's reduced-gradient method and stops at ≈1e-4; we use
//!   an interior-point QP (clarabel) plus an active-set polish to reach 1e-12 × pair scale,
//!   and add the auxiliary variable w to keep the QP sparse (O(n) nonzeros instead of a
//!   dense (n_A + n_B)² Hessian). The returned weights λ, σ are the polished ones (≤ 4
//!   non-zero); the IPM's (≈ analytic centre) are kept too.
//! - The paper decides collision by `d = 0`; in floating point we use the contact tolerance
//!   and a certified overlap test (distance ≤ contact tolerance). (1) If the final corral is
//!   a tetrahedron containing the origin, the distance of the origin to its faces is a lower
//!   bound on the penetration depth; above the tolerance the shapes overlap. (2) Otherwise
//!   both shapes are shrunk about interior points c_A, c_B by the factor 1 − ε,
//!   ε = 2·tol / r, where r = depth(c_A in A) + depth(c_B in B) ≤ depth of c_A − c_B in M;
//!   Wolfe's algorithm is run on the shrunk pair. The shrunk difference is M scaled by 1 − ε
//!   about c_A − c_B, so if it contains the origin, the origin lies ≥ ε·r = 2·tol deep in M:
//!   overlap. If not, the depth is < ε·(extent of M from c) — the pair is reported touching.
//!   Pairs whose depth lies between 2·tol and 2·tol·(extent / r) are thus reported touching:
//!   a band a few contact tolerances wide (documented limitation).
//! - A tetrahedral corral around the origin but within the tolerance of its boundary is
//!   replaced by its facet nearest the origin (at the origin's projection, which lies in that
//!   facet): a flat tetrahedron (near-parallel faces) has ill-conditioned barycentric
//!   weights, whose witness points would not realise the reported distance.
//! - The touching answer's supporting plane needs a normal good to the contact tolerance,
//!   which the near-zero closest-point vector cannot give (its direction is only as good as
//!   its rounding): the solver tries it first and otherwise takes, among the face normals
//!   around the corral's vertices and the cross products of their edges, the one with the
//!   thinnest slab `max_A n·a − min_B n·b` — a touching pair always has such an exact common
//!   supporting direction. Its closest points are another matter: at a degenerate optimum
//!   Wolfe's barycentric points may lie anywhere on the strip of near-closest pairs (along a
//!   nearly parallel edge and face, far from where any feature normal proves the distance),
//!   so `query::distance` answers a touching pair with the points and features of the GJK
//!   measurement it makes to tell touching from overlapping.
//! - A tie within rounding (a minor cycle whose affine minimiser is no farther than `x` and
//!   whose weights are non-negative up to [`WEIGHT_TIE`](crate::core::tolerance::WEIGHT_TIE))
//!   is taken as a step: the larger face gives `x` an exact direction, without which a
//!   nearest point at a vertex of M a hair from the origin keeps that vertex's rounded
//!   direction and the gap never closes. The affine minimiser is refined as in GJK.
//! - The paper notes the collided point is not unique for edge–edge, edge–face and
//!   face–face contact; [`QpSolution::unique`] reports this: the input points within
//!   1e-12 × scale of the two supporting planes at the solution form the contact sets, B's is
//!   translated onto A's, the two are intersected in the plane (Sutherland–Hodgman), and an
//!   intersection wider than 1e-8 × scale means the optimal points (and weights) are not
//!   unique.

mod answer;
mod faithful;
mod fast;
mod ipm;
mod solve;
mod unique;
mod wolfe;

use crate::core::math::DVec3;

pub use faithful::{distance_faithful, intersect_faithful, solve_faithful, solve_points};
pub use fast::{distance_fast, intersect_fast};

/// Cap on the major cycles of one Wolfe run. Wolfe's algorithm on polytopes with support
/// mapping needs a few dozen; the cap only guards against numerical cycling.
pub const MAX_ITERATIONS: u32 = 1000;

pub use crate::core::tolerance::ACCEPT_GAP_REL;

/// Consecutive major cycles of Wolfe's algorithm that may be settled by a rounding tie
/// (no strict decrease of ‖x‖) before the run counts as stalled: ties only swap in a larger
/// face, at most twice from a single point, so a few suffice, and the bound keeps the
/// termination argument (every other cycle strictly decreases ‖x‖).
const MAX_TIE_STEPS: u32 = 4;

pub use crate::core::tolerance::IPM_AGREEMENT;

// ---------------------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------------------

/// The fast solver's warm start: the vertex pair of the largest corral weight of the last
/// query on this pair (it seeds the next run and the hill-climbing support searches).
#[derive(Clone, Debug, Default)]
pub struct QpCache {
    seed: Option<(u32, u32)>,
}

impl QpCache {
    /// Forgets the warm start: the next query starts cold, as with a new cache.
    pub fn forget(&mut self) {
        self.seed = None;
    }
}

/// How a solve ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum QpStatus {
    /// Distance above the contact tolerance.
    Separated,
    /// Distance within the contact tolerance and no certified overlap.
    Touching,
    /// Certified overlap; `point_a = point_b` is a common point.
    Overlapping,
    /// The interior-point solver failed, hit its iteration limit, or disagreed with the polish.
    NotConverged,
}

/// The faithful solver's full answer to model (1).
#[derive(Clone, Debug, PartialEq)]
pub struct QpSolution {
    /// How the solve ended.
    pub status: QpStatus,
    /// The optimal distance (0 when overlapping).
    pub distance: f64,
    /// `Σ λ_i x_i` (same frame as the input points).
    pub point_a: DVec3,
    /// `Σ σ_j y_j`.
    pub point_b: DVec3,
    /// Optimal weights λ on the points of A (polished: ≤ 4 non-zero).
    pub lambda: Vec<f64>,
    /// Optimal weights σ on the points of B (polished: ≤ 4 non-zero).
    pub sigma: Vec<f64>,
    /// The interior-point solver's weights λ (≈ the analytic centre of the optimal face).
    pub ipm_lambda: Vec<f64>,
    /// The interior-point solver's weights σ.
    pub ipm_sigma: Vec<f64>,
    /// `‖Σσ y − Σλ x‖` at the interior-point weights.
    pub ipm_distance: f64,
    /// Interior-point iterations.
    pub ipm_iterations: u32,
    /// Major cycles of the active-set polish (including the overlap test, if run).
    pub polish_iterations: u32,
    /// Unit contact normal from A towards B (zero when unknown, e.g. overlapping).
    pub normal: DVec3,
    /// Whether the optimal pair of points is unique: `Some(false)` for edge–edge (parallel),
    /// edge–face and face–face contact, `None` when not analysed (overlap, no convergence).
    pub unique: Option<bool>,
    /// Affine dimensions (0 vertex, 1 edge, 2 face) of the contact sets of A and B: the input
    /// points within 1e-12 × scale of the supporting planes at the solution.
    pub contact_dims: Option<(u8, u8)>,
    /// Human-readable notes (non-uniqueness, cross-check figures, failures).
    pub notes: Vec<String>,
}
