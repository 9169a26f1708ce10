//! The models of FAST's experiments (§6, Fig. 3–8): the Stanford bunny as shipped in
//! `assets/models/bunny.obj` (3 674 triangles, closed; see `assets/models/README.md` for its
//! source and terms), its 1:9 and 1:16 in-plane subdivisions (33 066 and 58 784 triangles:
//! every triangle split into the grid of its edges' thirds or quarters, so the surface and
//! its volume are unchanged), a ring (a torus of 10 000 triangles) and a thin board (a box of 12
//! triangles). Everything but the bunny's vertices is generated here.

use polycd::io::{mesh_from_bytes, MeshFormat};
use polycd::mesh::TriMesh;
use polycd::DVec3;
use std::collections::HashMap;

const BUNNY_OBJ: &[u8] = include_bytes!("../../../../assets/models/bunny.obj");

/// Vertices and triangles.
pub(crate) type Tris = (Vec<DVec3>, Vec<Vec<u32>>);

/// The shipped bunny's vertices and faces (3 674 triangles).
pub(crate) fn bunny() -> Result<Tris, String> {
    mesh_from_bytes(BUNNY_OBJ, MeshFormat::Obj, "assets/models/bunny.obj").map_err(|e| e.to_string())
}

/// Splits every triangle into `n²` in its plane: each edge into `n` equal parts, the
/// triangle into the grid of its barycentric points `(i, j, k)/n`. The points of an edge are
/// shared by its two triangles, so a closed mesh stays closed (`n = 2`: 1:4, `n = 4`: 1:16).
pub(crate) fn subdivide((mut v, f): Tris, n: u32) -> Tris {
    let n = n.max(1);
    // Points of edge (i, j), i < j, from i to j (ends excluded).
    let mut edge_points: HashMap<(u32, u32), Vec<u32>> = HashMap::with_capacity(f.len() * 2);
    let mut out = Vec::with_capacity(f.len() * (n * n) as usize);
    let mut grid = vec![0u32; ((n + 1) * (n + 1)) as usize];
    for t in &f {
        let c = [t[0], t[1], t[2]];
        let p = [v[c[0] as usize], v[c[1] as usize], v[c[2] as usize]];
        // grid[a * (n + 1) + b]: the point with weights (n − a − b, a, b)/n on (p0, p1, p2).
        for a in 0..=n {
            for b in 0..=(n - a) {
                let w0 = n - a - b;
                let id = if a == 0 && b == 0 {
                    c[0]
                } else if a == n {
                    c[1]
                } else if b == n {
                    c[2]
                } else {
                    // On an edge when one weight is 0: the edge's shared points.
                    let on = if b == 0 {
                        Some((c[0], c[1], a))
                    } else if a == 0 {
                        Some((c[0], c[2], b))
                    } else if w0 == 0 {
                        Some((c[1], c[2], b))
                    } else {
                        None
                    };
                    match on {
                        Some((i, j, k)) => {
                            let (lo, hi) = (i.min(j), i.max(j));
                            let pts = edge_points.entry((lo, hi)).or_insert_with(|| {
                                (1..n)
                                    .map(|s| {
                                        let x = s as f64 / n as f64;
                                        v.push(v[lo as usize] * (1.0 - x) + v[hi as usize] * x);
                                        (v.len() - 1) as u32
                                    })
                                    .collect()
                            });
                            // k steps from i toward j.
                            let s = if i == lo { k } else { n - k };
                            pts[(s - 1) as usize]
                        }
                        None => {
                            let q = (p[0] * w0 as f64 + p[1] * a as f64 + p[2] * b as f64) / n as f64;
                            v.push(q);
                            (v.len() - 1) as u32
                        }
                    }
                };
                grid[(a * (n + 1) + b) as usize] = id;
            }
        }
        let g = |a: u32, b: u32| grid[(a * (n + 1) + b) as usize];
        for a in 0..n {
            for b in 0..(n - a) {
                out.push(vec![g(a, b), g(a + 1, b), g(a, b + 1)]);
                if a + b + 1 < n {
                    out.push(vec![g(a + 1, b), g(a + 1, b + 1), g(a, b + 1)]);
                }
            }
        }
    }
    (v, out)
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

    #[test]
    fn models_are_closed_with_the_papers_counts() {
        let b = bunny().unwrap();
        assert_eq!(b.1.len(), 3_674);
        let fine = subdivide(b.clone(), 4);
        assert_eq!(fine.1.len(), 58_784);
        assert_eq!(subdivide(b.clone(), 3).1.len(), 33_066);
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
