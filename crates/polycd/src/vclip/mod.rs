//! V-Clip: Voronoi-clip closest-feature tracking between convex polyhedra.
//!
//! Paper: B. Mirtich, *V-Clip: Fast and Robust Polyhedral Collision Detection*, MERL TR97-05
//! (ACM TOG 17(3), 1998).
//!
//! Rounded shapes ([`crate::shape::polyhedron::ConvexPolyhedron::with_radius`]): this algorithm answers for the
//! cores and never reads the radius; `query::rounded` turns its answers into the rounded
//! shapes' (through [`crate::query`] only).
//!
//! Shapes: solids only. Points, segments and polygons (issue 22) are refused with
//! [`PolycdError::UnsupportedShape`](crate::core::error::PolycdError::UnsupportedShape)
//! (`supports`): Mirtich's Voronoi regions are defined for them, but the handlers' face
//! scans, `handleLocalMin` (a vertex "inside" a polygon has no interior to be in) and the
//! cold start assume a face around every edge and an interior; the doubly covered polygon
//! has not been checked against the oracle, so no answer is given rather than an unchecked
//! one.
//!
//! # Outline
//! - The state is a pair of features (vertex, edge or face), one on each polyhedron. Each
//!   iteration runs the handler of the pair's type — VV, VE, VF, EE, EF (Alg. 4–8,
//!   `handlers`) — which either certifies the pair (both closest points lie in the other
//!   feature's Voronoi region: Theorem 1), reports penetration with its point, or moves one
//!   feature to a neighbour.
//! - Points are tested against Voronoi planes by sign; edges are clipped against sets of
//!   Voronoi planes with `clipEdge` (Alg. 1), and the derivative checks (Alg. 2, Eq. 2–3)
//!   decide where the minimum of the edge distance function lies (`clip`).
//! - VF searches the *maximally* violated face-edge plane; an edge excluded from a face's
//!   region moves the face to its closest boundary edge by a perimeter scan (§3.3.3);
//!   a vertex lodged below a face runs `handleLocalMin` (Alg. 3).
//! - Penetration witnesses: an edge piercing a face (EF), a vertex inside the other
//!   polyhedron (Alg. 3), or two features that meet (distance exactly 0, §3.2); a witness
//!   whose shapes provably only touch becomes a zero distance (`answer`).
//! - Each test of one body's feature against the other body's Voronoi region runs in the
//!   local frame of the region's owner: its vertices, normals and planes are used as stored and
//!   only the tested feature's one or two vertices are mapped in by the relative pose (no
//!   per-query allocation, no per-query O(n) transform; `frame`). Results are reported in A's
//!   frame, then the world frame.
//! - Each shape carries precomputed Voronoi-plane vectors (`VClipTables`, built with the
//!   shape; 80 bytes per half-edge): per adjacency slot of a vertex `v`, `v − o` and
//!   `1 / |v − o|²` (vertex–edge planes), per half-edge `a → b` of a face `f`, `n_f × (b − a)`
//!   and `1 / |b − a|` (face–edge planes), the same expressions a handler would evaluate on
//!   the stored vertices, so every plane has one value; the reciprocals scale the violation
//!   scores VV and VF rank planes by. The handlers scan them in adjacency order. (A shifted B,
//!   translation-only pairs, recomputes them from its shifted vertices with the same
//!   expressions, and divides.) The kind of handler frame and the orientation of the pair are
//!   compile-time parameters of `View`.
//! - A cold query (no cached pair, a foreign one: ids out of range, or a stale one: B has
//!   turned relative to A by more than `STALE_TURN_REL` of the vertex spacing since it was
//!   cached, where the warm walk costs more than a cold start) starts from
//!   the two support vertices along the line between the centroids; a face–face pair (never
//!   produced by the algorithm) starts from the first vertex of A's face.
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
//! a separating slab certifies (see *Cycles* below, `cycle`); otherwise, and when the bound is
//! reached, the answer is `NotConverged`, never a guess. The perimeter scan visits each edge of
//! the face once.
//!
//! # Departures from the paper (and decisions where it is silent)
//! - VF step 6: the paper writes `|D_P(V)| > |D_P(V')|`; the text asks for "an edge incident
//!   to V that points toward F", i.e. whether the projection of V on F lies in VR(V). We test
//!   exactly that, sign-aware (the literal absolute-value test misses edges crossing the plane
//!   of F): `D_P(V) > 0` and `(V' − V)·n_F < 0`, or `D_P(V) < 0` and `(V' − V)·n_F > 0`. The
//!   slope is computed as `(V' − V)·n_F`, bit for bit the expression EF's derivative check
//!   uses (see *Invariants*), not as `D_P(V') − D_P(V)`: for an edge parallel to F the two
//!   round differently, and VF moving to the edge while EF sends it straight back to V is a
//!   cycle (an icosahedron translated without rotation). Taking it in the edge owner's frame
//!   costs one rotation of `n_F` per VF call instead of mapping each of V's neighbours into
//!   F's frame.
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
//!   bracketed. That walk stops at *local* minima of the distance along the perimeter (on a
//!   small icosphere triangle it settles on the far edge, EE sends the pair straight back to
//!   the face, and the pair cycles). We therefore scan the whole perimeter, taking the edge at
//!   least segment–segment distance (O(s) like the walk's worst case; a closest point at a
//!   shared vertex is refined by the next EE/VE step at equal distance). This is the only
//!   place the iteration computes closest points.
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
//!   rounding) perpendicular to the closest features (face normal; crossing edges' cross
//!   product, see [`CROSSING_EDGES_SIN2`]; edge direction projected out), so tiny gaps on large
//!   shapes still give planes that bound both vertex sets. Below `PLANE_CHECK_REL` × the pair
//!   scale a normal derived from `point_b − point_a` (whose direction is only as good as
//!   rounding allows at that distance) is checked against the supports and, when it fails,
//!   replaced by the face normal or edge-pair cross product around the closest features with
//!   the widest measured gap (cubes 1e-9 apart in rotated frames would get planes that cut a
//!   corner).
//! - VV (Alg. 4) tests both vertices against each other's region and moves to the edge whose
//!   vertex–edge plane is *maximally* violated (distance of the other vertex beyond it) over
//!   both, as VF does for face–edge planes, rather than the first violated one of the first
//!   vertex: any violated plane strictly lowers the distance, and the steepest one takes fewer
//!   steps along a finely tessellated surface.
//! - VF step 6 likewise takes the *steepest* edge of V toward the plane of F (largest
//!   `slope² / |edge|²`, the squared cosine to the normal) rather than the first one found:
//!   any such edge lowers the distance; the steepest ends sooner.
//! - When the VE step after such a move would only carry the vertex on to the edge's other
//!   end, VV takes both steps at once (counted as two handler calls; see `vv_half`).
//! - Per-query work outside the handlers (not the paper's concern): when A's rotation is the
//!   identity quaternion, the relative pose and the world-frame output skip the rotation by it
//!   (it maps exactly, so the values are the same); the relative rotation is renormalised
//!   only when it is not unit to rounding (`UNIT_QUAT_SLACK`); a distance answer beyond the
//!   contact band says so (`Checked::Clear`), and the query layer then skips its own
//!   tolerance check.

