//! Contact features at the time of contact (`polycd::ccd::contact_features`, issue 24 item 1)
//! against a brute-force oracle: over every pair of faces (convex polygons or mesh triangles)
//! of the two solids, every vertex–face and edge–edge pair's distance by GJK on the
//! elementary shapes themselves (a point, a segment, a polygon built with
//! `ConvexPolyhedron::from_points`), each pair within the threshold named by the features
//! carrying GJK's closest points; the set of names and their distances must equal the
//! library's. Scenarios: random convex pairs at random thresholds, random convex motions
//! and random mesh (torus knot against a convex body) motions at the time of contact with
//! the advancement's own threshold. A trial with a pair within 1e-9 (relative) of the
//! threshold is skipped as borderline (either answer is right there).
//!
//! Default: a few hundred trials per scenario. The full run (10³ per scenario):
//! `cargo test -p polycd --release --test ccd_contacts -- --ignored`.

use polycd::ccd::mesh::MeshToiCache;
use polycd::ccd::{self, CcdCache, CcdOptions, ContactElement, RigidMotion};
use polycd::mesh::{Solid, TriMesh};
use polycd::tolerance::CONTACT_FEATURE_SNAP_REL;
use polycd::{query, Algorithm, ConvexPolyhedron, DQuat, DVec3, Distance, PairCache, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// A solid's faces in the world frame: (face key, vertex ids).
struct World {
    verts: Vec<DVec3>,
    faces: Vec<(u32, Vec<u32>)>,
}

fn world(s: Solid<'_>, pose: &Pose) -> World {
    match s {
        Solid::Convex(c) => World {
            verts: c.vertices().iter().map(|&v| pose.transform_point(v)).collect(),
            faces: (0..c.faces().len() as u32)
                .map(|f| (f, c.face_vertices(f).to_vec()))
                .collect(),
        },
        Solid::Mesh(m) => World {
            verts: m.vertices().iter().map(|&v| pose.transform_point(v)).collect(),
            faces: m
                .triangles()
                .iter()
                .enumerate()
                .map(|(t, tri)| (t as u32, tri.to_vec()))
                .collect(),
        },
        other => panic!("a variant this test does not know: {other:?}"),
    }
}

fn gjk(a: &[DVec3], b: &[DVec3]) -> (f64, DVec3, DVec3) {
    let pa = ConvexPolyhedron::from_points(a).expect("primitive a");
    let pb = ConvexPolyhedron::from_points(b).expect("primitive b");
    let id = Pose::IDENTITY;
    match query::distance(&pa, &id, &pb, &id, Algorithm::Gjk, &mut PairCache::default()).expect("gjk") {
        Distance::Separated {
            distance,
            point_a,
            point_b,
            ..
        } => (distance, point_a, point_b),
        other => panic!("oracle: primitives not separated: {other:?}"),
    }
}

fn edge(p: u32, q: u32) -> ContactElement {
    ContactElement::Edge(p.min(q), p.max(q))
}

fn seg_dist(x: DVec3, p: DVec3, q: DVec3) -> f64 {
    let d = q - p;
    let t = ((x - p).dot(d) / d.length_squared()).clamp(0.0, 1.0);
    (x - (p + d * t)).length()
}

/// The element of polygon `ids` (face key `f`) carrying `x`.
fn name_on(w: &World, f: u32, ids: &[u32], x: DVec3, snap: f64) -> ContactElement {
    for &v in ids {
        if (w.verts[v as usize] - x).length() <= snap {
            return ContactElement::Vertex(v);
        }
    }
    let k = ids.len();
    if k == 2 {
        return edge(ids[0], ids[1]);
    }
    for i in 0..k {
        let (p, q) = (ids[i], ids[(i + 1) % k]);
        if seg_dist(x, w.verts[p as usize], w.verts[q as usize]) <= snap {
            return edge(p, q);
        }
    }
    ContactElement::Face(f)
}

type Set = BTreeMap<(ContactElement, ContactElement), f64>;

/// The oracle's contact set, or `None` when a pair is borderline.
fn oracle(a: Solid<'_>, pa: &Pose, b: Solid<'_>, pb: &Pose, thr: f64, snap: f64) -> Option<Set> {
    let (wa, wb) = (world(a, pa), world(b, pb));
    let bbox = |w: &World, ids: &[u32]| {
        let mut lo = DVec3::splat(f64::INFINITY);
        let mut hi = -lo;
        for &v in ids {
            lo = lo.min(w.verts[v as usize]);
            hi = hi.max(w.verts[v as usize]);
        }
        (lo, hi)
    };
    let mut set = Set::new();
    let mut add = |ka: ContactElement, kb: ContactElement, d: f64| -> bool {
        if (d - thr).abs() <= 1e-9 * thr.max(snap) + 1e-12 {
            return false;
        }
        if d <= thr {
            let e = set.entry((ka, kb)).or_insert(d);
            *e = e.min(d);
        }
        true
    };
    for (fa, ia) in &wa.faces {
        let (la, ha) = bbox(&wa, ia);
        for (fb, ib) in &wb.faces {
            let (lb, hb) = bbox(&wb, ib);
            // A box gap is a lower bound of every distance between the two faces.
            if (lb - ha).max(la - hb).max_element() > thr * 1.001 + 1e-12 {
                continue;
            }
            let pts = |w: &World, ids: &[u32]| ids.iter().map(|&v| w.verts[v as usize]).collect::<Vec<_>>();
            let (pa_, pb_) = (pts(&wa, ia), pts(&wb, ib));
            for &v in ia {
                let (d, _, y) = gjk(&[wa.verts[v as usize]], &pb_);
                if !add(ContactElement::Vertex(v), name_on(&wb, *fb, ib, y, snap), d) {
                    return None;
                }
            }
            for &v in ib {
                let (d, x, _) = gjk(&pa_, &[wb.verts[v as usize]]);
                if !add(name_on(&wa, *fa, ia, x, snap), ContactElement::Vertex(v), d) {
                    return None;
                }
            }
            for i in 0..ia.len() {
                let e = [ia[i], ia[(i + 1) % ia.len()]];
                for j in 0..ib.len() {
                    let g = [ib[j], ib[(j + 1) % ib.len()]];
                    let (d, x, y) = gjk(&pts(&wa, &e), &pts(&wb, &g));
                    if !add(name_on(&wa, 0, &e, x, snap), name_on(&wb, 0, &g, y, snap), d) {
                        return None;
                    }
                }
            }
        }
    }
    Some(set)
}

fn scale(s: Solid<'_>) -> f64 {
    match s {
        Solid::Convex(c) => c.scale(),
        Solid::Mesh(m) => m.scale(),
        other => panic!("a variant this test does not know: {other:?}"),
    }
}

/// Compares the library's set with the oracle's; `false` when the trial was borderline.
fn check(a: Solid<'_>, pa: &Pose, b: Solid<'_>, pb: &Pose, thr: f64, what: &str) -> bool {
    let snap = CONTACT_FEATURE_SNAP_REL * (scale(a) + scale(b));
    let Some(want) = oracle(a, pa, b, pb, thr, snap) else {
        return false;
    };
    let got = ccd::contact_features(a, pa, b, pb, thr).expect("contact_features");
    let got_set: Set = got.iter().map(|c| ((c.a.element, c.b.element), c.distance)).collect();
    assert_eq!(got.len(), got_set.len(), "{what}: duplicates in {got:?}");
    let keys = |s: &Set| s.keys().copied().collect::<Vec<_>>();
    assert_eq!(keys(&got_set), keys(&want), "{what}: contact sets differ (thr {thr})");
    for (k, d) in &want {
        assert!(
            (got_set[k] - d).abs() <= 1e-9 * (scale(a) + scale(b)),
            "{what}: {k:?} {} vs oracle {d}",
            got_set[k]
        );
    }
    for w in got.windows(2) {
        assert!(w[0].distance <= w[1].distance, "{what}: not sorted");
    }
    for c in &got {
        assert!((c.normal.length() - 1.0).abs() < 1e-9, "{what}: normal not unit");
        assert!(((c.point_b - c.point_a).length() - c.distance).abs() <= 1e-9 * (scale(a) + scale(b)));
    }
    true
}

fn random_hull(rng: &mut ChaCha8Rng, n: usize) -> ConvexPolyhedron {
    let pts: Vec<DVec3> = (0..n)
        .map(|_| {
            DVec3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            )
        })
        .collect();
    ConvexPolyhedron::from_points(&pts).expect("hull")
}

