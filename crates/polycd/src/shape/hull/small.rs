//! The one Quickhull implementation: [`HullScratch`] builds the hull of a cloud of any size —
//! [`convex_hull`](super::convex_hull) (10⁶-point clouds) runs one build on a fresh scratch,
//! the mesh decomposition runs thousands of builds of 10–100 points on one scratch without
//! allocating.
//!
//! Paper and outline (Barber, Dobkin, Huhdanpaa 1996; steps as the parent module lists them):
//! check the coordinates; scale clouds beyond 2^±120 by a power of two into the safe band
//! (exact; the answer is over the input points); sort and de-duplicate; the initial simplex;
//! outside sets; Quickhull iterations (farthest point by float distance, visible region by
//! exact `orient3d`, cone to the horizon, outside points handed on); facets grouped into faces
//! by seed planes, extreme vertices, boundary loops, closure check, merge rounds.
//! Bookkeeping, none of which decides anything:
//! - every buffer lives in the [`HullScratch`] (no allocation once it has grown to the
//!   largest cloud);
//! - a facet's outside set is a vector from a pool, kept in push order: a facet takes one
//!   when it gets its first point, and a dead facet's goes back emptied, with its capacity,
//!   for the next (contiguous lists: at 10⁶ points a linked list through the points cost a
//!   cache miss per point per step; a vector per facet slot kept ~10⁶ spare capacities);
//! - a facet keeps only what the iterations read at random (corners, neighbours, creation
//!   number, list, filtered plane: 112 bytes); its float plane (unit normal, offset), read
//!   once per iteration and per merge seed, is computed there from its corners (the same
//!   bits each time), not stored for the ~5× more facets that die unread;
//! - the initial simplex's neighbours are found by scanning its 12 edges, the horizon's by
//!   one slot per point (stamped), instead of hash maps;
//! - a seed facet's in-plane neighbours are tested while its face grows;
//! - each facet keeps its plane as an [`OrientFilter`] (first corner, cross product and
//!   absolute products of its edges), so a visibility or in-plane test is one filtered dot
//!   product; the filter answers only where its proven error bound makes the sign certain and
//!   the exact `orient3d` (over the facet's corners, read from the points) decides the rest;
//! - the merge puts the alive facets in creation order through one slot per creation number
//!   instead of sorting them, and sorts its seeds by integer keys equivalent to the areas'
//!   `total_cmp` order.
//!
//! Invariants: visibility is exact, so the visible region is a topological disk and its
//! horizon a simple cycle; new facets are never degenerate. Termination: at most `n + 1`
//! Quickhull iterations (each turns one point into a hull vertex; enforced), at most
//! `MERGE_ROUNDS` merge rounds, boundary walks bounded by the facet count. Departures: none
//! from the paper's algorithm; float arithmetic only chooses which point to add next.
//!
//! Cost: O(n log n) sort, O(n log h) expected Quickhull, O(h log h) merge; measured in
//! BENCHMARKS.md, "Building large hulls" (10⁶ points) and "Mesh decomposition" (small
//! clouds).

use super::{check_points, internal, plane_of, HullFaces, MERGE_ROUNDS, NONE};
use crate::core::error::PolycdError;
use crate::core::math::DVec3;
use crate::core::predicates::{orient3d_exact, strictly_above, OrientFilter, Orientation};
use crate::core::progress::{Phase, PROGRESS_STRIDE};
use crate::core::tolerance::{COPLANAR_REL, FLATNESS_REL};

/// A facet of the running hull.
#[derive(Clone, Copy, Debug)]
struct Facet {
    v: [u32; 3],
    /// `nbr[i]` is the facet across the edge `v[i] → v[(i+1)%3]`.
    nbr: [u32; 3],
    alive: bool,
    visible: bool,
    /// Creation order (the merge visits facets in this order).
    seq: u64,
    /// Its outside set: an index into `HullScratch::lists`, or `NONE` while it is empty.
    list: u32,
    /// The facet's plane for exact visibility tests (`orient3d` behind a per-facet filter;
    /// the exact fallback reads `v[1]`, `v[2]` from the points).
    plane: OrientFilter,
}

// The record the iterations read at random stays within 112 bytes (see the module notes).
const _: () = assert!(std::mem::size_of::<Facet>() <= 112);

/// A facet as the merge reads it (indices into the compact table, in creation order; its
/// plane is read from its facet slot, `by_seq`).
#[derive(Clone, Copy, Debug)]
struct Compact {
    v: [u32; 3],
    nbr: [u32; 3],
}

/// Clouds and hulls above this many points: renumbering by a scatter instead of a sort, and
/// the facet array reserved at once (the same results; small clouds keep the cheaper path).
const SCATTER_FROM: usize = 4096;

