//! Regression tests: one per bug, with the literal inputs, the cause and where it was found.

use polycd::query::{self, Status};
use polycd::{oracle, shapes, Algorithm, DQuat, DVec3, PairCache, Pose};

/// Found by the `query` fuzz target (2026-11-22): two concentric-ish icospheres, deeply
/// overlapping (signed distance −1.70), reported Disjoint by CD-Dual.
#[test]
fn fuzz_cd_dual_icospheres_deep_overlap() {
    let a = shapes::icosphere(1, 1.21).unwrap();
    let b = shapes::icosphere(1, 2.52).unwrap();
    let pa = Pose::IDENTITY;
    let pb = Pose::new(
        DQuat::from_xyzw(-0.5, -0.5, -0.5, -0.5),
        DVec3::new(-1.029, -1.039, -1.029),
    );
    let sd = oracle::signed_distance(&a, &pa, &b, &pb).unwrap().signed_distance;
    assert!(sd < -1.0);
    for algo in Algorithm::ALL {
        let mut cache = PairCache::default();
        if let Ok(r) = query::intersect(&a, &pa, &b, &pb, algo, &mut cache) {
            assert_eq!(r.status(), Status::Overlapping, "{algo:?}: {r:?}");
        }
    }
}
