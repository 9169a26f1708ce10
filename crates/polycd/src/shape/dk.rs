//! The Dobkin–Kirkpatrick hierarchy for O(log n) support queries (HS-jump paper §8.1;
//! Dobkin & Kirkpatrick, "Determining the separation of preprocessed polyhedra", 1990).
//!
//! Outline:
//! 1. Level 0 is the polyhedron, its polygonal faces triangulated by a fan from their first
//!    corner (a simplicial polyhedron is unchanged). Level i+1 is the convex hull of level i's
//!    vertices minus an independent set `R_i` of vertices of degree ≤ [`MAX_REMOVED_DEGREE`],
//!    chosen greedily in order of increasing residual degree (the number of still-free
//!    neighbours: a vertex that blocks few others goes first, so the set is large). Every
//!    level is kept as a rotation system (each vertex's neighbours counter-clockwise, two
//!    consecutive ones spanning a triangle), and level i+1 is built from level i by filling
//!    each removed vertex's hole (its link, ≤ 11 corners) by ear clipping under exact
//!    `orient3d` tests (`fill_hole`), the survivors' rings patched in place — O(n) per
//!    level, O(n) in all, no hull.
//! 2. The construction stops when a level has at most [`TOP_SIZE`] vertices, when fewer than
//!    1/[`MIN_REMOVED_FRACTION`] of the vertices can be removed, or when a hole cannot be
//!    filled convexly (no valid ear, a repeated edge, or a new edge that is not locally
//!    convex: only on degenerate input; the levels so far are kept).
//! 3. Per level we store, for each surviving vertex `v`, its index on the level below and the
//!    positions and indices of its *removed* neighbours on the level below (contiguous), and
//!    the top level's positions (contiguous, scanned linearly).
//! 4. A query scans the top level, then descends: the maximiser on level i is the maximiser
//!    `v` of level i+1 or the best of `v`'s removed neighbours on level i.
//!
//! Invariants: every vertex of level i+1 is a vertex of level i; no two removed vertices of a
//! level are adjacent, so all neighbours of a removed vertex survive to the next level.
//!
//! Correctness of the descent (step 4): let `v` maximise `d·x` on level i+1. If `v` is not a
//! maximiser on level i, it has a neighbour `w` on level i with `d·w > d·v` (a local maximum of a
//! linear function on a polytope is global); `w` is not on level i+1 (it would beat `v`
//! there), so `w` was removed. Every neighbour of a removed vertex survives, hence has value
//! ≤ `d·v` < `d·w`: `w` — and so the best removed neighbour of `v` — is a local, hence global,
//! maximum on level i. Ties: a candidate replaces `v` only when strictly better.
//!
//! Termination: the build removes at least one vertex per level (so at most n levels; in
//! practice each level keeps ≤ ~70 %, giving O(log n) levels, checked by a test); the query does
//! one bounded pass per level.
//!
//! Departures from the paper: the descent examines only the removed neighbours of the current
//! maximiser (a plain list rather than the paper's cone test, the same set of candidates with
//! no extra geometry); polygonal faces are triangulated first, so flat regions carry diagonals
//! (harmless: a local maximum over a supergraph of the edge graph is still a global one).
//!
//! Cost (figures: BENCHMARKS.md "Building large hulls"): the levels are built by removing
//! vertices from the level below and patching the holes, not by re-running the hull on each
//! level's survivors. The hole filling (a few exact `orient3d` per removed vertex) is a small
//! part; the greedy and the ring patching visit every vertex and its neighbours, so shapes of
//! at least `SPATIAL_ORDER_MIN` (2¹⁵) vertices are first renumbered in Morton order of their
//! positions (`spatial_order`): in input order, a 10⁶-point cloud given at random made
//! nearly every such read a cache miss. The greedy visits vertices in index order, so the
//! level sizes depend on the numbering (and, above level 1, on the rotation order of the
//! patched rings); hierarchical supports still return a maximiser (ties may pick another of
//! the tied vertices).

