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
use crate::shape::topology::Face;

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
    /// The table of a polytope, or `None` when it is not a parallelepiped (module header):
    /// its affine dimension, vertices, edge count, faces, vertex 0's neighbours and largest
    /// coordinate magnitude.
    pub(crate) fn of(
        dimension: u8,
        vertices: &[DVec3],
        edges: usize,
        faces: &[Face],
        first_neighbours: &[u32],
        magnitude: f64,
    ) -> Option<Self> {
        if dimension != 3 || vertices.len() != 8 || edges != 12 || faces.len() != 6 {
            return None;
        }
        let v0 = vertices[0];
        let &[a, b, c] = first_neighbours else {
            return None;
        };
        let corner = |v: u32| vertices.get(v as usize).copied();
        let half = [corner(a)? - v0, corner(b)? - v0, corner(c)? - v0].map(|e| e * 0.5);
        let centre = v0 + half[0] + half[1] + half[2];
        let tol = PARALLELEPIPED_FIT_REL * magnitude;
        // Each sign pattern matches exactly one vertex.
        let mut used = [false; 8];
        for s in 0..8u32 {
            let sign = |k: u32| if s >> k & 1 == 1 { 1.0 } else { -1.0 };
            let q = centre + half[0] * sign(0) + half[1] * sign(1) + half[2] * sign(2);
            let mut found = false;
            for (v, u) in vertices.iter().zip(used.iter_mut()) {
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
            let best = faces
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