/// Reusable buffers for [`HullScratch::build`]: build many hulls, allocate once.
///
/// After a successful build the hull is read with [`vertices`](Self::vertices),
/// [`source`](Self::source) and [`face`](Self::face) (or copied out with
/// [`to_faces`](Self::to_faces)); it is exactly what [`convex_hull`](super::convex_hull)
/// returns for the same points.
#[derive(Debug, Default)]
pub struct HullScratch {
    /// A cloud scaled by a power of two into the safe band.
    scaled: Vec<DVec3>,
    // The cloud being hulled (sorted, de-duplicated; reduced by the merge rounds).
    keyed: Vec<([i64; 3], u32)>,
    order: Vec<u32>,
    pts: Vec<DVec3>,
    // Quickhull.
    facets: Vec<Facet>,
    free: Vec<u32>,
    created: u64,
    magnitude: f64,
    /// Outside sets: a pool of lists, each held by one facet (`Facet::list`) or spare
    /// (emptied, its index in `spare_lists`), so a dead facet's list and its capacity go to
    /// the next facet that needs one.
    lists: Vec<Vec<u32>>,
    spare_lists: Vec<u32>,
    stack: Vec<(u32, u64)>,
    visible: Vec<u32>,
    horizon: Vec<(u32, u32, u32)>,
    dfs: Vec<u32>,
    new_facets: Vec<u32>,
    /// Per point: the new facet whose horizon edge starts there, valid when `start_stamp`
    /// holds the current iteration.
    start_of: Vec<u32>,
    start_stamp: Vec<u32>,
    stamp: u32,
    /// Points in an outside set of the initial simplex.
    outside_at_start: u64,
    // Merge.
    /// The alive facets in creation order (a slot per creation number, then compacted).
    by_seq: Vec<u32>,
    compact_of: Vec<u32>,
    tri: Vec<Compact>,
    /// Large hulls: per facet, the neighbours in its plane as a seed (bit `i` for `nbr[i]`).
    takes: Vec<u8>,
    /// Seed facets by decreasing area: `Reverse` of the area's `total_cmp` key, then the
    /// facet (the order `sort_unstable_by(total_cmp)` gives, with integer comparisons).
    seeds: Vec<(std::cmp::Reverse<i64>, u32)>,
    group: Vec<u32>,
    queue: Vec<u32>,
    vertex_groups: Vec<[u32; 3]>,
    new_index: Vec<u32>,
    kept: Vec<u32>,
    first_boundary: Vec<(u32, u32)>,
    done: Vec<bool>,
    /// Merged faces over `kept`: face `k` is `fidx[fstart[k]..fstart[k + 1]]`.
    fstart: Vec<u32>,
    fidx: Vec<u32>,
    // Closure check.
    estart: Vec<u32>,
    efill: Vec<u32>,
    etargets: Vec<u32>,
    // The result, in input order.
    perm: Vec<u32>,
    /// Per input index, the kept vertex it became (large hulls: a scatter instead of a sort).
    at_source: Vec<u32>,
    new_id: Vec<u32>,
    out_vertices: Vec<DVec3>,
    out_source: Vec<u32>,
    out_fstart: Vec<u32>,
    out_fidx: Vec<u32>,
    /// Builds of clouds scaled into the safe band, and builds that failed.
    delegated: u64,
    /// Tests: take the small clouds' paths at every size.
    #[cfg(test)]
    plain: bool,
}

impl HullScratch {
    /// Empty buffers.
    pub fn new() -> HullScratch {
        HullScratch::default()
    }

    /// Computes the hull of `points`: on success the result is read through the accessors;
    /// on failure the error says why (too few distinct points, collinear, flat, non-finite
    /// or absurd coordinates). [`convex_hull`](super::convex_hull) is this, copied out.
    pub fn build(&mut self, points: &[DVec3]) -> Result<(), PolycdError> {
        self.build_with_progress(points, &mut |_, _, _| {})
    }

    /// [`build`](Self::build), reporting progress (see [`crate::core::progress`]): the
    /// phases [`Phase::Hull`] and [`Phase::Merge`]; the same result.
    pub fn build_with_progress(
        &mut self,
        points: &[DVec3],
        progress: &mut dyn FnMut(Phase, u64, u64),
    ) -> Result<(), PolycdError> {
        let r = self.checked(points, progress);
        if r.is_err() {
            self.delegated += 1;
        }
        r
    }

    fn checked(&mut self, points: &[DVec3], progress: &mut dyn FnMut(Phase, u64, u64)) -> Result<(), PolycdError> {
        check_points(points)?;
        // Very large or very small clouds: the hull of the cloud scaled by a power of two into
        // the safe band (exact; the floating-point choices scale with it), over the input
        // points.
        let m = points.iter().fold(0.0f64, |m, p| m.max(p.abs().max_element()));
        let Some(s) = crate::core::math::pow2_normaliser(m) else {
            return self.core(points, progress);
        };
        self.delegated += 1;
        let mut scaled = std::mem::take(&mut self.scaled);
        scaled.clear();
        scaled.extend(points.iter().map(|p| *p * s));
        let r = self.core(&scaled, progress);
        self.scaled = scaled;
        r.map_err(|e| match e {
            PolycdError::Coplanar { thickness, diameter } => PolycdError::Coplanar {
                thickness: thickness / s,
                diameter: diameter / s,
            },
            e => e,
        })?;
        for (v, &i) in self.out_vertices.iter_mut().zip(&self.out_source) {
            *v = points[i as usize];
        }
        Ok(())
    }

    /// How many builds so far were of clouds scaled into the safe band (coordinates beyond
    /// 2^±120), or failed.
    pub fn delegated(&self) -> u64 {
        self.delegated
    }

    /// The extreme points of the last hull built, in input order.
    pub fn vertices(&self) -> &[DVec3] {
        &self.out_vertices
    }

