//! How a search ends and what Search-FV hands on: shared by the phases (`search.rs`) and
//! Search-EE (`ee.rs`), with the probe's verdict turned into an outcome and the face
//! remembered for the next query (§4.4).

use super::face::{Cert, Ctx, Eval};
use super::probe::{OverlapCert, Probe};
use super::{CdDualCache, DualFace};
use crate::core::math::DVec3;

/// How a search ended.
pub(super) enum Outcome {
    /// `cert`: the certificate of an early exit's separating face (see
    /// [`Ctx::certify_separation`]), which the boolean query reuses.
    Done {
        best: Eval,
        early: bool,
        cert: Option<Cert>,
    },
    NotConverged {
        best: Eval,
    },
    /// The boolean query's overlap certificate, found at face `best` (not necessarily
    /// `f_opt`).
    Overlap {
        best: Eval,
        cert: OverlapCert,
    },
}

impl Outcome {
    /// The search ended at `f_opt` (or a face without an improving neighbour).
    pub(super) fn at(best: Eval) -> Self {
        Outcome::Done {
            best,
            early: false,
            cert: None,
        }
    }

    /// The early exit at a separating face, handing its certificate on (the caller need not
    /// repeat its support queries).
    pub(super) fn separated(best: Eval, cert: Cert) -> Self {
        Outcome::Done {
            best,
            early: true,
            cert: Some(cert),
        }
    }
}

/// What Search-FV hands to the later phases.
pub(super) struct FvResult {
    pub(super) best: Eval,
    /// The stored face was used (a coherent query).
    pub(super) coherent: bool,
    /// The normal expected at `f_opt`: the model normal, or with coherence the FV result's.
    pub(super) toward: DVec3,
    /// The result is the start face, probed already (boolean query).
    pub(super) probed: bool,
    /// Stack height after the FV result's probe (its pushes above the two marker slots).
    pub(super) pushed: usize,
}

/// The outcome when [`Ctx::probe`] found `best` to be `f_opt` or certified the overlap there
/// (the face is remembered for the next query); `None` on a miss.
#[inline]
pub(super) fn probed(ctx: &Ctx, cache: &mut CdDualCache, best: Eval, probe: Probe) -> Option<Outcome> {
    match probe {
        Probe::Exit => {
            remember(ctx, cache, &best);
            Some(Outcome::at(best))
        }
        Probe::Overlap(cert) => {
            remember(ctx, cache, &best);
            Some(Outcome::Overlap { best, cert })
        }
        Probe::Miss => None,
    }
}

/// §4.4: store a face of A close to the final face for the next query.
#[inline]
pub(super) fn remember(ctx: &Ctx, cache: &mut CdDualCache, best: &Eval) {
    let p = ctx.p;
    cache.face_a = match best.face {
        DualFace::Fv { face_a, vertex_b } => {
            cache.warm_b = vertex_b;
            face_a
        }
        DualFace::Vf { vertex_a, .. } => {
            cache.warm_a = vertex_a;
            ctx.best_face_at_vertex(vertex_a, best.n)
        }
        DualFace::Ee { edge_a, .. } => {
            let [l, r] = p.edge(edge_a).faces;
            if p.face(l).normal.dot(best.n) >= p.face(r).normal.dot(best.n) {
                l
            } else {
                r
            }
        }
    };
}
