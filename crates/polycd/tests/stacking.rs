//! Issue 25 item 5: the stacking example's solver (`examples/shared/stack_solver.rs`, a small
//! sequential-impulse solver on `query::contact_manifold`) keeps a tower of 10 unit boxes and
//! a pyramid of 20 standing for 10 s of simulated time (dt = 1/60).
//!
//! Bounds (box size 1): the tower's and the pyramid's top boxes drift by less than 0.02
//! horizontally and 0.01 vertically from where they were placed (measured on this solver:
//! 8.7e-3 and 3.3e-3 for the tower, 3.4e-4 and 1.3e-4 for the pyramid; the vertical part is
//! mostly the ten contacts' resting penetration, `SLOP` each), and no box moved by more than
//! 0.02 (none fell: every box stays within that of its rest position and height).

#[path = "../examples/shared/stack_solver.rs"]
#[allow(dead_code)]
mod stack_solver;

use stack_solver::scene;

#[test]
fn tower_of_10_and_pyramid_of_20_stand_for_10_seconds() {
    let mut s = scene().unwrap();
    let start: Vec<_> = s.world.bodies.iter().map(|b| b.pos).collect();
    let mut most = 0;
    for _ in 0..600 {
        s.world.step(1.0 / 60.0).unwrap();
        most = most.max(s.world.contact_count());
    }
    // Every resting contact is solved: 10 tower pairs, 6 boxes on the ground, 2 boxes under
    // each of the 14 upper pyramid boxes, 4 points each.
    assert!(most >= 4 * (10 + 6 + 2 * 14), "{most} contact points");
    for (name, k) in [("tower", s.tower.end - 1), ("pyramid", s.pyramid.end - 1)] {
        let d = s.world.bodies[k].pos - start[k];
        let (h, v) = (d.truncate().length(), d.z.abs());
        eprintln!("{name} top: horizontal drift {h:.2e}, vertical {v:.2e}");
        assert!(h < 0.02, "{name} top drifted {h} horizontally");
        assert!(v < 0.01, "{name} top drifted {v} vertically");
    }
    for (k, (body, p0)) in s.world.bodies.iter().zip(&start).enumerate().skip(1) {
        let d = (body.pos - *p0).length();
        assert!(d < 0.02, "box {k} moved by {d}: it fell");
        let up = body.rot * polycd::DVec3::Z;
        assert!(up.z > 0.999, "box {k} tipped: its up axis is {up}");
    }
}
