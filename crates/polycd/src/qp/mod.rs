//! Minimum distance as a convex program — Jin, Wang, Wang, Fu, *An Algorithm on Collision
//! Detection by Computing the Minimum Distance between Two Convex Polyhedra* (2006).
//!
//! The paper's model (1): with A = co{x_i}, B = co{y_j}, minimise ‖Σσ_j y_j − Σλ_i x_i‖ over
//! λ ≥ 0, Σλ = 1, σ ≥ 0, Σσ = 1. The optimal weights give the closest points (or, at distance
//! 0, a collided point). Two solvers answer it:
//!
//! - **faithful** ([`solve_faithful`], [`solve_points`], [`distance_faithful`],
//!   [`intersect_faithful`]): the model as written, as a sparse convex QP in (λ, σ, w) with
//!   `w = Yσ − Xλ` and objective ½‖w‖², solved by clarabel's interior-point method on
//!   coordinates centred and scaled to O(1). Interior-point accuracy (≈1e-10 on ‖w‖², so only
//!   ≈1e-5 on a distance near 0) is then *polished* on the active set: Wolfe's
//!   minimum-norm-point algorithm over the explicit vertex lists, seeded with the IPM's
//!   largest-weight vertex pair, ends on an exact optimal corral of ≤ 4 vertex pairs. The IPM
//!   answer is kept as an independent cross-check: the polished squared distance must agree
//!   with it within the IPM tolerance, otherwise the result is `NotConverged`.
//!   When the polish does not converge (slender shapes touching within rounding), the
//!   query functions answer with the fast solver's run below, the same algorithm over the
//!   support mapping; [`solve_faithful`] reports the failure in its notes.
//! - **fast** ([`distance_fast`], [`intersect_fast`]): Wolfe's algorithm directly, over the
//!   vertices of the Minkowski difference M = A − B generated on demand by the support mapping
//!   (`support_climb_hinted`: warm-started from [`QpCache`] or the direction table); fixed arrays, corral ≤ 4 pairs, no
//!   allocation.
//!
//! Invariants of Wolfe's algorithm (both solvers): the corral is a set of ≤ 4 affinely
//! independent points of M, with positive weights summing to 1, and `x = Σ w_k m_k` is the
//! minimum-norm point of its hull. Every major cycle adds the support point `p = s_M(−x)`,
//! which satisfies `x·p < ‖x‖²` unless `x` is optimal (duality gap `‖x‖² − x·p`, whose
//! quotient by ‖x‖ bounds the distance error); minor cycles drop points until the affine
//! minimiser lies in the relative interior again.
//!
//! Termination: each major cycle strictly decreases ‖x‖ (checked; a cycle without decrease
//! stops the run), so no corral repeats and the run is finite; each major cycle has ≤ 4 minor
//! cycles (each drops a point). The number of major cycles is additionally capped by
//! [`MAX_ITERATIONS`]; hitting it gives the `NotConverged` variant, never a distance.
//! A run that stops without decrease is accepted only if its duality gap is below
//! [`ACCEPT_GAP_REL`] × pair scale.
//!
//! Touching versus overlapping (distance ≤ contact tolerance): overlap is reported only when
//! certified. (1) If the final corral is a tetrahedron containing the origin, the distance of
//! the origin to its faces is a lower bound on the penetration depth; above the tolerance the
//! shapes overlap. (2) Otherwise both shapes are shrunk about interior points c_A, c_B by the
//! factor 1 − ε, ε = 2·tol / r, where r = depth(c_A in A) + depth(c_B in B) ≤ depth of
//! c_A − c_B in M; Wolfe's algorithm is run on the shrunk pair. The shrunk difference is M
//! scaled by 1 − ε about c_A − c_B, so if it contains the origin, the origin lies ≥ ε·r =
//! 2·tol deep in M: overlap. If not, the depth is < ε·(extent of M from c) — the pair is
//! reported touching. Pairs whose depth lies between 2·tol and 2·tol·(extent / r) are thus
//! reported touching: a band a few contact tolerances wide (documented limitation). A
//! tetrahedral corral around the origin but within the tolerance of its boundary is replaced
//! by its facet nearest the origin (at the origin's projection, which lies in that facet): a
//! flat tetrahedron (near-parallel faces) has ill-conditioned barycentric weights, whose
//! witness points would not realise the reported distance. The touching answer's supporting
//! plane needs a normal good to the contact tolerance, which the near-zero closest-point
//! vector cannot give (its direction is only as good as its rounding); the fast solver tries
//! it first and otherwise takes, among the face normals around the corral's vertices and the
//! cross products of their edges, the one with the thinnest slab `max_A n·a − min_B n·b` —
//! a touching pair always has such an exact common supporting direction. Its closest points
//! are another matter: at a degenerate optimum Wolfe's barycentric points may lie anywhere on
//! the strip of near-closest pairs (along a nearly parallel edge and face, far from where any
//! feature normal proves the distance), so `query::distance` answers a touching pair with the
//! points and features of the GJK measurement it makes to tell touching from overlapping.
//!
//! Departures from the paper: the paper solves (1) with MATLAB's reduced-gradient method and
//! stops at ≈1e-4; we use an interior-point QP (clarabel) plus an active-set polish to reach
//! 1e-12 × pair scale, and add the auxiliary variable w to keep the QP sparse (O(n) nonzeros
//! instead of a dense (n_A + n_B)² Hessian). The paper decides collision by `d = 0`; in
//! floating point we use the contact tolerance and the certified overlap test above. The
//! paper notes the collided point is not unique for edge–edge, edge–face and face–face
//! contact; [`QpSolution::unique`] reports this: the input points within 1e-12 × scale of the
//! two supporting planes at the solution form the contact sets, B's is translated onto A's,
//! the two are intersected in the plane (Sutherland–Hodgman), and an intersection wider than
//! 1e-8 × scale means the optimal points (and weights) are not unique. The returned weights
//! λ, σ are the polished ones (≤ 4 non-zero); the IPM's (≈ analytic centre) are kept too.

use crate::contract::{
    contact_tolerance, pair_scale, Distance, Feature, FeaturePair, Intersection, MinkowskiSimplex, OverlapWitness,
};
use crate::core::error::PolycdError;
use crate::core::math::{DMat3, DVec3, Plane, Pose};
use crate::core::tolerance::{AGREEMENT_REL, CONTACT_REL, DISTANCE_GAP_REL, MAX_COORDINATE, WEIGHT_TIE};
use crate::shape::polyhedron::ConvexPolyhedron;

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
    /// Forgets the coherence state (the next query starts cold) and keeps the scratch
    /// buffers' capacity, so a cache reused for unrelated queries does not allocate.
    pub fn forget(&mut self) {
        self.seed = None;
    }
}

/// How a solve ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

// ---------------------------------------------------------------------------------------
// Wolfe's minimum-norm-point algorithm over a pair support mapping
// ---------------------------------------------------------------------------------------

/// A vertex of M: a vertex pair and its two positions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct SupPt {
    ia: u32,
    ib: u32,
    a: DVec3,
    b: DVec3,
}

/// Support mapping of the (possibly shrunk) Minkowski difference.
trait PairSupport {
    /// The vertex pair (a, b) maximising `d · a − d · b`, i.e. the support point of the
    /// difference along `d`, with both shapes shrunk by `s` about their interior points
    /// (`a ↦ c_A + s·(a − c_A)`; `s = 1` leaves them unchanged).
    fn support(&mut self, d: DVec3, s: f64) -> SupPt;
    /// The positions of the pair (ia, ib), shrunk by `s`.
    fn point(&self, ia: u32, ib: u32, s: f64) -> SupPt;
    /// Candidate normals (A towards B, solver frame) of a plane supporting both shapes where
    /// the corral's vertex pairs meet: the face normals around its vertices and the cross
    /// products of their edges (both signs); at most `out.len()`. None without topology.
    fn contact_normals(&self, _c: &Corral, _out: &mut [DVec3; MAX_CONTACT_NORMALS]) -> usize {
        0
    }
}

