//! The state handlers VV, VE, VF, EE and EF (Alg. 4–8), the perimeter scan (§3.3.3) and the
//! dispatch of one iteration step by the pair's type.

use super::clip::{deriv_feature, deriv_vertex, Clip};
use super::frame::{edge_slope, fe_normal, lerp, ve_plane, View};
use crate::contract::Feature;
use crate::core::geometry::closest_segment_segment;
use crate::core::math::DVec3;

/// What a handler decided, in P/Q terms from a handler and in A/B terms after [`map`].
#[derive(Clone, Copy, Debug)]
pub(super) enum Step {
    /// Replace one feature of the pair by `to`: P's (after [`map`]: A's) or, with `q`, Q's
    /// (B's). `twice`: the move stands for two handler calls (P's vertex moved on to a
    /// neighbouring vertex: the VV step to their edge and the VE step that follows from
    /// there, taken at once, see [`vv_half`]).
    Move { q: bool, twice: bool, to: Feature },
    /// Theorem 1 holds for the current pair.
    Done,
    /// The current features intersect at this point (common frame).
    Penetration(DVec3),
}

impl Step {
    /// Move P's feature to `f`.
    #[inline(always)]
    fn p(f: Feature) -> Step {
        Step::Move {
            q: false,
            twice: false,
            to: f,
        }
    }
    /// Move Q's feature to `f`.
    #[inline(always)]
    fn q(f: Feature) -> Step {
        Step::Move {
            q: true,
            twice: false,
            to: f,
        }
    }
    /// Move P's vertex on to the neighbouring vertex `f` (two handler calls).
    #[inline(always)]
    fn p2(f: Feature) -> Step {
        Step::Move {
            q: false,
            twice: true,
            to: f,
        }
    }
    /// Applies a move (A/B terms) to the pair; `false` for [`Step::Done`] and
    /// [`Step::Penetration`].
    #[inline(always)]
    pub(super) fn apply(&self, fa: &mut Feature, fb: &mut Feature) -> bool {
        match *self {
            Step::Move { q: false, to, .. } => *fa = to,
            Step::Move { q: true, to, .. } => *fb = to,
            Step::Done | Step::Penetration(_) => return false,
        }
        true
    }
}

/// VV half (Alg. 4 steps 1–4): is Q's vertex in VR(P's vertex)? Returns the maximally
/// violated plane's violation (squared distance beyond it) with the step.
fn vv_half<const R: bool, const PA: bool>(w: &View<R, PA>, vp: u32, vq: u32) -> Option<(f64, Step)> {
    let x = w.p_local(vp);
    let y = w.q_vertex_in_p(vq);
    let yx = y - x;
    // `ve_plane(x, o, y)` is `w·(y − x)` with the slot's `w = x − o`; the first violated
    // plane is taken, then any with a higher score.
    let mut best = 0.0f64;
    let mut best_k = usize::MAX;
    let recs = w.p.adj(vp);
    for (k, r) in recs.iter().enumerate() {
        let wv = w.p_adj(r, x);
        let d = wv.dot(yx);
        if d < 0.0 {
            let score = w.p_adj_score(r, wv, d);
            if score > best || best_k == usize::MAX {
                best = score;
                best_k = k;
            }
        }
    }
    if best_k == usize::MAX {
        return None;
    }
    let r = &recs[best_k];
    let (oi, edge) = (r.nbr, r.edge);
    // The VE handler of the new pair (edge (x, o), Q's vertex) first tests Q's vertex against
    // the edge's two vertex-edge planes, in this same frame with this same mapped point; the
    // plane at x is violated (above), so it moves to `o` exactly when the plane at `o` is
    // violated too. That step is taken here at once (bit for bit the same test).
    if ve_plane(w.p_local(oi), x, y) > 0.0 {
        return Some((best, Step::p2(Feature::Vertex(oi))));
    }
    Some((best, Step::p(Feature::Edge(edge))))
}

