//! Reading and writing polyhedra as OBJ, OFF and STL files, and plain point lists.
//!
//! No paper behind this module: it is the file layer of issue 2 ("a broken file gives an error
//! with the file name and what is wrong").
//!
//! Outline:
//! - the format is chosen by the file extension (`.obj`, `.off`, `.stl`, case-insensitive;
//!   `.xyz`, `.pts`, `.txt` are plain point lists, see [`parse_points_text`]);
//! - OBJ goes through `tobj` (positions kept as given: no triangulation, no merging, no
//!   re-ordering, lines and points ignored), after a line-numbered validation pass of our own,
//!   because `tobj`'s errors carry no line number;
//! - OFF is parsed by hand (there is no well-kept crate for it): header, counts, vertex lines,
//!   face lines, `#` comments, with a line number in every error;
//! - ASCII STL goes through `stl_io`; binary STL (fixed 50-byte records) is read directly,
//!   because `stl_io` mistakes binary files whose header starts with `solid ` for ASCII; a
//!   binary file shorter than its triangle count needs is reported as truncated;
//! - writers emit the shortest round-tripping decimal form of every `f64` (OBJ, OFF), so a
//!   written polyhedron reads back bit-identically; STL stores `f32` and triangulates faces by
//!   fans.
//!
//! Invariants: every error is [`PolycdError::File`] with the path and what is wrong; every
//! returned coordinate is finite and at most [`MAX_COORDINATE`](crate::core::tolerance::MAX_COORDINATE) in magnitude; every returned
//! face index is in range and every face has at least 3 vertices. Nothing panics on any input.
//!
//! Termination: every loop runs over the lines, tokens or triangles of the input (finite), and
//! allocations are bounded by the input size, never by a count the file claims.
//!
//! Departures: none from the formats; OFF files without the `OFF` keyword (counts first) are
//! accepted, as many tools write them.
//!
//! Files: `text.rs` (point lists, OBJ, OFF), `stl.rs` (ASCII and binary STL), `write.rs`
//! (the writers); this file chooses the format and builds polyhedra from what was read.

mod stl;
mod text;
mod write;

pub use stl::parse_stl;
pub use text::{parse_obj, parse_off, parse_points_text};
pub use write::{obj_string, off_string, stl_bytes, write_obj, write_off, write_polyhedron, write_stl};

use crate::core::error::{ConvexityDefect, MeshNumbering, PolycdError};
use crate::core::math::DVec3;
use crate::core::tolerance::{HULL_AREA_REL, VALIDATION_REL};
use crate::shape::polyhedron::ConvexPolyhedron;
use std::path::Path;
use stl::parse_stl_named;
use text::{parse_obj_named, parse_off_lines, parse_off_named, parse_points_named, scan_obj, scan_obj_lines};

/// The file formats polycd reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MeshFormat {
    /// Wavefront OBJ (`v` and `f` records).
    Obj,
    /// Object File Format (Geomview).
    Off,
    /// Stereolithography, ASCII or binary.
    Stl,
    /// Plain text, one point `x y z` per line.
    Points,
}

impl MeshFormat {
    /// The format of a path, from its extension (case-insensitive).
    pub fn from_path(path: &Path) -> Result<MeshFormat, PolycdError> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase())
            .unwrap_or_default();
        match ext.as_str() {
            "obj" => Ok(MeshFormat::Obj),
            "off" => Ok(MeshFormat::Off),
            "stl" => Ok(MeshFormat::Stl),
            "xyz" | "pts" | "txt" => Ok(MeshFormat::Points),
            "" => Err(file_err(
                path,
                "the file name has no extension; expected .obj, .off, .stl (or .xyz/.pts/.txt for point lists)",
            )),
            other => Err(file_err(
                path,
                format!("unknown extension '.{other}'; expected .obj, .off, .stl (or .xyz/.pts/.txt for point lists)"),
            )),
        }
    }
}

/// A mesh as read from a file: vertex positions and faces as vertex index loops.
pub type Mesh = (Vec<DVec3>, Vec<Vec<u32>>);

pub(super) fn file_err(path: &Path, message: impl Into<String>) -> PolycdError {
    PolycdError::File {
        path: path.display().to_string(),
        message: message.into(),
    }
}

