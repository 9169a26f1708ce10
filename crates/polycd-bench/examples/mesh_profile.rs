//! Profiling harness for mesh queries (issue 23 item 5), for callgrind:
//! `valgrind --tool=callgrind --toggle-collect=mesh_profile::measured target/release/examples/mesh_profile KIND N`
//! with KIND one of `distance`, `intersect`, `coherent-distance`, `coherent-intersect`,
//! `coherent-bench-distance`, `coherent-bench-intersect` (`bench mesh`'s kind of path: 200 steps
//! about a random axis, which sweeps deep into overlap) and the
//! torus knot's segments N (120: 2 880 triangles), and optionally an offset BUCKET (`sep`, `near`,
//! `over`: only the poses at that offset; random-pose kinds only). Poses as `bench mesh`: random rotation and
//! direction, moved to first contact, then separated / near / overlapping offsets. Prints the
//! answers' checksum so the work is not optimised away. The poses are queried twice with one
//! cache: a warm-up pass (which builds the lazy node hulls), then the measured pass.

use polycd::mesh::{self, MeshAnswer, Solid, SolidCache, TriMesh};
use polycd::{shapes, DQuat, DVec3, Pose};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn pose_at(m: &TriMesh, r: DQuat, dir: DVec3, t: f64) -> Pose {
    Pose::new(r, m.centroid() + dir * t - r * m.centroid())
}

/// The measured pass (`--toggle-collect`); the warm-up pass calls [`queries`] directly.
#[inline(never)]
fn measured(k: &TriMesh, poses: &[Pose], intersect: bool, cache: &mut SolidCache) -> f64 {
    std::hint::black_box(queries(k, poses, intersect, cache))
}

#[inline(never)]
fn queries(k: &TriMesh, poses: &[Pose], intersect: bool, cache: &mut SolidCache) -> f64 {
    let mut sum = 0.0;
    for p in poses {
        let a = Solid::Mesh(k);
        let r = if intersect {
            mesh::intersect(a, &Pose::IDENTITY, a, p, cache)
        } else {
            mesh::distance(a, &Pose::IDENTITY, a, p, cache)
        };
        sum += r.map(|x| x.signed_distance()).unwrap_or(f64::NAN);
    }
    sum
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = args.get(1).map_or("distance", String::as_str);
    let seg: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(120);
    let bucket = args.get(3).map(|b| match b.as_str() {
        "sep" => 0,
        "near" => 1,
        "over" => 2,
        _ => panic!("bucket: sep, near or over"),
    });
    let (v, f) = shapes::torus_knot(2, 3, seg, 12, 0.45).expect("knot");
    let k = TriMesh::new(&v, &f).expect("mesh");
    let s = k.scale();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut setup = SolidCache::default();
    let mut poses = Vec::new();
    let a = Solid::Mesh(&k);
    while poses.len() < 30 {
        let r = shapes::random_rotation(&mut rng);
        let dir = shapes::unit_vector(&mut rng);
        let mut t = 4.0 * s;
        let mut t0 = None;
        for _ in 0..200 {
            match mesh::distance(a, &Pose::IDENTITY, a, &pose_at(&k, r, dir, t), &mut setup).expect("distance") {
                MeshAnswer::Separated { distance, .. } if distance >= 1e-7 * s => t -= distance,
                _ => {
                    t0 = Some(t);
                    break;
                }
            }
            if t < -4.0 * s {
                break;
            }
        }
        let Some(t0) = t0 else { continue };
        for off in [0.25, 0.002, -0.05] {
            poses.push(pose_at(&k, r, dir, t0 + off * s));
        }
    }
    let coherent = kind.starts_with("coherent");
    if kind.starts_with("coherent-bench") {
        // `bench mesh`'s path: 200 steps of a 0.5° turn about a random axis and a shift on a
        // circle (≈ 0.3 % of the scale a step), from the first near pose.
        let near = poses[1];
        let axis = shapes::unit_vector(&mut rng);
        let side = axis.cross(DVec3::X).try_normalize().unwrap_or(DVec3::Y);
        let steps = 200;
        poses = (0..steps)
            .map(|i| {
                let th = i as f64 * std::f64::consts::TAU / steps as f64;
                let turn = DQuat::from_axis_angle(axis, 0.5f64.to_radians() * i as f64);
                let shift =
                    (side * th.sin() + axis * (1.0 - th.cos())) * (0.003 * s * steps as f64 / std::f64::consts::TAU);
                Pose::new(turn * near.rotation, near.translation + shift)
            })
            .collect();
    } else if coherent {
        let near = poses[1];
        let axis = DVec3::new(0.3, 0.5, 0.8).normalize();
        poses = (0..100)
            .map(|i| {
                let th = i as f64 * std::f64::consts::TAU / 100.0;
                Pose::new(
                    DQuat::from_axis_angle(axis, 0.5f64.to_radians() * i as f64) * near.rotation,
                    near.translation
                        + DVec3::new(th.sin(), 0.0, 1.0 - th.cos()) * (0.003 * s * 100.0 / std::f64::consts::TAU),
                )
            })
            .collect();
    }
    if let (false, Some(b)) = (coherent, bucket) {
        poses = poses.iter().skip(b).step_by(3).copied().collect();
    }
    let intersect = kind.ends_with("intersect");
    let mut cache = SolidCache::default();
    // Warm-up (not measured): every node hull the queries visit is built, so the measured
    // pass is the steady state (as `bench mesh`'s repetitions).
    let w = queries(&k, &poses, intersect, &mut cache);
    let m = measured(&k, &poses, intersect, &mut cache);
    println!("{kind}: {} queries, checksum {w} {m}", poses.len());
}
