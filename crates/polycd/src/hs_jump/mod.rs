//! HS-jump: separating-vector search by reflection, with a spherical-polygon collision
//! certificate.
//!
//! Paper: X. Li, X. Meng, C. Y. Wang, W. Wang, K. Chung, S. M. Yiu, *Detect Collision of
//! Polytopes Using a Heuristic Search for Separating Vectors* (2001), papers/003.
//!
//! # Outline (one query, all in A's local frame; B's vertices go through the relative pose)
//! 1. Candidate `S₀`: the cached separating vector (coherence, §8.4, supports found by
//!    hill-climbing from the cached pair) or the centroid difference (supports by a short
//!    climb from the shapes' direction tables, in place of the Dobkin–Kirkpatrick hierarchy of
//!    §8.1: see Departures). Cached collision-certificate pairs are re-added to the spherical
//!    polygon first (any vertex pairs are valid constraints, see below). Later candidates of
//!    the query are supported by climbs from the direction tables (see Departures).
//! 2. Supporting pair `(p, q)` for `S`, `d = q − p`. `S·d > 0` ⇒ separated (Theorem 1).
//! 3. A new pair adds the open hemisphere `HS(d) = {x : d·x > 0}` to
//!    `SCP = ∩ HS(d_j)` (§5); `SCP = ∅` ⇔ `0 ∈ conv{d_j}` ⊆ `B − A` ⇒ collision.
//! 4. Next candidate by the reflection `S ← S − 2(S·r)r`, `r = d/|d|` (formula (1)), or an
//!    approximate centre of `SCP` when the reflection lies far outside it (see Departures); a
//!    repeated pair instead takes a point strictly inside `SCP` (auxiliary rule, §6).
//!    Theorem 5 (immediate repeat ⇒ separation) is subsumed: step 2 evaluates its sign.
//!
//! # Invariants
//! - `SCP` is kept exactly as the open cone `{x : d_e·x > 0, e ∈ edges}` over the *floating*
//!   vectors `d_j` (never normalised). Every combinatorial decision is the sign of a
//!   determinant `det[d_a, d_b, d_c]` (exact `orient3d` with the origin as a point, behind
//!   Shewchuk's float filter for that expression) or of a dot product `S·d` (error-free
//!   transforms + expansion sum, behind a float filter), so the
//!   polygon is exactly the intersection of all added hemispheres and "empty" is a theorem
//!   about the stored vectors, not a rounding accident.
//! - Stages by edge count: 0 = whole sphere, 1 = hemisphere, 2 = lune (vertices `±d_a×d_b`),
//!   ≥ 3 = pointed convex polygon, edges counter-clockwise seen from outside, vertex `i` =
//!   `d_{e_i} × d_{e_{i+1}}`. A clip keeps the edges with an endpoint strictly inside the new
//!   hemisphere (those form one cyclic run, by convexity) and appends the new edge.
//!   Cost per iteration: O(k) exact orientation tests, `k` ≤ number of pairs so far (the
//!   paper's balanced tree gives O(log k)). Measured (tests/hs_jump.rs, 2026-11-25): k ≤ 18
//!   and ≤ 27 iterations over 10⁵ near-contact pairs (mean 6.9; k ≤ 21 and ≤ 28 on the
//!   adversarial needles, disks and parallel faces); icospheres: 1 iteration when
//!   separated, ≤ 5 when overlapping; §9 ellipsoids: mean ≈ 4–9 iterations;
//!   n = 1 000, 200:180:180, cold: 0.66–0.77 µs per overlapping query (l ≤ −1; 1.0–1.15 µs
//!   at |l| = 0.01), 0.19–0.21 µs when apart by 1 or more (2026-11-25 08:03, `polycd bench
//!   ellipsoid-sweep`; ≈ 0.8 / 0.22 µs before the far-outside rule); instructions per query (callgrind, the
//!   sweep's poses): 5.4 k at l = −40, 5.5 k at −10, 6.5 k at −1 (6.4 k / 6.5 k / 7.0 k
//!   before), 1.4 k when apart.
//! - Pairs seen in the query: the first `SEEN_LINEAR` in a plain list (linear search beats
//!   hashing for the few pairs of a typical query), the rest in a hash set.
//! - Every `Overlapping` answer carries ≤ 4 pairs whose vectors contain the origin in their
//!   hull, verified by exact signs before it is returned (Carathéodory: a fan triangle of the
//!   dual cone plus the new vector; the four-vector test's determinants are the clip's own
//!   exact signs plus the triangle's orientation, see `fan_certificate`); every `Disjoint`
//!   plane comes from a pair with `S·d > 0`.
//!
//! # Termination
//! Each iteration computes one supporting pair. A pair seen before triggers the auxiliary
//! rule, whose candidate `w` is verified (exact signs) to lie strictly inside `SCP`; a
//! repeated pair for `w` then has `w·d > 0` and the query ends separated. So at least every
//! second iteration yields a new pair: at most `2·|V(A)|·|V(B)|` iterations (§6). The bound
//! is enforced; reaching it returns `NotConverged`.
//!
//! # Departures from the paper
//! - SCP is a flat cyclic list clipped in O(k) rather than a balanced tree (O(log k)): k is
//!   tiny, and the list needs no allocation after warm-up (scratch lives in the cache).
//! - The paper declares separation once all pairs are exhausted; we return `NotConverged`
//!   (never a guessed answer).
//! - The auxiliary point is a weighted sum of SCP's vertex directions, verified exactly
//!   and, if rounding put it outside a sliver-thin SCP, repaired by an exact-sign bisection
//!   along the violated normal. If no float direction can be certified inside SCP (its width
//!   is below rounding, so the pair is within rounding of contact), the query certifies
//!   `Touching` when both bounds hold — penetration ≤ `−ŵ·d` for the approximate direction
//!   `ŵ`, distance ≤ |nearest point of conv{d_e}| — both within `contact_tolerance`, and
//!   returns `NotConverged` otherwise (observed 2026-11-22, before the far-outside rule: 25 in
//!   10⁵ near-contact pairs, all within the contact band; 103 certified `Touching`; the
//!   query layer answers both with GJK's contact measurement).
//! - Coherence also seeds SCP with the previous collision certificate (vertex pairs, not
//!   necessarily supporting ones: Gordan's theorem needs only points of `B − A`), so a pair
//!   that keeps overlapping is re-certified in zero iterations.
//! - `q − p = 0` (a shared vertex) is reported as `Overlapping` with a one-pair simplex; the
//!   query layer refines touching.
//! - Supports inside one query all climb from the direction tables' starts, both walks
//!   interleaved. Climbing from the pair of an earlier candidate within ≈ 5.7° (cos ≥ 0.995:
//!   the paper's §8.4 tool for coherence, applied within the query) was measured too: since
//!   the climbs stop at inscribed vertex cones, a table start is as good and the search for
//!   a near candidate cost more than it saved (instructions per query, §9 poses, n = 1 000,
//!   200:180:180, l = −40 / −10 / −1 / −0.01: 5 775 / 6 144 / 7 044 / 10 264 with it,
//!   5 560 / 5 897 / 6 872 / 10 166 without). Every strategy returns a maximiser, so the
//!   pairs, the candidates and the bound do not depend on it.
//! - The paper's hierarchical search (§8.1) is implemented (`ConvexPolyhedron::
//!   support_hierarchy`, `support_hierarchy_pair`, tested against the scan) but HS-jump's
//!   cold supports climb from the direction table instead (`support_climb_hinted`): a cube
//!   map of precomputed support vertices puts the start within a step or two of the answer
//!   for any direction, and measured on 1 000-vertex ellipsoid hulls that costs a third of
//!   the hierarchy's descent (`bench support`; deep overlaps at n = 1 000, 200:180:180:
//!   0.99 → 0.74 µs per query, the same iterations). The paired climbs also stop at a vertex
//!   without scanning its neighbours when the direction lies in a cone inscribed in the
//!   vertex's normal cone (`support::VertexCones`; strict maximiser by far more than
//!   rounding, so the same vertex the scan would confirm): about a third of the scans.
//! - Formula (1)'s candidate is replaced by a centre of SCP (for a polygon its unit vertex
//!   directions summed; unverified) when it lies beyond one of SCP's
//!   edges by more than `FAR_OUTSIDE` (`û·S < −0.1·|S|`, `û` that edge's unit pair vector,
//!   a float test). Such a candidate is no separating vector (that edge's pair shows it,
//!   Theorem 1), and for overlapping near-spheres it is formula (1)'s two-cycle: Theorem 4's
//!   `r₁ = −r₀` sends `S₂` back to `S₀`, whose pair then repeats (the auxiliary rule, after a
//!   wasted support) or lies next to it (a shallow cut). The centre cuts SCP deeply instead.
//!   Only the candidates change: every repeat still gets the auxiliary rule's verified
//!   interior point, so at least every second iteration yields a new pair and the bound
//!   stands. Measured on the §9 poses (n = 1 000, cold), mean iterations at l = −40 / −10 /
//!   −3 / −1 / −0.01: 200:180:180 4.00 / 4.09 / 4.62 / 4.87 / 7.50 instead of 4.77 / 4.86 /
//!   4.97 / 5.18 / 7.53 (four is the least a four-vector certificate needs); 200:100:100
//!   4.00 / 4.37 / 4.92 / 5.29 / 7.50 instead of 4.82 / 4.95 / 5.28 / 5.56 / 7.83; needles
//!   200:20:20 4.04 / 4.50 / 6.57 / 7.50 / 11.26 instead of 7.07 / 10.14 / 12.36 / 13.43 /
//!   16.82; separated pairs as before (l = 1: 1.19 on 200:180:180).
//! - Formula (1) is evaluated as `S − 2(S·d)/(d·d)·d`, without normalising `d` or the new
//!   `S` (a reflection keeps `|S|`, and only `S`'s direction matters): the same reflection
//!   without two square roots per iteration; a `d` whose squared length is not a normal
//!   float falls back to the normalised form.
//! - The query layer skips its contact-band measurement when the answer's own certificate is
//!   farther than twice the contact tolerance from contact (`clears`: the plane's
//!   margin between the supporting pair, or the origin's depth in the certificate
//!   tetrahedron, first bounded below without square roots), as it does for CD-Dual (first against the rotation-free upper bound of the
//!   tolerance, as CD-Dual does).
//!
//! Separation is decided on the floating-point coordinates in A's frame with supports from
//! float dot products; a plane claimed within rounding of contact (≈1e-16 of the scale) may be
//! off by that rounding — the query layer owns the contact band.

