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
//! returned coordinate is finite and at most [`MAX_COORDINATE`] in magnitude; every returned
//! face index is in range and every face has at least 3 vertices. Nothing panics on any input.
//!
//! Termination: every loop runs over the lines, tokens or triangles of the input (finite), and
//! allocations are bounded by the input size, never by a count the file claims.
//!
//! Departures: none from the formats; OFF files without the `OFF` keyword (counts first) are
//! accepted, as many tools write them.

use crate::core::error::{ConvexityDefect, MeshNumbering, PolycdError};
use crate::core::math::DVec3;
use crate::core::tolerance::{HULL_AREA_REL, MAX_COORDINATE, VALIDATION_REL};
use crate::shape::polyhedron::ConvexPolyhedron;
use std::io::Write;
use std::path::Path;

/// The file formats polycd reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

fn file_err(path: &Path, message: impl Into<String>) -> PolycdError {
    PolycdError::File {
        path: path.display().to_string(),
        message: message.into(),
    }
}

fn named_err(name: &str, message: impl Into<String>) -> PolycdError {
    PolycdError::File {
        path: name.to_string(),
        message: message.into(),
    }
}

fn read_bytes(path: &Path) -> Result<Vec<u8>, PolycdError> {
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

/// Parses a plain point list: one point per line, three coordinates separated by whitespace
/// and/or commas; `#` starts a comment; blank lines are skipped. Errors name `<text>` as the
/// file; [`read_points`] names the real file.
pub fn parse_points_text(text: &str) -> Result<Vec<DVec3>, PolycdError> {
    parse_points_named("<text>", text)
}

fn strip_comment(line: &str) -> &str {
    match line.find('#') {
        Some(i) => line.get(..i).unwrap_or(""),
        None => line,
    }
}

fn parse_coord(name: &str, lineno: usize, tok: &str, what: &str) -> Result<f64, PolycdError> {
    let v: f64 = tok
        .parse()
        .map_err(|_| named_err(name, format!("line {lineno}: {what}: '{tok}' is not a number")))?;
    if !v.is_finite() {
        return Err(named_err(
            name,
            format!("line {lineno}: {what}: coordinate '{tok}' is not finite (NaN or infinity)"),
        ));
    }
    if v.abs() > MAX_COORDINATE {
        return Err(named_err(
            name,
            format!("line {lineno}: {what}: coordinate {v:e} exceeds the supported maximum {MAX_COORDINATE:e}"),
        ));
    }
    Ok(v)
}

fn parse_points_named(name: &str, text: &str) -> Result<Vec<DVec3>, PolycdError> {
    let mut pts = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let lineno = i + 1;
        let line = strip_comment(raw);
        let toks: Vec<&str> = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
            .collect();
        if toks.is_empty() {
            continue;
        }
        if toks.len() != 3 {
            return Err(named_err(
                name,
                format!(
                    "line {lineno}: expected 3 coordinates 'x y z', found {} values",
                    toks.len()
                ),
            ));
        }
        let mut c = [0.0; 3];
        for (k, t) in toks.iter().enumerate() {
            c[k] = parse_coord(name, lineno, t, "point")?;
        }
        pts.push(DVec3::from_array(c));
    }
    if pts.is_empty() {
        return Err(named_err(name, "the point list is empty"));
    }
    Ok(pts)
}

// ---------------------------------------------------------------------------------------------
// OBJ

/// Parses one OBJ index token (`i`, `i/t`, `i//n`, `i/t/n`; negative = relative) into a
/// 0-based position index, given the number of positions defined so far.
fn obj_index(name: &str, lineno: usize, tok: &str, defined: usize) -> Result<u32, PolycdError> {
    let first = tok.split('/').next().unwrap_or("");
    let i: i64 = first
        .parse()
        .map_err(|_| named_err(name, format!("line {lineno}: face index '{tok}' is not an integer")))?;
    let idx = if i > 0 {
        i - 1
    } else if i < 0 {
        defined as i64 + i
    } else {
        return Err(named_err(
            name,
            format!("line {lineno}: face index 0 is invalid (OBJ indices start at 1)"),
        ));
    };
    if idx < 0 || idx >= defined as i64 || idx > u32::MAX as i64 {
        return Err(named_err(
            name,
            format!("line {lineno}: face index {i} refers to a vertex that does not exist ({defined} vertices defined so far)"),
        ));
    }
    Ok(idx as u32)
}

