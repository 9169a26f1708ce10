//! Rounded shapes (issue 22, item 2): a core polytope dilated by a ball of radius r.
//!
//! Every answer is checked against a closed form: boxes of half-side 1 rounded by `ra`, `rb`
//! face-on, edge-on and vertex-on (distances `d − R` with `d` = 2, √2·…, √3·…), touching to
//! 1e-12, overlapping cores (`−(depth + R)`), at scales 1e-6…1e6 and 10⁶ sizes from the
//! origin, through every algorithm of the query layer; the directional query against the
//! closed forms of a face (a plane), an edge (a cylinder) and a vertex (a sphere) of the
//! rounded Minkowski difference; radius 0 gives today's answers bit for bit.

use polycd::broad::{World, WorldOptions};
use polycd::query::{self, contact_tolerance, pair_scale, Algorithm, PairCache, Status};
use polycd::verify::{verify, Answer};
use polycd::{shapes, ConvexPolyhedron, DQuat, DVec3, Directional, Distance, Intersection, PolycdError, Pose};
use std::sync::Arc;

/// Every answer's certificate, checked independently (`polycd::verify` with the radii).
fn verified(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose, answer: Answer) {
    if let Err(e) = verify(a, pa, b, pb, &answer) {
        panic!("certificate rejected: {e}\n{answer:?}");
    }
}

/// `query::intersect`, its certificate verified.
fn intersect(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose, alg: Algorithm) -> Intersection {
    let mut c = PairCache::default();
    let r = query::intersect(a, pa, b, pb, alg, &mut c).unwrap();
    verified(a, pa, b, pb, Answer::Intersection(r));
    r
}

/// A box of half-side `h` rounded by `r`.
fn rbox(h: f64, r: f64) -> ConvexPolyhedron {
    shapes::cuboid(2.0 * h, 2.0 * h, 2.0 * h)
        .unwrap()
        .with_radius(r)
        .unwrap()
}

fn at(x: f64, y: f64, z: f64) -> Pose {
    Pose::from_translation(DVec3::new(x, y, z))
}

const DISTANCE_ALGORITHMS: [Algorithm; 5] = [
    Algorithm::Auto,
    Algorithm::Gjk,
    Algorithm::VClip,
    Algorithm::Qp,
    Algorithm::QpFast,
];

/// The rounded distance answer of every distance algorithm, with its signed distance and the
/// two points.
fn distances(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose) -> Vec<(Algorithm, Distance)> {
    DISTANCE_ALGORITHMS
        .iter()
        .map(|&alg| {
            let mut c = PairCache::default();
            let d = query::distance(a, pa, b, pb, alg, &mut c).unwrap();
            verified(a, pa, b, pb, Answer::Distance(d));
            (alg, d)
        })
        .collect()
}

fn points(d: &Distance) -> (DVec3, DVec3) {
    match *d {
        Distance::Separated { point_a, point_b, .. } => (point_a, point_b),
        Distance::Penetrating {
            penetration: Some(p), ..
        } => (p.point_a, p.point_b),
        _ => panic!("no points in {d:?}"),
    }
}

fn close(x: DVec3, y: DVec3, tol: f64) -> bool {
    (x - y).length() <= tol
}

#[test]
fn with_radius_refuses_bad_radii() {
    let c = shapes::cuboid(1.0, 1.0, 1.0).unwrap();
    for r in [-1.0, -0.0 - 1e-300, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e151] {
        let e = c.clone().with_radius(r).unwrap_err();
        assert!(matches!(e, PolycdError::BadRadius { .. }), "{r}: {e:?}");
        assert!(e.to_string().contains("radius"), "{e}");
    }
    let p = c.clone().with_radius(0.25).unwrap();
    assert_eq!(p.radius(), 0.25);
    assert_eq!(p.bounding_radius(), c.bounding_sphere().1 + 0.25);
    assert_eq!(
        p.bounding_sphere(),
        c.bounding_sphere(),
        "the core's sphere stays the core's"
    );
    assert_eq!(c.radius(), 0.0);
    // Replaced, not added.
    assert_eq!(p.with_radius(0.5).unwrap().radius(), 0.5);
}

#[test]
fn radius_zero_is_bit_for_bit_the_polytope() {
    let a = shapes::icosahedron(1.0).unwrap();
    let b = shapes::cuboid(1.0, 2.0, 0.5).unwrap();
    let (a0, b0) = (a.clone().with_radius(0.0).unwrap(), b.clone().with_radius(0.0).unwrap());
    let rot = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
    for t in [0.3, 1.2, 1.7, 4.0] {
        let pb = Pose::new(rot, DVec3::new(t, 0.2 * t, -0.1));
        let pa = Pose::IDENTITY;
        assert_eq!(pair_scale(&a, &pa, &b, &pb), pair_scale(&a0, &pa, &b0, &pb));
        for alg in Algorithm::ALL {
            let (mut c1, mut c2) = (PairCache::default(), PairCache::default());
            assert_eq!(
                query::intersect(&a, &pa, &b, &pb, alg, &mut c1),
                query::intersect(&a0, &pa, &b0, &pb, alg, &mut c2)
            );
            assert_eq!(
                query::distance(&a, &pa, &b, &pb, alg, &mut c1),
                query::distance(&a0, &pa, &b0, &pb, alg, &mut c2)
            );
            let s = DVec3::new(-1.0, 0.1, 0.05);
            assert_eq!(
                query::directional(&a, &pa, &b, &pb, s, alg, &mut c1),
                query::directional(&a0, &pa, &b0, &pb, s, alg, &mut c2)
            );
        }
    }
}

