//! HS-jump's closest features: the separating-vector search kept climbing past the first
//! separating plane (issue 24 item 3).
//!
//! The paper (§1) says a pair of closest features "can also be computed with little extra
//! computation within the framework of HS-jump" but not how. For a unit vector `v`, the
//! separation of the pair along `v` is `m(v) = min_B v·b − max_A v·a = min_{d ∈ B−A} v·d`;
//! a separating vector is one with `m(v) > 0` (Theorem 1), and the largest `m` over unit `v`
//! is the distance, reached at the distance direction (the minimum-norm point of `B − A`,
//! normalised). The search's constraints are the supporting pair vectors `d_j = q_j − p_j` it
//! has found; over them, the best separation `max_{|v|=1} min_j v·d_j` is the norm of the
//! minimum-norm point `w` of `conv{d_j}` (for a positive value: the two are the dual pair of
//! a convex program), reached at `v = w/|w|`. So the climb, from the boolean query's
//! separating vector and its supporting pair:
//!
//! 1. `W` = the pair vectors kept (at most 3: the minimum-norm point of a polytope that does
//!    not contain the origin lies on a face of at most 3 of its points), `w` = the
//!    minimum-norm point of `conv W` (every non-empty subset projected, the least of those whose
//!    projection lies inside it), `W` cut down to the points `w` uses.
//! 2. The supporting pair of `v = w` (the search's own support step: max of A, min of B).
//!    It lowers `m` to `ŵ·d`; when `|w| − ŵ·d` (upper minus lower bound of the distance) is
//!    within `DISTANCE_GAP_REL` × the pair's scale, or the pair is in `W` already, `w` is the
//!    minimum-norm point of `B − A`: stop. Otherwise add it (step 1).
//!
//! Each step either stops or strictly lowers `|w|` over a finite set of pairs, so the loop
//! ends; it is bounded by `2·|V(A)|·|V(B)|` steps like the boolean search, with a stop when
//! `|w|` does not decrease (rounding). This is the classical minimum-norm-point iteration
//! (Gilbert's; the distance form of GJK) run on HS-jump's support pairs; what HS-jump adds is
//! the start, a separating vector whose supporting pair is already known. The answer's
//! features are the vertex sets of A and B in `W` (1 vertex: a vertex; 2: their edge; 3: a
//! face holding all three), its points `Σλ_j p_j` and `Σλ_j q_j`.
//!
//! 3. Certify (`certify`): the answer's points give an upper bound `U` of the distance, the
//!    best separation met along the climb's directions a lower bound `L`. When `U − L ≤
//!    ACCEPT_GAP_REL × scale` the answer stands; else the answer's features' directions (a
//!    face normal, two edges' cross product: exact to rounding, unlike `w`) are tried for a
//!    better `L`. Otherwise (near-parallel faces near contact:
//!    `w`, a difference of points far longer than it, carries more rounding in its direction
//!    than the face's vertex ties it must resolve, and the climb stops up to 4e-11 × scale
//!    high) the gap bounds the angle to the distance direction (`|û − n*|² ≤ 2(1 − L/U)`),
//!    hence which vertices can carry the closest features: a cap of each shape around the
//!    supporting pair, at most `CAP_LIMIT` vertices. Every feature pair of the caps is
//!    measured on the points (vertex–vertex, vertex–edge, vertex–face, edge–edge); the least
//!    is the distance to rounding.
//!
//!    When no positive `L` is known or a cap is wider than `CAP_LIMIT` (the gap large against
//!    the distance: the directions' rounding `ε·|A|/d` near contact), a local descent instead
//!    (`descend`): the closest points between the faces around the answer's features, repeated
//!    while the distance strictly falls (at most one round per feature pair); its stopping
//!    pair must pass the closest-pair condition (`locally_closest`), else the answer is
//!    `NotConverged` (the query layer then measures the pair by GJK).
//!
//! The answer's features always carry its points: a climb whose vertices span no feature of a
//! shape (a sliver of far-apart vertices of a nearly flat, finely tessellated hull near
//! contact: its point lies inside the shape) starts the search from a vertex pair instead.
//!
//! Accuracy: against `oracle::signed_distance` within 1e-12 × the pair's scale on random hulls
//! at scales 1e-6…1e6, far offsets, near contact and near-parallel faces 1e-5 apart tilted by
//! ≤ 1e-9 rad; against GJK and V-Clip outside the contact band on all 10⁴ pairs of the
//! differential (tests/hs_jump_distance.rs); wired into `query::distance`, on every case of
//! tests/conformance.rs (the domes: 2 026 nearly coplanar vertices, 1e-9 × scale from a box).
//!
//! Touching (`Intersection::Touching`) is answered by the same climb from the touching plane;
//! `Overlapping` as `Penetrating` without a depth (the query layer measures the depth, as for
//! V-Clip); `NotConverged` as is.

