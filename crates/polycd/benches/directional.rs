//! Criterion micro-benchmark of the directional query (CD-Dual §6, and GJK's two ray casts,
//! the `auto` choice, as the comparator measured in the same run): the signed translation of
//! B along a direction that makes two ellipsoid hulls (n = 200 and 1 000 points, 200:100:100)
//! just touch, from random poses at centre distances 0.2–2 × the sum of the radii (overlapping
//! and separated pairs alike) and random directions.
//!
//! Run: `cargo bench -p polycd --bench directional` (short: append
//! `-- --warm-up-time 1 --measurement-time 2`). Figures are recorded in BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion};
use polycd::{query, shapes, Algorithm, DVec3, PairCache, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

/// Poses and directions per workload.
const CASES: usize = 64;

fn directional(c: &mut Criterion) {
    for &n in &[200usize, 1000] {
        let (Ok(a), Ok(b)) = (
            shapes::ellipsoid(n, 200.0, 100.0, 100.0, 21),
            shapes::ellipsoid(n, 200.0, 100.0, 100.0, 22),
        ) else {
            continue;
        };
        let reach = 400.0;
        let mut rng = ChaCha8Rng::seed_from_u64(23);
        let cases: Vec<(Pose, Pose, DVec3)> = (0..CASES)
            .map(|_| {
                let pa = Pose::new(shapes::random_rotation(&mut rng), DVec3::ZERO);
                let d = rng.random_range(0.2..2.0) * reach;
                let pb = Pose::new(shapes::random_rotation(&mut rng), shapes::unit_vector(&mut rng) * d);
                (pa, pb, shapes::unit_vector(&mut rng))
            })
            .collect();
        let mut g = c.benchmark_group(format!("directional/n={n}"));
        for (label, alg) in [("CD-Dual", Algorithm::CdDual), ("GJK", Algorithm::Gjk)] {
            g.bench_function(label, |bn| {
                let mut cache = PairCache::default();
                let mut i = 0;
                bn.iter(|| {
                    let (pa, pb, s) = &cases[i % CASES];
                    i += 1;
                    cache.forget();
                    query::directional(&a, pa, &b, pb, *s, alg, &mut cache).map(|r| black_box(r).iterations())
                })
            });
        }
        g.finish();
    }
}

criterion_group!(benches, directional);
criterion_main!(benches);
