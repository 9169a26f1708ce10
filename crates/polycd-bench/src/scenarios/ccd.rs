//! `ccd` — FAST §6 "torus knot vs torus knot": continuous collision detection between two
//! torus knots (2 880 and 11 520 triangles; quick: 2 880 only), one fixed, the other shot from a
//! random pose `q₀` to `q₁` across it. Half of the motions translate only, the other half also
//! turn by π/3 about X and π/3 about Y (the paper's second half of its trials).
//!
//! Methods: polycd's hierarchical conservative advancement (`ccd::mesh::time_of_contact`, the
//! mesh decomposition and hull trees built once before timing, the `MeshToiCache` kept across
//! motions) and parry3d's `cast_shapes_nonlinear` with `NonlinearRigidMotion` on
//! `TriMesh` vs `TriMesh` (the same motions: parry's motion rotates about a world centre with
//! a constant angular velocity vector and translates that centre linearly, which is the
//! paper's motion). Time per query: mean over the motions; parry3d, seconds per query here,
//! runs on the first few motions only (8 of 40 at 2 880 triangles, 2 at 11 520; quick: 2) and
//! the ratio compares both on exactly those motions. Agreement: both must report a
//! contact or both none, and contact times within 1e-3 (polycd stops within its distance
//! threshold, parry at its own target distance).
//!
//! Certification: every polycd answer (all motions, not only parry's) is certified after the
//! clock as in the FAST scenarios (`fast_paper::certify`: the time by `ccd_truth::check`, the
//! contact features at a reported time against `ccd_truth`'s brute-force set);
//! `POLYCD_FAST_TRIALS=N` runs `N` motions per knot (the ≥ 10³-trial certification),
//! `POLYCD_CCD_PARRY_MOTIONS=K` caps parry's motions per knot (0: parry not run).

