//! The certificate primitives the checks share: the exact sign of a plane evaluation, the
//! world vertex lists, plane-versus-vertex-set bounds, point-in-shape and point-on-feature
//! distances, the overlap witnesses and the in-plane touch test.

use super::{verify_tolerance, VerifyError};
use crate::contract::{Feature, FeaturePair, MinkowskiSimplex, OverlapWitness, Penetration};
use crate::core::geometry::{closest_on_segment, closest_on_triangle};
use crate::core::math::{DVec3, Plane, Pose};
use crate::core::predicates::{orient3d, Orientation};
use crate::shape::polyhedron::ConvexPolyhedron;

// ---------------------------------------------------------------------------------------------
// Exact sign of a plane evaluation.

use crate::core::geometry::{two_prod as two_product, two_sum};

/// Exact sign of a sum of floats (Shewchuk's grow-expansion; exact barring overflow).
pub(super) fn exact_sum_sign(terms: &[f64]) -> f64 {
    let mut e: [f64; 8] = [0.0; 8];
    let mut len = 0usize;
    for &t in terms.iter().take(8) {
        let mut q = t;
        let mut k = 0usize;
        for i in 0..len {
            let (s, err) = two_sum(q, e[i]);
            q = s;
            if err != 0.0 {
                e[k] = err;
                k += 1;
            }
        }
        if q != 0.0 && k < 8 {
            e[k] = q;
            k += 1;
        }
        len = k;
    }
    // The last (largest-magnitude) component carries the sign of a non-overlapping expansion.
    let mut sign = 0.0;
    for &c in e.iter().take(len) {
        if c != 0.0 {
            sign = c.signum();
        }
    }
    sign
}

/// Exact sign of `normal·p − offset` for floating-point inputs (−1, 0 or +1); NaN if any
/// input is not finite.
pub fn exact_plane_sign(plane: &Plane, p: DVec3) -> f64 {
    if !(plane.normal.is_finite() && plane.offset.is_finite() && p.is_finite()) {
        return f64::NAN;
    }
    let (x, xe) = two_product(plane.normal.x, p.x);
    let (y, ye) = two_product(plane.normal.y, p.y);
    let (z, ze) = two_product(plane.normal.z, p.z);
    exact_sum_sign(&[xe, ye, ze, -plane.offset, x, y, z])
}

// ---------------------------------------------------------------------------------------------
// Helpers.

pub(super) struct World {
    pub(super) a: Vec<DVec3>,
    pub(super) b: Vec<DVec3>,
    pub(super) tol: f64,
}

pub(super) fn world(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose) -> World {
    World {
        a: a.vertices().iter().map(|&v| pa.transform_point(v)).collect(),
        b: b.vertices().iter().map(|&v| pb.transform_point(v)).collect(),
        tol: verify_tolerance(a, pa, b, pb),
    }
}

pub(super) fn check_plane(plane: &Plane) -> Result<(), VerifyError> {
    if !plane.normal.is_finite() || !plane.offset.is_finite() {
        return Err(VerifyError::Malformed(format!("plane {plane:?} is not finite")));
    }
    if (plane.normal.length() - 1.0).abs() > crate::core::tolerance::UNIT_NORMAL_SLACK {
        return Err(VerifyError::Malformed(format!(
            "plane normal {:?} is not a unit vector (length {})",
            plane.normal,
            plane.normal.length()
        )));
    }
    Ok(())
}

pub(super) fn check_point(p: DVec3, what: &str) -> Result<(), VerifyError> {
    if p.is_finite() {
        Ok(())
    } else {
        Err(VerifyError::Malformed(format!("{what} {p:?} is not finite")))
    }
}