pub(super) fn named_err(name: &str, message: impl Into<String>) -> PolycdError {
    PolycdError::File {
        path: name.to_string(),
        message: message.into(),
    }
}

pub(super) fn read_bytes(path: &Path) -> Result<Vec<u8>, PolycdError> {
    std::fs::read(path).map_err(|e| file_err(path, format!("cannot read the file: {e}")))
}

fn as_text<'a>(name: &str, bytes: &'a [u8]) -> Result<&'a str, PolycdError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes
            .get(..e.valid_up_to())
            .map_or(1, |b| b.iter().filter(|&&c| c == b'\n').count() + 1);
        named_err(name, format!("line {line}: the file is not valid UTF-8 text"))
    })
}

/// All vertex positions of a file (by extension: `.obj`, `.off`, `.stl`; `.xyz`, `.pts`,
/// `.txt` as plain point lists), in file order. OBJ vertices not used by any face are
/// included.
pub fn read_points(path: impl AsRef<Path>) -> Result<Vec<DVec3>, PolycdError> {
    let path = path.as_ref();
    let format = MeshFormat::from_path(path)?;
    let bytes = read_bytes(path)?;
    points_from_bytes(&bytes, format, &path.display().to_string())
}

/// All vertex positions of a file's contents given as bytes; `name` is used in errors.
pub fn points_from_bytes(bytes: &[u8], format: MeshFormat, name: &str) -> Result<Vec<DVec3>, PolycdError> {
    let pts = match format {
        MeshFormat::Obj => scan_obj(name, as_text(name, bytes)?)?.0,
        MeshFormat::Off => parse_off_named(name, as_text(name, bytes)?)?.0,
        MeshFormat::Stl => parse_stl_named(name, bytes)?.0,
        MeshFormat::Points => parse_points_named(name, as_text(name, bytes)?)?,
    };
    if pts.is_empty() {
        return Err(named_err(name, "the file contains no vertices"));
    }
    Ok(pts)
}

/// Vertices and faces of a mesh file (`.obj`, `.off`, `.stl`). Faces are vertex index loops
/// as the file gives them. OFF keeps the file's vertex order; OBJ vertices come in order of
/// first use by a face (as `tobj` exports them; unused vertices are dropped — [`read_points`]
/// has them all, in file order); STL gives triangles over vertices de-duplicated by their
/// exact coordinates.
pub fn read_mesh(path: impl AsRef<Path>) -> Result<Mesh, PolycdError> {
    let path = path.as_ref();
    let format = MeshFormat::from_path(path)?;
    let bytes = read_bytes(path)?;
    mesh_from_bytes(&bytes, format, &path.display().to_string())
}

/// Vertices and faces of a mesh file's contents given as bytes; `name` is used in errors.
pub fn mesh_from_bytes(bytes: &[u8], format: MeshFormat, name: &str) -> Result<Mesh, PolycdError> {
    let mesh = match format {
        MeshFormat::Obj => parse_obj_named(name, as_text(name, bytes)?)?,
        MeshFormat::Off => parse_off_named(name, as_text(name, bytes)?)?,
        MeshFormat::Stl => parse_stl_named(name, bytes)?,
        MeshFormat::Points => {
            return Err(named_err(name, "a point list has no faces; it is not a mesh file"));
        }
    };
    if mesh.0.is_empty() {
        return Err(named_err(name, "the file contains no vertices"));
    }
    if mesh.1.is_empty() {
        return Err(named_err(name, "the file contains no faces"));
    }
    Ok(mesh)
}

/// A mesh file's vertices and faces with the file's own numbering of them, for error
/// messages that name places as the file does ([`crate::mesh::TriMesh::read`]).
#[derive(Clone, Debug, PartialEq)]
pub struct NumberedMesh {
    /// Vertex positions: as [`read_mesh`] gives them.
    pub vertices: Vec<DVec3>,
    /// Faces as vertex index loops into `vertices`, in file order.
    pub faces: Vec<Vec<u32>>,
    /// The file's numbering convention.
    pub numbering: MeshNumbering,
    /// The file's number of each vertex in that convention (OBJ: its 1-based `v` line
    /// order; OFF: its 0-based index; STL: the 0-based index of the de-duplicated vertex).
    pub vertex_number: Vec<u64>,
    /// The line of each face (OBJ, OFF; empty for STL).
    pub face_line: Vec<usize>,
}

