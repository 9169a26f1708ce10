//! Exact directional penetration depth and first contact of two non-convex closed solids.
//!
//! Question: B is translated by `t · d` (`d` the unit direction). For which `t` do the solids
//! touch without overlapping? [`directional`] answers both senses: the least such `t ≥ 0`
//! ([`MeshDirectional::forward`]) and the greatest such `t ≤ 0`
//! ([`MeshDirectional::backward`]); [`MeshDirectional::nearest`] is the one of least `|t|`,
//! the convex query's answer ([`crate::query::directional`]: 0 when touching, first contact
//! when apart, the shorter escape when overlapping).
//!
//! Paper: the convex primitive is the directional query of CD-Dual (papers, CD-Dual §6: the
//! line `t·d` against the Minkowski difference `M = P − Q` of two convex pieces); the
//! reduction of non-convex solids to their convex surface pieces is this module's own (issue
//! 23, item 2).
//!
//! # Outline
//! 1. *Chords.* Each pair of convex pieces (P of A, Q of B, their hulls inside the solids and
//!    covering the surfaces, see [`crate::mesh`]) overlaps exactly for `t` in the open chord
//!    `(lo, hi)` of the line `{t·d}` through `M = P − Q`, when the line passes through `M`'s
//!    interior; when it only grazes `M` (lies in a face plane of `M`) the pair touches on
//!    `[lo, hi]` and never overlaps. Both ends come from the two GJK ray casts of the convex
//!    directional query ([`gjk::chord`]: from far before and far beyond `M` along the line),
//!    the grazing case from one boolean test at the chord's middle. A pair whose line misses
//!    `M` but whose hulls touch at `t = 0` within the contact tolerance (B sliding past A) is
//!    a touch at 0, as the convex query's settling says.
//! 2. *Traversal.* The pairs come from the two hull trees: a node pair is dropped when the
//!    line misses the sum of the nodes' bounding spheres, or when the convex directional query
//!    of the two node hulls says `Never` (a node's hull holds its children's, so its `M`
//!    holds theirs, and `Never` means no chord and no contact at `t = 0`). The larger node
//!    (bounding radius) is split first.
//! 3. *Merging.* The overlapping chords, shrunk by the contact tolerance `τ` at both ends
//!    (an overlap of at most `τ` along the line is a touch, as for convex pairs), are sorted
//!    and merged into *runs*. Between two runs lies a *gap*, on whose `t` no pair of pieces
//!    overlaps; containment of one solid in the other cannot change there (it would need the
//!    surfaces to cross), so one containment test at the gap's middle decides the whole gap:
//!    a vertex of each shell of B against A and of each shell of A against B, each by an exact
//!    ray-crossing count (`mesh::nest::winding_at`, exact `orient3d` signs). The two unbounded
//!    gaps are free (far along the line the solids are apart).
//! 4. *Answer.* If `t = 0` is free: touching at 0 when some chord (overlapping or grazing)
//!    holds 0 within `τ` (then both senses are 0), else the first chord end beyond 0 in each
//!    sense (first contact; containment cannot appear before it). If `t = 0` overlaps (in a
//!    run, or in a gap that is a containment): the first run end in each sense after which
//!    the gap is free. The touching pieces are the chord's; the triangles are the nearest
//!    ones of those pieces to the pieces' closest points at that `t`.
//!
//! # Accuracy
//! Each chord end is a GJK ray-cast hit, the same computation as the convex
//! [`crate::query::directional`]'s (casts start at `2(|c_P − c_Q| + r_P + r_Q) + scale`
//! before and beyond the pair, bounding spheres): one-piece meshes agree with the convex query
//! on the same shapes within `1e-12 × scale` (tested: worst 3e-15). Coordinates outside the
//! safe band (`SAFE_MAGNITUDE_MIN..SAFE_MAGNITUDE_MAX`) go through the dispatcher instead,
//! which rescales exactly: each end is then one convex directional answer with B shifted by
//! `∓K` along the line, `K` beyond the chord's reach (the shifted chord lies on one side of 0,
//! so the answer, its end of least magnitude, is that end), accurate to a few ulps of `K`.
//! The pieces lie inside the solids within [`CCD_PIECE_REL`] × scale (their construction),
//! which bounds how far a piece overlap can differ from a solid overlap.
//!
//! # Invariants
//! - A run is a maximal union of shrunk overlapping chords; every `t` strictly inside a run
//!   overlaps by more than `τ` along the line for some pair.
//! - A gap's containment state is computed at most once per query and only for gaps the walk
//!   reaches.
//!
//! # Termination
//! The traversal visits each node pair at most once (pairs are pushed only as children of a
//! popped pair), so at most `nodes(A) × nodes(B)` steps; the walks visit each run at most
//! once; each containment test casts at most 8 rays ([`winding_at`]) per tried vertex, and
//! tries each shell's first vertex and its neighbours only.
//!
//! # Departures
//! - CD-Dual §6 answers one convex pair and one end, by its dual search; here both ends of
//!   every piece pair's chord come from GJK's two ray casts (an order of magnitude faster than
//!   two CD-Dual searches, the convex dispatcher's own choice for `directional`).
//! - All chords along the line are collected, not only those near the answer: the cost is
//!   proportional to the piece pairs the line passes through (about 1 000–2 000 of 26 000 on
//!   two tangled 1 024/576-triangle knots; timings in BENCHMARKS.md).
//! - A shell whose tried vertices all lie on the other solid's surface (a zero-width gap
//!   where every vertex tested touches) counts as not contained.
//!
//! [`CCD_PIECE_REL`]: crate::core::tolerance::CCD_PIECE_REL

