//! Search-EE (§4.3): a stack of candidate faces of M (edge pairs, and FV/VF faces: the whole
//! neighbourhood in M, module notes), first-improvement local search, each edge pair
//! evaluated at most once per search.

use super::face::{Cand, Ctx, Eval};
use super::outcome::{probed, remember, FvResult, Outcome};
use super::{CdDualCache, DualFace, FaceKind};
use crate::core::tolerance::COPLANAR_REL;

/// Search-EE from the FV result and the VF result `vb`, whose probes left the faces across
/// the borders the ray passes on the stack (`fv.pushed`: the FV result's part).
#[inline]
pub(super) fn search_ee(
    ctx: &Ctx,
    cache: &mut CdDualCache,
    early_exit: bool,
    steps: &mut u32,
    fv: &FvResult,
    vb: Eval,
) -> Outcome {
    let (p, q) = (ctx.p, ctx.q);
    let fv_best = fv.best;
    let (mut best, other) = if vb.key > fv_best.key {
        (vb, fv_best)
    } else {
        (fv_best, vb)
    };
    // The whole neighbourhood in M of both phase results (FV/VF local maxima over the face
    // adjacency of P/Q need not be local maxima in M when Gaussian images are degenerate).
    // Pushed as markers, expanded when popped: usually the faces across the border the ray
    // passes (on top: they improve the key) end the search first and the markers are never
    // expanded. Those faces are already on the stack from the phases' ray tests: the FV
    // result's above the two marker slots, then (when VF's result is better) VF's, which
    // replace them.
    if vb.key > fv_best.key {
        cache.stack.drain(2..fv.pushed);
    }
    cache.stack[0] = Cand::Expand(other.face);
    cache.stack[1] = Cand::Expand(best.face);
    let (ep, eq) = (p.edges().len() as u64, q.edges().len() as u64);
    let (hp, hq) = (p.half_edges().len() as u64, q.half_edges().len() as u64);
    let faces = ep * eq + (p.faces().len() + q.faces().len()) as u64 + 1;
    // Per expanded face: its neighbourhood, the faces across its borders and its marker.
    let per_face = 4 * (hp + hq) + 16;
    let bound = (cache.stack.len() as u64).saturating_add(faces.saturating_mul(2 * per_face));
    let mut pops: u64 = 0;
    cache.ee_seen.begin();
    // FV/VF candidates that can neither beat the best key (nor tie it, see below) nor
    // separate skip their support query.
    let beat_of = |best: &Eval| {
        if best.key.is_finite() {
            (best.key - 2.0 * COPLANAR_REL * best.key.abs()).min(1.0)
        } else {
            f64::NEG_INFINITY
        }
    };
    let mut beat = beat_of(&best);
    while let Some(cand) = cache.stack.pop() {
        pops += 1;
        if pops > bound {
            return Outcome::NotConverged { best };
        }
        let Some(ev) = evaluate(ctx, cache, cand, beat, steps) else {
            continue;
        };
        if early_exit && ev.k < 0.0 {
            let Some(cert) = ctx.certify_separation(&ev) else {
                // Not a genuine separating plane (a search bug): ignore the face.
                continue;
            };
            remember(ctx, cache, &ev);
            return Outcome::separated(ev, cert);
        }
        // An FV/VF face whose key ties an EE best (same plane up to rounding) is the merged
        // face of parallel features that the EE pair only touches at a Gaussian vertex: move to
        // it so that its neighbourhood is examined too. Only EE → FV/VF moves on a tie, so
        // between two strict improvements there is at most one tie move.
        let tie = best.face.kind() == FaceKind::Ee
            && ev.face.kind() != FaceKind::Ee
            && best.key.is_finite()
            && (ev.key - best.key).abs() <= COPLANAR_REL * best.key.abs();
        if ev.key > best.key || tie {
            // Keep the larger key on a tie, so the EE pair cannot win back by rounding.
            let key = ev.key.max(best.key);
            best = Eval { key, ..ev };
            beat = beat_of(&best);
            cache.stack.clear();
            cache.stack.push(Cand::Expand(best.face));
            let probe = ctx.probe(&best, Some(&mut cache.stack));
            if let Some(outcome) = probed(ctx, cache, best, probe) {
                return outcome;
            }
        }
    }
    remember(ctx, cache, &best);
    Outcome::at(best)
}

