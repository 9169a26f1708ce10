//! The branch and bound of [`super::intersect`], [`super::distance`] and
//! [`super::contact_set`] over the two hull trees, with exact triangle distances at the leaves
//! (method, pruning and termination: the parent module's documentation).

use super::{Mode, PieceContact, SolidCache};
use crate::contract::{Distance, Intersection};
use crate::core::error::PolycdError;
use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::CONTACT_REL;
use crate::mesh::bvtt::{FrontNode, MeshCache};
use crate::mesh::tri_dist::{triangle_distance, TriFeature};
use crate::mesh::trimesh::TriMesh;
use crate::query::{self, Algorithm};

mod best_first;
pub(super) use best_first::Queue;

/// A triangle of B's leaf piece in A's frame, with its bounding box and ball (for pruning).
#[derive(Clone, Copy, Debug)]
pub(super) struct LeafTriangle {
    corners: [DVec3; 3],
    lo: DVec3,
    hi: DVec3,
    centre: DVec3,
    radius: f64,
    /// The unit normal (zero for a degenerate triangle) and its plane's offset `n · corner`.
    normal: DVec3,
    offset: f64,
}

impl LeafTriangle {
    fn new(corners: [DVec3; 3]) -> LeafTriangle {
        let lo = corners[0].min(corners[1]).min(corners[2]);
        let hi = corners[0].max(corners[1]).max(corners[2]);
        let centre = (lo + hi) * 0.5;
        let radius = corners.iter().fold(0.0f64, |r, c| r.max((*c - centre).length()));
        let normal = (corners[1] - corners[0])
            .cross(corners[2] - corners[0])
            .try_normalize()
            .unwrap_or(DVec3::ZERO);
        LeafTriangle {
            corners,
            lo,
            hi,
            centre,
            radius,
            normal,
            offset: normal.dot(corners[0]),
        }
    }

    /// A lower bound of the distance of the two triangles by their planes: when the corners of
    /// one lie strictly on one side of the other's plane, every point of it is at least the
    /// nearest corner's distance from that plane, hence from the triangle. The larger of the
    /// two planes' bounds, less the rounding slack of [`LeafTriangle::gap`] (the positions'
    /// magnitudes times [`CONTACT_REL`]); 0 or less when the triangles straddle both planes.
    /// Facing triangles near contact (nearly parallel) are pruned by it where their boxes and
    /// balls overlap.
    fn plane_gap(&self, o: &LeafTriangle) -> f64 {
        let side = |t: &LeafTriangle, c: &[DVec3; 3]| {
            let s = c.map(|p| t.normal.dot(p) - t.offset);
            if s[0] > 0.0 && s[1] > 0.0 && s[2] > 0.0 {
                s[0].min(s[1]).min(s[2])
            } else if s[0] < 0.0 && s[1] < 0.0 && s[2] < 0.0 {
                -(s[0].max(s[1]).max(s[2]))
            } else {
                0.0
            }
        };
        let slack =
            CONTACT_REL * (self.centre.abs().max_element() + o.centre.abs().max_element() + self.radius + o.radius);
        side(self, &o.corners).max(side(o, &self.corners)) - slack
    }

    /// A lower bound of the distance of the two triangles: the larger of their boxes' gap and
    /// their balls' gap, the latter less the rounding of the centres and radii
    /// ([`CONTACT_REL`] of the magnitudes, as [`Search::sphere_bounds`]), so it never exceeds the
    /// exact distance by more than rounding far below the contact tolerance.
    fn gap(&self, o: &LeafTriangle) -> f64 {
        let boxes = (o.lo - self.hi).max(self.lo - o.hi).max(DVec3::ZERO).length();
        let slack =
            CONTACT_REL * (self.centre.abs().max_element() + o.centre.abs().max_element() + self.radius + o.radius);
        let balls = (o.centre - self.centre).length() - self.radius - o.radius - slack;
        boxes.max(balls)
    }
}

