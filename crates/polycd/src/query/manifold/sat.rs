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

use crate::core::math::{DMat3, DVec3, Pose};
use crate::core::tolerance::MANIFOLD_SAT_EDGE_SIN;
use crate::shape::parallelepiped::Parallelepiped;
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

/// The warm-start state of the manifold's fast paths (a pair's: kept in its cache).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Warm {
    /// The last frame's contact normal or separating direction (unit, A's frame).
    pub(super) axis: Option<DVec3>,
    /// Support-vertex hints of A and B.
    hints: [u32; 2],
}

/// The buffers of [`penetration`]'s general search, rebuilt by every call (so one set per
/// thread serves every pair, like the clip's: `super::clip::Scratch`).
#[derive(Clone, Debug, Default)]
pub(super) struct SatBufs {
    /// B's vertices and face normals in A's frame.
    vb: Vec<DVec3>,
    nb: Vec<DVec3>,
    /// B's edges in A's frame.
    eb: Vec<ArcEdge>,
}

impl Warm {
    /// Forgets the axis and the hints.
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
    if let (Some(ta), Some(tb)) = (a.parallelepiped(), b.parallelepiped()) {
        // Two parallelepipeds: the extents from their centres and half-edge vectors.
        let ub = rel.inverse_transform_vector(u);
        let cb = rel.transform_point(tb.centre);
        return u.dot(cb - ta.centre) - Parallelepiped::reach(&ta.half, u) - Parallelepiped::reach(&tb.half, ub);
    }
    along_by_support(a, b, rel, u, warm)
}

/// [`along`] by support vertices (any pair).
fn along_by_support(a: &ConvexPolyhedron, b: &ConvexPolyhedron, rel: &Pose, u: DVec3, warm: &mut Warm) -> f64 {
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
    warm: &mut SatBufs,
) -> Option<SatDepth> {
    if let (Some(ta), Some(tb)) = (a.parallelepiped(), b.parallelepiped()) {
        return box_penetration(ta, tb, rel, thr);
    }
    general_penetration(a, b, rel, thr, warm)
}

