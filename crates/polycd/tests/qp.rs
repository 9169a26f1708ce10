//! The QP distance solvers (Jin, Wang, Wang, Fu): the paper's two examples, differential tests
//! against the brute-force oracle (fast solver on 10^4 pairs, faithful on 10^3), agreement of
//! the two solvers, the boolean answers' certificates, uniqueness notes, and typed errors.
//!
//! The large run (10^5 pairs) is ignored by default: run with
//! `cargo test -p polycd --release --test qp -- --ignored`.

mod common;

use common::outside;
use polycd::qp::{self, QpCache, QpStatus};
use polycd::query::{self, contact_tolerance, pair_scale};
use polycd::tolerance::AGREEMENT_REL;
use polycd::{oracle, shapes, ConvexPolyhedron, DVec3, Distance, Intersection, OverlapWitness, PolycdError, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn v(x: f64, y: f64, z: f64) -> DVec3 {
    DVec3::new(x, y, z)
}

fn paper_a() -> Vec<DVec3> {
    vec![v(0., 1., 0.), v(1., 0., 0.), v(0., 0., 1.), v(0., 0., 0.)]
}
fn paper_b() -> Vec<DVec3> {
    vec![v(1., 0., 0.), v(2., -2., 0.), v(0., -2., 2.), v(0., -2., 0.)]
}
fn paper_b_prime() -> Vec<DVec3> {
    vec![v(1., -1., 0.), v(2., -2., 0.), v(0., -2., 2.), v(0., -2., 0.)]
}

#[test]
fn paper_example_a_touching_at_vertex() {
    let a = ConvexPolyhedron::from_points(&paper_a()).unwrap();
    let b = ConvexPolyhedron::from_points(&paper_b()).unwrap();
    let id = Pose::IDENTITY;
    let tol = contact_tolerance(&a, &id, &b, &id);
    // Raw model (1): weights λ₂ = 1, σ₁ = 1, collided point (1, 0, 0).
    let sol = qp::solve_points(&paper_a(), &paper_b()).unwrap();
    assert_eq!(sol.status, QpStatus::Touching, "{sol:?}");
    assert!(sol.distance <= 1e-15, "{sol:?}");
    assert!((sol.point_a - v(1., 0., 0.)).length() < 1e-14);
    assert!((sol.point_b - v(1., 0., 0.)).length() < 1e-14);
    assert!((sol.lambda[1] - 1.0).abs() < 1e-14 && (sol.sigma[0] - 1.0).abs() < 1e-14);
    // The interior-point weights alone agree with the paper's table to ~1e-6.
    assert!((sol.ipm_lambda[1] - 1.0).abs() < 1e-4 && (sol.ipm_sigma[0] - 1.0).abs() < 1e-4);
    assert_eq!(sol.unique, Some(true), "{:?}", sol.notes);
    for d in [
        qp::distance_faithful(&a, &id, &b, &id).unwrap(),
        qp::distance_fast(&a, &id, &b, &id, &mut QpCache::default()).unwrap(),
    ] {
        let Distance::Separated {
            distance,
            point_a,
            point_b,
            ..
        } = d
        else {
            panic!("{d:?}")
        };
        assert!(distance <= tol);
        assert!((point_a - v(1., 0., 0.)).length() < 1e-14 && (point_b - v(1., 0., 0.)).length() < 1e-14);
    }
    for i in [
        qp::intersect_faithful(&a, &id, &b, &id).unwrap(),
        qp::intersect_fast(&a, &id, &b, &id, &mut QpCache::default()).unwrap(),
    ] {
        let Intersection::Touching { point, plane, .. } = i else {
            panic!("{i:?}")
        };
        assert!((point - v(1., 0., 0.)).length() < 1e-14);
        // The plane weakly separates: A below, B above (within rounding).
        for p in paper_a() {
            assert!(plane.signed_distance(p) <= 1e-14, "{plane:?}");
        }
        for p in paper_b() {
            assert!(plane.signed_distance(p) >= -1e-14, "{plane:?}");
        }
    }
}

#[test]
fn paper_example_b_distance_one() {
    let a = ConvexPolyhedron::from_points(&paper_a()).unwrap();
    let b = ConvexPolyhedron::from_points(&paper_b_prime()).unwrap();
    let id = Pose::IDENTITY;
    let sol = qp::solve_points(&paper_a(), &paper_b_prime()).unwrap();
    assert_eq!(sol.status, QpStatus::Separated);
    assert!((sol.distance - 1.0).abs() < 1e-15);
    assert!((sol.point_a - v(1., 0., 0.)).length() < 1e-15);
    assert!((sol.point_b - v(1., -1., 0.)).length() < 1e-15);
    assert!((sol.lambda[1] - 1.0).abs() < 1e-15 && (sol.sigma[0] - 1.0).abs() < 1e-15);
    assert!((sol.ipm_distance - 1.0).abs() < 1e-6);
    assert!((sol.normal - v(0., -1., 0.)).length() < 1e-15);
    // Vertex (1,−1,0) of B' against the face y = 0 of A: a unique optimum.
    assert_eq!(sol.unique, Some(true));
    assert_eq!(sol.contact_dims, Some((2, 0)));
    for d in [
        qp::distance_faithful(&a, &id, &b, &id).unwrap(),
        qp::distance_fast(&a, &id, &b, &id, &mut QpCache::default()).unwrap(),
    ] {
        let Distance::Separated {
            distance,
            point_a,
            point_b,
            features,
            ..
        } = d
        else {
            panic!("{d:?}")
        };
        assert!((distance - 1.0).abs() < 1e-15);
        assert!((point_a - v(1., 0., 0.)).length() < 1e-15);
        assert!((point_b - v(1., -1., 0.)).length() < 1e-15);
        assert!(matches!(features.b, polycd::Feature::Vertex(_)));
    }
    for i in [
        qp::intersect_faithful(&a, &id, &b, &id).unwrap(),
        qp::intersect_fast(&a, &id, &b, &id, &mut QpCache::default()).unwrap(),
    ] {
        let Intersection::Disjoint { plane, .. } = i else {
            panic!("{i:?}")
        };
        assert!(paper_a().iter().all(|p| plane.signed_distance(*p) < 0.0));
        assert!(paper_b_prime().iter().all(|p| plane.signed_distance(*p) > 0.0));
    }
    // Through the query layer as well.
    let mut cache = polycd::PairCache::default();
    for alg in [polycd::Algorithm::Qp, polycd::Algorithm::QpFast] {
        let d = query::distance(&a, &id, &b, &id, alg, &mut cache).unwrap();
        assert!((d.signed_distance().unwrap() - 1.0).abs() < 1e-15);
    }
}

/// A random shape family member with size ≈ `s`.
fn random_shape(rng: &mut ChaCha8Rng, s: f64) -> ConvexPolyhedron {
    let k: u32 = rng.random_range(0..4);
    let f = |rng: &mut ChaCha8Rng| s * rng.random_range(0.3..3.0);
    match k {
        0 => shapes::cuboid(f(rng), f(rng), f(rng)).unwrap(),
        1 => shapes::tetrahedron(f(rng)).unwrap(),
        2 => shapes::icosahedron(f(rng)).unwrap(),
        _ => {
            let n = rng.random_range(8..24);
            let seed = rng.random();
            shapes::ellipsoid(n, f(rng), f(rng), f(rng), seed).unwrap()
        }
    }
}

/// What kind of pair to generate.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Separated,
    Touching,
    Overlapping,
}