/// The best leaf result of a search (A's frame).
#[derive(Clone, Copy, Debug)]
pub(super) struct Best {
    pub(super) distance: f64,
    pub(super) point_a: DVec3,
    pub(super) point_b: DVec3,
    pub(super) triangles: (u32, u32),
    pub(super) features: (TriFeature, TriFeature),
    pub(super) pieces: (u32, u32),
    /// A certified lower bound of the surfaces' distance, for a search that met no triangle
    /// pair within its limit (`distance` then +∞): the least bound of the pruned node pairs,
    /// and the limit itself at measured leaves.
    pub(super) floor: f64,
}

/// The branch and bound; `None` when `stop` (intersect) and a piece pair overlaps deeper than
/// `certain`. `cap` bounds the distances searched for: with a finite `cap`, triangle pairs
/// farther than `cap` + `tie` are pruned, so a search whose surfaces are farther apart meets
/// none (`Best::distance` +∞, `Best::floor` a lower bound); a nearer minimum is still found
/// exactly (its pair's bounds never exceed it).
#[allow(clippy::too_many_arguments)]
pub(super) fn search(
    a: &TriMesh,
    pose_a: &Pose,
    b: &TriMesh,
    pose_b: &Pose,
    mode: Mode,
    certain: f64,
    tie: f64,
    cap: f64,
    cache: &mut SolidCache,
) -> Result<Option<Best>, PolycdError> {
    cache.mesh.begin_query();
    cache.mesh.front.clear();
    cache.contacts.clear();
    let nv = b.vertices.len();
    if cache.stamps.len() < nv {
        // Grows once per mesh size (not per query in steady state).
        cache.stamps.resize(nv, 0);
        cache.verts_b.resize(nv, DVec3::ZERO);
    }
    cache.stamp = cache.stamp.wrapping_add(1);
    if cache.stamp == 0 {
        cache.stamps.fill(0);
        cache.stamp = 1;
    }
    // Coherence: the last query's closest triangles, at the new poses, bound the distance
    // (any pair's distance is at least the minimum), so most of the trees are pruned at once.
    // Only a bound: the pair is found again by the search if it is still the closest.
    let bound = match cache.last_pair {
        Some((ta, tb)) if (ta as usize) < a.triangles.len() && (tb as usize) < b.triangles.len() => {
            let tri_a = a.triangles[ta as usize].map(|v| a.vertices[v as usize]);
            let tri_b = b.triangles[tb as usize]
                .map(|v| pose_a.inverse_transform_point(pose_b.transform_point(b.vertices[v as usize])));
            triangle_distance(&tri_a, &tri_b).distance
        }
        _ => f64::INFINITY,
    }
    .min(cap);
    let mut s = Search {
        prune_depth: mode == Mode::Distance,
        deepest: f64::NEG_INFINITY,
        deepest_nodes: None,
        axis: None,
        skip: None,
        bound,
        a,
        pose_a,
        b,
        pose_b,
        stop: (mode == Mode::Intersect).then_some(()),
        certain,
        deep: false,
        tie,
        floor: f64::INFINITY,
        min_seen: f64::INFINITY,
        best_score: f64::NEG_INFINITY,
        stopped: false,
        defer: mode == Mode::Intersect,
        deferred: &mut cache.deferred,
        mesh: &mut cache.mesh,
        contacts: &mut cache.contacts,
        tris_b: &mut cache.tris_b,
        verts_b: &mut cache.verts_b,
        stamps: &mut cache.stamps,
        stamp: cache.stamp,
        best: Best {
            distance: f64::INFINITY,
            point_a: DVec3::NAN,
            point_b: DVec3::NAN,
            triangles: (0, 0),
            features: (TriFeature::Face, TriFeature::Face),
            pieces: (0, 0),
            floor: f64::INFINITY,
        },
    };
    // Coherence of an overlap (distance only): the last query's deepest leaf pair is measured
    // first, so its depth prunes the node pairs that cannot be deeper from the start (see
    // `Search::prune_depth`); it is skipped when the traversal meets it again.
    if let (Mode::Distance, Some((i, j))) = (mode, cache.last_deep) {
        let leaf = |m: &TriMesh, n: u32| m.nodes.get(n as usize).is_some_and(|n| n.children.is_none());
        if leaf(a, i) && leaf(b, j) {
            s.visit(i, j)?;
            s.skip = Some((i, j));
        }
    }
    if mode == Mode::Distance {
        s.best_first(&mut cache.pending)?;
    } else {
        s.visit(a.root, b.root)?;
    }
    if !s.stopped {
        s.measure_deferred();
    }
    let overlap = s.deep && s.min_seen == 0.0;
    let deepest_nodes = s.deepest_nodes;
    let (stopped, mut best) = (s.stopped, s.best);
    best.floor = s.floor;
    if best.distance.is_finite() {
        cache.last_pair = Some(best.triangles);
    } else if stopped || !cap.is_finite() {
        cache.last_pair = None;
    }
    // (A capped search that met nothing keeps the last pair: it still bounds the next
    // search, and a query nearby is likely to need it.)
    cache.last_deep = if overlap { deepest_nodes } else { None };
    Ok((!stopped).then_some(best))
}

