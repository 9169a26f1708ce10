//! # polycd-bench — the papers' experiments, side by side with parry3d
//!
//! A library of named, seeded, deterministic benchmark *scenarios*. Each scenario builds its
//! shapes and poses once, then runs every *method* (a polycd algorithm answering one question,
//! or the matching parry3d-f64 query) on the **same** pairs in the same process, times it,
//! checks the answers against each other and against the ground truth the workload is built
//! around, and writes CSV + SVG files. The `polycd bench` command of `polycd-cli` is a thin
//! wrapper:
//!
//! ```no_run
//! use polycd_bench::{run, scenarios, RunOptions};
//! for s in scenarios() {
//!     println!("{:<18} {}", s.name, s.description);
//! }
//! let opts = RunOptions { quick: true, ..RunOptions::default() };
//! let report = run("support", &opts).unwrap();
//! print!("{}", report.table);
//! assert!(report.agrees());
//! ```
//!
//! ## Measurement rules (every scenario follows them)
//! - Shapes (polycd hulls, parry `ConvexPolyhedron`s built from the *same* hull vertices),
//!   poses (in both libraries' types) and per-pair caches are prepared before the clock starts:
//!   timing excludes construction.
//! - Every measurement is repeated and the **median** over the repetitions is kept: per
//!   query for independent queries (then the mean over the pairs of a data point is
//!   reported — a preemption of the process spoils one sample, not a data point), per
//!   sequence for coherent ones (a warm cache must follow its sequence; repetitions of the
//!   methods are interleaved so a burst of machine load hits them all alike).
//! - The answers of the timed runs are kept and checked: status (disjoint / touching /
//!   overlapping) and, where two methods both report a distance, the distances. Every
//!   disagreement is listed in [`Report::disagreements`] and in `NAME-disagreements.csv`;
//!   nothing is averaged away. A method that does not converge is reported the same way.
//!   A disagreement of a polycd method makes [`Report::agrees`] false; a deviation of the
//!   peer (parry against the oracle, the construction or a polycd method) is counted apart in
//!   [`Report::peer_deviation_total`] and does not.
//! - A polycd algorithm that answers `Err(Unsupported)` (not merged yet, or not its question)
//!   is skipped for that scenario and shown as `n/a`; the harness never asserts on it.
//!
//! ## Adding a method
//! A method is one [`Method`] value: a label, an [`Engine`] (a polycd [`polycd::Algorithm`]
//! or the parry peer), a [`Question`] and a [`Coherence`] mode. To add one to a scenario, add
//! one line to that scenario's method list (`SWEEP_METHODS`, `COHERENCE_METHODS`, … at the
//! top of each module under `scenarios/`); the timing, checking, CSV and plot code picks it
//! up. A new *library* as a peer is a new [`Engine`] variant plus its arm in
//! [`Method::run`].
//!
//! ## Tolerances
//! Two polycd algorithms must agree on distances within
//! [`polycd::tolerance::AGREEMENT_REL`] × the pair's scale; a polycd answer and a parry answer
//! within [`PEER_AGREEMENT_REL`] × the pair's scale (parry's GJK stops on its own relative
//! tolerance, so agreement with it is checked more loosely). "Touching" is
//! [`polycd::query::contact_tolerance`], as everywhere in polycd.

#![warn(missing_docs)]

mod csv;
mod methods;
mod plot;
mod progress;
mod scenarios;
mod table;
mod timing;

pub use methods::{Body, Coherence, Engine, Method, MethodError, Outcome, Placement, Question, Verdict};
/// `bench many-body`'s shapes and scene, for the profiling examples.
pub use scenarios::many_body::{pool as many_body_pool, scene as many_body_scene, Scene as ManyBodyScene};

use std::path::PathBuf;
use std::time::Duration;

/// Cross-library distance agreement, as a fraction of the pair's scale (see the crate docs).
pub const PEER_AGREEMENT_REL: f64 = 1e-9;

/// How many disagreements are kept in [`Report::disagreements`] per (scenario, method); all of
/// them are counted in [`Report::disagreement_total`].
pub const MAX_LISTED_DISAGREEMENTS: usize = 50;

/// At most this many disagreements are written to `NAME-disagreements.csv` (the file says
/// how many more there were).
pub const MAX_CSV_DISAGREEMENTS: usize = 100_000;

/// A named benchmark scenario.
pub struct Scenario {
    /// The name given on the command line (`polycd bench NAME`).
    pub name: &'static str,
    /// One line: the experiment, its paper, its methods.
    pub description: &'static str,
    pub(crate) runner: fn(&RunOptions, &mut Context) -> Result<(), String>,
}

