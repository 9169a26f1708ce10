//! The pair queries (intersect, distance, directional, time of contact) with the batch
//! format's names and semantics, their answers, the coherence cache and the batch runner.

use crate::arrays::vec3_np;
use crate::errors::{input, to_py, VerificationError};
use crate::pose::{pose_arg, PyPose};
use crate::shape::PyShape;
use polycd::ccd::{self, CcdCache, CcdOptions, RigidMotion};
use polycd::query::{self, Algorithm, Directional, Distance, Feature, Intersection, OverlapWitness, PairCache};
use polycd::verify::Answer as Checked;
use polycd::{ConvexPolyhedron, DVec3, FeaturePair, PolycdError, Pose};
use polycd_cli::answer::Answer as BatchAnswer;
use polycd_cli::batch as cli_batch;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::Arc;

/// Status code of a disjoint pair in the vectorised answers.
pub const DISJOINT: i8 = 0;
/// Status code of a touching pair.
pub const TOUCHING: i8 = 1;
/// Status code of overlapping interiors.
pub const OVERLAPPING: i8 = 2;
/// Status code of an answer the algorithm could not give (`"error"` in the batch format).
pub const ERROR: i8 = -1;

/// The status code of a batch status name.
pub fn status_code(s: &str) -> i8 {
    match s {
        "disjoint" => DISJOINT,
        "touching" => TOUCHING,
        "overlapping" => OVERLAPPING,
        _ => ERROR,
    }
}

/// An algorithm by its batch-format name.
pub fn algorithm_arg(name: &str) -> PyResult<Algorithm> {
    Algorithm::parse(name).ok_or_else(|| {
        input(format!(
            "unknown algorithm '{name}' (known: {})",
            Algorithm::ALL.map(|a| a.name()).join(", ")
        ))
    })
}

/// Which question an answer answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Intersect,
    Distance,
    Directional,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Intersect => "intersect",
            Kind::Distance => "distance",
            Kind::Directional => "directional",
        }
    }
}

/// The library's answer with what `polycd batch` would write for it.
#[derive(Clone, Debug)]
pub struct Both {
    pub raw: Checked,
    pub fields: BatchAnswer,
}

/// Runs one query and maps its answer to the batch format's fields (status with the pair's
/// contact tolerance, points, features, iterations) as `polycd batch` does.
#[allow(clippy::too_many_arguments)]
pub fn run(
    kind: Kind,
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    direction: DVec3,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Both, PolycdError> {
    let tol = query::contact_tolerance(a, pa, b, pb);
    match kind {
        Kind::Intersect => {
            let r = query::intersect(a, pa, b, pb, algorithm, cache)?;
            Ok(Both {
                raw: Checked::Intersection(r),
                fields: cli_batch::intersection_answer(&r, a, pa, b, pb),
            })
        }
        Kind::Distance => {
            let d = query::distance(a, pa, b, pb, algorithm, cache)?;
            Ok(Both {
                raw: Checked::Distance(d),
                fields: cli_batch::distance_answer(&d, tol, a, pa, b, pb),
            })
        }
        Kind::Directional => {
            let r = query::directional(a, pa, b, pb, direction, algorithm, cache)?;
            Ok(Both {
                raw: Checked::Directional { direction, answer: r },
                fields: cli_batch::directional_answer(&r, tol, a, pa, b, pb)?,
            })
        }
    }
}

/// Per-pair coherence state for every algorithm: pass the same cache to every query on the
/// same pair of shapes (frame after frame) to warm-start them. One cache is used by one
/// query at a time (a second thread using it concurrently gets a RuntimeError, not a crash).
#[pyclass(module = "polycd", name = "PairCache")]
#[derive(Default)]
pub struct PyPairCache {
    pub cache: PairCache,
}

#[pymethods]
impl PyPairCache {
    #[new]
    fn new() -> Self {
        Self::default()
    }

    /// Forgets every algorithm's state (the next query starts cold).
    fn forget(&mut self) {
        self.cache.forget();
    }

    fn __repr__(&self) -> String {
        "PairCache()".into()
    }
}

/// An answer: the fields `polycd batch` writes (status, distance, signed_distance,
/// directional, point_a, point_b, features, iterations), the library's certificate, and
/// `verify()` to check it independently.
#[pyclass(module = "polycd", name = "Answer", frozen)]
pub struct PyAnswer {
    kind: Kind,
    both: Both,
    a: Arc<ConvexPolyhedron>,
    pa: Pose,
    b: Arc<ConvexPolyhedron>,
    pb: Pose,
}

fn opt_vec<'py>(py: Python<'py>, v: Option<DVec3>) -> Option<Bound<'py, numpy::PyArray1<f64>>> {
    v.filter(|p| p.is_finite()).map(|p| vec3_np(py, p))
}