use crate::core::math::DVec3;
use crate::core::predicates::{orient3d, Orientation};
use crate::shape::topology::TopologyView;

/// Vertices of at most this degree may be removed from a level. The theory needs ≤ 11 for a
/// guaranteed fraction; ordering by degree makes the bound rarely matter in practice.
pub const MAX_REMOVED_DEGREE: usize = 11;
/// A level with at most this many vertices is the top (scanned) level: a contiguous scan of
/// a few dozen points costs about as much as one or two scattered descent steps.
pub const TOP_SIZE: usize = 48;
/// A level is built only if at least 1/this of the vertices can be removed.
pub const MIN_REMOVED_FRACTION: usize = 16;

/// A removed neighbour on the level below: its position and local index there.
#[derive(Clone, Copy, Debug, Default)]
struct Candidate {
    pos: DVec3,
    id: u32,
}

#[derive(Clone, Debug, Default)]
struct Level {
    /// Per local vertex `v`: `[index on the level below, start of v's candidates]`, plus one
    /// sentinel entry whose second field ends the last vertex's candidates.
    meta: Vec<[u32; 2]>,
    /// Removed neighbours (on the level below) of each local vertex, grouped by vertex.
    cands: Vec<Candidate>,
}

/// Nested polytopes for hierarchical support queries, built once per shape.
#[derive(Clone, Debug, Default)]
pub struct DkHierarchy {
    /// Levels 1.. (level 0 is the polyhedron itself).
    levels: Vec<Level>,
    /// Positions of the top level's vertices (local index order).
    top: Vec<DVec3>,
    /// The polyhedron's vertex count (level 0).
    base: usize,
}

impl DkHierarchy {
    pub(crate) fn empty() -> Self {
        Self {
            levels: Vec::new(),
            top: Vec::new(),
            base: 0,
        }
    }

    /// Number of levels including the polyhedron itself.
    pub fn depth(&self) -> usize {
        self.levels.len() + 1
    }

    /// Vertex counts per level, bottom first.
    pub fn level_sizes(&self) -> Vec<usize> {
        let mut v = vec![self.base];
        v.extend(self.levels.iter().map(|l| l.meta.len().saturating_sub(1)));
        v
    }

    pub(crate) fn build(poly: &TopologyView) -> Self {
        Self::build_observed(poly, &mut |_, _, _| {})
    }

    /// [`build`](Self::build), showing `observe` each level: its positions, its rotation
    /// system and (above level 0) its links to the level below. The tests' oracle reads it.
    fn build_observed(poly: &TopologyView, observe: &mut Observer) -> Self {
        let mut levels: Vec<Level> = Vec::new();
        // Current level: positions and rotation system in local indices. Large shapes are
        // renumbered once in a spatial order (`spatial_order`): every level keeps its
        // survivors in index order, so neighbours stay close in memory on every level; the
        // first level's links are mapped back to vertex ids at the end.
        let order = spatial_order(poly.vertices());
        let mut pos: Vec<DVec3> = match &order {
            Some(o) => o.iter().map(|&v| poly.vertex(v)).collect(),
            None => poly.vertices().to_vec(),
        };
        let mut rot = Rotation::of_polyhedron(poly);
        let mut fixed = corners_of_bent_faces(poly);
        if let Some(o) = &order {
            rot = rot.renumbered(o);
            if !fixed.is_empty() {
                fixed = o.iter().map(|&v| fixed[v as usize]).collect();
            }
        }
        let mut scratch = Scratch::default();
        observe(&pos, &rot, None);
        // Each level removes at least one vertex, so at most n levels.
        while pos.len() > TOP_SIZE {
            let n = pos.len();
            let count = independent_set(&rot, &fixed, &mut scratch);
            if count == 0 || count * MIN_REMOVED_FRACTION < n {
                break;
            }
            let Some(next) = next_level(&pos, &rot, &mut scratch) else {
                // A hole without a valid ear, or a new edge that is not convex: possible only
                // on a degenerate level; the levels so far are valid, so stop here.
                break;
            };
            let state = &scratch.state;
            // Candidates: removed neighbours on the current level, in rotation order.
            let m = next.pos.len();
            let mut meta: Vec<[u32; 2]> = Vec::with_capacity(m + 1);
            let mut cands: Vec<Candidate> = Vec::new();
            for d in (0..n as u32).filter(|&v| state[v as usize] != REMOVED) {
                meta.push([d, cands.len() as u32]);
                for &w in rot.around(d) {
                    if state[w as usize] == REMOVED {
                        cands.push(Candidate {
                            pos: pos[w as usize],
                            id: w,
                        });
                    }
                }
            }
            meta.push([u32::MAX, cands.len() as u32]);
            levels.push(Level { meta, cands });
            if !fixed.is_empty() {
                fixed = (0..n).filter(|&v| state[v] != REMOVED).map(|v| fixed[v]).collect();
            }
            pos = next.pos;
            rot = next.rot;
            observe(&pos, &rot, levels.last());
        }
        if levels.is_empty() {
            pos.clear();
        }
        // The first level's links name vertices of the polyhedron: back to vertex ids.
        if let (Some(o), Some(first)) = (&order, levels.first_mut()) {
            let last = first.meta.len() - 1;
            for m in &mut first.meta[..last] {
                m[0] = o[m[0] as usize];
            }
            for c in &mut first.cands {
                c.id = o[c.id as usize];
            }
        }
        Self {
            levels,
            top: pos,
            base: poly.vertices().len(),
        }
    }

