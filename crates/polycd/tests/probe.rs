//! Point queries and ray casts (`query::point_query`, `query::ray_cast`; issue 22 item 6).
//!
//! - Exact answers on the unit cube, a tetrahedron and an icosphere: points inside, outside
//!   near a face, an edge and a vertex, exactly on the boundary (faces, edges, vertices), one
//!   ulp either side of a face, far away; rays hitting faces, edges and vertices exactly,
//!   tangent at an edge, sliding along a face, missing by one ulp, starting inside, starting on
//!   the surface pointing in and out, behind the origin.
//! - Scales 1e-6…1e6, 1e6 from the origin, and 2^±200 (the exactly rescaled path).
//! - An independent brute-force oracle on seeded random hulls, poses, points and rays: the
//!   closest point over every face's triangle fan (`geometry::closest_on_triangle`), the depth
//!   below the nearest face plane, and the ray against every fan triangle.
//! - Typed errors for bad input.

use polycd::geometry::closest_on_triangle;
use polycd::query::{point_contact_tolerance, point_query, ray_cast, Containment, Status};
use polycd::{shapes, ConvexPolyhedron, DQuat, DVec3, Feature, PolycdError, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn v(x: f64, y: f64, z: f64) -> DVec3 {
    DVec3::new(x, y, z)
}

fn cube() -> ConvexPolyhedron {
    shapes::cuboid(1.0, 1.0, 1.0).unwrap() // [-0.5, 0.5]³
}

/// The edge of `p` between the vertices at `a` and `b`.
fn edge_at(p: &ConvexPolyhedron, a: DVec3, b: DVec3) -> Feature {
    let id = |x: DVec3| p.vertices().iter().position(|&w| w == x).unwrap() as u32;
    let (ia, ib) = (id(a), id(b));
    let e = p
        .edges()
        .iter()
        .position(|e| e.vertices == [ia, ib] || e.vertices == [ib, ia])
        .unwrap();
    Feature::Edge(e as u32)
}

fn vertex_at(p: &ConvexPolyhedron, a: DVec3) -> Feature {
    Feature::Vertex(p.vertices().iter().position(|&w| w == a).unwrap() as u32)
}

/// The face of `p` with outward normal `n` (exactly, as stored).
fn face_with_normal(p: &ConvexPolyhedron, n: DVec3) -> Feature {
    Feature::Face(p.faces().iter().position(|f| (f.normal - n).length() < 1e-15).unwrap() as u32)
}

// ------------------------------------------------------------------ point queries, exact

#[test]
fn cube_points_inside_outside_and_on_the_boundary() {
    let c = cube();
    let id = Pose::IDENTITY;
    let q = |p: DVec3| point_query(&c, &id, p).unwrap();

    let a = q(v(0.0, 0.0, 0.0));
    assert_eq!((a.containment, a.signed_distance), (Containment::Inside, -0.5));
    let a = q(v(0.125, -0.25, 0.375));
    assert_eq!((a.containment, a.signed_distance), (Containment::Inside, -0.125));
    assert_eq!(a.point, v(0.125, -0.25, 0.5));
    assert_eq!(a.feature, face_with_normal(&c, DVec3::Z));
    assert_eq!(a.distance(), 0.0);

    // Outside near a face, an edge, a vertex.
    let a = q(v(0.75, 0.125, -0.25));
    assert_eq!((a.containment, a.signed_distance), (Containment::Outside, 0.25));
    assert_eq!(
        (a.point, a.feature),
        (v(0.5, 0.125, -0.25), face_with_normal(&c, DVec3::X))
    );
    let a = q(v(0.75, 0.75, 0.125));
    assert_eq!(a.containment, Containment::Outside);
    assert!((a.signed_distance - 0.25 * 2f64.sqrt()).abs() < 1e-16);
    assert_eq!(a.point, v(0.5, 0.5, 0.125));
    assert_eq!(a.feature, edge_at(&c, v(0.5, 0.5, -0.5), v(0.5, 0.5, 0.5)));
    let a = q(v(1.5, -1.5, 1.5));
    assert_eq!(a.signed_distance, 3f64.sqrt());
    assert_eq!(
        (a.point, a.feature),
        (v(0.5, -0.5, 0.5), vertex_at(&c, v(0.5, -0.5, 0.5)))
    );

    // Exactly on a face, an edge, a vertex: the boundary, touching, the point itself.
    for (p, f) in [
        (v(0.5, 0.1, -0.3), face_with_normal(&c, DVec3::X)),
        (v(0.5, 0.5, 0.3), edge_at(&c, v(0.5, 0.5, -0.5), v(0.5, 0.5, 0.5))),
        (v(-0.5, 0.5, -0.5), vertex_at(&c, v(-0.5, 0.5, -0.5))),
    ] {
        let a = q(p);
        assert_eq!(a.containment, Containment::Boundary, "{p}");
        assert_eq!((a.signed_distance, a.point, a.feature), (0.0, p, f), "{p}");
        assert_eq!(a.status(point_contact_tolerance(&c, &id, p)), Status::Touching);
    }

    // One ulp either side of a face: exact containment, touching within the tolerance.
    let out = v(0.5f64.next_up(), 0.0, 0.0);
    let inn = v(0.5f64.next_down(), 0.0, 0.0);
    let (a, b) = (q(out), q(inn));
    assert_eq!(
        (a.containment, b.containment),
        (Containment::Outside, Containment::Inside)
    );
    assert!(a.signed_distance > 0.0 && a.signed_distance < 1e-15);
    assert!(b.signed_distance < 0.0 && b.signed_distance > -1e-15);
    assert_eq!(a.status(point_contact_tolerance(&c, &id, out)), Status::Touching);
    assert_eq!(b.status(point_contact_tolerance(&c, &id, inn)), Status::Touching);
    // Well inside and well outside.
    assert_eq!(q(v(0.0, 0.0, 0.25)).status(1e-14), Status::Overlapping);
    assert_eq!(q(v(0.0, 0.0, 0.75)).status(1e-14), Status::Disjoint);

    // Far away.
    let a = q(v(0.0, 1e6, 0.0));
    assert_eq!((a.signed_distance, a.point), (1e6 - 0.5, v(0.0, 0.5, 0.0)));
}

#[test]
fn tetrahedron_points_against_closed_forms() {
    let t =
        ConvexPolyhedron::from_arrays(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]).unwrap();
    let id = Pose::IDENTITY;
    // Beyond the slanted face x + y + z = 1: distance (3 − 1)/√3, foot (1/3, 1/3, 1/3).
    let a = point_query(&t, &id, v(1.0, 1.0, 1.0)).unwrap();
    assert_eq!(a.containment, Containment::Outside);
    assert!((a.signed_distance - 2.0 / 3f64.sqrt()).abs() < 1e-15);
    assert!((a.point - DVec3::splat(1.0 / 3.0)).length() < 1e-15);
    assert!(matches!(a.feature, Feature::Face(_)));
    // Inside: the nearest plane is x = 0 at 0.1 (the slanted one is 0.7/√3 away).
    let a = point_query(&t, &id, v(0.1, 0.2, 0.3)).unwrap();
    assert_eq!((a.containment, a.signed_distance), (Containment::Inside, -0.1));
    assert_eq!(a.point, v(0.0, 0.2, 0.3));
    // Beyond the edge x = y = 0 (the z axis), in its Voronoi region.
    let a = point_query(&t, &id, v(-1.0, -1.0, 0.5)).unwrap();
    assert_eq!(a.signed_distance, 2f64.sqrt());
    assert_eq!(a.point, v(0.0, 0.0, 0.5));
    assert_eq!(a.feature, edge_at(&t, v(0.0, 0.0, 0.0), v(0.0, 0.0, 1.0)));
    // The vertex (1, 0, 0) from beyond it.
    let a = point_query(&t, &id, v(2.0, -1.0, -1.0)).unwrap();
    assert_eq!(
        (a.point, a.feature),
        (v(1.0, 0.0, 0.0), vertex_at(&t, v(1.0, 0.0, 0.0)))
    );
    assert_eq!(a.signed_distance, 3f64.sqrt());
    // On the slanted face exactly (0.25 + 0.25 + 0.5 = 1).
    let a = point_query(&t, &id, v(0.25, 0.25, 0.5)).unwrap();
    assert_eq!((a.containment, a.signed_distance), (Containment::Boundary, 0.0));
}

