//! Repair of real meshes before they are checked: coincident vertices welded, zero-area
//! triangles and duplicate triangles dropped. Nothing else is changed, and every triangle
//! kept remembers the input face it came from, so answers and errors keep naming the input's
//! own faces and vertices.
//!
//! # Rules (in this order)
//! 1. **Weld.** A vertex at exactly the position of an earlier vertex (bit-equal coordinates,
//!    `-0.0 = 0.0`) is replaced by that earlier one. With [`MeshOptions::weld_tolerance`], a
//!    vertex within [`MESH_WELD_REL`] × the mesh's scale (Euclidean) of an earlier *kept*
//!    vertex is replaced by the first such one (a grid of that cell size finds it; no chains:
//!    every welded vertex is within the tolerance of the vertex that replaces it). The vertex
//!    that stays keeps its input index, so triangles index the input's vertex array.
//! 2. **Zero-area triangles.** After welding and fan triangulation, a triangle that repeats a
//!    vertex or whose three corners are exactly collinear (all three coordinate-plane
//!    projections have a zero exact orientation) is dropped. Triangles of tiny but non-zero
//!    area are kept (and refused later as today when below [`FLATNESS_REL`]).
//! 3. **Duplicates.** A triangle with the same three vertices in the same cyclic order as an
//!    earlier kept one is dropped; a triangle with the same vertices in the *opposite* order
//!    (two faces back to back — an internal wall between two solids glued together, or a
//!    doubly-covered face) is dropped together with that earlier one.
//!
//! Cost: O(n) expected (hashing) for n vertices and triangles.
//!
//! [`FLATNESS_REL`]: crate::core::tolerance::FLATNESS_REL

use crate::core::math::DVec3;
use crate::core::predicates::{orient3d, Orientation};
use crate::core::tolerance::MESH_WELD_REL;
use std::collections::HashMap;

/// How [`TriMesh::with_options`](crate::mesh::TriMesh::with_options) treats a mesh before it
/// checks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct MeshOptions {
    /// Repair the mesh (weld bit-equal vertices, drop zero-area and duplicate triangles) before
    /// checking it. Default `true`; `false` checks the input exactly as given.
    pub repair: bool,
    /// Also weld vertices within [`MESH_WELD_REL`] × the mesh's scale of an earlier vertex
    /// (meshes whose shared corners were written with rounding). Default `false`: only
    /// bit-equal positions are welded. Needs `repair`.
    pub weld_tolerance: bool,
}

impl Default for MeshOptions {
    fn default() -> Self {
        MeshOptions {
            repair: true,
            weld_tolerance: false,
        }
    }
}

/// Builders: the struct is `#[non_exhaustive]`, so callers outside polycd start from
/// [`MeshOptions::default`] and set what they need.
impl MeshOptions {
    /// With [`MeshOptions::repair`] set.
    #[must_use]
    pub fn with_repair(mut self, repair: bool) -> Self {
        self.repair = repair;
        self
    }

    /// With [`MeshOptions::weld_tolerance`] set.
    #[must_use]
    pub fn with_weld_tolerance(mut self, weld_tolerance: bool) -> Self {
        self.weld_tolerance = weld_tolerance;
        self
    }
}

/// What [`TriMesh::new`](crate::mesh::TriMesh::new) repaired ([`TriMesh::repair`](crate::mesh::TriMesh::repair)).
/// Faces are 0-based indices into the input's faces (for a file, the file's faces in file
/// order); a polygon face is named once per triangle of its fan that was dropped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshRepair {
    /// Number of input vertices replaced by an earlier vertex at the same position (or within
    /// the weld tolerance).
    pub welded_vertices: usize,
    /// Largest distance between a welded vertex and the vertex that replaced it (0 for exact
    /// welding).
    pub max_weld_distance: f64,
    /// Faces with a triangle dropped for zero area (a repeated vertex after welding, or three
    /// exactly collinear corners).
    pub dropped_degenerate: Vec<u32>,
    /// Faces with a triangle dropped as a repeat of an earlier triangle (same vertices, same
    /// orientation).
    pub dropped_duplicates: Vec<u32>,
    /// Faces with a triangle dropped together with an earlier triangle on the same vertices in
    /// the opposite orientation (both faces are listed).
    pub dropped_opposite: Vec<u32>,
}

impl MeshRepair {
    /// `true` when nothing was changed.
    pub fn is_empty(&self) -> bool {
        self.welded_vertices == 0
            && self.dropped_degenerate.is_empty()
            && self.dropped_duplicates.is_empty()
            && self.dropped_opposite.is_empty()
    }
}

impl std::fmt::Display for MeshRepair {
    /// One line: what was repaired, with the first few faces (0-based input indices).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_empty() {
            return write!(f, "nothing repaired");
        }
        let mut parts: Vec<String> = Vec::new();
        if self.welded_vertices > 0 {
            let mut s = format!("welded {} coincident vertices", self.welded_vertices);
            if self.max_weld_distance > 0.0 {
                s += &format!(" (farthest {:e} apart)", self.max_weld_distance);
            }
            parts.push(s);
        }
        let list = |what: &str, v: &[u32]| {
            let shown: Vec<String> = v.iter().take(5).map(u32::to_string).collect();
            let more = if v.len() > 5 { ", …" } else { "" };
            format!("dropped {} {what} (faces {}{more}, 0-based)", v.len(), shown.join(", "))
        };
        if !self.dropped_degenerate.is_empty() {
            parts.push(list("zero-area triangles", &self.dropped_degenerate));
        }
        if !self.dropped_duplicates.is_empty() {
            parts.push(list("duplicate triangles", &self.dropped_duplicates));
        }
        if !self.dropped_opposite.is_empty() {
            parts.push(list("back-to-back triangles", &self.dropped_opposite));
        }
        write!(f, "{}", parts.join("; "))
    }
}

