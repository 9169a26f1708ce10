//! Issue 23, item 6: real meshes load. Hand-made defective meshes (split vertices, a zero-area
//! sliver, a repeated face, back-to-back faces, a non-manifold edge, an open edge) and their
//! expected repair reports or errors, in the input's own numbering.
//!
//! Oracles: the same solid written cleanly (its volume, centroid and triangle count), and the
//! faces and vertices named by hand.

use polycd::error::{MeshDefect, MeshNumbering};
use polycd::mesh::{MeshOptions, TriMesh};
use polycd::tolerance::MESH_WELD_REL;
use polycd::{DVec3, PolycdError};

/// The unit cube `[0, 1]³`: 8 vertices, 12 outward triangles.
fn cube() -> (Vec<DVec3>, Vec<Vec<u32>>) {
    let v = (0..8)
        .map(|i| DVec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64))
        .collect();
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let mut f = Vec::new();
    for q in quads {
        f.push(vec![q[0], q[1], q[2]]);
        f.push(vec![q[0], q[2], q[3]]);
    }
    (v, f)
}

/// The cube with every triangle on its own three vertices (36 vertices, as STL stores it).
fn cube_soup() -> (Vec<DVec3>, Vec<Vec<u32>>) {
    let (v, f) = cube();
    let mut sv = Vec::new();
    let mut sf = Vec::new();
    for face in &f {
        let base = sv.len() as u32;
        sv.extend(face.iter().map(|&i| v[i as usize]));
        sf.push(vec![base, base + 1, base + 2]);
    }
    (sv, sf)
}

fn defect(e: PolycdError) -> MeshDefect {
    match e {
        PolycdError::InvalidMesh(d) => *d,
        PolycdError::MeshFile { defect, .. } => *defect,
        e => panic!("not a mesh defect: {e}"),
    }
}

fn same_solid(m: &TriMesh) {
    assert!((m.volume() - 1.0).abs() < 1e-12, "volume {}", m.volume());
    assert!((m.centroid() - DVec3::splat(0.5)).length() < 1e-12);
    assert_eq!(m.triangles().len(), 12);
}

#[test]
fn clean_cube_reports_nothing_and_maps_faces_to_themselves() {
    let (v, f) = cube();
    let m = TriMesh::new(&v, &f).unwrap();
    same_solid(&m);
    assert!(m.repair().is_empty());
    assert_eq!(m.repair().to_string(), "nothing repaired");
    for t in 0..12 {
        assert_eq!(m.input_face(t), t);
    }
    assert_eq!(m.input_face(12), u32::MAX);
}

#[test]
fn triangle_soup_is_welded_and_errors_without_repair() {
    let (v, f) = cube_soup();
    let m = TriMesh::new(&v, &f).unwrap();
    same_solid(&m);
    assert_eq!(m.repair().welded_vertices, 36 - 8);
    assert!(m.repair().dropped_degenerate.is_empty());
    // Every triangle keeps its face, and uses the first input vertex at each corner.
    for t in 0..12u32 {
        assert_eq!(m.input_face(t), t);
        for &c in &m.triangles()[t as usize] {
            let p = v[c as usize];
            assert_eq!(v.iter().position(|&q| q == p), Some(c as usize));
        }
    }
    // Without repair: the first face's first edge is open (its twin uses other vertices).
    let opts = MeshOptions::default().with_repair(false);
    match defect(TriMesh::with_options(&v, &f, &opts).unwrap_err()) {
        MeshDefect::OpenEdge { a, b, face, .. } => {
            assert_eq!((a.index, b.index, face.index), (0, 1, 0));
            assert_eq!(a.numbering, MeshNumbering::Input);
        }
        d => panic!("{d}"),
    }
}

