//! The half-edge records of a polyhedron's boundary, and a borrowed view of the arrays that
//! the per-shape table builders read.

use crate::core::math::DVec3;

/// A directed half of an edge, bounding one face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HalfEdge {
    /// Vertex it starts at.
    pub origin: u32,
    /// The opposite half-edge (same edge, other face).
    pub twin: u32,
    /// Next half-edge counter-clockwise around the same face.
    pub next: u32,
    /// Previous half-edge around the same face.
    pub prev: u32,
    /// The face it bounds.
    pub face: u32,
    /// The undirected edge it belongs to.
    pub edge: u32,
}

/// An undirected edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// `[tail, head]`.
    pub vertices: [u32; 2],
    /// `[left, right]`: `left` bounds tail → head counter-clockwise, `right` head → tail.
    pub faces: [u32; 2],
    /// The half-edge tail → head (it lies in `faces[0]`).
    pub half_edge: u32,
}

/// A polygonal face.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Face {
    /// Outward unit normal.
    pub normal: DVec3,
    /// Plane offset: `normal · x = offset` for points of the face.
    pub offset: f64,
    /// First half-edge of its boundary.
    pub half_edge: u32,
    /// Number of boundary edges (= vertices).
    pub len: u32,
}

/// The topology arrays of a polyhedron under construction, borrowed: what the per-shape
/// table builders ([`crate::shape::tables`], [`crate::shape::dk`]) read, so that no builder
/// depends on the polyhedron type that owns the tables.
#[derive(Clone, Copy)]
pub(crate) struct TopologyView<'a> {
    pub(crate) vertices: &'a [DVec3],
    pub(crate) half_edges: &'a [HalfEdge],
    pub(crate) faces: &'a [Face],
    /// CSR: neighbours of vertex `v` are `adj_vertex[adj_start[v]..adj_start[v+1]]`.
    pub(crate) adj_start: &'a [u32],
    pub(crate) adj_vertex: &'a [u32],
    /// Outgoing half-edge to the matching neighbour.
    pub(crate) adj_half_edge: &'a [u32],
}

impl TopologyView<'_> {
    #[inline]
    pub(crate) fn vertices(&self) -> &[DVec3] {
        self.vertices
    }
    #[inline]
    pub(crate) fn vertex(&self, v: u32) -> DVec3 {
        self.vertices[v as usize]
    }
    #[inline]
    pub(crate) fn faces(&self) -> &[Face] {
        self.faces
    }
    #[inline]
    pub(crate) fn face(&self, f: u32) -> &Face {
        &self.faces[f as usize]
    }
    #[inline]
    pub(crate) fn half_edges(&self) -> &[HalfEdge] {
        self.half_edges
    }
    #[inline]
    pub(crate) fn half_edge(&self, h: u32) -> &HalfEdge {
        &self.half_edges[h as usize]
    }
    #[inline]
    pub(crate) fn neighbors(&self, v: u32) -> &[u32] {
        &self.adj_vertex[self.adj_start[v as usize] as usize..self.adj_start[v as usize + 1] as usize]
    }
    #[inline]
    pub(crate) fn outgoing(&self, v: u32) -> &[u32] {
        &self.adj_half_edge[self.adj_start[v as usize] as usize..self.adj_start[v as usize + 1] as usize]
    }
}
