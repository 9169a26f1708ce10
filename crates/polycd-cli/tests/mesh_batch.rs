//! Issue 23 item 4: `"kind": "mesh"` shapes in `polycd batch`, `polycd query --mesh` and
//! `polycd info --mesh`, with answers checked by hand.

use serde_json::Value;

mod common;
use common::{batch, lines, polycd};

/// An axis-aligned box `[lo, hi]` as a JSON mesh: 8 vertices, 6 outward quads (face 4 is the
/// −x side, face 5 the +x side).
fn box_json(lo: [f64; 3], hi: [f64; 3]) -> String {
    let mut v = Vec::new();
    for i in 0..8 {
        let p = [
            if i & 1 == 0 { lo[0] } else { hi[0] },
            if i & 2 == 0 { lo[1] } else { hi[1] },
            if i & 4 == 0 { lo[2] } else { hi[2] },
        ];
        v.push(format!("[{},{},{}]", p[0], p[1], p[2]));
    }
    format!(
        r#"{{"kind":"mesh","vertices":[{}],"faces":[[0,2,3,1],[4,5,7,6],[0,1,5,4],[2,6,7,3],[0,4,6,2],[1,3,7,5]]}}"#,
        v.join(",")
    )
}

/// A U-shaped solid: the profile (0,0) (3,0) (3,2) (2,2) (2,1) (1,1) (1,2) (0,2) in x–z,
/// extruded over y ∈ [0, 1]; its notch is (1,2) × (0,1) × (1,2). Caps as triangles, sides
/// as quads.
fn u_json() -> String {
    let profile = [(0, 0), (3, 0), (3, 2), (2, 2), (2, 1), (1, 1), (1, 2), (0, 2)];
    let mut v = Vec::new();
    for y in [0, 1] {
        for (x, z) in profile {
            v.push(format!("[{x},{y},{z}]"));
        }
    }
    let mut f = Vec::new();
    for c in [[0, 1, 4], [1, 2, 3], [1, 3, 4], [0, 4, 5], [0, 5, 6], [0, 6, 7]] {
        f.push(format!("[{},{},{}]", c[0], c[1], c[2]));
        f.push(format!("[{},{},{}]", c[0] + 8, c[2] + 8, c[1] + 8));
    }
    for i in 0..8 {
        let j = (i + 1) % 8;
        f.push(format!("[{j},{i},{},{}]", i + 8, j + 8));
    }
    format!(
        r#"{{"kind":"mesh","vertices":[{}],"faces":[{}]}}"#,
        v.join(","),
        f.join(",")
    )
}

