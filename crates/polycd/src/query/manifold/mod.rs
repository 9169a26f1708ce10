//! Contact manifolds: the contact region of two convex shapes — the normal and the contact
//! points a physics engine or grasp planner needs — built on the exact closest features and
//! penetration witnesses of [`super::distance`].
//!
//! Outline ([`contact_manifold`]):
//! 0. Fast paths (same answers): the bounding spheres' centres farther apart than both core
//!    radii plus the margin and the contact and face tolerances (no per-pair state read); then
//!    the last frame's normal or separating direction (kept in the cache, A's frame; `sat.rs`)
//!    re-checked — separating the cores by more than the same threshold, the pair is apart
//!    and has no manifold; two
//!    small overlapping solids (box pairs) get `s` and `n` from a separating-axis test over
//!    face normals and Gauss-map-pruned edge pairs, the exact penetration EPA computes.
//! 1. The cores' signed distance `s` and contact normal `n` (A toward B) as the rounded
//!    distance measures them (GJK, EPA when overlapping; the normal never from two nearly
//!    coincident points: see `rounded.rs`). A pair whose (rounded) signed distance exceeds
//!    the margin plus the contact tolerance has no manifold.
//! 2. Contact faces: A's face best aligned with `n` and B's best aligned with `−n` (a face
//!    among the closest features first). A face is a *contact face* when its separating-axis
//!    separation — how far the other shape lies above its plane — equals `s` within
//!    [`MANIFOLD_FACE_REL`] of the pair scale: the contact then lies in its plane. With no
//!    contact face (crossing edges, a vertex on an edge, segments and points) the manifold is
//!    one point: the closest points, or the penetration witnesses.
//! 3. Face contact: the reference face is the contact face better aligned with `n` (ties,
//!    within [`MANIFOLD_TIE_COS`], to A's); its outward normal is the manifold's normal (minus
//!    it for B's). The incident face — the other shape's face most opposed to the reference
//!    normal (a segment's edge, a point's vertex) — is clipped by the reference face's side
//!    planes (Sutherland–Hodgman; a point within [`MANIFOLD_CLIP_REL`] of a side plane is on
//!    it). Each clipped point `p` (on the incident face) has separation `N·p − offset` above
//!    the reference plane and is kept when that is at most the margin plus the contact
//!    tolerance; its pair is `p` and its projection on the reference plane, on one line along
//!    the normal. Its features follow from the clip: an incident vertex (reference face,
//!    vertex), an incident edge cut by a side plane (reference edge, incident edge), a
//!    reference corner inside the incident face (reference vertex, incident face). If no point
//!    survives, the single-point answer is given.
//! 4. Points counter-clockwise around the normal; with `reduce`, at most four: the deepest,
//!    the farthest from it, then the two spanning the largest triangles on either side.
//! 5. Rounded shapes: the cores' manifold with the margin grown by `R = r_A + r_B`, each
//!    point moved out along the normal by its radius and its separation less `R`.
//!
//! Everything is computed in A's frame (far offsets cost no precision in the clip) and mapped
//! to the world at the end. [`ManifoldCache`] holds the pair cache, the warm-start axis and
//! the manifold: in steady state a query allocates nothing; it also matches each point to the
//! last frame's by feature pair (the last manifold's own points), so ids persist for
//! warm-started impulses. The clip's and the separating-axis search's buffers, and the copy of
//! the last frame's ids, are (like EPA's) one set per thread, not per pair (`CLIP_SCRATCH`): a
//! scene of thousands of pairs then writes one warm set instead of a cold set per pair, and a
//! pair's cache keeps its per-query fields together (measured: the many-body scene's
//! data-cache misses a query 50.5 → 36.1 → 26.6, BENCHMARKS.md "Contact manifolds").
//!
//! Modules: `clip` (step 3's clip), `features` (supports, feature pairs, the reduction, the
//! parallel segments), `sat` (step 0).
//!
//! Loops: the clip runs once per side plane of the reference face over at most
//! `incident + reference` vertices; the face scans are over the shapes' faces; every loop is
//! bounded by the shapes' sizes.

