//! Batch `"query": "toc"` lines and `polycd toc --json`'s `toc` keys (issue 24 item 5), on
//! hand-checkable motions: unit cubes approaching along x from 3 apart (t exact), a pair that
//! never meets, an overlap at t = 0, mesh and mixed pairs, and the bad-input error lines.

use serde_json::Value;

mod common;
use common::{batch, polycd};

const CUBE: &str = r#"{"shape":"box:1,1,1"}"#;
const KNOT: &str = r#"{"kind":"mesh","shape":"torus-knot:2,3:60,8"}"#;
const CUBE_MESH: &str = r#"{"kind":"mesh","shape":"box:1,1,1"}"#;

fn toc_line(a: &str, b: &str, extra: &str) -> String {
    format!(r#"{{"query":"toc","a":{a},"b":{b}{extra}}}"#)
}

fn vec3(v: &Value) -> [f64; 3] {
    let a = v.as_array().expect("[x, y, z]");
    [0, 1, 2].map(|i| a[i].as_f64().unwrap())
}

/// Unit cubes, A from x = −3 to x = 3 with B fixed at the origin: the faces meet when A has
/// moved 2 of 6, t = 1/3 exactly (pure translation: the advancement's first step is exact);
/// every contact is at x = −0.5 within the threshold, face x = −0.5 of B facing +x of A.
#[test]
fn cubes_approaching_along_x() {
    let lines = [
        toc_line(
            CUBE,
            CUBE,
            r#","pose_a":{"translation":[-3,0,0]},"pose_a1":{"translation":[3,0,0]}"#,
        ),
        // Offset in y and z so that the faces meet as squares off the corners: a generic face
        // contact, vertex–face pairs.
        toc_line(
            CUBE,
            CUBE,
            r#","pose_a":{"translation":[-3,0.25,0.125]},"pose_a1":{"translation":[3,0.25,0.125]},"threshold":0.001"#,
        ),
        // Both moving: A from x = −3 to 0, B from 3 to 0; the gap 5 closes at speed 6: t = 5/6,
        // the faces meeting at x = 0.
        toc_line(
            CUBE,
            CUBE,
            r#","pose_a":{"translation":[-3,0,0]},"pose_a1":{"translation":[0,0,0]},"pose_b":{"translation":[3,0,0]},"pose_b1":{"translation":[0,0,0]}"#,
        ),
    ];
    let out = batch(&(lines.join("\n") + "\n"));
    for (k, v) in out.iter().enumerate() {
        assert_eq!(v["status"], "touching", "{k}: {v}");
        assert_eq!(v["error"], Value::Null);
        let toc = &v["toc"];
        assert_eq!(toc["status"], "contact", "{k}: {v}");
        let want = if k == 2 { 5.0 / 6.0 } else { 1.0 / 3.0 };
        assert_eq!(toc["t"].as_f64().unwrap(), want, "{k}: {v}");
        assert!(v["distance"].as_f64().unwrap().abs() < 1e-9, "{k}: {v}");
        let contacts = toc["contacts"].as_array().unwrap();
        assert!(!contacts.is_empty(), "{k}: {v}");
        for c in contacts {
            assert!(c["distance"].as_f64().unwrap() <= 1e-3);
            let (pa, pb) = (vec3(&c["point_a"]), vec3(&c["point_b"]));
            let x = if k == 2 { 0.0 } else { -0.5 };
            assert!((pa[0] - x).abs() < 1e-9 && (pb[0] - x).abs() < 1e-9, "{c}");
            for f in ["a", "b"] {
                let kind = c[f]["kind"].as_str().unwrap();
                assert!(["vertex", "edge", "face"].contains(&kind), "{c}");
                assert!(c[f]["id"].as_u64().is_some());
            }
            assert!((vec3(&c["normal"])[0] - 1.0).abs() < 1e-12, "{c}");
        }
        let (pa, pb) = (vec3(&toc["point_a"]), vec3(&toc["point_b"]));
        assert_eq!(pa, vec3(&v["point_a"]));
        assert_eq!(pb, vec3(&v["point_b"]));
    }
    // The offset square on the square: A's face (at x = −0.5 at t) spans y in [−0.25, 0.75],
    // z in [−0.375, 0.625], B's y, z in [−0.5, 0.5].
    let contacts = out[1]["toc"]["contacts"].as_array().unwrap();
    let vf = contacts
        .iter()
        .filter(|c| {
            c["a"]["kind"] == "vertex" && c["b"]["kind"] == "face"
                || c["a"]["kind"] == "face" && c["b"]["kind"] == "vertex"
        })
        .count();
    // B's corner (0.5, 0.5) lies in A's square; A's corner (y, z) = (−0.25, −0.375) lies in
    // B's square: two vertex–face pairs; the crossing edges give the edge–edge pairs.
    assert_eq!(vf, 2, "{}", out[1]);
    let ee = contacts
        .iter()
        .filter(|c| c["a"]["kind"] == "edge" && c["b"]["kind"] == "edge")
        .count();
    assert_eq!(ee, 2, "{}", out[1]);
}

#[test]
fn no_contact_and_overlap_at_start() {
    let lines = [
        // Passes beside B: never within the threshold.
        toc_line(
            CUBE,
            CUBE,
            r#","pose_a":{"translation":[-3,2,0]},"pose_a1":{"translation":[3,2,0]}"#,
        ),
        // Already interpenetrating at t = 0: contact at 0, not an error.
        toc_line(
            CUBE,
            CUBE,
            r#","pose_a":{"translation":[0.5,0.1,0.2]},"pose_a1":{"translation":[3,0,0]}"#,
        ),
        toc_line(
            KNOT,
            KNOT,
            r#","pose_a":{"translation":[0.1,0,0]},"pose_a1":{"translation":[3,0,0]}"#,
        ),
    ];
    let out = batch(&(lines.join("\n") + "\n"));
    let none = &out[0];
    assert_eq!(none["status"], "disjoint", "{none}");
    assert_eq!(none["toc"]["status"], "none");
    assert_eq!(none["toc"]["t"], Value::Null);
    assert_eq!(none["toc"]["point_a"], Value::Null);
    assert_eq!(none["toc"]["point_b"], Value::Null);
    assert_eq!(none["toc"]["contacts"], serde_json::json!([]));
    // The usual fields are the distance at t = 1: A at (3, 2, 0), B at the origin.
    let d = none["distance"].as_f64().unwrap();
    assert!((d - (2.0f64 * 2.0 + 1.0).sqrt()).abs() < 1e-12, "{none}");
    for v in &out[1..] {
        assert_eq!(v["status"], "overlapping", "{v}");
        assert_eq!(v["toc"]["status"], "contact");
        assert_eq!(v["toc"]["t"].as_f64(), Some(0.0), "{v}");
        assert!(v["toc"]["point_a"].is_array(), "{v}");
        assert_eq!(v["iterations"], 0);
    }
}

/// A torus knot shot at a cube, as a mesh pair and as a mixed pair (the cube convex): the same
/// time, contacts naming the knot's triangles by input face and the cube's features by kind.
#[test]
fn mesh_and_mixed_pairs() {
    let motion = r#","pose_a":{"translation":[-6,0.3,0.2]},"pose_a1":{"translation":[3,0.3,0.2]}"#;
    let lines = [toc_line(KNOT, CUBE, motion), toc_line(KNOT, CUBE_MESH, motion)];
    let out = batch(&(lines.join("\n") + "\n"));
    let t0 = out[0]["toc"]["t"].as_f64().unwrap();
    let t1 = out[1]["toc"]["t"].as_f64().unwrap();
    assert!((t0 - t1).abs() < 1e-12, "{t0} {t1}");
    // The knot's largest x at y = 0.3, z = 0.2 reaches the cube's face x = −0.5.
    assert!(t0 > 0.0 && t0 < 1.0);
    for (v, b_kinds) in out.iter().zip([&["vertex", "edge", "face"][..], &["triangle"][..]]) {
        assert_eq!(v["status"], "touching", "{v}");
        let contacts = v["toc"]["contacts"].as_array().unwrap();
        assert!(!contacts.is_empty(), "{v}");
        for c in contacts {
            assert_eq!(c["a"]["kind"], "triangle", "{c}");
            assert!(b_kinds.contains(&c["b"]["kind"].as_str().unwrap()), "{c}");
            assert!((vec3(&c["point_b"])[0] + 0.5).abs() < 1e-9, "{c}");
        }
    }
}

#[test]
fn bad_input_lines_name_the_key() {
    let cases = [
        ("", "pose_a1"),
        (r#","pose_a1":{"rotation":[0,0,0,0]}"#, "pose_a1"),
        (r#","pose_a1":{},"pose_b1":{"rotation":[0,0,0,0]}"#, "pose_b1"),
        (r#","pose_a1":{"rotation":[1e400,0,0,0]}"#, "pose_a1"),
        (r#","pose_a1":{},"threshold":0"#, "threshold"),
        (r#","pose_a1":{},"threshold":-1"#, "threshold"),
        (r#","pose_a1":{},"threshold":"x""#, "threshold"),
        (r#","pose_a":{"rotation":[0,0,0,0]},"pose_a1":{}"#, "pose_a"),
        (r#","pose_a1":{},"tresholt":1"#, "tresholt"),
    ];
    let input: String = cases
        .iter()
        .map(|(extra, _)| toc_line(CUBE, CUBE, extra) + "\n")
        .collect();
    let out = batch(&input);
    assert_eq!(out.len(), cases.len());
    for (v, (extra, key)) in out.iter().zip(cases) {
        assert_eq!(v["status"], "error", "{extra}: {v}");
        let e = v["error"].as_str().unwrap();
        assert!(e.contains(key), "{extra}: {e}");
    }
}

/// `polycd toc --json` prints the batch's `toc` keys (with its own older ones).
#[test]
fn toc_json_has_the_toc_object() {
    let run = |args: &[&str]| -> Value {
        let out = polycd().arg("toc").args(args).arg("--json").output().unwrap();
        assert!(out.status.success());
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let v = run(&["box:1,1,1", "box:1,1,1", "--pose-a0", "-3 0 0", "--pose-a1", "3 0 0"]);
    let line = toc_line(
        CUBE,
        CUBE,
        r#","pose_a":{"translation":[-3,0,0]},"pose_a1":{"translation":[3,0,0]}"#,
    );
    let b = batch(&(line + "\n"));
    let toc = &b[0]["toc"];
    for k in ["t", "status", "point_a", "point_b", "contacts"] {
        assert_eq!(v[k], toc[k], "{k}: {v} vs {toc}");
    }
    let none = run(&["box:1,1,1", "box:1,1,1", "--pose-a0", "-3 2 0", "--pose-a1", "3 2 0"]);
    assert_eq!(none["status"], "none");
    assert_eq!(none["t"], Value::Null);
    assert_eq!(none["contacts"], serde_json::json!([]));
}
