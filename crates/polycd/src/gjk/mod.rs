//! GJK distance and intersection (Gilbert, Johnson, Keerthi 1988) with Cameron's enhancements
//! ("Enhanced GJK" 1997: supports by hill-climbing over the vertex graph, warm-started from the
//! previous query), EPA penetration depth (van den Bergen's expanding polytope, 2001) and GJK
//! ray casting (van den Bergen, "Ray casting against general convex objects", 2004) for the
//! directional query.
//!
//! Rounded shapes ([`crate::shape::polyhedron::ConvexPolyhedron::with_radius`]): this algorithm answers for the
//! cores and never reads the radius; `query::rounded` turns its answers into the rounded
//! shapes' (through [`crate::query`] only).
//!
//! Outline (everything in A's local frame; `M = A − B`, B mapped by `pose_a⁻¹ · pose_b`):
//! 1. Seed the simplex with the cached (vertex of A, vertex of B) pairs of the last query
//!    (coherence), or, cold, with the support of `M` towards the origin from `M`'s centre;
//!    a cold distance query on two large hulls adds up to three supports, each turned from
//!    the last by a Newton step on the support map of a ball about `M`'s centre through the
//!    origin, the later ones at the rate the last two supports measure (a secant step;
//!    `simplex.rs`).
//! 2. Repeat: `v` = point of the simplex hull nearest the origin (the sub-algorithm,
//!    `simplex.rs`); `w = s_M(−v)` by hill-climbing on A and B (`minkowski.rs`); stop when
//!    `v·w/|v|` (lower bound) and `|v|` (upper bound) agree within `DISTANCE_GAP_REL × scale`,
//!    when `(ia, ib)` is already in the simplex, or (boolean mode) as soon as `v·w > 0` proves
//!    separation beyond the contact tolerance or a tetrahedron encloses the origin.
//! 3. Overlap (or a stall at `|v| ≈ 0`): EPA from the final simplex, blown up to a tetrahedron
//!    (`epa.rs`).
//! 4. Directional: two GJK ray casts against `M`, from `∓R·s` along `±s`, give `[lo, hi]`; the
//!    contact plane's normal is picked around the hit (`ray.rs`).
//!
//! Entry points: [`intersect`] (boolean), [`distance`] (closest points, or the EPA depth of an
//! overlap), [`penetration`], [`directional`]; inside the crate, `distance_with` can answer a
//! clear overlap without measuring its depth.
//!
//! Invariants: `|v|` never increases beyond rounding (an increase is a stall: the previous
//! simplex is kept and the support gap decides; at most 8 consecutive steps may leave `|v|²`
//! unchanged within rounding); every simplex point is a vertex pair of `M`; the EPA polytope
//! is convex with outward faces (checked against an interior point).
//!
//! Termination: GJK and the ray cast run at most `64 + min(|A|·|B|, 4096)` iterations (each
//! non-terminating GJK step decreases `|v|`, so in exact arithmetic no simplex repeats and the
//! count of vertex pairs bounds it); EPA adds a new vertex of `M` per step, bounded by the same
//! count; the horizon walk visits each face a bounded number of times (guarded); EPA's
//! fallback collects at most 256 support points. Hitting a bound yields `NotConverged` (or,
//! for EPA, no depth), never a guessed answer.
//!
//! Flat shapes (points, segments, polygons): supports and the simplex work unchanged. When
//! both shapes are flat and `M` itself is flat (within the contact tolerance of a plane or a
//! line: `shape::flat::flat_difference`) and the origin is within the tolerance of it, EPA
//! (which needs a solid `M`) is not run: the depth is 0, and the pair overlaps when the
//! origin lies in `M`'s relative interior deeper than the tolerance (a common point as the
//! witness), else touches on `M`'s plane.
//!
//! Departures from the papers (details in the submodules):
//! - The cold start of a distance query on two hulls with direction tables takes up to four
//!   supports instead of one: near contact the extreme point of `M` along the centre line
//!   lies far (tens of vertex spacings on near-smooth hulls) from the point nearest the
//!   origin, and GJK's steps from there zig-zag; the Newton-turned supports start it within
//!   a few spacings (near contact 12.55 → 7.95 iterations; 7.16 with the secant's rate).
//! - Supports are hill-climbs started from the shapes' direction tables, or from the last
//!   supports once the search direction has settled; on two large hulls both climbs advance
//!   in lockstep.
//! - The sub-algorithm tries every face of the simplex (minimum-norm candidate, ties to the
//!   newest point and the larger face, one refinement step) instead of Johnson's recursive
//!   determinant test.
//! - The warm start is dropped when B has turned relative to A by more than a fraction of
//!   the vertex spacing since the cached query.
//! - A stall (repeated support pair, or no decrease of `|v|`) is accepted only when the
//!   support gap is within [`ACCEPT_GAP_REL`] × scale, otherwise decided by EPA when `|v|` is
//!   within the contact tolerance, else reported as non-convergence. A touching pair with
//!   `|v| = 0` goes to EPA too, which returns depth ≈ 0, and distance mode then reports
//!   `Separated` with the simplex's closest points.
//! - EPA orients its faces against the initial tetrahedron's centroid (a seed touching the
//!   origin is handled), blows degenerate seeds up, checks that each horizon is one simple
//!   loop, is warm-started from the face of the pair's last answer, and falls back to robust
//!   hulls of the collected supports when the incremental polytope breaks.
//! - The ray cast takes van den Bergen's step only when `v·r` is certainly negative, and
//!   otherwise the least step the products' error bounds allow.
//! - A stalled or exhausted iteration (core loop or ray cast) on a pair with at most
//!   `small::SMALL_PAIRS` vertex pairs enumerates `M` instead of reporting `NotConverged`:
//!   the origin enclosed by a tetrahedron of its points (exact `orient3d`), else its nearest
//!   point over every triangle of them (`small.rs`; nearly coplanar triangles make `M` a
//!   slab on which the sub-algorithm's rounding stalls). At most `C(16, 4)` tetrahedra; the
//!   ray cast restarts from the enumerated point at most twice.

