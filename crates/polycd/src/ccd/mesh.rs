//! Non-convex closed triangle meshes for FAST: convex surface decomposition, the convex hull
//! tree, the BVTT distance query with its front (Alg. 3) and hierarchical conservative
//! advancement (Alg. 2).
//!
//! Paper: X. Zhang, M. Lee, Y. J. Kim, *Interactive Continuous Collision Detection for
//! Non-Convex Polyhedra* (2006), papers/002, §3.3 and §5; the decomposition follows the idea
//! of Ehmann & Lin's convex surface decomposition (the paper's reference 10).
//!
//! # Outline
//! 1. [`TriMesh::new`] checks the mesh is a closed, consistently oriented 2-manifold without
//!    degenerate triangles (typed [`MeshDefect`] otherwise, naming the first defect in face
//!    order), orients each closed component by its nesting (outward at even depth, inward for
//!    a cavity at odd depth; a component wound otherwise is reversed and reported by
//!    [`TriMesh::reoriented_components`]) and computes its volume centroid (the reference
//!    point of the motion).
//! 2. Convex surface decomposition (§3.3): triangles are grouped greedily into *patches*. A
//!    patch grows from an unassigned seed triangle across edges, by breadth-first search; a
//!    neighbouring triangle joins when (a) the patch stays convex — no vertex of the patch lies
//!    strictly above the plane of any of its triangles (exact `orient3d`) — and (b) the
//!    patch's convex hull (the *piece*) stays inside the solid: no triangle of the mesh
//!    reaches more than [`CCD_PIECE_REL`] × scale into the hull. A flat patch has a flat hull,
//!    which is no solid; such a patch gets one extra point behind it (its
//!    centroid moved inward along its normal, halving the depth until (b) holds), so every
//!    piece is a solid convex polyhedron with the patch on its boundary. Every triangle is in
//!    exactly one piece, so the pieces cover the boundary, and (b) keeps each piece inside the
//!    solid: their union lies between the boundary and the solid, which is all a distance
//!    query between disjoint solids needs.
//! 3. Convex hull tree (§5.1): pieces split in halves at the median of their centroids along
//!    the widest axis; each inner node is the hull of its two children's hull vertices.
//! 4. BVTT distance (Alg. 3): from the two roots, each node pair's distance by the discrete
//!    query; a pair nearer than the best distance so far descends (the larger node, the
//!    nearer child first); a pair that is not, or a pair of leaves, is a *front* node, stored
//!    with its distance and closest direction. A pair whose bounding spheres are already no
//!    nearer than the best distance is a front node with the spheres' gap and direction,
//!    without a hull query.
//! 5. Hierarchical advancement (Alg. 2): at each step the BVTT query, then the conservative
//!    step of [`crate::ccd`] on every front node (the node's hull's own motion bound along its
//!    own direction), the smallest step over the front, repeat; at contact the closest leaf
//!    pair names the pieces and the nearest triangles. The first step's query starts at the
//!    roots; each later one starts from the previous step's front (*front tracking*, the
//!    paper's §6.3 via SWIFT++): a front pair whose gap, decreased by the most its two nodes
//!    can have closed along its direction during the step, is still no smaller than the best
//!    distance so far is kept without a query; the others are re-evaluated by step 4 from that
//!    pair downward (see `bvtt_track` for the proof that the front stays a cut of the BVTT
//!    and the best distance the exact minimum). A kept pair that limits the next step gets its
//!    exact distance then.
//!
//! # Invariants
//! - The front covers every pair of pieces (each piece pair lies under exactly one front node
//!   of the traversal, and a node's hull contains its subtree's pieces): a step safe for every
//!   front node is safe for the meshes (the paper's observation 1). This holds for the tracked
//!   front too: it is the previous cut with some pairs replaced by cuts of their subtrees.
//! - Every front node carries a distance `d > 0` and a unit direction `n` such that its two
//!   hulls are at least `d` apart along `n` (planes normal to `n`): the exact distance, the
//!   bounding spheres' gap, or a kept pair's decreased gap.
//! - Mesh distance = minimum leaf distance, never larger than the true distance (pieces cover
//!   the boundary) and smaller by at most 2·[`CCD_PIECE_REL`]·scale (pieces stay inside).
//! - One mesh inside the other: the surface pieces do not see it (their surfaces are apart).
//!   At `t = 0` one vertex of each connected shell of each mesh is tested against the other
//!   mesh by its winding number (with the surfaces apart, a shell is wholly in or out);
//!   later it cannot arise without the surfaces touching first, which the advancement catches.
//!
//! # Termination
//! The decomposition visits each triangle once as a seed and each (patch, neighbour) candidate
//! a bounded number of times (a triangle is queued once per neighbouring patch triangle, at
//! most [`MAX_PATCH`] triangles per patch). The traversal visits each node pair at most once.
//! The advancement is bounded as in [`crate::ccd`].
//!
//! # Departures from the paper
//! - The paper uses SWIFT++'s decomposition and Voronoi marching; the decomposition here is
//!   the simple greedy rule above, and node distances come from [`query::distance`] (with
//!   GJK, a clear overlap of two nodes is reported without measuring its depth: the traversal
//!   only descends there; on two overlapping 2 880-triangle knots this halved the
//!   instructions of a static mesh distance, 1.48 M → 0.82 M per query).
//! - The second child of Alg. 3 is searched with the best distance found by the first
//!   (the paper passes `d_Current` unchanged): a tighter prune, and the front still covers.
//! - Alg. 3 descends B's tree to its leaves before A's; we descend the node with the larger
//!   bounding radius, nearer child first (fewer node pairs, and the best distance falls
//!   sooner), and prune by bounding spheres before the hull query. A sphere-pruned front node
//!   carries the spheres' gap (a lower bound of the hulls' distance) and the centres'
//!   direction: the plane between the spheres separates the hulls, which is all the
//!   advancement's argument needs. Measured on 2 880-triangle knots (50 random motions, wall
//!   clock): 15.8 ms per continuous query with the paper's order, 7.1 ms with these.
//! - Decomposition cost: each candidate triangle builds the patch's hull and tests it against
//!   the triangles whose boxes reach it; about 0.6 s for 2 880 triangles and 10 s for 11 520
//!   (once per mesh). The paper's SWIFT++ preprocessing is not timed in the paper either.
//! - The traversal stops as soon as a leaf pair is within the distance threshold (the
//!   advancement ends there anyway); the distance reported is then that pair's.
//! - Front tracking across the steps of one query (above); each node pair's coherence cache is
//!   kept as well, for the node pairs used by the last [`NODE_CACHE_QUERIES`] queries (the map
//!   held every node pair ever visited before: 65 000 caches after 400 random motions of two
//!   2 880-triangle knots, and 1.5 ms instead of 2.7 ms per query on them). The paper re-evaluates every front pair at each step (Voronoi marching,
//!   cheap with coherence) and moves the front up as well as down; here a pair whose
//!   decreased gap still exceeds the best distance is kept without a query, and the front is
//!   never collapsed upward within a query (the bodies approach during an advancement, and
//!   each query starts from the roots, so fronts stay small: 26–70 pairs on the bench's
//!   knots). The previous front is visited in its depth-first order, not sorted by distance
//!   (sorting lowers the best distance at once and leaves coarser fronts, whose inner pairs
//!   then limit the step: measured 4.33 steps and 2.3 M instructions per query against 4.17
//!   and 2.1 M, before pairs were kept without a query). [`MeshCache::set_front_tracking`]
//!   turns it off (every step restarts at the roots). Measured on the bench's 2 880-triangle
//!   knots (6 motions, callgrind): 4.5 M instructions per query restarting at every step,
//!   1.6 M tracked (3.8 and 4.0 steps per query).
//! - The containment test at `t = 0` skips the winding number for a vertex outside the other
//!   mesh's bounding ball (1.35 M instructions per query on the bench's knots before).
//! - The motion bound of a front node uses the node's hull (as the paper does), plus the
//!   within-step rotation term of [`crate::ccd`].

use crate::core::hash::IdBuildHasher;
use std::collections::HashMap;

use super::{closing, directional_bound, safe_step, CcdOptions, DirectionalBound, RigidMotion};
use crate::core::error::{MeshDefect, MeshFace, MeshNumbering, MeshVertex, PolycdError};
use crate::core::geometry::closest_on_triangle;
use crate::core::math::{DVec3, Pose};
use crate::core::predicates::{orient3d, strictly_above, Orientation};
use crate::core::tolerance::{CCD_PIECE_REL, CONTACT_REL, FLATNESS_REL};
use crate::query::{self, Distance, PairCache};
use crate::shape::hull::check_points;
use crate::shape::polyhedron::ConvexPolyhedron;

/// Largest number of triangles in one patch (bounds the decomposition's work per piece).
pub const MAX_PATCH: usize = 256;

const NONE: u32 = u32::MAX;

