//! Independent checks of query results: every answer carries a certificate, and these
//! routines check it against the two shapes and poses without running any algorithm.
//!
//! Paper: none of the five; this is issue 8 ("never wrong"). The certificates are the classical
//! ones of convex geometry (a separating plane proves disjointness — the separating-axis
//! theorem; a common point or a Minkowski simplex around the origin proves overlap; a plane
//! through the closest point of A, normal to the closest-point vector, that weakly separates
//! both vertex sets proves the distance is minimal — the dual of the minimum-norm problem).
//!
//! Outline:
//! - every check works in the WORLD frame on the world vertex positions
//!   (`pose.transform_point(v)`), and on the world face planes of each shape;
//! - plane-versus-vertex-set tests first evaluate the sign of `normal·v − offset` EXACTLY (the
//!   products are split with fused multiply-add into exact pairs and summed as a
//!   non-overlapping expansion), so a plane that separates the computed world vertices is
//!   certified with no tolerance at all; only when the exact test fails is the violation
//!   measured and compared with the tolerance;
//! - the Minkowski-simplex witness of a tetrahedron is checked with exact `orient3d`; lower
//!   dimensional simplices (the origin on a triangle or a segment: a contact case) are checked
//!   by the distance of the origin to their hull;
//! - "touching" (both after a directional translation and in projection for `Never`) is
//!   checked in the contact plane with a 2-D separating-axis test on the contact vertex sets.
//!
//! Tolerance: `tol = VERIFY_FACTOR × contact_tolerance(a, pa, b, pb)` = 1e-12 × the pair scale,
//! the accuracy every algorithm is held to against the oracle ([`AGREEMENT_REL`]). A check
//! tighter than the promised accuracy would reject correct answers.
//!
//! Invariants: the routines never panic (ids in certificates are range-checked) and allocate
//! only the world vertex lists (they are for tests and `--verify`, not for the hot loop).
//!
//! Termination: every loop is over vertices, faces or a fixed small candidate set.
//!
//! Limits: a penetration depth is checked to be a *separating* translation that makes the
//! shapes touch; that it is the *shortest* one needs the oracle (done in the tests).
//! `Directional::Never` is checked by projecting both shapes along the direction (2-D hulls).
//!
//! Independence: the checks here keep their own small float routines (the 2-D hull of the
//! projections, the point–plane sums) rather than the algorithms' exact kernels where an
//! independent computation is the point of a certificate check; the exact sums and
//! products they use come from `core::geometry`.
//!
//! Rounded shapes (a core dilated by a ball of radius `r`): the same certificates with the
//! radii put in — a plane bounds a rounded shape when it bounds the core shifted by `r`; a
//! point is on a rounded shape when its distance to the core (0 inside, else the least
//! distance to a face polygon) is at most `r`, and on its surface when the distance to its
//! reported feature is `r`; a penetration's gap along its normal counts both radii; a
//! directional contact is checked as the cores' contact with B moved back by `R` along the
//! plane's normal.
//!
//! ```
//! use polycd::verify::{verify, Answer};
//! use polycd::{shapes, DVec3, Intersection, Plane, Pose};
//!
//! let a = shapes::cuboid(1.0, 1.0, 1.0).unwrap();
//! let pose_b = Pose::from_translation(DVec3::new(3.0, 0.0, 0.0));
//! // A claimed separating plane x = 1.5: the certificate holds...
//! let good = Intersection::Disjoint { plane: Plane { normal: DVec3::X, offset: 1.5 }, iterations: 0 };
//! assert!(verify(&a, &Pose::IDENTITY, &a, &pose_b, &Answer::Intersection(good)).is_ok());
//! // ...and a plane through the middle of B is rejected.
//! let bad = Intersection::Disjoint { plane: Plane { normal: DVec3::X, offset: 3.0 }, iterations: 0 };
//! assert!(verify(&a, &Pose::IDENTITY, &a, &pose_b, &Answer::Intersection(bad)).is_err());
//! // With an algorithm: check whatever it answers.
//! # use polycd::{query, Algorithm, PairCache};
//! let mut cache = PairCache::default();
//! if let Ok(d) = query::distance(&a, &Pose::IDENTITY, &a, &pose_b, Algorithm::Auto, &mut cache) {
//!     assert!(verify(&a, &Pose::IDENTITY, &a, &pose_b, &Answer::Distance(d)).is_ok());
//! }
//! ```

