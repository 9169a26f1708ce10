//! Point queries and ray casts on flat shapes (a point, a segment, a convex polygon: no
//! interior) and ray casts on rounded shapes (any core dilated by a ball), for
//! [`point_query`](super::point_query) and [`ray_cast`](super::ray_cast).
//!
//! **Flat shapes, exactly.** A flat shape has no inside: a point on it is on its boundary
//! (signed distance 0), every other point is outside. "On it" is decided exactly: `orient3d`
//! against the polygon's plane, then `orient2d` of the point against each edge in a coordinate
//! plane the shape projects onto without collapsing (dropping one coordinate of points that
//! lie exactly in one plane keeps their exact in-plane orientations, up to one global sign).
//! A ray meets a flat shape when its line (through the origin and a point beyond the shape
//! along the direction, as for solids) passes through it: exact `orient3d` signs of the line
//! against the polygon's edges (the face the origin lies above is the face it enters, face 0
//! or face 1 by the batch convention), and for rays in the plane of the polygon or of a
//! segment, exact `orient2d` signs in that plane. A ray grazing a segment, an edge or a vertex
//! hits it. The normal of a hit on a polygon is the face the ray meets (face 0 for a ray lying
//! in the polygon's plane); on a segment or a point, the unit vector facing the ray
//! perpendicular to the segment (`−direction` for a point, or a ray along the segment).
//!
//! **Rounded shapes** (radius r > 0). The origin is inside when its exact core distance is
//! below r (`t = 0`, no normal, as for solids), on the surface when equal. Otherwise the ray's
//! first hit is the earliest of: the spheres of radius r about the vertices, the cylinders of
//! radius r about the edges (within the edge's length), and the faces pushed out by r along
//! their normals (within the face); every other point of the rounded surface lies in one of
//! those pieces, so the earliest entry is the first hit. Closed forms in floating point
//! (sphere: the quadratic in its cancellation-free form; capsule = cylinder and two caps),
//! exact to rounding.

use crate::contract::Containment;
use crate::core::geometry::{closest_on_segment, closest_on_triangle};
use crate::core::math::{pow2_normaliser, DVec3};
use crate::core::predicates::{orient3d, Orientation};
use crate::shape::feature::Feature;
use crate::shape::polyhedron::ConvexPolyhedron;

/// Exact sign of the 2D orientation of `a, b, c` with coordinate `drop` removed: 1
/// counter-clockwise, −1 clockwise, 0 collinear.
pub(super) fn orient2d(a: DVec3, b: DVec3, c: DVec3, drop: usize) -> i8 {
    let p = |v: DVec3| match drop {
        0 => (v.y, v.z),
        1 => (v.z, v.x),
        _ => (v.x, v.y),
    };
    let m = a.abs().max(b.abs()).max(c.abs()).max_element();
    let s = pow2_normaliser(m).unwrap_or(1.0);
    let c2 = |v: DVec3| {
        let (x, y) = p(v * s);
        robust::Coord { x, y }
    };
    let d = robust::orient2d(c2(a), c2(b), c2(c));
    if d > 0.0 {
        1
    } else if d < 0.0 {
        -1
    } else {
        0
    }
}

/// Whether `a, b, c` are exactly collinear (every coordinate projection is).
fn collinear(a: DVec3, b: DVec3, c: DVec3) -> bool {
    (0..3).all(|k| orient2d(a, b, c, k) == 0)
}

/// Whether `q`, exactly collinear with `a` and `b`, lies on the closed segment `ab`.
fn between(q: DVec3, a: DVec3, b: DVec3) -> bool {
    (0..3).all(|k| a[k].min(b[k]) <= q[k] && q[k] <= a[k].max(b[k]))
}

/// The segment's end points (vertex ids and positions).
fn segment_ends(shape: &ConvexPolyhedron) -> ([u32; 2], DVec3, DVec3) {
    let [i, j] = shape.edge(0).vertices;
    ([i, j], shape.vertex(i), shape.vertex(j))
}

/// A coordinate to drop that keeps face 0 of a polygon non-degenerate (its plane's normal
/// has an exactly non-zero component there): the dominant one of the float normal, checked.
fn polygon_drop(shape: &ConvexPolyhedron) -> usize {
    let n = shape.face(0).normal.abs();
    let dominant = if n.x >= n.y && n.x >= n.z {
        0
    } else if n.y >= n.z {
        1
    } else {
        2
    };
    let [a, b, c] = super::probe_exact::plane_triple(shape, 0);
    [dominant, 0, 1, 2]
        .into_iter()
        .find(|&k| orient2d(a, b, c, k) != 0)
        .unwrap_or(dominant)
}

