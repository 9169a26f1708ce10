//! `ConvexPolyhedron`: built from points, faces, files or shape specifications; immutable and
//! shared (an `Arc`), so it crosses threads and is pickled by its vertices and faces.

use crate::arrays::{points, points_np};
use crate::errors::to_py;
use numpy::{PyArray1, PyArray2};
use polycd::{shapes, ConvexPolyhedron, DVec3};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

/// A convex polyhedron (a solid, or exactly a polygon, segment or point when the input is
/// flat), optionally rounded by a radius (its Minkowski sum with a ball).
///
/// Build it with `from_points`, `from_mesh`, `read`, `from_spec` or the named generators;
/// it is immutable, thread-safe and picklable.
#[pyclass(module = "polycd", name = "ConvexPolyhedron", frozen)]
#[derive(Clone)]
pub struct PyShape {
    pub shape: Arc<ConvexPolyhedron>,
}

/// What a pickled shape holds: vertices, faces (empty for a flat shape), radius.
type ShapeState = (Vec<[f64; 3]>, Vec<Vec<u32>>, f64);

fn wrap(r: Result<ConvexPolyhedron, polycd::PolycdError>) -> PyResult<PyShape> {
    r.map(|s| PyShape { shape: Arc::new(s) }).map_err(to_py)
}

/// Rounds `s` by `radius` more (the batch format's `"radius"`: added to the shape's own);
/// None leaves it as it is. The error names the argument.
fn rounded(s: Result<ConvexPolyhedron, polycd::PolycdError>, radius: Option<f64>) -> PyResult<PyShape> {
    let s = s.map_err(to_py)?;
    match radius {
        None => wrap(Ok(s)),
        Some(r) if r.is_finite() && r >= 0.0 => {
            let total = s.radius() + r;
            wrap(s.with_radius(total))
        }
        Some(r) => Err(crate::errors::input(format!(
            "radius: must be a finite number ≥ 0, got {r}"
        ))),
    }
}

/// Exactly `points` as a flat shape of the given dimension (0 point, 1 segment, 2 polygon).
fn flat(py: Python<'_>, pts: Vec<DVec3>, dim: u8, what: &str, radius: Option<f64>) -> PyResult<PyShape> {
    let s = py.detach(|| ConvexPolyhedron::from_points(&pts)).map_err(to_py)?;
    if s.dimension() != dim {
        let names = ["a point", "a segment", "a polygon", "a solid"];
        return Err(crate::errors::InvalidShapeError::new_err(format!(
            "{what}: the points span {}, not {}",
            names[usize::from(s.dimension().min(3))],
            names[usize::from(dim)]
        )));
    }
    rounded(Ok(s), radius)
}

impl PyShape {
    /// The batch format's shape object of this shape, exactly: `{"vertices", "faces",
    /// "radius"}` (a solid by its boundary as stored, a flat shape by its points; radius only
    /// when rounded). A define line of it builds the very shape `_from_state` rebuilds.
    pub fn json_object(&self) -> serde_json::Value {
        let s = &self.shape;
        let v: Vec<[f64; 3]> = s.vertices().iter().map(|p| p.to_array()).collect();
        let mut o = serde_json::Map::new();
        o.insert("vertices".into(), serde_json::json!(v));
        if s.dimension() == 3 {
            let f: Vec<Vec<u32>> = (0..s.faces().len() as u32)
                .map(|i| s.face_vertices(i).to_vec())
                .collect();
            o.insert("faces".into(), serde_json::json!(f));
        }
        if s.radius() > 0.0 {
            o.insert("radius".into(), serde_json::json!(s.radius()));
        }
        serde_json::Value::Object(o)
    }
}

#[pymethods]
impl PyShape {
    /// The convex hull of an (n, 3) array of points (flat inputs give a polygon, segment or
    /// point exactly).
    #[staticmethod]
    #[pyo3(signature = (points, radius = None))]
    fn from_points(py: Python<'_>, points: &Bound<'_, PyAny>, radius: Option<f64>) -> PyResult<Self> {
        let p = crate::arrays::points(points, "points")?;
        rounded(py.detach(|| ConvexPolyhedron::from_points(&p)), radius)
    }

