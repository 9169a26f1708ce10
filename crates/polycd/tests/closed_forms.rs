//! `Auto`'s closed forms (query/closed.rs) against independent formulas written here and
//! against GJK: sphere–sphere, sphere–capsule, capsule–capsule (parallel, skew, crossing in
//! projection), sphere–box (face, edge and vertex regions, centre inside), plain points and
//! segments. Distances must match the closed form within `AGREEMENT_REL` × the pair scale,
//! statuses must match GJK's, closest points must lie on the rounded surfaces.

use polycd::query::{self, contact_tolerance, pair_scale};
use polycd::tolerance::AGREEMENT_REL;
use polycd::{shapes, Algorithm, ConvexPolyhedron, DVec3, Distance, Feature, Intersection, PairCache, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Distance from `p` to segment `[a, b]` by ternary search on the parameter (independent of
/// the library's clamped projection).
fn point_segment(p: DVec3, a: DVec3, b: DVec3) -> f64 {
    let f = |t: f64| (a + (b - a) * t - p).length();
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if f(m1) <= f(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    f(0.5 * (lo + hi)).min(f(0.0)).min(f(1.0))
}

/// Segment–segment distance by nested ternary search (convex in both parameters).
fn segment_segment(p0: DVec3, p1: DVec3, q0: DVec3, q1: DVec3) -> f64 {
    let g = |s: f64| point_segment(p0 + (p1 - p0) * s, q0, q1);
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if g(m1) <= g(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    g(0.5 * (lo + hi)).min(g(0.0)).min(g(1.0))
}

/// Signed distance of a world point to the box of full sides `s` at `pose`.
fn point_box(p: DVec3, s: DVec3, pose: &Pose) -> f64 {
    let q = pose.inverse_transform_point(p).abs() - s * 0.5;
    if q.max_element() <= 0.0 {
        q.max_element()
    } else {
        q.max(DVec3::ZERO).length()
    }
}

fn capsule_ends(len: f64, pose: &Pose) -> (DVec3, DVec3) {
    let h = DVec3::new(0.0, 0.0, 0.5 * len);
    (pose.transform_point(-h), pose.transform_point(h))
}

/// Checks Auto's distance and boolean answers on one pair against the expected signed
/// distance and against GJK's answers; returns Auto's distance answer.
fn check(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose, expected: f64) -> Distance {
    let mut c = PairCache::default();
    let scale = pair_scale(a, pa, b, pb);
    let tol = contact_tolerance(a, pa, b, pb);
    let auto = query::distance(a, pa, b, pb, Algorithm::Auto, &mut c).unwrap();
    let d = auto.signed_distance().expect("a signed distance");
    assert!(
        (d - expected).abs() <= AGREEMENT_REL * scale,
        "Auto {d:.17e}, closed form {expected:.17e} (scale {scale})"
    );
    c.forget();
    let gjk = query::distance(a, pa, b, pb, Algorithm::Gjk, &mut c).unwrap();
    let g = gjk.signed_distance().unwrap();
    assert!((d - g).abs() <= AGREEMENT_REL * scale, "Auto {d:.17e}, GJK {g:.17e}");
    // Closest points on the rounded surfaces, `d` apart.
    if let Distance::Separated { point_a, point_b, .. } = auto {
        assert!(((point_b - point_a).length() - d).abs() <= AGREEMENT_REL * scale);
    }
    // The boolean answer: Auto's status is GJK's.
    c.forget();
    let ia = query::intersect(a, pa, b, pb, Algorithm::Auto, &mut c).unwrap();
    c.forget();
    let ig = query::intersect(a, pa, b, pb, Algorithm::Gjk, &mut c).unwrap();
    let kind = |i: &Intersection| std::mem::discriminant(i);
    if expected.abs() > 2.0 * tol {
        assert_eq!(kind(&ia), kind(&ig), "Auto {ia:?}, GJK {ig:?}, expected {expected}");
        assert_eq!(
            matches!(ia, Intersection::Disjoint { .. }),
            expected > 0.0,
            "{ia:?} at {expected}"
        );
    }
    if let Intersection::Disjoint { plane, .. } = ia {
        // The plane separates: B's centre side is positive, A's negative.
        let ca = pa.transform_point(a.bounding_sphere().0);
        let cb = pb.transform_point(b.bounding_sphere().0);
        assert!(plane.signed_distance(cb) > plane.signed_distance(ca));
    }
    auto
}

#[test]
fn spheres_and_capsules_match_the_closed_forms() {
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let sphere = shapes::sphere(0.75).unwrap();
    let capsule = shapes::capsule(2.0, 0.5).unwrap();
    let point = ConvexPolyhedron::from_points(&[DVec3::new(0.1, -0.2, 0.3)]).unwrap();
    let segment = ConvexPolyhedron::from_points(&[DVec3::new(-1.0, 0.2, 0.0), DVec3::new(1.0, 0.5, 0.25)]).unwrap();
    for _ in 0..300 {
        let pa = Pose::new(shapes::random_rotation(&mut rng), DVec3::new(0.3, -0.1, 0.2));
        let c = shapes::unit_vector(&mut rng) * rng.random_range(0.0..4.0);
        let pb = Pose::new(shapes::random_rotation(&mut rng), pa.translation + c);
        // sphere–sphere
        check(&sphere, &pa, &sphere, &pb, c.length() - 1.5);
        // sphere–capsule (either order)
        let (q0, q1) = capsule_ends(2.0, &pb);
        let e = point_segment(pa.translation, q0, q1) - 1.25;
        check(&sphere, &pa, &capsule, &pb, e);
        let (p0, p1) = capsule_ends(2.0, &pa);
        check(
            &capsule,
            &pa,
            &sphere,
            &pb,
            point_segment(pb.translation, p0, p1) - 1.25,
        );
        // capsule–capsule, unless the axes cross (depth not a closed form)
        let s = segment_segment(p0, p1, q0, q1);
        if s > 1e-9 {
            check(&capsule, &pa, &capsule, &pb, s - 1.0);
        }
        // plain point and segment
        let x = pa.transform_point(DVec3::new(0.1, -0.2, 0.3));
        let (s0, s1) = (
            pb.transform_point(DVec3::new(-1.0, 0.2, 0.0)),
            pb.transform_point(DVec3::new(1.0, 0.5, 0.25)),
        );
        let d = point_segment(x, s0, s1);
        if d > 1e-9 {
            check(&point, &pa, &segment, &pb, d);
        }
    }
}

#[test]
fn parallel_and_collinear_capsules() {
    let capsule = shapes::capsule(2.0, 0.5).unwrap();
    let id = Pose::IDENTITY;
    // Side by side, parallel, overlapping in z: distance 3 − 1.
    let d = check(
        &capsule,
        &id,
        &capsule,
        &Pose::from_translation(DVec3::new(3.0, 0.0, 0.7)),
        2.0,
    );
    assert!(matches!(d, Distance::Separated { .. }));
    // End to end on one line: 5 − 2 − 1.
    check(
        &capsule,
        &id,
        &capsule,
        &Pose::from_translation(DVec3::new(0.0, 0.0, 5.0)),
        2.0,
    );
    // Parallel and overlapping (rounded shapes overlap by 0.4): signed −0.4.
    check(
        &capsule,
        &id,
        &capsule,
        &Pose::from_translation(DVec3::new(0.6, 0.0, 0.3)),
        -0.4,
    );
    // Skew, perpendicular, 2 apart along x: the interior points; features are both edges.
    let turn = Pose::new(
        polycd::DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2),
        DVec3::new(2.0, 0.0, 0.0),
    );
    let d = check(&capsule, &id, &capsule, &turn, 1.0);
    match d {
        Distance::Separated {
            features,
            point_a,
            point_b,
            ..
        } => {
            assert_eq!((features.a, features.b), (Feature::Edge(0), Feature::Edge(0)));
            assert!((point_a - DVec3::new(0.5, 0.0, 0.0)).length() < 1e-15);
            assert!((point_b - DVec3::new(1.5, 0.0, 0.0)).length() < 1e-15);
        }
        other => panic!("{other:?}"),
    }
}

/// Nearly parallel capsules whose axes cross (or pass `h` apart along their common
/// perpendicular), tilted by e^−k, k = 6…24: the cores' distance is exactly `h`, so the signed
/// distance is `h − 2r`. The Gram determinant `|u|²|v|² − (u·v)²` of the common perpendicular
/// cancels entirely once sin²θ ≲ ε (k ≥ 18); before the fix the closed form took end points
/// θ·L/2 apart for the closest pair (depth 79.9999999991 for 80 in the differential run).
/// Scales 1e-3…1e4, at the origin and 1e5 · scale away from it, both orders.
#[test]
fn nearly_parallel_crossing_capsules() {
    for scale in [1e-3, 1.0, 1e4] {
        let capsule = shapes::capsule(2.0 * scale, 0.25 * scale).unwrap();
        for far in [0.0, 1e5 * scale] {
            let base = DVec3::new(0.3, -0.7, 0.2) * far;
            for k in 6..=24 {
                let theta = (-(k as f64)).exp();
                for h in [0.0, 1e-9, 1e-6, 1e-3, 0.7] {
                    let pa = Pose::from_translation(base);
                    // B's axis turned by θ about x; its centre h along x (the common
                    // perpendicular of two axes in the y–z plane).
                    let pb = Pose::new(
                        polycd::DQuat::from_rotation_x(theta),
                        base + DVec3::new(h * scale, 0.0, 0.0),
                    );
                    let expected = h * scale - 0.5 * scale;
                    check(&capsule, &pa, &capsule, &pb, expected);
                    check(&capsule, &pb, &capsule, &pa, expected);
                    // Centres apart along A's axis too: crossing off-centre.
                    let pc = Pose::new(
                        polycd::DQuat::from_rotation_x(theta),
                        base + DVec3::new(h * scale, 0.0, 0.4 * scale),
                    );
                    // B's axis through (h, 0, 0.4) along (0, −sin θ, cos θ) crosses A's
                    // line (x = h off) where y = 0: at its centre; still h apart.
                    check(&capsule, &pa, &capsule, &pc, expected);
                }
            }
        }
    }
}

/// The directional answer on nearly coincident capsules (both centred on one point, B's
/// axis tilted by e^−k, k = 8…16): B translated by `t·s` touches A where the segments'
/// distance reaches `2r`; the nearer root to 0 by bisection on the nested ternary search
/// above. The cores' difference is a sliver parallelogram, on whose thin side GJK named two
/// edges, and the edges' cross product (across the sliver) sent the advancement past the
/// chord's end: `t` 6 % short (−9.616e-4 for −1.0195e-3 in the differential run).
#[test]
fn directional_on_nearly_coincident_capsules() {
    let mut rng = ChaCha8Rng::seed_from_u64(371);
    let (half, r) = (0.6, 0.4);
    let capsule = shapes::capsule(2.0 * half, r).unwrap();
    for k in [8, 10, 12, 14, 16] {
        for _ in 0..3 {
            let ra = shapes::random_rotation(&mut rng);
            let axis = shapes::unit_vector(&mut rng);
            let rb = ra * polycd::DQuat::from_axis_angle(axis, (-(k as f64)).exp());
            let c = DVec3::new(0.3, -0.2, 0.1);
            let (pa, pb) = (Pose::new(ra, c), Pose::new(rb, c));
            let (p0, p1) = capsule_ends(2.0 * half, &pa);
            let (q0, q1) = capsule_ends(2.0 * half, &pb);
            let s = shapes::unit_vector(&mut rng);
            let gap = |t: f64| segment_segment(p0, p1, q0 + s * t, q1 + s * t) - 2.0 * r;
            let root = |far: f64| {
                let (mut inside, mut out) = (0.0f64, far);
                for _ in 0..60 {
                    let mid = 0.5 * (inside + out);
                    if gap(mid) <= 0.0 {
                        inside = mid;
                    } else {
                        out = mid;
                    }
                }
                0.5 * (inside + out)
            };
            // The chord's ends; the answer is the one nearer 0 (centred shapes: often a tie,
            // either end then).
            let (up, down) = (root(4.0), root(-4.0));
            let mut cache = PairCache::default();
            match query::directional(&capsule, &pa, &capsule, &pb, s, Algorithm::Auto, &mut cache).unwrap() {
                polycd::Directional::Contact { t, plane, .. } => {
                    let want = if (t - up).abs() <= (t - down).abs() { up } else { down };
                    let err = (t - want).abs() * plane.normal.dot(s).abs();
                    assert!(
                        err <= 1e-9,
                        "k {k}: t {t:e}, oracle {want:e} (|n·s| {})",
                        plane.normal.dot(s)
                    );
                    assert!(
                        want.abs() <= up.min(-down) + 1e-9,
                        "k {k}: t {t:e}, ends {down:e} {up:e}"
                    );
                }
                other => panic!("k {k}: {other:?}"),
            }
        }
    }
}

#[test]
fn sphere_box_regions_and_inside() {
    let mut rng = ChaCha8Rng::seed_from_u64(2022);
    let sides = DVec3::new(2.0, 1.5, 1.0);
    let bx = shapes::cuboid(sides.x, sides.y, sides.z).unwrap();
    let sphere = shapes::sphere(0.4).unwrap();
    for _ in 0..500 {
        let pb = Pose::new(shapes::random_rotation(&mut rng), DVec3::new(-0.5, 0.25, 1.0));
        let c = pb.translation + shapes::unit_vector(&mut rng) * rng.random_range(0.0..2.5);
        let pa = Pose::new(shapes::random_rotation(&mut rng), c);
        let e = point_box(c, sides, &pb) - 0.4;
        check(&sphere, &pa, &bx, &pb, e);
        check(&bx, &pb, &sphere, &pa, e);
    }
    // Face, edge and vertex regions of the axis-aligned box, with their features.
    let id = Pose::IDENTITY;
    let at = |x: f64, y: f64, z: f64| Pose::from_translation(DVec3::new(x, y, z));
    let face = check(&sphere, &at(2.0, 0.0, 0.0), &bx, &id, 1.0 - 0.4);
    let edge = check(&sphere, &at(2.0, 1.75, 0.0), &bx, &id, 2f64.sqrt() - 0.4);
    let vertex = check(&sphere, &at(2.0, 1.75, 1.5), &bx, &id, 3f64.sqrt() - 0.4);
    let fb = |d: &Distance| match d {
        Distance::Separated { features, .. } => features.b,
        other => panic!("{other:?}"),
    };
    assert!(matches!(fb(&face), Feature::Face(_)));
    assert!(matches!(fb(&edge), Feature::Edge(_)));
    assert!(matches!(fb(&vertex), Feature::Vertex(_)));
    // Centre inside, 0.3 below the top face: depth 0.3 + 0.4, pushing B (the box) down.
    let d = check(&sphere, &at(0.1, 0.0, 0.2), &bx, &id, -0.7);
    match d {
        Distance::Penetrating {
            penetration: Some(p), ..
        } => {
            assert!((p.depth - 0.7).abs() < 1e-15);
            assert!((p.normal - DVec3::new(0.0, 0.0, -1.0)).length() < 1e-15);
        }
        other => panic!("{other:?}"),
    }
}

/// Status, signed distance, points and features of a distance answer, for bit-for-bit
/// comparisons (`None` fields where the variant has none).
fn parts(d: &Distance) -> (Option<f64>, Option<(DVec3, DVec3)>, Option<polycd::FeaturePair>) {
    match *d {
        Distance::Separated {
            distance,
            point_a,
            point_b,
            features,
            ..
        } => (Some(distance), Some((point_a, point_b)), Some(features)),
        Distance::Penetrating {
            penetration: Some(p), ..
        } => (Some(-p.depth), Some((p.point_a, p.point_b)), None),
        _ => (None, None, None),
    }
}

/// `Auto`'s direct path (a sphere against a sphere, capsule or box, answered before pose
/// normalisation and the safe band) at scales 2^-330 … 2^440 and 10⁶ × the size from the
/// origin: the answers are the unit-scale answers scaled by the power of two, bit for bit
/// (inside the safe band, beyond it, and below it, where the checked path rescales), and the
/// unit-scale answers match the independent closed forms and GJK (`check`).
#[test]
fn direct_path_scales_exactly_far_from_the_origin() {
    let sides = DVec3::new(2.0, 1.5, 1.0);
    let unit = (
        shapes::sphere(0.4).unwrap(),
        shapes::cuboid(sides.x, sides.y, sides.z).unwrap(),
        shapes::capsule(2.0, 0.5).unwrap(),
    );
    for &k in &[-330i32, -200, -121, -60, 60, 121, 300, 440] {
        let s = 2f64.powi(k);
        let sphere = shapes::sphere(0.4 * s).unwrap();
        let bx = shapes::cuboid(sides.x * s, sides.y * s, sides.z * s).unwrap();
        let capsule = shapes::capsule(2.0 * s, 0.5 * s).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(2026);
        for i in 0..60 {
            let offset = if i % 2 == 0 {
                DVec3::new(1e6, -3e5, 2e6)
            } else {
                DVec3::new(0.25, -0.5, 0.125)
            };
            let pb = Pose::new(shapes::random_rotation(&mut rng), offset);
            let c = offset + shapes::unit_vector(&mut rng) * rng.random_range(0.0..2.5);
            let pa = Pose::new(shapes::random_rotation(&mut rng), c);
            let scaled = |p: &Pose| Pose::new(p.rotation, p.translation * s);
            if k == 60 {
                // The unit-scale answers against the closed forms (once per pose).
                check(&unit.0, &pa, &unit.1, &pb, point_box(c, sides, &pb) - 0.4);
                check(&unit.0, &pa, &unit.0, &pb, (c - offset).length() - 0.8);
                let (q0, q1) = capsule_ends(2.0, &pb);
                check(&unit.0, &pa, &unit.2, &pb, point_segment(c, q0, q1) - 0.9);
            }
            for (a, b, ua, ub) in [
                (&sphere, &bx, &unit.0, &unit.1),
                (&bx, &sphere, &unit.1, &unit.0),
                (&sphere, &sphere, &unit.0, &unit.0),
                (&sphere, &capsule, &unit.0, &unit.2),
            ] {
                let (qa, qb) = if std::ptr::eq(a, &bx) { (pb, pa) } else { (pa, pb) };
                let mut cache = PairCache::default();
                let big = query::distance(a, &scaled(&qa), b, &scaled(&qb), Algorithm::Auto, &mut cache).unwrap();
                let one = query::distance(ua, &qa, ub, &qb, Algorithm::Auto, &mut cache).unwrap();
                let (d1, p1, f1) = parts(&one);
                let (ds, ps, fs) = parts(&big);
                assert_eq!(ds, d1.map(|d| d * s), "2^{k}: {big:?} vs {one:?}");
                assert_eq!(ps, p1.map(|(x, y)| (x * s, y * s)), "2^{k}: {big:?} vs {one:?}");
                assert_eq!(fs, f1, "2^{k}");
                let ib = query::intersect(a, &scaled(&qa), b, &scaled(&qb), Algorithm::Auto, &mut cache).unwrap();
                let i1 = query::intersect(ua, &qa, ub, &qb, Algorithm::Auto, &mut cache).unwrap();
                assert_eq!(ib.status(), i1.status(), "2^{k}: {ib:?} vs {i1:?}");
            }
        }
    }
}

/// A sphere against a rotated box far from the origin: the same pair a million units out
/// (both translations moved by an exactly representable offset) has the distance it has at
/// the origin to a few ulps of the pair's own size, not of the coordinates' magnitude — the
/// point–solid distance is taken in the box's frame (it lost 1e-11 when taken between world
/// points). The reference is the independent box formula at the origin.
#[test]
fn sphere_box_distance_does_not_depend_on_where_the_pair_is() {
    let sides = DVec3::new(2.0, 1.5, 1.0);
    let bx = shapes::cuboid(sides.x, sides.y, sides.z).unwrap();
    let sphere = shapes::sphere(0.4).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1129);
    for i in 0..2_000 {
        let rot = shapes::random_rotation(&mut rng);
        // A centre on a 2^-10 grid: `c + o` is exact for both offsets (the pair is moved,
        // not rounded).
        let c = (shapes::unit_vector(&mut rng) * rng.random_range(1.5..4.0) * 1024.0).round() / 1024.0;
        let expected = point_box(c, sides, &Pose::new(rot, DVec3::ZERO)) - 0.4;
        let far = [DVec3::new(1e6, 1e6, -1e6), DVec3::new(-3.0e7, 5.0e5, 2.5e6)][i % 2];
        let mut cache = PairCache::default();
        for o in [DVec3::ZERO, far] {
            let d = query::distance(
                &sphere,
                &Pose::from_translation(c + o),
                &bx,
                &Pose::new(rot, o),
                Algorithm::Auto,
                &mut cache,
            )
            .unwrap();
            let got = d.signed_distance().expect("answered");
            assert!(
                (got - expected).abs() <= 1e-14 * 8.0,
                "{i} at {o:?}: {got} vs {expected}"
            );
        }
    }
}

/// Capsule–capsule and sphere–capsule far from the origin, rotated: the cores are taken
/// relative to A's translation, so the distance a million units out is the origin's to a few
/// ulps of the pair's size (against the nested ternary search at the origin). Taken between
/// world points, the rotated end points were rounded to the coordinates' ulp (≈ 1e-10).
#[test]
fn capsule_distances_do_not_depend_on_where_the_pair_is() {
    let capsule = shapes::capsule(2.0, 0.5).unwrap();
    let sphere = shapes::sphere(0.4).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1130);
    for i in 0..1_000 {
        let (ra, rb) = (shapes::random_rotation(&mut rng), shapes::random_rotation(&mut rng));
        let c = (shapes::unit_vector(&mut rng) * rng.random_range(1.2..4.0) * 1024.0).round() / 1024.0;
        let (b0, b1) = capsule_ends(2.0, &Pose::new(rb, DVec3::ZERO));
        let (a0, a1) = capsule_ends(2.0, &Pose::new(ra, c));
        let cc = segment_segment(a0, a1, b0, b1) - 1.0;
        let sc = point_segment(c, b0, b1) - 0.9;
        let far = [DVec3::new(1e6, 1e6, -1e6), DVec3::new(-3.0e7, 5.0e5, 2.5e6)][i % 2];
        let mut cache = PairCache::default();
        for o in [DVec3::ZERO, far] {
            let (pa, pb) = (Pose::new(ra, c + o), Pose::new(rb, o));
            for (a, expected) in [(&capsule, cc), (&sphere, sc)] {
                let d = query::distance(a, &pa, &capsule, &pb, Algorithm::Auto, &mut cache).unwrap();
                let got = d.signed_distance().expect("answered");
                assert!((got - expected).abs() <= 1e-12, "{i} at {o:?}: {got} vs {expected}");
            }
        }
    }
}

/// Small rounded boxes against small spheres a million units out (the differential's pair
/// 84, seed 22: scale 1e-2): the answer's normal is the core direction taken in the box's
/// frame and turned into the world, a unit vector, so the certificate verifies — a normal
/// from the world points divided by the frame's distance was 4e-9 off unit length.
#[test]
fn far_small_rounded_pairs_have_unit_normals() {
    use polycd::verify::{verify, Answer};
    let bx = shapes::cuboid(0.02, 0.015, 0.01).unwrap().with_radius(0.002).unwrap();
    let sphere = shapes::sphere(0.004).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(84);
    let mut checked = 0;
    for _ in 0..2_000 {
        let o = DVec3::new(541346.981613468, -719316.254561742, -435347.64432721434);
        let pb = Pose::new(shapes::random_rotation(&mut rng), o);
        let pa = Pose::from_translation(o + shapes::unit_vector(&mut rng) * rng.random_range(0.01..0.04));
        let mut cache = PairCache::default();
        for (a, qa, b, qb) in [(&sphere, &pa, &bx, &pb), (&bx, &pb, &sphere, &pa)] {
            let d = query::distance(a, qa, b, qb, Algorithm::Auto, &mut cache).unwrap();
            verify(a, qa, b, qb, &Answer::Distance(d)).unwrap_or_else(|e| panic!("{d:?}: {e}"));
            let i = query::intersect(a, qa, b, qb, Algorithm::Auto, &mut cache).unwrap();
            verify(a, qa, b, qb, &Answer::Intersection(i)).unwrap_or_else(|e| panic!("{i:?}: {e}"));
            checked += 1;
        }
    }
    assert_eq!(checked, 4_000);
}

/// Touching pairs (rounded distance exactly 0) through the direct path: `Touching`, as GJK
/// says; sphere–box touching a face, an edge and a vertex of a rotated box.
#[test]
fn direct_path_touching() {
    let bx = shapes::cuboid(2.0, 2.0, 2.0).unwrap();
    let half = shapes::sphere(0.5).unwrap();
    let turn = polycd::DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2);
    let pb = Pose::new(turn, DVec3::new(10.0, -4.0, 3.0));
    for local in [
        DVec3::new(1.5, 0.25, -0.5),
        DVec3::new(1.0 + 0.5, 1.0, 0.0),
        DVec3::new(1.0, 1.0, 1.5),
    ] {
        let pa = Pose::from_translation(pb.transform_point(local));
        for (a, qa, b, qb) in [(&half, &pa, &bx, &pb), (&bx, &pb, &half, &pa)] {
            let mut c = PairCache::default();
            let auto = query::intersect(a, qa, b, qb, Algorithm::Auto, &mut c).unwrap();
            c.forget();
            let gjk = query::intersect(a, qa, b, qb, Algorithm::Gjk, &mut c).unwrap();
            assert!(matches!(auto, Intersection::Touching { .. }), "{local}: {auto:?}");
            assert_eq!(auto.status(), gjk.status());
            let d = query::distance(a, qa, b, qb, Algorithm::Auto, &mut c).unwrap();
            assert!(
                d.signed_distance().unwrap().abs() <= contact_tolerance(a, qa, b, qb),
                "{d:?}"
            );
        }
    }
    // Two spheres 1.5 apart with radii 0.75.
    let s = shapes::sphere(0.75).unwrap();
    let (p0, p1) = (
        Pose::from_translation(DVec3::new(1e6, 0.0, 0.0)),
        Pose::from_translation(DVec3::new(1e6, 1.5, 0.0)),
    );
    let r = query::intersect(&s, &p0, &s, &p1, Algorithm::Auto, &mut PairCache::default()).unwrap();
    assert!(matches!(r, Intersection::Touching { .. }), "{r:?}");
}

