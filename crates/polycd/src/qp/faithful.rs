//! The faithful solver: model (1) on the explicit vertex lists, by the interior-point method
//! ([`ipm`](super::ipm)), polished on the active set by Wolfe's algorithm over the lists and
//! cross-checked against the interior-point optimum; the fast solver answers when the polish
//! fails (module docs).

use super::answer::{contact_normals, corral_features, to_distance, to_intersection};
use super::fast::{distance_fast, intersect_fast};
use super::ipm::ipm_solve;
use super::solve::{solve_pair, Solved, Verdict};
use super::unique::uniqueness;
use super::wolfe::{Corral, PairSupport, SupPt, MAX_CONTACT_NORMALS};
use super::{QpCache, QpSolution, QpStatus, IPM_AGREEMENT};
use crate::contract::{contact_tolerance, pair_scale, Distance, Intersection};
use crate::core::error::PolycdError;
use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::{CONTACT_REL, MAX_COORDINATE};
use crate::shape::polyhedron::ConvexPolyhedron;

/// Two explicit point sets; support by linear scan.
struct PointPair<'a> {
    xs: &'a [DVec3],
    ys: &'a [DVec3],
    ca: DVec3,
    cb: DVec3,
    /// The polyhedra (and poses) the point sets are the world vertices of, when they are:
    /// their topology supplies the touching plane's candidate normals.
    topo: Option<(&'a ConvexPolyhedron, Pose, &'a ConvexPolyhedron, Pose)>,
}

/// The faithful solver's interior-point method is clarabel, behind the cargo feature
/// `qp-faithful` (on by default): without it every faithful entry point answers
/// [`PolycdError::FeatureDisabled`].
fn require_ipm() -> Result<(), PolycdError> {
    if cfg!(feature = "qp-faithful") {
        Ok(())
    } else {
        Err(PolycdError::FeatureDisabled {
            feature: "qp-faithful",
            what: "the faithful convex-program solver (algorithm 'qp')",
        })
    }
}

fn argmax(pts: &[DVec3], d: DVec3) -> u32 {
    let mut best = 0u32;
    let mut bd = f64::NEG_INFINITY;
    for (i, p) in pts.iter().enumerate() {
        let v = d.dot(*p);
        if v > bd {
            bd = v;
            best = i as u32;
        }
    }
    best
}

