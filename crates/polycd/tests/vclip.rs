//! V-Clip against the brute-force oracle, on the paper's degeneracy test (Alg. 10) and on the
//! coherence setup (Alg. 9).
//!
//! Normal suite: `cargo test -p polycd --test vclip`.
//! Large runs (10^5 pairs, 10^5 degeneracy trials):
//! `cargo test -p polycd --release --test vclip -- --ignored`.

mod common;

use common::{average_pose as average, outside};
use polycd::oracle;
use polycd::query::{contact_tolerance, pair_scale};
use polycd::shapes;
use polycd::vclip::VClipCache;
use polycd::{ConvexPolyhedron, DQuat, DVec3, Distance, Feature, Intersection, OverlapWitness, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// V-Clip as users call it: through the query layer (pose validation, near-contact
/// settlement), with a V-Clip cache of the test's own so warm and replayed starts stay
/// explicit. Separated answers beyond the contact band are V-Clip's own.
mod vclip {
    use polycd::query::{self, PairCache};
    use polycd::vclip::VClipCache;
    use polycd::{Algorithm, ConvexPolyhedron, Distance, Intersection, PolycdError, Pose};

    fn with<T>(cache: &mut VClipCache, f: impl FnOnce(&mut PairCache) -> T) -> T {
        let mut pair = PairCache {
            vclip: std::mem::take(cache),
            ..PairCache::default()
        };
        let r = f(&mut pair);
        *cache = std::mem::take(&mut pair.vclip);
        r
    }

    pub fn distance(
        a: &ConvexPolyhedron,
        pa: &Pose,
        b: &ConvexPolyhedron,
        pb: &Pose,
        cache: &mut VClipCache,
    ) -> Result<Distance, PolycdError> {
        with(cache, |c| query::distance(a, pa, b, pb, Algorithm::VClip, c))
    }

    pub fn intersect(
        a: &ConvexPolyhedron,
        pa: &Pose,
        b: &ConvexPolyhedron,
        pb: &Pose,
        cache: &mut VClipCache,
    ) -> Result<Intersection, PolycdError> {
        with(cache, |c| query::intersect(a, pa, b, pb, Algorithm::VClip, c))
    }
}

/// Base shapes at unit size (bounding radius about 1).
fn base_shapes() -> Vec<(String, ConvexPolyhedron)> {
    let mut v = vec![
        ("cube".to_string(), shapes::cuboid(1.2, 1.2, 1.2).unwrap()),
        ("box".to_string(), shapes::cuboid(1.6, 0.8, 0.4).unwrap()),
        ("tetrahedron".to_string(), shapes::tetrahedron(1.0).unwrap()),
        ("icosahedron".to_string(), shapes::icosahedron(1.0).unwrap()),
        ("disk".to_string(), scaled(&shapes::prism(60, 10.0, 1.0).unwrap(), 0.1)),
        ("icosphere1".to_string(), shapes::icosphere(1, 1.0).unwrap()),
        ("icosphere2".to_string(), shapes::icosphere(2, 1.0).unwrap()),
    ];
    for (i, &(n, a, b, c)) in [
        (30usize, 1.0, 0.7, 0.5),
        (45, 1.0, 1.0, 0.9),
        (60, 0.8, 0.5, 0.6),
        (40, 1.0, 0.05, 0.05),
        (50, 1.0, 0.02, 0.3),
    ]
    .iter()
    .enumerate()
    {
        v.push((
            format!("ellipsoid{n}_{i}"),
            shapes::ellipsoid(n, a, b, c, 100 + i as u64).unwrap(),
        ));
    }
    v
}

fn scaled(p: &ConvexPolyhedron, s: f64) -> ConvexPolyhedron {
    let pts: Vec<DVec3> = p.vertices().iter().map(|&x| x * s).collect();
    ConvexPolyhedron::from_points(&pts).unwrap()
}

#[derive(Default, Debug)]
struct Stats {
    pairs: usize,
    separated: usize,
    penetrating: usize,
    touching: usize,
    max_err: f64,
    iterations: u64,
}

/// Checks V-Clip (cold and warm from `stale`) against the oracle on one configuration.
fn check_pair(
    name: &str,
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    stale: &mut VClipCache,
    stats: &mut Stats,
) {
    let scale = pair_scale(a, pa, b, pb);
    let tol = contact_tolerance(a, pa, b, pb);
    let agree = 1e-12 * scale;
    let o = oracle::signed_distance(a, pa, b, pb).unwrap().signed_distance;
    let mut cold = VClipCache::default();
    let d = vclip::distance(a, pa, b, pb, &mut cold).unwrap();
    let warm = vclip::distance(a, pa, b, pb, stale).unwrap();
    let boolean = vclip::intersect(a, pa, b, pb, &mut cold).unwrap();
    stats.pairs += 1;
    stats.iterations += d.iterations() as u64;
    match d {
        Distance::Separated {
            distance,
            point_a,
            point_b,
            ..
        } => {
            stats.separated += 1;
            let err = (distance - o).abs();
            stats.max_err = stats.max_err.max(err / scale);
            assert!(
                err <= agree,
                "{name}: distance {distance} vs oracle {o} (scale {scale})"
            );
            assert!(outside(a, pa, point_a) <= agree, "{name}: point_a not on A");
            assert!(outside(b, pb, point_b) <= agree, "{name}: point_b not on B");
            assert!(
                ((point_a - point_b).length() - distance).abs() <= agree,
                "{name}: points"
            );
        }
        Distance::Penetrating { witness, .. } => {
            stats.penetrating += 1;
            assert!(o <= tol, "{name}: V-Clip says penetrating, oracle {o} (tol {tol})");
            let OverlapWitness::Features { point, .. } = witness else {
                panic!("{name}: unexpected witness kind");
            };
            assert!(outside(a, pa, point) <= agree, "{name}: witness not in A");
            assert!(outside(b, pb, point) <= agree, "{name}: witness not in B");
        }
        Distance::NotConverged { iterations } => panic!("{name}: not converged after {iterations}"),
        other => panic!("a variant this test does not know: {other:?}"),
    }
    // Warm start from a stale pair gives the same answer.
    match (d, warm) {
        (Distance::Separated { distance: x, .. }, Distance::Separated { distance: y, .. }) => {
            assert!((x - y).abs() <= agree, "{name}: warm {y} vs cold {x}")
        }
        (Distance::Penetrating { .. }, Distance::Penetrating { .. }) => {}
        (x, y) => assert!(o.abs() <= tol, "{name}: warm {y:?} vs cold {x:?} (oracle {o})"),
    }
    // The boolean agrees with the oracle up to the contact tolerance.
    match boolean {
        Intersection::Disjoint { plane, .. } => {
            assert!(o > -tol, "{name}: disjoint but oracle {o}");
            for &v in a.vertices() {
                let x = pa.transform_point(v);
                assert!(plane.signed_distance(x) <= 0.0, "{name}: plane does not bound A");
            }
            for &v in b.vertices() {
                let x = pb.transform_point(v);
                assert!(plane.signed_distance(x) >= 0.0, "{name}: plane does not bound B");
            }
        }
        Intersection::Touching { .. } => {
            stats.touching += 1;
            assert!(o.abs() <= tol + agree, "{name}: touching but oracle {o}");
        }
        Intersection::Overlapping { .. } => assert!(o < tol, "{name}: overlapping but oracle {o}"),
        Intersection::NotConverged { .. } => panic!("{name}: boolean not converged"),
        other => panic!("a variant this test does not know: {other:?}"),
    }
}

/// Random pairs over every family, at scales 1e-3…1e3, from deep overlap to far apart,
/// including near-touching configurations (|gap| ≤ 1e-6 · size).
fn random_pairs(seed: u64, count: usize) -> Stats {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let scales = [1e-3, 1e-1, 1.0, 10.0, 1e3];
    let bases = base_shapes();
    let lib: Vec<Vec<ConvexPolyhedron>> = scales
        .iter()
        .map(|&s| bases.iter().map(|(_, p)| scaled(p, s)).collect())
        .collect();
    let mut stats = Stats::default();
    let mut stale = VClipCache::default();
    for k in 0..count {
        let si = rng.random_range(0..scales.len());
        let s = scales[si];
        let ia = rng.random_range(0..bases.len());
        let ib = rng.random_range(0..bases.len());
        let (a, b) = (&lib[si][ia], &lib[si][ib]);
        let pa = Pose::new(
            shapes::random_rotation(&mut rng),
            DVec3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            ) * s,
        );
        let dir = shapes::unit_vector(&mut rng);
        let reach = a.scale() + b.scale();
        let mode = rng.random_range(0..4);
        let dist = match mode {
            0 => rng.random_range(0.0..0.7) * reach,
            1 => rng.random_range(0.7..1.3) * reach,
            2 => rng.random_range(1.3..20.0) * reach,
            _ => rng.random_range(0.5..1.5) * reach,
        };
        let mut pb = Pose::new(shapes::random_rotation(&mut rng), pa.translation + dir * dist);
        if mode == 3 {
            // Near touching: slide B along the closest direction to a gap of ±1e-6 · size.
            let o = oracle::signed_distance(a, &pa, b, &pb).unwrap();
            let d = o.signed_distance;
            let gap = rng.random_range(-1e-6..1e-6) * reach;
            if d > 0.0 {
                let n = o.nearest / d; // from B toward A
                pb.translation += n * (d - gap);
            }
        }
        let name = format!(
            "pair {k} ({} vs {} at scale {s}, mode {mode})",
            bases[ia].0, bases[ib].0
        );
        check_pair(&name, a, &pa, b, &pb, &mut stale, &mut stats);
    }
    stats
}