use super::nearest::nearest;
use super::{intersect, Frame, HsJumpCache};
use crate::contract::{pair_scale, Distance, Feature, FeaturePair, Intersection};
use crate::core::error::PolycdError;
use crate::core::math::{DMat3, DVec3, Pose};
use crate::core::tolerance::{ACCEPT_GAP_REL, CONTACT_REL, DISTANCE_GAP_REL};
use crate::shape::polyhedron::ConvexPolyhedron;

/// One point of `W`: a pair vector and its vertex pair.
#[derive(Clone, Copy, Debug, Default)]
struct Pt {
    d: DVec3,
    pair: (u32, u32),
}

/// The minimum-norm point of `conv pts` (`pts.len() ≤ 4`, the origin outside a tetrahedron):
/// its barycentric weights and the number of points it uses, the used ones moved to the
/// front (see [`nearest`]).
fn min_norm(pts: &mut [Pt; 4], n: usize) -> ([f64; 3], usize, DVec3) {
    let mut ds = [DVec3::ZERO; 4];
    for (d, p) in ds.iter_mut().zip(pts.iter()).take(n) {
        *d = p.d;
    }
    let (lam, ix, len, w) = nearest(&ds[..n]);
    let kept = [pts[ix[0]], pts[ix[1]], pts[ix[2]]];
    pts[..len].copy_from_slice(&kept[..len]);
    (lam, len, w)
}

/// The feature of `poly` spanned by the distinct vertices `vs` (1 to 3 of them): the vertex,
/// the edge joining two, a face holding all. `None` when no such edge or face exists.
fn feature_of(poly: &ConvexPolyhedron, vs: &[u32]) -> Option<Feature> {
    match vs {
        [v] => Some(Feature::Vertex(*v)),
        _ => {
            let u = vs[0];
            if let [_, w] = vs {
                for &h in poly.outgoing(u) {
                    let he = poly.half_edge(h);
                    if poly.half_edge(he.twin).origin == *w {
                        return Some(Feature::Edge(he.edge));
                    }
                }
            }
            // Two vertices not on one edge (a diagonal) or three: a face around `u` holding all.
            poly.outgoing(u).iter().find_map(|&h| {
                let f = poly.half_edge(h).face;
                let fv = poly.face_vertices(f);
                vs.iter().all(|v| fv.contains(v)).then_some(Feature::Face(f))
            })
        }
    }
}

/// Distinct entries of `xs` (at most 4), in order.
fn distinct(xs: impl Iterator<Item = u32>) -> ([u32; 4], usize) {
    let mut out = [0u32; 4];
    let mut n = 0;
    for x in xs {
        if !out[..n].contains(&x) && n < 4 {
            out[n] = x;
            n += 1;
        }
    }
    (out, n)
}

type Best = (f64, DVec3, DVec3, Feature, Feature);