/// VE state (Alg. 5): vertex of P, edge of Q.
fn ve<const R: bool, const PA: bool>(w: &View<R, PA>, vp: u32, eq: u32) -> Step {
    let x = w.p_local(vp);
    let ed = *w.q.poly.edge(eq);
    let [ti, hi] = ed.vertices;
    // Steps 1–4: V against VR(E), vertex-edge planes first (Q's frame).
    {
        let x = w.p_vertex_in_q(vp);
        let (t, h) = (w.q_local(ti), w.q_local(hi));
        if -ve_plane(t, h, x) < 0.0 {
            return Step::q(Feature::Vertex(ti));
        }
        if -ve_plane(h, t, x) < 0.0 {
            return Step::q(Feature::Vertex(hi));
        }
        // Face-edge planes of the half-edges t → h (in the left face) and h → t (right).
        let [fl, fr] = ed.faces;
        let c = fe_normal(&w.q, View::<R, PA>::Q_SHIFT, ed.half_edge, t, h);
        if -c.dot(x - t) < 0.0 {
            return Step::q(Feature::Face(fl));
        }
        let twin = w.q.poly.half_edge(ed.half_edge).twin;
        let c = fe_normal(&w.q, View::<R, PA>::Q_SHIFT, twin, h, t);
        if -c.dot(x - h) < 0.0 {
            return Step::q(Feature::Face(fr));
        }
    }
    // Step 5: clip E against VR(V) (P's frame). Neighbours: P's outgoing half-edges.
    let (t, h) = (w.q_vertex_in_p(ti), w.q_vertex_in_p(hi));
    // Neighbours: P's adjacency slots (`ve_plane(x, o, ·)` is `w·(· − x)`).
    let mut c: Clip<usize> = Clip::new();
    let (tx, hx) = (t - x, h - x);
    let recs = w.p.adj(vp);
    for (k, r) in recs.iter().enumerate() {
        let wv = w.p_adj(r, x);
        if !c.plane(wv.dot(tx), wv.dot(hx), k) {
            break;
        }
    }
    let edge = |k: usize| Step::p(Feature::Edge(recs[k].edge));
    let u = h - t;
    if c.excluded {
        let (Some(nl), Some(nh)) = (c.n_lo, c.n_hi) else {
            return Step::Done; // unreachable: exclusion always sets both
        };
        if nl == nh || deriv_vertex(u, lerp(t, h, c.lo), x) > 0.0 {
            return edge(nl);
        }
        return edge(nh);
    }
    // Step 9: derivative checks (Alg. 2, Eq. 2).
    if let Some(n) = c.n_lo {
        if deriv_vertex(u, lerp(t, h, c.lo), x) > 0.0 {
            return edge(n);
        }
    }
    if let Some(n) = c.n_hi {
        if deriv_vertex(u, lerp(t, h, c.hi), x) < 0.0 {
            return edge(n);
        }
    }
    Step::Done
}

/// VF step 1 (Alg. 6): the half-edge of Q's face `fq` whose face–edge plane `x` (P's vertex
/// mapped into Q's frame) violates most, `u32::MAX` when none is violated.
#[inline(always)]
fn vf_worst_edge<const R: bool, const PA: bool>(w: &View<R, PA>, x: DVec3, fq: u32) -> u32 {
    // Over the face's half-edges (contiguous ids): `fe_plane(n, a, b, x)` is `c·(x − a)`, the
    // violation `d / |b − a|`.
    let mut worst = 0.0f64;
    let mut worst_h = u32::MAX;
    let (recs, h0) = w.q.face_fe(fq);
    for (h, r) in (h0..).zip(recs) {
        let (a, c, sc) = w.q_fe_rec(r, h);
        let d = c.dot(x - a);
        if d < 0.0 {
            let d = View::<R, PA>::q_fe_violation(d, sc);
            if d < worst {
                worst = d;
                worst_h = h;
            }
        }
    }
    worst_h
}