/// Our own line-numbered pass over an OBJ file: every `v` position and every `f` face (as
/// absolute 0-based position indices). Used for the error messages and for vertex-only files.
fn scan_obj(name: &str, text: &str) -> Result<Mesh, PolycdError> {
    scan_obj_lines(name, text).map(|(pts, faces, _)| (pts, faces))
}

/// Vertices, faces, and the line of each face in the file.
type LinedMesh = (Vec<DVec3>, Vec<Vec<u32>>, Vec<usize>);

/// [`scan_obj`], with the line of each face.
fn scan_obj_lines(name: &str, text: &str) -> Result<LinedMesh, PolycdError> {
    let mut pts = Vec::new();
    let mut faces = Vec::new();
    let mut face_lines = Vec::new();
    let mut continued = String::new();
    let mut start_line = 0usize;
    for (i, raw) in text.lines().enumerate() {
        let lineno = i + 1;
        if continued.is_empty() {
            start_line = lineno;
        }
        // Backslash continues a logical line.
        if let Some(stripped) = raw.strip_suffix('\\') {
            continued.push_str(stripped);
            continued.push(' ');
            continue;
        }
        continued.push_str(raw);
        let logical = std::mem::take(&mut continued);
        let line = strip_comment(&logical);
        let mut toks = line.split_whitespace();
        match toks.next() {
            Some("v") => {
                let mut c = [0.0; 3];
                for (k, slot) in c.iter_mut().enumerate() {
                    let t = toks.next().ok_or_else(|| {
                        named_err(
                            name,
                            format!("line {start_line}: vertex has {k} coordinates, 3 are needed"),
                        )
                    })?;
                    *slot = parse_coord(name, start_line, t, "vertex")?;
                }
                // An optional weight or colour may follow; it must still be numeric.
                for t in toks {
                    if t.parse::<f64>().is_err() {
                        return Err(named_err(
                            name,
                            format!("line {start_line}: vertex: '{t}' is not a number"),
                        ));
                    }
                }
                pts.push(DVec3::from_array(c));
            }
            Some("f") => {
                let mut face = Vec::new();
                for t in toks {
                    face.push(obj_index(name, start_line, t, pts.len())?);
                }
                if face.len() < 3 {
                    return Err(named_err(
                        name,
                        format!(
                            "line {start_line}: face has {} vertices, at least 3 are needed",
                            face.len()
                        ),
                    ));
                }
                faces.push(face);
                face_lines.push(start_line);
            }
            _ => {}
        }
    }
    Ok((pts, faces, face_lines))
}

