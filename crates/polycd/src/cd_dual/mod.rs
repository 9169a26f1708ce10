//! CD-Dual: overlap by the dual signed distance, and translation distance along a direction.
//!
//! Paper: Y.-K. Choi, X. Li, W. Wang, S. Cameron, *Collision Detection of Convex Polyhedra
//! Based on Duality Transformation* (seed 000_4b8bdb73f24e3126).
//!
//! Rounded shapes ([`crate::shape::polyhedron::ConvexPolyhedron::with_radius`]): this algorithm answers for the
//! cores and never reads the radius; `query::rounded` turns its answers into the rounded
//! shapes' (through [`crate::query`] only).
//!
//! # Outline
//! 1. Work in A's frame: `P = A`, `Q = B` moved by `pose_a⁻¹·pose_b`, `M = P ⊕ (−Q)` (never built).
//!    (The boolean query may exchange the roles, see the departures.)
//! 2. Pick `c ≠ o` inside `M` from the stored interior points (§4.1) and a ray direction
//!    (`dir = o − c` for the boolean query). Every face `f` of `M` with outward normal `N` and
//!    support value `k = h_M(N)` gets the key `σ(f) = N·dir / (k − N·c)`: the reciprocal of the
//!    ray parameter where the ray `c + λ·dir` meets the face's plane. Eq. (1) is
//!    `d(f) = (σ(f) − 1)/|c|`, so maximising `σ` is maximising `d`, and `d > 0 ⇔ k < 0`.
//! 3. Search-FV: steepest ascent over the faces of P (each paired with its supporting vertex of
//!    −Q), from the heuristic face of §4.2 or the cached face of the last query (§4.4).
//! 4. Search-VF: the same over the faces of Q, started from a face incident at the supporting
//!    vertex the FV phase ended on (the paper's alternative start).
//! 5. Search-EE: a stack of edge pairs; a pair is a face of `M` iff the Gaussian-image arcs of
//!    the two edges cross (§4.3, three signed-volume conditions, evaluated exactly on the face
//!    normals: a float filter with Shewchuk's error bound, `predicates::orient3d` when it
//!    cannot decide). An improving face pushes its neighbours in
//!    M (the paper's edge pairs, plus the FV/VF faces at the arc end points: see below).
//! 6. Any face with `k < 0` ends the boolean search at once (its plane separates); otherwise the
//!    final face `f_opt` is where the ray `c → o` leaves `M`, beyond `o`, so `o ∈ M`. A phase
//!    result (or an EE improvement) that the ray meets inside is `f_opt` (§3.2) and ends the
//!    search too. The boolean query also ends it at the first face that certifies `o ∈ M`
//!    with a ball about `c` (see the departures).
//! 7. §6: project both shapes along `s`, build the two 2-D hulls and their Minkowski
//!    difference, find a fan triangle holding the origin, lift its barycentric combination to
//!    `c = k·s ∈ M`, and run the full search (no early exit) along `−s` and `+s`.
//!
//! Files: `mod.rs` (this header, the public types, the cache, [`search`] and the interior
//! point of §4.1), `face.rs` (the search context, evaluation of FV/VF/EE faces, the arc test,
//! the separation certificate, the heuristic start), `search.rs` (steps 3–4: one steepest
//! ascent for Search-FV and Search-VF, generic over the family walked; the hand-over to
//! Search-EE; §4.4's stored face), `ee.rs` (step 5: the Search-EE stack, its neighbourhoods
//! and the set of edge pairs seen), `probe.rs` (the ray test of step 6 and the overlap
//! certificate), `boolean.rs` ([`intersect`]: role swap, answer and its clearance),
//! `directional.rs` and `planar.rs` (step 7: [`directional`], the projected hulls).
//!
//! # Invariants
//! - Every evaluated plane is a genuine supporting plane of `M`: FV/VF planes use the exact
//!   support value of the other shape (ties do not change the value); EE planes are formed only
//!   when the arcs cross *and* a local support test at both edges confirms the plane (the arc
//!   test runs on rounded normals: for parallel edges — shapes related by a symmetry — it can
//!   say "cross" while the edges' cross product is noise pointing anywhere).
//! - A positive `d` (separation) is reported only after a certificate: fresh support queries
//!   (hill-climbs along the face's normal over the vertex graphs, started at the face's
//!   generating features; a local maximum of a linear function on a convex polytope is global)
//!   must show A's maximum along the normal below B's minimum. A face that fails it is ignored
//!   and the search goes on; a failing final face gives `NotConverged` (or `Touching` when the
//!   overlap along the normal is within the contact tolerance).
//! - An overlap is reported at `f_opt` (above) or after the overlap certificate of the boolean
//!   query: a point `z = z_a − z_b` of M (`z_a` on A's generating feature of an evaluated
//!   face, `z_b` on B's) and the ball of radius `ρ` about `c` that lies in M must put `o` in
//!   their convex hull, with a margin for rounding (below); the common point reported is built
//!   from that convex combination.
//! - A face is taken as `f_opt` without examining its neighbourhood only when the ray
//!   `c + λ·dir` meets it inside its generating features by a margin ([`RAY_HIT_REL`](crate::core::tolerance::RAY_HIT_REL) of the
//!   pair's scale, amplified by the ray's obliquity): its plane supports M and the meeting
//!   point is in M, so no face plane meets the ray earlier.
//! - Within each phase the key strictly increases from one current face to the next.
//! - The boolean answer's clearance ([`BooleanAnswer::clearance`]) comes only from a
//!   certificate: the gap measured by the separation certificate's fresh support queries, or
//!   the depth of the common point built from the overlap certificate or `f_opt` (interior
//!   points of known depth mixed with points of the shapes, minus the rounding allowance).
//!
//! # Termination
//! FV (VF) moves only to a strictly better face of P (Q), so each face is current at most once:
//! ≤ F_P (F_Q) moves. In EE every expansion strictly raises the best key, so each of the
//! ≤ E_P·E_Q + F_P + F_Q faces is expanded at most once, and each expansion pushes at most
//! `2(H_P + H_Q) + 8` candidates (H = half-edge count; the tie lists are bounded likewise),
//! the faces across its borders (fewer again) and one marker: pops are bounded by the
//! product, counted with twice that allowance per face. These bounds are also enforced with
//! counters; hitting one returns `NotConverged`. Every other loop runs over a fixed
//! vertex/edge list. Search-EE also evaluates each edge pair at most once per search (a set
//! kept in the cache): the best key only grows, so a pair seen before cannot improve it, and
//! degenerate Gaussian images (aligned boxes) push the same pairs from many tied faces.
//!
//! # Decisions the paper leaves open, and departures
//! - `c`: of the four differences `p_i − q_j` of the stored interior points, the longest one
//!   (farthest from `o`, so `dir` has the best relative accuracy).
//! - Heuristic start. §4.2 takes the face of P maximising `n·s`, `s = o − c`, over all faces,
//!   and notes that it is far from `f_opt` when M is elongated. We aim at `f_opt`'s normal
//!   instead: M is modelled by an ellipsoid from the two shapes' vertex means and covariances
//!   (`E = 6 (C_P + R C_Q Rᵀ)`, exact for two equal aligned ellipsoid samples), the ray
//!   `c + λ·s` is intersected with it, and the model's normal `N` there replaces `s` (`s` is the
//!   fallback when the model is degenerate or misses the ray). The start face is the face
//!   maximising `n·N` among those at P's vertex stored for `N` in the shape's cube map of
//!   support vertices (its direction table, `ConvexPolyhedron::hint_start`: 6·k² cells,
//!   k ≈ √n / 2), O(1) instead of a scan. Cold support warm starts (B's vertex for the start face) come
//!   from the same table instead of the Dobkin–Kirkpatrick descent; the climbs from them are
//!   exact.
//! - Early exit at `f_opt`: besides the paper's exit on a positive face, the search stops when
//!   the ray meets the current face (the test above) — at the end of Search-FV and Search-VF
//!   and at each improvement of Search-EE. The paper's search would reach the same face and
//!   then evaluate its whole neighbourhood to confirm it (≈ 50 edge pairs and faces in
//!   Search-EE on the sweep's shapes); the geometric test confirms it in O(face size). A
//!   meeting point within the margin of a border gives no exit: the neighbourhood decides.
//! - Search-EE order: the faces across the border(s) of the current face that the ray's
//!   meeting point lies beyond are pushed on top of the stack (by convexity they improve the
//!   key, generic case: for an FV face the twin face and the edge pairs of that edge with the
//!   edges at the supporting vertex; for an EE parallelogram the pairs and FV/VF faces at the
//!   end vertex it lies beyond); the whole neighbourhood (below) lies under them as a marker
//!   expanded only when popped. The set of faces examined before the search ends at a face
//!   without an improving neighbour is unchanged; the first improvement is usually on top.
//! - Skipped support queries: a neighbour's support vertex is bounded by the warm-start
//!   vertex's value (`k ≥ offset − n·q_warm`), hence its key from above; when that bound
//!   cannot beat the face to beat (in Search-EE: nor tie it) and is at most 1 (so `k ≥ 0`, no
//!   separation), the hill-climb is skipped. Search-FV/VF also skip the face the ascent just
//!   came from (its key is below the current face's and it did not separate). Steepest ascent
//!   takes the same path; skipped faces are not counted in `steps`.
//! - Early exit: the paper tests `d_m > 0` once per iteration; we exit as soon as *any*
//!   evaluated face has `k < 0` (its plane separates; the answer is the same, found sooner).
//! - Early exit on overlap (boolean query only; `search` and `directional` run the paper's
//!   search). The paper confirms `o ∈ M` only at `f_opt`. M contains the ball of radius
//!   `ρ = d_A + d_B` about `c = p_c − q_c` (the stored depth bounds of the two interior
//!   points), and every face polygon of M. Where the ray meets a face's plane beyond `o`
//!   (`x = c + λ·dir`, `λ > 1`), let `z` be the point of the face's generating features
//!   nearest to `x` (FV/VF: on the face polygon; EE: the meeting point's parallelogram
//!   coordinates clamped), `δ = |x − z|`. If `δ ≤ ρ (λ − 1)`, the point
//!   `b = c + (x − z)/(λ − 1)` lies in the ball and `o = (1 − 1/λ) b + (1/λ) z`, so `o ∈ M`:
//!   the search ends with the common point `(1 − 1/λ)(p_c + u_A) + (1/λ) z_a`
//!   (`u = b − c` split between the two interior points in proportion to their depths).
//!   `z` need not lie on a face of M: any point of A minus any point of B is in M, so the
//!   test is exact up to the rounding of `c`, `x` and `z`, for which it keeps
//!   [`OVERLAP_CERT_REL`](crate::core::tolerance::OVERLAP_CERT_REL) of the pair's scale (per quantity, and off `ρ`) to spare. The test
//!   runs inside the ray test, on the faces that test already sees. Deep overlaps usually end
//!   at once, often at the start face; near contact (`λ → 1`) it rarely fires and the search
//!   reaches `f_opt`.
//! - Start-face probe (boolean query): the ray test (with the certificate) runs on the start
//!   face before Search-FV evaluates its neighbours; its pushes stay on the stack for
//!   Search-EE when the start face stays the FV result, which is not probed again.
//! - Role swap (boolean query): Search-FV walks the faces of the shape whose faces are
//!   expected larger around the model normal `N` of the heuristic start (by the inertia
//!   ellipsoids: the share of M's area near `N` that a shape's faces cover is its product of
//!   principal radii of curvature there, `det A / (Nᵀ A N)²` with `A = 3 C` its squared
//!   semi-axes). When that is B, the search runs with `P = B`, `Q = A` in B's frame
//!   (`M' = −M`, the same interior points, the model normal `−Rᵀ N`), and its answer is
//!   mapped back (plane normals negated, feature pairs exchanged). The ray is likelier to
//!   leave M through a face of the shape Search-FV walks, so Search-VF and Search-EE run
//!   less often (e.g. when the rotated Q's broad sides face P's tip). A coherent query keeps the
//!   roles of the last one (the cache records them), so its stored face stays meaningful.
//! - Search-VF start: the paper says "a face incident at v_q"; we take the one whose face of M
//!   (normal `−R n_g`) is best aligned with the model normal `N` of the heuristic start (with
//!   coherence: with the FV result's normal).
//! - Search-EE: when a pair improves the best face, the pending stack is discarded before the
//!   new neighbours are pushed (first-improvement local search). Pending pairs are neighbours of
//!   worse faces; correctness only needs the final face's neighbourhood examined, which it is.
//! - Search-EE also pushes, for an improving EE face, the FV/VF faces at the four end points of
//!   its two arcs, and for an improving FV/VF face its same-family neighbours — i.e. the whole
//!   neighbourhood of the face in M's face graph (= the vertex graph of the dual polytope, on
//!   which a linear function's local maximum is global). The paper pushes EE pairs only, which
//!   is exact only if Search-FV/VF return the global maxima of their families (Theorems 1–2).
//!   The dual points of the FV faces are vertices of M̂, but P's face adjacency need not be the
//!   edge graph of their hull: the paper's version misjudges random near-contact pairs. The
//!   extra pushes cost a few evaluations per improvement.
//! - Degenerate Gaussian images (appendix, cases 2 and 3): a face normal of one shape on an arc
//!   or vertex of the other's Gaussian image means the supporting feature of the other shape is
//!   an edge or face. The FV/VF key is unaffected (the support value is unique), and the EE
//!   start set is built from the edges incident at *every* tied supporting vertex (ties within
//!   `COPLANAR_REL` × scale), i.e. the arguments of Lemma 3 applied to each adjacent region;
//!   with ties, the arcs of the other shape's supporting edge/face also leave the normal, so
//!   the edges at the face's corners × the edges at the tied vertices are pushed as well
//!   (a cube and a cone sharing an axis need them).
//!   Parallel edges (arcs on one great circle: all signed volumes zero) and arcs meeting only at
//!   an end point form no EE face: the face of M there is the FV/VF face already evaluated.
//! - Degenerate Gaussian images also break the face graph the local search walks: a face
//!   normal of one shape lying exactly on an arc of the other (or two coinciding normals) makes
//!   some neighbours of a face of M faces that are not in the generic neighbour lists. Search-EE
//!   therefore starts from the full M-neighbourhood of both the FV and the VF result; an EE
//!   face also pushes the FV/VF faces at all faces around its edges' end vertices; a tied FV
//!   (VF) face pushes the faces at its corners and the other shape's faces at the tied
//!   vertices; and an FV/VF face whose key ties (within `COPLANAR_REL`, relative) a finite EE
//!   best replaces it (same plane: the merged face of parallel faces), keeping the larger key
//!   so no cycle can form (at most one tie move between strict improvements).
//! - The separating plane returned is the face plane of M shifted to the middle of the gap
//!   measured by the certificate's support queries.
//! - Overlap witness: the point `x* = c + λ*·dir` where the ray leaves M lies on `f_opt`;
//!   writing `x* = p* − q*` with `p*`, `q*` on `f_opt`'s generating features and
//!   `o = (1−θ)c + θx*`, the point `(1−θ)p_c + θp* = (1−θ)q_c + θq*` is common to A and B
//!   (`OverlapWitness::CommonPoint`). When `p*`/`q*` fall outside the generating features
//!   (beyond 1e-9 × scale: the face of M is a merged face of a degenerate Gaussian image, e.g.
//!   parallel box faces), we return `OverlapWitness::Features` with `f_opt`'s generating
//!   features and the A-side point instead, which is then only approximately common.
//! - §6: the paper computes one end of the chord of the line `{t s}` through M. We compute the
//!   end reached from `c` along `−s` (`lo`) and along `+s` (`hi`), each a full search with its
//!   own ray direction, and read `t` from the face plane (`t = k / (N·s)`, independent of `c`).
//!   The second search is skipped when the first end already decides the answer. The 2-D hulls
//!   are built by monotone chain (exact `orient2d`) over the silhouette vertices only (an O(n)
//!   scan of the face normals against `s`, with a margin, `SILHOUETTE_MARGIN`, that keeps
//!   every vertex whose normal cone may meet the plane normal to `s`), instead of the paper's
//!   silhouette walk, into buffers held by the cache; near-duplicate hull vertices (ends of
//!   edges parallel to `s`) are merged so that the edge-angle merge of the 2-D Minkowski
//!   difference stays consistent.
//! - Eq. (1) assumes the face plane written with `k > 0`; `d(f)` is invariant under flipping
//!   the sign of `(N, k)`, so we keep outward normals throughout.
//! - Grazing lines (the origin on the boundary of the projected Minkowski difference) are
//!   treated as meeting M; the resulting `c` lies on ∂M and the answer is as good as the
//!   floating-point faces allow.
//!
//! Shapes: solids only; a point, segment or polygon is refused with
//! [`PolycdError::UnsupportedShape`]: the
//! paper's dual transform (§4.1) is taken about a point strictly inside `M = A − B`, built
//! from interior points of both shapes, and a flat shape has none (its `M` may have no
//! interior at all).