use super::nest::{winding_at, Winding};
use super::probe::mesh_box;
use super::trimesh::TriMesh;
use crate::contract::{checked_pose, pose_ok};
use crate::core::error::PolycdError;
use crate::core::geometry::closest_on_triangle;
use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::{SAFE_MAGNITUDE_MAX, SAFE_MAGNITUDE_MIN};
use crate::gjk::{self, RayChord};
use crate::query::{self, contact_tolerance, Algorithm, Directional, Distance, Intersection, PairCache};
use crate::shape::polyhedron::ConvexPolyhedron;

/// Where the solids touch after translating B by `t · direction`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshTouch {
    /// The signed translation length along the (unit) direction.
    pub t: f64,
    /// The touching pieces (of A, of B) — indices into [`TriMesh::pieces`].
    pub pieces: (u32, u32),
    /// Triangles of those pieces (of A, of B; indices into [`TriMesh::triangles`]) nearest to
    /// the pieces' closest points at `t`.
    pub triangles: (u32, u32),
}

/// Answer of [`directional`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshDirectional {
    /// Least `t ≥ 0` at which the solids touch without overlapping (0 when they touch now),
    /// or `None` when no such `t` exists (they are apart now and never meet along `+d`).
    pub forward: Option<MeshTouch>,
    /// Greatest `t ≤ 0` at which the solids touch without overlapping (0 when they touch
    /// now), or `None` when no such `t` exists.
    pub backward: Option<MeshTouch>,
    /// The solids overlap (by more than the contact tolerance) at `t = 0`.
    pub overlapping: bool,
}

impl MeshDirectional {
    /// The answer of least `|t|` (the forward one on a tie), as the convex
    /// [`crate::query::directional`] reports it; `None` when the solids never touch along the
    /// line.
    pub fn nearest(&self) -> Option<MeshTouch> {
        match (self.forward, self.backward) {
            (Some(f), Some(b)) => Some(if f.t <= -b.t { f } else { b }),
            (f, b) => f.or(b),
        }
    }
}

/// One piece pair's chord: the pair overlaps for `t` in `(lo, hi)` when `overlap`, else it
/// only touches on `[lo, hi]`.
#[derive(Clone, Copy, Debug)]
struct Chord {
    lo: f64,
    hi: f64,
    overlap: bool,
    /// The pair touches at `t = 0` (boolean test) though 0 is no chord end.
    touch0: bool,
    pieces: (u32, u32),
}

