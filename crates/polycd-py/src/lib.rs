//! Python bindings of polycd: the extension module `polycd._polycd`, re-exported by the pure
//! Python package `polycd` (python/polycd/__init__.py).
//!
//! Every failure is a Python exception derived from `polycd.PolycdError` (one subclass per
//! kind of [`polycd::PolycdError`], plus `InvalidInputError` for arrays of the wrong dtype,
//! shape or values); nothing panics across the boundary. The queries answer with the batch
//! format's names and semantics: the fields of an answer are those `polycd batch` writes
//! (the CLI library's [`polycd_cli::answer::Answer`], serialised by its own `to_json`).

mod arrays;
mod errors;
mod manifold;
mod mesh;
mod pose;
mod probe;
mod query;
mod session;
mod shape;
mod vector;
mod world;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _polycd(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<shape::PyShape>()?;
    m.add_class::<pose::PyPose>()?;
    m.add_class::<query::PyPairCache>()?;
    m.add_class::<query::PyAnswer>()?;
    m.add_class::<query::PyTimeOfContact>()?;
    m.add_class::<world::PyWorld>()?;
    m.add_class::<mesh::PyTriMesh>()?;
    m.add_class::<manifold::PyManifold>()?;
    m.add_class::<manifold::PyManifoldCache>()?;
    m.add_class::<session::PyBatchSession>()?;
    m.add_function(wrap_pyfunction!(probe::point_query, m)?)?;
    m.add_function(wrap_pyfunction!(probe::ray_cast, m)?)?;
    m.add_function(wrap_pyfunction!(manifold::manifold, m)?)?;
    m.add_function(wrap_pyfunction!(query::intersect, m)?)?;
    m.add_function(wrap_pyfunction!(query::distance, m)?)?;
    m.add_function(wrap_pyfunction!(query::directional, m)?)?;
    m.add_function(wrap_pyfunction!(query::toc, m)?)?;
    m.add_function(wrap_pyfunction!(query::batch, m)?)?;
    m.add_function(wrap_pyfunction!(vector::intersect_many, m)?)?;
    m.add_function(wrap_pyfunction!(vector::distance_many, m)?)?;
    m.add_function(wrap_pyfunction!(vector::directional_many, m)?)?;
    m.add_function(wrap_pyfunction!(vector::distance_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(vector::intersect_pairs, m)?)?;
    m.add("ALGORITHMS", polycd::Algorithm::ALL.map(|a| a.name()).to_vec())?;
    m.add("SHAPE_SPECS", polycd::shapes::SHAPE_SPECS)?;
    m.add("DISJOINT", query::DISJOINT)?;
    m.add("TOUCHING", query::TOUCHING)?;
    m.add("OVERLAPPING", query::OVERLAPPING)?;
    m.add("ERROR", query::ERROR)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
