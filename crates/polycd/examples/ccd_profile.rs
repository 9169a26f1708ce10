//! Profiling harness for the mesh continuous query (issue 24 item 4), for callgrind:
//! `valgrind --tool=callgrind --toggle-collect='ccd_profile::measured*' target/release/examples/ccd_profile N MOTIONS [--cold-tables]`
//! (built with `cargo build --release -p polycd --example ccd_profile`)
//! with the torus knot's segments N (120: 2 880 triangles, 480: 11 520, 1440: 34 560) and the
//! motions of `bench ccd` (same seed rule: 9000 + N): a knot moved from a random pose 9 units
//! before the fixed one to 9 units past it, every other motion turning π/3 about Y and X.
//! `--bunny L` takes `bench ccd-bunny`'s workload instead (`N` ignored): the shipped bunny
//! (`assets/models/bunny.obj`, 3 674 triangles) split 1:L² (L = 4: 58 784 triangles) as the
//! bench's `fast_models::subdivide` does, and its motions (seed 2026 + 24 000 + L; the first
//! 100 translate only). Prints the contact times' sum and the steps so the work is not
//! optimised away. The lazily built hulls and V-Clip tables are built by an unmeasured pass
//! first (`--cold-tables`: hulls only, the tables' one-time build then falls in the measured
//! pass, as in `bench ccd`).

