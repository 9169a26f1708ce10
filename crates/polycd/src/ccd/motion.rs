//! The interpolating motion of FAST §4.1 and the directional motion bound of §4.2 (Eq. 5).

use crate::core::error::PolycdError;
use crate::core::math::{DQuat, DVec3, Pose};
use crate::shape::polyhedron::ConvexPolyhedron;

/// A rigid motion from pose `start` (t = 0) to pose `end` (t = 1) with constant translational
/// velocity of a reference point and constant angular velocity (FAST §4.1).
///
/// The reference point `center` is given in the body's own frame; the paper's choice is the
/// centre of mass (`T(t) = T₀ + t·v` is "the constant translational velocity of the COM"), and
/// [`RigidMotion::about_centroid`] uses a convex polyhedron's volume centroid (the centre of
/// mass at uniform density). At time `t` the body's pose maps a body point `x` to
///
/// ```text
/// x_world(t) = R(t)·(x − center) + c(t),   R(t) = Rot(u, θ·t)·R₀,   c(t) = c₀ + t·(c₁ − c₀)
/// ```
///
/// where `cᵢ` is the reference point's world position at the end poses and `(u, θ)`,
/// `θ ∈ [0, π]`, is the axis–angle of `R₁·R₀⁻¹` (the shorter of the two rotations). This is the
/// paper's `R(t) = cos(θt)·A + sin(θt)·B + C` (Rodrigues' formula applied to `R₀`), written
/// with a quaternion; with `center = 0` it is also the paper's `T(t) = T₀ + t·v` verbatim.
/// Every pose is computed from the end poses directly (never by accumulating steps), so
/// rounding does not drift along an advancement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigidMotion {
    start: Pose,
    center: DVec3,
    /// World position of the reference point at t = 0.
    c0: DVec3,
    /// Its constant velocity (displacement over the unit time interval).
    velocity: DVec3,
    /// Unit rotation axis (zero when there is no rotation).
    axis: DVec3,
    /// Rotation angle over the unit interval, in `[0, π]`.
    angle: f64,
}

impl RigidMotion {
    /// The motion from `start` to `end` about the body-frame reference point `center`.
    /// Fails with [`PolycdError::NonFinitePose`] on non-finite input, and with
    /// [`PolycdError::AbsurdMagnitude`] beyond [`MAX_COORDINATE`](crate::core::tolerance::MAX_COORDINATE).
    pub fn new(start: Pose, end: Pose, center: DVec3) -> Result<Self, PolycdError> {
        // The query layer's pose checks (finite, non-zero quaternion, magnitude).
        crate::contract::checked_pose(&start)?;
        crate::contract::checked_pose(&end)?;
        if !center.is_finite() {
            return Err(PolycdError::NonFinitePose);
        }
        let start = Pose::new(start.rotation.normalize(), start.translation);
        let end = Pose::new(end.rotation.normalize(), end.translation);
        let c0 = start.transform_point(center);
        let c1 = end.transform_point(center);
        // The relative rotation R₁R₀⁻¹ as a quaternion with w ≥ 0: the rotation by at most π.
        let mut dq = end.rotation * start.rotation.inverse();
        if dq.w < 0.0 {
            dq = -dq;
        }
        let xyz = DVec3::new(dq.x, dq.y, dq.z);
        let s = xyz.length();
        let (axis, angle) = if s > 0.0 {
            (xyz / s, 2.0 * s.atan2(dq.w))
        } else {
            (DVec3::ZERO, 0.0)
        };
        Ok(Self {
            start,
            center,
            c0,
            velocity: c1 - c0,
            axis,
            angle,
        })
    }

    /// The motion from `start` to `end` about `shape`'s volume centroid (the paper's centre
    /// of mass).
    pub fn about_centroid(shape: &ConvexPolyhedron, start: Pose, end: Pose) -> Result<Self, PolycdError> {
        Self::new(start, end, shape.centroid())
    }

    /// A body at rest at `pose`.
    pub fn stationary(pose: Pose) -> Result<Self, PolycdError> {
        Self::new(pose, pose, DVec3::ZERO)
    }

    /// The pose at time `t` (`t ∈ [0, 1]` interpolates; other values extrapolate).
    pub fn pose_at(&self, t: f64) -> Pose {
        let rotation = if self.angle > 0.0 {
            (DQuat::from_axis_angle(self.axis, self.angle * t) * self.start.rotation).normalize()
        } else {
            self.start.rotation
        };
        let c = self.c0 + self.velocity * t;
        Pose::new(rotation, c - rotation * self.center)
    }

    /// The reference point in the body frame.
    pub fn center(&self) -> DVec3 {
        self.center
    }

    /// The reference point's world position at time `t`.
    pub fn center_at(&self, t: f64) -> DVec3 {
        self.c0 + self.velocity * t
    }

    /// The reference point's constant velocity `v` (world frame, per unit time).
    pub fn velocity(&self) -> DVec3 {
        self.velocity
    }

    /// The constant angular velocity `ω = θ·u` (world frame, radians per unit time).
    pub fn angular_velocity(&self) -> DVec3 {
        self.axis * self.angle
    }

    /// `true` when the body does not move.
    pub fn is_stationary(&self) -> bool {
        self.angle == 0.0 && self.velocity == DVec3::ZERO
    }
}

