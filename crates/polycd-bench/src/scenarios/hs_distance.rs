//! `hs-jump-distance` — HS-jump's closest features (issue 24 item 3): the paper (§1) says they
//! "can also be computed with little extra computation within the framework of HS-jump".
//! `hs_jump::distance` keeps the separating-vector search climbing past the first separating
//! plane to the distance direction (see its module header). Cost against HS-jump's boolean
//! query on the same poses, and against GJK and V-Clip distance (cold) and parry3d `distance`.
//!
//! Shapes: ellipsoid hulls 200:180:180 (HS-jump §9's) of n = 200, 1 000 and 4 000 points; P at
//! the origin, Q at `D·(R_P + R_Q)` in a random direction, `D` uniform in [0.5, 1.5], both in
//! random orientations (`qp_scaling::random_pairs`). Every query timed on its own, cold (fresh
//! cache), median of the repetitions; the mean over the pairs. Distances checked against GJK
//! (1e-12 × scale, as every polycd pair of methods), the boolean's status against the
//! distance's.

use super::qp_scaling::{check_all, random_pairs};
use super::{available, csv_out};
use crate::methods::{Answer, Body, Coherence, Method, PairTolerance, Question, Verdict};
use crate::table::{ratio, us, Table};
use crate::timing::{mean, time_single, Case};
use crate::{Context, RunOptions};
use polycd::{shapes, Algorithm, PairCache};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Distance methods (compared with each other; the peer last).
pub(crate) const HS_DISTANCE_METHODS: [Method; 4] = [
    Method::polycd("GJK distance", Algorithm::Gjk, Question::Distance, Coherence::Cold),
    Method::polycd(
        "HS-jump distance",
        Algorithm::HsJump,
        Question::Distance,
        Coherence::Cold,
    ),
    Method::polycd("V-Clip distance", Algorithm::VClip, Question::Distance, Coherence::Cold),
    Method::parry("parry3d distance", Question::Distance),
];

/// HS-jump's boolean query on the same poses (the baseline of "little extra computation").
pub(crate) const HS_BOOLEAN: Method = Method::polycd(
    "HS-jump boolean",
    Algorithm::HsJump,
    Question::Intersect,
    Coherence::Cold,
);