    /// Support vertex (original id) along `dir`; `None` when the hierarchy has no level
    /// above the polyhedron (the caller scans).
    pub(crate) fn support(&self, dir: DVec3) -> Option<u32> {
        if self.levels.is_empty() {
            return None;
        }
        let (mut best, mut v) = self.top_max(dir);
        for level in self.levels.iter().rev() {
            level.descend(dir, &mut best, &mut v);
        }
        Some(v as u32)
    }

    /// Support vertices of two shapes at once: `self` along `dir` and `other` along
    /// `other_dir` (`None` when either has no level above its polyhedron). Each descent is a chain of dependent
    /// loads; interleaving the two independent chains lets the processor overlap their
    /// latencies. The same answers as two [`support`](Self::support) calls.
    pub(crate) fn support_pair(&self, dir: DVec3, other: &DkHierarchy, other_dir: DVec3) -> Option<(u32, u32)> {
        if self.levels.is_empty() || other.levels.is_empty() {
            return None;
        }
        let (mut ba, mut va) = self.top_max(dir);
        let (mut bb, mut vb) = other.top_max(other_dir);
        let mut la = self.levels.iter().rev();
        let mut lb = other.levels.iter().rev();
        loop {
            match (la.next(), lb.next()) {
                (Some(x), Some(y)) => {
                    x.descend(dir, &mut ba, &mut va);
                    y.descend(other_dir, &mut bb, &mut vb);
                }
                (Some(x), None) => {
                    x.descend(dir, &mut ba, &mut va);
                    for x in la.by_ref() {
                        x.descend(dir, &mut ba, &mut va);
                    }
                }
                (None, Some(y)) => {
                    y.descend(other_dir, &mut bb, &mut vb);
                    for y in lb.by_ref() {
                        y.descend(other_dir, &mut bb, &mut vb);
                    }
                }
                (None, None) => break,
            }
        }
        Some((va as u32, vb as u32))
    }

    /// The top level's maximiser along `dir` (its value and local index): the first index
    /// attaining the maximum. Four interleaved maxima (position i feeds chain i mod 4)
    /// shorten the compare chain; among equal chain maxima the smallest index is the first.
    #[inline(always)]
    fn top_max(&self, dir: DVec3) -> (f64, usize) {
        let mut chains = [(f64::NEG_INFINITY, 0usize); 4];
        let mut quads = self.top.chunks_exact(4);
        let mut i = 0usize;
        for q in &mut quads {
            for (k, b) in chains.iter_mut().enumerate() {
                let d = dir.dot(q[k]);
                let better = d > b.0;
                b.0 = if better { d } else { b.0 };
                b.1 = if better { i + k } else { b.1 };
            }
            i += 4;
        }
        for (k, p) in quads.remainder().iter().enumerate() {
            let d = dir.dot(*p);
            if d > chains[k].0 {
                chains[k] = (d, i + k);
            }
        }
        let mut pick = chains[0];
        for c in &chains[1..] {
            if c.0 > pick.0 || (c.0 == pick.0 && c.1 < pick.1) {
                pick = *c;
            }
        }
        pick
    }
}