mod epa;
mod minkowski;
mod ray;
mod simplex;
mod small;

use epa::{epa, EpaBufs, EpaOut};
use minkowski::Ctx;
use ray::{contact_normal, ray_cast, Ray};
use simplex::{gjk_core, solve, Core, Simplex};

use crate::contract::{Directional, Distance, Feature, FeaturePair, Intersection, OverlapWitness, Penetration};
use crate::core::error::PolycdError;
use crate::core::math::{DQuat, DVec3, Plane, Pose};
use crate::shape::flat::{flat_difference, FlatDifference};
use crate::shape::polyhedron::ConvexPolyhedron;

pub use crate::core::tolerance::ACCEPT_GAP_REL;

/// Consecutive GJK steps allowed whose `|v|²` equals the previous one in floating point.
const MAX_FLAT_STEPS: u32 = 8;

/// Base of the iteration bound (plus the number of vertex pairs, capped by [`MAX_PAIR_BOUND`]).
pub const BASE_ITERATIONS: u32 = 64;

/// Cap on the vertex-pair term of the iteration bound.
pub const MAX_PAIR_BOUND: u32 = 4096;

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
            if let Some(f) = flat_m(&ctx) {
                return Ok(flat_intersection(&ctx, pa, f, 0.5 * (qa + qb), iters, cache));
            }
            let plane = plane_between(&ctx, pa, n, cache);
            Ok(Intersection::Touching {
                point: pa.transform_point(0.5 * (qa + qb)),
                plane,
                iterations: iters,
            })
        }
        Core::Enclosed { sim, iters } | Core::Contact { sim, iters } if flat_m(&ctx).is_some() => {
            let f = flat_m(&ctx).unwrap_or(FlatDifference {
                normal: DVec3::Z,
                relative_depth: 0.0,
            });
            let p = common_point(&ctx, pa, pb, &sim);
            Ok(flat_intersection(&ctx, pa, f, p, iters, cache))
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
    distance_measuring(a, pa, b, pb, cache, true)
}

/// [`distance`], with the depth of a clear overlap (the origin enclosed by the simplex) left
/// unmeasured: `Penetrating` with `penetration: None`, no EPA. A near-contact overlap still
/// runs EPA, which tells touching (reported as `Separated`) from overlapping beyond the
/// tolerance, as [`distance`] does.
pub(crate) fn distance_or_overlap(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut GjkCache,
) -> Result<Distance, PolycdError> {
    distance_measuring(a, pa, b, pb, cache, false)
}

/// [`distance`] (`depth`) or [`distance_or_overlap`] (`!depth`). A warm start that ends
/// without an answer (not converged, or an overlap whose depth EPA could not measure: a flat
/// or sliver `M` seeded by another pose's simplex or EPA face) is run again cold, once: the
/// answer of a warm cache is then the answer of a new one.
#[inline(always)]
fn distance_measuring(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut GjkCache,
    depth: bool,
) -> Result<Distance, PolycdError> {
    let warm = cache.len > 0 || cache.epa_len > 0 || cache.last_rel.is_some();
    let d = distance_once(a, pa, b, pb, cache, depth)?;
    let unanswered = match d {
        Distance::NotConverged { .. } => true,
        Distance::Penetrating { penetration: None, .. } => depth,
        _ => false,
    };
    if warm && unanswered {
        cache.forget();
        return distance_once(a, pa, b, pb, cache, depth);
    }
    Ok(d)
}

