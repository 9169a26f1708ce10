//! Ground truth for the FAST scenarios (`ccd-bunny`, `ccd-board`, `dynamics`): every answer of
//! `ccd::mesh::time_of_contact` is certified, not compared with another approximate CCD.
//!
//! - **A contact is real**: at the reported time, the surfaces' distance by brute force over
//!   triangle pairs (own triangle–triangle distance below, pairs culled by a hash grid of
//!   boxes only) is within the CCD threshold (plus the decomposition's margin).
//! - **It is not late, and no contact is missed**: a reference conservative advancement with
//!   one global motion bound (every point of a body moves at most `|v| + |ω|·R` per unit time,
//!   `R` its largest distance from the motion's centre) certifies that the solids do not touch
//!   on `[0, t)` (or `[0, 1]` when no contact was reported): at each time it asks a lower bound
//!   of the distance (the piece hulls' distance, `mesh::bvtt_distance` with GJK, a fresh
//!   traversal from the roots: not the advancement's front, its V-Clip nor its per-node
//!   bounds) and steps by that bound over the speed bound; where the hulls touch (within the
//!   decomposition's margin) the brute-force surface distance takes over. It either reaches
//!   the end (clear; a reported contact to within [`LATE_SLACK`], where a contact is the
//!   answer's own), finds the surfaces crossing (a contact earlier than the answer: late or
//!   missed), or gives up after [`REFERENCE_STEPS`] steps (undecided: its steps shrink with
//!   the distance, as in a grazing pass; counted, never folded into either, and explained
//!   beside the table by [`GaveUp`]).

use polycd::ccd::{contact_features, ContactElement, RigidMotion};
use polycd::mesh::{bvtt_distance, MeshCache, MeshDistance, Solid, TriMesh};
use polycd::tolerance::{CCD_PIECE_REL, CONTACT_FEATURE_SNAP_REL};
use polycd::{Algorithm, DVec3, Pose};
use std::collections::{BTreeMap, HashMap};

/// The most steps the reference advancement takes before it calls a motion undecided.
pub(crate) const REFERENCE_STEPS: usize = 3_000;

/// A contact the reference finds less than this before the answer (in `t ∈ [0, 1]`) is the
/// answer's own contact to rounding (the poses at two times 1e-9 apart differ by ~1e-9 of the
/// motion; the answer stops within the CCD threshold, 1e-4 of the scale), not a late answer.
pub(crate) const LATE_SLACK: f64 = 1e-9;

/// The verdict on one CCD answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Verdict {
    /// Certified: contact real and not late, or no contact and none missed.
    Right,
    /// A contact was reported but the brute-force distance there exceeds the threshold.
    Far(f64),
    /// The reference found the solids touching at this earlier time.
    Late(f64),
    /// No contact reported; the reference found the solids touching at this time.
    Missed(f64),
    /// The reference gave up after [`REFERENCE_STEPS`] steps (its steps shrink with the
    /// distance): why, in figures.
    Undecided(GaveUp),
}

/// Where and why the reference advancement gave up (reported beside the table, so an
/// undecided trial is explained, not only counted).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct GaveUp {
    /// The time reached (no contact certified on `[0, reached)`).
    pub(crate) reached: f64,
    /// The time it had to reach (the answer, or 1).
    pub(crate) end: f64,
    /// The smallest lower bound of the distance met, relative to the CCD threshold.
    pub(crate) min_lower: f64,
    /// Steps taken where the piece hulls touched (the brute-force surface distance, capped at
    /// the threshold plus the margin, set the step).
    pub(crate) brute_steps: usize,
    /// The speed bound used (`|v| + |ω|·R` summed over both bodies, per unit `t`) over the
    /// largest rate at which the closest points' distance actually fell between two steps:
    /// how loose the global bound was where it mattered.
    pub(crate) looseness: f64,
}

/// The largest distance of a vertex of `m` from its body-frame point `c`.
pub(crate) fn radius(m: &TriMesh, c: DVec3) -> f64 {
    m.vertices().iter().map(|p| (*p - c).length()).fold(0.0, f64::max)
}

