//! A fixed loop of narrow-phase queries for instruction counts (issue 27 items 1 and 2):
//! run it under `valgrind --tool=callgrind` twice with different counts and divide the
//! difference of the totals by the difference of the counts (setup cancels out).
//!
//! Run: `cargo run -p polycd --release --example narrow_profile -- CASE COUNT`, CASE one of
//! `cube-bool`, `cube-dist`, `ico-bool`, `ico-dist` (GJK, cold, separated and touching-near
//! poses), `cube-pen-bool`, `ico-pen-bool` (the same shapes overlapping by 0.005–0.25),
//! `mix-bool`, `mix-bool-tet`, `mix-bool-oct` (the unit cube against a slender box, a
//! tetrahedron or an octahedron at 512 random poses; `Auto`, or `hs` / `gjk`),
//! `e200-pen-bool`, `e200-sep-bool` (n = 200 ellipsoids 200:100:100, the sweep's pen and sep
//! buckets: overlapping by / apart by 1.5, 10, 40); for these an optional third argument
//! `hs`, `cdd`, `auto` or `vclip` picks HS-jump, CD-Dual, `Auto` or V-Clip instead of GJK, `near-gjk`, `near-vclip` (n = 1 000 ellipsoids 200:100:100, cold, B 0.01–1 apart
//! from first contact), `pen-epa` (the same pair overlapping by 1.5, 10 and 60 units: GJK then
//! EPA's exact depth, the sweep's pen bucket), `near-pen` (0.01, 0.1 and 1 unit inside: the
//! near bucket's overlapping half, GJK then EPA), `sep-gjk` (1.5, 10 and 40 units apart: the
//! sep bucket), `warm-vclip-W` / `cold-vclip-W` (642-vertex sphere; `…-disk-W`: the
//! 60-gon disk, radius 0.5, thickness 0.05, the scenario's proportions; B turning by W
//! degrees per query, V-Clip with and without the pair's cache; `always-vclip-W`: the
//! cached pair always used, as before the staleness test). `py-auto`: `tools/py-bench.py`'s
//! workload in Rust (A = ellipsoid(1 000, 1, 0.6, 0.4, seed 1) at the identity, B =
//! ellipsoid(1 000, 0.5, 1, 0.7, seed 2) translated uniformly in [−2.5, 2.5]³ and turned by a
//! random rotation; `Auto` distance, cold: the cache forgotten, its buffers kept); `py-fresh`:
//! the same with a new `PairCache` per query (what a call without a cache did); `py-stats` prints that workload's breakdown
//! (separated / overlapping rows, GJK iterations) instead of timing it; `near-stats` the same for
//! `near-gjk`'s 64 poses, `near-pen-stats`, `pen-stats` and `sep-stats` for `near-pen`'s, `pen-epa`'s and `sep-gjk`'s.
//! `coh-sphere-W` / `coh-disk-W`: the `coherence` bench scenario's path (Alg. 9) with V-Clip warm.
//! `dump` (COUNT queries per workload): one hash of every warm V-Clip answer per workload, to
//! compare two builds bit for bit (see [`dump`]).

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
    offset_poses(a, b, scale, unit, &[0.01, 0.1, 1.0], count)
}

/// `count` poses of B at `offsets × unit` along x̂ from first contact (negative: overlapping).
fn offset_poses(
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
    scale: f64,
    unit: f64,
    offsets: &[f64],
    count: usize,
) -> Vec<Pose> {
    let mut rng = ChaCha8Rng::seed_from_u64(27);
    (0..count.min(64))
        .map(|k| {
            let q = shapes::random_rotation(&mut rng);
            let x = touch_x(a, b, q, scale) + offsets[k % 3] * unit;
            Pose::new(q, DVec3::new(x, 0.0, 0.0))
        })
        .collect()
}

