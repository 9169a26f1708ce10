//! STL: ASCII through `stl_io`, binary read directly (fixed 50-byte records).

use super::{named_err, Mesh};
use crate::core::error::PolycdError;
use crate::core::math::DVec3;

pub(super) fn parse_stl_named(name: &str, bytes: &[u8]) -> Result<Mesh, PolycdError> {
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
