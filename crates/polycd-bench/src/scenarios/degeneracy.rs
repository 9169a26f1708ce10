//! `degeneracy` — the V-Clip paper's degeneracy test (Alg. 10).
//!
//! Two cubes of side 2; cube 1 at the origin. Each trial draws two poses the paper's way
//! (x, y uniform in [−4, 4], z = 4, rotation by e^{−k} radians, k uniform in [0, 20], about a
//! random axis — near-parallel faces and edges) and bisects between them towards a pose where
//! the method's *coherence device* changes: the closest feature pair for polycd methods (their
//! `Distance::Separated::features`), and for parry (which reports none) the features carrying
//! its closest points, read off the points' coordinates in each cube's frame (a coordinate at
//! ±1 within 1e-9 marks a face). Each method runs its own bisection with its own warm cache,
//! as in the paper. The paper averages the two poses; we bisect the parameter s ∈ [0, 1] of
//! the interpolation between the trial's two poses (translation linear, rotation normalised
//! linear), which visits the same kind of poses; it ends when the midpoint pose equals an end
//! pose or s can no longer be halved, with a 200-step guard.
//!
//! Counted per method: *wrong answers* — a distance below 4 − 2√3 (the least possible one)
//! by more than the contact tolerance, a penetration/intersection verdict, or, at the two
//! final poses of each trial, a distance that differs from the brute-force oracle by more
//! than the agreement tolerance; *not converged* — the method's iteration bound was hit
//! (the form cycling takes in polycd); *errors*. Every one is also a listed disagreement.
//! *Cycles* (V-Clip): the queries whose iteration cycled, read from `VClipCache::cycles`,
//! counted whatever the answer (the paper claims V-Clip never cycles; a cycle the exit
//! resolves is right, but it is a cycle); "resolved" are those whose answer passed every
//! check. GJK exposes no such count ("not exposed"); its bound shows as *not converged*.

use super::{available, csv_out, svg_out};
use crate::methods::{
    Answer, Body, Coherence, Method, MethodError, Outcome, PairTolerance, Placement, Question, Verdict,
};
use crate::plot::{Chart, Series};
use crate::table::{us, Table};
use crate::timing::Case;
use crate::{Context, RunOptions};
use polycd::{oracle, shapes, Algorithm, DQuat, DVec3, FeaturePair, PairCache, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

/// The methods of this scenario (one line per method; the peer last).
pub(crate) const DEGENERACY_METHODS: [Method; 3] = [
    Method::polycd("V-Clip", Algorithm::VClip, Question::ClosestPoints, Coherence::Warm),
    Method::polycd("GJK", Algorithm::Gjk, Question::ClosestPoints, Coherence::Warm),
    Method::parry("parry3d closest_points", Question::ClosestPoints),
];

const MAX_STEPS: usize = 200;

/// The coherence device a bisection watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Features(FeaturePair),
    Points([i8; 3], [i8; 3]),
    Nothing,
}

fn face_pattern(local: DVec3) -> [i8; 3] {
    let s = |c: f64| {
        if c >= 1.0 - 1e-9 {
            1
        } else if c <= -1.0 + 1e-9 {
            -1
        } else {
            0
        }
    };
    [s(local.x), s(local.y), s(local.z)]
}

fn key(o: &Outcome, pb: &Pose) -> Key {
    if let Some(f) = o.features {
        return Key::Features(f);
    }
    if let Some((p, q)) = o.points {
        return Key::Points(face_pattern(p), face_pattern(pb.inverse_transform_point(q)));
    }
    Key::Nothing
}

fn random_pose(rng: &mut ChaCha8Rng) -> Pose {
    let x = rng.random_range(-4.0..4.0);
    let y = rng.random_range(-4.0..4.0);
    let axis = shapes::unit_vector(rng);
    let k: f64 = rng.random_range(0.0..20.0);
    Pose::new(DQuat::from_axis_angle(axis, (-k).exp()), DVec3::new(x, y, 4.0))
}

/// The pose at parameter `s` ∈ [0, 1] between `a` and `b`: translation interpolated
/// linearly, rotation by normalised linear interpolation (in the same hemisphere).
fn interpolate(a: &Pose, b: &Pose, s: f64) -> Pose {
    let qb = if a.rotation.dot(b.rotation) < 0.0 {
        -b.rotation
    } else {
        b.rotation
    };
    let q = (a.rotation * (1.0 - s) + qb * s).normalize();
    Pose::new(q, a.translation * (1.0 - s) + b.translation * s)
}

#[derive(Default, Clone)]
struct Counts {
    trials: usize,
    queries: usize,
    wrong: usize,
    wrong_trials: usize,
    not_converged: usize,
    errors: usize,
    ns: f64,
    iterations: f64,
    iteration_samples: usize,
    steps: usize,
    min_distance: f64,
    /// Cycles of the iteration the method detected (V-Clip's `VClipCache::cycles`), resolved
    /// or not: counted apart from the answers, whatever the answer was.
    cycles: u64,
    /// Queries with a detected cycle whose answer was right (resolved by the exit).
    cycles_resolved: u64,
}

