//! Differential runs (issue 8): every algorithm against the brute-force oracle on seeded random
//! pairs from every shape family, with every answer's certificate checked by `polycd::verify`.
//!
//! Pair `i` takes shape A from family `i mod F` (B: the same family half the time, another one
//! otherwise) at a common random scale 1e-3…1e6, random orientations — in one pair of three B
//! is A's orientation turned by a tiny angle e^−k (k uniform in 0…20), so faces are nearly
//! parallel — and in one pair of four (scales ≤ 1 only) both shapes are moved ~1e6 away from
//! the origin. B is placed along a random line through A's reference point at the oracle's
//! contact translation plus a gap of the pair's offset class: `deep` (half-way back from contact towards the
//! reference point), `near`
//! (|gap| ≤ 1e-6 × size, either sign), `contact` (gap 0), `far` (0.5…5 × size) or `centred`
//! (B's reference point on A's: concentric, the origin of A − B often its centre of symmetry).
//!
//! For each algorithm and question (`intersect`, `distance`, `directional` along three lines)
//! an answer disagrees when: it is an error other than `Unsupported`, or `NotConverged`; its
//! status differs from the oracle's while the oracle's signed distance lies outside the contact
//! band (contact tolerance + 1e-12 × pair scale), or it is not "touching" while the oracle's
//! |signed distance| is within a quarter of the contact tolerance; its signed distance (or directional `t`,
//! scaled by |n·s| as in the conformance suite) differs from the oracle's by more than
//! 1e-12 × pair scale (by more than the band inside the band); or its certificate is rejected.

