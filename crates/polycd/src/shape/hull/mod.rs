//! Convex hull of a point cloud: Quickhull with exact predicates, then coplanar facets merged
//! into polygonal faces.
//!
//! Outline (Barber, Dobkin, Huhdanpaa 1996):
//! 1. Reject non-finite or absurd coordinates; remove exact duplicates.
//! 2. Pick an initial tetrahedron of extreme points; reject collinear and flat clouds.
//! 3. Each remaining point goes to the outside set of one facet it lies strictly above.
//! 4. Repeatedly take a facet with a non-empty outside set and its farthest point `p`, find
//!    every facet `p` sees (strictly above, decided by the exact `orient3d`), replace them by
//!    a cone from `p` to the horizon, and hand their outside points to the new facets (a point
//!    above no new facet is inside the new hull and is dropped for good).
//! 5. Group adjacent facets into faces: a facet joins the face grown from the largest-area
//!    seed facet if each of its vertices is exactly coplanar with the seed triangle, or within
//!    [`COPLANAR_REL`] of the seed's plane. Every vertex is
//!    tested against the one seed plane, so merging never chains across a curved surface.
//! 6. Vertices on fewer than three faces lie inside a face or on an edge: not extreme, dropped.
//!
//! Invariants: visibility is exact, so the visible region is a topological disk and its
//! horizon a simple cycle; new facets are never degenerate (a point strictly above a facet
//! cannot be collinear with one of its edges). Termination: every iteration turns one point
//! into a hull vertex and removes it from all outside sets, so there are at most `n`.
//! Float arithmetic only chooses *which* point to add next (the farthest), never whether a
//! point is outside.
//!
//! Cost of each phase, for `n` input points and `h` hull vertices (figures: BENCHMARKS.md,
//! "Building large hulls"):
//! - checks, duplicate removal: O(n log n) (one sort);
//! - Quickhull: O(n log h) expected (each point is re-assigned only when a facet it is
//!   above dies; outside sets are conflict lists); dead facet slots are reused, so memory is
//!   O(n + h) facets;
//! - merge: O(h log h) (facets sorted by area once; each facet's in-plane neighbours found
//!   by O(1) exact tests in one pass in creation order, so a seed that takes none — every
//!   facet of a cloud in general position — reads only its group entry); the closure check groups the directed edges by origin
//!   (counting sort) and finds each reverse edge by binary search, O(h log d) for vertex
//!   degree d, no hashing;
//! - a tolerant merge that drops vertices recomputes the hull of the rest (at most
//!   8 rounds; one on the clouds measured).

use crate::core::error::PolycdError;
use crate::core::math::DVec3;
use crate::core::predicates::{orient3d, strictly_above, Orientation};
use crate::core::progress::{Phase, PROGRESS_STRIDE};
use crate::core::tolerance::{COPLANAR_REL, FLATNESS_REL, MAX_COORDINATE};
use std::collections::HashMap;

mod merge;
pub mod small;
use merge::faces_are_closed;
use std::hash::{BuildHasherDefault, Hasher};

/// A fast hasher for small integer keys (vertex ids, directed edges): the hull and the
/// half-edge construction hash millions of edges of 10⁶-point clouds, where the default
/// SipHash cost about a second. Keys are built by the library, not by an adversary.
#[derive(Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        let h = self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^ (h >> 29)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u32(&mut self, k: u32) {
        self.write_u64(u64::from(k));
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = (self.0.rotate_left(26) ^ k).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_usize(&mut self, k: usize) {
        self.write_u64(k as u64);
    }
}

/// A `HashMap` keyed by vertex or edge ids, hashed by [`IdHasher`].
pub(crate) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// A hull as polygonal faces over its extreme points.
#[derive(Clone, Debug)]
pub struct HullFaces {
    /// The extreme points.
    pub vertices: Vec<DVec3>,
    /// For each vertex, its index in the input cloud.
    pub source: Vec<u32>,
    /// Faces as vertex index loops, counter-clockwise seen from outside.
    pub faces: Vec<Vec<u32>>,
}

const NONE: u32 = u32::MAX;

#[derive(Clone, Debug)]
struct Facet {
    v: [u32; 3],
    /// `nbr[i]` is the facet across the edge `v[i] → v[(i+1)%3]`.
    nbr: [u32; 3],
    alive: bool,
    visible: bool,
    /// Creation order: facet slots are reused, and the merge visits facets in this order.
    seq: u64,
    outside: Vec<u32>,
    normal: DVec3,
    offset: f64,
}