impl Level {
    /// One descent step: `v` (a local index on this level, value `best`) becomes the
    /// maximiser on the level below. Selects rather than branches: which candidate wins is
    /// data-dependent and mispredicts often.
    #[inline]
    fn descend(&self, dir: DVec3, best: &mut f64, v: &mut usize) {
        let [below, start] = self.meta[*v];
        let end = self.meta[*v + 1][1];
        let mut next = below;
        for c in &self.cands[start as usize..end as usize] {
            let d = dir.dot(c.pos);
            let better = d > *best;
            *best = if better { d } else { *best };
            next = if better { c.id } else { next };
        }
        *v = next as usize;
    }
}

/// What [`DkHierarchy::build_observed`] shows each level.
type Observer<'a> = dyn FnMut(&[DVec3], &Rotation, Option<&Level>) + 'a;

/// Vertex states of the greedy independent set.
const FREE: u8 = 0;
const BLOCKED: u8 = 1;
const REMOVED: u8 = 2;

/// A level's triangulated boundary as a rotation system: the neighbours of `v`,
/// `adj[start[v]..start[v + 1]]`, counter-clockwise seen from outside, with every two
/// consecutive ones `a, b` (cyclically) forming the triangle `(v, a, b)`, counter-clockwise.
#[derive(Clone, Debug, Default)]
struct Rotation {
    start: Vec<u32>,
    adj: Vec<u32>,
}

impl Rotation {
    #[inline]
    fn around(&self, v: u32) -> &[u32] {
        &self.adj[self.start[v as usize] as usize..self.start[v as usize + 1] as usize]
    }

    #[inline]
    fn degree(&self, v: usize) -> usize {
        (self.start[v + 1] - self.start[v]) as usize
    }

    /// Level 0: the polyhedron's neighbour rings (counter-clockwise, seen from outside), with
    /// each polygonal face triangulated by a fan from its first corner — a triangle's
    /// vertices keep their rings unchanged, so a simplicial polyhedron's rotation is its
    /// adjacency. O(E).
    fn of_polyhedron(poly: &TopologyView) -> Self {
        if poly.faces().iter().all(|f| f.len == 3) {
            // Simplicial: the rings are the adjacency (one sequential copy, no face reads).
            return Self {
                start: poly.adj_start.to_vec(),
                adj: poly.adj_vertex.to_vec(),
            };
        }
        let mut start = Vec::with_capacity(poly.vertices().len() + 1);
        let mut adj = Vec::with_capacity(poly.adj_vertex.len());
        start.push(0u32);
        let he = poly.half_edges();
        // Only corners of polygonal faces gain fan diagonals; every other vertex keeps its
        // ring (copied without reading its faces: a 10⁶-vertex hull with one quadrilateral
        // read 6·10⁶ scattered half-edges and faces here).
        let mut on_polygon = vec![false; poly.vertices().len()];
        for face in poly.faces().iter().filter(|f| f.len > 3) {
            let mut h = face.half_edge;
            for _ in 0..face.len {
                on_polygon[he[h as usize].origin as usize] = true;
                h = he[h as usize].next;
            }
        }
        for v in 0..poly.vertices().len() as u32 {
            if !on_polygon[v as usize] {
                adj.extend_from_slice(poly.neighbors(v));
                start.push(adj.len() as u32);
                continue;
            }
            for (&a, &h) in poly.neighbors(v).iter().zip(poly.outgoing(v)) {
                adj.push(a);
                // The face of v → a runs v, a = c1, c2, …, c(L−1), back to v; the next
                // neighbour in the ring is c(L−1). Its fan apex is its first corner.
                let face = poly.face(he[h as usize].face);
                if face.len == 3 {
                    continue;
                }
                let apex = he[face.half_edge as usize].origin;
                let last = he[h as usize].prev;
                let mut k = he[he[h as usize].next as usize].next;
                // The corners strictly between a and c(L−1): all of them when v is the apex,
                // else the apex alone if it is among them.
                let mut guard = 0u32;
                while k != last && guard < face.len {
                    guard += 1;
                    let c = he[k as usize].origin;
                    if apex == v || c == apex {
                        adj.push(c);
                    }
                    k = he[k as usize].next;
                }
            }
            start.push(adj.len() as u32);
        }
        Self { start, adj }
    }