/// [`PairSupport::contact_normals`] for two polyhedra whose vectors the solver's frame sees
/// through the rotations `ta` and `tb`.
fn contact_normals(
    a: &ConvexPolyhedron,
    ta: impl Fn(DVec3) -> DVec3,
    b: &ConvexPolyhedron,
    tb: impl Fn(DVec3) -> DVec3,
    c: &Corral,
    out: &mut [DVec3; MAX_CONTACT_NORMALS],
) -> usize {
    let (ia, na) = corral_ids(c, true);
    let (ib, nb) = corral_ids(c, false);
    let mut k = 0;
    let mut push = |n: DVec3, k: &mut usize| {
        if *k < out.len() && n.is_finite() && n.length_squared() > 0.0 {
            out[*k] = n;
            *k += 1;
        }
    };
    for &v in &ia[..na] {
        for &h in a.outgoing(v) {
            push(ta(a.face(a.half_edge(h).face).normal), &mut k);
        }
    }
    for &v in &ib[..nb] {
        for &h in b.outgoing(v) {
            push(-tb(b.face(b.half_edge(h).face).normal), &mut k);
        }
    }
    for &u in &ia[..na] {
        for &un in a.neighbors(u) {
            let ea = ta(a.vertex(un) - a.vertex(u));
            for &w in &ib[..nb] {
                for &wn in b.neighbors(w) {
                    let eb = tb(b.vertex(wn) - b.vertex(w));
                    let x = ea.cross(eb);
                    let l = x.length();
                    // Parallel edges span no plane of their own (near-parallel ones give a
                    // poor normal, which the slab comparison then passes over).
                    if l > 0.0 {
                        push(x / l, &mut k);
                        push(-x / l, &mut k);
                    }
                }
            }
        }
    }
    k
}

/// Bound on the candidate normals tried for a touching plane (faces around the contact
/// vertices first, then edge cross products): the slot count of a stack buffer.
const MAX_CONTACT_NORMALS: usize = 96;

/// The normal, among `n0` and the corral's contact normals, whose slab `max_A n·a − min_B
/// n·b` is thinnest (A towards B): `n0` comes from a near-zero closest-point vector, whose
/// direction is only as good as its rounding (a shrunk solve at the contact tolerance), while
/// a touching pair always has a face normal or an edge cross product as an exact common
/// supporting direction. Returns the normal and its slab.
fn touching_normal<S: PairSupport>(sup: &mut S, c: &Corral, n0: DVec3, tol: f64) -> (DVec3, f64) {
    let slab = |sup: &mut S, n: DVec3| {
        let p = sup.support(n, 1.0);
        n.dot(p.a) - n.dot(p.b)
    };
    let mut best = (n0, f64::INFINITY);
    if n0.length_squared() > 0.0 {
        best.1 = slab(sup, n0);
        if best.1 <= 0.5 * tol {
            return best;
        }
    }
    let mut cands = [DVec3::ZERO; MAX_CONTACT_NORMALS];
    let k = sup.contact_normals(c, &mut cands);
    for &n in &cands[..k] {
        let w = slab(sup, n);
        if w < best.1 {
            best = (n, w);
        }
    }
    best
}

/// Wolfe's corral: its points of M (each `a − b` of a vertex pair, computed once when the
/// pair joins) with their vertex pairs, weights and `x = Σ w_k m_k`. The pairs' positions
/// are not kept: [`Corral::points`] recomputes them from the ids through the support
/// mapping (the same arithmetic, so the same values), which keeps the corral small — it is
/// updated in place, never returned by value along the solve.
#[derive(Clone, Copy, Debug, Default)]
struct Corral {
    m: [DVec3; 4],
    id: [(u32, u32); 4],
    w: [f64; 4],
    n: usize,
    x: DVec3,
}

impl Corral {
    /// The two weighted points `Σ w_k a_k`, `Σ w_k b_k` (positions shrunk by `s`, as the run
    /// that built the corral).
    fn points<S: PairSupport>(&self, sup: &S, s: f64) -> (DVec3, DVec3) {
        let (mut pa, mut pb) = (DVec3::ZERO, DVec3::ZERO);
        for k in 0..self.n {
            let (ia, ib) = self.id[k];
            let q = sup.point(ia, ib, s);
            pa += q.a * self.w[k];
            pb += q.b * self.w[k];
        }
        (pa, pb)
    }
    fn heaviest(&self) -> (u32, u32) {
        let mut best = 0;
        for k in 1..self.n {
            if self.w[k] > self.w[best] {
                best = k;
            }
        }
        self.id[best]
    }
    /// Drops points of non-positive weight, renormalising the rest. `x` is left as it was:
    /// the minor cycle that compacts always goes on to set it from the affine minimiser (or
    /// the major cycle stalls and restores the corral before the cycle).
    #[inline(always)]
    fn compact(&mut self) {
        let mut j = 0;
        for k in 0..self.n {
            if self.w[k] > 0.0 {
                self.m[j] = self.m[k];
                self.id[j] = self.id[k];
                self.w[j] = self.w[k];
                j += 1;
            }
        }
        self.n = j;
        let s: f64 = self.w[..j].iter().sum();
        if s > 0.0 {
            for w in &mut self.w[..j] {
                *w /= s;
            }
        }
    }
    /// For a tetrahedron containing the origin: the corral of its facet whose plane is nearest
    /// the origin, at the origin's projection on it (which lies in that facet). `None` when
    /// the corral is not a tetrahedron or the facet is degenerate.
    fn nearest_facet(&self) -> Option<Corral> {
        if self.n < 4 {
            return None;
        }
        let m = self.m;
        let mut best = (f64::INFINITY, 0);
        for skip in 0..4 {
            let i = [(skip + 1) % 4, (skip + 2) % 4, (skip + 3) % 4];
            let n = (m[i[1]] - m[i[0]]).cross(m[i[2]] - m[i[0]]);
            let l = n.length();
            if l > 0.0 && l.is_finite() {
                let h = (n.dot(m[i[0]]) / l).abs();
                if h < best.0 {
                    best = (h, skip);
                }
            }
        }
        if !best.0.is_finite() {
            return None;
        }
        let skip = best.1;
        let i = [(skip + 1) % 4, (skip + 2) % 4, (skip + 3) % 4];
        let mut f = Corral {
            m: [m[i[0]], m[i[1]], m[i[2]], m[i[2]]],
            id: [self.id[i[0]], self.id[i[1]], self.id[i[2]], self.id[i[2]]],
            w: [0.0; 4],
            n: 3,
            x: DVec3::ZERO,
        };
        let (_, w) = affine_min(&f)?;
        // The projection lies in the facet; clamp rounding-level negative weights.
        let w = [w[0].max(0.0), w[1].max(0.0), w[2].max(0.0)];
        let sum = w[0] + w[1] + w[2];
        if !(sum > 0.0) {
            return None;
        }
        f.w = [w[0] / sum, w[1] / sum, w[2] / sum, 0.0];
        f.x = (0..3).fold(DVec3::ZERO, |acc, k| acc + f.m[k] * f.w[k]);
        Some(f)
    }