#[test]
fn icosphere_points_radially() {
    let s = shapes::icosphere(3, 1.0).unwrap();
    let id = Pose::IDENTITY;
    // At a vertex (every vertex lies on the unit sphere): outward along it, the vertex.
    for k in [0u32, 7, 100, 641] {
        let w = s.vertex(k);
        let a = point_query(&s, &id, w * 2.0).unwrap();
        assert_eq!(a.feature, Feature::Vertex(k));
        assert!((a.signed_distance - w.length()).abs() < 1e-15);
        let b = point_query(&s, &id, w).unwrap();
        assert_eq!(
            (b.containment, b.feature, b.point),
            (Containment::Boundary, Feature::Vertex(k), w)
        );
    }
    let a = point_query(&s, &id, DVec3::ZERO).unwrap();
    assert_eq!(a.containment, Containment::Inside);
    let inradius = s.faces().iter().map(|f| f.offset).fold(f64::INFINITY, f64::min);
    assert_eq!(a.signed_distance, -inradius);
}

// ------------------------------------------------------------------ ray casts, exact

#[test]
fn cube_rays_faces_edges_vertices_grazing_and_misses() {
    let c = cube();
    let id = Pose::IDENTITY;
    let r = |o: DVec3, d: DVec3| ray_cast(&c, &id, o, d).unwrap();

    // A face, head on; t in units of |direction|.
    let h = r(v(-5.0, 0.1, 0.2), v(1.0, 0.0, 0.0)).unwrap();
    assert_eq!((h.t, h.point, h.normal), (4.5, v(-0.5, 0.1, 0.2), v(-1.0, 0.0, 0.0)));
    assert_eq!(h.feature, Some(face_with_normal(&c, -DVec3::X)));
    let h = r(v(-5.0, 0.1, 0.2), v(4.0, 0.0, 0.0)).unwrap();
    assert_eq!(h.t, 1.125);
    let h = r(v(-5.0, 0.1, 0.2), v(1e-300, 0.0, 0.0)).unwrap();
    assert!((h.t / 4.5e300 - 1.0).abs() < 1e-15);
    assert_eq!(h.point, v(-0.5, 0.1, 0.2));
    // An edge and a vertex, exactly.
    let h = r(v(0.25, 1.5, 1.5), v(0.0, -1.0, -1.0)).unwrap();
    assert_eq!(h.feature, Some(edge_at(&c, v(-0.5, 0.5, 0.5), v(0.5, 0.5, 0.5))));
    assert!((h.point - v(0.25, 0.5, 0.5)).length() < 1e-15 && (h.t - 1.0).abs() < 1e-15);
    let h = r(v(1.5, 1.5, 1.5), v(-2.0, -2.0, -2.0)).unwrap();
    assert_eq!(h.feature, Some(vertex_at(&c, v(0.5, 0.5, 0.5))));
    assert!((h.point - v(0.5, 0.5, 0.5)).length() < 1e-15 && (h.t - 0.5).abs() < 1e-15);
    // Tangent at an edge (the line touches the cube along nothing else): a hit; one ulp off:
    // a miss.
    let h = r(v(0.25, 1.5, -0.5), v(0.0, -1.0, 1.0)).unwrap();
    assert!((h.point - v(0.25, 0.5, 0.5)).length() < 1e-15 && (h.t - 1.0).abs() < 1e-15);
    assert_eq!(h.feature, Some(edge_at(&c, v(-0.5, 0.5, 0.5), v(0.5, 0.5, 0.5))));
    assert!(r(v(0.25, 1.5f64.next_up(), -0.5), v(0.0, -1.0, 1.0)).is_none());
    // Sliding along a face (in its plane): a hit where it reaches the face, at its edge; one
    // ulp outside the plane: a miss; one ulp inside: the face across.
    let h = r(v(-5.0, 0.5, 0.0), v(1.0, 0.0, 0.0)).unwrap();
    assert_eq!((h.t, h.point), (4.5, v(-0.5, 0.5, 0.0)));
    assert_eq!(h.feature, Some(edge_at(&c, v(-0.5, 0.5, -0.5), v(-0.5, 0.5, 0.5))));
    assert!(r(v(-5.0, 0.5f64.next_up(), 0.0), v(1.0, 0.0, 0.0)).is_none());
    let h = r(v(-5.0, 0.5f64.next_down(), 0.0), v(1.0, 0.0, 0.0)).unwrap();
    assert_eq!((h.t, h.feature), (4.5, Some(face_with_normal(&c, -DVec3::X))));
    // Along an edge's line: its nearer end.
    let h = r(v(-5.0, 0.5, 0.5), v(1.0, 0.0, 0.0)).unwrap();
    assert_eq!((h.t, h.feature), (4.5, Some(vertex_at(&c, v(-0.5, 0.5, 0.5)))));
    // Misses: away, beside, the chord behind the origin.
    assert!(r(v(-5.0, 0.0, 0.0), v(-1.0, 0.0, 0.0)).is_none());
    assert!(r(v(-5.0, 0.6, 0.0), v(1.0, 0.0, 0.0)).is_none());
    assert!(r(v(5.0, 0.0, 0.0), v(1.0, 0.0, 0.0)).is_none());
    // Starting inside: t = 0 at the origin, no normal, no feature.
    let h = r(v(0.1, 0.2, 0.3), v(0.0, 1.0, 0.0)).unwrap();
    assert_eq!(
        (h.t, h.point, h.normal, h.feature),
        (0.0, v(0.1, 0.2, 0.3), DVec3::ZERO, None)
    );
    // Starting on the surface, pointing in or out: t = 0, the face's normal.
    for d in [v(1.0, 0.0, 0.0), v(-1.0, 0.0, 0.0), v(0.0, 1.0, 0.0)] {
        let h = r(v(0.5, 0.1, 0.2), d).unwrap();
        assert_eq!((h.t, h.point, h.normal), (0.0, v(0.5, 0.1, 0.2), DVec3::X), "{d}");
        assert_eq!(h.feature, Some(face_with_normal(&c, DVec3::X)));
    }
    // On an edge: the face most opposed to the direction.
    let h = r(v(0.5, 0.5, 0.0), v(-1.0, -0.1, 0.0)).unwrap();
    assert_eq!((h.t, h.normal), (0.0, DVec3::X));
    assert_eq!(h.feature, Some(edge_at(&c, v(0.5, 0.5, -0.5), v(0.5, 0.5, 0.5))));
}

