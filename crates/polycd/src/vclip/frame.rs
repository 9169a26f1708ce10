//! The frames V-Clip's tests run in: a body placed in the common frame ([`Body`]), one
//! orientation of the pair with its handler frames ([`View`]), the Voronoi-plane expressions
//! every handler shares, and the closest points of a certified pair.

use super::Rel;
use crate::contract::Feature;
use crate::core::geometry::{closest_on_segment, closest_segment_segment};
use crate::core::math::DVec3;
use crate::shape::polyhedron::ConvexPolyhedron;
use crate::shape::tables::{AdjRec, FeRec, VClipTables};

/// A polyhedron placed in the common frame (A's local frame).
#[derive(Clone, Copy)]
pub(super) struct Body<'a> {
    /// The shape's V-Clip tables (`poly.vclip_tables()`, fetched once per query).
    pub(super) tables: &'a VClipTables,
    pub(super) poly: &'a ConvexPolyhedron,
    /// Local → common frame, `x ↦ M·x + t` (`None`: identity, shape A).
    pub(super) frame: Option<&'a Rel>,
}

impl Body<'_> {
    /// Outward normal of face `f` in the handler frame (the same in both kinds of frame: the
    /// common frame is used only when the rotation is the identity).
    #[inline]
    pub(super) fn local_normal(&self, f: u32) -> DVec3 {
        self.poly.face(f).normal
    }
    /// The adjacency slots of vertex `v` (a slice of [`VClipTables::adj`]).
    #[inline]
    pub(super) fn adj(&self, v: u32) -> &[AdjRec] {
        let s = &self.poly.adj_start;
        &self.tables.adj[s[v as usize] as usize..s[v as usize + 1] as usize]
    }
    /// The face–edge records of face `f`'s half-edges (contiguous ids), and the first id.
    #[inline]
    pub(super) fn face_fe(&self, f: u32) -> (&[FeRec], u32) {
        let face = self.poly.face(f);
        let lo = face.half_edge as usize;
        (&self.tables.fe[lo..lo + face.len as usize], face.half_edge)
    }
    /// The edge of half-edge `h`.
    #[inline]
    pub(super) fn fe_edge(&self, h: u32) -> u32 {
        self.tables.fe[h as usize].edge
    }
    #[inline]
    pub(super) fn vertex(&self, v: u32) -> DVec3 {
        let p = self.poly.vertex(v);
        match self.frame {
            None => p,
            Some(r) => r.m * p + r.t,
        }
    }
    #[inline]
    pub(super) fn normal(&self, f: u32) -> DVec3 {
        let n = self.poly.face(f).normal;
        match self.frame {
            None => n,
            Some(r) => r.m * n,
        }
    }
    /// Signed distance of `x` from the support plane of face `f` (through its first vertex).
    #[inline]
    pub(super) fn face_dist(&self, f: u32, x: DVec3) -> f64 {
        let h = self.poly.face(f).half_edge;
        let a = self.vertex(self.poly.half_edge(h).origin);
        self.normal(f).dot(x - a)
    }
    /// Head vertex of half-edge `h`.
    #[inline]
    pub(super) fn head(&self, h: u32) -> u32 {
        let he = self.poly.half_edge(h);
        self.poly.half_edge(he.next).origin
    }
    /// Whether a cached feature's id is in range. The kind of the cached features varies from
    /// query to query, so the bound is looked up by kind rather than matched on (one
    /// mispredicted branch per query less).
    #[inline]
    pub(super) fn feature_ok(&self, f: Feature) -> bool {
        let (nv, ne, nf) = self.poly.counts();
        let (kind, id) = match f {
            Feature::Vertex(v) => (0, v),
            Feature::Edge(e) => (1, e),
            Feature::Face(x) => (2, x),
        };
        (id as usize) < [nv, ne, nf][kind]
    }
}

