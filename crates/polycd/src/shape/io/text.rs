//! Plain point lists, OBJ and OFF: line-numbered parsing.

use super::{named_err, Mesh};
use crate::core::error::PolycdError;
use crate::core::math::DVec3;
use crate::core::tolerance::MAX_COORDINATE;

/// Parses a plain point list: one point per line, three coordinates separated by whitespace
/// and/or commas; `#` starts a comment; blank lines are skipped. Errors name `<text>` as the
/// file; [`read_points`](super::read_points) names the real file.
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

pub(super) fn parse_points_named(name: &str, text: &str) -> Result<Vec<DVec3>, PolycdError> {
    // The tokens of a line are counted in place rather than collected into a vector per
    // line (that allocation was half of the parse at 10⁵ points): the same tokens, the same
    // numbers and the same errors.
    let mut pts = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let lineno = i + 1;
        let line = strip_comment(raw);
        let mut toks = [""; 3];
        let mut count = 0usize;
        for t in line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
        {
            if let Some(slot) = toks.get_mut(count) {
                *slot = t;
            }
            count += 1;
        }
        if count == 0 {
            continue;
        }
        if count != 3 {
            return Err(named_err(
                name,
                format!("line {lineno}: expected 3 coordinates 'x y z', found {count} values"),
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
pub(super) fn scan_obj(name: &str, text: &str) -> Result<Mesh, PolycdError> {
    scan_obj_lines(name, text).map(|(pts, faces, _)| (pts, faces))
}

/// Vertices, faces, and the line of each face in the file.
pub(super) type LinedMesh = (Vec<DVec3>, Vec<Vec<u32>>, Vec<usize>);

/// [`scan_obj`], with the line of each face.
pub(super) fn scan_obj_lines(name: &str, text: &str) -> Result<LinedMesh, PolycdError> {
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

pub(super) fn parse_obj_named(name: &str, text: &str) -> Result<Mesh, PolycdError> {
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

pub(super) fn parse_off_named(name: &str, text: &str) -> Result<Mesh, PolycdError> {
    parse_off_lines(name, text).map(|(pts, faces, _)| (pts, faces))
}

/// [`parse_off_named`], with the line of each face.
pub(super) fn parse_off_lines(name: &str, text: &str) -> Result<LinedMesh, PolycdError> {
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
