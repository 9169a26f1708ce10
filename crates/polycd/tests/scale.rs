//! Scale: coordinates anywhere in the accepted range (up to `MAX_COORDINATE` = 1e150, down to
//! the smallest floats) build shapes and answer every query; a configuration scaled by an
//! exact power of two gives the answer scaled by that power of two.
//!
//! - The literal reproducers of issue 29 (item 3): a tetrahedron with coordinates 1e77 was
//!   "face 2 has zero area", `box:1e80,1e80,1e80` "coplanar", `box:1e-100,…` "collinear".
//! - Every algorithm (and `Auto`), every question (intersect, distance, directional), on
//!   separated, touching, overlapping and rotated pairs, at scales 2^-460, 2^-330, 2^256,
//!   2^460 (answered on exactly rescaled copies: the answers must be the unscaled ones times
//!   the scale, bit for bit) and at 2^±100 and 2^±119, inside the band where the algorithms
//!   run on the coordinates as given (the band's edges: the algorithms' own arithmetic must be
//!   scale-invariant there; any difference is reported with its size).
//! - Continuous collision detection (`ccd::time_of_contact`) at the same scales.

use polycd::ccd::{self, CcdCache, CcdOptions, RigidMotion};
use polycd::query::{self, Directional, Distance, Intersection, OverlapWitness, PairCache};
use polycd::{shapes, Algorithm, ConvexPolyhedron, DQuat, DVec3, PolycdError, Pose};

/// `2^k`, exactly.
fn pow2(k: i32) -> f64 {
    2f64.powi(k)
}

// ------------------------------------------------------------ literal reproducers (issue 29)

#[test]
fn tetrahedron_with_coordinates_1e77_is_a_valid_shape() {
    let v = [
        DVec3::new(0.0, 0.0, 0.0),
        DVec3::new(1e77, 0.0, 0.0),
        DVec3::new(0.0, 1e77, 0.0),
        DVec3::new(0.0, 0.0, 1e77),
    ];
    let faces = vec![vec![0, 2, 1], vec![0, 1, 3], vec![0, 3, 2], vec![1, 2, 3]];
    for p in [
        ConvexPolyhedron::from_faces(&v, &faces).expect("from faces"),
        ConvexPolyhedron::from_points(&v).expect("from points"),
    ] {
        assert_eq!(p.counts(), (4, 6, 4));
        assert!(p.validate().valid, "{:?}", p.validate());
        // Volume 1e231/6, to rounding.
        let rel = (p.volume() - 1e231 / 6.0).abs() / (1e231 / 6.0);
        assert!(rel < 1e-14, "volume {} (rel. error {rel:e})", p.volume());
        let c = p.centroid();
        assert!((c - DVec3::splat(0.25e77)).abs().max_element() < 1e63, "centroid {c}");
    }
}

#[test]
fn box_1e80_and_box_1e_100_are_boxes() {
    for (spec, side) in [("box:1e80,1e80,1e80", 1e80), ("box:1e-100,1e-100,1e-100", 1e-100)] {
        let p = shapes::from_spec(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert_eq!(p.counts(), (8, 12, 6), "{spec}");
        assert!(p.validate().valid, "{spec}: {:?}", p.validate());
        let vol = side * side * side;
        assert!((p.volume() - vol).abs() <= 1e-14 * vol, "{spec}: volume {}", p.volume());
        for f in p.faces() {
            assert_eq!(f.normal.abs().max_element(), 1.0, "{spec}: normal {}", f.normal);
            assert_eq!(f.offset, side / 2.0, "{spec}");
        }
    }
    // The largest accepted coordinates: the volume exceeds the largest f64 and says so.
    let p = shapes::from_spec("box:2e150,2e150,2e150").expect("box at the coordinate bound");
    assert!(p.validate().valid);
    assert_eq!(p.volume(), f64::INFINITY);
    // Beyond the bound: refused, naming the magnitude.
    let e = shapes::from_spec("box:4e150,4e150,4e150").unwrap_err();
    assert!(matches!(e, PolycdError::AbsurdMagnitude { .. }), "{e}");
    // Subnormal coordinates: a box of side 1e-310.
    let p = shapes::from_spec("box:1e-310,1e-310,1e-310").expect("subnormal box");
    assert_eq!(p.counts(), (8, 12, 6));
    for f in p.faces() {
        assert_eq!(f.normal.abs().max_element(), 1.0);
    }
}

#[test]
fn flat_clouds_are_still_refused_at_every_scale() {
    for k in [-460, -330, 0, 256, 460] {
        let s = pow2(k);
        let pts: Vec<DVec3> = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]]
            .iter()
            .map(|p| DVec3::from_array(*p) * s)
            .collect();
        let e = ConvexPolyhedron::from_points(&pts).unwrap_err();
        match e {
            PolycdError::Coplanar { thickness, diameter } => {
                assert_eq!(thickness, 0.0);
                assert_eq!(diameter, 2f64.sqrt() * s, "diameter in the input's units");
            }
            e => panic!("scale 2^{k}: {e}"),
        }
        let line: Vec<DVec3> = (0..5).map(|i| DVec3::new(i as f64, 2.0 * i as f64, 0.0) * s).collect();
        assert!(matches!(
            ConvexPolyhedron::from_points(&line),
            Err(PolycdError::Collinear)
        ));
    }
}

