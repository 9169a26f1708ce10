//! Lower-dimensional shapes: a point, a segment or a convex polygon, kept in the
//! [`ConvexPolyhedron`] type so that every API accepts them.
//!
//! The dimension of a point set's hull is decided **exactly** (no volume tolerance): all
//! points equal (dimension 0), all collinear — every point's three coordinate-plane
//! projections have a zero exact `orient2d` with the first two distinct points (1) —, all
//! coplanar — exact `orient3d` zero for every point against the first three non-collinear
//! ones (2) —, else a solid (3, the Quickhull path of [`crate::shape::hull`]).
//!
//! Representation (feature ids as issue 22 specifies):
//! - vertices: the hull's extreme points in input order, duplicates (first kept) and points
//!   interior to the polygon or segment (also on its edges) dropped — the rule of solids;
//! - a **polygon** of `n` corners is doubly covered: `n` edges in the boundary order starting
//!   at vertex 0, and two faces with opposite normals. Face 0 is the side whose normal is
//!   `(v1 − v0) × (v2 − v0)` (the first three vertices; no three corners are collinear), and
//!   runs counter-clockwise around that normal, so edge `k` runs from the `k`-th to the
//!   `k+1`-th corner of face 0 with `faces = [0, 1]`; face 1 runs the loop backwards.
//!   Half-edges `0..n` bound face 0, `n..2n` face 1 (`n + k` is the twin of `k`). V − E + F
//!   = n − n + 2 = 2, every vertex has two neighbours;
//! - a **segment** has two vertices, one edge `[0, 1]` and **no faces**: its edge's `faces`
//!   and both half-edges' `face` are [`NO_FACE`] (`u32::MAX`), and the two half-edges are
//!   each other's twin, `next` and `prev`. Nothing indexes a face of a segment: V-Clip,
//!   CD-Dual and HS-jump (the only face readers) refuse shapes of dimension < 3 up front,
//!   and the face loops of the rest run over `faces()`, which is empty;
//! - a **point** has one vertex and nothing else.
//!
//! Centroid: the polygon's area centroid, the segment's midpoint, the point; volume 0; the
//! two "interior points" are the centroid and the midpoint of the centroid and vertex 0,
//! with depth 0 (a flat shape has no interior). The direction table, scan blocks and
//! inscribed cones are built as for solids (a polygon's vertex graph is a cycle, on which a
//! linear function is unimodal, so the climb is exact; a vertex of degree 2 gets no cone);
//! the Dobkin–Kirkpatrick hierarchy is empty (supports through it fall back to a scan);
//! V-Clip's tables exist for polygons only.
//!
//! Contact of flat pairs (`flat_difference`): when both shapes are flat, `M = A − B` may be
//! flat too (coplanar polygons, two segments, a point and a polygon in its plane). Then no
//! translation is needed to separate the shapes: the penetration depth is 0, and EPA (which
//! needs a solid `M`) is not run. Whether the pair *overlaps* is decided by the relative
//! interiors: `relint(A − B) = relint A − relint B`, so the shapes share a relative-interior
//! point iff the origin lies in the relative interior of `M` — measured by its depth inside
//! `M` within `M`'s own plane or line (its *relative depth*).

use crate::core::error::PolycdError;
use crate::core::math::{pow2_normaliser, DMat3, DVec3};
use crate::core::predicates::{orient3d, Orientation};
use crate::core::tolerance::VALIDATION_REL;
use crate::shape::dk::DkHierarchy;
use crate::shape::flat_hull::FlatHull;
use crate::shape::polyhedron::{ConvexPolyhedron, ValidityReport};
use crate::shape::tables::{ScanBlocks, StartTable, SupportHints, VClipTables, VertexCones};
use crate::shape::topology::{Edge, Face, HalfEdge};
use std::sync::OnceLock;

/// The name of a shape's kind by dimension: "point", "segment", "polygon" or "solid".
pub fn kind_name(dimension: u8) -> &'static str {
    match dimension {
        0 => "point",
        1 => "segment",
        2 => "polygon",
        _ => "solid",
    }
}