/// Nodes of at most this many hull points get the extent bound of [`Search::axis_depth`]
/// (one pass over the points; larger nodes keep the balls' bound: their hulls' supports
/// were measured to cost more than they pruned, 652.5 → 678.5 M instructions on
/// `mesh_profile coherent-bench-distance 120`).
const AXIS_POINTS: usize = 64;

/// Leaf pairs an intersect's dive ([`Search::dive`]) measures at most before the search.
const DIVE_LEAVES: u32 = 4;

/// Intersect: an inner node pair whose bounding balls overlap by more than this fraction of
/// the smaller ball's radius is tested by GJK alone, not V-Clip first (see
/// [`Search::hull_algorithm`]). A search heuristic, not a tolerance: either algorithm answers
/// the pair. Measured (`mesh_profile intersect 120 {over|near|sep}`, 2 880-triangle knots,
/// instructions): 0.75 → 1.93 / 2.36 / 0.102 M against V-Clip first everywhere 2.64 / 2.58 /
/// 0.100 M; 0.5 → 1.85 / 2.39 / 0.119 M; 1.0 → 2.08 / 2.32 / 0.101 M; GJK for every inner
/// pair 1.86 / 2.60 / 0.150 M (a separated pair, warm, is cheaper by V-Clip).
const GJK_OVERLAP_FRACTION: f64 = 0.75;

