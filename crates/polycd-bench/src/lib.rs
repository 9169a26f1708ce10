//! Benchmark harness (issue 7).
