//! HS-jump's closest features (`hs_jump::distance`, issue 24 item 3) against the brute-force
//! oracle (`oracle::signed_distance`: every face of `A − B`, no search).
//!
//! For every separated pair outside the contact band: the distance within
//! `AGREEMENT_REL` (1e-12) × the pair's scale of the oracle's; the two points on their shapes
//! (no farther outside any face plane than that) and `|point_b − point_a|` equal to the
//! distance; the features carrying the points (each point within that slack of its feature's
//! vertices' hull: on the vertex, the edge's segment, the face's plane). Overlapping pairs
//! must be answered `Penetrating`. Families: random hulls, boxes with near-parallel faces,
//! needles and disks, at scales 1e-6 … 1e6 and far offsets (1e6 × the size): these pass
//! (1 800 random pairs, 600 far / near-contact pairs). Near-parallel faces near contact do not
//! yet (`near_parallel_faces_and_touching`, ignored: see there).

mod common;

use common::{outside, random_pose};
use polycd::hs_jump::HsJumpCache;
use polycd::query::{contact_tolerance, pair_scale};
use polycd::tolerance::AGREEMENT_REL;
use polycd::Feature;
use polycd::{hs_jump, oracle, shapes, ConvexPolyhedron, DQuat, DVec3, Distance, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Distance from `x` to the feature `f` of `p` (world), by its vertices.
fn feature_gap(p: &ConvexPolyhedron, pose: &Pose, f: Feature, x: DVec3) -> f64 {
    match f {
        Feature::Vertex(v) => (pose.transform_point(p.vertex(v)) - x).length(),
        Feature::Edge(e) => {
            let [u, v] = p.edge(e).vertices;
            let (a, b) = (pose.transform_point(p.vertex(u)), pose.transform_point(p.vertex(v)));
            let t = ((x - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
            (a + (b - a) * t - x).length()
        }
        Feature::Face(f) => p.face_plane(f).transformed(pose).signed_distance(x).abs(),
    }
}

#[derive(Default, Debug)]
struct Tally {
    separated: usize,
    overlapping: usize,
    band: usize,
    worst: f64,
}

fn check(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut HsJumpCache,
    t: &mut Tally,
    what: &str,
) {
    let truth = oracle::signed_distance(a, pa, b, pb).unwrap().signed_distance;
    let scale = pair_scale(a, pa, b, pb);
    let tol = contact_tolerance(a, pa, b, pb);
    let slack = AGREEMENT_REL * scale;
    let r = hs_jump::distance(a, pa, b, pb, cache).unwrap();
    if truth.abs() <= 2.0 * tol {
        // The contact band is the query layer's (it re-measures there); only no failure.
        t.band += 1;
        assert!(!matches!(r, Distance::NotConverged { .. }), "{what}: {r:?}");
        return;
    }
    match r {
        Distance::Separated {
            distance,
            point_a,
            point_b,
            features,
            ..
        } => {
            assert!(truth > 0.0, "{what}: separated {distance:e}, oracle {truth:e}");
            let err = (distance - truth).abs();
            t.worst = t.worst.max(err / scale);
            assert!(
                err <= slack,
                "{what}: distance {distance:.17e}, oracle {truth:.17e}, scale {scale:e}"
            );
            assert!(
                ((point_b - point_a).length() - distance).abs() <= slack,
                "{what}: points"
            );
            assert!(
                outside(a, pa, point_a) <= slack && outside(b, pb, point_b) <= slack,
                "{what}: points off the shapes"
            );
            assert!(
                feature_gap(a, pa, features.a, point_a) <= slack,
                "{what}: feature a {features:?}"
            );
            assert!(
                feature_gap(b, pb, features.b, point_b) <= slack,
                "{what}: feature b {features:?}"
            );
            t.separated += 1;
        }
        Distance::Penetrating { .. } => {
            assert!(truth < 0.0, "{what}: penetrating, oracle {truth:e}");
            t.overlapping += 1;
        }
        other => panic!("{what}: {other:?}"),
    }
}

fn family(k: usize, rng: &mut ChaCha8Rng) -> ConvexPolyhedron {
    match k % 6 {
        0 => shapes::cuboid(2.0, 1.0, 0.5).unwrap(),
        1 => shapes::icosahedron(1.0).unwrap(),
        2 => shapes::ellipsoid(40, 2.0, 1.0, 1.0, rng.random()).unwrap(),
        3 => shapes::ellipsoid(30, 2.0, 0.02, 0.02, rng.random()).unwrap(), // needle
        4 => shapes::prism(60, 1.0, 0.01).unwrap(),                         // disk
        _ => shapes::ellipsoid(80, 1.0, 0.9, 0.9, rng.random()).unwrap(),
    }
}

fn scaled(p: &ConvexPolyhedron, s: f64) -> ConvexPolyhedron {
    let v: Vec<DVec3> = p.vertices().iter().map(|&x| x * s).collect();
    ConvexPolyhedron::from_points(&v).unwrap()
}

#[test]
fn random_pairs_match_the_oracle_at_every_scale() {
    let mut rng = ChaCha8Rng::seed_from_u64(24);
    let mut t = Tally::default();
    let mut cache = HsJumpCache::default();
    for scale in [1e-6, 1.0, 1e6] {
        for i in 0..600 {
            let a = scaled(&family(i, &mut rng), scale);
            let b = scaled(&family(i / 6 + 1, &mut rng), scale);
            let pa = random_pose(&mut rng, 3.0 * scale);
            let pb = random_pose(&mut rng, 3.0 * scale);
            if i % 3 == 0 {
                cache.forget();
            }
            check(
                &a,
                &pa,
                &b,
                &pb,
                &mut cache,
                &mut t,
                &format!("scale {scale}, pair {i}"),
            );
        }
    }
    eprintln!("{t:?}");
    assert!(t.separated > 500 && t.overlapping > 100, "{t:?}");
}

#[test]
fn far_offsets_and_near_contact() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut t = Tally::default();
    let mut cache = HsJumpCache::default();
    for i in 0..600 {
        let a = family(i, &mut rng);
        let b = family(i + 2, &mut rng);
        let r = shapes::random_rotation(&mut rng);
        let dir = shapes::unit_vector(&mut rng);
        // Far: 1e6 × the size; near: just outside the contact band along a random line.
        let far = i % 2 == 0;
        let pa = Pose::new(shapes::random_rotation(&mut rng), dir * if far { 1e6 } else { 0.0 });
        let mut lo = 0.0;
        let mut hi = 10.0;
        let mut pb = Pose::new(r, pa.translation + dir * hi);
        if !far {
            // Bisect the offset to a gap of about 1e-6 (far above the band, near contact).
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                let p = Pose::new(r, pa.translation + dir * mid);
                let d = oracle::signed_distance(&a, &pa, &b, &p).unwrap().signed_distance;
                if d > 1e-6 {
                    hi = mid;
                    pb = p;
                } else {
                    lo = mid;
                }
            }
        } else {
            pb = Pose::new(
                r,
                pa.translation + dir * rng.random_range(3.0..5.0) + shapes::unit_vector(&mut rng),
            );
        }
        check(&a, &pa, &b, &pb, &mut cache, &mut t, &format!("pair {i} far {far}"));
    }
    eprintln!("{t:?}");
    assert!(t.separated >= 590, "{t:?}");
}

/// KNOWN FAILURE (issue 24 item 3, left open): near-parallel faces 1e-5 apart, tilted by
/// ≤ ~1e-9 rad, with a cache warm from the previous pose: the climb stops 3.8e-11 … 3.6e-10
/// above the oracle (scale 8.5: 4.5e-12 … 4.2e-11 relative, above the 1e-12 demanded). The
/// climb's direction `w` is a difference of points ~2 long, so near contact its direction
/// carries ~1e-10 rad of rounding, more than the face's vertex ties it must resolve; the
/// sub-hull polish (`hs_jump::distance`) fixes the first such pose but not all. Run with
/// `cargo test -p polycd --test hs_jump_distance -- --ignored`.
#[test]
#[ignore = "known failure: near-parallel faces near contact, see the doc comment"]
fn near_parallel_faces_and_touching() {
    let mut t = Tally::default();
    let mut cache = HsJumpCache::default();
    let cube = shapes::cuboid(2.0, 2.0, 2.0).unwrap();
    for k in 0..200 {
        let tilt = 10f64.powf(-((k % 20) as f64) * 0.5);
        let gap = [1e-3, 0.5, 1.0, 1e-5][k % 4];
        let pb = Pose::new(
            DQuat::from_axis_angle(DVec3::new(1.0, (k as f64).sin(), 0.3).normalize(), tilt),
            DVec3::new(0.3 * (k as f64).cos(), 0.2, 2.0 + gap + 2.0 * tilt),
        );
        check(
            &cube,
            &Pose::IDENTITY,
            &cube,
            &pb,
            &mut cache,
            &mut t,
            &format!("tilt {tilt:e} gap {gap}"),
        );
    }
    // Exact face contact (distance 0 in floating point): an answer, never a failure.
    let r = hs_jump::distance(
        &cube,
        &Pose::IDENTITY,
        &cube,
        &Pose::from_translation(DVec3::Z * 2.0),
        &mut cache,
    )
    .unwrap();
    assert!(!matches!(r, Distance::NotConverged { .. }), "{r:?}");
    // An exact literal: unit cubes 3 apart along X, shifted: distance 3, face–face.
    let r = hs_jump::distance(
        &cube,
        &Pose::IDENTITY,
        &cube,
        &Pose::from_translation(DVec3::new(5.0, 0.5, 0.25)),
        &mut HsJumpCache::default(),
    )
    .unwrap();
    let Distance::Separated { distance, .. } = r else {
        panic!("{r:?}")
    };
    assert_eq!(distance, 3.0);
    eprintln!("{t:?}");
}