/// Checks that `side · (normal·v − offset) ≤ tol` for every vertex (`side` = +1: the set lies
/// below the plane; −1: above). Exact first, then within the tolerance.
pub(super) fn plane_bounds(
    plane: &Plane,
    verts: &[DVec3],
    side: f64,
    tol: f64,
    shape: char,
) -> Result<(), VerifyError> {
    for (i, &v) in verts.iter().enumerate() {
        if exact_plane_sign(plane, v) * side <= 0.0 {
            continue;
        }
        let d = side * plane.signed_distance(v);
        if !(d <= tol) {
            return Err(VerifyError::NotSeparating(format!(
                "vertex {i} of {shape} lies {d:e} on the wrong side of the plane (tolerance {tol:e})"
            )));
        }
    }
    Ok(())
}

pub(super) fn weakly_separates(plane: &Plane, w: &World) -> Result<(), VerifyError> {
    plane_bounds(plane, &w.a, 1.0, w.tol, 'A')?;
    plane_bounds(plane, &w.b, -1.0, w.tol, 'B')
}

/// The largest `n·a` over A's world vertices and the smallest `n·b` over B's: the support
/// values along `n` of the two cores (a rounded shape adds its radius outside).
pub(super) fn support_extremes(n: DVec3, w: &World) -> (f64, f64) {
    let max_a = w.a.iter().map(|v| n.dot(*v)).fold(f64::NEG_INFINITY, f64::max);
    let min_b = w.b.iter().map(|v| n.dot(*v)).fold(f64::INFINITY, f64::min);
    (max_a, min_b)
}

/// A `Separated` answer's numbers: the distance is finite and ≥ 0, the witness points finite.
pub(super) fn check_separated_numbers(distance: f64, point_a: DVec3, point_b: DVec3) -> Result<(), VerifyError> {
    if !distance.is_finite() || distance < 0.0 {
        return Err(VerifyError::Malformed(format!(
            "distance {distance} is not a finite non-negative number"
        )));
    }
    check_point(point_a, "closest point on A")?;
    check_point(point_b, "closest point on B")
}

/// The rest of a `Separated` answer for cores dilated by `ra` and `rb` (0 for polytopes), once
/// its points are known to lie on the shapes: the witness points are `distance` apart (within
/// the tolerance), and no pair of points of the shapes is closer.
///
/// First the planes through the witness points normal to the closest-point vector (exact
/// sign tests): A, grown by `ra`, lies below the one through `point_a`, B grown by `rb` above
/// the one through `point_b`. The direction of a short closest-point vector is
/// ill-conditioned (its error is about tol / distance, times the shapes' extent on the
/// plane), so failing that, for rounded shapes the direction between the cores' closest
/// points (each witness point projected on its core feature: about `distance + ra + rb`
/// apart, well conditioned), then the normals of the features at the closest points — exact
/// — each give the lower bound `min_B n·b − max_A n·a − ra − rb` on the distance (sound for
/// any unit `n`).
#[allow(clippy::too_many_arguments)]
pub(super) fn check_minimal(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    w: &World,
    (point_a, point_b): (DVec3, DVec3),
    features: &FeaturePair,
    distance: f64,
) -> Result<(), VerifyError> {
    let (ra, rb) = (a.radius(), b.radius());
    let gap = point_b - point_a;
    let len = gap.length();
    if (len - distance).abs() > w.tol {
        return Err(VerifyError::DistanceMismatch(format!(
            "reported {distance:e}, but the witness points are {len:e} apart (tolerance {:e})",
            w.tol
        )));
    }
    let mut last = VerifyError::DistanceMismatch(
        "the distance is zero and no supporting plane proves the shapes do not overlap".into(),
    );
    if len > 0.0 {
        let n = gap / len;
        let plane_a = Plane {
            normal: n,
            offset: n.dot(point_a) - ra,
        };
        let plane_b = Plane {
            normal: n,
            offset: n.dot(point_b) + rb,
        };
        match plane_bounds(&plane_a, &w.a, 1.0, w.tol, 'A').and_then(|_| plane_bounds(&plane_b, &w.b, -1.0, w.tol, 'B'))
        {
            Ok(()) => return Ok(()),
            Err(e) => last = e,
        }
    }
    let mut best = f64::NEG_INFINITY;
    // Rounded shapes: the cores' closest points — each rounded point projected onto its
    // reported core feature — are about `distance + ra + rb` apart, so their direction is
    // well conditioned even where the rounded points nearly coincide (two spheres touching);
    // the bound below is stationary in the direction at the true one, so an error e in the
    // core points moves it by about extent · (e / (ra + rb))² — second order.
    if ra + rb > 0.0 {
        if let (Some(ca), Some(cb)) = (
            feature_closest(a, pa, features.a, point_a),
            feature_closest(b, pb, features.b, point_b),
        ) {
            let n = (cb - ca).normalize_or_zero();
            if n != DVec3::ZERO && n.is_finite() {
                let (max_a, min_b) = support_extremes(n, w);
                let bound = min_b - max_a - ra - rb;
                if bound >= distance - w.tol {
                    return Ok(());
                }
                best = best.max(bound);
            }
        }
    }
    for n in local_normals(a, pa, b, pb, point_a, point_b, features, w.tol) {
        let (max_a, min_b) = support_extremes(n, w);
        let bound = min_b - max_a - ra - rb;
        best = best.max(bound);
        if bound >= distance - w.tol {
            return Ok(());
        }
    }
    if best > f64::NEG_INFINITY {
        last = VerifyError::NotSeparating(format!(
            "the best lower bound from the features' normals is {best:e}, below the reported {distance:e} (tolerance {:e})",
            w.tol
        ));
    }
    Err(match last {
        VerifyError::NotSeparating(m) => VerifyError::DistanceMismatch(format!("not the minimum distance: {m}")),
        e => e,
    })
}