/// Checks coordinates: finite and not absurdly large.
pub fn check_points(points: &[DVec3]) -> Result<(), PolycdError> {
    for (i, p) in points.iter().enumerate() {
        if !p.is_finite() {
            return Err(PolycdError::NonFinite { index: i });
        }
        let m = p.abs().max_element();
        if m > MAX_COORDINATE {
            return Err(PolycdError::AbsurdMagnitude { value: m });
        }
    }
    Ok(())
}

/// Computes the hull of `points` as polygonal faces.
pub fn convex_hull(points: &[DVec3]) -> Result<HullFaces, PolycdError> {
    convex_hull_with_progress(points, &mut |_, _, _| {})
}

/// [`convex_hull`], reporting progress (see [`crate::core::progress`]); the same result.
pub fn convex_hull_with_progress(
    points: &[DVec3],
    progress: &mut dyn FnMut(Phase, u64, u64),
) -> Result<HullFaces, PolycdError> {
    check_points(points)?;
    // Very large or very small clouds: the hull of the cloud scaled by a power of two into
    // the safe band (exact; the floating-point choices scale with it), over the input points.
    let m = points.iter().fold(0.0f64, |m, p| m.max(p.abs().max_element()));
    if let Some(s) = crate::core::math::pow2_normaliser(m) {
        let scaled: Vec<DVec3> = points.iter().map(|p| *p * s).collect();
        let mut h = convex_hull(&scaled).map_err(|e| match e {
            PolycdError::Coplanar { thickness, diameter } => PolycdError::Coplanar {
                thickness: thickness / s,
                diameter: diameter / s,
            },
            e => e,
        })?;
        for (v, &i) in h.vertices.iter_mut().zip(&h.source) {
            *v = points[i as usize];
        }
        return Ok(h);
    }
    // Exact duplicates removed, keeping the first index of each.
    // Sorted by (x, y, z) in `f64::total_cmp` order, then index: keys that compare as
    // integers in that order, sorted in place (an index sort reading the points through the
    // indices was a fifth of a 10⁶-point ball's hull, mostly cache misses). All keys differ
    // (the index breaks ties), so the unstable sort gives the one order.
    let key = |x: f64| {
        let b = x.to_bits() as i64;
        b ^ ((((b >> 63) as u64) >> 1) as i64)
    };
    let mut keyed: Vec<([i64; 3], u32)> = points
        .iter()
        .enumerate()
        .map(|(i, p)| ([key(p.x), key(p.y), key(p.z)], i as u32))
        .collect();
    keyed.sort_unstable();
    let mut order: Vec<u32> = keyed.into_iter().map(|(_, i)| i).collect();
    order.dedup_by(|j, i| points[*i as usize] == points[*j as usize]);
    if order.len() < 4 {
        return Err(PolycdError::TooFewPoints { found: order.len() });
    }
    let mut pts: Vec<DVec3> = order.iter().map(|&i| points[i as usize]).collect();
    // Points that the exact hull keeps but that lie within the coplanarity tolerance of a
    // merged face (rounding of rotated or scaled input) end up on fewer than three faces and
    // are dropped; the hull of the remaining points is then recomputed, until nothing more is
    // dropped. Each round removes at least one point, and a few rounds suffice in practice;
    // if the bound is reached, or the tolerant merge fails, the exact merge (tolerance 0,
    // always a valid polytope) is used.
    for _round in 0..MERGE_ROUNDS {
        let mut hull = Quickhull::new(&pts)?;
        hull.run(progress)?;
        progress(Phase::Merge, 0, 1);
        let tol = COPLANAR_REL * hull.magnitude;
        let merged = hull.merge(tol);
        progress(Phase::Merge, 1, 1);
        let all_vertices = hull.vertex_count();
        // The facets are no longer needed: free them before the checks and renumbering.
        drop(hull);
        let Ok((faces, kept)) = merged else {
            break;
        };
        if !faces_are_closed(&faces, kept.len()) {
            break;
        }
        if kept.len() == all_vertices {
            return Ok(in_input_order(HullFaces {
                source: kept.iter().map(|&i| order[i as usize]).collect(),
                vertices: kept.iter().map(|&i| pts[i as usize]).collect(),
                faces,
            }));
        }
        order = kept.iter().map(|&i| order[i as usize]).collect();
        pts = kept.iter().map(|&i| pts[i as usize]).collect();
        if pts.len() < 4 {
            break;
        }
    }
    let pts: Vec<DVec3> = order.iter().map(|&i| points[i as usize]).collect();
    let mut hull = Quickhull::new(&pts)?;
    hull.run(progress)?;
    let (faces, kept) = hull.merge(0.0)?;
    Ok(in_input_order(HullFaces {
        source: kept.iter().map(|&i| order[i as usize]).collect(),
        vertices: kept.iter().map(|&i| pts[i as usize]).collect(),
        faces,
    }))
}

