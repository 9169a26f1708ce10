//! Profiling harness for the broad phase alone (issue 27 item 4), for callgrind:
//! `valgrind --tool=callgrind --toggle-collect='broad_profile::measured*' target/release/examples/broad_profile N FRAMES [DENSITY] [GRID_MIN]`
//! (built with `cargo build --release -p polycd --example broad_profile`).
//!
//! `N` boxes (extents 0.5…2.4, like `bench many-body`'s bodies of bounding radius
//! 0.35…1.2) in a cube whose side makes their summed volume `DENSITY` (default 0.1) of it; each
//! moves by a random velocity of at most 0.05 a frame, bouncing off the walls, and breathes by
//! up to 2 % a frame (a turning body's box). Every frame's boxes are computed before the
//! measured pass, which sets each box and runs [`SweepAndPrune::update`] per frame (the grid
//! from `GRID_MIN` boxes on: default [`polycd::broad::GRID_MIN_BOXES`]). A first unmeasured
//! frame fills the broad phase. Prints the candidate counts' sum and the exchanges so the work
//! is not optimised away, and checks every frame's candidates against the invariants' oracle
//! when `POLYCD_CHECK=1`.

use polycd::broad::{Aabb, SweepAndPrune};
use polycd::DVec3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[inline(never)]
fn measured(sap: &mut SweepAndPrune, frames: &[Vec<Aabb>], check: bool) -> (u64, u64) {
    let (mut candidates, mut swaps) = (0u64, 0u64);
    for boxes in frames {
        for (i, b) in boxes.iter().enumerate() {
            if let Err(e) = sap.set_aabb(i as u32, *b) {
                eprintln!("box {i}: {e}");
                std::process::exit(1);
            }
        }
        let stats = sap.update();
        swaps += stats.swaps as u64;
        candidates += sap.candidate_count() as u64;
        if check {
            if let Err(e) = sap.check_invariants() {
                eprintln!("invariants: {e}");
                std::process::exit(1);
            }
        }
    }
    (candidates, swaps)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let frame_count: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    let density: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0.1);
    let grid_min: Option<usize> = args.get(4).and_then(|s| s.parse().ok());
    let check = std::env::var("POLYCD_CHECK").is_ok_and(|v| v == "1");

    let mut rng = ChaCha8Rng::seed_from_u64(27_004 + n as u64);
    let half: Vec<DVec3> = (0..n)
        .map(|_| {
            let r = rng.random_range(0.35..1.2);
            DVec3::new(
                r * rng.random_range(0.6..1.0),
                r * rng.random_range(0.6..1.0),
                r * rng.random_range(0.6..1.0),
            )
        })
        .collect();
    let volume: f64 = half.iter().map(|h| 8.0 * h.x * h.y * h.z).sum();
    let side = (volume / density).cbrt();
    let mut pos: Vec<DVec3> = (0..n)
        .map(|_| {
            DVec3::new(
                rng.random_range(0.0..side),
                rng.random_range(0.0..side),
                rng.random_range(0.0..side),
            )
        })
        .collect();
    let mut vel: Vec<DVec3> = (0..n)
        .map(|_| {
            let d = DVec3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            );
            d.normalize_or_zero() * rng.random_range(0.0..0.05)
        })
        .collect();
    let phase: Vec<f64> = (0..n).map(|_| rng.random_range(0.0..std::f64::consts::TAU)).collect();
    let mut frames = Vec::with_capacity(frame_count + 1);
    for f in 0..=frame_count {
        let boxes: Vec<Aabb> = (0..n)
            .map(|i| {
                let breathe = 1.0 + 0.02 * (phase[i] + 0.3 * f as f64).sin();
                let h = half[i] * breathe;
                Aabb {
                    min: pos[i] - h,
                    max: pos[i] + h,
                }
            })
            .collect();
        frames.push(boxes);
        for i in 0..n {
            pos[i] += vel[i];
            for a in 0..3 {
                if pos[i][a] < 0.0 || pos[i][a] > side {
                    vel[i][a] = -vel[i][a];
                }
            }
        }
    }
    let mut sap: SweepAndPrune = SweepAndPrune::new();
    if let Some(g) = grid_min {
        sap.set_grid_threshold(g);
    }
    for (i, b) in frames[0].iter().enumerate() {
        if let Err(e) = sap.insert(i as u32, *b) {
            eprintln!("box {i}: {e}");
            std::process::exit(1);
        }
    }
    sap.update();
    let (candidates, swaps) = measured(&mut sap, &frames[1..], check);
    println!("n {n} frames {frame_count} density {density}: candidates {candidates} swaps {swaps}");
}
