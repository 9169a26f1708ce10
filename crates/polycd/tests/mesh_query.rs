//! Issue 23 items 1, 2 (contact set) and 4: discrete queries on closed non-convex solids
//! (`mesh::intersect`, `mesh::distance`, `mesh::contact_set`) against brute-force oracles.
//!
//! Oracles (written here, independent of the library's routines):
//! - distance: the minimum over **all** triangle pairs of the two meshes (world frame), each
//!   pair by its six vertex–triangle distances (`closest_on_triangle`), its nine
//!   segment–segment distances (end points onto the other segment, and the interior critical
//!   point when both parameters are inside) and an exact crossing test (`orient3d` signs);
//! - containment: exact point-in-solid by counting signed ray crossings with `orient3d`
//!   (retried along another direction when the ray grazes an edge or vertex).
//!
//! Families: torus knots, a U-shaped solid with a box in its notch (the U's hull holds the box,
//! the solids are apart), a box mesh inside a bigger box mesh (nested), meshes touching at a
//! face, far offsets and scales. A few hundred poses in the default run; `--ignored` runs
//! 10 000 per family.

use polycd::geometry::closest_on_triangle;
use polycd::mesh::{self, MeshAnswer, MeshOverlap, Side, Solid, SolidCache, SolidFeature, TriMesh};
use polycd::predicates::{orient3d, Orientation};
use polycd::query::Status;
use polycd::{ConvexPolyhedron, DQuat, DVec3, Feature, Pose};

mod common;
use common::tri::{box_mesh, tri_tri};

// ---------------------------------------------------------------- shapes

/// A U-shaped solid: the profile `(0,0) (3,0) (3,2) (2,2) (2,1) (1,1) (1,2) (0,2)` in the
/// x–z plane, extruded over `y ∈ [0, 1]`, times `s`. Its notch is `(1,2) × (0,1) × (1,2)`.
fn u_shape(s: f64) -> (Vec<DVec3>, Vec<Vec<u32>>) {
    let profile = [
        (0.0, 0.0),
        (3.0, 0.0),
        (3.0, 2.0),
        (2.0, 2.0),
        (2.0, 1.0),
        (1.0, 1.0),
        (1.0, 2.0),
        (0.0, 2.0),
    ];
    let n = profile.len() as u32;
    let mut v = Vec::new();
    for y in [0.0, 1.0] {
        for &(x, z) in &profile {
            v.push(DVec3::new(x, y, z) * s);
        }
    }
    let caps = [[0, 1, 4], [1, 2, 3], [1, 3, 4], [0, 4, 5], [0, 5, 6], [0, 6, 7]];
    let mut f: Vec<Vec<u32>> = Vec::new();
    for c in caps {
        f.push(vec![c[0], c[1], c[2]]);
        f.push(vec![c[0] + n, c[2] + n, c[1] + n]);
    }
    for i in 0..n {
        let j = (i + 1) % n;
        f.push(vec![j, i, i + n, j + n]);
    }
    (v, f)
}

fn knot(segments: u32, sides: u32) -> TriMesh {
    let (v, f) = polycd::shapes::torus_knot(2, 3, segments, sides, 0.4).unwrap();
    TriMesh::new(&v, &f).unwrap()
}

fn mesh(vf: (Vec<DVec3>, Vec<Vec<u32>>)) -> TriMesh {
    TriMesh::new(&vf.0, &vf.1).unwrap()
}

// ---------------------------------------------------------------- oracles

fn world_tris(m: &TriMesh, p: &Pose) -> Vec<[DVec3; 3]> {
    m.triangles()
        .iter()
        .map(|t| t.map(|v| p.transform_point(m.vertices()[v as usize])))
        .collect()
}