/// Bad poses get the checked path's errors through the direct path's pairs; a quaternion
/// off unit length is normalised (the same answer as the unit one, to rounding).
#[test]
fn direct_path_pose_errors() {
    let bx = shapes::cuboid(2.0, 1.5, 1.0).unwrap();
    let sphere = shapes::sphere(0.4).unwrap();
    let good = Pose::from_translation(DVec3::new(2.0, 0.1, 0.2));
    let bad = [
        (
            Pose::new(polycd::DQuat::IDENTITY, DVec3::new(f64::NAN, 0.0, 0.0)),
            "NonFinitePose",
        ),
        (
            Pose::new(polycd::DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0), DVec3::ZERO),
            "ZeroQuaternion",
        ),
        (
            Pose::new(polycd::DQuat::IDENTITY, DVec3::new(1e200, 0.0, 0.0)),
            "AbsurdMagnitude",
        ),
    ];
    for (pose, name) in bad {
        for (a, b) in [(&sphere, &bx), (&sphere, &sphere), (&bx, &sphere)] {
            let mut c = PairCache::default();
            let d = query::distance(a, &pose, b, &good, Algorithm::Auto, &mut c).unwrap_err();
            let i = query::intersect(a, &good, b, &pose, Algorithm::Auto, &mut c).unwrap_err();
            assert!(format!("{d:?}").starts_with(name), "{d:?}");
            assert!(format!("{i:?}").starts_with(name), "{i:?}");
        }
    }
    let q = polycd::DQuat::from_rotation_y(0.3);
    let long = Pose::new(
        polycd::DQuat::from_xyzw(q.x * 2.0, q.y * 2.0, q.z * 2.0, q.w * 2.0),
        DVec3::ZERO,
    );
    let unit = Pose::new(q, DVec3::ZERO);
    let mut c = PairCache::default();
    let dl = query::distance(&sphere, &good, &bx, &long, Algorithm::Auto, &mut c).unwrap();
    let du = query::distance(&sphere, &good, &bx, &unit, Algorithm::Auto, &mut c).unwrap();
    assert!((dl.signed_distance().unwrap() - du.signed_distance().unwrap()).abs() < 1e-15);
    assert_eq!(parts(&dl).2, parts(&du).2);
}

