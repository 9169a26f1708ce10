//! The answer contract: what every algorithm returns, and the pair's scale and contact
//! tolerance every algorithm and the query layer judge contact by.
//!
//! Every result is an enum carrying a witness that [`crate::verify`] can check
//! independently; non-convergence is its own variant, never a geometric answer. All points,
//! planes and directions in results are in the **world frame**. This layer sits above the
//! shapes and below the algorithms: it knows no algorithm.

use crate::core::error::PolycdError;
use crate::core::math::{DMat3, DVec3, Plane, Pose};
use crate::core::tolerance::CONTACT_REL;
pub use crate::shape::feature::{Feature, FeaturePair};
use crate::shape::polyhedron::ConvexPolyhedron;

/// Up to four vertices of the Minkowski difference A − B, each a pair (vertex of A, vertex of
/// B), whose convex hull contains the origin: a certificate that A and B intersect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MinkowskiSimplex {
    /// (vertex of A, vertex of B) pairs; only the first `len` are meaningful.
    pub pairs: [(u32, u32); 4],
    /// Number of pairs used (1..=4).
    pub len: u8,
}

impl MinkowskiSimplex {
    /// The pairs in use.
    pub fn pairs(&self) -> &[(u32, u32)] {
        &self.pairs[..self.len as usize]
    }

    /// A point common to both shapes (world frame) read off the simplex: with barycentric
    /// weights `λ` of the origin in the hull of the differences `a_i − b_i`, `Σλ·a_i = Σλ·b_i`
    /// lies in both (returned as the mean of the two sums). `None` for invalid ids or a
    /// degenerate simplex that does not hold the origin.
    pub fn common_point(
        &self,
        a: &ConvexPolyhedron,
        pose_a: &Pose,
        b: &ConvexPolyhedron,
        pose_b: &Pose,
    ) -> Option<DVec3> {
        let n = (self.len as usize).min(4);
        let mut pa = [DVec3::ZERO; 4];
        let mut pb = [DVec3::ZERO; 4];
        for (k, &(ia, ib)) in self.pairs[..n].iter().enumerate() {
            if ia as usize >= a.vertices().len() || ib as usize >= b.vertices().len() {
                return None;
            }
            pa[k] = pose_a.transform_point(a.vertex(ia));
            pb[k] = pose_b.transform_point(b.vertex(ib));
        }
        let m: Vec<DVec3> = (0..n).map(|k| pa[k] - pb[k]).collect();
        let w: [f64; 4] = match n {
            1 => [1.0, 0.0, 0.0, 0.0],
            2 => {
                let e = m[1] - m[0];
                let l2 = e.length_squared();
                if !(l2 > 0.0) {
                    return None;
                }
                let t = (-m[0].dot(e) / l2).clamp(0.0, 1.0);
                [1.0 - t, t, 0.0, 0.0]
            }
            3 => {
                let nrm = (m[1] - m[0]).cross(m[2] - m[0]);
                let l2 = nrm.length_squared();
                if !(l2 > 0.0) {
                    return None;
                }
                let y = nrm * (nrm.dot(m[0]) / l2);
                let l = [
                    nrm.dot((m[1] - y).cross(m[2] - y)),
                    nrm.dot((m[2] - y).cross(m[0] - y)),
                    nrm.dot((m[0] - y).cross(m[1] - y)),
                ];
                [l[0].max(0.0), l[1].max(0.0), l[2].max(0.0), 0.0]
            }
            4 => {
                let o = DVec3::ZERO;
                let v = [
                    (m[1] - o).dot((m[2] - o).cross(m[3] - o)),
                    (o - m[0]).dot((m[2] - m[0]).cross(m[3] - m[0])),
                    (m[1] - m[0]).dot((o - m[0]).cross(m[3] - m[0])),
                    (m[1] - m[0]).dot((m[2] - m[0]).cross(o - m[0])),
                ];
                let vol = v[0] + v[1] + v[2] + v[3];
                if !(vol.abs() > 0.0) {
                    return None;
                }
                let w = [v[0] / vol, v[1] / vol, v[2] / vol, v[3] / vol];
                // Flat tetrahedra (needles, slabs) make the direct weights inaccurate enough
                // that the two sums below fall up to 1e-6 of the size apart: refined.
                let w = crate::core::geometry::refine_affine_weights(w, &pa, &pb);
                [w[0].max(0.0), w[1].max(0.0), w[2].max(0.0), w[3].max(0.0)]
            }
            _ => return None,
        };
        let sum: f64 = w.iter().sum();
        if !(sum > 0.0) || !sum.is_finite() {
            return None;
        }
        let mut p = DVec3::ZERO;
        for k in 0..n {
            p += (pa[k] + pb[k]) * (0.5 * w[k] / sum);
        }
        p.is_finite().then_some(p)
    }
}

