//! The Minkowski difference `M = A − B` of one GJK query, in A's local frame (B mapped by
//! `pose_a⁻¹ · pose_b`): its vertices as pairs of vertex ids and its supports.
//!
//! Supports are hill-climbs over both shapes' vertex graphs (Cameron) started from the shapes'
//! direction tables rather than from the last support, except once the search direction has
//! settled (turned by less than `acos WARM_COS` since the previous GJK step), where the last
//! supports are a step away (not in EPA, whose faces take turns); on two large hulls the two
//! climbs advance in lockstep (`support_climb_pair`, the same vertices).

use super::{GjkCache, BASE_ITERATIONS, MAX_PAIR_BOUND};
use crate::contract::pair_scale_relative;
use crate::core::math::{DMat3, DQuat, DVec3, Pose};
use crate::core::tolerance::CONTACT_REL;
use crate::shape::polyhedron::ConvexPolyhedron;

/// A vertex of `M = A − B`: the pair of vertex ids and the difference point (A's local
/// frame). The two points it comes from are recomputed from the ids when needed
/// ([`Ctx::pa`], [`Ctx::pb`], bit-identical to the ones `w` was formed from): the simplex is
/// copied every iteration, and 32 bytes per vertex instead of 80 is measurable on small shapes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct SVert {
    pub(super) w: DVec3,
    pub(super) ia: u32,
    pub(super) ib: u32,
}

/// One query's geometry: both shapes and B's pose in A's frame.
pub(super) struct Ctx<'a> {
    pub(super) a: &'a ConvexPolyhedron,
    pub(super) b: &'a ConvexPolyhedron,
    pub(super) rot: DMat3,
    pub(super) rot_t: DMat3,
    pub(super) quat: DQuat,
    pub(super) trans: DVec3,
    pub(super) scale: f64,
    pub(super) tol: f64,
    pub(super) max_iter: u32,
    /// Both shapes have direction tables (more than `SMALL_SCAN` vertices): their supports
    /// are climbs from the table's starts, advanced in lockstep.
    pub(super) paired: bool,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(a: &'a ConvexPolyhedron, pa: &Pose, b: &'a ConvexPolyhedron, pb: &Pose) -> Self {
        let rel = pa.relative(pb);
        let rot = DMat3::from_quat(rel.rotation);
        let scale = pair_scale_relative(a, pa, b, pb, &rot, rel.translation);
        let pairs = (a.vertices().len() as u64).saturating_mul(b.vertices().len() as u64);
        Ctx {
            a,
            b,
            rot,
            rot_t: rot.transpose(),
            quat: rel.rotation,
            trans: rel.translation,
            scale,
            // `contact_tolerance` is `CONTACT_REL × pair_scale`: the same value, one scale.
            tol: CONTACT_REL * scale,
            max_iter: BASE_ITERATIONS + pairs.min(MAX_PAIR_BOUND as u64) as u32,
            paired: a.vertices().len() > crate::shape::support::SMALL_SCAN
                && b.vertices().len() > crate::shape::support::SMALL_SCAN,
        }
    }
    #[inline]
    pub(super) fn vert(&self, ia: u32, ib: u32) -> SVert {
        let pa = self.a.vertex(ia);
        let pb = self.rot * self.b.vertex(ib) + self.trans;
        SVert { w: pa - pb, ia, ib }
    }
    /// The point of A a Minkowski vertex comes from (A's frame).
    #[inline]
    pub(super) fn pa(&self, s: &SVert) -> DVec3 {
        self.a.vertex(s.ia)
    }
    /// The point of B a Minkowski vertex comes from (A's frame; the same arithmetic as
    /// [`Ctx::vert`], so the same value).
    #[inline]
    pub(super) fn pb(&self, s: &SVert) -> DVec3 {
        self.rot * self.b.vertex(s.ib) + self.trans
    }
    /// The vertex of `M` maximising `d · x`. `P` must be `self.paired`: then both climbs
    /// start from the direction tables (or, with `WARM`, from the last supports) and advance
    /// in lockstep; otherwise each starts where [`climb_start`] says. Monomorphised so that
    /// small hulls (cubes: every instruction counts) pay for neither test.
    #[inline(always)]
    pub(super) fn support_with<const P: bool, const WARM: bool>(&self, d: DVec3, cache: &mut GjkCache) -> SVert {
        let db = self.rot_t * (-d);
        let (ia, ib) = if P {
            let (sa, sb) = if WARM {
                (cache.warm_a, cache.warm_b)
            } else {
                (self.a.hint_start(d), self.b.hint_start(db))
            };
            self.a.support_climb_pair(d, sa, self.b, db, sb)
        } else {
            (
                self.a.support_climb(d, climb_start(self.a, d, cache.warm_a)),
                self.b.support_climb(db, climb_start(self.b, db, cache.warm_b)),
            )
        };
        cache.warm_a = ia;
        cache.warm_b = ib;
        self.vert(ia, ib)
    }
    /// The vertex of `M` maximising `d · x`.
    #[inline]
    pub(super) fn support(&self, d: DVec3, cache: &mut GjkCache) -> SVert {
        if self.paired {
            self.support_with::<true, false>(d, cache)
        } else {
            self.support_with::<false, false>(d, cache)
        }
    }
    /// The vertex of `M` maximising `d · x`, the climbs started from the best of the given
    /// Minkowski vertices (supports for nearby directions: a short climb) instead of the last
    /// support, which may lie across the hull.
    #[inline]
    pub(super) fn support_near(&self, d: DVec3, near: &[SVert], cache: &mut GjkCache) -> SVert {
        let mut best_a = (f64::NEG_INFINITY, cache.warm_a);
        let mut best_b = (f64::INFINITY, cache.warm_b);
        // B's side in B's frame (the translation shifts every candidate alike).
        let db_local = self.rot_t * d;
        for s in near {
            let da = d.dot(self.a.vertex(s.ia));
            if da > best_a.0 {
                best_a = (da, s.ia);
            }
            let db = db_local.dot(self.b.vertex(s.ib));
            if db < best_b.0 {
                best_b = (db, s.ib);
            }
        }
        cache.warm_a = best_a.1;
        cache.warm_b = best_b.1;
        self.support(d, cache)
    }
    pub(super) fn valid(&self, ia: u32, ib: u32) -> bool {
        (ia as usize) < self.a.vertices().len() && (ib as usize) < self.b.vertices().len()
    }
}

/// Where a support climb along `d` starts: the direction table's vertex (within a cell of the
/// support) on hulls that have the table, the last support on small hulls (whose supports are
/// scans that keep the start on ties). The last support is not compared against the table's
/// vertex: measured (callgrind, random 1 000-vertex pairs) the comparison cost more than the
/// climbs it shortened (separated 8 972 → 8 754 instructions per query without it,
/// overlapping 67.7k → 66.6k).
#[inline]
fn climb_start(p: &ConvexPolyhedron, d: DVec3, warm: u32) -> u32 {
    if p.vertices().len() <= crate::shape::support::SMALL_SCAN {
        warm
    } else {
        p.hint_start(d)
    }
}