pub(crate) fn run(opts: &RunOptions, ctx: &mut Context) -> Result<(), String> {
    let (sizes, pairs, reps): (&[usize], usize, usize) = if opts.quick {
        (&[200], 20, 1)
    } else {
        (&[200, 1000, 4000], 500, 5)
    };
    let methods = &HS_DISTANCE_METHODS;
    ctx.start_progress((sizes.len() * (methods.len() + 1)) as u64);
    ctx.table.push_str(&format!(
        "== hs-jump-distance: ellipsoid hulls 200:180:180, {pairs} random poses, cold; µs per query (median of {reps}) ==\n"
    ));
    let mut t = Table::new(
        [
            "n",
            "HS-jump boolean",
            "HS-jump distance",
            "distance ÷ boolean",
            "GJK distance",
            "V-Clip distance",
            "parry3d distance",
            "HS-jump ÷ GJK",
            "separated",
            "disagreements",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    );
    let mut rows = Vec::new();
    let mut sep_rows = Vec::new();
    for (si, &n) in sizes.iter().enumerate() {
        let seed = opts.seed.wrapping_add(24_300 + si as u64 * 10);
        let p = Body::from_result("P", shapes::ellipsoid(n, 200.0, 180.0, 180.0, seed))?;
        let q = Body::from_result("Q", shapes::ellipsoid(n, 200.0, 180.0, 180.0, seed.wrapping_add(1)))?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(2));
        let cases: Vec<Case> = random_pairs(&p, &q, pairs, &mut rng)
            .into_iter()
            .map(|(pa, pb)| Case { a: &p, pa, b: &q, pb })
            .collect();
        let tols: Vec<PairTolerance> = cases
            .iter()
            .map(|c| PairTolerance::new(c.a, &c.pa, c.b, &c.pb))
            .collect();
        let avail = available(ctx, methods, &cases[0]);
        let mut samples = Vec::with_capacity(reps);
        let mut cache = PairCache::default();
        let mut per = vec![f64::NAN; methods.len()];
        let mut per_pair = vec![Vec::new(); methods.len()];
        let mut answers: Vec<Option<Vec<Answer>>> = vec![None; methods.len()];
        for (m, method) in methods.iter().enumerate() {
            ctx.progress.tick(1);
            if !avail[m] {
                continue;
            }
            let mut ns = Vec::with_capacity(pairs);
            let mut ans = Vec::with_capacity(pairs);
            for c in &cases {
                let (x, a) = time_single(method, c, reps, &mut cache, &mut samples);
                ns.push(x);
                ans.push(a);
            }
            per[m] = mean(&ns);
            per_pair[m] = ns;
            answers[m] = Some(ans);
        }
        let bad = check_all(ctx, methods, &answers, &tols, &|j| format!("n = {n}, pair {j}"));
        // The boolean, checked against GJK's status.
        ctx.progress.tick(1);
        let mut ns = Vec::with_capacity(pairs);
        let mut bool_bad = 0;
        let mut separated = 0;
        for (j, c) in cases.iter().enumerate() {
            let (x, a) = time_single(&HS_BOOLEAN, c, reps, &mut cache, &mut samples);
            ns.push(x);
            let reference = answers[0].as_ref().and_then(|v| v[j].as_ref().ok()).map(|o| o.verdict);
            let got = a.as_ref().ok().map(|o| o.verdict);
            if reference == Some(Verdict::Disjoint) {
                separated += 1;
            }
            let agree = matches!(
                (got, reference),
                (Some(Verdict::Disjoint), Some(Verdict::Disjoint))
                    | (
                        Some(Verdict::Overlapping | Verdict::Touching),
                        Some(Verdict::Overlapping | Verdict::Touching)
                    )
            );
            if !agree {
                bool_bad += 1;
                ctx.disagree(
                    format!("n = {n}, pair {j}"),
                    HS_BOOLEAN.label,
                    methods[0].label,
                    format!("{got:?} vs {reference:?}"),
                );
            }
        }
        let boolean = mean(&ns);
        // Separated pairs only (the climb's own cost; overlapping pairs add the EPA depth).
        let apart: Vec<bool> = (0..pairs)
            .map(|j| answers[0].as_ref().and_then(|v| v[j].as_ref().ok()).map(|o| o.verdict) == Some(Verdict::Disjoint))
            .collect();
        let sep_mean = |v: &[f64]| {
            let x: Vec<f64> = v.iter().zip(&apart).filter(|(_, a)| **a).map(|(t, _)| *t).collect();
            mean(&x)
        };
        let (sep_bool, sep_hs, sep_gjk, sep_vclip) = (
            sep_mean(&ns),
            sep_mean(&per_pair[1]),
            sep_mean(&per_pair[0]),
            sep_mean(&per_pair[2]),
        );
        sep_rows.push(vec![
            n.to_string(),
            us(sep_bool),
            us(sep_hs),
            ratio(sep_hs / sep_bool),
            us(sep_gjk),
            us(sep_vclip),
            ratio(sep_hs / sep_gjk),
        ]);
        let total_bad: usize = bad.iter().sum::<usize>() + bool_bad;
        t.row(vec![
            n.to_string(),
            us(boolean),
            us(per[1]),
            ratio(per[1] / boolean),
            us(per[0]),
            us(per[2]),
            us(per[3]),
            ratio(per[1] / per[0]),
            format!("{separated}/{pairs}"),
            total_bad.to_string(),
        ]);
        use crate::csv::num;
        rows.push(vec![
            n.to_string(),
            pairs.to_string(),
            num(boolean / 1e3),
            num(per[1] / 1e3),
            num(per[0] / 1e3),
            num(per[2] / 1e3),
            num(per[3] / 1e3),
            separated.to_string(),
            total_bad.to_string(),
        ]);
    }
    ctx.table.push_str(&t.render());
    let mut st = Table::new(
        [
            "n (separated pairs only)",
            "HS-jump boolean",
            "HS-jump distance",
            "distance ÷ boolean",
            "GJK distance",
            "V-Clip distance",
            "HS-jump ÷ GJK",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    );
    for r in sep_rows {
        st.row(r);
    }
    ctx.table.push_str(&st.render());
    ctx.table.push_str(
        "overlapping pairs: every distance method measures the penetration depth (HS-jump's through the query \
         layer's EPA, as V-Clip's)\n",
    );
    csv_out(
        ctx,
        "hs-jump-distance.csv",
        &[
            "n",
            "pairs",
            "hs_jump_boolean_us",
            "hs_jump_distance_us",
            "gjk_distance_us",
            "vclip_distance_us",
            "parry_distance_us",
            "separated",
            "disagreements",
        ],
        &rows,
    )
}
