//! Continuous collision detection (FAST, `polycd::ccd`) against an independent oracle:
//! brute-force triangle–triangle distances over all pairs at sampled times, plus a vertex
//! containment test. For every returned time of contact the oracle distance there is within
//! the threshold (plus the pieces' margin and rounding), and at a dense set of earlier times
//! the oracle sees no contact (conservative advancement never steps past the first contact);
//! for `None` the oracle sees no contact at a dense set of times over `[0, 1]`. Analytic cases
//! (a box translating at a box, a rotating bar hitting a post) check `t` against the exact
//! value within `threshold / closing speed`.
//!
//! The large randomized run is ignored by default:
//! `cargo test -p polycd --release --test ccd -- --ignored`.

mod common;

use common::random_pose;
use polycd::ccd::mesh::{self, MeshToiCache};
use polycd::ccd::{self, CcdCache, CcdOptions, RigidMotion};
use polycd::error::MeshDefect;
use polycd::mesh::{MeshCache, MeshDistance, TriMesh};
use polycd::{shapes, ConvexPolyhedron, DQuat, DVec3, PolycdError, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

// ---------------------------------------------------------------- the oracle

type Tri = [DVec3; 3];

fn closest_on_segment(p: DVec3, a: DVec3, b: DVec3) -> DVec3 {
    let ab = b - a;
    let l2 = ab.length_squared();
    if l2 == 0.0 {
        return a;
    }
    a + ab * ((p - a).dot(ab) / l2).clamp(0.0, 1.0)
}

/// Closest point on a triangle, by projecting on the plane and falling back to the edges.
fn closest_on_tri(p: DVec3, t: &Tri) -> DVec3 {
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let q = p - n * ((p - t[0]).dot(n) / n.length_squared());
    let inside = (0..3).all(|k| (t[(k + 1) % 3] - t[k]).cross(q - t[k]).dot(n) >= 0.0);
    if inside {
        return q;
    }
    let mut best = t[0];
    for k in 0..3 {
        let c = closest_on_segment(p, t[k], t[(k + 1) % 3]);
        if (c - p).length_squared() < (best - p).length_squared() {
            best = c;
        }
    }
    best
}

/// Distance between two segments by sampling-free alternation on the clamped parameters
/// (exact for the segment pair: min over the two end-point projections and the interior
/// solution).
fn seg_seg(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> f64 {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.dot(d1);
    let e = d2.dot(d2);
    let f = d2.dot(r);
    let c = d1.dot(r);
    let b = d1.dot(d2);
    let denom = a * e - b * b;
    let mut best = f64::INFINITY;
    if denom > 1e-300 {
        let s = ((b * f - c * e) / denom).clamp(0.0, 1.0);
        let t = ((b * s + f) / e).clamp(0.0, 1.0);
        let s2 = ((b * t - c) / a).clamp(0.0, 1.0);
        best = best.min((p1 + d1 * s2 - (p2 + d2 * t)).length());
    }
    for (p, a0, b0) in [(p1, p2, q2), (q1, p2, q2), (p2, p1, q1), (q2, p1, q1)] {
        best = best.min((closest_on_segment(p, a0, b0) - p).length());
    }
    best
}

/// The segment `[p, q]` meets the triangle.
fn seg_hits_tri(p: DVec3, q: DVec3, t: &Tri) -> bool {
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let dp = (p - t[0]).dot(n);
    let dq = (q - t[0]).dot(n);
    if (dp > 0.0 && dq > 0.0) || (dp < 0.0 && dq < 0.0) || dp == dq {
        return false;
    }
    let x = p + (q - p) * (dp / (dp - dq));
    (0..3).all(|k| (t[(k + 1) % 3] - t[k]).cross(x - t[k]).dot(n) >= 0.0)
}

fn tri_tri(a: &Tri, b: &Tri) -> f64 {
    for k in 0..3 {
        if seg_hits_tri(a[k], a[(k + 1) % 3], b) || seg_hits_tri(b[k], b[(k + 1) % 3], a) {
            return 0.0;
        }
    }
    let mut best = f64::INFINITY;
    for k in 0..3 {
        best = best.min((closest_on_tri(a[k], b) - a[k]).length());
        best = best.min((closest_on_tri(b[k], a) - b[k]).length());
        for l in 0..3 {
            best = best.min(seg_seg(a[k], a[(k + 1) % 3], b[l], b[(l + 1) % 3]));
        }
    }
    best
}

/// A solid as world triangles, with a containment test for its points.
struct Solid {
    tris: Vec<Tri>,
}

impl Solid {
    fn of_convex(p: &ConvexPolyhedron, pose: &Pose) -> Solid {
        let mut tris = Vec::new();
        for f in 0..p.faces().len() as u32 {
            let v = p.face_vertices(f);
            for k in 1..v.len() - 1 {
                tris.push([v[0], v[k], v[k + 1]].map(|i| pose.transform_point(p.vertex(i))));
            }
        }
        Solid { tris }
    }
    fn of_mesh(m: &TriMesh, pose: &Pose) -> Solid {
        let tris = m
            .triangles()
            .iter()
            .map(|t| t.map(|i| pose.transform_point(m.vertices()[i as usize])))
            .collect();
        Solid { tris }
    }
    /// Winding number of a point (independent of the library's).
    fn contains(&self, p: DVec3) -> bool {
        let mut w = 0.0;
        for t in &self.tris {
            let [a, b, c] = t.map(|v| v - p);
            let (la, lb, lc) = (a.length(), b.length(), c.length());
            w += 2.0
                * a.dot(b.cross(c))
                    .atan2(la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la);
        }
        w.abs() > 2.0 * std::f64::consts::PI
    }
    fn bounds(t: &Tri) -> (DVec3, DVec3) {
        (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]))
    }
}

/// Oracle distance between two solids (0 when the surfaces meet or one contains the other).
fn oracle_distance(a: &Solid, b: &Solid) -> f64 {
    let mut best = f64::INFINITY;
    let bb: Vec<_> = b.tris.iter().map(Solid::bounds).collect();
    for ta in &a.tris {
        let (lo, hi) = Solid::bounds(ta);
        for (tb, (blo, bhi)) in b.tris.iter().zip(&bb) {
            // Box gap: a lower bound of the triangles' distance.
            let gap = (*blo - hi).max(lo - *bhi).max(DVec3::ZERO).length();
            if gap >= best {
                continue;
            }
            best = best.min(tri_tri(ta, tb));
        }
    }
    if best > 0.0 && (b.contains(a.tris[0][0]) || a.contains(b.tris[0][0])) {
        return 0.0;
    }
    best
}