/// The closest pair between sub-hulls of `va` (of A) and `vb` (of B): every vertex against
/// every vertex, segment and triangle of the other set, every segment against every segment;
/// `best` is replaced by a closer pair whose vertex sets name a feature on both shapes.
fn polish(a: &ConvexPolyhedron, va: &[u32], b: &ConvexPolyhedron, vb: &[u32], f: &Frame, best: &mut Best) {
    use crate::core::geometry::{closest_on_segment, closest_on_triangle, closest_segment_segment};
    let pa = |i: u32| a.vertex(i);
    let pb = |i: u32| f.b_point(i);
    let mut offer = |sa: &[u32], sb: &[u32], x: DVec3, y: DVec3| {
        let d = (y - x).length();
        if d < best.0 {
            if let (Some(fa), Some(fb)) = (feature_of(a, sa), feature_of(b, sb)) {
                *best = (d, x, y, fa, fb);
            }
        }
    };
    let (na, nb) = (va.len(), vb.len());
    for &i in va {
        for &j in vb {
            offer(&[i], &[j], pa(i), pb(j));
        }
        for j in 0..nb {
            for k in (j + 1)..nb {
                let (y, _) = closest_on_segment(pa(i), pb(vb[j]), pb(vb[k]));
                offer(&[i], &[vb[j], vb[k]], pa(i), y);
                for l in (k + 1)..nb {
                    let y = closest_on_triangle(pa(i), pb(vb[j]), pb(vb[k]), pb(vb[l]));
                    offer(&[i], &[vb[j], vb[k], vb[l]], pa(i), y);
                }
            }
        }
    }
    for &j in vb {
        for i in 0..na {
            for k in (i + 1)..na {
                let (x, _) = closest_on_segment(pb(j), pa(va[i]), pa(va[k]));
                offer(&[va[i], va[k]], &[j], x, pb(j));
                for l in (k + 1)..na {
                    let x = closest_on_triangle(pb(j), pa(va[i]), pa(va[k]), pa(va[l]));
                    offer(&[va[i], va[k], va[l]], &[j], x, pb(j));
                }
            }
        }
    }
    for i in 0..na {
        for k in (i + 1)..na {
            for j in 0..nb {
                for l in (j + 1)..nb {
                    let (x, y) = closest_segment_segment(pa(va[i]), pa(va[k]), pb(vb[j]), pb(vb[l]));
                    offer(&[va[i], va[k]], &[vb[j], vb[l]], x, y);
                }
            }
        }
    }
}

/// The vertices of `poly` whose height along `dir` (`poly`'s frame) is within `eps` of the
/// height of `start` (a maximiser along `dir`), collected into `out` by a walk over the vertex
/// graph from `start`: such a cap of a convex polytope is connected (every vertex of it has a
/// non-descending path to the maximiser, the simplex method's argument). `false` when the cap
/// has more than `limit` vertices (`out` then holds the first `limit`).
fn cap(poly: &ConvexPolyhedron, dir: DVec3, start: u32, eps: f64, limit: usize, out: &mut Vec<u32>) -> bool {
    out.clear();
    out.push(start);
    let floor = dir.dot(poly.vertex(start)) - eps;
    let mut k = 0;
    while k < out.len() {
        let u = out[k];
        k += 1;
        for &w in poly.neighbors(u) {
            if dir.dot(poly.vertex(w)) >= floor && !out.contains(&w) {
                if out.len() >= limit {
                    return false;
                }
                out.push(w);
            }
        }
    }
    true
}

/// A feature of a cap: an edge (with its end vertices) or a face.
#[derive(Clone, Copy)]
enum CapFeature {
    Edge(u32, u32, u32),
    Face(u32),
}

/// The edges and faces of `poly` whose vertices all lie in `cap`, each passed once to `visit`.
fn cap_features(poly: &ConvexPolyhedron, cap: &[u32], mut visit: impl FnMut(CapFeature)) {
    for &u in cap {
        for &h in poly.outgoing(u) {
            let he = poly.half_edge(h);
            let w = poly.half_edge(he.twin).origin;
            if u < w && cap.contains(&w) {
                visit(CapFeature::Edge(he.edge, u, w));
            }
            // Each face once: from its least vertex (one outgoing half-edge of `u` bounds it).
            let fv = poly.face_vertices(he.face);
            if fv.iter().all(|&x| x >= u) && fv.iter().all(|x| cap.contains(x)) {
                visit(CapFeature::Face(he.face));
            }
        }
    }
}

/// The point of the plane through `vs` (counter-clockwise seen along `n`, outward) nearest
/// `x`, when it lies inside the polygon (every edge's orientation non-negative), else `None`.
fn onto_polygon(x: DVec3, n: DVec3, vs: impl Iterator<Item = DVec3> + Clone) -> Option<DVec3> {
    let first = vs.clone().next()?;
    let y = x - n * n.dot(x - first);
    let mut prev = vs.clone().last()?;
    for p in vs {
        if (p - prev).cross(y - prev).dot(n) < 0.0 {
            return None;
        }
        prev = p;
    }
    Some(y)
}