/// A penetration's numbers: a finite depth ≥ 0, a unit normal, finite points, and
/// translating B by `depth · normal` makes the shapes (cores grown by `ra`, `rb`) touch:
/// `min_B n·b − rb + depth = max_A n·a + ra` within the tolerance. Where its points lie is
/// the caller's check (on a polytope or on a rounded shape).
pub(super) fn check_penetration_depth(p: &Penetration, w: &World, ra: f64, rb: f64) -> Result<(), VerifyError> {
    if !p.depth.is_finite() || p.depth < 0.0 {
        return Err(VerifyError::Malformed(format!(
            "penetration depth {} is not finite and ≥ 0",
            p.depth
        )));
    }
    check_plane(&Plane {
        normal: p.normal,
        offset: 0.0,
    })?;
    check_point(p.point_a, "penetration point on A")?;
    check_point(p.point_b, "penetration point on B")?;
    let (max_a, min_b) = support_extremes(p.normal, w);
    let gap = (min_b - rb) + p.depth - (max_a + ra);
    if gap.abs() > w.tol {
        return Err(VerifyError::Penetration(format!(
            "translating B by depth·normal leaves a signed gap of {gap:e} along the normal, not 0 (tolerance {:e})",
            w.tol
        )));
    }
    Ok(())
}

/// Largest excess of a world point over the world face planes of a shape (≤ 0 inside). For a
/// point or segment: the point's distance to it; for a polygon: the larger of its distance
/// to the polygon's plane and its excess over the in-plane side planes of face 0's edges
/// (the face reported is the one whose plane is farther).
pub(super) fn excess(shape: &ConvexPolyhedron, pose: &Pose, p: DVec3) -> (f64, u32) {
    let q = pose.inverse_transform_point(p);
    match shape.dimension() {
        0 => return ((shape.vertex(0) - q).length(), 0),
        1 => {
            return (
                (closest_on_segment(q, shape.vertex(0), shape.vertex(1)).0 - q).length(),
                0,
            )
        }
        2 => {
            let pl = shape.face_plane(0);
            let off = pl.signed_distance(q);
            let mut worst = (off.abs(), if off >= 0.0 { 0 } else { 1 });
            let fv = shape.face_vertices(0);
            for k in 0..fv.len() {
                let (s, t) = (shape.vertex(fv[k]), shape.vertex(fv[(k + 1) % fv.len()]));
                let u = (t - s).cross(pl.normal).normalize_or_zero();
                worst.0 = worst.0.max(u.dot(q - s));
            }
            return worst;
        }
        _ => {}
    }
    let mut worst = (f64::NEG_INFINITY, 0u32);
    for f in 0..shape.faces().len() as u32 {
        let d = shape.face_plane(f).signed_distance(q);
        if d > worst.0 {
            worst = (d, f);
        }
    }
    worst
}

