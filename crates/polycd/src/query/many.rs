//! Many queries in one call: pairs of shapes given by index into one shape list, with their
//! poses, answered on every core (cargo feature `parallel`, on by default; without it, one
//! after the other). Each query starts cold — a [`PairCache`] forgotten before it
//! ([`PairCache::forget`]: the state of a new cache, the scratch buffers' capacity kept, one
//! cache per worker) — so every answer is the one the single-pair function gives on its own
//! with a new cache, in the order of the queries, whatever the number of threads.

use super::{distance, intersect, Algorithm, Distance, Intersection, PairCache};
use crate::core::error::PolycdError;
use crate::core::math::Pose;
use crate::shape::polyhedron::ConvexPolyhedron;
use std::borrow::Borrow;

/// One query of [`distance_many`] / [`intersect_many`]: shapes `a` and `b` (indices into the
/// shape list) at their poses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PosedPair {
    /// Index of shape A in the shape list.
    pub a: u32,
    /// Index of shape B in the shape list.
    pub b: u32,
    /// Placement of A.
    pub pose_a: Pose,
    /// Placement of B.
    pub pose_b: Pose,
}

impl PosedPair {
    /// Shapes `a` and `b` at `pose_a` and `pose_b`.
    pub fn new(a: u32, pose_a: Pose, b: u32, pose_b: Pose) -> PosedPair {
        PosedPair { a, b, pose_a, pose_b }
    }
}

/// Answers `queries` with [`distance`] and `algorithm`, into `out` (cleared first; its
/// capacity is reused). `out[i]` answers `queries[i]`: exactly what `distance` answers for
/// that pair with a new [`PairCache`] (the workers' caches are forgotten before each query). A shape index out of range is an
/// [`PolycdError::InvalidOption`] for that query alone.
pub fn distance_many_into<S: Borrow<ConvexPolyhedron> + Sync>(
    shapes: &[S],
    queries: &[PosedPair],
    algorithm: Algorithm,
    out: &mut Vec<Result<Distance, PolycdError>>,
) {
    each(queries, out, |cache, q| {
        let (a, b) = pair(shapes, q)?;
        distance(a, &q.pose_a, b, &q.pose_b, algorithm, cache)
    })
}

/// [`distance_many_into`] into a new vector.
pub fn distance_many<S: Borrow<ConvexPolyhedron> + Sync>(
    shapes: &[S],
    queries: &[PosedPair],
    algorithm: Algorithm,
) -> Vec<Result<Distance, PolycdError>> {
    let mut out = Vec::with_capacity(queries.len());
    distance_many_into(shapes, queries, algorithm, &mut out);
    out
}

/// Answers `queries` with [`intersect`] and `algorithm`, into `out` (cleared first); see
/// [`distance_many_into`].
pub fn intersect_many_into<S: Borrow<ConvexPolyhedron> + Sync>(
    shapes: &[S],
    queries: &[PosedPair],
    algorithm: Algorithm,
    out: &mut Vec<Result<Intersection, PolycdError>>,
) {
    each(queries, out, |cache, q| {
        let (a, b) = pair(shapes, q)?;
        intersect(a, &q.pose_a, b, &q.pose_b, algorithm, cache)
    })
}

/// [`intersect_many_into`] into a new vector.
pub fn intersect_many<S: Borrow<ConvexPolyhedron> + Sync>(
    shapes: &[S],
    queries: &[PosedPair],
    algorithm: Algorithm,
) -> Vec<Result<Intersection, PolycdError>> {
    let mut out = Vec::with_capacity(queries.len());
    intersect_many_into(shapes, queries, algorithm, &mut out);
    out
}

fn pair<'s, S: Borrow<ConvexPolyhedron>>(
    shapes: &'s [S],
    q: &PosedPair,
) -> Result<(&'s ConvexPolyhedron, &'s ConvexPolyhedron), PolycdError> {
    let get = |i: u32| {
        shapes
            .get(i as usize)
            .map(Borrow::borrow)
            .ok_or(PolycdError::InvalidOption {
                name: "PosedPair",
                message: "a shape index is out of range of the shape list",
            })
    };
    Ok((get(q.a)?, get(q.b)?))
}

/// `f` on every query in order into `out`, each with a cache forgotten first (one cache per
/// worker, so the scratch buffers are allocated once per worker, not per query).
#[cfg(feature = "parallel")]
fn each<T: Send>(queries: &[PosedPair], out: &mut Vec<T>, f: impl Fn(&mut PairCache, &PosedPair) -> T + Sync + Send) {
    use rayon::prelude::*;
    out.clear();
    out.par_extend(queries.par_iter().map_init(PairCache::default, |cache, q| {
        cache.forget();
        f(cache, q)
    }));
}

/// `f` on every query in order into `out`, each with the one cache forgotten first.
#[cfg(not(feature = "parallel"))]
fn each<T: Send>(queries: &[PosedPair], out: &mut Vec<T>, f: impl Fn(&mut PairCache, &PosedPair) -> T + Sync + Send) {
    out.clear();
    let mut cache = PairCache::default();
    out.extend(queries.iter().map(|q| {
        cache.forget();
        f(&mut cache, q)
    }));
}