#[inline(always)]
fn distance_once(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut GjkCache,
    depth: bool,
) -> Result<Distance, PolycdError> {
    let ctx = Ctx::new(a, pa, b, pb);
    let core = gjk_core(&ctx, cache, false);
    // A flat `M` (flat shapes only) with the origin within the tolerance: no EPA.
    let near = match &core {
        Core::Separated { sim, v, iters, .. } if v.length() <= ctx.tol => Some((*sim, *iters)),
        Core::Enclosed { sim, iters } | Core::Contact { sim, iters } => Some((*sim, *iters)),
        _ => None,
    };
    if let Some((sim, iters)) = near {
        if let Some(f) = flat_m(&ctx) {
            return Ok(flat_distance(&ctx, pa, pb, f, &sim, iters));
        }
    }
    match core {
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
        relative_depth: e.depth,
    }
}

// ---------------------------------------------------------------------------------------------
// Flat Minkowski differences
// ---------------------------------------------------------------------------------------------

/// `M`'s flatness when both shapes are flat and `M` lies within the contact tolerance of a
/// plane or line (`shape::flat::flat_difference`); `None` otherwise (always for a solid).
fn flat_m(ctx: &Ctx) -> Option<FlatDifference> {
    if ctx.a.dimension() == 3 || ctx.b.dimension() == 3 {
        return None;
    }
    flat_difference(ctx.a, ctx.b, &ctx.rot, ctx.trans, ctx.tol)
}

/// A point common to both shapes (A's frame) from a simplex around (or at) the origin: the
/// simplex's closest points, or, for an enclosing tetrahedron, its barycentric point.
fn common_point(ctx: &Ctx, pa: &Pose, pb: &Pose, sim: &Simplex) -> DVec3 {
    let mut s = *sim;
    let (_, enclosed) = solve(&mut s);
    if enclosed {
        if let Some(p) = sim.witness().common_point(ctx.a, pa, ctx.b, pb) {
            return pa.inverse_transform_point(p);
        }
    }
    let (qa, qb) = s.points(ctx);
    0.5 * (qa + qb)
}

/// The boolean answer on a flat `M` with the origin within the tolerance of it: no depth
/// (EPA is not run), overlapping when the origin lies in `M`'s relative interior deeper than
/// the tolerance (the shapes' relative interiors meet), else touching on `M`'s plane.
fn flat_intersection(
    ctx: &Ctx,
    pa: &Pose,
    f: FlatDifference,
    point: DVec3,
    iterations: u32,
    cache: &mut GjkCache,
) -> Intersection {
    if f.relative_depth > ctx.tol {
        return Intersection::Overlapping {
            witness: OverlapWitness::CommonPoint(pa.transform_point(point)),
            iterations,
        };
    }
    Intersection::Touching {
        point: pa.transform_point(point),
        plane: plane_between(ctx, pa, f.normal, cache),
        iterations,
    }
}

