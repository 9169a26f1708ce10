//! Continuous queries allocate nothing in steady state: the second run of the same convex
//! continuous query with the same caller-owned `CcdCache` makes no allocation. Same counting
//! allocator as `tests/alloc.rs` (counts only on the thread that switched it on); one
//! `#[test]` in this file.
//!
//! Known exception (documented, bounded, not asserted zero): the mesh query's traversal asks
//! `query::distance` about hull-tree nodes that overlap (inner nodes near contact), and every
//! distance algorithm then measures the depth with EPA, which allocates (`gjk.rs` `epa_run`,
//! listed in `tests/alloc.rs` `KNOWN_ALLOCATING`). Its front and node-pair caches do not
//! allocate once sized; the count is asserted to stay small.

use polycd::ccd::mesh::{self, MeshCache, TriMesh};
use polycd::ccd::{self, CcdCache, CcdOptions, RigidMotion};
use polycd::{shapes, DQuat, DVec3, Pose};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn note() {
    if COUNTING.try_with(|c| c.get()).unwrap_or(false) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to `System`; the counting has no effect on memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn count<F: FnMut()>(mut f: F) -> usize {
    ALLOCATIONS.store(0, Ordering::Relaxed);
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.load(Ordering::Relaxed)
}

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
    let mut mc = MeshCache::default();
    let first = mesh::time_of_contact(&k, &mk, &k, &mb, &opts, &mut mc).unwrap();
    assert!(first.is_some());
    let n = count(|| {
        let again = mesh::time_of_contact(&k, &mk, &k, &mb, &opts, &mut mc).unwrap();
        assert_eq!(again.map(|t| t.t), first.map(|t| t.t));
    });
    assert!(n <= 4, "mesh continuous query allocated {n} times");
}
