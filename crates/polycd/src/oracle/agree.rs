//! Does an answer agree with the oracle? The one check the conformance tests, `polycd
//! differential` and the benchmarks' audits share.
//!
//! An answer agrees when its status is the oracle's outside the contact band (inside it,
//! touching, overlapping and disjoint are all correct), its numbers are within the agreement
//! tolerance of the oracle's (within the band inside the band), and its certificate passes
//! [`crate::verify`].

use crate::contract::{contact_tolerance, pair_scale, Directional, Distance, Intersection};
use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::AGREEMENT_REL;
use crate::shape::polyhedron::ConvexPolyhedron;
use crate::verify::{self, Answer};

/// A pair and its oracle signed distance, with the tolerances answers are judged by.
#[derive(Clone, Copy, Debug)]
pub struct Agreement<'a> {
    a: &'a ConvexPolyhedron,
    pa: &'a Pose,
    b: &'a ConvexPolyhedron,
    pb: &'a Pose,
    /// The oracle's signed distance (negative: penetration depth).
    pub signed_distance: f64,
    /// The contact band: the contact tolerance plus `agree`. Inside it every status is correct.
    pub band: f64,
    /// How far a number may be from the oracle's outside the band ([`AGREEMENT_REL`] × the
    /// pair scale).
    pub agree: f64,
}

impl<'a> Agreement<'a> {
    /// The pair at its poses, with the oracle's signed distance (from [`super::signed_distance`] or a
    /// case's exact value).
    pub fn new(
        a: &'a ConvexPolyhedron,
        pa: &'a Pose,
        b: &'a ConvexPolyhedron,
        pb: &'a Pose,
        signed_distance: f64,
    ) -> Agreement<'a> {
        let agree = AGREEMENT_REL * pair_scale(a, pa, b, pb);
        let band = contact_tolerance(a, pa, b, pb) + agree;
        Agreement {
            a,
            pa,
            b,
            pb,
            signed_distance,
            band,
            agree,
        }
    }

    /// The status the oracle expects, by name (`Touching` inside the band).
    pub fn expected_status(&self) -> &'static str {
        let sd = self.signed_distance;
        if sd > self.band {
            "Disjoint"
        } else if sd < -self.band {
            "Overlapping"
        } else {
            "Touching"
        }
    }

    /// Checks an [`Intersection`]; `Err` says how it disagrees.
    pub fn intersection(&self, r: &Intersection) -> Result<(), String> {
        let (sd, band) = (self.signed_distance, self.band);
        let ok = match r {
            Intersection::Disjoint { .. } => sd > -band,
            Intersection::Touching { .. } => sd.abs() <= band,
            Intersection::Overlapping { .. } => sd < band,
            Intersection::NotConverged { iterations } => {
                return Err(format!("did not converge ({iterations} iterations)"))
            }
        };
        if !ok {
            return Err(format!(
                "status {:?}, expected {} (oracle signed distance {sd:e}, band {band:e})",
                r.status(),
                self.expected_status()
            ));
        }
        verify::verify_intersection(self.a, self.pa, self.b, self.pb, r)
            .map_err(|e| format!("certificate rejected: {e}"))
    }

    /// Checks a [`Distance`]; `Err` says how it disagrees.
    pub fn distance(&self, r: &Distance) -> Result<(), String> {
        let (sd, band) = (self.signed_distance, self.band);
        // Inside the contact band any value within the band is a correct "touching" answer.
        let allowed = if sd.abs() <= band { band } else { self.agree };
        match r {
            Distance::Separated { distance, .. } => {
                if sd < -band {
                    return Err(format!(
                        "separated at {distance:e}, but the oracle says they overlap by {:e}",
                        -sd
                    ));
                }
                let err = (distance - sd.max(0.0)).abs();
                if err > allowed {
                    return Err(format!(
                        "distance {distance:e}, oracle {sd:e} (error {err:e}, allowed {allowed:e})"
                    ));
                }
            }
            Distance::Penetrating { penetration, .. } => {
                if sd > band {
                    return Err(format!("penetrating, but the oracle says they are {sd:e} apart"));
                }
                if let Some(p) = penetration {
                    let err = (-p.depth - sd.min(0.0)).abs();
                    if err > allowed {
                        return Err(format!(
                            "penetration depth {:e}, oracle {:e} (error {err:e}, allowed {allowed:e})",
                            p.depth, -sd
                        ));
                    }
                }
            }
            Distance::NotConverged { iterations } => return Err(format!("did not converge ({iterations} iterations)")),
        }
        verify::verify_distance(self.a, self.pa, self.b, self.pb, r).map_err(|e| format!("certificate rejected: {e}"))
    }

    /// Checks a [`Directional`] answer along the unit direction `s`, against the oracle's
    /// `expected` translation (`None`: no translation along the line touches, or the line
    /// grazes `A − B`); `Err` says how it disagrees.
    pub fn directional(&self, s: DVec3, expected: Option<f64>, r: &Directional) -> Result<(), String> {
        match (r, expected) {
            (Directional::Contact { t, plane, .. }, Some(t0)) => {
                // What the accuracy bounds is the signed distance along the contact normal,
                // which t changes at the rate |n·s|: near grazing incidence t is
                // ill-conditioned (and at exact grazing every t of a sliding interval is a
                // correct contact, which the certificate checks). A pair in the contact band
                // is touched by t = 0 and, when it numerically overlaps, separated by either
                // end of the sliding interval: any certified contact is accepted there, and
                // so are ties between the two ends (equal |t|).
                let cos = plane.normal.dot(s).abs();
                let tie = (t.abs() - t0.abs()).abs() * cos <= self.agree;
                if (t - t0).abs() * cos > self.agree && !tie && self.signed_distance.abs() > self.band {
                    return Err(format!("along {s}: t = {t:e}, oracle {t0:e} (|n·s| = {cos:e})"));
                }
            }
            // A grazing line: either answer is correct when its certificate holds.
            (Directional::Contact { .. }, None) | (Directional::Never { .. }, _) => {}
            (Directional::NotConverged { iterations }, _) => {
                return Err(format!("along {s}: did not converge ({iterations} iterations)"));
            }
        }
        let answer = Answer::Directional {
            direction: s,
            answer: *r,
        };
        verify::verify(self.a, self.pa, self.b, self.pb, &answer)
            .map_err(|e| format!("along {s}: certificate rejected: {e}"))
    }
}
