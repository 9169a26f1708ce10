//! A progress bar on stderr for long shape constructions (`info`, `hull`, `query` on files of
//! 10⁵–10⁶ points). It appears only once a construction has run for [`SHOW_AFTER`], and
//! indicatif draws nothing when stderr is not a terminal, so piped and tested output is
//! unchanged. The bar also times each phase (`polycd info --timings` prints them): the time
//! before the first report is reading and parsing the input.

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
    /// The phase being timed (`None`: reading the input, before the first report) and when
    /// it started.
    timed: (Option<Phase>, Instant),
    /// Time spent per phase, in order of first appearance (phases may alternate: the hull
    /// and the merge repeat when the merge drops vertices).
    timings: Vec<(Option<Phase>, Duration)>,
}

impl Default for Bar {
    fn default() -> Self {
        Self::new()
    }
}

impl Bar {
    /// A bar that shows itself after [`SHOW_AFTER`].
    pub fn new() -> Self {
        let now = Instant::now();
        Bar {
            start: now,
            bar: None,
            phase: None,
            timed: (None, now),
            timings: Vec::new(),
        }
    }

    /// Ends the timed segment and starts one for `next`.
    fn switch_timed(&mut self, next: Option<Phase>) {
        let now = Instant::now();
        let (phase, since) = self.timed;
        let spent = now - since;
        match self.timings.iter_mut().find(|(p, _)| *p == phase) {
            Some((_, d)) => *d += spent,
            None => self.timings.push((phase, spent)),
        }
        self.timed = (next, now);
    }

    /// The progress callback's body.
    pub fn update(&mut self, phase: Phase, done: u64, total: u64) {
        if self.timed.0 != Some(phase) {
            self.switch_timed(Some(phase));
        }
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

    /// Removes the bar (if shown) and ends the phase being timed.
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        self.switch_timed(None);
    }

    /// Wall time per phase so far, one `name: seconds` entry each (`read` is the time before
    /// the first report: reading and parsing the input), and the total.
    pub fn timings(&self) -> String {
        let mut out = String::from("timings (wall):");
        for (phase, d) in &self.timings {
            let name = phase.map_or("read", Phase::name);
            out.push_str(&format!(" {name} {:.3} s,", d.as_secs_f64()));
        }
        out.push_str(&format!(" total {:.3} s", self.start.elapsed().as_secs_f64()));
        out
    }
}
