//! Issue 23 item 3 / issue 29 item 4: `hull::small::HullScratch` is the one hull
//! implementation (`hull::convex_hull` is one build on a fresh scratch). A scratch reused
//! across ≥ 10⁴ clouds (as the mesh decomposition reuses it) returns exactly what a fresh one
//! returns — the same vertices bit for bit, in the same order, the same source indices, the
//! same face loops in the same order, and the same errors — on random, coplanar-heavy,
//! degenerate, tiny/huge and far-from-origin clouds of 1–120 points: nothing left in the
//! buffers by one build changes the next.
//!
//! Oracles: the brute-force exact hull of `tests/hull.rs`, plus an independent check of
//! every hull here: each input point on or below every face plane by the exact `orient3d`.

use polycd::hull::{convex_hull, small::HullScratch, HullFaces};
use polycd::predicates::{orient3d, Orientation};
use polycd::DVec3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Compares the two builders on `pts`; returns whether a hull was built.
fn same(scratch: &mut HullScratch, pts: &[DVec3], what: &str) -> bool {
    let want = convex_hull(pts);
    let got = scratch.build(pts).map(|()| scratch.to_faces());
    match (&want, &got) {
        (Ok(w), Ok(g)) => {
            let bits = |h: &HullFaces| -> Vec<[u64; 3]> {
                h.vertices
                    .iter()
                    .map(|v| [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()])
                    .collect()
            };
            assert_eq!(bits(w), bits(g), "{what}: vertices differ on {pts:?}");
            assert_eq!(w.source, g.source, "{what}: sources differ on {pts:?}");
            assert_eq!(w.faces, g.faces, "{what}: faces differ on {pts:?}");
            // The accessors agree with the copy.
            assert_eq!(scratch.face_count(), g.faces.len());
            for (k, f) in g.faces.iter().enumerate() {
                assert_eq!(scratch.face(k), &f[..]);
            }
            // Independent check: every input point on or below every face's plane — exactly
            // (orient3d against the face's first three corners), or else within the merge's
            // coplanarity tolerance (`COPLANAR_REL` × magnitude; 1e-12 × magnitude here,
            // with rounding): a face merged from nearly coplanar facets is planar only to
            // that tolerance.
            let magnitude = pts.iter().fold(0.0f64, |m, p| m.max(p.abs().max_element()));
            for f in &g.faces {
                let [a, b, c] = [f[0], f[1], f[2]].map(|i| g.vertices[i as usize]);
                let exact_above = pts
                    .iter()
                    .filter(|p| orient3d(a, b, c, **p) == Orientation::Above)
                    .count();
                if exact_above == 0 {
                    continue;
                }
                let centre = f.iter().map(|&i| g.vertices[i as usize]).sum::<DVec3>() / f.len() as f64;
                let mut n = DVec3::ZERO;
                for k in 0..f.len() {
                    let (u, w) = (g.vertices[f[k] as usize], g.vertices[f[(k + 1) % f.len()] as usize]);
                    n += (u - centre).cross(w - centre);
                }
                let n = n.normalize();
                for p in pts {
                    let h = n.dot(*p - centre);
                    assert!(h <= 1e-12 * magnitude, "{what}: point {h} above a merged face");
                }
            }
            true
        }
        (Err(w), Err(g)) => {
            assert_eq!(w, g, "{what}: errors differ on {pts:?}");
            false
        }
        _ => panic!("{what}: one builder failed: convex_hull {want:?}, scratch {got:?} on {pts:?}"),
    }
}

fn unit(rng: &mut ChaCha8Rng) -> DVec3 {
    DVec3::new(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    )
}

/// A random rotation (unit quaternion from a normalised Gaussian-ish 4-vector).
fn rotate(rng: &mut ChaCha8Rng, pts: &mut [DVec3]) {
    let q = polycd::DQuat::from_xyzw(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    )
    .normalize();
    for p in pts {
        *p = q * *p;
    }
}