fn opt_num(v: Option<f64>) -> Option<f64> {
    v.filter(|x| x.is_finite())
}

fn feature_tuple(f: Feature) -> (&'static str, u32) {
    match f {
        Feature::Vertex(i) => ("vertex", i),
        Feature::Edge(i) => ("edge", i),
        Feature::Face(i) => ("face", i),
    }
}

fn features_dict<'py>(py: Python<'py>, f: FeaturePair) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("a", feature_tuple(f.a))?;
    d.set_item("b", feature_tuple(f.b))?;
    Ok(d)
}

fn witness_dict<'py>(py: Python<'py>, w: &OverlapWitness) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    match *w {
        OverlapWitness::CommonPoint(p) => {
            d.set_item("kind", "common_point")?;
            d.set_item("point", vec3_np(py, p))?;
        }
        OverlapWitness::Features { features, point } => {
            d.set_item("kind", "intersecting_features")?;
            d.set_item("features", features_dict(py, features)?)?;
            d.set_item("point", vec3_np(py, point))?;
        }
        OverlapWitness::Simplex(s) => {
            d.set_item("kind", "minkowski_simplex")?;
            d.set_item("pairs", s.pairs().to_vec())?;
        }
    }
    Ok(d)
}

fn plane_into(py: Python<'_>, d: &Bound<'_, PyDict>, p: &polycd::Plane) -> PyResult<()> {
    d.set_item("normal", vec3_np(py, p.normal))?;
    d.set_item("offset", p.offset)
}

