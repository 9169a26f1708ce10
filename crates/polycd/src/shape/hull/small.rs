//! The hull of many small clouds, one after another, without allocating: the same hull as
//! [`convex_hull`] (same vertices in the same order, same faces, same
//! loops, same errors), for callers that build thousands of hulls of 10–100 points (the mesh
//! decomposition's acceptance checks and hull-tree nodes).
//!
//! Paper and outline: Quickhull (Barber, Dobkin, Huhdanpaa 1996), step for step as the parent
//! module runs it — the same sorted, de-duplicated points, the same initial simplex, the same
//! farthest-point choices, the same visibility tests (exact `orient3d` from
//! `core/predicates.rs`), facets created in the same order, then the same grouping of facets
//! into faces, the same extreme vertices, boundary loops, closure check and merge rounds.
//! Only the bookkeeping differs, and none of it decides anything:
//! - every buffer lives in a [`HullScratch`] reused from call to call (no allocation once it
//!   has grown to the largest cloud; the parent allocates a few dozen vectors per hull);
//! - a facet's outside set is a linked list through one `next` entry per point (a point is in
//!   at most one outside set), kept in push order, so scans see the points in the parent's
//!   order;
//! - the initial simplex's neighbours are found by scanning its 12 edges, the horizon's by
//!   one slot per point (stamped), instead of hash maps;
//! - a seed facet's in-plane neighbours are tested while its face grows, not in a pass over
//!   every facet beforehand: the parent's pre-pass only skips the growth of a seed none of
//!   whose neighbours is in its plane, and the growth would take none of them either (the
//!   tests are pure functions of the points), so the faces are the same;
//! - each facet keeps its plane as a [`OrientPlane`] (cross product and absolute products of
//!   its edges), so a visibility or in-plane test is one filtered dot product; the filter
//!   answers only where its proven error bound makes the sign certain and the exact
//!   `orient3d` decides the rest, so every test returns the parent's sign;
//! - the merge puts the alive facets in creation order through one slot per creation number
//!   instead of sorting them, and sorts its seeds by integer keys equivalent to the parent's
//!   `total_cmp` order.
//!
//! Invariants and termination: those of the parent (at most `n + 1` Quickhull iterations, at
//! most `MERGE_ROUNDS` merge rounds, boundary walks bounded by the facet count). Departures:
//! clouds the parent scales into the safe band (coordinates beyond 2^±120), and any error,
//! are handed to [`convex_hull`] itself, so the answer is the parent's
//! by construction there.
//!
//! Cost: the parent's asymptotics (O(n log h) expected Quickhull, O(h log h) merge); measured
//! on the decomposition's clouds in BENCHMARKS.md, "Mesh decomposition".

use super::{convex_hull, plane_of, HullFaces, MERGE_ROUNDS, NONE};
use crate::core::error::PolycdError;
use crate::core::math::DVec3;
use crate::core::predicates::{strictly_above, OrientPlane, Orientation};
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
    /// Outside set: first and last point of its list through `HullScratch::next`.
    head: u32,
    tail: u32,
    normal: DVec3,
    offset: f64,
    /// The facet's plane for exact visibility tests (`orient3d` behind a per-facet filter).
    plane: OrientPlane,
}

/// A facet as the merge reads it (indices into the compact table, in creation order).
#[derive(Clone, Copy, Debug)]
struct Compact {
    v: [u32; 3],
    nbr: [u32; 3],
    normal: DVec3,
    offset: f64,
    plane: OrientPlane,
}

/// Reusable buffers for [`HullScratch::build`]: build many hulls, allocate once.
///
/// After a successful build the hull is read with [`vertices`](Self::vertices),
/// [`source`](Self::source) and [`face`](Self::face) (or copied out with
/// [`to_faces`](Self::to_faces)); it is exactly what [`convex_hull`]
/// returns for the same points.
#[derive(Debug, Default)]
pub struct HullScratch {
    // The cloud being hulled (sorted, de-duplicated; reduced by the merge rounds).
    keyed: Vec<([i64; 3], u32)>,
    order: Vec<u32>,
    pts: Vec<DVec3>,
    // Quickhull.
    facets: Vec<Facet>,
    free: Vec<u32>,
    created: u64,
    magnitude: f64,
    next: Vec<u32>,
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
    // Merge.
    /// The alive facets in creation order (a slot per creation number, then compacted).
    by_seq: Vec<u32>,
    compact_of: Vec<u32>,
    tri: Vec<Compact>,
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
    new_id: Vec<u32>,
    out_vertices: Vec<DVec3>,
    out_source: Vec<u32>,
    out_fstart: Vec<u32>,
    out_fidx: Vec<u32>,
    /// Builds handed to `convex_hull` (scaled clouds, errors).
    delegated: u64,
}

