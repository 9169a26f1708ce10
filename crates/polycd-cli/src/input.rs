//! Shapes and points from files or built-in specifications.

use polycd::{shapes, ConvexPolyhedron, DVec3, PolycdError};
use std::path::Path;

/// A mesh file if the path exists, a built-in shape spec otherwise.
pub fn load_shape(s: &str) -> Result<ConvexPolyhedron, PolycdError> {
    load_shape_with_progress(s, &mut |_, _, _| {})
}

/// [`load_shape`], reporting the construction's progress (see [`polycd::progress`]).
pub fn load_shape_with_progress(
    s: &str,
    progress: &mut dyn FnMut(polycd::Phase, u64, u64),
) -> Result<ConvexPolyhedron, PolycdError> {
    let p = Path::new(s);
    if p.is_file() {
        polycd::io::read_polyhedron_with_progress(p, progress)
    } else {
        let looks_like_file = [".obj", ".off", ".stl", ".txt", ".xyz"]
            .iter()
            .any(|e| s.to_ascii_lowercase().ends_with(e));
        if looks_like_file {
            return Err(PolycdError::File {
                path: s.to_string(),
                message: "no such file".into(),
            });
        }
        shapes::from_spec(s)
    }
}

/// Points from a mesh file (its vertices) or a text file of "x y z" lines.
pub fn load_points(path: &Path) -> Result<Vec<DVec3>, PolycdError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if matches!(ext.as_str(), "obj" | "off" | "stl") {
        return polycd::io::read_points(path);
    }
    let text = std::fs::read_to_string(path).map_err(|e| PolycdError::File {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    polycd::io::parse_points_text(&text).map_err(|e| match e {
        PolycdError::File { message, .. } => PolycdError::File {
            path: path.display().to_string(),
            message,
        },
        other => other,
    })
}
