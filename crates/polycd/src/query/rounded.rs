//! Rounded shapes: a core polytope dilated by a ball of radius `r ≥ 0`
//! ([`ConvexPolyhedron::with_radius`]). The algorithms answer for the cores; this file turns
//! their answers into the rounded shapes' answers. It is entered from [`super::intersect`],
//! [`super::distance`] and [`super::directional`] only when a radius is positive, after the
//! poses are validated and the pair brought into the safe band, so radius 0 is today's path
//! bit for bit.
//!
//! With `R = r_A + r_B`, `n` the unit normal of the cores' contact (from A towards B):
//! - **distance**: `d = d_core − R`, exact to one rounding. The closest points are the
//!   cores' moved along `n` by `r_A` (on A) and `−r_B` (on B), so they lie on the rounded
//!   surfaces; the features are the cores' features carrying the core points. When
//!   `d_core < R` the rounded shapes overlap by `R − d_core` along `n` (a `Penetrating`
//!   answer whose witness is a point within `r_A` of A's core point and `r_B` of B's). When
//!   the cores overlap, the depth is the core depth (EPA, or the algorithm's completed
//!   depth) plus `R`, along the core's penetration normal: the signed distance is
//!   `−(depth_core + R)`. Two flat cores whose difference is flat (collinear segments, a
//!   point on a segment, coplanar polygons) have core depth exactly 0 along its normal,
//!   which EPA on the degenerate difference only approximates: `flat_core_depth` measures
//!   that normal's depth by exact support values and the smaller depth is kept. Touching
//!   point and segment cores are measured again by a golden-section search along A's
//!   segment (`line_cores_touching`): the common perpendicular of nearly parallel segments
//!   is ill-conditioned, and `R − d_core` would inherit its error.
//!
//!   The normal is never taken from two nearly coincident points: a face among the closest
//!   features gives its normal, two crossing edges their cross product (turned by the
//!   closest points when the cores are apart beyond the contact tolerance, else to the side
//!   along which the cores separate: touching coplanar edges' points cannot orient it); otherwise the
//!   closest-point difference when the cores are farther apart than the contact tolerance,
//!   and the weakly separating plane of GJK's boolean test (or EPA's normal) when they touch.
//! - **intersect** needs the core distance, not a boolean: GJK (`Auto`, `Gjk`), CD-Dual and
//!   HS-jump first answer the cores' boolean question (an overlap of the cores is an overlap
//!   of the rounded shapes, with the same certificate); otherwise the core distance is
//!   measured by GJK (CD-Dual and HS-jump measure no distance). V-Clip and the convex program
//!   answer through their own distance. The rounded distance is then compared with the
//!   contact tolerance (which includes both radii: [`super::pair_scale`]).
//! - **directional** (B translated by `t·s`): the set of `t` where the rounded shapes meet is
//!   the chord `[lo, hi]` of the line through the cores' Minkowski difference dilated by `R`,
//!   a smooth convex body. It is found by *conservative advancement on the core distance*
//!   measured by GJK: from a point `t_k` outside, with rounded gap `g_k > 0` and contact
//!   normal `n_k`, the rounded difference lies behind the plane of normal `n_k` at the gap,
//!   so the line cannot meet it before `t_k + g_k / (−n_k·s)` (and never, ahead, when
//!   `n_k·s ≥ 0`). The step is exact on flat parts and Newton's step on the curved ones
//!   (quadratic convergence on a transversal hit). It stops when the gap is at most
//!   [`ROUNDED_GAP_REL`] × the pair scale, within [`ROUNDED_MAX_STEPS`] steps (else
//!   `NotConverged`). A probe that lands inside the difference beyond that band (a step that
//!   was not conservative: a contact normal off the true one) sends the search back to
//!   bisection on the gap's sign between the last point outside and that one (the line
//!   enters the convex difference once), again within [`ROUNDED_MAX_STEPS`] probes.
//!   **Accuracy**: the answer is conservative — no contact strictly between
//!   the start and `t` — and at `t` the rounded shapes are apart by at most that gap (so
//!   *touching*); the error in `t` is the gap over `|n·s|`. Apart at `t = 0`, one
//!   advancement from 0 (towards the side the normal allows); overlapping, one from each end
//!   of a segment beyond both shapes' bounding balls, the end of least magnitude answering;
//!   touching within the tolerance, `t = 0`. `Auto` and `Gjk` answer it; CD-Dual's dual-space
//!   search walks the faces of the difference, which a rounded one does not have: it returns
//!   `Unsupported`.
//!
//! Every loop is bounded ([`ROUNDED_MAX_STEPS`]); nothing allocates beyond what the core
//! queries do.

