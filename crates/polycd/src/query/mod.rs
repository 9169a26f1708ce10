//! The query interface every convex algorithm plugs into.
//!
//! One function per question, each taking two shapes, their poses, an [`Algorithm`] and the
//! caller's [`PairCache`]:
//! - [`intersect`] — do they overlap? ([`Intersection`]);
//! - [`distance`] — how far apart, where, and between which features? ([`Distance`]);
//! - [`directional`] — how far must B move along a direction to just touch A? ([`Directional`]).
//!
//! and two questions on one shape (`query/probe.rs`): [`point_query`] (is a
//! point inside, how far from the boundary, and where: [`PointAnswer`]) and [`ray_cast`] (the
//! first hit of a ray: [`RayHit`]).
//!
//! Many pairs at once (`query/many.rs`, on every core with the cargo feature `parallel`):
//! [`distance_many`] and [`intersect_many`] answer a list of [`PosedPair`]s (shape indices and
//! poses), each exactly as the single-pair function does.
//!
//! Every result is an enum carrying a witness that [`crate::verify`] can check independently;
//! non-convergence is its own variant, never a geometric answer. All points, planes and
//! directions in results are in the **world frame**. An algorithm that does not answer a
//! question returns [`PolycdError::Unsupported`].
//!
//! Coherence: the [`PairCache`] holds each algorithm's warm-start state for one pair of shapes
//! (V-Clip's feature pair, GJK's simplex, CD-Dual's start face, HS-jump's last vector). It is
//! a plain value the caller owns — one per pair — and is reused, without allocating, by the
//! next query on that pair.
//!
//! Rounded shapes ([`ConvexPolyhedron::with_radius`]): the algorithms answer for the cores;
//! `rounded.rs` turns their answers into the rounded shapes' (see its header). `Auto` answers
//! two point or segment cores (spheres, capsules) by closed forms (`closed.rs`).
//!
//! Files, one job each: this one validates, rescales and dispatches; `core_boolean.rs`,
//! `core_measure.rs` and `core_directional.rs` hold each question's per-algorithm answers on
//! the cores (and the contact-band checks); `closed.rs`, `rounded.rs`, `rescale.rs`, the
//! probes (`probe*.rs`), `manifold.rs` and `many.rs` as their headers say.

use crate::contract::{checked_pose, pose_ok};
pub use crate::contract::{
    contact_tolerance, pair_scale, Directional, Distance, Feature, FeaturePair, Intersection, MinkowskiSimplex,
    OverlapWitness, Penetration, Status,
};
pub use crate::contract::{point_contact_tolerance, Containment, PointAnswer, RayHit};
use crate::core::error::PolycdError;
use crate::core::math::{DVec3, Pose};
use crate::shape::polyhedron::ConvexPolyhedron;
use crate::{cd_dual, gjk, hs_jump, qp, vclip};

mod closed;
mod core_boolean;
mod core_directional;
mod core_measure;
mod manifold;
mod many;
mod probe;
mod probe_exact;
mod probe_flat;
mod rescale;
mod rounded;
pub use crate::contract::{ContactManifold, ContactPoint, ManifoldKind, ManifoldOptions};
use core_boolean::core_intersect;
use core_directional::{directional_by, settle_touching};
use core_measure::{core_distance, core_distance_or_overlap};
pub use manifold::{contact_manifold, ManifoldCache};
pub use many::{distance_many, distance_many_into, intersect_many, intersect_many_into, PosedPair};
pub use probe::{point_query, ray_cast};
use rescale::{on_scaled, pair_normaliser};

/// `$pose` (a `&Pose`) validated: itself when [`pose_ok`] (no copy), else [`checked_pose`]'s
/// normalised copy, bound to `$slot`; `?`-returns its error.
macro_rules! checked {
    ($pose:expr, $slot:ident) => {{
        let p: &Pose = $pose;
        if pose_ok(p) {
            p
        } else {
            $slot = checked_pose(p)?;
            &$slot
        }
    }};
}

