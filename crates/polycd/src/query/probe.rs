//! One shape against a point or a ray: [`point_query`] (inside? closest boundary point, signed
//! distance, closest feature) and [`ray_cast`] (first hit: `t`, point, normal, feature).
//!
//! Both work in the shape's frame (the point, or the ray's origin and direction, mapped in by
//! the inverse pose) and report in the world frame.
//!
//! **Inside or outside** is decided exactly: the `orient3d` sign of the point against each
//! face's plane, the plane through three of the face's vertices (its first, and the ones a
//! third and two thirds of the way round, well spread on faces of many vertices). The solid is
//! the set below (or on) every such plane; for faces that are exactly planar (hulls of exact
//! input, boxes, tetrahedra…) that is the hull, for faces merged within rounding of a plane it
//! is the hull to that rounding.
//!
//! **Point query.** Outside points are answered by a walk over the Voronoi regions of the
//! boundary's features, as V-Clip walks them for a pair (Mirtich 1998): start at the support
//! vertex towards the point (the shape's hinted hill-climb), move to an edge, face or vertex
//! whose region the point lies beyond, stop in the feature whose region holds it. Each step
//! lowers the distance in exact arithmetic, so the walk visits no feature twice; it is bounded
//! by the number of features. The walk's answer is confirmed exactly by a face around the final
//! feature that the point lies strictly above (one always exists for a point outside). Anything
//! else — a point inside or on the boundary, a walk stopped by rounding or its bound — takes
//! the O(F) path: the exact sign against every face; the nearest face plane inside (the closest
//! boundary point of an interior point is its projection on the nearest face plane, which lies
//! in that face); the point itself on the boundary; the closest point over every face's
//! triangle fan for an outside point the walk did not settle.
//!
//! **Ray cast.** The ray's line is taken through two floating-point points, the origin and a
//! point beyond the shape along the direction (the origin plus the direction times a power of
//! two: exact when that sum is representable, else rounded once); the `orient3d` sign of that line against each
//! boundary edge (the Plücker side) is exact and antisymmetric, so every line meets the
//! boundary without gaps between faces: a face is *entered* when the line passes on the
//! entering side of (or through) each of its edges, and an edge or vertex the line passes
//! exactly through has sign zero. Grazing lines (through an edge, sliding along a face) meet
//! the closed solid and are hits, consistently. A face half-space test on floats first finds
//! the candidate entry face (Cyrus–Beck slabs) and certifies misses that clear the face planes
//! pushed out by [`RAY_MISS_REL`]; the candidate is confirmed by its exact edge signs (walking
//! to the neighbour across an edge the line passes outside of, a few steps at most), and
//! otherwise every front face is tested exactly. Whether the line's entry lies ahead of the
//! origin is the exact sign of the origin against the entry face's plane.
//!
//! **Shapes.** The above is for solids (dimension 3). Points, segments and polygons (no
//! inside), and ray casts on rounded shapes, are answered in `probe_flat.rs`; the point query
//! on a rounded shape is the core's, less the radius.
//!
//! Coordinates outside the safe band are answered on a copy scaled by a power of two (exact,
//! allocating); otherwise nothing is allocated.

use crate::contract::{checked_pose, Containment, PointAnswer, RayHit};
use crate::core::error::PolycdError;
use crate::core::geometry::{closest_on_segment, closest_on_triangle};
use crate::core::math::{exponent_of, pow2, pow2_normaliser, DVec3, Pose};
use crate::core::predicates::{orient3d, Orientation};
use crate::core::tolerance::{MAX_COORDINATE, RAY_MISS_REL, SILHOUETTE_MARGIN};
use crate::shape::feature::Feature;
use crate::shape::polyhedron::ConvexPolyhedron;

use super::probe_exact::{entry_point, entry_signs, plane_triple, Zeros};
use super::probe_flat;

/// Steps of the exact entry-face walk of a ray before every front face is tested.
const ENTRY_WALK_STEPS: u32 = 16;

/// A finite input vector within the coordinate bound, or a typed error naming it.
fn check_vector(v: DVec3, name: &'static str) -> Result<(), PolycdError> {
    if !v.is_finite() {
        return Err(PolycdError::InvalidOption {
            name,
            message: "coordinates must be finite",
        });
    }
    let m = v.abs().max_element();
    if m > MAX_COORDINATE {
        return Err(PolycdError::AbsurdMagnitude { value: m });
    }
    Ok(())
}