/// Where `q` (exactly in face 0's plane) lies on the polygon: `None` outside, else the
/// feature holding it (a vertex it equals, an edge it lies on, or face 0).
fn in_polygon(shape: &ConvexPolyhedron, q: DVec3) -> Option<Feature> {
    let drop = polygon_drop(shape);
    let [a, b, c] = super::probe_exact::plane_triple(shape, 0);
    let orientation = orient2d(a, b, c, drop);
    let mut zero_edge = None;
    for h in shape.face_half_edges(0) {
        let he = shape.half_edge(h);
        let (p0, p1) = (shape.vertex(he.origin), shape.vertex(shape.half_edge(he.next).origin));
        let s = orient2d(p0, p1, q, drop);
        if s == -orientation {
            return None;
        }
        if s == 0 {
            if q == p0 {
                return Some(Feature::Vertex(he.origin));
            }
            zero_edge = Some(he.edge);
        }
    }
    Some(zero_edge.map_or(Feature::Face(0), Feature::Edge))
}

/// The point query on a flat shape in its own frame (`q` local): the closest point of the
/// shape, the distance (0 on it, exactly decided) and the feature.
pub(super) fn point_flat(shape: &ConvexPolyhedron, q: DVec3) -> (Containment, f64, DVec3, Feature) {
    match shape.dimension() {
        0 => {
            let v = shape.vertex(0);
            if q == v {
                (Containment::Boundary, 0.0, q, Feature::Vertex(0))
            } else {
                (Containment::Outside, (q - v).length(), v, Feature::Vertex(0))
            }
        }
        1 => {
            let ([i, j], a, b) = segment_ends(shape);
            if collinear(a, b, q) && between(q, a, b) {
                let f = if q == a {
                    Feature::Vertex(i)
                } else if q == b {
                    Feature::Vertex(j)
                } else {
                    Feature::Edge(0)
                };
                return (Containment::Boundary, 0.0, q, f);
            }
            let (c, t) = closest_on_segment(q, a, b);
            let f = if t <= 0.0 {
                Feature::Vertex(i)
            } else if t >= 1.0 {
                Feature::Vertex(j)
            } else {
                Feature::Edge(0)
            };
            (Containment::Outside, (q - c).length(), c, f)
        }
        _ => {
            let [a, b, c] = super::probe_exact::plane_triple(shape, 0);
            let side = orient3d(a, b, c, q);
            if side == Orientation::On {
                if let Some(f) = in_polygon(shape, q) {
                    return (Containment::Boundary, 0.0, q, f);
                }
            }
            let vs = shape.face_vertices(0);
            let p0 = shape.vertex(vs[0]);
            let mut best = (f64::INFINITY, p0);
            for w in vs[1..].windows(2) {
                let p = closest_on_triangle(q, p0, shape.vertex(w[0]), shape.vertex(w[1]));
                let d = (q - p).length_squared();
                if d < best.0 {
                    best = (d, p);
                }
            }
            let closest = best.1;
            let face = if side == Orientation::Below { 1 } else { 0 };
            let feature = match shape.feature_at(closest) {
                Feature::Face(_) => Feature::Face(face),
                other => other,
            };
            (Containment::Outside, (q - closest).length(), closest, feature)
        }
    }
}

/// The unit vector facing a ray along the unit `u` and perpendicular to the direction `e`
/// (`−u` when `u` runs along `e` or `e` is zero).
fn facing(u: DVec3, e: DVec3) -> DVec3 {
    let ee = e.length_squared();
    if ee > 0.0 {
        let n = -u + e * (u.dot(e) / ee);
        let l = n.length();
        if l > 0.0 && l.is_finite() {
            return n / l;
        }
    }
    -u
}

/// A ray hit on a flat shape or a rounded one in the shape's frame: distance along the unit
/// direction, the local normal (zero when the origin is strictly inside), the feature.
pub(super) type LocalHit = (f64, DVec3, Option<Feature>);

