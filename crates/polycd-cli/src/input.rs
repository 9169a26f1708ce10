//! Shapes and points from files or built-in specifications.

use polycd::mesh::TriMesh;
use polycd::{shapes, ConvexPolyhedron, DVec3, PolycdError};
use std::path::Path;

/// A mesh file if the path exists, a built-in shape spec otherwise; either may end in `+r=R`
/// (rounded by `R`). A mesh file whose faces do not bound a convex solid is refused
/// ([`PolycdError::NotConvex`]).
pub fn load_shape(s: &str) -> Result<ConvexPolyhedron, PolycdError> {
    load_shape_hull(s, false, &mut |_, _, _| {}).map(|(p, _)| p)
}

/// As [`load_shape`], reporting the construction's progress (see [`polycd::progress`]); with
/// `hull`, a mesh file whose faces do not bound a convex solid gives its convex hull, and a
/// note saying so (for stderr) comes with it.
pub fn load_shape_hull(
    s: &str,
    hull: bool,
    progress: &mut dyn FnMut(polycd::Phase, u64, u64),
) -> Result<(ConvexPolyhedron, Option<String>), PolycdError> {
    let p = Path::new(s);
    // A mesh file rounded by a suffix, as specs are: `cube.obj+r=0.1`.
    if let Some((base, r)) = s
        .rsplit_once("+r=")
        .filter(|(b, _)| !p.is_file() && Path::new(b).is_file())
    {
        let radius: f64 = r.trim().parse().map_err(|_| PolycdError::ShapeSpec {
            spec: s.to_string(),
            message: format!("the radius after '+r=' ('{r}') is not a number"),
        })?;
        let (c, note) = load_shape_hull(base, hull, progress)?;
        let total = c.radius() + radius;
        return c.with_radius(total).map(|c| (c, note));
    }
    if p.is_file() {
        match polycd::io::read_convex_polyhedron_with_progress(p, progress) {
            Err(PolycdError::NotConvex { path, defect }) if hull => {
                let note = format!("polycd: {path}: not a convex polyhedron ({defect}); --hull: using its convex hull");
                polycd::io::read_polyhedron_with_progress(p, progress).map(|c| (c, Some(note)))
            }
            r => r.map(|c| (c, None)),
        }
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
        shapes::from_spec(s).map(|c| (c, None))
    }
}

/// The message of a shape loading error for `query` and `info`: a non-convex file gets the
/// hint to pass `--hull`.
pub fn shape_error_text(e: &PolycdError) -> String {
    match e {
        PolycdError::NotConvex { .. } => format!("{e}; pass --hull to use its convex hull"),
        e => e.to_string(),
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

/// The syntax of the torus-knot spec, for help texts.
pub const TORUS_KNOT_SPEC: &str =
    "torus-knot:P,Q:SEGMENTS,SIDES[:TUBE] (closed mesh, 2·SEGMENTS·SIDES triangles, tube radius default 0.45)";

/// Parses `torus-knot:P,Q:SEGMENTS,SIDES[:TUBE]`; `None` when `s` is not a torus-knot spec.
pub fn torus_knot_spec(s: &str) -> Option<Result<TriMesh, PolycdError>> {
    let rest = s.trim().strip_prefix("torus-knot:")?;
    let err = |m: &str| PolycdError::ShapeSpec {
        spec: s.to_string(),
        message: m.to_string(),
    };
    let parts: Vec<&str> = rest.split(':').collect();
    let ints = |p: Option<&&str>| -> Result<(u32, u32), PolycdError> {
        let p = p.ok_or_else(|| err("expected P,Q:SEGMENTS,SIDES[:TUBE]"))?;
        let v: Vec<u32> = p
            .split(',')
            .map(|x| {
                x.trim()
                    .parse::<u32>()
                    .map_err(|_| err("expected non-negative integers"))
            })
            .collect::<Result<_, _>>()?;
        match v[..] {
            [x, y] => Ok((x, y)),
            _ => Err(err("expected two comma-separated integers")),
        }
    };
    Some((|| {
        let (p, q) = ints(parts.first())?;
        let (segments, sides) = ints(parts.get(1))?;
        let tube = match parts.get(2) {
            Some(t) => t
                .trim()
                .parse::<f64>()
                .map_err(|_| err("the tube radius must be a number"))?,
            None => 0.45,
        };
        if parts.len() > 3 {
            return Err(err("too many ':'-separated parts"));
        }
        let (v, f) = polycd::shapes::torus_knot(p, q, segments, sides, tube)?;
        TriMesh::new(&v, &f)
    })())
}
