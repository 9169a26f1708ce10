//! An optional progress bar on stderr (indicatif); a no-op when disabled.

use indicatif::{ProgressBar, ProgressStyle};

pub(crate) struct Progress(Option<ProgressBar>);

impl Progress {
    pub fn hidden() -> Self {
        Progress(None)
    }

    pub fn new(enabled: bool, total: u64, name: &str) -> Self {
        if !enabled {
            return Progress(None);
        }
        let bar = ProgressBar::new(total.max(1));
        if let Ok(style) =
            ProgressStyle::with_template("{prefix:>16} [{elapsed_precise}] {wide_bar} {pos}/{len} (eta {eta}) {msg}")
        {
            bar.set_style(style);
        }
        bar.set_prefix(name.to_string());
        Progress(Some(bar))
    }

    pub fn tick(&self, n: u64) {
        if let Some(b) = &self.0 {
            b.inc(n);
        }
    }

    pub fn message(&self, msg: &str) {
        if let Some(b) = &self.0 {
            b.set_message(msg.to_string());
        }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}
