//! CD-Dual against the brute-force oracle: boolean answers, separating planes, overlap
//! witnesses, α along `c → o`, and the directional query (§6).

mod common;

use common::{outside, world_vertices};
use polycd::cd_dual::{self, CdDualCache, FaceKind, PhaseEvent, SearchOptions};
use polycd::math::DQuat;
use polycd::query::{contact_tolerance, pair_scale};
use polycd::{oracle, shapes, ConvexPolyhedron, DVec3, Directional, Intersection, OverlapWitness, Plane, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

struct Family {
    name: String,
    shape: ConvexPolyhedron,
}

fn families(seed: u64) -> Vec<Family> {
    let mut out = vec![
        ("cube".to_string(), shapes::cuboid(1.0, 1.0, 1.0).unwrap()),
        ("box".to_string(), shapes::cuboid(0.5, 1.0, 2.0).unwrap()),
        ("tetrahedron".to_string(), shapes::tetrahedron(0.8).unwrap()),
        ("icosahedron".to_string(), shapes::icosahedron(0.7).unwrap()),
        ("disk".to_string(), shapes::prism(60, 10.0, 1.0).unwrap()),
        ("icosphere1".to_string(), shapes::icosphere(1, 0.6).unwrap()),
        ("icosphere2".to_string(), shapes::icosphere(2, 0.6).unwrap()),
        (
            "needle".to_string(),
            shapes::ellipsoid(60, 2.0, 0.2, 0.2, seed).unwrap(),
        ),
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for k in 0..3 {
        let n = rng.random_range(30..=80);
        let (a, b, c) = (1.0, rng.random_range(0.3..1.0), rng.random_range(0.2..1.0));
        out.push((
            format!("ellipsoid{n}"),
            shapes::ellipsoid(n, a, b, c, seed * 10 + k).unwrap(),
        ));
    }
    out.into_iter().map(|(name, shape)| Family { name, shape }).collect()
}

fn separation_violation(plane: &Plane, a: &[DVec3], b: &[DVec3]) -> f64 {
    let above_a = a
        .iter()
        .map(|&x| plane.signed_distance(x))
        .fold(f64::NEG_INFINITY, f64::max);
    let below_b = b
        .iter()
        .map(|&x| -plane.signed_distance(x))
        .fold(f64::NEG_INFINITY, f64::max);
    above_a.max(below_b)
}

/// A random pair: A anywhere, B approached along a random direction until contact (found with
/// the oracle's directional answer) and then offset by a signed gap along that direction,
/// concentrated near contact.
fn random_pair(rng: &mut ChaCha8Rng, a: &ConvexPolyhedron, b: &ConvexPolyhedron) -> (Pose, Pose) {
    let pa = Pose::new(
        shapes::random_rotation(rng),
        DVec3::new(
            rng.random_range(-5.0..5.0),
            rng.random_range(-5.0..5.0),
            rng.random_range(-5.0..5.0),
        ),
    );
    let rb = shapes::random_rotation(rng);
    let u = shapes::unit_vector(rng);
    let size = a.scale() + b.scale();
    let far = 2.0 * size + 1.0;
    let start = Pose::new(rb, pa.translation + u * far);
    // Contact along −u. CD-Dual's own directional answer places the pair (it is checked against
    // the oracle separately); the truth of every check below is the oracle's.
    let mut cache = CdDualCache::default();
    let t1 = match cd_dual::directional(a, &pa, b, &start, -u, &mut cache).unwrap() {
        Directional::Contact { t, .. } => t,
        other => panic!("no contact along a line through both shapes: {other:?}"),
    };
    let kind = rng.random_range(0..100);
    let gap = if kind < 15 {
        0.0
    } else if kind < 55 {
        let m = 10f64.powf(rng.random_range(-9.0..-1.0)) * size;
        if rng.random_range(0..2) == 0 {
            m
        } else {
            -m
        }
    } else {
        rng.random_range(-0.8..0.8) * size
    };
    (pa, Pose::new(rb, pa.translation + u * (far - t1 + gap)))
}

#[derive(Default, Debug)]
struct Tally {
    pairs: usize,
    disjoint: usize,
    overlapping: usize,
    near_contact: usize,
    wrong: usize,
    bad_planes: usize,
    bad_witnesses: usize,
    feature_witnesses: usize,
    not_converged: usize,
    /// Clearances missing where they are due, or beyond what the oracle allows.
    bad_clearances: usize,
}

fn check_boolean(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut CdDualCache,
    t: &mut Tally,
    what: &str,
) {
    let truth = oracle::signed_distance(a, pa, b, pb).unwrap().signed_distance;
    let tol = contact_tolerance(a, pa, b, pb);
    let scale = pair_scale(a, pa, b, pb);
    let out = cd_dual::intersect(a, pa, b, pb, cache).unwrap();
    t.pairs += 1;
    let near = truth.abs() <= tol;
    t.near_contact += near as usize;
    match out.intersection {
        Intersection::Disjoint { plane, .. } => {
            t.disjoint += 1;
            // The certified margin is the gap of a separating plane: positive and at most
            // the distance.
            match out.clearance {
                Some(m) if m > 0.0 && m <= truth + 1e-9 * scale => {}
                other => {
                    t.bad_clearances += 1;
                    eprintln!("{what}: margin {other:?}, oracle {truth:e}");
                }
            }
            if !near && truth < 0.0 {
                t.wrong += 1;
                eprintln!("{what}: CD-Dual says disjoint, oracle {truth:e}");
            }
            let v = separation_violation(&plane, &world_vertices(a, pa), &world_vertices(b, pb));
            if v > tol {
                t.bad_planes += 1;
                eprintln!("{what}: plane violated by {v:e} (oracle {truth:e})");
            }
        }
        Intersection::Overlapping { witness, .. } => {
            t.overlapping += 1;
            if !near && truth > 0.0 {
                t.wrong += 1;
                eprintln!("{what}: CD-Dual says overlapping, oracle {truth:e}");
            }
            if let OverlapWitness::CommonPoint(x) = witness {
                let o = outside(a, pa, x).max(outside(b, pb, x));
                if o > 1e-9 * scale {
                    t.bad_witnesses += 1;
                    eprintln!("{what}: witness {o:e} outside (oracle {truth:e})");
                }
                // The certified depth: the ball of that radius about the point lies in both
                // shapes, so every face plane of both is at least that far from it.
                match out.clearance {
                    Some(d) if o <= -d + 1e-9 * scale => {}
                    other => {
                        t.bad_clearances += 1;
                        eprintln!("{what}: depth {other:?} but the point is {o:e} outside");
                    }
                }
            } else {
                t.feature_witnesses += 1;
                if out.clearance.is_some() {
                    t.bad_clearances += 1;
                    eprintln!("{what}: a clearance with a feature witness");
                }
            }
        }
        Intersection::NotConverged { .. } => {
            t.not_converged += 1;
            eprintln!("{what}: not converged");
        }
        Intersection::Touching { .. } => {}
        other => panic!("a variant this test does not know: {other:?}"),
    }
}

fn random_boolean_suite(seed: u64, pairs_per_combo: usize) -> Tally {
    let fams = families(seed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut t = Tally::default();
    for (i, fa) in fams.iter().enumerate() {
        for fb in fams.iter().skip(i) {
            let big = fa.shape.vertices().len() * fb.shape.vertices().len() > 8000;
            let count = if big { pairs_per_combo / 4 } else { pairs_per_combo };
            for k in 0..count {
                let (pa, pb) = random_pair(&mut rng, &fa.shape, &fb.shape);
                let mut cache = CdDualCache::default();
                let what = format!("{} vs {} #{k}", fa.name, fb.name);
                check_boolean(&fa.shape, &pa, &fb.shape, &pb, &mut cache, &mut t, &what);
            }
        }
    }
    t
}

fn assert_clean(t: &Tally) {
    eprintln!("{t:?}");
    assert_eq!(t.wrong, 0, "{t:?}");
    assert_eq!(t.bad_planes, 0, "{t:?}");
    assert_eq!(t.bad_witnesses, 0, "{t:?}");
    assert_eq!(t.not_converged, 0, "{t:?}");
    assert_eq!(t.bad_clearances, 0, "{t:?}");
}

/// ~5 000 random pairs over 66 family combinations, a quarter of them within 1e-6 of contact.
#[test]
fn boolean_agrees_with_oracle_on_random_pairs() {
    let t = random_boolean_suite(1, 80);
    assert!(t.pairs > 4000);
    assert!(t.disjoint > 1000 && t.overlapping > 1000, "{t:?}");
    assert_clean(&t);
}

/// 10^5 random pairs. Run with
/// `cargo test -p polycd --release --test cd_dual -- --ignored`.
#[test]
#[ignore]
fn boolean_agrees_with_oracle_on_many_random_pairs() {
    let mut all = Tally::default();
    for seed in 10..32 {
        let t = random_boolean_suite(seed, 120);
        all.pairs += t.pairs;
        all.disjoint += t.disjoint;
        all.overlapping += t.overlapping;
        all.near_contact += t.near_contact;
        all.wrong += t.wrong;
        all.bad_planes += t.bad_planes;
        all.bad_witnesses += t.bad_witnesses;
        all.feature_witnesses += t.feature_witnesses;
        all.not_converged += t.not_converged;
    }
    assert!(all.pairs >= 100_000);
    assert_clean(&all);
}

/// Exactly representable axis-aligned boxes: parallel faces and edges everywhere (degenerate
/// Gaussian images), at exact contact, just apart and just overlapping, with identity and
/// half-turn rotations.
#[test]
fn axis_aligned_boxes_with_parallel_faces_and_edges() {
    let a = shapes::cuboid(2.0, 1.0, 4.0).unwrap();
    let b = shapes::cuboid(1.0, 3.0, 0.5).unwrap();
    let rots = [
        DQuat::IDENTITY,
        DQuat::from_xyzw(1.0, 0.0, 0.0, 0.0),
        DQuat::from_xyzw(0.0, 1.0, 0.0, 0.0),
        DQuat::from_xyzw(0.0, 0.0, 1.0, 0.0),
    ];
    let offsets = [-0.25, -1.0 / 1024.0, 0.0, 1.0 / 1024.0, 0.25];
    let mut t = Tally::default();
    for &ra in &rots {
        for &rb in &rots {
            let pa = Pose::new(ra, DVec3::new(1.0, 2.0, -3.0));
            // Contact distances along each axis (half extents sum): x 1.5, y 2.0, z 2.25.
            for sx in [-1.0, 0.0, 1.0] {
                for sy in [-1.0, 0.0, 1.0] {
                    for sz in [-1.0, 0.0, 1.0] {
                        for &g in &offsets {
                            let d = DVec3::new(sx * (1.5 + g), sy * (2.0 + g), sz * (2.25 + g));
                            let pb = Pose::new(rb, pa.translation + d);
                            let mut cache = CdDualCache::default();
                            check_boolean(&a, &pa, &b, &pb, &mut cache, &mut t, &format!("boxes {d}"));
                        }
                    }
                }
            }
        }
    }
    assert!(t.pairs > 1500);
    assert_clean(&t);
}

/// Aligned boxes make every Gaussian image degenerate at once: many tied faces of M push the
/// same edge pairs again and again. Each search evaluates an edge pair at most once; a query
/// on two aligned cubes now evaluates at most 169 faces of M (boolean) and 258 (directional,
/// two searches), where M has 156 faces (`E_A·E_B + F_A + F_B`). Before that rule it took
/// 447–454 (boolean and directional alike), so the bound of twice the face count below catches
/// the regression. Answers are checked against the oracle, directional ones along the axes, a
/// diagonal and a generic direction.
#[test]
fn aligned_boxes_evaluate_each_edge_pair_once() {
    let a = shapes::cuboid(1.0, 1.0, 1.0).unwrap();
    let faces_of_m = (a.edges().len() * a.edges().len() + 2 * a.faces().len()) as u32;
    let pa = Pose::IDENTITY;
    let mut t = Tally::default();
    let mut d = DirTally::default();
    let dirs = [
        DVec3::X,
        -DVec3::Y,
        DVec3::new(0.6, 0.8, 0.0),
        DVec3::new(1.0, 1.0, 1.0).normalize(),
        DVec3::new(0.3, -0.5, 0.8).normalize(),
    ];
    for off in [
        DVec3::new(1.0, 0.0, 0.0),
        DVec3::new(1.0, 0.2, 0.1),
        DVec3::new(1.0, 1.0, 1.0),
        DVec3::new(0.9, 0.2, 0.1),
        DVec3::new(1.1, 0.2, 0.1),
        DVec3::new(1.0, 0.5, -0.5),
        DVec3::new(0.0, 0.0, 0.25),
    ] {
        let pb = Pose::new(DQuat::IDENTITY, off);
        let mut cache = CdDualCache::default();
        check_boolean(&a, &pa, &a, &pb, &mut cache, &mut t, &format!("cubes {off}"));
        let mut cache = CdDualCache::default();
        let it = cd_dual::intersect(&a, &pa, &a, &pb, &mut cache)
            .unwrap()
            .intersection
            .iterations();
        assert!(
            it <= 2 * faces_of_m,
            "cubes {off}: {it} evaluations, M has {faces_of_m} faces"
        );
        for s in dirs {
            let mut cache = CdDualCache::default();
            check_directional(
                &a,
                &pa,
                &a,
                &pb,
                s,
                &mut cache,
                &mut d,
                &format!("cubes {off} along {s}"),
            );
            let mut cache = CdDualCache::default();
            let got = cd_dual::directional(&a, &pa, &a, &pb, s, &mut cache).unwrap();
            assert!(got.iterations() <= 2 * faces_of_m, "cubes {off} along {s}: {got:?}");
        }
    }
    assert_clean(&t);
    // One line never meets A: 1.1 apart in x, moving along y.
    assert!(d.contact == 34 && d.never == 1, "{d:?}");
}

/// Shapes sharing an axis (rotations about z only): faces parallel to edges and faces of the
/// other shape (appendix cases 2 and 3) with otherwise generic geometry.
#[test]
fn shared_axis_degenerate_gaussian_images() {
    let shapes_list = [
        shapes::cuboid(1.0, 1.0, 1.0).unwrap(),
        shapes::prism(60, 10.0, 1.0).unwrap(),
        shapes::prism(7, 1.0, 0.5).unwrap(),
        shapes::cone(12, 1.0, 2.0).unwrap(),
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let mut t = Tally::default();
    let mut dt = DirTally::default();
    for (i, a) in shapes_list.iter().enumerate() {
        for (j, b) in shapes_list.iter().enumerate().skip(i) {
            for k in 0..100 {
                let ang_a = rng.random_range(0.0..6.3);
                let ang_b = rng.random_range(0.0..6.3);
                let pa = Pose::new(DQuat::from_rotation_z(ang_a), DVec3::new(0.5, -0.25, 0.0));
                let u = if k % 3 == 0 {
                    DVec3::Z
                } else if k % 3 == 1 {
                    let th: f64 = rng.random_range(0.0..6.3);
                    DVec3::new(th.cos(), th.sin(), 0.0)
                } else {
                    shapes::unit_vector(&mut rng)
                };
                let far = 2.0 * (a.scale() + b.scale()) + 1.0;
                let start = Pose::new(DQuat::from_rotation_z(ang_b), pa.translation + u * far);
                let mut cache = CdDualCache::default();
                let t1 = match cd_dual::directional(a, &pa, b, &start, -u, &mut cache).unwrap() {
                    Directional::Contact { t, .. } => t,
                    other => panic!("no contact: {other:?}"),
                };
                let gap = match k % 5 {
                    0 => 0.0,
                    1 => 1e-7,
                    2 => -1e-7,
                    _ => rng.random_range(-0.5..0.5),
                };
                let pb = Pose::new(start.rotation, pa.translation + u * (far - t1 + gap));
                let mut cache = CdDualCache::default();
                let what = format!("axis {i}-{j} #{k}");
                check_boolean(a, &pa, b, &pb, &mut cache, &mut t, &what);
                // (Skipped at exact contact: a line normal to u would graze M, where "never" and
                // "contact" are both within rounding.)
                if k % 2 == 0 && gap != 0.0 {
                    let s = if k % 4 == 0 { u } else { DVec3::Z };
                    check_directional(a, &pa, b, &pb, s, &mut cache, &mut dt, &what);
                }
            }
        }
    }
    eprintln!("{dt:?}");
    assert_clean(&t);
}

/// Frame coherence (§4.4): a pair moving in small steps with one cache gives the same answers
/// as fresh caches, in fewer steps.
#[test]
fn frame_coherence_gives_same_answers_faster() {
    let a = shapes::ellipsoid(80, 1.0, 0.6, 0.5, 3).unwrap();
    let b = shapes::ellipsoid(80, 1.0, 0.8, 0.3, 4).unwrap();
    let mut cache = CdDualCache::default();
    let (mut warm_steps, mut cold_steps) = (0u64, 0u64);
    let mut t = Tally::default();
    for i in 0..400 {
        let s = i as f64 * 0.01;
        let pa = Pose::new(DQuat::from_rotation_y(0.3 * s), DVec3::ZERO);
        let pb = Pose::new(
            DQuat::from_rotation_x(s) * DQuat::from_rotation_z(0.5 * s),
            DVec3::new(1.3 * (2.0 * s).cos(), 0.4 * s.sin(), 0.2),
        );
        check_boolean(&a, &pa, &b, &pb, &mut cache, &mut t, &format!("frame {i}"));
        let full = SearchOptions::default().with_early_exit(false);
        let mut fresh = CdDualCache::default();
        let cold = cd_dual::search(&a, &pa, &b, &pb, &mut fresh, full).unwrap();
        let warm = cd_dual::search(&a, &pa, &b, &pb, &mut cache, full).unwrap();
        assert!(cold.converged && warm.converged);
        assert_eq!(cold.separated, warm.separated);
        assert!((cold.alpha - warm.alpha).abs() <= 1e-12 * pair_scale(&a, &pa, &b, &pb));
        cold_steps += cold.iterations() as u64;
        warm_steps += warm.iterations() as u64;
    }
    assert_clean(&t);
    eprintln!("steps: coherent {warm_steps}, cold {cold_steps}");
    assert!(warm_steps < cold_steps);
}

/// α (§3.2) of the completed search equals the distance from o to where the line c→o leaves
/// M, found by bisection with the oracle's sign as the exact overlap test.
#[test]
fn alpha_matches_bisection_along_c_to_o() {
    let fams = families(5);
    let small: Vec<&Family> = fams
        .iter()
        .filter(|f| f.shape.vertices().len() <= 42 && f.name != "disk")
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let mut kinds = [0usize; 3];
    let mut checked = 0;
    for k in 0..60 {
        let fa = small[rng.random_range(0..small.len())];
        let fb = small[rng.random_range(0..small.len())];
        let (a, b) = (&fa.shape, &fb.shape);
        let (pa, pb) = random_pair(&mut rng, a, b);
        let mut cache = CdDualCache::default();
        let opts = SearchOptions::default().with_early_exit(false);
        let rep = cd_dual::search(a, &pa, b, &pb, &mut cache, opts).unwrap();
        assert!(rep.converged);
        kinds[match rep.kind() {
            FaceKind::Fv => 0,
            FaceKind::Vf => 1,
            FaceKind::Ee => 2,
            other => panic!("a variant this test does not know: {other:?}"),
        }] += 1;
        let c = rep.interior_point;
        let scale = pair_scale(a, &pa, b, &pb);
        // x(λ) = c·(1 − λ): inside M at λ = 0; find where it leaves.
        let inside = |lam: f64| {
            let x = c * (1.0 - lam);
            let moved = Pose::new(pb.rotation, pb.translation + x);
            oracle::signed_distance(a, &pa, b, &moved).unwrap().signed_distance <= 0.0
        };
        let (mut lo, mut hi) = (0.0, 1.0);
        while inside(hi) {
            hi *= 2.0;
        }
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if inside(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let alpha = c.length() * (1.0 - 0.5 * (lo + hi)).abs();
        let err = (alpha - rep.alpha).abs();
        assert!(
            err <= 1e-10 * scale,
            "#{k} {} vs {}: α {} vs bisection {alpha} (err {err:e})",
            fa.name,
            fb.name,
            rep.alpha
        );
        // Separated iff the crossing lies between c and o.
        let truth = oracle::signed_distance(a, &pa, b, &pb).unwrap().signed_distance;
        if truth.abs() > contact_tolerance(a, &pa, b, &pb) {
            assert_eq!(rep.separated, truth > 0.0);
        }
        checked += 1;
    }
    eprintln!("α checked on {checked} pairs, final face kinds FV/VF/EE = {kinds:?}");
    assert!(kinds[2] > 0);
}

#[derive(Default, Debug)]
struct DirTally {
    contact: usize,
    never: usize,
    positive: usize,
    negative: usize,
    max_err: f64,
}

#[allow(clippy::too_many_arguments)]
fn check_directional(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    cache: &mut CdDualCache,
    t: &mut DirTally,
    what: &str,
) {
    let truth = oracle::directional(a, pa, b, pb, s).unwrap();
    let got = cd_dual::directional(a, pa, b, pb, s, cache).unwrap();
    let scale = pair_scale(a, pa, b, pb);
    match (truth, got) {
        (None, Directional::Never { .. }) => t.never += 1,
        (Some(tt), Directional::Contact { t: tg, plane, .. }) => {
            t.contact += 1;
            if tt > 0.0 {
                t.positive += 1;
            } else {
                t.negative += 1;
            }
            let err = (tt - tg).abs();
            t.max_err = t.max_err.max(err / scale);
            assert!(err <= 1e-12 * scale, "{what}: t {tg} vs oracle {tt} (err {err:e})");
            // The contact plane separates A from B moved by t·s.
            let moved = Pose::new(pb.rotation, pb.translation + s * tg);
            let v = separation_violation(&plane, &world_vertices(a, pa), &world_vertices(b, &moved));
            assert!(
                v <= 1e-12 * scale,
                "{what}: contact plane {plane:?} violated by {v:e}, t {tg} oracle {tt} s {s}"
            );
        }
        (tr, g) => panic!("{what}: oracle {tr:?}, CD-Dual {g:?}"),
    }
}

/// §6 against the oracle: separate pairs (first contact along s), overlapping pairs (shortest
/// separating translation along the line), and lines that never touch.
#[test]
fn directional_agrees_with_oracle() {
    let fams = families(8);
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut t = DirTally::default();
    for k in 0..1500 {
        let fa = &fams[rng.random_range(0..fams.len())];
        let fb = &fams[rng.random_range(0..fams.len())];
        let (a, b) = (&fa.shape, &fb.shape);
        let (pa, pb) = random_pair(&mut rng, a, b);
        let centre = pb.translation - pa.translation;
        let mode = k % 3;
        let s = match mode {
            // Towards A: usually a contact ahead (or behind when overlapping).
            0 => (-centre + shapes::unit_vector(&mut rng) * 0.3 * centre.length()).normalize_or(DVec3::X),
            // Random.
            1 => shapes::unit_vector(&mut rng),
            // Perpendicular to the centre offset, after moving B far sideways: never touches.
            _ => {
                let s = centre.normalize_or(DVec3::X).any_orthonormal_vector();
                let far = centre.normalize_or(DVec3::X) * 3.0 * (a.scale() + b.scale());
                let moved = Pose::new(pb.rotation, pb.translation + far);
                let what = format!("never {} vs {} #{k}", fa.name, fb.name);
                let mut cache = CdDualCache::default();
                check_directional(a, &pa, b, &moved, s, &mut cache, &mut t, &what);
                continue;
            }
        };
        let mut cache = CdDualCache::default();
        let what = format!("{} vs {} #{k}", fa.name, fb.name);
        check_directional(a, &pa, b, &pb, s, &mut cache, &mut t, &what);
    }
    eprintln!("{t:?}");
    assert!(t.never > 300 && t.positive > 100 && t.negative > 100, "{t:?}");
}

/// Report fields: per-phase counters and the early exit.
#[test]
fn report_counts_phases() {
    let a = shapes::ellipsoid(80, 1.0, 0.5, 0.5, 1).unwrap();
    let b = shapes::ellipsoid(80, 1.0, 0.5, 0.5, 2).unwrap();
    let pa = Pose::IDENTITY;
    let mut cache = CdDualCache::default();
    let opts = SearchOptions::default().with_early_exit(true);
    let near = Pose::from_translation(DVec3::new(0.3, 0.1, 0.0));
    let r = cd_dual::search(&a, &pa, &b, &near, &mut cache, opts).unwrap();
    assert!(r.converged && !r.separated && !r.early_exit);
    assert!(r.steps[0] > 0 && r.steps[1] > 0);
    assert!(r.signed_distance <= 0.0);
    let far = Pose::from_translation(DVec3::new(5.0, 0.0, 0.0));
    cache.forget();
    let r = cd_dual::search(&a, &pa, &b, &far, &mut cache, opts).unwrap();
    assert!(r.converged && r.separated && r.early_exit);
    assert!(r.signed_distance > 0.0);
}

/// The observer sees each phase (Search-FV, -VF, -EE) as a Start followed by the End of the
/// same phase, never nested, and the observed search answers as the plain one.
#[test]
fn observer_sees_balanced_phases() {
    let a = polycd::shapes::ellipsoid(200, 2.0, 1.0, 1.0, 3).unwrap();
    let b = polycd::shapes::ellipsoid(200, 2.0, 1.0, 1.0, 4).unwrap();
    let opts = SearchOptions::default().with_early_exit(true);
    for x in [0.5, 1.5, 3.9, 6.0] {
        let pb = Pose::from_translation(DVec3::new(x, 0.2, -0.1));
        let mut open: Option<usize> = None;
        let mut phases = 0;
        let mut observe = |e: PhaseEvent| match e {
            PhaseEvent::Start(kind) => {
                assert_eq!(open, None, "phase {kind:?} started inside another");
                open = Some(kind as usize);
            }
            PhaseEvent::End(kind) => {
                assert_eq!(open, Some(kind as usize), "phase {kind:?} ended without its start");
                open = None;
                phases += 1;
            }
            other => panic!("a variant this test does not know: {other:?}"),
        };
        let mut cache = CdDualCache::default();
        let r = cd_dual::search_observed(&a, &Pose::IDENTITY, &b, &pb, &mut cache, opts, &mut observe).unwrap();
        assert_eq!(open, None);
        assert!(phases >= 1, "x = {x}: no phase observed");
        let mut plain = CdDualCache::default();
        let q = cd_dual::search(&a, &Pose::IDENTITY, &b, &pb, &mut plain, opts).unwrap();
        assert_eq!(
            (r.separated, r.signed_distance.to_bits()),
            (q.separated, q.signed_distance.to_bits())
        );
    }
}
