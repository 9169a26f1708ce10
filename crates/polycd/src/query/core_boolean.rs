//! The boolean question on the cores ([`super::intersect`] after validation, rescaling and the
//! rounded-shape switch): each algorithm's answer, and the contact-band checks that make the
//! answers of the purely boolean algorithms (CD-Dual, HS-jump), the convex program and V-Clip
//! agree on "touching" (GJK measures the pair when their own certificate cannot rule contact
//! out).

use super::{Algorithm, PairCache};
use crate::contract::{
    contact_tolerance, contact_tolerance_bound, Feature, FeaturePair, Intersection, MinkowskiSimplex, OverlapWitness,
};
use crate::core::error::PolycdError;
use crate::core::math::{DVec3, Pose};
use crate::shape::polyhedron::ConvexPolyhedron;
use crate::{cd_dual, gjk, hs_jump, qp, vclip};
use std::cell::RefCell;

/// [`intersect`] for the cores (radii ignored), on validated poses in the safe band.
pub(super) fn core_intersect(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Intersection, PolycdError> {
    match algorithm {
        // Two small solids: HS-jump, whose first candidate usually settles a separated pair
        // in one support (see [`small_solids`]), cold, on the thread's scratch cache.
        Algorithm::Auto if small_solids(a, b) => small_hs_jump_intersect(a, pa, b, pb, cache),
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
        Algorithm::HsJump => hs_jump_intersect(a, pa, b, pb, cache),
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

/// Hulls of at most this many vertices each (both solid, no radius) take HS-jump for the
/// `Auto` boolean: a few contiguous scans per support and, for a separated pair, usually one
/// candidate, against GJK's several iterations with the sub-algorithm's bookkeeping
/// (callgrind, `examples/narrow_profile.rs`, instructions per query, GJK → HS-jump: cube pair
/// near contact apart 4 860 → 1 330, overlapping 5 870 → 5 560; icosahedron pair 5 730 →
/// 3 940 and 6 280 → 5 500). Not a tolerance: a cost threshold, the support scan's
/// (`shape::tables::SMALL_SCAN`).
const AUTO_HS_JUMP_MAX_VERTICES: usize = crate::shape::tables::SMALL_SCAN;

/// Whether the `Auto` boolean of `a` and `b` is HS-jump's (see [`AUTO_HS_JUMP_MAX_VERTICES`]).
#[inline]
fn small_solids(a: &ConvexPolyhedron, b: &ConvexPolyhedron) -> bool {
    a.vertices().len() <= AUTO_HS_JUMP_MAX_VERTICES
        && b.vertices().len() <= AUTO_HS_JUMP_MAX_VERTICES
        && a.dimension() == 3
        && b.dimension() == 3
        && a.radius == 0.0
        && b.radius == 0.0
}

thread_local! {
    /// The HS-jump state of `Auto`'s small-solid booleans: one per thread, forgotten before
    /// each query (a cold start), its scratch reserved once for the largest small pair
    /// (`AUTO_HS_JUMP_MAX_VERTICES`², ≈ 20 KB). Not in the pair's cache: HS-jump's scratch
    /// grows with the vertex pairs a query meets, and kilobytes per pair would multiply by the
    /// candidate pairs a `broad::World` keeps (10⁵ and more), where GJK's state is a few
    /// hundred bytes.
    static SMALL_HS_JUMP: RefCell<hs_jump::HsJumpCache> = RefCell::new({
        let mut c = hs_jump::HsJumpCache::default();
        c.reserve_for(AUTO_HS_JUMP_MAX_VERTICES, AUTO_HS_JUMP_MAX_VERTICES);
        c
    });
}

/// `Auto`'s boolean of two small solids: HS-jump, cold, on the thread's [`SMALL_HS_JUMP`],
/// with the contact-band measurement (in the pair's cache) when its own certificate cannot
/// rule contact out.
fn small_hs_jump_intersect(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut PairCache,
) -> Result<Intersection, PolycdError> {
    let run = |hs: &mut hs_jump::HsJumpCache| {
        hs.forget();
        hs_jump_clear(a, pa, b, pb, hs)
    };
    let (r, clear) = SMALL_HS_JUMP.with(|c| match c.try_borrow_mut() {
        Ok(mut hs) => run(&mut hs),
        // Not reached (nothing re-enters while HS-jump runs); a fresh state answers alike.
        Err(_) => run(&mut hs_jump::HsJumpCache::default()),
    })?;
    if clear {
        return Ok(r);
    }
    refine_contact(a, pa, b, pb, r, cache)
}

/// HS-jump's boolean with the contact-band measurement when its own certificate cannot rule
/// contact out.
fn hs_jump_intersect(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut PairCache,
) -> Result<Intersection, PolycdError> {
    let (r, clear) = hs_jump_clear(a, pa, b, pb, cache.hs_jump.get_or_default())?;
    if clear {
        return Ok(r);
    }
    refine_contact(a, pa, b, pb, r, cache)
}

/// HS-jump's boolean on `hs`, and whether its own certificate rules contact out: as for
/// CD-Dual, a plane margin or certificate depth beyond twice the contact tolerance (the
/// rotation-free bound of the tolerance decides the common far case); otherwise the caller
/// measures the pair.
fn hs_jump_clear(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    hs: &mut hs_jump::HsJumpCache,
) -> Result<(Intersection, bool), PolycdError> {
    let r = hs_jump::intersect(a, pa, b, pb, hs)?;
    let clear = matches!(r, Intersection::Disjoint { .. } | Intersection::Overlapping { .. })
        && (hs.clears(2.0 * contact_tolerance_bound(a, pa, b, pb)) || hs.clears(2.0 * contact_tolerance(a, pa, b, pb)));
    Ok((r, clear))
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
pub(super) fn refine_contact(
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
        // point) is not independently checkable; GJK's Minkowski simplex is. A simplex
        // witness in the band (the convex program's weights put the origin in it only to the
        // program's rounding: 1e-11 of the scale outside on slab-thin triangle pairs) gives
        // way to GJK's enclosing one too.
        Intersection::Overlapping { witness, .. }
            if matches!(
                r,
                Intersection::Overlapping {
                    witness: OverlapWitness::Features { .. } | OverlapWitness::Simplex(_),
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
pub(super) fn separation_margin(
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