/// The distance answer on a flat `M` with the origin within the tolerance of it: `Penetrating`
/// with depth 0 and the relative depth when the relative interiors meet, else `Separated` by
/// the simplex's closest points (a zero distance to rounding).
fn flat_distance(ctx: &Ctx, pa: &Pose, pb: &Pose, f: FlatDifference, sim: &Simplex, iterations: u32) -> Distance {
    if f.relative_depth > ctx.tol {
        let p = pa.transform_point(common_point(ctx, pa, pb, sim));
        return Distance::Penetrating {
            witness: OverlapWitness::CommonPoint(p),
            penetration: Some(Penetration {
                depth: 0.0,
                normal: pa.transform_vector(f.normal),
                point_a: p,
                point_b: p,
                relative_depth: f.relative_depth,
            }),
            iterations,
        };
    }
    let mut s = *sim;
    let (v, enclosed) = solve(&mut s);
    if enclosed {
        // A rounding-thin tetrahedron around the origin: its nearest facet.
        let mut best = (f64::INFINITY, s, DVec3::ZERO);
        for skip in 0..4 {
            let mut t = Simplex::default();
            for k in (0..4).filter(|&k| k != skip) {
                t.push(sim.v[k]);
            }
            let (w, _) = solve(&mut t);
            if w.length() < best.0 {
                best = (w.length(), t, w);
            }
        }
        return separated(ctx, pa, &best.1, best.2, iterations);
    }
    separated(ctx, pa, &s, v, iterations)
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

/// One end of a chord: the line parameter and the ray cast's normal, simplex and iterations.
struct ChordEnd {
    t: f64,
    normal: DVec3,
    sim: Simplex,
    iters: u32,
}

/// The two ray casts of a chord, or why there is no chord (iterations summed over the casts
/// made). A short-lived value on the stack (never stored), so its large variant costs nothing.
#[allow(clippy::large_enum_variant)]
enum Chord {
    Hit { lo: ChordEnd, hi: ChordEnd },
    Miss { iterations: u32 },
    NotConverged { iterations: u32 },
}

/// The chord of the line `{t·s}` (world frame) through `M = A − B` by two GJK ray casts from
/// beyond `M`'s bounding sphere, one from each side, with the pair's frame and the unit
/// direction in A's frame. Shared by [`directional`] and [`chord`].
fn chord_casts<'a>(
    a: &'a ConvexPolyhedron,
    pa: &Pose,
    b: &'a ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    cache: &mut GjkCache,
) -> Result<(Ctx<'a>, DVec3, Chord), PolycdError> {
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
    let lo = match ray_cast(&ctx, cache, -sl * big, sl, 2.0 * big) {
        Ray::Hit {
            lambda,
            normal,
            sim,
            iters,
        } => ChordEnd {
            t: lambda - big,
            normal,
            sim,
            iters,
        },
        Ray::Miss { iters } => return Ok((ctx, sl, Chord::Miss { iterations: iters })),
        Ray::NotConverged { iters } => return Ok((ctx, sl, Chord::NotConverged { iterations: iters })),
    };
    let chord = match ray_cast(&ctx, cache, sl * big, -sl, 2.0 * big) {
        Ray::Hit {
            lambda,
            normal,
            sim,
            iters,
        } => Chord::Hit {
            lo,
            hi: ChordEnd {
                t: big - lambda,
                normal,
                sim,
                iters,
            },
        },
        Ray::Miss { iters } => Chord::Miss {
            iterations: lo.iters + iters,
        },
        Ray::NotConverged { iters } => Chord::NotConverged {
            iterations: lo.iters + iters,
        },
    };
    Ok((ctx, sl, chord))
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
    let (ctx, sl, chord) = chord_casts(a, pa, b, pb, s, cache)?;
    let (lo, hi) = match chord {
        Chord::Hit { lo, hi } => (lo, hi),
        Chord::Miss { iterations } => return Ok(Directional::Never { iterations }),
        Chord::NotConverged { iterations } => return Ok(Directional::NotConverged { iterations }),
    };
    let iterations = lo.iters + hi.iters;
    let end = if lo.t > 0.0 {
        lo
    } else if hi.t < 0.0 {
        hi
    } else if -lo.t <= hi.t {
        lo
    } else {
        hi
    };
    let t = end.t;
    let n = end.normal.normalize_or_zero();
    let n = if n == DVec3::ZERO { -sl } else { n };
    let n = contact_normal(&ctx, cache, &end.sim, n, sl * t);
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

/// Both ends of the chord of the line `{t·s}` (unit `s`, world frame) through `M = A − B`:
/// the `t` for which B translated by `t·s` meets A form `[lo, hi]`. The same two ray casts as
/// [`directional`] (which answers only the end of least magnitude), without its contact
/// planes. Used by the mesh directional query, which needs every piece pair's whole chord.
pub fn chord(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    cache: &mut GjkCache,
) -> Result<RayChord, PolycdError> {
    Ok(match chord_casts(a, pa, b, pb, s, cache)?.2 {
        Chord::Hit { lo, hi } => RayChord::Hit {
            lo: lo.t,
            hi: hi.t,
            iterations: lo.iters + hi.iters,
        },
        Chord::Miss { iterations } => RayChord::Miss { iterations },
        Chord::NotConverged { iterations } => RayChord::NotConverged { iterations },
    })
}

/// Answer of [`chord`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum RayChord {
    /// B translated by `t·s` meets A exactly for `t` in `[lo, hi]` (to the ray casts'
    /// accuracy).
    Hit {
        /// Least `t`.
        lo: f64,
        /// Greatest `t`.
        hi: f64,
        /// Iterations of both casts.
        iterations: u32,
    },
    /// The line misses `M` (or only grazes it, to rounding).
    Miss {
        /// Iterations.
        iterations: u32,
    },
    /// A cast hit its iteration bound.
    NotConverged {
        /// Iterations.
        iterations: u32,
    },
}
