//! V-Clip: Voronoi-clip closest-feature tracking between convex polyhedra.
//!
//! Paper: B. Mirtich, *V-Clip: Fast and Robust Polyhedral Collision Detection*, MERL TR97-05
//! (ACM TOG 17(3), 1998).
//!
//! # Outline
//! - The state is a pair of features (vertex, edge or face), one on each polyhedron. Each
//!   iteration runs the handler of the pair's type — VV, VE, VF, EE, EF (Alg. 4–8) — which
//!   either certifies the pair (both closest points lie in the other feature's Voronoi region:
//!   Theorem 1), reports penetration, or moves one feature to a neighbour.
//! - Points are tested against Voronoi planes by sign; edges are clipped against sets of
//!   Voronoi planes with `clipEdge` (Alg. 1), and the derivative checks (Alg. 2, Eq. 2–3)
//!   decide where the minimum of the edge distance function lies.
//! - VF searches the *maximally* violated face-edge plane; an edge excluded from a face's
//!   region moves the face to its closest boundary edge by a perimeter scan (§3.3.3);
//!   a vertex lodged below a face runs `handleLocalMin` (Alg. 3).
//! - Penetration witnesses: an edge piercing a face (EF), a vertex inside the other
//!   polyhedron (Alg. 3), or two features that meet (distance exactly 0, §3.2); a witness
//!   whose shapes provably only touch becomes a zero distance.
//! - Each test of one body's feature against the other body's Voronoi region runs in the
//!   local frame of the region's owner: its vertices, normals and planes are used as stored and
//!   only the tested feature's one or two vertices are mapped in by the relative pose (no
//!   per-query allocation, no per-query O(n) transform). Results are reported in A's frame.
//! - Each shape carries precomputed Voronoi-plane vectors (`VClipTables`, built with the
//!   shape; 80 bytes per half-edge): per adjacency slot of a vertex `v`, `v − o` and
//!   `1 / |v − o|²` (vertex–edge planes), per half-edge `a → b` of a face `f`, `n_f × (b − a)`
//!   and `1 / |b − a|` (face–edge planes). The plane vectors are the very expressions the
//!   handlers evaluated before, on the stored vertices, so every plane keeps its value bit for
//!   bit; the reciprocals scale the violation scores VV and VF rank planes by (a product
//!   rather than a division on the way to their branches). The handlers scan them in
//!   adjacency order. (A shifted B, translation-only pairs, recomputes them from its shifted
//!   vertices with the same expressions, and divides.) The kind of handler frame and the
//!   orientation of the pair are compile-time parameters of `View`.
//!
//! # Invariants
//! - Every Voronoi plane is evaluated from one formula whichever region it bounds: the
//!   vertex–edge plane of edge `(v, w)` at `v` is `(v − w)·(x − v)` on the vertex side and
//!   exactly its negation on the edge side; the face–edge plane of a half-edge `a → b` of face
//!   `f` is `(n_f × (b − a))·(x − a)` on the face side and exactly its negation on the edge
//!   side. Floating-point negation is exact, so a point never lies strictly inside two
//!   neighbouring regions.
//! - Each Voronoi plane is evaluated in its owner's frame, with the other body's vertices
//!   mapped by one fixed map per query (`Mᵀ·(x − t)` into B, `M·x + t` into A), so the
//!   invariant above holds across handlers exactly as in a single common frame. (When `M` is
//!   exactly the identity both bodies use the common frame, B's vertices as `x + t`: see
//!   `View`.)
//! - The slope of the distance to a face's plane along an edge of the other body (VF step 6,
//!   EF's derivative check, EE's Eq. 3) is one expression, `u·n` in the edge owner's frame
//!   (`u` = head − tail from the owner's vertices, `n` the face normal rotated into that frame
//!   by the fixed rotation of the query), so the three handlers agree on its sign bit for bit.
//! - No tolerance is used inside the iteration; signs are compared with 0.
//! - `iterations` counts handler calls (state visits).
//!
//! # Termination
//! In exact arithmetic each update either strictly lowers the inter-feature distance or keeps
//! it and lowers a feature's dimension (the state graph has no cycle of distance-preserving
//! arrows), and there are finitely many feature pairs (paper §2.2). In floating point that
//! argument does not hold, so the loop is bounded by `4·(V+E+F of both) + 100` handler calls
//! and, since each handler is a deterministic function of the feature pair alone (for a given
//! pose), any repeated pair is a genuine cycle; Brent's cycle detection (O(1) memory) finds it.
//! (The detection starts at the 16th handler call: a cycle repeats forever, so it is found from
//! any later pair just as well, and warm queries, which end sooner, skip the bookkeeping.)
//! A cycle is walked once more (its period is known, so the walk is bounded) to look for a pair
//! a separating slab certifies (see *Cycles* below); otherwise, and when the bound is reached,
//! the answer is `NotConverged`, never a guess. The perimeter scan visits each edge of the face
//! once.
//!
//! # Departures from the paper (and decisions where it is silent)
//! - VF step 6: the paper writes `|D_P(V)| > |D_P(V')|`; the text asks for "an edge incident
//!   to V that points toward F", i.e. whether the projection of V on F lies in VR(V). We test
//!   exactly that, sign-aware (the literal absolute-value test misses edges crossing the plane
//!   of F): `D_P(V) > 0` and `(V' − V)·n_F < 0`, or `D_P(V) < 0` and `(V' − V)·n_F > 0`. The
//!   slope is computed as `(V' − V)·n_F`, bit for bit the expression EF's derivative check
//!   uses (`u·n_F` with `u = head − tail`, exactly negated when V is the head; both in the
//!   edge owner's frame with `n_F` rotated there, see *Invariants*; EE's Eq. 3 too), not as
//!   `D_P(V') − D_P(V)`: for an edge parallel to F the two round differently, VF then moved to
//!   the edge while EF sent it straight back to V, and the pair cycled (coherence scenario,
//!   icosahedron translated without rotation). Taking it in the edge owner's frame costs one
//!   rotation of `n_F` per VF call instead of mapping each of V's neighbours into F's frame.
//! - Cycles: translated copies of a centrally symmetric shape (rotation a multiple of 360°,
//!   i.e. 1e-16 from the identity) have exactly parallel faces and edges; every
//!   distance-decreasing update between them is then decided by rounding noise and the
//!   iteration can cycle through pairs that are all at the same distance (to rounding). The
//!   paper claims V-Clip never cycles; it does here. On a cycle we walk it once, take the pair
//!   with the nearest closest points that are certainly on both shapes (VV, VE, EE; VF when
//!   the vertex lies in the face's prism), and accept it only if the slab along the difference
//!   of the points (two hill-climbing support queries) certifies it: the true distance lies in
//!   `[gap, d]` and `d − gap ≤ DISTANCE_GAP_REL × pair scale` (the same certificate GJK stops
//!   on). At contact (`d` ≈ 0) that direction is noise, so the slab normals are taken from
//!   the cycle's features instead: their face normals and the cross products of their edges
//!   (the extreme rays of the intersection of the two normal cones). Before that, Alg. 3's
//!   test is applied to every feature of the cycle: a vertex on or inside every face plane of
//!   the other polyhedron, or a part of an edge (or of a face's boundary edge) that those
//!   planes do not clip away, is a common point and the answer is a penetration. (A vertex
//!   below a face parallel to it: concentric symmetric shapes, where the slopes along B's
//!   edges are rounding noise. An edge: nearly identical concentric solids, e.g. a
//!   tetrahedron and its copy tilted by 1e-9 rad at scale 1e6, whose cycle runs through an
//!   edge of B and A's features around the matching edge, no vertex of which is inside the
//!   other shape.) The iteration itself still uses no tolerance.
//! - Compound exclusion (Alg. 1 returns FALSE with two different planes): for a vertex region
//!   we apply footnote 3 (test line 1 of Alg. 2, otherwise take the other plane). In EE's
//!   face-edge stage (§3.3.2) a vertex-edge/face-edge pair is resolved by the vertex's
//!   derivative check (otherwise the face), two face-edge planes by Eq. 3 at `λ̲` for the face
//!   of `N̲` (otherwise the other face). A degenerate Eq. 3 (the point lies in the face's plane)
//!   in that compound case moves to `N̲` (the distance cannot grow); elsewhere a degenerate
//!   derivative means the features meet and penetration is reported (§3.2).
//! - Perimeter scan (§3.3.3): the paper walks from the feature `clipEdge` returned, clipping
//!   E against each boundary edge's vertex–edge planes with Eq. 2 until the minimum is
//!   bracketed. We built that walk first; it stops at *local* minima of the distance along the
//!   perimeter (on a small icosphere triangle the walk settled on the far edge, EE sent the
//!   pair straight back to the face, and the pair cycled). We therefore scan the whole
//!   perimeter, taking the edge at least segment–segment distance (O(s) like the walk's worst
//!   case; a closest point at a shared vertex is refined by the next EE/VE step at equal
//!   distance). This is the only place the iteration computes closest points.
//! - Features that meet (distance exactly 0, an edge touching a face's plane, a vertex on the
//!   surface) are penetration witnesses in the paper's closed-set sense. Before reporting
//!   them we try the normals the witness features suggest (face normals, the cross product of
//!   two edges) as touching planes: if the shapes overlap by at most the contact tolerance
//!   along one (two hill-climbing support queries started at the features), the answer is
//!   `Separated` with distance 0 (`Touching` for `intersect`), as the query contract asks for
//!   touching pairs; otherwise it is `Penetrating`.
//! - Touching band: when the certified distance is within [`contact_tolerance`], Theorem 1's
//!   sign tests sit on rounding noise (a vertex rounded 1 ulp off the edge it lies on passes
//!   them while the shapes overlap by 1e-6 of their size). There the answer is kept only if
//!   a touching plane (the separating plane first, then the candidates above) exists;
//!   otherwise the pair is reported as a penetration witness at the midpoint of the
//!   (coincident) closest points.
//! - Output planes (not part of the iteration): the normal is `point_b − point_a`, made (to
//!   rounding) perpendicular to the closest features (face normal; crossing edges' cross product, see
//!   [`CROSSING_EDGES_SIN2`]; edge direction projected out), so tiny gaps on large shapes still
//!   give planes that bound both vertex sets. Below `PLANE_CHECK_REL` × the pair scale a
//!   normal derived from `point_b − point_a` (whose direction is only as good as rounding
//!   allows at that distance) is checked against the supports and, when it fails, replaced by
//!   the face normal or edge-pair cross product around the closest features with the widest
//!   measured gap (cubes 1e-9 apart in rotated frames got planes that cut a corner).
//! - VV (Alg. 4) tests both vertices against each other's region and moves to the edge whose
//!   vertex–edge plane is *maximally* violated (distance of the other vertex beyond it) over
//!   both, as VF does for face–edge planes, rather than the first violated one of the first
//!   vertex: any violated plane strictly lowers the distance, and the steepest one takes fewer
//!   steps along a finely tessellated surface (coherence scenario, 642-vertex sphere at
//!   5°/step: 8.2 → 5.4 handler calls per query; 25°/step: 29.7 → 15.4).
//! - VF step 6 likewise takes the *steepest* edge of V toward the plane of F (largest
//!   `slope² / |edge|²`, the squared cosine to the normal) rather than the first one found:
//!   any such edge lowers the distance; the steepest ends sooner (sphere-642 at 5°/step:
//!   4.40 → 4.32 handler calls per query, 2 037 → 2 013 instructions).
//! - When the VE step after such a move would only carry the vertex on to the edge's other
//!   end, VV takes both steps at once (counted as two handler calls; see `vv_half`).
//! - Per-query work outside the handlers (not the paper's concern): when A's rotation is the
//!   identity quaternion, the relative pose and the world-frame output skip the rotation by it
//!   (it maps exactly, so the values are the same); the relative rotation is renormalised
//!   only when it is not unit to rounding (`UNIT_QUAT_SLACK`: the square root and division
//!   sat at the head of every query's dependency chain, ≈ 5 % of a warm sphere-642 query); a
//!   clearly separated distance answer tells the query layer so (`distance_checked`), which
//!   then skips its own tolerance check.
//! - A cold query (no cached pair, or a stale or foreign one: ids out of range) starts from
//!   the two support vertices along the line between the centroids; a face–face pair (never
//!   produced by the algorithm) starts from the first vertex of A's face.