/// Largest speed of any point of a body of radius `r` (about the motion's centre) under `m`.
fn speed(m: &RigidMotion, r: f64) -> f64 {
    m.velocity().length() + m.angular_velocity().length() * r
}

/// Checks one answer (`t`, or `None` for no contact in `[0, 1]`) of `a` under `ma` against
/// `b` under `mb`, found with the CCD threshold `thr`. `ra`, `rb`: [`radius`] of each about
/// its motion's centre.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check(
    a: &TriMesh,
    ma: &RigidMotion,
    ra: f64,
    b: &TriMesh,
    mb: &RigidMotion,
    rb: f64,
    answer: Option<f64>,
    thr: f64,
    cache: &mut MeshCache,
) -> Verdict {
    let margin = 2.0 * CCD_PIECE_REL * (a.scale() + b.scale());
    if let Some(t) = answer {
        let d = brute_distance(a, &ma.pose_at(t), b, &mb.pose_at(t), thr + margin);
        if d > thr + margin {
            return Verdict::Far(d);
        }
    }
    let end = answer.unwrap_or(1.0);
    let v = speed(ma, ra) + speed(mb, rb);
    let mut t = 0.0f64;
    let (mut min_lower, mut brute_steps, mut fastest) = (f64::INFINITY, 0usize, 0.0f64);
    let mut last: Option<(f64, f64)> = None;
    for _ in 0..REFERENCE_STEPS {
        // Clear up to within LATE_SLACK of the answer: a contact there is the answer's own
        // (the rule `Late` uses below). Without the slack the reference never gets there when
        // the answer is the exact contact (distance ≈ 0 at `t`, as a tight last step leaves
        // it): its steps shrink with the distance left, a Zeno approach to `t` (on the quick
        // `ccd-bunny`, 5 of 12 trials spent their 3 000 steps within 1e-13 thresholds of
        // contact at `t` itself).
        if answer.is_some() && t >= end - LATE_SLACK {
            return Verdict::Right;
        }
        let (pa, pb) = (ma.pose_at(t), mb.pose_at(t));
        let mut lower = match bvtt_distance(a, &pa, b, &pb, 0.0, Algorithm::Gjk, cache) {
            Ok(MeshDistance::Separated { distance, .. }) => distance - margin,
            _ => 0.0,
        };
        let reach = thr + margin;
        if lower < reach {
            // The piece hulls are within reach (or touch, or overlap): the surfaces' own
            // distance decides (brute force, exact for distances up to `reach`; beyond it,
            // `reach` is a lower bound, and so is the hulls' `lower`). Taken below `reach`
            // rather than only at `lower <= 0`: where the hulls' distance tends to their
            // margin while the surfaces stay apart, a bound tending to 0 made the reference
            // approach a time short of the answer geometrically and give up (the 1:16
            // bunny's query 11 in the 12-motion run of 2026-11-28).
            lower = lower.max(brute_distance(a, &pa, b, &pb, reach).min(reach));
            brute_steps += 1;
        }
        min_lower = min_lower.min(lower);
        if let Some((t0, d0)) = last {
            if t > t0 {
                fastest = fastest.max((d0 - lower) / (t - t0));
            }
        }
        last = Some((t, lower));
        if lower <= 0.0 {
            // The surfaces cross at t < end: a contact before the answer.
            return match answer {
                Some(_) if t < end - LATE_SLACK => Verdict::Late(t),
                Some(_) => Verdict::Right,
                None => Verdict::Missed(t),
            };
        }
        if t >= end || v == 0.0 {
            return Verdict::Right;
        }
        t = (t + lower / v).min(end);
    }
    Verdict::Undecided(GaveUp {
        reached: t,
        end,
        min_lower: min_lower / thr,
        brute_steps,
        looseness: if fastest > 0.0 { v / fastest } else { f64::INFINITY },
    })
}

