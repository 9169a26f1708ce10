//! Contact manifolds: the contact region of two convex shapes — the normal and the contact
//! points a physics engine or grasp planner needs — built on the exact closest features and
//! penetration witnesses of [`super::distance`].
//!
//! Outline ([`contact_manifold`]):
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
//! to the world at the end. [`ManifoldCache`] holds the pair cache, the clip buffers and the
//! manifold: in steady state a query allocates nothing; it also matches each point to the
//! last frame's by feature pair, so ids persist for warm-started impulses.
//!
//! Loops: the clip runs once per side plane of the reference face over at most
//! `incident + reference` vertices; the face scans are over the shapes' faces; every loop is
//! bounded by the shapes' sizes.

use super::rescale::{on_scaled, pair_normaliser};
use super::{core_distance, rounded, Algorithm, PairCache};
use crate::contract::{
    checked_pose, contact_tolerance, pair_scale, pose_ok, ContactManifold, ContactPoint, Distance, Feature,
    FeaturePair, Intersection, ManifoldKind, ManifoldOptions,
};
use crate::core::error::PolycdError;
use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::{MANIFOLD_CLIP_REL, MANIFOLD_FACE_REL, MANIFOLD_PARALLEL_SIN, MANIFOLD_TIE_COS};
use crate::gjk;
use crate::shape::polyhedron::ConvexPolyhedron;

/// Where a clip vertex comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// An incident vertex (its id).
    Incident(u32),
    /// An incident edge (id) cut by the side plane of reference loop edge `k`.
    Cut { k: u32, edge: u32 },
    /// A corner of the reference face (vertex id).
    Corner(u32),
}

/// What the edge from a clip vertex to the next lies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Along {
    /// An incident edge (id).
    Incident(u32),
    /// The side plane of reference loop edge `k`.
    Side(u32),
}

#[derive(Clone, Copy, Debug)]
struct ClipVert {
    p: DVec3,
    origin: Origin,
    along: Along,
}

/// One edge of the reference face's loop (A's frame).
#[derive(Clone, Copy, Debug)]
struct RefEdge {
    /// Its start vertex (id) and position.
    vertex: u32,
    u: DVec3,
    /// Outward unit normal of its side plane.
    side: DVec3,
    /// Edge id.
    edge: u32,
}

/// The reusable buffers of the clip.
#[derive(Clone, Debug, Default)]
struct Scratch {
    poly: Vec<ClipVert>,
    tmp: Vec<ClipVert>,
    loop_: Vec<RefEdge>,
    used: Vec<bool>,
}

/// A pair's contact-manifold state: the [`PairCache`] of its distance queries, the clip
/// buffers, the last manifold, and the ids of its points. One per pair, reused frame after
/// frame (no allocation in steady state).
#[derive(Clone, Debug)]
pub struct ManifoldCache {
    /// The distance queries' warm-start state.
    pub pair: PairCache,
    scratch: Scratch,
    manifold: ContactManifold,
    /// Whether `manifold` holds this frame's answer.
    present: bool,
    /// The last frame's points' feature pairs and ids (empty when it had none).
    last: Vec<(FeaturePair, u32)>,
    next_id: u32,
}