/// [`onto_polygon`] for a point in front of the face (on the outer side of its plane): the
/// descent's vertex–face candidates. A point behind a face's plane projects onto it at a
/// local minimum of the distance over the surface that is no closest pair (the segment to it
/// enters the shape); the descent would stop there.
fn onto_front(x: DVec3, n: DVec3, vs: impl Iterator<Item = DVec3> + Clone) -> Option<DVec3> {
    let first = vs.clone().next()?;
    if n.dot(x - first) < 0.0 {
        return None;
    }
    onto_polygon(x, n, vs)
}

/// The closest-pair condition at `best` (`x` on A, `y` on B, `n = y − x`): no vertex `v` of A
/// next to `x`'s feature (its vertices and their neighbours) has `n·(v − x) > slack·|v − x|`,
/// and none of B's next to `y`'s the same along `−n`. Those vertices' directions
/// from `x` span A's tangent cone at `x` (for a vertex its edges; for an edge point the edge and
/// its faces' next vertices; for a face point the face and the vertices below it), so with
/// `slack = 0` this is `n̂ ∈ N_A(x)` and `−n̂ ∈ N_B(y)`: the plane through `x` normal to `n̂`
/// separates, the pair is the closest (convexity). A zero distance passes (nothing is closer).
fn locally_closest(f: &Frame, best: &Best, slack: f64) -> bool {
    let n = best.2 - best.1;
    if n == DVec3::ZERO {
        return true;
    }
    let verts = |p: &ConvexPolyhedron, feat: Feature, visit: &mut dyn FnMut(u32) -> bool| -> bool {
        let mut one = |v: u32| visit(v) && p.neighbors(v).iter().all(|&w| visit(w));
        match feat {
            Feature::Vertex(v) => one(v),
            Feature::Edge(e) => p.edge(e).vertices.iter().all(|&v| one(v)),
            Feature::Face(g) => p.face_vertices(g).iter().all(|&v| one(v)),
        }
    };
    let (x, y) = (best.1, best.2);
    // `n·(v − x) ≤ slack·|v − x|`: `n̂` within `slack / |n|` rad of the cone. `n` is a
    // difference of points (rounding ≈ ε × scale ≪ slack); near contact its direction is
    // that uncertain, and the test loosens with it.
    let within = |e: DVec3| n.dot(e) <= slack * e.length();
    verts(f.a, best.3, &mut |v| within(f.a.vertex(v) - x)) && verts(f.b, best.4, &mut |v| within(y - f.b_point(v)))
}

/// Largest cap (vertices per shape) [`certify`] searches; a wider one (the bounds' gap is
/// large against the distance: within rounding of contact on a finely tessellated hull) is
/// not searched and the climb's answer stands, within the gap of the distance.
const CAP_LIMIT: usize = 64;

