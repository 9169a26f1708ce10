//! `near-contact` — issue 27 item 1's cells: distance with the exact penetration depth when
//! overlapping, medians per bucket pen / near / sep, on the ellipsoid sweep's poses.
//!
//! P and Q are hulls of n seeded random points on the ellipsoid 200:100:100 (n = 1 000 and
//! 200). P stays at the identity, Q takes K random orientations and, for each, the signed
//! offsets l along x̂ from first contact (`t_touch`, bisected with parry3d's overlap test as in
//! `ellipsoid-sweep`). Buckets: pen — overlapping by more than 1 unit (l < −1), near — within
//! 1 unit of contact (|l| ≤ 1), sep — apart by more than 1 unit (l > 1). Every query is timed
//! on its own (cold cache; median of `reps`), and a bucket's figure is the median over its
//! queries. polycd's GJK and V-Clip distance answer the penetration depth on overlapping
//! pairs (EPA); parry runs `distance`, then `contact` when it reports 0 — the same
//! information, both calls timed. Every answer is checked against the construction's class
//! (l < 0 overlapping, l > 0 apart) and the methods against each other.

use super::qp_scaling::check_all;
use super::sweep::touch_distance;
use super::{available, csv_out};
use crate::methods::{compare_expected, Answer, Body, Class, Coherence, Method, PairTolerance, Placement, Question};
use crate::table::{ratio, us, Table};
use crate::timing::{median, time_single, Case};
use crate::{Context, RunOptions};
use polycd::{shapes, Algorithm, PairCache, Pose};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The methods of this scenario (one line per method; the peer last).
pub(crate) const NEAR_METHODS: [Method; 3] = [
    Method::polycd("GJK + EPA", Algorithm::Gjk, Question::Distance, Coherence::Cold),
    Method::polycd("V-Clip (+ EPA)", Algorithm::VClip, Question::Distance, Coherence::Cold),
    Method::parry("parry3d distance + contact", Question::Distance),
];

/// Signed offsets: ten per bucket (0 left out: the construction's class is not known there).
const FULL_OFFSETS: [f64; 30] = [
    -40.0, -30.0, -20.0, -15.0, -10.0, -7.0, -5.0, -3.0, -2.0, -1.5, -1.0, -0.5, -0.2, -0.1, -0.01, 0.01, 0.1, 0.2,
    0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0, 40.0,
];
const QUICK_OFFSETS: [f64; 6] = [-10.0, -2.0, -0.1, 0.1, 2.0, 10.0];
const SIZES: [usize; 2] = [1000, 200];
const FULL_K: usize = 100;
const QUICK_K: usize = 4;
const FULL_REPS: usize = 5;
const QUICK_REPS: usize = 3;
const BUCKETS: [&str; 3] = ["pen", "near", "sep"];

fn bucket(l: f64) -> usize {
    if l < -1.0 {
        0
    } else if l <= 1.0 {
        1
    } else {
        2
    }
}

