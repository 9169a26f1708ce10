//! `qp-scaling` — Jin, Wang, Wang, Fu: minimum distance as a convex program, faithful
//! (interior point) and fast solvers against GJK, V-Clip and parry3d `distance`, at
//! n = 10, 100, 1 000 hull vertices (quick: 10, 100).
//!
//! Shapes: hulls of n seeded random points on the ellipsoid 200:100:100 (all such points are
//! extreme, so the hull has n vertices). P sits at the origin in a random orientation; Q in a
//! random orientation with its centre at distance D·(R_P + R_Q) in a random direction, D
//! uniform in [0.5, 1.5] (mostly separated, some overlapping). Every method is cold (fresh
//! cache per query): the paper's solver has no coherence. Each query is timed up to `reps`
//! times and its median kept (repetitions stop after 20 ms and 3 samples, for the interior-point
//! solver at n = 1 000); the time at n is the mean over the pairs. The table reports the growth exponent between
//! successive n — the paper states O((n_A + n_B)²) for the faithful solver.

use super::{available, csv_out, svg_out};
use crate::methods::{compare, Answer, Body, Coherence, Method, PairTolerance, Placement, Question};
use crate::plot::{Chart, Series};
use crate::table::{ratio, us, Table};
use crate::timing::{time_single, Case};
use crate::{Context, RunOptions};
use polycd::{shapes, Algorithm, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The methods of this scenario (one line per method; the peer last).
pub(crate) const QP_METHODS: [Method; 5] = [
    Method::polycd("QP faithful", Algorithm::Qp, Question::Distance, Coherence::Cold),
    Method::polycd("QP fast", Algorithm::QpFast, Question::Distance, Coherence::Cold),
    Method::polycd("GJK", Algorithm::Gjk, Question::Distance, Coherence::Cold),
    Method::polycd("V-Clip", Algorithm::VClip, Question::Distance, Coherence::Cold),
    Method::parry("parry3d distance", Question::Distance),
];

fn max_norm(b: &Body) -> f64 {
    b.poly.vertices().iter().map(|v| v.length()).fold(0.0, f64::max)
}

/// Random placements of Q around P (see the module header).
pub(crate) fn random_pairs(p: &Body, q: &Body, count: usize, rng: &mut ChaCha8Rng) -> Vec<(Placement, Placement)> {
    let reach = max_norm(p) + max_norm(q);
    (0..count)
        .map(|_| {
            let pa = Pose::new(shapes::random_rotation(rng), polycd::DVec3::ZERO);
            let d = rng.random_range(0.5..1.5) * reach;
            let pb = Pose::new(shapes::random_rotation(rng), shapes::unit_vector(rng) * d);
            (Placement::new(pa), Placement::new(pb))
        })
        .collect()
}

/// Checks every method's answers against the first available method's (or reports errors).
pub(crate) fn check_all(
    ctx: &mut Context,
    methods: &[Method],
    answers: &[Option<Vec<Answer>>],
    tols: &[PairTolerance],
    case_name: &dyn Fn(usize) -> String,
) -> Vec<usize> {
    let mut bad = vec![0usize; methods.len()];
    let Some(r) = answers.iter().position(|a| a.is_some()) else {
        return bad;
    };
    for m in 0..methods.len() {
        let (Some(ref_ans), Some(ans)) = (&answers[r], &answers[m]) else {
            continue;
        };
        for (j, (x, y)) in ans.iter().zip(ref_ans).enumerate() {
            let d = match (x, y) {
                (Ok(x), Ok(y)) if m != r => compare(x, y, tols[j], methods[m].is_peer() || methods[r].is_peer()),
                (Ok(x), _) => {
                    if x.verdict == crate::methods::Verdict::NotConverged {
                        Some(format!("did not converge: {}", x.describe()))
                    } else {
                        None
                    }
                }
                (Err(e), _) => Some(format!("{e:?}")),
            };
            if let Some(d) = d {
                bad[m] += 1;
                let reference = if m == r { "convergence" } else { methods[r].label };
                ctx.disagree(case_name(j), methods[m].label, reference, d);
            }
        }
    }
    bad
}

pub(crate) fn run(opts: &RunOptions, ctx: &mut Context) -> Result<(), String> {
    let (sizes, pairs, reps): (&[usize], usize, usize) = if opts.quick {
        (&[10, 100], 5, 1)
    } else {
        (&[10, 100, 1000], 30, 5)
    };
    let methods = &QP_METHODS;
    ctx.start_progress((sizes.len() * methods.len()) as u64);
    ctx.table.push_str(&format!(
        "== qp-scaling (Jin et al.): distance queries, µs per query (mean over {pairs} random pairs of each query's median of ≤ {reps}) ==\n"
    ));
    let mut cache = polycd::PairCache::default();
    let mut samples = Vec::with_capacity(reps);
    let mut times = vec![vec![f64::NAN; sizes.len()]; methods.len()];
    let mut csv_rows = Vec::new();
    let mut avail: Option<Vec<bool>> = None;
    for (ni, &n) in sizes.iter().enumerate() {
        ctx.progress.message(&format!("n = {n}"));
        let seed = opts.seed.wrapping_add(7000 + 10 * ni as u64);
        let p = Body::from_result("P", shapes::ellipsoid(n, 200.0, 100.0, 100.0, seed))?;
        let q = Body::from_result("Q", shapes::ellipsoid(n, 200.0, 100.0, 100.0, seed.wrapping_add(1)))?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(2));
        let cases: Vec<Case> = random_pairs(&p, &q, pairs, &mut rng)
            .into_iter()
            .map(|(pa, pb)| Case { a: &p, pa, b: &q, pb })
            .collect();
        let av = match &avail {
            Some(a) => a.clone(),
            None => {
                let a = available(ctx, methods, &cases[0]);
                avail = Some(a.clone());
                a
            }
        };
        let tols: Vec<PairTolerance> = cases
            .iter()
            .map(|c| PairTolerance::new(c.a, &c.pa, c.b, &c.pb))
            .collect();
        let mut answers: Vec<Option<Vec<Answer>>> = vec![None; methods.len()];
        for (m, method) in methods.iter().enumerate() {
            ctx.progress.tick(1);
            if !av[m] {
                continue;
            }
            let mut ans = Vec::with_capacity(cases.len());
            let mut sum = 0.0;
            for c in &cases {
                let (ns, a) = time_single(method, c, reps, &mut cache, &mut samples);
                sum += ns;
                ans.push(a);
            }
            times[m][ni] = sum / cases.len().max(1) as f64;
            answers[m] = Some(ans);
        }
        let bad = check_all(ctx, methods, &answers, &tols, &|j| format!("n = {n}, pair {j}"));
        for (m, method) in methods.iter().enumerate() {
            use crate::csv::num;
            csv_rows.push(vec![
                n.to_string(),
                p.vertex_count().to_string(),
                q.vertex_count().to_string(),
                method.label.to_string(),
                num(times[m][ni] / 1000.0),
                pairs.to_string(),
                bad[m].to_string(),
            ]);
        }
    }
    let peer = methods.iter().position(|m| m.is_peer());
    let mut header = vec!["n".to_string()];
    header.extend(methods.iter().map(|m| m.label.to_string()));
    if peer.is_some() {
        header.extend(
            methods
                .iter()
                .filter(|m| !m.is_peer())
                .map(|m| format!("parry÷{}", m.label)),
        );
    }
    let mut t = Table::new(header);
    for (ni, &n) in sizes.iter().enumerate() {
        let mut r = vec![n.to_string()];
        r.extend(times.iter().map(|ts| us(ts[ni])));
        if let Some(pi) = peer {
            for (m, ts) in times.iter().enumerate() {
                if !methods[m].is_peer() {
                    r.push(ratio(times[pi][ni] / ts[ni]));
                }
            }
        }
        t.row(r);
    }
    for w in 1..sizes.len() {
        let mut r = vec![format!("exponent {}→{}", sizes[w - 1], sizes[w])];
        for ts in &times {
            let e = (ts[w] / ts[w - 1]).ln() / (sizes[w] as f64 / sizes[w - 1] as f64).ln();
            r.push(if e.is_finite() {
                format!("n^{e:.2}")
            } else {
                "n/a".into()
            });
        }
        t.row(r);
    }
    ctx.table.push_str(&t.render());
    csv_out(
        ctx,
        "qp-scaling.csv",
        &[
            "n",
            "hull_vertices_p",
            "hull_vertices_q",
            "method",
            "mean_of_median_us_per_query",
            "pairs",
            "disagreements",
        ],
        &csv_rows,
    )?;
    let series = methods
        .iter()
        .zip(&times)
        .filter(|(_, ts)| ts.iter().any(|x| x.is_finite()))
        .map(|(m, ts)| Series {
            label: m.label.to_string(),
            points: sizes.iter().zip(ts).map(|(&n, &t)| (n as f64, t / 1000.0)).collect(),
            peer: m.is_peer(),
        })
        .collect();
    svg_out(
        ctx,
        "qp-scaling.svg",
        &Chart {
            title: "Distance by convex program vs GJK / V-Clip / parry3d (ellipsoid hulls 200:100:100)".into(),
            x_label: "hull vertices n (each shape)".into(),
            y_label: "time per query (µs)".into(),
            x_log: true,
            y_log: Some(true),
            legend_left: true,
            series,
        },
    )
}
