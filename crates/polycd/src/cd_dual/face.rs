//! Faces of `M = P ⊕ (−Q)`: the search context, the evaluation of FV, VF and EE faces (their
//! planes, support values and keys), the §4.3 arc test, the separation certificate and the
//! heuristic start (§4.2, with the model of the module notes).

use super::DualFace;
use crate::contract::contact_tolerance;
use crate::core::math::{DMat3, DVec3, Pose};
use crate::core::tolerance::COPLANAR_REL;
use crate::shape::polyhedron::ConvexPolyhedron;
use crate::shape::tables::StartTable;

/// One evaluated face of M (A's frame).
#[derive(Clone, Copy, Debug)]
pub(super) struct Eval {
    pub(super) face: DualFace,
    /// Outward normal (not necessarily unit).
    pub(super) n: DVec3,
    /// `h_M(n)`.
    pub(super) k: f64,
    /// `σ = n·dir / (k − n·c)`.
    pub(super) key: f64,
}

/// The outcome of [`Ctx::certify_separation`] for a plane that passed it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Cert {
    /// Fresh support queries confirm A's maximum lies below B's minimum.
    Apart { top_a: f64, gap: f64 },
    /// The overlap along the normal is within the contact tolerance (rounding-level contact).
    Touching { top_a: f64, gap: f64, point: DVec3 },
}

pub(super) struct Ctx<'a> {
    /// The poses, for the contact tolerance of the pair (a certificate gap in `[0, ctol]`
    /// means touching), computed only when a certificate needs it.
    pub(super) poses: (&'a Pose, &'a Pose),
    pub(super) p: &'a ConvexPolyhedron,
    pub(super) q: &'a ConvexPolyhedron,
    /// Rotation B-local → A frame, its transpose, and the translation.
    pub(super) r: DMat3,
    pub(super) rt: DMat3,
    pub(super) t: DVec3,
    pub(super) c: DVec3,
    pub(super) dir: DVec3,
    /// Length scale of the pair's coordinates (rounding allowances are relative to it).
    pub(super) scale: f64,
    /// Radius of a ball about `c` inside M (`c`'s interior points' depths added), for the
    /// boolean query's overlap certificate; 0 disables it.
    pub(super) rho: f64,
}

/// Exact sign of `det[x, y, z] = (x × y) · z` (`orient3d(o, x, y, z)`, float-filtered).
#[inline]
fn vol(x: DVec3, y: DVec3, z: DVec3) -> i32 {
    crate::core::predicates::det_sign(x, y, z) as i32
}