mod boolean;
mod directional;
mod ee;
mod face;
mod outcome;
mod planar;
mod probe;
mod search;

pub use boolean::intersect;
pub use directional::directional;
pub use face::arcs_cross;

use crate::contract::{Feature, FeaturePair, Intersection};
use crate::core::error::PolycdError;
use crate::core::math::{DMat3, DVec3, Pose};
use crate::shape::polyhedron::ConvexPolyhedron;
use ee::PairSet;
use face::Cand;
use face::Ctx;
use outcome::Outcome;
use planar::{M2, P2};
use search::{quiet, run};

/// Which of the three face families of `M = P ⊕ (−Q)` a face belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FaceKind {
    /// A face of P translated by a vertex of −Q.
    Fv,
    /// A vertex of P plus a face of −Q.
    Vf,
    /// The parallelogram of an edge of P and an edge of −Q.
    Ee,
}

/// A face of `M` by its generating features (ids into A's and B's topology).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DualFace {
    /// Face of A, supporting vertex of B (the vertex of −B supporting that face's normal).
    Fv {
        /// Face of A.
        face_a: u32,
        /// Vertex of B.
        vertex_b: u32,
    },
    /// Vertex of A, face of B.
    Vf {
        /// Vertex of A.
        vertex_a: u32,
        /// Face of B.
        face_b: u32,
    },
    /// Edge of A, edge of B.
    Ee {
        /// Edge of A.
        edge_a: u32,
        /// Edge of B.
        edge_b: u32,
    },
}

