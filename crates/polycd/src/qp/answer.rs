//! From a solve to the contract's answers: the touching plane's normal, the closest features
//! of the corral, [`Distance`] and [`Intersection`].

use super::solve::{overlap_witness, Solved, Verdict};
use super::wolfe::{Corral, PairSupport, MAX_CONTACT_NORMALS};
use crate::contract::{Distance, Feature, FeaturePair, Intersection};
use crate::core::math::{DVec3, Plane, Pose};
use crate::shape::polyhedron::ConvexPolyhedron;

/// One side of a vertex pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    A,
    B,
}

/// [`PairSupport::contact_normals`] for two polyhedra whose vectors the solver's frame sees
/// through the rotations `ta` and `tb`.
pub(super) fn contact_normals(
    a: &ConvexPolyhedron,
    ta: impl Fn(DVec3) -> DVec3,
    b: &ConvexPolyhedron,
    tb: impl Fn(DVec3) -> DVec3,
    c: &Corral,
    out: &mut [DVec3; MAX_CONTACT_NORMALS],
) -> usize {
    let (ia, na) = corral_ids(c, Side::A);
    let (ib, nb) = corral_ids(c, Side::B);
    let mut k = 0;
    let mut push = |n: DVec3, k: &mut usize| {
        if *k < out.len() && n.is_finite() && n.length_squared() > 0.0 {
            out[*k] = n;
            *k += 1;
        }
    };
    for &v in &ia[..na] {
        for &h in a.outgoing(v) {
            // A segment's half-edges bound no face (`shape::flat::NO_FACE`).
            if let Some(f) = a.faces().get(a.half_edge(h).face as usize) {
                push(ta(f.normal), &mut k);
            }
        }
    }
    for &v in &ib[..nb] {
        for &h in b.outgoing(v) {
            if let Some(f) = b.faces().get(b.half_edge(h).face as usize) {
                push(-tb(f.normal), &mut k);
            }
        }
    }
    for &u in &ia[..na] {
        for &un in a.neighbors(u) {
            let ea = ta(a.vertex(un) - a.vertex(u));
            for &w in &ib[..nb] {
                for &wn in b.neighbors(w) {
                    let eb = tb(b.vertex(wn) - b.vertex(w));
                    let x = ea.cross(eb);
                    let l = x.length();
                    // Parallel edges span no plane of their own (near-parallel ones give a
                    // poor normal, which the slab comparison then passes over).
                    if l > 0.0 {
                        push(x / l, &mut k);
                        push(-x / l, &mut k);
                    }
                }
            }
        }
    }
    k
}

/// The normal, among `n0` and the corral's contact normals, whose slab `max_A n·a − min_B
/// n·b` is thinnest (A towards B): `n0` comes from a near-zero closest-point vector, whose
/// direction is only as good as its rounding (a shrunk solve at the contact tolerance), while
/// a touching pair always has a face normal or an edge cross product as an exact common
/// supporting direction. Returns the normal and its slab.
fn touching_normal<S: PairSupport>(sup: &mut S, c: &Corral, n0: DVec3, tol: f64) -> (DVec3, f64) {
    let slab = |sup: &mut S, n: DVec3| {
        let p = sup.support(n, 1.0);
        n.dot(p.a) - n.dot(p.b)
    };
    let mut best = (n0, f64::INFINITY);
    if n0.length_squared() > 0.0 {
        best.1 = slab(sup, n0);
        if best.1 <= 0.5 * tol {
            return best;
        }
    }
    let mut cands = [DVec3::ZERO; MAX_CONTACT_NORMALS];
    let k = sup.contact_normals(c, &mut cands);
    for &n in &cands[..k] {
        let w = slab(sup, n);
        if w < best.1 {
            best = (n, w);
        }
    }
    best
}

/// The feature of `poly` spanned by the distinct vertex ids `ids` (all with positive weight):
/// the convex combination lies on a feature containing every one of them. When the ids span
/// no single feature (possible only through rounding of near-zero weights), the feature is
/// found from the point itself (`local()`, in `poly`'s frame) by a scan — rare, O(V + E + F).
fn feature_of(poly: &ConvexPolyhedron, ids: &[u32], local: impl FnOnce() -> DVec3) -> Feature {
    let Some(&v0) = ids.first() else {
        return poly.feature_at(local());
    };
    if ids.len() == 1 {
        return Feature::Vertex(v0);
    }
    if ids.len() == 2 {
        let v1 = ids[1];
        for (k, &nb) in poly.neighbors(v0).iter().enumerate() {
            if nb == v1 {
                let h = poly.outgoing(v0)[k];
                return Feature::Edge(poly.half_edge(h).edge);
            }
        }
    }
    for &h in poly.outgoing(v0) {
        let f = poly.half_edge(h).face;
        let fv = poly.face_vertices(f);
        if ids.iter().all(|v| fv.contains(v)) {
            return Feature::Face(f);
        }
    }
    poly.feature_at(local())
}