/// The box path's closest features (clamping in the box's frame): the box's closest point
/// lies on the reported feature (a vertex, on an edge's segment, or in a face's plane), and
/// the feature kind is the region's (one axis outside: a face; two: an edge, or a vertex
/// when the third coordinate is at a bound; three: a vertex), at random rotated poses and on
/// the regions' boundaries.
#[test]
fn box_path_features_hold_the_closest_point() {
    let sides = DVec3::new(2.0, 1.5, 1.0);
    let h = sides * 0.5;
    let bx = shapes::cuboid(sides.x, sides.y, sides.z).unwrap();
    let sphere = shapes::sphere(0.25).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let mut locals: Vec<DVec3> = (0..400)
        .map(|_| {
            DVec3::new(
                rng.random_range(-2.5..2.5),
                rng.random_range(-2.5..2.5),
                rng.random_range(-2.5..2.5),
            )
        })
        .collect();
    // On region boundaries: a coordinate exactly at a bound.
    locals.extend([
        DVec3::new(2.0, h.y, 0.1),
        DVec3::new(2.0, h.y, h.z),
        DVec3::new(2.0, 2.0, h.z),
        DVec3::new(h.x, 2.0, -h.z),
        DVec3::new(-2.0, -2.0, -2.0),
    ]);
    let boundary = locals.len() - 5;
    for (i, local) in locals.into_iter().enumerate() {
        // The boundary points at a translation only (exact in the box's frame).
        let rotation = if i < boundary {
            shapes::random_rotation(&mut rng)
        } else {
            polycd::DQuat::IDENTITY
        };
        let pb = Pose::new(rotation, DVec3::new(-3.0, 7.0, 1.0));
        let pa = Pose::from_translation(pb.transform_point(local));
        let q = local.abs() - h;
        if q.max_element() <= 0.25 {
            continue; // within the contact band or inside: no closest features
        }
        let d = query::distance(&sphere, &pa, &bx, &pb, Algorithm::Auto, &mut PairCache::default()).unwrap();
        let Distance::Separated { point_b, features, .. } = d else {
            panic!("{local}: {d:?}");
        };
        let x = pb.inverse_transform_point(point_b);
        // The centre in the box's frame as the library sees it (the rotation rounds).
        let seen = pb.inverse_transform_point(pa.translation);
        let out = (0..3).filter(|&k| seen[k].abs() > h[k]).count();
        let at_bound = (0..3).filter(|&k| seen[k].abs() == h[k]).count();
        match features.b {
            Feature::Vertex(v) => {
                assert!((x - bx.vertex(v)).length() < 1e-12, "{local}: {x} vs vertex {v}");
                assert!(out == 3 || (out == 2 && at_bound == 1), "{local}: vertex");
            }
            Feature::Edge(e) => {
                let [u, w] = bx.edge(e).vertices;
                let dist = (x - bx.vertex(u)).cross(bx.vertex(w) - bx.vertex(u)).length()
                    / (bx.vertex(w) - bx.vertex(u)).length();
                assert!(dist < 1e-12, "{local}: {x} off edge {e}");
                assert!(out == 2 && at_bound == 0, "{local}: edge");
            }
            Feature::Face(f) => {
                let face = bx.face(f);
                assert!(
                    (face.normal.dot(x) - face.offset).abs() < 1e-12,
                    "{local}: off face {f}"
                );
                assert!(face.normal.dot(seen) > face.offset, "{local}: face {f} faces away");
                assert_eq!(out, 1, "{local}: face");
            }
        }
    }
}