/// `Err(UnsupportedShape)` naming the lower-dimensional one of `a`, `b` when either is flat
/// (for algorithms that need solids).
pub fn require_solids(
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
    algorithm: &'static str,
    reason: &'static str,
) -> Result<(), PolycdError> {
    let d = a.dimension.min(b.dimension);
    if d < 3 {
        return Err(PolycdError::UnsupportedShape {
            algorithm,
            shape: kind_name(d),
            reason,
        });
    }
    Ok(())
}

/// The topology arrays of a point, segment or polygon, and its centroid.
struct FlatTopology {
    half_edges: Vec<HalfEdge>,
    edges: Vec<Edge>,
    faces: Vec<Face>,
    adj_start: Vec<u32>,
    adj_vertex: Vec<u32>,
    adj_half_edge: Vec<u32>,
    face_start: Vec<u32>,
    face_vertex: Vec<u32>,
    centroid: DVec3,
}

impl FlatTopology {
    fn empty(centroid: DVec3) -> Self {
        Self {
            half_edges: Vec::new(),
            edges: Vec::new(),
            faces: Vec::new(),
            adj_start: vec![0u32],
            adj_vertex: Vec::new(),
            adj_half_edge: Vec::new(),
            face_start: vec![0u32],
            face_vertex: Vec::new(),
            centroid,
        }
    }

    /// A point: one vertex, no edge, no face.
    fn point(p: DVec3) -> Self {
        let mut t = Self::empty(p);
        t.adj_start.push(0);
        t
    }

    /// A segment: one edge, its two half-edges, no face.
    fn segment(vertices: &[DVec3]) -> Self {
        let mut t = Self::empty(DVec3::ZERO);
        for (k, (o, e)) in [(0u32, 0u32), (1, 1)].into_iter().enumerate() {
            t.half_edges.push(HalfEdge {
                origin: o,
                twin: 1 - e,
                next: 1 - e,
                prev: 1 - e,
                face: NO_FACE,
                edge: 0,
            });
            t.adj_vertex.push(1 - o);
            t.adj_half_edge.push(k as u32);
            t.adj_start.push(k as u32 + 1);
        }
        t.edges.push(Edge {
            vertices: [0, 1],
            faces: [NO_FACE, NO_FACE],
            half_edge: 0,
        });
        t.centroid = vertices[0] + (vertices[1] - vertices[0]) * 0.5;
        t
    }

