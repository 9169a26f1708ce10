//! `polycd decompose` (issue 23, items 3 and 6): the OBJ with one group per piece, the saved
//! decomposition read back (by `decompose` and by `toc`), the repair line on stderr, and a
//! corrupt saved file as a one-line error.

use std::process::Command;

fn polycd() -> Command {
    Command::new(env!("CARGO_BIN_EXE_polycd"))
}

fn dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("polycd_decompose_{name}_{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn decompose_writes_groups_and_a_decomposition_that_reads_back() {
    let d = dir("knot");
    let (obj, pcdm) = (d.join("k.obj"), d.join("k.pcdm"));
    let out = polycd()
        .args(["decompose", "torus-knot:2,3:60,8", "-o"])
        .arg(&obj)
        .arg("--save")
        .arg(&pcdm)
        .arg("--json")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pieces = v["pieces"].as_u64().unwrap();
    assert_eq!(v["triangles"], 960);
    assert!(pieces > 1 && pieces < 960);
    // One group per piece; every triangle once, as a face of the OBJ.
    let text = std::fs::read_to_string(&obj).unwrap();
    assert_eq!(
        text.lines().filter(|l| l.starts_with("g piece_")).count() as u64,
        pieces
    );
    assert_eq!(text.lines().filter(|l| l.starts_with("f ")).count(), 960);
    // The OBJ is the same closed mesh: it loads (groups are ignored) with the same volume.
    let again = polycd().args(["decompose", "--json"]).arg(&obj).output().unwrap();
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    let w: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(w["triangles"], 960);
    let (v0, v1) = (v["volume"].as_f64().unwrap(), w["volume"].as_f64().unwrap());
    assert!((v0 - v1).abs() <= 1e-12 * v0, "{v0} vs {v1}");
    // The saved decomposition reads back with the same pieces.
    let back = polycd().args(["decompose", "--json"]).arg(&pcdm).output().unwrap();
    assert!(back.status.success(), "{}", String::from_utf8_lossy(&back.stderr));
    let b: serde_json::Value = serde_json::from_slice(&back.stdout).unwrap();
    assert_eq!(b["pieces"], v["pieces"]);
    assert_eq!(b["volume"], v["volume"]);
    // toc takes it as a mesh, with the same answer as the spec.
    let toc = |shape: &std::path::Path| {
        let o = polycd()
            .args(["toc", "--json", "--pose-a0", "-6 0 0", "--pose-a1", "6 0 0"])
            .arg(shape)
            .arg("torus-knot:2,3:60,8")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        j["t"].clone()
    };
    let spec = polycd()
        .args(["toc", "--json", "--pose-a0", "-6 0 0", "--pose-a1", "6 0 0"])
        .args(["torus-knot:2,3:60,8", "torus-knot:2,3:60,8"])
        .output()
        .unwrap();
    let s: serde_json::Value = serde_json::from_slice(&spec.stdout).unwrap();
    assert_eq!(toc(&pcdm), s["t"]);
    // A corrupt file: one line on stderr, failure.
    let mut bytes = std::fs::read(&pcdm).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    std::fs::write(&pcdm, bytes).unwrap();
    let bad = polycd().args(["decompose"]).arg(&pcdm).output().unwrap();
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("checksum"), "{err}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_repaired_mesh_says_so_on_stderr() {
    let d = dir("soup");
    // A cube as a triangle soup (every corner written once per triangle), plus a repeated face.
    let corners = |i: u32| [(i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64];
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let mut text = String::new();
    let mut n = 0;
    for q in quads {
        for t in [[q[0], q[1], q[2]], [q[0], q[2], q[3]]] {
            for c in t {
                let p = corners(c);
                text.push_str(&format!("v {} {} {}\n", p[0], p[1], p[2]));
            }
            text.push_str(&format!("f {} {} {}\n", n + 1, n + 2, n + 3));
            n += 3;
        }
    }
    text.push_str("f 1 2 3\n");
    let path = d.join("soup.obj");
    std::fs::write(&path, text).unwrap();
    let out = polycd().arg("decompose").arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("repaired: welded 28 coincident vertices; dropped 1 duplicate triangles (faces 12, 0-based)"),
        "{err}"
    );
    let so = String::from_utf8_lossy(&out.stdout);
    assert!(so.contains("pieces:              1"), "{so}");
    std::fs::remove_dir_all(&d).ok();
}