fn closest_on_segment(p: DVec3, a: DVec3, b: DVec3) -> DVec3 {
    let ab = b - a;
    let l = ab.length_squared();
    if l == 0.0 {
        return a;
    }
    a + ab * ((p - a).dot(ab) / l).clamp(0.0, 1.0)
}

/// Distance from `p` to the triangle `t`.
fn point_triangle(p: DVec3, t: &[DVec3; 3]) -> f64 {
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let nl = n.length_squared();
    if nl > 0.0 {
        // Inside the prism over the triangle: the plane distance.
        let inside = (0..3).all(|k| (t[(k + 1) % 3] - t[k]).cross(p - t[k]).dot(n) >= 0.0);
        if inside {
            return (p - t[0]).dot(n).abs() / nl.sqrt();
        }
    }
    (0..3)
        .map(|k| (p - closest_on_segment(p, t[k], t[(k + 1) % 3])).length())
        .fold(f64::INFINITY, f64::min)
}

/// Closest points of segments `p1 q1` and `p2 q2` (clamped parameters, then re-projected).
fn segment_points(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> (DVec3, DVec3) {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (d1.length_squared(), d2.length_squared(), d2.dot(r));
    let (c, b) = (d1.dot(r), d1.dot(d2));
    let denom = a * e - b * b;
    let mut s = if denom > 0.0 && a > 0.0 {
        ((b * f - c * e) / denom).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut t = if e > 0.0 { (b * s + f) / e } else { 0.0 };
    if t < 0.0 {
        t = 0.0;
        s = if a > 0.0 { (-c / a).clamp(0.0, 1.0) } else { 0.0 };
    } else if t > 1.0 {
        t = 1.0;
        s = if a > 0.0 { ((b - c) / a).clamp(0.0, 1.0) } else { 0.0 };
    }
    (p1 + d1 * s, p2 + d2 * t)
}

/// Distance between segments `p1 q1` and `p2 q2`.
fn segment_segment(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> f64 {
    let (x, y) = segment_points(p1, q1, p2, q2);
    (x - y).length()
}

/// The point of triangle `t` closest to `p`, by candidates rather than the library's
/// Voronoi-region walk (so the oracle does not share its method): the projection onto the
/// plane when it falls inside the triangle (three edge-side tests against the normal),
/// otherwise the nearest of the three edges' closest points — the closest point of a triangle
/// is interior only when it is the plane's foot, else it lies on the boundary. A degenerate
/// (zero-area) triangle has no normal and is its edges.
fn closest_on_triangle(p: DVec3, t: &[DVec3; 3]) -> DVec3 {
    let [a, b, c] = *t;
    let n = (b - a).cross(c - a);
    let nn = n.length_squared();
    if nn > 0.0 {
        let q = p - n * ((p - a).dot(n) / nn);
        if [(a, b), (b, c), (c, a)]
            .iter()
            .all(|&(u, v)| (v - u).cross(q - u).dot(n) >= 0.0)
        {
            return q;
        }
    }
    let mut best = a;
    let mut best_d = f64::INFINITY;
    for (u, v) in [(a, b), (b, c), (c, a)] {
        let e = v - u;
        let ee = e.length_squared();
        let w = if ee > 0.0 {
            u + e * ((p - u).dot(e) / ee).clamp(0.0, 1.0)
        } else {
            u
        };
        let d = (p - w).length_squared();
        if d < best_d {
            best_d = d;
            best = w;
        }
    }
    best
}

/// Does segment `p q` cross triangle `t` (orientation signs, so exact for the generic case)?
fn segment_crosses(p: DVec3, q: DVec3, t: &[DVec3; 3]) -> bool {
    let vol = |a: DVec3, b: DVec3, c: DVec3, d: DVec3| (b - a).cross(c - a).dot(d - a);
    let (sp, sq) = (vol(t[0], t[1], t[2], p), vol(t[0], t[1], t[2], q));
    if sp * sq > 0.0 || (sp == 0.0 && sq == 0.0) {
        return false;
    }
    let s: Vec<f64> = (0..3).map(|k| vol(p, q, t[k], t[(k + 1) % 3])).collect();
    (s[0] >= 0.0 && s[1] >= 0.0 && s[2] >= 0.0) || (s[0] <= 0.0 && s[1] <= 0.0 && s[2] <= 0.0)
}

/// Distance between two triangles: 0 when they cross, else the least of the 6 vertex–triangle
/// and 9 edge–edge distances (where the minimum of two disjoint triangles is attained).
pub(crate) fn triangle_triangle(a: &[DVec3; 3], b: &[DVec3; 3]) -> f64 {
    for k in 0..3 {
        if segment_crosses(a[k], a[(k + 1) % 3], b) || segment_crosses(b[k], b[(k + 1) % 3], a) {
            return 0.0;
        }
    }
    let mut d = f64::INFINITY;
    for k in 0..3 {
        d = d.min(point_triangle(a[k], b)).min(point_triangle(b[k], a));
        for j in 0..3 {
            d = d.min(segment_segment(a[k], a[(k + 1) % 3], b[j], b[(j + 1) % 3]));
        }
    }
    d
}

fn world(m: &TriMesh, pose: &Pose) -> Vec<[DVec3; 3]> {
    let v: Vec<DVec3> = m.vertices().iter().map(|&p| pose.transform_point(p)).collect();
    m.triangles()
        .iter()
        .map(|t| [v[t[0] as usize], v[t[1] as usize], v[t[2] as usize]])
        .collect()
}

fn bounds(t: &[DVec3; 3]) -> (DVec3, DVec3) {
    (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]))
}

/// The least triangle–triangle distance between the surfaces of `a` and `b` at the poses,
/// over the pairs whose boxes are within `reach` (infinity when no pair is): exact up to
/// rounding whenever it is at most `reach`.
pub(crate) fn brute_distance(a: &TriMesh, pa: &Pose, b: &TriMesh, pb: &Pose, reach: f64) -> f64 {
    let (ta, tb) = (world(a, pa), world(b, pb));
    let mut best = f64::INFINITY;
    near_pairs(&ta, &tb, reach, |i, j| {
        best = best.min(triangle_triangle(&ta[i], &tb[j]));
    });
    best
}

/// Calls `f(i, j)` once for every pair of triangles `ta[i]`, `tb[j]` whose boxes are within
/// `reach` of each other (a hash grid over B's boxes; the cell is B's largest box edge, so a
/// box touches at most 8 cells).
fn near_pairs(ta: &[[DVec3; 3]], tb: &[[DVec3; 3]], reach: f64, mut f: impl FnMut(usize, usize)) {
    let cell = tb
        .iter()
        .map(|t| {
            let (lo, hi) = bounds(t);
            (hi - lo).max_element()
        })
        .fold(reach, f64::max)
        .max(1e-300);
    let key = |p: DVec3| {
        let c = (p / cell).floor();
        (c.x as i64, c.y as i64, c.z as i64)
    };
    let mut grid: HashMap<(i64, i64, i64), Vec<u32>> = HashMap::new();
    for (i, t) in tb.iter().enumerate() {
        let (lo, hi) = bounds(t);
        let (l, h) = (key(lo), key(hi));
        for x in l.0..=h.0 {
            for y in l.1..=h.1 {
                for z in l.2..=h.2 {
                    grid.entry((x, y, z)).or_default().push(i as u32);
                }
            }
        }
    }
    let mut seen = vec![u32::MAX; tb.len()];
    for (i, t) in ta.iter().enumerate() {
        let (lo, hi) = bounds(t);
        let (lo, hi) = (lo - DVec3::splat(reach), hi + DVec3::splat(reach));
        let (l, h) = (key(lo), key(hi));
        for x in l.0..=h.0 {
            for y in l.1..=h.1 {
                for z in l.2..=h.2 {
                    let Some(cands) = grid.get(&(x, y, z)) else { continue };
                    for &j in cands {
                        if seen[j as usize] == i as u32 {
                            continue;
                        }
                        seen[j as usize] = i as u32;
                        let (blo, bhi) = bounds(&tb[j as usize]);
                        if blo.cmpgt(hi).any() || bhi.cmplt(lo).any() {
                            continue;
                        }
                        f(i, j as usize);
                    }
                }
            }
        }
    }
}

/// A contact set: every feature pair within the threshold, by name, with its distance.
pub(crate) type ContactSet = BTreeMap<(ContactElement, ContactElement), f64>;

/// The outcome of comparing the library's contact features with the brute-force set.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Contacts {
    /// The same names, the same distances (to 1e-9 of the scale), `n` pairs.
    Equal(usize),
    /// Not compared: a pair's distance within rounding of the threshold, or a closest point
    /// (a crossing's height or its distance from an edge) within a factor 2 of the naming
    /// snap distance (either answer is right there).
    Borderline,
    /// The sets differ (what differs, for the report).
    Differ(String),
}