#[test]
fn two_unit_cubes_one_apart() {
    let cube = box_json([0.0; 3], [1.0; 3]);
    let line = format!(r#"{{"id":1,"query":"distance","a":{cube},"b":{cube},"pose_b":{{"translation":[2,0,0]}}}}"#);
    let line2 = format!(r#"{{"id":2,"a":{cube},"b":{cube},"pose_b":{{"translation":[2,0,0]}}}}"#);
    let out = batch(&format!("{line}\n{line2}\n"));
    let a = &out[0];
    assert_eq!(a["status"], "disjoint", "{a}");
    assert_eq!(a["distance"], 1.0);
    assert_eq!(a["signed_distance"], 1.0);
    assert_eq!(a["point_a"][0], 1.0);
    assert_eq!(a["point_b"][0], 2.0);
    // A's +x quad (input face 5) faces B's −x quad (input face 4).
    assert_eq!(
        a["features"]["a"],
        serde_json::json!({"kind": "triangle", "id": 5}),
        "{a}"
    );
    assert_eq!(
        a["features"]["b"],
        serde_json::json!({"kind": "triangle", "id": 4}),
        "{a}"
    );
    assert_eq!(out[1]["status"], "disjoint", "{}", out[1]);
    assert!(out[1]["error"].is_null());
}

/// The U's hull holds the box; the solids are 0.25 apart (box [1.25, 1.75] in x, the notch's
/// walls at 1 and 2; its floor at z = 1, the box's bottom at 1.25).
#[test]
fn u_shape_with_a_box_in_its_notch() {
    let u = u_json();
    let bx = box_json([1.25, 0.25, 1.25], [1.75, 0.75, 1.75]);
    let out = batch(&lines(&[
        format!(r#"{{"id":"i","a":{u},"b":{bx}}}"#),
        format!(r#"{{"id":"d","query":"distance","a":{u},"b":{bx}}}"#),
    ]));
    assert_eq!(out[0]["status"], "disjoint", "{}", out[0]);
    assert_eq!(out[1]["status"], "disjoint", "{}", out[1]);
    assert_eq!(out[1]["distance"], 0.25, "{}", out[1]);
    assert_eq!(out[1]["features"]["a"]["kind"], "triangle");
    assert_eq!(out[1]["features"]["b"]["kind"], "triangle");
    // Moved down by 0.5 it crosses the notch's floor: overlapping, signed distance minus a
    // lower bound of the depth (here the true depth 0.25: push it up).
    let out = batch(&format!(
        r#"{{"query":"distance","a":{u},"b":{bx},"pose_b":{{"translation":[0,0,-0.5]}}}}"#
    ));
    assert_eq!(out[0]["status"], "overlapping", "{}", out[0]);
    let s = out[0]["signed_distance"].as_f64().unwrap();
    assert!((-0.25 - 1e-12..0.0).contains(&s), "{}", out[0]);
}

#[test]
fn box_inside_a_big_box_overlaps() {
    let big = box_json([-2.0; 3], [2.0; 3]);
    let small = box_json([-0.5; 3], [0.5; 3]);
    let out = batch(&lines(&[
        format!(r#"{{"a":{big},"b":{small}}}"#),
        format!(r#"{{"query":"distance","a":{small},"b":{big}}}"#),
    ]));
    assert_eq!(out[0]["status"], "overlapping", "{}", out[0]);
    assert_eq!(out[1]["status"], "overlapping", "{}", out[1]);
    assert_eq!(out[1]["distance"], 0.0);
    // A lower bound of the depth: at least the surfaces' distance 1.5, at most the true 2.5.
    let s = out[1]["signed_distance"].as_f64().unwrap();
    assert!((-2.5 - 1e-12..=-1.5).contains(&s), "{}", out[1]);
}

/// Mesh against a convex shape: convex features in the convex format; touching meshes.
#[test]
fn mesh_against_convex_and_touching() {
    let cube = box_json([0.0; 3], [1.0; 3]);
    let out = batch(&lines(&[
        format!(r#"{{"query":"distance","a":{cube},"b":{{"shape":"cube"}},"pose_b":{{"translation":[3,0.5,0.5]}}}}"#),
        format!(r#"{{"query":"distance","a":{cube},"b":{cube},"pose_b":{{"translation":[1,0.25,0.5]}}}}"#),
        format!(
            r#"{{"query":"distance","a":{cube},"b":{{"kind":"convex","shape":"cube"}},"pose_b":{{"translation":[3,0.5,0.5]}}}}"#
        ),
    ]));
    let a = &out[0];
    assert_eq!(a["status"], "disjoint", "{a}");
    assert_eq!(a["distance"], 1.5);
    assert_eq!(a["features"]["a"]["kind"], "triangle");
    assert!(
        ["vertex", "edge", "face"].contains(&a["features"]["b"]["kind"].as_str().unwrap()),
        "{a}"
    );
    assert_eq!(out[1]["status"], "touching", "{}", out[1]);
    assert_eq!(out[1]["distance"], 0.0, "{}", out[1]);
    assert_eq!(out[2], out[0]);
}

#[test]
fn unsupported_mesh_queries_are_errors_naming_why() {
    let cube = box_json([0.0; 3], [1.0; 3]);
    let out = batch(&lines(&[
        format!(r#"{{"query":"point","point":[1,0,0],"origin":"x","a":{cube}}}"#),
        // Surfaces (issue 23 item 7) answer intersect and distance; directional is refused.
        r#"{"a":{"kind":"surface","shape":"cube"},"b":{"shape":"cube"},"query":"directional","direction":[1,0,0]}"#
            .into(),
        r#"{"a":{"kind":"blob","shape":"cube"},"b":{"shape":"cube"}}"#.into(),
        r#"{"a":{"kind":"mesh","vertices":[[0,0,0],[1,0,0],[0,1,0],[0,0,1]]},"b":{"shape":"cube"}}"#.into(),
        format!(r#"{{"a":{cube},"b":{cube},"algorithm":"gjk"}}"#),
    ]));
    let err = |i: usize| out[i]["error"].as_str().unwrap_or("").to_string();
    assert!(out.iter().all(|a| a["status"] == "error"), "{out:?}");
    assert!(err(0).contains("origin"), "{}", err(0));
    assert!(err(1).contains("surface") && err(1).contains("not yet"), "{}", err(1));
    assert!(err(2).contains("unknown \"kind\""), "{}", err(2));
    assert!(err(3).contains("faces"), "{}", err(3));
    assert!(err(4).contains("gjk"), "{}", err(4));
}

/// A mesh is decomposed once per distinct mesh in a run (in-process: the cache by content).
#[test]
fn a_mesh_is_built_once_per_run() {
    // A mesh no other test of this binary uses (tests share the process).
    let bx = box_json([0.0; 3], [1.0, 2.0, 3.0]);
    let line = format!(r#"{{"query":"distance","a":{bx},"b":{bx},"pose_b":{{"translation":[5,0,0]}}}}"#);
    let input = format!("{line}\n{line}\n{line}\n");
    let before = polycd_cli::meshq::cached_meshes();
    let mut out = Vec::new();
    let s = polycd_cli::batch_run::run(input.as_bytes(), &mut out, 1).unwrap();
    assert_eq!((s.lines, s.errors), (3, 0));
    let after = polycd_cli::meshq::cached_meshes();
    // Other tests of this file run in subprocesses: this process built exactly one mesh.
    assert_eq!(after, before + 1);
    let text = String::from_utf8(out).unwrap();
    assert!(text.lines().all(|l| l.contains(r#""distance":4.0"#)), "{text}");
}

#[test]
fn query_and_info_take_meshes() {
    let dir = std::env::temp_dir().join(format!("polycd-meshq-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let obj = dir.join("cube.obj");
    std::fs::write(
        &obj,
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 0 0 1\nv 1 0 1\nv 0 1 1\nv 1 1 1\n\
         f 1 3 4 2\nf 5 6 8 7\nf 1 2 6 5\nf 3 7 8 4\nf 1 5 7 3\nf 2 4 8 6\n",
    )
    .unwrap();
    let o = obj.to_str().unwrap();
    let out = polycd()
        .args(["query", "--mesh", o, o, "--pose-b", "2 0 0 1 0 0 0", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["distance"], 1.0, "{v}");
    assert_eq!(
        v["features"]["a"],
        serde_json::json!({"kind": "triangle", "id": 5}),
        "{v}"
    );
    let out = polycd()
        .args(["query", "--mesh", o, "cube", "--pose-b", "3 0 0 1 0 0 0"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("distance:        1.5"), "{text}");
    let out = polycd().args(["info", "--mesh", o]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("convex pieces:        1") && text.contains("build time:"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Directional queries on meshes: the least |t| at which the solids touch without overlapping
/// (mesh::directional), literal values checked by hand.
#[test]
fn directional_on_meshes() {
    let u = u_json();
    let cube = box_json([0.0; 3], [1.0; 3]);
    let bx = box_json([1.25, 0.25, 1.25], [1.75, 0.75, 1.75]);
    let out = batch(&lines(&[
        // In the notch, moved down: the floor (z = 1) 0.25 below the box's bottom.
        format!(r#"{{"query":"directional","direction":[0,0,-2],"a":{u},"b":{bx}}}"#),
        // Moved up: it leaves the notch and never touches (its hull would say otherwise).
        format!(
            r#"{{"query":"directional","direction":[0,0,1],"a":{u},"b":{bx},"pose_b":{{"translation":[0,0,0.5]}}}}"#
        ),
        // Two unit cubes overlapping by 0.75 along x: the shorter escape is +0.75.
        format!(
            r#"{{"query":"directional","direction":[1,0,0],"a":{cube},"b":{cube},"pose_b":{{"translation":[0.25,0,0]}}}}"#
        ),
        // Mesh against convex (a unit cube centred at 3.5): first contact after 2 along -x.
        format!(
            r#"{{"query":"directional","direction":[-1,0,0],"a":{cube},"b":{{"shape":"box:1,1,1"}},"pose_b":{{"translation":[3.5,0.5,0.5]}}}}"#
        ),
        // Touching faces now: 0.
        format!(
            r#"{{"query":"directional","direction":[1,0,0],"a":{cube},"b":{cube},"pose_b":{{"translation":[1,0,0]}}}}"#
        ),
    ]));
    let t = |i: usize| out[i]["directional"].as_f64();
    assert_eq!(out[0]["status"], "disjoint", "{}", out[0]);
    assert_eq!(t(0), Some(0.25), "{}", out[0]);
    assert_eq!(out[1]["status"], "disjoint", "{}", out[1]);
    // Up from z 1.75: nothing above; down (t < 0): the floor, 0.75 below the box's bottom.
    assert_eq!(t(1), Some(-0.75), "{}", out[1]);
    assert_eq!(out[2]["status"], "overlapping", "{}", out[2]);
    assert_eq!(t(2), Some(0.75), "{}", out[2]);
    assert_eq!(out[3]["status"], "disjoint", "{}", out[3]);
    assert_eq!(t(3), Some(2.0), "{}", out[3]);
    assert_eq!(out[4]["status"], "touching", "{}", out[4]);
    assert_eq!(t(4), Some(0.0), "{}", out[4]);
}

/// Manifold lines with a mesh side: `"manifolds"`, one object per touching piece pair after
/// merging where normals agree; literal geometry checked by hand.
#[test]
fn manifolds_of_mesh_pairs() {
    let u = u_json();
    let cube = box_json([0.0; 3], [1.0; 3]);
    let out = batch(&lines(&[
        // A box on the notch's floor (z = 1): one rectangle, normal +z (from the U to the box).
        format!(
            r#"{{"query":"manifold","a":{u},"b":{}}}"#,
            box_json([1.25, 0.25, 1.0], [1.75, 0.75, 1.5])
        ),
        // A bar across the notch on both pillars' tops: two piece pairs, one normal: merged,
        // 8 points; reduced: 4 (the bar's footprint corners).
        format!(
            r#"{{"query":"manifold","a":{u},"b":{}}}"#,
            box_json([0.5, 0.25, 2.0], [2.5, 0.75, 2.5])
        ),
        format!(
            r#"{{"query":"manifold","reduce":true,"a":{u},"b":{}}}"#,
            box_json([0.5, 0.25, 2.0], [2.5, 0.75, 2.5])
        ),
        // Cube on cube (input face 1 is A's top, face 0 B's bottom); apart: no manifold.
        format!(r#"{{"query":"manifold","a":{cube},"b":{cube},"pose_b":{{"translation":[0,0,1]}}}}"#),
        format!(r#"{{"query":"manifold","a":{cube},"b":{cube},"pose_b":{{"translation":[0,0,3]}}}}"#),
        // Speculative: 0.25 apart within a margin of 0.5.
        format!(
            r#"{{"query":"manifold","margin":0.5,"a":{cube},"b":{cube},"pose_b":{{"translation":[0.25,0.25,1.25]}}}}"#
        ),
        // Mesh against a convex box: convex features on B.
        format!(
            r#"{{"query":"manifold","a":{cube},"b":{{"shape":"box:1,1,1"}},"pose_b":{{"translation":[0.5,0.5,1.5]}}}}"#
        ),
    ]));
    let corners = |i: usize, k: usize| -> Vec<[f64; 3]> {
        out[i]["manifolds"][k]["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let a = &p["a"];
                [a[0].as_f64().unwrap(), a[1].as_f64().unwrap(), a[2].as_f64().unwrap()]
            })
            .collect()
    };
    for (i, o) in out.iter().enumerate() {
        assert!(o["error"].is_null(), "line {i}: {o}");
        assert!(
            o.get("manifold").is_none(),
            "line {i}: mesh lines carry \"manifolds\": {o}"
        );
    }
    assert_eq!(out[0]["manifolds"].as_array().unwrap().len(), 1, "{}", out[0]);
    assert_eq!(out[0]["manifolds"][0]["normal"], serde_json::json!([0.0, 0.0, 1.0]));
    // Counter-clockwise about +z.
    assert_eq!(
        corners(0, 0),
        vec![
            [1.25, 0.25, 1.0],
            [1.75, 0.25, 1.0],
            [1.75, 0.75, 1.0],
            [1.25, 0.75, 1.0]
        ]
    );
    assert_eq!(out[1]["manifolds"].as_array().unwrap().len(), 1, "{}", out[1]);
    let mut got = corners(1, 0);
    got.sort_by(|x, y| x.partial_cmp(y).unwrap());
    let mut want = vec![];
    for x in [0.5, 1.0, 2.0, 2.5] {
        for y in [0.25, 0.75] {
            want.push([x, y, 2.0]);
        }
    }
    assert_eq!(got, want, "{}", out[1]);
    assert_eq!(
        corners(2, 0),
        vec![[0.5, 0.25, 2.0], [2.5, 0.25, 2.0], [2.5, 0.75, 2.0], [0.5, 0.75, 2.0]]
    );
    for p in out[3]["manifolds"][0]["points"].as_array().unwrap() {
        assert_eq!(p["separation"], 0.0);
        assert_eq!(p["features"]["a"], serde_json::json!({"kind": "triangle", "id": 1}));
        assert_eq!(p["features"]["b"], serde_json::json!({"kind": "triangle", "id": 0}));
    }
    assert_eq!(out[3]["status"], "touching");
    assert_eq!(out[4]["manifolds"], serde_json::json!([]));
    assert_eq!(out[4]["status"], "disjoint");
    let pts = out[5]["manifolds"][0]["points"].as_array().unwrap();
    assert_eq!(pts.len(), 4, "{}", out[5]);
    assert!(pts.iter().all(|p| p["separation"] == 0.25), "{}", out[5]);
    assert_eq!(out[6]["manifolds"][0]["points"][0]["features"]["b"]["kind"], "vertex");
}

/// Issue 23: `polycd query --mesh A --query point|ray` prints the answer of the batch point
/// or ray line on `"kind": "mesh"` (the same JSON, byte for byte), and the text form names the
/// triangle (input face).
#[test]
fn query_mesh_point_and_ray_equal_the_batch_lines() {
    let knot = "torus-knot:2,3:64,8";
    let cases: [(&[&str], String); 4] = [
        (
            &["--query", "point", "--point", "0.1,0.2,0.3"],
            format!(r#"{{"query":"point","a":{{"kind":"mesh","shape":"{knot}"}},"point":[0.1,0.2,0.3]}}"#),
        ),
        (
            &["--query", "point", "--point", "2.5,0,0"],
            format!(r#"{{"query":"point","a":{{"kind":"mesh","shape":"{knot}"}},"point":[2.5,0,0]}}"#),
        ),
        (
            &["--query", "ray", "--origin", "-4,0.1,0", "--direction", "1,0,0"],
            format!(
                r#"{{"query":"ray","a":{{"kind":"mesh","shape":"{knot}"}},"origin":[-4,0.1,0],"direction":[1,0,0]}}"#
            ),
        ),
        (
            &["--query", "ray", "--origin", "0,0,5", "--direction", "0,0,1"],
            format!(r#"{{"query":"ray","a":{{"kind":"mesh","shape":"{knot}"}},"origin":[0,0,5],"direction":[0,0,1]}}"#),
        ),
    ];
    for (args, line) in cases {
        let out = polycd()
            .args(["query", "--mesh", knot, "--json"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let query = String::from_utf8(out.stdout).unwrap();
        let batch = common::batch_raw(&format!("{line}\n"), &[]);
        assert_eq!(query, batch, "{args:?}");
    }
    // A hit on the unit cube mesh [0, 1]³ from x = −1: t = 1 on the x = 0 side (faces 8, 9).
    let line = r#"{"query":"ray","a":{"kind":"mesh","file":"../../examples/cube.obj"},"origin":[-1,0.5,0.25],"direction":[1,0,0]}"#;
    let v = &batch(&format!("{line}\n"))[0];
    assert_eq!(v["status"], "touching", "{v}");
    assert_eq!(v["ray"]["t"], 1.0, "{v}");
    assert_eq!(v["ray"]["normal"], serde_json::json!([-1.0, 0.0, 0.0]), "{v}");
    let face = v["features"]["a"]["id"].as_u64().unwrap();
    assert!(face == 8 || face == 9, "{v}");
    let out = polycd()
        .args(["query", "--mesh", "../../examples/cube.obj", "--query", "ray"])
        .args(["--origin", "-1,0.5,0.25", "--direction", "1,0,0"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("ray t:           1.00000000000000000e0"), "{text}");
    assert!(
        text.contains(&format!("feature:         A triangle of input face {face}")),
        "{text}"
    );
    // One shape only, and the flags of the other query are refused.
    let out = polycd()
        .args(["query", "--mesh", knot, "cube", "--query", "point", "--point", "0,0,0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("takes one shape"));
}

/// Issue 23: a define line may name a mesh or a surface; lines that use it by `ref` answer
/// byte for byte as the same lines with the shape inline (each query kind on a mesh), and the
/// mesh is built once for the define.
#[test]
fn define_mesh_and_surface_shapes_answer_as_inline() {
    let mesh = box_json([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]);
    let u = u_json();
    let surface = r#"{"kind":"surface","vertices":[[0,0,0],[4,0,0],[0,4,0],[4,4,0]],"faces":[[0,1,3,2]]}"#;
    let pose = r#""pose_b":{"translation":[2.5,0.2,0.1],"rotation":[0.9238795325112867,0,0.3826834323650898,0]}"#;
    let bodies = |m: &str, u: &str, s: &str| {
        vec![
            format!(r#"{{"id":1,"query":"distance","a":{m},"b":{u},{pose}}}"#),
            format!(r#"{{"id":2,"query":"intersect","a":{u},"b":{m},"pose_b":{{"translation":[1.2,0.2,1.2]}}}}"#),
            format!(
                r#"{{"id":3,"query":"directional","a":{u},"b":{m},"pose_b":{{"translation":[1.2,0.2,3]}},"direction":[0,0,-1]}}"#
            ),
            format!(r#"{{"id":4,"query":"manifold","a":{u},"b":{m},"pose_b":{{"translation":[1,0,1]}}}}"#),
            format!(r#"{{"id":5,"query":"point","a":{m},"point":[0.5,0.5,2]}}"#),
            format!(r#"{{"id":6,"query":"ray","a":{u},"origin":[1.5,0.5,5],"direction":[0,0,-1]}}"#),
            format!(r#"{{"id":7,"query":"distance","a":{s},"b":{m},"pose_b":{{"translation":[1,1,0.5]}}}}"#),
            format!(r#"{{"id":8,"query":"intersect","a":{m},"b":{s},"pose_a":{{"translation":[1,1,-0.5]}}}}"#),
            format!(
                r#"{{"id":9,"query":"toc","a":{m},"b":{u},"pose_a":{{"translation":[1.1,0.2,3]}},"pose_a1":{{"translation":[1.1,0.2,-1]}}}}"#
            ),
        ]
    };
    let inline = lines(&bodies(&mesh, &u, surface));
    let defines = [
        format!(r#"{{"define":"m","shape":{mesh}}}"#),
        format!(r#"{{"define":"u","shape":{u}}}"#),
        format!(r#"{{"define":"s","shape":{surface}}}"#),
        r#"{"define":"m2","shape":{"ref":"m"}}"#.to_string(),
    ];
    let refs = lines(&defines) + &lines(&bodies(r#"{"ref":"m2"}"#, r#"{"ref":"u"}"#, r#"{"ref":"s"}"#));
    let want = common::batch_raw(&inline, &[]);
    let got = common::batch_raw(&refs, &[]);
    let mut got_lines = got.lines();
    for _ in 0..defines.len() {
        assert_eq!(got_lines.next(), Some(r#"{"id":null,"status":"defined","error":null}"#));
    }
    let rest: Vec<&str> = got_lines.collect();
    assert_eq!(rest, want.lines().collect::<Vec<_>>());
    // The answers compared are real ones, not error lines.
    for v in want.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()) {
        assert_ne!(v["status"], "error", "{v}");
    }
    // A bad mesh define is an error line, and its refs say why.
    let bad = r#"{"define":"open","shape":{"kind":"mesh","vertices":[[0,0,0],[1,0,0],[0,1,0]],"faces":[[0,1,2]]}}
{"query":"distance","a":{"ref":"open"},"b":{"shape":"cube"}}
"#;
    let v = batch(bad);
    assert_eq!(v[0]["status"], "error", "{}", v[0]);
    assert_eq!(v[1]["status"], "error");
    assert!(
        v[1]["error"]
            .as_str()
            .unwrap()
            .contains("the definition of \"open\" (line 1) failed"),
        "{}",
        v[1]
    );
}
