//! `many-body` — I-COLLIDE's setting (Cohen, Lin, Manocha, Ponamgi 1995): many convex bodies
//! moving coherently, a broad phase, then the narrow phase on the candidate pairs.
//!
//! Scene: n random convex bodies (icosahedra, boxes and ellipsoid hulls of 32 and 64 vertices,
//! bounding radii 0.35…1.2) in a cube whose side makes their summed volume a given fraction
//! (the *density*) of it; each moves by a small random velocity (at most 0.05 per frame, it
//! bounces off the walls) and turns by at most 2° per frame about its own random axis. Bodies
//! do not react to each other: they pass through, so contacts come and go. Every pose of every
//! frame is computed before timing, in both libraries' types.
//!
//! Methods, each over the same frames (time per frame: the frames' total over their count,
//! median over the repetitions, methods interleaved per repetition):
//! - `polycd broad`: `broad::World` — set every pose (which recomputes the body's box by six
//!   warm support climbs, or one pass over a small hull's vertices) and run the broad phase
//!   (incremental sweep-and-prune below `broad::GRID_MIN_BOXES` bodies, the grid from there);
//! - `polycd broad + V-Clip`: the same plus V-Clip distance on every candidate pair (each pair
//!   keeps its `PairCache` while it is a candidate: the World's default);
//! - `polycd broad + GJK ∩`: the same with GJK's boolean intersection test;
//! - `polycd sweep only`: `polycd broad` with the grid turned off (`set_grid_threshold(MAX)`):
//!   the incremental sweep, to show where it loses (up to `SWEEP_MAX` bodies);
//! - `parry3d BVH`: `parry3d_f64::partitioning::Bvh` — every leaf updated from
//!   `ConvexPolyhedron::aabb` (all vertices through the pose), `refit`, `optimize_incremental`
//!   (as rapier uses it every step), then `traverse_bvtt_single_tree` without change detection
//!   (every overlapping leaf pair, each frame);
//! - `parry3d BVH + ∩` / `+ distance`: parry's `intersection_test` / `distance` on those pairs
//!   (parry keeps no per-pair state; `distance` stops at 0 for overlapping shapes, so
//!   `contact` measures their depth, as polycd's distance answer carries it);
//! - `brute force`: the same parry boxes, all n(n−1)/2 pairs tested: the floor a broad phase
//!   must beat (timed up to `BRUTE_MAX` bodies).
//!
//! `POLYCD_MANY_BODY_N=1000,5000` (environment) runs only those body counts;
//! `POLYCD_GRID_MIN=N` sets the grid threshold of the `polycd broad` methods (to measure it).
//!
//! Checks on the first repetition, every frame: polycd's candidate set equals the set of
//! overlapping polycd boxes (`check_invariants`: an x-sorted sweep oracle, exact and
//! O(n log n + pairs overlapping in x), so it runs at 10⁵ bodies); parry's BVH pairs equal the
//! brute force's count (above `BRUTE_MAX`, the same x-sorted sweep's count); the
//! contacts (touching or overlapping pairs) of V-Clip, of GJK's test and of parry's
//! `intersection_test` are the same set (a pair polycd calls *touching* may go either way).