/// 10^4 pairs in two halves (the test harness runs them in parallel).
#[test]
fn differential_random_pairs() {
    let stats = random_pairs(1, 5_000);
    eprintln!("{stats:?}");
    assert!(stats.separated > 500 && stats.penetrating > 500);
}

/// The second half of the 10^4 pairs.
#[test]
fn differential_random_pairs_second_half() {
    let stats = random_pairs(3, 5_000);
    eprintln!("{stats:?}");
    assert!(stats.separated > 500 && stats.penetrating > 500);
}

/// 10^5 pairs. Run with `cargo test -p polycd --release --test vclip -- --ignored`.
#[test]
#[ignore]
fn differential_random_pairs_large() {
    let stats = random_pairs(2, 100_000);
    eprintln!("{stats:?}");
}

fn quat_axis(axis: DVec3, angle: f64) -> DQuat {
    DQuat::from_axis_angle(axis.normalize(), angle)
}

/// Exact and near-exact contact: face–face, edge–face, edge–edge crossing, parallel edges,
/// vertex–face, built from boxes.
#[test]
fn contact_configurations() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut stats = Stats::default();
    let mut stale = VClipCache::default();
    let s2 = std::f64::consts::SQRT_2;
    for k in 0..2000 {
        let s = [1e-3, 1.0, 1e3][k % 3];
        let (ax, ay, az) = (2.0 * s, 2.0 * s, 2.0 * s);
        let a = shapes::cuboid(ax, ay, az).unwrap();
        let bsz = [1.0, 2.0, 0.5][(k / 3) % 3] * s;
        let b = shapes::cuboid(bsz, bsz, bsz).unwrap();
        let hb = bsz / 2.0;
        let dy = rng.random_range(-4i32..=4) as f64 * 0.25 * s;
        let dx = rng.random_range(-4i32..=4) as f64 * 0.25 * s;
        let kind = k % 5;
        let (pa, pb) = match kind {
            // Face–face (exact, dyadic offsets).
            0 => (Pose::IDENTITY, Pose::from_translation(DVec3::new(dx, dy, s + hb))),
            // Edge of B (rotated 45° about x) on A's top face.
            1 => (
                Pose::IDENTITY,
                Pose::new(
                    quat_axis(DVec3::X, std::f64::consts::FRAC_PI_4),
                    DVec3::new(dx, dy, s + hb * s2),
                ),
            ),
            // Crossing edges: A rotated 45° about y, B 45° about x.
            2 => (
                Pose::new(quat_axis(DVec3::Y, std::f64::consts::FRAC_PI_4), DVec3::ZERO),
                Pose::new(
                    quat_axis(DVec3::X, std::f64::consts::FRAC_PI_4),
                    DVec3::new(0.0, dy * 0.25, s * s2 + hb * s2),
                ),
            ),
            // Parallel edges: both rotated 45° about y.
            3 => (
                Pose::new(quat_axis(DVec3::Y, std::f64::consts::FRAC_PI_4), DVec3::ZERO),
                Pose::new(
                    quat_axis(DVec3::Y, std::f64::consts::FRAC_PI_4),
                    DVec3::new(0.0, dy, s * s2 + hb * s2),
                ),
            ),
            // Vertex of B down onto A's top face.
            _ => {
                let q = DQuat::from_rotation_arc(DVec3::ONE.normalize(), -DVec3::Z);
                let zmin = b.vertices().iter().map(|&v| (q * v).z).fold(f64::INFINITY, f64::min);
                (Pose::IDENTITY, Pose::new(q, DVec3::new(dx * 0.5, dy * 0.5, s - zmin)))
            }
        };
        // Exact placement, a hair apart, a hair into each other.
        let nudge = [0.0, 1e-9, -1e-9, 1e-13][(k / 15) % 4] * s;
        let pb = Pose::new(pb.rotation, pb.translation + DVec3::Z * nudge);
        check_pair(
            &format!("contact {k} kind {kind}"),
            &a,
            &pa,
            &b,
            &pb,
            &mut stale,
            &mut stats,
        );
    }
    eprintln!("{stats:?}");
}

