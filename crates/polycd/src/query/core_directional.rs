//! The directional question on the cores ([`super::directional`] after validation,
//! rescaling and the rounded-shape switch): GJK's ray casts or CD-Dual's dual-space search,
//! then the touching-at-`t = 0` settlement of the contract, then (two flat shapes) the contact
//! plane taken from the pair's own geometry ([`flat_contact_plane`]).
//!
//! **Flat pairs' contact plane.** Two nearly coplanar polygons (tilted by θ) have a sliver
//! difference `M = A − B`, θ·L thick: the ray cast's plane is the normal of a face of the
//! simplex, a cross product of nearly parallel differences, whose direction carries an error
//! ε/θ (1e-8 at θ = e^−19). The contract asks for a plane on which the shapes touch: at an
//! error η the two contact edges' ends differ by η·L along it, so each shape's contact region
//! shrinks to one end and the regions end θ·L apart (1.3e-6 at scale 1e2 in the differential
//! run; the certificate allows 1e-12 × scale). The plane is therefore re-chosen among the
//! normals `M`'s faces and rim can have — the polygons' normals, the cross products of an
//! edge of A with an edge of B (formed with exact products, so the result is orthogonal to
//! both edges to a few ulps whatever their angle), and each edge turned in a polygon's plane
//! (`n × e`: the rim of a flat or sliver `M`, where the normal cone spans from `n` to `−n`) —
//! by the support gap `min_B c·(b + t·s) − max_A c·a` at the answer's `t` and the contact
//! regions: at a contact the gap is 0 for the normals of `M`'s cone at the origin and negative
//! for every other direction, and the cone holds one of these candidates (a face normal of
//! `M`, or an in-plane edge normal where `M` is flat); far from the origin the gaps of many
//! candidates tie to rounding (1.2e-10 at 1e6), so a candidate is taken only when the
//! shapes' contact regions on its plane (the vertices within the contact tolerance of each
//! extreme) also meet in the plane, the largest gap first. That is the certificate's own
//! test of a contact plane (`verify`), asked of the candidates here; if no candidate passes it
//! the answer keeps the ray cast's plane.
//! Departures: only pairs of flat shapes with a polygon among them and at most
//! [`FLAT_PLANE_EDGES`] edges each (the candidates grow as the product of the edge counts;
//! larger polygons keep the ray cast's plane). No allocation: fixed arrays.

use super::{Algorithm, PairCache};
use crate::contract::{contact_tolerance, Directional, Intersection};
use crate::core::error::PolycdError;
use crate::core::geometry::two_prod;
use crate::core::math::{DVec3, Plane, Pose};
use crate::core::tolerance::GRAZING_COS;
use crate::shape::polyhedron::ConvexPolyhedron;
use crate::{cd_dual, gjk};

