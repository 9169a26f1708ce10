//! `shapes` — flat and rounded shapes (issue 22): sphere–sphere, sphere–capsule,
//! capsule–capsule, sphere–box and triangle–convex (an ellipsoid hull of 1 000 vertices),
//! polycd against parry3d's own shapes in the same run (`Ball`, `Capsule`, `Triangle`, and
//! the box and the hull as `ConvexPolyhedron`s built from polycd's vertices).
//!
//! Poses: A at a random pose within a few units of the origin, B in a random orientation, its
//! centre on a random ray from A's centre. The contact offset `t*` along the ray is found by
//! bisection on polycd's boolean GJK (placement only, never checked against itself); B is then
//! put at `t* + g` with the gap `g` drawn per bucket:
//! - `separated`: `g ∈ [0.05, 1] × size`;
//! - `near`: `|g| ≤ 1e-3 × size` (either side of contact);
//! - `overlapping`: the centre at `u·t*`, `u ∈ [0, 0.9)`.
//!
//! Methods: polycd `Auto` and `Gjk` (the generic support-map path) for `distance` and
//! `intersect`; parry `distance` (+ `contact` when it reports 0, as polycd's distance includes
//! the depth: the convention of every scenario) and `intersection_test`. Each bucket is one
//! batch of independent queries (a cleared `PairCache` per query, prepared outside the clock),
//! timed as a whole after one untimed pass of the same method, repeated, methods interleaved per
//! repetition; the median of the
//! repetitions' per-query means is reported.
//!
//! Checks: every answer against an independent oracle written here — closed forms for the
//! sphere and capsule pairs (centre distance; point–segment and segment–segment distances by
//! enumerating end points and the interior critical point), the box's signed distance in its
//! frame, and for triangle–convex a brute force over feature pairs (triangle vertices against
//! hull faces, hull vertices against the triangle, triangle edges against hull edges) with a
//! containment test. polycd distances must match the oracle within
//! [`polycd::tolerance::AGREEMENT_REL`] × the pair scale (depths too where the oracle has them:
//! every pair except overlapping triangle–convex, whose status alone is checked); statuses may
//! not contradict it beyond the contact tolerance. parry is held to
//! [`crate::PEER_AGREEMENT_REL`] and its deviations are counted apart.

use super::csv_out;
use crate::table::{ratio, us, Table};
use crate::timing::median;
use crate::{Context, RunOptions};
use parry3d_f64::math::{Pose as ParryPose, Rot3 as ParryRot, Vector as ParryVec};
use parry3d_f64::shape::{Ball, Capsule, ConvexPolyhedron as ParryPolyhedron, Shape, Triangle};
use polycd::query::{self, contact_tolerance, pair_scale};
use polycd::tolerance::AGREEMENT_REL;
use polycd::{shapes, Algorithm, ConvexPolyhedron, DVec3, Distance, Intersection, PairCache, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Instant;

/// The pair kinds, in table order.
const KINDS: [Kind; 5] = [
    Kind::SphereSphere,
    Kind::SphereCapsule,
    Kind::CapsuleCapsule,
    Kind::SphereBox,
    Kind::TriangleConvex,
];

const BUCKETS: [&str; 3] = ["separated", "near", "overlapping"];

/// The methods, in table order (the peer last of each question).
const METHODS: [(&str, Who, Ask); 6] = [
    ("polycd Auto distance", Who::Polycd(Algorithm::Auto), Ask::Distance),
    ("polycd GJK distance", Who::Polycd(Algorithm::Gjk), Ask::Distance),
    ("parry3d distance", Who::Parry, Ask::Distance),
    ("polycd Auto intersect", Who::Polycd(Algorithm::Auto), Ask::Intersect),
    ("polycd GJK intersect", Who::Polycd(Algorithm::Gjk), Ask::Intersect),
    ("parry3d intersection_test", Who::Parry, Ask::Intersect),
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    SphereSphere,
    SphereCapsule,
    CapsuleCapsule,
    SphereBox,
    TriangleConvex,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Who {
    Polycd(Algorithm),
    Parry,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ask {
    Distance,
    Intersect,
}

const SPHERE_R: f64 = 1.0;
const CAPSULE_LEN: f64 = 2.0;
const CAPSULE_R: f64 = 0.5;
const BOX: [f64; 3] = [2.0, 1.5, 1.0];
const HULL: [f64; 3] = [2.0, 1.5, 1.0];
const HULL_N: usize = 1000;

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::SphereSphere => "sphere–sphere",
            Kind::SphereCapsule => "sphere–capsule",
            Kind::CapsuleCapsule => "capsule–capsule",
            Kind::SphereBox => "sphere–box",
            Kind::TriangleConvex => "triangle–convex (1 000)",
        }
    }
}