/// Makes the answer exact to rounding where the climb's direction cannot resolve ties
/// (near-parallel faces near contact). `best` (upper bound `U`, a pair of points) and
/// `lower` (the best separation `L` along a unit `û`, with its supporting pair) bound the
/// distance `d`; when `U − L ≤ ACCEPT_GAP_REL × scale` the answer stands. Otherwise: `L ≤
/// û·n* d` for the distance direction `n*`, so `|û − n*|² ≤ 2(1 − L/U)`, and every vertex of
/// the closest features (the faces of A and B supporting `±n*`) lies within
/// `2|û − n*|·r + ρ` (`r` the shape's bounding radius, `ρ` rounding) of the maximiser along
/// `û` (of A; the minimiser of B). Those caps are collected, and the distance between every
/// feature of A's cap and every feature of B's (vertex–vertex, vertex–edge, vertex–face
/// inside its polygon, edge–edge) measured on the points: the least is the distance between
/// the caps' hulls, which hold the closest points, so it is the distance up to rounding.
fn certify(
    f: &Frame,
    lower: (f64, DVec3, (u32, u32)),
    upper: f64,
    scale: f64,
    cache: &mut HsJumpCache,
    best: &mut Best,
) -> bool {
    use crate::core::geometry::{closest_on_segment, closest_segment_segment};
    let (a, b) = (f.a, f.b);
    let rho = CONTACT_REL * scale;
    if !(best.0 - lower.0 > ACCEPT_GAP_REL * scale) {
        return true;
    }
    // Near contact the climb's directions carry rounding of order `ε·|A|/d`, so their
    // separations may bound the distance poorly; the answer's features give directions exact
    // to rounding when they are the closest ones or nearly parallel to them: a face's normal,
    // two edges' cross product. Their separations are lower bounds too; the best is kept.
    let mut lower = lower;
    let mut try_dir = |n: DVec3| {
        if n.is_finite() && n != DVec3::ZERO {
            let pair = f.support(n);
            let l = n.dot(f.pair_vector(pair));
            if l > lower.0 {
                lower = (l, n, pair);
            }
        }
    };
    let along = best.2 - best.1;
    match (best.3, best.4) {
        (Feature::Edge(ea), Feature::Edge(eb)) => {
            let [i, k] = a.edge(ea).vertices;
            let [j, l] = b.edge(eb).vertices;
            let c = (a.vertex(k) - a.vertex(i)).cross(f.b_point(l) - f.b_point(j));
            let c = c.normalize_or_zero();
            try_dir(if c.dot(along) < 0.0 { -c } else { c });
        }
        (fa, fb) => {
            if let Feature::Face(g) = fa {
                try_dir(a.face_plane(g).normal);
            }
            if let Feature::Face(g) = fb {
                try_dir(-(f.rot * b.face_plane(g).normal));
            }
        }
    }
    let (l, u, (sa, sb)) = lower;
    if !(best.0 - l > ACCEPT_GAP_REL * scale) {
        return true;
    }
    // The gap that bounds the angle: the least upper bound known (`best.0` names its
    // features; the climb's `upper` may not, but its points are points of the shapes too).
    let top = best.0.min(upper);
    let chord = (2.0 * (top - l + 2.0 * rho) / (top + rho)).sqrt();
    let (ca, cb) = (&mut cache.cap_a, &mut cache.cap_b);
    let ub = f.rot_t * -u;
    // No positive lower bound to steer by, or a cap too wide: the local descent instead
    // (NaN-safe: a NaN bound does not steer).
    let steerable = l > rho && chord < 1.0;
    if !steerable
        || !cap(a, u, sa, 2.0 * chord * a.bounding_sphere().1 + rho, CAP_LIMIT, ca)
        || !cap(b, ub, sb, 2.0 * chord * b.bounding_sphere().1 + rho, CAP_LIMIT, cb)
    {
        let done = descend(a, b, f, best, rho);
        return done;
    }
    let (ca, cb) = (&*ca, &*cb);
    let pa = |i: u32| a.vertex(i);
    let pb = |i: u32| f.b_point(i);
    let mut offer = |fa: Feature, fb: Feature, x: DVec3, y: DVec3| {
        let d = (y - x).length();
        if d < best.0 {
            *best = (d, x, y, fa, fb);
        }
    };
    // Vertices against vertices, edges and faces of the other cap.
    for &i in ca {
        let x = pa(i);
        for &j in cb {
            offer(Feature::Vertex(i), Feature::Vertex(j), x, pb(j));
        }
        cap_features(b, cb, |c| match c {
            CapFeature::Edge(e, j, k) => {
                let y = closest_on_segment(x, pb(j), pb(k)).0;
                offer(Feature::Vertex(i), Feature::Edge(e), x, y);
            }
            CapFeature::Face(g) => {
                let n = f.rot * b.face_plane(g).normal;
                if let Some(y) = onto_polygon(x, n, b.face_vertices(g).iter().map(|&j| pb(j))) {
                    offer(Feature::Vertex(i), Feature::Face(g), x, y);
                }
            }
        });
    }
    for &j in cb {
        let y = pb(j);
        cap_features(a, ca, |c| match c {
            CapFeature::Edge(e, i, k) => {
                let x = closest_on_segment(y, pa(i), pa(k)).0;
                offer(Feature::Edge(e), Feature::Vertex(j), x, y);
            }
            CapFeature::Face(g) => {
                let n = a.face_plane(g).normal;
                if let Some(x) = onto_polygon(y, n, a.face_vertices(g).iter().map(|&i| pa(i))) {
                    offer(Feature::Face(g), Feature::Vertex(j), x, y);
                }
            }
        });
    }
    // Edges against edges.
    cap_features(a, ca, |c| {
        if let CapFeature::Edge(ea, i, k) = c {
            cap_features(b, cb, |c| {
                if let CapFeature::Edge(eb, j, l) = c {
                    let (x, y) = closest_segment_segment(pa(i), pa(k), pb(j), pb(l));
                    offer(Feature::Edge(ea), Feature::Edge(eb), x, y);
                }
            });
        }
    });
    true
}

