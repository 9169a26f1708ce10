//! HS-jump against the brute-force oracle, with every certificate checked independently.
//!
//! - `differential_near_contact`: ~10⁴ seeded random pairs over the small families (cube,
//!   tetrahedron, icosahedron, the 60-gon disk, icospheres 1–2, ellipsoid hulls of 30–80
//!   points incl. needles 200:20:20 and 200:2:2), random rotations, offsets concentrated near
//!   contact (|gap| ≤ 1e-6·size) plus a share of far offsets; boolean agreement with
//!   `oracle::signed_distance` outside the contact band, certificates verified always.
//! - `exact_contact_cases`: face/edge/vertex contacts that are exact in floating point.
//! - `sphere_theorems`: icospheres (subdivision 3 and 4) answer within a few iterations.
//!   Observed maximum (2026-11-25): 1 iteration when separated (Theorem 2 with the
//!   centre-line start), 5 when overlapping (Theorem 4's two iterations, plus a few to close
//!   the spherical polygon that the facets keep open: r₁ is only nearly −r₀; 8 before the
//!   far-outside rule of the module's *Departures*).
//! - `adversarial_termination`: needles, flat disks, near-touching parallel faces.
//! - `coherence_sequence`: a moving pair with one cache; warm queries agree and are cheaper.
//! - `differential_large` (`#[ignore]`): 10⁵ pairs; run with
//!   `cargo test -p polycd --release --test hs_jump -- --ignored`. Last run (2026-11-25,
//!   through `query::intersect`, which measures contact-band answers with GJK): no wrong
//!   answer; 39 459 disjoint, 36 837 overlapping, 23 704 in the contact band or unchecked
//!   (20 000 `Touching`, 0 `NotConverged`); at most 27 iterations (mean 6.9) and 18
//!   spherical-polygon edges (2026-11-22, before the far-outside rule: 45 and 28).
//!
//! Timing of the §9 shapes is the bench's `ellipsoid-sweep` scenario.

mod common;

