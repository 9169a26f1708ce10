//! `ConvexPolyhedron`: a convex polytope with its full boundary topology, precomputed.
//!
//! Storage is a half-edge structure plus flat (CSR) adjacency arrays, all indexed by `u32`:
//! - every face is a convex polygon, its half-edges in counter-clockwise order seen from
//!   outside, with an outward unit normal and plane offset (`normal · x = offset` on it);
//! - every edge has its two vertices `[tail, head]` and two faces `[left, right]`: `left` is
//!   the face whose boundary runs tail → head, `right` the one that runs head → tail;
//! - every vertex lists its neighbours (and the edges to them) in counter-clockwise order
//!   seen from outside.
//!
//! Shapes are immutable after construction and `Send + Sync`; every query borrows them.

use crate::core::error::PolycdError;
use crate::core::math::{DVec3, Plane};
use crate::core::predicates::{orient3d, Orientation};
use crate::core::progress::{Phase, PROGRESS_STRIDE};
use crate::core::tolerance::{FEATURE_SNAP_REL, VALIDATION_REL};
use crate::shape::dk::DkHierarchy;
use crate::shape::feature::Feature;
use crate::shape::hull;
use crate::shape::parallelepiped::Parallelepiped;
use crate::shape::tables::{ScanBlocks, StartTable, SupportHints, VClipTables, VertexCones};
use crate::shape::topology::TopologyView;
pub use crate::shape::topology::{Edge, Face, HalfEdge};
use std::sync::OnceLock;

/// A convex polyhedron with full vertex/edge/face topology.
#[derive(Clone, Debug)]
pub struct ConvexPolyhedron {
    pub(crate) vertices: Vec<DVec3>,
    pub(crate) half_edges: Vec<HalfEdge>,
    pub(crate) edges: Vec<Edge>,
    pub(crate) faces: Vec<Face>,
    /// CSR: neighbours of vertex `v` are `adj_vertex[adj_start[v]..adj_start[v+1]]`.
    pub(crate) adj_start: Vec<u32>,
    pub(crate) adj_vertex: Vec<u32>,
    /// Outgoing half-edge to the matching neighbour.
    pub(crate) adj_half_edge: Vec<u32>,
    /// CSR: vertices of face `f`, counter-clockwise.
    pub(crate) face_start: Vec<u32>,
    pub(crate) face_vertex: Vec<u32>,
    pub(crate) source: Vec<u32>,
    pub(crate) centroid: DVec3,
    pub(crate) interior: [DVec3; 2],
    /// Lower bounds on the depth of `interior[k]` below every face plane.
    pub(crate) interior_depth: [f64; 2],
    pub(crate) volume: f64,
    pub(crate) sphere_center: DVec3,
    pub(crate) sphere_radius: f64,
    pub(crate) magnitude: f64,
    /// `sphere_radius + |sphere_center|₁ + magnitude + radius`: the shape's share of
    /// `query::contact_tolerance_bound`, summed once here.
    pub(crate) tol_extent: f64,
    /// The rounding radius: the shape is the core polytope (everything above) dilated by a
    /// ball of this radius (0: the polytope itself). See [`ConvexPolyhedron::with_radius`].
    pub(crate) radius: f64,
    /// Affine dimension of the shape: 0 point, 1 segment, 2 polygon, 3 solid
    /// (see [`crate::shape::flat`]).
    pub(crate) dimension: u8,
    /// Built on first use ([`hierarchy`](Self::hierarchy)): a hull of 10⁶ vertices spends
    /// about half its construction here, which callers that never ask for a hierarchical support
    /// (`polycd hull`, the queries whose algorithms climb instead) should not pay.
    pub(crate) dk: OnceLock<DkHierarchy>,
    /// Hill-climbing starts by direction (see [`crate::shape::support`]).
    pub(crate) hints: SupportHints,
    /// Small hulls' vertices laid out for the support scan (see [`crate::shape::support`]).
    pub(crate) scan_blocks: ScanBlocks,
    /// Inscribed normal cones per vertex (see [`crate::shape::support`]; HS-jump's paired climbs).
    pub(crate) cones: VertexCones,
    /// CD-Dual's per-shape precomputation (inertia ellipsoid, stack sizing).
    pub(crate) start_table: StartTable,
    /// V-Clip's Voronoi-plane vectors per half-edge (see [`crate::vclip`]), built on first
    /// use ([`vclip_tables`](Self::vclip_tables)): 80 bytes per half-edge, 0.5 GB for a
    /// 10⁶-vertex hull, which only V-Clip reads.
    pub(crate) vclip: OnceLock<VClipTables>,
    /// The parallelepiped table (see [`crate::shape::parallelepiped`]), built on first use.
    pub(crate) parallelepiped: OnceLock<Option<Parallelepiped>>,
}