/// Renumbers the hull's vertices in the order of the input points they come from (the
/// construction sorts the points to find duplicates): a cloud whose points are all extreme
/// gets vertex ids equal to its point indices, which is what a caller naming a vertex of the
/// shape it gave expects (batch answers' `features` among them).
fn in_input_order(mut h: HullFaces) -> HullFaces {
    // The sources are distinct input indices (duplicates were removed), so the order by
    // source is read off a table indexed by source: one scatter and one scan instead of a
    // sort whose comparisons read `source` at random (the same permutation).
    let span = h.source.iter().map(|&s| s as usize + 1).max().unwrap_or(0);
    let mut at_source = vec![NONE; span];
    for (i, &s) in h.source.iter().enumerate() {
        at_source[s as usize] = i as u32;
    }
    let mut perm: Vec<u32> = at_source.into_iter().filter(|&i| i != NONE).collect();
    if perm.len() != h.source.len() {
        // A repeated source (not produced by the construction): the sort, ties by position.
        perm = (0..h.vertices.len() as u32).collect();
        perm.sort_by_key(|&i| h.source[i as usize]);
    }
    let mut new_id = vec![0u32; perm.len()];
    for (new, &old) in perm.iter().enumerate() {
        new_id[old as usize] = new as u32;
    }
    // Faces renumbered in place (a copy of the 2·10⁶ face lists of a 10⁶-point sphere cost
    // 100 MB at the peak).
    for f in &mut h.faces {
        for v in f.iter_mut() {
            *v = new_id[*v as usize];
        }
    }
    HullFaces {
        vertices: perm.iter().map(|&i| h.vertices[i as usize]).collect(),
        source: perm.iter().map(|&i| h.source[i as usize]).collect(),
        faces: h.faces,
    }
}

/// Bound on the rounds of the tolerant merge (see [`convex_hull`]).
const MERGE_ROUNDS: usize = 8;

struct Quickhull<'a> {
    pts: &'a [DVec3],
    facets: Vec<Facet>,
    /// Slots of dead facets, reused by new ones (a 10⁶-point sphere creates ~10⁷ facets, of
    /// which ~2·10⁶ are alive at the end).
    free: Vec<u32>,
    /// Facets created so far (the next facet's `seq`).
    created: u64,
    /// Coordinate magnitude that sets the coplanarity tolerance.
    magnitude: f64,
}

fn plane_of(a: DVec3, b: DVec3, c: DVec3) -> (DVec3, f64) {
    // Cross the two shortest edges, from the vertex opposite the longest one: the most
    // accurate normal a triangle gives in floating point.
    let (ab, bc, ca) = (
        (b - a).length_squared(),
        (c - b).length_squared(),
        (a - c).length_squared(),
    );
    let n = if ab >= bc && ab >= ca {
        (a - c).cross(b - c)
    } else if bc >= ca {
        (b - a).cross(c - a)
    } else {
        (c - b).cross(a - b)
    };
    let len = n.length();
    let n = if len > 0.0 { n / len } else { DVec3::ZERO };
    (n, n.dot(a))
}