    /// For each vertex, its index in the input cloud.
    pub fn source(&self) -> &[u32] {
        &self.out_source
    }

    /// The number of faces of the last hull built.
    pub fn face_count(&self) -> usize {
        self.out_fstart.len().saturating_sub(1)
    }

    /// Face `k` as a loop of vertex indices, counter-clockwise seen from outside.
    pub fn face(&self, k: usize) -> &[u32] {
        &self.out_fidx[self.out_fstart[k] as usize..self.out_fstart[k + 1] as usize]
    }

    /// The last hull built, moved out (the scratch keeps its other buffers).
    pub fn into_faces(self) -> HullFaces {
        let faces = (0..self.face_count()).map(|k| self.face(k).to_vec()).collect();
        HullFaces {
            vertices: self.out_vertices,
            source: self.out_source,
            faces,
        }
    }

    /// The last hull built, as [`convex_hull`](super::convex_hull) returns it.
    pub fn to_faces(&self) -> HullFaces {
        HullFaces {
            vertices: self.out_vertices.clone(),
            source: self.out_source.clone(),
            faces: (0..self.face_count()).map(|k| self.face(k).to_vec()).collect(),
        }
    }

    /// The hull of a checked cloud in the safe band.
    fn core(&mut self, points: &[DVec3], progress: &mut dyn FnMut(Phase, u64, u64)) -> Result<(), PolycdError> {
        // Exact duplicates removed, keeping the first index of each.
        // Sorted by (x, y, z) in `f64::total_cmp` order, then index: keys that compare as
        // integers in that order, sorted in place. All keys differ (the index breaks ties),
        // so the unstable sort gives the one order.
        let key = |x: f64| {
            let b = x.to_bits() as i64;
            b ^ ((((b >> 63) as u64) >> 1) as i64)
        };
        self.keyed.clear();
        self.keyed.extend(
            points
                .iter()
                .enumerate()
                .map(|(i, p)| ([key(p.x), key(p.y), key(p.z)], i as u32)),
        );
        self.keyed.sort_unstable();
        self.order.clear();
        self.order.extend(self.keyed.iter().map(|&(_, i)| i));
        self.order.dedup_by(|j, i| points[*i as usize] == points[*j as usize]);
        if self.keyed.len() > SCATTER_FROM {
            // A large cloud: its keys are not needed again, and a scratch kept for the next
            // cloud should not hold 32 bytes a point.
            self.keyed = Vec::new();
        }
        if self.order.len() < 4 {
            return Err(PolycdError::TooFewPoints {
                found: self.order.len(),
            });
        }
        self.pts.clear();
        self.pts.extend(self.order.iter().map(|&i| points[i as usize]));
        // Points that the exact hull keeps but that lie within the coplanarity tolerance of a
        // merged face (rounding of rotated or scaled input) end up on fewer than three faces
        // and are dropped; the hull of the remaining points is then recomputed, until nothing
        // more is dropped. Each round removes at least one point, and a few rounds suffice in
        // practice; if the bound is reached, or the tolerant merge fails, the exact merge
        // (tolerance 0, always a valid polytope) is used.
        for _round in 0..MERGE_ROUNDS {
            self.quickhull(progress)?;
            progress(Phase::Merge, 0, 1);
            let tol = COPLANAR_REL * self.magnitude;
            let merged = self.merge(tol);
            progress(Phase::Merge, 1, 1);
            let all_vertices = self.vertex_count();
            if merged.is_err() || !self.faces_are_closed() {
                break;
            }
            if self.kept.len() == all_vertices {
                self.finish();
                return Ok(());
            }
            // Vertices dropped by the tolerant merge: hull the rest again.
            let mut w = 0;
            for r in 0..self.kept.len() {
                let k = self.kept[r] as usize;
                self.order[w] = self.order[k];
                self.pts[w] = self.pts[k];
                w += 1;
            }
            self.order.truncate(w);
            self.pts.truncate(w);
            if self.pts.len() < 4 {
                break;
            }
        }
        self.pts.clear();
        self.pts.extend(self.order.iter().map(|&i| points[i as usize]));
        self.quickhull(progress)?;
        self.merge(0.0)?;
        self.finish();
        Ok(())
    }

    /// The result over `kept` renumbered in the order of the input points they come from
    /// (the construction sorts the points to find duplicates): a cloud whose points are all
    /// extreme gets vertex ids equal to its point indices, which is what a caller naming a
    /// vertex of the shape it gave expects (batch answers' `features` among them).
    fn finish(&mut self) {
        let nv = self.kept.len();
        self.perm.clear();
        let (kept, order) = (&self.kept, &self.order);
        if nv <= SCATTER_FROM || self.plain() {
            self.perm.extend(0..nv as u32);
            self.perm.sort_unstable_by_key(|&i| order[kept[i as usize] as usize]);
        } else {
            // The sources are distinct input indices (duplicates were removed), so the order
            // by source is read off a table indexed by source: one scatter and one scan
            // instead of a sort whose comparisons read `order` at random (the same
            // permutation).
            let span = kept.iter().map(|&k| order[k as usize] as usize + 1).max().unwrap_or(0);
            self.at_source.clear();
            self.at_source.resize(span, NONE);
            for (i, &k) in kept.iter().enumerate() {
                self.at_source[order[k as usize] as usize] = i as u32;
            }
            self.perm.extend(self.at_source.iter().copied().filter(|&i| i != NONE));
        }
        self.new_id.clear();
        self.new_id.resize(nv, 0);
        for (new, &old) in self.perm.iter().enumerate() {
            self.new_id[old as usize] = new as u32;
        }
        self.out_vertices.clear();
        self.out_source.clear();
        for &old in &self.perm {
            let k = self.kept[old as usize] as usize;
            self.out_vertices.push(self.pts[k]);
            self.out_source.push(self.order[k]);
        }
        self.out_fstart.clear();
        self.out_fstart.extend_from_slice(&self.fstart);
        self.out_fidx.clear();
        let new_id = &self.new_id;
        self.out_fidx.extend(self.fidx.iter().map(|&v| new_id[v as usize]));
    }

