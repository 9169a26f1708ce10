//! Exact plane and edge crossings of a line with a convex polyhedron's faces, shared by the
//! point and ray probes of solid shapes ([`super::probe`]) and of flat shapes
//! ([`super::probe_flat`]): the face planes' vertex triples, the exact signs of a line against
//! a face's edges, and where a ray enters a face (vertex, edge or face hit). The signs are
//! exact (`orient3d`); the entry distances are floating point.

use crate::core::math::DVec3;
use crate::core::predicates::{orient3d, Orientation};
use crate::shape::feature::Feature;
use crate::shape::polyhedron::ConvexPolyhedron;

/// The three vertices whose plane is face `f`'s plane for the exact tests (see the module
/// header), counter-clockwise seen from outside.
#[inline]
pub(super) fn plane_triple(shape: &ConvexPolyhedron, f: u32) -> [DVec3; 3] {
    let vs = shape.face_vertices(f);
    let k = vs.len();
    [
        shape.vertex(vs[0]),
        shape.vertex(vs[k / 3]),
        shape.vertex(vs[2 * k / 3]),
    ]
}

/// Which half-edges of an entered face the line passes exactly through (bit k: the k-th
/// half-edge counter-clockwise; bits beyond 63 are not kept), and how many.
#[derive(Clone, Copy)]
pub(super) struct Zeros {
    bits: u64,
    count: u32,
}

/// The exact signs of the line `(o, far)` against face `f`'s edges: `Some` when the line
/// enters the solid through the closed face (on the entering side of, or through, every edge,
/// and not lying in the face's plane).
pub(super) fn entry_signs(shape: &ConvexPolyhedron, o: DVec3, far: DVec3, f: u32) -> Option<Zeros> {
    let mut z = Zeros { bits: 0, count: 0 };
    let len = shape.face(f).len;
    for (k, h) in shape.face_half_edges(f).enumerate() {
        let he = shape.half_edge(h);
        let a = shape.vertex(he.origin);
        let b = shape.vertex(shape.half_edge(he.next).origin);
        match orient3d(o, far, a, b) {
            Orientation::Above => return None,
            Orientation::On => {
                z.count += 1;
                if k < 64 {
                    z.bits |= 1 << k;
                }
            }
            Orientation::Below => {}
        }
    }
    (z.count < len).then_some(z)
}

/// Where the ray from `o` along the unit `u` enters face `f` (the line passes through its
/// half-edges `zeros`): the distance along `u` and the feature hit.
pub(super) fn entry_point(shape: &ConvexPolyhedron, o: DVec3, u: DVec3, f: u32, zeros: Zeros) -> (f64, Feature) {
    let face = shape.face(f);
    let half_edges = || shape.face_half_edges(f).enumerate();
    let head = |h: u32| shape.half_edge(shape.half_edge(h).next).origin;
    if zeros.count >= 2 {
        // Through a vertex (two consecutive zero half-edges meet there), or along an edge
        // (its both ends): the nearest such vertex.
        let n = face.len as usize;
        let mut best: Option<(f64, u32)> = None;
        for (k, h) in half_edges() {
            let next = (k + 1) % n;
            if k < 64 && next < 64 && zeros.bits & (1 << k) != 0 && zeros.bits & (1 << next) != 0 {
                let v = head(h);
                let t = (shape.vertex(v) - o).dot(u);
                if best.is_none_or(|(bt, _)| t < bt) {
                    best = Some((t, v));
                }
            }
        }
        if let Some((t, v)) = best {
            return (t, Feature::Vertex(v));
        }
    }
    if zeros.count == 1 {
        if let Some((_, h)) = half_edges().find(|&(k, _)| k < 64 && zeros.bits & (1 << k) != 0) {
            let he = shape.half_edge(h);
            let a = shape.vertex(he.origin);
            let e = shape.vertex(head(h)) - a;
            // The line o + t·u crosses the edge's line: closest approach of the two lines.
            let w = o - a;
            let (b, c, d, g) = (u.dot(e), e.dot(e), u.dot(w), e.dot(w));
            let den = c - b * b;
            let t = (b * g - c * d) / den;
            if den > 0.0 && t.is_finite() {
                return (t, Feature::Edge(he.edge));
            }
            return (plane_t(shape, o, u, f), Feature::Edge(he.edge));
        }
    }
    (plane_t(shape, o, u, f), Feature::Face(f))
}

/// Where the ray from `o` along `u` crosses face `f`'s plane; for a face the ray meets at a
/// grazing angle too small for the plane's floating-point crossing, the closest approach of
/// the line to the face's vertex mean.
fn plane_t(shape: &ConvexPolyhedron, o: DVec3, u: DVec3, f: u32) -> f64 {
    let face = shape.face(f);
    let nd = face.normal.dot(u);
    let t = (face.offset - face.normal.dot(o)) / nd;
    if nd < 0.0 && t.is_finite() {
        return t;
    }
    let vs = shape.face_vertices(f);
    let mean = vs.iter().fold(DVec3::ZERO, |s, &v| s + shape.vertex(v)) / vs.len() as f64;
    (mean - o).dot(u)
}