use super::rescale::{on_scaled, pair_normaliser};
use super::{core_distance, rounded, Algorithm, PairCache};
use crate::contract::{
    checked_pose, pair_scale, pair_scale_and_centre_distance, pose_ok, ContactManifold, ContactPoint, Distance,
    Feature, FeaturePair, Intersection, ManifoldKind, ManifoldOptions,
};
use crate::core::error::PolycdError;
use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::{
    CONTACT_REL, MANIFOLD_CLIP_REL, MANIFOLD_FACE_REL, MANIFOLD_SAT_DEPTH_REL, MANIFOLD_TIE_COS,
};
use crate::gjk;
use crate::shape::polyhedron::ConvexPolyhedron;
use clip::{clip_face, Scratch};
use features::{along, face_at_support, parallel_segments, reduce, support_feature};
use sat::Warm;
use std::cell::RefCell;

mod clip;
mod features;
mod sat;

thread_local! {
    /// The thread's clip buffers: every query clears them before use, so which set a query
    /// uses cannot change its answer, and a scene of thousands of pairs reuses one warm set
    /// instead of touching a cold set per pair. A [`ManifoldCache`]'s own buffers are the
    /// fallback while the thread's are unavailable (a thread being torn down).
    static CLIP_SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// A pair's contact-manifold state: the [`PairCache`] of its distance queries, the last
/// frame's axis, the last manifold, and the ids of its points (the clip buffers it holds are
/// only the fallback for the thread's). One per pair, reused frame after frame (no
/// allocation in steady state).
///
/// Layout (`repr(C)`, declaration order, 64-byte aligned, four cache lines): the fields every
/// query touches — the warm axis and hints, the flags — in the first line, then the
/// manifold's header, the distance queries' state (touched only by pairs that reach GJK) and
/// the fallback buffers (boxed, created only if ever needed): a scene of thousands of pairs
/// then reads one cache line of an apart pair's cache instead of lines spread over the
/// whole struct. The last frame's ids are the last manifold's own
/// points (no second list per pair: a query copies their feature pairs and ids into the
/// thread's scratch before it overwrites them).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct ManifoldCache {
    warm: Warm,
    /// Whether `manifold` holds the last query's answer (its points' feature pairs and ids
    /// are what the next query matches against).
    present: bool,
    next_id: u32,
    manifold: ContactManifold,
    /// The distance queries' warm-start state.
    pub pair: PairCache,
    /// The fallback clip buffers, created on first use (only while the thread's are
    /// unavailable): not inline, so that a pair's cache stays four cache lines.
    scratch: Option<Box<Scratch>>,
}

impl Default for ManifoldCache {
    fn default() -> Self {
        ManifoldCache {
            pair: PairCache::default(),
            scratch: None,
            warm: Warm::default(),
            manifold: ContactManifold {
                normal: DVec3::Z,
                kind: ManifoldKind::Point,
                points: Vec::new(),
            },
            present: false,
            next_id: 0,
        }
    }
}

impl ManifoldCache {
    /// The last manifold computed (`None` when the pair was apart beyond the margin).
    pub fn manifold(&self) -> Option<&ContactManifold> {
        self.present.then_some(&self.manifold)
    }

    /// Forgets the warm-start state and the last frame's points (ids start afresh), keeping
    /// the buffers' capacity.
    pub fn forget(&mut self) {
        self.pair.forget();
        self.warm.forget();
        self.present = false;
        self.next_id = 0;
    }
}

