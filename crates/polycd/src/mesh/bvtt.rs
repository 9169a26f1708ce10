//! The BVTT distance query between two meshes (FAST Alg. 3) and its front tracking.

use super::tree::NONE;
use super::trimesh::TriMesh;
use crate::contract::pose_ok;
use crate::core::error::PolycdError;
use crate::core::geometry::closest_on_triangle;
use crate::core::hash::IdBuildHasher;
use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::{CONTACT_REL, SAFE_MAGNITUDE_MAX, SAFE_MAGNITUDE_MIN};
use crate::query::{self, Algorithm, Distance, Feature, FeaturePair, PairCache};
use crate::shape::polyhedron::ConvexPolyhedron;
use crate::vclip::{self, VClipCache};
use std::collections::HashMap;

/// A front node of the BVTT (Alg. 3): a pair of hull-tree nodes, their distance and closest
/// points (world frame) at the time of the query. A pair pruned by its bounding spheres
/// carries the spheres' gap and closest points instead, and a pair kept from the previous
/// step of the continuous query (`ccd::mesh::time_of_contact`) without a query its gap along its previous direction (its
/// `point_a` is then the previous step's). In every case `distance` is a lower bound of the
/// hulls' distance and `point_b − point_a`, of that length, a direction along which the hulls
/// are at least that far apart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrontNode {
    /// Node of A's hull tree.
    pub node_a: u32,
    /// Node of B's hull tree.
    pub node_b: u32,
    /// Their distance (0 when the hulls overlap).
    pub distance: f64,
    /// Closest point on A's node (world; NaN when overlapping).
    pub point_a: DVec3,
    /// Closest point on B's node (world; NaN when overlapping).
    pub point_b: DVec3,
}

/// Caller-owned state of mesh queries on one pair of meshes: the BVTT front of the last
/// query (the continuous query of `ccd::mesh` tracks it from step to step) and each node
/// pair's discrete-query cache, reused across queries.
#[derive(Clone, Debug, Default)]
pub struct MeshCache {
    /// The front of the last BVTT query.
    pub front: Vec<FrontNode>,
    /// The previous step's front while the next one is built (kept for its capacity).
    previous: Vec<FrontNode>,
    /// Node pairs' discrete-query caches, each stamped with the last query that used it;
    /// see [`MeshCache::begin_query`] for how many are kept.
    pairs: HashMap<(u32, u32), NodePairCache, IdBuildHasher>,
    /// Caches dropped from `pairs`, forgotten and kept for their buffers' capacity.
    spare: Vec<PairCache>,
    /// Count of mesh queries made with this cache (the stamp of `pairs`' entries).
    generation: u32,
    /// The front pairs' gaps along their directions at the next step (lower bounds), set by
    /// the continuous query before a tracked traversal.
    pub(crate) gaps: Vec<f64>,
    /// Which front pairs were kept from the previous step without a query.
    pub(crate) lazy: Vec<bool>,
    /// Size of the front of the last query from the roots.
    pub(crate) root_front: usize,
    /// The best leaf pair of the last traversal, whose exact distance at the new poses starts
    /// the next tracked one (continuous query only; see [`bvtt_track`]).
    last_best: Option<(u32, u32)>,
}

impl MeshCache {
    /// Forgets the node pairs' coherence (use when reusing the cache for another mesh pair).
    pub fn forget(&mut self) {
        self.front.clear();
        self.previous.clear();
        let spare = &mut self.spare;
        for (_, mut e) in self.pairs.drain() {
            if spare.len() < SPARE_CACHES {
                e.cache.forget();
                spare.push(e.cache);
            }
        }
        self.gaps.clear();
        self.lazy.clear();
        self.last_best = None;
    }

    /// Number of node pairs whose discrete-query caches are held (at most those used by the
    /// last [`NODE_CACHE_QUERIES`] mesh queries).
    pub fn node_pair_caches(&self) -> usize {
        self.pairs.len()
    }

