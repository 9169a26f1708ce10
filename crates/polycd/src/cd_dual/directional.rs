//! Directional distance (§6): the chord of the line `{t·s}` through M, from a point of M on
//! the line found in the projection along `s` and one or two full searches along `∓s`.

use super::face::{Ctx, Eval};
use super::outcome::Outcome;
use super::planar::{dedup_hull, hull2d, locate_origin, minkowski2d, P2};
use super::search::{quiet, run};
use super::{coordinate_scale, relative, CdDualCache, DualFace};
use crate::contract::Directional;
use crate::core::error::PolycdError;
use crate::core::math::{DMat3, DVec3, Plane, Pose};
use crate::core::tolerance::{COPLANAR_REL, SILHOUETTE_MARGIN};
use crate::shape::polyhedron::ConvexPolyhedron;

/// Directional distance (§6): the smallest-magnitude `t` such that B translated by `t·s`
/// touches A.
pub fn directional(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    cache: &mut CdDualCache,
) -> Result<Directional, PolycdError> {
    crate::shape::flat::require_solids(
        a,
        b,
        "cd_dual",
        "it needs interior points of both shapes (its dual transform is centred inside M)",
    )?;
    cache.set_roles(false);
    let (r, t) = relative(pa, pb);
    let sl = pa.inverse_transform_vector(s);
    let len = sl.length();
    if !(len > 0.0) || !len.is_finite() {
        return Err(PolycdError::BadDirection);
    }
    let sl = sl / len;
    let e1 = sl.any_orthonormal_vector();
    let e2 = sl.cross(e1);
    // Project both shapes' silhouettes along s on the plane normal to s (A frame).
    project_silhouette(
        a,
        sl,
        &DMat3::IDENTITY,
        DVec3::ZERO,
        e1,
        e2,
        &mut cache.face_s,
        &mut cache.pts_a,
    );
    project_silhouette(
        b,
        r.transpose() * sl,
        &r,
        t,
        e1,
        e2,
        &mut cache.face_s,
        &mut cache.pts_b,
    );
    hull2d(&mut cache.pts_a, &mut cache.hull_a);
    hull2d(&mut cache.pts_b, &mut cache.hull_b);
    let tol2 = COPLANAR_REL * (a.scale() + b.scale() + a.magnitude() + b.magnitude() + t.length());
    dedup_hull(&mut cache.hull_a, tol2);
    dedup_hull(&mut cache.hull_b, tol2);
    minkowski2d(&cache.hull_a, &cache.hull_b, &mut cache.mink);
    let Some((tri, bary)) = locate_origin(&cache.mink) else {
        return Ok(Directional::Never { iterations: 0 });
    };
    // c = p − q with p ∈ A, q ∈ B the lifted barycentric points: on the line {t s}.
    let mut c3 = DVec3::ZERO;
    for (&i, &w) in tri.iter().zip(bary.iter()) {
        let m = cache.mink[i];
        c3 += (a.vertex(m.ia) - (r * b.vertex(m.ib) + t)) * w;
    }
    let kc = c3.dot(sl);
    let c = sl * kc;
    let mut st = [0u32; 3];
    let mut ctx = Ctx {
        poses: (pa, pb),
        p: a,
        q: b,
        r,
        rt: r.transpose(),
        t,
        c,
        dir: -sl,
        scale: coordinate_scale(a, b, t),
        rho: 0.0,
    };
    let iters = |st: &[u32; 3]| st[0].saturating_add(st[1]).saturating_add(st[2]);
    let mut lo: Option<(Eval, f64)> = None;
    let mut hi: Option<(Eval, f64)> = None;
    if kc >= 0.0 {
        lo = chord_end(&ctx, cache, sl, &mut st);
        let Some((_, tl)) = lo else {
            return Ok(Directional::NotConverged { iterations: iters(&st) });
        };
        if !(tl > 0.0 || -tl <= kc) {
            ctx.dir = sl;
            hi = chord_end(&ctx, cache, sl, &mut st);
            if hi.is_none() {
                return Ok(Directional::NotConverged { iterations: iters(&st) });
            }
        }
    } else {
        ctx.dir = sl;
        hi = chord_end(&ctx, cache, sl, &mut st);
        let Some((_, th)) = hi else {
            return Ok(Directional::NotConverged { iterations: iters(&st) });
        };
        if !(th < 0.0 || th < -kc) {
            ctx.dir = -sl;
            lo = chord_end(&ctx, cache, sl, &mut st);
            if lo.is_none() {
                return Ok(Directional::NotConverged { iterations: iters(&st) });
            }
        }
    }
    let pick = match (lo, hi) {
        (Some(l), None) => l,
        (None, Some(h)) => h,
        (Some(l), Some(h)) => {
            if l.1 > 0.0 {
                l
            } else if h.1 < 0.0 {
                h
            } else if -l.1 <= h.1 {
                l
            } else {
                h
            }
        }
        (None, None) => return Ok(Directional::NotConverged { iterations: iters(&st) }),
    };
    let (ev, tt) = pick;
    let nl = ev.n.length();
    if !(nl > 0.0) || !nl.is_finite() {
        return Ok(Directional::NotConverged { iterations: iters(&st) });
    }
    let n = ev.n / nl;
    let plane = Plane {
        normal: n,
        offset: support_a(&ctx, ev.face, n),
    }
    .transformed(pa);
    Ok(Directional::Contact {
        t: tt,
        plane,
        iterations: iters(&st),
    })
}

