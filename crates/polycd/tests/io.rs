//! File input and output: round trips through OBJ, OFF and STL, the small files in
//! `tests/data/`, and every kind of broken file (each must give a typed `PolycdError::File`
//! naming the file and the problem, never a panic).

use polycd::error::ConvexityDefect;
use polycd::io::{self, MeshFormat};
use polycd::{shapes, ConvexPolyhedron, DVec3, PolycdError};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// A fresh scratch directory for this test process.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("polycd-io-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Asserts a file error whose path ends with `file` and whose message contains every needle.
fn assert_file_error<T: std::fmt::Debug>(r: Result<T, PolycdError>, file: &str, needles: &[&str]) {
    match r {
        Err(PolycdError::File { path, message }) => {
            assert!(path.ends_with(file), "path {path:?} should name {file}");
            for n in needles {
                assert!(
                    message.to_lowercase().contains(&n.to_lowercase()),
                    "message {message:?} should mention {n:?}"
                );
            }
        }
        other => panic!("expected a file error for {file}, got {other:?}"),
    }
}

fn same_shape(a: &ConvexPolyhedron, b: &ConvexPolyhedron, tol: f64) {
    assert_eq!(a.counts(), b.counts());
    let vt = tol.max(1e-13); // the volume sum depends on the vertex order
    assert!(
        (a.volume() - b.volume()).abs() <= vt * a.volume(),
        "{} vs {}",
        a.volume(),
        b.volume()
    );
    for p in b.vertices() {
        assert!(a.vertices().iter().any(|q| (*p - *q).length() <= tol * a.scale()));
    }
}

#[test]
fn obj_and_off_round_trips_are_bit_exact() {
    let shapes = [
        ("cube", shapes::cuboid(1.0, 2.0, 3.0).unwrap()),
        ("icosphere", shapes::icosphere(2, 1.7).unwrap()),
        ("prism", shapes::prism(12, 3.0, 0.25).unwrap()),
        ("ellipsoid", shapes::ellipsoid(300, 2.0, 1.0, 0.5, 7).unwrap()),
    ];
    for (name, s) in &shapes {
        for ext in ["obj", "OFF"] {
            let path = scratch(&format!("{name}.{ext}"));
            io::write_polyhedron(&path, s).unwrap();
            let (verts, faces) = io::read_mesh(&path).unwrap();
            assert_eq!(verts.len(), s.vertices().len(), "{name}.{ext}");
            assert_eq!(faces.len(), s.faces().len(), "{name}.{ext}");
            // Rebuild from the face lists: the boundary representation survives exactly.
            let back = ConvexPolyhedron::from_faces(&verts, &faces).unwrap();
            same_shape(s, &back, 0.0);
            // Bit-identical coordinates (OBJ meshes come back in first-use order).
            let key = |v: &[DVec3]| {
                let mut k: Vec<[u64; 3]> = v.iter().map(|p| p.to_array().map(f64::to_bits)).collect();
                k.sort();
                k
            };
            assert_eq!(
                key(back.vertices()),
                key(s.vertices()),
                "{name}.{ext}: vertices bit-identical"
            );
            let hull = io::read_polyhedron(&path).unwrap();
            same_shape(s, &hull, 0.0);
            assert_eq!(io::read_points(&path).unwrap(), s.vertices());
        }
    }
}

#[test]
fn stl_round_trip_within_f32() {
    for (name, s) in [
        ("cube", shapes::cuboid(1.0, 1.0, 1.0).unwrap()),
        ("icosphere", shapes::icosphere(2, 1.0).unwrap()),
    ] {
        let path = scratch(&format!("{name}.stl"));
        io::write_stl(&path, &s).unwrap();
        // Fans: a face of k vertices gives k − 2 triangles.
        let tris: usize = s.faces().iter().map(|f| f.len as usize - 2).sum();
        let len = std::fs::metadata(&path).unwrap().len() as usize;
        assert_eq!(len, 84 + 50 * tris);
        let (verts, faces) = io::read_mesh(&path).unwrap();
        assert_eq!(verts.len(), s.vertices().len());
        assert_eq!(faces.len(), tris);
        let back = io::read_polyhedron(&path).unwrap();
        same_shape(&s, &back, 1e-6);
    }
}

