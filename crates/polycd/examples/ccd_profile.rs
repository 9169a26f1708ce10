//! Profiling harness for the mesh continuous query (issue 24 item 4), for callgrind:
//! `valgrind --tool=callgrind --toggle-collect=ccd_profile::measured target/debug/examples/ccd_profile N MOTIONS [--cold-tables]`
//! (built with `cargo build -p polycd --profile test --example ccd_profile`, opt-level 3)
//! with the torus knot's segments N (120: 2 880 triangles, 480: 11 520) and the motions of
//! `bench ccd` (same seed rule: 9000 + N): a knot moved from a random pose 9 units before the
//! fixed one to 9 units past it, every other motion turning π/3 about Y and X. Prints the
//! contact times' sum and the steps so the work is not optimised away. The lazily built hulls
//! and V-Clip tables are built by an unmeasured pass first (`--cold-tables`: hulls only, the
//! tables' one-time build then falls in the measured pass, as in `bench ccd`).

use polycd::ccd::mesh::{self, MeshToiCache};
use polycd::ccd::{CcdOptions, RigidMotion};
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

#[inline(never)]
fn warm_up(knot: &TriMesh, cases: &[RigidMotion], fixed: &RigidMotion) {
    let mut cache = MeshToiCache::default();
    for m in cases {
        let _ = mesh::time_of_contact(knot, m, knot, fixed, &CcdOptions::default(), &mut cache);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let segments: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(120);
    let motions: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(40);
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
    let fixed = RigidMotion::stationary(Pose::IDENTITY).expect("fixed");
    // Build every hull of the tree and the V-Clip tables of those the queries use (both
    // lazily built on first use) outside the measured part: one unmeasured pass over the
    // motions with its own cache, then the measured pass with a fresh one (cold coherence).
    for n in knot.nodes() {
        let _ = n.hull();
    }
    if !args.iter().any(|a| a == "--cold-tables") {
        warm_up(&knot, &cases, &fixed);
    }
    let mut cache = MeshToiCache::default();
    let t = std::time::Instant::now();
    let (sum, steps) = measured(&knot, &cases, &fixed, &mut cache);
    println!(
        "{} triangles, {motions} motions: sum t {sum:.9}, {steps} steps, {:.3} ms per query",
        knot.triangles().len(),
        t.elapsed().as_secs_f64() * 1e3 / motions as f64
    );
}