/// The ray from `o` (local) along the unit `u` against the segment `ab` lying exactly in a
/// plane with the line `(o, far)`: the first point of the segment on the ray.
fn ray_segment_coplanar(o: DVec3, far: DVec3, u: DVec3, a: DVec3, b: DVec3) -> Option<(f64, Option<bool>)> {
    // Some(true): vertex a; Some(false): vertex b; None: the edge's interior.
    if collinear(o, far, a) && collinear(o, far, b) {
        // Along the segment's line (the origin is not on the segment: checked by the caller).
        let (ta, tb) = ((a - o).dot(u), (b - o).dot(u));
        return if ta > 0.0 && tb > 0.0 {
            Some(if ta <= tb { (ta, Some(true)) } else { (tb, Some(false)) })
        } else {
            None
        };
    }
    let off = if collinear(o, far, a) { b } else { a };
    let drop = (0..3).find(|&k| orient2d(o, far, off, k) != 0)?;
    let (sa, sb) = (orient2d(o, far, a, drop), orient2d(o, far, b, drop));
    if sa * sb > 0 {
        return None;
    }
    let (so, sf) = (orient2d(a, b, o, drop), orient2d(a, b, far, drop));
    if so == 0 || so == sf {
        return None;
    }
    if sa == 0 {
        return Some(((a - o).dot(u), Some(true)));
    }
    if sb == 0 {
        return Some(((b - o).dot(u), Some(false)));
    }
    // The crossing of the two lines: closest approach.
    let e = b - a;
    let w = o - a;
    let (bb, c, d, g) = (u.dot(e), e.dot(e), u.dot(w), e.dot(w));
    let den = c - bb * bb;
    let t = (bb * g - c * d) / den;
    let t = if den > 0.0 && t.is_finite() {
        t
    } else {
        (a - o).dot(u).max(0.0)
    };
    Some((t.max(0.0), None))
}

/// The ray cast on a flat shape (radius 0) in its frame: origin `o`, unit direction `u`, a
/// point `far` beyond the shape on the ray's line.
pub(super) fn ray_flat(shape: &ConvexPolyhedron, o: DVec3, far: DVec3, u: DVec3) -> Option<LocalHit> {
    let (on, _, _, feature) = point_flat(shape, o);
    match shape.dimension() {
        0 => {
            let v = shape.vertex(0);
            if on == Containment::Boundary {
                return Some((0.0, -u, Some(feature)));
            }
            let t = (v - o).dot(u);
            (collinear(o, far, v) && t > 0.0).then_some((t, -u, Some(Feature::Vertex(0))))
        }
        1 => {
            let ([i, j], a, b) = segment_ends(shape);
            let n = facing(u, b - a);
            if on == Containment::Boundary {
                return Some((0.0, n, Some(feature)));
            }
            if orient3d(o, far, a, b) != Orientation::On {
                return None;
            }
            let (t, which) = ray_segment_coplanar(o, far, u, a, b)?;
            let f = match which {
                Some(true) => Feature::Vertex(i),
                Some(false) => Feature::Vertex(j),
                None => Feature::Edge(0),
            };
            Some((t, n, Some(f)))
        }
        _ => {
            let n0 = shape.face(0).normal;
            let [a, b, c] = super::probe_exact::plane_triple(shape, 0);
            let (so, sf) = (orient3d(a, b, c, o), orient3d(a, b, c, far));
            let facing_face = |f: u32| shape.face(f).normal;
            if on == Containment::Boundary {
                let f = if n0.dot(u) <= 0.0 { 0 } else { 1 };
                return Some((0.0, facing_face(f), Some(feature)));
            }
            match (so, sf) {
                (Orientation::On, Orientation::On) => {
                    // In the polygon's plane: the first edge met.
                    let mut best: Option<(f64, Feature)> = None;
                    for h in shape.face_half_edges(0) {
                        let he = shape.half_edge(h);
                        let (vi, vj) = (he.origin, shape.half_edge(he.next).origin);
                        let Some((t, which)) = ray_segment_coplanar(o, far, u, shape.vertex(vi), shape.vertex(vj))
                        else {
                            continue;
                        };
                        let f = match which {
                            Some(true) => Feature::Vertex(vi),
                            Some(false) => Feature::Vertex(vj),
                            None => Feature::Edge(he.edge),
                        };
                        if best.is_none_or(|(bt, _)| t < bt) {
                            best = Some((t, f));
                        }
                    }
                    best.map(|(t, f)| (t, n0, Some(f)))
                }
                (Orientation::On, _) => None,
                (s, e) if s == e => None,
                (s, _) => {
                    let f = if s == Orientation::Above { 0 } else { 1 };
                    let zeros = super::probe_exact::entry_signs(shape, o, far, f)?;
                    let (t, feature) = super::probe_exact::entry_point(shape, o, u, f, zeros);
                    Some((t.max(0.0), facing_face(f), Some(feature)))
                }
            }
        }
    }
}

