//! Point queries and ray casts on closed meshes (`mesh::point_query`, `mesh::ray_cast`;
//! issue 22 item 6, issue 23) against brute-force oracles written here:
//! - closest point: the minimum over every triangle (`closest_on_triangle`);
//! - inside: signed ray crossings with exact `orient3d` signs over every triangle (retried
//!   along another direction when grazing);
//! - ray: Möller–Trumbore over every triangle, the smallest `t` (floating point; a ray the
//!   oracle and the library disagree on must pass within rounding of an edge).
//!
//! Literal answers on a U-shaped solid (points in its notch, on its faces, edges and
//! vertices exactly; rays into the notch, grazing an edge, starting inside and on the
//! surface). A few hundred random cases per family by default, 10⁴ with `--ignored`; scales
//! 1e-6…1e6 and 10⁶ from the origin.

use polycd::geometry::closest_on_triangle;
use polycd::mesh::{self, TriMesh};
use polycd::predicates::{orient3d, Orientation};
use polycd::query::Containment;
use polycd::{DQuat, DVec3, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn v(x: f64, y: f64, z: f64) -> DVec3 {
    DVec3::new(x, y, z)
}

/// The U profile `(0,0) (3,0) (3,2) (2,2) (2,1) (1,1) (1,2) (0,2)` in x–z extruded over
/// `y ∈ [0, 1]`, times `s`; the notch is `(1,2) × (0,1) × (1,2)`.
fn u_shape(s: f64) -> TriMesh {
    let profile = [
        (0.0, 0.0),
        (3.0, 0.0),
        (3.0, 2.0),
        (2.0, 2.0),
        (2.0, 1.0),
        (1.0, 1.0),
        (1.0, 2.0),
        (0.0, 2.0),
    ];
    let n = profile.len() as u32;
    let mut vs = Vec::new();
    for y in [0.0, 1.0] {
        for &(x, z) in &profile {
            vs.push(v(x, y, z) * s);
        }
    }
    let caps = [[0, 1, 4], [1, 2, 3], [1, 3, 4], [0, 4, 5], [0, 5, 6], [0, 6, 7]];
    let mut f: Vec<Vec<u32>> = Vec::new();
    for c in caps {
        f.push(vec![c[0], c[1], c[2]]);
        f.push(vec![c[0] + n, c[2] + n, c[1] + n]);
    }
    for i in 0..n {
        let j = (i + 1) % n;
        f.push(vec![j, i, i + n, j + n]);
    }
    TriMesh::new(&vs, &f).unwrap()
}

fn knot() -> TriMesh {
    let (v, f) = polycd::shapes::torus_knot(2, 3, 48, 8, 0.4).unwrap();
    TriMesh::new(&v, &f).unwrap()
}

fn world_tris(m: &TriMesh, p: &Pose) -> Vec<[DVec3; 3]> {
    m.triangles()
        .iter()
        .map(|t| t.map(|i| p.transform_point(m.vertices()[i as usize])))
        .collect()
}

/// Exact point-in-solid by signed crossings (None: on a triangle's plane inside it, or all
/// rays grazing).
fn inside(x: DVec3, tris: &[[DVec3; 3]]) -> Option<bool> {
    let dirs = [
        v(0.5377, 0.8339, 0.1245),
        v(-0.3221, 0.4142, 0.8513),
        v(0.7072, -0.5773, 0.4082),
        v(-0.6123, -0.2346, -0.7551),
    ];
    let far = tris.iter().flatten().map(|p| (*p - x).length()).fold(0.0, f64::max) * 4.0 + 1.0;
    'dir: for d in dirs {
        let q = x + d * far;
        let mut w = 0i32;
        for t in tris {
            let (sp, sq) = (orient3d(t[0], t[1], t[2], x), orient3d(t[0], t[1], t[2], q));
            if sp == Orientation::On || sp == sq {
                if sp == Orientation::On {
                    continue 'dir;
                }
                continue;
            }
            let s = [
                orient3d(x, q, t[0], t[1]),
                orient3d(x, q, t[1], t[2]),
                orient3d(x, q, t[2], t[0]),
            ];
            if s.contains(&Orientation::On) {
                if s.contains(&Orientation::Above) && s.contains(&Orientation::Below) {
                    continue;
                }
                continue 'dir;
            }
            if s.iter().all(|&o| o == s[0]) {
                w += if sp == Orientation::Below { 1 } else { -1 };
            }
        }
        return Some(w != 0);
    }
    None
}

