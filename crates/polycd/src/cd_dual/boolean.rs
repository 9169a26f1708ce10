//! The boolean query: the role swap, the search with the start-face probe and the overlap
//! certificate, and the answer (certified separating plane, or a common point from `f_opt` or
//! the certificate) with the clearance it proved.

use super::face::{Cert, Ctx, Eval};
use super::outcome::Outcome;
use super::probe::OverlapCert;
use super::search::{quiet, run};
use super::{coordinate_scale, interior_point, relative, BooleanAnswer, CdDualCache, DualFace, Interior};
use crate::contract::{FeaturePair, Intersection, OverlapWitness};
use crate::core::error::PolycdError;
use crate::core::math::{DVec3, Plane, Pose};
use crate::core::tolerance::WITNESS_SPLIT_REL;
use crate::shape::polyhedron::ConvexPolyhedron;

/// Boolean CD-Dual: the answer with the clearance it proved (see [`BooleanAnswer`]).
pub fn intersect(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut CdDualCache,
) -> Result<BooleanAnswer, PolycdError> {
    crate::shape::flat::require_solids(
        a,
        b,
        "cd_dual",
        "it needs interior points of both shapes (its dual transform is centred inside M)",
    )?;
    let (r, t) = relative(pa, pb);
    let Interior {
        c,
        pc,
        qc,
        qc_local,
        depths,
    } = interior_point(a, b, r, t);
    let ctx = Ctx {
        poses: (pa, pb),
        p: a,
        q: b,
        r,
        rt: r.transpose(),
        t,
        c,
        dir: -c,
        scale: coordinate_scale(a, b, t),
        rho: depths[0] + depths[1],
    };
    // Roles (module notes): Search-FV walks the faces of the shape whose faces are expected
    // larger around the model normal. A coherent query keeps the roles of the last one (its
    // stored face belongs to them).
    let coherent = (cache.face_a as usize)
        < if cache.swapped {
            b.faces().len()
        } else {
            a.faces().len()
        };
    let (swap, model) = if coherent {
        (cache.swapped, None)
    } else {
        let (n, q_larger) = ctx.heuristic_normal();
        (q_larger, Some(n))
    };
    cache.set_roles(swap);
    if !swap {
        return Ok(boolean(&ctx, cache, model, &Centre { pc, qc, depths }, false));
    }
    // B plays P: B's frame, M' = B ⊕ (−A) = −M, the same interior points (so c' = −Rᵀc up to
    // rounding), the same scale and the model normal −Rᵀn.
    let rt = ctx.rt;
    let t2 = -(rt * t);
    let (pc2, qc2) = (qc_local, rt * pc + t2);
    let c2 = pc2 - qc2;
    let swapped = Ctx {
        poses: (pb, pa),
        p: b,
        q: a,
        r: rt,
        rt: r,
        t: t2,
        c: c2,
        dir: -c2,
        scale: ctx.scale,
        rho: ctx.rho,
    };
    let centre = Centre {
        pc: pc2,
        qc: qc2,
        depths: [depths[1], depths[0]],
    };
    Ok(boolean(&swapped, cache, model.map(|n| -(rt * n)), &centre, true))
}

/// The interior points `p_c` of P and `q_c` of Q (P's frame, `c = p_c − q_c`) and lower
/// bounds on their depths in P and Q.
struct Centre {
    pc: DVec3,
    qc: DVec3,
    depths: [f64; 2],
}

/// The boolean query with `ctx.p` in the role of P. `swapped`: `ctx.p` is the caller's B,
/// so planes are reported with the opposite normal (A on their negative side) and feature
/// pairs with their sides exchanged.
fn boolean(ctx: &Ctx, cache: &mut CdDualCache, model: Option<DVec3>, centre: &Centre, swapped: bool) -> BooleanAnswer {
    let mut steps = [0u32; 3];
    let outcome = run(ctx, cache, true, &mut steps, model, &mut quiet);
    let iterations = steps[0].saturating_add(steps[1]).saturating_add(steps[2]);
    let not_converged = BooleanAnswer {
        intersection: Intersection::NotConverged { iterations },
        clearance: None,
    };
    let (best, cert) = match outcome {
        Outcome::Done { best, cert, .. } => (best, cert),
        Outcome::NotConverged { .. } => return not_converged,
        Outcome::Overlap { cert, .. } => return certified_overlap(ctx, centre, &cert, iterations),
    };
    let len = best.n.length();
    if !(len > 0.0) || !len.is_finite() {
        return not_converged;
    }
    if best.k / len < 0.0 {
        // The search's own certificate of this face when it exited on it (the same support
        // queries would give the same answer).
        let cert = match cert {
            Some(c) => Some(c),
            None => ctx.certify_separation(&best),
        };
        return separation(ctx, &best, cert, swapped, iterations);
    }
    overlap_at(ctx, centre, &best, swapped, iterations)
}

