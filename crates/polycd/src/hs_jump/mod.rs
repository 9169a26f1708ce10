//! HS-jump: separating-vector search by reflection, with a spherical-polygon collision
//! certificate.
//!
//! Paper: X. Li, X. Meng, C. Y. Wang, W. Wang, K. Chung, S. M. Yiu, *Detect Collision of
//! Polytopes Using a Heuristic Search for Separating Vectors* (2001), papers/003.
//!
//! Rounded shapes ([`crate::shape::polyhedron::ConvexPolyhedron::with_radius`]): this algorithm answers for the
//! cores and never reads the radius; `query::rounded` turns its answers into the rounded
//! shapes' (through [`crate::query`] only).
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
//! Shapes: solids only; a point, segment or polygon is refused with
//! [`PolycdError::UnsupportedShape`]: the paper's collision certificate (§5, an empty
//! spherical polygon ⇔ the origin in `conv{d_j}`) cannot tell touching from overlapping when
//! `M = A − B` is flat (the origin is then never strictly inside), and the touching fallback
//! reads the shapes' face normals, which a segment or point does not have.
//!
//! Files: this one holds the cache and the query loop ([`intersect`]); `polygon` the
//! spherical polygon (clip, certificate, interior points, candidate centres, the touching
//! fallback); `signs` the exact signs every combinatorial decision is made by.
//!
//! # Invariants
//! - `SCP` is kept exactly as the open cone `{x : d_e·x > 0, e ∈ edges}` over the *floating*
//!   vectors `d_j` (never normalised). Every combinatorial decision is the sign of a
//!   determinant `det[d_a, d_b, d_c]` (exact `orient3d` with the origin as a point, behind
//!   Shewchuk's float filter for that expression) or of a dot product `S·d` (error-free
//!   transforms + expansion sum, behind a float filter), so the polygon is exactly the
//!   intersection of all added hemispheres and "empty" is a theorem about the stored
//!   vectors, not a rounding accident.
//! - Stages by edge count: 0 = whole sphere, 1 = hemisphere, 2 = lune (vertices `±d_a×d_b`),
//!   ≥ 3 = pointed convex polygon, edges counter-clockwise seen from outside, vertex `i` =
//!   `d_{e_i} × d_{e_{i+1}}`. A clip keeps the edges with an endpoint strictly inside the new
//!   hemisphere (those form one cyclic run, by convexity) and appends the new edge.
//!   Cost per iteration: O(k) exact orientation tests, `k` ≤ number of pairs so far (the
//!   paper's balanced tree gives O(log k)); `k` stays small in practice (tests/hs_jump.rs
//!   records it through `HsJumpCache::last_polygon_size`).
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
//! is enforced; reaching it returns `NotConverged`. The interior-point repair is bounded too
//! (4 rounds of an 80-step bisection).
//!
//! # Departures from the paper
//! - SCP is a flat cyclic list clipped in O(k) rather than a balanced tree (O(log k)): k is
//!   tiny, and the list needs no allocation after warm-up (scratch lives in the cache).
//! - The paper declares separation once all pairs are exhausted; we return `NotConverged`
//!   (never a guessed answer).
//! - The auxiliary point is SCP's inscribed centre, the direction of largest angular margin
//!   over its edges (the normalised minimum-norm point of the unit edge normals, by a
//!   bounded minimum-norm-point iteration), verified exactly; if rounding put it outside (a
//!   margin within rounding of zero), a weighted sum of SCP's vertex directions, repaired by
//!   an exact-sign bisection along the violated normal. (The vertex sum alone failed on
//!   sliver lunes whose vertices are nearly antipodal — parallel edges 4.7e-4 apart, whose
//!   pair vectors lie nearly in one plane — though their margin is far above rounding; the
//!   query then ended `NotConverged`.) If no float direction can be certified inside SCP (its width
//!   is below rounding, so the pair is within rounding of contact), the query certifies
//!   `Touching` when both bounds hold — penetration ≤ `−ŵ·d` for the approximate direction
//!   `ŵ`, distance ≤ |nearest point of conv{d_e}| — both within `contact_tolerance`, and
//!   returns `NotConverged` otherwise (rare, and only within the contact band; the query
//!   layer answers both with GJK's contact measurement).
//! - Coherence also seeds SCP with the previous collision certificate (vertex pairs, not
//!   necessarily supporting ones: Gordan's theorem needs only points of `B − A`), so a pair
//!   that keeps overlapping is re-certified in zero iterations.
//! - `q − p = 0` (a shared vertex) is reported as `Overlapping` with a one-pair simplex; the
//!   query layer refines touching.
//! - Supports inside one query all climb from the direction tables' starts, both walks
//!   interleaved, rather than from the pair of an earlier candidate nearby (the paper's
//!   §8.4 tool for coherence, applied within the query): the climbs stop at inscribed vertex
//!   cones, so a table start is as good, and searching for a near candidate cost more than
//!   it saved (measured in instructions per query on the §9 poses). Every strategy returns
//!   a maximiser, so the pairs, the candidates and the bound do not depend on it.
//! - The paper's hierarchical search (§8.1) is implemented (`ConvexPolyhedron::
//!   support_hierarchy`, `support_hierarchy_pair`, tested against the scan) but HS-jump's
//!   cold supports climb from the direction table instead (`support_climb_hinted`): a cube
//!   map of precomputed support vertices puts the start within a step or two of the answer
//!   for any direction, which on 1 000-vertex ellipsoid hulls costs about a third of the
//!   hierarchy's descent (`bench support`), with the same iterations. The paired climbs also
//!   stop at a vertex without scanning its neighbours when the direction lies in a cone
//!   inscribed in the vertex's normal cone (`support::VertexCones`; strict maximiser by far
//!   more than rounding, so the same vertex the scan would confirm).
//! - Formula (1)'s candidate is replaced by a centre of SCP (for a polygon its unit vertex
//!   directions summed; unverified) when it lies beyond one of SCP's edges by more than
//!   `FAR_OUTSIDE` (`û·S < −0.1·|S|`, `û` that edge's unit pair vector, a float test). Such a
//!   candidate is no separating vector (that edge's pair shows it, Theorem 1), and for
//!   overlapping near-spheres it is formula (1)'s two-cycle: Theorem 4's `r₁ = −r₀` sends
//!   `S₂` back to `S₀`, whose pair then repeats (the auxiliary rule, after a wasted support)
//!   or lies next to it (a shallow cut). The centre cuts SCP deeply instead. Only the
//!   candidates change: every repeat still gets the auxiliary rule's verified interior
//!   point, so at least every second iteration yields a new pair and the bound stands. On
//!   the §9 poses it brings overlapping pairs close to four iterations, the least a
//!   four-vector certificate needs.
//! - Formula (1) is evaluated as `S − 2(S·d)/(d·d)·d`, without normalising `d` or the new
//!   `S` (a reflection keeps `|S|`, and only `S`'s direction matters): the same reflection
//!   without two square roots per iteration; a `d` whose squared length is not a normal
//!   float falls back to the normalised form.
//! - The query layer skips its contact-band measurement when the answer's own certificate is
//!   farther than twice the contact tolerance from contact (`clears`: the plane's margin
//!   between the supporting pair, or the origin's depth in the certificate tetrahedron, first
//!   bounded below without square roots), first against the rotation-free upper bound of the
//!   tolerance, as it does for CD-Dual.
//!
//! Separation is decided on the floating-point coordinates in A's frame with supports from
//! float dot products; a plane claimed within rounding of contact (≈1e-16 of the scale) may be
//! off by that rounding — the query layer owns the contact band.