#[test]
fn rotated_and_translated_pose() {
    let c = cube();
    let pose = Pose::new(DQuat::from_rotation_z(std::f64::consts::FRAC_PI_4), v(10.0, 0.0, 0.0));
    let half_diag = 0.5 * 2f64.sqrt();
    // The cube turned 45° about z: its vertical edge at x = 10 − √2/2 faces −x.
    let h = ray_cast(&c, &pose, v(0.0, 0.0, 0.1), v(1.0, 0.0, 0.0))
        .unwrap()
        .unwrap();
    assert!((h.t - (10.0 - half_diag)).abs() < 1e-14, "{h:?}");
    let a = point_query(&c, &pose, v(0.0, 0.0, 0.1)).unwrap();
    assert!((a.signed_distance - (10.0 - half_diag)).abs() < 1e-14);
    assert!((a.point - v(10.0 - half_diag, 0.0, 0.1)).length() < 1e-14);
    let b = point_query(&c, &pose, v(10.0, 0.0, 0.1)).unwrap();
    assert_eq!(b.containment, Containment::Inside);
    assert!((b.signed_distance + 0.4).abs() < 1e-15); // the face z = 0.5
}

// ------------------------------------------------------------------ scales

#[test]
fn scales_and_far_from_the_origin() {
    for s in [1e-6, 1e-3, 1.0, 1e3, 1e6] {
        for far in [0.0, 1e6] {
            let c = shapes::cuboid(s, s, s).unwrap();
            let pose = Pose::from_translation(v(far, -far, far));
            let tol = 1e-12 * (s + far);
            let at = |p: DVec3| pose.transform_point(p * s);
            let a = point_query(&c, &pose, at(v(1.5, 0.25, 0.0))).unwrap();
            assert_eq!(a.containment, Containment::Outside);
            assert!((a.signed_distance - s).abs() <= tol, "{s} {far} {a:?}");
            assert!((a.point - at(v(0.5, 0.25, 0.0))).length() <= tol);
            let a = point_query(&c, &pose, at(v(0.25, 0.0, 0.0))).unwrap();
            assert_eq!(a.containment, Containment::Inside);
            assert!((a.signed_distance + 0.25 * s).abs() <= tol);
            let a = point_query(&c, &pose, at(v(1.5, 1.5, 0.0))).unwrap();
            assert!((a.signed_distance - s * 2f64.sqrt()).abs() <= tol);
            assert!(matches!(a.feature, Feature::Edge(_)));
            let h = ray_cast(&c, &pose, at(v(-3.0, 0.1, 0.2)), v(s, 0.0, 0.0))
                .unwrap()
                .unwrap();
            assert!((h.t - 2.5).abs() <= 1e-12 * (1.0 + far / s), "{s} {far} {h:?}");
            assert!((h.point - at(v(-0.5, 0.1, 0.2))).length() <= tol);
            assert!((h.normal + DVec3::X).length() < 1e-15);
            // Exact edge hits where the arithmetic is exact (power-of-two scales would be;
            // at these scales the edge is rounded: a hit on the edge or a face beside it).
            let h = ray_cast(&c, &pose, at(v(0.0, 1.5, 1.5)), v(0.0, -1.0, -1.0))
                .unwrap()
                .unwrap();
            assert!((h.point - at(v(0.0, 0.5, 0.5))).length() <= tol, "{s} {far} {h:?}");
            assert!(ray_cast(&c, &pose, at(v(0.0, 1.5, 1.5)), v(0.0, 1.0, -1.0))
                .unwrap()
                .is_none());
        }
    }
}

