//! The Dobkin–Kirkpatrick hierarchy for O(log n) support queries (HS-jump paper §8.1;
//! Dobkin & Kirkpatrick, "Determining the separation of preprocessed polyhedra", 1990).
//!
//! Outline:
//! 1. Level 0 is the polyhedron. Level i+1 is the convex hull of level i's vertices minus an
//!    independent set `R_i` of vertices of degree ≤ [`MAX_REMOVED_DEGREE`], chosen greedily in
//!    order of increasing residual degree (the number of still-free neighbours: a vertex that
//!    blocks few others goes first, so the set is large).
//! 2. The construction stops when a level has at most [`TOP_SIZE`] vertices, when fewer than
//!    1/[`MIN_REMOVED_FRACTION`] of the vertices can be removed, or when the hull of the
//!    survivors would not keep every survivor as a vertex (tolerant facet merging).
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
//! no extra geometry), and the levels are built by re-running the hull on the survivors rather
//! than re-triangulating holes, which keeps the hull code the single source of topology.

use crate::core::math::DVec3;
use crate::shape::hull;
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
        let mut levels: Vec<Level> = Vec::new();
        // Current level: positions and CSR adjacency in local indices.
        let mut pos: Vec<DVec3> = poly.vertices().to_vec();
        let mut adj_start: Vec<u32> = poly.adj_start.to_vec();
        let mut adj: Vec<u32> = poly.adj_vertex.to_vec();
        // Scratch reused across levels.
        let mut by_degree: Vec<Vec<u32>> = vec![Vec::new(); MAX_REMOVED_DEGREE + 1];
        let mut state: Vec<u8> = Vec::new();
        let mut resid: Vec<u32> = Vec::new();
        let mut local: Vec<u32> = Vec::new();
        // Each level removes at least one vertex, so at most n levels.
        while pos.len() > TOP_SIZE {
            let n = pos.len();
            // Greedy independent set, lowest *residual* degree (free neighbours) first, with a
            // lazy bucket queue: an entry is stale when its vertex is no longer free or its
            // residual degree has dropped since it was pushed. Each vertex is pushed once
            // initially and at most once per neighbour that becomes blocked, so the loop is
            // bounded by n + 2·(edges).
            for b in &mut by_degree {
                b.clear();
            }
            resid.clear();
            for v in 0..n {
                let deg = (adj_start[v + 1] - adj_start[v]) as usize;
                resid.push(deg as u32);
                if deg <= MAX_REMOVED_DEGREE {
                    by_degree[deg].push(v as u32);
                }
            }
            const FREE: u8 = 0;
            const BLOCKED: u8 = 1;
            const REMOVED: u8 = 2;
            state.clear();
            state.resize(n, FREE);
            let mut count = 0usize;
            let mut bucket = 0usize;
            while bucket <= MAX_REMOVED_DEGREE {
                let Some(v) = by_degree[bucket].pop() else {
                    bucket += 1;
                    continue;
                };
                let vu = v as usize;
                if state[vu] != FREE || resid[vu] as usize != bucket {
                    continue;
                }
                state[vu] = REMOVED;
                count += 1;
                for &w in &adj[adj_start[vu] as usize..adj_start[vu + 1] as usize] {
                    let wu = w as usize;
                    if state[wu] != FREE {
                        continue;
                    }
                    state[wu] = BLOCKED;
                    for &x in &adj[adj_start[wu] as usize..adj_start[wu + 1] as usize] {
                        let xu = x as usize;
                        if state[xu] == FREE && resid[xu] > 0 {
                            resid[xu] -= 1;
                            let d = resid[xu] as usize;
                            let original = (adj_start[xu + 1] - adj_start[xu]) as usize;
                            if original <= MAX_REMOVED_DEGREE {
                                by_degree[d].push(x);
                                bucket = bucket.min(d);
                            }
                        }
                    }
                }
            }
            if count == 0 || count * MIN_REMOVED_FRACTION < n {
                break;
            }
            let keep: Vec<u32> = (0..n as u32).filter(|&v| state[v as usize] != REMOVED).collect();
            let pts: Vec<DVec3> = keep.iter().map(|&v| pos[v as usize]).collect();
            let Ok(h) = hull::convex_hull(&pts) else {
                break;
            };
            if h.vertices.len() != keep.len() {
                // A survivor within the merge tolerance of a face was dropped: the descent's
                // argument needs every non-removed vertex on the next level, so stop here.
                break;
            }
            let m = h.vertices.len();
            // Local index (on the current level) of each new vertex, and the inverse map.
            let down: Vec<u32> = h.source.iter().map(|&s| keep[s as usize]).collect();
            local.clear();
            local.resize(n, u32::MAX);
            for (j, &d) in down.iter().enumerate() {
                local[d as usize] = j as u32;
            }
            // Candidates: removed neighbours on the current level.
            let mut meta: Vec<[u32; 2]> = Vec::with_capacity(m + 1);
            let mut cands: Vec<Candidate> = Vec::new();
            for &d in &down {
                meta.push([d, cands.len() as u32]);
                for &w in &adj[adj_start[d as usize] as usize..adj_start[d as usize + 1] as usize] {
                    if state[w as usize] == REMOVED {
                        cands.push(Candidate {
                            pos: pos[w as usize],
                            id: w,
                        });
                    }
                }
            }
            meta.push([u32::MAX, cands.len() as u32]);
            // Adjacency of the new level from its faces (in h's vertex order).
            let mut deg = vec![0u32; m + 1];
            for f in &h.faces {
                for &a in f {
                    deg[a as usize + 1] += 1;
                }
            }
            for i in 0..m {
                deg[i + 1] += deg[i];
            }
            let mut fill = deg.clone();
            let mut new_adj = vec![0u32; deg[m] as usize];
            for f in &h.faces {
                for k in 0..f.len() {
                    let (a, b) = (f[k], f[(k + 1) % f.len()]);
                    new_adj[fill[a as usize] as usize] = b;
                    fill[a as usize] += 1;
                }
            }
            levels.push(Level { meta, cands });
            pos = h.vertices;
            adj_start = deg;
            adj = new_adj;
        }
        if levels.is_empty() {
            pos.clear();
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
