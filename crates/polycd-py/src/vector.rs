//! Vectorised queries: one pair and N poses, or N pairs drawn from a list of shapes, answered
//! with the GIL released on all cores (rayon). Every row is the very computation of the
//! one-by-one call (a cold cache per row: `PairCache::forget` keeps only buffer capacity),
//! so the arrays equal the scalar answers bit for bit. Every input row is checked before any
//! work; a bad row raises an error naming its index.

use crate::arrays::f64_array;
use crate::errors::{input, to_py_at};
use crate::pose::poses_arg;
use crate::query::{algorithm_arg, run, status_code, Kind};
use crate::shape::PyShape;
use numpy::{PyArray1, PyArrayMethods};
use polycd::query::{Algorithm, PairCache};
use polycd::{ConvexPolyhedron, DVec3, Feature, PolycdError, Pose};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;
use std::sync::Arc;

/// Rows answered per parallel block: the scratch rows are reused block after block, so the
/// memory of a call is its output arrays plus one block, whatever N.
const BLOCK: usize = 8192;

/// One answered row, before it is copied into the output arrays.
#[derive(Clone, Default)]
struct Row {
    status: i8,
    distance: f64,
    signed: f64,
    directional: f64,
    pa: [f64; 3],
    pb: [f64; 3],
    features: [i64; 4],
    iterations: i64,
    error: Option<PolycdError>,
}

fn feature_code(f: Feature) -> [i64; 2] {
    match f {
        Feature::Vertex(i) => [0, i64::from(i)],
        Feature::Edge(i) => [1, i64::from(i)],
        Feature::Face(i) => [2, i64::from(i)],
    }
}

fn fill(row: &mut Row, r: Result<crate::query::Both, PolycdError>) {
    let nan3 = [f64::NAN; 3];
    let f = match r {
        Ok(b) => b.fields,
        Err(e) => {
            *row = Row {
                status: crate::query::ERROR,
                distance: f64::NAN,
                signed: f64::NAN,
                directional: f64::NAN,
                pa: nan3,
                pb: nan3,
                features: [-1; 4],
                iterations: -1,
                error: Some(e),
            };
            return;
        }
    };
    let num = |x: Option<f64>| x.filter(|v| v.is_finite()).unwrap_or(f64::NAN);
    let v3 = |p: Option<DVec3>| p.filter(|p| p.is_finite()).map_or(nan3, |p| p.to_array());
    let features = match f.features {
        Some(fp) => {
            let (a, b) = (feature_code(fp.a), feature_code(fp.b));
            [a[0], a[1], b[0], b[1]]
        }
        None => [-1; 4],
    };
    *row = Row {
        status: status_code(f.status),
        distance: num(f.distance),
        signed: num(f.signed_distance),
        directional: num(f.directional),
        pa: v3(f.point_a),
        pb: v3(f.point_b),
        features,
        iterations: f.iterations.map_or(-1, i64::from),
        error: None,
    };
}

/// The jobs of a call: row i asks about (shapes[ia[i]], poses_a[i]) and (shapes[ib[i]],
/// poses_b[i]), each index or pose list of length 1 (broadcast) or n.
struct Jobs {
    shapes: Vec<Arc<ConvexPolyhedron>>,
    ia: Vec<usize>,
    ib: Vec<usize>,
    poses_a: Vec<Pose>,
    poses_b: Vec<Pose>,
    directions: Vec<DVec3>,
    n: usize,
}

fn at<T: Copy>(v: &[T], i: usize) -> T {
    if v.len() == 1 {
        v[0]
    } else {
        v[i]
    }
}

impl Jobs {
    fn check_lengths(&self) -> PyResult<()> {
        for (name, len) in [
            ("index_a", self.ia.len()),
            ("index_b", self.ib.len()),
            ("poses_a", self.poses_a.len()),
            ("poses_b", self.poses_b.len()),
            ("direction", self.directions.len()),
        ] {
            if len != 1 && len != self.n {
                return Err(input(format!(
                    "{name}: {len} rows, but the call has {} rows (give 1 to broadcast, or {})",
                    self.n, self.n
                )));
            }
        }
        Ok(())
    }