/// The bad-input example, in the library: a box rounded by 0.5 beside a box.
#[test]
fn face_on_distance_is_core_minus_radii() {
    for (ra, rb) in [(0.5, 0.0), (0.0, 0.5), (0.25, 0.75), (0.125, 0.125)] {
        let (a, b) = (rbox(1.0, ra), rbox(1.0, rb));
        let pb = at(4.0, 0.3, -0.2);
        for (alg, d) in distances(&a, &Pose::IDENTITY, &b, &pb) {
            let want = 2.0 - ra - rb;
            assert_eq!(d.signed_distance(), Some(want), "{alg:?} {ra} {rb}: {d:?}");
            let (p, q) = points(&d);
            // On the rounded surfaces: A's point on the face x = 1 + ra, B's on x = 3 − rb.
            assert!(
                (p.x - (1.0 + ra)).abs() < 1e-15 && (q.x - (3.0 - rb)).abs() < 1e-15,
                "{alg:?} {p} {q}"
            );
            assert!((q - p - DVec3::X * want).length() < 1e-14, "{alg:?}");
        }
        for alg in Algorithm::ALL {
            let r = intersect(&a, &Pose::IDENTITY, &b, &pb, alg);
            let Intersection::Disjoint { plane, .. } = r else {
                panic!("{alg:?}: {r:?}")
            };
            assert!(plane.normal.dot(DVec3::X) > 1.0 - 1e-15);
            assert!(plane.offset > 1.0 + ra && plane.offset < 3.0 - rb, "{alg:?} {plane:?}");
        }
    }
}

#[test]
fn edge_on_and_vertex_on_closed_forms() {
    let (ra, rb) = (0.3, 0.2);
    let (a, b) = (rbox(1.0, ra), rbox(1.0, rb));
    // Edge-on: parallel edges x = y = 1 and x = y = 2 at distance √2 (B's box offset by 3, 3).
    let pb = at(3.0, 3.0, 0.4);
    let u = DVec3::new(1.0, 1.0, 0.0).normalize();
    for (alg, d) in distances(&a, &Pose::IDENTITY, &b, &pb) {
        let want = 2f64.sqrt() - 0.5;
        assert!((d.signed_distance().unwrap() - want).abs() < 1e-15, "{alg:?} {d:?}");
        let (p, q) = points(&d);
        assert!(
            ((p - u * ra).x - 1.0).abs() < 1e-15 && ((p - u * ra).y - 1.0).abs() < 1e-15,
            "{alg:?} {p}"
        );
        assert!(
            ((q + u * rb).x - 2.0).abs() < 1e-15 && ((q + u * rb).y - 2.0).abs() < 1e-15,
            "{alg:?} {q}"
        );
        assert!(close(q - p, u * want, 1e-15), "{alg:?}");
    }
    // Vertex-on: (1,1,1) and (2,2,2) at √3.
    let pb = at(3.0, 3.0, 3.0);
    let u = DVec3::ONE.normalize();
    for (alg, d) in distances(&a, &Pose::IDENTITY, &b, &pb) {
        let want = 3f64.sqrt() - 0.5;
        assert!((d.signed_distance().unwrap() - want).abs() < 1e-15, "{alg:?} {d:?}");
        let (p, q) = points(&d);
        assert!(
            close(p, DVec3::ONE + u * ra, 1e-15) && close(q, DVec3::splat(2.0) - u * rb, 1e-15),
            "{alg:?}"
        );
    }
    // Edge-on with rounded overlap (cores √2 apart, R = 2): depth 2 − √2 along the diagonal.
    let (a, b) = (rbox(1.0, 1.5), rbox(1.0, 0.5));
    let pb = at(3.0, 3.0, 0.0);
    let u = DVec3::new(1.0, 1.0, 0.0).normalize();
    for (alg, d) in distances(&a, &Pose::IDENTITY, &b, &pb) {
        let Distance::Penetrating {
            penetration: Some(p),
            witness,
            ..
        } = d
        else {
            panic!("{alg:?}: {d:?}")
        };
        assert!((p.depth - (2.0 - 2f64.sqrt())).abs() < 1e-15, "{alg:?} {p:?}");
        assert!(close(p.normal, u, 1e-15), "{alg:?}");
        // Moving B by depth·normal carries its point onto A's.
        assert!(close(p.point_b + p.normal * p.depth, p.point_a, 1e-15));
        let polycd::OverlapWitness::CommonPoint(c) = witness else {
            panic!("{witness:?}")
        };
        // Within 1.5 of A's core edge and 0.5 of B's.
        let ea = DVec3::new(1.0, 1.0, c.z);
        let eb = DVec3::new(2.0, 2.0, c.z);
        assert!(
            (c - ea).length() <= 1.5 + 1e-15 && (c - eb).length() <= 0.5 + 1e-15,
            "{c}"
        );
    }
}