struct Pair {
    a: ConvexPolyhedron,
    b: ConvexPolyhedron,
    pa: Pose,
    pb: Pose,
    sd: f64,
    scale: f64,
    tol: f64,
}

fn random_pair(rng: &mut ChaCha8Rng) -> Pair {
    let s = 10f64.powf(rng.random_range(-3.0..3.0));
    let a = random_shape(rng, s);
    let b = random_shape(rng, s);
    let base = shapes::unit_vector(rng) * s * rng.random_range(0.0..10.0);
    let pa = Pose::new(shapes::random_rotation(rng), base);
    let kind = match rng.random_range(0..3) {
        0 => Kind::Separated,
        1 => Kind::Touching,
        _ => Kind::Overlapping,
    };
    let reach = a.scale() + b.scale();
    let t = match kind {
        Kind::Separated => rng.random_range(0.6..1.5),
        Kind::Touching => rng.random_range(0.8..1.2),
        Kind::Overlapping => rng.random_range(0.0..0.6),
    };
    let mut pb = Pose::new(
        shapes::random_rotation(rng),
        base + shapes::unit_vector(rng) * reach * t,
    );
    let mut o = oracle::signed_distance(&a, &pa, &b, &pb).unwrap();
    if kind == Kind::Touching && o.signed_distance > 0.0 {
        // Slide B along the closest-point vector until it touches A.
        pb.translation += o.nearest;
        o = oracle::signed_distance(&a, &pa, &b, &pb).unwrap();
    }
    Pair {
        scale: pair_scale(&a, &pa, &b, &pb),
        tol: contact_tolerance(&a, &pa, &b, &pb),
        sd: o.signed_distance,
        a,
        b,
        pa,
        pb,
    }
}

