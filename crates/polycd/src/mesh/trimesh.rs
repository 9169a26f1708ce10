//! The closed triangle mesh: validation (closed, consistently oriented 2-manifold, no
//! degenerate triangles), orientation of its shells by their nesting, volume and centroid.

use super::nest::nesting_depths;
use super::repair::{drop_bad_triangles, weld, MeshOptions, MeshRepair};
use super::tree::{bounds, build_tree, HullNode, NONE};
use crate::core::error::{MeshDefect, MeshFace, MeshNumbering, MeshVertex, PolycdError};
use crate::core::math::DVec3;
use crate::core::tolerance::{CONTACT_REL, FLATNESS_REL};
use crate::shape::hull::{check_points, IdMap};
use crate::shape::polyhedron::ConvexPolyhedron;

/// A closed, oriented triangle mesh with its convex surface decomposition and convex hull tree.
#[derive(Clone, Debug)]
pub struct TriMesh {
    pub(crate) vertices: Vec<DVec3>,
    pub(crate) triangles: Vec<[u32; 3]>,
    /// The input face (0-based, input order) of each triangle.
    pub(crate) tri_face: Vec<u32>,
    /// What was repaired before the checks.
    pub(crate) repair: MeshRepair,
    /// Triangles of each piece.
    pub(crate) pieces: Vec<Vec<u32>>,
    /// The convex hull tree: the leaves (one per piece, in piece order) first.
    pub(crate) nodes: Vec<HullNode>,
    pub(crate) root: u32,
    /// One vertex of each connected component of the surface (the containment test).
    pub(crate) component_vertices: Vec<u32>,
    /// The components, their nesting and orientation.
    pub(crate) components: Vec<MeshComponent>,
    pub(crate) centroid: DVec3,
    pub(crate) volume: f64,
    pub(crate) scale: f64,
    /// Centre of the bounding box (the ball of radius `scale` about it holds the mesh).
    pub(crate) box_centre: DVec3,
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
    /// count with [`crate::core::predicates::orient3d`]; the components do not cross, so one vertex
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
    ///
    /// # Repair
    /// Before the checks, the mesh is repaired with [`MeshOptions::default`]: bit-equal
    /// vertices welded, zero-area and duplicate triangles dropped (rules in [`MeshOptions`]'s
    /// module docs; [`TriMesh::repair`] says what was done). Triangles keep their input faces
    /// ([`TriMesh::input_face`]), and errors name the input's faces and vertices (a welded
    /// vertex by the first input vertex at its position).
    pub fn new(vertices: &[DVec3], faces: &[Vec<u32>]) -> Result<TriMesh, PolycdError> {
        TriMesh::build(vertices, faces, &Names::INPUT, &MeshOptions::default())
    }

    /// [`TriMesh::new`] with explicit repair options.
    pub fn with_options(vertices: &[DVec3], faces: &[Vec<u32>], options: &MeshOptions) -> Result<TriMesh, PolycdError> {
        TriMesh::build(vertices, faces, &Names::INPUT, options)
    }

    fn build(
        vertices: &[DVec3],
        faces: &[Vec<u32>],
        names: &Names<'_>,
        options: &MeshOptions,
    ) -> Result<TriMesh, PolycdError> {
        let (triangles, tri_face, repair) = repaired_triangles(vertices, faces, names, options, |_| {})?;
        TriMesh::finish(vertices, triangles, tri_face, repair, names, None)
    }

