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
//! Two sets of families ([`Families`], `polycd differential --families solid|flat`): the solid
//! polytopes below (the default), and the flat and rounded shapes of issue 22 — a sphere (a
//! point rounded), a capsule (a segment rounded), a triangle, the same triangle rounded (a
//! "thick" triangle) and a rounded box. Their oracle is [`RoundedOracle`]: the brute-force
//! Minkowski difference of the cores (`A − B` hulled exactly, or, when it is flat — a point,
//! a segment or a polygon, as for two spheres, a sphere and a capsule or a triangle, and
//! always when the cores' dimensions add up to at most 2, such as two capsules, whose
//! rounded points may hull into a sliver — every point, segment and triangle of its points), the rounded signed distance being the core's
//! minus `r_A + r_B`; the directional answer is where the convex function
//! `g(t) = sd(t·s, A − B) − r_A − r_B` first reaches 0 (golden-section minimum, then
//! bisection to the last bit; the polytope oracle's exact answer when no radius is involved
//! and the difference is solid). Plain points and segments without a radius are not among
//! them (two of them make a flat difference whose line crossings this oracle does not find).
//!
//! For each algorithm and question (`intersect`, `distance`, `directional` along three lines)
//! an answer disagrees when: it is an error other than `Unsupported`, or `NotConverged`; its
//! status differs from the oracle's while the oracle's signed distance lies outside the contact
//! band (contact tolerance + 1e-12 × pair scale), or it is not "touching" while the oracle's
//! |signed distance| is within a quarter of the contact tolerance (except flat shapes coplanar
//! within the tolerance and overlapping in their plane, which the contract reports
//! `Overlapping` at depth 0: see `COPLANAR_WIDTH`); its signed distance (or directional `t`,
//! scaled by |n·s| as in the conformance suite) differs from the oracle's by more than
//! 1e-12 × pair scale (by more than the band inside the band); or its certificate is rejected.

use polycd::geometry::{closest_on_segment, closest_on_triangle};
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
/// Two flat shapes lying in one plane within the contact tolerance whose relative interiors
/// overlap have penetration depth 0 and are reported `Overlapping` (issue 22's contract for
/// coplanar polygons, pinned by tests/flat.rs `coplanar_polygons`): inside the inner band that
/// is the documented answer, not a touching pair called overlapping. The oracle grants it when
/// `A − B` lies within `COPLANAR_WIDTH` × the tolerance of a polygon's plane and the origin
/// lies deeper than `COPLANAR_DEPTH` × the tolerance inside its projection — the library's
/// own tests compare both with the tolerance itself; the factors 2 and ½ leave its
/// measurement room at the thresholds, where either status is correct.
const COPLANAR_WIDTH: f64 = 2.0;
/// See [`COPLANAR_WIDTH`].
const COPLANAR_DEPTH: f64 = 0.5;
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

/// Which shape families a run draws its pairs from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Families {
    /// The solid polytopes (cube … sliver): the run of issue 8.
    #[default]
    Solid,
    /// The flat and rounded shapes of issue 22 (sphere, capsule, triangle, thick triangle,
    /// rounded box).
    Flat,
}

impl Families {
    /// Parses `solid` or `flat`.
    pub fn parse(s: &str) -> Option<Families> {
        match s.trim().to_ascii_lowercase().as_str() {
            "solid" => Some(Families::Solid),
            "flat" | "rounded" | "flat-rounded" => Some(Families::Flat),
            _ => None,
        }
    }
}

/// The flat and rounded families, each of bounding radius 1 (core plus rounding).
fn flat_families() -> Result<Vec<(&'static str, ConvexPolyhedron)>, PolycdError> {
    let tri = [
        DVec3::new(-0.9, -0.3, 0.0),
        DVec3::new(0.7, -0.45, 0.1),
        DVec3::new(0.05, 0.8, -0.1),
    ];
    let triangle = ConvexPolyhedron::from_points(&tri)?;
    let k = 1.0 / triangle.bounding_radius();
    let triangle = ConvexPolyhedron::from_points(&tri.map(|v| v * k))?;
    let thick = ConvexPolyhedron::from_points(&tri.map(|v| v * (0.85 * k)))?.with_radius(0.15)?;
    let rbox = shapes::cuboid(1.0, 0.7, 0.4)?;
    let rbox = rbox.with_radius(0.25)?;
    Ok(vec![
        ("sphere", shapes::sphere(1.0)?),
        ("capsule", shapes::capsule(1.2, 0.4)?),
        ("triangle", triangle),
        ("thick-tri", thick),
        ("rounded-box", rbox),
    ])
}