#[test]
fn touching_within_1e12_and_just_apart() {
    // Cores 2 apart, R = 2 exactly: touching for every algorithm and question.
    let (a, b) = (rbox(1.0, 1.25), rbox(1.0, 0.75));
    let pb = at(4.0, 0.0, 0.0);
    for (alg, d) in distances(&a, &Pose::IDENTITY, &b, &pb) {
        let tol = contact_tolerance(&a, &Pose::IDENTITY, &b, &pb);
        assert_eq!(d.status(tol), Status::Touching, "{alg:?} {d:?}");
        assert!(d.signed_distance().unwrap().abs() <= 1e-12, "{alg:?}");
    }
    for alg in Algorithm::ALL {
        let r = intersect(&a, &Pose::IDENTITY, &b, &pb, alg);
        assert_eq!(r.status(), Status::Touching, "{alg:?} {r:?}");
    }
    // 1e-12 beyond contact (far beyond the 1e-14·scale band): disjoint, distance 1e-12.
    for delta in [1e-12, -1e-12] {
        let pb = at(4.0 + delta, 0.0, 0.0);
        for (alg, d) in distances(&a, &Pose::IDENTITY, &b, &pb) {
            let sd = d.signed_distance().unwrap();
            assert!((sd - delta).abs() <= 1e-15, "{alg:?} {delta}: {sd}");
        }
        for alg in Algorithm::ALL {
            let r = intersect(&a, &Pose::IDENTITY, &b, &pb, alg);
            let want = if delta > 0.0 {
                Status::Disjoint
            } else {
                Status::Overlapping
            };
            assert_eq!(r.status(), want, "{alg:?} {delta}: {r:?}");
        }
    }
}

#[test]
fn overlapping_cores_add_the_radii_to_the_depth() {
    let (ra, rb) = (0.25, 0.5);
    let (a, b) = (rbox(1.0, ra), rbox(1.0, rb));
    // Cores overlap by 0.5 along x (B at x = 1.5).
    let pb = at(1.5, 0.1, 0.0);
    for (alg, d) in distances(&a, &Pose::IDENTITY, &b, &pb) {
        let Distance::Penetrating {
            penetration: Some(p), ..
        } = d
        else {
            panic!("{alg:?}: {d:?}")
        };
        assert!((p.depth - (0.5 + ra + rb)).abs() < 1e-15, "{alg:?} {p:?}");
        assert!(close(p.normal, DVec3::X, 1e-15), "{alg:?} {p:?}");
        assert!((p.point_a.x - (1.0 + ra)).abs() < 1e-15 && (p.point_b.x - (0.5 - rb)).abs() < 1e-15);
        assert_eq!(d.signed_distance(), Some(-p.depth));
    }
    for alg in Algorithm::ALL {
        let r = intersect(&a, &Pose::IDENTITY, &b, &pb, alg);
        assert_eq!(r.status(), Status::Overlapping, "{alg:?}");
    }
    // Cores touching exactly (face on face): the depth is R along the face normal.
    let pb = at(2.0, 0.5, 0.25);
    for (alg, d) in distances(&a, &Pose::IDENTITY, &b, &pb) {
        let Distance::Penetrating {
            penetration: Some(p), ..
        } = d
        else {
            panic!("{alg:?}: {d:?}")
        };
        assert!(
            (p.depth - (ra + rb)).abs() < 1e-15 && close(p.normal, DVec3::X, 1e-15),
            "{alg:?} {p:?}"
        );
    }
}

#[test]
fn scales_and_far_from_the_origin() {
    let rot = DQuat::from_axis_angle(DVec3::new(0.3, -1.0, 0.5).normalize(), 1.1);
    for k in [1e-6, 1e-3, 1.0, 1e3, 1e6] {
        for far in [0.0, 1e6] {
            let (ra, rb) = (0.3 * k, 0.45 * k);
            let (a, b) = (rbox(k, ra), rbox(k, rb));
            // A common frame: A rotated and far away, B face-on beside it, edge-on and vertex-on.
            let o = DVec3::new(far * k, -0.5 * far * k, 0.25 * far * k);
            let pa = Pose::new(rot, o);
            for (local, core) in [
                (DVec3::new(4.0, 0.2, -0.1), 2.0),
                (DVec3::new(3.0, 3.0, 0.0), 2f64.sqrt()),
                (DVec3::new(3.0, 3.0, 3.0), 3f64.sqrt()),
                (DVec3::new(1.5, 0.0, 0.0), -0.5),
            ] {
                let pb = Pose::new(rot, o + rot * (local * k));
                let want = (core - 0.75) * k;
                let tol = 1e-12 * pair_scale(&a, &pa, &b, &pb);
                for (alg, d) in distances(&a, &pa, &b, &pb) {
                    let sd = d.signed_distance().unwrap_or(f64::NAN);
                    assert!(
                        (sd - want).abs() <= tol,
                        "k {k} far {far} {local} {alg:?}: {sd} vs {want}"
                    );
                    let (p, q) = points(&d);
                    // The points are R apart from the cores' points along the normal: |q − p|
                    // is the rounded distance's magnitude.
                    assert!(((q - p).length() - want.abs()).abs() <= tol, "k {k} far {far} {alg:?}");
                }
                for alg in Algorithm::ALL {
                    let r = intersect(&a, &pa, &b, &pb, alg);
                    let st = if want > 0.0 {
                        Status::Disjoint
                    } else {
                        Status::Overlapping
                    };
                    assert_eq!(r.status(), st, "k {k} far {far} {local} {alg:?}");
                }
            }
        }
    }
}

