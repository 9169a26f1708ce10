//! The ray test of §3.2 at one face of M (is it `f_opt`?), the pushes of the faces across the
//! borders the ray passes, and the boolean query's overlap certificate (module notes).

use super::face::{Cand, Ctx, Eval};
use super::DualFace;
use crate::core::math::DVec3;
use crate::core::tolerance::{OVERLAP_CERT_REL, RAY_HIT_REL};

/// What [`Ctx::probe`] found at a face.
#[derive(Clone, Copy, Debug)]
pub(super) enum Probe {
    /// The ray leaves M through the face: it is `f_opt`.
    Exit,
    /// `o ∈ M` is certified ([`Ctx::overlap_certificate`]).
    Overlap(OverlapCert),
    /// Neither.
    Miss,
}

/// An overlap certificate: `x = c + λ·dir` with `λ > 1` and a point `za − zb` of M (`za` in
/// A, `zb` in B, A frame) within `rho·(λ − 1)` of it.
#[derive(Clone, Copy, Debug)]
pub(super) struct OverlapCert {
    pub(super) lambda: f64,
    pub(super) x: DVec3,
    pub(super) za: DVec3,
    pub(super) zb: DVec3,
}

/// Where the ray meets a face's plane, and the margins of the tests there.
#[derive(Clone, Copy, Debug)]
struct Meet {
    /// The ray parameter and the meeting point `x = c + λ·dir`.
    lambda: f64,
    x: DVec3,
    /// The inside margin ([`RAY_HIT_REL`] of the scale, amplified by the ray's obliquity).
    m: f64,
    /// The largest distance of the face from `x` the overlap certificate can accept.
    allow: f64,
    /// Try the overlap certificate (beyond `o`, with a ball to use).
    certify: bool,
}

