//! `ellipsoid-sweep` — the CD-Dual (§5, Fig. 8–9) and HS-jump (§9) experiment.
//!
//! P and Q are convex hulls of n seeded random points on the ellipsoid with semi-axes a:b:c
//! (different seeds for P and Q). P stays at the identity; Q takes K random orientations. For
//! orientation k, `t_touch(k)` is the largest translation t along the fixed direction x̂ at
//! which P and Q (rotated) still overlap: `{t : t·x̂ ∈ P − Q}` is an interval (a line meets a
//! convex set in an interval) and `t_touch` is its upper end. For each signed offset l, Q is
//! placed at `(t_touch + l)·x̂`: l > 0 is a gap of l along x̂, l < 0 a penetration of |l|
//! along x̂. Every method answers the overlap question for the K poses of each l; each query
//! is timed `reps` times (fresh cache each time) and its median kept; the time at l is the
//! mean over the K poses.
//!
//! `t_touch` is found by bisection on t ∈ [0, R_P + R_Q + 1] (overlapping at 0: both hulls
//! contain the origin; apart at the top: beyond both bounding radii) with parry3d-f64's
//! `intersection_test` (GJK on the support maps), run to floating-point convergence. Its
//! boolean is reliable far below the smallest offset used (|l| ≥ 0.01 on shapes of size
//! 200–400, i.e. 2.5·10⁻⁵ relative), so the expected answer of every pose is known from
//! the construction (l < 0: overlapping, l > 0: disjoint); l = 0 itself is not used. Every
//! method's answer is checked against it — a wrong `t_touch` would show up as every method
//! disagreeing at small |l|.
//!
//! Fig. 10 (time in Search-FV / VF / EE): CD-Dual's own search (`cd_dual::search_observed`,
//! the clock read at its phase events, the boolean query's early exit at a separating face, cold cache; the
//! paper's search, without the boolean query's role swap, start-face probe and overlap
//! certificate, see `polycd::cd_dual`) on the same poses;
//! mean nanoseconds per phase at each l go to `ellipsoid-sweep_cd-dual-phases.csv`, and the
//! accumulated graph of the paper's configuration (n = 1 000, 200:100:100; in quick mode the
//! first variant) to `ellipsoid-sweep_cd-dual-phases.svg`. The clock reads add a little to
//! each phase, so these times are slightly above the untimed query's.

use super::{available, csv_out, svg_out, tag};
use crate::methods::{compare_expected, Body, Class, Coherence, Method, PairTolerance, Placement, Question};
use crate::plot::{Chart, Series};
use crate::table::{ratio, us, Table};
use crate::timing::{median, time_single, Case};
use crate::{Context, RunOptions};
use polycd::cd_dual::{self, CdDualCache, PhaseEvent, SearchOptions};
use polycd::{shapes, Algorithm, DQuat, DVec3, PairCache, Pose};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

/// The methods of this scenario (one line per method; the peer last).
pub(crate) const SWEEP_METHODS: [Method; 5] = [
    Method::polycd("CD-Dual", Algorithm::CdDual, Question::Intersect, Coherence::Cold),
    Method::polycd("HS-jump", Algorithm::HsJump, Question::Intersect, Coherence::Cold),
    Method::polycd("GJK (boolean)", Algorithm::Gjk, Question::Intersect, Coherence::Cold),
    Method::polycd("V-Clip", Algorithm::VClip, Question::Intersect, Coherence::Cold),
    Method::parry("parry3d intersection_test", Question::Intersect),
];

/// One shape family: vertex count and semi-axes.
#[derive(Clone, Copy, Debug)]
struct Variant {
    n: usize,
    axes: [f64; 3],
}

const FULL_VARIANTS: [Variant; 9] = [
    Variant {
        n: 200,
        axes: [200.0, 100.0, 100.0],
    },
    Variant {
        n: 1000,
        axes: [200.0, 100.0, 100.0],
    },
    Variant {
        n: 2000,
        axes: [200.0, 100.0, 100.0],
    },
    Variant {
        n: 200,
        axes: [200.0, 180.0, 180.0],
    },
    Variant {
        n: 1000,
        axes: [200.0, 180.0, 180.0],
    },
    Variant {
        n: 2000,
        axes: [200.0, 180.0, 180.0],
    },
    Variant {
        n: 1000,
        axes: [200.0, 20.0, 20.0],
    },
    Variant {
        n: 2000,
        axes: [200.0, 20.0, 20.0],
    },
    // HS-jump §9's largest hulls (issue 24 item 3).
    Variant {
        n: 4000,
        axes: [200.0, 180.0, 180.0],
    },
];