/// Why two shapes are known to intersect.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum OverlapWitness {
    /// A point common to both shapes (world frame).
    CommonPoint(DVec3),
    /// Intersecting features (e.g. an edge of one piercing a face of the other, or a vertex
    /// inside the other shape) and a point they share (world frame).
    Features {
        /// The features.
        features: FeaturePair,
        /// A common point.
        point: DVec3,
    },
    /// A simplex of Minkowski-difference vertices containing the origin.
    Simplex(MinkowskiSimplex),
}

/// Answer to [`intersect`](crate::query::intersect).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Intersection {
    /// Disjoint. A lies in `normal · x < offset`, B in `normal · x > offset`.
    Disjoint {
        /// The separating plane (world frame).
        plane: Plane,
        /// Iterations the algorithm used.
        iterations: u32,
    },
    /// The shapes touch: they share boundary points but (within the contact tolerance) no
    /// interior points.
    Touching {
        /// A (near-)common boundary point (world frame).
        point: DVec3,
        /// A plane that weakly separates them (A below, B above).
        plane: Plane,
        /// Iterations.
        iterations: u32,
    },
    /// The interiors overlap.
    Overlapping {
        /// The certificate.
        witness: OverlapWitness,
        /// Iterations.
        iterations: u32,
    },
    /// The iteration bound was hit before an answer was certain.
    NotConverged {
        /// Iterations used (= the bound).
        iterations: u32,
    },
}

/// Penetration depth and direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Penetration {
    /// Length of the shortest translation of B that separates the shapes.
    pub depth: f64,
    /// Its direction (unit, world frame): moving B by `depth · normal` makes them touch.
    pub normal: DVec3,
    /// Deepest point of A inside B / of B inside A after that translation's start (world).
    pub point_a: DVec3,
    /// Matching point on B (world).
    pub point_b: DVec3,
    /// How deep the origin lies in the *relative* interior of `M = A − B`: equal to `depth`
    /// when `M` is solid; when `M` is flat (two points, segments or polygons in one plane or
    /// line, where `depth` is 0) the depth within its plane or line (`+∞` for two coincident
    /// points). The pair overlaps (its shapes' relative interiors meet) when it exceeds the
    /// contact tolerance ([`Distance::status`]).
    pub relative_depth: f64,
}

/// Answer to [`distance`](crate::query::distance).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Distance {
    /// Separated (or touching, when `distance` is within the contact tolerance).
    Separated {
        /// Euclidean distance.
        distance: f64,
        /// Closest point on A (world frame).
        point_a: DVec3,
        /// Closest point on B (world frame).
        point_b: DVec3,
        /// Features of A and B carrying the closest points.
        features: FeaturePair,
        /// Iterations.
        iterations: u32,
    },
    /// The shapes overlap.
    Penetrating {
        /// Why they overlap.
        witness: OverlapWitness,
        /// Penetration depth, when the algorithm computes it.
        penetration: Option<Penetration>,
        /// Iterations.
        iterations: u32,
    },
    /// The iteration bound was hit.
    NotConverged {
        /// Iterations used.
        iterations: u32,
    },
}