impl<'a> Quickhull<'a> {
    fn new(pts: &'a [DVec3]) -> Result<Self, PolycdError> {
        let magnitude = pts
            .iter()
            .fold(0.0f64, |m, p| m.max(p.abs().max_element()))
            .max(f64::MIN_POSITIVE);
        // Initial simplex.
        let i0 = 0usize; // lexicographically smallest
        let mut i1 = 0usize;
        let mut best = -1.0;
        for (i, p) in pts.iter().enumerate() {
            let d = (*p - pts[i0]).length_squared();
            if d > best {
                best = d;
                i1 = i;
            }
        }
        let diameter = best.sqrt();
        let axis = pts[i1] - pts[i0];
        let mut i2 = 0usize;
        best = -1.0;
        for (i, p) in pts.iter().enumerate() {
            let d = axis.cross(*p - pts[i0]).length_squared();
            if d > best {
                best = d;
                i2 = i;
            }
        }
        if best <= 0.0 {
            return Err(PolycdError::Collinear);
        }
        let (n, off) = plane_of(pts[i0], pts[i1], pts[i2]);
        let mut i3 = usize::MAX;
        let mut thick = -1.0;
        for (i, p) in pts.iter().enumerate() {
            if orient3d(pts[i0], pts[i1], pts[i2], *p) == Orientation::On {
                continue;
            }
            let d = (n.dot(*p) - off).abs();
            if d > thick {
                thick = d;
                i3 = i;
            }
        }
        if i3 == usize::MAX {
            return Err(PolycdError::Coplanar {
                thickness: 0.0,
                diameter,
            });
        }
        if thick <= FLATNESS_REL * diameter {
            return Err(PolycdError::Coplanar {
                thickness: thick,
                diameter,
            });
        }
        let mut q = Quickhull {
            pts,
            facets: Vec::with_capacity(pts.len() * 2),
            free: Vec::new(),
            created: 0,
            magnitude,
        };
        let (a, b, c, d) = (i0 as u32, i1 as u32, i2 as u32, i3 as u32);
        // Orient the base so that d is below it.
        let (b, c) = if strictly_above(pts[i0], pts[i1], pts[i2], pts[i3]) {
            (c, b)
        } else {
            (b, c)
        };
        let tris = [[a, b, c], [a, d, b], [b, d, c], [c, d, a]];
        for t in tris {
            q.push_facet(t);
        }
        // Link neighbours.
        let mut map: HashMap<(u32, u32), (u32, usize)> = HashMap::new();
        for (f, facet) in q.facets.iter().enumerate() {
            for i in 0..3 {
                map.insert((facet.v[i], facet.v[(i + 1) % 3]), (f as u32, i));
            }
        }
        for f in 0..4 {
            for i in 0..3 {
                let (u, v) = (q.facets[f].v[i], q.facets[f].v[(i + 1) % 3]);
                let &(g, _) = map.get(&(v, u)).ok_or_else(|| internal("initial simplex not closed"))?;
                q.facets[f].nbr[i] = g;
            }
        }
        // Outside sets.
        for (i, p) in pts.iter().enumerate() {
            let i = i as u32;
            if i == a || i == b || i == c || i == d {
                continue;
            }
            for f in 0..4 {
                let v = q.facets[f].v;
                if strictly_above(pts[v[0] as usize], pts[v[1] as usize], pts[v[2] as usize], *p) {
                    q.facets[f].outside.push(i);
                    break;
                }
            }
        }
        Ok(q)
    }

    fn push_facet(&mut self, v: [u32; 3]) -> u32 {
        let (normal, offset) = plane_of(
            self.pts[v[0] as usize],
            self.pts[v[1] as usize],
            self.pts[v[2] as usize],
        );
        let facet = Facet {
            v,
            nbr: [NONE; 3],
            alive: true,
            visible: false,
            seq: self.created,
            outside: Vec::new(),
            normal,
            offset,
        };
        self.created += 1;
        if let Some(slot) = self.free.pop() {
            self.facets[slot as usize] = facet;
            slot
        } else {
            self.facets.push(facet);
            (self.facets.len() - 1) as u32
        }
    }

    fn vertex_count(&self) -> usize {
        let mut seen = vec![false; self.pts.len()];
        for f in self.facets.iter().filter(|f| f.alive) {
            for &v in &f.v {
                seen[v as usize] = true;
            }
        }
        seen.iter().filter(|&&s| s).count()
    }

    fn above(&self, f: u32, p: u32) -> bool {
        let v = self.facets[f as usize].v;
        strictly_above(
            self.pts[v[0] as usize],
            self.pts[v[1] as usize],
            self.pts[v[2] as usize],
            self.pts[p as usize],
        )
    }

