//! The search for `f_opt`: Search-FV, Search-VF (one steepest ascent, [`ascend`], over the
//! faces of either shape) and the hand-over to Search-EE ([`super::ee`]); §4.4's stored face.

// The phases return `Err(outcome)` when the search ends in them: the final answer, moved once
// per query; boxing it would allocate per query.
#![allow(clippy::result_large_err)]

use super::ee::{search_ee, EE_SEEN_RESERVE};
use super::face::{Cand, Cert, Ctx, Eval};
use super::outcome::{probed, remember, FvResult, Outcome};
use super::{CdDualCache, DualFace, FaceKind, PhaseEvent};
use crate::core::math::DVec3;
use crate::shape::polyhedron::ConvexPolyhedron;

/// The observer of the searches that nobody watches.
pub(super) fn quiet(_: PhaseEvent) {}

/// Search-FV, Search-VF, Search-EE. `model`: the model normal of [`Ctx::heuristic_normal`]
/// when the caller already has it. `steps` counts the faces evaluated per phase; `observe`
/// is told where each phase starts and ends.
pub(super) fn run<O: FnMut(PhaseEvent)>(
    ctx: &Ctx,
    cache: &mut CdDualCache,
    early_exit: bool,
    steps: &mut [u32; 3],
    model: Option<DVec3>,
    observe: &mut O,
) -> Outcome {
    reserve_scratch(ctx, cache);
    observe(PhaseEvent::Start(FaceKind::Fv));
    let fv = search_fv(ctx, cache, early_exit, &mut steps[0], model);
    observe(PhaseEvent::End(FaceKind::Fv));
    let fv = match fv.and_then(|fv| probe_fv_result(ctx, cache, fv)) {
        Ok(fv) => fv,
        Err(outcome) => return outcome,
    };
    observe(PhaseEvent::Start(FaceKind::Vf));
    let vf = search_vf(ctx, cache, early_exit, &mut steps[1], &fv);
    observe(PhaseEvent::End(FaceKind::Vf));
    let vb = match vf.and_then(|vb| probe_vf_result(ctx, cache, vb, &fv)) {
        Ok(vb) => vb,
        Err(outcome) => return outcome,
    };
    observe(PhaseEvent::Start(FaceKind::Ee));
    let outcome = search_ee(ctx, cache, early_exit, &mut steps[2], &fv, vb);
    observe(PhaseEvent::End(FaceKind::Ee));
    outcome
}

/// Sizes the scratch space on the first query, so that a later first entry into Search-EE
/// (most queries end in Search-FV/VF) does not allocate.
#[inline]
fn reserve_scratch(ctx: &Ctx, cache: &mut CdDualCache) {
    // The Search-EE stack holds at most the neighbourhoods of two faces of M (face edges ×
    // tied vertices × their edges, and with ties the corners' edges too) and the faces across
    // borders.
    let (tp, tq) = (&ctx.p.start_table, &ctx.q.start_table);
    let (lp, dp, lq, dq) = (tp.max_face_len, tp.max_degree, tq.max_face_len, tq.max_degree);
    let want = 2 * (lp * dp * lq * dq + (lp + lq) * (dp + dq + 1)) + 16;
    if cache.stack.capacity() < want {
        cache.stack.clear();
        cache.stack.reserve(want);
    }
    // The same for the set of edge pairs seen, up to `EE_SEEN_RESERVE` pairs (16 KiB): a
    // search evaluates a few edge pairs, 64 on two aligned cubes; only a more degenerate pair
    // of shapes grows it (once per cache). Sized like the stack it took 128 KiB per cache on
    // two 1 000-vertex hulls.
    cache.ee_seen.reserve(want.min(EE_SEEN_RESERVE));
}

/// Empties the stack but for the two marker slots Search-EE fills (so it need not probe the
/// face again when it starts from it) and probes `best`, leaving the faces across the
/// borders the ray passes on the stack above the slots.
#[inline]
fn probe_with_slots(ctx: &Ctx, cache: &mut CdDualCache, best: Eval) -> Option<Outcome> {
    cache.stack.clear();
    cache.stack.push(Cand::Expand(best.face));
    cache.stack.push(Cand::Expand(best.face));
    let probe = ctx.probe(&best, Some(&mut cache.stack));
    probed(ctx, cache, best, probe)
}