#[pymethods]
impl PyAnswer {
    /// "intersect", "distance" or "directional".
    #[getter]
    fn query(&self) -> &'static str {
        self.kind.name()
    }

    /// "disjoint", "touching", "overlapping" or "error" (the algorithm did not converge).
    #[getter]
    fn status(&self) -> &'static str {
        self.both.fields.status
    }

    /// The status as a code: polycd.DISJOINT 0, TOUCHING 1, OVERLAPPING 2, ERROR −1.
    #[getter]
    fn status_code(&self) -> i8 {
        status_code(self.both.fields.status)
    }

    /// Distance (0 when overlapping); None for intersect and directional queries.
    #[getter]
    fn distance(&self) -> Option<f64> {
        opt_num(self.both.fields.distance)
    }

    /// Distance apart, or minus the penetration depth; None when unknown.
    #[getter]
    fn signed_distance(&self) -> Option<f64> {
        opt_num(self.both.fields.signed_distance)
    }

    /// Directional query: the signed translation of B along the direction (in units of the
    /// unit direction) that makes the shapes touch; None when no translation does.
    #[getter]
    fn directional(&self) -> Option<f64> {
        opt_num(self.both.fields.directional)
    }

    /// A point of A (closest point, deepest point or common point), world frame, or None.
    #[getter]
    fn point_a<'py>(&self, py: Python<'py>) -> Option<Bound<'py, numpy::PyArray1<f64>>> {
        opt_vec(py, self.both.fields.point_a)
    }

    /// The matching point of B, or None.
    #[getter]
    fn point_b<'py>(&self, py: Python<'py>) -> Option<Bound<'py, numpy::PyArray1<f64>>> {
        opt_vec(py, self.both.fields.point_b)
    }

    /// {"a": (kind, id), "b": (kind, id)} with kind "vertex", "edge" or "face", or None.
    #[getter]
    fn features<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.both.fields.features.map(|f| features_dict(py, f)).transpose()
    }

    /// Iterations the algorithm used.
    #[getter]
    fn iterations(&self) -> Option<u32> {
        self.both.fields.iterations
    }

    /// Why there is no answer (status "error"), else None.
    #[getter]
    fn error(&self) -> Option<String> {
        self.both.fields.error.clone()
    }

    /// The library's certificate as a dict: a separating plane, a common point,
    /// intersecting features or a Minkowski simplex, closest points with their features,
    /// a penetration, or a contact plane; None when the algorithm did not converge.
    #[getter]
    fn certificate<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let d = PyDict::new(py);
        match &self.both.raw {
            Checked::Intersection(r) => match r {
                Intersection::Disjoint { plane, .. } => {
                    d.set_item("kind", "separating_plane")?;
                    plane_into(py, &d, plane)?;
                }
                Intersection::Touching { point, plane, .. } => {
                    d.set_item("kind", "touching_plane")?;
                    d.set_item("point", vec3_np(py, *point))?;
                    plane_into(py, &d, plane)?;
                }
                Intersection::Overlapping { witness, .. } => return Ok(Some(witness_dict(py, witness)?)),
                Intersection::NotConverged { .. } => return Ok(None),
            },
            Checked::Distance(r) => match r {
                Distance::Separated {
                    distance,
                    point_a,
                    point_b,
                    features,
                    ..
                } => {
                    d.set_item("kind", "closest_points")?;
                    d.set_item("distance", *distance)?;
                    d.set_item("point_a", vec3_np(py, *point_a))?;
                    d.set_item("point_b", vec3_np(py, *point_b))?;
                    d.set_item("features", features_dict(py, *features)?)?;
                }
                Distance::Penetrating {
                    witness, penetration, ..
                } => {
                    d.set_item("kind", "penetration")?;
                    d.set_item("witness", witness_dict(py, witness)?)?;
                    match penetration {
                        Some(p) => {
                            let pd = PyDict::new(py);
                            pd.set_item("depth", p.depth)?;
                            pd.set_item("normal", vec3_np(py, p.normal))?;
                            pd.set_item("point_a", vec3_np(py, p.point_a))?;
                            pd.set_item("point_b", vec3_np(py, p.point_b))?;
                            pd.set_item("relative_depth", p.relative_depth)?;
                            d.set_item("penetration", pd)?;
                        }
                        None => d.set_item("penetration", py.None())?,
                    }
                }
                Distance::NotConverged { .. } => return Ok(None),
            },
            Checked::Directional { answer, .. } => match answer {
                Directional::Contact { t, plane, .. } => {
                    d.set_item("kind", "contact_plane")?;
                    d.set_item("t", *t)?;
                    plane_into(py, &d, plane)?;
                }
                Directional::Never { .. } => {
                    d.set_item("kind", "never")?;
                }
                Directional::NotConverged { .. } => return Ok(None),
            },
        }
        Ok(Some(d))
    }

    /// Checks the certificate with polycd's independent verifier (separating planes against
    /// both vertex sets, closest points against both shapes, overlap certificates by exact
    /// orientation tests). Returns True; raises VerificationError saying what failed.
    fn verify(&self, py: Python<'_>) -> PyResult<bool> {
        let r = py.detach(|| polycd::verify::verify(&self.a, &self.pa, &self.b, &self.pb, &self.both.raw));
        r.map(|()| true).map_err(|e| VerificationError::new_err(e.to_string()))
    }

    /// The answer line `polycd batch` writes for this query (compact JSON, the CLI's own
    /// serialisation), with `id` echoed (any JSON-serialisable value).
    #[pyo3(signature = (id = None))]
    fn to_json(&self, py: Python<'_>, id: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        let mut f = self.both.fields.clone();
        if let Some(id) = id {
            let text: String = py.import("json")?.call_method1("dumps", (id,))?.extract()?;
            f.id = serde_json::from_str(&text).map_err(|e| input(format!("id: {e}")))?;
        }
        Ok(f.to_json().to_string())
    }

    fn __repr__(&self) -> String {
        let f = &self.both.fields;
        let mut s = format!("Answer(query='{}', status='{}'", self.kind.name(), f.status);
        if let Some(d) = f.distance {
            s += &format!(", distance={d}");
        }
        if let Some(d) = f.signed_distance {
            s += &format!(", signed_distance={d}");
        }
        if let Some(t) = f.directional {
            s += &format!(", directional={t}");
        }
        s + ")"
    }
}