/// [`read_mesh`] with the file's numbering of vertices and faces ([`NumberedMesh`]). OBJ
/// files are read by our own pass (vertices in order of first use by a face, as [`read_mesh`]
/// gives them for a file of one object; vertices shared by several `o`/`g` groups stay shared).
pub fn read_mesh_numbered(path: impl AsRef<Path>) -> Result<NumberedMesh, PolycdError> {
    let path = path.as_ref();
    let format = MeshFormat::from_path(path)?;
    let bytes = read_bytes(path)?;
    mesh_numbered_from_bytes(&bytes, format, &path.display().to_string())
}

/// [`read_mesh_numbered`] on a file's contents given as bytes; `name` is used in errors.
pub fn mesh_numbered_from_bytes(bytes: &[u8], format: MeshFormat, name: &str) -> Result<NumberedMesh, PolycdError> {
    let mesh = match format {
        MeshFormat::Obj => {
            let (pts, file_faces, face_line) = scan_obj_lines(name, as_text(name, bytes)?)?;
            // Keep the vertices used by faces, in order of first use.
            let mut new_index = vec![u32::MAX; pts.len()];
            let mut vertices = Vec::new();
            let mut vertex_number = Vec::new();
            let mut faces = Vec::with_capacity(file_faces.len());
            for f in &file_faces {
                let mut face = Vec::with_capacity(f.len());
                for &i in f {
                    let slot = &mut new_index[i as usize];
                    if *slot == u32::MAX {
                        *slot = vertices.len() as u32;
                        vertices.push(pts[i as usize]);
                        vertex_number.push(u64::from(i) + 1);
                    }
                    face.push(*slot);
                }
                faces.push(face);
            }
            if vertices.is_empty() {
                vertices = pts;
            }
            NumberedMesh {
                vertices,
                faces,
                numbering: MeshNumbering::Obj,
                vertex_number,
                face_line,
            }
        }
        MeshFormat::Off => {
            let (vertices, faces, face_line) = parse_off_lines(name, as_text(name, bytes)?)?;
            NumberedMesh {
                vertex_number: (0..vertices.len() as u64).collect(),
                vertices,
                faces,
                numbering: MeshNumbering::Off,
                face_line,
            }
        }
        MeshFormat::Stl => {
            let (vertices, faces) = parse_stl_named(name, bytes)?;
            NumberedMesh {
                vertex_number: (0..vertices.len() as u64).collect(),
                vertices,
                faces,
                numbering: MeshNumbering::Stl,
                face_line: Vec::new(),
            }
        }
        MeshFormat::Points => {
            return Err(named_err(name, "a point list has no faces; it is not a mesh file"));
        }
    };
    if mesh.vertices.is_empty() {
        return Err(named_err(name, "the file contains no vertices"));
    }
    if mesh.faces.is_empty() {
        return Err(named_err(name, "the file contains no faces"));
    }
    Ok(mesh)
}

/// The convex hull of all vertices of a file (see [`read_points`]). Hull failures (too few
/// points, flat or collinear clouds…) are reported as file errors naming the file.
pub fn read_polyhedron(path: impl AsRef<Path>) -> Result<ConvexPolyhedron, PolycdError> {
    read_polyhedron_with_progress(path, &mut |_, _, _| {})
}

/// [`read_polyhedron`], reporting the construction's progress (see [`crate::core::progress`]).
pub fn read_polyhedron_with_progress(
    path: impl AsRef<Path>,
    progress: &mut dyn FnMut(crate::core::progress::Phase, u64, u64),
) -> Result<ConvexPolyhedron, PolycdError> {
    let path = path.as_ref();
    let pts = read_points(path)?;
    ConvexPolyhedron::from_points_with_progress(&pts, progress)
        .map_err(|e| file_err(path, format!("no convex polyhedron: {e}")))
}

