//! Typed errors. Every failure reachable from the public API is one of these; nothing panics.

use thiserror::Error;

/// Errors from building shapes, reading files and validating queries.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum PolycdError {
    /// No points were given (a shape needs at least one), or a face list has fewer than four
    /// vertices (a face list describes a solid).
    #[error(
        "too few points: {found} given; a shape needs at least 1 point, a face list at least 4 non-coplanar vertices"
    )]
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
    /// A rounding radius that is negative, NaN, infinite or absurdly large
    /// (`ConvexPolyhedron::with_radius`).
    #[error("radius {value} must be a finite number ≥ 0 (at most 1e150)")]
    BadRadius {
        /// The offending value.
        value: f64,
    },
    /// A pose has NaN or infinite values.
    #[error("pose has a non-finite value")]
    NonFinitePose,
    /// A quaternion of (near) zero length.
    #[error("rotation quaternion has zero length")]
    ZeroQuaternion,
    /// A rotation quaternion too far from unit length to be a rotation with rounding drift
    /// (see [`crate::core::tolerance::POSE_UNIT_SLACK`]).
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
    /// The answer needs a cargo feature this build of polycd was compiled without.
    #[error("{what} needs polycd's cargo feature '{feature}', which this build does not have")]
    FeatureDisabled {
        /// The feature (e.g. `qp-faithful`).
        feature: &'static str,
        /// What needed it (e.g. `algorithm 'qp'`).
        what: &'static str,
    },
    /// The chosen algorithm does not answer queries on a shape of this dimension (a point,
    /// segment or polygon: see the algorithm's module header for why).
    #[error("algorithm '{algorithm}' does not answer queries on {shape}s: {reason}")]
    UnsupportedShape {
        /// Algorithm name.
        algorithm: &'static str,
        /// The kind of shape: "point", "segment" or "polygon".
        shape: &'static str,
        /// Why.
        reason: &'static str,
    },
    /// A triangle mesh is not a closed 2-manifold or has a degenerate triangle
    /// (continuous collision detection of non-convex meshes needs closed solids).
    /// (The defect is boxed: it names places with their coordinates, which would make every
    /// `Result` of the crate large.)
    #[error("invalid mesh: {0}")]
    InvalidMesh(Box<MeshDefect>),
    /// A mesh file ([`crate::mesh::TriMesh::read`]) is not a closed 2-manifold or has a
    /// degenerate triangle; the defect names vertices and faces in the file's own numbering.
    #[error("{path}: invalid mesh: {defect}")]
    MeshFile {
        /// The file's path.
        path: String,
        /// What is wrong, and where.
        defect: Box<MeshDefect>,
    },
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
    /// A query's underlying measurement reached its iteration bound (e.g. the distance a
    /// contact manifold is built on): no answer is claimed.
    #[error("the {query} query did not converge within {iterations} iterations")]
    NotConverged {
        /// The query.
        query: &'static str,
        /// Iterations used (= the bound).
        iterations: u32,
    },
}

/// What is wrong with a triangle mesh ([`PolycdError::InvalidMesh`], [`PolycdError::MeshFile`]).
///
/// Vertices and faces are named in the numbering of the input ([`MeshNumbering`]): indices
/// into the slices given to `TriMesh::new`, or the file's own numbering when the mesh was read
/// from a file. Where several places are wrong, the one reported is the first in input order
/// (faces in order, each face's edges in order), so the message is the same on every run.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum MeshDefect {
    /// The mesh has no triangles.
    #[error("the mesh has no faces")]
    Empty,
    /// A face refers to a vertex that does not exist, or has fewer than 3 vertices.
    #[error("{face} is malformed (fewer than 3 vertices or an index out of range)")]
    BadFace {
        /// The face.
        face: MeshFace,
    },
    /// A face has a triangle of (near) zero area, or repeats a vertex.
    #[error("{face} has a degenerate triangle (zero area or a repeated vertex) between {}", vertex_list(.vertices))]
    DegenerateTriangle {
        /// The face (polygons are fan-triangulated; the triangle is one of its fan).
        face: MeshFace,
        /// The triangle's vertices.
        vertices: [MeshVertex; 3],
    },
    /// An edge bounds faces on one side only: the surface is open.
    #[error("{} is open: used by {faces} face{} ({face}), with no face on its other side: the mesh is not closed", edge_text(.a, .b), plural(.faces))]
    OpenEdge {
        /// First vertex of the edge (in the reported face's order).
        a: MeshVertex,
        /// Second vertex of the edge.
        b: MeshVertex,
        /// Number of faces that use the edge.
        faces: usize,
        /// The first face (in input order) that uses it.
        face: MeshFace,
    },
    /// An edge is used twice in the same direction (neighbouring faces wound opposite ways),
    /// or by more than two faces.
    #[error("{} is used by {faces} face{}, twice in the same direction ({first} and {second}): the faces around it are wound inconsistently or more than two faces meet there", edge_text(.a, .b), plural(.faces))]
    NonManifoldEdge {
        /// First vertex of the edge (in the direction both faces use it).
        a: MeshVertex,
        /// Second vertex of the edge.
        b: MeshVertex,
        /// Number of faces that use the edge (either direction).
        faces: usize,
        /// The first face that uses it in this direction.
        first: MeshFace,
        /// The second face that uses it in this direction.
        second: MeshFace,
    },
    /// The triangles around a vertex form more than one fan.
    #[error("{vertex} is non-manifold: the faces around it form more than one fan (surfaces touching at a point)")]
    NonManifoldVertex {
        /// The vertex (the first in input order among such vertices).
        vertex: MeshVertex,
    },
    /// The enclosed volume is zero (or the mesh is too thin to decompose into solid pieces).
    #[error("the mesh encloses no volume or is too thin to decompose: {0}")]
    Degenerate(&'static str),
    /// A connected component of the surface (a closed shell) encloses no volume: its signed
    /// volume is within rounding of zero, so its winding cannot be told.
    #[error("the closed component starting at {face} encloses no volume (signed volume {volume:e}, rounding bound {bound:e})")]
    FlatComponent {
        /// The component's first face.
        face: MeshFace,
        /// Its signed volume as computed.
        volume: f64,
        /// The bound of the rounding error of that sum.
        bound: f64,
    },
    /// Two closed components of the surface cross or touch (or one crosses itself), so the
    /// surface does not bound a solid and the nesting of its components is not defined.
    #[error("the closed components starting at {first} and at {second} intersect or touch: the surface does not bound a solid")]
    IntersectingComponents {
        /// The first face of one component.
        first: MeshFace,
        /// The first face of the other (the same face when a component crosses itself).
        second: MeshFace,
    },
}