#[test]
fn power_of_two_scales_are_exact_outside_the_band() {
    let unit = cube();
    for k in [-200, 200] {
        let s = 2f64.powi(k);
        let big = shapes::cuboid(s, s, s).unwrap();
        let pose = Pose::from_translation(v(3.0, 0.0, 0.0) * s);
        let p = v(0.75, 0.6, -0.7);
        let (a1, ak) = (
            point_query(&unit, &Pose::from_translation(v(3.0, 0.0, 0.0)), p + v(3.0, 0.0, 0.0)).unwrap(),
            point_query(&big, &pose, (p + v(3.0, 0.0, 0.0)) * s).unwrap(),
        );
        assert_eq!(ak.signed_distance, a1.signed_distance * s);
        assert_eq!(ak.point, a1.point * s);
        assert_eq!(ak.feature, a1.feature);
        let o = v(-2.0, 0.1, 0.2);
        let d = v(1.0, 0.05, -0.01);
        let h1 = ray_cast(
            &unit,
            &Pose::from_translation(v(3.0, 0.0, 0.0)),
            o + v(3.0, 0.0, 0.0),
            d,
        )
        .unwrap()
        .unwrap();
        let hk = ray_cast(&big, &pose, (o + v(3.0, 0.0, 0.0)) * s, d).unwrap().unwrap();
        assert_eq!(hk.t, h1.t * s);
        assert_eq!((hk.normal, hk.feature), (h1.normal, h1.feature));
    }
}

