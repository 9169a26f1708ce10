//! Convex surface decomposition (FAST §3.3): greedy convex patches whose hulls stay inside
//! the solid.
//!
//! # Phases and their cost (n triangles, P ≤ [`MAX_PATCH`] triangles per patch, f faces of a
//! patch's hull, k mesh triangles whose boxes meet the hull's box)
//! 1. Adjacency across edges (hash map of directed edges, `TriMesh::adjacency`) and a box
//!    tree over the triangles (median splits): O(n) expected + O(n log n).
//! 2. Growth (`Growth::grow`): from each unassigned seed (in triangle order),
//!    breadth-first across edges, a neighbour joins while the patch stays convex within
//!    [`COPLANAR_MERGE_REL`] × scale: its new vertices are checked against the patch's
//!    triangle planes and the patch's vertices against its plane, O(P) per candidate, O(P²)
//!    per patch and round.
//! 3. Acceptance (`Ctx::piece_points`): the patch's piece (the exact hull of its vertices; a
//!    patch flat within the merge tolerance gets one extra point behind it) must stay inside
//!    the solid: every hull face in the plane of patch triangles is covered by mesh triangles
//!    of that plane (`Ctx::covers`: the patch's own, else any, clipped to the face: a patch
//!    not convex *within* its plane would span a notch no triangle enters), and no triangle,
//!    found through the box tree, reaches more than [`CCD_PIECE_REL`] × scale into it
//!    (`Ctx::inside`). The whole patch is tried first; if it fails, the longest passing
//!    prefix of the growth order (every prefix is connected) is found by an exponential
//!    search up from the verified prefix and a bisection of its last gap, and the rest
//!    return to the pool (at most `GROW_ROUNDS` rounds per piece). One check costs a
//!    hull, O(P log P); the cover sums, O(f·P) at worst — runs of 8 and 64 patch triangles
//!    whose balls lie below a face's plane are skipped, which removes most of it on strongly
//!    curved patches but little on gently curved ones; and the inside test, O(log n + k·f) at
//!    worst (one walk of the box tree that stops at the first triangle reaching in and skips
//!    subtrees wholly above the last culling plane; a triangle is usually culled by the
//!    first plane tried). A refused patch costs O(log P) checks per round. The inside test runs first (the same `&&`, so the same
//!    pieces): on the 11 520-triangle knot it made every refusal, so the cover sums now run
//!    only on pieces that are kept. The check's buffers (points, planes, polygons) are reused.
//! 4. Only the accepted pieces' hull points are kept ([`HullNode`]; polyhedra and tables are
//!    built on first use by a query).
//!
//! Measured (callgrind, `polycd decompose torus-knot:2,3:144,40`: 11 520 triangles, 1 881
//! pieces; BENCHMARKS.md "Mesh decomposition" has the per-phase table): 3 757 checks, 2.0
//! per piece; the prefix searches of the ≈ 110 refused patches (hundreds of triangles each)
//! are 1 763 of them and 478 M of the 1 258 M instructions (535 M for 1 477 checks with
//! plain bisection); the Quickhulls of the checks (10 to several hundred points, Quickhull
//! with float-filtered exact predicates, facet planes, the facet merge) are about two
//! thirds of the decomposition, the
//! inside tests and cover sums a fifth, the growth 5 %. No phase is quadratic in n. The hulls
//! are built by `shape::hull::small::HullScratch` (the same hulls as `convex_hull`, over
//! reused buffers, each facet's visibility test one filtered dot product: 814 M instructions
//! for all hulls of that run, checks and hull tree, of 1 258 M).
//!
//! Deterministic: seeds and neighbours in a fixed order, no hash-order dependence.

use super::tree::{bounds, HullNode, NONE};
use super::trimesh::TriMesh;
use super::MAX_PATCH;
use crate::core::error::{MeshDefect, PolycdError};
use crate::core::math::DVec3;
use crate::core::tolerance::{BALL_ROUNDING, BOX_ROUNDING, CCD_PIECE_REL, COPLANAR_MERGE_REL, COVER_SLACK};
use crate::shape::hull::small::HullScratch;
use crate::shape::hull::IdMap;
use std::collections::VecDeque;

/// Triangles per leaf of the box tree.
const BOX_LEAF: usize = 4;
/// Rounds of growth per patch: after a refused patch is cut back to its longest passing
/// prefix, the triangle that broke it is excluded and the patch grows again (the rest of
/// the cut-off triangles may rejoin).
const GROW_ROUNDS: u32 = 4;
/// Halvings of the depth of the point put behind a flat patch before giving up.
const BEHIND_TRIES: u32 = 40;