use common::random_pose;
use polycd::geometry::{closest_on_segment, closest_on_triangle};
use polycd::predicates::{orient3d, Orientation};
use polycd::query::{contact_tolerance, pair_scale};
use polycd::{oracle, query, shapes, Algorithm, ConvexPolyhedron, DQuat, DVec3, Intersection, OverlapWitness};
use polycd::{PairCache, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

struct Shape {
    name: String,
    poly: ConvexPolyhedron,
}

fn small_families(rng: &mut ChaCha8Rng) -> Vec<Shape> {
    let mut v = vec![
        ("cube".to_string(), shapes::cuboid(1.0, 1.0, 1.0).unwrap()),
        ("box".to_string(), shapes::cuboid(0.5, 1.0, 2.0).unwrap()),
        ("tetrahedron".to_string(), shapes::tetrahedron(1.0).unwrap()),
        ("icosahedron".to_string(), shapes::icosahedron(1.0).unwrap()),
        ("disk".to_string(), shapes::prism(60, 10.0, 1.0).unwrap()),
        ("icosphere1".to_string(), shapes::icosphere(1, 1.0).unwrap()),
        ("icosphere2".to_string(), shapes::icosphere(2, 1.0).unwrap()),
    ];
    for (k, (a, b, c)) in [
        (1.0, 0.9, 0.9),
        (1.0, 0.5, 0.5),
        (1.0, 0.1, 0.1),
        (1.0, 0.01, 0.01),
        (0.5, 1.0, 0.2),
    ]
    .into_iter()
    .enumerate()
    {
        let n = rng.random_range(30..=80);
        v.push((
            format!("ellipsoid{n}:{a}:{b}:{c}"),
            shapes::ellipsoid(n, a, b, c, 100 + k as u64).unwrap(),
        ));
    }
    v.into_iter().map(|(name, poly)| Shape { name, poly }).collect()
}

fn world(p: &ConvexPolyhedron, pose: &Pose) -> Vec<DVec3> {
    p.vertices().iter().map(|&v| pose.transform_point(v)).collect()
}

/// Distance from the origin to the convex hull of ≤ 4 points.
fn origin_distance(pts: &[DVec3]) -> f64 {
    let o = DVec3::ZERO;
    match pts.len() {
        1 => pts[0].length(),
        2 => closest_on_segment(o, pts[0], pts[1]).0.length(),
        3 => closest_on_triangle(o, pts[0], pts[1], pts[2]).length(),
        4 => {
            let s = [
                orient3d(pts[0], pts[1], pts[2], o),
                orient3d(pts[0], pts[1], pts[2], pts[3]),
                orient3d(pts[0], pts[1], pts[3], o),
                orient3d(pts[0], pts[1], pts[3], pts[2]),
                orient3d(pts[0], pts[2], pts[3], o),
                orient3d(pts[0], pts[2], pts[3], pts[1]),
                orient3d(pts[1], pts[2], pts[3], o),
                orient3d(pts[1], pts[2], pts[3], pts[0]),
            ];
            let inside = s
                .chunks(2)
                .all(|c| c[1] != Orientation::On && (c[0] == c[1] || c[0] == Orientation::On));
            if inside {
                return 0.0;
            }
            [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]
                .iter()
                .map(|t| closest_on_triangle(o, pts[t[0]], pts[t[1]], pts[t[2]]).length())
                .fold(f64::INFINITY, f64::min)
        }
        _ => f64::INFINITY,
    }
}

/// Checks a certificate independently; returns the status ('D' or 'O') or 'N'.
fn verify(r: &Intersection, a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose, what: &str) -> char {
    let scale = pair_scale(a, pa, b, pb);
    let tol = 1e-13 * scale;
    match r {
        Intersection::Disjoint { plane, .. } => {
            assert!((plane.normal.length() - 1.0).abs() < 1e-12, "{what}: normal not unit");
            let max_a = world(a, pa)
                .iter()
                .map(|&p| plane.signed_distance(p))
                .fold(f64::MIN, f64::max);
            let min_b = world(b, pb)
                .iter()
                .map(|&p| plane.signed_distance(p))
                .fold(f64::MAX, f64::min);
            assert!(
                max_a <= tol && min_b >= -tol,
                "{what}: plane does not separate: max A {max_a:e}, min B {min_b:e} (tol {tol:e})"
            );
            'D'
        }
        Intersection::Overlapping { witness, .. } => {
            let OverlapWitness::Simplex(s) = witness else {
                panic!("{what}: HS-jump returns simplex witnesses");
            };
            assert!((1..=4).contains(&s.len), "{what}: simplex size {}", s.len);
            let pts: Vec<DVec3> = s
                .pairs()
                .iter()
                .map(|&(i, j)| pa.transform_point(a.vertex(i)) - pb.transform_point(b.vertex(j)))
                .collect();
            let d = origin_distance(&pts);
            assert!(d <= tol, "{what}: simplex misses the origin by {d:e} (tol {tol:e})");
            'O'
        }
        Intersection::Touching { point, plane, .. } => {
            // Certified only within the contact tolerance: the plane separates up to it, and
            // the point is within it of both shapes.
            let tol = 2.0 * contact_tolerance(a, pa, b, pb);
            let max_a = world(a, pa)
                .iter()
                .map(|&p| plane.signed_distance(p))
                .fold(f64::MIN, f64::max);
            let min_b = world(b, pb)
                .iter()
                .map(|&p| plane.signed_distance(p))
                .fold(f64::MAX, f64::min);
            assert!(
                max_a <= tol && min_b >= -tol,
                "{what}: touching plane: {max_a:e} {min_b:e}"
            );
            for (s, pose) in [(a, pa), (b, pb)] {
                for f in 0..s.faces().len() as u32 {
                    let h = s.face_plane(f).transformed(pose).signed_distance(*point);
                    assert!(h <= tol, "{what}: touching point {h:e} outside a face");
                }
            }
            'T'
        }
        Intersection::NotConverged { .. } => 'N',
        other => panic!("a variant this test does not know: {other:?}"),
    }
}

fn hs(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose, cache: &mut PairCache) -> Intersection {
    query::intersect(a, pa, b, pb, Algorithm::HsJump, cache).unwrap()
}

#[derive(Default, Debug)]
struct Tally {
    pairs: usize,
    disjoint: usize,
    overlapping: usize,
    band: usize,
    touching: usize,
    not_converged: usize,
    max_iterations: u32,
    max_iterations_disjoint: u32,
    max_iterations_overlapping: u32,
    total_iterations: u64,
    max_polygon: usize,
}

impl Tally {
    fn add(&mut self, r: &Intersection, cache: &PairCache) {
        self.pairs += 1;
        self.max_iterations = self.max_iterations.max(r.iterations());
        match r {
            Intersection::Disjoint { iterations, .. } => {
                self.max_iterations_disjoint = self.max_iterations_disjoint.max(*iterations)
            }
            Intersection::Overlapping { iterations, .. } => {
                self.max_iterations_overlapping = self.max_iterations_overlapping.max(*iterations)
            }
            _ => {}
        }
        self.total_iterations += r.iterations() as u64;
        self.max_polygon = self
            .max_polygon
            .max(cache.hs_jump.get().map_or(0, |c| c.last_polygon_size));
    }
}

/// Runs one configuration: expected sign from the oracle (when `check_oracle`) or from the
/// construction (`expected`: signed distance by construction, trusted when far above rounding).
#[allow(clippy::too_many_arguments)]
fn run_case(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    expected: Option<f64>,
    check_oracle: bool,
    tally: &mut Tally,
    what: &str,
) {
    let mut cache = PairCache::default();
    let r = hs(&a.poly, pa, &b.poly, pb, &mut cache);
    tally.add(&r, &cache);
    let bound = 2 * a.poly.vertices().len() as u64 * b.poly.vertices().len() as u64;
    assert!(
        r.iterations() as u64 <= bound,
        "{what}: {} iterations > bound {bound}",
        r.iterations()
    );
    let what = format!("{what} [{} vs {}]", a.name, b.name);
    let status = verify(&r, &a.poly, pa, &b.poly, pb, &what);
    let tol = contact_tolerance(&a.poly, pa, &b.poly, pb);
    let sd = if check_oracle {
        let o = oracle::signed_distance(&a.poly, pa, &b.poly, pb)
            .unwrap()
            .signed_distance;
        if let Some(e) = expected {
            if e.abs() > 1e3 * tol {
                assert_eq!(o > 0.0, e > 0.0, "{what}: construction {e:e} vs oracle {o:e}");
            }
        }
        o
    } else {
        expected.unwrap_or(0.0)
    };
    if sd > tol {
        assert_eq!(status, 'D', "{what}: signed distance {sd:e} > tol {tol:e} but {r:?}");
        tally.disjoint += 1;
    } else if sd < -tol {
        assert_eq!(status, 'O', "{what}: signed distance {sd:e} < -tol {tol:e} but {r:?}");
        tally.overlapping += 1;
    } else {
        tally.band += 1;
        if status == 'N' {
            tally.not_converged += 1;
        }
        if status == 'T' {
            tally.touching += 1;
        }
    }
    if sd.abs() > tol {
        assert_ne!(status, 'N', "{what}: not converged at signed distance {sd:e}");
    }
}

/// `count` base configurations; each is moved so that the signed distance is one of several
/// near-contact gaps (|gap| ≤ 1e-6·size, by construction from the oracle's nearest point of
/// A − B), plus the base configuration itself (far offsets).
fn differential(seed: u64, count: usize, tally: &mut Tally) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let fams = small_families(&mut rng);
    for case in 0..count {
        let a = &fams[rng.random_range(0..fams.len())];
        let b = &fams[rng.random_range(0..fams.len())];
        let size = a.poly.scale() + b.poly.scale();
        let pa = random_pose(&mut rng, size);
        let mut pb = random_pose(&mut rng, size);
        pb.translation = pa.translation + shapes::unit_vector(&mut rng) * size * rng.random_range(0.0..1.2);
        let base = oracle::signed_distance(&a.poly, &pa, &b.poly, &pb).unwrap();
        run_case(
            a,
            &pa,
            b,
            &pb,
            Some(base.signed_distance),
            false,
            tally,
            &format!("case {case} base"),
        );
        if base.nearest.length() < 1e-9 * size {
            continue;
        }
        // Outward normal of A − B at `nearest`.
        let u = if base.signed_distance > 0.0 {
            -base.nearest.normalize()
        } else {
            base.nearest.normalize()
        };
        for k in 0..4 {
            let mag = size * 10f64.powf(rng.random_range(-12.0..-6.0));
            let gap = match k {
                0 => mag,
                1 => -mag,
                2 => 0.0,
                _ => rng.random_range(-1e-6..1e-6) * size,
            };
            let delta = base.nearest + u * gap;
            let pb2 = Pose::new(pb.rotation, pb.translation + delta);
            // A positive gap is exact by construction (the outward normal cone); a negative one
            // is only known to be ≤ 0 away from M's faces, so the oracle decides when cheap.
            let check = a.poly.vertices().len() * b.poly.vertices().len() <= 6400 && gap < 0.0;
            let expected = (gap >= 0.0).then_some(gap);
            run_case(
                a,
                &pa,
                b,
                &pb2,
                expected,
                check,
                tally,
                &format!("case {case} gap {gap:e}"),
            );
        }
    }
}

