//! Poses: translation + unit quaternion (scalar first, as in the batch format), from rows
//! `[tx, ty, tz, qw, qx, qy, qz]`, 4×4 homogeneous matrices or 3×3 rotations.

use crate::arrays::{f64_array, flat_np, vec3, vec3_np};
use crate::errors::{input, to_py, InvalidPoseError};
use numpy::{PyArray1, PyArray2};
use polycd::core::tolerance::ROTATION_MATRIX_SLACK;
use polycd::glam::DMat3;
use polycd::{DQuat, DVec3, Pose};
use pyo3::prelude::*;

/// A pose from a translation and a `[w, x, y, z]` quaternion of any non-zero length, exactly
/// as `polycd batch` reads `{"translation", "rotation"}`: divided by its largest component,
/// then normalised.
pub fn pose_from_parts(t: [f64; 3], q: [f64; 4]) -> Result<Pose, polycd::PolycdError> {
    if t.iter().chain(q.iter()).any(|c| !c.is_finite()) {
        return Err(polycd::PolycdError::NonFinitePose);
    }
    let m = q.iter().fold(0.0f64, |m, c| m.max(c.abs()));
    let q = if m > 0.0 { q.map(|c| c / m) } else { q };
    Pose::try_from_wxyz(t, q)
}

/// A pose from a row `[tx, ty, tz, qw, qx, qy, qz]`.
pub fn pose_from_row(r: &[f64]) -> Result<Pose, polycd::PolycdError> {
    pose_from_parts([r[0], r[1], r[2]], [r[3], r[4], r[5], r[6]])
}

/// A pose from a rotation matrix (row-major `r[i][j]`: row i, column j) and a translation.
/// Refuses matrices that are not rotations within [`ROTATION_MATRIX_SLACK`].
pub fn pose_from_rotation(r: [[f64; 3]; 3], t: [f64; 3]) -> Result<Pose, String> {
    if r.iter().flatten().chain(t.iter()).any(|c| !c.is_finite()) {
        return Err("pose has a non-finite value".into());
    }
    let m = DMat3::from_cols(
        DVec3::new(r[0][0], r[1][0], r[2][0]),
        DVec3::new(r[0][1], r[1][1], r[2][1]),
        DVec3::new(r[0][2], r[1][2], r[2][2]),
    );
    let g = m.transpose() * m - DMat3::IDENTITY;
    let err = g.to_cols_array().iter().fold(0.0f64, |a, c| a.max(c.abs()));
    if !(err <= ROTATION_MATRIX_SLACK) {
        return Err(format!(
            "the 3×3 block is not a rotation: RᵀR differs from the identity by {err:e} (at most {ROTATION_MATRIX_SLACK:e})"
        ));
    }
    let det = m.determinant();
    if !((det - 1.0).abs() <= ROTATION_MATRIX_SLACK) {
        return Err(format!(
            "the 3×3 block is not a rotation: its determinant is {det} (a reflection when −1)"
        ));
    }
    let q = DQuat::from_mat3(&m);
    Pose::try_from_wxyz(t, [q.w, q.x, q.y, q.z]).map_err(|e| e.to_string())
}

/// A pose from a 4×4 homogeneous matrix (row-major, translation in the last column, last row
/// `[0, 0, 0, 1]` exactly).
pub fn pose_from_matrix(m: &[f64]) -> Result<Pose, String> {
    if m[12..16] != [0.0, 0.0, 0.0, 1.0] {
        return Err(format!(
            "the last row of a 4×4 pose must be [0, 0, 0, 1], got {:?}",
            &m[12..16]
        ));
    }
    let r = [[m[0], m[1], m[2]], [m[4], m[5], m[6]], [m[8], m[9], m[10]]];
    pose_from_rotation(r, [m[3], m[7], m[11]])
}

/// A rigid placement: rotation (unit quaternion) then translation.
///
/// `Pose(translation=(0, 0, 0), quaternion_wxyz=(1, 0, 0, 0))`; the quaternion is scalar
/// first (scipy's `Rotation.as_quat()` is scalar last: use `Pose(t, np.roll(q, 1))` or
/// `Pose.from_rotation(R.as_matrix(), t)`) and may have any non-zero length (normalised).
#[pyclass(module = "polycd", name = "Pose", frozen, eq)]
#[derive(Clone, Copy, PartialEq)]
pub struct PyPose {
    pub pose: Pose,
}

