//! Uniqueness of the optimum (the paper's remark on edge–edge, edge–face and face–face
//! contact): the contact sets at the supporting planes, intersected in the plane.

use crate::core::math::DVec3;
use crate::core::tolerance::AGREEMENT_REL;

fn cross2(o: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
}

/// Convex hull (counter-clockwise, collinear points dropped) of 2-D points.
fn hull2(mut pts: Vec<[f64; 2]>) -> Vec<[f64; 2]> {
    pts.sort_by(|p, q| p[0].total_cmp(&q[0]).then(p[1].total_cmp(&q[1])));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let mut h: Vec<[f64; 2]> = Vec::with_capacity(2 * pts.len());
    for pass in 0..2 {
        let start = h.len();
        let iter: Box<dyn Iterator<Item = &[f64; 2]>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for &p in iter {
            while h.len() >= start + 2 && cross2(h[h.len() - 2], h[h.len() - 1], p) <= 0.0 {
                h.pop();
            }
            h.push(p);
        }
        h.pop();
    }
    h
}

fn dist2(a: [f64; 2], b: [f64; 2]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// Affine dimension (0, 1, 2) of a 2-D hull with tolerance `eta`.
fn dim2(h: &[[f64; 2]], eta: f64) -> u8 {
    let mut best = (0, 0, 0.0);
    for i in 0..h.len() {
        for j in i + 1..h.len() {
            let d = dist2(h[i], h[j]);
            if d > best.2 {
                best = (i, j, d);
            }
        }
    }
    if best.2 <= eta {
        return 0;
    }
    let (p, q, l) = (h[best.0], h[best.1], best.2);
    if h.iter().all(|&r| (cross2(p, q, r) / l).abs() <= eta) {
        1
    } else {
        2
    }
}

fn diameter2(pts: &[[f64; 2]]) -> f64 {
    let mut d = 0.0f64;
    for i in 0..pts.len() {
        for j in i + 1..pts.len() {
            d = d.max(dist2(pts[i], pts[j]));
        }
    }
    d
}

/// The uniqueness analysis of an optimum.
pub(super) struct Uniqueness {
    /// Affine dimensions (0 vertex, 1 edge, 2 face) of the contact sets of A and B.
    pub(super) dims: (u8, u8),
    /// Whether the optimal pair of points is unique.
    pub(super) unique: bool,
    /// What the analysis found, in words.
    pub(super) note: String,
}

/// Is the optimal pair of points unique? The optimal points of A are `A ∩ (B + v)` (v the
/// optimal `point_a − point_b`), which lies in the supporting plane of A with normal `n`:
/// intersect the two contact polygons there (Sutherland–Hodgman) and measure the result.
pub(super) fn uniqueness(xs: &[DVec3], ys: &[DVec3], n: DVec3, v: DVec3, scale: f64) -> Uniqueness {
    let delta = AGREEMENT_REL * scale;
    let eta = 1e3 * delta;
    let ha = xs.iter().map(|p| n.dot(*p)).fold(f64::NEG_INFINITY, f64::max);
    let hb = ys.iter().map(|p| n.dot(*p)).fold(f64::INFINITY, f64::min);
    let e1 = n.any_orthonormal_vector();
    let e2 = n.cross(e1);
    let to2 = |p: DVec3| [e1.dot(p), e2.dot(p)];
    let pa = hull2(
        xs.iter()
            .filter(|p| n.dot(**p) >= ha - delta)
            .map(|p| to2(*p))
            .collect(),
    );
    let pb = hull2(
        ys.iter()
            .filter(|p| n.dot(**p) <= hb + delta)
            .map(|p| to2(*p + v))
            .collect(),
    );
    let (da, db) = (dim2(&pa, eta), dim2(&pb, eta));
    let kind = |d: u8| ["vertex", "edge", "face"][d.min(2) as usize];
    let label = format!("{}–{} contact", kind(da), kind(db));
    if da == 0 || db == 0 {
        return Uniqueness {
            dims: (da, db),
            unique: true,
            note: format!("{label}: the optimal points are unique"),
        };
    }
    let extent = if da == 1 && db == 1 {
        let (p0, p1) = (pa[0], pa[pa.len() - 1]);
        let (q0, q1) = (pb[0], pb[pb.len() - 1]);
        let la = dist2(p0, p1);
        let lb = dist2(q0, q1);
        let u = [(p1[0] - p0[0]) / la, (p1[1] - p0[1]) / la];
        let w = [(q1[0] - q0[0]) / lb, (q1[1] - q0[1]) / lb];
        let sin = (u[0] * w[1] - u[1] * w[0]).abs();
        let off = (cross2(p0, p1, q0) / la).abs();
        if sin > 1e-9 || off > eta {
            0.0
        } else {
            let t = |q: [f64; 2]| (q[0] - p0[0]) * u[0] + (q[1] - p0[1]) * u[1];
            let (t0, t1) = (t(q0).min(t(q1)), t(q0).max(t(q1)));
            (t1.min(la) - t0.max(0.0)).max(0.0)
        }
    } else {
        // Clip the other contact set by the 2-D one.
        let (subject, clip) = if db == 2 { (pa, pb) } else { (pb, pa) };
        let mut poly = subject;
        for k in 0..clip.len() {
            let (c0, c1) = (clip[k], clip[(k + 1) % clip.len()]);
            let len = dist2(c0, c1);
            let side = |p: [f64; 2]| cross2(c0, c1, p) / len + eta;
            let mut out = Vec::with_capacity(poly.len() + 2);
            for i in 0..poly.len() {
                let (p, q) = (poly[i], poly[(i + 1) % poly.len()]);
                let (sp, sq) = (side(p), side(q));
                if sp >= 0.0 {
                    out.push(p);
                }
                if (sp >= 0.0) != (sq >= 0.0) {
                    let t = sp / (sp - sq);
                    out.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
                }
            }
            poly = out;
            if poly.is_empty() {
                break;
            }
        }
        diameter2(&poly)
    };
    if extent > 10.0 * eta {
        Uniqueness {
            dims: (da, db),
            unique: false,
            note: format!("{label}: the optimum is not unique (the optimal points span {extent:e})"),
        }
    } else {
        Uniqueness {
            dims: (da, db),
            unique: true,
            note: format!("{label}: the optimal points are unique"),
        }
    }
}