/// Which algorithm answers a query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Algorithm {
    /// The recommended algorithm for each question: GJK (boolean, except two solids of at
    /// most 16 vertices each, whose boolean is HS-jump's; distance with EPA depth;
    /// directional by ray casting); closed forms for two point or segment cores (spheres,
    /// capsules) and a point core against a solid of few faces (a sphere against a box),
    /// apart beyond the contact tolerance (`query/closed.rs`).
    #[default]
    Auto,
    /// Gilbert–Johnson–Keerthi with hill-climbing support and warm start.
    Gjk,
    /// Mirtich's V-Clip closest-feature tracking.
    VClip,
    /// Choi–Li–Wang–Cameron dual-space search.
    CdDual,
    /// Li et al.'s separating-vector search with reflection jumps.
    HsJump,
    /// Jin et al.'s convex program, solved by an interior-point solver (faithful).
    Qp,
    /// The same convex program solved by a dedicated minimum-norm-point method.
    QpFast,
}

impl Algorithm {
    /// Every algorithm, `Auto` first.
    pub const ALL: [Algorithm; 7] = [
        Algorithm::Auto,
        Algorithm::Gjk,
        Algorithm::VClip,
        Algorithm::CdDual,
        Algorithm::HsJump,
        Algorithm::Qp,
        Algorithm::QpFast,
    ];

    /// The name used on the command line and in the batch format.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Auto => "auto",
            Algorithm::Gjk => "gjk",
            Algorithm::VClip => "vclip",
            Algorithm::CdDual => "cd_dual",
            Algorithm::HsJump => "hs_jump",
            Algorithm::Qp => "qp",
            Algorithm::QpFast => "qp_fast",
        }
    }

    /// Parses a name as written by [`Algorithm::name`] (case-insensitive; `-` and `_` alike).
    pub fn parse(s: &str) -> Option<Algorithm> {
        let s = s.trim().to_ascii_lowercase().replace('-', "_");
        Algorithm::ALL.into_iter().find(|a| a.name() == s)
    }
}

/// Per-pair coherence state for every algorithm. Create one per pair with `Default` and pass
/// it to every query on that pair.
///
/// Creating one does not allocate. GJK's, V-Clip's and the fast QP solver's state is inline
/// (144 bytes in all); CD-Dual's and HS-jump's state, which carries their scratch buffers, is
/// allocated on the first query that uses them ([`OnUse`]), as are GJK's EPA buffers. A world
/// of many pairs that asks one algorithm keeps a few cache lines per pair (measured: 912 →
/// 144 bytes per `PairCache`, 1 064 → 296 per `broad::World` pair).
#[derive(Clone, Debug, Default)]
pub struct PairCache {
    /// GJK's last simplex and support vertices.
    pub gjk: gjk::GjkCache,
    /// V-Clip's last feature pair.
    pub vclip: vclip::VClipCache,
    /// CD-Dual's last optimal face.
    pub cd_dual: OnUse<cd_dual::CdDualCache>,
    /// HS-jump's last separating vector and supporting pair (and its scratch space).
    pub hs_jump: OnUse<hs_jump::HsJumpCache>,
    /// The fast QP solver's warm start.
    pub qp: qp::QpCache,
}

impl PairCache {
    /// Forgets every algorithm's coherence state (the next query starts cold, as with a new
    /// cache) but keeps the scratch buffers' capacity: reuse one cache for unrelated queries
    /// without allocating.
    pub fn forget(&mut self) {
        self.gjk.forget();
        self.vclip.forget();
        if let Some(c) = self.cd_dual.get_mut() {
            c.forget();
        }
        if let Some(c) = self.hs_jump.get_mut() {
            c.forget();
        }
        self.qp.forget();
    }
}

/// A part of a [`PairCache`] kept out of line and created by the first query that needs it
/// (one allocation per cache, never per query).
#[derive(Clone, Debug)]
pub struct OnUse<T>(Option<Box<T>>);

