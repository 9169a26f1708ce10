//! The scenarios. Each module starts with its method list: adding a method to a scenario is one
//! line there.

pub(crate) mod ccd;
pub(crate) mod ccd_truth;
pub(crate) mod coherence;
pub(crate) mod degeneracy;
pub(crate) mod fast_models;
pub(crate) mod fast_paper;
pub(crate) mod hs_distance;
pub(crate) mod manifold;
pub(crate) mod many_body;
pub(crate) mod mesh;
pub(crate) mod near_contact;
pub(crate) mod qp_scaling;
pub(crate) mod random_distance;
pub(crate) mod shapes;
pub(crate) mod support;
pub(crate) mod sweep;

use crate::methods::Method;
use crate::plot::{self, Chart};
use crate::timing::{probe, Case};
use crate::Context;

/// Probes every method on `case`; unavailable ones are recorded in the context and get
/// `false`.
pub(crate) fn available(ctx: &mut Context, methods: &[Method], case: &Case) -> Vec<bool> {
    for m in methods {
        if m.is_peer() && !ctx.peers.contains(&m.label) {
            ctx.peers.push(m.label);
        }
    }
    methods
        .iter()
        .map(|m| match probe(m, case) {
            Ok(()) => true,
            Err(why) => {
                ctx.unavailable(m.label, why);
                false
            }
        })
        .collect()
}

/// Writes a CSV file into the output directory and records it.
pub(crate) fn csv_out(ctx: &mut Context, file: &str, header: &[&str], rows: &[Vec<String>]) -> Result<(), String> {
    let path = ctx.out_path(file)?;
    crate::csv::write(&path, header, rows)?;
    ctx.files.push(path);
    Ok(())
}

/// Writes an SVG chart into the output directory and records it.
pub(crate) fn svg_out(ctx: &mut Context, file: &str, chart: &Chart) -> Result<(), String> {
    let path = ctx.out_path(file)?;
    plot::write_svg(&path, chart)?;
    ctx.files.push(path);
    Ok(())
}

/// A file-name-safe form of a number (`200`, `0.5` → `0p5`).
pub(crate) fn tag(x: f64) -> String {
    format!("{x}").replace('.', "p").replace('-', "m")
}
