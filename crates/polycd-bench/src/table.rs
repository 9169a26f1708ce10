//! Fixed-width text tables.

/// A text table: a header row and data rows, columns right-aligned except the first.
pub(crate) struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: Vec<String>) -> Self {
        Table {
            header,
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, r: Vec<String>) {
        self.rows.push(r);
    }

    pub fn render(&self) -> String {
        let cols = self.header.len();
        let mut w = vec![0usize; cols];
        for r in std::iter::once(&self.header).chain(self.rows.iter()) {
            for (i, c) in r.iter().enumerate().take(cols) {
                w[i] = w[i].max(c.chars().count());
            }
        }
        let line = |r: &Vec<String>| -> String {
            let mut s = String::new();
            for (i, width) in w.iter().enumerate() {
                let c = r.get(i).map(String::as_str).unwrap_or("");
                let pad = width.saturating_sub(c.chars().count());
                if i == 0 {
                    s.push_str(c);
                    s.push_str(&" ".repeat(pad));
                } else {
                    s.push_str("  ");
                    s.push_str(&" ".repeat(pad));
                    s.push_str(c);
                }
            }
            s.trim_end().to_string()
        };
        let mut out = line(&self.header);
        out.push('\n');
        let total: usize = w.iter().sum::<usize>() + 2 * cols.saturating_sub(1);
        out.push_str(&"-".repeat(total));
        out.push('\n');
        for r in &self.rows {
            out.push_str(&line(r));
            out.push('\n');
        }
        out
    }
}

/// Formats a time in microseconds for tables ("n/a" when not measured).
pub(crate) fn us(ns: f64) -> String {
    if !ns.is_finite() {
        return "n/a".into();
    }
    let u = ns / 1000.0;
    if u >= 100.0 {
        format!("{u:.0}")
    } else if u >= 10.0 {
        format!("{u:.1}")
    } else if u >= 1.0 {
        format!("{u:.2}")
    } else {
        format!("{u:.3}")
    }
}

/// Formats a ratio ("n/a" when not measured).
pub(crate) fn ratio(x: f64) -> String {
    if !x.is_finite() {
        return "n/a".into();
    }
    if x >= 10.0 {
        format!("{x:.0}×")
    } else if x >= 0.1 {
        format!("{x:.2}×")
    } else {
        format!("{x:.1e}×")
    }
}