    /// The same rotation system over renumbered vertices: new vertex `v` is old vertex
    /// `order[v]` (a permutation), each ring in the same cyclic order. O(E).
    fn renumbered(&self, order: &[u32]) -> Self {
        let mut new_id = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_id[old as usize] = new as u32;
        }
        let mut start = Vec::with_capacity(order.len() + 1);
        let mut adj = Vec::with_capacity(self.adj.len());
        start.push(0u32);
        for &old in order {
            adj.extend(self.around(old).iter().map(|&w| new_id[w as usize]));
            start.push(adj.len() as u32);
        }
        Self { start, adj }
    }
}

/// Shapes with at least this many vertices are renumbered in a spatial order before their
/// hierarchy is built (`spatial_order`). Below it a level's arrays fit in the processor's
/// caches and the vertex order does not matter for speed; smaller shapes keep their vertex
/// order, and so their level sizes.
pub(crate) const SPATIAL_ORDER_MIN: usize = 1 << 15;

/// Bits per coordinate of the Morton (Z-order) keys of [`spatial_order`]: 3 × 21 = 63 bits.
const MORTON_BITS: u32 = 21;

/// The vertices of a shape with at least [`SPATIAL_ORDER_MIN`] vertices in Morton order of
/// their positions (quantised to [`MORTON_BITS`] bits per coordinate over the bounding box,
/// ties by vertex id): `order[new] = old`. Vertices close in space get close numbers, so the
/// greedy set and the ring patching of every level read memory nearly sequentially instead
/// of at random (a 10⁶-point cloud given in random order: most reads were cache misses).
/// `None` for smaller shapes. O(n log n) (one sort).
fn spatial_order(vertices: &[DVec3]) -> Option<Vec<u32>> {
    if vertices.len() < SPATIAL_ORDER_MIN {
        return None;
    }
    let lo = vertices.iter().fold(DVec3::splat(f64::INFINITY), |m, p| m.min(*p));
    let hi = vertices.iter().fold(DVec3::splat(f64::NEG_INFINITY), |m, p| m.max(*p));
    let cells = f64::from((1u32 << MORTON_BITS) - 1);
    let extent = hi - lo;
    // Per axis: the factor to cells (0 for a zero extent: every key's coordinate is 0).
    let scale = DVec3::new(
        if extent.x > 0.0 { cells / extent.x } else { 0.0 },
        if extent.y > 0.0 { cells / extent.y } else { 0.0 },
        if extent.z > 0.0 { cells / extent.z } else { 0.0 },
    );
    // Quantised coordinates are clamped to the cell range (rounding at the top end).
    let cell = |x: f64| (x.max(0.0).min(cells)) as u64;
    let mut keyed: Vec<(u64, u32)> = vertices
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let q = (*p - lo) * scale;
            let key = spread_bits(cell(q.x)) | (spread_bits(cell(q.y)) << 1) | (spread_bits(cell(q.z)) << 2);
            (key, i as u32)
        })
        .collect();
    keyed.sort_unstable();
    Some(keyed.into_iter().map(|(_, i)| i).collect())
}