pub(super) fn inside(shape: &ConvexPolyhedron, pose: &Pose, p: DVec3, tol: f64, name: char) -> Result<(), VerifyError> {
    let (d, f) = excess(shape, pose, p);
    if d <= tol {
        Ok(())
    } else {
        Err(VerifyError::PointOutside {
            shape: name,
            message: format!("point {p:?} lies {d:e} outside face {f} (tolerance {tol:e})"),
        })
    }
}

/// Distance from a world point to a feature of a shape (world frame).
pub(super) fn feature_distance(
    shape: &ConvexPolyhedron,
    pose: &Pose,
    feature: Feature,
    p: DVec3,
) -> Result<f64, VerifyError> {
    let (nv, ne, nf) = shape.counts();
    let q = pose.inverse_transform_point(p);
    match feature {
        Feature::Vertex(v) if (v as usize) < nv => Ok((shape.vertex(v) - q).length()),
        Feature::Edge(e) if (e as usize) < ne => {
            let [t, h] = shape.edge(e).vertices;
            Ok((closest_on_segment(q, shape.vertex(t), shape.vertex(h)).0 - q).length())
        }
        Feature::Face(f) if (f as usize) < nf => {
            // Distance to the face polygon: to its plane if inside every edge's side plane,
            // else to the nearest boundary edge.
            let pl = shape.face_plane(f);
            let fv = shape.face_vertices(f);
            let mut inside_poly = true;
            let mut best = f64::INFINITY;
            for k in 0..fv.len() {
                let s = shape.vertex(fv[k]);
                let t = shape.vertex(fv[(k + 1) % fv.len()]);
                if (t - s).cross(q - s).dot(pl.normal) < 0.0 {
                    inside_poly = false;
                }
                best = best.min((closest_on_segment(q, s, t).0 - q).length());
            }
            Ok(if inside_poly { pl.signed_distance(q).abs() } else { best })
        }
        other => Err(VerifyError::Malformed(format!("feature {other:?} does not exist"))),
    }
}

/// The point of a feature (world frame) nearest a world point; `None` for a feature the
/// shape does not have.
pub(super) fn feature_closest(shape: &ConvexPolyhedron, pose: &Pose, feature: Feature, p: DVec3) -> Option<DVec3> {
    let (nv, ne, nf) = shape.counts();
    let q = pose.inverse_transform_point(p);
    let local = match feature {
        Feature::Vertex(v) if (v as usize) < nv => shape.vertex(v),
        Feature::Edge(e) if (e as usize) < ne => {
            let [t, h] = shape.edge(e).vertices;
            closest_on_segment(q, shape.vertex(t), shape.vertex(h)).0
        }
        Feature::Face(f) if (f as usize) < nf => {
            // The plane's foot if it lies inside every edge's side plane, else the nearest
            // point of the boundary (as in `feature_distance`).
            let pl = shape.face_plane(f);
            let fv = shape.face_vertices(f);
            let mut inside_poly = true;
            let mut best = (f64::INFINITY, q);
            for k in 0..fv.len() {
                let s = shape.vertex(fv[k]);
                let t = shape.vertex(fv[(k + 1) % fv.len()]);
                if (t - s).cross(q - s).dot(pl.normal) < 0.0 {
                    inside_poly = false;
                }
                let c = closest_on_segment(q, s, t).0;
                let d = (c - q).length();
                if d < best.0 {
                    best = (d, c);
                }
            }
            if inside_poly {
                q - pl.normal * pl.signed_distance(q)
            } else {
                best.1
            }
        }
        _ => return None,
    };
    Some(pose.transform_point(local))
}

