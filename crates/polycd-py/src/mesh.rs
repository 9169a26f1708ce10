//! `TriMesh`: a closed non-convex triangle mesh (kind "mesh", with its convex decomposition
//! and hull tree) or an open surface (kind "surface"), as the batch format's `"kind"` shape
//! objects; immutable and shared (an `Arc`), picklable.
//!
//! Queries on pairs with a mesh side go through the CLI's own mapping
//! (`polycd_cli::meshq::answer_body`, `meshq::answer_probe`), so the answers are the fields
//! `polycd batch` writes for the same shapes and poses.

use crate::arrays::{points, points_np};
use crate::errors::{input, to_py};
use crate::shape::PyShape;
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use polycd::mesh::{TriMesh, TriSurface};
use polycd::DVec3;
use polycd_cli::meshq::BatchSolid;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::sync::Arc;

/// Where an open surface came from: kept so a pickled surface is rebuilt exactly (its input
/// face numbering, which its features report, included).
#[derive(Clone, Debug)]
enum SurfaceSource {
    /// Vertices and faces as given.
    Inline(Vec<DVec3>, Vec<Vec<u32>>),
    /// A file: its name (for the extension and messages) and its bytes.
    File(String, Vec<u8>),
    /// A closed mesh's triangles (`TriSurface::from_mesh`): the mesh's stored bytes.
    Mesh(Vec<u8>),
}

/// A triangle mesh: `kind == "mesh"`, a closed, consistently oriented solid (decomposed into
/// convex pieces under a hull tree), or `kind == "surface"`, an open (or non-manifold)
/// surface without an inside.
///
/// Build it with `from_mesh`, `read`, `from_spec` or `from_convex`; it is immutable,
/// thread-safe and picklable (a mesh by its stored decomposition, a surface by its source).
/// Pass it to `intersect`, `distance`, `directional` (meshes; not surfaces), `manifold`
/// (meshes), `point_query` and `ray_cast` (meshes), `toc` (meshes) in place of a
/// `ConvexPolyhedron`.
#[pyclass(module = "polycd", name = "TriMesh", frozen)]
#[derive(Clone)]
pub struct PyTriMesh {
    pub body: BatchSolid,
    source: Option<SurfaceSource>,
}

fn kind_arg(kind: &str) -> PyResult<bool> {
    match kind {
        "mesh" => Ok(false),
        "surface" => Ok(true),
        other => Err(input(format!("kind: expected \"mesh\" or \"surface\", got '{other}'"))),
    }
}

fn mesh_body(m: TriMesh) -> PyTriMesh {
    PyTriMesh {
        body: BatchSolid::Mesh(Arc::new(m)),
        source: None,
    }
}

fn surface_body(s: TriSurface, src: SurfaceSource) -> PyTriMesh {
    PyTriMesh {
        body: BatchSolid::Surface(Arc::new(s)),
        source: Some(src),
    }
}

impl PyTriMesh {
    fn vertex_slice(&self) -> &[DVec3] {
        match &self.body {
            BatchSolid::Mesh(m) => m.vertices(),
            BatchSolid::Surface(s) => s.vertices(),
            BatchSolid::Convex(c) => c.vertices(),
        }
    }

    fn triangle_slice(&self) -> &[[u32; 3]] {
        match &self.body {
            BatchSolid::Mesh(m) => m.triangles(),
            BatchSolid::Surface(s) => s.triangles(),
            BatchSolid::Convex(_) => &[],
        }
    }
}

/// Reads a surface file, keeping its bytes for pickling.
fn read_surface(path: &std::path::Path) -> PyResult<PyTriMesh> {
    let s = TriSurface::read(path).map_err(to_py)?;
    let bytes =
        std::fs::read(path).map_err(|e| crate::errors::FileError::new_err(format!("{}: {e}", path.display())))?;
    Ok(surface_body(s, SurfaceSource::File(path.display().to_string(), bytes)))
}

