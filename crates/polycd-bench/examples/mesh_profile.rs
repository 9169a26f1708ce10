//! Profiling harness for mesh queries (issue 23 item 5), for callgrind:
//! `valgrind --tool=callgrind --toggle-collect=mesh_profile::measured target/release/examples/mesh_profile KIND N`
//! with KIND one of `distance`, `intersect`, `coherent-distance`, `coherent-intersect` and the
//! torus knot's segments N (120: 2 880 triangles). Poses as `bench mesh`: random rotation and
//! direction, moved to first contact, then separated / near / overlapping offsets. Prints the
//! answers' checksum so the work is not optimised away.

use polycd::mesh::{self, MeshAnswer, Solid, SolidCache, TriMesh};
use polycd::{shapes, DQuat, DVec3, Pose};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn pose_at(m: &TriMesh, r: DQuat, dir: DVec3, t: f64) -> Pose {
    Pose::new(r, m.centroid() + dir * t - r * m.centroid())
}

#[inline(never)]
fn measured(k: &TriMesh, poses: &[Pose], intersect: bool, cache: &mut SolidCache) -> f64 {
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
    if coherent {
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
    let intersect = kind.ends_with("intersect");
    let mut cache = SolidCache::default();
    // Warm-up: every node hull the queries visit is built.
    let w = measured(&k, &poses, intersect, &mut cache);
    let m = measured(&k, &poses, intersect, &mut cache);
    println!("{kind}: {} queries, checksum {w} {m}", poses.len());
}