/// Matches the points of the new manifold `m` to the last frame's (`last`: their feature
/// pairs and ids, in order) by feature pair — each old point at most once, first come first
/// served — and assigns ids (new ones from `next_id`). `used` is scratch.
fn persist(m: &mut ContactManifold, last: &[(FeaturePair, u32)], used: &mut Vec<bool>, next_id: &mut u32) {
    used.clear();
    used.resize(last.len(), false);
    for q in m.points.iter_mut() {
        let hit = last
            .iter()
            .enumerate()
            .position(|(j, (f, _))| !used[j] && *f == q.features);
        match hit {
            Some(j) => {
                used[j] = true;
                q.id = last[j].1;
                q.previous = Some(j as u32);
            }
            None => {
                q.id = *next_id;
                *next_id = next_id.wrapping_add(1);
                q.previous = None;
            }
        }
    }
}

/// The contact manifold of A (at `pose_a`) and B (at `pose_b`), or `None` when they are apart
/// by more than `options.margin` (plus the contact tolerance). See the module header for the
/// construction; the answer is kept in `cache` (returned borrowed), its points' ids matched to
/// the last answer's in the same cache.
///
/// Errors: a negative or non-finite margin ([`PolycdError::InvalidOption`] naming `margin`),
/// bad poses, and a distance measurement that did not converge
/// ([`PolycdError::NotConverged`]).
pub fn contact_manifold<'c>(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    options: &ManifoldOptions,
    cache: &'c mut ManifoldCache,
) -> Result<Option<&'c ContactManifold>, PolycdError> {
    if !(options.margin.is_finite() && options.margin >= 0.0) {
        return Err(PolycdError::InvalidOption {
            name: "margin",
            message: "the margin must be a finite number ≥ 0",
        });
    }
    let (sa, sb);
    let pa = if pose_ok(pose_a) {
        pose_a
    } else {
        sa = checked_pose(pose_a)?;
        &sa
    };
    let pb = if pose_ok(pose_b) {
        pose_b
    } else {
        sb = checked_pose(pose_b)?;
        &sb
    };
    // In the safe band: the pair scale, and the bounding spheres' test (no per-pair state but
    // the flag read; no thread-local, no scratch): apart beyond the margin when the centres'
    // distance less both core radii — a lower bound of the cores' distance, rounding ~1e-15 ×
    // scale, inside the face tolerance — exceeds [`apart_threshold`].
    let normaliser = pair_normaliser(a, pa, b, pb);
    let mut in_band_scale = 0.0;
    if normaliser.is_none() {
        let (scale, centre_distance) = pair_scale_and_centre_distance(a, pa, b, pb);
        if centre_distance - a.scale() - b.scale() > apart_threshold(a, b, options.margin, scale) {
            if cache.present {
                cache.present = false;
            }
            return Ok(None);
        }
        in_band_scale = scale;
    }
    // On the thread's clip buffers (see [`CLIP_SCRATCH`]); the cache's own while unavailable.
    let mut run = |scratch: &mut Scratch| -> Result<(), PolycdError> {
        // The last frame's feature pairs and ids, before the new answer overwrites them.
        scratch.last.clear();
        if cache.present {
            scratch
                .last
                .extend(cache.manifold.points.iter().map(|q| (q.features, q.id)));
        }
        // Until this query's answer is complete, the cache holds none (an error leaves it
        // without a manifold: the next query's ids start afresh).
        cache.present = false;
        let present = if let Some(s) = normaliser {
            scaled_manifold(a, pa, b, pb, options, s, &mut cache.manifold)?
        } else {
            build(
                a,
                pa,
                b,
                pb,
                options,
                in_band_scale,
                &mut cache.pair,
                scratch,
                &mut cache.warm,
                &mut cache.manifold,
            )?
        };
        if present {
            persist(
                &mut cache.manifold,
                &scratch.last,
                &mut scratch.used,
                &mut cache.next_id,
            );
        }
        cache.present = present;
        Ok(())
    };
    match CLIP_SCRATCH.try_with(|cell| cell.try_borrow_mut().ok().map(|mut scratch| run(&mut scratch))) {
        Ok(Some(r)) => r?,
        _ => run(cache.scratch.get_or_insert_with(Box::default))?,
    }
    Ok(cache.manifold())
}

