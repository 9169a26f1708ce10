//! `random-distance` — 1 000-vertex ellipsoid hulls (200:100:100) in random poses, no
//! coherence: GJK, V-Clip and the fast QP solver against parry3d `distance` (issue 3's
//! target: GJK ≥ 10× faster than parry3d here).
//!
//! P at the origin in a random orientation, Q in a random orientation with its centre at
//! D·(R_P + R_Q) in a random direction, D uniform in [0.5, 1.5]. Every query is timed on its
//! own (fresh cache each time; median over the repetitions); the table gives the mean over the
//! pairs, the plot the mean per band of D — time against how far apart the shapes are.

use super::qp_scaling::{check_all, random_pairs};
use super::{available, csv_out, svg_out};
use crate::methods::{Answer, Body, Coherence, Method, PairTolerance, Question};
use crate::plot::{Chart, Series};
use crate::table::{ratio, us, Table};
use crate::timing::{mean, median, time_single, Case};
use crate::{Context, RunOptions};
use polycd::{shapes, Algorithm, PairCache};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The methods of this scenario (one line per method; the peer last).
pub(crate) const RANDOM_METHODS: [Method; 4] = [
    Method::polycd("GJK", Algorithm::Gjk, Question::Distance, Coherence::Cold),
    Method::polycd("V-Clip", Algorithm::VClip, Question::Distance, Coherence::Cold),
    Method::polycd("QP fast", Algorithm::QpFast, Question::Distance, Coherence::Cold),
    Method::parry("parry3d distance", Question::Distance),
];

const BANDS: usize = 10;