#[pymethods]
impl PyPose {
    #[new]
    #[pyo3(signature = (translation = None, quaternion_wxyz = None))]
    fn new(translation: Option<&Bound<'_, PyAny>>, quaternion_wxyz: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let t = match translation {
            Some(t) => vec3(t, "translation")?,
            None => DVec3::ZERO,
        };
        let q = match quaternion_wxyz {
            Some(q) => {
                let a = f64_array(q, "quaternion_wxyz")?;
                if a.shape() != [4] {
                    return Err(input(format!(
                        "quaternion_wxyz: expected 4 numbers [w, x, y, z], got shape {:?}",
                        a.shape()
                    )));
                }
                let v: Vec<f64> = a.iter().copied().collect();
                [v[0], v[1], v[2], v[3]]
            }
            None => [1.0, 0.0, 0.0, 0.0],
        };
        Ok(Self {
            pose: pose_from_parts(t.to_array(), q).map_err(to_py)?,
        })
    }

    /// The pose of a 4×4 homogeneous matrix (rotation block orthonormal, last row [0, 0, 0, 1]).
    #[staticmethod]
    fn from_matrix(matrix: &Bound<'_, PyAny>) -> PyResult<Self> {
        let a = f64_array(matrix, "matrix")?;
        if a.shape() != [4, 4] {
            return Err(input(format!("matrix: expected shape (4, 4), got {:?}", a.shape())));
        }
        let m: Vec<f64> = a.iter().copied().collect();
        Ok(Self {
            pose: pose_from_matrix(&m).map_err(InvalidPoseError::new_err)?,
        })
    }

    /// The pose of a 3×3 rotation matrix and a translation (scipy: `R.as_matrix()`).
    #[staticmethod]
    #[pyo3(signature = (rotation, translation = None))]
    fn from_rotation(rotation: &Bound<'_, PyAny>, translation: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let a = f64_array(rotation, "rotation")?;
        if a.shape() != [3, 3] {
            return Err(input(format!("rotation: expected shape (3, 3), got {:?}", a.shape())));
        }
        let v: Vec<f64> = a.iter().copied().collect();
        let r = [[v[0], v[1], v[2]], [v[3], v[4], v[5]], [v[6], v[7], v[8]]];
        let t = match translation {
            Some(t) => vec3(t, "translation")?,
            None => DVec3::ZERO,
        };
        Ok(Self {
            pose: pose_from_rotation(r, t.to_array()).map_err(InvalidPoseError::new_err)?,
        })
    }

    /// The pose of a row `[tx, ty, tz, qw, qx, qy, qz]` (the vectorised calls' row format).
    #[staticmethod]
    fn from_row(row: &Bound<'_, PyAny>) -> PyResult<Self> {
        let a = f64_array(row, "row")?;
        if a.shape() != [7] {
            return Err(input(format!(
                "row: expected 7 numbers [tx, ty, tz, qw, qx, qy, qz], got shape {:?}",
                a.shape()
            )));
        }
        let v: Vec<f64> = a.iter().copied().collect();
        Ok(Self {
            pose: pose_from_row(&v).map_err(to_py)?,
        })
    }

    /// The identity pose.
    #[staticmethod]
    fn identity() -> Self {
        Self { pose: Pose::IDENTITY }
    }

    /// The translation, shape (3,).
    #[getter]
    fn translation<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        vec3_np(py, self.pose.translation)
    }

    /// The unit quaternion [w, x, y, z], shape (4,).
    #[getter]
    fn quaternion_wxyz<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let q = self.pose.rotation;
        PyArray1::from_vec(py, vec![q.w, q.x, q.y, q.z])
    }

    /// The row [tx, ty, tz, qw, qx, qy, qz], shape (7,).
    fn row<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let (t, q) = (self.pose.translation, self.pose.rotation);
        PyArray1::from_vec(py, vec![t.x, t.y, t.z, q.w, q.x, q.y, q.z])
    }

    /// The 4×4 homogeneous matrix.
    fn matrix<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let r = DMat3::from_quat(self.pose.rotation);
        let t = self.pose.translation;
        let mut m = Vec::with_capacity(16);
        for i in 0..3 {
            let row = r.row(i);
            m.extend_from_slice(&[row.x, row.y, row.z, t[i]]);
        }
        m.extend_from_slice(&[0.0, 0.0, 0.0, 1.0]);
        flat_np(py, m, 4)
    }

    /// Applies the pose to points, shape (n, 3) → (n, 3).
    fn transform<'py>(&self, py: Python<'py>, points: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let p = crate::arrays::points(points, "points")?;
        let out: Vec<DVec3> = p.iter().map(|&x| self.pose.transform_point(x)).collect();
        crate::arrays::points_np(py, &out)
    }

    /// The pose `self ∘ other` (apply `other` first).
    fn compose(&self, other: &PyPose) -> Self {
        Self {
            pose: self.pose.compose(&other.pose),
        }
    }

    /// The inverse pose.
    fn inverse(&self) -> Self {
        Self {
            pose: self.pose.inverse(),
        }
    }

    fn __repr__(&self) -> String {
        let (t, q) = (self.pose.translation, self.pose.rotation);
        format!(
            "Pose(translation=[{}, {}, {}], quaternion_wxyz=[{}, {}, {}, {}])",
            t.x, t.y, t.z, q.w, q.x, q.y, q.z
        )
    }

    fn __reduce__(&self, py: Python<'_>) -> PyResult<(Py<PyAny>, PoseState)> {
        let (t, q) = (self.pose.translation, self.pose.rotation);
        let cls = py.get_type::<PyPose>().into_any().unbind();
        Ok((cls, (t.to_array().to_vec(), vec![q.w, q.x, q.y, q.z])))
    }
}

