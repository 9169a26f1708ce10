//! Differential tests of GJK (boolean, distance, EPA depth, directional ray casts) against the
//! brute-force oracle, exact contact configurations, V-Clip's degeneracy test (Alg. 10) and
//! coherence (warm vs cold cache).
//!
//! The large runs are ignored by default; run them with
//! `cargo test -p polycd --release --test gjk -- --ignored`.

mod common;

use common::{average_pose as average, world_vertices};
use polycd::gjk::{self, GjkCache};
use polycd::query::{contact_tolerance, pair_scale};
use polycd::{oracle, shapes, ConvexPolyhedron, DQuat, DVec3, Directional, Distance, Intersection, Plane, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const AGREE: f64 = 1e-12;

/// Shape families at unit size (scaled per pair).
fn family(k: usize, s: f64, seed: u64) -> ConvexPolyhedron {
    match k {
        0 => shapes::cuboid(s, s, s).unwrap(),
        1 => shapes::tetrahedron(s).unwrap(),
        2 => shapes::icosahedron(s).unwrap(),
        3 => shapes::prism(60, s, 0.1 * s).unwrap(),
        4 => shapes::icosphere(1, s).unwrap(),
        5 => shapes::ellipsoid(30 + (seed % 31) as usize, s, 0.8 * s, 0.6 * s, seed).unwrap(),
        6 => shapes::ellipsoid(40, s, 0.1 * s, 0.1 * s, seed).unwrap(),
        _ => shapes::ellipsoid(40, s, 0.01 * s, 0.01 * s, seed).unwrap(),
    }
}
const FAMILIES: usize = 8;

/// `x` lies inside `p` (at `pose`) within `tol`.
fn inside(p: &ConvexPolyhedron, pose: &Pose, x: DVec3, tol: f64) -> bool {
    let l = pose.inverse_transform_point(x);
    (0..p.faces().len() as u32).all(|f| p.face_plane(f).signed_distance(l) <= tol)
}

fn separates(plane: &Plane, a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose, tol: f64) -> bool {
    world_vertices(a, pa).iter().all(|&x| plane.signed_distance(x) <= tol)
        && world_vertices(b, pb).iter().all(|&x| plane.signed_distance(x) >= -tol)
}

#[derive(Default, Debug)]
struct Stats {
    pairs: usize,
    max_dist_err: f64,
    max_dir_err: f64,
    failures: Vec<String>,
}

/// Checks every query on one pair against the oracle.
#[allow(clippy::too_many_arguments)]
/// `full`: also the directional query and the depth-translation check (each costs another
/// oracle hull).
fn check_pair(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    dir: DVec3,
    full: bool,
    st: &mut Stats,
    tag: &str,
) {
    st.pairs += 1;
    let scale = pair_scale(a, pa, b, pb);
    let tol = AGREE * scale;
    let ctol = contact_tolerance(a, pa, b, pb);
    let or = oracle::signed_distance(a, pa, b, pb).unwrap();
    let sd = or.signed_distance;
    let mut fail = |m: String| {
        st.failures
            .push(format!("{tag}: {m} (oracle sd {sd:e}, scale {scale:e})"))
    };

    // Boolean.
    let mut cache = GjkCache::default();
    let r = gjk::intersect(a, pa, b, pb, &mut cache).unwrap();
    match r {
        Intersection::Disjoint { plane, .. } => {
            if sd < -tol {
                fail(format!("intersect says disjoint, {r:?}"));
            }
            if !separates(&plane, a, pa, b, pb, tol) {
                fail(format!("disjoint plane does not separate {plane:?}"));
            }
        }
        Intersection::Touching { plane, .. } => {
            if sd.abs() > tol {
                fail(format!("intersect says touching, {r:?}"));
            }
            if !separates(&plane, a, pa, b, pb, tol) {
                fail(format!("touching plane does not separate {plane:?}"));
            }
        }
        Intersection::Overlapping { .. } => {
            if sd > tol {
                fail(format!("intersect says overlapping, {r:?}"));
            }
        }
        Intersection::NotConverged { .. } => fail(format!("intersect not converged {r:?}")),
        other => panic!("a variant this test does not know: {other:?}"),
    }

    // Distance (cold cache), then again warm: same answer.
    let mut cache = GjkCache::default();
    let d = gjk::distance(a, pa, b, pb, &mut cache).unwrap();
    let d2 = gjk::distance(a, pa, b, pb, &mut cache).unwrap();
    for (k, d) in [d, d2].iter().enumerate() {
        match *d {
            Distance::Separated {
                distance,
                point_a,
                point_b,
                ..
            } => {
                let e = (distance - sd).abs();
                st.max_dist_err = st.max_dist_err.max(e / scale);
                if e > tol {
                    fail(format!("[{k}] distance {distance:e} vs {sd:e}: {d:?}"));
                }
                if ((point_a - point_b).length() - distance).abs() > tol {
                    fail(format!("[{k}] |pa-pb| != distance {d:?}"));
                }
                if !inside(a, pa, point_a, tol) || !inside(b, pb, point_b, tol) {
                    fail(format!("[{k}] closest point off its shape {d:?}"));
                }
            }
            Distance::Penetrating { penetration, .. } => {
                if sd > ctol {
                    fail(format!("[{k}] penetrating but apart: {d:?}"));
                }
                match penetration {
                    Some(p) => {
                        let e = (-p.depth - sd).abs();
                        st.max_dist_err = st.max_dist_err.max(e / scale);
                        if e > tol {
                            fail(format!("[{k}] depth {:e} vs {:e}", p.depth, -sd));
                        }
                        if ((p.point_a - p.point_b).length() - p.depth).abs() > tol {
                            fail(format!("[{k}] |pa-pb| != depth {p:?}"));
                        }
                        if !full || k > 0 {
                            continue;
                        }
                        // Moving B by depth·normal makes them touch.
                        let moved = Pose::new(pb.rotation, pb.translation + p.normal * p.depth);
                        let o2 = oracle::signed_distance(a, pa, b, &moved).unwrap().signed_distance;
                        if o2.abs() > tol {
                            fail(format!("[{k}] translation by depth·normal leaves sd {o2:e}"));
                        }
                    }
                    None => fail(format!("[{k}] no penetration depth {d:?}")),
                }
            }
            Distance::NotConverged { .. } => fail(format!("[{k}] distance not converged {d:?}")),
            other => panic!("a variant this test does not know: {other:?}"),
        }
    }
    if let (Some(x), Some(y)) = (d.signed_distance(), d2.signed_distance()) {
        if (x - y).abs() > tol {
            fail(format!("warm {y:e} != cold {x:e}"));
        }
    }

    if !full {
        return;
    }
    // Directional.
    let ot = oracle::directional(a, pa, b, pb, dir).unwrap();
    let mut cache = GjkCache::default();
    let g = gjk::directional(a, pa, b, pb, dir, &mut cache).unwrap();
    match (ot, g) {
        (Some(t0), Directional::Contact { t, plane, .. }) => {
            let e = (t - t0).abs();
            // Near-grazing directions amplify the error by 1/|n·s|.
            let c = plane.normal.dot(dir).abs().max(1e-3);
            st.max_dir_err = st.max_dir_err.max(e * c / scale);
            if e * c > tol {
                fail(format!("directional t {t:e} vs {t0:e} (cos {c:e})"));
            }
            let moved = Pose::new(pb.rotation, pb.translation + dir * t);
            if !separates(&plane, a, pa, b, &moved, tol / c) {
                fail(format!("directional plane does not separate {plane:?}"));
            }
        }
        (None, Directional::Never { .. }) => {}
        (Some(t0), Directional::Never { .. }) => {
            // Allowed only for grazing contact: the line just touches M.
            let moved = Pose::new(pb.rotation, pb.translation + dir * t0);
            let o = oracle::signed_distance(a, pa, b, &moved).unwrap().signed_distance;
            let moved2 = Pose::new(pb.rotation, pb.translation + dir * (t0 + 1e-9 * scale));
            let o2 = oracle::signed_distance(a, pa, b, &moved2).unwrap().signed_distance;
            if o.abs() > tol && o2 < -tol {
                fail(format!("directional Never but oracle t {t0:e}"));
            }
        }
        (None, Directional::Contact { t, .. }) => {
            let moved = Pose::new(pb.rotation, pb.translation + dir * t);
            let o = oracle::signed_distance(a, pa, b, &moved).unwrap().signed_distance;
            if o.abs() > tol {
                fail(format!("directional contact {t:e} but oracle Never (sd there {o:e})"));
            }
        }
        (_, Directional::NotConverged { .. }) => fail(format!("directional not converged {g:?}")),
        other => panic!("a variant this test does not know: {other:?}"),
    }
}

/// A random pair configuration; returns shapes, poses and a direction.
fn random_pair(rng: &mut ChaCha8Rng) -> (ConvexPolyhedron, Pose, ConvexPolyhedron, Pose, DVec3, String) {
    let scale = 10f64.powf(rng.random_range(-3.0..3.0));
    let (ka, kb) = (rng.random_range(0..FAMILIES), rng.random_range(0..FAMILIES));
    let sa = scale * rng.random_range(0.5..2.0);
    let sb = scale * rng.random_range(0.5..2.0);
    let a = family(ka, sa, rng.random());
    let b = family(kb, sb, rng.random());
    let pa = Pose::new(
        shapes::random_rotation(rng),
        DVec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        ) * scale,
    );
    let rb = shapes::random_rotation(rng);
    let u = shapes::unit_vector(rng);
    let dir = shapes::unit_vector(rng);
    let mode = rng.random_range(0..4);
    let base = Pose::new(rb, pa.translation);
    let off = match mode {
        0 => rng.random_range(0.0..0.6) * scale,  // deep overlap
        1 => rng.random_range(3.0..20.0) * scale, // far apart
        _ => {
            // Near touching: first contact along u from the overlapping start, ± a tiny gap.
            let t = oracle::directional(&a, &pa, &b, &base, u).unwrap().unwrap_or(0.0);
            let gap = if mode == 2 {
                0.0
            } else {
                rng.random_range(-1e-6..1e-6) * scale
            };
            t + gap * t.signum()
        }
    };
    let pb = Pose::new(rb, pa.translation + u * off);
    let tag = format!("fam {ka}/{kb} scale {scale:e} mode {mode} off {off:e}");
    (a, pa, b, pb, dir, tag)
}