/// The geometry a feature names (its vertices' positions, sorted; a face's normal), so
/// that features of two layouts of one box can be compared.
fn named(p: &ConvexPolyhedron, f: Feature) -> Vec<[u64; 3]> {
    let bits = |v: DVec3| [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()];
    let mut out = match f {
        Feature::Vertex(v) => vec![bits(p.vertex(v))],
        Feature::Edge(e) => p.edge(e).vertices.iter().map(|&v| bits(p.vertex(v))).collect(),
        Feature::Face(f) => vec![bits(p.face(f).normal), [u64::MAX; 3]],
    };
    out.sort_unstable();
    out
}

/// The box path's layout shortcuts (`shapes::cuboid`'s face, vertex and edge order, checked
/// before use) against the general classification and searches: the same box built from its
/// corners in other orders and from its faces in reverse order (other face, vertex and edge
/// ids) gives the same distances and
/// points bit for bit, the same boolean answers, and features naming the same geometry —
/// at random poses, on region boundaries (coordinates exactly at a bound) and inside.
#[test]
fn box_path_any_layout() {
    let bx = shapes::cuboid(2.0, 1.5, 1.0).unwrap();
    let h = DVec3::new(1.0, 0.75, 0.5);
    let corners = bx.vertices().to_vec();
    let mut others = Vec::new();
    for order in [
        [7, 6, 5, 4, 3, 2, 1, 0],
        [3, 0, 6, 5, 1, 7, 2, 4],
        [5, 2, 7, 0, 4, 1, 6, 3],
    ] {
        let pts: Vec<DVec3> = order.iter().map(|&i| corners[i]).collect();
        others.push(ConvexPolyhedron::from_points(&pts).unwrap());
    }
    // Its faces given in reverse order: another face order (the general classification).
    let faces: Vec<Vec<u32>> = (0..6).rev().map(|f| bx.face_vertices(f).to_vec()).collect();
    others.push(ConvexPolyhedron::from_faces(&corners, &faces).unwrap());
    assert!(
        others.iter().any(|o| o.faces()[0].normal != bx.faces()[0].normal),
        "no other face order"
    );
    let sphere = shapes::sphere(0.125).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(2211);
    for i in 0..600 {
        let mut local = DVec3::new(
            rng.random_range(-2.0..2.0),
            rng.random_range(-2.0..2.0),
            rng.random_range(-1.5..1.5),
        );
        // A third of the points with a coordinate exactly at a bound and another beyond its
        // bound (edge and vertex regions, apart: the direct path answers).
        if i % 3 == 0 {
            let (k, j) = (i / 3 % 3, (i / 3 + 1) % 3);
            local[k] = if local[k] > 0.0 { h[k] } else { -h[k] };
            local[j] = local[j].signum() * (h[j] + 0.5);
        }
        let rotation = if i % 2 == 0 {
            polycd::DQuat::IDENTITY
        } else {
            shapes::random_rotation(&mut rng)
        };
        let pb = Pose::new(rotation, DVec3::new(4.0, -1.0, 0.5));
        let pa = Pose::from_translation(pb.transform_point(local));
        let mut c = PairCache::default();
        let d0 = query::distance(&sphere, &pa, &bx, &pb, Algorithm::Auto, &mut c).unwrap();
        let i0 = query::intersect(&sphere, &pa, &bx, &pb, Algorithm::Auto, &mut c).unwrap();
        for o in &others {
            let d = query::distance(&sphere, &pa, o, &pb, Algorithm::Auto, &mut c).unwrap();
            let (s0, p0, f0) = parts(&d0);
            let (s1, p1, f1) = parts(&d);
            assert_eq!(s0.map(f64::to_bits), s1.map(f64::to_bits), "{local}: {d0:?} vs {d:?}");
            assert_eq!(p0, p1, "{local}: {d0:?} vs {d:?}");
            if let (Some(f0), Some(f1)) = (f0, f1) {
                assert_eq!(named(&bx, f0.b), named(o, f1.b), "{local}: {f0:?} vs {f1:?}");
            }
            let i1 = query::intersect(&sphere, &pa, o, &pb, Algorithm::Auto, &mut c).unwrap();
            assert_eq!(i0.status(), i1.status(), "{local}");
        }
    }
}