/// The paper's degeneracy test (Alg. 10): returns (queries, wrong answers, not converged).
fn degeneracy(seed: u64, trials: usize, check_oracle_every: usize) -> (usize, usize, usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let cube = shapes::cuboid(2.0, 2.0, 2.0).unwrap();
    let floor = 4.0 - 2.0 * 3f64.sqrt();
    let (mut queries, mut wrong, mut stuck) = (0usize, 0usize, 0usize);
    let random_pose = |rng: &mut ChaCha8Rng| {
        let t = DVec3::new(rng.random_range(-4.0..4.0), rng.random_range(-4.0..4.0), 4.0);
        let a = shapes::unit_vector(rng);
        let k: f64 = rng.random_range(0.0..20.0);
        Pose::new(DQuat::from_axis_angle(a, (-k).exp()), t)
    };
    let mut cache = VClipCache::default();
    let query = |pose: &Pose, cache: &mut VClipCache, queries: &mut usize| {
        *queries += 1;
        let d = vclip::distance(&cube, &Pose::IDENTITY, &cube, pose, cache).unwrap();
        let check = check_oracle_every > 0 && (*queries).is_multiple_of(check_oracle_every);
        match d {
            Distance::Separated { distance, features, .. } => {
                let mut ok = distance >= floor - 1e-12;
                if check {
                    let o = oracle::signed_distance(&cube, &Pose::IDENTITY, &cube, pose)
                        .unwrap()
                        .signed_distance;
                    ok &= (o - distance).abs() <= 1e-12 * pair_scale(&cube, &Pose::IDENTITY, &cube, pose);
                }
                (Some(features), ok, false)
            }
            Distance::Penetrating { .. } => (None, false, false),
            Distance::NotConverged { .. } => (None, false, true),
            other => panic!("a variant this test does not know: {other:?}"),
        }
    };
    for _ in 0..trials {
        let mut lo = random_pose(&mut rng);
        let mut hi = random_pose(&mut rng);
        let (x_lo, ok, nc) = query(&lo, &mut cache, &mut queries);
        wrong += usize::from(!ok && !nc);
        stuck += usize::from(nc);
        for _ in 0..200 {
            let p = average(&lo, &hi);
            if p == lo || p == hi {
                break;
            }
            let (x, ok, nc) = query(&p, &mut cache, &mut queries);
            wrong += usize::from(!ok && !nc);
            stuck += usize::from(nc);
            if x == x_lo {
                lo = p;
            } else {
                hi = p;
            }
        }
    }
    (queries, wrong, stuck)
}

#[test]
fn degeneracy_alg10() {
    let (queries, wrong, stuck) = degeneracy(10, 10_000, 37);
    eprintln!("degeneracy: {queries} queries, {wrong} wrong, {stuck} not converged");
    assert_eq!((wrong, stuck), (0, 0));
}

/// 10^5 trials. Run with `cargo test -p polycd --release --test vclip -- --ignored`.
#[test]
#[ignore]
fn degeneracy_alg10_large() {
    let (queries, wrong, stuck) = degeneracy(11, 100_000, 101);
    eprintln!("degeneracy: {queries} queries, {wrong} wrong, {stuck} not converged");
    assert_eq!((wrong, stuck), (0, 0));
}