fn nearest(x: DVec3, tris: &[[DVec3; 3]]) -> f64 {
    tris.iter()
        .map(|t| (closest_on_triangle(x, t[0], t[1], t[2]) - x).length())
        .fold(f64::INFINITY, f64::min)
}

/// Möller–Trumbore over every triangle: the smallest t ≥ 0 along the unit `u`.
fn ray_oracle(o: DVec3, u: DVec3, tris: &[[DVec3; 3]]) -> Option<f64> {
    let mut best: Option<f64> = None;
    for t in tris {
        let (e1, e2) = (t[1] - t[0], t[2] - t[0]);
        let p = u.cross(e2);
        let det = e1.dot(p);
        if det == 0.0 {
            continue;
        }
        let s = o - t[0];
        let a = s.dot(p) / det;
        let q = s.cross(e1);
        let b = u.dot(q) / det;
        let th = e2.dot(q) / det;
        if a >= 0.0 && b >= 0.0 && a + b <= 1.0 && th >= 0.0 && best.is_none_or(|x| th < x) {
            best = Some(th);
        }
    }
    best
}

#[test]
fn u_shape_literals() {
    let u = u_shape(1.0);
    let id = Pose::IDENTITY;
    let q = |p: DVec3| mesh::point_query(&u, &id, p).unwrap();
    // In the notch (outside the solid, inside its hull): 0.25 from the pillar at x = 1.
    let a = q(v(1.25, 0.5, 1.75));
    assert_eq!(
        (a.containment, a.signed_distance, a.point),
        (Containment::Outside, 0.25, v(1.0, 0.5, 1.75))
    );
    // In the base: 0.25 below the notch floor z = 1.
    let a = q(v(1.5, 0.5, 0.75));
    assert_eq!(
        (a.containment, a.signed_distance, a.point),
        (Containment::Inside, -0.25, v(1.5, 0.5, 1.0))
    );
    // Exactly on the floor, on an edge (the notch corner), and on a vertex.
    for p in [v(1.5, 0.5, 1.0), v(1.0, 0.5, 1.0), v(2.0, 1.0, 1.0)] {
        let a = q(p);
        assert_eq!(
            (a.containment, a.signed_distance, a.point),
            (Containment::Boundary, 0.0, p),
            "{p}"
        );
    }
    // One ulp above the floor: outside, in the notch.
    let a = q(v(1.5, 0.5, 1.0 + f64::EPSILON));
    assert_eq!(a.containment, Containment::Outside);
    // The input face of the closest triangle: the floor is side face 4 ((2,1)→(1,1)) + 12.
    let a = q(v(1.5, 0.5, 1.25));
    assert_eq!(u.input_face(a.triangle), 16);

    let r = |o: DVec3, d: DVec3| mesh::ray_cast(&u, &id, o, d).unwrap();
    // Down into the notch: the floor at z = 1.
    let h = r(v(1.5, 0.5, 5.0), v(0.0, 0.0, -2.0)).unwrap();
    assert_eq!((h.t, h.point, h.normal), (2.0, v(1.5, 0.5, 1.0), DVec3::Z));
    assert_eq!(u.input_face(h.triangle.unwrap()), 16);
    // Across the notch from the left pillar's inner wall side: the right pillar at x = 2.
    let h = r(v(1.25, 0.5, 1.5), DVec3::X).unwrap();
    assert_eq!((h.t, h.normal), (0.75, -DVec3::X));
    // From outside on the left, through the left pillar (first hit x = 0).
    let h = r(v(-1.0, 0.5, 1.5), DVec3::X).unwrap();
    assert_eq!((h.t, h.normal), (1.0, -DVec3::X));
    // Grazing the notch's top edge (1, y, 2) from above-left: a hit there.
    let h = r(v(0.0, 0.5, 3.0), v(1.0, 0.0, -1.0)).unwrap();
    assert!((h.point - v(1.0, 0.5, 2.0)).length() < 1e-15, "{h:?}");
    assert!((h.t - 1.0).abs() < 1e-15, "{h:?}");
    // Above the U, parallel: a miss. Starting inside: t = 0, no normal.
    assert!(r(v(-1.0, 0.5, 2.5), DVec3::X).is_none());
    let h = r(v(0.5, 0.5, 0.5), DVec3::X).unwrap();
    assert_eq!((h.t, h.normal, h.triangle), (0.0, DVec3::ZERO, None));
    // Starting on the floor, pointing up (out): t = 0, the floor's normal.
    let h = r(v(1.5, 0.5, 1.0), DVec3::Z).unwrap();
    assert_eq!((h.t, h.normal), (0.0, DVec3::Z));
}

