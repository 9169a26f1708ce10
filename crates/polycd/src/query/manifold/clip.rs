//! The face clip of a contact manifold (module header of `super`, step 3): the reference
//! face's loop and side planes, the incident polygon (a face, a segment or a point), the
//! Sutherland–Hodgman passes, and the kept points with their feature pairs.

use super::features::face_at_support;
use super::sat::SatBufs;
use crate::contract::{ContactManifold, ContactPoint, Feature, FeaturePair};
use crate::core::math::{DVec3, Pose};
use crate::shape::polyhedron::ConvexPolyhedron;

/// Where a clip vertex comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// An incident vertex (its id).
    Incident(u32),
    /// An incident edge (id) cut by the side plane of reference loop edge `k`.
    Cut { k: u32, edge: u32 },
    /// A corner of the reference face (vertex id).
    Corner(u32),
}

/// What the edge from a clip vertex to the next lies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Along {
    /// An incident edge (id).
    Incident(u32),
    /// The side plane of reference loop edge `k`.
    Side(u32),
}

#[derive(Clone, Copy, Debug)]
struct ClipVert {
    p: DVec3,
    origin: Origin,
    along: Along,
}

/// One edge of the reference face's loop (A's frame).
#[derive(Clone, Copy, Debug)]
struct RefEdge {
    /// Its start vertex (id) and position.
    vertex: u32,
    u: DVec3,
    /// Outward unit normal of its side plane.
    side: DVec3,
    /// Edge id.
    edge: u32,
}

/// The reusable buffers of the clip (and of the separating-axis search).
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
    poly: Vec<ClipVert>,
    tmp: Vec<ClipVert>,
    loop_: Vec<RefEdge>,
    pub(super) used: Vec<bool>,
    /// The last frame's points' feature pairs and ids, copied from the pair's cache (ids).
    pub(super) last: Vec<(FeaturePair, u32)>,
    /// The separating-axis search's buffers.
    pub(super) sat: SatBufs,
}

/// Clips the incident feature against reference face `f` (of A when `on_a`, else of B),
/// writing the kept points (A's frame) into `out.points`; `false` when none is kept.
#[allow(clippy::too_many_arguments)]
pub(super) fn clip_face(
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
    rel: &Pose,
    on_a: bool,
    f: u32,
    keep: f64,
    clip_tol: f64,
    scratch: &mut Scratch,
    out: &mut ContactManifold,
) -> bool {
    // Reference and incident shapes, with maps of their local points into A's frame.
    let (rs, is) = if on_a { (a, b) } else { (b, a) };
    let ident = Pose::default();
    let (rpose, ipose) = if on_a { (&ident, rel) } else { (rel, &ident) };
    let plane = rs.face_plane(f).transformed(rpose);
    let nr = plane.normal;
    reference_loop(rs, rpose, f, nr, &mut scratch.loop_);

    // The incident polygon: the face most opposed to the reference normal, a segment, a point.
    scratch.poly.clear();
    let inc_face = if is.faces().is_empty() {
        None
    } else {
        Some(face_at_support(is, ipose.inverse_transform_vector(-nr)))
    };
    match inc_face {
        Some(g) => {
            incident_face(is, ipose, g, &mut scratch.poly);
            if !sutherland_hodgman(scratch, clip_tol) {
                return false;
            }
        }
        None if is.edges().len() == 1 => {
            if !clip_segment(is, ipose, clip_tol, scratch) {
                return false;
            }
        }
        None => {
            let v = 0u32;
            let p = ipose.transform_point(is.vertex(v));
            if scratch.loop_.iter().any(|re| re.side.dot(p - re.u) > clip_tol) {
                return false;
            }
            scratch.poly.push(ClipVert {
                p,
                origin: Origin::Incident(v),
                along: Along::Side(0),
            });
        }
    }

    out.points.clear();
    let inc_feature_face = inc_face.map(Feature::Face);
    for cv in scratch.poly.iter() {
        let sep = nr.dot(cv.p) - plane.offset;
        if !(sep <= keep) {
            continue;
        }
        let on_ref = cv.p - nr * sep;
        let (ref_f, inc_f) = match cv.origin {
            Origin::Incident(v) => (Feature::Face(f), Feature::Vertex(v)),
            Origin::Cut { k, edge } => (Feature::Edge(scratch.loop_[k as usize].edge), Feature::Edge(edge)),
            Origin::Corner(v) => (Feature::Vertex(v), inc_feature_face.unwrap_or(Feature::Face(f))),
        };
        let (pa_, pb_, features) = if on_a {
            (on_ref, cv.p, FeaturePair { a: ref_f, b: inc_f })
        } else {
            (cv.p, on_ref, FeaturePair { a: inc_f, b: ref_f })
        };
        out.points.push(ContactPoint {
            a: pa_,
            b: pb_,
            separation: sep,
            features,
            id: 0,
            previous: None,
        });
    }
    !out.points.is_empty()
}

/// The loop of reference face `f` of `rs` (mapped by `rpose` into A's frame, outward normal
/// `nr` there) with its side planes, into `loop_`.
fn reference_loop(rs: &ConvexPolyhedron, rpose: &Pose, f: u32, nr: DVec3, loop_: &mut Vec<RefEdge>) {
    loop_.clear();
    let m = rs.face_vertices(f).len();
    let mut h = rs.face(f).half_edge;
    for _ in 0..m {
        let he = *rs.half_edge(h);
        let next = *rs.half_edge(he.next);
        let u = rpose.transform_point(rs.vertex(he.origin));
        let w = rpose.transform_point(rs.vertex(next.origin));
        let side = (w - u).cross(nr).normalize_or_zero();
        loop_.push(RefEdge {
            vertex: he.origin,
            u,
            side,
            edge: he.edge,
        });
        h = he.next;
    }
}

