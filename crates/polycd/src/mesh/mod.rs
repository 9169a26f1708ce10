//! Non-convex closed triangle meshes: validation, convex surface decomposition, the convex
//! hull tree and the BVTT distance query between two meshes (with its front).
//!
//! Paper: X. Zhang, M. Lee, Y. J. Kim, *Interactive Continuous Collision Detection for
//! Non-Convex Polyhedra* (2006), papers/002, §3.3 and §5; the decomposition follows the idea
//! of Ehmann & Lin's convex surface decomposition (the paper's reference 10). The continuous
//! query over these structures (Alg. 2, hierarchical conservative advancement) is
//! [`crate::ccd::mesh`], one layer up: this module asks only the discrete convex queries
//! ([`crate::query`]) of piece and node pairs.
//!
//! # Outline
//! 0. Repair ([`MeshRepair`], [`MeshOptions`]): bit-equal vertices welded (optionally within
//!    [`MESH_WELD_REL`] × scale), zero-area triangles (a repeated corner after welding, or
//!    exactly collinear corners) and duplicate triangles dropped (a back-to-back pair both);
//!    each triangle keeps its input face ([`TriMesh::input_face`]). O(n) expected.
//! 1. [`TriMesh::new`] checks the mesh is a closed, consistently oriented 2-manifold without
//!    degenerate triangles (typed [`MeshDefect`](crate::core::error::MeshDefect) otherwise, naming the first defect in face
//!    order, in the input's numbering), orients each closed component by its nesting (outward at even depth, inward for
//!    a cavity at odd depth; a component wound otherwise is reversed and reported by
//!    [`TriMesh::reoriented_components`]) and computes its volume centroid (the reference
//!    point of the motion).
//! 2. Convex surface decomposition (§3.3): triangles are grouped greedily into *patches*. A
//!    patch grows from an unassigned seed triangle across edges, by breadth-first search; a
//!    neighbouring triangle joins when the patch stays convex within [`COPLANAR_MERGE_REL`] ×
//!    scale (no patch vertex more than that above any patch triangle's plane: nearly coplanar
//!    triangles merge, so an in-plane subdivision decomposes like the coarse mesh). The
//!    grown patch's convex hull (the *piece*, the exact hull of its vertices) must stay inside
//!    the solid: no triangle of the mesh reaches more than [`CCD_PIECE_REL`] × scale into it.
//!    If it does not, the longest passing prefix of the growth order is kept (bisection), the
//!    triangle that broke it is excluded and the patch grows again (a few rounds). A patch
//!    flat within the merge tolerance has a flat hull, which is no solid; such a patch gets
//!    one extra point behind it (its centroid moved inward along its normal, halving the
//!    depth until the piece is inside), so every piece is a solid convex polyhedron with the
//!    patch on its boundary. Every triangle is in exactly one piece, so the pieces cover the
//!    boundary, and the inside check keeps each piece inside the solid: their union lies
//!    between the boundary and the solid (up to the merge tolerance and [`CCD_PIECE_REL`]),
//!    which is all a distance query between disjoint solids needs. Deterministic.
//! 3. Convex hull tree (§5.1): pieces split in halves at the median of their centroids along
//!    the widest axis; each inner node is the hull of its two children's hull vertices. A node
//!    keeps only its hull's vertices and bounding sphere; the hull as a [`ConvexPolyhedron`](crate::shape::polyhedron::ConvexPolyhedron)
//!    (topology and the per-shape tables) is built on first use ([`HullNode::hull`]), so the
//!    memory is a few vertices per node plus the hulls a query has visited.
//!
//! # Cost of each phase (n triangles, V vertices, P ≤ [`MAX_PATCH`] triangles per patch)
//! - repair and checks: O(n) expected (hashing); for several shells their nesting, at most
//!   8 rays per tried vertex, each over the other shell's triangles;
//! - adjacency and the triangles' box tree: O(n log n);
//! - growth: O(P) per candidate (its new vertices against the patch's planes, the patch's
//!   vertices against its plane), O(P²) per patch;
//! - acceptance: one hull (Quickhull, O(P log P)) and one inside check per patch (box-tree
//!   query, O(log n + k) triangles, each against the hull's f faces), O(log P) more for a
//!   patch cut back; in all about O(n log n + n·P) on meshes whose patches are small;
//! - hull tree: O(pieces log pieces) for the splits, and a Quickhull of the children's hull
//!   vertices at every inner node: O(V log V) per level, O(V log V log pieces) in all;
//! - save/load ([`TriMesh::save`], [`TriMesh::load`]): O(n + tree points).
//!
//! 4. BVTT distance (Alg. 3): from the two roots, each node pair's distance by the discrete
//!    query; a pair nearer than the best distance so far descends (the larger node, the
//!    nearer child first); a pair that is not, or a pair of leaves, is a *front* node, stored
//!    with its distance and closest direction. A pair whose bounding spheres are already no
//!    nearer than the best distance is a front node with the spheres' gap and direction,
//!    without a hull query.
//!
//! # Invariants
//! - Mesh distance = minimum leaf distance, never larger than the true distance (pieces cover
//!   the boundary) and smaller by at most 2·([`CCD_PIECE_REL`] + [`COPLANAR_MERGE_REL`])·scale
//!   (pieces stay inside up to these margins; the merge tolerance is ten times below
//!   [`CCD_PIECE_REL`], so the bound is within 2.2·[`CCD_PIECE_REL`]·scale).
//! - Every front node carries a distance `d > 0` and a unit direction `n` such that its two
//!   hulls are at least `d` apart along `n` (planes normal to `n`): the exact distance, the
//!   bounding spheres' gap, or a kept pair's decreased gap; the front is a cut of the BVTT
//!   (see `bvtt_track`).
//! - One mesh inside the other: the surface pieces do not see it (their surfaces are apart).
//!   At `t = 0` one vertex of each connected shell of each mesh is tested against the other
//!   mesh by its winding number (with the surfaces apart, a shell is wholly in or out);
//!   later it cannot arise without the surfaces touching first, which the advancement catches.
//!
//! # Termination
//! The decomposition visits each triangle once as a seed and each (patch, neighbour) candidate
//! at most once per growth round (a stamp per triangle and patch; at most four rounds, at
//! most [`MAX_PATCH`] triangles per patch); a bisection halves its range at every step, and
//! the point behind a flat patch is moved at most 40 times. The traversal visits each node
//! pair at most once.
//!
//! # Departures from the paper
//! - The paper uses SWIFT++'s decomposition and Voronoi marching; the decomposition here is
//!   the simple greedy rule above, and node distances come from [`query::distance`](crate::query::distance) (with
//!   GJK, a clear overlap of two nodes is reported without measuring its depth: the traversal
//!   only descends there).
//! - The second child of Alg. 3 is searched with the best distance found by the first
//!   (the paper passes `d_Current` unchanged): a tighter prune, and the front still covers.
//! - Alg. 3 descends B's tree to its leaves before A's; we descend the node with the larger
//!   bounding radius, nearer child first (fewer node pairs, and the best distance falls
//!   sooner), and prune by bounding spheres before the hull query. A sphere-pruned front node
//!   carries the spheres' gap (a lower bound of the hulls' distance) and the centres'
//!   direction: the plane between the spheres separates the hulls, which is all the
//!   advancement's argument needs (BENCHMARKS.md, "Continuous collision, torus knots").
//! - Decomposition: one hull per candidate patch, the acceptance checks through a box tree,
//!   and a piece's polyhedron tables built on its first query (BENCHMARKS.md, "Mesh
//!   decomposition": figures and commands).
//! - The traversal stops as soon as a leaf pair is within the distance threshold (the
//!   advancement ends there anyway); the distance reported is then that pair's.
//! - Front tracking and the node-pair caches: see [`crate::ccd::mesh`].
//!
//! [`CCD_PIECE_REL`]: crate::core::tolerance::CCD_PIECE_REL
//! [`COPLANAR_MERGE_REL`]: crate::core::tolerance::COPLANAR_MERGE_REL
//! [`MESH_WELD_REL`]: crate::core::tolerance::MESH_WELD_REL

