//! Vectors, rotations and rigid poses.
//!
//! polycd uses glam's `f64` types (`DVec3`, `DQuat`): small `Copy` types with SIMD-friendly
//! layout and no generic machinery, the same math crate parry moved to. A [`Pose`] is a
//! rotation followed by a translation: `x_world = R · x_local + t`.

pub use glam::{DMat3, DQuat, DVec3};

/// A rigid motion: rotation then translation (`x ↦ R·x + t`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Unit quaternion (scalar `w` first when read from text).
    pub rotation: DQuat,
    /// Translation applied after the rotation.
    pub translation: DVec3,
}

impl Default for Pose {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Pose {
    /// The identity motion.
    pub const IDENTITY: Pose = Pose {
        rotation: DQuat::IDENTITY,
        translation: DVec3::ZERO,
    };

    /// A pose from a rotation and a translation. The rotation is used as given: build it with
    /// [`Pose::try_from_wxyz`] when it comes from user input that may not be normalised.
    pub fn new(rotation: DQuat, translation: DVec3) -> Self {
        Self { rotation, translation }
    }

    /// A pure translation.
    pub fn from_translation(translation: DVec3) -> Self {
        Self {
            rotation: DQuat::IDENTITY,
            translation,
        }
    }

    /// Builds a pose from a translation and a quaternion given scalar-first `[w, x, y, z]`,
    /// normalising the quaternion. Fails on non-finite values or a (near) zero quaternion.
    pub fn try_from_wxyz(translation: [f64; 3], wxyz: [f64; 4]) -> Result<Self, crate::core::error::PolycdError> {
        if translation.iter().chain(wxyz.iter()).any(|c| !c.is_finite()) {
            return Err(crate::core::error::PolycdError::NonFinitePose);
        }
        let q = DQuat::from_xyzw(wxyz[1], wxyz[2], wxyz[3], wxyz[0]);
        let mut n = q.length();
        if n == f64::INFINITY {
            // Components near 1e160 overflow the square: the length through the largest one.
            let m = wxyz.iter().fold(0.0f64, |m, c| m.max(c.abs()));
            n = m * (q / m).length();
        }
        if !(n > crate::core::tolerance::ZERO_QUAT_NORM) || !n.is_finite() {
            return Err(crate::core::error::PolycdError::ZeroQuaternion);
        }
        let t = DVec3::from_array(translation);
        if t.abs().max_element() > crate::core::tolerance::MAX_COORDINATE {
            return Err(crate::core::error::PolycdError::AbsurdMagnitude {
                value: t.abs().max_element(),
            });
        }
        Ok(Self::new(q / n, t))
    }

    /// Applies the pose to a point.
    #[inline]
    pub fn transform_point(&self, p: DVec3) -> DVec3 {
        // A body fixed in the world's orientation (common: the static body of a pair) skips
        // the rotation, which maps every vector to itself (up to the sign of zeros).
        if self.rotation == DQuat::IDENTITY {
            return p + self.translation;
        }
        self.rotation * p + self.translation
    }

    /// Applies only the rotation (for directions and normals).
    #[inline]
    pub fn transform_vector(&self, v: DVec3) -> DVec3 {
        if self.rotation == DQuat::IDENTITY {
            return v;
        }
        self.rotation * v
    }

    /// Maps a world point back into the local frame.
    #[inline]
    pub fn inverse_transform_point(&self, p: DVec3) -> DVec3 {
        self.rotation.inverse() * (p - self.translation)
    }

    /// Maps a world direction back into the local frame.
    #[inline]
    pub fn inverse_transform_vector(&self, v: DVec3) -> DVec3 {
        self.rotation.inverse() * v
    }

    /// The inverse motion.
    pub fn inverse(&self) -> Pose {
        let r = self.rotation.inverse();
        Pose {
            rotation: r,
            translation: -(r * self.translation),
        }
    }

    /// `self * other`: first `other`, then `self`.
    pub fn compose(&self, other: &Pose) -> Pose {
        Pose {
            rotation: (self.rotation * other.rotation).normalize(),
            translation: self.rotation * other.translation + self.translation,
        }
    }

