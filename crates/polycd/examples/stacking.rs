//! Stacking on contact manifolds: a tower of 10 boxes and a pyramid of 20 on a static ground,
//! simulated for 10 s (dt = 1/60, 40 velocity and 40 position iterations) by the small sequential-impulse
//! solver in `shared/stack_solver.rs`, each pair's contact points from
//! `query::contact_manifold` (speculative margin, reduced to 4, a `ManifoldCache` per pair
//! whose point ids carry the accumulated impulses from step to step).
//!
//! Run: `cargo run -p polycd --release --example stacking`

#[path = "shared/stack_solver.rs"]
mod stack_solver;

use stack_solver::{scene, BOX};

fn main() -> Result<(), polycd::PolycdError> {
    let mut s = scene()?;
    let dt = 1.0 / 60.0;
    let steps = 600;
    let start: Vec<_> = s.world.bodies.iter().map(|b| b.pos).collect();
    let top = s.tower.end - 1;
    let apex = s.pyramid.end - 1;
    println!("time   contacts   tower top (x, y, z)            pyramid top (x, y, z)");
    for step in 1..=steps {
        s.world.step(dt)?;
        if step % 60 == 0 {
            let (t, p) = (s.world.bodies[top].pos, s.world.bodies[apex].pos);
            println!(
                "{:4.1} s {:8}   ({:+.5}, {:+.5}, {:.5})   ({:+.5}, {:+.5}, {:.5})",
                step as f64 * dt,
                s.world.contact_count(),
                t.x,
                t.y,
                t.z,
                p.x,
                p.y,
                p.z
            );
        }
    }
    let drift = |k: usize| s.world.bodies[k].pos - start[k];
    let worst = (1..s.world.bodies.len()).map(|k| drift(k).length()).fold(0.0, f64::max);
    for (name, k) in [("tower top", top), ("pyramid top", apex)] {
        let d = drift(k);
        println!(
            "{name}: drift after 10 s: horizontal {:.2e}, vertical {:.2e} (box size {BOX})",
            d.truncate().length(),
            d.z
        );
    }
    println!("largest displacement of any box: {worst:.2e}");
    Ok(())
}
