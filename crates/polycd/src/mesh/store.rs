//! Saving a mesh with its decomposition and hull tree, and reading it back, so a model is
//! decomposed once ([`TriMesh::save`], [`TriMesh::load`]).
//!
//! # Format (version 1, little-endian)
//! `b"PCDMESH\0"`, `u32` version, then
//! - vertices: `u64` count, `3 × f64` each;
//! - triangles (repaired and oriented): `u64` count, `3 × u32` corners and `u32` input face each;
//! - repair report: `u64` welded vertices, `f64` largest weld distance, three face lists
//!   (`u64` length, `u32` each): zero-area, duplicates, back-to-back;
//! - components: `u64` count, one `u8` each (1 when re-oriented); `f64` volume and `3 × f64`
//!   centroid (the build's own bits; checked against the recomputed ones);
//! - pieces: `u64` count, each a `u64` length and its triangles (`u32`);
//! - tree nodes: `u64` count, each `u32` left child, `u32` right child (`u32::MAX` for a
//!   leaf), `u32` piece, `u64` point count and `3 × f64` per point; then the `u32` root;
//! - an FNV-1a 64-bit checksum of every byte before it.
//!
//! # Checks on load
//! The checksum and version first; every count is checked against the bytes left before
//! anything is allocated; then the mesh goes through [`TriMesh::new`]'s checks again (closed,
//! oriented, volumes, nesting: O(n)); the pieces must cover every triangle exactly once; the
//! tree must have the pieces as its first nodes in order, every inner node's children before
//! it, every node but the root the child of exactly one node, and every node at least four
//! finite points. The hulls themselves are not rebuilt (the checksum vouches for them): they
//! are built on first use, as after [`TriMesh::new`]. Any failure is a typed
//! [`PolycdError::File`] naming the file and what is wrong.

use super::repair::MeshRepair;
use super::tree::{HullNode, NONE};
use super::trimesh::{Names, Stored, TriMesh};
use crate::core::error::PolycdError;
use crate::core::math::DVec3;

const MAGIC: &[u8; 8] = b"PCDMESH\0";
/// The format version written; files of other versions are refused.
pub const DECOMPOSITION_VERSION: u32 = 1;