    /// Starts a mesh query: node-pair caches unused by the last [`NODE_CACHE_QUERIES`]
    /// queries are dropped (forgotten and kept in `spare`, up to [`SPARE_CACHES`], for their
    /// buffers). Without this the map grew with every node pair ever visited: 65 000 caches
    /// (60 MB and their buffers) after 400 random motions of two 2 880-triangle knots, and up
    /// to the product of the trees' sizes. One pass over the map, whose size is bounded by
    /// the node pairs of the last few queries.
    pub(crate) fn begin_query(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        let g = self.generation;
        let spare = &mut self.spare;
        self.pairs.retain(|_, e| {
            if g.wrapping_sub(e.used) <= NODE_CACHE_QUERIES {
                return true;
            }
            if spare.len() < SPARE_CACHES {
                let mut c = std::mem::take(&mut e.cache);
                c.forget();
                spare.push(c);
            }
            false
        });
    }

    /// The discrete-query cache of the node pair `(i, j)`, stamped as used by this query.
    pub(crate) fn node_pair(&mut self, i: u32, j: u32) -> &mut PairCache {
        let (g, spare) = (self.generation, &mut self.spare);
        let e = self.pairs.entry((i, j)).or_insert_with(|| NodePairCache {
            cache: spare.pop().unwrap_or_default(),
            used: g,
        });
        e.used = g;
        &mut e.cache
    }
}

/// A node pair's discrete-query cache and the last query ([`MeshCache`]'s generation) that
/// used it.
#[derive(Clone, Debug)]
struct NodePairCache {
    cache: PairCache,
    used: u32,
}

/// Node-pair caches are kept while one of the last this many mesh queries used them: the
/// coherence a query's caches carry is for the next queries on the same pair of meshes
/// (consecutive frames), and an advancement's steps all belong to one query.
pub const NODE_CACHE_QUERIES: u32 = 2;

/// Most dropped node-pair caches kept for reuse (their scratch buffers; each is about a
/// kilobyte inline): enough for the node pairs a query on the bench's knots visits, so a
/// query that meets new node pairs seldom allocates.
pub const SPARE_CACHES: usize = 1024;

/// Answer of [`bvtt_distance`] between two meshes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum MeshDistance {
    /// The surfaces are apart (by at least `distance`, up to the pieces' margin) and neither
    /// solid contains the other.
    Separated {
        /// The distance (of the closest leaf pair, see [`bvtt_distance`]).
        distance: f64,
        /// Closest point on A (world).
        point_a: DVec3,
        /// Closest point on B (world).
        point_b: DVec3,
        /// The pieces of A and B carrying them.
        pieces: (u32, u32),
        /// Triangles of A and B nearest to the closest points.
        triangles: (u32, u32),
    },
    /// The solids overlap: two pieces overlap (`pieces`), or one solid contains the other
    /// (`pieces = None`).
    Overlapping {
        /// The overlapping pieces, when found by the surfaces.
        pieces: Option<(u32, u32)>,
    },
}

/// Distance between two meshes at fixed poses by the BVTT traversal (Alg. 3), with the
/// containment test: the piece hulls' distance, a lower bound of the surfaces' distance
/// within 2·[`CCD_PIECE_REL`](crate::core::tolerance::CCD_PIECE_REL)·scale (the continuous
/// query's measure). The exact distance of the solids is [`crate::mesh::distance`]. The traversal stops at the first leaf pair within `stop_below`
/// (pass 0 for the exact minimum); `algorithm` answers the node distances (`Auto`: V-Clip,
/// whose feature tracking suits node pairs asked again after small motions).
pub fn bvtt_distance(
    a: &TriMesh,
    pose_a: &Pose,
    b: &TriMesh,
    pose_b: &Pose,
    stop_below: f64,
    algorithm: Algorithm,
    cache: &mut MeshCache,
) -> Result<MeshDistance, PolycdError> {
    cache.begin_query();
    let best = bvtt_query(a, pose_a, b, pose_b, Prune { stop_below, relax: 0.0 }, algorithm, cache)?;
    if best.distance > 0.0 {
        if let Some(d) = containment(a, pose_a, b, pose_b) {
            return Ok(d);
        }
    }
    Ok(best_answer(a, pose_a, b, pose_b, &best))
}