    /// The checks, orientation, volume and decomposition of repaired triangles. With `stored`
    /// (a decomposition read back by [`TriMesh::load`]: pieces, tree nodes, root and the
    /// components' re-orientation flags), its pieces and tree are taken instead of built.
    pub(crate) fn finish(
        vertices: &[DVec3],
        mut triangles: Vec<[u32; 3]>,
        mut tri_face: Vec<u32>,
        repair: MeshRepair,
        names: &Names<'_>,
        stored: Option<Stored>,
    ) -> Result<TriMesh, PolycdError> {
        let (lo, hi) = bounds(vertices.iter().copied());
        check_degenerate(vertices, &triangles, &tri_face, names)?;
        let directed = check_closed_manifold(vertices, &triangles, &tri_face, names)?;
        let (comp_of, firsts) = components(&triangles, &directed);
        drop(directed);
        let k = firsts.len();
        let Volumes {
            origin,
            vol6,
            moment,
            count,
            boxes,
        } = volumes(vertices, &triangles, &tri_face, &comp_of, &firsts, names)?;
        let depth = if k > 1 {
            let first_face = |c: usize| names.face(tri_face[firsts[c] as usize] as usize);
            nesting_depths(vertices, &triangles, &comp_of, &boxes, first_face)?
        } else {
            vec![0u32; k]
        };
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
        let scale = 0.5 * (hi - lo).length();
        if !(total > FLATNESS_REL * scale * scale * scale) {
            return Err(bad(MeshDefect::Degenerate("zero enclosed volume")));
        }
        let centroid = origin + total_moment / (4.0 * total);
        let component_vertices = firsts.iter().map(|&t| triangles[t as usize][0]).collect();
        let mut mesh = TriMesh {
            vertices: vertices.to_vec(),
            triangles,
            tri_face: std::mem::take(&mut tri_face),
            repair,
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
        match stored {
            None => {
                mesh.decompose()?;
                let (nodes, root) = build_tree(std::mem::take(&mut mesh.nodes))?;
                (mesh.nodes, mesh.root) = (nodes, root);
            }
            Some(st) => {
                if st.reoriented.len() != mesh.components.len() {
                    return Err(bad(MeshDefect::Degenerate(
                        "the stored decomposition's components do not match the mesh",
                    )));
                }
                for (c, r) in mesh.components.iter_mut().zip(st.reoriented) {
                    c.reoriented = r;
                }
                (mesh.pieces, mesh.nodes, mesh.root) = (st.pieces, st.nodes, st.root);
            }
        }
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
        TriMesh::build(&m.vertices, &m.faces, &names, &MeshOptions::default()).map_err(|e| match e {
            PolycdError::InvalidMesh(defect) => PolycdError::MeshFile {
                path: path.display().to_string(),
                defect,
            },
            e => e,
        })
    }

    /// What was repaired before the checks (empty for a clean mesh).
    pub fn repair(&self) -> &MeshRepair {
        &self.repair
    }

    /// The 0-based index of the face in the caller's input (for [`TriMesh::read`], the file's
    /// faces in file order) that triangle `triangle` of [`triangles`](Self::triangles) came
    /// from (polygons are fan-triangulated; dropped triangles leave gaps in the faces named).
    /// An index out of range gives `u32::MAX`.
    pub fn input_face(&self, triangle: u32) -> u32 {
        self.tri_face.get(triangle as usize).copied().unwrap_or(NONE)
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
        self.nodes.get(piece as usize).and_then(|n| n.hull().ok())
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
}

/// A typed mesh defect.
/// A surface's triangles, each one's input face, and the repair report.
pub(crate) type SurfaceTriangles = (Vec<[u32; 3]>, Vec<u32>, MeshRepair);

/// The repaired triangles of an input read as an open surface ([`crate::mesh::TriSurface`]):
/// the faces fan-triangulated, then (with `options.repair`) welded, zero-area and duplicate
/// triangles dropped as for a closed mesh; no closedness, manifoldness, sliver or volume
/// checks.
/// Errors name the input's faces (`names`).
pub(crate) fn surface_triangles(
    vertices: &[DVec3],
    faces: &[Vec<u32>],
    names: &Names<'_>,
    options: &MeshOptions,
) -> Result<SurfaceTriangles, PolycdError> {
    // A surface has no sides: orient every triangle alike (smallest vertex first, then the
    // smaller), so a back-to-back pair is a duplicate, one of them kept.
    let (mut t, mut tf, repair) = repaired_triangles(vertices, faces, names, options, |t| {
        for tri in t {
            let k = (0..3).min_by_key(|&k| tri[k]).unwrap_or(0);
            let r = [tri[k], tri[(k + 1) % 3], tri[(k + 2) % 3]];
            *tri = if r[1] < r[2] { r } else { [r[0], r[2], r[1]] };
        }
    })?;
    // Slivers (nearly collinear corners, refused by a closed mesh's checks) stay: a surface's
    // triangle is queried as the flat convex hull of its corners, a thin polygon or segment.
    // Exactly collinear corners were dropped above (zero area).
    t.shrink_to_fit();
    tf.shrink_to_fit();
    Ok((t, tf, repair))
}

/// [`surface_triangles`] of a mesh file, errors naming the file and its own numbering.
#[cfg(feature = "io")]
pub(crate) fn read_surface(path: &std::path::Path) -> Result<(Vec<DVec3>, SurfaceTriangles), PolycdError> {
    let m = crate::shape::io::read_mesh_numbered(path)?;
    let names = Names {
        numbering: m.numbering,
        vertex_number: &m.vertex_number,
        face_line: &m.face_line,
    };
    let (t, tf, r) =
        surface_triangles(&m.vertices, &m.faces, &names, &MeshOptions::default()).map_err(|e| match e {
            PolycdError::InvalidMesh(defect) => PolycdError::MeshFile {
                path: path.display().to_string(),
                defect,
            },
            e => e,
        })?;
    Ok((m.vertices, (t, tf, r)))
}

fn bad(d: MeshDefect) -> PolycdError {
    PolycdError::InvalidMesh(Box::new(d))
}

/// The input's faces fan-triangulated, and with `options.repair` welded (`orient` then sees
/// the welded triangles) and cleared of zero-area and duplicate triangles: the validation
/// shared by closed meshes ([`TriMesh::new`]) and open surfaces ([`surface_triangles`]).
/// Errors name the input's faces (`names`); no triangle left is [`MeshDefect::Empty`].
fn repaired_triangles(
    vertices: &[DVec3],
    faces: &[Vec<u32>],
    names: &Names<'_>,
    options: &MeshOptions,
    orient: impl FnOnce(&mut [[u32; 3]]),
) -> Result<SurfaceTriangles, PolycdError> {
    check_points(vertices)?;
    if faces.is_empty() {
        return Err(bad(MeshDefect::Empty));
    }
    let mut repair = MeshRepair::default();
    let (t, tf) = if options.repair {
        let (lo, hi) = bounds(vertices.iter().copied());
        let (rep, welded, farthest) = weld(vertices, options.weld_tolerance, 0.5 * (hi - lo).length());
        repair.welded_vertices = welded;
        repair.max_weld_distance = farthest;
        let welded_faces: Vec<Vec<u32>> = faces
            .iter()
            .map(|f| f.iter().map(|&v| rep.get(v as usize).copied().unwrap_or(v)).collect())
            .collect();
        let (mut t, mut tf) = fan(vertices, &welded_faces, names)?;
        orient(&mut t);
        drop_bad_triangles(vertices, &mut t, &mut tf, &mut repair);
        (t, tf)
    } else {
        // Every face gives at least one triangle (or is refused): never empty here.
        fan(vertices, faces, names)?
    };
    if t.is_empty() {
        return Err(bad(MeshDefect::Empty));
    }
    Ok((t, tf, repair))
}

/// Fan-triangulates the faces (each triangle with its face), refusing faces with fewer than
/// three or out-of-range indices.
fn fan(vertices: &[DVec3], faces: &[Vec<u32>], names: &Names<'_>) -> Result<(Vec<[u32; 3]>, Vec<u32>), PolycdError> {
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
    Ok((triangles, tri_face))
}

/// Refuses degenerate triangles (repeated vertices, or an area below [`FLATNESS_REL`] of the
/// longest side squared), naming the first in face order.
fn check_degenerate(
    vertices: &[DVec3],
    triangles: &[[u32; 3]],
    tri_face: &[u32],
    names: &Names<'_>,
) -> Result<(), PolycdError> {
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
    Ok(())
}

/// The directed edges of a closed, consistently oriented 2-manifold: each exactly once, each
/// with its reverse, every vertex a single fan. Checked in face order, so the place reported
/// is the first one in the input.
fn check_closed_manifold(
    vertices: &[DVec3],
    triangles: &[[u32; 3]],
    tri_face: &[u32],
    names: &Names<'_>,
) -> Result<IdMap<(u32, u32), u32>, PolycdError> {
    // Directed edges: each exactly once, each with its reverse. Checked in face order, so
    // the edge reported is the first one in the input.
    // (Keys hashed by `IdHasher`: only looked up, never iterated, so no order depends on it.)
    let mut directed: IdMap<(u32, u32), u32> = IdMap::with_capacity_and_hasher(triangles.len() * 3, Default::default());
    for (i, t) in triangles.iter().enumerate() {
        for k in 0..3 {
            let e = (t[k], t[(k + 1) % 3]);
            if let Some(first) = directed.insert(e, i as u32) {
                return Err(bad(MeshDefect::NonManifoldEdge {
                    a: names.vertex(e.0, vertices),
                    b: names.vertex(e.1, vertices),
                    faces: faces_using(triangles, tri_face, e),
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
                    faces: faces_using(triangles, tri_face, (a, b)),
                    face: names.face(tri_face[i] as usize),
                }));
            }
        }
    }
    let fans = check_vertex_fans(triangles);
    if let Some(&v) = fans.iter().min_by_key(|&&v| names.vertex_number(v)) {
        return Err(bad(MeshDefect::NonManifoldVertex {
            vertex: names.vertex(v, vertices),
        }));
    }
    Ok(directed)
}

/// Connected components of the surface (union–find over the edges, each edge's two
/// triangles): each triangle's component, and each component's first triangle (its root).
fn components(triangles: &[[u32; 3]], directed: &IdMap<(u32, u32), u32>) -> (Vec<u32>, Vec<u32>) {
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
    (comp_of, firsts)
}

/// Per-component signed volumes (×6), first moments, triangle counts and bounding boxes,
/// about `origin` (the mean vertex).
struct Volumes {
    origin: DVec3,
    vol6: Vec<f64>,
    moment: Vec<DVec3>,
    count: Vec<usize>,
    boxes: Vec<(DVec3, DVec3)>,
}

/// [`Volumes`] of the components, refusing a component whose volume's sign is not certain or
/// that is flatter than [`FLATNESS_REL`] of its size ([`MeshDefect::FlatComponent`]).
fn volumes(
    vertices: &[DVec3],
    triangles: &[[u32; 3]],
    tri_face: &[u32],
    comp_of: &[u32],
    firsts: &[u32],
    names: &Names<'_>,
) -> Result<Volumes, PolycdError> {
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
        perm[c] += a.x * (b.y * cc.z + b.z * cc.y) + a.y * (b.x * cc.z + b.z * cc.x) + a.z * (b.x * cc.y + b.y * cc.x);
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
    Ok(Volumes {
        origin,
        vol6,
        moment,
        count,
        boxes,
    })
}

/// The vertices whose triangles do not form a single fan (closed: every edge has its reverse,
/// checked before); empty when every vertex is manifold.
pub(crate) fn check_vertex_fans(triangles: &[[u32; 3]]) -> Vec<u32> {
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

/// A decomposition read back from a file ([`TriMesh::load`]).
pub(crate) struct Stored {
    pub(crate) pieces: Vec<Vec<u32>>,
    pub(crate) nodes: Vec<HullNode>,
    pub(crate) root: u32,
    pub(crate) reoriented: Vec<bool>,
}

/// How [`TriMesh::build`] names vertices and faces in its errors: the input's numbering.
pub(crate) struct Names<'a> {
    numbering: MeshNumbering,
    /// The input's number of each vertex (empty: its index).
    vertex_number: &'a [u64],
    /// The line of each face (empty: none).
    face_line: &'a [usize],
}

impl Names<'static> {
    /// Indices into `TriMesh::new`'s slices.
    pub(crate) const INPUT: Names<'static> = Names {
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