impl TriMesh {
    /// The mesh, its repair report, its decomposition and its hull tree as bytes (format in
    /// the module docs). [`TriMesh::from_bytes`] reads them back.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Vec::with_capacity(64 + self.vertices.len() * 24 + self.triangles.len() * 20);
        w.extend_from_slice(MAGIC);
        put_u32(&mut w, DECOMPOSITION_VERSION);
        put_u64(&mut w, self.vertices.len() as u64);
        for p in &self.vertices {
            put_vec(&mut w, *p);
        }
        put_u64(&mut w, self.triangles.len() as u64);
        for (t, &f) in self.triangles.iter().zip(&self.tri_face) {
            for &c in t {
                put_u32(&mut w, c);
            }
            put_u32(&mut w, f);
        }
        put_u64(&mut w, self.repair.welded_vertices as u64);
        w.extend_from_slice(&self.repair.max_weld_distance.to_le_bytes());
        for list in [
            &self.repair.dropped_degenerate,
            &self.repair.dropped_duplicates,
            &self.repair.dropped_opposite,
        ] {
            put_list(&mut w, list);
        }
        put_u64(&mut w, self.components.len() as u64);
        for c in &self.components {
            w.push(u8::from(c.reoriented));
        }
        w.extend_from_slice(&self.volume.to_le_bytes());
        put_vec(&mut w, self.centroid);
        put_u64(&mut w, self.pieces.len() as u64);
        for p in &self.pieces {
            put_list(&mut w, p);
        }
        put_u64(&mut w, self.nodes.len() as u64);
        for n in &self.nodes {
            let (l, r) = n.children.unwrap_or((NONE, NONE));
            put_u32(&mut w, l);
            put_u32(&mut w, r);
            put_u32(&mut w, n.piece);
            put_u64(&mut w, n.points().len() as u64);
            for p in n.points() {
                put_vec(&mut w, *p);
            }
        }
        put_u32(&mut w, self.root);
        let sum = fnv1a(&w);
        put_u64(&mut w, sum);
        w
    }

    /// Writes [`to_bytes`](Self::to_bytes) to a file.
    pub fn save(&self, path: impl AsRef<std::path::Path>) -> Result<(), PolycdError> {
        let path = path.as_ref();
        std::fs::write(path, self.to_bytes()).map_err(|e| PolycdError::File {
            path: path.display().to_string(),
            message: format!("cannot write the decomposition: {e}"),
        })
    }

    /// Reads a file written by [`save`](Self::save) (checks in the module docs).
    pub fn load(path: impl AsRef<std::path::Path>) -> Result<TriMesh, PolycdError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| PolycdError::File {
            path: name.clone(),
            message: format!("cannot read the file: {e}"),
        })?;
        TriMesh::from_bytes(&bytes, &name)
    }

    /// Reads bytes written by [`to_bytes`](Self::to_bytes); `name` is used in errors.
    pub fn from_bytes(bytes: &[u8], name: &str) -> Result<TriMesh, PolycdError> {
        let err = |m: String| PolycdError::File {
            path: name.to_string(),
            message: format!("not a valid polycd decomposition: {m}"),
        };
        if bytes.len() < MAGIC.len() + 4 + 8 || &bytes[..MAGIC.len()] != MAGIC {
            return Err(err("it does not start with the PCDMESH header".into()));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        let version = u32::from_le_bytes([body[8], body[9], body[10], body[11]]);
        if version != DECOMPOSITION_VERSION {
            return Err(err(format!(
                "format version {version}; this build reads version {DECOMPOSITION_VERSION}"
            )));
        }
        let mut sum_bytes = [0u8; 8];
        sum_bytes.copy_from_slice(sum);
        if u64::from_le_bytes(sum_bytes) != fnv1a(body) {
            return Err(err("checksum mismatch (the file is corrupt or truncated)".into()));
        }
        let mut r = Reader {
            b: body,
            at: MAGIC.len() + 4,
        };
        let nv = r.count(24).map_err(&err)?;
        let mut vertices = Vec::with_capacity(nv);
        for _ in 0..nv {
            vertices.push(r.vec().map_err(&err)?);
        }
        let nt = r.count(16).map_err(&err)?;
        let mut triangles = Vec::with_capacity(nt);
        let mut tri_face = Vec::with_capacity(nt);
        for _ in 0..nt {
            let t = [r.u32().map_err(&err)?, r.u32().map_err(&err)?, r.u32().map_err(&err)?];
            if t.iter().any(|&c| c as usize >= nv) {
                return Err(err(format!(
                    "a triangle names vertex {} of {nv}",
                    t.iter().max().copied().unwrap_or(0)
                )));
            }
            triangles.push(t);
            tri_face.push(r.u32().map_err(&err)?);
        }
        let mut repair = MeshRepair {
            welded_vertices: r.u64().map_err(&err)? as usize,
            max_weld_distance: r.f64().map_err(&err)?,
            ..MeshRepair::default()
        };
        repair.dropped_degenerate = r.list().map_err(&err)?;
        repair.dropped_duplicates = r.list().map_err(&err)?;
        repair.dropped_opposite = r.list().map_err(&err)?;
        let nc = r.count(1).map_err(&err)?;
        let mut reoriented = Vec::with_capacity(nc);
        for _ in 0..nc {
            reoriented.push(r.u8().map_err(&err)? != 0);
        }
        let volume = r.f64().map_err(&err)?;
        let centroid = r.vec().map_err(&err)?;
        let np = r.count(8).map_err(&err)?;
        let mut pieces = Vec::with_capacity(np);
        let mut seen = vec![false; nt];
        for i in 0..np {
            let p = r.list().map_err(&err)?;
            if p.is_empty() {
                return Err(err(format!("piece {i} is empty")));
            }
            for &t in &p {
                match seen.get_mut(t as usize) {
                    Some(s) if !*s => *s = true,
                    Some(_) => return Err(err(format!("triangle {t} is in two pieces"))),
                    None => return Err(err(format!("piece {i} names triangle {t} of {nt}"))),
                }
            }
            pieces.push(p);
        }
        if let Some(t) = seen.iter().position(|s| !s) {
            return Err(err(format!("triangle {t} is in no piece")));
        }
        let nn = r.count(20).map_err(&err)?;
        if np == 0 || nn != 2 * np - 1 {
            return Err(err(format!(
                "{nn} tree nodes for {np} pieces (expected {})",
                2 * np.max(1) - 1
            )));
        }
        let mut nodes = Vec::with_capacity(nn);
        let mut parent_count = vec![0u32; nn];
        for i in 0..nn {
            let (l, rr, piece) = (r.u32().map_err(&err)?, r.u32().map_err(&err)?, r.u32().map_err(&err)?);
            let k = r.count(24).map_err(&err)?;
            if k < 4 {
                return Err(err(format!("tree node {i} has {k} points; a solid hull needs 4")));
            }
            let mut pts = Vec::with_capacity(k);
            for _ in 0..k {
                let p = r.vec().map_err(&err)?;
                if !p.is_finite() {
                    return Err(err(format!("tree node {i} has a non-finite point")));
                }
                pts.push(p);
            }
            let children = if i < np {
                if l != NONE || rr != NONE || piece != i as u32 {
                    return Err(err(format!("tree node {i} should be the leaf of piece {i}")));
                }
                None
            } else {
                if piece != NONE || l as usize >= i || rr as usize >= i || l == rr {
                    return Err(err(format!("inner tree node {i} has bad children ({l}, {rr})")));
                }
                parent_count[l as usize] += 1;
                parent_count[rr as usize] += 1;
                Some((l, rr))
            };
            nodes.push(HullNode::new(pts, children, piece));
        }
        let root = r.u32().map_err(&err)?;
        if root as usize != nn - 1 {
            return Err(err(format!("the root is node {root}, not the last node {}", nn - 1)));
        }
        if let Some(i) = (0..nn).find(|&i| parent_count[i] != u32::from(i != nn - 1)) {
            return Err(err(format!("tree node {i} is the child of {} nodes", parent_count[i])));
        }
        if r.at != body.len() {
            return Err(err(format!("{} bytes left over after the tree", body.len() - r.at)));
        }
        let stored = Stored {
            pieces,
            nodes,
            root,
            reoriented,
        };
        let mut mesh = TriMesh::finish(&vertices, triangles, tri_face, repair, &Names::INPUT, Some(stored))
            .map_err(|e| err(format!("the stored mesh fails its checks: {e}")))?;
        // The stored volume and centroid are the build's own bits (a re-oriented component's
        // sums were taken before its triangles were reversed, so recomputing them from the
        // stored triangles may differ in the last bits); they must agree with the recomputed
        // ones to rounding.
        let agree = (volume - mesh.volume).abs() <= 1e-9 * mesh.volume.abs()
            && (centroid - mesh.centroid).length() <= 1e-9 * mesh.scale;
        if !agree {
            return Err(err(format!(
                "the stored volume {volume:e} or centroid {centroid} does not match the mesh ({:e}, {})",
                mesh.volume, mesh.centroid
            )));
        }
        (mesh.volume, mesh.centroid) = (volume, centroid);
        Ok(mesh)
    }
}

