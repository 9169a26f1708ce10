//! Issue 29, item 2: the orientation of each closed component of a mesh by its nesting, and
//! mesh errors that name the first defect in file order, in the file's own numbering.
//!
//! Oracles: analytic times of contact of boxes translating along an axis (the exact value
//! within `threshold / closing speed`, never after it), the same mesh wound correctly, and
//! volumes of nested boxes by hand.

use polycd::ccd::mesh::{self, MeshToiCache};
use polycd::ccd::{CcdOptions, RigidMotion};
use polycd::error::{MeshDefect, MeshNumbering};
use polycd::mesh::TriMesh;
use polycd::tolerance::CCD_DISTANCE_REL;
use polycd::{DVec3, PolycdError, Pose};

mod common;
use common::tri::box_mesh;

/// Boxes `(lo, size, reversed)` in one vertex/face list, in order.
fn boxes(parts: &[(DVec3, DVec3, bool)]) -> (Vec<DVec3>, Vec<Vec<u32>>) {
    let (mut v, mut f) = (Vec::new(), Vec::new());
    for &(lo, size, rev) in parts {
        let (bv, bf) = box_mesh(lo, size);
        let base = v.len() as u32;
        v.extend(bv);
        for face in bf {
            let mut face: Vec<u32> = face.into_iter().map(|i| i + base).collect();
            if rev {
                face.reverse();
            }
            f.push(face);
        }
    }
    (v, f)
}