/// The element of triangle `tri` (vertex ids `ids`, index `f`) carrying its point `x`, by the
/// library's definition (a vertex within `snap`, else an edge within `snap`, else the face);
/// `None` when a distance to a vertex or an edge is within a factor 2 of `snap` (borderline).
fn name_on_triangle(x: DVec3, tri: &[DVec3; 3], ids: [u32; 3], f: u32, snap: f64) -> Option<ContactElement> {
    let near = |d: f64| d <= 2.0 * snap && d >= 0.5 * snap;
    for k in 0..3 {
        let d = (x - tri[k]).length();
        if near(d) {
            return None;
        }
        if d <= snap {
            return Some(ContactElement::Vertex(ids[k]));
        }
    }
    for k in 0..3 {
        let (p, q) = (tri[k], tri[(k + 1) % 3]);
        let (_, y) = segment_points(x, x, p, q);
        let d = (x - y).length();
        if near(d) {
            return None;
        }
        if d <= snap {
            let (i, j) = (ids[k], ids[(k + 1) % 3]);
            return Some(ContactElement::Edge(i.min(j), i.max(j)));
        }
    }
    Some(ContactElement::Face(f))
}

/// The element of segment `p q` (vertex ids `i`, `j`) carrying its point `x`; `None` when
/// borderline (as [`name_on_triangle`]).
fn name_on_segment(x: DVec3, p: DVec3, q: DVec3, i: u32, j: u32, snap: f64) -> Option<ContactElement> {
    let near = |d: f64| d <= 2.0 * snap && d >= 0.5 * snap;
    let (dp, dq) = ((x - p).length(), (x - q).length());
    if near(dp) || near(dq) {
        return None;
    }
    Some(if dp <= snap {
        ContactElement::Vertex(i)
    } else if dq <= snap {
        ContactElement::Vertex(j)
    } else {
        ContactElement::Edge(i.min(j), i.max(j))
    })
}