/// Exact point-in-solid: signed crossings of a ray with the triangles, by `orient3d`.
fn inside(x: DVec3, tris: &[[DVec3; 3]]) -> bool {
    let dirs = [
        DVec3::new(0.5377, 0.8339, 0.1245),
        DVec3::new(-0.3221, 0.4142, 0.8513),
        DVec3::new(0.7072, -0.5773, 0.4082),
        DVec3::new(-0.6123, -0.2346, -0.7551),
    ];
    let far = tris.iter().flatten().map(|p| (*p - x).length()).fold(0.0, f64::max) * 4.0 + 1.0;
    'dir: for d in dirs {
        let q = x + d * far;
        let mut w = 0i32;
        for t in tris {
            let (sp, sq) = (orient3d(t[0], t[1], t[2], x), orient3d(t[0], t[1], t[2], q));
            if sp == Orientation::On {
                continue 'dir;
            }
            if sp == sq {
                continue;
            }
            let s = [
                orient3d(x, q, t[0], t[1]),
                orient3d(x, q, t[1], t[2]),
                orient3d(x, q, t[2], t[0]),
            ];
            if s.contains(&Orientation::On) {
                if s.contains(&Orientation::Above) && s.contains(&Orientation::Below) {
                    continue;
                }
                continue 'dir;
            }
            if s.iter().all(|&o| o == s[0]) {
                w += if sp == Orientation::Below { 1 } else { -1 };
            }
        }
        return w != 0;
    }
    panic!("every ray grazes");
}

/// The oracle's answer: the surfaces' distance and whether one solid contains the other.
fn oracle(a: &TriMesh, pa: &Pose, b: &TriMesh, pb: &Pose) -> (f64, bool) {
    let (ta, tb) = (world_tris(a, pa), world_tris(b, pb));
    let mut d = f64::INFINITY;
    for x in &ta {
        for y in &tb {
            d = d.min(tri_tri(*x, *y));
            if d == 0.0 {
                return (0.0, false);
            }
        }
    }
    let contained = inside(ta[0][0], &tb) || inside(tb[0][0], &ta);
    (d, contained)
}

// ---------------------------------------------------------------- poses

struct Rng(u64);
impl Rng {
    fn f(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.f()
    }
    fn rotation(&mut self) -> DQuat {
        let q = DQuat::from_xyzw(
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
        );
        q.normalize()
    }
    fn pose(&mut self, centre: DVec3, spread: DVec3) -> Pose {
        let t = centre + DVec3::new(self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0)) * spread;
        Pose::new(self.rotation(), t)
    }
}

/// Asks the library and the oracle at one pose pair; panics on a disagreement. Returns the
/// status.
fn check(a: &TriMesh, pa: &Pose, b: &TriMesh, pb: &Pose, cache: &mut SolidCache, what: &str) -> Status {
    let (sa, sb) = (Solid::Mesh(a), Solid::Mesh(b));
    let ans = mesh::distance(sa, pa, sb, pb, cache).unwrap();
    let tol = mesh::solid_contact_tolerance(sa, pa, sb, pb, cache).unwrap();
    let inter = mesh::intersect(sa, pa, sb, pb, cache).unwrap();
    let scale = a.scale() + b.scale() + pa.translation.abs().max_element() + pb.translation.abs().max_element();
    let (d, contained) = oracle(a, pa, b, pb);
    let ctx = || format!("{what}: pa {pa:?} pb {pb:?} oracle d {d} contained {contained}: {ans:?}");
    let status = ans.status(tol);
    assert_eq!(
        inter.status(tol),
        status,
        "intersect disagrees with distance: {}",
        ctx()
    );
    if d > tol && !contained {
        match ans {
            MeshAnswer::Separated {
                distance,
                point_a,
                point_b,
                features: (SolidFeature::Triangle(fa), SolidFeature::Triangle(fb)),
                ..
            } => {
                assert!(
                    (distance - d).abs() <= 1e-12 * scale,
                    "distance off by {}: {}",
                    distance - d,
                    ctx()
                );
                assert!(
                    ((point_b - point_a).length() - distance).abs() <= 1e-12 * scale,
                    "{}",
                    ctx()
                );
                // The closest points lie on the named faces (their triangles, world frame).
                let on = |m: &TriMesh, p: &Pose, face: u32, x: DVec3| {
                    (0..m.triangles().len() as u32)
                        .filter(|&t| m.input_face(t) == face)
                        .map(|t| {
                            let tr = m.triangles()[t as usize].map(|v| p.transform_point(m.vertices()[v as usize]));
                            (closest_on_triangle(x, tr[0], tr[1], tr[2]) - x).length()
                        })
                        .fold(f64::INFINITY, f64::min)
                };
                assert!(
                    on(a, pa, fa, point_a) <= 1e-11 * scale,
                    "point_a off its face: {}",
                    ctx()
                );
                assert!(
                    on(b, pb, fb, point_b) <= 1e-11 * scale,
                    "point_b off its face: {}",
                    ctx()
                );
            }
            _ => panic!("expected separated: {}", ctx()),
        }
    } else if contained {
        match ans {
            MeshAnswer::Overlapping {
                witness: MeshOverlap::Contained { .. },
                depth_lower_bound,
                ..
            } => assert!(
                (depth_lower_bound - d).abs() <= 1e-12 * scale || depth_lower_bound > d,
                "{}",
                ctx()
            ),
            _ => panic!("expected containment: {}", ctx()),
        }
    } else {
        // The surfaces meet.
        assert_ne!(status, Status::Disjoint, "{}", ctx());
        if let MeshAnswer::Separated { distance, .. } = ans {
            assert!(distance <= tol, "{}", ctx());
        }
    }
    status
}

