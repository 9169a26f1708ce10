//! `BatchSession`: the CLI's batch loop (`batch_run::answer_next`, its parser, shape cache
//! and serialiser) kept across calls, with named shapes defined once at its start. What
//! `polycd.ray` runs on each worker: the shapes arrive once per worker (pickled through the
//! object store), and every block of lines is answered against them.

use crate::errors::{input, PolycdError};
use crate::shape::PyShape;
use polycd_cli::shape_cache::Shapes;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A batch run kept open: `answer(lines)` answers query lines as `polycd batch` does, line
/// after line of one run. `shapes` ({name: ConvexPolyhedron}) are defined first, each exactly
/// as the define line `{"define": name, "shape": shape.to_json()}` defines it, so lines can
/// use `{"ref": name}`; the answers are byte for byte those of `polycd batch` on those define
/// lines followed by the query lines (without the define lines' own answers).
#[pyclass(module = "polycd", name = "BatchSession")]
pub struct PyBatchSession {
    shapes: Shapes,
    names: Vec<String>,
}

/// The define line of a named shape.
pub fn define_line(name: &str, shape: &PyShape) -> String {
    serde_json::json!({"define": name, "shape": shape.json_object()}).to_string()
}

#[pymethods]
impl PyBatchSession {
    #[new]
    #[pyo3(signature = (shapes = None))]
    fn new(py: Python<'_>, shapes: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut s = Self {
            shapes: Shapes::default(),
            names: Vec::new(),
        };
        let Some(shapes) = shapes else {
            return Ok(s);
        };
        let mut lines = Vec::new();
        for (k, v) in shapes.iter() {
            let name: String = k
                .extract()
                .map_err(|_| input("shapes: the keys must be str (the names lines refer to by \"ref\")"))?;
            let shape = v.cast::<PyShape>().map_err(|_| {
                input(format!(
                    "shapes[{name:?}]: expected a ConvexPolyhedron (batch define lines take convex shapes)"
                ))
            })?;
            let line = define_line(&name, shape.get());
            lines.push((name, line));
        }
        let shapes_ref = &mut s.shapes;
        let answers: Vec<(String, polycd_cli::answer::Answer)> = py.detach(|| {
            lines
                .into_iter()
                .map(|(name, line)| {
                    let a = polycd_cli::batch_run::answer_next(&line, shapes_ref);
                    (name, a)
                })
                .collect()
        });
        for (name, a) in answers {
            if a.status != "defined" {
                return Err(PolycdError::new_err(format!(
                    "shapes[{name:?}]: the definition failed: {}",
                    a.error.unwrap_or_default()
                )));
            }
            s.names.push(name);
        }
        Ok(s)
    }

    /// Answers query lines (str with newlines, or a list of str, one line each) and returns
    /// the answer lines (without newlines), in order.
    fn answer(&mut self, py: Python<'_>, lines: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        let lines: Vec<String> = if let Ok(s) = lines.extract::<String>() {
            s.lines().map(str::to_string).collect()
        } else {
            lines
                .extract()
                .map_err(|_| input("lines: expected a str or a list of str"))?
        };
        let shapes = &mut self.shapes;
        Ok(py.detach(|| {
            lines
                .iter()
                .map(|l| polycd_cli::batch_run::answer_next(l, shapes).to_json().to_string())
                .collect()
        }))
    }

    /// The names defined at the start.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.names.clone()
    }

    fn __repr__(&self) -> String {
        format!("BatchSession(shapes={:?})", self.names)
    }
}