impl Ctx<'_> {
    /// §3.2: `f_opt` is the face of M through which the ray `c + λ·dir` (λ > 0) leaves M. Does
    /// the ray meet `ev` inside its generating features (by the margin of [`RAY_HIT_REL`])?
    /// Then `ev` is `f_opt` ([`Probe::Exit`]): its plane supports M and the meeting point lies
    /// in M, so every other face plane meets the ray at the same λ or later, i.e. no key is
    /// larger.
    /// Otherwise, with a stack, pushes the neighbours in M across each border of the face that
    /// the meeting point lies beyond: by convexity their planes meet the ray before this one,
    /// so they improve the key (generic Gaussian images; the caller keeps the whole
    /// neighbourhood below them on the stack for the other cases). With a ball about `c`
    /// known to lie in M (`rho > 0`, the boolean query), the meeting point beyond `o` and the
    /// point of the face's generating features nearest to it are also tried as an overlap
    /// certificate ([`Ctx::overlap_certificate`]).
    #[inline]
    pub(super) fn probe(&self, ev: &Eval, stack: Option<&mut Vec<Cand>>) -> Probe {
        let nd = ev.n.dot(self.dir);
        let nl = ev.n.length();
        if !(nd > 0.0 && nl > 0.0) {
            return Probe::Miss;
        }
        let lambda = (ev.k - ev.n.dot(self.c)) / nd;
        if !(lambda > 0.0 && lambda.is_finite()) {
            return Probe::Miss;
        }
        let x = self.c + self.dir * lambda;
        let m = RAY_HIT_REL * self.scale * (1.0 + nl * self.dir.length() / nd);
        if !m.is_finite() {
            return Probe::Miss;
        }
        // The certificate is tried only beyond `o`, with a ball to use; `allow` bounds the
        // distance of the face from the meeting point that it can accept (a border's line
        // farther than that rules it out).
        let meet = Meet {
            lambda,
            x,
            m,
            allow: self.rho * (lambda - 1.0),
            certify: self.rho > 0.0 && lambda > 1.0,
        };
        match ev.face {
            DualFace::Fv { face_a, vertex_b } => self.probe_fv(face_a, vertex_b, meet, stack),
            DualFace::Vf { vertex_a, face_b } => self.probe_vf(vertex_a, face_b, meet, stack),
            DualFace::Ee { edge_a, edge_b } => self.probe_ee(edge_a, edge_b, meet, stack),
        }
    }

    /// [`Ctx::probe`] at the FV face of face `face_a` of P and vertex `vertex_b` of Q.
    fn probe_fv(&self, face_a: u32, vertex_b: u32, meet: Meet, mut stack: Option<&mut Vec<Cand>>) -> Probe {
        let (p, q) = (self.p, self.q);
        let Meet {
            lambda, x, m, allow, ..
        } = meet;
        let mut certify = meet.certify;
        let qs = self.qv(vertex_b);
        let ps = x + qs;
        let nf = p.face(face_a).normal;
        let mut inside = true;
        // The point of the face nearest to `ps` (squared distance), when outside.
        let mut near = (f64::INFINITY, ps);
        for h in p.face_half_edges(face_a) {
            let he = p.half_edge(h);
            let a = p.vertex(he.origin);
            let e = p.vertex(p.half_edge(he.next).origin) - a;
            let s = nf.dot(e.cross(ps - a));
            let el = e.length();
            if s >= m * el {
                continue;
            }
            inside = false;
            if s < 0.0 {
                if let Some(st) = stack.as_deref_mut() {
                    for &g in q.outgoing(vertex_b) {
                        st.push(Cand::Ee(he.edge, q.half_edge(g).edge));
                    }
                    st.push(Cand::Fv(p.half_edge(he.twin).face, vertex_b));
                }
                if certify {
                    if -s > allow * el {
                        certify = false;
                    } else {
                        near = nearer_on_segment(near, a, e, ps);
                    }
                }
            }
        }
        if inside {
            return Probe::Exit;
        }
        if certify {
            // No border crossed strictly: `ps` itself lies on the face.
            let za = if near.0.is_finite() { near.1 } else { ps };
            return self.overlap_certificate(lambda, x, za, qs);
        }
        Probe::Miss
    }

    /// [`Ctx::probe`] at the VF face of vertex `vertex_a` of P and face `face_b` of Q (tested
    /// in Q's frame).
    fn probe_vf(&self, vertex_a: u32, face_b: u32, meet: Meet, mut stack: Option<&mut Vec<Cand>>) -> Probe {
        let (p, q) = (self.p, self.q);
        let Meet {
            lambda, x, m, allow, ..
        } = meet;
        let mut certify = meet.certify;
        let ps = p.vertex(vertex_a);
        let y = self.rt * (ps - x - self.t);
        let nf = q.face(face_b).normal;
        let mut inside = true;
        let mut near = (f64::INFINITY, y);
        for h in q.face_half_edges(face_b) {
            let he = q.half_edge(h);
            let a = q.vertex(he.origin);
            let e = q.vertex(q.half_edge(he.next).origin) - a;
            let s = nf.dot(e.cross(y - a));
            let el = e.length();
            if s >= m * el {
                continue;
            }
            inside = false;
            if s < 0.0 {
                if let Some(st) = stack.as_deref_mut() {
                    for &g in p.outgoing(vertex_a) {
                        st.push(Cand::Ee(p.half_edge(g).edge, he.edge));
                    }
                    st.push(Cand::Vf(q.half_edge(he.twin).face, vertex_a));
                }
                if certify {
                    if -s > allow * el {
                        certify = false;
                    } else {
                        near = nearer_on_segment(near, a, e, y);
                    }
                }
            }
        }
        if inside {
            return Probe::Exit;
        }
        if certify {
            let zb = self.r * (if near.0.is_finite() { near.1 } else { y }) + self.t;
            return self.overlap_certificate(lambda, x, ps, zb);
        }
        Probe::Miss
    }

    /// [`Ctx::probe`] at the EE face of edge `edge_a` of P and edge `edge_b` of Q: the meeting
    /// point's coordinates in the parallelogram.
    fn probe_ee(&self, edge_a: u32, edge_b: u32, meet: Meet, stack: Option<&mut Vec<Cand>>) -> Probe {
        let (p, q) = (self.p, self.q);
        let Meet { lambda, x, m, .. } = meet;
        let e = p.edge(edge_a);
        let g = q.edge(edge_b);
        let p0 = p.vertex(e.vertices[0]);
        let u = p.vertex(e.vertices[1]) - p0;
        let q0 = self.qv(g.vertices[0]);
        let w = q0 - self.qv(g.vertices[1]);
        // x = (p0 + a·u) − (q0 − b·w): a on A's edge, b on B's edge.
        let rhs = x - p0 + q0;
        let (uu, uw, ww) = (u.dot(u), u.dot(w), w.dot(w));
        let (ur, wr) = (u.dot(rhs), w.dot(rhs));
        let det = uu * ww - uw * uw;
        if !(det > 0.0) {
            return Probe::Miss;
        }
        let (sa, sb) = ((ur * ww - wr * uw) / det, (uu * wr - uw * ur) / det);
        let (ta, tb) = (m / uu.sqrt(), m / ww.sqrt());
        let inside = sa > ta && sa < 1.0 - ta && sb > tb && sb < 1.0 - tb;
        if inside {
            return Probe::Exit;
        }
        if let Some(st) = stack {
            // Beyond an end of A's edge: along B's arc into that vertex's region.
            for (beyond, va) in [(sa < 0.0, e.vertices[0]), (sa > 1.0, e.vertices[1])] {
                if beyond {
                    for &h in p.outgoing(va) {
                        let e2 = p.half_edge(h).edge;
                        if e2 != edge_a {
                            st.push(Cand::Ee(e2, edge_b));
                        }
                    }
                    for f in g.faces {
                        st.push(Cand::Vf(f, va));
                    }
                }
            }
            for (beyond, vb) in [(sb < 0.0, g.vertices[0]), (sb > 1.0, g.vertices[1])] {
                if beyond {
                    for &h in q.outgoing(vb) {
                        let e2 = q.half_edge(h).edge;
                        if e2 != edge_b {
                            st.push(Cand::Ee(edge_a, e2));
                        }
                    }
                    for f in e.faces {
                        st.push(Cand::Fv(f, vb));
                    }
                }
            }
        }
        if meet.certify {
            // A point of the parallelogram: the meeting point's coordinates clamped.
            let (ca, cb) = (sa.clamp(0.0, 1.0), sb.clamp(0.0, 1.0));
            return self.overlap_certificate(lambda, x, p0 + u * ca, q0 - w * cb);
        }
        Probe::Miss
    }

    /// Overlap certificate (module notes): M contains the ball of radius `rho` about `c` and
    /// the point `z = za − zb` (`za` a point of A, `zb` of B, A frame), hence their convex hull;
    /// with `x = c + λ·dir` (λ > 1) and `δ = |x − z|`, the point
    /// `b = c + (x − z)/(λ − 1)` lies in the ball when `δ ≤ rho·(λ − 1)`, and
    /// `o = (1 − 1/λ)·b + (1/λ)·z`. The test allows [`OVERLAP_CERT_REL`] of the pair's scale
    /// for the rounding of `c`, `x` and `z`.
    #[inline]
    pub(super) fn overlap_certificate(&self, lambda: f64, x: DVec3, za: DVec3, zb: DVec3) -> Probe {
        let tol = OVERLAP_CERT_REL * self.scale;
        let delta = (x - (za - zb)).length();
        if delta + tol * (2.0 + lambda) <= (self.rho - tol) * (lambda - 1.0) {
            Probe::Overlap(OverlapCert { lambda, x, za, zb })
        } else {
            Probe::Miss
        }
    }
}

/// `best` (squared distance, point) or the point of the segment `a + s·e` (s ∈ [0, 1]) nearest
/// to `y`, whichever is nearer.
#[inline]
fn nearer_on_segment(best: (f64, DVec3), a: DVec3, e: DVec3, y: DVec3) -> (f64, DVec3) {
    let ee = e.dot(e);
    let s = if ee > 0.0 {
        ((y - a).dot(e) / ee).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let z = a + e * s;
    let d = (y - z).length_squared();
    if d < best.0 {
        (d, z)
    } else {
        best
    }
}
