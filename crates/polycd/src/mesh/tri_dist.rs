//! Distance between two triangles: the nine edge–edge (segment–segment) pairs, the six
//! vertex–face pairs, and an exact crossing test (an edge of one through the other, by
//! `orient3d` signs) for triangles that intersect.
//!
//! Why these cases suffice: the distance of two disjoint triangles is attained at a pair of
//! closest points of which at least one is a vertex of its triangle, or both lie on edges
//! (the closest pair of two convex polygons has a point on the boundary of one of them; if
//! it is an interior point of an edge and the other point is interior to its triangle, the
//! edge is parallel to that triangle's plane and one of its end points is at the same
//! distance — either inside the face, a vertex–face case, or outside it, where an edge of the
//! other triangle is nearer). Two triangles that meet either share a point of two edges
//! (caught by the segment–segment distances, 0), have a vertex on the other's face (a
//! vertex–face case, 0), or an edge crossing the other's interior (the crossing test).

use crate::core::math::DVec3;
use crate::core::predicates::{orient3d, Orientation};

/// The feature of a triangle carrying a closest point.
// Not `#[non_exhaustive]`: a triangle has cells of dimension 0, 1 and 2 only (corner, edge,
// interior), so these three are all there can be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TriFeature {
    /// Corner `k` (0, 1, 2).
    Vertex(u8),
    /// Edge `k`, from corner `k` to corner `(k + 1) % 3`, at an interior point.
    Edge(u8),
    /// The triangle's interior.
    Face,
}

/// Closest points of two triangles.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleDistance {
    /// The distance (0 when the triangles meet).
    pub distance: f64,
    /// Closest point on the first triangle.
    pub point_a: DVec3,
    /// Closest point on the second triangle.
    pub point_b: DVec3,
    /// Feature of the first triangle carrying `point_a`.
    pub feature_a: TriFeature,
    /// Feature of the second triangle carrying `point_b`.
    pub feature_b: TriFeature,
}

/// Closest points of the segments `p0 p1` and `q0 q1` with their parameters (clamped to
/// `[0, 1]`). Degenerate segments (points) are handled; parallel segments get one of their
/// closest pairs.
fn segment_segment(p0: DVec3, p1: DVec3, q0: DVec3, q1: DVec3) -> (f64, f64, DVec3, DVec3) {
    let d1 = p1 - p0;
    let d2 = q1 - q0;
    let r = p0 - q0;
    let a = d1.length_squared();
    let e = d2.length_squared();
    let f = d2.dot(r);
    let clamp = |x: f64| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
    let (s, t);
    if !(a > 0.0) && !(e > 0.0) {
        (s, t) = (0.0, 0.0);
    } else if !(a > 0.0) {
        s = 0.0;
        t = clamp(f / e);
    } else {
        let c = d1.dot(r);
        if !(e > 0.0) {
            t = 0.0;
            s = clamp(-c / a);
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            let s0 = if denom > 0.0 {
                clamp((b * f - c * e) / denom)
            } else {
                0.0
            };
            let t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t = 0.0;
                s = clamp(-c / a);
            } else if t0 > 1.0 {
                t = 1.0;
                s = clamp((b - c) / a);
            } else {
                t = t0;
                s = s0;
            }
        }
    }
    // End points exactly at the ends (no rounding of `p0 + 1·d1`).
    let at = |x0: DVec3, x1: DVec3, u: f64| {
        if u == 0.0 {
            x0
        } else if u == 1.0 {
            x1
        } else {
            x0 + (x1 - x0) * u
        }
    };
    (s, t, at(p0, p1, s), at(q0, q1, t))
}

/// The feature of edge `k` at parameter `s`.
fn edge_feature(k: usize, s: f64) -> TriFeature {
    if s == 0.0 {
        TriFeature::Vertex(k as u8)
    } else if s == 1.0 {
        TriFeature::Vertex(((k + 1) % 3) as u8)
    } else {
        TriFeature::Edge(k as u8)
    }
}

