//! Contact manifolds: the contact normal and points (a, b, separation, features) of a
//! touching pair, with a `ManifoldCache` for coherence (persistent point ids); pairs with a
//! closed-mesh side give one manifold per touching piece pair (after merging). The JSON of a
//! manifold is the CLI's (`answer::manifold_json`, `answer::manifolds_json`): what
//! `polycd batch` writes under `"manifold"` / `"manifolds"`.

use crate::arrays::{points_np, vec3_np};
use crate::errors::{input, to_py};
use crate::mesh::solid_arg;
use crate::pose::pose_arg;
use numpy::{PyArray1, PyArray2};
use polycd::mesh::SolidFeature;
use polycd::query::{ContactManifold, ManifoldCache, ManifoldKind, ManifoldOptions};
use polycd::{DVec3, Feature};
use polycd_cli::meshq::BatchSolid;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// A pair's contact-manifold state (its distance queries' warm start, the clip buffers and
/// the last frame's point ids): pass the same cache to every `manifold` call on the same
/// convex pair, frame after frame, and matched points keep their `ids`. One cache is used by
/// one call at a time.
#[pyclass(module = "polycd", name = "ManifoldCache")]
#[derive(Default)]
pub struct PyManifoldCache {
    cache: ManifoldCache,
}

#[pymethods]
impl PyManifoldCache {
    #[new]
    fn new() -> Self {
        Self::default()
    }

    fn __repr__(&self) -> String {
        "ManifoldCache()".into()
    }
}

/// One contact point before it reaches Python.
#[derive(Clone, Copy)]
struct Point {
    a: DVec3,
    b: DVec3,
    separation: f64,
    features: (SolidFeature, SolidFeature),
    id: Option<u32>,
}

/// A contact manifold: the unit `normal` (world frame, from A toward B) and its points,
/// counter-clockwise about it: `points_a`, `points_b` ((k, 3): b = a + separation · normal),
/// `separations` ((k,): negative when penetrating, positive within the margin), `features`
/// (per point {"a": (kind, id), "b": (kind, id)}; kind "vertex", "edge", "face" or
/// "triangle" of an input face on a mesh side), `ids` (convex pairs: persistent ids with a
/// ManifoldCache). `kind`: "face_a", "face_b" (the reference face's shape), "point", or
/// "mesh" (a pair with a mesh side: `pieces` lists the merged piece pairs).
#[pyclass(module = "polycd", name = "Manifold", frozen)]
pub struct PyManifold {
    normal: DVec3,
    kind: String,
    reference_face: Option<u32>,
    points: Vec<Point>,
    pieces: Vec<(u32, u32)>,
    json: serde_json::Value,
}

fn tuple(f: SolidFeature) -> (&'static str, u32) {
    match f {
        SolidFeature::Triangle(i) => ("triangle", i),
        SolidFeature::Convex(Feature::Vertex(i)) => ("vertex", i),
        SolidFeature::Convex(Feature::Edge(i)) => ("edge", i),
        SolidFeature::Convex(Feature::Face(i)) => ("face", i),
        // A feature kind these bindings do not know: no id to give.
        _ => ("unknown", u32::MAX),
    }
}

#[pymethods]
impl PyManifold {
    /// Unit normal, shape (3,), from A toward B.
    #[getter]
    fn normal<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        vec3_np(py, self.normal)
    }
    /// "face_a", "face_b", "point" (convex pairs) or "mesh".
    #[getter]
    fn kind(&self) -> &str {
        &self.kind
    }
    /// The reference face's id ("face_a" / "face_b"), else None.
    #[getter]
    fn reference_face(&self) -> Option<u32> {
        self.reference_face
    }
    /// Points on A, shape (k, 3).
    #[getter]
    fn points_a<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        points_np(py, &self.points.iter().map(|p| p.a).collect::<Vec<_>>())
    }
    /// Points on B, shape (k, 3).
    #[getter]
    fn points_b<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        points_np(py, &self.points.iter().map(|p| p.b).collect::<Vec<_>>())
    }
    /// Signed separations along the normal, shape (k,).
    #[getter]
    fn separations<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.points.iter().map(|p| p.separation).collect())
    }
    /// Per point {"a": (kind, id), "b": (kind, id)}.
    #[getter]
    fn features<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let l = PyList::empty(py);
        for p in &self.points {
            let d = PyDict::new(py);
            d.set_item("a", tuple(p.features.0))?;
            d.set_item("b", tuple(p.features.1))?;
            l.append(d)?;
        }
        Ok(l)
    }
    /// Persistent point ids (convex pairs), shape (k,) int64; −1 for a mesh pair's points.
    #[getter]
    fn ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        PyArray1::from_vec(py, self.points.iter().map(|p| p.id.map_or(-1, i64::from)).collect())
    }
    /// The points as dicts {"a", "b", "separation", "features"} (the batch format's objects).
    #[getter]
    fn points<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let l = PyList::empty(py);
        for p in &self.points {
            let d = PyDict::new(py);
            d.set_item("a", vec3_np(py, p.a))?;
            d.set_item("b", vec3_np(py, p.b))?;
            d.set_item("separation", p.separation)?;
            let f = PyDict::new(py);
            f.set_item("a", tuple(p.features.0))?;
            f.set_item("b", tuple(p.features.1))?;
            d.set_item("features", f)?;
            l.append(d)?;
        }
        Ok(l)
    }
    /// A mesh pair's merged piece pairs (piece of A, piece of B; 0 for a convex side); empty
    /// for a convex pair.
    #[getter]
    fn pieces(&self) -> Vec<(u32, u32)> {
        self.pieces.clone()
    }
    fn __len__(&self) -> usize {
        self.points.len()
    }
    /// The manifold object `polycd batch` writes (compact JSON, the CLI's serialisation).
    fn to_json(&self) -> String {
        self.json.to_string()
    }
    fn __repr__(&self) -> String {
        format!(
            "Manifold(kind='{}', points={}, normal=[{}, {}, {}])",
            self.kind,
            self.points.len(),
            self.normal.x,
            self.normal.y,
            self.normal.z
        )
    }
}

