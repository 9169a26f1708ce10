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

const KNOWN: &[(usize, Algorithm, &str)] = &[
    (16, Algorithm::Qp, "distance"),
    (16, Algorithm::QpFast, "distance"),
    (17, Algorithm::Auto, "distance"),
    (17, Algorithm::Gjk, "distance"),
    (17, Algorithm::QpFast, "distance"),
    (18, Algorithm::Qp, "distance"),
    (22, Algorithm::Auto, "distance"),
    (22, Algorithm::Gjk, "distance"),
    (22, Algorithm::VClip, "distance"),
    (22, Algorithm::VClip, "intersect"),
    (49, Algorithm::Qp, "distance"),
    (50, Algorithm::Auto, "distance"),
    (50, Algorithm::Gjk, "distance"),
    (73, Algorithm::Auto, "distance"),
    (73, Algorithm::Gjk, "distance"),
    (73, Algorithm::Qp, "distance"),
    (73, Algorithm::QpFast, "distance"),
    (73, Algorithm::VClip, "distance"),
    (80, Algorithm::Qp, "distance"),
    (81, Algorithm::Qp, "distance"),
    (82, Algorithm::Qp, "distance"),
    (82, Algorithm::Qp, "intersect"),
    (82, Algorithm::QpFast, "distance"),
    (86, Algorithm::Qp, "distance"),
    (86, Algorithm::VClip, "distance"),
    (86, Algorithm::VClip, "intersect"),
    (87, Algorithm::Qp, "distance"),
    (87, Algorithm::QpFast, "distance"),
];

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
