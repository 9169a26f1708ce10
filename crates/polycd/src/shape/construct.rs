//! Building a [`ConvexPolyhedron`] from vertices and face loops: half-edges and the
//! boundary checks, twins and edges, vertex rings, face planes, convexity, mass properties,
//! then the per-shape tables. Each step is one function; the order of the checks (and so
//! which error a bad input gets first) is that of a single pass over the faces.
//!
//! Cost at 10⁶ vertices (BENCHMARKS.md, "Building large hulls"): the topology steps are
//! O(E log d) (directed edges grouped by origin with a counting sort, no hashing), the
//! geometry O(E), the tables O(V) — see
//! [`ConvexPolyhedron::from_points_with_progress`] for the shares.

use crate::core::error::PolycdError;
use crate::core::math::DVec3;
use crate::core::progress::Phase;
use crate::core::tolerance::{DEPTH_ROUND_DOWN, FACE_MERGE_COS, VALIDATION_REL};
use crate::shape::polyhedron::ConvexPolyhedron;
use crate::shape::tables::{ScanBlocks, StartTable, SupportHints, VertexCones};
use crate::shape::topology::{Edge, Face, HalfEdge};
use std::sync::OnceLock;

/// Shapes with at least this many vertices are built over vertices renumbered in order of
/// first appearance in the faces (see `ConvexPolyhedron::build_local`); below it the arrays
/// fit in the processor's caches and the renumbering would cost more than it saves.
const LOCAL_ORDER_MIN: usize = 1 << 15;

fn bad(m: String) -> PolycdError {
    PolycdError::InvalidBoundary(m)
}

impl ConvexPolyhedron {
    /// The polyhedron with faces `faces` over `vertices` (checked: closed genus-0 2-manifold,
    /// planar convex faces, convex edges; `strict` also refuses non-strictly convex polygons
    /// and coplanar neighbouring faces), with its tables.
    pub(crate) fn build_with_progress(
        vertices: Vec<DVec3>,
        faces: &[Vec<u32>],
        strict: bool,
        progress: &mut dyn FnMut(Phase, u64, u64),
    ) -> Result<Self, PolycdError> {
        progress(Phase::Topology, 0, 1);
        // Large shapes: built over vertices renumbered in the order the faces first name
        // them, then numbered back (`build_local`); any failure is re-run in the given
        // numbering, so the error is exactly the one it gives.
        // The vertex cones are built before the numbering back, over the local numbering
        // (`VertexCones::build_renumbered`: the same table); they and the numbering back are
        // timed as part of the tables.
        let (mut poly, cones) = match Self::build_local(&vertices, faces, strict) {
            Some(Ok((mut local, order))) => {
                progress(Phase::Topology, 1, 1);
                progress(Phase::Tables, 0, 1);
                let cones = VertexCones::build_renumbered(&local.topology(), &order);
                local.number_back(&vertices, &order);
                (local, cones)
            }
            _ => {
                let poly = Self::build_core(vertices, faces, strict, None)?;
                progress(Phase::Topology, 1, 1);
                (poly, None)
            }
        };
        poly.build_tables(cones, progress);
        Ok(poly)
    }

    /// [`build_core`](Self::build_core) over the vertices renumbered in order of first
    /// appearance in `faces` — the numbering that keeps the topology steps' reads close in
    /// memory: a face's corners, their rings and their half-edges get nearby numbers (the
    /// hull of a 10⁶-point cloud given in random order names its vertices at random, and the
    /// topology phase was mostly cache misses) — then numbered back: the same polyhedron,
    /// field for field (every step's result is independent of the numbering but for the
    /// reference point of the volume sum and the second interior point, which are taken
    /// from `vertices` as given). `None` below [`LOCAL_ORDER_MIN`] vertices and when a face
    /// names a vertex out of range or a vertex is on no face (the given numbering then
    /// reports the error). Returned still in the local numbering, with `order` (local vertex
    /// `l` is given vertex `order[l]`): the caller numbers it back
    /// ([`number_back`](Self::number_back)) after building what reads the local numbering
    /// faster (the vertex cones).
    fn build_local(
        vertices: &[DVec3],
        faces: &[Vec<u32>],
        strict: bool,
    ) -> Option<Result<(Self, Vec<u32>), PolycdError>> {
        let nv = vertices.len();
        if nv < LOCAL_ORDER_MIN || faces.len() < 4 {
            return None;
        }
        // order[local] = given; local[given].
        let mut local = vec![u32::MAX; nv];
        let mut order: Vec<u32> = Vec::with_capacity(nv);
        let mut corners: Vec<u32> = Vec::with_capacity(faces.iter().map(Vec::len).sum());
        let mut start: Vec<usize> = Vec::with_capacity(faces.len() + 1);
        start.push(0);
        for f in faces {
            for &v in f {
                let l = local.get_mut(v as usize)?;
                if *l == u32::MAX {
                    *l = order.len() as u32;
                    order.push(v);
                }
                corners.push(*l);
            }
            start.push(corners.len());
        }
        if order.len() != nv {
            return None;
        }
        drop(local);
        let loops: Vec<&[u32]> = start.windows(2).map(|w| &corners[w[0]..w[1]]).collect();
        let reference = vertices.iter().fold(DVec3::ZERO, |s, p| s + *p) / nv as f64;
        let at_local: Vec<DVec3> = order.iter().map(|&v| vertices[v as usize]).collect();
        let poly = Self::build_core(at_local, &loops, strict, Some((reference, vertices[0])));
        drop(loops);
        drop(corners);
        Some(poly.map(|p| (p, order)))
    }