/// Default slack of the size bound of the tracked front (see [`time_of_contact`] and
/// [`MeshCache::set_front_slack`]), so that the small
/// fronts from the roots of bodies far apart do not force restarts. A kept front pair costs
/// its two motion bounds per step (about 10³ instructions), a query from the roots tens to
/// hundreds of hull queries (about 5·10³ each): a restart pays only for a front this much
/// larger. (With twice the front plus 64, the bench's 40 knot motions restarted 9 times and
/// cost 12 % more than with no bound.)
const MIN_FRONT: usize = 1024;

/// A node of the convex hull tree.
#[derive(Clone, Debug)]
pub struct HullNode {
    /// The convex hull of the node's pieces (mesh frame).
    pub hull: ConvexPolyhedron,
    /// Children (inner node), or `None` for a leaf.
    pub children: Option<(u32, u32)>,
    /// The piece of a leaf (`u32::MAX` for inner nodes).
    pub piece: u32,
}

/// A closed, oriented triangle mesh with its convex surface decomposition and convex hull tree.
#[derive(Clone, Debug)]
pub struct TriMesh {
    vertices: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
    /// Triangles of each piece.
    pieces: Vec<Vec<u32>>,
    /// The convex hull tree: the leaves (one per piece, in piece order) first.
    nodes: Vec<HullNode>,
    root: u32,
    /// One vertex of each connected component of the surface (the containment test).
    component_vertices: Vec<u32>,
    /// The components, their nesting and orientation.
    components: Vec<MeshComponent>,
    centroid: DVec3,
    volume: f64,
    scale: f64,
    /// Centre of the bounding box (the ball of radius `scale` about it holds the mesh).
    box_centre: DVec3,
}

impl TriMesh {
    /// Builds a mesh from vertices and polygon faces (fan-triangulated; faces should be convex
    /// polygons, as mesh files give them). Checks closedness, manifoldness, orientation
    /// consistency and degeneracy; orients each closed component by its nesting (see
    /// [`TriMesh::components`]); decomposes it. Errors name vertices and faces by their
    /// 0-based indices in `vertices` and `faces` ([`MeshNumbering::Input`]); where several
    /// places are wrong, the first in face order is named.
    ///
    /// # Orientation of the components
    /// The surface's connected components (closed shells, found by union–find over shared
    /// edges) are oriented one by one. A component's *depth* is the number of other
    /// components that enclose it (a vertex of it tested against each by an exact ray-crossing
    /// count with [`crate::predicates::orient3d`]; the components do not cross, so one vertex
    /// decides). At even depth (0: an outer surface; 2: a solid inside a cavity) a component
    /// must face outward, at odd depth (a cavity) inward: a component whose signed volume has
    /// the other sign is **re-oriented** (its triangles reversed), and
    /// [`TriMesh::reoriented_components`] lists it. The sign of a component's volume is
    /// certain: it is used only when the sum exceeds a rigorous bound of its rounding error;
    /// a component within that bound (or thinner than [`FLATNESS_REL`] of its size) is
    /// refused ([`MeshDefect::FlatComponent`]). Components found to cross or touch (a vertex on
    /// another's surface, containment without the bounding box inside, mutual containment,
    /// a crossing count above one) are refused ([`MeshDefect::IntersectingComponents`]); other
    /// crossings of components are not detected (the input must bound a solid). Cost: O(n)
    /// for the components and volumes; the nesting tests, made only when there are several
    /// components, are at most O(components × triangles) (one vertex of each component
    /// against each other component whose bounding box holds it). A single component (the
    /// common case) costs what it did before, and gets the same triangles, volume and
    /// centroid.
    pub fn new(vertices: &[DVec3], faces: &[Vec<u32>]) -> Result<TriMesh, PolycdError> {
        TriMesh::build(vertices, faces, &Names::INPUT)
    }

