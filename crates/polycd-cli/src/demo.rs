//! `polycd demo`: the main job on built-in shapes, no files needed.
//!
//! Builds the papers' workload — convex hulls of random points on ellipsoids — places pairs at
//! offsets from deep overlap through contact to far apart, answers every question with every
//! algorithm, and prints agreement with a reference and the mean time per query.

use polycd::query::{self, Status};
use polycd::shapes;
use polycd::{Algorithm, ConvexPolyhedron, DVec3, Directional, PairCache, PolycdError, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

struct Row {
    answered: usize,
    unsupported: usize,
    failed: usize,
    agree: usize,
    compared: usize,
    nanos: u128,
}

impl Row {
    fn new() -> Row {
        Row {
            answered: 0,
            unsupported: 0,
            failed: 0,
            agree: 0,
            compared: 0,
            nanos: 0,
        }
    }
}

struct Pair {
    pose_b: Pose,
    dir: DVec3,
}

fn same_status(x: Status, y: Status) -> bool {
    // Touching is compatible with both neighbours: near contact the float input itself
    // cannot tell them apart more finely than the contact tolerance.
    x == y || x == Status::Touching || y == Status::Touching
}

/// The demo's opening: one question answered in full and checked — two built-in shapes, their
/// distance, closest points and features, a separating plane, and `polycd::verify`'s check of
/// both certificates. Returns the text; an answer that fails its check is an error.
pub fn worked_answer() -> Result<String, String> {
    use polycd::verify::{verify, Answer};
    use polycd::{Distance, Intersection};
    let (spec_a, spec_b) = ("box:1,1,1", "octahedron");
    let a = shapes::from_spec(spec_a).map_err(|e| e.to_string())?;
    let b = shapes::from_spec(spec_b).map_err(|e| e.to_string())?;
    let pa = Pose::IDENTITY;
    let t = DVec3::new(2.2, 0.1, 0.2);
    let pb = Pose::from_translation(t);
    let v = |p: DVec3| format!("[{}, {}, {}]", p.x, p.y, p.z);
    let mut s = String::new();
    s.push_str("One worked answer first. A is a unit cube centred at the origin (`box:1,1,1`); B is a\n");
    s.push_str(&format!(
        "regular octahedron of circumradius 1 (`octahedron`) centred at {}. How far apart are they,\n",
        v(t)
    ));
    s.push_str("and where? (The same question on the command line:\n");
    s.push_str(&format!(
        "  polycd query {spec_a} {spec_b} --pose-b \"{} {} {}\" --query distance --algo vclip --verify)\n\n",
        t.x, t.y, t.z
    ));
    let mut cache = PairCache::default();
    let d = query::distance(&a, &pa, &b, &pb, Algorithm::VClip, &mut cache).map_err(|e| e.to_string())?;
    let Distance::Separated {
        distance,
        point_a,
        point_b,
        features,
        ..
    } = d
    else {
        return Err(format!("demo: the worked example's shapes are not apart: {d:?}"));
    };
    let hit = query::intersect(&a, &pa, &b, &pb, Algorithm::CdDual, &mut cache).map_err(|e| e.to_string())?;
    let Intersection::Disjoint { plane, .. } = hit else {
        return Err(format!("demo: the worked example's shapes are not disjoint: {hit:?}"));
    };
    verify(&a, &pa, &b, &pb, &Answer::Distance(d)).map_err(|e| format!("demo: verify (distance): {e}"))?;
    verify(&a, &pa, &b, &pb, &Answer::Intersection(hit)).map_err(|e| format!("demo: verify (plane): {e}"))?;
    let line =
        |s: &mut String, label: &str, value: String| s.push_str(&format!("  {:<19} {value}\n", format!("{label}:")));
    line(
        &mut s,
        "distance",
        format!("{distance} (V-Clip; units are the input's)"),
    );
    line(&mut s, "closest point on A", v(point_a));
    line(&mut s, "closest point on B", v(point_b));
    line(
        &mut s,
        "closest features",
        format!(
            "A {}, B {} (numbered as `polycd info` lists them)",
            crate::answer::feature_text(features.a),
            crate::answer::feature_text(features.b)
        ),
    );
    line(
        &mut s,
        "separating plane",
        format!(
            "normal {} · x = {} (CD-Dual): A on the side below, B above",
            v(plane.normal),
            plane.offset
        ),
    );
    line(
        &mut s,
        "verified",
        "yes: polycd::verify checked both certificates against the shapes, independently of\n                      the algorithms (the points lie on their features and realise the distance;\n                      every vertex of A is below the plane and every vertex of B above, by exact signs)".to_string(),
    );
    Ok(s)
}

/// Runs the demo with `pairs` random pairs per configuration, printing to stdout.
pub fn run(pairs: usize) -> Result<(), String> {
    println!("polycd demo\n");
    print!("{}", worked_answer()?);
    println!();
    println!("Then the main job: every algorithm answering many such questions and agreeing. Each table");
    println!("row is a question and an algorithm: how many pairs it answered, how many it does not");
    println!("support, how many answers agree with the reference, and the mean time per query.\n");
    let configs: [(usize, [f64; 3]); 3] = [
        (200, [200.0, 100.0, 100.0]),
        (1000, [200.0, 100.0, 100.0]),
        (1000, [200.0, 20.0, 20.0]),
    ];
    println!("The workload: every algorithm on convex hulls of random points on ellipsoids");
    println!("(the CD-Dual / HS-jump papers' workload), {pairs} random pairs per configuration,");
    println!("offsets from deep overlap through contact to far apart.\n");
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    for (ci, (n, axes)) in configs.iter().enumerate() {
        let a = shapes::ellipsoid(*n, axes[0], axes[1], axes[2], 10 + ci as u64).map_err(|e| e.to_string())?;
        let b = shapes::ellipsoid(*n, axes[0], axes[1], axes[2], 20 + ci as u64).map_err(|e| e.to_string())?;
        let (v, e, f) = a.counts();
        println!(
            "== n = {n}, semi-axes {}:{}:{} (hull: {v} vertices, {e} edges, {f} faces)",
            axes[0], axes[1], axes[2]
        );
        let ps: Vec<Pair> = (0..pairs)
            .map(|_| {
                let dir = shapes::unit_vector(&mut rng);
                let reach = 2.0 * axes[0];
                let dist = rng.random_range(-0.2..1.3) * reach;
                Pair {
                    pose_b: Pose::new(shapes::random_rotation(&mut rng), dir * dist),
                    dir: shapes::unit_vector(&mut rng),
                }
            })
            .collect();
        report(&a, &b, &ps)?;
        println!();
    }
    Ok(())
}

fn report(a: &ConvexPolyhedron, b: &ConvexPolyhedron, pairs: &[Pair]) -> Result<(), String> {
    let pa = Pose::IDENTITY;
    // Reference answers: `auto` (GJK) distance (status, signed distance) and directional.
    let mut ref_status = Vec::with_capacity(pairs.len());
    let mut ref_dist = Vec::with_capacity(pairs.len());
    let mut ref_dir = Vec::with_capacity(pairs.len());
    for p in pairs {
        let tol = query::contact_tolerance(a, &pa, b, &p.pose_b);
        let mut c = PairCache::default();
        match query::distance(a, &pa, b, &p.pose_b, Algorithm::Auto, &mut c) {
            Ok(d) => {
                ref_status.push(Some(d.status(tol)));
                ref_dist.push(d.signed_distance());
            }
            Err(_) => {
                ref_status.push(None);
                ref_dist.push(None);
            }
        }
        let mut c = PairCache::default();
        ref_dir.push(
            match query::directional(a, &pa, b, &p.pose_b, p.dir, Algorithm::Auto, &mut c) {
                Ok(Directional::Contact { t, .. }) => Some(Some(t)),
                Ok(Directional::Never { .. }) => Some(None),
                _ => None,
            },
        );
    }
    let scale = a.scale() + b.scale();
    println!(
        "{:<12} {:<12} {:>9} {:>11} {:>10} {:>12}",
        "query", "algorithm", "answered", "unsupported", "agreement", "mean µs"
    );
    for q in ["intersect", "distance", "directional"] {
        for algo in Algorithm::ALL {
            let mut row = Row::new();
            for (i, p) in pairs.iter().enumerate() {
                let tol = query::contact_tolerance(a, &pa, b, &p.pose_b);
                let mut cache = PairCache::default();
                let t0 = Instant::now();
                let (status, value): (Result<Option<Status>, PolycdError>, Option<Option<f64>>) = match q {
                    "intersect" => (
                        query::intersect(a, &pa, b, &p.pose_b, algo, &mut cache).map(|r| match r.status() {
                            Status::Unknown => None,
                            s => Some(s),
                        }),
                        None,
                    ),
                    "distance" => match query::distance(a, &pa, b, &p.pose_b, algo, &mut cache) {
                        Ok(d) => (Ok(Some(d.status(tol))), Some(d.signed_distance())),
                        Err(e) => (Err(e), None),
                    },
                    _ => match query::directional(a, &pa, b, &p.pose_b, p.dir, algo, &mut cache) {
                        Ok(Directional::Contact { t, .. }) => (Ok(Some(Status::Disjoint)), Some(Some(t))),
                        Ok(Directional::Never { .. }) => (Ok(Some(Status::Disjoint)), Some(None)),
                        // Not converged, or an answer this CLI does not know: counted as failed.
                        Ok(_) => (Ok(None), None),
                        Err(e) => (Err(e), None),
                    },
                };
                row.nanos += t0.elapsed().as_nanos();
                match status {
                    Err(PolycdError::Unsupported { .. }) => row.unsupported += 1,
                    Err(_) | Ok(None) => row.failed += 1,
                    Ok(Some(s)) => {
                        row.answered += 1;
                        match q {
                            "intersect" => {
                                if let Some(r) = ref_status[i] {
                                    row.compared += 1;
                                    row.agree += same_status(s, r) as usize;
                                }
                            }
                            "distance" => {
                                if let (Some(Some(x)), Some(r)) = (value, ref_dist[i]) {
                                    row.compared += 1;
                                    row.agree += ((x - r).abs() <= 1e-9 * scale) as usize;
                                }
                            }
                            _ => {
                                if let (Some(x), Some(r)) = (value, ref_dir[i]) {
                                    row.compared += 1;
                                    row.agree += match (x, r) {
                                        (Some(x), Some(r)) => (x - r).abs() <= 1e-9 * scale,
                                        (None, None) => true,
                                        _ => false,
                                    } as usize;
                                }
                            }
                        }
                    }
                }
            }
            if row.unsupported == pairs.len() {
                continue;
            }
            let done = row.answered + row.failed;
            let agreement = if row.compared > 0 {
                format!("{}/{}", row.agree, row.compared)
            } else {
                "-".into()
            };
            println!(
                "{:<12} {:<12} {:>9} {:>11} {:>10} {:>12.2}",
                q,
                algo.name(),
                format!("{}/{}", row.answered, pairs.len()),
                row.unsupported,
                agreement,
                row.nanos as f64 / done.max(1) as f64 / 1000.0
            );
            if row.failed > 0 {
                println!(
                    "{:<12} {:<12} {} queries did not converge or failed",
                    "", "", row.failed
                );
            }
        }
    }
    println!("(reference: `auto` — GJK for distance, contact status and directional (ray casts))");
    Ok(())
}