/// One orientation of the pair: features of `p` are tested against regions of `q` and back.
///
/// Every test of a feature of one body against a Voronoi region (or a neighbouring feature)
/// of the other runs in the handler frame of the body that owns the region. With a rotation
/// (`ROT`) that is the body's local frame: its vertices, normals and planes are used as
/// stored, and only the other feature's one or two vertices are mapped in (always by the same
/// map, `Mᵀ·(x − t)` into B and `M·x + t` into A, so each Voronoi plane still gets bit-for-bit
/// the same value, or its exact negation, whichever handler evaluates it). When the relative
/// rotation is exactly the identity (`!ROT`, translated copies) both bodies use the common
/// frame instead: the two maps `x − t` and `x + t` would then describe two configurations that
/// differ by rounding, and between the exactly parallel faces of such copies that difference
/// decides ties and makes the iteration cycle. B's vertices are then `x + t` (which `M·x + t`
/// equals up to the sign of zero coordinates, which no sign test sees) and its normals are
/// used as stored.
///
/// The two constants select the four cases at compile time (`PA`: `p` is A), so the
/// handlers carry no per-access branch on the kind of frame; a body whose handler frame is
/// its local frame (always A; B under a rotation) reads its plane vectors from its
/// `VClipTables`, a shifted B recomputes them from its shifted vertices with the same
/// expressions.
#[derive(Clone, Copy)]
pub(super) struct View<'a, const ROT: bool, const PA: bool> {
    pub(super) p: Body<'a>,
    pub(super) q: Body<'a>,
    pub(super) rel: &'a Rel,
}