#[test]
fn differential_near_contact() {
    let mut t = Tally::default();
    differential(1, 2000, &mut t);
    eprintln!("differential_near_contact: {t:?}");
    assert!(t.pairs >= 9000);
    assert!(t.not_converged * 1000 <= t.pairs, "{t:?}");
}

/// 10⁵ pairs. Run with `cargo test -p polycd --release --test hs_jump -- --ignored`.
#[test]
#[ignore]
fn differential_large() {
    let mut t = Tally::default();
    differential(2, 20_000, &mut t);
    eprintln!("differential_large: {t:?}");
    assert!(t.not_converged * 1000 <= t.pairs, "{t:?}");
}

#[test]
fn exact_contact_cases() {
    let cube = Shape {
        name: "cube".into(),
        poly: shapes::cuboid(1.0, 1.0, 1.0).unwrap(),
    };
    let tet = Shape {
        name: "tet".into(),
        poly: shapes::tetrahedron(1.0).unwrap(),
    };
    let mut t = Tally::default();
    let id = Pose::IDENTITY;
    // Face-face, edge-face, vertex-vertex, edge-edge contacts of unit cubes (exact in floats).
    let offsets = [
        DVec3::new(1.0, 0.0, 0.0),
        DVec3::new(1.0, 0.5, 0.0),
        DVec3::new(1.0, 0.25, 0.75),
        DVec3::new(1.0, 1.0, 0.0),
        DVec3::new(1.0, 1.0, 1.0),
        DVec3::new(0.0, 0.0, -1.0),
        DVec3::new(1.0, 0.0, 0.0) * (1.0 + f64::EPSILON),
        DVec3::new(1.0, 0.0, 0.0) * (1.0 - f64::EPSILON / 2.0),
    ];
    for (k, o) in offsets.iter().enumerate() {
        for s in [1.0, -1.0] {
            let pb = Pose::from_translation(*o * s);
            run_case(&cube, &id, &cube, &pb, None, true, &mut t, &format!("cube offset {k}"));
        }
    }
    // A cube resting edge-down on a cube (45° about z), and tetrahedra vertex-on-face.
    let r45 = DQuat::from_rotation_z(std::f64::consts::FRAC_PI_4);
    let h = 0.5 + 0.5 * std::f64::consts::SQRT_2;
    run_case(
        &cube,
        &id,
        &cube,
        &Pose::new(r45, DVec3::new(h, 0.0, 0.0)),
        None,
        true,
        &mut t,
        "cube on edge",
    );
    let s = 1.0 / 3f64.sqrt();
    // Tetrahedron vertex (s,s,s) against the cube face x = 0.5 from outside.
    run_case(
        &cube,
        &id,
        &tet,
        &Pose::from_translation(DVec3::new(0.5 + s, 0.0, 0.0)),
        None,
        true,
        &mut t,
        "tet",
    );
    eprintln!("exact_contact_cases: {t:?}");
    assert_eq!(t.not_converged, 0);
}