impl TriMesh {
    pub(crate) fn decompose(&mut self) -> Result<(), PolycdError> {
        let n = self.triangles.len();
        let nbr = self.adjacency();
        let boxes: Vec<(DVec3, DVec3)> = self
            .triangles
            .iter()
            .map(|t| bounds(t.iter().map(|&v| self.vertices[v as usize])))
            .collect();
        let tree = BoxTree::new(&boxes);
        // Unit normals (float; the convexity test is a heuristic with a tolerance, the inside
        // check decides).
        let planes: Vec<(DVec3, f64)> = self
            .triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|v| self.vertices[v as usize]);
                let nrm = (b - a).cross(c - a).normalize_or_zero();
                (nrm, nrm.dot(a))
            })
            .collect();
        let mut ctx = Ctx {
            mesh: self,
            boxes: &boxes,
            tree: &tree,
            eps: CCD_PIECE_REL * self.scale,
            tol: COPLANAR_MERGE_REL * self.scale,
            stack: Vec::new(),
            own: vec![NONE; n],
            vmark: vec![NONE; self.vertices.len()],
            check: 0,
            poly: Vec::with_capacity(16),
            next: Vec::with_capacity(16),
            hits: Vec::new(),
            front: Vec::new(),
            corners: Vec::new(),
            blocks: Vec::new(),
            groups: Vec::new(),
            pts: Vec::new(),
            hull: HullPlanes::default(),
            clip: (Vec::with_capacity(16), Vec::with_capacity(16)),
        };
        let mut grow = Growth {
            nbr: &nbr,
            planes: &planes,
            piece_of: vec![NONE; n],
            queued: vec![NONE; n],
            vstamp: vec![NONE; self.vertices.len()],
            queue: VecDeque::new(),
            patch: Vec::new(),
            pverts: Vec::new(),
            attempt: 0,
            vround: 0,
        };
        let mut pieces: Vec<Vec<u32>> = Vec::new();
        let mut leaves: Vec<Vec<DVec3>> = Vec::new();
        for seed in 0..n {
            if grow.piece_of[seed] != NONE {
                continue;
            }
            let pts = grow.piece_from(seed as u32, &mut ctx)?;
            let id = pieces.len() as u32;
            for &g in &grow.patch {
                grow.piece_of[g as usize] = id;
            }
            pieces.push(grow.patch.clone());
            leaves.push(pts);
        }
        let nodes = leaves
            .into_iter()
            .enumerate()
            .map(|(i, pts)| HullNode::new(pts, None, i as u32))
            .collect();
        self.pieces = pieces;
        self.nodes = nodes;
        Ok(())
    }

    /// Per triangle, the triangle across each of its edges (`NONE` where there is none).
    fn adjacency(&self) -> Vec<[u32; 3]> {
        let n = self.triangles.len();
        let mut edge_tri: IdMap<(u32, u32), u32> = IdMap::with_capacity_and_hasher(n * 3, Default::default());
        for (i, t) in self.triangles.iter().enumerate() {
            for k in 0..3 {
                edge_tri.insert((t[k], t[(k + 1) % 3]), i as u32);
            }
        }
        let mut nbr = vec![[NONE; 3]; n];
        for (i, t) in self.triangles.iter().enumerate() {
            for k in 0..3 {
                nbr[i][k] = edge_tri.get(&(t[(k + 1) % 3], t[k])).copied().unwrap_or(NONE);
            }
        }
        nbr
    }
}

/// The error of a triangle that admits no piece.
fn no_piece() -> PolycdError {
    PolycdError::InvalidMesh(Box::new(MeshDefect::Degenerate(
        "a triangle admits no solid convex piece inside the mesh",
    )))
}

/// The growth of patches (phase 2) and their acceptance rounds (phase 3).
struct Growth<'a> {
    nbr: &'a [[u32; 3]],
    planes: &'a [(DVec3, f64)],
    /// Per triangle, its piece (`NONE` while unassigned).
    piece_of: Vec<u32>,
    /// Last patch that queued or took a triangle (no repeated work).
    queued: Vec<u32>,
    /// Last growth round that collected a vertex.
    vstamp: Vec<u32>,
    queue: VecDeque<u32>,
    /// The patch being grown (its growth order).
    patch: Vec<u32>,
    /// The patch's distinct vertices.
    pverts: Vec<u32>,
    attempt: u32,
    vround: u32,
}