/// A maximal union of overlapping chords (shrunk by the contact tolerance).
#[derive(Clone, Copy, Debug)]
struct Run {
    lo: f64,
    lo_chord: u32,
    hi: f64,
    hi_chord: u32,
    /// The gap after this run holds one solid inside the other (`None`: not asked yet).
    contained_after: Option<bool>,
}

/// Scratch buffers of [`directional_with_cache`], reused by the next query (no allocation
/// once warm).
#[derive(Debug, Default)]
pub struct MeshDirectionalCache {
    chords: Vec<Chord>,
    runs: Vec<Run>,
    stack: Vec<(u32, u32)>,
    pair: PairCache,
}

impl MeshDirectionalCache {
    /// Drops what the last query left: the buffers' contents (their capacity is kept) and the
    /// convex pair cache's warm start, as [`PairCache::forget`] does.
    pub fn forget(&mut self) {
        self.chords.clear();
        self.runs.clear();
        self.stack.clear();
        self.pair.forget();
    }
}

/// The directional answer for two closed non-convex solids: B translated by `t · direction`
/// (world frame, any finite non-zero length, normalised). See the module header.
pub fn directional(
    a: &TriMesh,
    pose_a: &Pose,
    b: &TriMesh,
    pose_b: &Pose,
    direction: DVec3,
) -> Result<MeshDirectional, PolycdError> {
    directional_with_cache(a, pose_a, b, pose_b, direction, &mut MeshDirectionalCache::default())
}

/// [`directional`] with the caller's scratch buffers.
pub fn directional_with_cache(
    a: &TriMesh,
    pose_a: &Pose,
    b: &TriMesh,
    pose_b: &Pose,
    direction: DVec3,
    cache: &mut MeshDirectionalCache,
) -> Result<MeshDirectional, PolycdError> {
    let (sa, sb);
    let pose_a = if pose_ok(pose_a) {
        pose_a
    } else {
        sa = checked_pose(pose_a)?;
        &sa
    };
    let pose_b = if pose_ok(pose_b) {
        pose_b
    } else {
        sb = checked_pose(pose_b)?;
        &sb
    };
    let m = direction.abs().max_element();
    if !direction.is_finite() || !(m > 0.0) {
        return Err(PolycdError::BadDirection);
    }
    let scaled = direction / m;
    let s = scaled / scaled.length();
    let root_a = a.nodes[a.root as usize].hull()?;
    let root_b = b.nodes[b.root as usize].hull()?;
    let tol = contact_tolerance(root_a, pose_a, root_b, pose_b);
    // GJK directly inside the safe coordinate band; the dispatcher (which rescales) outside.
    let magnitude =
        |m: &TriMesh, p: &Pose| m.box_centre.abs().max_element() + m.scale + p.translation.abs().max_element();
    let big = magnitude(a, pose_a).max(magnitude(b, pose_b));
    let small = a.scale.min(b.scale);
    let direct = big <= SAFE_MAGNITUDE_MAX && small >= SAFE_MAGNITUDE_MIN;
    let ctx = Ctx {
        a,
        pose_a,
        b,
        pose_b,
        s,
        tol,
        direct,
    };
    cache.chords.clear();
    cache.runs.clear();
    collect(&ctx, cache)?;
    merge(tol, &mut cache.chords, &mut cache.runs);
    answer(&ctx, cache)
}

/// The query's fixed inputs.
struct Ctx<'a> {
    a: &'a TriMesh,
    pose_a: &'a Pose,
    b: &'a TriMesh,
    pose_b: &'a Pose,
    s: DVec3,
    tol: f64,
    /// Ask GJK directly (coordinates in the safe band), else the dispatcher.
    direct: bool,
}

