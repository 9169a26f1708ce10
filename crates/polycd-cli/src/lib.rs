//! The `polycd` command line's building blocks, as a library so they can be tested and fuzzed:
//! the batch (JSON-lines) format, shape loading, and the demo.

pub mod answer;
pub mod batch;
pub mod batch_bench;
mod batch_fast;
pub mod batch_run;
pub mod decompose;
pub mod demo;
pub mod differential;
pub mod input;
pub mod meshq;
pub mod progress;
pub mod schema;
pub mod shape_cache;
pub mod toc;
pub mod view;
