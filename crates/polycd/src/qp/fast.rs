//! The fast solver: Wolfe's algorithm over the support mapping of A − B (hill-climbing supports
//! in A's frame, warm-started from [`QpCache`]); fixed arrays, no allocation.

use super::answer::{contact_normals, corral_features, to_distance, to_intersection};
use super::solve::{solve_pair, Solved};
use super::wolfe::{Corral, PairSupport, SupPt, MAX_CONTACT_NORMALS};
use super::QpCache;
use crate::contract::{pair_scale, Distance, Intersection};
use crate::core::error::PolycdError;
use crate::core::math::{DMat3, DVec3, Pose};
use crate::core::tolerance::CONTACT_REL;
use crate::shape::polyhedron::ConvexPolyhedron;

/// Two polyhedra, computed in A's local frame; hill-climbing support with warm starts.
struct PolyPair<'a> {
    a: &'a ConvexPolyhedron,
    b: &'a ConvexPolyhedron,
    /// B's pose in A's frame.
    rel: Pose,
    /// Its rotation as a matrix and the transpose (cheaper per vector than the quaternion).
    rot: DMat3,
    rot_t: DMat3,
    ca: DVec3,
    cb: DVec3,
    warm_a: u32,
    warm_b: u32,
}

impl<'a> PolyPair<'a> {
    fn new(a: &'a ConvexPolyhedron, pa: &Pose, b: &'a ConvexPolyhedron, pb: &Pose) -> Self {
        let rel = pa.relative(pb);
        let rot = DMat3::from_quat(rel.rotation);
        PolyPair {
            a,
            b,
            rel,
            rot,
            rot_t: rot.transpose(),
            ca: a.centroid(),
            cb: rot * b.centroid() + rel.translation,
            warm_a: 0,
            warm_b: 0,
        }
    }
    fn ids_valid(&self, ia: u32, ib: u32) -> bool {
        (ia as usize) < self.a.vertices().len() && (ib as usize) < self.b.vertices().len()
    }
}

impl PairSupport for PolyPair<'_> {
    fn contact_normals(&self, c: &Corral, out: &mut [DVec3; MAX_CONTACT_NORMALS]) -> usize {
        contact_normals(self.a, |v| v, self.b, |v| self.rot * v, c, out)
    }
    #[inline(always)]
    fn support(&mut self, d: DVec3, s: f64) -> SupPt {
        self.warm_a = self.a.support_climb_hinted(d, self.warm_a);
        self.warm_b = self.b.support_climb_hinted(self.rot_t * (-d), self.warm_b);
        self.point(self.warm_a, self.warm_b, s)
    }
    #[inline(always)]
    fn point(&self, ia: u32, ib: u32, s: f64) -> SupPt {
        let a = self.a.vertex(ia);
        let b = self.rot * self.b.vertex(ib) + self.rel.translation;
        if s == 1.0 {
            SupPt { ia, ib, a, b }
        } else {
            SupPt {
                ia,
                ib,
                a: self.ca + (a - self.ca) * s,
                b: self.cb + (b - self.cb) * s,
            }
        }
    }
}

/// The fast solve on `sup` (built from the same shapes and poses); the answer's corral is
/// left in `c`. Returns the verdict and the contact tolerance.
fn fast_solve(sup: &mut PolyPair<'_>, pa: &Pose, pb: &Pose, cache: &mut QpCache, c: &mut Corral) -> (Solved, f64) {
    let (a, b) = (sup.a, sup.b);
    let scale = pair_scale(a, pa, b, pb);
    // `contact_tolerance` is CONTACT_REL × pair_scale: the same value, one scale computation.
    let tol = CONTACT_REL * scale;
    let seed = match cache.seed {
        Some((ia, ib)) if sup.ids_valid(ia, ib) => {
            sup.warm_a = ia;
            sup.warm_b = ib;
            sup.point(ia, ib, 1.0)
        }
        _ => {
            let d = sup.cb - sup.ca;
            sup.support(d, 1.0)
        }
    };
    // The centroids' depths are precomputed with the shapes (O(1) here).
    let solved = solve_pair(
        sup,
        &seed,
        scale,
        tol,
        || Some(a.interior_depths()[0] + b.interior_depths()[0]),
        c,
    );
    cache.seed = Some(solved.seed);
    (solved, tol)
}

/// Touching (distance within the contact tolerance, no certified overlap) or Overlapping.
pub fn intersect_fast(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut QpCache,
) -> Result<Intersection, PolycdError> {
    let mut sup = PolyPair::new(a, pa, b, pb);
    let mut c = Corral::default();
    let (solved, tol) = fast_solve(&mut sup, pa, pb, cache, &mut c);
    Ok(to_intersection(&solved, &c, &mut sup, pa, tol))
}

/// Fast solver, distance: Wolfe's minimum-norm point of A − B by support mapping.
pub fn distance_fast(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut QpCache,
) -> Result<Distance, PolycdError> {
    let mut sup = PolyPair::new(a, pa, b, pb);
    let mut c = Corral::default();
    let (solved, _) = fast_solve(&mut sup, pa, pb, cache, &mut c);
    // The fast solver works in A's frame.
    Ok(to_distance(&solved, &c, &sup, pa, |c, pts| {
        corral_features(a, || Pose::IDENTITY, b, || sup.rel.inverse(), c, pts)
    }))
}