impl Growth<'_> {
    /// Grows the piece of `seed` (at most `GROW_ROUNDS` rounds of growth and cutting back);
    /// leaves its triangles in `self.patch` and returns its hull's points.
    fn piece_from(&mut self, seed: u32, ctx: &mut Ctx<'_>) -> Result<Vec<DVec3>, PolycdError> {
        self.attempt += 1;
        self.patch.clear();
        self.patch.push(seed);
        self.queued[seed as usize] = self.attempt;
        // Verified prefix: its length and its piece's vertices.
        let mut known: Option<(usize, Vec<DVec3>)> = None;
        let mut accepted: Option<(usize, Vec<DVec3>)> = None;
        for _ in 0..GROW_ROUNDS {
            let before = self.patch.len();
            self.grow(ctx);
            if self.patch.len() == before {
                if let Some(k) = known.take() {
                    accepted = Some(k);
                    break;
                }
            }
            if let Some(p) = ctx.piece_points(&self.patch) {
                accepted = Some((self.patch.len(), p));
                break;
            }
            // The longest passing prefix (every prefix is connected): an exponential search
            // up from the verified prefix (lengths lo + 1, + 2, + 4, … while they pass), then
            // bisection of the last gap. Kept pieces are a few triangles of patches grown to
            // hundreds: plain bisection from the middle hulled long prefixes first (on the
            // 11 520-triangle knot, 1 477 prefix checks cost 535 M instructions, 41 % of the
            // build). Where acceptance is monotone in the prefix length (a shorter prefix's
            // hull lies inside the longer one's) both find the same prefix; either way the
            // piece kept is one that passed the check. The first triangle past it is refused
            // for good, the rest may join again.
            let (mut lo, mut hi) = (known.as_ref().map_or(0, |k| k.0), self.patch.len());
            let mut step = 1;
            while lo + step < hi {
                let mid = lo + step;
                match ctx.piece_points(&self.patch[..mid]) {
                    Some(p) => {
                        lo = mid;
                        known = Some((mid, p));
                        step *= 2;
                    }
                    None => {
                        hi = mid;
                        break;
                    }
                }
            }
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                match ctx.piece_points(&self.patch[..mid]) {
                    Some(p) => {
                        lo = mid;
                        known = Some((mid, p));
                    }
                    None => hi = mid,
                }
            }
            if lo == 0 {
                let p = ctx.piece_points(&self.patch[..1]).ok_or_else(no_piece)?;
                lo = 1;
                known = Some((1, p));
            }
            for &g in &self.patch[lo + 1..] {
                self.queued[g as usize] = NONE;
            }
            self.patch.truncate(lo);
        }
        let (len, pts) = match accepted.or(known) {
            Some(k) => k,
            None => (1, ctx.piece_points(&self.patch[..1]).ok_or_else(no_piece)?),
        };
        self.patch.truncate(len);
        Ok(pts)
    }

    /// One round of growth: (re)collects the patch's vertices, queues its neighbours, and
    /// adds them breadth-first while the patch stays convex (up to [`MAX_PATCH`] triangles).
    fn grow(&mut self, ctx: &Ctx<'_>) {
        let tris = &ctx.mesh.triangles;
        self.vround += 1;
        let vround = self.vround;
        self.pverts.clear();
        self.queue.clear();
        for &g in &self.patch {
            for &v in &tris[g as usize] {
                if self.vstamp[v as usize] != vround {
                    self.vstamp[v as usize] = vround;
                    self.pverts.push(v);
                }
            }
            self.queue
                .extend(self.nbr[g as usize].iter().copied().filter(|&f| f != NONE));
        }
        let attempt = self.attempt;
        while let Some(f) = self.queue.pop_front() {
            if self.patch.len() >= MAX_PATCH {
                break;
            }
            if self.piece_of[f as usize] != NONE || self.queued[f as usize] == attempt {
                continue;
            }
            // Refused for convexity: refused for good (the test only gets stricter as the
            // patch grows).
            self.queued[f as usize] = attempt;
            if !ctx.convex_with(&self.patch, &self.pverts, &self.vstamp, vround, f, self.planes) {
                continue;
            }
            self.patch.push(f);
            for &v in &tris[f as usize] {
                if self.vstamp[v as usize] != vround {
                    self.vstamp[v as usize] = vround;
                    self.pverts.push(v);
                }
            }
            let queued = &self.queued;
            self.queue.extend(
                self.nbr[f as usize]
                    .iter()
                    .copied()
                    .filter(|&g| g != NONE && queued[g as usize] != attempt),
            );
        }
    }
}

