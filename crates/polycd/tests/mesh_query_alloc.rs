//! Issue 23 item 1: warm mesh queries allocate nothing. The second run of the same
//! `mesh::distance` / `mesh::intersect` / `mesh::contact_set` with the same caller-owned
//! `SolidCache` makes no allocation (node-pair caches, contact set, transformed triangles and
//! the mesh of a convex side are kept in the cache) — except, for overlapping solids, the
//! convex penetration depth of each overlapping piece pair: EPA's scratch buffers, the known
//! exception listed in `tests/alloc.rs` (`KNOWN_ALLOCATING`, `gjk.rs` `epa_run`). Same counting allocator as
//! `tests/alloc.rs` (`tests/counting`: counts only on the thread that switched it on); one
//! `#[test]` in this file.

use polycd::mesh::{self, MeshAnswer, MeshOverlap, Solid, SolidCache, TriMesh};
use polycd::{shapes, DQuat, DVec3, Pose};

mod counting;
use counting::count;

#[global_allocator]
static GLOBAL: counting::Counting = counting::Counting;

/// Equal answers, NaN points (an intersect of far-apart solids) compared by their bits;
/// overlaps: the same witness, depths and points within rounding (1e-12; the warm-started EPA
/// of a pair whose cache another query used may round its last digits differently);
/// allocation-free.
fn same(x: &MeshAnswer, y: &MeshAnswer) -> bool {
    match (x, y) {
        (
            MeshAnswer::Separated {
                distance: d1,
                point_a: a1,
                point_b: b1,
                features: f1,
                pieces: p1,
            },
            MeshAnswer::Separated {
                distance: d2,
                point_a: a2,
                point_b: b2,
                features: f2,
                pieces: p2,
            },
        ) => {
            let bits = |v: DVec3| v.to_array().map(f64::to_bits);
            d1.to_bits() == d2.to_bits() && bits(*a1) == bits(*a2) && bits(*b1) == bits(*b2) && f1 == f2 && p1 == p2
        }
        (
            MeshAnswer::Overlapping {
                witness: w1,
                depth_lower_bound: d1,
                point_a: a1,
                point_b: b1,
            },
            MeshAnswer::Overlapping {
                witness: w2,
                depth_lower_bound: d2,
                point_a: a2,
                point_b: b2,
            },
        ) => {
            let near = |u: DVec3, v: DVec3| (u - v).length() <= 1e-12;
            let witness = match (w1, w2) {
                (MeshOverlap::Pieces(p1), MeshOverlap::Pieces(p2)) => p1.pieces == p2.pieces,
                _ => w1 == w2,
            };
            witness && (d1 - d2).abs() <= 1e-12 && near(*a1, *a2) && near(*b1, *b2)
        }
        _ => false,
    }
}

/// Rounds of the three queries counted.
const ROUNDS: usize = 5;

#[test]
fn warm_mesh_queries_do_not_allocate() {
    let (v, f) = shapes::torus_knot(2, 3, 40, 6, 0.45).unwrap();
    let k = TriMesh::new(&v, &f).unwrap();
    let ball = shapes::icosphere(2, 0.7).unwrap();
    let poses = [
        // Apart, overlapping (surfaces crossing), and near.
        Pose::new(DQuat::from_rotation_x(0.7), DVec3::new(7.0, 0.5, 0.0)),
        Pose::new(DQuat::from_rotation_z(0.4), DVec3::new(0.3, 0.2, 0.1)),
        Pose::new(DQuat::from_rotation_y(0.2), DVec3::new(6.2, 0.0, 0.3)),
    ];
    for pb in poses {
        for b in [Solid::Mesh(&k), Solid::Convex(&ball)] {
            let a = Solid::Mesh(&k);
            let mut cache = SolidCache::default();
            let first = mesh::distance(a, &Pose::IDENTITY, b, &pb, &mut cache).unwrap();
            let fi = mesh::intersect(a, &Pose::IDENTITY, b, &pb, &mut cache).unwrap();
            // Steady state: the first query has no last closest pair to bound its search, so
            // it visits more node pairs than the warm ones; their caches move to the spare
            // pool (its one growth) once unused for `NODE_CACHE_QUERIES` queries. One more
            // round of the same queries reaches it.
            for _ in 0..2 {
                let again = mesh::distance(a, &Pose::IDENTITY, b, &pb, &mut cache).unwrap();
                assert!(same(&again, &first), "{again:?} vs {first:?}");
                let again = mesh::intersect(a, &Pose::IDENTITY, b, &pb, &mut cache).unwrap();
                assert!(same(&again, &fi), "{again:?} vs {fi:?}");
            }
            // Counted over several rounds, so an allocation that recurs every few queries (a
            // node-pair cache dropped and made again) would show.
            let n = count(|| {
                for _ in 0..ROUNDS {
                    let again = mesh::distance(a, &Pose::IDENTITY, b, &pb, &mut cache).unwrap();
                    assert!(same(&again, &first), "{again:?} vs {first:?}");
                    let again = mesh::intersect(a, &Pose::IDENTITY, b, &pb, &mut cache).unwrap();
                    assert!(same(&again, &fi), "{again:?} vs {fi:?}");
                    let (again, _) = mesh::contact_set(a, &Pose::IDENTITY, b, &pb, &mut cache).unwrap();
                    assert!(same(&again, &first), "{again:?} vs {first:?}");
                }
            });
            if matches!(first, MeshAnswer::Separated { .. }) {
                assert_eq!(n, 0, "warm mesh queries allocated {n} times at {pb:?}");
            } else {
                // EPA's buffers (`gjk.rs` `epa_run`, in `tests/alloc.rs` `KNOWN_ALLOCATING`):
                // each overlapping piece pair's depth runs EPA, about one allocation per pair
                // and query (measured: 912 for 474 pairs, distance and contact set).
                let pairs = cache.contacts().len();
                assert!(
                    n <= ROUNDS * (2 * pairs + 2),
                    "{n} allocations for {pairs} overlapping pairs at {pb:?}"
                );
            }
        }
    }
}