    fn build(vertices: &[DVec3], faces: &[Vec<u32>], names: &Names<'_>) -> Result<TriMesh, PolycdError> {
        check_points(vertices)?;
        let bad = |d: MeshDefect| PolycdError::InvalidMesh(Box::new(d));
        if faces.is_empty() {
            return Err(bad(MeshDefect::Empty));
        }
        let mut triangles = Vec::new();
        // The face of each triangle.
        let mut tri_face: Vec<u32> = Vec::new();
        for (i, f) in faces.iter().enumerate() {
            if f.len() < 3 || f.iter().any(|&v| v as usize >= vertices.len()) {
                return Err(bad(MeshDefect::BadFace { face: names.face(i) }));
            }
            for k in 1..f.len() - 1 {
                triangles.push([f[0], f[k], f[k + 1]]);
                tri_face.push(i as u32);
            }
        }
        for (i, t) in triangles.iter().enumerate() {
            let [a, b, c] = t.map(|v| vertices[v as usize]);
            let l2 = (b - a)
                .length_squared()
                .max((c - a).length_squared())
                .max((c - b).length_squared());
            let area2 = (b - a).cross(c - a).length();
            if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] || !(area2 > FLATNESS_REL * l2) {
                return Err(bad(MeshDefect::DegenerateTriangle {
                    face: names.face(tri_face[i] as usize),
                    vertices: t.map(|v| names.vertex(v, vertices)),
                }));
            }
        }
        // Directed edges: each exactly once, each with its reverse. Checked in face order, so
        // the edge reported is the first one in the input.
        let mut directed: HashMap<(u32, u32), u32> = HashMap::with_capacity(triangles.len() * 3);
        for (i, t) in triangles.iter().enumerate() {
            for k in 0..3 {
                let e = (t[k], t[(k + 1) % 3]);
                if let Some(first) = directed.insert(e, i as u32) {
                    return Err(bad(MeshDefect::NonManifoldEdge {
                        a: names.vertex(e.0, vertices),
                        b: names.vertex(e.1, vertices),
                        faces: faces_using(&triangles, &tri_face, e),
                        first: names.face(tri_face[first as usize] as usize),
                        second: names.face(tri_face[i] as usize),
                    }));
                }
            }
        }
        for (i, t) in triangles.iter().enumerate() {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                if !directed.contains_key(&(b, a)) {
                    return Err(bad(MeshDefect::OpenEdge {
                        a: names.vertex(a, vertices),
                        b: names.vertex(b, vertices),
                        faces: faces_using(&triangles, &tri_face, (a, b)),
                        face: names.face(tri_face[i] as usize),
                    }));
                }
            }
        }
        let fans = check_vertex_fans(&triangles);
        if let Some(&v) = fans.iter().min_by_key(|&&v| names.vertex_number(v)) {
            return Err(bad(MeshDefect::NonManifoldVertex {
                vertex: names.vertex(v, vertices),
            }));
        }
        // Connected components: union–find over the edges (each edge's two triangles).
        let n = triangles.len();
        let mut parent: Vec<u32> = (0..n as u32).collect();
        for (i, t) in triangles.iter().enumerate() {
            for k in 0..3 {
                if let Some(&j) = directed.get(&(t[(k + 1) % 3], t[k])) {
                    let (ri, rj) = (find(&mut parent, i as u32), find(&mut parent, j));
                    // The smaller root stays: a component's root is its first triangle.
                    if ri < rj {
                        parent[rj as usize] = ri;
                    } else if rj < ri {
                        parent[ri as usize] = rj;
                    }
                }
            }
        }
        drop(directed);
        let mut comp_of = vec![NONE; n];
        let mut firsts: Vec<u32> = Vec::new();
        for i in 0..n as u32 {
            let r = find(&mut parent, i);
            if r == i {
                comp_of[i as usize] = firsts.len() as u32;
                firsts.push(i);
            } else {
                comp_of[i as usize] = comp_of[r as usize];
            }
        }
        let k = firsts.len();
        // Signed volumes (divergence theorem over the tetrahedra from the origin, taken about
        // the mean vertex to keep the products small) and first moments per component, with a
        // bound of each sum's rounding error: per term, the rounded differences and the
        // triple product are within 10u × its permanent, and a running sum of m terms adds at
        // most (m − 1)u × the sum of their magnitudes; (m + 16)·ε = (2m + 32)u covers both.
        let origin = vertices.iter().copied().sum::<DVec3>() / vertices.len() as f64;
        let mut vol6 = vec![0.0f64; k];
        let mut perm = vec![0.0f64; k];
        let mut count = vec![0usize; k];
        let mut moment = vec![DVec3::ZERO; k];
        for (i, t) in triangles.iter().enumerate() {
            let c = comp_of[i] as usize;
            let [a, b, cc] = t.map(|v| vertices[v as usize] - origin);
            let w = a.dot(b.cross(cc));
            vol6[c] += w;
            moment[c] += (a + b + cc) * w;
            let (a, b, cc) = (a.abs(), b.abs(), cc.abs());
            perm[c] +=
                a.x * (b.y * cc.z + b.z * cc.y) + a.y * (b.x * cc.z + b.z * cc.x) + a.z * (b.x * cc.y + b.y * cc.x);
            count[c] += 1;
        }
        let mut boxes = vec![(DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)); k];
        for (i, t) in triangles.iter().enumerate() {
            let bx = &mut boxes[comp_of[i] as usize];
            for &v in t {
                bx.0 = bx.0.min(vertices[v as usize]);
                bx.1 = bx.1.max(vertices[v as usize]);
            }
        }
        for c in 0..k {
            let bound = (count[c] as f64 + 16.0) * f64::EPSILON * perm[c];
            let s = 0.5 * (boxes[c].1 - boxes[c].0).length();
            if !(vol6[c].abs() > bound) || !(vol6[c].abs() > FLATNESS_REL * s * s * s) {
                return Err(bad(MeshDefect::FlatComponent {
                    face: names.face(tri_face[firsts[c] as usize] as usize),
                    volume: vol6[c] / 6.0,
                    bound: bound / 6.0,
                }));
            }
        }
        // Nesting depth of each component (only with several).
        let mut depth = vec![0u32; k];
        if k > 1 {
            let face_of_comp = |c: usize| names.face(tri_face[firsts[c] as usize] as usize);
            // Each component's triangles, contiguous (counting sort by component).
            let mut start = vec![0usize; k + 1];
            for &c in &comp_of {
                start[c as usize + 1] += 1;
            }
            for c in 0..k {
                start[c + 1] += start[c];
            }
            let mut fill = start.clone();
            let mut members = vec![0u32; n];
            for (i, &c) in comp_of.iter().enumerate() {
                members[fill[c as usize]] = i as u32;
                fill[c as usize] += 1;
            }
            // The (inner, outer) pairs found, in increasing order (c, then d): as many as
            // the sum of the depths (not a k × k table: many small shells stay cheap).
            let mut inside: Vec<(u32, u32)> = Vec::new();
            for c in 0..k {
                let own = &members[start[c]..start[c + 1]];
                for d in 0..k {
                    if d == c {
                        continue;
                    }
                    let theirs = &members[start[d]..start[d + 1]];
                    match nested_in(vertices, &triangles, own, theirs, boxes[d]) {
                        Nest::Out => {}
                        Nest::In => {
                            let (bc, bd) = (boxes[c], boxes[d]);
                            if bc.0.cmplt(bd.0).any() || bc.1.cmpgt(bd.1).any() {
                                return Err(bad(MeshDefect::IntersectingComponents {
                                    first: face_of_comp(d),
                                    second: face_of_comp(c),
                                }));
                            }
                            inside.push((c as u32, d as u32));
                            depth[c] += 1;
                        }
                        Nest::Touching => {
                            return Err(bad(MeshDefect::IntersectingComponents {
                                first: face_of_comp(d),
                                second: face_of_comp(c),
                            }))
                        }
                        Nest::SelfCrossing => {
                            return Err(bad(MeshDefect::IntersectingComponents {
                                first: face_of_comp(d),
                                second: face_of_comp(d),
                            }))
                        }
                    }
                }
            }
            // Mutual containment: the shells cross. `inside` is sorted (pushed in order).
            for &(c, d) in &inside {
                if c < d && inside.binary_search(&(d, c)).is_ok() {
                    return Err(bad(MeshDefect::IntersectingComponents {
                        first: face_of_comp(c as usize),
                        second: face_of_comp(d as usize),
                    }));
                }
            }
        }
        // Each component's sign: outward (positive) at even depth, inward at odd depth.
        let mut components = Vec::with_capacity(k);
        let mut sign = vec![1.0f64; k];
        for c in 0..k {
            let want_positive = depth[c].is_multiple_of(2);
            let reoriented = (vol6[c] > 0.0) != want_positive;
            if reoriented {
                sign[c] = -1.0;
            }
            components.push(MeshComponent {
                first_face: tri_face[firsts[c] as usize] as usize,
                face: names.face(tri_face[firsts[c] as usize] as usize),
                triangles: count[c],
                depth: depth[c],
                reoriented,
            });
        }
        for (i, t) in triangles.iter_mut().enumerate() {
            if sign[comp_of[i] as usize] < 0.0 {
                t.swap(1, 2);
            }
        }
        // Totals of the oriented components (a single component's sums are today's, their
        // sign flipped exactly when it was reversed, so volume and centroid keep their bits).
        let mut total = 0.0;
        let mut total_moment = DVec3::ZERO;
        for c in 0..k {
            total += sign[c] * vol6[c];
            total_moment += moment[c] * sign[c];
        }
        let (lo, hi) = bounds(vertices.iter().copied());
        let scale = 0.5 * (hi - lo).length();
        if !(total > FLATNESS_REL * scale * scale * scale) {
            return Err(bad(MeshDefect::Degenerate("zero enclosed volume")));
        }
        let centroid = origin + total_moment / (4.0 * total);
        let component_vertices = firsts.iter().map(|&t| triangles[t as usize][0]).collect();
        let mut mesh = TriMesh {
            vertices: vertices.to_vec(),
            triangles,
            pieces: Vec::new(),
            nodes: Vec::new(),
            root: 0,
            component_vertices,
            components,
            centroid,
            volume: total / 6.0,
            scale,
            box_centre: 0.5 * (lo + hi),
        };
        mesh.decompose()?;
        mesh.build_tree()?;
        Ok(mesh)
    }

    /// Reads a mesh file (`.obj`, `.off`, `.stl`) with [`crate::shape::io::read_mesh_numbered`] and
    /// builds it as [`TriMesh::new`] does. A defect of the mesh is a
    /// [`PolycdError::MeshFile`] naming the file, and its vertices and faces in the file's own
    /// numbering ([`MeshNumbering`]: OBJ vertices and faces 1-based with the face's line, OFF
    /// 0-based with the line, STL triangles 1-based and vertices by their coordinates).
    #[cfg(feature = "io")]
    pub fn read(path: impl AsRef<std::path::Path>) -> Result<TriMesh, PolycdError> {
        let path = path.as_ref();
        let m = crate::shape::io::read_mesh_numbered(path)?;
        let names = Names {
            numbering: m.numbering,
            vertex_number: &m.vertex_number,
            face_line: &m.face_line,
        };
        TriMesh::build(&m.vertices, &m.faces, &names).map_err(|e| match e {
            PolycdError::InvalidMesh(defect) => PolycdError::MeshFile {
                path: path.display().to_string(),
                defect,
            },
            e => e,
        })
    }

    /// The closed connected components of the surface (shells), in the order of their first
    /// faces, with their nesting depth and whether [`TriMesh::new`] re-oriented them.
    pub fn components(&self) -> &[MeshComponent] {
        &self.components
    }

    /// The first faces (0-based indices into the faces given to [`TriMesh::new`], or into the
    /// file's faces in file order for [`TriMesh::read`]) of the components whose winding
    /// contradicted their nesting and which were therefore reversed. Empty for a mesh wound
    /// as it should be.
    pub fn reoriented_components(&self) -> impl Iterator<Item = usize> + '_ {
        self.components.iter().filter(|c| c.reoriented).map(|c| c.first_face)
    }

    /// Vertex positions (mesh frame).
    pub fn vertices(&self) -> &[DVec3] {
        &self.vertices
    }
    /// Triangles, counter-clockwise seen from outside.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }
    /// The triangles of each convex piece.
    pub fn pieces(&self) -> &[Vec<u32>] {
        &self.pieces
    }
    /// The convex hull tree's nodes: leaf `i` (the hull of piece `i`) at index `i`, then the
    /// inner nodes; the root is [`root`](Self::root).
    pub fn nodes(&self) -> &[HullNode] {
        &self.nodes
    }
    /// The root of the convex hull tree.
    pub fn root(&self) -> u32 {
        self.root
    }
    /// The hull of a piece.
    pub fn piece_hull(&self, piece: u32) -> Option<&ConvexPolyhedron> {
        self.nodes.get(piece as usize).map(|n| &n.hull)
    }
    /// Volume centroid (the centre of mass at uniform density; the paper's reference point).
    pub fn centroid(&self) -> DVec3 {
        self.centroid
    }
    /// Enclosed volume.
    pub fn volume(&self) -> f64 {
        self.volume
    }
    /// Length scale: half the diagonal of the bounding box.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// `true` when the point (mesh frame) is inside the solid, by the winding number (sum of
    /// the triangles' signed solid angles, Van Oosterom–Strackee). Reliable for points not
    /// within rounding of the surface; 0.5 is the threshold between 0 (out) and 1 (in).
    /// A point outside the ball about the bounding box's centre of radius [`scale`](Self::scale)
    /// (which holds every vertex, hence the solid) is out without the sum; the ball is widened
    /// by the rounding of the coordinates ([`CONTACT_REL`]), so the sum would say out too.
    pub fn contains_point(&self, p: DVec3) -> bool {
        let slack = CONTACT_REL * (p.abs().max_element() + self.box_centre.abs().max_element() + self.scale);
        if (p - self.box_centre).length() > self.scale + slack {
            return false;
        }
        let mut total = 0.0;
        for t in &self.triangles {
            let [a, b, c] = t.map(|v| self.vertices[v as usize] - p);
            let (la, lb, lc) = (a.length(), b.length(), c.length());
            let num = a.dot(b.cross(c));
            let den = la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la;
            total += 2.0 * num.atan2(den);
        }
        total > 2.0 * std::f64::consts::PI
    }

    fn decompose(&mut self) -> Result<(), PolycdError> {
        let n = self.triangles.len();
        // Triangle adjacency across each edge.
        let mut edge_tri: HashMap<(u32, u32), u32> = HashMap::with_capacity(n * 3);
        for (i, t) in self.triangles.iter().enumerate() {
            for k in 0..3 {
                edge_tri.insert((t[k], t[(k + 1) % 3]), i as u32);
            }
        }
        let mut nbr = vec![[NONE; 3]; n];
        for (i, t) in self.triangles.iter().enumerate() {
            for k in 0..3 {
                nbr[i][k] = edge_tri.get(&(t[(k + 1) % 3], t[k])).copied().unwrap_or(NONE);
            }
        }
        let boxes: Vec<(DVec3, DVec3)> = self
            .triangles
            .iter()
            .map(|t| bounds(t.iter().map(|&v| self.vertices[v as usize])))
            .collect();
        let eps = CCD_PIECE_REL * self.scale;
        let mut piece_of = vec![NONE; n];
        let mut leaves: Vec<ConvexPolyhedron> = Vec::new();
        let mut queue = std::collections::VecDeque::new();
        for seed in 0..n {
            if piece_of[seed] != NONE {
                continue;
            }
            let id = self.pieces.len() as u32;
            let mut patch = vec![seed as u32];
            let mut hull = self.piece_hull_of(&patch, &boxes, eps).ok_or_else(|| {
                PolycdError::InvalidMesh(Box::new(MeshDefect::Degenerate(
                    "a triangle admits no solid convex piece inside the mesh",
                )))
            })?;
            piece_of[seed] = id;
            queue.clear();
            queue.extend(nbr[seed].iter().copied().filter(|&f| f != NONE));
            while let Some(f) = queue.pop_front() {
                if piece_of[f as usize] != NONE || patch.len() >= MAX_PATCH {
                    continue;
                }
                if !self.convex_with(&patch, f) {
                    continue;
                }
                patch.push(f);
                match self.piece_hull_of(&patch, &boxes, eps) {
                    Some(h) => {
                        hull = h;
                        piece_of[f as usize] = id;
                        queue.extend(nbr[f as usize].iter().copied().filter(|&g| g != NONE));
                    }
                    None => {
                        patch.pop();
                    }
                }
            }
            self.pieces.push(patch);
            leaves.push(hull);
        }
        self.nodes = leaves
            .into_iter()
            .enumerate()
            .map(|(i, hull)| HullNode {
                hull,
                children: None,
                piece: i as u32,
            })
            .collect();
        Ok(())
    }

    /// Patch `∪ {f}` is convex: no vertex strictly above any triangle's plane (exact).
    fn convex_with(&self, patch: &[u32], f: u32) -> bool {
        let tf = self.triangles[f as usize].map(|v| self.vertices[v as usize]);
        for &g in patch {
            let tg = self.triangles[g as usize].map(|v| self.vertices[v as usize]);
            for &p in &tf {
                if strictly_above(tg[0], tg[1], tg[2], p) {
                    return false;
                }
            }
            for &p in &tg {
                if strictly_above(tf[0], tf[1], tf[2], p) {
                    return false;
                }
            }
        }
        true
    }

    /// The piece of a convex patch: its hull (with an inner point when flat), if that hull
    /// stays inside the solid.
    fn piece_hull_of(&self, patch: &[u32], boxes: &[(DVec3, DVec3)], eps: f64) -> Option<ConvexPolyhedron> {
        let mut pts: Vec<DVec3> = Vec::with_capacity(patch.len() * 3 + 1);
        for &g in patch {
            for &v in &self.triangles[g as usize] {
                let p = self.vertices[v as usize];
                if !pts.contains(&p) {
                    pts.push(p);
                }
            }
        }
        // A flat patch's hull is a polygon (issue 22): it takes the point behind it below.
        if let Ok(h) = ConvexPolyhedron::from_points(&pts).map_err(|_| ()).and_then(solid) {
            return self.inside(&h, boxes, eps).then_some(h);
        }
        // Flat patch: add a point behind it.
        let mut normal = DVec3::ZERO;
        for &g in patch {
            let [a, b, c] = self.triangles[g as usize].map(|v| self.vertices[v as usize]);
            normal += (b - a).cross(c - a);
        }
        let normal = normal.try_normalize()?;
        let centre = pts.iter().copied().sum::<DVec3>() / pts.len() as f64;
        let mut depth = pts.iter().map(|p| (*p - centre).length()).fold(0.0, f64::max);
        pts.push(centre);
        for _ in 0..40 {
            if let Some(last) = pts.last_mut() {
                *last = centre - normal * depth;
            }
            if let Ok(h) = ConvexPolyhedron::from_points(&pts).map_err(|_| ()).and_then(solid) {
                if self.inside(&h, boxes, eps) {
                    return Some(h);
                }
            }
            depth *= 0.5;
        }
        None
    }

    /// No mesh triangle reaches more than `eps` into the hull (a solid).
    fn inside(&self, h: &ConvexPolyhedron, boxes: &[(DVec3, DVec3)], eps: f64) -> bool {
        let (lo, hi) = bounds(h.vertices().iter().copied());
        let planes: Vec<_> = (0..h.faces().len() as u32).map(|f| h.face_plane(f)).collect();
        let mut poly: Vec<DVec3> = Vec::with_capacity(16);
        let mut next: Vec<DVec3> = Vec::with_capacity(16);
        for (i, t) in self.triangles.iter().enumerate() {
            let (bl, bh) = boxes[i];
            if bl.cmpgt(hi - DVec3::splat(eps)).any() || bh.cmplt(lo + DVec3::splat(eps)).any() {
                continue;
            }
            poly.clear();
            poly.extend(t.iter().map(|&v| self.vertices[v as usize]));
            for pl in &planes {
                // Keep the part at least eps below the plane (Sutherland–Hodgman).
                next.clear();
                for k in 0..poly.len() {
                    let p = poly[k];
                    let q = poly[(k + 1) % poly.len()];
                    let dp = pl.signed_distance(p) + eps;
                    let dq = pl.signed_distance(q) + eps;
                    if dp <= 0.0 {
                        next.push(p);
                    }
                    if (dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0) {
                        next.push(p + (q - p) * (dp / (dp - dq)));
                    }
                }
                std::mem::swap(&mut poly, &mut next);
                if poly.is_empty() {
                    break;
                }
            }
            if !poly.is_empty() {
                return false;
            }
        }
        true
    }

    fn build_tree(&mut self) -> Result<(), PolycdError> {
        let leaves = std::mem::take(&mut self.nodes);
        let centres: Vec<DVec3> = leaves.iter().map(|n| n.hull.bounding_sphere().0).collect();
        let mut nodes = leaves;
        let mut order: Vec<u32> = (0..nodes.len() as u32).collect();
        self.root = build(&mut order, &centres, &mut nodes)?;
        self.nodes = nodes;
        Ok(())
    }
}