fn contact_t(r: Directional) -> Option<f64> {
    match r {
        Directional::Contact { t, .. } => Some(t),
        Directional::Never { .. } => None,
        Directional::NotConverged { .. } => panic!("not converged"),
        other => panic!("a variant this test does not know: {other:?}"),
    }
}

#[test]
fn directional_against_closed_forms() {
    let (ra, rb) = (0.3, 0.2);
    let r = ra + rb;
    let (a, b) = (rbox(1.0, ra), rbox(1.0, rb));
    let s = -DVec3::X;
    // (B's position, closed-form t): a face of the rounded difference (plane), an edge
    // (cylinder of radius R about the core edge), a vertex (sphere of radius R).
    let (e, f) = (0.3, 0.2);
    let cases = [
        (DVec3::new(10.0, 0.5, 0.0), Some(8.0 - r)),
        (DVec3::new(10.0, 2.0 + e, 0.0), Some(8.0 - (r * r - e * e).sqrt())),
        (
            DVec3::new(10.0, 2.0 + e, 2.0 + f),
            Some(8.0 - (r * r - e * e - f * f).sqrt()),
        ),
        (DVec3::new(10.0, 2.0 + r + 1e-3, 0.0), None),
        // Behind: B on the other side, the contact is backwards.
        (DVec3::new(-10.0, 0.5, 0.0), Some(-(8.0 - r))),
        // Overlapping cores: the shorter way out is +x by 0.5 + R.
        (DVec3::new(1.5, 0.0, 0.0), Some(-(0.5 + r))),
        (DVec3::new(-1.5, 0.0, 0.0), Some(0.5 + r)),
        // Rounded overlap only (cores 0.25 apart): out along +x by R − 0.25.
        (DVec3::new(2.25, 0.0, 0.0), Some(-(r - 0.25))),
        // Touching: t = 0.
        (DVec3::new(2.0 + r, 0.7, 0.0), Some(0.0)),
    ];
    for (pos, want) in cases {
        let pb = Pose::from_translation(pos);
        for alg in [Algorithm::Auto, Algorithm::Gjk] {
            let mut c = PairCache::default();
            let got = query::directional(&a, &Pose::IDENTITY, &b, &pb, s, alg, &mut c).unwrap();
            verified(
                &a,
                &Pose::IDENTITY,
                &b,
                &pb,
                Answer::Directional {
                    direction: s,
                    answer: got,
                },
            );
            let t = contact_t(got);
            match (t, want) {
                (Some(t), Some(w)) => {
                    assert!((t - w).abs() <= 1e-12, "{pos} {alg:?}: {t} vs {w} ({got:?})");
                    // The contact: after the translation the rounded shapes touch.
                    let moved = Pose::from_translation(pos + s * t);
                    let d = query::distance(&a, &Pose::IDENTITY, &b, &moved, Algorithm::Gjk, &mut c).unwrap();
                    assert!(d.signed_distance().unwrap().abs() <= 1e-13, "{pos}: {d:?}");
                    let Directional::Contact { plane, .. } = got else {
                        unreachable!()
                    };
                    assert!((plane.normal.length() - 1.0).abs() < 1e-15);
                }
                (None, None) => {}
                _ => panic!("{pos} {alg:?}: {got:?}, want {want:?}"),
            }
        }
        let mut c = PairCache::default();
        let e = query::directional(&a, &Pose::IDENTITY, &b, &pb, s, Algorithm::CdDual, &mut c).unwrap_err();
        assert!(e.to_string().contains("rounded"), "{e}");
    }
    // Any direction: a diagonal approach onto the vertex sphere, closed form by the line–sphere
    // intersection about the cores' vertices (1,1,1) and B's (−1,−1,−1)+p.
    let p = DVec3::new(6.0, 5.0, 4.5);
    // B's vertex starts at p − 1 and must come within R of (1,1,1): |p − 2 + t·dir| = R.
    let w = p - DVec3::splat(2.0);
    let dir = -(w + DVec3::new(0.1, -0.05, 0.02)).normalize();
    let (bq, cq) = (w.dot(dir), w.length_squared() - r * r);
    assert!(bq * bq - cq > 0.0, "the line meets the vertex's sphere");
    let want = -bq - (bq * bq - cq).sqrt();
    // The hit lies in the vertex's region of the cores' difference (every coordinate beyond 2).
    assert!((w + dir * want).min_element() > 0.0);
    let mut c = PairCache::default();
    let got = query::directional(
        &a,
        &Pose::IDENTITY,
        &b,
        &Pose::from_translation(p),
        dir,
        Algorithm::Auto,
        &mut c,
    );
    let got = got.unwrap();
    verified(
        &a,
        &Pose::IDENTITY,
        &b,
        &Pose::from_translation(p),
        Answer::Directional {
            direction: dir,
            answer: got,
        },
    );
    let t = contact_t(got).unwrap();
    assert!((t - want).abs() <= 1e-12, "{t} vs {want}");
}

