//! Plain CSV writing (RFC 4180 quoting), no dependency.

use crate::Disagreement;
use std::io::Write;
use std::path::Path;

/// Quotes a field when it contains a comma, a quote or a line break.
pub(crate) fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A number as a CSV field: empty for NaN (not measured / n/a).
pub(crate) fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        String::new()
    }
}

/// Writes a header and rows.
pub(crate) fn write(path: &Path, header: &[&str], rows: &[Vec<String>]) -> Result<(), String> {
    let err = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let f = std::fs::File::create(path).map_err(err)?;
    let mut w = std::io::BufWriter::new(f);
    let line: Vec<String> = header.iter().map(|h| field(h)).collect();
    writeln!(w, "{}", line.join(",")).map_err(err)?;
    for r in rows {
        let line: Vec<String> = r.iter().map(|c| field(c)).collect();
        writeln!(w, "{}", line.join(",")).map_err(err)?;
    }
    w.flush().map_err(err)
}

/// Writes the disagreement list (with a final comment row when some were not kept).
pub(crate) fn write_disagreements(path: &Path, list: &[Disagreement], total: usize) -> Result<(), String> {
    let mut rows: Vec<Vec<String>> = list
        .iter()
        .map(|d| {
            vec![
                d.scenario.clone(),
                d.case.clone(),
                d.method.clone(),
                d.reference.clone(),
                d.detail.clone(),
                if d.peer { "peer" } else { "polycd" }.to_string(),
            ]
        })
        .collect();
    if total > list.len() {
        rows.push(vec![
            String::new(),
            format!("{} more not written", total - list.len()),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ]);
    }
    write(
        path,
        &["scenario", "case", "method", "reference", "detail", "library"],
        &rows,
    )
}