use crate::contract::{contact_tolerance, Intersection, MinkowskiSimplex, OverlapWitness};
use crate::core::error::PolycdError;
use crate::core::hash::IdBuildHasher;
use crate::core::math::{DMat3, DVec3, Plane, Pose};
use crate::shape::polyhedron::ConvexPolyhedron;
use std::collections::HashSet;

/// One hemisphere constraint: the vector `d = q − p` (A's frame) of a vertex pair.
#[derive(Clone, Copy, Debug, Default)]
struct Con {
    d: DVec3,
    /// `d / |d|` in floating point (approximate: only for choosing candidates, never a sign).
    u: DVec3,
    pair: (u32, u32),
}

impl Con {
    #[inline]
    fn new(d: DVec3, pair: (u32, u32)) -> Con {
        Con {
            d,
            u: d.normalize_or_zero(),
            pair,
        }
    }
}

/// Result of adding a hemisphere to the spherical polygon.
enum Added {
    /// Still non-empty.
    Open,
    /// Empty: these constraint indices (1..=4 of them) have the origin in their hull. The
    /// flag tells whether that was already verified by exact signs (the fan certificate);
    /// otherwise the caller verifies it.
    Empty([u32; 4], u8, bool),
}

/// HS-jump's per-pair state: the last separating vector and supporting pair (coherence),
/// the last collision certificate, and the scratch space of one query (hash set of seen
/// pairs, hemisphere constraints, polygon edge lists), reused without reallocation.
#[derive(Clone, Debug, Default)]
pub struct HsJumpCache {
    warm: bool,
    sizes: (usize, usize),
    last_s: DVec3,
    last_pair: (u32, u32),
    cert: [(u32, u32); 4],
    cert_len: u8,
    /// The first [`SEEN_LINEAR`] pairs of the query (a linear search is cheaper than hashing
    /// for the few pairs of a typical query); later ones go to `seen`.
    seen_short: Vec<u64>,
    seen: HashSet<u64, IdBuildHasher>,
    cons: Vec<Con>,
    edges: Vec<u32>,
    scratch: Vec<u32>,
    signs: Vec<i8>,
    /// How far the last answer is from contact, by its own certificate (A's frame): the
    /// separation margin of a `Disjoint` plane; NaN when unknown or given by `tetrahedron`.
    clearance: f64,
    /// The pair vectors of the last `Overlapping` certificate when it has four (their
    /// tetrahedron contains the origin; its depth is measured only when asked, see
    /// [`HsJumpCache::clears`]).
    tetrahedron: Option<[DVec3; 4]>,
    /// Largest spherical-polygon edge count reached in the last query (for tests/benchmarks).
    pub last_polygon_size: usize,
}

