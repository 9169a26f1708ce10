//! `polycd` — the command-line face of the polycd library.
//!
//! Subcommands: `info`, `hull`, `query`, `toc`, `decompose`, `batch`, `demo`, `bench`, `view`. Errors are one line on
//! stderr and a non-zero exit status.

use clap::{Parser, Subcommand};
use polycd::{Algorithm, DVec3, Pose};
use polycd_cli::answer::{self, QueryKind};
use polycd_cli::{batch, decompose, demo, input, toc, view};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "polycd",
    version,
    about = "Exact collision detection between convex polyhedra"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Vertices, edges, faces, volume and a validity report of a shape (file or built-in spec).
    Info {
        /// A mesh file (.obj, .off, .stl) or a built-in shape such as `icosphere:3`.
        shape: String,
        /// Print the wall time of each phase (read, hull, merge, topology, tables, validate,
        /// hierarchy: the DK hierarchy, built for the "DK levels" line) on stderr.
        #[arg(long)]
        timings: bool,
        /// Use the convex hull of a mesh file whose faces bound a non-convex solid (refused
        /// otherwise).
        #[arg(long)]
        hull: bool,
        /// Read the file as a closed non-convex triangle mesh (or a `torus-knot:…` spec) and
        /// print its decomposition into convex pieces: pieces, triangles per piece, build time.
        #[arg(long, conflicts_with = "hull")]
        mesh: bool,
        /// Read the file as an open (or non-manifold) triangle surface and print its summary:
        /// triangles, open and non-manifold edges, repairs, build time.
        #[arg(long, conflicts_with_all = ["hull", "mesh"])]
        surface: bool,
    },
    /// Convex hull of a point file (x y z per line, or any mesh file's vertices).
    Hull {
        /// Input points.
        points: PathBuf,
        /// Output file (.obj, .off or .stl).
        #[arg(short, long)]
        output: PathBuf,
        /// Print the wall time of each phase (read, hull, merge, topology, tables) on stderr.
        #[arg(long)]
        timings: bool,
    },
    /// One query between two shapes, or a point query or ray cast on one shape
    /// (`polycd query SHAPE --query point --point X,Y,Z`, `--query ray --origin X,Y,Z
    /// --direction X,Y,Z`).
    Query(QueryArgs),
    /// First time of contact of A moving from --pose-a0 to --pose-a1 (constant linear and
    /// angular velocity about its centroid) with B (fixed at --pose-b, identity by default, or
    /// moving to --pose-b1): FAST conservative advancement. t is the fraction of the motion:
    /// 0 at the first poses, 1 at the last. Distances are in the input's units. Shapes: files
    /// or built-in specs, including `torus-knot:P,Q:SEGMENTS,SIDES[:TUBE]` (closed meshes;
    /// `--mesh` reads files as non-convex meshes too).
    Toc {
        /// Shape A (the moving one): a file or a built-in spec.
        a: String,
        /// Shape B: a file or a built-in spec.
        b: String,
        /// A's pose at t = 0: "tx ty tz [qw qx qy qz]" (required).
        #[arg(long, allow_hyphen_values = true, required = true)]
        pose_a0: String,
        /// A's pose at t = 1: "tx ty tz [qw qx qy qz]" (required).
        #[arg(long, allow_hyphen_values = true, required = true)]
        pose_a1: String,
        /// B's pose at t = 0 [default: identity, B at the origin of its file or spec].
        #[arg(long, allow_hyphen_values = true)]
        pose_b: Option<String>,
        /// B's pose at t = 1 [default: --pose-b, B fixed].
        #[arg(long, allow_hyphen_values = true)]
        pose_b1: Option<String>,
        /// Treat both shapes as closed triangle meshes (non-convex).
        #[arg(long)]
        mesh: bool,
        /// Stop distance (absolute; default 1e-4 × the summed shape radii).
        #[arg(long, allow_hyphen_values = true)]
        threshold: Option<f64>,
        /// Bound on the advancement steps.
        #[arg(long, default_value_t = polycd::ccd::DEFAULT_MAX_ITERATIONS)]
        max_iterations: u32,
        /// Distance algorithm: auto (V-Clip), gjk, vclip, qp, qp_fast.
        #[arg(long, default_value = "auto")]
        algo: String,
        /// Print the answer as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Convex surface decomposition of a closed mesh (file, saved `.pcdm` decomposition or
    /// `torus-knot:` spec): writes an OBJ with one group per piece (-o) and/or the binary
    /// decomposition with its hull tree (--save, read back by `toc` and the library's
    /// `TriMesh::load`); prints pieces, triangles per piece and build time.
    Decompose {
        /// The mesh: a file (.obj, .off, .stl), a saved decomposition (.pcdm) or a spec.
        input: String,
        /// OBJ file to write, one `g piece_<i>` group per piece.
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
        /// Binary decomposition to write (mesh, pieces, hull tree; versioned, checksummed).
        #[arg(long)]
        save: Option<PathBuf>,
        /// Print the summary as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Write an offline web page (one HTML file) of two shapes and an answer: `query`'s (same
    /// shapes, poses and flags), `toc`'s (given --pose-a1 or --pose-b1), or a batch line's.
    View(Box<ViewArgs>),
    /// Answer JSON-lines queries from stdin, one answer line per input line (see README).
    ///
    /// Exit status: 0 every line answered, 1 some lines were answered with "status": "error"
    /// (bad JSON, invalid UTF-8, unknown keys, bad shapes…; the run goes on), 2 usage error,
    /// 3 I/O error: the input could not be read (e.g. stdin is a directory; the lines read
    /// before are answered, the reason is on stderr) or the answers could not be written.
    Batch {
        /// Threads answering lines (default: every core); the answers are the same bytes, in
        /// input order, for any number.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
        threads: Option<u32>,
    },
    /// The main job on built-in shapes: every algorithm on the papers' ellipsoid polyhedra,
    /// agreement and timings.
    Demo {
        /// Number of random pairs per configuration.
        #[arg(long, default_value_t = 200)]
        pairs: usize,
    },
    /// Every algorithm against the brute-force oracle on seeded random pairs of every shape
    /// family; exits non-zero on any disagreement.
    Differential {
        /// Number of random pairs.
        #[arg(long, default_value_t = 1000)]
        pairs: usize,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Shape families: `solid` (polytopes) or `flat` (sphere, capsule, triangle, thick
        /// triangle, rounded box).
        #[arg(long, default_value = "solid")]
        families: String,
    },
    /// The papers' experiments side by side with parry3d (`--list` shows them).
    Bench {
        /// Scenario name, or `all`.
        scenario: Option<String>,
        /// List the scenarios.
        #[arg(long)]
        list: bool,
        /// Seconds-long smoke version.
        #[arg(long)]
        quick: bool,
        /// Output directory for CSV and SVG files.
        #[arg(long, default_value = "bench-out")]
        out: PathBuf,
    },
}

/// `polycd query`'s arguments.
#[derive(clap::Args)]
struct QueryArgs {
    /// Shape A: a file or a built-in spec.
    a: String,
    /// Shape B: a file or a built-in spec (not given for point and ray queries).
    b: Option<String>,
    #[command(flatten)]
    pair: PairArgs,
    /// The point of a point query: "x y z" (world frame).
    #[arg(long, allow_hyphen_values = true)]
    point: Option<String>,
    /// The origin of a ray: "x y z" (world frame).
    #[arg(long, allow_hyphen_values = true)]
    origin: Option<String>,
    /// Print the answer as one JSON object (the batch format).
    #[arg(long)]
    json: bool,
    /// Check the answer's certificate independently.
    #[arg(long)]
    verify: bool,
    /// Use the convex hull of a mesh file whose faces bound a non-convex solid (refused
    /// otherwise).
    #[arg(long)]
    hull: bool,
    /// Read mesh files as closed non-convex solids (as `toc --mesh`; `torus-knot:…` specs
    /// are meshes, other built-in specs stay convex): intersect and distance of the solids,
    /// exact distances, features named as triangles of the input faces; with one shape,
    /// --query point and ray on the mesh (as batch point/ray lines on "kind": "mesh").
    #[arg(long, conflicts_with = "hull")]
    mesh: bool,
    /// Read mesh files as open triangle surfaces (no inside; open and non-manifold meshes
    /// accepted; other built-in specs stay convex): intersect and distance, features named
    /// as triangles of the input faces.
    #[arg(long, conflicts_with_all = ["hull", "mesh"])]
    surface: bool,
}

/// The pair query's flags that `query` and `view` share.
#[derive(clap::Args)]
struct PairArgs {
    /// Pose of A (at t = 0 for a `view` motion): "tx ty tz [qw qx qy qz]" (quaternion scalar
    /// first).
    #[arg(long, allow_hyphen_values = true)]
    pose_a: Option<String>,
    /// Pose of B (at t = 0 for a `view` motion): "tx ty tz [qw qx qy qz]".
    #[arg(long, allow_hyphen_values = true)]
    pose_b: Option<String>,
    /// Question: intersect, distance, directional, manifold (two shapes); `query` also
    /// answers point or ray (one shape).
    #[arg(long, default_value = "distance")]
    query: String,
    /// Speculative margin of `--query manifold` (≥ 0): points apart by up to it are kept.
    #[arg(long)]
    margin: Option<f64>,
    /// `--query manifold`: keep at most 4 points (the deepest, then the largest area).
    #[arg(long)]
    reduce: bool,
    /// Direction for the directional query (B's translation) or the ray: "x y z".
    #[arg(long, allow_hyphen_values = true)]
    direction: Option<String>,
    /// Algorithm: auto, gjk, vclip, cd_dual, hs_jump, qp, qp_fast.
    #[arg(long, default_value = "auto")]
    algo: String,
}

/// `--algo`'s value as an [`Algorithm`], or an error listing the known names.
fn parse_algorithm(algo: &str) -> Result<Algorithm, String> {
    Algorithm::parse(algo).ok_or_else(|| {
        format!(
            "unknown algorithm '{algo}' (known: {})",
            Algorithm::ALL.map(|a| a.name()).join(", ")
        )
    })
}

/// `--margin` and `--reduce` as manifold options; refused for any other question.
fn manifold_options(
    kind: QueryKind,
    query: &str,
    margin: Option<f64>,
    reduce: bool,
) -> Result<polycd::ManifoldOptions, String> {
    if kind != QueryKind::Manifold && (margin.is_some() || reduce) {
        return Err(format!("--margin and --reduce are for --query manifold, not {query}"));
    }
    let margin = margin.unwrap_or(0.0);
    if !(margin.is_finite() && margin >= 0.0) {
        return Err(format!("--margin: must be a finite number ≥ 0, got {margin}"));
    }
    Ok(polycd::ManifoldOptions::default()
        .with_margin(margin)
        .with_reduce(reduce))
}

/// `polycd view`'s arguments: `query`'s, `toc`'s motion flags, or a batch file's line.
#[derive(clap::Args)]
struct ViewArgs {
    /// Shape A: a file or a built-in spec (not with --batch-line).
    a: Option<String>,
    /// Shape B: a file or a built-in spec.
    b: Option<String>,
    #[command(flatten)]
    pair: PairArgs,
    /// A's pose at t = 1: shows `toc`'s answer for the motion.
    #[arg(long, allow_hyphen_values = true)]
    pose_a1: Option<String>,
    /// B's pose at t = 1: shows `toc`'s answer for the motion.
    #[arg(long, allow_hyphen_values = true)]
    pose_b1: Option<String>,
    /// Read mesh files and `torus-knot:` specs as closed non-convex meshes: as `query --mesh`
    /// (intersect, distance, manifold), or with a motion as `toc --mesh`.
    #[arg(long)]
    mesh: bool,
    /// With a motion: stop distance (as `toc --threshold`).
    #[arg(long, allow_hyphen_values = true)]
    threshold: Option<f64>,
    /// With a motion: bound on the advancement steps.
    #[arg(long, default_value_t = polycd::ccd::DEFAULT_MAX_ITERATIONS)]
    max_iterations: u32,
    /// Show line N (from 1) of a batch input file and its answer: FILE:N.
    #[arg(long, value_name = "FILE:N")]
    batch_line: Option<String>,
    /// Output HTML file.
    #[arg(short, long)]
    output: PathBuf,
}

fn view_page(v: &ViewArgs) -> Result<ExitCode, String> {
    let p = &v.pair;
    let algorithm = parse_algorithm(&p.algo)?;
    let static_query = v.batch_line.is_none() && v.pose_a1.is_none() && v.pose_b1.is_none();
    if !static_query && (p.margin.is_some() || p.reduce) {
        return Err(
            "view: --margin and --reduce are for --query manifold of two shapes (a batch line gives its own)".into(),
        );
    }
    let mut scene = if let Some(spec) = &v.batch_line {
        if v.a.is_some() || v.b.is_some() {
            return Err("view: give either two shapes or --batch-line, not both".into());
        }
        let (file, n) = spec
            .rsplit_once(':')
            .and_then(|(f, n)| Some((f, n.trim().parse::<usize>().ok()?)))
            .ok_or_else(|| format!("--batch-line: expected FILE:N, got '{spec}'"))?;
        view::batch_line_scene(file, n)?
    } else {
        let (Some(a), Some(b)) = (&v.a, &v.b) else {
            return Err("view: give two shapes (A and B) or --batch-line FILE:N".into());
        };
        let pa = parse_pose(p.pose_a.as_deref())?;
        let pb = parse_pose(p.pose_b.as_deref())?;
        if v.pose_a1.is_some() || v.pose_b1.is_some() {
            let pa1 = v
                .pose_a1
                .as_deref()
                .map(|p| parse_pose(Some(p)))
                .transpose()?
                .unwrap_or(pa);
            let pb1 = v
                .pose_b1
                .as_deref()
                .map(|p| parse_pose(Some(p)))
                .transpose()?
                .unwrap_or(pb);
            view::toc_scene(&toc::TocInput {
                a,
                b,
                pose_a: (pa, pa1),
                pose_b: (pb, pb1),
                mesh: v.mesh,
                options: polycd::ccd::CcdOptions::default()
                    .with_distance_threshold(v.threshold)
                    .with_max_iterations(v.max_iterations)
                    .with_algorithm(algorithm),
            })?
        } else {
            let kind = QueryKind::parse(&p.query)?;
            let options = manifold_options(kind, &p.query, p.margin, p.reduce)?;
            if v.mesh {
                if !matches!(kind, QueryKind::Intersect | QueryKind::Distance | QueryKind::Manifold) {
                    return Err("view --mesh shows --query intersect, distance and manifold".into());
                }
                if p.direction.is_some() {
                    return Err("view --mesh: --direction is for --query directional of convex shapes".into());
                }
                let (sa, na) = polycd_cli::meshq::load_cli(a).map_err(|e| e.to_string())?;
                let (sb, nb) = polycd_cli::meshq::load_cli(b).map_err(|e| e.to_string())?;
                for n in na.into_iter().chain(nb) {
                    eprintln!("{n}");
                }
                let not_drawn = || "view --mesh: surfaces are not drawn yet".to_string();
                view::solid_pair_scene(&view::SolidPairInput {
                    a_label: a,
                    b_label: b,
                    a: sa.solid().ok_or_else(not_drawn)?,
                    pose_a: pa,
                    b: sb.solid().ok_or_else(not_drawn)?,
                    pose_b: pb,
                    kind,
                    algorithm,
                    options,
                })
            } else {
                let sa = input::load_shape(a).map_err(|e| e.to_string())?;
                let sb = input::load_shape(b).map_err(|e| e.to_string())?;
                let direction = p.direction.as_deref().map(parse_vec).transpose()?;
                view::pair_scene(&view::PairInput {
                    a_label: a,
                    b_label: b,
                    a: &sa,
                    pose_a: pa,
                    b: &sb,
                    pose_b: pb,
                    kind,
                    direction,
                    algorithm,
                    options,
                })
            }
        }
    };
    let args: Vec<String> = std::env::args().collect();
    let mut line = view::command_line(&args);
    if let Some(rest) = line.split_once(' ').map(|(_, r)| r.to_string()) {
        line = format!("polycd {rest}");
    }
    scene["command"] = serde_json::Value::String(line);
    std::fs::write(&v.output, view::html(&scene)).map_err(|e| format!("{}: {e}", v.output.display()))?;
    println!(
        "wrote {} ({}: {})",
        v.output.display(),
        scene["query"].as_str().unwrap_or(""),
        scene["status"].as_str().unwrap_or("?")
    );
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("polycd: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Info {
            shape,
            timings,
            hull,
            mesh,
            surface,
        } => {
            if surface {
                info_surface(&shape)
            } else if mesh {
                info_mesh(&shape)
            } else {
                info_convex(&shape, timings, hull)
            }
        }
        Command::Differential { pairs, seed, families } => match polycd_cli::differential::Families::parse(&families)
            .ok_or_else(|| format!("--families: expected solid or flat, got {families:?}"))
            .and_then(|set| polycd_cli::differential::run_families(pairs, seed, set))
        {
            Ok(report) => {
                print!("{report}");
                Ok(ExitCode::SUCCESS)
            }
            Err(report) => {
                print!("{report}");
                Ok(ExitCode::FAILURE)
            }
        },
        Command::Hull {
            points,
            output,
            timings,
        } => hull_command(&points, &output, timings),
        Command::Query(q) => query_command(q),
        Command::Toc {
            a,
            b,
            pose_a0,
            pose_a1,
            pose_b,
            pose_b1,
            mesh,
            threshold,
            max_iterations,
            algo,
            json,
        } => {
            let pa0 = parse_pose(Some(&pose_a0))?;
            let pa1 = parse_pose(Some(&pose_a1))?;
            let pb0 = parse_pose(pose_b.as_deref())?;
            let pb1 = match pose_b1 {
                Some(p) => parse_pose(Some(&p))?,
                None => pb0,
            };
            let algorithm = parse_algorithm(&algo)?;
            let input = toc::TocInput {
                a: &a,
                b: &b,
                pose_a: (pa0, pa1),
                pose_b: (pb0, pb1),
                mesh,
                options: polycd::ccd::CcdOptions::default()
                    .with_distance_threshold(threshold)
                    .with_max_iterations(max_iterations)
                    .with_algorithm(algorithm),
            };
            let v = toc::run(&input)?;
            if json {
                println!("{}", serde_json::to_string(&v).unwrap_or_default());
            } else {
                print!("{}", toc::text(&v));
            }
            Ok(if v["status"] == "not_converged" {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Decompose {
            input,
            output,
            save,
            json,
        } => {
            let v = decompose::run(&decompose::DecomposeInput {
                shape: &input,
                obj: output.as_deref(),
                save: save.as_deref(),
            })?;
            if json {
                println!("{}", serde_json::to_string(&v).unwrap_or_default());
            } else {
                print!("{}", decompose::text(&v));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::View(v) => view_page(&v),
        Command::Batch { threads } => {
            let threads = match threads {
                Some(t) => t as usize,
                None => std::thread::available_parallelism().map_or(1, |n| n.get()),
            };
            let stdin = std::io::stdin();
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
            let input = std::io::BufReader::with_capacity(1 << 16, stdin.lock());
            let summary = polycd_cli::batch_run::run(input, &mut out, threads).and_then(|s| out.flush().map(|_| s));
            match summary {
                Ok(s) => {
                    if let Some(e) = &s.read_error {
                        eprintln!("polycd: batch: cannot read the input after {} lines: {e}", s.lines);
                    }
                    Ok(ExitCode::from(s.exit_code()))
                }
                Err(e) => {
                    eprintln!("polycd: batch: cannot write the answers: {e}");
                    Ok(ExitCode::from(3))
                }
            }
        }
        Command::Demo { pairs } => {
            demo::run(pairs)?;
            demo_versus_parry()?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench {
            scenario,
            list,
            quick,
            out,
        } if scenario.as_deref() == Some("batch") => {
            // The batch's throughput: the CLI's own code, so measured here (any build).
            let _ = (list, out);
            polycd_cli::batch_bench::run(quick)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench {
            scenario,
            list,
            quick,
            out,
        } => bench(scenario, list, quick, out),
    }
}

/// `polycd info --surface`.
fn info_surface(shape: &str) -> Result<ExitCode, String> {
    let start = std::time::Instant::now();
    let (s, _) = polycd_cli::meshq::load_cli_surface(shape).map_err(|e| e.to_string())?;
    let build = start.elapsed();
    let polycd_cli::meshq::BatchSolid::Surface(s) = s else {
        return Err(format!("{shape}: --surface reads mesh files and torus-knot specs"));
    };
    if !s.repair().is_empty() {
        eprintln!("note: {shape}: repaired: {}", s.repair());
    }
    print!("{}", polycd_cli::meshq::surface_info_text(shape, &s, build));
    Ok(ExitCode::SUCCESS)
}

/// `polycd info --mesh`.
fn info_mesh(shape: &str) -> Result<ExitCode, String> {
    let start = std::time::Instant::now();
    let m = match input::torus_knot_spec(shape) {
        Some(k) => k,
        None => polycd::mesh::TriMesh::read(shape),
    }
    .map_err(|e| e.to_string())?;
    let build = start.elapsed();
    for n in polycd_cli::meshq::reoriented_notes(shape, &m) {
        eprintln!("{n}");
    }
    print!("{}", polycd_cli::meshq::info_text(shape, &m, build));
    Ok(ExitCode::SUCCESS)
}

/// `polycd info` of a convex shape (`--hull`: a file's hull).
fn info_convex(shape: &str, timings: bool, hull: bool) -> Result<ExitCode, String> {
    let mut bar = polycd_cli::progress::Bar::new();
    let (p, note) = match load(shape, hull, &mut bar) {
        Ok(x) => x,
        Err(e) => {
            bar.finish();
            return Err(e);
        }
    };
    let (v, e, f) = p.counts();
    let rep = p.validate_with_progress(&mut |ph, d, t| bar.update(ph, d, t));
    // Built on first use; built here, under the bar, for the "DK levels" line.
    let dk_levels = p
        .hierarchy_with_progress(&mut |ph, d, t| bar.update(ph, d, t))
        .level_sizes();
    bar.finish();
    if timings {
        eprintln!("{}", bar.timings());
    }
    if let Some(n) = note {
        eprintln!("{n}");
    }
    let (c, r) = p.bounding_sphere();
    println!("shape:            {shape}");
    println!(
        "dimension:        {} ({})",
        p.dimension(),
        polycd::shape::flat::kind_name(p.dimension())
    );
    println!("vertices:         {v}");
    println!("edges:            {e}");
    println!("faces:            {f}");
    println!("V - E + F:        {}", rep.euler_characteristic);
    println!("volume:           {:.12e}", p.volume());
    let g = p.centroid();
    println!("centroid:         [{:.9}, {:.9}, {:.9}]", g.x, g.y, g.z);
    println!(
        "bounding sphere:  centre [{:.9}, {:.9}, {:.9}], radius {:.9}",
        c.x, c.y, c.z, r
    );
    if p.radius() > 0.0 {
        println!(
            "radius:           {} (rounded: the polytope above dilated by a ball of this radius; bounding radius {:.9})",
            p.radius(),
            p.bounding_radius()
        );
    } else {
        println!("radius:           0");
    }
    println!("DK levels:        {dk_levels:?}");
    println!("planarity error:  {:.3e}", rep.max_planarity_error);
    println!("convexity error:  {:.3e}", rep.max_convexity_error);
    println!("valid:            {}", if rep.valid { "yes" } else { "NO" });
    Ok(if rep.valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `polycd hull`.
fn hull_command(points: &std::path::Path, output: &std::path::Path, timings: bool) -> Result<ExitCode, String> {
    let mut bar = polycd_cli::progress::Bar::new();
    let pts = input::load_points(points).map_err(|e| e.to_string())?;
    let p = polycd::ConvexPolyhedron::from_points_with_progress(&pts, &mut |ph, d, t| bar.update(ph, d, t));
    bar.finish();
    if timings {
        eprintln!("{}", bar.timings());
    }
    let p = p.map_err(|e| format!("{}: {e}", points.display()))?;
    let ext = output
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "obj" => polycd::io::write_obj(output, &p),
        "off" => polycd::io::write_off(output, &p),
        "stl" => polycd::io::write_stl(output, &p),
        _ => {
            return Err(format!(
                "{}: unknown output format (use .obj, .off or .stl)",
                output.display()
            ))
        }
    }
    .map_err(|e| e.to_string())?;
    let (v, e, f) = p.counts();
    println!(
        "{} points -> hull with {v} vertices, {e} edges, {f} faces -> {}",
        pts.len(),
        output.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `polycd query`: a pair of convex shapes, a pair with mesh or surface sides, or a point
/// or ray on one shape.
fn query_command(args: QueryArgs) -> Result<ExitCode, String> {
    let QueryArgs {
        a,
        b,
        pair:
            PairArgs {
                pose_a,
                pose_b,
                query: q,
                margin,
                reduce,
                direction,
                algo,
            },
        point,
        origin,
        json,
        verify,
        hull,
        mesh,
        surface,
    } = args;
    let kind = QueryKind::parse(&q)?;
    if mesh && kind.single_shape() {
        let probe = [point, origin, direction];
        return probe_command(&a, b, pose_a, kind, probe, json, verify, Load::Mesh);
    }
    if mesh || surface {
        return mesh_query(&a, b.as_deref(), [pose_a, pose_b], kind, &algo, json, verify, surface);
    }
    let options = manifold_options(kind, &q, margin, reduce)?;
    if kind.single_shape() {
        let load = if hull { Load::Hull } else { Load::Convex };
        return probe_command(&a, b, pose_a, kind, [point, origin, direction], json, verify, load);
    }
    let Some(b) = b else {
        return Err(format!(
            "--query {q} needs two shapes: polycd query A B (one shape: --query point or ray)"
        ));
    };
    for (flag, given) in [("--point", point.is_some()), ("--origin", origin.is_some())] {
        if given {
            return Err(format!("{flag} is for --query point or ray, not {q}"));
        }
    }
    let mut bar = polycd_cli::progress::Bar::new();
    let loaded = load(&a, hull, &mut bar).and_then(|sa| Ok((sa, load(&b, hull, &mut bar)?)));
    bar.finish();
    let ((sa, note_a), (sb, note_b)) = loaded?;
    for n in [note_a, note_b].into_iter().flatten() {
        eprintln!("{n}");
    }
    let pa = parse_pose(pose_a.as_deref())?;
    let pb = parse_pose(pose_b.as_deref())?;
    let algorithm = parse_algorithm(&algo)?;
    let dir = match direction {
        Some(d) => Some(parse_vec(&d).map_err(|e| format!("--direction: {e}"))?),
        None if kind == QueryKind::Directional => {
            return Err("--query directional needs --direction \"x y z\": the line along which B is translated".into())
        }
        None => None,
    };
    let ans = batch::answer_with(&sa, &pa, &sb, &pb, kind, dir, algorithm, &options);
    if verify {
        let v = batch::verify_answer(&sa, &pa, &sb, &pb, kind, dir, algorithm);
        match &v {
            Ok(()) => eprintln!("verify: certificate checked: OK"),
            Err(e) => eprintln!("verify: FAILED: {e}"),
        }
        if v.is_err() {
            print_answer(&ans, kind, json);
            return Ok(ExitCode::FAILURE);
        }
    }
    print_answer(&ans, kind, json);
    Ok(if ans.status == "error" {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The short version of the benchmarks: quick runs of two scenarios, side by side with parry3d.
#[cfg(feature = "bench")]
fn demo_versus_parry() -> Result<(), String> {
    println!("== side by side with parry3d (quick runs; full runs: `polycd bench NAME`, see BENCHMARKS.md)");
    println!("Timings of two of the papers' experiments, polycd's algorithms beside parry3d's. \"median of");
    println!("N\": each time is the median of N repetitions (quick runs use few, so expect noise); \"Fig. N\"");
    println!("names the paper's figure a row reproduces; FV/VF/EE are CD-Dual's three searches");
    println!("(face-vertex, vertex-face and edge-edge feature pairs).");
    let out = std::env::temp_dir().join(format!("polycd-demo-{}", std::process::id()));
    for name in ["random-distance", "ellipsoid-sweep"] {
        let opts = polycd_bench::RunOptions {
            quick: true,
            out_dir: out.clone(),
            progress: false,
            ..Default::default()
        };
        let r = polycd_bench::run(name, &opts)?;
        print!("{}", r.table);
    }
    let _ = std::fs::remove_dir_all(&out);
    Ok(())
}

#[cfg(not(feature = "bench"))]
fn demo_versus_parry() -> Result<(), String> {
    Ok(())
}

#[cfg(feature = "bench")]
fn bench(scenario: Option<String>, list: bool, quick: bool, out: PathBuf) -> Result<ExitCode, String> {
    if list || scenario.is_none() {
        println!("benchmark scenarios (run one with `polycd bench NAME [--quick]`, or `all`):");
        for s in polycd_bench::scenarios() {
            println!("  {:<18} {}", s.name, s.description);
        }
        println!(
            "  {:<18} polycd batch's answered lines/s on 1 thread and on every core (issue 27)",
            "batch"
        );
        return Ok(ExitCode::SUCCESS);
    }
    let name = scenario.unwrap_or_else(|| "all".into());
    let opts = polycd_bench::RunOptions {
        quick,
        out_dir: out,
        progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
        ..Default::default()
    };
    let r = polycd_bench::run(&name, &opts)?;
    print!("{}", r.table);
    for f in &r.files {
        println!("wrote {}", f.display());
    }
    for u in &r.unavailable {
        println!("n/a: {u}");
    }
    if !r.agrees() {
        eprintln!("polycd: the methods disagreed (see the disagreements file)");
        return Ok(ExitCode::from(2));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(not(feature = "bench"))]
fn bench(_scenario: Option<String>, _list: bool, _quick: bool, _out: PathBuf) -> Result<ExitCode, String> {
    Err("this build of polycd has no benchmark harness: build it with `cargo run --release -p polycd-cli --features bench -- bench …` (the feature pulls in parry3d and plotters)".into())
}

/// How `polycd query SHAPE --query point|ray` reads its shape.
#[derive(Clone, Copy, PartialEq)]
enum Load {
    /// A convex shape (a non-convex file refused).
    Convex,
    /// `--hull`: a file's convex hull.
    Hull,
    /// `--mesh`: a mesh file (or `torus-knot:` spec) as a closed non-convex solid, answered
    /// as a batch point or ray line on `"kind": "mesh"`; other specs stay convex.
    Mesh,
}

/// `polycd query SHAPE --query point|ray`: one shape, the point or the ray.
#[allow(clippy::too_many_arguments)]
fn probe_command(
    a: &str,
    b: Option<String>,
    pose_a: Option<String>,
    kind: QueryKind,
    [point, origin, direction]: [Option<String>; 3],
    json: bool,
    verify: bool,
    how: Load,
) -> Result<ExitCode, String> {
    let name = if kind == QueryKind::Point { "point" } else { "ray" };
    if let Some(b) = b {
        return Err(format!("--query {name} takes one shape, got a second one: '{b}'"));
    }
    let vector = |v: Option<String>, flag: &str| -> Result<DVec3, String> {
        let v = v.ok_or_else(|| format!("--query {name} needs {flag} \"x y z\""))?;
        let p = parse_vec(&v).map_err(|e| format!("{flag}: {e}"))?;
        if !p.is_finite() {
            return Err(format!("{flag}: coordinates must be finite"));
        }
        Ok(p)
    };
    let probe = if kind == QueryKind::Point {
        if origin.is_some() || direction.is_some() {
            return Err("--origin and --direction are for --query ray, not point".into());
        }
        batch::Probe::Point(vector(point, "--point")?)
    } else {
        if point.is_some() {
            return Err("--point is for --query point, not ray".into());
        }
        let origin = vector(origin, "--origin")?;
        let direction = vector(direction, "--direction")?;
        if direction == DVec3::ZERO {
            return Err("--direction: a ray needs a non-zero direction".into());
        }
        batch::Probe::Ray { origin, direction }
    };
    if verify {
        eprintln!("verify: point and ray answers carry no certificate to check (answered by exact predicates)");
    }
    let ans = if how == Load::Mesh {
        let (sa, notes) = polycd_cli::meshq::load_cli(a).map_err(|e| e.to_string())?;
        for n in notes {
            eprintln!("{n}");
        }
        let pa = parse_pose(pose_a.as_deref())?;
        match (sa, probe) {
            (polycd_cli::meshq::BatchSolid::Mesh(m), batch::Probe::Point(p)) => {
                polycd_cli::meshq::answer_probe(&m, &pa, Some(p), None)
            }
            (polycd_cli::meshq::BatchSolid::Mesh(m), batch::Probe::Ray { origin, direction }) => {
                polycd_cli::meshq::answer_probe(&m, &pa, None, Some((origin, direction)))
            }
            (polycd_cli::meshq::BatchSolid::Convex(c), probe) => batch::answer_probe(&c, &pa, probe),
            (polycd_cli::meshq::BatchSolid::Surface(_), _) => {
                return Err("internal: --mesh read a surface".into());
            }
        }
    } else {
        let mut bar = polycd_cli::progress::Bar::new();
        let loaded = load(a, how == Load::Hull, &mut bar);
        bar.finish();
        let (sa, note) = loaded?;
        if let Some(n) = note {
            eprintln!("{n}");
        }
        let pa = parse_pose(pose_a.as_deref())?;
        batch::answer_probe(&sa, &pa, probe)
    };
    print_answer(&ans, kind, json);
    Ok(if ans.status == "error" {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `polycd query --mesh`: a pair with mesh sides ([`polycd_cli::meshq`]).
#[allow(clippy::too_many_arguments)]
fn mesh_query(
    a: &str,
    b: Option<&str>,
    poses: [Option<String>; 2],
    kind: QueryKind,
    algo: &str,
    json: bool,
    verify: bool,
    surface: bool,
) -> Result<ExitCode, String> {
    use polycd_cli::meshq;
    if verify {
        return Err("--verify checks convex certificates; mesh answers have none (omit --verify)".into());
    }
    let b = b.ok_or("--mesh needs two shapes: polycd query --mesh A B")?;
    if !matches!(kind, QueryKind::Intersect | QueryKind::Distance) {
        return Err(if surface {
            "--surface answers --query intersect and distance".into()
        } else {
            "--mesh answers --query intersect, distance, point and ray".into()
        });
    }
    let algorithm = parse_algorithm(algo)?;
    let load = |s: &str| {
        if surface {
            meshq::load_cli_surface(s)
        } else {
            meshq::load_cli(s)
        }
    };
    let (sa, na) = load(a).map_err(|e| e.to_string())?;
    let (sb, nb) = load(b).map_err(|e| e.to_string())?;
    for n in na.into_iter().chain(nb) {
        eprintln!("{n}");
    }
    let [pa, pb] = poses;
    let pa = parse_pose(pa.as_deref())?;
    let pb = parse_pose(pb.as_deref())?;
    let ans = meshq::answer_body(
        sa.body(),
        &pa,
        sb.body(),
        &pb,
        kind,
        algorithm,
        None,
        &polycd::ManifoldOptions::default(),
    );
    print_answer(&ans, kind, json);
    Ok(if ans.status == "error" {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn print_answer(ans: &answer::Answer, kind: QueryKind, json: bool) {
    if json {
        println!("{}", serde_json::to_string(&ans.to_json()).unwrap_or_default());
        return;
    }
    println!("status:          {}", ans.status);
    if let Some(e) = &ans.error {
        println!("error:           {e}");
    }
    if let Some(d) = ans.distance {
        println!("distance:        {d:.17e}");
    }
    if let Some(d) = ans.signed_distance {
        println!("signed distance: {d:.17e}");
    }
    match ans.directional {
        Some(t) => println!("directional t:   {t:.17e}"),
        None if kind == QueryKind::Directional && ans.error.is_none() => {
            println!("directional t:   none: no translation of B along the direction makes it touch A")
        }
        None => {}
    }
    if let Some(p) = ans.point_a.filter(|_| !kind.single_shape()) {
        println!("point on A:      [{:.17e}, {:.17e}, {:.17e}]", p.x, p.y, p.z);
    }
    if let Some(p) = ans.point_b {
        println!("point on B:      [{:.17e}, {:.17e}, {:.17e}]", p.x, p.y, p.z);
    }
    if kind == QueryKind::Ray && ans.error.is_none() {
        match ans.ray {
            Some(r) => {
                println!("ray t:           {:.17e}", r.t);
                println!(
                    "hit point:       [{:.17e}, {:.17e}, {:.17e}]",
                    r.point.x, r.point.y, r.point.z
                );
                match r.normal {
                    Some(n) => println!("normal:          [{:.17e}, {:.17e}, {:.17e}]", n.x, n.y, n.z),
                    None => println!("normal:          none: the origin is inside A"),
                }
            }
            None => println!("ray:             miss: the ray does not meet A"),
        }
    } else if let Some(p) = ans.point_a.filter(|_| kind == QueryKind::Point) {
        println!("closest point:   [{:.17e}, {:.17e}, {:.17e}]", p.x, p.y, p.z);
    }
    if let Some(f) = ans.feature_a {
        println!("feature:         A {}", answer::feature_text(f));
    }
    if let Some(f) = ans.solid_feature_a {
        println!("feature:         A {}", answer::solid_feature_text(f));
    }
    if let Some(f) = &ans.features {
        println!(
            "features:        A {}  B {}",
            answer::feature_text(f.a),
            answer::feature_text(f.b)
        );
    }
    if let Some((a, b)) = ans.solid_features {
        println!(
            "features:        A {}  B {}",
            answer::solid_feature_text(a),
            answer::solid_feature_text(b)
        );
    }
    if let Some(i) = ans.iterations {
        println!("iterations:      {i}");
    }
    match &ans.manifold {
        Some(None) => println!("manifold:        none: apart beyond the margin"),
        Some(Some(m)) => {
            let n = m.normal;
            println!(
                "manifold:        {} point{}, normal [{:.17e}, {:.17e}, {:.17e}]",
                m.points.len(),
                if m.points.len() == 1 { "" } else { "s" },
                n.x,
                n.y,
                n.z
            );
            for (k, q) in m.points.iter().enumerate() {
                println!(
                    "  {k}: A [{:.17e}, {:.17e}, {:.17e}]  B [{:.17e}, {:.17e}, {:.17e}]  separation {:.17e}  A {}  B {}",
                    q.a.x,
                    q.a.y,
                    q.a.z,
                    q.b.x,
                    q.b.y,
                    q.b.z,
                    q.separation,
                    answer::feature_text(q.features.a),
                    answer::feature_text(q.features.b)
                );
            }
        }
        None => {}
    }
}

/// A shape for `query` or `info`; with `hull`, the note that a file's hull is used goes to
/// stderr.
/// A shape for `info` and `query` ([`input::load_shape_hull`]), with the progress of its
/// construction on `bar`, and the note to print (on stderr, after the bar) when `--hull`
/// replaced a non-convex file by its hull.
fn load(
    s: &str,
    hull: bool,
    bar: &mut polycd_cli::progress::Bar,
) -> Result<(polycd::ConvexPolyhedron, Option<String>), String> {
    input::load_shape_hull(s, hull, &mut |ph, d, t| bar.update(ph, d, t)).map_err(|e| input::shape_error_text(&e))
}

fn parse_vec(s: &str) -> Result<DVec3, String> {
    let v: Vec<f64> = s
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .map(|t| t.parse::<f64>().map_err(|_| format!("'{t}' is not a number")))
        .collect::<Result<_, _>>()?;
    if v.len() != 3 {
        return Err(format!("expected 3 numbers, got {}", v.len()));
    }
    Ok(DVec3::new(v[0], v[1], v[2]))
}

fn parse_pose(s: Option<&str>) -> Result<Pose, String> {
    let Some(s) = s else {
        return Ok(Pose::IDENTITY);
    };
    let v: Vec<f64> = s
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .map(|t| t.parse::<f64>().map_err(|_| format!("pose: '{t}' is not a number")))
        .collect::<Result<_, _>>()?;
    match v.len() {
        3 => Pose::try_from_wxyz([v[0], v[1], v[2]], [1.0, 0.0, 0.0, 0.0]).map_err(|e| format!("pose: {e}")),
        7 => Pose::try_from_wxyz([v[0], v[1], v[2]], [v[3], v[4], v[5], v[6]]).map_err(|e| format!("pose: {e}")),
        n => Err(format!(
            "pose: expected \"tx ty tz\" or \"tx ty tz qw qx qy qz\", got {n} numbers"
        )),
    }
}