impl<T> Default for OnUse<T> {
    fn default() -> Self {
        OnUse(None)
    }
}

impl<T> OnUse<T> {
    /// The state, if a query has created it.
    pub fn get(&self) -> Option<&T> {
        self.0.as_deref()
    }

    /// The state, mutably, if a query has created it.
    pub fn get_mut(&mut self) -> Option<&mut T> {
        self.0.as_deref_mut()
    }
}

impl<T: Default> OnUse<T> {
    /// The state, created (default) if no query has used it yet.
    pub fn get_or_default(&mut self) -> &mut T {
        self.0.get_or_insert_with(Box::default)
    }
}

/// Do A (at `pose_a`) and B (at `pose_b`) intersect?
///
/// Inline in the caller: two spheres are answered there without a call; every other pair
/// takes one call, as it would without this path.
#[inline(always)]
pub fn intersect(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Intersection, PolycdError> {
    // Two spheres first, inline and without any call on their path (a pair within the bound
    // of contact, or a pose to normalise or refuse, falls through); then the general path,
    // one call (this function is inline in its caller, so no other pair pays a call layer).
    if algorithm == Algorithm::Auto && a.dimension() == 0 && b.dimension() == 0 {
        if let Some(r) = closed::direct_point_point_intersect(a, pose_a, b, pose_b) {
            return Ok(r);
        }
    }
    intersect_rest(a, pose_a, b, pose_b, algorithm, cache)
}

/// [`intersect`] after the two-sphere path.
#[inline(never)]
fn intersect_rest(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Intersection, PolycdError> {
    // A sphere against a sphere, capsule or box first, before the generic per-query work.
    if algorithm == Algorithm::Auto {
        if let Some(r) = closed::direct_intersect(a, pose_a, b, pose_b) {
            return Ok(r);
        }
    }
    let (sa, sb);
    let (pa, pb) = (checked!(pose_a, sa), checked!(pose_b, sb));
    if let Some(s) = pair_normaliser(a, pa, b, pb) {
        return on_scaled(a, pa, b, pb, s, |a, pa, b, pb, c| intersect(a, pa, b, pb, algorithm, c))
            .map(|r| r.unscaled(1.0 / s));
    }
    if algorithm == Algorithm::Auto && closed::applies(a, b) {
        if let Some(r) = closed::intersect(a, pa, b, pb) {
            return Ok(r);
        }
    }
    if rounded::is_rounded(a, b) {
        return rounded::intersect(a, pa, b, pb, algorithm, cache);
    }
    core_intersect(a, pa, b, pb, algorithm, cache)
}

/// Distance, closest points and closest features of A and B (or their penetration).
///
/// Inline in the caller, as [`intersect`].
#[inline(always)]
pub fn distance(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Distance, PolycdError> {
    // As in `intersect`: two spheres inline first, then the general path, one call.
    if algorithm == Algorithm::Auto && a.dimension() == 0 && b.dimension() == 0 {
        if let Some(d) = closed::direct_point_point_distance(a, pose_a, b, pose_b) {
            return Ok(d);
        }
    }
    distance_rest(a, pose_a, b, pose_b, algorithm, cache)
}

/// [`distance`] after the two-sphere path.
#[inline(never)]
fn distance_rest(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Distance, PolycdError> {
    if algorithm == Algorithm::Auto {
        if let Some(d) = closed::direct_distance(a, pose_a, b, pose_b) {
            return Ok(d);
        }
    }
    let (sa, sb);
    let (pa, pb) = (checked!(pose_a, sa), checked!(pose_b, sb));
    if let Some(s) = pair_normaliser(a, pa, b, pb) {
        return on_scaled(a, pa, b, pb, s, |a, pa, b, pb, c| distance(a, pa, b, pb, algorithm, c))
            .map(|r| r.unscaled(1.0 / s));
    }
    if algorithm == Algorithm::Auto && closed::applies(a, b) {
        if let Some(d) = closed::distance(a, pa, b, pb) {
            return Ok(d);
        }
    }
    if rounded::is_rounded(a, b) {
        return rounded::distance(a, pa, b, pb, algorithm, cache);
    }
    core_distance(a, pa, b, pb, algorithm, cache)
}

/// [`distance`] for callers that only need to know that two shapes overlap, not how deeply
/// (the FAST traversal descends into overlapping hull-tree nodes): a clear overlap comes back
/// as `Penetrating` with `penetration: None`, without EPA. With GJK (`Auto`, `Gjk`) that is an
/// origin enclosed by the simplex; a V-Clip penetration is handed to GJK the same way (V-Clip's
/// exact signs also see overlaps of a few ulps, which GJK's EPA then tells from touching, as
/// in [`distance`]). The other algorithms answer as [`distance`] does.
pub(crate) fn distance_or_overlap(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Distance, PolycdError> {
    let (sa, sb);
    let (pa, pb) = (checked!(pose_a, sa), checked!(pose_b, sb));
    if let Some(s) = pair_normaliser(a, pa, b, pb) {
        return on_scaled(a, pa, b, pb, s, |a, pa, b, pb, c| {
            distance_or_overlap(a, pa, b, pb, algorithm, c)
        })
        .map(|r| r.unscaled(1.0 / s));
    }
    if rounded::is_rounded(a, b) {
        return rounded::distance(a, pa, b, pb, algorithm, cache);
    }
    core_distance_or_overlap(a, pa, b, pb, algorithm, cache)
}

/// The signed translation of B along `direction` (world frame, any non-zero length) that
/// makes the shapes just touch.
pub fn directional(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    direction: DVec3,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Directional, PolycdError> {
    let (sa, sb);
    let (pa, pb) = (checked!(pose_a, sa), checked!(pose_b, sb));
    // Any finite non-zero length: scaled by its largest component before normalising, so
    // that neither 1e-200 nor 1e200 underflows or overflows in the length.
    let m = direction.abs().max_element();
    if !direction.is_finite() || !(m > 0.0) {
        return Err(PolycdError::BadDirection);
    }
    let scaled = direction / m;
    let s = scaled / scaled.length();
    if let Some(k) = pair_normaliser(a, pa, b, pb) {
        return on_scaled(a, pa, b, pb, k, |a, pa, b, pb, c| {
            directional(a, pa, b, pb, direction, algorithm, c)
        })
        .map(|r| r.unscaled(1.0 / k));
    }
    if rounded::is_rounded(a, b) {
        return rounded::directional(a, pa, b, pb, s, algorithm, cache);
    }
    let r = directional_by(a, pa, b, pb, s, algorithm, cache)?;
    settle_touching(a, pa, b, pb, s, r, cache)
}

#[cfg(all(test, not(feature = "qp-faithful")))]
mod without_qp_faithful {
    use super::*;
    use crate::shape::shapes::cuboid;

    /// Built without `qp-faithful`, `Algorithm::Qp` stays in the enum and answers
    /// `FeatureDisabled` naming the feature; the fast solver still answers.
    #[test]
    fn qp_names_the_missing_feature() {
        let a = cuboid(1.0, 1.0, 1.0).unwrap();
        let pb = Pose::from_translation(DVec3::new(3.0, 0.0, 0.0));
        let disabled = |r: Result<(), PolycdError>| {
            matches!(
                r,
                Err(PolycdError::FeatureDisabled {
                    feature: "qp-faithful",
                    ..
                })
            )
        };
        let mut c = PairCache::default();
        assert!(disabled(
            distance(&a, &Pose::IDENTITY, &a, &pb, Algorithm::Qp, &mut c).map(|_| ())
        ));
        assert!(disabled(
            intersect(&a, &Pose::IDENTITY, &a, &pb, Algorithm::Qp, &mut c).map(|_| ())
        ));
        let d = distance(&a, &Pose::IDENTITY, &a, &pb, Algorithm::QpFast, &mut c).unwrap();
        assert!((d.signed_distance().unwrap() - 2.0).abs() < 1e-12);
    }
}