/// One side of a pair in both libraries.
struct Side {
    poly: ConvexPolyhedron,
    parry: Box<dyn Shape>,
}

fn pv(v: DVec3) -> ParryVec {
    ParryVec::new(v.x, v.y, v.z)
}

fn parry_pose(p: &Pose) -> ParryPose {
    let (q, t) = (p.rotation, p.translation);
    ParryPose::from_parts(pv(t), ParryRot::from_xyzw(q.x, q.y, q.z, q.w))
}

fn hull_twin(name: &str, poly: ConvexPolyhedron) -> Result<Side, String> {
    let pts: Vec<ParryVec> = poly.vertices().iter().map(|&v| pv(v)).collect();
    let parry =
        ParryPolyhedron::from_convex_hull(&pts).ok_or_else(|| format!("{name}: parry3d could not build the hull"))?;
    if parry.points().len() != pts.len() {
        return Err(format!(
            "{name}: parry3d's hull has {} vertices, polycd's {}",
            parry.points().len(),
            pts.len()
        ));
    }
    Ok(Side {
        poly,
        parry: Box::new(parry),
    })
}

fn sides(kind: Kind, seed: u64) -> Result<(Side, Side), String> {
    let e = |e: polycd::PolycdError| e.to_string();
    let sphere = || -> Result<Side, String> {
        Ok(Side {
            poly: shapes::sphere(SPHERE_R).map_err(e)?,
            parry: Box::new(Ball::new(SPHERE_R)),
        })
    };
    let capsule = || -> Result<Side, String> {
        Ok(Side {
            poly: shapes::capsule(CAPSULE_LEN, CAPSULE_R).map_err(e)?,
            parry: Box::new(Capsule::new_z(0.5 * CAPSULE_LEN, CAPSULE_R)),
        })
    };
    Ok(match kind {
        Kind::SphereSphere => (sphere()?, sphere()?),
        Kind::SphereCapsule => (sphere()?, capsule()?),
        Kind::CapsuleCapsule => (capsule()?, capsule()?),
        Kind::SphereBox => (
            sphere()?,
            hull_twin("box", shapes::cuboid(BOX[0], BOX[1], BOX[2]).map_err(e)?)?,
        ),
        Kind::TriangleConvex => {
            let t = [
                DVec3::new(-0.6, -0.35, 0.0),
                DVec3::new(0.6, -0.35, 0.05),
                DVec3::new(0.1, 0.7, -0.05),
            ];
            let tri = Side {
                poly: ConvexPolyhedron::from_points(&t).map_err(e)?,
                parry: Box::new(Triangle::new(pv(t[0]), pv(t[1]), pv(t[2]))),
            };
            let hull = shapes::ellipsoid(HULL_N, HULL[0], HULL[1], HULL[2], seed).map_err(e)?;
            (tri, hull_twin("hull", hull)?)
        }
    })
}