impl Ctx<'_> {
    /// B's pose translated by `t · s`.
    fn pose_b_at(&self, t: f64) -> Pose {
        Pose::new(self.pose_b.rotation, self.pose_b.translation + self.s * t)
    }

    /// A node's bounding sphere in the world frame.
    fn sphere(&self, a_side: bool, i: u32) -> (DVec3, f64) {
        let (m, p) = if a_side {
            (self.a, self.pose_a)
        } else {
            (self.b, self.pose_b)
        };
        let (c, r) = m.nodes[i as usize].bounding_sphere();
        (p.transform_point(c), r)
    }

    /// The chord `[lo, hi]` of the line through `P − Q` (B at `pose_b`), `None` when the line
    /// misses it. `reach`: beyond it (in `|t|`) the chord cannot lie.
    fn cast(
        &self,
        pair: &mut PairCache,
        p: &ConvexPolyhedron,
        q: &ConvexPolyhedron,
        pose_b: &Pose,
        reach: f64,
    ) -> Result<Option<(f64, f64)>, PolycdError> {
        let pa = self.pose_a;
        if self.direct {
            return match gjk::chord(p, pa, q, pose_b, self.s, &mut pair.gjk)? {
                RayChord::Hit { lo, hi, .. } => Ok(Some((lo, hi.max(lo)))),
                RayChord::Miss { .. } => Ok(None),
                RayChord::NotConverged { iterations } => Err(PolycdError::NotConverged {
                    query: "directional",
                    iterations,
                }),
            };
        }
        // Each end by the dispatcher's directional query with B shifted by ∓K along the line:
        // the shifted chord lies on one side of 0, so its end of least magnitude is that end.
        let k = 2.0 * reach;
        let shifted = |t: f64| Pose::new(pose_b.rotation, pose_b.translation + self.s * t);
        let lo = convex_t(query::directional(
            p,
            pa,
            q,
            &shifted(-k),
            self.s,
            Algorithm::Auto,
            pair,
        )?)?;
        let hi = convex_t(query::directional(
            p,
            pa,
            q,
            &shifted(k),
            self.s,
            Algorithm::Auto,
            pair,
        )?)?;
        Ok(match (lo, hi) {
            (Some(lo), Some(hi)) if lo - k <= hi + k => Some((lo - k, hi + k)),
            _ => None,
        })
    }

    /// The boolean test of `P` and `Q` (B at `pose_b`).
    fn meets(
        &self,
        pair: &mut PairCache,
        p: &ConvexPolyhedron,
        q: &ConvexPolyhedron,
        pose_b: &Pose,
    ) -> Result<Intersection, PolycdError> {
        let r = if self.direct {
            gjk::intersect(p, self.pose_a, q, pose_b, &mut pair.gjk)?
        } else {
            query::intersect(p, self.pose_a, q, pose_b, Algorithm::Auto, pair)?
        };
        match r {
            Intersection::NotConverged { iterations } => Err(PolycdError::NotConverged {
                query: "directional",
                iterations,
            }),
            r => Ok(r),
        }
    }
}

/// The convex directional answer's `t`, `None` for `Never`; non-convergence is an error.
fn convex_t(r: Directional) -> Result<Option<f64>, PolycdError> {
    match r {
        Directional::Contact { t, .. } => Ok(Some(t)),
        Directional::Never { .. } => Ok(None),
        Directional::NotConverged { iterations } => Err(PolycdError::NotConverged {
            query: "directional",
            iterations,
        }),
    }
}

