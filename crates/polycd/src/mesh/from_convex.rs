//! A convex polyhedron as a closed triangle mesh.

use super::trimesh::TriMesh;
use crate::core::error::PolycdError;
use crate::shape::polyhedron::ConvexPolyhedron;

impl TriMesh {
    /// The convex polyhedron `c` as a closed triangle mesh: its vertices (same indices) and
    /// its faces fan-triangulated from each face's first vertex, so triangle `t` comes from
    /// face [`TriMesh::input_face`]`(t)` of `c`. A flat or rounded shape bounds no polyhedral
    /// solid: [`PolycdError::UnsupportedShape`].
    pub fn from_convex(c: &ConvexPolyhedron) -> Result<TriMesh, PolycdError> {
        if c.dimension() < 3 {
            return Err(PolycdError::UnsupportedShape {
                algorithm: "mesh",
                shape: match c.dimension() {
                    0 => "point",
                    1 => "segment",
                    _ => "polygon",
                },
                reason: "a mesh query needs solid shapes",
            });
        }
        if c.radius() > 0.0 {
            return Err(PolycdError::UnsupportedShape {
                algorithm: "mesh",
                shape: "rounded shape",
                reason: "a mesh query needs polyhedra (radius 0)",
            });
        }
        let faces: Vec<Vec<u32>> = (0..c.faces().len() as u32)
            .map(|f| c.face_vertices(f).to_vec())
            .collect();
        TriMesh::new(c.vertices(), &faces)
    }
}
