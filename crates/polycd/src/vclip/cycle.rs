//! The exit from a cycle of the floating-point iteration (see *Cycles* in the module header):
//! Alg. 3's penetration test on the cycle's features, then the slab-certified pair.

use super::answer::feature_vertex;
use super::frame::{closest_points, fe_plane, lerp, Body, View};
use super::handlers::step;
use crate::contract::{Feature, FeaturePair};
use crate::core::math::DVec3;

/// Closest points of a pair on the cycle that are certainly points of the two shapes (to
/// rounding): VV, VE and EE pairs always (clamped segments), VF pairs only when the vertex
/// lies in the face's prism (its projection is then on the face); EF and FF pairs have none.
fn cycle_candidate<const R: bool>(ab: &View<R, true>, fa: Feature, fb: Feature) -> Option<(DVec3, DVec3)> {
    let in_prism = |body: &Body, f: u32, x: DVec3| {
        let n = body.normal(f);
        body.poly.face_half_edges(f).all(|h| {
            let a = body.vertex(body.poly.half_edge(h).origin);
            let b = body.vertex(body.head(h));
            fe_plane(n, a, b, x) >= 0.0
        })
    };
    match (fa, fb) {
        (Feature::Edge(_), Feature::Face(_))
        | (Feature::Face(_), Feature::Edge(_))
        | (Feature::Face(_), Feature::Face(_)) => None,
        (Feature::Vertex(v), Feature::Face(f)) if !in_prism(&ab.q, f, ab.p.vertex(v)) => None,
        (Feature::Face(f), Feature::Vertex(v)) if !in_prism(&ab.p, f, ab.q.vertex(v)) => None,
        _ => Some(closest_points(ab, fa, fb)),
    }
}

/// `min_Q n·y − max_P n·x` (common frame): a lower bound on the distance, for any direction
/// `n`, by two hill-climbing support queries started at the given features.
fn slab_gap<const R: bool>(ab: &View<R, true>, fa: Feature, fb: Feature, n: DVec3) -> f64 {
    let local = |body: &Body, d: DVec3| match &body.frame {
        None => d,
        Some(r) => r.mt * d,
    };
    let va = ab.p.poly.support_climb(local(&ab.p, n), feature_vertex(ab.p.poly, fa));
    let vb = ab.q.poly.support_climb(local(&ab.q, -n), feature_vertex(ab.q.poly, fb));
    n.dot(ab.q.vertex(vb)) - n.dot(ab.p.vertex(va))
}

/// Resolves a cycle of the iteration (period `period`, through `start`). In exact arithmetic
/// V-Clip cannot cycle; in floating point it does when distance-decreasing updates are decided
/// by rounding noise, e.g. between exactly parallel faces or edges (a translated copy of a
/// centrally symmetric shape), where every pair on the cycle is at the same distance to
/// rounding. The pair of the cycle whose closest points (both on the shapes) are nearest is
/// accepted when the slab along their difference certifies it: the true distance lies in
/// `[gap, d]`, so `d − gap ≤ tol` bounds the error. Otherwise `None` (not converged).
pub(super) fn settle_cycle<const R: bool>(
    ab: &View<R, true>,
    ba: &View<R, false>,
    start: (Feature, Feature),
    period: u32,
    tol: f64,
) -> Option<(FeaturePair, DVec3, DVec3)> {
    let (mut fa, mut fb) = start;
    let mut best: Option<(f64, FeaturePair, DVec3, DVec3)> = None;
    for _ in 0..period {
        if let Some((xa, xb)) = cycle_candidate(ab, fa, fb) {
            let d = (xb - xa).length();
            if best.as_ref().is_none_or(|b| d < b.0) {
                best = Some((d, FeaturePair { a: fa, b: fb }, xa, xb));
            }
        }
        if !step(ab, ba, fa, fb).apply(&mut fa, &mut fb) {
            // Unreachable: the cycle was observed with the same deterministic handlers.
            return None;
        }
    }
    let (d, pair, xa, xb) = best?;
    if d.is_nan() {
        return None;
    }
    if d > 0.0 && d - slab_gap(ab, pair.a, pair.b, (xb - xa) / d) <= tol {
        return Some((pair, xa, xb));
    }
    // At (near-)contact the direction xb − xa is rounding noise. The slab normals that can
    // certify a contact are the face normals at the cycle's features and the cross products
    // of their edges (the extreme rays of the intersection of the two normal cones): walk the
    // cycle once more collecting them, and take the best lower bound.
    let mut dirs = LocalDirs::default();
    let (mut ga, mut gb) = start;
    for _ in 0..period {
        dirs.add(&ab.p, ga, 1.0, true);
        dirs.add(&ab.q, gb, -1.0, false);
        if !step(ab, ba, ga, gb).apply(&mut ga, &mut gb) {
            // Unreachable: the cycle was observed with the same deterministic handlers.
            return None;
        }
    }
    let mut gap = f64::NEG_INFINITY;
    for n in &dirs.normals[..dirs.nn] {
        gap = gap.max(slab_gap(ab, pair.a, pair.b, *n));
    }
    for ea in &dirs.edges_a[..dirs.na] {
        for eb in &dirs.edges_b[..dirs.nb] {
            let c = ea.cross(*eb);
            let l = c.length();
            if l > 0.0 && l.is_finite() {
                let n = c / l;
                gap = gap.max(slab_gap(ab, pair.a, pair.b, n));
                gap = gap.max(slab_gap(ab, pair.a, pair.b, -n));
            }
        }
    }
    (d - gap <= tol).then_some((pair, xa, xb))
}

