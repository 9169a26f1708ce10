//! GJK (Gilbert, Johnson, Keerthi 1988) with Cameron's enhancements ("Enhanced GJK": support
//! points by hill-climbing over the vertex graph, warm-started from the previous query), plus
//! EPA penetration depth (van den Bergen's expanding polytope) and GJK ray casting
//! (van den Bergen, "Ray casting against general convex objects", 2004) for the directional query.
//!
//! Outline (everything in A's local frame; `M = A − B`, B mapped by `pose_a⁻¹ · pose_b`):
//! 1. Seed the simplex with the cached (vertex of A, vertex of B) pairs of the last query
//!    (coherence), or, cold, with the support of `M` towards the origin from `M`'s centre.
//! 2. Repeat: `v` = point of the simplex hull nearest the origin (sub-algorithm below);
//!    `w = s_M(−v)` by hill-climbing on A and B from the cached support vertices; stop when
//!    `v·w/|v|` (lower bound) and `|v|` (upper bound) agree within `DISTANCE_GAP_REL × scale`,
//!    when `(ia, ib)` is already in the simplex, or (boolean mode) as soon as `v·w > 0` proves
//!    separation beyond the contact tolerance or a tetrahedron encloses the origin.
//! 3. Overlap (or a stall at `|v| ≈ 0`): EPA from the final simplex, blown up to a tetrahedron.
//! 4. Directional: two GJK ray casts against `M`, from `∓R·s` along `±s`, give `[lo, hi]`.
//!    The contact plane's normal is not the cast's last direction but the candidate around the
//!    hit (that direction, the faces at the final simplex's vertices, their edge–edge cross
//!    products) with the least overlap of the shapes' projections (`contact_normal`): between
//!    nearly parallel faces of `M` the cast's direction can lie between their normals, and its
//!    plane then touches A and B at different places (the paper returns only λ).
//!
//! Sub-algorithm: instead of Johnson's recursive determinant test, every face of the (≤ 4
//! point) simplex is tried: the origin's projection on its affine hull, with barycentric
//! coordinates computed from cross products of vectors *relative to the projection* (so they
//! carry the size of the face, not of the coordinates), is a candidate when all coordinates are
//! positive; the candidate of least norm wins (vertices are always candidates; after a
//! support step only faces containing the new point are tried, as in exact arithmetic the
//! answer lies on one of them, and a rounding-induced increase is a stall). Within 16 ulps
//! of `|v|²` candidates count as tied and the one containing the newest support point, then
//! the larger face, wins: near-parallel faces of `M` (V-Clip's degeneracy test) change `v`'s
//! *direction* by more than they change its norm, and only that keeps the iteration moving.
//! The winner is then refined once (its components along the face's edge vectors are
//! projected out): near contact `|v|` is tiny while its rounding is of the order of the
//! coordinates, and the refinement restores the direction that the support gap and the
//! separating plane depend on. In exact arithmetic this is the unique Voronoi-region answer;
//! under rounding it is still (to rounding) a point of the hull, so `|v|` stays an upper bound.
//!
//! Invariants: `|v|` never increases beyond rounding (an increase is a stall: the previous
//! simplex is kept and the support gap decides; at most 8 consecutive steps may leave `|v|²`
//! unchanged within rounding); every simplex point is a vertex pair of `M`; the EPA polytope
//! is convex with outward faces (checked against an interior point).
//!
//! Termination: GJK and the ray cast run at most `64 + min(|A|·|B|, 4096)` iterations (each
//! non-terminating GJK step decreases `|v|`, so in exact arithmetic no simplex repeats and the
//! count of vertex pairs bounds it); EPA adds a new vertex of `M` per step, bounded by the same
//! count; the horizon walk visits each face a bounded number of times (guarded). Hitting a
//! bound yields `NotConverged`, never a guessed answer.
//!
//! Departures from the papers: supports are hill-climbs (Cameron) started from the shapes'
//! direction tables rather than from the last support, except once the search direction has
//! settled (turned by less than `acos WARM_COS` since the previous GJK step), where the last
//! supports are a step away (not in EPA, whose faces take turns: measured, no gain); on two
//! large hulls the two climbs advance in lockstep (`support_climb_pair`, the same vertices).
//! The all-faces minimum-norm sub-algorithm with refinement (above) replaces Johnson's, with
//! a shortcut: when the whole simplex's own candidate exists (the projection strictly inside
//! the segment or triangle, or inside a tetrahedron face the origin sees) it is the nearest
//! point outright and the enumeration is skipped; the warm
//! start is dropped (cold start along the centre line) when B has turned by more than
//! `STALE_TURN_REL` × the vertex spacing relative to A since the cached query, where the old simplex costs more
//! iterations than it saves; a stall (repeated support pair, or no decrease of `|v|`) is
//! accepted only when the support gap is within [`ACCEPT_GAP_REL`] × scale, otherwise decided
//! by EPA when `|v|` is within the contact tolerance, else reported as non-convergence. A
//! touching pair with `|v| = 0` (origin on a face of a simplex) goes to EPA too, which returns
//! depth ≈ 0 and distance mode then reports `Separated` with the simplex's closest points.
//! EPA faces are oriented against the initial tetrahedron's centroid rather than the origin,
//! so a seed with the origin on its boundary (touching) is handled; a degenerate seed is
//! blown up (segment: supports around it; triangle: the taller of the two normal supports,
//! or the origin's side when that tetrahedron contains the origin). The EPA horizon comes
//! from van den Bergen's depth-first silhouette walk with an explicit stack (edges in loop
//! order, so the new fan is linked by position; the loop is checked to chain and to visit
//! each vertex once). The incremental EPA polytope can break on symmetric shapes (many
//! vertices of `M` on common planes and lines: a horizon with two loops, a sliver face),
//! which shows as a face with the origin beyond it; such a run — or a horizon that is not one
//! simple loop — is abandoned (retried once with the climbs also started from the expanded
//! face's vertices, which picks other maximisers among ties), and EPA restarts from the same
//! tetrahedron over robust hulls of the collected support points (exact predicates, coplanar
//! faces merged; at most 256 points), which is slow but cannot break (found by the query fuzz
//! target: concentric icosahedra at depth 0.143 reported touching).
//! The ray cast's conservative advancement takes van den Bergen's step `−v·w / v·r` only when
//! `v·r` is certainly negative (beyond eight times its rounding bound); a ray lying in a face
//! of `M` to rounding (B sliding along A) makes both products noise, and their ratio threw the
//! ray into the middle of the contact chord, so there the ray advances only by the least step
//! the products' error bounds allow, and only when `v·w` certainly exceeds its rounding.
//! EPA has coherence of its own (not in van den Bergen's EPA): the cache keeps the vertex
//! pairs of the face the last answer came from, and the next run inserts those that lie
//! beyond its tetrahedron before expanding (each is a vertex of `M`, so the polytope stays
//! inside `M` and the stopping bounds are unchanged). An overlapping pair of a coherent
//! many-body scene (1 000 bodies, density 0.2, callgrind) then takes 5.1 instead of 5.8
//! expansions per run; should the warm run break, the cold run follows.

use crate::contract::{
    pair_scale_relative, Directional, Distance, Feature, FeaturePair, Intersection, MinkowskiSimplex, OverlapWitness,
    Penetration,
};
use crate::core::error::PolycdError;
use crate::core::math::{DMat3, DQuat, DVec3, Plane, Pose};
use crate::core::tolerance::{CONTACT_REL, DISTANCE_GAP_REL, SLIVER_HEIGHT_RATIO, WEIGHT_TIE};
use crate::shape::polyhedron::ConvexPolyhedron;

pub use crate::core::tolerance::ACCEPT_GAP_REL;

/// Consecutive GJK steps allowed whose `|v|²` equals the previous one in floating point.
const MAX_FLAT_STEPS: u32 = 8;

/// Base of the iteration bound (plus the number of vertex pairs, capped by [`MAX_PAIR_BOUND`]).
pub const BASE_ITERATIONS: u32 = 64;

/// Cap on the vertex-pair term of the iteration bound.
pub const MAX_PAIR_BOUND: u32 = 4096;

/// Initial capacity of EPA's vertex buffer (faces: twice that), reserved once per cache.
const EPA_RESERVE: usize = 64;

/// Relative rotation since the cached query beyond which the cached simplex is dropped and
/// the query starts cold, as a fraction of the shapes' angular vertex spacing `√(4π / n)` (n
/// the larger vertex count). A simplex of vertex pairs is a good start only while the pairs
/// stay near the supports, and rotation is what moves the supports (a translation moves all of
/// `M` rigidly) — by about one vertex per spacing turned. Measured on the V-Clip coherence
/// workload (`bench coherence`, with the direction-table cold start) the warm start stops
/// paying beyond about 3° per step on the 642-vertex sphere (spacing 8°), ~6–10° on the
/// 120-vertex disk (19°) and ~20° on the cube (72°): 0.3 of the spacing in each case. Not a
/// tolerance: it only picks the start, never an answer.
const STALE_TURN_REL: f64 = 0.3;

/// GJK's climbs start from the last supports instead of the direction table when the search
/// direction has turned by less than `acos(WARM_COS)` (2.6°) since the previous step (both
/// shapes with tables; small hulls always scan). Measured (callgrind, random 1 000-vertex
/// pairs, separated): 0.9999 / 0.999 / 0.99 / 0.95 → 8 036 / 7 875 / 7 987 / 8 405
/// instructions per query against 8 220 with the table always; overlapping pairs unchanged
/// (their directions jump). Not a tolerance: it only picks where a climb starts.
const WARM_COS: f64 = 0.999;

/// A vertex of `M = A − B`: the pair of vertex ids and the difference point (A's local
/// frame). The two points it comes from are recomputed from the ids when needed
/// ([`Ctx::pa`], [`Ctx::pb`], bit-identical to the ones `w` was formed from): the simplex is
/// copied every iteration, and 32 bytes per vertex instead of 80 is measurable on small shapes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct SVert {
    w: DVec3,
    ia: u32,
    ib: u32,
}

/// A simplex of up to four Minkowski vertices with the barycentric weights of its nearest point.
#[derive(Clone, Copy, Debug, Default)]
struct Simplex {
    v: [SVert; 4],
    lam: [f64; 4],
    n: usize,
}

