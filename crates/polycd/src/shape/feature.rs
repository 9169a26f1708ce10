//! Features: the vertices, edges and faces answers name.

/// A vertex, edge or face of a polyhedron (ids into its topology arrays).
// Not `#[non_exhaustive]`: a polyhedron's boundary has cells of dimension 0, 1 and 2 only, so
// these three are all there can be; callers map each kind to its own id space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// A vertex id.
    Vertex(u32),
    /// An edge id.
    Edge(u32),
    /// A face id.
    Face(u32),
}

/// One feature on each shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FeaturePair {
    /// Feature of shape A.
    pub a: Feature,
    /// Feature of shape B.
    pub b: Feature,
}
