//! Closed forms for point and segment cores: spheres, capsules, points and segments against
//! each other (`Algorithm::Auto` only; the named algorithms keep their own answers).
//!
//! The cores' closest points are exact formulas: a point against a point; the clamped
//! projection of a point on a segment; for two segments the least of the four end points
//! projected on the other segment and the common perpendicular's foot on A (taken across B's
//! direction, not from the Gram determinant, which cancels for nearly parallel segments)
//! projected on B — every candidate is a true pair of core points, so the least never
//! underestimates, and it is the distance to `O(ε·L)` with no threshold for parallel segments
//! (nearly parallel segments attain their distance at an end point's projection up to
//! `(θ·L)²/(2d)`, and the foot's excess is small exactly when that is not; derivation at
//! [`segment_segment`]). The features are the vertex or edge carrying each point.
//!
//! A point core against a solid of few faces (a sphere against a box) is answered by a scan
//! of the solid's faces ([`point_solid`]): outside, the exact closest point and its feature;
//! inside, the least depth below a face plane, which is a point's exact penetration depth
//! (the witness is the point itself, common to both cores).
//!
//! The rounded answer is then built exactly as `rounded.rs` builds it from a core distance
//! (the same normal rule: a face's normal, the edges' cross product for two interior edge
//! points, else the closest-point difference), with `iterations` 0. Only cores apart (or a
//! point inside a solid) beyond the contact tolerance are answered here (the test uses the
//! rotation-free upper bound of the tolerance, so no pair near core contact is decided by
//! it); touching or crossing cores — where the normal needs the generic path's support
//! measurements — return `None` and take the generic path, as do the other pairs.

use crate::contract::{contact_tolerance, contact_tolerance_bound};
use crate::contract::{Distance, Feature, FeaturePair, Intersection, OverlapWitness, Penetration};
use crate::core::math::{DVec3, Plane, Pose};
use crate::core::tolerance::ROUNDED_EDGE_SIN;
use crate::shape::polyhedron::ConvexPolyhedron;

/// Solids of at most this many faces are answered against a point core by a scan of their
/// faces (O(F): a box's 6 faces cost less than GJK's set-up; beyond a few dozen faces GJK's
/// hill-climbing is cheaper). A size, not a tolerance.
const SCAN_FACES: usize = 32;

/// Whether this file answers the pair: both cores points or segments, or a point core
/// against a solid of at most [`SCAN_FACES`] faces (a sphere against a box).
#[inline]
pub(super) fn applies(a: &ConvexPolyhedron, b: &ConvexPolyhedron) -> bool {
    let small_solid = |p: &ConvexPolyhedron| p.dimension() == 3 && p.faces().len() <= SCAN_FACES;
    (a.dimension() <= 1 && b.dimension() <= 1)
        || (a.dimension() == 0 && small_solid(b))
        || (b.dimension() == 0 && small_solid(a))
}

/// A point or a segment core in the world frame: its end points (equal for a point) and the
/// features of its ends and interior.
#[derive(Clone, Copy)]
struct Core {
    p0: DVec3,
    p1: DVec3,
    f0: Feature,
    f1: Feature,
    inner: Feature,
    segment: bool,
}

/// Whether `v == DVec3::ZERO` (every coordinate ±0), in one integer test: the three bit
/// patterns or-ed and shifted past the sign bit (a NaN or any non-zero coordinate leaves a
/// bit, as `==` would say).
#[inline(always)]
fn is_origin(v: DVec3) -> bool {
    ((v.x.to_bits() | v.y.to_bits() | v.z.to_bits()) << 1) == 0
}

/// `pose` applied to `v`, without the rotation when `v` is the origin (a sphere's or
/// capsule's centre: the same value, `R·0 + t = t`).
#[inline(always)]
fn placed(pose: &Pose, v: DVec3) -> DVec3 {
    if is_origin(v) {
        pose.translation
    } else {
        pose.transform_point(v)
    }
}

/// The core of `p` at `pose`, in the frame translated by `-origin` (the pair's cores share
/// one origin, A's translation: a pair far out is then computed near the origin, where
/// `t_B − t_A` is exact for nearby bodies and the rotated vertices are not rounded to the
/// world coordinates' ulp).
#[inline(always)]
fn core(p: &ConvexPolyhedron, pose: &Pose, origin: DVec3) -> Core {
    let pose = &Pose {
        translation: pose.translation - origin,
        ..*pose
    };
    if p.dimension() == 0 || p.edges().is_empty() {
        let x = placed(pose, p.vertex(0));
        return Core {
            p0: x,
            p1: x,
            f0: Feature::Vertex(0),
            f1: Feature::Vertex(0),
            inner: Feature::Vertex(0),
            segment: false,
        };
    }
    let [t, h] = p.edge(0).vertices;
    let (v0, v1) = (p.vertex(t), p.vertex(h));
    // A segment centred on the origin (a capsule's): one rotation, `R·(−v) = −(R·v)` exactly.
    let (p0, p1) = if v0 == -v1 {
        let r = pose.rotation * v1;
        (pose.translation - r, pose.translation + r)
    } else {
        (pose.transform_point(v0), pose.transform_point(v1))
    };
    Core {
        p0,
        p1,
        f0: Feature::Vertex(t),
        f1: Feature::Vertex(h),
        inner: Feature::Edge(0),
        segment: true,
    }
}

