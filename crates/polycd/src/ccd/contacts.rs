//! Every contact feature pair of two solids at one pose (FAST's "all the relevant contact
//! features" at the time of contact, issue 24 item 1).
//!
//! # Definition
//! The boundary of a convex polyhedron is its polygonal faces, that of a closed mesh its
//! triangles. Over every pair of faces (one of each solid) whose bounding boxes are within the
//! threshold, the elementary pairs are: each vertex of one face against the other face
//! (vertex–face), each edge of one against each edge of the other (edge–edge), and each edge
//! of one crossing the other face (edge–face, distance 0: only when the solids interpenetrate).
//! Every elementary pair whose distance is at most the threshold is named by the features
//! that carry its closest points — a closest point on a face that lies on one of its edges
//! (or at a vertex) names that edge (vertex), within [`CONTACT_FEATURE_SNAP_REL`] of the
//! scale — so the degenerate vertex–edge, vertex–vertex and edge–vertex cases appear as such.
//! Pairs with the same names are reported once (the smallest distance), sorted by distance
//! (the deepest first), then by name.
//!
//! Parallel configurations (an edge along a face, two faces face to face) have no unique
//! closest points: they are reported through the vertex–face and edge–edge pairs that
//! realise them (a square on a square gives its corners' vertex–face and the crossing
//! edges' edge–edge pairs), not as one edge–face or face–face pair.
//!
//! # Cost
//! Vertices are transformed to the world frame once per call and the faces' boxes swept
//! along x, so the work is about the number of face pairs within the threshold; this
//! allocates (it runs once per reported contact, not per advancement step).
//!
//! [`CONTACT_FEATURE_SNAP_REL`]: crate::core::tolerance::CONTACT_FEATURE_SNAP_REL

use crate::core::error::PolycdError;
use crate::core::geometry::{closest_on_segment, closest_segment_segment};
use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::CONTACT_FEATURE_SNAP_REL;
use crate::mesh::{Solid, SolidFeature};
use crate::shape::feature::Feature;
use std::collections::HashMap;

/// A boundary element of one solid, as the contact set's key: a vertex, an edge (its two
/// vertices, the smaller first) or a face (a convex face id, or a mesh triangle index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ContactElement {
    /// A vertex (index into the solid's vertices).
    Vertex(u32),
    /// An edge by its end vertices, the smaller index first.
    Edge(u32, u32),
    /// A face: a convex polyhedron's face id, or a mesh's triangle index.
    Face(u32),
}

/// One side of a contact feature pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContactSide {
    /// The element carrying the closest point.
    pub element: ContactElement,
    /// The element as the query answers name features: a convex polyhedron's vertex, edge or
    /// face id, or for a mesh the triangle the element was found on, named by its input face
    /// ([`TriMesh::input_face`](crate::mesh::TriMesh::input_face); for a vertex or an edge the
    /// lowest-index triangle through it among the pairs within the threshold).
    pub feature: SolidFeature,
}

/// A pair of features within the threshold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactFeature {
    /// A's feature.
    pub a: ContactSide,
    /// B's feature.
    pub b: ContactSide,
    /// The closest point on A's feature (world frame).
    pub point_a: DVec3,
    /// The closest point on B's feature (world frame).
    pub point_b: DVec3,
    /// Their distance (0 where the features touch or cross).
    pub distance: f64,
    /// The contact normal, unit, from A towards B: along `point_b − point_a` when the
    /// distance is positive; else the face's outward normal (B's face: its opposite), for two
    /// edges their cross product, turned to point from A's centre towards B's.
    pub normal: DVec3,
}

/// One solid's boundary in the world frame.
struct Boundary {
    vertices: Vec<DVec3>,
    /// Face `f`'s vertices are `corners[start[f]..start[f + 1]]`.
    corners: Vec<u32>,
    start: Vec<u32>,
    normals: Vec<DVec3>,
    /// Per face: its name in answers (convex: the face id; mesh: the input face).
    names: Vec<u32>,
    mesh: bool,
    /// Convex: edge ids by their sorted end vertices.
    edge_ids: HashMap<(u32, u32), u32>,
    center: DVec3,
    lo: Vec<DVec3>,
    hi: Vec<DVec3>,
}

