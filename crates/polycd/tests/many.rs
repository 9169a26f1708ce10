//! Issue 27 items 4 and 5: many queries on every core.
//!
//! - `query::distance_many` / `intersect_many` against the single-pair functions called one by
//!   one (each with a new `PairCache`): equal answers, in order, for every algorithm that
//!   answers; a bad shape index is an error for that query alone. The single-pair answers are
//!   checked against the brute-force oracle on a sample (the many-call adds no error of its
//!   own).
//! - `broad::World`'s narrow phase on every core (more than `PARALLEL_MIN_PAIRS` candidates)
//!   against the same world kept on one thread: equal reports, frame after frame.

use polycd::broad::{World, WorldOptions, PARALLEL_MIN_PAIRS};
use polycd::query::{self, Algorithm, Distance, PairCache, PosedPair};
use polycd::{oracle, shapes, ConvexPolyhedron, DQuat, DVec3, PolycdError, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

fn pool() -> Vec<Arc<ConvexPolyhedron>> {
    vec![
        Arc::new(shapes::cuboid(1.0, 1.0, 1.0).unwrap()),
        Arc::new(shapes::icosahedron(0.8).unwrap()),
        Arc::new(shapes::ellipsoid(200, 1.0, 0.6, 0.3, 3).unwrap()),
        Arc::new(shapes::ellipsoid(60, 0.3, 0.3, 1.2, 4).unwrap()),
        Arc::new(shapes::cuboid(2.0, 0.2, 0.5).unwrap().with_radius(0.1).unwrap()),
    ]
}

fn random_pose(rng: &mut ChaCha8Rng, spread: f64) -> Pose {
    let t = DVec3::new(
        rng.random_range(-spread..spread),
        rng.random_range(-spread..spread),
        rng.random_range(-spread..spread),
    );
    Pose::new(shapes::random_rotation(rng), t)
}

fn queries(n: usize, shapes: usize, seed: u64) -> Vec<PosedPair> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let (a, b) = (rng.random_range(0..shapes as u32), rng.random_range(0..shapes as u32));
            PosedPair::new(a, random_pose(&mut rng, 1.5), b, random_pose(&mut rng, 1.5))
        })
        .collect()
}

#[test]
fn distance_many_equals_one_by_one() {
    let shapes = pool();
    let qs = queries(3000, shapes.len(), 1);
    for alg in [Algorithm::Auto, Algorithm::Gjk, Algorithm::VClip, Algorithm::QpFast] {
        let many = query::distance_many(&shapes, &qs, alg);
        assert_eq!(many.len(), qs.len());
        let mut kinds = [0usize; 2];
        for (q, got) in qs.iter().zip(&many) {
            let (a, b) = (&*shapes[q.a as usize], &*shapes[q.b as usize]);
            let want = query::distance(a, &q.pose_a, b, &q.pose_b, alg, &mut PairCache::default());
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "{alg:?} {q:?}");
            match got {
                Ok(Distance::Separated { .. }) => kinds[0] += 1,
                Ok(Distance::Penetrating { .. }) => kinds[1] += 1,
                _ => {}
            }
        }
        // The workload has both kinds of pairs.
        assert!(kinds[0] > 300 && kinds[1] > 300, "{alg:?} {kinds:?}");
    }
    // The answers themselves, on a sample, against the brute-force oracle.
    let many = query::distance_many(&shapes, &qs[..300], Algorithm::Auto);
    for (q, got) in qs[..300].iter().zip(&many) {
        let (a, b) = (&*shapes[q.a as usize], &*shapes[q.b as usize]);
        if a.radius() > 0.0 || b.radius() > 0.0 {
            continue;
        }
        let truth = oracle::signed_distance(a, &q.pose_a, b, &q.pose_b)
            .unwrap()
            .signed_distance;
        if let Ok(Distance::Separated { distance, .. }) = got {
            assert!((distance - truth).abs() <= 1e-9, "{q:?}: {distance} vs {truth}");
        }
    }
}