    /// A polygon from its boundary (counter-clockwise about face 0's normal): two faces,
    /// face 0 and its reverse; normal and centroid on coordinates scaled by `s`.
    fn polygon(vertices: &[DVec3], boundary: &[u32], s: f64) -> Result<Self, PolycdError> {
        let nv = vertices.len();
        let inv = 1.0 / s;
        let mut t = Self::empty(DVec3::ZERO);
        let n = boundary.len() as u32;
        if n < 3 || boundary.len() != nv {
            return Err(PolycdError::InvalidBoundary(format!(
                "internal: a polygon of {nv} vertices with a boundary of {n}"
            )));
        }
        let at = |k: u32| boundary[(k % n) as usize];
        // Face 0's half-edges k: at(k) → at(k+1); face 1's n + k: at(k+1) → at(k).
        for k in 0..n {
            t.half_edges.push(HalfEdge {
                origin: at(k),
                twin: n + k,
                next: (k + 1) % n,
                prev: (k + n - 1) % n,
                face: 0,
                edge: k,
            });
        }
        for k in 0..n {
            t.half_edges.push(HalfEdge {
                origin: at(k + 1),
                twin: k,
                next: n + (k + n - 1) % n,
                prev: n + (k + 1) % n,
                face: 1,
                edge: k,
            });
            t.edges.push(Edge {
                vertices: [at(k), at(k + 1)],
                faces: [0, 1],
                half_edge: k,
            });
        }
        // Vertex rings: the outgoing half-edge on face 0, then the one on face 1.
        let mut pos = vec![0u32; nv];
        for k in 0..n {
            pos[at(k) as usize] = k;
        }
        for &k in &pos {
            let back = (k + n - 1) % n;
            t.adj_vertex.extend_from_slice(&[at(k + 1), at(back)]);
            t.adj_half_edge.extend_from_slice(&[k, n + back]);
            t.adj_start.push(t.adj_vertex.len() as u32);
        }
        t.face_vertex.extend_from_slice(boundary);
        t.face_start.push(n);
        t.face_vertex.push(boundary[0]);
        t.face_vertex.extend(boundary[1..].iter().rev());
        t.face_start.push(2 * n);
        // Newell normal (on scaled coordinates about the vertex mean) and the area
        // centroid by a fan from corner 0.
        let mean = vertices.iter().fold(DVec3::ZERO, |a, p| a + *p) / nv as f64;
        let rel = |v: u32| (vertices[v as usize] - mean) * s;
        let mut normal = DVec3::ZERO;
        for k in 0..n {
            normal += rel(at(k)).cross(rel(at(k + 1)));
        }
        let len = normal.length();
        if !(len > 0.0) || !len.is_finite() {
            return Err(PolycdError::InvalidBoundary("the polygon has zero area".into()));
        }
        let normal = normal / len;
        let (mut area, mut moment) = (0.0, DVec3::ZERO);
        for k in 1..n - 1 {
            let (a, b, c) = (rel(at(0)), rel(at(k)), rel(at(k + 1)));
            let w = (b - a).cross(c - a).dot(normal);
            area += w;
            moment += (a + b + c) * w;
        }
        t.centroid = if area > 0.0 {
            mean + moment / (3.0 * area) * inv
        } else {
            mean
        };
        let offset = vertices
            .iter()
            .map(|v| normal.dot(*v))
            .fold(f64::NEG_INFINITY, f64::max);
        let back = vertices
            .iter()
            .map(|v| -normal.dot(*v))
            .fold(f64::NEG_INFINITY, f64::max);
        t.faces.push(Face {
            normal,
            offset,
            half_edge: 0,
            len: n,
        });
        t.faces.push(Face {
            normal: -normal,
            offset: back,
            half_edge: n + n - 1,
            len: n,
        });
        Ok(t)
    }
}

/// The face id stored where a segment's edge and half-edges would name a face (it has none).
pub const NO_FACE: u32 = u32::MAX;

impl ConvexPolyhedron {
    /// A point, segment or polygon from its [`FlatHull`] (see the module header).
    pub(crate) fn build_flat(h: FlatHull) -> Result<Self, PolycdError> {
        let FlatHull {
            dimension,
            vertices,
            source,
            boundary,
        } = h;
        let magnitude = vertices.iter().fold(0.0f64, |m, p| m.max(p.abs().max_element()));
        let s = pow2_normaliser(magnitude).unwrap_or(1.0);
        let inv = 1.0 / s;
        let (mut lo, mut hi) = (vertices[0], vertices[0]);
        for p in &vertices {
            lo = lo.min(*p);
            hi = hi.max(*p);
        }
        let t = match dimension {
            0 => FlatTopology::point(vertices[0]),
            1 => FlatTopology::segment(&vertices),
            _ => FlatTopology::polygon(&vertices, &boundary, s)?,
        };
        let FlatTopology {
            half_edges,
            edges,
            faces,
            adj_start,
            adj_vertex,
            adj_half_edge,
            face_start,
            face_vertex,
            centroid,
        } = t;
        let sphere_center = (lo + hi) * 0.5;
        let sphere_radius = vertices
            .iter()
            .fold(0.0f64, |m, p| m.max(((*p - sphere_center) * s).length() * inv));
        let interior = [centroid, centroid + (vertices[0] - centroid) * 0.5];
        let mut poly = ConvexPolyhedron {
            vertices,
            half_edges,
            edges,
            faces,
            adj_start,
            adj_vertex,
            adj_half_edge,
            face_start,
            face_vertex,
            source,
            centroid,
            interior,
            interior_depth: [0.0; 2],
            volume: 0.0,
            sphere_center,
            sphere_radius,
            magnitude,
            tol_extent: sphere_radius + sphere_center.abs().element_sum() + magnitude,
            dimension,
            radius: 0.0,
            dk: OnceLock::from(DkHierarchy::empty()),
            hints: SupportHints::default(),
            scan_blocks: ScanBlocks::default(),
            cones: VertexCones::default(),
            start_table: StartTable::default(),
            // A polygon's V-Clip tables are built on first use, as a solid's; points and
            // segments have none.
            vclip: if dimension == 2 {
                OnceLock::new()
            } else {
                OnceLock::from(VClipTables::default())
            },
            parallelepiped: OnceLock::from(None),
        };
        let view = poly.topology();
        let scan_blocks = ScanBlocks::build(&view);
        let cones = VertexCones::build(&view);
        let start_table = StartTable::build(&view);
        poly.scan_blocks = scan_blocks;
        poly.cones = cones;
        poly.start_table = start_table;
        poly.hints = SupportHints::build(
            poly.vertices.len(),
            |d| poly.support_scan(d),
            |d, v| poly.support_climb(d, v),
        );
        Ok(poly)
    }