/// Poses the direct path must refuse as the checked path does (its translation test rides on
/// the contact bound's sums): an infinite or NaN coordinate in any position, a coordinate
/// beyond `MAX_COORDINATE` next to a NaN, and both poses bad.
#[test]
fn direct_path_translation_errors() {
    let bx = shapes::cuboid(2.0, 1.5, 1.0).unwrap();
    let sphere = shapes::sphere(0.4).unwrap();
    let good = Pose::from_translation(DVec3::new(2.0, 0.1, 0.2));
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let bad = [
        (DVec3::new(0.0, inf, 0.0), "NonFinitePose"),
        (DVec3::new(0.0, 0.0, -inf), "NonFinitePose"),
        (DVec3::new(1e200, nan, 0.0), "NonFinitePose"),
        (DVec3::new(0.0, nan, 1e200), "NonFinitePose"),
        (DVec3::new(0.0, 0.0, nan), "NonFinitePose"),
        (DVec3::new(0.0, -2e150, 0.0), "AbsurdMagnitude"),
    ];
    for (t, name) in bad {
        let pose = Pose::from_translation(t);
        for (a, b) in [(&sphere, &bx), (&sphere, &sphere), (&bx, &sphere)] {
            let mut c = PairCache::default();
            for (pa, pb) in [(&pose, &good), (&good, &pose), (&pose, &pose)] {
                let d = query::distance(a, pa, b, pb, Algorithm::Auto, &mut c).unwrap_err();
                let i = query::intersect(a, pa, b, pb, Algorithm::Auto, &mut c).unwrap_err();
                assert!(format!("{d:?}").starts_with(name), "{t}: {d:?}");
                assert!(format!("{i:?}").starts_with(name), "{t}: {i:?}");
            }
        }
    }
}