/// A flat or rounded family shape at bounding radius `s` (core and radius scaled together).
fn scaled_rounded(p: &ConvexPolyhedron, s: f64) -> Result<ConvexPolyhedron, PolycdError> {
    let k = s / p.bounding_radius();
    let pts: Vec<DVec3> = p.vertices().iter().map(|v| *v * k).collect();
    ConvexPolyhedron::from_points(&pts)?.with_radius(p.radius() * k)
}

/// The brute-force oracle of a pair of flat or rounded shapes (see the module header).
pub struct RoundedOracle {
    /// The faces of the hull of `A − B` (unit normal, offset, vertex loop), when it is solid.
    faces: Option<Vec<(DVec3, f64, Vec<DVec3>)>>,
    /// The distinct points `a_i − b_j`.
    points: Vec<DVec3>,
    /// `r_A + r_B`.
    radius: f64,
    /// Bounds every point's distance from the origin (the search range of the line).
    reach: f64,
    /// The planes of the polygons among two flat cores without radius (unit normals from
    /// their world vertices), where `A − B` may be flat: see [`RoundedOracle::coplanar_depth`].
    plane_normals: Vec<DVec3>,
    /// Solid in exact arithmetic but refused by the hull (see [`RoundedOracle::core_sd`]).
    sliver: bool,
}

/// At most this many distinct points of a flat `A − B` (every triple is a candidate: a
/// parallelogram of two segments has 4, a triangle less a point 3).
const MAX_FLAT_POINTS: usize = 12;
/// Within this fraction of the reach of `A − B`'s boundary (by its face planes) the solid
/// oracle decides inside or outside by exact predicates and measures the distance to the
/// boundary's triangles (see [`RoundedOracle::core_sd`]): 1e3 × the normal error ε/θ of a
/// sliver face at the run's largest tilt e^-20 (≈ 1e-7) would be 1e-4; 1e-6 covers tilts to
/// e^-20 with a factor 10 and keeps the exact test to pairs near contact.
const SIGN_BAND: f64 = 1e-6;

/// Whether `x` lies in the closed convex hull of `p` (at most [`MAX_FLAT_POINTS`] points):
/// some tetrahedron of them holds it, every face's exact orientation of `x` on the
/// tetrahedron's side or on the plane (Carathéodory; a flat set holds no tetrahedron and
/// answers `false`, as its interior is empty).
fn encloses(p: &[DVec3], x: DVec3) -> bool {
    use polycd::predicates::{orient3d, Orientation};
    let n = p.len();
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                for l in k + 1..n {
                    let t = [p[i], p[j], p[k], p[l]];
                    let ok = [(0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 3, 0)]
                        .iter()
                        .all(|&(a, b, c, d)| {
                            let s = orient3d(t[a], t[b], t[c], t[d]);
                            let o = orient3d(t[a], t[b], t[c], x);
                            s != Orientation::On && (o == s || o == Orientation::On)
                        });
                    if ok {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// The distance from `x` to the boundary of the hull of `p` (at most [`MAX_FLAT_POINTS`]
/// points, not all in a plane): the least over every triangle of three points that has all
/// points on one side of its plane or on it (exact `orient3d`) — the boundary's triangles.
fn boundary_distance(p: &[DVec3], x: DVec3) -> f64 {
    use polycd::predicates::{orient3d, Orientation};
    let n = p.len();
    let mut best = f64::INFINITY;
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                let (mut above, mut below) = (false, false);
                for (l, q) in p.iter().enumerate() {
                    if l == i || l == j || l == k {
                        continue;
                    }
                    match orient3d(p[i], p[j], p[k], *q) {
                        Orientation::Above => above = true,
                        Orientation::Below => below = true,
                        Orientation::On => {}
                    }
                }
                if !(above && below) {
                    best = best.min((closest_on_triangle(x, p[i], p[j], p[k]) - x).length());
                }
            }
        }
    }
    best
}