struct Search<'a> {
    /// Distance mode: once the answer is certainly an overlap of pieces (a solid pair deeper
    /// than `certain` met — its relative depth is its depth, so the deepest pair's clears the
    /// contact tolerance — and a triangle pair at distance 0, so the surfaces cross), only the
    /// deepest piece pair matters ([`super::decide`]): node pairs whose depth cannot reach
    /// the deepest met so far are pruned (their bounding balls' overlap bounds the depth of
    /// any pair of pieces below them, strictly less than the deepest, so the deepest pair and
    /// the answer are unchanged; the contact set then lacks those pairs).
    prune_depth: bool,
    /// The greatest depth in the contact set so far, and its leaf nodes.
    deepest: f64,
    deepest_nodes: Option<(u32, u32)>,
    /// The deepest pair's direction `n` in A's and B's mesh frames and the poses' offsets
    /// along it (`n · t`): the nodes' extents along `n` bound their depth (see
    /// [`Search::axis_depth`]).
    axis: Option<(DVec3, DVec3, f64, f64)>,
    /// A leaf pair already measured by this search (the coherence seed), not to be met twice.
    skip: Option<(u32, u32)>,
    a: &'a TriMesh,
    pose_a: &'a Pose,
    b: &'a TriMesh,
    pose_b: &'a Pose,
    /// Stop at the first pair overlapping for certain (intersect).
    stop: Option<()>,
    /// A piece pair deeper than this overlaps for certain (the contact tolerance plus both
    /// meshes' piece margins).
    certain: f64,
    /// Whether such a pair was met.
    deep: bool,
    /// Distances within this of the best are ties (the contact tolerance), broken by the
    /// triangles' facing (see [`Search::leaf_triangles`]).
    tie: f64,
    /// The least bound of the pairs pruned so far (and the limit at measured leaves): a
    /// lower bound of the surfaces' distance when no triangle pair is within the limit.
    floor: f64,
    /// The least triangle distance met (the best pair's may exceed it by a tie).
    min_seen: f64,
    /// An upper bound of the least triangle distance known before the search (the last
    /// query's closest pair at the new poses; +∞ without one).
    bound: f64,
    /// The facing score of the best pair.
    best_score: f64,
    stopped: bool,
    /// Intersect: the leaf pairs' triangles are measured after the traversal, and only when
    /// it met no deep pair (then the answer needs the closest triangles): a deep pair proves
    /// the overlap whatever the triangles' distances, so an overlapping query stops before
    /// measuring any. The traversal's pruning does not need them: its limit is at most the
    /// search's cap plus the tie width (twice the contact tolerance) from the start.
    defer: bool,
    /// The leaf pairs left to measure: pieces of A and B, and their hulls' distance.
    deferred: &'a mut Vec<(u32, u32, f64)>,
    mesh: &'a mut MeshCache,
    contacts: &'a mut Vec<PieceContact>,
    tris_b: &'a mut Vec<LeafTriangle>,
    verts_b: &'a mut [DVec3],
    stamps: &'a mut [u32],
    stamp: u32,
    best: Best,
}