use super::{csv_out, svg_out};
use crate::methods::{Body, Placement};
use crate::plot::{Chart, Series};
use crate::table::{ratio, Table};
use crate::timing::median;
use crate::{Context, RunOptions};
use parry3d_f64::bounding_volume::{Aabb as ParryAabb, BoundingVolume};
use parry3d_f64::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use polycd::broad::{PairQuery, World, WorldOptions};
use polycd::query::Status;
use polycd::{shapes, Algorithm, DQuat, DVec3, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

/// The methods, in table order.
const METHODS: [&str; 8] = [
    "polycd broad",
    "polycd broad + V-Clip",
    "polycd broad + GJK ∩",
    "parry3d BVH",
    "parry3d BVH + ∩",
    "parry3d BVH + distance",
    "brute force",
    "polycd sweep only",
];

/// The shapes bodies are drawn from (polycd hull and parry twin).
pub fn pool() -> Result<Vec<(Body, Arc<polycd::ConvexPolyhedron>)>, String> {
    let bodies = vec![
        Body::from_result("ico-0.5", shapes::icosahedron(0.5))?,
        Body::from_result("ico-0.9", shapes::icosahedron(0.9))?,
        Body::from_result("box", shapes::cuboid(0.8, 0.5, 0.4))?,
        Body::from_result("box-long", shapes::cuboid(1.6, 0.3, 0.3))?,
        Body::from_result("ell-32", shapes::ellipsoid(32, 0.7, 0.45, 0.35, 5))?,
        Body::from_result("ell-64", shapes::ellipsoid(64, 1.0, 0.6, 0.5, 6))?,
        Body::from_result("ell-32s", shapes::ellipsoid(32, 0.4, 0.35, 0.3, 7))?,
    ];
    Ok(bodies
        .into_iter()
        .map(|b| {
            let arc = Arc::new(b.poly.clone());
            (b, arc)
        })
        .collect())
}

/// A scene: each body's shape (index into the pool) and its placements, frame by frame.
pub struct Scene {
    /// Each body's shape: an index into [`pool`]'s list.
    pub shape: Vec<usize>,
    /// The bodies' placements, frame by frame.
    pub frames: Vec<Vec<Placement>>,
}

/// `n` bodies drawn from `pool` (seeded) in a cube whose volume makes their summed volume
/// `density` of it, over `frames` frames: each body moves by at most 0.05 and turns by at most
/// 2° a frame, bouncing off the cube's walls.
pub fn scene(
    pool: &[(Body, Arc<polycd::ConvexPolyhedron>)],
    n: usize,
    density: f64,
    frames: usize,
    seed: u64,
) -> Scene {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let shape: Vec<usize> = (0..n).map(|_| rng.random_range(0..pool.len())).collect();
    let volume: f64 = shape.iter().map(|&s| pool[s].0.poly.volume()).sum();
    let side = (volume / density).cbrt();
    let mut pos: Vec<DVec3> = (0..n)
        .map(|_| {
            DVec3::new(
                rng.random_range(0.0..side),
                rng.random_range(0.0..side),
                rng.random_range(0.0..side),
            )
        })
        .collect();
    let mut rot: Vec<DQuat> = (0..n).map(|_| shapes::random_rotation(&mut rng)).collect();
    let mut vel: Vec<DVec3> = (0..n)
        .map(|_| shapes::unit_vector(&mut rng) * rng.random_range(0.0..0.05))
        .collect();
    let spin: Vec<DQuat> = (0..n)
        .map(|_| {
            let axis = shapes::unit_vector(&mut rng);
            DQuat::from_axis_angle(axis, rng.random_range(0.0..2f64.to_radians()))
        })
        .collect();
    let mut out = Vec::with_capacity(frames);
    for _ in 0..frames {
        out.push((0..n).map(|i| Placement::new(Pose::new(rot[i], pos[i]))).collect());
        for i in 0..n {
            pos[i] += vel[i];
            for k in 0..3 {
                if pos[i][k] < 0.0 || pos[i][k] > side {
                    vel[i][k] = -vel[i][k];
                }
            }
            rot[i] = (spin[i] * rot[i]).normalize();
        }
    }
    Scene { shape, frames: out }
}

/// A polycd world with the scene's first frame in it (one update done: the timed frames are
/// the coherent ones).
fn world(
    pool: &[(Body, Arc<polycd::ConvexPolyhedron>)],
    sc: &Scene,
    options: WorldOptions,
    grid: bool,
) -> Result<World, String> {
    let mut w = World::new(options);
    if !grid {
        w.set_grid_threshold(usize::MAX);
    } else if let Some(t) = std::env::var("POLYCD_GRID_MIN").ok().and_then(|v| v.parse().ok()) {
        w.set_grid_threshold(t);
    }
    for (i, &s) in sc.shape.iter().enumerate() {
        w.insert(pool[s].1.clone(), sc.frames[0][i].pose)
            .map_err(|e| e.to_string())?;
    }
    w.update().map_err(|e| e.to_string())?;
    Ok(w)
}

/// Per-frame answers of the first repetition, for the checks.
#[derive(Default)]
struct Log {
    /// Contacts `(a, b, status)` per frame (polycd methods; parry's as Overlapping).
    contacts: Vec<Vec<(u32, u32, Status)>>,
    /// Candidate or broad-phase pair count per frame.
    pairs: Vec<usize>,
}

#[allow(clippy::too_many_arguments)]
fn polycd_run(
    pool: &[(Body, Arc<polycd::ConvexPolyhedron>)],
    sc: &Scene,
    options: WorldOptions,
    narrow: bool,
    grid: bool,
    log: Option<&mut Log>,
    ctx: &mut Context,
    case: &str,
) -> Result<(f64, f64), String> {
    let mut w = world(pool, sc, options, grid)?;
    let handles: Vec<_> = w.handles().collect();
    let mut log = log;
    let mut total = 0.0;
    let mut swaps = 0usize;
    for (f, frame) in sc.frames.iter().enumerate().skip(1) {
        let start = Instant::now();
        for (h, p) in handles.iter().zip(frame) {
            w.set_pose(*h, p.pose).map_err(|e| e.to_string())?;
        }
        if narrow {
            w.update().map_err(|e| e.to_string())?;
        } else {
            w.update_broad_phase();
        }
        total += start.elapsed().as_secs_f64();
        swaps += w.stats().sweep.swaps;
        if let Some(log) = log.as_deref_mut() {
            // Outside the clock: the invariant against the sweep oracle (same boxes).
            if let Err(e) = w.broad_phase().check_invariants() {
                ctx.disagree(
                    format!("{case}, frame {f}"),
                    METHODS[0],
                    "brute force (polycd boxes)",
                    e,
                );
            }
            log.pairs.push(w.broad_phase().candidate_count());
            if narrow {
                log.contacts.push(
                    w.pairs()
                        .filter(|p| p.status != Status::Disjoint)
                        .map(|p| (p.a.index(), p.b.index(), p.status))
                        .collect(),
                );
            }
        }
    }
    let frames = (sc.frames.len() - 1) as f64;
    Ok((total / frames, swaps as f64 / frames))
}

#[derive(Clone, Copy, PartialEq)]
enum ParryNarrow {
    None,
    Intersect,
    Distance,
}

fn parry_run(
    pool: &[(Body, Arc<polycd::ConvexPolyhedron>)],
    sc: &Scene,
    narrow: ParryNarrow,
    log: Option<&mut Log>,
) -> f64 {
    let shape = |i: usize| &pool[sc.shape[i]].0.parry;
    let boxes: Vec<ParryAabb> = (0..sc.shape.len())
        .map(|i| shape(i).aabb(&sc.frames[0][i].parry))
        .collect();
    let mut bvh = Bvh::from_leaves(BvhBuildStrategy::default(), &boxes);
    let mut ws = BvhWorkspace::default();
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let mut hits: Vec<(u32, u32, Status)> = Vec::new();
    let mut log = log;
    let mut total = 0.0;
    for frame in sc.frames.iter().skip(1) {
        let start = Instant::now();
        for (i, p) in frame.iter().enumerate() {
            bvh.insert_or_update_partially(shape(i).aabb(&p.parry), i as u32, 0.0);
        }
        bvh.refit(&mut ws);
        bvh.optimize_incremental(&mut ws);
        pairs.clear();
        bvh.traverse_bvtt_single_tree::<false>(&mut ws, &mut |a, b| pairs.push((a.min(b), a.max(b))));
        hits.clear();
        match narrow {
            ParryNarrow::None => {}
            ParryNarrow::Intersect => {
                for &(a, b) in &pairs {
                    let (ia, ib) = (a as usize, b as usize);
                    let r =
                        parry3d_f64::query::intersection_test(&frame[ia].parry, shape(ia), &frame[ib].parry, shape(ib));
                    if r.is_ok_and(|r| r.intersecting) {
                        hits.push((a, b, Status::Overlapping));
                    }
                }
            }
            ParryNarrow::Distance => {
                for &(a, b) in &pairs {
                    let (ia, ib) = (a as usize, b as usize);
                    let (pa, pb) = (&frame[ia].parry, &frame[ib].parry);
                    let r = parry3d_f64::query::distance(pa, shape(ia), pb, shape(ib));
                    if r.is_ok_and(|r| r.distance <= 0.0) {
                        // The depth too, as polycd's distance answer has it (see `methods`).
                        let depth = parry3d_f64::query::contact(pa, shape(ia), pb, shape(ib), 0.0);
                        std::hint::black_box(&depth);
                        hits.push((a, b, Status::Overlapping));
                    }
                }
            }
        }
        total += start.elapsed().as_secs_f64();
        if let Some(log) = log.as_deref_mut() {
            log.pairs.push(pairs.len());
            if narrow != ParryNarrow::None {
                hits.sort_unstable_by_key(|h| (h.0, h.1));
                log.contacts.push(hits.clone());
            }
        }
    }
    total / (sc.frames.len() - 1) as f64
}

/// Above this many bodies the incremental sweep alone (`polycd sweep only`) is not run: its
/// end-point exchanges exceed the rebuild budget every frame there (about 110 per body at
/// 10⁵ bodies), and each rebuild tests every pair overlapping in x — seconds a frame on a
/// loaded machine, which kept the 100 000 row from finishing.
const SWEEP_MAX: usize = 20_000;

/// Above this many bodies the brute force is not timed (n²/2 box tests a frame: seconds at
/// 10⁵); its pair count, which checks parry's BVH, then comes from [`sweep_count`].
const BRUTE_MAX: usize = 5000;

/// The number of overlapping pairs of `boxes` by sorting on the lower x bound and testing each
/// box against the following ones that start before it ends: every pair skipped is apart in x,
/// so the count equals the brute force's (O(n log n + pairs overlapping in x)).
fn sweep_count(boxes: &[ParryAabb]) -> usize {
    let mut idx: Vec<usize> = (0..boxes.len()).collect();
    idx.sort_by(|&i, &j| boxes[i].mins.x.total_cmp(&boxes[j].mins.x));
    let mut count = 0;
    for (a, &i) in idx.iter().enumerate() {
        for &j in &idx[a + 1..] {
            if boxes[j].mins.x > boxes[i].maxs.x {
                break;
            }
            count += usize::from(boxes[i].intersects(&boxes[j]));
        }
    }
    count
}

fn brute_run(pool: &[(Body, Arc<polycd::ConvexPolyhedron>)], sc: &Scene, log: Option<&mut Log>) -> f64 {
    let n = sc.shape.len();
    let mut boxes: Vec<ParryAabb> = Vec::with_capacity(n);
    let mut log = log;
    if n > BRUTE_MAX && log.is_none() {
        return f64::NAN;
    }
    let mut total = 0.0;
    for frame in sc.frames.iter().skip(1) {
        let start = Instant::now();
        boxes.clear();
        boxes.extend((0..n).map(|i| pool[sc.shape[i]].0.parry.aabb(&frame[i].parry)));
        let mut count = 0usize;
        if n > BRUTE_MAX {
            count = sweep_count(&boxes);
        } else {
            for i in 0..n {
                for j in i + 1..n {
                    count += usize::from(boxes[i].intersects(&boxes[j]));
                }
            }
        }
        total += start.elapsed().as_secs_f64();
        if let Some(log) = log.as_deref_mut() {
            log.pairs.push(count);
        }
    }
    if n > BRUTE_MAX {
        return f64::NAN;
    }
    total / (sc.frames.len() - 1) as f64
}

/// Compares two contact logs frame by frame; a pair one side calls touching may go either way.
fn compare_contacts(ctx: &mut Context, case: &str, method: &str, reference: &str, x: &Log, y: &Log) {
    for (f, (cx, cy)) in x.contacts.iter().zip(&y.contacts).enumerate() {
        let mx: HashMap<(u32, u32), Status> = cx.iter().map(|c| ((c.0, c.1), c.2)).collect();
        let my: HashMap<(u32, u32), Status> = cy.iter().map(|c| ((c.0, c.1), c.2)).collect();
        for (k, s) in &mx {
            if *s == Status::Unknown || (!my.contains_key(k) && *s != Status::Touching) {
                ctx.disagree(
                    format!("{case}, frame {}", f + 1),
                    method,
                    reference,
                    format!("pair {k:?}: {s:?} vs {:?}", my.get(k)),
                );
            }
        }
        for (k, s) in &my {
            if !mx.contains_key(k) && *s != Status::Touching {
                ctx.disagree(
                    format!("{case}, frame {}", f + 1),
                    method,
                    reference,
                    format!("pair {k:?}: not a contact vs {s:?}"),
                );
            }
        }
    }
}

fn mean_usize(v: &[usize]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.iter().sum::<usize>() as f64 / v.len() as f64
}

pub(crate) fn run(opts: &RunOptions, ctx: &mut Context) -> Result<(), String> {
    let (sizes, densities, frames, reps): (&[usize], &[f64], usize, usize) = if opts.quick {
        (&[100, 300, 2000], &[0.1], 12, 3)
    } else {
        (&[100, 1000, 5000, 10_000, 100_000], &[0.05, 0.2], 101, 3)
    };
    // `POLYCD_MANY_BODY_N=1000,5000` runs only these body counts (both densities).
    let custom: Option<Vec<usize>> = std::env::var("POLYCD_MANY_BODY_N")
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect());
    let sizes: &[usize] = custom.as_deref().unwrap_or(sizes);
    // Fewer frames for the large worlds (the scene of every frame is held in memory).
    let frames_for = |n: usize| match n {
        0..=5000 => frames,
        5001..=20_000 => frames.min(41),
        _ => frames.min(6),
    };
    let pool = pool()?;
    ctx.peers.push(METHODS[3]);
    ctx.peers.push(METHODS[4]);
    ctx.peers.push(METHODS[5]);
    ctx.start_progress((sizes.len() * densities.len() * reps) as u64);
    ctx.table.push_str(&format!(
        "== many-body: n convex bodies moving coherently, ms per frame ({} frames, {} at 10 000, {} at 100 000; median of {reps}; brute force timed up to {BRUTE_MAX}) ==\n",
        frames - 1,
        frames_for(10_000) - 1,
        frames_for(100_000) - 1
    ));
    let mut header: Vec<String> = vec!["n".into(), "density".into()];
    header.extend(METHODS.iter().map(|m| m.to_string()));
    header.extend(
        [
            "candidates",
            "parry pairs",
            "contacts",
            "sweep swaps",
            "parry ÷ polycd: broad",
            "sweep only",
            "∩",
            "distance",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    let mut t = Table::new(header);
    let mut rows = Vec::new();
    let mut curves: Vec<Vec<Vec<(f64, f64)>>> = vec![vec![Vec::new(); METHODS.len()]; densities.len()];
    for (di, &density) in densities.iter().enumerate() {
        for &n in sizes {
            let case = format!("n = {n}, density {density}");
            let seed = opts.seed.wrapping_add(7000 + n as u64 + (density * 1e3) as u64);
            let frames = frames_for(n);
            let sc = scene(&pool, n, density, frames, seed);
            let vclip = WorldOptions::default();
            let gjk = WorldOptions::default()
                .with_algorithm(Algorithm::Gjk)
                .with_query(PairQuery::Intersect);
            let mut times: Vec<Vec<f64>> = vec![Vec::new(); METHODS.len()];
            let mut logs: Vec<Log> = (0..METHODS.len()).map(|_| Log::default()).collect();
            let mut swaps = 0.0;
            for rep in 0..reps {
                let first = rep == 0;
                let mut l = logs.iter_mut();
                let mut next = || l.next().filter(|_| first);
                times[0].push(polycd_run(&pool, &sc, vclip, false, true, next(), ctx, &case)?.0);
                times[1].push(polycd_run(&pool, &sc, vclip, true, true, next(), ctx, &case)?.0);
                times[2].push(polycd_run(&pool, &sc, gjk, true, true, next(), ctx, &case)?.0);
                times[3].push(parry_run(&pool, &sc, ParryNarrow::None, next()));
                times[4].push(parry_run(&pool, &sc, ParryNarrow::Intersect, next()));
                times[5].push(parry_run(&pool, &sc, ParryNarrow::Distance, next()));
                times[6].push(brute_run(&pool, &sc, next()));
                if n <= SWEEP_MAX {
                    let (t7, s) = polycd_run(&pool, &sc, vclip, false, false, next(), ctx, &case)?;
                    swaps = s;
                    times[7].push(t7);
                } else {
                    swaps = f64::NAN;
                    times[7].push(f64::NAN);
                }
                ctx.progress.tick(1);
            }
            // Checks (first repetition).
            for (f, (&p, &b)) in logs[3].pairs.iter().zip(&logs[6].pairs).enumerate() {
                if p != b {
                    ctx.disagree(
                        format!("{case}, frame {}", f + 1),
                        METHODS[3],
                        METHODS[6],
                        format!("{p} BVH pairs vs {b} overlapping boxes"),
                    );
                }
            }
            if n <= SWEEP_MAX && logs[7].pairs != logs[0].pairs {
                ctx.disagree(
                    case.clone(),
                    METHODS[7],
                    METHODS[0],
                    "candidate counts differ".to_string(),
                );
            }
            compare_contacts(ctx, &case, METHODS[2], METHODS[1], &logs[2], &logs[1]);
            compare_contacts(ctx, &case, METHODS[4], METHODS[1], &logs[4], &logs[1]);
            compare_contacts(ctx, &case, METHODS[5], METHODS[1], &logs[5], &logs[1]);
            let ms: Vec<f64> = times.iter_mut().map(|v| median(v) * 1e3).collect();
            let cand = mean_usize(&logs[0].pairs);
            let parry_pairs = mean_usize(&logs[3].pairs);
            let contacts =
                logs[1].contacts.iter().map(|c| c.len()).sum::<usize>() as f64 / logs[1].contacts.len().max(1) as f64;
            let mut r = vec![n.to_string(), format!("{density}")];
            r.extend(
                ms.iter()
                    .map(|x| if x.is_nan() { "–".into() } else { format!("{x:.3}") }),
            );
            r.push(format!("{cand:.0}"));
            r.push(format!("{parry_pairs:.0}"));
            r.push(format!("{contacts:.1}"));
            r.push(format!("{swaps:.0}"));
            // Same question on both sides: broad phase, boolean test, distance (with depth).
            r.push(ratio(ms[3] / ms[0]));
            r.push(ratio(ms[3] / ms[7]));
            r.push(ratio(ms[4] / ms[2]));
            r.push(ratio(ms[5] / ms[1]));
            t.row(r);
            let mut csv = vec![n.to_string(), format!("{density}"), (frames - 1).to_string()];
            csv.extend(ms[..7].iter().map(|x| crate::csv::num(*x)));
            csv.extend(
                [cand, parry_pairs, contacts, swaps, ms[7]]
                    .iter()
                    .map(|x| crate::csv::num(*x)),
            );
            rows.push(csv);
            for (m, &x) in ms.iter().enumerate() {
                if x.is_finite() {
                    curves[di][m].push((n as f64, x));
                }
            }
        }
    }
    ctx.table.push_str(&t.render());
    for (di, &density) in densities.iter().enumerate() {
        let series = METHODS
            .iter()
            .zip(&curves[di])
            .map(|(m, pts)| Series {
                label: m.to_string(),
                points: pts.clone(),
                peer: m.starts_with("parry"),
            })
            .collect();
        let chart = Chart {
            title: format!("Many bodies moving coherently (density {density}): time per frame"),
            x_label: "bodies".into(),
            y_label: "time per frame (ms)".into(),
            x_log: true,
            y_log: Some(true),
            legend_left: true,
            series,
        };
        svg_out(ctx, &format!("many-body_d{}.svg", super::tag(density)), &chart)?;
    }
    let header: Vec<&str> = [
        "n",
        "density",
        "frames",
        "polycd_sap_ms",
        "polycd_sap_vclip_ms",
        "polycd_sap_gjk_intersect_ms",
        "parry_bvh_ms",
        "parry_bvh_intersect_ms",
        "parry_bvh_distance_ms",
        "brute_force_ms",
        "candidates_mean",
        "parry_pairs_mean",
        "contacts_mean",
        "swaps_mean",
        "polycd_sweep_only_ms",
    ]
    .to_vec();
    csv_out(ctx, "many-body.csv", &header, &rows)
}