    /// The pose of `other` expressed in this pose's frame: `self⁻¹ · other`.
    #[inline]
    pub fn relative(&self, other: &Pose) -> Pose {
        // One product of two unit quaternions is unit to rounding: no renormalisation (which
        // `compose` does to stop drift along chains of compositions).
        if self.rotation == DQuat::IDENTITY {
            // The product and the rotation by the identity reproduce their inputs (up to the
            // sign of zeros): skipped.
            return Pose {
                rotation: other.rotation,
                translation: other.translation - self.translation,
            };
        }
        let r = self.rotation.inverse();
        Pose {
            rotation: r * other.rotation,
            translation: r * (other.translation - self.translation),
        }
    }
}

impl std::ops::Mul for Pose {
    type Output = Pose;
    fn mul(self, rhs: Pose) -> Pose {
        self.compose(&rhs)
    }
}

/// An oriented plane `{x : normal · x = offset}`; `normal` is a unit vector and the positive
/// side is the side it points to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plane {
    /// Unit normal.
    pub normal: DVec3,
    /// Signed offset along the normal.
    pub offset: f64,
}

impl Plane {
    /// Signed distance of a point (positive on the normal's side).
    #[inline]
    pub fn signed_distance(&self, p: DVec3) -> f64 {
        self.normal.dot(p) - self.offset
    }

    /// The same plane in another frame.
    pub fn transformed(&self, pose: &Pose) -> Plane {
        let n = pose.transform_vector(self.normal);
        Plane {
            normal: n,
            offset: self.offset + n.dot(pose.translation),
        }
    }
}

/// `2^k` for `k` in `-1022..=1023` (a normal power of two; `k` is clamped to that range).
#[inline]
pub(crate) fn pow2(k: i32) -> f64 {
    f64::from_bits(((k.clamp(-1022, 1023) + 1023) as u64) << 52)
}

/// The binary exponent `e` of a finite positive `m` (`2^e ≤ m < 2^(e+1)`, subnormals included).
pub(crate) fn exponent_of(m: f64) -> i32 {
    if m >= f64::MIN_POSITIVE {
        ((m.to_bits() >> 52) & 0x7ff) as i32 - 1023
    } else {
        // Subnormal: lift it into the normal range first (exact).
        exponent_of(m * pow2(200)) - 200
    }
}

/// The power of two `s` that brings a coordinate magnitude `m` into the safe band
/// `[SAFE_MAGNITUDE_MIN, SAFE_MAGNITUDE_MAX]` (tolerance.rs), or `None` when `m` is in it
/// already (or is zero or not finite). Multiplying coordinates by `s` is exact (barring
/// subnormal coordinates far below `m`), and so is multiplying results back by `1/s`: every
/// computation done on the scaled coordinates gives the bits it would give at the scale
/// `m·s`, where products of up to four coordinates are neither infinite nor subnormal.
#[inline]
pub(crate) fn pow2_normaliser(m: f64) -> Option<f64> {
    use crate::core::tolerance::{SAFE_MAGNITUDE_MAX, SAFE_MAGNITUDE_MIN};
    if (SAFE_MAGNITUDE_MIN..=SAFE_MAGNITUDE_MAX).contains(&m) || !(m > 0.0) || !m.is_finite() {
        return None;
    }
    Some(pow2(-exponent_of(m)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compose_and_inverse_round_trip() {
        let a = Pose::try_from_wxyz([1.0, -2.0, 3.0], [0.9, 0.1, -0.3, 0.2]).unwrap();
        let b = Pose::try_from_wxyz([-0.5, 4.0, 0.25], [0.2, 0.7, 0.1, -0.4]).unwrap();
        let p = DVec3::new(0.3, -1.7, 2.2);
        let ab = a * b;
        assert!((ab.transform_point(p) - a.transform_point(b.transform_point(p))).length() < 1e-12);
        let back = a.inverse().transform_point(a.transform_point(p));
        assert!((back - p).length() < 1e-12);
        let rel = a.relative(&b);
        assert!((a.compose(&rel).transform_point(p) - b.transform_point(p)).length() < 1e-12);
        let plane = Plane {
            normal: DVec3::X,
            offset: 1.0,
        };
        let moved = plane.transformed(&a);
        let q = DVec3::new(1.0, 5.0, -3.0);
        assert!((moved.signed_distance(a.transform_point(q)) - plane.signed_distance(q)).abs() < 1e-12);
    }

    #[test]
    fn bad_quaternions_are_errors() {
        assert!(Pose::try_from_wxyz([0.0; 3], [0.0; 4]).is_err());
        assert!(Pose::try_from_wxyz([0.0; 3], [f64::NAN, 0.0, 0.0, 1.0]).is_err());
        assert!(Pose::try_from_wxyz([f64::INFINITY, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]).is_err());
        // Long is fine: normalised without overflow.
        let p = Pose::try_from_wxyz([0.0; 3], [1e160, 0.0, 0.0, 1e160]).unwrap();
        assert!((p.rotation.length() - 1.0).abs() < 1e-15);
    }
}