#[test]
fn directional_at_scales_and_far() {
    for k in [1e-6, 1.0, 1e6] {
        for far in [0.0, 1e6] {
            let (a, b) = (rbox(k, 0.3 * k), rbox(k, 0.2 * k));
            let o = DVec3::new(far * k, far * k, -far * k);
            let pa = Pose::from_translation(o);
            let e = 0.3;
            let pb = Pose::from_translation(o + DVec3::new(10.0, 2.0 + e, 0.0) * k);
            let mut c = PairCache::default();
            let got = query::directional(&a, &pa, &b, &pb, -DVec3::X, Algorithm::Auto, &mut c).unwrap();
            verified(
                &a,
                &pa,
                &b,
                &pb,
                Answer::Directional {
                    direction: -DVec3::X,
                    answer: got,
                },
            );
            let want = (8.0 - (0.25f64 - e * e).sqrt()) * k;
            let t = contact_t(got).unwrap();
            let tol = 1e-12 * pair_scale(&a, &pa, &b, &pb);
            assert!((t - want).abs() <= tol.max(1e-12 * k), "k {k} far {far}: {t} vs {want}");
        }
    }
}

#[test]
fn broad_phase_boxes_include_the_radius() {
    // Cores 2 apart, radii 1.25 + 1.25: the rounded boxes overlap; the world must see the pair.
    let a = Arc::new(rbox(1.0, 1.25));
    let mut world = World::new(WorldOptions::default());
    let ha = world.insert(a.clone(), Pose::IDENTITY).unwrap();
    let hb = world.insert(a, at(4.0, 0.0, 0.0)).unwrap();
    world.update().unwrap();
    let pairs: Vec<_> = world.pairs().collect();
    assert_eq!(pairs.len(), 1);
    assert_eq!((pairs[0].a, pairs[0].b), (ha, hb));
    assert_eq!(pairs[0].status, Status::Overlapping);
    assert!((pairs[0].signed_distance().unwrap() + 0.5).abs() < 1e-15);
}

#[test]
fn specs_round_any_shape() {
    let p = shapes::from_spec("box:2,2,2+r=0.1").unwrap();
    assert_eq!(p.radius(), 0.1);
    assert_eq!(p.counts(), (8, 12, 6));
    assert_eq!(shapes::from_spec("icosphere:1:2+r=0").unwrap().radius(), 0.0);
    assert_eq!(shapes::from_spec("cube+r=1e-3").unwrap().radius(), 1e-3);
    for bad in [
        "box:1,1,1+r=-1",
        "box:1,1,1+r=nan",
        "box:1,1,1+r=inf",
        "box:1,1,1+r=",
        "box:1,1,1+r=x",
        "sphere:-1",
        "sphere",
        "capsule:1",
        "capsule:1,2,3",
    ] {
        let e = shapes::from_spec(bad).unwrap_err();
        assert!(matches!(e, PolycdError::ShapeSpec { .. }), "{bad}: {e:?}");
    }
}

#[test]
fn spheres_and_capsules_closed_forms() {
    let s1 = shapes::from_spec("sphere:1").unwrap();
    let s2 = shapes::from_spec("sphere:0.5+r=0.25").unwrap();
    assert_eq!(s2.radius(), 0.75);
    let cap = shapes::from_spec("capsule:2,0.5").unwrap();
    let boxed = shapes::cuboid(2.0, 2.0, 2.0).unwrap();
    let dir = DVec3::new(1.0, 2.0, -2.0) / 3.0;
    for alg in DISTANCE_ALGORITHMS {
        let mut c = PairCache::default();
        if alg == Algorithm::VClip {
            // V-Clip refuses flat cores (points, segments) with a reason.
            let e = query::distance(&s1, &Pose::IDENTITY, &s2, &at(3.0, 0.0, 0.0), alg, &mut c).unwrap_err();
            assert!(matches!(e, polycd::PolycdError::UnsupportedShape { .. }), "{e}");
            continue;
        }
        // Sphere–sphere: |c_b − c_a| − 1 − 0.75.
        let d = query::distance(
            &s1,
            &Pose::IDENTITY,
            &s2,
            &Pose::from_translation(dir * 6.0),
            alg,
            &mut c,
        )
        .unwrap();
        assert!((d.signed_distance().unwrap() - 4.25).abs() < 1e-14, "{alg:?} {d:?}");
        let (p, q) = points(&d);
        assert!(close(p, dir, 1e-14) && close(q, dir * 5.25, 1e-14), "{alg:?}");
        // Sphere–box, face-on and vertex-on.
        let d = query::distance(&boxed, &Pose::IDENTITY, &s1, &at(3.0, 0.5, 0.0), alg, &mut c).unwrap();
        assert!((d.signed_distance().unwrap() - 1.0).abs() < 1e-14, "{alg:?} {d:?}");
        let d = query::distance(&boxed, &Pose::IDENTITY, &s1, &at(3.0, 3.0, 3.0), alg, &mut c).unwrap();
        assert!(
            (d.signed_distance().unwrap() - (2.0 * 3f64.sqrt() - 1.0)).abs() < 1e-14,
            "{alg:?} {d:?}"
        );
        // Capsule–capsule: crossed axes (z, and x at height 0 offset by 3 in y): 3 − 1.
        let rot = DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2);
        let d = query::distance(
            &cap,
            &Pose::IDENTITY,
            &cap,
            &Pose::new(rot, DVec3::new(0.0, 3.0, 0.0)),
            alg,
            &mut c,
        )
        .unwrap();
        assert!((d.signed_distance().unwrap() - 2.0).abs() < 1e-14, "{alg:?} {d:?}");
        // Parallel capsules end to end along z: gap 5 − 2 − 1.
        let d = query::distance(&cap, &Pose::IDENTITY, &cap, &at(0.0, 0.0, 5.0), alg, &mut c).unwrap();
        assert!((d.signed_distance().unwrap() - 2.0).abs() < 1e-14, "{alg:?} {d:?}");
    }
    // Sphere–sphere directional: head-on and off-centre (line–sphere closed form).
    let mut c = PairCache::default();
    let got = query::directional(
        &s1,
        &Pose::IDENTITY,
        &s2,
        &at(10.0, 1.0, 0.0),
        -DVec3::X,
        Algorithm::Auto,
        &mut c,
    );
    let t = contact_t(got.unwrap()).unwrap();
    let want = 10.0 - (1.75f64 * 1.75 - 1.0).sqrt();
    assert!((t - want).abs() < 1e-12, "{t} vs {want}");
}

