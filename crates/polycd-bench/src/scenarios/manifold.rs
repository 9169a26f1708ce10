//! `manifold` — contact manifolds (issue 25): polycd's `query::contact_manifold` against
//! parry3d's persistent contact manifolds on the same pairs in the same run.
//!
//! Scenes (every pose of every frame computed before timing, in both libraries' types):
//! - `many-body`: the `many-body` scenario's bodies (icosahedra, boxes, ellipsoid hulls of 32
//!   and 64 vertices) moving coherently at density 0.2; the pairs are those whose bounding
//!   spheres come within the margin (found outside the clock);
//! - `box stacks`: the stacking example's scene — a static 40 × 40 × 1 ground, a tower of 10
//!   unit boxes and a pyramid of 20 (rows 6 … 2) — each box's resting pose jittered every frame
//!   by a rotation of at most 5e-3 rad about a random axis, a horizontal shift of at most 3e-3
//!   and a sinking of at most 2e-3 (resting contacts, slightly penetrating, never the same pose
//!   twice); the pairs are the boxes' neighbours (bounding spheres within the margin).
//!
//! Methods, each over the same frames and pairs with one persistent state per pair (a physics
//! engine's use): `polycd` — `contact_manifold` (margin 0.01, full polygon, a `ManifoldCache`
//! per pair); `parry3d` — `DefaultQueryDispatcher::contact_manifold_convex_convex` (prediction
//! 0.01, a `ContactManifold` per pair) on the `ConvexPolyhedron` twins; for the stacks also
//! `parry3d Cuboid` — the same with parry's `Cuboid` shapes (its box–box SAT path). Time per
//! pair: the frames' total over the number of pair queries (apart pairs included), median over
//! the repetitions, methods interleaved per repetition.
//!
//! `POLYCD_MANIFOLD_SCENE=many-body` (or `stacks`) in the environment runs that scene alone
//! (to profile it); `POLYCD_MANIFOLD_SIZE=frames,bodies,reps` sets the sizes.
//!
//! Checks and counts (first repetition): a pair with a polycd manifold deeper than half the
//! margin must have a parry manifold and the other way round (a disagreement otherwise, charged
//! to parry); on face–face contacts (polycd's `FaceA`/`FaceB`) the points within the margin
//! are counted (parry's distinct points: its `ConvexPolyhedron` path adds GJK/EPA's contact
//! point, feature id 0, a copy of a clip point): the share of contacts where parry has as many
//! points as polycd's full polygon (its `ConvexPolyhedron` twins, and its `Cuboid`s), the mean
//! of each.
//!
//! Where the methods differ: polycd finds the exact closest features or penetration witnesses
//! (V-Clip/GJK/EPA through the pair cache), decides whether a face is a contact face from its
//! separating-axis separation, and clips the incident face by the reference face's side planes;
//! each point carries its feature pair and a persistent id. parry takes GJK/EPA's normal, the
//! two shapes' support features along it, and clips those; it reuses the last manifold
//! unchanged (separations updated) while the normal turned by less than 1° and every point
//! moved by less than 1e-3 (its coherence, part of its method; the jitter here is larger,
//! so that it seldom applies).