/// The decomposition's working state.
struct Ctx<'a> {
    mesh: &'a TriMesh,
    boxes: &'a [(DVec3, DVec3)],
    tree: &'a BoxTree,
    /// How far a triangle may reach into a piece ([`CCD_PIECE_REL`] × scale).
    eps: f64,
    /// How far a patch vertex may lie above a patch triangle's plane ([`COPLANAR_MERGE_REL`] × scale).
    tol: f64,
    stack: Vec<u32>,
    /// Per triangle, the last check whose patch holds it (its own triangles are skipped).
    own: Vec<u32>,
    /// Per vertex, the last check that collected it.
    vmark: Vec<u32>,
    check: u32,
    poly: Vec<DVec3>,
    next: Vec<DVec3>,
    hits: Vec<u32>,
    /// The inside test's plane order (move to front).
    front: Vec<u32>,
    /// The checked patch's triangles: corners and edge cross product.
    corners: Vec<([DVec3; 3], DVec3)>,
    /// Balls (centre, radius) around runs of [`BLOCK`] and [`BLOCK`]² of `corners`.
    blocks: Vec<(DVec3, f64)>,
    groups: Vec<(DVec3, f64)>,
    /// The checked patch's distinct vertices (reused by every check).
    pts: Vec<DVec3>,
    /// The checked piece's face planes (reused by every check).
    hull: HullPlanes,
    /// `clipped_area`'s two polygons.
    clip: (Vec<DVec3>, Vec<DVec3>),
}

/// Triangles per run of `Ctx::covers`' ball culling (runs of runs: `BLOCK`²).
const BLOCK: usize = 8;

/// Balls around consecutive runs of `run` triangles: centre of the run's box, radius the
/// largest corner distance, widened by [`BALL_ROUNDING`].
fn ball_runs(tris: &[([DVec3; 3], DVec3)], run: usize, out: &mut Vec<(DVec3, f64)>) {
    out.clear();
    for chunk in tris.chunks(run) {
        let (lo, hi) = bounds(chunk.iter().flat_map(|(t, _)| t.iter().copied()));
        let c = (lo + hi) * 0.5;
        let r = chunk
            .iter()
            .flat_map(|(t, _)| t.iter())
            .fold(0.0f64, |r, p| r.max((*p - c).length()));
        out.push((c, r * (1.0 + BALL_ROUNDING) + BALL_ROUNDING * c.abs().max_element()));
    }
}