impl Search<'_> {
    /// Measures node pair `(i, j)`'s hulls — a leaf pair's exact distance or penetration
    /// (`Auto`), an inner pair's distance or bare overlap (`alg`) — and records a leaf pair's
    /// penetration in the contact set (and as the deepest when it is). Returns the hull
    /// distance (0 when the hulls overlap) and whether this pair was just found deeper than
    /// `certain` (then `deep` is set).
    fn measure_hulls(&mut self, i: u32, j: u32, alg: Algorithm) -> Result<(f64, bool), PolycdError> {
        let (a, b) = (self.a, self.b);
        let (na, nb) = (&a.nodes[i as usize], &b.nodes[j as usize]);
        let leaves = na.children.is_none() && nb.children.is_none();
        let pc = self.mesh.node_pair(i, j);
        let d = if leaves {
            query::distance(na.hull()?, self.pose_a, nb.hull()?, self.pose_b, Algorithm::Auto, pc)?
        } else {
            query::distance_or_overlap(na.hull()?, self.pose_a, nb.hull()?, self.pose_b, alg, pc)?
        };
        match d {
            Distance::Separated { distance, .. } => Ok((distance, false)),
            Distance::Penetrating { penetration, .. } => {
                let mut deep = false;
                if let (true, Some(p)) = (leaves, penetration) {
                    if p.depth > self.deepest {
                        self.deepest = p.depth;
                        self.deepest_nodes = Some((i, j));
                        let n = p.normal;
                        self.axis = Some((
                            self.pose_a.inverse_transform_vector(n),
                            self.pose_b.inverse_transform_vector(n),
                            n.dot(self.pose_a.translation),
                            n.dot(self.pose_b.translation),
                        ));
                    }
                    self.contacts.push(PieceContact {
                        pieces: (na.piece, nb.piece),
                        penetration: p,
                    });
                    if p.relative_depth > self.certain {
                        self.deep = true;
                        deep = true;
                    }
                }
                Ok((0.0, deep))
            }
            Distance::NotConverged { iterations } => Err(PolycdError::CcdNotConverged {
                iterations,
                t_free: 0.0,
            }),
        }
    }

    /// A lower bound of the distance of nodes `i` (A) and `j` (B) by their bounding spheres
    /// (0 when they meet), widened by the rounding of the poses.
    /// The bounding spheres' signed gap less the rounding slack (a lower bound of the
    /// nodes' distance when positive), and their overlap plus the slack: an upper bound of
    /// the penetration depth of any two convex sets inside the spheres (a translation that
    /// separates the spheres separates them).
    fn sphere_bounds(&self, i: u32, j: u32) -> (f64, f64) {
        let (ca, ra) = self.a.nodes[i as usize].bounding_sphere();
        let (cb, rb) = self.b.nodes[j as usize].bounding_sphere();
        let (ca, cb) = (self.pose_a.transform_point(ca), self.pose_b.transform_point(cb));
        let slack = CONTACT_REL * (ca.abs().max_element() + cb.abs().max_element() + ra + rb);
        let centres = (cb - ca).length();
        (centres - ra - rb - slack, ra + rb - centres + slack)
    }

    /// An upper bound of the penetration depth of any two convex sets inside nodes `i` and
    /// `j`, by their extents along the deepest pair's direction `n` (+∞ before there is one,
    /// or for a node of more than [`AXIS_POINTS`] points): moving B by
    /// `max_A n − min_B n` along `n`, or by `max_B n − min_A n` against it, separates the
    /// nodes' hulls (which hold the pieces below them), so the depth is at most the smaller,
    /// plus the rounding of the projections ([`CONTACT_REL`] of the magnitudes).
    fn axis_depth(&self, i: u32, j: u32) -> f64 {
        let Some((na, nb, oa, ob)) = self.axis else {
            return f64::INFINITY;
        };
        let (node_a, node_b) = (&self.a.nodes[i as usize], &self.b.nodes[j as usize]);
        let (pa, pb) = (node_a.points(), node_b.points());
        if pa.len() > AXIS_POINTS || pb.len() > AXIS_POINTS {
            return f64::INFINITY;
        }
        // The points' magnitudes are bounded by their ball (|c| + r ≥ every coordinate's
        // magnitude), so the slack needs no pass of its own.
        let magnitude = |node: &crate::mesh::tree::HullNode| {
            let (c, r) = node.bounding_sphere();
            c.abs().max_element() + r
        };
        let slack = CONTACT_REL
            * (magnitude(node_a)
                + magnitude(node_b)
                + self.pose_a.translation.abs().max_element()
                + self.pose_b.translation.abs().max_element());
        // (min, max) of the points along `n` (plain comparisons: no NaN here, the points
        // and `n` are finite).
        let extent = |pts: &[DVec3], n: DVec3| {
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for p in pts {
                let x = p.dot(n);
                if x < lo {
                    lo = x;
                }
                if x > hi {
                    hi = x;
                }
            }
            (lo, hi)
        };
        let (lo_a, hi_a) = extent(pa, na);
        // B's ball bounds its extent: a bound from it already below the deepest needs no pass
        // over B's points (it can only be larger than the points' bound).
        let (cb, rb) = node_b.bounding_sphere();
        let (mid_b, deepest) = (cb.dot(nb), self.deepest);
        let ball = ((hi_a + oa) - (mid_b - rb + ob)).min((mid_b + rb + ob) - (lo_a + oa)) + slack;
        if ball < deepest {
            return ball;
        }
        let (lo_b, hi_b) = extent(pb, nb);
        let along = (hi_a + oa) - (lo_b + ob);
        let against = (hi_b + ob) - (lo_a + oa);
        along.min(against) + slack
    }

    /// The convex algorithm for an inner node pair's hull test: V-Clip (warm, cheap on a
    /// separated pair; a penetration it finds is handed to GJK), except in an intersect when
    /// the pair's balls overlap by more than [`GJK_OVERLAP_FRACTION`] of the smaller radius
    /// (`radius`; `overlap` the balls' overlap as [`Search::sphere_bounds`]): such hulls mostly
    /// overlap, and V-Clip's walk would only end in GJK. Both answer the pair within the
    /// distance algorithms' agreement (GJK's gap [`DISTANCE_GAP_REL`](crate::core::tolerance::DISTANCE_GAP_REL) of the
    /// pair's scale, as at the leaves), so the search's pruning and answer are unchanged.
    fn hull_algorithm(&self, radius: f64, overlap: f64) -> Algorithm {
        if self.defer && overlap > GJK_OVERLAP_FRACTION * radius {
            Algorithm::Gjk
        } else {
            Algorithm::VClip
        }
    }

    /// Node and triangle pairs whose distance bound exceeds this cannot be (or tie with) the
    /// closest pair: the least distance known so far plus the tie width.
    fn limit(&self) -> f64 {
        self.min_seen.min(self.bound) + self.tie
    }

    fn push_front(&mut self, i: u32, j: u32, distance: f64) {
        self.mesh.front.push(FrontNode {
            node_a: i,
            node_b: j,
            distance,
            point_a: DVec3::NAN,
            point_b: DVec3::NAN,
        });
    }

    fn visit(&mut self, i: u32, j: u32) -> Result<(), PolycdError> {
        if self.stopped || self.skip == Some((i, j)) {
            return Ok(());
        }
        let (gap, depth_bound) = self.sphere_bounds(i, j);
        let gap = gap.max(0.0);
        if gap > 0.0 && gap > self.limit() {
            self.floor = self.floor.min(gap);
            self.push_front(i, j, gap);
            return Ok(());
        }
        if self.prune_depth
            && self.deepest > self.certain
            && self.min_seen == 0.0
            && (depth_bound < self.deepest || self.axis_depth(i, j) < self.deepest)
        {
            return Ok(());
        }
        let (a, b) = (self.a, self.b);
        let (na, nb) = (&a.nodes[i as usize], &b.nodes[j as usize]);
        let leaves = na.children.is_none() && nb.children.is_none();
        let alg = self.hull_algorithm(na.scale().min(nb.scale()), depth_bound);
        let (hull_distance, deep) = self.measure_hulls(i, j, alg)?;
        if deep && self.stop.is_some() {
            self.stopped = true;
            return Ok(());
        }
        if hull_distance > 0.0 && hull_distance > self.limit() {
            self.floor = self.floor.min(hull_distance);
            self.push_front(i, j, hull_distance);
            return Ok(());
        }
        if self.defer && hull_distance == 0.0 && (i, j) == (a.root, b.root) && !leaves {
            let mut budget = DIVE_LEAVES;
            self.dive(i, j, &mut budget)?;
            if self.stopped {
                return Ok(());
            }
        }
        match (na.children, nb.children) {
            (None, None) => {
                // Once the surfaces are known to meet and a pair overlaps for certain, the
                // answer is an overlap whatever the other triangles' distances: skip them.
                if self.defer {
                    self.deferred.push((na.piece, nb.piece, hull_distance));
                } else if !(self.deep && self.min_seen == 0.0) {
                    self.leaf_triangles(na.piece, nb.piece);
                    // Every triangle pair left is farther than the limit (and the hulls).
                    self.floor = self.floor.min(self.limit().max(hull_distance));
                }
                self.push_front(i, j, hull_distance);
                Ok(())
            }
            (ca, cb) => {
                let split_b = na.splits_other(nb);
                // The child pair whose balls are nearer first; of two overlapping pairs the
                // deeper (signed gaps): an overlap is met, and the depth pruning starts, sooner.
                if split_b {
                    let (l, r) = cb.unwrap_or((j, j));
                    let (l, r) = if self.sphere_bounds(i, l).0 <= self.sphere_bounds(i, r).0 {
                        (l, r)
                    } else {
                        (r, l)
                    };
                    self.visit(i, l)?;
                    self.visit(i, r)
                } else {
                    let (l, r) = ca.unwrap_or((i, i));
                    let (l, r) = if self.sphere_bounds(l, j).0 <= self.sphere_bounds(r, j).0 {
                        (l, r)
                    } else {
                        (r, l)
                    };
                    self.visit(l, j)?;
                    self.visit(r, j)
                }
            }
        }
    }

    /// Intersect's dive, before the search: straight down the two trees by the bounding balls
    /// alone (no hull tests), deeper ball overlap first, into node pairs whose balls overlap
    /// by more than `certain` (the balls' overlap bounds the depth of any pieces inside them,
    /// so the others cannot hold a pair deep enough to prove the overlap); at most `budget`
    /// leaf pairs get their convex depth. A leaf pair deeper than `certain` proves the overlap
    /// and stops the query there, as the search would at it: a deep overlap is answered
    /// without the inner nodes' hull tests (86 % of an overlapping intersect's instructions
    /// before). Otherwise the search goes on as without the dive (only a deep pair joins the
    /// contact set here, and it ends the query; the leaf pairs' caches are kept). Called by
    /// [`Search::visit`] at the root pair once the roots' hulls overlap (a separated pose
    /// pays nothing). Measured (`mesh_profile`, 2 880-triangle knots): overlapping intersect
    /// 3.12 → 2.69 M instructions, near 2.39 → 2.60 M; more leaves (32) found no more deep
    /// pairs (2.88 / 3.62 M): the balls' overlap is a weak guide to the hulls'.
    ///
    /// Termination: a recursion down the trees (depth at most the sum of their depths), each
    /// leaf pair spending one of `budget`, which ends the dive at 0.
    fn dive(&mut self, i: u32, j: u32, budget: &mut u32) -> Result<(), PolycdError> {
        if self.stopped || *budget == 0 {
            return Ok(());
        }
        let (_, depth_bound) = self.sphere_bounds(i, j);
        if depth_bound <= self.certain {
            return Ok(());
        }
        let (a, b) = (self.a, self.b);
        let (na, nb) = (&a.nodes[i as usize], &b.nodes[j as usize]);
        match (na.children, nb.children) {
            (None, None) => {
                *budget -= 1;
                let pc = self.mesh.node_pair(i, j);
                let (ha, hb) = (na.hull()?, nb.hull()?);
                // The boolean first (a separated pair, the common case, costs no distance).
                let hit = query::intersect(ha, self.pose_a, hb, self.pose_b, Algorithm::Auto, pc)?;
                if !matches!(hit, Intersection::Overlapping { .. }) {
                    return Ok(());
                }
                let d = query::distance(ha, self.pose_a, hb, self.pose_b, Algorithm::Auto, pc)?;
                if let Distance::Penetrating {
                    penetration: Some(p), ..
                } = d
                {
                    if p.relative_depth > self.certain {
                        self.contacts.push(PieceContact {
                            pieces: (na.piece, nb.piece),
                            penetration: p,
                        });
                        self.deep = true;
                        self.stopped = true;
                    }
                }
                Ok(())
            }
            (ca, cb) => {
                let split_b = na.splits_other(nb);
                let (x, y) = if split_b {
                    let (l, r) = cb.unwrap_or((j, j));
                    ((i, l), (i, r))
                } else {
                    let (l, r) = ca.unwrap_or((i, i));
                    ((l, j), (r, j))
                };
                let (x, y) = if self.sphere_bounds(x.0, x.1).0 <= self.sphere_bounds(y.0, y.1).0 {
                    (x, y)
                } else {
                    (y, x)
                };
                self.dive(x.0, x.1, budget)?;
                self.dive(y.0, y.1, budget)
            }
        }
    }

    /// Measures the deferred leaf pairs' triangles, in the traversal's order (see
    /// [`Search::defer`]); one pass over a list the traversal filled (at most one entry per
    /// leaf pair visited).
    fn measure_deferred(&mut self) {
        let mut list = std::mem::take(self.deferred);
        for &(pa, pb, hull_distance) in &list {
            // A leaf pair measured late whose hulls are farther than the limit now is pruned,
            // as the traversal would have.
            if hull_distance > 0.0 && hull_distance > self.limit() {
                self.floor = self.floor.min(hull_distance);
                continue;
            }
            self.leaf_triangles(pa, pb);
            // Every triangle pair left is farther than the limit (and the hulls).
            self.floor = self.floor.min(self.limit().max(hull_distance));
        }
        list.clear();
        *self.deferred = list;
    }

    /// Exact distances of the two pieces' triangles (in A's frame), pruned by their boxes.
    ///
    /// Ties: where the closest points are not unique (parallel faces, an edge parallel to a
    /// face), several triangle pairs are equally near — e.g. a cube's facing quad and the
    /// quads that share its edges. Among pairs within [`Search::tie`] of the best distance, the
    /// pair whose triangles face each other best is kept (the sum of the cosines of the
    /// outward normals with the closest direction), so the features named are the facing
    /// faces where there are such.
    fn leaf_triangles(&mut self, pa: u32, pb: u32) {
        let (a, b) = (self.a, self.b);
        self.tris_b.clear();
        for &t in &b.pieces[pb as usize] {
            let tri = b.triangles[t as usize].map(|v| {
                let v = v as usize;
                if self.stamps[v] != self.stamp {
                    self.stamps[v] = self.stamp;
                    self.verts_b[v] = self
                        .pose_a
                        .inverse_transform_point(self.pose_b.transform_point(b.vertices[v]));
                }
                self.verts_b[v]
            });
            self.tris_b.push(LeafTriangle::new(tri));
        }
        let facing = |t: &[DVec3; 3], dir: DVec3| {
            let n = (t[1] - t[0]).cross(t[2] - t[0]);
            let l = n.length() * dir.length();
            if l > 0.0 {
                n.dot(dir) / l
            } else {
                0.0
            }
        };
        for &ta in &a.pieces[pa as usize] {
            let la = LeafTriangle::new(a.triangles[ta as usize].map(|v| a.vertices[v as usize]));
            let tri_a = la.corners;
            for (k, &tb) in b.pieces[pb as usize].iter().enumerate() {
                let lb = self.tris_b[k];
                if la.gap(&lb) > self.limit() || la.plane_gap(&lb) > self.limit() {
                    continue;
                }
                let tri_b = lb.corners;
                let d = triangle_distance(&tri_a, &tri_b);
                if d.distance > self.limit() {
                    continue;
                }
                let dir = d.point_b - d.point_a;
                let score = if d.distance > 0.0 {
                    facing(&tri_a, dir) - facing(&tri_b, dir)
                } else {
                    // Touching: the triangles whose normals are most opposed.
                    let nb = (tri_b[1] - tri_b[0]).cross(tri_b[2] - tri_b[0]);
                    -facing(&tri_a, nb)
                };
                let better = if d.distance < self.min_seen - self.tie {
                    true
                } else if score != self.best_score {
                    score > self.best_score
                } else {
                    d.distance < self.best.distance
                };
                self.min_seen = self.min_seen.min(d.distance);
                if better {
                    self.best_score = score;
                    self.best = Best {
                        distance: d.distance,
                        point_a: d.point_a,
                        point_b: d.point_b,
                        triangles: (ta, tb),
                        features: (d.feature_a, d.feature_b),
                        pieces: (pa, pb),
                        floor: f64::INFINITY,
                    };
                }
            }
        }
    }
}
