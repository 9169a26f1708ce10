//! Issue 23 item 7: open surfaces (`mesh::TriSurface`, `mesh::surface::{intersect, distance}`)
//! against brute-force oracles written here (independent of the library's routines):
//! - distance: the minimum over **all** triangle pairs (the solid side triangulated), each pair
//!   by its vertex–triangle and segment–segment distances and an exact crossing test
//!   (`orient3d` signs);
//! - overlap with a solid: some triangle pair meets, or some surface vertex lies inside the
//!   solid (exact point-in-solid by signed ray crossings with `orient3d`).
//!
//! Families: the Jolt triangle–box pair, an open box (5 faces) around a small cube, a flat grid
//! under a box and a sphere, two crossing sheets, touching sheets; random poses (a few hundred
//! by default, 10⁴ with `--ignored`).

use polycd::mesh::surface::{self, Body};
use polycd::mesh::{MeshAnswer, Solid, SolidFeature, TriMesh, TriSurface};
use polycd::predicates::{orient3d, Orientation};
use polycd::{ConvexPolyhedron, DQuat, DVec3, PolycdError, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod common;
use common::tri::tri_tri;

/// Exact point-in-solid: signed crossings of a ray with the triangles, by `orient3d`.
fn inside(x: DVec3, tris: &[[DVec3; 3]]) -> bool {
    let dirs = [
        DVec3::new(0.5377, 0.8339, 0.1245),
        DVec3::new(-0.3221, 0.4142, 0.8513),
        DVec3::new(0.7072, -0.5773, 0.4082),
        DVec3::new(-0.6123, -0.2346, -0.7551),
    ];
    let far = tris.iter().flatten().map(|p| (*p - x).length()).fold(0.0, f64::max) * 4.0 + 1.0;
    'dir: for d in dirs {
        let q = x + d * far;
        let mut w = 0i32;
        for t in tris {
            let (sp, sq) = (orient3d(t[0], t[1], t[2], x), orient3d(t[0], t[1], t[2], q));
            if sp == Orientation::On {
                continue 'dir;
            }
            if sp == sq {
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
        return w != 0;
    }
    panic!("every ray grazes");
}

fn v(x: f64, y: f64, z: f64) -> DVec3 {
    DVec3::new(x, y, z)
}

/// An axis-aligned box `[lo, lo + size]`: 8 vertices, 6 outward quads (face 4, the top z, last
/// but one... see `open_box`).
fn box_faces(lo: DVec3, size: DVec3) -> (Vec<DVec3>, Vec<Vec<u32>>) {
    let p = (0..8)
        .map(|i| {
            lo + DVec3::new(
                if i & 1 == 0 { 0.0 } else { size.x },
                if i & 2 == 0 { 0.0 } else { size.y },
                if i & 4 == 0 { 0.0 } else { size.z },
            )
        })
        .collect();
    let f = vec![
        vec![0, 2, 3, 1],
        vec![0, 1, 5, 4],
        vec![2, 6, 7, 3],
        vec![0, 4, 6, 2],
        vec![1, 3, 7, 5],
        vec![4, 5, 7, 6],
    ];
    (p, f)
}

/// The box without its top (face 5, z = lo.z + size.z): an open box of 5 faces.
fn open_box(lo: DVec3, size: DVec3) -> (Vec<DVec3>, Vec<Vec<u32>>) {
    let (p, mut f) = box_faces(lo, size);
    f.pop();
    (p, f)
}

/// A flat n × n grid of cell `h` in z = 0 centred at the origin, two triangles per cell.
fn grid(n: u32, h: f64) -> (Vec<DVec3>, Vec<Vec<u32>>) {
    let off = 0.5 * h * n as f64;
    let mut p = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            p.push(v(i as f64 * h - off, j as f64 * h - off, 0.0));
        }
    }
    let mut f = Vec::new();
    let id = |i: u32, j: u32| j * (n + 1) + i;
    for j in 0..n {
        for i in 0..n {
            f.push(vec![id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            f.push(vec![id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
    (p, f)
}

fn surf(vf: &(Vec<DVec3>, Vec<Vec<u32>>)) -> TriSurface {
    TriSurface::new(&vf.0, &vf.1).unwrap()
}

fn surf_tris(s: &TriSurface, p: &Pose) -> Vec<[DVec3; 3]> {
    s.triangles()
        .iter()
        .map(|t| t.map(|k| p.transform_point(s.vertices()[k as usize])))
        .collect()
}

/// Triangles of a convex polyhedron's faces (fans), world frame.
fn convex_tris(c: &ConvexPolyhedron, p: &Pose) -> Vec<[DVec3; 3]> {
    let mut out = Vec::new();
    for f in 0..c.faces().len() as u32 {
        let vs = c.face_vertices(f);
        for k in 1..vs.len() - 1 {
            out.push([vs[0], vs[k], vs[k + 1]].map(|i| p.transform_point(c.vertex(i))));
        }
    }
    out
}

/// Oracle: (distance of the triangle sets, does some `a` vertex lie inside the closed `b`
/// (when `b_solid`) or some `b` vertex inside the closed `a` (when `a_solid`)).
fn oracle(a: &[[DVec3; 3]], a_solid: bool, b: &[[DVec3; 3]], b_solid: bool) -> (f64, bool) {
    let mut d = f64::INFINITY;
    for ta in a {
        for tb in b {
            d = d.min(tri_tri(*ta, *tb));
        }
    }
    let inside_b = b_solid && a.iter().flatten().any(|x| inside(*x, b));
    let inside_a = a_solid && b.iter().flatten().any(|x| inside(*x, a));
    (d, inside_b || inside_a)
}

fn tol(a: Body<'_>, pa: &Pose, b: Body<'_>, pb: &Pose) -> f64 {
    surface::surface_contact_tolerance(a, pa, b, pb).unwrap()
}

/// Checks distance and intersect against the oracle; returns 0 disjoint, 1 touching, 2 overlapping.
fn check(a: Body<'_>, pa: &Pose, b: Body<'_>, pb: &Pose, oracle_ans: (f64, bool), scale: f64, what: &str) -> usize {
    let t = tol(a, pa, b, pb);
    let (od, contained) = oracle_ans;
    let d = surface::distance(a, pa, b, pb).unwrap();
    let i = surface::intersect(a, pa, b, pb).unwrap();
    match d {
        MeshAnswer::Separated {
            distance,
            point_a,
            point_b,
            ..
        } => {
            assert!(
                !contained,
                "{what}: a vertex inside the solid, answer separated at {distance}"
            );
            assert!(
                (distance - od).abs() <= 1e-12 * scale,
                "{what}: distance {distance} vs oracle {od}"
            );
            assert!(
                ((point_a - point_b).length() - distance).abs() <= 1e-12 * scale,
                "{what}"
            );
            assert!(matches!(i, MeshAnswer::Separated { .. }), "{what}: intersect {i:?}");
            usize::from(distance <= t)
        }
        MeshAnswer::Overlapping { depth_lower_bound, .. } => {
            assert!(od == 0.0 || contained, "{what}: overlapping but oracle distance {od}");
            assert!(depth_lower_bound >= 0.0, "{what}");
            assert!(matches!(i, MeshAnswer::Overlapping { .. }), "{what}: intersect {i:?}");
            2
        }
        other => panic!("{what}: an answer this test does not know: {other:?}"),
    }
}

fn random_pose(rng: &mut ChaCha8Rng, centre: DVec3, spread: DVec3) -> Pose {
    let q = DQuat::from_xyzw(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    )
    .normalize();
    let t = centre
        + DVec3::new(
            rng.random_range(-1.0..1.0) * spread.x,
            rng.random_range(-1.0..1.0) * spread.y,
            rng.random_range(-1.0..1.0) * spread.z,
        );
    Pose::new(q, t)
}

// ---------------------------------------------------------------- literal cases

/// Jolt's `TestCollideShapeSmallTriangleVsLargeBox` (issue 22's literal float32 inputs) as a
/// one-triangle surface: disjoint at 0.06279043365680849 within 1e-12 × the box's size.
#[test]
fn jolt_triangle_surface_vs_box() {
    let tri = [
        v(-81.56375885009766, -126.98724365234375, -146.771728515625),
        v(-81.87499237060547, -127.27069091796875, -146.54440307617188),
        v(-81.69722747802734, -127.383544921875, -146.77325439453125),
    ];
    let bx = ConvexPolyhedron::from_points(&[
        v(125.93289184570312, -374.7122497558594, 364.1921691894531),
        v(319.4922180175781, -73.26144409179688, 475.0096130371094),
        v(-122.27754974365234, -152.20028686523438, 192.44143676757812),
        v(71.28178405761719, 149.25051879882812, 303.2588806152344),
        v(-77.89219665527344, -359.4107971191406, 678.5797119140625),
        v(115.6671371459961, -57.96000671386719, 789.3970947265625),
        v(-326.1026306152344, -136.89883422851562, 506.8289489746094),
        v(-132.54330444335938, 164.55197143554688, 617.6463623046875),
    ])
    .unwrap();
    let s = TriSurface::new(&tri, &[vec![0, 1, 2]]).unwrap();
    let pb = Pose::from_translation(v(3.305208265016094, 105.08014366154666, -490.9192765355902));
    let size = 649.5;
    let expected = 0.06279043365680849;
    let (od, inside) = oracle(&surf_tris(&s, &Pose::IDENTITY), false, &convex_tris(&bx, &pb), true);
    assert!(!inside && (od - expected).abs() <= 1e-12 * size, "oracle {od}");
    for (a, pa, b, pbb) in [
        (Body::Surface(&s), Pose::IDENTITY, Body::Solid(Solid::Convex(&bx)), pb),
        (Body::Solid(Solid::Convex(&bx)), pb, Body::Surface(&s), Pose::IDENTITY),
    ] {
        match surface::distance(a, &pa, b, &pbb).unwrap() {
            MeshAnswer::Separated { distance, features, .. } => {
                assert!((distance - expected).abs() <= 1e-12 * size, "{distance}");
                assert!(
                    features.0 == SolidFeature::Triangle(0) || features.1 == SolidFeature::Triangle(0),
                    "{features:?}"
                );
            }
            o => panic!("{o:?}"),
        }
    }
}

/// An open box (5 faces, no lid) of side 4 with a unit cube inside it: as a surface the cube is
/// apart from it (distance to the nearest wall: the floor at 1.0 below the cube); as a closed
/// mesh the box is refused, naming an open edge.
#[test]
fn open_box_with_a_cube_inside() {
    let ob = open_box(v(0.0, 0.0, 0.0), v(4.0, 4.0, 4.0));
    let s = surf(&ob);
    assert_eq!(s.open_edges(), 4);
    let cube = ConvexPolyhedron::from_points(&box_faces(v(1.5, 1.5, 1.0), v(1.0, 1.0, 1.0)).0).unwrap();
    let cube_mesh = {
        let (p, f) = box_faces(v(1.5, 1.5, 1.0), v(1.0, 1.0, 1.0));
        TriMesh::new(&p, &f).unwrap()
    };
    let id = Pose::IDENTITY;
    for b in [Solid::Convex(&cube), Solid::Mesh(&cube_mesh)] {
        match surface::distance(Body::Surface(&s), &id, Body::Solid(b), &id).unwrap() {
            MeshAnswer::Separated { distance, point_a, .. } => {
                assert_eq!(distance, 1.0);
                assert_eq!(point_a.z, 0.0);
            }
            o => panic!("{o:?}"),
        }
        assert!(matches!(
            surface::intersect(Body::Surface(&s), &id, Body::Solid(b), &id).unwrap(),
            MeshAnswer::Separated { .. }
        ));
    }
    // Moved down by 1.5 the cube crosses the floor: overlapping, depth bound 0.5 (the floor
    // triangle lies 0.5 deep in the cube: lifting it by 0.5 frees it).
    let down = Pose::from_translation(v(0.0, 0.0, -1.5));
    match surface::distance(Body::Surface(&s), &id, Body::Solid(Solid::Convex(&cube)), &down).unwrap() {
        MeshAnswer::Overlapping { depth_lower_bound, .. } => {
            assert!((depth_lower_bound - 0.5).abs() <= 1e-12, "{depth_lower_bound}")
        }
        o => panic!("{o:?}"),
    }
    // Resting on the floor (cube's bottom at z = 0): touching at distance 0.
    let rest = Pose::from_translation(v(0.0, 0.0, -1.0));
    match surface::distance(Body::Surface(&s), &id, Body::Solid(Solid::Convex(&cube)), &rest).unwrap() {
        MeshAnswer::Separated { distance, .. } => assert_eq!(distance, 0.0),
        o => panic!("{o:?}"),
    }
    // As a closed mesh: a typed error naming an open edge.
    match TriMesh::new(&ob.0, &ob.1) {
        Err(PolycdError::InvalidMesh(d)) => {
            let text = d.to_string();
            assert!(text.contains("open") || text.contains("one side"), "{text}");
        }
        o => panic!("{o:?}"),
    }
}

/// A flat 8 × 8 grid (cell 0.5) under a unit box and a sphere: distance = the height above
/// z = 0; lowered through the grid: overlapping.
#[test]
fn grid_under_a_box_and_a_sphere() {
    let g = surf(&grid(8, 0.5));
    let bx = ConvexPolyhedron::from_points(&box_faces(v(-0.3, -0.2, 0.0), v(1.0, 1.0, 1.0)).0).unwrap();
    let sphere = polycd::shapes::from_spec("icosphere:2:0.7").unwrap();
    let id = Pose::IDENTITY;
    for h in [0.25, 1e-3, 2.0] {
        let p = Pose::from_translation(v(0.1, 0.2, h));
        match surface::distance(Body::Surface(&g), &id, Body::Solid(Solid::Convex(&bx)), &p).unwrap() {
            MeshAnswer::Separated { distance, .. } => assert!((distance - h).abs() <= 1e-15, "{distance}"),
            o => panic!("{o:?}"),
        }
    }
    let p = Pose::from_translation(v(0.1, 0.2, -0.4));
    match surface::distance(Body::Surface(&g), &id, Body::Solid(Solid::Convex(&bx)), &p).unwrap() {
        MeshAnswer::Overlapping { depth_lower_bound, .. } => {
            assert!(
                depth_lower_bound > 0.0 && depth_lower_bound <= 0.6 + 1e-12,
                "{depth_lower_bound}"
            )
        }
        o => panic!("{o:?}"),
    }
    // The sphere (a polytope approximation) against the oracle at random heights and poses.
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let gt = surf_tris(&g, &id);
    for k in 0..40 {
        let p = random_pose(&mut rng, v(0.0, 0.0, 0.5), v(1.5, 1.5, 1.0));
        let o = oracle(&gt, false, &convex_tris(&sphere, &p), true);
        check(
            Body::Surface(&g),
            &id,
            Body::Solid(Solid::Convex(&sphere)),
            &p,
            o,
            4.0,
            &format!("grid/sphere {k}"),
        );
    }
}

/// Two sheets (2 × 2, two triangles each) crossing at right angles: overlapping with a positive
/// depth bound; moved apart: the exact gap; edge on edge: touching at 0.
#[test]
fn crossing_and_touching_sheets() {
    let sheet = (
        vec![
            v(-1.0, -1.0, 0.0),
            v(1.0, -1.0, 0.0),
            v(1.0, 1.0, 0.0),
            v(-1.0, 1.0, 0.0),
        ],
        vec![vec![0, 1, 2, 3]],
    );
    let s = surf(&sheet);
    let id = Pose::IDENTITY;
    // The second sheet stood up in the x–z plane (rotated 90° about x).
    let up = Pose::new(DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2), DVec3::ZERO);
    match surface::distance(Body::Surface(&s), &id, Body::Surface(&s), &up).unwrap() {
        MeshAnswer::Overlapping { depth_lower_bound, .. } => assert!(depth_lower_bound > 0.0),
        o => panic!("{o:?}"),
    }
    assert!(matches!(
        surface::intersect(Body::Surface(&s), &id, Body::Surface(&s), &up).unwrap(),
        MeshAnswer::Overlapping { .. }
    ));
    // Lifted so its lower edge (z = -1 + 1.25) is 0.25 above the first sheet.
    let lifted = Pose::new(up.rotation, v(0.0, 0.0, 1.25));
    match surface::distance(Body::Surface(&s), &id, Body::Surface(&s), &lifted).unwrap() {
        MeshAnswer::Separated { distance, features, .. } => {
            assert!((distance - 0.25).abs() <= 1e-15, "{distance}");
            assert!(matches!(
                features,
                (SolidFeature::Triangle(0), SolidFeature::Triangle(0))
            ));
        }
        o => panic!("{o:?}"),
    }
    // Lower edge exactly on the first sheet: touching (distance 0, not overlapping).
    let on = Pose::new(up.rotation, v(0.0, 0.0, 1.0));
    match surface::distance(Body::Surface(&s), &id, Body::Surface(&s), &on).unwrap() {
        MeshAnswer::Separated { distance, .. } => assert_eq!(distance, 0.0),
        o => panic!("{o:?}"),
    }
    // Side by side in one plane, sharing the edge x = 1: touching.
    let beside = Pose::from_translation(v(2.0, 0.0, 0.0));
    match surface::distance(Body::Surface(&s), &id, Body::Surface(&s), &beside).unwrap() {
        MeshAnswer::Separated { distance, .. } => assert_eq!(distance, 0.0),
        o => panic!("{o:?}"),
    }
}

/// A non-manifold input (three triangles on one edge) reads as a surface, and is refused as a
/// closed mesh.
#[test]
fn non_manifold_fan_is_a_surface() {
    let p = vec![
        v(0.0, 0.0, 0.0),
        v(0.0, 0.0, 1.0),
        v(1.0, 0.0, 0.0),
        v(-1.0, 0.5, 0.0),
        v(0.0, -1.0, 0.5),
    ];
    let f = vec![vec![0, 1, 2], vec![0, 1, 3], vec![0, 1, 4]];
    let s = TriSurface::new(&p, &f).unwrap();
    assert_eq!(s.nonmanifold_edges(), 1);
    assert!(TriMesh::new(&p, &f).is_err());
    let pt = ConvexPolyhedron::from_points(&[v(0.0, 0.0, 3.0)]).unwrap();
    match surface::distance(
        Body::Surface(&s),
        &Pose::IDENTITY,
        Body::Solid(Solid::Convex(&pt)),
        &Pose::IDENTITY,
    )
    .unwrap()
    {
        MeshAnswer::Separated { distance, .. } => assert!((distance - 2.0).abs() <= 1e-15),
        o => panic!("{o:?}"),
    }
}

// ---------------------------------------------------------------- random families

fn random_families(n: usize, seed: u64) -> [usize; 3] {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let ob = surf(&open_box(v(-1.0, -1.0, -1.0), v(2.0, 2.0, 2.0)));
    let g = surf(&grid(6, 0.4));
    let cube = ConvexPolyhedron::from_points(&box_faces(v(-0.3, -0.3, -0.3), v(0.6, 0.6, 0.6)).0).unwrap();
    let cube_mesh = {
        let (p, f) = box_faces(v(-0.3, -0.3, -0.3), v(0.6, 0.6, 0.6));
        TriMesh::new(&p, &f).unwrap()
    };
    let id = Pose::IDENTITY;
    let mut counts = [0; 3];
    for k in 0..n {
        // Open box vs cube (convex and mesh), grid vs open box (surface pair), grid vs grid.
        let p = random_pose(&mut rng, DVec3::ZERO, v(1.2, 1.2, 1.2));
        let obt = surf_tris(&ob, &id);
        let o = oracle(&obt, false, &convex_tris(&cube, &p), true);
        counts[check(
            Body::Surface(&ob),
            &id,
            Body::Solid(Solid::Convex(&cube)),
            &p,
            o,
            4.0,
            &format!("box/cube {k}"),
        )] += 1;
        check(
            Body::Solid(Solid::Mesh(&cube_mesh)),
            &p,
            Body::Surface(&ob),
            &id,
            o,
            4.0,
            &format!("cube mesh/box {k}"),
        );
        let q = random_pose(&mut rng, DVec3::ZERO, v(1.0, 1.0, 1.0));
        let o = oracle(&surf_tris(&g, &q), false, &obt, false);
        counts[check(
            Body::Surface(&g),
            &q,
            Body::Surface(&ob),
            &id,
            o,
            4.0,
            &format!("grid/box {k}"),
        )] += 1;
        let r = random_pose(&mut rng, DVec3::ZERO, v(0.8, 0.8, 0.8));
        let o = oracle(&surf_tris(&g, &q), false, &surf_tris(&g, &r), false);
        counts[check(
            Body::Surface(&g),
            &q,
            Body::Surface(&g),
            &r,
            o,
            4.0,
            &format!("grid/grid {k}"),
        )] += 1;
    }
    counts
}

#[test]
fn random_poses_against_brute_force() {
    let c = random_families(300, 23);
    // Both outcomes are exercised.
    assert!(c[0] > 30 && c[2] > 30, "{c:?}");
}

#[test]
#[ignore]
fn random_poses_against_brute_force_10k() {
    let c = random_families(10_000, 2323);
    eprintln!("disjoint/touching/overlapping: {c:?}");
}

/// A back-to-back pair (the same triangle in both windings; real meshes have them, e.g. a
/// double-sided sheet) is one triangle of a surface, reported as a duplicate; a closed mesh
/// drops both.
#[test]
fn back_to_back_pair_is_one_surface_triangle() {
    let p = vec![v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.0, 1.0, 0.0)];
    let s = TriSurface::new(&p, &[vec![0, 1, 2], vec![0, 2, 1]]).unwrap();
    assert_eq!(s.triangles().len(), 1);
    assert_eq!(s.repair().dropped_duplicates, vec![1]);
    let pt = ConvexPolyhedron::from_points(&[v(0.25, 0.25, -2.0)]).unwrap();
    match surface::distance(
        Body::Surface(&s),
        &Pose::IDENTITY,
        Body::Solid(Solid::Convex(&pt)),
        &Pose::IDENTITY,
    )
    .unwrap()
    {
        MeshAnswer::Separated { distance, features, .. } => {
            assert_eq!(distance, 2.0);
            assert_eq!(features.0, SolidFeature::Triangle(0));
        }
        o => panic!("{o:?}"),
    }
}

/// A sliver (corners nearly collinear: refused by a closed mesh as degenerate; found in a
/// real quadruped leg mesh) is kept by a surface and measured exactly.
#[test]
fn sliver_triangle_is_kept() {
    let p = vec![v(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(1.0, 1e-13, 0.0), v(0.0, 1.0, 0.0)];
    let f = vec![vec![0, 1, 2], vec![0, 2, 3]];
    let s = TriSurface::new(&p, &f).unwrap();
    assert_eq!(s.triangles().len(), 2);
    let pt = ConvexPolyhedron::from_points(&[v(1.0, -0.5, 0.0)]).unwrap();
    match surface::distance(
        Body::Surface(&s),
        &Pose::IDENTITY,
        Body::Solid(Solid::Convex(&pt)),
        &Pose::IDENTITY,
    )
    .unwrap()
    {
        MeshAnswer::Separated { distance, features, .. } => {
            assert!((distance - 0.5).abs() <= 1e-15, "{distance}");
            assert_eq!(features.0, SolidFeature::Triangle(0));
        }
        o => panic!("{o:?}"),
    }
}
