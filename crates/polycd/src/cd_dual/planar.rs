//! The plane geometry of the directional query (§6): the 2-D hulls of the projected
//! silhouettes (monotone chain, exact `orient2d`), their Minkowski difference by merging edge
//! directions, and the fan triangle holding the origin.

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct P2 {
    pub(super) x: f64,
    pub(super) y: f64,
    pub(super) id: u32,
}

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct M2 {
    pub(super) x: f64,
    pub(super) y: f64,
    pub(super) ia: u32,
    pub(super) ib: u32,
}

#[inline]
fn orient2(a: (f64, f64), b: (f64, f64), c: (f64, f64)) -> f64 {
    robust::orient2d(
        robust::Coord { x: a.0, y: a.1 },
        robust::Coord { x: b.0, y: b.1 },
        robust::Coord { x: c.0, y: c.1 },
    )
}

/// Andrew's monotone chain: the counter-clockwise hull of `pts` (collinear points dropped).
pub(super) fn hull2d(pts: &mut [P2], out: &mut Vec<P2>) {
    pts.sort_unstable_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    out.clear();
    for &p in pts.iter() {
        while out.len() >= 2 {
            let (u, v) = (out[out.len() - 2], out[out.len() - 1]);
            if orient2((u.x, u.y), (v.x, v.y), (p.x, p.y)) <= 0.0 {
                out.pop();
            } else {
                break;
            }
        }
        out.push(p);
    }
    let lower = out.len() + 1;
    for &p in pts.iter().rev().skip(1) {
        while out.len() >= lower {
            let (u, v) = (out[out.len() - 2], out[out.len() - 1]);
            if orient2((u.x, u.y), (v.x, v.y), (p.x, p.y)) <= 0.0 {
                out.pop();
            } else {
                break;
            }
        }
        out.push(p);
    }
    out.pop();
}

/// Drops hull vertices within `tol` of their predecessor (near-duplicate projections, e.g. the
/// two ends of an edge parallel to the projection direction), so that the edge-angle merge of
/// [`minkowski2d`] only sees edges with a meaningful direction.
pub(super) fn dedup_hull(h: &mut Vec<P2>, tol: f64) {
    if h.len() < 2 {
        return;
    }
    let mut w = 1;
    for i in 1..h.len() {
        let (a, b) = (h[w - 1], h[i]);
        if (b.x - a.x).abs().max((b.y - a.y).abs()) > tol {
            h[w] = b;
            w += 1;
        }
    }
    h.truncate(w);
    while h.len() > 1 {
        let (a, b) = (h[h.len() - 1], h[0]);
        if (b.x - a.x).abs().max((b.y - a.y).abs()) > tol {
            break;
        }
        h.pop();
    }
}

/// Lowest (then leftmost) vertex of a polygon given with a sign (±1 for A / −B).
fn lowest(poly: &[P2], sign: f64) -> usize {
    let mut best = 0;
    for (i, v) in poly.iter().enumerate() {
        let (bx, by) = (sign * poly[best].x, sign * poly[best].y);
        let (x, y) = (sign * v.x, sign * v.y);
        if y < by || (y == by && x < bx) {
            best = i;
        }
    }
    best
}

/// The Minkowski sum of the convex CCW polygons `ha` and `−hb` by merging edge directions.
pub(super) fn minkowski2d(ha: &[P2], hb: &[P2], out: &mut Vec<M2>) {
    out.clear();
    let (n, m) = (ha.len(), hb.len());
    if n == 0 || m == 0 {
        return;
    }
    let ia = lowest(ha, 1.0);
    let ib = lowest(hb, -1.0);
    let va = |i: usize| ha[(ia + i) % n];
    let vb = |j: usize| {
        let p = hb[(ib + j) % m];
        P2 {
            x: -p.x,
            y: -p.y,
            id: p.id,
        }
    };
    let (mut i, mut j) = (0usize, 0usize);
    // Each step advances i or j (or both): at most n + m steps.
    while i < n || j < m {
        let (pa, pb) = (va(i), vb(j));
        out.push(M2 {
            x: pa.x + pb.x,
            y: pa.y + pb.y,
            ia: pa.id,
            ib: pb.id,
        });
        if i == n {
            j += 1;
            continue;
        }
        if j == m {
            i += 1;
            continue;
        }
        let (na, nb) = (va(i + 1), vb(j + 1));
        let (ex, ey) = (na.x - pa.x, na.y - pa.y);
        let (fx, fy) = (nb.x - pb.x, nb.y - pb.y);
        let cr = ex * fy - ey * fx;
        if cr > 0.0 {
            i += 1;
        } else if cr < 0.0 {
            j += 1;
        } else {
            i += 1;
            j += 1;
        }
    }
}

/// A fan triangle of the polygon containing the origin, with barycentric weights.
pub(super) fn locate_origin(poly: &[M2]) -> Option<([usize; 3], [f64; 3])> {
    let l = poly.len();
    if l < 3 {
        return None;
    }
    let o = (0.0, 0.0);
    let r0 = (poly[0].x, poly[0].y);
    for j in 1..l - 1 {
        let rj = (poly[j].x, poly[j].y);
        let rk = (poly[j + 1].x, poly[j + 1].y);
        if orient2(r0, rj, o) < 0.0 || orient2(rj, rk, o) < 0.0 || orient2(rk, r0, o) < 0.0 {
            continue;
        }
        let area = (rj.0 - r0.0) * (rk.1 - r0.1) - (rj.1 - r0.1) * (rk.0 - r0.0);
        if !(area > 0.0) {
            continue;
        }
        let u = (rj.0 * rk.1 - rj.1 * rk.0) / area;
        let v = (rk.0 * r0.1 - rk.1 * r0.0) / area;
        let u = u.clamp(0.0, 1.0);
        let v = v.clamp(0.0, 1.0 - u);
        let w = 1.0 - u - v;
        return Some(([0, j, j + 1], [u, v, w]));
    }
    None
}