#[test]
fn data_files_read() {
    let cube = io::read_polyhedron(data("cube.obj")).unwrap();
    assert_eq!(cube.counts(), (8, 12, 6));
    assert!((cube.volume() - 1.0).abs() < 1e-15);
    let (v, f) = io::read_mesh(data("cube.obj")).unwrap();
    assert_eq!((v.len(), f.len()), (8, 6));
    let brep = ConvexPolyhedron::from_faces(&v, &f).unwrap();
    assert_eq!(brep.counts(), (8, 12, 6));

    let (v, f) = io::read_mesh(data("cube.off")).unwrap();
    assert_eq!((v.len(), f.len()), (8, 6));
    assert_eq!(ConvexPolyhedron::from_faces(&v, &f).unwrap().counts(), (8, 12, 6));

    let (v, f) = io::read_mesh(data("tetra.stl")).unwrap();
    assert_eq!((v.len(), f.len()), (4, 4));
    let t = io::read_polyhedron(data("tetra.stl")).unwrap();
    assert!((t.volume() - 1.0 / 6.0).abs() < 1e-15);

    let pts = io::read_points(data("points.xyz")).unwrap();
    assert_eq!(pts.len(), 7);
    assert_eq!(pts[1], DVec3::new(-1.0, 0.0, 0.0));
    assert_eq!(io::read_polyhedron(data("points.xyz")).unwrap().counts(), (6, 12, 8));
}

#[test]
fn extensions_are_case_insensitive_and_unknown_ones_rejected() {
    let s = shapes::tetrahedron(1.0).unwrap();
    for name in ["T.OBJ", "t.Off", "t.sTl"] {
        let path = scratch(name);
        io::write_polyhedron(&path, &s).unwrap();
        assert_eq!(io::read_polyhedron(&path).unwrap().counts(), (4, 6, 4), "{name}");
    }
    assert_eq!(MeshFormat::from_path(Path::new("a.Obj")).unwrap(), MeshFormat::Obj);
    assert_file_error(
        io::read_points("model.ply"),
        "model.ply",
        &["unknown extension", ".ply"],
    );
    assert_file_error(io::read_points("model"), "model", &["no extension"]);
    assert_file_error(
        io::write_polyhedron(scratch("x.dae"), &s),
        "x.dae",
        &["unknown extension"],
    );
    assert_file_error(io::read_mesh(data("points.xyz")), "points.xyz", &["no faces"]);
}

#[test]
fn missing_file_names_the_file() {
    assert_file_error(
        io::read_points(data("does_not_exist.obj")),
        "does_not_exist.obj",
        &["cannot read"],
    );
    let s = shapes::tetrahedron(1.0).unwrap();
    let bad = scratch("no/such/dir/t.obj");
    assert_file_error(io::write_obj(&bad, &s), "t.obj", &["cannot create"]);
}

