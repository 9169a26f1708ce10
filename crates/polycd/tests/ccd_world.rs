//! Continuous collision detection among many bodies ([`polycd::broad::CcdWorld`], issue 24
//! item 2), checked against all-pairs CCD: on random scenes of boxes, icospheres, ellipsoid
//! hulls and small torus-knot meshes, each body moving over several frames (each frame
//! starting where the last ended) or fixed, the world's contacts (every pair's first contact
//! and the earliest over all pairs) equal those of the pairwise continuous query run on every
//! pair with at least one moving body, with fresh caches and no broad phase; the answers are
//! the same with 1 and 2 threads (every frame of those scenes, bit for bit); the swept boxes hold the bodies at sampled times; bad input
//! gets typed errors.
//!
//! The default run is small (50 and 80 bodies); `cargo test -p polycd --test ccd_world --
//! --ignored` runs 200- and 500-body scenes.

use std::sync::Arc;

use polycd::broad::{CcdContact, CcdHandle, CcdShape, CcdWorld, EARLIEST_ROUND};
use polycd::ccd::mesh::{self as mesh_ccd, MeshToiCache};
use polycd::ccd::{self, CcdCache, CcdOptions};
use polycd::mesh::{MeshDistance, TriMesh};
use polycd::{shapes, DQuat, DVec3, PolycdError, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A small torus knot (2, 3) scaled to a bounding scale of about `size`.
fn knot(size: f64) -> Arc<TriMesh> {
    let (v, f) = shapes::torus_knot(2, 3, 24, 5, 0.35).expect("knot");
    let m = TriMesh::new(&v, &f).expect("knot mesh");
    let k = size / m.scale();
    let v: Vec<DVec3> = v.iter().map(|&p| p * k).collect();
    Arc::new(TriMesh::new(&v, &f).expect("scaled knot mesh"))
}

struct Scene {
    shapes: Vec<CcdShape>,
    /// Each body's pose at the start of the next frame.
    poses: Vec<Pose>,
    /// Fixed bodies never move.
    fixed: Vec<bool>,
    /// Grid spacing: about how far a body moves per frame.
    spacing: f64,
}

/// `n` bodies on a jittered grid (spacing 2.2, bodies of radius up to about 1), `knots` of
/// them torus-knot meshes, a fifth fixed.
fn scene(n: usize, knots: usize, seed: u64) -> Scene {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let knot_mesh = knot(0.9);
    let side = (n as f64).cbrt().ceil() as usize;
    let spacing = 2.2;
    let mut out = Scene {
        shapes: Vec::new(),
        poses: Vec::new(),
        fixed: Vec::new(),
        spacing,
    };
    for i in 0..n {
        let shape = if i % (n / knots.max(1)).max(1) == 0 && i / (n / knots.max(1)).max(1) < knots {
            CcdShape::Mesh(knot_mesh.clone())
        } else {
            match rng.random_range(0..3) {
                0 => CcdShape::Convex(Arc::new(
                    shapes::cuboid(
                        rng.random_range(0.3..1.4),
                        rng.random_range(0.3..1.4),
                        rng.random_range(0.3..1.4),
                    )
                    .unwrap(),
                )),
                1 => CcdShape::Convex(Arc::new(shapes::icosphere(1, rng.random_range(0.3..0.8)).unwrap())),
                _ => CcdShape::Convex(Arc::new(
                    shapes::ellipsoid(
                        40,
                        rng.random_range(0.3..0.9),
                        rng.random_range(0.3..0.9),
                        rng.random_range(0.2..0.6),
                        rng.random(),
                    )
                    .unwrap(),
                )),
            }
        };
        let (x, y, z) = (i % side, (i / side) % side, i / (side * side));
        let jitter = DVec3::new(
            rng.random_range(-0.3..0.3),
            rng.random_range(-0.3..0.3),
            rng.random_range(-0.3..0.3),
        );
        let p = DVec3::new(x as f64, y as f64, z as f64) * spacing + jitter;
        out.shapes.push(shape);
        out.poses.push(Pose::new(shapes::random_rotation(&mut rng), p));
        out.fixed.push(rng.random_range(0..5) == 0);
    }
    out
}

/// The next frame's end poses: a random displacement of up to `reach` and a random turn of up
/// to 1.5 rad for the moving bodies.
fn next_ends(s: &Scene, rng: &mut ChaCha8Rng, reach: f64) -> Vec<Pose> {
    s.poses
        .iter()
        .zip(&s.fixed)
        .map(|(p, &fixed)| {
            if fixed {
                return *p;
            }
            let d = shapes::unit_vector(rng) * rng.random_range(0.0..reach);
            let turn = DQuat::from_axis_angle(shapes::unit_vector(rng), rng.random_range(0.0..1.5));
            Pose::new((turn * p.rotation).normalize(), p.translation + d)
        })
        .collect()
}

/// All-pairs CCD: every pair with a moving body, fresh caches, the world's motions.
fn all_pairs(world: &CcdWorld, handles: &[CcdHandle]) -> Vec<CcdContact> {
    let opts = *world.options();
    let mut out = Vec::new();
    for (i, &a) in handles.iter().enumerate() {
        for &b in &handles[i + 1..] {
            let (ma, mb) = (world.motion(a).unwrap(), world.motion(b).unwrap());
            if ma.is_stationary() && mb.is_stationary() {
                continue;
            }
            let hit = match (world.shape(a).unwrap(), world.shape(b).unwrap()) {
                (CcdShape::Convex(p), CcdShape::Convex(q)) => {
                    ccd::time_of_contact(p, ma, q, mb, &opts, &mut CcdCache::default())
                        .unwrap()
                        .map(|r| (r.t, r.distance, r.iterations))
                }
                (x, y) => {
                    let as_mesh = |s: &CcdShape| match s {
                        CcdShape::Convex(c) => TriMesh::from_convex(c).unwrap(),
                        CcdShape::Mesh(m) => (**m).clone(),
                        other => panic!("a shape this test does not know: {other:?}"),
                    };
                    let (p, q) = (as_mesh(x), as_mesh(y));
                    mesh_ccd::time_of_contact(&p, ma, &q, mb, &opts, &mut MeshToiCache::default())
                        .unwrap()
                        .map(|r| {
                            let d = match r.answer {
                                MeshDistance::Separated { distance, .. } => distance,
                                MeshDistance::Overlapping { .. } => 0.0,
                                other => panic!("a variant this test does not know: {other:?}"),
                            };
                            (r.t, d, r.iterations)
                        })
                }
            };
            if let Some((t, distance, iterations)) = hit {
                out.push(CcdContact {
                    a,
                    b,
                    t,
                    distance,
                    points: None,
                    iterations,
                });
            }
        }
    }
    out.sort_by(|x, y| x.t.total_cmp(&y.t).then(x.a.cmp(&y.a)).then(x.b.cmp(&y.b)));
    out
}

fn close(x: f64, y: f64) -> bool {
    // The world keeps each pair's caches across frames; warm and fresh caches give the same
    // distances up to rounding, hence the same times up to rounding.
    (x - y).abs() <= 1e-9 * (1.0 + x.abs())
}

fn build(s: &Scene) -> (CcdWorld, Vec<CcdHandle>) {
    let mut world = CcdWorld::new(CcdOptions::default());
    let handles = s
        .shapes
        .iter()
        .zip(&s.poses)
        .map(|(shape, pose)| world.insert(shape.clone(), *pose).unwrap())
        .collect();
    (world, handles)
}

/// One frame of `world` on a pool of `threads` threads (the feature `parallel`), else serial.
fn step_on(world: &mut CcdWorld, threads: usize) -> polycd::broad::CcdWorldStats {
    #[cfg(feature = "parallel")]
    {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| world.step())
            .unwrap()
    }
    #[cfg(not(feature = "parallel"))]
    {
        let _ = threads;
        world.step().unwrap()
    }
}