/// [`contact_manifold`] outside the safe band: answered on copies scaled by the power of two
/// `s` (exact), the answer scaled back into `out`; `false` when apart beyond the
/// margin. Rare (huge or tiny coordinates): out of line, so that the common path's code
/// stays compact in the instruction cache.
#[cold]
#[inline(never)]
fn scaled_manifold(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    options: &ManifoldOptions,
    s: f64,
    out: &mut ContactManifold,
) -> Result<bool, PolycdError> {
    let scaled = ManifoldOptions {
        margin: options.margin * s,
        reduce: options.reduce,
    };
    let m = on_scaled(a, pa, b, pb, s, |a, pa, b, pb, pc| {
        let mut scratch = Scratch::default();
        let mut warm = Warm::default();
        let mut out = ContactManifold {
            normal: DVec3::Z,
            kind: ManifoldKind::Point,
            points: Vec::new(),
        };
        let scale = pair_scale(a, pa, b, pb);
        Ok(build(a, pa, b, pb, &scaled, scale, pc, &mut scratch, &mut warm, &mut out)?.then_some(out))
    })?;
    Ok(match m {
        Some(m) => {
            let k = 1.0 / s;
            out.normal = m.normal;
            out.kind = m.kind;
            out.points.clear();
            out.points.extend(m.points.iter().map(|q| ContactPoint {
                a: q.a * k,
                b: q.b * k,
                separation: q.separation * k,
                ..*q
            }));
            true
        }
        None => false,
    })
}

/// The cores' contact as the manifold needs it: the normal (unit, A toward B; world and A's
/// frame), the cores' signed distance `s` along it, their closest features when separated,
/// and the witness pair (world) for a one-point answer.
#[derive(Clone, Copy, Debug)]
struct Contact {
    n: DVec3,
    nl: DVec3,
    s: f64,
    feats: Option<FeaturePair>,
    witness: Option<(DVec3, DVec3)>,
    iterations: u32,
}

/// What [`measure`] found: the pair apart beyond the margin (with the normal GJK measured
/// them along, world frame), or in contact.
enum Measured {
    Apart(DVec3),
    Contact(Contact),
}

/// Per-pair constants of one query.
#[derive(Clone, Copy, Debug)]
struct Scales {
    /// The contact tolerance, the face test's and the clip's.
    tol: f64,
    face_tol: f64,
    clip_tol: f64,
    /// The cores' radii and their sum.
    ra: f64,
    rb: f64,
    r: f64,
}

/// The least lower bound of the cores' distance that proves A and B apart beyond `margin`:
/// the margin, both rounding radii, the contact tolerance and the face tolerance (GJK's
/// distance, within ~1e-14 × scale of the true one, would then exceed the margin plus the
/// contact tolerance: the measured path's "apart", the same answer).
#[inline]
fn apart_threshold(a: &ConvexPolyhedron, b: &ConvexPolyhedron, margin: f64, scale: f64) -> f64 {
    margin + (a.radius() + b.radius()) + CONTACT_REL * scale + MANIFOLD_FACE_REL * scale
}