#[test]
fn malformed_obj() {
    assert_file_error(
        io::read_points(data("bad_number.obj")),
        "bad_number.obj",
        &["line 3", "1.5.2", "not a number"],
    );
    assert_file_error(io::read_mesh(data("nan.obj")), "nan.obj", &["line 4", "not finite"]);
    assert_file_error(
        io::read_mesh(data("bad_index.obj")),
        "bad_index.obj",
        &["line 5", "index 7"],
    );
    assert_file_error(io::read_points(data("empty.obj")), "empty.obj", &["no vertices"]);
    for (text, needles) in [
        ("v 1 2\n", &["line 1", "2 coordinates"][..]),
        ("v 0 0 0\nv 1 0 0\nf 1 2\n", &["line 3", "at least 3"][..]),
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", &["line 4", "index 0"][..]),
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n", &["line 4", "'x'"][..]),
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -9\n", &["line 4", "-9"][..]),
        ("v 0 0 0\nv 1e400 0 0\n", &["line 2", "not finite"][..]),
        ("v 0 0 0\nv 1e200 0 0\n", &["line 2", "maximum"][..]),
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\n", &["no faces"][..]),
    ] {
        assert_file_error(
            io::mesh_from_bytes(text.as_bytes(), MeshFormat::Obj, "<text>"),
            "<text>",
            needles,
        );
    }
    // Relative indices and texture/normal indices are accepted.
    let (v, f) = io::parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf -3/1 -2/1 -1/1\n").unwrap();
    assert_eq!((v.len(), f.len()), (3, 1));
    // Invalid UTF-8 is a typed error.
    assert_file_error(
        io::mesh_from_bytes(b"v 0 0 0\n\xff\xfe", MeshFormat::Obj, "bin.obj"),
        "bin.obj",
        &["utf-8"],
    );
}

#[test]
fn malformed_off() {
    assert_file_error(
        io::read_mesh(data("truncated.off")),
        "truncated.off",
        &["truncated", "8 vertices", "after 5"],
    );
    assert_file_error(
        io::read_mesh(data("wrong_counts.off")),
        "wrong_counts.off",
        &["line 10", "index 9", "out of range"],
    );
    assert_file_error(
        io::read_mesh(data("short_face.off")),
        "short_face.off",
        &["line 8", "only 2"],
    );
    assert_file_error(io::read_mesh(data("inf.off")), "inf.off", &["line 4", "not finite"]);
    assert_file_error(io::read_mesh(data("not_off.off")), "not_off.off", &["line 1", "'PLY'"]);
    assert_file_error(io::read_mesh(data("empty.off")), "empty.off", &["empty"]);
    for (text, needles) in [
        ("OFF\n", &["ends after the header"][..]),
        ("OFF\n4\n", &["line 2", "counts"][..]),
        ("OFF\n-4 1 0\n", &["line 2", "vertex count"][..]),
        ("OFF 3 1 0\n0 0 0\n1 0 0\n", &["truncated", "3 vertices", "after 2"][..]),
        (
            "OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n",
            &["truncated", "2 faces", "after 1"][..],
        ),
        (
            "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n2 0 1\n",
            &["line 6", "at least 3"][..],
        ),
        (
            "OFF\n3 1 0\n0 0 0\n1 0\n0 1 0\n3 0 1 2\n",
            &["line 4", "2 coordinates"][..],
        ),
        ("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\nx 0 1 2\n", &["line 6", "'x'"][..]),
        ("4OFF\n3 1 0\n", &["not supported"][..]),
        // A huge claimed count with no data must not allocate or panic.
        ("OFF\n18446744073709551615 1 0\n", &["18446744073709551615"][..]),
        ("OFF\n99999999999999999999999 1 0\n", &["vertex count"][..]),
    ] {
        assert_file_error(io::parse_off(text), "<text>", needles);
    }
    // Headerless files, counts on the header line and comments are accepted.
    let (v, f) = io::parse_off("3 1 0 # counts\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n").unwrap();
    assert_eq!((v.len(), f.len()), (3, 1));
    let (v, f) = io::parse_off("COFF 3 1 0\n0 0 0 1 1 1 1\n1 0 0 1 1 1 1\n0 1 0 1 1 1 1\n3 0 1 2 9 9 9\n").unwrap();
    assert_eq!((v.len(), f.len()), (3, 1));
}