/// Bisection and golden-section steps (each stops early once its interval stops shrinking).
const LINE_STEPS: usize = 200;

/// The convex hull of points in a plane, counter-clockwise (Andrew's monotone chain;
/// collinear points dropped).
fn hull_2d(mut p: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    p.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    p.dedup();
    if p.len() < 3 {
        return p;
    }
    let turn = |o: (f64, f64), a: (f64, f64), b: (f64, f64)| (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0);
    let mut h: Vec<(f64, f64)> = Vec::with_capacity(2 * p.len());
    for pass in 0..2 {
        let start = h.len();
        let order: Vec<(f64, f64)> = if pass == 0 {
            p.clone()
        } else {
            p.iter().rev().copied().collect()
        };
        for q in order {
            while h.len() >= start + 2 && turn(h[h.len() - 2], h[h.len() - 1], q) <= 0.0 {
                h.pop();
            }
            h.push(q);
        }
        h.pop();
    }
    h
}

impl RoundedOracle {
    /// The oracle of A at `pa` and B at `pb`.
    pub fn new(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose) -> Result<RoundedOracle, String> {
        let mut points = oracle::minkowski_points(a, pa, b, pb);
        points.sort_by(|p, q| {
            p.to_array()
                .partial_cmp(&q.to_array())
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        points.dedup();
        let reach = points.iter().map(|p| p.length()).fold(0.0, f64::max);
        // Cores whose dimensions add up to at most 2 (two segments, a point and a polygon, …)
        // have a flat difference in exact arithmetic — a parallelogram, a segment, a polygon:
        // its rounded points may still hull into a sliver whose face normals are noise (two
        // nearly parallel segments: a 1e-6 × size depth for a true 0), so it is taken flat.
        let flat = a.dimension() + b.dimension() <= 2 && points.len() <= MAX_FLAT_POINTS;
        let mut sliver = false;
        let faces = match polycd::hull::convex_hull(&points) {
            Ok(_) if flat => None,
            Ok(h) => {
                let mut out = Vec::with_capacity(h.faces.len());
                for f in &h.faces {
                    let lp: Vec<DVec3> = f.iter().map(|&i| h.vertices[i as usize]).collect();
                    let c = lp.iter().fold(DVec3::ZERO, |s, p| s + *p) / lp.len() as f64;
                    let mut n = DVec3::ZERO;
                    for k in 0..lp.len() {
                        n += (lp[k] - c).cross(lp[(k + 1) % lp.len()] - c);
                    }
                    let n = n.normalize();
                    let off = lp.iter().map(|p| n.dot(*p)).fold(f64::NEG_INFINITY, f64::max);
                    out.push((n, off, lp));
                }
                Some(out)
            }
            Err(_) if points.len() <= MAX_FLAT_POINTS => {
                // The hull refused a solid difference (a sliver, such as two nearly coplanar
                // triangles): the flat measure below, plus an exact inside test.
                sliver = !flat;
                None
            }
            Err(e) => return Err(format!("hull of A − B ({} points): {e}", points.len())),
        };
        let mut plane_normals = Vec::new();
        if a.radius() + b.radius() == 0.0 && a.dimension() <= 2 && b.dimension() <= 2 {
            for (p, pose) in [(a, pa), (b, pb)] {
                let w: Vec<DVec3> = p.vertices().iter().map(|&v| pose.transform_point(v)).collect();
                if p.dimension() == 2 && w.len() >= 3 {
                    if let Some(n) = (w[1] - w[0]).cross(w[2] - w[0]).try_normalize() {
                        plane_normals.push(n);
                    }
                }
            }
        }
        Ok(RoundedOracle {
            faces,
            points,
            radius: a.radius() + b.radius(),
            reach,
            plane_normals,
            sliver,
        })
    }

    /// Two flat shapes without radius lying in one plane within `width` (the extent of
    /// `A − B` along a polygon's normal): the depth of the origin inside the projection of
    /// `A − B` on that plane (its 2-D hull, brute force; positive inside) — how far the
    /// shapes' relative interiors overlap in their common plane. `None` when no polygon's
    /// plane holds both shapes within `width`.
    pub fn coplanar_depth(&self, width: f64) -> Option<f64> {
        let mut best: Option<f64> = None;
        for &n in &self.plane_normals {
            let (lo, hi) = self
                .points
                .iter()
                .map(|p| n.dot(*p))
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| (l.min(x), h.max(x)));
            if !(hi - lo <= width) {
                continue;
            }
            let u = n.any_orthonormal_vector();
            let v = n.cross(u);
            let flat: Vec<(f64, f64)> = self.points.iter().map(|p| (u.dot(*p), v.dot(*p))).collect();
            let h = hull_2d(flat);
            if h.len() < 3 {
                continue;
            }
            let mut depth = f64::INFINITY;
            for k in 0..h.len() {
                let (p, q) = (h[k], h[(k + 1) % h.len()]);
                let (ex, ey) = (q.0 - p.0, q.1 - p.1);
                let len = ex.hypot(ey);
                // Counter-clockwise: the origin is inside on every edge's left.
                depth = depth.min((ex * -p.1 - ey * -p.0) / len);
            }
            best = Some(best.map_or(depth, |d: f64| d.max(depth)));
        }
        best
    }

    /// Whether `A − B` is solid (its hull has faces).
    pub fn solid(&self) -> bool {
        self.faces.is_some()
    }

    /// The signed distance of `x` from the cores' difference `A − B` (negative inside).
    fn core_sd(&self, x: DVec3) -> f64 {
        let Some(faces) = &self.faces else {
            // Flat: the least distance to any point, segment or triangle of its points (every
            // point of a convex hull in a plane lies in a triangle of three of them).
            let p = &self.points;
            if self.sliver && encloses(p, x) {
                // Inside a sliver: minus the distance to its boundary triangles (the triples
                // with every point on one side or on their plane, exact signs).
                return -boundary_distance(p, x);
            }
            let mut best = f64::INFINITY;
            for i in 0..p.len() {
                best = best.min((p[i] - x).length());
                for j in i + 1..p.len() {
                    best = best.min((closest_on_segment(x, p[i], p[j]).0 - x).length());
                    for k in j + 1..p.len() {
                        let q = closest_on_triangle(x, p[i], p[j], p[k]);
                        if q.is_finite() {
                            best = best.min((q - x).length());
                        }
                    }
                }
            }
            return best;
        };
        let top = faces
            .iter()
            .map(|(n, off, _)| n.dot(x) - off)
            .fold(f64::NEG_INFINITY, f64::max);
        // The face normals of a sliver hull (two nearly coplanar triangles: `A − B` a tilt ×
        // size thick) carry an error of ε × size / width, so near the boundary the sign of
        // `top` and the faces it would skip are noise (pair 5837 of seed 22: 8.9e-7 apart
        // for an exact 2.0e-14 at scale 1e2). Within `SIGN_BAND` × reach of it the side is
        // decided exactly (some tetrahedron of the points encloses x, `orient3d`), and the
        // magnitude either way is the distance to the boundary's triangles, which needs no
        // normal: from outside, the nearest point of the hull; from inside, the depth.
        let ambiguous = top.abs() <= SIGN_BAND * self.reach && self.points.len() <= MAX_FLAT_POINTS;
        let inside = if ambiguous {
            encloses(&self.points, x)
        } else {
            top < 0.0
        };
        if inside && !ambiguous {
            return top;
        }
        let mut best = f64::INFINITY;
        for (n, off, lp) in faces {
            if !ambiguous && n.dot(x) - off < 0.0 {
                continue;
            }
            for k in 1..lp.len() - 1 {
                best = best.min((closest_on_triangle(x, lp[0], lp[k], lp[k + 1]) - x).length());
            }
        }
        if inside {
            -best
        } else {
            best
        }
    }

    /// The rounded signed distance of the pair.
    pub fn signed_distance(&self) -> f64 {
        self.core_sd(DVec3::ZERO) - self.radius
    }

    /// The rounded gap after B moves by `t·s`.
    fn gap(&self, s: DVec3, t: f64) -> f64 {
        self.core_sd(s * t) - self.radius
    }

    /// The root of the gap between `lo` (gap ≤ 0) and `hi` (gap > 0), by bisection.
    fn root(&self, s: DVec3, mut lo: f64, mut hi: f64) -> f64 {
        for _ in 0..LINE_STEPS {
            let mid = 0.5 * (lo + hi);
            if mid == lo || mid == hi {
                break;
            }
            if self.gap(s, mid) <= 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The translation of B along the unit `s` nearest 0 at which the shapes touch (`None`:
    /// the line misses the rounded difference).
    pub fn directional(&self, s: DVec3) -> Option<f64> {
        let far = 2.0 * (self.reach + self.radius) + f64::MIN_POSITIVE;
        if self.gap(s, 0.0) <= 0.0 {
            let (up, down) = (self.root(s, 0.0, far), self.root(s, 0.0, -far));
            return Some(if -down <= up { down } else { up });
        }
        // Apart: the least gap along the line (a convex function), then the root between.
        let (mut lo, mut hi) = (-far, far);
        let g = 0.5 * (5f64.sqrt() - 1.0);
        let (mut x1, mut x2) = (hi - g * (hi - lo), lo + g * (hi - lo));
        let (mut f1, mut f2) = (self.gap(s, x1), self.gap(s, x2));
        for _ in 0..LINE_STEPS {
            if f1.min(f2) <= 0.0 || !(x1 < x2) {
                break;
            }
            if f1 < f2 {
                (hi, x2, f2) = (x2, x1, f1);
                x1 = hi - g * (hi - lo);
                f1 = self.gap(s, x1);
            } else {
                (lo, x1, f1) = (x1, x2, f2);
                x2 = lo + g * (hi - lo);
                f2 = self.gap(s, x2);
            }
        }
        let (tm, fm) = if f1 <= f2 { (x1, f1) } else { (x2, f2) };
        if fm > 0.0 {
            return None;
        }
        Some(self.root(s, tm, 0.0))
    }
}

/// The solid families, each normalised to bounding radius 1.
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
    run_families(pairs, seed, Families::Solid)
}

/// [`run`] on a set of families.
pub fn run_families(pairs: usize, seed: u64, set: Families) -> Result<String, String> {
    let r = differential_families(pairs, seed, set)?;
    if r.disagreements == 0 {
        Ok(r.text)
    } else {
        Err(r.text)
    }
}

/// The run behind [`run`], with the counts.
pub fn differential(pairs: usize, seed: u64) -> Result<Report, String> {
    differential_families(pairs, seed, Families::Solid)
}

/// [`differential`] on a set of families.
pub fn differential_families(pairs: usize, seed: u64, set: Families) -> Result<Report, String> {
    let flat = set == Families::Flat;
    let fams =
        if flat { flat_families() } else { families() }.map_err(|e| format!("building the shape families: {e}"))?;
    let mut shapes_at: Vec<Vec<ConvexPolyhedron>> = Vec::with_capacity(SCALES.len());
    for &s in &SCALES {
        let mut row = Vec::with_capacity(fams.len());
        for (name, p) in &fams {
            let shape = if flat { scaled_rounded(p, s) } else { scaled(p, s) };
            row.push(shape.map_err(|e| format!("scaling {name} to {s:e}: {e}"))?);
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
        let pair = place(&mut rng, a, b, fa, offset, scale, flat)?;
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
        let found = check_pair(a, b, &pair, flat, &mut answered, &mut report.checks)?;
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
        "differential: {pairs} pairs (seed {seed}, {} families), {} answers checked, {} disagreements",
        if flat { "flat and rounded" } else { "solid" },
        report.checks,
        report.disagreements
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
        *kinds.entry((alg.name(), q, kind_of(body))).or_default() += 1;
    }
    if !kinds.is_empty() {
        let _ = writeln!(t, "disagreements by kind:");
        for ((alg, q, kind), n) in &kinds {
            let _ = writeln!(t, "  {n:>6}  {alg} {q}: {kind}");
        }
    }
    // One full example of each kind (the first), for the pair-by-pair reading of a class.
    let mut seen: std::collections::BTreeSet<(&str, &str, String)> = std::collections::BTreeSet::new();
    let mut examples = Vec::new();
    for (_, alg, q, msg) in &report.records {
        let body = msg.split_once("]: ").map(|x| x.1).unwrap_or(msg);
        if seen.insert((alg.name(), q, kind_of(body))) {
            examples.push(format!("{}: {msg}", alg.name()));
        }
    }
    if !examples.is_empty() {
        let _ = writeln!(t, "first disagreement of each kind:");
        for e in &examples {
            let _ = writeln!(t, "  {e}");
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

/// The kind of a disagreement: its message (after the pair's label) from the check's name up
/// to the first number.
fn kind_of(body: &str) -> String {
    // A directional message names its direction first: the kind is what follows it.
    let stripped;
    let body = match body
        .strip_prefix("directional: along [")
        .and_then(|r| r.split_once("]: "))
    {
        Some((_, rest)) => {
            stripped = format!("directional: {rest}");
            stripped.as_str()
        }
        None => body,
    };
    let kind: String = body.splitn(4, ": ").skip(1).take(2).collect::<Vec<_>>().join(": ");
    kind.split(|c: char| c.is_ascii_digit() || c == '(')
        .next()
        .unwrap_or("")
        .trim()
        .to_string()
}

/// Random poses for a pair at the offset class `offset`.
fn place(
    rng: &mut ChaCha8Rng,
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
    fa: usize,
    offset: usize,
    scale: f64,
    flat: bool,
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
    let t = if flat {
        RoundedOracle::new(a, &pa, b, &centred)?.directional(u)
    } else {
        oracle::directional(a, &pa, b, &centred, u).map_err(|e| format!("oracle: {e}"))?
    }
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
    flat: bool,
    answered: &mut [[usize; 3]; Algorithm::ALL.len()],
    checks: &mut usize,
) -> Result<Vec<(usize, String)>, String> {
    let (pa, pb) = (&p.pa, &p.pb);
    let rounded = if flat {
        Some(RoundedOracle::new(a, pa, b, pb)?)
    } else {
        None
    };
    let sd = match &rounded {
        Some(o) => o.signed_distance(),
        None => {
            oracle::signed_distance(a, pa, b, pb)
                .map_err(|e| format!("oracle: {e}"))?
                .signed_distance
        }
    };
    let ctol = contact_tolerance(a, pa, b, pb);
    let judge = Agreement::new(a, pa, b, pb, sd);

    let mut rng = ChaCha8Rng::seed_from_u64(sd.to_bits());
    let mut dirs = vec![(pb.translation - pa.translation).normalize_or(DVec3::X)];
    dirs.push(-dirs[0]);
    dirs.push(shapes::unit_vector(&mut rng));
    let mut expected_t = Vec::with_capacity(dirs.len());
    for &s in &dirs {
        expected_t.push(match &rounded {
            // No radius and a solid difference: the polytope oracle's exact line crossing.
            Some(o) if !(o.radius == 0.0 && o.solid()) => o.directional(s),
            _ => oracle::directional(a, pa, b, pb, s).map_err(|e| format!("oracle: {e}"))?,
        });
    }
    // A coplanar overlap of flat shapes (see `COPLANAR_WIDTH`): `Overlapping` at depth 0.
    let coplanar = rounded
        .as_ref()
        .and_then(|o| o.coplanar_depth(COPLANAR_WIDTH * ctol))
        .is_some_and(|d| d > COPLANAR_DEPTH * ctol);
    let mut out = Vec::new();
    for (ai, &alg) in Algorithm::ALL.iter().enumerate() {
        let mut cache = PairCache::default();
        match query::intersect(a, pa, b, pb, alg, &mut cache) {
            Err(PolycdError::Unsupported { .. } | PolycdError::UnsupportedShape { .. }) => {}
            Err(e) => out.push((ai, format!("intersect: error {e}"))),
            Ok(r) => {
                answered[ai][0] += 1;
                *checks += 1;
                let documented = coplanar && matches!(r, Intersection::Overlapping { .. });
                if sd.abs() <= INNER_BAND * ctol && !matches!(r, Intersection::Touching { .. }) && !documented {
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
            Err(PolycdError::Unsupported { .. } | PolycdError::UnsupportedShape { .. }) => {}
            Err(e) => out.push((ai, format!("distance: error {e}"))),
            Ok(r) => {
                answered[ai][1] += 1;
                *checks += 1;
                let documented =
                    coplanar && r.status(ctol) == Status::Overlapping && r.signed_distance().is_some_and(|d| d == 0.0);
                if sd.abs() <= INNER_BAND * ctol && r.status(ctol) != Status::Touching && !documented {
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
                Err(PolycdError::Unsupported { .. } | PolycdError::UnsupportedShape { .. }) => {}
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
