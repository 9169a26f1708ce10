//! The convex hull tree (FAST §5.1): median splits of the pieces along the widest axis.

use crate::core::error::PolycdError;
use crate::core::math::DVec3;
use crate::shape::polyhedron::ConvexPolyhedron;

/// "No such index" (a leaf's children, an inner node's piece, an unassigned triangle).
pub(crate) const NONE: u32 = u32::MAX;

/// A node of the convex hull tree.
#[derive(Clone, Debug)]
pub struct HullNode {
    /// The convex hull of the node's pieces (mesh frame).
    pub hull: ConvexPolyhedron,
    /// Children (inner node), or `None` for a leaf.
    pub children: Option<(u32, u32)>,
    /// The piece of a leaf (`u32::MAX` for inner nodes).
    pub piece: u32,
}

/// The hull tree over `leaves` (one per piece, in piece order): the nodes, leaves first, and
/// the root's index.
pub(crate) fn build_tree(leaves: Vec<HullNode>) -> Result<(Vec<HullNode>, u32), PolycdError> {
    let centres: Vec<DVec3> = leaves.iter().map(|n| n.hull.bounding_sphere().0).collect();
    let mut nodes = leaves;
    let mut order: Vec<u32> = (0..nodes.len() as u32).collect();
    let root = build(&mut order, &centres, &mut nodes)?;
    Ok((nodes, root))
}

/// Builds the subtree over the leaves `order` (indices into `nodes`, whose first entries are
/// the leaves) and returns its root. Depth ≤ ⌈log₂ n⌉ + 1 (median splits).
fn build(order: &mut [u32], centres: &[DVec3], nodes: &mut Vec<HullNode>) -> Result<u32, PolycdError> {
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
    let l = build(left, centres, nodes)?;
    let r = build(right, centres, nodes)?;
    let mut pts: Vec<DVec3> = nodes[l as usize].hull.vertices().to_vec();
    pts.extend_from_slice(nodes[r as usize].hull.vertices());
    let hull = ConvexPolyhedron::from_points(&pts)?;
    nodes.push(HullNode {
        hull,
        children: Some((l, r)),
        piece: NONE,
    });
    Ok(nodes.len() as u32 - 1)
}

/// Axis-aligned bounds of points.
pub(crate) fn bounds(points: impl Iterator<Item = DVec3>) -> (DVec3, DVec3) {
    points.fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(p), hi.max(p)),
    )
}