// ------------------------------------------------------------------ the brute-force oracle

/// Unit outward normal and offset of face `f` from its vertices (independent of the stored
/// planes): Newell's normal of the polygon.
fn oracle_plane(p: &ConvexPolyhedron, f: u32) -> (DVec3, f64) {
    let vs = p.face_vertices(f);
    let mut n = DVec3::ZERO;
    for k in 0..vs.len() {
        let (a, b) = (p.vertex(vs[k]), p.vertex(vs[(k + 1) % vs.len()]));
        n += a.cross(b);
    }
    let n = n.normalize();
    (n, vs.iter().map(|&w| n.dot(p.vertex(w))).sum::<f64>() / vs.len() as f64)
}

/// Signed distance of `x` (local frame) by brute force: outside, the least distance to every
/// fan triangle; inside, minus the least depth below a face plane.
fn oracle_signed_distance(p: &ConvexPolyhedron, x: DVec3) -> f64 {
    let planes: Vec<_> = (0..p.faces().len() as u32).map(|f| oracle_plane(p, f)).collect();
    let height = planes
        .iter()
        .map(|(n, d)| n.dot(x) - d)
        .fold(f64::NEG_INFINITY, f64::max);
    if height <= 0.0 {
        return height;
    }
    let mut best = f64::INFINITY;
    for f in 0..p.faces().len() as u32 {
        let vs = p.face_vertices(f);
        for k in 1..vs.len() - 1 {
            let c = closest_on_triangle(x, p.vertex(vs[0]), p.vertex(vs[k]), p.vertex(vs[k + 1]));
            best = best.min((x - c).length());
        }
    }
    best
}