pub(crate) fn run(opts: &RunOptions, ctx: &mut Context) -> Result<(), String> {
    let (pairs, reps) = if opts.quick { (20, 1) } else { (1000, 5) };
    let n = 1000;
    let methods = &RANDOM_METHODS;
    let seed = opts.seed.wrapping_add(9000);
    let p = Body::from_result("P", shapes::ellipsoid(n, 200.0, 100.0, 100.0, seed))?;
    let q = Body::from_result("Q", shapes::ellipsoid(n, 200.0, 100.0, 100.0, seed.wrapping_add(1)))?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(2));
    let placements = random_pairs(&p, &q, pairs, &mut rng);
    let cases: Vec<Case> = placements
        .iter()
        .map(|&(pa, pb)| Case { a: &p, pa, b: &q, pb })
        .collect();
    let reach: f64 = [&p, &q]
        .iter()
        .map(|b| b.poly.vertices().iter().map(|v| v.length()).fold(0.0, f64::max))
        .sum();
    let band = |c: &Case| -> usize {
        let d = (c.pb.pose.translation - c.pa.pose.translation).length() / reach;
        (((d - 0.5) * BANDS as f64).floor().max(0.0) as usize).min(BANDS - 1)
    };
    let avail = available(ctx, methods, &cases[0]);
    let tols: Vec<PairTolerance> = cases
        .iter()
        .map(|c| PairTolerance::new(c.a, &c.pa, c.b, &c.pb))
        .collect();
    ctx.start_progress((methods.len() * pairs) as u64);
    let mut per_query = vec![vec![f64::NAN; pairs]; methods.len()];
    let mut answers: Vec<Option<Vec<Answer>>> = vec![None; methods.len()];
    let mut samples = Vec::with_capacity(reps);
    let mut cache = PairCache::default();
    for (m, method) in methods.iter().enumerate() {
        if !avail[m] {
            ctx.progress.tick(pairs as u64);
            continue;
        }
        let mut ans = Vec::with_capacity(pairs);
        for (j, c) in cases.iter().enumerate() {
            let (ns, a) = time_single(method, c, reps, &mut cache, &mut samples);
            per_query[m][j] = ns;
            ans.push(a);
            ctx.progress.tick(1);
        }
        answers[m] = Some(ans);
    }
    let bad = check_all(ctx, methods, &answers, &tols, &|j| format!("pair {j}"));
    // Table.
    ctx.table.push_str(&format!(
        "== random-distance: ellipsoid hulls n = {n} (200:100:100), {pairs} random poses, cold; \
         µs per query (each query the median of {reps}) ==\n"
    ));
    let peer = methods.iter().position(|m| m.is_peer());
    let mut t = Table::new(
        [
            "method",
            "mean µs",
            "median µs",
            "parry ÷ method (mean)",
            "separated: parry ÷ method",
            "overlapping: parry ÷ method",
            "disagreements",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    );
    let means: Vec<f64> = per_query.iter().map(|v| mean(v)).collect();
    // Pairs the peer found apart (its distance > 0) and the others: polycd answers the
    // penetration depth for the latter, the peer `distance` + `contact` (see methods.rs).
    let apart: Vec<bool> = match peer.and_then(|pi| answers[pi].as_ref()) {
        Some(ans) => ans
            .iter()
            .map(|a| matches!(a, Ok(o) if o.verdict == crate::methods::Verdict::Disjoint))
            .collect(),
        None => vec![true; pairs],
    };
    let class_mean = |m: usize, want: bool| {
        let v: Vec<f64> = per_query[m]
            .iter()
            .zip(&apart)
            .filter(|(_, a)| **a == want)
            .map(|(t, _)| *t)
            .collect();
        mean(&v)
    };
    let n_apart = apart.iter().filter(|a| **a).count();
    let mut rows = Vec::new();
    for (m, method) in methods.iter().enumerate() {
        let med = median(&mut per_query[m].clone());
        let r = peer.map(|pi| means[pi] / means[m]).unwrap_or(f64::NAN);
        t.row(vec![
            method.label.to_string(),
            us(means[m]),
            us(med),
            ratio(r),
            ratio(
                peer.map(|pi| class_mean(pi, true) / class_mean(m, true))
                    .unwrap_or(f64::NAN),
            ),
            ratio(
                peer.map(|pi| class_mean(pi, false) / class_mean(m, false))
                    .unwrap_or(f64::NAN),
            ),
            if avail[m] { bad[m].to_string() } else { "n/a".into() },
        ]);
        use crate::csv::num;
        rows.push(vec![
            method.label.to_string(),
            n.to_string(),
            pairs.to_string(),
            num(means[m] / 1000.0),
            num(med / 1000.0),
            num(r),
            bad[m].to_string(),
        ]);
    }
    ctx.table.push_str(&t.render());
    ctx.table.push_str(&format!(
        "{n_apart} of {pairs} pairs separated; overlapping pairs: polycd measures the penetration \
         depth, the peer runs `distance` then `contact`\n"
    ));
    csv_out(
        ctx,
        "random-distance.csv",
        &[
            "method",
            "n",
            "pairs",
            "mean_us_per_query",
            "median_us_per_query",
            "parry_over_method",
            "disagreements",
        ],
        &rows,
    )?;
    // Per-pair CSV (time against centre distance) and the banded plot.
    let mut pair_rows = Vec::new();
    for (j, c) in cases.iter().enumerate() {
        let d = (c.pb.pose.translation - c.pa.pose.translation).length() / reach;
        for (m, method) in methods.iter().enumerate() {
            if avail[m] {
                pair_rows.push(vec![
                    j.to_string(),
                    crate::csv::num(d),
                    method.label.to_string(),
                    crate::csv::num(per_query[m][j] / 1000.0),
                ]);
            }
        }
    }
    csv_out(
        ctx,
        "random-distance_pairs.csv",
        &["pair", "centre_distance_over_reach", "method", "median_us"],
        &pair_rows,
    )?;
    let series = methods
        .iter()
        .enumerate()
        .filter(|(m, _)| avail[*m])
        .map(|(m, method)| {
            let mut sums = [(0.0, 0usize); BANDS];
            for (j, c) in cases.iter().enumerate() {
                let b = band(c);
                sums[b].0 += per_query[m][j];
                sums[b].1 += 1;
            }
            Series {
                label: method.label.to_string(),
                points: sums
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.1 > 0)
                    .map(|(b, s)| (0.5 + (b as f64 + 0.5) / BANDS as f64, s.0 / s.1 as f64 / 1000.0))
                    .collect(),
                peer: method.is_peer(),
            }
        })
        .collect();
    svg_out(
        ctx,
        "random-distance.svg",
        &Chart {
            title: format!("Distance, ellipsoid hulls n = {n}, random poses ({pairs} pairs, no coherence)"),
            x_label: "centre distance ÷ (R_P + R_Q)".into(),
            y_label: "time per query (µs)".into(),
            x_log: false,
            y_log: None,
            legend_left: false,
            series,
        },
    )
}
