//! The exception hierarchy: `PolycdError` and one subclass per kind of failure.

use polycd::PolycdError as E;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(polycd, PolycdError, PyException, "Base of every error polycd raises.");
create_exception!(
    polycd,
    InvalidInputError,
    PolycdError,
    "An argument of the wrong type, dtype, shape or value (e.g. a (n, 2) array where (n, 3) is needed, a non-finite coordinate, an unknown algorithm name)."
);
create_exception!(
    polycd,
    InvalidShapeError,
    PolycdError,
    "The points or faces do not make a shape: too few points, non-finite or absurd coordinates, an invalid boundary, a bad radius or shape specification."
);
create_exception!(
    polycd,
    InvalidPoseError,
    PolycdError,
    "A pose with non-finite values, a zero quaternion, or a matrix that is not a rotation."
);
create_exception!(
    polycd,
    FileError,
    PolycdError,
    "A file could not be read or parsed, or its faces do not bound a convex solid."
);
create_exception!(
    polycd,
    InvalidMeshError,
    PolycdError,
    "A triangle mesh that is not a closed 2-manifold or has a degenerate triangle."
);
create_exception!(
    polycd,
    UnsupportedError,
    PolycdError,
    "The chosen algorithm does not answer this question or this kind of shape, or the build lacks a feature."
);
create_exception!(
    polycd,
    NotConvergedError,
    PolycdError,
    "An iteration bound was reached before an answer was certain (continuous collision detection)."
);
create_exception!(
    polycd,
    VerificationError,
    PolycdError,
    "An answer's certificate failed polycd's independent check (Answer.verify())."
);

/// Adds the exception types to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("PolycdError", py.get_type::<PolycdError>())?;
    m.add("InvalidInputError", py.get_type::<InvalidInputError>())?;
    m.add("InvalidShapeError", py.get_type::<InvalidShapeError>())?;
    m.add("InvalidPoseError", py.get_type::<InvalidPoseError>())?;
    m.add("FileError", py.get_type::<FileError>())?;
    m.add("InvalidMeshError", py.get_type::<InvalidMeshError>())?;
    m.add("UnsupportedError", py.get_type::<UnsupportedError>())?;
    m.add("NotConvergedError", py.get_type::<NotConvergedError>())?;
    m.add("VerificationError", py.get_type::<VerificationError>())?;
    Ok(())
}

/// The Python exception of a library error (its message is the library's `Display`).
pub fn to_py(e: E) -> PyErr {
    let msg = e.to_string();
    match e {
        E::TooFewPoints { .. }
        | E::NonFinite { .. }
        | E::AbsurdMagnitude { .. }
        | E::Collinear
        | E::Coplanar { .. }
        | E::InvalidBoundary(_)
        | E::BadRadius { .. }
        | E::ShapeSpec { .. } => InvalidShapeError::new_err(msg),
        E::NonFinitePose | E::ZeroQuaternion | E::NonUnitQuaternion { .. } => InvalidPoseError::new_err(msg),
        E::BadDirection | E::InvalidOption { .. } => InvalidInputError::new_err(msg),
        E::File { .. } | E::NotConvex { .. } | E::MeshFile { .. } => FileError::new_err(msg),
        E::InvalidMesh(_) => InvalidMeshError::new_err(msg),
        E::Unsupported { .. } | E::FeatureDisabled { .. } | E::UnsupportedShape { .. } => {
            UnsupportedError::new_err(msg)
        }
        E::CcdNotConverged { .. } => NotConvergedError::new_err(msg),
        // Kinds added to the library after these bindings: the base class, message intact.
        #[allow(unreachable_patterns)]
        _ => PolycdError::new_err(msg),
    }
}

/// A library error with a prefix naming where it happened (e.g. `row 17: `), same class.
pub fn to_py_at(e: E, context: &str) -> PyErr {
    let err = to_py(e);
    Python::attach(|py| {
        let msg = format!("{context}: {}", err.value(py));
        let ty = err.get_type(py);
        PyErr::from_type(ty, msg)
    })
}

/// An [`InvalidInputError`] with the message.
pub fn input(msg: impl Into<String>) -> PyErr {
    InvalidInputError::new_err(msg.into())
}