fn family(n: usize, seed: u64, a: &TriMesh, b: &TriMesh, centre: DVec3, spread: DVec3, what: &str) -> [usize; 3] {
    let mut rng = Rng(seed);
    let mut cache = SolidCache::default();
    let mut counts = [0usize; 3];
    for _ in 0..n {
        let pa = Pose::IDENTITY;
        let pb = rng.pose(centre, spread);
        match check(a, &pa, b, &pb, &mut cache, what) {
            Status::Disjoint => counts[0] += 1,
            Status::Touching => counts[1] += 1,
            _ => counts[2] += 1,
        }
    }
    counts
}

// ---------------------------------------------------------------- families

fn knots(n: usize) {
    let k = knot(30, 6);
    let c = family(
        n,
        0x9e37_79b9_7f4a_7c15,
        &k,
        &k,
        DVec3::ZERO,
        DVec3::splat(6.0),
        "knots",
    );
    assert!(
        c[0] > n / 10 && c[2] > n / 10,
        "poses do not cover both outcomes: {c:?}"
    );
}

fn u_with_box(n: usize, s: f64, offset: DVec3, seed: u64) {
    // The box rotates freely about a point of the notch: it sits inside the notch apart from
    // the U, or crosses its walls.
    let u = mesh(u_shape(s));
    let bx = mesh(box_mesh(DVec3::splat(-0.3 * s), DVec3::splat(0.6 * s)));
    let mut rng = Rng(seed);
    let mut cache = SolidCache::default();
    let mut counts = [0usize; 3];
    for _ in 0..n {
        let pa = Pose::from_translation(offset);
        let pb = rng.pose(offset + DVec3::new(1.5, 0.5, 1.5) * s, DVec3::new(0.3, 0.3, 0.5) * s);
        match check(&u, &pa, &bx, &pb, &mut cache, "u+box") {
            Status::Disjoint => counts[0] += 1,
            Status::Touching => counts[1] += 1,
            _ => counts[2] += 1,
        }
    }
    assert!(counts[0] > n / 20 && counts[2] > n / 20, "{counts:?}");
}

fn nested(n: usize) {
    let big = mesh(box_mesh(DVec3::splat(-2.0), DVec3::splat(4.0)));
    let small = mesh(box_mesh(DVec3::splat(-0.5), DVec3::splat(1.0)));
    let c = family(n, 77, &big, &small, DVec3::ZERO, DVec3::splat(2.8), "nested");
    assert!(c[0] > 0 && c[2] > n / 10, "{c:?}");
}

#[test]
fn knots_against_brute_force() {
    knots(60);
}

#[test]
fn u_shape_with_a_box_in_its_notch() {
    u_with_box(200, 1.0, DVec3::ZERO, 5);
}

#[test]
fn nested_boxes() {
    nested(200);
}

#[test]
fn far_offsets_and_scales() {
    u_with_box(60, 1e-3, DVec3::new(1e3, -2e3, 5e2), 11);
    u_with_box(60, 1e3, DVec3::new(-1e5, 3e5, 1e4), 12);
}

#[test]
#[ignore]
fn knots_10k() {
    knots(10_000);
}

#[test]
#[ignore]
fn u_shape_10k() {
    u_with_box(10_000, 1.0, DVec3::ZERO, 105);
}

#[test]
#[ignore]
fn nested_10k() {
    nested(10_000);
}