/// Traverses the two hull trees and fills `cache.chords` with every piece pair whose chord
/// exists or which touches at `t = 0`.
fn collect(ctx: &Ctx<'_>, cache: &mut MeshDirectionalCache) -> Result<(), PolycdError> {
    let (a, b) = (ctx.a, ctx.b);
    cache.stack.clear();
    cache.stack.push((a.root, b.root));
    let bound = a.nodes.len().saturating_mul(b.nodes.len());
    let mut steps = 0usize;
    while let Some((i, j)) = cache.stack.pop() {
        steps += 1;
        if steps > bound {
            // Unreachable: each node pair is pushed once, by its parent pair.
            break;
        }
        let (ca, ra) = ctx.sphere(true, i);
        let (cb, rb) = ctx.sphere(false, j);
        let w = ca - cb;
        let perp = w - ctx.s * w.dot(ctx.s);
        if perp.length() > ra + rb + ctx.tol {
            continue;
        }
        // The spheres meet at t = 0: a pair there may touch within the contact tolerance
        // with the line missing its M (B sliding past A).
        let near0 = w.length() <= ra + rb + ctx.tol;
        let (na, nb) = (&a.nodes[i as usize], &b.nodes[j as usize]);
        let reach = w.length() + ra + rb + ctx.tol;
        match (na.children, nb.children) {
            (None, None) => {
                if let Some(c) = chord(ctx, &mut cache.pair, i, j, near0, reach)? {
                    cache.chords.push(c);
                }
            }
            (ca_children, cb_children) => {
                // Pruned when the line misses the nodes' M and they do not touch at t = 0.
                let misses = ctx
                    .cast(&mut cache.pair, na.hull()?, nb.hull()?, ctx.pose_b, reach)?
                    .is_none();
                if misses
                    && (!near0
                        || matches!(
                            ctx.meets(&mut cache.pair, na.hull()?, nb.hull()?, ctx.pose_b)?,
                            Intersection::Disjoint { .. }
                        ))
                {
                    continue;
                }
                let split_a = match (ca_children, cb_children) {
                    (Some(_), None) => true,
                    (None, Some(_)) => false,
                    _ => ra >= rb,
                };
                if split_a {
                    let (x, y) = ca_children.unwrap_or((i, i));
                    cache.stack.push((y, j));
                    cache.stack.push((x, j));
                } else {
                    let (x, y) = cb_children.unwrap_or((j, j));
                    cache.stack.push((i, y));
                    cache.stack.push((i, x));
                }
            }
        }
    }
    Ok(())
}

/// The chord of the leaf pair `(i, j)` (`near0`: their spheres meet at `t = 0`; `reach`:
/// beyond it in `|t|` the chord cannot lie).
fn chord(
    ctx: &Ctx<'_>,
    pair: &mut PairCache,
    i: u32,
    j: u32,
    near0: bool,
    reach: f64,
) -> Result<Option<Chord>, PolycdError> {
    let (p, q) = (ctx.a.nodes[i as usize].hull()?, ctx.b.nodes[j as usize].hull()?);
    let pieces = (ctx.a.nodes[i as usize].piece, ctx.b.nodes[j as usize].piece);
    let tol = ctx.tol;
    let ends = ctx.cast(pair, p, q, ctx.pose_b, reach)?;
    // Touching at t = 0 though 0 is no chord end within the tolerance (the line grazes M, or
    // runs nearly parallel to the contact plane): the boolean test decides, as the convex
    // query's settling does.
    let holds0 = ends.is_some_and(|(lo, hi)| lo - tol <= 0.0 && 0.0 <= hi + tol);
    let touch0 = near0 && !holds0 && !matches!(ctx.meets(pair, p, q, ctx.pose_b)?, Intersection::Disjoint { .. });
    let Some((lo, hi)) = ends else {
        return Ok(touch0.then_some(Chord {
            lo: 0.0,
            hi: 0.0,
            overlap: false,
            touch0,
            pieces,
        }));
    };
    // An overlap needs the line through M's interior: not a chord within the tolerance, and
    // not a line lying in a face of M (B sliding along A), which the middle tells.
    let overlap = hi - lo > 2.0 * tol
        && matches!(
            ctx.meets(pair, p, q, &ctx.pose_b_at(0.5 * (lo + hi)))?,
            Intersection::Overlapping { .. }
        );
    Ok(Some(Chord {
        lo,
        hi,
        overlap,
        touch0,
        pieces,
    }))
}