use crate::contract::{
    contact_tolerance, contact_tolerance_bound, pair_scale, Distance, Feature, FeaturePair, Intersection,
    OverlapWitness,
};
use crate::core::error::PolycdError;
use crate::core::geometry::{closest_on_segment, closest_segment_segment};
use crate::core::math::{DMat3, DVec3, Plane, Pose};
use crate::core::tolerance::{DISTANCE_GAP_REL, PLANE_CHECK_REL, UNIT_QUAT_SLACK};
use crate::shape::polyhedron::ConvexPolyhedron;
use crate::shape::tables::{AdjRec, FeRec};
use std::cell::Cell;

pub use crate::core::tolerance::CROSSING_EDGES_SIN2;

/// V-Clip's per-pair state: the last feature pair, the start of the next query.
#[derive(Clone, Debug, Default)]
pub struct VClipCache {
    pair: Option<FeaturePair>,
}

impl VClipCache {
    /// Forgets the coherence state (the next query starts cold) and keeps the scratch
    /// buffers' capacity, so a cache reused for unrelated queries does not allocate.
    pub fn forget(&mut self) {
        self.pair = None;
    }
}

impl VClipCache {
    /// The feature pair the next query starts from (`None`: a cold start from the support
    /// vertices along the line between the centroids).
    pub fn pair(&self) -> Option<FeaturePair> {
        self.pair
    }
    /// Forgets the cached pair (the next query starts cold).
    pub fn reset(&mut self) {
        self.pair = None;
    }
    /// A cache whose next query starts from `pair` (e.g. to replay a recorded warm query).
    pub fn starting_at(pair: FeaturePair) -> Self {
        VClipCache { pair: Some(pair) }
    }
}

/// B's placement in A's frame: `x ↦ m·x + t`, and `mt = mᵀ` for the way back.
struct Rel {
    m: DMat3,
    mt: DMat3,
    t: DVec3,
    /// The intersection point of a [`Step::PEN`] (common frame), set by the handler that
    /// found it.
    pen: Cell<DVec3>,
}

/// A polyhedron placed in the common frame (A's local frame).
#[derive(Clone, Copy)]
struct Body<'a> {
    poly: &'a ConvexPolyhedron,
    /// Local → common frame, `x ↦ M·x + t` (`None`: identity, shape A).
    frame: Option<&'a Rel>,
}

impl Body<'_> {
    /// Outward normal of face `f` in the handler frame (the same in both kinds of frame: the
    /// common frame is used only when the rotation is the identity).
    #[inline]
    fn local_normal(&self, f: u32) -> DVec3 {
        self.poly.face(f).normal
    }
    /// The adjacency slots of vertex `v` (a slice of [`VClipTables::adj`]).
    #[inline]
    fn adj(&self, v: u32) -> &[AdjRec] {
        let s = &self.poly.adj_start;
        &self.poly.vclip.adj[s[v as usize] as usize..s[v as usize + 1] as usize]
    }
    /// The face–edge records of face `f`'s half-edges (contiguous ids), and the first id.
    #[inline]
    fn face_fe(&self, f: u32) -> (&[FeRec], u32) {
        let face = self.poly.face(f);
        let lo = face.half_edge as usize;
        (&self.poly.vclip.fe[lo..lo + face.len as usize], face.half_edge)
    }
    /// The edge of half-edge `h`.
    #[inline]
    fn fe_edge(&self, h: u32) -> u32 {
        self.poly.vclip.fe[h as usize].edge
    }
    #[inline]
    fn vertex(&self, v: u32) -> DVec3 {
        let p = self.poly.vertex(v);
        match self.frame {
            None => p,
            Some(r) => r.m * p + r.t,
        }
    }
    #[inline]
    fn normal(&self, f: u32) -> DVec3 {
        let n = self.poly.face(f).normal;
        match self.frame {
            None => n,
            Some(r) => r.m * n,
        }
    }
    /// Signed distance of `x` from the support plane of face `f` (through its first vertex).
    #[inline]
    fn face_dist(&self, f: u32, x: DVec3) -> f64 {
        let h = self.poly.face(f).half_edge;
        let a = self.vertex(self.poly.half_edge(h).origin);
        self.normal(f).dot(x - a)
    }
    /// Head vertex of half-edge `h`.
    #[inline]
    fn head(&self, h: u32) -> u32 {
        let he = self.poly.half_edge(h);
        self.poly.half_edge(he.next).origin
    }
    /// Whether a cached feature's id is in range. The kind of the cached features varies from
    /// query to query, so the bound is looked up by kind rather than matched on (one
    /// mispredicted branch per query less).
    #[inline]
    fn feature_ok(&self, f: Feature) -> bool {
        let (nv, ne, nf) = self.poly.counts();
        let (kind, id) = match f {
            Feature::Vertex(v) => (0, v),
            Feature::Edge(e) => (1, e),
            Feature::Face(x) => (2, x),
        };
        (id as usize) < [nv, ne, nf][kind]
    }
}

/// One orientation of the pair: features of `p` are tested against regions of `q` and back.
///
/// Every test of a feature of one body against a Voronoi region (or a neighbouring feature)
/// of the other runs in the handler frame of the body that owns the region. With a rotation
/// (`ROT`) that is the body's local frame: its vertices, normals and planes are used as
/// stored, and only the other feature's one or two vertices are mapped in (always by the same
/// map, `Mᵀ·(x − t)` into B and `M·x + t` into A, so each Voronoi plane still gets bit-for-bit
/// the same value, or its exact negation, whichever handler evaluates it). When the relative
/// rotation is exactly the identity (`!ROT`, translated copies) both bodies use the common
/// frame instead: the two maps `x − t` and `x + t` would then describe two configurations that
/// differ by rounding, and between the exactly parallel faces of such copies that difference
/// decides ties and makes the iteration cycle. B's vertices are then `x + t` (which `M·x + t`
/// equals up to the sign of zero coordinates, which no sign test sees) and its normals are
/// used as stored.
///
/// The two constants select the four cases at compile time (`PA`: `p` is A), so the
/// handlers carry no per-access branch on the kind of frame; a body whose handler frame is
/// its local frame (always A; B under a rotation) reads its plane vectors from its
/// `VClipTables`, a shifted B recomputes them from its shifted vertices with the same
/// expressions.
#[derive(Clone, Copy)]
struct View<'a, const ROT: bool, const PA: bool> {
    p: Body<'a>,
    q: Body<'a>,
    rel: &'a Rel,
}

