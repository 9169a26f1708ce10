//! GJK ray casting (van den Bergen, "Ray casting against general convex objects", 2004)
//! against `M = A − B`, and the contact normal around the hit, for the directional query.
//!
//! Departures from the paper: the conservative advancement takes van den Bergen's step
//! `−v·w / v·r` only when `v·r` is certainly negative (beyond [`RAY_STEP_CERTAIN`] times its
//! rounding bound); a ray lying in a face of `M` to rounding (B sliding along A) makes both
//! products noise, and their ratio would throw the ray into the middle of the contact chord,
//! so there the ray advances only by the least step the products' error bounds allow, and
//! only when `v·w` certainly exceeds its rounding. The contact plane's normal is not the
//! cast's last direction but the candidate around the hit (that direction, the faces at the
//! final simplex's vertices, their edge–edge cross products) with the least overlap of the
//! shapes' projections ([`contact_normal`]): between nearly parallel faces of `M` the cast's
//! direction can lie between their normals, and its plane then touches A and B at different
//! places (the paper returns only λ).
//!
//! [`RAY_STEP_CERTAIN`]: crate::core::tolerance::RAY_STEP_CERTAIN

use super::minkowski::Ctx;
use super::simplex::{from_small, solve, Simplex};
use super::{GjkCache, MAX_FLAT_STEPS};
use crate::core::math::DVec3;
use crate::core::tolerance::{ACCEPT_GAP_REL, DISTANCE_GAP_REL};

pub(super) enum Ray {
    Hit {
        lambda: f64,
        normal: DVec3,
        sim: Simplex,
        iters: u32,
    },
    Miss {
        iters: u32,
    },
    NotConverged {
        iters: u32,
    },
}