/// Sorts the chords (overlapping ones first, by `lo`) and merges the overlapping ones, shrunk
/// by `tol` at both ends, into runs.
fn merge(tol: f64, chords: &mut [Chord], runs: &mut Vec<Run>) {
    chords.sort_unstable_by(|x, y| y.overlap.cmp(&x.overlap).then(x.lo.total_cmp(&y.lo)));
    for (k, c) in chords.iter().enumerate().take_while(|(_, c)| c.overlap) {
        match runs.last_mut() {
            // Shrunk: (c.lo + tol, c.hi − tol) meets (run.lo + tol, run.hi − tol).
            Some(run) if c.lo + tol < run.hi - tol => {
                if c.hi > run.hi {
                    run.hi = c.hi;
                    run.hi_chord = k as u32;
                }
            }
            _ => runs.push(Run {
                lo: c.lo,
                lo_chord: k as u32,
                hi: c.hi,
                hi_chord: k as u32,
                contained_after: None,
            }),
        }
    }
}

/// Walks the runs from `t = 0` in both senses.
fn answer(ctx: &Ctx<'_>, cache: &mut MeshDirectionalCache) -> Result<MeshDirectional, PolycdError> {
    let tol = ctx.tol;
    let n = cache.runs.len();
    // Runs wholly below 0 (their shrunk end ≤ 0): 0 lies in run `g` or in the gap before it.
    let g = cache.runs.iter().take_while(|r| r.hi - tol <= 0.0).count();
    let in_run = g < n && cache.runs[g].lo + tol < 0.0;
    let overlapping = in_run || (g > 0 && g < n && contained_after(ctx, cache, g - 1));
    if !overlapping {
        // Free at 0: touching there, or first contact in each sense.
        let chords = &cache.chords;
        if let Some(c) = chords
            .iter()
            .find(|c| c.touch0 || (c.lo - tol <= 0.0 && 0.0 <= c.hi + tol))
        {
            let touch = touch_at(ctx, &mut cache.pair, c.pieces, 0.0)?;
            return Ok(MeshDirectional {
                forward: Some(touch),
                backward: Some(touch),
                overlapping: false,
            });
        }
        let first = chords
            .iter()
            .filter(|c| c.lo > 0.0)
            .min_by(|x, y| x.lo.total_cmp(&y.lo))
            .copied();
        let last = chords
            .iter()
            .filter(|c| c.hi < 0.0)
            .max_by(|x, y| x.hi.total_cmp(&y.hi))
            .copied();
        let forward = match first {
            Some(c) => Some(touch_at(ctx, &mut cache.pair, c.pieces, c.lo)?),
            None => None,
        };
        let backward = match last {
            Some(c) => Some(touch_at(ctx, &mut cache.pair, c.pieces, c.hi)?),
            None => None,
        };
        return Ok(MeshDirectional {
            forward,
            backward,
            overlapping: false,
        });
    }
    // Overlapping at 0. Forward: from run g (0 inside it, or in the contained gap before it),
    // the first run whose following gap is free.
    let mut f = g;
    while f + 1 < n && contained_after(ctx, cache, f) {
        f += 1;
    }
    // Backward: from the run holding 0 (g) or the run before the contained gap (g − 1).
    let mut k = if in_run { g } else { g - 1 };
    while k > 0 && contained_after(ctx, cache, k - 1) {
        k -= 1;
    }
    let (fr, br) = (cache.runs[f], cache.runs[k]);
    let (fc, bc) = (cache.chords[fr.hi_chord as usize], cache.chords[br.lo_chord as usize]);
    Ok(MeshDirectional {
        forward: Some(touch_at(ctx, &mut cache.pair, fc.pieces, fr.hi)?),
        backward: Some(touch_at(ctx, &mut cache.pair, bc.pieces, br.lo)?),
        overlapping: true,
    })
}

/// Whether one solid contains the other in the gap after run `k` (memoised in the run).
fn contained_after(ctx: &Ctx<'_>, cache: &mut MeshDirectionalCache, k: usize) -> bool {
    if let Some(c) = cache.runs[k].contained_after {
        return c;
    }
    let m = 0.5 * (cache.runs[k].hi + cache.runs[k + 1].lo);
    let pose_b = ctx.pose_b_at(m);
    let c = shells_inside(ctx.b, &pose_b, ctx.a, ctx.pose_a) || shells_inside(ctx.a, ctx.pose_a, ctx.b, &pose_b);
    cache.runs[k].contained_after = Some(c);
    c
}