/// What [`ConvexPolyhedron::validate`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidityReport {
    /// V − E + F.
    pub euler_characteristic: i64,
    /// Largest distance of a face's vertex from that face's plane.
    pub max_planarity_error: f64,
    /// Largest distance of a face's corner next to an edge above the plane of the face on
    /// the other side of that edge (0 when convex: negative values are
    /// not reported; local, see [`ConvexPolyhedron::validate`]).
    pub max_convexity_error: f64,
    /// Smallest interior margin: the least distance of the centroid below a face plane.
    pub min_centroid_depth: f64,
    /// Edges where the corner after the edge on one face is not strictly below the plane
    /// through the edge and the corner after it on the other face (exact `orient3d`).
    pub non_convex_edges: usize,
    /// Face corners where the polygon does not turn strictly left seen from outside (exact).
    pub non_convex_corners: usize,
    /// Faces crossed by a ray from the centroid through one face (1 when convex).
    pub ray_crossings: usize,
    /// Whether every check passed within tolerance.
    pub valid: bool,
}

impl ConvexPolyhedron {
    /// The convex hull of a point cloud (duplicates allowed, interior points dropped). A cloud
    /// whose hull has dimension 0, 1 or 2 (decided exactly: one distinct point, all points
    /// collinear, all coplanar) gives a point, a segment or a convex polygon
    /// ([`dimension`](Self::dimension); representation in [`crate::shape::flat`]).
    pub fn from_points(points: &[DVec3]) -> Result<Self, PolycdError> {
        Self::from_points_with_progress(points, &mut |_, _, _| {})
    }

    /// [`from_points`](Self::from_points), reporting progress through `progress(phase, done,
    /// total)` (see [`crate::core::progress`]); the same result.
    ///
    /// Cost of each phase at 10⁶ points (release build; BENCHMARKS.md, "Building large
    /// hulls", has the figures and the command, `polycd info --timings` measures them):
    /// - points uniform in a ball (≈ 5·10³ extreme): [`Phase::Hull`] (duplicate sort,
    ///   Quickhull over exact `orient3d`, O(n log n) expected) ≈ 0.5 s of CPU; every later
    ///   phase is over the few thousand vertices only and takes milliseconds;
    /// - points on a sphere (every point a vertex): every phase is O(n) or O(n log n) and
    ///   dominated by memory traffic — [`Phase::Hull`], [`Phase::Merge`] (facets into
    ///   faces, O(F log F)), [`Phase::Topology`] (half-edges by sorted edge lists, rings,
    ///   planes, O(E log d); over vertices renumbered in face order from 2¹⁵ vertices on),
    ///   [`Phase::Tables`] (support hints, cones, CD-Dual's table, O(V)). Not here: the DK
    ///   hierarchy ([`hierarchy`](Self::hierarchy); holes of removed vertices filled locally,
    ///   O(n), over a Morton-ordered numbering for large shapes) and V-Clip's tables are built
    ///   on first use; [`validate`](Self::validate) is O(V + E + F). BENCHMARKS.md has each
    ///   phase's share at 10⁶. The construction steps are in `shape/construct.rs`.
    pub fn from_points_with_progress(
        points: &[DVec3],
        progress: &mut dyn FnMut(Phase, u64, u64),
    ) -> Result<Self, PolycdError> {
        hull::check_points(points)?;
        if let Some(flat) = crate::shape::flat_hull::flat_hull(points)? {
            return Self::build_flat(flat);
        }
        let h = hull::convex_hull_with_progress(points, progress)?;
        let mut p = Self::build_with_progress(h.vertices, &h.faces, false, progress)?;
        p.source = h.source;
        Ok(p)
    }

    /// The convex hull of points given as `[x, y, z]` arrays.
    pub fn from_arrays(points: &[[f64; 3]]) -> Result<Self, PolycdError> {
        let pts: Vec<DVec3> = points.iter().map(|p| DVec3::from_array(*p)).collect();
        Self::from_points(&pts)
    }

