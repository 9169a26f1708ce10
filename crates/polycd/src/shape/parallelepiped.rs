//! A per-shape table for parallelepipeds (boxes and their shears): the centre, the three
//! half-edge vectors and the three face-pair normals, found once per shape (on first use).
//!
//! A parallelepiped's vertices are `c ± e₀ ± e₁ ± e₂`, so its extent along any direction `u`
//! is `c·u ± (|u·e₀| + |u·e₁| + |u·e₂|)` — three dot products instead of a support search —
//! it has three edge directions (the `eᵢ`) instead of twelve edges, and three face normals up
//! to sign instead of six faces. Queries that test many directions against two boxes (the
//! contact manifold's separating-axis test: 15 axes instead of 6 + 6 faces and 144 edge
//! pairs) read this table.
//!
//! A shape qualifies when it is a 3-dimensional polytope with 8 vertices, 12 edges and 6
//! faces whose vertices all equal `c ± e₀ ± e₁ ± e₂` (each sign pattern exactly once) within
//! [`PARALLELEPIPED_FIT_REL`] × its magnitude; extents computed from the table then agree
//! with the vertices' own to that level plus rounding.

use crate::core::math::DVec3;
use crate::core::tolerance::PARALLELEPIPED_FIT_REL;
use crate::shape::polyhedron::ConvexPolyhedron;

/// A parallelepiped's frame (the shape's local frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parallelepiped {
    /// The centre (the mean of the vertices).
    pub centre: DVec3,
    /// The half-edge vectors: vertex 0's three edges, halved.
    pub half: [DVec3; 3],
    /// The face-pair normals: `normals[i]` is the stored outward unit normal of the face
    /// spanned by the two half-edge vectors other than `half[i]` on the side of `+half[i]`.
    pub normals: [DVec3; 3],
}

impl Parallelepiped {
    /// The table of `p`, or `None` when `p` is not a parallelepiped (module header).
    pub(crate) fn of(p: &ConvexPolyhedron) -> Option<Self> {
        if p.dimension() != 3 || p.vertices().len() != 8 || p.edges().len() != 12 || p.faces().len() != 6 {
            return None;
        }
        let v0 = p.vertex(0);
        let &[a, b, c] = p.neighbors(0) else {
            return None;
        };
        let half = [a, b, c].map(|v| (p.vertex(v) - v0) * 0.5);
        let centre = v0 + half[0] + half[1] + half[2];
        let tol = PARALLELEPIPED_FIT_REL * p.magnitude();
        // Each sign pattern matches exactly one vertex.
        let mut used = [false; 8];
        for s in 0..8u32 {
            let sign = |k: u32| if s >> k & 1 == 1 { 1.0 } else { -1.0 };
            let q = centre + half[0] * sign(0) + half[1] * sign(1) + half[2] * sign(2);
            let mut found = false;
            for (v, u) in p.vertices().iter().zip(used.iter_mut()) {
                if !*u && (*v - q).abs().max_element() <= tol {
                    *u = true;
                    found = true;
                    break;
                }
            }
            if !found {
                return None;
            }
        }
        // The stored face normal best aligned with each +half[i] side's direction.
        let mut normals = [DVec3::ZERO; 3];
        for (i, n) in normals.iter_mut().enumerate() {
            let dir = half[(i + 1) % 3].cross(half[(i + 2) % 3]);
            let dir = if dir.dot(half[i]) < 0.0 { -dir } else { dir };
            let best = p
                .faces()
                .iter()
                .map(|f| f.normal)
                .max_by(|x, y| x.dot(dir).total_cmp(&y.dot(dir)))?;
            if !(best.dot(dir) > 0.0) {
                return None;
            }
            *n = best;
        }
        Some(Self { centre, half, normals })
    }

    /// `|u·e₀| + |u·e₁| + |u·e₂|`: half the width along `u` (times `|u|`), for half-edge
    /// vectors `e` in any frame.
    #[inline]
    pub fn reach(half: &[DVec3; 3], u: DVec3) -> f64 {
        u.dot(half[0]).abs() + u.dot(half[1]).abs() + u.dot(half[2]).abs()
    }
}