impl DualFace {
    /// The family.
    pub fn kind(&self) -> FaceKind {
        match self {
            DualFace::Fv { .. } => FaceKind::Fv,
            DualFace::Vf { .. } => FaceKind::Vf,
            DualFace::Ee { .. } => FaceKind::Ee,
        }
    }
    /// The generating features as a [`FeaturePair`].
    pub fn features(&self) -> FeaturePair {
        match *self {
            DualFace::Fv { face_a, vertex_b } => FeaturePair {
                a: Feature::Face(face_a),
                b: Feature::Vertex(vertex_b),
            },
            DualFace::Vf { vertex_a, face_b } => FeaturePair {
                a: Feature::Vertex(vertex_a),
                b: Feature::Face(face_b),
            },
            DualFace::Ee { edge_a, edge_b } => FeaturePair {
                a: Feature::Edge(edge_a),
                b: Feature::Edge(edge_b),
            },
        }
    }
}

/// Options of [`search`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SearchOptions {
    /// Stop at the first face with positive signed distance (the boolean query). With `false`
    /// the search always reaches `f_opt`, so `alpha` is the exact distance along `c → o`.
    pub early_exit: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self { early_exit: true }
    }
}

impl SearchOptions {
    /// With [`SearchOptions::early_exit`] set (the struct is `#[non_exhaustive]`: callers
    /// outside polycd start from [`SearchOptions::default`]).
    #[must_use]
    pub fn with_early_exit(mut self, early_exit: bool) -> Self {
        self.early_exit = early_exit;
        self
    }
}

