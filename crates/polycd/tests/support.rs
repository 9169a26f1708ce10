//! The three support strategies (and the climb started from the direction table) agree with
//! the linear scan, including on ties.

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
    let t = p.support_climb_hinted(dir, warm);
    assert!(
        dir.dot(p.vertex(t)) >= best - tol,
        "{name}: hinted climb from {warm} along {dir}"
    );
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

/// The interleaved two-shape supports (hierarchy descents, hill-climbs) return exactly the
/// vertices of the single-shape calls, ties included.
#[test]
fn paired_supports_equal_single_ones() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let fams = families();
    for (na, a) in &fams {
        for (nb, b) in &fams {
            let (va, vb) = (a.vertices().len() as u32, b.vertices().len() as u32);
            let mut dirs: Vec<DVec3> = (0..2_000).map(|_| shapes::unit_vector(&mut rng)).collect();
            dirs.extend(a.faces().iter().take(200).map(|f| f.normal));
            dirs.extend([DVec3::X, DVec3::Y, DVec3::Z, -DVec3::X, -DVec3::Y, -DVec3::Z]);
            for (k, &d) in dirs.iter().enumerate() {
                let e = if k % 2 == 0 { -d } else { shapes::unit_vector(&mut rng) };
                assert_eq!(
                    a.support_hierarchy_pair(d, b, e),
                    (a.support_hierarchy(d), b.support_hierarchy(e)),
                    "{na} × {nb}: hierarchy along {d}, {e}"
                );
                let (sa, sb) = (rng.random_range(0..va), rng.random_range(0..vb));
                assert_eq!(
                    a.support_climb_pair(d, sa, b, e, sb),
                    (a.support_climb(d, sa), b.support_climb(e, sb)),
                    "{na} × {nb}: climb along {d} from {sa}, {e} from {sb}"
                );
            }
        }
    }
}

#[test]
fn hierarchy_is_logarithmic() {
    let p = shapes::ellipsoid(10_000, 200.0, 180.0, 180.0, 3).unwrap();
    let sizes = p.hierarchy().level_sizes();
    assert!(sizes.len() >= 4 && sizes.len() <= 40, "levels {sizes:?}");
    assert!(*sizes.last().unwrap() <= 64, "top level {sizes:?}");
}

/// The hierarchy has O(log n) levels: each level keeps at most 3/4 of the one below on
/// average (the build's greedy degree-ordered independent set removes about a third), and the
/// top level is small.
#[test]
fn hierarchy_shrinks_geometrically() {
    for (n, seed) in [(1000usize, 5u64), (10_000, 3)] {
        let p = shapes::ellipsoid(n, 200.0, 100.0, 100.0, seed).unwrap();
        let sizes = p.hierarchy().level_sizes();
        let (bottom, top) = (sizes[0] as f64, *sizes.last().unwrap() as f64);
        let levels = (sizes.len() - 1) as f64;
        assert!(levels >= 1.0, "n={n}: no hierarchy {sizes:?}");
        let mean_ratio = (top / bottom).powf(1.0 / levels);
        assert!(mean_ratio <= 0.75, "n={n}: mean shrink {mean_ratio} {sizes:?}");
        assert!(top <= 64.0, "n={n}: top level {sizes:?}");
        // Depth ≤ 2.5·log2(n): ~24 at 1 000, ~33 at 10 000; a 0.75 shrink gives far fewer.
        assert!(levels <= 2.5 * bottom.log2(), "n={n}: {sizes:?}");
        for w in sizes.windows(2) {
            assert!(w[1] < w[0], "n={n}: level did not shrink {sizes:?}");
        }
        eprintln!("n={n}: levels {sizes:?}, mean shrink {mean_ratio:.3}");
    }
}

/// The direction table's starts are valid for every direction, including degenerate ones
/// (zero, non-finite, exactly on cube-map cell borders), and a hinted climb from an
/// out-of-range warm vertex still finds the support.
#[test]
fn hinted_climb_handles_any_direction() {
    let p = shapes::ellipsoid(1000, 200.0, 100.0, 100.0, 1).unwrap();
    let n = p.vertices().len() as u32;
    for d in [
        DVec3::ZERO,
        DVec3::new(f64::NAN, 0.0, 1.0),
        DVec3::new(f64::INFINITY, 1.0, 0.0),
        DVec3::new(1.0, 1.0, 1.0),
        DVec3::new(-1.0, 1.0, -1.0),
        DVec3::new(1e-300, -1e-300, 0.0),
        DVec3::new(0.0, 0.0, -1e300),
    ] {
        let v = p.support_climb_hinted(d, u32::MAX);
        assert!(v < n, "start {v} for {d}");
        if d.is_finite() && d.length_squared() > 0.0 {
            let best = d.dot(p.vertex(p.support_scan(d)));
            assert!(d.dot(p.vertex(v)) >= best - 1e-12 * p.scale() * d.length(), "{d}");
        }
    }
}

/// Small hulls (≤ `SMALL_SCAN` vertices) answer climbs by a blocked scan: the start vertex
/// when it attains the maximum (or the direction is NaN), otherwise the first index attaining
/// it. Vertex counts 4–16 cover full and padded blocks; directions include exact ties.
#[test]
fn small_hull_scan_keeps_the_climb_rule() {
    let shapes = [
        shapes::tetrahedron(1.0).unwrap(),
        shapes::octahedron(1.0).unwrap(),
        shapes::prism(3, 1.0, 2.0).unwrap(),
        shapes::cuboid(1.0, 2.0, 3.0).unwrap(),
        shapes::prism(5, 1.0, 2.0).unwrap(),
        shapes::icosahedron(1.0).unwrap(),
        shapes::cone(12, 1.0, 1.0).unwrap(),
        shapes::prism(8, 1.0, 2.0).unwrap(),
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for p in &shapes {
        let n = p.vertices().len();
        assert!((4..=polycd::support::SMALL_SCAN).contains(&n), "{n} vertices");
        let mut dirs: Vec<DVec3> = (0..2_000).map(|_| shapes::unit_vector(&mut rng)).collect();
        dirs.extend([
            DVec3::X,
            DVec3::Y,
            DVec3::Z,
            -DVec3::X,
            -DVec3::Y,
            -DVec3::Z,
            DVec3::ZERO,
        ]);
        dirs.extend(p.faces().iter().map(|f| f.normal));
        for d in dirs {
            let dots: Vec<f64> = p.vertices().iter().map(|v| d.dot(*v)).collect();
            let max = dots.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let first = dots.iter().position(|&x| x == max).unwrap() as u32;
            for start in 0..n as u32 {
                let want = if dots[start as usize] == max { start } else { first };
                assert_eq!(p.support_climb(d, start), want, "{n} vertices, dir {d}, start {start}");
            }
            // Out-of-range starts begin at vertex 0.
            let want = if dots[0] == max { 0 } else { first };
            assert_eq!(p.support_climb(d, u32::MAX), want);
        }
        let nan = DVec3::new(f64::NAN, 0.0, 1.0);
        for start in 0..n as u32 {
            assert_eq!(p.support_climb(nan, start), start);
        }
    }
}