impl<const ROT: bool, const PA: bool> View<'_, ROT, PA> {
    /// P's vertices are shifted by `t` in its handler frame (translation only, P = B).
    const P_SHIFT: bool = !ROT && !PA;
    /// Q's vertices are shifted by `t` (translation only, Q = B).
    const Q_SHIFT: bool = !ROT && PA;

    /// P's vertex `v` in P's handler frame.
    #[inline]
    fn p_local(&self, v: u32) -> DVec3 {
        let x = self.p.poly.vertex(v);
        if Self::P_SHIFT {
            x + self.rel.t
        } else {
            x
        }
    }
    /// Q's vertex `v` in Q's handler frame.
    #[inline]
    fn q_local(&self, v: u32) -> DVec3 {
        let x = self.q.poly.vertex(v);
        if Self::Q_SHIFT {
            x + self.rel.t
        } else {
            x
        }
    }
    /// A point of P's handler frame in Q's handler frame.
    #[inline]
    fn p_to_q(&self, x: DVec3) -> DVec3 {
        match (ROT, PA) {
            (false, _) => x,
            (true, true) => self.rel.mt * (x - self.rel.t),
            (true, false) => self.rel.m * x + self.rel.t,
        }
    }
    /// A point of Q's handler frame in P's handler frame.
    #[inline]
    fn q_to_p(&self, x: DVec3) -> DVec3 {
        match (ROT, PA) {
            (false, _) => x,
            (true, true) => self.rel.m * x + self.rel.t,
            (true, false) => self.rel.mt * (x - self.rel.t),
        }
    }
    /// P's vertex `v` in Q's frame.
    #[inline]
    fn p_vertex_in_q(&self, v: u32) -> DVec3 {
        self.p_to_q(self.p_local(v))
    }
    /// Q's vertex `v` in P's frame.
    #[inline]
    fn q_vertex_in_p(&self, v: u32) -> DVec3 {
        self.q_to_p(self.q_local(v))
    }
    /// A direction of Q's frame (a face normal) in P's frame.
    #[inline]
    fn q_dir_to_p(&self, x: DVec3) -> DVec3 {
        match (ROT, PA) {
            (false, _) => x,
            (true, true) => self.rel.m * x,
            (true, false) => self.rel.mt * x,
        }
    }
    /// A direction of P's frame (a face normal) in Q's frame.
    #[inline]
    fn p_dir_to_q(&self, x: DVec3) -> DVec3 {
        match (ROT, PA) {
            (false, _) => x,
            (true, true) => self.rel.mt * x,
            (true, false) => self.rel.m * x,
        }
    }
    /// A point of P's handler frame in the common frame.
    #[inline]
    fn p_out(&self, x: DVec3) -> DVec3 {
        if ROT && !PA {
            self.rel.m * x + self.rel.t
        } else {
            x
        }
    }
    /// A point of Q's handler frame in the common frame.
    #[inline]
    fn q_out(&self, x: DVec3) -> DVec3 {
        if ROT && PA {
            self.rel.m * x + self.rel.t
        } else {
            x
        }
    }
    /// Signed distance of the P-frame point `x` from the support plane of P's face `f`
    /// (through its first vertex).
    #[inline]
    fn p_face_dist(&self, f: u32, x: DVec3) -> f64 {
        let face = self.p.poly.face(f);
        let a = self.p_local(self.p.poly.half_edge(face.half_edge).origin);
        face.normal.dot(x - a)
    }
    /// Signed distance of the Q-frame point `x` from the support plane of Q's face `f`.
    #[inline]
    fn q_face_dist(&self, f: u32, x: DVec3) -> f64 {
        let face = self.q.poly.face(f);
        let a = self.q_local(self.q.poly.half_edge(face.half_edge).origin);
        face.normal.dot(x - a)
    }
    /// `w = x − o` of an adjacency slot of P's vertex at `x` (its handler-frame position), in
    /// the handler frame: the table's, or recomputed from the shifted vertices exactly as
    /// [`ve_plane`] would.
    #[inline]
    fn p_adj(&self, r: &AdjRec, x: DVec3) -> DVec3 {
        if Self::P_SHIFT {
            x - (self.p.poly.vertex(r.nbr) + self.rel.t)
        } else {
            r.w
        }
    }
    /// `d² / |w|²` for the slot's `w`: VV's violation score of a violated vertex–edge plane
    /// (`d = w·(y − x)`), VF step 6's steepness of an edge (`d` its slope).
    #[inline]
    fn p_adj_score(&self, r: &AdjRec, w: DVec3, d: f64) -> f64 {
        if Self::P_SHIFT {
            d * d / w.length_squared()
        } else {
            d * d * r.inv_len2
        }
    }
    /// Face–edge plane of Q's half-edge `h` = `a → b` (record `r`, in a face scan) in Q's
    /// handler frame: `(a, c, s)` with `c = n × (b − a)`, the plane being `c·(x − a)` (bit for
    /// bit [`fe_plane`]), and `s` the scale [`View::q_fe_violation`] takes.
    #[inline]
    fn q_fe_rec(&self, r: &FeRec, h: u32) -> (DVec3, DVec3, f64) {
        if Self::Q_SHIFT {
            fe_of(&self.q, true, self.rel.t, h)
        } else {
            (self.q.poly.vertex(r.origin), r.c, r.inv_len)
        }
    }
    /// VF's violation `d / |b − a|` of a face–edge plane from [`View::q_fe_rec`]'s `s`
    /// (`|b − a|` for a shifted body, `1 / |b − a|` from the table).
    #[inline]
    fn q_fe_violation(d: f64, s: f64) -> f64 {
        if Self::Q_SHIFT {
            d / s
        } else {
            d * s
        }
    }
}

/// The normal `c = n × (b − a)` of the face–edge plane of half-edge `h` = `a → b`, given its
/// handler-frame ends (the table's when the body is not shifted; the same expression
/// otherwise).
#[inline(always)]
fn fe_normal(body: &Body, shift: bool, h: u32, a: DVec3, b: DVec3) -> DVec3 {
    if shift {
        body.local_normal(body.poly.half_edge(h).face).cross(b - a)
    } else {
        body.poly.vclip.fe[h as usize].c
    }
}

/// Handler-frame face–edge record of half-edge `h`: `(a, c, s)` as [`View::q_fe_rec`] gives
/// it (`s = |b − a|` when shifted, the table's `1 / |b − a|` otherwise).
#[inline(always)]
fn fe_of(body: &Body, shift: bool, t: DVec3, h: u32) -> (DVec3, DVec3, f64) {
    let poly = body.poly;
    let r = poly.vclip.fe[h as usize];
    if shift {
        let a = poly.vertex(r.origin) + t;
        let b = poly.vertex(body.head(h)) + t;
        let u = b - a;
        (a, body.local_normal(poly.half_edge(h).face).cross(u), u.length())
    } else {
        (poly.vertex(r.origin), r.c, r.inv_len)
    }
}

/// Slope of the distance to the plane of a face along an edge of the other body: `u·n` with
/// `u = head − tail` in the edge owner's handler frame (its vertices as used there) and `n` the
/// face's normal rotated into that frame. VF step 6, EF and EE's Eq. 3 all compute it with
/// this one expression (an edge taken from its other end gives the exact negation), so they
/// agree on its sign bit for bit.
#[inline]
fn edge_slope(u_own: DVec3, n_in_edge_frame: DVec3) -> f64 {
    u_own.dot(n_in_edge_frame)
}

/// What a handler decided: a kind and its feature or point, one flat record (in P/Q terms
/// from a handler, in A/B terms after [`map`]), so that swapping the orientation and the
/// iteration's dispatch are arithmetic rather than jump tables over enum payloads. Twelve
/// bytes, returned in registers: a penetration's point, needed once per query at most, goes
/// to [`Rel::pen`] instead.
#[derive(Clone, Copy, Debug)]
struct Step {
    /// [`Step::MOVE_P`] (bit 0: Q's feature instead, bit 1: two handler calls), [`Step::DONE_K`]
    /// or [`Step::PEN`].
    kind: u32,
    /// The new feature (moves).
    f: Feature,
}

impl Step {
    /// Move P's (after [`map`]: A's) feature; `| MOVE_Q`: Q's (B's); `| TWICE`: two handler
    /// calls (P's vertex moved to a neighbouring vertex: the VV step to their edge and the
    /// VE step that follows it from there, taken at once, see [`vv_half`]).
    const MOVE_P: u32 = 0;
    const MOVE_Q: u32 = 1;
    const TWICE: u32 = 2;
    /// Theorem 1 holds for the current pair.
    const DONE_K: u32 = 4;
    /// The current features intersect (at the point left in [`Rel::pen`]).
    const PEN: u32 = 5;
    const DONE: Step = Step {
        kind: Step::DONE_K,
        f: Feature::Vertex(0),
    };
    #[inline(always)]
    fn mv(kind: u32, f: Feature) -> Step {
        Step { kind, f }
    }
    #[allow(non_snake_case)]
    #[inline(always)]
    fn P(f: Feature) -> Step {
        Step::mv(Step::MOVE_P, f)
    }
    #[allow(non_snake_case)]
    #[inline(always)]
    fn Q(f: Feature) -> Step {
        Step::mv(Step::MOVE_Q, f)
    }
    #[allow(non_snake_case)]
    #[inline(always)]
    fn P2(f: Feature) -> Step {
        Step::mv(Step::MOVE_P | Step::TWICE, f)
    }
    /// The features intersect at `point` (common frame), recorded in `rel`.
    #[allow(non_snake_case)]
    #[inline(always)]
    fn Penetration(rel: &Rel, point: DVec3) -> Step {
        rel.pen.set(point);
        Step {
            kind: Step::PEN,
            f: Feature::Vertex(0),
        }
    }
    /// Applies a move (A/B terms) to the pair; `false` for [`Step::DONE_K`] and
    /// [`Step::PEN`].
    #[inline(always)]
    fn apply(&self, fa: &mut Feature, fb: &mut Feature) -> bool {
        if self.kind >= Step::DONE_K {
            return false;
        }
        if self.kind & Step::MOVE_Q == 0 {
            *fa = self.f;
        } else {
            *fb = self.f;
        }
        true
    }
}

/// Vertex–edge plane of edge `(v, w)` at `v`, positive on the vertex side.
#[inline]
fn ve_plane(v: DVec3, w: DVec3, x: DVec3) -> f64 {
    (v - w).dot(x - v)
}

/// Face–edge plane of half-edge `a → b` of a face with normal `n`, positive on the face side.
#[inline]
fn fe_plane(n: DVec3, a: DVec3, b: DVec3, x: DVec3) -> f64 {
    n.cross(b - a).dot(x - a)
}

#[inline]
fn lerp(t: DVec3, h: DVec3, l: f64) -> DVec3 {
    t * (1.0 - l) + h * l
}

/// Result of `clipEdge` (Alg. 1). Neighbours are carried as an opaque tag.
#[derive(Clone, Copy, Debug)]
struct Clip<N: Copy> {
    lo: f64,
    hi: f64,
    n_lo: Option<N>,
    n_hi: Option<N>,
    excluded: bool,
}

