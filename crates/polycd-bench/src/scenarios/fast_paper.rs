//! FAST's own experiments (§6, Fig. 4, 5, 8), each answer certified by `ccd_truth`:
//!
//! - `ccd-bunny` (Fig. 5): a bunny shot from a random pose `q₀` to `q₁` across a fixed bunny,
//!   the first 100 trials translating only, the rest also turning by π/3 about X and π/3 about
//!   Y (the paper's schedule); the shipped 3 674-triangle bunny and its 1:16 subdivision
//!   (58 784 triangles; the paper's bunny has 69 664).
//! - `ccd-board` (Fig. 4): a model moved from `q₀` to `q₁` five bounding boxes below, turning
//!   by π/4 about a random axis, against a thin board (12 triangles) placed at evenly spaced
//!   heights between the two; the ring (10 000 triangles) and the 58 784-triangle bunny
//!   standing in for the paper's 37 888-triangle Santa. Two workloads per model: a new random
//!   `q₀`, `q₁` per height, and like the paper ("one motion (paper)") one `q₀`, `q₁` pair for
//!   every height, only the board moving, the model scaled to unit size and the paper's
//!   absolute threshold 0.001 ([`PAPER_THRESHOLD`]).
//! - `dynamics` (Fig. 8): a 33 066-triangle bunny (1:9 subdivision; the paper's has 26 K)
//!   falling onto a fixed one, and a ring (10 000) onto a ring, by a small rigid-body
//!   integrator of ours (gravity, constant spin, a bounce when the CCD reports contact; see
//!   [`dynamics`]); each step's `q₀ → q₁` is one CCD query.
//!
//! Timing: the CCD call only (`ccd::mesh::time_of_contact`, default options, one
//! `MeshToiCache` kept across the queries of a workload as an application keeps it), after one
//! untimed query that builds the hulls' V-Clip tables (a one-time cost per mesh); the mean
//! per query and its inverse (queries per second, the paper's "FPS"). The certification runs
//! after the clock, on every query ([`certify`]): the time by `ccd_truth::check`, and at a
//! reported time the contact features (`ccd::contact_features` with the query's threshold)
//! against `ccd_truth`'s brute-force set. Trial counts: the paper's by default (250 motions;
//! 100 board heights; 600 simulation steps), `quick` 4 / 10 / 60; `POLYCD_FAST_TRIALS=N` sets
//! them all to `N` (`N = 1000`: the certification at scale, issue 24's done-means).