/// The low [`MORTON_BITS`] bits of `x` spread out to every third bit (bit k to bit 3k).
fn spread_bits(x: u64) -> u64 {
    let mut x = x & ((1 << MORTON_BITS) - 1);
    x = (x | x << 32) & 0x001f_0000_0000_ffff;
    x = (x | x << 16) & 0x001f_0000_ff00_00ff;
    x = (x | x << 8) & 0x100f_00f0_0f00_f00f;
    x = (x | x << 4) & 0x10c3_0c30_c30c_30c3;
    x = (x | x << 2) & 0x1249_2492_4924_9249;
    x
}

/// Which vertices are corners of a *bent* face: a polygonal face whose corners are not
/// exactly coplanar (the hull merges facets within its coplanarity tolerance). Its fan
/// triangles may meet at an edge that is reflex by a rounding error, so the exact hole filling
/// would refuse every hole next to it: such corners and their neighbours are never removed,
/// and the fan stays as it is on every level. Empty when there is no bent face (every
/// simplicial polyhedron, and exactly planar faces such as a box's). O(E).
fn corners_of_bent_faces(poly: &TopologyView) -> Vec<bool> {
    let he = poly.half_edges();
    let mut fixed: Vec<bool> = Vec::new();
    for face in poly.faces().iter().filter(|f| f.len > 3) {
        let mut corners = Vec::with_capacity(face.len as usize);
        let mut h = face.half_edge;
        for _ in 0..face.len {
            corners.push(he[h as usize].origin);
            h = he[h as usize].next;
        }
        let p = |k: usize| poly.vertex(corners[k]);
        let bent = corners[3..]
            .iter()
            .any(|&c| orient3d(p(0), p(1), p(2), poly.vertex(c)) != Orientation::On)
            || orient3d(p(0), p(1), p(2), p(0) + face.normal) == Orientation::On;
        if bent {
            fixed.resize(poly.vertices().len(), false);
            for &c in &corners {
                fixed[c as usize] = true;
            }
        }
    }
    fixed
}

/// Scratch reused across levels.
#[derive(Default)]
struct Scratch {
    by_degree: Vec<Vec<u32>>,
    state: Vec<u8>,
    resid: Vec<u32>,
    /// Per vertex: local index on the next level (survivors), or the start of its cap
    /// triangles in `caps` (removed vertices).
    local: Vec<u32>,
    caps: Vec<[u32; 3]>,
    stamp: Vec<u32>,
}

/// The greedy independent set of one level (lowest *residual* degree — free neighbours —
/// first), marked `REMOVED` in `scratch.state`; returns its size.
///
/// A lazy bucket queue: an entry is stale when its vertex is no longer free or its residual
/// degree has dropped since it was pushed. Each vertex is pushed once initially and at most
/// once per neighbour that becomes blocked, so the loop is bounded by n + 2·(edges).
fn independent_set(rot: &Rotation, fixed: &[bool], s: &mut Scratch) -> usize {
    let n = rot.start.len() - 1;
    s.by_degree.resize(MAX_REMOVED_DEGREE + 1, Vec::new());
    for b in &mut s.by_degree {
        b.clear();
    }
    s.resid.clear();
    for v in 0..n {
        let deg = rot.degree(v);
        s.resid.push(deg as u32);
        if deg <= MAX_REMOVED_DEGREE {
            s.by_degree[deg].push(v as u32);
        }
    }
    s.state.clear();
    s.state.resize(n, FREE);
    // A corner of a bent face, or a neighbour of one, stays (see `corners_of_bent_faces`).
    for (v, _) in fixed.iter().enumerate().filter(|(_, &f)| f) {
        s.state[v] = BLOCKED;
        for &w in rot.around(v as u32) {
            s.state[w as usize] = BLOCKED;
        }
    }
    let mut count = 0usize;
    let mut bucket = 0usize;
    while bucket <= MAX_REMOVED_DEGREE {
        let Some(v) = s.by_degree[bucket].pop() else {
            bucket += 1;
            continue;
        };
        let vu = v as usize;
        if s.state[vu] != FREE || s.resid[vu] as usize != bucket {
            continue;
        }
        s.state[vu] = REMOVED;
        count += 1;
        for &w in rot.around(v) {
            let wu = w as usize;
            if s.state[wu] != FREE {
                continue;
            }
            s.state[wu] = BLOCKED;
            for &x in rot.around(w) {
                let xu = x as usize;
                if s.state[xu] == FREE && s.resid[xu] > 0 {
                    s.resid[xu] -= 1;
                    let d = s.resid[xu] as usize;
                    if rot.degree(xu) <= MAX_REMOVED_DEGREE {
                        s.by_degree[d].push(x);
                        bucket = bucket.min(d);
                    }
                }
            }
        }
    }
    count
}