impl<N: Copy> Clip<N> {
    fn new() -> Self {
        Clip {
            lo: 0.0,
            hi: 1.0,
            n_lo: None,
            n_hi: None,
            excluded: false,
        }
    }
    /// Clips against one plane with signed distances `dt`, `dh` of the edge's tail and head
    /// (region side positive). Returns `false` once the edge is completely clipped.
    #[inline]
    fn plane(&mut self, dt: f64, dh: f64, n: N) -> bool {
        let (tn, hn) = (dt < 0.0, dh < 0.0);
        if !(tn | hn) {
            // Both ends on the region's side (the common case): nothing clipped.
            return true;
        }
        if tn & hn {
            self.n_lo = Some(n);
            self.n_hi = Some(n);
            self.excluded = true;
            return false;
        } else if tn {
            let l = dt / (dt - dh);
            if l > self.lo {
                self.lo = l;
                self.n_lo = Some(n);
                if self.lo > self.hi {
                    self.excluded = true;
                    return false;
                }
            }
        } else {
            let l = dt / (dt - dh);
            if l < self.hi {
                self.hi = l;
                self.n_hi = Some(n);
                if self.lo > self.hi {
                    self.excluded = true;
                    return false;
                }
            }
        }
        true
    }
}

/// Sign carrier of `D'_{E,V}` (Eq. 2).
#[inline]
fn deriv_vertex(u: DVec3, e: DVec3, v: DVec3) -> f64 {
    u.dot(e - v)
}

/// Sign carrier of `D'_{E,F}` (Eq. 3) for an edge of Q (`uq`: its direction in Q's frame) at
/// the point `e` (P's frame) against face `f` of P; `None` when `e` lies in the face's plane.
#[inline(always)]
fn deriv_face<const R: bool, const PA: bool>(w: &View<R, PA>, uq: DVec3, e: DVec3, f: u32) -> Option<f64> {
    let d = w.p_face_dist(f, e);
    let un = edge_slope(uq, w.p_dir_to_q(w.p.local_normal(f)));
    if d > 0.0 {
        Some(un)
    } else if d < 0.0 {
        Some(-un)
    } else {
        None
    }
}

/// Derivative sign of the distance from `e` (moving along Q's edge: `u` in P's local frame,
/// `uq` in Q's) to a neighbouring feature of P (vertex or face), or `None` when degenerate
/// (Eq. 2/3 invalid). `e`: P's local frame.
#[inline(always)]
fn deriv_feature<const R: bool, const PA: bool>(
    w: &View<R, PA>,
    u: DVec3,
    uq: DVec3,
    e: DVec3,
    n: Feature,
) -> Option<f64> {
    match n {
        Feature::Vertex(v) => {
            let x = w.p_local(v);
            if e == x {
                None
            } else {
                Some(deriv_vertex(u, e, x))
            }
        }
        Feature::Face(f) => deriv_face(w, uq, e, f),
        // Edges are never neighbours of an edge.
        Feature::Edge(_) => Some(0.0),
    }
}

/// VV half (Alg. 4 steps 1–4): is Q's vertex in VR(P's vertex)? Returns the maximally
/// violated plane's violation (squared distance beyond it) with the step.
fn vv_half<const R: bool, const PA: bool>(w: &View<R, PA>, vp: u32, vq: u32) -> Option<(f64, Step)> {
    let x = w.p_local(vp);
    let y = w.q_vertex_in_p(vq);
    let yx = y - x;
    // `ve_plane(x, o, y)` is `w·(y − x)` with the slot's `w = x − o`; the first violated
    // plane is taken, then any with a higher score.
    let mut best = 0.0f64;
    let mut best_k = usize::MAX;
    let recs = w.p.adj(vp);
    for (k, r) in recs.iter().enumerate() {
        let wv = w.p_adj(r, x);
        let d = wv.dot(yx);
        if d < 0.0 {
            let score = w.p_adj_score(r, wv, d);
            if score > best || best_k == usize::MAX {
                best = score;
                best_k = k;
            }
        }
    }
    if best_k == usize::MAX {
        return None;
    }
    let r = &recs[best_k];
    let (oi, edge) = (r.nbr, r.edge);
    // The VE handler of the new pair (edge (x, o), Q's vertex) first tests Q's vertex against
    // the edge's two vertex-edge planes, in this same frame with this same mapped point; the
    // plane at x is violated (above), so it moves to `o` exactly when the plane at `o` is
    // violated too. That step is taken here at once (bit for bit the same test).
    if ve_plane(w.p_local(oi), x, y) > 0.0 {
        return Some((best, Step::P2(Feature::Vertex(oi))));
    }
    Some((best, Step::P(Feature::Edge(edge))))
}

/// VE state (Alg. 5): vertex of P, edge of Q.
fn ve<const R: bool, const PA: bool>(w: &View<R, PA>, vp: u32, eq: u32) -> Step {
    let x = w.p_local(vp);
    let ed = *w.q.poly.edge(eq);
    let [ti, hi] = ed.vertices;
    // Steps 1–4: V against VR(E), vertex-edge planes first (Q's frame).
    {
        let x = w.p_vertex_in_q(vp);
        let (t, h) = (w.q_local(ti), w.q_local(hi));
        if -ve_plane(t, h, x) < 0.0 {
            return Step::Q(Feature::Vertex(ti));
        }
        if -ve_plane(h, t, x) < 0.0 {
            return Step::Q(Feature::Vertex(hi));
        }
        // Face-edge planes of the half-edges t → h (in the left face) and h → t (right).
        let [fl, fr] = ed.faces;
        let c = fe_normal(&w.q, View::<R, PA>::Q_SHIFT, ed.half_edge, t, h);
        if -c.dot(x - t) < 0.0 {
            return Step::Q(Feature::Face(fl));
        }
        let twin = w.q.poly.half_edge(ed.half_edge).twin;
        let c = fe_normal(&w.q, View::<R, PA>::Q_SHIFT, twin, h, t);
        if -c.dot(x - h) < 0.0 {
            return Step::Q(Feature::Face(fr));
        }
    }
    // Step 5: clip E against VR(V) (P's frame). Neighbours: P's outgoing half-edges.
    let (t, h) = (w.q_vertex_in_p(ti), w.q_vertex_in_p(hi));
    // Neighbours: P's adjacency slots (`ve_plane(x, o, ·)` is `w·(· − x)`).
    let mut c: Clip<usize> = Clip::new();
    let (tx, hx) = (t - x, h - x);
    let recs = w.p.adj(vp);
    for (k, r) in recs.iter().enumerate() {
        let wv = w.p_adj(r, x);
        if !c.plane(wv.dot(tx), wv.dot(hx), k) {
            break;
        }
    }
    let edge = |k: usize| Step::P(Feature::Edge(recs[k].edge));
    let u = h - t;
    if c.excluded {
        let (Some(nl), Some(nh)) = (c.n_lo, c.n_hi) else {
            return Step::DONE; // unreachable: exclusion always sets both
        };
        if nl == nh || deriv_vertex(u, lerp(t, h, c.lo), x) > 0.0 {
            return edge(nl);
        }
        return edge(nh);
    }
    // Step 9: derivative checks (Alg. 2, Eq. 2).
    if let Some(n) = c.n_lo {
        if deriv_vertex(u, lerp(t, h, c.lo), x) > 0.0 {
            return edge(n);
        }
    }
    if let Some(n) = c.n_hi {
        if deriv_vertex(u, lerp(t, h, c.hi), x) < 0.0 {
            return edge(n);
        }
    }
    Step::DONE
}

/// VF step 1 (Alg. 6): the half-edge of Q's face `fq` whose face–edge plane `x` (P's vertex
/// mapped into Q's frame) violates most, `u32::MAX` when none is violated.
#[inline(always)]
fn vf_worst_edge<const R: bool, const PA: bool>(w: &View<R, PA>, x: DVec3, fq: u32) -> u32 {
    // Over the face's half-edges (contiguous ids): `fe_plane(n, a, b, x)` is `c·(x − a)`, the
    // violation `d / |b − a|`.
    let mut worst = 0.0f64;
    let mut worst_h = u32::MAX;
    let (recs, h0) = w.q.face_fe(fq);
    for (h, r) in (h0..).zip(recs) {
        let (a, c, sc) = w.q_fe_rec(r, h);
        let d = c.dot(x - a);
        if d < 0.0 {
            let d = View::<R, PA>::q_fe_violation(d, sc);
            if d < worst {
                worst = d;
                worst_h = h;
            }
        }
    }
    worst_h
}

/// VF state (Alg. 6): vertex of P, face of Q (tests in Q's frame).
fn vf<const R: bool, const PA: bool>(w: &View<R, PA>, vp: u32, fq: u32) -> Step {
    let x = w.p_vertex_in_q(vp);
    let n = w.q.local_normal(fq);
    let q = w.q.poly;
    // Step 1: maximally violated face-edge plane.
    let worst_h = vf_worst_edge(w, x, fq);
    if worst_h != u32::MAX {
        return Step::Q(Feature::Edge(w.q.fe_edge(worst_h)));
    }
    // Step 6: the steepest edge of V pointing toward the plane of F (the slope is
    // `edge_slope`, as in EF and EE: in P's frame, F's normal rotated there once; the score
    // `slope² / |edge|²` as VV's, see the header).
    let dv = w.q_face_dist(fq, x);
    let np = w.q_dir_to_p(n);
    let xp = w.p_local(vp);
    let mut best = 0.0f64;
    let mut best_e = u32::MAX;
    for r in w.p.adj(vp) {
        // `o − x` is the exact negation of the slot's `w = x − o`.
        let wv = w.p_adj(r, xp);
        let slope = edge_slope(-wv, np);
        if (dv > 0.0 && slope < 0.0) || (dv < 0.0 && slope > 0.0) {
            let sc = w.p_adj_score(r, wv, slope);
            if sc > best || best_e == u32::MAX {
                best = sc;
                best_e = r.edge;
            }
        }
    }
    if best_e != u32::MAX {
        return Step::P(Feature::Edge(best_e));
    }
    if dv > 0.0 {
        return Step::DONE;
    }
    // Step 12: handleLocalMin (Alg. 3).
    let mut dmax = f64::NEG_INFINITY;
    let mut f0 = fq;
    for f in 0..q.faces().len() as u32 {
        let d = w.q_face_dist(f, x);
        if d > dmax {
            dmax = d;
            f0 = f;
        }
    }
    if dmax <= 0.0 {
        return Step::Penetration(w.rel, w.p.vertex(vp));
    }
    Step::Q(Feature::Face(f0))
}

