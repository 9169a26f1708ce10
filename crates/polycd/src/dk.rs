//! The Dobkin–Kirkpatrick hierarchy for O(log n) support queries (HS-jump paper §8.1).
//!
//! Level 0 is the polyhedron itself. Level i+1 is the convex hull of level i's vertices minus
//! an independent set of vertices of degree ≤ [`MAX_REMOVED_DEGREE`], chosen greedily; the
//! construction stops when a level has at most [`TOP_SIZE`] vertices or too few vertices can
//! be removed. A query scans the top level and descends: if `v` is the maximiser on level
//! i+1, then on level i either `v` is still the maximiser or a removed neighbour of `v` is
//! (every removed vertex's neighbours survive, so such a neighbour is a local, hence global,
//! maximum). A hill-climb from `v` on level i finds it, normally in one step.
//!
//! Departure from the paper: the descent uses a climb rather than the constant-size "cone"
//! test of the original, which is simpler, needs no extra geometric data, and costs the
//! degree of `v` per level either way.

use crate::hull;
use crate::math::DVec3;
use crate::polyhedron::ConvexPolyhedron;

/// Vertices of at most this degree may be removed from a level.
pub const MAX_REMOVED_DEGREE: usize = 8;
/// A level with at most this many vertices is the top (scanned) level.
pub const TOP_SIZE: usize = 16;

#[derive(Clone, Debug, Default)]
struct Level {
    /// Original vertex id of each local vertex.
    ids: Vec<u32>,
    /// Local index of each local vertex on the level below.
    down: Vec<u32>,
    adj_start: Vec<u32>,
    adj: Vec<u32>,
}

/// Nested polytopes for hierarchical support queries, built once per shape.
#[derive(Clone, Debug, Default)]
pub struct DkHierarchy {
    /// Levels 1.. (level 0 is the polyhedron itself).
    levels: Vec<Level>,
}

impl DkHierarchy {
    pub(crate) fn empty() -> Self {
        Self { levels: Vec::new() }
    }

    /// Number of levels including the polyhedron itself.
    pub fn depth(&self) -> usize {
        self.levels.len() + 1
    }

    /// Vertex counts per level, bottom first.
    pub fn level_sizes(&self, poly: &ConvexPolyhedron) -> Vec<usize> {
        let mut v = vec![poly.vertices().len()];
        v.extend(self.levels.iter().map(|l| l.ids.len()));
        v
    }

    pub(crate) fn build(poly: &ConvexPolyhedron) -> Self {
        let mut levels: Vec<Level> = Vec::new();
        // Current level as (ids, adjacency) in local indices.
        let n0 = poly.vertices().len();
        let mut ids: Vec<u32> = (0..n0 as u32).collect();
        let mut adj_start: Vec<u32> = poly.adj_start.clone();
        let mut adj: Vec<u32> = poly.adj_vertex.clone();
        while ids.len() > TOP_SIZE {
            let n = ids.len();
            let mut blocked = vec![false; n];
            let mut removed = vec![false; n];
            let mut count = 0usize;
            for v in 0..n {
                let deg = (adj_start[v + 1] - adj_start[v]) as usize;
                if blocked[v] || deg > MAX_REMOVED_DEGREE {
                    continue;
                }
                removed[v] = true;
                count += 1;
                for &w in &adj[adj_start[v] as usize..adj_start[v + 1] as usize] {
                    blocked[w as usize] = true;
                }
            }
            if count * 16 < n {
                break;
            }
            let keep: Vec<usize> = (0..n).filter(|&v| !removed[v]).collect();
            let pts: Vec<DVec3> = keep.iter().map(|&v| poly.vertex(ids[v])).collect();
            let Ok(h) = hull::convex_hull(&pts) else {
                break;
            };
            // Local index (on the current level) of each new vertex.
            let down: Vec<u32> = h.source.iter().map(|&s| keep[s as usize] as u32).collect();
            let new_ids: Vec<u32> = down.iter().map(|&l| ids[l as usize]).collect();
            // Adjacency from the faces.
            let m = new_ids.len();
            let mut nbrs: Vec<Vec<u32>> = vec![Vec::new(); m];
            for f in &h.faces {
                for k in 0..f.len() {
                    let (a, b) = (f[k], f[(k + 1) % f.len()]);
                    nbrs[a as usize].push(b);
                }
            }
            let mut new_start = Vec::with_capacity(m + 1);
            let mut new_adj = Vec::new();
            new_start.push(0u32);
            for list in &mut nbrs {
                list.sort_unstable();
                list.dedup();
                new_adj.extend_from_slice(list);
                new_start.push(new_adj.len() as u32);
            }
            levels.push(Level {
                ids: new_ids.clone(),
                down,
                adj_start: new_start.clone(),
                adj: new_adj.clone(),
            });
            ids = new_ids;
            adj_start = new_start;
            adj = new_adj;
        }
        Self { levels }
    }

    /// Support vertex (original id) along `dir`.
    pub fn support(&self, poly: &ConvexPolyhedron, dir: DVec3) -> u32 {
        let Some(top) = self.levels.last() else {
            return poly.support_scan(dir);
        };
        // Scan the top level.
        let mut v = 0u32;
        let mut best = f64::NEG_INFINITY;
        for (i, &id) in top.ids.iter().enumerate() {
            let d = dir.dot(poly.vertex(id));
            if d > best {
                best = d;
                v = i as u32;
            }
        }
        // Descend: v is a local index on level k (1-based in self.levels).
        for k in (0..self.levels.len()).rev() {
            let lower = self.levels[k].down[v as usize];
            if k == 0 {
                return poly.support_climb(dir, lower);
            }
            let level = &self.levels[k - 1];
            v = climb(level, poly, dir, lower);
        }
        poly.support_climb(dir, 0)
    }
}

fn climb(level: &Level, poly: &ConvexPolyhedron, dir: DVec3, start: u32) -> u32 {
    let mut v = start;
    let mut d = dir.dot(poly.vertex(level.ids[v as usize]));
    for _ in 0..level.ids.len() {
        let mut best = v;
        let mut best_d = d;
        for &w in &level.adj[level.adj_start[v as usize] as usize..level.adj_start[v as usize + 1] as usize] {
            let dw = dir.dot(poly.vertex(level.ids[w as usize]));
            if dw > best_d {
                best_d = dw;
                best = w;
            }
        }
        if best == v {
            break;
        }
        v = best;
        d = best_d;
    }
    v
}