/// Search-FV: from the stored face (§4.4) or the heuristic start face (§4.2), steepest ascent
/// over the faces of P; or the search's outcome when it ended in this phase.
#[inline]
fn search_fv(
    ctx: &Ctx,
    cache: &mut CdDualCache,
    early_exit: bool,
    steps: &mut u32,
    model: Option<DVec3>,
) -> Result<FvResult, Outcome> {
    let (p, q) = (ctx.p, ctx.q);
    let coherent = (cache.face_a as usize) < p.faces().len();
    let model_normal = match (coherent, model) {
        (true, _) => DVec3::ZERO,
        (false, Some(n)) => n,
        (false, None) => ctx.heuristic_normal().0,
    };
    let start = if coherent {
        cache.face_a
    } else {
        ctx.heuristic_face(model_normal)
    };
    // Without coherence the stored warm start is unrelated to this pose: use the table.
    let mut warm_b = if coherent && (cache.warm_b as usize) < q.vertices().len() {
        cache.warm_b
    } else {
        // The cell's vertex: the start face's evaluation climbs from it.
        q.hint_start(ctx.rt * (-p.face(start).normal))
    };
    let Some(best) = ctx.eval_fv(start, &mut warm_b, f64::NEG_INFINITY) else {
        return Err(Outcome::NotConverged {
            best: Eval {
                face: DualFace::Fv {
                    face_a: start,
                    vertex_b: warm_b,
                },
                n: DVec3::ZERO,
                k: f64::NAN,
                key: f64::NAN,
            },
        });
    };
    *steps += 1;
    if early_exit && best.k < 0.0 {
        if let Some(cert) = ctx.certify_separation(&best) {
            remember(ctx, cache, &best);
            return Err(Outcome::separated(best, cert));
        }
    }
    // The boolean query probes the start face at once (module notes): it may be f_opt, or
    // certify the overlap. Its pushes wait on the stack for Search-EE, as below.
    let probed_start = ctx.rho > 0.0;
    if probed_start {
        if let Some(outcome) = probe_with_slots(ctx, cache, best) {
            return Err(outcome);
        }
    }
    match ascend::<FvFaces>(ctx, best, early_exit, steps) {
        Ascent::Top { best, moved } => Ok(FvResult {
            best,
            coherent,
            toward: if coherent { best.n } else { model_normal },
            probed: probed_start && !moved,
            pushed: 0,
        }),
        Ascent::Stuck { best } => Err(Outcome::NotConverged { best }),
        Ascent::Separated { best, cert } => {
            remember(ctx, cache, &best);
            Err(Outcome::separated(best, cert))
        }
    }
}

/// The best FV face is f_opt when the ray meets it (§3.2): Search-VF and Search-EE could only
/// confirm it. Otherwise the test leaves the faces across the borders the ray passes on the
/// stack, above the two marker slots. A start face that stayed best was probed already.
#[inline]
fn probe_fv_result(ctx: &Ctx, cache: &mut CdDualCache, fv: FvResult) -> Result<FvResult, Outcome> {
    if !fv.probed {
        if let Some(outcome) = probe_with_slots(ctx, cache, fv.best) {
            return Err(outcome);
        }
    }
    Ok(FvResult {
        pushed: cache.stack.len(),
        ..fv
    })
}

/// Search-VF: from the face of Q at the FV result's supporting vertex best aligned with the
/// normal expected at `f_opt` (the paper's alternative start), steepest ascent over the faces
/// of Q.
#[inline]
fn search_vf(
    ctx: &Ctx,
    cache: &mut CdDualCache,
    early_exit: bool,
    steps: &mut u32,
    fv: &FvResult,
) -> Result<Eval, Outcome> {
    let (p, q) = (ctx.p, ctx.q);
    let stuck = || Outcome::NotConverged { best: fv.best };
    let DualFace::Fv { face_a, vertex_b: vq } = fv.best.face else {
        return Err(stuck());
    };
    let warm_a = if fv.coherent && (cache.warm_a as usize) < p.vertices().len() {
        cache.warm_a
    } else {
        // The faces of B at `vq` have normals around the FV face's normal (it lies in the
        // region of `vq`): A's supports along them are at or near that face.
        p.face_vertices(face_a).first().copied().unwrap_or(0)
    };
    // The face of M of a face g of B has the normal `−R n_g`.
    let toward = ctx.rt * (-fv.toward);
    let mut start_b = u32::MAX;
    let mut start_d = f64::NEG_INFINITY;
    for &h in q.outgoing(vq) {
        let g = q.half_edge(h).face;
        let d = q.face(g).normal.dot(toward);
        if d > start_d || start_b == u32::MAX {
            start_d = d;
            start_b = g;
        }
    }
    if start_b == u32::MAX {
        return Err(stuck());
    }
    let mut w = warm_a;
    let Some(start) = ctx.eval_vf(start_b, &mut w, f64::NEG_INFINITY) else {
        return Err(stuck());
    };
    *steps += 1;
    if early_exit && start.k < 0.0 {
        if let Some(cert) = ctx.certify_separation(&start) {
            remember(ctx, cache, &start);
            return Err(Outcome::separated(start, cert));
        }
    }
    match ascend::<VfFaces>(ctx, start, early_exit, steps) {
        Ascent::Top { best, .. } => Ok(best),
        Ascent::Stuck { best } => Err(Outcome::NotConverged { best }),
        Ascent::Separated { best, cert } => {
            remember(ctx, cache, &best);
            Err(Outcome::separated(best, cert))
        }
    }
}

/// A VF result better than the FV result is probed like it (its pushes go on top of the FV
/// result's); the warm starts are stored for the next query.
#[inline]
fn probe_vf_result(ctx: &Ctx, cache: &mut CdDualCache, vb: Eval, fv: &FvResult) -> Result<Eval, Outcome> {
    if vb.key > fv.best.key {
        let probe = ctx.probe(&vb, Some(&mut cache.stack));
        if let Some(outcome) = probed(ctx, cache, vb, probe) {
            return Err(outcome);
        }
    }
    if let DualFace::Vf { vertex_a, .. } = vb.face {
        cache.warm_a = vertex_a;
    }
    if let DualFace::Fv { vertex_b, .. } = fv.best.face {
        cache.warm_b = vertex_b;
    }
    Ok(vb)
}

