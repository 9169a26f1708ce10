//! Writers: OBJ and OFF with the shortest round-tripping decimals, STL as `f32` fans.

use super::{file_err, MeshFormat};
use crate::core::error::PolycdError;
use crate::core::math::DVec3;
use crate::shape::polyhedron::ConvexPolyhedron;
use std::io::Write;
use std::path::Path;

fn write_file(path: &Path, content: &[u8]) -> Result<(), PolycdError> {
    let mut f = std::fs::File::create(path).map_err(|e| file_err(path, format!("cannot create the file: {e}")))?;
    f.write_all(content)
        .and_then(|_| f.flush())
        .map_err(|e| file_err(path, format!("cannot write the file: {e}")))
}

/// OBJ text of a polyhedron: `v` lines (shortest round-trip decimals), then one `f` line per
/// face, counter-clockwise from outside, 1-based.
pub fn obj_string(poly: &ConvexPolyhedron) -> String {
    use std::fmt::Write as _;
    let (nv, ne, nf) = poly.counts();
    let mut s = String::with_capacity(32 * (nv + nf) + 64);
    let _ = writeln!(s, "# polycd convex polyhedron: {nv} vertices, {ne} edges, {nf} faces");
    for p in poly.vertices() {
        let _ = writeln!(s, "v {:?} {:?} {:?}", p.x, p.y, p.z);
    }
    for f in 0..nf as u32 {
        s.push('f');
        for &v in poly.face_vertices(f) {
            let _ = write!(s, " {}", v + 1);
        }
        s.push('\n');
    }
    s
}

/// OFF text of a polyhedron (0-based faces, counter-clockwise from outside).
pub fn off_string(poly: &ConvexPolyhedron) -> String {
    use std::fmt::Write as _;
    let (nv, ne, nf) = poly.counts();
    let mut s = String::with_capacity(32 * (nv + nf) + 64);
    let _ = writeln!(s, "OFF\n{nv} {nf} {ne}");
    for p in poly.vertices() {
        let _ = writeln!(s, "{:?} {:?} {:?}", p.x, p.y, p.z);
    }
    for f in 0..nf as u32 {
        let fv = poly.face_vertices(f);
        let _ = write!(s, "{}", fv.len());
        for &v in fv {
            let _ = write!(s, " {v}");
        }
        s.push('\n');
    }
    s
}

/// Binary STL bytes of a polyhedron: each face triangulated as a fan from its first vertex,
/// coordinates rounded to `f32` (the format's precision).
pub fn stl_bytes(poly: &ConvexPolyhedron) -> Vec<u8> {
    let f32v = |p: DVec3| stl_io::Vector::new([p.x as f32, p.y as f32, p.z as f32]);
    let mut tris = Vec::new();
    for f in 0..poly.faces().len() as u32 {
        let n = poly.face(f).normal;
        let fv = poly.face_vertices(f);
        if let Some((&first, rest)) = fv.split_first() {
            for w in rest.windows(2) {
                tris.push(stl_io::Triangle {
                    normal: f32v(n),
                    vertices: [
                        f32v(poly.vertex(first)),
                        f32v(poly.vertex(w[0])),
                        f32v(poly.vertex(w[1])),
                    ],
                });
            }
        }
    }
    let mut out = Vec::with_capacity(84 + 50 * tris.len());
    // Writing into a Vec cannot fail.
    let _ = stl_io::write_stl(&mut out, tris.iter());
    out
}

/// Writes a polyhedron as OBJ.
pub fn write_obj(path: impl AsRef<Path>, poly: &ConvexPolyhedron) -> Result<(), PolycdError> {
    write_file(path.as_ref(), obj_string(poly).as_bytes())
}

/// Writes a polyhedron as OFF.
pub fn write_off(path: impl AsRef<Path>, poly: &ConvexPolyhedron) -> Result<(), PolycdError> {
    write_file(path.as_ref(), off_string(poly).as_bytes())
}

/// Writes a polyhedron as binary STL (faces triangulated by fans, `f32` coordinates).
pub fn write_stl(path: impl AsRef<Path>, poly: &ConvexPolyhedron) -> Result<(), PolycdError> {
    write_file(path.as_ref(), &stl_bytes(poly))
}

/// Writes a polyhedron in the format its extension names (`.obj`, `.off`, `.stl`).
pub fn write_polyhedron(path: impl AsRef<Path>, poly: &ConvexPolyhedron) -> Result<(), PolycdError> {
    let path = path.as_ref();
    match MeshFormat::from_path(path)? {
        MeshFormat::Obj => write_obj(path, poly),
        MeshFormat::Off => write_off(path, poly),
        MeshFormat::Stl => write_stl(path, poly),
        MeshFormat::Points => Err(file_err(
            path,
            "cannot write a polyhedron as a point list; use .obj, .off or .stl",
        )),
    }
}
