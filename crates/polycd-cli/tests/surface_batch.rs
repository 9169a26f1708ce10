//! Issue 23 item 7: `"kind": "surface"` shapes in `polycd batch`, `polycd query --surface` and
//! `polycd info --surface`, with literal lines and answers computed by hand.

use serde_json::Value;

mod common;
use common::{batch, polycd};

/// The box [0, 4]³ without its lid (z = 4): faces 0 bottom, 1 y = 0, 2 y = 4, 3 x = 0, 4 x = 4.
const OPEN_BOX: &str = r#""vertices":[[0,0,0],[4,0,0],[0,4,0],[4,4,0],[0,0,4],[4,0,4],[0,4,4],[4,4,4]],"faces":[[0,2,3,1],[0,1,5,4],[2,6,7,3],[0,4,6,2],[1,3,7,5]]"#;
/// The unit cube [1.5, 2.5]² × [1, 2] (convex), inside the open box, 1 above its floor.
const CUBE: &str =
    r#""vertices":[[1.5,1.5,1],[2.5,1.5,1],[1.5,2.5,1],[2.5,2.5,1],[1.5,1.5,2],[2.5,1.5,2],[1.5,2.5,2],[2.5,2.5,2]]"#;
/// A 2 × 2 sheet in z = 0, and one in y = 0.
const SHEET_XY: &str = r#""vertices":[[-1,-1,0],[1,-1,0],[1,1,0],[-1,1,0]],"faces":[[0,1,2,3]]"#;
const SHEET_XZ: &str = r#""vertices":[[-1,0,-1],[1,0,-1],[1,0,1],[-1,0,1]],"faces":[[0,1,2,3]]"#;