    /// Whether to take the small clouds' paths at every size (tests only).
    #[inline]
    fn plain(&self) -> bool {
        #[cfg(test)]
        let plain = self.plain;
        #[cfg(not(test))]
        let plain = false;
        plain
    }

    // ---- Quickhull ----

    fn push_facet(&mut self, v: [u32; 3]) -> u32 {
        let [a, b, c] = v.map(|i| self.pts[i as usize]);
        let facet = Facet {
            v,
            nbr: [NONE; 3],
            alive: true,
            visible: false,
            seq: self.created,
            list: NONE,
            plane: OrientFilter::new(a, b, c),
        };
        self.created += 1;
        if let Some(slot) = self.free.pop() {
            // A dead facet's outside list went back to the pool when its points were handed on.
            self.facets[slot as usize] = facet;
            slot
        } else {
            self.facets.push(facet);
            (self.facets.len() - 1) as u32
        }
    }

    /// The float plane of facet `f` (unit normal and offset; `plane_of` of its corners, the
    /// same bits each time): read once per Quickhull iteration and per merge seed, so it is
    /// computed there rather than kept for every facet.
    #[inline]
    fn float_plane(&self, f: u32) -> (DVec3, f64) {
        let [a, b, c] = self.facets[f as usize].v.map(|i| self.pts[i as usize]);
        plane_of(a, b, c)
    }

    /// Appends point `q` to facet `f`'s outside set (taking a list from the pool if it has
    /// none).
    #[inline]
    fn push_outside(&mut self, f: u32, q: u32) {
        let mut l = self.facets[f as usize].list;
        if l == NONE {
            l = match self.spare_lists.pop() {
                Some(l) => l,
                None => {
                    self.lists.push(Vec::new());
                    (self.lists.len() - 1) as u32
                }
            };
            self.facets[f as usize].list = l;
        }
        self.lists[l as usize].push(q);
    }

    /// Whether point `p` is strictly above facet `f` (exact `orient3d`, through the facet's
    /// filtered plane).
    #[inline]
    fn above(&self, f: u32, p: u32) -> bool {
        let facet = &self.facets[f as usize];
        let q = self.pts[p as usize];
        let o = match facet.plane.filter(q) {
            Some(o) => o,
            None => {
                let [a, b, c] = facet.v.map(|i| self.pts[i as usize]);
                orient3d_exact(a, b, c, q)
            }
        };
        o == Orientation::Above
    }

    fn quickhull(&mut self, progress: &mut dyn FnMut(Phase, u64, u64)) -> Result<(), PolycdError> {
        self.start()?;
        self.run(progress)
    }

