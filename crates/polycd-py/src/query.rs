//! The pair queries (intersect, distance, directional, time of contact) with the batch
//! format's names and semantics, their answers, the coherence cache and the batch runner.

use crate::arrays::vec3_np;
use crate::errors::{input, to_py, VerificationError};
use crate::mesh::solid_arg;
use crate::pose::{pose_arg, PyPose};
use polycd::ccd::{self, CcdCache, CcdOptions, RigidMotion};
use polycd::mesh::SolidFeature;
use polycd::query::{self, Algorithm, Directional, Distance, Feature, Intersection, OverlapWitness, PairCache};
use polycd::verify::Answer as Checked;
use polycd::{ConvexPolyhedron, DVec3, FeaturePair, PolycdError, Pose};
use polycd_cli::answer::Answer as BatchAnswer;
use polycd_cli::answer::QueryKind;
use polycd_cli::batch as cli_batch;
use polycd_cli::meshq::{self, BatchSolid};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString};
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
    // The names as written (the common case, "auto" by default) without `parse`'s
    // normalising copies: two allocations per call, 3 % of a per-call distance.
    if let Some(a) = Algorithm::ALL.into_iter().find(|a| a.name() == name) {
        return Ok(a);
    }
    Algorithm::parse(name).ok_or_else(|| {
        input(format!(
            "unknown algorithm '{name}' (known: {})",
            Algorithm::ALL.map(|a| a.name()).join(", ")
        ))
    })
}

/// The `algorithm=` argument of the per-call queries, extracted without decoding the string
/// in the common case: CPython interns identifier-like string literals, so `algorithm="gjk"`
/// written in a call is the interned name itself and identity decides (a pointer compare per
/// name). Any other str is decoded and parsed by [`algorithm_arg`] (the same errors); a
/// non-str raises TypeError. Decoding took ≈ 800 of a per-call query's ≈ 8 600 instructions
/// (callgrind, a cube pair: `PyUnicode_AsUTF8String` and the copy out of it, abi3 having no
/// borrowed UTF-8 view before Python 3.10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlgorithmName(pub Algorithm);

impl AlgorithmName {
    /// The default, `"auto"`.
    pub const AUTO: AlgorithmName = AlgorithmName(Algorithm::Auto);
}

impl<'a, 'py> FromPyObject<'a, 'py> for AlgorithmName {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        static NAMES: PyOnceLock<Vec<(Algorithm, Py<PyString>)>> = PyOnceLock::new();
        let py = obj.py();
        let names = NAMES.get_or_init(py, || {
            Algorithm::ALL
                .into_iter()
                .map(|a| (a, PyString::intern(py, a.name()).unbind()))
                .collect()
        });
        if let Some((a, _)) = names.iter().find(|(_, s)| std::ptr::eq(s.as_ptr(), obj.as_ptr())) {
            return Ok(AlgorithmName(*a));
        }
        let s = obj.cast::<PyString>().map_err(PyErr::from)?;
        algorithm_arg(&s.to_cow()?).map(AlgorithmName)
    }
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
    /// The query's batch name ("intersect", "distance", "directional", "point", "ray").
    pub query: &'static str,
    /// The fields `polycd batch` writes.
    pub fields: BatchAnswer,
    /// The library's answer and the pair, for the certificate (convex pairs only).
    pub check: Option<Check>,
}

/// A convex pair's answer with its shapes and poses: what `verify()` checks.
pub struct Check {
    raw: Checked,
    a: Arc<ConvexPolyhedron>,
    pa: Pose,
    b: Arc<ConvexPolyhedron>,
    pb: Pose,
}

fn solid_feature_tuple(f: SolidFeature) -> (&'static str, u32) {
    match f {
        SolidFeature::Triangle(i) => ("triangle", i),
        SolidFeature::Convex(f) => feature_tuple(f),
        // A feature kind these bindings do not know: no id to give.
        _ => ("unknown", u32::MAX),
    }
}

/// The `features` of an answer of any kind: a convex pair's feature pair, a mesh pair's
/// (triangles of input faces on a mesh side), or a single-shape query's `a` (`b` None).
pub fn answer_features<'py>(py: Python<'py>, f: &BatchAnswer) -> PyResult<Option<Bound<'py, PyDict>>> {
    let d = PyDict::new(py);
    if let Some((a, b)) = f.solid_features {
        d.set_item("a", solid_feature_tuple(a))?;
        d.set_item("b", solid_feature_tuple(b))?;
    } else if let Some(fp) = f.features {
        return features_dict(py, fp).map(Some);
    } else if let Some(a) = f.feature_a {
        d.set_item("a", feature_tuple(a))?;
        d.set_item("b", py.None())?;
    } else if let Some(a) = f.solid_feature_a {
        d.set_item("a", solid_feature_tuple(a))?;
        d.set_item("b", py.None())?;
    } else {
        return Ok(None);
    }
    Ok(Some(d))
}