#[test]
fn sphere_theorems() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut worst = [0u32; 2];
    for (k, sub) in [3u32, 4].into_iter().enumerate() {
        let s = Shape {
            name: format!("icosphere{sub}"),
            poly: shapes::icosphere(sub, 1.0).unwrap(),
        };
        let mut t = Tally::default();
        for case in 0..400 {
            let pa = random_pose(&mut rng, 5.0);
            let dir = shapes::unit_vector(&mut rng);
            // Centre distance: overlapping (0.1 … 1.9) or separated (2.1 … 4).
            let dist = if case % 2 == 0 {
                rng.random_range(0.1..1.9)
            } else {
                rng.random_range(2.1..4.0)
            };
            let pb = Pose::new(shapes::random_rotation(&mut rng), pa.translation + dir * dist);
            run_case(
                &s,
                &pa,
                &s,
                &pb,
                Some(dist - 2.0),
                false,
                &mut t,
                &format!("{} case {case}", s.name),
            );
        }
        eprintln!("sphere_theorems icosphere{sub}: {t:?}");
        worst[k] = t.max_iterations;
    }
    // Theorems 2 and 4: two iterations for exact spheres; the faceted icospheres stay close.
    assert!(worst.iter().all(|&w| w <= 10), "max iterations {worst:?}");
}

