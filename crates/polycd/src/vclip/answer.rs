//! From the iteration's result to the answer: closest points in the world frame, separating
//! and touching planes checked against the supports, the touching band.

use super::{run, Checked, Run, VClipCache};
use crate::contract::{
    contact_tolerance, contact_tolerance_bound, pair_scale, Distance, Feature, FeaturePair, OverlapWitness,
};
use crate::core::math::{DVec3, Plane, Pose};
use crate::core::tolerance::{CROSSING_EDGES_SIN2, PLANE_CHECK_REL};
use crate::shape::polyhedron::ConvexPolyhedron;

/// The separating plane through the midpoint of the closest points. Its normal is
/// `point_b − point_a`, made exactly perpendicular to every edge or face carrying a closest
/// point: a face normal is used as is, two crossing edges give their cross product, and an
/// edge's direction is projected out (twice, so the residual along it is at rounding level).
/// When the gap is tiny against the shapes, the difference of the points has few correct
/// digits, and a plane tilted along an edge or face would cut the far end of that feature.
#[allow(clippy::too_many_arguments)]
fn separating_plane(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    point_a: DVec3,
    point_b: DVec3,
    features: FeaturePair,
    distance: f64,
) -> Plane {
    let diff = (point_b - point_a) / distance;
    let dir = |p: &ConvexPolyhedron, pose: &Pose, e: u32| {
        let [t, h] = p.edge(e).vertices;
        pose.transform_vector(p.vertex(h) - p.vertex(t))
    };
    let project = |n: DVec3, u: DVec3| {
        let l2 = u.length_squared();
        let m = n - u * (n.dot(u) / l2);
        m - u * (m.dot(u) / l2)
    };
    let normal = match (features.a, features.b) {
        (Feature::Face(f), _) => pa.transform_vector(a.face(f).normal),
        (_, Feature::Face(f)) => -pb.transform_vector(b.face(f).normal),
        (Feature::Edge(x), Feature::Edge(y)) => {
            let (u1, u2) = (dir(a, pa, x), dir(b, pb, y));
            let c = u1.cross(u2);
            // Crossing edges: the common normal; (near-)parallel edges: project out one.
            let n = if c.length_squared() > CROSSING_EDGES_SIN2 * u1.length_squared() * u2.length_squared() {
                c
            } else {
                project(diff, u1)
            };
            if n.dot(diff) < 0.0 {
                -n
            } else {
                n
            }
        }
        (Feature::Edge(x), _) => project(diff, dir(a, pa, x)),
        (_, Feature::Edge(y)) => project(diff, dir(b, pb, y)),
        _ => diff,
    };
    let normal = normal.normalize_or(diff);
    Plane {
        normal,
        offset: normal.dot((point_a + point_b) * 0.5),
    }
}

/// Face normals and edge vectors around a feature (local frame): the faces through it and, for
/// a vertex or an edge, the edges through it; at most `N` of each.
fn feature_frame<const N: usize>(p: &ConvexPolyhedron, f: Feature) -> ([DVec3; N], usize, [DVec3; N], usize) {
    let mut normals = [DVec3::ZERO; N];
    let mut edges = [DVec3::ZERO; N];
    let (mut nn, mut ne) = (0, 0);
    match f {
        Feature::Vertex(v) => {
            let o = p.vertex(v);
            for (&h, &w) in p.outgoing(v).iter().zip(p.neighbors(v)) {
                if nn < N {
                    normals[nn] = p.face(p.half_edge(h).face).normal;
                    nn += 1;
                }
                if ne < N {
                    edges[ne] = p.vertex(w) - o;
                    ne += 1;
                }
            }
        }
        Feature::Edge(e) => {
            let ed = p.edge(e);
            for &x in &ed.faces {
                normals[nn] = p.face(x).normal;
                nn += 1;
            }
            edges[0] = p.vertex(ed.vertices[1]) - p.vertex(ed.vertices[0]);
            ne = 1;
        }
        Feature::Face(x) => {
            normals[0] = p.face(x).normal;
            nn = 1;
        }
    }
    (normals, nn, edges, ne)
}