/// One cloud of the family `kind`, `n` points.
fn cloud(rng: &mut ChaCha8Rng, kind: u32, n: usize) -> Vec<DVec3> {
    match kind {
        // Uniform in a cube.
        0 => (0..n).map(|_| unit(rng)).collect(),
        // On a sphere (rounded: many points nearly on the hull, none exactly).
        1 => (0..n).map(|_| unit(rng).normalize_or_zero() * 3.0).collect(),
        // Integer grid points of a small box: exact coplanarities and collinearities, duplicates.
        2 => (0..n)
            .map(|_| {
                DVec3::new(
                    rng.random_range(0..4) as f64,
                    rng.random_range(0..3) as f64,
                    rng.random_range(0..3) as f64,
                )
            })
            .collect(),
        // Cube corners, edge midpoints and face centres (coplanar-heavy), shuffled, plus noise points inside.
        3 => {
            let mut v = Vec::new();
            for x in [-1.0, 0.0, 1.0] {
                for y in [-1.0, 0.0, 1.0] {
                    for z in [-1.0, 0.0, 1.0] {
                        v.push(DVec3::new(x, y, z));
                    }
                }
            }
            for _ in 0..n.min(40) {
                v.push(unit(rng) * 0.5);
            }
            for i in (1..v.len()).rev() {
                let j = rng.random_range(0..=i);
                v.swap(i, j);
            }
            v
        }
        // A flat patch (a gently curved cap within ~1e-12) with one point behind it, as the
        // decomposition's flat pieces; sometimes rotated.
        4 => {
            let mut v: Vec<DVec3> = (0..n.max(4) - 1)
                .map(|_| {
                    let (x, y) = (rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
                    let bump = if rng.random_bool(0.5) {
                        0.0
                    } else {
                        1e-12 * (x * x + y * y)
                    };
                    DVec3::new(x, y, bump)
                })
                .collect();
            v.push(DVec3::new(0.1, -0.2, -rng.random_range(1e-9..1.0)));
            if rng.random_bool(0.5) {
                rotate(rng, &mut v);
            }
            v
        }
        // Degenerate: all coplanar, all collinear, too few points, duplicates only.
        5 => match rng.random_range(0..4) {
            0 => (0..n)
                .map(|_| DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), 0.25))
                .collect(),
            1 => {
                let d = unit(rng);
                (0..n).map(|_| d * (rng.random_range(0..8) as f64)).collect()
            }
            2 => (0..rng.random_range(0..4)).map(|_| unit(rng)).collect(),
            _ => {
                let p = unit(rng);
                let mut v = vec![p; n];
                if rng.random_bool(0.5) {
                    v.push(unit(rng));
                }
                v
            }
        },
        // A convex polytope's vertices with points on its faces and edges (rounded
        // barycentric combinations: nearly coplanar with the faces).
        6 => {
            let corners: Vec<DVec3> = (0..8).map(|_| unit(rng) * 2.0).collect();
            let mut v = corners.clone();
            for _ in 0..n {
                let (i, j, k) = (rng.random_range(0..8), rng.random_range(0..8), rng.random_range(0..8));
                let (a, b) = (rng.random_range(0.0..1.0), rng.random_range(0.0..1.0));
                let (a, b) = if a + b > 1.0 { (1.0 - a, 1.0 - b) } else { (a, b) };
                v.push(corners[i] + (corners[j] - corners[i]) * a + (corners[k] - corners[i]) * b);
            }
            v
        }
        // Thin slab: thickness near the flatness tolerance.
        _ => {
            let t = 10f64.powi(-rng.random_range(6..13));
            (0..n)
                .map(|_| {
                    DVec3::new(
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-t..t),
                    )
                })
                .collect()
        }
    }
}