    /// Lower bound on the depth of the origin in M when the corral is a tetrahedron whose
    /// hull contains it: the least distance from the origin to its face planes.
    fn inner_depth(&self) -> f64 {
        if self.n < 4 {
            return 0.0;
        }
        let m = self.m;
        let mut best = f64::INFINITY;
        for skip in 0..4 {
            let idx: [usize; 3] = match skip {
                0 => [1, 2, 3],
                1 => [0, 2, 3],
                2 => [0, 1, 3],
                _ => [0, 1, 2],
            };
            let n = (m[idx[1]] - m[idx[0]]).cross(m[idx[2]] - m[idx[0]]);
            let l = n.length();
            if !(l > 0.0) {
                return 0.0;
            }
            best = best.min((n.dot(m[idx[0]]) / l).abs());
        }
        best
    }
}

/// Affine minimiser of the corral's points: the point of least norm on their affine hull and
/// its affine (barycentric) coordinates. `None` when the points are affinely dependent.
#[inline(always)]
fn affine_min(c: &Corral) -> Option<(DVec3, [f64; 4])> {
    let m0 = c.m[0];
    match c.n {
        1 => Some((m0, [1.0, 0.0, 0.0, 0.0])),
        2 => {
            let e = c.m[1] - m0;
            let l2 = e.length_squared();
            if !(l2 > 0.0) {
                return None;
            }
            let t = -m0.dot(e) / l2;
            Some((m0 + e * t, [1.0 - t, t, 0.0, 0.0]))
        }
        3 => {
            let (m1, m2) = (c.m[1], c.m[2]);
            let n = (m1 - m0).cross(m2 - m0);
            let l2 = n.length_squared();
            if !(l2 > 0.0) || !l2.is_finite() {
                return None;
            }
            // Projection of the origin on the plane: more accurate than a weighted sum.
            let y = n * (n.dot(m0) / l2);
            let a0 = n.dot((m1 - y).cross(m2 - y)) / l2;
            let a1 = n.dot((m2 - y).cross(m0 - y)) / l2;
            let a2 = n.dot((m0 - y).cross(m1 - y)) / l2;
            let s = a0 + a1 + a2;
            if !(s > 0.0) {
                return None;
            }
            Some((y, [a0 / s, a1 / s, a2 / s, 0.0]))
        }
        _ => {
            let (m1, m2, m3) = (c.m[1], c.m[2], c.m[3]);
            let vol = (m1 - m0).dot((m2 - m0).cross(m3 - m0));
            if !(vol.abs() > 0.0) || !vol.is_finite() {
                return None;
            }
            let o = DVec3::ZERO;
            let v0 = (m1 - o).dot((m2 - o).cross(m3 - o));
            let v1 = (o - m0).dot((m2 - m0).cross(m3 - m0));
            let v2 = (m1 - m0).dot((o - m0).cross(m3 - m0));
            let v3 = (m1 - m0).dot((m2 - m0).cross(o - m0));
            let s = v0 + v1 + v2 + v3;
            if !(s.abs() > 0.0) {
                return None;
            }
            Some((DVec3::ZERO, [v0 / s, v1 / s, v2 / s, v3 / s]))
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// Duality gap below tolerance (or ‖x‖ itself below it).
    Optimal,
    /// The corral is a tetrahedron containing the origin.
    Inside,
    /// No further decrease possible; `gap` says how good the answer is.
    Stalled,
    /// Iteration cap.
    Limit,
}

/// How a Wolfe run ended (its corral is the caller's, updated in place).
struct MnpOut {
    end: End,
    iterations: u32,
    /// Duality gap in distance units (upper − lower bound on the distance) when known.
    gap: f64,
}

/// Wolfe's minimum-norm-point algorithm over M (shrunk by `s`), from `seed`; the final
/// corral is left in `c`.
fn mnp<S: PairSupport>(sup: &mut S, seed: &SupPt, s: f64, gap_abs: f64, c: &mut Corral) -> MnpOut {
    // Only the first slot is read until a point is pushed.
    let m = seed.a - seed.b;
    c.m[0] = m;
    c.id[0] = (seed.ia, seed.ib);
    c.w = [1.0, 0.0, 0.0, 0.0];
    c.n = 1;
    c.x = m;
    let mut iterations = 0u32;
    // Consecutive major cycles settled by a tie (no strict decrease of ‖x‖).
    let mut flat = 0u32;
    let out = |end, iterations, gap| MnpOut { end, iterations, gap };
    loop {
        if iterations >= MAX_ITERATIONS {
            return out(End::Limit, iterations, f64::INFINITY);
        }
        iterations += 1;
        let xx = c.x.length_squared();
        let xn = xx.sqrt();
        if !xn.is_finite() {
            return out(End::Limit, iterations, f64::INFINITY);
        }
        if xn <= gap_abs {
            return out(End::Optimal, iterations, xn);
        }
        let p = sup.support(-c.x, s);
        let pm = p.a - p.b;
        let gap2 = xx - c.x.dot(pm);
        let gap = gap2.max(0.0) / xn;
        if gap <= gap_abs {
            return out(End::Optimal, iterations, gap);
        }
        if c.id[..c.n].contains(&(p.ia, p.ib)) {
            return out(End::Stalled, iterations, gap);
        }
        // The corral before this cycle, for a stall: until a minor cycle drops a point it is
        // `c` without the pushed point and with the saved weights and `x` (no copy of the
        // points); a full copy is taken only before the first drop.
        let (old_n, old_w, old_x) = (c.n, c.w, c.x);
        let mut saved: Option<Corral> = None;
        c.m[c.n] = pm;
        c.id[c.n] = (p.ia, p.ib);
        c.w[c.n] = 0.0;
        c.n += 1;
        let mut settled = false;
        let mut tie = false;
        // Rounding of a norm computed from these points: a few ulps of their coordinates (not
        // of ‖x‖, which near contact is far smaller than they are).
        let no_worse = |c: &Corral, v: DVec3| {
            let round = 64.0 * f64::EPSILON * c.m[..c.n].iter().fold(0.0f64, |m, q| m.max(q.abs().max_element()));
            v.length() <= xn + round
        };
        // Each minor cycle drops at least one point, and a single point is always settled.
        for minor in 0..5 {
            let Some((y, alpha)) = affine_min(c) else {
                break;
            };
            if alpha[..c.n].iter().all(|&a| a > 0.0) {
                // Refined as in GJK: near contact the affine minimiser's direction is only as
                // good as the coordinates' rounding, and the duality gap reads that direction.
                c.x = crate::core::geometry::refine_nearest(&[c.m[0], c.m[1], c.m[2]], c.n, y);
                c.w = alpha;
                settled = true;
                break;
            }
            // A tie within rounding (module docs): the new point's affine hull holds a point
            // no farther than `x` whose weights are non-negative up to rounding. Taking it
            // keeps the larger face, whose plane gives `x` an exact direction — without it a
            // nearest point at a vertex of `M` a hair from the origin keeps that vertex's
            // rounded direction and the gap can never close (kissing cubes in rotated frames).
            if minor == 0
                && c.n <= 3
                && flat < MAX_TIE_STEPS
                && alpha[..c.n].iter().all(|&a| a >= -WEIGHT_TIE)
                && no_worse(c, y)
            {
                let mut w = alpha;
                for wk in &mut w[..c.n] {
                    *wk = wk.max(0.0);
                }
                let sum: f64 = w[..c.n].iter().sum();
                if sum > 0.0 {
                    for wk in &mut w[..c.n] {
                        *wk /= sum;
                    }
                    c.x = crate::core::geometry::refine_nearest(&[c.m[0], c.m[1], c.m[2]], c.n, y);
                    c.w = w;
                    settled = true;
                    tie = true;
                    break;
                }
            }
            let mut theta = 1.0f64;
            let mut drop = usize::MAX;
            for (k, (&ak, &wk)) in alpha.iter().zip(c.w.iter()).enumerate().take(c.n) {
                if ak <= 0.0 {
                    let den = wk - ak;
                    let t = if den > 0.0 { wk / den } else { 0.0 };
                    if t < theta || drop == usize::MAX {
                        theta = t.min(theta);
                        drop = k;
                    }
                }
            }
            if saved.is_none() {
                let mut o = *c;
                o.n = old_n;
                o.w = old_w;
                o.x = old_x;
                saved = Some(o);
            }
            for (wk, &ak) in c.w.iter_mut().zip(alpha.iter()).take(c.n) {
                *wk = (1.0 - theta) * *wk + theta * ak;
            }
            if drop < c.n {
                c.w[drop] = 0.0;
            }
            c.compact();
            if c.n == 0 {
                break;
            }
        }
        // A settled corral without strict decrease is a tie too (equal norms within rounding
        // while the larger face sharpens the direction), within the same bound.
        if settled && !tie && c.x.length_squared() >= xx {
            tie = flat < MAX_TIE_STEPS && no_worse(c, c.x);
        }
        if !settled || (!tie && c.x.length_squared() >= xx) {
            match saved {
                Some(o) => *c = o,
                None => {
                    c.n = old_n;
                    c.w = old_w;
                    c.x = old_x;
                }
            }
            return out(End::Stalled, iterations, gap);
        }
        flat = if tie { flat + 1 } else { 0 };
        if c.n == 4 {
            c.x = DVec3::ZERO;
            return out(End::Inside, iterations, 0.0);
        }
    }
}

/// The verdict of a full solve (distance + overlap test), in the solver's frame. For
/// `Separated` and `Touching` the answer is the solve's corral (kept by the caller).
enum Verdict {
    Separated,
    Touching {
        /// Unit normal from A towards B (zero if unknown).
        normal: DVec3,
    },
    Overlapping {
        /// A point common to both shapes (midpoint of the corral's two weighted points).
        point: DVec3,
        /// The corral's vertex pairs when they are themselves the certificate: a tetrahedron
        /// of `M` around the origin (first run, not shrunk). Preferred over `point`, whose
        /// barycentric weights are ill-conditioned in a flat tetrahedron (a thin overlap).
        simplex: Option<MinkowskiSimplex>,
    },
    NotConverged,
}

/// The corral's vertex pairs as a Minkowski simplex.
fn corral_simplex(c: &Corral) -> MinkowskiSimplex {
    let mut pairs = [(0u32, 0u32); 4];
    pairs[..c.n].copy_from_slice(&c.id[..c.n]);
    MinkowskiSimplex { pairs, len: c.n as u8 }
}

/// The overlap witness of a verdict, in the world frame.
fn overlap_witness(point: DVec3, simplex: Option<MinkowskiSimplex>, frame: &Pose) -> OverlapWitness {
    match simplex {
        Some(s) => OverlapWitness::Simplex(s),
        None => OverlapWitness::CommonPoint(frame.transform_point(point)),
    }
}

struct Solved {
    verdict: Verdict,
    iterations: u32,
    /// The heaviest vertex pair of the first run's corral (the next warm start).
    seed: (u32, u32),
}

/// Distance by Wolfe's algorithm, then the certified overlap test (module docs). `inr` is a
/// lower bound on the depth of `c_A − c_B` in M (None: no shrink test available). The
/// answer's corral (unshrunk) is left in `c`.
fn solve_pair<S: PairSupport>(
    sup: &mut S,
    seed: &SupPt,
    scale: f64,
    tol: f64,
    inr: impl FnOnce() -> Option<f64>,
    c: &mut Corral,
) -> Solved {
    let gap_abs = DISTANCE_GAP_REL * scale;
    let out = mnp(sup, seed, 1.0, gap_abs, c);
    let mut iterations = out.iterations;
    let next = c.heaviest();
    let accepted = match out.end {
        End::Optimal | End::Inside => true,
        End::Stalled => out.gap <= ACCEPT_GAP_REL * scale,
        End::Limit => false,
    };
    if !accepted {
        return Solved {
            verdict: Verdict::NotConverged,
            iterations,
            seed: next,
        };
    }
    if out.end == End::Inside {
        if c.inner_depth() > tol {
            let (pa, pb) = c.points(sup, 1.0);
            return Solved {
                verdict: Verdict::Overlapping {
                    point: 0.5 * (pa + pb),
                    simplex: Some(corral_simplex(c)),
                },
                iterations,
                seed: next,
            };
        }
        // A tetrahedral corral around the origin but within `tol` of its boundary (contact):
        // its barycentric weights are ill-conditioned when it is flat (near-parallel faces),
        // so report the least-norm point of its facet nearest the origin instead — within
        // `inner_depth ≤ tol` of the origin, with well-conditioned weights, so the witness
        // points realise the reported distance.
        if let Some(f) = c.nearest_facet() {
            *c = f;
        }
    }
    let d = c.x.length();
    if d > tol {
        return Solved {
            verdict: Verdict::Separated,
            iterations,
            seed: next,
        };
    }
    let mut normal = if d > 0.0 { -c.x / d } else { DVec3::ZERO };
    if let Some(r) = inr().filter(|r| *r > 0.0 && r.is_finite()) {
        let eps = (2.0 * tol / r).min(0.5);
        let s = 1.0 - eps;
        let (hia, hib) = c.heaviest();
        let seed2 = sup.point(hia, hib, s);
        let mut c2 = Corral::default();
        let out2 = mnp(sup, &seed2, s, gap_abs, &mut c2);
        iterations += out2.iterations;
        match out2.end {
            End::Inside => {
                let (pa, pb) = c2.points(sup, s);
                return Solved {
                    verdict: Verdict::Overlapping {
                        point: 0.5 * (pa + pb),
                        simplex: None,
                    },
                    iterations,
                    seed: next,
                };
            }
            End::Limit => {
                return Solved {
                    verdict: Verdict::NotConverged,
                    iterations,
                    seed: next,
                }
            }
            _ => {
                let l = c2.x.length();
                if l > 0.0 {
                    normal = -c2.x / l;
                }
            }
        }
    }
    Solved {
        verdict: Verdict::Touching { normal },
        iterations,
        seed: next,
    }
}

// ---------------------------------------------------------------------------------------
// Support mappings
// ---------------------------------------------------------------------------------------

/// Two polyhedra, computed in A's local frame; hill-climbing support with warm starts.
struct PolyPair<'a> {
    a: &'a ConvexPolyhedron,
    b: &'a ConvexPolyhedron,
    /// B's pose in A's frame.
    rel: Pose,
    /// Its rotation as a matrix and the transpose (cheaper per vector than the quaternion).
    rot: DMat3,
    rot_t: DMat3,
    ca: DVec3,
    cb: DVec3,
    warm_a: u32,
    warm_b: u32,
}

impl<'a> PolyPair<'a> {
    fn new(a: &'a ConvexPolyhedron, pa: &Pose, b: &'a ConvexPolyhedron, pb: &Pose) -> Self {
        let rel = pa.relative(pb);
        let rot = DMat3::from_quat(rel.rotation);
        PolyPair {
            a,
            b,
            rel,
            rot,
            rot_t: rot.transpose(),
            ca: a.centroid(),
            cb: rot * b.centroid() + rel.translation,
            warm_a: 0,
            warm_b: 0,
        }
    }
    fn ids_valid(&self, ia: u32, ib: u32) -> bool {
        (ia as usize) < self.a.vertices().len() && (ib as usize) < self.b.vertices().len()
    }
}

impl PairSupport for PolyPair<'_> {
    fn contact_normals(&self, c: &Corral, out: &mut [DVec3; MAX_CONTACT_NORMALS]) -> usize {
        contact_normals(self.a, |v| v, self.b, |v| self.rot * v, c, out)
    }
    #[inline(always)]
    fn support(&mut self, d: DVec3, s: f64) -> SupPt {
        self.warm_a = self.a.support_climb_hinted(d, self.warm_a);
        self.warm_b = self.b.support_climb_hinted(self.rot_t * (-d), self.warm_b);
        self.point(self.warm_a, self.warm_b, s)
    }
    #[inline(always)]
    fn point(&self, ia: u32, ib: u32, s: f64) -> SupPt {
        let a = self.a.vertex(ia);
        let b = self.rot * self.b.vertex(ib) + self.rel.translation;
        if s == 1.0 {
            SupPt { ia, ib, a, b }
        } else {
            SupPt {
                ia,
                ib,
                a: self.ca + (a - self.ca) * s,
                b: self.cb + (b - self.cb) * s,
            }
        }
    }
}