    fn run<'py>(&self, py: Python<'py>, kind: Kind, algorithm: Algorithm) -> PyResult<Bound<'py, PyDict>> {
        self.check_lengths()?;
        let n = self.n;
        let mut status = Vec::with_capacity(n);
        let mut distance = Vec::with_capacity(n);
        let mut signed = Vec::with_capacity(n);
        let mut directional = Vec::with_capacity(n);
        let mut pa = Vec::with_capacity(3 * n);
        let mut pb = Vec::with_capacity(3 * n);
        let mut features = Vec::with_capacity(4 * n);
        let mut iterations = Vec::with_capacity(n);
        let mut rows = vec![Row::default(); BLOCK.min(n)];
        let mut start = 0;
        while start < n {
            let end = (start + BLOCK).min(n);
            let block = &mut rows[..end - start];
            py.detach(|| {
                block
                    .par_iter_mut()
                    .enumerate()
                    .for_each_init(PairCache::default, |cache, (k, row)| {
                        let i = start + k;
                        cache.forget();
                        let (a, b) = (&self.shapes[at(&self.ia, i)], &self.shapes[at(&self.ib, i)]);
                        let r = run(
                            kind,
                            a,
                            &at(&self.poses_a, i),
                            b,
                            &at(&self.poses_b, i),
                            at(&self.directions, i),
                            algorithm,
                            cache,
                        );
                        fill(row, r);
                    })
            });
            for (k, row) in block.iter_mut().enumerate() {
                if let Some(e) = row.error.take() {
                    return Err(to_py_at(e, &format!("row {}", start + k)));
                }
                status.push(row.status);
                distance.push(row.distance);
                signed.push(row.signed);
                directional.push(row.directional);
                pa.extend_from_slice(&row.pa);
                pb.extend_from_slice(&row.pb);
                features.extend_from_slice(&row.features);
                iterations.push(row.iterations);
            }
            start = end;
        }
        let d = PyDict::new(py);
        d.set_item("status", PyArray1::from_vec(py, status))?;
        match kind {
            Kind::Distance => {
                d.set_item("distance", PyArray1::from_vec(py, distance))?;
                d.set_item("signed_distance", PyArray1::from_vec(py, signed))?;
            }
            Kind::Directional => d.set_item("directional", PyArray1::from_vec(py, directional))?,
            Kind::Intersect => {}
        }
        if kind != Kind::Directional {
            d.set_item("point_a", PyArray1::from_vec(py, pa).reshape([n, 3])?)?;
            d.set_item("point_b", PyArray1::from_vec(py, pb).reshape([n, 3])?)?;
            d.set_item("features", PyArray1::from_vec(py, features).reshape([n, 4])?)?;
        }
        d.set_item("iterations", PyArray1::from_vec(py, iterations))?;
        Ok(d)
    }
}

fn identity_or(obj: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Vec<Pose>> {
    match obj {
        Some(o) if !o.is_none() => poses_arg(o, name),
        _ => Ok(vec![Pose::IDENTITY]),
    }
}

/// The row count of a call: the first length that is not 1 (1 broadcasts; 0 is an empty
/// call), else 1. `Jobs::check_lengths` then refuses any other length.
fn rows_of(poses: &[Pose], others: &[usize]) -> usize {
    [poses.len()]
        .into_iter()
        .chain(others.iter().copied())
        .find(|&l| l != 1)
        .unwrap_or(1)
}

#[allow(clippy::too_many_arguments)]
fn one_pair<'py>(
    py: Python<'py>,
    kind: Kind,
    a: &PyShape,
    b: &PyShape,
    poses_b: &Bound<'py, PyAny>,
    poses_a: Option<&Bound<'py, PyAny>>,
    directions: Vec<DVec3>,
    algorithm: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let algorithm = algorithm_arg(algorithm)?;
    let poses_b = poses_arg(poses_b, "poses_b")?;
    let poses_a = identity_or(poses_a, "poses_a")?;
    let n = rows_of(&poses_b, &[poses_a.len(), directions.len()]);
    let jobs = Jobs {
        shapes: vec![a.shape.clone(), b.shape.clone()],
        ia: vec![0],
        ib: vec![1],
        poses_a,
        poses_b,
        directions,
        n,
    };
    jobs.run(py, kind, algorithm)
}