/// First hit of the ray `o + t·d` (local frame) on the fan triangles (Möller–Trumbore), and
/// whether the answer is certain: every crossing has barycentric weights away from 0 by a
/// margin, or every miss misses by one.
fn oracle_ray(p: &ConvexPolyhedron, o: DVec3, d: DVec3) -> (Option<f64>, bool) {
    const M: f64 = 1e-7;
    let mut best: Option<f64> = None;
    let mut certain = true;
    for f in 0..p.faces().len() as u32 {
        let vs = p.face_vertices(f);
        for k in 1..vs.len() - 1 {
            let (a, b, c) = (p.vertex(vs[0]), p.vertex(vs[k]), p.vertex(vs[k + 1]));
            let (e1, e2) = (b - a, c - a);
            let h = d.cross(e2);
            let det = e1.dot(h);
            if det.abs() < 1e-12 * e1.length() * e2.length() * d.length() {
                certain = false;
                continue;
            }
            let s = o - a;
            let u = s.dot(h) / det;
            let qv = s.cross(e1);
            let w = d.dot(qv) / det;
            let t = e2.dot(qv) / det;
            let weights = [u, w, 1.0 - u - w];
            // Fan diagonals inside a face: a crossing near them is no doubt of a hit.
            if weights.iter().all(|&x| x > M) {
                if t > M {
                    best = Some(best.map_or(t, |b: f64| b.min(t)));
                } else if t > -M {
                    certain = false;
                }
            } else if weights.iter().all(|&x| x > -M) {
                certain = false;
            }
        }
    }
    (best, certain)
}

#[test]
fn random_hulls_points_and_rays_against_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let (mut points, mut rays, mut hits, mut walks) = (0, 0, 0, 0);
    for case in 0..60 {
        let n = [8usize, 20, 60, 200, 1000][case % 5];
        let axes = v(
            rng.random_range(0.2..2.0),
            rng.random_range(0.2..2.0),
            rng.random_range(0.2..2.0),
        );
        let shape = shapes::ellipsoid(n, axes.x, axes.y, axes.z, case as u64).unwrap();
        let pose = Pose::new(
            shapes::random_rotation(&mut rng),
            v(
                rng.random_range(-5.0..5.0),
                rng.random_range(-5.0..5.0),
                rng.random_range(-5.0..5.0),
            ),
        );
        let scale = shape.scale() + pose.translation.length();
        let tol = 1e-12 * scale;
        for k in 0..200 {
            // Anywhere near the shape, or just off a face (both sides).
            let local = if k % 2 == 0 {
                v(
                    rng.random_range(-3.0..3.0),
                    rng.random_range(-3.0..3.0),
                    rng.random_range(-3.0..3.0),
                )
            } else {
                let f = rng.random_range(0..shape.faces().len() as u32);
                let vs = shape.face_vertices(f);
                let w: Vec<f64> = vs.iter().map(|_| rng.random_range(0.0..1.0)).collect();
                let sum: f64 = w.iter().sum();
                let on = vs
                    .iter()
                    .zip(&w)
                    .fold(DVec3::ZERO, |s, (&i, &x)| s + shape.vertex(i) * (x / sum));
                on + shape.face(f).normal * rng.random_range(-1e-3..1e-3)
            };
            let x = pose.transform_point(local);
            let a = point_query(&shape, &pose, x).unwrap();
            let want = oracle_signed_distance(&shape, pose.inverse_transform_point(x));
            points += 1;
            assert!(
                (a.signed_distance - want).abs() <= tol,
                "case {case} point {k}: {} vs oracle {want}",
                a.signed_distance
            );
            match a.containment {
                Containment::Inside => assert!(want <= tol),
                Containment::Outside => assert!(want >= -tol),
                Containment::Boundary => assert!(want.abs() <= tol),
                other => panic!("a variant this test does not know: {other:?}"),
            }
            // The closest point is at that distance and on its feature.
            assert!(((a.point - x).length() - a.signed_distance.abs()).abs() <= tol);
            let on = pose.inverse_transform_point(a.point);
            let off = match a.feature {
                Feature::Vertex(i) => (shape.vertex(i) - on).length(),
                Feature::Edge(e) => {
                    let [s, t] = shape.edge(e).vertices;
                    (polycd::geometry::closest_on_segment(on, shape.vertex(s), shape.vertex(t)).0 - on).length()
                }
                Feature::Face(f) => {
                    let vs = shape.face_vertices(f);
                    (1..vs.len() - 1)
                        .map(|j| {
                            let c = closest_on_triangle(
                                on,
                                shape.vertex(vs[0]),
                                shape.vertex(vs[j]),
                                shape.vertex(vs[j + 1]),
                            );
                            (c - on).length()
                        })
                        .fold(f64::INFINITY, f64::min)
                }
            };
            assert!(
                off <= tol,
                "case {case} point {k}: {:?} is {off} off its point",
                a.feature
            );
            walks += usize::from(a.containment == Containment::Outside);

            // A ray from here towards a random point near the shape.
            let target = pose.transform_point(v(
                rng.random_range(-2.5..2.5),
                rng.random_range(-2.5..2.5),
                rng.random_range(-2.5..2.5),
            ));
            let origin = pose.transform_point(local * 2.0);
            let dir = (target - origin) * rng.random_range(0.01..100.0);
            if dir == DVec3::ZERO {
                continue;
            }
            let hit = ray_cast(&shape, &pose, origin, dir).unwrap();
            let lo = pose.inverse_transform_point(origin);
            let ld = pose.inverse_transform_vector(dir);
            rays += 1;
            if oracle_signed_distance(&shape, lo) < -tol {
                let h = hit.expect("origin inside: a hit at t = 0");
                assert_eq!((h.t, h.point, h.feature), (0.0, origin, None));
                continue;
            }
            let (want, certain) = oracle_ray(&shape, lo, ld);
            if !certain {
                continue;
            }
            match (hit, want) {
                (None, None) => {}
                (Some(h), Some(t)) => {
                    hits += 1;
                    let tt = 1e-12 * scale / dir.length();
                    assert!(
                        (h.t - t).abs() <= tt * 1e3,
                        "case {case} ray {k}: t {} vs oracle {t}",
                        h.t
                    );
                    assert!((h.point - (origin + dir * h.t)).length() <= tol * 1e3);
                    assert!((h.normal.length() - 1.0).abs() < 1e-12);
                    assert!(h.normal.dot(dir) <= 1e-9 * dir.length(), "{h:?}");
                    let o2 = oracle_signed_distance(&shape, pose.inverse_transform_point(h.point));
                    assert!(o2.abs() <= tol * 1e3, "hit point {o2} off the boundary");
                }
                (h, t) => panic!("case {case} ray {k}: {h:?} vs oracle {t:?}"),
            }
        }
    }
    assert!(points >= 10_000 && rays >= 10_000 && hits >= 1_000 && walks >= 3_000);
    eprintln!("{points} points ({walks} outside), {rays} rays ({hits} hits compared)");
}

