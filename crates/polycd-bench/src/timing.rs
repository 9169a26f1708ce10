//! Timed batches: every query of a batch runs with its pose and cache prepared beforehand; the
//! batch is repeated and the median of the per-query means is reported.

use crate::methods::{Answer, Body, Coherence, Method, MethodError, Placement};
use polycd::PairCache;
use std::hint::black_box;
use std::time::Instant;

/// One query: two bodies and their placements.
#[derive(Clone, Copy)]
pub(crate) struct Case<'a> {
    pub a: &'a Body,
    pub pa: Placement,
    pub b: &'a Body,
    pub pb: Placement,
}

/// Median of a slice (sorted in place); NaN for an empty slice.
pub(crate) fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|x, y| x.total_cmp(y));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// Mean of a slice; NaN for an empty slice.
pub(crate) fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.iter().sum::<f64>() / v.len() as f64
}

/// Runs `method` once on the first case: `Err(reason)` when it is unavailable (the
/// algorithm answers `Unsupported`), `Ok` otherwise (failures are left to the timed run, which
/// reports them).
pub(crate) fn probe(method: &Method, case: &Case) -> Result<(), &'static str> {
    let mut cache = PairCache::default();
    match method.run(case.a, &case.pa, case.b, &case.pb, &mut cache) {
        Err(MethodError::Unsupported) => Err("unsupported"),
        _ => Ok(()),
    }
}

/// Reusable buffers of a timed batch.
#[derive(Default)]
pub(crate) struct Bench {
    caches: Vec<PairCache>,
    /// Answers of the last [`Bench::record`], one per case.
    pub answers: Vec<Answer>,
    samples: Vec<f64>,
}

impl Bench {
    /// Times `method` over the batch `cases`, `reps` times, and returns the median over the
    /// repetitions of the mean time per query, in nanoseconds. With [`Coherence::Warm`] the
    /// batch is one coherent sequence sharing one cache (reset before each repetition); with
    /// [`Coherence::Cold`] every query gets a fresh cache. The timed loop keeps no answers
    /// (storing ~100 bytes per query into a growing buffer would stream through the caches
    /// the queries' own data live in); [`Bench::record`] collects them.
    pub fn time(&mut self, method: &Method, cases: &[Case], reps: usize) -> f64 {
        let reps = reps.max(1);
        let n = cases.len();
        self.samples.clear();
        if n == 0 {
            return f64::NAN;
        }
        let per_query_caches = method.coherence == Coherence::Cold;
        for _ in 0..reps {
            self.prepare(per_query_caches, n);
            let start = Instant::now();
            for (i, c) in cases.iter().enumerate() {
                let cache = if per_query_caches {
                    &mut self.caches[i]
                } else {
                    &mut self.caches[0]
                };
                let r = method.run(
                    black_box(c.a),
                    black_box(&c.pa),
                    black_box(c.b),
                    black_box(&c.pb),
                    cache,
                );
                let _ = black_box(r);
            }
            let ns = start.elapsed().as_nanos() as f64 / n as f64;
            self.samples.push(ns);
        }
        median(&mut self.samples)
    }

    /// Runs `method` once over the batch as [`Bench::time`] does (same caches, same order, so
    /// the same answers) and leaves the answers in [`Bench::answers`].
    pub fn record(&mut self, method: &Method, cases: &[Case]) {
        let per_query_caches = method.coherence == Coherence::Cold;
        self.prepare(per_query_caches, cases.len());
        self.answers.clear();
        self.answers.reserve(cases.len());
        for (i, c) in cases.iter().enumerate() {
            let cache = if per_query_caches {
                &mut self.caches[i]
            } else {
                &mut self.caches[0]
            };
            self.answers.push(method.run(c.a, &c.pa, c.b, &c.pb, cache));
        }
    }

    /// Fresh caches for a batch of `n` queries: one per query, or one shared. Outside the timed
    /// region.
    fn prepare(&mut self, per_query_caches: bool, n: usize) {
        let need = if per_query_caches { n } else { 1 };
        self.caches.truncate(need);
        for c in self.caches.iter_mut() {
            c.forget();
        }
        while self.caches.len() < need {
            self.caches.push(PairCache::default());
        }
    }
}

/// Repetitions of one query stop once they have taken this long in total (ns) *and* at least
/// [`MIN_SAMPLES`] samples exist (a single interior-point solve at n = 1 000 takes tens of
/// milliseconds). The minimum keeps one preempted sample from becoming the median.
pub(crate) const SINGLE_BUDGET_NS: f64 = 2e7;
/// See [`SINGLE_BUDGET_NS`].
pub(crate) const MIN_SAMPLES: usize = 3;
/// Beyond this total (ns) one query is not repeated further whatever the sample count.
pub(crate) const SINGLE_HARD_BUDGET_NS: f64 = 2e9;

/// Times one query up to `reps` times (fresh cache each time for cold methods, the given warm
/// cache otherwise; see [`SINGLE_BUDGET_NS`] for when it stops early) and returns
/// (median ns, the last answer).
pub(crate) fn time_single(
    method: &Method,
    case: &Case,
    reps: usize,
    cache: &mut PairCache,
    samples: &mut Vec<f64>,
) -> (f64, Answer) {
    samples.clear();
    let mut last = Err(MethodError::Unsupported);
    let mut spent = 0.0;
    for _ in 0..reps.max(1) {
        if (spent > SINGLE_BUDGET_NS && samples.len() >= MIN_SAMPLES) || spent > SINGLE_HARD_BUDGET_NS {
            break;
        }
        if method.coherence == Coherence::Cold {
            // No coherence: the state of earlier queries is forgotten, while the scratch
            // buffers stay allocated, as in a caller's long-lived per-pair cache.
            cache.forget();
        }
        let start = Instant::now();
        let r = method.run(
            black_box(case.a),
            black_box(&case.pa),
            black_box(case.b),
            black_box(&case.pb),
            cache,
        );
        let ns = start.elapsed().as_nanos() as f64;
        spent += ns;
        samples.push(ns);
        last = black_box(r);
    }
    (median(samples), last)
}