/// Rounding allowance of the split of a point of M into points of the two shapes.
fn split_tol(ctx: &Ctx) -> f64 {
    WITNESS_SPLIT_REL * (ctx.p.scale() + ctx.q.scale() + ctx.t.length())
}

/// The common point of the overlap certificate (module notes), and its depth bound.
fn certified_overlap(ctx: &Ctx, centre: &Centre, cert: &OverlapCert, iterations: u32) -> BooleanAnswer {
    let Centre { pc, qc, depths } = *centre;
    let interior_depth = depths[0].min(depths[1]);
    // o = (1 − θ)·b + θ·z with θ = 1/λ, b = c + u in the ball, z = za − zb: split u
    // between the two interior points in proportion to their depths.
    let (lambda, theta) = (cert.lambda, 1.0 / cert.lambda);
    let u = (cert.x - (cert.za - cert.zb)) / (lambda - 1.0);
    let share = u / ctx.rho;
    let on_a = (pc + share * depths[0]) * (1.0 - theta) + cert.za * theta;
    let on_b = (qc - share * depths[1]) * (1.0 - theta) + cert.zb * theta;
    // Each side mixes a point at depth ≥ d·(1 − |u|/rho) with a point of the shape.
    let spare = (1.0 - u.length() / ctx.rho).max(0.0);
    let depth = (1.0 - theta) * interior_depth * spare - theta * split_tol(ctx) - (on_a - on_b).length();
    let point = ctx.poses.0.transform_point(0.5 * (on_a + on_b));
    BooleanAnswer {
        intersection: Intersection::Overlapping {
            witness: OverlapWitness::CommonPoint(point),
            iterations,
        },
        clearance: Some(depth),
    }
}

/// A separating face (`k < 0`) with its certificate: fresh support queries must confirm the
/// gap; the plane is placed midway between A's maximum and B's minimum along the normal. A
/// failure is a search bug: never report Disjoint then.
fn separation(ctx: &Ctx, best: &Eval, cert: Option<Cert>, swapped: bool, iterations: u32) -> BooleanAnswer {
    let pose_p = ctx.poses.0;
    let n = best.n / best.n.length();
    let sign = if swapped { -1.0 } else { 1.0 };
    let plane = |top_a: f64, gap: f64| {
        Plane {
            normal: n * sign,
            offset: (top_a - 0.5 * gap) * sign,
        }
        .transformed(pose_p)
    };
    let (intersection, clearance) = match cert {
        Some(Cert::Apart { top_a, gap }) => (
            Intersection::Disjoint {
                plane: plane(top_a, gap),
                iterations,
            },
            Some(-gap),
        ),
        Some(Cert::Touching { top_a, gap, point }) => (
            Intersection::Touching {
                point: pose_p.transform_point(point),
                plane: plane(top_a, gap),
                iterations,
            },
            None,
        ),
        None => (Intersection::NotConverged { iterations }, None),
    };
    BooleanAnswer {
        intersection,
        clearance,
    }
}

