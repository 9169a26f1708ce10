//! Reading and writing OBJ, OFF and STL — placeholder until the io branch lands.

use crate::error::PolycdError;
use crate::math::DVec3;
use crate::polyhedron::ConvexPolyhedron;
use std::path::Path;

fn todo(path: &Path) -> PolycdError {
    PolycdError::File {
        path: path.display().to_string(),
        message: "file formats are not supported yet".into(),
    }
}

/// All vertex positions of an OBJ, OFF or STL file.
pub fn read_points(path: impl AsRef<Path>) -> Result<Vec<DVec3>, PolycdError> {
    Err(todo(path.as_ref()))
}
/// The convex hull of a file's vertices.
pub fn read_polyhedron(path: impl AsRef<Path>) -> Result<ConvexPolyhedron, PolycdError> {
    Err(todo(path.as_ref()))
}
/// Writes a polyhedron as OBJ.
pub fn write_obj(path: impl AsRef<Path>, _p: &ConvexPolyhedron) -> Result<(), PolycdError> {
    Err(todo(path.as_ref()))
}
/// Writes a polyhedron as OFF.
pub fn write_off(path: impl AsRef<Path>, _p: &ConvexPolyhedron) -> Result<(), PolycdError> {
    Err(todo(path.as_ref()))
}
/// Writes a polyhedron as STL.
pub fn write_stl(path: impl AsRef<Path>, _p: &ConvexPolyhedron) -> Result<(), PolycdError> {
    Err(todo(path.as_ref()))
}
/// Parses "x y z" lines.
pub fn parse_points_text(_text: &str) -> Result<Vec<DVec3>, PolycdError> {
    Err(todo(Path::new("<text>")))
}
