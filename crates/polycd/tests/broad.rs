//! The many-body broad phase (`polycd::broad`) against brute force.
//!
//! Every frame of seeded random scenes (50–300 convex bodies of varied shapes and sizes moving
//! and turning in a box, bouncing off its walls, some inserted and removed on the way):
//! - `check_invariants`: end-point lists sorted and holding each box's current bounds; the
//!   candidate set equal to the O(n²) set of overlapping boxes (the same boxes);
//! - every box contains the body's exact vertex box (every vertex transformed by the pose)
//!   and exceeds it by no more than the pad and the margin: the candidate set is a superset of
//!   the pairs whose exact boxes overlap, hence of every touching or overlapping pair;
//! - on some frames, every candidate's narrow-phase answer against the brute-force oracle
//!   (`polycd::oracle`), and every pair within the margins found by `within`.
//!
//! Then the adversarial cases: touching boxes with identical coordinates (the swap rule on
//! equal keys), all bodies at one point, teleports (incremental and the rebuild), tiny and huge
//! scales, far from the origin, bad poses, stale handles, determinism. Larger runs are
//! `#[ignore]`d.

use polycd::broad::{Aabb, BodyHandle, PairAnswer, PairData, PairQuery, SweepAndPrune, World, WorldOptions};
use polycd::query::{self, Algorithm, Distance, Status};
use polycd::tolerance::AABB_PAD_REL;
use polycd::{oracle, shapes, ConvexPolyhedron, DQuat, DVec3, PolycdError, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// A pool of shapes at length scale `s` (radii 0.3 s … 1.5 s).
fn shape_pool(s: f64, seed: u64) -> Vec<Arc<ConvexPolyhedron>> {
    let mut v = vec![
        shapes::cuboid(1.0 * s, 1.0 * s, 1.0 * s).unwrap(),
        shapes::cuboid(2.0 * s, 0.4 * s, 0.7 * s).unwrap(),
        shapes::icosahedron(0.6 * s).unwrap(),
        shapes::tetrahedron(0.8 * s).unwrap(),
        shapes::octahedron(0.5 * s).unwrap(),
        shapes::icosphere(1, 0.9 * s).unwrap(),
    ];
    for k in 0..3 {
        v.push(shapes::ellipsoid(40 + 30 * k, 1.2 * s, 0.6 * s, 0.4 * s, seed + k as u64).unwrap());
    }
    v.into_iter().map(Arc::new).collect()
}

/// One moving body of a scene.
struct Mover {
    h: BodyHandle,
    pos: DVec3,
    rot: DQuat,
    vel: DVec3,
    spin: DQuat,
}

/// Bodies moving coherently in the box `[0, side]³` (scaled by `s`, shifted by `origin`).
struct Scene {
    world: World,
    movers: Vec<Mover>,
    pool: Vec<Arc<ConvexPolyhedron>>,
    rng: ChaCha8Rng,
    side: f64,
    s: f64,
    origin: DVec3,
}

impl Scene {
    fn new(n: usize, s: f64, origin: DVec3, seed: u64, options: WorldOptions) -> Scene {
        // About one body per 6 s³: plenty of contacts and near misses.
        let side = (6.0 * n as f64).cbrt() * s;
        let mut sc = Scene {
            world: World::new(options),
            movers: Vec::new(),
            pool: shape_pool(s, seed),
            rng: ChaCha8Rng::seed_from_u64(seed),
            side,
            s,
            origin,
        };
        for _ in 0..n {
            sc.add();
        }
        sc
    }

    fn add(&mut self) {
        let shape = self.pool[self.rng.random_range(0..self.pool.len())].clone();
        let pos = DVec3::new(
            self.rng.random_range(0.0..self.side),
            self.rng.random_range(0.0..self.side),
            self.rng.random_range(0.0..self.side),
        );
        let rot = shapes::random_rotation(&mut self.rng);
        let vel = shapes::unit_vector(&mut self.rng) * self.rng.random_range(0.0..0.08) * self.s;
        let axis = shapes::unit_vector(&mut self.rng);
        let spin = DQuat::from_axis_angle(axis, self.rng.random_range(0.0..0.05));
        let h = self.world.insert(shape, Pose::new(rot, pos + self.origin)).unwrap();
        self.movers.push(Mover { h, pos, rot, vel, spin });
    }

    fn step(&mut self) {
        for m in &mut self.movers {
            m.pos += m.vel;
            for k in 0..3 {
                if m.pos[k] < 0.0 || m.pos[k] > self.side {
                    m.vel[k] = -m.vel[k];
                }
            }
            m.rot = (m.spin * m.rot).normalize();
            self.world.set_pose(m.h, Pose::new(m.rot, m.pos + self.origin)).unwrap();
        }
    }
}

/// The exact box of a body: every vertex through the pose.
fn vertex_box(shape: &ConvexPolyhedron, pose: &Pose) -> Aabb {
    let mut b = Aabb {
        min: DVec3::splat(f64::INFINITY),
        max: DVec3::splat(f64::NEG_INFINITY),
    };
    for &v in shape.vertices() {
        let p = pose.transform_point(v);
        b.min = b.min.min(p);
        b.max = b.max.max(p);
    }
    b
}

/// Invariants, containment and tightness of the boxes, superset of the exact-box overlaps.
fn check_broad(world: &World, margins: &dyn Fn(BodyHandle) -> f64) {
    world.broad_phase().check_invariants().unwrap();
    let hs: Vec<BodyHandle> = world.handles().collect();
    let mut exact = Vec::with_capacity(hs.len());
    for &h in &hs {
        let (shape, pose) = (world.shape(h).unwrap(), world.pose(h).unwrap());
        let e = vertex_box(shape, &pose);
        let b = world.aabb(h).unwrap();
        let pad = AABB_PAD_REL * (shape.scale() + shape.magnitude() + pose.translation.abs().max_element());
        let m = margins(h);
        assert!(
            b.min.cmple(e.min - DVec3::splat(m)).all() && b.max.cmpge(e.max + DVec3::splat(m)).all(),
            "box {b:?} does not contain the exact box {e:?} grown by margin {m}"
        );
        // Tight: the support climbs find the extreme vertices (a few ulps off at most).
        let slack = DVec3::splat(2.0 * pad + m);
        assert!(
            b.min.cmpge(e.min - slack).all() && b.max.cmple(e.max + slack).all(),
            "box {b:?} much looser than {e:?}"
        );
        exact.push(e);
    }
    let cand: std::collections::HashSet<(u32, u32)> = world.broad_phase().pairs().collect();
    for i in 0..hs.len() {
        for j in i + 1..hs.len() {
            if exact[i].overlaps(&exact[j]) {
                let key = (hs[i].index().min(hs[j].index()), hs[i].index().max(hs[j].index()));
                assert!(
                    cand.contains(&key),
                    "exact boxes of {key:?} overlap but not a candidate"
                );
            }
        }
    }
}

/// Every candidate's answer against the oracle; `within(d)` against the oracle on every pair
/// (when `d > 0`, with every margin `d / 2`).
fn check_narrow(world: &World, d: f64) {
    let scale_of = |a: BodyHandle, b: BodyHandle| {
        query::pair_scale(
            world.shape(a).unwrap(),
            &world.pose(a).unwrap(),
            world.shape(b).unwrap(),
            &world.pose(b).unwrap(),
        )
    };
    let mut answered = 0;
    for p in world.pairs() {
        assert!(p.a < p.b);
        let (sa, sb) = (world.shape(p.a).unwrap(), world.shape(p.b).unwrap());
        let (pa, pb) = (world.pose(p.a).unwrap(), world.pose(p.b).unwrap());
        let truth = oracle::signed_distance(sa, &pa, sb, &pb).unwrap().signed_distance;
        let tol = 1e-9 * scale_of(p.a, p.b);
        match p.answer {
            PairAnswer::Distance(Distance::NotConverged { .. }) => panic!("not converged"),
            PairAnswer::Distance(_) => {
                let got = p.signed_distance().expect("distance or depth");
                assert!((got - truth).abs() <= tol, "{got} vs oracle {truth} (pair {p:?})");
            }
            PairAnswer::Intersection(i) => {
                let touching = truth.abs() <= tol;
                if !touching {
                    let want = if truth < 0.0 {
                        Status::Overlapping
                    } else {
                        Status::Disjoint
                    };
                    assert_eq!(i.status(), want, "oracle {truth}");
                }
            }
            other => panic!("a variant this test does not know: {other:?}"),
        }
        answered += 1;
    }
    assert_eq!(answered, world.broad_phase().candidate_count());
    if d > 0.0 {
        let listed: std::collections::HashSet<(BodyHandle, BodyHandle)> = world.within(d).map(|p| (p.a, p.b)).collect();
        let hs: Vec<BodyHandle> = world.handles().collect();
        for i in 0..hs.len() {
            for j in i + 1..hs.len() {
                let (a, b) = (hs[i], hs[j]);
                let (sa, sb) = (world.shape(a).unwrap(), world.shape(b).unwrap());
                let (pa, pb) = (world.pose(a).unwrap(), world.pose(b).unwrap());
                // Cheap reject first: the oracle is quadratic in the vertex counts.
                if !vertex_box(sa, &pa).overlaps(&grow(vertex_box(sb, &pb), d)) {
                    assert!(!listed.contains(&(a, b)));
                    continue;
                }
                let truth = oracle::signed_distance(sa, &pa, sb, &pb).unwrap().signed_distance;
                let tol = 1e-9 * scale_of(a, b);
                if truth <= d - tol {
                    assert!(listed.contains(&(a, b)), "{a:?} {b:?} at {truth} ≤ {d} not listed");
                } else if truth > d + tol {
                    assert!(!listed.contains(&(a, b)), "{a:?} {b:?} at {truth} > {d} listed");
                }
            }
        }
    }
}

fn grow(b: Aabb, d: f64) -> Aabb {
    Aabb {
        min: b.min - DVec3::splat(d),
        max: b.max + DVec3::splat(d),
    }
}

/// A random scene run: `frames` frames, broad-phase checks every frame, narrow-phase checks
/// every `narrow_every` frames, random insertions and removals when `churn`.
fn run_scene(n: usize, frames: usize, s: f64, origin: DVec3, seed: u64, options: WorldOptions, churn: bool) -> usize {
    run_scene_grid(n, frames, s, origin, seed, options, churn, usize::MAX)
}

/// [`run_scene`] with the broad phase's grid from `grid` bodies on (`World::set_grid_threshold`).
#[allow(clippy::too_many_arguments)]
fn run_scene_grid(
    n: usize,
    frames: usize,
    s: f64,
    origin: DVec3,
    seed: u64,
    options: WorldOptions,
    churn: bool,
    grid: usize,
) -> usize {
    let mut sc = Scene::new(n, s, origin, seed, options);
    sc.world.set_grid_threshold(grid);
    let mut contacts = 0;
    for f in 0..frames {
        sc.step();
        if churn && f % 7 == 3 {
            let k = sc.rng.random_range(0..sc.movers.len());
            let m = sc.movers.swap_remove(k);
            assert!(sc.world.remove(m.h));
            assert!(!sc.world.remove(m.h), "a removed handle is stale");
            assert!(sc.world.set_pose(m.h, Pose::IDENTITY).is_err());
            sc.add();
            if f % 21 == 3 {
                sc.add();
            }
        }
        sc.world.update().unwrap();
        check_broad(&sc.world, &|_| 0.0);
        if f % 25 == 0 {
            check_narrow(&sc.world, 0.0);
        }
        contacts += sc.world.contacts().count();
    }
    contacts
}

#[test]
fn random_scenes_match_brute_force() {
    let contacts = run_scene(60, 150, 1.0, DVec3::ZERO, 1, WorldOptions::default(), false);
    // The scene is dense enough to be a test of something.
    assert!(contacts > 150, "only {contacts} contacts over 150 frames");
    let gjk = WorldOptions::default()
        .with_algorithm(Algorithm::Gjk)
        .with_query(PairQuery::Distance);
    run_scene(50, 100, 1.0, DVec3::ZERO, 2, gjk, true);
    let boolean = WorldOptions::default()
        .with_algorithm(Algorithm::Gjk)
        .with_query(PairQuery::Intersect);
    run_scene(50, 100, 1.0, DVec3::ZERO, 3, boolean, true);
}

#[test]
fn tiny_huge_and_far_scenes() {
    run_scene(50, 60, 1e-6, DVec3::ZERO, 4, WorldOptions::default(), true);
    run_scene(50, 60, 1e6, DVec3::ZERO, 5, WorldOptions::default(), true);
    run_scene(
        50,
        60,
        1.0,
        DVec3::new(1e6, -2e6, 3e6),
        6,
        WorldOptions::default(),
        false,
    );
    run_scene(50, 60, 1e-6, DVec3::splat(1.0), 7, WorldOptions::default(), false);
}

#[test]
fn within_distance_uses_margins() {
    let d = 0.4;
    let mut sc = Scene::new(50, 1.0, DVec3::ZERO, 8, WorldOptions::default());
    for m in &sc.movers {
        sc.world.set_margin(m.h, d / 2.0).unwrap();
    }
    for f in 0..40 {
        sc.step();
        sc.world.update().unwrap();
        check_broad(&sc.world, &|_| d / 2.0);
        if f % 10 == 0 {
            check_narrow(&sc.world, d);
        }
    }
    assert!(sc.world.set_margin(sc.movers[0].h, -1.0).is_err());
    assert!(sc.world.set_margin(sc.movers[0].h, f64::NAN).is_err());
}

#[test]
#[ignore = "large: 300 bodies × 1 000 frames, a few minutes"]
fn large_random_scenes() {
    run_scene(300, 1000, 1.0, DVec3::ZERO, 11, WorldOptions::default(), true);
    run_scene(200, 500, 1e-6, DVec3::splat(1e-3), 12, WorldOptions::default(), true);
    run_scene(200, 500, 1e6, DVec3::splat(1e8), 13, WorldOptions::default(), true);
    let gjk = WorldOptions::default()
        .with_algorithm(Algorithm::Gjk)
        .with_query(PairQuery::Distance);
    run_scene(300, 500, 1.0, DVec3::ZERO, 14, gjk, true);
}

fn bx(min: [f64; 3], max: [f64; 3]) -> Aabb {
    Aabb {
        min: DVec3::from_array(min),
        max: DVec3::from_array(max),
    }
}

#[test]
fn equal_end_points_overlap() {
    let mut sap: SweepAndPrune = SweepAndPrune::new();
    sap.insert(0, bx([0.0; 3], [1.0; 3])).unwrap();
    // Face-touching, edge-touching, corner-touching, identical, and a point box on a corner.
    sap.insert(1, bx([1.0, 0.0, 0.0], [2.0, 1.0, 1.0])).unwrap();
    sap.insert(2, bx([1.0, 1.0, 0.0], [2.0, 2.0, 1.0])).unwrap();
    sap.insert(3, bx([1.0; 3], [2.0; 3])).unwrap();
    sap.insert(4, bx([0.0; 3], [1.0; 3])).unwrap();
    sap.insert(5, bx([-1.0; 3], [-1.0; 3])).unwrap();
    sap.insert(6, bx([-1.0; 3], [-1.0; 3])).unwrap();
    sap.update();
    sap.check_invariants().unwrap();
    let pairs: Vec<(u32, u32)> = sap.pairs().collect();
    let want = vec![
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
        (5, 6),
    ];
    assert_eq!(pairs, want);
    // Box 1 moves away by one ulp, then back to touching, then into overlap, then to touching
    // again from the other side: each change crosses an equal key.
    let up = 1.0f64.next_up();
    let moves = [
        (bx([up, 0.0, 0.0], [2.0, 1.0, 1.0]), false),
        (bx([1.0, 0.0, 0.0], [2.0, 1.0, 1.0]), true),
        (bx([0.5, 0.0, 0.0], [1.5, 1.0, 1.0]), true),
        (bx([-1.0, 0.0, 0.0], [0.0, 1.0, 1.0]), true),
        (bx([-1.0, 0.0, 0.0], [0.0f64.next_down(), 1.0, 1.0]), false),
        (bx([-1.0, 0.0, 0.0], [-0.0, 1.0, 1.0]), true),
        (bx([1.0, 1.0, 1.0], [1.0, 1.0, 1.0]), true),
    ];
    for (k, (b, touching)) in moves.into_iter().enumerate() {
        sap.set_aabb(1, b).unwrap();
        sap.update();
        sap.check_invariants().unwrap_or_else(|e| panic!("move {k}: {e}"));
        assert_eq!(sap.pair_data(0, 1).is_some(), touching, "move {k}");
    }
    // Many point boxes at one point, then spread, then back.
    let mut sap: SweepAndPrune = SweepAndPrune::new();
    for i in 0..40 {
        sap.insert(i, bx([3.0; 3], [3.0; 3])).unwrap();
    }
    sap.update();
    sap.check_invariants().unwrap();
    assert_eq!(sap.candidate_count(), 40 * 39 / 2);
    for i in 0..40 {
        let x = 3.0 + f64::from(i % 5);
        sap.set_aabb(i, bx([x, 3.0, 3.0], [x, 3.0, 3.0])).unwrap();
    }
    sap.update();
    sap.check_invariants().unwrap();
    assert_eq!(sap.candidate_count(), 5 * (8 * 7 / 2));
}

#[test]
fn bad_boxes_are_errors() {
    let mut sap: SweepAndPrune = SweepAndPrune::new();
    assert!(sap.insert(0, bx([1.0, 0.0, 0.0], [0.0, 1.0, 1.0])).is_err());
    assert!(sap.insert(0, bx([f64::NAN, 0.0, 0.0], [1.0; 3])).is_err());
    assert!(sap.insert(0, bx([0.0; 3], [f64::INFINITY, 1.0, 1.0])).is_err());
    assert!(sap.is_empty());
    sap.insert(0, bx([0.0; 3], [1.0; 3])).unwrap();
    assert!(sap.insert(0, bx([0.0; 3], [1.0; 3])).is_err(), "id in use");
    assert!(sap.set_aabb(0, bx([0.0; 3], [-1.0; 3])).is_err());
    assert!(sap.set_aabb(7, bx([0.0; 3], [1.0; 3])).is_err(), "no such id");
    assert_eq!(sap.aabb(0), Some(bx([0.0; 3], [1.0; 3])));
    sap.update();
    sap.check_invariants().unwrap();
}

#[test]
fn stacked_cubes_touch() {
    // A 4 × 4 × 4 stack of unit cubes at integer positions: neighbours share faces, edges or
    // corners with identical coordinates; every neighbour pair touches, nothing overlaps.
    let cube = Arc::new(shapes::cuboid(1.0, 1.0, 1.0).unwrap());
    let mut world = World::default();
    let mut at = Vec::new();
    for x in 0..4 {
        for y in 0..4 {
            for z in 0..4 {
                let p = DVec3::new(f64::from(x), f64::from(y), f64::from(z));
                at.push((world.insert(cube.clone(), Pose::from_translation(p)).unwrap(), p));
            }
        }
    }
    // A duplicate of one cube, identical pose: overlapping.
    let dup = world.insert(cube.clone(), Pose::from_translation(DVec3::ONE)).unwrap();
    world.update().unwrap();
    check_broad(&world, &|_| 0.0);
    let mut touching = 0;
    for p in world.pairs() {
        let pa = at.iter().find(|(h, _)| *h == p.a).map(|x| x.1);
        let pb = at.iter().find(|(h, _)| *h == p.b).map(|x| x.1);
        match (pa, pb) {
            (Some(pa), Some(pb)) => {
                let d = (pa - pb).abs().max_element();
                assert!(d <= 1.0, "non-neighbours {pa} {pb} are candidates");
                assert_eq!(p.status, Status::Touching, "{pa} {pb}: {:?}", p.answer);
                touching += 1;
            }
            _ => {
                let other = pa.or(pb).unwrap();
                let d = (other - DVec3::ONE).abs().max_element();
                let want = if d == 0.0 {
                    Status::Overlapping
                } else {
                    Status::Touching
                };
                assert_eq!(p.status, want, "duplicate vs {other}");
            }
        }
    }
    // Neighbour pairs (Chebyshev distance 1) in a 4³ grid: per axis 10 ordered index pairs
    // within 1 of each other (4 equal, 6 adjacent), so (10³ − 4³) / 2 unordered distinct ones.
    assert_eq!(touching, (1000 - 64) / 2);
    assert!(world
        .contacts()
        .all(|p| p.a == dup || p.b == dup || p.status == Status::Touching));
}

#[test]
fn all_bodies_at_one_point() {
    let pool = shape_pool(1.0, 3);
    let mut world = World::default();
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let hs: Vec<BodyHandle> = (0..50)
        .map(|k| {
            let pose = Pose::new(shapes::random_rotation(&mut rng), DVec3::splat(5.0));
            world.insert(pool[k % pool.len()].clone(), pose).unwrap()
        })
        .collect();
    world.update().unwrap();
    check_broad(&world, &|_| 0.0);
    assert_eq!(world.contacts().count(), 50 * 49 / 2);
    assert!(world.contacts().all(|p| p.status == Status::Overlapping));
    // Then all spread out at once (the rebuild path) and back again.
    for (k, &h) in hs.iter().enumerate() {
        let p = DVec3::new(10.0 * k as f64, 0.0, 0.0);
        world.set_pose(h, Pose::from_translation(p)).unwrap();
    }
    let st = world.update().unwrap();
    assert!(st.sweep.rebuilt, "{st:?}");
    check_broad(&world, &|_| 0.0);
    assert_eq!(world.contacts().count(), 0);
    for &h in &hs {
        world.set_pose(h, Pose::from_translation(DVec3::splat(5.0))).unwrap();
    }
    world.update().unwrap();
    check_broad(&world, &|_| 0.0);
    assert_eq!(world.contacts().count(), 50 * 49 / 2);
}

#[test]
fn teleports_stay_exact() {
    let mut sc = Scene::new(80, 1.0, DVec3::ZERO, 10, WorldOptions::default());
    sc.world.update().unwrap();
    let mut rebuilt = 0;
    for f in 0..60 {
        sc.step();
        // One body jumps across the world (incremental: about 2n exchanges).
        let k = f % sc.movers.len();
        let m = &mut sc.movers[k];
        m.pos = DVec3::splat(sc.side) - m.pos;
        sc.world.set_pose(m.h, Pose::new(m.rot, m.pos)).unwrap();
        // Every tenth frame everything jumps.
        if f % 10 == 9 {
            for m in &mut sc.movers {
                m.pos = DVec3::new(m.pos.y, m.pos.z, m.pos.x);
                sc.world.set_pose(m.h, Pose::new(m.rot, m.pos)).unwrap();
            }
        }
        let st = sc.world.update().unwrap();
        rebuilt += usize::from(st.sweep.rebuilt);
        check_broad(&sc.world, &|_| 0.0);
        if f % 20 == 0 {
            check_narrow(&sc.world, 0.0);
        }
    }
    assert!(rebuilt >= 1, "no frame took the rebuild path");
    assert!(
        rebuilt <= 12,
        "single teleports should stay incremental ({rebuilt} rebuilds)"
    );
}

#[test]
fn bad_poses_are_typed_errors() {
    let cube = Arc::new(shapes::cuboid(1.0, 1.0, 1.0).unwrap());
    let mut world = World::default();
    let nan = Pose::from_translation(DVec3::new(f64::NAN, 0.0, 0.0));
    assert_eq!(world.insert(cube.clone(), nan).unwrap_err(), PolycdError::NonFinitePose);
    assert!(world.is_empty());
    let h = world.insert(cube.clone(), Pose::IDENTITY).unwrap();
    let g = world.insert(cube.clone(), Pose::from_translation(DVec3::X)).unwrap();
    let bad = [
        (nan, "nan"),
        (
            Pose::new(DQuat::from_xyzw(0.0, f64::INFINITY, 0.0, 1.0), DVec3::ZERO),
            "inf",
        ),
        (Pose::new(DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0), DVec3::ZERO), "zero"),
        (Pose::new(DQuat::from_xyzw(0.0, 0.0, 0.0, 2.0), DVec3::ZERO), "scaled"),
        (Pose::new(DQuat::from_xyzw(0.0, 0.0, 0.01, 1.0), DVec3::ZERO), "drifted"),
        (Pose::from_translation(DVec3::new(0.0, 1e200, 0.0)), "far"),
    ];
    for (p, what) in bad {
        let e = world.set_pose(h, p).unwrap_err();
        let ok = matches!(
            (what, &e),
            ("nan" | "inf", PolycdError::NonFinitePose)
                | ("zero", PolycdError::ZeroQuaternion)
                | ("scaled" | "drifted", PolycdError::NonUnitQuaternion { .. })
                | ("far", PolycdError::AbsurdMagnitude { .. })
        );
        assert!(ok, "{what}: {e:?}");
        assert_eq!(world.pose(h), Some(Pose::IDENTITY), "{what}: pose changed");
    }
    // Rounding drift is accepted (and normalised).
    let q = DQuat::from_xyzw(0.0, 0.0, 0.0, 1.0 + 1e-9);
    world.set_pose(h, Pose::new(q, DVec3::ZERO)).unwrap();
    assert!((world.pose(h).unwrap().rotation.length() - 1.0).abs() < 1e-15);
    world.update().unwrap();
    assert_eq!(world.contacts().count(), 1);
    // Stale handles.
    assert!(world.remove(g));
    let g2 = world.insert(cube, Pose::from_translation(DVec3::X)).unwrap();
    assert_eq!(g2.index(), g.index());
    assert!(!world.contains(g) && world.contains(g2));
    assert!(world.set_pose(g, Pose::IDENTITY).is_err());
    assert!(world.pose(g).is_none());
    // An algorithm that does not answer the question.
    let mut w = World::new(
        WorldOptions::default()
            .with_algorithm(Algorithm::CdDual)
            .with_query(PairQuery::Distance),
    );
    let c = Arc::new(shapes::cuboid(1.0, 1.0, 1.0).unwrap());
    w.insert(c.clone(), Pose::IDENTITY).unwrap();
    w.insert(c, Pose::IDENTITY).unwrap();
    assert!(matches!(w.update(), Err(PolycdError::Unsupported { .. })));
}