/// One mesh inside the other (their surfaces apart): with the surfaces disjoint, each
/// connected shell of one mesh is wholly inside or wholly outside the other solid, so one
/// vertex per shell decides.
pub(crate) fn containment(a: &TriMesh, pose_a: &Pose, b: &TriMesh, pose_b: &Pose) -> Option<MeshDistance> {
    let inside = |x: &TriMesh, px: &Pose, y: &TriMesh, py: &Pose| {
        x.component_vertices.iter().any(|&v| {
            let w = px.transform_point(x.vertices[v as usize]);
            y.contains_point(py.inverse_transform_point(w))
        })
    };
    (inside(a, pose_a, b, pose_b) || inside(b, pose_b, a, pose_a)).then_some(MeshDistance::Overlapping { pieces: None })
}

pub(crate) fn best_answer(a: &TriMesh, pose_a: &Pose, b: &TriMesh, pose_b: &Pose, best: &FrontNode) -> MeshDistance {
    let pieces = (a.nodes[best.node_a as usize].piece, b.nodes[best.node_b as usize].piece);
    if !(best.distance > 0.0) {
        return MeshDistance::Overlapping { pieces: Some(pieces) };
    }
    MeshDistance::Separated {
        distance: best.distance,
        point_a: best.point_a,
        point_b: best.point_b,
        pieces,
        triangles: (
            a.nearest_triangle(pieces.0, pose_a.inverse_transform_point(best.point_a)),
            b.nearest_triangle(pieces.1, pose_b.inverse_transform_point(best.point_b)),
        ),
    }
}

impl TriMesh {
    /// The triangle of `piece` nearest to the point `p` (mesh frame).
    fn nearest_triangle(&self, piece: u32, p: DVec3) -> u32 {
        let mut best = (f64::INFINITY, NONE);
        for &t in self.pieces.get(piece as usize).map_or(&[][..], |v| &v[..]) {
            let [x, y, z] = self.triangles[t as usize].map(|v| self.vertices[v as usize]);
            let d = (closest_on_triangle(p, x, y, z) - p).length_squared();
            if d < best.0 {
                best = (d, t);
            }
        }
        best.1
    }
}

/// Whether the query layer's `distance_or_overlap` would answer this pair by V-Clip's own
/// distance unchanged (before its near-contact settlement): poses valid as given, neither
/// shape rounded, every coordinate in the safe band (no rescaled copies), and V-Clip able to
/// take both shapes. The same tests as the query layer's dispatch, in its order; when any
/// fails the traversal asks the query layer (see [`Traversal::inner_pair`]).
fn vclip_as_query(a: &ConvexPolyhedron, pose_a: &Pose, b: &ConvexPolyhedron, pose_b: &Pose) -> bool {
    let m = a
        .magnitude
        .max(b.magnitude)
        .max(pose_a.translation.abs().max_element())
        .max(pose_b.translation.abs().max_element());
    pose_ok(pose_a)
        && pose_ok(pose_b)
        && a.radius == 0.0
        && b.radius == 0.0
        && (SAFE_MAGNITUDE_MIN..=SAFE_MAGNITUDE_MAX).contains(&m)
        && vclip::supports(a, b).is_ok()
}

/// How far the BVTT traversal goes: it stops at the first leaf pair within `stop_below`, and
/// prunes with the relative slack `relax` (0: the exact minimum; see `Traversal::limit`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Prune {
    /// Stop at the first leaf pair at most this far apart.
    pub stop_below: f64,
    /// Relative slack of the prune, in `[0, 1)`.
    pub relax: f64,
}

/// The BVTT traversal; fills `cache.front` and returns the best leaf pair: the nearest with
/// `relax = 0`, else see [`bvtt_track`] (the continuous query passes
/// `ccd::mesh::FRONT_PRUNE_REL`).
pub(crate) fn bvtt_query(
    a: &TriMesh,
    pose_a: &Pose,
    b: &TriMesh,
    pose_b: &Pose,
    prune: Prune,
    algorithm: Algorithm,
    cache: &mut MeshCache,
) -> Result<FrontNode, PolycdError> {
    let Prune { stop_below, relax } = prune;
    cache.front.clear();
    cache.lazy.clear();
    let mut t = Traversal::new(a, pose_a, b, pose_b, stop_below, algorithm, cache);
    t.relax = relax;
    t.visit(a.root, b.root)?;
    let best = t.best;
    cache.root_front = cache.front.len();
    cache.last_best = best.distance.is_finite().then_some((best.node_a, best.node_b));
    Ok(best)
}

