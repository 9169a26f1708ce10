//! Typed errors. Every failure reachable from the public API is one of these; nothing panics.

use thiserror::Error;

/// Errors from building shapes, reading files and validating queries.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PolycdError {
    /// A convex hull needs at least four points.
    #[error("too few points: {found} given, at least 4 distinct non-coplanar points are needed")]
    TooFewPoints {
        /// Number of distinct points found.
        found: usize,
    },
    /// A coordinate is NaN or infinite.
    #[error("point {index} has a non-finite coordinate (NaN or infinity)")]
    NonFinite {
        /// Index of the offending point.
        index: usize,
    },
    /// A coordinate is too large for the algebra to stay finite.
    #[error("coordinate magnitude {value:e} exceeds the supported maximum 1e150")]
    AbsurdMagnitude {
        /// The offending magnitude.
        value: f64,
    },
    /// All points lie on one line.
    #[error("all points are collinear: the convex hull has no volume")]
    Collinear,
    /// All points lie in one plane (exactly, or within the flatness tolerance).
    #[error(
        "all points are coplanar: the convex hull has no volume (thickness {thickness:e} vs diameter {diameter:e})"
    )]
    Coplanar {
        /// Largest distance of a point from the best-fitting plane.
        thickness: f64,
        /// Diameter of the point set.
        diameter: f64,
    },
    /// A face list does not describe a closed, convex polyhedron.
    #[error("invalid boundary representation: {0}")]
    InvalidBoundary(String),
    /// A pose has NaN or infinite values.
    #[error("pose has a non-finite value")]
    NonFinitePose,
    /// A quaternion of (near) zero length.
    #[error("rotation quaternion has zero length")]
    ZeroQuaternion,
    /// A direction of zero length or with non-finite components.
    #[error("direction must be a finite non-zero vector")]
    BadDirection,
    /// A file could not be read or parsed.
    #[error("{path}: {message}")]
    File {
        /// The file's path.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// A built-in shape specification could not be parsed.
    #[error("bad shape specification '{spec}': {message}")]
    ShapeSpec {
        /// The specification text.
        spec: String,
        /// What went wrong.
        message: String,
    },
    /// The chosen algorithm does not answer this question.
    #[error("algorithm '{algorithm}' does not answer '{query}' queries")]
    Unsupported {
        /// Algorithm name.
        algorithm: &'static str,
        /// Query name.
        query: &'static str,
    },
}