/// Rounds of [`descend`] at most: one per pair of features (vertices, edges, faces) of A
/// and B. Each round lands on the closest points of a feature pair at a strictly smaller
/// distance, so no pair recurs (up to rounding, which the bound enforces).
fn descent_rounds(a: &ConvexPolyhedron, b: &ConvexPolyhedron) -> u64 {
    let n = |p: &ConvexPolyhedron| (p.vertices().len() + p.edges().len() + p.faces().len()) as u64;
    n(a).saturating_mul(n(b))
}

/// The faces of `poly` holding the feature `feat` (around a vertex, beside an edge, itself).
fn for_star(poly: &ConvexPolyhedron, feat: Feature, mut visit: impl FnMut(u32)) {
    match feat {
        Feature::Vertex(v) => poly.outgoing(v).iter().for_each(|&h| visit(poly.half_edge(h).face)),
        Feature::Edge(e) => poly.edge(e).faces.iter().for_each(|&g| visit(g)),
        Feature::Face(g) => visit(g),
    }
}

/// Offers the closest points of face `ga` of A and face `gb` of B (B's in A's frame through
/// `f`): every vertex against the other face's vertices, edges and (inside its polygon) plane,
/// every edge against every edge; with the features that carry them.
fn face_pair(
    a: &ConvexPolyhedron,
    ga: u32,
    b: &ConvexPolyhedron,
    gb: u32,
    f: &Frame,
    offer: &mut impl FnMut(Feature, Feature, DVec3, DVec3),
) {
    use crate::core::geometry::{closest_on_segment, closest_segment_segment};
    let pb = |i: u32| f.b_point(i);
    let (na, nb) = (a.face_plane(ga).normal, f.rot * b.face_plane(gb).normal);
    for &i in a.face_vertices(ga) {
        let x = a.vertex(i);
        for h in b.face_half_edges(gb) {
            let he = b.half_edge(h);
            let (j, k) = (he.origin, b.half_edge(he.next).origin);
            offer(Feature::Vertex(i), Feature::Vertex(j), x, pb(j));
            let y = closest_on_segment(x, pb(j), pb(k)).0;
            offer(Feature::Vertex(i), Feature::Edge(he.edge), x, y);
        }
        if let Some(y) = onto_front(x, nb, b.face_vertices(gb).iter().map(|&j| pb(j))) {
            offer(Feature::Vertex(i), Feature::Face(gb), x, y);
        }
    }
    for &j in b.face_vertices(gb) {
        let y = pb(j);
        for h in a.face_half_edges(ga) {
            let he = a.half_edge(h);
            let (i, k) = (he.origin, a.half_edge(he.next).origin);
            let x = closest_on_segment(y, a.vertex(i), a.vertex(k)).0;
            offer(Feature::Edge(he.edge), Feature::Vertex(j), x, y);
        }
        if let Some(x) = onto_front(y, na, a.face_vertices(ga).iter().map(|&i| a.vertex(i))) {
            offer(Feature::Face(ga), Feature::Vertex(j), x, y);
        }
    }
    for h in a.face_half_edges(ga) {
        let he = a.half_edge(h);
        let (i, k) = (he.origin, a.half_edge(he.next).origin);
        for g in b.face_half_edges(gb) {
            let ge = b.half_edge(g);
            let (j, l) = (ge.origin, b.half_edge(ge.next).origin);
            let (x, y) = closest_segment_segment(a.vertex(i), a.vertex(k), pb(j), pb(l));
            offer(Feature::Edge(he.edge), Feature::Edge(ge.edge), x, y);
        }
    }
}