/// Builds the subtree over the leaves `order` (indices into `nodes`, whose first entries are
/// the leaves) and returns its root. Depth ≤ ⌈log₂ n⌉ + 1 (median splits).
fn build(order: &mut [u32], centres: &[DVec3], nodes: &mut Vec<HullNode>) -> Result<u32, PolycdError> {
    if order.len() == 1 {
        return Ok(order[0]);
    }
    let (lo, hi) = bounds(order.iter().map(|&i| centres[i as usize]));
    let ext = hi - lo;
    let axis = if ext.x >= ext.y && ext.x >= ext.z {
        0
    } else if ext.y >= ext.z {
        1
    } else {
        2
    };
    let mid = order.len() / 2;
    order.select_nth_unstable_by(mid, |&a, &b| {
        centres[a as usize][axis].total_cmp(&centres[b as usize][axis])
    });
    let (left, right) = order.split_at_mut(mid);
    let l = build(left, centres, nodes)?;
    let r = build(right, centres, nodes)?;
    let mut pts: Vec<DVec3> = nodes[l as usize].hull.vertices().to_vec();
    pts.extend_from_slice(nodes[r as usize].hull.vertices());
    let hull = ConvexPolyhedron::from_points(&pts)?;
    nodes.push(HullNode {
        hull,
        children: Some((l, r)),
        piece: NONE,
    });
    Ok(nodes.len() as u32 - 1)
}