/// GJK ray cast (van den Bergen): smallest λ in `[0, max_lambda]` with `start + λ·r ∈ M`
/// (a miss when the segment never enters `M`).
pub(super) fn ray_cast(ctx: &Ctx, cache: &mut GjkCache, start: DVec3, r: DVec3, max_lambda: f64) -> Ray {
    let gap = DISTANCE_GAP_REL * ctx.scale;
    let accept = ACCEPT_GAP_REL * ctx.scale;
    let mut lambda = 0.0;
    let mut x = start;
    let mut normal = DVec3::ZERO;
    let mut sim = Simplex::default();
    let p0 = ctx.vert(cache.warm_a, cache.warm_b);
    let mut v = x - p0.w;
    let mut flat = 0u32;
    // Enumerations of a small `M` left ([`small_settle`]).
    let mut small_left = SMALL_RESTARTS;
    for it in 1..=ctx.max_iter {
        let vv = v.length_squared();
        if vv <= gap * gap {
            return Ray::Hit {
                lambda,
                normal,
                sim,
                iters: it,
            };
        }
        let p = ctx.support(v, cache);
        let w = x - p.w;
        let vw = v.dot(w);
        let mut advanced = false;
        // Conservative advancement to the support plane `v·y = v·p`. When the ray certainly
        // approaches the plane (`v·r` well beyond its rounding) the step `−v·w / v·r` is the
        // classical one. When `v·r` is within rounding of 0 — a ray lying in a face of `M` to
        // rounding, B sliding along A, with `v` that face's normal — that step is a ratio of
        // two noises (it threw the ray into the middle of the contact chord); then the ray
        // advances only if `v·w` certainly exceeds its rounding, by the least step the two
        // products' error bounds allow, and otherwise not at all.
        let vlen = vv.sqrt();
        let vr = v.dot(r);
        let err_vr = 4.0 * f64::EPSILON * vlen * r.abs().element_sum();
        let err_vw = 4.0 * f64::EPSILON * vlen * w.abs().element_sum();
        let certain = vr <= -crate::core::tolerance::RAY_STEP_CERTAIN * err_vr;
        if vw > 0.0 && (certain || vw > err_vw) {
            // Certainly beyond the plane and certainly not approaching it: the ray never
            // meets M.
            if vr >= err_vr {
                return Ray::Miss { iters: it };
            }
            let nl = if certain {
                lambda - vw / vr
            } else {
                lambda + (vw - err_vw) / (err_vr - vr)
            };
            // The support plane separates M from the whole segment: a ray grazing a face of M
            // (v·r ≈ 0 up to rounding) crosses its plane far beyond the segment's end.
            if !(nl <= max_lambda) {
                return Ray::Miss { iters: it };
            }
            if nl > lambda {
                lambda = nl;
                x = start + r * lambda;
                normal = v;
                advanced = true;
            }
        }
        let repeated = sim.contains(p.ia, p.ib);
        if !advanced && (vv - vw <= gap * vlen || repeated) {
            // x is within the gap of M along the current direction: converged.
            if vlen <= accept.max(gap) || vv - vw <= gap * vlen {
                return Ray::Hit {
                    lambda,
                    normal,
                    sim,
                    iters: it,
                };
            }
            match small_settle(ctx, x, &mut small_left) {
                Some(SmallStep::Inside(s)) => {
                    return Ray::Hit {
                        lambda,
                        normal,
                        sim: s,
                        iters: it,
                    }
                }
                Some(SmallStep::Restart(s, nv)) => {
                    (sim, v, flat) = (s, nv, 0);
                    continue;
                }
                None => return Ray::NotConverged { iters: it },
            }
        }
        // Simplex in "x − p" coordinates.
        if !repeated {
            sim.push(p);
        }
        let mut shifted = sim;
        for k in 0..shifted.n {
            shifted.v[k].w = x - sim.v[k].w;
        }
        let (nv, enc) = solve(&mut shifted);
        if enc {
            return Ray::Hit {
                lambda,
                normal,
                sim,
                iters: it,
            };
        }
        if !advanced && nv.length_squared() >= vv {
            if vlen <= accept {
                return Ray::Hit {
                    lambda,
                    normal,
                    sim,
                    iters: it,
                };
            }
            // No decrease within rounding (as in `gjk_core`: near a face of M the norm is
            // rounding-bound while the larger simplex sharpens v's direction): a bounded
            // number of such steps in a row.
            let mag = (0..shifted.n).fold(0.0f64, |m, k| m.max(shifted.v[k].w.abs().max_element()));
            let ulps = 16.0 * f64::EPSILON * (vv + 4.0 * mag * vlen);
            if !(nv.length_squared() <= vv + ulps) || flat >= MAX_FLAT_STEPS {
                match small_settle(ctx, x, &mut small_left) {
                    Some(SmallStep::Inside(s)) => {
                        return Ray::Hit {
                            lambda,
                            normal,
                            sim: s,
                            iters: it,
                        }
                    }
                    Some(SmallStep::Restart(s, nv)) => {
                        (sim, v, flat) = (s, nv, 0);
                        continue;
                    }
                    None => return Ray::NotConverged { iters: it },
                }
            }
            flat += 1;
        } else {
            flat = 0;
        }
        // Back to M coordinates (keep the reduced set).
        sim = Simplex::default();
        for k in 0..shifted.n {
            let mut s = shifted.v[k];
            s.w = ctx.pa(&s) - ctx.pb(&s);
            sim.push(s);
        }
        v = nv;
    }
    Ray::NotConverged { iters: ctx.max_iter }
}

