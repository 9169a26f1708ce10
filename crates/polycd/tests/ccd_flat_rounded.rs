//! Continuous collision of flat and rounded shapes (issue 24 item 5: "every shape of the
//! shapes issue moves in CCD too"): points, segments, triangles and boxes, each with or without
//! a radius, against each other, under random rigid motions (translation and rotation).
//!
//! The oracle is this file's own: the rounded distance of two convex cores is the least
//! distance between their boundary elements (vertices, edges, triangles of fan-triangulated
//! faces; an edge crossing a triangle and a vertex inside a solid give 0), computed with
//! closest-point formulas written here, minus the two radii. Along each motion it is sampled at
//! [`SAMPLES`] times; the advancement must
//! - never report a contact-free time past a sampled penetration (no missed contact),
//! - have no sampled penetration before its reported time (conservative),
//! - stop at a time where the oracle's distance is at most its threshold,
//! - and report feature pairs at that time whose points are on the rounded surfaces.
//!
//! `POLYCD_CCD_TRIALS=N` sets the number of random motions (default 240; 3 000 passed in
//! release on 2026-11-28: 2 053 contacts, 947 misses).
//!
//! Plus the closed cases: a sphere sliding into a box face, a point crossing a triangle, two
//! segments crossing, a capsule turning into a sphere.

use polycd::ccd::{contact_features, time_of_contact, CcdCache, CcdOptions, RigidMotion};
use polycd::mesh::Solid;
use polycd::{ConvexPolyhedron, DQuat, DVec3, Pose};

const SAMPLES: usize = 600;

