//! Triangle-mesh helpers shared by the mesh tests: a box mesh, and brute-force distance
//! oracles on triangles (independent of the library's kernels but for the exact signs of
//! `orient3d` and the closest point on a triangle).

use polycd::geometry::closest_on_triangle;
use polycd::predicates::{orient3d, Orientation};
use polycd::DVec3;

/// An axis-aligned box `[lo, lo + size]`: 8 vertices, 6 outward quads.
pub fn box_mesh(lo: DVec3, size: DVec3) -> (Vec<DVec3>, Vec<Vec<u32>>) {
    let v = (0..8)
        .map(|i| {
            lo + DVec3::new(
                if i & 1 == 0 { 0.0 } else { size.x },
                if i & 2 == 0 { 0.0 } else { size.y },
                if i & 4 == 0 { 0.0 } else { size.z },
            )
        })
        .collect();
    let f = vec![
        vec![0, 2, 3, 1],
        vec![4, 5, 7, 6],
        vec![0, 1, 5, 4],
        vec![2, 6, 7, 3],
        vec![0, 4, 6, 2],
        vec![1, 3, 7, 5],
    ];
    (v, f)
}

pub fn seg_seg(p0: DVec3, p1: DVec3, q0: DVec3, q1: DVec3) -> f64 {
    let onto = |x: DVec3, a: DVec3, b: DVec3| {
        let ab = b - a;
        let l2 = ab.length_squared();
        let t = if l2 > 0.0 {
            ((x - a).dot(ab) / l2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        (a + ab * t - x).length()
    };
    let mut m = onto(p0, q0, q1)
        .min(onto(p1, q0, q1))
        .min(onto(q0, p0, p1))
        .min(onto(q1, p0, p1));
    // Interior critical point of |p(s) − q(t)|².
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, b, e) = (d1.dot(d1), d1.dot(d2), d2.dot(d2));
    let (c, f) = (d1.dot(r), d2.dot(r));
    let den = a * e - b * b;
    if den > 1e-300 {
        let s = (b * f - c * e) / den;
        let t = (a * f - b * c) / den;
        if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
            m = m.min(((p0 + d1 * s) - (q0 + d2 * t)).length());
        }
    }
    m
}

/// Does the segment `p q` meet the triangle (exact signs; coplanar segments are left to the
/// distance cases)?
pub fn crosses(p: DVec3, q: DVec3, t: [DVec3; 3]) -> bool {
    let (sp, sq) = (orient3d(t[0], t[1], t[2], p), orient3d(t[0], t[1], t[2], q));
    if sp == sq {
        return false;
    }
    let s = [
        orient3d(p, q, t[0], t[1]),
        orient3d(p, q, t[1], t[2]),
        orient3d(p, q, t[2], t[0]),
    ];
    !(s.contains(&Orientation::Above) && s.contains(&Orientation::Below))
}

pub fn tri_tri(a: [DVec3; 3], b: [DVec3; 3]) -> f64 {
    for k in 0..3 {
        if crosses(a[k], a[(k + 1) % 3], b) || crosses(b[k], b[(k + 1) % 3], a) {
            return 0.0;
        }
    }
    let mut m = f64::INFINITY;
    for k in 0..3 {
        m = m.min((closest_on_triangle(a[k], b[0], b[1], b[2]) - a[k]).length());
        m = m.min((closest_on_triangle(b[k], a[0], a[1], a[2]) - b[k]).length());
        for j in 0..3 {
            m = m.min(seg_seg(a[k], a[(k + 1) % 3], b[j], b[(j + 1) % 3]));
        }
    }
    m
}