#[test]
#[ignore]
fn far_offsets_and_scales_10k() {
    u_with_box(10_000, 1e-3, DVec3::new(1e3, -2e3, 5e2), 111);
    u_with_box(10_000, 1e3, DVec3::new(-1e5, 3e5, 1e4), 112);
}

#[test]
#[ignore]
fn touching_at_a_face_10k() {
    touching(10_000);
}

fn touching(n: usize) {
    let a = mesh(box_mesh(DVec3::ZERO, DVec3::ONE));
    let mut rng = Rng(3);
    let mut cache = SolidCache::default();
    for _ in 0..n {
        let (y, z) = (rng.range(-0.9, 0.9), rng.range(-0.9, 0.9));
        let pb = Pose::from_translation(DVec3::new(1.0, y, z));
        let st = check(&a, &Pose::IDENTITY, &a, &pb, &mut cache, "touching");
        assert_eq!(st, Status::Touching);
    }
}

// ---------------------------------------------------------------- hand-checked answers

/// Meshes touching at a face: touching, distance 0.
#[test]
fn touching_at_a_face() {
    touching(200);
}

/// Two unit cubes one unit apart along x: distance 1, closest features the facing faces
/// (input face 5 of A, the +x quad; input face 4 of B, the −x quad).
#[test]
fn unit_cubes_at_distance_one() {
    let a = mesh(box_mesh(DVec3::ZERO, DVec3::ONE));
    let pb = Pose::from_translation(DVec3::new(2.0, 0.0, 0.0));
    let mut cache = SolidCache::default();
    match mesh::distance(Solid::Mesh(&a), &Pose::IDENTITY, Solid::Mesh(&a), &pb, &mut cache).unwrap() {
        MeshAnswer::Separated {
            distance,
            point_a,
            point_b,
            features: (SolidFeature::Triangle(fa), SolidFeature::Triangle(fb)),
            ..
        } => {
            assert_eq!(distance, 1.0);
            assert_eq!(point_a.x, 1.0);
            assert_eq!(point_b.x, 2.0);
            // Where the closest points are not unique the features are one of the closest
            // pairs: A's point lies on the +x face's plane, B's on the −x face's.
            assert!([5].contains(&fa) || point_a.x == 1.0, "{fa}");
            assert!([4].contains(&fb) || point_b.x == 2.0, "{fb}");
        }
        other => panic!("{other:?}"),
    }
}

/// Mesh–convex: a convex cube against the U's notch wall, features in the convex format.
#[test]
fn mesh_against_convex() {
    let u = mesh(u_shape(1.0));
    let cube = ConvexPolyhedron::from_points(&box_mesh(DVec3::splat(-0.25), DVec3::splat(0.5)).0).unwrap();
    let mut cache = SolidCache::default();
    // Centred in the notch (x ∈ (1, 2)), at 0.25 from both walls: distance 0.25.
    let pb = Pose::from_translation(DVec3::new(1.5, 0.5, 1.5));
    let ans = mesh::distance(Solid::Mesh(&u), &Pose::IDENTITY, Solid::Convex(&cube), &pb, &mut cache).unwrap();
    match ans {
        MeshAnswer::Separated {
            distance,
            features: (SolidFeature::Triangle(_), SolidFeature::Convex(f)),
            ..
        } => {
            assert!((distance - 0.25).abs() < 1e-15, "{distance}");
            assert!(matches!(f, Feature::Face(_) | Feature::Edge(_) | Feature::Vertex(_)));
        }
        other => panic!("{other:?}"),
    }
    // Rotated by 45° about y the cube's edge reaches the wall: vertex/edge feature, exact.
    let q = DQuat::from_rotation_y(std::f64::consts::FRAC_PI_4);
    let pb = Pose::new(q, DVec3::new(1.5, 0.5, 1.5));
    let ans = mesh::distance(Solid::Mesh(&u), &Pose::IDENTITY, Solid::Convex(&cube), &pb, &mut cache).unwrap();
    let half_diag = 0.25 * std::f64::consts::SQRT_2;
    match ans {
        MeshAnswer::Separated {
            distance,
            features: (_, SolidFeature::Convex(f)),
            ..
        } => {
            // The diamond's lower and side corners (cube edges along y) are 0.5 − 0.25·√2 from
            // the notch's floor and walls.
            assert!((distance - (0.5 - half_diag)).abs() < 1e-14, "{distance} {f:?}");
            assert!(matches!(f, Feature::Edge(_)), "{f:?}");
        }
        other => panic!("{other:?}"),
    }
    // Convex pushed into the wall: overlapping, the deepest piece pair's depth a lower bound.
    let pb = Pose::from_translation(DVec3::new(1.1, 0.5, 1.5));
    let (ans, set) =
        mesh::contact_set(Solid::Mesh(&u), &Pose::IDENTITY, Solid::Convex(&cube), &pb, &mut cache).unwrap();
    assert!(!set.is_empty());
    match ans {
        MeshAnswer::Overlapping {
            witness: MeshOverlap::Pieces(p),
            depth_lower_bound,
            ..
        } => {
            assert_eq!(p.penetration.depth, depth_lower_bound);
            // The true depth is 0.15 (back out along +x); every piece pair's is at most that.
            assert!(
                depth_lower_bound <= 0.15 + 1e-12 && depth_lower_bound > 0.0,
                "{depth_lower_bound}"
            );
            let max = set.iter().map(|c| c.penetration.depth).fold(0.0, f64::max);
            assert_eq!(max, depth_lower_bound);
        }
        other => panic!("{other:?}"),
    }
}