    /// The initial simplex and outside sets.
    fn start(&mut self) -> Result<(), PolycdError> {
        let pts = &self.pts;
        let n = pts.len();
        self.magnitude = pts
            .iter()
            .fold(0.0f64, |m, p| m.max(p.abs().max_element()))
            .max(f64::MIN_POSITIVE);
        let i0 = 0usize;
        let mut i1 = 0usize;
        let mut best = -1.0;
        for (i, p) in pts.iter().enumerate() {
            let d = (*p - pts[i0]).length_squared();
            if d > best {
                best = d;
                i1 = i;
            }
        }
        let diameter = best.sqrt();
        let axis = pts[i1] - pts[i0];
        let mut i2 = 0usize;
        best = -1.0;
        for (i, p) in pts.iter().enumerate() {
            let d = axis.cross(*p - pts[i0]).length_squared();
            if d > best {
                best = d;
                i2 = i;
            }
        }
        if best <= 0.0 {
            return Err(PolycdError::Collinear);
        }
        let (nrm, off) = plane_of(pts[i0], pts[i1], pts[i2]);
        let mut i3 = usize::MAX;
        let mut thick = -1.0;
        let base = OrientFilter::new(pts[i0], pts[i1], pts[i2]);
        for (i, p) in pts.iter().enumerate() {
            // The three points of the plane are on it (orient3d is exactly zero there).
            if i == i0 || i == i1 || i == i2 || base.orient(pts[i1], pts[i2], *p) == Orientation::On {
                continue;
            }
            let d = (nrm.dot(*p) - off).abs();
            if d > thick {
                thick = d;
                i3 = i;
            }
        }
        if i3 == usize::MAX {
            return Err(PolycdError::Coplanar {
                thickness: 0.0,
                diameter,
            });
        }
        if thick <= FLATNESS_REL * diameter {
            return Err(PolycdError::Coplanar {
                thickness: thick,
                diameter,
            });
        }
        let (a, b, c, d) = (i0 as u32, i1 as u32, i2 as u32, i3 as u32);
        let (b, c) = if strictly_above(pts[i0], pts[i1], pts[i2], pts[i3]) {
            (c, b)
        } else {
            (b, c)
        };
        self.facets.clear();
        if n > SCATTER_FROM {
            // A large cloud: room for the facets at once (at most 2n − 4 are alive; slots
            // are reused), instead of growing by doubling through hundreds of megabytes.
            self.facets.reserve(2 * n);
        }
        self.free.clear();
        self.created = 0;
        self.start_of.clear();
        self.start_of.resize(n, NONE);
        self.start_stamp.clear();
        self.start_stamp.resize(n, 0);
        self.stamp = 0;
        self.outside_at_start = 0;
        // Every list back to the pool, emptied (a failed build may have left points in some).
        for l in &mut self.lists {
            l.clear();
        }
        self.spare_lists.clear();
        self.spare_lists.extend((0..self.lists.len() as u32).rev());
        let tris = [[a, b, c], [a, d, b], [b, d, c], [c, d, a]];
        for t in tris {
            self.push_facet(t);
        }
        // Neighbours: the facet holding the reverse of each edge (12 edges, scanned).
        for f in 0..4 {
            for i in 0..3 {
                let (u, v) = (tris[f][i], tris[f][(i + 1) % 3]);
                let g = (0..4)
                    .find(|&g| (0..3).any(|k| tris[g][k] == v && tris[g][(k + 1) % 3] == u))
                    .ok_or_else(|| internal("initial simplex not closed"))?;
                self.facets[f].nbr[i] = g as u32;
            }
        }
        for i in 0..n as u32 {
            if i == a || i == b || i == c || i == d {
                continue;
            }
            for f in 0..4u32 {
                if self.above(f, i) {
                    self.push_outside(f, i);
                    self.outside_at_start += 1;
                    break;
                }
            }
        }
        Ok(())
    }

    /// The Quickhull iterations; `progress` gets `(Phase::Hull, settled points, all points)`.
    fn run(&mut self, progress: &mut dyn FnMut(Phase, u64, u64)) -> Result<(), PolycdError> {
        let total = self.pts.len() as u64;
        // Points not (or no longer) in any outside set: hull vertices or found inside (the
        // ones outside no facet of the simplex; then counted as they settle).
        let mut settled = total - self.outside_at_start;
        progress(Phase::Hull, settled.min(total), total);
        self.stack.clear();
        for f in 0..4u32 {
            if self.facets[f as usize].list != NONE {
                self.stack.push((f, self.facets[f as usize].seq));
            }
        }
        let max_iterations = self.pts.len() + 1;
        let mut iterations = 0usize;
        while let Some((f, seq)) = self.stack.pop() {
            let facet = &self.facets[f as usize];
            if facet.seq != seq || !facet.alive || facet.list == NONE {
                continue;
            }
            iterations += 1;
            if iterations > max_iterations {
                return Err(internal("quickhull exceeded its iteration bound"));
            }
            if iterations.is_multiple_of(PROGRESS_STRIDE as usize) {
                progress(Phase::Hull, settled.min(total), total);
            }
            // Farthest outside point (float: only a heuristic choice; the first of equals).
            let list = &self.lists[facet.list as usize];
            let (n, off) = self.float_plane(f);
            let mut p = list[0];
            let mut best = f64::NEG_INFINITY;
            for &q in list {
                let d = n.dot(self.pts[q as usize]) - off;
                if d > best {
                    best = d;
                    p = q;
                }
            }
            // Visible region by DFS over exact visibility.
            self.visible.clear();
            self.horizon.clear();
            self.dfs.clear();
            self.facets[f as usize].visible = true;
            self.visible.push(f);
            self.dfs.push(f);
            while let Some(g) = self.dfs.pop() {
                for i in 0..3 {
                    let h = self.facets[g as usize].nbr[i];
                    if self.facets[h as usize].visible {
                        continue;
                    }
                    if self.above(h, p) {
                        self.facets[h as usize].visible = true;
                        self.visible.push(h);
                        self.dfs.push(h);
                    } else {
                        let v = self.facets[g as usize].v;
                        self.horizon.push((v[i], v[(i + 1) % 3], h));
                    }
                }
            }
            // New cone facets.
            self.stamp += 1;
            let stamp = self.stamp;
            self.new_facets.clear();
            for k in 0..self.horizon.len() {
                let (a, b, beyond) = self.horizon[k];
                let nf = self.push_facet([a, b, p]);
                self.facets[nf as usize].nbr[0] = beyond;
                let bf = &mut self.facets[beyond as usize];
                let mut linked = false;
                for i in 0..3 {
                    if bf.v[i] == b && bf.v[(i + 1) % 3] == a {
                        bf.nbr[i] = nf;
                        linked = true;
                    }
                }
                if !linked || self.start_stamp[a as usize] == stamp {
                    return Err(internal("horizon is not a simple cycle"));
                }
                self.start_stamp[a as usize] = stamp;
                self.start_of[a as usize] = nf;
                self.new_facets.push(nf);
            }
            for k in 0..self.new_facets.len() {
                let nf = self.new_facets[k];
                let b = self.facets[nf as usize].v[1];
                if self.start_stamp[b as usize] != stamp {
                    return Err(internal("horizon not closed"));
                }
                let next = self.start_of[b as usize];
                self.facets[nf as usize].nbr[1] = next;
                self.facets[next as usize].nbr[2] = nf;
            }
            // Hand outside points to the new facets, in push order (a point above no new
            // facet is inside the new hull and is dropped for good).
            for k in 0..self.visible.len() {
                let g = self.visible[k];
                self.facets[g as usize].alive = false;
                let l = self.facets[g as usize].list;
                if l == NONE {
                    continue;
                }
                self.facets[g as usize].list = NONE;
                // Taken out of the pool while its points are handed on, then put back emptied
                // (with its capacity) for the next facet that needs a list.
                let mut list = std::mem::take(&mut self.lists[l as usize]);
                for &q in &list {
                    let mut assigned = false;
                    if q != p {
                        for j in 0..self.new_facets.len() {
                            let nf = self.new_facets[j];
                            if self.above(nf, q) {
                                self.push_outside(nf, q);
                                assigned = true;
                                break;
                            }
                        }
                    }
                    settled += u64::from(!assigned);
                }
                list.clear();
                self.lists[l as usize] = list;
                self.spare_lists.push(l);
            }
            for k in 0..self.new_facets.len() {
                let nf = self.new_facets[k];
                if self.facets[nf as usize].list != NONE {
                    self.stack.push((nf, self.facets[nf as usize].seq));
                }
            }
            self.free.extend_from_slice(&self.visible);
        }
        progress(Phase::Hull, total, total);
        Ok(())
    }