mod answer;
mod clip;
mod cycle;
mod frame;
mod handlers;

use crate::contract::{contact_tolerance, pair_scale, Distance, Feature, FeaturePair, Intersection};
use crate::core::math::{DMat3, DQuat, DVec3, Pose};
use crate::core::tolerance::{DISTANCE_GAP_REL, UNIT_QUAT_SLACK};
use crate::shape::polyhedron::ConvexPolyhedron;
use answer::distance_with_plane;
use cycle::{cycle_penetration, settle_cycle};
use frame::{closest_points, Body, View};
use handlers::{step, Step};

pub use crate::core::tolerance::CROSSING_EDGES_SIN2;

/// V-Clip's per-pair state: the last feature pair, the start of the next query.
#[derive(Clone, Debug, Default)]
pub struct VClipCache {
    pair: Option<FeaturePair>,
    /// B's rotation relative to A at the last query, for the staleness test
    /// ([`STALE_TURN_REL`]).
    last_rel: Option<DQuat>,
    /// Cycles of the iteration detected by the queries run with this cache (read-only count).
    cycles: u64,
}

/// Relative rotation since the cached query beyond which the cached feature pair is dropped
/// and the query starts cold (from the support vertices), as a fraction of the shapes'
/// angular vertex spacing `√(4π / n)` (n the larger vertex count). A warm walk crosses about
/// one feature per fraction of the spacing turned, while the cold start's two hinted support
/// climbs cost a fixed amount; beyond the crossover coherence would make the query slower
/// than no coherence at all (issue 27 item 2). Measured (BENCHMARKS.md *Coherence*): in
/// instructions the warm walk stays cheaper up to ≈ 1.2 spacings (642-vertex sphere ≈ 9.5°,
/// 60-gon disk ≈ 22°), in wall time only up to 0.6–0.8 spacings (its steps miss L1, the
/// cold start's two hinted climbs are short); 0.7 lies below both wall-clock crossovers. Not
/// a tolerance: it only picks the start, never an answer (every answer is certified by
/// Theorem 1 from either start).
const STALE_TURN_REL: f64 = 0.7;

