//! Hull construction on arbitrary point clouds: never panics; every hull it returns is valid.
#![no_main]

use libfuzzer_sys::fuzz_target;
use polycd::{ConvexPolyhedron, DVec3};

fuzz_target!(|points: Vec<[f64; 3]>| {
    let pts: Vec<DVec3> = points.iter().map(|p| DVec3::from_array(*p)).collect();
    if let Ok(p) = ConvexPolyhedron::from_points(&pts) {
        let (v, e, f) = p.counts();
        assert_eq!(v as i64 - e as i64 + f as i64, 2);
        assert!(p.volume() > 0.0);
        if pts.len() <= 64 {
            let rep = p.validate();
            assert!(rep.euler_characteristic == 2 && rep.min_centroid_depth > 0.0, "{rep:?}");
        }
    }
});
