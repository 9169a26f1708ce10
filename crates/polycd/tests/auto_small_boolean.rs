//! The `Auto` boolean of two small solids (at most 16 vertices each) is HS-jump's with the
//! query layer's contact-band measurement (`query/core_boolean.rs`, `small_solids`). Checked
//! here against the brute-force oracle (`oracle::signed_distance`: every face of `A − B`) and
//! the certificate verifier (`oracle::Agreement`), on random poses, on poses a hair from
//! first contact (bisected along random directions, then moved 1e-13 … 1e-3 of the size in or
//! out) and on exact face-to-face and edge-to-face contacts; touching pairs
//! are answered `Touching` by both `Auto` and GJK, as before the dispatch changed.

use polycd::contract::Status;
use polycd::oracle::{self, Agreement};
use polycd::query::{self, Algorithm, PairCache};
use polycd::{shapes, ConvexPolyhedron, DQuat, DVec3, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn small_solids(rng: &mut ChaCha8Rng) -> Vec<ConvexPolyhedron> {
    let mut v = vec![
        shapes::cuboid(1.0, 1.0, 1.0).unwrap(),
        shapes::cuboid(2.0, 0.3, 0.05).unwrap(),
        shapes::tetrahedron(0.8).unwrap(),
        shapes::octahedron(0.8).unwrap(),
        shapes::icosahedron(1.0).unwrap(),
    ];
    while v.len() < 9 {
        let n = rng.random_range(5..14);
        let pts: Vec<DVec3> = (0..n)
            .map(|_| {
                DVec3::new(
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-0.6..0.6),
                    rng.random_range(-0.4..0.4),
                )
            })
            .collect();
        if let Ok(p) = ConvexPolyhedron::from_points(&pts) {
            if p.vertices().len() <= 16 && p.dimension() == 3 {
                v.push(p);
            }
        }
    }
    v
}

fn boolean(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    algo: Algorithm,
) -> polycd::contract::Intersection {
    let mut cache = PairCache::default();
    query::intersect(a, pa, b, pb, algo, &mut cache).unwrap()
}