// ---------------------------------------------------------------- checks

struct Stats {
    contacts: usize,
    misses: usize,
    iterations: u64,
}

/// Checks one convex answer against the oracle.
#[allow(clippy::too_many_arguments)]
fn check_convex(
    a: &ConvexPolyhedron,
    ma: &RigidMotion,
    b: &ConvexPolyhedron,
    mb: &RigidMotion,
    opts: &CcdOptions,
    samples: usize,
    stats: &mut Stats,
    label: &str,
) -> Option<f64> {
    let mut cache = CcdCache::default();
    let r = ccd::time_of_contact(a, ma, b, mb, opts, &mut cache).unwrap_or_else(|e| panic!("{label}: {e}"));
    let thr = opts
        .distance_threshold
        .unwrap_or(polycd::tolerance::CCD_DISTANCE_REL * (a.scale() + b.scale()));
    let scale = a.scale() + b.scale() + ma.center_at(0.0).length().max(ma.center_at(1.0).length());
    let round = 1e-9 * scale;
    let at = |t: f64| {
        oracle_distance(
            &Solid::of_convex(a, &ma.pose_at(t)),
            &Solid::of_convex(b, &mb.pose_at(t)),
        )
    };
    let end = match r {
        Some(toc) => {
            stats.contacts += 1;
            stats.iterations += toc.iterations as u64;
            let d = at(toc.t);
            assert!(
                d <= thr + round,
                "{label}: oracle distance {d:e} at toc {} > threshold {thr:e}",
                toc.t
            );
            assert!(toc.distance <= thr, "{label}");
            assert!((0.0..=1.0).contains(&toc.t), "{label}");
            toc.t
        }
        None => {
            stats.misses += 1;
            1.0
        }
    };
    // Dense earlier times: uniform, plus a geometric run towards `end`.
    let mut ts: Vec<f64> = (0..samples).map(|i| end * i as f64 / samples as f64).collect();
    ts.extend((1..30).map(|k| end * (1.0 - 0.5f64.powi(k))));
    if r.is_none() {
        ts.push(1.0);
    }
    for t in ts {
        if r.is_some() && t >= end {
            continue;
        }
        let d = at(t);
        assert!(
            d > 0.0,
            "{label}: oracle contact at t = {t} before the reported {end} ({r:?})"
        );
    }
    r.map(|toc| toc.t)
}

fn opts() -> CcdOptions {
    CcdOptions::default()
}

fn stationary(p: Pose) -> RigidMotion {
    RigidMotion::stationary(p).unwrap()
}

// ---------------------------------------------------------------- analytic cases

#[test]
fn box_translating_at_box_matches_exact_time() {
    let a = shapes::cuboid(1.0, 1.0, 1.0).unwrap();
    let b = shapes::cuboid(1.0, 1.0, 1.0).unwrap();
    let ma = RigidMotion::about_centroid(
        &a,
        Pose::from_translation(DVec3::new(-3.0, 0.2, 0.1)),
        Pose::from_translation(DVec3::new(3.0, 0.2, 0.1)),
    )
    .unwrap();
    let mb = stationary(Pose::IDENTITY);
    let mut st = Stats {
        contacts: 0,
        misses: 0,
        iterations: 0,
    };
    let t = check_convex(&a, &ma, &b, &mb, &opts(), 200, &mut st, "box").unwrap();
    let exact = 2.0 / 6.0;
    let thr = polycd::tolerance::CCD_DISTANCE_REL * (a.scale() + b.scale());
    assert!(
        t <= exact + 1e-12 && t >= exact - thr / 6.0 - 1e-12,
        "t = {t}, exact {exact}"
    );
    // Face against face, head on: the first step lands on the contact.
    assert_eq!(st.iterations, 1);
}

#[test]
fn rotating_bar_hits_post_at_exact_time() {
    // Bar: half-length 1 along x, half-thickness w = 0.05 in y, rotating about z by π/2 over
    // [0, 1] about its centre. Post: [0.4, 0.6] × [0.3, 0.5]; its corner C = (0.6, 0.3) has
    // the smallest polar angle, so the bar's top face (y = w in the bar's frame) meets C first,
    // when C·(−sin φ, cos φ) = w: φ = atan2(0.3, 0.6) − asin(w / |C|).
    let w = 0.05;
    let bar = shapes::cuboid(2.0, 2.0 * w, 1.0).unwrap();
    let post = ConvexPolyhedron::from_points(&[
        DVec3::new(0.4, 0.3, -0.5),
        DVec3::new(0.6, 0.3, -0.5),
        DVec3::new(0.4, 0.5, -0.5),
        DVec3::new(0.6, 0.5, -0.5),
        DVec3::new(0.4, 0.3, 0.5),
        DVec3::new(0.6, 0.3, 0.5),
        DVec3::new(0.4, 0.5, 0.5),
        DVec3::new(0.6, 0.5, 0.5),
    ])
    .unwrap();
    let theta = std::f64::consts::FRAC_PI_2;
    let ma = RigidMotion::new(
        Pose::IDENTITY,
        Pose::new(DQuat::from_rotation_z(theta), DVec3::ZERO),
        DVec3::ZERO,
    )
    .unwrap();
    let mb = stationary(Pose::IDENTITY);
    let mut st = Stats {
        contacts: 0,
        misses: 0,
        iterations: 0,
    };
    let t = check_convex(&bar, &ma, &post, &mb, &opts(), 400, &mut st, "bar").unwrap();
    let c = DVec3::new(0.6, 0.3, 0.0);
    let exact = (0.3f64.atan2(0.6) - (w / c.length()).asin()) / theta;
    // Closing speed at contact: θ × the lever arm of C along the bar.
    let speed = theta * (c.length_squared() - w * w).sqrt();
    let thr = polycd::tolerance::CCD_DISTANCE_REL * (bar.scale() + post.scale());
    assert!(
        t <= exact + 1e-12 && t >= exact - thr / speed - 1e-9,
        "t = {t}, exact {exact}, iterations {}",
        st.iterations
    );
}