/// Intersection of one pair at N poses: `poses_b` (N, 7) rows [tx, ty, tz, qw, qx, qy, qz]
/// or (N, 4, 4) matrices; `poses_a` likewise, one pose (broadcast) or None (identity).
/// Returns a dict of arrays: status (N,) int8 (polycd.DISJOINT, TOUCHING, OVERLAPPING,
/// ERROR), point_a / point_b (N, 3) (NaN where none), features (N, 4) int64
/// [kind_a, id_a, kind_b, id_b] (kind 0 vertex, 1 edge, 2 face, −1 none), iterations (N,).
#[pyfunction]
#[pyo3(signature = (a, b, poses_b, poses_a = None, algorithm = "auto"))]
pub fn intersect_many<'py>(
    py: Python<'py>,
    a: PyRef<'py, PyShape>,
    b: PyRef<'py, PyShape>,
    poses_b: &Bound<'py, PyAny>,
    poses_a: Option<&Bound<'py, PyAny>>,
    algorithm: &str,
) -> PyResult<Bound<'py, PyDict>> {
    one_pair(py, Kind::Intersect, &a, &b, poses_b, poses_a, vec![DVec3::X], algorithm)
}

/// Distance of one pair at N poses (see `intersect_many`); adds distance and signed_distance
/// (N,) float64 (NaN where unknown).
#[pyfunction]
#[pyo3(signature = (a, b, poses_b, poses_a = None, algorithm = "auto"))]
pub fn distance_many<'py>(
    py: Python<'py>,
    a: PyRef<'py, PyShape>,
    b: PyRef<'py, PyShape>,
    poses_b: &Bound<'py, PyAny>,
    poses_a: Option<&Bound<'py, PyAny>>,
    algorithm: &str,
) -> PyResult<Bound<'py, PyDict>> {
    one_pair(py, Kind::Distance, &a, &b, poses_b, poses_a, vec![DVec3::X], algorithm)
}

/// Directional distance of one pair at N poses along `direction` ((3,) or (N, 3)): status,
/// directional (N,) float64 (NaN when no translation makes them touch), iterations.
#[pyfunction]
#[pyo3(signature = (a, b, poses_b, direction, poses_a = None, algorithm = "auto"))]
pub fn directional_many<'py>(
    py: Python<'py>,
    a: PyRef<'py, PyShape>,
    b: PyRef<'py, PyShape>,
    poses_b: &Bound<'py, PyAny>,
    direction: &Bound<'py, PyAny>,
    poses_a: Option<&Bound<'py, PyAny>>,
    algorithm: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let arr = f64_array(direction, "direction")?;
    let flat: Vec<f64> = arr.iter().copied().collect();
    let dirs: Vec<DVec3> = match arr.shape() {
        [3] => vec![DVec3::new(flat[0], flat[1], flat[2])],
        [_, 3] => flat.chunks_exact(3).map(|c| DVec3::new(c[0], c[1], c[2])).collect(),
        s => return Err(input(format!("direction: expected shape (3,) or (N, 3), got {s:?}"))),
    };
    for (i, d) in dirs.iter().enumerate() {
        if !d.is_finite() || *d == DVec3::ZERO {
            return Err(to_py_at(PolycdError::BadDirection, &format!("direction: row {i}")));
        }
    }
    one_pair(py, Kind::Directional, &a, &b, poses_b, poses_a, dirs, algorithm)
}