impl HsJumpCache {
    /// Forgets the coherence state (the next query starts cold) and keeps the scratch
    /// buffers' capacity, so a cache reused for unrelated queries does not allocate.
    pub fn forget(&mut self) {
        self.warm = false;
        self.cert_len = 0;
    }
}

impl HsJumpCache {
    fn begin(&mut self, na: usize, nb: usize) {
        if self.sizes != (na, nb) {
            self.forget();
            self.sizes = (na, nb);
        }
        self.seen_short.clear();
        if !self.seen.is_empty() {
            self.seen.clear();
        }
        self.cons.clear();
        self.edges.clear();
        self.last_polygon_size = 0;
        self.clearance = f64::NAN;
        self.tetrahedron = None;
    }

    /// Does the last query's certificate show the pair farther than `margin` from contact?
    /// For `Disjoint`, by the separation margin `min_B n·b − max_A n·a` of its plane (both
    /// extremes are the supporting pair the plane came from, so this is the margin up to
    /// rounding); for `Overlapping`, by the origin's distance to the boundary of the
    /// certificate's tetrahedron of pair vectors `q − p` (a ball of that radius lies in
    /// `B − A`, so no translation shorter than it separates the shapes); `false` when the
    /// certificate does not say. Lets the query layer skip re-measuring pairs far outside the
    /// contact band.
    ///
    /// The tetrahedron's depth is bounded below first without square roots or divisions: the
    /// origin's distance to the plane of a face `x, y, z` is `|det[x, y, z]| / |n|` with
    /// `n = (y − x) × (z − x)` (`n·x = det[x, y, z]`), and `|n| ≤ |y − x|·|z − x| ≤ 4R²` for
    /// `R` the longest vector; the bound is halved against rounding. Only when it does not
    /// decide is the depth measured (`geometry::tetrahedron_depth`), so the answer is that of
    /// the measured depth either way, up to that slack.
    pub(crate) fn clears(&self, margin: f64) -> bool {
        let Some(p) = self.tetrahedron else {
            return self.clearance > margin;
        };
        let (c01, c23) = (p[0].cross(p[1]), p[2].cross(p[3]));
        let dets = [p[1].dot(c23), p[0].dot(c23), c01.dot(p[2]), c01.dot(p[3])];
        let r2 = p.iter().map(|v| v.length_squared()).fold(0.0, f64::max);
        let low = dets.iter().map(|d| d.abs()).fold(f64::INFINITY, f64::min);
        if low > 8.0 * r2 * margin {
            return true;
        }
        crate::core::geometry::tetrahedron_depth(p) > margin
    }
}

// ---------------------------------------------------------------------------------------
// Exact signs.

use crate::core::geometry::{two_prod, two_sum};

/// Exact sign of `a · b` for float vectors (exact unless products underflow).
#[inline]
fn dot_sign(a: DVec3, b: DVec3) -> i8 {
    let (x, y, z) = (a.x * b.x, a.y * b.y, a.z * b.z);
    let p = x + y + z;
    let mag = x.abs() + y.abs() + z.abs();
    // |fl(a·b) − a·b| ≤ γ₃·Σ|aᵢbᵢ| with γ₃ < 4ε.
    if p.abs() > 4.0 * f64::EPSILON * mag {
        return if p > 0.0 { 1 } else { -1 };
    }
    dot_sign_exact(a, b, mag)
}

/// [`dot_sign`] past its float filter.
#[cold]
#[inline(never)]
fn dot_sign_exact(a: DVec3, b: DVec3, mag: f64) -> i8 {
    if mag == 0.0 {
        return 0;
    }
    let terms = [two_prod(a.x, b.x), two_prod(a.y, b.y), two_prod(a.z, b.z)];
    // Grow-expansion (Shewchuk) with zero elimination: components stay non-overlapping and
    // increasing in magnitude, so the sign is that of the last one.
    let mut e = [0.0f64; 8];
    let mut n = 0usize;
    for (hi, lo) in terms {
        for t in [lo, hi] {
            let mut q = t;
            let mut k = 0usize;
            for i in 0..n {
                let (s, h) = two_sum(q, e[i]);
                q = s;
                if h != 0.0 {
                    e[k] = h;
                    k += 1;
                }
            }
            if q != 0.0 {
                e[k] = q;
                k += 1;
            }
            n = k;
        }
    }
    match n.checked_sub(1).map(|i| e[i]) {
        Some(v) if v > 0.0 => 1,
        Some(v) if v < 0.0 => -1,
        _ => 0,
    }
}

/// Exact sign of `det[x, y, z] = (x × y) · z` (float-filtered, see
/// [`crate::core::predicates::det_sign`]).
#[inline]
fn det_sign(x: DVec3, y: DVec3, z: DVec3) -> i8 {
    crate::core::predicates::det_sign(x, y, z)
}