impl std::fmt::Debug for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scenario")
            .field("name", &self.name)
            .field("description", &self.description)
            .finish()
    }
}

/// How to run a scenario.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Seconds instead of minutes: fewer pairs, parameters and repetitions (CI smoke test).
    pub quick: bool,
    /// Directory the CSV and SVG files are written to (created if missing; default `bench-out`,
    /// which the repository ignores).
    pub out_dir: PathBuf,
    /// Draw a progress bar on stderr (the only output the library itself produces).
    pub progress: bool,
    /// Seed of every workload generator.
    pub seed: u64,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            quick: false,
            out_dir: PathBuf::from("bench-out"),
            progress: false,
            seed: 2026,
        }
    }
}

/// One disagreement between a method and a reference (another method, the workload's ground
/// truth or the brute-force oracle), or a method that did not converge or failed.
#[derive(Clone, Debug, PartialEq)]
pub struct Disagreement {
    /// Scenario name.
    pub scenario: String,
    /// Which case: variant, parameter and pair index.
    pub case: String,
    /// The method whose answer is in question.
    pub method: String,
    /// What it was compared with.
    pub reference: String,
    /// Both answers.
    pub detail: String,
    /// True when the method in question is the peer library (parry3d): a deviation of the
    /// peer, counted in [`Report::peer_deviation_total`], not in
    /// [`Report::disagreement_total`].
    pub peer: bool,
}

impl std::fmt::Display for Disagreement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "[{}]{} {}: {} vs {}: {}",
            self.scenario,
            if self.peer { " (peer)" } else { "" },
            self.case,
            self.method,
            self.reference,
            self.detail
        )
    }
}

/// What a scenario run produced.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The scenario name (or `all`).
    pub name: String,
    /// The printable result tables (the library does not print them).
    pub table: String,
    /// CSV and SVG files written.
    pub files: Vec<PathBuf>,
    /// Disagreements found (at most [`MAX_LISTED_DISAGREEMENTS`] per scenario and method; the
    /// CSV file has up to [`MAX_CSV_DISAGREEMENTS`]).
    pub disagreements: Vec<Disagreement>,
    /// Number of disagreements of polycd methods found in total.
    pub disagreement_total: usize,
    /// Number of deviations of the peer (parry3d) from the reference or the ground truth.
    pub peer_deviation_total: usize,
    /// Methods skipped because their algorithm answered `Unsupported` (`scenario: method`).
    pub unavailable: Vec<String>,
    /// Wall time of the run.
    pub elapsed: Duration,
}

impl Report {
    /// True when no polycd method disagreed (peer deviations are reported, not failures).
    pub fn agrees(&self) -> bool {
        self.disagreement_total == 0
    }
}

/// Shared state of one scenario run: output files, disagreements, progress.
pub(crate) struct Context {
    pub scenario: &'static str,
    pub opts: RunOptions,
    pub table: String,
    pub files: Vec<PathBuf>,
    pub disagreements: Vec<Disagreement>,
    pub listed: std::collections::HashMap<String, usize>,
    pub all_disagreements: Vec<Disagreement>,
    pub total: usize,
    pub peer_total: usize,
    pub peers: Vec<&'static str>,
    pub unavailable: Vec<String>,
    pub progress: progress::Progress,
}

impl Context {
    fn new(scenario: &'static str, opts: &RunOptions) -> Self {
        Self {
            scenario,
            opts: opts.clone(),
            table: String::new(),
            files: Vec::new(),
            disagreements: Vec::new(),
            listed: std::collections::HashMap::new(),
            all_disagreements: Vec::new(),
            total: 0,
            peer_total: 0,
            peers: Vec::new(),
            unavailable: Vec::new(),
            progress: progress::Progress::hidden(),
        }
    }

    /// Records a disagreement (listed up to the cap per method, always counted).
    pub fn disagree(&mut self, case: String, method: &str, reference: &str, detail: String) {
        let peer = self.peers.contains(&method);
        if peer {
            self.peer_total += 1;
        } else {
            self.total += 1;
        }
        let d = Disagreement {
            scenario: self.scenario.to_string(),
            case,
            method: method.to_string(),
            reference: reference.to_string(),
            detail,
            peer,
        };
        let n = self.listed.entry(method.to_string()).or_insert(0);
        *n += 1;
        if *n <= MAX_LISTED_DISAGREEMENTS {
            self.disagreements.push(d.clone());
        }
        if self.all_disagreements.len() < MAX_CSV_DISAGREEMENTS {
            self.all_disagreements.push(d);
        }
    }

