//! Profiling harness for the broad phase against parry3d's BVH (issue 27 item 4), for callgrind:
//!
//! ```sh
//! cargo build --release -p polycd-bench --example broad_peer_profile
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/bp.out \
//!     target/release/examples/broad_peer_profile N FRAMES DENSITY [GRID_MIN]
//! callgrind_annotate --inclusive=yes /tmp/bp.out | grep 'broad_peer_profile::'
//! ```
//!
//! The scene of `bench many-body` (`polycd_bench::many_body_scene`: the same seven shapes, the
//! same motion: each body moves by at most 0.05 and turns by at most 2° a frame, bouncing off
//! the walls of a cube whose volume makes the bodies' summed volume `DENSITY` of it), built
//! before anything is measured. Each timed frame runs four phases, each its own non-inlined
//! function so that callgrind's inclusive counts separate them:
//! - `polycd_poses`: `World::set_pose` for every body (its box: one vertex pass for hulls up to
//!   32 vertices, six warm support climbs beyond);
//! - `polycd_pairs`: `World::update_broad_phase` (the grid from `GRID_MIN` bodies, default
//!   `polycd::broad::GRID_MIN_BOXES`, the incremental sweep below);
//! - `parry_boxes`: `ConvexPolyhedron::aabb` + `Bvh::insert_or_update_partially` for every body;
//! - `parry_pairs`: `Bvh::refit`, `optimize_incremental`, `traverse_bvtt_single_tree` (as
//!   `bench many-body`'s `parry3d BVH` method and rapier use it).
//!
//! With `POLYCD_NARROW=1` two more phases run per frame, the narrow phase of `bench
//! many-body`'s `∩` columns on one thread (to split a frame's cost between broad and narrow
//! phase): `polycd_narrow` (`World::update_narrow_phase`, GJK's boolean test on every candidate,
//! `set_parallel(false)`) and `parry_narrow` (`intersection_test` on every parry pair); the
//! numbers of overlapping pairs must agree.
//!
//! Every frame checks that polycd's candidate count equals parry's pair count (both are the
//! overlapping boxes; their boxes are the same hulls' exact boxes) and prints the sums so the
//! work is not optimised away; `POLYCD_CHECK=1` also checks polycd's candidates against the
//! broad phase's oracle every frame.

use parry3d_f64::bounding_volume::Aabb as ParryAabb;
use parry3d_f64::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use polycd::broad::{BodyHandle, PairQuery, World, WorldOptions};
use polycd::query::Status;
use polycd::Algorithm;
use polycd_bench::{many_body_pool, many_body_scene, Body, ManyBodyScene, Placement};
use std::sync::Arc;

type Pool = Vec<(Body, Arc<polycd::ConvexPolyhedron>)>;

fn fail(msg: &str) -> ! {
    eprintln!("broad_peer_profile: {msg}");
    std::process::exit(1)
}

#[inline(never)]
fn polycd_poses(w: &mut World, handles: &[BodyHandle], frame: &[Placement]) {
    for (h, p) in handles.iter().zip(frame) {
        if let Err(e) = w.set_pose(*h, p.pose) {
            fail(&e.to_string());
        }
    }
}

#[inline(never)]
fn polycd_pairs(w: &mut World) -> usize {
    w.update_broad_phase();
    w.broad_phase().candidate_count()
}

#[inline(never)]
fn parry_boxes(bvh: &mut Bvh, pool: &Pool, shape: &[usize], frame: &[Placement]) {
    for (i, p) in frame.iter().enumerate() {
        bvh.insert_or_update_partially(pool[shape[i]].0.parry.aabb(&p.parry), i as u32, 0.0);
    }
}

#[inline(never)]
fn parry_pairs(bvh: &mut Bvh, ws: &mut BvhWorkspace, pairs: &mut Vec<(u32, u32)>) -> usize {
    bvh.refit(ws);
    bvh.optimize_incremental(ws);
    pairs.clear();
    bvh.traverse_bvtt_single_tree::<false>(ws, &mut |a, b| pairs.push((a.min(b), a.max(b))));
    pairs.len()
}

#[inline(never)]
fn polycd_narrow(w: &mut World) -> usize {
    if let Err(e) = w.update_narrow_phase() {
        fail(&e.to_string());
    }
    w.pairs().filter(|p| p.status != Status::Disjoint).count()
}

#[inline(never)]
fn parry_narrow(pool: &Pool, shape: &[usize], frame: &[Placement], pairs: &[(u32, u32)]) -> usize {
    let mut hits = 0;
    for &(a, b) in pairs {
        let (a, b) = (a as usize, b as usize);
        let (sa, sb) = (&pool[shape[a]].0.parry, &pool[shape[b]].0.parry);
        if parry3d_f64::query::intersection_test(&frame[a].parry, sa, &frame[b].parry, sb).is_ok_and(|r| r.intersecting)
        {
            hits += 1;
        }
    }
    hits
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let frame_count: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    let density: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0.05);
    let grid_min: Option<usize> = args.get(4).and_then(|s| s.parse().ok());
    let check = std::env::var("POLYCD_CHECK").is_ok_and(|v| v == "1");
    let narrow = std::env::var("POLYCD_NARROW").is_ok_and(|v| v == "1");

    let pool: Pool = many_body_pool().unwrap_or_else(|e| fail(&e));
    let seed = 7000 + n as u64 + (density * 1e3) as u64;
    let ManyBodyScene { shape, frames } = many_body_scene(&pool, n, density, frame_count + 1, seed);

    let options = if narrow {
        WorldOptions::default()
            .with_algorithm(Algorithm::Gjk)
            .with_query(PairQuery::Intersect)
    } else {
        WorldOptions::default()
    };
    let mut w = World::new(options);
    w.set_parallel(false);
    if let Some(g) = grid_min {
        w.set_grid_threshold(g);
    }
    for (i, &s) in shape.iter().enumerate() {
        if let Err(e) = w.insert(pool[s].1.clone(), frames[0][i].pose) {
            fail(&e.to_string());
        }
    }
    w.update_broad_phase();
    let handles: Vec<BodyHandle> = w.handles().collect();

    let boxes: Vec<ParryAabb> = (0..n)
        .map(|i| pool[shape[i]].0.parry.aabb(&frames[0][i].parry))
        .collect();
    let mut bvh = Bvh::from_leaves(BvhBuildStrategy::default(), &boxes);
    let mut ws = BvhWorkspace::default();
    let mut pairs: Vec<(u32, u32)> = Vec::new();

    let (mut ours, mut theirs) = (0usize, 0usize);
    for (f, frame) in frames.iter().enumerate().skip(1) {
        polycd_poses(&mut w, &handles, frame);
        let c = polycd_pairs(&mut w);
        parry_boxes(&mut bvh, &pool, &shape, frame);
        let p = parry_pairs(&mut bvh, &mut ws, &mut pairs);
        if c != p {
            fail(&format!("frame {f}: {c} polycd candidates, {p} parry pairs"));
        }
        if narrow {
            let (x, y) = (polycd_narrow(&mut w), parry_narrow(&pool, &shape, frame, &pairs));
            if x != y {
                fail(&format!("frame {f}: {x} polycd contacts, {y} parry intersections"));
            }
        }
        if check {
            if let Err(e) = w.broad_phase().check_invariants() {
                fail(&format!("frame {f}: {e}"));
            }
        }
        ours += c;
        theirs += p;
    }
    println!("n {n} frames {frame_count} density {density}: candidates {ours} parry pairs {theirs}");
}
