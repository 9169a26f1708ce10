//! Methods (who answers which question how), shapes in both libraries, and the agreement rules.

use parry3d_f64::math::{Pose as ParryPose, Rot3 as ParryRot, Vector as ParryVec};
use parry3d_f64::query::ClosestPoints;
use parry3d_f64::shape::ConvexPolyhedron as ParryPolyhedron;
use polycd::query::{self, contact_tolerance, pair_scale};
use polycd::{Algorithm, ConvexPolyhedron, DVec3, Distance, FeaturePair, Intersection, PairCache, PolycdError, Pose};

/// One shape in both libraries: the polycd hull and a parry3d `ConvexPolyhedron` built from
/// the same hull vertices.
pub struct Body {
    /// A short name for tables.
    pub name: String,
    /// The polycd shape.
    pub poly: ConvexPolyhedron,
    /// The parry3d-f64 shape (`ConvexPolyhedron::from_convex_hull` of `poly`'s vertices).
    pub parry: ParryPolyhedron,
}

impl Body {
    /// Builds the parry twin of a polycd shape. Fails if parry cannot build the hull or if its
    /// hull does not keep the same vertex count (the two libraries would then answer for
    /// different solids).
    pub fn new(name: impl Into<String>, poly: ConvexPolyhedron) -> Result<Body, String> {
        let name = name.into();
        let pts: Vec<ParryVec> = poly.vertices().iter().map(|v| ParryVec::new(v.x, v.y, v.z)).collect();
        let parry = ParryPolyhedron::from_convex_hull(&pts)
            .ok_or_else(|| format!("{name}: parry3d could not build the convex hull"))?;
        if parry.points().len() != pts.len() {
            return Err(format!(
                "{name}: parry3d's hull has {} vertices, polycd's {}",
                parry.points().len(),
                pts.len()
            ));
        }
        Ok(Body { name, poly, parry })
    }

    /// Builds a body from a polycd shape result.
    pub fn from_result(name: impl Into<String>, poly: Result<ConvexPolyhedron, PolycdError>) -> Result<Body, String> {
        let name = name.into();
        let poly = poly.map_err(|e| format!("{name}: {e}"))?;
        Body::new(name, poly)
    }

    /// Number of hull vertices.
    pub fn vertex_count(&self) -> usize {
        self.poly.vertices().len()
    }
}

/// A pose in both libraries' types (converted once, outside the timed region).
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    /// polycd pose.
    pub pose: Pose,
    /// parry pose.
    pub parry: ParryPose,
}

impl Placement {
    /// Converts a polycd pose.
    pub fn new(pose: Pose) -> Placement {
        let q = pose.rotation;
        let t = pose.translation;
        Placement {
            pose,
            parry: ParryPose::from_parts(ParryVec::new(t.x, t.y, t.z), ParryRot::from_xyzw(q.x, q.y, q.z, q.w)),
        }
    }
}

/// Who answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// A polycd algorithm through `polycd::query`.
    Polycd(Algorithm),
    /// parry3d-f64 (`intersection_test` / `distance` / `closest_points`).
    Parry,
}

/// Which question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Question {
    /// Boolean overlap (`polycd::query::intersect`, parry `intersection_test`).
    Intersect,
    /// Distance (`polycd::query::distance`; parry `distance`, followed by `contact` for the
    /// penetration depth when it reports 0, as polycd's answer includes the depth).
    Distance,
    /// Distance with closest points (`polycd::query::distance`, parry `closest_points`).
    ClosestPoints,
}

/// Whether the per-pair cache carries over from one query of a sequence to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coherence {
    /// One `PairCache` per pair, reused along the pair's sequence of poses.
    Warm,
    /// No coherence: `PairCache::forget` before every query (the previous query's state is
    /// dropped; scratch buffers keep their capacity, as in a caller's long-lived cache).
    Cold,
}

/// A benchmarked method: a label and what it calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Method {
    /// Label in tables, CSV and plot legends.
    pub label: &'static str,
    /// Who answers.
    pub engine: Engine,
    /// Which question.
    pub question: Question,
    /// Warm or cold cache.
    pub coherence: Coherence,
}