/// `p` projects strictly inside the triangle `t` (normal `n`, non-zero): the foot of the
/// perpendicular, or `None`.
fn foot_inside(p: DVec3, t: &[DVec3; 3], n: DVec3) -> Option<DVec3> {
    for k in 0..3 {
        let (u, v) = (t[k], t[(k + 1) % 3]);
        if !((v - u).cross(p - u).dot(n) > 0.0) {
            return None;
        }
    }
    let n2 = n.length_squared();
    let foot = p - n * ((p - t[0]).dot(n) / n2);
    Some(foot)
}

/// The segment `p q` crosses the triangle `t` (exact signs): it meets the triangle's plane
/// between (or at) its ends and passes through the closed triangle. Returns the crossing
/// point (rounded) and whether it is in the interior of the triangle.
fn segment_crosses(p: DVec3, q: DVec3, t: &[DVec3; 3]) -> Option<(DVec3, bool)> {
    let sp = orient3d(t[0], t[1], t[2], p);
    let sq = orient3d(t[0], t[1], t[2], q);
    if sp == Orientation::On && sq == Orientation::On {
        // Coplanar: left to the segment–segment and vertex–face cases.
        return None;
    }
    if sp == sq {
        return None;
    }
    let sides = [
        orient3d(p, q, t[0], t[1]),
        orient3d(p, q, t[1], t[2]),
        orient3d(p, q, t[2], t[0]),
    ];
    let above = sides.iter().filter(|&&o| o == Orientation::Above).count();
    let below = sides.iter().filter(|&&o| o == Orientation::Below).count();
    if above > 0 && below > 0 {
        return None;
    }
    // The point where the segment meets the plane.
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let (dp, dq) = ((p - t[0]).dot(n), (q - t[0]).dot(n));
    let x = if sp == Orientation::On {
        p
    } else if sq == Orientation::On {
        q
    } else {
        let w = dp / (dp - dq);
        let w = if w.is_finite() { w.clamp(0.0, 1.0) } else { 0.5 };
        p + (q - p) * w
    };
    Some((x, above == 3 || below == 3))
}

