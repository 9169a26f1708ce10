//! Progress of long constructions (hulls and polyhedra of 10⁵–10⁶ points take seconds).
//!
//! The library never prints: a caller that wants progress passes a callback
//! `FnMut(Phase, done, total)` to [`ConvexPolyhedron::from_points_with_progress`] or
//! [`ConvexPolyhedron::validate_with_progress`]; the CLI draws it with a progress bar.
//! Calls are rare (every few thousand units of work, plus the start and end of each
//! phase), so a callback costs nothing measurable. `done` never exceeds `total`; a phase may
//! report `total = 0` when its size is unknown.
//!
//! [`ConvexPolyhedron::from_points_with_progress`]: crate::shape::polyhedron::ConvexPolyhedron::from_points_with_progress
//! [`ConvexPolyhedron::validate_with_progress`]: crate::shape::polyhedron::ConvexPolyhedron::validate_with_progress

/// A phase of building or checking a polyhedron.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Phase {
    /// Quickhull: `done` counts input points settled (hull vertices or found inside).
    Hull,
    /// Facets merged into faces (and the hull recomputed if vertices were dropped).
    Merge,
    /// Half-edges, edges, vertex rings, face planes, volume.
    Topology,
    /// Query tables built with the shape: support hints, scan blocks, vertex cones, CD-Dual's
    /// start table (`done` counts tables built).
    Tables,
    /// [`ConvexPolyhedron::validate`](crate::shape::polyhedron::ConvexPolyhedron::validate): edges and faces
    /// checked.
    Validate,
    /// The Dobkin–Kirkpatrick hierarchy, built on first use
    /// ([`ConvexPolyhedron::hierarchy_with_progress`](crate::shape::polyhedron::ConvexPolyhedron::hierarchy_with_progress)):
    /// `0/1` when it starts, `1/1` when done.
    Hierarchy,
}

impl Phase {
    /// A short lower-case name (`"hull"`, `"merge"`, …).
    pub fn name(self) -> &'static str {
        match self {
            Phase::Hull => "hull",
            Phase::Merge => "merge",
            Phase::Topology => "topology",
            Phase::Tables => "tables",
            Phase::Validate => "validate",
            Phase::Hierarchy => "hierarchy",
        }
    }
}

/// Units of work between two progress calls.
pub(crate) const PROGRESS_STRIDE: u32 = 4096;