/// Why a method gave no answer.
#[derive(Clone, Debug, PartialEq)]
pub enum MethodError {
    /// The algorithm does not answer this question (yet): the method is skipped, shown `n/a`.
    Unsupported,
    /// Any other error, with its message (reported as a disagreement).
    Failed(String),
}

/// The contact status a method reported, before any tolerance is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Apart (with a distance when the method computes one).
    Disjoint,
    /// Touching, by the method's own judgement.
    Touching,
    /// Interiors overlap.
    Overlapping,
    /// Intersecting or touching, not distinguished (parry's `true` / zero distance).
    Intersecting,
    /// The method hit its iteration bound.
    NotConverged,
}

/// A method's answer for one query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    /// Status.
    pub verdict: Verdict,
    /// Distance when apart (≥ 0), minus the penetration depth when overlapping and known.
    pub distance: Option<f64>,
    /// Iterations, when the method reports them.
    pub iterations: Option<u32>,
    /// Closest or witness features, when reported.
    pub features: Option<FeaturePair>,
    /// Closest points (world frame), when reported.
    pub points: Option<(DVec3, DVec3)>,
}

impl Outcome {
    fn new(verdict: Verdict) -> Outcome {
        Outcome {
            verdict,
            distance: None,
            iterations: None,
            features: None,
            points: None,
        }
    }

    /// One-word status for tables and disagreement details.
    pub fn describe(&self) -> String {
        let v = match self.verdict {
            Verdict::Disjoint => "disjoint",
            Verdict::Touching => "touching",
            Verdict::Overlapping => "overlapping",
            Verdict::Intersecting => "intersecting",
            Verdict::NotConverged => "not converged",
        };
        match (self.distance, self.iterations) {
            (Some(d), Some(i)) => format!("{v} (d = {d:.17e}, {i} it.)"),
            (Some(d), None) => format!("{v} (d = {d:.17e})"),
            (None, Some(i)) => format!("{v} ({i} it.)"),
            (None, None) => v.to_string(),
        }
    }
}

/// The answer of the run stored for checking.
pub type Answer = Result<Outcome, MethodError>;

fn polycd_err(e: PolycdError) -> MethodError {
    match e {
        PolycdError::Unsupported { .. } => MethodError::Unsupported,
        e => MethodError::Failed(e.to_string()),
    }
}

impl Method {
    /// A polycd method.
    pub const fn polycd(label: &'static str, algorithm: Algorithm, question: Question, coherence: Coherence) -> Self {
        Method {
            label,
            engine: Engine::Polycd(algorithm),
            question,
            coherence,
        }
    }

    /// A parry3d-f64 method (parry keeps no state between queries: always cold).
    pub const fn parry(label: &'static str, question: Question) -> Self {
        Method {
            label,
            engine: Engine::Parry,
            question,
            coherence: Coherence::Cold,
        }
    }

    /// True for the peer library.
    pub fn is_peer(&self) -> bool {
        matches!(self.engine, Engine::Parry)
    }

