//! Enumeration of a small Minkowski difference: GJK's fallback when its iteration stalls on a
//! pair with few vertex pairs (two triangles: 9).
//!
//! Why: on two nearly coplanar polygons `M = A − B` is a slab a tilt × size thick, and near
//! the origin the simplex mixes a vertex pair within that thickness of the origin with pairs
//! a size away. The sub-algorithm's restricted face test after a support step then rounds to
//! an increase of `|v|` (a stall) while the support gap is still far open, and the iteration
//! reports `NotConverged` (seen at tilts e^-18…e^-20, `polycd differential --families flat`).
//!
//! What: with at most [`SMALL_PAIRS`] vertex pairs every point of `M` is enumerated (no
//! allocation: a fixed array). The origin lies in `M` exactly when it lies in the closed
//! hull of four of its points (Carathéodory); each tetrahedron is tested with the exact
//! orientation predicate (`orient3d`), and one that strictly encloses the origin is returned.
//! Otherwise the point of `M` nearest the origin lies on `M`'s boundary, in the convex hull
//! of at most three of its points, so it is the nearest point over every triangle (and,
//! for degenerate triples, segment and point) of the enumerated points; the caller re-solves
//! that feature as a fresh simplex with the ordinary sub-algorithm (no restriction to a
//! newest point) for its weights (`simplex::from_small`).
//!
//! Invariants: every returned simplex point is a vertex pair of `M`; an enclosing
//! tetrahedron encloses the origin by exact predicates on the rounded points.
//!
//! Termination: at most `C(16, 4) = 1 820` tetrahedra and `C(16, 3) = 560` triangles.
//!
//! Departure: not in the papers (GJK there is exact-arithmetic); the enumeration only runs
//! after the iteration has given up, so it costs nothing on any pair GJK settles.

use super::minkowski::{Ctx, SVert};
use crate::core::geometry::{closest_on_segment, closest_on_triangle};
use crate::core::math::DVec3;
use crate::core::predicates::{orient3d, Orientation};

/// Largest number of vertex pairs `|A|·|B|` enumerated (a triangle against a quadrilateral, two
/// quadrilaterals); beyond it a stall stays `NotConverged`. Not a tolerance: it bounds the
/// fallback's cost (`C(n, 4)` exact orientation tests).
pub(super) const SMALL_PAIRS: usize = 16;

/// The fallback's answer.
pub(super) enum Small {
    /// A tetrahedron of vertex pairs strictly encloses the origin (exact predicates).
    Enclosed([SVert; 4]),
    /// The origin is not strictly inside any tetrahedron: the first `len` (1…3) points are
    /// the feature nearest the origin.
    Nearest([SVert; 3], usize),
}

/// Whether [`enumerate`] applies to this pair.
#[inline]
pub(super) fn applies(ctx: &Ctx) -> bool {
    ctx.a.vertices().len().saturating_mul(ctx.b.vertices().len()) <= SMALL_PAIRS
}

/// The points of `x − M` (or of `M` itself when `shifted` is `None`) for every vertex pair, and
/// the nearest point of their hull to the origin (see the module header). `None` when the
/// pair is not small or a coordinate is not finite.
pub(super) fn enumerate(ctx: &Ctx, shifted: Option<DVec3>) -> Option<Small> {
    if !applies(ctx) {
        return None;
    }
    let mut verts = [SVert::default(); SMALL_PAIRS];
    let mut n = 0;
    for ia in 0..ctx.a.vertices().len() as u32 {
        for ib in 0..ctx.b.vertices().len() as u32 {
            let mut s = ctx.vert(ia, ib);
            if let Some(x) = shifted {
                s.w = x - s.w;
            }
            if !s.w.is_finite() {
                return None;
            }
            verts[n] = s;
            n += 1;
        }
    }
    let p: [DVec3; SMALL_PAIRS] = std::array::from_fn(|k| verts[k].w);
    let o = DVec3::ZERO;
    // Enclosure: a tetrahedron with the origin strictly on the inner side of each face.
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                for l in k + 1..n {
                    let t = [p[i], p[j], p[k], p[l]];
                    let inside =
                        [(0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 3, 0)]
                            .iter()
                            .all(|&(a, b, c, d)| {
                                let s = orient3d(t[a], t[b], t[c], t[d]);
                                s != Orientation::On && orient3d(t[a], t[b], t[c], o) == s
                            });
                    if inside {
                        return Some(Small::Enclosed([i, j, k, l].map(|q| verts[q])));
                    }
                }
            }
        }
    }
    // Nearest point: over every point, segment and triangle of the points.
    let mut best = f64::INFINITY;
    let mut pick = [0usize; 3];
    let mut len = 0usize;
    for i in 0..n {
        let d = p[i].length_squared();
        if d < best {
            (best, pick, len) = (d, [i, 0, 0], 1);
        }
        for j in i + 1..n {
            let d = closest_on_segment(o, p[i], p[j]).0.length_squared();
            if d < best {
                (best, pick, len) = (d, [i, j, 0], 2);
            }
            for k in j + 1..n {
                let q = closest_on_triangle(o, p[i], p[j], p[k]);
                let d = q.length_squared();
                if d < best {
                    (best, pick, len) = (d, [i, j, k], 3);
                }
            }
        }
    }
    if !best.is_finite() {
        return None;
    }
    Some(Small::Nearest(pick.map(|q| verts[q]), len))
}