/// Counts of each outcome.
#[derive(Default, Debug)]
struct Tally {
    separated: usize,
    touching: usize,
    overlapping: usize,
}

/// Checks a distance answer against the oracle's signed distance.
fn check_distance(p: &Pair, d: &Distance, what: &str, tally: &mut Tally) {
    let agree = AGREEMENT_REL * p.scale;
    match *d {
        Distance::Separated {
            distance,
            point_a,
            point_b,
            ..
        } => {
            assert!(
                p.sd >= -agree,
                "{what}: separated {distance:e} but oracle overlaps {:e}",
                p.sd
            );
            assert!(
                (distance - p.sd.max(0.0)).abs() <= agree,
                "{what}: distance {distance:e} vs oracle {:e} (scale {:e})",
                p.sd,
                p.scale
            );
            assert!(outside(&p.a, &p.pa, point_a) <= agree, "{what}: point_a off A");
            assert!(outside(&p.b, &p.pb, point_b) <= agree, "{what}: point_b off B");
            assert!(((point_a - point_b).length() - distance).abs() <= agree, "{what}");
            if distance <= p.tol {
                tally.touching += 1;
            } else {
                tally.separated += 1;
            }
        }
        Distance::Penetrating {
            witness: OverlapWitness::CommonPoint(q),
            ..
        } => {
            assert!(
                p.sd < -p.tol,
                "{what}: penetrating but oracle {:e} (tol {:e})",
                p.sd,
                p.tol
            );
            assert!(
                outside(&p.a, &p.pa, q) <= agree && outside(&p.b, &p.pb, q) <= agree,
                "{what}"
            );
            tally.overlapping += 1;
        }
        Distance::Penetrating {
            witness: OverlapWitness::Simplex(_),
            ..
        } => {
            // A tetrahedron of M around the origin: checked by `verify` with exact predicates.
            assert!(
                p.sd < -p.tol,
                "{what}: penetrating but oracle {:e} (tol {:e})",
                p.sd,
                p.tol
            );
            polycd::verify::verify_distance(&p.a, &p.pa, &p.b, &p.pb, d).unwrap_or_else(|e| panic!("{what}: {e}"));
            tally.overlapping += 1;
        }
        ref other => panic!("{what}: unexpected {other:?} (oracle {:e})", p.sd),
    }
    // Clear overlaps (depth well beyond the touching band) must be reported.
    if p.sd < -1e-12 * p.scale {
        assert!(
            matches!(d, Distance::Penetrating { .. }),
            "{what}: missed overlap {:e}",
            p.sd
        );
    }
}

/// Checks a boolean answer's certificate.
fn check_intersection(p: &Pair, i: &Intersection, what: &str) {
    let agree = AGREEMENT_REL * p.scale;
    match *i {
        Intersection::Disjoint { plane, .. } => {
            assert!(p.sd > -agree, "{what}: disjoint but oracle {:e}", p.sd);
            for &x in p.a.vertices() {
                assert!(
                    plane.signed_distance(p.pa.transform_point(x)) < 0.0,
                    "{what}: plane vs A"
                );
            }
            for &y in p.b.vertices() {
                assert!(
                    plane.signed_distance(p.pb.transform_point(y)) > 0.0,
                    "{what}: plane vs B"
                );
            }
        }
        Intersection::Touching { point, .. } => {
            assert!(
                p.sd.abs() <= 3.0 * p.tol + agree,
                "{what}: touching but oracle {:e}",
                p.sd
            );
            assert!(outside(&p.a, &p.pa, point) <= agree && outside(&p.b, &p.pb, point) <= agree);
        }
        Intersection::Overlapping {
            witness: OverlapWitness::CommonPoint(q),
            ..
        } => {
            assert!(p.sd < -p.tol, "{what}: overlapping but oracle {:e}", p.sd);
            assert!(outside(&p.a, &p.pa, q) <= agree && outside(&p.b, &p.pb, q) <= agree);
        }
        Intersection::Overlapping {
            witness: OverlapWitness::Simplex(_),
            ..
        } => {
            assert!(p.sd < -p.tol, "{what}: overlapping but oracle {:e}", p.sd);
            polycd::verify::verify_intersection(&p.a, &p.pa, &p.b, &p.pb, i).unwrap_or_else(|e| panic!("{what}: {e}"));
        }
        ref other => panic!("{what}: unexpected {other:?}"),
    }
    if p.sd > 3.0 * p.tol {
        assert!(
            matches!(i, Intersection::Disjoint { .. }),
            "{what}: {i:?} vs {:e}",
            p.sd
        );
    }
    if p.sd < -1e-12 * p.scale {
        assert!(
            matches!(i, Intersection::Overlapping { .. }),
            "{what}: {i:?} vs {:e}",
            p.sd
        );
    }
}

