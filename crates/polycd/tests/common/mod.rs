//! Helpers shared by the integration tests (each test file is its own crate and declares
//! `mod common;`; each uses its own subset).

#![allow(dead_code)]

pub mod tri;

use polycd::{shapes, ConvexPolyhedron, DVec3, Pose};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// A uniformly random rotation and a translation uniform in the cube `[-spread, spread]³`.
pub fn random_pose(rng: &mut ChaCha8Rng, spread: f64) -> Pose {
    let r = shapes::random_rotation(rng);
    let t = DVec3::new(
        rng.random_range(-spread..spread),
        rng.random_range(-spread..spread),
        rng.random_range(-spread..spread),
    );
    Pose::new(r, t)
}

/// A pure translation.
pub fn at(x: f64, y: f64, z: f64) -> Pose {
    Pose::from_translation(DVec3::new(x, y, z))
}

/// The shape's vertices in the world frame.
pub fn world_vertices(p: &ConvexPolyhedron, pose: &Pose) -> Vec<DVec3> {
    p.vertices().iter().map(|&v| pose.transform_point(v)).collect()
}

/// Largest signed distance of a world point above the shape's face planes (≤ 0 inside).
pub fn outside(p: &ConvexPolyhedron, pose: &Pose, x: DVec3) -> f64 {
    (0..p.faces().len() as u32)
        .map(|f| p.face_plane(f).transformed(pose).signed_distance(x))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// The pose halfway between two poses (normalised mean of the nearer pair of quaternions).
pub fn average_pose(p: &Pose, q: &Pose) -> Pose {
    let mut qr = q.rotation;
    if p.rotation.dot(qr) < 0.0 {
        qr = -qr;
    }
    Pose::new(
        ((p.rotation + qr) * 0.5).normalize(),
        (p.translation + q.translation) * 0.5,
    )
}