use super::{core_distance, core_intersect, Algorithm, PairCache};
use crate::contract::{
    contact_tolerance, Directional, Distance, Feature, FeaturePair, Intersection, OverlapWitness, Penetration,
};
use crate::core::error::PolycdError;
use crate::core::math::{DVec3, Plane, Pose};
use crate::core::tolerance::{ROUNDED_EDGE_SIN, ROUNDED_GAP_REL, ROUNDED_LINE_STEPS, ROUNDED_MAX_STEPS};
use crate::gjk;
use crate::shape::polyhedron::ConvexPolyhedron;

/// Whether either shape is rounded (the query layer's switch to this file).
#[inline]
pub(super) fn is_rounded(a: &ConvexPolyhedron, b: &ConvexPolyhedron) -> bool {
    a.radius > 0.0 || b.radius > 0.0
}

/// Distance, closest points on the rounded surfaces, or the rounded penetration.
pub(super) fn distance(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Distance, PolycdError> {
    let core = core_distance(a, pa, b, pb, algorithm, cache)?;
    Ok(from_core(a, pa, b, pb, core, cache)?.0)
}

/// The boolean question on rounded shapes (see the module header for which algorithm
/// measures what).
pub(super) fn intersect(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Intersection, PolycdError> {
    let (d, n) = match algorithm {
        Algorithm::Auto | Algorithm::Gjk | Algorithm::CdDual | Algorithm::HsJump => {
            let core = core_intersect(a, pa, b, pb, algorithm, cache)?;
            if let Intersection::Overlapping { .. } = core {
                // The cores overlap beyond the contact tolerance: so do the rounded shapes,
                // and the core certificate (a point or simplex common to the cores) holds.
                return Ok(core);
            }
            let d = core_distance(a, pa, b, pb, Algorithm::Gjk, cache)?;
            let (d, n) = from_core(a, pa, b, pb, d, cache)?;
            (d.with_iterations(d.iterations().saturating_add(core.iterations())), n)
        }
        Algorithm::VClip | Algorithm::Qp | Algorithm::QpFast => {
            let d = core_distance(a, pa, b, pb, algorithm, cache)?;
            from_core(a, pa, b, pb, d, cache)?
        }
    };
    let tol = contact_tolerance(a, pa, b, pb);
    let touching = |p: DVec3, n: DVec3, iterations: u32| Intersection::Touching {
        point: p,
        plane: Plane {
            normal: n,
            offset: n.dot(p),
        },
        iterations,
    };
    Ok(match d {
        Distance::Separated {
            distance,
            point_a,
            point_b,
            iterations,
            ..
        } => {
            let mid = (point_a + point_b) * 0.5;
            if distance > tol {
                Intersection::Disjoint {
                    plane: Plane {
                        normal: n,
                        offset: n.dot(mid),
                    },
                    iterations,
                }
            } else {
                touching(mid, n, iterations)
            }
        }
        Distance::Penetrating {
            penetration: Some(p),
            iterations,
            ..
        } if p.depth <= tol => touching((p.point_a + p.point_b) * 0.5, p.normal, iterations),
        Distance::Penetrating {
            witness, iterations, ..
        } => Intersection::Overlapping { witness, iterations },
        Distance::NotConverged { iterations } => Intersection::NotConverged { iterations },
    })
}

/// The rounded answer of a core distance answer, and the unit contact normal (A towards B)
/// it used (zero for `NotConverged` and depth-less penetrations).
pub(super) fn from_core(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    core: Distance,
    cache: &mut PairCache,
) -> Result<(Distance, DVec3), PolycdError> {
    let (ra, rb) = (a.radius, b.radius);
    let r = ra + rb;
    match core {
        Distance::Separated {
            distance: dc,
            point_a: ca,
            point_b: cb,
            features,
            iterations,
        } => {
            let (dc, ca, cb, features) = match line_cores_touching(a, pa, b, pb, dc) {
                Some(better) if better.0 < dc => better,
                _ => (dc, ca, cb, features),
            };
            let n = separated_normal(a, pa, b, pb, dc, ca, cb, features, cache)?;
            let (qa, qb) = (ca + n * ra, cb - n * rb);
            // Exactly touching (dc = r) is a distance of 0 with its features, as for solids.
            if dc >= r {
                return Ok((
                    Distance::Separated {
                        distance: dc - r,
                        point_a: qa,
                        point_b: qb,
                        features,
                        iterations,
                    },
                    n,
                ));
            }
            // A point of the segment ca + t·n within r_A of ca and r_B of cb.
            let lo = (-ra).max(dc - rb);
            let hi = ra.min(dc + rb);
            let common = ca + n * (0.5 * (lo + hi));
            Ok((
                Distance::Penetrating {
                    witness: OverlapWitness::CommonPoint(common),
                    penetration: Some(Penetration {
                        depth: r - dc,
                        // The rounded difference is solid: its depth is the relative one.
                        relative_depth: r - dc,
                        normal: n,
                        point_a: qa,
                        point_b: qb,
                    }),
                    iterations,
                },
                n,
            ))
        }
        Distance::Penetrating {
            witness,
            penetration: Some(p),
            iterations,
        } => {
            // Flat cores whose difference is flat: their depth is 0 along the difference's
            // normal, which EPA on a degenerate polytope finds only to its own tolerance.
            let (depth, normal) = match flat_core_depth(a, pa, b, pb) {
                Some((d, n)) if d < p.depth => (d, n),
                _ => (p.depth, p.normal),
            };
            Ok((
                Distance::Penetrating {
                    witness,
                    penetration: Some(Penetration {
                        depth: depth + r,
                        // The rounded difference is solid: its depth is the relative one.
                        relative_depth: depth + r,
                        normal,
                        point_a: p.point_a + normal * ra,
                        point_b: p.point_b - normal * rb,
                    }),
                    iterations,
                },
                normal,
            ))
        }
        other => Ok((other, DVec3::ZERO)),
    }
}

/// The unit normal (A towards B) of separated (or touching) cores with closest points `ca`,
/// `cb` at distance `dc` on `features` (see the module header).
#[allow(clippy::too_many_arguments)]
fn separated_normal(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    dc: f64,
    ca: DVec3,
    cb: DVec3,
    features: FeaturePair,
    cache: &mut PairCache,
) -> Result<DVec3, PolycdError> {
    let valid = |p: &ConvexPolyhedron, f: Feature| match f {
        Feature::Vertex(i) => (i as usize) < p.vertices().len(),
        Feature::Edge(i) => (i as usize) < p.edges().len(),
        Feature::Face(i) => (i as usize) < p.faces().len(),
    };
    if valid(a, features.a) && valid(b, features.b) {
        match (features.a, features.b) {
            (Feature::Face(f), _) => {
                let n = pa.transform_vector(a.face(f).normal);
                return Ok(flat_face_side(a, pa, b, pb, n, dc, cb - ca));
            }
            (_, Feature::Face(g)) => {
                let n = -pb.transform_vector(b.face(g).normal);
                return Ok(-flat_face_side(b, pb, a, pa, -n, dc, ca - cb));
            }
            (Feature::Edge(e), Feature::Edge(g)) if dc > 0.0 => {
                let edge_dir = |p: &ConvexPolyhedron, pose: &Pose, e: u32| {
                    let [t, h] = p.edge(e).vertices;
                    pose.transform_vector(p.vertex(h) - p.vertex(t)).normalize_or_zero()
                };
                let c = edge_dir(a, pa, e).cross(edge_dir(b, pb, g));
                let l = c.length();
                let v = cb - ca;
                let tol = contact_tolerance(a, pa, b, pb);
                if l > ROUNDED_EDGE_SIN && dc > tol && c.dot(v) != 0.0 {
                    // The cross product is the closest direction only when the closest points
                    // are interior to both edges; on nearly parallel segments (a sliver `A − B`)
                    // GJK may name two edges for a closest point on the difference's thin side,
                    // where the direction lies in the segments' plane, not across it (capsules
                    // tilted by 6e-6: advancement along the wrong plane overshot the chord by
                    // 6 %). Every unit `n` has core gap ≤ `dc`, with equality at the closest
                    // direction: the candidate of larger exact gap is the better one.
                    let nc = c / l * c.dot(v).signum();
                    let nv = v / v.length();
                    return Ok(if core_gap(a, pa, b, pb, nc) >= core_gap(a, pa, b, pb, nv) {
                        nc
                    } else {
                        nv
                    });
                }
                if l > ROUNDED_EDGE_SIN && dc <= tol {
                    // Touching: the closest points are a rounding apart and cannot orient the
                    // edges' normal (two coplanar edges — a capsule's segment lying in a box's
                    // face plane across its border edge — gave the inward normal, and rounded
                    // points inside the cores). The side along which the cores separate does:
                    // the right one measures about `dc`, the other about minus the shapes'
                    // extent along it.
                    let c = c / l;
                    let (up, down) = (core_gap(a, pa, b, pb, c), core_gap(a, pa, b, pb, -c));
                    let (n, gap) = if up >= down { (c, up) } else { (-c, down) };
                    if gap >= -tol {
                        return Ok(n);
                    }
                }
            }
            _ => {}
        }
    }
    let tol = contact_tolerance(a, pa, b, pb);
    let v = cb - ca;
    let l = v.length();
    if dc > tol && l > 0.0 {
        return Ok(v / l);
    }
    // Touching cores: the weakly separating plane of GJK's boolean test, or EPA's normal.
    match gjk::intersect(a, pa, b, pb, &mut cache.gjk)? {
        Intersection::Touching { plane, .. } | Intersection::Disjoint { plane, .. } => return Ok(plane.normal),
        _ => {}
    }
    if let Distance::Penetrating {
        penetration: Some(p), ..
    } = gjk::distance(a, pa, b, pb, &mut cache.gjk)?
    {
        return Ok(p.normal);
    }
    // Last resort (no measurement gave a direction): the points', else the centres'.
    let c = pb.transform_point(b.bounding_sphere().0) - pa.transform_point(a.bounding_sphere().0);
    Ok(if l > 0.0 {
        v / l
    } else {
        c.try_normalize().unwrap_or(DVec3::X)
    })
}

/// The outward normal `n` (world) of a closest face of `p`'s core, turned towards the other
/// core `q` when `p` is flat. A flat core's two faces have opposite normals and share every
/// point, so a closest point inside it may be named by either face; a solid's closest face is
/// outward towards `q` by construction and is returned as given. With the cores apart by more
/// than the contact tolerance, the side is the one the closest points' difference `v` (from
/// `p`'s point to `q`'s) leans to (|n·v| is then the core distance up to rounding, far from 0);
/// touching, it is the side along which the cores separate (the larger [`core_gap`]: the right
/// side measures about `dc`, the wrong one minus the shapes' extent across it).
fn flat_face_side(
    p: &ConvexPolyhedron,
    pp: &Pose,
    q: &ConvexPolyhedron,
    pq: &Pose,
    n: DVec3,
    dc: f64,
    v: DVec3,
) -> DVec3 {
    if p.dimension() == 3 {
        return n;
    }
    if dc > contact_tolerance(p, pp, q, pq) {
        return if n.dot(v) < 0.0 { -n } else { n };
    }
    if core_gap(p, pp, q, pq, -n) > core_gap(p, pp, q, pq, n) {
        -n
    } else {
        n
    }
}

/// Point and segment cores touching (`dc` within the contact tolerance): their distance again,
/// by golden-section search of the convex `s ↦ dist(a(s), B)` along A's segment, each value a
/// well-conditioned projection on B's segment (error a few ulps of the size). Two nearly
/// parallel segments crossing each other are the case: the common perpendicular's
/// denominator `|u|²|v|² − (u·v)²` cancels (angle 1e-8: all of it), so GJK and the closed
/// form end up to 1e-8 × size apart where the cores meet, and the rounded depth `R − dc`
/// inherits it. `None` unless both cores are points or segments and they touch. At most
/// [`ROUNDED_LINE_STEPS`] steps; no allocation.
fn line_cores_touching(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    dc: f64,
) -> Option<(f64, DVec3, DVec3, FeaturePair)> {
    if a.dimension() > 1 || b.dimension() > 1 || !(dc <= contact_tolerance(a, pa, b, pb)) {
        return None;
    }
    let ends = |p: &ConvexPolyhedron, pose: &Pose| {
        let p0 = pose.transform_point(p.vertex(0));
        let p1 = if p.dimension() == 1 {
            pose.transform_point(p.vertex(1))
        } else {
            p0
        };
        (p0, p1)
    };
    let feature = |p: &ConvexPolyhedron, t: f64| {
        if p.dimension() == 0 || t <= 0.0 {
            Feature::Vertex(0)
        } else if t >= 1.0 {
            Feature::Vertex(1)
        } else {
            Feature::Edge(0)
        }
    };
    let ((a0, a1), (b0, b1)) = (ends(a, pa), ends(b, pb));
    let at = |s: f64| {
        let x = a0 + (a1 - a0) * s;
        let (q, t) = crate::core::geometry::closest_on_segment(x, b0, b1);
        ((q - x).length(), x, q, t)
    };
    let g = 0.5 * (5f64.sqrt() - 1.0);
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let (mut x1, mut x2) = (hi - g * (hi - lo), lo + g * (hi - lo));
    let (mut f1, mut f2) = (at(x1).0, at(x2).0);
    for _ in 0..ROUNDED_LINE_STEPS {
        if a.dimension() == 0 || !(x1 < x2) {
            break;
        }
        if f1 < f2 {
            (hi, x2, f2) = (x2, x1, f1);
            x1 = hi - g * (hi - lo);
            f1 = at(x1).0;
        } else {
            (lo, x1, f1) = (x1, x2, f2);
            x2 = lo + g * (hi - lo);
            f2 = at(x2).0;
        }
    }
    // The least of the bracket's points and both ends (a convex function's minimum may sit at
    // an end, which the bracket approaches but does not evaluate).
    let mut best = (f64::INFINITY, 0.0, a0, b0, 0.0);
    for s in [x1, x2, 0.0, 1.0] {
        let (d, x, q, t) = at(s);
        if d < best.0 {
            best = (d, s, x, q, t);
        }
    }
    let (d, s, x, q, t) = best;
    d.is_finite().then(|| {
        (
            d,
            x,
            q,
            FeaturePair {
                a: feature(a, s),
                b: feature(b, t),
            },
        )
    })
}

/// The cores' depth along the normal of their difference when both are flat (a point, a
/// segment or a polygon) and the difference may be flat too: two segments on one line, a
/// point on a segment, coplanar polygons. Such a difference has no interior, so a move of B
/// off its plane (or line) by any amount separates the cores: the core depth is 0 and the
/// rounded one `r_A + r_B`, along that normal. EPA on the degenerate difference measures
/// this 0 only to its own tolerance (3.8e-8 at scale 1e2 in the differential run).
///
/// The candidates are the directions normal to the difference where it is flat: a
/// polygon's normal, two segments' cross product, a direction orthogonal to a segment (for
/// collinear segments or a point on a segment), any direction for two points. Each is
/// measured by the cores' exact support values ([`core_gap`], both orientations); the one
/// leaving the least depth `−gap` is returned, `(depth, normal from A towards B)`. It is an
/// upper bound on the core depth like any translation's, so the caller keeps the smaller of
/// it and the algorithm's. `None` when a core is solid. No loop beyond the fixed candidates.
fn flat_core_depth(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose) -> Option<(f64, DVec3)> {
    if a.dimension() == 3 || b.dimension() == 3 {
        return None;
    }
    let axis = |p: &ConvexPolyhedron, pose: &Pose| -> Option<DVec3> {
        match p.dimension() {
            1 => pose.transform_vector(p.vertex(1) - p.vertex(0)).try_normalize(),
            _ => None,
        }
    };
    let normal = |p: &ConvexPolyhedron, pose: &Pose| -> Option<DVec3> {
        match p.dimension() {
            2 => pose.transform_vector(p.face(0).normal).try_normalize(),
            _ => None,
        }
    };
    let (ea, eb) = (axis(a, pa), axis(b, pb));
    let mut cands: [Option<DVec3>; 5] = [normal(a, pa), normal(b, pb), None, None, None];
    if let (Some(u), Some(v)) = (ea, eb) {
        cands[2] = u.cross(v).try_normalize();
    }
    cands[3] = ea.or(eb).map(|u| u.any_orthonormal_vector());
    if a.dimension() == 0 && b.dimension() == 0 {
        cands[4] = Some(DVec3::X);
    }
    let mut best: Option<(f64, DVec3)> = None;
    for n in cands.into_iter().flatten() {
        for n in [n, -n] {
            let depth = -core_gap(a, pa, b, pb, n);
            if depth.is_finite() && best.is_none_or(|(d, _)| depth < d) {
                best = Some((depth.max(0.0), n));
            }
        }
    }
    best
}

/// The cores' separation along the world direction `n` (A towards B): B's lowest support
/// value minus A's highest (exact support climbs of the cores).
fn core_gap(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose, n: DVec3) -> f64 {
    let va = a.support_climb_hinted(pa.inverse_transform_vector(n), 0);
    let vb = b.support_climb_hinted(pb.inverse_transform_vector(-n), 0);
    n.dot(pb.transform_point(b.vertex(vb))) - n.dot(pa.transform_point(a.vertex(va)))
}

/// The signed rounded gap of B translated by `t·s`, and its contact normal and rounded
/// points (GJK on the cores); `None` when GJK did not converge.
#[derive(Clone, Copy)]
struct Probe {
    gap: f64,
    normal: DVec3,
    point_a: DVec3,
    point_b: DVec3,
    iterations: u32,
}

fn probe(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    t: f64,
    cache: &mut PairCache,
) -> Result<Option<Probe>, PolycdError> {
    let moved = Pose::new(pb.rotation, pb.translation + s * t);
    let core = core_distance(a, pa, b, &moved, Algorithm::Gjk, cache)?;
    let (d, normal) = from_core(a, pa, b, &moved, core, cache)?;
    Ok(match d {
        Distance::Separated {
            distance,
            point_a,
            point_b,
            iterations,
            ..
        } => Some(Probe {
            gap: distance,
            normal,
            point_a,
            point_b,
            iterations,
        }),
        Distance::Penetrating {
            penetration: Some(p),
            iterations,
            ..
        } => Some(Probe {
            gap: -p.depth,
            normal,
            point_a: p.point_a,
            point_b: p.point_b,
            iterations,
        }),
        _ => None,
    })
}

/// How an advancement ended.
enum Advance {
    /// Contact at `t` (gap within the acceptance band), with the probe there and the
    /// iterations of every probe.
    Hit(f64, Probe, u32),
    /// The line does not meet the rounded difference on this side.
    Miss(u32),
    /// The step bound was reached (or GJK did not converge).
    Stuck(u32),
}

/// Conservative advancement from `t0` (rounded shapes apart there, `first` its probe) along
/// `side · s` (`side` = ±1), giving up beyond `|t| > reach`.
#[allow(clippy::too_many_arguments)]
fn advance(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    side: f64,
    t0: f64,
    first: Probe,
    reach: f64,
    accept: f64,
    cache: &mut PairCache,
) -> Result<Advance, PolycdError> {
    let (mut t, mut p) = (t0, first);
    let mut iterations = p.iterations;
    // The last point known outside (gap above the band): where a step that overshot the
    // chord's end goes back to.
    let mut outside = t0;
    for _ in 0..ROUNDED_MAX_STEPS {
        if p.gap < -accept {
            // Past the end, beyond the band: the step was not conservative (a contact normal
            // off the true one — the plane does not bound the rounded difference). The line
            // enters the convex difference once, so the gap changes sign once between the
            // last point outside and here: bisection finds the end.
            return bisect_end(a, pa, b, pb, s, outside, t, accept, iterations, cache);
        }
        if p.gap <= accept {
            return Ok(Advance::Hit(t, p, iterations));
        }
        outside = t;
        // The rounded difference lies behind the plane of normal n at the gap: moving B by
        // side·s·dt closes the gap at rate −side·(n·s) at most.
        let rate = -side * p.normal.dot(s);
        if !(rate > 0.0) {
            return Ok(Advance::Miss(iterations));
        }
        let next = t + side * (p.gap / rate);
        if !(next.abs() <= reach) {
            return Ok(Advance::Miss(iterations));
        }
        if next == t {
            return Ok(Advance::Stuck(iterations));
        }
        t = next;
        p = match probe(a, pa, b, pb, s, t, cache)? {
            Some(q) => q,
            None => return Ok(Advance::Stuck(iterations)),
        };
        iterations = iterations.saturating_add(p.iterations);
    }
    if p.gap < -accept {
        return bisect_end(a, pa, b, pb, s, outside, t, accept, iterations, cache);
    }
    if p.gap <= accept {
        return Ok(Advance::Hit(t, p, iterations));
    }
    Ok(Advance::Stuck(iterations))
}

/// The chord's end between `out` (rounded gap above the band) and `inside` (below it) by
/// bisection on the gap's sign, until a probe's gap is within the band (`Hit`); at most
/// [`ROUNDED_MAX_STEPS`] probes (the interval halves each time: 64 halvings take a pair
/// scale below 1e-19 of itself, far inside the band), or `Stuck` when the interval stops
/// shrinking first or GJK does not converge.
#[allow(clippy::too_many_arguments)]
fn bisect_end(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    out: f64,
    inside: f64,
    accept: f64,
    mut iterations: u32,
    cache: &mut PairCache,
) -> Result<Advance, PolycdError> {
    let (mut out, mut inside) = (out, inside);
    for _ in 0..ROUNDED_MAX_STEPS {
        let mid = 0.5 * (out + inside);
        if mid == out || mid == inside {
            break;
        }
        let Some(p) = probe(a, pa, b, pb, s, mid, cache)? else {
            break;
        };
        iterations = iterations.saturating_add(p.iterations);
        if p.gap.abs() <= accept {
            return Ok(Advance::Hit(mid, p, iterations));
        }
        if p.gap > 0.0 {
            out = mid;
        } else {
            inside = mid;
        }
    }
    Ok(Advance::Stuck(iterations))
}

/// The contact answer at `t` from its probe: the plane through the midpoint of the rounded
/// closest points, normal to the contact.
fn contact(t: f64, p: &Probe, iterations: u32) -> Directional {
    let mid = (p.point_a + p.point_b) * 0.5;
    Directional::Contact {
        t,
        plane: Plane {
            normal: p.normal,
            offset: p.normal.dot(mid),
        },
        iterations,
    }
}

/// The directional query on rounded shapes (unit direction `s`; see the module header).
pub(super) fn directional(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Directional, PolycdError> {
    match algorithm {
        Algorithm::Auto | Algorithm::Gjk => {}
        Algorithm::CdDual => {
            return Err(PolycdError::Unsupported {
                algorithm: algorithm.name(),
                query: "directional on rounded shapes",
            })
        }
        _ => {
            return Err(PolycdError::Unsupported {
                algorithm: algorithm.name(),
                query: "directional",
            })
        }
    }
    let tol = contact_tolerance(a, pa, b, pb);
    let accept = ROUNDED_GAP_REL * super::pair_scale(a, pa, b, pb);
    let Some(p0) = probe(a, pa, b, pb, s, 0.0, cache)? else {
        return Ok(Directional::NotConverged { iterations: 0 });
    };
    if p0.gap.abs() <= tol {
        let it = p0.iterations;
        return Ok(contact(0.0, &p0, it));
    }
    // Beyond |t| > reach the line is outside both rounded shapes' bounding balls' difference.
    let ca = pa.transform_point(a.bounding_sphere().0);
    let cb = pb.transform_point(b.bounding_sphere().0);
    let reach = 2.0 * ((ca - cb).length() + a.bounding_radius() + b.bounding_radius()) + tol;
    if p0.gap > 0.0 {
        // Apart: only the side where B moves against the contact normal can close the gap.
        let side = if p0.normal.dot(s) < 0.0 { 1.0 } else { -1.0 };
        return Ok(match advance(a, pa, b, pb, s, side, 0.0, p0, reach, accept, cache)? {
            Advance::Hit(t, p, it) => contact(t, &p, it),
            Advance::Miss(it) => Directional::Never { iterations: it },
            Advance::Stuck(it) => Directional::NotConverged { iterations: it },
        });
    }
    // Overlapping: the chord [lo, hi] holds 0; each end from outside.
    let mut ends = [(0.0, None::<Probe>); 2];
    let mut iterations = p0.iterations;
    for (k, side) in [(0usize, 1.0f64), (1, -1.0)] {
        let t0 = -side * reach;
        let Some(first) = probe(a, pa, b, pb, s, t0, cache)? else {
            return Ok(Directional::NotConverged { iterations });
        };
        match advance(a, pa, b, pb, s, side, t0, first, reach, accept, cache)? {
            Advance::Hit(t, p, it) => {
                iterations = iterations.saturating_add(it);
                ends[k] = (t, Some(p));
            }
            // The line passes through B's start (t = 0 is inside): a miss is not possible in
            // exact arithmetic; whatever stopped the advancement, there is no answer.
            Advance::Miss(it) | Advance::Stuck(it) => {
                return Ok(Directional::NotConverged {
                    iterations: iterations.saturating_add(it),
                })
            }
        }
    }
    let [(lo, plo), (hi, phi)] = ends;
    let (t, p) = if -lo <= hi { (lo, plo) } else { (hi, phi) };
    match p {
        Some(p) => Ok(contact(t, &p, iterations)),
        None => Ok(Directional::NotConverged { iterations }),
    }
}