    /// A boundary representation: (n, 3) vertices and faces (sequences of 0-based vertex
    /// indices, counter-clockwise seen from outside), used as given and validated. With
    /// `hull=True` the convex hull of the vertices instead.
    #[staticmethod]
    #[pyo3(signature = (vertices, faces, hull = false, radius = None))]
    fn from_mesh(
        py: Python<'_>,
        vertices: &Bound<'_, PyAny>,
        faces: &Bound<'_, PyAny>,
        hull: bool,
        radius: Option<f64>,
    ) -> PyResult<Self> {
        let v = points(vertices, "vertices")?;
        let f = crate::arrays::faces(faces, "faces")?;
        if hull {
            return rounded(py.detach(|| ConvexPolyhedron::from_points(&v)), radius);
        }
        rounded(py.detach(|| ConvexPolyhedron::from_faces(&v, &f)), radius)
    }

    /// Reads an OBJ, OFF or STL file (its faces must bound a convex solid; `hull=True` takes
    /// the convex hull of its vertices) or a point list (.xyz, .pts, .txt: the hull).
    #[staticmethod]
    #[pyo3(signature = (path, hull = false, radius = None))]
    fn read(py: Python<'_>, path: std::path::PathBuf, hull: bool, radius: Option<f64>) -> PyResult<Self> {
        if hull {
            rounded(py.detach(|| polycd::io::read_polyhedron(&path)), radius)
        } else {
            rounded(py.detach(|| polycd::io::read_convex_polyhedron(&path)), radius)
        }
    }

    /// A built-in shape from its specification, as the CLI and batch format write it, e.g.
    /// `"icosphere:2"`, `"box:1,2,3"`, `"ellipsoid:1,2,3:500:7"`, `"sphere:1"`,
    /// `"box:1,1,1+r=0.1"` (see `polycd.SHAPE_SPECS`).
    /// `radius` rounds it by that much more (as the batch format's `"radius"`).
    #[staticmethod]
    #[pyo3(signature = (spec, radius = None))]
    fn from_spec(spec: &str, radius: Option<f64>) -> PyResult<Self> {
        rounded(shapes::from_spec(spec), radius)
    }

    /// A single point (3,), rounded by `radius` (a ball when radius > 0).
    #[staticmethod]
    #[pyo3(signature = (p, radius = None))]
    fn point(py: Python<'_>, p: &Bound<'_, PyAny>, radius: Option<f64>) -> PyResult<Self> {
        let p = crate::arrays::vec3(p, "p")?;
        flat(py, vec![p], 0, "point", radius)
    }

    /// The segment from p to q (distinct points), rounded by `radius` (a capsule).
    #[staticmethod]
    #[pyo3(signature = (p, q, radius = None))]
    fn segment(py: Python<'_>, p: &Bound<'_, PyAny>, q: &Bound<'_, PyAny>, radius: Option<f64>) -> PyResult<Self> {
        let p = crate::arrays::vec3(p, "p")?;
        let q = crate::arrays::vec3(q, "q")?;
        flat(py, vec![p, q], 1, "segment", radius)
    }

    /// The triangle p, q, r (not collinear), rounded by `radius`.
    #[staticmethod]
    #[pyo3(signature = (p, q, r, radius = None))]
    fn triangle(
        py: Python<'_>,
        p: &Bound<'_, PyAny>,
        q: &Bound<'_, PyAny>,
        r: &Bound<'_, PyAny>,
        radius: Option<f64>,
    ) -> PyResult<Self> {
        let pts = vec![
            crate::arrays::vec3(p, "p")?,
            crate::arrays::vec3(q, "q")?,
            crate::arrays::vec3(r, "r")?,
        ];
        flat(py, pts, 2, "triangle", radius)
    }

    /// The convex polygon of (n, 3) coplanar points (their convex hull in their plane,
    /// exactly), rounded by `radius`; points that are not coplanar raise InvalidShapeError.
    #[staticmethod]
    #[pyo3(signature = (points, radius = None))]
    fn polygon(py: Python<'_>, points: &Bound<'_, PyAny>, radius: Option<f64>) -> PyResult<Self> {
        let p = crate::arrays::points(points, "points")?;
        flat(py, p, 2, "polygon", radius)
    }

