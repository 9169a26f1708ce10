//! Contact manifolds (issue 25).
//!
//! - The exact oracle: for a face contact the manifold's polygon (its points on the reference
//!   side) equals the exact intersection of the reference face and the incident face, the
//!   latter projected along the reference normal onto the reference plane — computed here in
//!   rational arithmetic (`BigRational`) on the f64 inputs — within 1e-12 × the pair scale;
//!   every separation equals the exact distance of its incident point from the reference
//!   plane. Both shapes are built from world-frame vertex lists at identity poses, so the f64
//!   inputs the oracle reads are the library's inputs.
//! - Invariants of every manifold: unit normal pointing from A toward B (the separation of the
//!   shapes along it is their signed distance), each `a` on A's surface and `b` on B's, `b − a
//!   = separation · normal`, points counter-clockwise around the normal.
//! - Random families in a canonical frame (the contact on A's face in z = 0) carried to the
//!   world by a random rotation, scale 1e-6..1e6 and far offsets: face–face (tilts e^-k),
//!   edge–face (two points), vertex–face and edge–edge (one point); boxes, prisms,
//!   icospheres, ellipsoid hulls.
//! - Persistence over 1 000 jittered frames, reduction, and no allocation in steady state.

mod common;

use common::outside;
use num_rational::BigRational;
use num_traits::{Signed, ToPrimitive, Zero};
use polycd::query::{
    contact_manifold, distance, pair_scale, Algorithm, ContactManifold, ManifoldCache, ManifoldKind, ManifoldOptions,
};
use polycd::{shapes, ConvexPolyhedron, DQuat, DVec3, Feature, PairCache, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod counting;
use counting::count;

#[global_allocator]
static GLOBAL: counting::Counting = counting::Counting;

const ID: Pose = Pose::IDENTITY;

fn manifold(a: &ConvexPolyhedron, b: &ConvexPolyhedron, margin: f64, reduce: bool) -> Option<ContactManifold> {
    let mut c = ManifoldCache::default();
    contact_manifold(
        a,
        &ID,
        b,
        &ID,
        &ManifoldOptions::default().with_margin(margin).with_reduce(reduce),
        &mut c,
    )
    .unwrap()
    .cloned()
}

// ---------------------------------------------------------------- exact arithmetic

type Q = BigRational;

fn q(x: f64) -> Q {
    Q::from_float(x).expect("finite")
}

fn q3(v: DVec3) -> [Q; 3] {
    [q(v.x), q(v.y), q(v.z)]
}

fn qdot(a: &[Q; 3], b: &[Q; 3]) -> Q {
    &a[0] * &b[0] + &a[1] * &b[1] + &a[2] * &b[2]
}

fn f(x: &Q) -> f64 {
    x.to_f64().unwrap_or(f64::NAN)
}

/// The exact intersection of the reference face (`refp`, its stored plane `n·x = off`) and
/// the incident face projected along `n` onto that plane: both polygons are projected exactly
/// onto the plane, then dropped to the two coordinates other than `n`'s largest, clipped
/// (Sutherland–Hodgman in rationals), and lifted back onto the plane (f64 at the end).
fn oracle_polygon(refp: &[DVec3], n: DVec3, off: f64, inc: &[DVec3]) -> Vec<DVec3> {
    let nq = q3(n);
    let offq = q(off);
    let nn = qdot(&nq, &nq);
    let k = if n.x.abs() >= n.y.abs() && n.x.abs() >= n.z.abs() {
        0
    } else if n.y.abs() >= n.z.abs() {
        1
    } else {
        2
    };
    let (i, j) = ((k + 1) % 3, (k + 2) % 3);
    let proj = |p: DVec3| -> [Q; 2] {
        let pq = q3(p);
        let t = (qdot(&nq, &pq) - &offq) / &nn;
        [&pq[i] - &t * &nq[i], &pq[j] - &t * &nq[j]]
    };
    let r: Vec<[Q; 2]> = refp.iter().map(|&p| proj(p)).collect();
    let mut poly: Vec<[Q; 2]> = inc.iter().map(|&p| proj(p)).collect();
    let cross =
        |o: &[Q; 2], a: &[Q; 2], b: &[Q; 2]| (&a[0] - &o[0]) * (&b[1] - &o[1]) - (&a[1] - &o[1]) * (&b[0] - &o[0]);
    // Orientation of the reference polygon in the dropped coordinates.
    let mut area = Q::zero();
    for m in 1..r.len() - 1 {
        area += cross(&r[0], &r[m], &r[m + 1]);
    }
    let sign = if area.is_negative() { -1 } else { 1 };
    for e in 0..r.len() {
        let (u, w) = (&r[e], &r[(e + 1) % r.len()]);
        let d = |p: &[Q; 2]| {
            let c = cross(u, w, p);
            if sign < 0 {
                -c
            } else {
                c
            }
        };
        let mut out = Vec::new();
        for m in 0..poly.len() {
            let (c, nx) = (&poly[m], &poly[(m + 1) % poly.len()]);
            let (dc, dn) = (d(c), d(nx));
            if !dc.is_negative() {
                out.push(c.clone());
            }
            if (dc.is_negative() && dn.is_positive()) || (dc.is_positive() && dn.is_negative()) {
                let t = &dc / (&dc - &dn);
                out.push([&c[0] + &t * (&nx[0] - &c[0]), &c[1] + &t * (&nx[1] - &c[1])]);
            }
        }
        poly = out;
        if poly.is_empty() {
            break;
        }
    }
    poly.iter()
        .map(|p| {
            let mut x = [Q::zero(), Q::zero(), Q::zero()];
            x[i] = p[0].clone();
            x[j] = p[1].clone();
            x[k] = (&offq - &nq[i] * &p[0] - &nq[j] * &p[1]) / &nq[k];
            DVec3::new(f(&x[0]), f(&x[1]), f(&x[2]))
        })
        .collect()
}

/// Exact signed distance of `p` above the plane `n·x = off` (numerator exact, one division).
fn plane_distance(n: DVec3, off: f64, p: DVec3) -> f64 {
    let nq = q3(n);
    f(&(qdot(&nq, &q3(p)) - q(off))) / n.length()
}

/// Points closer than `eps` merged (the first kept).
fn dedup(mut v: Vec<DVec3>, eps: f64) -> Vec<DVec3> {
    let mut out: Vec<DVec3> = Vec::new();
    for p in v.drain(..) {
        if !out.iter().any(|o| (*o - p).length() <= eps) {
            out.push(p);
        }
    }
    out
}

// ---------------------------------------------------------------- checks

#[derive(Default, Debug)]
struct Tally {
    contacts: usize,
    face: usize,
    oracle_checked: usize,
    points: usize,
}

/// Checks every invariant of `m` for A and B (identity poses), and the exact oracle for face
/// contacts when `full` (the margin keeps the whole polygon). Returns an error message.
fn check(
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
    m: &ContactManifold,
    full: bool,
    tally: &mut Tally,
) -> Result<(), String> {
    let scale = pair_scale(a, &ID, b, &ID);
    let eps = 1e-12 * scale;
    tally.contacts += 1;
    tally.points += m.points.len();
    let n = m.normal;
    if m.points.is_empty() {
        return Err("no points".into());
    }
    if (n.length() - 1.0).abs() > 1e-12 {
        return Err(format!("normal not unit: {n}"));
    }
    // The normal points from A toward B: the shapes' separation along it is (up to the face
    // tolerance) their signed distance, never less.
    let s_true = distance(a, &ID, b, &ID, Algorithm::Auto, &mut PairCache::default())
        .unwrap()
        .signed_distance()
        .unwrap();
    let top_a = a.vertices().iter().map(|v| n.dot(*v)).fold(f64::NEG_INFINITY, f64::max);
    let low_b = b.vertices().iter().map(|v| n.dot(*v)).fold(f64::INFINITY, f64::min);
    let along = low_b - top_a;
    if along < s_true - 1e-8 * scale || along > s_true + 1e-8 * scale {
        return Err(format!(
            "separation along the normal {along} vs signed distance {s_true}"
        ));
    }
    for (k, p) in m.points.iter().enumerate() {
        if (p.b - p.a - n * p.separation).length() > eps {
            return Err(format!("point {k}: b − a ≠ separation · n"));
        }
        let (oa, ob) = (outside(a, &ID, p.a), outside(b, &ID, p.b));
        if oa.abs() > eps || ob.abs() > eps {
            return Err(format!("point {k} off the surfaces: {oa:e} {ob:e}"));
        }
        // GJK/EPA's signed distance agrees with the exact one to 1e-12 × scale, as the
        // points' separations do: the two may differ by both.
        if p.separation < s_true - 4.0 * eps {
            return Err(format!(
                "point {k} deeper ({}) than the signed distance {s_true}",
                p.separation
            ));
        }
    }
    polycd::verify::verify_manifold(a, &ID, b, &ID, m).map_err(|e| format!("verify_manifold: {e}"))?;
    let k = m.points.len();
    if k >= 3 {
        for i in 0..k {
            let (p, r, s) = (m.points[i].a, m.points[(i + 1) % k].a, m.points[(i + 2) % k].a);
            if (r - p).cross(s - r).dot(n) < -eps * scale {
                return Err(format!("not counter-clockwise at {i}"));
            }
        }
    }
    let (rs, is, f, on_a) = match m.kind {
        ManifoldKind::FaceA(f) => (a, b, f, true),
        ManifoldKind::FaceB(f) => (b, a, f, false),
        ManifoldKind::Point => {
            if k != 1 {
                return Err("a point contact with several points".into());
            }
            return Ok(());
        }
        other => panic!("a variant this test does not know: {other:?}"),
    };
    tally.face += 1;
    let face = rs.face(f);
    let nr = face.normal;
    // The incident face: of the faces at the other shape's deepest vertex along the reference
    // normal, the most opposed to it.
    let deep = (0..is.vertices().len() as u32)
        .min_by(|&x, &y| is.vertex(x).dot(nr).total_cmp(&is.vertex(y).dot(nr)))
        .unwrap();
    let g = (0..is.faces().len() as u32)
        .filter(|&x| is.face_vertices(x).contains(&deep))
        .min_by(|&x, &y| is.face(x).normal.dot(nr).total_cmp(&is.face(y).normal.dot(nr)))
        .unwrap();
    for (i, p) in m.points.iter().enumerate() {
        let (pr, pi) = if on_a { (p.a, p.b) } else { (p.b, p.a) };
        let exact = plane_distance(nr, face.offset, pi);
        if (exact - p.separation).abs() > eps {
            return Err(format!("point {i}: separation {} vs exact {exact}", p.separation));
        }
        if plane_distance(nr, face.offset, pr).abs() > eps {
            return Err(format!("point {i}: reference point off the reference plane"));
        }
        if plane_distance(is.face(g).normal, is.face(g).offset, pi).abs() > eps {
            return Err(format!("point {i}: incident point off the incident face's plane"));
        }
    }
    if full {
        let refp: Vec<DVec3> = rs.face_vertices(f).iter().map(|&v| rs.vertex(v)).collect();
        let inc: Vec<DVec3> = is.face_vertices(g).iter().map(|&v| is.vertex(v)).collect();
        let want = dedup(oracle_polygon(&refp, nr, face.offset, &inc), eps);
        let got = dedup(m.points.iter().map(|p| if on_a { p.a } else { p.b }).collect(), eps);
        let near = |x: &DVec3, set: &[DVec3]| set.iter().any(|y| (*x - *y).length() <= 2.0 * eps);
        if got.len() != want.len() || !got.iter().all(|x| near(x, &want)) || !want.iter().all(|x| near(x, &got)) {
            return Err(format!(
                "polygon differs from the exact intersection:\n got  {got:?}\n want {want:?}"
            ));
        }
        tally.oracle_checked += 1;
    }
    Ok(())
}

// ---------------------------------------------------------------- random families

fn random_shape(rng: &mut ChaCha8Rng) -> ConvexPolyhedron {
    match rng.random_range(0..4) {
        0 => shapes::cuboid(
            rng.random_range(0.3..2.0),
            rng.random_range(0.3..2.0),
            rng.random_range(0.3..2.0),
        )
        .unwrap(),
        1 => shapes::prism(
            rng.random_range(3..12),
            rng.random_range(0.3..1.5),
            rng.random_range(0.3..2.0),
        )
        .unwrap(),
        2 => shapes::icosphere(rng.random_range(0..2), rng.random_range(0.5..1.5)).unwrap(),
        _ => shapes::ellipsoid(
            rng.random_range(20..60),
            rng.random_range(0.4..1.5),
            rng.random_range(0.4..1.5),
            rng.random_range(0.4..1.5),
            rng.random(),
        )
        .unwrap(),
    }
}

/// The rotation taking `from` to `to` (unit vectors).
fn rot_to(from: DVec3, to: DVec3) -> DQuat {
    let c = from.dot(to);
    if c < -1.0 + 1e-12 {
        let axis = from.any_orthonormal_vector();
        return DQuat::from_axis_angle(axis, std::f64::consts::PI);
    }
    DQuat::from_rotation_arc(from, to)
}

/// `shape`'s vertices under `pose` then the world map `w` (scale, rotation, offset).
fn placed(shape: &ConvexPolyhedron, pose: &Pose, w: &(f64, DQuat, DVec3)) -> Option<ConvexPolyhedron> {
    let pts: Vec<DVec3> = shape
        .vertices()
        .iter()
        .map(|&v| w.1 * (pose.transform_point(v) * w.0) + w.2)
        .collect();
    ConvexPolyhedron::from_points(&pts).ok().filter(|p| p.dimension() == 3)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Family {
    FaceFace,
    EdgeFace,
    VertexFace,
    EdgeEdge,
}

/// One random contact of `family`: A's face in z = 0 (outward +z) in the canonical frame, B
/// above it by `s`, both carried by a random world map. `None` when a hull fails.
fn contact(rng: &mut ChaCha8Rng, family: Family) -> Option<(ConvexPolyhedron, ConvexPolyhedron, bool, f64)> {
    let scale = 10f64.powf(rng.random_range(-6.0..6.0));
    let offset = if rng.random_bool(0.3) {
        DVec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        ) * scale
            * 1e3
    } else {
        DVec3::ZERO
    };
    let world = (scale, shapes::random_rotation(rng), offset);
    let s = match rng.random_range(0..4) {
        0 => 0.0,
        1 => 1e-3,
        2 => -1e-3,
        _ => (-rng.random_range(2.0..20.0f64)).exp(),
    };
    let (sa, pa, sb, pb, exact_flat) = match family {
        Family::EdgeEdge => {
            // Two boxes on their edges: A's top edge along y, B's bottom edge along a
            // direction turned by ψ from x.
            let a = shapes::cuboid(
                rng.random_range(0.5..2.0),
                rng.random_range(0.5..2.0),
                rng.random_range(0.5..2.0),
            )
            .unwrap();
            let b = shapes::cuboid(
                rng.random_range(0.5..2.0),
                rng.random_range(0.5..2.0),
                rng.random_range(0.5..2.0),
            )
            .unwrap();
            let ra = DQuat::from_rotation_y(rng.random_range(0.3..1.2));
            let rb =
                DQuat::from_rotation_z(rng.random_range(0.4..1.2)) * DQuat::from_rotation_x(rng.random_range(0.3..1.2));
            // The midpoint of the extreme edge along `dir` (its two extreme vertices).
            let edge_mid = |p: &ConvexPolyhedron, r: DQuat, dir: f64| {
                let mut v: Vec<DVec3> = p.vertices().iter().map(|&x| r * x).collect();
                v.sort_by(|x, y| (dir * y.z).total_cmp(&(dir * x.z)));
                (v[0] + v[1]) * 0.5
            };
            let ma = edge_mid(&a, ra, 1.0);
            let mb = edge_mid(&b, rb, -1.0);
            let pa = Pose::new(ra, -ma);
            let pb = Pose::new(rb, DVec3::new(-mb.x, -mb.y, s - mb.z));
            (a, pa, b, pb, false)
        }
        _ => {
            let a = random_shape(rng);
            let b = if family == Family::EdgeFace {
                shapes::cuboid(
                    rng.random_range(0.3..2.0),
                    rng.random_range(0.3..2.0),
                    rng.random_range(0.3..2.0),
                )
                .unwrap()
            } else {
                random_shape(rng)
            };
            let fa = rng.random_range(0..a.faces().len() as u32);
            let na = a.face(fa).normal;
            let ra = rot_to(na, DVec3::Z);
            let fverts: Vec<DVec3> = a.face_vertices(fa).iter().map(|&v| ra * a.vertex(v)).collect();
            let centre = fverts.iter().copied().sum::<DVec3>() / fverts.len() as f64;
            let pa = Pose::new(ra, DVec3::new(-centre.x, -centre.y, -a.face(fa).offset));
            // Where over A's face B's contact lands: a random mix of its corners.
            let w0 = rng.random_range(0.0..1.0);
            let corner = fverts[rng.random_range(0..fverts.len())] - centre;
            let target = DVec3::new(corner.x, corner.y, 0.0) * w0 * 0.8;
            let spin = DQuat::from_rotation_z(rng.random_range(0.0..std::f64::consts::TAU));
            let (rb, anchor, flat) = match family {
                Family::FaceFace => {
                    let fb = rng.random_range(0..b.faces().len() as u32);
                    let r0 = rot_to(b.face(fb).normal, -DVec3::Z);
                    let k = rng.random_range(0..24);
                    let tilt = if k == 0 { 0.0 } else { (-(k as f64)).exp() };
                    let axis = DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), 0.0)
                        .normalize_or(DVec3::X);
                    let r = DQuat::from_axis_angle(axis, tilt) * spin * r0;
                    let fc = b.face_vertices(fb).iter().map(|&v| b.vertex(v)).sum::<DVec3>() / b.face(fb).len as f64;
                    (r, r * fc, tilt == 0.0)
                }
                Family::EdgeFace => {
                    let r = spin * DQuat::from_rotation_x(rng.random_range(0.2..1.35));
                    (r, lowest(&b, r), false)
                }
                _ => {
                    let r = shapes::random_rotation(rng);
                    (r, lowest(&b, r), false)
                }
            };
            let low = b.vertices().iter().map(|&v| (rb * v).z).fold(f64::INFINITY, f64::min);
            let t = DVec3::new(target.x - anchor.x, target.y - anchor.y, s - low);
            (a, pa, b, Pose::new(rb, t), flat)
        }
    };
    Some((
        placed(&sa, &pa, &world)?,
        placed(&sb, &pb, &world)?,
        exact_flat,
        s * scale,
    ))
}

