//! CD-Dual: overlap by the dual signed distance, and translation distance along a direction.
//!
//! Paper: Y.-K. Choi, X. Li, W. Wang, S. Cameron, *Collision Detection of Convex Polyhedra
//! Based on Duality Transformation* (seed 000_4b8bdb73f24e3126).
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
//!   `c + λ·dir` meets it inside its generating features by a margin ([`RAY_HIT_REL`] of the
//!   pair's scale, amplified by the ray's obliquity): its plane supports M and the meeting
//!   point is in M, so no face plane meets the ray earlier.
//! - Within each phase the key strictly increases from one current face to the next.
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
//! degenerate Gaussian images (aligned boxes) push the same pairs from many tied faces —
//! 387 evaluations of 64 pairs per search on two aligned cubes without the set.
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
//!   k ≈ √n / 2), O(1) instead of a scan. On 1 000-vertex ellipsoids (200:100:100) Search-FV then evaluates
//!   ≈ 3 faces instead of ≈ 15. Cold support warm starts (B's vertex for the start face) come
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
//!   [`OVERLAP_CERT_REL`] of the pair's scale (per quantity, and off `ρ`) to spare. The test
//!   runs inside the ray test, on the faces that test already sees. Deep overlaps end at once:
//!   on the sweep's 1 000-vertex 200:100:100 pairs at l = −40 (`λ ≈ 1.1`), about half at the
//!   start face; near contact (`λ → 1`) it rarely fires and the search reaches `f_opt` as
//!   before.
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
//!   less often: on the sweep's 200:100:100 pairs the rotated Q's broad sides face P's tip,
//!   and FV faces ended 6 % of the searches before, 49 % after. A coherent query keeps the
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
//!   edge graph of their hull, and in our tests the paper's version gave the wrong answer on
//!   18 of 7 200 random near-contact pairs (0 with the full neighbourhood). The extra pushes
//!   cost a few evaluations per improvement.
//! - Degenerate Gaussian images (appendix, cases 2 and 3): a face normal of one shape on an arc
//!   or vertex of the other's Gaussian image means the supporting feature of the other shape is
//!   an edge or face. The FV/VF key is unaffected (the support value is unique), and the EE
//!   start set is built from the edges incident at *every* tied supporting vertex (ties within
//!   `COPLANAR_REL` × scale), i.e. the arguments of Lemma 3 applied to each adjacent region;
//!   with ties, the arcs of the other shape's supporting edge/face also leave the normal, so
//!   the edges at the face's corners × the edges at the tied vertices are pushed as well
//!   (without them a cube and a cone sharing an axis were misjudged).
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

use crate::contract::{contact_tolerance, Directional, Feature, FeaturePair, Intersection, OverlapWitness};
use crate::core::error::PolycdError;
use crate::core::math::{DMat3, DVec3, Plane, Pose};
use crate::core::tolerance::{COPLANAR_REL, OVERLAP_CERT_REL, RAY_HIT_REL, SILHOUETTE_MARGIN, WITNESS_SPLIT_REL};
use crate::shape::polyhedron::ConvexPolyhedron;
use crate::shape::tables::StartTable;
use std::time::Instant;

/// Which of the three face families of `M = P ⊕ (−Q)` a face belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
pub struct SearchOptions {
    /// Stop at the first face with positive signed distance (the boolean query). With `false`
    /// the search always reaches `f_opt`, so `alpha` is the exact distance along `c → o`.
    pub early_exit: bool,
    /// Measure the wall-clock time of each phase (costs a few clock reads per query).
    pub timed: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            early_exit: true,
            timed: false,
        }
    }
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
    /// Nanoseconds spent in each phase (zeros unless `timed`).
    pub nanos: [u64; 3],
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

#[derive(Clone, Copy, Debug, Default)]
struct P2 {
    x: f64,
    y: f64,
    id: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct M2 {
    x: f64,
    y: f64,
    ia: u32,
    ib: u32,
}

/// Edge pairs the set of seen pairs holds without growing (see [`run`]).
const EE_SEEN_RESERVE: usize = 512;

/// A set of edge pairs `(edge of P, edge of Q)`, emptied in O(1) per search: open addressing
/// over slots stamped with the search's generation (a slot of an older generation is empty).
/// Its capacity is kept across searches, so a cache in steady state does not allocate.
#[derive(Clone, Debug, Default)]
struct PairSet {
    /// `(key, generation)`; the length is zero or a power of two.
    slots: Vec<(u64, u32)>,
    generation: u32,
    len: usize,
}

impl PairSet {
    /// Empties the set.
    fn begin(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Stamps of 2³² searches ago would read as live: clear them once.
            self.slots.iter_mut().for_each(|s| *s = (0, 0));
            self.generation = 1;
        }
        self.len = 0;
    }