#[test]
fn zero_area_triangles_are_dropped_and_named() {
    let (mut v, mut f) = cube();
    // Face 12: a needle whose two corners coincide after welding (vertex 8 is vertex 0 again).
    v.push(v[0]);
    f.push(vec![0, 8, 6]);
    // Face 13: three exactly collinear corners (vertex 9 the midpoint of the edge 0–1).
    v.push(DVec3::new(0.5, 0.0, 0.0));
    f.push(vec![0, 9, 1]);
    // Face 14: a quad whose fan has one zero-area triangle (0, 1, 9) and one repeat ...
    // kept simple: a polygon all on one line.
    f.push(vec![1, 9, 0, 9]);
    let m = TriMesh::new(&v, &f).unwrap();
    same_solid(&m);
    assert_eq!(m.repair().welded_vertices, 1);
    assert_eq!(m.repair().dropped_degenerate, vec![12, 13, 14, 14]);
    let line = m.repair().to_string();
    assert!(line.contains("welded 1 coincident vertices"), "{line}");
    assert!(
        line.contains("dropped 4 zero-area triangles (faces 12, 13, 14, 14, 0-based)"),
        "{line}"
    );
    // Without repair, the first such face is named, as before.
    let opts = MeshOptions::default().with_repair(false);
    match defect(TriMesh::with_options(&v, &f, &opts).unwrap_err()) {
        MeshDefect::DegenerateTriangle { face, .. } => assert_eq!(face.index, 12),
        d => panic!("{d}"),
    }
}

#[test]
fn repeated_face_is_dropped_and_ids_are_input_faces() {
    let (v, mut f) = cube();
    // Face 0 repeated in front of everything: the repeat is the later one (face 1 here is the
    // original face 0 shifted; the repeat at index 0 is kept and face 1 dropped).
    let rep = f[3].clone();
    f.insert(0, rep);
    let m = TriMesh::new(&v, &f).unwrap();
    same_solid(&m);
    assert_eq!(m.repair().dropped_duplicates, vec![4]);
    // Triangles keep file order: input faces 0..=3 and 5..=12.
    let faces: Vec<u32> = (0..12).map(|t| m.input_face(t)).collect();
    assert_eq!(faces, vec![0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12]);
    // The same repeat rotated (same cyclic order) is a duplicate too.
    let (v, mut f) = cube();
    f.push(vec![f[5][1], f[5][2], f[5][0]]);
    let m = TriMesh::new(&v, &f).unwrap();
    same_solid(&m);
    assert_eq!(m.repair().dropped_duplicates, vec![12]);
    let opts = MeshOptions::default().with_repair(false);
    match defect(TriMesh::with_options(&v, &f, &opts).unwrap_err()) {
        MeshDefect::NonManifoldEdge { first, second, .. } => assert_eq!((first.index, second.index), (5, 12)),
        d => panic!("{d}"),
    }
}

#[test]
fn back_to_back_walls_are_dropped_gluing_two_boxes() {
    // Two unit cubes side by side along x, each closed, sharing the wall x = 1 (its two
    // triangles appear once per cube, opposite ways).
    let (v0, f0) = cube();
    let mut v = v0.clone();
    v.extend(v0.iter().map(|p| *p + DVec3::X));
    let mut f = f0.clone();
    f.extend(f0.iter().map(|t| t.iter().map(|&i| i + 8).collect::<Vec<u32>>()));
    let m = TriMesh::new(&v, &f).unwrap();
    assert!((m.volume() - 2.0).abs() < 1e-12, "{}", m.volume());
    assert!((m.centroid() - DVec3::new(1.0, 0.5, 0.5)).length() < 1e-12);
    assert_eq!(m.triangles().len(), 20);
    assert_eq!(m.repair().welded_vertices, 4);
    // Cube 1's wall x = 1 is its face quad [1, 3, 7, 5] (triangles 10, 11); cube 2's wall
    // x = 1 is the quad [0, 4, 6, 2] of the second cube (triangles 12 + 8, 12 + 9).
    let mut opposite = m.repair().dropped_opposite.clone();
    opposite.sort_unstable();
    assert_eq!(opposite, vec![10, 11, 20, 21]);
    assert!(m.components().len() == 1);
}