/// Two explicit point sets; support by linear scan.
struct PointPair<'a> {
    xs: &'a [DVec3],
    ys: &'a [DVec3],
    ca: DVec3,
    cb: DVec3,
    /// The polyhedra (and poses) the point sets are the world vertices of, when they are:
    /// their topology supplies the touching plane's candidate normals.
    topo: Option<(&'a ConvexPolyhedron, Pose, &'a ConvexPolyhedron, Pose)>,
}

fn argmax(pts: &[DVec3], d: DVec3) -> u32 {
    let mut best = 0u32;
    let mut bd = f64::NEG_INFINITY;
    for (i, p) in pts.iter().enumerate() {
        let v = d.dot(*p);
        if v > bd {
            bd = v;
            best = i as u32;
        }
    }
    best
}

impl PairSupport for PointPair<'_> {
    fn contact_normals(&self, c: &Corral, out: &mut [DVec3; MAX_CONTACT_NORMALS]) -> usize {
        match self.topo {
            Some((a, pa, b, pb)) => {
                contact_normals(a, |v| pa.transform_vector(v), b, |v| pb.transform_vector(v), c, out)
            }
            None => 0,
        }
    }
    fn support(&mut self, d: DVec3, s: f64) -> SupPt {
        let ia = argmax(self.xs, d);
        let ib = argmax(self.ys, -d);
        self.point(ia, ib, s)
    }
    fn point(&self, ia: u32, ib: u32, s: f64) -> SupPt {
        let a = self.xs[ia as usize];
        let b = self.ys[ib as usize];
        if s == 1.0 {
            SupPt { ia, ib, a, b }
        } else {
            SupPt {
                ia,
                ib,
                a: self.ca + (a - self.ca) * s,
                b: self.cb + (b - self.cb) * s,
            }
        }
    }
}

