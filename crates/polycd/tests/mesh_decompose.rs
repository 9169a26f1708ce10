//! Issue 23, item 3: the convex surface decomposition as a product — nearly coplanar
//! triangles merge (an in-plane 1:16 subdivision decomposes like the coarse mesh), every
//! triangle in exactly one piece, pieces inside the solid, deterministic, hull tree built
//! lazily with the same spheres.
//!
//! Oracles: the coarse mesh's own decomposition (piece count), brute-force point-in-hull
//! checks by the hulls' face planes, and the mesh's winding number.

use polycd::mesh::TriMesh;
use polycd::shapes::torus_knot;
use polycd::tolerance::CCD_PIECE_REL;
use polycd::DVec3;
use std::collections::HashMap;

/// Each triangle split 1:16 in its own plane (a 4 × 4 grid of barycentric points). Points on
/// an edge are computed from the edge's lower-numbered end, so both sides share them exactly.
fn subdivide(v: &[DVec3], f: &[Vec<u32>]) -> (Vec<DVec3>, Vec<Vec<u32>>) {
    const K: u32 = 4;
    let mut verts = v.to_vec();
    let mut edge_pts: HashMap<(u32, u32, u32), u32> = HashMap::new();
    let mut faces = Vec::new();
    for t in f {
        let (a, b, c) = (t[0], t[1], t[2]);
        // Grid point (i, j): a + i/K (b − a) + j/K (c − a), i + j ≤ K.
        let mut inner: HashMap<(u32, u32), u32> = HashMap::new();
        let mut id = |i: u32, j: u32, verts: &mut Vec<DVec3>| -> u32 {
            let w = K - i - j;
            // Corners.
            if i == 0 && j == 0 {
                return a;
            }
            if i == K {
                return b;
            }
            if j == K {
                return c;
            }
            // Edges: (p, q, k) with p < q, k steps from p.
            let edge = if j == 0 {
                Some((a, b, i))
            } else if i == 0 {
                Some((a, c, j))
            } else if w == 0 {
                Some((b, c, j))
            } else {
                None
            };
            if let Some((p, q, k)) = edge {
                let (p, q, k) = if p < q { (p, q, k) } else { (q, p, K - k) };
                return *edge_pts.entry((p, q, k)).or_insert_with(|| {
                    let x = verts[p as usize] + (verts[q as usize] - verts[p as usize]) * (k as f64 / K as f64);
                    verts.push(x);
                    verts.len() as u32 - 1
                });
            }
            *inner.entry((i, j)).or_insert_with(|| {
                let (pa, pb, pc) = (verts[a as usize], verts[b as usize], verts[c as usize]);
                verts.push(pa + (pb - pa) * (i as f64 / K as f64) + (pc - pa) * (j as f64 / K as f64));
                verts.len() as u32 - 1
            })
        };
        for i in 0..K {
            for j in 0..K - i {
                let p = id(i, j, &mut verts);
                let q = id(i + 1, j, &mut verts);
                let r = id(i, j + 1, &mut verts);
                faces.push(vec![p, q, r]);
                if i + j + 1 < K {
                    let s = id(i + 1, j + 1, &mut verts);
                    faces.push(vec![q, s, r]);
                }
            }
        }
    }
    (verts, faces)
}

fn check_pieces(m: &TriMesh) {
    let n = m.triangles().len();
    let mut count = vec![0u32; n];
    for (i, piece) in m.pieces().iter().enumerate() {
        let h = m.piece_hull(i as u32).unwrap();
        let eps = 4.0 * CCD_PIECE_REL * m.scale();
        for &t in piece {
            count[t as usize] += 1;
            // The piece covers its triangles: every corner on or inside the hull.
            for &c in &m.triangles()[t as usize] {
                let p = m.vertices()[c as usize];
                for f in 0..h.faces().len() as u32 {
                    assert!(
                        h.face_plane(f).signed_distance(p) <= eps,
                        "piece {i} misses triangle {t}"
                    );
                }
            }
        }
        // The hull's inner points are in the solid (a hull vertex may be on the surface).
        let c = h.centroid();
        assert!(m.contains_point(c), "piece {i}'s centroid is outside the solid");
    }
    assert!(count.iter().all(|&c| c == 1), "a triangle is in no piece or in two");
}

#[test]
fn in_plane_subdivision_merges_back() {
    let (v, f) = torus_knot(2, 3, 48, 8, 0.45).unwrap();
    let coarse = TriMesh::new(&v, &f).unwrap();
    let (sv, sf) = subdivide(&v, &f);
    assert_eq!(sf.len(), 16 * f.len());
    let fine = TriMesh::new(&sv, &sf).unwrap();
    assert!(coarse.repair().is_empty(), "{}", coarse.repair());
    assert!(fine.repair().is_empty(), "{}", fine.repair());
    let (pc, pf) = (coarse.pieces().len(), fine.pieces().len());
    assert!(
        pf as f64 <= 1.1 * pc as f64,
        "subdivided: {pf} pieces, coarse: {pc} (more than 1.1×)"
    );
    check_pieces(&coarse);
    check_pieces(&fine);
    assert!((fine.volume() - coarse.volume()).abs() <= 1e-9 * coarse.volume());
}