/// The closest point of segment `s` to `x`: the point and its feature.
#[inline]
fn on_segment(s: &Core, x: DVec3) -> (DVec3, Feature) {
    let d = s.p1 - s.p0;
    let t = (x - s.p0).dot(d) / d.length_squared();
    if !(t > 0.0) {
        (s.p0, s.f0)
    } else if t >= 1.0 {
        (s.p1, s.f1)
    } else {
        (s.p0 + d * t, s.inner)
    }
}

/// Closest core points `(ca, cb)`, `v = cb − ca` as computed in the pair's own frame (not
/// from the world points, whose coordinates carry the world's rounding), its squared length
/// and the features.
struct Closest {
    ca: DVec3,
    cb: DVec3,
    v: DVec3,
    d2: f64,
    features: FeaturePair,
}

impl Closest {
    #[inline]
    fn new(ca: DVec3, cb: DVec3, fa: Feature, fb: Feature) -> Closest {
        let v = cb - ca;
        Closest {
            ca,
            cb,
            v,
            d2: v.length_squared(),
            features: FeaturePair { a: fa, b: fb },
        }
    }

    #[inline]
    fn keep_least(&mut self, other: Closest) {
        if other.d2 < self.d2 {
            *self = other;
        }
    }
}

fn closest(a: &Core, b: &Core) -> Closest {
    match (a.segment, b.segment) {
        (false, false) => Closest::new(a.p0, b.p0, a.f0, b.f0),
        (false, true) => {
            let (q, f) = on_segment(b, a.p0);
            Closest::new(a.p0, q, a.f0, f)
        }
        (true, false) => {
            let (q, f) = on_segment(a, b.p0);
            Closest::new(q, b.p0, f, b.f0)
        }
        (true, true) => segment_segment(a, b),
    }
}

/// Two segments: the least of the four end-point projections and one more candidate from
/// the common perpendicular (see the module header).
///
/// The perpendicular's foot on A is `s = −(w⊥·u⊥)/|u⊥|²`, with `u⊥`, `w⊥` the parts of `u`
/// and `w = a0 − b0` across `v` (B's direction), taken by one projection each — not from the
/// Gram determinant `|u|²|v|² − (u·v)²`, whose absolute error `ε|u|²|v|²` is all of it once
/// `sin²θ ≲ ε` (crossing capsules tilted by 1e-8: end points θ·L/2 apart taken for the
/// closest pair, a depth 80 reported as 79.9999999991). Each projection's error is
/// `≤ c·ε·|u|` (resp. `|w|`), so the foot is off by `δ ≤ c·ε·(|w⊥|/sin²θ + |w|/sinθ)` along A,
/// and A's point is then `δ·sinθ ≤ c·ε·(d/sinθ + |u| + |w|)` farther from B's line than the
/// foot (`d` the lines' distance): at crossing or touching lines (`d` ≈ 0) a few ulps of the
/// coordinates. The candidate pairs that point (`s` clamped to A) with its clamped projection
/// on B: a true pair of core points like the four others, so the least never underestimates
/// the distance; where `d/sinθ` dominates, the end points' projections are within
/// `(θ·L)²/(2d)` of the distance, and the product of the two excesses is `O(ε²·L²)`, so the
/// least is within `O(ε·L)` of it in every case.
fn segment_segment(a: &Core, b: &Core) -> Closest {
    let (u, v, w) = (a.p1 - a.p0, b.p1 - b.p0, a.p0 - b.p0);
    let vv = v.dot(v);
    let mut best = {
        let (q, f) = on_segment(b, a.p0);
        Closest::new(a.p0, q, a.f0, f)
    };
    if vv > 0.0 {
        let (uc, wc) = (u - v * (u.dot(v) / vv), w - v * (w.dot(v) / vv));
        let den = uc.dot(uc);
        let s = -wc.dot(uc) / den;
        // `den` 0 (parallel to rounding) or NaN: no foot; the end points answer.
        if s > 0.0 && s < 1.0 {
            let x = a.p0 + u * s;
            let (q, f) = on_segment(b, x);
            best.keep_least(Closest::new(x, q, a.inner, f));
        }
    }
    let (q, f) = on_segment(b, a.p1);
    best.keep_least(Closest::new(a.p1, q, a.f1, f));
    let (q, f) = on_segment(a, b.p0);
    best.keep_least(Closest::new(q, b.p0, f, b.f0));
    let (q, f) = on_segment(a, b.p1);
    best.keep_least(Closest::new(q, b.p1, f, b.f1));
    best
}

/// A candidate's feature, the edge named by its ends until the winner is known.
#[derive(Clone, Copy)]
enum Found {
    Vertex(u32),
    Between(u32, u32),
    Face(u32),
}

