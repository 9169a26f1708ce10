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

/// Flat clouds are flat shapes at every scale (issue 22), with the same features: a square
/// at 2^k and a segment of five collinear points.
#[test]
fn flat_clouds_are_flat_shapes_at_every_scale() {
    for k in [-460, -330, 0, 256, 460] {
        let s = pow2(k);
        let pts: Vec<DVec3> = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]]
            .iter()
            .map(|p| DVec3::from_array(*p) * s)
            .collect();
        let sq = ConvexPolyhedron::from_points(&pts).unwrap();
        assert_eq!((sq.dimension(), sq.counts()), (2, (4, 4, 2)), "scale 2^{k}");
        assert_eq!(sq.face_vertices(0), &[0, 1, 3, 2], "scale 2^{k}");
        assert_eq!(sq.face(0).normal, DVec3::Z, "scale 2^{k}");
        assert!(sq.validate().valid, "scale 2^{k}: {:?}", sq.validate());
        let line: Vec<DVec3> = (0..5).map(|i| DVec3::new(i as f64, 2.0 * i as f64, 0.0) * s).collect();
        let seg = ConvexPolyhedron::from_points(&line).unwrap();
        assert_eq!(
            (seg.dimension(), seg.source_indices()),
            (1, &[0u32, 4][..]),
            "scale 2^{k}"
        );
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
        other => panic!("a witness this test does not know: {other:?}"),
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
        Ok(other) => panic!("a variant this test does not know: {other:?}"),
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
        Ok(other) => panic!("a variant this test does not know: {other:?}"),
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
        Ok(other) => panic!("a variant this test does not know: {other:?}"),
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
            for e in [i0.as_ref().err(), d0.as_ref().err(), r0.as_ref().err()]
                .into_iter()
                .flatten()
            {
                assert!(matches!(e, PolycdError::Unsupported { .. }), "{}: {e}", what(""));
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

// ------------------------------------------------------------ certificates, broad phase, mixed scales

use polycd::broad::{PairAnswer, World, WorldOptions};
use polycd::verify::{self, Answer};
use std::sync::Arc;

/// `verify` works on the raw coordinates (no rescaling): its exact plane signs, orientation
/// tests and distances must hold at 2^±460 too. Every answer every algorithm gives at those
/// scales is accepted exactly when the scale-1 answer is.
#[test]
fn certificates_verify_at_every_scale() {
    let clouds = clouds();
    let mut checked = 0;
    for k in [0, -460, -330, 256, 460] {
        let s = pow2(k);
        let shapes: Vec<ConvexPolyhedron> = clouds.iter().map(|c| scaled_shape(c, s)).collect();
        for (ci, &(ia, ib, pose)) in configurations().iter().enumerate() {
            let (a, b) = (&shapes[ia], &shapes[ib]);
            let pa = Pose::IDENTITY;
            let pb = Pose::new(pose.rotation, pose.translation * s);
            for alg in Algorithm::ALL {
                let what = format!("scale 2^{k}, configuration {ci}, {}", alg.name());
                let mut answers = Vec::new();
                if let Ok(r) = query::intersect(a, &pa, b, &pb, alg, &mut PairCache::default()) {
                    answers.push(Answer::Intersection(r));
                }
                if let Ok(r) = query::distance(a, &pa, b, &pb, alg, &mut PairCache::default()) {
                    answers.push(Answer::Distance(r));
                }
                if let Ok(r) = query::directional(a, &pa, b, &pb, DIRECTION, alg, &mut PairCache::default()) {
                    answers.push(Answer::Directional {
                        direction: DIRECTION,
                        answer: r,
                    });
                }
                for ans in &answers {
                    if let Err(e) = verify::verify(a, &pa, b, &pb, ans) {
                        panic!("{what}: {ans:?} rejected: {e}");
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 5 * 7 * 7 * 2, "{checked} certificates checked");
}

/// The literal distance answer of two unit boxes 1 apart, scaled to 2^±460 and verified.
#[test]
fn distance_certificate_of_boxes_verifies_at_2_pow_460() {
    for k in [-460, 460] {
        let s = pow2(k);
        let a = shapes::cuboid(s, s, s).unwrap();
        let pb = Pose::from_translation(DVec3::new(2.0 * s, 0.0, 0.0));
        let d = query::distance(&a, &Pose::IDENTITY, &a, &pb, Algorithm::Auto, &mut PairCache::default()).unwrap();
        match d {
            Distance::Separated { distance, .. } => assert_eq!(distance, s, "2^{k}"),
            other => panic!("2^{k}: {other:?}"),
        }
        verify::verify(&a, &Pose::IDENTITY, &a, &pb, &Answer::Distance(d)).unwrap_or_else(|e| panic!("2^{k}: {e}"));
        // A claimed distance 1 % too small is still rejected at that scale.
        if let Distance::Separated {
            distance,
            point_a,
            point_b,
            features,
            iterations,
        } = d
        {
            let wrong = Distance::Separated {
                distance: distance * 0.99,
                point_a,
                point_b,
                features,
                iterations,
            };
            assert!(
                verify::verify(&a, &Pose::IDENTITY, &a, &pb, &Answer::Distance(wrong)).is_err(),
                "2^{k}"
            );
        }
    }
}

/// The world (broad phase boxes + narrow phase) at 2^±460: the same candidate pairs and the
/// answers scaled exactly.
#[test]
fn world_scales_exactly() {
    let clouds = clouds();
    let run = |s: f64| {
        let mut w = World::new(WorldOptions::default());
        let shapes: Vec<Arc<ConvexPolyhedron>> = clouds.iter().map(|c| Arc::new(scaled_shape(c, s))).collect();
        let places = [
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(1.0, 0.25, 0.0),
            DVec3::new(1.5, 1.0, 0.5),
            DVec3::new(8.0, 0.0, 0.0),
            DVec3::new(8.5, 0.0, 0.25),
        ];
        for (i, t) in places.iter().enumerate() {
            w.insert(shapes[i % 3].clone(), Pose::from_translation(*t * s))
                .expect("insert");
        }
        w.update().expect("update");
        let mut out: Vec<(u32, u32, Option<f64>, String)> = w
            .pairs()
            .map(|p| {
                let fixed = match p.answer {
                    PairAnswer::Distance(d) => parts_d(&Ok(d)).fixed,
                    PairAnswer::Intersection(r) => parts_i(&Ok(r)).fixed,
                    other => panic!("a pair answer this test does not know: {other:?}"),
                };
                (p.a.index(), p.b.index(), p.signed_distance(), fixed)
            })
            .collect();
        out.sort_by_key(|p| (p.0, p.1));
        out
    };
    let reference = run(1.0);
    assert!(reference.len() >= 3, "{reference:?}");
    for k in [-460, -330, 256, 460] {
        let s = pow2(k);
        let x = run(s);
        assert_eq!(x.len(), reference.len(), "2^{k}: candidate pairs");
        for (r, q) in reference.iter().zip(&x) {
            assert_eq!((r.0, r.1, &r.3), (q.0, q.1, &q.3), "2^{k}");
            assert_eq!(r.2.map(|d| d * s), q.2, "2^{k}: signed distance");
        }
    }
}

/// Pairs of very different sizes: a 1e-100 box against a 1e100 box, a unit box against a
/// 1e140 box. Every algorithm answers every question with a correct, finite answer (or a
/// typed error for a question an algorithm does not support): never a panic or a NaN.
#[test]
fn mixed_scale_pairs_answer_correctly() {
    // (small side, large side, gap between them along x)
    for (small, large, gap) in [
        (1e-100, 1e100, 3e99),
        (1.0, 1e140, 2e139),
        (1e-100, 1e100, 0.0),
        (1.0, 1e140, -5.0),
    ] {
        let a = shapes::cuboid(small, small, small).unwrap();
        let b = shapes::cuboid(large, large, large).unwrap();
        let pa = Pose::IDENTITY;
        // B's face at x = small/2 + gap.
        let pb = Pose::from_translation(DVec3::new(small / 2.0 + gap + large / 2.0, 0.0, 0.0));
        let what = format!("box {small:e} vs box {large:e}, gap {gap:e}");
        let tol = 1e-12 * large;
        for alg in Algorithm::ALL {
            let what = format!("{what}, {}", alg.name());
            match query::distance(&a, &pa, &b, &pb, alg, &mut PairCache::default()) {
                Ok(
                    d @ Distance::Separated {
                        distance,
                        point_a,
                        point_b,
                        ..
                    },
                ) => {
                    // Touching (gap 0) may be answered as apart by 0, to the tolerance.
                    assert!(gap >= -tol, "{what}: {d:?}");
                    assert!((distance - gap.max(0.0)).abs() <= tol, "{what}: distance {distance:e}");
                    assert!(point_a.is_finite() && point_b.is_finite(), "{what}: {d:?}");
                    verify::verify(&a, &pa, &b, &pb, &Answer::Distance(d)).unwrap_or_else(|e| panic!("{what}: {e}"));
                }
                Ok(d @ Distance::Penetrating { .. }) => {
                    assert!(gap <= tol, "{what}: {d:?}");
                    if let Distance::Penetrating {
                        penetration: Some(p), ..
                    } = d
                    {
                        assert!(p.depth.is_finite() && p.normal.is_finite(), "{what}: {d:?}");
                        assert!((p.depth + gap.min(0.0)).abs() <= tol, "{what}: depth {:e}", p.depth);
                    }
                    verify::verify(&a, &pa, &b, &pb, &Answer::Distance(d)).unwrap_or_else(|e| panic!("{what}: {e}"));
                }
                Ok(d) => panic!("{what}: {d:?}"),
                Err(e) => assert!(matches!(e, PolycdError::Unsupported { .. }), "{what}: {e}"),
            }
            match query::intersect(&a, &pa, &b, &pb, alg, &mut PairCache::default()) {
                Ok(r) => {
                    let apart = matches!(r, Intersection::Disjoint { .. });
                    assert!(apart == (gap > tol) || gap.abs() <= tol, "{what}: {r:?}");
                    verify::verify(&a, &pa, &b, &pb, &Answer::Intersection(r))
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                }
                Err(e) => assert!(matches!(e, PolycdError::Unsupported { .. }), "{what}: {e}"),
            }
            // Moving B towards A along −x.
            let dir = DVec3::new(-1.0, 0.0, 0.0);
            match query::directional(&a, &pa, &b, &pb, dir, alg, &mut PairCache::default()) {
                Ok(r @ Directional::Contact { t, .. }) => {
                    assert!(t.is_finite(), "{what}: {r:?}");
                    // Apart: first contact after `gap`; overlapping: the shortest separating
                    // translation along the line is B's face moved back to A's far side.
                    assert!((t - gap).abs() <= tol, "{what}: t {t:e}");
                    let ans = Answer::Directional {
                        direction: dir,
                        answer: r,
                    };
                    verify::verify(&a, &pa, &b, &pb, &ans).unwrap_or_else(|e| panic!("{what}: {e}"));
                }
                Ok(r) => panic!("{what}: {r:?}"),
                Err(e) => assert!(matches!(e, PolycdError::Unsupported { .. }), "{what}: {e}"),
            }
        }
    }
}