fn run_fast(n: usize, seed: u64) -> Tally {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut tally = Tally::default();
    let mut cache = QpCache::default();
    for k in 0..n {
        let p = random_pair(&mut rng);
        let what = format!("fast pair {k} (seed {seed})");
        let d = qp::distance_fast(&p.a, &p.pa, &p.b, &p.pb, &mut cache).unwrap();
        check_distance(&p, &d, &what, &mut tally);
        let i = qp::intersect_fast(&p.a, &p.pa, &p.b, &p.pb, &mut cache).unwrap();
        check_intersection(&p, &i, &what);
        // Cold start agrees with the warm one.
        let cold = qp::distance_fast(&p.a, &p.pa, &p.b, &p.pb, &mut QpCache::default()).unwrap();
        match (d.signed_distance(), cold.signed_distance()) {
            (Some(x), Some(y)) => assert!((x - y).abs() <= AGREEMENT_REL * p.scale, "{what}"),
            (None, None) => {}
            _ => panic!("{what}: warm {d:?} vs cold {cold:?}"),
        }
    }
    tally
}

#[test]
fn fast_agrees_with_oracle_on_10k_pairs() {
    let t = run_fast(10_000, 1);
    eprintln!("fast, 10^4 pairs: {t:?}");
    assert!(t.separated > 2000 && t.touching > 2000 && t.overlapping > 2000, "{t:?}");
}

#[test]
fn faithful_agrees_with_oracle_and_fast_on_1k_pairs() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut tally = Tally::default();
    let mut non_unique = 0;
    for k in 0..1000 {
        let p = random_pair(&mut rng);
        let what = format!("faithful pair {k}");
        let d = qp::distance_faithful(&p.a, &p.pa, &p.b, &p.pb).unwrap();
        check_distance(&p, &d, &what, &mut tally);
        let i = qp::intersect_faithful(&p.a, &p.pa, &p.b, &p.pb).unwrap();
        check_intersection(&p, &i, &what);
        let f = qp::distance_fast(&p.a, &p.pa, &p.b, &p.pb, &mut QpCache::default()).unwrap();
        match (d.signed_distance(), f.signed_distance()) {
            (Some(x), Some(y)) => assert!((x - y).abs() <= AGREEMENT_REL * p.scale, "{what}"),
            (None, None) => {}
            _ => panic!("{what}: faithful {d:?} vs fast {f:?}"),
        }
        let sol = qp::solve_faithful(&p.a, &p.pa, &p.b, &p.pb).unwrap();
        if sol.status != QpStatus::Overlapping {
            // Weights are convex combinations realising the closest points.
            let xs: Vec<DVec3> = p.a.vertices().iter().map(|x| p.pa.transform_point(*x)).collect();
            let ys: Vec<DVec3> = p.b.vertices().iter().map(|y| p.pb.transform_point(*y)).collect();
            let sa: f64 = sol.lambda.iter().sum();
            let sb: f64 = sol.sigma.iter().sum();
            assert!((sa - 1.0).abs() < 1e-14 && (sb - 1.0).abs() < 1e-14);
            assert!(sol.lambda.iter().chain(&sol.sigma).all(|&w| w >= 0.0));
            let xa = xs.iter().zip(&sol.lambda).fold(DVec3::ZERO, |s, (x, w)| s + *x * *w);
            let yb = ys.iter().zip(&sol.sigma).fold(DVec3::ZERO, |s, (y, w)| s + *y * *w);
            assert!((xa - sol.point_a).length() <= AGREEMENT_REL * p.scale);
            assert!((yb - sol.point_b).length() <= AGREEMENT_REL * p.scale);
            assert!(sol.ipm_distance >= sol.distance - AGREEMENT_REL * p.scale);
            if sol.unique == Some(false) {
                non_unique += 1;
            }
        }
    }
    assert!(
        tally.separated > 200 && tally.touching > 200 && tally.overlapping > 200,
        "{tally:?}"
    );
    eprintln!("faithful, 10^3 pairs: {tally:?}, non-unique optima: {non_unique}");
    // Random touching pairs are almost always vertex–face or edge–edge: unique.
    assert!(non_unique < 50, "{non_unique}");
}