/// Neighbour of an edge of P in its own region: a vertex or a face.
type EdgeNbr = Feature;

/// EE half (Alg. 7 steps 1–14): Q's edge against VR(P's edge).
fn ee_half<const R: bool, const PA: bool>(w: &View<R, PA>, ep: u32, eq: u32) -> Option<Step> {
    // Everything in P's frame (P owns the region).
    let e1 = *w.p.poly.edge(ep);
    let [t1i, h1i] = e1.vertices;
    let (t1, h1) = (w.p_local(t1i), w.p_local(h1i));
    let e2 = *w.q.poly.edge(eq);
    let (t2q, h2q) = (w.q_local(e2.vertices[0]), w.q_local(e2.vertices[1]));
    let (t2, h2) = (w.q_to_p(t2q), w.q_to_p(h2q));
    let u = h2 - t2;
    let uq = h2q - t2q;
    let pen = |e: DVec3| Some(Step::Penetration(w.rel, w.p_out(e)));
    // Steps 1–7: vertex-edge planes of VR(E1).
    let mut c: Clip<EdgeNbr> = Clip::new();
    let _ = c.plane(-ve_plane(t1, h1, t2), -ve_plane(t1, h1, h2), Feature::Vertex(t1i))
        && c.plane(-ve_plane(h1, t1, t2), -ve_plane(h1, t1, h2), Feature::Vertex(h1i));
    if c.excluded {
        let (Some(nl), Some(nh)) = (c.n_lo, c.n_hi) else {
            return None;
        };
        if nl == nh || deriv_feature(w, u, uq, lerp(t2, h2, c.lo), nl).is_some_and(|d| d > 0.0) {
            return Some(Step::P(nl));
        }
        return Some(Step::P(nh));
    }
    if let Some(n) = c.n_lo {
        let e = lerp(t2, h2, c.lo);
        match deriv_feature(w, u, uq, e, n) {
            None => return pen(e),
            Some(d) if d > 0.0 => return Some(Step::P(n)),
            _ => {}
        }
    }
    if let Some(n) = c.n_hi {
        let e = lerp(t2, h2, c.hi);
        match deriv_feature(w, u, uq, e, n) {
            None => return pen(e),
            Some(d) if d < 0.0 => return Some(Step::P(n)),
            _ => {}
        }
    }
    // Steps 8–14: face-edge planes, continuing the same clip.
    // Face-edge planes of the half-edges t1 → h1 (left face) and h1 → t1 (right face).
    let [fl, fr] = e1.faces;
    let cl = fe_normal(&w.p, View::<R, PA>::P_SHIFT, e1.half_edge, t1, h1);
    let twin = w.p.poly.half_edge(e1.half_edge).twin;
    let cr = fe_normal(&w.p, View::<R, PA>::P_SHIFT, twin, h1, t1);
    let _ = c.plane(-cl.dot(t2 - t1), -cl.dot(h2 - t1), Feature::Face(fl))
        && c.plane(-cr.dot(t2 - h1), -cr.dot(h2 - h1), Feature::Face(fr));
    if c.excluded {
        let (Some(nl), Some(nh)) = (c.n_lo, c.n_hi) else {
            return None;
        };
        if nl == nh {
            return Some(Step::P(nl));
        }
        let el = lerp(t2, h2, c.lo);
        let eh = lerp(t2, h2, c.hi);
        return Some(match (nl, nh) {
            (Feature::Vertex(_), _) => {
                if deriv_feature(w, u, uq, el, nl).is_some_and(|d| d > 0.0) {
                    Step::P(nl)
                } else {
                    Step::P(nh)
                }
            }
            (_, Feature::Vertex(_)) => {
                if deriv_feature(w, u, uq, eh, nh).is_some_and(|d| d < 0.0) {
                    Step::P(nh)
                } else {
                    Step::P(nl)
                }
            }
            _ => match deriv_feature(w, u, uq, el, nl) {
                Some(d) if d <= 0.0 => Step::P(nh),
                _ => Step::P(nl),
            },
        });
    }
    if let Some(n) = c.n_lo {
        let e = lerp(t2, h2, c.lo);
        match deriv_feature(w, u, uq, e, n) {
            None => return pen(e),
            Some(d) if d > 0.0 => return Some(Step::P(n)),
            _ => {}
        }
    }
    if let Some(n) = c.n_hi {
        let e = lerp(t2, h2, c.hi);
        match deriv_feature(w, u, uq, e, n) {
            None => return pen(e),
            Some(d) if d < 0.0 => return Some(Step::P(n)),
            _ => {}
        }
    }
    None
}

/// EF state (Alg. 8): edge of P, face of Q.
fn ef<const R: bool, const PA: bool>(w: &View<R, PA>, ep: u32, fq: u32) -> Step {
    // Everything in Q's frame (Q owns the region).
    let e = *w.p.poly.edge(ep);
    let [ti, hi] = e.vertices;
    let (t, h) = (w.p_vertex_in_q(ti), w.p_vertex_in_q(hi));
    let n = w.q.local_normal(fq);
    // Step 1: clip E against the face-edge planes of VR(F) (neighbours: half-edges of F).
    let mut c: Clip<u32> = Clip::new();
    let (recs, h0) = w.q.face_fe(fq);
    for (he, r) in (h0..).zip(recs) {
        let (a, cn, _) = w.q_fe_rec(r, he);
        if !c.plane(cn.dot(t - a), cn.dot(h - a), he) {
            break;
        }
    }
    if c.excluded {
        return Step::Q(perimeter_scan(w, t, h, fq));
    }
    let el = lerp(t, h, c.lo);
    let eh = lerp(t, h, c.hi);
    let dl = w.q_face_dist(fq, el);
    let dh = w.q_face_dist(fq, eh);
    if (dl <= 0.0 && dh >= 0.0) || (dl >= 0.0 && dh <= 0.0) {
        let p = if dl == dh {
            el
        } else {
            el + (eh - el) * (dl / (dl - dh))
        };
        return Step::Penetration(w.rel, w.q_out(p));
    }
    let un = edge_slope(w.p_local(hi) - w.p_local(ti), w.q_dir_to_p(n));
    let d_lo = if dl > 0.0 { un } else { -un };
    if d_lo >= 0.0 {
        match c.n_lo {
            Some(he) => Step::Q(Feature::Edge(w.q.fe_edge(he))),
            None => Step::P(Feature::Vertex(ti)),
        }
    } else {
        match c.n_hi {
            Some(he) => Step::Q(Feature::Edge(w.q.fe_edge(he))),
            None => Step::P(Feature::Vertex(hi)),
        }
    }
}

/// §3.3.3: the boundary edge of face `f` (of Q) closest to the edge `t → h` (of P, mapped
/// into Q's frame).
///
/// The whole perimeter is scanned (O(s) for an s-gon): a walk that stops at the first edge
/// whose slab holds the minimum of the clipped distance can stop at a local minimum on the
/// far side of the face, after which EE sends the pair straight back here (observed on
/// icospheres). Ties go to the first edge in counter-clockwise order; a closest point at a
/// shared vertex is then refined by the EE/VE handlers (same distance, lower dimension).
fn perimeter_scan<const R: bool, const PA: bool>(w: &View<R, PA>, t: DVec3, h: DVec3, f: u32) -> Feature {
    let q = w.q.poly;
    let mut best = f64::INFINITY;
    let mut best_edge = q.half_edge(q.face(f).half_edge).edge;
    for s in q.face_half_edges(f) {
        let he = q.half_edge(s);
        let a = w.q_local(he.origin);
        let b = w.q_local(w.q.head(s));
        let (x, y) = closest_segment_segment(t, h, a, b);
        let d = (x - y).length_squared();
        if d < best {
            best = d;
            best_edge = he.edge;
        }
    }
    Feature::Edge(best_edge)
}

/// A handler's step in A/B terms (`swapped`: P is B): a move of P becomes one of B.
#[inline(always)]
fn map(step: Step, swapped: bool) -> Step {
    Step {
        kind: step.kind ^ ((step.kind < Step::DONE_K) & swapped) as u32,
        ..step
    }
}

#[inline(always)]
fn step<const R: bool>(ab: &View<R, true>, ba: &View<R, false>, fa: Feature, fb: Feature) -> Step {
    use Feature::*;
    match (fa, fb) {
        (Vertex(x), Vertex(y)) => match (vv_half(ab, x, y), vv_half(ba, y, x)) {
            (Some((d1, s1)), Some((d2, s2))) => {
                if d2 > d1 {
                    map(s2, true)
                } else {
                    map(s1, false)
                }
            }
            (Some((_, s)), None) => map(s, false),
            (None, Some((_, s))) => map(s, true),
            (None, None) => Step::DONE,
        },
        (Vertex(x), Edge(y)) => map(ve(ab, x, y), false),
        (Edge(x), Vertex(y)) => map(ve(ba, y, x), true),
        (Vertex(x), Face(y)) => map(vf(ab, x, y), false),
        (Face(x), Vertex(y)) => map(vf(ba, y, x), true),
        (Edge(x), Edge(y)) => match ee_half(ab, x, y) {
            Some(s) => map(s, false),
            None => match ee_half(ba, y, x) {
                Some(s) => map(s, true),
                None => Step::DONE,
            },
        },
        (Edge(x), Face(y)) => map(ef(ab, x, y), false),
        (Face(x), Edge(y)) => map(ef(ba, y, x), true),
        (Face(x), Face(_)) => Step::P(Vertex(ab.p.poly.half_edge(ab.p.poly.face(x).half_edge).origin)),
    }
}

/// The raw result of a V-Clip run, in A's local frame.
enum Run {
    Closest {
        pair: FeaturePair,
        pa: DVec3,
        pb: DVec3,
        iterations: u32,
    },
    Penetration {
        pair: FeaturePair,
        point: DVec3,
        iterations: u32,
    },
    NotConverged {
        iterations: u32,
    },
}

