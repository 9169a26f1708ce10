//! # polycd — exact collision detection between convex polyhedra
//!
//! polycd answers "do these two solids touch?", "how far apart are they, and where?" and "how
//! far must one move along a line to touch the other?" for convex polyhedra, with five
//! published algorithms behind one interface:
//!
//! | module | paper | answers |
//! |---|---|---|
//! | [`gjk`] | Gilbert–Johnson–Keerthi with Cameron's enhancements | intersect, distance |
//! | [`vclip`] | Mirtich, *V-Clip* | intersect, distance, penetration witnesses |
//! | [`cd_dual`] | Choi, Li, Wang, Cameron, *CD-Dual* | intersect, directional distance |
//! | [`hs_jump`] | Li et al., *HS-jump* | intersect |
//! | [`qp`] | Jin, Wang, Wang, Fu, *minimum distance as a convex program* | intersect, distance |
//!
//! Many bodies: [`broad`] (I-COLLIDE's sweep-and-prune, with a [`broad::World`] running the
//! narrow phase on the candidate pairs, one `PairCache` each).
//!
//! ```
//! use polycd::{shapes, query, Algorithm, PairCache, Pose, DVec3};
//!
//! let a = shapes::cuboid(1.0, 1.0, 1.0).unwrap(); // unit cube about the origin
//! let b = shapes::cuboid(1.0, 1.0, 1.0).unwrap();
//! let pose_a = Pose::IDENTITY;
//! let pose_b = Pose::from_translation(DVec3::new(2.0, 0.0, 0.0));
//! let mut cache = PairCache::default(); // one per pair, reused frame after frame
//! let d = query::distance(&a, &pose_a, &b, &pose_b, Algorithm::Auto, &mut cache).unwrap();
//! assert!((d.signed_distance().unwrap() - 1.0).abs() < 1e-12); // faces x = 0.5 and x = 1.5
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod broad;
pub mod ccd;
pub mod cd_dual;
pub mod contract;
pub mod core;
pub mod gjk;
pub mod hs_jump;
pub mod mesh;
pub mod oracle;
pub mod qp;
pub mod query;
pub mod shape;
pub mod vclip;
pub mod verify;

pub use crate::core::{error, geometry, math, predicates, progress, tolerance};
#[cfg(feature = "io")]
pub use shape::io;
pub use shape::{dk, hull, polyhedron, shapes, support};

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The math crate of polycd's public types (`DVec3`, `DQuat`), re-exported so callers use the
/// very version polycd was built with (or enable the `mint` feature to convert).
pub use glam;

pub use error::PolycdError;
pub use math::{DQuat, DVec3, Plane, Pose};
pub use polyhedron::{ConvexPolyhedron, Edge, Face, HalfEdge, ValidityReport};
pub use progress::Phase;
pub use query::{contact_manifold, ContactManifold, ContactPoint, ManifoldCache, ManifoldKind, ManifoldOptions};
pub use query::{point_query, ray_cast, Containment, PointAnswer, RayHit};
pub use query::{
    Algorithm, Directional, Distance, Feature, FeaturePair, Intersection, MinkowskiSimplex, OverlapWitness, PairCache,
    Penetration, Status,
};
pub use support::SupportMap;