impl PairSupport for PointPair<'_> {
    fn contact_normals(&self, c: &Corral, out: &mut [DVec3; MAX_CONTACT_NORMALS]) -> usize {
        match self.topo {
            Some((a, pa, b, pb)) => {
                contact_normals(a, |v| pa.transform_vector(v), b, |v| pb.transform_vector(v), c, out)
            }
            None => 0,
        }
    }
    fn support(&mut self, d: DVec3, s: f64) -> SupPt {
        let ia = argmax(self.xs, d);
        let ib = argmax(self.ys, -d);
        self.point(ia, ib, s)
    }
    fn point(&self, ia: u32, ib: u32, s: f64) -> SupPt {
        let a = self.xs[ia as usize];
        let b = self.ys[ib as usize];
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

/// Depth of `c` inside a polyhedron (least distance to a face plane; local frame).
fn depth_in(p: &ConvexPolyhedron, c: DVec3) -> f64 {
    if p.dimension() < 3 {
        // A point, segment or polygon has no interior.
        return 0.0;
    }
    p.faces()
        .iter()
        .map(|f| f.offset - f.normal.dot(c))
        .fold(f64::INFINITY, f64::min)
}

fn check_points(xs: &[DVec3], ys: &[DVec3]) -> Result<(), PolycdError> {
    if xs.is_empty() || ys.is_empty() {
        return Err(PolycdError::TooFewPoints { found: 0 });
    }
    for (index, p) in xs.iter().chain(ys.iter()).enumerate() {
        if !p.is_finite() {
            return Err(PolycdError::NonFinite { index });
        }
        let m = p.abs().max_element();
        if m > MAX_COORDINATE {
            return Err(PolycdError::AbsurdMagnitude { value: m });
        }
    }
    Ok(())
}

fn mean(ps: &[DVec3]) -> DVec3 {
    ps.iter().fold(DVec3::ZERO, |s, p| s + *p) / ps.len().max(1) as f64
}

/// The length scale of two point sets (as [`pair_scale`] for shapes).
fn points_scale(xs: &[DVec3], ys: &[DVec3]) -> f64 {
    let (ma, mb) = (mean(xs), mean(ys));
    let ra = xs.iter().map(|p| (*p - ma).length()).fold(0.0, f64::max);
    let rb = ys.iter().map(|p| (*p - mb).length()).fold(0.0, f64::max);
    let mag = xs
        .iter()
        .chain(ys.iter())
        .map(|p| p.abs().max_element())
        .fold(0.0, f64::max);
    ra + rb + (ma - mb).length() + mag
}

fn argmax_w(w: &[f64]) -> u32 {
    let mut best = 0;
    for (i, &v) in w.iter().enumerate() {
        if v > w[best] {
            best = i;
        }
    }
    best as u32
}

fn combine(ps: &[DVec3], w: &[f64]) -> DVec3 {
    ps.iter().zip(w).fold(DVec3::ZERO, |s, (p, &t)| s + *p * t)
}

/// Everything the faithful core needs besides the point sets.
struct FaithfulSetup {
    scale: f64,
    tol: f64,
    ca: DVec3,
    cb: DVec3,
}

/// The faithful solve of model (1) on explicit point sets; returns the solution and, when it
/// converged, the internal verdict (for [`Intersection`] and [`Distance`] conversion).
fn faithful_core(
    xs: &[DVec3],
    ys: &[DVec3],
    setup: &FaithfulSetup,
    inr: impl FnOnce() -> Option<f64>,
) -> (QpSolution, Solved, Corral) {
    let scale = setup.scale;
    let origin = 0.5 * (setup.ca + setup.cb);
    let ipm = ipm_solve(xs, ys, origin, scale);
    let mut sol = QpSolution {
        status: QpStatus::NotConverged,
        distance: f64::NAN,
        point_a: DVec3::NAN,
        point_b: DVec3::NAN,
        lambda: vec![0.0; xs.len()],
        sigma: vec![0.0; ys.len()],
        ipm_lambda: ipm.lambda.clone(),
        ipm_sigma: ipm.sigma.clone(),
        ipm_distance: f64::NAN,
        ipm_iterations: ipm.iterations,
        polish_iterations: 0,
        normal: DVec3::ZERO,
        unique: None,
        contact_dims: None,
        notes: Vec::new(),
    };
    let not_converged = Solved {
        verdict: Verdict::NotConverged,
        iterations: ipm.iterations,
        seed: (0, 0),
    };
    let mut c = Corral::default();
    if let Err(msg) = ipm.status {
        sol.notes.push(msg);
        return (sol, not_converged, c);
    }
    let xa = combine(xs, &ipm.lambda);
    let yb = combine(ys, &ipm.sigma);
    sol.ipm_distance = (yb - xa).length();
    // Polish: Wolfe's algorithm on the explicit vertex lists, seeded from the IPM's support.
    let mut sup = PointPair {
        xs,
        ys,
        ca: setup.ca,
        cb: setup.cb,
        topo: None,
    };
    let seed = sup.point(argmax_w(&ipm.lambda), argmax_w(&ipm.sigma), 1.0);
    let mut solved = solve_pair(&mut sup, &seed, scale, setup.tol, inr, &mut c);
    solved.iterations += ipm.iterations;
    sol.polish_iterations = solved.iterations - ipm.iterations;
    let (normal, status) = match &solved.verdict {
        Verdict::NotConverged => {
            sol.notes.push("active-set polish did not converge".into());
            return (sol, solved, c);
        }
        Verdict::Overlapping { point, .. } => {
            sol.status = QpStatus::Overlapping;
            sol.distance = 0.0;
            sol.point_a = *point;
            sol.point_b = *point;
            sol.notes
                .push("overlap certified: the origin lies strictly inside A − B".into());
            return (sol, solved, c);
        }
        Verdict::Separated => (-c.x / c.x.length(), QpStatus::Separated),
        Verdict::Touching { normal } => (*normal, QpStatus::Touching),
    };
    let d = c.x.length();
    // Cross-check against the interior-point optimum (scaled units).
    let (dn, dipm) = (d / scale, sol.ipm_distance / scale);
    if !(dn <= dipm + 1e-10) || !(dn * dn >= dipm * dipm - IPM_AGREEMENT) {
        sol.notes.push(format!(
            "interior-point distance {:e} and polished distance {:e} disagree",
            sol.ipm_distance, d
        ));
        return (
            sol,
            Solved {
                verdict: Verdict::NotConverged,
                ..solved
            },
            c,
        );
    }
    sol.status = status;
    sol.distance = d;
    (sol.point_a, sol.point_b) = c.points(&sup, 1.0);
    sol.normal = normal;
    for k in 0..c.n {
        let (ia, ib) = c.id[k];
        sol.lambda[ia as usize] += c.w[k];
        sol.sigma[ib as usize] += c.w[k];
    }
    if normal.length_squared() > 0.0 {
        let u = uniqueness(xs, ys, normal, sol.point_a - sol.point_b, scale);
        sol.contact_dims = Some(u.dims);
        sol.unique = Some(u.unique);
        sol.notes.push(u.note);
    }
    (sol, solved, c)
}

fn world_vertices(p: &ConvexPolyhedron, pose: &Pose) -> Vec<DVec3> {
    p.vertices().iter().map(|v| pose.transform_point(*v)).collect()
}

fn faithful_poly(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
) -> (Vec<DVec3>, Vec<DVec3>, QpSolution, Solved, Corral, FaithfulSetup) {
    let xs = world_vertices(a, pa);
    let ys = world_vertices(b, pb);
    let setup = FaithfulSetup {
        scale: pair_scale(a, pa, b, pb),
        tol: contact_tolerance(a, pa, b, pb),
        ca: pa.transform_point(a.centroid()),
        cb: pb.transform_point(b.centroid()),
    };
    let (sol, solved, c) = faithful_core(&xs, &ys, &setup, || {
        Some(depth_in(a, a.centroid()) + depth_in(b, b.centroid()))
    });
    (xs, ys, sol, solved, c, setup)
}

/// Model (1) for two polyhedra at their poses (world frame): the interior-point solution,
/// polished, with weights, closest points and the uniqueness analysis.
pub fn solve_faithful(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
) -> Result<QpSolution, PolycdError> {
    require_ipm()?;
    Ok(faithful_poly(a, pa, b, pb).2)
}

/// Model (1) for two raw point sets (their convex hulls; duplicates and interior points are
/// allowed). Errors: an empty set (`TooFewPoints { found: 0 }`), a non-finite coordinate
/// (`NonFinite { index }`, indexing `xs` then `ys`), or an absurd magnitude. Overlap is
/// certified through the hulls of the point sets when they are solid; otherwise a zero
/// distance is reported as touching.
pub fn solve_points(xs: &[DVec3], ys: &[DVec3]) -> Result<QpSolution, PolycdError> {
    require_ipm()?;
    check_points(xs, ys)?;
    let scale = points_scale(xs, ys).max(f64::MIN_POSITIVE);
    let setup = FaithfulSetup {
        scale,
        tol: CONTACT_REL * scale,
        ca: mean(xs),
        cb: mean(ys),
    };
    let inr = || {
        let ha = ConvexPolyhedron::from_points(xs).ok()?;
        let hb = ConvexPolyhedron::from_points(ys).ok()?;
        Some(depth_in(&ha, setup.ca) + depth_in(&hb, setup.cb))
    };
    Ok(faithful_core(xs, ys, &setup, inr).0)
}

/// Faithful solver, boolean.
pub fn intersect_faithful(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
) -> Result<Intersection, PolycdError> {
    require_ipm()?;
    let (xs, ys, _, solved, c, setup) = faithful_poly(a, pa, b, pb);
    if matches!(solved.verdict, Verdict::NotConverged) {
        // See `distance_faithful`.
        return intersect_fast(a, pa, b, pb, &mut QpCache::default());
    }
    let mut sup = PointPair {
        xs: &xs,
        ys: &ys,
        ca: setup.ca,
        cb: setup.cb,
        topo: Some((a, *pa, b, *pb)),
    };
    Ok(to_intersection(
        &solved,
        &c,
        &mut sup,
        &Pose::IDENTITY,
        contact_tolerance(a, pa, b, pb),
    ))
}

/// Faithful solver, distance.
pub fn distance_faithful(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
) -> Result<Distance, PolycdError> {
    require_ipm()?;
    let (xs, ys, _, solved, c, setup) = faithful_poly(a, pa, b, pb);
    if matches!(solved.verdict, Verdict::NotConverged) {
        // The active-set polish stalled (or disagreed with the interior-point optimum):
        // seen on needles of aspect 10⁶ touching within rounding, where Wolfe's steps over
        // the explicit vertex lists stop decreasing with a duality gap above the acceptance
        // bound. The same algorithm over the support mapping (the fast solver, whose ties
        // and refinements differ) answers instead; only if it fails too is the answer
        // `NotConverged`.
        return distance_fast(a, pa, b, pb, &mut QpCache::default());
    }
    let sup = PointPair {
        xs: &xs,
        ys: &ys,
        ca: setup.ca,
        cb: setup.cb,
        topo: None,
    };
    // The faithful solver works in the world frame.
    Ok(to_distance(&solved, &c, &sup, &Pose::IDENTITY, |c, pts| {
        corral_features(a, || pa.inverse(), b, || pb.inverse(), c, pts)
    }))
}

#[cfg(all(test, not(feature = "qp-faithful")))]
mod without_ipm {
    use crate::core::error::PolycdError;
    use crate::core::math::{DVec3, Pose};
    use crate::shape::shapes::cuboid;

    /// Built without `qp-faithful`, the faithful entry points answer `FeatureDisabled`
    /// naming the feature (the query layer's `Algorithm::Qp` too: see query's tests).
    #[test]
    fn faithful_names_the_missing_feature() {
        let a = cuboid(1.0, 1.0, 1.0).unwrap();
        let pb = Pose::from_translation(DVec3::new(3.0, 0.0, 0.0));
        let disabled = |r: Result<(), PolycdError>| {
            matches!(
                r,
                Err(PolycdError::FeatureDisabled {
                    feature: "qp-faithful",
                    ..
                })
            )
        };
        assert!(disabled(
            super::distance_faithful(&a, &Pose::IDENTITY, &a, &pb).map(|_| ())
        ));
        assert!(disabled(
            super::intersect_faithful(&a, &Pose::IDENTITY, &a, &pb).map(|_| ())
        ));
        assert!(disabled(
            super::solve_faithful(&a, &Pose::IDENTITY, &a, &pb).map(|_| ())
        ));
        assert!(disabled(super::solve_points(a.vertices(), a.vertices()).map(|_| ())));
    }
}