impl Ctx<'_> {
    /// The patch stays convex (within `tol`) with `f`: `f`'s new vertices below every patch
    /// plane and every patch vertex below `f`'s plane.
    fn convex_with(
        &self,
        patch: &[u32],
        pverts: &[u32],
        vstamp: &[u32],
        attempt: u32,
        f: u32,
        planes: &[(DVec3, f64)],
    ) -> bool {
        let m = self.mesh;
        let (nf, of) = planes[f as usize];
        if nf == DVec3::ZERO {
            return false;
        }
        for &v in pverts {
            if nf.dot(m.vertices[v as usize]) - of > self.tol {
                return false;
            }
        }
        for &v in &m.triangles[f as usize] {
            if vstamp[v as usize] == attempt {
                continue;
            }
            let p = m.vertices[v as usize];
            for &g in patch {
                let (ng, og) = planes[g as usize];
                if ng.dot(p) - og > self.tol {
                    return false;
                }
            }
        }
        true
    }

    /// The vertices of the patch's piece (the hull of its distinct vertices, plus a point behind
    /// it when the patch is flat within `tol`) if that piece stays inside the solid.
    fn piece_points(&mut self, patch: &[u32]) -> Option<Vec<DVec3>> {
        let mut pts = std::mem::take(&mut self.pts);
        let mut hull = std::mem::take(&mut self.hull);
        let out = self.piece_points_in(patch, &mut pts, &mut hull);
        self.pts = pts;
        self.hull = hull;
        out
    }

    /// [`piece_points`](Self::piece_points) with its scratch (`pts`, `hull`) lent out.
    fn piece_points_in(&mut self, patch: &[u32], pts: &mut Vec<DVec3>, hull: &mut HullPlanes) -> Option<Vec<DVec3>> {
        let m = self.mesh;
        self.check = self.check.wrapping_add(1) % NONE;
        for &g in patch {
            self.own[g as usize] = self.check;
        }
        pts.clear();
        let mut normal = DVec3::ZERO;
        for &g in patch {
            let t = m.triangles[g as usize];
            let [a, b, c] = t.map(|v| m.vertices[v as usize]);
            normal += (b - a).cross(c - a);
            for v in t {
                // Distinct vertices (welded meshes have one index per position).
                if self.vmark[v as usize] != self.check {
                    self.vmark[v as usize] = self.check;
                    pts.push(m.vertices[v as usize]);
                }
            }
        }
        let centre = pts.iter().copied().sum::<DVec3>() / pts.len() as f64;
        // A patch whose normals cancel (a whole closed convex shell) is not flat.
        let Some(normal) = normal.try_normalize() else {
            hull_planes(pts, hull).ok()?;
            return (self.inside(hull) && self.covers(patch, hull)).then(|| hull.vertices().to_vec());
        };
        let spread = pts.iter().map(|p| normal.dot(*p - centre).abs()).fold(0.0, f64::max);
        if spread > self.tol && hull_planes(pts, hull).is_ok() {
            return (self.inside(hull) && self.covers(patch, hull)).then(|| hull.vertices().to_vec());
        }
        // Flat patch (within the merge tolerance): a point behind it, closer until inside.
        let mut depth = pts.iter().map(|p| (*p - centre).length()).fold(0.0, f64::max);
        pts.push(centre);
        for _ in 0..BEHIND_TRIES {
            if let Some(last) = pts.last_mut() {
                *last = centre - normal * depth;
            }
            if hull_planes(pts, hull).is_ok() {
                if !self.covers(patch, hull) {
                    // The patch is not convex in its plane: no point behind it helps.
                    return None;
                }
                if self.inside(hull) {
                    return Some(hull.vertices().to_vec());
                }
            }
            depth *= 0.5;
        }
        None
    }

    /// Every face of the hull that lies in the plane of patch triangles is covered by them
    /// (their areas add up to its area). Convexity across edges (`convex_with`) says nothing
    /// within one plane: coplanar triangles whose union is not convex in their plane (an
    /// L-shaped cap beside a notch) have a hull face spanning the notch, outside the solid,
    /// which no mesh triangle enters — the inside test cannot see it.
    fn covers(&mut self, patch: &[u32], hull: &HullPlanes) -> bool {
        let m = self.mesh;
        let tol = 2.0 * self.tol;
        // (The corners' distances first: most triangles are off the plane at the first one.)
        let coplanar = |n: DVec3, o: f64, t: &[DVec3; 3], cross: DVec3| {
            t.iter().all(|p| (n.dot(*p) - o).abs() <= tol) && cross.dot(n) > 0.0
        };
        self.corners.clear();
        for &g in patch {
            let t = m.triangles[g as usize].map(|v| m.vertices[v as usize]);
            let [a, b, c] = t;
            self.corners.push((t, (b - a).cross(c - a)));
        }
        // Balls around runs of BLOCK and BLOCK² triangles (growth order: neighbours): a face
        // plane more than `tol` (plus rounding) above a ball has no coplanar triangle in it, so
        // the run is skipped — the same sums, without the O(faces × triangles) loop on curved
        // patches (a face plane is near only the triangles next to its face).
        ball_runs(&self.corners, BLOCK, &mut self.blocks);
        ball_runs(&self.corners, BLOCK * BLOCK, &mut self.groups);
        for k in 0..hull.planes.len() {
            let ((n, o), area) = (hull.planes[k], hull.areas[k]);
            let slack = COVER_SLACK * area + 4.0 * self.tol * area.sqrt();
            let below = |&(c, r): &(DVec3, f64)| {
                let h = n.dot(c) - o + r;
                h < -tol - BALL_ROUNDING * (3.0 * c.abs().max_element() + r + o.abs())
            };
            let mut sum = 0.0;
            for (gi, group) in self.groups.iter().enumerate() {
                if below(group) {
                    continue;
                }
                let blocks = gi * BLOCK..((gi + 1) * BLOCK).min(self.blocks.len());
                for bi in blocks {
                    if below(&self.blocks[bi]) {
                        continue;
                    }
                    let run = bi * BLOCK..((bi + 1) * BLOCK).min(self.corners.len());
                    for (t, cross) in &self.corners[run] {
                        if coplanar(n, o, t, *cross) {
                            sum += 0.5 * cross.length();
                        }
                    }
                }
            }
            if sum == 0.0 || area - sum <= slack {
                continue;
            }
            // The patch leaves part of the face uncovered: it is still on the surface when
            // other mesh triangles in the face's plane cover it (a patch grown over part of
            // a subdivided face); outside the solid otherwise (a notch).
            let poly = hull.polygon(k);
            let (lo, hi) = bounds(poly.iter().copied());
            let (lo, hi) = (lo - DVec3::splat(tol), hi + DVec3::splat(tol));
            self.hits.clear();
            self.tree.query(lo, hi, self.boxes, &mut self.stack, &mut self.hits);
            let mut covered = 0.0;
            for &i in &self.hits {
                let t = m.triangles[i as usize].map(|v| m.vertices[v as usize]);
                let [a, b, c] = t;
                if coplanar(n, o, &t, (b - a).cross(c - a)) {
                    covered += clipped_area(t, poly, n, &mut self.clip);
                }
            }
            if area - covered > slack {
                return false;
            }
        }
        true
    }

    /// No mesh triangle reaches more than `eps` into the solid hull bounded by `planes`
    /// (outward unit normals; the bounding box of the hull's vertices last).
    ///
    /// One walk of the box tree, stopping at the first triangle that reaches in (the answer
    /// is the conjunction over the triangles, so the order and the early stop do not change
    /// it). The planes are tried in move-to-front order (the plane that culled the last
    /// triangle first: neighbours in the walk tend to share it; which plane culls does not
    /// change the answer). A subtree whose box lies wholly above the front plane
    /// (`box_above`, with a rounding margin) is skipped: each of its triangles would be culled
    /// by that plane in the per-triangle test, so the answer is the same.
    fn inside(&mut self, hull: &HullPlanes) -> bool {
        let eps = self.eps;
        let (lo, hi) = (hull.lo + DVec3::splat(eps), hull.hi - DVec3::splat(eps));
        let (m, tree, boxes) = (self.mesh, self.tree, self.boxes);
        self.front.clear();
        self.front.extend(0..hull.planes.len() as u32);
        self.stack.clear();
        if tree.nodes.is_empty() {
            return true;
        }
        // At most the tree's depth + 1 entries (two children pushed per node popped).
        self.stack.push(0);
        while let Some(k) = self.stack.pop() {
            let (bl, bh, first, count) = tree.nodes[k as usize];
            if bl.cmpgt(hi).any() || bh.cmplt(lo).any() {
                continue;
            }
            let first_plane = self.front.first().map(|&f| hull.planes[f as usize]);
            if first_plane.is_some_and(|(n, o)| box_above(n, o, eps, bl, bh)) {
                continue;
            }
            if count == 0 {
                self.stack.push(first);
                self.stack.push(first + 1);
                continue;
            }
            for &i in &tree.order[first as usize..(first + count) as usize] {
                let (tl, th) = boxes[i as usize];
                if tl.cmpgt(hi).any() || th.cmplt(lo).any() {
                    continue;
                }
                // The patch's own triangles lie on the hull's boundary up to the merge
                // tolerance (every patch vertex is within `tol` below every patch triangle's
                // plane, so the hull is too, and a point of a patch triangle is within `tol`
                // of leaving it): `tol` < `eps`, so they never reach `eps` in.
                if self.own[i as usize] == self.check {
                    continue;
                }
                let tri = m.triangles[i as usize].map(|v| m.vertices[v as usize]);
                if reaches_in(
                    tri,
                    &hull.planes,
                    eps,
                    &mut self.front,
                    (&mut self.poly, &mut self.next),
                ) {
                    return false;
                }
            }
        }
        true
    }
}