/// Answer to [`directional`](crate::query::directional): translating B by `t · direction` (unit direction, world frame).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Directional {
    /// After translating B by `t · direction` the shapes just touch; `t` is the
    /// smallest-magnitude such value (first contact when apart, shortest separating
    /// translation along the line when overlapping, 0 when touching).
    Contact {
        /// The signed translation length.
        t: f64,
        /// The plane of contact after the translation (A below, B above), world frame.
        plane: Plane,
        /// Iterations.
        iterations: u32,
    },
    /// No translation along this line makes the shapes touch.
    Never {
        /// Iterations.
        iterations: u32,
    },
    /// The iteration bound was hit.
    NotConverged {
        /// Iterations used.
        iterations: u32,
    },
}

/// Where a point lies relative to a solid shape ([`point_query`](crate::query::point_query)),
/// decided by exact `orient3d` signs of the point (mapped into the shape's frame) against
/// each face's plane, the plane through three of the face's vertices (its first, and the ones a
/// third and two thirds of the way round it): no tolerance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Containment {
    /// Strictly below every face plane: in the interior.
    Inside,
    /// On at least one face plane and above none: on the boundary, exactly.
    Boundary,
    /// Strictly above some face plane.
    Outside,
}

/// Answer to [`point_query`](crate::query::point_query): a point against one shape at a pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointAnswer {
    /// Inside, on the boundary or outside, decided exactly (see [`Containment`]).
    pub containment: Containment,
    /// Distance to the boundary: positive outside, `−`(distance to the boundary) inside, 0 on
    /// the boundary.
    pub signed_distance: f64,
    /// The closest point of the shape's boundary (world frame); the query point itself when
    /// it lies on the boundary.
    pub point: DVec3,
    /// The feature carrying [`point`](Self::point): the lowest-dimensional one whose Voronoi
    /// region holds the query point outside, the nearest face inside, the face, edge or vertex
    /// the point lies on on the boundary.
    pub feature: Feature,
}

impl PointAnswer {
    /// The Euclidean distance from the point to the shape (as a solid): the signed distance
    /// outside, 0 inside and on the boundary.
    pub fn distance(&self) -> f64 {
        self.signed_distance.max(0.0)
    }

    /// The contact status with `tolerance` (see [`point_contact_tolerance`]): touching on the
    /// boundary or within the tolerance of it, overlapping inside, disjoint outside.
    pub fn status(&self, tolerance: f64) -> Status {
        match self.containment {
            Containment::Boundary => Status::Touching,
            _ if self.signed_distance.abs() <= tolerance => Status::Touching,
            Containment::Inside => Status::Overlapping,
            Containment::Outside => Status::Disjoint,
        }
    }
}

/// Answer to [`ray_cast`](crate::query::ray_cast): the first point `origin + t·direction`,
/// `t ≥ 0`, of the ray in the (closed, solid) shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The ray parameter, in units of the direction *as given* (not normalised): the hit is
    /// `origin + t·direction`, so `t·|direction|` is the distance travelled. 0 when the origin
    /// lies in the shape (inside or on its boundary).
    pub t: f64,
    /// The hit point (world frame): `origin + t·direction`, the origin itself when `t = 0`.
    pub point: DVec3,
    /// The outward unit normal (world frame) of the face the ray enters by (for a hit on an
    /// edge or vertex, a face through it that the ray enters or grazes); the zero vector when
    /// the origin is strictly inside (no surface is crossed).
    pub normal: DVec3,
    /// The feature hit: the face crossed, or the edge or vertex when the ray passes exactly
    /// through one; the feature holding the origin when it starts on the boundary; `None`
    /// when the origin is strictly inside.
    pub feature: Option<Feature>,
}

/// The contact tolerance of a point query: [`CONTACT_REL`] times the length scale of the shape
/// and the point (the shape's bounding radius, the point's distance from its centre, the
/// largest coordinate magnitude and the pose's translation), as [`pair_scale`] measures a pair
/// in which one shape is the point.
pub fn point_contact_tolerance(shape: &ConvexPolyhedron, pose: &Pose, point: DVec3) -> f64 {
    let c = pose.transform_point(shape.bounding_sphere().0);
    let scale = shape.scale()
        + (c - point).length()
        + shape.magnitude().max(point.abs().max_element())
        + pose.translation.abs().max_element();
    CONTACT_REL * scale
}