/// The candidates of face `f` (plane distance `h > 0` from `x`) into `best` (point, feature,
/// squared distance): the projection when it lies inside the face (returns true), else the
/// clamped projections on the edges it lies outside of.
#[inline]
fn face_candidates(s: &ConvexPolyhedron, x: DVec3, f: u32, h: f64, best: &mut (DVec3, Found, f64)) -> bool {
    let n = s.face(f).normal;
    let fv = s.face_vertices(f);
    let mut inside = true;
    let Some(&last) = fv.last() else {
        return false;
    };
    let (mut iu, mut u) = (last, s.vertex(last));
    for &iw in fv {
        let w = s.vertex(iw);
        let d = w - u;
        // x's side of the edge u → w within the face's plane (x − its projection is along n).
        if d.cross(x - u).dot(n) < 0.0 {
            inside = false;
            let t = (x - u).dot(d) / d.length_squared();
            let (q, found) = if !(t > 0.0) {
                (u, Found::Vertex(iu))
            } else if t >= 1.0 {
                (w, Found::Vertex(iw))
            } else {
                (u + d * t, Found::Between(iu, iw))
            };
            let d2 = (x - q).length_squared();
            if d2 < best.2 {
                *best = (q, found, d2);
            }
        }
        (iu, u) = (iw, w);
    }
    if inside {
        *best = (x - n * h, Found::Face(f), h * h);
    }
    inside
}

/// The feature of a [`Found`] (the edge between two vertices looked up in the first one's
/// neighbours).
fn feature_of(s: &ConvexPolyhedron, found: Found) -> Feature {
    match found {
        Found::Vertex(v) => Feature::Vertex(v),
        Found::Face(f) => Feature::Face(f),
        Found::Between(u, w) => match s.neighbors(u).iter().position(|&x| x == w) {
            Some(k) => Feature::Edge(s.half_edge(s.outgoing(u)[k]).edge),
            None => Feature::Vertex(u),
        },
    }
}

/// Where a point core lies against a small solid (the solid's local frame).
enum PointSolid {
    /// Outside: the closest point of the solid (local) and its feature.
    Apart { q: DVec3, feature: Feature },
    /// Inside, `depth` below the plane of face `face` (the least depth of all faces).
    Inside { depth: f64, face: u32 },
}

/// The closest point of solid `s` to the local point `x`, by a scan of its faces: a face
/// whose plane has `x` strictly above it either holds `x`'s projection (a candidate at the
/// plane distance) or not (its edges that `x`'s projection lies outside of give candidates,
/// by the clamped projection on the edge). The closest point of a convex solid lies on such a
/// face and, when not inside it, on such an edge, so the least candidate is exact to rounding.
fn point_solid(s: &ConvexPolyhedron, x: DVec3, features: bool) -> PointSolid {
    if let Some(r) = point_box(s, x, features) {
        return r;
    }
    let (mut top, mut top_face) = (f64::NEG_INFINITY, 0u32);
    for (f, face) in s.faces().iter().enumerate() {
        let h = face.normal.dot(x) - face.offset;
        if h > top {
            (top, top_face) = (h, f as u32);
        }
    }
    if !(top > 0.0) {
        return PointSolid::Inside {
            depth: -top,
            face: top_face,
        };
    }
    let mut best = (x, Found::Face(top_face), f64::INFINITY);
    // The top face first: its plane distance is a lower bound of the distance, so a
    // projection inside it is the answer, and otherwise its edges bound the rest well.
    if face_candidates(s, x, top_face, top, &mut best) {
        return PointSolid::Apart {
            q: best.0,
            feature: Feature::Face(top_face),
        };
    }
    for (f, face) in s.faces().iter().enumerate() {
        let h = face.normal.dot(x) - face.offset;
        if f as u32 != top_face && h > 0.0 && h * h < best.2 {
            face_candidates(s, x, f as u32, h, &mut best);
        }
    }
    PointSolid::Apart {
        q: best.0,
        feature: feature_of(s, best.1),
    }
}

/// The cores' answer when this file has one: closest points, features and distance of cores
/// apart, or (a point core inside a solid) the core penetration.
enum CoreAnswer {
    Apart(Closest, DVec3),
    /// Core depth, unit normal (B's separating translation), the core points (A's, B's).
    Inside(f64, DVec3, DVec3, DVec3),
}

