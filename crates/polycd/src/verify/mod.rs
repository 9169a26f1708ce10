//! Independent checks of query results: every answer carries a certificate, and these
//! routines check it against the two shapes and poses without running any algorithm.
//!
//! Paper: none of the five; this is issue 8 ("never wrong"). The certificates are the classical
//! ones of convex geometry (a separating plane proves disjointness — the separating-axis
//! theorem; a common point or a Minkowski simplex around the origin proves overlap; a plane
//! through the closest point of A, normal to the closest-point vector, that weakly separates
//! both vertex sets proves the distance is minimal — the dual of the minimum-norm problem).
//!
//! Outline:
//! - every check works in the WORLD frame on the world vertex positions
//!   (`pose.transform_point(v)`), and on the world face planes of each shape;
//! - plane-versus-vertex-set tests first evaluate the sign of `normal·v − offset` EXACTLY (the
//!   products are split with fused multiply-add into exact pairs and summed as a
//!   non-overlapping expansion), so a plane that separates the computed world vertices is
//!   certified with no tolerance at all; only when the exact test fails is the violation
//!   measured and compared with the tolerance;
//! - the Minkowski-simplex witness of a tetrahedron is checked with exact `orient3d`; lower
//!   dimensional simplices (the origin on a triangle or a segment: a contact case) are checked
//!   by the distance of the origin to their hull;
//! - "touching" (both after a directional translation and in projection for `Never`) is
//!   checked in the contact plane with a 2-D separating-axis test on the contact vertex sets.
//!
//! Tolerance: `tol = VERIFY_FACTOR × contact_tolerance(a, pa, b, pb)` = 1e-12 × the pair scale,
//! the accuracy every algorithm is held to against the oracle ([`AGREEMENT_REL`]). A check
//! tighter than the promised accuracy would reject correct answers.
//!
//! Invariants: the routines never panic (ids in certificates are range-checked) and allocate
//! only the world vertex lists (they are for tests and `--verify`, not for the hot loop).
//!
//! Termination: every loop is over vertices, faces or a fixed small candidate set.
//!
//! Limits: a penetration depth is checked to be a *separating* translation that makes the
//! shapes touch; that it is the *shortest* one needs the oracle (done in the tests).
//! `Directional::Never` is checked by projecting both shapes along the direction (2-D hulls).
//!
//! Independence: the checks here keep their own small float routines (the 2-D hull of the
//! projections, the point–plane sums) rather than the algorithms' exact kernels where an
//! independent computation is the point of a certificate check; the exact sums and
//! products they use come from `core::geometry`.
//!
//! Rounded shapes (a core dilated by a ball of radius `r`): the same certificates with the
//! radii put in — a plane bounds a rounded shape when it bounds the core shifted by `r`; a
//! point is on a rounded shape when its distance to the core (0 inside, else the least
//! distance to a face polygon) is at most `r`, and on its surface when the distance to its
//! reported feature is `r`; a penetration's gap along its normal counts both radii; a
//! directional contact is checked as the cores' contact with B moved back by `R` along the
//! plane's normal.
//!
//! ```
//! use polycd::verify::{verify, Answer};
//! use polycd::{shapes, DVec3, Intersection, Plane, Pose};
//!
//! let a = shapes::cuboid(1.0, 1.0, 1.0).unwrap();
//! let pose_b = Pose::from_translation(DVec3::new(3.0, 0.0, 0.0));
//! // A claimed separating plane x = 1.5: the certificate holds...
//! let good = Intersection::Disjoint { plane: Plane { normal: DVec3::X, offset: 1.5 }, iterations: 0 };
//! assert!(verify(&a, &Pose::IDENTITY, &a, &pose_b, &Answer::Intersection(good)).is_ok());
//! // ...and a plane through the middle of B is rejected.
//! let bad = Intersection::Disjoint { plane: Plane { normal: DVec3::X, offset: 3.0 }, iterations: 0 };
//! assert!(verify(&a, &Pose::IDENTITY, &a, &pose_b, &Answer::Intersection(bad)).is_err());
//! // With an algorithm: check whatever it answers.
//! # use polycd::{query, Algorithm, PairCache};
//! let mut cache = PairCache::default();
//! if let Ok(d) = query::distance(&a, &Pose::IDENTITY, &a, &pose_b, Algorithm::Auto, &mut cache) {
//!     assert!(verify(&a, &Pose::IDENTITY, &a, &pose_b, &Answer::Distance(d)).is_ok());
//! }
//! ```