/// Some shell of `inner` (at `pose_in`) has a tried vertex strictly inside `outer` (at
/// `pose_out`): its first vertex, else (on `outer`'s surface) its neighbours.
fn shells_inside(inner: &TriMesh, pose_in: &Pose, outer: &TriMesh, pose_out: &Pose) -> bool {
    let to_outer = |v: u32| pose_out.inverse_transform_point(pose_in.transform_point(inner.vertices[v as usize]));
    for &v in &inner.component_vertices {
        match point_in_solid(outer, to_outer(v)) {
            Some(inside) => {
                if inside {
                    return true;
                }
            }
            None => {
                // On the surface: the vertex's neighbours (same shell) decide.
                let decided = inner
                    .triangles
                    .iter()
                    .filter(|t| t.contains(&v))
                    .flat_map(|t| t.iter().copied())
                    .filter(|&u| u != v)
                    .find_map(|u| point_in_solid(outer, to_outer(u)));
                if decided == Some(true) {
                    return true;
                }
            }
        }
    }
    false
}

/// Exact point-in-solid test (mesh frame): the winding number of the mesh about `p`
/// ([`winding_at`]: signed ray crossings by exact `orient3d` signs, the test `mesh::probe`'s
/// point query uses). `Some(inside)`, or `None` when `p` lies on the surface or every ray
/// grazes an edge or a vertex.
fn point_in_solid(mesh: &TriMesh, p: DVec3) -> Option<bool> {
    let all = 0..mesh.triangles.len() as u32;
    match winding_at(&mesh.vertices, &mesh.triangles, all, p, mesh_box(mesh)) {
        Winding::Count(w) => Some(w != 0),
        Winding::On(_) | Winding::Grazing => None,
    }
}

/// The touch of the pieces `pieces` at `t`: their nearest triangles to the pieces' closest
/// points (a common point when they touch within rounding).
fn touch_at(ctx: &Ctx<'_>, pair: &mut PairCache, pieces: (u32, u32), t: f64) -> Result<MeshTouch, PolycdError> {
    let (p, q) = (
        ctx.a.nodes[pieces.0 as usize].hull()?,
        ctx.b.nodes[pieces.1 as usize].hull()?,
    );
    let pose_b = ctx.pose_b_at(t);
    let (xa, xb) = match query::distance(p, ctx.pose_a, q, &pose_b, Algorithm::Auto, pair)? {
        Distance::Separated { point_a, point_b, .. } => (point_a, point_b),
        _ => match query::intersect(p, ctx.pose_a, q, &pose_b, Algorithm::Auto, pair)? {
            Intersection::Touching { point, .. } => (point, point),
            _ => {
                let c = 0.5
                    * (ctx.pose_a.transform_point(p.bounding_sphere().0)
                        + pose_b.transform_point(q.bounding_sphere().0));
                (c, c)
            }
        },
    };
    Ok(MeshTouch {
        t,
        pieces,
        triangles: (
            nearest_triangle(ctx.a, pieces.0, ctx.pose_a.inverse_transform_point(xa)),
            nearest_triangle(ctx.b, pieces.1, pose_b.inverse_transform_point(xb)),
        ),
    })
}

/// The triangle of `piece` nearest to `x` (mesh frame).
fn nearest_triangle(mesh: &TriMesh, piece: u32, x: DVec3) -> u32 {
    let mut best = (f64::INFINITY, 0u32);
    for &t in &mesh.pieces[piece as usize] {
        let [u, v, w] = mesh.triangles[t as usize].map(|i| mesh.vertices[i as usize]);
        let d = (closest_on_triangle(x, u, v, w) - x).length_squared();
        if d < best.0 {
            best = (d, t);
        }
    }
    best.1
}
