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
            let (pa, pb, pc) = (verts[a as usize], verts[b as usize], verts[c as usize]);
            verts.push(pa + (pb - pa) * (i as f64 / K as f64) + (pc - pa) * (j as f64 / K as f64));
            verts.len() as u32 - 1
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
    assert!(fine.repair().is_empty());
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