#[test]
fn runs_are_deterministic_and_resting_pairs_are_not_requeried() {
    let run = || {
        let mut sc = Scene::new(60, 1.0, DVec3::ZERO, 21, WorldOptions::default());
        let mut log = Vec::new();
        for f in 0..40 {
            sc.step();
            if f % 9 == 4 {
                let m = sc.movers.swap_remove(f % sc.movers.len());
                sc.world.remove(m.h);
                sc.add();
            }
            sc.world.update().unwrap();
            log.extend(sc.world.pairs().map(|p| (p.a, p.b, format!("{:?}", p.answer))));
        }
        log
    };
    let (x, y) = (run(), run());
    assert!(!x.is_empty());
    assert_eq!(x, y);
    // Sorted within each frame: checked by the pairs' order in one frame here.
    let mut sc = Scene::new(60, 1.0, DVec3::ZERO, 22, WorldOptions::default());
    sc.step();
    sc.world.update().unwrap();
    let ps: Vec<(u32, u32)> = sc.world.pairs().map(|p| (p.a.index(), p.b.index())).collect();
    assert!(ps.windows(2).all(|w| w[0] < w[1]));
    let before: Vec<_> = sc.world.pairs().collect();
    // Nothing moves: the broad phase makes no exchange and no pair is queried again.
    let st = sc.world.update().unwrap();
    assert_eq!((st.sweep.swaps, st.queries, st.boxes), (0, 0, 0), "{st:?}");
    let after: Vec<_> = sc.world.pairs().collect();
    assert_eq!(before, after);
    // One body moves: only its pairs are queried.
    let h = sc.movers[0].h;
    let p = sc.world.pose(h).unwrap();
    sc.world
        .set_pose(h, Pose::new(p.rotation, p.translation + DVec3::splat(1e-3)))
        .unwrap();
    let st = sc.world.update().unwrap();
    let of_h = sc.world.pairs().filter(|p| p.a == h || p.b == h).count();
    assert_eq!(st.queries, of_h);
}