/// Rays aimed exactly at vertices and edge points of random hulls (their coordinates as
/// given): never a miss.
#[test]
fn rays_through_vertices_and_edges_of_random_hulls_hit() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for case in 0..20 {
        let shape = shapes::ellipsoid(50, 1.0, 0.7, 0.4, 100 + case).unwrap();
        for vi in 0..shape.vertices().len() as u32 {
            let w = shape.vertex(vi);
            let origin = w * 3.0 + v(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), 0.0);
            let h = ray_cast(&shape, &Pose::IDENTITY, origin, w - origin).unwrap();
            let h = h.unwrap_or_else(|| panic!("case {case}: the ray at vertex {vi} missed"));
            assert!(h.t <= 1.0 + 1e-12, "{h:?}");
        }
        for e in shape.edges() {
            let [a, b] = e.vertices;
            let mid = shape.vertex(a) + (shape.vertex(b) - shape.vertex(a)) * 0.5;
            let origin = mid * 4.0;
            let h = ray_cast(&shape, &Pose::IDENTITY, origin, mid - origin).unwrap();
            assert!(h.is_some(), "case {case}: the ray at an edge's midpoint missed");
        }
    }
}

// ------------------------------------------------------------------ bad input

#[test]
fn bad_input_is_a_typed_error() {
    let c = cube();
    let id = Pose::IDENTITY;
    let named = |e: PolycdError, want: &str| match e {
        PolycdError::InvalidOption { name, .. } => assert_eq!(name, want),
        other => panic!("{other:?}"),
    };
    named(point_query(&c, &id, v(f64::NAN, 0.0, 0.0)).unwrap_err(), "point");
    named(point_query(&c, &id, v(0.0, f64::INFINITY, 0.0)).unwrap_err(), "point");
    named(
        ray_cast(&c, &id, v(f64::NAN, 0.0, 0.0), DVec3::X).unwrap_err(),
        "origin",
    );
    assert_eq!(
        ray_cast(&c, &id, DVec3::ZERO, DVec3::ZERO).unwrap_err(),
        PolycdError::BadDirection
    );
    assert_eq!(
        ray_cast(&c, &id, DVec3::ZERO, v(1.0, f64::NAN, 0.0)).unwrap_err(),
        PolycdError::BadDirection
    );
    assert!(matches!(
        point_query(&c, &id, v(1e200, 0.0, 0.0)).unwrap_err(),
        PolycdError::AbsurdMagnitude { .. }
    ));
    let bad = Pose::new(DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0), DVec3::ZERO);
    assert_eq!(
        point_query(&c, &bad, DVec3::ZERO).unwrap_err(),
        PolycdError::ZeroQuaternion
    );
    assert_eq!(
        ray_cast(&c, &bad, DVec3::ZERO, DVec3::X).unwrap_err(),
        PolycdError::ZeroQuaternion
    );
    // A direction so short that t overflows.
    named(
        ray_cast(&c, &id, v(-1e10, 0.0, 0.0), v(1e-310, 0.0, 0.0)).unwrap_err(),
        "direction",
    );
}