/// Closest points between the certified features (A's frame).
fn closest_points<const R: bool>(ab: &View<R, true>, fa: Feature, fb: Feature) -> (DVec3, DVec3) {
    use Feature::*;
    let (a, b) = (&ab.p, &ab.q);
    #[inline(always)]
    fn ends(body: &Body, e: u32) -> (DVec3, DVec3) {
        let [t, h] = body.poly.edge(e).vertices;
        (body.vertex(t), body.vertex(h))
    }
    match (fa, fb) {
        (Vertex(x), Vertex(y)) => (a.vertex(x), b.vertex(y)),
        (Vertex(x), Edge(y)) => {
            let p = a.vertex(x);
            let (t, h) = ends(b, y);
            (p, closest_on_segment(p, t, h).0)
        }
        (Edge(x), Vertex(y)) => {
            let p = b.vertex(y);
            let (t, h) = ends(a, x);
            (closest_on_segment(p, t, h).0, p)
        }
        (Vertex(x), Face(y)) => {
            let p = a.vertex(x);
            (p, p - b.normal(y) * b.face_dist(y, p))
        }
        (Face(x), Vertex(y)) => {
            let p = b.vertex(y);
            (p - a.normal(x) * a.face_dist(x, p), p)
        }
        (Edge(x), Edge(y)) => {
            let (t1, h1) = ends(a, x);
            let (t2, h2) = ends(b, y);
            closest_segment_segment(t1, h1, t2, h2)
        }
        // Never certified by a handler.
        (Edge(x), Face(_)) | (Face(x), Face(_)) | (Face(x), Edge(_)) => {
            let p = match fa {
                Edge(_) => ends(a, x).0,
                _ => a.vertex(a.poly.half_edge(a.poly.face(x).half_edge).origin),
            };
            (p, p)
        }
    }
}

/// Closest points of a pair on the cycle that are certainly points of the two shapes (to
/// rounding): VV, VE and EE pairs always (clamped segments), VF pairs only when the vertex
/// lies in the face's prism (its projection is then on the face); EF and FF pairs have none.
fn cycle_candidate<const R: bool>(ab: &View<R, true>, fa: Feature, fb: Feature) -> Option<(DVec3, DVec3)> {
    let in_prism = |body: &Body, f: u32, x: DVec3| {
        let n = body.normal(f);
        body.poly.face_half_edges(f).all(|h| {
            let a = body.vertex(body.poly.half_edge(h).origin);
            let b = body.vertex(body.head(h));
            fe_plane(n, a, b, x) >= 0.0
        })
    };
    match (fa, fb) {
        (Feature::Edge(_), Feature::Face(_))
        | (Feature::Face(_), Feature::Edge(_))
        | (Feature::Face(_), Feature::Face(_)) => None,
        (Feature::Vertex(v), Feature::Face(f)) if !in_prism(&ab.q, f, ab.p.vertex(v)) => None,
        (Feature::Face(f), Feature::Vertex(v)) if !in_prism(&ab.p, f, ab.q.vertex(v)) => None,
        _ => Some(closest_points(ab, fa, fb)),
    }
}

/// `min_Q n·y − max_P n·x` (common frame): a lower bound on the distance, for any direction
/// `n`, by two hill-climbing support queries started at the given features.
fn slab_gap<const R: bool>(ab: &View<R, true>, fa: Feature, fb: Feature, n: DVec3) -> f64 {
    let local = |body: &Body, d: DVec3| match &body.frame {
        None => d,
        Some(r) => r.mt * d,
    };
    let va = ab.p.poly.support_climb(local(&ab.p, n), feature_vertex(ab.p.poly, fa));
    let vb = ab.q.poly.support_climb(local(&ab.q, -n), feature_vertex(ab.q.poly, fb));
    n.dot(ab.q.vertex(vb)) - n.dot(ab.p.vertex(va))
}

/// Resolves a cycle of the iteration (period `period`, through `start`). In exact arithmetic
/// V-Clip cannot cycle; in floating point it does when distance-decreasing updates are decided
/// by rounding noise, e.g. between exactly parallel faces or edges (a translated copy of a
/// centrally symmetric shape), where every pair on the cycle is at the same distance to
/// rounding. The pair of the cycle whose closest points (both on the shapes) are nearest is
/// accepted when the slab along their difference certifies it: the true distance lies in
/// `[gap, d]`, so `d − gap ≤ tol` bounds the error. Otherwise `None` (not converged).
fn settle_cycle<const R: bool>(
    ab: &View<R, true>,
    ba: &View<R, false>,
    start: (Feature, Feature),
    period: u32,
    tol: f64,
) -> Option<(FeaturePair, DVec3, DVec3)> {
    let (mut fa, mut fb) = start;
    let mut best: Option<(f64, FeaturePair, DVec3, DVec3)> = None;
    for _ in 0..period {
        if let Some((xa, xb)) = cycle_candidate(ab, fa, fb) {
            let d = (xb - xa).length();
            if best.as_ref().is_none_or(|b| d < b.0) {
                best = Some((d, FeaturePair { a: fa, b: fb }, xa, xb));
            }
        }
        if !step(ab, ba, fa, fb).apply(&mut fa, &mut fb) {
            // Unreachable: the cycle was observed with the same deterministic handlers.
            return None;
        }
    }
    let (d, pair, xa, xb) = best?;
    if d.is_nan() {
        return None;
    }
    if d > 0.0 && d - slab_gap(ab, pair.a, pair.b, (xb - xa) / d) <= tol {
        return Some((pair, xa, xb));
    }
    // At (near-)contact the direction xb − xa is rounding noise. The slab normals that can
    // certify a contact are the face normals at the cycle's features and the cross products
    // of their edges (the extreme rays of the intersection of the two normal cones): walk the
    // cycle once more collecting them, and take the best lower bound.
    let mut dirs = LocalDirs::default();
    let (mut ga, mut gb) = start;
    for _ in 0..period {
        dirs.add(&ab.p, ga, 1.0, true);
        dirs.add(&ab.q, gb, -1.0, false);
        if !step(ab, ba, ga, gb).apply(&mut ga, &mut gb) {
            // Unreachable: the cycle was observed with the same deterministic handlers.
            return None;
        }
    }
    let mut gap = f64::NEG_INFINITY;
    for n in &dirs.normals[..dirs.nn] {
        gap = gap.max(slab_gap(ab, pair.a, pair.b, *n));
    }
    for ea in &dirs.edges_a[..dirs.na] {
        for eb in &dirs.edges_b[..dirs.nb] {
            let c = ea.cross(*eb);
            let l = c.length();
            if l > 0.0 && l.is_finite() {
                let n = c / l;
                gap = gap.max(slab_gap(ab, pair.a, pair.b, n));
                gap = gap.max(slab_gap(ab, pair.a, pair.b, -n));
            }
        }
    }
    (d - gap <= tol).then_some((pair, xa, xb))
}

/// handleLocalMin's penetration test (Alg. 3) applied to the features of a cycle: a vertex on
/// or inside every face plane of the other polyhedron is a common point, and so is a point of
/// an edge (or of a face's boundary edge) that the same face planes do not clip away (the
/// edge clipped against the other polyhedron, signs compared with 0 as in Alg. 3; the point
/// returned is the middle of the surviving part). O(faces) per vertex, edge or face edge;
/// only run on a detected cycle.
fn cycle_penetration<const R: bool>(
    ab: &View<R, true>,
    ba: &View<R, false>,
    start: (Feature, Feature),
    period: u32,
) -> Option<(FeaturePair, DVec3)> {
    let (mut fa, mut fb) = start;
    for _ in 0..period {
        let pair = FeaturePair { a: fa, b: fb };
        if let Some(x) = feature_inside(&ab.p, fa, &ab.q).or_else(|| feature_inside(&ab.q, fb, &ab.p)) {
            return Some((pair, x));
        }
        if !step(ab, ba, fa, fb).apply(&mut fa, &mut fb) {
            // Unreachable: the cycle was observed with the same deterministic handlers.
            return None;
        }
    }
    None
}

/// A point of feature `f` of `body` on or inside every face plane of `other` (common frame),
/// if the sign tests find one: the vertex itself, the middle of the part of an edge inside
/// `other`, or that of a face's boundary edge.
fn feature_inside(body: &Body, f: Feature, other: &Body) -> Option<DVec3> {
    match f {
        Feature::Vertex(v) => {
            let x = body.vertex(v);
            (0..other.poly.faces().len() as u32)
                .all(|g| other.face_dist(g, x) <= 0.0)
                .then_some(x)
        }
        Feature::Edge(e) => {
            let [t, h] = body.poly.edge(e).vertices;
            segment_inside(other, body.vertex(t), body.vertex(h))
        }
        Feature::Face(x) => body.poly.face_half_edges(x).find_map(|h| {
            let he = body.poly.half_edge(h);
            segment_inside(other, body.vertex(he.origin), body.vertex(body.head(h)))
        }),
    }
}

/// The middle of the part of the segment `t → h` (common frame) on or inside every face plane
/// of `body`, when the clip leaves one.
fn segment_inside(body: &Body, t: DVec3, h: DVec3) -> Option<DVec3> {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for g in 0..body.poly.faces().len() as u32 {
        let (dt, dh) = (body.face_dist(g, t), body.face_dist(g, h));
        if dt > 0.0 && dh > 0.0 {
            return None;
        }
        if dt > 0.0 {
            lo = lo.max(dt / (dt - dh));
        } else if dh > 0.0 {
            hi = hi.min(dt / (dt - dh));
        }
        if lo > hi {
            return None;
        }
    }
    Some(lerp(t, h, 0.5 * (lo + hi)))
}

/// Candidate slab normals near a cycle's features (fixed capacity: the cycle path is rare and
/// must not allocate; the caps bound its cost).
struct LocalDirs {
    normals: [DVec3; 48],
    nn: usize,
    edges_a: [DVec3; 16],
    na: usize,
    edges_b: [DVec3; 16],
    nb: usize,
}