/// A separating plane checked against the supports, for separated answers near contact
/// (`d ≤ PLANE_CHECK_REL × pair scale`): a normal taken from the closest-point vector is only
/// as good as that vector's rounding (error ≈ ulp(coordinates) / d, tilting the plane across
/// the whole shape), so the plane is kept only if the supports confirm it; otherwise the face
/// normals and edge cross products around the closest features — among which lies the exact
/// normal of the face of A − B holding the closest point — are tried and the one with the
/// widest gap wins. The offset is the middle of the measured gap.
#[allow(clippy::too_many_arguments)]
fn checked_separating_plane(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    point_a: DVec3,
    point_b: DVec3,
    pair: FeaturePair,
    distance: f64,
) -> Plane {
    let plane = separating_plane(a, pa, b, pb, point_a, point_b, pair, distance);
    let gap = |n: DVec3| {
        let (top_a, bottom_b) = extents(a, pa, b, pb, pair, n);
        (bottom_b - top_a, 0.5 * (top_a + bottom_b))
    };
    let (g0, mid0) = gap(plane.normal);
    let mut best = (g0, plane.normal, mid0);
    if g0 > 0.0 {
        return Plane {
            normal: plane.normal,
            offset: mid0,
        };
    }
    const N: usize = 16;
    let (na, kna, ea, kea) = feature_frame::<N>(a, pair.a);
    let (nb, knb, eb, keb) = feature_frame::<N>(b, pair.b);
    let mut try_normal = |n: DVec3| {
        if n.is_finite() && n.length_squared() > 0.0 {
            let (g, mid) = gap(n);
            if g > best.0 {
                best = (g, n, mid);
            }
        }
    };
    for n in &na[..kna] {
        try_normal(pa.transform_vector(*n));
    }
    for n in &nb[..knb] {
        try_normal(-pb.transform_vector(*n));
    }
    for u in &ea[..kea] {
        let u = pa.transform_vector(*u);
        for v in &eb[..keb] {
            let c = u.cross(pb.transform_vector(*v));
            let l = c.length();
            if l > 0.0 {
                try_normal(c / l);
                try_normal(-c / l);
            }
        }
    }
    Plane {
        normal: best.1,
        offset: best.2,
    }
}

/// Some vertex of a feature.
pub(super) fn feature_vertex(p: &ConvexPolyhedron, f: Feature) -> u32 {
    match f {
        Feature::Vertex(v) => v,
        Feature::Edge(e) => p.edge(e).vertices[0],
        Feature::Face(x) => p.half_edge(p.face(x).half_edge).origin,
    }
}

/// `(max_A n·x, min_B n·x)` for a world direction `n`: support vertices by hill-climbing from
/// the witness features (a step or two when the features are near the supports).
fn extents(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    pair: FeaturePair,
    n: DVec3,
) -> (f64, f64) {
    let va = a.support_climb(pa.inverse_transform_vector(n), feature_vertex(a, pair.a));
    let vb = b.support_climb(pb.inverse_transform_vector(-n), feature_vertex(b, pair.b));
    (
        n.dot(pa.transform_point(a.vertex(va))),
        n.dot(pb.transform_point(b.vertex(vb))),
    )
}