/// The BVTT query started from the previous front (front tracking): each pair of the previous
/// front, in its order, is either kept without a query — when its gap `g` at the new poses
/// (see below) is no smaller than the prune limit (the best distance so far, or less with
/// `relax`, see [`Traversal::limit`]) — or re-evaluated at the new poses by
/// [`Traversal::visit_along`] (its old direction first), which keeps it or refines it
/// downward. Fills `cache.front` (and
/// `cache.lazy`: which pairs were kept without a query) and returns the best leaf pair.
///
/// Gap of a kept pair: at the last step the pair had distance (or gap) `d` along the unit
/// direction `n`, i.e. two parallel planes normal to `n`, `d` apart, separate its hulls; the
/// step `Δt` was at most the pair's own safe step, so no point of either hull moved along `n`
/// by more than the bounds of [`closing`] allow, and the planes, moved with the hulls, are
/// still `g = d − closing(Δt) ≥ 0` apart (`cache.gaps`). `g` is a lower bound of the hulls'
/// distance and `n` a valid direction for the next step's motion bound, which is all the
/// advancement needs of a front pair (as for a pair pruned by its bounding spheres).
///
/// Covering (the advancement's invariant): let the BVTT be the fixed tree of node pairs in
/// which a pair's children split the node of larger hull scale (a deterministic rule, so every
/// pair has the same children in every query, and the leaf pairs below a pair are the
/// products of the pieces below its two nodes). A *cut* is a set of BVTT pairs with exactly
/// one on the path from the root to every leaf pair. The previous front is a cut (the root
/// alone is one, and by induction below). A kept pair is its own subtree's cut; `visit(p)`
/// pushes `p`, or visits both children of `p`, which partition `p`'s leaf pairs, so by
/// induction on the height it pushes a cut of `p`'s subtree — unless it returns early at a
/// leaf pair within `stop_below`, after which the query's answer is a contact and the front
/// is not used. The union of cuts of the subtrees of a cut's pairs is a cut of the whole BVTT:
/// the new front covers every pair of pieces exactly once. Distance: a pushed or kept inner
/// pair is no nearer than the prune limit at the time (hull distance, spheres' gap, support
/// gap along a direction or kept gap, each a lower bound of every leaf pair below it). With
/// `relax = 0` the limit is the best distance, which only falls; so no leaf pair under a
/// front pair is nearer than the final best, which is the minimum leaf distance — the same
/// minimum as the query from the roots. With `relax > 0` the best is a leaf pair within a
/// factor `1/(1 − relax)` of the minimum while that is above `stop_below`; a leaf pair within
/// `stop_below` is found either way (a pair above it hiding one would have a lower bound
/// at most `stop_below`, below both limits).
pub(crate) fn bvtt_track(
    a: &TriMesh,
    pose_a: &Pose,
    b: &TriMesh,
    pose_b: &Pose,
    prune: Prune,
    algorithm: Algorithm,
    cache: &mut MeshCache,
) -> Result<FrontNode, PolycdError> {
    let Prune { stop_below, relax } = prune;
    std::mem::swap(&mut cache.front, &mut cache.previous);
    cache.front.clear();
    cache.lazy.clear();
    let previous = std::mem::take(&mut cache.previous);
    let gaps = std::mem::take(&mut cache.gaps);
    // In the previous traversal's order (depth first, nearer child first), not sorted by the
    // previous distances: sorting lets the best distance fall at once, which prunes more and
    // leaves a coarser front, whose inner pairs then limit the step (measured on the bench's
    // 2 880-triangle knots: 4.33 steps and 2.3 M instructions per query sorted, 4.17 and
    // 2.1 M in this order).
    let last_best = cache.last_best.take();
    let mut t = Traversal::new(a, pose_a, b, pose_b, stop_below, algorithm, cache);
    t.relax = relax;
    let mut result = Ok(());
    // With the relaxed prune (the continuous query), the previous best leaf pair's exact
    // distance at the new poses starts the best distance: any leaf pair's distance is an
    // upper bound of the minimum, which is all the prune limit needs, and without it the
    // first re-evaluated front pairs would be descended to a leaf whatever their gap.
    if let (Some((i, j)), true) = (last_best, relax > 0.0) {
        result = t.leaf_best(i, j);
    }
    for (k, f) in previous.iter().enumerate() {
        if result.is_err() {
            break;
        }
        // (A missing gap, which the advancement loop never leaves, means a query.)
        let g = gaps.get(k).copied().unwrap_or(f64::NEG_INFINITY);
        if t.prunes(g) && t.best.distance > t.stop_below {
            // Still no nearer than the best distance along its old direction: kept without
            // a query, with that gap (a lower bound of the hulls' distance) and direction.
            let n = (f.point_b - f.point_a) / f.distance;
            t.cache.front.push(FrontNode {
                distance: g,
                point_b: f.point_a + n * g,
                ..*f
            });
            t.cache.lazy.push(true);
            continue;
        }
        // Its previous direction first (a separation along it at the new poses, by two
        // support climbs, before an exact hull query; see `Traversal::visit`).
        let n = (f.point_b - f.point_a) / f.distance;
        result = t.visit_along(f.node_a, f.node_b, n);
        if result.is_err() {
            break;
        }
        let len = t.cache.front.len();
        t.cache.lazy.resize(len, false);
    }
    let best = t.best;
    cache.previous = previous;
    cache.gaps = gaps;
    cache.last_best = best.distance.is_finite().then_some((best.node_a, best.node_b));
    result.map(|()| best)
}