const QUICK_VARIANTS: [Variant; 2] = [
    Variant {
        n: 200,
        axes: [200.0, 100.0, 100.0],
    },
    Variant {
        n: 200,
        axes: [200.0, 20.0, 20.0],
    },
];

/// Signed offsets, finer near 0 (0 itself excluded: the expected answer is "touching" only up
/// to the accuracy of `t_touch`).
const FULL_OFFSETS: [f64; 28] = [
    -40.0, -30.0, -20.0, -15.0, -10.0, -7.0, -5.0, -3.0, -2.0, -1.0, -0.5, -0.2, -0.1, -0.01, 0.01, 0.1, 0.2, 0.5, 1.0,
    2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0, 40.0,
];
const QUICK_OFFSETS: [f64; 8] = [-40.0, -10.0, -1.0, -0.01, 0.01, 1.0, 10.0, 40.0];
/// Offsets shown in the text table (all are in the CSV and the plot).
const TABLE_OFFSETS: [f64; 10] = [-40.0, -10.0, -1.0, -0.1, -0.01, 0.01, 0.1, 1.0, 10.0, 40.0];

/// Orientations per variant and repetitions per measurement.
const FULL_K: usize = 100;
/// The papers' own sampling (CD-Dual §5: 500 orientations, offsets −40…40 in steps of 0.2),
/// run when `POLYCD_SWEEP_PAPER=1` is set (hours: 400 offsets × 500 orientations per variant).
const PAPER_K: usize = 500;
const PAPER_STEP: f64 = 0.2;

/// True when `POLYCD_SWEEP_PAPER=1` asks for the papers' sampling.
fn paper_sampling() -> bool {
    std::env::var("POLYCD_SWEEP_PAPER").is_ok_and(|v| v == "1")
}

/// −40…40 in steps of [`PAPER_STEP`], 0 left out (see [`FULL_OFFSETS`]).
fn paper_offsets() -> Vec<f64> {
    (-200..=200)
        .filter(|&i| i != 0)
        // i / 5 is the correctly rounded i·0.2, equal to the literal offsets of the table.
        .map(|i| i as f64 / (1.0 / PAPER_STEP).round())
        .collect()
}
const QUICK_K: usize = 4;
const FULL_REPS: usize = 5;
const QUICK_REPS: usize = 3;

/// The fixed translation direction x̂.
const DIRECTION: DVec3 = DVec3::X;

fn max_norm(b: &Body) -> f64 {
    b.poly.vertices().iter().map(|v| v.length()).fold(0.0, f64::max)
}