/// [`penetration`] by the vertices, faces and edges (any small pair).
fn general_penetration(
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
    rel: &Pose,
    thr: f64,
    warm: &mut SatBufs,
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

/// [`penetration`] for two parallelepipeds (B at `rel` in A's frame), from their tables: the
/// same candidate axes by class — A's three face normals, B's three, and the nine cross
/// products of an edge direction of A with one of B (the crossing edge pairs' axes among
/// them) — each measured from both sides at once: along a unit `u` the separation is
/// `|d·u| − r_A(u) − r_B(u)` (`d` the centres' offset, `r` the half widths), the larger of
/// `u`'s and `−u`'s, oriented by the sign of `d·u`. Every axis's separation is at most the
/// signed distance and the optimal axis is among them, so the largest is the signed
/// distance, as in the general search; the edge pairs whose arcs do not cross only add
/// axes that cannot win. Gives up as [`penetration`] does, and when any edge class pair is
/// within [`MANIFOLD_SAT_EDGE_SIN`] of parallel (the general search does so only for crossing
/// pairs; the pair then goes to GJK/EPA). An edge axis's witness is the closest points of
/// the two edges extreme along it (A's along `u`, B's along `−u`).
fn box_penetration(ta: &Parallelepiped, tb: &Parallelepiped, rel: &Pose, thr: f64) -> Option<SatDepth> {
    let rot = DMat3::from_quat(rel.rotation);
    let ea = ta.half;
    let eb = tb.half.map(|e| rot * e);
    let d = rel.transform_point(tb.centre) - ta.centre;
    let mut best = SatDepth {
        axis: DVec3::ZERO,
        sep: f64::NEG_INFINITY,
        witness: None,
    };
    // The separation along the unit axis `u` from its better side.
    let measure = |u: DVec3| -> (f64, DVec3) {
        let du = d.dot(u);
        let sep = du.abs() - Parallelepiped::reach(&ea, u) - Parallelepiped::reach(&eb, u);
        (sep, if du < 0.0 { -u } else { u })
    };
    let nb = tb.normals.map(|n| rot * n);
    for u in ta.normals.into_iter().chain(nb) {
        let (sep, axis) = measure(u);
        if !(sep < -thr) {
            return None;
        }
        if sep > best.sep {
            best = SatDepth {
                axis,
                sep,
                witness: None,
            };
        }
    }
    let sin2 = MANIFOLD_SAT_EDGE_SIN * MANIFOLD_SAT_EDGE_SIN;
    let mut pair = None;
    for (i, &x) in ea.iter().enumerate() {
        let lx2 = x.length_squared();
        for (j, &y) in eb.iter().enumerate() {
            let c = x.cross(y);
            let l2 = c.length_squared();
            if !(l2 > sin2 * lx2 * y.length_squared()) {
                // Nearly parallel: skipped unless one of the classes' edge pairs crosses
                // (then its axis could be the answer, ill-conditioned: GJK/EPA measures).
                if classes_cross(&ta.normals, i, &nb, j) {
                    return None;
                }
                continue;
            }
            let (sep, axis) = measure(c / l2.sqrt());
            if !(sep < -thr) {
                return None;
            }
            // An edge axis counts only when the two edges extreme along it have crossing
            // arcs (a face of the Minkowski difference, as in the general search): an axis
            // that rounds a face axis's separation up (aligned boxes) is not an edge contact.
            if sep > best.sep && extremes_cross(&ta.normals, &ea, i, &nb, &eb, j, axis) {
                best = SatDepth {
                    axis,
                    sep,
                    witness: None,
                };
                pair = Some((i, j));
            }
        }
    }
    if !best.sep.is_finite() {
        return None;
    }
    if let Some((i, j)) = pair {
        // A's edge of class i extreme along the axis, B's of class j extreme against it.
        let u = best.axis;
        let mut ma = ta.centre;
        for (k, &e) in ea.iter().enumerate() {
            if k != i {
                ma += if u.dot(e) < 0.0 { -e } else { e };
            }
        }
        let mut mb = d + ta.centre;
        for (k, &e) in eb.iter().enumerate() {
            if k != j {
                mb += if u.dot(e) > 0.0 { -e } else { e };
            }
        }
        best.witness = Some(closest_on_edges(ma - ea[i], ea[i] * 2.0, mb - eb[j], eb[j] * 2.0));
    }
    Some(best)
}

/// Whether an edge of A's class `i` and one of B's class `j` have crossing arcs on the Gauss
/// maps of A and `−B` (Gregorius' test, as in [`penetration`]). An edge of class `i` joins
/// the faces `±normals[k]` for the two other classes `k` (each sign pattern one edge); the
/// opposite face's normal is taken as the negated one. `na`, `nb`: the face-pair normals of A
/// and of B (A's frame).
fn classes_cross(na: &[DVec3; 3], i: usize, nb: &[DVec3; 3], j: usize) -> bool {
    let (a0, a1) = (na[(i + 1) % 3], na[(i + 2) % 3]);
    let (b0, b1) = (nb[(j + 1) % 3], nb[(j + 2) % 3]);
    let signs = [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)];
    signs.iter().any(|&(s0, s1)| {
        signs
            .iter()
            .any(|&(t0, t1)| arcs_cross(a0 * s0, a1 * s1, -(b0 * t0), -(b1 * t1)))
    })
}

/// Whether A's edge of class `i` extreme along `u` and B's edge of class `j` extreme along
/// `−u` have crossing arcs (Gregorius' test); `false` when `u` is orthogonal to another
/// class's half-edge vector (the extreme feature is then a face, not an edge). `na`/`ea`, `nb`/`eb`:
/// A's and B's face-pair normals and half-edge vectors (A's frame).
fn extremes_cross(
    na: &[DVec3; 3],
    ea: &[DVec3; 3],
    i: usize,
    nb: &[DVec3; 3],
    eb: &[DVec3; 3],
    j: usize,
    u: DVec3,
) -> bool {
    let side = |e: DVec3, s: f64| {
        let x = s * u.dot(e);
        if x > 0.0 {
            Some(1.0)
        } else if x < 0.0 {
            Some(-1.0)
        } else {
            None
        }
    };
    let (ka, la) = ((i + 1) % 3, (i + 2) % 3);
    let (kb, lb) = ((j + 1) % 3, (j + 2) % 3);
    let (Some(sa0), Some(sa1), Some(sb0), Some(sb1)) = (
        side(ea[ka], 1.0),
        side(ea[la], 1.0),
        side(eb[kb], -1.0),
        side(eb[lb], -1.0),
    ) else {
        return false;
    };
    // A's edge joins the faces sa0·na[ka] and sa1·na[la]; B's the faces sb0·nb[kb] and
    // sb1·nb[lb], whose arc on −B's Gauss map has the negated ends.
    let (p, q) = (na[ka] * sa0, na[la] * sa1);
    let (c, dn) = (-(nb[kb] * sb0), -(nb[lb] * sb1));
    arcs_cross(p, q, c, dn)
}

