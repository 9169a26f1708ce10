//! Convex hull of a point cloud: Quickhull with exact predicates, then coplanar facets merged
//! into polygonal faces.
//!
//! Outline (Barber, Dobkin, Huhdanpaa 1996):
//! 1. Reject non-finite or absurd coordinates; remove exact duplicates.
//! 2. Pick an initial tetrahedron of extreme points; reject collinear and flat clouds.
//! 3. Each remaining point goes to the outside set of one facet it lies strictly above.
//! 4. Repeatedly take a facet with a non-empty outside set and its farthest point `p`, find
//!    every facet `p` sees (strictly above, decided by the exact `orient3d`), replace them by
//!    a cone from `p` to the horizon, and hand their outside points to the new facets (a point
//!    above no new facet is inside the new hull and is dropped for good).
//! 5. Group adjacent facets into faces: a facet joins the face grown from the largest-area
//!    seed facet if each of its vertices is exactly coplanar with the seed triangle, or within
//!    [`COPLANAR_REL`](crate::core::tolerance::COPLANAR_REL) of the seed's plane. Every vertex is
//!    tested against the one seed plane, so merging never chains across a curved surface.
//! 6. Vertices on fewer than three faces lie inside a face or on an edge: not extreme, dropped.
//!
//! Invariants: visibility is exact, so the visible region is a topological disk and its
//! horizon a simple cycle; new facets are never degenerate (a point strictly above a facet
//! cannot be collinear with one of its edges). Termination: every iteration turns one point
//! into a hull vertex and removes it from all outside sets, so there are at most `n`.
//! Float arithmetic only chooses *which* point to add next (the farthest), never whether a
//! point is outside.
//!
//! Cost of each phase, for `n` input points and `h` hull vertices (figures: BENCHMARKS.md,
//! "Building large hulls"):
//! - checks, duplicate removal: O(n log n) (one sort);
//! - Quickhull: O(n log h) expected (each point is re-assigned only when a facet it is
//!   above dies; outside sets are conflict lists); dead facet slots are reused, so memory is
//!   O(n + h) facets;
//! - merge: O(h log h) (facets sorted by area once; each seed's in-plane neighbours found
//!   by O(1) exact tests as its face grows); the closure check groups the directed edges by
//!   origin (counting sort) and finds each reverse edge by binary search, O(h log d) for
//!   vertex degree d, no hashing;
//! - a tolerant merge that drops vertices recomputes the hull of the rest (at most
//!   8 rounds; one on the clouds measured).
//!
//! The implementation is [`small::HullScratch`], for every cloud size: [`convex_hull`] is one
//! build on a fresh scratch (the mesh decomposition reuses one scratch for thousands).

use crate::core::error::PolycdError;
use crate::core::math::DVec3;
use crate::core::progress::Phase;
use crate::core::tolerance::MAX_COORDINATE;
use std::collections::HashMap;

pub mod small;
use std::hash::{BuildHasherDefault, Hasher};

/// A fast hasher for small integer keys (vertex ids, directed edges): the hull and the
/// half-edge construction hash millions of edges of 10⁶-point clouds, where the default
/// SipHash cost about a second. Keys are built by the library, not by an adversary.
#[derive(Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        let h = self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^ (h >> 29)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u32(&mut self, k: u32) {
        self.write_u64(u64::from(k));
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = (self.0.rotate_left(26) ^ k).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_usize(&mut self, k: usize) {
        self.write_u64(k as u64);
    }
}

/// A `HashMap` keyed by vertex or edge ids, hashed by [`IdHasher`].
pub(crate) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// A hull as polygonal faces over its extreme points.
#[derive(Clone, Debug)]
pub struct HullFaces {
    /// The extreme points.
    pub vertices: Vec<DVec3>,
    /// For each vertex, its index in the input cloud.
    pub source: Vec<u32>,
    /// Faces as vertex index loops, counter-clockwise seen from outside.
    pub faces: Vec<Vec<u32>>,
}

const NONE: u32 = u32::MAX;

/// Checks coordinates: finite and not absurdly large.
pub fn check_points(points: &[DVec3]) -> Result<(), PolycdError> {
    for (i, p) in points.iter().enumerate() {
        if !p.is_finite() {
            return Err(PolycdError::NonFinite { index: i });
        }
        let m = p.abs().max_element();
        if m > MAX_COORDINATE {
            return Err(PolycdError::AbsurdMagnitude { value: m });
        }
    }
    Ok(())
}

/// Computes the hull of `points` as polygonal faces.
pub fn convex_hull(points: &[DVec3]) -> Result<HullFaces, PolycdError> {
    convex_hull_with_progress(points, &mut |_, _, _| {})
}

/// [`convex_hull`], reporting progress (see [`crate::core::progress`]); the same result.
/// One build of a [`small::HullScratch`], the one Quickhull implementation.
pub fn convex_hull_with_progress(
    points: &[DVec3],
    progress: &mut dyn FnMut(Phase, u64, u64),
) -> Result<HullFaces, PolycdError> {
    let mut scratch = small::HullScratch::new();
    scratch.build_with_progress(points, progress)?;
    Ok(scratch.into_faces())
}

/// Bound on the rounds of the tolerant merge (see [`convex_hull`]).
const MERGE_ROUNDS: usize = 8;

fn plane_of(a: DVec3, b: DVec3, c: DVec3) -> (DVec3, f64) {
    // Cross the two shortest edges, from the vertex opposite the longest one: the most
    // accurate normal a triangle gives in floating point.
    let (ab, bc, ca) = (
        (b - a).length_squared(),
        (c - b).length_squared(),
        (a - c).length_squared(),
    );
    let n = if ab >= bc && ab >= ca {
        (a - c).cross(b - c)
    } else if bc >= ca {
        (b - a).cross(c - a)
    } else {
        (c - b).cross(a - b)
    };
    let len = n.length();
    let n = if len > 0.0 { n / len } else { DVec3::ZERO };
    (n, n.dot(a))
}

fn internal(what: &str) -> PolycdError {
    PolycdError::InvalidBoundary(format!("internal hull failure: {what}"))
}