/// The cores' answer (`None`: not this file's pair).
#[inline(always)]
fn core_answer(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose, features: bool) -> Option<CoreAnswer> {
    let (solid, ps, point, point_is_a) = match (a.dimension(), b.dimension()) {
        (0, 3) => (b, pb, placed(pa, a.vertex(0)), true),
        (3, 0) => (a, pa, placed(pb, b.vertex(0)), false),
        _ => {
            let origin = pa.translation;
            let (ka, kb) = (core(a, pa, origin), core(b, pb, origin));
            let mut c = closest(&ka, &kb);
            c.ca += origin;
            c.cb += origin;
            // The normal rule of `rounded::separated_normal` for cores apart beyond the
            // tolerance: the edges' cross product for two interior edge points.
            let mut n = DVec3::ZERO;
            if let (Feature::Edge(_), Feature::Edge(_)) = (c.features.a, c.features.b) {
                let x = (ka.p1 - ka.p0)
                    .normalize_or_zero()
                    .cross((kb.p1 - kb.p0).normalize_or_zero());
                let l = x.length();
                let v = c.v;
                if l > ROUNDED_EDGE_SIN && x.dot(v) != 0.0 {
                    n = x / l * x.dot(v).signum();
                }
            }
            return Some(CoreAnswer::Apart(c, n));
        }
    };
    let x = ps.inverse_transform_point(point);
    match point_solid(solid, x, features) {
        PointSolid::Apart { q: ql, feature } => {
            let q = ps.transform_point(ql);
            // The distance in the solid's frame, where `x` is the point's offset from the
            // solid's own translation (its world coordinates would add their rounding: a
            // sphere 3 from a box a million units out lost 1e-11 of its distance); the
            // direction too, turned into the world (rotation only).
            let vl = if point_is_a { ql - x } else { x - ql };
            let (v, d2) = (ps.transform_vector(vl), vl.length_squared());
            // A face of the solid gives the normal (`rounded::separated_normal`'s rule).
            let face_n = match feature {
                Feature::Face(f) => ps.transform_vector(solid.face(f).normal),
                _ => DVec3::ZERO,
            };
            Some(CoreAnswer::Apart(
                Closest {
                    v,
                    d2,
                    ..if point_is_a {
                        Closest::new(point, q, Feature::Vertex(0), feature)
                    } else {
                        Closest::new(q, point, feature, Feature::Vertex(0))
                    }
                },
                if point_is_a { -face_n } else { face_n },
            ))
        }
        PointSolid::Inside { depth, face } => {
            let nf = ps.transform_vector(solid.face(face).normal);
            let on_face = point + nf * depth;
            Some(if point_is_a {
                // B (the solid) moves against its face normal to free the point.
                CoreAnswer::Inside(depth, -nf, point, on_face)
            } else {
                CoreAnswer::Inside(depth, nf, on_face, point)
            })
        }
    }
}

/// The rounded answer of cores apart beyond the contact tolerance (or a point core inside a
/// solid deeper than it), and its unit normal (A towards B); `None` when the cores are within
/// the tolerance bound of contact.
#[inline(always)]
fn rounded_answer(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    bound: f64,
    features: bool,
) -> Option<(Distance, DVec3)> {
    let (ra, rb) = (a.radius(), b.radius());
    let (c, n) = match core_answer(a, pa, b, pb, features)? {
        CoreAnswer::Apart(c, n) => (c, n),
        CoreAnswer::Inside(depth, n, ca, cb) => {
            if !(depth > bound) {
                return None;
            }
            let witness = if a.dimension() == 0 { ca } else { cb };
            let depth = depth + ra + rb;
            return Some((
                Distance::Penetrating {
                    witness: OverlapWitness::CommonPoint(witness),
                    penetration: Some(Penetration {
                        depth,
                        relative_depth: depth,
                        normal: n,
                        point_a: ca + n * ra,
                        point_b: cb - n * rb,
                    }),
                    iterations: 0,
                },
                n,
            ));
        }
    };
    let v = c.v;
    let dc = c.d2.sqrt();
    if !(dc > bound) {
        return None;
    }
    let n = if is_origin(n) { v / dc } else { n };
    let r = ra + rb;
    let (qa, qb) = (c.ca + n * ra, c.cb - n * rb);
    // Exactly touching (dc = r) is a distance of 0 with its features, as for solids.
    if dc >= r {
        return Some((
            Distance::Separated {
                distance: dc - r,
                point_a: qa,
                point_b: qb,
                features: c.features,
                iterations: 0,
            },
            n,
        ));
    }
    // A point of the segment ca + t·n within r_A of ca and r_B of cb.
    let lo = (-ra).max(dc - rb);
    let hi = ra.min(dc + rb);
    Some((
        Distance::Penetrating {
            witness: OverlapWitness::CommonPoint(c.ca + n * (0.5 * (lo + hi))),
            penetration: Some(Penetration {
                depth: r - dc,
                relative_depth: r - dc,
                normal: n,
                point_a: qa,
                point_b: qb,
            }),
            iterations: 0,
        },
        n,
    ))
}

/// [`super::distance`] of two point or segment cores apart beyond the contact tolerance
/// (`None`: the generic path answers).
#[inline]
pub(super) fn distance(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose) -> Option<Distance> {
    rounded_answer(a, pa, b, pb, contact_tolerance_bound(a, pa, b, pb), true).map(|(d, _)| d)
}

/// [`super::intersect`] of two point or segment cores apart beyond the contact tolerance
/// (`None`: the generic path answers). The rounded distance against the contact tolerance,
/// as `rounded.rs` decides it.
pub(super) fn intersect(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose) -> Option<Intersection> {
    intersect_within(a, pa, b, pb, contact_tolerance_bound(a, pa, b, pb))
}

