//! End-to-end tests of the `polycd` binary.

use std::io::Write;
use std::process::{Command, Stdio};

fn polycd() -> Command {
    Command::new(env!("CARGO_BIN_EXE_polycd"))
}

/// `polycd batch` on `input`: its output text.
fn batch_text(input: &str) -> String {
    let mut child = polycd()
        .arg("batch")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn polycd");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

fn batch(input: &str) -> Vec<serde_json::Value> {
    batch_text(input)
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

/// Input the format allows but the first parser refused or misread (found by an independent
/// exact-arithmetic audit of `polycd batch`, 2026-11-26): a number beyond the f64 range (the
/// line was "invalid JSON" and lost its id), an id beyond 64 bits (echoed rounded), a
/// "faces" value that is not a list (ignored), quaternions and directions of lengths 1e-20 …
/// 1e160 (refused as zero or infinite, though any non-zero length is normalised), a leading
/// byte-order mark ("invalid JSON").
#[test]
fn batch_input_edge_cases() {
    let input = concat!(
        r#"{"id":"faces-type","a":{"vertices":[[0,0,0],[1,0,0],[0,1,0],[0,0,1]],"faces":"x"},"b":{"shape":"cube"}}"#,
        "\n",
        r#"{"id":"inf-coordinate","a":{"vertices":[[0,0,0],[1e400,0,0],[0,1,0],[0,0,1]]},"b":{"shape":"cube"}}"#,
        "\n",
        r#"{"id":123456789012345678901234567890,"a":{"shape":"cube"},"b":{"shape":"cube"}}"#,
        "\n",
        r#"{"id":"tiny-quat","a":{"shape":"cube"},"b":{"shape":"box:1,2,3"},"pose_b":{"translation":[3,0,0],"rotation":[1e-20,0,0,0]},"query":"distance"}"#,
        "\n",
        r#"{"id":"huge-quat","a":{"shape":"cube"},"b":{"shape":"box:1,2,3"},"pose_b":{"translation":[3,0,0],"rotation":[1e160,0,0,0]},"query":"distance"}"#,
        "\n",
        r#"{"id":"tiny-dir","a":{"shape":"cube"},"b":{"shape":"cube"},"pose_b":{"translation":[3,0,0]},"query":"directional","direction":[1e-200,0,0]}"#,
        "\n",
        r#"{"id":"huge-dir","a":{"shape":"cube"},"b":{"shape":"cube"},"pose_b":{"translation":[3,0,0]},"query":"directional","direction":[1e155,0,0]}"#,
        "\n",
        "\u{feff}",
        r#"{"id":"bom","a":{"shape":"cube"},"b":{"shape":"cube"}}"#,
        "\n",
    );
    let text = batch_text(input);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 8);
    let ans: Vec<serde_json::Value> = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(ans[0]["id"], "faces-type");
    assert_eq!(ans[0]["status"], "error");
    assert!(ans[0]["error"].as_str().unwrap().contains("faces"), "{}", ans[0]);
    assert_eq!(ans[1]["id"], "inf-coordinate");
    assert_eq!(ans[1]["status"], "error");
    assert!(ans[1]["error"].as_str().unwrap().contains("finite"), "{}", ans[1]);
    assert!(
        lines[2].starts_with(r#"{"id":123456789012345678901234567890,"#),
        "{}",
        lines[2]
    );
    assert_eq!(ans[2]["status"], "overlapping");
    for a in &ans[3..5] {
        assert_eq!(a["status"], "disjoint", "{a}");
        assert!((a["distance"].as_f64().unwrap() - 2.0).abs() < 1e-12, "{a}");
    }
    for a in &ans[5..7] {
        assert_eq!(a["status"], "disjoint", "{a}");
        assert!((a["directional"].as_f64().unwrap() + 2.0).abs() < 1e-12, "{a}");
    }
    assert_eq!(ans[7]["id"], "bom");
    assert_eq!(ans[7]["status"], "overlapping");
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

#[test]
fn bench_lists_its_scenarios() {
    let out = polycd().args(["bench", "--list"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for name in [
        "ellipsoid-sweep",
        "coherence",
        "degeneracy",
        "qp-scaling",
        "support",
        "random-distance",
    ] {
        assert!(text.contains(name), "{name} missing from {text}");
    }
    let out = polycd().args(["bench", "no-such-scenario"]).output().unwrap();
    assert!(!out.status.success());
}

#[test]
fn query_answers_and_verifies() {
    for algo in ["auto", "gjk", "vclip", "qp", "qp_fast"] {
        let out = polycd()
            .args([
                "query",
                "box:1,1,1",
                "box:1,1,1",
                "--pose-b",
                "3 0 0",
                "--query",
                "distance",
                "--algo",
                algo,
                "--json",
                "--verify",
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{algo}: {}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["status"], "disjoint");
        assert!((v["distance"].as_f64().unwrap() - 2.0).abs() < 1e-12, "{algo}: {v}");
    }
    for algo in ["auto", "gjk", "cd_dual"] {
        let out = polycd()
            .args([
                "query",
                "cube",
                "cube",
                "--pose-b",
                "0.5 0 0",
                "--query",
                "directional",
                "--direction",
                "1 0 0",
                "--algo",
                algo,
                "--json",
                "--verify",
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{algo}: {}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["status"], "overlapping");
        assert!((v["directional"].as_f64().unwrap() - 0.5).abs() < 1e-12, "{algo}: {v}");
    }
}

#[test]
fn hull_writes_a_mesh_and_info_reads_it() {
    let dir = std::env::temp_dir().join(format!("polycd-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pts = dir.join("points.txt");
    let mut text = String::new();
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                text.push_str(&format!("{i} {j} {k}\n"));
            }
        }
    }
    std::fs::write(&pts, text).unwrap();
    let obj = dir.join("hull.obj");
    let out = polycd()
        .args(["hull", pts.to_str().unwrap(), "-o", obj.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = polycd().args(["info", obj.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("vertices:         8") && text.contains("faces:            6"),
        "{text}"
    );
    std::fs::write(dir.join("broken.off"), "OFF\n8 6 0\n0 0 0\n").unwrap();
    let out = polycd()
        .args(["info", dir.join("broken.off").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("broken.off"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn toc_json(args: &[&str]) -> (bool, serde_json::Value) {
    let out = polycd().arg("toc").args(args).arg("--json").output().unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out.status.success(), v)
}

#[test]
fn toc_convex_mesh_and_errors() {
    // A unit cube shot at another along x: contact when the centres are 1 apart, t = 1/3.
    let (ok, v) = toc_json(&["cube", "cube", "--pose-a0", "-3 0.2 0", "--pose-a1", "3 0.2 0"]);
    assert!(ok);
    assert_eq!(v["status"], "contact");
    let t = v["t"].as_f64().unwrap();
    assert!(t <= 1.0 / 3.0 + 1e-12 && t > 1.0 / 3.0 - 1e-4, "{v}");
    // Passing by.
    let (ok, v) = toc_json(&["cube", "cube", "--pose-a0", "-3 5 0", "--pose-a1", "3 5 0"]);
    assert!(ok);
    assert_eq!(v["status"], "none");
    // Torus knots (meshes), rotating on the way.
    let (ok, v) = toc_json(&[
        "torus-knot:2,3:40,6",
        "torus-knot:2,3:40,6",
        "--pose-a0",
        "-9 0.5 0",
        "--pose-a1",
        "9 0.5 0 0.7071 0.7071 0 0",
    ]);
    assert!(ok);
    assert_eq!(v["status"], "contact", "{v}");
    assert!(v["triangles"].is_array());
    // Bad input: one-line errors, non-zero status.
    for args in [
        &["cube", "cube", "--threshold", "-1"][..],
        &["torus-knot:2,3:2,6", "cube"][..],
        &["cube", "cube", "--pose-a0", "nan 0 0"][..],
    ] {
        let out = polycd().arg("toc").args(args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("polycd: "));
    }
    // The iteration bound: a typed non-convergence answer.
    let (ok, v) = toc_json(&[
        "icosphere:2",
        "cube",
        "--pose-a0",
        "-3 0 0",
        "--pose-a1",
        "3 0.3 0 0.3 0 0.95 0",
        "--max-iterations",
        "1",
    ]);
    assert!(!ok);
    assert_eq!(v["status"], "not_converged", "{v}");
}

/// `info --timings` adds one line of phase times on stderr and changes nothing on stdout;
/// without it, stderr stays empty when it is not a terminal (no progress bar drawn).
#[test]
fn info_timings_and_quiet_stderr() {
    let dir = std::env::temp_dir().join(format!("polycd-cli-timings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pts = dir.join("sphere.txt");
    // 3000 points on a Fibonacci sphere: every point is a hull vertex.
    let n = 3000;
    let mut text = String::new();
    for i in 0..n {
        let z = 1.0 - (2.0 * i as f64 + 1.0) / n as f64;
        let r = (1.0 - z * z).sqrt();
        let phi = i as f64 * std::f64::consts::PI * (3.0 - 5f64.sqrt());
        text.push_str(&format!("{} {} {}\n", r * phi.cos(), r * phi.sin(), z));
    }
    std::fs::write(&pts, text).unwrap();
    let path = pts.to_str().unwrap();
    let plain = polycd().args(["info", path]).output().unwrap();
    assert!(plain.status.success());
    assert!(plain.stderr.is_empty(), "{}", String::from_utf8_lossy(&plain.stderr));
    let stdout = String::from_utf8(plain.stdout.clone()).unwrap();
    assert!(stdout.contains(&format!("vertices:         {n}")), "{stdout}");
    assert!(stdout.contains("valid:            yes"), "{stdout}");
    let timed = polycd().args(["info", "--timings", path]).output().unwrap();
    assert!(timed.status.success());
    assert_eq!(timed.stdout, plain.stdout);
    let err = String::from_utf8(timed.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    for phase in ["read", "hull", "merge", "topology", "tables", "validate", "total"] {
        assert!(err.contains(&format!(" {phase} ")), "{phase} missing: {err}");
    }
    let obj = dir.join("hull.obj");
    let out = polycd()
        .args(["hull", "--timings", path, "-o", obj.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .starts_with("timings (wall): read "));
    let _ = std::fs::remove_dir_all(&dir);
}