impl Boundary {
    fn new(solid: Solid<'_>, pose: &Pose) -> Result<Self, PolycdError> {
        let mut b = Boundary {
            vertices: Vec::new(),
            corners: Vec::new(),
            start: vec![0],
            normals: Vec::new(),
            names: Vec::new(),
            mesh: false,
            edge_ids: HashMap::new(),
            center: DVec3::ZERO,
            lo: Vec::new(),
            hi: Vec::new(),
        };
        match solid {
            Solid::Convex(c) => {
                // A rounded shape's boundary elements are its core's (the caller grows the
                // threshold and moves the points out by the radii).
                b.vertices = c.vertices().iter().map(|&v| pose.transform_point(v)).collect();
                for f in 0..c.faces().len() as u32 {
                    b.corners.extend_from_slice(c.face_vertices(f));
                    b.start.push(b.corners.len() as u32);
                    b.normals.push(pose.transform_vector(c.face(f).normal));
                    b.names.push(f);
                }
                if c.faces().is_empty() {
                    // A point or a segment: one pseudo-face of its vertices with no normal, so
                    // the face pairs below see its vertex and its edge (a zero normal makes
                    // nothing "inside" it and nothing cross it: no face element is named).
                    b.corners.extend(0..c.vertices().len() as u32);
                    b.start.push(b.corners.len() as u32);
                    b.normals.push(DVec3::ZERO);
                    b.names.push(u32::MAX);
                }
                for (i, e) in c.edges().iter().enumerate() {
                    let [p, q] = e.vertices;
                    b.edge_ids.insert((p.min(q), p.max(q)), i as u32);
                }
                b.center = pose.transform_point(c.centroid());
            }
            Solid::Mesh(m) => {
                b.mesh = true;
                b.vertices = m.vertices().iter().map(|&v| pose.transform_point(v)).collect();
                for (t, tri) in m.triangles().iter().enumerate() {
                    b.corners.extend_from_slice(tri);
                    b.start.push(b.corners.len() as u32);
                    let [p, q, r] = tri.map(|i| b.vertices[i as usize]);
                    b.normals.push((q - p).cross(r - p).normalize_or_zero());
                    b.names.push(m.input_face(t as u32));
                }
                b.center = pose.transform_point(m.centroid());
            }
        }
        for f in 0..b.names.len() {
            let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
            for &v in b.face(f as u32) {
                lo = lo.min(b.vertices[v as usize]);
                hi = hi.max(b.vertices[v as usize]);
            }
            b.lo.push(lo);
            b.hi.push(hi);
        }
        Ok(b)
    }

    fn face(&self, f: u32) -> &[u32] {
        &self.corners[self.start[f as usize] as usize..self.start[f as usize + 1] as usize]
    }

    fn v(&self, i: u32) -> DVec3 {
        self.vertices[i as usize]
    }

    /// The answer's name of `e` found on face `f`.
    fn name(&self, e: ContactElement, f: u32) -> SolidFeature {
        if self.mesh {
            return SolidFeature::Triangle(self.names[f as usize]);
        }
        SolidFeature::Convex(match e {
            ContactElement::Vertex(v) => Feature::Vertex(v),
            ContactElement::Edge(p, q) => Feature::Edge(self.edge_ids.get(&(p, q)).copied().unwrap_or(u32::MAX)),
            ContactElement::Face(f) => Feature::Face(f),
        })
    }
}

fn edge(p: u32, q: u32) -> ContactElement {
    ContactElement::Edge(p.min(q), p.max(q))
}

/// The element of segment `[p, q]` (vertices `ip`, `iq`) carrying its point `x`.
fn on_segment(x: DVec3, p: DVec3, q: DVec3, ip: u32, iq: u32, snap: f64) -> ContactElement {
    if (x - p).length() <= snap {
        ContactElement::Vertex(ip)
    } else if (x - q).length() <= snap {
        ContactElement::Vertex(iq)
    } else {
        edge(ip, iq)
    }
}

/// Closest point of face `f` of `b` to `x`, and the element carrying it.
fn on_face(b: &Boundary, f: u32, x: DVec3, snap: f64) -> (DVec3, ContactElement) {
    let vs = b.face(f);
    let n = b.normals[f as usize];
    let p0 = b.v(vs[0]);
    let proj = x - n * n.dot(x - p0);
    // Inside (by more than the snap distance from every edge line): the face's interior.
    let k = vs.len();
    let inside = n != DVec3::ZERO
        && (0..k).all(|i| {
            let (p, q) = (b.v(vs[i]), b.v(vs[(i + 1) % k]));
            let d = q - p;
            let l = d.length();
            l > 0.0 && n.cross(d).dot(proj - p) / l > snap
        });
    if inside {
        return (proj, ContactElement::Face(f));
    }
    let mut best = (f64::INFINITY, proj, ContactElement::Face(f));
    for i in 0..k {
        let (ip, iq) = (vs[i], vs[(i + 1) % k]);
        let (c, _) = closest_on_segment(x, b.v(ip), b.v(iq));
        let d = (x - c).length_squared();
        if d < best.0 {
            best = (d, c, on_segment(c, b.v(ip), b.v(iq), ip, iq, snap));
        }
    }
    (best.1, best.2)
}

