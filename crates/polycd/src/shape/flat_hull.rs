//! The exact hull of a flat point set (issue 22): whether all points are equal, collinear or
//! coplanar (exact `orient2d` / `orient3d`, no volume tolerance), and then the point, the
//! segment's two extreme points or the polygon's corners in the order
//! [`crate::shape::flat`] builds its topology from. Knows no `ConvexPolyhedron`.

use crate::core::error::PolycdError;
use crate::core::math::{pow2_normaliser, DVec3};
use crate::core::predicates::{orient3d, Orientation};

/// Exact sign of the 2-D orientation of `a, b, c` projected along coordinate axis `drop`
/// (the other two coordinates in cyclic order: x → (y, z), y → (z, x), z → (x, y)).
fn orient2d(a: DVec3, b: DVec3, c: DVec3, drop: usize) -> i8 {
    let pick = |p: DVec3| match drop {
        0 => (p.y, p.z),
        1 => (p.z, p.x),
        _ => (p.x, p.y),
    };
    let (a, b, c) = (pick(a), pick(b), pick(c));
    let m = [a.0, a.1, b.0, b.1, c.0, c.1]
        .iter()
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let s = pow2_normaliser(m).unwrap_or(1.0);
    let q = |p: (f64, f64)| robust::Coord { x: p.0 * s, y: p.1 * s };
    let d = robust::orient2d(q(a), q(b), q(c));
    if d > 0.0 {
        1
    } else if d < 0.0 {
        -1
    } else {
        0
    }
}

/// Whether three points are collinear, exactly: every coordinate-plane projection is.
fn collinear(a: DVec3, b: DVec3, c: DVec3) -> bool {
    (0..3).all(|k| orient2d(a, b, c, k) == 0)
}

/// The hull of a point set whose affine dimension is below 3.
#[derive(Clone, Debug)]
pub(crate) struct FlatHull {
    pub(crate) dimension: u8,
    /// Extreme points, in input order.
    pub(crate) vertices: Vec<DVec3>,
    /// Their input indices.
    pub(crate) source: Vec<u32>,
    /// A polygon's boundary as vertex ids, counter-clockwise around face 0's normal, starting
    /// at 0 (empty for points and segments).
    pub(crate) boundary: Vec<u32>,
}

/// The hull of `points` (finite, checked by the caller) when its affine dimension is 0, 1 or
/// 2 (decided exactly), `None` for a solid. `TooFewPoints { found: 0 }` for no points.
pub(crate) fn flat_hull(points: &[DVec3]) -> Result<Option<FlatHull>, PolycdError> {
    let Some(&p0) = points.first() else {
        return Err(PolycdError::TooFewPoints { found: 0 });
    };
    let Some(i1) = points.iter().position(|p| *p != p0) else {
        return Ok(Some(FlatHull {
            dimension: 0,
            vertices: vec![p0],
            source: vec![0],
            boundary: Vec::new(),
        }));
    };
    let p1 = points[i1];
    let Some(i2) = points.iter().position(|p| !collinear(p0, p1, *p)) else {
        return Ok(Some(segment_hull(points, p0, p1)));
    };
    let p2 = points[i2];
    if points.iter().any(|p| orient3d(p0, p1, p2, *p) != Orientation::On) {
        return Ok(None);
    }
    Ok(Some(polygon_hull(points, p0, p1, p2)))
}

/// The two extreme points of exactly collinear `points` (`p0 ≠ p1` among them).
fn segment_hull(points: &[DVec3], p0: DVec3, p1: DVec3) -> FlatHull {
    // Along an axis where the line advances, distinct points have distinct coordinates.
    let d = (p1 - p0).abs();
    let k = if d.x >= d.y && d.x >= d.z {
        0
    } else if d.y >= d.z {
        1
    } else {
        2
    };
    let (mut lo, mut hi) = (0usize, 0usize);
    for (i, p) in points.iter().enumerate() {
        if p[k] < points[lo][k] {
            lo = i;
        }
        if p[k] > points[hi][k] {
            hi = i;
        }
    }
    let (i, j) = (lo.min(hi), lo.max(hi));
    FlatHull {
        dimension: 1,
        vertices: vec![points[i], points[j]],
        source: vec![i as u32, j as u32],
        boundary: Vec::new(),
    }
}

/// The convex polygon of exactly coplanar `points` (`p0, p1, p2` non-collinear among them):
/// Andrew's monotone chain in the coordinate plane the polygon projects onto best, with exact
/// turns (collinear boundary points dropped).
fn polygon_hull(points: &[DVec3], p0: DVec3, p1: DVec3, p2: DVec3) -> FlatHull {
    // Project along the axis of the normal's largest component among those whose exact
    // projected orientation is non-zero (the projection is then a bijection of the plane).
    let n = (p1 - p0).cross(p2 - p0).abs();
    let mut drop = 0usize;
    let mut best = f64::NEG_INFINITY;
    for k in 0..3 {
        if orient2d(p0, p1, p2, k) != 0 && n[k] > best {
            best = n[k];
            drop = k;
        }
    }
    let uv = |p: DVec3| match drop {
        0 => (p.y, p.z),
        1 => (p.z, p.x),
        _ => (p.x, p.y),
    };
    // Distinct points (the first index of each), sorted by (u, v).
    let mut order: Vec<u32> = (0..points.len() as u32).collect();
    order.sort_by(|&i, &j| {
        let (a, b) = (uv(points[i as usize]), uv(points[j as usize]));
        a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)).then(i.cmp(&j))
    });
    order.dedup_by(|j, i| points[*i as usize] == points[*j as usize]);
    let turn = |a: u32, b: u32, c: u32| orient2d(points[a as usize], points[b as usize], points[c as usize], drop);
    let mut hull: Vec<u32> = Vec::with_capacity(order.len() + 1);
    for pass in 0..2 {
        let start = hull.len();
        let seq: Box<dyn Iterator<Item = &u32>> = if pass == 0 {
            Box::new(order.iter())
        } else {
            Box::new(order.iter().rev())
        };
        for &i in seq {
            while hull.len() >= start + 2 && turn(hull[hull.len() - 2], hull[hull.len() - 1], i) <= 0 {
                hull.pop();
            }
            hull.push(i);
        }
        // The last point of each chain starts the other one.
        hull.pop();
    }
    // `hull` is counter-clockwise in the projection; ids by input order.
    let mut by_input = hull.clone();
    by_input.sort_unstable();
    let id_of = |i: u32| by_input.binary_search(&i).map(|k| k as u32).unwrap_or(0);
    let mut boundary: Vec<u32> = hull.iter().map(|&i| id_of(i)).collect();
    // Face 0 runs counter-clockwise around (v1 − v0) × (v2 − v0): the projected loop's
    // orientation if the triple turns left in the projection, else reversed.
    if turn(by_input[0], by_input[1], by_input[2]) < 0 {
        boundary.reverse();
    }
    let at = boundary.iter().position(|&v| v == 0).unwrap_or(0);
    boundary.rotate_left(at);
    FlatHull {
        dimension: 2,
        vertices: by_input.iter().map(|&i| points[i as usize]).collect(),
        source: by_input,
        boundary,
    }
}