/// The power of two that brings the shape, pose and points into the safe band, if needed.
fn normaliser(shape: &ConvexPolyhedron, pose: &Pose, points: &[DVec3]) -> Option<f64> {
    let m = points
        .iter()
        .fold(shape.magnitude().max(pose.translation.abs().max_element()), |m, p| {
            m.max(p.abs().max_element())
        });
    pow2_normaliser(m)
}

/// The point `point` (world frame) against `shape` at `pose`: exact containment, signed
/// distance to the boundary (negative inside), the closest boundary point and its feature.
///
/// ```
/// use polycd::{query, shapes, Containment, DVec3, Feature, Pose};
/// let cube = shapes::cuboid(1.0, 1.0, 1.0).unwrap(); // [-0.5, 0.5]³
/// let a = query::point_query(&cube, &Pose::IDENTITY, DVec3::new(2.5, 0.0, 0.0)).unwrap();
/// assert_eq!(a.containment, Containment::Outside);
/// assert_eq!(a.signed_distance, 2.0);
/// assert_eq!(a.point, DVec3::new(0.5, 0.0, 0.0));
/// assert!(matches!(a.feature, Feature::Face(_)));
/// let b = query::point_query(&cube, &Pose::IDENTITY, DVec3::new(0.0, 0.0, 0.25)).unwrap();
/// assert_eq!((b.containment, b.signed_distance), (Containment::Inside, -0.25));
/// ```
///
/// Errors: a non-finite or absurd point ([`PolycdError::InvalidOption`] naming `point`,
/// [`PolycdError::AbsurdMagnitude`]), a bad pose.
pub fn point_query(shape: &ConvexPolyhedron, pose: &Pose, point: DVec3) -> Result<PointAnswer, PolycdError> {
    check_vector(point, "point")?;
    let pose = checked_pose(pose)?;
    let core = match normaliser(shape, &pose, &[point]) {
        Some(s) => point_scaled(shape, &pose, point, s)?,
        None => point_in_band(shape, &pose, point),
    };
    Ok(if shape.radius() > 0.0 {
        rounded(shape, &pose, point, core)
    } else {
        core
    })
}

/// The core's answer turned into the rounded shape's (the core dilated by a ball of radius
/// `r`): the signed distance less `r` (exact to rounding: for a point inside the core the
/// distance to the dilated boundary is the distance to the core's boundary plus `r`, reached
/// along the nearest face's normal; outside, the core distance less `r` along the direction
/// from the core's closest point). Containment follows the sign of that signed distance; it
/// is exact for the core, not for the dilated surface.
fn rounded(shape: &ConvexPolyhedron, pose: &Pose, point: DVec3, core: PointAnswer) -> PointAnswer {
    let r = shape.radius();
    let d = core.signed_distance;
    let normal = if core.containment == Containment::Outside && d > 0.0 {
        (point - core.point) / d
    } else if shape.dimension() < 2 {
        // On a point or segment core: every direction perpendicular to it is nearest; one
        // fixed choice (perpendicular to the segment, else +z).
        let axis = if shape.dimension() == 1 {
            let [i, j] = shape.edge(0).vertices;
            shape.vertex(j) - shape.vertex(i)
        } else {
            DVec3::ZERO
        };
        pose.transform_vector(any_perpendicular(axis))
    } else {
        // Inside or on the core's boundary: the outward normal of a face of the feature.
        let face = match core.feature {
            Feature::Face(f) => f,
            Feature::Edge(e) => shape.edge(e).faces[0],
            Feature::Vertex(v) => {
                let h = shape.adj_half_edge[shape.adj_start[v as usize] as usize];
                shape.half_edge(h).face
            }
        };
        pose.transform_vector(shape.face(face).normal)
    };
    let signed = d - r;
    PointAnswer {
        containment: if signed < 0.0 {
            Containment::Inside
        } else if signed > 0.0 {
            Containment::Outside
        } else {
            Containment::Boundary
        },
        signed_distance: signed,
        point: core.point + normal * r,
        feature: core.feature,
    }
}

/// A unit vector perpendicular to `axis` (+z for the zero vector).
fn any_perpendicular(axis: DVec3) -> DVec3 {
    let l = axis.length();
    if !(l > 0.0) {
        return DVec3::Z;
    }
    let k = axis / l;
    let helper = if k.x.abs() <= k.y.abs() && k.x.abs() <= k.z.abs() {
        DVec3::X
    } else if k.y.abs() <= k.z.abs() {
        DVec3::Y
    } else {
        DVec3::Z
    };
    let n = k.cross(helper);
    n / n.length()
}