fn pt_seg(p: DVec3, a: DVec3, b: DVec3) -> f64 {
    let ab = b - a;
    let l2 = ab.length_squared();
    let t = if l2 > 0.0 {
        ((p - a).dot(ab) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (a + ab * t - p).length()
}

fn seg_seg(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> f64 {
    let mut best = pt_seg(p1, p2, q2)
        .min(pt_seg(q1, p2, q2))
        .min(pt_seg(p2, p1, q1))
        .min(pt_seg(q2, p1, q1));
    // The interior critical point of |p1 + s·d1 − p2 − t·d2|², when inside the unit square.
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, b, c) = (d1.dot(d1), d1.dot(d2), d2.dot(d2));
    let (d, e) = (d1.dot(r), d2.dot(r));
    let den = a * c - b * b;
    if den > 1e-14 * a * c {
        let s = (b * e - c * d) / den;
        let t = (a * e - b * d) / den;
        if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
            best = best.min((p1 + d1 * s - p2 - d2 * t).length());
        }
    }
    best
}

fn pt_tri(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> f64 {
    let n = (b - a).cross(c - a);
    let edges = pt_seg(p, a, b).min(pt_seg(p, b, c)).min(pt_seg(p, c, a));
    if n.length_squared() == 0.0 {
        return edges;
    }
    let inside = [(a, b), (b, c), (c, a)]
        .iter()
        .all(|&(u, v)| (v - u).cross(p - u).dot(n) >= 0.0);
    if inside {
        (p - a).dot(n).abs() / n.length()
    } else {
        edges
    }
}

/// Does segment `pq` cross triangle `abc` (a point of both)?
fn seg_crosses_tri(p: DVec3, q: DVec3, a: DVec3, b: DVec3, c: DVec3) -> bool {
    let n = (b - a).cross(c - a);
    let (dp, dq) = ((p - a).dot(n), (q - a).dot(n));
    if dp * dq > 0.0 || dp == dq {
        return false;
    }
    let x = p + (q - p) * (dp / (dp - dq));
    [(a, b), (b, c), (c, a)]
        .iter()
        .all(|&(u, v)| (v - u).cross(x - u).dot(n) >= 0.0)
}

/// A core's boundary in the world frame: vertices, edges, triangles, and face planes if solid.
struct Core {
    v: Vec<DVec3>,
    e: Vec<(DVec3, DVec3)>,
    t: Vec<[DVec3; 3]>,
    planes: Vec<(DVec3, f64)>,
    r: f64,
}

fn core(s: &ConvexPolyhedron, pose: &Pose) -> Core {
    let v: Vec<DVec3> = s.vertices().iter().map(|&p| pose.transform_point(p)).collect();
    let e = s
        .edges()
        .iter()
        .map(|x| (v[x.vertices[0] as usize], v[x.vertices[1] as usize]))
        .collect();
    let mut t = Vec::new();
    let mut planes = Vec::new();
    for f in 0..s.faces().len() as u32 {
        let fv = s.face_vertices(f);
        for k in 1..fv.len() - 1 {
            t.push([v[fv[0] as usize], v[fv[k] as usize], v[fv[k + 1] as usize]]);
        }
        if s.dimension() == 3 {
            let n = pose.transform_vector(s.face(f).normal);
            planes.push((n, n.dot(v[fv[0] as usize])));
        }
    }
    Core {
        v,
        e,
        t,
        planes,
        r: s.radius(),
    }
}

fn inside(p: DVec3, c: &Core) -> bool {
    !c.planes.is_empty() && c.planes.iter().all(|&(n, o)| n.dot(p) <= o)
}

/// The oracle's rounded distance (negative: the cores are closer than the radii).
fn rounded_distance(a: &Core, b: &Core) -> f64 {
    let mut d = f64::INFINITY;
    for &p in &a.v {
        for &q in &b.v {
            d = d.min((p - q).length());
        }
        for &(x, y) in &b.e {
            d = d.min(pt_seg(p, x, y));
        }
        for t in &b.t {
            d = d.min(pt_tri(p, t[0], t[1], t[2]));
        }
        if inside(p, b) {
            d = 0.0;
        }
    }
    for &p in &b.v {
        for &(x, y) in &a.e {
            d = d.min(pt_seg(p, x, y));
        }
        for t in &a.t {
            d = d.min(pt_tri(p, t[0], t[1], t[2]));
        }
        if inside(p, a) {
            d = 0.0;
        }
    }
    for &(p, q) in &a.e {
        for &(x, y) in &b.e {
            d = d.min(seg_seg(p, q, x, y));
        }
        for t in &b.t {
            if seg_crosses_tri(p, q, t[0], t[1], t[2]) {
                d = 0.0;
            }
        }
    }
    for &(p, q) in &b.e {
        for t in &a.t {
            if seg_crosses_tri(p, q, t[0], t[1], t[2]) {
                d = 0.0;
            }
        }
    }
    d - a.r - b.r
}

fn shape(kind: usize, radius: f64, rng: &mut Rng) -> ConvexPolyhedron {
    let p = |rng: &mut Rng| DVec3::new(rng.sym(), rng.sym(), rng.sym()) * 0.8;
    let pts: Vec<DVec3> = match kind {
        0 => vec![DVec3::ZERO],
        1 => vec![p(rng), p(rng)],
        2 => vec![p(rng), p(rng), p(rng)],
        _ => {
            let h = DVec3::new(0.3 + 0.5 * rng.unit(), 0.3 + 0.5 * rng.unit(), 0.3 + 0.5 * rng.unit());
            (0..8)
                .map(|i| DVec3::new(h.x * sgn(i & 1), h.y * sgn(i & 2), h.z * sgn(i & 4)))
                .collect()
        }
    };
    ConvexPolyhedron::from_points(&pts)
        .unwrap()
        .with_radius(radius)
        .unwrap()
}

fn sgn(bit: usize) -> f64 {
    if bit == 0 {
        -1.0
    } else {
        1.0
    }
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn sym(&mut self) -> f64 {
        2.0 * self.unit() - 1.0
    }
    fn rotation(&mut self, max_angle: f64) -> DQuat {
        let axis = DVec3::new(self.sym(), self.sym(), self.sym()).normalize_or(DVec3::Z);
        DQuat::from_axis_angle(axis, max_angle * self.unit())
    }
}

/// Checks one motion against the sampled oracle; returns whether a contact was reported.
fn check(a: &ConvexPolyhedron, ma: &RigidMotion, b: &ConvexPolyhedron, mb: &RigidMotion, label: &str) -> bool {
    let options = CcdOptions::default();
    let threshold = options.threshold(a.bounding_radius() + b.bounding_radius()).unwrap();
    let scale = a.bounding_radius() + b.bounding_radius();
    let tol = 1e-9 * scale.max(1.0);
    let toc =
        time_of_contact(a, ma, b, mb, &options, &mut CcdCache::default()).unwrap_or_else(|e| panic!("{label}: {e}"));
    let at = |t: f64| rounded_distance(&core(a, &ma.pose_at(t)), &core(b, &mb.pose_at(t)));
    let first_hit = (0..=SAMPLES).map(|k| k as f64 / SAMPLES as f64).find(|&s| at(s) < -tol);
    match toc {
        None => {
            assert!(
                first_hit.is_none(),
                "{label}: no contact reported, but the shapes overlap at t = {first_hit:?}"
            );
            false
        }
        Some(r) => {
            if let Some(s) = first_hit {
                assert!(r.t <= s, "{label}: contact at {} after a sampled overlap at {s}", r.t);
            }
            for k in 0..=SAMPLES {
                let s = r.t * k as f64 / SAMPLES as f64;
                assert!(
                    at(s) >= -tol,
                    "{label}: overlap at {s} before the reported contact {}",
                    r.t
                );
            }
            let d = at(r.t);
            if r.t > 0.0 {
                assert!(
                    d <= threshold + tol && d >= -tol,
                    "{label}: oracle distance {d} at the reported time {} (threshold {threshold})",
                    r.t
                );
                assert!(
                    (r.distance - d).abs() <= tol.max(1e-7 * scale),
                    "{label}: distance {} vs {d}",
                    r.distance
                );
            }
            // The feature pairs at the contact: points on the rounded surfaces, distances
            // consistent with them, the nearest within the threshold.
            let c = contact_features(Solid::Convex(a), &r.pose_a, Solid::Convex(b), &r.pose_b, threshold).unwrap();
            assert!(
                !c.is_empty() || r.t == 0.0,
                "{label}: no contact features at t = {}",
                r.t
            );
            for f in &c {
                assert!(
                    f.distance <= threshold + tol,
                    "{label}: feature pair beyond the threshold"
                );
                assert!(f.distance >= 0.0);
                if f.distance > 10.0 * tol {
                    let gap = (f.point_b - f.point_a).length();
                    assert!(
                        (gap - f.distance).abs() <= 1e-7 * scale,
                        "{label}: {gap} vs {}",
                        f.distance
                    );
                }
            }
            true
        }
    }
}

#[test]
fn random_motions_of_flat_and_rounded_shapes_agree_with_the_sampled_oracle() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut hits, mut misses) = (0, 0);
    let radii = [0.0, 0.05, 0.3];
    let trials: usize = std::env::var("POLYCD_CCD_TRIALS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(240);
    for trial in 0..trials {
        let (ka, kb) = (trial % 4, (trial / 4) % 4);
        let (ra, rb) = (radii[(trial / 16) % 3], radii[(trial / 48) % 3]);
        // Two cores with no volume and no radius touch only by chance: give one a radius.
        let rb = if ka < 3 && kb < 3 && ra == 0.0 && rb == 0.0 {
            0.1
        } else {
            rb
        };
        let a = shape(ka, ra, &mut rng);
        let b = shape(kb, rb, &mut rng);
        let far = 3.0 + 2.0 * rng.unit();
        let aim = DVec3::new(rng.sym(), rng.sym(), rng.sym()) * (0.9 * rng.unit());
        let start = Pose::new(rng.rotation(3.0), DVec3::new(-far, rng.sym(), rng.sym()));
        let end = Pose::new(rng.rotation(3.0), DVec3::new(far, 0.0, 0.0) + aim);
        let ma = RigidMotion::about_centroid(&a, start, end).unwrap();
        let mb = if trial % 3 == 0 {
            let p = Pose::new(rng.rotation(1.0), DVec3::new(0.0, 0.2 * rng.sym(), 0.0));
            RigidMotion::about_centroid(&b, p, Pose::new(rng.rotation(2.0), p.translation)).unwrap()
        } else {
            RigidMotion::stationary(Pose::new(rng.rotation(3.0), DVec3::ZERO)).unwrap()
        };
        let label = format!("trial {trial}: kinds {ka}/{kb}, radii {ra}/{rb}");
        if check(&a, &ma, &b, &mb, &label) {
            hits += 1;
        } else {
            misses += 1;
        }
    }
    eprintln!("{hits} contacts, {misses} misses");
    assert!(
        hits >= trials / 4 && misses >= trials / 12,
        "{hits} contacts, {misses} misses"
    );
}

fn at(x: f64, y: f64, z: f64) -> Pose {
    Pose::from_translation(DVec3::new(x, y, z))
}

#[test]
fn closed_cases() {
    let options = CcdOptions::default();
    let fixed = RigidMotion::stationary(Pose::IDENTITY).unwrap();
    let cube = polycd::shapes::cuboid(2.0, 2.0, 2.0).unwrap();
    // A sphere of radius 1 (a point plus the radius) from x = −5 to x = 5 into a cube of half
    // size 1: contact when its centre reaches x = −2, t = 0.3.
    let ball = ConvexPolyhedron::from_points(&[DVec3::ZERO])
        .unwrap()
        .with_radius(1.0)
        .unwrap();
    let m = RigidMotion::new(at(-5.0, 0.0, 0.0), at(5.0, 0.0, 0.0), DVec3::ZERO).unwrap();
    let r = time_of_contact(&ball, &m, &cube, &fixed, &options, &mut CcdCache::default())
        .unwrap()
        .unwrap();
    let threshold = options
        .threshold(ball.bounding_radius() + cube.bounding_radius())
        .unwrap();
    assert!(r.t <= 0.3 && r.t >= 0.3 - threshold / 10.0 - 1e-12, "t = {}", r.t);
    // One exact step lands on the touching pose (the query layer calls exact touching of
    // rounded shapes an overlap of depth 0, so no closest pair is given there).
    if let Some((pa, pb)) = r.closest {
        assert!(
            (pa.x - (-1.0 - r.distance)).abs() < 1e-12 && (pb.x + 1.0).abs() < 1e-12,
            "{pa} {pb}"
        );
    } else {
        assert_eq!((r.t, r.distance), (0.3, 0.0), "{r:?}");
    }
    let c = contact_features(
        Solid::Convex(&ball),
        &r.pose_a,
        Solid::Convex(&cube),
        &r.pose_b,
        threshold,
    )
    .unwrap();
    assert_eq!(c.len(), 1, "{c:?}");
    assert!((c[0].point_a - DVec3::new(-1.0, 0.0, 0.0)).length() < 1e-12, "{c:?}");
    assert!((c[0].point_b - DVec3::new(-1.0, 0.0, 0.0)).length() < 1e-12, "{c:?}");
    assert!(matches!(c[0].b.element, polycd::ccd::ContactElement::Face(_)), "{c:?}");
    // A point (no radius) from z = −1 to z = 1 through a triangle in z = 0: t = 0.5.
    let point = ConvexPolyhedron::from_points(&[DVec3::new(0.2, 0.2, 0.0)]).unwrap();
    let tri = ConvexPolyhedron::from_points(&[DVec3::ZERO, DVec3::X, DVec3::Y]).unwrap();
    let m = RigidMotion::new(at(0.0, 0.0, -1.0), at(0.0, 0.0, 1.0), DVec3::ZERO).unwrap();
    let r = time_of_contact(&point, &m, &tri, &fixed, &options, &mut CcdCache::default())
        .unwrap()
        .unwrap();
    let threshold = options
        .threshold(point.bounding_radius() + tri.bounding_radius())
        .unwrap();
    // (A step is d / μ rounded: the time can pass the contact by rounding, not more.)
    assert!(
        r.t <= 0.5 + 1e-15 && r.t >= 0.5 - threshold / 2.0 - 1e-12,
        "t = {}",
        r.t
    );
    // Two segments crossing: x-axis segment moving along z through a y-axis segment, t = 0.5.
    let sx = ConvexPolyhedron::from_points(&[DVec3::new(-1.0, 0.0, 0.0), DVec3::X]).unwrap();
    let sy = ConvexPolyhedron::from_points(&[DVec3::new(0.0, -1.0, 0.0), DVec3::Y]).unwrap();
    let m = RigidMotion::new(at(0.0, 0.0, -3.0), at(0.0, 0.0, 3.0), DVec3::ZERO).unwrap();
    let r = time_of_contact(&sx, &m, &sy, &fixed, &options, &mut CcdCache::default())
        .unwrap()
        .unwrap();
    assert!(
        r.t <= 0.5 + 1e-15 && r.t >= 0.5 - 2.0 * CcdOptions::default().threshold(2.0).unwrap() / 6.0,
        "t = {}",
        r.t
    );
    let c = contact_features(
        Solid::Convex(&sx),
        &r.pose_a,
        Solid::Convex(&sy),
        &r.pose_b,
        options.threshold(2.0).unwrap(),
    )
    .unwrap();
    assert_eq!(c.len(), 1, "{c:?}");
    assert!(
        matches!(c[0].a.element, polycd::ccd::ContactElement::Edge(0, 1)),
        "{c:?}"
    );
    // A capsule (half length 1, radius 0.25, along x) turning a quarter turn about z towards a
    // ball of radius 0.25 at (0, 1.4, 0): its tip meets the ball when sin θ = 2.71 / 2.8.
    let capsule = ConvexPolyhedron::from_points(&[DVec3::new(-1.0, 0.0, 0.0), DVec3::X])
        .unwrap()
        .with_radius(0.25)
        .unwrap();
    let small = ConvexPolyhedron::from_points(&[DVec3::ZERO])
        .unwrap()
        .with_radius(0.25)
        .unwrap();
    let turn = RigidMotion::new(
        Pose::IDENTITY,
        Pose::new(DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2), DVec3::ZERO),
        DVec3::ZERO,
    )
    .unwrap();
    let there = RigidMotion::stationary(at(0.0, 1.4, 0.0)).unwrap();
    let r = time_of_contact(&capsule, &turn, &small, &there, &options, &mut CcdCache::default())
        .unwrap()
        .unwrap();
    let want = (2.71f64 / 2.8).asin() / std::f64::consts::FRAC_PI_2;
    // The tip moves at π/2 per unit time, so the threshold is reached at most threshold / (π/2)
    // early.
    let threshold = options
        .threshold(capsule.bounding_radius() + small.bounding_radius())
        .unwrap();
    assert!(r.t <= want && r.t >= want - threshold - 1e-12, "t = {} vs {want}", r.t);
    let c = contact_features(
        Solid::Convex(&capsule),
        &r.pose_a,
        Solid::Convex(&small),
        &r.pose_b,
        threshold,
    )
    .unwrap();
    assert_eq!(c.len(), 1, "{c:?}");
    // The rounded points: on the capsule's tip ball and on the ball's surface.
    let tip = r.pose_a.transform_point(DVec3::X);
    assert!(((c[0].point_a - tip).length() - 0.25).abs() < 1e-9, "{c:?}");
    assert!(
        ((c[0].point_b - DVec3::new(0.0, 1.4, 0.0)).length() - 0.25).abs() < 1e-9,
        "{c:?}"
    );
}