/// The convex polyhedron a file describes, refusing files whose faces describe anything else.
///
/// A point list (or an OBJ file without faces) is its convex hull, as with
/// [`read_polyhedron`]. A mesh file's faces must be the boundary of the convex hull of all its
/// vertices ([`hull_boundary_defect`]); otherwise the error is [`PolycdError::NotConvex`],
/// naming the first face in file order that is not on the hull, or the edge or coverage
/// defect. Callers that want the hull of a non-convex file say so with [`read_polyhedron`].
pub fn read_convex_polyhedron(path: impl AsRef<Path>) -> Result<ConvexPolyhedron, PolycdError> {
    read_convex_polyhedron_with_progress(path, &mut |_, _, _| {})
}

/// [`read_convex_polyhedron`], reporting the hull construction's progress (see
/// [`crate::core::progress`]).
pub fn read_convex_polyhedron_with_progress(
    path: impl AsRef<Path>,
    progress: &mut dyn FnMut(crate::core::progress::Phase, u64, u64),
) -> Result<ConvexPolyhedron, PolycdError> {
    let path = path.as_ref();
    let format = MeshFormat::from_path(path)?;
    let bytes = read_bytes(path)?;
    let name = path.display().to_string();
    // Points in file order (as `read_points` gives them) and faces indexing them.
    let (pts, faces) = match format {
        MeshFormat::Obj => scan_obj(&name, as_text(&name, &bytes)?)?,
        MeshFormat::Off => parse_off_named(&name, as_text(&name, &bytes)?)?,
        MeshFormat::Stl => parse_stl_named(&name, &bytes)?,
        MeshFormat::Points => (parse_points_named(&name, as_text(&name, &bytes)?)?, Vec::new()),
    };
    if pts.is_empty() {
        return Err(named_err(&name, "the file contains no vertices"));
    }
    let hull = ConvexPolyhedron::from_points_with_progress(&pts, progress)
        .map_err(|e| file_err(path, format!("no convex polyhedron: {e}")))?;
    if faces.is_empty() {
        return Ok(hull);
    }
    match hull_boundary_defect(&pts, &faces, &hull) {
        None => Ok(hull),
        Some(defect) => Err(PolycdError::NotConvex { path: name, defect }),
    }
}

