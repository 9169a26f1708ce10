//! The three support strategies agree with the linear scan, including on ties.

use polycd::support::{Hierarchy, HillClimb, Scan, SupportMap};
use polycd::{shapes, ConvexPolyhedron, DVec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn families() -> Vec<(&'static str, ConvexPolyhedron)> {
    vec![
        ("cube", shapes::cuboid(1.0, 2.0, 3.0).unwrap()),
        ("icosahedron", shapes::icosahedron(1.0).unwrap()),
        ("disk", shapes::prism(60, 10.0, 1.0).unwrap()),
        ("icosphere3", shapes::icosphere(3, 1.0).unwrap()),
        ("cone", shapes::cone(100, 1.0, 3.0).unwrap()),
        (
            "ellipsoid1000",
            shapes::ellipsoid(1000, 200.0, 100.0, 100.0, 1).unwrap(),
        ),
        ("needle", shapes::ellipsoid(500, 200.0, 2.0, 2.0, 2).unwrap()),
        (
            "ellipsoid10000",
            shapes::ellipsoid(10_000, 200.0, 180.0, 180.0, 3).unwrap(),
        ),
    ]
}

fn check(p: &ConvexPolyhedron, dir: DVec3, warm: u32, name: &str) {
    let best = dir.dot(p.vertex(Scan(p).support(dir, 0)));
    let tol = 1e-12 * p.scale() * dir.length();
    let c = HillClimb(p).support(dir, warm);
    let h = Hierarchy(p).support(dir, warm);
    assert!(
        dir.dot(p.vertex(c)) >= best - tol,
        "{name}: climb from {warm} along {dir}"
    );
    assert!(dir.dot(p.vertex(h)) >= best - tol, "{name}: hierarchy along {dir}");
}

#[test]
fn strategies_agree_on_random_and_tied_directions() {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    for (name, p) in families() {
        let n = p.vertices().len() as u32;
        let count = if n > 5000 { 20_000 } else { 100_000 };
        for _ in 0..count {
            let d = shapes::unit_vector(&mut rng);
            check(&p, d, rng.random_range(0..n), name);
        }
        // Ties: exactly normal to faces and edges.
        for f in 0..p.faces().len() as u32 {
            check(&p, p.face(f).normal, rng.random_range(0..n), name);
            check(&p, -p.face(f).normal, rng.random_range(0..n), name);
        }
        for e in p.edges() {
            let [l, r] = e.faces;
            let d = p.face(l).normal + p.face(r).normal;
            check(&p, d, rng.random_range(0..n), name);
        }
        // Axis directions (ties on boxes and prisms).
        for d in [DVec3::X, DVec3::Y, DVec3::Z, -DVec3::X, -DVec3::Y, -DVec3::Z] {
            check(&p, d, rng.random_range(0..n), name);
        }
    }
}

#[test]
fn hierarchy_is_logarithmic() {
    let p = shapes::ellipsoid(10_000, 200.0, 180.0, 180.0, 3).unwrap();
    let sizes = p.hierarchy().level_sizes(&p);
    assert!(sizes.len() >= 4 && sizes.len() <= 40, "levels {sizes:?}");
    assert!(*sizes.last().unwrap() <= 64, "top level {sizes:?}");
}