/// `tools/py-bench.py`'s pair and `count` of its random poses (B's; A at the identity).
fn py_workload(count: usize) -> Result<(ConvexPolyhedron, ConvexPolyhedron, Vec<Pose>), polycd::PolycdError> {
    let a = shapes::ellipsoid(1000, 1.0, 0.6, 0.4, 1)?;
    let b = shapes::ellipsoid(1000, 0.5, 1.0, 0.7, 2)?;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let poses = (0..count.clamp(1, 4096))
        .map(|_| {
            let t = DVec3::new(
                rng.random_range(-2.5..2.5),
                rng.random_range(-2.5..2.5),
                rng.random_range(-2.5..2.5),
            );
            Pose::new(shapes::random_rotation(&mut rng), t)
        })
        .collect();
    Ok((a, b, poses))
}

/// The breakdown of the `py-auto` workload: how many rows are separated / penetrating, and
/// the iteration counts of each kind.
fn py_stats(count: usize) -> Result<(), polycd::PolycdError> {
    let (a, b, poses) = py_workload(count)?;
    stats("py-stats", &a, &b, &poses, Algorithm::Auto)
}

/// The breakdown of the `near-gjk` workload (`near-stats`), as [`py_stats`]; `near-pen-stats`
/// and `pen-stats` the same for `near-pen`'s and `pen-epa`'s poses.
fn near_stats(name: &str) -> Result<(), polycd::PolycdError> {
    let a = shapes::ellipsoid(1000, 200.0, 100.0, 100.0, 1)?;
    let b = shapes::ellipsoid(1000, 200.0, 100.0, 100.0, 2)?;
    let poses = match name {
        "pen-stats" => offset_poses(&a, &b, 200.0, 1.0, &[-1.5, -10.0, -60.0], 64),
        "near-pen-stats" => offset_poses(&a, &b, 200.0, 1.0, &[-0.01, -0.1, -1.0], 64),
        "sep-stats" => offset_poses(&a, &b, 200.0, 1.0, &[1.5, 10.0, 40.0], 64),
        _ => near_poses(&a, &b, 200.0, 1.0, 64),
    };
    stats(name, &a, &b, &poses, Algorithm::Gjk)
}

/// Separated / penetrating rows of `poses` (B's; A at the identity) and their iterations.
fn stats(
    name: &str,
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
    poses: &[Pose],
    algorithm: Algorithm,
) -> Result<(), polycd::PolycdError> {
    let mut cache = PairCache::default();
    let (mut sep, mut pen, mut other) = (0usize, 0usize, 0usize);
    let (mut it_sep, mut it_pen) = (0u64, 0u64);
    let mut hist = [0usize; 16];
    for pose in poses {
        cache.forget();
        let d = query::distance(a, &Pose::IDENTITY, b, pose, algorithm, &mut cache)?;
        let it = d.iterations();
        match d.signed_distance() {
            Some(s) if s >= 0.0 => {
                sep += 1;
                it_sep += u64::from(it);
                hist[(it as usize).min(15)] += 1;
            }
            Some(_) => {
                pen += 1;
                it_pen += u64::from(it);
            }
            None => other += 1,
        }
    }
    println!(
        "{name} {}: separated {sep} (mean iterations {:.2}), penetrating {pen} (mean iterations incl. EPA {:.2}), other {other}",
        poses.len(),
        it_sep as f64 / sep.max(1) as f64,
        it_pen as f64 / pen.max(1) as f64
    );
    println!("separated rows by GJK iterations (0..15+): {hist:?}");
    Ok(())
}