impl ConvexPolyhedron {
    /// The shape's parallelepiped table (built on the first call), or `None` when it is not
    /// one (see [`crate::shape::parallelepiped`]).
    pub fn parallelepiped(&self) -> Option<&Parallelepiped> {
        self.parallelepiped.get_or_init(|| Parallelepiped::of(self)).as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::shapes;

    #[test]
    fn boxes_qualify_and_others_do_not() {
        let b = shapes::cuboid(2.0, 0.5, 0.7).unwrap();
        let t = b.parallelepiped().expect("a cuboid is a parallelepiped");
        // Every vertex's extent agrees with the table's along random-ish directions.
        for k in 0..50 {
            let u = DVec3::new(
                (k as f64 * 0.37).sin(),
                (k as f64 * 1.13).cos(),
                (k as f64 * 0.71).sin() - 0.2,
            );
            let hi = b.vertices().iter().map(|v| v.dot(u)).fold(f64::NEG_INFINITY, f64::max);
            let lo = b.vertices().iter().map(|v| v.dot(u)).fold(f64::INFINITY, f64::min);
            let r = Parallelepiped::reach(&t.half, u);
            assert!((t.centre.dot(u) + r - hi).abs() <= 1e-15 * 4.0);
            assert!((t.centre.dot(u) - r - lo).abs() <= 1e-15 * 4.0);
        }
        for (i, n) in t.normals.iter().enumerate() {
            assert!((n.length() - 1.0).abs() < 1e-15);
            assert!(n.dot(t.half[i]) > 0.0);
            assert!(n.dot(t.half[(i + 1) % 3]).abs() < 1e-15 && n.dot(t.half[(i + 2) % 3]).abs() < 1e-15);
        }
        // A sheared box (a hull of c ± e₀ ± e₁ ± e₂) qualifies; the table reproduces it.
        let e = [
            DVec3::new(1.0, 0.25, 0.0),
            DVec3::new(0.0, 0.5, 0.125),
            DVec3::new(0.25, 0.0, 0.75),
        ];
        let c = DVec3::new(3.0, -2.0, 5.0);
        let pts: Vec<DVec3> = (0..8)
            .map(|s: u32| {
                let sg = |k: u32| if s >> k & 1 == 1 { 1.0 } else { -1.0 };
                c + e[0] * sg(0) + e[1] * sg(1) + e[2] * sg(2)
            })
            .collect();
        let sheared = ConvexPolyhedron::from_points(&pts).unwrap();
        let t = sheared.parallelepiped().expect("a sheared box is a parallelepiped");
        assert!((t.centre - c).length() < 1e-14);
        for u in [DVec3::X, DVec3::Y, DVec3::Z, DVec3::new(0.3, -0.8, 0.5)] {
            let hi = pts.iter().map(|v| v.dot(u)).fold(f64::NEG_INFINITY, f64::max);
            assert!((t.centre.dot(u) + Parallelepiped::reach(&t.half, u) - hi).abs() < 1e-14);
        }
        // Not parallelepipeds: a triangular prism, an octahedron, a tetrahedron, a frustum
        // (8 vertices, 6 quads, faces not parallel in pairs), a point set near a box.
        assert!(shapes::prism(3, 0.6, 1.3).unwrap().parallelepiped().is_none());
        assert!(shapes::octahedron(0.9).unwrap().parallelepiped().is_none());
        assert!(shapes::tetrahedron(0.8).unwrap().parallelepiped().is_none());
        let mut frustum = pts.clone();
        for p in frustum.iter_mut().filter(|p| p.z > c.z) {
            *p = c + (*p - c) * DVec3::new(0.5, 0.5, 1.0);
        }
        assert!(ConvexPolyhedron::from_points(&frustum)
            .unwrap()
            .parallelepiped()
            .is_none());
        let mut near = pts.clone();
        near[3] += DVec3::new(1e-9, 0.0, 0.0);
        assert!(ConvexPolyhedron::from_points(&near).unwrap().parallelepiped().is_none());
    }
}
