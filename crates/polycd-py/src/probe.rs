//! Single-shape queries: point queries and ray casts, on a convex shape or a closed mesh,
//! answered through the CLI's own mapping (`batch::answer_probe`, `meshq::answer_probe`), so
//! the fields are those `polycd batch` writes for `"query": "point"` / `"ray"` lines.

use crate::arrays::vec3;
use crate::errors::{input, to_py};
use crate::mesh::solid_arg;
use crate::pose::pose_arg;
use crate::query::{answer_error, PyAnswer};
use polycd::{DVec3, PolycdError};
use polycd_cli::batch::{answer_probe, Probe};
use polycd_cli::meshq::{self, BatchSolid};
use pyo3::prelude::*;

fn probe(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    pose: Option<&Bound<'_, PyAny>>,
    query: &'static str,
    p: Probe,
) -> PyResult<PyAnswer> {
    let s = solid_arg(shape, "shape")?;
    let pose = pose_arg(pose, "pose")?;
    let fields = match &s {
        BatchSolid::Convex(c) => py.detach(|| answer_probe(c, &pose, p)),
        BatchSolid::Mesh(m) => py.detach(|| match p {
            Probe::Point(q) => meshq::answer_probe(m, &pose, Some(q), None),
            Probe::Ray { origin, direction } => meshq::answer_probe(m, &pose, None, Some((origin, direction))),
        }),
        BatchSolid::Surface(_) => return Err(to_py(PolycdError::UnsupportedShape {
            algorithm: query,
            shape: "surface",
            reason:
                "open surfaces answer intersect and distance queries only (not yet directional, manifold, point or ray)",
        })),
    };
    if fields.status == "error" {
        return Err(answer_error(&fields));
    }
    Ok(PyAnswer {
        query,
        fields,
        check: None,
    })
}

/// The point `point` against `shape` (a ConvexPolyhedron or a closed TriMesh) at `pose`:
/// `status` "overlapping" inside, "touching" on the boundary (within the contact tolerance),
/// "disjoint" outside; `signed_distance` (negative inside), `distance` (its positive part),
/// `point_a` the closest boundary point, `features["a"]` its feature. The answer is the
/// `"query": "point"` line of `polycd batch` (`to_json()`).
#[pyfunction]
#[pyo3(signature = (shape, pose, point))]
pub fn point_query(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    pose: Option<&Bound<'_, PyAny>>,
    point: &Bound<'_, PyAny>,
) -> PyResult<PyAnswer> {
    let p = vec3(point, "point")?;
    probe(py, shape, pose, "point", Probe::Point(p))
}

/// The first hit of the ray `origin + t · direction` (t ≥ 0, in units of `direction` as
/// given) on `shape` (a ConvexPolyhedron or a closed TriMesh) at `pose`: `ray` =
/// {"t", "point", "normal"} (normal None from strictly inside), `status` "overlapping" when
/// the origin is strictly inside (t = 0), "touching" for any other hit, "disjoint" on a miss
/// (`ray` None). The answer is the `"query": "ray"` line of `polycd batch` (`to_json()`).
#[pyfunction]
#[pyo3(signature = (shape, pose, origin, direction))]
pub fn ray_cast(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    pose: Option<&Bound<'_, PyAny>>,
    origin: &Bound<'_, PyAny>,
    direction: &Bound<'_, PyAny>,
) -> PyResult<PyAnswer> {
    let origin = vec3(origin, "origin")?;
    let direction = vec3(direction, "direction")?;
    if direction == DVec3::ZERO {
        return Err(input("direction: a ray needs a non-zero direction"));
    }
    probe(py, shape, pose, "ray", Probe::Ray { origin, direction })
}