/// Contact status of a pair, as reported by the CLI and batch format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Status {
    /// Strictly apart.
    Disjoint,
    /// Touching within the contact tolerance.
    Touching,
    /// Interiors overlap.
    Overlapping,
    /// No answer (the algorithm did not converge).
    Unknown,
}

/// The length scale of a pair: both bounding radii plus the distance between the shapes'
/// reference positions and their coordinate magnitudes (rounding grows with all of them),
/// plus both rounding radii ([`ConvexPolyhedron::radius`]; added last, so radius 0 leaves
/// the scale bit for bit as it is for polytopes).
pub fn pair_scale(a: &ConvexPolyhedron, pose_a: &Pose, b: &ConvexPolyhedron, pose_b: &Pose) -> f64 {
    pair_scale_and_centre_distance(a, pose_a, b, pose_b).0
}

/// [`pair_scale`] and the distance between the two bounding spheres' centres (world frame),
/// which it measures anyway: a caller can reject pairs whose spheres are far apart with it.
pub(crate) fn pair_scale_and_centre_distance(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
) -> (f64, f64) {
    let ca = pose_a.transform_point(a.bounding_sphere().0);
    let cb = pose_b.transform_point(b.bounding_sphere().0);
    let d = (ca - cb).length();
    (scale_with_centre_distance(a, pose_a, b, pose_b, d), d)
}

/// [`pair_scale`] given the distance between the bounding-sphere centres.
#[inline]
fn scale_with_centre_distance(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    centre_distance: f64,
) -> f64 {
    a.scale()
        + b.scale()
        + centre_distance
        + a.magnitude().max(b.magnitude())
        + pose_a
            .translation
            .abs()
            .max_element()
            .max(pose_b.translation.abs().max_element())
        + (a.radius + b.radius)
}

/// [`pair_scale`] from B's pose relative to A (`x ↦ rot·x + trans`, already at hand in the
/// algorithms' setup): the centre distance is measured in A's frame, one matrix product
/// instead of two quaternion rotations. Equal to [`pair_scale`] up to the rounding of that
/// distance (a few ulps of a tolerance's scale).
pub(crate) fn pair_scale_relative(
    a: &ConvexPolyhedron,
    pose_a: &Pose,
    b: &ConvexPolyhedron,
    pose_b: &Pose,
    rot: &DMat3,
    trans: DVec3,
) -> f64 {
    let d = a.bounding_sphere().0 - (*rot * b.bounding_sphere().0 + trans);
    scale_with_centre_distance(a, pose_a, b, pose_b, d.length())
}

/// The contact tolerance for a pair: signed distances within it of zero mean "touching".
pub fn contact_tolerance(a: &ConvexPolyhedron, pose_a: &Pose, b: &ConvexPolyhedron, pose_b: &Pose) -> f64 {
    CONTACT_REL * pair_scale(a, pose_a, b, pose_b)
}

/// An upper bound of [`contact_tolerance`] without rotations or square roots: the rotations
/// preserve the lengths [`pair_scale`] measures (`|c_a − c_b| ≤ |t_a − t_b| + |c_a,local| +
/// |c_b,local|`), each length is bounded by the sum of the absolute coordinates, the larger
/// magnitude by the sum of both, and the relative slack covers the rounding. The shapes'
/// terms are summed once per shape (`tol_extent`).
#[inline(always)]
pub(crate) fn contact_tolerance_bound(a: &ConvexPolyhedron, pose_a: &Pose, b: &ConvexPolyhedron, pose_b: &Pose) -> f64 {
    let (ta, tb) = (pose_a.translation, pose_b.translation);
    let upper = a.tol_extent + b.tol_extent + (ta - tb).abs().element_sum() + ta.abs().max(tb.abs()).max_element();
    CONTACT_REL * upper * (1.0 + crate::core::tolerance::BOUND_SLACK_REL)
}