fn random_rotation(rng: &mut ChaCha8Rng) -> DQuat {
    DQuat::from_xyzw(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    )
    .normalize()
}

fn unit(rng: &mut ChaCha8Rng) -> DVec3 {
    random_rotation(rng) * DVec3::X
}

/// Random convex pairs at random poses, thresholds from just above the distance to 30 % of
/// the scale beyond it (many pairs within).
fn convex_static(trials: usize, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut done, mut tried) = (0, 0);
    for k in 0..trials {
        let a = random_hull(&mut rng, 12);
        let b = random_hull(&mut rng, 12);
        let pa = Pose::new(random_rotation(&mut rng), DVec3::ZERO);
        let pb = Pose::new(random_rotation(&mut rng), unit(&mut rng) * rng.random_range(1.5..3.0));
        let mut c = PairCache::default();
        let d = match query::distance(&a, &pa, &b, &pb, Algorithm::Gjk, &mut c).unwrap() {
            Distance::Separated { distance, .. } => distance,
            _ => continue,
        };
        tried += 1;
        let thr = d + rng.random_range(0.0..0.3) * (a.scale() + b.scale());
        done += usize::from(check(
            Solid::Convex(&a),
            &pa,
            Solid::Convex(&b),
            &pb,
            thr,
            &format!("static {k}"),
        ));
    }
    assert!(
        done * 10 >= tried * 9 && tried * 2 >= trials,
        "too many borderline (or overlapping) trials: {done} of {tried} of {trials}"
    );
}