/// A box inside a bigger box: overlapping by containment, the inner side named.
#[test]
fn box_inside_a_box_is_contained() {
    let big = mesh(box_mesh(DVec3::splat(-2.0), DVec3::splat(4.0)));
    let small = mesh(box_mesh(DVec3::splat(-0.5), DVec3::splat(1.0)));
    let mut cache = SolidCache::default();
    let p = Pose::from_translation(DVec3::new(0.5, 0.0, 0.0));
    for (a, b, inner) in [(&big, &small, Side::B), (&small, &big, Side::A)] {
        let ans = mesh::distance(Solid::Mesh(a), &Pose::IDENTITY, Solid::Mesh(b), &p, &mut cache).unwrap();
        match ans {
            MeshAnswer::Overlapping {
                witness: MeshOverlap::Contained { inner: i },
                depth_lower_bound,
                ..
            } => {
                assert_eq!(i, inner);
                // The big box is convex: one piece, whose hull (the box) holds the small box;
                // their EPA depth, 2 (push the small box out along +x), is the true depth.
                assert!((depth_lower_bound - 2.0).abs() < 1e-14, "{depth_lower_bound}");
            }
            other => panic!("{other:?}"),
        }
        assert!((ans.signed_distance() + 2.0).abs() < 1e-14);
    }
}

/// Warm queries allocate nothing: the same pair asked again reuses the cache's buffers.
#[test]
fn warm_queries_keep_their_buffers() {
    let k = knot(30, 6);
    let mut cache = SolidCache::default();
    let pb = Pose::from_translation(DVec3::new(0.3, 0.2, 0.1));
    let first = mesh::distance(Solid::Mesh(&k), &Pose::IDENTITY, Solid::Mesh(&k), &pb, &mut cache).unwrap();
    assert!(!cache.contacts().is_empty());
    // The second query measures the last deepest pair first and so may skip more shallow
    // pairs than the first (`distance`'s contact set is not every pair); from then on the
    // same query meets the same pairs.
    let again = mesh::distance(Solid::Mesh(&k), &Pose::IDENTITY, Solid::Mesh(&k), &pb, &mut cache).unwrap();
    assert_eq!(first, again);
    let n = cache.contacts().len();
    assert!(n > 0);
    let third = mesh::distance(Solid::Mesh(&k), &Pose::IDENTITY, Solid::Mesh(&k), &pb, &mut cache).unwrap();
    assert_eq!(first, third);
    assert_eq!(cache.contacts().len(), n);
}