/// Why the fast path stopped: hand the cloud to the parent.
struct Delegate;

impl HullScratch {
    /// Empty buffers.
    pub fn new() -> HullScratch {
        HullScratch::default()
    }

    /// Computes the hull of `points`: on success the result is read through the accessors;
    /// the same hull, or the same error, as [`convex_hull`].
    pub fn build(&mut self, points: &[DVec3]) -> Result<(), PolycdError> {
        if self.fast(points).is_ok() {
            return Ok(());
        }
        self.delegated += 1;
        let h = convex_hull(points)?;
        self.out_vertices.clear();
        self.out_vertices.extend_from_slice(&h.vertices);
        self.out_source.clear();
        self.out_source.extend_from_slice(&h.source);
        self.out_fstart.clear();
        self.out_fidx.clear();
        self.out_fstart.push(0);
        for f in &h.faces {
            self.out_fidx.extend_from_slice(f);
            self.out_fstart.push(self.out_fidx.len() as u32);
        }
        Ok(())
    }

    /// How many builds so far were handed to [`convex_hull`] (clouds it
    /// would scale into the safe band, and clouds it refuses).
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

    /// The last hull built, as [`convex_hull`] returns it.
    pub fn to_faces(&self) -> HullFaces {
        HullFaces {
            vertices: self.out_vertices.clone(),
            source: self.out_source.clone(),
            faces: (0..self.face_count()).map(|k| self.face(k).to_vec()).collect(),
        }
    }

