//! The exact penetration of two small overlapping polytopes by a separating-axis test (the
//! manifold's fast path before GJK/EPA), and the last frame's axis re-checked first.
//!
//! The penetration depth of A and B is the distance from the origin to the nearest face of
//! their Minkowski difference `M = A − B`, and the faces of `M` are of three kinds: a face of
//! A (normal `n_f`), a face of B (normal `−n_g` seen from A), and two edges whose arcs on the
//! Gauss map cross (A's arc between its edge's two face normals, B's between the negated
//! normals of its edge's faces). The separation along a unit axis `u` — B's least extent
//! minus A's greatest — is at most the signed distance for every `u` and equals it (minus the
//! depth) at the nearest face's normal, so the largest separation over those candidate axes
//! is the signed distance and its axis the penetration normal, exactly as EPA finds them
//! (same depth up to rounding). Faces are measured by scans of the other shape's vertices
//! (the shapes are small), crossing edge pairs
//! by their edge points (each edge is its shape's support along the pair's axis, so the two
//! agree); edge pairs whose arcs do not cross are skipped (Gregorius' arc test), so an edge
//! pair costs four dot products.
//!
//! The search gives up (the caller then asks GJK/EPA) when any axis separates the shapes or
//! shows them within [`MANIFOLD_SAT_DEPTH_REL`] × scale of touching (near contact GJK/EPA's
//! touching/overlap decision is the reference), and when a crossing edge pair is within
//! [`MANIFOLD_SAT_EDGE_SIN`] of parallel (its axis would be ill-conditioned). Ties keep the
//! first axis found: A's faces, then B's, then edge pairs.
//!
//! Loops: one pass over B's vertices, A's faces × B's vertices, B's faces × A's vertices,
//! B's edges, and A's edges × B's edges (callers
//! bound the product, [`SAT_MAX_EDGE_PAIRS`]).
//!
//! [`MANIFOLD_SAT_DEPTH_REL`]: crate::core::tolerance::MANIFOLD_SAT_DEPTH_REL

use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::MANIFOLD_SAT_EDGE_SIN;
use crate::shape::polyhedron::ConvexPolyhedron;

/// The separating-axis search is used when A's edges times B's edges is at most this (two
/// boxes: 144; a box and a pentagonal prism: 180). Measured (callgrind, `bench manifold
/// --quick`): a box pair's search costs about a third of EPA's ~12 000 instructions, an
/// icosahedron pair's (900 edge pairs) about 1.7 × EPA's.
pub(super) const SAT_MAX_EDGE_PAIRS: usize = 200;

/// An edge of B in A's frame with its arc on the Gauss map of `−B`.
#[derive(Clone, Copy, Debug)]
struct ArcEdge {
    /// Its tail and direction (tail to head).
    p: DVec3,
    d: DVec3,
    /// The arc's ends (the negated normals of its two faces) and their cross product.
    c: DVec3,
    dn: DVec3,
    dxc: DVec3,
}

/// The warm-start state and buffers of the manifold's fast paths.
#[derive(Clone, Debug, Default)]
pub(super) struct Warm {
    /// The last frame's contact normal or separating direction (unit, A's frame).
    pub(super) axis: Option<DVec3>,
    /// Support-vertex hints of A and B.
    hints: [u32; 2],
    /// B's vertices and face normals in A's frame.
    vb: Vec<DVec3>,
    nb: Vec<DVec3>,
    /// B's edges in A's frame.
    eb: Vec<ArcEdge>,
}

impl Warm {
    /// Forgets the axis and the hints (keeps the buffers).
    pub(super) fn forget(&mut self) {
        self.axis = None;
        self.hints = [0, 0];
    }
}

/// The separating-axis answer: the penetration normal (unit, A's frame, A toward B), the
/// separation along it (negative), and for an edge pair the closest points of the two edges
/// (A's frame; `None` for a face axis).
#[derive(Clone, Copy, Debug)]
pub(super) struct SatDepth {
    pub(super) axis: DVec3,
    pub(super) sep: f64,
    pub(super) witness: Option<(DVec3, DVec3)>,
}

/// Whether the pair is small enough for [`penetration`]: two solids whose edge-pair count is
/// at most [`SAT_MAX_EDGE_PAIRS`].
pub(super) fn eligible(a: &ConvexPolyhedron, b: &ConvexPolyhedron) -> bool {
    a.dimension() == 3 && b.dimension() == 3 && a.edges().len() * b.edges().len() <= SAT_MAX_EDGE_PAIRS
}