/// The representative of each vertex (its own index, or the earlier vertex it is welded to),
/// and the number of vertices welded and the largest weld distance.
pub(crate) fn weld(vertices: &[DVec3], tolerance: bool, scale: f64) -> (Vec<u32>, usize, f64) {
    let mut rep: Vec<u32> = (0..vertices.len() as u32).collect();
    let mut welded = 0;
    let mut farthest = 0.0f64;
    let key = |p: DVec3| [p.x + 0.0, p.y + 0.0, p.z + 0.0].map(f64::to_bits);
    let mut exact: HashMap<[u64; 3], u32> = HashMap::with_capacity(vertices.len());
    for (i, &p) in vertices.iter().enumerate() {
        match exact.entry(key(p)) {
            std::collections::hash_map::Entry::Occupied(e) => {
                rep[i] = *e.get();
                welded += 1;
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(i as u32);
            }
        }
    }
    let tol = MESH_WELD_REL * scale;
    if tolerance && tol > 0.0 && tol.is_finite() {
        // Grid of cell `tol`: a kept vertex within `tol` of p lies in one of the 27 cells
        // around p's cell. Cell indices are clamped into i64 (coordinates ≤ MAX_COORDINATE
        // and tol ≥ 1e-12 × scale keep them far inside; clamping only merges far cells).
        let cell = |p: DVec3| (p / tol).floor().to_array().map(|c| c.clamp(-9e18, 9e18) as i64);
        let mut grid: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
        for i in 0..vertices.len() {
            if rep[i] != i as u32 {
                continue;
            }
            let p = vertices[i];
            let c = cell(p);
            let mut found = None;
            'search: for dx in -1..=1i64 {
                for dy in -1..=1i64 {
                    for dz in -1..=1i64 {
                        let k = [
                            c[0].saturating_add(dx),
                            c[1].saturating_add(dy),
                            c[2].saturating_add(dz),
                        ];
                        if let Some(list) = grid.get(&k) {
                            for &j in list {
                                let d = (vertices[j as usize] - p).length();
                                if d <= tol && found.is_none_or(|(f, _)| j < f) {
                                    found = Some((j, d));
                                }
                            }
                        }
                        if dx == 1 && dy == 1 && dz == 1 {
                            break 'search;
                        }
                    }
                }
            }
            match found {
                Some((j, d)) => {
                    rep[i] = j;
                    welded += 1;
                    farthest = farthest.max(d);
                }
                None => grid.entry(c).or_default().push(i as u32),
            }
        }
        // Exact duplicates of a vertex welded by tolerance follow it.
        for i in 0..rep.len() {
            let r = rep[i] as usize;
            if rep[r] != r as u32 {
                rep[i] = rep[r];
            }
        }
    }
    (rep, welded, farthest)
}

/// `true` when the three points are exactly collinear (or coincide): every coordinate-plane
/// projection has zero orientation (orient3d with the third coordinates zeroed and a fourth
/// point above is exactly the projection's orientation).
pub(crate) fn collinear(a: DVec3, b: DVec3, c: DVec3) -> bool {
    let proj = |p: DVec3, axis: usize| {
        let mut q = p;
        q[axis] = 0.0;
        q
    };
    (0..3).all(|axis| {
        let mut up = DVec3::ZERO;
        up[axis] = 1.0;
        orient3d(proj(a, axis), proj(b, axis), proj(c, axis), up) == Orientation::On
    })
}

/// Drops zero-area and duplicate triangles (rules 2 and 3), filling the report's lists.
/// `tri_face` is each triangle's input face; both vectors are filtered in place.
pub(crate) fn drop_bad_triangles(
    vertices: &[DVec3],
    triangles: &mut Vec<[u32; 3]>,
    tri_face: &mut Vec<u32>,
    report: &mut MeshRepair,
) {
    let n = triangles.len();
    let mut keep = vec![true; n];
    for (i, t) in triangles.iter().enumerate() {
        let [a, b, c] = t.map(|v| vertices[v as usize]);
        if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] || collinear(a, b, c) {
            keep[i] = false;
            report.dropped_degenerate.push(tri_face[i]);
        }
    }
    // Canonical rotation: smallest vertex first, cyclic order kept.
    let canon = |t: [u32; 3]| {
        let k = (0..3).min_by_key(|&k| t[k]).unwrap_or(0);
        [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]
    };
    let mut seen: HashMap<[u32; 3], u32> = HashMap::with_capacity(n);
    for i in 0..n {
        if !keep[i] {
            continue;
        }
        let t = triangles[i];
        let c = canon(t);
        if seen.contains_key(&c) {
            keep[i] = false;
            report.dropped_duplicates.push(tri_face[i]);
            continue;
        }
        let r = canon([t[0], t[2], t[1]]);
        if let Some(j) = seen.remove(&r) {
            keep[i] = false;
            keep[j as usize] = false;
            report.dropped_opposite.push(tri_face[j as usize]);
            report.dropped_opposite.push(tri_face[i]);
            continue;
        }
        seen.insert(c, i as u32);
    }
    let mut k = 0;
    for i in 0..n {
        if keep[i] {
            triangles[k] = triangles[i];
            tri_face[k] = tri_face[i];
            k += 1;
        }
    }
    triangles.truncate(k);
    tri_face.truncate(k);
}