use polycd::oracle::Agreement;
use polycd::query::{self, contact_tolerance};
use polycd::{
    oracle, shapes, Algorithm, ConvexPolyhedron, DQuat, DVec3, Intersection, PairCache, PolycdError, Pose, Status,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt::Write;

/// Offset classes, in report order.
const OFFSETS: [&str; 5] = ["deep", "near", "contact", "far", "centred"];
/// Scales of the shapes (bounding radius).
const SCALES: [f64; 6] = [1e-3, 1e-2, 1.0, 1e2, 1e4, 1e6];
/// Well inside the contact band — the oracle's |signed distance| at most this fraction of the
/// contact tolerance — every answer must say "touching" (a distance or depth within the
/// tolerance). A quarter leaves the algorithms' own measurement error (their stopping gaps are
/// ≤ the tolerance, their errors in practice a few ulps) room without letting a pair that
/// touches be reported overlapping or disjoint.
const INNER_BAND: f64 = 0.25;
/// At most this many disagreements are described in full.
const MAX_DETAILS: usize = 40;

/// The outcome of a differential run.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The report table (and details of the first disagreements).
    pub text: String,
    /// Answers checked.
    pub checks: usize,
    /// Answers that disagree with the oracle or whose certificate is rejected.
    pub disagreements: usize,
    /// Every disagreement: (pair index, algorithm, question, description).
    pub records: Vec<(usize, Algorithm, &'static str, String)>,
}

/// The shape families, each normalised to bounding radius 1.
fn families() -> Result<Vec<(&'static str, ConvexPolyhedron)>, PolycdError> {
    Ok(vec![
        ("cube", shapes::cuboid(1.0, 1.0, 1.0)?),
        ("tetrahedron", shapes::tetrahedron(1.0)?),
        ("icosahedron", shapes::icosahedron(1.0)?),
        ("disk", shapes::prism(60, 10.0, 1.0)?),
        ("icosphere1", shapes::icosphere(1, 1.0)?),
        ("ellipsoid", shapes::ellipsoid(40, 1.0, 0.7, 0.5, 11)?),
        ("needle", shapes::ellipsoid(40, 200.0, 20.0, 20.0, 12)?),
        ("plate", shapes::ellipsoid(40, 200.0, 200.0, 20.0, 13)?),
        ("needle2", shapes::ellipsoid(60, 200.0, 2.0, 2.0, 14)?),
        ("sliver", shapes::ellipsoid(200, 200.0, 200.0, 0.5, 16)?),
    ])
}

fn scaled(p: &ConvexPolyhedron, s: f64) -> Result<ConvexPolyhedron, PolycdError> {
    let k = s / p.scale();
    let pts: Vec<DVec3> = p.vertices().iter().map(|v| *v * k).collect();
    ConvexPolyhedron::from_points(&pts)
}

/// One generated pair.
struct Pair {
    fa: usize,
    offset: usize,
    tilt: Option<u32>,
    far_origin: bool,
    pa: Pose,
    pb: Pose,
}

/// Runs `pairs` pairs from `seed`: `Ok(report)` when every answer agrees, `Err(report)` when
/// some disagree (or a setup error message).
pub fn run(pairs: usize, seed: u64) -> Result<String, String> {
    let r = differential(pairs, seed)?;
    if r.disagreements == 0 {
        Ok(r.text)
    } else {
        Err(r.text)
    }
}

/// The run behind [`run`], with the counts.
pub fn differential(pairs: usize, seed: u64) -> Result<Report, String> {
    let fams = families().map_err(|e| format!("building the shape families: {e}"))?;
    let mut shapes_at: Vec<Vec<ConvexPolyhedron>> = Vec::with_capacity(SCALES.len());
    for &s in &SCALES {
        let mut row = Vec::with_capacity(fams.len());
        for (name, p) in &fams {
            row.push(scaled(p, s).map_err(|e| format!("scaling {name} to {s:e}: {e}"))?);
        }
        shapes_at.push(row);
    }
    let nf = fams.len();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // [family][offset] = (pairs, pairs with a disagreement)
    let mut table = vec![[(0usize, 0usize); OFFSETS.len()]; nf];
    let mut per_alg = [0usize; Algorithm::ALL.len()];
    let mut answered = [[0usize; 3]; Algorithm::ALL.len()];
    let mut details: Vec<String> = Vec::new();
    let mut report = Report::default();
    for i in 0..pairs {
        let fa = i % nf;
        let fb = if rng.random_bool(0.5) {
            fa
        } else {
            rng.random_range(0..nf)
        };
        let offset = (i / nf) % OFFSETS.len();
        let si = rng.random_range(0..SCALES.len());
        let scale = SCALES[si];
        let (a, b) = (&shapes_at[si][fa], &shapes_at[si][fb]);
        let pair = place(&mut rng, a, b, fa, offset, scale)?;
        let label = format!(
            "pair {i} [{} vs {}, {}, scale {:e}{}{}]",
            fams[fa].0,
            fams[fb].0,
            OFFSETS[offset],
            scale,
            pair.tilt.map(|k| format!(", tilt e^-{k}")).unwrap_or_default(),
            if pair.far_origin { ", 1e6 from the origin" } else { "" }
        );
        let mut bad_pair = false;
        let found = check_pair(a, b, &pair, &mut answered, &mut report.checks)?;
        for (ai, msg) in found {
            bad_pair = true;
            let question = ["intersect", "distance", "directional"]
                .into_iter()
                .find(|q| msg.starts_with(q))
                .unwrap_or("?");
            report
                .records
                .push((i, Algorithm::ALL[ai], question, format!("{label}: {msg}")));
            per_alg[ai] += 1;
            report.disagreements += 1;
            if details.len() < MAX_DETAILS {
                details.push(format!(
                    "{label} {}: {msg}\n    pose A {:?}\n    pose B {:?}",
                    Algorithm::ALL[ai].name(),
                    pair.pa,
                    pair.pb
                ));
            }
        }
        let cell = &mut table[pair.fa][pair.offset];
        cell.0 += 1;
        if bad_pair {
            cell.1 += 1;
        }
    }
    let mut t = String::new();
    let _ = writeln!(
        t,
        "differential: {pairs} pairs (seed {seed}), {} answers checked, {} disagreements",
        report.checks, report.disagreements
    );
    let _ = writeln!(t, "pairs with a disagreement / pairs, by A's family and offset class:");
    let _ = write!(t, "{:<12}", "family");
    for o in OFFSETS {
        let _ = write!(t, "{o:>10}");
    }
    let _ = writeln!(t);
    for (f, row) in table.iter().enumerate() {
        let _ = write!(t, "{:<12}", fams[f].0);
        for &(n, bad) in row {
            let _ = write!(t, "{:>10}", format!("{bad}/{n}"));
        }
        let _ = writeln!(t);
    }
    let _ = writeln!(t, "by algorithm (answers checked: intersect, distance, directional):");
    for (ai, alg) in Algorithm::ALL.iter().enumerate() {
        let [x, y, z] = answered[ai];
        let _ = writeln!(
            t,
            "  {:8} {:>6} disagreements   ({x}, {y}, {z})",
            alg.name(),
            per_alg[ai]
        );
    }
    // Kinds of disagreement: the message up to its second ':' (question and check).
    let mut kinds: std::collections::BTreeMap<(&str, &str, String), usize> = std::collections::BTreeMap::new();
    for (_, alg, q, msg) in &report.records {
        let body = msg.split_once("]: ").map(|x| x.1).unwrap_or(msg);
        let kind: String = body.splitn(4, ": ").skip(1).take(2).collect::<Vec<_>>().join(": ");
        let kind = kind
            .split(|c: char| c.is_ascii_digit() || c == '(')
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        *kinds.entry((alg.name(), q, kind)).or_default() += 1;
    }
    if !kinds.is_empty() {
        let _ = writeln!(t, "disagreements by kind:");
        for ((alg, q, kind), n) in &kinds {
            let _ = writeln!(t, "  {n:>6}  {alg} {q}: {kind}");
        }
    }
    if !details.is_empty() {
        let _ = writeln!(t, "first disagreements:");
        for d in &details {
            let _ = writeln!(t, "  {d}");
        }
    }
    report.text = t;
    Ok(report)
}

/// Random poses for a pair at the offset class `offset`.
fn place(
    rng: &mut ChaCha8Rng,
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
    fa: usize,
    offset: usize,
    scale: f64,
) -> Result<Pair, String> {
    let far_origin = scale <= 1.0 && rng.random_range(0..4) == 0;
    let base = if far_origin {
        shapes::unit_vector(rng) * 1e6
    } else {
        shapes::unit_vector(rng) * (scale * rng.random_range(0.0..3.0))
    };
    let ra = shapes::random_rotation(rng);
    let tilt = if rng.random_range(0..3) == 0 {
        Some(rng.random_range(0..=20u32))
    } else {
        None
    };
    let rb = match tilt {
        Some(k) => {
            let axis = shapes::unit_vector(rng);
            ra * DQuat::from_axis_angle(axis, (-(k as f64)).exp())
        }
        None => shapes::random_rotation(rng),
    };
    let pa = Pose::new(ra, base);
    let mut u = shapes::unit_vector(rng);
    let centred = Pose::new(rb, base);
    let t = oracle::directional(a, &pa, b, &centred, u)
        .map_err(|e| format!("oracle: {e}"))?
        .unwrap_or(0.0);
    let t = if t < 0.0 {
        u = -u;
        -t
    } else {
        t
    };
    let gap = match offset {
        0 => -0.5 * t,
        1 => rng.random_range(-1.0..1.0) * 1e-6 * scale,
        2 => 0.0,
        3 => rng.random_range(0.5..5.0) * scale,
        // Both reference points at `base`: concentric (the shapes are centred on their
        // reference points), the origin of A − B at its centre of symmetry when the shapes
        // are symmetric — and B = A exactly when the families match and B is only tilted.
        _ => -t,
    };
    let pb = Pose::new(rb, base + u * (t + gap));
    Ok(Pair {
        fa,
        offset,
        tilt,
        far_origin,
        pa,
        pb,
    })
}

/// Every algorithm on one pair: (algorithm index, description) of each disagreement.
fn check_pair(
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
    p: &Pair,
    answered: &mut [[usize; 3]; Algorithm::ALL.len()],
    checks: &mut usize,
) -> Result<Vec<(usize, String)>, String> {
    let (pa, pb) = (&p.pa, &p.pb);
    let o = oracle::signed_distance(a, pa, b, pb).map_err(|e| format!("oracle: {e}"))?;
    let sd = o.signed_distance;
    let ctol = contact_tolerance(a, pa, b, pb);
    let judge = Agreement::new(a, pa, b, pb, sd);

    let mut rng = ChaCha8Rng::seed_from_u64(sd.to_bits());
    let mut dirs = vec![(pb.translation - pa.translation).normalize_or(DVec3::X)];
    dirs.push(-dirs[0]);
    dirs.push(shapes::unit_vector(&mut rng));
    let mut expected_t = Vec::with_capacity(dirs.len());
    for &s in &dirs {
        expected_t.push(oracle::directional(a, pa, b, pb, s).map_err(|e| format!("oracle: {e}"))?);
    }
    let mut out = Vec::new();
    for (ai, &alg) in Algorithm::ALL.iter().enumerate() {
        let mut cache = PairCache::default();
        match query::intersect(a, pa, b, pb, alg, &mut cache) {
            Err(PolycdError::Unsupported { .. }) => {}
            Err(e) => out.push((ai, format!("intersect: error {e}"))),
            Ok(r) => {
                answered[ai][0] += 1;
                *checks += 1;
                if sd.abs() <= INNER_BAND * ctol && !matches!(r, Intersection::Touching { .. }) {
                    out.push((
                        ai,
                        format!(
                            "intersect: status {:?} for a touching pair (oracle signed distance {sd:e}, tolerance {ctol:e})",
                            r.status()
                        ),
                    ));
                } else if let Err(m) = judge.intersection(&r) {
                    out.push((ai, format!("intersect: {m}")));
                }
            }
        }
        match query::distance(a, pa, b, pb, alg, &mut cache) {
            Err(PolycdError::Unsupported { .. }) => {}
            Err(e) => out.push((ai, format!("distance: error {e}"))),
            Ok(r) => {
                answered[ai][1] += 1;
                *checks += 1;
                if sd.abs() <= INNER_BAND * ctol && r.status(ctol) != Status::Touching {
                    out.push((
                        ai,
                        format!(
                            "distance: status {:?}, signed distance {:?} for a touching pair (oracle {sd:e}, tolerance {ctol:e})",
                            r.status(ctol),
                            r.signed_distance()
                        ),
                    ));
                } else if let Err(m) = judge.distance(&r) {
                    out.push((ai, format!("distance: {m}")));
                }
            }
        }
        for (&s, &t0) in dirs.iter().zip(&expected_t) {
            match query::directional(a, pa, b, pb, s, alg, &mut cache) {
                Err(PolycdError::Unsupported { .. }) => {}
                Err(e) => out.push((ai, format!("directional: error {e}"))),
                Ok(r) => {
                    answered[ai][2] += 1;
                    *checks += 1;
                    if let Err(m) = judge.directional(s, t0, &r) {
                        out.push((ai, format!("directional: {m}")));
                    }
                }
            }
        }
    }
    Ok(out)
}