struct Traversal<'a> {
    a: &'a TriMesh,
    pose_a: &'a Pose,
    b: &'a TriMesh,
    pose_b: &'a Pose,
    stop_below: f64,
    algorithm: Algorithm,
    cache: &'a mut MeshCache,
    best: FrontNode,
    /// Relative slack of the prune (see [`Traversal::limit`]); 0 for the exact minimum.
    relax: f64,
}

impl<'a> Traversal<'a> {
    /// A traversal with no leaf pair found yet (best distance +∞).
    fn new(
        a: &'a TriMesh,
        pose_a: &'a Pose,
        b: &'a TriMesh,
        pose_b: &'a Pose,
        stop_below: f64,
        algorithm: Algorithm,
        cache: &'a mut MeshCache,
    ) -> Self {
        Traversal {
            a,
            pose_a,
            b,
            pose_b,
            stop_below,
            algorithm: match algorithm {
                Algorithm::Auto => Algorithm::VClip,
                a => a,
            },
            cache,
            best: FrontNode {
                node_a: a.root,
                node_b: b.root,
                distance: f64::INFINITY,
                point_a: DVec3::NAN,
                point_b: DVec3::NAN,
            },
            relax: 0.0,
        }
    }

    /// Whether a pair (inner, or kept from the previous front) at least `d` apart is pruned.
    fn prunes(&self, d: f64) -> bool {
        d >= self.limit()
    }

    /// The prune limit: an inner pair (or a kept front pair) at least this far apart is not
    /// descended. The best distance `b` itself for the exact minimum (`relax = 0`); with a
    /// relative slack `ε = relax`, `(1 − ε)·b` while that is above `stop_below`, else `b`.
    fn limit(&self) -> f64 {
        let b = self.best.distance;
        let r = b * (1.0 - self.relax);
        if r > self.stop_below {
            r
        } else {
            b
        }
    }

    /// World bounding sphere of a node.
    fn sphere(&self, a_side: bool, i: u32) -> (DVec3, f64) {
        let (mesh, pose) = if a_side {
            (self.a, self.pose_a)
        } else {
            (self.b, self.pose_b)
        };
        let (c, r) = mesh.nodes[i as usize].bounding_sphere();
        (pose.transform_point(c), r)
    }

    /// A lower bound of the distance of nodes `i` (A) and `j` (B) from their bounding spheres,
    /// with the closest points of the spheres (world): the spheres contain the hulls, less
    /// the rounding of the pose and of the radius ([`CONTACT_REL`] of the coordinates' size).
    fn sphere_gap(&self, i: u32, j: u32) -> (f64, DVec3, DVec3) {
        let (ca, ra) = self.sphere(true, i);
        let (cb, rb) = self.sphere(false, j);
        let d = cb - ca;
        let l = d.length();
        let slack = CONTACT_REL * (ca.abs().max_element() + cb.abs().max_element() + ra + rb);
        let gap = l - ra - rb - slack;
        if !(gap > 0.0) {
            return (0.0, DVec3::NAN, DVec3::NAN);
        }
        let u = d / l;
        (gap, ca + u * (ra + 0.5 * slack), cb - u * (rb + 0.5 * slack))
    }

