//! `mesh` — issue 23 item 5: queries between two non-convex meshes, polycd's `mesh::intersect`
//! / `mesh::distance` (convex surface decomposition + hull trees, exact triangle distances at
//! the leaves) against parry3d's `TriMesh` (`intersection_test`, `distance`, and `contact` for
//! overlapping pairs), on the same meshes and poses in one run.
//!
//! Meshes: the torus knots of FAST §6 (`torus_knot(2, 3, 120, 12)`, 2 880 triangles, and
//! `(480, 12)`, 11 520; quick: `(40, 6)`, 480) and a bunny-like blob (a star-shaped closed
//! mesh with two ears, 3 584 triangles, generated here: no bunny file is in the repository),
//! each against a copy of itself.
//!
//! Poses: a random rotation of B and a random direction; B is moved in from far along the
//! direction by conservative advancement (polycd's distance) to its first contact `t₀`, then
//! placed at `t₀ + 0.25·s` (separated), `t₀ + 0.002·s` (near) and `t₀ − 0.05·s` (overlapping),
//! `s` the mesh's scale. Buckets are by polycd's answer (overlapping; distance below 0.01·s:
//! near; else separated). Directions whose line passes through without contact are skipped.
//!
//! Timing (no coherence): every pose's query is repeated (3×, quick 1×) with the poses
//! interleaved (a query never follows itself, so a cache carries nothing useful), the median
//! per pose kept and the bucket's mean of medians reported. polycd keeps one `SolidCache` per
//! method across all poses (a caller's long-lived per-pair cache); parry has no cache.
//! Coherent sequence: B starts at the first near pose and moves by small steps (a 0.5° turn
//! about a fixed axis and a translation of ≈ 0.3 % of the scale per step, on a closed
//! path that grazes A); the whole sequence is timed, repeated, the median kept.
//!
//! Build: polycd's `TriMesh::new` (repair, checks, decomposition, hull tree) against parry's
//! `TriMesh::new` (its BVH); and the first query on a freshly built mesh, which builds the
//! polyhedra of the hull-tree nodes it visits (lazy), against a warm one.
//!
//! Checks: polycd's intersect and distance agree on the status; parry's distance agrees
//! with polycd's within `PEER_AGREEMENT_REL` × scale on separated pairs, and its
//! `intersection_test` with polycd's status except where one solid contains the other (a
//! `TriMesh` is a surface). parry's deviations are counted as the peer's.

use super::csv_out;
use crate::table::{ratio, us, Table};
use crate::timing::{mean, median};
use crate::{Context, RunOptions, PEER_AGREEMENT_REL};
use parry3d_f64::math::{Pose as ParryPose, Rot3 as ParryRot, Vector as ParryVec};
use parry3d_f64::shape::TriMesh as ParryTriMesh;
use polycd::mesh::{self, MeshAnswer, MeshOverlap, Solid, SolidCache, TriMesh};
use polycd::{shapes, DQuat, DVec3, Pose};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Instant;

const PARRY: &str = "parry3d TriMesh";
const POLYCD: &str = "polycd mesh";

fn pv(v: DVec3) -> ParryVec {
    ParryVec::new(v.x, v.y, v.z)
}

fn parry_pose(p: &Pose) -> ParryPose {
    let q = p.rotation;
    ParryPose::from_parts(pv(p.translation), ParryRot::from_xyzw(q.x, q.y, q.z, q.w))
}

