//! Profiling harness for GJK + EPA in the ellipsoid sweep's pen bucket (issue 27 item 1), for
//! callgrind: `valgrind --tool=callgrind --toggle-collect=epa_profile::measured
//! target/release/examples/epa_profile [N] [--dump FILE]` (built with `cargo build --release
//! -p polycd --example epa_profile`). P, Q = hulls of N (default 1 000) random points on the
//! ellipsoid 200:100:100 (seeds 1000 and 1001), Q in 100 random orientations (seed 1002),
//! translated along x̂ to `t_touch + l` for the pen bucket's offsets l ∈ {−40, −30, −20, −15,
//! −10, −7, −5, −3, −2} (overlapping by more than 1 unit); `t_touch` by bisection with
//! polycd's boolean GJK (outside the measured function). Each pose is asked once through
//! `gjk::distance` with a forgotten cache (cold, buffers kept: the bench's convention).
//! Prints the depths' sum and the EPA iterations; `--dump FILE` writes every answer (depth,
//! normal, witness points, bit patterns) so two builds can be compared exactly.

use polycd::contract::{Distance, Intersection};
use polycd::gjk::{self, GjkCache};
use polycd::{shapes, ConvexPolyhedron, DQuat, DVec3, Pose};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::io::Write;

const OFFSETS: [f64; 9] = [-40.0, -30.0, -20.0, -15.0, -10.0, -7.0, -5.0, -3.0, -2.0];

fn overlapping(p: &ConvexPolyhedron, q: &ConvexPolyhedron, pq: &Pose, cache: &mut GjkCache) -> bool {
    cache.forget();
    !matches!(
        gjk::intersect(p, &Pose::IDENTITY, q, pq, cache),
        Ok(Intersection::Disjoint { .. })
    )
}

fn touch(p: &ConvexPolyhedron, q: &ConvexPolyhedron, r: DQuat, cache: &mut GjkCache) -> f64 {
    let (mut lo, mut hi) = (0.0, p.radius() + q.radius() + 1.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if overlapping(p, q, &Pose::new(r, DVec3::X * mid), cache) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

#[inline(never)]
fn measured(p: &ConvexPolyhedron, q: &ConvexPolyhedron, poses: &[Pose], cache: &mut GjkCache, out: &mut Vec<Distance>) {
    for pq in poses {
        cache.forget();
        if let Ok(d) = gjk::distance(p, &Pose::IDENTITY, q, pq, cache) {
            out.push(d);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let dump = args.iter().position(|a| a == "--dump").and_then(|i| args.get(i + 1));
    let p = shapes::ellipsoid(n, 200.0, 100.0, 100.0, 1000).expect("P");
    let q = shapes::ellipsoid(n, 200.0, 100.0, 100.0, 1001).expect("Q");
    let mut rng = ChaCha8Rng::seed_from_u64(1002);
    let mut cache = GjkCache::default();
    let mut poses = Vec::new();
    for _ in 0..100 {
        let r = shapes::random_rotation(&mut rng);
        let t = touch(&p, &q, r, &mut cache);
        for l in OFFSETS {
            poses.push(Pose::new(r, DVec3::X * (t + l)));
        }
    }
    // Warm the buffers (the bench's caches are long-lived).
    let mut out = Vec::with_capacity(poses.len());
    measured(&p, &q, &poses[..1], &mut cache, &mut out);
    out.clear();
    measured(&p, &q, &poses, &mut cache, &mut out);
    let (mut sum, mut iters, mut pen) = (0.0, 0u64, 0usize);
    for d in &out {
        if let Distance::Penetrating {
            penetration: Some(x), ..
        } = d
        {
            sum += x.depth;
            pen += 1;
        }
        iters += u64::from(d.iterations());
    }
    println!(
        "{} queries, {pen} with depth, depth sum {sum:.9}, iterations {iters}",
        out.len()
    );
    if let Some(path) = dump {
        let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("dump file"));
        for d in &out {
            match d {
                Distance::Penetrating {
                    penetration: Some(x), ..
                } => {
                    writeln!(
                        f,
                        "{:e} {:e} {:e} {:e} | {:?} {:?} {:?}",
                        x.depth,
                        x.normal.x,
                        x.normal.y,
                        x.normal.z,
                        x.point_a,
                        x.point_b,
                        x.depth.to_bits()
                    )
                    .expect("write");
                }
                other => writeln!(f, "{other:?}").expect("write"),
            }
        }
    }
}