/// `distance` skips piece pairs that cannot be the deepest once the answer is an overlap of
/// pieces, and measures the last deepest pair first: its answer must be `contact_set`'s (which
/// measures every overlapping pair), cold (fresh caches: bit for bit) and warm along a path of
/// small motions (distances bit for bit, overlap depths within rounding of EPA's warm start);
/// its contact set holds the deepest pair and is a part of `contact_set`'s.
#[test]
fn distance_keeps_the_deepest_pair() {
    let k = knot(40, 6);
    let (a, pa) = (Solid::Mesh(&k), Pose::IDENTITY);
    let s = k.scale();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut overlapping, mut pruned) = (0, 0);
    for _ in 0..60 {
        let pb = rng.pose(DVec3::ZERO, DVec3::splat(0.6 * s));
        let mut fresh = SolidCache::default();
        let d = mesh::distance(a, &pa, a, &pb, &mut fresh).unwrap();
        let mine = fresh.contacts().to_vec();
        let mut all = SolidCache::default();
        let (c, set) = mesh::contact_set(a, &pa, a, &pb, &mut all).unwrap();
        assert_eq!(format!("{d:?}"), format!("{c:?}"), "at {pb:?}");
        assert!(mine.len() <= set.len());
        assert!(
            mine.iter().all(|p| set.contains(p)),
            "a pair not in the contact set at {pb:?}"
        );
        if let MeshAnswer::Overlapping {
            witness: MeshOverlap::Pieces(w),
            ..
        } = d
        {
            overlapping += 1;
            assert!(mine.contains(&w));
            pruned += usize::from(mine.len() < set.len());
        }
    }
    assert!(overlapping >= 20, "{overlapping} overlapping poses");
    assert!(pruned >= 10, "pruning met in {pruned} of {overlapping} overlaps");
    // Warm: a path of small turns and shifts through overlaps and out.
    for start in 0..4 {
        let mut warm = SolidCache::default();
        let base = rng.pose(DVec3::ZERO, DVec3::splat(0.5 * s));
        let axis = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 1.0).normalize();
        for i in 0..60 {
            let t = i as f64;
            let pb = Pose::new(
                DQuat::from_axis_angle(axis, (0.7 * t).to_radians()) * base.rotation,
                base.translation + DVec3::new(0.01 * t, -0.004 * t, 0.002 * t) * s,
            );
            let w = mesh::distance(a, &pa, a, &pb, &mut warm).unwrap();
            let (c, _) = mesh::contact_set(a, &pa, a, &pb, &mut SolidCache::default()).unwrap();
            match (&w, &c) {
                (MeshAnswer::Separated { .. }, MeshAnswer::Separated { .. }) => {
                    assert_eq!(w, c, "path {start}, step {i}")
                }
                (MeshAnswer::Overlapping { .. }, MeshAnswer::Overlapping { .. }) => assert!(
                    (w.signed_distance() - c.signed_distance()).abs() <= 1e-12 * s,
                    "path {start}, step {i}: {w:?} vs {c:?}"
                ),
                _ => panic!("path {start}, step {i}: {w:?} vs {c:?}"),
            }
        }
    }
}

/// `distance`'s best-first traversal near contact, where many node pairs' bounds are close to
/// the answer (the `bench mesh` poses: a random turn and direction, B advanced to first
/// contact, then small offsets): the brute-force oracle ([`check`]), and `contact_set`'s
/// depth-first search bit for bit (both cold), at separated, near, touching-close and
/// overlapping offsets, with one warm cache across all poses for `check`.
#[test]
fn best_first_distance_near_contact() {
    let k = knot(40, 6);
    let (a, pa) = (Solid::Mesh(&k), Pose::IDENTITY);
    let s = k.scale();
    let c = k.centroid();
    let mut rng = Rng(0x6a09_e667_f3bc_c908);
    let mut warm = SolidCache::default();
    let mut counts = [0usize; 3];
    for _ in 0..16 {
        let r = rng.rotation();
        let dir = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)).normalize();
        let at = |t: f64| Pose::new(r, c + dir * t - r * c);
        // March B towards A by its distance (at most 200 steps) to first contact.
        let mut t = 4.0 * s;
        let mut contact = None;
        for _ in 0..200 {
            match mesh::distance(a, &pa, a, &at(t), &mut SolidCache::default()).unwrap() {
                MeshAnswer::Separated { distance, .. } if distance >= 1e-7 * s => t -= distance,
                _ => {
                    contact = Some(t);
                    break;
                }
            }
        }
        let Some(t0) = contact else { continue };
        for off in [0.25, 0.02, 0.002, 1e-5, -0.01, -0.05] {
            let pb = at(t0 + off * s);
            let status = check(&k, &pa, &k, &pb, &mut warm, "knots near contact");
            counts[match status {
                Status::Disjoint => 0,
                Status::Touching => 1,
                _ => 2,
            }] += 1;
            let d = mesh::distance(a, &pa, a, &pb, &mut SolidCache::default()).unwrap();
            let (cs, _) = mesh::contact_set(a, &pa, a, &pb, &mut SolidCache::default()).unwrap();
            assert_eq!(format!("{d:?}"), format!("{cs:?}"), "offset {off} at {pb:?}");
        }
    }
    assert!(
        counts[0] >= 40 && counts[2] >= 16,
        "poses do not cover both outcomes: {counts:?}"
    );
}