use crate::contract::{
    contact_tolerance, Directional, Distance, Feature, FeaturePair, Intersection, MinkowskiSimplex, OverlapWitness,
    Penetration,
};
use crate::core::geometry::{closest_on_segment, closest_on_triangle};
use crate::core::math::{DVec3, Plane, Pose};
use crate::core::predicates::{orient3d, Orientation};
use crate::core::tolerance::{AGREEMENT_REL, CONTACT_REL};
use crate::shape::polyhedron::ConvexPolyhedron;
use thiserror::Error;

/// Multiple of the contact tolerance within which certificates are accepted:
/// `VERIFY_FACTOR × CONTACT_REL = AGREEMENT_REL` (1e-12 of the pair scale), the accuracy the
/// algorithms promise. Exact checks are tried first; the tolerance only admits rounding.
pub const VERIFY_FACTOR: f64 = AGREEMENT_REL / CONTACT_REL;

/// Why a certificate was rejected.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum VerifyError {
    /// The result is `NotConverged`: there is no answer to verify.
    #[error("the algorithm did not converge after {iterations} iterations: no certificate to check")]
    NotConverged {
        /// Iterations reported.
        iterations: u32,
    },
    /// The certificate is malformed (non-finite numbers, non-unit normal, bad ids…).
    #[error("malformed certificate: {0}")]
    Malformed(String),
    /// A plane claimed to (weakly) separate the shapes does not.
    #[error("plane does not separate the shapes: {0}")]
    NotSeparating(String),
    /// A witness point is not on (inside) the shape it should belong to.
    #[error("witness point is not on shape {shape}: {message}")]
    PointOutside {
        /// `'A'` or `'B'`.
        shape: char,
        /// Details.
        message: String,
    },
    /// A reported distance does not match its witness points.
    #[error("distance does not match its witness: {0}")]
    DistanceMismatch(String),
    /// The overlap certificate does not prove overlap.
    #[error("overlap witness does not hold: {0}")]
    NoOverlap(String),
    /// The shapes do not touch where the result says they do.
    #[error("the shapes do not touch: {0}")]
    NotTouching(String),
    /// A penetration (depth, normal) certificate fails.
    #[error("penetration certificate fails: {0}")]
    Penetration(String),
}

/// The tolerance the checks use for a pair (see the module header).
pub fn verify_tolerance(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose) -> f64 {
    VERIFY_FACTOR * contact_tolerance(a, pa, b, pb)
}

// ---------------------------------------------------------------------------------------------
// Exact sign of a plane evaluation.

use crate::core::geometry::{two_prod as two_product, two_sum};