    /// Runs Quickhull; `progress` gets `(Phase::Hull, settled points, all points)`.
    fn run(&mut self, progress: &mut dyn FnMut(Phase, u64, u64)) -> Result<(), PolycdError> {
        let total = self.pts.len() as u64;
        // Points not (or no longer) in any outside set: hull vertices or found inside.
        let mut settled = total - self.facets.iter().map(|f| f.outside.len() as u64).sum::<u64>();
        progress(Phase::Hull, settled, total);
        // (facet, its seq): a slot may be reused after its facet died, and the entry must
        // then be skipped as it was before slots were reused.
        let mut stack: Vec<(u32, u64)> = (0..4)
            .filter(|&f| !self.facets[f as usize].outside.is_empty())
            .map(|f| (f, self.facets[f as usize].seq))
            .collect();
        let mut visible: Vec<u32> = Vec::new();
        let mut horizon: Vec<(u32, u32, u32)> = Vec::new(); // (a, b, facet beyond)
        let mut dfs: Vec<u32> = Vec::new();
        let mut by_start: IdMap<u32, u32> = IdMap::default();
        let mut new_facets: Vec<u32> = Vec::new();
        let max_iterations = self.pts.len() + 1;
        let mut iterations = 0usize;
        while let Some((f, seq)) = stack.pop() {
            let facet = &self.facets[f as usize];
            if facet.seq != seq || !facet.alive || facet.outside.is_empty() {
                continue;
            }
            iterations += 1;
            if iterations > max_iterations {
                return Err(internal("quickhull exceeded its iteration bound"));
            }
            if iterations.is_multiple_of(PROGRESS_STRIDE as usize) {
                progress(Phase::Hull, settled.min(total), total);
            }
            // Farthest outside point (float: only a heuristic choice).
            let (n, off) = (facet.normal, facet.offset);
            let mut p = facet.outside[0];
            let mut best = f64::NEG_INFINITY;
            for &q in &facet.outside {
                let d = n.dot(self.pts[q as usize]) - off;
                if d > best {
                    best = d;
                    p = q;
                }
            }
            // Visible region by DFS over exact visibility.
            visible.clear();
            horizon.clear();
            dfs.clear();
            self.facets[f as usize].visible = true;
            visible.push(f);
            dfs.push(f);
            while let Some(g) = dfs.pop() {
                for i in 0..3 {
                    let h = self.facets[g as usize].nbr[i];
                    if self.facets[h as usize].visible {
                        continue;
                    }
                    if self.above(h, p) {
                        self.facets[h as usize].visible = true;
                        visible.push(h);
                        dfs.push(h);
                    } else {
                        let v = self.facets[g as usize].v;
                        horizon.push((v[i], v[(i + 1) % 3], h));
                    }
                }
            }
            // New cone facets.
            by_start.clear();
            new_facets.clear();
            for &(a, b, beyond) in &horizon {
                let nf = self.push_facet([a, b, p]);
                self.facets[nf as usize].nbr[0] = beyond;
                // Point the facet beyond the horizon at the new one.
                let bf = &mut self.facets[beyond as usize];
                let mut linked = false;
                for i in 0..3 {
                    if bf.v[i] == b && bf.v[(i + 1) % 3] == a {
                        bf.nbr[i] = nf;
                        linked = true;
                    }
                }
                if !linked || by_start.insert(a, nf).is_some() {
                    return Err(internal("horizon is not a simple cycle"));
                }
                new_facets.push(nf);
            }
            for &nf in &new_facets {
                let [a, b, _] = self.facets[nf as usize].v;
                let next = *by_start.get(&b).ok_or_else(|| internal("horizon not closed"))?;
                self.facets[nf as usize].nbr[1] = next;
                self.facets[next as usize].nbr[2] = nf;
                let _ = a;
            }
            // Hand outside points to the new facets.
            for &g in &visible {
                let outside = std::mem::take(&mut self.facets[g as usize].outside);
                self.facets[g as usize].alive = false;
                for q in outside {
                    if q == p {
                        settled += 1;
                        continue;
                    }
                    let mut assigned = false;
                    for &nf in &new_facets {
                        if self.above(nf, q) {
                            self.facets[nf as usize].outside.push(q);
                            assigned = true;
                            break;
                        }
                    }
                    settled += u64::from(!assigned);
                }
            }
            for &nf in &new_facets {
                if !self.facets[nf as usize].outside.is_empty() {
                    stack.push((nf, self.facets[nf as usize].seq));
                }
            }
            // The visible facets are dead and nothing points at them any more (the horizon
            // facets now point at the new ones): their slots can be reused.
            self.free.extend_from_slice(&visible);
        }
        progress(Phase::Hull, total, total);
        Ok(())
    }
}

fn internal(what: &str) -> PolycdError {
    PolycdError::InvalidBoundary(format!("internal hull failure: {what}"))
}