/// What a pickled `Pose` holds: translation and quaternion [w, x, y, z].
type PoseState = (Vec<f64>, Vec<f64>);

/// A pose argument: `None` (identity), a `Pose`, a row of 7 numbers or a 4×4 matrix.
pub fn pose_arg(obj: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Pose> {
    let Some(obj) = obj else {
        return Ok(Pose::IDENTITY);
    };
    if obj.is_none() {
        return Ok(Pose::IDENTITY);
    }
    if let Ok(p) = obj.cast::<PyPose>() {
        return Ok(p.get().pose);
    }
    let a = f64_array(obj, name)?;
    let v: Vec<f64> = a.iter().copied().collect();
    match a.shape() {
        [7] => pose_from_row(&v).map_err(|e| crate::errors::to_py_at(e, name)),
        [4, 4] => pose_from_matrix(&v).map_err(|e| InvalidPoseError::new_err(format!("{name}: {e}"))),
        s => Err(input(format!(
            "{name}: expected a Pose, a row [tx, ty, tz, qw, qx, qy, qz] or a 4×4 matrix, got shape {s:?}"
        ))),
    }
}

/// Many poses: an `(n, 7)` array of rows or an `(n, 4, 4)` array of matrices (or one pose,
/// broadcast, when `broadcast` is `Some(n)`). Every row is checked before any work; the error
/// names the first bad row.
pub fn poses_arg(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<Pose>> {
    if let Ok(p) = obj.cast::<PyPose>() {
        return Ok(vec![p.get().pose]);
    }
    let a = f64_array(obj, name)?;
    let flat: Vec<f64> = a.iter().copied().collect();
    match a.shape() {
        [_, 7] => flat
            .chunks_exact(7)
            .enumerate()
            .map(|(i, r)| pose_from_row(r).map_err(|e| crate::errors::to_py_at(e, &format!("{name}: row {i}"))))
            .collect(),
        [_, 4, 4] => flat
            .chunks_exact(16)
            .enumerate()
            .map(|(i, m)| pose_from_matrix(m).map_err(|e| InvalidPoseError::new_err(format!("{name}: row {i}: {e}"))))
            .collect(),
        [7] => Ok(vec![pose_from_row(&flat).map_err(|e| crate::errors::to_py_at(e, name))?]),
        [4, 4] => Ok(vec![
            pose_from_matrix(&flat).map_err(|e| InvalidPoseError::new_err(format!("{name}: {e}")))?
        ]),
        s => Err(input(format!(
            "{name}: expected poses of shape (n, 7) [tx, ty, tz, qw, qx, qy, qz] or (n, 4, 4), got shape {s:?}"
        ))),
    }
}