/// The next level: positions of the survivors (in index order) and their rotation system.
struct NextLevel {
    pos: Vec<DVec3>,
    rot: Rotation,
}

/// Removes the `REMOVED` vertices of `scratch.state` and fills each hole by ear clipping its
/// link (≤ [`MAX_REMOVED_DEGREE`] corners): O(n) in all. `None` when a hole has no valid ear,
/// a new edge duplicates an edge, or a new edge is not convex (exact tests) — which a convex
/// level whose vertices are all corners never gives.
///
/// Why local filling is the hull of the survivors: no two removed vertices are adjacent, so
/// removing them one at a time, each removed vertex's star is intact when it goes; the faces
/// that replace the star of `v` are the faces of the hull of `v`'s link that `v` sees, and a
/// triangle of link corners with every link corner on or below its plane and `v` above it
/// (or on it, in a flat star) is such a face. Every new edge is then checked for local
/// convexity against the triangle across it, so the new level is a closed, locally convex,
/// hence convex, triangulated surface whose vertices — corners of the level below — are all
/// corners.
fn next_level(pos: &[DVec3], rot: &Rotation, s: &mut Scratch) -> Option<NextLevel> {
    let n = pos.len();
    s.local.clear();
    s.local.resize(n, u32::MAX);
    s.caps.clear();
    let mut m = 0u32;
    for v in 0..n {
        if s.state[v] == REMOVED {
            s.local[v] = s.caps.len() as u32;
            fill_hole(pos, v as u32, rot.around(v as u32), &mut s.caps)?;
        } else {
            s.local[v] = m;
            m += 1;
        }
    }
    // The survivors' rings: each removed neighbour `w` (between `x0` and `xm` in the ring)
    // is replaced by the corners of `w`'s cap triangles around the survivor, from `x0` to `xm`.
    let mut start: Vec<u32> = Vec::with_capacity(m as usize + 1);
    let mut adj: Vec<u32> = Vec::with_capacity(rot.adj.len());
    start.push(0);
    s.stamp.clear();
    s.stamp.resize(n, u32::MAX);
    for u in 0..n as u32 {
        if s.state[u as usize] == REMOVED {
            continue;
        }
        let ring = rot.around(u);
        let d = ring.len();
        for (k, &w) in ring.iter().enumerate() {
            if s.state[w as usize] != REMOVED {
                push_unique(&mut adj, &mut s.stamp, u, w, s.local[w as usize])?;
                continue;
            }
            let (x0, xm) = (ring[(k + d - 1) % d], ring[(k + 1) % d]);
            let deg = rot.degree(w as usize);
            let first = s.local[w as usize] as usize;
            let tris = &s.caps[first..first + deg - 2];
            let mut x = x0;
            for _ in 0..tris.len() {
                let y = tris.iter().find_map(|t| follower(t, u, x))?;
                if y == xm {
                    x = xm;
                    break;
                }
                push_unique(&mut adj, &mut s.stamp, u, y, s.local[y as usize])?;
                x = y;
            }
            if x != xm {
                return None;
            }
        }
        start.push(adj.len() as u32);
    }
    let next = Rotation { start, adj };
    // The index below of each survivor.
    let down: Vec<u32> = (0..n as u32).filter(|&v| s.state[v as usize] != REMOVED).collect();
    // Local convexity at every edge of every new triangle: the far corner of the triangle
    // across the edge is not above the new triangle's plane.
    for t in &s.caps {
        for i in 0..3 {
            let (a, b) = (t[i], t[(i + 1) % 3]);
            let (la, lb) = (s.local[a as usize], s.local[b as usize]);
            let ring = next.around(lb);
            let k = ring.iter().position(|&x| x == la)?;
            let y = ring[(k + 1) % ring.len()];
            let c = t[(i + 2) % 3];
            let py = pos[down[y as usize] as usize];
            if orient3d(pos[a as usize], pos[b as usize], pos[c as usize], py) == Orientation::Above {
                return None;
            }
        }
    }
    let keep: Vec<DVec3> = down.iter().map(|&v| pos[v as usize]).collect();
    Some(NextLevel { pos: keep, rot: next })
}