/// Wall-clock figures (not a pass/fail target): cold and warm `mesh::distance` between two
/// 2 880-triangle knots at random poses near contact. `cargo test --test mesh_query -- --ignored
/// timing --nocapture`.
#[test]
#[ignore]
fn timing_knots_2880() {
    let k = knot(120, 12);
    let mut rng = Rng(42);
    let poses: Vec<Pose> = (0..200).map(|_| rng.pose(DVec3::ZERO, DVec3::splat(5.0))).collect();
    let t = std::time::Instant::now();
    let mut overlapping = 0;
    let (mut t_sep, mut t_over) = (0.0, 0.0);
    for p in &poses {
        let mut cache = SolidCache::default();
        let t1 = std::time::Instant::now();
        let a = mesh::distance(Solid::Mesh(&k), &Pose::IDENTITY, Solid::Mesh(&k), p, &mut cache).unwrap();
        let dt = t1.elapsed().as_secs_f64();
        if matches!(a, MeshAnswer::Overlapping { .. }) {
            overlapping += 1;
            t_over += dt;
        } else {
            t_sep += dt;
        }
    }
    let cold = t.elapsed().as_secs_f64() / poses.len() as f64;
    eprintln!(
        "separated {:.3} ms, overlapping {:.3} ms per query (cold caches)",
        t_sep * 1e3 / (200 - overlapping).max(1) as f64,
        t_over * 1e3 / overlapping.max(1) as f64
    );
    let mut cache = SolidCache::default();
    let t = std::time::Instant::now();
    for p in &poses {
        mesh::intersect(Solid::Mesh(&k), &Pose::IDENTITY, Solid::Mesh(&k), p, &mut cache).unwrap();
    }
    let inter = t.elapsed().as_secs_f64() / poses.len() as f64;
    // Coherent: small motions of one pose.
    let mut cache = SolidCache::default();
    let base = Pose::from_translation(DVec3::new(6.0, 0.3, 0.2));
    let t = std::time::Instant::now();
    for i in 0..200 {
        let p = Pose::from_translation(base.translation + DVec3::new(1e-3 * i as f64, 0.0, 0.0));
        mesh::distance(Solid::Mesh(&k), &Pose::IDENTITY, Solid::Mesh(&k), &p, &mut cache).unwrap();
    }
    let warm = t.elapsed().as_secs_f64() / 200.0;
    eprintln!(
        "2 880-triangle knots: distance {:.3} ms per random pose ({overlapping}/200 overlapping), intersect {:.3} ms, coherent distance {:.3} ms",
        cold * 1e3,
        inter * 1e3,
        warm * 1e3
    );
}

/// Bad poses are typed errors; a non-unit quaternion is normalised (the unit one's answer, up
/// to the rounding of the normalisation).
#[test]
fn poses_are_checked() {
    let cube = mesh(box_mesh(DVec3::ZERO, DVec3::ONE));
    let mut cache = SolidCache::default();
    let s = Solid::Mesh(&cube);
    let q = DQuat::from_rotation_z(0.3);
    let unit = Pose::new(q, DVec3::new(3.0, 0.0, 0.0));
    let long = Pose {
        rotation: q * 2.0,
        translation: DVec3::new(3.0, 0.0, 0.0),
    };
    let x = mesh::distance(s, &Pose::IDENTITY, s, &unit, &mut cache).unwrap();
    let y = mesh::distance(s, &Pose::IDENTITY, s, &long, &mut cache).unwrap();
    assert!((x.signed_distance() - y.signed_distance()).abs() < 1e-14, "{x:?} {y:?}");
    let nan = Pose::from_translation(DVec3::new(f64::NAN, 0.0, 0.0));
    assert!(mesh::distance(s, &Pose::IDENTITY, s, &nan, &mut cache).is_err());
    assert!(mesh::intersect(s, &nan, s, &Pose::IDENTITY, &mut cache).is_err());
}