impl Default for LocalDirs {
    fn default() -> Self {
        LocalDirs {
            normals: [DVec3::ZERO; 48],
            nn: 0,
            edges_a: [DVec3::ZERO; 16],
            na: 0,
            edges_b: [DVec3::ZERO; 16],
            nb: 0,
        }
    }
}

impl LocalDirs {
    fn normal(&mut self, n: DVec3) {
        if self.nn < self.normals.len() && !self.normals[..self.nn].contains(&n) {
            self.normals[self.nn] = n;
            self.nn += 1;
        }
    }
    fn edge(&mut self, e: DVec3, side_a: bool) {
        let (buf, k) = if side_a {
            (&mut self.edges_a, &mut self.na)
        } else {
            (&mut self.edges_b, &mut self.nb)
        };
        if *k < buf.len() && !buf[..*k].iter().any(|x| *x == e || *x == -e) {
            buf[*k] = e;
            *k += 1;
        }
    }
    /// Face normals (times `sign`: outward for A, inward for B) and edge directions at `f`.
    fn add(&mut self, body: &Body, f: Feature, sign: f64, side_a: bool) {
        let poly = body.poly;
        match f {
            Feature::Vertex(v) => {
                for &h in poly.outgoing(v) {
                    let he = poly.half_edge(h);
                    self.normal(sign * body.normal(he.face));
                    self.edge(body.vertex(body.head(h)) - body.vertex(v), side_a);
                }
            }
            Feature::Edge(e) => {
                let ed = poly.edge(e);
                self.normal(sign * body.normal(ed.faces[0]));
                self.normal(sign * body.normal(ed.faces[1]));
                self.edge(body.vertex(ed.vertices[1]) - body.vertex(ed.vertices[0]), side_a);
            }
            Feature::Face(x) => self.normal(sign * body.normal(x)),
        }
    }
}

#[inline(always)]
fn run(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose, cache: &mut VClipCache) -> Run {
    // B's pose in A's frame (`Pose::relative` skips the product and the rotation when A's
    // rotation is the identity).
    let rel_pose = pa.relative(pb);
    // A unit quaternion to rounding (the common case: see `UNIT_QUAT_SLACK`) is used as it is;
    // the handlers' signs are exact for whatever fixed map the query uses.
    let q = rel_pose.rotation;
    let rel_rotation = if (q.length_squared() - 1.0).abs() <= UNIT_QUAT_SLACK {
        q
    } else {
        q.normalize()
    };
    let rel_translation = rel_pose.translation;
    let m = DMat3::from_quat(rel_rotation);
    let rel = Rel {
        m,
        mt: m.transpose(),
        t: rel_translation,
        pen: Cell::new(DVec3::ZERO),
    };
    // The handlers' frames (see [`View`]): the common frame for both bodies when the rotation
    // is exactly the identity, else each body's local frame.
    if m == DMat3::IDENTITY {
        iterate::<false>(a, pa, b, pb, cache, &rel)
    } else {
        iterate::<true>(a, pa, b, pb, cache, &rel)
    }
}

/// The iteration of [`run`], for one kind of handler frame (`R`: rotated, see [`View`]).
#[inline(always)]
fn iterate<const R: bool>(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut VClipCache,
    rel: &Rel,
) -> Run {
    let (m, rel_translation) = (rel.m, rel.t);
    let body_a = Body { poly: a, frame: None };
    let body_b = Body {
        poly: b,
        frame: Some(rel),
    };
    let ab: View<R, true> = View {
        p: body_a,
        q: body_b,
        rel,
    };
    let ba: View<R, false> = View {
        p: body_b,
        q: body_a,
        rel,
    };
    let (mut fa, mut fb) = match cache.pair {
        Some(p) if body_a.feature_ok(p.a) && body_b.feature_ok(p.b) => (p.a, p.b),
        // Cold start: the support vertices along the line between the centroids (a short
        // climb from the direction table's start), near the closest features of round
        // shapes, instead of a walk across the surfaces from vertex 0.
        _ => {
            let dir = (m * b.centroid() + rel_translation) - a.centroid();
            (
                Feature::Vertex(a.support_climb_hinted(dir, u32::MAX)),
                Feature::Vertex(b.support_climb_hinted(-(m.transpose() * dir), u32::MAX)),
            )
        }
    };
    // The bound on handler calls, `4·(V+E+F of both) + 100`, is at least 100: counted only
    // past that (a warm query takes a handful of calls).
    let bound = || {
        let (va, ea, fca) = a.counts();
        let (vb, eb, fcb) = b.counts();
        (4 * (va + ea + fca + vb + eb + fcb) + 100).min(u32::MAX as usize) as u32
    };
    // Brent's cycle detection over the deterministic map (fa, fb) -> next pair, from the
    // `CYCLE_CHECK_FROM`-th handler call on (the iteration is deterministic, so a cycle is
    // found from any later pair just as well; warm queries end before and skip the
    // bookkeeping). `saved` starts as a pair the iteration never visits.
    const CYCLE_CHECK_FROM: u32 = 16;
    let mut saved = (Feature::Face(u32::MAX), Feature::Face(u32::MAX));
    let mut power = 1u32;
    let mut lam = 0u32;
    let mut iterations = 0u32;
    while iterations < 100 || iterations < bound() {
        iterations += 1;
        let s = step(&ab, &ba, fa, fb);
        if s.apply(&mut fa, &mut fb) {
            iterations += s.kind >> 1;
        } else if s.kind == Step::DONE_K {
            let pair = FeaturePair { a: fa, b: fb };
            cache.pair = Some(pair);
            let (xa, xb) = closest_points(&ab, fa, fb);
            return Run::Closest {
                pair,
                pa: xa,
                pb: xb,
                iterations,
            };
        } else {
            let pair = FeaturePair { a: fa, b: fb };
            cache.pair = Some(pair);
            return Run::Penetration {
                pair,
                point: rel.pen.get(),
                iterations,
            };
        }
        if iterations < CYCLE_CHECK_FROM {
            continue;
        }
        if (fa, fb) == saved {
            // A repeated pair: the deterministic iteration cycles (ties decided by rounding).
            // A cycle through a feature with a point inside the other polyhedron (e.g. a
            // vertex below a face of A parallel to a face of B: the slopes along its edges
            // are rounding noise; or an edge of nearly identical concentric solids) is a
            // penetration: Alg. 3's test, applied to the cycle's features.
            if let Some((pair, point)) = cycle_penetration(&ab, &ba, (fa, fb), lam + 1) {
                cache.pair = Some(pair);
                return Run::Penetration {
                    pair,
                    point,
                    iterations: iterations.saturating_add(lam + 1),
                };
            }
            let scale = pair_scale(a, pa, b, pb);
            return match settle_cycle(&ab, &ba, (fa, fb), lam + 1, DISTANCE_GAP_REL * scale) {
                Some((pair, xa, xb)) => {
                    cache.pair = Some(pair);
                    Run::Closest {
                        pair,
                        pa: xa,
                        pb: xb,
                        iterations: iterations.saturating_add(lam + 1),
                    }
                }
                None => {
                    cache.pair = None;
                    Run::NotConverged { iterations }
                }
            };
        }
        lam += 1;
        if lam == power {
            saved = (fa, fb);
            power = power.saturating_mul(2);
            lam = 0;
        }
    }
    cache.pair = None;
    Run::NotConverged { iterations }
}

/// Boolean V-Clip.
pub fn intersect(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut VClipCache,
) -> Result<Intersection, PolycdError> {
    Ok(match distance_with_plane(a, pa, b, pb, cache, true) {
        (
            Distance::Separated {
                distance,
                point_a,
                point_b,
                iterations,
                ..
            },
            Some(plane),
            _,
        ) => {
            if distance <= contact_tolerance(a, pa, b, pb) {
                Intersection::Touching {
                    point: (point_a + point_b) * 0.5,
                    plane,
                    iterations,
                }
            } else {
                Intersection::Disjoint { plane, iterations }
            }
        }
        (
            Distance::Penetrating {
                witness, iterations, ..
            },
            _,
            _,
        ) => Intersection::Overlapping { witness, iterations },
        (d, _, _) => Intersection::NotConverged {
            iterations: d.iterations(),
        },
    })
}

/// The separating plane through the midpoint of the closest points. Its normal is
/// `point_b − point_a`, made exactly perpendicular to every edge or face carrying a closest
/// point: a face normal is used as is, two crossing edges give their cross product, and an
/// edge's direction is projected out (twice, so the residual along it is at rounding level).
/// When the gap is tiny against the shapes, the difference of the points has few correct
/// digits, and a plane tilted along an edge or face would cut the far end of that feature.
#[allow(clippy::too_many_arguments)]
fn separating_plane(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    point_a: DVec3,
    point_b: DVec3,
    features: FeaturePair,
    distance: f64,
) -> Plane {
    let diff = (point_b - point_a) / distance;
    let dir = |p: &ConvexPolyhedron, pose: &Pose, e: u32| {
        let [t, h] = p.edge(e).vertices;
        pose.transform_vector(p.vertex(h) - p.vertex(t))
    };
    let project = |n: DVec3, u: DVec3| {
        let l2 = u.length_squared();
        let m = n - u * (n.dot(u) / l2);
        m - u * (m.dot(u) / l2)
    };
    let normal = match (features.a, features.b) {
        (Feature::Face(f), _) => pa.transform_vector(a.face(f).normal),
        (_, Feature::Face(f)) => -pb.transform_vector(b.face(f).normal),
        (Feature::Edge(x), Feature::Edge(y)) => {
            let (u1, u2) = (dir(a, pa, x), dir(b, pb, y));
            let c = u1.cross(u2);
            // Crossing edges: the common normal; (near-)parallel edges: project out one.
            let n = if c.length_squared() > CROSSING_EDGES_SIN2 * u1.length_squared() * u2.length_squared() {
                c
            } else {
                project(diff, u1)
            };
            if n.dot(diff) < 0.0 {
                -n
            } else {
                n
            }
        }
        (Feature::Edge(x), _) => project(diff, dir(a, pa, x)),
        (_, Feature::Edge(y)) => project(diff, dir(b, pb, y)),
        _ => diff,
    };
    let normal = normal.normalize_or(diff);
    Plane {
        normal,
        offset: normal.dot((point_a + point_b) * 0.5),
    }
}

