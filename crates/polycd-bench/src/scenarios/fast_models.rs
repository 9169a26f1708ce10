//! The models of FAST's experiments (§6, Fig. 3–8): the Stanford bunny as shipped in
//! `assets/models/bunny.obj` (3 674 triangles, closed; see `assets/models/README.md` for its
//! source and terms), its 1:9 and 1:16 in-plane subdivisions (33 066 and 58 784 triangles:
//! every triangle split into the grid of its edges' thirds or quarters, so the surface and
//! its volume are unchanged), a ring (a torus of 10 000 triangles) and a thin board (a box of 12
//! triangles). Everything but the bunny's vertices is generated here (the subdivision by the
//! library's `shapes::subdivide`, which `examples/ccd_profile.rs` uses too).

use polycd::io::{mesh_from_bytes, MeshFormat};
use polycd::mesh::TriMesh;
use polycd::DVec3;

const BUNNY_OBJ: &[u8] = include_bytes!("../../../../assets/models/bunny.obj");

/// Vertices and triangles.
pub(crate) type Tris = (Vec<DVec3>, Vec<Vec<u32>>);

/// The shipped bunny's vertices and faces (3 674 triangles).
pub(crate) fn bunny() -> Result<Tris, String> {
    mesh_from_bytes(BUNNY_OBJ, MeshFormat::Obj, "assets/models/bunny.obj").map_err(|e| e.to_string())
}

/// `t` split 1:n² in its plane by the library's generator ([`polycd::shapes::subdivide`]:
/// each edge into `n` equal parts shared by its two triangles, so a closed mesh stays closed;
/// `n = 3`: 1:9, `n = 4`: 1:16).
pub(crate) fn subdivide((v, f): Tris, n: u32) -> Result<Tris, String> {
    polycd::shapes::subdivide(&v, &f, n).map_err(|e| e.to_string())
}

/// A torus (the ring of Fig. 3 and 8) in the XY plane: radius `big` to the tube's centre,
/// tube radius `small`, `around × tube × 2` triangles, outward oriented.
pub(crate) fn ring(big: f64, small: f64, around: u32, tube: u32) -> Tris {
    let mut v = Vec::with_capacity((around * tube) as usize);
    for i in 0..around {
        let a = std::f64::consts::TAU * i as f64 / around as f64;
        for j in 0..tube {
            let b = std::f64::consts::TAU * j as f64 / tube as f64;
            let r = big + small * b.cos();
            v.push(DVec3::new(r * a.cos(), r * a.sin(), small * b.sin()));
        }
    }
    let id = |i: u32, j: u32| (i % around) * tube + (j % tube);
    let mut f = Vec::with_capacity((around * tube * 2) as usize);
    for i in 0..around {
        for j in 0..tube {
            let (p, q, r, s) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            f.push(vec![p, q, r]);
            f.push(vec![p, r, s]);
        }
    }
    (v, f)
}

/// A box of half extents `h` centred at the origin, as 6 quads (12 triangles), outward.
pub(crate) fn board(h: DVec3) -> Tris {
    let v: Vec<DVec3> = (0..8)
        .map(|i| {
            DVec3::new(
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

/// Builds the mesh (decomposition and hull tree) of `t`.
pub(crate) fn build((v, f): &Tris) -> Result<TriMesh, String> {
    TriMesh::new(v, f).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn models_are_closed_with_the_papers_counts() {
        let b = bunny().unwrap();
        assert_eq!(b.1.len(), 3_674);
        let fine = subdivide(b.clone(), 4).unwrap();
        assert_eq!(fine.1.len(), 58_784);
        assert_eq!(subdivide(b.clone(), 3).unwrap().1.len(), 33_066);
        // Closed: every edge is used by exactly two triangles (V − E + F = 2 for the bunny).
        for (v, f) in [&b, &fine] {
            let mut edges: HashMap<(u32, u32), u32> = HashMap::new();
            for t in f.iter() {
                for k in 0..3 {
                    let (i, j) = (t[k], t[(k + 1) % 3]);
                    *edges.entry((i.min(j), i.max(j))).or_default() += 1;
                }
            }
            assert!(edges.values().all(|&n| n == 2));
            assert_eq!(v.len() as i64 - edges.len() as i64 + f.len() as i64, 2);
        }
        let r = ring(1.0, 0.25, 100, 50);
        assert_eq!(r.1.len(), 10_000);
        let m = build(&board(DVec3::new(1.0, 1.0, 0.01))).unwrap();
        assert_eq!(m.triangles().len(), 12);
    }
}