fn convex_manifold(m: &ContactManifold) -> PyManifold {
    let (kind, reference_face) = match m.kind {
        ManifoldKind::FaceA(f) => ("face_a", Some(f)),
        ManifoldKind::FaceB(f) => ("face_b", Some(f)),
        ManifoldKind::Point => ("point", None),
        _ => ("unknown", None),
    };
    PyManifold {
        normal: m.normal,
        kind: kind.into(),
        reference_face,
        points: m
            .points
            .iter()
            .map(|q| Point {
                a: q.a,
                b: q.b,
                separation: q.separation,
                features: (SolidFeature::Convex(q.features.a), SolidFeature::Convex(q.features.b)),
                id: Some(q.id),
            })
            .collect(),
        pieces: Vec::new(),
        json: polycd_cli::answer::manifold_json(Some(m)),
    }
}

/// The contact manifold of A at pose_a and B at pose_b within `margin` (a finite number ≥ 0:
/// points apart by up to it are reported with positive separation), reduced to at most 4
/// points (the deepest, then the largest area) with `reduce=True`. Two convex shapes: a
/// `Manifold`, or None when apart by more than the margin (`cache`: a ManifoldCache kept
/// across frames). A pair with a closed-mesh side: a list of `Manifold` (one per touching
/// piece pair after merging; empty when apart), `cache` unused. Surfaces raise
/// UnsupportedError.
#[pyfunction]
#[pyo3(signature = (a, pose_a, b, pose_b, margin = 0.0, reduce = false, cache = None))]
#[allow(clippy::too_many_arguments)]
pub fn manifold<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    pose_a: Option<&Bound<'py, PyAny>>,
    b: &Bound<'py, PyAny>,
    pose_b: Option<&Bound<'py, PyAny>>,
    margin: f64,
    reduce: bool,
    cache: Option<PyRefMut<'py, PyManifoldCache>>,
) -> PyResult<Bound<'py, PyAny>> {
    let sa = solid_arg(a, "a")?;
    let sb = solid_arg(b, "b")?;
    let pa = pose_arg(pose_a, "pose_a")?;
    let pb = pose_arg(pose_b, "pose_b")?;
    if !(margin.is_finite() && margin >= 0.0) {
        return Err(input(format!("margin: must be a finite number ≥ 0, got {margin}")));
    }
    let options = ManifoldOptions::default().with_margin(margin).with_reduce(reduce);
    if let (BatchSolid::Convex(x), BatchSolid::Convex(y)) = (&sa, &sb) {
        let run = |c: &mut ManifoldCache| {
            polycd::query::contact_manifold(x, &pa, y, &pb, &options, c).map(|m| m.map(convex_manifold))
        };
        let m = match cache {
            Some(mut c) => {
                let c = &mut c.cache;
                py.detach(|| run(c))
            }
            None => py.detach(|| run(&mut ManifoldCache::default())),
        }
        .map_err(to_py)?;
        return Ok(m
            .map(|m| Bound::new(py, m))
            .transpose()?
            .map_or_else(|| py.None().into_bound(py), |m| m.into_any()));
    }
    let (Some(xa), Some(xb)) = (sa.solid(), sb.solid()) else {
        return Err(to_py(polycd::PolycdError::UnsupportedShape {
            algorithm: "manifold",
            shape: "surface",
            reason:
                "open surfaces answer intersect and distance queries only (not yet directional, manifold, point or ray)",
        }));
    };
    let ms = py
        .detach(|| polycd::mesh::contact_manifolds(xa, &pa, xb, &pb, &options))
        .map_err(to_py)?;
    let l = PyList::empty(py);
    for m in &ms {
        let one = PyManifold {
            normal: m.normal,
            kind: "mesh".into(),
            reference_face: None,
            points: m
                .points
                .iter()
                .map(|q| Point {
                    a: q.a,
                    b: q.b,
                    separation: q.separation,
                    features: q.features,
                    id: None,
                })
                .collect(),
            pieces: m.pieces.clone(),
            json: polycd_cli::answer::manifolds_json(std::slice::from_ref(m))[0].clone(),
        };
        l.append(Bound::new(py, one)?)?;
    }
    Ok(l.into_any())
}