/// Where [`search_observed`] is in its phases: each of Search-FV, Search-VF and Search-EE
/// (named by the face family it walks) that runs is started and then ended, in that order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PhaseEvent {
    /// The phase begins.
    Start(FaceKind),
    /// The phase ends (its result found, or the search ended in it).
    End(FaceKind),
}

/// Everything [`search`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CdDualReport {
    /// The search finished within its bounds (otherwise the remaining fields describe the best
    /// face when it stopped).
    pub converged: bool,
    /// A face of M with positive signed distance was reached: A and B are separate.
    pub separated: bool,
    /// The search stopped early at a positive face (so `face` need not be `f_opt`).
    pub early_exit: bool,
    /// The final face (`f_opt` unless `early_exit`).
    pub face: DualFace,
    /// Its outward unit normal as a face of `M = A − B`, world frame.
    pub normal: DVec3,
    /// Its plane offset: `normal · x = support` on the face (world frame; M does not depend on
    /// the common translation). Negative ⇔ the plane separates the origin from M.
    pub support: f64,
    /// `d(f)` of Eq. (1).
    pub signed_distance: f64,
    /// Distance from the origin to where the line through `c` and `o` meets the face plane:
    /// the separating distance along `c → o` when separate, the penetration distance along it
    /// when overlapping (§3.2). Exact only when the search ran to completion.
    pub alpha: f64,
    /// The interior point `c` of M used (world frame).
    pub interior_point: DVec3,
    /// Faces evaluated in Search-FV, Search-VF and Search-EE (EE: stack pops).
    pub steps: [u32; 3],
}