/// §4.3: do the minor great arcs `a→b` and `c→d` cross at a single interior point? Exact
/// signs of the signed volumes `|cba|, |dba|, |adc|, |bdc|` of the given vectors.
pub fn arcs_cross(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> bool {
    let cba = vol(c, b, a);
    let dba = vol(d, b, a);
    if cba * dba >= 0 {
        return false;
    }
    let adc = vol(a, d, c);
    let bdc = vol(b, d, c);
    if adc * bdc >= 0 {
        return false;
    }
    // |acb| = |cba| and |dcb| = |bdc|.
    cba * bdc > 0
}

impl Ctx<'_> {
    #[inline]
    pub(super) fn qv(&self, v: u32) -> DVec3 {
        self.r * self.q.vertex(v) + self.t
    }

    #[inline]
    pub(super) fn key(&self, n: DVec3, k: f64) -> f64 {
        let h = k - n.dot(self.c);
        let h = if h > f64::MIN_POSITIVE { h } else { f64::MIN_POSITIVE };
        n.dot(self.dir) / h
    }

    /// The FV face of face `f` of P; `warm` is a vertex of Q to start its support query from
    /// (updated to the support vertex). With `beat > −∞`, returns `None` when the face can
    /// neither have a key above `beat` nor separate (callers pass `beat ≤ 1`, and a key ≤ 1
    /// means `k ≥ 0`), decided without the support query: the warm vertex's value bounds `k`
    /// from below, hence the key from above (the denominator `k − n·c` grows with `k`). A
    /// bound computed from the support vertex itself is the key itself, so nothing the
    /// search would pick is skipped.
    #[inline]
    pub(super) fn eval_fv(&self, f: u32, warm: &mut u32, beat: f64) -> Option<Eval> {
        if *warm as usize >= self.q.vertices().len() {
            *warm = 0;
        }
        let qw = self.qv(*warm);
        self.eval_fv_from(f, warm, qw, beat)
    }

    /// [`Ctx::eval_fv`] with the warm vertex valid and already placed: `qw = qv(*warm)`
    /// (Search-FV places it once for all the neighbours of the current face).
    #[inline]
    pub(super) fn eval_fv_from(&self, f: u32, warm: &mut u32, qw: DVec3, beat: f64) -> Option<Eval> {
        let face = self.p.face(f);
        let n = face.normal;
        if beat > f64::NEG_INFINITY {
            let h = face.offset - n.dot(qw) - n.dot(self.c);
            if h > 0.0 && n.dot(self.dir) / h <= beat {
                return None;
            }
        }
        let v = self.q.support_climb(self.rt * (-n), *warm);
        let qs = if v == *warm { qw } else { self.qv(v) };
        *warm = v;
        let k = face.offset - n.dot(qs);
        Some(Eval {
            face: DualFace::Fv { face_a: f, vertex_b: v },
            n,
            k,
            key: self.key(n, k),
        })
    }

    /// The VF face of face `g` of Q, as [`Ctx::eval_fv`] with the roles swapped.
    #[inline]
    pub(super) fn eval_vf(&self, g: u32, warm: &mut u32, beat: f64) -> Option<Eval> {
        let face = self.q.face(g);
        let m = self.r * face.normal;
        let n = -m;
        if *warm as usize >= self.p.vertices().len() {
            *warm = 0;
        }
        let off = face.offset + m.dot(self.t);
        let pw = self.p.vertex(*warm);
        if beat > f64::NEG_INFINITY {
            let h = n.dot(pw) + off - n.dot(self.c);
            if h > 0.0 && n.dot(self.dir) / h <= beat {
                return None;
            }
        }
        let v = self.p.support_climb(n, *warm);
        let ps = if v == *warm { pw } else { self.p.vertex(v) };
        *warm = v;
        let k = n.dot(ps) + off;
        Some(Eval {
            face: DualFace::Vf { vertex_a: v, face_b: g },
            n,
            k,
            key: self.key(n, k),
        })
    }

    #[inline]
    pub(super) fn eval_ee(&self, ea: u32, eb: u32) -> Option<Eval> {
        let e = self.p.edge(ea);
        let g = self.q.edge(eb);
        let a = self.p.face(e.faces[0]).normal;
        let b = self.p.face(e.faces[1]).normal;
        let c = -(self.r * self.q.face(g.faces[0]).normal);
        let d = -(self.r * self.q.face(g.faces[1]).normal);
        if !arcs_cross(a, b, c, d) {
            return None;
        }
        let p0 = self.p.vertex(e.vertices[0]);
        let p1 = self.p.vertex(e.vertices[1]);
        let q0 = self.qv(g.vertices[0]);
        let q1 = self.qv(g.vertices[1]);
        let mut n = (p1 - p0).cross(q1 - q0);
        if n.dot(a + b) < 0.0 {
            n = -n;
        }
        // The arc test decides on the face normals, the plane is built from the edges. When
        // the arcs (nearly) lie on one great circle — parallel edges, e.g. shapes related by a
        // symmetry — rounding can make `arcs_cross` say yes while `n` (the cross product of two
        // parallel vectors) points anywhere around the edges: its plane is then no supporting
        // plane of M and its `k` is meaningless (a deep overlap was reported as Disjoint).
        // Keep the pair only if its plane genuinely supports M: the edges' first vertices are
        // local — by convexity global — maxima of `n` on P and of `−n` on −Q.
        if !self.supports_at(n, e.vertices[0], g.vertices[0]) {
            return None;
        }
        let k = n.dot(p0 - q0);
        Some(Eval {
            face: DualFace::Ee { edge_a: ea, edge_b: eb },
            n,
            k,
            key: self.key(n, k),
        })
    }

    /// Rounding allowance of a support comparison along a direction of length `len`.
    #[inline]
    pub(super) fn tol(&self, len: f64) -> f64 {
        COPLANAR_REL * self.scale * len
    }

    /// Is `n·x` maximal on P at vertex `vp` and `n·y` minimal on Q (A frame) at vertex `vq`,
    /// up to rounding? A local test over the neighbours, exact for convex shapes.
    pub(super) fn supports_at(&self, n: DVec3, vp: u32, vq: u32) -> bool {
        let tol = self.tol(n.length());
        if !(tol.is_finite() && tol > 0.0) {
            return false;
        }
        let xp = self.p.vertex(vp);
        if self.p.neighbors(vp).iter().any(|&w| n.dot(self.p.vertex(w) - xp) > tol) {
            return false;
        }
        let m = self.rt * (-n);
        let xq = self.q.vertex(vq);
        !self.q.neighbors(vq).iter().any(|&w| m.dot(self.q.vertex(w) - xq) > tol)
    }

    /// The certificate demanded before a separation is reported: fresh support queries
    /// (hill-climbs along `n` from the face's generating features, independent of the
    /// search's support values) confirm that A's maximum along `n` lies below B's minimum. A face with `k < 0` that fails it is no face of M.
    /// Returns, for the unit normal `n/|n|`, A's maximum along it, the gap to B's minimum
    /// (negative when they are apart) and the midpoint of the two support points (A frame).
    #[inline]
    pub(super) fn certify_separation(&self, ev: &Eval) -> Option<Cert> {
        let len = ev.n.length();
        if !(len > 0.0 && len.is_finite()) {
            return None;
        }
        let n = ev.n / len;
        let (p, q) = (self.p, self.q);
        let (wa, wb) = match ev.face {
            DualFace::Fv { face_a, vertex_b } => (p.face_vertices(face_a).first().copied().unwrap_or(0), vertex_b),
            DualFace::Vf { vertex_a, face_b } => (vertex_a, q.face_vertices(face_b).first().copied().unwrap_or(0)),
            DualFace::Ee { edge_a, edge_b } => (p.edge(edge_a).vertices[0], q.edge(edge_b).vertices[0]),
        };
        let pa = p.vertex(p.support_climb(n, wa));
        let qb = self.qv(q.support_climb(self.rt * (-n), wb));
        let top_a = n.dot(pa);
        let gap = top_a - n.dot(qb);
        if gap < 0.0 {
            Some(Cert::Apart { top_a, gap })
        } else if gap <= contact_tolerance(self.p, self.poses.0, self.q, self.poses.1) {
            Some(Cert::Touching {
                top_a,
                gap,
                point: 0.5 * (pa + qb),
            })
        } else {
            None
        }
    }

    /// The heuristic start face of §4.2 (see the module notes): M is modelled by the ellipsoid
    /// `(x − m)ᵀ E⁻¹ (x − m) = 1` with `m` the difference of the vertex means and
    /// `E = 6 (C_P + R C_Q Rᵀ)` from the vertex covariances (exact for two equal, aligned
    /// ellipsoid samples: 3 C is the squared semi-axes of one); the ray `c + λ·dir` leaves
    /// the model at `x`, whose model normal `E⁻¹ (x − m)` replaces the paper's `s = dir`.
    /// Falls back to `dir` when the model is degenerate or misses the ray.
    ///
    /// Also returns whether Q's faces are expected larger than P's around that normal (see
    /// [`Ctx::q_faces_larger`]).
    #[inline]
    pub(super) fn heuristic_normal(&self) -> (DVec3, bool) {
        let (tp, tq) = (&self.p.start_table, &self.q.start_table);
        let cq = self.r * tq.cov * self.rt;
        let e = (tp.cov + cq) * 6.0;
        let det = e.determinant();
        let n = if det.is_finite() && det > 0.0 {
            let f = e.inverse();
            let w0 = self.c - (tp.mean - (self.r * tq.mean + self.t));
            let fd = f * self.dir;
            let a = self.dir.dot(fd);
            let b = w0.dot(fd);
            let cc = w0.dot(f * w0) - 1.0;
            let disc = b * b - a * cc;
            if a > 0.0 && disc >= 0.0 {
                let lambda = (-b + disc.sqrt()) / a;
                let n = f * (w0 + self.dir * lambda);
                if n.is_finite() && n.dot(self.dir) > 0.0 {
                    n
                } else {
                    self.dir
                }
            } else {
                self.dir
            }
        } else {
            self.dir
        };
        (n, Self::q_faces_larger(tp, cq, tq.cov_det, n))
    }

    /// Are Q's faces expected larger than P's around the normal `n` of M (A frame), by the
    /// inertia ellipsoids (`cq = R C_Q Rᵀ`)? The faces of M around a normal are P's faces
    /// (FV), Q's faces (VF) and parallelograms (EE); the FV (VF) share of the area there is
    /// P's (Q's) product of principal radii of curvature at that normal, on an ellipsoid with
    /// squared semi-axes `A = 3 C`: `det A / (nᵀ A n)²`. Search-FV runs over the shape with the
    /// larger share (see the module notes on the role swap).
    #[inline]
    pub(super) fn q_faces_larger(tp: &StartTable, cq: DMat3, cq_det: f64, n: DVec3) -> bool {
        let (hp, hq) = (n.dot(tp.cov * n), n.dot(cq * n));
        cq_det * hp * hp > tp.cov_det * hq * hq
    }

    #[inline]
    pub(super) fn heuristic_face(&self, n: DVec3) -> u32 {
        // The cell's vertex, not climbed: the start face only needs to be near.
        let v = self.p.hint_start(n);
        self.best_face_at_vertex(v, n)
    }

    #[inline]
    pub(super) fn best_face_at_vertex(&self, v: u32, n: DVec3) -> u32 {
        let mut best = u32::MAX;
        let mut best_d = f64::NEG_INFINITY;
        for &h in self.p.outgoing(v) {
            let f = self.p.half_edge(h).face;
            let d = self.p.face(f).normal.dot(n);
            if d > best_d || best == u32::MAX {
                best_d = d;
                best = f;
            }
        }
        if best == u32::MAX {
            0
        } else {
            best
        }
    }

    /// Collects into `ties` the vertices of `shape` whose value `dir·x` is within the tie
    /// tolerance of `start`'s (which must be a maximiser), by a walk over tied neighbours.
    pub(super) fn collect_ties(shape: &ConvexPolyhedron, start: u32, dir: DVec3, ties: &mut Vec<u32>) {
        ties.clear();
        ties.push(start);
        let top = dir.dot(shape.vertex(start));
        let tol = COPLANAR_REL * (shape.scale() + shape.magnitude()) * dir.length();
        let mut i = 0;
        // Each vertex enters `ties` at most once: bounded by the vertex count.
        while i < ties.len() && ties.len() < shape.vertices().len() {
            let v = ties[i];
            i += 1;
            for &w in shape.neighbors(v) {
                if dir.dot(shape.vertex(w)) >= top - tol && !ties.contains(&w) {
                    ties.push(w);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arc_test_matches_great_circle_geometry() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut crossings = 0;
        for _ in 0..20_000 {
            let a = crate::shape::shapes::unit_vector(&mut rng);
            let mut b = crate::shape::shapes::unit_vector(&mut rng);
            let c = crate::shape::shapes::unit_vector(&mut rng);
            let mut d = crate::shape::shapes::unit_vector(&mut rng);
            if rng.random_range(0..2) == 0 {
                b = (a + b * 0.7).normalize();
                d = (c + d * 0.7).normalize();
            }
            // Reference: the great circles meet at ±x; a minor arc contains x iff x is a
            // non-negative combination of its end points.
            let x = a.cross(b).cross(c.cross(d)).normalize();
            let on = |x: DVec3, p: DVec3, q: DVec3| {
                // x = α p + β q with α, β > 0 (x in the plane of p, q).
                let n = p.cross(q);
                let al = x.cross(q).dot(n);
                let be = p.cross(x).dot(n);
                al > 0.0 && be > 0.0
            };
            let truth = (on(x, a, b) && on(x, c, d)) || (on(-x, a, b) && on(-x, c, d));
            assert_eq!(arcs_cross(a, b, c, d), truth, "{a} {b} {c} {d}");
            crossings += truth as u32;
        }
        assert!(crossings > 1000);
    }
}

/// A candidate face of M on the Search-EE stack.
#[derive(Clone, Copy, Debug)]
pub(super) enum Cand {
    /// Edge of A, edge of B.
    Ee(u32, u32),
    /// Face of A, warm-start vertex of B.
    Fv(u32, u32),
    /// Face of B, warm-start vertex of A.
    Vf(u32, u32),
    /// The whole neighbourhood of this face (`push_neighbours`), pushed when popped.
    Expand(DualFace),
}