/// One of the two face families Search-FV and Search-VF walk: the faces of one shape, each
/// paired with the supporting vertex of the other (FV: faces of P, VF: faces of Q).
trait Family {
    /// The shape whose faces are walked.
    fn walked<'a>(ctx: &Ctx<'a>) -> &'a ConvexPolyhedron;
    /// `(face of the walked shape, supporting vertex of the other)` of a face of this family.
    fn parts(face: DualFace) -> Option<(u32, u32)>;
    /// The other shape's warm-start vertex as the evaluation wants it, placed once per step.
    type Placed: Copy;
    fn place(ctx: &Ctx, v: u32) -> Self::Placed;
    /// The face of M of face `f` ([`Ctx::eval_fv`] / [`Ctx::eval_vf`]).
    fn eval(ctx: &Ctx, f: u32, warm: &mut u32, placed: Self::Placed, beat: f64) -> Option<Eval>;
}

/// Faces of P with supporting vertices of Q.
struct FvFaces;

impl Family for FvFaces {
    #[inline(always)]
    fn walked<'a>(ctx: &Ctx<'a>) -> &'a ConvexPolyhedron {
        ctx.p
    }
    #[inline(always)]
    fn parts(face: DualFace) -> Option<(u32, u32)> {
        match face {
            DualFace::Fv { face_a, vertex_b } => Some((face_a, vertex_b)),
            _ => None,
        }
    }
    /// Q's vertex in A's frame (a valid index: the support vertex just found).
    type Placed = DVec3;
    #[inline(always)]
    fn place(ctx: &Ctx, v: u32) -> DVec3 {
        ctx.qv(v)
    }
    #[inline(always)]
    fn eval(ctx: &Ctx, f: u32, warm: &mut u32, placed: DVec3, beat: f64) -> Option<Eval> {
        ctx.eval_fv_from(f, warm, placed, beat)
    }
}

/// Faces of Q with supporting vertices of P.
struct VfFaces;

impl Family for VfFaces {
    #[inline(always)]
    fn walked<'a>(ctx: &Ctx<'a>) -> &'a ConvexPolyhedron {
        ctx.q
    }
    #[inline(always)]
    fn parts(face: DualFace) -> Option<(u32, u32)> {
        match face {
            DualFace::Vf { vertex_a, face_b } => Some((face_b, vertex_a)),
            _ => None,
        }
    }
    /// P's vertices are in A's frame already: nothing to place.
    type Placed = ();
    #[inline(always)]
    fn place(_: &Ctx, _: u32) {}
    #[inline(always)]
    fn eval(ctx: &Ctx, f: u32, warm: &mut u32, _: (), beat: f64) -> Option<Eval> {
        ctx.eval_vf(f, warm, beat)
    }
}

/// How a steepest ascent ended.
enum Ascent {
    /// No neighbour improves the key; `moved`: the ascent left its start face.
    Top { best: Eval, moved: bool },
    /// The step bound was reached (or the face left the family).
    Stuck { best: Eval },
    /// Early exit at a certified separating face.
    Separated { best: Eval, cert: Cert },
}

/// Steepest ascent of the key over the faces of one family (Search-FV or Search-VF), from
/// `best`: each step evaluates the neighbours across the current face's edges (with the
/// supporting vertex warm-started from the current one's) and moves to the best one that
/// improves the key. At most one move per face of the walked shape.
fn ascend<F: Family>(ctx: &Ctx, mut best: Eval, early_exit: bool, steps: &mut u32) -> Ascent {
    let shape = F::walked(ctx);
    // The face the ascent came from: already evaluated, its key below the current one and
    // its plane not separating (or failing its certificate), so re-evaluating it could change
    // nothing (the same support value): skipped.
    let mut prev = u32::MAX;
    for _ in 0..=shape.faces().len() {
        let Some((cur, wv)) = F::parts(best.face) else {
            break;
        };
        let mut next = best;
        let placed = F::place(ctx, wv);
        for h in shape.face_half_edges(cur) {
            let nb = shape.half_edge(shape.half_edge(h).twin).face;
            if nb == prev {
                continue;
            }
            let mut w = wv;
            let Some(ev) = F::eval(ctx, nb, &mut w, placed, next.key.min(1.0)) else {
                continue;
            };
            *steps += 1;
            if early_exit && ev.k < 0.0 {
                let Some(cert) = ctx.certify_separation(&ev) else {
                    // Not a genuine separating plane (a search bug): ignore the face.
                    continue;
                };
                return Ascent::Separated { best: ev, cert };
            }
            if ev.key > next.key {
                next = ev;
            }
        }
        if next.key > best.key {
            prev = cur;
            best = next;
        } else {
            return Ascent::Top {
                best,
                moved: prev != u32::MAX,
            };
        }
    }
    Ascent::Stuck { best }
}
