//! Exact directional penetration / first contact of two closed non-convex solids
//! (`polycd::mesh::directional`) against independent oracles:
//! - **piece oracle**: every pair of convex pieces (no hull tree), each chord's ends by
//!   CD-Dual's directional query (the library uses GJK's ray casts), its overlap by V-Clip's
//!   boolean test at the chord's middle, and the answer by enumerating candidate `t`s (0 and
//!   every chord end) in order of `|t|`, each decided free or not by the chords and a
//!   floating-point winding-number test of *every* vertex of each solid against the other
//!   (the library tests one vertex per shell with exact ray crossings, per gap);
//! - **triangle oracle**: dense sampling of `t` with an all-triangle-pairs crossing test plus
//!   the winding-number containment, and checks at the returned `t`: the surfaces are within
//!   `1e-12 × scale` there, and a step of `1e-7 × scale` to the free side crosses nothing;
//! - exact literals: a box through the notch of a U (free in the notch), a box inside a box
//!   and inside a cavity (containment in the gaps), boxes touching at a face;
//! - one-piece meshes from convex shapes give the convex `query::directional`'s `t` within
//!   `1e-12 × scale`.
//!
//! The large randomized runs (≥ 10⁴ poses per family) are ignored by default:
//! `cargo test -p polycd --release --test mesh_directional -- --ignored` (about 35 min on
//! the shared 2-core machine). Last run: convex agreement 10 000 poses (5 536 contacts, worst
//! 2.4e-15 × scale); knots, U and box, hollow box and box, U and knot: 10 000 poses each, 0
//! disagreements, worst 1.1e-14 × scale against the piece oracle, 200 per family also
//! against the triangle oracle.

mod common;