#[test]
fn malformed_stl() {
    assert_file_error(io::read_mesh(data("empty.stl")), "empty.stl", &["empty"]);
    assert_file_error(
        io::read_mesh(data("truncated_ascii.stl")),
        "truncated_ascii.stl",
        &["malformed ascii stl"],
    );
    // Binary: header and count but missing triangles.
    let good = io::stl_bytes(&shapes::cuboid(1.0, 1.0, 1.0).unwrap());
    assert_eq!(good.len(), 84 + 50 * 12);
    for cut in [0usize, 10, 83, 84, 100, 84 + 50 * 11, good.len() - 1] {
        let r = io::parse_stl(&good[..cut]);
        assert!(matches!(r, Err(PolycdError::File { .. })), "cut at {cut}: {r:?}");
    }
    assert_file_error(io::parse_stl(&good[..100]), "<bytes>", &["truncated", "12 triangles"]);
    assert_file_error(io::parse_stl(&good[..50]), "<bytes>", &["truncated", "84"]);
    // A huge claimed count.
    let mut huge = good.clone();
    huge[80..84].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_file_error(io::parse_stl(&huge), "<bytes>", &["truncated"]);
    // NaN coordinates in a binary file.
    let mut nan = good.clone();
    nan[84 + 12..84 + 16].copy_from_slice(&f32::NAN.to_le_bytes());
    assert_file_error(io::parse_stl(&nan), "<bytes>", &["non-finite"]);
    // Binary files whose header starts with "solid" are still binary when the size fits.
    let mut solid = good.clone();
    solid[..5].copy_from_slice(b"solid");
    assert_eq!(io::parse_stl(&solid).unwrap().1.len(), 12);
    // ASCII with a bad number.
    let text = "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 zz\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid x\n";
    assert!(matches!(io::parse_stl(text.as_bytes()), Err(PolycdError::File { .. })));
}

#[test]
fn point_lists() {
    let pts = io::parse_points_text("# header\n1 2 3\n4,5,6\n 7 , 8 ,9 # trailing\n\n").unwrap();
    assert_eq!(
        pts,
        vec![
            DVec3::new(1.0, 2.0, 3.0),
            DVec3::new(4.0, 5.0, 6.0),
            DVec3::new(7.0, 8.0, 9.0)
        ]
    );
    assert_file_error(io::parse_points_text(""), "<text>", &["empty"]);
    assert_file_error(io::parse_points_text("# only comments\n"), "<text>", &["empty"]);
    assert_file_error(io::parse_points_text("1 2 3\n1 2\n"), "<text>", &["line 2", "found 2"]);
    assert_file_error(
        io::parse_points_text("1 2 3\n1 2 3 4\n"),
        "<text>",
        &["line 2", "found 4"],
    );
    assert_file_error(
        io::parse_points_text("1 2 3\n1 NaN 3\n"),
        "<text>",
        &["line 2", "not finite"],
    );
    assert_file_error(
        io::parse_points_text("1 2 3\n1 -inf 3\n"),
        "<text>",
        &["line 2", "not finite"],
    );
    assert_file_error(
        io::parse_points_text("1 2 3\n1 two 3\n"),
        "<text>",
        &["line 2", "'two'"],
    );
}

#[test]
fn degenerate_point_files_give_flat_shapes() {
    // Issue 22: flat point sets are points, segments and polygons, from files too.
    assert_eq!(io::read_polyhedron(data("three.xyz")).unwrap().dimension(), 2);
    assert_eq!(io::read_polyhedron(data("coplanar.xyz")).unwrap().dimension(), 2);
    assert_eq!(io::read_polyhedron(data("collinear.xyz")).unwrap().dimension(), 1);
    // A non-convex face list is rejected by the boundary-representation constructor.
    let (v, f) = io::read_mesh(data("nonconvex.off")).unwrap();
    assert!(matches!(
        ConvexPolyhedron::from_faces(&v, &f),
        Err(PolycdError::InvalidBoundary(_))
    ));
    // ... while its hull is fine (the dented vertex is dropped).
    assert_eq!(io::read_polyhedron(data("nonconvex.off")).unwrap().counts(), (5, 8, 5));
}