#[pymethods]
impl PyTriMesh {
    /// A mesh of (n, 3) vertices and faces (sequences of 0-based vertex indices, polygons
    /// fan-triangulated), as the batch format's `{"kind": kind, "vertices", "faces"}`:
    /// `kind="mesh"` a closed solid (validated: a closed, consistently oriented 2-manifold;
    /// components wound against their nesting are re-oriented), `kind="surface"` an open
    /// surface.
    #[staticmethod]
    #[pyo3(signature = (vertices, faces, kind = "mesh"))]
    fn from_mesh(py: Python<'_>, vertices: &Bound<'_, PyAny>, faces: &Bound<'_, PyAny>, kind: &str) -> PyResult<Self> {
        let surface = kind_arg(kind)?;
        let v = points(vertices, "vertices")?;
        let f = crate::arrays::faces(faces, "faces")?;
        if surface {
            let s = py.detach(|| TriSurface::new(&v, &f)).map_err(to_py)?;
            return Ok(surface_body(s, SurfaceSource::Inline(v, f)));
        }
        py.detach(|| TriMesh::new(&v, &f)).map(mesh_body).map_err(to_py)
    }

    /// Reads an OBJ, OFF or STL file as a closed mesh (`kind="mesh"`) or an open surface
    /// (`kind="surface"`).
    #[staticmethod]
    #[pyo3(signature = (path, kind = "mesh"))]
    fn read(py: Python<'_>, path: std::path::PathBuf, kind: &str) -> PyResult<Self> {
        if kind_arg(kind)? {
            return read_surface(&path);
        }
        py.detach(|| TriMesh::read(&path)).map(mesh_body).map_err(to_py)
    }

    /// A built-in spec as a mesh, as the batch format's `{"kind": kind, "shape": spec}`:
    /// `"torus-knot:P,Q:SEGMENTS,SIDES[:TUBE]"`, or a convex built-in (`"box:1,2,3"`, …)
    /// triangulated.
    #[staticmethod]
    #[pyo3(signature = (spec, kind = "mesh"))]
    fn from_spec(py: Python<'_>, spec: &str, kind: &str) -> PyResult<Self> {
        let surface = kind_arg(kind)?;
        let m = py.detach(|| polycd_cli::meshq::mesh_spec(spec)).map_err(to_py)?;
        if surface {
            let src = SurfaceSource::Mesh(m.to_bytes());
            return Ok(surface_body(TriSurface::from_mesh(&m), src));
        }
        Ok(mesh_body(m))
    }

    /// A convex polyhedron as a closed mesh (its faces fan-triangulated), or as a surface.
    #[staticmethod]
    #[pyo3(signature = (shape, kind = "mesh"))]
    fn from_convex(py: Python<'_>, shape: PyRef<'_, PyShape>, kind: &str) -> PyResult<Self> {
        let surface = kind_arg(kind)?;
        let c = shape.shape.clone();
        if c.radius() > 0.0 {
            return Err(input("shape: a rounded shape has no triangle mesh (radius > 0)"));
        }
        let m = py.detach(|| TriMesh::from_convex(&c)).map_err(to_py)?;
        if surface {
            let src = SurfaceSource::Mesh(m.to_bytes());
            return Ok(surface_body(TriSurface::from_mesh(&m), src));
        }
        Ok(mesh_body(m))
    }