/// Random convex motions: the contact set at the reported time of contact, with the
/// advancement's threshold.
fn convex_toc(trials: usize, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut done, mut hits) = (0, 0);
    for k in 0..trials {
        let a = random_hull(&mut rng, 10);
        let b = random_hull(&mut rng, 10);
        let dir = unit(&mut rng);
        let p0 = Pose::new(random_rotation(&mut rng), -dir * 3.0);
        let p1 = Pose::new(
            random_rotation(&mut rng),
            dir * 3.0 + unit(&mut rng) * rng.random_range(0.0..1.0),
        );
        let ma = RigidMotion::about_centroid(&a, p0, p1).unwrap();
        let mb = RigidMotion::stationary(Pose::new(random_rotation(&mut rng), DVec3::ZERO)).unwrap();
        let opt = CcdOptions::default();
        let Some(t) = ccd::time_of_contact(&a, &ma, &b, &mb, &opt, &mut CcdCache::default()).unwrap() else {
            continue;
        };
        if t.closest.is_none() {
            continue;
        }
        hits += 1;
        let thr = opt.threshold(a.scale() + b.scale()).unwrap();
        let (sa, sb) = (Solid::Convex(&a), Solid::Convex(&b));
        if check(sa, &t.pose_a, sb, &t.pose_b, thr, &format!("convex toc {k}")) {
            done += 1;
            // The closest pair the advancement stopped at is among the contacts.
            let c = ccd::contact_features(sa, &t.pose_a, sb, &t.pose_b, thr).unwrap();
            assert!(!c.is_empty() && (c[0].distance - t.distance).abs() <= 1e-9 * (a.scale() + b.scale()));
        }
    }
    assert!(hits * 2 >= trials, "too few contacts: {hits} of {trials}");
    assert!(done * 10 >= hits * 9, "too many borderline trials: {done} of {hits}");
}