/// Local descent to the closest features, for answers [`certify`]'s caps cannot settle: the
/// closest points between the faces around the answer's features (every face of A holding
/// its feature against every face of B holding its), repeated from the new features while the
/// distance strictly falls. When no face pair improves, `n = y − x` satisfies `n·(a − x) ≤ 0`
/// on every face holding `x` (else moving `x` along that face towards `a` would be closer).
/// That is the tangent cone at `x` for a vertex or an edge point, not for a point inside a
/// face whose plane `y` lies behind (a local minimum over the surface only): vertex–face
/// candidates behind the face are not offered ([`onto_front`]), and the stopping pair is
/// checked by [`locally_closest`] (`n̂` in both normal cones, within `slack`): then it is the
/// global closest pair (convexity), else the walk is not certified. The walk starts from any pair of features carrying
/// `best`'s points (a vertex pair far from the closest one too: the distance then falls over
/// more rounds). At most [`descent_rounds`] rounds; `false` when the bound stops it (the pair
/// is then not certified).
fn descend(a: &ConvexPolyhedron, b: &ConvexPolyhedron, f: &Frame, best: &mut Best, slack: f64) -> bool {
    for _ in 0..descent_rounds(a, b) {
        let start = best.0;
        let (fa, fb) = (best.3, best.4);
        let mut found = *best;
        let mut offer = |ea: Feature, eb: Feature, x: DVec3, y: DVec3| {
            let d = (y - x).length();
            if d < found.0 {
                found = (d, x, y, ea, eb);
            }
        };
        for_star(a, fa, |ga| for_star(b, fb, |gb| face_pair(a, ga, b, gb, f, &mut offer)));
        *best = found;
        if !(best.0 < start) {
            return locally_closest(f, best, slack);
        }
    }
    false
}