/// Every point `p` of the box `[bl, bh]` has `n·p − o + eps > 0` as `reaches_in` computes it
/// in floating point: the box's lowest value of `n·x` (exact: the corner chosen per axis by
/// the sign of `n`) minus `o` plus `eps` exceeds [`BOX_ROUNDING`] × (the magnitudes involved),
/// which bounds the rounding of both this sum and the per-corner one (a few ulps each, `n`
/// a unit vector).
fn box_above(n: DVec3, o: f64, eps: f64, bl: DVec3, bh: DVec3) -> bool {
    let low = DVec3::select(n.cmpge(DVec3::ZERO), bl, bh);
    let mag = n.abs().dot(bl.abs().max(bh.abs()));
    n.dot(low) - o + eps > BOX_ROUNDING * (mag + o.abs() + eps)
}

/// Triangle `tri` keeps a part at least `eps` below every plane of `planes` (outward unit
/// normals): Sutherland–Hodgman clipping, after a quick cull by any plane none of whose
/// corners is at least `eps` below it (the clipping would leave nothing either). `front`
/// orders the planes for the cull (a permutation of their indices); the plane that culls is
/// moved to its front.
fn reaches_in(
    tri: [DVec3; 3],
    planes: &[(DVec3, f64)],
    eps: f64,
    front: &mut [u32],
    (poly, next): (&mut Vec<DVec3>, &mut Vec<DVec3>),
) -> bool {
    let culls = |&(n, o): &(DVec3, f64)| tri.iter().all(|p| n.dot(*p) - o + eps > 0.0);
    if let Some(j) = front.iter().position(|&k| culls(&planes[k as usize])) {
        front[..=j].rotate_right(1);
        return false;
    }
    poly.clear();
    poly.extend(tri);
    for &(n, o) in planes {
        // Keep the part at least eps below the plane.
        next.clear();
        let len = poly.len();
        for k in 0..len {
            let p = poly[k];
            let q = poly[(k + 1) % len];
            let dp = n.dot(p) - o + eps;
            let dq = n.dot(q) - o + eps;
            if dp <= 0.0 {
                next.push(p);
            }
            if (dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0) {
                next.push(p + (q - p) * (dp / (dp - dq)));
            }
        }
        std::mem::swap(poly, next);
        if poly.is_empty() {
            return false;
        }
    }
    true
}