use super::{csv_out, fast_paper};
use crate::table::{ratio, Table};
use crate::{Context, RunOptions};
use parry3d_f64::math::{Pose as ParryPose, Rot3 as ParryRot, Vector as ParryVec};
use parry3d_f64::query::NonlinearRigidMotion;
use parry3d_f64::shape::TriMesh as ParryTriMesh;
use polycd::ccd::mesh::{self, MeshToiCache};
use polycd::ccd::{CcdOptions, RigidMotion};
use polycd::mesh::TriMesh;
use polycd::{shapes, DQuat, DVec3, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

fn pv(v: DVec3) -> ParryVec {
    ParryVec::new(v.x, v.y, v.z)
}

fn parry_pose(p: &Pose) -> ParryPose {
    let q = p.rotation;
    ParryPose::from_parts(pv(p.translation), ParryRot::from_xyzw(q.x, q.y, q.z, q.w))
}

pub(crate) fn run(opts: &RunOptions, ctx: &mut Context) -> Result<(), String> {
    // parry3d's cast takes seconds per query on these meshes (measured 4–8 s at 2 880
    // triangles, 41 s at 11 520): it runs on the first few motions only, and the ratio compares the two on
    // exactly those motions.
    let (sizes, motions): (&[(u32, u32, usize)], usize) = if opts.quick {
        (&[(120, 12, 2)], 6)
    } else {
        // The paper's three knots (§6): 2 880, 11 520 and 34 560 triangles.
        (&[(120, 12, 8), (480, 12, 2), (1440, 12, 1)], 40)
    };
    // `POLYCD_FAST_TRIALS=N`: N motions per knot (the certification at scale); parry still
    // runs on its first few only.
    let motions = fast_paper::trials(opts, motions, motions);
    // `POLYCD_CCD_PARRY_MOTIONS=K`: parry on at most K motions per knot (0: not run; its
    // seconds per query would dominate a certification run).
    let parry_cap = std::env::var("POLYCD_CCD_PARRY_MOTIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(usize::MAX);
    let sizes: Vec<(u32, u32, usize)> = sizes
        .iter()
        .map(|&(s, k, p)| (s, k, p.min(motions).min(parry_cap)))
        .collect();
    ctx.start_progress(sizes.iter().map(|s| (s.2 + motions) as u64).sum());
    ctx.table.push_str(&format!(
        "== ccd: torus knot vs torus knot, ms per CCD query (mean of {motions} random motions) ==\n"
    ));
    let mut t = Table::new(
        [
            "triangles",
            "pieces",
            "build (ms)",
            "polycd FAST",
            "steps/query",
            "parry3d nonlinear cast (motions)",
            "parry ÷ polycd (same motions)",
            "hits",
            "certified / undecided / wrong",
            "feature sets equal / not compared / differ",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    );
    let mut rows = Vec::new();
    let mut notes = String::new();
    for &(segments, sides, parry_motions) in &sizes {
        let (v, f) = shapes::torus_knot(2, 3, segments, sides, 0.45).map_err(|e| e.to_string())?;
        let build = Instant::now();
        let knot = TriMesh::new(&v, &f).map_err(|e| e.to_string())?;
        let build_ms = build.elapsed().as_secs_f64() * 1e3;
        let tris = knot.triangles().len();
        let pm = ParryTriMesh::new(
            knot.vertices().iter().map(|&p| pv(p)).collect(),
            knot.triangles().to_vec(),
        )
        .map_err(|e| format!("parry TriMesh: {e:?}"))?;
        let mut rng = ChaCha8Rng::seed_from_u64(opts.seed.wrapping_add(9000 + segments as u64));
        let mut cases = Vec::with_capacity(motions);
        for k in 0..motions {
            let dir = shapes::unit_vector(&mut rng);
            let off = DVec3::new(
                rng.random_range(-2.0..2.0),
                rng.random_range(-2.0..2.0),
                rng.random_range(-2.0..2.0),
            );
            let r0 = shapes::random_rotation(&mut rng);
            let turn = if k % 2 == 0 {
                DQuat::IDENTITY
            } else {
                DQuat::from_rotation_y(std::f64::consts::FRAC_PI_3)
                    * DQuat::from_rotation_x(std::f64::consts::FRAC_PI_3)
            };
            let start = Pose::new(r0, dir * -9.0 + off);
            let end = Pose::new(turn * r0, dir * 9.0 + off);
            cases.push(RigidMotion::new(start, end, knot.centroid()).map_err(|e| e.to_string())?);
        }
        let fixed = RigidMotion::stationary(Pose::IDENTITY).map_err(|e| e.to_string())?;
        let options = CcdOptions::default();
        let mut cache = MeshToiCache::default();
        let mut ours = Vec::with_capacity(motions);
        let mut ours_each = Vec::with_capacity(motions);
        let mut steps = 0u64;
        for m in &cases {
            let start = Instant::now();
            let r = mesh::time_of_contact(&knot, m, &knot, &fixed, &options, &mut cache).map_err(|e| e.to_string())?;
            ours_each.push(start.elapsed().as_secs_f64() * 1e3);
            if let Some(toc) = &r {
                steps += toc.iterations as u64;
            }
            ours.push(r);
        }
        let ours_ms = ours_each.iter().sum::<f64>() / motions as f64;
        let ours_subset_ms = ours_each[..parry_motions].iter().sum::<f64>() / parry_motions as f64;
        let still = NonlinearRigidMotion::constant_position(ParryPose::IDENTITY);
        let mut theirs = Vec::with_capacity(motions);
        let start = Instant::now();
        for m in &cases[..parry_motions] {
            ctx.progress.tick(1);
            let p0 = m.pose_at(0.0);
            let pm_motion = NonlinearRigidMotion::new(
                parry_pose(&p0),
                pv(m.center()),
                pv(m.velocity()),
                pv(m.angular_velocity()),
            );
            let hit = parry3d_f64::query::cast_shapes_nonlinear(&pm_motion, &pm, &still, &pm, 0.0, 1.0, true)
                .map_err(|e| format!("parry: {e:?}"))?;
            theirs.push(hit.map(|h| h.time_of_impact));
        }
        let theirs_ms = start.elapsed().as_secs_f64() * 1e3 / parry_motions as f64;
        let hits = ours.iter().filter(|a| a.is_some()).count();
        // Every answer certified (time and contact features), after the clock.
        let label = format!("knot {tris}");
        let mut st = fast_paper::Stats {
            queries: motions,
            hits,
            ..Default::default()
        };
        let pairs: Vec<(RigidMotion, RigidMotion)> = cases.iter().map(|m| (*m, fixed)).collect();
        let thr = options.threshold(2.0 * knot.scale()).map_err(|e| e.to_string())?;
        fast_paper::certify(ctx, &label, &knot, &knot, &pairs, &ours, thr, &mut st);
        notes.push_str(&fast_paper::explain(&label, &st));
        let ours: Vec<Option<f64>> = ours.iter().map(|r| r.map(|toc| toc.t)).collect();
        for (k, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            let agree = match (a, b) {
                (Some(x), Some(y)) => (x - y).abs() <= 1e-3,
                (None, None) => true,
                _ => false,
            };
            if !agree {
                ctx.disagree(
                    format!("{tris} triangles, motion {k}"),
                    "parry3d nonlinear cast",
                    "polycd FAST",
                    format!("polycd t = {a:?}, parry t = {b:?}"),
                );
            }
        }
        t.row(vec![
            tris.to_string(),
            knot.pieces().len().to_string(),
            format!("{build_ms:.0}"),
            format!("{ours_ms:.3}"),
            format!("{:.1}", steps as f64 / hits.max(1) as f64),
            if parry_motions == 0 {
                "–".to_string()
            } else {
                format!("{theirs_ms:.1} ({parry_motions})")
            },
            if parry_motions == 0 {
                "–".to_string()
            } else {
                ratio(theirs_ms / ours_subset_ms)
            },
            format!("{hits}/{motions}"),
            st.verdicts(),
            st.sets(),
        ]);
        rows.push(vec![
            tris.to_string(),
            knot.pieces().len().to_string(),
            format!("{build_ms}"),
            format!("{ours_ms}"),
            format!("{theirs_ms}"),
            parry_motions.to_string(),
            format!("{ours_subset_ms}"),
            hits.to_string(),
            motions.to_string(),
            st.right.to_string(),
            st.undecided.to_string(),
            st.wrong.to_string(),
            st.sets_equal.to_string(),
            st.sets_borderline.to_string(),
            st.sets_differ.to_string(),
        ]);
    }
    ctx.table.push_str(&t.render());
    ctx.table.push_str(&notes);
    csv_out(
        ctx,
        "ccd.csv",
        &[
            "triangles",
            "pieces",
            "build_ms",
            "polycd_ms_per_query",
            "parry_ms_per_query",
            "parry_motions",
            "polycd_ms_per_query_on_parry_motions",
            "hits",
            "motions",
            "certified",
            "undecided",
            "wrong",
            "feature_sets_equal",
            "feature_sets_not_compared",
            "feature_sets_differ",
        ],
        &rows,
    )
}