/// The separation of A and B (B at `rel` in A's frame) along the unit axis `u` (A's frame):
/// B's least extent minus A's greatest, from support vertices (warm-started by `warm`).
pub(super) fn along(a: &ConvexPolyhedron, b: &ConvexPolyhedron, rel: &Pose, u: DVec3, warm: &mut Warm) -> f64 {
    let va = a.support_climb_hinted(u, warm.hints[0]);
    let vb = b.support_climb_hinted(rel.inverse_transform_vector(-u), warm.hints[1]);
    warm.hints = [va, vb];
    u.dot(rel.transform_point(b.vertex(vb))) - u.dot(a.vertex(va))
}

/// The penetration of A and B (B at `rel` in A's frame) by the separating-axis test (module
/// header); `None` when an axis shows a separation of `-thr` or more (apart, touching or
/// barely overlapping), or when a crossing edge pair is nearly parallel: the caller then
/// measures with GJK/EPA.
pub(super) fn penetration(
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
    rel: &Pose,
    thr: f64,
    warm: &mut Warm,
) -> Option<SatDepth> {
    let mut best = SatDepth {
        axis: DVec3::ZERO,
        sep: f64::NEG_INFINITY,
        witness: None,
    };
    // B's vertices in A's frame (small shapes: the supports below are scans).
    warm.vb.clear();
    warm.vb.extend(b.vertices().iter().map(|&v| rel.transform_point(v)));
    // A's faces: B's deepest vertex below each.
    for face in a.faces() {
        let low = warm
            .vb
            .iter()
            .map(|&v| face.normal.dot(v))
            .fold(f64::INFINITY, f64::min);
        let sep = low - face.offset;
        if !(sep < -thr) {
            return None;
        }
        if sep > best.sep {
            best = SatDepth {
                axis: face.normal,
                sep,
                witness: None,
            };
        }
    }
    // B's faces (in A's frame): A's deepest vertex below each.
    warm.nb.clear();
    for g in 0..b.faces().len() as u32 {
        let plane = b.face_plane(g).transformed(rel);
        warm.nb.push(plane.normal);
        let low = a
            .vertices()
            .iter()
            .map(|&v| plane.normal.dot(v))
            .fold(f64::INFINITY, f64::min);
        let sep = low - plane.offset;
        if !(sep < -thr) {
            return None;
        }
        if sep > best.sep {
            best = SatDepth {
                axis: -plane.normal,
                sep,
                witness: None,
            };
        }
    }
    // B's edges in A's frame with their arcs.
    warm.eb.clear();
    for e in b.edges() {
        let [t, h] = e.vertices;
        let (Some(&n0), Some(&n1)) = (warm.nb.get(e.faces[0] as usize), warm.nb.get(e.faces[1] as usize)) else {
            return None;
        };
        let (Some(&p), Some(&q)) = (warm.vb.get(t as usize), warm.vb.get(h as usize)) else {
            return None;
        };
        let (c, dn) = (-n0, -n1);
        warm.eb.push(ArcEdge {
            p,
            d: q - p,
            c,
            dn,
            dxc: dn.cross(c),
        });
    }
    // Edge pairs whose arcs cross.
    let centre = a.centroid();
    let sin2 = MANIFOLD_SAT_EDGE_SIN * MANIFOLD_SAT_EDGE_SIN;
    let mut pair = None;
    for e in a.edges() {
        let [t, h] = e.vertices;
        let (Some(fa), Some(fb)) = (a.faces().get(e.faces[0] as usize), a.faces().get(e.faces[1] as usize)) else {
            return None;
        };
        let (na, nb) = (fa.normal, fb.normal);
        let bxa = nb.cross(na);
        let pa = a.vertex(t);
        let da = a.vertex(h) - pa;
        let la2 = da.length_squared();
        for eb in warm.eb.iter() {
            let cba = eb.c.dot(bxa);
            let dba = eb.dn.dot(bxa);
            if !(cba * dba < 0.0) {
                continue;
            }
            let adc = na.dot(eb.dxc);
            let bdc = nb.dot(eb.dxc);
            if !(adc * bdc < 0.0 && cba * bdc > 0.0) {
                continue;
            }
            let axis = da.cross(eb.d);
            let l2 = axis.length_squared();
            if !(l2 > sin2 * la2 * eb.d.length_squared()) {
                return None;
            }
            let mut u = axis / l2.sqrt();
            // Outward from A: A's edge is its support along the axis.
            if u.dot(pa - centre) < 0.0 {
                u = -u;
            }
            let sep = u.dot(eb.p - pa);
            if !(sep < -thr) {
                return None;
            }
            if sep > best.sep {
                best = SatDepth {
                    axis: u,
                    sep,
                    witness: None,
                };
                pair = Some((pa, da, eb.p, eb.d));
            }
        }
    }
    if !best.sep.is_finite() {
        return None;
    }
    // Faces are searched first, so an edge pair found best is the answer.
    if let Some((pa, da, pb, db)) = pair {
        best.witness = Some(closest_on_edges(pa, da, pb, db));
    }
    Some(best)
}

