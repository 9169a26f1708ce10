//! EPA: penetration depth by van den Bergen's expanding polytope, from GJK's final simplex.
//!
//! Departures from the paper: faces are oriented against the initial tetrahedron's centroid
//! rather than the origin, so a seed with the origin on its boundary (touching) is handled; a
//! degenerate seed is blown up (segment: supports around it; triangle: the taller of the two
//! normal supports, or the origin's side when that tetrahedron contains the origin). The
//! horizon comes from van den Bergen's depth-first silhouette walk with an explicit stack
//! (edges in loop order, so the new fan is linked by position; the loop is checked to chain
//! and to visit each vertex once). The incremental polytope can break on symmetric shapes
//! (many vertices of `M` on common planes and lines: a horizon with two loops, a sliver face),
//! which shows as a face with the origin beyond it; such a run — or a horizon that is not one
//! simple loop — is abandoned (retried once with the climbs also started from the expanded
//! face's vertices, which picks other maximisers among ties), and EPA restarts from the same
//! tetrahedron over robust hulls of the collected support points (exact predicates, coplanar
//! faces merged; at most [`HULL_EPA_MAX_POINTS`] points), which is slow but cannot break.
//!
//! Coherence (not in the paper): the cache keeps the vertex pairs of the face the last answer
//! came from, and the next run inserts those that lie beyond its tetrahedron before expanding
//! (each is a vertex of `M`, so the polytope stays inside `M` and the stopping bounds are
//! unchanged); should the warm run break, the cold run follows.
//!
//! Scratch space: the polytope's buffers are one set per thread ([`EPA_SCRATCH`]), not one
//! per pair cache — every run clears them, so which set a run uses cannot change its answer,
//! and a scene with thousands of overlapping pairs reuses one warm set instead of writing a
//! cold one per pair (a pair cache keeps only the last face's three vertex pairs). The pair
//! cache's own set is the fallback while the thread's is unavailable (a nested call or a
//! thread being torn down).

use super::minkowski::{Ctx, SVert};
use super::simplex::Simplex;
use super::GjkCache;
use crate::core::math::DVec3;
use crate::core::tolerance::{ACCEPT_GAP_REL, DISTANCE_GAP_REL, SLIVER_HEIGHT_RATIO};
use crate::shape::polyhedron::ConvexPolyhedron;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Initial capacity of EPA's vertex buffer (faces, distances and heap entries: twice that),
/// reserved once per buffer set. Faces are never reused within a run (dead ones stay), and
/// `tests/alloc.rs`'s distance workloads passed 128 faces (64 here): the buffers grew twice in
/// 10 008 warm queries; with 256 (≈ 50 KB per thread) they do not.
const EPA_RESERVE: usize = 256;

thread_local! {
    /// The thread's EPA buffers (module header, *Scratch space*): allocated by the thread's
    /// first run, reused by every later one.
    static EPA_SCRATCH: RefCell<EpaBufs> = const {
        RefCell::new(EpaBufs {
            verts: Vec::new(),
            keys: Vec::new(),
            mark: Vec::new(),
            faces: Vec::new(),
            stack: Vec::new(),
            horizon: Vec::new(),
            dist: Vec::new(),
            heap: BinaryHeap::new(),
            heaped: false,
        })
    };
}

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct EpaFace {
    v: [u32; 3],
    adj: [u32; 3],
    n: DVec3,
    d: f64,
    alive: bool,
}

/// EPA's scratch buffers, kept in the cache so that steady-state queries do not allocate.
#[derive(Clone, Debug, Default)]
pub(super) struct EpaBufs {
    verts: Vec<SVert>,
    /// `(ia << 32) | ib` of each vertex, apart: the repeated-support test scans them.
    keys: Vec<u64>,
    /// Per vertex, the iteration that last met it on the horizon (simple-loop test).
    mark: Vec<u32>,
    faces: Vec<EpaFace>,
    stack: Vec<(u32, u8)>,
    horizon: Vec<(u32, u8)>,
    /// Face distances, +∞ once a face dies.
    dist: Vec<f64>,
    /// Once the polytope has more than [`HEAP_FACES`] faces (`heaped`), the faces by distance
    /// (least first, ties to the lower index), dead ones dropped when they reach the top.
    heap: BinaryHeap<Near>,
    heaped: bool,
}

/// Up to this many faces the nearest live face is found by scanning the dense distance array
/// ([`first_least`]); beyond it from a heap ([`nearest_live`]). Both pick the same face. A
/// cost choice (callgrind): a heap step (about two pops and four pushes) costs about what a
/// scan of 60–70 entries does; the many-body manifolds' polytopes (20–40 faces) were 6 %
/// slower with the heap alone, the deep 1 000-vertex overlaps (~200 faces) 11 % faster.
const HEAP_FACES: usize = 64;

/// A face's entry in [`EpaBufs::heap`]: its distance and index, ordered so that the heap's
/// top is the least distance and, among equal distances (`-0.0 == 0.0` as for `<`), the
/// lowest index — the face the former scan for the first least entry picked. Only finite
/// distances below +∞ enter (no NaN), so the order is total.
#[derive(Clone, Copy, Debug)]
struct Near {
    d: f64,
    i: u32,
}