/// Rounded shapes (issue 22 item 2 × item 6): point queries answer for the dilated surface
/// (closed forms on a rounded cube), ray casts hit the rounded surface.
#[test]
fn rounded_point_queries_and_refused_rays() {
    let r = 0.25;
    let cube = polycd::shapes::cuboid(1.0, 1.0, 1.0).unwrap().with_radius(r).unwrap();
    let id = Pose::IDENTITY;
    let q = |p: DVec3| point_query(&cube, &id, p).unwrap();
    // Outside a face: 2 − 0.5 − r, the closest point on the rounded face.
    let a = q(DVec3::new(2.0, 0.0, 0.0));
    assert_eq!(a.signed_distance, 1.25);
    assert_eq!(a.point, DVec3::new(0.75, 0.0, 0.0));
    assert_eq!(a.containment, Containment::Outside);
    // Outside an edge: the rounded edge is a cylinder of radius r about it.
    let a = q(DVec3::new(1.0, 1.0, 0.1));
    let d = (0.5f64 * 0.5 * 2.0).sqrt();
    assert!((a.signed_distance - (d - r)).abs() < 1e-15, "{a:?}");
    let want = DVec3::new(0.5, 0.5, 0.1) + DVec3::new(1.0, 1.0, 0.0).normalize() * r;
    assert!((a.point - want).length() < 1e-15, "{a:?}");
    // Inside: the core depth plus r, along the nearest face's normal.
    let a = q(DVec3::new(0.0, 0.0, 0.3));
    assert_eq!(a.containment, Containment::Inside);
    assert!((a.signed_distance + 0.45).abs() < 1e-15, "{a:?}");
    assert!((a.point - DVec3::new(0.0, 0.0, 0.75)).length() < 1e-15, "{a:?}");
    // On the core's corner: r inside the rounded shape.
    let a = q(DVec3::splat(0.5));
    assert_eq!(a.containment, Containment::Inside);
    assert_eq!(a.signed_distance, -r);
    // Exactly on the rounded face: touching.
    let a = q(DVec3::new(0.0, 0.75, 0.0));
    assert_eq!(a.signed_distance, 0.0);
    assert_eq!(a.containment, Containment::Boundary);
    // Far from the origin, at a pose: the same distances.
    let pose = Pose::from_translation(DVec3::new(1e6, -2e6, 3e6));
    let a = point_query(&cube, &pose, pose.transform_point(DVec3::new(2.0, 0.0, 0.0))).unwrap();
    assert!((a.signed_distance - 1.25).abs() < 1e-9, "{a:?}");
    // Rays hit the rounded surface: the face pushed out by r (3 − 0.75 = 2.25).
    let h = ray_cast(&cube, &id, DVec3::new(-3.0, 0.0, 0.0), DVec3::X)
        .unwrap()
        .unwrap();
    assert_eq!((h.t, h.normal), (2.25, -DVec3::X));
}