impl CdDualReport {
    /// The final face's family.
    pub fn kind(&self) -> FaceKind {
        self.face.kind()
    }
    /// Total faces evaluated.
    pub fn iterations(&self) -> u32 {
        self.steps[0]
            .saturating_add(self.steps[1])
            .saturating_add(self.steps[2])
    }
}

/// The boolean query's answer ([`intersect`]) with the clearance CD-Dual proved for it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BooleanAnswer {
    /// The answer.
    pub intersection: Intersection,
    /// How far the answer is from contact, as certified by the search: for `Disjoint`, the
    /// separation margin `min_B n·b − max_A n·a` of its plane (its `−h_M(n)`, exact up to
    /// rounding, as every evaluated plane supports `M`); for `Overlapping` with a common
    /// point, a lower bound on the point's depth in both shapes (a ball of this radius around
    /// it lies in both). `None` for the other answers. The query layer uses it to skip
    /// re-measuring pairs far from contact.
    pub clearance: Option<f64>,
}

/// CD-Dual's per-pair state: the face of A the last optimal face came from (§4.4), support
/// warm starts, and the scratch space (EE stack, tie lists, 2-D hull buffers).
#[derive(Clone, Debug)]
pub struct CdDualCache {
    face_a: u32,
    warm_a: u32,
    warm_b: u32,
    stack: Vec<Cand>,
    ties: Vec<u32>,
    pts_a: Vec<P2>,
    pts_b: Vec<P2>,
    /// Per face of the shape whose silhouette is being taken (directional query): the side of
    /// `n·s` (see `project_silhouette`).
    face_s: Vec<u8>,
    hull_a: Vec<P2>,
    hull_b: Vec<P2>,
    mink: Vec<M2>,
    /// The edge pairs Search-EE has evaluated in the current search (see [`PairSet`]).
    ee_seen: PairSet,
    /// The stored face and warm starts belong to a search with the shapes' roles exchanged
    /// (the boolean query's role swap: B in the role of P).
    swapped: bool,
}