#[test]
fn non_manifold_edge_is_named_after_repair() {
    // Two cubes sharing only the edge x = 1, y = 1 (four faces meet there).
    let (v0, f0) = cube();
    let mut v = v0.clone();
    v.extend(v0.iter().map(|p| *p + DVec3::new(1.0, 1.0, 0.0)));
    let mut f = f0.clone();
    f.extend(f0.iter().map(|t| t.iter().map(|&i| i + 8).collect::<Vec<u32>>()));
    let err = TriMesh::new(&v, &f).unwrap_err();
    let text = err.to_string();
    match defect(err) {
        MeshDefect::NonManifoldEdge {
            a,
            b,
            faces,
            first,
            second,
        } => {
            // The shared edge runs between input vertices 3 = (1,1,0) and 7 = (1,1,1); the
            // second cube's copies (8 and 12) were welded to them.
            let mut ends = [a.index, b.index];
            ends.sort_unstable();
            assert_eq!(ends, [3, 7], "{text}");
            assert_eq!(faces, 4, "{text}");
            assert!(first.index < second.index && second.index >= 12, "{text}");
        }
        d => panic!("{d}"),
    }
}

#[test]
fn open_edge_is_named_in_file_numbering() {
    let (v, mut f) = cube();
    f.remove(7); // face 7 of the clean cube: [2, 7, 3]
    let mut text = String::new();
    for p in &v {
        text.push_str(&format!("v {} {} {}\n", p.x, p.y, p.z));
    }
    for face in &f {
        text.push_str(&format!("f {} {} {}\n", face[0] + 1, face[1] + 1, face[2] + 1));
    }
    let dir = std::env::temp_dir().join(format!("polycd_repair_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("open.obj");
    std::fs::write(&path, text).unwrap();
    let err = TriMesh::read(&path).unwrap_err();
    let msg = err.to_string();
    match defect(err) {
        MeshDefect::OpenEdge { a, b, face, faces } => {
            // Without the file's face 7 ([2, 7, 3] 0-based), the first face with an edge
            // missing its twin is face 0, [0, 2, 3]: its edge 2 → 3, OBJ vertices 3 → 4,
            // OBJ face 1 on line 9 (after the 8 vertex lines).
            assert_eq!(a.numbering, MeshNumbering::Obj);
            assert_eq!((a.index, b.index), (3, 4), "{msg}");
            assert_eq!((face.index, face.line), (1, Some(9)), "{msg}");
            assert_eq!(faces, 1);
        }
        d => panic!("{d}"),
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn obj_with_split_corners_loads_and_reports_file_faces() {
    let (v, f) = cube_soup();
    let mut text = String::new();
    for p in &v {
        text.push_str(&format!("v {} {} {}\n", p.x, p.y, p.z));
    }
    for face in &f {
        text.push_str(&format!("f {} {} {}\n", face[0] + 1, face[1] + 1, face[2] + 1));
    }
    // A repeated last face.
    text.push_str("f 1 2 3\n");
    let dir = std::env::temp_dir().join(format!("polycd_repair_obj_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("soup.obj");
    std::fs::write(&path, text).unwrap();
    let m = TriMesh::read(&path).unwrap();
    same_solid(&m);
    assert_eq!(m.repair().welded_vertices, 28);
    assert_eq!(m.repair().dropped_duplicates, vec![12]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn tolerance_weld_is_opt_in_and_bounded() {
    let (mut v, f) = cube_soup();
    // Every copy of a corner moved by a different tiny amount (well within the tolerance
    // of a mesh of scale √3/2).
    let scale = 0.5 * 3f64.sqrt();
    for (i, p) in v.iter_mut().enumerate() {
        *p += DVec3::new(1.0, -1.0, 0.5) * (0.1 * MESH_WELD_REL * scale * (i % 3) as f64 / 3.0);
    }
    assert!(matches!(
        defect(TriMesh::new(&v, &f).unwrap_err()),
        MeshDefect::OpenEdge { .. }
    ));
    let opts = MeshOptions::default().with_weld_tolerance(true);
    let m = TriMesh::with_options(&v, &f, &opts).unwrap();
    assert_eq!(m.triangles().len(), 12);
    assert!((m.volume() - 1.0).abs() < 1e-5);
    let r = m.repair();
    assert_eq!(r.welded_vertices, 28);
    assert!(r.max_weld_distance > 0.0 && r.max_weld_distance <= MESH_WELD_REL * scale * 1.000001);
    // Corners farther apart than the tolerance stay apart (the mesh stays open).
    let (mut v, f) = cube_soup();
    v[1] += DVec3::X * (3.0 * MESH_WELD_REL * scale);
    assert!(TriMesh::with_options(&v, &f, &opts).is_err());
}