    /// The hulls' separation along the unit world direction `n` (from A to B): the gap
    /// `min over B of n·b − max over A of n·a` between their supporting planes normal to `n`,
    /// by one support climb on each hull (started from its direction table), less the
    /// rounding of the world positions ([`CONTACT_REL`] of their size, as for the spheres),
    /// with a point on A's plane and the point `gap` along `n` from it. A lower bound of the
    /// hulls' distance whenever it is positive (the planes separate them); at most the
    /// distance, with equality along the distance direction.
    fn support_gap(&self, i: u32, j: u32, n: DVec3) -> Result<(f64, DVec3, DVec3, (u32, u32)), PolycdError> {
        let ha = self.a.nodes[i as usize].hull()?;
        let hb = self.b.nodes[j as usize].hull()?;
        let ia = ha.support_climb_hinted(self.pose_a.inverse_transform_vector(n), u32::MAX);
        let ib = hb.support_climb_hinted(self.pose_b.inverse_transform_vector(-n), u32::MAX);
        let pa = self.pose_a.transform_point(ha.vertex(ia));
        let pb = self.pose_b.transform_point(hb.vertex(ib));
        let slack = CONTACT_REL * (pa.abs().max_element() + pb.abs().max_element());
        let gap = n.dot(pb - pa) - slack;
        Ok((gap, pa, pa + n * gap, (ia, ib)))
    }

    /// The exact distance of the leaf pair `(i, j)` (its node-pair cache warm from the last
    /// step) becomes the best distance when nearer than the best so far. A leaf pair's
    /// distance is an upper bound of the meshes' minimum leaf distance, and a leaf pair within
    /// `stop_below` is a contact, so the traversal's guarantees (see [`bvtt_track`]) hold.
    fn leaf_best(&mut self, i: u32, j: u32) -> Result<(), PolycdError> {
        let (Some(na), Some(nb)) = (self.a.nodes.get(i as usize), self.b.nodes.get(j as usize)) else {
            return Ok(());
        };
        if na.children.is_some() || nb.children.is_some() {
            return Ok(());
        }
        let node = self.hull_pair(i, j, None)?;
        if node.distance < self.best.distance {
            self.best = node;
        }
        Ok(())
    }

    /// The hull query of the node pair `(i, j)` (its node-pair cache), as a front node; a
    /// pair with no cached V-Clip features starts from the vertices `seed` when given.
    fn hull_pair(&mut self, i: u32, j: u32, seed: Option<(u32, u32)>) -> Result<FrontNode, PolycdError> {
        let na = &self.a.nodes[i as usize];
        let nb = &self.b.nodes[j as usize];
        let pc = self.cache.node_pair(i, j);
        if let Some((va, vb)) = seed {
            if pc.vclip.pair().is_none() {
                pc.vclip = VClipCache::starting_at(FeaturePair {
                    a: Feature::Vertex(va),
                    b: Feature::Vertex(vb),
                });
            }
        }
        Ok(
            match query::distance_or_overlap(na.hull()?, self.pose_a, nb.hull()?, self.pose_b, self.algorithm, pc)? {
                Distance::Separated {
                    distance,
                    point_a,
                    point_b,
                    ..
                } => FrontNode {
                    node_a: i,
                    node_b: j,
                    distance,
                    point_a,
                    point_b,
                },
                Distance::Penetrating { .. } => FrontNode {
                    node_a: i,
                    node_b: j,
                    distance: 0.0,
                    point_a: DVec3::NAN,
                    point_b: DVec3::NAN,
                },
                Distance::NotConverged { iterations } => {
                    return Err(PolycdError::CcdNotConverged {
                        iterations,
                        t_free: 0.0,
                    })
                }
            },
        )
    }