fn family(m: &TriMesh, n: usize, seed: u64, what: &str) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for i in 0..n {
        let scale = 10f64.powi(rng.random_range(-6..=6));
        let offset = if i % 4 == 0 { v(1e6, -1e6, 5e5) } else { DVec3::ZERO };
        let rot = DQuat::from_euler(polycd::glam::EulerRot::XYZ, rng.random(), rng.random(), rng.random());
        // The mesh scaled by `scale` (its vertices), posed.
        let vs: Vec<DVec3> = m.vertices().iter().map(|p| *p * scale).collect();
        let faces: Vec<Vec<u32>> = m.triangles().iter().map(|t| t.to_vec()).collect();
        let sm = TriMesh::new(&vs, &faces).unwrap();
        let pose = Pose::new(rot, offset);
        let tris = world_tris(&sm, &pose);
        let c = pose.transform_point(sm.centroid());
        let spread = sm.scale() * 1.5;
        for _ in 0..4 {
            let x = c + v(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            ) * spread;
            let a = mesh::point_query(&sm, &pose, x).unwrap();
            let d = nearest(x, &tris);
            let tol = 1e-9 * (scale + offset.length() * 1e-9) + 1e-12 * offset.length();
            assert!(
                (a.signed_distance.abs() - d).abs() <= tol,
                "{what} case {i}: {} vs {d}",
                a.signed_distance
            );
            if let Some(inn) = inside(x, &tris) {
                if d > tol {
                    assert_eq!(a.containment == Containment::Inside, inn, "{what} case {i}: {x}");
                }
            }
            let dir = v(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            );
            if dir == DVec3::ZERO {
                continue;
            }
            let h = mesh::ray_cast(&sm, &pose, x, dir).unwrap();
            let u = dir / dir.length();
            match (h, a.containment) {
                (Some(h), Containment::Inside) => assert_eq!(h.t, 0.0),
                (h, _) => {
                    let want = ray_oracle(x, u, &tris);
                    match (h, want) {
                        (Some(h), Some(w)) => {
                            let got = h.t * dir.length();
                            assert!((got - w).abs() <= tol * 10.0, "{what} case {i}: ray {got} vs {w}");
                        }
                        (None, None) => {}
                        (g, w) => {
                            // Only a ray within rounding of an edge may differ.
                            let far = x + u * (spread * 8.0 + (x - c).length());
                            let graze = tris
                                .iter()
                                .flat_map(|t| (0..3).map(move |k| (t[k], t[(k + 1) % 3])))
                                .map(|(p, q)| {
                                    let (s, e) = polycd::geometry::closest_segment_segment(x, far, p, q);
                                    (s - e).length()
                                })
                                .fold(f64::INFINITY, f64::min);
                            assert!(graze <= tol * 10.0, "{what} case {i}: ray {g:?} vs oracle {w:?}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn u_shape_against_brute_force() {
    family(&u_shape(1.0), 60, 1, "u");
}

#[test]
fn knot_against_brute_force() {
    family(&knot(), 25, 2, "knot");
}

#[test]
#[ignore]
fn u_shape_against_brute_force_10k() {
    family(&u_shape(1.0), 2500, 3, "u");
}

#[test]
#[ignore]
fn knot_against_brute_force_10k() {
    family(&knot(), 2500, 4, "knot");
}
