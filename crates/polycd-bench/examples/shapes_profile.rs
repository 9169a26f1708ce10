//! Profiling harness for the flat and rounded pairs of `bench shapes` (issue 22), for
//! callgrind (instruction counts are stable on a loaded machine, wall times are not):
//!
//! ```sh
//! cargo build --release -p polycd-bench --example shapes_profile
//! valgrind --tool=callgrind --toggle-collect='shapes_profile::measured' \
//!   target/release/examples/shapes_profile PAIR QUESTION LIB
//! ```
//! with PAIR one of `sphere-sphere`, `sphere-capsule`, `capsule-capsule`, `sphere-box`,
//! `triangle-convex`; QUESTION `distance` or `intersect`; LIB `polycd` (Auto), `gjk` (polycd
//! GJK) or `parry`. 1 000 queries at random poses, centre distances 0.6–1.4 × the sum of the
//! bounding radii (apart, near and overlapping pairs mixed); divide the `measured` count by
//! 1 000. Prints a checksum of the answers so the work is not optimised away.

use parry3d_f64::math::{Pose as ParryPose, Rot3 as ParryRot, Vector as ParryVec};
use parry3d_f64::shape::{Ball, Capsule, ConvexPolyhedron as ParryPolyhedron, Shape, Triangle};
use polycd::query;
use polycd::{shapes, Algorithm, ConvexPolyhedron, DVec3, PairCache, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn pv(v: DVec3) -> ParryVec {
    ParryVec::new(v.x, v.y, v.z)
}

fn parry_pose(p: &Pose) -> ParryPose {
    let (q, t) = (p.rotation, p.translation);
    ParryPose::from_parts(pv(t), ParryRot::from_xyzw(q.x, q.y, q.z, q.w))
}

fn hull(p: &ConvexPolyhedron) -> Box<dyn Shape> {
    let pts: Vec<ParryVec> = p.vertices().iter().map(|&v| pv(v)).collect();
    Box::new(ParryPolyhedron::from_convex_hull(&pts).expect("parry hull"))
}

type Pair = (ConvexPolyhedron, Box<dyn Shape>, ConvexPolyhedron, Box<dyn Shape>);

fn pair(kind: &str) -> Pair {
    let sphere = || {
        (
            shapes::sphere(1.0).expect("sphere"),
            Box::new(Ball::new(1.0)) as Box<dyn Shape>,
        )
    };
    let capsule = || {
        (
            shapes::capsule(2.0, 0.5).expect("capsule"),
            Box::new(Capsule::new_z(1.0, 0.5)) as Box<dyn Shape>,
        )
    };
    let (a, pa, b, pb) = match kind {
        "sphere-sphere" => {
            let (a, pa) = sphere();
            let (b, pb) = sphere();
            (a, pa, b, pb)
        }
        "sphere-capsule" => {
            let (a, pa) = sphere();
            let (b, pb) = capsule();
            (a, pa, b, pb)
        }
        "capsule-capsule" => {
            let (a, pa) = capsule();
            let (b, pb) = capsule();
            (a, pa, b, pb)
        }
        "sphere-box" => {
            let (a, pa) = sphere();
            let b = shapes::cuboid(2.0, 1.5, 1.0).expect("box");
            let pb = hull(&b);
            (a, pa, b, pb)
        }
        "triangle-convex" => {
            let t = [
                DVec3::new(-0.6, -0.35, 0.0),
                DVec3::new(0.6, -0.35, 0.05),
                DVec3::new(0.1, 0.7, -0.05),
            ];
            let a = ConvexPolyhedron::from_points(&t).expect("triangle");
            let pa: Box<dyn Shape> = Box::new(Triangle::new(pv(t[0]), pv(t[1]), pv(t[2])));
            let b = shapes::ellipsoid(1000, 2.0, 1.5, 1.0, 22_003).expect("hull");
            let pb = hull(&b);
            (a, pa, b, pb)
        }
        other => panic!("unknown pair kind '{other}'"),
    };
    (a, pa, b, pb)
}

#[inline(never)]
fn measured(p: &Pair, poses: &[(Pose, Pose, ParryPose, ParryPose)], question: &str, lib: &str) -> f64 {
    let (a, qa, b, qb) = p;
    let mut sum = 0.0;
    let mut cache = PairCache::default();
    for (pa, pb, ppa, ppb) in poses {
        cache.forget();
        sum += match (question, lib) {
            ("distance", "parry") => {
                let d = parry3d_f64::query::distance(ppa, &**qa, ppb, &**qb)
                    .expect("parry distance")
                    .distance;
                if d > 0.0 {
                    d
                } else {
                    match parry3d_f64::query::contact(ppa, &**qa, ppb, &**qb, 0.0) {
                        Ok(Some(c)) => c.dist,
                        _ => 0.0,
                    }
                }
            }
            ("intersect", "parry") => {
                let hit = parry3d_f64::query::intersection_test(ppa, &**qa, ppb, &**qb).expect("parry test");
                f64::from(u8::from(hit.intersecting))
            }
            (q, l) => {
                let alg = if l == "gjk" { Algorithm::Gjk } else { Algorithm::Auto };
                if q == "distance" {
                    query::distance(a, pa, b, pb, alg, &mut cache)
                        .ok()
                        .and_then(|d| d.signed_distance())
                        .unwrap_or(0.0)
                } else {
                    query::intersect(a, pa, b, pb, alg, &mut cache)
                        .map(|r| f64::from(r.iterations()))
                        .unwrap_or(0.0)
                }
            }
        };
    }
    sum
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = args.get(1).map_or("sphere-box", String::as_str);
    let question = args.get(2).map_or("distance", String::as_str);
    let lib = args.get(3).map_or("polycd", String::as_str);
    let p = pair(kind);
    let reach = p.0.bounding_radius() + p.0.radius() + p.2.bounding_radius() + p.2.radius();
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let poses: Vec<_> = (0..1000)
        .map(|_| {
            let pa = Pose::new(shapes::random_rotation(&mut rng), DVec3::ZERO);
            let c = shapes::unit_vector(&mut rng) * reach * rng.random_range(0.6..1.4);
            let rb = shapes::random_rotation(&mut rng);
            let pb = Pose::new(rb, c - rb * p.2.bounding_sphere().0);
            (pa, pb, parry_pose(&pa), parry_pose(&pb))
        })
        .collect();
    println!(
        "{kind} {question} {lib}: checksum {}",
        measured(&p, &poses, question, lib)
    );
}