/// The earliest `t ≥ 0` where the ray `o + t·u` (unit `u`) enters the ball of radius `r`
/// about `c`, for an origin outside it.
fn ray_sphere(o: DVec3, u: DVec3, c: DVec3, r: f64) -> Option<f64> {
    let w = o - c;
    let b = w.dot(u);
    let cc = (w.length() - r) * (w.length() + r);
    if b >= 0.0 {
        return None;
    }
    let disc = b * b - cc;
    if !(disc >= 0.0) {
        return None;
    }
    // t = −b − √disc, without cancellation.
    let t = cc / (-b + disc.sqrt());
    (t.is_finite()).then_some(t.max(0.0))
}

/// The earliest `t ≥ 0` where the ray enters the lateral surface of the cylinder of radius
/// `r` about the segment `ab` (within its length), and the hit's outward normal.
fn ray_cylinder(o: DVec3, u: DVec3, a: DVec3, b: DVec3, r: f64) -> Option<(f64, DVec3)> {
    let e = b - a;
    let len = e.length();
    if !(len > 0.0) {
        return None;
    }
    let k = e / len;
    let w = o - a;
    let up = u - k * u.dot(k);
    let wp = w - k * w.dot(k);
    let aa = up.length_squared();
    if !(aa > 0.0) {
        return None;
    }
    let bb = wp.dot(up);
    if bb >= 0.0 {
        return None;
    }
    let wl = wp.length();
    let cc = (wl - r) * (wl + r);
    let disc = bb * bb - aa * cc;
    if !(disc >= 0.0) {
        return None;
    }
    let t = (cc / (-bb + disc.sqrt())).max(0.0);
    let p = o + u * t;
    let s = (p - a).dot(k);
    if !(0.0..=len).contains(&s) || !t.is_finite() {
        return None;
    }
    let radial = (p - a) - k * s;
    let l = radial.length();
    let n = if l > 0.0 { radial / l } else { -up / aa.sqrt() };
    Some((t, n))
}

/// The ray cast on a rounded shape in its frame (origin `o`, unit `u`), given the origin's
/// exact core distance `core_d` and core closest point.
pub(super) fn ray_rounded(
    shape: &ConvexPolyhedron,
    o: DVec3,
    u: DVec3,
    core_d: f64,
    core_p: DVec3,
) -> Option<LocalHit> {
    let r = shape.radius();
    if core_d < r {
        return Some((0.0, DVec3::ZERO, None));
    }
    if core_d == r {
        let n = (o - core_p) / core_d;
        return Some((0.0, n, Some(shape.feature_at(core_p))));
    }
    let mut best: Option<LocalHit> = None;
    let mut take = |t: f64, n: DVec3, f: Feature| {
        if best.is_none_or(|(bt, _, _)| t < bt) {
            best = Some((t, n, Some(f)));
        }
    };
    for (i, &v) in shape.vertices().iter().enumerate() {
        if let Some(t) = ray_sphere(o, u, v, r) {
            let n = (o + u * t - v) / r;
            let l = n.length();
            take(t, if l > 0.0 { n / l } else { -u }, Feature::Vertex(i as u32));
        }
    }
    for (i, e) in shape.edges().iter().enumerate() {
        let [p, q] = e.vertices;
        if let Some((t, n)) = ray_cylinder(o, u, shape.vertex(p), shape.vertex(q), r) {
            take(t, n, Feature::Edge(i as u32));
        }
    }
    for (f, face) in shape.faces().iter().enumerate() {
        let nd = face.normal.dot(u);
        if !(nd < 0.0) {
            continue;
        }
        let t = (face.offset + r - face.normal.dot(o)) / nd;
        if !(t >= 0.0 && t.is_finite()) {
            continue;
        }
        // The hit pushed back onto the face's plane, inside the face (float test).
        let p = o + u * t - face.normal * r;
        let inside = shape.face_half_edges(f as u32).all(|h| {
            let he = shape.half_edge(h);
            let a = shape.vertex(he.origin);
            let b = shape.vertex(shape.half_edge(he.next).origin);
            (p - a).dot(face.normal.cross(b - a)) >= 0.0
        });
        if inside {
            take(t, face.normal, Feature::Face(f as u32));
        }
    }
    best
}