/// Face normals and edge vectors around a feature (local frame): the faces through it and, for
/// a vertex or an edge, the edges through it; at most `N` of each.
fn feature_frame<const N: usize>(p: &ConvexPolyhedron, f: Feature) -> ([DVec3; N], usize, [DVec3; N], usize) {
    let mut normals = [DVec3::ZERO; N];
    let mut edges = [DVec3::ZERO; N];
    let (mut nn, mut ne) = (0, 0);
    match f {
        Feature::Vertex(v) => {
            let o = p.vertex(v);
            for (&h, &w) in p.outgoing(v).iter().zip(p.neighbors(v)) {
                if nn < N {
                    normals[nn] = p.face(p.half_edge(h).face).normal;
                    nn += 1;
                }
                if ne < N {
                    edges[ne] = p.vertex(w) - o;
                    ne += 1;
                }
            }
        }
        Feature::Edge(e) => {
            let ed = p.edge(e);
            for &x in &ed.faces {
                normals[nn] = p.face(x).normal;
                nn += 1;
            }
            edges[0] = p.vertex(ed.vertices[1]) - p.vertex(ed.vertices[0]);
            ne = 1;
        }
        Feature::Face(x) => {
            normals[0] = p.face(x).normal;
            nn = 1;
        }
    }
    (normals, nn, edges, ne)
}

/// A separating plane checked against the supports, for separated answers near contact
/// (`d ≤ PLANE_CHECK_REL × pair scale`): a normal taken from the closest-point vector is only
/// as good as that vector's rounding (error ≈ ulp(coordinates) / d, tilting the plane across
/// the whole shape), so the plane is kept only if the supports confirm it; otherwise the face
/// normals and edge cross products around the closest features — among which lies the exact
/// normal of the face of A − B holding the closest point — are tried and the one with the
/// widest gap wins. The offset is the middle of the measured gap.
#[allow(clippy::too_many_arguments)]
fn checked_separating_plane(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    point_a: DVec3,
    point_b: DVec3,
    pair: FeaturePair,
    distance: f64,
) -> Plane {
    let plane = separating_plane(a, pa, b, pb, point_a, point_b, pair, distance);
    let gap = |n: DVec3| {
        let (top_a, bottom_b) = extents(a, pa, b, pb, pair, n);
        (bottom_b - top_a, 0.5 * (top_a + bottom_b))
    };
    let (g0, mid0) = gap(plane.normal);
    let mut best = (g0, plane.normal, mid0);
    if g0 > 0.0 {
        return Plane {
            normal: plane.normal,
            offset: mid0,
        };
    }
    const N: usize = 16;
    let (na, kna, ea, kea) = feature_frame::<N>(a, pair.a);
    let (nb, knb, eb, keb) = feature_frame::<N>(b, pair.b);
    let mut try_normal = |n: DVec3| {
        if n.is_finite() && n.length_squared() > 0.0 {
            let (g, mid) = gap(n);
            if g > best.0 {
                best = (g, n, mid);
            }
        }
    };
    for n in &na[..kna] {
        try_normal(pa.transform_vector(*n));
    }
    for n in &nb[..knb] {
        try_normal(-pb.transform_vector(*n));
    }
    for u in &ea[..kea] {
        let u = pa.transform_vector(*u);
        for v in &eb[..keb] {
            let c = u.cross(pb.transform_vector(*v));
            let l = c.length();
            if l > 0.0 {
                try_normal(c / l);
                try_normal(-c / l);
            }
        }
    }
    Plane {
        normal: best.1,
        offset: best.2,
    }
}

/// Some vertex of a feature.
fn feature_vertex(p: &ConvexPolyhedron, f: Feature) -> u32 {
    match f {
        Feature::Vertex(v) => v,
        Feature::Edge(e) => p.edge(e).vertices[0],
        Feature::Face(x) => p.half_edge(p.face(x).half_edge).origin,
    }
}

/// `(max_A n·x, min_B n·x)` for a world direction `n`: support vertices by hill-climbing from
/// the witness features (a step or two when the features are near the supports).
fn extents(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    pair: FeaturePair,
    n: DVec3,
) -> (f64, f64) {
    let va = a.support_climb(pa.inverse_transform_vector(n), feature_vertex(a, pair.a));
    let vb = b.support_climb(pb.inverse_transform_vector(-n), feature_vertex(b, pair.b));
    (
        n.dot(pa.transform_point(a.vertex(va))),
        n.dot(pb.transform_point(b.vertex(vb))),
    )
}

/// A plane showing that the shapes overlap by at most the contact tolerance (so they touch),
/// tried along the normals the witness features suggest: a face's normal, the cross product
/// of two edges. Used when the features meet (distance 0 or within the contact tolerance):
/// the plane through the mid-slab is returned, A below and B above up to the tolerance.
fn touching_plane(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    pair: FeaturePair,
    extra: Option<DVec3>,
) -> Option<Plane> {
    let tol = contact_tolerance(a, pa, b, pb);
    let edge_dir = |p: &ConvexPolyhedron, pose: &Pose, f: Feature| match f {
        Feature::Edge(e) => {
            let [t, h] = p.edge(e).vertices;
            Some(pose.transform_vector(p.vertex(h) - p.vertex(t)))
        }
        _ => None,
    };
    let face_a = match pair.a {
        Feature::Face(f) => Some(pa.transform_vector(a.face(f).normal)),
        _ => None,
    };
    let face_b = match pair.b {
        Feature::Face(f) => Some(-pb.transform_vector(b.face(f).normal)),
        _ => None,
    };
    let cross = match (edge_dir(a, pa, pair.a), edge_dir(b, pb, pair.b)) {
        (Some(u), Some(v)) => {
            let c = u.cross(v);
            (c.length_squared() > CROSSING_EDGES_SIN2 * u.length_squared() * v.length_squared()).then(|| c.normalize())
        }
        _ => None,
    };
    let candidates = [extra, face_a, face_b, cross, cross.map(|c| -c)];
    for n in candidates.into_iter().flatten() {
        let (top_a, bottom_b) = extents(a, pa, b, pb, pair, n);
        if top_a - bottom_b <= tol {
            return Some(Plane {
                normal: n,
                offset: 0.5 * (top_a + bottom_b),
            });
        }
    }
    None
}

/// V-Clip's answer plus, for separated and touching answers, the separating plane (for
/// clearly separated answers only when `want_plane`).
#[inline(always)]
fn distance_with_plane(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut VClipCache,
    want_plane: bool,
) -> (Distance, Option<Plane>, bool) {
    let penetrating = |features, point, iterations| Distance::Penetrating {
        witness: OverlapWitness::Features { features, point },
        penetration: None,
        iterations,
    };
    match run(a, pa, b, pb, cache) {
        Run::Closest {
            pair,
            pa: xa,
            pb: xb,
            iterations,
        } => {
            let (wa, wb) = (pa.transform_point(xa), pa.transform_point(xb));
            let d = (wb - wa).length();
            let separated = |plane, clear| {
                (
                    Distance::Separated {
                        distance: d,
                        point_a: wa,
                        point_b: wb,
                        features: pair,
                        iterations,
                    },
                    Some(plane),
                    clear,
                )
            };
            if d > 0.0 && xa != xb {
                // Clearly apart (beyond an O(1) upper bound of the contact tolerance): the
                // plane is built only when the caller wants it.
                if d > contact_tolerance_bound(a, pa, b, pb) {
                    let plane = if want_plane && d > PLANE_CHECK_REL * pair_scale(a, pa, b, pb) {
                        separating_plane(a, pa, b, pb, wa, wb, pair, d)
                    } else if want_plane {
                        checked_separating_plane(a, pa, b, pb, wa, wb, pair, d)
                    } else {
                        Plane {
                            normal: DVec3::ZERO,
                            offset: 0.0,
                        }
                    };
                    return separated(plane, true);
                }
                let plane = if d > PLANE_CHECK_REL * pair_scale(a, pa, b, pb) {
                    separating_plane(a, pa, b, pb, wa, wb, pair, d)
                } else {
                    checked_separating_plane(a, pa, b, pb, wa, wb, pair, d)
                };
                if d > contact_tolerance(a, pa, b, pb) {
                    return separated(plane, false);
                }
                // Touching band: the Voronoi tests sit on rounding noise; keep the answer only
                // if a plane shows the shapes overlap by at most the tolerance.
                if let Some(p) = touching_plane(a, pa, b, pb, pair, Some(plane.normal)) {
                    return separated(p, false);
                }
            } else if let Some(p) = touching_plane(a, pa, b, pb, pair, None) {
                return separated(p, false);
            }
            (penetrating(pair, (wa + wb) * 0.5, iterations), None, false)
        }
        Run::Penetration {
            pair,
            point,
            iterations,
        } => {
            let w = pa.transform_point(point);
            match touching_plane(a, pa, b, pb, pair, None) {
                Some(plane) => (
                    Distance::Separated {
                        distance: 0.0,
                        point_a: w,
                        point_b: w,
                        features: pair,
                        iterations,
                    },
                    Some(plane),
                    false,
                ),
                None => (penetrating(pair, w, iterations), None, false),
            }
        }
        Run::NotConverged { iterations } => (Distance::NotConverged { iterations }, None, false),
    }
}

/// Distance V-Clip.
pub fn distance(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut VClipCache,
) -> Result<Distance, PolycdError> {
    Ok(distance_checked(a, pa, b, pb, cache).0)
}

/// [`distance`] for the query layer, with whether the answer is clearly separated: beyond
/// [`contact_tolerance_bound`] (checked here already), where the query layer has nothing to
/// complete.
#[inline(always)]
pub(crate) fn distance_checked(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut VClipCache,
) -> (Distance, bool) {
    let (d, _, clear) = distance_with_plane(a, pa, b, pb, cache, false);
    (d, clear)
}