    /// The parent's `convex_hull`, step for step, or `Delegate` where it would scale the
    /// cloud or fail.
    fn fast(&mut self, points: &[DVec3]) -> Result<(), Delegate> {
        let mut m = 0.0f64;
        for p in points {
            if !p.is_finite() {
                return Err(Delegate);
            }
            m = m.max(p.abs().max_element());
        }
        if m > crate::core::tolerance::MAX_COORDINATE || crate::core::math::pow2_normaliser(m).is_some() {
            return Err(Delegate);
        }
        // Exact duplicates removed, keeping the first index of each (the parent's order).
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
        if self.order.len() < 4 {
            return Err(Delegate);
        }
        self.pts.clear();
        self.pts.extend(self.order.iter().map(|&i| points[i as usize]));
        for _round in 0..MERGE_ROUNDS {
            self.quickhull()?;
            let tol = COPLANAR_REL * self.magnitude;
            let merged = self.merge(tol);
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
        self.quickhull()?;
        self.merge(0.0)?;
        self.finish();
        Ok(())
    }

    /// The result over `kept` renumbered in input order (the parent's `in_input_order`).
    fn finish(&mut self) {
        let nv = self.kept.len();
        self.perm.clear();
        self.perm.extend(0..nv as u32);
        let (kept, order) = (&self.kept, &self.order);
        self.perm.sort_unstable_by_key(|&i| order[kept[i as usize] as usize]);
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

    // ---- Quickhull (the parent's `Quickhull::new` and `run`) ----

    fn push_facet(&mut self, v: [u32; 3]) -> u32 {
        let [a, b, c] = v.map(|i| self.pts[i as usize]);
        let (normal, offset) = plane_of(a, b, c);
        let facet = Facet {
            v,
            nbr: [NONE; 3],
            alive: true,
            visible: false,
            seq: self.created,
            head: NONE,
            tail: NONE,
            normal,
            offset,
            plane: OrientPlane::new(a, b, c),
        };
        self.created += 1;
        if let Some(slot) = self.free.pop() {
            self.facets[slot as usize] = facet;
            slot
        } else {
            self.facets.push(facet);
            (self.facets.len() - 1) as u32
        }
    }

    /// Whether point `p` is strictly above facet `f` (exact `orient3d`, through the facet's
    /// filtered plane).
    fn above(&self, f: u32, p: u32) -> bool {
        self.facets[f as usize].plane.strictly_above(self.pts[p as usize])
    }

    /// Appends point `p` to facet `f`'s outside set.
    fn push_outside(&mut self, f: u32, p: u32) {
        self.next[p as usize] = NONE;
        let facet = &mut self.facets[f as usize];
        if facet.tail == NONE {
            facet.head = p;
        } else {
            self.next[facet.tail as usize] = p;
        }
        facet.tail = p;
    }

    fn quickhull(&mut self) -> Result<(), Delegate> {
        self.start()?;
        self.run()
    }

    /// The initial simplex and outside sets (the parent's `Quickhull::new`).
    fn start(&mut self) -> Result<(), Delegate> {
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
            return Err(Delegate);
        }
        let (nrm, off) = plane_of(pts[i0], pts[i1], pts[i2]);
        let mut i3 = usize::MAX;
        let mut thick = -1.0;
        let base = OrientPlane::new(pts[i0], pts[i1], pts[i2]);
        for (i, p) in pts.iter().enumerate() {
            // The three points of the plane are on it (orient3d is exactly zero there).
            if i == i0 || i == i1 || i == i2 || base.orient(*p) == Orientation::On {
                continue;
            }
            let d = (nrm.dot(*p) - off).abs();
            if d > thick {
                thick = d;
                i3 = i;
            }
        }
        if i3 == usize::MAX || thick <= FLATNESS_REL * diameter {
            return Err(Delegate);
        }
        let (a, b, c, d) = (i0 as u32, i1 as u32, i2 as u32, i3 as u32);
        let (b, c) = if strictly_above(pts[i0], pts[i1], pts[i2], pts[i3]) {
            (c, b)
        } else {
            (b, c)
        };
        self.facets.clear();
        self.free.clear();
        self.created = 0;
        self.next.clear();
        self.next.resize(n, NONE);
        self.start_of.clear();
        self.start_of.resize(n, NONE);
        self.start_stamp.clear();
        self.start_stamp.resize(n, 0);
        self.stamp = 0;
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
                    .ok_or(Delegate)?;
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
                    break;
                }
            }
        }
        Ok(())
    }

    /// The Quickhull iterations (the parent's `run`).
    fn run(&mut self) -> Result<(), Delegate> {
        self.stack.clear();
        for f in 0..4u32 {
            if self.facets[f as usize].head != NONE {
                self.stack.push((f, self.facets[f as usize].seq));
            }
        }
        let max_iterations = self.pts.len() + 1;
        let mut iterations = 0usize;
        while let Some((f, seq)) = self.stack.pop() {
            let facet = &self.facets[f as usize];
            if facet.seq != seq || !facet.alive || facet.head == NONE {
                continue;
            }
            iterations += 1;
            if iterations > max_iterations {
                return Err(Delegate);
            }
            // Farthest outside point (float: only a heuristic choice; the first of equals).
            let (n, off) = (facet.normal, facet.offset);
            let mut p = facet.head;
            let mut best = f64::NEG_INFINITY;
            let mut q = facet.head;
            while q != NONE {
                let d = n.dot(self.pts[q as usize]) - off;
                if d > best {
                    best = d;
                    p = q;
                }
                q = self.next[q as usize];
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
                    return Err(Delegate);
                }
                self.start_stamp[a as usize] = stamp;
                self.start_of[a as usize] = nf;
                self.new_facets.push(nf);
            }
            for k in 0..self.new_facets.len() {
                let nf = self.new_facets[k];
                let b = self.facets[nf as usize].v[1];
                if self.start_stamp[b as usize] != stamp {
                    return Err(Delegate);
                }
                let next = self.start_of[b as usize];
                self.facets[nf as usize].nbr[1] = next;
                self.facets[next as usize].nbr[2] = nf;
            }
            // Hand outside points to the new facets, in the parent's order.
            for k in 0..self.visible.len() {
                let g = self.visible[k];
                let mut q = self.facets[g as usize].head;
                self.facets[g as usize].head = NONE;
                self.facets[g as usize].tail = NONE;
                self.facets[g as usize].alive = false;
                while q != NONE {
                    let after = self.next[q as usize];
                    if q != p {
                        for j in 0..self.new_facets.len() {
                            let nf = self.new_facets[j];
                            if self.above(nf, q) {
                                self.push_outside(nf, q);
                                break;
                            }
                        }
                    }
                    q = after;
                }
            }
            for k in 0..self.new_facets.len() {
                let nf = self.new_facets[k];
                if self.facets[nf as usize].head != NONE {
                    self.stack.push((nf, self.facets[nf as usize].seq));
                }
            }
            self.free.extend_from_slice(&self.visible);
        }
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

    // ---- The merge (the parent's `merge.rs`) ----

    /// Faces into `fstart`/`fidx` over `kept` (extreme points, indices into `pts`).
    fn merge(&mut self, tol: f64) -> Result<(), Delegate> {
        self.compact_facets()?;
        let ngroups = self.group_facets(tol);
        self.extreme_vertices();
        self.boundary_loops(ngroups)
    }

    fn compact_facets(&mut self) -> Result<(), Delegate> {
        // `seq` numbers the facets created since `start`, each once (`seq < created`): one
        // slot per number puts the alive facets in creation order without a sort.
        self.by_seq.clear();
        self.by_seq.resize(self.created as usize, NONE);
        for (i, f) in self.facets.iter().enumerate() {
            if f.alive {
                let slot = self.by_seq.get_mut(f.seq as usize).ok_or(Delegate)?;
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
                return Err(Delegate);
            }
            self.tri.push(Compact {
                v: facet.v,
                nbr,
                normal: facet.normal,
                offset: facet.offset,
                plane: facet.plane,
            });
        }
        Ok(())
    }

    /// Whether facet `h`'s corners lie in seed `s`'s plane (the parent's `SeedPlane::takes`).
    fn in_plane_of(&self, s: u32, h: u32, tol: f64) -> bool {
        let seed = &self.tri[s as usize];
        self.tri[h as usize].v.iter().all(|&v| {
            let p = self.pts[v as usize];
            seed.v.contains(&v)
                || (tol > 0.0 && (seed.normal.dot(p) - seed.offset).abs() <= tol)
                || seed.plane.orient(p) == Orientation::On
        })
    }

    /// Each facet's face, seeds by decreasing area (ties in creation order); the number of
    /// faces.
    fn group_facets(&mut self, tol: f64) -> u32 {
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
            let gid = ngroups;
            ngroups += 1;
            self.group[s as usize] = gid;
            self.queue.clear();
            self.queue.push(s);
            while let Some(f) = self.queue.pop() {
                for i in 0..3 {
                    let h = self.tri[f as usize].nbr[i];
                    if self.group[h as usize] != NONE {
                        continue;
                    }
                    if self.in_plane_of(s, h, tol) {
                        self.group[h as usize] = gid;
                        self.queue.push(h);
                    }
                }
            }
        }
        ngroups
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
    /// facet (the parent's `boundary_loops`).
    fn boundary_loops(&mut self, ngroups: u32) -> Result<(), Delegate> {
        let nf = self.tri.len();
        self.first_boundary.clear();
        self.first_boundary.resize(ngroups as usize, (NONE, NONE));
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
        self.done.resize(ngroups as usize, false);
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
                return Err(Delegate);
            }
            let before = self.fidx.len();
            let (mut cf, mut ci) = (sf, si as usize);
            let limit = 3 * nf + 3;
            let mut steps = 0usize;
            loop {
                steps += 1;
                if steps > limit {
                    return Err(Delegate);
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
                        return Err(Delegate);
                    }
                    let across = self.tri[nfc as usize].nbr[ni];
                    let start_v = self.tri[nfc as usize].v[ni];
                    let av = self.tri[across as usize].v;
                    let k = (0..3).find(|&k| av[k] == start_v).ok_or(Delegate)?;
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
                return Err(Delegate);
            }
            self.fstart.push(self.fidx.len() as u32);
        }
        Ok(())
    }

    /// The parent's `faces_are_closed` on the merged faces: every face has ≥ 3 corners over
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
