"""polycd: exact collision detection between convex polyhedra and triangle meshes (V-Clip, CD-Dual, HS-jump,
GJK/EPA, QP distance, FAST continuous collision detection), numpy in and out.

    >>> import polycd
    >>> a = polycd.ConvexPolyhedron.box(1, 1, 1)
    >>> b = polycd.ConvexPolyhedron.box(1, 1, 1)
    >>> polycd.distance(a, None, b, polycd.Pose([2, 0, 0])).distance
    1.0

Poses are `Pose(translation, quaternion_wxyz)` (scalar first, like the batch format), 4×4
matrices, or rows `[tx, ty, tz, qw, qx, qy, qz]`. scipy interop (not a dependency):
`Pose.from_rotation(R.as_matrix(), t)` or `Pose(t, np.roll(R.as_quat(), 1))`.

The queries use the batch format's names and semantics (`polycd batch`); algorithms by
name: "auto", "gjk", "vclip", "cd_dual", "hs_jump", "qp", "qp_fast". The `*_many` and
`*_pairs` functions answer N poses or N pairs at once, with the GIL released, on all cores.

Non-convex shapes: `TriMesh` (kind "mesh": a closed solid decomposed into convex pieces;
kind "surface": an open surface) goes wherever a `ConvexPolyhedron` goes in `intersect`,
`distance`, `directional`, `manifold`, `point_query`, `ray_cast` and `toc` (surfaces:
intersect and distance only). Every answer's `to_json()` is the line `polycd batch` writes.
"""

from ._polycd import (
    ray_cast,
    point_query,
    manifold,
    TriMesh,
    ManifoldCache,
    Manifold,
    BatchSession,
    ALGORITHMS,
    DISJOINT,
    ERROR,
    OVERLAPPING,
    SHAPE_SPECS,
    TOUCHING,
    Answer,
    ConvexPolyhedron,
    FileError,
    InvalidInputError,
    InvalidMeshError,
    InvalidPoseError,
    InvalidShapeError,
    NotConvergedError,
    PairCache,
    PolycdError,
    Pose,
    TimeOfContact,
    UnsupportedError,
    VerificationError,
    World,
    __version__,
    batch,
    directional,
    directional_many,
    distance,
    distance_many,
    distance_pairs,
    intersect,
    intersect_many,
    intersect_pairs,
    toc,
)

#: Status names by code (the vectorised calls' `status` arrays).
STATUS_NAMES = {DISJOINT: "disjoint", TOUCHING: "touching", OVERLAPPING: "overlapping", ERROR: "error"}

__all__ = [
    "ray_cast",
    "point_query",
    "manifold",
    "TriMesh",
    "ManifoldCache",
    "Manifold",
    "BatchSession",
    "ALGORITHMS",
    "DISJOINT",
    "ERROR",
    "OVERLAPPING",
    "SHAPE_SPECS",
    "STATUS_NAMES",
    "TOUCHING",
    "Answer",
    "ConvexPolyhedron",
    "FileError",
    "InvalidInputError",
    "InvalidMeshError",
    "InvalidPoseError",
    "InvalidShapeError",
    "NotConvergedError",
    "PairCache",
    "PolycdError",
    "Pose",
    "TimeOfContact",
    "UnsupportedError",
    "VerificationError",
    "World",
    "__version__",
    "batch",
    "directional",
    "directional_many",
    "distance",
    "distance_many",
    "distance_pairs",
    "intersect",
    "intersect_many",
    "intersect_pairs",
    "toc",
]