#[test]
fn lattice_boxes_with_many_ties() {
    // Boxes with integer corners on a small grid, moving by whole steps: most end points tie
    // with others every frame (touching, identical, zero-width boxes), boxes come and go, and
    // some frames move everything far (the rebuild path). The invariants hold after each one.
    const GRID: f64 = 8.0;
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let mut sap: SweepAndPrune = SweepAndPrune::new();
    let mut boxes: Vec<Option<Aabb>> = vec![None; 120];
    let random_box = |rng: &mut ChaCha8Rng| {
        let lo: [f64; 3] = std::array::from_fn(|_| f64::from(rng.random_range(0..GRID as i32)));
        let size: [f64; 3] = std::array::from_fn(|_| f64::from(rng.random_range(0..3)));
        bx(lo, std::array::from_fn(|k| lo[k] + size[k]))
    };
    let (mut rebuilt, mut candidates) = (0, 0);
    for frame in 0..300 {
        for (id, slot) in boxes.iter_mut().enumerate() {
            let id = id as u32;
            match slot {
                None if rng.random_bool(0.3) => {
                    let b = random_box(&mut rng);
                    sap.insert(id, b).unwrap();
                    *slot = Some(b);
                }
                Some(_) if rng.random_bool(0.02) => {
                    assert!(sap.remove(id));
                    *slot = None;
                }
                Some(b) if frame % 50 == 49 || rng.random_bool(0.3) => {
                    // A step of −1, 0 or 1 per axis, or a jump every 50 frames, wrapped into
                    // the grid so that it stays crowded.
                    let far = if frame % 50 == 49 { 4 } else { 1 };
                    let size = b.max - b.min;
                    let lo: [f64; 3] =
                        std::array::from_fn(|k| (b.min[k] + f64::from(rng.random_range(-far..=far))).rem_euclid(GRID));
                    *b = bx(lo, std::array::from_fn(|k| lo[k] + size[k]));
                    sap.set_aabb(id, *b).unwrap();
                }
                _ => {}
            }
        }
        let st = sap.update();
        rebuilt += usize::from(st.rebuilt);
        sap.check_invariants().unwrap_or_else(|e| panic!("frame {frame}: {e}"));
        assert_eq!(st.candidates, sap.candidate_count());
        candidates += st.candidates;
    }
    assert!(rebuilt > 0);
    assert!(candidates > 300 * 100, "the lattice must be crowded ({candidates})");
}

