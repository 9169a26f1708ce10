//! `support` — the support-mapping strategies of the foundation: linear scan, hill-climbing
//! (plain, and started from the better of the warm vertex and the hull's direction table)
//! and the Dobkin–Kirkpatrick hierarchy, at n = 100, 1 000, 10 000 hull vertices (quick:
//! 100, 1 000), on hulls of points on the ellipsoid 200:100:100.
//!
//! Two direction workloads: *random* (uniform unit vectors; the climb starts from the previous
//! answer, which for unrelated directions is as good as a random start) and *coherent* (the
//! direction turns by 1° per query about a fixed random axis, as in a simulation loop; the
//! climb starts from the previous answer and moves a step or two). Time per call: mean over
//! the batch of directions, median over repetitions. Every answer is checked against the scan
//! (any vertex attaining the maximum is correct: the support values must agree to 1e-12 of the
//! shape's scale). The criterion bench `crates/polycd/benches/support.rs` measures the same.

use super::{csv_out, svg_out};
use crate::plot::{Chart, Series};
use crate::table::{ratio, Table};
use crate::timing::median;
use crate::{Context, RunOptions};
use polycd::{shapes, ConvexPolyhedron, DQuat, DVec3};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Instant;

/// A support strategy on a direction workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Strategy {
    Scan,
    Climb,
    Hinted,
    Hierarchy,
}

/// The measured (strategy, workload) combinations, in table order.
const SUPPORT_METHODS: [(&str, Strategy, bool); 7] = [
    ("scan", Strategy::Scan, false),
    ("hill-climb (random dirs)", Strategy::Climb, false),
    ("hill-climb (coherent dirs)", Strategy::Climb, true),
    ("hinted climb (random dirs)", Strategy::Hinted, false),
    ("hinted climb (coherent dirs)", Strategy::Hinted, true),
    ("hierarchy (random dirs)", Strategy::Hierarchy, false),
    ("hierarchy (coherent dirs)", Strategy::Hierarchy, true),
];

fn directions(rng: &mut ChaCha8Rng, count: usize, coherent: bool) -> Vec<DVec3> {
    if !coherent {
        return (0..count).map(|_| shapes::unit_vector(rng)).collect();
    }
    let axis = shapes::unit_vector(rng);
    let start = shapes::unit_vector(rng);
    (0..count)
        .map(|i| DQuat::from_axis_angle(axis, (i as f64).to_radians()) * start)
        .collect()
}

fn time_strategy(poly: &ConvexPolyhedron, s: Strategy, dirs: &[DVec3], out: &mut Vec<u32>) -> f64 {
    out.clear();
    let mut warm = 0u32;
    let start = Instant::now();
    for &d in dirs {
        let d = black_box(d);
        let v = match s {
            Strategy::Scan => poly.support_scan(d),
            Strategy::Climb => poly.support_climb(d, warm),
            Strategy::Hinted => poly.support_climb_hinted(d, warm),
            Strategy::Hierarchy => poly.support_hierarchy(d),
        };
        warm = v;
        out.push(v);
    }
    let ns = start.elapsed().as_nanos() as f64 / dirs.len().max(1) as f64;
    black_box(&out);
    ns
}

pub(crate) fn run(opts: &RunOptions, ctx: &mut Context) -> Result<(), String> {
    let (sizes, count, reps): (&[usize], usize, usize) = if opts.quick {
        (&[100, 1000], 2000, 3)
    } else {
        (&[100, 1000, 10_000], 20_000, 7)
    };
    ctx.start_progress((sizes.len() * SUPPORT_METHODS.len()) as u64);
    ctx.table.push_str(&format!(
        "== support: ns per support query ({count} directions, median of {reps}); ratios = scan ÷ strategy ==\n"
    ));
    let mut times = vec![vec![f64::NAN; sizes.len()]; SUPPORT_METHODS.len()];
    let mut rows = Vec::new();
    let mut verts = Vec::new();
    for (ni, &n) in sizes.iter().enumerate() {
        let seed = opts.seed.wrapping_add(5000 + ni as u64);
        let poly = shapes::ellipsoid(n, 200.0, 100.0, 100.0, seed).map_err(|e| format!("ellipsoid {n}: {e}"))?;
        verts.push(poly.vertices().len());
        let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(1));
        let random = directions(&mut rng, count, false);
        let coherent = directions(&mut rng, count, true);
        let tol = 1e-12 * poly.scale();
        let mut out = Vec::with_capacity(count);
        let mut samples = Vec::with_capacity(reps);
        for (mi, &(label, strategy, coh)) in SUPPORT_METHODS.iter().enumerate() {
            ctx.progress.tick(1);
            let dirs = if coh { &coherent } else { &random };
            samples.clear();
            for _ in 0..reps {
                samples.push(time_strategy(&poly, strategy, dirs, &mut out));
            }
            let ns = median(&mut samples);
            times[mi][ni] = ns;
            // Check against the scan.
            let mut bad = 0usize;
            for (j, (&d, &v)) in dirs.iter().zip(&out).enumerate() {
                let best = d.dot(poly.vertex(poly.support_scan(d)));
                let got = d.dot(poly.vertex(v));
                if got < best - tol {
                    bad += 1;
                    ctx.disagree(
                        format!("n = {n}, direction {j}"),
                        label,
                        "scan",
                        format!("support value {got:.17e} < scan's {best:.17e}"),
                    );
                }
            }
            use crate::csv::num;
            rows.push(vec![
                n.to_string(),
                poly.vertices().len().to_string(),
                label.to_string(),
                num(ns),
                count.to_string(),
                bad.to_string(),
            ]);
        }
    }
    let mut t = Table::new(
        ["hull vertices", "strategy", "ns per query", "scan ÷ strategy"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
    );
    for (ni, _) in sizes.iter().enumerate() {
        for (mi, m) in SUPPORT_METHODS.iter().enumerate() {
            t.row(vec![
                if mi == 0 { verts[ni].to_string() } else { String::new() },
                m.0.to_string(),
                format!("{:.1}", times[mi][ni]),
                ratio(times[0][ni] / times[mi][ni]),
            ]);
        }
    }
    ctx.table.push_str(&t.render());
    csv_out(
        ctx,
        "support.csv",
        &[
            "n",
            "hull_vertices",
            "strategy",
            "median_ns_per_query",
            "directions",
            "disagreements",
        ],
        &rows,
    )?;
    let series = SUPPORT_METHODS
        .iter()
        .zip(&times)
        .map(|(m, ts)| Series {
            label: m.0.to_string(),
            points: verts.iter().zip(ts).map(|(&n, &t)| (n as f64, t)).collect(),
            peer: false,
        })
        .collect();
    svg_out(
        ctx,
        "support.svg",
        &Chart {
            title: "Support mapping: scan vs hill-climb vs Dobkin–Kirkpatrick (ellipsoid hulls)".into(),
            x_label: "hull vertices n".into(),
            y_label: "time per support query (ns)".into(),
            x_log: true,
            y_log: Some(true),
            legend_left: true,
            series,
        },
    )
}