impl CdDualCache {
    /// Forgets the coherence state (the next query starts cold, from the §4.2 heuristic) and
    /// keeps the scratch buffers' capacity, so a cache reused for unrelated queries does not
    /// allocate.
    pub fn forget(&mut self) {
        self.face_a = u32::MAX;
        self.warm_a = 0;
        self.warm_b = 0;
        self.swapped = false;
    }

    /// The face of A the next search starts from, if any.
    pub fn start_face(&self) -> Option<u32> {
        (self.face_a != u32::MAX).then_some(self.face_a)
    }

    /// Sets the roles of the next search; the stored face and warm starts are dropped when
    /// they belong to the other roles.
    fn set_roles(&mut self, swapped: bool) {
        if self.swapped != swapped {
            self.face_a = u32::MAX;
            self.warm_a = 0;
            self.warm_b = 0;
            self.swapped = swapped;
        }
    }
}

impl Default for CdDualCache {
    fn default() -> Self {
        Self {
            face_a: u32::MAX,
            warm_a: 0,
            warm_b: 0,
            stack: Vec::new(),
            ties: Vec::new(),
            pts_a: Vec::new(),
            pts_b: Vec::new(),
            face_s: Vec::new(),
            hull_a: Vec::new(),
            hull_b: Vec::new(),
            mink: Vec::new(),
            ee_seen: PairSet::default(),
            swapped: false,
        }
    }
}

