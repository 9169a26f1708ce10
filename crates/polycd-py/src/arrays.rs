//! numpy in and out: every array argument is checked for dtype, shape and finite values, with
//! an `InvalidInputError` naming the argument (and the row) that is wrong.

use crate::errors::input;
use numpy::ndarray::ArrayD;
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use polycd::DVec3;
use pyo3::prelude::*;

/// `obj` as an owned float64 array: numpy arrays and nested sequences of real numbers
/// (floats, integers) of any memory layout; booleans, complex numbers, objects and strings
/// are refused.
pub fn f64_array(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<ArrayD<f64>> {
    let py = obj.py();
    let np = py.import("numpy")?;
    let arr = np
        .call_method1("asarray", (obj,))
        .map_err(|e| input(format!("{name}: not an array of numbers ({})", e.value(py))))?;
    let dtype = arr.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    if !matches!(kind.as_str(), "f" | "i" | "u") {
        let dname: String = dtype.getattr("name")?.extract()?;
        return Err(input(format!(
            "{name}: expected an array of real numbers (float64), got dtype {dname}"
        )));
    }
    let arr = np.call_method1("asarray", (arr, "float64"))?;
    let arr = arr
        .cast_into::<numpy::PyArrayDyn<f64>>()
        .map_err(|_| input(format!("{name}: could not be read as a float64 array")))?;
    let view = arr.readonly();
    Ok(view.as_array().to_owned())
}

/// Checks that every value is finite; the error names the first bad row.
fn check_finite_rows(a: &ArrayD<f64>, name: &str, row_len: usize) -> PyResult<()> {
    if let Some(k) = a.iter().position(|x| !x.is_finite()) {
        let row = k / row_len.max(1);
        return Err(input(format!(
            "{name}: row {row} has a non-finite value (NaN or infinity)"
        )));
    }
    Ok(())
}

/// An `(n, 3)` array of points.
pub fn points(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<DVec3>> {
    let a = f64_array(obj, name)?;
    if a.ndim() != 2 || a.shape()[1] != 3 {
        return Err(input(format!(
            "{name}: expected an array of shape (n, 3), got shape {:?}",
            a.shape()
        )));
    }
    check_finite_rows(&a, name, 3)?;
    Ok(a.rows().into_iter().map(|r| DVec3::new(r[0], r[1], r[2])).collect())
}

/// A `(3,)` vector of finite numbers.
pub fn vec3(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<DVec3> {
    let a = f64_array(obj, name)?;
    if a.shape() != [3] {
        return Err(input(format!("{name}: expected 3 numbers, got shape {:?}", a.shape())));
    }
    let v: Vec<f64> = a.iter().copied().collect();
    if v.iter().any(|x| !x.is_finite()) {
        return Err(input(format!("{name}: values must be finite")));
    }
    Ok(DVec3::new(v[0], v[1], v[2]))
}

/// A face list: a sequence of sequences of vertex indices (or an `(f, k)` integer array).
pub fn faces(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<Vec<u32>>> {
    let mut out = Vec::new();
    let outer = obj.try_iter().map_err(|_| {
        input(format!(
            "{name}: expected a sequence of faces (sequences of vertex indices)"
        ))
    })?;
    for (fi, f) in outer.enumerate() {
        let f = f?;
        let inner = f
            .try_iter()
            .map_err(|_| input(format!("{name}: face {fi} is not a sequence of vertex indices")))?;
        let mut face = Vec::new();
        for i in inner {
            let i = i?;
            let v: i64 = i
                .extract()
                .map_err(|_| input(format!("{name}: face {fi} has an index that is not an integer")))?;
            let v = u32::try_from(v).map_err(|_| input(format!("{name}: face {fi} has index {v}, not in 0..2^32")))?;
            face.push(v);
        }
        out.push(face);
    }
    Ok(out)
}

/// A vector as a `(3,)` float64 array.
pub fn vec3_np(py: Python<'_>, v: DVec3) -> Bound<'_, PyArray1<f64>> {
    PyArray1::from_vec(py, v.to_array().to_vec())
}

/// Points as an `(n, 3)` float64 array.
pub fn points_np<'py>(py: Python<'py>, pts: &[DVec3]) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let flat: Vec<f64> = pts.iter().flat_map(|p| p.to_array()).collect();
    PyArray1::from_vec(py, flat).reshape([pts.len(), 3])
}

/// A flat row-major buffer as an `(n, k)` float64 array.
pub fn flat_np<'py>(py: Python<'py>, flat: Vec<f64>, k: usize) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let n = flat.len() / k.max(1);
    PyArray1::from_vec(py, flat).reshape([n, k])
}