/// Computes the manifold into `out` (`scale`: the pair scale); `false` when apart beyond the
/// margin. The caller has tried the bounding spheres.
///
/// Fast paths (same answers as the measured path): the last frame's axis (`warm`) separating
/// the cores by more than the margin plus the contact and face tolerances (the distance is at
/// least any axis's separation) answers "apart" at once; two small overlapping solids take
/// their signed distance and normal from the separating-axis test ([`sat`]) instead of
/// GJK/EPA. Everything else is measured by GJK/EPA ([`measure`]).
#[allow(clippy::too_many_arguments)]
fn build(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    options: &ManifoldOptions,
    scale: f64,
    pair: &mut PairCache,
    scratch: &mut Scratch,
    warm: &mut Warm,
    out: &mut ContactManifold,
) -> Result<bool, PolycdError> {
    let (ra, rb) = (a.radius(), b.radius());
    let sc = Scales {
        // `contact_tolerance` (`CONTACT_REL × pair_scale`): the same value, one scale.
        tol: CONTACT_REL * scale,
        face_tol: MANIFOLD_FACE_REL * scale,
        clip_tol: MANIFOLD_CLIP_REL * scale,
        ra,
        rb,
        r: ra + rb,
    };
    let apart = apart_threshold(a, b, options.margin, scale);
    // B in A's frame.
    let rel = pa.relative(pb);
    let sat_thr = MANIFOLD_SAT_DEPTH_REL * scale;
    let mut sep0 = None;
    if let Some(u) = warm.axis {
        let v = sat::along(a, b, &rel, u, warm);
        if v > apart {
            return Ok(false);
        }
        sep0 = Some(v);
    }
    // Cleared only here: an "apart" answer leaves the last points in place (the cache marks
    // them absent), so the quick rejections above write nothing to the pair's manifold.
    out.points.clear();
    let mut fast = None;
    if sc.r == 0.0 && sat::eligible(a, b) && sep0.is_none_or(|v| v < -sat_thr) {
        fast = sat::penetration(a, b, &rel, sat_thr, &mut scratch.sat).map(|d| Contact {
            n: pa.transform_vector(d.axis),
            nl: d.axis,
            s: d.sep,
            feats: None,
            witness: d.witness.map(|(x, y)| (pa.transform_point(x), pa.transform_point(y))),
            iterations: 0,
        });
    }
    let mut done = false;
    if let Some(c) = fast {
        done = contact_points(a, pa, b, pb, &rel, &c, options.margin, &sc, scratch, out)?;
    }
    if !done {
        // Measured (or a separating-axis face contact whose clip kept nothing: its witness
        // pair is EPA's).
        let c = match measure(a, pa, b, pb, &rel, options.margin, &sc, pair)? {
            Measured::Apart(n) => {
                warm.axis = pa.inverse_transform_vector(n).try_normalize();
                return Ok(false);
            }
            Measured::Contact(c) => c,
        };
        if !contact_points(a, pa, b, pb, &rel, &c, options.margin, &sc, scratch, out)? {
            return Err(PolycdError::NotConverged {
                query: "manifold",
                iterations: c.iterations,
            });
        }
    }
    warm.axis = pa.inverse_transform_vector(out.normal).try_normalize();
    tidy(out, options.reduce, &sc, &mut scratch.used);
    Ok(true)
}

/// The cores' contact measured by the rounded distance (GJK, EPA when overlapping), the
/// normal's sign checked; [`Measured::Apart`] when the rounded signed distance exceeds the
/// margin plus the contact tolerance.
#[allow(clippy::too_many_arguments)]
fn measure(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    rel: &Pose,
    margin: f64,
    sc: &Scales,
    pair: &mut PairCache,
) -> Result<Measured, PolycdError> {
    let core = core_distance(a, pa, b, pb, Algorithm::Auto, pair)?;
    if let Distance::NotConverged { iterations } = core {
        return Err(PolycdError::NotConverged {
            query: "manifold",
            iterations,
        });
    }
    let not_converged = || PolycdError::NotConverged {
        query: "manifold",
        iterations: core.iterations(),
    };
    let (rounded_answer, n) = rounded::from_core(a, pa, b, pb, core, pair)?;
    let s_round = rounded_answer.signed_distance().ok_or_else(not_converged)?;
    if s_round > margin + sc.tol {
        return Ok(Measured::Apart(n));
    }
    let s = s_round + sc.r;
    if !(n.length_squared() > 0.0) || !n.is_finite() {
        return Err(not_converged());
    }
    let mut nl = pa.inverse_transform_vector(n);
    let mut n = n;
    // The normal's sign, checked: the cores' separation along it is their signed distance
    // (for a valid normal) and far below it for the opposite one. Cores touching along two
    // coplanar edges (an edge lying across a face's border) name crossing edges whose cross
    // product is the right line but whose closest points, a rounding apart, cannot orient it.
    // Touching cores may also name features (two faces) whose normal is not the contact's:
    // a normal whose separation falls short of the signed distance is replaced by the best
    // of its opposite, GJK's weakly separating plane and EPA's normal.
    let best = along(a, b, rel, nl);
    if best < s - sc.face_tol {
        (n, nl) = better_normal(a, pa, b, pb, rel, pair, best, n, nl)?;
    }
    let (feats, witness) = match core {
        Distance::Separated {
            features,
            point_a,
            point_b,
            ..
        } => (Some(features), Some((point_a, point_b))),
        Distance::Penetrating {
            penetration: Some(p), ..
        } => (None, Some((p.point_a, p.point_b))),
        _ => (None, None),
    };
    Ok(Measured::Contact(Contact {
        n,
        nl,
        s,
        feats,
        witness,
        iterations: core.iterations(),
    }))
}