/// [`intersect`] given the pair's [`contact_tolerance_bound`].
#[inline(always)]
fn intersect_within(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    bound: f64,
) -> Option<Intersection> {
    // The features are not part of a boolean answer: the box path skips finding them.
    let (d, n) = rounded_answer(a, pa, b, pb, bound, false)?;
    // The bound decides the clear cases; the exact tolerance (rotations) only the band.
    let signed = d.signed_distance().unwrap_or(0.0);
    let tol = if signed.abs() > bound {
        bound
    } else {
        band_tolerance(a, pa, b, pb)
    };
    let plane = |p: DVec3| Plane {
        normal: n,
        offset: n.dot(p),
    };
    Some(match d {
        Distance::Separated {
            distance,
            point_a,
            point_b,
            ..
        } => {
            let mid = (point_a + point_b) * 0.5;
            if distance > tol {
                Intersection::Disjoint {
                    plane: plane(mid),
                    iterations: 0,
                }
            } else {
                Intersection::Touching {
                    point: mid,
                    plane: plane(mid),
                    iterations: 0,
                }
            }
        }
        Distance::Penetrating {
            penetration: Some(p), ..
        } if p.depth <= tol => {
            let mid = (p.point_a + p.point_b) * 0.5;
            Intersection::Touching {
                point: mid,
                plane: plane(mid),
                iterations: 0,
            }
        }
        Distance::Penetrating { witness, .. } => Intersection::Overlapping { witness, iterations: 0 },
        Distance::NotConverged { .. } => return None,
    })
}

use crate::core::tolerance::{DIRECT_MIN_BOUND, MAX_COORDINATE, UNIT_QUAT_SLACK};

/// Whether [`direct_distance`] and [`direct_intersect`] answer the pair: a point core
/// against a point, a segment or a solid of at most [`SCAN_FACES`] faces. Two segments are
/// left to the checked path: the common perpendicular's Gram determinant is a product of
/// four coordinates, which needs the safe band.
#[inline(always)]
fn direct_pair(a: &ConvexPolyhedron, b: &ConvexPolyhedron) -> bool {
    let fits = |p: &ConvexPolyhedron| p.dimension() <= 1 || (p.dimension() == 3 && p.faces().len() <= SCAN_FACES);
    (a.dimension() == 0 && fits(b)) || (b.dimension() == 0 && fits(a))
}

/// The pair's contact tolerance bound when the direct path may answer it: both poses
/// valid as given (`pose_ok`: unit quaternions within the slack, translations within
/// `MAX_COORDINATE`; any other pose takes the checked path, which normalises it or names
/// the error) and the pair above [`DIRECT_MIN_BOUND`].
///
/// No rescaling into the safe band is needed here: these closed forms multiply at most two
/// coordinates (squared lengths, dot and cross products of differences), so with every
/// coordinate within `MAX_COORDINATE` (1e150) nothing overflows, and above the floor
/// nothing that decides the answer underflows. Scaling by a power of two commutes with
/// every operation in the absence of overflow and underflow, so the answer is the one the
/// checked path computes on scaled copies and scales back, bit for bit.
///
/// `pose_ok`'s two tests are taken apart: the rotations' unit length here, and the
/// translations' bound from the terms the contact bound sums anyway — the larger absolute
/// coordinate `m` of both translations, within `MAX_COORDINATE`, and a NaN or infinite
/// coordinate anywhere makes the sum of `|t_a − t_b|` (every coordinate's difference) NaN
/// or infinite, so the bound is NaN (refused by `>=`) or `m` is infinite (refused by `<=`).
/// The same poses pass as with `pose_ok`, at half the comparisons.
#[inline(always)]
fn direct_bound(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose) -> Option<f64> {
    if !direct_pair(a, b) {
        return None;
    }
    poses_bound(a, pa, b, pb)
}

/// [`direct_bound`] for a pair the caller knows to be a direct pair (two point cores).
#[inline(always)]
fn poses_bound(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose) -> Option<f64> {
    if !(unit_rotation(pa) && unit_rotation(pb)) {
        return None;
    }
    let bound = contact_tolerance_bound(a, pa, b, pb);
    let m = pa.translation.abs().max(pb.translation.abs()).max_element();
    (m <= MAX_COORDINATE && bound >= DIRECT_MIN_BOUND).then_some(bound)
}

/// `pose_ok`'s rotation test: a quaternion of unit length within the slack (so finite and
/// non-zero).
#[inline(always)]
fn unit_rotation(p: &Pose) -> bool {
    (p.rotation.length_squared() - 1.0).abs() <= 0.25 * UNIT_QUAT_SLACK
}