fn parse_obj_named(name: &str, text: &str) -> Result<Mesh, PolycdError> {
    // Validation with line numbers first; tobj then builds the mesh.
    let (pts, scanned_faces) = scan_obj(name, text)?;
    if scanned_faces.is_empty() {
        return Ok((pts, Vec::new()));
    }
    // `..Default::default()` covers fields that tobj's optional features add.
    #[allow(clippy::needless_update)]
    let opts = tobj::LoadOptions {
        single_index: false,
        triangulate: false,
        ignore_points: true,
        ignore_lines: true,
        ..Default::default()
    };
    let mut reader = std::io::BufReader::new(text.as_bytes());
    let (models, _materials) = tobj::load_obj_buf(&mut reader, &opts, |_| Err(tobj::LoadError::OpenFileFailed))
        .map_err(|e| named_err(name, format!("malformed OBJ: {e}")))?;
    let mut vertices = Vec::new();
    let mut faces = Vec::new();
    for m in &models {
        let mesh = &m.mesh;
        let base = vertices.len();
        if mesh.positions.len() % 3 != 0 {
            return Err(named_err(name, "malformed OBJ: position count is not a multiple of 3"));
        }
        for c in mesh.positions.chunks_exact(3) {
            let p = DVec3::new(c[0], c[1], c[2]);
            if !p.is_finite() {
                return Err(named_err(name, "a vertex has a non-finite coordinate"));
            }
            vertices.push(p);
        }
        let arities: Vec<u32> = if mesh.face_arities.is_empty() {
            vec![3; mesh.indices.len() / 3]
        } else {
            mesh.face_arities.clone()
        };
        let mut k = 0usize;
        for &n in &arities {
            let n = n as usize;
            let Some(idx) = mesh.indices.get(k..k + n) else {
                return Err(named_err(name, "malformed OBJ: face indices run past the index list"));
            };
            k += n;
            let mut face = Vec::with_capacity(n);
            for &i in idx {
                if i as usize >= mesh.positions.len() / 3 {
                    return Err(named_err(name, "malformed OBJ: face index out of range"));
                }
                let g = base + i as usize;
                if g > u32::MAX as usize {
                    return Err(named_err(name, "too many vertices"));
                }
                face.push(g as u32);
            }
            if face.len() >= 3 {
                faces.push(face);
            }
        }
    }
    let nv = vertices.len();
    if faces.iter().flatten().any(|&i| i as usize >= nv) {
        return Err(named_err(name, "malformed OBJ: face index out of range"));
    }
    Ok((vertices, faces))
}

// ---------------------------------------------------------------------------------------------
// OFF

fn parse_off_named(name: &str, text: &str) -> Result<Mesh, PolycdError> {
    parse_off_lines(name, text).map(|(pts, faces, _)| (pts, faces))
}