/// One pair's poses and its oracle signed distance (`None` for an overlap of unknown depth).
struct Pair {
    pa: Pose,
    pb: Pose,
    ppa: ParryPose,
    ppb: ParryPose,
    oracle: Option<f64>,
    /// The oracle's status: overlapping beyond any tolerance.
    overlapping: bool,
}

fn random_pose(rng: &mut ChaCha8Rng, centre: DVec3) -> Pose {
    Pose::new(shapes::random_rotation(rng), centre)
}

/// Poses of one bucket (`b`: 0 separated, 1 near, 2 overlapping).
fn placements(a: &Side, b: &Side, bucket: usize, n: usize, rng: &mut ChaCha8Rng) -> Vec<(Pose, Pose)> {
    let size = a.poly.bounding_radius() + b.poly.bounding_radius() + a.poly.radius() + b.poly.radius();
    let mut out = Vec::with_capacity(n);
    let mut cache = PairCache::default();
    while out.len() < n {
        let ca = DVec3::new(
            rng.random_range(-3.0..3.0),
            rng.random_range(-3.0..3.0),
            rng.random_range(-3.0..3.0),
        );
        let pa = random_pose(rng, ca);
        let rb = shapes::random_rotation(rng);
        let u = shapes::unit_vector(rng);
        // Local centres: the bounding spheres' (the hull's is not at its origin).
        let cb_local = b.poly.bounding_sphere().0;
        let at = |t: f64| {
            let c = pa.transform_point(a.poly.bounding_sphere().0) + u * t;
            Pose::new(rb, c - rb * cb_local)
        };
        let hits = |t: f64, cache: &mut PairCache| {
            cache.forget();
            !matches!(
                query::intersect(&a.poly, &pa, &b.poly, &at(t), Algorithm::Gjk, cache),
                Ok(Intersection::Disjoint { .. })
            )
        };
        let (mut lo, mut hi) = (0.0, 2.0 * size);
        if !hits(lo, &mut cache) || hits(hi, &mut cache) {
            continue;
        }
        for _ in 0..80 {
            let mid = 0.5 * (lo + hi);
            if hits(mid, &mut cache) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let t = match bucket {
            0 => hi + rng.random_range(0.05..1.0) * size,
            1 => hi + rng.random_range(-1e-3..1e-3) * size,
            _ => lo * rng.random_range(0.0..0.9),
        };
        out.push((pa, at(t)));
    }
    out
}

// ---------------------------------------------------------------------------------------
// The oracle: independent closed forms and brute force (no polycd query is used).

/// Distance from `p` to the segment `[s0, s1]`.
fn point_segment(p: DVec3, s0: DVec3, s1: DVec3) -> f64 {
    let d = s1 - s0;
    let l2 = d.length_squared();
    let t = if l2 > 0.0 {
        ((p - s0).dot(d) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (s0 + d * t - p).length()
}

/// Distance between segments: the least of the four end-point distances and, for
/// non-parallel segments, of the lines' common perpendicular when its feet lie inside both.
fn segment_segment(p0: DVec3, p1: DVec3, q0: DVec3, q1: DVec3) -> f64 {
    let mut best = point_segment(p0, q0, q1)
        .min(point_segment(p1, q0, q1))
        .min(point_segment(q0, p0, p1))
        .min(point_segment(q1, p0, p1));
    let (u, v, w) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, b, c, d, e) = (u.dot(u), u.dot(v), v.dot(v), u.dot(w), v.dot(w));
    let den = a * c - b * b;
    if den > 1e-14 * a * c {
        let s = (b * e - c * d) / den;
        let t = (a * e - b * d) / den;
        if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
            best = best.min((p0 + u * s - (q0 + v * t)).length());
        }
    }
    best
}

/// Least of a convex function on `[0, 1]` by golden-section search (200 steps: far below
/// rounding), and the end points.
fn golden_min(f: impl Fn(f64) -> f64) -> f64 {
    let g = 0.5 * (5f64.sqrt() - 1.0);
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let (mut x1, mut x2) = (hi - g * (hi - lo), lo + g * (hi - lo));
    let (mut f1, mut f2) = (f(x1), f(x2));
    for _ in 0..200 {
        if f1 <= f2 {
            hi = x2;
            (x2, f2) = (x1, f1);
            x1 = hi - g * (hi - lo);
            f1 = f(x1);
        } else {
            lo = x1;
            (x1, f1) = (x2, f2);
            x2 = lo + g * (hi - lo);
            f2 = f(x2);
        }
        if hi - lo < 1e-17 {
            break;
        }
    }
    f1.min(f2).min(f(0.0)).min(f(1.0))
}

/// Distance between segments by nested golden-section search over both parameters (the
/// distance is convex in them; independent of the closed forms above and in the library).
fn segment_segment_search(p0: DVec3, p1: DVec3, q0: DVec3, q1: DVec3) -> f64 {
    golden_min(|s| {
        let p = p0 + (p1 - p0) * s;
        golden_min(|t| (p - (q0 + (q1 - q0) * t)).length())
    })
}

/// Distance from `p` to the triangle `t`.
fn point_triangle(p: DVec3, t: [DVec3; 3]) -> f64 {
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let inside = (0..3).all(|k| (t[(k + 1) % 3] - t[k]).cross(p - t[k]).dot(n) >= 0.0);
    if inside && n.length_squared() > 0.0 {
        return ((p - t[0]).dot(n) / n.length()).abs();
    }
    (0..3)
        .map(|k| point_segment(p, t[k], t[(k + 1) % 3]))
        .fold(f64::INFINITY, f64::min)
}

/// Whether segment `[p, q]` crosses triangle `t` (its plane between the ends, the crossing
/// inside the triangle).
fn segment_crosses_triangle(p: DVec3, q: DVec3, t: [DVec3; 3]) -> bool {
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let (dp, dq) = ((p - t[0]).dot(n), (q - t[0]).dot(n));
    if !((dp <= 0.0 && dq >= 0.0) || (dp >= 0.0 && dq <= 0.0)) || dp == dq {
        return false;
    }
    let x = p + (q - p) * (dp / (dp - dq));
    (0..3).all(|k| (t[(k + 1) % 3] - t[k]).cross(x - t[k]).dot(n) >= 0.0)
}

/// Signed distance of the triangle `tri` (world) to the hull `h` at `ph`, by brute force; `None`
/// when they overlap (depth not measured here).
fn triangle_hull(tri: [DVec3; 3], h: &ConvexPolyhedron, ph: &Pose) -> Option<f64> {
    let v: Vec<DVec3> = h.vertices().iter().map(|&p| ph.transform_point(p)).collect();
    // Containment of a triangle vertex in the hull (all face planes).
    let inside = |p: DVec3| {
        (0..h.faces().len() as u32).all(|f| {
            let fv = h.face_vertices(f);
            let (a, b, c) = (v[fv[0] as usize], v[fv[1] as usize], v[fv[2] as usize]);
            (p - a).dot((b - a).cross(c - a)) <= 0.0
        })
    };
    if tri.iter().any(|&p| inside(p)) {
        return None;
    }
    let mut best = f64::INFINITY;
    for f in 0..h.faces().len() as u32 {
        let fv = h.face_vertices(f);
        for k in 1..fv.len() - 1 {
            let ft = [v[fv[0] as usize], v[fv[k] as usize], v[fv[k + 1] as usize]];
            for &p in &tri {
                best = best.min(point_triangle(p, ft));
            }
            for k in 0..3 {
                if segment_crosses_triangle(tri[k], tri[(k + 1) % 3], ft) {
                    return None;
                }
            }
        }
    }
    for &p in &v {
        best = best.min(point_triangle(p, tri));
    }
    for e in h.edges() {
        let [s, t] = e.vertices;
        for k in 0..3 {
            if segment_crosses_triangle(v[s as usize], v[t as usize], tri) {
                return None;
            }
            best = best.min(segment_segment(tri[k], tri[(k + 1) % 3], v[s as usize], v[t as usize]));
        }
    }
    Some(best)
}

/// Signed distance of a point `p` (world) to the box of full sides [`BOX`] at `pb`.
fn point_box(p: DVec3, pb: &Pose) -> f64 {
    let l = pb.inverse_transform_point(p);
    let h = DVec3::new(BOX[0], BOX[1], BOX[2]) * 0.5;
    let q = l.abs() - h;
    if q.max_element() <= 0.0 {
        return q.max_element();
    }
    q.max(DVec3::ZERO).length()
}

/// The capsule's segment in the world.
fn capsule_segment(p: &Pose) -> (DVec3, DVec3) {
    let h = DVec3::new(0.0, 0.0, 0.5 * CAPSULE_LEN);
    (p.transform_point(-h), p.transform_point(h))
}

/// The oracle's signed distance (`None`: overlapping, depth not known).
fn oracle(kind: Kind, a: &Side, pa: &Pose, b: &Side, pb: &Pose) -> Option<f64> {
    let (ca, cb) = (pa.translation, pb.translation);
    match kind {
        Kind::SphereSphere => Some((cb - ca).length() - 2.0 * SPHERE_R),
        Kind::SphereCapsule => {
            let (s0, s1) = capsule_segment(pb);
            Some(point_segment(ca, s0, s1) - SPHERE_R - CAPSULE_R)
        }
        Kind::CapsuleCapsule => {
            let ((p0, p1), (q0, q1)) = (capsule_segment(pa), capsule_segment(pb));
            let d = segment_segment_search(p0, p1, q0, q1);
            // Crossing cores (distance 0): the depth is not a closed form.
            (d > 0.0).then_some(d - 2.0 * CAPSULE_R)
        }
        Kind::SphereBox => Some(point_box(ca, pb) - SPHERE_R),
        Kind::TriangleConvex => {
            let t = a.poly.vertices();
            let tri = [
                pa.transform_point(t[0]),
                pa.transform_point(t[1]),
                pa.transform_point(t[2]),
            ];
            triangle_hull(tri, &b.poly, pb)
        }
    }
}

// ---------------------------------------------------------------------------------------
// Running and checking.

/// A method's answer: signed distance (when measured) and whether it reports an overlap
/// (`Some(true)`), apartness (`Some(false)`) or touching (`None`).
#[derive(Clone, Copy, Debug)]
struct Got {
    distance: Option<f64>,
    overlap: Option<bool>,
}

#[inline]
fn run_one(m: usize, a: &Side, b: &Side, p: &Pair, cache: &mut PairCache) -> Result<Got, String> {
    let (_, who, ask) = METHODS[m];
    match (who, ask) {
        (Who::Polycd(alg), Ask::Distance) => match query::distance(&a.poly, &p.pa, &b.poly, &p.pb, alg, cache) {
            Ok(Distance::Separated { distance, .. }) => Ok(Got {
                distance: Some(distance),
                overlap: Some(false),
            }),
            Ok(Distance::Penetrating { penetration, .. }) => Ok(Got {
                distance: penetration.map(|q| -q.depth),
                overlap: Some(true),
            }),
            Ok(Distance::NotConverged { .. }) => Err("not converged".into()),
            Ok(other) => Err(format!("unknown distance answer {other:?}")),
            Err(e) => Err(e.to_string()),
        },
        (Who::Polycd(alg), Ask::Intersect) => match query::intersect(&a.poly, &p.pa, &b.poly, &p.pb, alg, cache) {
            Ok(Intersection::Disjoint { .. }) => Ok(Got {
                distance: None,
                overlap: Some(false),
            }),
            Ok(Intersection::Touching { .. }) => Ok(Got {
                distance: None,
                overlap: None,
            }),
            Ok(Intersection::Overlapping { .. }) => Ok(Got {
                distance: None,
                overlap: Some(true),
            }),
            Ok(Intersection::NotConverged { .. }) => Err("not converged".into()),
            Ok(other) => Err(format!("unknown intersection answer {other:?}")),
            Err(e) => Err(e.to_string()),
        },
        (Who::Parry, Ask::Distance) => {
            let d = parry3d_f64::query::distance(&p.ppa, &*a.parry, &p.ppb, &*b.parry)
                .map_err(|_| "parry: unsupported".to_string())?
                .distance;
            if d > 0.0 {
                return Ok(Got {
                    distance: Some(d),
                    overlap: Some(false),
                });
            }
            let depth = match parry3d_f64::query::contact(&p.ppa, &*a.parry, &p.ppb, &*b.parry, 0.0) {
                Ok(Some(c)) => Some(c.dist.min(0.0)),
                _ => None,
            };
            Ok(Got {
                distance: depth,
                overlap: None,
            })
        }
        (Who::Parry, Ask::Intersect) => {
            let hit = parry3d_f64::query::intersection_test(&p.ppa, &*a.parry, &p.ppb, &*b.parry)
                .map_err(|_| "parry: unsupported".to_string())?
                .intersecting;
            Ok(Got {
                distance: None,
                overlap: if hit { None } else { Some(false) },
            })
        }
    }
}

/// Why `got` disagrees with the oracle, if it does.
fn check(got: &Got, p: &Pair, tol: f64, scale: f64, rel: f64) -> Option<String> {
    let apart = p.oracle.is_some_and(|d| d > tol);
    let overlapping = p.overlapping || p.oracle.is_some_and(|d| d < -tol);
    match got.overlap {
        Some(true) if apart => return Some(format!("overlap, oracle {:?}", p.oracle)),
        Some(false) if overlapping => return Some(format!("apart, oracle {:?}", p.oracle)),
        None if apart => return Some(format!("touching/intersecting, oracle {:?}", p.oracle)),
        _ => {}
    }
    if let (Some(d), Some(o)) = (got.distance, p.oracle) {
        if (d - o).abs() > rel * scale {
            return Some(format!(
                "distance {d:.17e}, oracle {o:.17e}, |Δ| = {:.3e}",
                (d - o).abs()
            ));
        }
    }
    None
}

pub(crate) fn run(opts: &RunOptions, ctx: &mut Context) -> Result<(), String> {
    let (per_bucket, reps) = if opts.quick { (20, 3) } else { (1000, 15) };
    let seed = opts.seed.wrapping_add(22_000);
    ctx.start_progress((KINDS.len() * BUCKETS.len()) as u64);
    ctx.peers.push(METHODS[2].0);
    ctx.peers.push(METHODS[5].0);
    ctx.table.push_str(&format!(
        "== shapes (issue 22): flat and rounded pairs, random poses, {per_bucket} pairs per bucket, cold; \
         µs per query (median of {reps} batch repetitions) ==\n"
    ));
    let mut header = vec!["pair".to_string(), "bucket".to_string()];
    header.extend(METHODS.iter().map(|m| m.0.to_string()));
    header.push("parry ÷ Auto (distance)".into());
    header.push("parry ÷ Auto (intersect)".into());
    let mut t = Table::new(header);
    let mut rows = Vec::new();
    let mut totals = vec![[0.0f64; METHODS.len()]; KINDS.len()];
    for (k, &kind) in KINDS.iter().enumerate() {
        let (a, b) = sides(kind, seed.wrapping_add(k as u64))?;
        for (bi, bucket) in BUCKETS.iter().enumerate() {
            let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(100 * k as u64 + bi as u64));
            let pairs: Vec<Pair> = placements(&a, &b, bi, per_bucket, &mut rng)
                .into_iter()
                .map(|(pa, pb)| {
                    let o = oracle(kind, &a, &pa, &b, &pb);
                    Pair {
                        ppa: parry_pose(&pa),
                        ppb: parry_pose(&pb),
                        overlapping: o.is_none(),
                        oracle: o,
                        pa,
                        pb,
                    }
                })
                .collect();
            let tols: Vec<(f64, f64)> = pairs
                .iter()
                .map(|p| {
                    (
                        contact_tolerance(&a.poly, &p.pa, &b.poly, &p.pb),
                        pair_scale(&a.poly, &p.pa, &b.poly, &p.pb),
                    )
                })
                .collect();
            // Answers (outside the clock) and their checks.
            let mut caches: Vec<PairCache> = (0..pairs.len()).map(|_| PairCache::default()).collect();
            for (m, &(label, who, _)) in METHODS.iter().enumerate() {
                let peer = who == Who::Parry;
                let rel = if peer { crate::PEER_AGREEMENT_REL } else { AGREEMENT_REL };
                for (j, p) in pairs.iter().enumerate() {
                    caches[j].forget();
                    let why = match run_one(m, &a, &b, p, &mut caches[j]) {
                        Ok(g) => check(&g, p, tols[j].0, tols[j].1, rel),
                        Err(e) => Some(e),
                    };
                    if let Some(why) = why {
                        ctx.disagree(format!("{} {bucket} pair {j}", kind.name()), label, "oracle", why);
                    }
                }
            }
            // Timing: every method over the batch, interleaved per repetition.
            let mut samples = vec![Vec::with_capacity(reps); METHODS.len()];
            for _ in 0..reps {
                for (m, s) in samples.iter_mut().enumerate() {
                    // One untimed pass first: the method's code and shape data are in the
                    // caches for every method alike (the first method after another library's
                    // batch would otherwise pay for the switch).
                    for (p, c) in pairs.iter().zip(caches.iter_mut()) {
                        c.forget();
                        let _ = black_box(run_one(m, &a, &b, p, c));
                    }
                    for c in caches.iter_mut() {
                        c.forget();
                    }
                    let start = Instant::now();
                    for (p, c) in pairs.iter().zip(caches.iter_mut()) {
                        let _ = black_box(run_one(m, black_box(&a), black_box(&b), black_box(p), c));
                    }
                    s.push(start.elapsed().as_nanos() as f64 / pairs.len() as f64);
                }
            }
            let ns: Vec<f64> = samples.iter_mut().map(|s| median(s)).collect();
            for m in 0..METHODS.len() {
                totals[k][m] += ns[m] / BUCKETS.len() as f64;
            }
            let mut row = vec![kind.name().to_string(), bucket.to_string()];
            row.extend(ns.iter().map(|&x| us(x)));
            row.push(ratio(ns[2] / ns[0]));
            row.push(ratio(ns[5] / ns[3]));
            t.row(row);
            let mut csv_row = vec![kind.name().to_string(), bucket.to_string()];
            csv_row.extend(ns.iter().map(|&x| crate::csv::num(x / 1000.0)));
            rows.push(csv_row);
            ctx.progress.tick(1);
        }
    }
    for (k, kind) in KINDS.iter().enumerate() {
        let ns = totals[k];
        let mut row = vec![kind.name().to_string(), "all (mean)".into()];
        row.extend(ns.iter().map(|&x| us(x)));
        row.push(ratio(ns[2] / ns[0]));
        row.push(ratio(ns[5] / ns[3]));
        t.row(row);
    }
    ctx.table.push_str(&t.render());
    ctx.table.push_str(
        "Auto: closed forms for point and segment cores (sphere, capsule), GJK otherwise; parry distance \
         runs `contact` after a 0 distance (depth), as polycd's distance answers it\n",
    );
    let mut csv_header = vec!["pair", "bucket"];
    csv_header.extend(METHODS.iter().map(|m| m.0));
    csv_out(ctx, "shapes.csv", &csv_header, &rows)
}