    /// Points on at least one alive facet.
    fn vertex_count(&mut self) -> usize {
        self.done.clear();
        self.done.resize(self.pts.len(), false);
        for f in self.facets.iter().filter(|f| f.alive) {
            for &v in &f.v {
                self.done[v as usize] = true;
            }
        }
        self.done.iter().filter(|&&s| s).count()
    }

    // ---- The merge ----

    /// Faces into `fstart`/`fidx` over `kept` (extreme points, indices into `pts`).
    fn merge(&mut self, tol: f64) -> Result<(), PolycdError> {
        self.compact_facets()?;
        let labels = self.group_facets(tol);
        self.extreme_vertices();
        self.boundary_loops(labels)
    }

    fn compact_facets(&mut self) -> Result<(), PolycdError> {
        // `seq` numbers the facets created since `start`, each once (`seq < created`): one
        // slot per number puts the alive facets in creation order without a sort.
        self.by_seq.clear();
        self.by_seq.resize(self.created as usize, NONE);
        for (i, f) in self.facets.iter().enumerate() {
            if f.alive {
                let slot = self
                    .by_seq
                    .get_mut(f.seq as usize)
                    .ok_or_else(|| internal("a facet's creation number is out of range"))?;
                *slot = i as u32;
            }
        }
        self.by_seq.retain(|&f| f != NONE);
        self.compact_of.clear();
        self.compact_of.resize(self.facets.len(), NONE);
        for (k, &f) in self.by_seq.iter().enumerate() {
            self.compact_of[f as usize] = k as u32;
        }
        self.tri.clear();
        for &f in &self.by_seq {
            let facet = &self.facets[f as usize];
            let nbr = facet
                .nbr
                .map(|h| self.compact_of.get(h as usize).copied().unwrap_or(NONE));
            if nbr.contains(&NONE) {
                return Err(internal("an alive facet has a dead neighbour"));
            }
            self.tri.push(Compact { v: facet.v, nbr });
        }
        Ok(())
    }

    /// The float plane of seed `s` (a compact facet) where the tolerant test needs it.
    #[inline]
    fn seed_plane(&self, s: u32, tol: f64) -> (DVec3, f64) {
        if tol > 0.0 {
            self.float_plane(self.by_seq[s as usize])
        } else {
            (DVec3::ZERO, 0.0)
        }
    }

    /// Whether facet `h`'s corners lie in seed `s`'s plane: each is a corner of the seed,
    /// within `tol` of its float plane `(normal, offset)` (from [`seed_plane`](Self::seed_plane)),
    /// or exactly on it.
    fn in_plane_of(&self, s: u32, h: u32, tol: f64, (normal, offset): (DVec3, f64)) -> bool {
        let seed = &self.facets[self.by_seq[s as usize] as usize];
        self.tri[h as usize].v.iter().all(|&v| {
            let p = self.pts[v as usize];
            seed.v.contains(&v)
                || (tol > 0.0 && (normal.dot(p) - offset).abs() <= tol)
                || match seed.plane.filter(p) {
                    Some(_) => false,
                    None => {
                        let [a, b, c] = seed.v.map(|i| self.pts[i as usize]);
                        orient3d_exact(a, b, c, p) == Orientation::On
                    }
                }
        })
    }