/// Depth of `c` inside a polyhedron (least distance to a face plane; local frame).
fn depth_in(p: &ConvexPolyhedron, c: DVec3) -> f64 {
    p.faces()
        .iter()
        .map(|f| f.offset - f.normal.dot(c))
        .fold(f64::INFINITY, f64::min)
}

// ---------------------------------------------------------------------------------------
// Features
// ---------------------------------------------------------------------------------------

/// The feature of `poly` spanned by the distinct vertex ids `ids` (all with positive weight):
/// the convex combination lies on a feature containing every one of them. When the ids span
/// no single feature (possible only through rounding of near-zero weights), the feature is
/// found from the point itself (`local()`, in `poly`'s frame) by a scan — rare, O(V + E + F).
fn feature_of(poly: &ConvexPolyhedron, ids: &[u32], local: impl FnOnce() -> DVec3) -> Feature {
    let Some(&v0) = ids.first() else {
        return poly.feature_at(local());
    };
    if ids.len() == 1 {
        return Feature::Vertex(v0);
    }
    if ids.len() == 2 {
        let v1 = ids[1];
        for (k, &nb) in poly.neighbors(v0).iter().enumerate() {
            if nb == v1 {
                let h = poly.outgoing(v0)[k];
                return Feature::Edge(poly.half_edge(h).edge);
            }
        }
    }
    for &h in poly.outgoing(v0) {
        let f = poly.half_edge(h).face;
        let fv = poly.face_vertices(f);
        if ids.iter().all(|v| fv.contains(v)) {
            return Feature::Face(f);
        }
    }
    poly.feature_at(local())
}

/// Distinct vertex ids of one side of a corral with positive weight.
fn corral_ids(c: &Corral, side_a: bool) -> ([u32; 4], usize) {
    let mut ids = [0u32; 4];
    let mut n = 0;
    for k in 0..c.n {
        if !(c.w[k] > 0.0) {
            continue;
        }
        let id = if side_a { c.id[k].0 } else { c.id[k].1 };
        if !ids[..n].contains(&id) {
            ids[n] = id;
            n += 1;
        }
    }
    (ids, n)
}

/// Closest features of the corral whose weighted points are `pa`, `pb` (solver's frame);
/// `to_a` / `to_b` map the solver's frame to A's / B's local frame (evaluated only when a
/// feature has to be found from its point).
fn corral_features(
    a: &ConvexPolyhedron,
    to_a: impl FnOnce() -> Pose,
    b: &ConvexPolyhedron,
    to_b: impl FnOnce() -> Pose,
    c: &Corral,
    (pa, pb): (DVec3, DVec3),
) -> FeaturePair {
    let (ia, na) = corral_ids(c, true);
    let (ib, nb) = corral_ids(c, false);
    FeaturePair {
        a: feature_of(a, &ia[..na], || to_a().transform_point(pa)),
        b: feature_of(b, &ib[..nb], || to_b().transform_point(pb)),
    }
}

// ---------------------------------------------------------------------------------------
// Fast solver
// ---------------------------------------------------------------------------------------

/// The fast solve on `sup` (built from the same shapes and poses); the answer's corral is
/// left in `c`. Returns the verdict and the contact tolerance.
fn fast_solve(sup: &mut PolyPair<'_>, pa: &Pose, pb: &Pose, cache: &mut QpCache, c: &mut Corral) -> (Solved, f64) {
    let (a, b) = (sup.a, sup.b);
    let scale = pair_scale(a, pa, b, pb);
    // `contact_tolerance` is CONTACT_REL × pair_scale: the same value, one scale computation.
    let tol = CONTACT_REL * scale;
    let seed = match cache.seed {
        Some((ia, ib)) if sup.ids_valid(ia, ib) => {
            sup.warm_a = ia;
            sup.warm_b = ib;
            sup.point(ia, ib, 1.0)
        }
        _ => {
            let d = sup.cb - sup.ca;
            sup.support(d, 1.0)
        }
    };
    // The centroids' depths are precomputed with the shapes (O(1) here).
    let solved = solve_pair(
        sup,
        &seed,
        scale,
        tol,
        || Some(a.interior_depths()[0] + b.interior_depths()[0]),
        c,
    );
    cache.seed = Some(solved.seed);
    (solved, tol)
}

/// Turns a verdict into a [`Distance`]; `frame` maps the solver's frame to the world, `c` is
/// the solve's corral, `features` labels it given its two weighted points.
fn to_distance<S: PairSupport>(
    solved: &Solved,
    c: &Corral,
    sup: &S,
    frame: &Pose,
    features: impl FnOnce(&Corral, (DVec3, DVec3)) -> FeaturePair,
) -> Distance {
    let iterations = solved.iterations;
    match &solved.verdict {
        Verdict::Separated | Verdict::Touching { .. } => {
            let (pa, pb) = c.points(sup, 1.0);
            Distance::Separated {
                distance: c.x.length(),
                point_a: frame.transform_point(pa),
                point_b: frame.transform_point(pb),
                features: features(c, (pa, pb)),
                iterations,
            }
        }
        Verdict::Overlapping { point, simplex } => Distance::Penetrating {
            witness: overlap_witness(*point, *simplex, frame),
            penetration: None,
            iterations,
        },
        Verdict::NotConverged => Distance::NotConverged { iterations },
    }
}