#[cold]
#[inline(never)]
fn point_scaled(shape: &ConvexPolyhedron, pose: &Pose, point: DVec3, s: f64) -> Result<PointAnswer, PolycdError> {
    let scaled = shape.scaled_by(s)?;
    let pose2 = Pose::new(pose.rotation, pose.translation * s);
    let a = point_in_band(&scaled, &pose2, point * s);
    let k = 1.0 / s;
    Ok(PointAnswer {
        signed_distance: a.signed_distance * k,
        point: if a.containment == Containment::Boundary {
            point
        } else {
            a.point * k
        },
        ..a
    })
}

fn point_in_band(shape: &ConvexPolyhedron, pose: &Pose, point: DVec3) -> PointAnswer {
    let q = pose.inverse_transform_point(point);
    if shape.dimension() < 3 {
        let (containment, d, closest, feature) = probe_flat::point_flat(shape, q);
        return PointAnswer {
            containment,
            signed_distance: d,
            point: if containment == Containment::Boundary {
                point
            } else {
                pose.transform_point(closest)
            },
            feature,
        };
    }
    if let Some((feature, closest)) = voronoi_walk(shape, q) {
        if outside_near(shape, feature, q) {
            return PointAnswer {
                containment: Containment::Outside,
                signed_distance: (q - closest).length(),
                point: pose.transform_point(closest),
                feature,
            };
        }
    }
    match classify(shape, q) {
        (Containment::Inside, nearest, depth) => {
            let n = shape.face(nearest).normal;
            PointAnswer {
                containment: Containment::Inside,
                signed_distance: -depth,
                point: pose.transform_point(q + n * depth),
                feature: Feature::Face(nearest),
            }
        }
        (Containment::Boundary, _, _) => PointAnswer {
            containment: Containment::Boundary,
            signed_distance: 0.0,
            point,
            feature: boundary_feature(shape, q, None).0,
        },
        (Containment::Outside, _, _) => {
            let (closest, d) = closest_brute(shape, q);
            PointAnswer {
                containment: Containment::Outside,
                signed_distance: d,
                point: pose.transform_point(closest),
                feature: shape.feature_at(closest),
            }
        }
    }
}

/// Exact side of `q` against face `f`'s plane: `Above` is outside.
#[inline]
fn side(shape: &ConvexPolyhedron, f: u32, q: DVec3) -> Orientation {
    let [a, b, c] = plane_triple(shape, f);
    orient3d(a, b, c, q)
}

/// Exact containment of `q` (local frame) against every face, with the face whose plane is
/// nearest (floating point) and the depth below it (≥ 0; meaningful inside).
fn classify(shape: &ConvexPolyhedron, q: DVec3) -> (Containment, u32, f64) {
    let mut on = false;
    let mut nearest = (f64::INFINITY, 0u32);
    for (f, face) in shape.faces().iter().enumerate() {
        match side(shape, f as u32, q) {
            Orientation::Above => return (Containment::Outside, f as u32, 0.0),
            Orientation::On => on = true,
            Orientation::Below => {}
        }
        let depth = face.offset - face.normal.dot(q);
        if depth < nearest.0 {
            nearest = (depth, f as u32);
        }
    }
    let c = if on { Containment::Boundary } else { Containment::Inside };
    (c, nearest.1, nearest.0.max(0.0))
}

/// A face through `q` (on the boundary, exactly), and the lowest-dimensional feature holding
/// it: a face when one face plane holds it, a vertex it equals, an edge whose two faces hold
/// it (else the feature within snapping distance). With `dir`, the face returned is the one
/// through `q` whose normal is most opposed to `dir` (the face a ray along `dir` enters or
/// slides on).
fn boundary_feature(shape: &ConvexPolyhedron, q: DVec3, dir: Option<DVec3>) -> (Feature, u32) {
    let mut count = 0u32;
    let mut first = 0u32;
    let mut best = (f64::INFINITY, 0u32);
    for (f, face) in shape.faces().iter().enumerate() {
        if side(shape, f as u32, q) == Orientation::On {
            if count == 0 {
                first = f as u32;
            }
            count += 1;
            let key = dir.map_or(0.0, |d| face.normal.dot(d));
            if key < best.0 {
                best = (key, f as u32);
            }
        }
    }
    if count <= 1 {
        return (Feature::Face(first), best.1);
    }
    for &v in shape.face_vertices(first) {
        if shape.vertex(v) == q {
            return (Feature::Vertex(v), best.1);
        }
    }
    for h in shape.face_half_edges(first) {
        let he = shape.half_edge(h);
        let other = shape.half_edge(he.twin).face;
        if side(shape, other, q) == Orientation::On {
            return (Feature::Edge(he.edge), best.1);
        }
    }
    (shape.feature_at(q), best.1)
}