/// VF state (Alg. 6): vertex of P, face of Q (tests in Q's frame).
fn vf<const R: bool, const PA: bool>(w: &View<R, PA>, vp: u32, fq: u32) -> Step {
    let x = w.p_vertex_in_q(vp);
    let n = w.q.local_normal(fq);
    let q = w.q.poly;
    // Step 1: maximally violated face-edge plane.
    let worst_h = vf_worst_edge(w, x, fq);
    if worst_h != u32::MAX {
        return Step::q(Feature::Edge(w.q.fe_edge(worst_h)));
    }
    // Step 6: the steepest edge of V pointing toward the plane of F (the slope is
    // `edge_slope`, as in EF and EE: in P's frame, F's normal rotated there once; the score
    // `slope² / |edge|²` as VV's, see the header).
    let dv = w.q_face_dist(fq, x);
    let np = w.q_dir_to_p(n);
    let xp = w.p_local(vp);
    let mut best = 0.0f64;
    let mut best_e = u32::MAX;
    for r in w.p.adj(vp) {
        // `o − x` is the exact negation of the slot's `w = x − o`.
        let wv = w.p_adj(r, xp);
        let slope = edge_slope(-wv, np);
        if (dv > 0.0 && slope < 0.0) || (dv < 0.0 && slope > 0.0) {
            let sc = w.p_adj_score(r, wv, slope);
            if sc > best || best_e == u32::MAX {
                best = sc;
                best_e = r.edge;
            }
        }
    }
    if best_e != u32::MAX {
        return Step::p(Feature::Edge(best_e));
    }
    if dv > 0.0 {
        return Step::Done;
    }
    // Step 12: handleLocalMin (Alg. 3).
    let mut dmax = f64::NEG_INFINITY;
    let mut f0 = fq;
    for f in 0..q.faces().len() as u32 {
        let d = w.q_face_dist(f, x);
        if d > dmax {
            dmax = d;
            f0 = f;
        }
    }
    if dmax <= 0.0 {
        return Step::Penetration(w.p.vertex(vp));
    }
    Step::q(Feature::Face(f0))
}

/// Neighbour of an edge of P in its own region: a vertex or a face.
type EdgeNbr = Feature;

