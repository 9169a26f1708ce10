//! Shapes and their tables: the convex hull, the half-edge polyhedron with the per-shape
//! acceleration tables every algorithm reads (built once, at construction), support
//! mapping, the Dobkin–Kirkpatrick hierarchy, shape generators and file formats. It knows
//! no algorithm.

pub(crate) mod construct;
pub mod dk;
pub mod feature;
pub mod flat;
pub(crate) mod flat_hull;
pub mod hull;
#[cfg(feature = "io")]
pub mod io;
pub mod parallelepiped;
pub mod polyhedron;
pub mod shapes;
pub mod support;
pub mod tables;
pub mod topology;