use polycd::ccd::mesh::{self, MeshToiCache};
use polycd::ccd::{CcdOptions, RigidMotion};
use polycd::io::{mesh_from_bytes, MeshFormat};
use polycd::mesh::TriMesh;
use polycd::{shapes, DQuat, DVec3, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

#[inline(never)]
fn measured(knot: &TriMesh, cases: &[RigidMotion], fixed: &RigidMotion, cache: &mut MeshToiCache) -> (f64, u64) {
    let options = CcdOptions::default();
    let (mut sum, mut steps) = (0.0, 0u64);
    for m in cases {
        if let Ok(Some(toc)) = mesh::time_of_contact(knot, m, knot, fixed, &options, cache) {
            sum += toc.t;
            steps += u64::from(toc.iterations);
        }
    }
    (sum, steps)
}

#[inline(never)]
fn warm_up(knot: &TriMesh, cases: &[RigidMotion], fixed: &RigidMotion) {
    let mut cache = MeshToiCache::default();
    for m in cases {
        let _ = mesh::time_of_contact(knot, m, knot, fixed, &CcdOptions::default(), &mut cache);
    }
}

/// Splits every triangle into `n²` in its plane, each edge into `n` equal parts shared by its
/// two triangles: the same vertices, in the same order, and triangles as the bench's
/// `fast_models::subdivide` (so the same mesh as `bench ccd-bunny`).
fn subdivide(mut v: Vec<DVec3>, f: &[Vec<u32>], n: u32) -> (Vec<DVec3>, Vec<Vec<u32>>) {
    let mut edge_points: HashMap<(u32, u32), Vec<u32>> = HashMap::new();
    let mut out = Vec::with_capacity(f.len() * (n * n) as usize);
    let mut grid = vec![0u32; ((n + 1) * (n + 1)) as usize];
    for t in f {
        let c = [t[0], t[1], t[2]];
        let p = c.map(|i| v[i as usize]);
        for a in 0..=n {
            for b in 0..=(n - a) {
                let w0 = n - a - b;
                let on = if b == 0 {
                    Some((c[0], c[1], a))
                } else if a == 0 {
                    Some((c[0], c[2], b))
                } else if w0 == 0 {
                    Some((c[1], c[2], b))
                } else {
                    None
                };
                let id = match (a, b, on) {
                    (0, 0, _) => c[0],
                    _ if a == n => c[1],
                    _ if b == n => c[2],
                    (_, _, Some((i, j, k))) => {
                        let (lo, hi) = (i.min(j), i.max(j));
                        let pts = edge_points.entry((lo, hi)).or_insert_with(|| {
                            (1..n)
                                .map(|s| {
                                    let x = s as f64 / n as f64;
                                    v.push(v[lo as usize] * (1.0 - x) + v[hi as usize] * x);
                                    (v.len() - 1) as u32
                                })
                                .collect()
                        });
                        pts[(if i == lo { k } else { n - k } - 1) as usize]
                    }
                    (_, _, None) => {
                        v.push((p[0] * w0 as f64 + p[1] * a as f64 + p[2] * b as f64) / n as f64);
                        (v.len() - 1) as u32
                    }
                };
                grid[(a * (n + 1) + b) as usize] = id;
            }
        }
        let g = |a: u32, b: u32| grid[(a * (n + 1) + b) as usize];
        for a in 0..n {
            for b in 0..(n - a) {
                out.push(vec![g(a, b), g(a + 1, b), g(a, b + 1)]);
                if a + b + 1 < n {
                    out.push(vec![g(a + 1, b), g(a + 1, b + 1), g(a, b + 1)]);
                }
            }
        }
    }
    (v, out)
}

/// `bench ccd-bunny`'s mesh at subdivision `level` and its first `motions` motions (the
/// moving bunny; the other stands at the identity).
fn bunny(level: u32, motions: usize) -> (TriMesh, Vec<RigidMotion>) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/models/bunny.obj");
    let bytes = std::fs::read(path).expect("assets/models/bunny.obj");
    let (v, f) = mesh_from_bytes(&bytes, MeshFormat::Obj, "bunny.obj").expect("bunny");
    let (v, f) = subdivide(v, &f, level.max(1));
    let m = TriMesh::new(&v, &f).expect("mesh");
    let s = m.scale();
    let mut rng = ChaCha8Rng::seed_from_u64(2026 + 24_000 + level as u64);
    let turn =
        DQuat::from_rotation_y(std::f64::consts::FRAC_PI_3) * DQuat::from_rotation_x(std::f64::consts::FRAC_PI_3);
    let c = m.centroid();
    let cases = (0..motions)
        .map(|k| {
            let dir = shapes::unit_vector(&mut rng);
            let off = DVec3::new(
                rng.random_range(-0.6..0.6),
                rng.random_range(-0.6..0.6),
                rng.random_range(-0.6..0.6),
            ) * s;
            let r0 = shapes::random_rotation(&mut rng);
            let r1 = if k < 100 { r0 } else { turn * r0 };
            let q0 = Pose::new(r0, c + dir * (-3.0 * s) + off - r0 * c);
            let q1 = Pose::new(r1, c + dir * (3.0 * s) + off - r1 * c);
            RigidMotion::new(q0, q1, c).expect("motion")
        })
        .collect();
    (m, cases)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let segments: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(120);
    let motions: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(40);
    let level = args
        .iter()
        .position(|a| a == "--bunny")
        .and_then(|k| args.get(k + 1))
        .and_then(|s| s.parse::<u32>().ok());
    if let Some(level) = level {
        let (m, cases) = bunny(level, motions);
        return profile(&m, &cases, &args);
    }
    let (v, f) = shapes::torus_knot(2, 3, segments, 12, 0.45).expect("knot");
    let knot = TriMesh::new(&v, &f).expect("mesh");
    let mut rng = ChaCha8Rng::seed_from_u64(9000 + segments as u64);
    let mut cases = Vec::with_capacity(motions);
    for k in 0..motions {
        let dir = shapes::unit_vector(&mut rng);
        let off = DVec3::new(
            rng.random_range(-2.0..2.0),
            rng.random_range(-2.0..2.0),
            rng.random_range(-2.0..2.0),
        );
        let r0 = shapes::random_rotation(&mut rng);
        let turn = if k % 2 == 0 {
            DQuat::IDENTITY
        } else {
            DQuat::from_rotation_y(std::f64::consts::FRAC_PI_3) * DQuat::from_rotation_x(std::f64::consts::FRAC_PI_3)
        };
        let start = Pose::new(r0, dir * -9.0 + off);
        let end = Pose::new(turn * r0, dir * 9.0 + off);
        cases.push(RigidMotion::new(start, end, knot.centroid()).expect("motion"));
    }
    profile(&knot, &cases, &args);
}

/// Builds the hulls (and the V-Clip tables, unless `--cold-tables`) unmeasured, then runs
/// the measured pass with a fresh cache and prints its figures.
fn profile(knot: &TriMesh, cases: &[RigidMotion], args: &[String]) {
    let motions = cases.len();
    let fixed = RigidMotion::stationary(Pose::IDENTITY).expect("fixed");
    // Build every hull of the tree and the V-Clip tables of those the queries use (both
    // lazily built on first use) outside the measured part: one unmeasured pass over the
    // motions with its own cache, then the measured pass with a fresh one (cold coherence).
    for n in knot.nodes() {
        let _ = n.hull();
    }
    if !args.iter().any(|a| a == "--cold-tables") {
        warm_up(knot, cases, &fixed);
    }
    let mut cache = MeshToiCache::default();
    let t = std::time::Instant::now();
    let (sum, steps) = measured(knot, cases, &fixed, &mut cache);
    println!(
        "{} triangles, {motions} motions: sum t {sum:.9}, {steps} steps, {:.3} ms per query",
        knot.triangles().len(),
        t.elapsed().as_secs_f64() * 1e3 / motions as f64
    );
}