    /// Renumbers a polyhedron built over vertex `l` = given vertex `order[l]` in the given
    /// numbering (positions `vertices`): every vertex-indexed array and every vertex index.
    fn number_back(&mut self, vertices: &[DVec3], order: &[u32]) {
        let nv = order.len();
        for h in &mut self.half_edges {
            h.origin = order[h.origin as usize];
        }
        for e in &mut self.edges {
            e.vertices = e.vertices.map(|v| order[v as usize]);
        }
        for v in &mut self.face_vertex {
            *v = order[*v as usize];
        }
        // Rings: given vertex `order[l]`'s ring is local vertex `l`'s.
        let mut degree = vec![0u32; nv + 1];
        for (l, &v) in order.iter().enumerate() {
            degree[v as usize + 1] = self.adj_start[l + 1] - self.adj_start[l];
        }
        for v in 0..nv {
            degree[v + 1] += degree[v];
        }
        let adj_start = degree;
        let mut adj_vertex = vec![0u32; self.adj_vertex.len()];
        let mut adj_half_edge = vec![0u32; self.adj_half_edge.len()];
        for (l, &v) in order.iter().enumerate() {
            let (from, to) = (self.adj_start[l] as usize, self.adj_start[l + 1] as usize);
            let at = adj_start[v as usize] as usize;
            for (k, i) in (from..to).enumerate() {
                adj_vertex[at + k] = order[self.adj_vertex[i] as usize];
                adj_half_edge[at + k] = self.adj_half_edge[i];
            }
        }
        self.adj_start = adj_start;
        self.adj_vertex = adj_vertex;
        self.adj_half_edge = adj_half_edge;
        self.vertices.clear();
        self.vertices.extend_from_slice(vertices);
    }