/// Exactly parallel (cross product exactly zero).
#[inline]
fn parallel(x: DVec3, y: DVec3) -> bool {
    // Float filter: a cross-product component whose rounded value exceeds its error bound
    // (each component `ab − cd` is within 2u(|ab| + |cd|) of exact, u = 2⁻⁵³, far below the
    // 4·EPSILON = 8u used; underflow needs products below 1e-250, excluded) is non-zero.
    let (m0, m1) = (x.y * y.z, x.z * y.y);
    let (m2, m3) = (x.z * y.x, x.x * y.z);
    let (m4, m5) = (x.x * y.y, x.y * y.x);
    let big = |p: f64, q: f64| {
        let perm = p.abs() + q.abs();
        perm > 1e-250 && perm.is_finite() && (p - q).abs() > 4.0 * f64::EPSILON * perm
    };
    if big(m0, m1) || big(m2, m3) || big(m4, m5) {
        return false;
    }
    parallel_exact(x, y)
}

/// [`parallel`] past its float filter.
#[cold]
#[inline(never)]
fn parallel_exact(x: DVec3, y: DVec3) -> bool {
    det_sign(x, y, DVec3::X) == 0 && det_sign(x, y, DVec3::Y) == 0 && det_sign(x, y, DVec3::Z) == 0
}

/// A vector `n` with `det[x, y, n] > 0`, for non-parallel `x, y` (orientation inside their
/// plane is then `det[·, ·, n]`).
fn plane_normal(x: DVec3, y: DVec3) -> DVec3 {
    let c = x.cross(y);
    if det_sign(x, y, c) > 0 {
        return c;
    }
    for e in [DVec3::X, DVec3::Y, DVec3::Z] {
        match det_sign(x, y, e) {
            1 => return e,
            -1 => return -e,
            _ => {}
        }
    }
    c
}