fn edge(i: u32, j: u32) -> ContactElement {
    ContactElement::Edge(i.min(j), i.max(j))
}

/// Whether segment `p q` crosses triangle `t` by the library's definition of an edge–face
/// contact: its ends on either side of the triangle's plane by more than `snap`, the crossing
/// point inside the triangle by more than `snap` from every edge. `Err(Borderline)` when a
/// height or an edge distance is within a factor 2 of `snap`.
fn crosses(p: DVec3, q: DVec3, t: &[DVec3; 3], snap: f64) -> Result<bool, Contacts> {
    let near = |d: f64| d.abs() <= 2.0 * snap && d.abs() >= 0.5 * snap;
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let nl = n.length();
    if nl == 0.0 {
        return Ok(false);
    }
    let n = n / nl;
    let (hp, hq) = (n.dot(p - t[0]), n.dot(q - t[0]));
    if near(hp) || near(hq) {
        return Err(Contacts::Borderline);
    }
    if !(hp > snap && hq < -snap || hp < -snap && hq > snap) {
        return Ok(false);
    }
    let x = p + (q - p) * (hp / (hp - hq));
    let mut inside = true;
    for k in 0..3 {
        let (a, b) = (t[k], t[(k + 1) % 3]);
        // Signed distance from the edge's line, positive towards the triangle.
        let d = n.cross(b - a).normalize_or_zero().dot(x - a);
        if near(d) {
            return Err(Contacts::Borderline);
        }
        inside &= d > snap;
    }
    Ok(inside)
}