    /// The polyhedron without its tables (see [`build_with_progress`](Self::build_with_progress)).
    /// `given`: when the vertices are a renumbering ([`build_local`](Self::build_local)), the
    /// mean of the vertices and vertex 0 in the given numbering.
    fn build_core<F: AsRef<[u32]>>(
        vertices: Vec<DVec3>,
        faces: &[F],
        strict: bool,
        given: Option<(DVec3, DVec3)>,
    ) -> Result<Self, PolycdError> {
        let nv = vertices.len();
        if nv < 4 {
            return Err(PolycdError::TooFewPoints { found: nv });
        }
        if faces.len() < 4 {
            return Err(bad(format!("{} faces given; a polyhedron has at least 4", faces.len())));
        }
        let (mut half_edges, mut face_recs, by_origin) = half_edges_of(faces, nv)?;
        let edges = link_twins(&mut half_edges, by_origin)?;
        let (ne, nf) = (edges.len(), face_recs.len());
        let euler = nv as i64 - ne as i64 + nf as i64;
        if euler != 2 {
            return Err(bad(format!(
                "V − E + F = {nv} − {ne} + {nf} = {euler}, not 2: not a closed genus-0 surface"
            )));
        }
        let (adj_start, adj_vertex, adj_half_edge) = vertex_rings(&half_edges, nv)?;
        let mut face_start = Vec::with_capacity(nf + 1);
        let mut face_vertex = Vec::with_capacity(half_edges.len());
        face_start.push(0u32);
        for f in faces {
            face_vertex.extend_from_slice(f.as_ref());
            face_start.push(face_vertex.len() as u32);
        }
        // Geometry: scale, face planes by Newell's method.
        let magnitude = vertices.iter().fold(0.0f64, |m, p| m.max(p.abs().max_element()));
        let mut lo = vertices[0];
        let mut hi = vertices[0];
        for p in &vertices {
            lo = lo.min(*p);
            hi = hi.max(*p);
        }
        // Normals, areas and volumes are computed on coordinates scaled by `s`, a power of two
        // that brings very large or very small shapes into the safe band (products of
        // coordinates would overflow or underflow); `s = 1` otherwise, and the arithmetic is
        // the same. Scaling by `s` and back by `inv` is exact.
        let s = crate::core::math::pow2_normaliser(magnitude).unwrap_or(1.0);
        let inv = 1.0 / s;
        let extent = ((hi - lo) * s).length() * inv;
        let tol = VALIDATION_REL * magnitude.max(extent);
        face_planes(&vertices, faces, strict, s, tol, &mut face_recs)?;
        convex_edges(&vertices, &edges, &face_recs, &face_start, &face_vertex, strict, tol)?;
        let (reference, vertex0) = given.unwrap_or_else(|| {
            (
                vertices.iter().fold(DVec3::ZERO, |s, p| s + *p) / nv as f64,
                vertices[0],
            )
        });
        let (volume, centroid) = mass_properties(&vertices, faces, &face_recs, s, reference)?;
        let sphere_center = (lo + hi) * 0.5;
        let sphere_radius = vertices
            .iter()
            .fold(0.0f64, |m, p| m.max(((*p - sphere_center) * s).length() * inv));
        let interior = [centroid, centroid + (vertex0 - centroid) * 0.5];
        // The centroid's depth below every face plane; the second point is the midpoint of the
        // centroid and a vertex, so (convexity) at least half as deep. Rounded down a little
        // so the bounds stay lower bounds.
        let centroid_depth = face_recs
            .iter()
            .map(|f| f.offset - f.normal.dot(centroid))
            .fold(f64::INFINITY, f64::min)
            * (1.0 - DEPTH_ROUND_DOWN);
        let interior_depth = [centroid_depth, 0.5 * centroid_depth];
        let poly = ConvexPolyhedron {
            vertices,
            half_edges,
            edges,
            faces: face_recs,
            adj_start,
            adj_vertex,
            adj_half_edge,
            face_start,
            face_vertex,
            source: Vec::new(),
            centroid,
            interior,
            interior_depth,
            volume,
            sphere_center,
            sphere_radius,
            magnitude,
            tol_extent: sphere_radius + sphere_center.abs().element_sum() + magnitude,
            radius: 0.0,
            dimension: 3,
            dk: OnceLock::new(),
            hints: SupportHints::default(),
            scan_blocks: ScanBlocks::default(),
            cones: VertexCones::default(),
            start_table: StartTable::default(),
            vclip: OnceLock::new(),
            parallelepiped: OnceLock::new(),
        };
        Ok(poly)
    }

    /// The per-shape tables read at query time (the DK hierarchy and V-Clip's tables are
    /// built on first use, see their fields); `cones`: the vertex cones when already built.
    fn build_tables(&mut self, cones: Option<VertexCones>, progress: &mut dyn FnMut(Phase, u64, u64)) {
        const TABLES: u64 = 4;
        progress(Phase::Tables, 0, TABLES);
        let poly = &*self;
        let hints = SupportHints::build(
            poly.vertices.len(),
            |d| poly.support_scan(d),
            |d, v| poly.support_climb(d, v),
        );
        self.hints = hints;
        progress(Phase::Tables, 1, TABLES);
        let view = self.topology();
        let scan_blocks = ScanBlocks::build(&view);
        progress(Phase::Tables, 2, TABLES);
        let cones = cones.unwrap_or_else(|| VertexCones::build(&view));
        progress(Phase::Tables, 3, TABLES);
        let start_table = StartTable::build(&view);
        progress(Phase::Tables, TABLES, TABLES);
        self.scan_blocks = scan_blocks;
        self.cones = cones;
        self.start_table = start_table;
    }
}

