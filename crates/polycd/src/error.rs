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
    /// A rotation quaternion too far from unit length to be a rotation with rounding drift
    /// (see [`crate::tolerance::POSE_UNIT_SLACK`]).
    #[error("rotation quaternion has length {length}, not 1")]
    NonUnitQuaternion {
        /// Its length.
        length: f64,
    },
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
    /// A mesh file's faces are not the boundary of the convex hull of its vertices: the solid
    /// they bound is not convex, or they are no closed surface (see
    /// [`crate::io::read_convex_polyhedron`]). [`crate::io::read_polyhedron`] takes the hull
    /// instead.
    #[error("{path}: not a convex polyhedron: {defect}")]
    NotConvex {
        /// The file's path.
        path: String,
        /// What is wrong, and where.
        defect: ConvexityDefect,
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
    /// A triangle mesh is not a closed 2-manifold or has a degenerate triangle
    /// (continuous collision detection of non-convex meshes needs closed solids).
    #[error("invalid mesh: {0}")]
    InvalidMesh(MeshDefect),
    /// An option of a query is out of range (e.g. a non-positive distance threshold).
    #[error("invalid option '{name}': {message}")]
    InvalidOption {
        /// The option's name.
        name: &'static str,
        /// What is wrong.
        message: &'static str,
    },
    /// Continuous collision detection reached its iteration bound. The motion is known to be
    /// free of contact on `[0, t_free)`; nothing is claimed beyond.
    #[error("continuous collision detection did not converge in {iterations} steps (contact-free up to t = {t_free})")]
    CcdNotConverged {
        /// Advancement steps taken (= the bound).
        iterations: u32,
        /// The time reached: no contact before it.
        t_free: f64,
    },
}

/// What is wrong with a triangle mesh ([`PolycdError::InvalidMesh`]).
#[derive(Debug, Error, Clone, PartialEq)]
pub enum MeshDefect {
    /// The mesh has no triangles.
    #[error("the mesh has no faces")]
    Empty,
    /// A face refers to a vertex that does not exist, or has fewer than 3 vertices.
    #[error("face {face} is malformed (fewer than 3 vertices or an index out of range)")]
    BadFace {
        /// The face (index in the input).
        face: usize,
    },
    /// A triangle has (near) zero area, or repeats a vertex.
    #[error("triangle {triangle} is degenerate (zero area)")]
    DegenerateTriangle {
        /// The triangle (after fan triangulation of polygon faces).
        triangle: usize,
    },
    /// An edge bounds only one triangle: the surface is open.
    #[error("edge ({a}, {b}) bounds only one triangle: the mesh is not closed")]
    OpenEdge {
        /// Vertex ids of the edge.
        a: u32,
        /// Vertex ids of the edge.
        b: u32,
    },
    /// An edge is used twice in the same direction, or by more than two triangles.
    #[error("edge ({a}, {b}) is non-manifold or inconsistently oriented")]
    NonManifoldEdge {
        /// Vertex ids of the edge.
        a: u32,
        /// Vertex ids of the edge.
        b: u32,
    },
    /// The triangles around a vertex form more than one fan.
    #[error("vertex {vertex} is non-manifold (its triangles form more than one fan)")]
    NonManifoldVertex {
        /// The vertex.
        vertex: u32,
    },
    /// The enclosed volume is zero (or the mesh is too thin to decompose into solid pieces).
    #[error("the mesh encloses no volume or is too thin to decompose: {0}")]
    Degenerate(&'static str),
}

/// Why a mesh file's faces are not the boundary of the convex hull of its vertices
/// ([`PolycdError::NotConvex`]). Faces are numbered from 1 in file order; vertices are given by
/// their coordinates (the same in every format).
#[derive(Debug, Clone, PartialEq)]
pub enum ConvexityDefect {
    /// A face has (numerically) zero area or repeats a vertex.
    DegenerateFace {
        /// The face, counting from 1 in file order.
        face: usize,
    },
    /// A face does not lie in the boundary of the hull: the solid is not convex.
    OffHull {
        /// The face, counting from 1 in file order.
        face: usize,
        /// The face's unit normal (as the face is wound, or reversed: the side of the nearer
        /// supporting plane).
        normal: [f64; 3],
        /// How far inside the hull the face lies: the distance from its vertex nearest that
        /// side to the hull's supporting plane with that normal.
        gap: f64,
    },
    /// A directed edge of a face has no partner running the other way in another face (or has
    /// more than one): the faces are not a closed, consistently wound surface.
    OpenEdge {
        /// The face, counting from 1 in file order.
        face: usize,
        /// The edge's start vertex.
        from: [f64; 3],
        /// The edge's end vertex.
        to: [f64; 3],
    },
    /// The faces lie on the hull's boundary and close up, but do not enclose it exactly once
    /// (signed volume) or cover it exactly once (area): repeated, folded or overlapping faces.
    Coverage {
        /// The faces' signed enclosed volume.
        volume: f64,
        /// The faces' total area.
        area: f64,
        /// The hull's volume.
        hull_volume: f64,
        /// The hull's surface area.
        hull_area: f64,
    },
}

fn pt(p: &[f64; 3]) -> String {
    format!("({}, {}, {})", p[0], p[1], p[2])
}

impl std::fmt::Display for ConvexityDefect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConvexityDefect::DegenerateFace { face } => {
                write!(f, "face {face} (counting from 1 in file order) has zero area or repeats a vertex")
            }
            ConvexityDefect::OffHull { face, normal, gap } => write!(
                f,
                "face {face} (counting from 1 in file order) is not on the boundary of the convex hull of the file's vertices: it lies {gap:e} inside the hull's supporting plane with normal {}, so the solid is not convex",
                pt(normal)
            ),
            ConvexityDefect::OpenEdge { face, from, to } => write!(
                f,
                "the edge {} -> {} of face {face} (counting from 1 in file order) is not matched by exactly one edge running the other way: the faces are not a closed, consistently wound surface",
                pt(from),
                pt(to)
            ),
            ConvexityDefect::Coverage {
                volume,
                area,
                hull_volume,
                hull_area,
            } => write!(
                f,
                "the faces enclose volume {volume:e} with area {area:e}, but the hull of the vertices has volume {hull_volume:e} and area {hull_area:e}: faces are repeated, folded or overlapping"
            ),
        }
    }
}

impl std::error::Error for ConvexityDefect {}