/// A plane showing that the shapes overlap by at most the contact tolerance (so they touch),
/// tried along the normals the witness features suggest: a face's normal, the cross product
/// of two edges. Used when the features meet (distance 0 or within the contact tolerance):
/// the plane through the mid-slab is returned, A below and B above up to the tolerance.
fn touching_plane(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    pair: FeaturePair,
    extra: Option<DVec3>,
) -> Option<Plane> {
    let tol = contact_tolerance(a, pa, b, pb);
    let edge_dir = |p: &ConvexPolyhedron, pose: &Pose, f: Feature| match f {
        Feature::Edge(e) => {
            let [t, h] = p.edge(e).vertices;
            Some(pose.transform_vector(p.vertex(h) - p.vertex(t)))
        }
        _ => None,
    };
    let face_a = match pair.a {
        Feature::Face(f) => Some(pa.transform_vector(a.face(f).normal)),
        _ => None,
    };
    let face_b = match pair.b {
        Feature::Face(f) => Some(-pb.transform_vector(b.face(f).normal)),
        _ => None,
    };
    let cross = match (edge_dir(a, pa, pair.a), edge_dir(b, pb, pair.b)) {
        (Some(u), Some(v)) => {
            let c = u.cross(v);
            (c.length_squared() > CROSSING_EDGES_SIN2 * u.length_squared() * v.length_squared()).then(|| c.normalize())
        }
        _ => None,
    };
    let candidates = [extra, face_a, face_b, cross, cross.map(|c| -c)];
    for n in candidates.into_iter().flatten() {
        let (top_a, bottom_b) = extents(a, pa, b, pb, pair, n);
        if top_a - bottom_b <= tol {
            return Some(Plane {
                normal: n,
                offset: 0.5 * (top_a + bottom_b),
            });
        }
    }
    None
}

/// V-Clip's answer plus, for separated and touching answers, the separating plane (for
/// answers beyond the contact band only when `want_plane`: the distance query does not
/// return it).
#[inline(always)]
pub(super) fn distance_with_plane(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    cache: &mut VClipCache,
    want_plane: bool,
) -> (Checked, Option<Plane>) {
    let penetrating = |features, point, iterations| Distance::Penetrating {
        witness: OverlapWitness::Features { features, point },
        penetration: None,
        iterations,
    };
    match run(a, pa, b, pb, cache) {
        Run::Closest {
            pair,
            pa: xa,
            pb: xb,
            iterations,
        } => {
            let (wa, wb) = (pa.transform_point(xa), pa.transform_point(xb));
            let d = (wb - wa).length();
            let separated = Distance::Separated {
                distance: d,
                point_a: wa,
                point_b: wb,
                features: pair,
                iterations,
            };
            if d > 0.0 && xa != xb {
                // Clearly apart (beyond an O(1) upper bound of the contact tolerance): the
                // plane is built only when the caller wants it.
                if d > contact_tolerance_bound(a, pa, b, pb) {
                    let plane = if !want_plane {
                        None
                    } else if d > PLANE_CHECK_REL * pair_scale(a, pa, b, pb) {
                        Some(separating_plane(a, pa, b, pb, wa, wb, pair, d))
                    } else {
                        Some(checked_separating_plane(a, pa, b, pb, wa, wb, pair, d))
                    };
                    return (Checked::Clear(separated), plane);
                }
                let plane = if d > PLANE_CHECK_REL * pair_scale(a, pa, b, pb) {
                    separating_plane(a, pa, b, pb, wa, wb, pair, d)
                } else {
                    checked_separating_plane(a, pa, b, pb, wa, wb, pair, d)
                };
                if d > contact_tolerance(a, pa, b, pb) {
                    return (Checked::Unsettled(separated), Some(plane));
                }
                // Touching band: the Voronoi tests sit on rounding noise; keep the answer only
                // if a plane shows the shapes overlap by at most the tolerance.
                if let Some(p) = touching_plane(a, pa, b, pb, pair, Some(plane.normal)) {
                    return (Checked::Unsettled(separated), Some(p));
                }
            } else if let Some(p) = touching_plane(a, pa, b, pb, pair, None) {
                return (Checked::Unsettled(separated), Some(p));
            }
            (Checked::Unsettled(penetrating(pair, (wa + wb) * 0.5, iterations)), None)
        }
        Run::Penetration {
            pair,
            point,
            iterations,
        } => {
            let w = pa.transform_point(point);
            match touching_plane(a, pa, b, pb, pair, None) {
                Some(plane) => (
                    Checked::Unsettled(Distance::Separated {
                        distance: 0.0,
                        point_a: w,
                        point_b: w,
                        features: pair,
                        iterations,
                    }),
                    Some(plane),
                ),
                None => (Checked::Unsettled(penetrating(pair, w, iterations)), None),
            }
        }
        Run::NotConverged { iterations } => (Checked::Unsettled(Distance::NotConverged { iterations }), None),
    }
}