#[test]
fn world_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<World>();
    check::<SweepAndPrune>();
}

#[test]
fn grid_scenes_match_brute_force() {
    // The same random scenes with the grid path on every frame (threshold 0): boxes,
    // candidates and narrow-phase answers checked as above, with churn, at every scale.
    let contacts = run_scene_grid(60, 150, 1.0, DVec3::ZERO, 1, WorldOptions::default(), true, 0);
    assert!(contacts > 150, "only {contacts} contacts over 150 frames");
    run_scene_grid(50, 60, 1e-6, DVec3::ZERO, 4, WorldOptions::default(), true, 0);
    run_scene_grid(50, 60, 1e6, DVec3::ZERO, 5, WorldOptions::default(), true, 0);
    run_scene_grid(
        50,
        60,
        1.0,
        DVec3::new(1e6, -2e6, 3e6),
        6,
        WorldOptions::default(),
        false,
        0,
    );
    // Switching between the paths as the body count crosses the threshold.
    run_scene_grid(50, 100, 1.0, DVec3::ZERO, 9, WorldOptions::default(), true, 50);
}

/// Pair data that remembers which pair it was given to (0: fresh or reset).
#[derive(Default, Debug)]
struct Tag(u64);

impl PairData for Tag {
    fn reset(&mut self) {
        self.0 = 0;
    }
}