/// Axis-aligned bounds of points.
/// `h` if it is a solid (pieces are solids; a flat hull is refused as before issue 22).
fn solid(h: ConvexPolyhedron) -> Result<ConvexPolyhedron, ()> {
    if h.dimension() == 3 {
        Ok(h)
    } else {
        Err(())
    }
}

fn bounds(points: impl Iterator<Item = DVec3>) -> (DVec3, DVec3) {
    points.fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(p), hi.max(p)),
    )
}

/// The vertices whose triangles do not form a single fan (closed: every edge has its reverse,
/// checked before); empty when every vertex is manifold.
fn check_vertex_fans(triangles: &[[u32; 3]]) -> Vec<u32> {
    let mut bad = Vec::new();
    // (vertex, next, previous) per corner, grouped by vertex.
    let mut corners: Vec<(u32, u32, u32)> = Vec::with_capacity(triangles.len() * 3);
    for t in triangles {
        for k in 0..3 {
            corners.push((t[k], t[(k + 1) % 3], t[(k + 2) % 3]));
        }
    }
    corners.sort_unstable();
    let mut start = 0;
    while start < corners.len() {
        let v = corners[start].0;
        let mut end = start;
        while end < corners.len() && corners[end].0 == v {
            end += 1;
        }
        let group = &corners[start..end];
        // Walk the fan: the corner (v, a, b) is followed by the corner whose next is b.
        let first = group[0].1;
        let mut cur = group[0].2;
        let mut steps = 1;
        while cur != first && steps <= group.len() {
            match group.binary_search_by(|c| c.1.cmp(&cur)) {
                Ok(k) => cur = group[k].2,
                Err(_) => break,
            }
            steps += 1;
        }
        if cur != first || steps != group.len() {
            bad.push(v);
        }
        start = end;
    }
    bad
}

/// A closed connected component (shell) of a mesh's surface, as [`TriMesh::new`] found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshComponent {
    /// Its first face: a 0-based index into the faces given to [`TriMesh::new`] (for
    /// [`TriMesh::read`], into the file's faces in file order).
    pub first_face: usize,
    /// The same face named in the input's numbering (for [`TriMesh::read`], the file's own,
    /// with its line), as errors name faces.
    pub face: MeshFace,
    /// Its number of triangles (after fan triangulation of the faces).
    pub triangles: usize,
    /// How many other components enclose it: 0 for an outer surface, 1 for a cavity, 2 for a
    /// solid inside a cavity, and so on.
    pub depth: u32,
    /// Whether its triangles were reversed because its winding contradicted its depth (an
    /// outer surface wound inward, or a cavity wound outward).
    pub reoriented: bool,
}

/// How [`TriMesh::build`] names vertices and faces in its errors: the input's numbering.
struct Names<'a> {
    numbering: MeshNumbering,
    /// The input's number of each vertex (empty: its index).
    vertex_number: &'a [u64],
    /// The line of each face (empty: none).
    face_line: &'a [usize],
}

impl Names<'static> {
    /// Indices into `TriMesh::new`'s slices.
    const INPUT: Names<'static> = Names {
        numbering: MeshNumbering::Input,
        vertex_number: &[],
        face_line: &[],
    };
}

impl Names<'_> {
    fn vertex_number(&self, v: u32) -> u64 {
        self.vertex_number.get(v as usize).copied().unwrap_or(u64::from(v))
    }

    fn vertex(&self, v: u32, vertices: &[DVec3]) -> MeshVertex {
        MeshVertex {
            numbering: self.numbering,
            index: self.vertex_number(v),
            position: vertices.get(v as usize).map_or([f64::NAN; 3], |p| p.to_array()),
        }
    }

    fn face(&self, f: usize) -> MeshFace {
        let index = match self.numbering {
            MeshNumbering::Input | MeshNumbering::Off => f as u64,
            MeshNumbering::Obj | MeshNumbering::Stl => f as u64 + 1,
        };
        MeshFace {
            numbering: self.numbering,
            index,
            line: self.face_line.get(f).copied(),
        }
    }
}

/// Root of `i` in the union–find forest (with path halving; each step moves up, so at most
/// the forest's height).
fn find(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        let g = parent[parent[i as usize] as usize];
        parent[i as usize] = g;
        i = g;
    }
    i
}

/// Number of faces that use the edge `e` (either direction); for error messages.
fn faces_using(triangles: &[[u32; 3]], tri_face: &[u32], e: (u32, u32)) -> usize {
    let mut count = 0;
    let mut last = u32::MAX;
    for (t, &f) in triangles.iter().zip(tri_face) {
        let has = (0..3).any(|k| {
            let d = (t[k], t[(k + 1) % 3]);
            d == e || d == (e.1, e.0)
        });
        if has && f != last {
            count += 1;
            last = f;
        }
    }
    count
}

/// Where one component lies relative to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Nest {
    /// Outside it.
    Out,
    /// Enclosed by it.
    In,
    /// No vertex of it is off the other's surface, or every ray from its vertices grazes an
    /// edge: the two touch.
    Touching,
    /// The other component's crossing count exceeds one: it crosses itself.
    SelfCrossing,
}

/// Directions of the rays of [`nested_in`]: fixed, and in no plane or line of the simple
/// coordinates a mesh usually has (a ray that grazes an edge or vertex is retried along the
/// next one).
const RAY_DIRECTIONS: [[f64; 3]; 8] = [
    [0.8173, 0.3141, 0.4827],
    [-0.2718, 0.9016, 0.3363],
    [0.4142, -0.5772, 0.7032],
    [-0.6933, -0.4472, -0.5654],
    [0.1234, 0.7073, -0.6962],
    [0.9273, -0.2236, -0.3005],
    [-0.3827, 0.1618, 0.9096],
    [-0.5878, -0.8090, 0.1049],
];

/// Is the component whose triangles are `own` inside the closed component `theirs` (with
/// bounding box `bx`)? A vertex of `own` outside the box is outside. Otherwise the segment
/// from the vertex to a point beyond the box along a fixed direction is tested against each
/// triangle of `theirs` with exact [`orient3d`] signs, and the signed crossings summed (the
/// winding number: 0 outside, ±1 inside an embedded closed surface). A vertex on the other
/// surface, or a ray through an edge or vertex, is retried with the next direction and then
/// the next vertex. Bounded: at most 8 rays per vertex of `own`, each over `theirs`.
fn nested_in(vertices: &[DVec3], triangles: &[[u32; 3]], own: &[u32], theirs: &[u32], bx: (DVec3, DVec3)) -> Nest {
    let centre = 0.5 * (bx.0 + bx.1);
    let radius = 0.5 * (bx.1 - bx.0).length();
    for &t in own {
        for &v in &triangles[t as usize] {
            let p = vertices[v as usize];
            if p.cmplt(bx.0).any() || p.cmpgt(bx.1).any() {
                return Nest::Out;
            }
            'rays: for d in RAY_DIRECTIONS {
                let d = DVec3::from_array(d);
                // The far end: beyond the box (checked, as the sum rounds).
                let mut reach = 2.0 * ((p - centre).length() + radius);
                let mut q = p + d * reach;
                for _ in 0..64 {
                    if q.cmplt(bx.0).any() || q.cmpgt(bx.1).any() {
                        break;
                    }
                    reach *= 2.0;
                    q = p + d * reach;
                }
                if !(q.cmplt(bx.0).any() || q.cmpgt(bx.1).any()) {
                    continue;
                }
                let mut winding = 0i64;
                for &u in theirs {
                    let [a, b, c] = triangles[u as usize].map(|w| vertices[w as usize]);
                    let sp = orient3d(a, b, c, p);
                    let sq = orient3d(a, b, c, q);
                    let sides = [orient3d(p, q, a, b), orient3d(p, q, b, c), orient3d(p, q, c, a)];
                    let above = sides.iter().filter(|&&o| o == Orientation::Above).count();
                    let below = sides.iter().filter(|&&o| o == Orientation::Below).count();
                    match (sp, sq) {
                        (Orientation::On, Orientation::On) => {
                            // The segment lies in the triangle's plane: retry unless the
                            // line misses it.
                            if above > 0 && below > 0 {
                                continue;
                            }
                            continue 'rays;
                        }
                        (Orientation::On, _) => {
                            // The segment meets the plane at p only: p on the triangle?
                            if above == 0 || below == 0 {
                                // p lies on the other surface: try another vertex.
                                break 'rays;
                            }
                        }
                        // q is beyond the box, so not on the triangle: meets the plane only there.
                        (_, Orientation::On) => {}
                        (x, y) if x == y => {}
                        _ => {
                            if above == 3 || below == 3 {
                                winding += if sp == Orientation::Below { 1 } else { -1 };
                            } else if above == 0 || below == 0 {
                                // Through an edge or a vertex of the triangle.
                                continue 'rays;
                            }
                        }
                    }
                }
                return match winding.abs() {
                    0 => Nest::Out,
                    1 => Nest::In,
                    _ => Nest::SelfCrossing,
                };
            }
        }
    }
    Nest::Touching
}