/// Is the origin in the convex hull of these (≤ 4) vectors? Exact signs. Used to verify every
/// certificate before it is returned.
fn origin_in_hull(p: &[DVec3]) -> bool {
    match p.len() {
        1 => p[0] == DVec3::ZERO,
        2 => parallel(p[0], p[1]) && dot_sign(p[0], p[1]) <= 0,
        3 => {
            if det_sign(p[0], p[1], p[2]) != 0 {
                return false;
            }
            // Coplanar with the origin: some pair (or the triple) contains it.
            for (i, j) in [(0, 1), (1, 2), (0, 2)] {
                if origin_in_hull(&[p[i], p[j]]) {
                    return true;
                }
            }
            let (x, y, z) = (p[0], p[1], p[2]);
            if parallel(x, y) {
                return false;
            }
            let n = plane_normal(x, y);
            let s1 = det_sign(x, y, n);
            let s2 = det_sign(y, z, n);
            let s3 = det_sign(z, x, n);
            (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0)
        }
        4 => {
            let dd = det_sign(p[0], p[1], p[2]);
            if dd != 0 {
                // 0 = Σλᵢpᵢ with λ ≥ 0 ⇔ −p₃ ∈ cone(p₀, p₁, p₂).
                let s1 = -det_sign(p[0], p[1], p[3]);
                let s2 = -det_sign(p[1], p[2], p[3]);
                let s3 = -det_sign(p[2], p[0], p[3]);
                if [s1, s2, s3].iter().all(|&s| s == dd || s == 0) {
                    return true;
                }
                // Every triple is then linearly independent (dets dd, −s1, −s2, −s3 ≠ 0), so
                // no sub-simplex is coplanar with the origin and none can contain it.
                if s1 != 0 && s2 != 0 && s3 != 0 {
                    return false;
                }
            }
            for skip in 0..4 {
                let mut q = [DVec3::ZERO; 3];
                let mut k = 0;
                for (i, &v) in p.iter().enumerate() {
                    if i != skip {
                        q[k] = v;
                        k += 1;
                    }
                }
                if origin_in_hull(&q) {
                    return true;
                }
            }
            false
        }
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------
// The spherical convex polygon.

impl HsJumpCache {
    #[inline]
    fn d(&self, c: u32) -> DVec3 {
        self.cons[c as usize].d
    }
    #[inline]
    fn u(&self, c: u32) -> DVec3 {
        self.cons[c as usize].u
    }

    /// Intersects SCP with the open hemisphere of constraint `c` (already pushed).
    fn add(&mut self, c: u32) -> Added {
        let dc = self.d(c);
        match self.edges.len() {
            0 => {
                self.edges.push(c);
                Added::Open
            }
            1 => {
                let a = self.edges[0];
                let da = self.d(a);
                if parallel(da, dc) {
                    if dot_sign(da, dc) > 0 {
                        return Added::Open; // same hemisphere
                    }
                    return Added::Empty([a, c, 0, 0], 2, false);
                }
                self.edges.push(c);
                Added::Open
            }
            2 => self.add_to_lune(c),
            _ => self.add_to_polygon(c),
        }
    }

    fn add_to_lune(&mut self, c: u32) -> Added {
        let (a, b) = (self.edges[0], self.edges[1]);
        let (da, db, dc) = (self.d(a), self.d(b), self.d(c));
        match det_sign(da, db, dc) {
            1 => {
                self.edges.clear();
                self.edges.extend_from_slice(&[a, b, c]);
                Added::Open
            }
            -1 => {
                self.edges.clear();
                self.edges.extend_from_slice(&[b, a, c]);
                Added::Open
            }
            _ => {
                // c in the plane of a and b: a 2-D problem in that plane.
                let n = plane_normal(da, db);
                let w = det_sign(da, db, n);
                let s1 = det_sign(da, dc, n);
                let s2 = det_sign(dc, db, n);
                let within = |s: i8, t: i8| s == t || s == 0;
                if within(s1, w) && within(s2, w) {
                    return Added::Open; // c ∈ cone(a, b): redundant
                }
                if within(s1, -w) && within(s2, -w) {
                    // −c ∈ cone(a, b): 0 ∈ conv{a, b, c}.
                    return if s1 == 0 {
                        Added::Empty([a, c, 0, 0], 2, false)
                    } else if s2 == 0 {
                        Added::Empty([b, c, 0, 0], 2, false)
                    } else {
                        Added::Empty([a, b, c, 0], 3, false)
                    };
                }
                // c lies outside both cones: it replaces the edge it overtakes.
                self.edges.clear();
                if s1 == w {
                    self.edges.extend_from_slice(&[a, c]);
                } else {
                    self.edges.extend_from_slice(&[b, c]);
                }
                Added::Open
            }
        }
    }

    fn add_to_polygon(&mut self, c: u32) -> Added {
        let dc = self.d(c);
        let m = self.edges.len();
        // Cyclic successor without a division.
        let next = |i: usize| if i + 1 == m { 0 } else { i + 1 };
        self.signs.clear();
        let (mut pos, mut neg) = (0usize, 0usize);
        let mut x = self.d(self.edges[0]);
        for i in 0..m {
            let y = self.d(self.edges[next(i)]);
            let s = det_sign(x, y, dc);
            pos += (s > 0) as usize;
            neg += (s < 0) as usize;
            self.signs.push(s);
            x = y;
        }
        if pos == 0 {
            return self.fan_certificate(c);
        }
        if neg == 0 {
            return Added::Open; // the whole closed polygon is in the closed hemisphere
        }
        // Start of the (unique, by convexity) cyclic run of strictly positive vertices.
        let mut prev = self.signs[m - 1];
        let mut start = None;
        for i in 0..m {
            let s = self.signs[i];
            if s > 0 && prev <= 0 {
                start = Some(i);
                break;
            }
            prev = s;
        }
        let Some(start) = start else {
            return Added::Open;
        };
        let mut end = start;
        while self.signs[next(end)] > 0 {
            end = next(end);
        }
        // Kept edges: e_start ..= e_{end+1}.
        let stop = next(end);
        self.scratch.clear();
        let mut i = start;
        loop {
            self.scratch.push(self.edges[i]);
            if i == stop {
                break;
            }
            i = next(i);
        }
        self.scratch.push(c);
        std::mem::swap(&mut self.edges, &mut self.scratch);
        Added::Open
    }

    /// The polygon lies in `{d_c·x ≤ 0}`: `−d_c` is in the cone of the edge normals; find a fan
    /// triangle `(e₀, e_j, e_{j+1})` containing it (Carathéodory), verified exactly.
    ///
    /// `self.signs[i] = det[d_{e_i}, d_{e_{i+1}}, d_c]` (all ≤ 0 here) are the exact signs the
    /// clip just computed. With `u_j = det[d_{e₀}, d_{e_j}, d_c]` (`u_1 = signs[0]`,
    /// `u_{m−1} = −signs[m−1]`), the four vectors `(e₀, e_j, e_{j+1}, c)` contain the origin in
    /// their hull when `det[e₀, e_j, e_{j+1}] > 0`, `u_j ≤ 0` and `u_{j+1} ≥ 0` (the test of
    /// [`origin_in_hull`] for four vectors, term by term: `−c` in the cone of the triangle).
    /// The sequence `u` goes from ≤ 0 to ≥ 0, so a sign change exists; the triangle's own
    /// orientation (positive by convexity) is the one new determinant. Any sign that does not
    /// come out as expected falls back to verifying candidate quadruples from scratch.
    fn fan_certificate(&self, c: u32) -> Added {
        let m = self.edges.len();
        let e = &self.edges;
        let dc = self.d(c);
        let d0 = self.d(e[0]);
        let u = |j: usize| -> i8 {
            if j == 1 {
                self.signs[0]
            } else if j == m - 1 {
                -self.signs[m - 1]
            } else {
                det_sign(d0, self.d(e[j]), dc)
            }
        };
        let mut uj = u(1);
        for j in 1..m - 1 {
            let un = u(j + 1);
            if uj <= 0 && un >= 0 {
                if det_sign(d0, self.d(e[j]), self.d(e[j + 1])) > 0 && self.signs[j] <= 0 {
                    return Added::Empty([e[0], e[j], e[j + 1], c], 4, true);
                }
                break;
            }
            uj = un;
        }
        // Defensive: every fan triangle, then any triple of edges, verified from scratch
        // (cannot be needed with exact signs and a convex polygon).
        for j in 1..m.saturating_sub(1) {
            let ids = [e[0], e[j], e[j + 1], c];
            if self.certifies(&ids) {
                return Added::Empty(ids, 4, true);
            }
        }
        for i in 0..m {
            for j in i + 1..m {
                for k in j + 1..m {
                    let ids = [e[i], e[j], e[k], c];
                    if self.certifies(&ids) {
                        return Added::Empty(ids, 4, true);
                    }
                }
            }
        }
        Added::Empty([c, 0, 0, 0], 0, false)
    }

    fn certifies(&self, ids: &[u32]) -> bool {
        let mut p = [DVec3::ZERO; 4];
        for (k, &i) in ids.iter().enumerate().take(4) {
            p[k] = self.d(i);
        }
        origin_in_hull(&p[..ids.len().min(4)])
    }

    /// Is `w` strictly inside every hemisphere added so far (exact)?
    fn inside_all(&self, w: DVec3) -> bool {
        w.is_finite() && self.cons.iter().all(|k| dot_sign(k.d, w) > 0)
    }

    /// A direction strictly inside SCP (exactly verified), or `None` if none is found.
    fn interior_point(&self) -> Option<DVec3> {
        let mut w = self.approx_interior();
        // Repair: the formula's point can miss a polygon thinner than its rounding (nearly
        // antiparallel edge normals make the vertex cross products inaccurate across the
        // sliver, while positions *along* it stay accurate). Move along the first violated
        // normal and bisect, with exact signs, for a point inside every hemisphere.
        w = w.normalize_or_zero();
        for _round in 0..4 {
            let Some(k) = self.cons.iter().position(|k| dot_sign(k.d, w) <= 0) else {
                return (w != DVec3::ZERO && w.is_finite()).then_some(w);
            };
            let dk = self.cons[k].d;
            let step = dk.normalize_or_zero();
            let (mut lo, mut hi) = (0.0f64, 2.0f64);
            let mut best = None;
            for _ in 0..80 {
                let t = 0.5 * (lo + hi);
                let x = w + step * t;
                if dot_sign(dk, x) <= 0 {
                    lo = t;
                } else {
                    if self.inside_all(x) {
                        return Some(x);
                    }
                    best = Some(x);
                    hi = t;
                }
            }
            w = best?;
        }
        None
    }

    /// Is `s` (a reflected candidate) far outside SCP: `û_e·s < −FAR_OUTSIDE·|s|` for one of
    /// its edges `e` (float test: it only chooses the candidate)? Never for the whole sphere
    /// or a hemisphere (the reflection lies inside the newest hemisphere).
    #[inline]
    fn far_outside(&self, s: DVec3) -> bool {
        if self.edges.len() < 2 {
            return false;
        }
        let lim = -FAR_OUTSIDE * s.length();
        self.edges.iter().any(|&e| self.u(e).dot(s) < lim)
    }

    /// The candidate that replaces a reflection far outside SCP (see `FAR_OUTSIDE`): for a
    /// polygon, the sum of its unit vertex directions (every vertex weighs the same, so the
    /// cut through the candidate reaches sharp corners too: measured, 4.09 instead of 4.25
    /// iterations at l = −10 on the §9 poses against the sine weights of
    /// [`approx_interior`](Self::approx_interior)); for a lune, its mid-line point. Unverified.
    fn centre(&self) -> DVec3 {
        let m = self.edges.len();
        if m < 3 {
            return self.approx_interior();
        }
        let mut s = DVec3::ZERO;
        let mut x = self.u(self.edges[m - 1]);
        for &e in &self.edges {
            let y = self.u(e);
            let v = x.cross(y);
            let l2 = v.length_squared();
            if l2 > 0.0 {
                s += v * (1.0 / l2.sqrt());
            }
            x = y;
        }
        s
    }

    /// An approximate interior direction (weighted sum of the vertex directions; unverified).
    fn approx_interior(&self) -> DVec3 {
        let m = self.edges.len();
        match m {
            0 => DVec3::X,
            1 => self.d(self.edges[0]),
            2 => {
                let (a, b) = (self.d(self.edges[0]), self.d(self.edges[1]));
                let (ua, ub) = (self.u(self.edges[0]), self.u(self.edges[1]));
                let mid = ua + ub;
                if mid.length() > crate::core::tolerance::ANTIPODAL_SUM_MIN {
                    mid
                } else {
                    // Nearly antiparallel: the bisector as a cross product is better conditioned.
                    let w = a.cross(b).cross(ua - ub);
                    if w.dot(mid) < 0.0 {
                        -w
                    } else {
                        w
                    }
                }
            }
            _ => {
                // Vertex directions weighted by the sine between their edge normals: a vertex of
                // nearly (anti)parallel normals has an inaccurate direction (error ≈ ε/sin) and
                // gets a proportionally small weight.
                let mut s = DVec3::ZERO;
                let mut x = self.u(self.edges[m - 1]);
                for &e in &self.edges {
                    let y = self.u(e);
                    s += x.cross(y);
                    x = y;
                }
                s
            }
        }
    }

    /// The SCP is non-empty but no float direction inside it could be certified: the pair is
    /// within rounding of contact. Certify `Touching` when both bounds hold: the penetration
    /// depth is at most `−ŵ·d` for an approximate interior direction `ŵ` and its supporting
    /// pair, and the distance is at most the norm of the nearest point of `conv{d_e}` over the
    /// polygon's edge vectors (brute force over their triangles: rare path, few edges).
    fn touching(&self, f: &Frame, pa: &Pose, tol: f64, iterations: u32) -> Intersection {
        let nc = Intersection::NotConverged { iterations };
        let w = self.approx_interior().normalize_or_zero();
        if w == DVec3::ZERO || !w.is_finite() {
            return nc;
        }
        let pair = f.support(w);
        let (p, q) = (f.a.vertex(pair.0), f.b_point(pair.1));
        let depth = -w.dot(q - p);
        if !(depth <= tol) {
            return nc;
        }
        let e = &self.edges;
        let m = e.len().min(8);
        let mut best: Option<(f64, DVec3)> = None;
        let mut consider = |ids: &[u32], wts: &[f64]| {
            let mut pt = DVec3::ZERO;
            let mut mid = DVec3::ZERO;
            for (&i, &wt) in ids.iter().zip(wts) {
                let c = &self.cons[i as usize];
                pt += c.d * wt;
                mid += (f.a.vertex(c.pair.0) + f.b_point(c.pair.1)) * (0.5 * wt);
            }
            let n = pt.length();
            if best.is_none_or(|(b, _)| n < b) {
                best = Some((n, mid));
            }
        };
        for i in 0..m {
            consider(&[e[i]], &[1.0]);
            for j in i + 1..m {
                let (x, y) = (self.d(e[i]), self.d(e[j]));
                let t = segment_param(x, y);
                consider(&[e[i], e[j]], &[1.0 - t, t]);
                for k in j + 1..m {
                    if let Some((u, v)) = triangle_params(x, y, self.d(e[k])) {
                        consider(&[e[i], e[j], e[k]], &[1.0 - u - v, u, v]);
                    }
                }
            }
        }
        match best {
            Some((dist, mid)) if dist <= tol => {
                let plane = Plane {
                    normal: w,
                    offset: 0.5 * (w.dot(p) + w.dot(q)),
                }
                .transformed(pa);
                Intersection::Touching {
                    point: pa.transform_point(mid),
                    plane,
                    iterations,
                }
            }
            _ => nc,
        }
    }
}

/// Parameter of the point of segment `[x, y]` nearest the origin.
fn segment_param(x: DVec3, y: DVec3) -> f64 {
    let e = y - x;
    let l = e.length_squared();
    if !(l > 0.0) {
        return 0.0;
    }
    (-x.dot(e) / l).clamp(0.0, 1.0)
}

/// Barycentric `(u, v)` of the origin's projection on the plane of triangle `x, y, z`, when it
/// falls inside the triangle (the boundary cases are covered by the segments).
fn triangle_params(x: DVec3, y: DVec3, z: DVec3) -> Option<(f64, f64)> {
    let (e1, e2) = (y - x, z - x);
    let (a11, a12, a22) = (e1.dot(e1), e1.dot(e2), e2.dot(e2));
    let (b1, b2) = (-x.dot(e1), -x.dot(e2));
    let det = a11 * a22 - a12 * a12;
    if !(det > 0.0) {
        return None;
    }
    let u = (b1 * a22 - b2 * a12) / det;
    let v = (a11 * b2 - a12 * b1) / det;
    (u >= 0.0 && v >= 0.0 && u + v <= 1.0).then_some((u, v))
}

// ---------------------------------------------------------------------------------------
// The query.

/// B in A's frame.
struct Frame<'a> {
    a: &'a ConvexPolyhedron,
    b: &'a ConvexPolyhedron,
    rot: DMat3,
    rot_t: DMat3,
    t: DVec3,
}

impl Frame<'_> {
    #[inline]
    fn b_point(&self, q: u32) -> DVec3 {
        self.rot * self.b.vertex(q) + self.t
    }
    #[inline]
    fn pair_vector(&self, pair: (u32, u32)) -> DVec3 {
        self.b_point(pair.1) - self.a.vertex(pair.0)
    }
    /// Supporting pair (max of A along `s`, min of B along `s`) by climbs from the direction
    /// tables' starts (module docs: in place of the §8.1 hierarchy, a third of its cost).
    #[inline]
    fn support(&self, s: DVec3) -> (u32, u32) {
        let sb = self.rot_t * -s;
        self.a
            .support_climb_pair(s, self.a.hint_start(s), self.b, sb, self.b.hint_start(sb))
    }
    /// Supporting pair by hill-climbing from a warm pair (§8.4).
    #[inline]
    fn support_from(&self, s: DVec3, warm: (u32, u32)) -> (u32, u32) {
        self.a.support_climb_pair(s, warm.0, self.b, self.rot_t * -s, warm.1)
    }
}