    /// [`ConvexPolyhedron::validate`] for a point, segment or polygon: V − E + F (1, 1, 2),
    /// distinct vertices, a polygon's corners in its faces' planes (within tolerance) and
    /// strictly convex (exact `orient3d` against a point above face 0), its two faces
    /// opposite; `min_centroid_depth` is 0 and `ray_crossings` 0 (no interior).
    pub(crate) fn validate_flat(&self) -> ValidityReport {
        let (v, e, f) = self.counts();
        let euler = v as i64 - e as i64 + f as i64;
        let tol = VALIDATION_REL * self.magnitude.max(self.sphere_radius);
        let mut planarity: f64 = 0.0;
        let mut corners = 0usize;
        let expected = match self.dimension {
            0 => (1, 0, 0),
            1 => (2, 1, 0),
            _ => (v, v, 2),
        };
        let mut ok = (v, e, f) == expected && euler == if self.dimension == 2 { 2 } else { 1 };
        if self.dimension == 1 {
            ok &= self.vertices[0] != self.vertices[1];
        }
        if self.dimension == 2 && f == 2 {
            let lift = self.sphere_radius.max(self.magnitude).max(f64::MIN_POSITIVE);
            for fi in 0..2 {
                let pl = self.face_plane(fi);
                let fv = self.face_vertices(fi);
                for (k, &vi) in fv.iter().enumerate() {
                    let a = self.vertex(vi);
                    let b = self.vertex(fv[(k + 1) % fv.len()]);
                    let c = self.vertex(fv[(k + 2) % fv.len()]);
                    planarity = planarity.max(pl.signed_distance(a).abs());
                    if orient3d(a, b, c, a + pl.normal * lift) != Orientation::Above {
                        corners += 1;
                    }
                }
            }
            ok &= self.faces[0].normal.dot(self.faces[1].normal) < 0.0;
        }
        ValidityReport {
            euler_characteristic: euler,
            max_planarity_error: planarity,
            max_convexity_error: 0.0,
            min_centroid_depth: 0.0,
            non_convex_edges: 0,
            non_convex_corners: corners,
            ray_crossings: 0,
            valid: ok && planarity <= tol && corners == 0,
        }
    }
}

/// How `M = A − B` sits when it is flat within a tolerance ([`flat_difference`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FlatDifference {
    /// A unit vector normal to `M`'s plane or line (A's frame): both shapes lie in planes
    /// normal to it, within the tolerance, so it weakly separates them.
    pub(crate) normal: DVec3,
    /// Depth of the origin inside `M` within `M`'s plane or line (negative outside; `+∞` when
    /// `M` is a single point: both shapes points).
    pub(crate) relative_depth: f64,
}

/// The extent `max − min` of `p`'s vertices along `u`.
fn width(p: &ConvexPolyhedron, u: DVec3) -> f64 {
    let (hi, lo) = (p.support_climb_hinted(u, 0), p.support_climb_hinted(-u, 0));
    u.dot(p.vertex(hi)) - u.dot(p.vertex(lo))
}