fn put_u32(w: &mut Vec<u8>, x: u32) {
    w.extend_from_slice(&x.to_le_bytes());
}
fn put_u64(w: &mut Vec<u8>, x: u64) {
    w.extend_from_slice(&x.to_le_bytes());
}
fn put_vec(w: &mut Vec<u8>, p: DVec3) {
    for c in p.to_array() {
        w.extend_from_slice(&c.to_le_bytes());
    }
}
fn put_list(w: &mut Vec<u8>, v: &[u32]) {
    put_u64(w, v.len() as u64);
    for &x in v {
        put_u32(w, x);
    }
}

/// FNV-1a, 64 bits (a checksum against corruption, not a cryptographic hash).
fn fnv1a(b: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &x in b {
        h ^= u64::from(x);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// A bounds-checked little-endian reader.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.b.len());
        match end {
            Some(e) => {
                let s = &self.b[self.at..e];
                self.at = e;
                Ok(s)
            }
            None => Err(format!("truncated at byte {}", self.at)),
        }
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, String> {
        let s = self.take(4)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn u64(&mut self) -> Result<u64, String> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(a))
    }
    fn f64(&mut self) -> Result<f64, String> {
        Ok(f64::from_bits(self.u64()?))
    }
    fn vec(&mut self) -> Result<DVec3, String> {
        Ok(DVec3::new(self.f64()?, self.f64()?, self.f64()?))
    }
    /// A count of items of at least `min_size` bytes each, checked against the bytes left.
    fn count(&mut self, min_size: usize) -> Result<usize, String> {
        let n = self.u64()?;
        let left = (self.b.len() - self.at) as u64;
        if n.saturating_mul(min_size as u64) > left {
            return Err(format!("a count of {n} at byte {} exceeds the file", self.at - 8));
        }
        Ok(n as usize)
    }
    fn list(&mut self) -> Result<Vec<u32>, String> {
        let n = self.count(4)?;
        (0..n).map(|_| self.u32()).collect()
    }
}