/// Alg. 9 on the 642-vertex sphere: warm-started answers equal cold ones and need fewer
/// iterations on average than an uninformed start (vertex 0 / vertex 0). (A cold query starts
/// from the support vertices along the centre line, which on two spheres is already next to
/// the closest pair: its iteration count is printed, not compared.)
#[test]
fn coherence_sphere() {
    let s = shapes::icosphere(3, 1.0).unwrap();
    assert_eq!(s.vertices().len(), 642);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let omega = 2f64.to_radians();
    let amp = 3.0;
    let (mut warm_it, mut cold_it, mut n) = (0u64, 0u64, 0u64);
    let (mut warm_t, mut cold_t) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
    let (mut support_it, mut support_t) = (0u64, std::time::Duration::ZERO);
    for _ in 0..3 {
        let dx = rng.random_range(0.0..std::f64::consts::TAU);
        let dy = rng.random_range(0.0..std::f64::consts::TAU);
        let dz = rng.random_range(0.0..std::f64::consts::TAU);
        let axis = shapes::unit_vector(&mut rng);
        let mut warm = VClipCache::default();
        for i in 1..=300 {
            let th = omega * i as f64;
            let mut c = DVec3::new(amp * (th + dx).cos(), amp * (th + dy).cos(), amp * (th + dz).cos());
            if c.length() < 2.5 {
                c = c.normalize_or(DVec3::X) * 2.5;
            }
            let pb = Pose::new(DQuat::from_axis_angle(axis, th), c);
            let t0 = std::time::Instant::now();
            let w = vclip::distance(&s, &Pose::IDENTITY, &s, &pb, &mut warm).unwrap();
            let t1 = std::time::Instant::now();
            let origin = fp(Feature::Vertex(0), Feature::Vertex(0));
            let k = vclip::distance(&s, &Pose::IDENTITY, &s, &pb, &mut VClipCache::starting_at(origin)).unwrap();
            warm_t += t1 - t0;
            cold_t += t1.elapsed();
            let t2 = std::time::Instant::now();
            let c = vclip::distance(&s, &Pose::IDENTITY, &s, &pb, &mut VClipCache::default()).unwrap();
            support_t += t2.elapsed();
            support_it += c.iterations() as u64;
            let Distance::Separated { distance: ds, .. } = c else {
                panic!("step {i}: cold {c:?}");
            };
            let (Distance::Separated { distance: dw, .. }, Distance::Separated { distance: dc, .. }) = (w, k) else {
                panic!("step {i}: {w:?} / {k:?}");
            };
            assert!((dw - dc).abs() <= 1e-12 * pair_scale(&s, &Pose::IDENTITY, &s, &pb));
            assert!((dw - ds).abs() <= 1e-12 * pair_scale(&s, &Pose::IDENTITY, &s, &pb));
            warm_it += w.iterations() as u64;
            cold_it += k.iterations() as u64;
            n += 1;
        }
    }
    let (wm, cm) = (warm_it as f64 / n as f64, cold_it as f64 / n as f64);
    eprintln!(
        "coherence: warm {wm:.2} iterations/query ({:.2} µs), from vertex 0 {cm:.2} ({:.2} µs), \
         cold (support start) {:.2} ({:.2} µs)",
        warm_t.as_secs_f64() * 1e6 / n as f64,
        cold_t.as_secs_f64() * 1e6 / n as f64,
        support_it as f64 / n as f64,
        support_t.as_secs_f64() * 1e6 / n as f64
    );
    assert!(wm < cm);
}

/// Issue 27 item 2 (coherence never hurts): a cached pair is used while B has turned little
/// since it was cached, and dropped once B has turned by more than a fraction of the vertex
/// spacing (the 642-vertex sphere's is ≈ 8°): then the query is exactly the cold query (same
/// answer, same iterations, bit for bit), and below the limit exactly the query replayed from
/// the cached pair. Distances within 1e-12 × pair scale of GJK's either way.
#[test]
fn stale_pair_starts_cold() {
    let s = shapes::icosphere(3, 1.0).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(27);
    let (mut warm_used, mut cold_used) = (0, 0);
    for trial in 0..40 {
        let axis = shapes::unit_vector(&mut rng);
        let q0 = shapes::random_rotation(&mut rng);
        let c = shapes::unit_vector(&mut rng) * 2.5;
        let p0 = Pose::new(q0, c);
        for (turn_deg, stale) in [(0.5, false), (2.0, false), (20.0, true), (90.0, true)] {
            let p1 = Pose::new(DQuat::from_axis_angle(axis, f64::to_radians(turn_deg)) * q0, c);
            let mut cache = VClipCache::default();
            vclip::distance(&s, &Pose::IDENTITY, &s, &p0, &mut cache).unwrap();
            let pair = cache.pair().expect("a separated answer caches its pair");
            let got = vclip::distance(&s, &Pose::IDENTITY, &s, &p1, &mut cache).unwrap();
            let replay = vclip::distance(&s, &Pose::IDENTITY, &s, &p1, &mut VClipCache::starting_at(pair)).unwrap();
            let cold = vclip::distance(&s, &Pose::IDENTITY, &s, &p1, &mut VClipCache::default()).unwrap();
            let expected = if stale { cold } else { replay };
            assert_eq!(
                format!("{got:?}"),
                format!("{expected:?}"),
                "trial {trial}, turn {turn_deg}°: stale = {stale}"
            );
            if format!("{replay:?}") != format!("{cold:?}") {
                if stale {
                    cold_used += 1;
                } else {
                    warm_used += 1;
                }
            }
            let g = polycd::query::distance(
                &s,
                &Pose::IDENTITY,
                &s,
                &p1,
                polycd::Algorithm::Gjk,
                &mut polycd::query::PairCache::default(),
            )
            .unwrap();
            let (Distance::Separated { distance: x, .. }, Distance::Separated { distance: y, .. }) = (got, g) else {
                panic!("trial {trial}, turn {turn_deg}°: {got:?} / GJK {g:?}");
            };
            assert!((x - y).abs() <= 1e-12 * pair_scale(&s, &Pose::IDENTITY, &s, &p1));
        }
    }
    // The two starts differ (iterations or features) often enough for the comparison to tell
    // them apart.
    assert!(warm_used > 10 && cold_used > 10, "warm {warm_used}, cold {cold_used}");
}