/// A front node of the BVTT (Alg. 3): a pair of hull-tree nodes, their distance and closest
/// points (world frame) at the time of the query. A pair pruned by its bounding spheres
/// carries the spheres' gap and closest points instead, and a pair kept from the previous
/// step of [`time_of_contact`] without a query its gap along its previous direction (its
/// `point_a` is then the previous step's). In every case `distance` is a lower bound of the
/// hulls' distance and `point_b − point_a`, of that length, a direction along which the hulls
/// are at least that far apart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrontNode {
    /// Node of A's hull tree.
    pub node_a: u32,
    /// Node of B's hull tree.
    pub node_b: u32,
    /// Their distance (0 when the hulls overlap).
    pub distance: f64,
    /// Closest point on A's node (world; NaN when overlapping).
    pub point_a: DVec3,
    /// Closest point on B's node (world; NaN when overlapping).
    pub point_b: DVec3,
}

/// Caller-owned state of mesh queries on one pair of meshes: the BVTT front (tracked from
/// step to step of an advancement) and each node pair's discrete-query cache, reused across
/// advancement steps and queries.
#[derive(Clone, Debug)]
pub struct MeshCache {
    /// The front of the last BVTT query.
    pub front: Vec<FrontNode>,
    /// The previous step's front while the next one is built (kept for its capacity).
    previous: Vec<FrontNode>,
    /// Node pairs' discrete-query caches, each stamped with the last query that used it;
    /// see [`MeshCache::begin_query`] for how many are kept.
    pairs: HashMap<(u32, u32), NodePairCache, IdBuildHasher>,
    /// Caches dropped from `pairs`, forgotten and kept for their buffers' capacity.
    spare: Vec<PairCache>,
    /// Count of mesh queries made with this cache (the stamp of `pairs`' entries).
    generation: u32,
    /// Front tracking across the steps of [`time_of_contact`] (on by default).
    tracking: bool,
    /// The front pairs' motion bounds along their directions at the last step.
    rates: Vec<(DirectionalBound, DirectionalBound)>,
    /// The front pairs' gaps along their directions at the next step (lower bounds).
    gaps: Vec<f64>,
    /// The front pairs' safe steps at the last step.
    steps: Vec<f64>,
    /// Which front pairs were kept from the previous step without a query.
    lazy: Vec<bool>,
    /// Size of the front of the last query from the roots.
    root_front: usize,
    /// The tracked front restarts at the roots once it exceeds four times `root_front` plus
    /// this ([`MIN_FRONT`] unless set by [`MeshCache::set_front_slack`]).
    front_slack: usize,
    /// Advancement steps that restarted at the roots because the tracked front had grown.
    restarts: u64,
}

impl Default for MeshCache {
    fn default() -> Self {
        Self {
            front: Vec::new(),
            previous: Vec::new(),
            pairs: HashMap::default(),
            spare: Vec::new(),
            generation: 0,
            tracking: true,
            rates: Vec::new(),
            gaps: Vec::new(),
            steps: Vec::new(),
            lazy: Vec::new(),
            root_front: 0,
            front_slack: MIN_FRONT,
            restarts: 0,
        }
    }
}

impl MeshCache {
    /// Forgets the node pairs' coherence (use when reusing the cache for another mesh pair).
    pub fn forget(&mut self) {
        self.front.clear();
        self.previous.clear();
        let spare = &mut self.spare;
        for (_, mut e) in self.pairs.drain() {
            if spare.len() < SPARE_CACHES {
                e.cache.forget();
                spare.push(e.cache);
            }
        }
        self.rates.clear();
        self.gaps.clear();
        self.steps.clear();
        self.lazy.clear();
    }

    /// Front tracking on (the default) or off. Off, every advancement step's BVTT query
    /// restarts at the roots (the answer is as conservative either way; this is for
    /// comparisons and tests).
    pub fn set_front_tracking(&mut self, on: bool) {
        self.tracking = on;
    }

    /// The slack of the tracked front's size bound: an advancement step restarts at the roots
    /// when the front has more than four times the pairs of the last front from the roots
    /// plus `slack` (default 1 024). Either way the front covers every pair of pieces; this
    /// trades the cost of a large front against that of a query from the roots (and lets the
    /// tests exercise the restart).
    pub fn set_front_slack(&mut self, slack: usize) {
        self.front_slack = slack;
    }

    /// Advancement steps so far that restarted at the roots because the tracked front had
    /// grown past its bound (see [`MeshCache::set_front_slack`]).
    pub fn front_restarts(&self) -> u64 {
        self.restarts
    }

    /// Number of node pairs whose discrete-query caches are held (at most those used by the
    /// last [`NODE_CACHE_QUERIES`] mesh queries).
    pub fn node_pair_caches(&self) -> usize {
        self.pairs.len()
    }

    /// Starts a mesh query: node-pair caches unused by the last [`NODE_CACHE_QUERIES`]
    /// queries are dropped (forgotten and kept in `spare`, up to [`SPARE_CACHES`], for their
    /// buffers). Without this the map grew with every node pair ever visited: 65 000 caches
    /// (60 MB and their buffers) after 400 random motions of two 2 880-triangle knots, and up
    /// to the product of the trees' sizes. One pass over the map, whose size is bounded by
    /// the node pairs of the last few queries.
    fn begin_query(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        let g = self.generation;
        let spare = &mut self.spare;
        self.pairs.retain(|_, e| {
            if g.wrapping_sub(e.used) <= NODE_CACHE_QUERIES {
                return true;
            }
            if spare.len() < SPARE_CACHES {
                let mut c = std::mem::take(&mut e.cache);
                c.forget();
                spare.push(c);
            }
            false
        });
    }

    /// The discrete-query cache of the node pair `(i, j)`, stamped as used by this query.
    fn node_pair(&mut self, i: u32, j: u32) -> &mut PairCache {
        let (g, spare) = (self.generation, &mut self.spare);
        let e = self.pairs.entry((i, j)).or_insert_with(|| NodePairCache {
            cache: spare.pop().unwrap_or_default(),
            used: g,
        });
        e.used = g;
        &mut e.cache
    }
}

/// A node pair's discrete-query cache and the last query ([`MeshCache`]'s generation) that
/// used it.
#[derive(Clone, Debug)]
struct NodePairCache {
    cache: PairCache,
    used: u32,
}

/// Node-pair caches are kept while one of the last this many mesh queries used them: the
/// coherence a query's caches carry is for the next queries on the same pair of meshes
/// (consecutive frames), and an advancement's steps all belong to one query.
pub const NODE_CACHE_QUERIES: u32 = 2;

/// Most dropped node-pair caches kept for reuse (their scratch buffers; each is about a
/// kilobyte inline): enough for the node pairs a query on the bench's knots visits, so a
/// query that meets new node pairs seldom allocates.
pub const SPARE_CACHES: usize = 1024;

/// Answer of [`distance`] between two meshes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MeshDistance {
    /// The surfaces are apart (by at least `distance`, up to the pieces' margin) and neither
    /// solid contains the other.
    Separated {
        /// The distance (of the closest leaf pair, see [`distance`]).
        distance: f64,
        /// Closest point on A (world).
        point_a: DVec3,
        /// Closest point on B (world).
        point_b: DVec3,
        /// The pieces of A and B carrying them.
        pieces: (u32, u32),
        /// Triangles of A and B nearest to the closest points.
        triangles: (u32, u32),
    },
    /// The solids overlap: two pieces overlap (`pieces`), or one solid contains the other
    /// (`pieces = None`).
    Overlapping {
        /// The overlapping pieces, when found by the surfaces.
        pieces: Option<(u32, u32)>,
    },
}

/// Distance between two meshes at fixed poses by the BVTT traversal (Alg. 3), with the
/// containment test. The traversal stops at the first leaf pair within `stop_below`
/// (pass 0 for the exact minimum); `options.discrete()` answers the node distances.
pub fn distance(
    a: &TriMesh,
    pose_a: &Pose,
    b: &TriMesh,
    pose_b: &Pose,
    stop_below: f64,
    options: &CcdOptions,
    cache: &mut MeshCache,
) -> Result<MeshDistance, PolycdError> {
    cache.begin_query();
    let best = bvtt_query(a, pose_a, b, pose_b, stop_below, options, cache)?;
    if best.distance > 0.0 {
        if let Some(d) = containment(a, pose_a, b, pose_b) {
            return Ok(d);
        }
    }
    Ok(best_answer(a, pose_a, b, pose_b, &best))
}