mod certificate;
mod convex;
mod manifold;
mod rounded;

pub use certificate::{exact_plane_sign, MAX_LOCAL_EDGES};
pub use convex::{verify_directional, verify_distance, verify_intersection};
pub use manifold::verify_manifold;

use crate::contract::{contact_tolerance, Directional, Distance, Intersection};
use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::{AGREEMENT_REL, CONTACT_REL};
use crate::shape::polyhedron::ConvexPolyhedron;
use thiserror::Error;

/// Multiple of the contact tolerance within which certificates are accepted:
/// `VERIFY_FACTOR × CONTACT_REL = AGREEMENT_REL` (1e-12 of the pair scale), the accuracy the
/// algorithms promise. Exact checks are tried first; the tolerance only admits rounding.
pub const VERIFY_FACTOR: f64 = AGREEMENT_REL / CONTACT_REL;

/// Why a certificate was rejected.
#[derive(Clone, Debug, PartialEq, Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The result is `NotConverged`: there is no answer to verify.
    #[error("the algorithm did not converge after {iterations} iterations: no certificate to check")]
    NotConverged {
        /// Iterations reported.
        iterations: u32,
    },
    /// The certificate is malformed (non-finite numbers, non-unit normal, bad ids…).
    #[error("malformed certificate: {0}")]
    Malformed(String),
    /// A plane claimed to (weakly) separate the shapes does not.
    #[error("plane does not separate the shapes: {0}")]
    NotSeparating(String),
    /// A witness point is not on (inside) the shape it should belong to.
    #[error("witness point is not on shape {shape}: {message}")]
    PointOutside {
        /// `'A'` or `'B'`.
        shape: char,
        /// Details.
        message: String,
    },
    /// A reported distance does not match its witness points.
    #[error("distance does not match its witness: {0}")]
    DistanceMismatch(String),
    /// The overlap certificate does not prove overlap.
    #[error("overlap witness does not hold: {0}")]
    NoOverlap(String),
    /// The shapes do not touch where the result says they do.
    #[error("the shapes do not touch: {0}")]
    NotTouching(String),
    /// A penetration (depth, normal) certificate fails.
    #[error("penetration certificate fails: {0}")]
    Penetration(String),
}

/// The tolerance the checks use for a pair (see the module header).
pub fn verify_tolerance(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose) -> f64 {
    VERIFY_FACTOR * contact_tolerance(a, pa, b, pb)
}

/// Any query answer, for the one-call [`verify`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Answer {
    /// An [`Intersection`].
    Intersection(Intersection),
    /// A [`Distance`].
    Distance(Distance),
    /// A [`Directional`] with the direction it answers.
    Directional {
        /// The direction (any non-zero length; normalised here).
        direction: DVec3,
        /// The answer.
        answer: Directional,
    },
}

/// Checks any answer (dispatches to [`verify_intersection`], [`verify_distance`] or
/// [`verify_directional`]).
pub fn verify(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    answer: &Answer,
) -> Result<(), VerifyError> {
    match answer {
        Answer::Intersection(r) => verify_intersection(a, pa, b, pb, r),
        Answer::Distance(r) => verify_distance(a, pa, b, pb, r),
        Answer::Directional { direction, answer } => verify_directional(a, pa, b, pb, *direction, answer),
    }
}