/// The largest `t` along `dir` at which B (at `rot`) still meets A, by bisection on the
/// oracle's sign (60 halvings of [0, 8]).
fn touch(a: &ConvexPolyhedron, b: &ConvexPolyhedron, rot: DQuat, dir: DVec3) -> f64 {
    let (mut lo, mut hi) = (0.0, 8.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        let sd = oracle::signed_distance(a, &Pose::IDENTITY, b, &Pose::new(rot, dir * mid))
            .unwrap()
            .signed_distance;
        if sd <= 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Checks one pair: `Auto` agrees with the oracle and is HS-jump's answer (with the band
/// measurement), and returns the status.
fn check(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose, what: &str) -> Status {
    let sd = oracle::signed_distance(a, pa, b, pb).unwrap().signed_distance;
    let agreement = Agreement::new(a, pa, b, pb, sd);
    let auto = boolean(a, pa, b, pb, Algorithm::Auto);
    if let Err(e) = agreement.intersection(&auto) {
        panic!("{what}: Auto {auto:?} disagrees with the oracle (signed distance {sd:e}): {e}");
    }
    let hs = boolean(a, pa, b, pb, Algorithm::HsJump);
    assert_eq!(auto, hs, "{what}: Auto is not HS-jump's answer");
    auto.status()
}

#[test]
fn auto_small_boolean_agrees_with_the_oracle_at_random_poses() {
    let mut rng = ChaCha8Rng::seed_from_u64(27);
    let shapes = small_solids(&mut rng);
    let mut counts = [0usize; 3];
    for (i, a) in shapes.iter().enumerate() {
        for (j, b) in shapes.iter().enumerate() {
            for k in 0..60 {
                let pa = Pose::new(shapes::random_rotation(&mut rng), DVec3::ZERO);
                let t = DVec3::new(
                    rng.random_range(-1.2..1.2),
                    rng.random_range(-1.2..1.2),
                    rng.random_range(-1.2..1.2),
                );
                let pb = Pose::new(shapes::random_rotation(&mut rng), t);
                match check(a, &pa, b, &pb, &format!("shapes {i}, {j}, pose {k}")) {
                    Status::Disjoint => counts[0] += 1,
                    Status::Overlapping => counts[1] += 1,
                    _ => counts[2] += 1,
                }
            }
        }
    }
    // Both outcomes well represented.
    assert!(counts[0] > 1000 && counts[1] > 1000, "{counts:?}");
}

#[test]
fn auto_small_boolean_agrees_with_the_oracle_near_contact() {
    let mut rng = ChaCha8Rng::seed_from_u64(28);
    let shapes = small_solids(&mut rng);
    let offsets = [-1e-3, -1e-6, -1e-9, -1e-12, -1e-13, 1e-13, 1e-12, 1e-9, 1e-6, 1e-3];
    let mut checked = 0;
    for (i, a) in shapes.iter().enumerate() {
        for (j, b) in shapes.iter().enumerate() {
            for k in 0..6 {
                let rot = shapes::random_rotation(&mut rng);
                let dir = shapes::unit_vector(&mut rng);
                let t0 = touch(a, b, rot, dir);
                for &l in &offsets {
                    let pb = Pose::new(rot, dir * (t0 + l));
                    check(
                        a,
                        &Pose::IDENTITY,
                        b,
                        &pb,
                        &format!("shapes {i}, {j}, direction {k}, offset {l:e}"),
                    );
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 9 * 9 * 6 * 10);
}

#[test]
fn auto_small_boolean_touching_as_before() {
    let cube = shapes::cuboid(1.0, 1.0, 1.0).unwrap();
    let ico = shapes::icosahedron(1.0).unwrap();
    let tet = shapes::tetrahedron(0.8).unwrap();
    let quarter = DQuat::from_rotation_z(std::f64::consts::FRAC_PI_4);
    let cases: Vec<(&ConvexPolyhedron, &ConvexPolyhedron, Pose)> = vec![
        // Face to face, aligned and shifted.
        (&cube, &cube, Pose::new(DQuat::IDENTITY, DVec3::new(1.0, 0.0, 0.0))),
        (&cube, &cube, Pose::new(DQuat::IDENTITY, DVec3::new(1.0, 0.25, -0.5))),
        // Face to face, B turned 45° about the contact normal.
        (&cube, &cube, Pose::new(quarter, DVec3::new(0.0, 0.0, 1.0))),
        // Edge to face: B turned 45° about z, its vertical edge on A's face x = 0.5.
        (
            &cube,
            &cube,
            Pose::new(quarter, DVec3::new(0.5 + std::f64::consts::FRAC_1_SQRT_2, 0.0, 0.0)),
        ),
    ];
    let mut all = cases;
    // Edge to face: the icosahedron and the tetrahedron resting on the cube's top face on
    // their lowest edge.
    let mut extra = Vec::new();
    for b in [&ico, &tet] {
        let low = b.vertices().iter().map(|v| v.z).fold(f64::INFINITY, f64::min);
        extra.push((b, Pose::new(DQuat::IDENTITY, DVec3::new(0.1, -0.2, 0.5 - low))));
    }
    for (b, p) in &extra {
        all.push((&cube, b, *p));
    }
    for (k, (a, b, pb)) in all.iter().enumerate() {
        let sd = oracle::signed_distance(a, &Pose::IDENTITY, b, pb)
            .unwrap()
            .signed_distance;
        assert!(sd.abs() < 1e-12, "case {k}: not a touching pose ({sd:e})");
        let auto = check(a, &Pose::IDENTITY, b, pb, &format!("touching case {k}"));
        let gjk = boolean(a, &Pose::IDENTITY, b, pb, Algorithm::Gjk).status();
        assert_eq!(gjk, Status::Touching, "touching case {k}: GJK");
        assert_eq!(auto, Status::Touching, "touching case {k}: Auto");
    }
}