/// The contact set of `a` at `pa` and `b` at `pb` by brute force: over every triangle pair
/// whose boxes are within `thr`, the 6 vertex–triangle and 9 edge–edge distances by this
/// module's own closest-point routines (not the library's), each pair within `thr` named by
/// the elements carrying its closest points (snap distance `snap`, the library's definition),
/// the smallest distance per name; where the solids interpenetrate, each edge crossing a
/// triangle (edge–face, distance 0, [`crosses`]). `Err` with the outcome when not comparable.
pub(crate) fn contact_set(
    a: &TriMesh,
    pa: &Pose,
    b: &TriMesh,
    pb: &Pose,
    thr: f64,
    snap: f64,
) -> Result<ContactSet, Contacts> {
    let (ta, tb) = (world(a, pa), world(b, pb));
    let (ia, ib) = (a.triangles(), b.triangles());
    let tiny = 1e-9 * thr + 1e-12 * (a.scale() + b.scale());
    let mut set = ContactSet::new();
    let mut out: Result<(), Contacts> = Ok(());
    near_pairs(&ta, &tb, thr, |i, j| {
        if out.is_err() {
            return;
        }
        let (x, y) = (&ta[i], &tb[j]);
        let mut add = |ka: Option<ContactElement>, kb: Option<ContactElement>, d: f64| -> Result<(), Contacts> {
            if (d - thr).abs() <= tiny {
                return Err(Contacts::Borderline);
            }
            if d <= thr {
                let (Some(ka), Some(kb)) = (ka, kb) else {
                    return Err(Contacts::Borderline);
                };
                let e = set.entry((ka, kb)).or_insert(d);
                *e = e.min(d);
            }
            Ok(())
        };
        out = triangle_pair(x, y, (ia[i], i as u32), (ib[j], j as u32), snap, &mut add);
    });
    out.map(|()| set)
}

/// The elementary pairs of triangle `x` (vertex ids `ta_ids`, index `ti`) of A and `y`
/// (`tb_ids`, `tj`) of B, each passed to `add` (names, distance); the first `Err` stops.
fn triangle_pair(
    x: &[DVec3; 3],
    y: &[DVec3; 3],
    (ta_ids, ti): ([u32; 3], u32),
    (tb_ids, tj): ([u32; 3], u32),
    snap: f64,
    add: &mut impl FnMut(Option<ContactElement>, Option<ContactElement>, f64) -> Result<(), Contacts>,
) -> Result<(), Contacts> {
    for k in 0..3 {
        let c = closest_on_triangle(x[k], y);
        add(
            Some(ContactElement::Vertex(ta_ids[k])),
            name_on_triangle(c, y, tb_ids, tj, snap),
            (c - x[k]).length(),
        )?;
        let c = closest_on_triangle(y[k], x);
        add(
            name_on_triangle(c, x, ta_ids, ti, snap),
            Some(ContactElement::Vertex(tb_ids[k])),
            (c - y[k]).length(),
        )?;
    }
    for k in 0..3 {
        let (p, q, ip, iq) = (x[k], x[(k + 1) % 3], ta_ids[k], ta_ids[(k + 1) % 3]);
        for l in 0..3 {
            let (r, s, jr, js) = (y[l], y[(l + 1) % 3], tb_ids[l], tb_ids[(l + 1) % 3]);
            let (u, v) = segment_points(p, q, r, s);
            add(
                name_on_segment(u, p, q, ip, iq, snap),
                name_on_segment(v, r, s, jr, js, snap),
                (u - v).length(),
            )?;
        }
        // A's edge through B's triangle (the solids interpenetrate): edge–face at 0.
        if crosses(p, q, y, snap)? {
            add(Some(edge(ip, iq)), Some(ContactElement::Face(tj)), 0.0)?;
        }
        let (r, s, jr, js) = (y[k], y[(k + 1) % 3], tb_ids[k], tb_ids[(k + 1) % 3]);
        if crosses(r, s, x, snap)? {
            add(Some(ContactElement::Face(ti)), Some(edge(jr, js)), 0.0)?;
        }
    }
    Ok(())
}