/// Distance by HS-jump: the boolean search, then the climb of the module header. Errors as
/// [`intersect`] (solids only).
pub fn distance(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut HsJumpCache,
) -> Result<Distance, PolycdError> {
    let first = intersect(a, pa, b, pb, cache)?;
    // The caps' scratch at its bound once, so no later query allocates (`cap` never exceeds it).
    for v in [&mut cache.cap_a, &mut cache.cap_b] {
        if v.capacity() < CAP_LIMIT {
            v.reserve_exact(CAP_LIMIT - v.len());
        }
    }
    let rel = pa.relative(pb);
    let rot = DMat3::from_quat(rel.rotation);
    let f = Frame {
        a,
        b,
        rot,
        rot_t: rot.transpose(),
        t: rel.translation,
    };
    let (start_pair, searched) = match first {
        Intersection::Disjoint { iterations, .. } => (cache.last_pair, iterations),
        Intersection::Touching { plane, iterations, .. } => {
            let n = pa.rotation.inverse() * plane.normal;
            (f.support(n), iterations)
        }
        Intersection::Overlapping { witness, iterations } => {
            return Ok(Distance::Penetrating {
                witness,
                penetration: None,
                iterations,
            })
        }
        Intersection::NotConverged { iterations } => return Ok(Distance::NotConverged { iterations }),
    };
    let (na, nb) = (a.vertices().len(), b.vertices().len());
    let bound = (2u64 * na as u64 * nb as u64).clamp(8, u32::MAX as u64) as u32;
    let mut pts = [Pt::default(); 4];
    pts[0] = Pt {
        d: f.pair_vector(start_pair),
        pair: start_pair,
    };
    let (mut lam, mut len, mut w) = ([1.0, 0.0, 0.0], 1usize, pts[0].d);
    let mut last_support = start_pair;
    // The best lower bound met: the separation `û·(q − p)` along a unit `û` with its
    // supporting pair (any unit vector's separation bounds the distance from below).
    let mut lower = (f64::NEG_INFINITY, DVec3::ZERO, start_pair);
    let gap = DISTANCE_GAP_REL * pair_scale(a, pa, b, pb);
    let mut steps = 0u32;
    while steps < bound {
        steps += 1;
        let ww = w.length_squared();
        if ww == 0.0 {
            break;
        }
        // Unit direction: the climbs' cone tests are scaled for unit directions.
        let u = w / ww.sqrt();
        let pair = f.support(u);
        last_support = pair;
        let d = f.pair_vector(pair);
        if u.dot(d) > lower.0 {
            lower = (u.dot(d), u, pair);
        }
        if pts[..len].iter().any(|p| p.pair == pair) {
            break;
        }
        // The separation along w (lower bound, `ŵ·d`) meets |w| (upper bound) within
        // DISTANCE_GAP_REL × scale: w is the minimum-norm point (GJK's stopping rule).
        if ww - w.dot(d) <= gap * ww.sqrt() {
            break;
        }
        let mut trial = pts;
        trial[len] = Pt { d, pair };
        let (l2, len2, w2) = min_norm(&mut trial, len + 1);
        if w2.length_squared() >= ww {
            // Rounding: no decrease; the previous simplex stands.
            break;
        }
        (pts, lam, len, w) = (trial, l2, len2, w2);
    }
    // Coherence: the next boolean query starts from the distance direction, the best
    // separating vector, and its supporting pair.
    if w != DVec3::ZERO && w.is_finite() {
        cache.last_s = w.normalize();
        cache.last_pair = last_support;
    }
    let mut xa = DVec3::ZERO;
    let mut xb = DVec3::ZERO;
    for k in 0..len {
        xa += a.vertex(pts[k].pair.0) * lam[k];
        xb += f.b_point(pts[k].pair.1) * lam[k];
    }
    let (va, la) = distinct(pts[..len].iter().map(|p| p.pair.0));
    let (vb, lb) = distinct(pts[..len].iter().map(|p| p.pair.1));
    // The climb's points bound the distance from above (`upper`: points of A and B). They
    // name the answer's features only when the vertices they combine span a feature of each
    // shape; a sliver of far-apart vertices (near contact on a finely tessellated, nearly flat
    // hull: conformance's domes) spans none, its point lies inside the shape, and the answer
    // starts instead from a vertex pair, a pair on its named features (the polish and the
    // certification below look for the closest named pair from there).
    let upper = w.length();
    let mut best = match (feature_of(a, &va[..la]), feature_of(b, &vb[..lb])) {
        (Some(fa), Some(fb)) => (upper, xa, xb, fa, fb),
        _ => {
            let (x, y) = (a.vertex(va[0]), f.b_point(vb[0]));
            ((y - x).length(), x, y, Feature::Vertex(va[0]), Feature::Vertex(vb[0]))
        }
    };
    // Polish: `w` is a difference of points ~|A| + |B| long, so when the distance is far
    // smaller (near contact) its direction carries that rounding over the distance, and a
    // support can no longer see the last improvement (near-parallel faces: the ties between a
    // face's vertices are below it). The distance between the sub-hulls of the vertices the
    // climb found (those of W and of the last support) is measured directly, on the points
    // themselves (vertex–vertex, vertex–segment, vertex–triangle, segment–segment): each is a
    // pair of points of A and B, so the least is never below the distance.
    let (va, la) = distinct(
        pts[..len]
            .iter()
            .map(|p| p.pair.0)
            .chain(std::iter::once(last_support.0)),
    );
    let (vb, lb) = distinct(
        pts[..len]
            .iter()
            .map(|p| p.pair.1)
            .chain(std::iter::once(last_support.1)),
    );
    polish(a, &va[..la], b, &vb[..lb], &f, &mut best);
    let scale = pair_scale(a, pa, b, pb);
    if !certify(&f, lower, upper, scale, cache, &mut best) {
        return Ok(Distance::NotConverged {
            iterations: searched.saturating_add(steps),
        });
    }
    let (dist, xa, xb, fa, fb) = best;
    Ok(Distance::Separated {
        distance: dist,
        point_a: pa.transform_point(xa),
        point_b: pa.transform_point(xb),
        features: FeaturePair { a: fa, b: fb },
        iterations: searched.saturating_add(steps),
    })
}