pub(crate) fn run(opts: &RunOptions, ctx: &mut Context) -> Result<(), String> {
    let (offsets, k, reps): (&[f64], usize, usize) = if opts.quick {
        (&QUICK_OFFSETS, QUICK_K, QUICK_REPS)
    } else {
        (&FULL_OFFSETS, FULL_K, FULL_REPS)
    };
    let methods = &NEAR_METHODS;
    ctx.start_progress((SIZES.len() * (k + offsets.len() * k * methods.len())) as u64);
    ctx.table.push_str(&format!(
        "== near-contact (issue 27 item 1): distance, exact depth when overlapping; ellipsoid hulls \
         200:100:100, {k} orientations × {} offsets; µs per query, median over the bucket's queries \
         (each the median of {reps}), cold ==\n",
        offsets.len()
    ));
    let mut t = Table::new(
        [
            "n",
            "method",
            "pen µs",
            "near µs",
            "sep µs",
            "parry ÷ method pen / near / sep",
            "disagreements",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    );
    let mut rows = Vec::new();
    for (si, &n) in SIZES.iter().enumerate() {
        let seed = opts.seed.wrapping_add(27_000 + 1000 * si as u64);
        let p = Body::from_result("P", shapes::ellipsoid(n, 200.0, 100.0, 100.0, seed))?;
        let q = Body::from_result("Q", shapes::ellipsoid(n, 200.0, 100.0, 100.0, seed.wrapping_add(1)))?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(2));
        let mut poses = Vec::with_capacity(k);
        for _ in 0..k {
            let r = shapes::random_rotation(&mut rng);
            poses.push((r, touch_distance(&p, &q, r)?));
            ctx.progress.tick(1);
        }
        let pa = Placement::new(Pose::IDENTITY);
        let mut cases = Vec::with_capacity(k * offsets.len());
        let mut class = Vec::with_capacity(k * offsets.len());
        for &l in offsets {
            for &(r, t) in &poses {
                cases.push(Case {
                    a: &p,
                    pa,
                    b: &q,
                    pb: Placement::new(Pose::new(r, polycd::DVec3::X * (t + l))),
                });
                class.push((l, bucket(l)));
            }
        }
        let tols: Vec<PairTolerance> = cases
            .iter()
            .map(|c| PairTolerance::new(c.a, &c.pa, c.b, &c.pb))
            .collect();
        let avail = available(ctx, methods, &cases[0]);
        let mut per_query = vec![vec![f64::NAN; cases.len()]; methods.len()];
        let mut answers: Vec<Option<Vec<Answer>>> = vec![None; methods.len()];
        let mut bad = vec![0usize; methods.len()];
        let mut cache = PairCache::default();
        let mut samples = Vec::with_capacity(reps);
        for (m, method) in methods.iter().enumerate() {
            if !avail[m] {
                ctx.progress.tick(cases.len() as u64);
                continue;
            }
            let mut ans = Vec::with_capacity(cases.len());
            for (j, c) in cases.iter().enumerate() {
                let (ns, a) = time_single(method, c, reps, &mut cache, &mut samples);
                per_query[m][j] = ns;
                let (l, _) = class[j];
                let expected = if l < 0.0 { Class::Overlap } else { Class::Apart };
                if let Ok(o) = &a {
                    if let Some(d) = compare_expected(o, expected, tols[j]) {
                        bad[m] += 1;
                        ctx.disagree(format!("n = {n}, l = {l}, case {j}"), method.label, "construction", d);
                    }
                }
                ans.push(a);
                ctx.progress.tick(1);
            }
            answers[m] = Some(ans);
        }
        let cross = check_all(ctx, methods, &answers, &tols, &|j| {
            format!("n = {n}, l = {}, case {j}", class[j].0)
        });
        let med = |m: usize, b: usize| {
            let mut v: Vec<f64> = per_query[m]
                .iter()
                .zip(&class)
                .filter(|(_, c)| c.1 == b)
                .map(|(t, _)| *t)
                .collect();
            median(&mut v)
        };
        let peer = methods.iter().position(|m| m.is_peer());
        for (m, method) in methods.iter().enumerate() {
            let meds: Vec<f64> = (0..BUCKETS.len()).map(|b| med(m, b)).collect();
            let ratios: Vec<f64> = (0..BUCKETS.len())
                .map(|b| peer.map(|pi| med(pi, b) / meds[b]).unwrap_or(f64::NAN))
                .collect();
            let nbad = bad[m] + cross[m];
            t.row(vec![
                n.to_string(),
                method.label.to_string(),
                us(meds[0]),
                us(meds[1]),
                us(meds[2]),
                ratios.iter().map(|r| ratio(*r)).collect::<Vec<_>>().join(" / "),
                if avail[m] { nbad.to_string() } else { "n/a".into() },
            ]);
            use crate::csv::num;
            for b in 0..BUCKETS.len() {
                rows.push(vec![
                    n.to_string(),
                    method.label.to_string(),
                    BUCKETS[b].to_string(),
                    num(meds[b] / 1000.0),
                    num(ratios[b]),
                    nbad.to_string(),
                ]);
            }
        }
    }
    ctx.table.push_str(&t.render());
    ctx.table.push_str(
        "pen: l < −1, near: |l| ≤ 1, sep: l > 1 (l the offset along x̂ from first contact); \
         issue 27's target at n = 1 000: GJK + EPA near ≤ 0.95 µs, pen ≤ 1.9 µs\n",
    );
    csv_out(
        ctx,
        "near-contact.csv",
        &[
            "n",
            "method",
            "bucket",
            "median_us_per_query",
            "parry_over_method",
            "disagreements",
        ],
        &rows,
    )
}