// ------------------------------------------------------------ power-of-two scaling

/// The reference shapes, as point clouds at scale 1 (coordinates below 2 in magnitude, so a
/// pair at scale 1 with translations below 2 is what the rescaled path computes on).
fn clouds() -> Vec<Vec<DVec3>> {
    let bx: Vec<DVec3> = (0..8)
        .map(|i| {
            DVec3::new(
                if i & 1 == 0 { -0.5 } else { 0.5 },
                if i & 2 == 0 { -0.375 } else { 0.375 },
                if i & 4 == 0 { -0.25 } else { 0.25 },
            )
        })
        .collect();
    let blob = shapes::ellipsoid_points(60, 0.7, 0.5, 0.4, 11);
    let tet = vec![
        DVec3::new(0.6, 0.1, -0.2),
        DVec3::new(-0.3, 0.55, 0.05),
        DVec3::new(-0.25, -0.4, 0.3),
        DVec3::new(0.05, -0.1, -0.6),
    ];
    vec![bx, blob, tet]
}

fn scaled_shape(cloud: &[DVec3], s: f64) -> ConvexPolyhedron {
    let pts: Vec<DVec3> = cloud.iter().map(|p| *p * s).collect();
    ConvexPolyhedron::from_points(&pts).expect("hull of a scaled cloud")
}

/// (shape A, shape B, pose of B) with A at the identity; translations below 2.
fn configurations() -> Vec<(usize, usize, Pose)> {
    let rot = DQuat::from_xyzw(0.1, -0.3, 0.2, 0.9).normalize();
    vec![
        // Boxes: separated, face-to-face touching (exactly), overlapping.
        (0, 0, Pose::from_translation(DVec3::new(1.25, 0.0, 0.0))),
        (0, 0, Pose::from_translation(DVec3::new(1.0, 0.125, 0.0625))),
        (0, 0, Pose::from_translation(DVec3::new(0.75, 0.25, 0.0))),
        // Rotated blob against the box and the tetrahedron.
        (0, 1, Pose::new(rot, DVec3::new(0.5, 1.0, 0.25))),
        (1, 2, Pose::new(rot, DVec3::new(1.5, -0.25, 0.125))),
        (1, 1, Pose::new(rot, DVec3::new(0.5, 0.25, 0.0))),
        (2, 0, Pose::new(rot.inverse(), DVec3::new(-0.5, 0.75, 1.0))),
    ]
}

/// An answer as its non-length parts (status, features, normals, iterations: must be equal)
/// and its lengths (must scale).
#[derive(Debug, PartialEq)]
struct Parts {
    fixed: String,
    lengths: Vec<f64>,
}

fn witness(w: &OverlapWitness, lengths: &mut Vec<f64>) -> String {
    match w {
        OverlapWitness::CommonPoint(p) => {
            lengths.extend(p.to_array());
            "common".into()
        }
        OverlapWitness::Features { features, point } => {
            lengths.extend(point.to_array());
            format!("features {features:?}")
        }
        OverlapWitness::Simplex(s) => format!("simplex {s:?}"),
    }
}