/// Exact sign of a sum of floats (Shewchuk's grow-expansion; exact barring overflow).
fn exact_sum_sign(terms: &[f64]) -> f64 {
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

struct World {
    a: Vec<DVec3>,
    b: Vec<DVec3>,
    tol: f64,
}

fn world(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose) -> World {
    World {
        a: a.vertices().iter().map(|&v| pa.transform_point(v)).collect(),
        b: b.vertices().iter().map(|&v| pb.transform_point(v)).collect(),
        tol: verify_tolerance(a, pa, b, pb),
    }
}

fn check_plane(plane: &Plane) -> Result<(), VerifyError> {
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

fn check_point(p: DVec3, what: &str) -> Result<(), VerifyError> {
    if p.is_finite() {
        Ok(())
    } else {
        Err(VerifyError::Malformed(format!("{what} {p:?} is not finite")))
    }
}

/// Checks that `side · (normal·v − offset) ≤ tol` for every vertex (`side` = +1: the set lies
/// below the plane; −1: above). Exact first, then within the tolerance.
fn plane_bounds(plane: &Plane, verts: &[DVec3], side: f64, tol: f64, shape: char) -> Result<(), VerifyError> {
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

fn weakly_separates(plane: &Plane, w: &World) -> Result<(), VerifyError> {
    plane_bounds(plane, &w.a, 1.0, w.tol, 'A')?;
    plane_bounds(plane, &w.b, -1.0, w.tol, 'B')
}

/// Largest excess of a world point over the world face planes of a shape (≤ 0 inside). For a
/// point or segment: the point's distance to it; for a polygon: the larger of its distance
/// to the polygon's plane and its excess over the in-plane side planes of face 0's edges
/// (the face reported is the one whose plane is farther).
fn excess(shape: &ConvexPolyhedron, pose: &Pose, p: DVec3) -> (f64, u32) {
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

fn inside(shape: &ConvexPolyhedron, pose: &Pose, p: DVec3, tol: f64, name: char) -> Result<(), VerifyError> {
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
fn feature_distance(shape: &ConvexPolyhedron, pose: &Pose, feature: Feature, p: DVec3) -> Result<f64, VerifyError> {
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

fn on_feature(
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

fn check_witness(
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

fn check_simplex(s: &MinkowskiSimplex, w: &World) -> Result<(), VerifyError> {
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
fn planar_separation(n: DVec3, pa: &[DVec3], pb: &[DVec3]) -> f64 {
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

/// 2-D convex hull (Andrew's monotone chain), counter-clockwise, collinear points dropped.
fn hull2d(mut p: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
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
fn touch_in_plane(plane: &Plane, wa: &[DVec3], wb: &[DVec3], shift: DVec3, tol: f64) -> Result<(), VerifyError> {
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
// Public checks.

/// Checks an [`Intersection`] answer:
/// - `Disjoint` — the plane separates the world vertex sets (exact sign test; violations up to
///   the tolerance are admitted as rounding);
/// - `Touching` — the plane weakly separates, and the point is on both shapes and on the plane;
/// - `Overlapping` — the witness: a common point inside both, intersecting features sharing
///   the point (on at least one of them), or a Minkowski simplex whose hull contains the
///   origin;
/// - `NotConverged` — always an error.
pub fn verify_intersection(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    result: &Intersection,
) -> Result<(), VerifyError> {
    if rounded::is_rounded(a, b) {
        return rounded::intersection(a, pa, b, pb, result);
    }
    let w = world(a, pa, b, pb);
    match result {
        Intersection::Disjoint { plane, .. } => {
            check_plane(plane)?;
            weakly_separates(plane, &w)
        }
        Intersection::Touching { point, plane, .. } => {
            check_plane(plane)?;
            check_point(*point, "contact point")?;
            weakly_separates(plane, &w)?;
            inside(a, pa, *point, w.tol, 'A')?;
            inside(b, pb, *point, w.tol, 'B')?;
            let d = plane.signed_distance(*point).abs();
            if d > w.tol {
                return Err(VerifyError::NotTouching(format!(
                    "the contact point lies {d:e} off the supporting plane (tolerance {:e})",
                    w.tol
                )));
            }
            Ok(())
        }
        Intersection::Overlapping { witness, .. } => check_witness(a, pa, b, pb, &w, witness),
        Intersection::NotConverged { iterations } => Err(VerifyError::NotConverged {
            iterations: *iterations,
        }),
    }
}

/// Candidate normals (world frame, pointing from A to B) proving minimality: the normals of
/// the reported features and of every face through the closest points, and the cross products
/// of the edges through them (at most [`MAX_LOCAL_EDGES`] per shape).
#[allow(clippy::too_many_arguments)]
fn local_normals(
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

/// Checks a [`Distance`] answer:
/// - `Separated` — `point_a` is on A and `point_b` on B (inside every world face plane and on
///   the reported features), `|point_b − point_a| = distance`, and the plane through `point_a`
///   with normal `point_b − point_a` weakly separates A from B (this proves no pair of points
///   is closer); for a (near-)zero distance a supporting plane from the features is used;
/// - `Penetrating` — the overlap witness as in [`verify_intersection`], and, when a
///   penetration is given, that translating B by `depth · normal` makes the shapes touch
///   (`min_B n·b + depth = max_A n·a`, support functions evaluated over all vertices) and that
///   its points lie on their shapes;
/// - `NotConverged` — always an error.
pub fn verify_distance(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    result: &Distance,
) -> Result<(), VerifyError> {
    if rounded::is_rounded(a, b) {
        return rounded::distance(a, pa, b, pb, result);
    }
    let w = world(a, pa, b, pb);
    match result {
        Distance::Separated {
            distance,
            point_a,
            point_b,
            features,
            ..
        } => {
            if !distance.is_finite() || *distance < 0.0 {
                return Err(VerifyError::Malformed(format!(
                    "distance {distance} is not a finite non-negative number"
                )));
            }
            check_point(*point_a, "closest point on A")?;
            check_point(*point_b, "closest point on B")?;
            inside(a, pa, *point_a, w.tol, 'A')?;
            inside(b, pb, *point_b, w.tol, 'B')?;
            on_feature(a, pa, features.a, *point_a, w.tol, 'A')?;
            on_feature(b, pb, features.b, *point_b, w.tol, 'B')?;
            let gap = *point_b - *point_a;
            let len = gap.length();
            if (len - distance).abs() > w.tol {
                return Err(VerifyError::DistanceMismatch(format!(
                    "reported {distance:e}, but the witness points are {len:e} apart (tolerance {:e})",
                    w.tol
                )));
            }
            // Minimality. First the plane through point_a normal to the closest-point vector
            // (exact sign tests): it weakly separates A from B moved back by the gap.
            let mut last = VerifyError::DistanceMismatch(
                "the distance is zero and no supporting plane proves the shapes do not overlap".into(),
            );
            if len > 0.0 {
                let n = gap / len;
                let plane = Plane {
                    normal: n,
                    offset: n.dot(*point_a),
                };
                let plane_b = Plane {
                    normal: n,
                    offset: n.dot(*point_b),
                };
                match plane_bounds(&plane, &w.a, 1.0, w.tol, 'A')
                    .and_then(|_| plane_bounds(&plane_b, &w.b, -1.0, w.tol, 'B'))
                {
                    Ok(()) => return Ok(()),
                    Err(e) => last = e,
                }
            }
            // The direction of a short closest-point vector is ill-conditioned (its error is
            // about tol / distance, times the shapes' extent on the plane). The normals of
            // the features at the closest points are exact; each unit normal n gives the lower
            // bound min_B n·b − max_A n·a on the distance.
            let mut best = f64::NEG_INFINITY;
            for n in local_normals(a, pa, b, pb, *point_a, *point_b, features, w.tol) {
                let max_a = w.a.iter().map(|v| n.dot(*v)).fold(f64::NEG_INFINITY, f64::max);
                let min_b = w.b.iter().map(|v| n.dot(*v)).fold(f64::INFINITY, f64::min);
                best = best.max(min_b - max_a);
                if min_b - max_a >= distance - w.tol {
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
                VerifyError::NotSeparating(m) => {
                    VerifyError::DistanceMismatch(format!("not the minimum distance: {m}"))
                }
                e => e,
            })
        }
        Distance::Penetrating {
            witness, penetration, ..
        } => {
            check_witness(a, pa, b, pb, &w, witness)?;
            if let Some(p) = penetration {
                check_penetration(a, pa, b, pb, &w, p)?;
            }
            Ok(())
        }
        Distance::NotConverged { iterations } => Err(VerifyError::NotConverged {
            iterations: *iterations,
        }),
    }
}

fn check_penetration(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    w: &World,
    p: &Penetration,
) -> Result<(), VerifyError> {
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
    let n = p.normal;
    let max_a = w.a.iter().map(|v| n.dot(*v)).fold(f64::NEG_INFINITY, f64::max);
    let min_b = w.b.iter().map(|v| n.dot(*v)).fold(f64::INFINITY, f64::min);
    let gap = min_b + p.depth - max_a;
    if gap.abs() > w.tol {
        return Err(VerifyError::Penetration(format!(
            "translating B by depth·normal leaves a signed gap of {gap:e} along the normal, not 0 (tolerance {:e})",
            w.tol
        )));
    }
    inside(a, pa, p.point_a, w.tol, 'A')?;
    inside(b, pb, p.point_b, w.tol, 'B')
}

/// Checks a [`Directional`] answer for the unit direction `s` (world frame):
/// - `Contact { t, plane }` — with B translated by `t·s`, `plane` weakly separates the shapes
///   and they touch on it (their contact regions in the plane meet);
/// - `Never` — the projections of A and B along `s` are disjoint (up to the tolerance), so no
///   translation along the line brings them into contact;
/// - `NotConverged` — always an error.
pub fn verify_directional(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    result: &Directional,
) -> Result<(), VerifyError> {
    if !s.is_finite() || !(s.length() > 0.0) {
        return Err(VerifyError::Malformed(format!(
            "direction {s:?} is not a finite non-zero vector"
        )));
    }
    let s = s.normalize();
    if rounded::is_rounded(a, b) {
        return rounded::directional(a, pa, b, pb, s, result);
    }
    let w = world(a, pa, b, pb);
    match result {
        Directional::Contact { t, plane, .. } => {
            if !t.is_finite() {
                return Err(VerifyError::Malformed(format!("translation {t} is not finite")));
            }
            check_plane(plane)?;
            let shift = s * *t;
            let moved: Vec<DVec3> = w.b.iter().map(|&p| p + shift).collect();
            plane_bounds(plane, &w.a, 1.0, w.tol, 'A')?;
            plane_bounds(plane, &moved, -1.0, w.tol, 'B')?;
            touch_in_plane(plane, &w.a, &w.b, shift, w.tol)
        }
        Directional::Never { .. } => {
            let sep = planar_separation(s, &w.a, &w.b);
            if sep >= -w.tol {
                Ok(())
            } else {
                Err(VerifyError::NotTouching(format!(
                    "'never' is wrong: the projections along the direction overlap by {:e}, so some translation makes the shapes touch",
                    -sep
                )))
            }
        }
        Directional::NotConverged { iterations } => Err(VerifyError::NotConverged {
            iterations: *iterations,
        }),
    }
}

/// The checks for rounded pairs (see the module header).
mod rounded {
    use super::*;

    pub(super) fn is_rounded(a: &ConvexPolyhedron, b: &ConvexPolyhedron) -> bool {
        a.radius() > 0.0 || b.radius() > 0.0
    }

    fn shifted(p: &Plane, d: f64) -> Plane {
        Plane {
            normal: p.normal,
            offset: p.offset + d,
        }
    }

    /// Rounded A lies below `plane`, rounded B (its world vertices `wb`) above.
    fn separates(plane: &Plane, ra: f64, rb: f64, wa: &[DVec3], wb: &[DVec3], tol: f64) -> Result<(), VerifyError> {
        plane_bounds(&shifted(plane, -ra), wa, 1.0, tol, 'A')?;
        plane_bounds(&shifted(plane, rb), wb, -1.0, tol, 'B')
    }

    /// Distance from a world point to the core polytope (0 inside): the least distance to a
    /// feature (a solid's boundary is its faces; a core without volume — a point, a segment,
    /// a polygon — is its features, so vertices and edges are measured too).
    fn core_distance(shape: &ConvexPolyhedron, pose: &Pose, p: DVec3) -> Result<f64, VerifyError> {
        if shape.volume() > 0.0 && excess(shape, pose, p).0 <= 0.0 {
            return Ok(0.0);
        }
        let (nv, ne, nf) = shape.counts();
        let mut best = f64::INFINITY;
        for f in 0..nf as u32 {
            best = best.min(feature_distance(shape, pose, Feature::Face(f), p)?);
        }
        for e in 0..ne as u32 {
            best = best.min(feature_distance(shape, pose, Feature::Edge(e), p)?);
        }
        for v in 0..nv as u32 {
            best = best.min(feature_distance(shape, pose, Feature::Vertex(v), p)?);
        }
        Ok(best)
    }

    /// `p` lies in the rounded shape (within `tol`).
    fn in_rounded(shape: &ConvexPolyhedron, pose: &Pose, p: DVec3, tol: f64, name: char) -> Result<(), VerifyError> {
        check_point(p, "witness point")?;
        let d = core_distance(shape, pose, p)?;
        if d <= shape.radius() + tol {
            Ok(())
        } else {
            Err(VerifyError::PointOutside {
                shape: name,
                message: format!(
                    "point {p:?} lies {d:e} from the core, beyond the radius {} (tolerance {tol:e})",
                    shape.radius()
                ),
            })
        }
    }

    /// `p` lies on the rounded surface over `feature`: `r` from it (within `tol`).
    fn on_rounded_feature(
        shape: &ConvexPolyhedron,
        pose: &Pose,
        feature: Feature,
        p: DVec3,
        tol: f64,
        name: char,
    ) -> Result<(), VerifyError> {
        check_point(p, "closest point")?;
        let d = feature_distance(shape, pose, feature, p)?;
        if (d - shape.radius()).abs() <= tol {
            Ok(())
        } else {
            Err(VerifyError::PointOutside {
                shape: name,
                message: format!(
                    "point {p:?} lies {d:e} from its reported feature {feature:?}, not the radius {} (tolerance {tol:e})",
                    shape.radius()
                ),
            })
        }
    }

    fn witness(
        a: &ConvexPolyhedron,
        pa: &Pose,
        b: &ConvexPolyhedron,
        pb: &Pose,
        w: &World,
        witness: &OverlapWitness,
    ) -> Result<(), VerifyError> {
        match *witness {
            OverlapWitness::CommonPoint(p) => {
                in_rounded(a, pa, p, w.tol, 'A')?;
                in_rounded(b, pb, p, w.tol, 'B')
            }
            // The cores' certificate: cores that overlap make rounded shapes that overlap.
            ref other => check_witness(a, pa, b, pb, w, other),
        }
    }

    pub(super) fn intersection(
        a: &ConvexPolyhedron,
        pa: &Pose,
        b: &ConvexPolyhedron,
        pb: &Pose,
        result: &Intersection,
    ) -> Result<(), VerifyError> {
        let w = world(a, pa, b, pb);
        let (ra, rb) = (a.radius(), b.radius());
        match result {
            Intersection::Disjoint { plane, .. } => {
                check_plane(plane)?;
                separates(plane, ra, rb, &w.a, &w.b, w.tol)
            }
            Intersection::Touching { point, plane, .. } => {
                check_plane(plane)?;
                separates(plane, ra, rb, &w.a, &w.b, w.tol)?;
                in_rounded(a, pa, *point, w.tol, 'A')?;
                in_rounded(b, pb, *point, w.tol, 'B')
            }
            Intersection::Overlapping { witness: wt, .. } => witness(a, pa, b, pb, &w, wt),
            Intersection::NotConverged { iterations } => Err(VerifyError::NotConverged {
                iterations: *iterations,
            }),
        }
    }

    pub(super) fn distance(
        a: &ConvexPolyhedron,
        pa: &Pose,
        b: &ConvexPolyhedron,
        pb: &Pose,
        result: &Distance,
    ) -> Result<(), VerifyError> {
        let w = world(a, pa, b, pb);
        let (ra, rb) = (a.radius(), b.radius());
        match result {
            Distance::Separated {
                distance,
                point_a,
                point_b,
                features,
                ..
            } => {
                if !distance.is_finite() || *distance < 0.0 {
                    return Err(VerifyError::Malformed(format!(
                        "distance {distance} is not a finite non-negative number"
                    )));
                }
                on_rounded_feature(a, pa, features.a, *point_a, w.tol, 'A')?;
                on_rounded_feature(b, pb, features.b, *point_b, w.tol, 'B')?;
                let gap = *point_b - *point_a;
                let len = gap.length();
                if (len - distance).abs() > w.tol {
                    return Err(VerifyError::DistanceMismatch(format!(
                        "reported {distance:e}, but the witness points are {len:e} apart (tolerance {:e})",
                        w.tol
                    )));
                }
                // Minimality: the planes through the points normal to their difference bound
                // the rounded shapes; else the features' normals give lower bounds.
                if len > 0.0 {
                    let n = gap / len;
                    let plane_a = Plane {
                        normal: n,
                        offset: n.dot(*point_a) - ra,
                    };
                    let plane_b = Plane {
                        normal: n,
                        offset: n.dot(*point_b) + rb,
                    };
                    if plane_bounds(&plane_a, &w.a, 1.0, w.tol, 'A')
                        .and_then(|_| plane_bounds(&plane_b, &w.b, -1.0, w.tol, 'B'))
                        .is_ok()
                    {
                        return Ok(());
                    }
                }
                let mut best = f64::NEG_INFINITY;
                for n in local_normals(a, pa, b, pb, *point_a, *point_b, features, w.tol) {
                    let max_a = w.a.iter().map(|v| n.dot(*v)).fold(f64::NEG_INFINITY, f64::max);
                    let min_b = w.b.iter().map(|v| n.dot(*v)).fold(f64::INFINITY, f64::min);
                    best = best.max(min_b - max_a - ra - rb);
                }
                if best >= distance - w.tol {
                    Ok(())
                } else {
                    Err(VerifyError::DistanceMismatch(format!(
                        "not the minimum distance: the best lower bound is {best:e}, below the reported {distance:e} (tolerance {:e})",
                        w.tol
                    )))
                }
            }
            Distance::Penetrating {
                witness: wt,
                penetration,
                ..
            } => {
                witness(a, pa, b, pb, &w, wt)?;
                let Some(p) = penetration else { return Ok(()) };
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
                let n = p.normal;
                let max_a = w.a.iter().map(|v| n.dot(*v)).fold(f64::NEG_INFINITY, f64::max) + ra;
                let min_b = w.b.iter().map(|v| n.dot(*v)).fold(f64::INFINITY, f64::min) - rb;
                let gap = min_b + p.depth - max_a;
                if gap.abs() > w.tol {
                    return Err(VerifyError::Penetration(format!(
                        "translating B by depth·normal leaves a signed gap of {gap:e} along the normal, not 0 (tolerance {:e})",
                        w.tol
                    )));
                }
                in_rounded(a, pa, p.point_a, w.tol, 'A')?;
                in_rounded(b, pb, p.point_b, w.tol, 'B')
            }
            Distance::NotConverged { iterations } => Err(VerifyError::NotConverged {
                iterations: *iterations,
            }),
        }
    }

    pub(super) fn directional(
        a: &ConvexPolyhedron,
        pa: &Pose,
        b: &ConvexPolyhedron,
        pb: &Pose,
        s: DVec3,
        result: &Directional,
    ) -> Result<(), VerifyError> {
        let w = world(a, pa, b, pb);
        let (ra, rb) = (a.radius(), b.radius());
        match result {
            Directional::Contact { t, plane, .. } => {
                if !t.is_finite() {
                    return Err(VerifyError::Malformed(format!("translation {t} is not finite")));
                }
                check_plane(plane)?;
                let shift = s * *t;
                let moved: Vec<DVec3> = w.b.iter().map(|&p| p + shift).collect();
                separates(plane, ra, rb, &w.a, &moved, w.tol)?;
                // The rounded shapes touch on the plane where the cores, B moved back by
                // R along the normal, touch on the plane shifted by −r_A.
                let back = shift - plane.normal * (ra + rb);
                touch_in_plane(&shifted(plane, -ra), &w.a, &w.b, back, w.tol)
            }
            Directional::Never { .. } => {
                let sep = planar_separation(s, &w.a, &w.b) - ra - rb;
                if sep >= -w.tol {
                    Ok(())
                } else {
                    Err(VerifyError::NotTouching(format!(
                        "'never' is wrong: the rounded projections along the direction overlap by {:e}",
                        -sep
                    )))
                }
            }
            Directional::NotConverged { iterations } => Err(VerifyError::NotConverged {
                iterations: *iterations,
            }),
        }
    }
}

/// Any query answer, for the one-call [`verify`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Answer {
    /// An [`Intersection`].
    Intersection(Intersection),
    /// A [`Distance`].
    Distance(Distance),
    /// A [`Directional`] with the direction it answers.
    Directional {
        /// The direction (any non-zero length; normalised here).
        direction: DVec3,
        /// The answer.
        answer: Directional,
    },
}

/// Checks any answer (dispatches to [`verify_intersection`], [`verify_distance`] or
/// [`verify_directional`]).
pub fn verify(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    answer: &Answer,
) -> Result<(), VerifyError> {
    match answer {
        Answer::Intersection(r) => verify_intersection(a, pa, b, pb, r),
        Answer::Distance(r) => verify_distance(a, pa, b, pb, r),
        Answer::Directional { direction, answer } => verify_directional(a, pa, b, pb, *direction, answer),
    }
}

/// Checks a contact manifold ([`crate::query::contact_manifold`]) of A (at `pa`) and B (at
/// `pb`), without running any algorithm: a finite unit normal and at least one point; every
/// point finite, its `b − a` equal to `separation ·` normal, and each core point (the point
/// moved back inside by its shape's radius) on the feature its `features` name; the deepest
/// point's separation equal to the shapes' separation along the normal (their support
/// extents: B's least minus A's greatest, less both radii; within `MANIFOLD_FACE_REL` of the
/// pair scale, the face-contact test's own slack) and no point below it (so the points
/// realise the contact along the normal); more than two points
/// counter-clockwise around the normal. All within [`verify_tolerance`]. That the normal is
/// the best contact direction is not checked (it needs the signed distance: the tests compare
/// it with the oracle).
pub fn verify_manifold(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    m: &crate::contract::ContactManifold,
) -> Result<(), VerifyError> {
    let w = world(a, pa, b, pb);
    let n = m.normal;
    check_plane(&Plane { normal: n, offset: 0.0 })?;
    if m.points.is_empty() {
        return Err(VerifyError::Malformed("a manifold without points".into()));
    }
    let (ra, rb) = (a.radius(), b.radius());
    let top_a = w.a.iter().map(|v| n.dot(*v)).fold(f64::NEG_INFINITY, f64::max);
    let low_b = w.b.iter().map(|v| n.dot(*v)).fold(f64::INFINITY, f64::min);
    let along = low_b - top_a - ra - rb;
    let mut deepest = f64::INFINITY;
    for (k, p) in m.points.iter().enumerate() {
        check_point(p.a, "manifold point a")?;
        check_point(p.b, "manifold point b")?;
        if !p.separation.is_finite() {
            return Err(VerifyError::Malformed(format!(
                "point {k}: separation {}",
                p.separation
            )));
        }
        let gap = (p.b - p.a - n * p.separation).length();
        if !(gap <= w.tol) {
            return Err(VerifyError::DistanceMismatch(format!(
                "point {k}: b − a is {gap:e} off separation × normal (tolerance {:e})",
                w.tol
            )));
        }
        for (shape, pose, feature, q, r, name) in [
            (a, pa, p.features.a, p.a, ra, 'A'),
            (b, pb, p.features.b, p.b, -rb, 'B'),
        ] {
            let d = feature_distance(shape, pose, feature, q - n * r)?;
            if !(d <= w.tol) {
                return Err(VerifyError::PointOutside {
                    shape: name,
                    message: format!(
                        "point {k} lies {d:e} from its feature {feature:?} (tolerance {:e})",
                        w.tol
                    ),
                });
            }
        }
        if p.separation < along - w.tol {
            return Err(VerifyError::DistanceMismatch(format!(
                "point {k}: separation {} below the shapes' separation {along} along the normal (points cannot be deeper)",
                p.separation
            )));
        }
        deepest = deepest.min(p.separation);
    }
    // A face is a contact face when its separation is within MANIFOLD_FACE_REL of the signed
    // distance: the incident face's deepest vertex may then overhang the reference face's
    // border, the deepest clip point sitting up to that much above the shapes' separation.
    let face_slack = crate::core::tolerance::MANIFOLD_FACE_REL * crate::contract::pair_scale(a, pa, b, pb);
    if !(deepest - along <= w.tol + face_slack) {
        return Err(VerifyError::DistanceMismatch(format!(
            "the deepest point's separation {deepest} is not the shapes' separation {along} along the normal (scale {})", crate::contract::pair_scale(a, pa, b, pb)
        )));
    }
    let k = m.points.len();
    if k >= 3 {
        let scale = crate::contract::pair_scale(a, pa, b, pb);
        for i in 0..k {
            let (p, q, r) = (m.points[i].a, m.points[(i + 1) % k].a, m.points[(i + 2) % k].a);
            let turn = (q - p).cross(r - q).dot(n);
            if turn < -w.tol * scale {
                return Err(VerifyError::Malformed(format!(
                    "points not counter-clockwise around the normal at {i}"
                )));
            }
        }
    }
    Ok(())
}

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