/// A solid hull's face planes, faces and its vertices' box (buffers reused by every check).
#[derive(Default)]
struct HullPlanes {
    /// Per face: outward unit normal and offset.
    planes: Vec<(DVec3, f64)>,
    /// The area of each plane's face.
    areas: Vec<f64>,
    /// Face `k`'s polygon (counter-clockwise seen from outside) is
    /// `corners[start[k]..start[k + 1]]`.
    start: Vec<usize>,
    corners: Vec<DVec3>,
    lo: DVec3,
    hi: DVec3,
    /// The hull builder's buffers, and the last hull built (its vertices are the piece's).
    scratch: HullScratch,
}

impl HullPlanes {
    /// The vertices of the last hull built (the piece's points when it is accepted).
    fn vertices(&self) -> &[DVec3] {
        self.scratch.vertices()
    }

    /// Face `k`'s polygon.
    fn polygon(&self, k: usize) -> &[DVec3] {
        &self.corners[self.start[k]..self.start[k + 1]]
    }
}

/// The exact hull of `pts` (Quickhull over exact predicates; `HullScratch`, the same hull as
/// `convex_hull` without allocating): its face planes into `out`, its vertices kept in
/// `out.scratch`; an error when the hull is not a solid. Each plane's offset is the largest
/// over its face's vertices (the plane is on or outside every vertex of its face).
fn hull_planes(pts: &[DVec3], out: &mut HullPlanes) -> Result<(), PolycdError> {
    out.scratch.build(pts)?;
    let h = &out.scratch;
    let vs = h.vertices();
    out.planes.clear();
    out.areas.clear();
    out.start.clear();
    out.corners.clear();
    out.start.push(0);
    for k in 0..h.face_count() {
        let f = h.face(k);
        let c = f.iter().map(|&v| vs[v as usize]).sum::<DVec3>() / f.len() as f64;
        let mut nrm = DVec3::ZERO;
        for k in 0..f.len() {
            let a = vs[f[k] as usize] - c;
            let b = vs[f[(k + 1) % f.len()] as usize] - c;
            nrm += a.cross(b);
        }
        let area = 0.5 * nrm.length();
        let Some(nrm) = nrm.try_normalize() else {
            continue;
        };
        out.areas.push(area);
        out.corners.extend(f.iter().map(|&v| vs[v as usize]));
        out.start.push(out.corners.len());
        let o = f
            .iter()
            .map(|&v| nrm.dot(vs[v as usize]))
            .fold(f64::NEG_INFINITY, f64::max);
        out.planes.push((nrm, o));
    }
    (out.lo, out.hi) = bounds(vs.iter().copied());
    Ok(())
}

/// A box tree over the triangles' bounding boxes (median splits along the widest axis of the
/// boxes' centres; leaves of up to [`BOX_LEAF`] triangles). Depth ≤ ⌈log₂ n⌉.
struct BoxTree {
    /// Per node: its box, and either its children (`first` = left child index, `count` = 0)
    /// or its triangles (`order[first..first + count]`).
    nodes: Vec<(DVec3, DVec3, u32, u32)>,
    order: Vec<u32>,
}