#[test]
fn non_unique_optimum_is_noted() {
    let a = shapes::cuboid(2.0, 2.0, 2.0).unwrap();
    let id = Pose::IDENTITY;
    // Face–face: a cube resting 0.5 above another, shifted sideways.
    let pb = Pose::from_translation(v(0.7, 0.3, 2.5));
    let sol = qp::solve_faithful(&a, &id, &a, &pb).unwrap();
    assert_eq!(sol.status, QpStatus::Separated);
    assert!((sol.distance - 0.5).abs() < 1e-14);
    assert_eq!(sol.unique, Some(false), "{:?}", sol.notes);
    assert_eq!(sol.contact_dims, Some((2, 2)));
    assert!(sol.notes.iter().any(|n| n.contains("not unique")));
    // Face–face touching (distance 0) as well.
    let pb = Pose::from_translation(v(0.7, 0.3, 2.0));
    let sol = qp::solve_faithful(&a, &id, &a, &pb).unwrap();
    assert_eq!(sol.status, QpStatus::Touching, "{sol:?}");
    assert_eq!(sol.unique, Some(false), "{:?}", sol.notes);
    // Edge–face: a cube rotated 45° about x, its lowest edge 0.25 above the top face.
    let rot = polycd::DQuat::from_rotation_x(std::f64::consts::FRAC_PI_4);
    let pb = Pose::new(rot, v(0.2, 0.1, 1.0 + 2f64.sqrt() + 0.25));
    let sol = qp::solve_faithful(&a, &id, &a, &pb).unwrap();
    assert!((sol.distance - 0.25).abs() < 1e-13, "{sol:?}");
    assert_eq!(sol.contact_dims, Some((2, 1)));
    assert_eq!(sol.unique, Some(false), "{:?}", sol.notes);
    // Crossing edges: unique.
    let rot2 = polycd::DQuat::from_rotation_y(std::f64::consts::FRAC_PI_4);
    let a2 = shapes::cuboid(2.0, 2.0, 2.0).unwrap();
    let pa2 = Pose::new(rot2, DVec3::ZERO);
    let pb2 = Pose::new(rot, v(0.2, 0.1, 2.0 * 2f64.sqrt() + 0.25));
    let sol = qp::solve_faithful(&a2, &pa2, &a, &pb2).unwrap();
    assert!((sol.distance - 0.25).abs() < 1e-13, "{sol:?}");
    assert_eq!(sol.contact_dims, Some((1, 1)), "{sol:?}");
    assert_eq!(sol.unique, Some(true), "{:?}", sol.notes);
    // Vertex–face: unique.
    let t = shapes::octahedron(1.0).unwrap();
    let sol = qp::solve_faithful(&a, &id, &t, &Pose::from_translation(v(0.1, 0.2, 2.5))).unwrap();
    assert!((sol.distance - 0.5).abs() < 1e-14);
    assert_eq!(sol.contact_dims, Some((2, 0)));
    assert_eq!(sol.unique, Some(true), "{:?}", sol.notes);
    // A tetrahedron's edge lying on the top face: edge–face, not unique.
    let t = shapes::tetrahedron(1.0).unwrap();
    let sol = qp::solve_faithful(
        &a,
        &id,
        &t,
        &Pose::from_translation(v(0.1, 0.2, 1.0 + 1.0 / 3f64.sqrt())),
    )
    .unwrap();
    assert_eq!(sol.status, QpStatus::Touching);
    assert_eq!(sol.contact_dims, Some((2, 1)));
    assert_eq!(sol.unique, Some(false), "{:?}", sol.notes);
}