/// A bunny-like closed mesh: a sphere (`lat` rings, `lon` meridians, a vertex at each pole)
/// whose radius in direction `u` is `1 + 0.15·sin(3x)·cos(2y) + 0.1·z² + ears`, the ears two
/// narrow bumps of height 0.9 towards `(±0.35, 0.35, 0.87)`. The radius is positive in every
/// direction, so the mesh is star-shaped about the origin: closed, 2-manifold, no
/// self-intersection. `2·lon·(lat − 1)` triangles.
pub(crate) fn blob(lat: u32, lon: u32) -> (Vec<DVec3>, Vec<Vec<u32>>) {
    let ears = [
        DVec3::new(0.35, 0.35, 0.87).normalize(),
        DVec3::new(-0.35, 0.35, 0.87).normalize(),
    ];
    let radius = |u: DVec3| {
        let mut r = 1.0 + 0.15 * (3.0 * u.x).sin() * (2.0 * u.y).cos() + 0.1 * u.z * u.z;
        for e in ears {
            let c = u.dot(e).clamp(-1.0, 1.0).acos();
            r += 0.9 * (-(c / 0.18).powi(2)).exp();
        }
        r
    };
    let mut v = vec![DVec3::Z * radius(DVec3::Z)];
    for i in 1..lat {
        let theta = std::f64::consts::PI * i as f64 / lat as f64;
        for j in 0..lon {
            let phi = std::f64::consts::TAU * j as f64 / lon as f64;
            let u = DVec3::new(theta.sin() * phi.cos(), theta.sin() * phi.sin(), theta.cos());
            v.push(u * radius(u));
        }
    }
    v.push(-DVec3::Z * radius(-DVec3::Z));
    let south = v.len() as u32 - 1;
    let ring = |i: u32, j: u32| 1 + (i - 1) * lon + j % lon;
    let mut f = Vec::new();
    for j in 0..lon {
        f.push(vec![0, ring(1, j), ring(1, j + 1)]);
        f.push(vec![south, ring(lat - 1, j + 1), ring(lat - 1, j)]);
    }
    for i in 1..lat - 1 {
        for j in 0..lon {
            f.push(vec![ring(i, j), ring(i + 1, j), ring(i + 1, j + 1)]);
            f.push(vec![ring(i, j), ring(i + 1, j + 1), ring(i, j + 1)]);
        }
    }
    (v, f)
}

/// Vertices and faces of a mesh.
type MeshData = (Vec<DVec3>, Vec<Vec<u32>>);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Bucket {
    Separated,
    Near,
    Overlapping,
}

const BUCKETS: [(Bucket, &str); 3] = [
    (Bucket::Separated, "separated"),
    (Bucket::Near, "near (< 0.01 s)"),
    (Bucket::Overlapping, "overlapping"),
];

struct Meshes {
    polycd: TriMesh,
    parry: ParryTriMesh,
    build_ms: f64,
    parry_build_ms: f64,
}

fn build(v: &[DVec3], f: &[Vec<u32>], reps: usize) -> Result<Meshes, String> {
    let mut ours = Vec::new();
    let mut polycd = None;
    for _ in 0..reps {
        let t = Instant::now();
        let m = TriMesh::new(v, f).map_err(|e| e.to_string())?;
        ours.push(t.elapsed().as_secs_f64() * 1e3);
        polycd = Some(m);
    }
    let polycd = polycd.ok_or("no build")?;
    let mut theirs = Vec::new();
    let mut parry = None;
    for _ in 0..reps.max(5) {
        let verts: Vec<ParryVec> = polycd.vertices().iter().map(|&p| pv(p)).collect();
        let tris = polycd.triangles().to_vec();
        let t = Instant::now();
        let m = ParryTriMesh::new(verts, tris).map_err(|e| format!("parry TriMesh: {e:?}"))?;
        theirs.push(t.elapsed().as_secs_f64() * 1e3);
        parry = Some(m);
    }
    Ok(Meshes {
        polycd,
        parry: parry.ok_or("no build")?,
        build_ms: median(&mut ours),
        parry_build_ms: median(&mut theirs),
    })
}

/// B's pose at offset `t` along `dir` with rotation `r` (B's centroid on A's centroid + t·dir).
fn pose_at(m: &TriMesh, r: DQuat, dir: DVec3, t: f64) -> Pose {
    Pose::new(r, m.centroid() + dir * t - r * m.centroid())
}

/// The first-contact offset along `dir` (conservative advancement from far with polycd's
/// distance), or `None` when B passes A without contact.
fn first_contact(m: &TriMesh, r: DQuat, dir: DVec3, cache: &mut SolidCache) -> Result<Option<f64>, String> {
    let s = m.scale();
    let mut t = 4.0 * s;
    for _ in 0..200 {
        let p = pose_at(m, r, dir, t);
        let ans =
            mesh::distance(Solid::Mesh(m), &Pose::IDENTITY, Solid::Mesh(m), &p, cache).map_err(|e| e.to_string())?;
        match ans {
            MeshAnswer::Separated { distance, .. } => {
                if distance < 1e-7 * s {
                    return Ok(Some(t));
                }
                t -= distance;
                if t < -4.0 * s {
                    return Ok(None);
                }
            }
            MeshAnswer::Overlapping { .. } => return Ok(Some(t)),
            other => return Err(format!("unknown mesh answer {other:?}")),
        }
    }
    Ok(None)
}

fn bucket_of(ans: &MeshAnswer, s: f64) -> Result<Bucket, String> {
    match ans {
        MeshAnswer::Overlapping { .. } => Ok(Bucket::Overlapping),
        MeshAnswer::Separated { distance, .. } if *distance < 0.01 * s => Ok(Bucket::Near),
        MeshAnswer::Separated { .. } => Ok(Bucket::Separated),
        other => Err(format!("unknown mesh answer {other:?}")),
    }
}