/// EE half (Alg. 7 steps 1–14): Q's edge against VR(P's edge).
fn ee_half<const R: bool, const PA: bool>(w: &View<R, PA>, ep: u32, eq: u32) -> Option<Step> {
    // Everything in P's frame (P owns the region).
    let e1 = *w.p.poly.edge(ep);
    let [t1i, h1i] = e1.vertices;
    let (t1, h1) = (w.p_local(t1i), w.p_local(h1i));
    let e2 = *w.q.poly.edge(eq);
    let (t2q, h2q) = (w.q_local(e2.vertices[0]), w.q_local(e2.vertices[1]));
    let (t2, h2) = (w.q_to_p(t2q), w.q_to_p(h2q));
    let u = h2 - t2;
    let uq = h2q - t2q;
    let pen = |e: DVec3| Some(Step::Penetration(w.p_out(e)));
    // Steps 1–7: vertex-edge planes of VR(E1).
    let mut c: Clip<EdgeNbr> = Clip::new();
    let _ = c.plane(-ve_plane(t1, h1, t2), -ve_plane(t1, h1, h2), Feature::Vertex(t1i))
        && c.plane(-ve_plane(h1, t1, t2), -ve_plane(h1, t1, h2), Feature::Vertex(h1i));
    if c.excluded {
        let (Some(nl), Some(nh)) = (c.n_lo, c.n_hi) else {
            return None;
        };
        if nl == nh || deriv_feature(w, u, uq, lerp(t2, h2, c.lo), nl).is_some_and(|d| d > 0.0) {
            return Some(Step::p(nl));
        }
        return Some(Step::p(nh));
    }
    if let Some(n) = c.n_lo {
        let e = lerp(t2, h2, c.lo);
        match deriv_feature(w, u, uq, e, n) {
            None => return pen(e),
            Some(d) if d > 0.0 => return Some(Step::p(n)),
            _ => {}
        }
    }
    if let Some(n) = c.n_hi {
        let e = lerp(t2, h2, c.hi);
        match deriv_feature(w, u, uq, e, n) {
            None => return pen(e),
            Some(d) if d < 0.0 => return Some(Step::p(n)),
            _ => {}
        }
    }
    // Steps 8–14: face-edge planes, continuing the same clip.
    // Face-edge planes of the half-edges t1 → h1 (left face) and h1 → t1 (right face).
    let [fl, fr] = e1.faces;
    let cl = fe_normal(&w.p, View::<R, PA>::P_SHIFT, e1.half_edge, t1, h1);
    let twin = w.p.poly.half_edge(e1.half_edge).twin;
    let cr = fe_normal(&w.p, View::<R, PA>::P_SHIFT, twin, h1, t1);
    let _ = c.plane(-cl.dot(t2 - t1), -cl.dot(h2 - t1), Feature::Face(fl))
        && c.plane(-cr.dot(t2 - h1), -cr.dot(h2 - h1), Feature::Face(fr));
    if c.excluded {
        let (Some(nl), Some(nh)) = (c.n_lo, c.n_hi) else {
            return None;
        };
        if nl == nh {
            return Some(Step::p(nl));
        }
        let el = lerp(t2, h2, c.lo);
        let eh = lerp(t2, h2, c.hi);
        return Some(match (nl, nh) {
            (Feature::Vertex(_), _) => {
                if deriv_feature(w, u, uq, el, nl).is_some_and(|d| d > 0.0) {
                    Step::p(nl)
                } else {
                    Step::p(nh)
                }
            }
            (_, Feature::Vertex(_)) => {
                if deriv_feature(w, u, uq, eh, nh).is_some_and(|d| d < 0.0) {
                    Step::p(nh)
                } else {
                    Step::p(nl)
                }
            }
            _ => match deriv_feature(w, u, uq, el, nl) {
                Some(d) if d <= 0.0 => Step::p(nh),
                _ => Step::p(nl),
            },
        });
    }
    if let Some(n) = c.n_lo {
        let e = lerp(t2, h2, c.lo);
        match deriv_feature(w, u, uq, e, n) {
            None => return pen(e),
            Some(d) if d > 0.0 => return Some(Step::p(n)),
            _ => {}
        }
    }
    if let Some(n) = c.n_hi {
        let e = lerp(t2, h2, c.hi);
        match deriv_feature(w, u, uq, e, n) {
            None => return pen(e),
            Some(d) if d < 0.0 => return Some(Step::p(n)),
            _ => {}
        }
    }
    None
}

/// EF state (Alg. 8): edge of P, face of Q.
fn ef<const R: bool, const PA: bool>(w: &View<R, PA>, ep: u32, fq: u32) -> Step {
    // Everything in Q's frame (Q owns the region).
    let e = *w.p.poly.edge(ep);
    let [ti, hi] = e.vertices;
    let (t, h) = (w.p_vertex_in_q(ti), w.p_vertex_in_q(hi));
    let n = w.q.local_normal(fq);
    // Step 1: clip E against the face-edge planes of VR(F) (neighbours: half-edges of F).
    let mut c: Clip<u32> = Clip::new();
    let (recs, h0) = w.q.face_fe(fq);
    for (he, r) in (h0..).zip(recs) {
        let (a, cn, _) = w.q_fe_rec(r, he);
        if !c.plane(cn.dot(t - a), cn.dot(h - a), he) {
            break;
        }
    }
    if c.excluded {
        return Step::q(perimeter_scan(w, t, h, fq));
    }
    let el = lerp(t, h, c.lo);
    let eh = lerp(t, h, c.hi);
    let dl = w.q_face_dist(fq, el);
    let dh = w.q_face_dist(fq, eh);
    if (dl <= 0.0 && dh >= 0.0) || (dl >= 0.0 && dh <= 0.0) {
        let p = if dl == dh {
            el
        } else {
            el + (eh - el) * (dl / (dl - dh))
        };
        return Step::Penetration(w.q_out(p));
    }
    let un = edge_slope(w.p_local(hi) - w.p_local(ti), w.q_dir_to_p(n));
    let d_lo = if dl > 0.0 { un } else { -un };
    if d_lo >= 0.0 {
        match c.n_lo {
            Some(he) => Step::q(Feature::Edge(w.q.fe_edge(he))),
            None => Step::p(Feature::Vertex(ti)),
        }
    } else {
        match c.n_hi {
            Some(he) => Step::q(Feature::Edge(w.q.fe_edge(he))),
            None => Step::p(Feature::Vertex(hi)),
        }
    }
}