/// Half-edges in face order (`twin` holds the target vertex until [`link_twins`]) and the
/// face records (planes still zero), with the directed edges grouped by origin
/// ([`directed_edges`]).
///
/// A face-level error (too few corners, a vertex out of range, a repeated vertex) is
/// remembered with the half-edge position where the face loop meets it; a directed edge used
/// twice is found afterwards, and whichever comes first in that order is reported — the
/// error a single pass over the faces, checking each edge as it goes, would report.
fn half_edges_of<F: AsRef<[u32]>>(faces: &[F], nv: usize) -> Result<(Vec<HalfEdge>, Vec<Face>, ByOrigin), PolycdError> {
    let mut half_edges: Vec<HalfEdge> = Vec::with_capacity(faces.iter().map(|f| f.as_ref().len()).sum());
    let mut face_recs: Vec<Face> = Vec::with_capacity(faces.len());
    let mut stamp: Vec<u32> = vec![u32::MAX; nv];
    // (half-edge position, message) of the first face-level error.
    let mut face_error: Option<(usize, String)> = None;
    'faces: for (fi, f) in faces.iter().enumerate() {
        let f = f.as_ref();
        let base = half_edges.len() as u32;
        if f.len() < 3 {
            face_error = Some((
                base as usize,
                format!("face {fi} has {} vertices; at least 3 needed", f.len()),
            ));
            break;
        }
        let n = f.len() as u32;
        // Whether the face repeats a vertex, in O(len) (stamps); only then is the first
        // repeated vertex searched for, quadratically, to name it.
        let mut repeats = false;
        for &v in f {
            if let Some(s) = stamp.get_mut(v as usize) {
                repeats |= *s == fi as u32;
                *s = fi as u32;
            }
        }
        for (k, &v) in f.iter().enumerate() {
            let here = base as usize + k;
            if v as usize >= nv {
                face_error = Some((here, format!("face {fi} refers to vertex {v}, but there are only {nv}")));
                break 'faces;
            }
            let w = f[(k + 1) % f.len()];
            if v == w || (repeats && f.iter().filter(|&&x| x == v).count() > 1) {
                face_error = Some((here, format!("face {fi} repeats vertex {v}")));
                break 'faces;
            }
            half_edges.push(HalfEdge {
                origin: v,
                // The target vertex until the twins are linked.
                twin: w,
                next: base + ((k as u32 + 1) % n),
                prev: base + ((k as u32 + n - 1) % n),
                face: fi as u32,
                edge: u32::MAX,
            });
        }
        face_recs.push(Face {
            normal: DVec3::ZERO,
            offset: 0.0,
            half_edge: base,
            len: n,
        });
    }
    let by_origin = directed_edges(&half_edges, nv);
    let repeated = first_repeated_edge(&by_origin, nv);
    match (repeated, face_error) {
        (Some(r), e) if e.as_ref().is_none_or(|(at, _)| r < *at) => {
            let (v, w) = (half_edges[r].origin, half_edges[r].twin);
            Err(bad(format!(
                "edge {v}→{w} is used twice in the same direction (faces not consistently oriented, or the surface is not a 2-manifold)"
            )))
        }
        (_, Some((_, m))) => Err(bad(m)),
        _ => Ok((half_edges, face_recs, by_origin)),
    }
}

/// `(start, list)`: see [`directed_edges`].
type ByOrigin = (Vec<u32>, Vec<(u32, u32)>);

/// Directed edges grouped by origin (counting sort), each vertex's sorted by (target,
/// half-edge): `(start, list)` with vertex `v`'s at `list[start[v]..start[v + 1]]`. A
/// directed edge used twice shows as equal neighbours, and a twin is found by binary search —
/// O(E log d) with no hashing (a hash map of the 6·10⁶ directed edges of a 10⁶-vertex hull
/// took about a second and 100 MB). Reads `twin` as the target vertex.
fn directed_edges(half_edges: &[HalfEdge], nv: usize) -> ByOrigin {
    let mut out_start = vec![0u32; nv + 1];
    for h in half_edges {
        out_start[h.origin as usize + 1] += 1;
    }
    for v in 0..nv {
        out_start[v + 1] += out_start[v];
    }
    let mut fill = out_start.clone();
    let mut by_origin: Vec<(u32, u32)> = vec![(0, 0); half_edges.len()];
    for (i, h) in half_edges.iter().enumerate() {
        let slot = &mut fill[h.origin as usize];
        by_origin[*slot as usize] = (h.twin, i as u32);
        *slot += 1;
    }
    for v in 0..nv {
        by_origin[out_start[v] as usize..out_start[v + 1] as usize].sort_unstable();
    }
    (out_start, by_origin)
}

