//! Profiling harness for the mesh continuous query (issue 24 item 4), for callgrind:
//! `valgrind --tool=callgrind --toggle-collect='ccd_profile::measured*' target/release/examples/ccd_profile N MOTIONS [--cold-tables]`
//! (built with `cargo build --release -p polycd --example ccd_profile`)
//! with the torus knot's segments N (120: 2 880 triangles, 480: 11 520, 1440: 34 560) and the
//! motions of `bench ccd` (same seed rule: 9000 + N): a knot moved from a random pose 9 units
//! before the fixed one to 9 units past it, every other motion turning π/3 about Y and X.
//! `--bunny L` takes `bench ccd-bunny`'s workload instead (`N` ignored): the shipped bunny
//! (`assets/models/bunny.obj`, 3 674 triangles) split 1:L² by `shapes::subdivide` (L = 4:
//! 58 784 triangles) and its motions from `shapes::crossing_poses` (seed 2026 + 24 000 + L;
//! the first 100 translate only), both as the bench uses them. Prints the contact times' sum
//! and the steps so the work is not optimised away. The hulls and V-Clip tables are built
//! by `ccd::mesh::prepare` first, unmeasured (`--cold-tables`: hulls only, the tables'
//! one-time builds then fall in the measured pass). Prints wall and this thread's CPU time
//! (Linux schedstat, tick-granular: use a pass of 100 ms or more; the figure that holds on a
//! loaded machine).

use polycd::ccd::mesh::{self, MeshToiCache};
use polycd::ccd::{CcdOptions, RigidMotion};
use polycd::io::{mesh_from_bytes, MeshFormat};
use polycd::mesh::TriMesh;
use polycd::{shapes, DQuat, DVec3, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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

/// `bench ccd-bunny`'s mesh at subdivision `level` and its first `motions` motions (the
/// moving bunny; the other stands at the identity).
fn bunny(level: u32, motions: usize) -> (TriMesh, Vec<RigidMotion>) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/models/bunny.obj");
    let bytes = std::fs::read(path).expect("assets/models/bunny.obj");
    let (v, f) = mesh_from_bytes(&bytes, MeshFormat::Obj, "bunny.obj").expect("bunny");
    let (v, f) = shapes::subdivide(&v, &f, level.max(1)).expect("subdivision");
    let m = TriMesh::new(&v, &f).expect("mesh");
    let cases = shapes::crossing_poses(m.centroid(), m.scale(), motions, 100, 2026 + 24_000 + u64::from(level))
        .into_iter()
        .map(|(q0, q1)| RigidMotion::new(q0, q1, m.centroid()).expect("motion"))
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
    // Build every hull of the tree and its V-Clip tables (else built lazily on first use)
    // outside the measured part, as an application does with the mesh (`mesh::prepare`);
    // `--cold-tables` builds the hulls only, so the tables' one-time builds fall in the
    // measured pass (as before `mesh::prepare` existed).
    let t = std::time::Instant::now();
    let c = cpu_ns();
    if args.iter().any(|a| a == "--cold-tables") {
        for n in knot.nodes() {
            let _ = n.hull();
        }
    } else {
        mesh::prepare(knot).expect("hulls");
    }
    let prepare_ms = t.elapsed().as_secs_f64() * 1e3;
    let prepare_cpu = cpu_ns().zip(c).map_or(f64::NAN, |(b, a)| (b - a) as f64 * 1e-6);
    let mut cache = MeshToiCache::default();
    let t = std::time::Instant::now();
    let c = cpu_ns();
    let (sum, steps) = measured(knot, cases, &fixed, &mut cache);
    let cpu = cpu_ns().zip(c).map_or(f64::NAN, |(b, a)| (b - a) as f64 * 1e-6);
    println!(
        "{} triangles, {motions} motions: sum t {sum:.9}, {steps} steps, {:.3} ms per query, CPU {:.3} ms per query (hulls and tables built before: {prepare_ms:.1} ms, CPU {prepare_cpu:.1} ms)",
        knot.triangles().len(),
        t.elapsed().as_secs_f64() * 1e3 / motions as f64,
        cpu / motions as f64
    );
}

/// This thread's CPU time so far in ns (`/proc/thread-self/schedstat`, Linux), so that the
/// figures hold on a loaded machine where wall clock does not; `None` elsewhere. The kernel
/// updates it at scheduler ticks and switches only (4 ms granularity at 250 Hz): meaningful
/// over a pass of 100 ms or more (250 bunny motions), not per query.
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}