fn run_random(n: usize, seed: u64) -> Stats {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut st = Stats::default();
    for i in 0..n {
        let (a, pa, b, pb, dir, tag) = random_pair(&mut rng);
        check_pair(&a, &pa, &b, &pb, dir, i % 4 == 0, &mut st, &format!("#{i} {tag}"));
    }
    st
}

fn report(st: &Stats) {
    for f in st.failures.iter().take(20) {
        eprintln!("{f}");
    }
    eprintln!(
        "pairs {} failures {} max dist err {:e} max dir err {:e}",
        st.pairs,
        st.failures.len(),
        st.max_dist_err,
        st.max_dir_err
    );
    assert!(st.failures.is_empty(), "{} failures", st.failures.len());
}

#[test]
fn random_pairs_agree_with_oracle() {
    let st = run_random(6000, 1);
    report(&st);
}

/// 10^5 random pairs. Run with `cargo test -p polycd --release --test gjk -- --ignored`.
#[test]
#[ignore]
fn random_pairs_agree_with_oracle_large() {
    let st = run_random(100_000, 2);
    report(&st);
}

fn rot(axis: DVec3, angle: f64) -> DQuat {
    DQuat::from_axis_angle(axis, angle)
}

/// Exact contact configurations built from boxes and octahedra.
#[test]
fn exact_contacts() {
    let mut st = Stats::default();
    let id = DQuat::IDENTITY;
    let dirs = [
        DVec3::Z,
        DVec3::X,
        DVec3::new(0.6, 0.0, 0.8),
        DVec3::new(0.36, 0.48, 0.8),
    ];
    for &s in &[1e-3, 1.0, 1e3] {
        let bxs = shapes::cuboid(2.0 * s, 2.0 * s, 2.0 * s).unwrap();
        let octs = shapes::octahedron(s).unwrap();
        let cases: Vec<(&ConvexPolyhedron, Pose, &ConvexPolyhedron, Pose, &str)> = vec![
            (
                &bxs,
                Pose::IDENTITY,
                &bxs,
                Pose::new(id, DVec3::new(0.5, 0.25, 2.0) * s),
                "face-face",
            ),
            (
                &bxs,
                Pose::IDENTITY,
                &bxs,
                Pose::new(id, DVec3::new(2.0, 0.0, 0.0) * s),
                "face-face aligned",
            ),
            (
                &bxs,
                Pose::IDENTITY,
                &bxs,
                Pose::new(id, DVec3::new(2.0, 2.0, 0.5) * s),
                "parallel edges",
            ),
            (
                &bxs,
                Pose::IDENTITY,
                &bxs,
                Pose::new(id, DVec3::new(2.0, 2.0, 2.0) * s),
                "vertex-vertex",
            ),
            (
                &bxs,
                Pose::IDENTITY,
                &octs,
                Pose::new(id, DVec3::new(0.25, 0.125, 2.0) * s),
                "vertex-face",
            ),
            (
                &bxs,
                Pose::IDENTITY,
                &octs,
                Pose::new(id, DVec3::new(1.0, 0.25, 2.0) * s),
                "vertex-edge",
            ),
            (
                &octs,
                Pose::IDENTITY,
                &octs,
                Pose::new(id, DVec3::new(1.0, 1.0, 0.0) * s),
                "edge-edge parallel",
            ),
            (
                &bxs,
                Pose::new(rot(DVec3::X, std::f64::consts::FRAC_PI_4), DVec3::ZERO),
                &bxs,
                Pose::new(
                    rot(DVec3::Y, std::f64::consts::FRAC_PI_4),
                    DVec3::new(0.1, 0.2, 2.0 * std::f64::consts::SQRT_2) * s,
                ),
                "edge-edge crossing",
            ),
        ];
        for (a, pa, b, pb, name) in cases {
            for &d in &dirs {
                check_pair(a, &pa, b, &pb, d, true, &mut st, &format!("{name} scale {s}"));
                // Slightly apart and slightly overlapping along the contact normal.
                for eps in [1e-9, -1e-9] {
                    let n = (pb.translation - pa.translation).normalize();
                    let pb2 = Pose::new(pb.rotation, pb.translation + n * eps * s);
                    check_pair(
                        a,
                        &pa,
                        b,
                        &pb2,
                        d,
                        true,
                        &mut st,
                        &format!("{name} scale {s} eps {eps}"),
                    );
                }
            }
        }
    }
    report(&st);
}

