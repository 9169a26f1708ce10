//! A convex polyhedron as a closed triangle mesh (agreed interface: mesh–convex pairs are asked
//! as mesh–mesh pairs).

use super::trimesh::TriMesh;
use crate::core::error::PolycdError;
use crate::shape::polyhedron::ConvexPolyhedron;

impl TriMesh {
    /// The closed triangle mesh of a solid convex polyhedron: its vertices and its faces,
    /// each fan-triangulated from its first vertex (faces are convex polygons, counter-clockwise
    /// seen from outside, so the fans are too). A rounded shape (radius > 0) has no exact
    /// triangle mesh and a flat one (a point, segment or polygon) bounds no solid: both are a
    /// typed [`PolycdError::UnsupportedShape`].
    pub fn from_convex(p: &ConvexPolyhedron) -> Result<TriMesh, PolycdError> {
        if p.radius() > 0.0 {
            return Err(PolycdError::UnsupportedShape {
                algorithm: "mesh",
                shape: "rounded shape",
                reason: "a rounded shape has no exact triangle mesh",
            });
        }
        if p.dimension() < 3 {
            return Err(PolycdError::UnsupportedShape {
                algorithm: "mesh",
                shape: match p.dimension() {
                    0 => "point",
                    1 => "segment",
                    _ => "polygon",
                },
                reason: "a mesh is a closed solid",
            });
        }
        let faces: Vec<Vec<u32>> = (0..p.faces().len() as u32)
            .map(|f| p.face_vertices(f).to_vec())
            .collect();
        TriMesh::new(p.vertices(), &faces)
    }
}