impl BoxTree {
    fn new(boxes: &[(DVec3, DVec3)]) -> BoxTree {
        let mut t = BoxTree {
            nodes: Vec::with_capacity(2 * boxes.len() / BOX_LEAF + 2),
            order: (0..boxes.len() as u32).collect(),
        };
        if !boxes.is_empty() {
            t.nodes.push((DVec3::ZERO, DVec3::ZERO, 0, 0));
            t.build(0, 0, boxes.len(), boxes);
        }
        t
    }

    fn build(&mut self, node: usize, start: usize, end: usize, boxes: &[(DVec3, DVec3)]) {
        let items = &mut self.order[start..end];
        let (lo, hi) = items.iter().fold(
            (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
            |(l, h), &i| (l.min(boxes[i as usize].0), h.max(boxes[i as usize].1)),
        );
        if end - start <= BOX_LEAF {
            self.nodes[node] = (lo, hi, start as u32, (end - start) as u32);
            return;
        }
        let centre = |i: u32| boxes[i as usize].0 + boxes[i as usize].1;
        let (clo, chi) = bounds(items.iter().map(|&i| centre(i)));
        let ext = chi - clo;
        let axis = if ext.x >= ext.y && ext.x >= ext.z {
            0
        } else if ext.y >= ext.z {
            1
        } else {
            2
        };
        let mid = items.len() / 2;
        items.select_nth_unstable_by(mid, |&a, &b| {
            centre(a)[axis].total_cmp(&centre(b)[axis]).then(a.cmp(&b))
        });
        let left = self.nodes.len();
        self.nodes.push((DVec3::ZERO, DVec3::ZERO, 0, 0));
        self.nodes.push((DVec3::ZERO, DVec3::ZERO, 0, 0));
        self.nodes[node] = (lo, hi, left as u32, 0);
        self.build(left, start, start + mid, boxes);
        self.build(left + 1, start + mid, end, boxes);
    }

    /// The triangles whose boxes meet the box `[lo, hi]` (strictly: a box only touching it
    /// is left out), in `out`. The stack holds at most the tree's depth + 1 entries.
    fn query(&self, lo: DVec3, hi: DVec3, boxes: &[(DVec3, DVec3)], stack: &mut Vec<u32>, out: &mut Vec<u32>) {
        stack.clear();
        if self.nodes.is_empty() {
            return;
        }
        stack.push(0);
        while let Some(k) = stack.pop() {
            let (bl, bh, first, count) = self.nodes[k as usize];
            if bl.cmpgt(hi).any() || bh.cmplt(lo).any() {
                continue;
            }
            if count == 0 {
                stack.push(first);
                stack.push(first + 1);
            } else {
                for &i in &self.order[first as usize..(first + count) as usize] {
                    let (tl, th) = boxes[i as usize];
                    if !(tl.cmpgt(hi).any() || th.cmplt(lo).any()) {
                        out.push(i);
                    }
                }
            }
        }
    }
}

/// The area of triangle `t` inside the convex polygon `poly` (counter-clockwise about `n`),
/// both in (or within the merge tolerance of) one plane with unit normal `n`
/// (Sutherland–Hodgman against the polygon's edges; `cur`, `next` are scratch).
fn clipped_area(t: [DVec3; 3], poly: &[DVec3], n: DVec3, (cur, next): &mut (Vec<DVec3>, Vec<DVec3>)) -> f64 {
    cur.clear();
    cur.extend(t);
    for k in 0..poly.len() {
        let (p, q) = (poly[k], poly[(k + 1) % poly.len()]);
        // Inside: to the left of p → q seen along -n (counter-clockwise about n).
        let side = |x: DVec3| (q - p).cross(x - p).dot(n);
        next.clear();
        for i in 0..cur.len() {
            let (a, b) = (cur[i], cur[(i + 1) % cur.len()]);
            let (sa, sb) = (side(a), side(b));
            if sa >= 0.0 {
                next.push(a);
            }
            if (sa >= 0.0) != (sb >= 0.0) {
                next.push(a + (b - a) * (sa / (sa - sb)));
            }
        }
        std::mem::swap(cur, next);
        if cur.len() < 3 {
            return 0.0;
        }
    }
    let mut area = DVec3::ZERO;
    for i in 1..cur.len() - 1 {
        area += (cur[i] - cur[0]).cross(cur[i + 1] - cur[0]);
    }
    0.5 * area.dot(n).abs()
}