/// How a [`MeshDefect`] numbers vertices and faces: as the input does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MeshNumbering {
    /// Indices into the vertex and face slices given to `TriMesh::new` (0-based).
    Input,
    /// An OBJ file: vertices 1-based in the order of the file's `v` lines, faces 1-based in the
    /// order of its `f` lines (with the line number).
    Obj,
    /// An OFF file: vertices and faces 0-based, in file order (faces with the line number).
    Off,
    /// An STL file: triangles 1-based in file order; STL vertices have no numbers, they are
    /// named by their coordinates.
    Stl,
}

/// A vertex named in a [`MeshDefect`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshVertex {
    /// The numbering of `index`.
    pub numbering: MeshNumbering,
    /// The vertex number in that numbering (for STL, the index of the de-duplicated vertex,
    /// 0-based, which the file does not show: the message gives `position`).
    pub index: u64,
    /// Its coordinates.
    pub position: [f64; 3],
}

/// A face named in a [`MeshDefect`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshFace {
    /// The numbering of `index`.
    pub numbering: MeshNumbering,
    /// The face number in that numbering.
    pub index: u64,
    /// Its line in the file (OBJ, OFF).
    pub line: Option<usize>,
}

impl std::fmt::Display for MeshVertex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [x, y, z] = self.position;
        match self.numbering {
            MeshNumbering::Input => write!(f, "vertex {} (0-based input index)", self.index),
            MeshNumbering::Obj => write!(f, "OBJ vertex {} (1-based)", self.index),
            MeshNumbering::Off => write!(f, "OFF vertex {} (0-based)", self.index),
            MeshNumbering::Stl => write!(f, "STL vertex ({x}, {y}, {z})"),
        }
    }
}

impl std::fmt::Display for MeshFace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.numbering {
            MeshNumbering::Input => write!(f, "face {} (0-based input index)", self.index)?,
            MeshNumbering::Obj => write!(f, "OBJ face {} (1-based)", self.index)?,
            MeshNumbering::Off => write!(f, "OFF face {} (0-based)", self.index)?,
            MeshNumbering::Stl => write!(f, "STL triangle {} (1-based)", self.index)?,
        }
        if let Some(l) = self.line {
            write!(f, " on line {l}")?;
        }
        Ok(())
    }
}

fn plural(n: &usize) -> &'static str {
    if *n == 1 {
        ""
    } else {
        "s"
    }
}

/// "edge between OBJ vertices 3 and 7 (1-based)", and the like.
fn edge_text(a: &MeshVertex, b: &MeshVertex) -> String {
    let [ax, ay, az] = a.position;
    let [bx, by, bz] = b.position;
    match a.numbering {
        MeshNumbering::Input => format!(
            "edge between vertices {} and {} (0-based input indices)",
            a.index, b.index
        ),
        MeshNumbering::Obj => format!("edge between OBJ vertices {} and {} (1-based)", a.index, b.index),
        MeshNumbering::Off => format!("edge between OFF vertices {} and {} (0-based)", a.index, b.index),
        MeshNumbering::Stl => format!("edge between STL vertices ({ax}, {ay}, {az}) and ({bx}, {by}, {bz})"),
    }
}

/// "OBJ vertices 1, 2 and 3 (1-based)", and the like.
fn vertex_list(v: &[MeshVertex; 3]) -> String {
    let n = |k: usize| v[k].index;
    match v[0].numbering {
        MeshNumbering::Input => format!("vertices {}, {} and {} (0-based input indices)", n(0), n(1), n(2)),
        MeshNumbering::Obj => format!("OBJ vertices {}, {} and {} (1-based)", n(0), n(1), n(2)),
        MeshNumbering::Off => format!("OFF vertices {}, {} and {} (0-based)", n(0), n(1), n(2)),
        MeshNumbering::Stl => format!("{}, {} and {}", v[0], v[1], v[2]),
    }
}

/// Why a mesh file's faces are not the boundary of the convex hull of its vertices
/// ([`PolycdError::NotConvex`]). Faces are numbered from 1 in file order; vertices are given by
/// their coordinates (the same in every format).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
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