/// Appends `local_w` to survivor `u`'s new ring unless `w` is already in it (a repeated
/// neighbour: the new level would not be a simplicial sphere) — then `None`.
#[inline]
fn push_unique(adj: &mut Vec<u32>, stamp: &mut [u32], u: u32, w: u32, local_w: u32) -> Option<()> {
    if stamp[w as usize] == u {
        return None;
    }
    stamp[w as usize] = u;
    adj.push(local_w);
    Some(())
}

/// In triangle `t` (counter-clockwise), the corner after `x` when `u, x` are consecutive:
/// the triangle `(u, x, y)` up to rotation gives `y`.
#[inline]
fn follower(t: &[u32; 3], u: u32, x: u32) -> Option<u32> {
    (0..3)
        .find(|&i| t[i] == u && t[(i + 1) % 3] == x)
        .map(|i| t[(i + 2) % 3])
}

/// Fills the hole left by removing `v` (link `link`, counter-clockwise seen from outside) with
/// `link.len() − 2` triangles appended to `out`, by ear clipping: an ear `(a, b, c)` of the
/// remaining polygon is cut when no link corner lies above its plane and `v` lies above it,
/// or on it with some link corner below (a flat star; this also refuses collinear corners).
/// Exact `orient3d` decides. At most `k` passes over at most `k` ears for `k` corners.
fn fill_hole(pos: &[DVec3], v: u32, link: &[u32], out: &mut Vec<[u32; 3]>) -> Option<()> {
    let k = link.len();
    if !(3..=MAX_REMOVED_DEGREE).contains(&k) {
        return None;
    }
    let mut poly = [0u32; MAX_REMOVED_DEGREE];
    poly[..k].copy_from_slice(link);
    let mut len = k;
    let pv = pos[v as usize];
    let mut i = 0usize;
    let mut failures = 0usize;
    while len > 3 {
        let (a, b, c) = (poly[i % len], poly[(i + 1) % len], poly[(i + 2) % len]);
        if is_ear(pos, pv, link, a, b, c) {
            out.push([a, b, c]);
            let at = (i + 1) % len;
            poly.copy_within(at + 1..len, at);
            len -= 1;
            failures = 0;
            i %= len;
        } else {
            failures += 1;
            if failures > len {
                return None;
            }
            i = (i + 1) % len;
        }
    }
    let (a, b, c) = (poly[0], poly[1], poly[2]);
    if !is_ear(pos, pv, link, a, b, c) {
        return None;
    }
    out.push([a, b, c]);
    Some(())
}

/// Whether `(a, b, c)` may be cut from the hole of the vertex at `pv` (see [`fill_hole`]).
#[inline]
fn is_ear(pos: &[DVec3], pv: DVec3, link: &[u32], a: u32, b: u32, c: u32) -> bool {
    let (pa, pb, pc) = (pos[a as usize], pos[b as usize], pos[c as usize]);
    let side_v = orient3d(pa, pb, pc, pv);
    if side_v == Orientation::Below {
        return false;
    }
    let mut below = false;
    for &x in link {
        if x == a || x == b || x == c {
            continue;
        }
        match orient3d(pa, pb, pc, pos[x as usize]) {
            Orientation::Above => return false,
            Orientation::Below => below = true,
            Orientation::On => {}
        }
    }
    side_v == Orientation::Above || below
}

#[cfg(test)]
#[path = "dk_tests.rs"]
mod tests;