    /// Marks a method as unavailable (once).
    pub fn unavailable(&mut self, method: &str, why: &str) {
        let s = format!("{}: {} ({})", self.scenario, method, why);
        if !self.unavailable.contains(&s) {
            self.unavailable.push(s);
        }
    }

    /// The path of an output file, creating the output directory.
    pub fn out_path(&self, file: &str) -> Result<PathBuf, String> {
        std::fs::create_dir_all(&self.opts.out_dir)
            .map_err(|e| format!("cannot create {}: {e}", self.opts.out_dir.display()))?;
        Ok(self.opts.out_dir.join(file))
    }

    /// Starts the progress bar (when enabled) for `total` work units.
    pub fn start_progress(&mut self, total: u64) {
        self.progress = progress::Progress::new(self.opts.progress, total, self.scenario);
    }
}

/// Every scenario, in the order `--list` shows them.
pub fn scenarios() -> &'static [Scenario] {
    &SCENARIOS
}

static SCENARIOS: [Scenario; 16] = [
    Scenario {
        name: "ellipsoid-sweep",
        description: "CD-Dual §5 / HS-jump §9: ellipsoid hulls (n = 200…2000), time per overlap query \
                      against the signed offset l ∈ [−40, 40]; CD-Dual, HS-jump, GJK, V-Clip vs parry3d intersection_test",
        runner: scenarios::sweep::run,
    },
    Scenario {
        name: "coherence",
        description: "V-Clip Alg. 9: cube, icosahedron, 60-gon disk, 642-vertex sphere on a sinusoidal path \
                      rotating ω = 0…25°/step; V-Clip, GJK warm/cold vs parry3d distance",
        runner: scenarios::coherence::run,
    },
    Scenario {
        name: "degeneracy",
        description: "V-Clip Alg. 10: near-parallel cubes, poses bisected to feature changes; wrong answers, \
                      non-convergence per method (100 000 trials; quick 1 000)",
        runner: scenarios::degeneracy::run,
    },
    Scenario {
        name: "qp-scaling",
        description: "Jin et al.: QP distance (faithful, fast) vs GJK, V-Clip and parry3d distance at n = 10, 100, 1 000",
        runner: scenarios::qp_scaling::run,
    },
    Scenario {
        name: "support",
        description: "support mapping: linear scan vs hill-climbing (random / coherent directions) vs \
                      Dobkin–Kirkpatrick hierarchy at n = 100, 1 000, 10 000",
        runner: scenarios::support::run,
    },
    Scenario {
        name: "random-distance",
        description: "1 000-vertex ellipsoid hulls, random poses, no coherence: GJK, V-Clip, fast QP distance vs parry3d distance",
        runner: scenarios::random_distance::run,
    },
    Scenario {
        name: "near-contact",
        description: "issue 27 item 1: ellipsoid hulls (n = 1 000, 200), distance with the exact depth when overlapping, \
                      medians per bucket pen / near / sep; GJK + EPA, V-Clip (+ EPA) vs parry3d distance + contact",
        runner: scenarios::near_contact::run,
    },
    Scenario {
        name: "ccd",
        description: "FAST §6: torus knot vs torus knot (2 880, 11 520, 34 560 triangles), random q0 → q1 motions with and \
                      without rotation; polycd's hierarchical conservative advancement vs parry3d cast_shapes_nonlinear",
        runner: scenarios::ccd::run,
    },
    Scenario {
        name: "many-body",
        description: "I-COLLIDE: n = 100, 1 000, 5 000 convex bodies moving coherently at two densities; polycd's \
                      sweep-and-prune World (+ V-Clip distance / GJK test) vs parry3d's BVH (+ intersection_test / \
                      distance) and brute-force O(n²) boxes, ms per frame",
        runner: scenarios::many_body::run,
    },
    Scenario {
        name: "manifold",
        description: "Contact manifolds (issue 25): the many-body scene and box stacks (a tower of 10, a pyramid of 20, \
                      jittered resting poses); polycd contact_manifold vs parry3d contact manifolds (ConvexPolyhedron, \
                      Cuboid), µs per pair and points on face–face contacts",
        runner: scenarios::manifold::run,
    },
    Scenario {
        name: "mesh",
        description: "issue 23: mesh vs mesh (torus knots 2 880 / 11 520, a bunny-like blob) at random poses near \
                      contact and along a coherent path; polycd mesh::intersect / mesh::distance vs parry3d TriMesh \
                      intersection_test / distance (+ contact); build times",
        runner: scenarios::mesh::run,
    },
    Scenario {
        name: "shapes",
        description: "issue 22: sphere–sphere, sphere–capsule, capsule–capsule, sphere–box, triangle–convex (1 000 vertices) \
                      at random poses (separated / near / overlapping); polycd Auto and GJK distance / intersect vs \
                      parry3d Ball, Capsule, Triangle, ConvexPolyhedron; checked against closed forms and brute force",
        runner: scenarios::shapes::run,
    },
    Scenario {
        name: "ccd-bunny",
        description: "FAST Fig. 5: bunny vs bunny (3 674 and 58 784 triangles), 250 random motions (100 translating, \
                      150 turning π/3 about X and Y); polycd FAST, every answer certified (brute force at the contact, \
                      a reference advancement before it)",
        runner: scenarios::fast_paper::run_bunny,
    },
    Scenario {
        name: "ccd-board",
        description: "FAST Fig. 4: a 10 000-triangle ring and a 58 784-triangle bunny (for Santa) falling 5 boxes through \
                      a thin board at 100 heights; polycd FAST, every answer certified",
        runner: scenarios::fast_paper::run_board,
    },
    Scenario {
        name: "dynamics",
        description: "FAST Fig. 8: a 33 066-triangle bunny falling on a bunny, a ring on a ring (10 000), by a small \
                      rigid-body integrator; one CCD query per step, queries/s vs the paper's 1 555 / 1 357 FPS; certified",
        runner: scenarios::fast_paper::run_dynamics,
    },
    Scenario {
        name: "hs-jump-distance",
        description: "HS-jump §1: closest features by climbing past the first separating plane; cost against HS-jump's \
                      boolean and GJK / V-Clip / parry3d distance on ellipsoid hulls 200:180:180, n = 200, 1 000, 4 000",
        runner: scenarios::hs_distance::run,
    },
];

