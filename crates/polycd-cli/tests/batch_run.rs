//! Issue 27 item 3: named shapes (`define` / `ref`), the shape cache by content, `batch
//! --threads N` (answers in input order, the same bytes for every N) and the streaming run's
//! bounded memory.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

/// `polycd batch` with `args` on `input`: (stdout, exit code).
fn batch_with(args: &[&str], input: &str) -> (String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_polycd"))
        .arg("batch")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn polycd");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    // Written from a thread: the answers stream out while the input streams in.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    (String::from_utf8(out.stdout).unwrap(), out.status.code().unwrap_or(-1))
}

fn lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("an answer is JSON"))
        .collect()
}

const TET: &str = "[[0,0,0],[1,0,0],[0,1,0],[0,0,1]]";

/// The issue's format exactly: a define line is answered `{"id":…,"status":"defined","error":null}`,
/// a `ref` gives the answer the same shape inline gives, redefining is an error line, a `ref`
/// to a name not defined before the line (never, or later) is an error naming the key and the
/// name, a `ref` with another key is an error naming that key.
#[test]
fn define_and_ref() {
    let input = [
        r#"{"id": 1, "a": {"ref": "tet"}, "b": {"shape": "cube"}}"#.to_string(),
        format!(r#"{{"define": "tet", "shape": {{"vertices": {TET}}}, "id": "d"}}"#),
        r#"{"define": "ball", "shape": {"shape": "icosphere:2"}}"#.to_string(),
        r#"{"define": "tet", "shape": {"shape": "cube"}}"#.to_string(),
        r#"{"id": 2, "a": {"ref": "tet"}, "b": {"ref": "ball"}, "pose_b": {"translation": [3, 0, 0]}, "query": "distance"}"#.to_string(),
        format!(r#"{{"id": 2, "a": {{"vertices": {TET}}}, "b": {{"shape": "icosphere:2"}}, "pose_b": {{"translation": [3, 0, 0]}}, "query": "distance"}}"#),
        r#"{"id": 3, "a": {"ref": "tet", "radius": 0.5}, "b": {"ref": "ball"}}"#.to_string(),
        r#"{"id": 4, "a": {"ref": "ball"}, "b": {"ref": "nowhere"}}"#.to_string(),
        r#"{"id": 5, "a": {"ref": "later"}, "b": {"ref": "ball"}}"#.to_string(),
        r#"{"define": "later", "shape": {"shape": "cube"}}"#.to_string(),
        r#"{"id": 6, "a": {"ref": "later"}, "b": {"ref": "ball"}, "pose_b": {"translation": [0, 0, 5]}, "query": "distance"}"#.to_string(),
        r#"{"define": "broken", "shape": {"vertices": [[0,0,0],[1e400,0,0]]}}"#.to_string(),
        r#"{"id": 7, "a": {"ref": "broken"}, "b": {"ref": "ball"}}"#.to_string(),
        r#"{"define": "x", "shape": {"shape": "cube"}, "colour": "red"}"#.to_string(),
        r#"{"define": "", "shape": {"shape": "cube"}}"#.to_string(),
        r#"{"define": "y"}"#.to_string(),
        r#"{"define": "alias", "shape": {"ref": "tet"}}"#.to_string(),
        r#"{"id": 8, "a": {"ref": "alias"}, "b": {"ref": "ball"}, "pose_b": {"translation": [3, 0, 0]}, "query": "distance"}"#.to_string(),
    ]
    .join("\n");
    let (text, code) = batch_with(&[], &input);
    assert_eq!(code, 1);
    let raw: Vec<&str> = text.lines().collect();
    assert_eq!(raw.len(), 18, "{text}");
    assert_eq!(raw[1], r#"{"id":"d","status":"defined","error":null}"#);
    assert_eq!(raw[2], r#"{"id":null,"status":"defined","error":null}"#);
    assert_eq!(raw[9], r#"{"id":null,"status":"defined","error":null}"#);
    assert_eq!(raw[16], r#"{"id":null,"status":"defined","error":null}"#);
    let v = lines(&text);
    let err = |i: usize| {
        v[i]["error"]
            .as_str()
            .unwrap_or_else(|| panic!("line {i}: {}", raw[i]))
            .to_string()
    };
    assert!(
        err(0).starts_with("a: \"ref\": no shape named \"tet\" is defined before this line"),
        "{}",
        err(0)
    );
    assert_eq!(v[3]["status"], "error");
    assert!(err(3).contains("\"tet\" is already defined (line 2)"), "{}", err(3));
    // The reference answer: the same shapes inline.
    assert_eq!(v[4]["status"], "disjoint");
    assert_eq!(raw[4], raw[5]);
    assert_eq!(raw[17].replace("\"id\":8", "\"id\":2"), raw[5]);
    assert!(
        err(6).starts_with("a: \"ref\" takes no other key (found \"radius\")"),
        "{}",
        err(6)
    );
    assert!(
        err(7).starts_with("b: \"ref\": no shape named \"nowhere\""),
        "{}",
        err(7)
    );
    assert!(err(8).starts_with("a: \"ref\": no shape named \"later\""), "{}", err(8));
    assert_eq!(v[10]["status"], "disjoint");
    assert_eq!(v[10]["distance"], 3.5);
    assert!(err(11).contains("coordinates must be finite"), "{}", err(11));
    assert!(
        err(12).starts_with("a: \"ref\": the definition of \"broken\" (line 12) failed"),
        "{}",
        err(12)
    );
    assert!(
        err(13).contains("unknown key \"colour\" in the define line"),
        "{}",
        err(13)
    );
    assert!(err(14).contains("must not be empty"), "{}", err(14));
    assert!(err(15).contains("missing \"shape\""), "{}", err(15));
}

/// A mixed input of every kind of line — define lines (some bad, some repeated), refs before
/// and after their definitions, inline shapes repeated (the cache) and near-identical (one
/// coordinate one unit in the last place apart: never a wrong hit), bad lines — longer than
/// one chunk, with a definition on the chunk boundary: 1, 2 and 3 threads print the same
/// bytes, and every ref line gives the answer of the same line with its shapes inline.
#[test]
fn threads_give_the_same_bytes_and_refs_equal_inline_shapes() {
    let shapes = [
        ("tet", format!(r#"{{"vertices": {TET}}}"#)),
        ("tet2", r#"{"vertices": [[0,0,0],[1.0000000000000002,0,0],[0,1,0],[0,0,1]]}"#.to_string()),
        ("ball", r#"{"shape": "icosphere:1"}"#.to_string()),
        ("rbox", r#"{"shape": "box:1,2,3", "radius": 0.25}"#.to_string()),
        (
            "cubef",
            r#"{"vertices": [[0,0,0],[1,0,0],[1,1,0],[0,1,0],[0,0,1],[1,0,1],[1,1,1],[0,1,1]], "faces": [[0,3,2,1],[4,5,6,7],[0,1,5,4],[1,2,6,5],[2,3,7,6],[3,0,4,7]]}"#.to_string(),
        ),
    ];
    let queries = ["intersect", "distance", "directional"];
    let mut input = String::new();
    let mut inline = String::new();
    let mut ref_lines = Vec::new();
    let chunk = polycd_cli::batch_run::CHUNK_LINES;
    let mut n = 0usize;
    let mut push = |input: &mut String, inline: &mut String, line: String, same: String| {
        input.push_str(&line);
        input.push('\n');
        inline.push_str(&same);
        inline.push('\n');
        n += 1;
        n
    };
    for i in 0..(2 * chunk + 500) {
        // The definitions: "ball" early, the others on and around the first chunk boundary.
        let def_at = |k: usize| match k {
            0 => 3,
            1 => chunk - 1,
            2 => chunk,
            3 => chunk + 1,
            _ => 2 * chunk - 7,
        };
        for (k, (name, shape)) in shapes.iter().enumerate() {
            if i == def_at(k) {
                let line = format!(r#"{{"define": "{name}", "shape": {shape}}}"#);
                push(&mut input, &mut inline, line.clone(), line);
            }
        }
        let (ka, kb) = (i % shapes.len(), (i / 7) % shapes.len());
        let q = queries[i % 3];
        let t = [((i * 37) % 100) as f64 / 25.0 - 2.0, 0.1 * (i % 5) as f64, -0.3];
        let rest = format!(
            r#""pose_b": {{"translation": [{}, {}, {}], "rotation": [0.9, 0.1, {}, 0.2]}}, "query": "{q}", "direction": [-1, 0.5, 0]}}"#,
            t[0],
            t[1],
            t[2],
            (i % 11) as f64 / 10.0
        );
        let line = format!(
            r#"{{"id": {i}, "a": {{"ref": "{}"}}, "b": {{"ref": "{}"}}, {rest}"#,
            shapes[ka].0, shapes[kb].0
        );
        let same = format!(r#"{{"id": {i}, "a": {}, "b": {}, {rest}"#, shapes[ka].1, shapes[kb].1);
        let at = push(&mut input, &mut inline, line, same);
        let defined_before = |k: usize| def_at(k) <= i;
        if defined_before(ka) && defined_before(kb) {
            ref_lines.push(at - 1);
        }
        if i % 97 == 0 {
            push(&mut input, &mut inline, "not json".into(), "not json".into());
        }
        if i % 1013 == 0 {
            let line = format!(r#"{{"define": "tet", "shape": {}}}"#, shapes[0].1);
            push(&mut input, &mut inline, line.clone(), line);
        }
    }
    let (one, code1) = batch_with(&["--threads", "1"], &input);
    let (two, code2) = batch_with(&["--threads", "2"], &input);
    let (three, code3) = batch_with(&["--threads", "3"], &input);
    assert_eq!((code1, code2, code3), (1, 1, 1));
    assert_eq!(one.lines().count(), n);
    assert!(one == two, "--threads 1 and 2 differ");
    assert!(one == three, "--threads 1 and 3 differ");
    let (inl, _) = batch_with(&["--threads", "2"], &inline);
    let a: Vec<&str> = one.lines().collect();
    let b: Vec<&str> = inl.lines().collect();
    assert!(ref_lines.len() > chunk / 2, "{}", ref_lines.len());
    for &k in &ref_lines {
        assert_eq!(a[k], b[k], "line {}", k + 1);
        assert!(!a[k].contains("\"status\":\"error\""), "line {}: {}", k + 1, a[k]);
    }
}

/// The near-identical shapes of the cache test, each alone in its own run, give the answers
/// they give side by side in one run (the cache never answers one with the other).
#[test]
fn the_shape_cache_compares_content() {
    let a = r#"{"vertices": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]]}"#;
    let b = r#"{"vertices": [[0,0,0],[1.0000000000000002,0,0],[0,1,0],[0,0,1]]}"#;
    let c = r#"{"vertices": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], "radius": 0.5}"#;
    let line = |s: &str| {
        format!(
            r#"{{"a": {s}, "b": {{"shape": "cube"}}, "pose_b": {{"translation": [1.5, 0, 0]}}, "query": "distance"}}"#
        )
    };
    let alone: Vec<String> = [a, b, c].iter().map(|s| batch_with(&[], &line(s)).0).collect();
    let together = batch_with(&[], &[a, b, c, a, b, c].map(line).join("\n")).0;
    let t: Vec<&str> = together.lines().collect();
    for k in 0..6 {
        assert_eq!(t[k], alone[k % 3].trim_end(), "line {}", k + 1);
    }
    assert_ne!(alone[0], alone[1]);
    assert_ne!(alone[0], alone[2]);
}

/// Streaming: 400 000 lines (~100 MB in, ~130 MB out) through `polycd batch --threads 2`
/// while its peak resident memory stays under 64 MiB (Linux: /proc's VmHWM).
#[test]
fn the_streaming_run_holds_a_window_not_the_input() {
    if !std::path::Path::new("/proc/self/status").exists() {
        eprintln!("SKIPPED: no /proc to read the peak memory from");
        return;
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_polycd"))
        .args(["batch", "--threads", "2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        let (mut bytes, mut newlines) = (0usize, 0usize);
        loop {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => return (bytes, newlines),
                Ok(k) => {
                    bytes += k;
                    newlines += buf[..k].iter().filter(|&&c| c == b'\n').count();
                }
            }
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    let lines = 400_000usize;
    let mut written = 0usize;
    let mut block = String::new();
    block.push_str("{\"define\": \"cube\", \"shape\": {\"shape\": \"cube\"}}\n{\"define\": \"ico\", \"shape\": {\"shape\": \"icosahedron\"}}\n");
    for i in 2..lines {
        block.push_str(&format!(
            "{{\"id\": {i}, \"a\": {{\"ref\": \"cube\"}}, \"b\": {{\"ref\": \"ico\"}}, \"pose_a\": {{\"translation\": [0, 0, 0], \"rotation\": [1, 0, 0, 0]}}, \"pose_b\": {{\"translation\": [{}, 0.31830988618379067, -0.7071067811865476], \"rotation\": [0.9238795325112867, 0.0, 0.3826834323650898, 0.0]}}, \"query\": \"distance\"}}\n",
            1.0 + (i % 1000) as f64 * 0.0031415926535897933
        ));
        if block.len() > 1 << 20 {
            written += block.len();
            stdin.write_all(block.as_bytes()).unwrap();
            block.clear();
        }
    }
    written += block.len();
    stdin.write_all(block.as_bytes()).unwrap();
    // The peak before the end of the input: everything so far went through the window.
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    drop(stdin);
    let (bytes, newlines) = reader.join().unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(newlines, lines);
    let hwm_kb: usize = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/PID/status");
    assert!(written > 90 << 20 && bytes > written, "{written} in, {bytes} out");
    assert!(hwm_kb < 64 << 10, "peak resident memory {hwm_kb} kB");
}
