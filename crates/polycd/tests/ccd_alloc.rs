//! Continuous queries allocate nothing in steady state: the second run of the same convex
//! continuous query with the same caller-owned `CcdCache` makes no allocation, and neither
//! does a `CcdWorld` frame of convex bodies once its buffers and pair caches are sized (serial
//! and, with rayon, parallel: the counted thread is the caller's; with a mesh body the mesh
//! exception below applies). Same counting
//! allocator as `tests/alloc.rs` (`tests/counting`: counts only on the thread that switched
//! it on); one `#[test]` in this file.
//!
//! Known exception (documented, bounded, not asserted zero): the mesh query's traversal asks
//! about hull-tree nodes that overlap (inner nodes near contact). A clear overlap is answered
//! without a depth (`query::distance_or_overlap`: no EPA), but a node pair overlapping by about
//! the contact tolerance still runs EPA to tell touching from overlapping, and EPA's buffers
//! grow on first use (`gjk.rs` `epa_run`, listed in `tests/alloc.rs` `KNOWN_ALLOCATING`). Its
//! front and node-pair caches do not allocate once sized; the count is asserted to stay small.

use polycd::broad::{CcdShape, CcdWorld};
use polycd::ccd::mesh::{self, MeshToiCache};
use polycd::ccd::{self, CcdCache, CcdOptions, RigidMotion};
use polycd::mesh::TriMesh;
use polycd::{shapes, DQuat, DVec3, Pose};
use std::sync::Arc;

mod counting;
use counting::count;

#[global_allocator]
static GLOBAL: counting::Counting = counting::Counting;

#[test]
fn repeated_continuous_queries_do_not_allocate() {
    let opts = CcdOptions::default();
    // Convex: an ellipsoid hull turning into a box.
    let a = shapes::ellipsoid(200, 1.0, 0.6, 0.4, 3).unwrap();
    let b = shapes::cuboid(1.0, 2.0, 1.0).unwrap();
    let ma = RigidMotion::about_centroid(
        &a,
        Pose::from_translation(DVec3::new(-4.0, 0.3, 0.1)),
        Pose::new(DQuat::from_rotation_z(2.0), DVec3::new(4.0, 0.0, 0.0)),
    )
    .unwrap();
    let mb = RigidMotion::stationary(Pose::IDENTITY).unwrap();
    let mut cache = CcdCache::default();
    let first = ccd::time_of_contact(&a, &ma, &b, &mb, &opts, &mut cache).unwrap();
    assert!(first.is_some());
    let n = count(|| {
        let again = ccd::time_of_contact(&a, &ma, &b, &mb, &opts, &mut cache).unwrap();
        assert_eq!(again.map(|t| t.t), first.map(|t| t.t));
    });
    assert_eq!(n, 0, "convex continuous query allocated {n} times");
    // Meshes: two torus knots.
    let (v, f) = shapes::torus_knot(2, 3, 40, 6, 0.45).unwrap();
    let k = TriMesh::new(&v, &f).unwrap();
    let mk = RigidMotion::new(
        Pose::from_translation(DVec3::new(-9.0, 0.5, 0.0)),
        Pose::new(DQuat::from_rotation_x(1.0), DVec3::new(9.0, 0.5, 0.0)),
        k.centroid(),
    )
    .unwrap();
    let mut mc = MeshToiCache::default();
    let first = mesh::time_of_contact(&k, &mk, &k, &mb, &opts, &mut mc).unwrap();
    assert!(first.is_some());
    let n = count(|| {
        let again = mesh::time_of_contact(&k, &mk, &k, &mb, &opts, &mut mc).unwrap();
        assert_eq!(again.map(|t| t.t), first.map(|t| t.t));
    });
    assert!(n <= 4, "mesh continuous query allocated {n} times");
    world_frames_do_not_allocate(&opts, Arc::new(k));
}

/// A `CcdWorld` of convex bodies flying through each other (earliest-contact mode off and on,
/// serial and parallel): once a frame has sized its buffers and pair caches, the same frame
/// again allocates nothing; with a knot mesh added, at most the mesh exception's few.
fn world_frames_do_not_allocate(opts: &CcdOptions, knot: Arc<TriMesh>) {
    let shapes: Vec<Arc<polycd::ConvexPolyhedron>> = vec![
        Arc::new(shapes::cuboid(1.0, 0.6, 0.8).unwrap()),
        Arc::new(shapes::icosphere(1, 0.7).unwrap()),
        Arc::new(shapes::ellipsoid(60, 0.8, 0.5, 0.4, 5).unwrap()),
    ];
    for with_mesh in [false, true] {
        for earliest in [false, true] {
            for parallel in [false, true] {
                let mut world = CcdWorld::new(*opts);
                world.set_earliest_only(earliest);
                world.set_parallel(parallel);
                // A row of 40 bodies, every other one flying 3 units along x into the next.
                for i in 0..40 {
                    let p = Pose::new(
                        DQuat::from_rotation_z(0.3 * i as f64),
                        DVec3::new(2.0 * i as f64, 0.1 * (i % 3) as f64, 0.0),
                    );
                    let shape = if with_mesh && i % 10 == 5 {
                        CcdShape::Mesh(knot.clone())
                    } else {
                        CcdShape::Convex(shapes[i % 3].clone())
                    };
                    let h = world.insert(shape, p).unwrap();
                    if i % 2 == 0 {
                        let end = Pose::new(
                            DQuat::from_rotation_y(0.5) * p.rotation,
                            p.translation + DVec3::new(3.0, 0.0, 0.2),
                        );
                        world.set_motion(h, p, end).unwrap();
                    }
                }
                world.step().unwrap();
                world.step().unwrap();
                let first = world.contacts().to_vec();
                assert!(!first.is_empty());
                let n = count(|| {
                    world.step().unwrap();
                });
                assert_eq!(world.contacts(), &first[..]);
                let label = format!("with_mesh {with_mesh}, earliest {earliest}, parallel {parallel}");
                if with_mesh {
                    assert!(n <= 4, "CcdWorld frame allocated {n} times ({label})");
                } else {
                    assert_eq!(n, 0, "CcdWorld frame allocated {n} times ({label})");
                }
            }
        }
    }
}