/// `dump`: one hash per (shape, path, ω) of every warm V-Clip answer (`Debug` text, so every
/// bit of distances, points, features and iterations) along coherent paths — separated
/// (A at the identity or turned), near contact (gaps 1e-12 … 1e-2 of the size) and
/// overlapping — for distance and intersect queries. Compared between two builds to show a
/// change leaves every answer identical.
fn dump(count: usize) -> Result<(), polycd::PolycdError> {
    use std::hash::{Hash, Hasher};
    let shapes = [
        ("sphere-642", shapes::icosphere(3, 1.0)?),
        ("disk", shapes::prism(60, 0.5, 0.05)?),
        ("cube", shapes::cuboid(1.0, 1.0, 1.0)?),
        ("icosahedron", shapes::icosahedron(1.0)?),
    ];
    let gaps = [1e-12, 1e-9, 1e-6, 1e-3, 1e-2];
    for (name, s) in &shapes {
        let r = s.vertices().iter().map(|v| v.length()).fold(0.0, f64::max);
        for omega in [0.0, 1.0, 5.0, 10.0, 25.0] {
            for path in ["far", "far-turned", "near", "deep"] {
                let mut rng = ChaCha8Rng::seed_from_u64(11);
                let axis = shapes::unit_vector(&mut rng);
                let pa = if path == "far-turned" {
                    Pose::new(shapes::random_rotation(&mut rng), DVec3::new(0.3, -0.2, 0.1))
                } else {
                    Pose::IDENTITY
                };
                let mut hd = std::collections::hash_map::DefaultHasher::new();
                let mut hi = std::collections::hash_map::DefaultHasher::new();
                let (mut cd, mut ci) = (PairCache::default(), PairCache::default());
                for k in 0..count {
                    let q = DQuat::from_axis_angle(axis, (omega * k as f64).to_radians());
                    let wobble = 0.3 * r * (0.01 * k as f64).sin();
                    let x = match path {
                        "near" => {
                            // A gap of gaps[k % 5] beyond first contact along x.
                            let t = touch_x(s, s, q, r);
                            t + gaps[k % gaps.len()] * r
                        }
                        "deep" => 1.5 * r,
                        _ => 2.5 * r,
                    };
                    let y = if path == "near" { 0.0 } else { wobble };
                    let pb = pa * Pose::new(q, DVec3::new(x, y, 0.0));
                    let d = query::distance(s, &pa, s, &pb, Algorithm::VClip, &mut cd);
                    format!("{d:?}").hash(&mut hd);
                    let i = query::intersect(s, &pa, s, &pb, Algorithm::VClip, &mut ci);
                    format!("{i:?}").hash(&mut hi);
                }
                println!(
                    "{name} {path} {omega}: distance {:016x} intersect {:016x} cycles {} {}",
                    hd.finish(),
                    hi.finish(),
                    cd.vclip.cycles(),
                    ci.vclip.cycles()
                );
            }
        }
    }
    Ok(())
}