#[test]
fn intersect_many_equals_one_by_one_and_bad_indices_fail_alone() {
    let shapes = pool();
    let mut qs = queries(3000, shapes.len(), 2);
    qs[17].b = 99;
    for alg in [Algorithm::Auto, Algorithm::Gjk, Algorithm::HsJump, Algorithm::CdDual] {
        let mut out = Vec::new();
        query::intersect_many_into(&shapes, &qs, alg, &mut out);
        assert_eq!(out.len(), qs.len());
        for (k, (q, got)) in qs.iter().zip(&out).enumerate() {
            if k == 17 {
                assert!(matches!(got, Err(PolycdError::InvalidOption { .. })), "{got:?}");
                continue;
            }
            let (a, b) = (&*shapes[q.a as usize], &*shapes[q.b as usize]);
            let want = query::intersect(a, &q.pose_a, b, &q.pose_b, alg, &mut PairCache::default());
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "{alg:?} {q:?}");
        }
    }
    // Plain shapes (not Arcs) work too, and an empty list gives an empty answer.
    let plain: Vec<ConvexPolyhedron> = shapes.iter().map(|s| (**s).clone()).collect();
    let a = query::intersect_many(&plain, &qs[..50], Algorithm::Auto);
    let b = query::intersect_many(&shapes, &qs[..50], Algorithm::Auto);
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    assert!(query::distance_many(&plain, &[], Algorithm::Auto).is_empty());
}

/// A dense moving crowd (1 000 bodies, several thousand candidates): the parallel narrow
/// phase's reports equal those of the same world on one thread, every frame.
#[test]
fn world_narrow_phase_on_every_core_equals_one_thread() {
    let shapes = pool();
    let mut worlds = [World::new(WorldOptions::default()), World::new(WorldOptions::default())];
    worlds[1].set_parallel(false);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut bodies = Vec::new();
    for i in 0..1000usize {
        let c = DVec3::new((i % 10) as f64, ((i / 10) % 10) as f64, (i / 100) as f64) * 1.6;
        let s = shapes[i % 4].clone();
        let spin = DQuat::from_axis_angle(shapes::random_rotation(&mut rng) * DVec3::X, 0.05);
        let p = Pose::new(shapes::random_rotation(&mut rng), c);
        let hs: Vec<_> = worlds
            .iter_mut()
            .map(|w| {
                let h = w.insert(s.clone(), p).unwrap();
                w.set_margin(h, 0.2).unwrap();
                h
            })
            .collect();
        bodies.push((hs, p, spin, DVec3::new(rng.random_range(-0.02..0.02), 0.01, -0.01)));
    }
    let mut max_candidates = 0;
    for frame in 0..12 {
        for (hs, p, spin, v) in bodies.iter_mut() {
            *p = Pose::new(*spin * p.rotation, p.translation + *v);
            for (w, h) in worlds.iter_mut().zip(hs.iter()) {
                w.set_pose(*h, *p).unwrap();
            }
        }
        let stats: Vec<_> = worlds.iter_mut().map(|w| w.update().unwrap()).collect();
        assert_eq!(stats[0], stats[1], "frame {frame}");
        let (a, b): (Vec<_>, Vec<_>) = (worlds[0].pairs().collect(), worlds[1].pairs().collect());
        assert_eq!(a, b, "frame {frame}");
        max_candidates = max_candidates.max(worlds[0].broad_phase().candidate_count());
    }
    assert!(
        max_candidates >= PARALLEL_MIN_PAIRS,
        "{max_candidates} candidates: the parallel path was not taken"
    );
}

/// A narrow-phase error (V-Clip refuses a flat shape) on one thread and on every core: the
/// same error (the first failing pair in sorted order), every other pair answered, the same
/// reports.
#[test]
fn world_errors_are_the_same_on_every_core() {
    let shapes = pool();
    let flat = Arc::new(ConvexPolyhedron::from_points(&[DVec3::ZERO, DVec3::X, DVec3::Y]).unwrap());
    let mut worlds = [World::new(WorldOptions::default()), World::new(WorldOptions::default())];
    worlds[1].set_parallel(false);
    for w in worlds.iter_mut() {
        for i in 0..800usize {
            let c = DVec3::new((i % 10) as f64, ((i / 10) % 10) as f64, (i / 100) as f64) * 1.5;
            let s = if i % 97 == 5 {
                flat.clone()
            } else {
                shapes[i % 4].clone()
            };
            let h = w.insert(s, Pose::from_translation(c)).unwrap();
            w.set_margin(h, 0.3).unwrap();
        }
    }
    let r: Vec<_> = worlds.iter_mut().map(|w| w.update()).collect();
    assert_eq!(format!("{:?}", r[0]), format!("{:?}", r[1]));
    assert!(matches!(r[0], Err(PolycdError::UnsupportedShape { .. })), "{:?}", r[0]);
    let (a, b): (Vec<_>, Vec<_>) = (worlds[0].pairs().collect(), worlds[1].pairs().collect());
    assert_eq!(a, b);
    assert!(a.len() >= PARALLEL_MIN_PAIRS, "{}", a.len());
}