/// Turns a verdict into an [`Intersection`]; a `Disjoint` plane is certified against the
/// vertex sets through the support mapping (else the pair is reported touching).
fn to_intersection<S: PairSupport>(solved: &Solved, c: &Corral, sup: &mut S, frame: &Pose, tol: f64) -> Intersection {
    let iterations = solved.iterations;
    let touching = |sup: &mut S, n: DVec3| {
        let (pa, pb) = c.points(sup, 1.0);
        let mid = 0.5 * (pa + pb);
        let (n, _) = touching_normal(sup, c, n, tol);
        let n = if n.length_squared() > 0.0 { n } else { DVec3::Z };
        Intersection::Touching {
            point: frame.transform_point(mid),
            plane: Plane {
                normal: n,
                offset: n.dot(mid),
            }
            .transformed(frame),
            iterations,
        }
    };
    match &solved.verdict {
        Verdict::Separated => {
            let d = c.x.length();
            let n = -c.x / d;
            let p = sup.support(n, 1.0);
            let (ha, hb) = (n.dot(p.a), n.dot(p.b));
            if ha < hb {
                Intersection::Disjoint {
                    plane: Plane {
                        normal: n,
                        offset: 0.5 * (ha + hb),
                    }
                    .transformed(frame),
                    iterations,
                }
            } else {
                touching(sup, n)
            }
        }
        Verdict::Touching { normal } => touching(sup, *normal),
        Verdict::Overlapping { point, simplex } => Intersection::Overlapping {
            witness: overlap_witness(*point, *simplex, frame),
            iterations,
        },
        Verdict::NotConverged => Intersection::NotConverged { iterations },
    }
}

/// Fast solver, boolean: Disjoint (with a separating plane checked against both vertex sets),
/// Touching (distance within the contact tolerance, no certified overlap) or Overlapping.
pub fn intersect_fast(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut QpCache,
) -> Result<Intersection, PolycdError> {
    let mut sup = PolyPair::new(a, pa, b, pb);
    let mut c = Corral::default();
    let (solved, tol) = fast_solve(&mut sup, pa, pb, cache, &mut c);
    Ok(to_intersection(&solved, &c, &mut sup, pa, tol))
}

/// Fast solver, distance: Wolfe's minimum-norm point of A − B by support mapping.
pub fn distance_fast(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut QpCache,
) -> Result<Distance, PolycdError> {
    let mut sup = PolyPair::new(a, pa, b, pb);
    let mut c = Corral::default();
    let (solved, _) = fast_solve(&mut sup, pa, pb, cache, &mut c);
    // The fast solver works in A's frame.
    Ok(to_distance(&solved, &c, &sup, pa, |c, pts| {
        corral_features(a, || Pose::IDENTITY, b, || sup.rel.inverse(), c, pts)
    }))
}

// ---------------------------------------------------------------------------------------
// Faithful solver: model (1) by clarabel, polished on the active set
// ---------------------------------------------------------------------------------------

fn check_points(xs: &[DVec3], ys: &[DVec3]) -> Result<(), PolycdError> {
    if xs.is_empty() || ys.is_empty() {
        return Err(PolycdError::TooFewPoints { found: 0 });
    }
    for (index, p) in xs.iter().chain(ys.iter()).enumerate() {
        if !p.is_finite() {
            return Err(PolycdError::NonFinite { index });
        }
        let m = p.abs().max_element();
        if m > MAX_COORDINATE {
            return Err(PolycdError::AbsurdMagnitude { value: m });
        }
    }
    Ok(())
}

fn mean(ps: &[DVec3]) -> DVec3 {
    ps.iter().fold(DVec3::ZERO, |s, p| s + *p) / ps.len().max(1) as f64
}

/// The length scale of two point sets (as [`pair_scale`] for shapes).
fn points_scale(xs: &[DVec3], ys: &[DVec3]) -> f64 {
    let (ma, mb) = (mean(xs), mean(ys));
    let ra = xs.iter().map(|p| (*p - ma).length()).fold(0.0, f64::max);
    let rb = ys.iter().map(|p| (*p - mb).length()).fold(0.0, f64::max);
    let mag = xs
        .iter()
        .chain(ys.iter())
        .map(|p| p.abs().max_element())
        .fold(0.0, f64::max);
    ra + rb + (ma - mb).length() + mag
}

struct Ipm {
    lambda: Vec<f64>,
    sigma: Vec<f64>,
    iterations: u32,
    status: Result<(), String>,
}

/// Model (1) as a sparse QP for clarabel, in coordinates centred at `origin` and divided by
/// `scale`: variables z = (λ, σ, w), minimise ½‖w‖² subject to Yσ − Xλ − w = 0, Σλ = 1,
/// Σσ = 1, λ ≥ 0, σ ≥ 0.
fn ipm_solve(xs: &[DVec3], ys: &[DVec3], origin: DVec3, scale: f64) -> Ipm {
    use clarabel::algebra::CscMatrix;
    use clarabel::solver::{DefaultSettingsBuilder, DefaultSolver, IPSolver, SolverStatus, SupportedConeT};
    let (na, nb) = (xs.len(), ys.len());
    let n = na + nb + 3;
    let m = 5 + na + nb;
    let inv = 1.0 / scale;
    let mut colptr = Vec::with_capacity(n + 1);
    let mut rowval = Vec::with_capacity(5 * (na + nb) + 3);
    let mut nzval = Vec::with_capacity(5 * (na + nb) + 3);
    colptr.push(0);
    for (i, x) in xs.iter().enumerate() {
        let p = (*x - origin) * inv;
        rowval.extend_from_slice(&[0, 1, 2, 3, 5 + i]);
        nzval.extend_from_slice(&[-p.x, -p.y, -p.z, 1.0, -1.0]);
        colptr.push(rowval.len());
    }
    for (j, y) in ys.iter().enumerate() {
        let p = (*y - origin) * inv;
        rowval.extend_from_slice(&[0, 1, 2, 4, 5 + na + j]);
        nzval.extend_from_slice(&[p.x, p.y, p.z, 1.0, -1.0]);
        colptr.push(rowval.len());
    }
    for k in 0..3 {
        rowval.push(k);
        nzval.push(-1.0);
        colptr.push(rowval.len());
    }
    let a_mat = CscMatrix::new(m, n, colptr, rowval, nzval);
    let mut pcol = vec![0usize; na + nb + 1];
    pcol.extend_from_slice(&[1, 2, 3]);
    let p_mat = CscMatrix::new(n, n, pcol, vec![na + nb, na + nb + 1, na + nb + 2], vec![1.0; 3]);
    let q = vec![0.0; n];
    let mut bvec = vec![0.0; m];
    bvec[3] = 1.0;
    bvec[4] = 1.0;
    let cones = [SupportedConeT::ZeroConeT(5), SupportedConeT::NonnegativeConeT(na + nb)];
    let fail = |msg: String| Ipm {
        lambda: vec![0.0; na],
        sigma: vec![0.0; nb],
        iterations: 0,
        status: Err(msg),
    };
    let settings = match DefaultSettingsBuilder::default()
        .verbose(false)
        .max_iter(200)
        .tol_gap_abs(1e-10)
        .tol_gap_rel(1e-10)
        .tol_feas(1e-10)
        .build()
    {
        Ok(s) => s,
        Err(e) => return fail(format!("clarabel settings: {e}")),
    };
    let mut solver = match DefaultSolver::new(&p_mat, &q, &a_mat, &bvec, &cones, settings) {
        Ok(s) => s,
        Err(e) => return fail(format!("clarabel setup: {e}")),
    };
    solver.solve();
    let status = solver.solution.status;
    let iterations = solver.solution.iterations;
    if !matches!(status, SolverStatus::Solved | SolverStatus::AlmostSolved) {
        let mut f = fail(format!("clarabel status {status:?}"));
        f.iterations = iterations;
        return f;
    }
    let z = &solver.solution.x;
    // Clip the interior point's tiny negative round-off and renormalise: the weights are
    // then exactly feasible convex combinations.
    let norm = |v: &[f64]| -> Vec<f64> {
        let c: Vec<f64> = v.iter().map(|&t| if t > 0.0 { t } else { 0.0 }).collect();
        let s: f64 = c.iter().sum();
        if s > 0.0 {
            c.iter().map(|t| t / s).collect()
        } else {
            vec![1.0 / v.len().max(1) as f64; v.len()]
        }
    };
    match (z.get(..na), z.get(na..na + nb)) {
        (Some(l), Some(s)) => Ipm {
            lambda: norm(l),
            sigma: norm(s),
            iterations,
            status: Ok(()),
        },
        _ => fail("clarabel returned a short solution".into()),
    }
}

