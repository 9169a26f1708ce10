//! Criterion micro-benchmarks of the foundation: hull construction and the three support
//! strategies (linear scan, hill-climbing, Dobkin–Kirkpatrick hierarchy) on hulls of n points
//! on the ellipsoid 200:100:100, n = 100, 1 000, 10 000.
//!
//! Run: `cargo bench -p polycd --bench support` (short: append
//! `-- --warm-up-time 1 --measurement-time 2`). Figures are recorded in BENCHMARKS.md; the
//! target is the hierarchy and hill-climbing ≥ 5× cheaper than the scan at n = 1 000 and
//! ≥ 20× at n = 10 000.
//!
//! Direction workloads: `random` — uniform unit vectors, the climb warm-started from the
//! previous answer (no coherence to exploit); `coherent` — the direction turns 1° per query
//! about a fixed axis (a simulation step), the climb warm-started from the previous answer.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use polycd::{shapes, DQuat, DVec3};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

const SIZES: [usize; 3] = [100, 1000, 10_000];
/// Directions per table (a power of two: the index wraps with a mask).
const DIRS: usize = 4096;

fn random_dirs(seed: u64) -> Vec<DVec3> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..DIRS).map(|_| shapes::unit_vector(&mut rng)).collect()
}

fn coherent_dirs(seed: u64) -> Vec<DVec3> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let axis = shapes::unit_vector(&mut rng);
    let start = shapes::unit_vector(&mut rng);
    (0..DIRS)
        .map(|i| DQuat::from_axis_angle(axis, (i as f64).to_radians()) * start)
        .collect()
}

fn hull(c: &mut Criterion) {
    let mut g = c.benchmark_group("hull");
    g.sample_size(10);
    for &n in &SIZES {
        let pts = shapes::ellipsoid_points(n, 200.0, 100.0, 100.0, 11);
        g.bench_with_input(BenchmarkId::new("ellipsoid", n), &pts, |b, pts| {
            b.iter(|| polycd::ConvexPolyhedron::from_points(black_box(pts)).map(|p| p.vertices().len()))
        });
    }
    g.finish();
}

fn support(c: &mut Criterion) {
    let random = random_dirs(1);
    let coherent = coherent_dirs(2);
    let mask = DIRS - 1;
    for &n in &SIZES {
        let Ok(poly) = shapes::ellipsoid(n, 200.0, 100.0, 100.0, 11) else {
            continue;
        };
        let mut g = c.benchmark_group(format!("support/n={n}"));
        g.bench_function("scan", |b| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) & mask;
                poly.support_scan(black_box(random[i]))
            })
        });
        g.bench_function("hill-climb random", |b| {
            let (mut i, mut warm) = (0, 0u32);
            b.iter(|| {
                i = (i + 1) & mask;
                warm = poly.support_climb(black_box(random[i]), warm);
                warm
            })
        });
        g.bench_function("hill-climb coherent", |b| {
            let (mut i, mut warm) = (0, 0u32);
            b.iter(|| {
                i = (i + 1) & mask;
                warm = poly.support_climb(black_box(coherent[i]), warm);
                warm
            })
        });
        g.bench_function("hierarchy", |b| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) & mask;
                poly.support_hierarchy(black_box(random[i]))
            })
        });
        g.finish();
    }
}

criterion_group!(benches, hull, support);
criterion_main!(benches);