/// [`parse_off_named`], with the line of each face.
fn parse_off_lines(name: &str, text: &str) -> Result<LinedMesh, PolycdError> {
    // Logical lines without comments and blanks, with their 1-based line numbers.
    let mut lines = text.lines().enumerate().filter_map(|(i, raw)| {
        let l = strip_comment(raw).trim();
        if l.is_empty() {
            None
        } else {
            Some((i + 1, l))
        }
    });
    let Some((first_no, first)) = lines.next() else {
        return Err(named_err(name, "the file is empty (expected an 'OFF' header)"));
    };
    let mut toks: Vec<&str> = first.split_whitespace().collect();
    let mut counts_line = first_no;
    if let Some(&kw) = toks.first() {
        if kw.parse::<f64>().is_err() {
            let upper = kw.to_ascii_uppercase();
            if !upper.ends_with("OFF") {
                return Err(named_err(
                    name,
                    format!("line {first_no}: expected the 'OFF' header, found '{kw}'"),
                ));
            }
            if kw.contains('4') || kw.starts_with('n') {
                return Err(named_err(
                    name,
                    format!("line {first_no}: '{kw}' files (not 3-dimensional) are not supported"),
                ));
            }
            toks.remove(0);
            if toks.is_empty() {
                let Some((no, l)) = lines.next() else {
                    return Err(named_err(
                        name,
                        format!("line {first_no}: the file ends after the header (expected the counts 'vertices faces edges')"),
                    ));
                };
                counts_line = no;
                toks = l.split_whitespace().collect();
            }
        }
    }
    if toks.len() < 2 {
        return Err(named_err(
            name,
            format!(
                "line {counts_line}: expected the counts 'vertices faces edges', found '{}'",
                toks.join(" ")
            ),
        ));
    }
    let count = |t: &str, what: &str| -> Result<usize, PolycdError> {
        t.parse::<usize>().map_err(|_| {
            named_err(
                name,
                format!("line {counts_line}: the {what} count '{t}' is not a non-negative integer"),
            )
        })
    };
    let nv = count(toks[0], "vertex")?;
    let nf = count(toks[1], "face")?;
    if let Some(t) = toks.get(2) {
        count(t, "edge")?;
    }
    if nv > u32::MAX as usize {
        return Err(named_err(
            name,
            format!("line {counts_line}: {nv} vertices is more than supported"),
        ));
    }
    // Never trust a claimed count for allocation: each item needs at least one line.
    let budget = text.len() / 2 + 1;
    let mut pts = Vec::with_capacity(nv.min(budget));
    let mut last_line = counts_line;
    for k in 0..nv {
        let Some((no, l)) = lines.next() else {
            return Err(named_err(
                name,
                format!(
                    "truncated: the header (line {counts_line}) announces {nv} vertices, but the file ends after {k} (line {last_line})"
                ),
            ));
        };
        last_line = no;
        let mut t = l.split_whitespace();
        let mut c = [0.0; 3];
        for (j, slot) in c.iter_mut().enumerate() {
            let tok = t
                .next()
                .ok_or_else(|| named_err(name, format!("line {no}: vertex {k} has {j} coordinates, 3 are needed")))?;
            *slot = parse_coord(name, no, tok, &format!("vertex {k}"))?;
        }
        pts.push(DVec3::from_array(c));
    }
    let mut faces = Vec::with_capacity(nf.min(budget));
    let mut face_lines = Vec::with_capacity(nf.min(budget));
    for k in 0..nf {
        let Some((no, l)) = lines.next() else {
            return Err(named_err(
                name,
                format!(
                    "truncated: the header (line {counts_line}) announces {nf} faces, but the file ends after {k} (line {last_line})"
                ),
            ));
        };
        last_line = no;
        let mut t = l.split_whitespace();
        let n_tok = t.next().unwrap_or("");
        let n: usize = n_tok.parse().map_err(|_| {
            named_err(
                name,
                format!("line {no}: face {k}: the vertex count '{n_tok}' is not an integer"),
            )
        })?;
        if n < 3 {
            return Err(named_err(
                name,
                format!("line {no}: face {k} has {n} vertices, at least 3 are needed"),
            ));
        }
        let mut face = Vec::with_capacity(n.min(l.len()));
        for j in 0..n {
            let tok = t.next().ok_or_else(|| {
                named_err(
                    name,
                    format!("line {no}: face {k} announces {n} vertices but lists only {j}"),
                )
            })?;
            let i: usize = tok.parse().map_err(|_| {
                named_err(
                    name,
                    format!("line {no}: face {k}: vertex index '{tok}' is not a non-negative integer"),
                )
            })?;
            if i >= nv {
                return Err(named_err(
                    name,
                    format!("line {no}: face {k}: vertex index {i} is out of range (the file has {nv} vertices)"),
                ));
            }
            face.push(i as u32);
        }
        // Remaining tokens are an optional colour.
        faces.push(face);
        face_lines.push(no);
    }
    Ok((pts, faces, face_lines))
}

/// Parses OFF text (see the module header); errors name `<text>`.
pub fn parse_off(text: &str) -> Result<Mesh, PolycdError> {
    parse_off_named("<text>", text)
}

/// Parses OBJ text (see the module header); errors name `<text>`.
pub fn parse_obj(text: &str) -> Result<Mesh, PolycdError> {
    parse_obj_named("<text>", text)
}

// ---------------------------------------------------------------------------------------------
// STL