/// The common case of [`checked_pose`] in one test: a rotation of unit length within a few
/// ulps (so finite and non-zero) and a translation within the coordinate bound (so finite),
/// where every check passes and the pose is used as given.
#[inline]
pub(crate) fn pose_ok(p: &Pose) -> bool {
    let l2 = p.rotation.length_squared();
    (l2 - 1.0).abs() <= 0.25 * crate::core::tolerance::UNIT_QUAT_SLACK
        && p.translation
            .abs()
            .cmple(DVec3::splat(crate::core::tolerance::MAX_COORDINATE))
            .all()
}

/// The pose, validated (finite, a non-zero quaternion, translation within
/// [`crate::core::tolerance::MAX_COORDINATE`]) and with its rotation normalised.
#[inline]
pub(crate) fn checked_pose(p: &Pose) -> Result<Pose, PolycdError> {
    if pose_ok(p) {
        return Ok(*p);
    }
    if !p.translation.is_finite() || !p.rotation.is_finite() {
        return Err(PolycdError::NonFinitePose);
    }
    let l2 = p.rotation.length_squared();
    if !(l2 > crate::core::tolerance::ZERO_QUAT_NORM * crate::core::tolerance::ZERO_QUAT_NORM) {
        return Err(PolycdError::ZeroQuaternion);
    }
    let m = p.translation.abs().max_element();
    if m > crate::core::tolerance::MAX_COORDINATE {
        return Err(PolycdError::AbsurdMagnitude { value: m });
    }
    // Unit within a few ulps already (the common case: poses built from unit quaternions):
    // normalising again would only move it by rounding.
    if (l2 - 1.0).abs() <= 0.25 * crate::core::tolerance::UNIT_QUAT_SLACK {
        return Ok(*p);
    }
    Ok(Pose::new(p.rotation.normalize(), p.translation))
}

impl Intersection {
    /// The contact status.
    pub fn status(&self) -> Status {
        match self {
            Intersection::Disjoint { .. } => Status::Disjoint,
            Intersection::Touching { .. } => Status::Touching,
            Intersection::Overlapping { .. } => Status::Overlapping,
            Intersection::NotConverged { .. } => Status::Unknown,
        }
    }
    /// Iterations used.
    pub fn iterations(&self) -> u32 {
        match *self {
            Intersection::Disjoint { iterations, .. }
            | Intersection::Touching { iterations, .. }
            | Intersection::Overlapping { iterations, .. }
            | Intersection::NotConverged { iterations } => iterations,
        }
    }
    pub(crate) fn with_iterations(mut self, n: u32) -> Self {
        match &mut self {
            Intersection::Disjoint { iterations, .. }
            | Intersection::Touching { iterations, .. }
            | Intersection::Overlapping { iterations, .. }
            | Intersection::NotConverged { iterations } => *iterations = n,
        }
        self
    }
}

impl Distance {
    /// The contact status, with `tolerance` (see [`contact_tolerance`]) separating touching
    /// from disjoint and from shallow penetration.
    pub fn status(&self, tolerance: f64) -> Status {
        match self {
            Distance::Separated { distance, .. } if *distance <= tolerance => Status::Touching,
            Distance::Separated { .. } => Status::Disjoint,
            Distance::Penetrating {
                penetration: Some(p), ..
            } if p.relative_depth <= tolerance => Status::Touching,
            Distance::Penetrating { .. } => Status::Overlapping,
            Distance::NotConverged { .. } => Status::Unknown,
        }
    }
    /// Distance when separated, minus the penetration depth when known, `None` otherwise.
    pub fn signed_distance(&self) -> Option<f64> {
        match self {
            Distance::Separated { distance, .. } => Some(*distance),
            Distance::Penetrating {
                penetration: Some(p), ..
            } => Some(-p.depth),
            _ => None,
        }
    }
    /// Iterations used.
    pub fn iterations(&self) -> u32 {
        match *self {
            Distance::Separated { iterations, .. }
            | Distance::Penetrating { iterations, .. }
            | Distance::NotConverged { iterations } => iterations,
        }
    }
    pub(crate) fn with_iterations(mut self, n: u32) -> Self {
        match &mut self {
            Distance::Separated { iterations, .. }
            | Distance::Penetrating { iterations, .. }
            | Distance::NotConverged { iterations } => *iterations = n,
        }
        self
    }
}

