//! One full solve: Wolfe's algorithm for the distance, then the certified overlap test (module
//! docs: *Touching versus overlapping*), shared by both solvers.

use super::wolfe::{mnp, Corral, End, PairSupport, SupPt};
use super::ACCEPT_GAP_REL;
use crate::contract::{MinkowskiSimplex, OverlapWitness};
use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::DISTANCE_GAP_REL;

/// The verdict of a full solve (distance + overlap test), in the solver's frame. For
/// `Separated` and `Touching` the answer is the solve's corral (kept by the caller).
pub(super) enum Verdict {
    Separated,
    Touching {
        /// Unit normal from A towards B (zero if unknown).
        normal: DVec3,
    },
    Overlapping {
        /// A point common to both shapes (midpoint of the corral's two weighted points).
        point: DVec3,
        /// The corral's vertex pairs when they are themselves the certificate: a tetrahedron
        /// of `M` around the origin (first run, not shrunk). Preferred over `point`, whose
        /// barycentric weights are ill-conditioned in a flat tetrahedron (a thin overlap).
        simplex: Option<MinkowskiSimplex>,
    },
    NotConverged,
}

/// The corral's vertex pairs as a Minkowski simplex.
fn corral_simplex(c: &Corral) -> MinkowskiSimplex {
    let mut pairs = [(0u32, 0u32); 4];
    pairs[..c.n].copy_from_slice(&c.id[..c.n]);
    MinkowskiSimplex { pairs, len: c.n as u8 }
}

/// The overlap witness of a verdict, in the world frame.
pub(super) fn overlap_witness(point: DVec3, simplex: Option<MinkowskiSimplex>, frame: &Pose) -> OverlapWitness {
    match simplex {
        Some(s) => OverlapWitness::Simplex(s),
        None => OverlapWitness::CommonPoint(frame.transform_point(point)),
    }
}

pub(super) struct Solved {
    pub(super) verdict: Verdict,
    pub(super) iterations: u32,
    /// The heaviest vertex pair of the first run's corral (the next warm start).
    pub(super) seed: (u32, u32),
}

/// Distance by Wolfe's algorithm, then the certified overlap test (module docs). `inr` is a
/// lower bound on the depth of `c_A − c_B` in M (None: no shrink test available). The
/// answer's corral (unshrunk) is left in `c`.
pub(super) fn solve_pair<S: PairSupport>(
    sup: &mut S,
    seed: &SupPt,
    scale: f64,
    tol: f64,
    inr: impl FnOnce() -> Option<f64>,
    c: &mut Corral,
) -> Solved {
    let gap_abs = DISTANCE_GAP_REL * scale;
    let out = mnp(sup, seed, 1.0, gap_abs, c);
    let mut iterations = out.iterations;
    let next = c.heaviest();
    let accepted = match out.end {
        End::Optimal | End::Inside => true,
        End::Stalled => out.gap <= ACCEPT_GAP_REL * scale,
        End::Limit => false,
    };
    if !accepted {
        return Solved {
            verdict: Verdict::NotConverged,
            iterations,
            seed: next,
        };
    }
    if out.end == End::Inside {
        if c.inner_depth() > tol {
            let (pa, pb) = c.points(sup, 1.0);
            return Solved {
                verdict: Verdict::Overlapping {
                    point: 0.5 * (pa + pb),
                    simplex: Some(corral_simplex(c)),
                },
                iterations,
                seed: next,
            };
        }
        // A tetrahedral corral around the origin but within `tol` of its boundary (contact):
        // its barycentric weights are ill-conditioned when it is flat (near-parallel faces),
        // so report the least-norm point of its facet nearest the origin instead — within
        // `inner_depth ≤ tol` of the origin, with well-conditioned weights, so the witness
        // points realise the reported distance.
        if let Some(f) = c.nearest_facet() {
            *c = f;
        }
    }
    let d = c.x.length();
    if d > tol {
        return Solved {
            verdict: Verdict::Separated,
            iterations,
            seed: next,
        };
    }
    let mut normal = if d > 0.0 { -c.x / d } else { DVec3::ZERO };
    if let Some(r) = inr().filter(|r| *r > 0.0 && r.is_finite()) {
        let eps = (2.0 * tol / r).min(0.5);
        let s = 1.0 - eps;
        let (hia, hib) = c.heaviest();
        let seed2 = sup.point(hia, hib, s);
        let mut c2 = Corral::default();
        let out2 = mnp(sup, &seed2, s, gap_abs, &mut c2);
        iterations += out2.iterations;
        match out2.end {
            End::Inside => {
                let (pa, pb) = c2.points(sup, s);
                return Solved {
                    verdict: Verdict::Overlapping {
                        point: 0.5 * (pa + pb),
                        simplex: None,
                    },
                    iterations,
                    seed: next,
                };
            }
            End::Limit => {
                return Solved {
                    verdict: Verdict::NotConverged,
                    iterations,
                    seed: next,
                }
            }
            _ => {
                let l = c2.x.length();
                if l > 0.0 {
                    normal = -c2.x / l;
                }
            }
        }
    }
    Solved {
        verdict: Verdict::Touching { normal },
        iterations,
        seed: next,
    }
}