/// Two spheres' boolean answer against the exact rule of the contract: a `Disjoint` plane
/// has A strictly below it and B strictly above (the spheres' extreme points along its unit
/// normal, `n·c_a + r_a < offset < n·c_b − r_b`), the certificate verifies, the offset is the
/// midpoint's `n·(q_a + q_b)/2` to rounding, the status is GJK's outside the contact band and
/// a `Touching` answer's point lies on its plane — at random poses and radii, at scales
/// 1e-6 … 1e6, 10⁶ × the size from the origin, touching (gap 0) and just apart or
/// overlapping (gap ±1e-9 × the size), on both the direct path (unit rotations) and the checked one
/// (rotations of length 2, normalised first).
#[test]
fn sphere_pair_plane_follows_the_contract() {
    let mut rng = ChaCha8Rng::seed_from_u64(2211);
    let (mut disjoint, mut touching, mut overlapping) = (0, 0, 0);
    for i in 0..6000 {
        let k = [1e-6, 1e-3, 1.0, 1e3, 1e6][i % 5];
        let far = if i % 3 == 0 { 1e6 * k } else { 0.0 };
        let (ra, rb) = (rng.random_range(0.01..1.0) * k, rng.random_range(0.01..1.0) * k);
        let (a, b) = (shapes::sphere(ra).unwrap(), shapes::sphere(rb).unwrap());
        let ca = shapes::unit_vector(&mut rng) * far + shapes::unit_vector(&mut rng) * (rng.random_range(0.0..2.0) * k);
        let u = shapes::unit_vector(&mut rng);
        let gap = match i % 4 {
            0 => rng.random_range(-1.0..1.0) * (ra + rb),
            1 => 0.0,
            2 => rng.random_range(-1.0..1.0) * 1e-9 * k,
            _ => rng.random_range(0.0..3.0) * k,
        };
        let cb = ca + u * (ra + rb + gap);
        let mut q = (shapes::random_rotation(&mut rng), shapes::random_rotation(&mut rng));
        if i % 7 == 0 {
            // Off unit length: the checked path normalises, then answers the same way.
            q.0 = polycd::DQuat::from_xyzw(q.0.x * 2.0, q.0.y * 2.0, q.0.z * 2.0, q.0.w * 2.0);
        }
        let (pa, pb) = (Pose::new(q.0, ca), Pose::new(q.1, cb));
        let mut c = PairCache::default();
        let r = query::intersect(&a, &pa, &b, &pb, Algorithm::Auto, &mut c).unwrap();
        // The certificate against the unit pose (verify takes rotations as unit quaternions;
        // the same geometry: a ball's rotation moves nothing).
        let unit_a = Pose::new(q.0.normalize(), ca);
        polycd::verify::verify_intersection(&a, &unit_a, &b, &pb, &r).unwrap_or_else(|e| panic!("{i}: {e}: {r:?}"));
        let tol = contact_tolerance(&a, &pa, &b, &pb);
        let gjk = query::intersect(&a, &pa, &b, &pb, Algorithm::Gjk, &mut PairCache::default()).unwrap();
        let (pa_w, pb_w) = (pa.translation, pb.translation);
        let dc = (pb_w - pa_w).length();
        if (dc - ra - rb).abs() > 2.0 * tol {
            assert_eq!(r.status(), gjk.status(), "{i}: {r:?} vs {gjk:?}");
        }
        match r {
            Intersection::Disjoint { plane, .. } => {
                disjoint += 1;
                let n = plane.normal;
                assert!((n.length() - 1.0).abs() < 1e-15, "{i}: {n}");
                let (top_a, bottom_b) = (n.dot(pa_w) + ra, n.dot(pb_w) - rb);
                assert!(
                    top_a < plane.offset && plane.offset < bottom_b,
                    "{i}: {top_a} {} {bottom_b}",
                    plane.offset
                );
                let mid = ((pa_w + n * ra) + (pb_w - n * rb)) * 0.5;
                let ulps = 8.0 * f64::EPSILON * (pa_w.abs().max_element() + pb_w.abs().max_element() + ra + rb);
                assert!(
                    (plane.offset - n.dot(mid)).abs() <= ulps,
                    "{i}: {} vs {}",
                    plane.offset,
                    n.dot(mid)
                );
            }
            Intersection::Touching { point, plane, .. } => {
                touching += 1;
                assert!(plane.signed_distance(point).abs() <= tol, "{i}: {r:?}");
            }
            Intersection::Overlapping { .. } => overlapping += 1,
            other => panic!("{i}: {other:?}"),
        }
    }
    assert!(
        disjoint > 1500 && touching > 1000 && overlapping > 1000,
        "{disjoint} {touching} {overlapping}"
    );
}