/// Distance, closest points and features of the triangles `a` and `b` (non-degenerate).
pub fn triangle_distance(a: &[DVec3; 3], b: &[DVec3; 3]) -> TriangleDistance {
    let mut best = TriangleDistance {
        distance: f64::INFINITY,
        point_a: a[0],
        point_b: b[0],
        feature_a: TriFeature::Vertex(0),
        feature_b: TriFeature::Vertex(0),
    };
    let mut best2 = f64::INFINITY;
    // Edge–edge.
    for i in 0..3 {
        for j in 0..3 {
            let (s, t, p, q) = segment_segment(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3]);
            let d2 = (q - p).length_squared();
            if d2 < best2 {
                best2 = d2;
                best.point_a = p;
                best.point_b = q;
                best.feature_a = edge_feature(i, s);
                best.feature_b = edge_feature(j, t);
            }
        }
    }
    // Vertex–face.
    let na = (a[1] - a[0]).cross(a[2] - a[0]);
    let nb = (b[1] - b[0]).cross(b[2] - b[0]);
    for k in 0..3 {
        if let Some(f) = foot_inside(a[k], b, nb) {
            let d2 = (f - a[k]).length_squared();
            if d2 < best2 {
                best2 = d2;
                best.point_a = a[k];
                best.point_b = f;
                best.feature_a = TriFeature::Vertex(k as u8);
                best.feature_b = TriFeature::Face;
            }
        }
        if let Some(f) = foot_inside(b[k], a, na) {
            let d2 = (f - b[k]).length_squared();
            if d2 < best2 {
                best2 = d2;
                best.point_a = f;
                best.point_b = b[k];
                best.feature_a = TriFeature::Face;
                best.feature_b = TriFeature::Vertex(k as u8);
            }
        }
    }
    // Crossing: an edge of one through the other. Triangles whose bounding boxes are apart
    // (exact comparisons of their coordinates) cannot cross, so the exact tests are skipped.
    let (lo_a, hi_a) = (a[0].min(a[1]).min(a[2]), a[0].max(a[1]).max(a[2]));
    let (lo_b, hi_b) = (b[0].min(b[1]).min(b[2]), b[0].max(b[1]).max(b[2]));
    let boxes_meet = lo_a.cmple(hi_b).all() && lo_b.cmple(hi_a).all();
    if best2 > 0.0 && boxes_meet {
        for k in 0..3 {
            if let Some((x, interior)) = segment_crosses(a[k], a[(k + 1) % 3], b) {
                best2 = 0.0;
                best.point_a = x;
                best.point_b = x;
                best.feature_a = TriFeature::Edge(k as u8);
                best.feature_b = if interior { TriFeature::Face } else { best.feature_b };
                break;
            }
            if let Some((x, interior)) = segment_crosses(b[k], b[(k + 1) % 3], a) {
                best2 = 0.0;
                best.point_a = x;
                best.point_b = x;
                best.feature_b = TriFeature::Edge(k as u8);
                best.feature_a = if interior { TriFeature::Face } else { best.feature_a };
                break;
            }
        }
    }
    best.distance = best2.sqrt();
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: the minimum over a dense barycentric grid of both triangles plus the
    /// exact cases above must not be beaten by more than the grid's resolution, and the
    /// reported points must be at the reported distance and on their triangles.
    #[test]
    fn against_sampling() {
        let mut s = 0x1234_5678_9abc_def0u64;
        let mut rnd = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let n = 24;
        for _ in 0..300 {
            let mut c = [0.0; 21];
            for x in &mut c {
                *x = rnd();
            }
            let p = |k: usize| DVec3::new(c[3 * k], c[3 * k + 1], c[3 * k + 2]);
            let a = [p(0), p(1), p(2)];
            let off = p(6) * 1.5;
            let b = [p(3), p(4), p(5)].map(|q| q * 0.7 + off);
            let d = triangle_distance(&a, &b);
            assert!(((d.point_b - d.point_a).length() - d.distance).abs() < 1e-12);
            let mut sample = f64::INFINITY;
            let pts = |t: &[DVec3; 3]| {
                let mut v = Vec::new();
                for i in 0..=n {
                    for j in 0..=(n - i) {
                        let (u, w) = (i as f64 / n as f64, j as f64 / n as f64);
                        v.push(t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * w);
                    }
                }
                v
            };
            let (pa, pb) = (pts(&a), pts(&b));
            for p in &pa {
                for q in &pb {
                    sample = sample.min((*p - *q).length());
                }
            }
            assert!(d.distance <= sample + 1e-12, "{} > sampled {}", d.distance, sample);
            // The grid is within ~ edge/n of every point.
            assert!(d.distance >= sample - 0.3, "{} vs {}", d.distance, sample);
        }
    }

    /// Hand-checked cases: crossing triangles (distance 0), parallel faces, edge over face.
    #[test]
    fn hand_checked() {
        let t = [
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(2.0, 0.0, 0.0),
            DVec3::new(0.0, 2.0, 0.0),
        ];
        // A vertical triangle piercing t's interior.
        let v = [
            DVec3::new(0.5, 0.5, -1.0),
            DVec3::new(0.5, 0.5, 1.0),
            DVec3::new(0.6, 0.9, 1.0),
        ];
        let d = triangle_distance(&t, &v);
        assert_eq!(d.distance, 0.0);
        assert_eq!(d.feature_a, TriFeature::Face);
        // t lifted by 3: parallel, distance 3.
        let up = t.map(|p| p + DVec3::new(0.1, 0.1, 3.0));
        assert_eq!(triangle_distance(&t, &up).distance, 3.0);
        // An edge 0.5 above t, across it: edge–face, 0.5.
        let e = [
            DVec3::new(0.3, -1.0, 0.5),
            DVec3::new(0.3, 3.0, 0.5),
            DVec3::new(0.3, 1.0, 4.0),
        ];
        let d = triangle_distance(&t, &e);
        assert_eq!(d.distance, 0.5);
        // Disjoint in the same plane: 1 between the edges x + y = 2 and x + y = 2 + √2.
        let side = t.map(|p| DVec3::new(3.0 - p.x + 0.0, 3.0 - p.y, 0.0));
        let d = triangle_distance(&t, &side);
        assert!((d.distance - (4.0 - 2.0) / 2f64.sqrt()).abs() < 1e-15, "{d:?}");
    }
}