/// The normal's sign check of [`measure`] when the normal `n` (`nl` in A's frame, separation
/// `best` along it) falls short of the signed distance: the best of `n`, its opposite, GJK's
/// weakly separating plane and EPA's normal. Rare (touching cores, coplanar edges): out of
/// line.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn better_normal(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    rel: &Pose,
    pair: &mut PairCache,
    mut best: f64,
    mut n: DVec3,
    mut nl: DVec3,
) -> Result<(DVec3, DVec3), PolycdError> {
    let mut cands = [-n, DVec3::ZERO, DVec3::ZERO];
    match gjk::intersect(a, pa, b, pb, &mut pair.gjk)? {
        Intersection::Touching { plane, .. } | Intersection::Disjoint { plane, .. } => cands[1] = plane.normal,
        _ => {}
    }
    if let Distance::Penetrating {
        penetration: Some(p), ..
    } = gjk::distance(a, pa, b, pb, &mut pair.gjk)?
    {
        cands[2] = p.normal;
    }
    for c in cands {
        let Some(c) = c.try_normalize() else { continue };
        let cl = pa.inverse_transform_vector(c);
        let v = along(a, b, rel, cl);
        if v > best {
            (best, n, nl) = (v, c, cl);
        }
    }
    Ok((n, nl))
}

/// The contact points of contact `c` into `out` (world frame, the cores' points): the clipped
/// reference face when there is a contact face, else one point (or a capsule's two). `false`
/// when a one-point answer is needed and `c` has no witness pair.
#[allow(clippy::too_many_arguments)]
fn contact_points(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    rel: &Pose,
    c: &Contact,
    margin: f64,
    sc: &Scales,
    scratch: &mut Scratch,
    out: &mut ContactManifold,
) -> Result<bool, PolycdError> {
    let keep = margin + sc.r + sc.tol;
    if let Some((on_a, f)) = reference_face(a, b, rel, c, sc.face_tol) {
        if clip_face(a, b, rel, on_a, f, keep, sc.clip_tol, scratch, out) {
            let nr = if on_a {
                a.face(f).normal
            } else {
                -rel.transform_vector(b.face(f).normal)
            };
            out.normal = pa.transform_vector(nr);
            out.kind = if on_a {
                ManifoldKind::FaceA(f)
            } else {
                ManifoldKind::FaceB(f)
            };
            for q in out.points.iter_mut() {
                q.a = pa.transform_point(q.a);
                q.b = pa.transform_point(q.b);
            }
            return Ok(true);
        }
    }
    out.points.clear();
    let Some((ca, cb)) = c.witness else {
        return Ok(false);
    };
    out.normal = c.n;
    out.kind = ManifoldKind::Point;
    // The features supporting the normal (the closest features' names are unreliable a
    // rounding from contact, where several pairs are equally close).
    let features = FeaturePair {
        a: support_feature(a, pa, c.n, sc.face_tol),
        b: support_feature(b, pb, -c.n, sc.face_tol),
    };
    if !parallel_segments(a, pa, b, pb, c.n, c.s, sc.face_tol, out) {
        out.points.push(ContactPoint {
            a: ca,
            b: cb,
            separation: c.s,
            features,
            id: 0,
            previous: None,
        });
    }
    Ok(true)
}

