//! `World`: many bodies, sweep-and-prune broad phase and the narrow phase on its candidate
//! pairs (polycd::broad::World), with numpy pose updates.

use crate::errors::{input, to_py, to_py_at};
use crate::pose::{pose_arg, poses_arg};
use crate::query::algorithm_arg;
use crate::shape::PyShape;
use numpy::PyArray1;
use polycd::broad::{BodyHandle, PairQuery, World, WorldOptions};
use polycd::query::Status;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;

/// Many bodies: insert shapes at poses, move them (one by one or all at once from numpy),
/// `update()`, then read the candidate pairs' answers (`pairs`, `contacts`, `within`).
///
/// Bodies are named by the integer `insert` returns (never reused). The narrow phase asks
/// `query` ("distance" or "intersect") with `algorithm` (default "vclip") and keeps one
/// PairCache per candidate pair.
#[pyclass(module = "polycd", name = "World")]
pub struct PyWorld {
    world: World,
    handles: Vec<Option<BodyHandle>>,
    ids: HashMap<BodyHandle, usize>,
}

fn status_name(s: Status) -> &'static str {
    polycd_cli::answer::status_name(s)
}

impl PyWorld {
    fn handle(&self, id: usize) -> PyResult<BodyHandle> {
        self.handles
            .get(id)
            .copied()
            .flatten()
            .ok_or_else(|| input(format!("body {id}: no such body in this world")))
    }

    fn reports<'py>(
        &self,
        py: Python<'py>,
        it: impl Iterator<Item = polycd::broad::PairReport>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (mut a, mut b, mut st, mut sd) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for r in it {
            a.push(self.ids.get(&r.a).map_or(-1, |&i| i as i64));
            b.push(self.ids.get(&r.b).map_or(-1, |&i| i as i64));
            st.push(crate::query::status_code(status_name(r.status)));
            sd.push(r.signed_distance().unwrap_or(f64::NAN));
        }
        let d = PyDict::new(py);
        d.set_item("a", PyArray1::from_vec(py, a))?;
        d.set_item("b", PyArray1::from_vec(py, b))?;
        d.set_item("status", PyArray1::from_vec(py, st))?;
        d.set_item("signed_distance", PyArray1::from_vec(py, sd))?;
        Ok(d)
    }
}

#[pymethods]
impl PyWorld {
    #[new]
    #[pyo3(signature = (algorithm = "vclip", query = "distance"))]
    fn new(algorithm: &str, query: &str) -> PyResult<Self> {
        let query = match query {
            "distance" => PairQuery::Distance,
            "intersect" => PairQuery::Intersect,
            other => return Err(input(format!("query: '{other}' (known: distance, intersect)"))),
        };
        Ok(Self {
            world: World::new(
                WorldOptions::default()
                    .with_algorithm(algorithm_arg(algorithm)?)
                    .with_query(query),
            ),
            handles: Vec::new(),
            ids: HashMap::new(),
        })
    }

    /// Adds a body; returns its id.
    #[pyo3(signature = (shape, pose = None))]
    fn insert(&mut self, shape: PyRef<'_, PyShape>, pose: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
        let p = pose_arg(pose, "pose")?;
        let h = self.world.insert(shape.shape.clone(), p).map_err(to_py)?;
        let id = self.handles.len();
        self.handles.push(Some(h));
        self.ids.insert(h, id);
        Ok(id)
    }

    /// Removes a body (False when it was not there).
    fn remove(&mut self, id: usize) -> bool {
        match self.handles.get_mut(id).and_then(Option::take) {
            Some(h) => {
                self.ids.remove(&h);
                self.world.remove(h)
            }
            None => false,
        }
    }

    /// Moves one body.
    fn set_pose(&mut self, id: usize, pose: &Bound<'_, PyAny>) -> PyResult<()> {
        let h = self.handle(id)?;
        let p = pose_arg(Some(pose), "pose")?;
        self.world.set_pose(h, p).map_err(to_py)
    }

    /// Moves many bodies: `ids` (N,) and `poses` (N, 7) rows or (N, 4, 4) matrices. Every id
    /// and row is checked before any body moves.
    fn set_poses(&mut self, ids: Vec<usize>, poses: &Bound<'_, PyAny>) -> PyResult<()> {
        let p = poses_arg(poses, "poses")?;
        if p.len() != ids.len() {
            return Err(input(format!("poses: {} rows for {} ids", p.len(), ids.len())));
        }
        let hs: Vec<BodyHandle> = ids.iter().map(|&i| self.handle(i)).collect::<PyResult<_>>()?;
        for (k, (h, pose)) in hs.into_iter().zip(p).enumerate() {
            self.world
                .set_pose(h, pose)
                .map_err(|e| to_py_at(e, &format!("poses: row {k}")))?;
        }
        Ok(())
    }

    /// Runs the broad and narrow phase; returns the step's statistics as a dict.
    fn update<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let w = &mut self.world;
        let s = py.detach(|| w.update()).map_err(to_py)?;
        let d = PyDict::new(py);
        d.set_item("stats", format!("{s:?}"))?;
        Ok(d)
    }

    /// Every candidate pair's last answer: dict of arrays a, b (body ids), status (int8
    /// codes), signed_distance (NaN when unknown).
    fn pairs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.reports(py, self.world.pairs())
    }

    /// The pairs touching or overlapping.
    fn contacts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.reports(py, self.world.contacts())
    }

    /// The pairs at most `d` apart.
    fn within<'py>(&self, py: Python<'py>, d: f64) -> PyResult<Bound<'py, PyDict>> {
        self.reports(py, self.world.within(d))
    }

    fn __len__(&self) -> usize {
        self.world.len()
    }
}