    /// Each facet's face, seeds by decreasing area (ties in creation order); returns the
    /// labels' bound (the number of faces, or of facets where faces are labelled by seed).
    fn group_facets(&mut self, tol: f64) -> u32 {
        // Large hulls: each facet's in-plane neighbours as a seed, found in one pass in
        // creation order (reads close in memory); a seed that takes none of its neighbours —
        // every facet of a cloud in general position — then reads only its group entry
        // instead of its neighbours at random. The growth would take none of them either (the
        // tests are pure functions of the points), so the faces are the same.
        let shortcut = self.tri.len() > SCATTER_FROM && !self.plain();
        self.takes.clear();
        if shortcut {
            for f in 0..self.tri.len() as u32 {
                let mut mask = 0u8;
                let plane = self.seed_plane(f, tol);
                for i in 0..3 {
                    if self.in_plane_of(f, self.tri[f as usize].nbr[i], tol, plane) {
                        mask |= 1 << i;
                    }
                }
                self.takes.push(mask);
            }
        }
        if shortcut && self.takes.iter().all(|&m| m == 0) {
            // No facet takes a neighbour: every facet is a face by itself, labelled by its
            // own number, whatever the seed order — what the loop below gives — so the areas
            // and their sort are skipped (every cloud in general position: the spheres).
            self.group.clear();
            self.group.extend(0..self.tri.len() as u32);
            return self.tri.len() as u32;
        }
        let pts = &self.pts;
        self.seeds.clear();
        self.seeds.extend(self.tri.iter().enumerate().map(|(f, t)| {
            let v = t.v;
            let area = (pts[v[1] as usize] - pts[v[0] as usize])
                .cross(pts[v[2] as usize] - pts[v[0] as usize])
                .length();
            // `f64::total_cmp`'s key: the same order as comparing the areas with it.
            let bits = area.to_bits() as i64;
            let key = bits ^ ((((bits >> 63) as u64) >> 1) as i64);
            (std::cmp::Reverse(key), f as u32)
        }));
        self.seeds.sort_unstable();
        self.group.clear();
        self.group.resize(self.tri.len(), NONE);
        let mut ngroups = 0u32;
        for k in 0..self.seeds.len() {
            let s = self.seeds[k].1;
            if self.group[s as usize] != NONE {
                continue;
            }
            // Large hulls label a face by its seed facet's number, so the boundary walk's
            // per-face tables are read in facet order (a count in seed order is random there);
            // labels only tell faces apart, so the faces are the same.
            let gid = if shortcut { s } else { ngroups };
            ngroups += 1;
            self.group[s as usize] = gid;
            if shortcut && self.takes[s as usize] == 0 {
                continue;
            }
            let plane = self.seed_plane(s, tol);
            self.queue.clear();
            self.queue.push(s);
            while let Some(f) = self.queue.pop() {
                for i in 0..3 {
                    let h = self.tri[f as usize].nbr[i];
                    if self.group[h as usize] != NONE {
                        continue;
                    }
                    if self.in_plane_of(s, h, tol, plane) {
                        self.group[h as usize] = gid;
                        self.queue.push(h);
                    }
                }
            }
        }
        if shortcut {
            self.tri.len() as u32
        } else {
            ngroups
        }
    }

    /// The points on at least three faces, in point order, and each point's new index.
    fn extreme_vertices(&mut self) {
        let npts = self.pts.len();
        self.vertex_groups.clear();
        self.vertex_groups.resize(npts, [NONE; 3]);
        for (f, t) in self.tri.iter().enumerate() {
            let g = self.group[f];
            for &v in &t.v {
                let e = &mut self.vertex_groups[v as usize];
                if !e.contains(&g) {
                    if let Some(slot) = e.iter_mut().find(|x| **x == NONE) {
                        *slot = g;
                    }
                }
            }
        }
        self.new_index.clear();
        self.new_index.resize(npts, NONE);
        self.kept.clear();
        for v in 0..npts as u32 {
            if self.vertex_groups[v as usize][2] != NONE {
                self.new_index[v as usize] = self.kept.len() as u32;
                self.kept.push(v);
            }
        }
    }

    /// Each face's boundary loop over the extreme points, faces in the order of their first
    /// facet; face labels are below `labels`.
    fn boundary_loops(&mut self, labels: u32) -> Result<(), PolycdError> {
        let nf = self.tri.len();
        self.first_boundary.clear();
        self.first_boundary.resize(labels as usize, (NONE, NONE));
        for h in 0..nf {
            let g = self.group[h] as usize;
            if self.first_boundary[g].0 != NONE {
                continue;
            }
            for i in 0..3 {
                if self.group[self.tri[h].nbr[i] as usize] as usize != g {
                    self.first_boundary[g] = (h as u32, i as u32);
                    break;
                }
            }
        }
        self.done.clear();
        self.done.resize(labels as usize, false);
        self.fstart.clear();
        self.fidx.clear();
        self.fstart.push(0);
        for f in 0..nf {
            let g = self.group[f];
            if self.done[g as usize] {
                continue;
            }
            self.done[g as usize] = true;
            let (sf, si) = self.first_boundary[g as usize];
            if sf == NONE {
                return Err(internal("a face group has no boundary"));
            }
            let before = self.fidx.len();
            let (mut cf, mut ci) = (sf, si as usize);
            let limit = 3 * nf + 3;
            let mut steps = 0usize;
            loop {
                steps += 1;
                if steps > limit {
                    return Err(internal("face boundary walk did not close"));
                }
                let v = self.tri[cf as usize].v[ci];
                let nv = self.new_index[v as usize];
                if nv != NONE {
                    self.fidx.push(nv);
                }
                let mut nfc = cf;
                let mut ni = (ci + 1) % 3;
                let mut guard = 0usize;
                while self.group[self.tri[nfc as usize].nbr[ni] as usize] == g {
                    guard += 1;
                    if guard > nf {
                        return Err(internal("face rotation did not terminate"));
                    }
                    let across = self.tri[nfc as usize].nbr[ni];
                    let start_v = self.tri[nfc as usize].v[ni];
                    let av = self.tri[across as usize].v;
                    let k = (0..3)
                        .find(|&k| av[k] == start_v)
                        .ok_or_else(|| internal("broken facet adjacency"))?;
                    nfc = across;
                    ni = k;
                }
                cf = nfc;
                ci = ni;
                if cf == sf && ci == si as usize {
                    break;
                }
            }
            if self.fidx.len() - before < 3 {
                return Err(internal("a merged face has fewer than three corners"));
            }
            self.fstart.push(self.fidx.len() as u32);
        }
        Ok(())
    }