impl Directional {
    /// Iterations used.
    pub fn iterations(&self) -> u32 {
        match *self {
            Directional::Contact { iterations, .. }
            | Directional::Never { iterations }
            | Directional::NotConverged { iterations } => iterations,
        }
    }
    pub(crate) fn with_iterations(mut self, n: u32) -> Self {
        match &mut self {
            Directional::Contact { iterations, .. }
            | Directional::Never { iterations }
            | Directional::NotConverged { iterations } => *iterations = n,
        }
        self
    }
}

/// One point of a [`ContactManifold`] (world frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPoint {
    /// The point on A's surface.
    pub a: DVec3,
    /// The point on B's surface: `b = a + separation · normal` (up to rounding).
    pub b: DVec3,
    /// Signed distance along the manifold's normal from `a` to `b`: positive apart (a
    /// speculative point within the margin), negative penetrating.
    pub separation: f64,
    /// The features of A and B the point comes from: for a face contact, an incident vertex
    /// `v` kept by the clip gives (reference face, vertex `v`), an incident edge cut by a side
    /// plane of the reference face (reference edge, incident edge), a corner of the reference
    /// face inside the incident face (reference vertex, incident face) — each listed as
    /// (feature of A, feature of B); a single-point contact gives the features of A and B
    /// supporting the normal. Stable while the contact's combinatorics are: the key to carry
    /// impulses from frame to frame.
    pub features: FeaturePair,
    /// A persistent id: with a [`ManifoldCache`](crate::query::ManifoldCache) used frame after
    /// frame, a point matched (by `features`) to one of the last frame's points keeps its id;
    /// a new point gets a fresh one.
    pub id: u32,
    /// The index of the matched point in the last frame's manifold, `None` for a new point.
    pub previous: Option<u32>,
}

/// Which shape's face a face contact was clipped on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ManifoldKind {
    /// A face of A is the reference face (the normal is its outward normal).
    FaceA(u32),
    /// A face of B is the reference face (the normal is minus its outward normal).
    FaceB(u32),
    /// No face contact (crossing edges, a vertex on an edge or vertex, a segment or point
    /// pair): one point.
    Point,
}

/// The contact region of two convex shapes ([`contact_manifold`](crate::query::contact_manifold)):
/// the contact normal and the contact points, counter-clockwise around the normal.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactManifold {
    /// Unit, world frame, from A toward B: moving B along it separates the shapes.
    pub normal: DVec3,
    /// Face contact (and on which shape's face) or single point.
    pub kind: ManifoldKind,
    /// The points (at least one).
    pub points: Vec<ContactPoint>,
}

impl ContactManifold {
    /// The deepest point's separation (the smallest).
    pub fn min_separation(&self) -> f64 {
        self.points.iter().map(|p| p.separation).fold(f64::INFINITY, f64::min)
    }
}

/// Options of a contact-manifold query.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct ManifoldOptions {
    /// Speculative margin (≥ 0): points apart by up to this are reported (with positive
    /// separation); a pair apart by more gives no manifold.
    pub margin: f64,
    /// Reduce to at most 4 points (the deepest, then the largest area), else the full polygon.
    pub reduce: bool,
}

impl Default for ManifoldOptions {
    fn default() -> Self {
        ManifoldOptions {
            margin: 0.0,
            reduce: false,
        }
    }
}

/// Builders: the struct is `#[non_exhaustive]`, so callers outside polycd start from
/// [`ManifoldOptions::default`] and set what they need.
impl ManifoldOptions {
    /// With [`ManifoldOptions::margin`] set.
    #[must_use]
    pub fn with_margin(mut self, margin: f64) -> Self {
        self.margin = margin;
        self
    }

    /// With [`ManifoldOptions::reduce`] set.
    #[must_use]
    pub fn with_reduce(mut self, reduce: bool) -> Self {
        self.reduce = reduce;
        self
    }
}
