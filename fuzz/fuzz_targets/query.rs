//! The query API with random shapes and poses: no panic, and the algorithms agree with each
//! other away from contact.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use polycd::query::{self, Status};
use polycd::{shapes, Algorithm, DQuat, DVec3, PairCache, Pose};

#[derive(Arbitrary, Debug)]
struct Input {
    a: u8,
    b: u8,
    scale_a: u8,
    scale_b: u8,
    t: [i16; 3],
    q: [i8; 4],
    seed: u16,
}

fn shape(kind: u8, scale: u8, seed: u16) -> Option<polycd::ConvexPolyhedron> {
    let s = 0.01 * (1.0 + scale as f64);
    match kind % 6 {
        0 => shapes::cuboid(s, 2.0 * s, 0.5 * s).ok(),
        1 => shapes::tetrahedron(s).ok(),
        2 => shapes::icosahedron(s).ok(),
        3 => shapes::prism(12, s, 0.1 * s).ok(),
        4 => shapes::ellipsoid(40, s, 0.3 * s, 0.1 * s, seed as u64).ok(),
        _ => shapes::icosphere(1, s).ok(),
    }
}

fuzz_target!(|inp: Input| {
    let (Some(a), Some(b)) = (shape(inp.a, inp.scale_a, inp.seed), shape(inp.b, inp.scale_b, inp.seed ^ 7)) else {
        return;
    };
    let t = DVec3::new(inp.t[0] as f64, inp.t[1] as f64, inp.t[2] as f64) * 0.001;
    let q = DQuat::from_xyzw(inp.q[1] as f64, inp.q[2] as f64, inp.q[3] as f64, inp.q[0] as f64);
    if q.length() < 1e-3 {
        return;
    }
    let pa = Pose::IDENTITY;
    let pb = Pose::new(q.normalize(), t);
    let tol = query::contact_tolerance(&a, &pa, &b, &pb);
    let mut statuses: Vec<(Algorithm, Status)> = Vec::new();
    let mut reference: Option<f64> = None;
    for algo in Algorithm::ALL {
        let mut cache = PairCache::default();
        if let Ok(r) = query::intersect(&a, &pa, &b, &pb, algo, &mut cache) {
            statuses.push((algo, r.status()));
        }
        if let Ok(d) = query::distance(&a, &pa, &b, &pb, algo, &mut cache) {
            if let Some(sd) = d.signed_distance() {
                reference.get_or_insert(sd);
            }
        }
        let _ = query::directional(&a, &pa, &b, &pb, DVec3::new(1.0, 0.5, 0.25), algo, &mut cache);
    }
    // Away from contact every algorithm must give the same status.
    if let Some(sd) = reference {
        if sd.abs() > 1e-6 * query::pair_scale(&a, &pa, &b, &pb) + tol {
            let expected = if sd > 0.0 { Status::Disjoint } else { Status::Overlapping };
            for (algo, s) in statuses {
                assert!(s == expected || s == Status::Unknown, "{algo:?}: {s:?} but signed distance {sd}");
            }
        }
    }
});