/// Gregorius' test: whether the arc from `p` to `q` and the arc from `c` to `dn` (unit
/// vectors, each arc shorter than a half circle) cross.
fn arcs_cross(p: DVec3, q: DVec3, c: DVec3, dn: DVec3) -> bool {
    let qxp = q.cross(p);
    let dxc = dn.cross(c);
    let (cba, dba) = (c.dot(qxp), dn.dot(qxp));
    let (adc, bdc) = (p.dot(dxc), q.dot(dxc));
    cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0
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
            let mut warm = SatBufs::default();
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

    /// The parallelepiped path against the general vertex search on box pairs (cubes, long
    /// boxes, sheared boxes; random, axis-aligned and nearly aligned poses; near the origin
    /// and 1e6 away): the same give-up decision (apart from the nearly parallel classes the
    /// box path hands over), the same depth within 1e-12 × scale, the same normal or an
    /// equally deep one, an edge answer's witness points on one line along the normal, and
    /// the last-axis separation equal to the support climbs'.
    #[test]
    fn parallelepiped_path_is_the_general_search() {
        let e = [
            DVec3::new(0.6, 0.15, 0.0),
            DVec3::new(0.0, 0.4, 0.1),
            DVec3::new(0.2, 0.0, 0.5),
        ];
        let sheared_pts: Vec<DVec3> = (0..8)
            .map(|s: u32| {
                let sg = |k: u32| if s >> k & 1 == 1 { 1.0 } else { -1.0 };
                DVec3::new(0.1, -0.2, 0.3) + e[0] * sg(0) + e[1] * sg(1) + e[2] * sg(2)
            })
            .collect();
        let pool = [
            shapes::cuboid(1.0, 1.0, 1.0).unwrap(),
            shapes::cuboid(2.0, 0.5, 0.7).unwrap(),
            shapes::cuboid(0.1, 3.0, 0.2).unwrap(),
            ConvexPolyhedron::from_points(&sheared_pts).unwrap(),
        ];
        assert!(pool.iter().all(|p| p.parallelepiped().is_some()));
        let mut rng = ChaCha8Rng::seed_from_u64(2525);
        let (mut compared, mut edge_wins, mut handed_over, mut both_none) = (0, 0, 0, 0);
        for k in 0..40_000 {
            let a = &pool[rng.random_range(0..pool.len())];
            let b = &pool[rng.random_range(0..pool.len())];
            let far = if k % 4 == 3 {
                DVec3::new(1e6, -2e6, 5e5)
            } else {
                DVec3::ZERO
            };
            let ra = match k % 3 {
                0 => rotation(&mut rng),
                1 => DQuat::IDENTITY,
                _ => DQuat::from_axis_angle(DVec3::new(0.3, 0.9, -0.2).normalize(), rng.random_range(-1e-3..1e-3)),
            };
            let rb = match k % 5 {
                0 | 1 => rotation(&mut rng),
                2 => DQuat::IDENTITY,
                3 => DQuat::from_axis_angle(DVec3::Z, rng.random_range(-1e-5..1e-5)),
                _ => DQuat::from_axis_angle(
                    DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), 1.0).normalize(),
                    rng.random_range(-5e-3..5e-3),
                ),
            };
            let dir = DVec3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            );
            let pa = Pose::new(ra, far);
            let pb = Pose::new(rb, far + dir * rng.random_range(0.0..1.5));
            let scale = pair_scale(a, &pa, b, &pb);
            let thr = crate::core::tolerance::MANIFOLD_SAT_DEPTH_REL * scale;
            let rel = pa.relative(&pb);
            let eps = 1e-12 * scale;
            let mut warm = SatBufs::default();
            let fast = penetration(a, b, &rel, thr, &mut warm);
            let slow = general_penetration(a, b, &rel, thr, &mut warm);
            match (fast, slow) {
                (None, None) => both_none += 1,
                (None, Some(s)) => {
                    // Handed over: only for a nearly parallel class pair.
                    let (ta, tb) = (a.parallelepiped().unwrap(), b.parallelepiped().unwrap());
                    let near = ta.half.iter().any(|&x| {
                        tb.half.iter().any(|&y| {
                            let y = rel.transform_vector(y);
                            x.cross(y).length_squared() <= 1e-8 * x.length_squared() * y.length_squared()
                        })
                    });
                    assert!(
                        near,
                        "handed over without a nearly parallel pair (general depth {})",
                        s.sep
                    );
                    handed_over += 1;
                }
                (Some(f), None) => {
                    // The general search gave up: only at its thresholds (an axis within
                    // rounding of -thr, or a nearly parallel crossing pair).
                    assert!(f.sep >= -thr - eps || f.sep < -thr, "{}", f.sep);
                    handed_over += 1;
                }
                (Some(f), Some(s)) => {
                    compared += 1;
                    assert!((f.sep - s.sep).abs() <= eps, "depth {} vs general {}", f.sep, s.sep);
                    assert!((f.axis.length() - 1.0).abs() < 1e-12);
                    if (f.axis - s.axis).length() > 1e-9 {
                        let other = along_by_support(a, b, &rel, f.axis, &mut Warm::default());
                        assert!((other - s.sep).abs() <= eps, "normal {} vs general {}", f.axis, s.axis);
                    }
                    if let Some((x, y)) = f.witness {
                        edge_wins += 1;
                        assert!((y - x - f.axis * f.sep).length() <= eps, "witness off the normal line");
                    }
                }
            }
            // The last-axis separation along a random axis and along the answer's.
            let u = dir.normalize_or(DVec3::X);
            let (x, y) = (
                along(a, b, &rel, u, &mut Warm::default()),
                along_by_support(a, b, &rel, u, &mut Warm::default()),
            );
            assert!((x - y).abs() <= eps, "along {x} vs {y}");
        }
        eprintln!("compared {compared}, edge answers {edge_wins}, handed over {handed_over}, both gave up {both_none}");
        assert!(compared >= 10_000 && edge_wins >= 1_000, "{compared} {edge_wins}");
        assert!(handed_over * 100 <= compared, "{handed_over} of {compared} handed over");
    }

    #[test]
    fn boxes_qualify_and_others_do_not() {
        let b = shapes::cuboid(2.0, 0.5, 0.7).unwrap();
        let t = b.parallelepiped().expect("a cuboid is a parallelepiped");
        // Every vertex's extent agrees with the table's along random-ish directions.
        for k in 0..50 {
            let u = DVec3::new(
                (k as f64 * 0.37).sin(),
                (k as f64 * 1.13).cos(),
                (k as f64 * 0.71).sin() - 0.2,
            );
            let hi = b.vertices().iter().map(|v| v.dot(u)).fold(f64::NEG_INFINITY, f64::max);
            let lo = b.vertices().iter().map(|v| v.dot(u)).fold(f64::INFINITY, f64::min);
            let r = Parallelepiped::reach(&t.half, u);
            assert!((t.centre.dot(u) + r - hi).abs() <= 1e-15 * 4.0);
            assert!((t.centre.dot(u) - r - lo).abs() <= 1e-15 * 4.0);
        }
        for (i, n) in t.normals.iter().enumerate() {
            assert!((n.length() - 1.0).abs() < 1e-15);
            assert!(n.dot(t.half[i]) > 0.0);
            assert!(n.dot(t.half[(i + 1) % 3]).abs() < 1e-15 && n.dot(t.half[(i + 2) % 3]).abs() < 1e-15);
        }
        // A sheared box (a hull of c ± e₀ ± e₁ ± e₂) qualifies; the table reproduces it.
        let e = [
            DVec3::new(1.0, 0.25, 0.0),
            DVec3::new(0.0, 0.5, 0.125),
            DVec3::new(0.25, 0.0, 0.75),
        ];
        let c = DVec3::new(3.0, -2.0, 5.0);
        let pts: Vec<DVec3> = (0..8)
            .map(|s: u32| {
                let sg = |k: u32| if s >> k & 1 == 1 { 1.0 } else { -1.0 };
                c + e[0] * sg(0) + e[1] * sg(1) + e[2] * sg(2)
            })
            .collect();
        let sheared = ConvexPolyhedron::from_points(&pts).unwrap();
        let t = sheared.parallelepiped().expect("a sheared box is a parallelepiped");
        assert!((t.centre - c).length() < 1e-14);
        for u in [DVec3::X, DVec3::Y, DVec3::Z, DVec3::new(0.3, -0.8, 0.5)] {
            let hi = pts.iter().map(|v| v.dot(u)).fold(f64::NEG_INFINITY, f64::max);
            assert!((t.centre.dot(u) + Parallelepiped::reach(&t.half, u) - hi).abs() < 1e-14);
        }
        // Not parallelepipeds: a triangular prism, an octahedron, a tetrahedron, a frustum
        // (8 vertices, 6 quads, faces not parallel in pairs), a point set near a box.
        assert!(shapes::prism(3, 0.6, 1.3).unwrap().parallelepiped().is_none());
        assert!(shapes::octahedron(0.9).unwrap().parallelepiped().is_none());
        assert!(shapes::tetrahedron(0.8).unwrap().parallelepiped().is_none());
        let mut frustum = pts.clone();
        for p in frustum.iter_mut().filter(|p| p.z > c.z) {
            *p = c + (*p - c) * DVec3::new(0.5, 0.5, 1.0);
        }
        assert!(ConvexPolyhedron::from_points(&frustum)
            .unwrap()
            .parallelepiped()
            .is_none());
        let mut near = pts.clone();
        near[3] += DVec3::new(1e-9, 0.0, 0.0);
        assert!(ConvexPolyhedron::from_points(&near).unwrap().parallelepiped().is_none());
    }
}