/// One end of the chord of the line `{t·s}` through M: the face the ray from `c` along `dir`
/// leaves M by, and `t` there.
fn chord_end(ctx: &Ctx, cache: &mut CdDualCache, s: DVec3, steps: &mut [u32; 3]) -> Option<(Eval, f64)> {
    match run(ctx, cache, false, steps, None, &mut quiet) {
        Outcome::Done { best, .. } => {
            let ns = best.n.dot(s);
            if ns == 0.0 || !ns.is_finite() {
                return None;
            }
            Some((best, best.k / ns))
        }
        // `rho = 0`: no overlap certificate along a chord.
        Outcome::NotConverged { .. } | Outcome::Overlap { .. } => None,
    }
}

/// Pushes onto `out` (cleared first) the projections on the plane spanned by `e1`, `e2` of
/// those vertices of `poly` (mapped by `x ↦ m·x + t`) on its silhouette along `s_local` (the
/// direction in `poly`'s frame): vertices with an incident face whose normal `n` has
/// `n·s ≤ SILHOUETTE_MARGIN` and one with `n·s ≥ −SILHOUETTE_MARGIN`. A vertex projects to a
/// vertex of the projected hull only if its normal cone (spanned by its faces' normals) holds
/// a direction normal to `s`, which needs such faces; so the hull of the points pushed is the
/// hull of the whole projection, from O(√n) points on round shapes instead of n. `face_s` is
/// scratch (the side of `n·s` per face). Vertices keep their order, so ties in the hull
/// resolve as before.
#[allow(clippy::too_many_arguments)]
fn project_silhouette(
    poly: &ConvexPolyhedron,
    s_local: DVec3,
    m: &DMat3,
    t: DVec3,
    e1: DVec3,
    e2: DVec3,
    face_s: &mut Vec<u8>,
    out: &mut Vec<P2>,
) {
    // Per face: bit 0 when `n·s ≤ margin`, bit 1 when `n·s ≥ −margin`; a vertex is kept when
    // its faces' bits together are both set, gathered in one pass over the half-edges (each
    // bounds its face and starts at its vertex). `face_s` holds the faces' bits, then the
    // vertices'.
    let nf = poly.faces().len();
    face_s.clear();
    face_s.extend(poly.faces().iter().map(|f| {
        let d = f.normal.dot(s_local);
        (d <= SILHOUETTE_MARGIN) as u8 | (((d >= -SILHOUETTE_MARGIN) as u8) << 1)
    }));
    face_s.resize(nf + poly.vertices().len(), 0);
    let (faces, verts) = face_s.split_at_mut(nf);
    for he in poly.half_edges() {
        verts[he.origin as usize] |= faces[he.face as usize];
    }
    out.clear();
    for (v, &bits) in (0u32..).zip(verts.iter()) {
        if bits == 3 {
            let w = *m * poly.vertex(v) + t;
            out.push(P2 {
                x: w.dot(e1),
                y: w.dot(e2),
                id: v,
            });
        }
    }
}

/// The support value of A along `n` on the face (A frame), for unit or non-unit `n`.
fn support_a(ctx: &Ctx, face: DualFace, n: DVec3) -> f64 {
    match face {
        DualFace::Fv { face_a, .. } => n.dot(ctx.p.vertex(ctx.p.face_vertices(face_a)[0])),
        DualFace::Vf { vertex_a, .. } => n.dot(ctx.p.vertex(vertex_a)),
        DualFace::Ee { edge_a, .. } => n.dot(ctx.p.vertex(ctx.p.edge(edge_a).vertices[0])),
    }
}
