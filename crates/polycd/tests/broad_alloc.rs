//! The many-body world allocates nothing per frame in steady state. Same counting allocator as
//! `tests/alloc.rs` (`tests/counting`: counts only on the thread that switched it on); one
//! `#[test]` in this file.
//!
//! 120 bodies (boxes, icosahedra, ellipsoid hulls) oscillate in a box on periodic paths (every
//! body returns to its start pose after `PERIOD` frames) with V-Clip distance on the
//! candidates: pairs enter and leave the candidate set every frame. After two warm-up periods
//! (the containers reach their working sizes), a third period must not allocate: pose
//! updates, box climbs, the sweep with its pair insertions and removals, the per-pair caches
//! (recycled) and the narrow phase. Overlapping pairs are kept out of the scene on purpose:
//! V-Clip's penetration depth comes from EPA, whose scratch growth is a known exception of
//! `tests/alloc.rs`; bodies here come close (well within their margins) but do not touch.
//! A teleport frame (the rebuild path) is then measured too, and a period on the grid path.

use polycd::broad::{World, WorldOptions};
use polycd::{shapes, DQuat, DVec3, Pose};
use std::sync::Arc;

mod counting;
use counting::count;

#[global_allocator]
static GLOBAL: counting::Counting = counting::Counting;

const PERIOD: usize = 64;

#[test]
fn world_frames_do_not_allocate() {
    let pool = [
        Arc::new(shapes::cuboid(0.5, 0.5, 0.5).unwrap()),
        Arc::new(shapes::icosahedron(0.35).unwrap()),
        Arc::new(shapes::ellipsoid(60, 0.4, 0.25, 0.2, 1).unwrap()),
    ];
    let mut world = World::new(WorldOptions::default());
    // Bodies on a 5 × 5 × 5 lattice of spacing 1.9 (bounding radius ≤ 0.44, offsets ≤ 0.5: never touching), each
    // circling about its lattice point with radius 0.35 and turning: neighbours' boxes
    // (margin 0.3) overlap and separate as they go.
    let mut bodies = Vec::new();
    for i in 0..120usize {
        let c = DVec3::new((i % 5) as f64, ((i / 5) % 5) as f64, (i / 25) as f64) * 1.9;
        let h = world.insert(pool[i % 3].clone(), Pose::from_translation(c)).unwrap();
        world.set_margin(h, 0.3).unwrap();
        bodies.push((h, c, 2.4 * i as f64));
    }
    let pose_at = |c: DVec3, phase: f64, f: usize| {
        let a = std::f64::consts::TAU * (f % PERIOD) as f64 / PERIOD as f64 + phase;
        let off = DVec3::new(a.cos(), a.sin(), (2.0 * a).sin()) * 0.35;
        Pose::new(DQuat::from_rotation_y(a) * DQuat::from_rotation_x(phase), c + off)
    };
    let frame = |world: &mut World, f: usize| {
        for &(h, c, phase) in &bodies {
            world.set_pose(h, pose_at(c, phase, f)).unwrap();
        }
        world.update().unwrap()
    };
    let mut churn = 0;
    for f in 0..2 * PERIOD {
        let st = frame(&mut world, f);
        churn += st.sweep.added + st.sweep.removed;
        assert!(world.contacts().next().is_none(), "bodies must not touch");
    }
    assert!(
        churn > 100,
        "the scene must exercise pair insertion and removal ({churn})"
    );
    let n = count(|| {
        for f in 2 * PERIOD..3 * PERIOD {
            frame(&mut world, f);
        }
    });
    assert_eq!(n, 0, "steady-state frames allocated {n} times");
    // Everything jumps (a permutation of the lattice): the rebuild path, twice to warm up.
    let jump = |world: &mut World, k: usize| {
        for (i, &(h, _, phase)) in bodies.iter().enumerate() {
            let j = (i * 7 + k) % 120;
            let c = DVec3::new((j % 5) as f64, ((j / 5) % 5) as f64, (j / 24) as f64) * 1.9;
            world.set_pose(h, pose_at(c, phase, 0)).unwrap();
        }
        world.update().unwrap()
    };
    for k in 0..4 {
        jump(&mut world, k);
    }
    counting::set_trace(std::env::var("POLYCD_ALLOC_TRACE").is_ok());
    let n = count(|| {
        for k in 0..4 {
            let st = jump(&mut world, k);
            assert!(st.sweep.rebuilt);
        }
    });
    assert_eq!(n, 0, "rebuild frames allocated {n} times");
    // The grid path (from `GRID_MIN_BOXES` bodies on; here forced): two periods to warm up,
    // then a third must not allocate either.
    world.set_grid_threshold(0);
    for f in 0..2 * PERIOD {
        frame(&mut world, f);
    }
    let n = count(|| {
        for f in 2 * PERIOD..3 * PERIOD {
            let st = frame(&mut world, f);
            assert_eq!(st.sweep.swaps, 0, "the grid path makes no exchanges");
        }
    });
    assert_eq!(n, 0, "grid frames allocated {n} times");
}