use super::ccd_truth::{self, Contacts, Verdict};
use super::csv_out;
use super::fast_models::{self, Tris};
use crate::table::Table;
use crate::{Context, RunOptions};
use polycd::ccd::mesh::{self, MeshTimeOfContact, MeshToiCache};
use polycd::ccd::{CcdOptions, RigidMotion};
use polycd::mesh::{MeshCache, TriMesh};
use polycd::{shapes, DQuat, DVec3, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

/// The trial count: `POLYCD_FAST_TRIALS` when set, else `quick` or `full`.
pub(crate) fn trials(opts: &RunOptions, full: usize, quick: usize) -> usize {
    match std::env::var("POLYCD_FAST_TRIALS").ok().and_then(|s| s.parse().ok()) {
        Some(n) if n > 0 => n,
        _ if opts.quick => quick,
        _ => full,
    }
}

/// One workload's results.
#[derive(Default)]
pub(crate) struct Stats {
    pub(crate) queries: usize,
    pub(crate) hits: usize,
    pub(crate) steps: u64,
    pub(crate) total_ms: f64,
    pub(crate) right: usize,
    pub(crate) undecided: usize,
    pub(crate) wrong: usize,
    /// Why each undecided trial is undecided (query index and the reference's figures).
    pub(crate) gave_up: Vec<(usize, ccd_truth::GaveUp)>,
    /// Contact-feature sets at the reported times equal to the brute-force sets, and the
    /// feature pairs in them.
    pub(crate) sets_equal: usize,
    pub(crate) set_pairs: usize,
    /// Hits whose set was not compared: borderline (a distance within rounding of the
    /// threshold or of the naming snap).
    pub(crate) sets_borderline: usize,
    pub(crate) sets_differ: usize,
    /// Equal sets at a reported time where the solids interpenetrate (an edge–face crossing).
    pub(crate) sets_overlapping: usize,
}

impl Stats {
    fn ms(&self) -> f64 {
        self.total_ms / self.queries.max(1) as f64
    }

    /// The "certified / undecided / wrong" cell.
    pub(crate) fn verdicts(&self) -> String {
        format!("{} / {} / {}", self.right, self.undecided, self.wrong)
    }

    /// The "feature sets equal / not compared / differ" cell.
    pub(crate) fn sets(&self) -> String {
        format!("{} / {} / {}", self.sets_equal, self.sets_borderline, self.sets_differ)
    }
}

/// Times `ccd::mesh::time_of_contact` on every motion of `a` against `b`, then certifies every
/// answer; wrong ones are disagreements of "polycd FAST" with "certified ground truth".
fn run_motions(
    ctx: &mut Context,
    label: &str,
    a: &TriMesh,
    b: &TriMesh,
    motions: &[(RigidMotion, RigidMotion)],
    options: &CcdOptions,
) -> Result<Stats, String> {
    let thr = options.threshold(a.scale() + b.scale()).map_err(|e| e.to_string())?;
    let mut cache = MeshToiCache::default();
    let mut st = Stats::default();
    let mut answers = Vec::with_capacity(motions.len());
    // One untimed query first (the meshes' hulls and tables are built with them, see `built`):
    // the figure is the steady state. Its cache is dropped.
    if let Some((ma, mb)) = motions.first() {
        mesh::time_of_contact(a, ma, b, mb, options, &mut MeshToiCache::default()).map_err(|e| e.to_string())?;
    }
    for (ma, mb) in motions {
        let start = Instant::now();
        let r = mesh::time_of_contact(a, ma, b, mb, options, &mut cache).map_err(|e| e.to_string())?;
        st.total_ms += start.elapsed().as_secs_f64() * 1e3;
        st.queries += 1;
        if let Some(toc) = &r {
            st.hits += 1;
            st.steps += toc.iterations as u64;
        }
        answers.push(r);
    }
    certify(ctx, label, a, b, motions, &answers, thr, &mut st);
    Ok(st)
}

/// Certifies every answer (`answers[k]` for `motions[k]`, found with threshold `thr`): the
/// time by `ccd_truth::check`, the contact features at a reported time by
/// `ccd_truth::compare_contacts`; counts into `st`, wrong answers and differing sets as
/// disagreements.
#[allow(clippy::too_many_arguments)]
pub(crate) fn certify(
    ctx: &mut Context,
    label: &str,
    a: &TriMesh,
    b: &TriMesh,
    motions: &[(RigidMotion, RigidMotion)],
    answers: &[Option<MeshTimeOfContact>],
    thr: f64,
    st: &mut Stats,
) {
    let mut truth_cache = MeshCache::default();
    for (k, ((ma, mb), t)) in motions.iter().zip(answers).enumerate() {
        ctx.progress.tick(1);
        // Each body's largest distance from its motion's centre (0 for a body at rest).
        let ra = if ma.is_stationary() {
            0.0
        } else {
            ccd_truth::radius(a, ma.center())
        };
        let rb = if mb.is_stationary() {
            0.0
        } else {
            ccd_truth::radius(b, mb.center())
        };
        truth_cache.forget();
        // The contact features at the reported time against the brute-force set.
        if let Some(toc) = t {
            match ccd_truth::compare_contacts(a, &toc.pose_a, b, &toc.pose_b, thr) {
                Contacts::Equal(n) => {
                    st.sets_equal += 1;
                    st.set_pairs += n;
                    if toc.distance() == 0.0 {
                        st.sets_overlapping += 1;
                    }
                }
                Contacts::Borderline => st.sets_borderline += 1,
                Contacts::Differ(why) => {
                    st.sets_differ += 1;
                    ctx.disagree(
                        format!("{label}, query {k}"),
                        "polycd contact features",
                        "brute-force contact set",
                        format!("t = {}: {why}", toc.t),
                    );
                }
            }
        }
        let t = t.map(|toc| toc.t);
        match ccd_truth::check(a, ma, ra, b, mb, rb, t, thr, &mut truth_cache) {
            Verdict::Right => st.right += 1,
            Verdict::Undecided(why) => {
                st.undecided += 1;
                st.gave_up.push((k, why));
            }
            v => {
                st.wrong += 1;
                ctx.disagree(
                    format!("{label}, query {k}"),
                    "polycd FAST",
                    "certified ground truth",
                    format!("t = {t:?}: {v:?}"),
                );
            }
        }
    }
}

fn header() -> Table {
    Table::new(
        [
            "workload",
            "triangles (moving / fixed)",
            "pieces",
            "build (ms)",
            "ms per query",
            "queries/s",
            "paper (queries/s)",
            "steps/hit",
            "hits",
            "certified / undecided / wrong",
            "feature sets equal / not compared / differ",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    )
}

const CSV_HEADER: [&str; 15] = [
    "workload",
    "triangles_a",
    "triangles_b",
    "build_ms",
    "ms_per_query",
    "queries_per_s",
    "paper_queries_per_s",
    "hits",
    "queries",
    "undecided",
    "wrong",
    "feature_sets_equal",
    "feature_pairs",
    "feature_sets_borderline",
    "feature_sets_differ",
];

/// One line per undecided trial of `st`: where the reference advancement stopped and why.
pub(crate) fn explain(label: &str, st: &Stats) -> String {
    let sets = format!(
        "contact features: {label}: {} of {} hits equal to the brute-force sets ({} feature pairs, {} of the sets at overlapping poses); {} borderline, not compared; {} differ\n",
        st.sets_equal, st.hits, st.set_pairs, st.sets_overlapping, st.sets_borderline, st.sets_differ
    );
    sets + &st
        .gave_up
        .iter()
        .map(|(k, g)| {
            format!(
                "undecided: {label}, query {k}: reference reached t = {:.6} of {:.6} in {} steps ({} with the hulls touching); smallest distance bound {:.3e} × threshold; speed bound {:.1}× the fastest fall of the distance\n",
                g.reached,
                g.end,
                ccd_truth::REFERENCE_STEPS,
                g.brute_steps,
                g.min_lower,
                g.looseness
            )
        })
        .collect::<String>()
}

#[allow(clippy::too_many_arguments)]
fn report(
    t: &mut Table,
    rows: &mut Vec<Vec<String>>,
    label: &str,
    a: &TriMesh,
    b: &TriMesh,
    build_ms: f64,
    paper: &str,
    st: &Stats,
) {
    let tris = format!("{} / {}", a.triangles().len(), b.triangles().len());
    t.row(vec![
        label.to_string(),
        tris,
        format!("{} / {}", a.pieces().len(), b.pieces().len()),
        format!("{build_ms:.0}"),
        format!("{:.3}", st.ms()),
        format!("{:.0}", 1e3 / st.ms()),
        paper.to_string(),
        format!("{:.1}", st.steps as f64 / st.hits.max(1) as f64),
        format!("{}/{}", st.hits, st.queries),
        st.verdicts(),
        st.sets(),
    ]);
    rows.push(vec![
        label.to_string(),
        a.triangles().len().to_string(),
        b.triangles().len().to_string(),
        format!("{build_ms}"),
        format!("{}", st.ms()),
        format!("{}", 1e3 / st.ms()),
        paper.to_string(),
        st.hits.to_string(),
        st.queries.to_string(),
        st.undecided.to_string(),
        st.wrong.to_string(),
        st.sets_equal.to_string(),
        st.set_pairs.to_string(),
        st.sets_borderline.to_string(),
        st.sets_differ.to_string(),
    ]);
}

fn built(t: &Tris) -> Result<(TriMesh, f64), String> {
    let start = Instant::now();
    let m = fast_models::build(t)?;
    // Every hull and its V-Clip tables with the mesh (else built on the first queries that
    // reach each node: a one-time cost per mesh, counted here in the build column).
    mesh::prepare(&m).map_err(|e| e.to_string())?;
    Ok((m, start.elapsed().as_secs_f64() * 1e3))
}

/// `ccd-bunny` (FAST Fig. 5).
pub(crate) fn run_bunny(opts: &RunOptions, ctx: &mut Context) -> Result<(), String> {
    let n = trials(opts, 250, 4);
    let levels: &[u32] = if opts.quick { &[1] } else { &[1, 4] };
    ctx.start_progress((n * levels.len()) as u64);
    ctx.table.push_str(&format!(
        "== ccd-bunny: bunny vs bunny (FAST Fig. 5), {n} random motions (the first 100 translate only) ==\n"
    ));
    let mut t = header();
    let mut notes = String::new();
    let mut rows = Vec::new();
    for &level in levels {
        let (m, build_ms) = built(&fast_models::subdivide(fast_models::bunny()?, level)?)?;
        let fixed = RigidMotion::stationary(Pose::IDENTITY).map_err(|e| e.to_string())?;
        // Across the fixed bunny's centroid (it stands at the identity pose).
        let motions = shapes::crossing_poses(
            m.centroid(),
            m.scale(),
            n,
            100,
            opts.seed.wrapping_add(24_000 + u64::from(level)),
        )
        .into_iter()
        .map(|(q0, q1)| {
            Ok((
                RigidMotion::new(q0, q1, m.centroid()).map_err(|e| e.to_string())?,
                fixed,
            ))
        })
        .collect::<Result<Vec<_>, String>>()?;
        let label = format!("bunny 1:{}", level * level);
        let st = run_motions(ctx, &label, &m, &m, &motions, &CcdOptions::default())?;
        report(&mut t, &mut rows, &label, &m, &m, build_ms, "125 (69 664 tri.)", &st);
        notes.push_str(&explain(&label, &st));
    }
    ctx.table.push_str(&t.render());
    ctx.table.push_str(&notes);
    csv_out(ctx, "ccd-bunny.csv", &CSV_HEADER, &rows)
}

/// FAST's distance threshold (§6.2: "0.001 throughout all the experiments"), absolute, on
/// models of unit size; the `ccd-board` paper-like workloads use it as is.
const PAPER_THRESHOLD: f64 = 0.001;

/// `n` motions of `m` from `q₀` five bounding boxes up to `q₁` at the origin (the rotations
/// of `q₀`, `q₁` from `turn(i)`), each against the board (at rest) at the `i`-th of `n` evenly
/// spaced heights between them, lowest first.
fn board_motions(
    m: &TriMesh,
    n: usize,
    mut turn: impl FnMut(usize) -> (DQuat, DQuat),
) -> Result<Vec<(RigidMotion, RigidMotion)>, String> {
    let s = m.scale();
    let drop = 5.0 * 2.0 * s;
    let mut motions = Vec::with_capacity(n);
    for i in 0..n {
        let (r0, r1) = turn(i);
        // The board at height h, between q₀'s centre (drop) and q₁'s (0), lowest first.
        let h = 1.5 * s + (drop - 3.0 * s) * (i as f64 + 0.5) / n as f64;
        let q0 = Pose::new(r0, DVec3::new(0.0, 0.0, drop) - r0 * m.centroid());
        let q1 = Pose::new(r1, DVec3::ZERO - r1 * m.centroid());
        let ma = RigidMotion::new(q0, q1, m.centroid()).map_err(|e| e.to_string())?;
        let mb = RigidMotion::stationary(Pose::from_translation(DVec3::new(0.0, 0.0, h))).map_err(|e| e.to_string())?;
        motions.push((ma, mb));
    }
    Ok(motions)
}

/// `ccd-board` (FAST Fig. 4).
pub(crate) fn run_board(opts: &RunOptions, ctx: &mut Context) -> Result<(), String> {
    let n = trials(opts, 100, 10);
    let models: Vec<(&str, Tris)> = if opts.quick {
        vec![("ring vs board", fast_models::ring(1.0, 0.25, 100, 50))]
    } else {
        vec![
            ("ring vs board", fast_models::ring(1.0, 0.25, 100, 50)),
            (
                "bunny 1:16 (for Santa) vs board",
                fast_models::subdivide(fast_models::bunny()?, 4)?,
            ),
        ]
    };
    ctx.start_progress((2 * n * models.len()) as u64);
    ctx.table.push_str(&format!(
        "== ccd-board: a model falling 5 bounding boxes through a thin board (FAST Fig. 4), {n} board heights ==\n"
    ));
    let mut t = header();
    let mut notes = String::new();
    let mut rows = Vec::new();
    for (k, (label, tris)) in models.iter().enumerate() {
        let (m, build_ms) = built(tris)?;
        let s = m.scale();
        // The board: 12 triangles, wide enough to catch the model, 1 % of its size thick.
        let (board, _) = built(&fast_models::board(DVec3::new(3.0 * s, 3.0 * s, 0.01 * s)))?;
        let mut rng = ChaCha8Rng::seed_from_u64(opts.seed.wrapping_add(24_100 + k as u64));
        let motions = board_motions(&m, n, |_| {
            let r0 = shapes::random_rotation(&mut rng);
            (
                r0,
                DQuat::from_axis_angle(shapes::unit_vector(&mut rng), std::f64::consts::FRAC_PI_4) * r0,
            )
        })?;
        let st = run_motions(ctx, label, &m, &board, &motions, &CcdOptions::default())?;
        report(
            &mut t,
            &mut rows,
            label,
            &m,
            &board,
            build_ms,
            "15 460 (Santa 37 888 tri.)",
            &st,
        );
        notes.push_str(&explain(label, &st));

        // Like the paper: one q₀, q₁ pair for every height (only the board moves, the cache
        // kept across the queries), the model scaled to unit size (its bounding box's largest
        // side 1) and the paper's absolute threshold 0.001.
        let (v, f) = tris;
        let (lo, hi) = v.iter().fold(
            (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
            |(lo, hi), &p| (lo.min(p), hi.max(p)),
        );
        let unit = 1.0 / (hi - lo).max_element();
        let scaled: Tris = (v.iter().map(|&p| p * unit).collect(), f.clone());
        let (m, build_ms) = built(&scaled)?;
        let s = m.scale();
        let (board, _) = built(&fast_models::board(DVec3::new(3.0 * s, 3.0 * s, 0.01 * s)))?;
        let r0 = shapes::random_rotation(&mut rng);
        let r1 = DQuat::from_axis_angle(shapes::unit_vector(&mut rng), std::f64::consts::FRAC_PI_4) * r0;
        let motions = board_motions(&m, n, |_| (r0, r1))?;
        let label = format!("{label}, one motion (paper)");
        let options = CcdOptions::default().with_distance_threshold(Some(PAPER_THRESHOLD));
        let st = run_motions(ctx, &label, &m, &board, &motions, &options)?;
        report(
            &mut t,
            &mut rows,
            &label,
            &m,
            &board,
            build_ms,
            "15 460 (Santa 37 888 tri.)",
            &st,
        );
        notes.push_str(&explain(&label, &st));
    }
    ctx.table.push_str(&t.render());
    ctx.table.push_str(&notes);
    csv_out(ctx, "ccd-board.csv", &CSV_HEADER, &rows)
}

/// The steps of a small rigid-body simulation of `m` dropped onto a fixed copy of itself at
/// the origin: gravity `g = 9.81` (the model's units per s², scaled to its size), time step
/// 1/60 s, constant spin between bounces. Each step is the motion `q₀ → q₁` of free flight;
/// when the CCD reports contact at `t`, the body is put at `q(t)` (pushed 3 CCD thresholds out
/// along the contact normal, so the next step starts apart), its velocity reflected
/// about the contact normal with restitution 0.5 and its spin changed at random (the bounce
/// HAVOK would compute). As in the paper, the free-flight `q₁` of the step of impact
/// interpenetrates the fixed body: the query must find the time of contact. An episode ends
/// after 90 steps or when the body has settled (three contacts at `t = 0` in a row) or left;
/// then a new drop starts from a random pose. `queries` steps in all.
fn dynamics(m: &TriMesh, queries: usize, seed: u64) -> Result<(Vec<(RigidMotion, RigidMotion)>, usize), String> {
    let s = m.scale();
    let g = DVec3::new(0.0, 0.0, -9.81 * s / 2.0);
    let dt = 1.0 / 60.0;
    let options = CcdOptions::default();
    let mut cache = MeshToiCache::default();
    let fixed = RigidMotion::stationary(Pose::IDENTITY).map_err(|e| e.to_string())?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(queries);
    let mut bounces = 0;
    'episodes: while out.len() < queries {
        let r = shapes::random_rotation(&mut rng);
        let lateral = DVec3::new(rng.random_range(-0.5..0.5), rng.random_range(-0.5..0.5), 0.0) * s;
        // Above the fixed copy's centroid (it stands at the identity pose).
        let mut pose = Pose::new(
            r,
            m.centroid() + DVec3::new(0.0, 0.0, 3.0 * s) + lateral - r * m.centroid(),
        );
        let mut vel = DVec3::ZERO;
        let mut spin = shapes::unit_vector(&mut rng) * rng.random_range(0.0..3.0);
        let mut resting = 0;
        for _ in 0..90 {
            if out.len() >= queries {
                break 'episodes;
            }
            let c = pose.transform_point(m.centroid());
            let c1 = c + vel * dt + g * (0.5 * dt * dt);
            let rot1 = (DQuat::from_scaled_axis(spin * dt) * pose.rotation).normalize();
            let q1 = Pose::new(rot1, c1 - rot1 * m.centroid());
            let motion = RigidMotion::new(pose, q1, m.centroid()).map_err(|e| e.to_string())?;
            out.push((motion, fixed));
            let hit = mesh::time_of_contact(m, &motion, m, &fixed, &options, &mut cache).map_err(|e| e.to_string())?;
            match hit {
                Some(toc) => {
                    bounces += 1;
                    pose = toc.pose_a;
                    let n = match toc.answer {
                        polycd::mesh::MeshDistance::Separated { point_a, point_b, .. }
                            if (point_a - point_b).length() > 0.0 =>
                        {
                            (point_a - point_b).normalize()
                        }
                        _ => DVec3::Z,
                    };
                    // Resolve the contact: push the body 3 thresholds out along the normal
                    // (the query stops within one), so the next step starts apart.
                    let push = 3.0 * polycd::tolerance::CCD_DISTANCE_REL * 2.0 * s;
                    pose = Pose::new(pose.rotation, pose.translation + n * push);
                    let v = vel + g * (dt * toc.t);
                    let vn = v.dot(n);
                    vel = if vn < 0.0 { v - n * (1.5 * vn) } else { v };
                    spin = shapes::unit_vector(&mut rng) * rng.random_range(0.0..3.0);
                    resting = if toc.t == 0.0 { resting + 1 } else { 0 };
                    if resting >= 3 {
                        continue 'episodes;
                    }
                }
                None => {
                    pose = q1;
                    vel += g * dt;
                    resting = 0;
                    if c1.z < m.centroid().z - 4.0 * s {
                        continue 'episodes;
                    }
                }
            }
        }
    }
    Ok((out, bounces))
}

/// `dynamics` (FAST Fig. 8).
pub(crate) fn run_dynamics(opts: &RunOptions, ctx: &mut Context) -> Result<(), String> {
    let n = trials(opts, 600, 60);
    let models: Vec<(&str, Tris, &str)> = if opts.quick {
        vec![(
            "ring on ring",
            fast_models::ring(1.0, 0.25, 100, 50),
            "1 357 (ring 10 K tri.)",
        )]
    } else {
        vec![
            (
                "bunny 1:9 on bunny",
                fast_models::subdivide(fast_models::bunny()?, 3)?,
                "1 555 (bunny 26 K tri.)",
            ),
            (
                "ring on ring",
                fast_models::ring(1.0, 0.25, 100, 50),
                "1 357 (ring 10 K tri.)",
            ),
        ]
    };
    ctx.start_progress((n * models.len()) as u64);
    ctx.table.push_str(&format!(
        "== dynamics: a body falling on a fixed copy (FAST Fig. 8), {n} simulation steps, one CCD query each ==\n"
    ));
    let mut t = header();
    let mut notes = String::new();
    let mut rows = Vec::new();
    for (k, (label, tris, paper)) in models.iter().enumerate() {
        let (m, build_ms) = built(tris)?;
        let (motions, _) = dynamics(&m, n, opts.seed.wrapping_add(24_200 + k as u64))?;
        let st = run_motions(ctx, label, &m, &m, &motions, &CcdOptions::default())?;
        report(&mut t, &mut rows, label, &m, &m, build_ms, paper, &st);
        notes.push_str(&explain(label, &st));
    }
    ctx.table.push_str(&t.render());
    ctx.table.push_str(&notes);
    csv_out(ctx, "dynamics.csv", &CSV_HEADER, &rows)
}