/// `Auto`'s distance for a point core against a point, segment or small solid, before any
/// of the generic per-query work (pose normalisation, the safe band): the answer of
/// [`distance`], or `None` (the checked path answers, with the same result or error).
#[inline]
pub(super) fn direct_distance(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose) -> Option<Distance> {
    let bound = direct_bound(a, pa, b, pb)?;
    if a.dimension() == 0 && b.dimension() == 0 {
        return point_point(a, pa, b, pb, bound).map(|p| p.distance());
    }
    rounded_answer(a, pa, b, pb, bound, true).map(|(d, _)| d)
}

/// [`direct_distance`] for two point cores (two spheres; the caller has checked both
/// dimensions): inline in `query::distance`, no call on its path.
#[inline(always)]
pub(super) fn direct_point_point_distance(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
) -> Option<Distance> {
    let bound = poses_bound(a, pa, b, pb)?;
    point_point(a, pa, b, pb, bound).map(|p| p.distance())
}

/// [`direct_intersect`] for two point cores (two spheres; the caller has checked both
/// dimensions): inline in `query::intersect`, no call on its path; within the bound of
/// contact (where the exact tolerance decides, a call) it returns `None` and
/// [`direct_intersect`] answers, the same way.
#[inline(always)]
pub(super) fn direct_point_point_intersect(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
) -> Option<Intersection> {
    let bound = poses_bound(a, pa, b, pb)?;
    let p = point_point(a, pa, b, pb, bound)?;
    // Clearly apart or clearly overlapping: [`PointPoint::intersection`]'s first two cases.
    // Within the bound of contact (the exact tolerance, a call) the general path answers.
    let signed = p.dc - (p.ra + p.rb);
    if signed > bound {
        Some(Intersection::Disjoint {
            plane: p.plane(),
            iterations: 0,
        })
    } else if signed < -bound {
        Some(Intersection::Overlapping {
            witness: OverlapWitness::CommonPoint(p.ca + p.n * p.witness_at()),
            iterations: 0,
        })
    } else {
        None
    }
}

/// [`direct_distance`]'s boolean counterpart: the answer of [`intersect`], or `None`.
#[inline]
pub(super) fn direct_intersect(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
) -> Option<Intersection> {
    let bound = direct_bound(a, pa, b, pb)?;
    if a.dimension() == 0 && b.dimension() == 0 {
        return point_point(a, pa, b, pb, bound).map(|p| p.intersection(a, pa, b, pb, bound));
    }
    intersect_within(a, pa, b, pb, bound)
}

/// The six faces of a box whose face normals are exactly ±x, ±y, ±z in its own frame: per
/// axis the face on its − and + side (`face_of[axis][side]`), and the bounds `lo`, `hi`
/// (the faces' offsets).
struct BoxFaces {
    face_of: [[u32; 2]; 3],
    lo: DVec3,
    hi: DVec3,
}

/// The face normals of `shapes::cuboid`'s hull in its face order, as (axis, + side): the
/// `box` shape's layout, tested first (six exact comparisons of bit patterns) before the
/// general classification. A layout, not a tolerance: any other order takes the general
/// path, with the same answer.
const CUBOID_FACES: [(usize, bool); 6] = [(0, false), (2, true), (1, false), (0, true), (1, true), (2, false)];

/// `shapes::cuboid`'s edge ids: `CUBOID_EDGES[axis][v]` is the edge from vertex `v` (its bit
/// `axis` clear) along `axis`. A layout, checked against the edge's own end points before use
/// (any other layout: the neighbour search decides, with the same answer).
const CUBOID_EDGES: [[u32; 8]; 3] = [
    [7, 0, 11, 0, 4, 0, 6, 0],
    [3, 9, 0, 0, 1, 5, 0, 0],
    [0, 8, 2, 10, 0, 0, 0, 0],
];

/// Whether `n` is exactly the unit vector of `axis` on side `plus` (+0.0 elsewhere: a −0.0
/// coordinate fails, and the general classification, which accepts it, decides).
#[inline(always)]
fn normal_is(n: DVec3, axis: usize, plus: bool) -> bool {
    let one = if plus { 1.0f64 } else { -1.0 }.to_bits();
    let e = |k: usize| if k == axis { one } else { 0 };
    ((n.x.to_bits() ^ e(0)) | (n.y.to_bits() ^ e(1)) | (n.z.to_bits() ^ e(2))) == 0
}