/// The first repeated directed edge in face order: the later half-edge of the first two
/// equal entries, minimised over all repeats.
fn first_repeated_edge((out_start, by_origin): &ByOrigin, nv: usize) -> Option<usize> {
    let mut repeated: Option<usize> = None;
    for v in 0..nv {
        let list = &by_origin[out_start[v] as usize..out_start[v + 1] as usize];
        for w in list.windows(2) {
            if w[0].0 == w[1].0 && repeated.is_none_or(|r| (w[1].1 as usize) < r) {
                repeated = Some(w[1].1 as usize);
            }
        }
    }
    repeated
}

/// Links each half-edge to its twin and numbers the undirected edges (in the order of their
/// first half-edge); an edge without its reverse means the surface is not closed.
fn link_twins(half_edges: &mut [HalfEdge], (out_start, by_origin): ByOrigin) -> Result<Vec<Edge>, PolycdError> {
    let find = |a: u32, b: u32| -> Option<u32> {
        let list = &by_origin[out_start[a as usize] as usize..out_start[a as usize + 1] as usize];
        let k = list.partition_point(|&(t, _)| t < b);
        list.get(k).filter(|&&(t, _)| t == b).map(|&(_, h)| h)
    };
    let mut edges: Vec<Edge> = Vec::with_capacity(half_edges.len() / 2);
    for h in 0..half_edges.len() {
        if half_edges[h].edge != u32::MAX {
            continue;
        }
        let a = half_edges[h].origin;
        let b = half_edges[half_edges[h].next as usize].origin;
        let Some(t) = find(b, a) else {
            return Err(bad(format!(
                "edge {a}→{b} has no opposite edge {b}→{a}: the surface is not closed"
            )));
        };
        let e = edges.len() as u32;
        half_edges[h].twin = t;
        half_edges[t as usize].twin = h as u32;
        half_edges[h].edge = e;
        half_edges[t as usize].edge = e;
        edges.push(Edge {
            vertices: [a, b],
            faces: [half_edges[h].face, half_edges[t as usize].face],
            half_edge: h as u32,
        });
    }
    Ok(edges)
}

/// `(start, neighbours, outgoing half-edges)`: see [`vertex_rings`].
type Rings = (Vec<u32>, Vec<u32>, Vec<u32>);

/// Each vertex's neighbours and outgoing half-edges, counter-clockwise seen from outside,
/// starting from its last outgoing half-edge in face order: `(start, vertices, half_edges)`
/// in CSR form. Refuses a vertex on no face, a non-manifold vertex (more than one fan), and a
/// vertex of fewer than three edges.
fn vertex_rings(half_edges: &[HalfEdge], nv: usize) -> Result<Rings, PolycdError> {
    let mut out: Vec<u32> = vec![u32::MAX; nv];
    let mut degree: Vec<u32> = vec![0; nv];
    for (i, h) in half_edges.iter().enumerate() {
        out[h.origin as usize] = i as u32;
        degree[h.origin as usize] += 1;
    }
    if let Some(v) = out.iter().position(|&h| h == u32::MAX) {
        return Err(bad(format!("vertex {v} is on no face")));
    }
    let mut adj_start = Vec::with_capacity(nv + 1);
    let mut adj_vertex = Vec::with_capacity(half_edges.len());
    let mut adj_half_edge = Vec::with_capacity(half_edges.len());
    adj_start.push(0u32);
    for v in 0..nv {
        let first = out[v];
        let mut h = first;
        let mut count = 0u32;
        loop {
            adj_half_edge.push(h);
            adj_vertex.push(half_edges[half_edges[h as usize].next as usize].origin);
            count += 1;
            // Counter-clockwise around v (seen from outside): twin of the previous half-edge.
            h = half_edges[half_edges[h as usize].prev as usize].twin;
            if h == first || count > degree[v] {
                break;
            }
        }
        if count != degree[v] {
            return Err(bad(format!(
                "vertex {v} is not a manifold vertex (its faces form more than one fan)"
            )));
        }
        if count < 3 {
            return Err(bad(format!(
                "vertex {v} has only {count} edges; a corner needs at least 3"
            )));
        }
        adj_start.push(adj_vertex.len() as u32);
    }
    Ok((adj_start, adj_vertex, adj_half_edge))
}