impl<const ROT: bool, const PA: bool> View<'_, ROT, PA> {
    /// P's vertices are shifted by `t` in its handler frame (translation only, P = B).
    pub(super) const P_SHIFT: bool = !ROT && !PA;
    /// Q's vertices are shifted by `t` (translation only, Q = B).
    pub(super) const Q_SHIFT: bool = !ROT && PA;

    /// P's vertex `v` in P's handler frame.
    #[inline]
    pub(super) fn p_local(&self, v: u32) -> DVec3 {
        let x = self.p.poly.vertex(v);
        if Self::P_SHIFT {
            x + self.rel.t
        } else {
            x
        }
    }
    /// Q's vertex `v` in Q's handler frame.
    #[inline]
    pub(super) fn q_local(&self, v: u32) -> DVec3 {
        let x = self.q.poly.vertex(v);
        if Self::Q_SHIFT {
            x + self.rel.t
        } else {
            x
        }
    }
    /// A point of P's handler frame in Q's handler frame.
    #[inline]
    pub(super) fn p_to_q(&self, x: DVec3) -> DVec3 {
        match (ROT, PA) {
            (false, _) => x,
            (true, true) => self.rel.mt * (x - self.rel.t),
            (true, false) => self.rel.m * x + self.rel.t,
        }
    }
    /// A point of Q's handler frame in P's handler frame.
    #[inline]
    pub(super) fn q_to_p(&self, x: DVec3) -> DVec3 {
        match (ROT, PA) {
            (false, _) => x,
            (true, true) => self.rel.m * x + self.rel.t,
            (true, false) => self.rel.mt * (x - self.rel.t),
        }
    }
    /// P's vertex `v` in Q's frame.
    #[inline]
    pub(super) fn p_vertex_in_q(&self, v: u32) -> DVec3 {
        self.p_to_q(self.p_local(v))
    }
    /// Q's vertex `v` in P's frame.
    #[inline]
    pub(super) fn q_vertex_in_p(&self, v: u32) -> DVec3 {
        self.q_to_p(self.q_local(v))
    }
    /// A direction of Q's frame (a face normal) in P's frame.
    #[inline]
    pub(super) fn q_dir_to_p(&self, x: DVec3) -> DVec3 {
        match (ROT, PA) {
            (false, _) => x,
            (true, true) => self.rel.m * x,
            (true, false) => self.rel.mt * x,
        }
    }
    /// A direction of P's frame (a face normal) in Q's frame.
    #[inline]
    pub(super) fn p_dir_to_q(&self, x: DVec3) -> DVec3 {
        match (ROT, PA) {
            (false, _) => x,
            (true, true) => self.rel.mt * x,
            (true, false) => self.rel.m * x,
        }
    }
    /// A point of P's handler frame in the common frame.
    #[inline]
    pub(super) fn p_out(&self, x: DVec3) -> DVec3 {
        if ROT && !PA {
            self.rel.m * x + self.rel.t
        } else {
            x
        }
    }
    /// A point of Q's handler frame in the common frame.
    #[inline]
    pub(super) fn q_out(&self, x: DVec3) -> DVec3 {
        if ROT && PA {
            self.rel.m * x + self.rel.t
        } else {
            x
        }
    }
    /// Signed distance of the P-frame point `x` from the support plane of P's face `f`
    /// (through its first vertex).
    #[inline]
    pub(super) fn p_face_dist(&self, f: u32, x: DVec3) -> f64 {
        let face = self.p.poly.face(f);
        let a = self.p_local(self.p.poly.half_edge(face.half_edge).origin);
        face.normal.dot(x - a)
    }
    /// Signed distance of the Q-frame point `x` from the support plane of Q's face `f`.
    #[inline]
    pub(super) fn q_face_dist(&self, f: u32, x: DVec3) -> f64 {
        let face = self.q.poly.face(f);
        let a = self.q_local(self.q.poly.half_edge(face.half_edge).origin);
        face.normal.dot(x - a)
    }
    /// `w = x − o` of an adjacency slot of P's vertex at `x` (its handler-frame position), in
    /// the handler frame: the table's, or recomputed from the shifted vertices exactly as
    /// [`ve_plane`] would.
    #[inline]
    pub(super) fn p_adj(&self, r: &AdjRec, x: DVec3) -> DVec3 {
        if Self::P_SHIFT {
            x - (self.p.poly.vertex(r.nbr) + self.rel.t)
        } else {
            r.w
        }
    }
    /// `d² / |w|²` for the slot's `w`: VV's violation score of a violated vertex–edge plane
    /// (`d = w·(y − x)`), VF step 6's steepness of an edge (`d` its slope).
    #[inline]
    pub(super) fn p_adj_score(&self, r: &AdjRec, w: DVec3, d: f64) -> f64 {
        if Self::P_SHIFT {
            d * d / w.length_squared()
        } else {
            d * d * r.inv_len2
        }
    }
    /// Face–edge plane of Q's half-edge `h` = `a → b` (record `r`, in a face scan) in Q's
    /// handler frame: `(a, c, s)` with `c = n × (b − a)`, the plane being `c·(x − a)` (bit for
    /// bit [`fe_plane`]), and `s` the scale [`View::q_fe_violation`] takes.
    #[inline]
    pub(super) fn q_fe_rec(&self, r: &FeRec, h: u32) -> (DVec3, DVec3, f64) {
        if Self::Q_SHIFT {
            fe_of(&self.q, true, self.rel.t, h)
        } else {
            (self.q.poly.vertex(r.origin), r.c, r.inv_len)
        }
    }
    /// VF's violation `d / |b − a|` of a face–edge plane from [`View::q_fe_rec`]'s `s`
    /// (`|b − a|` for a shifted body, `1 / |b − a|` from the table).
    #[inline]
    pub(super) fn q_fe_violation(d: f64, s: f64) -> f64 {
        if Self::Q_SHIFT {
            d / s
        } else {
            d * s
        }
    }
}

/// The normal `c = n × (b − a)` of the face–edge plane of half-edge `h` = `a → b`, given its
/// handler-frame ends (the table's when the body is not shifted; the same expression
/// otherwise).
#[inline(always)]
pub(super) fn fe_normal(body: &Body, shift: bool, h: u32, a: DVec3, b: DVec3) -> DVec3 {
    if shift {
        body.local_normal(body.poly.half_edge(h).face).cross(b - a)
    } else {
        body.tables.fe[h as usize].c
    }
}