/// A reflected candidate `S` with `û·S < −FAR_OUTSIDE·|S|` for an edge normal `û` of SCP
/// (more than asin 0.1 ≈ 5.7° beyond that edge) is replaced by a centre of SCP
/// (`HsJumpCache::centre`). Only the choice of candidates depends on it. Measured
/// (instructions per query, §9 sweep poses, cold, n = 1 000), 0.05 / 0.1 / 0.2 / 0.3:
/// 200:180:180 at l = −3: 6 416 / 6 327 / 6 191 / 6 328, at l = −1: 6 817 / 6 577 / 6 673 /
/// 6 604 (l ≤ −10 the same for all: 5 440 at −40, 5 540 at −10); needles 200:20:20 at
/// l = −1: 11 405 / 12 578 / 14 212 / 17 140; 200:100:100 at l = −0.01: 9 999 / 10 290 /
/// 10 552 / 10 625. 0 (every reflection outside SCP) costs 7 350 at l = −1 on 200:180:180.
const FAR_OUTSIDE: f64 = 0.1;

/// Pairs kept in a plain list before the hash set is used (see `HsJumpCache::seen_short`).
const SEEN_LINEAR: usize = 16;

impl HsJumpCache {
    /// Records a pair key; `false` if it was seen before in this query.
    #[inline]
    fn insert_seen(&mut self, k: u64) -> bool {
        if self.seen_short.contains(&k) {
            return false;
        }
        if self.seen_short.len() < SEEN_LINEAR {
            self.seen_short.push(k);
            return true;
        }
        self.seen.insert(k)
    }
}