/// The reference face (A's when the flag is set, and its id): of the two contact-face
/// candidates — a face among the closest features, else the face at the support vertex along
/// the normal — those whose separating-axis separation is the signed distance (within
/// `face_tol`), the better aligned with the normal (ties to A's); `None` without a contact
/// face.
fn reference_face(
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
    rel: &Pose,
    c: &Contact,
    face_tol: f64,
) -> Option<(bool, u32)> {
    let nl = c.nl;
    let cand_a = if a.faces().is_empty() {
        None
    } else {
        let f = match c.feats.map(|f| f.a) {
            Some(Feature::Face(f)) if (f as usize) < a.faces().len() => f,
            _ => face_at_support(a, nl),
        };
        let face = a.face(f);
        let w = rel.inverse_transform_vector(-face.normal);
        let v = b.support_climb_hinted(w, 0);
        let sep = face.normal.dot(rel.transform_point(b.vertex(v))) - face.offset;
        Some((f, face.normal.dot(nl), sep))
    };
    let cand_b = if b.faces().is_empty() {
        None
    } else {
        let g = match c.feats.map(|f| f.b) {
            Some(Feature::Face(g)) if (g as usize) < b.faces().len() => g,
            _ => face_at_support(b, rel.inverse_transform_vector(-nl)),
        };
        let plane = b.face_plane(g).transformed(rel);
        let v = a.support_climb_hinted(-plane.normal, 0);
        let sep = plane.normal.dot(a.vertex(v)) - plane.offset;
        Some((g, -plane.normal.dot(nl), sep))
    };
    let valid = |x: Option<(u32, f64, f64)>| x.filter(|&(_, _, sep)| sep >= c.s - face_tol);
    match (valid(cand_a), valid(cand_b)) {
        (Some(x), Some(y)) => {
            if y.1 > x.1 + MANIFOLD_TIE_COS {
                Some((false, y.0))
            } else {
                Some((true, x.0))
            }
        }
        (Some(x), None) => Some((true, x.0)),
        (None, Some(y)) => Some((false, y.0)),
        (None, None) => None,
    }
}

/// The finishing steps: points counter-clockwise around the normal, the optional reduction
/// to four, rounded shapes' points moved out by their radii, and no negative zeros.
fn tidy(out: &mut ContactManifold, reduce_to_four: bool, sc: &Scales, keep: &mut Vec<bool>) {
    let m = &mut out.points;
    if m.len() >= 3 {
        let o = m[0].a;
        let mut area = 0.0;
        for k in 1..m.len() - 1 {
            area += (m[k].a - o).cross(m[k + 1].a - o).dot(out.normal);
        }
        if area < 0.0 {
            m.reverse();
        }
    }
    if reduce_to_four && m.len() > 4 {
        reduce(m, out.normal, keep);
    }
    // Rounded shapes: out along the normal by each radius.
    if sc.r > 0.0 {
        let nn = out.normal;
        for q in m.iter_mut() {
            q.a += nn * sc.ra;
            q.b -= nn * sc.rb;
            q.separation -= sc.r;
        }
    }
    // No negative zeros in the answer (a normal negated twice, a point on a plane through
    // the origin): adding +0 maps −0 to +0 and changes nothing else.
    out.normal += DVec3::ZERO;
    for (k, q) in out.points.iter_mut().enumerate() {
        q.id = k as u32;
        q.previous = None;
        q.a += DVec3::ZERO;
        q.b += DVec3::ZERO;
        q.separation += 0.0;
    }
}