impl Default for ManifoldCache {
    fn default() -> Self {
        ManifoldCache {
            pair: PairCache::default(),
            scratch: Scratch::default(),
            manifold: ContactManifold {
                normal: DVec3::Z,
                kind: ManifoldKind::Point,
                points: Vec::new(),
            },
            present: false,
            last: Vec::new(),
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
        self.present = false;
        self.last.clear();
        self.next_id = 0;
    }

    /// Matches the new manifold's points to the last frame's by feature pair (each old point
    /// at most once, first come first served), assigns ids, and remembers this frame's.
    fn persist(&mut self) {
        let used = &mut self.scratch.used;
        used.clear();
        used.resize(self.last.len(), false);
        if self.present {
            for q in self.manifold.points.iter_mut() {
                let hit = self
                    .last
                    .iter()
                    .enumerate()
                    .position(|(j, (f, _))| !used[j] && *f == q.features);
                match hit {
                    Some(j) => {
                        used[j] = true;
                        q.id = self.last[j].1;
                        q.previous = Some(j as u32);
                    }
                    None => {
                        q.id = self.next_id;
                        self.next_id = self.next_id.wrapping_add(1);
                        q.previous = None;
                    }
                }
            }
        }
        self.last.clear();
        if self.present {
            self.last
                .extend(self.manifold.points.iter().map(|q| (q.features, q.id)));
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
    let present = if let Some(s) = pair_normaliser(a, pa, b, pb) {
        // Outside the safe band: answered on copies scaled by a power of two (exact).
        let scaled = ManifoldOptions {
            margin: options.margin * s,
            reduce: options.reduce,
        };
        let m = on_scaled(a, pa, b, pb, s, |a, pa, b, pb, pc| {
            let mut scratch = Scratch::default();
            let mut out = ContactManifold {
                normal: DVec3::Z,
                kind: ManifoldKind::Point,
                points: Vec::new(),
            };
            Ok(build(a, pa, b, pb, &scaled, pc, &mut scratch, &mut out)?.then_some(out))
        })?;
        match m {
            Some(m) => {
                let k = 1.0 / s;
                cache.manifold.normal = m.normal;
                cache.manifold.kind = m.kind;
                cache.manifold.points.clear();
                cache.manifold.points.extend(m.points.iter().map(|q| ContactPoint {
                    a: q.a * k,
                    b: q.b * k,
                    separation: q.separation * k,
                    ..*q
                }));
                true
            }
            None => false,
        }
    } else {
        build(
            a,
            pa,
            b,
            pb,
            options,
            &mut cache.pair,
            &mut cache.scratch,
            &mut cache.manifold,
        )?
    };
    cache.present = present;
    cache.persist();
    Ok(cache.manifold())
}

/// Computes the manifold into `out`; `false` when apart beyond the margin.
#[allow(clippy::too_many_arguments)]
fn build(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    options: &ManifoldOptions,
    pair: &mut PairCache,
    scratch: &mut Scratch,
    out: &mut ContactManifold,
) -> Result<bool, PolycdError> {
    out.points.clear();
    let core = core_distance(a, pa, b, pb, Algorithm::Auto, pair)?;
    if let Distance::NotConverged { iterations } = core {
        return Err(PolycdError::NotConverged {
            query: "manifold",
            iterations,
        });
    }
    let (rounded_answer, n) = rounded::from_core(a, pa, b, pb, core, pair)?;
    let (ra, rb) = (a.radius(), b.radius());
    let r = ra + rb;
    let tol = contact_tolerance(a, pa, b, pb);
    let s_round = match rounded_answer.signed_distance() {
        Some(s) => s,
        None => {
            return Err(PolycdError::NotConverged {
                query: "manifold",
                iterations: core.iterations(),
            })
        }
    };
    if s_round > options.margin + tol {
        return Ok(false);
    }
    let s = s_round + r;
    if !(n.length_squared() > 0.0) || !n.is_finite() {
        return Err(PolycdError::NotConverged {
            query: "manifold",
            iterations: core.iterations(),
        });
    }
    let keep = options.margin + r + tol;
    let scale = pair_scale(a, pa, b, pb);
    let face_tol = MANIFOLD_FACE_REL * scale;
    let clip_tol = MANIFOLD_CLIP_REL * scale;

    // B in A's frame.
    let rel = pa.relative(pb);
    let mut nl = pa.inverse_transform_vector(n);
    let mut n = n;
    // The normal's sign, checked: the cores' separation along it is their signed distance
    // (for a valid normal) and far below it for the opposite one. Cores touching along two
    // coplanar edges (an edge lying across a face's border) name crossing edges whose cross
    // product is the right line but whose closest points, a rounding apart, cannot orient it.
    // Touching cores may also name features (two faces) whose normal is not the contact's:
    // a normal whose separation falls short of the signed distance is replaced by the best
    // of its opposite, GJK's weakly separating plane and EPA's normal.
    let mut best = along(a, b, &rel, nl);
    if best < s - face_tol {
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
            let v = along(a, b, &rel, cl);
            if v > best {
                (best, n, nl) = (v, c, cl);
            }
        }
    }
    let feats = match core {
        Distance::Separated { features, .. } => Some(features),
        _ => None,
    };

    // Contact-face candidates and their separating-axis separations.
    let cand_a = if a.faces().is_empty() {
        None
    } else {
        let f = match feats.map(|f| f.a) {
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
        let g = match feats.map(|f| f.b) {
            Some(Feature::Face(g)) if (g as usize) < b.faces().len() => g,
            _ => face_at_support(b, rel.inverse_transform_vector(-nl)),
        };
        let plane = b.face_plane(g).transformed(&rel);
        let v = a.support_climb_hinted(-plane.normal, 0);
        let sep = plane.normal.dot(a.vertex(v)) - plane.offset;
        Some((g, -plane.normal.dot(nl), sep))
    };
    let valid = |c: Option<(u32, f64, f64)>| c.filter(|&(_, _, sep)| sep >= s - face_tol);
    let reference = match (valid(cand_a), valid(cand_b)) {
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
    };

    let mut clipped = false;
    if let Some((on_a, f)) = reference {
        clipped = clip_face(a, b, &rel, on_a, f, keep, clip_tol, scratch, out);
        if clipped {
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
        }
    }
    if !clipped {
        out.points.clear();
        out.normal = n;
        out.kind = ManifoldKind::Point;
        // The features supporting the normal (the closest features' names are unreliable a
        // rounding from contact, where several pairs are equally close).
        let features = FeaturePair {
            a: support_feature(a, pa, n, face_tol),
            b: support_feature(b, pb, -n, face_tol),
        };
        let (ca, cb) = match core {
            Distance::Separated { point_a, point_b, .. } => (point_a, point_b),
            Distance::Penetrating {
                penetration: Some(p), ..
            } => (p.point_a, p.point_b),
            _ => {
                return Err(PolycdError::NotConverged {
                    query: "manifold",
                    iterations: core.iterations(),
                })
            }
        };
        if !parallel_segments(a, pa, b, pb, n, s, face_tol, out) {
            out.points.push(ContactPoint {
                a: ca,
                b: cb,
                separation: s,
                features,
                id: 0,
                previous: None,
            });
        }
    }

    // Counter-clockwise around the normal.
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
    if options.reduce && m.len() > 4 {
        reduce(m, out.normal, &mut scratch.used);
    }
    // Rounded shapes: out along the normal by each radius.
    if r > 0.0 {
        let nn = out.normal;
        for q in m.iter_mut() {
            q.a += nn * ra;
            q.b -= nn * rb;
            q.separation -= r;
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
    Ok(true)
}

/// The separation of the cores along `nl` (A's frame): B's least extent minus A's greatest.
fn along(a: &ConvexPolyhedron, b: &ConvexPolyhedron, rel: &Pose, nl: DVec3) -> f64 {
    let va = a.support_climb_hinted(nl, 0);
    let vb = b.support_climb_hinted(rel.inverse_transform_vector(-nl), 0);
    nl.dot(rel.transform_point(b.vertex(vb))) - nl.dot(a.vertex(va))
}

/// Of the faces around `p`'s support vertex along `dir` (local frame), the one whose outward
/// normal is best aligned with `dir` (the first on ties). Taking the face at the support
/// vertex — not the best-aligned face of the whole shape, which on irregular hulls may lie
/// away from it — keeps the shape's extreme point along `dir` on the face, so a clip on it
/// holds the deepest point. `p` has faces.
fn face_at_support(p: &ConvexPolyhedron, dir: DVec3) -> u32 {
    let v = p.support_climb_hinted(dir, 0);
    let mut best = (0u32, f64::NEG_INFINITY);
    for &h in p.outgoing(v) {
        let f = p.half_edge(h).face;
        if let Some(face) = p.faces().get(f as usize) {
            let c = face.normal.dot(dir);
            if c > best.1 {
                best = (f, c);
            }
        }
    }
    best.0
}

/// The feature of `p` (at `pose`) supporting the world direction `d`: the support vertex, the
/// edge to its one neighbour within `tol` of the support value, or the best-aligned face
/// around it when two or more neighbours are.
fn support_feature(p: &ConvexPolyhedron, pose: &Pose, d: DVec3, tol: f64) -> Feature {
    let dl = pose.inverse_transform_vector(d);
    let v = p.support_climb_hinted(dl, 0);
    let top = dl.dot(p.vertex(v));
    let mut count = 0;
    let mut first = u32::MAX;
    for (k, &w) in p.neighbors(v).iter().enumerate() {
        if dl.dot(p.vertex(w)) >= top - tol {
            count += 1;
            if first == u32::MAX {
                first = p.outgoing(v)[k];
            }
        }
    }
    match count {
        0 => Feature::Vertex(v),
        1 => Feature::Edge(p.half_edge(first).edge),
        _ => {
            let mut best = (u32::MAX, f64::NEG_INFINITY);
            for &h in p.outgoing(v) {
                let f = p.half_edge(h).face;
                if let Some(face) = p.faces().get(f as usize) {
                    let c = face.normal.dot(dl);
                    if c > best.1 {
                        best = (f, c);
                    }
                }
            }
            if best.0 == u32::MAX {
                Feature::Edge(p.half_edge(first).edge)
            } else {
                Feature::Face(best.0)
            }
        }
    }
}

/// Clips the incident feature against reference face `f` (of A when `on_a`, else of B),
/// writing the kept points (A's frame) into `out.points`; `false` when none is kept.
#[allow(clippy::too_many_arguments)]
fn clip_face(
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
    rel: &Pose,
    on_a: bool,
    f: u32,
    keep: f64,
    clip_tol: f64,
    scratch: &mut Scratch,
    out: &mut ContactManifold,
) -> bool {
    // Reference and incident shapes, with maps of their local points into A's frame.
    let (rs, is) = if on_a { (a, b) } else { (b, a) };
    let ident = Pose::default();
    let (rpose, ipose) = if on_a { (&ident, rel) } else { (rel, &ident) };
    let plane = rs.face_plane(f).transformed(rpose);
    let nr = plane.normal;

    // The reference loop and its side planes.
    scratch.loop_.clear();
    let verts = rs.face_vertices(f);
    let m = verts.len();
    let mut h = rs.face(f).half_edge;
    for _ in 0..m {
        let he = *rs.half_edge(h);
        let next = *rs.half_edge(he.next);
        let u = rpose.transform_point(rs.vertex(he.origin));
        let w = rpose.transform_point(rs.vertex(next.origin));
        let side = (w - u).cross(nr).normalize_or_zero();
        scratch.loop_.push(RefEdge {
            vertex: he.origin,
            u,
            side,
            edge: he.edge,
        });
        h = he.next;
    }

    // The incident polygon: the face most opposed to the reference normal, a segment, a point.
    scratch.poly.clear();
    let inc_face = if is.faces().is_empty() {
        None
    } else {
        Some(face_at_support(is, ipose.inverse_transform_vector(-nr)))
    };
    match inc_face {
        Some(g) => {
            let mut h = is.face(g).half_edge;
            for _ in 0..is.face(g).len {
                let he = *is.half_edge(h);
                scratch.poly.push(ClipVert {
                    p: ipose.transform_point(is.vertex(he.origin)),
                    origin: Origin::Incident(he.origin),
                    along: Along::Incident(he.edge),
                });
                h = he.next;
            }
        }
        None if is.edges().len() == 1 => {
            // A segment: clipped as a parameter interval (a two-vertex polygon would repeat
            // its cut points).
            let e = 0u32;
            let [v0, v1] = is.edge(e).vertices;
            let (p0, p1) = (
                ipose.transform_point(is.vertex(v0)),
                ipose.transform_point(is.vertex(v1)),
            );
            let (mut lo, mut hi) = (0.0f64, 1.0f64);
            let (mut o0, mut o1) = (Origin::Incident(v0), Origin::Incident(v1));
            for (k, re) in scratch.loop_.iter().enumerate() {
                let d0 = re.side.dot(p0 - re.u);
                let d1 = re.side.dot(p1 - re.u);
                let cut = Origin::Cut { k: k as u32, edge: e };
                if d0 > clip_tol && d1 > clip_tol {
                    return false;
                }
                // One end beyond the plane, the other on or inside it (within the tolerance):
                // cut at the crossing (an end on the plane is the crossing itself).
                if d0 > clip_tol {
                    let t = (d0 / (d0 - d1)).clamp(0.0, 1.0);
                    if t > lo {
                        lo = t;
                        o0 = if d1 >= 0.0 { Origin::Incident(v1) } else { cut };
                    }
                } else if d1 > clip_tol {
                    let t = (d0 / (d0 - d1)).clamp(0.0, 1.0);
                    if t < hi {
                        hi = t;
                        o1 = if d0 >= 0.0 { Origin::Incident(v0) } else { cut };
                    }
                }
            }
            if lo > hi {
                return false;
            }
            // A stretch shorter than the clip tolerance (the segment through a corner, or
            // standing on end) is one point.
            let single = (p1 - p0).length() * (hi - lo) <= clip_tol;
            for (t, o) in [(lo, o0), (hi, o1)].into_iter().take(if single { 1 } else { 2 }) {
                scratch.poly.push(ClipVert {
                    p: p0 + (p1 - p0) * t,
                    origin: o,
                    along: Along::Incident(e),
                });
            }
        }
        None => {
            let v = 0u32;
            let p = ipose.transform_point(is.vertex(v));
            if scratch.loop_.iter().any(|re| re.side.dot(p - re.u) > clip_tol) {
                return false;
            }
            scratch.poly.push(ClipVert {
                p,
                origin: Origin::Incident(v),
                along: Along::Side(0),
            });
        }
    }

    // Sutherland–Hodgman against each side plane (polygons only).
    if inc_face.is_some() {
        for k in 0..m {
            let loop_ = &scratch.loop_;
            let re = loop_[k];
            let prev_k = (k + m - 1) % m;
            let inp = &scratch.poly;
            let outp = &mut scratch.tmp;
            outp.clear();
            let len = inp.len();
            for i in 0..len {
                let cur = inp[i];
                let nxt = inp[(i + 1) % len];
                let dc = re.side.dot(cur.p - re.u);
                let dn = re.side.dot(nxt.p - re.u);
                let (cin, nin) = (dc <= clip_tol, dn <= clip_tol);
                let cut_origin = |along: Along| match along {
                    Along::Incident(e) => Origin::Cut { k: k as u32, edge: e },
                    // Along another side plane: the corner between the two loop edges.
                    Along::Side(j) => {
                        let j = j as usize;
                        if (k + 1) % m == j && j != prev_k {
                            Origin::Corner(loop_[j].vertex)
                        } else {
                            Origin::Corner(re.vertex)
                        }
                    }
                };
                let cross = |c: &ClipVert, n: &ClipVert| {
                    let t = (dc / (dc - dn)).clamp(0.0, 1.0);
                    c.p + (n.p - c.p) * t
                };
                match (cin, nin) {
                    (true, true) => outp.push(cur),
                    (true, false) => {
                        if dc >= 0.0 {
                            outp.push(ClipVert {
                                along: Along::Side(k as u32),
                                ..cur
                            });
                        } else {
                            outp.push(cur);
                            outp.push(ClipVert {
                                p: cross(&cur, &nxt),
                                origin: cut_origin(cur.along),
                                along: Along::Side(k as u32),
                            });
                        }
                    }
                    (false, true) => {
                        if dn < 0.0 {
                            outp.push(ClipVert {
                                p: cross(&cur, &nxt),
                                origin: cut_origin(cur.along),
                                along: cur.along,
                            });
                        }
                    }
                    (false, false) => {}
                }
            }
            std::mem::swap(&mut scratch.poly, &mut scratch.tmp);
            if scratch.poly.is_empty() {
                return false;
            }
        }
    }

    out.points.clear();
    let inc_feature_face = inc_face.map(Feature::Face);
    for cv in scratch.poly.iter() {
        let sep = nr.dot(cv.p) - plane.offset;
        if !(sep <= keep) {
            continue;
        }
        let on_ref = cv.p - nr * sep;
        let (ref_f, inc_f) = match cv.origin {
            Origin::Incident(v) => (Feature::Face(f), Feature::Vertex(v)),
            Origin::Cut { k, edge } => (Feature::Edge(scratch.loop_[k as usize].edge), Feature::Edge(edge)),
            Origin::Corner(v) => (Feature::Vertex(v), inc_feature_face.unwrap_or(Feature::Face(f))),
        };
        let (pa_, pb_, features) = if on_a {
            (on_ref, cv.p, FeaturePair { a: ref_f, b: inc_f })
        } else {
            (cv.p, on_ref, FeaturePair { a: inc_f, b: ref_f })
        };
        out.points.push(ContactPoint {
            a: pa_,
            b: pb_,
            separation: sep,
            features,
            id: 0,
            previous: None,
        });
    }
    !out.points.is_empty()
}

/// Keeps at most four of the counter-clockwise points `m` (in their order): the deepest, the
/// farthest from it, and the two spanning the largest triangles with those on either side.
fn reduce(m: &mut Vec<ContactPoint>, normal: DVec3, keep: &mut Vec<bool>) {
    let n = m.len();
    keep.clear();
    keep.resize(n, false);
    let deepest = (0..n)
        .min_by(|&i, &j| m[i].separation.total_cmp(&m[j].separation))
        .unwrap_or(0);
    keep[deepest] = true;
    let o = m[deepest].a;
    let far = (0..n)
        .max_by(|&i, &j| (m[i].a - o).length_squared().total_cmp(&(m[j].a - o).length_squared()))
        .unwrap_or(0);
    keep[far] = true;
    let q = m[far].a;
    let area = |i: usize| (q - o).cross(m[i].a - o).dot(normal);
    let left = (0..n).max_by(|&i, &j| area(i).total_cmp(&area(j))).unwrap_or(0);
    if area(left) > 0.0 {
        keep[left] = true;
    }
    let right = (0..n).min_by(|&i, &j| area(i).total_cmp(&area(j))).unwrap_or(0);
    if area(right) < 0.0 {
        keep[right] = true;
    }
    let mut k = 0;
    m.retain(|_| {
        k += 1;
        keep[k - 1]
    });
}

/// Two segments (capsule cores) parallel within [`MANIFOLD_PARALLEL_SIN`] and normal to the
/// contact: the ends of their common stretch, two points (a capsule lying along a capsule).
/// Writes them into `out` (world frame, core separation `s`) and returns `true`; `false`
/// otherwise (the single closest-point pair is the answer).
#[allow(clippy::too_many_arguments)]
fn parallel_segments(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    n: DVec3,
    s: f64,
    tol: f64,
    out: &mut ContactManifold,
) -> bool {
    if a.dimension() != 1 || b.dimension() != 1 {
        return false;
    }
    let (a0, a1) = (pa.transform_point(a.vertex(0)), pa.transform_point(a.vertex(1)));
    let (b0, b1) = (pb.transform_point(b.vertex(0)), pb.transform_point(b.vertex(1)));
    let la = (a1 - a0).length();
    let (Some(ua), Some(ub)) = ((a1 - a0).try_normalize(), (b1 - b0).try_normalize()) else {
        return false;
    };
    if ua.cross(ub).length() > MANIFOLD_PARALLEL_SIN || n.dot(ua).abs() > MANIFOLD_PARALLEL_SIN {
        return false;
    }
    let (t0, t1) = ((b0 - a0).dot(ua), (b1 - a0).dot(ua));
    // B's ends in A's parameter, in increasing order, with the B vertex each is.
    let ((lo_b, vlo), (hi_b, vhi)) = if t0 <= t1 {
        ((t0, 0), (t1, 1))
    } else {
        ((t1, 1), (t0, 0))
    };
    let (lo, hi) = (lo_b.max(0.0), hi_b.min(la));
    if !(hi - lo > tol) {
        return false;
    }
    let feature = |t: f64, b_end: f64, vb: u32| {
        let fa = if t <= 0.0 {
            Feature::Vertex(0)
        } else if t >= la {
            Feature::Vertex(1)
        } else {
            Feature::Edge(0)
        };
        let fb = if t == b_end {
            Feature::Vertex(vb)
        } else {
            Feature::Edge(0)
        };
        FeaturePair { a: fa, b: fb }
    };
    for (t, b_end, vb) in [(lo, lo_b, vlo), (hi, hi_b, vhi)] {
        let p = a0 + ua * t;
        out.points.push(ContactPoint {
            a: p,
            b: p + n * s,
            separation: s,
            features: feature(t, b_end, vb),
            id: 0,
            previous: None,
        });
    }
    out.kind = ManifoldKind::Point;
    true
}
