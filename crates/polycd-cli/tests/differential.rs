//! The differential run (issue 8) with a small number of pairs: every algorithm agrees with the
//! brute-force oracle and every certificate verifies. The full run is
//! `cargo run --release -p polycd-cli -- differential --pairs 1000`; a larger in-test run is
//! `differential_large` (run with
//! `cargo test -p polycd-cli --release --test differential -- --ignored`).
//!
//! `KNOWN` lists the disagreements of the seeded run as (pair index, algorithm, question): open
//! bugs reported in issue 8. The test fails on any disagreement not listed, and on a listed one
//! that no longer occurs (so the list only shrinks).

use polycd::Algorithm;
use polycd_cli::differential::differential;

const PAIRS: usize = 96;
const SEED: u64 = 1;

const KNOWN: &[(usize, Algorithm, &str)] = &[];

#[test]
fn every_algorithm_agrees_with_the_oracle() {
    let r = differential(PAIRS, SEED).expect("the differential run sets up");
    eprintln!("{}", r.text);
    assert!(r.checks > 0);
    let mut failures = Vec::new();
    for (i, alg, q, msg) in &r.records {
        if !KNOWN.contains(&(*i, *alg, *q)) {
            failures.push(format!("{} {q}: {msg}", alg.name()));
        }
    }
    for k in KNOWN {
        if !r.records.iter().any(|(i, a, q, _)| (*i, *a, *q) == *k) {
            failures.push(format!("{k:?} is listed in KNOWN but agrees now: remove it"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// 2 000 pairs from another seed: zero disagreements is the goal.
#[test]
#[ignore]
fn differential_large() {
    let r = differential(2_000, 7).expect("the differential run sets up");
    eprintln!("{}", r.text);
    assert_eq!(r.disagreements, 0, "{}", r.text);
}