    /// The batch format's shape object of this shape as compact JSON: `{"vertices": …,
    /// "faces": …, "radius": …}` (a define line `{"define": name, "shape": <this>}` builds
    /// this very shape; `polycd.ray` and `BatchSession` define shipped shapes so).
    fn to_json(&self) -> String {
        self.json_object().to_string()
    }

    /// A box with side lengths x, y, z centred at the origin.
    #[staticmethod]
    #[pyo3(name = "box", signature = (x = 1.0, y = 1.0, z = 1.0))]
    fn box_(x: f64, y: f64, z: f64) -> PyResult<Self> {
        wrap(shapes::cuboid(x, y, z))
    }

    /// A regular tetrahedron of circumradius r.
    #[staticmethod]
    #[pyo3(signature = (r = 1.0))]
    fn tetrahedron(r: f64) -> PyResult<Self> {
        wrap(shapes::tetrahedron(r))
    }

    /// A regular octahedron of circumradius r.
    #[staticmethod]
    #[pyo3(signature = (r = 1.0))]
    fn octahedron(r: f64) -> PyResult<Self> {
        wrap(shapes::octahedron(r))
    }

    /// A regular icosahedron of circumradius r.
    #[staticmethod]
    #[pyo3(signature = (r = 1.0))]
    fn icosahedron(r: f64) -> PyResult<Self> {
        wrap(shapes::icosahedron(r))
    }

    /// An icosphere: the icosahedron subdivided k times, radius r.
    #[staticmethod]
    #[pyo3(signature = (k = 2, r = 1.0))]
    fn icosphere(k: u32, r: f64) -> PyResult<Self> {
        wrap(shapes::icosphere(k, r))
    }

    /// A prism over a regular n-gon of circumradius r, height h.
    #[staticmethod]
    fn prism(n: u32, r: f64, h: f64) -> PyResult<Self> {
        wrap(shapes::prism(n, r, h))
    }

    /// A cone over a regular n-gon of circumradius r, height h.
    #[staticmethod]
    fn cone(n: u32, r: f64, h: f64) -> PyResult<Self> {
        wrap(shapes::cone(n, r, h))
    }

    /// The convex hull of n seeded random points on the ellipsoid with semi-axes a, b, c.
    #[staticmethod]
    #[pyo3(signature = (n, a = 1.0, b = 1.0, c = 1.0, seed = 0))]
    fn ellipsoid(py: Python<'_>, n: usize, a: f64, b: f64, c: f64, seed: u64) -> PyResult<Self> {
        wrap(py.detach(|| shapes::ellipsoid(n, a, b, c, seed)))
    }

    /// A ball of radius r (a point rounded by r).
    #[staticmethod]
    fn sphere(r: f64) -> PyResult<Self> {
        wrap(shapes::sphere(r))
    }

    /// A capsule along z: the segment of the given full length rounded by r.
    #[staticmethod]
    fn capsule(length: f64, r: f64) -> PyResult<Self> {
        wrap(shapes::capsule(length, r))
    }

    /// The same shape rounded by `radius` (replacing its radius): a finite number ≥ 0.
    fn with_radius(&self, radius: f64) -> PyResult<Self> {
        wrap((*self.shape).clone().with_radius(radius))
    }