pub(crate) mod bvtt;
mod decompose;
mod directional;
mod from_convex;
mod manifold;
mod nest;
mod probe;
mod repair;
pub mod solid;
mod store;
pub mod surface;
mod tree;
pub mod tri_dist;
mod trimesh;

pub use bvtt::{bvtt_distance, FrontNode, MeshCache, MeshDistance, NODE_CACHE_QUERIES, SPARE_CACHES};
pub use directional::{directional, directional_with_cache, MeshDirectional, MeshDirectionalCache, MeshTouch};
pub use manifold::{contact_manifolds, MeshContactPoint, MeshManifold};
pub use probe::{point_query, ray_cast, MeshPointAnswer, MeshRayHit};
pub use repair::{MeshOptions, MeshRepair};
pub use solid::{
    contact_set, contact_tolerance, distance, intersect, solid_contact_tolerance, MeshAnswer, MeshOverlap,
    PieceContact, Side, Solid, SolidCache, SolidFeature, NOT_MEASURED,
};
pub use store::DECOMPOSITION_VERSION;
pub use surface::{Body, TriSurface};
pub use tree::HullNode;
pub use tri_dist::{triangle_distance, TriFeature, TriangleDistance};
pub use trimesh::{MeshComponent, TriMesh};

/// Largest number of triangles in one patch (bounds the decomposition's work per piece,
/// O(MAX_PATCH²) for its growth). Was 256: a 1:16 in-plane subdivision of a knot whose
/// largest piece has 42 triangles needs 672 (46 080 triangles: 538 pieces at 256 against the
/// coarse mesh's 466, 1.15×).
pub const MAX_PATCH: usize = 1024;