/// One mesh inside the other (their surfaces apart): with the surfaces disjoint, each
/// connected shell of one mesh is wholly inside or wholly outside the other solid, so one
/// vertex per shell decides.
fn containment(a: &TriMesh, pose_a: &Pose, b: &TriMesh, pose_b: &Pose) -> Option<MeshDistance> {
    let inside = |x: &TriMesh, px: &Pose, y: &TriMesh, py: &Pose| {
        x.component_vertices.iter().any(|&v| {
            let w = px.transform_point(x.vertices[v as usize]);
            y.contains_point(py.inverse_transform_point(w))
        })
    };
    (inside(a, pose_a, b, pose_b) || inside(b, pose_b, a, pose_a)).then_some(MeshDistance::Overlapping { pieces: None })
}

fn best_answer(a: &TriMesh, pose_a: &Pose, b: &TriMesh, pose_b: &Pose, best: &FrontNode) -> MeshDistance {
    let pieces = (a.nodes[best.node_a as usize].piece, b.nodes[best.node_b as usize].piece);
    if !(best.distance > 0.0) {
        return MeshDistance::Overlapping { pieces: Some(pieces) };
    }
    MeshDistance::Separated {
        distance: best.distance,
        point_a: best.point_a,
        point_b: best.point_b,
        pieces,
        triangles: (
            a.nearest_triangle(pieces.0, pose_a.inverse_transform_point(best.point_a)),
            b.nearest_triangle(pieces.1, pose_b.inverse_transform_point(best.point_b)),
        ),
    }
}

impl TriMesh {
    /// The triangle of `piece` nearest to the point `p` (mesh frame).
    fn nearest_triangle(&self, piece: u32, p: DVec3) -> u32 {
        let mut best = (f64::INFINITY, NONE);
        for &t in self.pieces.get(piece as usize).map_or(&[][..], |v| &v[..]) {
            let [x, y, z] = self.triangles[t as usize].map(|v| self.vertices[v as usize]);
            let d = (closest_on_triangle(p, x, y, z) - p).length_squared();
            if d < best.0 {
                best = (d, t);
            }
        }
        best.1
    }
}

/// The BVTT traversal; fills `cache.front` and returns the best leaf pair.
fn bvtt_query(
    a: &TriMesh,
    pose_a: &Pose,
    b: &TriMesh,
    pose_b: &Pose,
    stop_below: f64,
    options: &CcdOptions,
    cache: &mut MeshCache,
) -> Result<FrontNode, PolycdError> {
    cache.front.clear();
    cache.lazy.clear();
    let mut t = Traversal::new(a, pose_a, b, pose_b, stop_below, options, cache);
    t.visit(a.root, b.root)?;
    let best = t.best;
    cache.root_front = cache.front.len();
    Ok(best)
}

/// The BVTT query started from the previous front (front tracking): each pair of the previous
/// front, in its order, is either kept without a query — when its gap `g` at the new poses
/// (see below) is no smaller than the best distance so far — or re-evaluated at the new poses
/// by [`Traversal::visit`], which keeps it or refines it downward. Fills `cache.front` (and
/// `cache.lazy`: which pairs were kept without a query) and returns the best leaf pair.
///
/// Gap of a kept pair: at the last step the pair had distance (or gap) `d` along the unit
/// direction `n`, i.e. two parallel planes normal to `n`, `d` apart, separate its hulls; the
/// step `Δt` was at most the pair's own safe step, so no point of either hull moved along `n`
/// by more than the bounds of [`closing`] allow, and the planes, moved with the hulls, are
/// still `g = d − closing(Δt) ≥ 0` apart (`cache.gaps`). `g` is a lower bound of the hulls'
/// distance and `n` a valid direction for the next step's motion bound, which is all the
/// advancement needs of a front pair (as for a pair pruned by its bounding spheres).
///
/// Covering (the advancement's invariant): let the BVTT be the fixed tree of node pairs in
/// which a pair's children split the node of larger hull scale (a deterministic rule, so every
/// pair has the same children in every query, and the leaf pairs below a pair are the
/// products of the pieces below its two nodes). A *cut* is a set of BVTT pairs with exactly
/// one on the path from the root to every leaf pair. The previous front is a cut (the root
/// alone is one, and by induction below). A kept pair is its own subtree's cut; `visit(p)`
/// pushes `p`, or visits both children of `p`, which partition `p`'s leaf pairs, so by
/// induction on the height it pushes a cut of `p`'s subtree — unless it returns early at a
/// leaf pair within `stop_below`, after which the query's answer is a contact and the front
/// is not used. The union of cuts of the subtrees of a cut's pairs is a cut of the whole BVTT:
/// the new front covers every pair of pieces exactly once. Distance: a pushed or kept inner
/// pair is no nearer than the best distance at the time (hull distance, spheres' gap or kept
/// gap, each a lower bound of every leaf pair below it), and the best distance only falls; so
/// no leaf pair under a front pair is nearer than the final best, which is the minimum leaf
/// distance — the same minimum as the query from the roots.
fn bvtt_track(
    a: &TriMesh,
    pose_a: &Pose,
    b: &TriMesh,
    pose_b: &Pose,
    stop_below: f64,
    options: &CcdOptions,
    cache: &mut MeshCache,
) -> Result<FrontNode, PolycdError> {
    std::mem::swap(&mut cache.front, &mut cache.previous);
    cache.front.clear();
    cache.lazy.clear();
    let previous = std::mem::take(&mut cache.previous);
    let gaps = std::mem::take(&mut cache.gaps);
    // In the previous traversal's order (depth first, nearer child first), not sorted by the
    // previous distances: sorting lets the best distance fall at once, which prunes more and
    // leaves a coarser front, whose inner pairs then limit the step (measured on the bench's
    // 2 880-triangle knots: 4.33 steps and 2.3 M instructions per query sorted, 4.17 and
    // 2.1 M in this order).
    let mut t = Traversal::new(a, pose_a, b, pose_b, stop_below, options, cache);
    let mut result = Ok(());
    for (k, f) in previous.iter().enumerate() {
        // (A missing gap, which the advancement loop never leaves, means a query.)
        let g = gaps.get(k).copied().unwrap_or(f64::NEG_INFINITY);
        if g >= t.best.distance && t.best.distance > t.stop_below {
            // Still no nearer than the best distance along its old direction: kept without
            // a query, with that gap (a lower bound of the hulls' distance) and direction.
            let n = (f.point_b - f.point_a) / f.distance;
            t.cache.front.push(FrontNode {
                distance: g,
                point_b: f.point_a + n * g,
                ..*f
            });
            t.cache.lazy.push(true);
            continue;
        }
        result = t.visit(f.node_a, f.node_b);
        if result.is_err() {
            break;
        }
        let len = t.cache.front.len();
        t.cache.lazy.resize(len, false);
    }
    let best = t.best;
    cache.previous = previous;
    cache.gaps = gaps;
    result.map(|()| best)
}

struct Traversal<'a> {
    a: &'a TriMesh,
    pose_a: &'a Pose,
    b: &'a TriMesh,
    pose_b: &'a Pose,
    stop_below: f64,
    options: &'a CcdOptions,
    cache: &'a mut MeshCache,
    best: FrontNode,
}

impl<'a> Traversal<'a> {
    /// A traversal with no leaf pair found yet (best distance +∞).
    fn new(
        a: &'a TriMesh,
        pose_a: &'a Pose,
        b: &'a TriMesh,
        pose_b: &'a Pose,
        stop_below: f64,
        options: &'a CcdOptions,
        cache: &'a mut MeshCache,
    ) -> Self {
        Traversal {
            a,
            pose_a,
            b,
            pose_b,
            stop_below,
            options,
            cache,
            best: FrontNode {
                node_a: a.root,
                node_b: b.root,
                distance: f64::INFINITY,
                point_a: DVec3::NAN,
                point_b: DVec3::NAN,
            },
        }
    }

    /// World bounding sphere of a node.
    fn sphere(&self, a_side: bool, i: u32) -> (DVec3, f64) {
        let (mesh, pose) = if a_side {
            (self.a, self.pose_a)
        } else {
            (self.b, self.pose_b)
        };
        let (c, r) = mesh.nodes[i as usize].hull.bounding_sphere();
        (pose.transform_point(c), r)
    }

    /// A lower bound of the distance of nodes `i` (A) and `j` (B) from their bounding spheres,
    /// with the closest points of the spheres (world): the spheres contain the hulls, less
    /// the rounding of the pose and of the radius ([`CONTACT_REL`] of the coordinates' size).
    fn sphere_gap(&self, i: u32, j: u32) -> (f64, DVec3, DVec3) {
        let (ca, ra) = self.sphere(true, i);
        let (cb, rb) = self.sphere(false, j);
        let d = cb - ca;
        let l = d.length();
        let slack = CONTACT_REL * (ca.abs().max_element() + cb.abs().max_element() + ra + rb);
        let gap = l - ra - rb - slack;
        if !(gap > 0.0) {
            return (0.0, DVec3::NAN, DVec3::NAN);
        }
        let u = d / l;
        (gap, ca + u * (ra + 0.5 * slack), cb - u * (rb + 0.5 * slack))
    }

