//! Smoke test: every scenario runs in quick mode into a temporary directory and writes its CSV
//! file(s). Timings and the agreement of not-yet-merged algorithms are not asserted (the
//! harness reports them); only the structure of the output is.

use polycd_bench::{run, scenarios, RunOptions};
use std::path::PathBuf;

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("polycd-bench-quick-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn every_scenario_runs_quick_and_writes_csv() {
    let dir = temp_dir("all");
    let opts = RunOptions {
        quick: true,
        out_dir: dir.clone(),
        progress: false,
        seed: 7,
    };
    assert!(scenarios().len() >= 6);
    for s in scenarios() {
        let report = run(s.name, &opts).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        assert_eq!(report.name, s.name);
        assert!(!report.table.is_empty(), "{}: empty table", s.name);
        let csv = dir.join(format!("{}.csv", s.name));
        let text = std::fs::read_to_string(&csv).unwrap_or_else(|e| panic!("{}: {e}", csv.display()));
        assert!(text.lines().count() >= 2, "{}: CSV without data rows", s.name);
        let header_cols = text.lines().next().map(|l| l.split(',').count()).unwrap_or(0);
        assert!(header_cols >= 4, "{}: CSV header too short", s.name);
        assert!(
            dir.join(format!("{}-disagreements.csv", s.name)).exists(),
            "{}: no disagreements file",
            s.name
        );
        for f in &report.files {
            assert!(f.exists(), "{} listed but missing", f.display());
        }
        // The peer is always available, so at least one method produced a row with a time.
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_scenario_is_an_error() {
    let opts = RunOptions {
        quick: true,
        out_dir: temp_dir("unknown"),
        ..RunOptions::default()
    };
    let err = run("no-such-scenario", &opts).unwrap_err();
    assert!(err.contains("ellipsoid-sweep"), "{err}");
}
