//! End-to-end tests of the `polycd` binary.

use std::io::Write;
use std::process::{Command, Stdio};

fn polycd() -> Command {
    Command::new(env!("CARGO_BIN_EXE_polycd"))
}

fn batch(input: &str) -> Vec<serde_json::Value> {
    let mut child = polycd()
        .arg("batch")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn polycd");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each answer line is JSON"))
        .collect()
}

#[test]
fn demo_runs_on_built_in_shapes() {
    let out = polycd().args(["demo", "--pairs", "5"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("n = 1000"));
}

#[test]
fn batch_answers_every_line_in_order() {
    let input = concat!(
        r#"{"id": 1, "a": {"shape": "box:1,1,1"}, "b": {"shape": "box:1,1,1"}, "pose_b": {"translation": [3, 0, 0]}, "query": "intersect"}"#,
        "\n",
        "this is not json\n",
        r#"{"id": "few", "a": {"vertices": [[0,0,0],[1,0,0],[0,1,0]]}, "b": {"shape": "cube"}, "query": "distance"}"#,
        "\n",
        r#"{"id": 4, "a": {"shape": "cube"}, "b": {"shape": "cube"}, "pose_b": {"rotation": [0, 0, 0, 0]}}"#,
        "\n",
        r#"{"id": 5, "a": {"shape": "cube"}, "b": {"shape": "cube"}, "algorithm": "nonsense"}"#,
        "\n",
        r#"{"id": 6, "a": {"shape": "cube"}, "b": {"vertices": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], "faces": [[0,1,2]]}}"#,
        "\n",
    );
    let ans = batch(input);
    assert_eq!(ans.len(), 6);
    assert_eq!(ans[0]["id"], 1);
    assert_eq!(ans[1]["status"], "error");
    assert!(ans[1]["error"].as_str().unwrap().contains("JSON"));
    assert_eq!(ans[2]["id"], "few");
    assert_eq!(ans[2]["status"], "error");
    assert!(ans[2]["error"].as_str().unwrap().contains("too few points"));
    assert_eq!(ans[3]["status"], "error");
    assert!(ans[3]["error"].as_str().unwrap().contains("quaternion"));
    assert_eq!(ans[4]["status"], "error");
    assert!(ans[4]["error"].as_str().unwrap().contains("unknown algorithm"));
    assert_eq!(ans[5]["status"], "error");
    for a in &ans {
        for key in [
            "id",
            "status",
            "distance",
            "signed_distance",
            "directional",
            "point_a",
            "point_b",
            "features",
            "iterations",
            "error",
        ] {
            assert!(a.get(key).is_some(), "missing key {key} in {a}");
        }
    }
}

#[test]
fn info_and_errors() {
    let out = polycd().args(["info", "icosphere:3"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("vertices:         642"));
    assert!(text.contains("faces:            1280"));
    let out = polycd().args(["info", "nonsense:1"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "one clear line: {err}");
    let out = polycd().args(["info", "missing.obj"]).output().unwrap();
    assert!(!out.status.success());
    let out = polycd()
        .args(["query", "cube", "cube", "--pose-b", "1 2"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8(out.stderr).unwrap().contains("pose"));
}