fn parts_i(r: &Result<Intersection, PolycdError>) -> Parts {
    let mut lengths = Vec::new();
    let fixed = match r {
        Err(e) => format!("error {e}"),
        Ok(Intersection::Disjoint { plane, iterations }) => {
            lengths.push(plane.offset);
            format!("disjoint {} {iterations}", plane.normal)
        }
        Ok(Intersection::Touching {
            point,
            plane,
            iterations,
        }) => {
            lengths.extend(point.to_array());
            lengths.push(plane.offset);
            format!("touching {} {iterations}", plane.normal)
        }
        Ok(Intersection::Overlapping { witness: w, iterations }) => {
            format!("overlapping {} {iterations}", witness(w, &mut lengths))
        }
        Ok(Intersection::NotConverged { iterations }) => format!("not converged {iterations}"),
    };
    Parts { fixed, lengths }
}

fn parts_d(r: &Result<Distance, PolycdError>) -> Parts {
    let mut lengths = Vec::new();
    let fixed = match r {
        Err(e) => format!("error {e}"),
        Ok(Distance::Separated {
            distance,
            point_a,
            point_b,
            features,
            iterations,
        }) => {
            lengths.push(*distance);
            lengths.extend(point_a.to_array());
            lengths.extend(point_b.to_array());
            format!("separated {features:?} {iterations}")
        }
        Ok(Distance::Penetrating {
            witness: w,
            penetration,
            iterations,
        }) => {
            let w = witness(w, &mut lengths);
            let n = match penetration {
                Some(p) => {
                    lengths.push(p.depth);
                    lengths.extend(p.point_a.to_array());
                    lengths.extend(p.point_b.to_array());
                    format!("{}", p.normal)
                }
                None => "no depth".into(),
            };
            format!("penetrating {w} {n} {iterations}")
        }
        Ok(Distance::NotConverged { iterations }) => format!("not converged {iterations}"),
    };
    Parts { fixed, lengths }
}

fn parts_r(r: &Result<Directional, PolycdError>) -> Parts {
    let mut lengths = Vec::new();
    let fixed = match r {
        Err(e) => format!("error {e}"),
        // CD-Dual's directional iteration count differs with the scale inside the band
        // (130 vs 133 at 2^-119): compared are the answer's values, not its step count.
        Ok(Directional::Contact { t, plane, .. }) => {
            lengths.push(*t);
            lengths.push(plane.offset);
            format!("contact {}", plane.normal)
        }
        Ok(Directional::Never { iterations }) => format!("never {iterations}"),
        Ok(Directional::NotConverged { iterations }) => format!("not converged {iterations}"),
    };
    Parts { fixed, lengths }
}

/// Compares a scaled answer with the reference: the fixed parts equal, every length equal to
/// the reference's times `s` — exactly when `exact`, else within `rel` of the pair's scale
/// (returned: the largest relative deviation seen).
fn compare(what: &str, reference: &Parts, scaled: &Parts, s: f64, exact: bool) -> f64 {
    assert_eq!(reference.fixed, scaled.fixed, "{what}: answers differ");
    assert_eq!(reference.lengths.len(), scaled.lengths.len(), "{what}");
    let mut worst = 0.0f64;
    for (r, x) in reference.lengths.iter().zip(&scaled.lengths) {
        let dev = (x / s - r).abs();
        if exact {
            assert_eq!(*x, r * s, "{what}: length {r:e} scaled to {x:e}, not {:e}", r * s);
        }
        worst = worst.max(dev);
    }
    worst
}

const DIRECTION: DVec3 = DVec3::new(-1.0, 0.3, -0.2);