    /// A polyhedron from an explicit boundary representation: vertices and faces as vertex
    /// index loops, counter-clockwise seen from outside. The input is validated: it must be a
    /// closed 2-manifold of genus 0 whose faces are planar convex polygons and whose edges are
    /// all convex (within [`VALIDATION_REL`] of the scale); every vertex must be used and be a
    /// corner (no collinear or flat vertices). Flat shapes (points, segments, polygons) are
    /// not accepted here (an error): build them with [`from_points`](Self::from_points).
    pub fn from_faces(vertices: &[DVec3], faces: &[Vec<u32>]) -> Result<Self, PolycdError> {
        hull::check_points(vertices)?;
        let mut p = Self::build(vertices.to_vec(), faces, true)?;
        p.source = (0..vertices.len() as u32).collect();
        Ok(p)
    }

    fn build(vertices: Vec<DVec3>, faces: &[Vec<u32>], strict: bool) -> Result<Self, PolycdError> {
        Self::build_with_progress(vertices, faces, strict, &mut |_, _, _| {})
    }

    /// Releases the spare capacity of the topology arrays (a shape kept in large numbers,
    /// such as a mesh's hull-tree nodes, holds only what it uses). No value changes.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.vertices.shrink_to_fit();
        self.half_edges.shrink_to_fit();
        self.edges.shrink_to_fit();
        self.faces.shrink_to_fit();
        self.adj_start.shrink_to_fit();
        self.adj_vertex.shrink_to_fit();
        self.adj_half_edge.shrink_to_fit();
        self.face_start.shrink_to_fit();
        self.face_vertex.shrink_to_fit();
        self.source.shrink_to_fit();
    }

    /// The topology arrays, borrowed for the table builders.
    pub(crate) fn topology(&self) -> TopologyView<'_> {
        TopologyView {
            vertices: &self.vertices,
            half_edges: &self.half_edges,
            faces: &self.faces,
            adj_start: &self.adj_start,
            adj_vertex: &self.adj_vertex,
            adj_half_edge: &self.adj_half_edge,
        }
    }

    /// This shape with every coordinate multiplied by `s`, a power of two (exact: the copy
    /// has the same topology and the precomputed data the shape would have at that size).
    /// For queries outside the safe band of coordinate magnitudes (`query::on_scaled`).
    pub(crate) fn scaled_by(&self, s: f64) -> Result<Self, PolycdError> {
        let vertices: Vec<DVec3> = self.vertices.iter().map(|v| *v * s).collect();
        if self.dimension < 3 {
            // Every vertex is extreme and in id order: the same ids, boundary and faces.
            let flat = crate::shape::flat_hull::flat_hull(&vertices)?
                .ok_or_else(|| PolycdError::InvalidBoundary("internal: a flat shape scaled to a solid".into()))?;
            let mut p = Self::build_flat(flat)?;
            p.source = self.source.clone();
            return Ok(p);
        }
        let faces: Vec<Vec<u32>> = (0..self.faces.len() as u32)
            .map(|f| self.face_vertices(f).to_vec())
            .collect();
        let mut p = Self::build(vertices, &faces, false)?;
        p.source = self.source.clone();
        // A power of two: the scaled radius is exact, as the coordinates are.
        p.with_radius(self.radius * s)
    }

    /// This shape rounded by `radius`: the Minkowski sum of its core polytope with a ball of
    /// that radius (a rounded box, a rounded polygon; a sphere is a point plus `r`, a capsule a
    /// segment plus `r`). Replaces any previous radius; `0` is the polytope itself, with
    /// today's answers bit for bit.
    ///
    /// The core geometry (vertices, edges, faces, [`bounding_sphere`](Self::bounding_sphere),
    /// [`scale`](Self::scale), the tables) stays the core's: the algorithms answer for the
    /// cores and the query layer ([`crate::query`]) turns their answers into the rounded
    /// ones. [`bounding_radius`](Self::bounding_radius) includes the radius.
    ///
    /// Errors: [`PolycdError::BadRadius`] when `radius` is negative, NaN, infinite or above
    /// [`MAX_COORDINATE`](crate::core::tolerance::MAX_COORDINATE).
    pub fn with_radius(mut self, radius: f64) -> Result<Self, PolycdError> {
        if !(0.0..=crate::core::tolerance::MAX_COORDINATE).contains(&radius) {
            return Err(PolycdError::BadRadius { value: radius });
        }
        self.radius = radius;
        self.tol_extent = self.sphere_radius + self.sphere_center.abs().element_sum() + self.magnitude + radius;
        Ok(self)
    }

    /// The rounding radius (0 for a plain polytope; see [`with_radius`](Self::with_radius)).
    #[inline]
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// The radius of a ball about [`bounding_sphere`](Self::bounding_sphere)'s centre that
    /// holds the rounded shape: the core's bounding radius plus the rounding radius (for
    /// broad phases and culling).
    #[inline]
    pub fn bounding_radius(&self) -> f64 {
        self.sphere_radius + self.radius
    }

    /// Vertex positions (local frame).
    #[inline]
    pub fn vertices(&self) -> &[DVec3] {
        &self.vertices
    }
    /// One vertex.
    #[inline]
    pub fn vertex(&self, v: u32) -> DVec3 {
        self.vertices[v as usize]
    }
    /// All half-edges.
    #[inline]
    pub fn half_edges(&self) -> &[HalfEdge] {
        &self.half_edges
    }
    /// One half-edge.
    #[inline]
    pub fn half_edge(&self, h: u32) -> &HalfEdge {
        &self.half_edges[h as usize]
    }
    /// All edges.
    #[inline]
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }
    /// One edge.
    #[inline]
    pub fn edge(&self, e: u32) -> &Edge {
        &self.edges[e as usize]
    }
    /// All faces.
    #[inline]
    pub fn faces(&self) -> &[Face] {
        &self.faces
    }
    /// One face.
    #[inline]
    pub fn face(&self, f: u32) -> &Face {
        &self.faces[f as usize]
    }
    /// The plane of face `f`.
    #[inline]
    pub fn face_plane(&self, f: u32) -> Plane {
        let face = &self.faces[f as usize];
        Plane {
            normal: face.normal,
            offset: face.offset,
        }
    }
    /// Vertices of face `f`, counter-clockwise seen from outside.
    #[inline]
    pub fn face_vertices(&self, f: u32) -> &[u32] {
        &self.face_vertex[self.face_start[f as usize] as usize..self.face_start[f as usize + 1] as usize]
    }
    /// Half-edges of face `f`, counter-clockwise.
    pub fn face_half_edges(&self, f: u32) -> impl Iterator<Item = u32> + '_ {
        let face = self.faces[f as usize];
        let mut h = face.half_edge;
        (0..face.len).map(move |_| {
            let cur = h;
            h = self.half_edges[h as usize].next;
            cur
        })
    }
    /// Neighbouring vertices of `v`, counter-clockwise seen from outside.
    #[inline]
    pub fn neighbors(&self, v: u32) -> &[u32] {
        &self.adj_vertex[self.adj_start[v as usize] as usize..self.adj_start[v as usize + 1] as usize]
    }
    /// Outgoing half-edges of `v`, in the same order as [`neighbors`](Self::neighbors).
    #[inline]
    pub fn outgoing(&self, v: u32) -> &[u32] {
        &self.adj_half_edge[self.adj_start[v as usize] as usize..self.adj_start[v as usize + 1] as usize]
    }
    /// Number of vertices, edges, faces.
    pub fn counts(&self) -> (usize, usize, usize) {
        (self.vertices.len(), self.edges.len(), self.faces.len())
    }
    /// Index of each vertex in the point cloud or vertex list it was built from.
    pub fn source_indices(&self) -> &[u32] {
        &self.source
    }
    /// Affine dimension: 0 for a point, 1 a segment, 2 a convex polygon, 3 a solid.
    pub fn dimension(&self) -> u8 {
        self.dimension
    }
    /// Volume centroid (strictly interior); for flat shapes the area centroid of a polygon,
    /// the midpoint of a segment, the point itself.
    pub fn centroid(&self) -> DVec3 {
        self.centroid
    }
    /// Two distinct strictly interior points (CD-Dual §4.1 needs a choice of interior points).
    pub fn interior_points(&self) -> [DVec3; 2] {
        self.interior
    }
    /// Lower bounds on how deep each of [`interior_points`](Self::interior_points) lies below
    /// every face plane (precomputed: a ball of that radius around the point is inside).
    pub fn interior_depths(&self) -> [f64; 2] {
        self.interior_depth
    }
    /// Enclosed volume.
    pub fn volume(&self) -> f64 {
        self.volume
    }
    /// A bounding sphere (centre, radius).
    pub fn bounding_sphere(&self) -> (DVec3, f64) {
        (self.sphere_center, self.sphere_radius)
    }
    /// The shape's length scale: its bounding radius. Tolerances are relative to it.
    pub fn scale(&self) -> f64 {
        self.sphere_radius
    }
    /// Largest coordinate magnitude (sets the rounding level of the vertex coordinates).
    pub fn magnitude(&self) -> f64 {
        self.magnitude
    }
    /// The lowest-dimensional feature holding the boundary point `p` (local frame): a vertex
    /// or an edge within [`FEATURE_SNAP_REL`] × scale of it, else the face whose plane is
    /// nearest. For labelling witness points when the ids that produced them span no single
    /// feature (rounding-level weights); O(V + E + F).
    pub(crate) fn feature_at(&self, p: DVec3) -> Feature {
        let tol = FEATURE_SNAP_REL * self.scale().max(self.magnitude());
        let mut best = (f64::INFINITY, Feature::Vertex(0));
        for (i, v) in self.vertices().iter().enumerate() {
            let d = (*v - p).length();
            if d < best.0 {
                best = (d, Feature::Vertex(i as u32));
            }
        }
        if best.0 <= tol {
            return best.1;
        }
        let mut edge = (f64::INFINITY, Feature::Vertex(0));
        for (i, e) in self.edges().iter().enumerate() {
            let (q, _) =
                crate::core::geometry::closest_on_segment(p, self.vertex(e.vertices[0]), self.vertex(e.vertices[1]));
            let d = (q - p).length();
            if d < edge.0 {
                edge = (d, Feature::Edge(i as u32));
            }
        }
        if edge.0 <= tol {
            return edge.1;
        }
        let mut face = (f64::INFINITY, best.1);
        for f in 0..self.faces().len() as u32 {
            let d = self.face_plane(f).signed_distance(p).abs();
            if d < face.0 {
                face = (d, Feature::Face(f));
            }
        }
        face.1
    }
    /// The Dobkin–Kirkpatrick hierarchy of this shape, built on the first call (O(n): each
    /// level's holes filled locally, see [`crate::shape::dk`]).
    pub fn hierarchy(&self) -> &DkHierarchy {
        self.dk.get_or_init(|| DkHierarchy::build(&self.topology()))
    }

    /// [`hierarchy`](Self::hierarchy), reporting `(Phase::Hierarchy, 0, 1)` before and
    /// `(Phase::Hierarchy, 1, 1)` after building it (nothing when it is already built).
    pub fn hierarchy_with_progress(&self, progress: &mut dyn FnMut(Phase, u64, u64)) -> &DkHierarchy {
        if let Some(dk) = self.dk.get() {
            return dk;
        }
        progress(Phase::Hierarchy, 0, 1);
        let dk = self.hierarchy();
        progress(Phase::Hierarchy, 1, 1);
        dk
    }

    /// V-Clip's Voronoi-plane tables, built on the first call (O(E)).
    pub(crate) fn vclip_tables(&self) -> &VClipTables {
        self.vclip.get_or_init(|| VClipTables::build(&self.topology()))
    }

    /// The shape's parallelepiped table (built on the first call), or `None` when it is not
    /// one (see [`crate::shape::parallelepiped`]).
    pub fn parallelepiped(&self) -> Option<&Parallelepiped> {
        self.parallelepiped
            .get_or_init(|| {
                let first = if self.vertices.is_empty() {
                    &[][..]
                } else {
                    self.neighbors(0)
                };
                Parallelepiped::of(
                    self.dimension,
                    &self.vertices,
                    self.edges.len(),
                    &self.faces,
                    first,
                    self.magnitude,
                )
            })
            .as_ref()
    }

    /// Re-checks every structural and geometric invariant in O(V + E + F) (the same as
    /// [`validate_with_progress`](Self::validate_with_progress) without a callback).
    pub fn validate(&self) -> ValidityReport {
        self.validate_with_progress(&mut |_, _, _| {})
    }

    /// Re-checks every structural and geometric invariant, reporting progress as
    /// `(Phase::Validate, done, total)` (total = edges + faces).
    ///
    /// The check is local, with one global step (Mehlhorn et al., "Checking geometric
    /// programs or verification of geometric structures", 1999: a closed oriented surface
    /// that is locally convex at every edge, with a point below every face plane, and a ray
    /// from that point that crosses the surface once, bounds a convex body):
    /// 1. V − E + F = 2 (the half-edge structure is a closed 2-manifold by construction);
    /// 2. every face planar: its vertices within tolerance of its plane (O(E));
    /// 3. every face a convex polygon: at each corner `a → b → c` the exact `orient3d` of
    ///    `a, b, c` and a point above the face is positive (O(E));
    /// 4. every edge convex: for the edge `a → b` of face L (next corner `c`) and `b → a` of
    ///    face R (next corner `d`), `d` lies strictly below the plane `a, b, c` by the exact
    ///    `orient3d`, and both corners lie within tolerance below the other face's plane
    ///    (O(E));
    /// 5. the centroid strictly below every face plane (O(F));
    /// 6. the ray from the centroid through the vertex mean of the largest face crosses no
    ///    other face (O(E)): this rules out a locally convex surface that winds around the
    ///    centroid more than once.
    ///
    /// The former all-pairs test (every vertex against every face plane, O(V·F)) took 33 s at
    /// 10⁵ points; this one takes milliseconds there, and about 1 s of CPU for the 3·10⁶
    /// edges of a 10⁶-point sphere (BENCHMARKS.md, "Building large hulls"). Steps 2–5 are one
    /// pass over the faces: each edge is checked with the face that holds its half-edge,
    /// while that face's corners are in the cache (when the half-edges are laid out face
    /// after face, as the construction does; otherwise the edges are checked in edge order).
    pub fn validate_with_progress(&self, progress: &mut dyn FnMut(Phase, u64, u64)) -> ValidityReport {
        self.validate_in(progress, true)
    }

    /// [`validate_with_progress`](Self::validate_with_progress); `fused`: edges checked with
    /// their faces (false: in edge order, as before — the tests' reference).
    fn validate_in(&self, progress: &mut dyn FnMut(Phase, u64, u64), fused: bool) -> ValidityReport {
        if self.dimension < 3 {
            return self.validate_flat();
        }
        let (v, e, f) = self.counts();
        let total = (e + f) as u64;
        let euler = v as i64 - e as i64 + f as i64;
        let tol = VALIDATION_REL * self.magnitude.max(self.sphere_radius);
        let mut planarity: f64 = 0.0;
        let mut convexity: f64 = 0.0;
        let mut depth = f64::INFINITY;
        let mut non_convex_corners = 0usize;
        let mut largest = (f64::NEG_INFINITY, 0u32);
        // A point above face f's plane for the exact corner test: far enough from the corner
        // that rounding `a + n·lift` cannot put it in the plane.
        let lift = self.sphere_radius.max(self.magnitude);
        // Step 4 for the edge whose half-edge `tail → head` is `edge.half_edge`: whether it
        // is non-convex, and the larger distance of a corner above the other face's plane.
        let edge_check = |edge: &Edge| -> (bool, f64) {
            let h = &self.half_edges[edge.half_edge as usize];
            let t = &self.half_edges[h.twin as usize];
            let [a, b] = edge.vertices.map(|x| self.vertex(x));
            // The corner after b on the left face, and after a on the right face.
            let c = self.vertex(self.half_edges[self.half_edges[h.next as usize].next as usize].origin);
            let d = self.vertex(self.half_edges[self.half_edges[t.next as usize].next as usize].origin);
            let [l, r] = edge.faces;
            (
                orient3d(a, b, c, d) != Orientation::Below,
                self.face_plane(l)
                    .signed_distance(d)
                    .max(self.face_plane(r).signed_distance(c)),
            )
        };
        // Each edge is checked with the face that holds its half-edge, while that face's
        // corners are still in the cache (a second pass over the edges read every vertex of
        // a 10⁶-point hull from memory again). Counts and maxima do not depend on the order.
        let mut non_convex_edges = 0usize;
        let mut checked = 0usize;
        let (mut in_layout, mut laid) = (fused, 0usize);
        for fi in 0..f as u32 {
            if fi % PROGRESS_STRIDE == 0 {
                progress(Phase::Validate, (fi as usize + checked) as u64, total);
            }
            let pl = self.face_plane(fi);
            let fv = self.face_vertices(fi);
            let mut area = DVec3::ZERO;
            for (k, &vi) in fv.iter().enumerate() {
                let a = self.vertex(vi);
                let b = self.vertex(fv[(k + 1) % fv.len()]);
                let c = self.vertex(fv[(k + 2) % fv.len()]);
                planarity = planarity.max(pl.signed_distance(a).abs());
                if orient3d(a, b, c, a + pl.normal * lift) != Orientation::Above {
                    non_convex_corners += 1;
                }
                area += (a - self.vertex(fv[0])).cross(b - self.vertex(fv[0]));
            }
            let area = area.length();
            if area > largest.0 {
                largest = (area, fi);
            }
            depth = depth.min(-pl.signed_distance(self.centroid));
            // The face's half-edges are `half_edge .. half_edge + len`, the faces' ranges one
            // after the other (as the construction lays them out; checked, so that each
            // half-edge is visited once and each edge at most once, by its own half-edge).
            let face = &self.faces[fi as usize];
            let range = face.half_edge as usize..face.half_edge as usize + face.len as usize;
            in_layout &= range.start == laid && range.end <= self.half_edges.len();
            laid = range.end;
            if !in_layout {
                continue;
            }
            for hi in range {
                let he = &self.half_edges[hi];
                if let Some(edge) = self.edges.get(he.edge as usize).filter(|e| e.half_edge as usize == hi) {
                    let (bad, above) = edge_check(edge);
                    non_convex_edges += usize::from(bad);
                    convexity = convexity.max(above);
                    checked += 1;
                }
            }
        }
        if !in_layout || checked != e {
            // Half-edges not laid out face after face, or an edge whose half-edge does not
            // name it (not on a shape built by this crate): every edge once, in edge order.
            non_convex_edges = 0;
            convexity = 0.0;
            for (ei, edge) in self.edges.iter().enumerate() {
                if (ei as u32).is_multiple_of(PROGRESS_STRIDE) {
                    progress(Phase::Validate, (f + ei) as u64, total);
                }
                let (bad, above) = edge_check(edge);
                non_convex_edges += usize::from(bad);
                convexity = convexity.max(above);
            }
        }
        let ray_crossings = self.ray_crossings(largest.1, tol);
        progress(Phase::Validate, total, total);
        ValidityReport {
            euler_characteristic: euler,
            max_planarity_error: planarity,
            max_convexity_error: convexity,
            min_centroid_depth: depth,
            non_convex_edges,
            non_convex_corners,
            ray_crossings,
            valid: euler == 2
                && planarity <= tol
                && convexity <= tol
                && depth > 0.0
                && non_convex_edges == 0
                && non_convex_corners == 0
                && ray_crossings == 1,
        }
    }

    /// How many faces the ray from the centroid through the vertex mean of face `through`
    /// crosses (`through` itself counts once; any other face counts when the crossing point
    /// lies inside it by more than `tol`). 1 for a convex polyhedron: every other face plane
    /// that the ray meets, it meets beyond `through`, outside the polyhedron.
    fn ray_crossings(&self, through: u32, tol: f64) -> usize {
        let fv = self.face_vertices(through);
        let q = fv.iter().fold(DVec3::ZERO, |s, &v| s + self.vertex(v)) / fv.len() as f64;
        let o = self.centroid;
        let dir = q - o;
        let mut crossings = 1usize;
        for fi in 0..self.faces.len() as u32 {
            if fi == through {
                continue;
            }
            let pl = self.face_plane(fi);
            let along = pl.normal.dot(dir);
            if !(along > 0.0) {
                continue;
            }
            let x = o + dir * ((pl.offset - pl.normal.dot(o)) / along);
            let fv = self.face_vertices(fi);
            let inside = (0..fv.len()).all(|k| {
                let a = self.vertex(fv[k]);
                let b = self.vertex(fv[(k + 1) % fv.len()]);
                let ab = b - a;
                let len = ab.length();
                len > 0.0 && ab.cross(x - a).dot(pl.normal) > tol * len
            });
            if inside {
                crossings += 1;
            }
        }
        crossings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recomputes every face plane from the vertices (Newell normal, largest offset), as
    /// `build` does, after a test moved vertices.
    fn replane(p: &mut ConvexPolyhedron) {
        for fi in 0..p.faces.len() {
            let fv = p.face_vertices(fi as u32).to_vec();
            let mut n = DVec3::ZERO;
            for k in 0..fv.len() {
                n += p.vertices[fv[k] as usize].cross(p.vertices[fv[(k + 1) % fv.len()] as usize]);
            }
            let n = n.normalize();
            let off = fv
                .iter()
                .map(|&v| n.dot(p.vertices[v as usize]))
                .fold(f64::NEG_INFINITY, f64::max);
            p.faces[fi].normal = n;
            p.faces[fi].offset = off;
        }
    }

    fn house(ridge_z: f64) -> (Vec<DVec3>, Vec<Vec<u32>>) {
        let v = [
            [0., 0., 0.],
            [1., 0., 0.],
            [1., 1., 0.],
            [0., 1., 0.],
            [0., 0., 1.],
            [1., 0., 1.],
            [1., 1., 1.],
            [0., 1., 1.],
            [0., 0.5, ridge_z],
            [1., 0.5, ridge_z],
        ]
        .map(DVec3::from_array)
        .to_vec();
        let f = vec![
            vec![0, 3, 2, 1],
            vec![0, 1, 5, 4],
            vec![2, 3, 7, 6],
            vec![1, 2, 6, 9, 5],
            vec![0, 4, 8, 7, 3],
            vec![4, 5, 9, 8],
            vec![6, 7, 8, 9],
        ];
        (v, f)
    }

    /// Every face plane turned inside out (normals and offsets negated): the half-edge
    /// structure and its local edge tests are unchanged, but the centroid lies above every
    /// plane and the check refuses it.
    #[test]
    fn a_mis_oriented_polyhedron_is_refused() {
        let (v, f) = house(1.5);
        let mut p = ConvexPolyhedron::from_faces(&v, &f).unwrap();
        assert!(p.validate().valid);
        for face in &mut p.faces {
            face.normal = -face.normal;
            face.offset = -face.offset;
        }
        let rep = p.validate();
        assert!(!rep.valid, "{rep:?}");
        assert!(rep.min_centroid_depth < 0.0, "{rep:?}");
    }

    /// A house whose ridge is pushed below the eaves becomes a valley: every face stays
    /// planar, V − E + F stays 2 and the centroid stays below every face plane, but the ridge
    /// edge turns reflex and the gable pentagons lose their convexity. The
    /// local checks find it; the valid house passes them.
    #[test]
    fn a_reflex_edge_is_caught_locally() {
        let (v, f) = house(1.5);
        let mut p = ConvexPolyhedron::from_faces(&v, &f).unwrap();
        let rep = p.validate();
        assert!(rep.valid, "{rep:?}");
        assert_eq!(
            (rep.non_convex_edges, rep.non_convex_corners, rep.ray_crossings),
            (0, 0, 1)
        );
        p.vertices[8].z = 0.8;
        p.vertices[9].z = 0.8;
        replane(&mut p);
        let rep = p.validate();
        assert!(!rep.valid, "{rep:?}");
        assert_eq!(rep.euler_characteristic, 2);
        assert!(rep.max_planarity_error <= 1e-15, "{rep:?}");
        assert!(rep.min_centroid_depth > 0.0, "{rep:?}");
        // Reflex: the ridge 8–9 (the eaves stay convex: the roof still slopes down); an edge
        // tested through a reflex corner of its face (the gables' edges at the ridge) counts
        // too, as the plane through the edge and that corner faces inward.
        assert!(rep.non_convex_edges >= 1, "{rep:?}");
        // The front eave corner rises 0.4/√1.16 ≈ 0.37 above the back roof's plane.
        assert!(
            (rep.max_convexity_error - 0.4 / 1.16f64.sqrt()).abs() < 1e-12,
            "{rep:?}"
        );
        // Each gable pentagon turns right at its ridge corner.
        assert_eq!(rep.non_convex_corners, 2, "{rep:?}");
        // The same shape given by faces is refused outright.
        let (v, f) = house(0.8);
        assert!(ConvexPolyhedron::from_faces(&v, &f).is_err());
    }

    /// The edges checked with their faces give the report of the edge-order pass, field for
    /// field, on valid shapes and on shapes broken by moving vertices (reflex edges, bent
    /// faces, counts and maxima that depend on every edge).
    #[test]
    fn edges_checked_with_their_faces_report_as_in_edge_order() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
        let (v, f) = house(1.5);
        let mut shapes = vec![ConvexPolyhedron::from_faces(&v, &f).unwrap()];
        for n in [8usize, 60, 700, 3000] {
            let pts: Vec<DVec3> = (0..n)
                .map(|_| {
                    DVec3::new(
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                    )
                })
                .collect();
            shapes.push(ConvexPolyhedron::from_points(&pts).unwrap());
            let sphere: Vec<DVec3> = pts.iter().map(|p| p.normalize() * 1e6 + DVec3::splat(3e6)).collect();
            shapes.push(ConvexPolyhedron::from_points(&sphere).unwrap());
        }
        let report = |p: &ConvexPolyhedron, fused: bool| format!("{:?}", p.validate_in(&mut |_, _, _| {}, fused));
        let mut broken = 0;
        for p in &shapes {
            assert_eq!(report(p, true), report(p, false));
            assert!(p.validate().valid);
            // Vertices pulled inward or pushed out (planes recomputed or kept): invalid
            // shapes whose every edge count and maximum must agree too.
            for round in 0..6 {
                let mut q = p.clone();
                for _ in 0..1 + q.vertices.len() / 7 {
                    let i = rng.random_range(0..q.vertices.len());
                    let scale = if round % 2 == 0 { 0.7 } else { 1.3 };
                    q.vertices[i] = q.centroid + (q.vertices[i] - q.centroid) * scale;
                }
                if round >= 3 {
                    replane(&mut q);
                }
                let (a, b) = (report(&q, true), report(&q, false));
                assert_eq!(a, b);
                broken += usize::from(!q.validate().valid);
            }
        }
        assert!(broken > 10, "{broken}");
    }
}