/// Where segment `[p, q]` crosses face `f` of `b` strictly inside it (by more than `snap`
/// from its boundary and from the segment's ends).
fn crossing(b: &Boundary, f: u32, p: DVec3, q: DVec3, snap: f64) -> Option<DVec3> {
    let vs = b.face(f);
    let n = b.normals[f as usize];
    let p0 = b.v(vs[0]);
    let (dp, dq) = (n.dot(p - p0), n.dot(q - p0));
    if !(dp > snap && dq < -snap || dp < -snap && dq > snap) {
        return None;
    }
    let x = p + (q - p) * (dp / (dp - dq));
    let (c, e) = on_face(b, f, x, snap);
    (e == ContactElement::Face(f) && (c - x).length() <= snap).then_some(x)
}

/// Every pair of features of `a` at `pose_a` and `b` at `pose_b` within `threshold` of each
/// other (see the module header for the definition), deduplicated, the nearest first.
///
/// Flat shapes (points, segments, polygons) take part with their vertices, edges and (for a
/// polygon) two faces. A rounded convex shape is its core plus a ball: the pairs are its
/// core's within the threshold plus the radii, each point moved out along the pair's normal by
/// its side's radius and the distance reduced by the radii (0 where the rounded shapes touch
/// or overlap).
///
/// Fails with [`PolycdError::InvalidOption`] for a negative or non-finite threshold.
pub fn contact_features(
    a: Solid<'_>,
    pose_a: &Pose,
    b: Solid<'_>,
    pose_b: &Pose,
    threshold: f64,
) -> Result<Vec<ContactFeature>, PolycdError> {
    if !(threshold.is_finite() && threshold >= 0.0) {
        return Err(PolycdError::InvalidOption {
            name: "threshold",
            message: "must be a finite length ≥ 0",
        });
    }
    crate::contract::checked_pose(pose_a)?;
    crate::contract::checked_pose(pose_b)?;
    let ba = Boundary::new(a, pose_a)?;
    let bb = Boundary::new(b, pose_b)?;
    let scale = |s: &Solid<'_>| match s {
        Solid::Convex(c) => c.bounding_radius(),
        Solid::Mesh(m) => m.scale,
    };
    let radius = |s: &Solid<'_>| match s {
        Solid::Convex(c) => c.radius(),
        Solid::Mesh(_) => 0.0,
    };
    let (ra, rb) = (radius(&a), radius(&b));
    let rounded = ra + rb > 0.0;
    // The cores' pairs within the threshold plus the radii.
    let threshold = threshold + ra + rb;
    let snap = CONTACT_FEATURE_SNAP_REL * (scale(&a) + scale(&b));
    let mut found: HashMap<(ContactElement, ContactElement), ContactFeature> = HashMap::new();
    // Faces near the other solid's box, swept along x.
    let bound = |s: &Boundary| {
        s.lo.iter().fold(DVec3::splat(f64::INFINITY), |m, &x| m.min(x))
            ..=s.hi.iter().fold(DVec3::splat(f64::NEG_INFINITY), |m, &x| m.max(x))
    };
    let near = |s: &Boundary, o: &std::ops::RangeInclusive<DVec3>| -> Vec<u32> {
        (0..s.lo.len() as u32)
            .filter(|&f| {
                let (lo, hi) = (s.lo[f as usize], s.hi[f as usize]);
                (lo - *o.end()).max_element() <= threshold && (*o.start() - hi).max_element() <= threshold
            })
            .collect()
    };
    let fa = near(&ba, &bound(&bb));
    let mut fb = near(&bb, &bound(&ba));
    fb.sort_by(|&x, &y| bb.lo[x as usize].x.total_cmp(&bb.lo[y as usize].x));
    for &f in &fa {
        let (lo, hi) = (ba.lo[f as usize], ba.hi[f as usize]);
        for &g in &fb {
            let (glo, ghi) = (bb.lo[g as usize], bb.hi[g as usize]);
            if glo.x - hi.x > threshold {
                break;
            }
            let gap = (glo - hi).max(lo - ghi).max_element();
            if gap > threshold {
                continue;
            }
            face_pair(&ba, f, &bb, g, threshold, snap, &mut found);
        }
    }
    let mut out: Vec<ContactFeature> = found.into_values().collect();
    out.sort_by(|x, y| {
        x.distance
            .total_cmp(&y.distance)
            .then(x.a.element.cmp(&y.a.element))
            .then(x.b.element.cmp(&y.b.element))
    });
    let (ca, cb) = (ba.center, bb.center);
    for c in &mut out {
        c.normal = normal(c, &ba, &bb, ca, cb, snap);
        if rounded {
            c.point_a += c.normal * ra;
            c.point_b -= c.normal * rb;
            c.distance = (c.distance - ra - rb).max(0.0);
        }
    }
    Ok(out)
}