use common::random_pose;
use polycd::mesh::{self, MeshDirectional, MeshDirectionalCache, TriMesh};
use polycd::query::{self, pair_scale, Algorithm, Directional, Intersection, PairCache};
use polycd::{shapes, ConvexPolyhedron, DVec3, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

// ---------------------------------------------------------------- meshes

type Mesh = (Vec<DVec3>, Vec<Vec<u32>>);

fn box_mesh(h: DVec3, centre: DVec3) -> Mesh {
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

/// The U profile (0,0)-(3,0)-(3,3)-(2,3)-(2,1)-(1,1)-(1,3)-(0,3) extruded over z ∈ [0, 1]:
/// arms x ∈ [0, 1] and [2, 3] for y ∈ [1, 3], the notch x ∈ (1, 2), y > 1.
fn u_shape() -> TriMesh {
    let profile = [
        (0.0, 0.0),
        (3.0, 0.0),
        (3.0, 3.0),
        (2.0, 3.0),
        (2.0, 1.0),
        (1.0, 1.0),
        (1.0, 3.0),
        (0.0, 3.0),
    ];
    let mut v = Vec::new();
    for z in [0.0, 1.0] {
        for &(x, y) in &profile {
            v.push(DVec3::new(x, y, z));
        }
    }
    let cap = [[1, 2, 3], [1, 3, 4], [0, 1, 4], [0, 4, 5], [0, 5, 6], [0, 6, 7]];
    let mut f: Vec<Vec<u32>> = Vec::new();
    for t in cap {
        f.push(t.iter().map(|&i| i + 8).collect());
        f.push(vec![t[0], t[2], t[1]]);
    }
    for i in 0..8u32 {
        let j = (i + 1) % 8;
        f.push(vec![i, j, j + 8, i + 8]);
    }
    TriMesh::new(&v, &f).unwrap()
}

/// A box of half-extent `outer` with a box cavity of half-extent `inner` (two shells).
fn hollow_box(outer: f64, inner: f64) -> TriMesh {
    let (mut v, mut f) = box_mesh(DVec3::splat(outer), DVec3::ZERO);
    let (v2, f2) = box_mesh(DVec3::splat(inner), DVec3::ZERO);
    let n = v.len() as u32;
    v.extend(v2);
    // The cavity faces inward (TriMesh::new would re-orient it anyway).
    f.extend(
        f2.into_iter()
            .map(|face| face.into_iter().rev().map(|i| i + n).collect::<Vec<u32>>()),
    );
    TriMesh::new(&v, &f).unwrap()
}

fn boxm(h: f64) -> TriMesh {
    let (v, f) = box_mesh(DVec3::splat(h), DVec3::ZERO);
    TriMesh::new(&v, &f).unwrap()
}

fn knot(segments: u32, sides: u32, scale: f64) -> TriMesh {
    let (v, f) = shapes::torus_knot(2, 3, segments, sides, 0.45).unwrap();
    let v: Vec<DVec3> = v.into_iter().map(|p| p * scale).collect();
    TriMesh::new(&v, &f).unwrap()
}

// ---------------------------------------------------------------- triangle oracle

type Tri = [DVec3; 3];

fn closest_on_segment(p: DVec3, a: DVec3, b: DVec3) -> DVec3 {
    let ab = b - a;
    let l2 = ab.length_squared();
    if l2 == 0.0 {
        return a;
    }
    a + ab * ((p - a).dot(ab) / l2).clamp(0.0, 1.0)
}

fn closest_on_tri(p: DVec3, t: &Tri) -> DVec3 {
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let q = p - n * ((p - t[0]).dot(n) / n.length_squared());
    if (0..3).all(|k| (t[(k + 1) % 3] - t[k]).cross(q - t[k]).dot(n) >= 0.0) {
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

fn seg_seg(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> f64 {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f, c, b) = (d1.dot(d1), d2.dot(d2), d2.dot(r), d1.dot(r), d1.dot(d2));
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

/// The segment crosses the triangle's plane strictly inside the triangle.
fn seg_crosses_tri(p: DVec3, q: DVec3, t: &Tri) -> bool {
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let dp = (p - t[0]).dot(n);
    let dq = (q - t[0]).dot(n);
    if !((dp > 0.0 && dq < 0.0) || (dp < 0.0 && dq > 0.0)) {
        return false;
    }
    let x = p + (q - p) * (dp / (dp - dq));
    (0..3).all(|k| (t[(k + 1) % 3] - t[k]).cross(x - t[k]).dot(n) > 0.0)
}

fn tri_cross(a: &Tri, b: &Tri) -> bool {
    (0..3).any(|k| seg_crosses_tri(a[k], a[(k + 1) % 3], b) || seg_crosses_tri(b[k], b[(k + 1) % 3], a))
}

fn tri_dist(a: &Tri, b: &Tri) -> f64 {
    if tri_cross(a, b) {
        return 0.0;
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

/// A solid as world triangles.
struct Solid {
    tris: Vec<Tri>,
    boxes: Vec<(DVec3, DVec3)>,
    points: Vec<DVec3>,
}

impl Solid {
    fn of_mesh(m: &TriMesh, pose: &Pose) -> Solid {
        let tris: Vec<Tri> = m
            .triangles()
            .iter()
            .map(|t| t.map(|i| pose.transform_point(m.vertices()[i as usize])))
            .collect();
        let boxes = tris
            .iter()
            .map(|t| (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2])))
            .collect();
        let points = m.vertices().iter().map(|&v| pose.transform_point(v)).collect();
        Solid { tris, boxes, points }
    }
    /// Winding number of a point (floating point, Van Oosterom–Strackee).
    fn winding(&self, p: DVec3) -> f64 {
        let mut w = 0.0;
        for t in &self.tris {
            let [a, b, c] = t.map(|v| v - p);
            let (la, lb, lc) = (a.length(), b.length(), c.length());
            w += 2.0
                * a.dot(b.cross(c))
                    .atan2(la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la);
        }
        w / (4.0 * std::f64::consts::PI)
    }
    /// Distance of a point to the surface.
    fn surface_distance(&self, p: DVec3) -> f64 {
        self.tris
            .iter()
            .map(|t| (closest_on_tri(p, t) - p).length())
            .fold(f64::INFINITY, f64::min)
    }
    /// Some vertex of `other` is inside `self` (winding number above one half) and more than
    /// `margin` from its surface (the winding number jumps from 0 to 1 across the surface,
    /// so a vertex touching it within rounding says nothing).
    fn holds_any(&self, other: &Solid, margin: f64) -> bool {
        other
            .points
            .iter()
            .any(|&p| self.winding(p) > 0.5 && self.surface_distance(p) > margin)
    }
    /// Least triangle distance and whether any pair crosses.
    fn surface(&self, b: &Solid, reach: f64) -> (f64, bool) {
        let mut best = f64::INFINITY;
        let mut cross = false;
        for (ta, (alo, ahi)) in self.tris.iter().zip(&self.boxes) {
            for (tb, (blo, bhi)) in b.tris.iter().zip(&b.boxes) {
                let gap = (*blo - *ahi).max(*alo - *bhi).max(DVec3::ZERO).length();
                if gap > best.min(reach) {
                    continue;
                }
                if tri_cross(ta, tb) {
                    cross = true;
                    best = 0.0;
                } else {
                    best = best.min(tri_dist(ta, tb));
                }
            }
        }
        (best, cross)
    }
}

fn moved(p: &Pose, s: DVec3, t: f64) -> Pose {
    Pose::new(p.rotation, p.translation + s * t)
}

// ---------------------------------------------------------------- piece oracle

#[derive(Clone, Copy, Debug)]
struct OChord {
    lo: f64,
    hi: f64,
    overlap: bool,
}

fn cd_t(r: Directional) -> Option<f64> {
    match r {
        Directional::Contact { t, .. } => Some(t),
        Directional::Never { .. } => None,
        Directional::NotConverged { .. } => panic!("CD-Dual did not converge"),
        other => panic!("a variant this test does not know: {other:?}"),
    }
}

fn hull_of_all(m: &TriMesh) -> ConvexPolyhedron {
    ConvexPolyhedron::from_points(m.vertices()).unwrap()
}

/// Every piece pair's chord (CD-Dual ends, V-Clip overlap at the middle).
fn piece_chords(a: &TriMesh, pa: &Pose, b: &TriMesh, pb: &Pose, s: DVec3, tol: f64) -> Vec<OChord> {
    let mut out = Vec::new();
    let mut c = PairCache::default();
    for i in 0..a.pieces().len() as u32 {
        let p = a.piece_hull(i).unwrap();
        for j in 0..b.pieces().len() as u32 {
            let q = b.piece_hull(j).unwrap();
            let Some(t0) = cd_t(query::directional(p, pa, q, pb, s, Algorithm::CdDual, &mut c).unwrap()) else {
                continue;
            };
            let (cp, rp) = p.bounding_sphere();
            let (cq, rq) = q.bounding_sphere();
            let k = 4.0 * ((pa.transform_point(cp) - pb.transform_point(cq)).length() + rp + rq);
            let lo = cd_t(query::directional(p, pa, q, &moved(pb, s, -k), s, Algorithm::CdDual, &mut c).unwrap());
            let hi = cd_t(query::directional(p, pa, q, &moved(pb, s, k), s, Algorithm::CdDual, &mut c).unwrap());
            match (lo, hi) {
                (Some(lo), Some(hi)) => {
                    let (lo, hi) = ((lo - k).min(t0), (hi + k).max(t0));
                    let mid = moved(pb, s, 0.5 * (lo + hi));
                    let overlap = hi - lo > 2.0 * tol
                        && matches!(
                            query::intersect(p, pa, q, &mid, Algorithm::VClip, &mut c).unwrap(),
                            Intersection::Overlapping { .. }
                        );
                    out.push(OChord { lo, hi, overlap });
                }
                _ => out.push(OChord {
                    lo: t0,
                    hi: t0,
                    overlap: false,
                }),
            }
        }
    }
    out
}

/// The oracle's (forward, backward, overlapping at 0) from the chords, by candidates.
fn piece_oracle(a: &TriMesh, pa: &Pose, b: &TriMesh, pb: &Pose, s: DVec3) -> (Option<f64>, Option<f64>, bool) {
    let tol = query::contact_tolerance(&hull_of_all(a), pa, &hull_of_all(b), pb);
    let chords = piece_chords(a, pa, b, pb, s, tol);
    let sa = Solid::of_mesh(a, pa);
    let margin = 1e-9 * pair_scale(&hull_of_all(a), pa, &hull_of_all(b), pb);
    let overlapped = |t: f64| {
        if chords.iter().any(|c| c.overlap && c.lo + tol < t && t < c.hi - tol) {
            return true;
        }
        let sb = Solid::of_mesh(b, &moved(pb, s, t));
        sa.holds_any(&sb, margin) || sb.holds_any(&sa, margin)
    };
    let at0 = overlapped(0.0);
    if !at0 && chords.iter().any(|c| c.lo - tol <= 0.0 && 0.0 <= c.hi + tol) {
        return (Some(0.0), Some(0.0), false);
    }
    let mut ends: Vec<f64> = chords.iter().flat_map(|c| [c.lo, c.hi]).collect();
    ends.sort_by(f64::total_cmp);
    let fwd = ends.iter().copied().filter(|&t| t > 0.0).find(|&t| !overlapped(t));
    let bwd = ends
        .iter()
        .rev()
        .copied()
        .filter(|&t| t < 0.0)
        .find(|&t| !overlapped(t));
    (fwd, bwd, at0)
}

// ---------------------------------------------------------------- checks

struct Tally {
    cases: usize,
    overlapping: usize,
    never: usize,
    max_err: f64,
}

impl Tally {
    fn new() -> Tally {
        Tally {
            cases: 0,
            overlapping: 0,
            never: 0,
            max_err: 0.0,
        }
    }
}

/// The library's answer against the piece oracle (within `rel × scale`).
fn check_pieces(a: &TriMesh, pa: &Pose, b: &TriMesh, pb: &Pose, s: DVec3, r: &MeshDirectional, rel: f64) -> Checked {
    let mut out = Checked {
        max_err: 0.0,
        never: 0,
        at0: false,
    };
    let scale = pair_scale(&hull_of_all(a), pa, &hull_of_all(b), pb);
    let (fwd, bwd, at0) = piece_oracle(a, pa, b, pb, s);
    let ctx = format!("pa {pa:?} pb {pb:?} s {s:?}: library {r:?}, oracle {fwd:?} {bwd:?} {at0}");
    assert_eq!(r.overlapping, at0, "overlap at 0: {ctx}");
    for (got, want) in [(r.forward.map(|x| x.t), fwd), (r.backward.map(|x| x.t), bwd)] {
        match (got, want) {
            (Some(g), Some(w)) => {
                let e = (g - w).abs() / scale;
                assert!(e <= rel, "t differs by {e:e} × scale: {ctx}");
                out.max_err = out.max_err.max(e);
            }
            (None, None) => out.never += 1,
            _ => panic!("existence differs: {ctx}"),
        }
    }
    out.at0 = at0;
    out
}

/// One case's figures.
struct Checked {
    max_err: f64,
    never: usize,
    at0: bool,
}

impl Tally {
    fn add(&mut self, c: Checked) {
        self.cases += 1;
        self.overlapping += usize::from(c.at0);
        self.never += c.never;
        self.max_err = self.max_err.max(c.max_err);
    }
}

/// The returned `t`s against the triangle oracle: surfaces within `1e-12 × scale` at `t`, a
/// step to the free side crosses nothing and contains nothing, and dense samples between 0
/// and `t` have the state at 0.
fn check_triangles(a: &TriMesh, pa: &Pose, b: &TriMesh, pb: &Pose, s: DVec3, r: &MeshDirectional, samples: usize) {
    let scale = pair_scale(&hull_of_all(a), pa, &hull_of_all(b), pb);
    let sa = Solid::of_mesh(a, pa);
    let state = |t: f64| {
        let sb = Solid::of_mesh(b, &moved(pb, s, t));
        let (d, cross) = sa.surface(&sb, 1e-3 * scale);
        let contained = !cross && (sa.holds_any(&sb, 1e-9 * scale) || sb.holds_any(&sa, 1e-9 * scale));
        (d, cross || contained)
    };
    let step = 1e-7 * scale;
    for (touch, sense) in [(r.forward, 1.0), (r.backward, -1.0)] {
        let ctx = format!("pa {pa:?} pb {pb:?} s {s:?} sense {sense}: {r:?}");
        let Some(touch) = touch else {
            // Never: free along the whole sense (up to far beyond both solids).
            let reach = 4.0 * (scale + (pa.translation - pb.translation).length());
            for k in 0..=samples {
                let t = sense * reach * k as f64 / samples as f64;
                assert!(!state(t).1, "overlap at t = {t} but no contact claimed: {ctx}");
            }
            continue;
        };
        let t = touch.t;
        let (d, _) = state(t);
        assert!(d <= 1e-12 * scale, "surfaces {d:e} apart at the returned t: {ctx}");
        // The free side: after t when escaping, before t when arriving (0: either).
        let free_after = r.overlapping || t == 0.0;
        let free_before = !r.overlapping;
        let after = !state(t + sense * step).1;
        let before = t == 0.0 || !state(t - sense * step).1;
        assert!(
            (free_after && after) || (free_before && before),
            "neither side of the returned t is free (after {after}, before {before}): {ctx}"
        );
        // Dense samples strictly between 0 and t have the state at 0.
        for k in 1..samples {
            let u = t * k as f64 / samples as f64;
            if (u - t).abs() < 1e3 * step || u.abs() < 1e3 * step {
                continue;
            }
            assert_eq!(
                state(u).1,
                r.overlapping,
                "state at {u} differs from the state at 0: {ctx}"
            );
        }
    }
}

fn random_direction(rng: &mut ChaCha8Rng) -> DVec3 {
    match rng.random_range(0..4) {
        0 => DVec3::X,
        1 => -DVec3::Y,
        2 => DVec3::Z,
        _ => shapes::unit_vector(rng),
    }
}

/// Random poses of B about A (both posed), scaled by `k` and offset by `far`.
fn family(a: &TriMesh, b: &TriMesh, cases: usize, seed: u64, spread: f64, far: f64, tri_samples: usize) -> Tally {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut tally = Tally::new();
    let mut cache = MeshDirectionalCache::default();
    let offset = DVec3::new(far, -0.5 * far, 0.25 * far);
    for case in 0..cases {
        let pa = Pose::new(shapes::random_rotation(&mut rng), offset);
        let mut pb = random_pose(&mut rng, spread);
        pb.translation += offset;
        let s = random_direction(&mut rng);
        let r = mesh::directional_with_cache(a, &pa, b, &pb, s, &mut cache).unwrap();
        tally.add(check_pieces(a, &pa, b, &pb, s, &r, 1e-10));
        if case < tri_samples {
            check_triangles(a, &pa, b, &pb, s, &r, 24);
        }
    }
    tally
}

// ---------------------------------------------------------------- literals

fn t_of(r: &MeshDirectional) -> (Option<f64>, Option<f64>) {
    (r.forward.map(|x| x.t), r.backward.map(|x| x.t))
}

fn close(x: Option<f64>, want: f64) -> bool {
    x.is_some_and(|x| (x - want).abs() <= 1e-12 * 10.0)
}

#[test]
fn box_through_the_notch_of_a_u() {
    let u = u_shape();
    assert!(u.pieces().len() > 1, "the U is decomposed");
    let b = boxm(0.25);
    let at = |x: f64| Pose::from_translation(DVec3::new(x, 2.0, 0.5));
    let id = Pose::IDENTITY;
    // Apart, left of the U: first contact with the left arm.
    let r = mesh::directional(&u, &id, &b, &at(-1.0), DVec3::X).unwrap();
    assert!(
        !r.overlapping && close(r.forward.map(|x| x.t), 0.75) && r.backward.is_none(),
        "{r:?}"
    );
    assert!(close(r.nearest().map(|x| x.t), 0.75));
    // Inside the left arm (contained, no surface crossing): escapes into the notch, or out.
    let r = mesh::directional(&u, &id, &b, &at(0.6), DVec3::X).unwrap();
    let (f, bw) = t_of(&r);
    assert!(r.overlapping && close(f, 0.65) && close(bw, -0.85), "{r:?}");
    // Crossing the arm's outer face: through the contained part and the inner face into the
    // notch, which is free although every hull of the U's tree covers it.
    let r = mesh::directional(&u, &id, &b, &at(0.1), DVec3::X).unwrap();
    let (f, bw) = t_of(&r);
    assert!(r.overlapping && close(f, 1.15) && close(bw, -0.35), "{r:?}");
    // In the notch: free, first contacts with either arm.
    let r = mesh::directional(&u, &id, &b, &at(1.4), DVec3::X).unwrap();
    let (f, bw) = t_of(&r);
    assert!(!r.overlapping && close(f, 0.35) && close(bw, -0.15), "{r:?}");
    assert!(close(r.nearest().map(|x| x.t), -0.15));
    // The convex hull of the U says otherwise (the box is inside it).
    let hull = ConvexPolyhedron::from_points(u.vertices()).unwrap();
    let bh = ConvexPolyhedron::from_points(b.vertices()).unwrap();
    let c = query::directional(
        &hull,
        &id,
        &bh,
        &at(1.4),
        DVec3::X,
        Algorithm::Auto,
        &mut PairCache::default(),
    )
    .unwrap();
    assert!(matches!(c, Directional::Contact { t, .. } if t.abs() > 1.0), "{c:?}");
    for x in [-1.0, 0.6, 0.1, 1.4] {
        let r = mesh::directional(&u, &id, &b, &at(x), DVec3::X).unwrap();
        check_triangles(&u, &id, &b, &at(x), DVec3::X, &r, 60);
        check_pieces(&u, &id, &b, &at(x), DVec3::X, &r, 1e-12);
    }
}

#[test]
fn box_inside_a_box_and_inside_a_cavity() {
    let big = boxm(5.0);
    let small = boxm(0.5);
    let id = Pose::IDENTITY;
    let at = |x: f64| Pose::from_translation(DVec3::new(x, 0.0, 0.0));
    // Contained: escape through either wall.
    let r = mesh::directional(&big, &id, &small, &id, DVec3::X).unwrap();
    let (f, bw) = t_of(&r);
    assert!(r.overlapping && close(f, 5.5) && close(bw, -5.5), "{r:?}");
    // Crossing the +x wall: out forward; backward through the contained gap and the −x wall.
    let r = mesh::directional(&big, &id, &small, &at(4.8), DVec3::X).unwrap();
    let (f, bw) = t_of(&r);
    assert!(r.overlapping && close(f, 0.7) && close(bw, -10.3), "{r:?}");
    assert!(close(r.nearest().map(|x| x.t), 0.7));
    // The big box inside the small one's sense: A small, B big (A inside B).
    let r = mesh::directional(&small, &id, &big, &id, -DVec3::X).unwrap();
    let (f, bw) = t_of(&r);
    assert!(r.overlapping && close(f, 5.5) && close(bw, -5.5), "{r:?}");
    // In a cavity: free; first contacts with the cavity's walls.
    let hollow = hollow_box(5.0, 3.0);
    let r = mesh::directional(&hollow, &id, &small, &at(1.0), DVec3::X).unwrap();
    let (f, bw) = t_of(&r);
    assert!(!r.overlapping && close(f, 1.5) && close(bw, -3.5), "{r:?}");
    // In the hollow box's wall (contained in its material): out, or into the cavity.
    let r = mesh::directional(&hollow, &id, &small, &at(4.2), DVec3::X).unwrap();
    let (f, bw) = t_of(&r);
    assert!(r.overlapping && close(f, 1.3) && close(bw, -1.7), "{r:?}");
    for (a, x) in [(&big, 0.0), (&big, 4.8), (&hollow, 1.0), (&hollow, 4.2)] {
        let r = mesh::directional(a, &id, &small, &at(x), DVec3::X).unwrap();
        check_triangles(a, &id, &small, &at(x), DVec3::X, &r, 60);
        check_pieces(a, &id, &small, &at(x), DVec3::X, &r, 1e-12);
    }
}

#[test]
fn meshes_touching_at_a_face() {
    let a = boxm(1.0);
    let id = Pose::IDENTITY;
    let pb = Pose::from_translation(DVec3::new(2.0, 0.0, 0.0));
    let hull = ConvexPolyhedron::from_points(a.vertices()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut dirs = vec![
        DVec3::X,
        -DVec3::X,
        DVec3::Y,
        DVec3::new(1.0, 1.0, 0.0),
        DVec3::new(-1.0, 0.3, 0.2),
    ];
    dirs.extend((0..8).map(|_| shapes::unit_vector(&mut rng)));
    for s in dirs {
        let r = mesh::directional(&a, &id, &a, &pb, s).unwrap();
        assert!(!r.overlapping, "{r:?}");
        assert_eq!(t_of(&r), (Some(0.0), Some(0.0)), "touching now: {s:?} {r:?}");
        let c = query::directional(&hull, &id, &hull, &pb, s, Algorithm::Auto, &mut PairCache::default()).unwrap();
        assert!(matches!(c, Directional::Contact { t, .. } if t.abs() <= 1e-12), "{c:?}");
    }
    // The U touching a box at its outer face, and a box resting in the notch's floor.
    let u = u_shape();
    let b = boxm(0.25);
    for (x, y) in [(-0.25, 2.0), (1.5, 1.25)] {
        let pb = Pose::from_translation(DVec3::new(x, y, 0.5));
        for s in [DVec3::X, DVec3::Y, DVec3::Z, DVec3::new(0.3, -1.0, 0.2)] {
            let r = mesh::directional(&u, &id, &b, &pb, s).unwrap();
            assert_eq!(t_of(&r), (Some(0.0), Some(0.0)), "touching now: {x} {y} {s:?} {r:?}");
        }
    }
}

/// One-piece meshes from convex shapes: the convex query's `t` within 1e-12 × scale.
fn convex_agreement(cases: usize, seed: u64) -> (usize, f64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let shapes_: Vec<ConvexPolyhedron> = vec![
        shapes::cuboid(1.0, 0.6, 0.3).unwrap(),
        shapes::icosphere(1, 0.8).unwrap(),
        shapes::prism(7, 0.5, 1.2).unwrap(),
        shapes::cone(9, 0.7, 1.0).unwrap(),
        shapes::ellipsoid(40, 1.0, 0.5, 0.3, 3).unwrap(),
        shapes::octahedron(0.9).unwrap(),
    ];
    let meshes: Vec<TriMesh> = shapes_.iter().map(|p| TriMesh::from_convex(p).unwrap()).collect();
    for m in &meshes {
        assert_eq!(m.pieces().len(), 1, "a convex mesh is one piece");
    }
    let mut worst = 0.0f64;
    let mut contacts = 0;
    let mut cache = MeshDirectionalCache::default();
    for _ in 0..cases {
        let (i, j) = (rng.random_range(0..shapes_.len()), rng.random_range(0..shapes_.len()));
        let k = [1e-3, 1.0, 1e3][rng.random_range(0..3)];
        let far = [0.0, 1e3][rng.random_range(0..2)] * k;
        let scaled = |p: &ConvexPolyhedron| {
            ConvexPolyhedron::from_points(&p.vertices().iter().map(|&v| v * k).collect::<Vec<_>>()).unwrap()
        };
        let (a, b) = (scaled(&shapes_[i]), scaled(&shapes_[j]));
        let (ma, mb) = (TriMesh::from_convex(&a).unwrap(), TriMesh::from_convex(&b).unwrap());
        let pa = Pose::new(shapes::random_rotation(&mut rng), DVec3::splat(far));
        let mut pb = random_pose(&mut rng, 1.5 * k);
        pb.translation += DVec3::splat(far);
        let s = random_direction(&mut rng) * [1.0, 1e-5, 3e4][rng.random_range(0..3)];
        let c = query::directional(&a, &pa, &b, &pb, s, Algorithm::Auto, &mut PairCache::default()).unwrap();
        let r = mesh::directional_with_cache(&ma, &pa, &mb, &pb, s, &mut cache).unwrap();
        let scale = pair_scale(&a, &pa, &b, &pb);
        match (c, r.nearest()) {
            (Directional::Contact { t, .. }, Some(m)) => {
                let e = (t - m.t).abs() / scale;
                assert!(
                    e <= 1e-12,
                    "convex {t} vs mesh {} ({e:e} × scale): {pa:?} {pb:?} {s:?}",
                    m.t
                );
                worst = worst.max(e);
                contacts += 1;
            }
            (Directional::Never { .. }, None) => {}
            (c, m) => panic!("convex {c:?} vs mesh {m:?}: {pa:?} {pb:?} {s:?}"),
        }
    }
    (contacts, worst)
}

#[test]
fn one_piece_meshes_match_the_convex_query() {
    let (contacts, worst) = convex_agreement(300, 11);
    assert!(contacts > 100, "{contacts}");
    eprintln!("convex agreement: {contacts} contacts, worst {worst:e} × scale");
}

#[test]
#[ignore]
fn one_piece_meshes_match_the_convex_query_many() {
    let (contacts, worst) = convex_agreement(10_000, 12);
    eprintln!("convex agreement: {contacts} contacts, worst {worst:e} × scale");
}

#[test]
fn knots_against_the_oracles() {
    let a = knot(32, 6, 1.0);
    let b = knot(24, 5, 0.6);
    let t = family(&a, &b, 60, 1, 4.0, 0.0, 12);
    eprintln!(
        "knots: {} cases, {} overlapping, {} never, worst {:e}",
        t.cases, t.overlapping, t.never, t.max_err
    );
    assert!(t.overlapping > 5 && t.cases - t.overlapping > 5);
    // Scaled and far away.
    let a = knot(32, 6, 1e3);
    let b = knot(24, 5, 600.0);
    let t = family(&a, &b, 30, 2, 4e3, 1e6, 4);
    eprintln!("far knots: {} cases, worst {:e}", t.cases, t.max_err);
    let a = knot(32, 6, 1e-3);
    let t = family(&a, &boxm(2e-4), 30, 3, 3e-3, 0.0, 4);
    eprintln!("small knot and box: {} cases, worst {:e}", t.cases, t.max_err);
}

#[test]
fn u_and_nested_against_the_oracles() {
    let u = u_shape();
    let b = boxm(0.3);
    let t = family(&u, &b, 80, 4, 2.0, 0.0, 20);
    eprintln!(
        "U: {} cases, {} overlapping, worst {:e}",
        t.cases, t.overlapping, t.max_err
    );
    let h = hollow_box(2.0, 1.2);
    let t = family(&h, &b, 60, 5, 3.0, 0.0, 15);
    eprintln!(
        "hollow: {} cases, {} overlapping, worst {:e}",
        t.cases, t.overlapping, t.max_err
    );
    let t = family(&u, &knot(20, 5, 0.4), 40, 6, 2.0, 0.0, 6);
    eprintln!(
        "U and knot: {} cases, {} overlapping, worst {:e}",
        t.cases, t.overlapping, t.max_err
    );
}

#[test]
#[ignore]
fn families_against_the_oracles_many() {
    let u = u_shape();
    let b = boxm(0.3);
    let runs: Vec<(&str, TriMesh, TriMesh, f64)> = vec![
        ("knots", knot(32, 6, 1.0), knot(24, 5, 0.6), 4.0),
        ("U and box", u.clone(), b.clone(), 2.0),
        ("hollow and box", hollow_box(2.0, 1.2), b, 3.0),
        ("U and knot", u, knot(20, 5, 0.4), 2.0),
    ];
    for (k, (name, a, b, spread)) in runs.iter().enumerate() {
        let t = family(a, b, 10_000, 100 + k as u64, *spread, 0.0, 200);
        eprintln!(
            "{name}: {} cases, {} overlapping, {} never, worst {:e}",
            t.cases, t.overlapping, t.never, t.max_err
        );
    }
}

#[test]
fn bad_direction_is_a_typed_error() {
    let a = boxm(1.0);
    let id = Pose::IDENTITY;
    for d in [
        DVec3::ZERO,
        DVec3::new(f64::NAN, 0.0, 0.0),
        DVec3::new(f64::INFINITY, 0.0, 0.0),
    ] {
        assert!(matches!(
            mesh::directional(&a, &id, &a, &id, d),
            Err(polycd::PolycdError::BadDirection)
        ));
    }
    let bad = Pose::from_translation(DVec3::new(f64::NAN, 0.0, 0.0));
    assert!(mesh::directional(&a, &bad, &a, &id, DVec3::X).is_err());
    // A rounded or flat convex shape has no closed mesh.
    let rounded = shapes::cuboid(1.0, 1.0, 1.0).unwrap().with_radius(0.1).unwrap();
    assert!(TriMesh::from_convex(&rounded).is_err());
}

/// Coordinates outside the safe band (tiny and huge, powers of two so the literals scale
/// exactly) take the dispatcher's rescaling path; the in-band answers scale with them.
#[test]
fn extreme_scales_scale_the_answer() {
    let u = u_shape();
    let b = boxm(0.25);
    let id = Pose::IDENTITY;
    let cases = [
        (-1.0, (Some(0.75), None)),
        (0.1, (Some(1.15), Some(-0.35))),
        (1.4, (Some(0.35), Some(-0.15))),
    ];
    for k in [2f64.powi(-125), 2f64.powi(-60), 2f64.powi(100), 2f64.powi(125)] {
        let scale = |m: &TriMesh| {
            let v: Vec<DVec3> = m.vertices().iter().map(|&p| p * k).collect();
            let f: Vec<Vec<u32>> = m.triangles().iter().map(|t| t.to_vec()).collect();
            TriMesh::new(&v, &f).unwrap()
        };
        let (uk, bk) = (scale(&u), scale(&b));
        for (x, (f, bw)) in cases {
            let pb = Pose::from_translation(DVec3::new(x, 2.0, 0.5) * k);
            let r = mesh::directional(&uk, &id, &bk, &pb, DVec3::X).unwrap();
            let (gf, gb) = t_of(&r);
            let near = |g: Option<f64>, w: Option<f64>| match (g, w) {
                (Some(g), Some(w)) => (g / k - w).abs() <= 1e-12 * 4.0,
                (None, None) => true,
                _ => false,
            };
            assert!(near(gf, f) && near(gb, bw), "scale {k:e}, x {x}: {r:?}");
        }
    }
}