#[test]
fn adversarial_termination() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let fams = [
        ("needle200:20:20", shapes::ellipsoid(200, 2.0, 0.2, 0.2, 11).unwrap()),
        ("needle200:2:2", shapes::ellipsoid(200, 2.0, 0.02, 0.02, 12).unwrap()),
        ("disk", shapes::prism(60, 10.0, 1.0).unwrap()),
        ("thin disk", shapes::prism(60, 10.0, 0.01).unwrap()),
        ("cube", shapes::cuboid(1.0, 1.0, 1.0).unwrap()),
    ]
    .map(|(n, p)| Shape {
        name: n.into(),
        poly: p,
    });
    let mut t = Tally::default();
    for case in 0..700 {
        let a = &fams[rng.random_range(0..fams.len())];
        let b = &fams[rng.random_range(0..fams.len())];
        let size = a.poly.scale() + b.poly.scale();
        let pa = random_pose(&mut rng, size);
        let mut pb = random_pose(&mut rng, size);
        pb.translation = pa.translation + shapes::unit_vector(&mut rng) * size * rng.random_range(0.0..1.0);
        let check = a.poly.vertices().len() * b.poly.vertices().len() <= 15_000;
        let base = oracle::signed_distance(&a.poly, &pa, &b.poly, &pb).unwrap();
        run_case(
            a,
            &pa,
            b,
            &pb,
            Some(base.signed_distance),
            false,
            &mut t,
            &format!("adv {case}"),
        );
        if base.nearest.length() > 1e-9 * size && check {
            let u = if base.signed_distance > 0.0 {
                -base.nearest.normalize()
            } else {
                base.nearest.normalize()
            };
            let gap = rng.random_range(-1e-7..1e-7) * size;
            let pb2 = Pose::new(pb.rotation, pb.translation + base.nearest + u * gap);
            run_case(
                a,
                &pa,
                b,
                &pb2,
                Some(gap),
                false,
                &mut t,
                &format!("adv {case} gap {gap:e}"),
            );
        }
    }
    // Near-touching parallel faces: the same rotation, offset along a face normal by 1 ± ε,
    // with a tiny tilt.
    let cube = &fams[4];
    let disk = &fams[2];
    for case in 0..1000 {
        let rot = shapes::random_rotation(&mut rng);
        // |eps| ≥ 1e-10 dominates the tilt's effect (≤ 1e-12 · radius 10), so the sign of
        // the signed distance is eps's by construction.
        let tilt = DQuat::from_axis_angle(shapes::unit_vector(&mut rng), rng.random_range(0.0..1e-13));
        let eps = rng.random_range(1e-10..1e-9) * if rng.random_bool(0.5) { 1.0 } else { -1.0 };
        let (s, axis_len) = if case % 2 == 0 { (cube, 1.0) } else { (disk, 1.0) };
        let axis = if case % 2 == 0 { DVec3::X } else { DVec3::Z };
        let pa = Pose::new(rot, DVec3::new(1.0, 2.0, 3.0));
        let slide = DVec3::new(0.0, rng.random_range(-0.3..0.3), 0.0);
        let pb = Pose::new(
            (rot * tilt).normalize(),
            pa.translation + rot * (axis * (axis_len + eps) + if case % 2 == 0 { slide } else { slide * 10.0 }),
        );
        let check = case % 2 == 0;
        run_case(s, &pa, s, &pb, Some(eps), check, &mut t, &format!("parallel {case}"));
    }
    eprintln!("adversarial_termination: {t:?}");
    assert!(t.not_converged * 100 <= t.band.max(1), "{t:?}");
}