/// Whether B has turned relative to A by at most [`STALE_TURN_REL`] × the vertex spacing
/// between the rotations `q0` and `q` (both unit to rounding). The angle is
/// `θ ≈ 2·√(2(1 − |q0·q|))` for small angles (larger ones only need to exceed the limit), so
/// `θ ≤ k·√(4π/n)` is tested squared, without a root or a division.
#[inline(always)]
fn turned_little(q0: DQuat, q: DQuat, n: usize) -> bool {
    let one_minus = (1.0 - q0.dot(q).abs()).max(0.0);
    8.0 * one_minus * n as f64 <= STALE_TURN_REL * STALE_TURN_REL * 4.0 * std::f64::consts::PI
}

impl VClipCache {
    /// Forgets the cached pair: the next query starts cold, as with a new cache.
    pub fn forget(&mut self) {
        self.pair = None;
        self.last_rel = None;
    }
    /// The feature pair the next query starts from (`None`: a cold start from the support
    /// vertices along the line between the centroids).
    pub fn pair(&self) -> Option<FeaturePair> {
        self.pair
    }
    /// A cache whose next query starts from `pair` (e.g. to replay a recorded warm query).
    pub fn starting_at(pair: FeaturePair) -> Self {
        VClipCache {
            pair: Some(pair),
            last_rel: None,
            cycles: 0,
        }
    }

    /// How many times the queries run with this cache found the floating-point iteration
    /// cycling (see *Cycles* in the module header), whether the exit then settled the answer
    /// or reported `NotConverged`. A statistic only: [`Self::forget`] keeps it.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }
}

/// V-Clip's distance answer, sorted by whether the query layer's near-contact settlement can
/// change it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Checked {
    /// Separated beyond [`contact_tolerance_bound`](crate::contract::contact_tolerance_bound)
    /// (compared here already): final.
    Clear(Distance),
    /// Any other answer: separated within that bound, penetrating, or not converged.
    Unsettled(Distance),
}

impl Checked {
    /// The answer, whichever case it is.
    #[inline(always)]
    pub(crate) fn distance(self) -> Distance {
        match self {
            Checked::Clear(d) | Checked::Unsettled(d) => d,
        }
    }
}