#[test]
fn arbitrary_bytes_never_panic() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
    let seeds: Vec<Vec<u8>> = vec![
        std::fs::read(data("cube.obj")).unwrap(),
        std::fs::read(data("cube.off")).unwrap(),
        std::fs::read(data("tetra.stl")).unwrap(),
        io::stl_bytes(&shapes::tetrahedron(1.0).unwrap()),
    ];
    for _ in 0..3000 {
        let mut b = seeds[rng.random_range(0..seeds.len())].clone();
        for _ in 0..rng.random_range(1..6) {
            match rng.random_range(0..3) {
                0 if !b.is_empty() => {
                    let i = rng.random_range(0..b.len());
                    b[i] = rng.random();
                }
                1 if !b.is_empty() => {
                    let i = rng.random_range(0..b.len());
                    b.truncate(i);
                }
                _ => {
                    let i = rng.random_range(0..=b.len());
                    b.insert(i, *b"0123456789 -.\nnaf/#e"[rng.random_range(0..20)..].first().unwrap());
                }
            }
        }
        for fmt in [MeshFormat::Obj, MeshFormat::Off, MeshFormat::Stl, MeshFormat::Points] {
            if let Ok(pts) = io::points_from_bytes(&b, fmt, "fuzz") {
                assert!(pts.iter().all(|p| p.is_finite()));
                let _ = ConvexPolyhedron::from_points(&pts);
            }
            if let Ok((v, f)) = io::mesh_from_bytes(&b, fmt, "fuzz") {
                assert!(f.iter().flatten().all(|&i| (i as usize) < v.len()));
                let _ = ConvexPolyhedron::from_faces(&v, &f);
            }
        }
    }
}

/// Issue 29 item 5: a mesh file whose faces bound a non-convex solid was silently replaced by
/// its hull (the L-shaped prism of volume 3 became a hull of volume 3.5, "valid").
/// `read_convex_polyhedron` refuses it, naming the first face in file order off the hull and how
/// far inside the hull it lies; `read_polyhedron` still gives the hull on request.
#[test]
fn non_convex_files_are_refused_naming_the_face() {
    match io::read_convex_polyhedron(data("L.obj")) {
        Err(PolycdError::NotConvex { path, defect }) => {
            assert!(path.ends_with("L.obj"), "{path}");
            // Face 5 in file order is the inner side y = 1 from (2,1) to (1,1): it lies 1 inside
            // the hull's supporting planes y = 2 and y = 0 (the first, its outward side, named).
            match defect {
                ConvexityDefect::OffHull { face: 5, normal, gap } => {
                    let n = DVec3::from_array(normal);
                    assert!((n - DVec3::Y).length() < 1e-14, "{n}");
                    assert!((gap - 1.0).abs() < 1e-14, "{gap}");
                }
                other => panic!("expected face 5 off the hull, got {other:?}"),
            }
        }
        other => panic!("expected NotConvex, got {other:?}"),
    }
    let text = io::read_convex_polyhedron(data("L.obj")).unwrap_err().to_string();
    assert!(text.contains("face 5") && text.contains("not convex"), "{text}");
    let hull = io::read_polyhedron(data("L.obj")).unwrap();
    assert!((hull.volume() - 3.5).abs() < 1e-12);
    // The dented octahedron: its first face (1,0,0), (0,1,0), (0,0,-0.5) has the plane
    // x + y - 2z = 1; the hull's supporting plane with normal (1,1,-2)/√6 passes through
    // (0,0,-1) at x + y - 2z = 2, so the face lies 1/√6 inside it (the other side: 2/√6).
    match io::read_convex_polyhedron(data("nonconvex.off")) {
        Err(PolycdError::NotConvex {
            defect: ConvexityDefect::OffHull { face: 1, normal, gap },
            ..
        }) => {
            let n = DVec3::from_array(normal);
            assert!((n - DVec3::new(1.0, 1.0, -2.0) / 6f64.sqrt()).length() < 1e-14, "{n}");
            assert!((gap - 1.0 / 6f64.sqrt()).abs() < 1e-14, "{gap}");
        }
        other => panic!("expected face 1 off the hull, got {other:?}"),
    }
}