fn alg10_pose(rng: &mut ChaCha8Rng) -> Pose {
    let x = rng.random_range(-4.0..4.0);
    let y = rng.random_range(-4.0..4.0);
    let a = shapes::unit_vector(rng);
    let k: f64 = rng.random_range(0.0..20.0);
    Pose::new(DQuat::from_axis_angle(a, (-k).exp()), DVec3::new(x, y, 4.0))
}

fn simplex_key(c: &GjkCache) -> Vec<(u32, u32)> {
    let mut v = c.simplex().to_vec();
    v.sort_unstable();
    v
}

/// V-Clip's degeneracy test (Mirtich, Alg. 10): cubes of side 2, O₂'s pose bisected between two
/// random near-parallel poses towards a change of GJK's simplex. The true distance never falls
/// below 4 − 2√3.
fn degeneracy(trials: usize, seed: u64) {
    let cube = shapes::cuboid(2.0, 2.0, 2.0).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let floor = 4.0 - 2.0 * 3f64.sqrt();
    let mut bad = 0usize;
    let mut checked = 0usize;
    for trial in 0..trials {
        let mut lo = alg10_pose(&mut rng);
        let mut hi = alg10_pose(&mut rng);
        let mut cache = GjkCache::default();
        let mut query = |p: &Pose, cache: &mut GjkCache| -> Vec<(u32, u32)> {
            match gjk::distance(&cube, &Pose::IDENTITY, &cube, p, cache).unwrap() {
                Distance::Separated { distance, .. } if distance >= floor - 1e-12 => {}
                d => {
                    bad += 1;
                    eprintln!("trial {trial}: {d:?} at {p:?}");
                }
            }
            simplex_key(cache)
        };
        let x_lo = query(&lo, &mut cache);
        for _ in 0..200 {
            if lo == hi {
                break;
            }
            let mid = average(&lo, &hi);
            if mid == lo || mid == hi {
                break;
            }
            let x = query(&mid, &mut cache);
            if x == x_lo {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        // Oracle check at the boundary pose.
        if trial % 10 == 0 {
            checked += 1;
            let o = oracle::signed_distance(&cube, &Pose::IDENTITY, &cube, &lo)
                .unwrap()
                .signed_distance;
            let mut c = GjkCache::default();
            let g = gjk::distance(&cube, &Pose::IDENTITY, &cube, &lo, &mut c).unwrap();
            let s = g.signed_distance().unwrap_or(f64::NAN);
            let scale = pair_scale(&cube, &Pose::IDENTITY, &cube, &lo);
            if !((s - o).abs() <= AGREE * scale) {
                bad += 1;
                eprintln!("trial {trial}: gjk {s:e} vs oracle {o:e} at {lo:?}");
            }
        }
    }
    eprintln!("degeneracy: {trials} trials, {checked} oracle checks, {bad} bad");
    assert_eq!(bad, 0);
}

#[test]
fn vclip_degeneracy_alg10() {
    degeneracy(10_000, 10);
}

/// 10^5 trials. Run with `cargo test -p polycd --release --test gjk -- --ignored`.
#[test]
#[ignore]
fn vclip_degeneracy_alg10_large() {
    degeneracy(100_000, 11);
}

/// A coherent trajectory: warm-cache answers equal cold-cache answers at every step.
#[test]
fn coherence_warm_equals_cold() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let shapes_list: Vec<ConvexPolyhedron> = (0..FAMILIES).map(|k| family(k, 1.0, 7)).collect();
    for (ka, a) in shapes_list.iter().enumerate() {
        let b = &shapes_list[(ka + 3) % FAMILIES];
        let mut warm = GjkCache::default();
        let axis = shapes::unit_vector(&mut rng);
        for step in 0..300 {
            let ang = step as f64 * 0.05;
            let pa = Pose::IDENTITY;
            let pb = Pose::new(
                DQuat::from_axis_angle(axis, ang),
                DVec3::new(2.5 * (ang * 0.7).cos(), 0.5 * ang.sin(), 0.3),
            );
            let w = gjk::distance(a, &pa, b, &pb, &mut warm).unwrap();
            let c = gjk::distance(a, &pa, b, &pb, &mut GjkCache::default()).unwrap();
            let scale = pair_scale(a, &pa, b, &pb);
            let (sw, sc) = (w.signed_distance().unwrap(), c.signed_distance().unwrap());
            assert!((sw - sc).abs() <= AGREE * scale, "step {step}: warm {sw:e} cold {sc:e}");
            let tol = contact_tolerance(a, &pa, b, &pb);
            assert_eq!(w.status(tol), c.status(tol));
            let iw = gjk::intersect(a, &pa, b, &pb, &mut warm).unwrap();
            let ic = gjk::intersect(a, &pa, b, &pb, &mut GjkCache::default()).unwrap();
            assert_eq!(iw.status(), ic.status(), "step {step}");
        }
    }
}

/// EPA's warm start (the face of the pair's last EPA answer inserted first): along coherent
/// paths on which the pair overlaps at every step — shallow, deep and concentric, turning by
/// 0.5°–5° per step — the warm cache's depth agrees with the oracle and with a cold cache at
/// every step, for every pair of families.
#[test]
fn epa_warm_start_on_overlapping_paths() {
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let list: Vec<ConvexPolyhedron> = (0..FAMILIES).map(|k| family(k, 1.0, 11)).collect();
    let mut checked = 0usize;
    for (ka, a) in list.iter().enumerate() {
        for (kb, b) in list.iter().enumerate() {
            // Depth of the path's centre: the sum of the radii times `reach` (0: concentric).
            let reach = [0.0, 0.3, 0.6, 0.85][(ka + kb) % 4];
            let turn = [0.5f64, 2.0, 5.0][(ka * 3 + kb) % 3].to_radians();
            let axis = shapes::unit_vector(&mut rng);
            let dir = shapes::unit_vector(&mut rng);
            let r = a.bounding_sphere().1 + b.bounding_sphere().1;
            let mut warm = GjkCache::default();
            for step in 0..60 {
                let s = step as f64;
                let pa = Pose::IDENTITY;
                let wobble = DVec3::new((0.1 * s).cos(), (0.13 * s).sin(), 0.0) * 0.02 * r;
                let pb = Pose::new(DQuat::from_axis_angle(axis, turn * s), dir * (reach * 0.5 * r) + wobble);
                let scale = pair_scale(a, &pa, b, &pb);
                let tol = contact_tolerance(a, &pa, b, &pb);
                let sd = oracle::signed_distance(a, &pa, b, &pb).unwrap().signed_distance;
                let w = gjk::distance(a, &pa, b, &pb, &mut warm).unwrap();
                let c = gjk::distance(a, &pa, b, &pb, &mut GjkCache::default()).unwrap();
                let (sw, sc) = (w.signed_distance().unwrap(), c.signed_distance().unwrap());
                assert!(
                    (sw - sd).abs() <= AGREE * scale,
                    "families {ka}/{kb}, step {step}: warm {sw:e}, oracle {sd:e}"
                );
                assert!(
                    (sw - sc).abs() <= AGREE * scale,
                    "families {ka}/{kb}, step {step}: warm {sw:e} cold {sc:e}"
                );
                assert_eq!(w.status(tol), c.status(tol));
                if let Distance::Penetrating {
                    penetration: Some(p), ..
                } = w
                {
                    assert!(((p.point_a - p.point_b).length() - p.depth).abs() <= AGREE * scale);
                    let tol_in = 1e-9 * scale;
                    assert!(inside(a, &pa, p.point_a, tol_in) && inside(b, &pb, p.point_b, tol_in));
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 2000, "{checked} penetrating answers checked");
}

/// `gjk::penetration` agrees with the oracle's depth on overlapping pairs and is `None` on
/// separated ones.
#[test]
fn penetration_function() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let (mut some, mut none) = (0, 0);
    for i in 0..300 {
        let (a, pa, b, pb, _, tag) = random_pair(&mut rng);
        let scale = pair_scale(&a, &pa, &b, &pb);
        let sd = oracle::signed_distance(&a, &pa, &b, &pb).unwrap().signed_distance;
        let p = gjk::penetration(&a, &pa, &b, &pb, &mut GjkCache::default()).unwrap();
        let tol = contact_tolerance(&a, &pa, &b, &pb);
        match p {
            Some(p) => {
                some += 1;
                assert!(sd <= tol, "#{i} {tag}: depth {} but sd {sd:e}", p.depth);
                assert!(
                    (p.depth + sd).abs() <= AGREE * scale,
                    "#{i} {tag}: {} vs {sd:e}",
                    p.depth
                );
                assert!((p.normal.length() - 1.0).abs() < 1e-12);
                assert!(
                    ((p.point_a - p.point_b).length() - p.depth).abs() <= AGREE * scale,
                    "#{i} {tag}: {p:?}"
                );
            }
            None => {
                none += 1;
                assert!(sd >= -tol, "#{i} {tag}: no depth but sd {sd:e}");
            }
        }
    }
    assert!(some > 50 && none > 50, "{some} {none}");
}
