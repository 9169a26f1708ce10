//! Helpers shared by the CLI's integration tests: running the `polycd` binary and its batch.
#![allow(dead_code)] // each test file uses some of them

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

/// The `polycd` binary under test.
pub fn polycd() -> Command {
    Command::new(env!("CARGO_BIN_EXE_polycd"))
}

/// `polycd batch ARGS` on `input`: its output text (the exit status is not checked).
pub fn batch_raw(input: &str, args: &[&str]) -> String {
    let mut child = polycd()
        .arg("batch")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn polycd");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).expect("UTF-8 answers")
}

/// `polycd batch` on `input`: one JSON value per answer line.
pub fn batch(input: &str) -> Vec<Value> {
    batch_raw(input, &[])
        .lines()
        .map(|l| serde_json::from_str(l).expect("each answer line is JSON"))
        .collect()
}

/// The lines, each ended by a newline.
pub fn lines(v: &[String]) -> String {
    v.iter().map(|l| format!("{l}\n")).collect()
}