pub(super) fn on_feature(
    shape: &ConvexPolyhedron,
    pose: &Pose,
    feature: Feature,
    p: DVec3,
    tol: f64,
    name: char,
) -> Result<(), VerifyError> {
    let d = feature_distance(shape, pose, feature, p)?;
    if d <= tol {
        Ok(())
    } else {
        Err(VerifyError::PointOutside {
            shape: name,
            message: format!("point {p:?} lies {d:e} from its reported feature {feature:?} (tolerance {tol:e})"),
        })
    }
}

pub(super) fn check_witness(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    w: &World,
    witness: &OverlapWitness,
) -> Result<(), VerifyError> {
    match *witness {
        OverlapWitness::CommonPoint(p) => {
            check_point(p, "common point")?;
            inside(a, pa, p, w.tol, 'A')?;
            inside(b, pb, p, w.tol, 'B')
        }
        OverlapWitness::Features { features, point } => {
            check_point(point, "common point")?;
            inside(a, pa, point, w.tol, 'A')?;
            inside(b, pb, point, w.tol, 'B')?;
            // The point must lie on at least one of the features: an edge piercing a face
            // carries it on both, a vertex inside the other shape (V-Clip's local-minimum
            // witness, paired with the face it lies beneath) only on the vertex. The common
            // point is the certificate; ids of both features must exist.
            let on_a = on_feature(a, pa, features.a, point, w.tol, 'A');
            let on_b = on_feature(b, pb, features.b, point, w.tol, 'B');
            match (on_a, on_b) {
                (Err(e @ VerifyError::Malformed(_)), _) | (_, Err(e @ VerifyError::Malformed(_))) => Err(e),
                (Ok(()), _) | (_, Ok(())) => Ok(()),
                (Err(e), Err(_)) => Err(e),
            }
        }
        OverlapWitness::Simplex(s) => check_simplex(&s, w),
    }
}

pub(super) fn check_simplex(s: &MinkowskiSimplex, w: &World) -> Result<(), VerifyError> {
    let n = s.len as usize;
    if !(1..=4).contains(&n) {
        return Err(VerifyError::Malformed(format!("simplex of {n} points")));
    }
    let mut pts = [DVec3::ZERO; 4];
    for (k, &(ia, ib)) in s.pairs.iter().take(n).enumerate() {
        let (Some(&va), Some(&vb)) = (w.a.get(ia as usize), w.b.get(ib as usize)) else {
            return Err(VerifyError::Malformed(format!(
                "simplex pair ({ia}, {ib}) refers to a vertex that does not exist"
            )));
        };
        pts[k] = va - vb;
    }
    // The exact orientation test multiplies three coordinates, the distances below four: at
    // very large or very small scales (beyond 2^±120) those products overflow or underflow
    // (every sign would read "on", every triangle degenerate). The checks run on the points
    // scaled by a power of two `k` (exact), and the distance is compared with `k · tol`.
    let m = pts.iter().fold(0.0f64, |m, p| m.max(p.abs().max_element()));
    let k = crate::core::math::pow2_normaliser(m).unwrap_or(1.0);
    let pts = pts.map(|p| p * k);
    let o = DVec3::ZERO;
    if n == 4 {
        let full = orient3d(pts[0], pts[1], pts[2], pts[3]);
        if full != Orientation::On {
            // Exact: the origin is inside (or on) the tetrahedron iff replacing any vertex by
            // the origin never flips the orientation.
            let mut ok = true;
            for i in 0..4 {
                let mut q = pts;
                q[i] = o;
                let s = orient3d(q[0], q[1], q[2], q[3]);
                if s != full && s != Orientation::On {
                    ok = false;
                }
            }
            if ok {
                return Ok(());
            }
        }
    }
    // Contact / degenerate cases: the distance of the origin to the simplex's hull.
    let d = match n {
        1 => pts[0].length(),
        2 => closest_on_segment(o, pts[0], pts[1]).0.length(),
        3 => closest_on_triangle(o, pts[0], pts[1], pts[2]).length(),
        _ => {
            let faces = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]];
            faces
                .iter()
                .map(|f| closest_on_triangle(o, pts[f[0]], pts[f[1]], pts[f[2]]).length())
                .fold(f64::INFINITY, f64::min)
        }
    };
    if d <= w.tol * k {
        Ok(())
    } else {
        Err(VerifyError::NoOverlap(format!(
            "the origin lies {:e} outside the hull of the {n} Minkowski points (tolerance {:e})",
            d / k,
            w.tol
        )))
    }
}