/// The feature of the boundary in whose Voronoi region `q` lies, and its closest point, by a
/// walk from the support vertex towards `q`; `None` when the walk reaches a face `q` is not
/// above (it is inside or on the boundary, or rounding misled the walk) or its bound.
fn voronoi_walk(shape: &ConvexPolyhedron, q: DVec3) -> Option<(Feature, DVec3)> {
    #[derive(Clone, Copy)]
    enum At {
        V(u32),
        E(u32),
        F(u32),
    }
    let (nv, ne, nf) = shape.counts();
    let start = shape.support_climb_hinted(q - shape.centroid(), 0);
    let mut at = At::V(start);
    // Each step lowers the distance (exactly): no feature twice.
    'walk: for _ in 0..(nv + ne + nf) {
        match at {
            At::V(v) => {
                let p = shape.vertex(v);
                for (k, &w) in shape.neighbors(v).iter().enumerate() {
                    if (q - p).dot(shape.vertex(w) - p) > 0.0 {
                        let h = shape.outgoing(v)[k];
                        at = At::E(shape.half_edge(h).edge);
                        continue 'walk;
                    }
                }
                return Some((Feature::Vertex(v), p));
            }
            At::E(e) => {
                let edge = shape.edge(e);
                let [ta, hb] = edge.vertices;
                let (a, b) = (shape.vertex(ta), shape.vertex(hb));
                let u = b - a;
                if (q - a).dot(u) < 0.0 {
                    at = At::V(ta);
                    continue;
                }
                if (q - b).dot(u) > 0.0 {
                    at = At::V(hb);
                    continue;
                }
                let [left, right] = edge.faces;
                // Inward directions of the two faces, perpendicular to the edge: each face is
                // counter-clockwise seen from outside, `left` running tail → head.
                if (q - a).dot(shape.face(left).normal.cross(u)) > 0.0 {
                    at = At::F(left);
                    continue;
                }
                if (q - a).dot(u.cross(shape.face(right).normal)) > 0.0 {
                    at = At::F(right);
                    continue;
                }
                return Some((Feature::Edge(e), closest_on_segment(q, a, b).0));
            }
            At::F(f) => {
                let face = shape.face(f);
                let n = face.normal;
                let height = n.dot(q) - face.offset;
                if !(height > 0.0) {
                    return None;
                }
                for h in shape.face_half_edges(f) {
                    let he = shape.half_edge(h);
                    let a = shape.vertex(he.origin);
                    let b = shape.vertex(shape.half_edge(he.next).origin);
                    if (q - a).dot(n.cross(b - a)) < 0.0 {
                        at = At::E(he.edge);
                        continue 'walk;
                    }
                }
                return Some((Feature::Face(f), q - n * height));
            }
        }
    }
    None
}

/// Whether `q` lies strictly above (exactly) a face through the feature: then it is outside.
fn outside_near(shape: &ConvexPolyhedron, feature: Feature, q: DVec3) -> bool {
    let above = |f: u32| side(shape, f, q) == Orientation::Above;
    match feature {
        Feature::Face(f) => above(f),
        Feature::Edge(e) => shape.edge(e).faces.into_iter().any(above),
        Feature::Vertex(v) => shape.outgoing(v).iter().any(|&h| above(shape.half_edge(h).face)),
    }
}

/// The closest boundary point to `q` over every face's triangle fan, and its distance.
fn closest_brute(shape: &ConvexPolyhedron, q: DVec3) -> (DVec3, f64) {
    let mut best = (shape.vertex(0), f64::INFINITY);
    for f in 0..shape.faces().len() as u32 {
        let vs = shape.face_vertices(f);
        let a = shape.vertex(vs[0]);
        for k in 1..vs.len() - 1 {
            let c = closest_on_triangle(q, a, shape.vertex(vs[k]), shape.vertex(vs[k + 1]));
            let d = (q - c).length();
            if d < best.1 {
                best = (c, d);
            }
        }
    }
    best
}

