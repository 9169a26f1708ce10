//! The convex hull tree (FAST §5.1): median splits of the pieces along the widest axis.

use crate::core::error::PolycdError;
use crate::core::math::DVec3;
use crate::shape::hull::small::HullScratch;
use crate::shape::polyhedron::ConvexPolyhedron;
use std::sync::OnceLock;

/// "No such index" (a leaf's children, an inner node's piece, an unassigned triangle).
pub(crate) const NONE: u32 = u32::MAX;

/// A node of the convex hull tree: the exact convex hull of its pieces, kept as the hull's
/// vertices (extreme points) and built as a [`ConvexPolyhedron`] (topology and every per-shape
/// table) the first time a query asks for it ([`HullNode::hull`]). A query touches only the
/// nodes near its front, so a large mesh carries a few vertices per node instead of every
/// table of every node (34 560-triangle torus knot: ≈ 200 MB → a few MB before the first
/// query). The first query on a node allocates once; repeated queries do not.
#[derive(Clone, Debug)]
pub struct HullNode {
    /// The hull's vertices (mesh frame), in the order the hull builder returned them (a
    /// boxed slice: no spare capacity).
    points: Box<[DVec3]>,
    /// The hull's bounding sphere, as [`ConvexPolyhedron::bounding_sphere`] computes it.
    sphere: (DVec3, f64),
    /// Boxed: an unbuilt node holds one pointer-sized cell instead of a polyhedron's inline
    /// fields (with the boxed points, a 34 560-triangle knot's build peaked at 16 MB instead
    /// of 22 MB: ≈ 0.7 KB per node).
    built: OnceLock<Box<Result<ConvexPolyhedron, PolycdError>>>,
    /// Children (inner node), or `None` for a leaf.
    pub children: Option<(u32, u32)>,
    /// The piece of a leaf (`u32::MAX` for inner nodes).
    pub piece: u32,
}

impl HullNode {
    /// A node over the hull of `points` (which must span a solid, as the hull builder found).
    pub(crate) fn new(points: Vec<DVec3>, children: Option<(u32, u32)>, piece: u32) -> HullNode {
        let sphere = sphere_of(&points);
        HullNode {
            points: points.into_boxed_slice(),
            sphere,
            built: OnceLock::new(),
            children,
            piece,
        }
    }

    /// The convex hull of the node's pieces (mesh frame), built on first use (thread-safe;
    /// later calls return the same hull). The node's points were the vertices of a solid hull
    /// when the tree was built, so this does not fail in practice; if the hull builder
    /// refused them, the error is returned (and again on every call).
    pub fn hull(&self) -> Result<&ConvexPolyhedron, PolycdError> {
        self.built
            .get_or_init(|| {
                Box::new(ConvexPolyhedron::from_points(&self.points).map(|mut p| {
                    p.shrink_to_fit();
                    p
                }))
            })
            .as_ref()
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The hull's vertices (mesh frame), without building the hull.
    pub fn points(&self) -> &[DVec3] {
        &self.points
    }

    /// The hull's bounding sphere (centre, radius), without building the hull: the same
    /// values as `self.hull().bounding_sphere()`.
    pub fn bounding_sphere(&self) -> (DVec3, f64) {
        self.sphere
    }

    /// The hull's length scale (its bounding radius), without building it: the same value
    /// as `self.hull().scale()`.
    pub fn scale(&self) -> f64 {
        self.sphere.1
    }

    /// Whether a descent into the pair (`self`, `other`) of inner or leaf nodes splits
    /// `other`: it has children and `self` none, or both have and `other` is at least as
    /// large (the larger node is split; `false` for two leaves).
    pub(crate) fn splits_other(&self, other: &HullNode) -> bool {
        match (self.children, other.children) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(_), Some(_)) => other.scale() >= self.scale(),
        }
    }

    /// Whether [`hull`](Self::hull) has been built.
    pub fn is_built(&self) -> bool {
        self.built.get().is_some()
    }
}

/// The bounding sphere [`ConvexPolyhedron`] gives a hull with these vertices: the centre of
/// their box, and the largest distance from it (computed on coordinates scaled by a power of
/// two into the safe band, as the polyhedron does).
fn sphere_of(points: &[DVec3]) -> (DVec3, f64) {
    let magnitude = points.iter().fold(0.0f64, |m, p| m.max(p.abs().max_element()));
    let s = crate::core::math::pow2_normaliser(magnitude).unwrap_or(1.0);
    let inv = 1.0 / s;
    let (lo, hi) = bounds(points.iter().copied());
    let c = (lo + hi) * 0.5;
    let r = points.iter().fold(0.0f64, |m, p| m.max(((*p - c) * s).length() * inv));
    (c, r)
}

/// The hull tree over `leaves` (one per piece, in piece order): the nodes, leaves first, and
/// the root's index.
///
/// Serial on purpose: building the hulls of one level on every core (rayon; the same nodes
/// bit for bit) raised the peak memory of a 34 560-triangle knot's build from 16 to 21 MB
/// (the workers' allocator arenas keep the nodes' points and the hull builder's scratch),
/// against the per-mesh memory target, for a phase of a quarter of the build's CPU time.
pub(crate) fn build_tree(leaves: Vec<HullNode>) -> Result<(Vec<HullNode>, u32), PolycdError> {
    let centres: Vec<DVec3> = leaves.iter().map(|n| n.sphere.0).collect();
    let mut nodes = leaves;
    let mut order: Vec<u32> = (0..nodes.len() as u32).collect();
    let mut scratch = (HullScratch::new(), Vec::new());
    let root = build(&mut order, &centres, &mut nodes, &mut scratch)?;
    Ok((nodes, root))
}

/// Builds the subtree over the leaves `order` (indices into `nodes`, whose first entries are
/// the leaves) and returns its root. Depth ≤ ⌈log₂ n⌉ + 1 (median splits). Each inner node
/// keeps the extreme points of its children's points only (their hulls' vertices, not the
/// pieces' points: Quickhull, O(m log m) for m points): O(V log n) in all for V piece
/// vertices.
fn build(
    order: &mut [u32],
    centres: &[DVec3],
    nodes: &mut Vec<HullNode>,
    scratch: &mut (HullScratch, Vec<DVec3>),
) -> Result<u32, PolycdError> {
    if order.len() == 1 {
        return Ok(order[0]);
    }
    let (lo, hi) = bounds(order.iter().map(|&i| centres[i as usize]));
    let ext = hi - lo;
    let axis = if ext.x >= ext.y && ext.x >= ext.z {
        0
    } else if ext.y >= ext.z {
        1
    } else {
        2
    };
    let mid = order.len() / 2;
    order.select_nth_unstable_by(mid, |&a, &b| {
        centres[a as usize][axis].total_cmp(&centres[b as usize][axis])
    });
    let (left, right) = order.split_at_mut(mid);
    let l = build(left, centres, nodes, scratch)?;
    let r = build(right, centres, nodes, scratch)?;
    // The same vertices as `convex_hull` (see `HullScratch`), without its allocations.
    let (scratch, pts) = scratch;
    pts.clear();
    pts.extend_from_slice(&nodes[l as usize].points);
    pts.extend_from_slice(&nodes[r as usize].points);
    scratch.build(pts)?;
    nodes.push(HullNode::new(scratch.vertices().to_vec(), Some((l, r)), NONE));
    Ok(nodes.len() as u32 - 1)
}

/// Axis-aligned bounds of points.
pub(crate) fn bounds(points: impl Iterator<Item = DVec3>) -> (DVec3, DVec3) {
    points.fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(p), hi.max(p)),
    )
}