// ---------------------------------------------------------------------------------------------
// 2-D separating-axis test in a plane.

/// Separation of the projections of two small point sets onto the plane with normal `n`
/// (> 0: apart by that much along some axis of the plane; ≤ 0: overlapping up to that much).
/// Candidate axes: the normals and directions of the 2-D hull edges of both sets, and the
/// difference of their centroids (covers the point/segment cases).
pub(super) fn planar_separation(n: DVec3, pa: &[DVec3], pb: &[DVec3]) -> f64 {
    let u = n.any_orthonormal_vector();
    let v = n.cross(u);
    let ha = hull2d(pa.iter().map(|p| (p.dot(u), p.dot(v))).collect());
    let hb = hull2d(pb.iter().map(|p| (p.dot(u), p.dot(v))).collect());
    let centroid = |h: &[(f64, f64)]| {
        let k = h.len().max(1) as f64;
        h.iter().fold((0.0, 0.0), |s, p| (s.0 + p.0 / k, s.1 + p.1 / k))
    };
    let (ca, cb) = (centroid(&ha), centroid(&hb));
    let mut axes: Vec<(f64, f64)> = vec![(cb.0 - ca.0, cb.1 - ca.1)];
    for h in [&ha, &hb] {
        for k in 0..h.len() {
            let p = h[k];
            let q = h[(k + 1) % h.len()];
            let d = (q.0 - p.0, q.1 - p.1);
            axes.push(d);
            axes.push((-d.1, d.0));
        }
    }
    let mut best = f64::NEG_INFINITY;
    for (x, y) in axes {
        let l = (x * x + y * y).sqrt();
        if !(l > 0.0) || !l.is_finite() {
            continue;
        }
        let (x, y) = (x / l, y / l);
        let range = |h: &[(f64, f64)]| {
            h.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |r, p| {
                let s = p.0 * x + p.1 * y;
                (r.0.min(s), r.1.max(s))
            })
        };
        let (ra, rb) = (range(&ha), range(&hb));
        best = best.max(rb.0 - ra.1).max(ra.0 - rb.1);
    }
    if best == f64::NEG_INFINITY {
        // Both projections are single coincident points.
        0.0
    } else {
        best
    }
}