#[test]
fn overlap_at_start_and_no_contact() {
    let a = shapes::icosphere(1, 1.0).unwrap();
    let b = shapes::cuboid(1.0, 1.0, 1.0).unwrap();
    let mb = stationary(Pose::IDENTITY);
    // Overlapping at q0: t = 0 without a step.
    let ma = RigidMotion::about_centroid(
        &a,
        Pose::from_translation(DVec3::new(0.5, 0.0, 0.0)),
        Pose::from_translation(DVec3::new(5.0, 0.0, 0.0)),
    )
    .unwrap();
    let r = ccd::time_of_contact(&a, &ma, &b, &mb, &opts(), &mut CcdCache::default())
        .unwrap()
        .unwrap();
    assert_eq!((r.t, r.iterations), (0.0, 0));
    // Passing by: None, checked densely.
    let ma = RigidMotion::new(
        Pose::from_translation(DVec3::new(-5.0, 2.0, 0.0)),
        Pose::new(DQuat::from_rotation_x(3.0), DVec3::new(5.0, 2.0, 0.0)),
        DVec3::ZERO,
    )
    .unwrap();
    let mut st = Stats {
        contacts: 0,
        misses: 0,
        iterations: 0,
    };
    assert!(check_convex(&a, &ma, &b, &mb, &opts(), 400, &mut st, "pass-by").is_none());
    // Sliding parallel to a face at a fixed gap, no rotation: nothing approaches along n.
    let ma = RigidMotion::new(
        Pose::from_translation(DVec3::new(-5.0, 0.0, 1.5)),
        Pose::from_translation(DVec3::new(5.0, 0.0, 1.5)),
        DVec3::ZERO,
    )
    .unwrap();
    let bx = shapes::cuboid(1.0, 1.0, 1.0).unwrap();
    let r = ccd::time_of_contact(&bx, &ma, &b, &mb, &opts(), &mut CcdCache::default()).unwrap();
    assert!(r.is_none());
}