fn main() -> Result<(), polycd::PolycdError> {
    let args: Vec<String> = std::env::args().collect();
    let case = args.get(1).map(String::as_str).unwrap_or("cube-dist");
    let count: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    if case == "py-stats" {
        return py_stats(count);
    }
    if matches!(case, "near-stats" | "near-pen-stats" | "pen-stats" | "sep-stats") {
        return near_stats(case);
    }
    if case == "dump" {
        return dump(count);
    }
    let (a, b, poses, algorithm, boolean, warm);
    // `always-vclip-W`: the cached pair replayed without its rotation (`starting_at`), i.e.
    // always warm, whatever the turn (V-Clip before the staleness test).
    let always = case.starts_with("always");
    // `coh-SHAPE-W` (`sphere` or `disk`): the `coherence` bench scenario's path (Alg. 9: B
    // on `A·(cos(θ + δx), cos(θ + δy), cos(θ + δz))` turning by θ = W·i about a random axis,
    // A = 2.2·√2·R; one loop, δ and the axis drawn from a fixed seed), V-Clip warm.
    if let Some((shape, rest)) = case.strip_prefix("coh-").and_then(|r| r.split_once('-')) {
        let omega: f64 = rest.parse().unwrap_or(5.0);
        let s = if shape == "disk" {
            shapes::prism(60, 10.0, 1.0)?
        } else {
            shapes::icosphere(3, 1.0)?
        };
        let r = s.vertices().iter().map(|v| v.length()).fold(0.0, f64::max);
        let mut rng = ChaCha8Rng::seed_from_u64(2026);
        let tau = std::f64::consts::TAU;
        let d = loop {
            let d: [f64; 3] = [
                rng.random_range(0.0..tau),
                rng.random_range(0.0..tau),
                rng.random_range(0.0..tau),
            ];
            let (sn, cs) = d
                .iter()
                .fold((0.0, 0.0), |(sn, cs), x| (sn + (2.0 * x).sin(), cs + (2.0 * x).cos()));
            if (sn * sn + cs * cs).sqrt() <= 2.0 {
                break d;
            }
        };
        let axis = shapes::unit_vector(&mut rng);
        let amp = 2.2 * std::f64::consts::SQRT_2 * r;
        let poses: Vec<Pose> = (1..=count)
            .map(|i| {
                let th = (omega * i as f64).to_radians();
                let c = DVec3::new(
                    amp * (th + d[0]).cos(),
                    amp * (th + d[1]).cos(),
                    amp * (th + d[2]).cos(),
                );
                Pose::new(DQuat::from_axis_angle(axis, th), c)
            })
            .collect();
        if shape.starts_with("wall") {
            // `coh-wall-W`: wall time (median of 31 interleaved rounds) of the path with one
            // shared cache (warm), one shared cache forgotten before each query, and one
            // forgotten cache per query (the bench's cold column).
            let mut shared = PairCache::default();
            let mut own: Vec<PairCache> = (0..poses.len()).map(|_| PairCache::default()).collect();
            let mut t = [Vec::new(), Vec::new(), Vec::new()];
            let mut sum = 0.0;
            for _ in 0..31 {
                for (m, ts) in t.iter_mut().enumerate() {
                    shared.forget();
                    own.iter_mut().for_each(PairCache::forget);
                    let start = std::time::Instant::now();
                    for (i, pose) in poses.iter().enumerate() {
                        let c = match m {
                            0 => &mut shared,
                            1 => {
                                shared.forget();
                                &mut shared
                            }
                            _ => &mut own[i],
                        };
                        let d = query::distance(&s, &Pose::IDENTITY, &s, pose, Algorithm::VClip, c)?;
                        sum += std::hint::black_box(d).signed_distance().unwrap_or(0.0);
                    }
                    ts.push(start.elapsed().as_nanos() as f64 / poses.len() as f64);
                }
            }
            for ts in t.iter_mut() {
                ts.sort_by(f64::total_cmp);
            }
            println!(
                "{case}: ns per query, median of 31: warm {:.1}, cold (shared cache) {:.1}, cold (one cache per query) {:.1} (checksum {sum:.3})",
                t[0][15], t[1][15], t[2][15]
            );
            return Ok(());
        }
        let mut cache = PairCache::default();
        let mut sum = 0.0;
        for pose in &poses {
            let d = query::distance(&s, &Pose::IDENTITY, &s, pose, Algorithm::VClip, &mut cache)?;
            sum += d.signed_distance().unwrap_or(0.0);
        }
        println!("{case} {count}: checksum {sum:.6}");
        return Ok(());
    }
    let coherent = ["warm-", "cold-", "always-"]
        .iter()
        .find_map(|m| case.strip_prefix(m))
        .and_then(|rest| rest.split_once('-'));
    let fresh = case == "py-fresh";
    if let Some(rest) = case.strip_prefix("mix-bool") {
        // Small solids at random poses: B (a slender box, a tetrahedron or an octahedron,
        // by the suffix `-box`, `-tet`, `-oct`; default the box) against the unit cube,
        // translated uniformly in [−1.5, 1.5]³ and turned at random (overlapping, touching-near
        // and apart pairs mixed); Auto boolean unless an algorithm is given.
        a = shapes::cuboid(1.0, 1.0, 1.0)?;
        b = match rest {
            "-tet" => shapes::tetrahedron(0.8)?,
            "-oct" => shapes::octahedron(0.8)?,
            _ => shapes::cuboid(2.0, 0.3, 0.05)?,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        poses = (0..512)
            .map(|_| {
                let t = DVec3::new(
                    rng.random_range(-1.5..1.5),
                    rng.random_range(-1.5..1.5),
                    rng.random_range(-1.5..1.5),
                );
                Pose::new(shapes::random_rotation(&mut rng), t)
            })
            .collect();
        algorithm = match args.get(3).map(String::as_str) {
            Some("hs") => Algorithm::HsJump,
            Some("gjk") => Algorithm::Gjk,
            _ => Algorithm::Auto,
        };
        boolean = true;
        warm = false;
    } else if case == "py-auto" || fresh {
        (a, b, poses) = py_workload(4096)?;
        algorithm = Algorithm::Auto;
        boolean = false;
        warm = false;
    } else if let Some((shape, rest)) = coherent {
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
            "cube-bool" | "cube-pen-bool" => (shapes::cuboid(1.0, 1.0, 1.0)?, Algorithm::Gjk, true),
            "cube-dist" => (shapes::cuboid(1.0, 1.0, 1.0)?, Algorithm::Gjk, false),
            "ico-bool" | "ico-pen-bool" => (shapes::icosahedron(1.0)?, Algorithm::Gjk, true),
            "ico-dist" => (shapes::icosahedron(1.0)?, Algorithm::Gjk, false),
            "near-gjk" => (shapes::ellipsoid(1000, 200.0, 100.0, 100.0, 1)?, Algorithm::Gjk, false),
            "e200-pen-bool" | "e200-sep-bool" => {
                (shapes::ellipsoid(200, 200.0, 100.0, 100.0, 1)?, Algorithm::Gjk, true)
            }
            "pen-epa" => (shapes::ellipsoid(1000, 200.0, 100.0, 100.0, 1)?, Algorithm::Gjk, false),
            "near-pen" => (shapes::ellipsoid(1000, 200.0, 100.0, 100.0, 1)?, Algorithm::Gjk, false),
            "sep-gjk" => (shapes::ellipsoid(1000, 200.0, 100.0, 100.0, 1)?, Algorithm::Gjk, false),
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
        let e200 = case.starts_with("e200");
        let big = case.starts_with("near") || case == "pen-epa" || case == "sep-gjk" || e200;
        b = if e200 {
            shapes::ellipsoid(200, 200.0, 100.0, 100.0, 2)?
        } else if big {
            shapes::ellipsoid(1000, 200.0, 100.0, 100.0, 2)?
        } else {
            a.clone()
        };
        let scale = if big { 200.0 } else { 1.0 };
        let unit = if big { 1.0 } else { 0.5 };
        poses = if case == "e200-pen-bool" {
            // The sweep's n = 200 pen bucket (overlapping by more than one unit).
            offset_poses(&a, &b, scale, unit, &[-1.5, -10.0, -40.0], 64)
        } else if case.ends_with("-pen-bool") && !e200 {
            // Small shapes overlapping by 0.005 … 0.25 (unit 0.5).
            offset_poses(&a, &b, scale, unit, &[-0.01, -0.1, -0.5], 64)
        } else if case == "e200-sep-bool" {
            offset_poses(&a, &b, scale, unit, &[1.5, 10.0, 40.0], 64)
        } else if case == "pen-epa" {
            // The sweep's pen bucket: overlapping by more than one unit (1.5, 10, 60).
            offset_poses(&a, &b, scale, unit, &[-1.5, -10.0, -60.0], 64)
        } else if case == "sep-gjk" {
            // The sweep's sep bucket: 1.5, 10 and 40 units apart.
            offset_poses(&a, &b, scale, unit, &[1.5, 10.0, 40.0], 64)
        } else if case == "near-pen" {
            // The overlapping half of the sweep's near bucket (0.01, 0.1, 1 inside contact).
            offset_poses(&a, &b, scale, unit, &[-0.01, -0.1, -1.0], 64)
        } else {
            near_poses(&a, &b, scale, unit, 64)
        };
        // An optional third argument picks the algorithm of the small and n = 200 cases.
        algorithm = match args.get(3).map(String::as_str) {
            Some("hs") => Algorithm::HsJump,
            Some("cdd") => Algorithm::CdDual,
            Some("auto") => Algorithm::Auto,
            Some("vclip") => Algorithm::VClip,
            _ => algo,
        };
        boolean = is_bool;
        warm = false;
    }
    let mut cache = PairCache::default();
    let mut sum = 0.0;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for k in 0..count {
        let pose = &poses[k % poses.len()];
        if fresh {
            cache = PairCache::default();
        } else if !warm {
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
