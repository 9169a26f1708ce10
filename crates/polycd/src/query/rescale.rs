//! Pairs outside the safe coordinate band ([`SAFE_MAGNITUDE_MIN`]..[`SAFE_MAGNITUDE_MAX`]):
//! answered on copies scaled by a power of two (exact), the answer's lengths scaled back
//! (exact), so every algorithm's answer scales exactly with its input.

use super::PairCache;
use crate::contract::{Directional, Distance, Intersection, OverlapWitness, Penetration};
use crate::core::error::PolycdError;
use crate::core::math::{Plane, Pose};
use crate::core::tolerance::{SAFE_MAGNITUDE_MAX, SAFE_MAGNITUDE_MIN};
use crate::shape::polyhedron::ConvexPolyhedron;

/// The power of two that brings the pair's coordinates into the safe band
/// ([`SAFE_MAGNITUDE_MAX`]), when the largest of them (either shape's
/// coordinate magnitude, either translation, either rounding radius) lies outside it; `None` in the common case.
#[inline]
pub(super) fn pair_normaliser(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose) -> Option<f64> {
    let m = a
        .magnitude
        .max(b.magnitude)
        .max(pa.translation.abs().max_element())
        .max(pb.translation.abs().max_element())
        .max(a.radius.max(b.radius));
    if (SAFE_MAGNITUDE_MIN..=SAFE_MAGNITUDE_MAX).contains(&m) {
        return None;
    }
    crate::core::math::pow2_normaliser(m)
}

/// A query on a pair outside the safe band, answered on copies of both shapes and poses
/// scaled by the power of two `s` (exact): the caller multiplies the answer's lengths back by
/// `1/s` (exact), so it is the in-band answer scaled. Builds the copies (allocates, O(size))
/// and uses a fresh pair cache: only extreme scales take this path.
#[cold]
#[inline(never)]
pub(super) fn on_scaled<T>(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    s: f64,
    query: impl FnOnce(&ConvexPolyhedron, &Pose, &ConvexPolyhedron, &Pose, &mut PairCache) -> Result<T, PolycdError>,
) -> Result<T, PolycdError> {
    let a2 = a.scaled_by(s)?;
    let b2 = if std::ptr::eq(a, b) {
        None
    } else {
        Some(b.scaled_by(s)?)
    };
    let pa2 = Pose::new(pa.rotation, pa.translation * s);
    let pb2 = Pose::new(pb.rotation, pb.translation * s);
    let mut cache = PairCache::default();
    query(&a2, &pa2, b2.as_ref().unwrap_or(&a2), &pb2, &mut cache)
}

fn unscaled_plane(p: Plane, k: f64) -> Plane {
    Plane {
        normal: p.normal,
        offset: p.offset * k,
    }
}

impl OverlapWitness {
    pub(super) fn unscaled(self, k: f64) -> Self {
        match self {
            OverlapWitness::CommonPoint(p) => OverlapWitness::CommonPoint(p * k),
            OverlapWitness::Features { features, point } => OverlapWitness::Features {
                features,
                point: point * k,
            },
            w @ OverlapWitness::Simplex(_) => w,
        }
    }
}

impl Intersection {
    /// Lengths multiplied by `k` (a power of two: exact).
    pub(super) fn unscaled(self, k: f64) -> Self {
        match self {
            Intersection::Disjoint { plane, iterations } => Intersection::Disjoint {
                plane: unscaled_plane(plane, k),
                iterations,
            },
            Intersection::Touching {
                point,
                plane,
                iterations,
            } => Intersection::Touching {
                point: point * k,
                plane: unscaled_plane(plane, k),
                iterations,
            },
            Intersection::Overlapping { witness, iterations } => Intersection::Overlapping {
                witness: witness.unscaled(k),
                iterations,
            },
            r @ Intersection::NotConverged { .. } => r,
        }
    }
}

impl Distance {
    /// Lengths multiplied by `k` (a power of two: exact).
    pub(super) fn unscaled(self, k: f64) -> Self {
        match self {
            Distance::Separated {
                distance,
                point_a,
                point_b,
                features,
                iterations,
            } => Distance::Separated {
                distance: distance * k,
                point_a: point_a * k,
                point_b: point_b * k,
                features,
                iterations,
            },
            Distance::Penetrating {
                witness,
                penetration,
                iterations,
            } => Distance::Penetrating {
                witness: witness.unscaled(k),
                penetration: penetration.map(|p| Penetration {
                    depth: p.depth * k,
                    normal: p.normal,
                    point_a: p.point_a * k,
                    point_b: p.point_b * k,
                    relative_depth: p.relative_depth * k,
                }),
                iterations,
            },
            r @ Distance::NotConverged { .. } => r,
        }
    }
}

impl Directional {
    /// Lengths multiplied by `k` (a power of two: exact).
    pub(super) fn unscaled(self, k: f64) -> Self {
        match self {
            Directional::Contact { t, plane, iterations } => Directional::Contact {
                t: t * k,
                plane: unscaled_plane(plane, k),
                iterations,
            },
            r => r,
        }
    }
}