    /// The closure check of the merged faces: every face has ≥ 3 corners over
    /// the kept vertices, every directed edge appears once with its reverse once, and
    /// V − E + F = 2.
    fn faces_are_closed(&mut self) -> bool {
        let nv = self.kept.len();
        let nfaces = self.fstart.len() - 1;
        self.estart.clear();
        self.estart.resize(nv + 1, 0);
        for k in 0..nfaces {
            let f = &self.fidx[self.fstart[k] as usize..self.fstart[k + 1] as usize];
            if f.len() < 3 {
                return false;
            }
            for (j, &a) in f.iter().enumerate() {
                let b = f[(j + 1) % f.len()];
                if a as usize >= nv || b as usize >= nv || a == b {
                    return false;
                }
                self.estart[a as usize + 1] += 1;
            }
        }
        for v in 0..nv {
            self.estart[v + 1] += self.estart[v];
        }
        self.efill.clear();
        self.efill.extend_from_slice(&self.estart);
        self.etargets.clear();
        self.etargets.resize(self.estart[nv] as usize, 0);
        for k in 0..nfaces {
            let f = &self.fidx[self.fstart[k] as usize..self.fstart[k + 1] as usize];
            for (j, &a) in f.iter().enumerate() {
                let slot = &mut self.efill[a as usize];
                self.etargets[*slot as usize] = f[(j + 1) % f.len()];
                *slot += 1;
            }
        }
        for v in 0..nv {
            let list = &mut self.etargets[self.estart[v] as usize..self.estart[v + 1] as usize];
            list.sort_unstable();
            if list.windows(2).any(|w| w[0] == w[1]) {
                return false;
            }
        }
        for a in 0..nv {
            for &b in &self.etargets[self.estart[a] as usize..self.estart[a + 1] as usize] {
                let back = &self.etargets[self.estart[b as usize] as usize..self.estart[b as usize + 1] as usize];
                if back.binary_search(&(a as u32)).is_err() {
                    return false;
                }
            }
        }
        let directed = self.etargets.len();
        nv as i64 - (directed / 2) as i64 + nfaces as i64 == 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The large hulls' paths (in-plane masks, faces labelled by seed facet, renumbering by
    /// scatter) give exactly the small clouds' paths' hull: clouds in a thin shell, on a sphere,
    /// far from the origin, tiny, and spheres with flattened caps whose coplanar facets merge.
    #[test]
    fn large_paths_give_the_small_paths_hull() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2929);
        let mut merged = 0;
        for (n, kind, shift, scale) in [
            (6000usize, 0u8, 0.0, 1.0),
            (3000, 1, 0.0, 1.0),
            (3000, 1, 1e7, 1.0),
            (3000, 1, 0.0, 1e-9),
            (10000, 2, 0.0, 1.0),
            (10000, 2, 3.5, 1e-3),
        ] {
            let pts: Vec<DVec3> = (0..n)
                .map(|_| {
                    let p = DVec3::new(
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                    );
                    let p = match kind {
                        // A thin shell (most points extreme, not all): a cloud uniform in
                        // a ball or cube of this size has only ~10² extreme points, too few
                        // for the large paths.
                        0 => p.normalize() * rng.random_range(0.999..1.0),
                        1 => p.normalize(),
                        // A sphere with flattened caps: coplanar facets merge there.
                        _ => {
                            let q = p.normalize();
                            DVec3::new(q.x, q.y, q.z.clamp(-0.5, 0.5))
                        }
                    };
                    p * scale + DVec3::splat(shift)
                })
                .collect();
            let mut large = HullScratch::new();
            large.build(&pts).unwrap();
            let mut plain = HullScratch::new();
            plain.plain = true;
            plain.build(&pts).unwrap();
            assert!(
                large.tri.len() > SCATTER_FROM,
                "kind {kind}: {} facets",
                large.tri.len()
            );
            let bits = |h: &HullScratch| -> Vec<[u64; 3]> {
                h.vertices()
                    .iter()
                    .map(|v| [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()])
                    .collect()
            };
            assert_eq!(bits(&large), bits(&plain), "kind {kind}");
            assert_eq!(large.source(), plain.source(), "kind {kind}");
            assert_eq!(large.to_faces().faces, plain.to_faces().faces, "kind {kind}");
            merged += usize::from(large.face_count() < large.tri.len());
        }
        assert!(merged >= 2, "{merged}");
    }
}