fn parse_stl_named(name: &str, bytes: &[u8]) -> Result<Mesh, PolycdError> {
    if bytes.is_empty() {
        return Err(named_err(name, "the file is empty"));
    }
    let is_ascii = bytes.trim_ascii_start().starts_with(b"solid") && {
        // Binary files may also start with "solid": trust the size when it matches exactly.
        !(bytes.len() >= 84 && binary_len(bytes) == Some(bytes.len()))
    };
    if !is_ascii {
        if bytes.len() < 84 {
            return Err(named_err(
                name,
                format!(
                    "truncated binary STL: {} bytes, but the 80-byte header and the 4-byte triangle count alone need 84",
                    bytes.len()
                ),
            ));
        }
        if let Some(need) = binary_len(bytes) {
            if bytes.len() < need {
                let n = (need - 84) / 50;
                return Err(named_err(
                    name,
                    format!(
                        "truncated binary STL: the header announces {n} triangles ({need} bytes), but the file has {} bytes",
                        bytes.len()
                    ),
                ));
            }
        }
    }
    let raw: Vec<[f32; 3]>;
    let tris: Vec<[usize; 3]>;
    if is_ascii {
        let mut cursor = std::io::Cursor::new(bytes);
        let mesh = stl_io::read_stl(&mut cursor).map_err(|e| named_err(name, format!("malformed ASCII STL: {e}")))?;
        raw = mesh.vertices.iter().map(|v| v.0).collect();
        tris = mesh.faces.iter().map(|t| t.vertices).collect();
    } else {
        (raw, tris) = read_binary_stl(bytes);
    }
    let mut pts = Vec::with_capacity(raw.len());
    for (i, v) in raw.iter().enumerate() {
        let p = DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64);
        if !p.is_finite() {
            return Err(named_err(
                name,
                format!("vertex {i} has a non-finite coordinate (NaN or infinity)"),
            ));
        }
        pts.push(p);
    }
    let mut faces = Vec::with_capacity(tris.len());
    for t in &tris {
        let mut f = Vec::with_capacity(3);
        for &i in t {
            if i >= pts.len() || i > u32::MAX as usize {
                return Err(named_err(name, "malformed STL: triangle refers to a missing vertex"));
            }
            f.push(i as u32);
        }
        faces.push(f);
    }
    Ok((pts, faces))
}

/// Reads the triangles of a binary STL whose size has been checked (84 + 50·n bytes or more;
/// trailing bytes are ignored), de-duplicating vertices by their bit patterns. Read directly:
/// the format is fixed 50-byte records, and `stl_io` takes binary files whose header begins
/// with `solid ` for ASCII.
fn read_binary_stl(bytes: &[u8]) -> (Vec<[f32; 3]>, Vec<[usize; 3]>) {
    let n = bytes
        .get(80..84)
        .map_or(0, |c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize);
    let body = bytes.get(84..).unwrap_or(&[]);
    let mut index: std::collections::HashMap<[u32; 3], usize> = std::collections::HashMap::new();
    let mut verts = Vec::new();
    let mut tris = Vec::with_capacity(n.min(body.len() / 50));
    for rec in body.chunks_exact(50).take(n) {
        let f = |o: usize| f32::from_le_bytes([rec[o], rec[o + 1], rec[o + 2], rec[o + 3]]);
        let mut t = [0usize; 3];
        for (k, slot) in t.iter_mut().enumerate() {
            let o = 12 + 12 * k;
            let v = [f(o), f(o + 4), f(o + 8)];
            let key = v.map(f32::to_bits);
            *slot = *index.entry(key).or_insert_with(|| {
                verts.push(v);
                verts.len() - 1
            });
        }
        tris.push(t);
    }
    (verts, tris)
}

/// The exact size a binary STL with this header's triangle count must have.
fn binary_len(bytes: &[u8]) -> Option<usize> {
    let c = bytes.get(80..84)?;
    let n = u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize;
    n.checked_mul(50)?.checked_add(84)
}

/// Parses STL bytes (ASCII or binary); errors name `<bytes>`.
pub fn parse_stl(bytes: &[u8]) -> Result<Mesh, PolycdError> {
    parse_stl_named("<bytes>", bytes)
}

// ---------------------------------------------------------------------------------------------
// Writers

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