/// Distinct vertex ids of one side of a corral with positive weight.
fn corral_ids(c: &Corral, side: Side) -> ([u32; 4], usize) {
    let mut ids = [0u32; 4];
    let mut n = 0;
    for k in 0..c.n {
        if !(c.w[k] > 0.0) {
            continue;
        }
        let id = match side {
            Side::A => c.id[k].0,
            Side::B => c.id[k].1,
        };
        if !ids[..n].contains(&id) {
            ids[n] = id;
            n += 1;
        }
    }
    (ids, n)
}

/// Closest features of the corral whose weighted points are `pa`, `pb` (solver's frame);
/// `to_a` / `to_b` map the solver's frame to A's / B's local frame (evaluated only when a
/// feature has to be found from its point).
pub(super) fn corral_features(
    a: &ConvexPolyhedron,
    to_a: impl FnOnce() -> Pose,
    b: &ConvexPolyhedron,
    to_b: impl FnOnce() -> Pose,
    c: &Corral,
    (pa, pb): (DVec3, DVec3),
) -> FeaturePair {
    let (ia, na) = corral_ids(c, Side::A);
    let (ib, nb) = corral_ids(c, Side::B);
    FeaturePair {
        a: feature_of(a, &ia[..na], || to_a().transform_point(pa)),
        b: feature_of(b, &ib[..nb], || to_b().transform_point(pb)),
    }
}

/// Turns a verdict into a [`Distance`]; `frame` maps the solver's frame to the world, `c` is
/// the solve's corral, `features` labels it given its two weighted points.
pub(super) fn to_distance<S: PairSupport>(
    solved: &Solved,
    c: &Corral,
    sup: &S,
    frame: &Pose,
    features: impl FnOnce(&Corral, (DVec3, DVec3)) -> FeaturePair,
) -> Distance {
    let iterations = solved.iterations;
    match &solved.verdict {
        Verdict::Separated | Verdict::Touching { .. } => {
            let (pa, pb) = c.points(sup, 1.0);
            Distance::Separated {
                distance: c.x.length(),
                point_a: frame.transform_point(pa),
                point_b: frame.transform_point(pb),
                features: features(c, (pa, pb)),
                iterations,
            }
        }
        Verdict::Overlapping { point, simplex } => Distance::Penetrating {
            witness: overlap_witness(*point, *simplex, frame),
            penetration: None,
            iterations,
        },
        Verdict::NotConverged => Distance::NotConverged { iterations },
    }
}

/// Turns a verdict into an [`Intersection`]; a `Disjoint` plane is certified against the
/// vertex sets through the support mapping (else the pair is reported touching).
pub(super) fn to_intersection<S: PairSupport>(
    solved: &Solved,
    c: &Corral,
    sup: &mut S,
    frame: &Pose,
    tol: f64,
) -> Intersection {
    let iterations = solved.iterations;
    let touching = |sup: &mut S, n: DVec3| {
        let (pa, pb) = c.points(sup, 1.0);
        let mid = 0.5 * (pa + pb);
        let (n, _) = touching_normal(sup, c, n, tol);
        let n = if n.length_squared() > 0.0 { n } else { DVec3::Z };
        Intersection::Touching {
            point: frame.transform_point(mid),
            plane: Plane {
                normal: n,
                offset: n.dot(mid),
            }
            .transformed(frame),
            iterations,
        }
    };
    match &solved.verdict {
        Verdict::Separated => {
            let d = c.x.length();
            let n = -c.x / d;
            let p = sup.support(n, 1.0);
            let (ha, hb) = (n.dot(p.a), n.dot(p.b));
            if ha < hb {
                Intersection::Disjoint {
                    plane: Plane {
                        normal: n,
                        offset: 0.5 * (ha + hb),
                    }
                    .transformed(frame),
                    iterations,
                }
            } else {
                touching(sup, n)
            }
        }
        Verdict::Touching { normal } => touching(sup, *normal),
        Verdict::Overlapping { point, simplex } => Intersection::Overlapping {
            witness: overlap_witness(*point, *simplex, frame),
            iterations,
        },
        Verdict::NotConverged => Intersection::NotConverged { iterations },
    }
}
