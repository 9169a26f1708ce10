//! No allocation per warm `mesh::directional_with_cache` query (one `#[test]`, so the counted
//! sections run alone): two torus knots at 200 random poses and directions, a warm-up pass,
//! then a replay of the same queries with the same cache must allocate nothing (the scratch
//! buffers — chords, runs, the traversal stack, the convex pair cache — only grow to a
//! high-water mark). Also prints the mean time per query.

use polycd::mesh::{self, MeshDirectionalCache, TriMesh};
use polycd::{shapes, DVec3, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod counting;
use counting::count;

#[global_allocator]
static GLOBAL: counting::Counting = counting::Counting;

#[test]
fn warm_mesh_directional_allocates_nothing() {
    let (v, f) = shapes::torus_knot(2, 3, 64, 8, 0.45).unwrap();
    let a = TriMesh::new(&v, &f).unwrap();
    let (v, f) = shapes::torus_knot(2, 3, 48, 6, 0.45).unwrap();
    let b = TriMesh::new(&v.iter().map(|&p| p * 0.7).collect::<Vec<_>>(), &f).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let cases: Vec<(Pose, Pose, DVec3)> = (0..200)
        .map(|_| {
            let pa = Pose::new(shapes::random_rotation(&mut rng), DVec3::ZERO);
            let t = DVec3::new(
                rng.random_range(-3.0..3.0),
                rng.random_range(-3.0..3.0),
                rng.random_range(-3.0..3.0),
            );
            let pb = Pose::new(shapes::random_rotation(&mut rng), t);
            (pa, pb, shapes::unit_vector(&mut rng))
        })
        .collect();
    let mut cache = MeshDirectionalCache::default();
    let run = |cache: &mut MeshDirectionalCache| {
        for (pa, pb, s) in &cases {
            mesh::directional_with_cache(&a, pa, &b, pb, *s, cache).unwrap();
        }
    };
    let start = std::time::Instant::now();
    run(&mut cache);
    let per = start.elapsed().as_secs_f64() / cases.len() as f64;
    let n = count(|| run(&mut cache));
    eprintln!(
        "knots {} / {} triangles ({} / {} pieces): {:.3} ms per query (cold cache pass); replay allocations: {n}",
        a.triangles().len(),
        b.triangles().len(),
        a.pieces().len(),
        b.pieces().len(),
        per * 1e3
    );
    assert_eq!(n, 0, "a warm query allocated");
}