#[test]
fn decomposition_is_deterministic_and_the_tree_lazy() {
    let (v, f) = torus_knot(2, 3, 60, 10, 0.45).unwrap();
    let a = TriMesh::new(&v, &f).unwrap();
    let b = TriMesh::new(&v, &f).unwrap();
    assert_eq!(a.pieces(), b.pieces());
    assert_eq!(a.root(), b.root());
    assert_eq!(a.nodes().len(), 2 * a.pieces().len() - 1);
    for (x, y) in a.nodes().iter().zip(b.nodes()) {
        assert_eq!(x.points(), y.points());
        assert_eq!(x.children, y.children);
    }
    // Nothing built before a query asks; then the same sphere and scale as the hull's.
    assert!(a.nodes().iter().all(|n| !n.is_built()));
    for n in a.nodes() {
        let h = n.hull().unwrap();
        assert!(n.is_built());
        assert_eq!(n.bounding_sphere(), h.bounding_sphere());
        assert_eq!(n.scale(), h.scale());
        assert_eq!(h.vertices().len(), n.points().len());
        // An inner node's hull holds its children's points.
        if let Some((l, r)) = n.children {
            for &p in a.nodes()[l as usize]
                .points()
                .iter()
                .chain(a.nodes()[r as usize].points())
            {
                for f in 0..h.faces().len() as u32 {
                    assert!(h.face_plane(f).signed_distance(p) <= 1e-12 * a.scale());
                }
            }
        }
    }
}

#[test]
fn saved_decomposition_reads_back_and_answers_the_same() {
    use polycd::mesh::{bvtt_distance as distance, MeshCache, MeshDistance};
    use polycd::query::Algorithm;
    use polycd::{DQuat, Pose};
    let (mut v, mut f) = torus_knot(2, 3, 60, 10, 0.45).unwrap();
    // A repeated face and a split corner, so the repair report travels too.
    f.push(f[3].clone());
    v.push(v[0]);
    f[0] = f[0]
        .iter()
        .map(|&i| if i == 0 { v.len() as u32 - 1 } else { i })
        .collect();
    let a = TriMesh::new(&v, &f).unwrap();
    assert_eq!(a.repair().dropped_duplicates, vec![f.len() as u32 - 1]);
    let bytes = a.to_bytes();
    let b = TriMesh::from_bytes(&bytes, "knot.pcdm").unwrap();
    assert_eq!(a.pieces(), b.pieces());
    assert_eq!(a.triangles(), b.triangles());
    assert_eq!(a.repair(), b.repair());
    assert_eq!(a.components(), b.components());
    assert_eq!(a.root(), b.root());
    assert_eq!(a.volume().to_bits(), b.volume().to_bits());
    assert_eq!(a.centroid(), b.centroid());
    for t in 0..a.triangles().len() as u32 {
        assert_eq!(a.input_face(t), b.input_face(t));
    }
    for (x, y) in a.nodes().iter().zip(b.nodes()) {
        assert_eq!(x.points(), y.points());
        assert_eq!(x.children, y.children);
        assert_eq!(x.piece, y.piece);
        assert_eq!(x.bounding_sphere(), y.bounding_sphere());
    }
    // The same distances (bit for bit) at a few poses.
    let other = TriMesh::new(&v, &f).unwrap();
    for k in 0..5 {
        let pose = Pose::new(
            DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 0.5).normalize(), 0.4 * k as f64),
            DVec3::new(3.0 + 0.7 * k as f64, 0.3 * k as f64, -0.2),
        );
        let (mut c1, mut c2) = (MeshCache::default(), MeshCache::default());
        let d1 = distance(&a, &Pose::IDENTITY, &other, &pose, 0.0, Algorithm::VClip, &mut c1).unwrap();
        let d2 = distance(&b, &Pose::IDENTITY, &other, &pose, 0.0, Algorithm::VClip, &mut c2).unwrap();
        match (d1, d2) {
            (MeshDistance::Separated { distance: x, .. }, MeshDistance::Separated { distance: y, .. }) => {
                assert_eq!(x.to_bits(), y.to_bits())
            }
            (x, y) => assert_eq!(format!("{x:?}"), format!("{y:?}")),
        }
    }
    // A file on disk.
    let path = std::env::temp_dir().join(format!("polycd_dec_{}.pcdm", std::process::id()));
    a.save(&path).unwrap();
    assert_eq!(TriMesh::load(&path).unwrap().pieces(), a.pieces());
    std::fs::remove_file(&path).ok();
}

