//! Continuous queries allocate nothing in steady state: the second run of the same convex
//! continuous query with the same caller-owned `CcdCache` makes no allocation. Same counting
//! allocator as `tests/alloc.rs` (`tests/counting`: counts only on the thread that switched
//! it on); one `#[test]` in this file.
//!
//! Known exception (documented, bounded, not asserted zero): the mesh query's traversal asks
//! about hull-tree nodes that overlap (inner nodes near contact). A clear overlap is answered
//! without a depth (`query::distance_or_overlap`: no EPA), but a node pair overlapping by about
//! the contact tolerance still runs EPA to tell touching from overlapping, and EPA's buffers
//! grow on first use (`gjk.rs` `epa_run`, listed in `tests/alloc.rs` `KNOWN_ALLOCATING`). Its
//! front and node-pair caches do not allocate once sized; the count is asserted to stay small.

use polycd::ccd::mesh::{self, MeshToiCache};
use polycd::ccd::{self, CcdCache, CcdOptions, RigidMotion};
use polycd::mesh::TriMesh;
use polycd::{shapes, DQuat, DVec3, Pose};

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
}