#[allow(clippy::too_many_arguments)]
fn scalar(
    py: Python<'_>,
    kind: Kind,
    a: &PyShape,
    pose_a: Option<&Bound<'_, PyAny>>,
    b: &PyShape,
    pose_b: Option<&Bound<'_, PyAny>>,
    direction: DVec3,
    algorithm: &str,
    cache: Option<PyRefMut<'_, PyPairCache>>,
) -> PyResult<PyAnswer> {
    let pa = pose_arg(pose_a, "pose_a")?;
    let pb = pose_arg(pose_b, "pose_b")?;
    let alg = algorithm_arg(algorithm)?;
    let (sa, sb) = (a.shape.clone(), b.shape.clone());
    let both = match cache {
        Some(mut c) => {
            let c = &mut c.cache;
            py.detach(|| run(kind, &sa, &pa, &sb, &pb, direction, alg, c))
        }
        None => py.detach(|| run(kind, &sa, &pa, &sb, &pb, direction, alg, &mut PairCache::default())),
    }
    .map_err(to_py)?;
    Ok(PyAnswer {
        kind,
        both,
        a: sa,
        pa,
        b: sb,
        pb,
    })
}

/// Do A (at pose_a) and B (at pose_b) intersect? Poses: a Pose, a row
/// [tx, ty, tz, qw, qx, qy, qz], a 4×4 matrix, or None (identity).
#[pyfunction]
#[pyo3(signature = (a, pose_a, b, pose_b, algorithm = "auto", cache = None))]
pub fn intersect(
    py: Python<'_>,
    a: PyRef<'_, PyShape>,
    pose_a: Option<&Bound<'_, PyAny>>,
    b: PyRef<'_, PyShape>,
    pose_b: Option<&Bound<'_, PyAny>>,
    algorithm: &str,
    cache: Option<PyRefMut<'_, PyPairCache>>,
) -> PyResult<PyAnswer> {
    scalar(py, Kind::Intersect, &a, pose_a, &b, pose_b, DVec3::X, algorithm, cache)
}

/// Distance, closest points and features of A and B, or their penetration.
#[pyfunction]
#[pyo3(signature = (a, pose_a, b, pose_b, algorithm = "auto", cache = None))]
pub fn distance(
    py: Python<'_>,
    a: PyRef<'_, PyShape>,
    pose_a: Option<&Bound<'_, PyAny>>,
    b: PyRef<'_, PyShape>,
    pose_b: Option<&Bound<'_, PyAny>>,
    algorithm: &str,
    cache: Option<PyRefMut<'_, PyPairCache>>,
) -> PyResult<PyAnswer> {
    scalar(py, Kind::Distance, &a, pose_a, &b, pose_b, DVec3::X, algorithm, cache)
}

/// The signed translation of B along `direction` (any finite non-zero vector) that makes
/// the shapes just touch (`Answer.directional`; None when no translation does).
#[pyfunction]
#[pyo3(signature = (a, pose_a, b, pose_b, direction, algorithm = "auto", cache = None))]
#[allow(clippy::too_many_arguments)]
pub fn directional(
    py: Python<'_>,
    a: PyRef<'_, PyShape>,
    pose_a: Option<&Bound<'_, PyAny>>,
    b: PyRef<'_, PyShape>,
    pose_b: Option<&Bound<'_, PyAny>>,
    direction: &Bound<'_, PyAny>,
    algorithm: &str,
    cache: Option<PyRefMut<'_, PyPairCache>>,
) -> PyResult<PyAnswer> {
    let d = direction_arg(direction)?;
    scalar(py, Kind::Directional, &a, pose_a, &b, pose_b, d, algorithm, cache)
}

/// A direction: three finite numbers, not all zero.
pub fn direction_arg(obj: &Bound<'_, PyAny>) -> PyResult<DVec3> {
    let d = crate::arrays::vec3(obj, "direction")?;
    if d == DVec3::ZERO {
        return Err(to_py(PolycdError::BadDirection));
    }
    Ok(d)
}

/// The first contact of A moving from pose_a0 to pose_a1 and B from pose_b0 to pose_b1
/// (screw motions about the centroids, t ∈ [0, 1]; pose_b1 None: B stays at pose_b0).
#[pyclass(module = "polycd", name = "TimeOfContact", frozen)]
pub struct PyTimeOfContact {
    toc: ccd::TimeOfContact,
}