#[test]
fn corrupt_decomposition_files_are_typed_errors() {
    let (v, f) = torus_knot(2, 3, 24, 6, 0.45).unwrap();
    let bytes = TriMesh::new(&v, &f).unwrap().to_bytes();
    let msg = |b: &[u8]| match TriMesh::from_bytes(b, "x.pcdm") {
        Err(polycd::PolycdError::File { path, message }) => {
            assert_eq!(path, "x.pcdm");
            message
        }
        Err(e) => panic!("not a file error: {e}"),
        Ok(_) => panic!("a corrupt file was accepted"),
    };
    assert!(msg(&[]).contains("header"));
    assert!(msg(b"not a decomposition at all").contains("header"));
    // One flipped bit anywhere: the checksum.
    for at in [12, bytes.len() / 3, bytes.len() / 2, bytes.len() - 9] {
        let mut b = bytes.clone();
        b[at] ^= 0x10;
        assert!(msg(&b).contains("checksum"), "byte {at}");
    }
    // Truncated.
    assert!(msg(&bytes[..bytes.len() - 100]).contains("checksum"));
    // Another version.
    let mut b = bytes.clone();
    b[8] = 2;
    assert!(msg(&b).contains("version 2"));
    // A well-formed file (checksum recomputed) whose pieces do not cover the mesh: rewrite
    // a piece's triangle to another piece's (the first triangle of piece 0 is triangle 0).
    let fnv = |b: &[u8]| {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &x in b {
            h ^= u64::from(x);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h
    };
    let m = TriMesh::new(&v, &f).unwrap();
    let second = m.pieces()[1][0];
    // Find the pieces section: after the count of pieces (u64), piece 0's length and first
    // triangle. Locate it by its exact bytes.
    let np = (m.pieces().len() as u64).to_le_bytes();
    let p0 = (m.pieces()[0].len() as u64).to_le_bytes();
    let t0 = m.pieces()[0][0].to_le_bytes();
    let pat: Vec<u8> = [&np[..], &p0[..], &t0[..]].concat();
    let pos = bytes
        .windows(pat.len())
        .position(|w| w == pat.as_slice())
        .expect("pieces section");
    let mut b = bytes[..bytes.len() - 8].to_vec();
    b[pos + 16..pos + 20].copy_from_slice(&second.to_le_bytes());
    let sum = fnv(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    let text = msg(&b);
    assert!(text.contains("in two pieces") || text.contains("in no piece"), "{text}");
}

/// A U-shaped solid (profile (0,0) (3,0) (3,2) (2,2) (2,1) (1,1) (1,2) (0,2) in x–z, extruded
/// over y ∈ [0, 1]). Its caps are flat and not convex: a patch of cap triangles whose union is
/// not convex in the cap's plane has a hull spanning the notch (outside the solid) that no
/// mesh triangle enters. Every piece's hull must stay in the solid: points of each hull
/// (convex combinations of its vertices, and a point slightly inside the face centroids) are
/// inside the solid or on its surface.
#[test]
fn pieces_of_a_u_with_flat_non_convex_caps_stay_inside() {
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
    let mut v = Vec::new();
    for y in [0.0, 1.0] {
        for (x, z) in profile {
            v.push(DVec3::new(x, y, z));
        }
    }
    let mut f: Vec<Vec<u32>> = Vec::new();
    for c in [[0, 1, 4], [1, 2, 3], [1, 3, 4], [0, 4, 5], [0, 5, 6], [0, 6, 7]] {
        f.push(c.to_vec());
        f.push(vec![c[0] + 8, c[2] + 8, c[1] + 8]);
    }
    for i in 0..8u32 {
        let j = (i + 1) % 8;
        f.push(vec![j, i, i + 8, j + 8]);
    }
    let m = TriMesh::new(&v, &f).unwrap();
    // The notch is x ∈ (1, 2), z ∈ (1, 2): no hull point may be strictly inside it.
    let in_notch = |p: DVec3| p.x > 1.0 + 1e-9 && p.x < 2.0 - 1e-9 && p.z > 1.0 + 1e-9 && p.z < 2.0 - 1e-9;
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    for i in 0..m.pieces().len() as u32 {
        let h = m.piece_hull(i).expect("a piece hull");
        let vs = h.vertices();
        for _ in 0..2000 {
            let w: Vec<f64> = vs.iter().map(|_| rnd().powi(4)).collect();
            let s: f64 = w.iter().sum();
            let p = vs.iter().zip(&w).map(|(v, w)| *v * (*w / s)).sum::<DVec3>();
            assert!(!in_notch(p), "piece {i}'s hull reaches into the notch at {p:?}");
        }
    }
    check_pieces(&m);
}