/// The closest points of the segments `pa + s·da` and `pb + t·db` (not parallel), the
/// parameters clamped to `[0, 1]`.
fn closest_on_edges(pa: DVec3, da: DVec3, pb: DVec3, db: DVec3) -> (DVec3, DVec3) {
    let r = pa - pb;
    let (aa, bb, ee) = (da.length_squared(), da.dot(db), db.length_squared());
    let (c, f) = (da.dot(r), db.dot(r));
    let denom = aa * ee - bb * bb;
    let s = ((bb * f - c * ee) / denom).clamp(0.0, 1.0);
    let t = ((aa * f - bb * c) / denom).clamp(0.0, 1.0);
    (pa + da * s, pb + db * t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{pair_scale, Distance};
    use crate::core::math::DQuat;
    use crate::gjk::{self, GjkCache};
    use crate::shape::shapes;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn rotation(rng: &mut ChaCha8Rng) -> DQuat {
        let q = DQuat::from_xyzw(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        q.normalize()
    }

    /// The separating-axis depth against EPA's (the oracle of the measured path) on random
    /// overlapping pairs of small polytopes: the same depth within 1e-12 × scale, the normal
    /// EPA's unless both are optimal axes (a tie: the separation along EPA's normal is the
    /// same), and an edge pair's witness points on one line along the normal.
    #[test]
    fn separating_axis_depth_is_epa_depth() {
        let pool = [
            shapes::cuboid(1.0, 1.0, 1.0).unwrap(),
            shapes::cuboid(2.0, 0.5, 0.7).unwrap(),
            shapes::tetrahedron(0.8).unwrap(),
            shapes::octahedron(0.9).unwrap(),
            shapes::prism(5, 0.6, 1.3).unwrap(),
            shapes::icosahedron(0.7).unwrap(),
        ];
        let mut rng = ChaCha8Rng::seed_from_u64(25);
        let (mut compared, mut ties, mut handed_over, mut edge_wins) = (0, 0, 0, 0);
        for _ in 0..20_000 {
            let a = &pool[rng.random_range(0..pool.len())];
            let b = &pool[rng.random_range(0..pool.len())];
            let pa = Pose::new(rotation(&mut rng), DVec3::ZERO);
            let dir = DVec3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            );
            let pb = Pose::new(rotation(&mut rng), dir * rng.random_range(0.0..1.2));
            let Distance::Penetrating {
                penetration: Some(p), ..
            } = gjk::distance(a, &pa, b, &pb, &mut GjkCache::default()).unwrap()
            else {
                continue;
            };
            let scale = pair_scale(a, &pa, b, &pb);
            let thr = crate::core::tolerance::MANIFOLD_SAT_DEPTH_REL * scale;
            if p.depth <= 2.0 * thr {
                continue;
            }
            let rel = pa.relative(&pb);
            let mut warm = Warm::default();
            let Some(d) = penetration(a, b, &rel, thr, &mut warm) else {
                handed_over += 1;
                continue;
            };
            compared += 1;
            let eps = 1e-12 * scale;
            assert!((-d.sep - p.depth).abs() <= eps, "depth {} vs EPA {}", -d.sep, p.depth);
            let n = pa.transform_vector(d.axis);
            assert!((n.length() - 1.0).abs() < 1e-12);
            if (n - p.normal).length() > 1e-9 {
                // A tie: EPA's normal is an optimal axis as well.
                let nl = pa.inverse_transform_vector(p.normal);
                let along_epa = along(a, b, &rel, nl, &mut Warm::default());
                assert!((along_epa - d.sep).abs() <= eps, "normal {n} vs EPA {}", p.normal);
                ties += 1;
            }
            if let Some((x, y)) = d.witness {
                edge_wins += 1;
                assert!((y - x - d.axis * d.sep).length() <= eps, "witness off the normal line");
            }
        }
        eprintln!("compared {compared}, ties {ties}, edge-pair answers {edge_wins}, handed to EPA {handed_over}");
        assert!(compared >= 5_000 && edge_wins >= 500, "{compared} {edge_wins}");
        assert!(handed_over * 50 <= compared, "{handed_over} of {compared} handed over");
    }
}