#[inline]
fn key(pair: (u32, u32)) -> u64 {
    ((pair.0 as u64) << 32) | pair.1 as u64
}

/// Boolean HS-jump. `Disjoint` carries the separating plane (normal = the separating vector,
/// offset midway between A's maximum and B's minimum along it); `Overlapping` carries a
/// [`MinkowskiSimplex`] of ≤ 4 vertex pairs whose differences contain the origin.
pub fn intersect(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut HsJumpCache,
) -> Result<Intersection, PolycdError> {
    let rel = pa.relative(pb);
    let rot = DMat3::from_quat(rel.rotation);
    let f = Frame {
        a,
        b,
        rot,
        rot_t: rot.transpose(),
        t: rel.translation,
    };
    let (na, nb) = (a.vertices().len(), b.vertices().len());
    let bound = (2u64 * na as u64 * nb as u64).min(u32::MAX as u64) as u32;
    cache.begin(na, nb);
    let tol = || contact_tolerance(a, pa, b, pb);

    // Coherence: re-add the previous collision certificate.
    if cache.warm {
        for k in 0..cache.cert_len as usize {
            let pair = cache.cert[k];
            let d = f.pair_vector(pair);
            if d == DVec3::ZERO {
                return Ok(finish_overlap(cache, &[pair], 0, cache.last_s, pair));
            }
            if !cache.insert_seen(key(pair)) {
                continue;
            }
            cache.cons.push(Con::new(d, pair));
            let c = (cache.cons.len() - 1) as u32;
            if let Added::Empty(ids, len, verified) = cache.add(c) {
                if let Some(r) = overlap_from(cache, ids, len, verified, 0, cache.last_s, pair) {
                    return Ok(r);
                }
            }
        }
    }

    let (mut s, mut pair) = if cache.warm && cache.last_s.is_finite() && cache.last_s != DVec3::ZERO {
        (cache.last_s, f.support_from(cache.last_s, cache.last_pair))
    } else {
        let s0 = (f.rot * b.centroid() + f.t) - a.centroid();
        let s0 = s0.normalize_or_zero();
        let s0 = if s0.is_finite() && s0 != DVec3::ZERO {
            s0
        } else {
            DVec3::X
        };
        (s0, f.support(s0))
    };
    let mut after_aux = false;
    let mut iterations = 0u32;
    loop {
        if iterations >= bound {
            return Ok(Intersection::NotConverged { iterations });
        }
        iterations += 1;
        let p = a.vertex(pair.0);
        let q = f.b_point(pair.1);
        let d = q - p;
        if d == DVec3::ZERO {
            return Ok(finish_overlap(cache, &[pair], iterations, s, pair));
        }
        // Theorem 1 (and Theorem 5 / the auxiliary rule's guarantee, as special cases).
        if dot_sign(s, d) > 0 {
            let n = s.normalize();
            let plane = Plane {
                normal: n,
                offset: 0.5 * (n.dot(p) + n.dot(q)),
            }
            .transformed(pa);
            cache.warm = true;
            cache.last_s = n;
            cache.last_pair = pair;
            cache.cert_len = 0;
            cache.clearance = n.dot(q) - n.dot(p);
            return Ok(Intersection::Disjoint { plane, iterations });
        }
        if !cache.insert_seen(key(pair)) {
            // Repeated pair: the auxiliary rule (§6). After an exactly verified interior
            // point a repeat is impossible, so reaching here twice in a row means rounding
            // beat us (the polygon is thinner than float resolution).
            if after_aux {
                return Ok(cache.touching(&f, pa, tol(), iterations));
            }
            let Some(w) = cache.interior_point() else {
                return Ok(cache.touching(&f, pa, tol(), iterations));
            };
            s = w;
            pair = f.support(s);
            after_aux = true;
            continue;
        }
        after_aux = false;
        cache.cons.push(Con::new(d, pair));
        let c = (cache.cons.len() - 1) as u32;
        if let Added::Empty(ids, len, verified) = cache.add(c) {
            if let Some(r) = overlap_from(cache, ids, len, verified, iterations, s, pair) {
                return Ok(r);
            }
            return Ok(Intersection::NotConverged { iterations });
        }
        cache.last_polygon_size = cache.last_polygon_size.max(cache.edges.len());
        // Formula (1): reflect S in the plane orthogonal to r = d/|d|, as
        // `S − 2(S·d)/(d·d)·d` (no square root; a reflection keeps |S|, which stays O(1):
        // every candidate starts unit or as a verified interior point of unit-scale).
        let dd = d.length_squared();
        let next = if dd.is_normal() {
            s - (2.0 * s.dot(d) / dd) * d
        } else {
            let r = d.normalize_or_zero();
            (s - 2.0 * s.dot(r) * r).normalize_or_zero()
        };
        // Departure: a reflection far outside SCP (beyond one of its edges by more than
        // `FAR_OUTSIDE`) is replaced by an approximate centre of SCP (see the module docs).
        let next = if cache.far_outside(next) {
            cache.centre().normalize_or_zero()
        } else {
            next
        };
        if next == DVec3::ZERO || !next.is_finite() {
            let Some(w) = cache.interior_point() else {
                return Ok(cache.touching(&f, pa, tol(), iterations));
            };
            s = w;
            after_aux = true;
        } else {
            s = next;
        }
        pair = f.support(s);
    }
}