/// §3.3.3: the boundary edge of face `f` (of Q) closest to the edge `t → h` (of P, mapped
/// into Q's frame).
///
/// The whole perimeter is scanned (O(s) for an s-gon): a walk that stops at the first edge
/// whose slab holds the minimum of the clipped distance can stop at a local minimum on the
/// far side of the face, after which EE sends the pair straight back here (observed on
/// icospheres). Ties go to the first edge in counter-clockwise order; a closest point at a
/// shared vertex is then refined by the EE/VE handlers (same distance, lower dimension).
fn perimeter_scan<const R: bool, const PA: bool>(w: &View<R, PA>, t: DVec3, h: DVec3, f: u32) -> Feature {
    let q = w.q.poly;
    let mut best = f64::INFINITY;
    let mut best_edge = q.half_edge(q.face(f).half_edge).edge;
    for s in q.face_half_edges(f) {
        let he = q.half_edge(s);
        let a = w.q_local(he.origin);
        let b = w.q_local(w.q.head(s));
        let (x, y) = closest_segment_segment(t, h, a, b);
        let d = (x - y).length_squared();
        if d < best {
            best = d;
            best_edge = he.edge;
        }
    }
    Feature::Edge(best_edge)
}

/// A handler's step in A/B terms (`swapped`: P is B): a move of P becomes one of B.
#[inline(always)]
fn map(step: Step, swapped: bool) -> Step {
    match step {
        Step::Move { q, twice, to } => Step::Move {
            q: q ^ swapped,
            twice,
            to,
        },
        s => s,
    }
}

#[inline(always)]
pub(super) fn step<const R: bool>(ab: &View<R, true>, ba: &View<R, false>, fa: Feature, fb: Feature) -> Step {
    use Feature::*;
    match (fa, fb) {
        (Vertex(x), Vertex(y)) => match (vv_half(ab, x, y), vv_half(ba, y, x)) {
            (Some((d1, s1)), Some((d2, s2))) => {
                if d2 > d1 {
                    map(s2, true)
                } else {
                    map(s1, false)
                }
            }
            (Some((_, s)), None) => map(s, false),
            (None, Some((_, s))) => map(s, true),
            (None, None) => Step::Done,
        },
        (Vertex(x), Edge(y)) => map(ve(ab, x, y), false),
        (Edge(x), Vertex(y)) => map(ve(ba, y, x), true),
        (Vertex(x), Face(y)) => map(vf(ab, x, y), false),
        (Face(x), Vertex(y)) => map(vf(ba, y, x), true),
        (Edge(x), Edge(y)) => match ee_half(ab, x, y) {
            Some(s) => map(s, false),
            None => match ee_half(ba, y, x) {
                Some(s) => map(s, true),
                None => Step::Done,
            },
        },
        (Edge(x), Face(y)) => map(ef(ab, x, y), false),
        (Face(x), Edge(y)) => map(ef(ba, y, x), true),
        (Face(x), Face(_)) => Step::p(Vertex(ab.p.poly.half_edge(ab.p.poly.face(x).half_edge).origin)),
    }
}