pub(crate) fn run(opts: &RunOptions, ctx: &mut Context) -> Result<(), String> {
    let trials: usize = if opts.quick { 1000 } else { 100_000 };
    let cube = Body::from_result("cube", shapes::cuboid(2.0, 2.0, 2.0))?;
    let methods = &DEGENERACY_METHODS;
    let bound = 4.0 - 2.0 * 3f64.sqrt();
    let pa = Placement::new(Pose::IDENTITY);
    let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
    let first = Case {
        a: &cube,
        pa,
        b: &cube,
        pb: Placement::new(random_pose(&mut rng.clone())),
    };
    let avail = available(ctx, methods, &first);
    let mut counts = vec![
        Counts {
            min_distance: f64::INFINITY,
            ..Counts::default()
        };
        methods.len()
    ];
    let chunk = 100usize;
    ctx.start_progress(trials.div_ceil(chunk) as u64);
    // Distribution of bisection depths, for the plot.
    let mut depth_hist = vec![vec![0usize; MAX_STEPS + 1]; methods.len()];
    for trial in 0..trials {
        let lo0 = random_pose(&mut rng);
        let hi0 = random_pose(&mut rng);
        for (m, method) in methods.iter().enumerate() {
            if !avail[m] {
                continue;
            }
            let c = &mut counts[m];
            c.trials += 1;
            let mut cache = PairCache::default();
            let mut wrong_here = false;
            // One query: timed, checked against the lower bound, counted.
            let mut eval = |pose: &Pose, ctx: &mut Context, c: &mut Counts, what: &str| -> Answer {
                let pb = Placement::new(*pose);
                if method.coherence == Coherence::Cold {
                    cache = PairCache::default();
                }
                let cycles_before = cache.vclip.cycles();
                let start = Instant::now();
                let r = method.run(&cube, &pa, &cube, &pb, &mut cache);
                c.ns += start.elapsed().as_nanos() as f64;
                c.queries += 1;
                let cycled = cache.vclip.cycles() - cycles_before;
                c.cycles += cycled;
                let wrong_before = c.wrong + c.not_converged + c.errors;
                let tol = PairTolerance::new(&cube, &pa, &cube, &pb);
                let case = format!("trial {trial}, {what}");
                match &r {
                    Ok(o) => {
                        if let Some(i) = o.iterations {
                            c.iterations += i as f64;
                            c.iteration_samples += 1;
                        }
                        match o.verdict {
                            Verdict::NotConverged => {
                                c.not_converged += 1;
                                ctx.disagree(case, method.label, "convergence", o.describe());
                            }
                            Verdict::Overlapping | Verdict::Intersecting | Verdict::Touching => {
                                c.wrong += 1;
                                wrong_here = true;
                                ctx.disagree(case, method.label, "4 − 2√3 bound", o.describe());
                            }
                            Verdict::Disjoint => {
                                if let Some(d) = o.distance {
                                    c.min_distance = c.min_distance.min(d);
                                    if d < bound - tol.contact {
                                        c.wrong += 1;
                                        wrong_here = true;
                                        ctx.disagree(case, method.label, "4 − 2√3 bound", o.describe());
                                    }
                                }
                            }
                        }
                    }
                    Err(MethodError::Unsupported) => {}
                    Err(MethodError::Failed(e)) => {
                        c.errors += 1;
                        ctx.disagree(case, method.label, "no error", e.clone());
                    }
                }
                if cycled > 0 && c.wrong + c.not_converged + c.errors == wrong_before {
                    c.cycles_resolved += 1;
                }
                r
            };
            let (mut s_lo, mut s_hi) = (0.0f64, 1.0f64);
            let r_lo = eval(&lo0, ctx, c, "start pose");
            let k_lo = match &r_lo {
                Ok(o) => key(o, &lo0),
                Err(_) => Key::Nothing,
            };
            let mut last_lo = r_lo;
            let mut last_hi: Option<Answer> = None;
            let mut steps = 0;
            let (mut pose_lo, mut pose_hi) = (lo0, hi0);
            for _ in 0..MAX_STEPS {
                let s = 0.5 * (s_lo + s_hi);
                if !(s > s_lo && s < s_hi) {
                    break;
                }
                let mid = interpolate(&lo0, &hi0, s);
                if mid == pose_lo || mid == pose_hi {
                    break;
                }
                steps += 1;
                let r = eval(&mid, ctx, c, "bisection");
                let k = match &r {
                    Ok(o) => key(o, &mid),
                    Err(_) => Key::Nothing,
                };
                if k == k_lo {
                    s_lo = s;
                    pose_lo = mid;
                    last_lo = r;
                } else {
                    s_hi = s;
                    pose_hi = mid;
                    last_hi = Some(r);
                }
            }
            let (lo, hi) = (pose_lo, pose_hi);
            c.steps += steps;
            depth_hist[m][steps] += 1;
            // The boundary poses against the oracle.
            let rel = if method.is_peer() {
                crate::PEER_AGREEMENT_REL
            } else {
                polycd::tolerance::AGREEMENT_REL
            };
            for (pose, ans, what) in [
                (lo, Some(last_lo), "boundary (lower)"),
                (hi, last_hi, "boundary (upper)"),
            ] {
                let Some(Ok(o)) = ans else { continue };
                let (Some(d), Verdict::Disjoint) = (o.distance, o.verdict) else {
                    continue;
                };
                let pb = Placement::new(pose);
                let truth = oracle::signed_distance(&cube.poly, &pa.pose, &cube.poly, &pb.pose)
                    .map_err(|e| format!("oracle failed: {e}"))?;
                let tol = PairTolerance::new(&cube, &pa, &cube, &pb);
                if (d - truth.signed_distance).abs() > rel * tol.scale {
                    c.wrong += 1;
                    wrong_here = true;
                    ctx.disagree(
                        format!("trial {trial}, {what}"),
                        method.label,
                        "oracle",
                        format!("d = {d:.17e}, oracle {:.17e}", truth.signed_distance),
                    );
                }
            }
            if wrong_here {
                c.wrong_trials += 1;
            }
        }
        if (trial + 1) % chunk == 0 {
            ctx.progress.tick(1);
        }
    }
    // Report.
    ctx.table.push_str(&format!(
        "== degeneracy (V-Clip Alg. 10): {trials} trials, two cubes of side 2, bisection to feature changes; \
         true distance ≥ 4 − 2√3 = {bound:.6} ==\n"
    ));
    let mut t = Table::new(
        [
            "method",
            "queries",
            "wrong answers",
            "trials with wrong",
            "not converged",
            "errors",
            "cycles (resolved)",
            "min distance",
            "mean steps",
            "mean iterations",
            "µs per query",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    );
    let mut rows = Vec::new();
    for (m, method) in methods.iter().enumerate() {
        let c = &counts[m];
        if !avail[m] {
            t.row(vec![method.label.to_string(), "n/a".into()]);
            rows.push(vec![method.label.to_string(), trials.to_string()]);
            continue;
        }
        let q = c.queries.max(1) as f64;
        let it = if c.iteration_samples > 0 {
            c.iterations / c.iteration_samples as f64
        } else {
            f64::NAN
        };
        let steps = c.steps as f64 / c.trials.max(1) as f64;
        t.row(vec![
            method.label.to_string(),
            c.queries.to_string(),
            c.wrong.to_string(),
            c.wrong_trials.to_string(),
            c.not_converged.to_string(),
            c.errors.to_string(),
            if matches!(method.engine, crate::methods::Engine::Polycd(Algorithm::VClip)) {
                format!("{} ({})", c.cycles, c.cycles_resolved)
            } else {
                "not exposed".into()
            },
            format!("{:.6}", c.min_distance),
            format!("{steps:.1}"),
            if it.is_finite() {
                format!("{it:.2}")
            } else {
                "n/a".into()
            },
            us(c.ns / q),
        ]);
        use crate::csv::num;
        rows.push(vec![
            method.label.to_string(),
            c.trials.to_string(),
            c.queries.to_string(),
            c.wrong.to_string(),
            c.wrong_trials.to_string(),
            c.not_converged.to_string(),
            c.errors.to_string(),
            c.cycles.to_string(),
            c.cycles_resolved.to_string(),
            num(c.min_distance),
            num(steps),
            num(it),
            num(c.ns / q / 1000.0),
        ]);
    }
    ctx.table.push_str(&t.render());
    csv_out(
        ctx,
        "degeneracy.csv",
        &[
            "method",
            "trials",
            "queries",
            "wrong_answers",
            "trials_with_wrong_answers",
            "not_converged",
            "errors",
            "cycles",
            "cycles_resolved",
            "min_distance",
            "mean_bisection_steps",
            "mean_iterations",
            "mean_us_per_query",
        ],
        &rows,
    )?;
    // Plot: how deep the bisections go (share of trials per number of steps).
    let series = methods
        .iter()
        .enumerate()
        .filter(|(m, _)| avail[*m] && counts[*m].trials > 0)
        .map(|(m, method)| Series {
            label: method.label.to_string(),
            points: depth_hist[m]
                .iter()
                .enumerate()
                .filter(|(_, &n)| n > 0)
                .map(|(s, &n)| (s as f64, 100.0 * n as f64 / counts[m].trials as f64))
                .collect(),
            peer: method.is_peer(),
        })
        .collect();
    svg_out(
        ctx,
        "degeneracy_steps.svg",
        &Chart {
            title: format!("Degeneracy test (V-Clip Alg. 10): bisection depth, {trials} trials"),
            x_label: "bisection steps until the coherence device stops changing".into(),
            y_label: "share of trials (%)".into(),
            x_log: false,
            y_log: Some(false),
            legend_left: false,
            series,
        },
    )
}
