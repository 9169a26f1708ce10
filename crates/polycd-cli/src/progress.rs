//! A progress bar on stderr for long shape constructions (`info`, `hull`, `query` on files of
//! 10⁵–10⁶ points). It appears only once a construction has run for [`SHOW_AFTER`], and
//! indicatif draws nothing when stderr is not a terminal, so piped and tested output is
//! unchanged.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use polycd::Phase;
use std::time::{Duration, Instant};

/// Constructions quicker than this show no bar.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);

/// The state behind a `FnMut(Phase, done, total)` progress callback.
pub struct Bar {
    start: Instant,
    bar: Option<ProgressBar>,
    phase: Option<Phase>,
}

impl Default for Bar {
    fn default() -> Self {
        Self::new()
    }
}

impl Bar {
    /// A bar that shows itself after [`SHOW_AFTER`].
    pub fn new() -> Self {
        Bar {
            start: Instant::now(),
            bar: None,
            phase: None,
        }
    }

    /// The progress callback's body.
    pub fn update(&mut self, phase: Phase, done: u64, total: u64) {
        if self.bar.is_none() {
            if self.start.elapsed() < SHOW_AFTER {
                return;
            }
            let bar = ProgressBar::with_draw_target(Some(total.max(1)), ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template("{prefix:>9} [{elapsed_precise}] {wide_bar} {pos}/{len}") {
                bar.set_style(style);
            }
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            if self.phase != Some(phase) {
                bar.set_prefix(phase.name());
                self.phase = Some(phase);
            }
            bar.set_length(total.max(1));
            bar.set_position(done.min(total.max(1)));
        }
    }

    /// Removes the bar (if shown).
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