impl PartialEq for Near {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Near {}
impl PartialOrd for Near {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Near {
    /// Reversed (`BinaryHeap` is a max-heap): the nearer face, then the lower index, is greater.
    fn cmp(&self, o: &Self) -> Ordering {
        let by_d = if self.d < o.d {
            Ordering::Greater
        } else if o.d < self.d {
            Ordering::Less
        } else {
            Ordering::Equal
        };
        by_d.then(o.i.cmp(&self.i))
    }
}

/// Queues face `i` at distance `d` (below +∞ only: a face at +∞ or NaN was never picked by
/// the scan this replaces, so it is left out).
#[inline]
fn queue(heap: &mut BinaryHeap<Near>, d: f64, i: u32) {
    if d < f64::INFINITY {
        heap.push(Near { d, i });
    }
}

/// The live face nearest the origin (the least distance, ties to the lowest index; `None`
/// when no live face is queued), dead faces popped on the way.
#[inline]
fn nearest_live(heap: &mut BinaryHeap<Near>, faces: &[EpaFace]) -> Option<usize> {
    while let Some(top) = heap.peek() {
        let i = top.i as usize;
        if faces.get(i).is_some_and(|f| f.alive) {
            return Some(i);
        }
        heap.pop();
    }
    None
}

/// Switches `p` to the heap (every face queued by its distance): once per run, and only for
/// polytopes beyond [`HEAP_FACES`] faces (deep overlaps of large hulls), so out of line.
#[inline(never)]
fn start_heap(p: &mut EpaBufs) {
    p.heaped = true;
    for (i, &d) in p.dist.iter().enumerate() {
        queue(&mut p.heap, d, i as u32);
    }
}

impl EpaBufs {
    /// Empties every buffer, capacities kept. All of them: `reserve` counts from the current
    /// length, so a buffer left holding the last run's entries (the horizon, the distances)
    /// grew past its high-water mark on a later run's reserve.
    fn clear(&mut self) {
        self.verts.clear();
        self.keys.clear();
        self.mark.clear();
        self.faces.clear();
        self.stack.clear();
        self.horizon.clear();
        self.dist.clear();
        self.heap.clear();
        self.heaped = false;
    }
    fn push_vert(&mut self, s: SVert) {
        self.verts.push(s);
        self.keys.push(key(s.ia, s.ib));
        self.mark.push(0);
    }
}

/// A vertex pair as one word.
#[inline]
fn key(ia: u32, ib: u32) -> u64 {
    (u64::from(ia) << 32) | u64::from(ib)
}

// ---------------------------------------------------------------------------------------------
// EPA
// ---------------------------------------------------------------------------------------------

pub(super) struct EpaOut {
    pub(super) depth: f64,
    pub(super) normal: DVec3,
    pub(super) pa: DVec3,
    pub(super) pb: DVec3,
    pub(super) seed: Simplex,
    pub(super) iters: u32,
    /// The vertex pairs of the triangle the answer's points come from (the next run's warm
    /// start, see [`GjkCache::epa_face`]).
    pub(super) face: [(u32, u32); 3],
}

#[inline(always)]
fn make_face(verts: &[SVert], i: u32, j: u32, k: u32) -> Option<EpaFace> {
    let (a, b, c) = (verts[i as usize].w, verts[j as usize].w, verts[k as usize].w);
    let n = (b - a).cross(c - a);
    let len = n.length();
    if !(len > 0.0) || !len.is_finite() {
        return None;
    }
    let n = n / len;
    Some(EpaFace {
        v: [i, j, k],
        adj: [u32::MAX; 3],
        n,
        d: n.dot(a).max(n.dot(b)).max(n.dot(c)),
        alive: true,
    })
}

/// The first index of the least entry of `dist` below +∞ (`None` when there is none): the
/// same as a scan keeping the first strict improvement, done in one pass over four lanes
/// (entry `i` in lane `i mod 4`, each lane keeping its first least entry by a branch-free
/// select), the lanes' winners then compared by value and, on ties, by index. A second scan
/// for the index of the minimum was measured to cost a seventh of EPA's loop (its exit
/// branch mispredicts on every iteration).
#[inline]
fn first_least(dist: &[f64]) -> Option<usize> {
    let mut m = [f64::INFINITY; 4];
    let mut at = [usize::MAX; 4];
    let chunks = dist.chunks_exact(4);
    let tail = chunks.remainder();
    let full = dist.len() - tail.len();
    for (c, chunk) in chunks.enumerate() {
        for k in 0..4 {
            let better = chunk[k] < m[k];
            m[k] = if better { chunk[k] } else { m[k] };
            at[k] = if better { 4 * c + k } else { at[k] };
        }
    }
    for (k, &d) in tail.iter().enumerate() {
        let better = d < m[k];
        m[k] = if better { d } else { m[k] };
        at[k] = if better { full + k } else { at[k] };
    }
    let mut best = (m[0], at[0]);
    for k in 1..4 {
        if m[k] < best.0 || (m[k] == best.0 && at[k] < best.1) {
            best = (m[k], at[k]);
        }
    }
    if !(best.0 < f64::INFINITY) {
        return None;
    }
    Some(best.1)
}

/// Of the live faces within `reach` of the origin, the one whose barycentric coordinates of
/// the origin's foot have the largest least entry, starting from `pick` (the nearest face,
/// whose foot lies outside it: coplanar triangles of `M`'s nearest face). Rare: out of line.
#[cold]
#[inline(never)]
fn foot_face(bufs: &EpaBufs, mut pick: ([f64; 3], EpaFace), reach: f64) -> ([f64; 3], EpaFace) {
    for g in bufs.faces.iter() {
        if g.alive && g.d <= reach {
            let l = face_bary(&bufs.verts, g);
            let m = l[0].min(l[1]).min(l[2]);
            if m > pick.0[0].min(pick.0[1]).min(pick.0[2]) {
                pick = (l, *g);
            }
        }
    }
    pick
}

/// Normalised barycentric coordinates (possibly negative) of the origin's foot on face `f`.
fn face_bary(verts: &[SVert], f: &EpaFace) -> [f64; 3] {
    let q = f.n * f.d;
    let (x, y, z) = (
        verts[f.v[0] as usize].w - q,
        verts[f.v[1] as usize].w - q,
        verts[f.v[2] as usize].w - q,
    );
    let l = [f.n.dot(y.cross(z)), f.n.dot(z.cross(x)), f.n.dot(x.cross(y))];
    let s = l[0] + l[1] + l[2];
    if s > 0.0 {
        [l[0] / s, l[1] / s, l[2] / s]
    } else {
        [1.0, 0.0, 0.0]
    }
}

/// Blows a simplex (origin in or near its hull) up to a tetrahedron of `M` vertices.
#[inline]
fn blow_up(ctx: &Ctx, cache: &mut GjkCache, seed: &Simplex) -> Option<[SVert; 4]> {
    let mut s = [SVert::default(); 4];
    let mut n = 0;
    for k in 0..seed.n {
        if !s[..n].iter().any(|x| x.ia == seed.v[k].ia && x.ib == seed.v[k].ib) {
            s[n] = seed.v[k];
            n += 1;
        }
    }
    // GJK's enclosing simplex is a tetrahedron: the common case is done here.
    if n == 4 {
        return Some(s);
    }
    blow_up_degenerate(ctx, cache, s, n)
}

/// [`blow_up`] for a seed of fewer than four distinct vertices (touching or degenerate
/// pairs): rare, so kept out of line (the hot path's code stays compact in the instruction
/// cache).
#[cold]
#[inline(never)]
fn blow_up_degenerate(ctx: &Ctx, cache: &mut GjkCache, mut s: [SVert; 4], mut n: usize) -> Option<[SVert; 4]> {
    if n == 0 {
        s[0] = ctx.support(DVec3::X, cache);
        n = 1;
    }
    let axes = [DVec3::X, DVec3::Y, DVec3::Z, -DVec3::X, -DVec3::Y, -DVec3::Z];
    if n == 1 {
        let mut best = (0.0, s[0]);
        for d in axes {
            let w = ctx.support(d, cache);
            let l = (w.w - s[0].w).length_squared();
            if l > best.0 {
                best = (l, w);
            }
        }
        if !(best.0 > 0.0) {
            return None;
        }
        s[1] = best.1;
        n = 2;
    }
    if n == 2 {
        let e = s[1].w - s[0].w;
        let ea = e.abs();
        let axis = if ea.x <= ea.y && ea.x <= ea.z {
            DVec3::X
        } else if ea.y <= ea.z {
            DVec3::Y
        } else {
            DVec3::Z
        };
        let d1 = e.cross(axis).normalize_or_zero();
        let d2 = e.cross(d1).normalize_or_zero();
        let dirs = [d1, -d1, d2, -d2, d1 + d2, -d1 - d2, d1 - d2, d2 - d1];
        let mut best = (0.0, s[0]);
        for d in dirs {
            let w = ctx.support(d, cache);
            let l = (w.w - s[0].w).cross(e).length_squared();
            if l > best.0 {
                best = (l, w);
            }
        }
        if !(best.0 > 0.0) {
            return None;
        }
        s[2] = best.1;
        n = 3;
    }
    if n == 3 {
        let nrm = (s[1].w - s[0].w).cross(s[2].w - s[0].w);
        if !(nrm.length_squared() > 0.0) {
            return None;
        }
        let nrm = nrm.normalize();
        let h0 = -nrm.dot(s[0].w); // origin's height above the plane
        let up = ctx.support(nrm, cache);
        let dn = ctx.support(-nrm, cache);
        let hu = nrm.dot(up.w - s[0].w);
        let hd = nrm.dot(dn.w - s[0].w);
        // Prefer the side of the origin when that tetrahedron contains it and is not a
        // sliver; otherwise the taller side (the origin is then on or near the triangle).
        let (tall, short, ht, hs) = if hu.abs() >= hd.abs() {
            (up, dn, hu, hd)
        } else {
            (dn, up, hd, hu)
        };
        let origin_side_ok = |h: f64| h0 != 0.0 && h.signum() == h0.signum() && h.abs() >= h0.abs();
        let pick = if origin_side_ok(hs) && hs.abs() >= SLIVER_HEIGHT_RATIO * ht.abs() {
            short
        } else {
            tall
        };
        if !(nrm.dot(pick.w - s[0].w).abs() > f64::EPSILON * ctx.scale) {
            return None;
        }
        s[3] = pick;
    }
    Some(s)
}

/// EPA from a GJK simplex whose hull holds the origin (or nearly): the nearest face of `M`,
/// or `None` when every run failed.
pub(super) fn epa(ctx: &Ctx, cache: &mut GjkCache, seed: &Simplex) -> Option<EpaOut> {
    let tet = blow_up(ctx, cache, seed)?;
    let gap = DISTANCE_GAP_REL * ctx.scale;
    // The thread's buffers; the cache's own set when those are unavailable (module header).
    let shared = EPA_SCRATCH
        .try_with(|cell| {
            let mut bufs = cell.try_borrow_mut().ok()?;
            Some(epa_runs(ctx, cache, &tet, gap, &mut bufs))
        })
        .ok()
        .flatten();
    let mut out = match shared {
        Some(out) => out,
        None => epa_runs_own(ctx, cache, &tet, gap),
    };
    if out.is_none() {
        out = epa_by_hulls(ctx, cache, &tet, gap);
    }
    match &out {
        Some(e) => {
            cache.epa_face = e.face;
            cache.epa_len = 3;
        }
        None => cache.epa_len = 0,
    }
    out
}

/// [`epa_runs`] on the cache's own buffers (the thread's are unavailable: a nested call or a
/// thread being torn down). Rare: out of line.
#[cold]
#[inline(never)]
fn epa_runs_own(ctx: &Ctx, cache: &mut GjkCache, tet: &[SVert; 4], gap: f64) -> Option<EpaOut> {
    let mut bufs = cache.epa.take().unwrap_or_default();
    let out = epa_runs(ctx, cache, tet, gap, &mut bufs);
    cache.epa = Some(bufs);
    out
}

/// The incremental runs of [`epa`] on the buffers `bufs` (cleared first): the warm run when
/// the cache holds a last face, the cold run, the retry with the face's vertices as climb
/// starts; `None` when all broke (the caller then rebuilds hulls).
fn epa_runs(ctx: &Ctx, cache: &mut GjkCache, tet: &[SVert; 4], gap: f64, bufs: &mut EpaBufs) -> Option<EpaOut> {
    bufs.clear();
    // One allocation of a typical final size instead of repeated doubling (cold caches).
    bufs.verts.reserve(EPA_RESERVE);
    bufs.keys.reserve(EPA_RESERVE);
    bufs.mark.reserve(EPA_RESERVE);
    bufs.faces.reserve(2 * EPA_RESERVE);
    bufs.stack.reserve(EPA_RESERVE);
    bufs.horizon.reserve(EPA_RESERVE);
    bufs.dist.reserve(2 * EPA_RESERVE);
    bufs.heap.reserve(2 * EPA_RESERVE);
    // Supports climbed from the direction table's start ([`climb_start`]); should that run
    // fail (degenerate, near-flat `M`, where ties among maximisers matter), a run whose climbs
    // also consider the expanded face's own vertices (other picks among tied maximisers)
    // decides before the slow fallback. The face's vertices were the first
    // choice once: measured (callgrind, n = 1 000 ellipsoids, overlapping), they cost more
    // than they save (70.6k → 69.7k instructions per query without them; 85.7k with them
    // alone, no table).
    //
    // A cache holding the face of the pair's last EPA answer starts from it (`warm`); should
    // that run fail, the cold run follows, then the retry above.
    let (wa, wb) = (cache.warm_a, cache.warm_b);
    let warm = cache.epa_len == 3;
    let out = epa_run::<false>(ctx, cache, tet, gap, warm, bufs);
    if out.is_some() {
        return out;
    }
    epa_retries(ctx, cache, tet, gap, warm, (wa, wb), bufs)
}

/// The runs after a failed first run of [`epa_runs`] (the cold run when the first was warm,
/// then the run with the face's vertices as climb starts), each from the supports' state
/// `warm0` the first run started from. Rare (symmetric shapes): out of line, so that the
/// near-start run's code is not in the hot path.
#[cold]
#[inline(never)]
fn epa_retries(
    ctx: &Ctx,
    cache: &mut GjkCache,
    tet: &[SVert; 4],
    gap: f64,
    warm: bool,
    warm0: (u32, u32),
    bufs: &mut EpaBufs,
) -> Option<EpaOut> {
    let mut out = None;
    if warm {
        (cache.warm_a, cache.warm_b) = warm0;
        bufs.clear();
        out = epa_run::<false>(ctx, cache, tet, gap, false, bufs);
    }
    if out.is_none() {
        (cache.warm_a, cache.warm_b) = warm0;
        bufs.clear();
        out = epa_run::<true>(ctx, cache, tet, gap, false, bufs);
    }
    out
}

/// Bound on the support points the fallback EPA collects.
const HULL_EPA_MAX_POINTS: usize = 256;

/// EPA's fallback when the incremental polytope fails (symmetric shapes put many Minkowski
/// vertices on common planes and lines, where its horizon walk can break): the same
/// expansion, but each step rebuilds the hull of the collected support points with the
/// robust hull (exact predicates, coplanar faces merged). Rare, so its allocations and its
/// O(k log k) rebuilds do not matter (and it is kept out of line). Bounded by
/// [`HULL_EPA_MAX_POINTS`] support points.
#[cold]
#[inline(never)]
fn epa_by_hulls(ctx: &Ctx, cache: &mut GjkCache, tet: &[SVert; 4], gap: f64) -> Option<EpaOut> {
    let mut pts: Vec<SVert> = tet.to_vec();
    let mut seed = Simplex::default();
    for s in tet {
        seed.push(*s);
    }
    let mut iters = 0u32;
    loop {
        iters += 1;
        let ws: Vec<DVec3> = pts.iter().map(|p| p.w).collect();
        // A flat set of supports has no faces to expand from (a polygon since issue 22).
        let hull = ConvexPolyhedron::from_points(&ws).ok().filter(|h| h.dimension() == 3)?;
        // The face nearest the origin (the origin is inside: offsets ≥ −rounding).
        let mut best = (f64::INFINITY, 0u32);
        for f in 0..hull.faces().len() as u32 {
            let d = hull.face(f).offset;
            if d < best.0 {
                best = (d, f);
            }
        }
        if !(best.0 >= -gap) {
            return None;
        }
        let face = *hull.face(best.1);
        let n = face.normal;
        let w = ctx.support(n, cache);
        let upper = n.dot(w.w);
        let present = pts.iter().any(|p| p.ia == w.ia && p.ib == w.ib);
        if upper - face.offset <= gap || present || pts.len() >= HULL_EPA_MAX_POINTS {
            if upper - face.offset > ACCEPT_GAP_REL * ctx.scale && !present {
                return None;
            }
            // The origin's foot on the face, in a fan triangle of the (convex) face polygon.
            let foot = n * face.offset;
            let ids: Vec<u32> = hull.face_vertices(best.1).to_vec();
            let src = hull.source_indices();
            let sv = |v: u32| src.get(v as usize).and_then(|&i| pts.get(i as usize)).copied();
            let mut pick: Option<(f64, [f64; 3], [SVert; 3])> = None;
            for k in 1..ids.len().saturating_sub(1) {
                let (a, b, c) = (sv(ids[0])?, sv(ids[k])?, sv(ids[k + 1])?);
                let (x, y, z) = (a.w - foot, b.w - foot, c.w - foot);
                let l = [n.dot(y.cross(z)), n.dot(z.cross(x)), n.dot(x.cross(y))];
                let sum = l[0] + l[1] + l[2];
                if !(sum > 0.0) {
                    continue;
                }
                let l = [l[0] / sum, l[1] / sum, l[2] / sum];
                let m = l[0].min(l[1]).min(l[2]);
                if pick.as_ref().is_none_or(|p| m > p.0) {
                    pick = Some((m, l, [a, b, c]));
                }
            }
            let (_, l, [a, b, c]) = pick?;
            let l = [l[0].max(0.0), l[1].max(0.0), l[2].max(0.0)];
            let s = l[0] + l[1] + l[2];
            let l = [l[0] / s, l[1] / s, l[2] / s];
            return Some(EpaOut {
                depth: face.offset.max(0.0),
                normal: n,
                pa: ctx.pa(&a) * l[0] + ctx.pa(&b) * l[1] + ctx.pa(&c) * l[2],
                pb: ctx.pb(&a) * l[0] + ctx.pb(&b) * l[1] + ctx.pb(&c) * l[2],
                seed,
                iters,
                face: [(a.ia, a.ib), (b.ia, b.ib), (c.ia, c.ib)],
            });
        }
        pts.push(w);
    }
}

/// `(e + 1) mod 3` for a triangle's edge or corner index `e`.
const NEXT3: [usize; 3] = [1, 2, 0];

/// Adds the Minkowski vertex `w` (key `wk`) to the polytope: removes the faces visible from
/// it, starting at face `best` (which must see it), and fans new faces from the horizon to
/// it. `stamp` is unique per call (the simple-loop test marks vertices with it). `None`: the
/// step would corrupt the polytope (a horizon that is not one simple loop, a new face the
/// interior point lies beyond, a degenerate face).
fn expand(p: &mut EpaBufs, best: usize, w: SVert, wk: u64, stamp: u32, interior: DVec3) -> Option<()> {
    let EpaBufs {
        verts,
        keys,
        mark,
        faces,
        stack,
        horizon,
        dist,
        heap,
        heaped,
    } = p;
    // Remove the faces visible from w and walk the horizon depth-first from the expanded
    // face's edges (van den Bergen's silhouette): the edges of the live faces met come out in
    // order around the visible region, each as (face, edge of it).
    let wi = verts.len() as u32;
    verts.push(w);
    keys.push(wk);
    mark.push(0);
    faces[best].alive = false;
    dist[best] = f64::INFINITY;
    stack.clear();
    horizon.clear();
    for e in (0..3u8).rev() {
        stack.push((best as u32, e));
    }
    // Each entry: (dead face, edge of it) whose neighbour across the edge is to be examined.
    let mut guard = 0usize;
    while let Some((g, e)) = stack.pop() {
        guard += 1;
        if guard > 4 * faces.len() + 16 {
            return None;
        }
        let nb = faces[g as usize].adj[e as usize] as usize;
        let h = faces.get(nb)?;
        if !h.alive {
            continue;
        }
        // The edge of the neighbour leading back to g.
        let j = if h.adj[0] == g {
            0u8
        } else if h.adj[1] == g {
            1
        } else if h.adj[2] == g {
            2
        } else {
            return None;
        };
        if h.n.dot(w.w - verts[h.v[0] as usize].w) > 0.0 {
            faces[nb].alive = false;
            dist[nb] = f64::INFINITY;
            // Its other two edges, in order after the entry edge.
            stack.push((nb as u32, (j + 2) % 3));
            stack.push((nb as u32, (j + 1) % 3));
        } else {
            horizon.push((nb as u32, j));
        }
    }
    if horizon.len() < 3 {
        return None;
    }
    // The horizon must be one simple loop: consecutive edges chain (each starts where the
    // previous one ends, cyclically) and no vertex starts two edges. A visible region with a
    // hole (a face coplanar with `w` within rounding, common on symmetric shapes) gives
    // two loops; linking them would corrupt the polytope. The test runs in the same pass that
    // fans the new faces: a failed step abandons the whole polytope (every caller discards
    // it on `None`), so faces linked before the failure are never read.
    //
    // New faces, linked to the horizon faces and to each other: face (q, p, w) over the
    // k-th edge has edge 1 (p → w) shared with the next new face's edge 2 (w → p).
    let hn = horizon.len();
    let mut prev = faces[horizon[hn - 1].0 as usize].v[horizon[hn - 1].1 as usize];
    let first_new = faces.len() as u32;
    let last_new = first_new + hn as u32 - 1;
    for &(g, e) in horizon.iter() {
        // Edge e of g runs v[e] → v[e + 1] (the new face over it runs v[e + 1] → v[e] → w);
        // the walk meets the edges against their direction, so each ends where the previous
        // one starts.
        let gf = &faces[g as usize];
        let p = gf.v[e as usize];
        let q = gf.v[NEXT3[e as usize]];
        if q != prev || mark[p as usize] == stamp {
            return None;
        }
        mark[p as usize] = stamp;
        prev = p;
        let mut nf = make_face(verts, q, p, wi)?;
        if nf.n.dot(interior) > nf.d {
            return None;
        }
        let idx = faces.len() as u32;
        nf.adj[0] = g;
        nf.adj[1] = if idx == last_new { first_new } else { idx + 1 };
        nf.adj[2] = if idx == first_new { last_new } else { idx - 1 };
        faces[g as usize].adj[e as usize] = idx;
        dist.push(nf.d);
        if *heaped {
            queue(heap, nf.d, idx);
        }
        faces.push(nf);
    }
    Some(())
}

/// The initial tetrahedron's faces (vertex indices, outward when `det > 0`) and, per edge,
/// the face across it.
const TET_FACES: [([u32; 3], [u32; 3]); 4] = [
    ([0, 2, 1], [3, 2, 1]),
    ([0, 1, 3], [0, 2, 3]),
    ([1, 2, 3], [0, 3, 1]),
    ([0, 3, 2], [1, 2, 0]),
];

/// One EPA run from the tetrahedron `tet` (origin inside or on it). With `warm`, the vertex
/// pairs of the face the pair's last EPA run stopped at are inserted first, each one that
/// lies beyond the polytope by more than `gap` (coherence: between frames of an overlapping
/// pair the nearest face of `M` is usually made of the same vertex pairs, and with it in the
/// polytope the next support confirms it). Every inserted point is a vertex of `M`, so the
/// polytope stays inside `M` and the depth bounds — nearest face ≤ depth ≤ support along its
/// normal — hold as in the cold run. `NEAR`: supports climbed from the expanded face's
/// vertices ([`Ctx::support_near`]; the retry), a separate instance so that the common run's
/// code holds only its own support path.
fn epa_run<const NEAR: bool>(
    ctx: &Ctx,
    cache: &mut GjkCache,
    tet: &[SVert; 4],
    gap: f64,
    warm: bool,
    bufs: &mut EpaBufs,
) -> Option<EpaOut> {
    let mut t = *tet;
    let det = (t[1].w - t[0].w).dot((t[2].w - t[0].w).cross(t[3].w - t[0].w));
    if !(det != 0.0) || !det.is_finite() {
        return None;
    }
    if det < 0.0 {
        t.swap(1, 2);
    }
    for s in t {
        bufs.push_vert(s);
    }
    // The tetrahedron's faces with their neighbours across edges 0 (v0 → v1), 1 (v1 → v2)
    // and 2 (v2 → v0): each edge's reverse belongs to the listed face (checked in tests).
    for ([i, j, k], adj) in TET_FACES {
        let mut f = make_face(&bufs.verts, i, j, k)?;
        f.adj = adj;
        bufs.faces.push(f);
    }
    let mut seed = Simplex::default();
    for s in t {
        seed.push(s);
    }
    let interior = (t[0].w + t[1].w + t[2].w + t[3].w) * 0.25;
    for f in bufs.faces.iter_mut() {
        if f.n.dot(interior) > f.d {
            return None;
        }
    }
    // Face distances apart, +∞ once a face dies: the closest live face is the first least
    // entry of one dense array (a scan over the face records with their liveness flags was a
    // third of EPA's time) while the polytope is small, and the top of a heap by (distance,
    // index) once it has more than `HEAP_FACES` faces: it grows to ~200 faces on deeply
    // overlapping 1 000-vertex pairs, where the scan was a fifth of EPA's instructions
    // (callgrind, `examples/epa_profile.rs`). The heap picks the same face (least distance,
    // ties to the lowest index).
    bufs.dist.clear();
    bufs.dist.extend(bufs.faces.iter().map(|f| f.d));
    bufs.heap.clear();
    bufs.heaped = false;
    let mut stamp = 0u32;
    if warm {
        for k in 0..(cache.epa_len as usize).min(3) {
            let (ia, ib) = cache.epa_face[k];
            let wk = key(ia, ib);
            if !ctx.valid(ia, ib) || bufs.keys.contains(&wk) {
                continue;
            }
            let w = ctx.vert(ia, ib);
            // The live face that sees `w` most (beyond its plane by more than `gap`, as a
            // support must be to expand the cold run), where the horizon walk starts.
            let mut start = (gap, usize::MAX);
            for (i, f) in bufs.faces.iter().enumerate() {
                let beyond = f.n.dot(w.w) - f.d;
                if f.alive && beyond > start.0 {
                    start = (beyond, i);
                }
            }
            if start.1 == usize::MAX {
                continue;
            }
            stamp += 1;
            expand(bufs, start.1, w, wk, stamp, interior)?;
        }
    }
    let mut iters = 0u32;
    loop {
        iters += 1;
        // Closest live face (the first attaining the least distance; none when all died).
        if !bufs.heaped && bufs.faces.len() > HEAP_FACES {
            start_heap(bufs);
        }
        let best = if bufs.heaped {
            nearest_live(&mut bufs.heap, &bufs.faces)?
        } else {
            first_least(&bufs.dist)?
        };
        let f = bufs.faces[best];
        // The polytope contains the origin (it grows from a tetrahedron around it), so every
        // face plane has the origin on its inner side: a face beyond that (by more than
        // rounding) means the incremental hull was corrupted by a near-degenerate step.
        if f.d < -gap {
            return None;
        }
        let w = if NEAR {
            let near = [
                bufs.verts[f.v[0] as usize],
                bufs.verts[f.v[1] as usize],
                bufs.verts[f.v[2] as usize],
            ];
            ctx.support_near(f.n, &near, cache)
        } else {
            ctx.support(f.n, cache)
        };
        let upper = f.n.dot(w.w);
        let wk = key(w.ia, w.ib);
        let repeated = bufs.keys.contains(&wk);
        if repeated && upper - f.d > ACCEPT_GAP_REL * ctx.scale {
            // A vertex of the polytope beyond its own nearest face: the polytope is not convex
            // (a near-degenerate step corrupted it; seen on concentric reflected tetrahedra in
            // rotated frames, where EPA stopped at a face 0.06 short of the true depth).
            return None;
        }
        let done = upper - f.d <= gap || repeated || iters >= ctx.max_iter;
        if done {
            if iters >= ctx.max_iter && upper - f.d > ACCEPT_GAP_REL * ctx.scale {
                return None;
            }
            // Points from the face whose foot point lies inside it: with coplanar triangles
            // of `M`'s nearest face, the least-distance triangle may not hold the foot.
            let mut pick = (face_bary(&bufs.verts, &f), f);
            if pick.0.iter().any(|l| *l < 0.0) {
                pick = foot_face(bufs, pick, f.d + gap);
            }
            let (raw, g) = pick;
            let (a, b, c) = (
                bufs.verts[g.v[0] as usize],
                bufs.verts[g.v[1] as usize],
                bufs.verts[g.v[2] as usize],
            );
            let (l0, l1, l2) = (raw[0].max(0.0), raw[1].max(0.0), raw[2].max(0.0));
            let s = l0 + l1 + l2;
            let (l0, l1, l2) = if s > 0.0 {
                (l0 / s, l1 / s, l2 / s)
            } else {
                (1.0, 0.0, 0.0)
            };
            return Some(EpaOut {
                depth: f.d.max(0.0),
                normal: f.n,
                pa: ctx.pa(&a) * l0 + ctx.pa(&b) * l1 + ctx.pa(&c) * l2,
                pb: ctx.pb(&a) * l0 + ctx.pb(&b) * l1 + ctx.pb(&c) * l2,
                seed,
                iters,
                face: [(a.ia, a.ib), (b.ia, b.ib), (c.ia, c.ib)],
            });
        }
        stamp += 1;
        expand(bufs, best, w, wk, stamp, interior)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::math::{DQuat, Pose};
    use crate::gjk::simplex::{gjk_core, Core};
    use crate::shape::shapes;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The incremental EPA answers generic overlaps by itself: its fallbacks (the retry, the
    /// hull rebuilds) are for symmetric shapes and give the same depth much more slowly, so
    /// the answers alone would not show a broken fast path. Random overlapping pairs of
    /// generic hulls, cold and then warm (the face of the previous answer inserted first).
    #[test]
    fn incremental_epa_succeeds_on_generic_overlaps() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let list = [
            shapes::ellipsoid(20, 1.0, 0.7, 0.5, 1).unwrap(),
            shapes::ellipsoid(64, 1.0, 0.6, 0.5, 2).unwrap(),
            shapes::ellipsoid(300, 1.0, 0.9, 0.8, 3).unwrap(),
        ];
        let (mut runs, mut failed) = (0, 0);
        for i in 0..600 {
            let a = &list[i % 3];
            let b = &list[(i / 3) % 3];
            let pa = Pose::new(shapes::random_rotation(&mut rng), DVec3::ZERO);
            let dir = shapes::unit_vector(&mut rng);
            let pb0 = Pose::new(shapes::random_rotation(&mut rng), dir * rng.random_range(0.0..1.2));
            let mut cache = GjkCache::default();
            for step in 0..3 {
                let turn = DQuat::from_axis_angle(dir, 0.02 * step as f64);
                let pb = Pose::new(turn * pb0.rotation, pb0.translation + DVec3::X * 0.01 * step as f64);
                let ctx = Ctx::new(a, &pa, b, &pb);
                let Core::Enclosed { sim, .. } = gjk_core(&ctx, &mut cache, false) else {
                    continue;
                };
                let tet = blow_up(&ctx, &mut cache, &sim).unwrap();
                let gap = DISTANCE_GAP_REL * ctx.scale;
                let mut bufs = EpaBufs::default();
                let warm = cache.epa_len == 3;
                let out = epa_run::<false>(&ctx, &mut cache, &tet, gap, warm, &mut bufs);
                runs += 1;
                match out {
                    Some(e) => {
                        cache.epa_face = e.face;
                        cache.epa_len = 3;
                    }
                    None => failed += 1,
                }
            }
        }
        assert!(runs > 800, "{runs} runs");
        assert!(failed * 200 <= runs, "{failed} of {runs} incremental EPA runs failed");
    }

    /// The heap picks the face the scan picks: the least distance, ties (−0.0 = 0.0 included)
    /// to the lowest index, dead faces and faces at +∞ or NaN never. Random grow-and-kill
    /// sequences over a few distinct values (ties everywhere), checked at every step against
    /// [`first_least`] on the dense array.
    #[test]
    fn heap_picks_the_scans_face() {
        let mut rng = ChaCha8Rng::seed_from_u64(25);
        let values = [
            -0.0,
            0.0,
            1.0,
            1.0 + f64::EPSILON,
            2.0,
            -1e-300,
            f64::INFINITY,
            f64::NAN,
        ];
        let mut checks = 0;
        for _ in 0..2_000 {
            let mut faces: Vec<EpaFace> = Vec::new();
            let mut dist: Vec<f64> = Vec::new();
            let mut heap = BinaryHeap::new();
            for _ in 0..rng.random_range(1..120) {
                for _ in 0..rng.random_range(1..6) {
                    let d = values[rng.random_range(0..values.len())];
                    let i = faces.len() as u32;
                    faces.push(EpaFace {
                        d,
                        alive: true,
                        ..EpaFace::default()
                    });
                    dist.push(d);
                    queue(&mut heap, d, i);
                }
                for _ in 0..rng.random_range(0..3) {
                    let k = rng.random_range(0..faces.len());
                    faces[k].alive = false;
                    dist[k] = f64::INFINITY;
                }
                assert_eq!(nearest_live(&mut heap, &faces), first_least(&dist));
                checks += 1;
            }
        }
        assert!(checks > 50_000, "{checks} checks");
    }

    /// The initial tetrahedron's face table: every edge's reverse lies in the listed face.
    #[test]
    fn tetrahedron_face_table_is_consistent() {
        for (f, (v, adj)) in TET_FACES.iter().enumerate() {
            for e in 0..3 {
                let (p, q) = (v[e], v[NEXT3[e]]);
                let g = adj[e] as usize;
                assert_ne!(g, f);
                let w = TET_FACES[g].0;
                assert!((0..3).any(|k| w[k] == q && w[NEXT3[k]] == p), "face {f} edge {e}");
            }
        }
    }
}