/// A torus knot moving at a convex body (and a convex body at the knot): the contact set at
/// the time of contact.
fn mesh_toc(trials: usize, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (v, f) = polycd::shapes::torus_knot(2, 3, 24, 6, 0.35).expect("knot");
    let knot = TriMesh::new(&v, &f).expect("knot mesh");
    let (mut done, mut hits) = (0, 0);
    for k in 0..trials {
        let c = random_hull(&mut rng, 10);
        let cm = TriMesh::from_convex(&c).unwrap();
        let dir = unit(&mut rng);
        let p0 = Pose::new(random_rotation(&mut rng), -dir * 4.0);
        let p1 = Pose::new(
            random_rotation(&mut rng),
            dir * 2.0 + unit(&mut rng) * rng.random_range(0.0..1.5),
        );
        let ma = RigidMotion::new(p0, p1, knot.centroid()).unwrap();
        let mb = RigidMotion::stationary(Pose::new(random_rotation(&mut rng), DVec3::ZERO)).unwrap();
        let opt = CcdOptions::default();
        let r = ccd::mesh::time_of_contact(&knot, &ma, &cm, &mb, &opt, &mut MeshToiCache::default()).unwrap();
        let Some(t) = r else { continue };
        if t.t == 0.0 || t.distance() == 0.0 {
            continue;
        }
        hits += 1;
        let thr = opt.threshold(knot.scale() + cm.scale()).unwrap();
        let what = format!("mesh toc {k}");
        // Knot against the convex body as a polyhedron (mixed), and as a mesh.
        if check(Solid::Mesh(&knot), &t.pose_a, Solid::Convex(&c), &t.pose_b, thr, &what)
            && check(Solid::Mesh(&knot), &t.pose_a, Solid::Mesh(&cm), &t.pose_b, thr, &what)
        {
            done += 1;
        }
    }
    assert!(hits * 3 >= trials, "too few contacts: {hits} of {trials}");
    assert!(done * 10 >= hits * 9, "too many borderline trials: {done} of {hits}");
}

#[test]
fn convex_contact_sets_equal_brute_force() {
    convex_static(200, 1);
}

#[test]
fn convex_toc_contact_sets_equal_brute_force() {
    convex_toc(200, 2);
}

#[test]
fn mesh_toc_contact_sets_equal_brute_force() {
    mesh_toc(60, 3);
}

#[test]
#[ignore]
fn contact_sets_equal_brute_force_full() {
    convex_static(1000, 11);
    convex_toc(1000, 12);
    mesh_toc(1000, 13);
}

/// Two unit cubes face to face: the four corner pairs (vertex–vertex) at distance 0.25 within
/// a threshold of 0.3, normal +x; none within 0.2.
#[test]
fn cubes_face_to_face() {
    let c = polycd::shapes::from_spec("box:1,1,1").unwrap();
    let pa = Pose::IDENTITY;
    let pb = Pose::from_translation(DVec3::new(1.25, 0.0, 0.0));
    let got = ccd::contact_features(Solid::Convex(&c), &pa, Solid::Convex(&c), &pb, 0.3).unwrap();
    assert!(!got.is_empty());
    for g in &got {
        assert!((g.distance - 0.25).abs() < 1e-12);
        assert!((g.normal - DVec3::X).length() < 1e-12);
        assert!((g.point_a.x - 0.5).abs() < 1e-12 && (g.point_b.x - 0.75).abs() < 1e-12);
    }
    let vv = got
        .iter()
        .filter(|g| {
            matches!(
                (g.a.element, g.b.element),
                (ContactElement::Vertex(_), ContactElement::Vertex(_))
            )
        })
        .count();
    assert_eq!(vv, 4);
    assert!(
        ccd::contact_features(Solid::Convex(&c), &pa, Solid::Convex(&c), &pb, 0.2)
            .unwrap()
            .is_empty()
    );
    assert!(ccd::contact_features(Solid::Convex(&c), &pa, Solid::Convex(&c), &pb, -1.0).is_err());
    assert!(ccd::contact_features(Solid::Convex(&c), &pa, Solid::Convex(&c), &pb, f64::NAN).is_err());
}