    /// "mesh" (a closed solid) or "surface" (open, no inside).
    #[getter]
    fn kind(&self) -> &'static str {
        match self.body {
            BatchSolid::Surface(_) => "surface",
            _ => "mesh",
        }
    }

    /// Vertices, shape (n, 3) (input order; welded duplicates stay, unused).
    #[getter]
    fn vertices<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        points_np(py, self.vertex_slice())
    }

    /// Triangles after repair and orientation, shape (m, 3) int64 vertex indices.
    #[getter]
    fn triangles<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<i64>>> {
        let t = self.triangle_slice();
        let flat: Vec<i64> = t.iter().flat_map(|t| t.map(i64::from)).collect();
        PyArray1::from_vec(py, flat).reshape([t.len(), 3])
    }

    /// The input face of each triangle, shape (m,) int64 (features name input faces).
    #[getter]
    fn input_faces<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let n = self.triangle_slice().len() as u32;
        let f: Vec<i64> = match &self.body {
            BatchSolid::Mesh(m) => (0..n).map(|t| i64::from(m.input_face(t))).collect(),
            BatchSolid::Surface(s) => (0..n).map(|t| i64::from(s.input_face(t))).collect(),
            BatchSolid::Convex(_) => Vec::new(),
        };
        PyArray1::from_vec(py, f)
    }

    /// The convex pieces of a closed mesh: a list of int64 arrays of triangle indices (every
    /// triangle in exactly one piece). A surface has none: an empty list.
    #[getter]
    fn pieces<'py>(&self, py: Python<'py>) -> Vec<Bound<'py, PyArray1<i64>>> {
        match &self.body {
            BatchSolid::Mesh(m) => m
                .pieces()
                .iter()
                .map(|p| PyArray1::from_vec(py, p.iter().map(|&t| i64::from(t)).collect()))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Volume of a closed mesh (None for a surface).
    #[getter]
    fn volume(&self) -> Option<f64> {
        match &self.body {
            BatchSolid::Mesh(m) => Some(m.volume()),
            _ => None,
        }
    }

    /// Volume centroid of a closed mesh, shape (3,) (None for a surface).
    #[getter]
    fn centroid<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        match &self.body {
            BatchSolid::Mesh(m) => Some(crate::arrays::vec3_np(py, m.centroid())),
            _ => None,
        }
    }

    /// Summary, as `polycd info --mesh` / `--surface` prints it: counts, and for a mesh its
    /// components, volume, centroid, decomposition (pieces; triangles per piece min, median,
    /// mean, max) and hull tree nodes, re-oriented components; for a surface its open and
    /// non-manifold edges and sphere tree nodes; the repair done.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("kind", self.kind())?;
        d.set_item("vertices", self.vertex_slice().len())?;
        d.set_item("triangles", self.triangle_slice().len())?;
        match &self.body {
            BatchSolid::Mesh(m) => {
                let mut sizes: Vec<usize> = m.pieces().iter().map(Vec::len).collect();
                sizes.sort_unstable();
                d.set_item("components", m.components().len())?;
                d.set_item("volume", m.volume())?;
                d.set_item("centroid", m.centroid().to_array().to_vec())?;
                d.set_item("pieces", sizes.len())?;
                d.set_item("piece_triangles_min", sizes.first().copied().unwrap_or(0))?;
                d.set_item(
                    "piece_triangles_median",
                    sizes.get(sizes.len() / 2).copied().unwrap_or(0),
                )?;
                d.set_item(
                    "piece_triangles_mean",
                    if sizes.is_empty() {
                        0.0
                    } else {
                        m.triangles().len() as f64 / sizes.len() as f64
                    },
                )?;
                d.set_item("piece_triangles_max", sizes.last().copied().unwrap_or(0))?;
                d.set_item("hull_tree_nodes", m.nodes().len())?;
                let re: Vec<usize> = m
                    .components()
                    .iter()
                    .filter(|c| c.reoriented)
                    .map(|c| c.first_face)
                    .collect();
                d.set_item("reoriented_components", re)?;
                d.set_item("repaired", m.repair().to_string())?;
            }
            BatchSolid::Surface(s) => {
                d.set_item("open_edges", s.open_edges())?;
                d.set_item("nonmanifold_edges", s.nonmanifold_edges())?;
                d.set_item("tree_nodes", s.tree_nodes())?;
                d.set_item("repaired", s.repair().to_string())?;
            }
            BatchSolid::Convex(_) => {}
        }
        Ok(d)
    }

    fn __repr__(&self) -> String {
        let extra = match &self.body {
            BatchSolid::Mesh(m) => format!(", pieces={}", m.pieces().len()),
            BatchSolid::Surface(s) => format!(", open_edges={}", s.open_edges()),
            BatchSolid::Convex(_) => String::new(),
        };
        format!(
            "TriMesh(kind='{}', vertices={}, triangles={}{extra})",
            self.kind(),
            self.vertex_slice().len(),
            self.triangle_slice().len()
        )
    }

    /// Pickling: a mesh by its stored decomposition (`TriMesh.to_bytes`, rebuilt without
    /// decomposing again), a surface by its source (vertices and faces, or the file's bytes).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Py<PyAny>, MeshState<'py>)> {
        let ctor = py.get_type::<PyTriMesh>().getattr("_from_state")?.unbind();
        let state: (String, Bound<'py, PyAny>) = match (&self.body, &self.source) {
            (BatchSolid::Mesh(m), _) => ("mesh".into(), PyBytes::new(py, &m.to_bytes()).into_any()),
            (BatchSolid::Surface(_), Some(SurfaceSource::Inline(v, f))) => {
                let v: Vec<[f64; 3]> = v.iter().map(|p| p.to_array()).collect();
                ("surface".into(), (v, f.clone()).into_pyobject(py)?.into_any())
            }
            (BatchSolid::Surface(_), Some(SurfaceSource::File(name, bytes))) => (
                "surface-file".into(),
                (name.clone(), PyBytes::new(py, bytes)).into_pyobject(py)?.into_any(),
            ),
            (BatchSolid::Surface(_), Some(SurfaceSource::Mesh(bytes))) => {
                ("surface-mesh".into(), PyBytes::new(py, bytes).into_any())
            }
            _ => return Err(input("this TriMesh cannot be pickled (no source kept)")),
        };
        Ok((ctor, state))
    }

    /// Rebuilds a pickled mesh or surface (see `__reduce__`).
    #[staticmethod]
    fn _from_state(py: Python<'_>, tag: &str, state: &Bound<'_, PyAny>) -> PyResult<Self> {
        match tag {
            "mesh" => {
                let b: Vec<u8> = state.extract()?;
                py.detach(|| TriMesh::from_bytes(&b, "pickled TriMesh"))
                    .map(mesh_body)
                    .map_err(to_py)
            }
            "surface" => {
                let (v, f): (Vec<[f64; 3]>, Vec<Vec<u32>>) = state.extract()?;
                let v: Vec<DVec3> = v.into_iter().map(DVec3::from_array).collect();
                let s = py.detach(|| TriSurface::new(&v, &f)).map_err(to_py)?;
                Ok(surface_body(s, SurfaceSource::Inline(v, f)))
            }
            "surface-mesh" => {
                let b: Vec<u8> = state.extract()?;
                let m = TriMesh::from_bytes(&b, "pickled TriMesh").map_err(to_py)?;
                Ok(surface_body(TriSurface::from_mesh(&m), SurfaceSource::Mesh(b)))
            }
            "surface-file" => {
                let (name, bytes): (String, Vec<u8>) = state.extract()?;
                // The reader dispatches on the extension: a private temporary file of it.
                let ext = std::path::Path::new(&name)
                    .extension()
                    .map(|e| e.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let dir = std::env::temp_dir();
                let path = dir.join(format!(
                    "polycd-surface-{}-{:x}.{ext}",
                    std::process::id(),
                    std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_nanos())
                ));
                std::fs::write(&path, &bytes)
                    .map_err(|e| crate::errors::FileError::new_err(format!("{}: {e}", path.display())))?;
                let s = TriSurface::read(&path);
                let _ = std::fs::remove_file(&path);
                Ok(surface_body(s.map_err(to_py)?, SurfaceSource::File(name, bytes)))
            }
            other => Err(input(format!("unknown pickled TriMesh state '{other}'"))),
        }
    }
}

/// What a pickled `TriMesh` holds: a tag ("mesh", "surface", "surface-file", "surface-mesh")
/// and its data.
type MeshState<'py> = (String, Bound<'py, PyAny>);

/// A shape argument of either class: a `ConvexPolyhedron` or a `TriMesh` (else TypeError).
pub fn solid_arg(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<BatchSolid> {
    if let Ok(s) = obj.cast::<PyShape>() {
        return Ok(BatchSolid::Convex(s.get().shape.clone()));
    }
    if let Ok(m) = obj.cast::<PyTriMesh>() {
        return Ok(m.get().body.clone());
    }
    let ty = obj
        .get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string());
    // A TypeError, as for any argument of the wrong Python type (the vectorised calls'
    // shapes too), naming the argument.
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "{name}: expected a ConvexPolyhedron or a TriMesh, got {ty}"
    )))
}