/// The [`BoxFaces`] of `s`, or `None` when it is not a box with axis-aligned faces.
#[inline(always)]
fn box_faces(s: &ConvexPolyhedron) -> Option<BoxFaces> {
    let faces = s.faces();
    if faces.len() != 6 {
        return None;
    }
    let mut face_of = [[u32::MAX; 2]; 3];
    let (mut lo, mut hi) = ([0.0f64; 3], [0.0f64; 3]);
    let mut set = |f: usize, axis: usize, plus: bool| {
        face_of[axis][usize::from(plus)] = f as u32;
        if plus {
            hi[axis] = faces[f].offset;
        } else {
            lo[axis] = -faces[f].offset;
        }
    };
    if CUBOID_FACES
        .iter()
        .zip(faces)
        .all(|(&(axis, plus), face)| normal_is(face.normal, axis, plus))
    {
        for (f, &(axis, plus)) in CUBOID_FACES.iter().enumerate() {
            set(f, axis, plus);
        }
    } else {
        for (f, face) in faces.iter().enumerate() {
            let n = face.normal;
            let (axis, sign) = if n.y == 0.0 && n.z == 0.0 && n.x.abs() == 1.0 {
                (0, n.x)
            } else if n.x == 0.0 && n.z == 0.0 && n.y.abs() == 1.0 {
                (1, n.y)
            } else if n.x == 0.0 && n.y == 0.0 && n.z.abs() == 1.0 {
                (2, n.z)
            } else {
                return None;
            };
            set(f, axis, sign > 0.0);
        }
        if face_of.iter().flatten().any(|&f| f == u32::MAX) {
            return None;
        }
    }
    Some(BoxFaces {
        face_of,
        lo: DVec3::from_array(lo),
        hi: DVec3::from_array(hi),
    })
}

/// [`point_solid`] for a box whose faces are axis-aligned in its own frame (the `box`
/// shape, at any pose): six faces with normals ±x, ±y, ±z exactly ([`box_faces`]).
///
/// A face's plane distance is `±x_k − offset`, exactly (the normal's zero coordinates add
/// signed zeros), so some face has `x` strictly above its plane exactly when `x` lies beyond
/// a bound on some axis: inside (no axis beyond), the same face scan as [`point_solid`] (the
/// same depth and face); outside, the closest point is `x` clamped to the bounds, and its
/// feature follows from the axes `x` lies outside of (one: that axis's face; two: the edge
/// along the third axis, or a vertex when the third coordinate is at a bound, as the edge
/// projection clamps there; three: the corner), its vertices found by exact comparison of
/// coordinates — `shapes::cuboid`'s vertex order first (bit k of the index set where
/// coordinate k is at its + bound), then a search; a hull's vertices are distinct, so either
/// finds the one index — and an edge's id likewise from `shapes::cuboid`'s edge order when
/// that edge joins the two corners, else by the neighbour search ([`feature_of`]) —
/// (`features` false: not looked up, for the boolean answer). `None`
/// for any other solid, or a box whose corners do not match its face offsets exactly (the
/// scan answers). O(faces + vertices) from the shape's own data, nothing cached.
#[inline]
fn point_box(s: &ConvexPolyhedron, x: DVec3, features: bool) -> Option<PointSolid> {
    let BoxFaces { face_of, lo, hi } = box_faces(s)?;
    let (mut out, mut on_bound, mut face, mut free) = (0, 0, 0u32, 0usize);
    for k in 0..3 {
        if x[k] < lo[k] || x[k] > hi[k] {
            out += 1;
            face = face_of[k][usize::from(x[k] > hi[k])];
        } else if x[k] == lo[k] || x[k] == hi[k] {
            on_bound += 1;
        } else {
            free = k;
        }
    }
    if out == 0 {
        let (mut top, mut top_face) = (f64::NEG_INFINITY, 0u32);
        for (f, face) in s.faces().iter().enumerate() {
            let h = face.normal.dot(x) - face.offset;
            if h > top {
                (top, top_face) = (h, f as u32);
            }
        }
        return Some(PointSolid::Inside {
            depth: -top,
            face: top_face,
        });
    }
    let q = x.max(lo).min(hi);
    let vertices = s.vertices();
    let corner = |p: DVec3| {
        let guess = usize::from(p.x == hi.x) | usize::from(p.y == hi.y) << 1 | usize::from(p.z == hi.z) << 2;
        if vertices.get(guess) == Some(&p) {
            return Some(guess as u32);
        }
        vertices.iter().position(|&v| v == p).map(|i| i as u32)
    };
    let feature = match (out, on_bound) {
        (1, _) => Feature::Face(face),
        // The boolean answer needs only whether the point is on a face (its normal).
        _ if !features => Feature::Vertex(0),
        (2, 0) => {
            let (mut p0, mut p1) = (q, q);
            p0[free] = lo[free];
            p1[free] = hi[free];
            let (u, w) = (corner(p0)?, corner(p1)?);
            let e = CUBOID_EDGES[free][(u as usize) & 7];
            match s.edges().get(e as usize) {
                Some(edge) if edge.vertices == [u, w] || edge.vertices == [w, u] => Feature::Edge(e),
                _ => feature_of(s, Found::Between(u, w)),
            }
        }
        _ => Feature::Vertex(corner(q)?),
    };
    Some(PointSolid::Apart { q, feature })
}

/// Two point cores (spheres, plain points) apart beyond the bound: centres, their
/// distance and the unit normal.
struct PointPoint {
    ca: DVec3,
    cb: DVec3,
    dc: f64,
    n: DVec3,
    ra: f64,
    rb: f64,
}