/// The query layer dispatches to V-Clip and keeps its feature pair in the pair cache.
#[test]
fn through_query_api() {
    use polycd::{query, Algorithm, PairCache, Status};
    let a = shapes::cuboid(2.0, 2.0, 2.0).unwrap();
    let b = shapes::icosahedron(1.0).unwrap();
    let pa = Pose::IDENTITY;
    let mut cache = PairCache::default();
    let pb = Pose::from_translation(DVec3::new(3.0, 0.0, 0.0));
    let d = query::distance(&a, &pa, &b, &pb, Algorithm::VClip, &mut cache).unwrap();
    let Distance::Separated { distance, features, .. } = d else {
        panic!("{d:?}");
    };
    let o = oracle::signed_distance(&a, &pa, &b, &pb).unwrap().signed_distance;
    assert!((distance - o).abs() < 1e-14);
    assert_eq!(cache.vclip.pair(), Some(features));
    let tol = contact_tolerance(&a, &pa, &b, &pb);
    assert_eq!(d.status(tol), Status::Disjoint);
    let pb = Pose::from_translation(DVec3::new(1.5, 0.0, 0.0));
    let i = query::intersect(&a, &pa, &b, &pb, Algorithm::VClip, &mut cache).unwrap();
    assert_eq!(i.status(), Status::Overlapping);
    // Exactly touching: an icosahedron vertex on the cube's face.
    let q = DQuat::from_rotation_arc(b.vertex(0).normalize(), -DVec3::X);
    let pb = Pose::new(q, DVec3::new(2.0, 0.0, 0.0));
    let i = query::intersect(&a, &pa, &b, &pb, Algorithm::VClip, &mut cache).unwrap();
    assert!(matches!(i.status(), Status::Touching | Status::Overlapping), "{i:?}");
}

/// Runs V-Clip on a pair too large for the oracle and checks its answer by certificates: a
/// separated answer's closest points must span a slab holding every vertex of A on one side
/// and of B on the other (which proves the distance), a penetration witness must lie in both
/// shapes, and nothing may fail to converge. Counts (separated, penetrating, vertex-inside witnesses).
fn certify(
    k: usize,
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut VClipCache,
    stats: &mut (usize, usize, usize),
) {
    let eps = 1e-12 * pair_scale(a, pa, b, pb);
    match vclip::distance(a, pa, b, pb, cache).unwrap() {
        Distance::Separated {
            distance,
            point_a,
            point_b,
            ..
        } => {
            stats.0 += 1;
            // The slab between parallel planes through the closest points, with the normal
            // of V-Clip's own separating plane (the raw difference of two points a tiny
            // gap apart has few correct digits).
            let n = match vclip::intersect(a, pa, b, pb, &mut VClipCache::default()).unwrap() {
                Intersection::Disjoint { plane, .. } | Intersection::Touching { plane, .. } => plane.normal,
                other => panic!("pair {k}: boolean {other:?} for distance {distance}"),
            };
            assert!((n.dot(point_b - point_a) - distance).abs() <= eps, "pair {k}: normal");
            let top_a = a
                .vertices()
                .iter()
                .map(|&v| n.dot(pa.transform_point(v)))
                .fold(f64::NEG_INFINITY, f64::max);
            let bottom_b = b
                .vertices()
                .iter()
                .map(|&v| n.dot(pb.transform_point(v)))
                .fold(f64::INFINITY, f64::min);
            assert!(top_a <= n.dot(point_a) + eps, "pair {k}: A crosses the slab");
            assert!(
                bottom_b >= n.dot(point_b) - eps,
                "pair {k}: B crosses the slab by {} (distance {distance})",
                n.dot(point_b) - bottom_b,
            );
            assert!(outside(a, pa, point_a) <= eps && outside(b, pb, point_b) <= eps);
        }
        Distance::Penetrating { witness, .. } => {
            stats.1 += 1;
            let OverlapWitness::Features { point, features } = witness else {
                panic!("pair {k}: witness kind");
            };
            if matches!(
                (features.a, features.b),
                (Feature::Vertex(_), Feature::Face(_)) | (Feature::Face(_), Feature::Vertex(_))
            ) {
                stats.2 += 1;
            }
            assert!(outside(a, pa, point) <= eps, "pair {k}: witness not in A");
            assert!(outside(b, pb, point) <= eps, "pair {k}: witness not in B");
        }
        Distance::NotConverged { iterations } => panic!("pair {k}: not converged ({iterations})"),
        other => panic!("a variant this test does not know: {other:?}"),
    }
}