    /// Alg. 3 on the node pair `(i, j)`.
    fn visit(&mut self, i: u32, j: u32) -> Result<(), PolycdError> {
        if self.best.distance <= self.stop_below {
            return Ok(());
        }
        // Bounding spheres first: a pair whose spheres are already no nearer than the best
        // distance is a front node with the spheres' gap and direction (a valid separation
        // for the advancement: the hulls lie in the spheres), without a hull query.
        let (gap, sa, sb) = self.sphere_gap(i, j);
        if gap >= self.best.distance {
            self.cache.front.push(FrontNode {
                node_a: i,
                node_b: j,
                distance: gap,
                point_a: sa,
                point_b: sb,
            });
            return Ok(());
        }
        let na = &self.a.nodes[i as usize];
        let nb = &self.b.nodes[j as usize];
        let pc = self.cache.node_pair(i, j);
        let node = match query::distance_or_overlap(
            &na.hull,
            self.pose_a,
            &nb.hull,
            self.pose_b,
            self.options.discrete(),
            pc,
        )? {
            Distance::Separated {
                distance,
                point_a,
                point_b,
                ..
            } => FrontNode {
                node_a: i,
                node_b: j,
                distance,
                point_a,
                point_b,
            },
            Distance::Penetrating { .. } => FrontNode {
                node_a: i,
                node_b: j,
                distance: 0.0,
                point_a: DVec3::NAN,
                point_b: DVec3::NAN,
            },
            Distance::NotConverged { iterations } => {
                return Err(PolycdError::CcdNotConverged {
                    iterations,
                    t_free: 0.0,
                })
            }
        };
        if node.distance < self.best.distance {
            // Descend the larger node (the paper descends B's tree to its leaves first), the
            // nearer child (by bounding spheres) first.
            let split_b = match (na.children, nb.children) {
                (None, None) => None,
                (None, Some(_)) => Some(true),
                (Some(_), None) => Some(false),
                (Some(_), Some(_)) => Some(nb.hull.scale() >= na.hull.scale()),
            };
            match split_b {
                Some(true) => {
                    let (l, r) = nb.children.unwrap_or((j, j));
                    let (l, r) = if self.sphere_gap(i, l).0 <= self.sphere_gap(i, r).0 {
                        (l, r)
                    } else {
                        (r, l)
                    };
                    self.visit(i, l)?;
                    return self.visit(i, r);
                }
                Some(false) => {
                    let (l, r) = na.children.unwrap_or((i, i));
                    let (l, r) = if self.sphere_gap(l, j).0 <= self.sphere_gap(r, j).0 {
                        (l, r)
                    } else {
                        (r, l)
                    };
                    self.visit(l, j)?;
                    return self.visit(r, j);
                }
                None => self.best = node,
            }
        }
        self.cache.front.push(node);
        Ok(())
    }
}

/// The first contact of two closed meshes under their motions, by hierarchical conservative
/// advancement (FAST Alg. 2), or `None` when they do not touch for `t ∈ [0, 1]`.
///
/// Use [`RigidMotion::new`] with [`TriMesh::centroid`] as the reference point for the paper's
/// motion. Guarantees as in [`crate::ccd`]: no contact on `[0, t)`, the distance at `t` at most
/// the threshold (default [`crate::core::tolerance::CCD_DISTANCE_REL`] × the summed scales).
pub fn time_of_contact(
    a: &TriMesh,
    motion_a: &RigidMotion,
    b: &TriMesh,
    motion_b: &RigidMotion,
    options: &CcdOptions,
    cache: &mut MeshCache,
) -> Result<Option<MeshTimeOfContact>, PolycdError> {
    let threshold = options.threshold(a.scale + b.scale)?;
    cache.begin_query();
    let mut t = 0.0f64;
    let mut iterations = 0u32;
    loop {
        let pose_a = motion_a.pose_at(t);
        let pose_b = motion_b.pose_at(t);
        // The first step from the roots, the next ones from the previous step's front (a
        // cut of the BVTT whenever the loop goes on: an early stop ends it at a contact).
        // The tracked front is never collapsed upward; should it grow past four times the
        // last front from the roots and `front_slack` more (pairs that came near and went
        // apart again, in a long grazing motion), the step restarts at the roots instead.
        let grown = cache.front.len() > 4 * cache.root_front + cache.front_slack;
        let track = iterations > 0 && cache.tracking;
        cache.restarts += u64::from(track && grown);
        let query = if track && !grown { bvtt_track } else { bvtt_query };
        let best = query(a, &pose_a, b, &pose_b, threshold, options, cache).map_err(|e| match e {
            PolycdError::CcdNotConverged { iterations: _, .. } => {
                PolycdError::CcdNotConverged { iterations, t_free: t }
            }
            e => e,
        })?;
        let contact = if best.distance <= threshold {
            Some(best_answer(a, &pose_a, b, &pose_b, &best))
        } else if iterations == 0 {
            containment(a, &pose_a, b, &pose_b)
        } else {
            None
        };
        if let Some(answer) = contact {
            return Ok(Some(MeshTimeOfContact {
                t,
                pose_a,
                pose_b,
                answer,
                iterations,
            }));
        }
        if iterations >= options.max_iterations {
            return Err(PolycdError::CcdNotConverged { iterations, t_free: t });
        }
        // Alg. 2 steps 5–10: the smallest safe step over the front.
        cache.rates.clear();
        cache.steps.clear();
        for f in &cache.front {
            // Every front node is apart by more than the threshold here (a node nearer than
            // the best distance descends; leaves within it ended the query above).
            let n = (f.point_b - f.point_a) / f.distance;
            let ba = directional_bound(&a.nodes[f.node_a as usize].hull, motion_a, &pose_a, n);
            let bb = directional_bound(&b.nodes[f.node_b as usize].hull, motion_b, &pose_b, n);
            cache.steps.push(safe_step(f.distance, &ba, &bb));
            cache.rates.push((ba, bb));
        }
        // A pair kept from the previous step without a query (its gap a lower bound) that
        // limits the step gets its distance now, once; it replaces the kept gap when it
        // allows a longer step (either is a valid separation along its own direction).
        let dt = loop {
            let (k, dt) =
                cache.steps.iter().enumerate().fold(
                    (usize::MAX, f64::INFINITY),
                    |m, (k, &s)| if s < m.1 { (k, s) } else { m },
                );
            if !cache.lazy.get(k).copied().unwrap_or(false) {
                break dt;
            }
            cache.lazy[k] = false;
            let f = cache.front[k];
            let ha = &a.nodes[f.node_a as usize].hull;
            let hb = &b.nodes[f.node_b as usize].hull;
            let pc = cache.node_pair(f.node_a, f.node_b);
            if let Ok(Distance::Separated {
                distance,
                point_a,
                point_b,
                ..
            }) = query::distance_or_overlap(ha, &pose_a, hb, &pose_b, options.discrete(), pc)
            {
                if distance > f.distance {
                    let n = (point_b - point_a) / distance;
                    let ba = directional_bound(ha, motion_a, &pose_a, n);
                    let bb = directional_bound(hb, motion_b, &pose_b, n);
                    let step = safe_step(distance, &ba, &bb);
                    if step > dt {
                        cache.front[k] = FrontNode {
                            distance,
                            point_a,
                            point_b,
                            ..f
                        };
                        cache.rates[k] = (ba, bb);
                        cache.steps[k] = step;
                    }
                }
            }
        };
        iterations += 1;
        match super::advance(t, dt, iterations)? {
            Some(next) => t = next,
            None => return Ok(None),
        }
        // Each front pair's gap along its direction at the next step, at least its distance
        // less the most the two nodes can close along it during the step (the bound `safe_step`
        // solved; `dt` is at most each pair's own safe step, so the gap stays non-negative).
        cache.gaps.clear();
        for (f, (ba, bb)) in cache.front.iter().zip(&cache.rates) {
            cache.gaps.push(f.distance - closing(dt, ba, bb));
        }
    }
}

/// The first contact of two meshes ([`time_of_contact`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshTimeOfContact {
    /// Time of contact in `[0, 1]`: no contact on `[0, t)`.
    pub t: f64,
    /// A's pose at `t`.
    pub pose_a: Pose,
    /// B's pose at `t`.
    pub pose_b: Pose,
    /// The discrete answer at `t`: `Separated` within the threshold (closest points, pieces
    /// and triangles), or `Overlapping` (at `t = 0`, or by rounding in the last step).
    pub answer: MeshDistance,
    /// Advancement steps taken.
    pub iterations: u32,
}

impl MeshTimeOfContact {
    /// The distance at `t` (0 when overlapping).
    pub fn distance(&self) -> f64 {
        match self.answer {
            MeshDistance::Separated { distance, .. } => distance,
            MeshDistance::Overlapping { .. } => 0.0,
        }
    }
}