/// The full CD-Dual search with its report (f_opt, its family and features, α, and the per-phase
/// step counts — the data of the paper's Fig. 10). It runs in the caller's roles and
/// without the boolean query's start-face probe and overlap certificate (module notes), so
/// `early_exit` stops only at a separating face.
pub fn search(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut CdDualCache,
    options: SearchOptions,
) -> Result<CdDualReport, PolycdError> {
    search_observed(a, pa, b, pb, cache, options, &mut quiet)
}

/// [`search`], telling `observe` where each phase starts and ends (e.g. to time the phases
/// from outside, the paper's Fig. 10).
pub fn search_observed(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut CdDualCache,
    options: SearchOptions,
    observe: &mut impl FnMut(PhaseEvent),
) -> Result<CdDualReport, PolycdError> {
    crate::shape::flat::require_solids(
        a,
        b,
        "cd_dual",
        "it needs interior points of both shapes (its dual transform is centred inside M)",
    )?;
    // The full search keeps the caller's roles.
    cache.set_roles(false);
    let (r, t) = relative(pa, pb);
    let c = interior_point(a, b, r, t).c;
    let ctx = Ctx {
        poses: (pa, pb),
        p: a,
        q: b,
        r,
        rt: r.transpose(),
        t,
        c,
        dir: -c,
        scale: coordinate_scale(a, b, t),
        rho: 0.0,
    };
    let mut steps = [0u32; 3];
    let (best, converged, early) = match run(&ctx, cache, options.early_exit, &mut steps, None, observe) {
        Outcome::Done { best, early, .. } => (best, true, early),
        // `rho = 0`: no overlap certificate in the full search.
        Outcome::NotConverged { best } | Outcome::Overlap { best, .. } => (best, false, false),
    };
    let len = best.n.length();
    let (n, k) = if len > 0.0 {
        (best.n / len, best.k / len)
    } else {
        (best.n, best.k)
    };
    let cl = c.length();
    let h = k - n.dot(c);
    let signed_distance = if cl > 0.0 && h != 0.0 { -k / (cl * h) } else { f64::NAN };
    let nc = if cl > 0.0 { n.dot(c / cl) } else { 0.0 };
    let alpha = if nc != 0.0 { (k / nc).abs() } else { f64::INFINITY };
    Ok(CdDualReport {
        converged,
        separated: converged && k < 0.0,
        early_exit: early,
        face: best.face,
        normal: pa.transform_vector(n),
        support: k,
        signed_distance,
        alpha,
        interior_point: pa.transform_vector(c),
        steps,
    })
}

/// The length scale of the pair's coordinates in A's frame: rounding allowances are relative
/// to it.
fn coordinate_scale(a: &ConvexPolyhedron, b: &ConvexPolyhedron, t: DVec3) -> f64 {
    a.scale() + a.magnitude() + b.scale() + b.magnitude() + t.length()
}

/// Relative pose data: rotation and translation of B in A's frame.
fn relative(pa: &Pose, pb: &Pose) -> (DMat3, DVec3) {
    let rel = pa.relative(pb);
    (DMat3::from_quat(rel.rotation), rel.translation)
}

/// The interior point of §4.1 (A frame): the longest of the four differences `c = p_c − q_c`.
struct Interior {
    c: DVec3,
    /// `p_c` and `q_c` (A frame), and `q_c` in B's own frame.
    pc: DVec3,
    qc: DVec3,
    qc_local: DVec3,
    /// Lower bounds on the depths of `p_c` in A and `q_c` in B.
    depths: [f64; 2],
}

fn interior_point(a: &ConvexPolyhedron, b: &ConvexPolyhedron, r: DMat3, t: DVec3) -> Interior {
    let (la, lb) = (a.interior_points(), b.interior_points());
    let (da, db) = (a.interior_depths(), b.interior_depths());
    let pb = [r * lb[0] + t, r * lb[1] + t];
    let (mut best, mut len) = ((la[0] - pb[0], 0, 0), f64::NEG_INFINITY);
    for (i, &x) in la.iter().enumerate() {
        for (j, &y) in pb.iter().enumerate() {
            let c = x - y;
            let l = c.length_squared();
            if l > len {
                (best, len) = ((c, i, j), l);
            }
        }
    }
    let (c, i, j) = best;
    Interior {
        c,
        pc: la[i],
        qc: pb[j],
        qc_local: lb[j],
        depths: [da[i], db[j]],
    }
}
