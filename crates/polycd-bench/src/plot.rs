//! SVG line charts in the style of the papers' figures: the swept parameter on x, time per
//! query on y, one line with markers per method, a legend.

use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// One line of a chart.
pub(crate) struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    /// The peer is drawn in black so polycd's lines stand out against it.
    pub peer: bool,
}

/// A chart description.
pub(crate) struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_log: bool,
    /// `None`: decide from the data (log when the values span more than a factor 30).
    pub y_log: Option<bool>,
    /// Legend in the upper left corner instead of the upper right one.
    pub legend_left: bool,
    pub series: Vec<Series>,
}

/// Okabe–Ito colour-blind-safe palette (black is reserved for the peer).
const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(240, 228, 66),
];

fn fmt_num(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 {
        "0".into()
    } else if !(1e-3..1e5).contains(&a) {
        format!("{v:.0e}")
    } else if a >= 10.0 || (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').to_string()
    }
}

fn bounds(vals: impl Iterator<Item = f64>, log: bool) -> Option<(f64, f64)> {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for v in vals {
        if v.is_finite() && (!log || v > 0.0) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    if lo > hi {
        return None;
    }
    Some((lo, hi))
}

/// Writes the chart as SVG. A chart without any finite point is drawn empty with a note.
pub(crate) fn write_svg(path: &Path, chart: &Chart) -> Result<(), String> {
    let err = |e: String| format!("cannot draw {}: {e}", path.display());
    let root = SVGBackend::new(path, (960, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let xs = || chart.series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let ys = || chart.series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let y_pos = bounds(ys(), true);
    let y_log = chart.y_log.unwrap_or(match y_pos {
        Some((lo, hi)) => hi / lo > 30.0,
        None => false,
    });
    let (Some((x0, x1)), Some((y0, y1))) = (bounds(xs(), chart.x_log), bounds(ys(), y_log)) else {
        root.draw(&Text::new(
            format!("{}: no data (every method n/a)", chart.title),
            (40, 280),
            ("sans-serif", 22).into_font(),
        ))
        .map_err(|e| err(e.to_string()))?;
        return root.present().map_err(|e| err(e.to_string()));
    };
    let (x0, x1) = if chart.x_log {
        (x0 / 1.3, x1 * 1.3)
    } else {
        let pad = ((x1 - x0) * 0.03).max(1e-9);
        (x0 - pad, x1 + pad)
    };
    let (y0, y1) = if y_log {
        (y0 / 1.5, y1 * 1.5)
    } else {
        (0.0, if y1 > 0.0 { y1 * 1.12 } else { 1.0 })
    };
    match (chart.x_log, y_log) {
        (false, false) => draw(&root, chart, y_log, x0..x1, y0..y1),
        (false, true) => draw(&root, chart, y_log, x0..x1, (y0..y1).log_scale()),
        (true, false) => draw(&root, chart, y_log, (x0..x1).log_scale(), y0..y1),
        (true, true) => draw(&root, chart, y_log, (x0..x1).log_scale(), (y0..y1).log_scale()),
    }
    .map_err(err)?;
    root.present().map_err(|e| err(e.to_string()))
}

fn draw<X, Y>(root: &DrawingArea<SVGBackend, Shift>, chart: &Chart, y_log: bool, xr: X, yr: Y) -> Result<(), String>
where
    X: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
    Y: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
    X::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
    Y::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
{
    let mut c = ChartBuilder::on(root)
        .caption(&chart.title, ("sans-serif", 22))
        .margin(18)
        .x_label_area_size(50)
        .y_label_area_size(75)
        .build_cartesian_2d(xr, yr)
        .map_err(|e| e.to_string())?;
    let mut mesh = c.configure_mesh();
    if chart.x_log {
        mesh.x_labels(6);
    }
    if y_log {
        mesh.y_labels(12);
    }
    mesh.x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .x_label_formatter(&|v| fmt_num(*v))
        .y_label_formatter(&|v| fmt_num(*v))
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(205, 205, 205))
        .draw()
        .map_err(|e| e.to_string())?;
    let mut k = 0usize;
    for s in &chart.series {
        let color = if s.peer {
            BLACK
        } else {
            let c = PALETTE[k % PALETTE.len()];
            k += 1;
            c
        };
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|p| p.0.is_finite() && p.1.is_finite() && p.1 > 0.0)
            .collect();
        if pts.is_empty() {
            continue;
        }
        c.draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(s.label.as_str())
            .legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new(vec![(0, 0), (24, 0)], color.stroke_width(2))
                    + Circle::new((12, 0), 4, color.filled())
            });
        c.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(|e| e.to_string())?;
    }
    c.configure_series_labels()
        .position(if chart.legend_left {
            SeriesLabelPosition::UpperLeft
        } else {
            SeriesLabelPosition::UpperRight
        })
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(150, 150, 150))
        .label_font(("sans-serif", 15))
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(())
}
