//! A newcomer's first hour (issue 29, items 7-9): the README's command-line examples run as
//! written and answer what the README says, `toc` requires the moving shape's poses and answers
//! in sentences, a directional query without `--direction` names the missing flag, and `demo`
//! opens with one verified worked answer.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn polycd() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_polycd"));
    c.current_dir(root());
    c
}

/// The workspace root: the README's paths are relative to it.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).expect("README.md")
}

fn run(args: &[&str]) -> Output {
    polycd().args(args).output().expect("run polycd")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(args: &[&str]) -> serde_json::Value {
    let o = run(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {}", stdout(&o)))
}

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// The body of the first fenced code block after the line holding `marker`.
fn fenced_after(text: &str, marker: &str) -> String {
    let start = text
        .find(marker)
        .unwrap_or_else(|| panic!("README has no marker {marker:?}"));
    let mut lines = text[start..].lines().skip(1);
    let fence = lines.next().expect("a fence after the marker");
    assert!(
        fence.starts_with("```"),
        "the marker {marker:?} is not followed by a fence: {fence:?}"
    );
    let mut body = String::new();
    for l in lines {
        if l.starts_with("```") {
            return body;
        }
        body.push_str(l);
        body.push('\n');
    }
    panic!("unclosed fence after {marker:?}");
}

/// Splits a shell command line into words (double and single quotes; no escapes or variables,
/// which the README's lines do not use).
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    assert!(quote.is_none(), "unbalanced quote in {line:?}");
    if in_word {
        out.push(cur);
    }
    out
}

/// Every `polycd …` command line in the README's `sh` blocks (continuations joined, trailing
/// `# comments` dropped), as words without the leading `polycd`.
fn readme_command_lines() -> Vec<Vec<String>> {
    let text = readme();
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for l in text.lines() {
        if l.starts_with("```") {
            in_sh = l.trim() == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let l = l.trim();
        if !pending.is_empty() || l.starts_with("polycd ") {
            if let Some(head) = l.strip_suffix('\\') {
                pending.push_str(head);
                pending.push(' ');
                continue;
            }
            pending.push_str(l);
            let line = match pending.find(" #") {
                Some(i) => pending[..i].to_string(),
                None => pending.clone(),
            };
            pending.clear();
            let w = words(&line);
            out.push(w[1..].to_vec());
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Item 7: the README.

/// The README's batch example is one query per line, uses only the documented keys, and
/// `polycd batch` answers it with exactly the README's output (it used to be pretty-printed —
/// 8 lines of "at line 1 column 9" errors when pasted — and to claim distance 2.0 and
/// point_b [3,0,0] where the answer is 1.0 and [2,0,0]).
#[test]
fn readme_batch_example_is_what_polycd_batch_answers() {
    let text = readme();
    let input = fenced_after(&text, "<!-- README test: batch input");
    let expected = fenced_after(&text, "<!-- README test: batch output");
    let documented = ["id", "a", "b", "pose_a", "pose_b", "query", "algorithm", "direction"];
    let lines: Vec<&str> = input.lines().collect();
    assert!(lines.len() >= 2, "{input}");
    for l in &lines {
        let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
        for k in v.as_object().expect("an object per line").keys() {
            assert!(documented.contains(&k.as_str()), "undocumented key {k} in {l}");
        }
    }
    let mut child = polycd()
        .arg("batch")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let got: Vec<serde_json::Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let want: Vec<serde_json::Value> = expected
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("README output line: {e}: {l}")))
        .collect();
    assert_eq!(
        got, want,
        "polycd batch's answers differ from the README's output example"
    );
    // Independently of the README's text: the tetrahedron's vertex (1,0,0) is 1 from the
    // radius-1 icosphere centred at (3,0,0), whose vertex (2,0,0) is the closest point; the box
    // 3 along x touches the other after moving 2 back along -x.
    assert_eq!(got[0]["status"], "disjoint");
    assert!((f(&got[0]["distance"]) - 1.0).abs() < 1e-12, "{}", got[0]);
    for (k, p) in [("point_a", [1.0, 0.0, 0.0]), ("point_b", [2.0, 0.0, 0.0])] {
        for i in 0..3 {
            assert!((f(&got[0][k][i]) - p[i]).abs() < 1e-12, "{}", got[0]);
        }
    }
    assert!((f(&got[1]["directional"]) - 2.0).abs() < 1e-12, "{}", got[1]);
}

/// Every `polycd query|toc|info …` line of the README runs successfully as written (from the
/// repository root, so the worked task's files are found).
#[test]
fn readme_command_lines_run() {
    let mut ran = Vec::new();
    for w in readme_command_lines() {
        if !["query", "toc", "info"].contains(&w[0].as_str()) {
            continue;
        }
        let o = polycd().args(&w).output().unwrap();
        assert!(
            o.status.success(),
            "README line `polycd {}` failed: {}{}",
            w.join(" "),
            stdout(&o),
            stderr(&o)
        );
        assert!(!o.stdout.is_empty(), "`polycd {}` printed nothing", w.join(" "));
        ran.push(w.join(" "));
    }
    // The query lines of the command-line and verify sections, the worked task's three, the
    // CCD section's two toc lines and info.
    assert!(ran.len() >= 7, "only {} README lines ran: {ran:#?}", ran.len());
    for needed in [
        "query examples/cube.obj examples/pyramid.obj --query intersect",
        "query examples/cube.obj examples/pyramid.obj --query distance",
        "toc examples/cube.obj examples/pyramid.obj --pose-a0 0 0 0 --pose-a1 3 0 0",
    ] {
        assert!(
            ran.iter().any(|r| r == needed),
            "the worked task's `{needed}` is not in the README"
        );
    }
}

/// The worked task: the README's answers against the geometry of the two files (unit cube
/// [0,1]³; pyramid apex (2.5, 0.5, 0.5)): disjoint, 1.5 apart between (1, .5, .5) and the apex,
/// and the cube moved 3 along x first touches at t = 1.5 / 3 = 0.5 — convex and as meshes.
#[test]
fn worked_task_two_obj_files() {
    let (a, b) = ("examples/cube.obj", "examples/pyramid.obj");
    let v = json(&["query", a, b, "--query", "intersect", "--json"]);
    assert_eq!(v["status"], "disjoint", "{v}");
    let v = json(&["query", a, b, "--query", "distance", "--json", "--verify"]);
    assert_eq!(v["status"], "disjoint", "{v}");
    assert!((f(&v["distance"]) - 1.5).abs() < 1e-12, "{v}");
    for (k, p) in [("point_a", [1.0, 0.5, 0.5]), ("point_b", [2.5, 0.5, 0.5])] {
        for i in 0..3 {
            assert!((f(&v[k][i]) - p[i]).abs() < 1e-12, "{v}");
        }
    }
    assert_eq!(v["features"]["a"]["kind"], "face", "{v}");
    assert_eq!(v["features"]["b"]["kind"], "vertex", "{v}");
    for mesh in [false, true] {
        let mut args = vec!["toc", a, b, "--pose-a0", "0 0 0", "--pose-a1", "3 0 0", "--json"];
        if mesh {
            args.push("--mesh");
        }
        let v = json(&args);
        assert_eq!(v["status"], "contact", "{v}");
        let t = f(&v["t"]);
        // Never past the contact; within the stop distance (1e-4 × radii ≈ 2e-4 / 3 in t).
        assert!(t <= 0.5 && t > 0.5 - 1e-3, "mesh {mesh}: {v}");
    }
    // The README's text answers say the same.
    let text = readme();
    let out = stdout(&run(&["query", a, b, "--query", "distance"]));
    assert!(out.contains("distance:        1.5"), "{out}");
    assert!(
        text.contains(out.trim_end()),
        "the README's distance output differs from polycd's:\n{out}"
    );
    let out = stdout(&run(&["query", a, b, "--query", "intersect"]));
    assert!(
        text.contains(out.trim_end()),
        "the README's intersect output differs from polycd's:\n{out}"
    );
    let out = stdout(&run(&["toc", a, b, "--pose-a0", "0 0 0", "--pose-a1", "3 0 0"]));
    assert!(
        text.contains(out.trim_end()),
        "the README's toc output differs from polycd's:\n{out}"
    );
}

// ---------------------------------------------------------------------------------------------
// Item 8: toc's poses and text, the directional query's missing flag.

/// `polycd toc cube cube` used to answer contact at t = 0 (both poses defaulted to identity)
/// and `--pose-a0` alone "none": the moving shape's two poses are now required, with a usage
/// error (status 2) naming the missing flag; `--help` states B's defaults.
#[test]
fn toc_requires_the_moving_shapes_poses() {
    for (args, missing) in [
        (&["toc", "cube", "cube"][..], "--pose-a0"),
        (&["toc", "cube", "cube", "--pose-a0", "-3 0.2 0"][..], "--pose-a1"),
        (&["toc", "cube", "cube", "--pose-a1", "3 0.2 0"][..], "--pose-a0"),
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stdout(&o));
        assert!(o.stdout.is_empty(), "{args:?}: {}", stdout(&o));
        assert!(stderr(&o).contains(missing), "{args:?}: {}", stderr(&o));
    }
    let help = stdout(&run(&["toc", "--help"]));
    assert!(help.contains("identity"), "{help}");
    assert!(help.contains("B fixed"), "{help}");
    assert!(help.contains("fraction of the motion"), "{help}");
}

/// `toc`'s text answer is a sentence and labelled numbers (it was a dump: `status: "contact"`,
/// `overlapping: true`); `--json` keeps the machine format.
#[test]
fn toc_text_is_a_sentence_and_labelled_numbers() {
    let args = ["toc", "cube", "cube", "--pose-a0", "-3 0.2 0", "--pose-a1", "3 0.2 0"];
    let out = stdout(&run(&args));
    assert!(out.starts_with("answer:         A first touches B at t = "), "{out}");
    assert!(!out.contains('"') && !out.contains("status"), "{out}");
    let v = json(&[&args[..], &["--json"]].concat());
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "status",
            "t",
            "iterations",
            "distance",
            "pose_a",
            "pose_b",
            "point_a",
            "point_b",
            "features",
            "contacts"
        ]
    );
    // The text's t is the JSON's, which is 1/3 (the centres 1 apart) within the stop distance.
    let t = f(&v["t"]);
    assert!(t <= 1.0 / 3.0 + 1e-12 && t > 1.0 / 3.0 - 1e-4, "{v}");
    let line = out.lines().find(|l| l.starts_with("t:")).expect("a t line");
    let text_t: f64 = line[2..].split_whitespace().next().unwrap().parse().unwrap();
    assert_eq!(text_t, t, "{out}");
    for label in [
        "gap at t:",
        "A at t:",
        "B at t:",
        "point on A:",
        "point on B:",
        "features:",
        "iterations:",
    ] {
        assert!(out.contains(label), "no {label} in\n{out}");
    }

    // Passing by: said in words.
    let out = stdout(&run(&[
        "toc",
        "cube",
        "cube",
        "--pose-a0",
        "-3 5 0",
        "--pose-a1",
        "3 5 0",
    ]));
    assert!(out.contains("A does not touch B during the motion"), "{out}");

    // Overlapping where the motion starts, convex and mesh (the mesh used to print
    // `overlapping: true`).
    for mesh in [false, true] {
        let mut args = vec!["toc", "cube", "cube", "--pose-a0", "0.5 0 0", "--pose-a1", "1 0 0"];
        if mesh {
            args.push("--mesh");
        }
        let out = stdout(&run(&args));
        assert!(out.contains("A and B already overlap at t = 0"), "mesh {mesh}: {out}");
        assert!(!out.contains("overlapping: true"), "{out}");
        let v = json(&[&args[..], &["--json"]].concat());
        assert_eq!(v["status"], "contact");
        assert_eq!(f(&v["t"]), 0.0);
        if mesh {
            assert_eq!(v["overlapping"], true, "the JSON keeps its key: {v}");
        }
    }

    // Not converged: the bound and the contact-free time, in words.
    let o = run(&[
        "toc",
        "icosphere:2",
        "cube",
        "--pose-a0",
        "-3 0 0",
        "--pose-a1",
        "3 0.3 0 0.3 0 0.95 0",
        "--max-iterations",
        "1",
    ]);
    assert!(!o.status.success());
    let out = stdout(&o);
    assert!(
        out.contains("no answer: the advancement hit its bound of 1 steps"),
        "{out}"
    );
    assert!(out.contains("apart until t:"), "{out}");
}