/// A JSON value as Python objects (dicts, lists, floats; `null` None).
pub fn json_to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (v.to_string(),))
}

/// The error of an answer the CLI's mapping gave as `"status": "error"` with a message (the
/// mesh queries and probes; the library error's kind is not kept there): `UnsupportedError`
/// when the message says a query or shape is not supported, else the base `PolycdError`.
pub fn answer_error(f: &BatchAnswer) -> PyErr {
    let msg = f.error.clone().unwrap_or_else(|| "no answer".into());
    if msg.contains("not supported") || msg.contains("does not answer") {
        crate::errors::UnsupportedError::new_err(msg)
    } else {
        crate::errors::PolycdError::new_err(msg)
    }
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
        // A witness these bindings do not know: named by its Rust form, never guessed.
        ref other => {
            d.set_item("kind", "unknown")?;
            d.set_item("debug", format!("{other:?}"))?;
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
    /// "intersect", "distance", "directional", "point" or "ray".
    #[getter]
    fn query(&self) -> &'static str {
        self.query
    }

    /// "disjoint", "touching", "overlapping" or "error" (the algorithm did not converge).
    #[getter]
    fn status(&self) -> &'static str {
        self.fields.status
    }

    /// The status as a code: polycd.DISJOINT 0, TOUCHING 1, OVERLAPPING 2, ERROR −1.
    #[getter]
    fn status_code(&self) -> i8 {
        status_code(self.fields.status)
    }

    /// Distance (0 when overlapping); None for intersect and directional queries.
    #[getter]
    fn distance(&self) -> Option<f64> {
        opt_num(self.fields.distance)
    }

    /// Distance apart, or minus the penetration depth; None when unknown.
    #[getter]
    fn signed_distance(&self) -> Option<f64> {
        opt_num(self.fields.signed_distance)
    }

    /// Directional query: the signed translation of B along the direction (in units of the
    /// unit direction) that makes the shapes touch; None when no translation does.
    #[getter]
    fn directional(&self) -> Option<f64> {
        opt_num(self.fields.directional)
    }

    /// A point of A (closest point, deepest point or common point), world frame, or None.
    #[getter]
    fn point_a<'py>(&self, py: Python<'py>) -> Option<Bound<'py, numpy::PyArray1<f64>>> {
        opt_vec(py, self.fields.point_a)
    }

    /// The matching point of B, or None.
    #[getter]
    fn point_b<'py>(&self, py: Python<'py>) -> Option<Bound<'py, numpy::PyArray1<f64>>> {
        opt_vec(py, self.fields.point_b)
    }

    /// {"a": (kind, id), "b": (kind, id)} with kind "vertex", "edge" or "face" (a convex
    /// side) or "triangle" (a mesh or surface side: the id is the input face), or None. A
    /// point query or ray cast gives {"a": (kind, id), "b": None}.
    #[getter]
    fn features<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        answer_features(py, &self.fields)
    }

    /// A ray cast's hit: {"t": float, "point": (3,) array, "normal": (3,) array or None (the
    /// origin strictly inside)}; None on a miss and for every other query.
    #[getter]
    fn ray<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(r) = self.fields.ray else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("t", r.t)?;
        d.set_item("point", vec3_np(py, r.point))?;
        d.set_item("normal", r.normal.map(|n| vec3_np(py, n)))?;
        Ok(Some(d))
    }

    /// Whether the answer carries a certificate `verify()` can check (convex pairs).
    #[getter]
    fn has_certificate(&self) -> bool {
        self.check.is_some()
    }

    /// Iterations the algorithm used.
    #[getter]
    fn iterations(&self) -> Option<u32> {
        self.fields.iterations
    }

    /// Why there is no answer (status "error"), else None.
    #[getter]
    fn error(&self) -> Option<String> {
        self.fields.error.clone()
    }

    /// The library's certificate as a dict: a separating plane, a common point,
    /// intersecting features or a Minkowski simplex, closest points with their features,
    /// a penetration, or a contact plane; None when the algorithm did not converge.
    #[getter]
    fn certificate<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(check) = &self.check else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        match &check.raw {
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
                _ => return Ok(None),
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
                _ => return Ok(None),
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
                _ => return Ok(None),
            },
            // A kind of answer these bindings do not know: no certificate to show.
            _ => return Ok(None),
        }
        Ok(Some(d))
    }

    /// Checks the certificate with polycd's independent verifier (separating planes against
    /// both vertex sets, closest points against both shapes, overlap certificates by exact
    /// orientation tests). Returns True; raises VerificationError saying what failed.
    /// Answers without a certificate (mesh pairs, point queries, ray casts) raise
    /// VerificationError saying so.
    fn verify(&self, py: Python<'_>) -> PyResult<bool> {
        let Some(c) = &self.check else {
            return Err(VerificationError::new_err(format!(
                "this {} answer carries no certificate (only convex pairs' intersect, distance and directional answers do)",
                self.query
            )));
        };
        let r = py.detach(|| polycd::verify::verify(&c.a, &c.pa, &c.b, &c.pb, &c.raw));
        r.map(|()| true).map_err(|e| VerificationError::new_err(e.to_string()))
    }

    /// The answer line `polycd batch` writes for this query (compact JSON, the CLI's own
    /// serialisation), with `id` echoed (any JSON-serialisable value).
    #[pyo3(signature = (id = None))]
    fn to_json(&self, py: Python<'_>, id: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        let mut f = self.fields.clone();
        if let Some(id) = id {
            let text: String = py.import("json")?.call_method1("dumps", (id,))?.extract()?;
            f.id = serde_json::from_str(&text).map_err(|e| input(format!("id: {e}")))?;
        }
        Ok(f.to_json().to_string())
    }

    fn __repr__(&self) -> String {
        let f = &self.fields;
        let mut s = format!("Answer(query='{}', status='{}'", self.query, f.status);
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

thread_local! {
    /// The cache of the calls given none: forgotten before each query (a cold start, the very
    /// answer of a new cache) with its scratch buffers kept, so a call does not allocate EPA's
    /// buffers again. A new cache per call cost ≈ 325 instructions per query on
    /// `tools/py-bench.py`'s workload (≈ 3.7 k per overlapping pair; callgrind,
    /// `narrow_profile py-fresh` against `py-auto`). One per thread: Python threads calling
    /// at once never share it.
    static SCRATCH: std::cell::RefCell<PairCache> = std::cell::RefCell::new(PairCache::default());
}

#[allow(clippy::too_many_arguments)]
fn scalar(
    py: Python<'_>,
    kind: Kind,
    a: &Bound<'_, PyAny>,
    pose_a: Option<&Bound<'_, PyAny>>,
    b: &Bound<'_, PyAny>,
    pose_b: Option<&Bound<'_, PyAny>>,
    direction: DVec3,
    algorithm: AlgorithmName,
    cache: Option<PyRefMut<'_, PyPairCache>>,
) -> PyResult<PyAnswer> {
    let sa = solid_arg(a, "a")?;
    let sb = solid_arg(b, "b")?;
    let pa = pose_arg(pose_a, "pose_a")?;
    let pb = pose_arg(pose_b, "pose_b")?;
    let alg = algorithm.0;
    let (sa, sb) = match (sa, sb) {
        (BatchSolid::Convex(sa), BatchSolid::Convex(sb)) => (sa, sb),
        (sa, sb) => return mesh_pair(py, kind, &sa, &pa, &sb, &pb, direction, alg),
    };
    let both = match cache {
        Some(mut c) => {
            let c = &mut c.cache;
            py.detach(|| run(kind, &sa, &pa, &sb, &pb, direction, alg, c))
        }
        None => py.detach(|| {
            SCRATCH.with(|c| match c.try_borrow_mut() {
                Ok(mut c) => {
                    c.forget();
                    run(kind, &sa, &pa, &sb, &pb, direction, alg, &mut c)
                }
                // Not reached (nothing re-enters while the query runs); a new cache answers alike.
                Err(_) => run(kind, &sa, &pa, &sb, &pb, direction, alg, &mut PairCache::default()),
            })
        }),
    }
    .map_err(to_py)?;
    Ok(PyAnswer {
        query: kind.name(),
        fields: both.fields,
        check: Some(Check {
            raw: both.raw,
            a: sa,
            pa,
            b: sb,
            pb,
        }),
    })
}

/// A pair with a mesh or surface side: the CLI's mesh mapping (`meshq::answer_body`), as
/// `polycd batch` answers it. Only `algorithm="auto"` answers mesh pairs.
#[allow(clippy::too_many_arguments)]
fn mesh_pair(
    py: Python<'_>,
    kind: Kind,
    sa: &BatchSolid,
    pa: &Pose,
    sb: &BatchSolid,
    pb: &Pose,
    direction: DVec3,
    alg: Algorithm,
) -> PyResult<PyAnswer> {
    if alg != Algorithm::Auto {
        return Err(to_py(PolycdError::Unsupported {
            algorithm: alg.name(),
            query: "mesh",
        }));
    }
    let (qk, dir) = match kind {
        Kind::Intersect => (QueryKind::Intersect, None),
        Kind::Distance => (QueryKind::Distance, None),
        Kind::Directional => (QueryKind::Directional, Some(direction)),
    };
    let options = polycd::ManifoldOptions::default();
    let fields = py.detach(|| meshq::answer_body(sa.body(), pa, sb.body(), pb, qk, alg, dir, &options));
    if fields.status == "error" {
        return Err(answer_error(&fields));
    }
    Ok(PyAnswer {
        query: kind.name(),
        fields,
        check: None,
    })
}

/// Do A (at pose_a) and B (at pose_b) intersect? Poses: a Pose, a row
/// [tx, ty, tz, qw, qx, qy, qz], a 4×4 matrix, or None (identity). A and B: ConvexPolyhedron
/// or TriMesh (a mesh or surface side answers with algorithm "auto" only; `cache` is then
/// unused).
#[pyfunction]
#[pyo3(signature = (a, pose_a, b, pose_b, algorithm = AlgorithmName::AUTO, cache = None), text_signature = "(a, pose_a, b, pose_b, algorithm='auto', cache=None)")]
pub fn intersect(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    pose_a: Option<&Bound<'_, PyAny>>,
    b: &Bound<'_, PyAny>,
    pose_b: Option<&Bound<'_, PyAny>>,
    algorithm: AlgorithmName,
    cache: Option<PyRefMut<'_, PyPairCache>>,
) -> PyResult<PyAnswer> {
    scalar(py, Kind::Intersect, a, pose_a, b, pose_b, DVec3::X, algorithm, cache)
}

/// Distance, closest points and features of A and B, or their penetration (a mesh pair:
/// `signed_distance` is minus a certified lower bound of the penetration depth).
#[pyfunction]
#[pyo3(signature = (a, pose_a, b, pose_b, algorithm = AlgorithmName::AUTO, cache = None), text_signature = "(a, pose_a, b, pose_b, algorithm='auto', cache=None)")]
pub fn distance(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    pose_a: Option<&Bound<'_, PyAny>>,
    b: &Bound<'_, PyAny>,
    pose_b: Option<&Bound<'_, PyAny>>,
    algorithm: AlgorithmName,
    cache: Option<PyRefMut<'_, PyPairCache>>,
) -> PyResult<PyAnswer> {
    scalar(py, Kind::Distance, a, pose_a, b, pose_b, DVec3::X, algorithm, cache)
}

/// The signed translation of B along `direction` (any finite non-zero vector) that makes
/// the shapes just touch (`Answer.directional`; None when no translation does). Closed
/// meshes answer too (the `t` of least |t|); open surfaces raise UnsupportedError.
#[pyfunction]
#[pyo3(signature = (a, pose_a, b, pose_b, direction, algorithm = AlgorithmName::AUTO, cache = None), text_signature = "(a, pose_a, b, pose_b, direction, algorithm='auto', cache=None)")]
#[allow(clippy::too_many_arguments)]
pub fn directional(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    pose_a: Option<&Bound<'_, PyAny>>,
    b: &Bound<'_, PyAny>,
    pose_b: Option<&Bound<'_, PyAny>>,
    direction: &Bound<'_, PyAny>,
    algorithm: AlgorithmName,
    cache: Option<PyRefMut<'_, PyPairCache>>,
) -> PyResult<PyAnswer> {
    let d = direction_arg(direction)?;
    scalar(py, Kind::Directional, a, pose_a, b, pose_b, d, algorithm, cache)
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
    /// The convex pair's answer of the library (None for a pair with a mesh side).
    raw: Option<ccd::TimeOfContact>,
    t: f64,
    iterations: u32,
    pose_a: Pose,
    pose_b: Pose,
    /// The batch line's fields: the distance answer at t plus the `"toc"` object.
    fields: BatchAnswer,
}

#[pymethods]
impl PyTimeOfContact {
    /// The time of contact in [0, 1].
    #[getter]
    fn t(&self) -> f64 {
        self.t
    }
    /// The distance at t (at most the threshold; 0 when overlapping at t).
    #[getter]
    fn distance(&self) -> f64 {
        match &self.raw {
            Some(r) => r.distance,
            None => self.fields.distance.unwrap_or(f64::NAN),
        }
    }
    /// A's pose at t.
    #[getter]
    fn pose_a(&self) -> PyPose {
        PyPose { pose: self.pose_a }
    }
    /// B's pose at t.
    #[getter]
    fn pose_b(&self) -> PyPose {
        PyPose { pose: self.pose_b }
    }
    /// Closest point of A at t (None when overlapping; a mesh pair: the distance answer's
    /// point at t).
    #[getter]
    fn point_a<'py>(&self, py: Python<'py>) -> Option<Bound<'py, numpy::PyArray1<f64>>> {
        match &self.raw {
            Some(r) => r.closest.map(|c| vec3_np(py, c.0)),
            None => opt_vec(py, self.fields.point_a),
        }
    }
    /// Closest point of B at t (None when overlapping).
    #[getter]
    fn point_b<'py>(&self, py: Python<'py>) -> Option<Bound<'py, numpy::PyArray1<f64>>> {
        match &self.raw {
            Some(r) => r.closest.map(|c| vec3_np(py, c.1)),
            None => opt_vec(py, self.fields.point_b),
        }
    }
    /// Closest features at t ("triangle" ids of input faces on a mesh side).
    #[getter]
    fn features<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        match &self.raw {
            Some(r) => r.features.map(|f| features_dict(py, f)).transpose(),
            None => answer_features(py, &self.fields),
        }
    }
    /// Advancement steps taken.
    #[getter]
    fn iterations(&self) -> u32 {
        self.iterations
    }
    /// The feature pairs within the threshold at t, as the batch line's `toc.contacts`:
    /// a list of {"a", "b" (features as {"kind", "id"}), "point_a", "point_b", "distance",
    /// "normal"}.
    #[getter]
    fn contacts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.fields.toc.as_ref().and_then(|t| t.get("contacts")) {
            Some(c) => json_to_py(py, c),
            None => Ok(pyo3::types::PyList::empty(py).into_any()),
        }
    }
    /// The answer line `polycd batch` writes for this `"query": "toc"` line (the distance
    /// answer at t with the `"toc"` object), with `id` echoed.
    #[pyo3(signature = (id = None))]
    fn to_json(&self, py: Python<'_>, id: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        fields_json(py, &self.fields, id)
    }
    fn __repr__(&self) -> String {
        format!("TimeOfContact(t={}, distance={})", self.t, self.distance())
    }
}