/// The first point `origin + t·direction` (`t ≥ 0`, world frame) of the ray in `shape` at
/// `pose`, taken as a closed solid; `None` when the ray misses it.
///
/// `t` is in units of `direction` as given (any non-zero length): the hit point is
/// `origin + t·direction`. A ray whose origin lies in the shape hits at `t = 0` at its origin
/// (as parry's *solid* casts do): with the zero normal and no feature when the origin is
/// strictly inside, with the feature holding it and the normal of the face through it most
/// opposed to the direction when it is on the boundary (whichever way the ray points). Rays
/// that graze an edge or slide along a face meet the closed solid: hits.
///
/// ```
/// use polycd::{query, shapes, DVec3, Feature, Pose};
/// let cube = shapes::cuboid(2.0, 2.0, 2.0).unwrap(); // [-1, 1]³
/// let o = DVec3::new(-5.0, 0.0, 0.0);
/// let hit = query::ray_cast(&cube, &Pose::IDENTITY, o, DVec3::new(2.0, 0.0, 0.0)).unwrap().unwrap();
/// assert_eq!(hit.t, 2.0); // 4 units at 2 units per t
/// assert_eq!((hit.point, hit.normal), (DVec3::new(-1.0, 0.0, 0.0), DVec3::new(-1.0, 0.0, 0.0)));
/// assert!(matches!(hit.feature, Some(Feature::Face(_))));
/// // Through the edge y = z = 1 exactly: a hit on the edge.
/// let edge = query::ray_cast(&cube, &Pose::IDENTITY, DVec3::new(0.0, 3.0, 3.0), DVec3::new(0.0, -1.0, -1.0));
/// assert!(matches!(edge.unwrap().unwrap().feature, Some(Feature::Edge(_))));
/// assert!(query::ray_cast(&cube, &Pose::IDENTITY, o, DVec3::new(-1.0, 0.0, 0.0)).unwrap().is_none());
/// ```
///
/// Errors: a non-finite or absurd origin ([`PolycdError::InvalidOption`] naming `origin`), a
/// zero or non-finite direction ([`PolycdError::BadDirection`]), a direction so short that
/// `t` overflows ([`PolycdError::InvalidOption`] naming `direction`), a bad pose.
pub fn ray_cast(
    shape: &ConvexPolyhedron,
    pose: &Pose,
    origin: DVec3,
    direction: DVec3,
) -> Result<Option<RayHit>, PolycdError> {
    check_vector(origin, "origin")?;
    if !direction.is_finite() || direction == DVec3::ZERO {
        return Err(PolycdError::BadDirection);
    }
    let pose = checked_pose(pose)?;
    // The unit direction and |direction|, through the largest component (no under/overflow).
    let m = direction.abs().max_element();
    let scaled = direction / m;
    let len_scaled = scaled.length();
    let unit = scaled / len_scaled;
    let dir_len = m * len_scaled;
    // The direction scaled exactly (a power of two) to a largest component in [1, 2): the
    // line's second point is taken along it, rounded once.
    let exact = direction * pow2(-exponent_of(m));
    let hit = match normaliser(shape, &pose, &[origin]) {
        Some(s) => {
            let copy = shape.scaled_by(s)?;
            let pose2 = Pose::new(pose.rotation, pose.translation * s);
            ray_in_band(&copy, &pose2, origin * s, unit, exact).map(|(t, h)| (t / s, h))
        }
        None => ray_in_band(shape, &pose, origin, unit, exact),
    };
    let Some((t_unit, hit)) = hit else {
        return Ok(None);
    };
    let t = t_unit / dir_len;
    if !t.is_finite() {
        return Err(PolycdError::InvalidOption {
            name: "direction",
            message: "too short: the hit's parameter t overflows",
        });
    }
    let point = if t_unit == 0.0 { origin } else { origin + unit * t_unit };
    Ok(Some(RayHit { t, point, ..hit }))
}