#[test]
fn coherence_sequence() {
    let a = Shape {
        name: "ellipsoid".into(),
        poly: shapes::ellipsoid(80, 1.0, 0.8, 0.6, 21).unwrap(),
    };
    let b = Shape {
        name: "icosphere1".into(),
        poly: shapes::icosphere(1, 0.7).unwrap(),
    };
    let mut warm = PairCache::default();
    let (mut warm_iters, mut cold_iters) = (0u64, 0u64);
    let mut t = Tally::default();
    for frame in 0..2000 {
        let tt = frame as f64 * 0.01;
        let pa = Pose::new(DQuat::from_rotation_y(0.3 * tt), DVec3::ZERO);
        let pb = Pose::new(
            DQuat::from_rotation_x(0.7 * tt),
            DVec3::new(1.9 * (0.9 * tt).cos(), 1.2 * (1.3 * tt).sin(), 0.4 * (0.5 * tt).sin()),
        );
        let r = hs(&a.poly, &pa, &b.poly, &pb, &mut warm);
        let status = verify(&r, &a.poly, &pa, &b.poly, &pb, &format!("frame {frame}"));
        warm_iters += r.iterations() as u64;
        let mut cold = PairCache::default();
        let rc = hs(&a.poly, &pa, &b.poly, &pb, &mut cold);
        cold_iters += rc.iterations() as u64;
        t.add(&r, &warm);
        let sd = oracle::signed_distance(&a.poly, &pa, &b.poly, &pb)
            .unwrap()
            .signed_distance;
        let tol = contact_tolerance(&a.poly, &pa, &b.poly, &pb);
        if sd.abs() > tol {
            assert_eq!(status, if sd > 0.0 { 'D' } else { 'O' }, "frame {frame}: sd {sd:e}");
        }
    }
    eprintln!("coherence_sequence: warm iterations {warm_iters}, cold {cold_iters}; {t:?}");
    assert!(warm_iters <= cold_iters, "warm {warm_iters} vs cold {cold_iters}");
}