    /// The hull query of the inner node pair `(i, j)` in the continuous query (`relax > 0`):
    /// as [`Traversal::hull_pair`], except that V-Clip's answer is not settled (by GJK, in the
    /// query layer) when it is unsettled — within the contact tolerance bound, or penetrating —
    /// and already below the prune limit: the pair is then descended whatever the settled
    /// answer, and `Err` gives the direction to descend along (V-Clip's closest direction;
    /// NaN when penetrating), which only orders and seeds the children. `Ok` is the query
    /// layer's answer, as from [`Traversal::hull_pair`].
    ///
    /// Why this is conservative: descending an inner pair is always safe, whatever its
    /// distance (the children's cuts replace it on the front, see [`bvtt_track`]); what the
    /// settlement could change is only whether the pair would instead have been pushed with a
    /// distance at or above the limit. Leaf pairs, the best distance and every answer still
    /// come from [`Traversal::hull_pair`] (settled), and a pushed inner pair always carries a
    /// settled distance or a V-Clip answer beyond the tolerance bound (final in the query
    /// layer too). V-Clip is called directly only where the query layer would call it
    /// unchanged (see [`vclip_as_query`]); a clear answer is the query layer's answer to the
    /// bit, and an unsettled one above the limit is asked again through the query layer
    /// (its V-Clip restarts from the features just found).
    fn inner_pair(
        &mut self,
        i: u32,
        j: u32,
        seed: Option<(u32, u32)>,
    ) -> Result<Result<FrontNode, DVec3>, PolycdError> {
        let ha = self.a.nodes[i as usize].hull()?;
        let hb = self.b.nodes[j as usize].hull()?;
        if self.algorithm != Algorithm::VClip || !vclip_as_query(ha, self.pose_a, hb, self.pose_b) {
            return self.hull_pair(i, j, seed).map(Ok);
        }
        let limit = self.limit();
        let pc = self.cache.node_pair(i, j);
        if let Some((va, vb)) = seed {
            if pc.vclip.pair().is_none() {
                pc.vclip = VClipCache::starting_at(FeaturePair {
                    a: Feature::Vertex(va),
                    b: Feature::Vertex(vb),
                });
            }
        }
        match vclip::distance(ha, self.pose_a, hb, self.pose_b, &mut pc.vclip) {
            // Final in the query layer too (`Checked::Clear`): its answer, to the bit.
            vclip::Checked::Clear(Distance::Separated {
                distance,
                point_a,
                point_b,
                ..
            }) => {
                return Ok(Ok(FrontNode {
                    node_a: i,
                    node_b: j,
                    distance,
                    point_a,
                    point_b,
                }))
            }
            vclip::Checked::Unsettled(Distance::Separated {
                distance,
                point_a,
                point_b,
                ..
            }) if distance < limit => return Ok(Err((point_b - point_a) / distance)),
            vclip::Checked::Unsettled(Distance::Penetrating { .. }) if 0.0 < limit => return Ok(Err(DVec3::NAN)),
            // Anything else (an unsettled answer at or above the limit, non-convergence):
            // the query layer's full answer.
            _ => {}
        }
        self.hull_pair(i, j, None).map(Ok)
    }

    /// Alg. 3 on the node pair `(i, j)`, trying first the separation along `n` (a unit
    /// world direction from A to B, e.g. the pair's direction at the previous step): when it
    /// is no smaller than the prune limit ([`Traversal::limit`]) the pair is a front node with that gap and
    /// direction, with no hull query (as for the spheres' gap).
    fn visit_along(&mut self, i: u32, j: u32, n: DVec3) -> Result<(), PolycdError> {
        if self.best.distance <= self.stop_below {
            return Ok(());
        }
        // While no leaf pair is known (best +∞) an inner pair is descended whatever its
        // distance, so the continuous query does not ask it: it descends at once, its
        // bounding spheres' centre line standing in for the closest direction (which only
        // orders and seeds the children). The pair is not on the front, so no bound is lost.
        if self.relax > 0.0 && self.best.distance == f64::INFINITY {
            let (na, nb) = (&self.a.nodes[i as usize], &self.b.nodes[j as usize]);
            if na.children.is_some() || nb.children.is_some() {
                let (ca, _) = self.sphere(true, i);
                let (cb, _) = self.sphere(false, j);
                let dir = (cb - ca).normalize_or_zero();
                let dir = if dir == DVec3::ZERO { n } else { dir };
                return self.descend(i, j, dir);
            }
        }
        let mut seed = None;
        // Only in the continuous query (`relax > 0`): the discrete distance
        // ([`bvtt_distance`]) keeps its exact traversal and V-Clip starts, so its answers are
        // those of before, to the bit.
        if n.is_finite() && self.relax > 0.0 {
            let (gap, pa, pb, s) = self.support_gap(i, j, n)?;
            seed = Some(s);
            if self.prunes(gap) {
                self.cache.front.push(FrontNode {
                    node_a: i,
                    node_b: j,
                    distance: gap,
                    point_a: pa,
                    point_b: pb,
                });
                return Ok(());
            }
        }
        self.visit_seeded(i, j, seed)
    }