use super::csv_out;
use super::many_body;
use crate::methods::{Body, Placement};
use crate::table::{ratio, Table};
use crate::timing::median;
use crate::{Context, RunOptions};
use parry3d_f64::math::Vector as ParryVec;
use parry3d_f64::query::{ContactManifold as ParryManifold, DefaultQueryDispatcher, PersistentQueryDispatcher};
use parry3d_f64::shape::{Cuboid, Shape};
use polycd::query::{contact_manifold, ManifoldCache, ManifoldKind, ManifoldOptions};
use polycd::{shapes, DQuat, DVec3, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

/// The margin (parry: prediction) of every query.
const MARGIN: f64 = 0.01;

const METHODS: [&str; 3] = ["polycd", "parry3d", "parry3d Cuboid"];

/// A scene: its shapes (polycd hull + parry twin, and a parry `Cuboid` for boxes), each
/// body's shape index, the pairs asked, and the frames' placements.
struct Scene {
    name: &'static str,
    shapes: Vec<(Body, Option<Cuboid>)>,
    shape: Vec<usize>,
    pairs: Vec<(u32, u32)>,
    frames: Vec<Vec<Placement>>,
}

/// Pairs whose bounding spheres come within the margin in some frame.
fn near_pairs(shapes: &[(Body, Option<Cuboid>)], shape: &[usize], frames: &[Vec<Placement>]) -> Vec<(u32, u32)> {
    let n = shape.len();
    let spheres: Vec<(DVec3, f64)> = shape.iter().map(|&s| shapes[s].0.poly.bounding_sphere()).collect();
    let mut out = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            let near = frames.iter().any(|f| {
                let (ci, ri) = spheres[i];
                let (cj, rj) = spheres[j];
                f[i].pose.transform_point(ci).distance(f[j].pose.transform_point(cj)) <= ri + rj + MARGIN
            });
            if near {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

fn many_body_scene(frames: usize, n: usize, seed: u64) -> Result<Scene, String> {
    let pool = many_body::pool()?;
    let sc = many_body::scene(&pool, n, 0.2, frames, seed);
    let shapes: Vec<(Body, Option<Cuboid>)> = pool.into_iter().map(|(b, _)| (b, None)).collect();
    let pairs = near_pairs(&shapes, &sc.shape, &sc.frames);
    Ok(Scene {
        name: "many-body",
        shapes,
        shape: sc.shape,
        pairs,
        frames: sc.frames,
    })
}

fn stacks_scene(frames: usize, seed: u64) -> Result<Scene, String> {
    let cuboid = |name: &str, x: f64, y: f64, z: f64| -> Result<(Body, Option<Cuboid>), String> {
        let b = Body::from_result(name, shapes::cuboid(x, y, z))?;
        Ok((b, Some(Cuboid::new(ParryVec::new(x, y, z) * 0.5))))
    };
    let shapes = vec![cuboid("ground", 40.0, 40.0, 1.0)?, cuboid("box", 1.0, 1.0, 1.0)?];
    let mut rest = vec![DVec3::new(0.0, 0.0, -0.5)];
    rest.extend((0..10).map(|k| DVec3::new(-6.0, 0.0, k as f64 + 0.5)));
    for row in 0..5 {
        let len = 6 - row;
        for k in 0..len {
            rest.push(DVec3::new(
                4.0 + (k as f64 - 0.5 * (len - 1) as f64) * 1.1,
                0.0,
                row as f64 + 0.5,
            ));
        }
    }
    let shape: Vec<usize> = (0..rest.len()).map(|k| usize::from(k > 0)).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(frames);
    for _ in 0..frames {
        let frame = rest
            .iter()
            .enumerate()
            .map(|(k, &p)| {
                if k == 0 {
                    return Placement::new(Pose::from_translation(p));
                }
                let axis = shapes::unit_vector(&mut rng);
                let rot = DQuat::from_axis_angle(axis, rng.random_range(0.0..5e-3));
                let shift = DVec3::new(
                    rng.random_range(-3e-3..3e-3),
                    rng.random_range(-3e-3..3e-3),
                    -rng.random_range(0.0..2e-3),
                );
                Placement::new(Pose::new(rot, p + shift))
            })
            .collect();
        out.push(frame);
    }
    let pairs = near_pairs(&shapes, &shape, &out);
    Ok(Scene {
        name: "box stacks",
        shapes,
        shape,
        pairs,
        frames: out,
    })
}

/// First-repetition answers: per (frame, pair) the polycd kind and point count and min
/// separation, and parry's point count and min distance.
#[derive(Default)]
struct Log {
    polycd: Vec<Option<(ManifoldKind, usize, f64)>>,
    parry: Vec<Option<(usize, f64)>>,
}

#[inline(never)]
fn polycd_run(sc: &Scene, log: Option<&mut Log>) -> Result<f64, String> {
    let options = ManifoldOptions::default().with_margin(MARGIN).with_reduce(false);
    let mut caches: Vec<ManifoldCache> = (0..sc.pairs.len()).map(|_| ManifoldCache::default()).collect();
    let mut log = log;
    let mut total = 0.0;
    for frame in &sc.frames {
        let start = Instant::now();
        for (&(i, j), cache) in sc.pairs.iter().zip(caches.iter_mut()) {
            let (i, j) = (i as usize, j as usize);
            let a = &sc.shapes[sc.shape[i]].0.poly;
            let b = &sc.shapes[sc.shape[j]].0.poly;
            let m =
                contact_manifold(a, &frame[i].pose, b, &frame[j].pose, &options, cache).map_err(|e| e.to_string())?;
            std::hint::black_box(&m);
        }
        total += start.elapsed().as_secs_f64();
        if let Some(log) = log.as_deref_mut() {
            for cache in &caches {
                log.polycd
                    .push(cache.manifold().map(|m| (m.kind, m.points.len(), m.min_separation())));
            }
        }
    }
    Ok(total)
}

/// `CUBOIDS`: parry's `Cuboid`s for boxes (a const parameter: the two runs are separate
/// functions in a profile).
#[inline(never)]
fn parry_run<const CUBOIDS: bool>(sc: &Scene, log: Option<&mut Log>) -> f64 {
    let cuboids = CUBOIDS;
    let dispatcher = DefaultQueryDispatcher;
    let mut manifolds: Vec<ParryManifold<(), ()>> = (0..sc.pairs.len()).map(|_| ParryManifold::new()).collect();
    let shape = |i: usize| -> &dyn Shape {
        let (body, cuboid) = &sc.shapes[sc.shape[i]];
        match (cuboids, cuboid) {
            (true, Some(c)) => c,
            _ => &body.parry,
        }
    };
    let mut log = log;
    let mut total = 0.0;
    for frame in &sc.frames {
        let start = Instant::now();
        for (&(i, j), m) in sc.pairs.iter().zip(manifolds.iter_mut()) {
            let (i, j) = (i as usize, j as usize);
            let pos12 = frame[i].parry.inv_mul(&frame[j].parry);
            let r = dispatcher.contact_manifold_convex_convex(&pos12, shape(i), shape(j), None, None, MARGIN, m);
            std::hint::black_box(&r);
        }
        total += start.elapsed().as_secs_f64();
        if let Some(log) = log.as_deref_mut() {
            for m in &manifolds {
                // Distinct points within the margin: the ConvexPolyhedron path adds GJK/EPA's
                // contact point (feature id 0) to the clip's, a copy of one of them.
                let mut kept: Vec<(ParryVec, f64)> = Vec::new();
                for p in m.points.iter().filter(|p| p.dist <= MARGIN) {
                    let scale = 1.0 + p.local_p1.length();
                    if kept.iter().all(|(q, _)| q.distance(p.local_p1) > 1e-9 * scale) {
                        kept.push((p.local_p1, p.dist));
                    }
                }
                log.parry.push(
                    (!kept.is_empty()).then(|| (kept.len(), kept.iter().map(|k| k.1).fold(f64::INFINITY, f64::min))),
                );
            }
        }
    }
    total
}

pub(crate) fn run(opts: &RunOptions, ctx: &mut Context) -> Result<(), String> {
    let (mut frames, mut reps, mut bodies) = if opts.quick { (20, 1, 200) } else { (200, 5, 1000) };
    // `POLYCD_MANIFOLD_SIZE=frames,bodies,reps` overrides the sizes (to measure one scale).
    if let Ok(v) = std::env::var("POLYCD_MANIFOLD_SIZE") {
        let n: Vec<Option<usize>> = v.split(',').map(|x| x.trim().parse().ok()).collect();
        let [Some(f), Some(b), Some(r)] = n[..] else {
            return Err(format!("POLYCD_MANIFOLD_SIZE={v}: expected frames,bodies,reps"));
        };
        (frames, bodies, reps) = (f.max(1), b.max(2), r.max(1));
    }
    // `POLYCD_MANIFOLD_SCENE=many-body` (or `stacks`) runs one scene (to profile it alone).
    let only = std::env::var("POLYCD_MANIFOLD_SCENE").ok();
    let want = |name: &str| only.as_deref().is_none_or(|o| name.starts_with(o));
    let mut scenes = Vec::new();
    if want("many-body") {
        scenes.push(many_body_scene(frames, bodies, opts.seed.wrapping_add(2500))?);
    }
    if want("stacks") || want("box stacks") {
        scenes.push(stacks_scene(frames, opts.seed.wrapping_add(2501))?);
    }
    if scenes.is_empty() {
        return Err(format!(
            "POLYCD_MANIFOLD_SCENE={}: no such scene (many-body, stacks)",
            only.unwrap_or_default()
        ));
    }
    ctx.peers.push(METHODS[1]);
    ctx.peers.push(METHODS[2]);
    ctx.start_progress((scenes.len() * reps) as u64);
    ctx.table.push_str(&format!(
        "== manifold: contact manifolds, µs per pair query ({frames} frames, median of {reps}; margin {MARGIN}) ==\n"
    ));
    let header: Vec<String> = [
        "scene",
        "pairs",
        "contacts",
        "polycd",
        "parry3d",
        "parry3d Cuboid",
        "parry ÷ polycd",
        "Cuboid ÷ polycd",
        "face–face",
        "same count",
        "same (Cuboid)",
        "points polycd",
        "points parry",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut t = Table::new(header);
    let mut rows = Vec::new();
    for sc in &scenes {
        let has_cuboids = sc.shapes.iter().all(|s| s.1.is_some());
        let queries = (sc.pairs.len() * sc.frames.len()) as f64;
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); METHODS.len()];
        let (mut lp, mut lq, mut lc) = (Log::default(), Log::default(), Log::default());
        for rep in 0..reps {
            let first = rep == 0;
            times[0].push(polycd_run(sc, first.then_some(&mut lp))?);
            times[1].push(parry_run::<false>(sc, first.then_some(&mut lq)));
            if has_cuboids {
                times[2].push(parry_run::<true>(sc, first.then_some(&mut lc)));
            }
            ctx.progress.tick(1);
        }
        let us: Vec<f64> = times
            .iter_mut()
            .map(|v| {
                if v.is_empty() {
                    f64::NAN
                } else {
                    median(v) / queries * 1e6
                }
            })
            .collect();
        // Checks and counts.
        let mut contacts = 0usize;
        let (mut face, mut same, mut pts_polycd, mut pts_parry) = (0usize, 0usize, 0usize, 0usize);
        let mut same_cuboid = 0usize;
        let peers: Vec<(&str, &Log)> = if has_cuboids {
            vec![(METHODS[1], &lq), (METHODS[2], &lc)]
        } else {
            vec![(METHODS[1], &lq)]
        };
        for (k, p) in lp.polycd.iter().enumerate() {
            let (f, pair) = (k / sc.pairs.len(), sc.pairs[k % sc.pairs.len()]);
            contacts += usize::from(p.is_some());
            for (label, log) in &peers {
                let q = log.parry[k];
                let deep_p = p.is_some_and(|p| p.2 < 0.5 * MARGIN);
                let deep_q = q.is_some_and(|q| q.1 < 0.5 * MARGIN);
                if (deep_p && q.is_none()) || (deep_q && p.is_none()) {
                    ctx.disagree(
                        format!("{}, frame {f}, pair {pair:?}", sc.name),
                        label,
                        METHODS[0],
                        format!("polycd {p:?} vs {label} {q:?}"),
                    );
                }
            }
            if let (Some((ManifoldKind::FaceA(_) | ManifoldKind::FaceB(_), n, _)), Some((m, _))) = (p, lq.parry[k]) {
                face += 1;
                same += usize::from(*n == m);
                pts_polycd += n;
                pts_parry += m;
                if let Some(Some((c, _))) = lc.parry.get(k) {
                    same_cuboid += usize::from(n == c);
                }
            }
        }
        let faces = face.max(1) as f64;
        let r = vec![
            sc.name.to_string(),
            sc.pairs.len().to_string(),
            format!("{:.1}", contacts as f64 / sc.frames.len() as f64),
            format!("{:.3}", us[0]),
            format!("{:.3}", us[1]),
            if has_cuboids {
                format!("{:.3}", us[2])
            } else {
                "n/a".into()
            },
            ratio(us[1] / us[0]),
            if has_cuboids {
                ratio(us[2] / us[0])
            } else {
                "n/a".into()
            },
            face.to_string(),
            format!("{:.1}%", 100.0 * same as f64 / faces),
            if has_cuboids {
                format!("{:.1}%", 100.0 * same_cuboid as f64 / faces)
            } else {
                "n/a".into()
            },
            format!("{:.2}", pts_polycd as f64 / faces),
            format!("{:.2}", pts_parry as f64 / faces),
        ];
        rows.push(r.clone());
        t.row(r);
    }
    ctx.table.push_str(&t.render());
    let header = [
        "scene",
        "pairs",
        "contacts_per_frame",
        "polycd_us",
        "parry_us",
        "parry_cuboid_us",
        "parry_over_polycd",
        "cuboid_over_polycd",
        "face_face",
        "same_count",
        "same_count_cuboid",
        "points_polycd",
        "points_parry",
    ];
    csv_out(ctx, "manifold.csv", &header, &rows)
}