/// `polycd query cube cube --pose-b "3 0 0" --query directional` said "direction must be a finite
/// non-zero vector": it now names the missing flag. A line along which no translation touches
/// says so in the text answer.
#[test]
fn directional_query_names_the_missing_flag_and_says_never() {
    let o = run(&["query", "cube", "cube", "--pose-b", "3 0 0", "--query", "directional"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.starts_with("polycd: ") && err.contains("--direction"), "{err}");
    assert!(!err.contains("finite non-zero"), "{err}");

    // 5 off the line: no translation along x makes the unit cubes touch.
    let args = [
        "query",
        "cube",
        "cube",
        "--pose-b",
        "0 5 0",
        "--query",
        "directional",
        "--direction",
        "1 0 0",
    ];
    let v = json(&[&args[..], &["--json"]].concat());
    assert!(v["directional"].is_null(), "{v}");
    let o = run(&args);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(
        out.contains("directional t:   none: no translation of B along the direction makes it touch A"),
        "{out}"
    );
    // And a contact is still a number: B 3 along x touches after moving 2 back.
    let out = stdout(&run(&[
        "query",
        "cube",
        "cube",
        "--pose-b",
        "3 0 0",
        "--query",
        "directional",
        "--direction",
        "-1 0 0",
    ]));
    assert!(out.contains("directional t:   2.00000000000000000e0"), "{out}");
}

// ---------------------------------------------------------------------------------------------
// Item 9: the demo opens with a worked answer.

/// `polycd demo` opens with one answer in full, checked by `polycd::verify`, before the tables:
/// a unit cube and an octahedron (circumradius 1) centred at (2.2, 0.1, 0.2) are 0.7 apart,
/// between the cube's face x = 0.5 and the octahedron's vertex (1.2, 0.1, 0.2).
#[test]
fn demo_opens_with_a_verified_worked_answer() {
    let o = run(&["demo", "--pairs", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let first_table = out.find("== ").expect("the demo's tables");
    let head = &out[..first_table];
    let value = |label: &str| -> String {
        let l = head
            .lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap_or_else(|| panic!("no {label} before the tables:\n{head}"));
        l.trim_start()[label.len()..].trim().to_string()
    };
    let d: f64 = value("distance:").split_whitespace().next().unwrap().parse().unwrap();
    assert!((d - 0.7).abs() < 1e-12, "{head}");
    let point = |s: String| -> Vec<f64> {
        s.trim_matches(|c| c == '[' || c == ']')
            .split(',')
            .map(|x| x.trim().parse().unwrap())
            .collect()
    };
    let pa = point(value("closest point on A:"));
    let pb = point(value("closest point on B:"));
    for (p, q) in [(pa, [0.5, 0.1, 0.2]), (pb, [1.2, 0.1, 0.2])] {
        for i in 0..3 {
            assert!((p[i] - q[i]).abs() < 1e-12, "{head}");
        }
    }
    let features = value("closest features:");
    assert!(
        features.starts_with("A face ") && features.contains("B vertex "),
        "{head}"
    );
    assert!(value("separating plane:").starts_with("normal ["), "{head}");
    assert!(value("verified:").starts_with("yes"), "{head}");
    // The command it shows answers the same.
    let cmd = head
        .lines()
        .find(|l| l.trim_start().starts_with("polycd query"))
        .expect("the equivalent command line");
    let w = words(cmd.trim().trim_end_matches(')'));
    let v = json(&[&w[1..].iter().map(|s| s.as_str()).collect::<Vec<_>>()[..], &["--json"]].concat());
    assert!((f(&v["distance"]) - d).abs() < 1e-12, "{v}");
}