    /// Alg. 3 on the node pair `(i, j)` (with no direction to try first).
    fn visit(&mut self, i: u32, j: u32) -> Result<(), PolycdError> {
        self.visit_along(i, j, DVec3::NAN)
    }

    /// Alg. 3 on the node pair `(i, j)`; a pair with no cached V-Clip features starts from
    /// the vertices `seed` (the supports along a direction near the pair's closest one).
    fn visit_seeded(&mut self, i: u32, j: u32, seed: Option<(u32, u32)>) -> Result<(), PolycdError> {
        if self.best.distance <= self.stop_below {
            return Ok(());
        }
        // Bounding spheres first: a pair whose spheres are already no nearer than the best
        // distance is a front node with the spheres' gap and direction (a valid separation
        // for the advancement: the hulls lie in the spheres), without a hull query.
        let (gap, sa, sb) = if seed.is_some() {
            (0.0, DVec3::NAN, DVec3::NAN)
        } else {
            self.sphere_gap(i, j)
        };
        if self.prunes(gap) {
            self.cache.front.push(FrontNode {
                node_a: i,
                node_b: j,
                distance: gap,
                point_a: sa,
                point_b: sb,
            });
            return Ok(());
        }
        let na = &self.a.nodes[i as usize];
        let nb = &self.b.nodes[j as usize];
        let leaf = na.children.is_none() && nb.children.is_none();
        let node = if leaf || self.relax == 0.0 {
            self.hull_pair(i, j, seed)?
        } else {
            match self.inner_pair(i, j, seed)? {
                Ok(node) => node,
                // Nearer than the prune limit by V-Clip's unsettled answer: descended.
                Err(dir) => return self.descend(i, j, dir),
            }
        };
        if if leaf {
            node.distance < self.best.distance
        } else {
            !self.prunes(node.distance)
        } {
            if leaf {
                self.best = node;
            } else {
                // The children's hulls lie in the parent's: its direction separates them at
                // least as far, and is tried first for each child.
                return self.descend(i, j, (node.point_b - node.point_a) / node.distance);
            }
        }
        self.cache.front.push(node);
        Ok(())
    }

    /// Visits the children of the inner node pair `(i, j)`, each along `dir`: the larger
    /// node is split (the paper descends B's tree to its leaves first), the nearer child (by
    /// bounding spheres) first.
    fn descend(&mut self, i: u32, j: u32, dir: DVec3) -> Result<(), PolycdError> {
        let na = &self.a.nodes[i as usize];
        let nb = &self.b.nodes[j as usize];
        if na.children.is_none() && nb.children.is_none() {
            return Ok(());
        }
        let split_b = na.splits_other(nb);
        if split_b {
            let (l, r) = nb.children.unwrap_or((j, j));
            let (l, r) = if self.sphere_gap(i, l).0 <= self.sphere_gap(i, r).0 {
                (l, r)
            } else {
                (r, l)
            };
            self.visit_along(i, l, dir)?;
            self.visit_along(i, r, dir)
        } else {
            let (l, r) = na.children.unwrap_or((i, i));
            let (l, r) = if self.sphere_gap(l, j).0 <= self.sphere_gap(r, j).0 {
                (l, r)
            } else {
                (r, l)
            };
            self.visit_along(l, j, dir)?;
            self.visit_along(r, j, dir)
        }
    }
}