/// The normal of the contact plane after a ray cast has placed B (shifted by `shift`, A's
/// frame) in contact with A. The cast's last direction `n` is only as good as the gap it
/// stopped at: where the ray meets `M` near the edge between two nearly parallel faces (discs
/// tilted by 1e-8) it can lie between their normals, and the plane along it then touches A and
/// B at points 1e-4 apart. Candidates around the hit — `n`, the normals of A's faces at the
/// simplex's A vertices and of B's faces at its B vertices, and the cross products of an edge
/// of A and an edge of B spanned by those vertices — are ranked by the overlap of the shapes'
/// projections on them, `max_A m·a − min_B m·b`. At a contact it is ≥ 0 for every `m` and 0
/// exactly along the contact normals, so the least one wins (`n` on ties).
pub(super) fn contact_normal(ctx: &Ctx, cache: &mut GjkCache, sim: &Simplex, n: DVec3, shift: DVec3) -> DVec3 {
    let (a, b) = (ctx.a, ctx.b);
    let mut ids_a = [u32::MAX; 4];
    let mut ids_b = [u32::MAX; 4];
    let (mut na, mut nb) = (0usize, 0usize);
    for s in &sim.v[..sim.n] {
        if !ids_a[..na].contains(&s.ia) {
            ids_a[na] = s.ia;
            na += 1;
        }
        if !ids_b[..nb].contains(&s.ib) {
            ids_b[nb] = s.ib;
            nb += 1;
        }
    }
    let mut best = (f64::INFINITY, n);
    let mut consider = |m: DVec3, cache: &mut GjkCache| {
        let m = m.normalize_or_zero();
        if m == DVec3::ZERO {
            return;
        }
        let s = ctx.support(m, cache);
        let overlap = m.dot(s.w) - m.dot(shift);
        if overlap < best.0 {
            best = (overlap, m);
        }
    };
    consider(n, cache);
    for &v in &ids_a[..na] {
        for &h in a.outgoing(v) {
            // A segment's half-edges bound no face (`shape::flat::NO_FACE`).
            if let Some(f) = a.faces().get(a.half_edge(h).face as usize) {
                consider(f.normal, cache);
            }
        }
    }
    for &v in &ids_b[..nb] {
        for &h in b.outgoing(v) {
            if let Some(f) = b.faces().get(b.half_edge(h).face as usize) {
                consider(-(ctx.rot * f.normal), cache);
            }
        }
    }
    for i in 0..na {
        for j in i + 1..na {
            if !a.neighbors(ids_a[i]).contains(&ids_a[j]) {
                continue;
            }
            let ea = a.vertex(ids_a[j]) - a.vertex(ids_a[i]);
            for k in 0..nb {
                for l in k + 1..nb {
                    if !b.neighbors(ids_b[k]).contains(&ids_b[l]) {
                        continue;
                    }
                    let m = ea.cross(ctx.rot * (b.vertex(ids_b[l]) - b.vertex(ids_b[k])));
                    consider(if m.dot(n) < 0.0 { -m } else { m }, cache);
                }
            }
        }
    }
    best.1
}

/// At most this many times per ray cast a stall on a small `M` is settled by enumeration
/// ([`small_settle`]); each restart continues the iteration from `M`'s exact nearest point,
/// from which one more support step either advances the ray or converges. Not a tolerance:
/// it bounds the fallback's cost.
const SMALL_RESTARTS: u32 = 2;

/// What a stalled ray cast on a small `M` continues with.
enum SmallStep {
    /// `x` lies strictly inside `M` (a tetrahedron of vertex pairs encloses it, exact
    /// predicates): the ray has hit. The simplex in `M` coordinates.
    Inside(Simplex),
    /// The simplex (in `M` coordinates) of `M`'s feature nearest `x`, and `x` minus that
    /// nearest point: the iteration restarts from them.
    Restart(Simplex, DVec3),
}

/// A stalled ray cast at `x` on a pair with few vertex pairs ([`super::small`]): `x − M`
/// enumerated; `None` (report `NotConverged`) when the pair is larger or `left` is used up.
#[cold]
#[inline(never)]
fn small_settle(ctx: &Ctx, x: DVec3, left: &mut u32) -> Option<SmallStep> {
    if *left == 0 {
        return None;
    }
    *left -= 1;
    let back = |s: Simplex| {
        let mut m = Simplex::default();
        for k in 0..s.n {
            let mut p = s.v[k];
            p.w = ctx.pa(&p) - ctx.pb(&p);
            m.push(p);
            m.lam[k] = s.lam[k];
        }
        m
    };
    match from_small(super::small::enumerate(ctx, Some(x))?) {
        (s, None) => Some(SmallStep::Inside(back(s))),
        (s, Some(v)) => Some(SmallStep::Restart(back(s), v)),
    }
}