    /// Adds the pair; `false` when it was already in the set.
    fn insert(&mut self, ea: u32, eb: u32) -> bool {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let key = (u64::from(ea) << 32) | u64::from(eb);
        let mask = self.slots.len() - 1;
        // Fibonacci hashing: the high bits of the product mix both edge ids.
        let mut i = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask;
        loop {
            let slot = &mut self.slots[i];
            if slot.1 != self.generation {
                *slot = (key, self.generation);
                self.len += 1;
                return true;
            }
            if slot.0 == key {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    /// Makes room for `n` pairs without growing (a table of at least `2n` slots), so that a
    /// search needing no more never allocates; emptied like [`PairSet::begin`].
    fn reserve(&mut self, n: usize) {
        let want = (2 * n).next_power_of_two().max(64);
        if self.slots.len() < want {
            self.slots.clear();
            self.slots.resize(want, (0, 0));
            self.generation = 1;
            self.len = 0;
        }
    }

    /// Doubles the table (at least 64 slots), keeping this generation's pairs.
    #[cold]
    fn grow(&mut self) {
        let n = (2 * self.slots.len()).max(64);
        let old = std::mem::replace(&mut self.slots, vec![(0, 0); n]);
        self.len = 0;
        for (key, generation) in old {
            if generation == self.generation {
                self.insert((key >> 32) as u32, key as u32);
            }
        }
    }
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
    /// Separation margin `min_B n·b − max_A n·a` of the last boolean query's separating plane
    /// (its `−h_M(n)`, exact up to rounding, as every evaluated plane supports `M`); NaN
    /// unless that query answered `Disjoint`. Lets the query layer skip re-measuring it.
    last_margin: f64,
    /// Lower bound on the depth of the last `Overlapping` answer's common point in both shapes
    /// (NaN when not known): a ball of this radius around it lies in both, so the query layer
    /// need not re-measure the pair far from contact.
    last_depth: f64,
    /// The stored face and warm starts belong to a search with the shapes' roles exchanged
    /// (the boolean query's role swap: B in the role of P).
    swapped: bool,
}

impl CdDualCache {
    /// Forgets the coherence state (the next query starts cold) and keeps the scratch
    /// buffers' capacity, so a cache reused for unrelated queries does not allocate.
    pub fn forget(&mut self) {
        self.face_a = u32::MAX;
        self.warm_a = 0;
        self.warm_b = 0;
        self.last_margin = f64::NAN;
        self.last_depth = f64::NAN;
        self.swapped = false;
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
            last_margin: f64::NAN,
            last_depth: f64::NAN,
            swapped: false,
        }
    }
}

impl CdDualCache {
    /// The separation margin of the last boolean query's `Disjoint` plane (NaN otherwise).
    pub(crate) fn last_margin(&self) -> f64 {
        self.last_margin
    }
    pub(crate) fn last_depth(&self) -> f64 {
        self.last_depth
    }
    /// Forgets the coherence state (the next query starts from the §4.2 heuristic).
    pub fn reset(&mut self) {
        self.face_a = u32::MAX;
    }
    /// The face of A the next search starts from, if any.
    pub fn start_face(&self) -> Option<u32> {
        (self.face_a != u32::MAX).then_some(self.face_a)
    }
}

/// One evaluated face of M (A's frame).
#[derive(Clone, Copy, Debug)]
struct Eval {
    face: DualFace,
    /// Outward normal (not necessarily unit).
    n: DVec3,
    /// `h_M(n)`.
    k: f64,
    /// `σ = n·dir / (k − n·c)`.
    key: f64,
}

/// The outcome of [`Ctx::certify_separation`] for a plane that passed it.
#[derive(Clone, Copy, Debug)]
enum Cert {
    /// Fresh support queries confirm A's maximum lies below B's minimum.
    Apart { top_a: f64, gap: f64 },
    /// The overlap along the normal is within the contact tolerance (rounding-level contact).
    Touching { top_a: f64, gap: f64, point: DVec3 },
}

/// What [`Ctx::probe`] found at a face.
#[derive(Clone, Copy, Debug)]
enum Probe {
    /// The ray leaves M through the face: it is `f_opt`.
    Exit,
    /// `o ∈ M` is certified ([`Ctx::overlap_certificate`]).
    Overlap(OverlapCert),
    /// Neither.
    Miss,
}

/// An overlap certificate: `x = c + λ·dir` with `λ > 1` and a point `za − zb` of M (`za` in
/// A, `zb` in B, A frame) within `rho·(λ − 1)` of it.
#[derive(Clone, Copy, Debug)]
struct OverlapCert {
    lambda: f64,
    x: DVec3,
    za: DVec3,
    zb: DVec3,
}

struct Ctx<'a> {
    /// The poses, for the contact tolerance of the pair (a certificate gap in `[0, ctol]`
    /// means touching), computed only when a certificate needs it.
    poses: (&'a Pose, &'a Pose),
    p: &'a ConvexPolyhedron,
    q: &'a ConvexPolyhedron,
    /// Rotation B-local → A frame, its transpose, and the translation.
    r: DMat3,
    rt: DMat3,
    t: DVec3,
    c: DVec3,
    dir: DVec3,
    /// Length scale of the pair's coordinates (rounding allowances are relative to it).
    scale: f64,
    /// Radius of a ball about `c` inside M (`c`'s interior points' depths added), for the
    /// boolean query's overlap certificate; 0 disables it.
    rho: f64,
}

/// Exact sign of `det[x, y, z] = (x × y) · z` (`orient3d(o, x, y, z)`, float-filtered).
#[inline]
fn vol(x: DVec3, y: DVec3, z: DVec3) -> i32 {
    crate::core::predicates::det_sign(x, y, z) as i32
}

/// §4.3: do the minor great arcs `a→b` and `c→d` cross at a single interior point? Exact
/// signs of the signed volumes `|cba|, |dba|, |adc|, |bdc|` of the given vectors.
pub fn arcs_cross(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> bool {
    let cba = vol(c, b, a);
    let dba = vol(d, b, a);
    if cba * dba >= 0 {
        return false;
    }
    let adc = vol(a, d, c);
    let bdc = vol(b, d, c);
    if adc * bdc >= 0 {
        return false;
    }
    // |acb| = |cba| and |dcb| = |bdc|.
    cba * bdc > 0
}

impl Ctx<'_> {
    #[inline]
    fn qv(&self, v: u32) -> DVec3 {
        self.r * self.q.vertex(v) + self.t
    }

    #[inline]
    fn key(&self, n: DVec3, k: f64) -> f64 {
        let h = k - n.dot(self.c);
        let h = if h > f64::MIN_POSITIVE { h } else { f64::MIN_POSITIVE };
        n.dot(self.dir) / h
    }

    /// The FV face of face `f` of P; `warm` is a vertex of Q to start its support query from
    /// (updated to the support vertex). With `beat > −∞`, returns `None` when the face can
    /// neither have a key above `beat` nor separate (callers pass `beat ≤ 1`, and a key ≤ 1
    /// means `k ≥ 0`), decided without the support query: the warm vertex's value bounds `k`
    /// from below, hence the key from above (the denominator `k − n·c` grows with `k`). A
    /// bound computed from the support vertex itself is the key itself, so nothing the
    /// search would pick is skipped.
    #[inline]
    fn eval_fv(&self, f: u32, warm: &mut u32, beat: f64) -> Option<Eval> {
        if *warm as usize >= self.q.vertices().len() {
            *warm = 0;
        }
        let qw = self.qv(*warm);
        self.eval_fv_from(f, warm, qw, beat)
    }

    /// [`Ctx::eval_fv`] with the warm vertex valid and already placed: `qw = qv(*warm)`
    /// (Search-FV places it once for all the neighbours of the current face).
    #[inline]
    fn eval_fv_from(&self, f: u32, warm: &mut u32, qw: DVec3, beat: f64) -> Option<Eval> {
        let face = self.p.face(f);
        let n = face.normal;
        if beat > f64::NEG_INFINITY {
            let h = face.offset - n.dot(qw) - n.dot(self.c);
            if h > 0.0 && n.dot(self.dir) / h <= beat {
                return None;
            }
        }
        let v = self.q.support_climb(self.rt * (-n), *warm);
        let qs = if v == *warm { qw } else { self.qv(v) };
        *warm = v;
        let k = face.offset - n.dot(qs);
        Some(Eval {
            face: DualFace::Fv { face_a: f, vertex_b: v },
            n,
            k,
            key: self.key(n, k),
        })
    }

    /// The VF face of face `g` of Q, as [`Ctx::eval_fv`] with the roles swapped.
    #[inline]
    fn eval_vf(&self, g: u32, warm: &mut u32, beat: f64) -> Option<Eval> {
        let face = self.q.face(g);
        let m = self.r * face.normal;
        let n = -m;
        if *warm as usize >= self.p.vertices().len() {
            *warm = 0;
        }
        let off = face.offset + m.dot(self.t);
        let pw = self.p.vertex(*warm);
        if beat > f64::NEG_INFINITY {
            let h = n.dot(pw) + off - n.dot(self.c);
            if h > 0.0 && n.dot(self.dir) / h <= beat {
                return None;
            }
        }
        let v = self.p.support_climb(n, *warm);
        let ps = if v == *warm { pw } else { self.p.vertex(v) };
        *warm = v;
        let k = n.dot(ps) + off;
        Some(Eval {
            face: DualFace::Vf { vertex_a: v, face_b: g },
            n,
            k,
            key: self.key(n, k),
        })
    }

    #[inline]
    fn eval_ee(&self, ea: u32, eb: u32) -> Option<Eval> {
        let e = self.p.edge(ea);
        let g = self.q.edge(eb);
        let a = self.p.face(e.faces[0]).normal;
        let b = self.p.face(e.faces[1]).normal;
        let c = -(self.r * self.q.face(g.faces[0]).normal);
        let d = -(self.r * self.q.face(g.faces[1]).normal);
        if !arcs_cross(a, b, c, d) {
            return None;
        }
        let p0 = self.p.vertex(e.vertices[0]);
        let p1 = self.p.vertex(e.vertices[1]);
        let q0 = self.qv(g.vertices[0]);
        let q1 = self.qv(g.vertices[1]);
        let mut n = (p1 - p0).cross(q1 - q0);
        if n.dot(a + b) < 0.0 {
            n = -n;
        }
        // The arc test decides on the face normals, the plane is built from the edges. When
        // the arcs (nearly) lie on one great circle — parallel edges, e.g. shapes related by a
        // symmetry — rounding can make `arcs_cross` say yes while `n` (the cross product of two
        // parallel vectors) points anywhere around the edges: its plane is then no supporting
        // plane of M and its `k` is meaningless (a deep overlap was reported as Disjoint).
        // Keep the pair only if its plane genuinely supports M: the edges' first vertices are
        // local — by convexity global — maxima of `n` on P and of `−n` on −Q.
        if !self.supports_at(n, e.vertices[0], g.vertices[0]) {
            return None;
        }
        let k = n.dot(p0 - q0);
        Some(Eval {
            face: DualFace::Ee { edge_a: ea, edge_b: eb },
            n,
            k,
            key: self.key(n, k),
        })
    }

    /// Rounding allowance of a support comparison along a direction of length `len`.
    #[inline]
    fn tol(&self, len: f64) -> f64 {
        COPLANAR_REL * self.scale * len
    }

    /// Is `n·x` maximal on P at vertex `vp` and `n·y` minimal on Q (A frame) at vertex `vq`,
    /// up to rounding? A local test over the neighbours, exact for convex shapes.
    fn supports_at(&self, n: DVec3, vp: u32, vq: u32) -> bool {
        let tol = self.tol(n.length());
        if !(tol.is_finite() && tol > 0.0) {
            return false;
        }
        let xp = self.p.vertex(vp);
        if self.p.neighbors(vp).iter().any(|&w| n.dot(self.p.vertex(w) - xp) > tol) {
            return false;
        }
        let m = self.rt * (-n);
        let xq = self.q.vertex(vq);
        !self.q.neighbors(vq).iter().any(|&w| m.dot(self.q.vertex(w) - xq) > tol)
    }

    /// The certificate demanded before a separation is reported: fresh support queries
    /// (hill-climbs along `n` from the face's generating features, independent of the
    /// search's support values) confirm that A's maximum along `n` lies below B's minimum. A face with `k < 0` that fails it is no face of M.
    /// Returns, for the unit normal `n/|n|`, A's maximum along it, the gap to B's minimum
    /// (negative when they are apart) and the midpoint of the two support points (A frame).
    fn certify_separation(&self, ev: &Eval) -> Option<Cert> {
        let len = ev.n.length();
        if !(len > 0.0 && len.is_finite()) {
            return None;
        }
        let n = ev.n / len;
        let (p, q) = (self.p, self.q);
        let (wa, wb) = match ev.face {
            DualFace::Fv { face_a, vertex_b } => (p.face_vertices(face_a).first().copied().unwrap_or(0), vertex_b),
            DualFace::Vf { vertex_a, face_b } => (vertex_a, q.face_vertices(face_b).first().copied().unwrap_or(0)),
            DualFace::Ee { edge_a, edge_b } => (p.edge(edge_a).vertices[0], q.edge(edge_b).vertices[0]),
        };
        let pa = p.vertex(p.support_climb(n, wa));
        let qb = self.qv(q.support_climb(self.rt * (-n), wb));
        let top_a = n.dot(pa);
        let gap = top_a - n.dot(qb);
        if gap < 0.0 {
            Some(Cert::Apart { top_a, gap })
        } else if gap <= contact_tolerance(self.p, self.poses.0, self.q, self.poses.1) {
            Some(Cert::Touching {
                top_a,
                gap,
                point: 0.5 * (pa + qb),
            })
        } else {
            None
        }
    }

    /// §3.2: `f_opt` is the face of M through which the ray `c + λ·dir` (λ > 0) leaves M. Does
    /// the ray meet `ev` inside its generating features (by the margin of [`RAY_HIT_REL`])?
    /// Then `ev` is `f_opt` ([`Probe::Exit`]): its plane supports M and the meeting point lies
    /// in M, so every other face plane meets the ray at the same λ or later, i.e. no key is
    /// larger.
    /// Otherwise, with a stack, pushes the neighbours in M across each border of the face that
    /// the meeting point lies beyond: by convexity their planes meet the ray before this one,
    /// so they improve the key (generic Gaussian images; the caller keeps the whole
    /// neighbourhood below them on the stack for the other cases). With a ball about `c`
    /// known to lie in M (`rho > 0`, the boolean query), the meeting point beyond `o` and the
    /// point of the face's generating features nearest to it are also tried as an overlap
    /// certificate ([`Ctx::overlap_certificate`]).
    fn probe(&self, ev: &Eval, mut stack: Option<&mut Vec<Cand>>) -> Probe {
        let (p, q) = (self.p, self.q);
        let nd = ev.n.dot(self.dir);
        let nl = ev.n.length();
        if !(nd > 0.0 && nl > 0.0) {
            return Probe::Miss;
        }
        let lambda = (ev.k - ev.n.dot(self.c)) / nd;
        if !(lambda > 0.0 && lambda.is_finite()) {
            return Probe::Miss;
        }
        let x = self.c + self.dir * lambda;
        let m = RAY_HIT_REL * self.scale * (1.0 + nl * self.dir.length() / nd);
        if !m.is_finite() {
            return Probe::Miss;
        }
        // The certificate is tried only beyond `o`, with a ball to use; `allow` bounds the
        // distance of the face from the meeting point that it can accept (a border's line
        // farther than that rules it out).
        let allow = self.rho * (lambda - 1.0);
        let mut certify = self.rho > 0.0 && lambda > 1.0;
        match ev.face {
            DualFace::Fv { face_a, vertex_b } => {
                let qs = self.qv(vertex_b);
                let ps = x + qs;
                let nf = p.face(face_a).normal;
                let mut inside = true;
                // The point of the face nearest to `ps` (squared distance), when outside.
                let mut near = (f64::INFINITY, ps);
                for h in p.face_half_edges(face_a) {
                    let he = p.half_edge(h);
                    let a = p.vertex(he.origin);
                    let e = p.vertex(p.half_edge(he.next).origin) - a;
                    let s = nf.dot(e.cross(ps - a));
                    let el = e.length();
                    if s >= m * el {
                        continue;
                    }
                    inside = false;
                    if s < 0.0 {
                        if let Some(st) = stack.as_deref_mut() {
                            for &g in q.outgoing(vertex_b) {
                                st.push(Cand::Ee(he.edge, q.half_edge(g).edge));
                            }
                            st.push(Cand::Fv(p.half_edge(he.twin).face, vertex_b));
                        }
                        if certify {
                            if -s > allow * el {
                                certify = false;
                            } else {
                                near = nearer_on_segment(near, a, e, ps);
                            }
                        }
                    }
                }
                if inside {
                    return Probe::Exit;
                }
                if certify {
                    // No border crossed strictly: `ps` itself lies on the face.
                    let za = if near.0.is_finite() { near.1 } else { ps };
                    return self.overlap_certificate(lambda, x, za, qs);
                }
                Probe::Miss
            }
            DualFace::Vf { vertex_a, face_b } => {
                let ps = p.vertex(vertex_a);
                let y = self.rt * (ps - x - self.t);
                let nf = q.face(face_b).normal;
                let mut inside = true;
                let mut near = (f64::INFINITY, y);
                for h in q.face_half_edges(face_b) {
                    let he = q.half_edge(h);
                    let a = q.vertex(he.origin);
                    let e = q.vertex(q.half_edge(he.next).origin) - a;
                    let s = nf.dot(e.cross(y - a));
                    let el = e.length();
                    if s >= m * el {
                        continue;
                    }
                    inside = false;
                    if s < 0.0 {
                        if let Some(st) = stack.as_deref_mut() {
                            for &g in p.outgoing(vertex_a) {
                                st.push(Cand::Ee(p.half_edge(g).edge, he.edge));
                            }
                            st.push(Cand::Vf(q.half_edge(he.twin).face, vertex_a));
                        }
                        if certify {
                            if -s > allow * el {
                                certify = false;
                            } else {
                                near = nearer_on_segment(near, a, e, y);
                            }
                        }
                    }
                }
                if inside {
                    return Probe::Exit;
                }
                if certify {
                    let zb = self.r * (if near.0.is_finite() { near.1 } else { y }) + self.t;
                    return self.overlap_certificate(lambda, x, ps, zb);
                }
                Probe::Miss
            }
            DualFace::Ee { edge_a, edge_b } => {
                let e = p.edge(edge_a);
                let g = q.edge(edge_b);
                let p0 = p.vertex(e.vertices[0]);
                let u = p.vertex(e.vertices[1]) - p0;
                let q0 = self.qv(g.vertices[0]);
                let w = q0 - self.qv(g.vertices[1]);
                // x = (p0 + a·u) − (q0 − b·w): a on A's edge, b on B's edge.
                let rhs = x - p0 + q0;
                let (uu, uw, ww) = (u.dot(u), u.dot(w), w.dot(w));
                let (ur, wr) = (u.dot(rhs), w.dot(rhs));
                let det = uu * ww - uw * uw;
                if !(det > 0.0) {
                    return Probe::Miss;
                }
                let (sa, sb) = ((ur * ww - wr * uw) / det, (uu * wr - uw * ur) / det);
                let (ta, tb) = (m / uu.sqrt(), m / ww.sqrt());
                let inside = sa > ta && sa < 1.0 - ta && sb > tb && sb < 1.0 - tb;
                if inside {
                    return Probe::Exit;
                }
                if let Some(st) = stack {
                    // Beyond an end of A's edge: along B's arc into that vertex's region.
                    for (beyond, va) in [(sa < 0.0, e.vertices[0]), (sa > 1.0, e.vertices[1])] {
                        if beyond {
                            for &h in p.outgoing(va) {
                                let e2 = p.half_edge(h).edge;
                                if e2 != edge_a {
                                    st.push(Cand::Ee(e2, edge_b));
                                }
                            }
                            for f in g.faces {
                                st.push(Cand::Vf(f, va));
                            }
                        }
                    }
                    for (beyond, vb) in [(sb < 0.0, g.vertices[0]), (sb > 1.0, g.vertices[1])] {
                        if beyond {
                            for &h in q.outgoing(vb) {
                                let e2 = q.half_edge(h).edge;
                                if e2 != edge_b {
                                    st.push(Cand::Ee(edge_a, e2));
                                }
                            }
                            for f in e.faces {
                                st.push(Cand::Fv(f, vb));
                            }
                        }
                    }
                }
                if certify {
                    // A point of the parallelogram: the meeting point's coordinates clamped.
                    let (ca, cb) = (sa.clamp(0.0, 1.0), sb.clamp(0.0, 1.0));
                    return self.overlap_certificate(lambda, x, p0 + u * ca, q0 - w * cb);
                }
                Probe::Miss
            }
        }
    }

    /// Overlap certificate (module notes): M contains the ball of radius `rho` about `c` and
    /// the point `z = za − zb` (`za` a point of A, `zb` of B, A frame), hence their convex hull;
    /// with `x = c + λ·dir` (λ > 1) and `δ = |x − z|`, the point
    /// `b = c + (x − z)/(λ − 1)` lies in the ball when `δ ≤ rho·(λ − 1)`, and
    /// `o = (1 − 1/λ)·b + (1/λ)·z`. The test allows [`OVERLAP_CERT_REL`] of the pair's scale
    /// for the rounding of `c`, `x` and `z`.
    fn overlap_certificate(&self, lambda: f64, x: DVec3, za: DVec3, zb: DVec3) -> Probe {
        let tol = OVERLAP_CERT_REL * self.scale;
        let delta = (x - (za - zb)).length();
        if delta + tol * (2.0 + lambda) <= (self.rho - tol) * (lambda - 1.0) {
            Probe::Overlap(OverlapCert { lambda, x, za, zb })
        } else {
            Probe::Miss
        }
    }

    /// The heuristic start face of §4.2 (see the module notes): M is modelled by the ellipsoid
    /// `(x − m)ᵀ E⁻¹ (x − m) = 1` with `m` the difference of the vertex means and
    /// `E = 6 (C_P + R C_Q Rᵀ)` from the vertex covariances (exact for two equal, aligned
    /// ellipsoid samples: 3 C is the squared semi-axes of one); the ray `c + λ·dir` leaves
    /// the model at `x`, whose model normal `E⁻¹ (x − m)` replaces the paper's `s = dir`.
    /// Falls back to `dir` when the model is degenerate or misses the ray.
    ///
    /// Also returns whether Q's faces are expected larger than P's around that normal (see
    /// [`Ctx::q_faces_larger`]).
    fn heuristic_normal(&self) -> (DVec3, bool) {
        let (tp, tq) = (&self.p.start_table, &self.q.start_table);
        let cq = self.r * tq.cov * self.rt;
        let e = (tp.cov + cq) * 6.0;
        let det = e.determinant();
        let n = if det.is_finite() && det > 0.0 {
            let f = e.inverse();
            let w0 = self.c - (tp.mean - (self.r * tq.mean + self.t));
            let fd = f * self.dir;
            let a = self.dir.dot(fd);
            let b = w0.dot(fd);
            let cc = w0.dot(f * w0) - 1.0;
            let disc = b * b - a * cc;
            if a > 0.0 && disc >= 0.0 {
                let lambda = (-b + disc.sqrt()) / a;
                let n = f * (w0 + self.dir * lambda);
                if n.is_finite() && n.dot(self.dir) > 0.0 {
                    n
                } else {
                    self.dir
                }
            } else {
                self.dir
            }
        } else {
            self.dir
        };
        (n, Self::q_faces_larger(tp, cq, tq.cov_det, n))
    }

    /// Are Q's faces expected larger than P's around the normal `n` of M (A frame), by the
    /// inertia ellipsoids (`cq = R C_Q Rᵀ`)? The faces of M around a normal are P's faces
    /// (FV), Q's faces (VF) and parallelograms (EE); the FV (VF) share of the area there is
    /// P's (Q's) product of principal radii of curvature at that normal, on an ellipsoid with
    /// squared semi-axes `A = 3 C`: `det A / (nᵀ A n)²`. Search-FV runs over the shape with the
    /// larger share (see the module notes on the role swap).
    fn q_faces_larger(tp: &StartTable, cq: DMat3, cq_det: f64, n: DVec3) -> bool {
        let (hp, hq) = (n.dot(tp.cov * n), n.dot(cq * n));
        cq_det * hp * hp > tp.cov_det * hq * hq
    }

    fn heuristic_face(&self, n: DVec3) -> u32 {
        // The cell's vertex, not climbed: the start face only needs to be near.
        let v = self.p.hint_start(n);
        self.best_face_at_vertex(v, n)
    }

    fn best_face_at_vertex(&self, v: u32, n: DVec3) -> u32 {
        let mut best = u32::MAX;
        let mut best_d = f64::NEG_INFINITY;
        for &h in self.p.outgoing(v) {
            let f = self.p.half_edge(h).face;
            let d = self.p.face(f).normal.dot(n);
            if d > best_d || best == u32::MAX {
                best_d = d;
                best = f;
            }
        }
        if best == u32::MAX {
            0
        } else {
            best
        }
    }

    /// Collects into `ties` the vertices of `shape` whose value `dir·x` is within the tie
    /// tolerance of `start`'s (which must be a maximiser), by a walk over tied neighbours.
    fn collect_ties(shape: &ConvexPolyhedron, start: u32, dir: DVec3, ties: &mut Vec<u32>) {
        ties.clear();
        ties.push(start);
        let top = dir.dot(shape.vertex(start));
        let tol = COPLANAR_REL * (shape.scale() + shape.magnitude()) * dir.length();
        let mut i = 0;
        // Each vertex enters `ties` at most once: bounded by the vertex count.
        while i < ties.len() && ties.len() < shape.vertices().len() {
            let v = ties[i];
            i += 1;
            for &w in shape.neighbors(v) {
                if dir.dot(shape.vertex(w)) >= top - tol && !ties.contains(&w) {
                    ties.push(w);
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Stats {
    steps: [u32; 3],
    nanos: [u64; 3],
}

enum Outcome {
    /// `cert`: the certificate of an early exit's separating face (see
    /// [`Ctx::certify_separation`]), which the boolean query reuses.
    Done {
        best: Eval,
        early: bool,
        cert: Option<Cert>,
    },
    NotConverged {
        best: Eval,
    },
    /// The boolean query's overlap certificate, found at face `best` (not necessarily
    /// `f_opt`).
    Overlap {
        best: Eval,
        cert: OverlapCert,
    },
}

fn elapsed(t0: Option<Instant>) -> u64 {
    t0.map(|t| t.elapsed().as_nanos() as u64).unwrap_or(0)
}

/// Search-FV, Search-VF, Search-EE.
/// `model`: the model normal of [`Ctx::heuristic_normal`] when the caller already has it.
fn run(
    ctx: &Ctx,
    cache: &mut CdDualCache,
    early_exit: bool,
    timed: bool,
    st: &mut Stats,
    model: Option<DVec3>,
) -> Outcome {
    let p = ctx.p;
    let q = ctx.q;
    let clock = || if timed { Some(Instant::now()) } else { None };

    // The Search-EE stack holds at most the neighbourhoods of two faces of M (face edges ×
    // tied vertices × their edges, and with ties the corners' edges too) and the faces across
    // borders. Its capacity is set on the first query, so that a later first entry into
    // Search-EE (most queries end in Search-FV/VF) does not allocate.
    let (tp, tq) = (&p.start_table, &q.start_table);
    let (lp, dp, lq, dq) = (tp.max_face_len, tp.max_degree, tq.max_face_len, tq.max_degree);
    let want = 2 * (lp * dp * lq * dq + (lp + lq) * (dp + dq + 1)) + 16;
    if cache.stack.capacity() < want {
        cache.stack.clear();
        cache.stack.reserve(want);
    }
    // The same for the set of edge pairs seen, up to `EE_SEEN_RESERVE` pairs (16 KiB): a
    // search evaluates a few edge pairs, 64 on two aligned cubes; only a more degenerate pair
    // of shapes grows it (once per cache). Sized like the stack it took 128 KiB per cache on
    // two 1 000-vertex hulls.
    cache.ee_seen.reserve(want.min(EE_SEEN_RESERVE));

    // ---- Search-FV ----
    let t0 = clock();
    let coherent = (cache.face_a as usize) < p.faces().len();
    let model_normal = match (coherent, model) {
        (true, _) => DVec3::ZERO,
        (false, Some(n)) => n,
        (false, None) => ctx.heuristic_normal().0,
    };
    let start = if coherent {
        cache.face_a
    } else {
        ctx.heuristic_face(model_normal)
    };
    // Without coherence the stored warm start is unrelated to this pose: use the hierarchy.
    let mut warm_b = if coherent && (cache.warm_b as usize) < q.vertices().len() {
        cache.warm_b
    } else {
        // The cell's vertex: the start face's evaluation climbs from it.
        q.hint_start(ctx.rt * (-p.face(start).normal))
    };
    let Some(mut best) = ctx.eval_fv(start, &mut warm_b, f64::NEG_INFINITY) else {
        return Outcome::NotConverged {
            best: Eval {
                face: DualFace::Fv {
                    face_a: start,
                    vertex_b: warm_b,
                },
                n: DVec3::ZERO,
                k: f64::NAN,
                key: f64::NAN,
            },
        };
    };
    st.steps[0] += 1;
    let finish = |best: Eval, _cache: &mut CdDualCache, early: bool| Outcome::Done {
        best,
        early,
        cert: None,
    };
    // An early exit hands its certificate on: the caller need not repeat its support queries.
    let certified = |best: Eval, cert: Cert| Outcome::Done {
        best,
        early: true,
        cert: Some(cert),
    };
    if early_exit && best.k < 0.0 {
        if let Some(cert) = ctx.certify_separation(&best) {
            st.nanos[0] = elapsed(t0);
            remember(ctx, cache, &best);
            return certified(best, cert);
        }
    }
    // The boolean query probes the start face at once (module notes): it may be f_opt, or
    // certify the overlap. Its pushes wait on the stack for Search-EE, as below.
    let probed_start = ctx.rho > 0.0;
    if probed_start {
        cache.stack.clear();
        cache.stack.push(Cand::Expand(best.face));
        cache.stack.push(Cand::Expand(best.face));
        match ctx.probe(&best, Some(&mut cache.stack)) {
            Probe::Exit => {
                st.nanos[0] = elapsed(t0);
                remember(ctx, cache, &best);
                return finish(best, cache, false);
            }
            Probe::Overlap(cert) => {
                st.nanos[0] = elapsed(t0);
                remember(ctx, cache, &best);
                return Outcome::Overlap { best, cert };
            }
            Probe::Miss => {}
        }
    }
    let mut converged = false;
    // The face the ascent came from: already evaluated, its key below the current one and
    // its plane not separating (or failing its certificate), so re-evaluating it could change
    // nothing (the same support value): skipped.
    let mut prev = u32::MAX;
    for _ in 0..=p.faces().len() {
        let DualFace::Fv {
            face_a: cur,
            vertex_b: wv,
        } = best.face
        else {
            break;
        };
        let mut next = best;
        // `wv` is the support vertex just found (a valid index): placed once per iteration.
        let qwv = ctx.qv(wv);
        for h in p.face_half_edges(cur) {
            let nb = p.half_edge(p.half_edge(h).twin).face;
            if nb == prev {
                continue;
            }
            let mut w = wv;
            let Some(ev) = ctx.eval_fv_from(nb, &mut w, qwv, next.key.min(1.0)) else {
                continue;
            };
            st.steps[0] += 1;
            if early_exit && ev.k < 0.0 {
                let Some(cert) = ctx.certify_separation(&ev) else {
                    // Not a genuine separating plane (a search bug): ignore the face.
                    continue;
                };
                st.nanos[0] = elapsed(t0);
                remember(ctx, cache, &ev);
                return certified(ev, cert);
            }
            if ev.key > next.key {
                next = ev;
            }
        }
        if next.key > best.key {
            prev = cur;
            best = next;
        } else {
            converged = true;
            break;
        }
    }
    st.nanos[0] = elapsed(t0);
    if !converged {
        return Outcome::NotConverged { best };
    }
    // The best FV face is f_opt when the ray meets it (§3.2): Search-VF and Search-EE could
    // only confirm it. Otherwise the test leaves the faces across the borders the ray passes
    // on the stack, above two slots that Search-EE fills with its markers (so it need not run
    // the test again when it starts from this face). A start face that stayed best was probed
    // already.
    if !(probed_start && prev == u32::MAX) {
        cache.stack.clear();
        cache.stack.push(Cand::Expand(best.face));
        cache.stack.push(Cand::Expand(best.face));
        match ctx.probe(&best, Some(&mut cache.stack)) {
            Probe::Exit => {
                remember(ctx, cache, &best);
                return finish(best, cache, false);
            }
            Probe::Overlap(cert) => {
                remember(ctx, cache, &best);
                return Outcome::Overlap { best, cert };
            }
            Probe::Miss => {}
        }
    }
    let fv_pushed = cache.stack.len();
    let fv_best = best;
    let model_normal = if coherent { fv_best.n } else { model_normal };

    // ---- Search-VF ----
    let t1 = clock();
    let DualFace::Fv { vertex_b: vq, .. } = fv_best.face else {
        return Outcome::NotConverged { best };
    };
    let warm_a = if coherent && (cache.warm_a as usize) < p.vertices().len() {
        cache.warm_a
    } else {
        // The faces of B at `vq` have normals around the FV face's normal (it lies in the
        // region of `vq`): A's supports along them are at or near that face.
        match fv_best.face {
            DualFace::Fv { face_a, .. } => p.face_vertices(face_a).first().copied().unwrap_or(0),
            _ => 0,
        }
    };
    // The paper's alternative start: a face of B incident at `vq` — the one whose face of M
    // (normal `−R n_g`) is best aligned with the normal expected at f_opt.
    let toward = ctx.rt * (-model_normal);
    let mut start_b = u32::MAX;
    let mut start_d = f64::NEG_INFINITY;
    for &h in q.outgoing(vq) {
        let g = q.half_edge(h).face;
        let d = q.face(g).normal.dot(toward);
        if d > start_d || start_b == u32::MAX {
            start_d = d;
            start_b = g;
        }
    }
    let mut vbest: Option<Eval> = None;
    if start_b != u32::MAX {
        let g = start_b;
        let mut w = warm_a;
        let Some(ev) = ctx.eval_vf(g, &mut w, f64::NEG_INFINITY) else {
            return Outcome::NotConverged { best };
        };
        st.steps[1] += 1;
        if early_exit && ev.k < 0.0 {
            if let Some(cert) = ctx.certify_separation(&ev) {
                st.nanos[1] = elapsed(t1);
                remember(ctx, cache, &ev);
                return certified(ev, cert);
            }
        }
        vbest = Some(ev);
    }
    let Some(mut vb) = vbest else {
        return Outcome::NotConverged { best };
    };
    converged = false;
    // As in Search-FV: the face the ascent came from is not evaluated again.
    let mut prev = u32::MAX;
    for _ in 0..=q.faces().len() {
        let DualFace::Vf {
            vertex_a: wv,
            face_b: cur,
        } = vb.face
        else {
            break;
        };
        let mut next = vb;
        for h in q.face_half_edges(cur) {
            let nb = q.half_edge(q.half_edge(h).twin).face;
            if nb == prev {
                continue;
            }
            let mut w = wv;
            let Some(ev) = ctx.eval_vf(nb, &mut w, next.key.min(1.0)) else {
                continue;
            };
            st.steps[1] += 1;
            if early_exit && ev.k < 0.0 {
                let Some(cert) = ctx.certify_separation(&ev) else {
                    // Not a genuine separating plane (a search bug): ignore the face.
                    continue;
                };
                st.nanos[1] = elapsed(t1);
                remember(ctx, cache, &ev);
                return certified(ev, cert);
            }
            if ev.key > next.key {
                next = ev;
            }
        }
        if next.key > vb.key {
            prev = cur;
            vb = next;
        } else {
            converged = true;
            break;
        }
    }
    st.nanos[1] = elapsed(t1);
    if !converged {
        return Outcome::NotConverged { best: vb };
    }
    if vb.key > fv_best.key {
        match ctx.probe(&vb, Some(&mut cache.stack)) {
            Probe::Exit => {
                remember(ctx, cache, &vb);
                return finish(vb, cache, false);
            }
            Probe::Overlap(cert) => {
                remember(ctx, cache, &vb);
                return Outcome::Overlap { best: vb, cert };
            }
            Probe::Miss => {}
        }
    }
    if let DualFace::Vf { vertex_a, .. } = vb.face {
        cache.warm_a = vertex_a;
    }
    cache.warm_b = vq;

    // ---- Search-EE ----
    let t2 = clock();
    let (mut best, other) = if vb.key > fv_best.key {
        (vb, fv_best)
    } else {
        (fv_best, vb)
    };
    // The whole neighbourhood in M of both phase results (FV/VF local maxima over the face
    // adjacency of P/Q need not be local maxima in M when Gaussian images are degenerate).
    // Pushed as markers, expanded when popped: usually the faces across the border the ray
    // passes (on top: they improve the key) end the search first and the markers are never
    // expanded. Those faces are already on the stack from the phases' ray tests: the FV
    // result's above the two marker slots, then (when VF's result is better) VF's, which
    // replace them.
    if vb.key > fv_best.key {
        cache.stack.drain(2..fv_pushed);
    }
    cache.stack[0] = Cand::Expand(other.face);
    cache.stack[1] = Cand::Expand(best.face);
    let (ep, eq) = (p.edges().len() as u64, q.edges().len() as u64);
    let (hp, hq) = (p.half_edges().len() as u64, q.half_edges().len() as u64);
    let faces = ep * eq + (p.faces().len() + q.faces().len()) as u64 + 1;
    // Per expanded face: its neighbourhood, the faces across its borders and its marker.
    let per_face = 4 * (hp + hq) + 16;
    let bound = (cache.stack.len() as u64).saturating_add(faces.saturating_mul(2 * per_face));
    let mut pops: u64 = 0;
    cache.ee_seen.begin();
    // FV/VF candidates that can neither beat the best key (nor tie it, see below) nor
    // separate skip their support query.
    let beat_of = |best: &Eval| {
        if best.key.is_finite() {
            (best.key - 2.0 * COPLANAR_REL * best.key.abs()).min(1.0)
        } else {
            f64::NEG_INFINITY
        }
    };
    let mut beat = beat_of(&best);
    while let Some(cand) = cache.stack.pop() {
        pops += 1;
        if pops > bound {
            st.nanos[2] = elapsed(t2);
            return Outcome::NotConverged { best };
        }
        if let Cand::Expand(face) = cand {
            push_neighbours(ctx, face, cache);
            continue;
        }
        if let Cand::Ee(ea, eb) = cand {
            // An edge pair evaluated before in this search is skipped: its face (or
            // `None`) is the same as then, and the best key has only grown since, so it
            // can neither improve now nor make a tie move (only FV/VF faces do); a
            // separating plane that failed its certificate then fails it again. Parallel
            // features (aligned boxes) pushed the same pairs from many tied faces: 387
            // evaluations of 64 pairs per directional query on two aligned cubes.
            if !cache.ee_seen.insert(ea, eb) {
                continue;
            }
        }
        st.steps[2] = st.steps[2].saturating_add(1);
        let ev = match cand {
            Cand::Expand(_) => continue,
            Cand::Ee(ea, eb) => match ctx.eval_ee(ea, eb) {
                Some(ev) => ev,
                None => continue,
            },
            Cand::Fv(f, warm) => {
                let mut w = warm;
                match ctx.eval_fv(f, &mut w, beat) {
                    Some(ev) => ev,
                    None => continue,
                }
            }
            Cand::Vf(g, warm) => {
                let mut w = warm;
                match ctx.eval_vf(g, &mut w, beat) {
                    Some(ev) => ev,
                    None => continue,
                }
            }
        };
        if early_exit && ev.k < 0.0 {
            let Some(cert) = ctx.certify_separation(&ev) else {
                // Not a genuine separating plane (a search bug): ignore the face.
                continue;
            };
            st.nanos[2] = elapsed(t2);
            remember(ctx, cache, &ev);
            return certified(ev, cert);
        }
        // An FV/VF face whose key ties an EE best (same plane up to rounding) is the merged
        // face of parallel features that the EE pair only touches at a Gaussian vertex: move to
        // it so that its neighbourhood is examined too. Only EE → FV/VF moves on a tie, so
        // between two strict improvements there is at most one tie move.
        let tie = best.face.kind() == FaceKind::Ee
            && ev.face.kind() != FaceKind::Ee
            && best.key.is_finite()
            && (ev.key - best.key).abs() <= COPLANAR_REL * best.key.abs();
        if ev.key > best.key || tie {
            // Keep the larger key on a tie, so the EE pair cannot win back by rounding.
            let key = ev.key.max(best.key);
            best = Eval { key, ..ev };
            beat = beat_of(&best);
            cache.stack.clear();
            cache.stack.push(Cand::Expand(best.face));
            match ctx.probe(&best, Some(&mut cache.stack)) {
                Probe::Exit => {
                    st.nanos[2] = elapsed(t2);
                    remember(ctx, cache, &best);
                    return Outcome::Done {
                        best,
                        early: false,
                        cert: None,
                    };
                }
                Probe::Overlap(cert) => {
                    st.nanos[2] = elapsed(t2);
                    remember(ctx, cache, &best);
                    return Outcome::Overlap { best, cert };
                }
                Probe::Miss => {}
            }
        }
    }
    st.nanos[2] = elapsed(t2);
    remember(ctx, cache, &best);
    Outcome::Done {
        best,
        early: false,
        cert: None,
    }
}

/// A candidate face of M on the Search-EE stack.
#[derive(Clone, Copy, Debug)]
enum Cand {
    /// Edge of A, edge of B.
    Ee(u32, u32),
    /// Face of A, warm-start vertex of B.
    Fv(u32, u32),
    /// Face of B, warm-start vertex of A.
    Vf(u32, u32),
    /// The whole neighbourhood of this face ([`push_neighbours`]), pushed when popped.
    Expand(DualFace),
}

/// The edge pairs adjacent (in M) to an FV or VF face: the edges of its face × the edges
/// incident at its vertex — at every tied supporting vertex (appendix, cases 2 and 3).
fn push_ee_pairs(ctx: &Ctx, face: DualFace, cache: &mut CdDualCache) {
    let (p, q) = (ctx.p, ctx.q);
    match face {
        DualFace::Fv { face_a, vertex_b } => {
            let nb = ctx.rt * (-p.face(face_a).normal);
            Ctx::collect_ties(q, vertex_b, nb, &mut cache.ties);
            for h in p.face_half_edges(face_a) {
                let ea = p.half_edge(h).edge;
                for &tv in &cache.ties {
                    for &g in q.outgoing(tv) {
                        cache.stack.push(Cand::Ee(ea, q.half_edge(g).edge));
                    }
                }
            }
            if cache.ties.len() > 1 {
                // The normal lies on an arc or vertex of B's Gaussian image: the arcs of B's
                // supporting feature leave it too, crossing arcs of edges at the face's corners.
                for &w in p.face_vertices(face_a) {
                    for &h in p.outgoing(w) {
                        let ea = p.half_edge(h).edge;
                        for &tv in &cache.ties {
                            for &g in q.outgoing(tv) {
                                cache.stack.push(Cand::Ee(ea, q.half_edge(g).edge));
                            }
                        }
                    }
                }
            }
        }
        DualFace::Vf { vertex_a, face_b } => {
            let na = -(ctx.r * q.face(face_b).normal);
            Ctx::collect_ties(p, vertex_a, na, &mut cache.ties);
            for h in q.face_half_edges(face_b) {
                let eb = q.half_edge(h).edge;
                for &tv in &cache.ties {
                    for &g in p.outgoing(tv) {
                        cache.stack.push(Cand::Ee(p.half_edge(g).edge, eb));
                    }
                }
            }
            if cache.ties.len() > 1 {
                for &w in q.face_vertices(face_b) {
                    for &h in q.outgoing(w) {
                        let eb = q.half_edge(h).edge;
                        for &tv in &cache.ties {
                            for &g in p.outgoing(tv) {
                                cache.stack.push(Cand::Ee(p.half_edge(g).edge, eb));
                            }
                        }
                    }
                }
            }
        }
        DualFace::Ee { .. } => {}
    }
}

/// Every face of M adjacent to `face` (the arcs of the superimposed Gaussian images leaving
/// its vertex): for FV/VF faces the same-family neighbours and the edge pairs of
/// [`push_ee_pairs`]; for EE faces the pairs sharing one edge (Lemma 4) and the FV/VF faces at
/// the four arc end points.
fn push_neighbours(ctx: &Ctx, face: DualFace, cache: &mut CdDualCache) {
    let (p, q) = (ctx.p, ctx.q);
    match face {
        DualFace::Fv { face_a, vertex_b } => {
            for h in p.face_half_edges(face_a) {
                cache
                    .stack
                    .push(Cand::Fv(p.half_edge(p.half_edge(h).twin).face, vertex_b));
            }
            push_ee_pairs(ctx, face, cache);
            // Tied support (B's supporting feature is an edge or face): B's arcs leave this
            // Gaussian vertex through the regions of the face's corners and may next meet a
            // face normal of A at a corner, or end at a face normal of B around the tied
            // vertices. Those faces of M border this one too.
            if cache.ties.len() > 1 {
                for &w in p.face_vertices(face_a) {
                    for &h in p.outgoing(w) {
                        cache.stack.push(Cand::Fv(p.half_edge(h).face, vertex_b));
                    }
                }
                let va = p.face_vertices(face_a).first().copied().unwrap_or(0);
                for i in 0..cache.ties.len() {
                    for &h in q.outgoing(cache.ties[i]) {
                        cache.stack.push(Cand::Vf(q.half_edge(h).face, va));
                    }
                }
            }
        }
        DualFace::Vf { vertex_a, face_b } => {
            for h in q.face_half_edges(face_b) {
                cache
                    .stack
                    .push(Cand::Vf(q.half_edge(q.half_edge(h).twin).face, vertex_a));
            }
            push_ee_pairs(ctx, face, cache);
            if cache.ties.len() > 1 {
                for &w in q.face_vertices(face_b) {
                    for &h in q.outgoing(w) {
                        cache.stack.push(Cand::Vf(q.half_edge(h).face, vertex_a));
                    }
                }
                let vb = q.face_vertices(face_b).first().copied().unwrap_or(0);
                for i in 0..cache.ties.len() {
                    for &h in p.outgoing(cache.ties[i]) {
                        cache.stack.push(Cand::Fv(p.half_edge(h).face, vb));
                    }
                }
            }
        }
        DualFace::Ee { edge_a, edge_b } => {
            let e = p.edge(edge_a);
            let g = q.edge(edge_b);
            for f in e.faces {
                cache.stack.push(Cand::Fv(f, g.vertices[0]));
            }
            for f in g.faces {
                cache.stack.push(Cand::Vf(f, e.vertices[0]));
            }
            // Degenerate Gaussian images: a face normal of one shape may lie exactly on the
            // other's arc (e.g. shapes related by a symmetry). Walking along the arc of B's
            // edge inside the region of a vertex of A's edge, the next feature met can then be
            // a corner of that region — a face of A at that vertex, not one of the edge's two
            // faces — where `arcs_cross` rightly sees no EE face. Push the FV (VF) faces at
            // both end vertices so the neighbourhood in M stays complete.
            for &v in &e.vertices {
                for &h in p.outgoing(v) {
                    cache.stack.push(Cand::Fv(p.half_edge(h).face, g.vertices[0]));
                }
            }
            for &v in &g.vertices {
                for &h in q.outgoing(v) {
                    cache.stack.push(Cand::Vf(q.half_edge(h).face, e.vertices[0]));
                }
            }
            for &v in &g.vertices {
                for &h in q.outgoing(v) {
                    let e2 = q.half_edge(h).edge;
                    if e2 != edge_b {
                        cache.stack.push(Cand::Ee(edge_a, e2));
                    }
                }
            }
            for &v in &e.vertices {
                for &h in p.outgoing(v) {
                    let e2 = p.half_edge(h).edge;
                    if e2 != edge_a {
                        cache.stack.push(Cand::Ee(e2, edge_b));
                    }
                }
            }
        }
    }
}

/// §4.4: store a face of A close to the final face for the next query.
fn remember(ctx: &Ctx, cache: &mut CdDualCache, best: &Eval) {
    let p = ctx.p;
    cache.face_a = match best.face {
        DualFace::Fv { face_a, vertex_b } => {
            cache.warm_b = vertex_b;
            face_a
        }
        DualFace::Vf { vertex_a, .. } => {
            cache.warm_a = vertex_a;
            ctx.best_face_at_vertex(vertex_a, best.n)
        }
        DualFace::Ee { edge_a, .. } => {
            let [l, r] = p.edge(edge_a).faces;
            if p.face(l).normal.dot(best.n) >= p.face(r).normal.dot(best.n) {
                l
            } else {
                r
            }
        }
    };
}

/// `best` (squared distance, point) or the point of the segment `a + s·e` (s ∈ [0, 1]) nearest
/// to `y`, whichever is nearer.
#[inline]
fn nearer_on_segment(best: (f64, DVec3), a: DVec3, e: DVec3, y: DVec3) -> (f64, DVec3) {
    let ee = e.dot(e);
    let s = if ee > 0.0 {
        ((y - a).dot(e) / ee).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let z = a + e * s;
    let d = (y - z).length_squared();
    if d < best.0 {
        (d, z)
    } else {
        best
    }
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

/// The points `p*` (on A's generating feature) and `q*` (on B's) with `p* − q* = x`, for a
/// point `x` of the face's plane (A frame), and whether they lie on those features (within
/// `tol`). They do unless the face of M is larger than the generating features' sum (a
/// degenerate Gaussian image: parallel faces or edges).
fn split_point(ctx: &Ctx, face: DualFace, x: DVec3, tol: f64) -> (DVec3, DVec3, bool) {
    match face {
        DualFace::Fv { face_a, vertex_b } => {
            let qs = ctx.qv(vertex_b);
            let ps = x + qs;
            (ps, qs, in_face(ctx.p, face_a, ps, tol))
        }
        DualFace::Vf { vertex_a, face_b } => {
            let ps = ctx.p.vertex(vertex_a);
            let qs = ps - x;
            let local = ctx.rt * (qs - ctx.t);
            (ps, qs, in_face(ctx.q, face_b, local, tol))
        }
        DualFace::Ee { edge_a, edge_b } => {
            let e = ctx.p.edge(edge_a);
            let g = ctx.q.edge(edge_b);
            let p0 = ctx.p.vertex(e.vertices[0]);
            let u = ctx.p.vertex(e.vertices[1]) - p0;
            let q0 = ctx.qv(g.vertices[0]);
            let w = -(ctx.qv(g.vertices[1]) - q0);
            // a·u + b·w = x − p0 + q0, least squares.
            let rhs = x - p0 + q0;
            let (uu, uw, ww) = (u.dot(u), u.dot(w), w.dot(w));
            let (ur, wr) = (u.dot(rhs), w.dot(rhs));
            let det = uu * ww - uw * uw;
            let (sa, sb) = if det > 0.0 {
                ((ur * ww - wr * uw) / det, (uu * wr - uw * ur) / det)
            } else {
                (0.5, 0.5)
            };
            let (ta, tb) = (
                tol / uu.sqrt().max(f64::MIN_POSITIVE),
                tol / ww.sqrt().max(f64::MIN_POSITIVE),
            );
            let ok = det > 0.0 && sa >= -ta && sa <= 1.0 + ta && sb >= -tb && sb <= 1.0 + tb;
            let (sa, sb) = (sa.clamp(0.0, 1.0), sb.clamp(0.0, 1.0));
            (p0 + u * sa, q0 - w * sb, ok)
        }
    }
}

/// Is `y` (a point of face `f`'s plane, local frame) inside the face polygon, within `tol`?
fn in_face(shape: &ConvexPolyhedron, f: u32, y: DVec3, tol: f64) -> bool {
    let n = shape.face(f).normal;
    for h in shape.face_half_edges(f) {
        let he = shape.half_edge(h);
        let a = shape.vertex(he.origin);
        let b = shape.vertex(shape.half_edge(he.next).origin);
        let e = b - a;
        let l = e.length();
        if l > 0.0 && n.dot(e.cross(y - a)) < -tol * l {
            return false;
        }
    }
    true
}

/// The support value of A along `n` on the face (A frame), for unit or non-unit `n`.
fn support_a(ctx: &Ctx, face: DualFace, n: DVec3) -> f64 {
    match face {
        DualFace::Fv { face_a, .. } => n.dot(ctx.p.vertex(ctx.p.face_vertices(face_a)[0])),
        DualFace::Vf { vertex_a, .. } => n.dot(ctx.p.vertex(vertex_a)),
        DualFace::Ee { edge_a, .. } => n.dot(ctx.p.vertex(ctx.p.edge(edge_a).vertices[0])),
    }
}

/// The full CD-Dual search with its report (f_opt, its family and features, α, and the per-phase
/// step counts and times — the data of the paper's Fig. 10). It runs in the caller's roles and
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
    let mut st = Stats::default();
    let (best, converged, early) = match run(&ctx, cache, options.early_exit, options.timed, &mut st, None) {
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
        steps: st.steps,
        nanos: st.nanos,
    })
}

/// Boolean CD-Dual.
pub fn intersect(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut CdDualCache,
) -> Result<Intersection, PolycdError> {
    cache.last_margin = f64::NAN;
    cache.last_depth = f64::NAN;
    let (r, t) = relative(pa, pb);
    let Interior {
        c,
        pc,
        qc,
        qc_local,
        depths,
    } = interior_point(a, b, r, t);
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
        rho: depths[0] + depths[1],
    };
    // Roles (module notes): Search-FV walks the faces of the shape whose faces are expected
    // larger around the model normal. A coherent query keeps the roles of the last one (its
    // stored face belongs to them).
    let coherent = (cache.face_a as usize)
        < if cache.swapped {
            b.faces().len()
        } else {
            a.faces().len()
        };
    let (swap, model) = if coherent {
        (cache.swapped, None)
    } else {
        let (n, q_larger) = ctx.heuristic_normal();
        (q_larger, Some(n))
    };
    cache.set_roles(swap);
    if !swap {
        return Ok(boolean(&ctx, cache, model, pc, qc, depths, false));
    }
    // B plays P: B's frame, M' = B ⊕ (−A) = −M, the same interior points (so c' = −Rᵀc up to
    // rounding), the same scale and the model normal −Rᵀn.
    let rt = ctx.rt;
    let t2 = -(rt * t);
    let (pc2, qc2) = (qc_local, rt * pc + t2);
    let c2 = pc2 - qc2;
    let swapped = Ctx {
        poses: (pb, pa),
        p: b,
        q: a,
        r: rt,
        rt: r,
        t: t2,
        c: c2,
        dir: -c2,
        scale: ctx.scale,
        rho: ctx.rho,
    };
    Ok(boolean(
        &swapped,
        cache,
        model.map(|n| -(rt * n)),
        pc2,
        qc2,
        [depths[1], depths[0]],
        true,
    ))
}

/// The boolean query with `ctx.p` in the role of P. `swapped`: `ctx.p` is the caller's B,
/// so planes are reported with the opposite normal (A on their negative side) and feature
/// pairs with their sides exchanged.
fn boolean(
    ctx: &Ctx,
    cache: &mut CdDualCache,
    model: Option<DVec3>,
    pc: DVec3,
    qc: DVec3,
    depths: [f64; 2],
    swapped: bool,
) -> Intersection {
    let mut st = Stats::default();
    let outcome = run(ctx, cache, true, false, &mut st, model);
    let iterations = st.steps[0].saturating_add(st.steps[1]).saturating_add(st.steps[2]);
    let interior_depth = depths[0].min(depths[1]);
    let tol = || WITNESS_SPLIT_REL * (ctx.p.scale() + ctx.q.scale() + ctx.t.length());
    let (best, cert) = match outcome {
        Outcome::Done { best, cert, .. } => (best, cert),
        Outcome::NotConverged { .. } => return Intersection::NotConverged { iterations },
        Outcome::Overlap { cert, .. } => {
            // o = (1 − θ)·b + θ·z with θ = 1/λ, b = c + u in the ball, z = za − zb: split u
            // between the two interior points in proportion to their depths.
            let (lambda, theta) = (cert.lambda, 1.0 / cert.lambda);
            let u = (cert.x - (cert.za - cert.zb)) / (lambda - 1.0);
            let share = u / ctx.rho;
            let on_a = (pc + share * depths[0]) * (1.0 - theta) + cert.za * theta;
            let on_b = (qc - share * depths[1]) * (1.0 - theta) + cert.zb * theta;
            // Each side mixes a point at depth ≥ d·(1 − |u|/rho) with a point of the shape.
            let spare = (1.0 - u.length() / ctx.rho).max(0.0);
            cache.last_depth = (1.0 - theta) * interior_depth * spare - theta * tol() - (on_a - on_b).length();
            let point = ctx.poses.0.transform_point(0.5 * (on_a + on_b));
            return Intersection::Overlapping {
                witness: OverlapWitness::CommonPoint(point),
                iterations,
            };
        }
    };
    let len = best.n.length();
    if !(len > 0.0) || !len.is_finite() {
        return Intersection::NotConverged { iterations };
    }
    let pose_p = ctx.poses.0;
    let n = best.n / len;
    let k = best.k / len;
    let sign = if swapped { -1.0 } else { 1.0 };
    if k < 0.0 {
        // Certificate: fresh support queries must confirm the gap; the plane is placed midway
        // between A's maximum and B's minimum along n. A failure is a search bug: never
        // report Disjoint then.
        // The search's own certificate of this face when it exited on it (the same support
        // queries would give the same answer).
        let cert = match cert {
            Some(c) => Some(c),
            None => ctx.certify_separation(&best),
        };
        let plane = |top_a: f64, gap: f64| {
            Plane {
                normal: n * sign,
                offset: (top_a - 0.5 * gap) * sign,
            }
            .transformed(pose_p)
        };
        return match cert {
            Some(Cert::Apart { top_a, gap }) => {
                cache.last_margin = -gap;
                Intersection::Disjoint {
                    plane: plane(top_a, gap),
                    iterations,
                }
            }
            Some(Cert::Touching { top_a, gap, point }) => Intersection::Touching {
                point: pose_p.transform_point(point),
                plane: plane(top_a, gap),
                iterations,
            },
            None => Intersection::NotConverged { iterations },
        };
    }
    // o ∈ M: the ray c → o leaves M at x* = c + λ*·dir with λ* ≥ 1.
    let c = ctx.c;
    let nd = best.n.dot(ctx.dir);
    let h = best.k - best.n.dot(c);
    let lambda = if nd > 0.0 { h / nd } else { 1.0 };
    let theta = if lambda > 1.0 { 1.0 / lambda } else { 1.0 };
    let xs = c + ctx.dir * lambda;
    let tol = tol();
    let (ps, qs, exact) = split_point(ctx, best.face, xs, tol);
    let on_a = pc * (1.0 - theta) + ps * theta;
    let on_b = qc * (1.0 - theta) + qs * theta;
    if exact {
        // `on_a` mixes a point at depth ≥ `interior_depth` with a point of A (within `tol`),
        // so it lies at least (1 − θ)·interior_depth − θ·tol deep in A; likewise `on_b` in B.
        cache.last_depth = (1.0 - theta) * interior_depth - theta * tol - (on_a - on_b).length();
    }
    let witness = if exact {
        OverlapWitness::CommonPoint(pose_p.transform_point(0.5 * (on_a + on_b)))
    } else {
        let f = best.face.features();
        let (features, on_caller_a) = if swapped {
            (FeaturePair { a: f.b, b: f.a }, on_b)
        } else {
            (f, on_a)
        };
        OverlapWitness::Features {
            features,
            point: pose_p.transform_point(on_caller_a),
        }
    };
    Intersection::Overlapping { witness, iterations }
}

#[inline]
fn orient2(a: (f64, f64), b: (f64, f64), c: (f64, f64)) -> f64 {
    robust::orient2d(
        robust::Coord { x: a.0, y: a.1 },
        robust::Coord { x: b.0, y: b.1 },
        robust::Coord { x: c.0, y: c.1 },
    )
}

/// Andrew's monotone chain: the counter-clockwise hull of `pts` (collinear points dropped).
fn hull2d(pts: &mut [P2], out: &mut Vec<P2>) {
    pts.sort_unstable_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    out.clear();
    for &p in pts.iter() {
        while out.len() >= 2 {
            let (u, v) = (out[out.len() - 2], out[out.len() - 1]);
            if orient2((u.x, u.y), (v.x, v.y), (p.x, p.y)) <= 0.0 {
                out.pop();
            } else {
                break;
            }
        }
        out.push(p);
    }
    let lower = out.len() + 1;
    for &p in pts.iter().rev().skip(1) {
        while out.len() >= lower {
            let (u, v) = (out[out.len() - 2], out[out.len() - 1]);
            if orient2((u.x, u.y), (v.x, v.y), (p.x, p.y)) <= 0.0 {
                out.pop();
            } else {
                break;
            }
        }
        out.push(p);
    }
    out.pop();
}

/// Drops hull vertices within `tol` of their predecessor (near-duplicate projections, e.g. the
/// two ends of an edge parallel to the projection direction), so that the edge-angle merge of
/// [`minkowski2d`] only sees edges with a meaningful direction.
fn dedup_hull(h: &mut Vec<P2>, tol: f64) {
    if h.len() < 2 {
        return;
    }
    let mut w = 1;
    for i in 1..h.len() {
        let (a, b) = (h[w - 1], h[i]);
        if (b.x - a.x).abs().max((b.y - a.y).abs()) > tol {
            h[w] = b;
            w += 1;
        }
    }
    h.truncate(w);
    while h.len() > 1 {
        let (a, b) = (h[h.len() - 1], h[0]);
        if (b.x - a.x).abs().max((b.y - a.y).abs()) > tol {
            break;
        }
        h.pop();
    }
}

/// Lowest (then leftmost) vertex of a polygon given with a sign (±1 for A / −B).
fn lowest(poly: &[P2], sign: f64) -> usize {
    let mut best = 0;
    for (i, v) in poly.iter().enumerate() {
        let (bx, by) = (sign * poly[best].x, sign * poly[best].y);
        let (x, y) = (sign * v.x, sign * v.y);
        if y < by || (y == by && x < bx) {
            best = i;
        }
    }
    best
}

/// The Minkowski sum of the convex CCW polygons `ha` and `−hb` by merging edge directions.
fn minkowski2d(ha: &[P2], hb: &[P2], out: &mut Vec<M2>) {
    out.clear();
    let (n, m) = (ha.len(), hb.len());
    if n == 0 || m == 0 {
        return;
    }
    let ia = lowest(ha, 1.0);
    let ib = lowest(hb, -1.0);
    let va = |i: usize| ha[(ia + i) % n];
    let vb = |j: usize| {
        let p = hb[(ib + j) % m];
        P2 {
            x: -p.x,
            y: -p.y,
            id: p.id,
        }
    };
    let (mut i, mut j) = (0usize, 0usize);
    // Each step advances i or j (or both): at most n + m steps.
    while i < n || j < m {
        let (pa, pb) = (va(i), vb(j));
        out.push(M2 {
            x: pa.x + pb.x,
            y: pa.y + pb.y,
            ia: pa.id,
            ib: pb.id,
        });
        if i == n {
            j += 1;
            continue;
        }
        if j == m {
            i += 1;
            continue;
        }
        let (na, nb) = (va(i + 1), vb(j + 1));
        let (ex, ey) = (na.x - pa.x, na.y - pa.y);
        let (fx, fy) = (nb.x - pb.x, nb.y - pb.y);
        let cr = ex * fy - ey * fx;
        if cr > 0.0 {
            i += 1;
        } else if cr < 0.0 {
            j += 1;
        } else {
            i += 1;
            j += 1;
        }
    }
}

/// A fan triangle of the polygon containing the origin, with barycentric weights.
fn locate_origin(poly: &[M2]) -> Option<([usize; 3], [f64; 3])> {
    let l = poly.len();
    if l < 3 {
        return None;
    }
    let o = (0.0, 0.0);
    let r0 = (poly[0].x, poly[0].y);
    for j in 1..l - 1 {
        let rj = (poly[j].x, poly[j].y);
        let rk = (poly[j + 1].x, poly[j + 1].y);
        if orient2(r0, rj, o) < 0.0 || orient2(rj, rk, o) < 0.0 || orient2(rk, r0, o) < 0.0 {
            continue;
        }
        let area = (rj.0 - r0.0) * (rk.1 - r0.1) - (rj.1 - r0.1) * (rk.0 - r0.0);
        if !(area > 0.0) {
            continue;
        }
        let u = (rj.0 * rk.1 - rj.1 * rk.0) / area;
        let v = (rk.0 * r0.1 - rk.1 * r0.0) / area;
        let u = u.clamp(0.0, 1.0);
        let v = v.clamp(0.0, 1.0 - u);
        let w = 1.0 - u - v;
        return Some(([0, j, j + 1], [u, v, w]));
    }
    None
}

/// One end of the chord of the line `{t·s}` through M: the face the ray from `c` along `dir`
/// leaves M by, and `t` there.
fn chord_end(ctx: &Ctx, cache: &mut CdDualCache, s: DVec3, st: &mut Stats) -> Option<(Eval, f64)> {
    match run(ctx, cache, false, false, st, None) {
        Outcome::Done { best, .. } => {
            let ns = best.n.dot(s);
            if ns == 0.0 || !ns.is_finite() {
                return None;
            }
            Some((best, best.k / ns))
        }
        // `rho = 0`: no overlap certificate along a chord.
        Outcome::NotConverged { .. } | Outcome::Overlap { .. } => None,
    }
}

/// Pushes onto `out` (cleared first) the projections on the plane spanned by `e1`, `e2` of
/// those vertices of `poly` (mapped by `x ↦ m·x + t`) on its silhouette along `s_local` (the
/// direction in `poly`'s frame): vertices with an incident face whose normal `n` has
/// `n·s ≤ SILHOUETTE_MARGIN` and one with `n·s ≥ −SILHOUETTE_MARGIN`. A vertex projects to a
/// vertex of the projected hull only if its normal cone (spanned by its faces' normals) holds
/// a direction normal to `s`, which needs such faces; so the hull of the points pushed is the
/// hull of the whole projection, from O(√n) points on round shapes instead of n. `face_s` is
/// scratch (the side of `n·s` per face). Vertices keep their order, so ties in the hull
/// resolve as before.
#[allow(clippy::too_many_arguments)]
fn project_silhouette(
    poly: &ConvexPolyhedron,
    s_local: DVec3,
    m: &DMat3,
    t: DVec3,
    e1: DVec3,
    e2: DVec3,
    face_s: &mut Vec<u8>,
    out: &mut Vec<P2>,
) {
    // Per face: bit 0 when `n·s ≤ margin`, bit 1 when `n·s ≥ −margin`; a vertex is kept when
    // its faces' bits together are both set, gathered in one pass over the half-edges (each
    // bounds its face and starts at its vertex). `face_s` holds the faces' bits, then the
    // vertices'.
    let nf = poly.faces().len();
    face_s.clear();
    face_s.extend(poly.faces().iter().map(|f| {
        let d = f.normal.dot(s_local);
        (d <= SILHOUETTE_MARGIN) as u8 | (((d >= -SILHOUETTE_MARGIN) as u8) << 1)
    }));
    face_s.resize(nf + poly.vertices().len(), 0);
    let (faces, verts) = face_s.split_at_mut(nf);
    for he in poly.half_edges() {
        verts[he.origin as usize] |= faces[he.face as usize];
    }
    out.clear();
    for (v, &bits) in (0u32..).zip(verts.iter()) {
        if bits == 3 {
            let w = *m * poly.vertex(v) + t;
            out.push(P2 {
                x: w.dot(e1),
                y: w.dot(e2),
                id: v,
            });
        }
    }
}

/// Directional distance (§6): the smallest-magnitude `t` such that B translated by `t·s`
/// touches A.
pub fn directional(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    cache: &mut CdDualCache,
) -> Result<Directional, PolycdError> {
    cache.set_roles(false);
    let (r, t) = relative(pa, pb);
    let sl = pa.inverse_transform_vector(s);
    let len = sl.length();
    if !(len > 0.0) || !len.is_finite() {
        return Err(PolycdError::BadDirection);
    }
    let sl = sl / len;
    let e1 = sl.any_orthonormal_vector();
    let e2 = sl.cross(e1);
    // Project both shapes' silhouettes along s on the plane normal to s (A frame).
    project_silhouette(
        a,
        sl,
        &DMat3::IDENTITY,
        DVec3::ZERO,
        e1,
        e2,
        &mut cache.face_s,
        &mut cache.pts_a,
    );
    project_silhouette(
        b,
        r.transpose() * sl,
        &r,
        t,
        e1,
        e2,
        &mut cache.face_s,
        &mut cache.pts_b,
    );
    hull2d(&mut cache.pts_a, &mut cache.hull_a);
    hull2d(&mut cache.pts_b, &mut cache.hull_b);
    let tol2 = COPLANAR_REL * (a.scale() + b.scale() + a.magnitude() + b.magnitude() + t.length());
    dedup_hull(&mut cache.hull_a, tol2);
    dedup_hull(&mut cache.hull_b, tol2);
    minkowski2d(&cache.hull_a, &cache.hull_b, &mut cache.mink);
    let Some((tri, bary)) = locate_origin(&cache.mink) else {
        return Ok(Directional::Never { iterations: 0 });
    };
    // c = p − q with p ∈ A, q ∈ B the lifted barycentric points: on the line {t s}.
    let mut c3 = DVec3::ZERO;
    for (&i, &w) in tri.iter().zip(bary.iter()) {
        let m = cache.mink[i];
        c3 += (a.vertex(m.ia) - (r * b.vertex(m.ib) + t)) * w;
    }
    let kc = c3.dot(sl);
    let c = sl * kc;
    let mut st = Stats::default();
    let mut ctx = Ctx {
        poses: (pa, pb),
        p: a,
        q: b,
        r,
        rt: r.transpose(),
        t,
        c,
        dir: -sl,
        scale: coordinate_scale(a, b, t),
        rho: 0.0,
    };
    let iters = |st: &Stats| st.steps[0].saturating_add(st.steps[1]).saturating_add(st.steps[2]);
    let mut lo: Option<(Eval, f64)> = None;
    let mut hi: Option<(Eval, f64)> = None;
    if kc >= 0.0 {
        lo = chord_end(&ctx, cache, sl, &mut st);
        let Some((_, tl)) = lo else {
            return Ok(Directional::NotConverged { iterations: iters(&st) });
        };
        if !(tl > 0.0 || -tl <= kc) {
            ctx.dir = sl;
            hi = chord_end(&ctx, cache, sl, &mut st);
            if hi.is_none() {
                return Ok(Directional::NotConverged { iterations: iters(&st) });
            }
        }
    } else {
        ctx.dir = sl;
        hi = chord_end(&ctx, cache, sl, &mut st);
        let Some((_, th)) = hi else {
            return Ok(Directional::NotConverged { iterations: iters(&st) });
        };
        if !(th < 0.0 || th < -kc) {
            ctx.dir = -sl;
            lo = chord_end(&ctx, cache, sl, &mut st);
            if lo.is_none() {
                return Ok(Directional::NotConverged { iterations: iters(&st) });
            }
        }
    }
    let pick = match (lo, hi) {
        (Some(l), None) => l,
        (None, Some(h)) => h,
        (Some(l), Some(h)) => {
            if l.1 > 0.0 {
                l
            } else if h.1 < 0.0 {
                h
            } else if -l.1 <= h.1 {
                l
            } else {
                h
            }
        }
        (None, None) => return Ok(Directional::NotConverged { iterations: iters(&st) }),
    };
    let (ev, tt) = pick;
    let nl = ev.n.length();
    if !(nl > 0.0) || !nl.is_finite() {
        return Ok(Directional::NotConverged { iterations: iters(&st) });
    }
    let n = ev.n / nl;
    let plane = Plane {
        normal: n,
        offset: support_a(&ctx, ev.face, n),
    }
    .transformed(pa);
    Ok(Directional::Contact {
        t: tt,
        plane,
        iterations: iters(&st),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arc_test_matches_great_circle_geometry() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut crossings = 0;
        for _ in 0..20_000 {
            let a = crate::shape::shapes::unit_vector(&mut rng);
            let mut b = crate::shape::shapes::unit_vector(&mut rng);
            let c = crate::shape::shapes::unit_vector(&mut rng);
            let mut d = crate::shape::shapes::unit_vector(&mut rng);
            if rng.random_range(0..2) == 0 {
                b = (a + b * 0.7).normalize();
                d = (c + d * 0.7).normalize();
            }
            // Reference: the great circles meet at ±x; a minor arc contains x iff x is a
            // non-negative combination of its end points.
            let x = a.cross(b).cross(c.cross(d)).normalize();
            let on = |x: DVec3, p: DVec3, q: DVec3| {
                // x = α p + β q with α, β > 0 (x in the plane of p, q).
                let n = p.cross(q);
                let al = x.cross(q).dot(n);
                let be = p.cross(x).dot(n);
                al > 0.0 && be > 0.0
            };
            let truth = (on(x, a, b) && on(x, c, d)) || (on(-x, a, b) && on(-x, c, d));
            assert_eq!(arcs_cross(a, b, c, d), truth, "{a} {b} {c} {d}");
            crossings += truth as u32;
        }
        assert!(crossings > 1000);
    }
}