    /// Runs the method once. `cache` is the pair's cache (the caller resets it for cold
    /// methods); parry ignores it.
    #[inline]
    pub fn run(&self, a: &Body, pa: &Placement, b: &Body, pb: &Placement, cache: &mut PairCache) -> Answer {
        match self.engine {
            Engine::Polycd(alg) => match self.question {
                Question::Intersect => query::intersect(&a.poly, &pa.pose, &b.poly, &pb.pose, alg, cache)
                    .map_err(polycd_err)
                    .and_then(from_intersection),
                Question::Distance | Question::ClosestPoints => {
                    query::distance(&a.poly, &pa.pose, &b.poly, &pb.pose, alg, cache)
                        .map_err(polycd_err)
                        .and_then(from_distance)
                }
            },
            Engine::Parry => match self.question {
                Question::Intersect => parry3d_f64::query::intersection_test(&pa.parry, &a.parry, &pb.parry, &b.parry)
                    .map(|r| {
                        Outcome::new(if r.intersecting {
                            Verdict::Intersecting
                        } else {
                            Verdict::Disjoint
                        })
                    })
                    .map_err(|_| MethodError::Unsupported),
                // parry's `distance` stops at 0 for overlapping shapes, while polycd's distance
                // query also measures the penetration depth (EPA). For the same information the
                // peer then runs `contact` (its GJK + EPA depth), and both calls are timed.
                Question::Distance => parry3d_f64::query::distance(&pa.parry, &a.parry, &pb.parry, &b.parry)
                    .map_err(|_| MethodError::Unsupported)
                    .map(|r| {
                        if r.distance > 0.0 {
                            let mut o = Outcome::new(Verdict::Disjoint);
                            o.distance = Some(r.distance);
                            return o;
                        }
                        let mut o = Outcome::new(Verdict::Intersecting);
                        o.distance = Some(0.0);
                        if let Ok(Some(c)) = parry3d_f64::query::contact(&pa.parry, &a.parry, &pb.parry, &b.parry, 0.0)
                        {
                            o.distance = Some(c.dist.min(0.0));
                        }
                        o
                    }),
                Question::ClosestPoints => {
                    parry3d_f64::query::closest_points(&pa.parry, &a.parry, &pb.parry, &b.parry, f64::INFINITY)
                        .map(|r| match r {
                            ClosestPoints::WithinMargin(p, q) => {
                                let (p, q) = (DVec3::new(p.x, p.y, p.z), DVec3::new(q.x, q.y, q.z));
                                let mut o = Outcome::new(Verdict::Disjoint);
                                o.distance = Some((p - q).length());
                                o.points = Some((p, q));
                                o
                            }
                            ClosestPoints::Intersecting => {
                                let mut o = Outcome::new(Verdict::Intersecting);
                                o.distance = Some(0.0);
                                o
                            }
                            ClosestPoints::Disjoint => Outcome::new(Verdict::Disjoint),
                        })
                        .map_err(|_| MethodError::Unsupported)
                }
            },
        }
    }
}

fn from_intersection(r: Intersection) -> Result<Outcome, MethodError> {
    let verdict = match r {
        Intersection::Disjoint { .. } => Verdict::Disjoint,
        Intersection::Touching { .. } => Verdict::Touching,
        Intersection::Overlapping { .. } => Verdict::Overlapping,
        Intersection::NotConverged { .. } => Verdict::NotConverged,
        other => return Err(MethodError::Failed(format!("unknown intersection answer {other:?}"))),
    };
    let mut o = Outcome::new(verdict);
    o.iterations = Some(r.iterations());
    Ok(o)
}

fn from_distance(r: Distance) -> Result<Outcome, MethodError> {
    let mut o = match r {
        Distance::Separated {
            distance,
            point_a,
            point_b,
            features,
            ..
        } => {
            let mut o = Outcome::new(Verdict::Disjoint);
            o.distance = Some(distance);
            o.points = Some((point_a, point_b));
            o.features = Some(features);
            o
        }
        Distance::Penetrating { penetration, .. } => {
            let mut o = Outcome::new(Verdict::Overlapping);
            o.distance = penetration.map(|p| -p.depth);
            o
        }
        Distance::NotConverged { .. } => Outcome::new(Verdict::NotConverged),
        other => return Err(MethodError::Failed(format!("unknown distance answer {other:?}"))),
    };
    o.iterations = Some(r.iterations());
    Ok(o)
}

/// What an answer means once the pair's contact tolerance is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// Apart by more than the tolerance.
    Apart,
    /// Within the tolerance of touching.
    Contact,
    /// Overlapping by more than the tolerance (or by an unknown depth).
    Overlap,
    /// Overlapping or touching, not distinguished.
    Intersecting,
    /// Unknown (did not converge).
    Unknown,
}

/// Classifies an outcome with the contact tolerance `tol`.
pub(crate) fn classify(o: &Outcome, tol: f64) -> Class {
    match o.verdict {
        Verdict::NotConverged => Class::Unknown,
        Verdict::Touching => Class::Contact,
        Verdict::Disjoint => match o.distance {
            Some(d) if d <= tol => Class::Contact,
            _ => Class::Apart,
        },
        Verdict::Overlapping => match o.distance {
            Some(d) if d >= -tol => Class::Contact,
            _ => Class::Overlap,
        },
        Verdict::Intersecting => Class::Intersecting,
    }
}

/// Whether two classes contradict each other.
pub(crate) fn contradicts(x: Class, y: Class) -> bool {
    use Class::*;
    matches!(
        (x, y),
        (Apart, Overlap) | (Overlap, Apart) | (Apart, Intersecting) | (Intersecting, Apart)
    )
}