/// Random rounded pairs against the brute-force oracle: the rounded signed distance is the
/// oracle's core signed distance minus the radii for every distance algorithm, the boolean
/// answers agree with its sign for every algorithm, the directional answers are where the
/// oracle's distance reaches the radii first along the line, and every certificate verifies.
#[test]
fn random_rounded_pairs_against_the_oracle() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(22);
    let family = |k: usize, s: f64, seed: u64| -> ConvexPolyhedron {
        match k {
            0 => shapes::cuboid(s, 0.7 * s, 0.4 * s).unwrap(),
            1 => shapes::tetrahedron(s).unwrap(),
            2 => shapes::icosahedron(s).unwrap(),
            _ => shapes::ellipsoid(16, s, 0.6 * s, 0.3 * s, seed).unwrap(),
        }
    };
    let mut checked = 0;
    for pair in 0..80u64 {
        let k = [1e-3, 1.0, 1e3][pair as usize % 3];
        let far = if pair % 4 == 3 { 1e6 * k } else { 0.0 };
        let (ra, rb) = (rng.random_range(0.0..0.5) * k, rng.random_range(0.0..0.5) * k);
        let a = family(rng.random_range(0..4), k, pair).with_radius(ra).unwrap();
        let b = family(rng.random_range(0..4), k, pair + 1000).with_radius(rb).unwrap();
        let o = DVec3::new(far, -far, 0.5 * far);
        let pa = Pose::new(shapes::random_rotation(&mut rng), o);
        let u = shapes::unit_vector(&mut rng);
        let reach = a.bounding_radius() + b.bounding_radius();
        let off = [0.3, 0.8, 1.0, 1.3][pair as usize % 4];
        let pb = Pose::new(shapes::random_rotation(&mut rng), o + u * (off * reach));
        let r = ra + rb;
        let scale = pair_scale(&a, &pa, &b, &pb);
        let tol = 1e-12 * scale;
        let core = |pb: &Pose| {
            polycd::oracle::signed_distance(&a, &pa, &b, pb)
                .unwrap()
                .signed_distance
                - r
        };
        let want = core(&pb);
        for (alg, d) in distances(&a, &pa, &b, &pb) {
            let sd = d.signed_distance().unwrap();
            assert!((sd - want).abs() <= tol, "pair {pair} {alg:?}: {sd} vs oracle {want}");
        }
        if want.abs() > 1e-9 * scale {
            for alg in Algorithm::ALL {
                let st = intersect(&a, &pa, &b, &pb, alg).status();
                let exp = if want > 0.0 {
                    Status::Disjoint
                } else {
                    Status::Overlapping
                };
                assert_eq!(st, exp, "pair {pair} {alg:?}: oracle {want}");
            }
        }
        let s = shapes::unit_vector(&mut rng);
        let mut c = PairCache::default();
        let got = query::directional(&a, &pa, &b, &pb, s, Algorithm::Auto, &mut c).unwrap();
        verified(
            &a,
            &pa,
            &b,
            &pb,
            Answer::Directional {
                direction: s,
                answer: got,
            },
        );
        let moved = |t: f64| Pose::new(pb.rotation, pb.translation + s * t);
        match got {
            Directional::Contact { t, .. } => {
                // Touching there, by the oracle.
                assert!(
                    core(&moved(t)).abs() <= tol,
                    "pair {pair}: gap {} at t {t}",
                    core(&moved(t))
                );
                let step = 1e-6 * scale;
                if want > 0.0 {
                    // Apart at the start: still apart just before t (the first contact).
                    assert!(
                        core(&moved(t - t.signum() * step)) > 0.0,
                        "pair {pair}: not the first contact"
                    );
                } else if t != 0.0 {
                    // Overlapping: the other end of the chord is at least as far.
                    assert!(
                        core(&moved(-t.signum() * (t.abs() - step))) < 0.0,
                        "pair {pair}: not the nearer end"
                    );
                }
                checked += 1;
            }
            Directional::Never { .. } => {
                // The line misses the rounded difference: the oracle's gap along it stays positive
                // where it is least (sampled densely over the whole reach).
                let span = 2.0 * (reach + (pb.translation - pa.translation).length());
                let least = (0..=400)
                    .map(|i| core(&moved(-span + 2.0 * span * i as f64 / 400.0)))
                    .fold(f64::INFINITY, f64::min);
                assert!(least > -tol, "pair {pair}: 'never' but the gap reaches {least}");
            }
            Directional::NotConverged { .. } => panic!("pair {pair}: not converged"),
            other => panic!("a variant this test does not know: {other:?}"),
        }
    }
    assert!(checked > 40, "only {checked} contacts");
}