/// An answer's JSON line (the CLI's serialisation) with `id` echoed.
pub fn fields_json(py: Python<'_>, fields: &BatchAnswer, id: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
    let mut f = fields.clone();
    if let Some(id) = id {
        let text: String = py.import("json")?.call_method1("dumps", (id,))?.extract()?;
        f.id = serde_json::from_str(&text).map_err(|e| input(format!("id: {e}")))?;
    }
    Ok(f.to_json().to_string())
}

/// Time of contact (FAST conservative advancement; a pair with a closed-mesh side: the
/// hierarchical advancement over the hull trees, a convex side as its triangle mesh): None
/// when the shapes do not come within the threshold for t ∈ [0, 1]. `threshold` (alias
/// `distance_threshold`): the stop distance, a finite number > 0 (default 1e-4 × the summed
/// shape radii), as the batch format's `"threshold"`. Raises NotConvergedError at the
/// iteration bound; open surfaces raise UnsupportedError.
#[pyfunction]
#[pyo3(signature = (a, pose_a0, pose_a1, b, pose_b0, pose_b1 = None, threshold = None, max_iterations = ccd::DEFAULT_MAX_ITERATIONS, algorithm = "auto", distance_threshold = None))]
#[allow(clippy::too_many_arguments)]
pub fn toc(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    pose_a0: Option<&Bound<'_, PyAny>>,
    pose_a1: Option<&Bound<'_, PyAny>>,
    b: &Bound<'_, PyAny>,
    pose_b0: Option<&Bound<'_, PyAny>>,
    pose_b1: Option<&Bound<'_, PyAny>>,
    threshold: Option<f64>,
    max_iterations: u32,
    algorithm: &str,
    distance_threshold: Option<f64>,
) -> PyResult<Option<PyTimeOfContact>> {
    let sa = solid_arg(a, "a")?;
    let sb = solid_arg(b, "b")?;
    let (a0, a1) = (pose_arg(pose_a0, "pose_a0")?, pose_arg(pose_a1, "pose_a1")?);
    let b0 = pose_arg(pose_b0, "pose_b0")?;
    let b1 = match pose_b1 {
        Some(p) if !p.is_none() => pose_arg(Some(p), "pose_b1")?,
        _ => b0,
    };
    let threshold = match (threshold, distance_threshold) {
        (Some(_), Some(_)) => return Err(input("give threshold or distance_threshold, not both")),
        (t, d) => t.or(d),
    };
    if let Some(t) = threshold {
        if !(t.is_finite() && t > 0.0) {
            return Err(input(format!("threshold: must be a finite number > 0, got {t}")));
        }
    }
    let options = CcdOptions::default()
        .with_distance_threshold(threshold)
        .with_max_iterations(max_iterations)
        .with_algorithm(algorithm_arg(algorithm)?);
    let (Some(_), Some(_)) = (sa.solid(), sb.solid()) else {
        return Err(crate::errors::UnsupportedError::new_err(
            "toc on a surface (kind \"surface\") is not supported: the motion needs closed solids or convex shapes",
        ));
    };
    let r = py.detach(|| toc_answer(&sa, (a0, a1), &sb, (b0, b1), &options));
    r.map_err(|e| match e {
        TocError::Library(e) => to_py(e),
        TocError::Answer(f) => answer_error(&f),
    })
}