impl Simplex {
    fn contains(&self, ia: u32, ib: u32) -> bool {
        self.v[..self.n].iter().any(|s| s.ia == ia && s.ib == ib)
    }
    fn push(&mut self, s: SVert) {
        if self.n < 4 {
            self.v[self.n] = s;
            self.lam[self.n] = 0.0;
            self.n += 1;
        }
    }
    fn points(&self, ctx: &Ctx) -> (DVec3, DVec3) {
        let mut pa = DVec3::ZERO;
        let mut pb = DVec3::ZERO;
        for k in 0..self.n {
            pa += ctx.pa(&self.v[k]) * self.lam[k];
            pb += ctx.pb(&self.v[k]) * self.lam[k];
        }
        (pa, pb)
    }
    fn witness(&self) -> MinkowskiSimplex {
        let mut pairs = [(0u32, 0u32); 4];
        for (k, p) in pairs.iter_mut().enumerate().take(self.n) {
            *p = (self.v[k].ia, self.v[k].ib);
        }
        MinkowskiSimplex {
            pairs,
            len: self.n as u8,
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct EpaFace {
    v: [u32; 3],
    adj: [u32; 3],
    n: DVec3,
    d: f64,
    alive: bool,
}

/// GJK's per-pair warm-start state: the last support vertices, the last simplex (as vertex-id
/// pairs) and EPA's reusable buffers.
#[derive(Clone, Debug, Default)]
pub struct GjkCache {
    warm_a: u32,
    warm_b: u32,
    pairs: [(u32, u32); 4],
    len: u8,
    /// B's rotation relative to A at the last query, for the staleness test.
    last_rel: Option<DQuat>,
    /// The vertex pairs of the face of `M` the last EPA run stopped at (`epa_len` of them,
    /// 0 or 3): the next EPA run of an overlapping pair inserts them into its polytope first
    /// (see [`epa_run`]).
    epa_face: [(u32, u32); 3],
    epa_len: u8,
    epa: Option<Box<EpaBufs>>,
}

/// EPA's scratch buffers, kept in the cache so that steady-state queries do not allocate.
#[derive(Clone, Debug, Default)]
struct EpaBufs {
    verts: Vec<SVert>,
    /// `(ia << 32) | ib` of each vertex, apart: the repeated-support test scans them.
    keys: Vec<u64>,
    /// Per vertex, the iteration that last met it on the horizon (simple-loop test).
    mark: Vec<u32>,
    faces: Vec<EpaFace>,
    stack: Vec<(u32, u8)>,
    horizon: Vec<(u32, u8)>,
    /// Face distances, +∞ once a face dies.
    dist: Vec<f64>,
}

impl EpaBufs {
    fn clear(&mut self) {
        self.verts.clear();
        self.keys.clear();
        self.mark.clear();
        self.faces.clear();
    }
    fn push_vert(&mut self, s: SVert) {
        self.verts.push(s);
        self.keys.push(key(s.ia, s.ib));
        self.mark.push(0);
    }
}

/// A vertex pair as one word.
#[inline]
fn key(ia: u32, ib: u32) -> u64 {
    (u64::from(ia) << 32) | u64::from(ib)
}

impl GjkCache {
    /// Forgets the coherence state (the next query starts cold) and keeps the scratch
    /// buffers' capacity, so a cache reused for unrelated queries does not allocate.
    pub fn forget(&mut self) {
        self.warm_a = 0;
        self.warm_b = 0;
        self.len = 0;
        self.epa_len = 0;
        self.last_rel = None;
    }
}

impl GjkCache {
    /// The simplex of the last query, as (vertex of A, vertex of B) pairs.
    pub fn simplex(&self) -> &[(u32, u32)] {
        &self.pairs[..(self.len as usize).min(4)]
    }
    fn store(&mut self, s: &Simplex) {
        self.len = s.n as u8;
        for k in 0..s.n {
            self.pairs[k] = (s.v[k].ia, s.v[k].ib);
        }
    }
}

/// One query's geometry: both shapes and B's pose in A's frame.
struct Ctx<'a> {
    a: &'a ConvexPolyhedron,
    b: &'a ConvexPolyhedron,
    rot: DMat3,
    rot_t: DMat3,
    quat: DQuat,
    trans: DVec3,
    scale: f64,
    tol: f64,
    max_iter: u32,
    /// Both shapes have direction tables (more than `SMALL_SCAN` vertices): their supports
    /// are climbs from the table's starts, advanced in lockstep.
    paired: bool,
}

impl<'a> Ctx<'a> {
    fn new(a: &'a ConvexPolyhedron, pa: &Pose, b: &'a ConvexPolyhedron, pb: &Pose) -> Self {
        let rel = pa.relative(pb);
        let rot = DMat3::from_quat(rel.rotation);
        let scale = pair_scale_relative(a, pa, b, pb, &rot, rel.translation);
        let pairs = (a.vertices().len() as u64).saturating_mul(b.vertices().len() as u64);
        Ctx {
            a,
            b,
            rot,
            rot_t: rot.transpose(),
            quat: rel.rotation,
            trans: rel.translation,
            scale,
            // `contact_tolerance` is `CONTACT_REL × pair_scale`: the same value, one scale.
            tol: CONTACT_REL * scale,
            max_iter: BASE_ITERATIONS + pairs.min(MAX_PAIR_BOUND as u64) as u32,
            paired: a.vertices().len() > crate::shape::support::SMALL_SCAN
                && b.vertices().len() > crate::shape::support::SMALL_SCAN,
        }
    }
    #[inline]
    fn vert(&self, ia: u32, ib: u32) -> SVert {
        let pa = self.a.vertex(ia);
        let pb = self.rot * self.b.vertex(ib) + self.trans;
        SVert { w: pa - pb, ia, ib }
    }
    /// The point of A a Minkowski vertex comes from (A's frame).
    #[inline]
    fn pa(&self, s: &SVert) -> DVec3 {
        self.a.vertex(s.ia)
    }
    /// The point of B a Minkowski vertex comes from (A's frame; the same arithmetic as
    /// [`Ctx::vert`], so the same value).
    #[inline]
    fn pb(&self, s: &SVert) -> DVec3 {
        self.rot * self.b.vertex(s.ib) + self.trans
    }
    /// The vertex of `M` maximising `d · x`. `P` must be `self.paired`: then both climbs
    /// start from the direction tables (or, with `WARM`, from the last supports) and advance
    /// in lockstep; otherwise each starts where [`climb_start`] says. Monomorphised so that
    /// small hulls (cubes: every instruction counts) pay for neither test.
    #[inline(always)]
    fn support_with<const P: bool, const WARM: bool>(&self, d: DVec3, cache: &mut GjkCache) -> SVert {
        let db = self.rot_t * (-d);
        let (ia, ib) = if P {
            let (sa, sb) = if WARM {
                (cache.warm_a, cache.warm_b)
            } else {
                (self.a.hint_start(d), self.b.hint_start(db))
            };
            self.a.support_climb_pair(d, sa, self.b, db, sb)
        } else {
            (
                self.a.support_climb(d, climb_start(self.a, d, cache.warm_a)),
                self.b.support_climb(db, climb_start(self.b, db, cache.warm_b)),
            )
        };
        cache.warm_a = ia;
        cache.warm_b = ib;
        self.vert(ia, ib)
    }
    /// The vertex of `M` maximising `d · x`.
    #[inline]
    fn support(&self, d: DVec3, cache: &mut GjkCache) -> SVert {
        if self.paired {
            self.support_with::<true, false>(d, cache)
        } else {
            self.support_with::<false, false>(d, cache)
        }
    }
    /// The vertex of `M` maximising `d · x`, the climbs started from the best of the given
    /// Minkowski vertices (supports for nearby directions: a short climb) instead of the last
    /// support, which may lie across the hull.
    #[inline]
    fn support_near(&self, d: DVec3, near: &[SVert], cache: &mut GjkCache) -> SVert {
        let mut best_a = (f64::NEG_INFINITY, cache.warm_a);
        let mut best_b = (f64::INFINITY, cache.warm_b);
        // B's side in B's frame (the translation shifts every candidate alike).
        let db_local = self.rot_t * d;
        for s in near {
            let da = d.dot(self.a.vertex(s.ia));
            if da > best_a.0 {
                best_a = (da, s.ia);
            }
            let db = db_local.dot(self.b.vertex(s.ib));
            if db < best_b.0 {
                best_b = (db, s.ib);
            }
        }
        cache.warm_a = best_a.1;
        cache.warm_b = best_b.1;
        self.support(d, cache)
    }
    fn valid(&self, ia: u32, ib: u32) -> bool {
        (ia as usize) < self.a.vertices().len() && (ib as usize) < self.b.vertices().len()
    }
}

/// Where a support climb along `d` starts: the direction table's vertex (within a cell of the
/// support) on hulls that have the table, the last support on small hulls (whose supports are
/// scans that keep the start on ties). The last support is not compared against the table's
/// vertex: measured (callgrind, random 1 000-vertex pairs) the comparison cost more than the
/// climbs it shortened (separated 8 972 → 8 754 instructions per query without it,
/// overlapping 67.7k → 66.6k).
#[inline]
fn climb_start(p: &ConvexPolyhedron, d: DVec3, warm: u32) -> u32 {
    if p.vertices().len() <= crate::shape::support::SMALL_SCAN {
        warm
    } else {
        p.hint_start(d)
    }
}

// ---------------------------------------------------------------------------------------------
// Sub-algorithm
// ---------------------------------------------------------------------------------------------

/// Projection of the origin on segment `p0 p1` if it falls strictly inside: (λ0, λ1, point).
#[inline]
fn seg_candidate(p0: DVec3, p1: DVec3) -> Option<([f64; 2], DVec3)> {
    let e = p1 - p0;
    let ee = e.length_squared();
    if !(ee > 0.0) {
        return None;
    }
    let t = -p0.dot(e) / ee;
    if !(t > 0.0 && t < 1.0) {
        return None;
    }
    Some(([1.0 - t, t], p0 + e * t))
}

/// The origin's foot `q` on the plane of triangle `p0 p1 p2` with its unnormalised
/// barycentric coordinates (cross products relative to `q`, along `n = (p1 − p0) × (p2 − p0)`)
/// and `|n|²`; `None` for a degenerate triangle.
#[inline]
fn tri_foot(p0: DVec3, p1: DVec3, p2: DVec3) -> Option<([f64; 3], f64, DVec3)> {
    tri_foot_n(p0, p1, p2, (p1 - p0).cross(p2 - p0))
}

/// [`tri_foot`] with the normal `n = (p1 − p0) × (p2 − p0)` already computed.
#[inline]
fn tri_foot_n(p0: DVec3, p1: DVec3, p2: DVec3, n: DVec3) -> Option<([f64; 3], f64, DVec3)> {
    let nn = n.length_squared();
    if !(nn > 0.0) || !nn.is_finite() {
        return None;
    }
    let q = n * (n.dot(p0) / nn);
    let (a, b, c) = (p0 - q, p1 - q, p2 - q);
    Some(([n.dot(b.cross(c)), n.dot(c.cross(a)), n.dot(a.cross(b))], nn, q))
}

/// The foot of [`tri_foot`] as a candidate when it falls strictly inside the triangle.
#[inline]
fn tri_strict(l: [f64; 3], q: DVec3) -> Option<([f64; 3], DVec3)> {
    let [l0, l1, l2] = l;
    if !(l0 > 0.0 && l1 > 0.0 && l2 > 0.0) {
        return None;
    }
    let s = l0 + l1 + l2;
    Some(([l0 / s, l1 / s, l2 / s], q))
}

/// Projection of the origin on triangle `p0 p1 p2` if it falls strictly inside.
#[inline]
fn tri_candidate(p0: DVec3, p1: DVec3, p2: DVec3) -> Option<([f64; 3], DVec3)> {
    let (l, _, q) = tri_foot(p0, p1, p2)?;
    tri_strict(l, q)
}

/// The foot of [`tri_foot`] as a candidate when it lies inside the triangle up to rounding
/// (every barycentric weight ≥ −[`WEIGHT_TIE`]); weights clamped to ≥ 0.
fn tri_tied(l: [f64; 3], nn: f64, q: DVec3) -> Option<([f64; 3], DVec3)> {
    let l = [l[0] / nn, l[1] / nn, l[2] / nn];
    if !l.iter().all(|x| *x >= -WEIGHT_TIE) {
        return None;
    }
    let l = [l[0].max(0.0), l[1].max(0.0), l[2].max(0.0)];
    let s = l[0] + l[1] + l[2];
    if !(s > 0.0) {
        return None;
    }
    Some(([l[0] / s, l[1] / s, l[2] / s], q))
}

/// Barycentric coordinates of the origin in tetrahedron `p`, if strictly inside.
#[inline]
fn tet_candidate(p: &[DVec3; 4]) -> Option<[f64; 4]> {
    let det = (p[1] - p[0]).dot((p[2] - p[0]).cross(p[3] - p[0]));
    if !(det != 0.0) || !det.is_finite() {
        return None;
    }
    // Volume with the origin in place of p[i].
    let v0 = (p[1]).dot(p[2].cross(p[3]));
    let v1 = -(p[0]).dot(p[2].cross(p[3]));
    let v2 = (p[0]).dot(p[1].cross(p[3]));
    let v3 = -(p[0]).dot(p[1].cross(p[2]));
    let l = [v0 / det, v1 / det, v2 / det, v3 / det];
    if l.iter().all(|x| *x > 0.0) {
        let s: f64 = l.iter().sum();
        Some([l[0] / s, l[1] / s, l[2] / s, l[3] / s])
    } else {
        None
    }
}

/// Nearest point of the simplex hull to the origin; reduces the simplex to the supporting face
/// and sets the weights. Returns (v, enclosed): `enclosed` when a tetrahedron strictly contains
/// the origin (then v = 0 and the simplex is kept whole).
fn solve(s: &mut Simplex) -> (DVec3, bool) {
    solve_with(s, false)
}

/// [`solve`], optionally restricted to the faces that contain the newest point (the last one):
/// after a support step the nearest point must lie on such a face (exact arithmetic), which
/// halves the work; a rounding-induced increase of `|v|` is caught by the caller's stall test.
#[allow(clippy::needless_range_loop)]
fn solve_with(s: &mut Simplex, newest_only: bool) -> (DVec3, bool) {
    let n = s.n;
    let p = [s.v[0].w, s.v[1].w, s.v[2].w, s.v[3].w];
    if n == 4 {
        if let Some(l) = tet_candidate(&p) {
            s.lam = l;
            return (DVec3::ZERO, true);
        }
    }
    // The full simplex's (or, for a tetrahedron, a face's) own candidate, when it exists, is
    // the nearest point outright: a projection strictly inside a segment or triangle is its
    // nearest point, and one strictly inside a tetrahedron face the origin sees is the
    // tetrahedron's (the tetrahedron lies behind that face's plane). This settles the common
    // step without the subset enumeration below, which it would pick anyway up to rounding.
    // Subsets whose candidate was computed (and failed) above, by mask bit: the enumeration
    // below skips them (it would compute the same failing candidate again).
    let mut tried = 0u32;
    match n {
        2 => {
            tried |= 1 << 0b11;
            if let Some((l, q)) = seg_candidate(p[0], p[1]) {
                s.lam = [l[0], l[1], 0.0, 0.0];
                return (refine(s, q), false);
            }
        }
        3 => {
            tried |= 1 << 0b111;
            let foot = tri_foot(p[0], p[1], p[2]);
            if let Some((l, q)) = foot.and_then(|(l, _, q)| tri_strict(l, q)) {
                s.lam = [l[0], l[1], l[2], 0.0];
                return (refine(s, q), false);
            }
            // A foot point on the triangle's boundary up to rounding
            // (a weight of −WEIGHT_TIE or more) is taken on the triangle too: near contact the
            // nearest point of `M` may be a vertex or edge a hair from the origin, whose own
            // direction is only as good as the coordinates' rounding, while the triangle's
            // plane gives the exact normal (kissing cubes in rotated frames stalled without it).
            if let Some((l, q)) = foot.and_then(|(l, nn, q)| tri_tied(l, nn, q)) {
                s.lam = [l[0], l[1], l[2], 0.0];
                return (refine(s, q), false);
            }
        }
        4 => {
            // Faces with the newest point (index 3) when restricted, else all four; `r` is
            // the opposite vertex.
            const FACES: [([usize; 3], usize); 4] = [([0, 1, 3], 2), ([1, 2, 3], 0), ([2, 0, 3], 1), ([0, 1, 2], 3)];
            let count = if newest_only { 3 } else { 4 };
            for &(f, r) in &FACES[..count] {
                let (a, b, c) = (p[f[0]], p[f[1]], p[f[2]]);
                let nrm = (b - a).cross(c - a);
                let side_o = nrm.dot(a);
                let side_r = nrm.dot(p[r] - a);
                // Visible: the origin (at −side_o) and `r` strictly on opposite sides.
                if !(side_o * side_r > 0.0) {
                    continue;
                }
                // Same vertex order as the enumeration's (ascending) only: another order
                // may round differently at the triangle's border.
                if f[0] < f[1] && f[1] < f[2] {
                    tried |= 1 << ((1u32 << f[0]) | (1 << f[1]) | (1 << f[2]));
                }
                if let Some((l, q)) = tri_foot_n(a, b, c, nrm).and_then(|(l, _, q)| tri_strict(l, q)) {
                    let out = Simplex {
                        v: [s.v[f[0]], s.v[f[1]], s.v[f[2]], SVert::default()],
                        lam: [l[0], l[1], l[2], 0.0],
                        n: 3,
                    };
                    *s = out;
                    return (refine(s, q), false);
                }
            }
        }
        _ => {}
    }
    let first = if newest_only && n > 0 { n - 1 } else { 0 };
    let mut best_mask = 1u32 << first;
    let mut best_lam = [0.0; 4];
    best_lam[first] = 1.0;
    let mut best_v = p[first];
    let mut best_d = p[first].length_squared();
    let mut best_k = 1usize;
    let full = 1u32 << n;
    for &(mask, sel, k) in &SUBSETS[..(full - 1) as usize] {
        if newest_only && mask & (1 << (n - 1)) == 0 || tried & (1 << mask) != 0 {
            continue;
        }
        let cand: Option<([f64; 4], DVec3)> = match k {
            1 => {
                let mut l = [0.0; 4];
                l[sel[0]] = 1.0;
                Some((l, p[sel[0]]))
            }
            2 => seg_candidate(p[sel[0]], p[sel[1]]).map(|(lam, q)| {
                let mut l = [0.0; 4];
                l[sel[0]] = lam[0];
                l[sel[1]] = lam[1];
                (l, q)
            }),
            3 => tri_candidate(p[sel[0]], p[sel[1]], p[sel[2]]).map(|(lam, q)| {
                let mut l = [0.0; 4];
                l[sel[0]] = lam[0];
                l[sel[1]] = lam[1];
                l[sel[2]] = lam[2];
                (l, q)
            }),
            _ => None,
        };
        if let Some((l, q)) = cand {
            let d = q.length_squared();
            // Within rounding of the best, the larger face wins: it carries the direction
            // change that lets the next support make progress.
            let slack = 16.0 * f64::EPSILON * best_d;
            let newest = mask & (1 << (n - 1)) != 0;
            let rank = (newest as usize) * 8 + k;
            if d < best_d - slack || (d <= best_d + slack && rank > best_k) {
                best_k = rank;
                best_d = d;
                best_v = q;
                best_lam = l;
                best_mask = mask;
            }
        }
    }
    // Reduce.
    let mut out = Simplex::default();
    for i in 0..n {
        if best_mask & (1 << i) != 0 {
            out.v[out.n] = s.v[i];
            out.lam[out.n] = best_lam[i];
            out.n += 1;
        }
    }
    *s = out;
    (refine(s, best_v), false)
}

/// The non-empty subsets of four simplex points in ascending mask order: (mask, the points'
/// indices in ascending order, their count); those of `n` points are the first `2ⁿ − 1`.
const SUBSETS: [(u32, [usize; 4], usize); 15] = [
    (1, [0, 0, 0, 0], 1),
    (2, [1, 0, 0, 0], 1),
    (3, [0, 1, 0, 0], 2),
    (4, [2, 0, 0, 0], 1),
    (5, [0, 2, 0, 0], 2),
    (6, [1, 2, 0, 0], 2),
    (7, [0, 1, 2, 0], 3),
    (8, [3, 0, 0, 0], 1),
    (9, [0, 3, 0, 0], 2),
    (10, [1, 3, 0, 0], 2),
    (11, [0, 1, 3, 0], 3),
    (12, [2, 3, 0, 0], 2),
    (13, [0, 2, 3, 0], 3),
    (14, [1, 2, 3, 0], 3),
    (15, [0, 1, 2, 3], 4),
];

/// One step of iterative refinement of the simplex's nearest point (see
/// [`crate::core::geometry::refine_nearest`]).
fn refine(s: &Simplex, v: DVec3) -> DVec3 {
    crate::core::geometry::refine_nearest(&[s.v[0].w, s.v[1].w, s.v[2].w], s.n, v)
}

// ---------------------------------------------------------------------------------------------
// GJK core
// ---------------------------------------------------------------------------------------------

enum Core {
    /// Converged: `v` is the nearest point of `M` (within the gap), `sup` the last support.
    Separated {
        sim: Simplex,
        v: DVec3,
        sup: SVert,
        iters: u32,
    },
    /// Boolean early exit: `v · sup.w > tol · |v|`.
    Disjoint {
        v: DVec3,
        sup: SVert,
        iters: u32,
    },
    /// A tetrahedron strictly encloses the origin.
    Enclosed {
        sim: Simplex,
        iters: u32,
    },
    /// The origin is on (or within rounding of) the simplex: touching or overlapping.
    Contact {
        sim: Simplex,
        iters: u32,
    },
    NotConverged {
        iters: u32,
    },
}

fn gjk_core(ctx: &Ctx, cache: &mut GjkCache, boolean: bool) -> Core {
    if ctx.paired {
        gjk_loop::<true>(ctx, cache, boolean)
    } else {
        gjk_loop::<false>(ctx, cache, boolean)
    }
}

/// [`gjk_core`] with `P = ctx.paired` (see [`Ctx::support_with`]).
fn gjk_loop<const P: bool>(ctx: &Ctx, cache: &mut GjkCache, boolean: bool) -> Core {
    let gap = DISTANCE_GAP_REL * ctx.scale;
    let accept = ACCEPT_GAP_REL * ctx.scale;
    let mut sim = Simplex::default();
    if let Some(q) = cache.last_rel {
        // Rotation angle ≈ 2·√(2(1 − |q·q'|)) (small angles; larger ones only need to exceed
        // the threshold).
        let turn = 2.0 * (2.0 * (1.0 - q.dot(ctx.quat).abs()).max(0.0)).sqrt();
        let n = ctx.a.vertices().len().max(ctx.b.vertices().len()).max(1) as f64;
        let limit = STALE_TURN_REL * (4.0 * std::f64::consts::PI / n).sqrt();
        if !(turn <= limit) {
            cache.len = 0;
            cache.epa_len = 0;
        }
    }
    cache.last_rel = Some(ctx.quat);
    for k in 0..(cache.len as usize).min(4) {
        let (ia, ib) = cache.pairs[k];
        if ctx.valid(ia, ib) && !sim.contains(ia, ib) {
            sim.push(ctx.vert(ia, ib));
        }
    }
    if !ctx.valid(cache.warm_a, cache.warm_b) {
        cache.warm_a = 0;
        cache.warm_b = 0;
    }
    if sim.n == 0 {
        // Cold start: the support of M towards the origin from the centre of M.
        let d0 = ctx.a.bounding_sphere().0 - (ctx.rot * ctx.b.bounding_sphere().0 + ctx.trans);
        let s0 = if d0.length_squared() > 0.0 {
            // The first (longest) climbs start from the direction table's vertex (the warm
            // vertices of a forgotten cache are arbitrary).
            ctx.support_with::<P, false>(-d0, cache)
        } else {
            ctx.vert(cache.warm_a, cache.warm_b)
        };
        sim.push(s0);
    }
    let (mut v, enc) = solve(&mut sim);
    if enc {
        cache.store(&sim);
        return Core::Enclosed { sim, iters: 0 };
    }
    let mut result = Core::NotConverged { iters: ctx.max_iter };
    let mut flat = 0u32;
    let mut vprev = DVec3::ZERO;
    for it in 1..=ctx.max_iter {
        let vv = v.length_squared();
        if vv == 0.0 {
            result = Core::Contact { sim, iters: it };
            break;
        }
        let vlen = vv.sqrt();
        // Once `v` has settled (turned by less than `acos WARM_COS` since the last step) the
        // last supports are a step or two from the new ones: the climbs start there, without
        // the direction table's lookup.
        let sup = if P {
            let dp = v.dot(vprev);
            let settled = dp > 0.0 && dp * dp >= WARM_COS * WARM_COS * vv * vprev.length_squared();
            vprev = v;
            if settled {
                ctx.support_with::<true, true>(-v, cache)
            } else {
                ctx.support_with::<true, false>(-v, cache)
            }
        } else {
            ctx.support_with::<false, false>(-v, cache)
        };
        let vw = v.dot(sup.w);
        if boolean && vw > ctx.tol * vlen {
            // The simplex whose nearest point gave the separating direction is the next
            // query's start: after a small motion it gives a separating direction again, one
            // support step (without it the next query restarted from the last distance answer's
            // simplex, or cold).
            cache.store(&sim);
            result = Core::Disjoint { v, sup, iters: it };
            break;
        }
        let slack = vv - vw;
        if slack <= gap * vlen {
            result = Core::Separated { sim, v, sup, iters: it };
            break;
        }
        if sim.contains(sup.ia, sup.ib) {
            // Cameron's repeated-vertex test: in exact arithmetic `w` in the simplex means
            // `v·w ≥ |v|²`, i.e. `v` is optimal; here the support gap must confirm it.
            result = stall(sim, v, sup, slack, vlen, accept, ctx.tol, it);
            break;
        }
        let prev = sim;
        sim.push(sup);
        let (nv, enc) = solve_with(&mut sim, true);
        if enc {
            result = Core::Enclosed { sim, iters: it };
            break;
        }
        // Rounding can hide a real (sub-ulp) decrease of |v| while v's direction still moves:
        // equal norms are accepted a bounded number of times in a row.
        let nvv = nv.length_squared();
        // Rounding of `|v|²`: relative to `|v|²`, plus that of a norm computed from the
        // simplex's coordinates (a few ulps of them times `|v|`), which dominates near contact.
        let mag = (0..sim.n).fold(0.0f64, |m, k| m.max(sim.v[k].w.abs().max_element()));
        let ulps = 16.0 * f64::EPSILON * (vv + 4.0 * mag * vlen);
        let is_flat = nvv >= vv - ulps;
        if nvv > vv + ulps || (is_flat && flat >= MAX_FLAT_STEPS) || nv == v {
            result = stall(prev, v, sup, slack, vlen, accept, ctx.tol, it);
            break;
        }
        flat = if is_flat { flat + 1 } else { 0 };
        v = nv;
    }
    match &result {
        Core::Separated { sim, .. } | Core::Enclosed { sim, .. } | Core::Contact { sim, .. } => cache.store(sim),
        _ => {}
    }
    result
}

#[allow(clippy::too_many_arguments)]
fn stall(sim: Simplex, v: DVec3, sup: SVert, slack: f64, vlen: f64, accept: f64, tol: f64, it: u32) -> Core {
    if slack <= accept * vlen {
        Core::Separated { sim, v, sup, iters: it }
    } else if vlen <= tol {
        Core::Contact { sim, iters: it }
    } else {
        Core::NotConverged { iters: it }
    }
}

// ---------------------------------------------------------------------------------------------
// Features from a simplex
// ---------------------------------------------------------------------------------------------

/// The feature of `p` spanned by the simplex's ids of positive weight; when they span no
/// single feature (rounding-level weights on a vertex off the contact, e.g. a tetrahedron
/// around a touching origin) the feature holding `local` (the witness point, `p`'s frame).
fn feature_of(p: &ConvexPolyhedron, ids: &[u32], weights: &[f64], local: impl FnOnce() -> DVec3) -> Feature {
    // Distinct ids with positive weight.
    let mut uniq = [0u32; 4];
    let mut n = 0usize;
    for (k, &id) in ids.iter().enumerate() {
        let wk = weights.get(k).copied().unwrap_or(0.0);
        if !(wk > 0.0) {
            continue;
        }
        if !uniq[..n].contains(&id) && n < 4 {
            uniq[n] = id;
            n += 1;
        }
    }
    if n == 0 {
        return Feature::Vertex(ids.first().copied().unwrap_or(0));
    }
    if n == 1 {
        return Feature::Vertex(uniq[0]);
    }
    let (u, w) = (uniq[0], uniq[1]);
    if let Some(k) = p.neighbors(u).iter().position(|&x| x == w) {
        if let Some(&h) = p.outgoing(u).get(k) {
            let he = p.half_edge(h);
            if n == 2 {
                return Feature::Edge(he.edge);
            }
            // A face holding u and w holds the edge u–w on its boundary (an edge of the
            // polytope is no diagonal of a face): only the edge's two faces can hold them all.
            for f in [he.face, p.half_edge(he.twin).face] {
                let fv = p.face_vertices(f);
                if uniq[1..n].iter().all(|x| fv.contains(x)) {
                    return Feature::Face(f);
                }
            }
            return p.feature_at(local());
        }
    }
    // A face containing all of them.
    for &h in p.outgoing(uniq[0]) {
        let f = p.half_edge(h).face;
        let fv = p.face_vertices(f);
        if uniq[1..n].iter().all(|x| fv.contains(x)) {
            return Feature::Face(f);
        }
    }
    p.feature_at(local())
}

/// The closest features from the simplex's ids; `(qa, qb)` are its points (A's frame), used
/// only when the ids span no single feature.
fn features_of(ctx: &Ctx, sim: &Simplex, qa: DVec3, qb: DVec3) -> FeaturePair {
    let (a, b) = (ctx.a, ctx.b);
    let mut ia = [0u32; 4];
    let mut ib = [0u32; 4];
    for k in 0..sim.n {
        ia[k] = sim.v[k].ia;
        ib[k] = sim.v[k].ib;
    }
    FeaturePair {
        a: feature_of(a, &ia[..sim.n], &sim.lam[..sim.n], || qa),
        b: feature_of(b, &ib[..sim.n], &sim.lam[..sim.n], || ctx.rot_t * (qb - ctx.trans)),
    }
}

/// Separating plane (world) for a local direction `n` from A towards B, with A's and B's
/// supports: offset midway between max over A and min over B.
fn plane_between(ctx: &Ctx, pa: &Pose, n: DVec3, cache: &mut GjkCache) -> Plane {
    let s = ctx.support(n, cache);
    let hi_a = n.dot(ctx.pa(&s));
    let lo_b = n.dot(ctx.pb(&s));
    Plane {
        normal: n,
        offset: 0.5 * (hi_a + lo_b),
    }
    .transformed(pa)
}

// ---------------------------------------------------------------------------------------------
// EPA
// ---------------------------------------------------------------------------------------------

struct EpaOut {
    depth: f64,
    normal: DVec3,
    pa: DVec3,
    pb: DVec3,
    seed: Simplex,
    iters: u32,
    /// The vertex pairs of the triangle the answer's points come from (the next run's warm
    /// start, see [`GjkCache::epa_face`]).
    face: [(u32, u32); 3],
}

#[inline(always)]
fn make_face(verts: &[SVert], i: u32, j: u32, k: u32) -> Option<EpaFace> {
    let (a, b, c) = (verts[i as usize].w, verts[j as usize].w, verts[k as usize].w);
    let n = (b - a).cross(c - a);
    let len = n.length();
    if !(len > 0.0) || !len.is_finite() {
        return None;
    }
    let n = n / len;
    Some(EpaFace {
        v: [i, j, k],
        adj: [u32::MAX; 3],
        n,
        d: n.dot(a).max(n.dot(b)).max(n.dot(c)),
        alive: true,
    })
}

/// The first index of the least entry of `dist` below +∞ (`None` when there is none): the
/// same as a scan keeping the first strict improvement, done in one pass over four lanes
/// (entry `i` in lane `i mod 4`, each lane keeping its first least entry by a branch-free
/// select), the lanes' winners then compared by value and, on ties, by index. A second scan
/// for the index of the minimum was measured to cost a seventh of EPA's loop (its exit
/// branch mispredicts on every iteration).
#[inline]
fn first_least(dist: &[f64]) -> Option<usize> {
    let mut m = [f64::INFINITY; 4];
    let mut at = [usize::MAX; 4];
    let chunks = dist.chunks_exact(4);
    let tail = chunks.remainder();
    let full = dist.len() - tail.len();
    for (c, chunk) in chunks.enumerate() {
        for k in 0..4 {
            let better = chunk[k] < m[k];
            m[k] = if better { chunk[k] } else { m[k] };
            at[k] = if better { 4 * c + k } else { at[k] };
        }
    }
    for (k, &d) in tail.iter().enumerate() {
        let better = d < m[k];
        m[k] = if better { d } else { m[k] };
        at[k] = if better { full + k } else { at[k] };
    }
    let mut best = (m[0], at[0]);
    for k in 1..4 {
        if m[k] < best.0 || (m[k] == best.0 && at[k] < best.1) {
            best = (m[k], at[k]);
        }
    }
    if !(best.0 < f64::INFINITY) {
        return None;
    }
    Some(best.1)
}

/// Normalised barycentric coordinates (possibly negative) of the origin's foot on face `f`.
fn face_bary(verts: &[SVert], f: &EpaFace) -> [f64; 3] {
    let q = f.n * f.d;
    let (x, y, z) = (
        verts[f.v[0] as usize].w - q,
        verts[f.v[1] as usize].w - q,
        verts[f.v[2] as usize].w - q,
    );
    let l = [f.n.dot(y.cross(z)), f.n.dot(z.cross(x)), f.n.dot(x.cross(y))];
    let s = l[0] + l[1] + l[2];
    if s > 0.0 {
        [l[0] / s, l[1] / s, l[2] / s]
    } else {
        [1.0, 0.0, 0.0]
    }
}

/// Blows a simplex (origin in or near its hull) up to a tetrahedron of `M` vertices.
fn blow_up(ctx: &Ctx, cache: &mut GjkCache, seed: &Simplex) -> Option<[SVert; 4]> {
    let mut s = [SVert::default(); 4];
    let mut n = 0;
    for k in 0..seed.n {
        if !s[..n].iter().any(|x| x.ia == seed.v[k].ia && x.ib == seed.v[k].ib) {
            s[n] = seed.v[k];
            n += 1;
        }
    }
    if n == 0 {
        s[0] = ctx.support(DVec3::X, cache);
        n = 1;
    }
    let axes = [DVec3::X, DVec3::Y, DVec3::Z, -DVec3::X, -DVec3::Y, -DVec3::Z];
    if n == 1 {
        let mut best = (0.0, s[0]);
        for d in axes {
            let w = ctx.support(d, cache);
            let l = (w.w - s[0].w).length_squared();
            if l > best.0 {
                best = (l, w);
            }
        }
        if !(best.0 > 0.0) {
            return None;
        }
        s[1] = best.1;
        n = 2;
    }
    if n == 2 {
        let e = s[1].w - s[0].w;
        let ea = e.abs();
        let axis = if ea.x <= ea.y && ea.x <= ea.z {
            DVec3::X
        } else if ea.y <= ea.z {
            DVec3::Y
        } else {
            DVec3::Z
        };
        let d1 = e.cross(axis).normalize_or_zero();
        let d2 = e.cross(d1).normalize_or_zero();
        let dirs = [d1, -d1, d2, -d2, d1 + d2, -d1 - d2, d1 - d2, d2 - d1];
        let mut best = (0.0, s[0]);
        for d in dirs {
            let w = ctx.support(d, cache);
            let l = (w.w - s[0].w).cross(e).length_squared();
            if l > best.0 {
                best = (l, w);
            }
        }
        if !(best.0 > 0.0) {
            return None;
        }
        s[2] = best.1;
        n = 3;
    }
    if n == 3 {
        let nrm = (s[1].w - s[0].w).cross(s[2].w - s[0].w);
        if !(nrm.length_squared() > 0.0) {
            return None;
        }
        let nrm = nrm.normalize();
        let h0 = -nrm.dot(s[0].w); // origin's height above the plane
        let up = ctx.support(nrm, cache);
        let dn = ctx.support(-nrm, cache);
        let hu = nrm.dot(up.w - s[0].w);
        let hd = nrm.dot(dn.w - s[0].w);
        // Prefer the side of the origin when that tetrahedron contains it and is not a
        // sliver; otherwise the taller side (the origin is then on or near the triangle).
        let (tall, short, ht, hs) = if hu.abs() >= hd.abs() {
            (up, dn, hu, hd)
        } else {
            (dn, up, hd, hu)
        };
        let origin_side_ok = |h: f64| h0 != 0.0 && h.signum() == h0.signum() && h.abs() >= h0.abs();
        let pick = if origin_side_ok(hs) && hs.abs() >= SLIVER_HEIGHT_RATIO * ht.abs() {
            short
        } else {
            tall
        };
        if !(nrm.dot(pick.w - s[0].w).abs() > f64::EPSILON * ctx.scale) {
            return None;
        }
        s[3] = pick;
    }
    Some(s)
}

fn epa(ctx: &Ctx, cache: &mut GjkCache, seed: &Simplex) -> Option<EpaOut> {
    let tet = blow_up(ctx, cache, seed)?;
    let gap = DISTANCE_GAP_REL * ctx.scale;
    let mut bufs = cache.epa.take().unwrap_or_default();
    bufs.clear();
    // One allocation of a typical final size instead of repeated doubling (cold caches).
    bufs.verts.reserve(EPA_RESERVE);
    bufs.keys.reserve(EPA_RESERVE);
    bufs.mark.reserve(EPA_RESERVE);
    bufs.faces.reserve(2 * EPA_RESERVE);
    bufs.stack.reserve(EPA_RESERVE);
    bufs.horizon.reserve(EPA_RESERVE);
    bufs.dist.reserve(2 * EPA_RESERVE);
    // Supports climbed from the direction table's start ([`climb_start`]); should that run
    // fail (degenerate, near-flat `M`, where ties among maximisers matter), a run whose climbs
    // also consider the expanded face's own vertices (other picks among tied maximisers)
    // decides before the slow fallback. The face's vertices were the first
    // choice once: measured (callgrind, n = 1 000 ellipsoids, overlapping), they cost more
    // than they save (70.6k → 69.7k instructions per query without them; 85.7k with them
    // alone, no table).
    //
    // A cache holding the face of the pair's last EPA answer starts from it (`warm`); should
    // that run fail, the cold run follows, then the retry above.
    let (wa, wb) = (cache.warm_a, cache.warm_b);
    let warm = cache.epa_len == 3;
    let mut out = epa_run(ctx, cache, &tet, gap, false, warm, &mut bufs);
    if out.is_none() && warm {
        cache.warm_a = wa;
        cache.warm_b = wb;
        bufs.clear();
        out = epa_run(ctx, cache, &tet, gap, false, false, &mut bufs);
    }
    if out.is_none() {
        cache.warm_a = wa;
        cache.warm_b = wb;
        bufs.clear();
        out = epa_run(ctx, cache, &tet, gap, true, false, &mut bufs);
    }
    cache.epa = Some(bufs);
    if out.is_none() {
        out = epa_by_hulls(ctx, cache, &tet, gap);
    }
    match &out {
        Some(e) => {
            cache.epa_face = e.face;
            cache.epa_len = 3;
        }
        None => cache.epa_len = 0,
    }
    out
}

/// Bound on the support points the fallback EPA collects.
const HULL_EPA_MAX_POINTS: usize = 256;

/// EPA's fallback when the incremental polytope fails (symmetric shapes put many Minkowski
/// vertices on common planes and lines, where its horizon walk can break): the same
/// expansion, but each step rebuilds the hull of the collected support points with the
/// robust hull (exact predicates, coplanar faces merged). Rare, so its allocations and its
/// O(k log k) rebuilds do not matter. Bounded by [`HULL_EPA_MAX_POINTS`] support points.
fn epa_by_hulls(ctx: &Ctx, cache: &mut GjkCache, tet: &[SVert; 4], gap: f64) -> Option<EpaOut> {
    let mut pts: Vec<SVert> = tet.to_vec();
    let mut seed = Simplex::default();
    for s in tet {
        seed.push(*s);
    }
    let mut iters = 0u32;
    loop {
        iters += 1;
        let ws: Vec<DVec3> = pts.iter().map(|p| p.w).collect();
        let hull = ConvexPolyhedron::from_points(&ws).ok()?;
        // The face nearest the origin (the origin is inside: offsets ≥ −rounding).
        let mut best = (f64::INFINITY, 0u32);
        for f in 0..hull.faces().len() as u32 {
            let d = hull.face(f).offset;
            if d < best.0 {
                best = (d, f);
            }
        }
        if !(best.0 >= -gap) {
            return None;
        }
        let face = *hull.face(best.1);
        let n = face.normal;
        let w = ctx.support(n, cache);
        let upper = n.dot(w.w);
        let present = pts.iter().any(|p| p.ia == w.ia && p.ib == w.ib);
        if upper - face.offset <= gap || present || pts.len() >= HULL_EPA_MAX_POINTS {
            if upper - face.offset > ACCEPT_GAP_REL * ctx.scale && !present {
                return None;
            }
            // The origin's foot on the face, in a fan triangle of the (convex) face polygon.
            let foot = n * face.offset;
            let ids: Vec<u32> = hull.face_vertices(best.1).to_vec();
            let src = hull.source_indices();
            let sv = |v: u32| src.get(v as usize).and_then(|&i| pts.get(i as usize)).copied();
            let mut pick: Option<(f64, [f64; 3], [SVert; 3])> = None;
            for k in 1..ids.len().saturating_sub(1) {
                let (a, b, c) = (sv(ids[0])?, sv(ids[k])?, sv(ids[k + 1])?);
                let (x, y, z) = (a.w - foot, b.w - foot, c.w - foot);
                let l = [n.dot(y.cross(z)), n.dot(z.cross(x)), n.dot(x.cross(y))];
                let sum = l[0] + l[1] + l[2];
                if !(sum > 0.0) {
                    continue;
                }
                let l = [l[0] / sum, l[1] / sum, l[2] / sum];
                let m = l[0].min(l[1]).min(l[2]);
                if pick.as_ref().is_none_or(|p| m > p.0) {
                    pick = Some((m, l, [a, b, c]));
                }
            }
            let (_, l, [a, b, c]) = pick?;
            let l = [l[0].max(0.0), l[1].max(0.0), l[2].max(0.0)];
            let s = l[0] + l[1] + l[2];
            let l = [l[0] / s, l[1] / s, l[2] / s];
            return Some(EpaOut {
                depth: face.offset.max(0.0),
                normal: n,
                pa: ctx.pa(&a) * l[0] + ctx.pa(&b) * l[1] + ctx.pa(&c) * l[2],
                pb: ctx.pb(&a) * l[0] + ctx.pb(&b) * l[1] + ctx.pb(&c) * l[2],
                seed,
                iters,
                face: [(a.ia, a.ib), (b.ia, b.ib), (c.ia, c.ib)],
            });
        }
        pts.push(w);
    }
}

/// `(e + 1) mod 3` for a triangle's edge or corner index `e`.
const NEXT3: [usize; 3] = [1, 2, 0];

/// Adds the Minkowski vertex `w` (key `wk`) to the polytope: removes the faces visible from
/// it, starting at face `best` (which must see it), and fans new faces from the horizon to
/// it. `stamp` is unique per call (the simple-loop test marks vertices with it). `None`: the
/// step would corrupt the polytope (a horizon that is not one simple loop, a new face the
/// interior point lies beyond, a degenerate face).
fn expand(p: &mut EpaBufs, best: usize, w: SVert, wk: u64, stamp: u32, interior: DVec3) -> Option<()> {
    let EpaBufs {
        verts,
        keys,
        mark,
        faces,
        stack,
        horizon,
        dist,
    } = p;
    // Remove the faces visible from w and walk the horizon depth-first from the expanded
    // face's edges (van den Bergen's silhouette): the edges of the live faces met come out in
    // order around the visible region, each as (face, edge of it).
    let wi = verts.len() as u32;
    verts.push(w);
    keys.push(wk);
    mark.push(0);
    faces[best].alive = false;
    dist[best] = f64::INFINITY;
    stack.clear();
    horizon.clear();
    for e in (0..3u8).rev() {
        stack.push((best as u32, e));
    }
    // Each entry: (dead face, edge of it) whose neighbour across the edge is to be examined.
    let mut guard = 0usize;
    while let Some((g, e)) = stack.pop() {
        guard += 1;
        if guard > 4 * faces.len() + 16 {
            return None;
        }
        let nb = faces[g as usize].adj[e as usize] as usize;
        let h = faces.get(nb)?;
        if !h.alive {
            continue;
        }
        // The edge of the neighbour leading back to g.
        let j = if h.adj[0] == g {
            0u8
        } else if h.adj[1] == g {
            1
        } else if h.adj[2] == g {
            2
        } else {
            return None;
        };
        if h.n.dot(w.w - verts[h.v[0] as usize].w) > 0.0 {
            faces[nb].alive = false;
            dist[nb] = f64::INFINITY;
            // Its other two edges, in order after the entry edge.
            stack.push((nb as u32, (j + 2) % 3));
            stack.push((nb as u32, (j + 1) % 3));
        } else {
            horizon.push((nb as u32, j));
        }
    }
    if horizon.len() < 3 {
        return None;
    }
    // The horizon must be one simple loop: consecutive edges chain (each starts where the
    // previous one ends, cyclically) and no vertex starts two edges. A visible region with a
    // hole (a face coplanar with `w` within rounding, common on symmetric shapes) gives
    // two loops; linking them would corrupt the polytope.
    let hn = horizon.len();
    let mut prev = faces[horizon[hn - 1].0 as usize].v[horizon[hn - 1].1 as usize];
    for &(g, e) in horizon.iter() {
        // Edge e of g runs v[e] → v[e + 1] (the new face over it runs v[e + 1] → v[e] → w);
        // the walk meets the edges against their direction, so each ends where the previous
        // one starts.
        let f = &faces[g as usize];
        let p = f.v[e as usize];
        if f.v[NEXT3[e as usize]] != prev || mark[p as usize] == stamp {
            return None;
        }
        mark[p as usize] = stamp;
        prev = p;
    }
    // New faces, linked to the horizon faces and to each other: face (q, p, w) over the
    // k-th edge has edge 1 (p → w) shared with the next new face's edge 2 (w → p).
    let first_new = faces.len() as u32;
    let last_new = first_new + hn as u32 - 1;
    for &(g, e) in horizon.iter() {
        let gf = &faces[g as usize];
        let p = gf.v[e as usize];
        let q = gf.v[NEXT3[e as usize]];
        let mut nf = make_face(verts, q, p, wi)?;
        if nf.n.dot(interior) > nf.d {
            return None;
        }
        let idx = faces.len() as u32;
        nf.adj[0] = g;
        nf.adj[1] = if idx == last_new { first_new } else { idx + 1 };
        nf.adj[2] = if idx == first_new { last_new } else { idx - 1 };
        faces[g as usize].adj[e as usize] = idx;
        dist.push(nf.d);
        faces.push(nf);
    }
    Some(())
}

/// The initial tetrahedron's faces (vertex indices, outward when `det > 0`) and, per edge,
/// the face across it.
const TET_FACES: [([u32; 3], [u32; 3]); 4] = [
    ([0, 2, 1], [3, 2, 1]),
    ([0, 1, 3], [0, 2, 3]),
    ([1, 2, 3], [0, 3, 1]),
    ([0, 3, 2], [1, 2, 0]),
];

/// One EPA run from the tetrahedron `tet` (origin inside or on it). With `warm`, the vertex
/// pairs of the face the pair's last EPA run stopped at are inserted first, each one that
/// lies beyond the polytope by more than `gap` (coherence: between frames of an overlapping
/// pair the nearest face of `M` is usually made of the same vertex pairs, and with it in the
/// polytope the next support confirms it). Every inserted point is a vertex of `M`, so the
/// polytope stays inside `M` and the depth bounds — nearest face ≤ depth ≤ support along its
/// normal — hold as in the cold run.
#[allow(clippy::too_many_arguments)]
fn epa_run(
    ctx: &Ctx,
    cache: &mut GjkCache,
    tet: &[SVert; 4],
    gap: f64,
    near_start: bool,
    warm: bool,
    bufs: &mut EpaBufs,
) -> Option<EpaOut> {
    let mut t = *tet;
    let det = (t[1].w - t[0].w).dot((t[2].w - t[0].w).cross(t[3].w - t[0].w));
    if !(det != 0.0) || !det.is_finite() {
        return None;
    }
    if det < 0.0 {
        t.swap(1, 2);
    }
    for s in t {
        bufs.push_vert(s);
    }
    // The tetrahedron's faces with their neighbours across edges 0 (v0 → v1), 1 (v1 → v2)
    // and 2 (v2 → v0): each edge's reverse belongs to the listed face (checked in tests).
    for ([i, j, k], adj) in TET_FACES {
        let mut f = make_face(&bufs.verts, i, j, k)?;
        f.adj = adj;
        bufs.faces.push(f);
    }
    let mut seed = Simplex::default();
    for s in t {
        seed.push(s);
    }
    let interior = (t[0].w + t[1].w + t[2].w + t[3].w) * 0.25;
    for f in bufs.faces.iter_mut() {
        if f.n.dot(interior) > f.d {
            return None;
        }
    }
    // Face distances apart, +∞ once a face dies: the closest live face is the first least
    // entry of one dense array (the polytope grows to ~100 faces on 1 000-vertex pairs, where
    // a scan over the face records with their liveness flags was a third of EPA's time).
    bufs.dist.clear();
    bufs.dist.extend(bufs.faces.iter().map(|f| f.d));
    let mut stamp = 0u32;
    if warm {
        for k in 0..(cache.epa_len as usize).min(3) {
            let (ia, ib) = cache.epa_face[k];
            let wk = key(ia, ib);
            if !ctx.valid(ia, ib) || bufs.keys.contains(&wk) {
                continue;
            }
            let w = ctx.vert(ia, ib);
            // The live face that sees `w` most (beyond its plane by more than `gap`, as a
            // support must be to expand the cold run), where the horizon walk starts.
            let mut start = (gap, usize::MAX);
            for (i, f) in bufs.faces.iter().enumerate() {
                let beyond = f.n.dot(w.w) - f.d;
                if f.alive && beyond > start.0 {
                    start = (beyond, i);
                }
            }
            if start.1 == usize::MAX {
                continue;
            }
            stamp += 1;
            expand(bufs, start.1, w, wk, stamp, interior)?;
        }
    }
    let mut iters = 0u32;
    loop {
        iters += 1;
        // Closest live face (the first attaining the least distance; none when all died).
        let best = first_least(&bufs.dist)?;
        let f = bufs.faces[best];
        // The polytope contains the origin (it grows from a tetrahedron around it), so every
        // face plane has the origin on its inner side: a face beyond that (by more than
        // rounding) means the incremental hull was corrupted by a near-degenerate step.
        if f.d < -gap {
            return None;
        }
        let w = if near_start {
            let near = [
                bufs.verts[f.v[0] as usize],
                bufs.verts[f.v[1] as usize],
                bufs.verts[f.v[2] as usize],
            ];
            ctx.support_near(f.n, &near, cache)
        } else {
            ctx.support(f.n, cache)
        };
        let upper = f.n.dot(w.w);
        let wk = key(w.ia, w.ib);
        let repeated = bufs.keys.contains(&wk);
        if repeated && upper - f.d > ACCEPT_GAP_REL * ctx.scale {
            // A vertex of the polytope beyond its own nearest face: the polytope is not convex
            // (a near-degenerate step corrupted it; seen on concentric reflected tetrahedra in
            // rotated frames, where EPA stopped at a face 0.06 short of the true depth).
            return None;
        }
        let done = upper - f.d <= gap || repeated || iters >= ctx.max_iter;
        if done {
            if iters >= ctx.max_iter && upper - f.d > ACCEPT_GAP_REL * ctx.scale {
                return None;
            }
            // Points from the face whose foot point lies inside it: with coplanar triangles
            // of `M`'s nearest face, the least-distance triangle may not hold the foot.
            let mut pick = (face_bary(&bufs.verts, &f), f);
            if pick.0.iter().any(|l| *l < 0.0) {
                for g in bufs.faces.iter() {
                    if g.alive && g.d <= f.d + gap {
                        let l = face_bary(&bufs.verts, g);
                        let m = l[0].min(l[1]).min(l[2]);
                        if m > pick.0[0].min(pick.0[1]).min(pick.0[2]) {
                            pick = (l, *g);
                        }
                    }
                }
            }
            let (raw, g) = pick;
            let (a, b, c) = (
                bufs.verts[g.v[0] as usize],
                bufs.verts[g.v[1] as usize],
                bufs.verts[g.v[2] as usize],
            );
            let (l0, l1, l2) = (raw[0].max(0.0), raw[1].max(0.0), raw[2].max(0.0));
            let s = l0 + l1 + l2;
            let (l0, l1, l2) = if s > 0.0 {
                (l0 / s, l1 / s, l2 / s)
            } else {
                (1.0, 0.0, 0.0)
            };
            return Some(EpaOut {
                depth: f.d.max(0.0),
                normal: f.n,
                pa: ctx.pa(&a) * l0 + ctx.pa(&b) * l1 + ctx.pa(&c) * l2,
                pb: ctx.pb(&a) * l0 + ctx.pb(&b) * l1 + ctx.pb(&c) * l2,
                seed,
                iters,
                face: [(a.ia, a.ib), (b.ia, b.ib), (c.ia, c.ib)],
            });
        }
        stamp += 1;
        expand(bufs, best, w, wk, stamp, interior)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Public queries
// ---------------------------------------------------------------------------------------------

/// Boolean GJK: stops at the first separating support plane beyond the contact tolerance or
/// at the first enclosing tetrahedron.
pub fn intersect(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut GjkCache,
) -> Result<Intersection, PolycdError> {
    let ctx = Ctx::new(a, pa, b, pb);
    match gjk_core(&ctx, cache, true) {
        Core::Disjoint { v, sup, iters } => {
            let n = -v.normalize();
            let plane = Plane {
                normal: n,
                offset: 0.5 * (n.dot(ctx.pa(&sup)) + n.dot(ctx.pb(&sup))),
            }
            .transformed(pa);
            Ok(Intersection::Disjoint {
                plane,
                iterations: iters,
            })
        }
        Core::Separated { sim, v, sup, iters } => {
            let n = -v.normalize();
            if v.length() > ctx.tol && v.dot(sup.w) > 0.0 {
                let plane = Plane {
                    normal: n,
                    offset: 0.5 * (n.dot(ctx.pa(&sup)) + n.dot(ctx.pb(&sup))),
                }
                .transformed(pa);
                return Ok(Intersection::Disjoint {
                    plane,
                    iterations: iters,
                });
            }
            let (qa, qb) = sim.points(&ctx);
            let plane = plane_between(&ctx, pa, n, cache);
            Ok(Intersection::Touching {
                point: pa.transform_point(0.5 * (qa + qb)),
                plane,
                iterations: iters,
            })
        }
        Core::Enclosed { sim, iters } => {
            // Clearly inside the tetrahedron (a certified lower bound on the depth beyond
            // the contact tolerance): overlap without EPA.
            let p = [sim.v[0].w, sim.v[1].w, sim.v[2].w, sim.v[3].w];
            if crate::core::geometry::tetrahedron_depth(p) > ctx.tol {
                return Ok(Intersection::Overlapping {
                    witness: OverlapWitness::Simplex(sim.witness()),
                    iterations: iters,
                });
            }
            intersect_by_epa(&ctx, pa, cache, &sim, iters)
        }
        Core::Contact { sim, iters } => intersect_by_epa(&ctx, pa, cache, &sim, iters),
        Core::NotConverged { iters } => Ok(Intersection::NotConverged { iterations: iters }),
    }
}

fn intersect_by_epa(
    ctx: &Ctx,
    pa: &Pose,
    cache: &mut GjkCache,
    sim: &Simplex,
    iters: u32,
) -> Result<Intersection, PolycdError> {
    match epa(ctx, cache, sim) {
        Some(e) if e.depth > ctx.tol => Ok(Intersection::Overlapping {
            witness: OverlapWitness::Simplex(e.seed.witness()),
            iterations: iters + e.iters,
        }),
        Some(e) => {
            let plane = plane_between(ctx, pa, e.normal, cache);
            Ok(Intersection::Touching {
                point: pa.transform_point(0.5 * (e.pa + e.pb)),
                plane,
                iterations: iters + e.iters,
            })
        }
        None => Ok(Intersection::NotConverged { iterations: iters }),
    }
}

/// Distance GJK: closest points and features, or penetration (EPA depth) when overlapping.
pub fn distance(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut GjkCache,
) -> Result<Distance, PolycdError> {
    distance_with(a, pa, b, pb, cache, true)
}

/// [`distance`], with the depth of a clear overlap (the origin enclosed by the simplex) left
/// unmeasured when `depth` is false: `Penetrating` with `penetration: None`, no EPA. A
/// near-contact overlap still runs EPA, which tells touching (reported as `Separated`) from
/// overlapping beyond the tolerance, as [`distance`] does.
pub(crate) fn distance_with(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut GjkCache,
    depth: bool,
) -> Result<Distance, PolycdError> {
    let ctx = Ctx::new(a, pa, b, pb);
    match gjk_core(&ctx, cache, false) {
        Core::Separated { sim, v, iters, .. } => Ok(separated(&ctx, pa, &sim, v, iters)),
        Core::Disjoint { iters, .. } | Core::NotConverged { iters } => Ok(Distance::NotConverged { iterations: iters }),
        Core::Enclosed { sim, iters } if !depth => Ok(Distance::Penetrating {
            witness: OverlapWitness::Simplex(sim.witness()),
            penetration: None,
            iterations: iters,
        }),
        Core::Enclosed { sim, iters } => match epa(&ctx, cache, &sim) {
            Some(e) => Ok(Distance::Penetrating {
                witness: OverlapWitness::Simplex(sim.witness()),
                penetration: Some(penetration_of(pa, &e)),
                iterations: iters + e.iters,
            }),
            None => Ok(Distance::Penetrating {
                witness: OverlapWitness::Simplex(sim.witness()),
                penetration: None,
                iterations: iters,
            }),
        },
        Core::Contact { sim, iters } => match epa(&ctx, cache, &sim) {
            Some(e) if e.depth > ctx.tol => Ok(Distance::Penetrating {
                witness: OverlapWitness::Simplex(e.seed.witness()),
                penetration: Some(penetration_of(pa, &e)),
                iterations: iters + e.iters,
            }),
            Some(e) => {
                let mut s = sim;
                let (v, _) = solve(&mut s);
                Ok(separated(&ctx, pa, &s, v, iters + e.iters))
            }
            None => Ok(Distance::NotConverged { iterations: iters }),
        },
    }
}

fn separated(ctx: &Ctx, pa: &Pose, sim: &Simplex, v: DVec3, iters: u32) -> Distance {
    let (qa, qb) = sim.points(ctx);
    Distance::Separated {
        distance: v.length(),
        point_a: pa.transform_point(qa),
        point_b: pa.transform_point(qb),
        features: features_of(ctx, sim, qa, qb),
        iterations: iters,
    }
}

fn penetration_of(pa: &Pose, e: &EpaOut) -> Penetration {
    Penetration {
        depth: e.depth,
        normal: pa.transform_vector(e.normal),
        point_a: pa.transform_point(e.pa),
        point_b: pa.transform_point(e.pb),
    }
}

/// Penetration depth by EPA when the shapes overlap; `None` when they are apart or touching
/// (signed distance ≥ −contact tolerance).
pub fn penetration(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut GjkCache,
) -> Result<Option<Penetration>, PolycdError> {
    match distance(a, pa, b, pb, cache)? {
        Distance::Penetrating { penetration, .. } => Ok(penetration),
        _ => Ok(None),
    }
}

enum Ray {
    Hit {
        lambda: f64,
        normal: DVec3,
        sim: Simplex,
        iters: u32,
    },
    Miss {
        iters: u32,
    },
    NotConverged {
        iters: u32,
    },
}

/// GJK ray cast (van den Bergen): smallest λ in `[0, max_lambda]` with `start + λ·r ∈ M`
/// (a miss when the segment never enters `M`).
fn ray_cast(ctx: &Ctx, cache: &mut GjkCache, start: DVec3, r: DVec3, max_lambda: f64) -> Ray {
    let gap = DISTANCE_GAP_REL * ctx.scale;
    let accept = ACCEPT_GAP_REL * ctx.scale;
    let mut lambda = 0.0;
    let mut x = start;
    let mut normal = DVec3::ZERO;
    let mut sim = Simplex::default();
    let p0 = ctx.vert(cache.warm_a, cache.warm_b);
    let mut v = x - p0.w;
    let mut flat = 0u32;
    for it in 1..=ctx.max_iter {
        let vv = v.length_squared();
        if vv <= gap * gap {
            return Ray::Hit {
                lambda,
                normal,
                sim,
                iters: it,
            };
        }
        let p = ctx.support(v, cache);
        let w = x - p.w;
        let vw = v.dot(w);
        let mut advanced = false;
        // Conservative advancement to the support plane `v·y = v·p`. When the ray certainly
        // approaches the plane (`v·r` well beyond its rounding) the step `−v·w / v·r` is the
        // classical one. When `v·r` is within rounding of 0 — a ray lying in a face of `M` to
        // rounding, B sliding along A, with `v` that face's normal — that step is a ratio of
        // two noises (it threw the ray into the middle of the contact chord); then the ray
        // advances only if `v·w` certainly exceeds its rounding, by the least step the two
        // products' error bounds allow, and otherwise not at all.
        let vlen = vv.sqrt();
        let vr = v.dot(r);
        let err_vr = 4.0 * f64::EPSILON * vlen * r.abs().element_sum();
        let err_vw = 4.0 * f64::EPSILON * vlen * w.abs().element_sum();
        let certain = vr <= -crate::core::tolerance::RAY_STEP_CERTAIN * err_vr;
        if vw > 0.0 && (certain || vw > err_vw) {
            // Certainly beyond the plane and certainly not approaching it: the ray never
            // meets M.
            if vr >= err_vr {
                return Ray::Miss { iters: it };
            }
            let nl = if certain {
                lambda - vw / vr
            } else {
                lambda + (vw - err_vw) / (err_vr - vr)
            };
            // The support plane separates M from the whole segment: a ray grazing a face of M
            // (v·r ≈ 0 up to rounding) crosses its plane far beyond the segment's end.
            if !(nl <= max_lambda) {
                return Ray::Miss { iters: it };
            }
            if nl > lambda {
                lambda = nl;
                x = start + r * lambda;
                normal = v;
                advanced = true;
            }
        }
        let repeated = sim.contains(p.ia, p.ib);
        if !advanced && (vv - vw <= gap * vlen || repeated) {
            // x is within the gap of M along the current direction: converged.
            if vlen <= accept.max(gap) || vv - vw <= gap * vlen {
                return Ray::Hit {
                    lambda,
                    normal,
                    sim,
                    iters: it,
                };
            }
            return Ray::NotConverged { iters: it };
        }
        // Simplex in "x − p" coordinates.
        if !repeated {
            sim.push(p);
        }
        let mut shifted = sim;
        for k in 0..shifted.n {
            shifted.v[k].w = x - sim.v[k].w;
        }
        let (nv, enc) = solve(&mut shifted);
        if enc {
            return Ray::Hit {
                lambda,
                normal,
                sim,
                iters: it,
            };
        }
        if !advanced && nv.length_squared() >= vv {
            if vlen <= accept {
                return Ray::Hit {
                    lambda,
                    normal,
                    sim,
                    iters: it,
                };
            }
            // No decrease within rounding (as in `gjk_core`: near a face of M the norm is
            // rounding-bound while the larger simplex sharpens v's direction): a bounded
            // number of such steps in a row.
            let mag = (0..shifted.n).fold(0.0f64, |m, k| m.max(shifted.v[k].w.abs().max_element()));
            let ulps = 16.0 * f64::EPSILON * (vv + 4.0 * mag * vlen);
            if !(nv.length_squared() <= vv + ulps) || flat >= MAX_FLAT_STEPS {
                return Ray::NotConverged { iters: it };
            }
            flat += 1;
        } else {
            flat = 0;
        }
        // Back to M coordinates (keep the reduced set).
        sim = Simplex::default();
        for k in 0..shifted.n {
            let mut s = shifted.v[k];
            s.w = ctx.pa(&s) - ctx.pb(&s);
            sim.push(s);
        }
        v = nv;
    }
    Ray::NotConverged { iters: ctx.max_iter }
}

/// The normal of the contact plane after a ray cast has placed B (shifted by `shift`, A's
/// frame) in contact with A. The cast's last direction `n` is only as good as the gap it
/// stopped at: where the ray meets `M` near the edge between two nearly parallel faces (discs
/// tilted by 1e-8) it can lie between their normals, and the plane along it then touches A and
/// B at points 1e-4 apart. Candidates around the hit — `n`, the normals of A's faces at the
/// simplex's A vertices and of B's faces at its B vertices, and the cross products of an edge
/// of A and an edge of B spanned by those vertices — are ranked by the overlap of the shapes'
/// projections on them, `max_A m·a − min_B m·b`. At a contact it is ≥ 0 for every `m` and 0
/// exactly along the contact normals, so the least one wins (`n` on ties).
fn contact_normal(ctx: &Ctx, cache: &mut GjkCache, sim: &Simplex, n: DVec3, shift: DVec3) -> DVec3 {
    let (a, b) = (ctx.a, ctx.b);
    let mut ids_a = [u32::MAX; 4];
    let mut ids_b = [u32::MAX; 4];
    let (mut na, mut nb) = (0usize, 0usize);
    for s in &sim.v[..sim.n] {
        if !ids_a[..na].contains(&s.ia) {
            ids_a[na] = s.ia;
            na += 1;
        }
        if !ids_b[..nb].contains(&s.ib) {
            ids_b[nb] = s.ib;
            nb += 1;
        }
    }
    let mut best = (f64::INFINITY, n);
    let mut consider = |m: DVec3, cache: &mut GjkCache| {
        let m = m.normalize_or_zero();
        if m == DVec3::ZERO {
            return;
        }
        let s = ctx.support(m, cache);
        let overlap = m.dot(s.w) - m.dot(shift);
        if overlap < best.0 {
            best = (overlap, m);
        }
    };
    consider(n, cache);
    for &v in &ids_a[..na] {
        for &h in a.outgoing(v) {
            consider(a.face(a.half_edge(h).face).normal, cache);
        }
    }
    for &v in &ids_b[..nb] {
        for &h in b.outgoing(v) {
            consider(-(ctx.rot * b.face(b.half_edge(h).face).normal), cache);
        }
    }
    for i in 0..na {
        for j in i + 1..na {
            if !a.neighbors(ids_a[i]).contains(&ids_a[j]) {
                continue;
            }
            let ea = a.vertex(ids_a[j]) - a.vertex(ids_a[i]);
            for k in 0..nb {
                for l in k + 1..nb {
                    if !b.neighbors(ids_b[k]).contains(&ids_b[l]) {
                        continue;
                    }
                    let m = ea.cross(ctx.rot * (b.vertex(ids_b[l]) - b.vertex(ids_b[k])));
                    consider(if m.dot(n) < 0.0 { -m } else { m }, cache);
                }
            }
        }
    }
    best.1
}

/// Directional query by two GJK ray casts against `M = A − B`: the set of `t` with `t·s ∈ M`
/// is `[lo, hi]`; the answer is its endpoint of least magnitude (first contact when apart, the
/// shorter separating translation when overlapping).
pub fn directional(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    cache: &mut GjkCache,
) -> Result<Directional, PolycdError> {
    let ctx = Ctx::new(a, pa, b, pb);
    if !ctx.valid(cache.warm_a, cache.warm_b) {
        cache.warm_a = 0;
        cache.warm_b = 0;
    }
    let sl = pa.inverse_transform_vector(s).normalize_or_zero();
    if sl == DVec3::ZERO {
        return Err(PolycdError::BadDirection);
    }
    let (ca, ra) = a.bounding_sphere();
    let (cb, rb) = b.bounding_sphere();
    let c = ca - (ctx.rot * cb + ctx.trans);
    let big = 2.0 * (c.length() + ra + rb) + ctx.scale;
    let (lo, n_lo, s_lo, it1) = match ray_cast(&ctx, cache, -sl * big, sl, 2.0 * big) {
        Ray::Hit {
            lambda,
            normal,
            sim,
            iters,
        } => (lambda - big, normal, sim, iters),
        Ray::Miss { iters } => return Ok(Directional::Never { iterations: iters }),
        Ray::NotConverged { iters } => return Ok(Directional::NotConverged { iterations: iters }),
    };
    let (hi, n_hi, s_hi, it2) = match ray_cast(&ctx, cache, sl * big, -sl, 2.0 * big) {
        Ray::Hit {
            lambda,
            normal,
            sim,
            iters,
        } => (big - lambda, normal, sim, iters),
        Ray::Miss { iters } => {
            return Ok(Directional::Never {
                iterations: it1 + iters,
            })
        }
        Ray::NotConverged { iters } => {
            return Ok(Directional::NotConverged {
                iterations: it1 + iters,
            })
        }
    };
    let iterations = it1 + it2;
    let (t, n, sim) = if lo > 0.0 {
        (lo, n_lo, s_lo)
    } else if hi < 0.0 {
        (hi, n_hi, s_hi)
    } else if -lo <= hi {
        (lo, n_lo, s_lo)
    } else {
        (hi, n_hi, s_hi)
    };
    let n = n.normalize_or_zero();
    let n = if n == DVec3::ZERO { -sl } else { n };
    let n = contact_normal(&ctx, cache, &sim, n, sl * t);
    // Plane after translating B by t·s (local: B shifted by t·sl).
    let sup = ctx.support(n, cache);
    let hi_a = n.dot(ctx.pa(&sup));
    let lo_b = n.dot(ctx.pb(&sup) + sl * t);
    let plane = Plane {
        normal: n,
        offset: 0.5 * (hi_a + lo_b),
    }
    .transformed(pa);
    Ok(Directional::Contact { t, plane, iterations })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::shapes;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The incremental EPA answers generic overlaps by itself: its fallbacks (the retry, the
    /// hull rebuilds) are for symmetric shapes and give the same depth much more slowly, so
    /// the answers alone would not show a broken fast path. Random overlapping pairs of
    /// generic hulls, cold and then warm (the face of the previous answer inserted first).
    #[test]
    fn incremental_epa_succeeds_on_generic_overlaps() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let list = [
            shapes::ellipsoid(20, 1.0, 0.7, 0.5, 1).unwrap(),
            shapes::ellipsoid(64, 1.0, 0.6, 0.5, 2).unwrap(),
            shapes::ellipsoid(300, 1.0, 0.9, 0.8, 3).unwrap(),
        ];
        let (mut runs, mut failed) = (0, 0);
        for i in 0..600 {
            let a = &list[i % 3];
            let b = &list[(i / 3) % 3];
            let pa = Pose::new(shapes::random_rotation(&mut rng), DVec3::ZERO);
            let dir = shapes::unit_vector(&mut rng);
            let pb0 = Pose::new(shapes::random_rotation(&mut rng), dir * rng.random_range(0.0..1.2));
            let mut cache = GjkCache::default();
            for step in 0..3 {
                let turn = DQuat::from_axis_angle(dir, 0.02 * step as f64);
                let pb = Pose::new(turn * pb0.rotation, pb0.translation + DVec3::X * 0.01 * step as f64);
                let ctx = Ctx::new(a, &pa, b, &pb);
                let Core::Enclosed { sim, .. } = gjk_core(&ctx, &mut cache, false) else {
                    continue;
                };
                let tet = blow_up(&ctx, &mut cache, &sim).unwrap();
                let gap = DISTANCE_GAP_REL * ctx.scale;
                let mut bufs = EpaBufs::default();
                let warm = cache.epa_len == 3;
                let out = epa_run(&ctx, &mut cache, &tet, gap, false, warm, &mut bufs);
                runs += 1;
                match out {
                    Some(e) => {
                        cache.epa_face = e.face;
                        cache.epa_len = 3;
                    }
                    None => failed += 1,
                }
            }
        }
        assert!(runs > 800, "{runs} runs");
        assert!(failed * 200 <= runs, "{failed} of {runs} incremental EPA runs failed");
    }

    /// The initial tetrahedron's face table: every edge's reverse lies in the listed face.
    #[test]
    fn tetrahedron_face_table_is_consistent() {
        for (f, (v, adj)) in TET_FACES.iter().enumerate() {
            for e in 0..3 {
                let (p, q) = (v[e], v[NEXT3[e]]);
                let g = adj[e] as usize;
                assert_ne!(g, f);
                let w = TET_FACES[g].0;
                assert!((0..3).any(|k| w[k] == q && w[NEXT3[k]] == p), "face {f} edge {e}");
            }
        }
    }
}