/// A flat shape's two faces have opposite normals and share every interior point, so a
/// closest feature named "face" may be either side: the rounded points must still leave the
/// cores towards each other. Triangles (one of them thick) and a square, parallel and tilted,
/// B on either side of A, separated, just apart and touching, at several scales and far from
/// the origin; every distance algorithm; the points must be `distance` apart and each on its
/// rounded surface.
#[test]
fn flat_faces_round_towards_the_other_shape() {
    let tri = [
        DVec3::new(0.0, 0.0, 0.0),
        DVec3::new(2.0, 0.0, 0.0),
        DVec3::new(0.0, 2.0, 0.0),
    ];
    let sq = [
        DVec3::new(-1.0, -1.0, 0.0),
        DVec3::new(1.0, -1.0, 0.0),
        DVec3::new(1.0, 1.0, 0.0),
        DVec3::new(-1.0, 1.0, 0.0),
    ];
    let mut checked = 0;
    for &scale in &[1e-3, 1.0, 1e3] {
        for &far in &[0.0, 1e5] {
            for (ra, rb) in [(0.15, 0.0), (0.0, 0.15), (0.1, 0.2)] {
                let core_a: Vec<DVec3> = tri.iter().map(|&p| p * scale).collect();
                let core_b: Vec<DVec3> = sq.iter().map(|&p| p * 0.3 * scale).collect();
                let a = ConvexPolyhedron::from_points(&core_a)
                    .unwrap()
                    .with_radius(ra * scale)
                    .unwrap();
                let b = ConvexPolyhedron::from_points(&core_b)
                    .unwrap()
                    .with_radius(rb * scale)
                    .unwrap();
                for side in [1.0, -1.0] {
                    for tilt in [0.0, 0.3] {
                        for gap in [0.5, 1e-3] {
                            let r = (ra + rb) * scale;
                            let h = side * (r + gap * scale);
                            let origin = DVec3::splat(far * scale);
                            let pa = Pose::from_translation(origin);
                            let pb = Pose::new(
                                DQuat::from_rotation_x(tilt * 1e-3),
                                origin + DVec3::new(0.5 * scale, 0.5 * scale, h),
                            );
                            for alg in DISTANCE_ALGORITHMS {
                                let d = match query::distance(&a, &pa, &b, &pb, alg, &mut PairCache::default()) {
                                    Err(PolycdError::UnsupportedShape { .. }) => continue,
                                    r => r.unwrap(),
                                };
                                let (qa, qb) = points(&d);
                                let dist = match d {
                                    Distance::Separated { distance, .. } => distance,
                                    _ => panic!("{alg:?}: not separated: {d:?}"),
                                };
                                let tol = 1e-9 * scale * (1.0 + far);
                                assert!(
                                    ((qa - qb).length() - dist).abs() <= tol,
                                    "{alg:?} scale {scale} far {far} r ({ra}, {rb}) side {side} tilt {tilt} gap {gap}: \
                                     points {} apart, distance {dist}",
                                    (qa - qb).length()
                                );
                                checked += 1;
                                // The boolean answer's plane and points, verified independently.
                                match query::intersect(&a, &pa, &b, &pb, alg, &mut PairCache::default()) {
                                    Err(PolycdError::UnsupportedShape { .. }) => {}
                                    r => {
                                        let r = r.unwrap();
                                        if let Err(e) = verify(&a, &pa, &b, &pb, &Answer::Intersection(r)) {
                                            panic!(
                                                "{alg:?} intersect scale {scale} far {far} side {side} gap {gap}: {e}"
                                            );
                                        }
                                    }
                                }
                                if let Err(e) = verify(&a, &pa, &b, &pb, &Answer::Distance(d)) {
                                    panic!("{alg:?} distance scale {scale} far {far} side {side} gap {gap}: {e}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(checked >= 400, "{checked} answers checked");
}

/// Every distance algorithm that answers the pair (V-Clip refuses point and segment cores
/// with its typed error), its certificate verified.
fn answered_distances(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose) -> Vec<(Algorithm, Distance)> {
    let mut out = Vec::new();
    for alg in DISTANCE_ALGORITHMS {
        let mut c = PairCache::default();
        match query::distance(a, pa, b, pb, alg, &mut c) {
            Ok(d) => {
                verified(a, pa, b, pb, Answer::Distance(d));
                out.push((alg, d));
            }
            Err(PolycdError::UnsupportedShape { .. }) if alg == Algorithm::VClip => {}
            Err(e) => panic!("{alg:?}: {e}"),
        }
    }
    assert!(out.len() >= 4);
    out
}

/// Two rounded shapes whose rounded closest points nearly coincide (a gap of 1e-10…1e-14 of
/// their size) but whose cores are far apart: the distance certificate must take its
/// direction from the cores' closest points (about `d + R` apart), not from the rounded
/// points' noise. Spheres and capsules (point and segment cores: no face normal along the
/// contact), at scales 1e-3…1e6, tilted, and 10⁶ sizes from the origin; every distance
/// algorithm's answer is verified and within 1e-12 × the scale of the closed form.
#[test]
fn near_touching_rounded_points_certify_by_the_cores() {
    let q = DQuat::from_euler(polycd::glam::EulerRot::XYZ, 0.3, -1.1, 0.7);
    for &s in &[1e-3f64, 1.0, 1e2, 1e6] {
        for &far in &[0.0f64, 1e6] {
            for &rel in &[1e-10f64, 1e-12, 1e-14] {
                let base = DVec3::new(far, -0.5 * far, 0.25 * far) * s.min(1.0);
                let u = q * DVec3::X;
                // Two spheres of radii s and 0.5 s, centres 1.5 s + gap apart.
                let (a, b) = (shapes::sphere(s).unwrap(), shapes::sphere(0.5 * s).unwrap());
                let gap = rel * s;
                let (pa, pb) = (
                    Pose::from_translation(base),
                    Pose::from_translation(base + u * (1.5 * s + gap)),
                );
                let tol = 1e-12 * s.max(far * s.min(1.0) * 1e-3);
                for (alg, d) in answered_distances(&a, &pa, &b, &pb) {
                    let sd = d.signed_distance().unwrap();
                    let exact = ((pb.translation - pa.translation).length()) - 1.5 * s;
                    assert!(
                        (sd - exact).abs() <= tol.max(1e-12 * s),
                        "{alg:?} s {s} far {far}: {d:?}"
                    );
                }
                // Two parallel capsules side by side (segment cores, the closest points anywhere
                // along them) and crossed ones.
                let c = shapes::capsule(2.0 * s, 0.25 * s).unwrap();
                for turn in [DQuat::IDENTITY, DQuat::from_rotation_y(0.5 * std::f64::consts::PI)] {
                    let pa = Pose::new(q, base);
                    let pb = Pose::new(q * turn, base + q * DVec3::Y * (0.5 * s + gap));
                    for (alg, d) in answered_distances(&c, &pa, &c, &pb) {
                        let sd = d.signed_distance().unwrap();
                        assert!((sd - gap).abs() <= tol.max(1e-12 * s), "{alg:?} s {s} far {far}: {d:?}");
                    }
                }
            }
        }
    }
}

/// Coincident (and collinear, overlapping) capsules: the segment cores' difference is a
/// segment through the origin, so their depth is 0 and the rounded depth exactly `r_A + r_B`
/// along a normal orthogonal to the axis (EPA on the flat difference gave 3.8e-8 too much at
/// scale 1e2). Likewise two coincident spheres and coplanar overlapping thick triangles.
#[test]
fn flat_cores_overlapping_in_their_plane_have_depth_the_radii() {
    let q = DQuat::from_euler(polycd::glam::EulerRot::XYZ, 0.9, 0.2, -0.4);
    for &s in &[1e-3, 1.0, 1e2, 1e5] {
        let base = DVec3::new(3.0, -2.0, 1.0) * s;
        let (ra, rb) = (0.25 * s, 0.4 * s);
        let ca = shapes::capsule(2.0 * s, ra).unwrap();
        let cb = shapes::capsule(1.0 * s, rb).unwrap();
        let axis = q * DVec3::Z;
        let tri = [
            DVec3::new(-1.0, -0.5, 0.0),
            DVec3::new(1.0, -0.4, 0.0),
            DVec3::new(0.1, 1.0, 0.0),
        ];
        let ta = ConvexPolyhedron::from_points(&tri.map(|v| v * s))
            .unwrap()
            .with_radius(ra)
            .unwrap();
        let tb = ConvexPolyhedron::from_points(&tri.map(|v| v * (0.5 * s)))
            .unwrap()
            .with_radius(rb)
            .unwrap();
        let cases: [(&ConvexPolyhedron, &ConvexPolyhedron, Pose, Pose, f64); 4] = [
            (&ca, &cb, Pose::new(q, base), Pose::new(q, base), rb),
            (&ca, &cb, Pose::new(q, base), Pose::new(q, base + axis * (0.3 * s)), rb),
            (
                &shapes::sphere(ra).unwrap(),
                &shapes::sphere(rb).unwrap(),
                Pose::from_translation(base),
                Pose::from_translation(base),
                rb,
            ),
            (
                &ta,
                &tb,
                Pose::new(q, base),
                Pose::new(q, base + q * DVec3::new(0.1, 0.05, 0.0) * s),
                rb,
            ),
        ];
        for (k, (a, b, pa, pb, rb)) in cases.into_iter().enumerate() {
            let want = a.radius() + rb;
            for alg in [Algorithm::Auto, Algorithm::Gjk, Algorithm::Qp, Algorithm::QpFast] {
                let mut c = PairCache::default();
                let d = query::distance(a, &pa, b, &pb, alg, &mut c).unwrap();
                verified(a, &pa, b, &pb, Answer::Distance(d));
                let Distance::Penetrating {
                    penetration: Some(p), ..
                } = d
                else {
                    panic!("case {k} {alg:?} s {s}: {d:?}")
                };
                assert!(
                    (p.depth - want).abs() <= 1e-12 * s,
                    "case {k} {alg:?} s {s}: depth {} vs {want} ({:e})",
                    p.depth,
                    p.depth - want
                );
                if k < 2 {
                    assert!(p.normal.dot(axis).abs() <= 1e-9, "case {k} {alg:?}: {p:?}");
                }
            }
        }
    }
}