/// Exact contacts (face–face, edge–edge, vertex–face) at several scales and offsets are
/// touching, never penetrating; shifting them by ±1e-9 × scale separates or overlaps them.
#[test]
fn structured_contacts_touch_and_shallow_overlaps_are_certified() {
    let rot = polycd::DQuat::from_rotation_x(std::f64::consts::FRAC_PI_4);
    let roty = polycd::DQuat::from_rotation_y(std::f64::consts::FRAC_PI_4);
    let r2 = 2f64.sqrt();
    for s in [1e-3, 1.0, 1e3] {
        for off in [DVec3::ZERO, v(123.0, -45.0, 6.0) * s] {
            let cube = shapes::cuboid(2.0 * s, 2.0 * s, 2.0 * s).unwrap();
            let octa = shapes::octahedron(s).unwrap();
            // (pose of A, pose of B at contact, unit normal from A to B)
            let cases = [
                (
                    Pose::from_translation(off),
                    Pose::from_translation(off + v(0.7, 0.3, 2.0) * s),
                ),
                (
                    Pose::new(roty, off),
                    Pose::new(rot, off + v(0.2 * s, 0.1 * s, 2.0 * r2 * s)),
                ),
                (
                    Pose::from_translation(off),
                    Pose::from_translation(off + v(0.1, 0.2, 2.0) * s),
                ),
            ];
            for (k, (pa, pb)) in cases.iter().enumerate() {
                let b = if k == 2 { &octa } else { &cube };
                let scale = pair_scale(&cube, pa, b, pb);
                for (shift, expect) in [(0.0, 0), (1e-9, 1), (-1e-9, -1)] {
                    let pb = Pose::new(pb.rotation, pb.translation + v(0.0, 0.0, shift * scale));
                    let what = format!("s {s}, off {off}, case {k}, shift {shift}");
                    let fast = qp::distance_fast(&cube, pa, b, &pb, &mut QpCache::default()).unwrap();
                    let faithful = qp::distance_faithful(&cube, pa, b, &pb).unwrap();
                    for d in [fast, faithful] {
                        match expect {
                            0 => assert!(
                                matches!(d, Distance::Separated { distance, .. } if distance <= 1e-13 * scale),
                                "{what}: {d:?}"
                            ),
                            1 => assert!(
                                matches!(d, Distance::Separated { distance, .. }
                                    if (distance - 1e-9 * scale).abs() <= 1e-13 * scale),
                                "{what}: {d:?}"
                            ),
                            _ => assert!(matches!(d, Distance::Penetrating { .. }), "{what}: {d:?}"),
                        }
                    }
                    let fi = qp::intersect_fast(&cube, pa, b, &pb, &mut QpCache::default()).unwrap();
                    let gi = qp::intersect_faithful(&cube, pa, b, &pb).unwrap();
                    for i in [fi, gi] {
                        let ok = match expect {
                            0 => matches!(i, Intersection::Touching { .. }),
                            1 => matches!(i, Intersection::Disjoint { .. }),
                            _ => matches!(i, Intersection::Overlapping { .. }),
                        };
                        assert!(ok, "{what}: {i:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn large_polytopes_fast_matches_faithful() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let shapes_big = [
        shapes::icosphere(3, 1.0).unwrap(),
        shapes::ellipsoid(1000, 2.0, 1.0, 1.0, 5).unwrap(),
        shapes::prism(60, 10.0, 1.0).unwrap(),
    ];
    for k in 0..12 {
        let a = &shapes_big[k % 3];
        let b = &shapes_big[(k / 3) % 3];
        let pa = Pose::new(shapes::random_rotation(&mut rng), DVec3::ZERO);
        let dir = shapes::unit_vector(&mut rng);
        let pb = Pose::new(
            shapes::random_rotation(&mut rng),
            dir * (a.scale() + b.scale()) * rng.random_range(0.3..1.3),
        );
        let scale = pair_scale(a, &pa, b, &pb);
        let f = qp::distance_faithful(a, &pa, b, &pb).unwrap();
        let g = qp::distance_fast(a, &pa, b, &pb, &mut QpCache::default()).unwrap();
        match (f.signed_distance(), g.signed_distance()) {
            (Some(x), Some(y)) => assert!((x - y).abs() <= AGREEMENT_REL * scale, "{k}: {x:e} vs {y:e}"),
            (None, None) => {}
            _ => panic!("{k}: faithful {f:?} vs fast {g:?}"),
        }
    }
}

#[test]
fn coherent_motion_with_warm_cache() {
    let a = shapes::icosphere(2, 1.0).unwrap();
    let b = shapes::ellipsoid(200, 1.5, 0.7, 0.5, 9).unwrap();
    let mut cache = QpCache::default();
    for step in 0..500 {
        let t = step as f64 * 0.01;
        let pa = Pose::IDENTITY;
        let pb = Pose::new(
            polycd::DQuat::from_rotation_z(t) * polycd::DQuat::from_rotation_x(0.3 * t),
            v(3.0 * (0.7 * t).cos(), 2.0 * t.sin(), 0.5),
        );
        let warm = qp::distance_fast(&a, &pa, &b, &pb, &mut cache).unwrap();
        let cold = qp::distance_fast(&a, &pa, &b, &pb, &mut QpCache::default()).unwrap();
        let scale = pair_scale(&a, &pa, &b, &pb);
        match (warm.signed_distance(), cold.signed_distance()) {
            (Some(x), Some(y)) => assert!((x - y).abs() <= AGREEMENT_REL * scale, "{step}"),
            (None, None) => {}
            _ => panic!("{step}: {warm:?} vs {cold:?}"),
        }
    }
}

#[test]
fn bad_input_gives_typed_errors() {
    let good = paper_a();
    assert!(matches!(
        qp::solve_points(&[], &good),
        Err(PolycdError::TooFewPoints { found: 0 })
    ));
    assert!(matches!(
        qp::solve_points(&good, &[]),
        Err(PolycdError::TooFewPoints { found: 0 })
    ));
    let mut bad = paper_b();
    bad[2].y = f64::NAN;
    assert!(matches!(
        qp::solve_points(&good, &bad),
        Err(PolycdError::NonFinite { index: 6 })
    ));
    bad[2].y = f64::INFINITY;
    assert!(matches!(
        qp::solve_points(&bad, &good),
        Err(PolycdError::NonFinite { index: 2 })
    ));
    bad[2].y = 1e200;
    assert!(matches!(
        qp::solve_points(&bad, &good),
        Err(PolycdError::AbsurdMagnitude { .. })
    ));
    // Degenerate but valid point sets: two points, a segment and a triangle.
    let s = qp::solve_points(&[v(0., 0., 0.)], &[v(3., 4., 0.)]).unwrap();
    assert!((s.distance - 5.0).abs() < 1e-15);
    let s = qp::solve_points(&[v(-1., 0., 0.), v(1., 0., 0.)], &[v(0., 2., -1.), v(0., 2., 1.)]).unwrap();
    assert!((s.distance - 2.0).abs() < 1e-15 && (s.point_a - DVec3::ZERO).length() < 1e-15);
    let s = qp::solve_points(
        &[v(0., 0., 0.), v(1., 0., 0.), v(0., 1., 0.)],
        &[v(0.2, 0.2, 0.7), v(0.2, 0.2, 0.7)],
    )
    .unwrap();
    assert!((s.distance - 0.7).abs() < 1e-15);
    // Coincident single points: distance 0, touching, no panic.
    let s = qp::solve_points(&[DVec3::ZERO], &[DVec3::ZERO]).unwrap();
    assert_eq!(s.status, QpStatus::Touching);
    assert_eq!(s.distance, 0.0);
    // NaN poses never reach the solvers: the query layer rejects them.
    let a = ConvexPolyhedron::from_points(&good).unwrap();
    let nan = Pose::from_translation(v(f64::NAN, 0., 0.));
    let r = query::distance(
        &a,
        &Pose::IDENTITY,
        &a,
        &nan,
        polycd::Algorithm::Qp,
        &mut polycd::PairCache::default(),
    );
    assert!(matches!(r, Err(PolycdError::NonFinitePose)));
    // Empty / NaN shapes are rejected at construction.
    assert!(ConvexPolyhedron::from_points(&[]).is_err());
    assert!(ConvexPolyhedron::from_points(&bad).is_err());
}

/// 10^5 random pairs for the fast solver: run with
/// `cargo test -p polycd --release --test qp -- --ignored`.
#[test]
#[ignore]
fn fast_agrees_with_oracle_on_100k_pairs() {
    let t = run_fast(100_000, 11);
    assert!(
        t.separated > 20_000 && t.touching > 20_000 && t.overlapping > 20_000,
        "{t:?}"
    );
}