/// Whether `faces` (vertex index loops into `points`) are exactly the boundary of `hull`, the
/// convex hull of `points`: `None` if so, else the first defect found. Faces may be
/// triangulated or split, carry extra vertices on hull edges and faces, and be wound either
/// way consistently; points no face uses may lie anywhere in the hull.
///
/// The test, in order (each step's failure names a face, 1-based in file order):
/// 1. every face lies in the plane of one hull face: each of its vertices within
///    [`VALIDATION_REL`] × the hull's scale of that plane (the files' decimal rounding), the
///    hull face found by a support query along the face's normal (both ways) and, failing
///    that, among all hull faces. A convex polygon in the plane of a face of a convex
///    polyhedron lies in that face: the faces lie on the hull's boundary;
/// 2. every directed edge `u → v` is matched by exactly one `v → u` of another face: a closed,
///    consistently wound surface;
/// 3. such a surface on the boundary of a convex body winds around its interior an integer
///    number `w` of times, its signed volume is `w` × the hull's volume: `|w| = 1` is checked;
///    with `|w| = 1` it covers every boundary point at least once, so its area equals the
///    hull's (to [`HULL_AREA_REL`]) exactly when it covers it once.
///
/// Cost: O(F log V) support queries plus O(E) hashing; the all-faces fallback only for faces
/// that turn out not to be on the hull (the first ends the test) or lie at rounding distance
/// from a hull edge.
pub fn hull_boundary_defect(points: &[DVec3], faces: &[Vec<u32>], hull: &ConvexPolyhedron) -> Option<ConvexityDefect> {
    let tol = VALIDATION_REL * hull.magnitude().max(hull.scale());
    let arr = |p: DVec3| p.to_array();
    let on_plane = |f: u32, face: &[u32]| {
        let pl = hull.face_plane(f);
        face.iter()
            .all(|&v| pl.signed_distance(points[v as usize]).abs() <= tol)
    };
    // Areas and volumes in coordinates scaled by a power of two (exact) near the magnitude,
    // about the hull's centroid: no overflow, little cancellation.
    let m = hull.magnitude().max(f64::MIN_POSITIVE);
    let s = 2f64.powi(-(m.log2().ceil() as i32));
    let c = hull.centroid() * s;
    let newell = |pos: &[DVec3], face: &[u32]| {
        let mut n = DVec3::ZERO;
        for k in 0..face.len() {
            let a = pos[face[k] as usize] * s - c;
            let b = pos[face[(k + 1) % face.len()] as usize] * s - c;
            n += a.cross(b);
        }
        n
    };
    let mut area = 0.0;
    let mut volume = 0.0;
    for (i, face) in faces.iter().enumerate() {
        let n = newell(points, face);
        let repeats = (0..face.len()).any(|k| face[k] == face[(k + 1) % face.len()]);
        if repeats || !(n.length() > 0.0) {
            return Some(ConvexityDefect::DegenerateFace { face: i + 1 });
        }
        // Twice the area; six times the signed volume of the cone from the centroid.
        area += n.length() / 2.0;
        volume += n.dot(points[face[0] as usize] * s - c) / 6.0;
        let mut found = false;
        for dir in [n, -n] {
            let v = hull.support_hierarchy(dir);
            if hull.outgoing(v).iter().any(|&h| on_plane(hull.half_edge(h).face, face)) {
                found = true;
                break;
            }
        }
        if !found {
            found = (0..hull.faces().len() as u32).any(|f| on_plane(f, face));
        }
        if !found {
            // A face that is not on the hull lies strictly inside the hull's two supporting
            // planes parallel to it (touching one, a plane polygon of positive area would lie
            // in a hull face): report the nearer gap, measured from the face's nearest vertex.
            let unit = n.normalize();
            let (normal, gap) = [unit, -unit]
                .into_iter()
                .map(|d| {
                    let h = d.dot(hull.vertices()[hull.support_hierarchy(d) as usize]);
                    let top = face
                        .iter()
                        .map(|&v| d.dot(points[v as usize]))
                        .fold(f64::NEG_INFINITY, f64::max);
                    (d, h - top)
                })
                .fold((unit, f64::INFINITY), |best, c| if c.1 < best.1 { c } else { best });
            return Some(ConvexityDefect::OffHull {
                face: i + 1,
                normal: arr(normal),
                gap,
            });
        }
    }
    // Directed edges: each must meet its reverse exactly once. The edges sorted by their end
    // points (one sort, then a linear scan: a hash map of a million edges was 3/4 of the load
    // time) form groups of one undirected edge; a group is good when it holds exactly one edge
    // each way. Every edge of a bad group is bad: the first of them in file order is named.
    let mut edges: Vec<(u64, usize, usize, bool)> = Vec::with_capacity(faces.iter().map(Vec::len).sum());
    for (i, face) in faces.iter().enumerate() {
        for k in 0..face.len() {
            let (a, b) = (face[k], face[(k + 1) % face.len()]);
            let (lo, hi) = (a.min(b), a.max(b));
            edges.push(((u64::from(lo) << 32) | u64::from(hi), i, k, a < b));
        }
    }
    edges.sort_unstable_by_key(|e| e.0);
    let mut first_bad: Option<(usize, usize)> = None;
    for group in edges.chunk_by(|x, y| x.0 == y.0) {
        let good = group.len() == 2 && group[0].3 != group[1].3;
        if !good {
            // Groups are never empty.
            if let Some(at) = group.iter().map(|e| (e.1, e.2)).min() {
                first_bad = Some(first_bad.map_or(at, |f| f.min(at)));
            }
        }
    }
    if let Some((i, k)) = first_bad {
        let face = &faces[i];
        let (a, b) = (face[k], face[(k + 1) % face.len()]);
        return Some(ConvexityDefect::OpenEdge {
            face: i + 1,
            from: arr(points[a as usize]),
            to: arr(points[b as usize]),
        });
    }
    // Winding number and single coverage.
    let s3 = s * s * s;
    let hull_volume = hull.volume() * s3;
    let hull_area: f64 = (0..hull.faces().len() as u32)
        .map(|f| newell(hull.vertices(), hull.face_vertices(f)).length() / 2.0)
        .sum::<f64>();
    let winding = volume / hull_volume;
    if !((0.5..1.5).contains(&winding.abs())) || (area - hull_area).abs() > HULL_AREA_REL * hull_area {
        let s2 = s * s;
        return Some(ConvexityDefect::Coverage {
            volume: volume / s3,
            area: area / s2,
            hull_volume: hull.volume(),
            hull_area: hull_area / s2,
        });
    }
    None
}