/// Evaluates a popped candidate: `None` for a marker (its neighbourhood is pushed instead),
/// an edge pair seen before in this search, a pair forming no face of M, and an FV/VF face
/// whose bound can neither beat nor tie `beat` (its support query is skipped). Counts the
/// evaluations.
#[inline]
fn evaluate(ctx: &Ctx, cache: &mut CdDualCache, cand: Cand, beat: f64, steps: &mut u32) -> Option<Eval> {
    match cand {
        Cand::Expand(face) => {
            push_neighbours(ctx, face, cache);
            return None;
        }
        Cand::Ee(ea, eb) => {
            // An edge pair evaluated before in this search is skipped: its face (or
            // `None`) is the same as then, and the best key has only grown since, so it
            // can neither improve now nor make a tie move (only FV/VF faces do); a
            // separating plane that failed its certificate then fails it again. Parallel
            // features (aligned boxes) pushed the same pairs from many tied faces: 387
            // evaluations of 64 pairs per directional query on two aligned cubes.
            if !cache.ee_seen.insert(ea, eb) {
                return None;
            }
        }
        Cand::Fv(..) | Cand::Vf(..) => {}
    }
    *steps = steps.saturating_add(1);
    match cand {
        Cand::Expand(_) => None,
        Cand::Ee(ea, eb) => ctx.eval_ee(ea, eb),
        Cand::Fv(f, warm) => {
            let mut w = warm;
            ctx.eval_fv(f, &mut w, beat)
        }
        Cand::Vf(g, warm) => {
            let mut w = warm;
            ctx.eval_vf(g, &mut w, beat)
        }
    }
}

/// Edge pairs the set of seen pairs holds without growing (see `reserve_scratch` in `search`).
pub(super) const EE_SEEN_RESERVE: usize = 512;

/// A set of edge pairs `(edge of P, edge of Q)`, emptied in O(1) per search: open addressing
/// over slots stamped with the search's generation (a slot of an older generation is empty).
/// Its capacity is kept across searches, so a cache in steady state does not allocate.
#[derive(Clone, Debug, Default)]
pub(super) struct PairSet {
    /// `(key, generation)`; the length is zero or a power of two.
    slots: Vec<(u64, u32)>,
    generation: u32,
    len: usize,
}