#[test]
fn batch_surface_lines() {
    let lines = [
        // 0: the cube inside the open box: apart, 1 from the floor (face 0).
        format!(r#"{{"id":"in","a":{{"kind":"surface",{OPEN_BOX}}},"b":{{{CUBE}}},"query":"distance"}}"#),
        // 1: the same, intersect.
        format!(r#"{{"id":"in-i","a":{{"kind":"surface",{OPEN_BOX}}},"b":{{{CUBE}}},"query":"intersect"}}"#),
        // 2: the open box as a closed mesh: an error naming an open edge.
        format!(r#"{{"id":"mesh","a":{{"kind":"mesh",{OPEN_BOX}}},"b":{{{CUBE}}},"query":"distance"}}"#),
        // 3: the cube lowered by 1.5 crosses the floor by 0.5: overlapping, bound 0.5.
        format!(
            r#"{{"id":"down","a":{{"kind":"surface",{OPEN_BOX}}},"b":{{{CUBE}}},"pose_b":{{"translation":[0,0,-1.5]}},"query":"distance"}}"#
        ),
        // 4: lowered by 1, resting on the floor: touching.
        format!(
            r#"{{"id":"rest","a":{{"kind":"surface",{OPEN_BOX}}},"b":{{{CUBE}}},"pose_b":{{"translation":[0,0,-1]}},"query":"distance"}}"#
        ),
        // 5: two sheets crossing along the x axis: overlapping. Each sheet is fanned into two
        // triangles; the deepest triangle pair is A's (-1,-1,0) (1,-1,0) (1,1,0) and B's
        // (-1,0,-1) (1,0,-1) (1,0,1), meeting on the x axis in [0, 1]. B moved by (-a, c, b)
        // meets the x axis (c = 0) in [-a-b, 1-a]: free when a > 1 or a + b < -1, the
        // shortest a = b = -1/2: depth √½ (a lower bound: the whole sheets need 1).
        format!(
            r#"{{"id":"cross","a":{{"kind":"surface",{SHEET_XY}}},"b":{{"kind":"surface",{SHEET_XZ}}},"query":"distance"}}"#
        ),
        // 6: the upright sheet lifted by 1.25: 0.25 apart.
        format!(
            r#"{{"id":"lift","a":{{"kind":"surface",{SHEET_XY}}},"b":{{"kind":"surface",{SHEET_XZ}}},"pose_b":{{"translation":[0,0,1.25]}},"query":"distance"}}"#
        ),
        // 7: directional on a surface: a typed error.
        format!(
            r#"{{"id":"dir","a":{{"kind":"surface",{SHEET_XY}}},"b":{{{CUBE}}},"query":"directional","direction":[0,0,1]}}"#
        ),
        // 8: the cube as the first side, the open box second: features swap.
        format!(r#"{{"id":"swap","a":{{{CUBE}}},"b":{{"kind":"surface",{OPEN_BOX}}},"query":"distance"}}"#),
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let ans = batch(&input);
    assert_eq!(ans.len(), lines.len());
    let a = &ans[0];
    assert_eq!(a["status"], "disjoint", "{a}");
    assert_eq!(a["distance"].as_f64(), Some(1.0), "{a}");
    assert_eq!(a["features"]["a"]["kind"], "triangle", "{a}");
    assert_eq!(a["features"]["a"]["id"], 0, "{a}");
    assert_eq!(ans[1]["status"], "disjoint", "{}", ans[1]);
    let e = &ans[2];
    assert_eq!(e["status"], "error", "{e}");
    assert!(e["error"].as_str().unwrap().contains("open"), "{e}");
    let d = &ans[3];
    assert_eq!(d["status"], "overlapping", "{d}");
    assert!((d["signed_distance"].as_f64().unwrap() + 0.5).abs() <= 1e-12, "{d}");
    let r = &ans[4];
    assert_eq!(r["status"], "touching", "{r}");
    assert_eq!(r["distance"].as_f64(), Some(0.0), "{r}");
    let c = &ans[5];
    assert_eq!(c["status"], "overlapping", "{c}");
    assert!(
        (c["signed_distance"].as_f64().unwrap() + 0.5f64.sqrt()).abs() <= 1e-12,
        "{c}"
    );
    let l = &ans[6];
    assert_eq!(l["status"], "disjoint", "{l}");
    assert!((l["distance"].as_f64().unwrap() - 0.25).abs() <= 1e-15, "{l}");
    let dir = &ans[7];
    assert_eq!(dir["status"], "error", "{dir}");
    assert!(dir["error"].as_str().unwrap().contains("surface"), "{dir}");
    let s = &ans[8];
    assert_eq!(s["distance"].as_f64(), Some(1.0), "{s}");
    assert_eq!(s["features"]["b"]["kind"], "triangle", "{s}");
    assert_eq!(s["features"]["b"]["id"], 0, "{s}");
}

#[test]
fn query_and_info_surface() {
    let dir = std::env::temp_dir().join(format!("polycd_surface_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let obj = dir.join("open_box.obj");
    std::fs::write(
        &obj,
        "v 0 0 0\nv 4 0 0\nv 0 4 0\nv 4 4 0\nv 0 0 4\nv 4 0 4\nv 0 4 4\nv 4 4 4\nf 1 3 4 2\nf 1 2 6 5\nf 3 7 8 4\nf 1 5 7 3\nf 2 4 8 6\n",
    )
    .unwrap();
    let cube = dir.join("cube.obj");
    std::fs::write(
        &cube,
        "v 1.5 1.5 1\nv 2.5 1.5 1\nv 1.5 2.5 1\nv 2.5 2.5 1\nv 1.5 1.5 2\nv 2.5 1.5 2\nv 1.5 2.5 2\nv 2.5 2.5 2\nf 1 3 4 2\nf 5 6 8 7\nf 1 2 6 5\nf 3 7 8 4\nf 1 5 7 3\nf 2 4 8 6\n",
    )
    .unwrap();
    let out = polycd().args(["info", "--surface"]).arg(&obj).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("triangles:            10"), "{text}");
    assert!(text.contains("open edges:           4"), "{text}");
    // A file is a surface under --surface (the cube too: its triangles, no inside).
    let out = polycd()
        .args(["query", "--surface", "--query", "distance", "--json"])
        .arg(&obj)
        .arg(&cube)
        .output()
        .unwrap();
    let ans: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(ans["status"], "disjoint", "{ans}");
    assert_eq!(ans["distance"].as_f64(), Some(1.0), "{ans}");
    // As a closed mesh the open box is refused, naming an open edge in the file's numbering.
    let out = polycd()
        .args(["query", "--mesh", "--query", "distance"])
        .arg(&obj)
        .arg(&cube)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("open") && err.contains("open_box.obj"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