enum TocError {
    Library(PolycdError),
    /// The CLI mapping's error answer (boxed: an answer is large).
    Answer(Box<BatchAnswer>),
}

impl From<PolycdError> for TocError {
    fn from(e: PolycdError) -> Self {
        TocError::Library(e)
    }
}

/// The toc and the batch line's fields, as `polycd batch` composes a `"toc"` line: the CLI's
/// distance mapping at the poses of t (`batch::answer`, `meshq::answer`), its contact
/// features (`ccd::contact_features`) and `toc::toc_object`.
fn toc_answer(
    sa: &BatchSolid,
    pose_a: (Pose, Pose),
    sb: &BatchSolid,
    pose_b: (Pose, Pose),
    options: &CcdOptions,
) -> Result<Option<PyTimeOfContact>, TocError> {
    let (Some(xa), Some(xb)) = (sa.solid(), sb.solid()) else {
        return Ok(None);
    };
    let (raw, t, iterations, pa, pb, threshold) = match (sa, sb) {
        (BatchSolid::Convex(a), BatchSolid::Convex(b)) => {
            let ma = RigidMotion::about_centroid(a, pose_a.0, pose_a.1)?;
            let mb = RigidMotion::about_centroid(b, pose_b.0, pose_b.1)?;
            let threshold = options.threshold(a.bounding_radius() + b.bounding_radius())?;
            match ccd::time_of_contact(a, &ma, b, &mb, options, &mut CcdCache::default())? {
                Some(r) => (Some(r), r.t, r.iterations, r.pose_a, r.pose_b, threshold),
                None => return Ok(None),
            }
        }
        _ => {
            let m = polycd_cli::toc::solve(xa, xb, pose_a, pose_b, options)?;
            match m.t {
                Some(t) => (None, t, m.iterations, m.pose_a, m.pose_b, m.threshold),
                None => return Ok(None),
            }
        }
    };
    let mut ans = match (sa, sb) {
        (BatchSolid::Convex(x), BatchSolid::Convex(y)) => {
            cli_batch::answer(x, &pa, y, &pb, QueryKind::Distance, None, options.algorithm)
        }
        _ => meshq::answer(
            xa,
            &pa,
            xb,
            &pb,
            QueryKind::Distance,
            options.algorithm,
            None,
            &polycd::ManifoldOptions::default(),
        ),
    };
    if ans.status == "error" {
        return Err(TocError::Answer(Box::new(ans)));
    }
    let contacts = ccd::contact_features(xa, &pa, xb, &pb, threshold)?;
    if ans.status != "overlapping" {
        ans.status = "touching";
    }
    ans.iterations = Some(iterations);
    let points = ans.point_a.zip(ans.point_b);
    ans.toc = Some(polycd_cli::toc::toc_object(Some(t), points, &contacts));
    Ok(Some(PyTimeOfContact {
        raw,
        t,
        iterations,
        pose_a: pa,
        pose_b: pb,
        fields: ans,
    }))
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