/// The support function of `M = A − rot·B − trans` along `u` (A's frame).
fn support_m(a: &ConvexPolyhedron, b: &ConvexPolyhedron, rot: &DMat3, trans: DVec3, u: DVec3) -> f64 {
    let ia = a.support_climb_hinted(u, 0);
    let ub = rot.transpose() * -u;
    let ib = b.support_climb_hinted(ub, 0);
    u.dot(a.vertex(ia)) - u.dot(*rot * b.vertex(ib) + trans)
}

/// The direction of a segment (unit, A's frame after `rot`), `None` for other shapes.
fn line_of(p: &ConvexPolyhedron, rot: &DMat3) -> Option<(DVec3, f64)> {
    (p.dimension == 1).then(|| {
        let d = *rot * (p.vertex(1) - p.vertex(0));
        let l = d.length();
        (d / l, l)
    })
}

/// When both shapes are flat (dimension < 3) and `M = A − B` (B mapped into A's frame by
/// `x ↦ rot·x + trans`) lies within `tol` of a plane or a line: its normal and the origin's
/// depth within it (see [`FlatDifference`]); `None` when `M` is solid (or a shape is).
///
/// `M` is a line when both shapes are points or segments along one direction (their extent
/// across it within `tol`), and a plane when a polygon's normal (or the cross product of two
/// segments) has both shapes' extents along it within `tol`. The relative depth is the least
/// support value of `M` over the in-plane normals of every edge of A and B (both signs; a
/// superset of the edge normals of `M`'s projection, each giving an upper bound attained at
/// an edge normal) — O((|A| + |B|) · climb); on a line, the smaller of its two supports.
pub(crate) fn flat_difference(
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
    rot: &DMat3,
    trans: DVec3,
    tol: f64,
) -> Option<FlatDifference> {
    if a.dimension == 3 || b.dimension == 3 {
        return None;
    }
    let ident = DMat3::IDENTITY;
    let (la, lb) = (line_of(a, &ident), line_of(b, rot));
    // A line: points and segments along one direction.
    if a.dimension <= 1 && b.dimension <= 1 {
        let e = match (la, lb) {
            (Some((ea, l1)), Some((eb, l2))) => {
                let e = if l1 >= l2 { ea } else { eb };
                // Extents across e.
                let across = |d: DVec3, l: f64| (d * l - e * (d.dot(e) * l)).length();
                (across(ea, l1) + across(eb, l2) <= tol).then_some(e)
            }
            (Some((e, _)), None) | (None, Some((e, _))) => Some(e),
            (None, None) => {
                // Two points: M is a point.
                let d = a.vertex(0) - (*rot * b.vertex(0) + trans);
                let n = d.normalize_or_zero();
                return Some(FlatDifference {
                    normal: if n == DVec3::ZERO { DVec3::Z } else { n },
                    relative_depth: f64::INFINITY,
                });
            }
        };
        if let Some(e) = e {
            let depth = support_m(a, b, rot, trans, e).min(support_m(a, b, rot, trans, -e));
            return Some(FlatDifference {
                normal: e.any_orthonormal_vector(),
                relative_depth: depth,
            });
        }
    }
    // A plane: a polygon's normal, or the two segments' cross product.
    let n = if a.dimension == 2 {
        a.faces[0].normal
    } else if b.dimension == 2 {
        *rot * b.faces[0].normal
    } else {
        let (ea, eb) = (la?.0, lb?.0);
        ea.cross(eb).normalize_or_zero()
    };
    if n == DVec3::ZERO || !n.is_finite() {
        return None;
    }
    if width(a, n) + width(b, rot.transpose() * n) > tol {
        return None;
    }
    // In-plane normals of every edge of A and B.
    let mut depth = f64::INFINITY;
    for (p, r) in [(a, ident), (b, *rot)] {
        for e in p.edges() {
            let d = r * (p.vertex(e.vertices[1]) - p.vertex(e.vertices[0]));
            let u = n.cross(d).normalize_or_zero();
            if u == DVec3::ZERO {
                continue;
            }
            depth = depth
                .min(support_m(a, b, rot, trans, u))
                .min(support_m(a, b, rot, trans, -u));
        }
    }
    Some(FlatDifference {
        normal: n,
        relative_depth: depth,
    })
}