/// Runs the scenario `name` (or every scenario for `all`) and returns its report.
///
/// Errors: an unknown name, or an output file that cannot be written. Disagreements are not
/// errors: they are in the report.
pub fn run(name: &str, opts: &RunOptions) -> Result<Report, String> {
    if name == "all" {
        let start = std::time::Instant::now();
        let mut all = Report {
            name: "all".into(),
            ..Report::default()
        };
        for s in scenarios() {
            let r = run_one(s, opts)?;
            all.table.push_str(&r.table);
            all.table.push('\n');
            all.files.extend(r.files);
            all.disagreements.extend(r.disagreements);
            all.disagreement_total += r.disagreement_total;
            all.peer_deviation_total += r.peer_deviation_total;
            all.unavailable.extend(r.unavailable);
        }
        all.elapsed = start.elapsed();
        return Ok(all);
    }
    let s = scenarios().iter().find(|s| s.name == name).ok_or_else(|| {
        let names: Vec<&str> = scenarios().iter().map(|s| s.name).collect();
        format!("unknown scenario '{name}'; known: {}, all", names.join(", "))
    })?;
    run_one(s, opts)
}

fn run_one(s: &Scenario, opts: &RunOptions) -> Result<Report, String> {
    let start = std::time::Instant::now();
    let mut ctx = Context::new(s.name, opts);
    (s.runner)(opts, &mut ctx)?;
    ctx.progress.finish();
    // Every disagreement (up to MAX_CSV_DISAGREEMENTS) goes to the CSV file.
    let path = ctx.out_path(&format!("{}-disagreements.csv", s.name))?;
    csv::write_disagreements(&path, &ctx.all_disagreements, ctx.total + ctx.peer_total)?;
    ctx.files.push(path);
    let elapsed = start.elapsed();
    let mut table = ctx.table;
    table.push_str(&format!(
        "{}: {} disagreement(s) of polycd methods, {} deviation(s) of the peer{}; {:.1} s{}\n",
        s.name,
        ctx.total,
        ctx.peer_total,
        if ctx.total + ctx.peer_total > ctx.disagreements.len() {
            format!(" ({} listed)", ctx.disagreements.len())
        } else {
            String::new()
        },
        elapsed.as_secs_f64(),
        if opts.quick { " (quick)" } else { "" }
    ));
    // polycd disagreements first, then a few peer deviations.
    let shown = ctx
        .disagreements
        .iter()
        .filter(|d| !d.peer)
        .take(10)
        .chain(ctx.disagreements.iter().filter(|d| d.peer).take(3));
    for d in shown {
        table.push_str(&format!("  {d}\n"));
    }
    Ok(Report {
        name: s.name.to_string(),
        table,
        files: ctx.files,
        disagreements: ctx.disagreements,
        disagreement_total: ctx.total,
        peer_deviation_total: ctx.peer_total,
        unavailable: ctx.unavailable,
        elapsed,
    })
}