fn contained(ans: &MeshAnswer) -> bool {
    matches!(
        ans,
        MeshAnswer::Overlapping {
            witness: MeshOverlap::Contained { .. },
            ..
        }
    )
}

/// Nanoseconds of one call.
fn time<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let t = Instant::now();
    let r = black_box(f());
    (t.elapsed().as_secs_f64() * 1e9, r)
}

pub(crate) fn run(opts: &RunOptions, ctx: &mut Context) -> Result<(), String> {
    ctx.peers.push(PARRY);
    // (label, mesh, directions, coherent steps)
    let mut specs: Vec<(String, MeshData, usize, usize)> = Vec::new();
    if opts.quick {
        specs.push((
            "knot 40,6".into(),
            shapes::torus_knot(2, 3, 40, 6, 0.45).map_err(|e| e.to_string())?,
            3,
            20,
        ));
    } else {
        specs.push((
            "knot 120,12".into(),
            shapes::torus_knot(2, 3, 120, 12, 0.45).map_err(|e| e.to_string())?,
            12,
            200,
        ));
        specs.push((
            "knot 480,12".into(),
            shapes::torus_knot(2, 3, 480, 12, 0.45).map_err(|e| e.to_string())?,
            6,
            100,
        ));
        specs.push(("bunny-like blob".into(), blob(29, 64), 12, 200));
    }
    // POLYCD_MESH_ONLY=TEXT: only the meshes whose label contains TEXT (profiling one cell;
    // the random poses of a later mesh then differ from the full run's).
    if let Ok(only) = std::env::var("POLYCD_MESH_ONLY") {
        specs.retain(|s| s.0.contains(only.as_str()));
    }
    let reps = if opts.quick { 1 } else { 3 };
    ctx.start_progress(specs.len() as u64);
    ctx.table.push_str(&format!(
        "== mesh: mesh vs mesh at random poses near contact, µs per query (mean over poses of the median of {reps}) ==\n"
    ));
    let mut build_t = Table::new(
        [
            "mesh",
            "triangles",
            "pieces",
            "polycd build (ms)",
            "parry BVH (ms)",
            "polycd 1st query (ms)",
            "warm (µs)",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    );
    let mut t = Table::new(
        [
            "mesh",
            "bucket",
            "poses",
            "polycd intersect",
            "parry intersection_test",
            "ratio",
            "polycd distance",
            "parry distance (+contact)",
            "ratio",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    );
    let mut coh = Table::new(
        [
            "mesh",
            "steps",
            "polycd intersect warm",
            "parry intersection_test",
            "ratio",
            "polycd distance warm",
            "parry distance",
            "ratio",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    );
    let mut rows = Vec::new();
    let mut rng = ChaCha8Rng::seed_from_u64(opts.seed.wrapping_add(2300));
    for (label, (v, f), dirs, steps) in &specs {
        ctx.progress.tick(1);
        let m = build(v, f, if opts.quick { 1 } else { 3 })?;
        let k = &m.polycd;
        let s = k.scale();
        let a = Solid::Mesh(k);
        let id = Pose::IDENTITY;
        let pid = parry_pose(&id);
        // Poses.
        let mut setup = SolidCache::default();
        let mut poses: Vec<(Pose, Bucket, MeshAnswer)> = Vec::new();
        for _ in 0..*dirs {
            let r = shapes::random_rotation(&mut rng);
            let dir = shapes::unit_vector(&mut rng);
            let Some(t0) = first_contact(k, r, dir, &mut setup)? else {
                continue;
            };
            for off in [0.25, 0.002, -0.05] {
                let p = pose_at(k, r, dir, t0 + off * s);
                let ans = mesh::distance(a, &id, a, &p, &mut setup).map_err(|e| e.to_string())?;
                poses.push((p, bucket_of(&ans, s)?, ans));
            }
        }
        // First query on a fresh mesh (lazy node hulls) against the same query warm.
        let fresh = TriMesh::new(v, f).map_err(|e| e.to_string())?;
        let near = poses
            .iter()
            .find(|p| p.1 == Bucket::Near)
            .or(poses.first())
            .map(|p| p.0)
            .ok_or("no poses")?;
        let mut c = SolidCache::default();
        let (first_ns, _) = time(|| mesh::distance(Solid::Mesh(&fresh), &id, Solid::Mesh(&fresh), &near, &mut c));
        let mut warm = Vec::new();
        for _ in 0..5 {
            warm.push(time(|| mesh::distance(Solid::Mesh(&fresh), &id, Solid::Mesh(&fresh), &near, &mut c)).0);
        }
        drop(fresh);
        build_t.row(vec![
            label.clone(),
            k.triangles().len().to_string(),
            k.pieces().len().to_string(),
            format!("{:.1}", m.build_ms),
            format!("{:.2}", m.parry_build_ms),
            format!("{:.2}", first_ns / 1e6),
            us(median(&mut warm)),
        ]);
        // Random poses, no coherence.
        let n = poses.len();
        let mut samples = vec![[Vec::new(), Vec::new(), Vec::new(), Vec::new()]; n];
        let mut ci = SolidCache::default();
        let mut cd = SolidCache::default();
        for _ in 0..reps {
            for (i, (p, bucket, ans)) in poses.iter().enumerate() {
                let pp = parry_pose(p);
                let (ns, r) = time(|| mesh::intersect(a, &id, a, p, &mut ci));
                let r = r.map_err(|e| e.to_string())?;
                samples[i][0].push(ns);
                let (ns, d) = time(|| mesh::distance(a, &id, a, p, &mut cd));
                let d = d.map_err(|e| e.to_string())?;
                samples[i][1].push(ns);
                let (ns, pi) = time(|| parry3d_f64::query::intersection_test(&pid, &m.parry, &pp, &m.parry));
                let pi = pi.map_err(|e| format!("parry: {e:?}"))?.intersecting;
                samples[i][2].push(ns);
                let (ns, pd) = time(|| {
                    let d = parry3d_f64::query::distance(&pid, &m.parry, &pp, &m.parry);
                    // For overlapping pairs polycd reports a depth too: parry's contact.
                    let c = (*bucket == Bucket::Overlapping)
                        .then(|| parry3d_f64::query::contact(&pid, &m.parry, &pp, &m.parry, 0.0));
                    (d, c)
                });
                samples[i][3].push(ns);
                let pd = pd.0.map_err(|e| format!("parry: {e:?}"))?.distance;
                let case = format!("{label}, pose {i}");
                // Node-pair caches warm-start EPA, so overlap depths may differ by rounding
                // from the untimed pass's (distances must be equal).
                let same = match (&d, ans) {
                    (MeshAnswer::Overlapping { .. }, MeshAnswer::Overlapping { .. }) => {
                        (d.signed_distance() - ans.signed_distance()).abs() <= 1e-12 * s
                    }
                    _ => d == *ans,
                };
                if !same {
                    ctx.disagree(
                        case.clone(),
                        POLYCD,
                        "its own untimed answer",
                        format!("{d:?} vs {ans:?}"),
                    );
                }
                let tol = polycd::mesh::contact_tolerance(k, &id, k, p).map_err(|e| e.to_string())?;
                if r.status(tol) != d.status(tol) && !(contained(&r) || contained(&d)) {
                    ctx.disagree(
                        case.clone(),
                        "polycd mesh::intersect",
                        "polycd mesh::distance",
                        format!("{r:?} vs {d:?}"),
                    );
                }
                let ours_overlap = matches!(d, MeshAnswer::Overlapping { .. });
                if pi != ours_overlap && !contained(&d) && d.signed_distance().abs() > tol {
                    ctx.disagree(
                        case.clone(),
                        PARRY,
                        POLYCD,
                        format!("parry intersects = {pi}, polycd {d:?}"),
                    );
                }
                if let MeshAnswer::Separated { distance, .. } = d {
                    if (pd - distance).abs() > PEER_AGREEMENT_REL * s {
                        ctx.disagree(case, PARRY, POLYCD, format!("parry distance {pd}, polycd {distance}"));
                    }
                }
            }
        }
        for (bucket, name) in BUCKETS {
            let idx: Vec<usize> = (0..n).filter(|&i| poses[i].1 == bucket).collect();
            if idx.is_empty() {
                continue;
            }
            let col = |c: usize, samples: &mut Vec<[Vec<f64>; 4]>| {
                let per: Vec<f64> = idx.iter().map(|&i| median(&mut samples[i][c])).collect();
                mean(&per)
            };
            let (oi, od, pi, pd) = (
                col(0, &mut samples),
                col(1, &mut samples),
                col(2, &mut samples),
                col(3, &mut samples),
            );
            t.row(vec![
                label.clone(),
                name.into(),
                idx.len().to_string(),
                us(oi),
                us(pi),
                ratio(pi / oi),
                us(od),
                us(pd),
                ratio(pd / od),
            ]);
            rows.push(vec![
                label.clone(),
                k.triangles().len().to_string(),
                name.split(' ').next().unwrap_or(name).into(),
                idx.len().to_string(),
                format!("{}", m.build_ms),
                format!("{}", m.parry_build_ms),
                format!("{oi}"),
                format!("{pi}"),
                format!("{od}"),
                format!("{pd}"),
            ]);
        }
        // Coherent sequence from the near pose.
        let axis = shapes::unit_vector(&mut rng);
        let side = axis.cross(DVec3::X).try_normalize().unwrap_or(DVec3::Y);
        let seq: Vec<Pose> = (0..*steps)
            .map(|i| {
                let th = i as f64 * std::f64::consts::TAU / *steps as f64;
                let turn = DQuat::from_axis_angle(axis, (0.5f64).to_radians() * (i as f64));
                let shift =
                    (side * th.sin() + axis * (1.0 - th.cos())) * (0.003 * s * *steps as f64 / std::f64::consts::TAU);
                Pose::new(turn * near.rotation, near.translation + shift)
            })
            .collect();
        let pseq: Vec<ParryPose> = seq.iter().map(parry_pose).collect();
        let mut timings = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
        let mut ci = SolidCache::default();
        let mut cd = SolidCache::default();
        for _ in 0..reps {
            timings[0].push(
                time(|| {
                    for p in &seq {
                        let _ = black_box(mesh::intersect(a, &id, a, p, &mut ci));
                    }
                })
                .0,
            );
            timings[1].push(
                time(|| {
                    for p in &seq {
                        let _ = black_box(mesh::distance(a, &id, a, p, &mut cd));
                    }
                })
                .0,
            );
            timings[2].push(
                time(|| {
                    for p in &pseq {
                        let _ = black_box(parry3d_f64::query::intersection_test(&pid, &m.parry, p, &m.parry));
                    }
                })
                .0,
            );
            timings[3].push(
                time(|| {
                    for p in &pseq {
                        let _ = black_box(parry3d_f64::query::distance(&pid, &m.parry, p, &m.parry));
                    }
                })
                .0,
            );
        }
        // Untimed pass: the warm answers equal cold ones (distances exactly; overlap depths,
        // which warm-started EPA may round differently, within 1e-12 × scale).
        for (i, p) in seq.iter().enumerate() {
            let w = mesh::distance(a, &id, a, p, &mut cd).map_err(|e| e.to_string())?;
            let c = mesh::distance(a, &id, a, p, &mut SolidCache::default()).map_err(|e| e.to_string())?;
            let same = match (&w, &c) {
                (MeshAnswer::Separated { .. }, MeshAnswer::Separated { .. }) => w == c,
                (MeshAnswer::Overlapping { .. }, MeshAnswer::Overlapping { .. }) => {
                    (w.signed_distance() - c.signed_distance()).abs() <= 1e-12 * s
                }
                _ => false,
            };
            if !same {
                ctx.disagree(
                    format!("{label}, step {i}"),
                    "polycd mesh::distance warm",
                    "cold",
                    format!("{w:?} vs {c:?}"),
                );
            }
        }
        let per = |v: &mut Vec<f64>| median(v) / *steps as f64;
        let [mut t0, mut t1, mut t2, mut t3] = timings;
        let (oi, od, pi, pd) = (per(&mut t0), per(&mut t1), per(&mut t2), per(&mut t3));
        coh.row(vec![
            label.clone(),
            steps.to_string(),
            us(oi),
            us(pi),
            ratio(pi / oi),
            us(od),
            us(pd),
            ratio(pd / od),
        ]);
        rows.push(vec![
            label.clone(),
            k.triangles().len().to_string(),
            "coherent".into(),
            steps.to_string(),
            format!("{}", m.build_ms),
            format!("{}", m.parry_build_ms),
            format!("{oi}"),
            format!("{pi}"),
            format!("{od}"),
            format!("{pd}"),
        ]);
    }
    ctx.table.push_str(&build_t.render());
    ctx.table.push_str(&t.render());
    ctx.table
        .push_str("-- coherent sequence (small turn + translation per step), µs per step --\n");
    ctx.table.push_str(&coh.render());
    csv_out(
        ctx,
        "mesh.csv",
        &[
            "mesh",
            "triangles",
            "bucket",
            "poses",
            "polycd_build_ms",
            "parry_build_ms",
            "polycd_intersect_ns",
            "parry_intersect_ns",
            "polycd_distance_ns",
            "parry_distance_ns",
        ],
        &rows,
    )
}