#[pymethods]
impl PyTimeOfContact {
    /// The time of contact in [0, 1].
    #[getter]
    fn t(&self) -> f64 {
        self.toc.t
    }
    /// The distance at t (at most the threshold; 0 when overlapping at t).
    #[getter]
    fn distance(&self) -> f64 {
        self.toc.distance
    }
    /// A's pose at t.
    #[getter]
    fn pose_a(&self) -> PyPose {
        PyPose { pose: self.toc.pose_a }
    }
    /// B's pose at t.
    #[getter]
    fn pose_b(&self) -> PyPose {
        PyPose { pose: self.toc.pose_b }
    }
    /// Closest point of A at t (None when overlapping).
    #[getter]
    fn point_a<'py>(&self, py: Python<'py>) -> Option<Bound<'py, numpy::PyArray1<f64>>> {
        self.toc.closest.map(|c| vec3_np(py, c.0))
    }
    /// Closest point of B at t (None when overlapping).
    #[getter]
    fn point_b<'py>(&self, py: Python<'py>) -> Option<Bound<'py, numpy::PyArray1<f64>>> {
        self.toc.closest.map(|c| vec3_np(py, c.1))
    }
    /// Closest features at t.
    #[getter]
    fn features<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.toc.features.map(|f| features_dict(py, f)).transpose()
    }
    /// Advancement steps taken.
    #[getter]
    fn iterations(&self) -> u32 {
        self.toc.iterations
    }
    fn __repr__(&self) -> String {
        format!("TimeOfContact(t={}, distance={})", self.toc.t, self.toc.distance)
    }
}

/// Time of contact (FAST conservative advancement): None when the shapes do not come within
/// the distance threshold for t ∈ [0, 1]. Raises NotConvergedError at the iteration bound.
#[pyfunction]
#[pyo3(signature = (a, pose_a0, pose_a1, b, pose_b0, pose_b1 = None, distance_threshold = None, max_iterations = ccd::DEFAULT_MAX_ITERATIONS, algorithm = "auto"))]
#[allow(clippy::too_many_arguments)]
pub fn toc(
    py: Python<'_>,
    a: PyRef<'_, PyShape>,
    pose_a0: Option<&Bound<'_, PyAny>>,
    pose_a1: Option<&Bound<'_, PyAny>>,
    b: PyRef<'_, PyShape>,
    pose_b0: Option<&Bound<'_, PyAny>>,
    pose_b1: Option<&Bound<'_, PyAny>>,
    distance_threshold: Option<f64>,
    max_iterations: u32,
    algorithm: &str,
) -> PyResult<Option<PyTimeOfContact>> {
    let (a0, a1) = (pose_arg(pose_a0, "pose_a0")?, pose_arg(pose_a1, "pose_a1")?);
    let b0 = pose_arg(pose_b0, "pose_b0")?;
    let b1 = match pose_b1 {
        Some(p) if !p.is_none() => pose_arg(Some(p), "pose_b1")?,
        _ => b0,
    };
    let options = CcdOptions {
        distance_threshold,
        max_iterations,
        algorithm: algorithm_arg(algorithm)?,
    };
    let (sa, sb) = (a.shape.clone(), b.shape.clone());
    let r = py.detach(|| {
        let ma = RigidMotion::about_centroid(&sa, a0, a1)?;
        let mb = RigidMotion::about_centroid(&sb, b0, b1)?;
        ccd::time_of_contact(&sa, &ma, &sb, &mb, &options, &mut CcdCache::default())
    });
    Ok(r.map_err(to_py)?.map(|toc| PyTimeOfContact { toc }))
}

/// Runs `polycd batch` on JSON lines (str or bytes) and returns its answer lines, byte for
/// byte what the CLI writes (the CLI library's own parser and serialiser).
#[pyfunction]
pub fn batch(py: Python<'_>, lines: &Bound<'_, PyAny>) -> PyResult<String> {
    let bytes: Vec<u8> = if let Ok(s) = lines.extract::<String>() {
        s.into_bytes()
    } else if let Ok(b) = lines.extract::<Vec<u8>>() {
        b
    } else if let Ok(l) = lines.cast::<PyList>() {
        let mut out = Vec::new();
        for (i, x) in l.iter().enumerate() {
            let s: String = x.extract().map_err(|_| input(format!("lines[{i}] is not a str")))?;
            out.extend_from_slice(s.as_bytes());
            out.push(b'\n');
        }
        out
    } else {
        return Err(input("lines: expected str, bytes or a list of str"));
    };
    let out = py.detach(|| {
        let mut out = Vec::new();
        polycd_cli::batch_run::run(&bytes[..], &mut out, 1).map(|_| out)
    });
    let out = out.map_err(|e| crate::errors::PolycdError::new_err(format!("batch: {e}")))?;
    String::from_utf8(out).map_err(|e| crate::errors::PolycdError::new_err(format!("batch: {e}")))
}