/// Builds the `Overlapping` answer from constraint ids, verifying them exactly unless
/// `verified` says the polygon already did.
fn overlap_from(
    cache: &mut HsJumpCache,
    ids: [u32; 4],
    len: u8,
    verified: bool,
    iterations: u32,
    s: DVec3,
    pair: (u32, u32),
) -> Option<Intersection> {
    let len = len as usize;
    if len == 0 || !(verified || cache.certifies(&ids[..len])) {
        return None;
    }
    let mut pairs = [(0u32, 0u32); 4];
    for k in 0..len {
        pairs[k] = cache.cons[ids[k] as usize].pair;
    }
    let r = finish_overlap(cache, &pairs[..len], iterations, s, pair);
    if len == 4 {
        cache.tetrahedron = Some(ids.map(|i| cache.d(i)));
    }
    Some(r)
}

fn finish_overlap(
    cache: &mut HsJumpCache,
    pairs: &[(u32, u32)],
    iterations: u32,
    s: DVec3,
    pair: (u32, u32),
) -> Intersection {
    let mut simplex = MinkowskiSimplex {
        pairs: [(0, 0); 4],
        len: pairs.len().min(4) as u8,
    };
    for (k, &p) in pairs.iter().take(4).enumerate() {
        simplex.pairs[k] = p;
    }
    cache.warm = true;
    if s.is_finite() && s != DVec3::ZERO {
        cache.last_s = s.normalize();
    }
    cache.last_pair = pair;
    cache.cert = simplex.pairs;
    cache.cert_len = simplex.len;
    Intersection::Overlapping {
        witness: OverlapWitness::Simplex(simplex),
        iterations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn dot_sign_is_exact() {
        let a = DVec3::new(1e16, 1.0, -1e16);
        let b = DVec3::new(1.0, 1.0, 1.0);
        assert_eq!(dot_sign(a, b), 1);
        assert_eq!(dot_sign(a, -b), -1);
        assert_eq!(dot_sign(DVec3::new(0.1, 0.2, 0.0), DVec3::new(0.2, -0.1, 5.0)), 0);
        assert_eq!(dot_sign(DVec3::ZERO, b), 0);
    }

    /// Random constraint sets (small integers: many exact degeneracies, and general floats):
    /// after every addition, a non-empty polygon yields an exactly verified interior point and
    /// an empty one an exactly verified certificate — both outcomes are self-certifying.
    #[test]
    fn polygon_answers_are_certified() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut cache = HsJumpCache::default();
        let (mut empties, mut opens) = (0, 0);
        for trial in 0..20_000 {
            cache.begin(1, 1);
            let ints = trial % 2 == 0;
            for _ in 0..12 {
                let d = if ints {
                    DVec3::new(
                        rng.random_range(-2..=2) as f64,
                        rng.random_range(-2..=2) as f64,
                        rng.random_range(-2..=2) as f64,
                    )
                } else {
                    crate::shape::shapes::unit_vector(&mut rng)
                };
                if d == DVec3::ZERO {
                    continue;
                }
                cache.cons.push(Con::new(d, (0, 0)));
                let c = (cache.cons.len() - 1) as u32;
                match cache.add(c) {
                    Added::Open => {
                        let w = cache.interior_point();
                        assert!(w.is_some(), "trial {trial}: no interior point");
                        opens += 1;
                    }
                    Added::Empty(ids, len, _) => {
                        assert!(len > 0 && cache.certifies(&ids[..len as usize]), "trial {trial}");
                        empties += 1;
                        break;
                    }
                }
            }
        }
        assert!(empties > 1000 && opens > 1000, "{empties} {opens}");
    }
}