/// An index array into `count` shapes; the error names the first bad entry.
fn index_arg(obj: &Bound<'_, PyAny>, name: &str, count: usize) -> PyResult<Vec<usize>> {
    let py = obj.py();
    let arr = py.import("numpy")?.call_method1("asarray", (obj,))?;
    let kind: String = arr.getattr("dtype")?.getattr("kind")?.extract()?;
    if !matches!(kind.as_str(), "i" | "u") {
        return Err(input(format!("{name}: expected an integer array of shape (N,)")));
    }
    let a = f64_array(&arr, name)?;
    if a.ndim() > 1 {
        return Err(input(format!("{name}: expected shape (N,), got {:?}", a.shape())));
    }
    a.iter()
        .enumerate()
        .map(|(i, &x)| {
            if x >= 0.0 && (x as usize) < count {
                Ok(x as usize)
            } else {
                Err(input(format!(
                    "{name}: row {i} is {x}, not an index into the {count} shapes"
                )))
            }
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn many_pairs<'py>(
    py: Python<'py>,
    kind: Kind,
    shapes: Vec<PyRef<'py, PyShape>>,
    index_a: &Bound<'py, PyAny>,
    index_b: &Bound<'py, PyAny>,
    poses_a: Option<&Bound<'py, PyAny>>,
    poses_b: Option<&Bound<'py, PyAny>>,
    algorithm: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let algorithm = algorithm_arg(algorithm)?;
    if shapes.is_empty() {
        return Err(input("shapes: the list is empty"));
    }
    let ia = index_arg(index_a, "index_a", shapes.len())?;
    let ib = index_arg(index_b, "index_b", shapes.len())?;
    let poses_a = identity_or(poses_a, "poses_a")?;
    let poses_b = identity_or(poses_b, "poses_b")?;
    let n = rows_of(&poses_a, &[poses_b.len(), ia.len(), ib.len()]);
    let jobs = Jobs {
        shapes: shapes.iter().map(|s| s.shape.clone()).collect(),
        ia,
        ib,
        poses_a,
        poses_b,
        directions: vec![DVec3::X],
        n,
    };
    jobs.run(py, kind, algorithm)
}

/// Distance of N pairs drawn from a list of shapes: row i is shapes[index_a[i]] at
/// poses_a[i] and shapes[index_b[i]] at poses_b[i] (poses as in `distance_many`; one pose
/// or index broadcasts). Same arrays as `distance_many`.
#[pyfunction]
#[pyo3(signature = (shapes, index_a, index_b, poses_a = None, poses_b = None, algorithm = "auto"))]
pub fn distance_pairs<'py>(
    py: Python<'py>,
    shapes: Vec<PyRef<'py, PyShape>>,
    index_a: &Bound<'py, PyAny>,
    index_b: &Bound<'py, PyAny>,
    poses_a: Option<&Bound<'py, PyAny>>,
    poses_b: Option<&Bound<'py, PyAny>>,
    algorithm: &str,
) -> PyResult<Bound<'py, PyDict>> {
    many_pairs(
        py,
        Kind::Distance,
        shapes,
        index_a,
        index_b,
        poses_a,
        poses_b,
        algorithm,
    )
}

/// Intersection of N pairs drawn from a list of shapes (see `distance_pairs`).
#[pyfunction]
#[pyo3(signature = (shapes, index_a, index_b, poses_a = None, poses_b = None, algorithm = "auto"))]
pub fn intersect_pairs<'py>(
    py: Python<'py>,
    shapes: Vec<PyRef<'py, PyShape>>,
    index_a: &Bound<'py, PyAny>,
    index_b: &Bound<'py, PyAny>,
    poses_a: Option<&Bound<'py, PyAny>>,
    poses_b: Option<&Bound<'py, PyAny>>,
    algorithm: &str,
) -> PyResult<Bound<'py, PyDict>> {
    many_pairs(
        py,
        Kind::Intersect,
        shapes,
        index_a,
        index_b,
        poses_a,
        poses_b,
        algorithm,
    )
}