/// The directional answer of `algorithm` (unit direction `s`), before [`settle_touching`].
pub(super) fn directional_by(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Directional, PolycdError> {
    match algorithm {
        Algorithm::CdDual => {
            let r = cd_dual::directional(a, pa, b, pb, s, cache.cd_dual.get_or_default())?;
            // A chord end on a face of M parallel to s is no end: the line grazes that face
            // (B slides along A), where the face pick and t = k / (N·s) are rounding noise.
            // Such answers, and non-convergence, are settled by GJK's ray casts.
            let grazing = |r: &Directional| match r {
                Directional::Contact { plane, .. } => plane.normal.dot(s).abs() <= GRAZING_COS,
                Directional::NotConverged { .. } => true,
                Directional::Never { .. } => false,
            };
            if grazing(&r) {
                let g = gjk::directional(a, pa, b, pb, s, &mut cache.gjk)?;
                return Ok(g.with_iterations(g.iterations().saturating_add(r.iterations())));
            }
            Ok(r)
        }
        // Two GJK ray casts: an order of magnitude faster than CD-Dual's two full searches.
        Algorithm::Auto | Algorithm::Gjk => gjk::directional(a, pa, b, pb, s, &mut cache.gjk),
        _ => Err(PolycdError::Unsupported {
            algorithm: algorithm.name(),
            query: "directional",
        }),
    }
}

/// The contract says `t = 0` when the shapes touch where they are. The line's chord through
/// `M = A − B` does not show that by itself: B sliding along a face of A (the line lies in
/// a face of `M`) has a chord `[lo, hi]` around 0 with both ends far away, and a line that
/// meets `M` only at the touching point (vertex on vertex, the direction pointing out of
/// both) is a miss to rounding. So a pair that is not certainly apart at `t = 0` — no chord,
/// a chord around 0, or a contact plane whose gap at `t = 0` (`−t·n·s`, a separating-plane
/// bound on the distance) is within the contact tolerance — is asked once more, by GJK's
/// boolean test (early exits: cheap when clearly apart or clearly overlapping); if it
/// touches, the answer is `t = 0` with its contact plane.
///
/// A contact answer on two flat shapes then takes its plane from [`flat_contact_plane`].
pub(super) fn settle_touching(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    r: Directional,
    cache: &mut PairCache,
) -> Result<Directional, PolycdError> {
    let tol = contact_tolerance(a, pa, b, pb);
    let r = settle(a, pa, b, pb, s, r, tol, cache)?;
    Ok(match r {
        Directional::Contact { t, iterations, .. } => match flat_contact_plane(a, pa, b, pb, s, t, tol) {
            Some(plane) => Directional::Contact { t, plane, iterations },
            None => r,
        },
        _ => r,
    })
}

/// [`settle_touching`] before the flat pairs' plane.
#[allow(clippy::too_many_arguments)]
fn settle(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    r: Directional,
    tol: f64,
    cache: &mut PairCache,
) -> Result<Directional, PolycdError> {
    let check = match &r {
        Directional::Never { .. } => true,
        Directional::Contact { t, plane, .. } => t.abs() > tol && -t * plane.normal.dot(s) <= tol,
        Directional::NotConverged { .. } => false,
    };
    if !check {
        return Ok(r);
    }
    match gjk::intersect(a, pa, b, pb, &mut cache.gjk)? {
        Intersection::Touching { plane, iterations, .. } => Ok(Directional::Contact {
            t: 0.0,
            plane,
            iterations: r.iterations().saturating_add(iterations),
        }),
        _ => Ok(r),
    }
}

/// Flat shapes of at most this many edges (and so vertices) get [`flat_contact_plane`]: the
/// candidates number `E_A·E_B + 2·(E_A + E_B) + 2`. A size, not a tolerance.
const FLAT_PLANE_EDGES: usize = 8;

/// `a·b − c·d` to about one rounding (Kahan: the product `c·d` split exactly by a fused
/// multiply-add), where the plain expression loses everything when the two products cancel.
#[inline]
fn diff_of_products(a: f64, b: f64, c: f64, d: f64) -> f64 {
    let (w, e) = two_prod(c, d);
    a.mul_add(b, -w) - e
}

/// `u × v` with each coordinate to about one rounding of its own value (not of `|u||v|`).
fn cross_accurate(u: DVec3, v: DVec3) -> DVec3 {
    DVec3::new(
        diff_of_products(u.y, v.z, u.z, v.y),
        diff_of_products(u.z, v.x, u.x, v.z),
        diff_of_products(u.x, v.y, u.y, v.x),
    )
}

/// The contact plane of two flat shapes (a polygon among them, at most [`FLAT_PLANE_EDGES`]
/// edges each) with B translated by `t·s` (see the module header): among the candidates whose
/// support gap is within `tol` of contact, one whose contact regions meet in the plane
/// ([`region_separation`] within `tol`), the largest gap first; `None` when none does.
fn flat_contact_plane(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    t: f64,
    tol: f64,
) -> Option<Plane> {
    if a.dimension() == 3 || b.dimension() == 3 || (a.dimension() < 2 && b.dimension() < 2) {
        return None;
    }
    let (na, nb) = (a.vertices().len(), b.vertices().len());
    if na > FLAT_PLANE_EDGES
        || nb > FLAT_PLANE_EDGES
        || a.edges().len() > FLAT_PLANE_EDGES
        || b.edges().len() > FLAT_PLANE_EDGES
    {
        return None;
    }
    let shift = s * t;
    let (mut wa, mut wb) = ([DVec3::ZERO; FLAT_PLANE_EDGES], [DVec3::ZERO; FLAT_PLANE_EDGES]);
    for (w, v) in wa.iter_mut().zip(a.vertices()) {
        *w = pa.transform_point(*v);
    }
    for (w, v) in wb.iter_mut().zip(b.vertices()) {
        *w = pb.transform_point(*v) + shift;
    }
    let (wa, wb) = (&wa[..na], &wb[..nb]);
    // (gap, unit normal, A's highest, B's lowest) of the best candidate so far.
    let mut best: Option<(f64, DVec3, f64, f64)> = None;
    let mut consider = |c: DVec3| {
        let Some(c) = c.try_normalize() else {
            return;
        };
        for c in [c, -c] {
            let hi_a = wa.iter().map(|p| c.dot(*p)).fold(f64::NEG_INFINITY, f64::max);
            let lo_b = wb.iter().map(|p| c.dot(*p)).fold(f64::INFINITY, f64::min);
            let gap = lo_b - hi_a;
            if !(gap >= -tol) || best.is_some_and(|(g, ..)| gap <= g) {
                continue;
            }
            if region_separation(c, wa, hi_a, wb, lo_b, tol) <= tol {
                best = Some((gap, c, hi_a, lo_b));
            }
        }
    };
    let normal =
        |p: &ConvexPolyhedron, pose: &Pose| (p.dimension() == 2).then(|| pose.transform_vector(p.face(0).normal));
    let (fa, fb) = (normal(a, pa), normal(b, pb));
    for n in [fa, fb].into_iter().flatten() {
        consider(n);
    }
    let edge = |w: &[DVec3], p: &ConvexPolyhedron, k: usize| {
        let [i, j] = p.edges()[k].vertices;
        w[j as usize] - w[i as usize]
    };
    for i in 0..a.edges().len() {
        let ea = edge(wa, a, i);
        for j in 0..b.edges().len() {
            consider(cross_accurate(ea, edge(wb, b, j)));
        }
    }
    for n in [fa, fb].into_iter().flatten() {
        for i in 0..a.edges().len() {
            consider(n.cross(edge(wa, a, i)));
        }
        for j in 0..b.edges().len() {
            consider(n.cross(edge(wb, b, j)));
        }
    }
    let (_, normal, hi_a, lo_b) = best?;
    Some(Plane {
        normal,
        offset: 0.5 * (hi_a + lo_b),
    })
}

/// How far apart, within the plane of unit normal `c`, the two shapes' contact regions lie:
/// A's vertices within `tol` of its highest value `hi_a` along `c`, B's within `tol` of its
/// lowest `lo_b`. Separating-axis test over the in-plane directions of every pair of points of
/// one region (and their normals) and of every point of A's region to every point of B's
/// (covering the hull edges the certificate check uses, and points against points); ≤ 0 when
/// no axis separates them. No allocation (the regions are index filters over the vertices).
fn region_separation(c: DVec3, wa: &[DVec3], hi_a: f64, wb: &[DVec3], lo_b: f64, tol: f64) -> f64 {
    let in_a = |p: &DVec3| c.dot(*p) >= hi_a - tol;
    let in_b = |p: &DVec3| c.dot(*p) <= lo_b + tol;
    let gap_along = |d: DVec3| -> f64 {
        let d = d - c * c.dot(d);
        let Some(d) = d.try_normalize() else {
            return f64::NEG_INFINITY;
        };
        let (mut lo_a, mut up_a) = (f64::INFINITY, f64::NEG_INFINITY);
        for p in wa.iter().filter(|p| in_a(p)) {
            let x = d.dot(*p);
            (lo_a, up_a) = (lo_a.min(x), up_a.max(x));
        }
        let (mut lo_b, mut up_b) = (f64::INFINITY, f64::NEG_INFINITY);
        for p in wb.iter().filter(|p| in_b(p)) {
            let x = d.dot(*p);
            (lo_b, up_b) = (lo_b.min(x), up_b.max(x));
        }
        (lo_b - up_a).max(lo_a - up_b)
    };
    let mut sep = f64::NEG_INFINITY;
    for (w, of_a) in [(wa, true), (wb, false)] {
        let inside = |p: &DVec3| if of_a { in_a(p) } else { in_b(p) };
        for (i, p) in w.iter().enumerate().filter(|(_, p)| inside(p)) {
            for q in w[i + 1..].iter().filter(|q| inside(q)) {
                let d = *q - *p;
                sep = sep.max(gap_along(d)).max(gap_along(c.cross(d)));
            }
        }
    }
    for p in wa.iter().filter(|p| in_a(p)) {
        for q in wb.iter().filter(|q| in_b(q)) {
            sep = sep.max(gap_along(*q - *p));
        }
    }
    sep
}