fn argmax_w(w: &[f64]) -> u32 {
    let mut best = 0;
    for (i, &v) in w.iter().enumerate() {
        if v > w[best] {
            best = i;
        }
    }
    best as u32
}

fn combine(ps: &[DVec3], w: &[f64]) -> DVec3 {
    ps.iter().zip(w).fold(DVec3::ZERO, |s, (p, &t)| s + *p * t)
}

/// Everything the faithful core needs besides the point sets.
struct FaithfulSetup {
    scale: f64,
    tol: f64,
    ca: DVec3,
    cb: DVec3,
}

/// The faithful solve of model (1) on explicit point sets; returns the solution and, when it
/// converged, the internal verdict (for [`Intersection`] and [`Distance`] conversion).
fn faithful_core(
    xs: &[DVec3],
    ys: &[DVec3],
    setup: &FaithfulSetup,
    inr: impl FnOnce() -> Option<f64>,
) -> (QpSolution, Solved, Corral) {
    let scale = setup.scale;
    let origin = 0.5 * (setup.ca + setup.cb);
    let ipm = ipm_solve(xs, ys, origin, scale);
    let mut sol = QpSolution {
        status: QpStatus::NotConverged,
        distance: f64::NAN,
        point_a: DVec3::NAN,
        point_b: DVec3::NAN,
        lambda: vec![0.0; xs.len()],
        sigma: vec![0.0; ys.len()],
        ipm_lambda: ipm.lambda.clone(),
        ipm_sigma: ipm.sigma.clone(),
        ipm_distance: f64::NAN,
        ipm_iterations: ipm.iterations,
        polish_iterations: 0,
        normal: DVec3::ZERO,
        unique: None,
        contact_dims: None,
        notes: Vec::new(),
    };
    let not_converged = Solved {
        verdict: Verdict::NotConverged,
        iterations: ipm.iterations,
        seed: (0, 0),
    };
    let mut c = Corral::default();
    if let Err(msg) = ipm.status {
        sol.notes.push(msg);
        return (sol, not_converged, c);
    }
    let xa = combine(xs, &ipm.lambda);
    let yb = combine(ys, &ipm.sigma);
    sol.ipm_distance = (yb - xa).length();
    // Polish: Wolfe's algorithm on the explicit vertex lists, seeded from the IPM's support.
    let mut sup = PointPair {
        xs,
        ys,
        ca: setup.ca,
        cb: setup.cb,
        topo: None,
    };
    let seed = sup.point(argmax_w(&ipm.lambda), argmax_w(&ipm.sigma), 1.0);
    let mut solved = solve_pair(&mut sup, &seed, scale, setup.tol, inr, &mut c);
    solved.iterations += ipm.iterations;
    sol.polish_iterations = solved.iterations - ipm.iterations;
    let (normal, status) = match &solved.verdict {
        Verdict::NotConverged => {
            sol.notes.push("active-set polish did not converge".into());
            return (sol, solved, c);
        }
        Verdict::Overlapping { point, .. } => {
            sol.status = QpStatus::Overlapping;
            sol.distance = 0.0;
            sol.point_a = *point;
            sol.point_b = *point;
            sol.notes
                .push("overlap certified: the origin lies strictly inside A − B".into());
            return (sol, solved, c);
        }
        Verdict::Separated => (-c.x / c.x.length(), QpStatus::Separated),
        Verdict::Touching { normal } => (*normal, QpStatus::Touching),
    };
    let d = c.x.length();
    // Cross-check against the interior-point optimum (scaled units).
    let (dn, dipm) = (d / scale, sol.ipm_distance / scale);
    if !(dn <= dipm + 1e-10) || !(dn * dn >= dipm * dipm - IPM_AGREEMENT) {
        sol.notes.push(format!(
            "interior-point distance {:e} and polished distance {:e} disagree",
            sol.ipm_distance, d
        ));
        return (
            sol,
            Solved {
                verdict: Verdict::NotConverged,
                ..solved
            },
            c,
        );
    }
    sol.status = status;
    sol.distance = d;
    (sol.point_a, sol.point_b) = c.points(&sup, 1.0);
    sol.normal = normal;
    for k in 0..c.n {
        let (ia, ib) = c.id[k];
        sol.lambda[ia as usize] += c.w[k];
        sol.sigma[ib as usize] += c.w[k];
    }
    if normal.length_squared() > 0.0 {
        let (dims, unique, note) = uniqueness(xs, ys, normal, sol.point_a - sol.point_b, scale);
        sol.contact_dims = Some(dims);
        sol.unique = Some(unique);
        sol.notes.push(note);
    }
    (sol, solved, c)
}

// ---------------------------------------------------------------------------------------
// Uniqueness of the optimum (the paper's remark on edge–edge, edge–face, face–face contact)
// ---------------------------------------------------------------------------------------

fn cross2(o: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
}

/// Convex hull (counter-clockwise, collinear points dropped) of 2-D points.
fn hull2(mut pts: Vec<[f64; 2]>) -> Vec<[f64; 2]> {
    pts.sort_by(|p, q| p[0].total_cmp(&q[0]).then(p[1].total_cmp(&q[1])));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let mut h: Vec<[f64; 2]> = Vec::with_capacity(2 * pts.len());
    for pass in 0..2 {
        let start = h.len();
        let iter: Box<dyn Iterator<Item = &[f64; 2]>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for &p in iter {
            while h.len() >= start + 2 && cross2(h[h.len() - 2], h[h.len() - 1], p) <= 0.0 {
                h.pop();
            }
            h.push(p);
        }
        h.pop();
    }
    h
}