/// Incident face `g` of `is` (mapped by `ipose` into A's frame) as the clip's start polygon.
fn incident_face(is: &ConvexPolyhedron, ipose: &Pose, g: u32, poly: &mut Vec<ClipVert>) {
    let mut h = is.face(g).half_edge;
    for _ in 0..is.face(g).len {
        let he = *is.half_edge(h);
        poly.push(ClipVert {
            p: ipose.transform_point(is.vertex(he.origin)),
            origin: Origin::Incident(he.origin),
            along: Along::Incident(he.edge),
        });
        h = he.next;
    }
}

/// A segment `is` (its one edge, mapped by `ipose`) clipped as a parameter interval by the
/// reference loop's side planes (a two-vertex polygon would repeat its cut points); the kept
/// stretch's ends (one point when shorter than the clip tolerance) go into `scratch.poly`.
/// `false` when nothing is kept. Segments only (flat shapes): out of line, so that the face
/// clip's code stays compact.
#[cold]
#[inline(never)]
fn clip_segment(is: &ConvexPolyhedron, ipose: &Pose, clip_tol: f64, scratch: &mut Scratch) -> bool {
    let e = 0u32;
    let [v0, v1] = is.edge(e).vertices;
    let (p0, p1) = (
        ipose.transform_point(is.vertex(v0)),
        ipose.transform_point(is.vertex(v1)),
    );
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let (mut o0, mut o1) = (Origin::Incident(v0), Origin::Incident(v1));
    for (k, re) in scratch.loop_.iter().enumerate() {
        let d0 = re.side.dot(p0 - re.u);
        let d1 = re.side.dot(p1 - re.u);
        let cut = Origin::Cut { k: k as u32, edge: e };
        if d0 > clip_tol && d1 > clip_tol {
            return false;
        }
        // One end beyond the plane, the other on or inside it (within the tolerance):
        // cut at the crossing (an end on the plane is the crossing itself).
        if d0 > clip_tol {
            let t = (d0 / (d0 - d1)).clamp(0.0, 1.0);
            if t > lo {
                lo = t;
                o0 = if d1 >= 0.0 { Origin::Incident(v1) } else { cut };
            }
        } else if d1 > clip_tol {
            let t = (d0 / (d0 - d1)).clamp(0.0, 1.0);
            if t < hi {
                hi = t;
                o1 = if d0 >= 0.0 { Origin::Incident(v0) } else { cut };
            }
        }
    }
    if lo > hi {
        return false;
    }
    // A stretch shorter than the clip tolerance (the segment through a corner, or
    // standing on end) is one point.
    let single = (p1 - p0).length() * (hi - lo) <= clip_tol;
    for (t, o) in [(lo, o0), (hi, o1)].into_iter().take(if single { 1 } else { 2 }) {
        scratch.poly.push(ClipVert {
            p: p0 + (p1 - p0) * t,
            origin: o,
            along: Along::Incident(e),
        });
    }
    true
}

/// Sutherland–Hodgman: `scratch.poly` clipped by each side plane of `scratch.loop_` in turn
/// (a point within `clip_tol` outside a plane is on it); `false` when nothing is left.
fn sutherland_hodgman(scratch: &mut Scratch, clip_tol: f64) -> bool {
    let m = scratch.loop_.len();
    for k in 0..m {
        let loop_ = &scratch.loop_;
        let re = loop_[k];
        let prev_k = (k + m - 1) % m;
        let inp = &scratch.poly;
        let outp = &mut scratch.tmp;
        outp.clear();
        let len = inp.len();
        for i in 0..len {
            let cur = inp[i];
            let nxt = inp[(i + 1) % len];
            let dc = re.side.dot(cur.p - re.u);
            let dn = re.side.dot(nxt.p - re.u);
            let (cin, nin) = (dc <= clip_tol, dn <= clip_tol);
            let cut_origin = |along: Along| match along {
                Along::Incident(e) => Origin::Cut { k: k as u32, edge: e },
                // Along another side plane: the corner between the two loop edges.
                Along::Side(j) => {
                    let j = j as usize;
                    if (k + 1) % m == j && j != prev_k {
                        Origin::Corner(loop_[j].vertex)
                    } else {
                        Origin::Corner(re.vertex)
                    }
                }
            };
            let cross = |c: &ClipVert, n: &ClipVert| {
                let t = (dc / (dc - dn)).clamp(0.0, 1.0);
                c.p + (n.p - c.p) * t
            };
            match (cin, nin) {
                (true, true) => outp.push(cur),
                (true, false) => {
                    if dc >= 0.0 {
                        outp.push(ClipVert {
                            along: Along::Side(k as u32),
                            ..cur
                        });
                    } else {
                        outp.push(cur);
                        outp.push(ClipVert {
                            p: cross(&cur, &nxt),
                            origin: cut_origin(cur.along),
                            along: Along::Side(k as u32),
                        });
                    }
                }
                (false, true) => {
                    if dn < 0.0 {
                        outp.push(ClipVert {
                            p: cross(&cur, &nxt),
                            origin: cut_origin(cur.along),
                            along: cur.along,
                        });
                    }
                }
                (false, false) => {}
            }
        }
        std::mem::swap(&mut scratch.poly, &mut scratch.tmp);
        if scratch.poly.is_empty() {
            return false;
        }
    }
    true
}
