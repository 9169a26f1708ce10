//! The convex hull tree (FAST §5.1): median splits of the pieces along the widest axis.

use super::trimesh::{HullNode, TriMesh, NONE};
use crate::core::error::PolycdError;
use crate::core::math::DVec3;
use crate::shape::polyhedron::ConvexPolyhedron;

impl TriMesh {
    pub(crate) fn build_tree(&mut self) -> Result<(), PolycdError> {
        let leaves = std::mem::take(&mut self.nodes);
        let centres: Vec<DVec3> = leaves.iter().map(|n| n.hull.bounding_sphere().0).collect();
        let mut nodes = leaves;
        let mut order: Vec<u32> = (0..nodes.len() as u32).collect();
        self.root = build(&mut order, &centres, &mut nodes)?;
        self.nodes = nodes;
        Ok(())
    }
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