/// The tolerances of one pair.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PairTolerance {
    /// Contact tolerance.
    pub contact: f64,
    /// Pair scale.
    pub scale: f64,
}

impl PairTolerance {
    pub fn new(a: &Body, pa: &Placement, b: &Body, pb: &Placement) -> Self {
        PairTolerance {
            contact: contact_tolerance(&a.poly, &pa.pose, &b.poly, &pb.pose),
            scale: pair_scale(&a.poly, &pa.pose, &b.poly, &pb.pose),
        }
    }
}

/// Compares a method's answer with a reference answer. Returns a description of the
/// disagreement, if any. `peer` loosens the distance agreement to [`crate::PEER_AGREEMENT_REL`].
pub(crate) fn compare(x: &Outcome, reference: &Outcome, tol: PairTolerance, peer: bool) -> Option<String> {
    let (cx, cr) = (classify(x, tol.contact), classify(reference, tol.contact));
    if cx == Class::Unknown {
        return Some(format!("did not converge: {}", x.describe()));
    }
    if contradicts(cx, cr) {
        return Some(format!("{} vs {}", x.describe(), reference.describe()));
    }
    if let (Some(dx), Some(dr)) = (x.distance, reference.distance) {
        // Compare separation distances only: penetration depths are not every method's answer.
        if dx > tol.contact && dr > tol.contact {
            let rel = if peer {
                crate::PEER_AGREEMENT_REL
            } else {
                polycd::tolerance::AGREEMENT_REL
            };
            if (dx - dr).abs() > rel * tol.scale {
                return Some(format!(
                    "distance {dx:.17e} vs {dr:.17e} (|Δ| = {:.3e}, allowed {:.3e})",
                    (dx - dr).abs(),
                    rel * tol.scale
                ));
            }
        }
    }
    None
}

/// Compares an answer with a known status (the workload's ground truth).
pub(crate) fn compare_expected(x: &Outcome, expected: Class, tol: PairTolerance) -> Option<String> {
    let cx = classify(x, tol.contact);
    if cx == Class::Unknown {
        return Some(format!("did not converge: {}", x.describe()));
    }
    if contradicts(cx, expected) {
        return Some(format!("{} but the workload is {:?}", x.describe(), expected));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(verdict: Verdict, distance: Option<f64>) -> Outcome {
        let mut o = Outcome::new(verdict);
        o.distance = distance;
        o
    }

    const TOL: PairTolerance = PairTolerance {
        contact: 1e-12,
        scale: 10.0,
    };

    #[test]
    fn statuses_contradict_only_across_contact() {
        let apart = out(Verdict::Disjoint, Some(0.5));
        let overlap = out(Verdict::Overlapping, None);
        let parry_hit = out(Verdict::Intersecting, Some(0.0));
        let touching = out(Verdict::Disjoint, Some(1e-13));
        assert!(compare(&apart, &overlap, TOL, false).is_some());
        assert!(compare(&parry_hit, &apart, TOL, true).is_some());
        assert!(compare(&touching, &overlap, TOL, false).is_none());
        assert!(compare(&touching, &apart, TOL, false).is_none());
        assert!(compare(&parry_hit, &overlap, TOL, true).is_none());
        assert!(compare_expected(&overlap, Class::Overlap, TOL).is_none());
        assert!(compare_expected(&apart, Class::Overlap, TOL).is_some());
        assert!(compare_expected(&out(Verdict::NotConverged, None), Class::Apart, TOL).is_some());
    }

    #[test]
    fn distances_agree_within_the_library_tolerance() {
        let a = out(Verdict::Disjoint, Some(1.0));
        let b = out(Verdict::Disjoint, Some(1.0 + 1e-12));
        let c = out(Verdict::Disjoint, Some(1.0 + 1e-9));
        // polycd vs polycd: 1e-12 × scale 10 = 1e-11.
        assert!(compare(&a, &b, TOL, false).is_none());
        assert!(compare(&a, &c, TOL, false).is_some());
        // with the peer: 1e-9 × 10 = 1e-8.
        assert!(compare(&a, &c, TOL, true).is_none());
    }
}