/// The largest t at which P (identity) and Q (rotated by `rot`, translated by t·x̂) overlap,
/// by bisection with parry3d's intersection test (see the module header).
pub(crate) fn touch_distance(p: &Body, q: &Body, rot: DQuat) -> Result<f64, String> {
    let pa = Placement::new(Pose::IDENTITY);
    let overlaps = |t: f64| -> Result<bool, String> {
        let pb = Placement::new(Pose::new(rot, DIRECTION * t));
        parry3d_f64::query::intersection_test(&pa.parry, &p.parry, &pb.parry, &q.parry)
            .map(|r| r.intersecting)
            .map_err(|_| "parry3d intersection_test unsupported".to_string())
    };
    let mut lo = 0.0;
    let mut hi = max_norm(p) + max_norm(q) + 1.0;
    if !overlaps(lo)? {
        return Err("the shapes do not overlap at t = 0 (a hull misses the origin)".into());
    }
    if overlaps(hi)? {
        return Err("the shapes still overlap beyond their bounding radii".into());
    }
    // Each step halves the bracket; floating-point convergence takes < 1 100 steps.
    for _ in 0..1100 {
        let mid = 0.5 * (lo + hi);
        if !(mid > lo && mid < hi) {
            break;
        }
        if overlaps(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

pub(crate) fn run(opts: &RunOptions, ctx: &mut Context) -> Result<(), String> {
    let paper = paper_offsets();
    let (variants, offsets, k, reps): (&[Variant], &[f64], usize, usize) = if opts.quick {
        (&QUICK_VARIANTS, &QUICK_OFFSETS, QUICK_K, QUICK_REPS)
    } else if paper_sampling() {
        (&FULL_VARIANTS, &paper, PAPER_K, FULL_REPS)
    } else {
        (&FULL_VARIANTS, &FULL_OFFSETS, FULL_K, FULL_REPS)
    };
    let methods = &SWEEP_METHODS;
    ctx.start_progress((variants.len() * (k + offsets.len() * methods.len())) as u64);
    ctx.table.push_str(&format!(
        "== ellipsoid-sweep (CD-Dual §5, HS-jump §9): overlap queries, µs per query \
         (mean over {k} orientations, median of {reps}); l = offset along x̂ from first contact ==\n"
    ));
    let mut csv_rows: Vec<Vec<String>> = Vec::new();
    let mut phase_rows: Vec<Vec<String>> = Vec::new();
    for (vi, v) in variants.iter().enumerate() {
        let [a, b, c] = v.axes;
        let vname = format!("n = {}, {a}:{b}:{c}", v.n);
        ctx.progress.message(&vname);
        let seed = opts.seed.wrapping_add(1000 * vi as u64);
        let p = Body::from_result("P", shapes::ellipsoid(v.n, a, b, c, seed))?;
        let q = Body::from_result("Q", shapes::ellipsoid(v.n, a, b, c, seed.wrapping_add(1)))?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(2));
        let mut rots = Vec::with_capacity(k);
        let mut touch = Vec::with_capacity(k);
        for _ in 0..k {
            let r = shapes::random_rotation(&mut rng);
            touch.push(touch_distance(&p, &q, r)?);
            rots.push(r);
            ctx.progress.tick(1);
        }
        let pa = Placement::new(Pose::IDENTITY);
        let poses_at = |l: f64| -> Vec<Case> {
            rots.iter()
                .zip(&touch)
                .map(|(r, t)| Case {
                    a: &p,
                    pa,
                    b: &q,
                    pb: Placement::new(Pose::new(*r, DIRECTION * (t + l))),
                })
                .collect()
        };
        let first = poses_at(offsets[0]);
        let avail = available(ctx, methods, &first[0]);
        // Each query is timed on its own, `reps` times, and its median kept (a preemption of
        // the process spoils one sample of one query, not a whole batch); the time at an
        // offset is the mean of the K per-query medians.
        let mut its = vec![vec![f64::NAN; offsets.len()]; methods.len()];
        let mut bad = vec![vec![0usize; offsets.len()]; methods.len()];
        let mut per_query = vec![vec![f64::NAN; offsets.len()]; methods.len()];
        let mut cache = PairCache::default();
        let mut samples = Vec::with_capacity(reps);
        for (i, &l) in offsets.iter().enumerate() {
            let cases = poses_at(l);
            let expected = if l < 0.0 { Class::Overlap } else { Class::Apart };
            for (m, method) in methods.iter().enumerate() {
                ctx.progress.tick(1);
                if !avail[m] {
                    continue;
                }
                let mut sum_ns = 0.0;
                let mut it_sum = (0.0, 0usize);
                for (j, c) in cases.iter().enumerate() {
                    let (ns, ans) = time_single(method, c, reps, &mut cache, &mut samples);
                    sum_ns += ns;
                    let case = format!("{vname}, l = {l}, orientation {j}");
                    let tol = PairTolerance::new(c.a, &c.pa, c.b, &c.pb);
                    match ans {
                        Ok(o) => {
                            if let Some(it) = o.iterations {
                                it_sum.0 += it as f64;
                                it_sum.1 += 1;
                            }
                            if let Some(d) = compare_expected(&o, expected, tol) {
                                bad[m][i] += 1;
                                ctx.disagree(case, method.label, "construction", d);
                            }
                        }
                        Err(e) => {
                            bad[m][i] += 1;
                            ctx.disagree(case, method.label, "construction", format!("{e:?}"));
                        }
                    }
                }
                per_query[m][i] = sum_ns / cases.len().max(1) as f64;
                if it_sum.1 > 0 {
                    its[m][i] = it_sum.0 / it_sum.1 as f64;
                }
            }
        }
        // Fig. 10: mean time per CD-Dual phase at each offset.
        let mut phases = vec![[f64::NAN; 3]; offsets.len()];
        for (i, &l) in offsets.iter().enumerate() {
            let cases = poses_at(l);
            let (mut acc, mut count) = ([0u64; 3], 0u64);
            for c in &cases {
                for _ in 0..reps {
                    let mut cc = CdDualCache::default();
                    let opts = SearchOptions::default().with_early_exit(true);
                    // Each phase timed from outside, between the search's phase events.
                    let mut nanos = [0u64; 3];
                    let mut t0 = Instant::now();
                    let mut unknown = None;
                    let mut observe = |e: PhaseEvent| match e {
                        PhaseEvent::Start(_) => t0 = Instant::now(),
                        PhaseEvent::End(kind) => nanos[kind as usize] += t0.elapsed().as_nanos() as u64,
                        other => unknown = Some(other),
                    };
                    let (a, pa, b, pb) = (&c.a.poly, &c.pa.pose, &c.b.poly, &c.pb.pose);
                    let searched = cd_dual::search_observed(a, pa, b, pb, &mut cc, opts, &mut observe);
                    if let Some(e) = unknown {
                        return Err(format!(
                            "cd_dual::search_observed reported a phase event this bench does not time: {e:?}"
                        ));
                    }
                    if searched.is_ok() {
                        for (a, n) in acc.iter_mut().zip(nanos) {
                            *a += n;
                        }
                        count += 1;
                    }
                }
            }
            if count > 0 {
                phases[i] = acc.map(|x| x as f64 / count as f64);
            }
            phase_rows.push(vec![
                v.n.to_string(),
                crate::csv::num(a),
                crate::csv::num(b),
                crate::csv::num(c),
                crate::csv::num(l),
                crate::csv::num(phases[i][0] / 1000.0),
                crate::csv::num(phases[i][1] / 1000.0),
                crate::csv::num(phases[i][2] / 1000.0),
                count.to_string(),
            ]);
        }
        let paper_config = v.n == 1000 && v.axes == [200.0, 100.0, 100.0];
        if paper_config || (opts.quick && vi == 0) {
            let acc_series = |label: &str, upto: usize| Series {
                label: label.to_string(),
                points: offsets
                    .iter()
                    .zip(&phases)
                    .map(|(&l, ph)| (l, ph[..=upto].iter().sum::<f64>() / 1000.0))
                    .collect(),
                peer: false,
            };
            let chart = Chart {
                title: format!(
                    "CD-Dual time per phase (accumulated), n = {} ({a}:{b}:{c}), {k} orientations",
                    v.n
                ),
                x_label: "signed offset l along x̂ (l < 0: penetration, l > 0: gap)".into(),
                y_label: "accumulated time per query (µs)".into(),
                x_log: false,
                y_log: None,
                legend_left: false,
                series: vec![
                    acc_series("Search-FV", 0),
                    acc_series("Search-FV + Search-VF", 1),
                    acc_series("Search-FV + VF + EE", 2),
                ],
            };
            svg_out(ctx, "ellipsoid-sweep_cd-dual-phases.svg", &chart)?;
        }
        // Text row: the phase shares near contact and deep (the paper's Fig. 10 in numbers).
        let share = |i: usize| {
            let ph = phases[i];
            let t: f64 = ph.iter().sum();
            format!(
                "{:.0}/{:.0}/{:.0}",
                100.0 * ph[0] / t,
                100.0 * ph[1] / t,
                100.0 * ph[2] / t
            )
        };
        // times[m][i]: median ns per query of method m at offset i.
        let times = per_query;
        for (m, method) in methods.iter().enumerate() {
            for (i, &l) in offsets.iter().enumerate() {
                csv_rows.push(row(v, &p, &q, l, method, times[m][i], its[m][i], k, reps, bad[m][i]));
            }
        }
        // Text table.
        ctx.table.push_str(&format!(
            "\n-- {vname} (hull vertices P {}, Q {}) --\n",
            p.vertex_count(),
            q.vertex_count()
        ));
        let mut header = vec!["l".to_string()];
        header.extend(methods.iter().map(|m| m.label.to_string()));
        let mut t = Table::new(header);
        for &l in TABLE_OFFSETS.iter() {
            if let Some(i) = offsets.iter().position(|&o| o == l) {
                let mut r = vec![format!("{l}")];
                r.extend(times.iter().map(|ts| us(ts[i])));
                t.row(r);
            }
        }
        let peer = methods.iter().position(|m| m.is_peer());
        if let Some(pi) = peer {
            let mut rmin = vec!["parry ÷ method, min over l".to_string()];
            let mut rmed = vec!["parry ÷ method, median over l".to_string()];
            for ts in &times {
                let mut rs: Vec<f64> = ts.iter().zip(&times[pi]).map(|(m, p)| p / m).collect();
                let min = rs
                    .iter()
                    .copied()
                    .filter(|x| x.is_finite())
                    .fold(f64::INFINITY, f64::min);
                rmin.push(ratio(if min.is_finite() { min } else { f64::NAN }));
                rmed.push(ratio(median(&mut rs)));
            }
            t.row(rmin);
            t.row(rmed);
        }
        // The "balanced" claim: time near contact against time at the deepest offset.
        if let Some(i40) = offsets.iter().position(|&o| o == offsets[0]) {
            let mut r = vec![format!("max t(|l| ≤ 1) ÷ t(l = {})", offsets[0])];
            for ts in &times {
                let near = offsets
                    .iter()
                    .zip(ts)
                    .filter(|(l, _)| l.abs() <= 1.0)
                    .map(|(_, t)| *t)
                    .fold(f64::NAN, f64::max);
                r.push(ratio(near / ts[i40]));
            }
            t.row(r);
        }
        ctx.table.push_str(&t.render());
        let shares: Vec<String> = TABLE_OFFSETS
            .iter()
            .filter_map(|l| {
                offsets
                    .iter()
                    .position(|o| o == l)
                    .map(|i| format!("l = {l}: {}", share(i)))
            })
            .collect();
        ctx.table.push_str(&format!(
            "CD-Dual time share FV/VF/EE (%, Fig. 10): {}\n",
            shares.join(", ")
        ));
        // Plot.
        let series = methods
            .iter()
            .zip(&times)
            .filter(|(_, ts)| ts.iter().any(|x| x.is_finite()))
            .map(|(m, ts)| Series {
                label: m.label.to_string(),
                points: offsets.iter().zip(ts).map(|(&l, &t)| (l, t / 1000.0)).collect(),
                peer: m.is_peer(),
            })
            .collect();
        let chart = Chart {
            title: format!(
                "Overlap test, ellipsoid hulls n = {} ({a}:{b}:{c}), {k} orientations",
                v.n
            ),
            x_label: "signed offset l along x̂ (l < 0: penetration, l > 0: gap)".into(),
            y_label: "time per query (µs)".into(),
            x_log: false,
            y_log: None,
            legend_left: false,
            series,
        };
        svg_out(
            ctx,
            &format!("ellipsoid-sweep_n{}_{}-{}-{}.svg", v.n, tag(a), tag(b), tag(c)),
            &chart,
        )?;
    }
    csv_out(
        ctx,
        "ellipsoid-sweep_cd-dual-phases.csv",
        &[
            "n",
            "a",
            "b",
            "c",
            "l",
            "search_fv_us",
            "search_vf_us",
            "search_ee_us",
            "queries",
        ],
        &phase_rows,
    )?;
    csv_out(
        ctx,
        "ellipsoid-sweep.csv",
        &[
            "n",
            "a",
            "b",
            "c",
            "hull_vertices_p",
            "hull_vertices_q",
            "l",
            "method",
            "mean_of_median_us_per_query",
            "mean_iterations",
            "orientations",
            "repetitions",
            "disagreements",
        ],
        &csv_rows,
    )
}

#[allow(clippy::too_many_arguments)]
fn row(
    v: &Variant,
    p: &Body,
    q: &Body,
    l: f64,
    m: &Method,
    ns: f64,
    its: f64,
    k: usize,
    reps: usize,
    bad: usize,
) -> Vec<String> {
    use crate::csv::num;
    vec![
        v.n.to_string(),
        num(v.axes[0]),
        num(v.axes[1]),
        num(v.axes[2]),
        p.vertex_count().to_string(),
        q.vertex_count().to_string(),
        num(l),
        m.label.to_string(),
        num(ns / 1000.0),
        num(its),
        k.to_string(),
        reps.to_string(),
        bad.to_string(),
    ]
}