/// The Euclidean distance between the projections of two point sets' hulls onto the plane
/// with normal `n` when they are apart ([`planar_separation`] > 0), else that (non-positive)
/// separation. The separating-axis value is only a lower bound of the distance — two
/// segments whose nearest points are end points are farther apart than along any of the
/// candidate axes — so a rounded `Never` (apart when the distance exceeds the radii) needs
/// the distance itself: the least point–segment distance between one hull's vertices and the
/// other's edges (exact for disjoint convex polygons, segments and points).
pub(super) fn planar_distance(n: DVec3, pa: &[DVec3], pb: &[DVec3]) -> f64 {
    let sep = planar_separation(n, pa, pb);
    if !(sep > 0.0) {
        return sep;
    }
    let u = n.any_orthonormal_vector();
    let v = n.cross(u);
    let ha = hull2d(pa.iter().map(|p| (p.dot(u), p.dot(v))).collect());
    let hb = hull2d(pb.iter().map(|p| (p.dot(u), p.dot(v))).collect());
    let to_segment = |p: (f64, f64), a: (f64, f64), b: (f64, f64)| {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let l2 = dx * dx + dy * dy;
        let t = if l2 > 0.0 {
            (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / l2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let (ex, ey) = (p.0 - a.0 - t * dx, p.1 - a.1 - t * dy);
        (ex * ex + ey * ey).sqrt()
    };
    let mut best = f64::INFINITY;
    for (h, g) in [(&ha, &hb), (&hb, &ha)] {
        for &p in h.iter() {
            match g.len() {
                0 => {}
                1 => best = best.min(to_segment(p, g[0], g[0])),
                m => {
                    for k in 0..m {
                        best = best.min(to_segment(p, g[k], g[(k + 1) % m]));
                    }
                }
            }
        }
    }
    // Never below the separating-axis bound (rounding in the two computations).
    if best.is_finite() {
        best.max(sep)
    } else {
        sep
    }
}

/// 2-D convex hull (Andrew's monotone chain), counter-clockwise, collinear points dropped.
pub(super) fn hull2d(mut p: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    p.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    p.dedup();
    if p.len() < 3 {
        return p;
    }
    let cross = |o: (f64, f64), a: (f64, f64), b: (f64, f64)| (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0);
    let mut h: Vec<(f64, f64)> = Vec::with_capacity(2 * p.len());
    for pass in 0..2 {
        let start = h.len();
        let iter: Box<dyn Iterator<Item = &(f64, f64)>> = if pass == 0 {
            Box::new(p.iter())
        } else {
            Box::new(p.iter().rev())
        };
        for &q in iter {
            while h.len() >= start + 2 && cross(h[h.len() - 2], h[h.len() - 1], q) <= 0.0 {
                h.pop();
            }
            h.push(q);
        }
        h.pop();
    }
    h
}

/// The shapes A and `B + shift` touch at the supporting plane `plane` (which must already be
/// known to weakly separate them): their contact sets, projected into the plane, meet.
pub(super) fn touch_in_plane(
    plane: &Plane,
    wa: &[DVec3],
    wb: &[DVec3],
    shift: DVec3,
    tol: f64,
) -> Result<(), VerifyError> {
    let max_a = wa
        .iter()
        .map(|&p| plane.signed_distance(p))
        .fold(f64::NEG_INFINITY, f64::max);
    let min_b = wb
        .iter()
        .map(|&p| plane.signed_distance(p + shift))
        .fold(f64::INFINITY, f64::min);
    if max_a < -tol || min_b > tol {
        return Err(VerifyError::NotTouching(format!(
            "a gap remains across the contact plane: A reaches {max_a:e} below it, B {min_b:e} above it (tolerance {tol:e})"
        )));
    }
    let ca: Vec<DVec3> = wa
        .iter()
        .copied()
        .filter(|&p| plane.signed_distance(p) >= max_a - tol)
        .collect();
    let cb: Vec<DVec3> = wb
        .iter()
        .map(|&p| p + shift)
        .filter(|&p| plane.signed_distance(p) <= min_b + tol)
        .collect();
    let sep = planar_separation(plane.normal, &ca, &cb);
    if sep <= tol {
        Ok(())
    } else {
        Err(VerifyError::NotTouching(format!(
            "both shapes reach the contact plane, but their contact regions are {sep:e} apart (tolerance {tol:e})"
        )))
    }
}

// ---------------------------------------------------------------------------------------------
// Minimality of a distance: the candidate separating normals.

/// Candidate normals (world frame, pointing from A to B) proving minimality: the normals of
/// the reported features and of every face through the closest points, and the cross products
/// of the edges through them (at most [`MAX_LOCAL_EDGES`] per shape).
#[allow(clippy::too_many_arguments)]
pub(super) fn local_normals(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    point_a: DVec3,
    point_b: DVec3,
    f: &FeaturePair,
    tol: f64,
) -> Vec<DVec3> {
    let mut out = Vec::new();
    let (qa, qb) = (pa.inverse_transform_point(point_a), pb.inverse_transform_point(point_b));
    let gap = point_b - point_a;
    for fi in 0..a.faces().len() as u32 {
        if matches!(f.a, Feature::Face(x) if x == fi) || a.face_plane(fi).signed_distance(qa).abs() <= tol {
            out.push(pa.transform_vector(a.face(fi).normal));
        }
    }
    for fi in 0..b.faces().len() as u32 {
        if matches!(f.b, Feature::Face(x) if x == fi) || b.face_plane(fi).signed_distance(qb).abs() <= tol {
            out.push(-pb.transform_vector(b.face(fi).normal));
        }
    }
    // A segment's own direction: two segments (or a segment and a point) on one line touch
    // end to end, where only the line's direction separates them.
    for (s, pose) in [(a, pa), (b, pb)] {
        if s.dimension() == 1 {
            let e = pose.transform_vector(s.vertex(1) - s.vertex(0)).normalize_or_zero();
            if e != DVec3::ZERO {
                out.push(e);
                out.push(-e);
            }
        }
    }
    let near_edges = |s: &ConvexPolyhedron, pose: &Pose, q: DVec3, own: Feature| -> Vec<DVec3> {
        let mut v = Vec::new();
        for (ei, e) in s.edges().iter().enumerate() {
            let [t, h] = e.vertices;
            let d = (closest_on_segment(q, s.vertex(t), s.vertex(h)).0 - q).length();
            if own == Feature::Edge(ei as u32) || d <= tol {
                v.push(pose.transform_vector(s.vertex(h) - s.vertex(t)));
                if v.len() >= MAX_LOCAL_EDGES {
                    break;
                }
            }
        }
        v
    };
    let ea = near_edges(a, pa, qa, f.a);
    let eb = near_edges(b, pb, qb, f.b);
    for da in &ea {
        for db in &eb {
            let c = da.cross(*db);
            let l = c.length();
            if l > 0.0 && l.is_finite() {
                // Any unit vector's bound is sound, so both orientations are tried: the sign
                // of a near-zero closest-point vector is rounding noise.
                let n = c / l;
                let n = if n.dot(gap) < 0.0 { -n } else { n };
                out.push(n);
                out.push(-n);
            }
        }
    }
    out
}

/// Bound on the edges through a closest point used by `local_normals` (a vertex of a
/// polyhedron has at most a few dozen edges in practice; the bound keeps the check cheap).
pub const MAX_LOCAL_EDGES: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_sign_sees_below_rounding() {
        let pl = Plane {
            normal: DVec3::new(0.1, 0.2, 0.3),
            offset: 0.0,
        };
        // 0.1·3 + 0.2·(−1.5) in floating point rounds to exactly 0, but not exactly.
        let p = DVec3::new(3.0, -1.5, 0.0);
        let exact = exact_plane_sign(&pl, p);
        let naive = pl.signed_distance(p);
        assert!(exact != 0.0 || naive == 0.0);
        assert_eq!(exact_plane_sign(&pl, DVec3::ZERO), 0.0);
        assert_eq!(exact_plane_sign(&pl, DVec3::new(1.0, 1.0, 1.0)), 1.0);
        assert_eq!(exact_plane_sign(&pl, DVec3::new(-1.0, 1e-300, 0.0)), -1.0);
        assert_eq!(exact_sum_sign(&[1e300, 1.0, -1e300]), 1.0);
        assert_eq!(exact_sum_sign(&[1e-300, -1e300, 1e300]), 1.0);
    }

    #[test]
    fn hull2d_square() {
        let h = hull2d(vec![
            (0.0, 0.0),
            (1.0, 0.0),
            (1.0, 1.0),
            (0.0, 1.0),
            (0.5, 0.5),
            (0.5, 0.0),
        ]);
        assert_eq!(h.len(), 4);
    }
}