/// Handler-frame face–edge record of half-edge `h`: `(a, c, s)` as [`View::q_fe_rec`] gives
/// it (`s = |b − a|` when shifted, the table's `1 / |b − a|` otherwise).
#[inline(always)]
pub(super) fn fe_of(body: &Body, shift: bool, t: DVec3, h: u32) -> (DVec3, DVec3, f64) {
    let poly = body.poly;
    let r = body.tables.fe[h as usize];
    if shift {
        let a = poly.vertex(r.origin) + t;
        let b = poly.vertex(body.head(h)) + t;
        let u = b - a;
        (a, body.local_normal(poly.half_edge(h).face).cross(u), u.length())
    } else {
        (poly.vertex(r.origin), r.c, r.inv_len)
    }
}

/// Slope of the distance to the plane of a face along an edge of the other body: `u·n` with
/// `u = head − tail` in the edge owner's handler frame (its vertices as used there) and `n` the
/// face's normal rotated into that frame. VF step 6, EF and EE's Eq. 3 all compute it with
/// this one expression (an edge taken from its other end gives the exact negation), so they
/// agree on its sign bit for bit.
#[inline]
pub(super) fn edge_slope(u_own: DVec3, n_in_edge_frame: DVec3) -> f64 {
    u_own.dot(n_in_edge_frame)
}

/// Vertex–edge plane of edge `(v, w)` at `v`, positive on the vertex side.
#[inline]
pub(super) fn ve_plane(v: DVec3, w: DVec3, x: DVec3) -> f64 {
    (v - w).dot(x - v)
}

/// Face–edge plane of half-edge `a → b` of a face with normal `n`, positive on the face side.
#[inline]
pub(super) fn fe_plane(n: DVec3, a: DVec3, b: DVec3, x: DVec3) -> f64 {
    n.cross(b - a).dot(x - a)
}

#[inline]
pub(super) fn lerp(t: DVec3, h: DVec3, l: f64) -> DVec3 {
    t * (1.0 - l) + h * l
}

/// Closest points between the certified features (A's frame).
pub(super) fn closest_points<const R: bool>(ab: &View<R, true>, fa: Feature, fb: Feature) -> (DVec3, DVec3) {
    use Feature::*;
    let (a, b) = (&ab.p, &ab.q);
    #[inline(always)]
    fn ends(body: &Body, e: u32) -> (DVec3, DVec3) {
        let [t, h] = body.poly.edge(e).vertices;
        (body.vertex(t), body.vertex(h))
    }
    match (fa, fb) {
        (Vertex(x), Vertex(y)) => (a.vertex(x), b.vertex(y)),
        (Vertex(x), Edge(y)) => {
            let p = a.vertex(x);
            let (t, h) = ends(b, y);
            (p, closest_on_segment(p, t, h).0)
        }
        (Edge(x), Vertex(y)) => {
            let p = b.vertex(y);
            let (t, h) = ends(a, x);
            (closest_on_segment(p, t, h).0, p)
        }
        (Vertex(x), Face(y)) => {
            let p = a.vertex(x);
            (p, p - b.normal(y) * b.face_dist(y, p))
        }
        (Face(x), Vertex(y)) => {
            let p = b.vertex(y);
            (p - a.normal(x) * a.face_dist(x, p), p)
        }
        (Edge(x), Edge(y)) => {
            let (t1, h1) = ends(a, x);
            let (t2, h2) = ends(b, y);
            closest_segment_segment(t1, h1, t2, h2)
        }
        // Never certified by a handler.
        (Edge(x), Face(_)) | (Face(x), Face(_)) | (Face(x), Edge(_)) => {
            let p = match fa {
                Edge(_) => ends(a, x).0,
                _ => a.vertex(a.poly.half_edge(a.poly.face(x).half_edge).origin),
            };
            (p, p)
        }
    }
}