/// Convex files keep loading, whatever their faces' split: quads (OBJ, OFF), triangles (OBJ,
/// binary STL written by fans), a face split around a centre vertex and an edge split at its
/// midpoint (the hull drops both extra points), point lists and a face-less OBJ; and the
/// answer is the hull itself.
#[test]
fn convex_files_are_accepted_however_their_faces_are_split() {
    let cube = shapes::cuboid(1.0, 1.0, 1.0).unwrap();
    let stl = scratch("cube-fans.stl");
    io::write_stl(&stl, &cube).unwrap();
    let ico = scratch("ico2.obj");
    io::write_obj(&ico, &shapes::icosphere(2, 1.0).unwrap()).unwrap();
    for (path, counts) in [
        (data("cube.obj"), (8, 12, 6)),
        (data("cube.off"), (8, 12, 6)),
        (data("cube_tri.obj"), (8, 12, 6)),
        (data("cube_split.off"), (8, 12, 6)),
        (stl, (8, 12, 6)),
        (data("tetra.stl"), (4, 6, 4)),
        (data("points.xyz"), (6, 12, 8)),
        (ico, (162, 480, 320)),
    ] {
        let p = io::read_convex_polyhedron(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(p.counts(), counts, "{}", path.display());
        let h = io::read_polyhedron(&path).unwrap();
        assert_eq!(p.volume(), h.volume(), "{}", path.display());
    }
    // Rotated and written with 17 significant digits: faces are planar only to rounding.
    let q = polycd::DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
    let pts: Vec<DVec3> = cube
        .vertices()
        .iter()
        .map(|&v| q * v * 1e-3 + DVec3::splat(1e3))
        .collect();
    let mut s = String::new();
    for p in &pts {
        s.push_str(&format!("v {:.17e} {:.17e} {:.17e}\n", p.x, p.y, p.z));
    }
    for f in 0..6u32 {
        s.push('f');
        for &v in cube.face_vertices(f) {
            s.push_str(&format!(" {}", v + 1));
        }
        s.push('\n');
    }
    let rot = scratch("rotated-cube.obj");
    std::fs::write(&rot, s).unwrap();
    io::read_convex_polyhedron(&rot).unwrap();
}

/// Faces on the hull that are not its boundary: an open box (a missing face), a repeated face,
/// a face wound against its neighbours, and an unused vertex outside the faces' solid (the
/// hull of all vertices is then larger than the solid).
#[test]
fn face_sets_that_are_not_the_hull_boundary_are_refused() {
    let cube = std::fs::read_to_string(data("cube.obj")).unwrap();
    let cases = [
        ("open.obj", cube.replace("f 4 1 5 8\n", ""), "edge"),
        ("repeated.obj", format!("{cube}f 4 1 5 8\n"), "edge"),
        ("flipped.obj", cube.replace("f 4 1 5 8", "f 8 5 1 4"), "edge"),
        ("outside.obj", format!("{cube}v 3 3 3\n"), "not on the boundary"),
    ];
    for (name, text, needle) in cases {
        let path = scratch(name);
        std::fs::write(&path, text).unwrap();
        match io::read_convex_polyhedron(&path) {
            Err(e @ PolycdError::NotConvex { .. }) => {
                assert!(e.to_string().contains(needle), "{name}: {e}")
            }
            other => panic!("{name}: expected NotConvex, got {other:?}"),
        }
    }
    // An unused vertex inside is harmless.
    let path = scratch("inside.obj");
    std::fs::write(&path, format!("{cube}v 0.5 0.5 0.5\n")).unwrap();
    assert_eq!(io::read_convex_polyhedron(&path).unwrap().counts(), (8, 12, 6));
}