/// B's placement in A's frame: `x ↦ m·x + t`, and `mt = mᵀ` for the way back.
struct Rel {
    m: DMat3,
    mt: DMat3,
    t: DVec3,
    /// The rotation `m` was made from (for the staleness test).
    q: DQuat,
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
        q: rel_rotation,
    };
    // The handlers' frames (see [`View`]): the common frame for both bodies when the rotation
    // is exactly the identity, else each body's local frame. A quaternion with zero vector
    // part (±0) maps to exactly the identity matrix (every product in `from_quat` is ±0), so
    // three comparisons decide the translation-only case (ω = 0 in the coherence test)
    // before the nine of the matrix, which still catch a tiny vector part rounded away.
    let zero_axis = rel_rotation.x == 0.0 && rel_rotation.y == 0.0 && rel_rotation.z == 0.0;
    if zero_axis || m == DMat3::IDENTITY {
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
    let body_a = Body {
        poly: a,
        tables: a.vclip_tables(),
        frame: None,
    };
    let body_b = Body {
        poly: b,
        tables: b.vclip_tables(),
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
    // The cached pair is a good start only while B has turned little since it was cached
    // (`STALE_TURN_REL`); a cache without a recorded rotation (`starting_at`) is used as it is.
    let fresh = match cache.last_rel {
        Some(q0) => turned_little(q0, rel.q, a.vertices().len().max(b.vertices().len())),
        None => true,
    };
    cache.last_rel = Some(rel.q);
    let (mut fa, mut fb) = match cache.pair {
        Some(p) if fresh && body_a.feature_ok(p.a) && body_b.feature_ok(p.b) => (p.a, p.b),
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
        match step(&ab, &ba, fa, fb) {
            Step::Move { q, twice, to } => {
                if q {
                    fb = to;
                } else {
                    fa = to;
                }
                iterations += u32::from(twice);
            }
            Step::Done => {
                let pair = FeaturePair { a: fa, b: fb };
                cache.pair = Some(pair);
                let (xa, xb) = closest_points(&ab, fa, fb);
                return Run::Closest {
                    pair,
                    pa: xa,
                    pb: xb,
                    iterations,
                };
            }
            Step::Penetration(point) => {
                let pair = FeaturePair { a: fa, b: fb };
                cache.pair = Some(pair);
                return Run::Penetration {
                    pair,
                    point,
                    iterations,
                };
            }
        }
        if iterations < CYCLE_CHECK_FROM {
            continue;
        }
        if (fa, fb) == saved {
            cache.cycles = cache.cycles.saturating_add(1);
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

/// V-Clip answers pairs of solids only (module header): `Err(UnsupportedShape)` otherwise.
#[inline]
pub(crate) fn supports(a: &ConvexPolyhedron, b: &ConvexPolyhedron) -> Result<(), crate::core::error::PolycdError> {
    crate::shape::flat::require_solids(
        a,
        b,
        "vclip",
        "the feature walk needs a face on each side of every edge and an interior (handleLocalMin); flat shapes are answered by GJK and QP",
    )
}

/// Boolean V-Clip, for the query layer (which validates the poses and settles
/// near-contact overlaps: `query::intersect` with `Algorithm::VClip`).
pub(crate) fn intersect(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut VClipCache,
) -> Intersection {
    let (d, plane) = distance_with_plane(a, pa, b, pb, cache, true);
    match (d.distance(), plane) {
        (
            Distance::Separated {
                distance,
                point_a,
                point_b,
                iterations,
                ..
            },
            Some(plane),
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
        ) => Intersection::Overlapping { witness, iterations },
        (d, _) => Intersection::NotConverged {
            iterations: d.iterations(),
        },
    }
}

/// Distance V-Clip, for the query layer (which validates the poses and completes
/// near-contact answers: `query::distance` with `Algorithm::VClip`).
#[inline(always)]
pub(crate) fn distance(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut VClipCache,
) -> Checked {
    distance_with_plane(a, pa, b, pb, cache, false).0
}