/// Rounded shapes exactly touching (core distance = r_A + r_B, exact in binary) answer as
/// touching solids do: `Separated` at distance 0 with their features, not an overlap of depth
/// −0 without features; through the closed forms and the generic rounded path alike.
#[test]
fn exactly_touching_rounded_shapes_are_at_distance_zero() {
    let ball = |r: f64| shapes::from_spec(&format!("sphere:{r}")).unwrap();
    let cube = shapes::cuboid(2.0, 2.0, 2.0).unwrap();
    let rounded_box = shapes::cuboid(2.0, 2.0, 2.0).unwrap().with_radius(0.25).unwrap();
    let at = |x: f64| Pose::from_translation(DVec3::new(x, 0.0, 0.0));
    // (A, A's x, B, B at the origin): spheres 1 + 1 at 2; sphere 1 on the cube's face at −2;
    // sphere 0.5 on the rounded box (face at 1.25) at −1.75; capsule-like via a segment core.
    let cases: [(ConvexPolyhedron, f64, &ConvexPolyhedron); 3] = [
        (ball(1.0), -2.0, &ball(1.0)),
        (ball(1.0), -2.0, &cube),
        (ball(0.5), -1.75, &rounded_box),
    ];
    for (k, (a, x, b)) in cases.iter().enumerate() {
        for alg in [Algorithm::Auto, Algorithm::Gjk] {
            let d = query::distance(a, &at(*x), b, &Pose::IDENTITY, alg, &mut PairCache::default()).unwrap();
            match d {
                Distance::Separated {
                    distance,
                    point_a,
                    point_b,
                    ..
                } => {
                    assert!(distance.abs() < 1e-12, "{k} {alg:?}: {d:?}");
                    assert!((point_a - point_b).length() < 1e-12, "{k} {alg:?}: {d:?}");
                }
                other => panic!("{k} {alg:?}: {other:?}"),
            }
        }
    }
}