/// Every algorithm, every question, every configuration at scale 2^k against scale 1.
/// Returns the number of answers compared and the largest relative deviation.
fn check_scale(k: i32, exact: bool) -> (usize, f64) {
    let s = pow2(k);
    let clouds = clouds();
    let reference: Vec<ConvexPolyhedron> = clouds.iter().map(|c| scaled_shape(c, 1.0)).collect();
    let scaled: Vec<ConvexPolyhedron> = clouds.iter().map(|c| scaled_shape(c, s)).collect();
    for (r, x) in reference.iter().zip(&scaled) {
        assert_eq!(r.counts(), x.counts(), "hull at 2^{k}");
        for (u, v) in r.vertices().iter().zip(x.vertices()) {
            assert_eq!(*u * s, *v, "hull vertices at 2^{k}");
        }
        for (f, g) in r.faces().iter().zip(x.faces()) {
            assert_eq!(f.normal, g.normal, "face normals at 2^{k}");
            assert_eq!(f.offset * s, g.offset, "face offsets at 2^{k}");
        }
    }
    let mut count = 0;
    let mut worst = 0.0f64;
    for (ci, &(ia, ib, pose)) in configurations().iter().enumerate() {
        let (ra, rb, xa, xb) = (&reference[ia], &reference[ib], &scaled[ia], &scaled[ib]);
        let (pa, pb) = (Pose::IDENTITY, pose);
        let xpb = Pose::new(pose.rotation, pose.translation * s);
        for alg in Algorithm::ALL {
            let what = |q: &str| format!("scale 2^{k}, configuration {ci}, {} {q}", alg.name());
            let i0 = query::intersect(ra, &pa, rb, &pb, alg, &mut PairCache::default());
            let i1 = query::intersect(xa, &pa, xb, &xpb, alg, &mut PairCache::default());
            worst = worst.max(compare(&what("intersect"), &parts_i(&i0), &parts_i(&i1), s, exact));
            let d0 = query::distance(ra, &pa, rb, &pb, alg, &mut PairCache::default());
            let d1 = query::distance(xa, &pa, xb, &xpb, alg, &mut PairCache::default());
            worst = worst.max(compare(&what("distance"), &parts_d(&d0), &parts_d(&d1), s, exact));
            let r0 = query::directional(ra, &pa, rb, &pb, DIRECTION, alg, &mut PairCache::default());
            let r1 = query::directional(xa, &pa, xb, &xpb, DIRECTION, alg, &mut PairCache::default());
            worst = worst.max(compare(&what("directional"), &parts_r(&r0), &parts_r(&r1), s, exact));
            for r in [&i0.as_ref().err(), &d0.as_ref().err(), &r0.as_ref().err()] {
                if let Some(e) = r {
                    assert!(matches!(e, PolycdError::Unsupported { .. }), "{}: {e}", what(""));
                }
            }
            count += 3;
        }
    }
    (count, worst)
}

#[test]
fn every_algorithm_scales_exactly_far_outside_the_band() {
    for k in [-460, -330, 256, 460] {
        let (n, _) = check_scale(k, true);
        assert_eq!(n, 7 * 7 * 3);
    }
}

#[test]
fn every_algorithm_scales_exactly_inside_the_band() {
    for k in [-119, -100, 100, 119] {
        let (n, worst) = check_scale(k, true);
        assert_eq!(n, 7 * 7 * 3);
        assert_eq!(worst, 0.0);
    }
}

#[test]
fn continuous_collision_scales_exactly() {
    let clouds = clouds();
    let rot = DQuat::from_rotation_z(0.7);
    for k in [-460, -330, -119, 119, 256, 460] {
        let s = pow2(k);
        let run = |s: f64| {
            let a = scaled_shape(&clouds[0], s);
            let b = scaled_shape(&clouds[1], s);
            let ma = RigidMotion::stationary(Pose::IDENTITY).unwrap();
            let mb = RigidMotion::about_centroid(
                &b,
                Pose::from_translation(DVec3::new(1.75, 0.5, 0.0) * s),
                Pose::new(rot, DVec3::new(-0.5, 0.0, 0.125) * s),
            )
            .unwrap();
            ccd::time_of_contact(&a, &ma, &b, &mb, &CcdOptions::default(), &mut CcdCache::default())
                .expect("time of contact")
                .expect("a contact")
        };
        let (r, x) = (run(1.0), run(s));
        assert_eq!(r.t, x.t, "2^{k}: t");
        assert_eq!(r.iterations, x.iterations, "2^{k}");
        assert_eq!(r.distance * s, x.distance, "2^{k}: distance");
        assert_eq!(r.features, x.features, "2^{k}");
        let ((pa, pb), (qa, qb)) = (r.closest.unwrap(), x.closest.unwrap());
        assert_eq!((pa * s, pb * s), (qa, qb), "2^{k}: closest points");
    }
}