#[test]
fn small_hull_equals_convex_hull() {
    let mut rng = ChaCha8Rng::seed_from_u64(23_005);
    let mut scratch = HullScratch::new();
    let mut built = 0usize;
    let mut cases = 0usize;
    // Scales and offsets: unit, tiny, huge, far from the origin (relative and absolute), and
    // beyond the safe band (the builder hands those to `convex_hull`).
    let frames: [(f64, f64); 9] = [
        (1.0, 0.0),
        (1e-3, 0.0),
        (1e3, 0.0),
        (1.0, 1e6),
        (1e-3, 1e4),
        (1.0, 1e9),
        (1e-30, 0.0),
        (1e40, 0.0),
        (1e-45, 1e-40),
    ];
    for round in 0..1_300 {
        for kind in 0..8 {
            let n = match round % 4 {
                0 => rng.random_range(4..12),
                1 => rng.random_range(10..40),
                2 => rng.random_range(30..80),
                _ => rng.random_range(1..120),
            };
            let base = cloud(&mut rng, kind, n);
            let (s, o) = frames[rng.random_range(0..frames.len())];
            let dir = unit(&mut rng);
            let pts: Vec<DVec3> = base.iter().map(|p| *p * s + dir * o).collect();
            built += usize::from(same(&mut scratch, &pts, &format!("kind {kind}, scale {s}, offset {o}")));
            cases += 1;
        }
    }
    assert!(cases >= 10_000, "{cases} cases");
    // Most clouds take the allocation-free path (scaled clouds and errors are handed over).
    let fast = cases as u64 - scratch.delegated();
    assert!(fast as usize > cases / 2, "{fast} of {cases} built without delegating");
    println!("{cases} clouds, {built} hulls, {} delegated", scratch.delegated());
    // Most clouds are solids (the degenerate family and some slabs are not).
    assert!(built > cases / 2, "{built} hulls built of {cases}");
}

/// Non-finite and absurd coordinates: the same errors.
#[test]
fn small_hull_refuses_what_convex_hull_refuses() {
    let mut scratch = HullScratch::new();
    let mut pts = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    assert!(same(&mut scratch, &pts, "tetrahedron"));
    pts.push(DVec3::new(f64::NAN, 0.0, 0.0));
    same(&mut scratch, &pts, "NaN");
    pts.pop();
    pts.push(DVec3::new(1e200, 0.0, 0.0));
    same(&mut scratch, &pts, "absurd");
    pts.pop();
    pts.push(DVec3::new(f64::INFINITY, 0.0, 0.0));
    same(&mut scratch, &pts, "infinite");
    // The scratch is still usable after errors.
    pts.pop();
    assert!(same(&mut scratch, &pts, "tetrahedron again"));
}

/// Progress of a large build (2·10⁴ points on a sphere, every one extreme: several progress
/// strides of Quickhull iterations): `Phase::Hull` counts never decrease, never exceed the total
/// and end at the total; `Phase::Merge` reports its start and end; the result is the one
/// built without a callback.
#[test]
fn progress_is_monotone_and_complete() {
    use polycd::hull::convex_hull_with_progress;
    use polycd::progress::Phase;
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    let pts: Vec<DVec3> = (0..20_000).map(|_| unit(&mut rng).normalize()).collect();
    let mut calls: Vec<(Phase, u64, u64)> = Vec::new();
    let with = convex_hull_with_progress(&pts, &mut |p, d, t| calls.push((p, d, t))).unwrap();
    let without = convex_hull(&pts).unwrap();
    assert_eq!(with.source, without.source);
    assert_eq!(with.faces, without.faces);
    let hull: Vec<(u64, u64)> = calls
        .iter()
        .filter(|c| c.0 == Phase::Hull)
        .map(|c| (c.1, c.2))
        .collect();
    assert!(hull.len() >= 3, "{} hull progress calls", hull.len());
    assert!(hull.windows(2).all(|w| w[0].0 <= w[1].0), "hull progress decreased");
    assert!(hull.iter().all(|&(d, t)| d <= t && t == pts.len() as u64));
    assert_eq!(*hull.last().unwrap(), (pts.len() as u64, pts.len() as u64));
    let merge: Vec<(u64, u64)> = calls
        .iter()
        .filter(|c| c.0 == Phase::Merge)
        .map(|c| (c.1, c.2))
        .collect();
    assert_eq!(merge, vec![(0, 1), (1, 1)]);
}