/// Two point cores apart beyond `bound` (`None` otherwise: the checked path answers).
#[inline(always)]
fn point_point(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose, bound: f64) -> Option<PointPoint> {
    let (ca, cb) = (placed(pa, a.vertex(0)), placed(pb, b.vertex(0)));
    let v = cb - ca;
    let dc = v.length_squared().sqrt();
    if !(dc > bound) {
        return None;
    }
    Some(PointPoint {
        ca,
        cb,
        dc,
        n: v / dc,
        ra: a.radius(),
        rb: b.radius(),
    })
}

impl PointPoint {
    /// [`rounded_answer`]'s distance for two point cores, term for term.
    #[inline(always)]
    fn distance(&self) -> Distance {
        let &PointPoint { ca, cb, dc, n, ra, rb } = self;
        let r = ra + rb;
        let (qa, qb) = (ca + n * ra, cb - n * rb);
        if dc >= r {
            return Distance::Separated {
                distance: dc - r,
                point_a: qa,
                point_b: qb,
                features: FeaturePair {
                    a: Feature::Vertex(0),
                    b: Feature::Vertex(0),
                },
                iterations: 0,
            };
        }
        let lo = (-ra).max(dc - rb);
        let hi = ra.min(dc + rb);
        Distance::Penetrating {
            witness: OverlapWitness::CommonPoint(ca + n * (0.5 * (lo + hi))),
            penetration: Some(Penetration {
                depth: r - dc,
                relative_depth: r - dc,
                normal: n,
                point_a: qa,
                point_b: qb,
            }),
            iterations: 0,
        }
    }

    /// [`intersect_within`]'s answer for two point cores: the status term for term (the
    /// exact contact tolerance only within the bound of contact), the separating plane in
    /// closed form.
    ///
    /// The plane is the one half-way between the two surfaces along `n`: A's surface point
    /// `c_a + n·r_a` and B's `c_b − n·r_b` lie at `n·c_a + r_a` and `n·c_a + d_c − r_b` along
    /// `n` (as `n·(c_b − c_a) = d_c`), so its offset is `n·c_a + (r_a + (d_c − r_b))/2` — the
    /// midpoint's offset `n·(q_a + q_b)/2` without forming the two points (equal in exact
    /// arithmetic; the computed ones differ by rounding, a few ulps of the coordinates, far
    /// inside the contact tolerance the certificate allows). Clearly apart (`d_c − r` beyond
    /// the bound) A lies below it by at least half the gap, B above.
    #[inline(always)]
    fn intersection(
        &self,
        a: &ConvexPolyhedron,
        pa: &Pose,
        b: &ConvexPolyhedron,
        pb: &Pose,
        bound: f64,
    ) -> Intersection {
        let &PointPoint { ca, dc, n, ra, rb, .. } = self;
        let signed = dc - (ra + rb);
        if signed > bound {
            return Intersection::Disjoint {
                plane: self.plane(),
                iterations: 0,
            };
        }
        if signed < -bound {
            return Intersection::Overlapping {
                witness: OverlapWitness::CommonPoint(ca + n * self.witness_at()),
                iterations: 0,
            };
        }
        self.band_intersection(a, pa, b, pb)
    }

    /// The plane half-way between the surfaces, in closed form (see [`Self::intersection`]).
    #[inline(always)]
    fn plane(&self) -> Plane {
        Plane {
            normal: self.n,
            offset: self.n.dot(self.ca) + 0.5 * (self.ra + (self.dc - self.rb)),
        }
    }

    /// Where along `n` from `c_a` the overlap witness lies: the middle of the stretch of the
    /// segment `c_a + t·n` within `r_a` of `c_a` and `r_b` of `c_b`.
    #[inline(always)]
    fn witness_at(&self) -> f64 {
        let lo = (-self.ra).max(self.dc - self.rb);
        let hi = self.ra.min(self.dc + self.rb);
        0.5 * (lo + hi)
    }

    /// [`Self::intersection`] within the bound of contact, where the exact contact tolerance
    /// decides: rare, out of line.
    #[cold]
    #[inline(never)]
    fn band_intersection(&self, a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose) -> Intersection {
        let &PointPoint { ca, cb, dc, n, ra, rb } = self;
        let r = ra + rb;
        let tol = contact_tolerance(a, pa, b, pb);
        if dc > r && dc - r > tol {
            return Intersection::Disjoint {
                plane: self.plane(),
                iterations: 0,
            };
        }
        if dc > r || r - dc <= tol {
            let mid = ((ca + n * ra) + (cb - n * rb)) * 0.5;
            return Intersection::Touching {
                point: mid,
                plane: Plane {
                    normal: n,
                    offset: n.dot(mid),
                },
                iterations: 0,
            };
        }
        Intersection::Overlapping {
            witness: OverlapWitness::CommonPoint(ca + n * self.witness_at()),
            iterations: 0,
        }
    }
}

/// [`contact_tolerance`] for a pair within its bound of contact: rare, kept out of line so
/// that the common path calls nothing (no registers saved around a call).
#[cold]
#[inline(never)]
fn band_tolerance(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose) -> f64 {
    contact_tolerance(a, pa, b, pb)
}
