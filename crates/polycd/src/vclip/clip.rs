//! `clipEdge` (Alg. 1) and the derivative checks (Alg. 2, Eq. 2–3) that decide on which side
//! of a clip point the minimum of the edge's distance function lies.

use super::frame::{edge_slope, View};
use crate::contract::Feature;
use crate::core::math::DVec3;

/// Result of `clipEdge` (Alg. 1). Neighbours are carried as an opaque tag.
#[derive(Clone, Copy, Debug)]
pub(super) struct Clip<N: Copy> {
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) n_lo: Option<N>,
    pub(super) n_hi: Option<N>,
    pub(super) excluded: bool,
}

impl<N: Copy> Clip<N> {
    pub(super) fn new() -> Self {
        Clip {
            lo: 0.0,
            hi: 1.0,
            n_lo: None,
            n_hi: None,
            excluded: false,
        }
    }
    /// Clips against one plane with signed distances `dt`, `dh` of the edge's tail and head
    /// (region side positive). Returns `false` once the edge is completely clipped.
    #[inline]
    pub(super) fn plane(&mut self, dt: f64, dh: f64, n: N) -> bool {
        let (tn, hn) = (dt < 0.0, dh < 0.0);
        if !(tn | hn) {
            // Both ends on the region's side (the common case): nothing clipped.
            return true;
        }
        if tn & hn {
            self.n_lo = Some(n);
            self.n_hi = Some(n);
            self.excluded = true;
            return false;
        } else if tn {
            let l = dt / (dt - dh);
            if l > self.lo {
                self.lo = l;
                self.n_lo = Some(n);
                if self.lo > self.hi {
                    self.excluded = true;
                    return false;
                }
            }
        } else {
            let l = dt / (dt - dh);
            if l < self.hi {
                self.hi = l;
                self.n_hi = Some(n);
                if self.lo > self.hi {
                    self.excluded = true;
                    return false;
                }
            }
        }
        true
    }
}

/// Sign carrier of `D'_{E,V}` (Eq. 2).
#[inline]
pub(super) fn deriv_vertex(u: DVec3, e: DVec3, v: DVec3) -> f64 {
    u.dot(e - v)
}

/// Sign carrier of `D'_{E,F}` (Eq. 3) for an edge of Q (`uq`: its direction in Q's frame) at
/// the point `e` (P's frame) against face `f` of P; `None` when `e` lies in the face's plane.
#[inline(always)]
fn deriv_face<const R: bool, const PA: bool>(w: &View<R, PA>, uq: DVec3, e: DVec3, f: u32) -> Option<f64> {
    let d = w.p_face_dist(f, e);
    let un = edge_slope(uq, w.p_dir_to_q(w.p.local_normal(f)));
    if d > 0.0 {
        Some(un)
    } else if d < 0.0 {
        Some(-un)
    } else {
        None
    }
}

/// Derivative sign of the distance from `e` (moving along Q's edge: `u` in P's local frame,
/// `uq` in Q's) to a neighbouring feature of P (vertex or face), or `None` when degenerate
/// (Eq. 2/3 invalid). `e`: P's local frame.
#[inline(always)]
pub(super) fn deriv_feature<const R: bool, const PA: bool>(
    w: &View<R, PA>,
    u: DVec3,
    uq: DVec3,
    e: DVec3,
    n: Feature,
) -> Option<f64> {
    match n {
        Feature::Vertex(v) => {
            let x = w.p_local(v);
            if e == x {
                None
            } else {
                Some(deriv_vertex(u, e, x))
            }
        }
        Feature::Face(f) => deriv_face(w, uq, e, f),
        // Edges are never neighbours of an edge.
        Feature::Edge(_) => Some(0.0),
    }
}