impl PairSet {
    /// Empties the set.
    pub(super) fn begin(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Stamps of 2³² searches ago would read as live: clear them once.
            self.slots.iter_mut().for_each(|s| *s = (0, 0));
            self.generation = 1;
        }
        self.len = 0;
    }

    /// Adds the pair; `false` when it was already in the set.
    pub(super) fn insert(&mut self, ea: u32, eb: u32) -> bool {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let key = (u64::from(ea) << 32) | u64::from(eb);
        let mask = self.slots.len() - 1;
        // Fibonacci hashing: the high bits of the product mix both edge ids.
        let mut i = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask;
        loop {
            let slot = &mut self.slots[i];
            if slot.1 != self.generation {
                *slot = (key, self.generation);
                self.len += 1;
                return true;
            }
            if slot.0 == key {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    /// Makes room for `n` pairs without growing (a table of at least `2n` slots), so that a
    /// search needing no more never allocates; emptied like [`PairSet::begin`].
    pub(super) fn reserve(&mut self, n: usize) {
        let want = (2 * n).next_power_of_two().max(64);
        if self.slots.len() < want {
            self.slots.clear();
            self.slots.resize(want, (0, 0));
            self.generation = 1;
            self.len = 0;
        }
    }

    /// Doubles the table (at least 64 slots), keeping this generation's pairs.
    #[cold]
    fn grow(&mut self) {
        let n = (2 * self.slots.len()).max(64);
        let old = std::mem::replace(&mut self.slots, vec![(0, 0); n]);
        self.len = 0;
        for (key, generation) in old {
            if generation == self.generation {
                self.insert((key >> 32) as u32, key as u32);
            }
        }
    }
}

/// The edge pairs adjacent (in M) to an FV or VF face: the edges of its face × the edges
/// incident at its vertex — at every tied supporting vertex (appendix, cases 2 and 3).
fn push_ee_pairs(ctx: &Ctx, face: DualFace, cache: &mut CdDualCache) {
    let (p, q) = (ctx.p, ctx.q);
    match face {
        DualFace::Fv { face_a, vertex_b } => {
            let nb = ctx.rt * (-p.face(face_a).normal);
            Ctx::collect_ties(q, vertex_b, nb, &mut cache.ties);
            for h in p.face_half_edges(face_a) {
                let ea = p.half_edge(h).edge;
                for &tv in &cache.ties {
                    for &g in q.outgoing(tv) {
                        cache.stack.push(Cand::Ee(ea, q.half_edge(g).edge));
                    }
                }
            }
            if cache.ties.len() > 1 {
                // The normal lies on an arc or vertex of B's Gaussian image: the arcs of B's
                // supporting feature leave it too, crossing arcs of edges at the face's corners.
                for &w in p.face_vertices(face_a) {
                    for &h in p.outgoing(w) {
                        let ea = p.half_edge(h).edge;
                        for &tv in &cache.ties {
                            for &g in q.outgoing(tv) {
                                cache.stack.push(Cand::Ee(ea, q.half_edge(g).edge));
                            }
                        }
                    }
                }
            }
        }
        DualFace::Vf { vertex_a, face_b } => {
            let na = -(ctx.r * q.face(face_b).normal);
            Ctx::collect_ties(p, vertex_a, na, &mut cache.ties);
            for h in q.face_half_edges(face_b) {
                let eb = q.half_edge(h).edge;
                for &tv in &cache.ties {
                    for &g in p.outgoing(tv) {
                        cache.stack.push(Cand::Ee(p.half_edge(g).edge, eb));
                    }
                }
            }
            if cache.ties.len() > 1 {
                for &w in q.face_vertices(face_b) {
                    for &h in q.outgoing(w) {
                        let eb = q.half_edge(h).edge;
                        for &tv in &cache.ties {
                            for &g in p.outgoing(tv) {
                                cache.stack.push(Cand::Ee(p.half_edge(g).edge, eb));
                            }
                        }
                    }
                }
            }
        }
        DualFace::Ee { .. } => {}
    }
}

/// Every face of M adjacent to `face` (the arcs of the superimposed Gaussian images leaving
/// its vertex): for FV/VF faces the same-family neighbours and the edge pairs of
/// [`push_ee_pairs`]; for EE faces the pairs sharing one edge (Lemma 4) and the FV/VF faces at
/// the four arc end points.
fn push_neighbours(ctx: &Ctx, face: DualFace, cache: &mut CdDualCache) {
    let (p, q) = (ctx.p, ctx.q);
    match face {
        DualFace::Fv { face_a, vertex_b } => {
            for h in p.face_half_edges(face_a) {
                cache
                    .stack
                    .push(Cand::Fv(p.half_edge(p.half_edge(h).twin).face, vertex_b));
            }
            push_ee_pairs(ctx, face, cache);
            // Tied support (B's supporting feature is an edge or face): B's arcs leave this
            // Gaussian vertex through the regions of the face's corners and may next meet a
            // face normal of A at a corner, or end at a face normal of B around the tied
            // vertices. Those faces of M border this one too.
            if cache.ties.len() > 1 {
                for &w in p.face_vertices(face_a) {
                    for &h in p.outgoing(w) {
                        cache.stack.push(Cand::Fv(p.half_edge(h).face, vertex_b));
                    }
                }
                let va = p.face_vertices(face_a).first().copied().unwrap_or(0);
                for i in 0..cache.ties.len() {
                    for &h in q.outgoing(cache.ties[i]) {
                        cache.stack.push(Cand::Vf(q.half_edge(h).face, va));
                    }
                }
            }
        }
        DualFace::Vf { vertex_a, face_b } => {
            for h in q.face_half_edges(face_b) {
                cache
                    .stack
                    .push(Cand::Vf(q.half_edge(q.half_edge(h).twin).face, vertex_a));
            }
            push_ee_pairs(ctx, face, cache);
            if cache.ties.len() > 1 {
                for &w in q.face_vertices(face_b) {
                    for &h in q.outgoing(w) {
                        cache.stack.push(Cand::Vf(q.half_edge(h).face, vertex_a));
                    }
                }
                let vb = q.face_vertices(face_b).first().copied().unwrap_or(0);
                for i in 0..cache.ties.len() {
                    for &h in p.outgoing(cache.ties[i]) {
                        cache.stack.push(Cand::Fv(p.half_edge(h).face, vb));
                    }
                }
            }
        }
        DualFace::Ee { edge_a, edge_b } => {
            let e = p.edge(edge_a);
            let g = q.edge(edge_b);
            for f in e.faces {
                cache.stack.push(Cand::Fv(f, g.vertices[0]));
            }
            for f in g.faces {
                cache.stack.push(Cand::Vf(f, e.vertices[0]));
            }
            // Degenerate Gaussian images: a face normal of one shape may lie exactly on the
            // other's arc (e.g. shapes related by a symmetry). Walking along the arc of B's
            // edge inside the region of a vertex of A's edge, the next feature met can then be
            // a corner of that region — a face of A at that vertex, not one of the edge's two
            // faces — where `arcs_cross` rightly sees no EE face. Push the FV (VF) faces at
            // both end vertices so the neighbourhood in M stays complete.
            for &v in &e.vertices {
                for &h in p.outgoing(v) {
                    cache.stack.push(Cand::Fv(p.half_edge(h).face, g.vertices[0]));
                }
            }
            for &v in &g.vertices {
                for &h in q.outgoing(v) {
                    cache.stack.push(Cand::Vf(q.half_edge(h).face, e.vertices[0]));
                }
            }
            for &v in &g.vertices {
                for &h in q.outgoing(v) {
                    let e2 = q.half_edge(h).edge;
                    if e2 != edge_b {
                        cache.stack.push(Cand::Ee(edge_a, e2));
                    }
                }
            }
            for &v in &e.vertices {
                for &h in p.outgoing(v) {
                    let e2 = p.half_edge(h).edge;
                    if e2 != edge_a {
                        cache.stack.push(Cand::Ee(e2, edge_b));
                    }
                }
            }
        }
    }
}