/// Compares `ccd::contact_features` of the two meshes at the poses (threshold `thr`) with
/// [`contact_set`]: the same names, the distances to 1e-9 of the scale, sorted nearest first.
pub(crate) fn compare_contacts(a: &TriMesh, pa: &Pose, b: &TriMesh, pb: &Pose, thr: f64) -> Contacts {
    let scale = a.scale() + b.scale();
    let snap = CONTACT_FEATURE_SNAP_REL * scale;
    let want = match contact_set(a, pa, b, pb, thr, snap) {
        Ok(w) => w,
        Err(c) => return c,
    };
    let got = match contact_features(Solid::Mesh(a), pa, Solid::Mesh(b), pb, thr) {
        Ok(g) => g,
        Err(e) => return Contacts::Differ(format!("contact_features failed: {e}")),
    };
    let got_set: ContactSet = got.iter().map(|c| ((c.a.element, c.b.element), c.distance)).collect();
    if got_set.len() != got.len() {
        return Contacts::Differ(format!("{} pairs, {} distinct names", got.len(), got_set.len()));
    }
    if got_set.keys().ne(want.keys()) {
        let only_got: Vec<_> = got_set.iter().filter(|(k, _)| !want.contains_key(k)).take(3).collect();
        let only_want: Vec<_> = want.iter().filter(|(k, _)| !got_set.contains_key(k)).take(3).collect();
        return Contacts::Differ(format!(
            "{} vs {} pairs (threshold {thr:e}, snap {snap:e}); only the library's: {only_got:?}; only brute force's: {only_want:?}",
            got_set.len(),
            want.len()
        ));
    }
    for (k, d) in &want {
        if (got_set[k] - d).abs() > 1e-9 * scale {
            return Contacts::Differ(format!("{k:?}: distance {} vs brute force {d}", got_set[k]));
        }
    }
    if got.windows(2).any(|w| w[0].distance > w[1].distance) {
        return Contacts::Differ("not sorted nearest first".into());
    }
    Contacts::Equal(want.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangle_distances_match_literals() {
        let a = [DVec3::ZERO, DVec3::X, DVec3::Y];
        // Parallel, 0.5 above: face–face.
        let b = [a[0] + DVec3::Z * 0.5, a[1] + DVec3::Z * 0.5, a[2] + DVec3::Z * 0.5];
        assert!((triangle_triangle(&a, &b) - 0.5).abs() < 1e-15);
        // Crossing edge: 0.
        let c = [
            DVec3::new(0.2, 0.2, -1.0),
            DVec3::new(0.2, 0.2, 1.0),
            DVec3::new(5.0, 5.0, 0.0),
        ];
        assert_eq!(triangle_triangle(&a, &c), 0.0);
        // Skew edges 2 apart: the edge x = 0 (z = 0) and a segment along X at (−2, 0.5)…
        let d = [
            DVec3::new(-2.0, 0.5, -1.0),
            DVec3::new(-2.0, 0.5, 1.0),
            DVec3::new(-3.0, 0.5, 0.0),
        ];
        assert!((triangle_triangle(&a, &d) - 2.0).abs() < 1e-15);
    }

    /// The closest point on a triangle against dense sampling of the triangle, from points in
    /// every Voronoi region.
    #[test]
    fn closest_on_triangle_matches_sampling() {
        let t = [
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(2.0, 0.0, 0.0),
            DVec3::new(0.5, 1.5, 0.0),
        ];
        for p in [
            DVec3::new(-1.0, -1.0, 0.3),
            DVec3::new(3.0, -0.5, -0.2),
            DVec3::new(0.5, 3.0, 1.0),
            DVec3::new(1.0, -1.0, 0.5),
            DVec3::new(2.0, 1.5, 0.1),
            DVec3::new(-0.5, 1.0, -0.4),
            DVec3::new(0.8, 0.5, 0.7),
        ] {
            let c = closest_on_triangle(p, &t);
            let mut best = f64::INFINITY;
            let n = 400;
            for i in 0..=n {
                for j in 0..=n - i {
                    let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
                    let q = t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * v;
                    best = best.min((p - q).length());
                }
            }
            assert!((p - c).length() <= best + 1e-12, "{p:?}");
            assert!((p - c).length() >= best - 1e-2, "{p:?}");
        }
    }

    /// The oracle's candidate method against the library's Voronoi-region walk
    /// (`polycd::geometry::closest_on_triangle`) on random and adversarial triangles (thin
    /// needles, far from the origin, huge and tiny): the two distances agree to 1e-12 of the
    /// coordinates' magnitude.
    #[test]
    fn closest_on_triangle_agrees_with_the_library() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
        for k in 0..20_000 {
            let scale: f64 = [1e-6, 1.0, 1e6][k % 3];
            let centre = DVec3::splat([0.0, 1e3, -1e5][(k / 3) % 3] * scale);
            let mut r = || {
                DVec3::new(
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                )
            };
            let (a, b, mut c) = (r(), r(), r());
            if k % 5 == 0 {
                // a needle: c close to the segment ab
                c = a + (b - a) * 0.37 + r() * 1e-7;
            }
            let p = r() * 2.0;
            let t = [a * scale + centre, b * scale + centre, c * scale + centre];
            let q = p * scale + centre;
            let ours = (q - closest_on_triangle(q, &t)).length();
            let lib = (q - polycd::geometry::closest_on_triangle(q, t[0], t[1], t[2])).length();
            let tol = 1e-12 * (scale + centre.length());
            assert!((ours - lib).abs() <= tol, "k {k}: {ours} vs {lib}");
        }
    }

    /// Two cubes (as meshes) face to face 0.25 apart: the brute-force set has the four corner
    /// pairs as vertex–vertex pairs (and the library's set equals it); nothing within 0.2.
    #[test]
    fn cube_contact_set() {
        let (v, f) = super::super::fast_models::board(DVec3::splat(0.5));
        let m = TriMesh::new(&v, &f).unwrap();
        let pb = Pose::from_translation(DVec3::new(1.25, 0.0, 0.0));
        let snap = CONTACT_FEATURE_SNAP_REL * 2.0 * m.scale();
        let set = contact_set(&m, &Pose::IDENTITY, &m, &pb, 0.3, snap).unwrap();
        let vv = set
            .keys()
            .filter(|(x, y)| matches!((x, y), (ContactElement::Vertex(_), ContactElement::Vertex(_))))
            .count();
        assert_eq!(vv, 4);
        assert!(set.values().all(|&d| (d - 0.25).abs() < 1e-12));
        assert!(matches!(
            compare_contacts(&m, &Pose::IDENTITY, &m, &pb, 0.3),
            Contacts::Equal(n) if n == set.len()
        ));
        assert!(contact_set(&m, &Pose::IDENTITY, &m, &pb, 0.2, snap).unwrap().is_empty());
        // Interpenetrating cubes (B turned, so edges cross faces): edge–face pairs at 0, and
        // the library's set equals the brute-force set.
        let pc = Pose::new(
            polycd::DQuat::from_rotation_z(0.3) * polycd::DQuat::from_rotation_x(0.2),
            DVec3::new(0.9, 0.1, 0.05),
        );
        let set = contact_set(&m, &Pose::IDENTITY, &m, &pc, 0.01, snap).unwrap();
        assert!(set
            .iter()
            .any(|((x, y), &d)| d == 0.0 && matches!((x, y), (ContactElement::Edge(..), ContactElement::Face(_)))));
        assert!(matches!(compare_contacts(&m, &Pose::IDENTITY, &m, &pc, 0.01), Contacts::Equal(n) if n == set.len()));
    }
}