/// Runs `frames` frames of a scene, checking each against all-pairs CCD, and the world run
/// with 1 thread against the same world run with 2 (bit-identical contacts and statistics,
/// every frame); returns the number of contacts seen and the candidates per frame.
fn against_all_pairs(n: usize, knots: usize, frames: usize, seed: u64) -> (usize, usize) {
    let mut s = scene(n, knots, seed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let (mut world, handles) = build(&s);
    let (mut world1, handles1) = build(&s);
    assert_eq!(handles, handles1);
    let (mut contacts, mut candidates, mut kept) = (0, 0, 0);
    for frame in 0..frames {
        let ends = next_ends(&s, &mut rng, s.spacing);
        for (k, &h) in handles.iter().enumerate() {
            world.set_motion(h, s.poses[k], ends[k]).unwrap();
            world1.set_motion(h, s.poses[k], ends[k]).unwrap();
        }
        let stats = step_on(&mut world, 2);
        assert_eq!(
            stats,
            step_on(&mut world1, 1),
            "frame {frame}: statistics, 2 vs 1 thread"
        );
        assert_eq!(
            world.contacts(),
            world1.contacts(),
            "frame {frame}: contacts, 2 vs 1 thread"
        );
        assert_eq!(
            world.earliest(),
            world1.earliest(),
            "frame {frame}: earliest, 2 vs 1 thread"
        );
        let expected = all_pairs(&world, &handles);
        let got = world.contacts();
        // Same pairs, same times.
        let key = |c: &CcdContact| (c.a, c.b);
        let mut g: Vec<_> = got.iter().map(|c| (key(c), c.t)).collect();
        let mut e: Vec<_> = expected.iter().map(|c| (key(c), c.t)).collect();
        g.sort_by_key(|x| x.0);
        e.sort_by_key(|x| x.0);
        assert_eq!(
            g.iter().map(|x| x.0).collect::<Vec<_>>(),
            e.iter().map(|x| x.0).collect::<Vec<_>>(),
            "frame {frame}: the pairs in contact differ"
        );
        for (x, y) in g.iter().zip(&e) {
            assert!(
                close(x.1, y.1),
                "frame {frame}, pair {:?}: t {} vs all-pairs {}",
                x.0,
                x.1,
                y.1
            );
        }
        // The earliest contact over all pairs.
        match (world.earliest(), expected.first()) {
            (None, None) => {}
            (Some(w), Some(x)) => assert!(close(w.t, x.t), "frame {frame}: earliest {w:?} vs {x:?}"),
            (w, x) => panic!("frame {frame}: earliest {w:?} vs {x:?}"),
        }
        // Time order, and each contact within its threshold at its time.
        assert!(got.windows(2).all(|w| w[0].t <= w[1].t));
        for c in got {
            assert!((0.0..=1.0).contains(&c.t) && c.distance >= 0.0, "{c:?}");
            assert_eq!(c.points.is_some(), c.distance > 0.0, "{c:?}");
        }
        assert_eq!(stats.contacts, got.len());
        contacts += got.len();
        candidates += stats.candidates;
        kept += stats.kept_caches;
        s.poses = ends;
    }
    assert!(frames < 2 || kept > 0, "no pair cache was kept across frames");
    (contacts, candidates / frames)
}

#[test]
fn many_body_ccd_equals_all_pairs_50() {
    let (contacts, candidates) = against_all_pairs(50, 3, 4, 1);
    eprintln!("50 bodies: {contacts} contacts over 4 frames, {candidates} candidates per frame");
    assert!(contacts >= 10, "too few contacts to mean anything: {contacts}");
    assert!(
        candidates < 50 * 49 / 2 / 4,
        "the broad phase pruned little: {candidates}"
    );
}

#[test]
fn many_body_ccd_equals_all_pairs_80() {
    let (contacts, _) = against_all_pairs(80, 4, 3, 2);
    assert!(contacts >= 10, "too few contacts: {contacts}");
}

#[test]
#[ignore = "bigger scenes (200 and 500 bodies): run with --ignored"]
fn many_body_ccd_equals_all_pairs_large() {
    for (n, knots, seed) in [(200, 6, 3), (500, 10, 4)] {
        let (contacts, candidates) = against_all_pairs(n, knots, 3, seed);
        eprintln!("{n} bodies: {contacts} contacts over 3 frames, {candidates} candidates per frame");
        assert!(contacts >= 30);
    }
}

/// Identical answers (bit for bit) with 1 and 2 threads, and serial.
#[cfg(feature = "parallel")]
#[test]
fn thread_count_does_not_change_the_answers() {
    let s = scene(60, 3, 7);
    let run = |threads: Option<usize>| {
        let mut s = Scene {
            shapes: s.shapes.clone(),
            poses: s.poses.clone(),
            fixed: s.fixed.clone(),
            spacing: s.spacing,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(70);
        let (mut world, handles) = build(&s);
        world.set_parallel(threads.is_some());
        let mut all = Vec::new();
        for _ in 0..3 {
            let ends = next_ends(&s, &mut rng, s.spacing);
            for (k, &h) in handles.iter().enumerate() {
                world.set_motion(h, s.poses[k], ends[k]).unwrap();
            }
            match threads {
                Some(n) => rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .unwrap()
                    .install(|| world.step())
                    .unwrap(),
                None => world.step().unwrap(),
            };
            all.extend_from_slice(world.contacts());
            s.poses = ends;
        }
        all
    };
    let one = run(Some(1));
    assert!(one.len() >= 5, "{} contacts", one.len());
    assert_eq!(one, run(Some(2)));
    assert_eq!(one, run(None));
}

/// Every body's swept box holds the body at sampled times of its motion (an independent check
/// of the motion bound the broad phase relies on).
#[test]
fn swept_boxes_hold_the_bodies() {
    let s = scene(30, 3, 11);
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let (mut world, handles) = build(&s);
    let ends = next_ends(&s, &mut rng, 3.0);
    for (k, &h) in handles.iter().enumerate() {
        world.set_motion(h, s.poses[k], ends[k]).unwrap();
    }
    for &h in &handles {
        let (lo, hi) = world.swept_box(h).unwrap().unwrap();
        let m = world.motion(h).unwrap();
        let verts: Vec<DVec3> = match world.shape(h).unwrap() {
            CcdShape::Convex(c) => c.vertices().to_vec(),
            CcdShape::Mesh(m) => m.vertices().to_vec(),
            other => panic!("a shape this test does not know: {other:?}"),
        };
        for i in 0..=64 {
            let pose = m.pose_at(i as f64 / 64.0);
            for &v in &verts {
                let p = pose.transform_point(v);
                assert!(
                    p.cmpge(lo).all() && p.cmple(hi).all(),
                    "{h:?}: {p} outside [{lo}, {hi}]"
                );
            }
        }
        // And not absurdly large: within twice the extent of the ball argument.
        assert!((hi - lo).max_element() < 2.0 * (2.0 * 1.5 + 3.0), "{h:?}: [{lo}, {hi}]");
    }
}

#[test]
fn bad_input_gets_typed_errors() {
    let cube = Arc::new(shapes::cuboid(1.0, 1.0, 1.0).unwrap());
    let mut world = CcdWorld::new(CcdOptions::default());
    let h = world.insert(CcdShape::Convex(cube.clone()), Pose::IDENTITY).unwrap();
    // Non-finite and zero-quaternion poses.
    let nan = Pose::from_translation(DVec3::new(f64::NAN, 0.0, 0.0));
    assert_eq!(
        world.set_motion(h, Pose::IDENTITY, nan),
        Err(PolycdError::NonFinitePose)
    );
    assert!(world.insert(CcdShape::Convex(cube.clone()), nan).is_err());
    let zero = Pose::new(DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0), DVec3::ZERO);
    assert!(matches!(
        world.set_motion(h, zero, Pose::IDENTITY),
        Err(PolycdError::ZeroQuaternion | PolycdError::NonFinitePose)
    ));
    // A rounded shape moves too (tests/ccd_flat_rounded.rs checks its answers).
    let ball = Arc::new(shapes::cuboid(1.0, 1.0, 1.0).unwrap().with_radius(0.1).unwrap());
    let mut other = CcdWorld::new(CcdOptions::default());
    assert!(other.insert(CcdShape::Convex(ball), Pose::IDENTITY).is_ok());
    // An open mesh cannot be built, so it cannot be inserted.
    let v = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    let open = [vec![0, 2, 1], vec![0, 1, 3], vec![0, 3, 2]];
    assert!(matches!(TriMesh::new(&v, &open), Err(PolycdError::InvalidMesh(_))));
    // A removed or unknown body.
    let gone = world.insert(CcdShape::Convex(cube.clone()), Pose::IDENTITY).unwrap();
    assert!(world.remove(gone));
    assert!(!world.remove(gone));
    assert!(matches!(
        world.set_fixed(gone, Pose::IDENTITY),
        Err(PolycdError::InvalidOption { .. })
    ));
    // A flat polyhedron against a mesh: the mesh query's typed refusal, from `step`.
    let square = Arc::new(
        polycd::ConvexPolyhedron::from_points(&[DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::new(1.0, 1.0, 0.0)]).unwrap(),
    );
    let sq = world.insert(CcdShape::Convex(square), Pose::IDENTITY).unwrap();
    let k = world.insert(CcdShape::Mesh(knot(1.0)), Pose::IDENTITY).unwrap();
    world
        .set_motion(k, Pose::IDENTITY, Pose::from_translation(DVec3::new(0.5, 0.0, 0.0)))
        .unwrap();
    assert!(matches!(world.step(), Err(PolycdError::UnsupportedShape { .. })));
    assert!(world.contacts().is_empty());
    // Removing it makes the world answer again (the cube and the knot overlap at t = 0).
    assert!(world.remove(sq));
    world.step().unwrap();
    let first = world.earliest().unwrap();
    assert_eq!((first.a, first.b, first.t), (h, k, 0.0));
}

/// A body passing through a row of fixed cubes hits the first one; each pair's first contact
/// is listed in time order; fixed–fixed pairs (touching cubes) are not reported.
#[test]
fn row_of_walls_in_time_order() {
    let cube = Arc::new(shapes::cuboid(1.0, 1.0, 1.0).unwrap());
    let mut world = CcdWorld::new(CcdOptions::default());
    let mover = world.insert(CcdShape::Convex(cube.clone()), Pose::IDENTITY).unwrap();
    // Walls at x = 3, 5, 7 and a touching pair at x = 20, 21 (fixed, never reported).
    let walls: Vec<CcdHandle> = [3.0, 5.0, 7.0, 20.0, 21.0]
        .iter()
        .map(|&x| {
            world
                .insert(
                    CcdShape::Convex(cube.clone()),
                    Pose::from_translation(DVec3::new(x, 0.0, 0.0)),
                )
                .unwrap()
        })
        .collect();
    world
        .set_motion(
            mover,
            Pose::IDENTITY,
            Pose::from_translation(DVec3::new(10.0, 0.0, 0.0)),
        )
        .unwrap();
    world.step().unwrap();
    let c = world.contacts();
    assert_eq!(c.len(), 3, "{c:?}");
    // The unit cubes' faces meet after 2, 4, 6 of the 10 travelled.
    for (hit, (&wall, t)) in c.iter().zip(walls.iter().zip([0.2, 0.4, 0.6])) {
        assert_eq!((hit.a, hit.b), (mover, wall));
        assert!(hit.t <= t && t - hit.t < 1e-3, "{hit:?}");
    }
    assert_eq!(world.stats().candidates, 3);
}

/// The pairwise time limit (`CcdOptions::time_limit`, what the earliest-contact mode passes):
/// a contact before the limit is the same as without it, one after it is not looked for, and
/// a limit outside `[0, 1]` is a typed error.
#[test]
fn time_limit_stops_the_pairwise_query() {
    let cube = shapes::cuboid(1.0, 1.0, 1.0).unwrap();
    let mover = ccd::RigidMotion::about_centroid(
        &cube,
        Pose::IDENTITY,
        Pose::from_translation(DVec3::new(10.0, 0.0, 0.0)),
    )
    .unwrap();
    let wall = ccd::RigidMotion::stationary(Pose::from_translation(DVec3::new(5.0, 0.0, 0.0))).unwrap();
    let toc = |limit: f64| {
        ccd::time_of_contact(
            &cube,
            &mover,
            &cube,
            &wall,
            &CcdOptions::default().with_time_limit(limit),
            &mut CcdCache::default(),
        )
    };
    let full = toc(1.0).unwrap().expect("the cubes meet near t = 0.4");
    assert!(full.t <= 0.4 && 0.4 - full.t < 1e-3, "{full:?}");
    assert_eq!(toc(0.5).unwrap(), Some(full));
    assert_eq!(toc(full.t).unwrap(), Some(full));
    assert_eq!(toc(0.39).unwrap(), None);
    assert_eq!(toc(0.0).unwrap(), None);
    for bad in [-0.1, 1.5, f64::NAN] {
        assert!(matches!(toc(bad), Err(PolycdError::InvalidOption { .. })), "{bad}");
    }
    // The same on meshes (a knot flying through another).
    let k = knot(1.0);
    let mk = ccd::RigidMotion::new(
        Pose::from_translation(DVec3::new(-3.0, 0.1, 0.0)),
        Pose::new(DQuat::from_rotation_x(1.0), DVec3::new(3.0, 0.1, 0.0)),
        k.centroid(),
    )
    .unwrap();
    let fixed = ccd::RigidMotion::stationary(Pose::IDENTITY).unwrap();
    let mesh_toc = |limit: f64| {
        mesh_ccd::time_of_contact(
            &k,
            &mk,
            &k,
            &fixed,
            &CcdOptions::default().with_time_limit(limit),
            &mut MeshToiCache::default(),
        )
        .unwrap()
        .map(|r| r.t)
    };
    let t = mesh_toc(1.0).expect("the knots meet");
    assert_eq!(mesh_toc(t), Some(t));
    assert_eq!(mesh_toc(0.5 * (1.0 + t)), Some(t));
    assert_eq!(mesh_toc(0.9 * t), None);
}

/// Runs `frames` frames of a scene with the earliest-contact mode on or off (`threads`: a pool
/// of that many, else serial); returns each frame's contacts and the pairs run with a limit.
fn frames_of(
    s: &Scene,
    frames: usize,
    seed: u64,
    earliest_only: bool,
    threads: Option<usize>,
) -> (Vec<Vec<CcdContact>>, usize) {
    let mut s = Scene {
        shapes: s.shapes.clone(),
        poses: s.poses.clone(),
        fixed: s.fixed.clone(),
        spacing: s.spacing,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut world, handles) = build(&s);
    world.set_earliest_only(earliest_only);
    world.set_parallel(threads.is_some());
    let (mut out, mut limited) = (Vec::new(), 0);
    for _ in 0..frames {
        let ends = next_ends(&s, &mut rng, s.spacing);
        for (k, &h) in handles.iter().enumerate() {
            world.set_motion(h, s.poses[k], ends[k]).unwrap();
        }
        let stats = match threads {
            #[cfg(feature = "parallel")]
            Some(n) => rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
                .install(|| world.step())
                .unwrap(),
            _ => world.step().unwrap(),
        };
        assert!(earliest_only || stats.limited == 0);
        assert!(stats.limited <= stats.candidates.saturating_sub(EARLIEST_ROUND));
        limited += stats.limited;
        out.push(world.contacts().to_vec());
        s.poses = ends;
    }
    (out, limited)
}

/// The earliest-contact mode (issue 24 item 2: a pair's query stops once its contact-free
/// time passes the earliest contact so far) answers the same earliest contact as the full
/// world, lists exactly the contacts at that time, and stops pairs early.
#[test]
fn earliest_only_answers_the_earliest_contact() {
    let s = scene(80, 4, 21);
    let (full, none_limited) = frames_of(&s, 4, 22, false, None);
    let (early, limited) = frames_of(&s, 4, 22, true, None);
    assert_eq!(none_limited, 0);
    assert!(limited > 0, "no pair ran with a limit");
    let mut hits = 0;
    for (frame, (f, e)) in full.iter().zip(&early).enumerate() {
        match (f.first(), e.first()) {
            (None, None) => continue,
            (Some(x), Some(y)) => {
                assert_eq!((x.a, x.b), (y.a, y.b), "frame {frame}");
                assert!(close(x.t, y.t), "frame {frame}: {x:?} vs {y:?}");
                hits += 1;
            }
            (x, y) => panic!("frame {frame}: earliest {x:?} vs {y:?}"),
        }
        // Exactly the contacts at the earliest time (ties all listed).
        let t0 = e[0].t;
        assert!(e.iter().all(|c| c.t == t0), "frame {frame}: {e:?}");
        let ties = f.iter().filter(|c| close(c.t, f[0].t)).count();
        assert_eq!(e.len(), ties, "frame {frame}");
    }
    assert!(hits >= 3, "too few frames with a contact: {hits}");
}

/// The earliest-contact mode gives identical answers (bit for bit) with 1 and 2 threads and
/// serial: its rounds, not the threads, set each pair's limit.
#[cfg(feature = "parallel")]
#[test]
fn earliest_only_does_not_depend_on_threads() {
    let s = scene(60, 3, 7);
    let (one, _) = frames_of(&s, 3, 70, true, Some(1));
    assert!(one.iter().filter(|f| !f.is_empty()).count() >= 2);
    assert_eq!(one, frames_of(&s, 3, 70, true, Some(2)).0);
    assert_eq!(one, frames_of(&s, 3, 70, true, None).0);
}