mod distance;
mod nearest;
mod polygon;
mod signs;

pub use distance::distance;

use crate::contract::{contact_tolerance, Intersection, MinkowskiSimplex, OverlapWitness};
use crate::core::error::PolycdError;
use crate::core::hash::IdBuildHasher;
use crate::core::math::{DMat3, DVec3, Plane, Pose};
use crate::shape::polyhedron::ConvexPolyhedron;
use polygon::{Added, Proof};
use signs::dot_sign;
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
    /// The vertex caps of A and B [`distance`] searches for the closest features (scratch).
    cap_a: Vec<u32>,
    cap_b: Vec<u32>,
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
    /// Reserves the scratch every query of a pair of `na` and `nb` vertices can need, so that
    /// no later query of such a pair grows it: a query adds each vertex pair at most once
    /// (`insert_seen` before every constraint), so its constraints, polygon edges, clip
    /// scratch and signs hold at most `na·nb + 1` entries and the seen-pair set `na·nb`. For
    /// small hulls only (the query layer's `Auto` boolean of two hulls of at most 16 vertices:
    /// at most 257 entries, about 20 KB); a no-op once reserved.
    pub fn reserve_for(&mut self, na: usize, nb: usize) {
        let n = na.saturating_mul(nb).saturating_add(1);
        fn at_least<T>(v: &mut Vec<T>, n: usize) {
            if v.capacity() < n {
                v.reserve(n - v.len());
            }
        }
        at_least(&mut self.cons, n);
        at_least(&mut self.edges, n);
        at_least(&mut self.scratch, n);
        at_least(&mut self.signs, n);
        at_least(&mut self.seen_short, SEEN_LINEAR);
        if self.seen.capacity() < n {
            self.seen.reserve(n - self.seen.len());
        }
    }

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
    crate::shape::flat::require_solids(
        a,
        b,
        "hs_jump",
        "its collision certificate needs a solid Minkowski difference (module header)",
    )?;
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
            if let Added::Empty(ids, len, proof) = cache.add(c) {
                if let Some(r) = overlap_from(cache, ids, len, proof, 0, cache.last_s, pair) {
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
        if let Added::Empty(ids, len, proof) = cache.add(c) {
            if let Some(r) = overlap_from(cache, ids, len, proof, iterations, s, pair) {
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
/// `proof` says the polygon already did.
fn overlap_from(
    cache: &mut HsJumpCache,
    ids: [u32; 4],
    len: u8,
    proof: Proof,
    iterations: u32,
    s: DVec3,
    pair: (u32, u32),
) -> Option<Intersection> {
    let len = len as usize;
    if len == 0 || !(proof == Proof::Verified || cache.certifies(&ids[..len])) {
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