/// The motion of one convex piece projected on a direction `n` over a step `[t, t + Δt]`:
/// every point of the piece moves along `n` by at most
/// `Δt · (linear + min(angular + slope·Δt, cap))` (see [`directional_bound`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DirectionalBound {
    /// `|v·n|`: the paper's `c₂`.
    pub linear: f64,
    /// `max_i |c₁·r_i|` over the piece's vertices at time `t`, `c₁ = n × ω`: Eq. 5's LP,
    /// solved by two support queries.
    pub angular: f64,
    /// Growth of the angular term per unit of `Δt` (the vertices turn during the step):
    /// `|c₁|·θ·ρ`, `ρ` a bound on the vertices' distance from the reference point.
    pub slope: f64,
    /// `|c₁|·ρ`: no vertex ever does better than this, whatever the step.
    pub cap: f64,
}

/// The directional motion bound of `shape` (body frame) under `motion` at time `t` (pose
/// `pose` = `motion.pose_at(t)`) along the unit world direction `n` (FAST Eq. 5, plus the
/// rotation of the vertices during the step, see the module header of [`crate::ccd`]).
///
/// The LP `max |c₁·r_i|` is answered by the shape's support mapping in `±c₁` (the direction
/// table gives the hill climb's start, as the paper's look-up table does).
pub fn directional_bound(shape: &ConvexPolyhedron, motion: &RigidMotion, pose: &Pose, n: DVec3) -> DirectionalBound {
    let linear = motion.velocity.dot(n).abs();
    if motion.angle == 0.0 {
        return DirectionalBound {
            linear,
            angular: 0.0,
            slope: 0.0,
            cap: 0.0,
        };
    }
    let c1 = n.cross(motion.angular_velocity());
    let c1_len = c1.length();
    // In the body frame: c₁·r_i = c₁·R(x_i − center) = (Rᵀc₁)·(x_i − center).
    let c1_local = pose.inverse_transform_vector(c1);
    let hi = shape.vertex(shape.support_climb_hinted(c1_local, u32::MAX));
    let lo = shape.vertex(shape.support_climb_hinted(-c1_local, u32::MAX));
    let angular = c1_local.dot(hi - motion.center).max(c1_local.dot(motion.center - lo));
    let (sc, sr) = shape.bounding_sphere();
    let rho = (sc - motion.center).length() + sr;
    let cap = c1_len * rho;
    DirectionalBound {
        linear,
        angular: angular.max(0.0).min(cap),
        slope: cap * motion.angle,
        cap,
    }
}

/// The largest step `Δt ≥ 0` with `Δt·(l + min(a_A + s_A·Δt, k_A) + min(a_B + s_B·Δt, k_B)) ≤ d`
/// for the bounds of the two shapes of a pair along the same direction (`l` the sum of their
/// linear terms): no point of either shape closes the gap `d` before `t + Δt`.
///
/// The left side `f(Δt)` is continuous and increasing. Each of the four choices of "unsaturated
/// (`a + sΔt`) or saturated (`k`)" per shape gives a quadratic `g(Δt) ≥ f(Δt)` (a minimum is
/// below each of its arguments), so the root of `g = d` satisfies `f ≤ d`: every such root is a
/// safe step, and the choice that matches `f` at its own root gives `f`'s root exactly. The
/// answer is the largest of the four roots. Returns `f64::INFINITY` when nothing moves along `n`.
pub fn safe_step(d: f64, a: &DirectionalBound, b: &DirectionalBound) -> f64 {
    let l = a.linear + b.linear;
    let mut best = 0.0f64;
    for (qa, pa) in [(a.slope, a.angular), (0.0, a.cap)] {
        for (qb, pb) in [(b.slope, b.angular), (0.0, b.cap)] {
            // q·Δt² + p·Δt − d = 0, positive root in the cancellation-free form.
            let q = qa + qb;
            let p = l + pa + pb;
            let den = p + (p * p + 4.0 * q * d).sqrt();
            let root = if den > 0.0 { 2.0 * d / den } else { f64::INFINITY };
            if root > best {
                best = root;
            }
        }
    }
    best
}

/// The most the two shapes of a pair can close the gap along their direction over a step of
/// `dt`: `dt·(l + min(a_A + s_A·dt, k_A) + min(a_B + s_B·dt, k_B))`, the left side that
/// [`safe_step`] keeps at most `d` (so it is at most `d` for any `dt` up to the safe step).
pub fn closing(dt: f64, a: &DirectionalBound, b: &DirectionalBound) -> f64 {
    let ang = |x: &DirectionalBound| (x.angular + x.slope * dt).min(x.cap);
    dt * (a.linear + b.linear + ang(a) + ang(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn end_poses_are_reproduced() {
        let a = Pose::new(DQuat::from_rotation_y(0.3), DVec3::new(1.0, 2.0, 3.0));
        let b = Pose::new(
            DQuat::from_rotation_x(2.0) * DQuat::from_rotation_z(1.0),
            DVec3::new(-1.0, 0.5, 2.0),
        );
        let m = RigidMotion::new(a, b, DVec3::new(0.2, -0.1, 0.4)).unwrap();
        for (t, p) in [(0.0, a), (1.0, b)] {
            let q = m.pose_at(t);
            for x in [DVec3::X, DVec3::Y, DVec3::new(0.3, -2.0, 1.0)] {
                assert!((q.transform_point(x) - p.transform_point(x)).length() < 1e-12);
            }
        }
        // The reference point moves on a straight line at constant speed.
        let c = m.pose_at(0.25).transform_point(m.center());
        assert!((c - m.center_at(0.25)).length() < 1e-12);
    }

    #[test]
    fn step_is_exact_for_pure_translation() {
        let a = DirectionalBound {
            linear: 2.0,
            angular: 0.0,
            slope: 0.0,
            cap: 0.0,
        };
        let b = DirectionalBound { linear: 0.0, ..a };
        assert_eq!(safe_step(1.0, &a, &b), 0.5);
        let z = DirectionalBound { linear: 0.0, ..a };
        assert_eq!(safe_step(1.0, &z, &z), f64::INFINITY);
    }
}