/// Every elementary pair of face `f` of `a` and face `g` of `b`.
fn face_pair(
    a: &Boundary,
    f: u32,
    b: &Boundary,
    g: u32,
    threshold: f64,
    snap: f64,
    found: &mut HashMap<(ContactElement, ContactElement), ContactFeature>,
) {
    let mut add = |ea: ContactElement, pa: DVec3, eb: ContactElement, pb: DVec3, d: f64| {
        if !(d <= threshold) {
            return;
        }
        let side = |s: &Boundary, e, face| ContactSide {
            element: e,
            feature: s.name(e, face),
        };
        let c = ContactFeature {
            a: side(a, ea, f),
            b: side(b, eb, g),
            point_a: pa,
            point_b: pb,
            distance: d,
            normal: DVec3::ZERO,
        };
        found
            .entry((ea, eb))
            .and_modify(|o| {
                // The smallest distance; on a tie the lower face ids (deterministic names).
                let key = |x: &ContactFeature| (x.distance, triangle(x.a.feature), triangle(x.b.feature));
                if key(&c) < key(o) {
                    *o = c;
                }
            })
            .or_insert(c);
    };
    let (vf, vg) = (a.face(f), b.face(g));
    for &v in vf {
        let x = a.v(v);
        let (c, e) = on_face(b, g, x, snap);
        add(ContactElement::Vertex(v), x, e, c, (c - x).length());
    }
    for &v in vg {
        let x = b.v(v);
        let (c, e) = on_face(a, f, x, snap);
        add(e, c, ContactElement::Vertex(v), x, (c - x).length());
    }
    let (kf, kg) = (vf.len(), vg.len());
    for i in 0..kf {
        let (ip, iq) = (vf[i], vf[(i + 1) % kf]);
        let (p, q) = (a.v(ip), a.v(iq));
        for j in 0..kg {
            let (jp, jq) = (vg[j], vg[(j + 1) % kg]);
            let (r, s) = (b.v(jp), b.v(jq));
            let (x, y) = closest_segment_segment(p, q, r, s);
            add(
                on_segment(x, p, q, ip, iq, snap),
                x,
                on_segment(y, r, s, jp, jq, snap),
                y,
                (y - x).length(),
            );
        }
        if let Some(x) = crossing(b, g, p, q, snap) {
            add(edge(ip, iq), x, ContactElement::Face(g), x, 0.0);
        }
    }
    for j in 0..kg {
        let (jp, jq) = (vg[j], vg[(j + 1) % kg]);
        if let Some(x) = crossing(a, f, b.v(jp), b.v(jq), snap) {
            add(ContactElement::Face(f), x, edge(jp, jq), x, 0.0);
        }
    }
}

fn triangle(f: SolidFeature) -> u32 {
    match f {
        SolidFeature::Triangle(t) => t,
        SolidFeature::Convex(_) => 0,
    }
}

fn normal(c: &ContactFeature, a: &Boundary, b: &Boundary, ca: DVec3, cb: DVec3, snap: f64) -> DVec3 {
    if c.distance > snap {
        return (c.point_b - c.point_a) / c.distance;
    }
    let toward = (cb - ca).normalize_or_zero();
    let n = match (c.a.element, c.b.element) {
        (_, ContactElement::Face(g)) => -b.normals[g as usize],
        (ContactElement::Face(f), _) => a.normals[f as usize],
        (ContactElement::Edge(p, q), ContactElement::Edge(r, s)) => {
            let n = (a.v(q) - a.v(p)).cross(b.v(s) - b.v(r)).normalize_or_zero();
            if n.dot(toward) < 0.0 {
                -n
            } else {
                n
            }
        }
        _ => toward,
    };
    if n == DVec3::ZERO {
        if toward == DVec3::ZERO {
            DVec3::Z
        } else {
            toward
        }
    } else {
        n
    }
}
