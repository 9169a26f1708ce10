//! The bottom layer: vector math and poses, exact predicates and error-free arithmetic,
//! named tolerances and the error type. It knows nothing of shapes or algorithms.

pub mod error;
pub mod geometry;
pub(crate) mod hash;
pub mod math;
pub mod predicates;
pub mod progress;
pub mod tolerance;