fn dist2(a: [f64; 2], b: [f64; 2]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// Affine dimension (0, 1, 2) of a 2-D hull with tolerance `eta`.
fn dim2(h: &[[f64; 2]], eta: f64) -> u8 {
    let mut best = (0, 0, 0.0);
    for i in 0..h.len() {
        for j in i + 1..h.len() {
            let d = dist2(h[i], h[j]);
            if d > best.2 {
                best = (i, j, d);
            }
        }
    }
    if best.2 <= eta {
        return 0;
    }
    let (p, q, l) = (h[best.0], h[best.1], best.2);
    if h.iter().all(|&r| (cross2(p, q, r) / l).abs() <= eta) {
        1
    } else {
        2
    }
}

fn diameter2(pts: &[[f64; 2]]) -> f64 {
    let mut d = 0.0f64;
    for i in 0..pts.len() {
        for j in i + 1..pts.len() {
            d = d.max(dist2(pts[i], pts[j]));
        }
    }
    d
}

/// Is the optimal pair of points unique? The optimal points of A are `A ∩ (B + v)` (v the
/// optimal `point_a − point_b`), which lies in the supporting plane of A with normal `n`:
/// intersect the two contact polygons there (Sutherland–Hodgman) and measure the result.
fn uniqueness(xs: &[DVec3], ys: &[DVec3], n: DVec3, v: DVec3, scale: f64) -> ((u8, u8), bool, String) {
    let delta = AGREEMENT_REL * scale;
    let eta = 1e3 * delta;
    let ha = xs.iter().map(|p| n.dot(*p)).fold(f64::NEG_INFINITY, f64::max);
    let hb = ys.iter().map(|p| n.dot(*p)).fold(f64::INFINITY, f64::min);
    let e1 = n.any_orthonormal_vector();
    let e2 = n.cross(e1);
    let to2 = |p: DVec3| [e1.dot(p), e2.dot(p)];
    let pa = hull2(
        xs.iter()
            .filter(|p| n.dot(**p) >= ha - delta)
            .map(|p| to2(*p))
            .collect(),
    );
    let pb = hull2(
        ys.iter()
            .filter(|p| n.dot(**p) <= hb + delta)
            .map(|p| to2(*p + v))
            .collect(),
    );
    let (da, db) = (dim2(&pa, eta), dim2(&pb, eta));
    let kind = |d: u8| ["vertex", "edge", "face"][d.min(2) as usize];
    let label = format!("{}–{} contact", kind(da), kind(db));
    if da == 0 || db == 0 {
        return ((da, db), true, format!("{label}: the optimal points are unique"));
    }
    let extent = if da == 1 && db == 1 {
        let (p0, p1) = (pa[0], pa[pa.len() - 1]);
        let (q0, q1) = (pb[0], pb[pb.len() - 1]);
        let la = dist2(p0, p1);
        let lb = dist2(q0, q1);
        let u = [(p1[0] - p0[0]) / la, (p1[1] - p0[1]) / la];
        let w = [(q1[0] - q0[0]) / lb, (q1[1] - q0[1]) / lb];
        let sin = (u[0] * w[1] - u[1] * w[0]).abs();
        let off = (cross2(p0, p1, q0) / la).abs();
        if sin > 1e-9 || off > eta {
            0.0
        } else {
            let t = |q: [f64; 2]| (q[0] - p0[0]) * u[0] + (q[1] - p0[1]) * u[1];
            let (t0, t1) = (t(q0).min(t(q1)), t(q0).max(t(q1)));
            (t1.min(la) - t0.max(0.0)).max(0.0)
        }
    } else {
        // Clip the other contact set by the 2-D one.
        let (subject, clip) = if db == 2 { (pa, pb) } else { (pb, pa) };
        let mut poly = subject;
        for k in 0..clip.len() {
            let (c0, c1) = (clip[k], clip[(k + 1) % clip.len()]);
            let len = dist2(c0, c1);
            let side = |p: [f64; 2]| cross2(c0, c1, p) / len + eta;
            let mut out = Vec::with_capacity(poly.len() + 2);
            for i in 0..poly.len() {
                let (p, q) = (poly[i], poly[(i + 1) % poly.len()]);
                let (sp, sq) = (side(p), side(q));
                if sp >= 0.0 {
                    out.push(p);
                }
                if (sp >= 0.0) != (sq >= 0.0) {
                    let t = sp / (sp - sq);
                    out.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
                }
            }
            poly = out;
            if poly.is_empty() {
                break;
            }
        }
        diameter2(&poly)
    };
    if extent > 10.0 * eta {
        (
            (da, db),
            false,
            format!("{label}: the optimum is not unique (the optimal points span {extent:e})"),
        )
    } else {
        ((da, db), true, format!("{label}: the optimal points are unique"))
    }
}

// ---------------------------------------------------------------------------------------
// Faithful public API
// ---------------------------------------------------------------------------------------

fn world_vertices(p: &ConvexPolyhedron, pose: &Pose) -> Vec<DVec3> {
    p.vertices().iter().map(|v| pose.transform_point(*v)).collect()
}

fn faithful_poly(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
) -> (Vec<DVec3>, Vec<DVec3>, QpSolution, Solved, Corral, FaithfulSetup) {
    let xs = world_vertices(a, pa);
    let ys = world_vertices(b, pb);
    let setup = FaithfulSetup {
        scale: pair_scale(a, pa, b, pb),
        tol: contact_tolerance(a, pa, b, pb),
        ca: pa.transform_point(a.centroid()),
        cb: pb.transform_point(b.centroid()),
    };
    let (sol, solved, c) = faithful_core(&xs, &ys, &setup, || {
        Some(depth_in(a, a.centroid()) + depth_in(b, b.centroid()))
    });
    (xs, ys, sol, solved, c, setup)
}

/// Model (1) for two polyhedra at their poses (world frame): the interior-point solution,
/// polished, with weights, closest points and the uniqueness analysis.
pub fn solve_faithful(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
) -> Result<QpSolution, PolycdError> {
    Ok(faithful_poly(a, pa, b, pb).2)
}

/// Model (1) for two raw point sets (their convex hulls; duplicates and interior points are
/// allowed). Errors: an empty set (`TooFewPoints { found: 0 }`), a non-finite coordinate
/// (`NonFinite { index }`, indexing `xs` then `ys`), or an absurd magnitude. Overlap is
/// certified through the hulls of the point sets when they are solid; otherwise a zero
/// distance is reported as touching.
pub fn solve_points(xs: &[DVec3], ys: &[DVec3]) -> Result<QpSolution, PolycdError> {
    check_points(xs, ys)?;
    let scale = points_scale(xs, ys).max(f64::MIN_POSITIVE);
    let setup = FaithfulSetup {
        scale,
        tol: CONTACT_REL * scale,
        ca: mean(xs),
        cb: mean(ys),
    };
    let inr = || {
        let ha = ConvexPolyhedron::from_points(xs).ok()?;
        let hb = ConvexPolyhedron::from_points(ys).ok()?;
        Some(depth_in(&ha, setup.ca) + depth_in(&hb, setup.cb))
    };
    Ok(faithful_core(xs, ys, &setup, inr).0)
}

/// Faithful solver, boolean.
pub fn intersect_faithful(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
) -> Result<Intersection, PolycdError> {
    let (xs, ys, _, solved, c, setup) = faithful_poly(a, pa, b, pb);
    if matches!(solved.verdict, Verdict::NotConverged) {
        // See `distance_faithful`.
        return intersect_fast(a, pa, b, pb, &mut QpCache::default());
    }
    let mut sup = PointPair {
        xs: &xs,
        ys: &ys,
        ca: setup.ca,
        cb: setup.cb,
        topo: Some((a, *pa, b, *pb)),
    };
    Ok(to_intersection(
        &solved,
        &c,
        &mut sup,
        &Pose::IDENTITY,
        contact_tolerance(a, pa, b, pb),
    ))
}

/// Faithful solver, distance.
pub fn distance_faithful(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
) -> Result<Distance, PolycdError> {
    let (xs, ys, _, solved, c, setup) = faithful_poly(a, pa, b, pb);
    if matches!(solved.verdict, Verdict::NotConverged) {
        // The active-set polish stalled (or disagreed with the interior-point optimum):
        // seen on needles of aspect 10⁶ touching within rounding, where Wolfe's steps over
        // the explicit vertex lists stop decreasing with a duality gap above the acceptance
        // bound. The same algorithm over the support mapping (the fast solver, whose ties
        // and refinements differ) answers instead; only if it fails too is the answer
        // `NotConverged`.
        return distance_fast(a, pa, b, pb, &mut QpCache::default());
    }
    let sup = PointPair {
        xs: &xs,
        ys: &ys,
        ca: setup.ca,
        cb: setup.cb,
        topo: None,
    };
    // The faithful solver works in the world frame.
    Ok(to_distance(&solved, &c, &sup, &Pose::IDENTITY, |c, pts| {
        corral_features(a, || pa.inverse(), b, || pb.inverse(), c, pts)
    }))
}