#[test]
fn grid_and_sweep_agree_and_keep_pair_data() {
    // Boxes of every kind — ordinary, points, flat, one in 20 a 50–100× outlier (the grid's large
    // boxes), on a lattice (ties) or not — moving, jumping and coming and going, with the path
    // switched between grid and sweep every 25 frames. Every frame: the candidate set equals an
    // O(n²) brute force written here, and a pair that stays a candidate keeps its data.
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let mut sap: SweepAndPrune<Tag> = SweepAndPrune::new();
    let n = 150;
    let mut boxes: Vec<Option<Aabb>> = vec![None; n];
    let random_box = |rng: &mut ChaCha8Rng| {
        let lattice = rng.random_bool(0.3);
        let lo: [f64; 3] = std::array::from_fn(|_| {
            let x: f64 = rng.random_range(0.0..12.0);
            if lattice {
                x.floor()
            } else {
                x
            }
        });
        let kind = rng.random_range(0..20);
        let size: [f64; 3] = std::array::from_fn(|k| match kind {
            0 => 0.0,
            1 if k == 0 => 0.0,
            2 => 100.0 * rng.random_range(0.5..1.0),
            _ if lattice => f64::from(rng.random_range(0..3)),
            _ => rng.random_range(0.0..1.5),
        });
        bx(lo, std::array::from_fn(|k| lo[k] + size[k]))
    };
    let mut next_tag = 1u64;
    let mut last: std::collections::HashMap<(u32, u32), u64> = Default::default();
    let mut grid_frames = 0;
    for frame in 0..200 {
        let grid = (frame / 25) % 2 == 0;
        sap.set_grid_threshold(if grid { 0 } else { usize::MAX });
        grid_frames += usize::from(grid);
        for (id, slot) in boxes.iter_mut().enumerate() {
            let id = id as u32;
            match slot {
                None if rng.random_bool(0.3) => {
                    let b = random_box(&mut rng);
                    sap.insert(id, b).unwrap();
                    *slot = Some(b);
                }
                Some(_) if rng.random_bool(0.02) => {
                    assert!(sap.remove(id));
                    *slot = None;
                }
                Some(b) if rng.random_bool(0.5) => {
                    let jump = if frame % 40 == 39 { 6.0 } else { 0.3 };
                    let d = DVec3::from_array(std::array::from_fn(|_| rng.random_range(-jump..jump)));
                    *b = Aabb {
                        min: b.min + d,
                        max: b.max + d,
                    };
                    sap.set_aabb(id, *b).unwrap();
                }
                _ => {}
            }
        }
        let st = sap.update();
        sap.check_invariants().unwrap_or_else(|e| panic!("frame {frame}: {e}"));
        let mut want = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                if let (Some(a), Some(b)) = (boxes[i], boxes[j]) {
                    if a.overlaps(&b) {
                        want.push((i as u32, j as u32));
                    }
                }
            }
        }
        let have: Vec<(u32, u32)> = sap.pairs().collect();
        assert_eq!(have, want, "frame {frame} (grid: {grid})");
        assert_eq!(st.candidates, want.len());
        let mut now = std::collections::HashMap::new();
        sap.for_each_pair_mut(|a, b, t| {
            if t.0 == 0 {
                t.0 = next_tag;
                next_tag += 1;
            } else {
                assert_eq!(
                    last.get(&(a, b)),
                    Some(&t.0),
                    "frame {frame}: pair ({a}, {b}) got another's data"
                );
            }
            now.insert((a, b), t.0);
            Ok::<(), ()>(())
        })
        .unwrap();
        // A pair that was a candidate last frame and still is keeps its tag.
        for (k, t) in &now {
            if let Some(old) = last.get(k) {
                assert_eq!(old, t, "frame {frame}: pair {k:?} lost its data (grid: {grid})");
            }
        }
        last = now;
    }
    assert!(grid_frames >= 100);
}