/// Each face's outward unit normal (Newell's method on coordinates scaled by `s`) and plane
/// offset (its highest corner), into `face_recs`; refuses a face of zero area, a face whose
/// corners spread more than `tol` across its plane and, when `strict`, a face that does not
/// turn left at every corner.
fn face_planes<F: AsRef<[u32]>>(
    vertices: &[DVec3],
    faces: &[F],
    strict: bool,
    s: f64,
    tol: f64,
    face_recs: &mut [Face],
) -> Result<(), PolycdError> {
    for (fi, f) in faces.iter().enumerate() {
        let f = f.as_ref();
        let mut n = DVec3::ZERO;
        let c = f.iter().fold(DVec3::ZERO, |s, &v| s + vertices[v as usize]) / f.len() as f64;
        for k in 0..f.len() {
            let a = (vertices[f[k] as usize] - c) * s;
            let b = (vertices[f[(k + 1) % f.len()] as usize] - c) * s;
            n += a.cross(b);
        }
        let len = n.length();
        if !(len > 0.0) || !len.is_finite() {
            return Err(bad(format!("face {fi} has zero area")));
        }
        let n = n / len;
        let offset = f
            .iter()
            .map(|&v| n.dot(vertices[v as usize]))
            .fold(f64::NEG_INFINITY, f64::max);
        let min_off = f
            .iter()
            .map(|&v| n.dot(vertices[v as usize]))
            .fold(f64::INFINITY, f64::min);
        if offset - min_off > tol {
            return Err(bad(format!(
                "face {fi} is not planar: its vertices spread {:e} across its plane (tolerance {tol:e})",
                offset - min_off
            )));
        }
        // Convex polygon: every turn is to the left.
        if strict {
            for k in 0..f.len() {
                let a = vertices[f[k] as usize];
                let b = vertices[f[(k + 1) % f.len()] as usize];
                let d = vertices[f[(k + 2) % f.len()] as usize];
                let turn = ((b - a) * s).cross((d - b) * s).dot(n);
                if !(turn > 0.0) {
                    return Err(bad(format!(
                        "face {fi} is not a strictly convex polygon at vertex {} (or is listed clockwise)",
                        f[(k + 1) % f.len()]
                    )));
                }
            }
        }
        face_recs[fi].normal = n;
        face_recs[fi].offset = offset;
    }
    Ok(())
}

/// Convex edges: the corners of each edge's left face lie at most `tol` above the right
/// face's plane; when `strict`, neighbouring faces must not be coplanar.
fn convex_edges(
    vertices: &[DVec3],
    edges: &[Edge],
    face_recs: &[Face],
    face_start: &[u32],
    face_vertex: &[u32],
    strict: bool,
    tol: f64,
) -> Result<(), PolycdError> {
    for e in edges {
        let [l, r] = e.faces;
        let fr = &face_recs[r as usize];
        let s = face_start[l as usize] as usize;
        let t = face_start[l as usize + 1] as usize;
        for &v in &face_vertex[s..t] {
            let d = fr.normal.dot(vertices[v as usize]) - fr.offset;
            if d > tol {
                return Err(bad(format!(
                    "edge {}–{} is reflex: vertex {v} of face {l} lies {d:e} above face {r}",
                    e.vertices[0], e.vertices[1]
                )));
            }
        }
        if fr.normal.dot(face_recs[l as usize].normal) >= 1.0 - FACE_MERGE_COS && strict {
            return Err(bad(format!(
                "faces {l} and {r} are coplanar across edge {}–{}: merge them into one face",
                e.vertices[0], e.vertices[1]
            )));
        }
    }
    Ok(())
}

