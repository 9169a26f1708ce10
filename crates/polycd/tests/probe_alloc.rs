//! Point queries and ray casts allocate nothing (issue 22 item 6). Same counting allocator as
//! `tests/alloc.rs` (`tests/counting`: counts only on the thread that switched it on); one
//! `#[test]` in this file.
//!
//! 10⁴ point queries and 10⁴ ray casts on a box, a 642-vertex icosphere and a 1 000-point
//! ellipsoid hull at a rotated pose: points inside, outside and on the boundary, rays hitting,
//! missing, grazing and starting inside. Extreme scales (outside the safe band) build scaled
//! copies and are not measured here.

use polycd::query::{point_query, ray_cast};
use polycd::{shapes, DQuat, DVec3, Pose};

mod counting;
use counting::count;

#[global_allocator]
static GLOBAL: counting::Counting = counting::Counting;

#[test]
fn point_queries_and_ray_casts_do_not_allocate() {
    let shapes = [
        shapes::cuboid(1.0, 2.0, 0.5).unwrap(),
        shapes::icosphere(3, 1.0).unwrap(),
        shapes::ellipsoid(1000, 1.0, 0.6, 0.3, 5).unwrap(),
    ];
    let pose = Pose::new(
        DQuat::from_rotation_y(0.3) * DQuat::from_rotation_x(0.7),
        DVec3::new(1.0, -2.0, 0.5),
    );
    let mut sum = 0.0;
    let n = count(|| {
        for shape in &shapes {
            for k in 0..3334u32 {
                let f = k as f64;
                let p = pose.transform_point(DVec3::new(
                    (f * 0.37).sin() * 1.5,
                    (f * 0.11).cos() * 1.5,
                    (f * 0.07).sin(),
                ));
                let a = point_query(shape, &pose, p).unwrap();
                sum += a.signed_distance;
                let d = DVec3::new((f * 0.13).cos(), (f * 0.29).sin(), (f * 0.05).cos() - 0.5);
                if let Some(h) = ray_cast(shape, &pose, p * 2.0, d).unwrap() {
                    sum += h.t;
                }
                // On the boundary: a vertex.
                let v = pose.transform_point(shape.vertex(k % shape.vertices().len() as u32));
                sum += point_query(shape, &pose, v).unwrap().signed_distance;
            }
        }
    });
    assert!(sum.is_finite());
    assert_eq!(n, 0, "{n} allocations in 10⁴ point queries and ray casts");
}
