//! A fixed loop of narrow-phase queries for instruction counts (issue 27 items 1 and 2):
//! run it under `valgrind --tool=callgrind` twice with different counts and divide the
//! difference of the totals by the difference of the counts (setup cancels out).
//!
//! Run: `cargo run -p polycd --release --example narrow_profile -- CASE COUNT`, CASE one of
//! `cube-bool`, `cube-dist`, `ico-bool`, `ico-dist` (GJK, cold, separated and touching-near
//! poses), `near-gjk`, `near-vclip` (n = 1 000 ellipsoids 200:100:100, cold, B 0.01–1 apart
//! from first contact), `warm-vclip-W` / `cold-vclip-W` (642-vertex sphere; `…-disk-W`: the
//! 60-gon disk, radius 0.5, thickness 0.05, the scenario's proportions; B turning by W
//! degrees per query, V-Clip with and without the pair's cache; `always-vclip-W`: the
//! cached pair always used, as before the staleness test).

use polycd::contract::Status;
use polycd::math::{DQuat, DVec3, Pose};
use polycd::query::{self, Algorithm, PairCache};
use polycd::shapes;
use polycd::ConvexPolyhedron;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The translation along x̂ at which B (rotated by `q`) first touches A, by bisection on the
/// boolean answer (64 halvings of [0, 4 × scale]).
fn touch_x(a: &ConvexPolyhedron, b: &ConvexPolyhedron, q: DQuat, scale: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 4.0 * scale);
    let mut cache = PairCache::default();
    for _ in 0..64 {
        let mid = 0.5 * (lo + hi);
        let pose = Pose::new(q, DVec3::new(mid, 0.0, 0.0));
        let hit = query::intersect(a, &Pose::IDENTITY, b, &pose, Algorithm::Gjk, &mut cache)
            .map(|r| r.status() != Status::Disjoint)
            .unwrap_or(false);
        if hit {
            lo = mid;
        } else {
            hi = mid;
        }
        cache.forget();
    }
    lo
}

/// `count` poses of B near contact with A (offsets 0.01 … 1 × `unit` beyond first contact).
fn near_poses(a: &ConvexPolyhedron, b: &ConvexPolyhedron, scale: f64, unit: f64, count: usize) -> Vec<Pose> {
    let mut rng = ChaCha8Rng::seed_from_u64(27);
    let offsets = [0.01, 0.1, 1.0];
    (0..count.min(64))
        .map(|k| {
            let q = shapes::random_rotation(&mut rng);
            let x = touch_x(a, b, q, scale) + offsets[k % 3] * unit;
            Pose::new(q, DVec3::new(x, 0.0, 0.0))
        })
        .collect()
}

fn main() -> Result<(), polycd::PolycdError> {
    let args: Vec<String> = std::env::args().collect();
    let case = args.get(1).map(String::as_str).unwrap_or("cube-dist");
    let count: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let (a, b, poses, algorithm, boolean, warm);
    // `always-vclip-W`: the cached pair replayed without its rotation (`starting_at`), i.e.
    // always warm, whatever the turn (V-Clip before the staleness test).
    let always = case.starts_with("always");
    let coherent = ["warm-", "cold-", "always-"]
        .iter()
        .find_map(|m| case.strip_prefix(m))
        .and_then(|rest| rest.split_once('-'));
    if let Some((shape, rest)) = coherent {
        let omega: f64 = rest.parse().unwrap_or(5.0);
        // The coherence scenario's 642-vertex sphere (`vclip`) or 60-gon disk (`disk`).
        a = if shape == "disk" {
            shapes::prism(60, 0.5, 0.05)?
        } else {
            shapes::icosphere(3, 1.0)?
        };
        b = a.clone();
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let axis = shapes::unit_vector(&mut rng);
        poses = (0..count)
            .map(|k| {
                let q = DQuat::from_axis_angle(axis, (omega * k as f64).to_radians());
                let wobble = 0.3 * (0.01 * k as f64).sin();
                Pose::new(q, DVec3::new(2.5, wobble, 0.0))
            })
            .collect::<Vec<_>>();
        algorithm = Algorithm::VClip;
        boolean = false;
        warm = !case.starts_with("cold");
    } else {
        let (shape, algo, is_bool) = match case {
            "cube-bool" => (shapes::cuboid(1.0, 1.0, 1.0)?, Algorithm::Gjk, true),
            "cube-dist" => (shapes::cuboid(1.0, 1.0, 1.0)?, Algorithm::Gjk, false),
            "ico-bool" => (shapes::icosahedron(1.0)?, Algorithm::Gjk, true),
            "ico-dist" => (shapes::icosahedron(1.0)?, Algorithm::Gjk, false),
            "near-gjk" => (shapes::ellipsoid(1000, 200.0, 100.0, 100.0, 1)?, Algorithm::Gjk, false),
            "near-vclip" => (
                shapes::ellipsoid(1000, 200.0, 100.0, 100.0, 1)?,
                Algorithm::VClip,
                false,
            ),
            other => {
                eprintln!("unknown case {other}");
                std::process::exit(2);
            }
        };
        a = shape;
        b = if case.starts_with("near") {
            shapes::ellipsoid(1000, 200.0, 100.0, 100.0, 2)?
        } else {
            a.clone()
        };
        let scale = if case.starts_with("near") { 200.0 } else { 1.0 };
        let unit = if case.starts_with("near") { 1.0 } else { 0.5 };
        poses = near_poses(&a, &b, scale, unit, 64);
        algorithm = algo;
        boolean = is_bool;
        warm = false;
    }
    let mut cache = PairCache::default();
    let mut sum = 0.0;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for k in 0..count {
        let pose = &poses[k % poses.len()];
        if !warm {
            cache.forget();
        } else if always {
            if let Some(pair) = cache.vclip.pair() {
                cache.vclip = polycd::vclip::VClipCache::starting_at(pair);
            }
        }
        if boolean {
            let r = query::intersect(&a, &Pose::IDENTITY, &b, pose, algorithm, &mut cache)?;
            sum += f64::from(u8::from(r.status() == Status::Overlapping));
        } else {
            let d = query::distance(&a, &Pose::IDENTITY, &b, pose, algorithm, &mut cache)?;
            sum += d.signed_distance().unwrap_or(0.0);
        }
        if rng.random_range(0..1_000_000) == 0 {
            sum += 1.0;
        }
    }
    println!("{case} {count}: checksum {sum:.6}");
    Ok(())
}
