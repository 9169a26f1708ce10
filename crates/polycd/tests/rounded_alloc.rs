//! No allocation per query in steady state on rounded shapes: the rounded layer
//! (`query::rounded`) adds no buffers of its own, it reuses the core queries' state in the
//! `PairCache`. Every algorithm and question, rounded boxes and a rounded ellipsoid hull at
//! overlapping (cores overlapping, and rounded only), near-contact and apart offsets under
//! coherent motion: after two passes over the poses (warm-up: scratch reaches its high-water
//! mark), a third pass over the same poses allocates nothing. One `#[test]` in this file so
//! the measured section runs alone.

use polycd::query::{self, Algorithm};
use polycd::{shapes, DQuat, DVec3, PairCache, PolycdError, Pose};

mod counting;
use counting::count;

#[global_allocator]
static GLOBAL: counting::Counting = counting::Counting;

fn pose_b(d: f64, i: usize) -> Pose {
    let s = i as f64;
    let dir = DVec3::new(1.0, 0.3, 0.2).normalize();
    let axis = DVec3::new(0.3, 1.0, 0.5).normalize();
    Pose::new(
        DQuat::from_axis_angle(axis, 0.002 * s),
        dir * (d + 0.01 * (0.013 * s).sin()) + DVec3::new(0.0, 0.02 * (0.007 * s).cos(), 0.0),
    )
}

#[test]
fn warm_rounded_queries_do_not_allocate() {
    let a = shapes::cuboid(1.0, 1.0, 1.0).unwrap().with_radius(0.2).unwrap();
    let b = shapes::ellipsoid(100, 0.9, 0.7, 0.5, 2)
        .unwrap()
        .with_radius(0.1)
        .unwrap();
    let pairs = [(&a, &a, [0.7, 1.25, 1.45, 3.0]), (&a, &b, [0.8, 1.5, 1.7, 3.0])];
    let mut failures = Vec::new();
    for alg in Algorithm::ALL.into_iter().filter(|&a| a != Algorithm::Qp) {
        for q in 0..3 {
            for (sa, sb, offsets) in &pairs {
                for d in offsets {
                    let mut cache = PairCache::default();
                    let ask = |i: usize, cache: &mut PairCache| {
                        let pb = pose_b(*d, i);
                        let r = match q {
                            0 => query::intersect(sa, &Pose::IDENTITY, sb, &pb, alg, cache).map(|_| ()),
                            1 => query::distance(sa, &Pose::IDENTITY, sb, &pb, alg, cache).map(|_| ()),
                            _ => query::directional(sa, &Pose::IDENTITY, sb, &pb, -pb.translation, alg, cache)
                                .map(|_| ()),
                        };
                        !matches!(r, Err(PolycdError::Unsupported { .. }))
                    };
                    let mut supported = true;
                    for _ in 0..2 {
                        for i in 0..300 {
                            supported &= ask(i, &mut cache);
                        }
                    }
                    if !supported {
                        continue;
                    }
                    let n = count(|| {
                        for i in 0..300 {
                            ask(i, &mut cache);
                        }
                    });
                    if n != 0 {
                        failures.push(format!("{} question {q} offset {d}: {n} allocations", alg.name()));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