    /// Vertices, shape (n, 3) (the core's, before rounding).
    #[getter]
    fn vertices<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        points_np(py, self.shape.vertices())
    }

    /// Faces: a list of int64 arrays of vertex indices, counter-clockwise seen from outside.
    #[getter]
    fn faces<'py>(&self, py: Python<'py>) -> Vec<Bound<'py, PyArray1<i64>>> {
        (0..self.shape.faces().len() as u32)
            .map(|f| PyArray1::from_vec(py, self.shape.face_vertices(f).iter().map(|&v| i64::from(v)).collect()))
            .collect()
    }

    /// Outward unit normals of the faces, shape (f, 3).
    #[getter]
    fn normals<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let n: Vec<DVec3> = self.shape.faces().iter().map(|f| f.normal).collect();
        points_np(py, &n)
    }

    /// Plane offsets of the faces (normal · x = offset), shape (f,).
    #[getter]
    fn offsets<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.shape.faces().iter().map(|f| f.offset).collect())
    }

    /// Edges as (e, 2) vertex index pairs.
    #[getter]
    fn edges<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArray2<i64>>> {
        use numpy::PyArrayMethods;
        let s = &self.shape;
        let flat: Vec<i64> = s.edges().iter().flat_map(|e| e.vertices.map(i64::from)).collect();
        PyArray1::from_vec(py, flat).reshape([s.edges().len(), 2])
    }

    /// The rounding radius (0 for a polytope).
    #[getter]
    fn radius(&self) -> f64 {
        self.shape.radius()
    }

    /// 3 for a solid, 2 polygon, 1 segment, 0 point.
    #[getter]
    fn dimension(&self) -> u8 {
        self.shape.dimension()
    }

    /// Volume (of the rounded shape when rounded).
    #[getter]
    fn volume(&self) -> f64 {
        self.shape.volume()
    }

    /// Centroid, shape (3,).
    #[getter]
    fn centroid<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        crate::arrays::vec3_np(py, self.shape.centroid())
    }

    /// Summary: counts, dimension, radius, volume, centroid, bounding sphere and the
    /// validity report (as `polycd info` prints them).
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = &self.shape;
        let d = PyDict::new(py);
        let (v, e, f) = s.counts();
        d.set_item("vertices", v)?;
        d.set_item("edges", e)?;
        d.set_item("faces", f)?;
        d.set_item("dimension", s.dimension())?;
        d.set_item("radius", s.radius())?;
        d.set_item("volume", s.volume())?;
        d.set_item("centroid", s.centroid().to_array().to_vec())?;
        let (c, r) = s.bounding_sphere();
        d.set_item("bounding_center", c.to_array().to_vec())?;
        d.set_item("bounding_radius", r)?;
        let rep = py.detach(|| s.validate());
        d.set_item("euler_characteristic", rep.euler_characteristic)?;
        d.set_item("max_planarity_error", rep.max_planarity_error)?;
        d.set_item("max_convexity_error", rep.max_convexity_error)?;
        d.set_item("min_centroid_depth", rep.min_centroid_depth)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        let (v, e, f) = self.shape.counts();
        format!(
            "ConvexPolyhedron(vertices={v}, edges={e}, faces={f}, dimension={}, radius={})",
            self.shape.dimension(),
            self.shape.radius()
        )
    }

    /// Pickling: the vertices and faces (a solid is rebuilt from its boundary as given, a
    /// flat shape from its points) and the radius.
    fn __reduce__(&self, py: Python<'_>) -> PyResult<(Py<PyAny>, ShapeState)> {
        let s = &self.shape;
        let v: Vec<[f64; 3]> = s.vertices().iter().map(|p| p.to_array()).collect();
        let f: Vec<Vec<u32>> = if s.dimension() == 3 {
            (0..s.faces().len() as u32)
                .map(|i| s.face_vertices(i).to_vec())
                .collect()
        } else {
            Vec::new()
        };
        let ctor = py.get_type::<PyShape>().getattr("_from_state")?.unbind();
        Ok((ctor, (v, f, s.radius())))
    }

    /// Rebuilds a pickled shape (see `__reduce__`).
    #[staticmethod]
    fn _from_state(vertices: Vec<[f64; 3]>, faces: Vec<Vec<u32>>, radius: f64) -> PyResult<Self> {
        let v: Vec<DVec3> = vertices.iter().map(|p| DVec3::from_array(*p)).collect();
        let s = if faces.is_empty() {
            ConvexPolyhedron::from_points(&v)
        } else {
            ConvexPolyhedron::from_faces(&v, &faces)
        };
        let s = s.and_then(|s| if radius > 0.0 { s.with_radius(radius) } else { Ok(s) });
        wrap(s)
    }
}