/// Shapes too large for the oracle (642-vertex sphere, 60-gon disk, 1 000-point ellipsoids and
/// needles, a 100-gon cone), checked by certificates (see [`certify`]).
#[test]
fn large_shapes_certified() {
    let shapes_list = [
        shapes::icosphere(3, 1.0).unwrap(),
        scaled(&shapes::prism(60, 10.0, 1.0).unwrap(), 0.1),
        shapes::ellipsoid(1000, 1.0, 0.6, 0.4, 5).unwrap(),
        shapes::ellipsoid(500, 1.0, 0.02, 0.02, 6).unwrap(),
        shapes::cone(100, 0.5, 1.5).unwrap(),
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let mut cache = VClipCache::default();
    let mut stats = (0, 0, 0);
    for k in 0..20_000 {
        let a = &shapes_list[rng.random_range(0..shapes_list.len())];
        let b = &shapes_list[rng.random_range(0..shapes_list.len())];
        let pa = Pose::new(shapes::random_rotation(&mut rng), DVec3::ZERO);
        let dir = shapes::unit_vector(&mut rng);
        let pb = Pose::new(
            shapes::random_rotation(&mut rng),
            dir * rng.random_range(0.0..1.5) * (a.scale() + b.scale()),
        );
        if k % 2 == 0 {
            cache = VClipCache::default();
        }
        certify(k, a, &pa, b, &pb, &mut cache, &mut stats);
    }
    eprintln!("large shapes: {} separated, {} penetrating", stats.0, stats.1);
    assert!(stats.0 > 3000 && stats.1 > 3000);
}

/// Fig. 8 of the paper: one shape passes straight through the other in small warm-started
/// steps (edge–face witnesses while shallow, vertex-inside witnesses when almost through),
/// checked by certificates at every step.
#[test]
fn pass_through_trajectories() {
    let list = [
        shapes::icosphere(2, 1.0).unwrap(),
        shapes::cuboid(2.0, 1.0, 0.5).unwrap(),
        scaled(&shapes::prism(60, 10.0, 1.0).unwrap(), 0.1),
        shapes::ellipsoid(200, 1.0, 0.1, 0.1, 9).unwrap(),
        shapes::tetrahedron(0.7).unwrap(),
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(33);
    let mut stats = (0, 0, 0);
    for trial in 0..200 {
        let a = &list[rng.random_range(0..list.len())];
        let b = &list[rng.random_range(0..list.len())];
        let pa = Pose::new(shapes::random_rotation(&mut rng), DVec3::ZERO);
        let rot = shapes::random_rotation(&mut rng);
        let dir = shapes::unit_vector(&mut rng);
        let side = shapes::unit_vector(&mut rng).cross(dir) * 0.3;
        let reach = 1.2 * (a.scale() + b.scale());
        let mut cache = VClipCache::default();
        for i in 0..=200 {
            let t = -reach + 2.0 * reach * i as f64 / 200.0;
            let pb = Pose::new(rot, dir * t + side);
            certify(trial * 1000 + i, a, &pa, b, &pb, &mut cache, &mut stats);
        }
    }
    eprintln!(
        "pass-through: {} separated, {} penetrating ({} vertex-inside witnesses)",
        stats.0, stats.1, stats.2
    );
    assert!(stats.0 > 1000 && stats.1 > 1000 && stats.2 > 0);
}

/// The feature pair a recorded warm query started from.
fn fp(a: Feature, b: Feature) -> polycd::FeaturePair {
    polycd::FeaturePair { a, b }
}

/// Regression: poses of the bench `coherence` scenario (V-Clip Alg. 9, seed 2026) on which
/// V-Clip returned `NotConverged` although the shapes are well apart. Object 2 is a translated
/// copy of object 1 whose rotation is a multiple of 360° (a quaternion 1e-16 from ±identity),
/// so faces and edges of the two copies of a centrally symmetric shape are parallel.
/// - Icosahedron: VF step 6 judged an edge parallel to the face as descending by a different
///   rounding than EF's derivative check, which sent it back (2-cycle from the warm pair).
/// - 642-vertex sphere: an 8-cycle through pairs on two parallel faces, all at the same
///   distance; resolved by the slab-certified cycle exit.
///
/// Each pose is checked cold and warm (from the recorded cached pair) against GJK.
#[test]
fn coherence_parallel_copies_converge() {
    use polycd::query::{self, PairCache};
    let ico = shapes::icosahedron(1.0).unwrap();
    let sphere = shapes::icosphere(3, 1.0).unwrap();
    use Feature::{Edge, Face, Vertex};
    // (shape, quaternion [x, y, z, w], translation, warm-start pair)
    #[allow(clippy::type_complexity)]
    let cases: [(&ConvexPolyhedron, [f64; 4], [f64; 3], polycd::FeaturePair); 11] = [
        (
            &ico,
            [
                7.647150561808827e-17,
                -2.1018760048876144e-16,
                9.981819841969607e-17,
                1.0,
            ],
            [-2.3110571456630655, 2.8476192584440843, 3.0911993505469106],
            fp(Face(11), Vertex(0)),
        ),
        (
            &ico,
            [
                8.508078232428298e-17,
                -5.800309764641017e-17,
                6.629101725820445e-17,
                -1.0,
            ],
            [-1.972203701173052, -2.575228531502001, -1.266930705055261],
            fp(Vertex(1), Face(12)),
        ),
        (
            &sphere,
            [
                4.6640176620551076e-17,
                -1.0033871531931863e-16,
                5.248270152622778e-17,
                -1.0,
            ],
            [-2.105033017654518, -2.625872679060091, 1.3675699844692022],
            fp(Vertex(93), Face(801)),
        ),
        (
            &sphere,
            [
                -6.332614184453956e-17,
                3.4437938945234027e-16,
                -1.1122507055104876e-16,
                -1.0,
            ],
            [3.1077436885194665, -0.6935129812183359, 1.452639454576955],
            fp(Vertex(44), Edge(1491)),
        ),
        (
            &sphere,
            [
                7.779497754533812e-16,
                1.3593504739056095e-15,
                1.5511873296894374e-15,
                1.0,
            ],
            [-1.9316099352299099, -2.950745508202941, 0.8928645538984551],
            fp(Vertex(330), Edge(977)),
        ),
        (
            &sphere,
            [
                4.326312128729053e-16,
                7.559581129802439e-16,
                8.626418787067829e-16,
                -1.0,
            ],
            [-1.9316099352298932, -2.9507455082029477, 0.8928645538984756],
            fp(Vertex(330), Edge(977)),
        ),
        (
            &sphere,
            [
                4.368931765824398e-19,
                7.634052549052451e-19,
                8.711399904286779e-19,
                -1.0,
            ],
            [-1.931609935229899, -2.9507455082029312, 0.8928645538985107],
            fp(Vertex(330), Edge(977)),
        ),
        (
            &sphere,
            [
                -9.51209717313905e-16,
                -1.742216593430372e-15,
                -1.4348939145145541e-15,
                1.0,
            ],
            [1.6771071254681382, 2.745309847792021, 0.6049240145049823],
            fp(Edge(1008), Edge(189)),
        ),
        (
            &sphere,
            [
                1.3859232767548952e-17,
                1.7284712913777143e-17,
                2.439252993706424e-16,
                1.0,
            ],
            [-2.543898483472063, 2.587253333515967, -1.3694631705904932],
            fp(Face(963), Vertex(184)),
        ),
        (
            &sphere,
            [
                4.039363026471514e-17,
                -3.1035107981512863e-16,
                -1.924290579179463e-16,
                -1.0,
            ],
            [2.7942642829579167, -0.36554711624852754, -2.6348654412664727],
            fp(Edge(1359), Vertex(310)),
        ),
        (
            &sphere,
            [
                1.758558507492258e-16,
                -1.8409812271555628e-16,
                9.473415956869198e-16,
                -1.0,
            ],
            [3.0347406357215707, 1.459482422931478, 2.5587245811738586],
            fp(Edge(821), Edge(1559)),
        ),
    ];
    for (k, (shape, q, t, warm)) in cases.iter().enumerate() {
        let pb = Pose::new(DQuat::from_array(*q), DVec3::from_array(*t));
        let pa = Pose::IDENTITY;
        let reference = match query::distance(
            shape,
            &pa,
            shape,
            &pb,
            polycd::Algorithm::Gjk,
            &mut PairCache::default(),
        ) {
            Ok(Distance::Separated { distance, .. }) => distance,
            other => panic!("case {k}: GJK {other:?}"),
        };
        let tol = 1e-12 * pair_scale(shape, &pa, shape, &pb);
        for (label, mut cache) in [
            ("cold", VClipCache::default()),
            ("warm", VClipCache::starting_at(*warm)),
        ] {
            let d = vclip::distance(shape, &pa, shape, &pb, &mut cache).unwrap();
            let Distance::Separated { distance, .. } = d else {
                panic!("case {k} ({label}): {d:?}");
            };
            assert!(
                (distance - reference).abs() <= tol,
                "case {k} ({label}): {distance} vs GJK {reference}"
            );
            assert!(cache.pair().is_some(), "case {k} ({label}): the pair is cached");
        }
    }
    // The VF/EF consistency fix on its own: the recorded warm pair of the first case is
    // certified at once (it used to bounce VF → EF → VF).
    let pb = Pose::new(DQuat::from_array(cases[0].1), DVec3::from_array(cases[0].2));
    let d = vclip::distance(
        &ico,
        &Pose::IDENTITY,
        &ico,
        &pb,
        &mut VClipCache::starting_at(cases[0].3),
    )
    .unwrap();
    assert!(matches!(d, Distance::Separated { iterations: 1, .. }), "{d:?}");
}

/// The bench `coherence` scenario (V-Clip Alg. 9) replayed in full (seed 2026, 4 shapes ×
/// 8 rates × 10 loops × 1 000 steps, warm cache per loop through the query layer): no
/// `NotConverged`, every distance within 1e-12 × pair scale of GJK's.
#[test]
fn coherence_scenario_replay() {
    use polycd::query::{self, PairCache};
    let tau = std::f64::consts::TAU;
    let omegas = [0.0, 1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 25.0];
    let bodies = [
        shapes::cuboid(2.0, 2.0, 2.0).unwrap(),
        shapes::icosahedron(1.0).unwrap(),
        shapes::prism(60, 10.0, 1.0).unwrap(),
        shapes::icosphere(3, 1.0).unwrap(),
    ];
    let mut failures = Vec::new();
    for (si, body) in bodies.iter().enumerate() {
        let radius = body.vertices().iter().map(|v| v.length()).fold(0.0, f64::max);
        for (wi, &omega) in omegas.iter().enumerate() {
            let mut rng = ChaCha8Rng::seed_from_u64(2026 + 100 * si as u64 + wi as u64);
            for lp in 0..10 {
                // The scenario's path: phases redrawn until |Σ e^{2iδ}| ≤ 2, then a random axis.
                let (dx, dy, dz) = loop {
                    let d: [f64; 3] = [
                        rng.random_range(0.0..tau),
                        rng.random_range(0.0..tau),
                        rng.random_range(0.0..tau),
                    ];
                    let (s, c) = d
                        .iter()
                        .fold((0.0, 0.0), |(s, c), x: &f64| (s + (2.0 * x).sin(), c + (2.0 * x).cos()));
                    if (s * s + c * c).sqrt() <= 2.0 {
                        break (d[0], d[1], d[2]);
                    }
                };
                let axis = shapes::unit_vector(&mut rng);
                let amp = 2.2 * std::f64::consts::SQRT_2 * radius;
                let mut cache = PairCache::default();
                for i in 1..=1000 {
                    let theta = (omega * i as f64).to_radians();
                    let c = DVec3::new(
                        amp * (theta + dx).cos(),
                        amp * (theta + dy).cos(),
                        amp * (theta + dz).cos(),
                    );
                    let pb = Pose::new(DQuat::from_axis_angle(axis, theta), c);
                    let pa = Pose::IDENTITY;
                    let d = query::distance(body, &pa, body, &pb, polycd::Algorithm::VClip, &mut cache).unwrap();
                    let g = query::distance(body, &pa, body, &pb, polycd::Algorithm::Gjk, &mut PairCache::default())
                        .unwrap();
                    let ok = match (&d, &g) {
                        (Distance::Separated { distance: x, .. }, Distance::Separated { distance: y, .. }) => {
                            (x - y).abs() <= 1e-12 * pair_scale(body, &pa, body, &pb)
                        }
                        _ => false,
                    };
                    if !ok {
                        failures.push(format!(
                            "shape {si}, ω = {omega}, loop {lp}, step {i}: {d:?} / GJK {g:?}"
                        ));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failure(s): {:#?}",
        failures.len(),
        &failures[..failures.len().min(10)]
    );
}

/// V-Clip's `intersect` and `distance` on one pair: both must report penetration, with
/// witnesses that `polycd::verify` accepts (never `NotConverged`).
fn assert_vclip_penetrating(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose, label: &str) {
    use polycd::verify::{verify, Answer};
    let mut cache = VClipCache::default();
    let r = vclip::intersect(a, pa, b, pb, &mut cache).unwrap();
    assert!(
        matches!(r, Intersection::Overlapping { .. }),
        "{label}: intersect {r:?}"
    );
    verify(a, pa, b, pb, &Answer::Intersection(r)).unwrap_or_else(|e| panic!("{label}: {e:?} {r:?}"));
    let mut cache = VClipCache::default();
    let d = vclip::distance(a, pa, b, pb, &mut cache).unwrap();
    assert!(matches!(d, Distance::Penetrating { .. }), "{label}: distance {d:?}");
    verify(a, pa, b, pb, &Answer::Distance(d)).unwrap_or_else(|e| panic!("{label}: {e:?} {d:?}"));
}

/// Found by `polycd differential --pairs 2000 --seed 61`, pair 1833 (2026-11-25): a
/// tetrahedron against itself at scale 1e6, concentric, B tilted by e^-20 rad. V-Clip cycled
/// (Brent detection fired) and answered `NotConverged` for a deep overlap.
#[test]
fn concentric_tilted_tetrahedra_seed61_pair1833() {
    let t = shapes::tetrahedron(1.0).unwrap();
    let a = scaled(&t, 1e6 / t.scale());
    let pa = Pose::new(
        DQuat::from_xyzw(
            0.28029905684604667,
            -0.5786063800876088,
            -0.606710493454085,
            -0.4674927515864081,
        ),
        DVec3::new(593268.0849250159, -608483.9306881238, -2468291.468891724),
    );
    let pb = Pose::new(
        DQuat::from_xyzw(
            0.28029905764261137,
            -0.5786063797602754,
            -0.6067104937634926,
            -0.46749275111239014,
        ),
        DVec3::new(593268.0849250159, -608483.9306881238, -2468291.468891724),
    );
    assert_vclip_penetrating(&a, &pa, &a, &pb, "seed 61 pair 1833");
}

/// The configuration above in random frames and at scales 1, 1e3, 1e6, with tilts
/// e^-15 … e^-25, for the tetrahedron, the cube and the icosahedron: nearly identical
/// concentric solids must be reported penetrating.
#[test]
fn concentric_tiny_tilt_is_penetrating() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x0c0c_e175);
    let bases = [
        ("tetrahedron", shapes::tetrahedron(1.0).unwrap()),
        ("cube", shapes::cuboid(1.0, 1.0, 1.0).unwrap()),
        ("icosahedron", shapes::icosahedron(1.0).unwrap()),
    ];
    for (name, base) in &bases {
        for &s in &[1.0, 1e3, 1e6] {
            let p = scaled(base, s / base.scale());
            for k in 15..=25u32 {
                for _ in 0..8 {
                    let ra = shapes::random_rotation(&mut rng);
                    let rb = ra * DQuat::from_axis_angle(shapes::unit_vector(&mut rng), (-(k as f64)).exp());
                    let c = shapes::unit_vector(&mut rng) * (s * rng.random_range(0.0..3.0));
                    let (pa, pb) = (Pose::new(ra, c), Pose::new(rb, c));
                    assert_vclip_penetrating(
                        &p,
                        &pa,
                        &p,
                        &pb,
                        &format!("{name} scale {s:e} tilt e^-{k} {pa:?} {pb:?}"),
                    );
                }
            }
        }
    }
}

/// The translation-only handler frame is chosen from the relative quaternion's vector part
/// (zero of either sign, w = ±1, all giving exactly the identity matrix): each such rotation
/// of B is checked against the oracle (`check_pair`) and gives the identity rotation's
/// distance bits and features, apart, near contact and overlapping.
#[test]
fn translation_only_quaternions() {
    let rotations = [
        DQuat::from_xyzw(0.0, 0.0, 0.0, 1.0),
        DQuat::from_xyzw(-0.0, -0.0, -0.0, 1.0),
        DQuat::from_xyzw(0.0, 0.0, 0.0, -1.0),
        DQuat::from_xyzw(-0.0, 0.0, -0.0, -1.0),
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(27);
    let mut compared = 0usize;
    for (name, s) in base_shapes() {
        let r = s.vertices().iter().map(|v| v.length()).fold(0.0, f64::max);
        for k in 0..40 {
            let t = shapes::unit_vector(&mut rng) * (r * [0.5, 1.9, 2.0, 2.5, 4.0][k % 5]);
            let mut first: Option<(u64, Option<polycd::FeaturePair>)> = None;
            for q in rotations {
                let pb = Pose::new(q, t);
                let mut stats = Stats::default();
                check_pair(
                    &name,
                    &s,
                    &Pose::IDENTITY,
                    &s,
                    &pb,
                    &mut VClipCache::default(),
                    &mut stats,
                );
                let d = vclip::distance(&s, &Pose::IDENTITY, &s, &pb, &mut VClipCache::default()).unwrap();
                let key = match d {
                    Distance::Separated { distance, features, .. } => (distance.to_bits(), Some(features)),
                    other => (other.signed_distance().unwrap_or(f64::NAN).to_bits(), None),
                };
                match first {
                    None => first = Some(key),
                    Some(f) => {
                        assert_eq!(f, key, "{name}: rotation {q:?} at {t:?}");
                        compared += 1;
                    }
                }
            }
        }
    }
    assert!(compared >= 3 * 40, "compared {compared}");
}