/// The ray from `origin` along the unit `unit` (world frame; `exact` is the direction as
/// given times a power of two), in band: the hit's distance along `unit` and the hit (its `t`
/// and `point` filled in by the caller).
fn ray_in_band(
    shape: &ConvexPolyhedron,
    pose: &Pose,
    origin: DVec3,
    unit: DVec3,
    exact: DVec3,
) -> Option<(f64, RayHit)> {
    let o = pose.inverse_transform_point(origin);
    let u = pose.inverse_transform_vector(unit);
    let (centre, radius) = shape.bounding_sphere();
    if shape.radius() > 0.0 || shape.dimension() < 3 {
        let hit = if shape.radius() > 0.0 {
            let core = point_in_band(shape, &Pose::IDENTITY, o);
            probe_flat::ray_rounded(shape, o, u, core.signed_distance, core.point)
        } else {
            let reach = pow2(exponent_of((o - centre).length() + 2.0 * radius) + 1);
            let far = o + pose.inverse_transform_vector(exact) * reach;
            probe_flat::ray_flat(shape, o, far, u)
        };
        return hit.map(|(t, n, feature)| {
            let hit = RayHit {
                t: 0.0,
                point: origin,
                normal: pose.transform_vector(n),
                feature,
            };
            (t, hit)
        });
    }
    let delta = RAY_MISS_REL * (radius + shape.magnitude() + (o - centre).length());
    // One pass over the face planes: the face the origin is furthest above, the Cyrus–Beck
    // slab of the planes pushed out by `delta` (a certain miss when empty), and the candidate
    // entry face (the latest entry through the planes as stored).
    let mut above = (f64::NEG_INFINITY, 0u32);
    let (mut lo, mut hi) = (0.0f64, f64::INFINITY);
    let mut candidate = (f64::NEG_INFINITY, None);
    for (f, face) in shape.faces().iter().enumerate() {
        let s = face.normal.dot(o) - face.offset;
        let nd = face.normal.dot(u);
        if s > above.0 {
            above = (s, f as u32);
        }
        let si = s - delta;
        if nd < 0.0 {
            lo = lo.max(si / -nd);
            let te = s / -nd;
            if te > candidate.0 {
                candidate = (te, Some(f as u32));
            }
        } else if nd > 0.0 {
            hi = hi.min(-si / nd);
        } else if si > 0.0 {
            hi = f64::NEG_INFINITY;
        }
    }
    if side(shape, above.1, o) != Orientation::Above {
        // Not certainly outside by the face it is furthest above: every face, exactly.
        match classify(shape, o).0 {
            Containment::Outside => {}
            Containment::Inside => {
                let hit = RayHit {
                    t: 0.0,
                    point: origin,
                    normal: DVec3::ZERO,
                    feature: None,
                };
                return Some((0.0, hit));
            }
            Containment::Boundary => {
                let (feature, face) = boundary_feature(shape, o, Some(u));
                let hit = RayHit {
                    t: 0.0,
                    point: origin,
                    normal: pose.transform_vector(shape.face(face).normal),
                    feature: Some(feature),
                };
                return Some((0.0, hit));
            }
        }
    }
    if lo > hi {
        return None;
    }
    // The line through `o` and a point beyond the shape along the direction: `o` plus the
    // direction as given times a power of two (exact), one rounding in all (none when the
    // sum is representable, as for axis-aligned rays at the identity pose).
    let reach = pow2(exponent_of((o - centre).length() + 2.0 * radius) + 1);
    let far = o + pose.inverse_transform_vector(exact) * reach;
    let entry = entry_walk(shape, o, far, candidate.1).or_else(|| {
        (0..shape.faces().len() as u32)
            .filter(|&f| shape.face(f).normal.dot(u) <= SILHOUETTE_MARGIN)
            .find_map(|f| entry_signs(shape, o, far, f).map(|z| (f, z)))
    });
    let (f, zeros) = entry?;
    // The line enters through `f`: ahead of the origin exactly when the origin is above `f`.
    if side(shape, f, o) != Orientation::Above {
        return None;
    }
    let (t, feature) = entry_point(shape, o, u, f, zeros);
    let hit = RayHit {
        t: 0.0,
        point: origin,
        normal: pose.transform_vector(shape.face(f).normal),
        feature: Some(feature),
    };
    Some((t.max(0.0), hit))
}

/// From the candidate face, the face the line `(o, far)` enters by: the candidate when its
/// exact signs say so, else its neighbour across the first edge the line passes outside of,
/// for at most [`ENTRY_WALK_STEPS`] faces.
fn entry_walk(shape: &ConvexPolyhedron, o: DVec3, far: DVec3, start: Option<u32>) -> Option<(u32, Zeros)> {
    let mut f = start?;
    for _ in 0..ENTRY_WALK_STEPS {
        if let Some(z) = entry_signs(shape, o, far, f) {
            return Some((f, z));
        }
        let next = shape.face_half_edges(f).find(|&h| {
            let he = shape.half_edge(h);
            let a = shape.vertex(he.origin);
            let b = shape.vertex(shape.half_edge(he.next).origin);
            orient3d(o, far, a, b) == Orientation::Above
        })?;
        f = shape.half_edge(shape.half_edge(next).twin).face;
    }
    None
}