/// Volume and centroid by a fan of tetrahedra from an inner reference point (coordinates
/// scaled by `s`); refuses a surface enclosing no positive volume and a centroid not strictly
/// inside every face plane.
fn mass_properties<F: AsRef<[u32]>>(
    vertices: &[DVec3],
    faces: &[F],
    face_recs: &[Face],
    s: f64,
    reference: DVec3,
) -> Result<(f64, DVec3), PolycdError> {
    let inv = 1.0 / s;
    let mut volume = 0.0;
    let mut moment = DVec3::ZERO;
    for f in faces {
        let f = f.as_ref();
        let a = (vertices[f[0] as usize] - reference) * s;
        for k in 1..f.len() - 1 {
            let b = (vertices[f[k] as usize] - reference) * s;
            let c = (vertices[f[k + 1] as usize] - reference) * s;
            let v6 = a.dot(b.cross(c));
            volume += v6;
            moment += (a + b + c) * v6;
        }
    }
    if !(volume > 0.0) {
        return Err(bad(
            "the faces enclose no positive volume: they are listed clockwise (inward normals)".into(),
        ));
    }
    let centroid = reference + moment / (4.0 * volume) * inv;
    // In the input's units (+∞ when the volume itself exceeds the largest f64).
    let volume = volume / 6.0 * inv * inv * inv;
    // The centroid must be strictly inside.
    for (fi, f) in face_recs.iter().enumerate() {
        if !(f.normal.dot(centroid) < f.offset) {
            return Err(bad(format!(
                "the centroid is not inside face {fi}'s plane: the shape is not convex"
            )));
        }
    }
    Ok((volume, centroid))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::hull::convex_hull;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Points on the unit sphere, and the same with two flat caps (polygonal faces), in
    /// random order.
    fn clouds() -> Vec<(&'static str, Vec<DVec3>)> {
        let mut rng = ChaCha8Rng::seed_from_u64(29);
        let mut sphere = Vec::new();
        while sphere.len() < 40_000 {
            let p = DVec3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            );
            let l = p.length();
            if (1e-3..=1.0).contains(&l) {
                sphere.push(p / l);
            }
        }
        // Two caps cut off flat: two polygonal faces of many corners next to the triangles.
        let capped = sphere
            .iter()
            .map(|p| DVec3::new(p.x.min(0.9), p.y, p.z.min(0.9)))
            .collect();
        vec![("sphere", sphere), ("capped sphere", capped)]
    }

    /// The renumbered construction gives the polyhedron of the plain one, field for field
    /// (compared through `Debug`, which prints every float exactly), and at least
    /// `LOCAL_ORDER_MIN` vertices take that path.
    #[test]
    fn local_numbering_builds_the_same_polyhedron() {
        for (name, pts) in clouds() {
            let h = convex_hull(&pts).unwrap();
            assert!(h.vertices.len() >= LOCAL_ORDER_MIN, "{name}: {}", h.vertices.len());
            let plain = ConvexPolyhedron::build_core(h.vertices.clone(), &h.faces, false, None).unwrap();
            let (mut local, order) = ConvexPolyhedron::build_local(&h.vertices, &h.faces, false)
                .expect("large enough to renumber")
                .unwrap();
            // The cones over the local numbering, entry for entry those of the given one.
            let cones = VertexCones::build_renumbered(&local.topology(), &order).unwrap();
            local.number_back(&h.vertices, &order);
            assert_eq!(
                name == "capped sphere",
                plain.faces.iter().any(|f| f.len > 3),
                "{name}: polygonal faces"
            );
            assert_eq!(format!("{plain:?}"), format!("{local:?}"), "{name}");
            let given = VertexCones::build(&plain.topology());
            assert_eq!(format!("{given:?}"), format!("{cones:?}"), "{name}: cones");
            // And the whole construction with its tables (the cones built renumbered) is the
            // plain one with its tables.
            let mut plain = plain;
            plain.build_tables(None, &mut |_, _, _| {});
            let built =
                ConvexPolyhedron::build_with_progress(h.vertices.clone(), &h.faces, false, &mut |_, _, _| {}).unwrap();
            assert_eq!(format!("{plain:?}"), format!("{built:?}"), "{name}: with tables");
        }
    }

    /// A broken surface of many vertices gets the error of the plain construction.
    #[test]
    fn local_numbering_reports_the_plain_errors() {
        let (_, pts) = clouds().remove(0);
        let h = convex_hull(&pts).unwrap();
        let mut open = h.faces.clone();
        open.remove(1000);
        let mut flipped = h.faces.clone();
        flipped[7].reverse();
        let mut far = h.faces.clone();
        far[3][1] = h.vertices.len() as u32 + 5;
        for (name, faces) in [("open", open), ("flipped", flipped), ("out of range", far)] {
            let plain = ConvexPolyhedron::build_core(h.vertices.clone(), &faces, false, None).unwrap_err();
            let built = ConvexPolyhedron::build_with_progress(h.vertices.clone(), &faces, false, &mut |_, _, _| {})
                .unwrap_err();
            assert_eq!(plain.to_string(), built.to_string(), "{name}");
            assert!(!plain.to_string().is_empty());
        }
    }
}