/// handleLocalMin's penetration test (Alg. 3) applied to the features of a cycle: a vertex on
/// or inside every face plane of the other polyhedron is a common point, and so is a point of
/// an edge (or of a face's boundary edge) that the same face planes do not clip away (the
/// edge clipped against the other polyhedron, signs compared with 0 as in Alg. 3; the point
/// returned is the middle of the surviving part). O(faces) per vertex, edge or face edge;
/// only run on a detected cycle.
pub(super) fn cycle_penetration<const R: bool>(
    ab: &View<R, true>,
    ba: &View<R, false>,
    start: (Feature, Feature),
    period: u32,
) -> Option<(FeaturePair, DVec3)> {
    let (mut fa, mut fb) = start;
    for _ in 0..period {
        let pair = FeaturePair { a: fa, b: fb };
        if let Some(x) = feature_inside(&ab.p, fa, &ab.q).or_else(|| feature_inside(&ab.q, fb, &ab.p)) {
            return Some((pair, x));
        }
        if !step(ab, ba, fa, fb).apply(&mut fa, &mut fb) {
            // Unreachable: the cycle was observed with the same deterministic handlers.
            return None;
        }
    }
    None
}

/// A point of feature `f` of `body` on or inside every face plane of `other` (common frame),
/// if the sign tests find one: the vertex itself, the middle of the part of an edge inside
/// `other`, or that of a face's boundary edge.
fn feature_inside(body: &Body, f: Feature, other: &Body) -> Option<DVec3> {
    match f {
        Feature::Vertex(v) => {
            let x = body.vertex(v);
            (0..other.poly.faces().len() as u32)
                .all(|g| other.face_dist(g, x) <= 0.0)
                .then_some(x)
        }
        Feature::Edge(e) => {
            let [t, h] = body.poly.edge(e).vertices;
            segment_inside(other, body.vertex(t), body.vertex(h))
        }
        Feature::Face(x) => body.poly.face_half_edges(x).find_map(|h| {
            let he = body.poly.half_edge(h);
            segment_inside(other, body.vertex(he.origin), body.vertex(body.head(h)))
        }),
    }
}

/// The middle of the part of the segment `t → h` (common frame) on or inside every face plane
/// of `body`, when the clip leaves one.
fn segment_inside(body: &Body, t: DVec3, h: DVec3) -> Option<DVec3> {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for g in 0..body.poly.faces().len() as u32 {
        let (dt, dh) = (body.face_dist(g, t), body.face_dist(g, h));
        if dt > 0.0 && dh > 0.0 {
            return None;
        }
        if dt > 0.0 {
            lo = lo.max(dt / (dt - dh));
        } else if dh > 0.0 {
            hi = hi.min(dt / (dt - dh));
        }
        if lo > hi {
            return None;
        }
    }
    Some(lerp(t, h, 0.5 * (lo + hi)))
}

/// Candidate slab normals near a cycle's features (fixed capacity: the cycle path is rare and
/// must not allocate; the caps bound its cost).
struct LocalDirs {
    normals: [DVec3; 48],
    nn: usize,
    edges_a: [DVec3; 16],
    na: usize,
    edges_b: [DVec3; 16],
    nb: usize,
}

impl Default for LocalDirs {
    fn default() -> Self {
        LocalDirs {
            normals: [DVec3::ZERO; 48],
            nn: 0,
            edges_a: [DVec3::ZERO; 16],
            na: 0,
            edges_b: [DVec3::ZERO; 16],
            nb: 0,
        }
    }
}

impl LocalDirs {
    fn normal(&mut self, n: DVec3) {
        if self.nn < self.normals.len() && !self.normals[..self.nn].contains(&n) {
            self.normals[self.nn] = n;
            self.nn += 1;
        }
    }
    fn edge(&mut self, e: DVec3, side_a: bool) {
        let (buf, k) = if side_a {
            (&mut self.edges_a, &mut self.na)
        } else {
            (&mut self.edges_b, &mut self.nb)
        };
        if *k < buf.len() && !buf[..*k].iter().any(|x| *x == e || *x == -e) {
            buf[*k] = e;
            *k += 1;
        }
    }
    /// Face normals (times `sign`: outward for A, inward for B) and edge directions at `f`.
    fn add(&mut self, body: &Body, f: Feature, sign: f64, side_a: bool) {
        let poly = body.poly;
        match f {
            Feature::Vertex(v) => {
                for &h in poly.outgoing(v) {
                    let he = poly.half_edge(h);
                    self.normal(sign * body.normal(he.face));
                    self.edge(body.vertex(body.head(h)) - body.vertex(v), side_a);
                }
            }
            Feature::Edge(e) => {
                let ed = poly.edge(e);
                self.normal(sign * body.normal(ed.faces[0]));
                self.normal(sign * body.normal(ed.faces[1]));
                self.edge(body.vertex(ed.vertices[1]) - body.vertex(ed.vertices[0]), side_a);
            }
            Feature::Face(x) => self.normal(sign * body.normal(x)),
        }
    }
}