/// OBJ text of a vertex/face list (1-based, vertices in order).
fn obj_text(v: &[DVec3], f: &[Vec<u32>]) -> String {
    let mut s = String::new();
    for p in v {
        s.push_str(&format!("v {} {} {}\n", p.x, p.y, p.z));
    }
    for face in f {
        let idx: Vec<String> = face.iter().map(|i| (i + 1).to_string()).collect();
        s.push_str(&format!("f {}\n", idx.join(" ")));
    }
    s
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("polycd-mesh-orient-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Time of contact of the unit cube (centred, as the CLI's `cube`) translating from `from`
/// to `to` against the fixed mesh `b`.
fn toc_cube(b: &TriMesh, from: DVec3, to: DVec3) -> Option<(f64, f64)> {
    let (v, f) = box_mesh(DVec3::splat(-0.5), DVec3::ONE);
    let cube = TriMesh::new(&v, &f).unwrap();
    let m = RigidMotion::new(
        Pose::from_translation(from),
        Pose::from_translation(to),
        cube.centroid(),
    )
    .unwrap();
    let fixed = RigidMotion::new(Pose::IDENTITY, Pose::IDENTITY, b.centroid()).unwrap();
    let opts = CcdOptions::default();
    let threshold = CCD_DISTANCE_REL * (cube.scale() + b.scale());
    mesh::time_of_contact(&cube, &m, b, &fixed, &opts, &mut MeshToiCache::default())
        .unwrap()
        .map(|r| (r.t, threshold))
}

/// The reproducer: two disjoint cubes in one OBJ file, the first (unit, at the
/// origin) with every triangle reversed, the second of side 2 (total signed volume +7, so
/// orienting the whole mesh by its volume saw nothing wrong). The cube moving from x = 2 to
/// x = 8 meets the second cube's face x = 4 when its own face x + 0.5 reaches it: t = 0.25.
/// Moving from x = 2 to x = −4 it meets the first cube's face x = 1 at t = 1/12 (it starts
/// 0.5 away).
#[test]
fn inside_out_cube_in_a_two_cube_file_is_reoriented() {
    let parts = |rev| {
        boxes(&[
            (DVec3::ZERO, DVec3::ONE, rev),
            (DVec3::new(4.0, -0.5, -0.5), DVec3::splat(2.0), false),
        ])
    };
    let dir = temp_dir("two-cubes");
    let (vb, fb) = parts(true);
    let (vg, fg) = parts(false);
    std::fs::write(dir.join("bad.obj"), obj_text(&vb, &fb)).unwrap();
    std::fs::write(dir.join("good.obj"), obj_text(&vg, &fg)).unwrap();
    let bad = TriMesh::read(dir.join("bad.obj")).unwrap();
    let good = TriMesh::read(dir.join("good.obj")).unwrap();
    assert_eq!(bad.reoriented_components().collect::<Vec<_>>(), vec![0]);
    assert_eq!(good.reoriented_components().count(), 0);
    assert_eq!(bad.components().len(), 2);
    assert!(bad.components().iter().all(|c| c.depth == 0));
    // After re-orientation the two meshes are the same solid: same triangles, volume 1 + 8.
    assert_eq!(bad.triangles().len(), good.triangles().len());
    assert!((bad.volume() - 9.0).abs() < 1e-12, "{}", bad.volume());
    assert!((good.volume() - 9.0).abs() < 1e-12);
    for (from, to, exact) in [
        (DVec3::new(2.0, 0.5, 0.5), DVec3::new(8.0, 0.5, 0.5), 0.25),
        (DVec3::new(2.0, 0.5, 0.5), DVec3::new(-4.0, 0.5, 0.5), 1.0 / 12.0),
    ] {
        let (tb, thr) = toc_cube(&bad, from, to).expect("contact");
        let (tg, _) = toc_cube(&good, from, to).expect("contact");
        // Closing speed 6: the threshold in time is threshold / 6.
        let dt = thr / 6.0;
        assert!(
            tb <= exact && exact - tb <= dt,
            "inside-out file: t = {tb}, exact {exact}"
        );
        assert!(tg <= exact && exact - tg <= dt, "correct file: t = {tg}, exact {exact}");
        assert!((tb - tg).abs() <= dt, "{tb} vs {tg}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A hollow box: outer box [0, 4]³ facing out, cavity [1, 3]³ facing in. It keeps its cavity
/// (nothing re-oriented, volume 64 − 8); with either shell or both wound the other way, the
/// wrong ones are re-oriented to the same solid. A small cube inside the cavity is not in
/// contact at t = 0 and meets the cavity wall at the analytic time.
#[test]
fn hollow_box_keeps_its_cavity_and_a_wrong_cavity_is_reoriented() {
    for (outer_reversed, cavity_reversed) in [(false, true), (false, false), (true, true), (true, false)] {
        let (v, f) = boxes(&[
            (DVec3::ZERO, DVec3::splat(4.0), outer_reversed),
            (DVec3::ONE, DVec3::splat(2.0), cavity_reversed),
        ]);
        let m = TriMesh::new(&v, &f).unwrap();
        let depths: Vec<u32> = m.components().iter().map(|c| c.depth).collect();
        assert_eq!(depths, vec![0, 1]);
        let re: Vec<usize> = m.reoriented_components().collect();
        let mut expect = Vec::new();
        if outer_reversed {
            expect.push(0);
        }
        if !cavity_reversed {
            expect.push(6);
        }
        assert_eq!(
            re, expect,
            "outer reversed {outer_reversed}, cavity reversed {cavity_reversed}"
        );
        assert!((m.volume() - 56.0).abs() < 1e-12, "{}", m.volume());
        assert!(!m.contains_point(DVec3::splat(2.0)), "the cavity is empty");
        assert!(m.contains_point(DVec3::splat(0.5)), "the wall is solid");
        // A cube of side 0.5 centred at the cavity's centre, moving +x by 2: its face x + 0.25
        // meets the cavity wall x = 3 when 2 + 0.25 + 2t = 3: t = 0.375.
        let (cv, cf) = box_mesh(DVec3::splat(-0.25), DVec3::splat(0.5));
        let small = TriMesh::new(&cv, &cf).unwrap();
        let mo = RigidMotion::new(
            Pose::from_translation(DVec3::splat(2.0)),
            Pose::from_translation(DVec3::new(4.0, 2.0, 2.0)),
            small.centroid(),
        )
        .unwrap();
        let fixed = RigidMotion::new(Pose::IDENTITY, Pose::IDENTITY, m.centroid()).unwrap();
        let r = mesh::time_of_contact(
            &small,
            &mo,
            &m,
            &fixed,
            &CcdOptions::default(),
            &mut MeshToiCache::default(),
        )
        .unwrap()
        .expect("contact");
        let dt = CCD_DISTANCE_REL * (small.scale() + m.scale()) / 2.0;
        assert!(r.t <= 0.375 && 0.375 - r.t <= dt, "t = {}", r.t);
    }
}

/// Box [0, 8]³ with cavity [1, 7]³ holding a solid box [3, 5]³ (depth 2). Every winding of
/// the three shells gives the same solid: outer and inner solid facing out, the cavity in.
#[test]
fn solid_inside_a_cavity_faces_outward() {
    for mask in 0..8u32 {
        let (v, f) = boxes(&[
            (DVec3::ZERO, DVec3::splat(8.0), mask & 1 != 0),
            (DVec3::ONE, DVec3::splat(6.0), mask & 2 == 0),
            (DVec3::splat(3.0), DVec3::splat(2.0), mask & 4 != 0),
        ]);
        let m = TriMesh::new(&v, &f).unwrap();
        let depths: Vec<u32> = m.components().iter().map(|c| c.depth).collect();
        assert_eq!(depths, vec![0, 1, 2]);
        let expect: Vec<usize> = (0..3)
            .filter(|k| mask & (1 << k) != 0)
            .map(|k| 6 * k as usize)
            .collect();
        assert_eq!(m.reoriented_components().collect::<Vec<_>>(), expect, "mask {mask}");
        assert!((m.volume() - (512.0 - 216.0 + 8.0)).abs() < 1e-9, "{}", m.volume());
        assert!(m.contains_point(DVec3::splat(4.0)), "the inner solid");
        assert!(!m.contains_point(DVec3::splat(2.0)), "the cavity");
        assert!(m.contains_point(DVec3::splat(0.5)), "the outer wall");
        // Every triangle faces away from the common centre (4, 4, 4) on the outer box and
        // the inner solid (vertices 0–7 and 16–23), towards it on the cavity (8–15).
        for t in m.triangles() {
            let [a, b, c] = t.map(|i| v[i as usize]);
            let out = (b - a).cross(c - a).dot((a + b + c) / 3.0 - DVec3::splat(4.0));
            let cavity = (8..16).contains(&t[0]);
            assert!(if cavity { out < 0.0 } else { out > 0.0 }, "mask {mask}: {t:?}");
        }
    }
}

/// A single component keeps today's answers exactly (same triangles, volume and centroid as
/// the reversed input's, i.e. the old whole-mesh rule).
#[test]
fn one_component_is_oriented_as_before() {
    let (v, f) = box_mesh(DVec3::new(0.1, 0.2, 0.3), DVec3::new(1.0, 2.0, 3.0));
    let rev: Vec<Vec<u32>> = f.iter().map(|face| face.iter().rev().copied().collect()).collect();
    let a = TriMesh::new(&v, &f).unwrap();
    let b = TriMesh::new(&v, &rev).unwrap();
    assert_eq!(a.reoriented_components().count(), 0);
    assert_eq!(b.reoriented_components().collect::<Vec<_>>(), vec![0]);
    assert_eq!(a.volume().to_bits(), b.volume().to_bits());
    assert!((a.volume() - 6.0).abs() < 1e-12);
    assert!((a.centroid() - DVec3::new(0.6, 1.2, 1.8)).length() < 1e-12);
}

/// Two shells that cross are refused with a typed error naming both components.
#[test]
fn crossing_components_are_refused() {
    let (v, f) = boxes(&[
        (DVec3::ZERO, DVec3::splat(2.0), false),
        (DVec3::ONE, DVec3::splat(2.0), false),
    ]);
    match TriMesh::new(&v, &f) {
        Err(PolycdError::InvalidMesh(d)) => match *d {
            MeshDefect::IntersectingComponents { first, second } => assert_ne!(first, second),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

/// An open box (the face x = 1 dropped), its vertices listed in reverse order so the file's
/// numbering differs from the order of first use.
fn open_box() -> (Vec<DVec3>, Vec<Vec<u32>>) {
    let (v, f) = box_mesh(DVec3::ZERO, DVec3::ONE);
    let v: Vec<DVec3> = v.into_iter().rev().collect();
    let f: Vec<Vec<u32>> = f
        .into_iter()
        .filter(|face| *face != vec![1, 3, 7, 5])
        .map(|face| face.into_iter().map(|i| 7 - i).collect())
        .collect();
    (v, f)
}

fn mesh_file_error(path: &std::path::Path) -> (MeshDefect, String) {
    match TriMesh::read(path) {
        Err(e @ PolycdError::MeshFile { .. }) => {
            let text = e.to_string();
            let PolycdError::MeshFile { defect, .. } = e else {
                unreachable!()
            };
            (*defect, text)
        }
        other => panic!("{other:?}"),
    }
}

/// The same message on every read (the map of edges is iterated in a new order each time).
fn same_every_time(path: &std::path::Path) -> String {
    let (_, first) = mesh_file_error(path);
    for _ in 0..20 {
        assert_eq!(mesh_file_error(path).1, first);
    }
    first
}

#[test]
fn open_edge_error_names_obj_vertices_one_based() {
    let dir = temp_dir("open-obj");
    let (v, f) = open_box();
    let path = dir.join("open.obj");
    std::fs::write(&path, obj_text(&v, &f)).unwrap();
    let text = same_every_time(&path);
    // The dropped face x = 1 held file vertices 1, 3, 5, 7. The first face (line 9:
    // `f 8 6 5 7`, the face z = 0) is split into (8, 6, 5) and (8, 5, 7); the first edge
    // without a face on its other side is 5 → 7 (x = 1, z = 0), in its second triangle.
    let (defect, _) = mesh_file_error(&path);
    match defect {
        MeshDefect::OpenEdge { a, b, faces, face } => {
            assert_eq!((a.numbering, a.index, b.index), (MeshNumbering::Obj, 5, 7), "{text}");
            assert_eq!(faces, 1);
            assert_eq!((face.index, face.line), (1, Some(9)));
        }
        other => panic!("{other:?}"),
    }
    assert!(
        text.ends_with(
            "open.obj: invalid mesh: edge between OBJ vertices 5 and 7 (1-based) is open: used by 1 face (OBJ face 1 (1-based) on line 9), with no face on its other side: the mesh is not closed"
        ),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn open_edge_error_names_off_vertices_zero_based() {
    let dir = temp_dir("open-off");
    let (v, f) = open_box();
    let mut s = format!("OFF\n{} {} 0\n", v.len(), f.len());
    for p in &v {
        s.push_str(&format!("{} {} {}\n", p.x, p.y, p.z));
    }
    for face in &f {
        let idx: Vec<String> = face.iter().map(|i| i.to_string()).collect();
        s.push_str(&format!("{} {}\n", face.len(), idx.join(" ")));
    }
    let path = dir.join("open.off");
    std::fs::write(&path, s).unwrap();
    let text = same_every_time(&path);
    assert!(
        text.ends_with(
            "open.off: invalid mesh: edge between OFF vertices 4 and 6 (0-based) is open: used by 1 face (OFF face 0 (0-based) on line 11), with no face on its other side: the mesh is not closed"
        ),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn open_edge_error_names_stl_triangles_one_based() {
    let dir = temp_dir("open-stl");
    let (v, f) = open_box();
    let mut s = String::from("solid open\n");
    for face in &f {
        for k in 1..face.len() - 1 {
            s.push_str("facet normal 0 0 0\nouter loop\n");
            for &i in &[face[0], face[k], face[k + 1]] {
                let p = v[i as usize];
                s.push_str(&format!("vertex {} {} {}\n", p.x, p.y, p.z));
            }
            s.push_str("endloop\nendfacet\n");
        }
    }
    s.push_str("endsolid open\n");
    let path = dir.join("open.stl");
    std::fs::write(&path, s).unwrap();
    let text = same_every_time(&path);
    assert!(
        text.ends_with(
            "open.stl: invalid mesh: edge between STL vertices (1, 1, 0) and (1, 0, 0) is open: used by 1 face (STL triangle 2 (1-based)), with no face on its other side: the mesh is not closed"
        ),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Non-manifold edges and vertices name the first place in file order too, in file numbers.
#[test]
fn non_manifold_errors_use_file_numbering() {
    let dir = temp_dir("nonmanifold");
    // One face of a box wound the wrong way (line 10: the second face).
    let (v, mut f) = box_mesh(DVec3::ZERO, DVec3::ONE);
    f[1].reverse();
    let path = dir.join("flipped.obj");
    std::fs::write(&path, obj_text(&v, &f)).unwrap();
    let text = same_every_time(&path);
    assert!(text.contains("OBJ vertices") && text.contains("(1-based)"), "{text}");
    assert!(text.contains("on line 10"), "{text}");
    // Two boxes sharing one corner vertex (file vertex 8 of the first is vertex 1 of the second).
    let (v1, f1) = box_mesh(DVec3::ZERO, DVec3::ONE);
    let (v2, f2) = box_mesh(DVec3::ONE, DVec3::ONE);
    let mut v = v1;
    v.extend_from_slice(&v2[1..]);
    let mut f = f1;
    for face in f2 {
        f.push(face.into_iter().map(|i| if i == 0 { 7 } else { i + 7 }).collect());
    }
    let path = dir.join("corner.obj");
    std::fs::write(&path, obj_text(&v, &f)).unwrap();
    let text = same_every_time(&path);
    assert!(text.contains("OBJ vertex 8 (1-based) is non-manifold"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The numbered reader gives what `read_mesh` gives (vertices in order of first use for OBJ,
/// file order for OFF), so meshes read by `TriMesh::read` keep their answers.
#[test]
fn numbered_reader_matches_read_mesh() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
        if !["obj", "off", "stl"].contains(&ext) {
            continue;
        }
        if let Ok((v, f)) = polycd::io::read_mesh(&p) {
            let m = polycd::io::read_mesh_numbered(&p).unwrap();
            assert_eq!((m.vertices, m.faces), (v, f), "{}", p.display());
            n += 1;
        }
    }
    assert!(n >= 3, "{n}");
}