/// The grid's x windows against an O(n²) brute force, in the two regimes of its x key: fine
/// (16 steps a cell; a compact world) and coarse (one step a cell: a world more than 65 536
/// cells wide, here two clusters 10⁷ cells apart). Boxes of every width up to the largest
/// small box (the window's reach), lattice-aligned so min x of one box equals max x of another
/// and edges fall on cell boundaries, moving and jumping between rows.
#[test]
fn grid_x_windows_fine_and_coarse() {
    for (seed, gap) in [(91u64, 0.0), (92, 1e7)] {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut sap: SweepAndPrune = SweepAndPrune::new();
        sap.set_grid_threshold(0);
        let n = 160;
        let mut boxes: Vec<Aabb> = Vec::with_capacity(n);
        let random_box = |rng: &mut ChaCha8Rng, id: usize| {
            let shift = if id % 2 == 1 { gap } else { 0.0 };
            let lattice = rng.random_bool(0.5);
            let lo: [f64; 3] = std::array::from_fn(|k| {
                let x: f64 = rng.random_range(0.0..4.0);
                let x = if lattice { (x * 4.0).floor() / 4.0 } else { x };
                x + if k == 0 { shift } else { 0.0 }
            });
            let w: [f64; 3] = std::array::from_fn(|_| {
                if lattice {
                    f64::from(rng.random_range(0..9)) / 4.0
                } else {
                    rng.random_range(0.0..2.0)
                }
            });
            bx(lo, std::array::from_fn(|k| lo[k] + w[k]))
        };
        for id in 0..n {
            let b = random_box(&mut rng, id);
            sap.insert(id as u32, b).unwrap();
            boxes.push(b);
        }
        let mut total = 0;
        for frame in 0..60 {
            for (id, b) in boxes.iter_mut().enumerate() {
                if rng.random_bool(0.1) {
                    *b = random_box(&mut rng, id);
                } else if rng.random_bool(0.5) {
                    let d = DVec3::from_array(std::array::from_fn(|_| rng.random_range(-0.25..0.25)));
                    *b = Aabb {
                        min: b.min + d,
                        max: b.max + d,
                    };
                }
                sap.set_aabb(id as u32, *b).unwrap();
            }
            sap.update();
            sap.check_invariants()
                .unwrap_or_else(|e| panic!("gap {gap}, frame {frame}: {e}"));
            let mut want = Vec::new();
            for i in 0..n {
                for j in i + 1..n {
                    if boxes[i].overlaps(&boxes[j]) {
                        want.push((i as u32, j as u32));
                    }
                }
            }
            let have: Vec<(u32, u32)> = sap.pairs().collect();
            assert_eq!(have, want, "gap {gap}, frame {frame}");
            total += want.len();
        }
        // Dense enough to test something: about one overlap per box and frame at least.
        assert!(total > 60 * n / 2, "gap {gap}: only {total} overlapping pairs");
    }
}
