//! The brute-force oracle every algorithm is tested against.
//!
//! It forms all pairwise vertex differences `a_i − b_j` (world frame), takes their convex hull
//! `M = A − B` (with the exact-predicate hull of [`crate::shape::hull`]), and searches exhaustively:
//! if the origin is outside `M`, the distance is the least distance from the origin to any
//! face polygon of `M`; if inside, the penetration depth is the least distance from the origin
//! to a face plane. Cost O(nm log nm + F): for small polytopes only. The directional answer
//! intersects the line `{t·s}` with every face half-space of `M`.

use crate::core::error::PolycdError;
use crate::core::geometry::closest_on_triangle;
use crate::core::math::{DVec3, Pose};
use crate::shape::hull::convex_hull;
use crate::shape::polyhedron::ConvexPolyhedron;

/// The oracle's answer for one pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OracleAnswer {
    /// Distance (≥ 0) when apart, minus the penetration depth when the origin is inside `M`.
    pub signed_distance: f64,
    /// The point of `M`'s boundary nearest the origin: `point_a − point_b` of a closest pair
    /// when apart, the shortest separating translation of B (negated) when overlapping.
    pub nearest: DVec3,
}

/// World-frame Minkowski difference points `a_i − b_j`.
pub fn minkowski_points(a: &ConvexPolyhedron, pose_a: &Pose, b: &ConvexPolyhedron, pose_b: &Pose) -> Vec<DVec3> {
    let wa: Vec<DVec3> = a.vertices().iter().map(|&p| pose_a.transform_point(p)).collect();
    let wb: Vec<DVec3> = b.vertices().iter().map(|&p| pose_b.transform_point(p)).collect();
    let mut out = Vec::with_capacity(wa.len() * wb.len());
    for &p in &wa {
        for &q in &wb {
            out.push(p - q);
        }
    }
    out
}

/// Faces of `M = A − B` as (unit normal, offset, vertex loop).
fn faces_of_m(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
) -> Result<Vec<(DVec3, f64, Vec<DVec3>)>, PolycdError> {
    let pts = minkowski_points(a, pose_a, b, pose_b);
    let h = convex_hull(&pts)?;
    let mut out = Vec::with_capacity(h.faces.len());
    for f in &h.faces {
        let loop_pts: Vec<DVec3> = f.iter().map(|&i| h.vertices[i as usize]).collect();
        let c = loop_pts.iter().fold(DVec3::ZERO, |s, p| s + *p) / loop_pts.len() as f64;
        let mut n = DVec3::ZERO;
        for k in 0..loop_pts.len() {
            n += (loop_pts[k] - c).cross(loop_pts[(k + 1) % loop_pts.len()] - c);
        }
        let n = n.normalize();
        let off = loop_pts.iter().map(|p| n.dot(*p)).fold(f64::NEG_INFINITY, f64::max);
        out.push((n, off, loop_pts));
    }
    Ok(out)
}

/// Signed distance between A and B by exhaustive search over the faces of `A − B`.
pub fn signed_distance(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
) -> Result<OracleAnswer, PolycdError> {
    let faces = faces_of_m(a, pose_a, b, pose_b)?;
    let inside = faces.iter().all(|(_, off, _)| *off > 0.0);
    if inside {
        let (n, off, _) = faces
            .iter()
            .min_by(|x, y| x.1.total_cmp(&y.1))
            .ok_or_else(|| PolycdError::InvalidBoundary("empty Minkowski difference".into()))?;
        return Ok(OracleAnswer {
            signed_distance: -off,
            nearest: *n * *off,
        });
    }
    let mut best = f64::INFINITY;
    let mut nearest = DVec3::ZERO;
    for (_, _, lp) in &faces {
        for k in 1..lp.len() - 1 {
            let q = closest_on_triangle(DVec3::ZERO, lp[0], lp[k], lp[k + 1]);
            let d = q.length();
            if d < best {
                best = d;
                nearest = q;
            }
        }
    }
    Ok(OracleAnswer {
        signed_distance: best,
        nearest,
    })
}

/// The directional answer: the smallest-magnitude `t` such that B translated by `t·s` just
/// touches A, or `None` if the line `{t·s}` misses `M`.
pub fn directional(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    s: DVec3,
) -> Result<Option<f64>, PolycdError> {
    let s = s.normalize();
    let faces = faces_of_m(a, pose_a, b, pose_b)?;
    let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
    for (n, off, _) in &faces {
        let ns = n.dot(s);
        if ns > 0.0 {
            hi = hi.min(off / ns);
        } else if ns < 0.0 {
            lo = lo.max(off / ns);
        } else if *off < 0.0 {
            return Ok(None);
        }
    }
    if lo > hi {
        return Ok(None);
    }
    Ok(Some(if lo > 0.0 {
        lo
    } else if hi < 0.0 {
        hi
    } else if -lo <= hi {
        lo
    } else {
        hi
    }))
}

mod agree;
pub use agree::Agreement;