/// The lowest vertex (least z) of `p` rotated by `r`.
fn lowest(p: &ConvexPolyhedron, r: DQuat) -> DVec3 {
    p.vertices()
        .iter()
        .map(|&v| r * v)
        .min_by(|x, y| x.z.total_cmp(&y.z))
        .unwrap()
}

/// Runs `per_family` random contacts of each family; panics with the first failures.
fn run_families(seed: u64, per_family: usize) -> Tally {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    let mut expected_face = 0usize;
    let mut got_face = 0usize;
    for family in [Family::FaceFace, Family::EdgeFace, Family::VertexFace, Family::EdgeEdge] {
        for i in 0..per_family {
            let Some((a, b, flat, gap)) = contact(&mut rng, family) else {
                continue;
            };
            let scale = pair_scale(&a, &ID, &b, &ID);
            // Face–face: a margin keeping the whole polygon (checked against the oracle);
            // otherwise the gap (0 when touching or penetrating): the counts the issue states.
            let full = family == Family::FaceFace;
            let margin = if full {
                10.0 * scale
            } else {
                gap.max(0.0) * (1.0 + 1e-9)
            };
            let apart = gap >= 0.0;
            let Some(m) = manifold(&a, &b, margin, false) else {
                failures.push(format!("{family:?} #{i}: no manifold"));
                continue;
            };
            if let Err(e) = check(&a, &b, &m, full, &mut tally) {
                failures.push(format!("{family:?} #{i}: {e}"));
            }
            let kinds = |f: Feature| match f {
                Feature::Vertex(_) => 'v',
                Feature::Edge(_) => 'e',
                Feature::Face(_) => 'f',
            };
            let fk: Vec<(char, char)> = m
                .points
                .iter()
                .map(|p| (kinds(p.features.a), kinds(p.features.b)))
                .collect();
            match family {
                Family::FaceFace => {
                    if flat {
                        expected_face += 1;
                        got_face += usize::from(m.kind != ManifoldKind::Point);
                    }
                }
                Family::EdgeFace => {
                    // Apart or touching: the edge's two (clipped) ends; penetrating, the
                    // incident face's part below A's face (at least those two).
                    if (apart && m.points.len() != 2) || m.points.len() < 2 || m.kind == ManifoldKind::Point {
                        failures.push(format!(
                            "{family:?} #{i}: {} points {:?} {fk:?}",
                            m.points.len(),
                            m.kind
                        ));
                    }
                }
                Family::VertexFace => {
                    let deepest = (0..m.points.len())
                        .min_by(|&x, &y| m.points[x].separation.total_cmp(&m.points[y].separation))
                        .unwrap_or(0);
                    if (apart && m.points.len() != 1) || fk[deepest] != ('f', 'v') {
                        failures.push(format!("{family:?} #{i}: {} points {fk:?}", m.points.len()));
                    }
                }
                Family::EdgeEdge => {
                    if m.points.len() != 1 || fk[0] != ('e', 'e') || m.kind != ManifoldKind::Point {
                        failures.push(format!(
                            "{family:?} #{i}: {} points {:?} {fk:?}",
                            m.points.len(),
                            m.kind
                        ));
                    }
                }
            }
            if failures.len() > 10 {
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Parallel faces over each other are face contacts (a few land off A's face when B's
    // face is small and its centroid near A's border: no more than a tenth).
    assert!(
        10 * got_face >= 9 * expected_face,
        "face contacts {got_face} of {expected_face}"
    );
    tally
}

#[test]
fn random_contacts_agree_with_the_exact_oracle() {
    let t = run_families(25, 2_000);
    eprintln!("{t:?}");
    assert!(t.contacts >= 7_500, "{t:?}");
    assert!(t.oracle_checked >= 1_200, "{t:?}");
}

#[test]
#[ignore = "10^5 random contacts (about a minute in release)"]
fn random_contacts_agree_with_the_exact_oracle_big() {
    let t = run_families(2525, 25_000);
    eprintln!("{t:?}");
    assert!(t.contacts >= 95_000, "{t:?}");
}

// ---------------------------------------------------------------- persistence, reduce, alloc

/// A rotation by `angle` about a random axis.
fn jitter(rng: &mut ChaCha8Rng, angle: f64) -> DQuat {
    DQuat::from_axis_angle(shapes::unit_vector(rng), angle)
}

/// A 2×2×2 box resting on a 4×4×2 box (its bottom face inside the top face), its pose
/// jittered every frame by a rotation of 1e-9 rad about a random axis: with a speculative
/// margin of 1e-6, every frame has the same four points with the same ids, each matched to
/// the same point of the frame before.
#[test]
fn resting_box_keeps_its_ids_for_1000_jittered_frames() {
    let table = shapes::cuboid(4.0, 4.0, 2.0).unwrap();
    let block = shapes::cuboid(2.0, 2.0, 2.0).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1000);
    let mut cache = ManifoldCache::default();
    let options = ManifoldOptions::default().with_margin(1e-6).with_reduce(false);
    let mut first: Option<Vec<(u32, polycd::FeaturePair)>> = None;
    let mut prev_ids: Vec<u32> = Vec::new();
    for frame in 0..1000 {
        let pose = Pose::new(jitter(&mut rng, 1e-9), DVec3::new(0.5, 0.25, 2.0));
        let m = contact_manifold(&table, &ID, &block, &pose, &options, &mut cache)
            .unwrap()
            .expect("resting: a manifold");
        assert_eq!(m.points.len(), 4, "frame {frame}: {m:?}");
        assert_eq!(
            m.kind,
            ManifoldKind::FaceA(table.faces().iter().position(|f| f.normal.z > 0.5).unwrap() as u32)
        );
        let ids: Vec<(u32, polycd::FeaturePair)> = m.points.iter().map(|p| (p.id, p.features)).collect();
        match &first {
            None => {
                assert!(m.points.iter().all(|p| p.previous.is_none()));
                first = Some(ids.clone());
            }
            Some(f) => {
                assert_eq!(&ids, f, "frame {frame}: ids changed");
                for p in &m.points {
                    let j = p.previous.expect("matched to the last frame") as usize;
                    assert_eq!(prev_ids[j], p.id);
                }
            }
        }
        prev_ids = m.points.iter().map(|p| p.id).collect();
    }
    // A new contact (the box lifted beyond the margin, then set down again) starts new ids.
    let lifted = Pose::from_translation(DVec3::new(0.5, 0.25, 3.0));
    assert!(contact_manifold(&table, &ID, &block, &lifted, &options, &mut cache)
        .unwrap()
        .is_none());
    let m = contact_manifold(
        &table,
        &ID,
        &block,
        &Pose::from_translation(DVec3::new(0.5, 0.25, 2.0)),
        &options,
        &mut cache,
    )
    .unwrap()
    .unwrap();
    assert!(m.points.iter().all(|p| p.previous.is_none()));
    assert!(m.points.iter().all(|p| p.id >= 4));
}

/// Reduction keeps at most four points, a subset of the full polygon in its order, the
/// deepest among them; a polygon of four or fewer is unchanged.
#[test]
fn reduce_keeps_the_deepest_and_at_most_four() {
    let table = shapes::cuboid(6.0, 6.0, 2.0).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    for n in [3u32, 4, 5, 8, 16, 32] {
        let prism = shapes::prism(n, 1.0, 1.0).unwrap();
        for _ in 0..20 {
            // Tilted slightly, sunk a little: the points' separations differ.
            let pose = Pose::new(jitter(&mut rng, 1e-3), DVec3::new(0.1, -0.2, 1.5 - 1e-3));
            let a = placed(&table, &ID, &(1.0, DQuat::IDENTITY, DVec3::ZERO)).unwrap();
            let b = placed(&prism, &pose, &(1.0, DQuat::IDENTITY, DVec3::ZERO)).unwrap();
            let full = manifold(&a, &b, 1.0, false).unwrap();
            let red = manifold(&a, &b, 1.0, true).unwrap();
            assert_eq!(full.points.len(), n as usize);
            assert_eq!(red.points.len(), full.points.len().min(4));
            let idx: Vec<usize> = red
                .points
                .iter()
                .map(|p| {
                    full.points
                        .iter()
                        .position(|q| q.a == p.a && q.b == p.b)
                        .expect("a subset")
                })
                .collect();
            assert!(idx.windows(2).all(|w| w[0] < w[1]), "in the polygon's order: {idx:?}");
            let deepest = full.min_separation();
            assert_eq!(red.min_separation(), deepest);
            let mut t = Tally::default();
            check(&a, &b, &red, false, &mut t).unwrap();
        }
    }
}

/// No allocation per query in steady state: after a warm-up pass, a pass of a few hundred
/// coherent frames (resting, sliding, rocking on an edge, apart) allocates nothing.
#[test]
fn warm_manifold_queries_do_not_allocate() {
    let table = shapes::cuboid(4.0, 4.0, 2.0).unwrap();
    let shapes_b = [
        shapes::cuboid(1.0, 1.0, 1.0).unwrap(),
        shapes::prism(12, 0.5, 1.0).unwrap(),
        shapes::capsule(1.0, 0.25).unwrap(),
        shapes::sphere(0.5).unwrap(),
        shapes::ellipsoid(80, 0.6, 0.5, 0.4, 3).unwrap(),
    ];
    for (k, b) in shapes_b.iter().enumerate() {
        let mut cache = ManifoldCache::default();
        let pose = |i: usize| {
            let s = i as f64;
            Pose::new(
                DQuat::from_rotation_x(0.3 * (0.01 * s).sin()) * DQuat::from_rotation_z(0.002 * s),
                DVec3::new(
                    0.5 * (0.01 * s).cos(),
                    0.3 * (0.013 * s).sin(),
                    1.4 + 0.2 * (0.02 * s).sin(),
                ),
            )
        };
        let options = ManifoldOptions::default().with_margin(0.05).with_reduce(k % 2 == 0);
        let ask = |i: usize, cache: &mut ManifoldCache| {
            contact_manifold(&table, &ID, b, &pose(i), &options, cache)
                .unwrap()
                .is_some()
        };
        let mut some = 0;
        for _ in 0..2 {
            for i in 0..400 {
                some += usize::from(ask(i, &mut cache));
            }
        }
        assert!(some > 100, "shape {k}: the motion has contacts ({some})");
        let n = count(|| {
            for i in 0..400 {
                ask(i, &mut cache);
            }
        });
        assert_eq!(n, 0, "shape {k}: {n} allocations in 400 warm queries");
    }
}

/// `World::manifolds`: three boxes resting on a table and one far away give three manifolds
/// of four points (table as A: it is inserted first), and a second call matches every point
/// to the first call's.
#[test]
fn world_reports_manifolds_of_its_candidate_pairs() {
    use polycd::broad::{World, WorldOptions};
    use std::sync::Arc;
    let mut world = World::new(WorldOptions::default());
    let table = world
        .insert(
            Arc::new(shapes::cuboid(10.0, 10.0, 1.0).unwrap()),
            Pose::from_translation(DVec3::new(0.0, 0.0, -0.5)),
        )
        .unwrap();
    let block = Arc::new(shapes::cuboid(1.0, 1.0, 1.0).unwrap());
    for x in [-3.0, 0.0, 3.0] {
        world
            .insert(block.clone(), Pose::from_translation(DVec3::new(x, 0.0, 0.5)))
            .unwrap();
    }
    world
        .insert(block.clone(), Pose::from_translation(DVec3::new(0.0, 0.0, 20.0)))
        .unwrap();
    world.update().unwrap();
    let options = ManifoldOptions::default();
    let mut seen = Vec::new();
    let n = world
        .manifolds(&options, |a, b, m| {
            assert_eq!(a, table);
            assert_eq!(m.points.len(), 4);
            assert_eq!(m.normal, DVec3::Z);
            assert!(m.points.iter().all(|p| p.previous.is_none() && p.separation == 0.0));
            seen.push(b);
        })
        .unwrap();
    assert_eq!((n, seen.len()), (3, 3));
    let n = world
        .manifolds(&options, |_, _, m| {
            assert!(m.points.iter().all(|p| p.previous.is_some()))
        })
        .unwrap();
    assert_eq!(n, 3);
}

/// The rotation taking the unit vector `from` onto `to`, then a random turn about `to`.
fn aim(rng: &mut ChaCha8Rng, from: DVec3, to: DVec3) -> DQuat {
    DQuat::from_axis_angle(to, rng.random_range(0.0..std::f64::consts::TAU)) * rot_to(from, to)
}

/// The quick rejections (bounding spheres, the last frame's axis) against the brute-force
/// oracle where they are tight: each shape turned so that its vertex farthest from its
/// bounding sphere's centre points at the other (the cores' distance is then the centres'
/// distance less both sphere radii, up to the vertex's own slack), the centres' gap set to the
/// margin plus both radii plus δ, δ log-uniform in ±[1e-15, 1e-2] × scale and 0. Each pair is
/// asked cold and then warm (the cache of a nearby pose: the warm axis re-checked). A `None`
/// must have an oracle distance above the margin plus the contact tolerance less `1e-9 ×
/// scale`, a manifold one below it plus `1e-9 × scale`; both answers must occur close
/// to the threshold (the test sees the boundary).
#[test]
fn quick_rejections_agree_with_the_oracle_at_the_threshold() {
    let mut rng = ChaCha8Rng::seed_from_u64(2525);
    let pool: Vec<ConvexPolyhedron> = vec![
        shapes::icosahedron(0.5).unwrap(),
        shapes::cuboid(0.8, 0.5, 0.4).unwrap(),
        shapes::tetrahedron(0.7).unwrap(),
        shapes::ellipsoid(32, 0.7, 0.45, 0.35, 5).unwrap(),
        shapes::icosahedron(0.9).unwrap().with_radius(0.05).unwrap(),
        shapes::cuboid(1.6, 0.3, 0.3).unwrap().with_radius(0.02).unwrap(),
    ];
    let farthest = |p: &ConvexPolyhedron| -> DVec3 {
        let c = p.bounding_sphere().0;
        *p.vertices()
            .iter()
            .max_by(|x, y| (**x - c).length().total_cmp(&(**y - c).length()))
            .unwrap()
    };
    let margin = 0.01;
    let options = ManifoldOptions::default().with_margin(margin).with_reduce(false);
    let (mut none_near, mut some_near, mut asked) = (0usize, 0usize, 0usize);
    for _ in 0..3_000 {
        let a = &pool[rng.random_range(0..pool.len())];
        let b = &pool[rng.random_range(0..pool.len())];
        let dir = shapes::unit_vector(&mut rng);
        let (ca, ra) = a.bounding_sphere();
        let (cb, rb) = b.bounding_sphere();
        let qa = aim(&mut rng, (farthest(a) - ca).normalize(), dir);
        let qb = aim(&mut rng, (farthest(b) - cb).normalize(), -dir);
        let scale = ra + rb + a.radius() + b.radius();
        let mag = 10f64.powf(rng.random_range(-15.0..-2.0)) * scale;
        let delta = match rng.random_range(0..5) {
            0 => 0.0,
            1 | 2 => mag,
            _ => -mag,
        };
        let gap = ra + rb + margin + a.radius() + b.radius() + delta;
        let origin = DVec3::new(rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0), 0.0);
        let pa = Pose::new(qa, origin - qa * ca);
        let pb = Pose::new(qb, origin + dir * gap - qb * cb);
        // The warm cache: the same pair 1e-3 farther apart first (its axis kept).
        let mut warm = ManifoldCache::default();
        let pb_far = Pose::new(qb, pb.translation + dir * 1e-3);
        contact_manifold(a, &pa, b, &pb_far, &options, &mut warm).unwrap();
        let oracle = polycd::oracle::signed_distance(a, &pa, b, &pb).unwrap().signed_distance - a.radius() - b.radius();
        let slack = 1e-9 * pair_scale(a, &pa, b, &pb);
        let tol = polycd::query::contact_tolerance(a, &pa, b, &pb);
        for cache in [&mut ManifoldCache::default(), &mut warm] {
            let m = contact_manifold(a, &pa, b, &pb, &options, cache).unwrap();
            asked += 1;
            match m {
                None => {
                    assert!(
                        oracle > margin + tol - slack,
                        "None at oracle distance {oracle} (δ {delta})"
                    );
                    none_near += usize::from(oracle < margin + tol + 1e-6 * scale);
                }
                Some(_) => {
                    assert!(
                        oracle <= margin + tol + slack,
                        "a manifold at oracle distance {oracle} (δ {delta})"
                    );
                    some_near += usize::from(oracle > margin - 1e-6 * scale);
                }
            }
        }
    }
    assert_eq!(asked, 6_000);
    assert!(
        none_near >= 500 && some_near >= 500,
        "none {none_near}, some {some_near}"
    );
}