#[test]
fn bad_input_is_a_typed_error() {
    let nan = Pose::from_translation(DVec3::new(f64::NAN, 0.0, 0.0));
    assert_eq!(
        RigidMotion::new(nan, Pose::IDENTITY, DVec3::ZERO),
        Err(PolycdError::NonFinitePose)
    );
    let inf = Pose::new(DQuat::from_xyzw(0.0, 0.0, f64::INFINITY, 1.0), DVec3::ZERO);
    assert!(RigidMotion::new(Pose::IDENTITY, inf, DVec3::ZERO).is_err());
    let a = shapes::cuboid(1.0, 1.0, 1.0).unwrap();
    let m = stationary(Pose::IDENTITY);
    let o = opts().with_distance_threshold(Some(-1.0));
    assert!(matches!(
        ccd::time_of_contact(&a, &m, &a, &m, &o, &mut CcdCache::default()),
        Err(PolycdError::InvalidOption { .. })
    ));
    // An iteration bound too small for the approach: typed non-convergence with the time
    // reached, never a guess.
    let ma = RigidMotion::new(
        Pose::from_translation(DVec3::new(-3.0, 0.0, 0.0)),
        Pose::new(DQuat::from_rotation_y(2.5), DVec3::new(3.0, 0.3, 0.0)),
        DVec3::ZERO,
    )
    .unwrap();
    let s = shapes::icosphere(2, 0.5).unwrap();
    let o = opts().with_max_iterations(1);
    match ccd::time_of_contact(&s, &ma, &a, &m, &o, &mut CcdCache::default()) {
        Err(PolycdError::CcdNotConverged { iterations: 1, t_free }) => assert!(t_free > 0.0 && t_free < 1.0),
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------- random and adversarial

fn family(k: usize, s: f64, seed: u64) -> ConvexPolyhedron {
    match k % 6 {
        0 => shapes::cuboid(s, s, s).unwrap(),
        1 => shapes::icosphere(1, 0.5 * s).unwrap(),
        2 => shapes::ellipsoid(20 + (seed % 20) as usize, 0.6 * s, 0.4 * s, 0.3 * s, seed).unwrap(),
        // Thin shapes: a plate and a needle.
        3 => shapes::cuboid(s, s, 0.002 * s).unwrap(),
        4 => shapes::ellipsoid(30, s, 0.01 * s, 0.01 * s, seed).unwrap(),
        _ => shapes::tetrahedron(0.5 * s).unwrap(),
    }
}

/// Random convex cases at `scale`: A shot from a random pose through B's neighbourhood to
/// another, with up to `max_angle` of rotation; B fixed or moving.
fn random_convex(cases: usize, seed: u64, scale: f64, max_angle: f64, samples: usize) -> Stats {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut st = Stats {
        contacts: 0,
        misses: 0,
        iterations: 0,
    };
    for case in 0..cases {
        let a = family(rng.random_range(0..6), scale, rng.random());
        let b = family(rng.random_range(0..6), scale, rng.random());
        let p0 = random_pose(&mut rng, 2.0 * scale);
        let dir = shapes::unit_vector(&mut rng);
        let start = Pose::new(p0.rotation, dir * (-3.0 * scale) + p0.translation * 0.3);
        let axis = shapes::unit_vector(&mut rng);
        let angle = rng.random_range(0.0..max_angle);
        let end = Pose::new(
            DQuat::from_axis_angle(axis, angle) * start.rotation,
            dir * (3.0 * scale) + p0.translation * 0.3,
        );
        let ma = RigidMotion::about_centroid(&a, start, end).unwrap();
        let pb = random_pose(&mut rng, 0.3 * scale);
        let mb = if case % 3 == 0 {
            let pb1 = Pose::new(
                DQuat::from_axis_angle(shapes::unit_vector(&mut rng), rng.random_range(0.0..1.0)) * pb.rotation,
                pb.translation + shapes::unit_vector(&mut rng) * scale,
            );
            RigidMotion::about_centroid(&b, pb, pb1).unwrap()
        } else {
            stationary(pb)
        };
        let label = format!("seed {seed} case {case}");
        check_convex(&a, &ma, &b, &mb, &opts(), samples, &mut st, &label);
    }
    st
}

#[test]
fn random_convex_motions_against_oracle() {
    let st = random_convex(150, 1, 1.0, 3.0, 60);
    eprintln!(
        "random convex: {} contacts ({} steps in all), {} misses",
        st.contacts, st.iterations, st.misses
    );
    // The sample must contain both answers.
    assert!(
        st.contacts > 30 && st.misses > 10,
        "{} contacts, {} misses",
        st.contacts,
        st.misses
    );
}

#[test]
fn fast_rotations_and_extreme_scales() {
    // Fast rotations: up to π per unit time.
    let st = random_convex(40, 2, 1.0, std::f64::consts::PI, 60);
    assert!(st.contacts > 5);
    // Tiny and huge scales: same cases, threshold relative.
    for (seed, s) in [(3, 1e-6), (4, 1e6)] {
        let st = random_convex(30, seed, s, 2.0, 40);
        assert!(st.contacts > 5, "scale {s}: {} contacts", st.contacts);
    }
}

#[test]
fn grazing_and_near_parallel_faces() {
    let a = shapes::cuboid(1.0, 1.0, 1.0).unwrap();
    let b = shapes::cuboid(4.0, 4.0, 1.0).unwrap();
    let mb = stationary(Pose::IDENTITY);
    let mut st = Stats {
        contacts: 0,
        misses: 0,
        iterations: 0,
    };
    for k in 0..20 {
        // A descends onto B's top face (z = 0.5) while sliding, tilted by a tiny angle that
        // grows with k: near-parallel faces.
        let tilt = 1e-9 * 10f64.powi(k / 3);
        let start = Pose::new(
            DQuat::from_rotation_x(tilt),
            DVec3::new(-1.0, 0.0, 1.5 + 0.01 * k as f64),
        );
        let end = Pose::new(DQuat::from_rotation_x(-tilt), DVec3::new(1.0, 0.3, 0.9));
        let ma = RigidMotion::about_centroid(&a, start, end).unwrap();
        let t = check_convex(&a, &ma, &b, &mb, &opts(), 100, &mut st, &format!("parallel {k}"));
        assert!(t.is_some());
    }
    // Grazing: A's bottom passes B's top edge line at a gap far below, at and above the
    // threshold (rotating slightly so that the motion is not purely tangential).
    let thr = polycd::tolerance::CCD_DISTANCE_REL * (a.scale() + b.scale());
    for (k, gap) in [0.1 * thr, 0.9 * thr, 2.0 * thr, 100.0 * thr, 1e-2]
        .into_iter()
        .enumerate()
    {
        let z = 1.0 + gap;
        let ma = RigidMotion::about_centroid(
            &a,
            Pose::from_translation(DVec3::new(-3.0, 0.0, z)),
            Pose::new(DQuat::from_rotation_z(0.3), DVec3::new(3.0, 0.0, z)),
        )
        .unwrap();
        let r = check_convex(&a, &ma, &b, &mb, &opts(), 200, &mut st, &format!("graze {k}"));
        // The gap never changes (the rotation is about z): within the threshold, contact as
        // soon as A is above B (A's leading edge, x = −2.5 + 6t, reaches x = −2 at t = 1/12,
        // a little earlier for the turning corner); beyond it, never.
        if gap <= thr {
            assert!(matches!(r, Some(t) if t > 0.05 && t <= 1.0 / 12.0), "{r:?}");
        } else {
            assert_eq!(r, None);
        }
    }
}

// ---------------------------------------------------------------- meshes

fn box_mesh(h: DVec3, centre: DVec3) -> (Vec<DVec3>, Vec<Vec<u32>>) {
    let v: Vec<DVec3> = (0..8)
        .map(|i| {
            centre
                + DVec3::new(
                    if i & 1 == 0 { -h.x } else { h.x },
                    if i & 2 == 0 { -h.y } else { h.y },
                    if i & 4 == 0 { -h.z } else { h.z },
                )
        })
        .collect();
    let f = vec![
        vec![0, 2, 3, 1],
        vec![4, 5, 7, 6],
        vec![0, 1, 5, 4],
        vec![2, 6, 7, 3],
        vec![0, 4, 6, 2],
        vec![1, 3, 7, 5],
    ];
    (v, f)
}

fn knot(segments: u32, sides: u32) -> TriMesh {
    let (v, f) = shapes::torus_knot(2, 3, segments, sides, 0.45).unwrap();
    TriMesh::new(&v, &f).unwrap()
}

#[test]
fn mesh_validation_errors_are_typed() {
    let (v, mut f) = box_mesh(DVec3::ONE, DVec3::ZERO);
    assert!(TriMesh::new(&v, &f).is_ok());
    // Open: drop a face.
    let open = f[1..].to_vec();
    assert!(matches!(
        TriMesh::new(&v, &open),
        Err(PolycdError::InvalidMesh(d)) if matches!(*d, MeshDefect::OpenEdge { .. })
    ));
    // Inconsistent orientation: flip one face.
    let mut flipped = f.clone();
    flipped[0].reverse();
    assert!(matches!(
        TriMesh::new(&v, &flipped),
        Err(PolycdError::InvalidMesh(d)) if matches!(*d, MeshDefect::NonManifoldEdge { .. })
    ));
    // Degenerate triangle: a zero-area one (a corner repeated after welding) is dropped by
    // the repair (issue 23, item 6) and reported; unrepaired it is refused.
    let mut dv = v.clone();
    dv.push(v[0]);
    let mut deg = f.clone();
    deg.push(vec![0, 8, 1]);
    let repaired = TriMesh::new(&dv, &deg).unwrap();
    assert_eq!(repaired.repair().dropped_degenerate, vec![deg.len() as u32 - 1]);
    let raw = polycd::mesh::MeshOptions::default().with_repair(false);
    assert!(matches!(
        TriMesh::with_options(&dv, &deg, &raw),
        Err(PolycdError::InvalidMesh(d)) if matches!(*d, MeshDefect::DegenerateTriangle { .. })
    ));
    // Non-manifold vertex: two boxes sharing a corner vertex.
    let (v2, f2) = box_mesh(DVec3::ONE, DVec3::splat(2.0));
    let mut vv = v.clone();
    vv.extend_from_slice(&v2[1..]);
    let remap = |i: u32| if i == 0 { 7 } else { i + 7 };
    for face in &f2 {
        f.push(face.iter().map(|&i| remap(i)).collect());
    }
    assert!(matches!(
        TriMesh::new(&vv, &f),
        Err(PolycdError::InvalidMesh(d)) if matches!(*d, MeshDefect::NonManifoldVertex { .. })
    ));
    assert!(matches!(
        TriMesh::new(&v, &[vec![0, 1, 99]]),
        Err(PolycdError::InvalidMesh(d)) if matches!(*d, MeshDefect::BadFace { .. })
    ));
    let bad = vec![DVec3::new(f64::NAN, 0.0, 0.0); 8];
    assert!(TriMesh::new(&bad, &box_mesh(DVec3::ONE, DVec3::ZERO).1).is_err());
}

#[test]
fn decomposition_covers_the_surface_with_pieces_inside() {
    let m = knot(48, 8);
    let mut seen = vec![0u32; m.triangles().len()];
    for p in m.pieces() {
        for &t in p {
            seen[t as usize] += 1;
        }
    }
    assert!(seen.iter().all(|&c| c == 1), "every triangle in exactly one piece");
    assert!(m.pieces().len() < m.triangles().len(), "some patches grew");
    // Pieces lie inside the solid: sample points of each piece hull (vertex averages with
    // random weights) are inside by the oracle's winding number or within the margin.
    let solid = Solid::of_mesh(&m, &Pose::IDENTITY);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for (i, _) in m.pieces().iter().enumerate() {
        let h = m.piece_hull(i as u32).unwrap();
        for _ in 0..4 {
            let w: Vec<f64> = h.vertices().iter().map(|_| rng.random::<f64>()).collect();
            let s: f64 = w.iter().sum();
            let p = h.vertices().iter().zip(&w).map(|(v, w)| *v * *w).sum::<DVec3>() / s;
            assert!(solid.contains(p), "piece {i}: interior point {p} outside the mesh");
        }
    }
    // Each inner node contains its children's hulls' vertices.
    for n in m.nodes() {
        if let Some((l, r)) = n.children {
            for c in [l, r] {
                for &v in m.nodes()[c as usize].hull().unwrap().vertices() {
                    let inside = (0..n.hull().unwrap().faces().len() as u32)
                        .all(|f| n.hull().unwrap().face_plane(f).signed_distance(v) <= 1e-12);
                    assert!(inside);
                }
            }
        }
    }
}

#[test]
fn mesh_distance_matches_brute_force() {
    let a = knot(40, 6);
    let b = knot(32, 6);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut cache = MeshCache::default();
    let mut apart = 0;
    for k in 0..40 {
        let pa = random_pose(&mut rng, 1.0);
        let pb = Pose::new(
            shapes::random_rotation(&mut rng),
            pa.translation + shapes::unit_vector(&mut rng) * rng.random_range(2.0..8.0),
        );
        let d = polycd::mesh::bvtt_distance(&a, &pa, &b, &pb, 0.0, opts().discrete(), &mut cache).unwrap();
        let o = oracle_distance(&Solid::of_mesh(&a, &pa), &Solid::of_mesh(&b, &pb));
        let slack = 2.0 * polycd::tolerance::CCD_PIECE_REL * (a.scale() + b.scale()) + 1e-10;
        match d {
            MeshDistance::Separated { distance, .. } => {
                apart += 1;
                assert!((distance - o).abs() <= slack, "case {k}: bvtt {distance} oracle {o}");
            }
            MeshDistance::Overlapping { .. } => assert!(o <= slack, "case {k}: overlap, oracle {o}"),
            other => panic!("a variant this test does not know: {other:?}"),
        }
    }
    assert!(apart > 10);
}

#[test]
fn mesh_inside_mesh_is_overlap_at_start() {
    let (v, f) = box_mesh(DVec3::splat(5.0), DVec3::ZERO);
    let big = TriMesh::new(&v, &f).unwrap();
    let small = knot(24, 6);
    let m = RigidMotion::new(
        Pose::IDENTITY,
        Pose::from_translation(DVec3::new(1.0, 0.0, 0.0)),
        small.centroid(),
    )
    .unwrap();
    let fixed = stationary(Pose::IDENTITY);
    let r = mesh::time_of_contact(&small, &m, &big, &fixed, &opts(), &mut MeshToiCache::default())
        .unwrap()
        .unwrap();
    assert_eq!(r.t, 0.0);
    // A box is convex: its one piece is the whole solid, which the knot's pieces overlap.
    assert!(matches!(r.answer, MeshDistance::Overlapping { .. }));
    // And the other way round.
    let r = mesh::time_of_contact(&big, &fixed, &small, &m, &opts(), &mut MeshToiCache::default())
        .unwrap()
        .unwrap();
    assert_eq!(r.t, 0.0);
    // A box inside the tube of a large knot, whose pieces are slabs along its surface: the
    // surfaces are apart and the winding-number test finds the containment.
    let (v, f) = shapes::torus_knot(2, 3, 48, 8, 0.45).unwrap();
    let v: Vec<DVec3> = v.into_iter().map(|p| p * 10.0).collect();
    let big = TriMesh::new(&v, &f).unwrap();
    let (v, f) = box_mesh(DVec3::splat(0.1), DVec3::new(30.0, 0.0, 0.0));
    let cube = TriMesh::new(&v, &f).unwrap();
    let d = polycd::mesh::bvtt_distance(
        &cube,
        &Pose::IDENTITY,
        &big,
        &Pose::IDENTITY,
        0.0,
        opts().discrete(),
        &mut MeshCache::default(),
    )
    .unwrap();
    assert!(matches!(d, MeshDistance::Overlapping { .. }), "{d:?}");
    assert!(big.contains_point(DVec3::new(30.0, 0.0, 0.0)));
    assert!(!big.contains_point(DVec3::new(0.0, 0.0, 0.0)));
    let r = mesh::time_of_contact(&cube, &fixed, &big, &fixed, &opts(), &mut MeshToiCache::default())
        .unwrap()
        .unwrap();
    assert_eq!(r.t, 0.0);
    // Two shells: the first far outside, the second inside the tube. Every shell is tested.
    let (mut v, mut f) = box_mesh(DVec3::splat(0.1), DVec3::new(100.0, 0.0, 0.0));
    let (v2, f2) = box_mesh(DVec3::splat(0.1), DVec3::new(30.0, 0.0, 0.0));
    f.extend(
        f2.into_iter()
            .map(|face| face.into_iter().map(|i| i + 8).collect::<Vec<u32>>()),
    );
    v.extend(v2);
    let two = TriMesh::new(&v, &f).unwrap();
    let d = polycd::mesh::bvtt_distance(
        &two,
        &Pose::IDENTITY,
        &big,
        &Pose::IDENTITY,
        0.0,
        opts().discrete(),
        &mut MeshCache::default(),
    )
    .unwrap();
    assert_eq!(d, MeshDistance::Overlapping { pieces: None });
}

/// A motion of mesh `a` across the origin: from `−reach·d + off` to `+reach·d + off` (`d` a
/// random direction, `off` uniform in `[−spread, spread]³`), turning from a random rotation by
/// an angle uniform in `[0, max_angle)` about a random axis, or not at all for `None` (the
/// axis is drawn either way, so the random sequence does not depend on it).
fn crossing_motion(rng: &mut ChaCha8Rng, a: &TriMesh, reach: f64, spread: f64, max_angle: Option<f64>) -> RigidMotion {
    let dir = shapes::unit_vector(rng);
    let off = DVec3::new(
        rng.random_range(-spread..spread),
        rng.random_range(-spread..spread),
        rng.random_range(-spread..spread),
    );
    let r0 = shapes::random_rotation(rng);
    let angle = max_angle.map_or(0.0, |m| rng.random_range(0.0..m));
    let start = Pose::new(r0, dir * -reach + off);
    let end = Pose::new(
        DQuat::from_axis_angle(shapes::unit_vector(rng), angle) * r0,
        dir * reach + off,
    );
    RigidMotion::new(start, end, a.centroid()).unwrap()
}

fn random_meshes(cases: usize, seed: u64, samples: usize, a: &TriMesh, b: &TriMesh) -> Stats {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut st = Stats {
        contacts: 0,
        misses: 0,
        iterations: 0,
    };
    let mut cache = MeshToiCache::default();
    let thr = polycd::tolerance::CCD_DISTANCE_REL * (a.scale() + b.scale());
    let slack = 2.0 * polycd::tolerance::CCD_PIECE_REL * (a.scale() + b.scale()) + 1e-9;
    for case in 0..cases {
        cache.forget();
        let ma = crossing_motion(&mut rng, a, 9.0, 4.0, (case % 4 != 0).then_some(2.0));
        let mb = stationary(Pose::new(shapes::random_rotation(&mut rng), DVec3::ZERO));
        let r = mesh::time_of_contact(a, &ma, b, &mb, &opts(), &mut cache).unwrap();
        let at = |t: f64| oracle_distance(&Solid::of_mesh(a, &ma.pose_at(t)), &Solid::of_mesh(b, &mb.pose_at(t)));
        let end = match r {
            Some(toc) => {
                st.contacts += 1;
                st.iterations += toc.iterations as u64;
                let d = at(toc.t);
                assert!(
                    d <= thr + slack,
                    "case {case}: oracle {d:e} at toc {} > threshold {thr:e}",
                    toc.t
                );
                toc.t
            }
            None => {
                st.misses += 1;
                1.0
            }
        };
        let mut ts: Vec<f64> = (0..samples).map(|i| end * i as f64 / samples as f64).collect();
        ts.extend((1..20).map(|k| end * (1.0 - 0.5f64.powi(k))));
        for t in ts {
            if r.is_some() && t >= end {
                continue;
            }
            assert!(at(t) > 0.0, "case {case}: oracle contact at {t} before {end}");
        }
    }
    st
}

#[test]
fn mesh_ccd_against_oracle() {
    let a = knot(24, 6);
    let b = knot(30, 6);
    let st = random_meshes(16, 11, 40, &a, &b);
    eprintln!(
        "meshes ({} and {} pieces): {} contacts ({} steps in all), {} misses",
        a.pieces().len(),
        b.pieces().len(),
        st.contacts,
        st.iterations,
        st.misses
    );
    assert!(
        st.contacts >= 4 && st.misses >= 2,
        "{} contacts {} misses",
        st.contacts,
        st.misses
    );
}

/// Front tracking across the advancement steps (the default) against the traversal restarted
/// at the roots at every step, on the same random motions: both find a contact or both none;
/// each returned time has a leaf distance within the threshold there (by a fresh query from
/// the roots) and the oracle within the threshold plus the pieces' margin, and the oracle sees
/// no contact at dense times before the later of the two (so both are at or before the first
/// contact; over all of `[0, 1]` when both report none); the two times agree within 1e-3 (the
/// bench's agreement with parry3d).
#[test]
fn mesh_front_tracking_matches_restart() {
    let a = knot(24, 6);
    let b = knot(30, 6);
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let mut tracked = MeshToiCache::default();
    let mut restart = MeshToiCache::default();
    restart.set_front_tracking(false);
    let thr = polycd::tolerance::CCD_DISTANCE_REL * (a.scale() + b.scale());
    let slack = 2.0 * polycd::tolerance::CCD_PIECE_REL * (a.scale() + b.scale()) + 1e-9;
    let (mut contacts, mut misses, mut steps, mut steps_restart, mut worst) = (0, 0, 0u64, 0u64, 0.0f64);
    for case in 0..60 {
        let ma = crossing_motion(&mut rng, &a, 8.0, 7.0, (case % 3 != 0).then_some(2.5));
        // B turns too in every other case.
        let pb = Pose::new(shapes::random_rotation(&mut rng), DVec3::ZERO);
        let mb = if case % 2 == 0 {
            stationary(pb)
        } else {
            let turn = DQuat::from_axis_angle(shapes::unit_vector(&mut rng), 0.7);
            RigidMotion::new(pb, Pose::new(turn * pb.rotation, DVec3::ZERO), b.centroid()).unwrap()
        };
        let x = mesh::time_of_contact(&a, &ma, &b, &mb, &opts(), &mut tracked).unwrap();
        let y = mesh::time_of_contact(&a, &ma, &b, &mb, &opts(), &mut restart).unwrap();
        let at = |t: f64| oracle_distance(&Solid::of_mesh(&a, &ma.pose_at(t)), &Solid::of_mesh(&b, &mb.pose_at(t)));
        match (x, y) {
            (None, None) => {
                misses += 1;
                for i in 0..=30 {
                    let t = i as f64 / 30.0;
                    assert!(at(t) > 0.0, "case {case}: oracle contact at {t}, both report none");
                }
            }
            (Some(x), Some(y)) => {
                contacts += 1;
                steps += x.iterations as u64;
                steps_restart += y.iterations as u64;
                worst = worst.max((x.t - y.t).abs());
                assert!(
                    (x.t - y.t).abs() <= 1e-3,
                    "case {case}: tracked {} restart {}",
                    x.t,
                    y.t
                );
                for toc in [&x, &y] {
                    let fresh = polycd::mesh::bvtt_distance(
                        &a,
                        &toc.pose_a,
                        &b,
                        &toc.pose_b,
                        0.0,
                        opts().discrete(),
                        &mut MeshCache::default(),
                    )
                    .unwrap();
                    let d = match fresh {
                        MeshDistance::Separated { distance, .. } => distance,
                        MeshDistance::Overlapping { .. } => 0.0,
                        other => panic!("a variant this test does not know: {other:?}"),
                    };
                    assert!(d <= thr, "case {case}: distance {d:e} at {} > threshold", toc.t);
                    let o = at(toc.t);
                    assert!(o <= thr + slack, "case {case}: oracle {o:e} at {}", toc.t);
                }
                let end = x.t.max(y.t);
                let mut ts: Vec<f64> = (0..30).map(|i| end * i as f64 / 30.0).collect();
                ts.extend((1..16).map(|k| end * (1.0 - 0.5f64.powi(k))));
                for t in ts {
                    if t < end {
                        assert!(at(t) > 0.0, "case {case}: oracle contact at {t} before {end}");
                    }
                }
            }
            (x, y) => panic!("case {case}: tracked {x:?} restart {y:?}"),
        }
    }
    eprintln!(
        "front tracking: {contacts} contacts ({steps} steps tracked, {steps_restart} restarted), {misses} misses, largest time difference {worst:e}"
    );
    assert!(contacts >= 10 && misses >= 3, "{contacts} contacts {misses} misses");
}

/// The tracked front's size bound (the restart at the roots when it has grown): with no
/// slack the safeguard fires, and the answers stay those of restarting at every step, checked
/// against the brute-force oracle.
#[test]
fn mesh_front_restart_safeguard() {
    let a = knot(24, 6);
    let b = knot(30, 6);
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let mut tight = MeshToiCache::default();
    tight.set_front_slack(0);
    let mut restart = MeshToiCache::default();
    restart.set_front_tracking(false);
    let thr = polycd::tolerance::CCD_DISTANCE_REL * (a.scale() + b.scale());
    let slack = 2.0 * polycd::tolerance::CCD_PIECE_REL * (a.scale() + b.scale()) + 1e-9;
    let mut contacts = 0;
    for case in 0..30 {
        let ma = crossing_motion(&mut rng, &a, 8.0, 7.0, Some(2.5));
        let mb = stationary(Pose::new(shapes::random_rotation(&mut rng), DVec3::ZERO));
        let x = mesh::time_of_contact(&a, &ma, &b, &mb, &opts(), &mut tight).unwrap();
        let y = mesh::time_of_contact(&a, &ma, &b, &mb, &opts(), &mut restart).unwrap();
        let at = |t: f64| oracle_distance(&Solid::of_mesh(&a, &ma.pose_at(t)), &Solid::of_mesh(&b, &mb.pose_at(t)));
        match (x, y) {
            (None, None) => {}
            (Some(x), Some(y)) => {
                contacts += 1;
                assert!((x.t - y.t).abs() <= 1e-3, "case {case}: tight {} restart {}", x.t, y.t);
                assert!(at(x.t) <= thr + slack, "case {case}: oracle {:e} at {}", at(x.t), x.t);
                for i in 0..20 {
                    let t = x.t * i as f64 / 20.0;
                    if t < x.t {
                        assert!(at(t) > 0.0, "case {case}: oracle contact at {t} before {}", x.t);
                    }
                }
            }
            (x, y) => panic!("case {case}: tight {x:?} restart {y:?}"),
        }
    }
    eprintln!(
        "front safeguard: {} restarts, {contacts} contacts",
        tight.front_restarts()
    );
    assert!(tight.front_restarts() > 0, "the safeguard never fired");
    assert!(contacts >= 5, "{contacts} contacts");
    assert_eq!(restart.front_restarts(), 0);
}

/// A long-lived `MeshToiCache` holds only the node-pair caches of its last few queries: over
/// many unrelated motions its size stays within a small multiple of what one query visits
/// (it grew with every node pair ever visited before), and its answers are those of fresh
/// caches.
#[test]
fn mesh_cache_node_pairs_stay_bounded() {
    let a = knot(24, 6);
    let b = knot(30, 6);
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    let mut long_lived = MeshToiCache::default();
    let mut visited: Vec<usize> = Vec::new();
    let mut most = 0;
    let mut contacts = 0usize;
    let mb = stationary(Pose::IDENTITY);
    for case in 0..40 {
        let ma = crossing_motion(&mut rng, &a, 8.0, 5.0, Some(2.5));
        let mut fresh = MeshToiCache::default();
        let x = mesh::time_of_contact(&a, &ma, &b, &mb, &opts(), &mut fresh).unwrap();
        visited.push(fresh.node_pair_caches());
        let y = mesh::time_of_contact(&a, &ma, &b, &mb, &opts(), &mut long_lived).unwrap();
        match (&x, &y) {
            (None, None) => {}
            (Some(x), Some(y)) => {
                contacts += 1;
                assert!(
                    (x.t - y.t).abs() <= 1e-9 * (1.0 + x.t),
                    "case {case}: {} vs {}",
                    x.t,
                    y.t
                );
            }
            _ => panic!("case {case}: fresh {x:?}, long-lived {y:?}"),
        }
        let recent: usize = visited
            .iter()
            .rev()
            .take(1 + polycd::mesh::NODE_CACHE_QUERIES as usize)
            .sum();
        let held = long_lived.node_pair_caches();
        assert!(
            held <= 2 * recent,
            "case {case}: {held} node-pair caches held, the last queries visited {recent}"
        );
        most = most.max(held);
    }
    let total: usize = visited.iter().sum();
    eprintln!("node-pair caches: at most {most} held, {total} visited in all, {contacts} contacts");
    assert!(contacts >= 10, "{contacts} contacts");
    assert!(most * 4 < total, "held {most} of {total} visited in all");
    long_lived.forget();
    assert_eq!(long_lived.node_pair_caches(), 0);
}

#[test]
#[ignore]
fn large_random_suite() {
    let st = random_convex(5000, 101, 1.0, 3.0, 100);
    assert!(st.contacts > 500);
    eprintln!(
        "large convex: {} contacts ({} steps), {} misses",
        st.contacts, st.iterations, st.misses
    );
    let a = knot(48, 6);
    let b = knot(40, 6);
    let st = random_meshes(80, 102, 40, &a, &b);
    eprintln!(
        "large meshes: {} contacts ({} steps), {} misses",
        st.contacts, st.iterations, st.misses
    );
    assert!(st.contacts > 20);
}

/// `shapes::subdivide` (FAST's finer bunnies, `bench ccd-bunny`): each triangle split into n²
/// in its plane, the mesh still closed and consistently oriented (every edge used once each
/// way), its Euler characteristic and signed volume unchanged, bad input a typed error; and
/// `ccd::mesh::prepare` (every hull's V-Clip tables built with the mesh) changes no answer:
/// the same times and steps as with the tables built on first use, and the subdivided mesh's
/// contacts certified by the brute-force oracle.
#[test]
fn subdivided_meshes_and_prepared_tables() {
    let (v, f) = shapes::torus_knot(2, 3, 24, 6, 0.45).unwrap();
    let signed_volume = |v: &[DVec3], f: &[Vec<u32>]| {
        f.iter()
            .map(|t| v[t[0] as usize].dot(v[t[1] as usize].cross(v[t[2] as usize])) / 6.0)
            .sum::<f64>()
    };
    let euler = |v: &[DVec3], f: &[Vec<u32>]| {
        let mut edges = std::collections::HashMap::new();
        for t in f {
            for k in 0..3 {
                *edges.entry((t[k], t[(k + 1) % 3])).or_insert(0u32) += 1;
            }
        }
        // Closed and oriented: each directed edge once, its reverse once.
        assert!(edges
            .iter()
            .all(|(&(i, j), &c)| c == 1 && edges.get(&(j, i)) == Some(&1)));
        v.len() as i64 - (edges.len() / 2) as i64 + f.len() as i64
    };
    let (chi, vol) = (euler(&v, &f), signed_volume(&v, &f));
    for n in 1..=4u32 {
        let (sv, sf) = shapes::subdivide(&v, &f, n).unwrap();
        assert_eq!(sf.len(), f.len() * (n * n) as usize);
        assert_eq!(&sv[..v.len()], &v[..], "the input vertices come first, unchanged");
        assert_eq!(euler(&sv, &sf), chi);
        let sub_vol = signed_volume(&sv, &sf);
        assert!(
            (sub_vol - vol).abs() <= 1e-12 * vol.abs(),
            "n = {n}: volume {sub_vol} vs {vol}"
        );
    }
    let spec = |r: Result<(Vec<DVec3>, Vec<Vec<u32>>), PolycdError>| matches!(r, Err(PolycdError::ShapeSpec { .. }));
    assert!(spec(shapes::subdivide(&v, &f, 0)));
    assert!(spec(shapes::subdivide(&v, &f, 65)));
    let (bv, bf) = box_mesh(DVec3::ONE, DVec3::ZERO);
    assert!(spec(shapes::subdivide(&bv, &bf, 2)), "quads are not triangles");
    assert!(spec(shapes::subdivide(&v[..3], &f, 2)), "an index out of range");

    // The crossing motions: deterministic, the first ones translating only.
    let poses = shapes::crossing_poses(DVec3::new(0.1, 0.2, 0.3), 2.0, 6, 3, 7);
    assert_eq!(poses, shapes::crossing_poses(DVec3::new(0.1, 0.2, 0.3), 2.0, 6, 3, 7));
    for (k, (q0, q1)) in poses.iter().enumerate() {
        assert_eq!(k < 3, q0.rotation == q1.rotation);
    }

    let (sv, sf) = shapes::subdivide(&v, &f, 2).unwrap();
    let lazy = TriMesh::new(&sv, &sf).unwrap();
    let prepared = TriMesh::new(&sv, &sf).unwrap();
    mesh::prepare(&prepared).unwrap();
    mesh::prepare(&prepared).unwrap();
    let b = knot(30, 6);
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let (mut c1, mut c2) = (MeshToiCache::default(), MeshToiCache::default());
    let mut hits = 0;
    for case in 0..12 {
        let ma = crossing_motion(&mut rng, &lazy, 8.0, 3.0, (case % 2 == 1).then_some(2.0));
        let mb = stationary(Pose::new(shapes::random_rotation(&mut rng), DVec3::ZERO));
        let x = mesh::time_of_contact(&lazy, &ma, &b, &mb, &opts(), &mut c1).unwrap();
        let y = mesh::time_of_contact(&prepared, &ma, &b, &mb, &opts(), &mut c2).unwrap();
        assert_eq!(
            x.map(|r| (r.t.to_bits(), r.iterations)),
            y.map(|r| (r.t.to_bits(), r.iterations))
        );
        hits += usize::from(x.is_some());
    }
    assert!(hits >= 3, "{hits} contacts in 12 motions");
    let st = random_meshes(6, 43, 12, &prepared, &b);
    assert!(st.contacts >= 2, "{} contacts", st.contacts);
}
