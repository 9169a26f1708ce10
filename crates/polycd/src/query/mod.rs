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
//! `rounded.rs` turns their answers into the rounded shapes' (see its header).

use crate::contract::{checked_pose, contact_tolerance_bound, pose_ok};
pub use crate::contract::{
    contact_tolerance, pair_scale, Directional, Distance, Feature, FeaturePair, Intersection, MinkowskiSimplex,
    OverlapWitness, Penetration, Status,
};
pub use crate::contract::{point_contact_tolerance, Containment, PointAnswer, RayHit};
use crate::core::error::PolycdError;
use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::{GRAZING_COS, QP_CHECK_REL};
use crate::shape::polyhedron::ConvexPolyhedron;
use crate::{cd_dual, gjk, hs_jump, qp, vclip};

mod manifold;
mod many;
mod probe;
mod probe_exact;
mod probe_flat;
mod rescale;
mod rounded;
pub use crate::contract::{ContactManifold, ContactPoint, ManifoldKind, ManifoldOptions};
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
pub enum Algorithm {
    /// The recommended algorithm for each question: GJK (boolean; distance with EPA depth;
    /// directional by ray casting).
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
pub fn intersect(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Intersection, PolycdError> {
    let (sa, sb);
    let (pa, pb) = (checked!(pose_a, sa), checked!(pose_b, sb));
    if let Some(s) = pair_normaliser(a, pa, b, pb) {
        return on_scaled(a, pa, b, pb, s, |a, pa, b, pb, c| intersect(a, pa, b, pb, algorithm, c))
            .map(|r| r.unscaled(1.0 / s));
    }
    if rounded::is_rounded(a, b) {
        return rounded::intersect(a, pa, b, pb, algorithm, cache);
    }
    core_intersect(a, pa, b, pb, algorithm, cache)
}

/// [`intersect`] for the cores (radii ignored), on validated poses in the safe band.
fn core_intersect(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Intersection, PolycdError> {
    match algorithm {
        Algorithm::Auto | Algorithm::Gjk => gjk::intersect(a, pa, b, pb, &mut cache.gjk),
        Algorithm::VClip => {
            vclip::supports(a, b)?;
            let r = vclip::intersect(a, pa, b, pb, &mut cache.vclip);
            vclip_depth_check(a, pa, b, pb, r, cache)
        }
        Algorithm::CdDual => {
            let out = cd_dual::intersect(a, pa, b, pb, cache.cd_dual.get_or_default())?;
            let r = out.intersection;
            // CD-Dual's separating plane supports `M`, so it knows its own margin, and its
            // common point carries a certified depth bound (interior points of known depth
            // mixed with points of the shapes): its `clearance`. Far outside the contact band
            // (twice the tolerance, far beyond rounding) the support queries or O(faces) depth
            // scans that would re-measure it are skipped, with the same answer. The
            // rotation-free upper bound of the tolerance decides the common far case (a
            // clearance beyond twice the bound is beyond twice the tolerance).
            let known = out.clearance.unwrap_or(f64::NAN);
            if known > 2.0 * contact_tolerance_bound(a, pa, b, pb) || known > 2.0 * contact_tolerance(a, pa, b, pb) {
                return Ok(r);
            }
            refine_contact(a, pa, b, pb, r, cache)
        }
        Algorithm::HsJump => {
            let hs = cache.hs_jump.get_or_default();
            let r = hs_jump::intersect(a, pa, b, pb, hs)?;
            // As for CD-Dual: HS-jump's plane margin or certificate depth, when beyond twice
            // the contact tolerance, already rules out contact; the measurement is skipped
            // (the rotation-free bound of the tolerance decides the common far case).
            if matches!(r, Intersection::Disjoint { .. } | Intersection::Overlapping { .. })
                && (hs.clears(2.0 * contact_tolerance_bound(a, pa, b, pb))
                    || hs.clears(2.0 * contact_tolerance(a, pa, b, pb)))
            {
                return Ok(r);
            }
            refine_contact(a, pa, b, pb, r, cache)
        }
        // The convex program's optimum is the distance, 0 for every overlapping pair: it
        // cannot tell touching from overlapping by itself, and on slender shapes its optimum
        // carries more rounding than the contact band is wide. Its answers near contact are
        // measured as the boolean algorithms' are.
        Algorithm::Qp => {
            let r = qp::intersect_faithful(a, pa, b, pb)?;
            refine_contact(a, pa, b, pb, r, cache)
        }
        Algorithm::QpFast => {
            let r = qp::intersect_fast(a, pa, b, pb, &mut cache.qp)?;
            refine_contact(a, pa, b, pb, r, cache)
        }
    }
}

/// V-Clip proves penetration exactly (intersecting features), but its witness says nothing
/// of the depth: touching shapes whose rounded world coordinates overlap by a few ulps are
/// "penetrating" to V-Clip and "touching" to every other answer (and to V-Clip's own
/// distance query, whose depth EPA measures). Every V-Clip overlap is therefore checked for
/// depth: an edge crossing a face well inside it certifies the depth itself
/// ([`edge_face_depth_bound`]); any other witness is checked by boolean GJK (warm from the
/// pair cache; a deep overlap ends at its first enclosing tetrahedron). V-Clip's witness is
/// kept unless GJK finds the pair within the contact tolerance, when GJK's touching answer
/// (point and plane) is returned.
fn vclip_depth_check(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    r: Intersection,
    cache: &mut PairCache,
) -> Result<Intersection, PolycdError> {
    let Intersection::Overlapping { witness, .. } = &r else {
        return Ok(r);
    };
    // An edge crossing a face well inside it proves a depth of its own (no GJK needed); the
    // rotation-free upper bound of the tolerance keeps the common case cheap.
    if let OverlapWitness::Features { features, .. } = witness {
        if let Some(depth) = edge_face_depth_bound(a, pose_a, b, pose_b, *features) {
            if depth > 2.0 * contact_tolerance_bound(a, pose_a, b, pose_b) {
                return Ok(r);
            }
        }
    }
    match gjk::intersect(a, pose_a, b, pose_b, &mut cache.gjk)? {
        t @ Intersection::Touching { .. } => Ok(t.with_iterations(r.iterations())),
        // Overlapping beyond the tolerance (V-Clip's feature witness is the better
        // certificate), or a GJK answer that contradicts V-Clip's exact one: keep V-Clip's.
        _ => Ok(r),
    }
}

/// A lower bound on the penetration depth from an edge of one shape crossing a face of the
/// other (`None` for other witnesses, or when the edge does not cross the face's interior).
/// With the edge's ends at signed distances `d_t < 0 < d_h` from the face's plane, crossing
/// it at `p`, `m` in from the face's border, and `cos` the cosine between the edge and the
/// face normal: a translation `u` of B with `|u| < min(−d_t, d_h)` keeps the ends on their
/// sides, and moves the crossing point within the plane by at most `|u|·(1 + 1/cos)`; below
/// `m·cos / (1 + cos)` it stays inside the face, so the edge still pierces the face's
/// interior and the interiors overlap. The depth is thus at least the smaller of the two.
/// Rounding moves each term by a few ulps of the pair scale, far below the twice-the-tolerance
/// margin the caller demands.
fn edge_face_depth_bound(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    features: FeaturePair,
) -> Option<f64> {
    let (fp, fpose, f, ep, epose, e) = match (features.a, features.b) {
        (Feature::Face(f), Feature::Edge(e)) => (a, pose_a, f, b, pose_b, e),
        (Feature::Edge(e), Feature::Face(f)) => (b, pose_b, f, a, pose_a, e),
        _ => return None,
    };
    // The edge in the face's frame.
    let rel = fpose.relative(epose);
    let [t, h] = ep.edge(e).vertices;
    let (t, h) = (rel.transform_point(ep.vertex(t)), rel.transform_point(ep.vertex(h)));
    let plane = fp.face_plane(f);
    let (dt, dh) = (plane.signed_distance(t), plane.signed_distance(h));
    if !((dt < 0.0 && dh > 0.0) || (dt > 0.0 && dh < 0.0)) {
        return None;
    }
    let reach = dt.abs().min(dh.abs());
    let dir = h - t;
    let p = t + dir * (dt / (dt - dh));
    let n = plane.normal;
    // In-plane distance of p from each border edge (faces are counter-clockwise seen from
    // outside, so the interior is to the left of each edge: positive).
    let fv = fp.face_vertices(f);
    let mut inner = f64::INFINITY;
    for (k, &v) in fv.iter().enumerate() {
        let u = fp.vertex(v);
        let w = fp.vertex(fv[(k + 1) % fv.len()]);
        let side = w - u;
        inner = inner.min(side.cross(p - u).dot(n) / side.length());
    }
    if !(inner > 0.0) {
        return None;
    }
    let cos = n.dot(dir).abs() / dir.length();
    let depth = reach.min(inner * cos / (1.0 + cos));
    depth.is_finite().then_some(depth)
}

/// Purely boolean algorithms (CD-Dual, HS-jump) certify "disjoint" or "overlapping" but do
/// not measure how far from contact a pair is. When their own witness cannot rule out
/// contact — a separating plane with margin within the contact tolerance, or an overlap
/// certificate that does not show a depth beyond it — the pair is in the contact band and its
/// signed distance is measured (GJK, with EPA when overlapping) to tell "touching" apart.
/// Outside the band the algorithm's answer is returned untouched, at no extra cost.
fn refine_contact(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    r: Intersection,
    cache: &mut PairCache,
) -> Result<Intersection, PolycdError> {
    let tol = contact_tolerance(a, pose_a, b, pose_b);
    let near = match &r {
        Intersection::Disjoint { plane, .. } => separation_margin(a, pose_a, b, pose_b, plane.normal) <= tol,
        Intersection::Overlapping {
            witness: OverlapWitness::Simplex(s),
            ..
        } => simplex_depth(a, pose_a, b, pose_b, s) <= tol,
        // A point inside both shapes at depth r in each: the overlap holds a ball of radius r,
        // so no translation shorter than r separates them.
        Intersection::Overlapping {
            witness: OverlapWitness::CommonPoint(p),
            ..
        } => point_depth(a, pose_a, *p).min(point_depth(b, pose_b, *p)) <= tol,
        Intersection::Overlapping { .. } => true,
        // HS-jump gives up when its spherical polygon is thinner than rounding: in the contact
        // band, or when supporting vectors are nearly coplanar with the origin (concentric
        // symmetric shapes). Measure, and answer with GJK's certified result.
        Intersection::NotConverged { .. } => true,
        // CD-Dual's touching certificate is a supporting plane of M within the band; its
        // contact point (between two support vertices) need not lie on either shape, so the
        // pair is measured and GJK's contact point is reported.
        Intersection::Touching { .. } => true,
    };
    if !near {
        return Ok(r);
    }
    let iterations = r.iterations();
    // GJK measures the pair; in the contact band it reports `Touching` with a plane built
    // from its corrected nearest point (accurate where closest-point differences are not).
    match gjk::intersect(a, pose_a, b, pose_b, &mut cache.gjk)? {
        Intersection::Touching { point, plane, .. } => Ok(Intersection::Touching {
            point,
            plane,
            iterations,
        }),
        // CD-Dual's fallback witness on merged faces (generating features and an approximate
        // point) is not independently checkable; GJK's Minkowski simplex is.
        Intersection::Overlapping { witness, .. }
            if matches!(
                r,
                Intersection::Overlapping {
                    witness: OverlapWitness::Features { .. },
                    ..
                }
            ) =>
        {
            Ok(Intersection::Overlapping { witness, iterations })
        }
        // The algorithm's touching plane is within the band; GJK's measurement decides.
        g @ (Intersection::Overlapping { .. } | Intersection::Disjoint { .. })
            if matches!(r, Intersection::Touching { .. } | Intersection::NotConverged { .. }) =>
        {
            Ok(g.with_iterations(iterations))
        }
        _ => Ok(r),
    }
}

/// `min_B n·b − max_A n·a` in the world frame: positive when `n` separates A below from B above.
pub(crate) fn separation_margin(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    n: DVec3,
) -> f64 {
    let na = pose_a.inverse_transform_vector(n);
    let nb = pose_b.inverse_transform_vector(-n);
    // The direction table's start and a short climb: a third of the hierarchy's cost.
    let pa = pose_a.transform_point(a.vertex(a.support_climb_hinted(na, u32::MAX)));
    let pb = pose_b.transform_point(b.vertex(b.support_climb_hinted(nb, u32::MAX)));
    n.dot(pb) - n.dot(pa)
}

/// How deep a world point lies inside a shape (negative outside): the least distance below its
/// face planes. O(F).
fn point_depth(p: &ConvexPolyhedron, pose: &Pose, x: DVec3) -> f64 {
    if p.dimension() < 3 {
        // A point, segment or polygon has no interior: always measured.
        return 0.0;
    }
    let local = pose.inverse_transform_point(x);
    // Four independent running minima (min is exact and associative: the same value as a
    // single fold) so the scan is not one long dependency chain.
    let faces = p.faces();
    let mut m = [f64::INFINITY; 4];
    let mut chunks = faces.chunks_exact(4);
    for c in &mut chunks {
        for (mk, f) in m.iter_mut().zip(c) {
            *mk = mk.min(f.offset - f.normal.dot(local));
        }
    }
    let rest = chunks
        .remainder()
        .iter()
        .fold(f64::INFINITY, |m, f| m.min(f.offset - f.normal.dot(local)));
    m[0].min(m[1]).min(m[2].min(m[3])).min(rest)
}

/// A lower bound on the penetration depth from a Minkowski simplex containing the origin:
/// the origin's distance to the simplex's boundary (0 unless it is a full tetrahedron).
fn simplex_depth(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    s: &MinkowskiSimplex,
) -> f64 {
    if s.len != 4 {
        return 0.0;
    }
    let p = s
        .pairs
        .map(|(i, j)| pose_a.transform_point(a.vertex(i)) - pose_b.transform_point(b.vertex(j)));
    crate::core::geometry::tetrahedron_depth(p)
}

/// Distance, closest points and closest features of A and B (or their penetration).
pub fn distance(
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
        return on_scaled(a, pa, b, pb, s, |a, pa, b, pb, c| distance(a, pa, b, pb, algorithm, c))
            .map(|r| r.unscaled(1.0 / s));
    }
    if rounded::is_rounded(a, b) {
        return rounded::distance(a, pa, b, pb, algorithm, cache);
    }
    core_distance(a, pa, b, pb, algorithm, cache)
}

/// [`distance`] for the cores (radii ignored), on validated poses in the safe band.
fn core_distance(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Distance, PolycdError> {
    let d = match algorithm {
        // GJK measures the depth itself (EPA) and is the fastest distance answer without
        // coherence; V-Clip is the choice for coherent sequences.
        Algorithm::Auto | Algorithm::Gjk => return gjk::distance(a, pa, b, pb, &mut cache.gjk),
        Algorithm::VClip => return vclip_distance(a, pa, b, pb, cache),
        Algorithm::Qp => qp::distance_faithful(a, pa, b, pb)?,
        Algorithm::QpFast => qp::distance_fast(a, pa, b, pb, &mut cache.qp)?,
        Algorithm::CdDual | Algorithm::HsJump => {
            return Err(PolycdError::Unsupported {
                algorithm: algorithm.name(),
                query: "distance",
            })
        }
    };
    // The convex program's touching answer names no exact features (see ContactPoints).
    complete_penetration(a, pa, b, pb, d, ContactPoints::FromGjk, cache)
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
    match algorithm {
        Algorithm::Auto | Algorithm::Gjk => gjk::distance_or_overlap(a, pa, b, pb, &mut cache.gjk),
        Algorithm::VClip => match vclip::supports(a, b).map(|()| vclip::distance(a, pa, b, pb, &mut cache.vclip))? {
            vclip::Checked::Clear(d) => Ok(d),
            vclip::Checked::Unsettled(Distance::Penetrating { .. }) => {
                gjk::distance_or_overlap(a, pa, b, pb, &mut cache.gjk)
            }
            vclip::Checked::Unsettled(d) => complete_penetration(a, pa, b, pb, d, ContactPoints::Own, cache),
        },
        _ => distance(a, pa, b, pb, algorithm, cache),
    }
}

/// V-Clip's distance answer, completed by [`complete_penetration`] unless V-Clip found the
/// pair beyond the tolerance bound already (its common case). V-Clip's iteration is inlined
/// here, so the answer is built in place rather than copied into the result.
#[inline(never)]
fn vclip_distance(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    cache: &mut PairCache,
) -> Result<Distance, PolycdError> {
    vclip::supports(a, b)?;
    match vclip::distance(a, pose_a, b, pose_b, &mut cache.vclip) {
        // Beyond the tolerance bound (V-Clip compared it already): nothing to complete.
        vclip::Checked::Clear(d) => Ok(d),
        vclip::Checked::Unsettled(d) => complete_penetration(a, pose_a, b, pose_b, d, ContactPoints::Own, cache),
    }
}

/// Whose closest points a touching answer keeps ([`complete_penetration`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum ContactPoints {
    /// The algorithm's own (V-Clip's exact features).
    Own,
    /// GJK's, and the answer is checked in the wider band [`QP_CHECK_REL`] (the convex
    /// program): within the contact tolerance the program's optimum is degenerate, and
    /// Wolfe's barycentric points may lie anywhere on the set of near-closest pairs — along a
    /// nearly parallel edge and face that is a long strip (differential seed 68, pair 179: 70
    /// units from the contact at scale 1e6, 4.9e-9 apart, where no feature normal proves the
    /// distance). GJK's touching answer is built from the contact's supporting features. The
    /// measurement is the one already made to tell touching from overlapping.
    FromGjk,
}

/// V-Clip reports penetration by witness features and the convex program by a zero distance;
/// neither measures the depth. For overlapping (or zero-distance) answers the depth is
/// measured by EPA (in [`gjk`]), so every distance answer carries a signed distance, and a
/// zero distance that hides an overlap deeper than the contact tolerance is reported as the
/// penetration it is.
fn complete_penetration(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    d: Distance,
    points: ContactPoints,
    cache: &mut PairCache,
) -> Result<Distance, PolycdError> {
    // Clearly separated answers (the common case of coherent sequences) skip the exact
    // tolerance: an upper bound of it needs no rotation. The convex program's distance is
    // checked in a wider band ([`QP_CHECK_REL`]).
    let band = |tol: f64| {
        if points == ContactPoints::FromGjk {
            tol.max(QP_CHECK_REL * pair_scale(a, pose_a, b, pose_b))
        } else {
            tol
        }
    };
    if let Distance::Separated { distance, .. } = d {
        if distance > band(contact_tolerance_bound(a, pose_a, b, pose_b)) {
            return Ok(d);
        }
    }
    let tol = contact_tolerance(a, pose_a, b, pose_b);
    match d {
        Distance::Penetrating {
            witness,
            penetration: None,
            iterations,
        } => {
            match gjk::distance(a, pose_a, b, pose_b, &mut cache.gjk)? {
                Distance::Penetrating {
                    penetration: Some(p), ..
                } => Ok(Distance::Penetrating {
                    witness,
                    penetration: Some(p),
                    iterations,
                }),
                // No overlap beyond the contact tolerance (touching shapes whose rounded
                // coordinates overlap by a few ulps, which V-Clip's exact signs see): the
                // pair touches, and GJK's closest points and features say where.
                g @ Distance::Separated { distance, .. } if distance <= tol => Ok(g.with_iterations(iterations)),
                // GJK contradicts the exact witness or does not converge: the witness stands.
                _ => Ok(d),
            }
        }
        Distance::Separated {
            distance, iterations, ..
        } if distance <= band(tol) => match gjk::distance(a, pose_a, b, pose_b, &mut cache.gjk)? {
            Distance::Penetrating {
                witness,
                penetration: Some(p),
                ..
            } if p.relative_depth > tol => Ok(Distance::Penetrating {
                witness,
                penetration: Some(p),
                iterations,
            }),
            g @ (Distance::Separated { .. } | Distance::Penetrating { .. })
                if points == ContactPoints::FromGjk && g.status(tol) == Status::Touching =>
            {
                Ok(g.with_iterations(iterations))
            }
            _ => Ok(d),
        },
        other => Ok(other),
    }
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

/// The directional answer of `algorithm` (unit direction `s`), before [`settle_touching`].
fn directional_by(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Directional, PolycdError> {
    match algorithm {
        Algorithm::CdDual => {
            let r = cd_dual::directional(a, pa, b, pb, s, cache.cd_dual.get_or_default())?;
            // A chord end on a face of M parallel to s is no end: the line grazes that face
            // (B slides along A), where the face pick and t = k / (N·s) are rounding noise.
            // Such answers, and non-convergence, are settled by GJK's ray casts.
            let grazing = |r: &Directional| match r {
                Directional::Contact { plane, .. } => plane.normal.dot(s).abs() <= GRAZING_COS,
                Directional::NotConverged { .. } => true,
                Directional::Never { .. } => false,
            };
            if grazing(&r) {
                let g = gjk::directional(a, pa, b, pb, s, &mut cache.gjk)?;
                return Ok(g.with_iterations(g.iterations().saturating_add(r.iterations())));
            }
            Ok(r)
        }
        // Two GJK ray casts: an order of magnitude faster than CD-Dual's two full searches.
        Algorithm::Auto | Algorithm::Gjk => gjk::directional(a, pa, b, pb, s, &mut cache.gjk),
        _ => Err(PolycdError::Unsupported {
            algorithm: algorithm.name(),
            query: "directional",
        }),
    }
}

/// The contract says `t = 0` when the shapes touch where they are. The line's chord through
/// `M = A − B` does not show that by itself: B sliding along a face of A (the line lies in
/// a face of `M`) has a chord `[lo, hi]` around 0 with both ends far away, and a line that
/// meets `M` only at the touching point (vertex on vertex, the direction pointing out of
/// both) is a miss to rounding. So a pair that is not certainly apart at `t = 0` — no chord,
/// a chord around 0, or a contact plane whose gap at `t = 0` (`−t·n·s`, a separating-plane
/// bound on the distance) is within the contact tolerance — is asked once more, by GJK's
/// boolean test (early exits: cheap when clearly apart or clearly overlapping); if it
/// touches, the answer is `t = 0` with its contact plane.
fn settle_touching(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: DVec3,
    r: Directional,
    cache: &mut PairCache,
) -> Result<Directional, PolycdError> {
    let tol = contact_tolerance(a, pa, b, pb);
    let check = match &r {
        Directional::Never { .. } => true,
        Directional::Contact { t, plane, .. } => t.abs() > tol && -t * plane.normal.dot(s) <= tol,
        Directional::NotConverged { .. } => false,
    };
    if !check {
        return Ok(r);
    }
    match gjk::intersect(a, pa, b, pb, &mut cache.gjk)? {
        Intersection::Touching { plane, iterations, .. } => Ok(Directional::Contact {
            t: 0.0,
            plane,
            iterations: r.iterations().saturating_add(iterations),
        }),
        _ => Ok(r),
    }
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