/// `o ∈ M` at `f_opt`: the ray c → o leaves M at x* = c + λ*·dir with λ* ≥ 1; the witness
/// mixes the interior points with the split of x* (module notes, overlap witness).
fn overlap_at(ctx: &Ctx, centre: &Centre, best: &Eval, swapped: bool, iterations: u32) -> BooleanAnswer {
    let Centre { pc, qc, depths } = *centre;
    let interior_depth = depths[0].min(depths[1]);
    let pose_p = ctx.poses.0;
    let c = ctx.c;
    let nd = best.n.dot(ctx.dir);
    let h = best.k - best.n.dot(c);
    let lambda = if nd > 0.0 { h / nd } else { 1.0 };
    let theta = if lambda > 1.0 { 1.0 / lambda } else { 1.0 };
    let xs = c + ctx.dir * lambda;
    let tol = split_tol(ctx);
    let (ps, qs, exact) = split_point(ctx, best.face, xs, tol);
    let on_a = pc * (1.0 - theta) + ps * theta;
    let on_b = qc * (1.0 - theta) + qs * theta;
    let (witness, clearance) = if exact {
        // `on_a` mixes a point at depth ≥ `interior_depth` with a point of A (within `tol`),
        // so it lies at least (1 − θ)·interior_depth − θ·tol deep in A; likewise `on_b` in B.
        let depth = (1.0 - theta) * interior_depth - theta * tol - (on_a - on_b).length();
        let point = pose_p.transform_point(0.5 * (on_a + on_b));
        (OverlapWitness::CommonPoint(point), Some(depth))
    } else {
        let f = best.face.features();
        let (features, on_caller_a) = if swapped {
            (FeaturePair { a: f.b, b: f.a }, on_b)
        } else {
            (f, on_a)
        };
        let witness = OverlapWitness::Features {
            features,
            point: pose_p.transform_point(on_caller_a),
        };
        (witness, None)
    };
    BooleanAnswer {
        intersection: Intersection::Overlapping { witness, iterations },
        clearance,
    }
}

/// The points `p*` (on A's generating feature) and `q*` (on B's) with `p* − q* = x`, for a
/// point `x` of the face's plane (A frame), and whether they lie on those features (within
/// `tol`). They do unless the face of M is larger than the generating features' sum (a
/// degenerate Gaussian image: parallel faces or edges).
fn split_point(ctx: &Ctx, face: DualFace, x: DVec3, tol: f64) -> (DVec3, DVec3, bool) {
    match face {
        DualFace::Fv { face_a, vertex_b } => {
            let qs = ctx.qv(vertex_b);
            let ps = x + qs;
            (ps, qs, in_face(ctx.p, face_a, ps, tol))
        }
        DualFace::Vf { vertex_a, face_b } => {
            let ps = ctx.p.vertex(vertex_a);
            let qs = ps - x;
            let local = ctx.rt * (qs - ctx.t);
            (ps, qs, in_face(ctx.q, face_b, local, tol))
        }
        DualFace::Ee { edge_a, edge_b } => {
            let e = ctx.p.edge(edge_a);
            let g = ctx.q.edge(edge_b);
            let p0 = ctx.p.vertex(e.vertices[0]);
            let u = ctx.p.vertex(e.vertices[1]) - p0;
            let q0 = ctx.qv(g.vertices[0]);
            let w = -(ctx.qv(g.vertices[1]) - q0);
            // a·u + b·w = x − p0 + q0, least squares.
            let rhs = x - p0 + q0;
            let (uu, uw, ww) = (u.dot(u), u.dot(w), w.dot(w));
            let (ur, wr) = (u.dot(rhs), w.dot(rhs));
            let det = uu * ww - uw * uw;
            let (sa, sb) = if det > 0.0 {
                ((ur * ww - wr * uw) / det, (uu * wr - uw * ur) / det)
            } else {
                (0.5, 0.5)
            };
            let (ta, tb) = (
                tol / uu.sqrt().max(f64::MIN_POSITIVE),
                tol / ww.sqrt().max(f64::MIN_POSITIVE),
            );
            let ok = det > 0.0 && sa >= -ta && sa <= 1.0 + ta && sb >= -tb && sb <= 1.0 + tb;
            let (sa, sb) = (sa.clamp(0.0, 1.0), sb.clamp(0.0, 1.0));
            (p0 + u * sa, q0 - w * sb, ok)
        }
    }
}

/// Is `y` (a point of face `f`'s plane, local frame) inside the face polygon, within `tol`?
fn in_face(shape: &ConvexPolyhedron, f: u32, y: DVec3, tol: f64) -> bool {
    let n = shape.face(f).normal;
    for h in shape.face_half_edges(f) {
        let he = shape.half_edge(h);
        let a = shape.vertex(he.origin);
        let b = shape.vertex(shape.half_edge(he.next).origin);
        let e = b - a;
        let l = e.length();
        if l > 0.0 && n.dot(e.cross(y - a)) < -tol * l {
            return false;
        }
    }
    true
}
