import pickle

import numpy as np
import pytest

import polycd
from polycd import ConvexPolyhedron as P


def test_box_properties():
    b = P.box(1, 2, 3)
    assert b.vertices.shape == (8, 3)
    assert len(b.faces) == 6 and all(len(f) == 4 for f in b.faces)
    assert b.normals.shape == (6, 3)
    assert np.allclose(np.linalg.norm(b.normals, axis=1), 1.0)
    assert b.edges.shape == (12, 2)
    assert b.volume == pytest.approx(6.0, rel=1e-12)
    assert np.allclose(np.sort(np.abs(b.vertices), axis=0)[0], [0.5, 1.0, 1.5])
    assert b.dimension == 3 and b.radius == 0.0
    info = b.info()
    assert (info["vertices"], info["edges"], info["faces"]) == (8, 12, 6)
    assert info["euler_characteristic"] == 2
    # every vertex lies on or below every face plane
    assert (b.vertices @ b.normals.T - b.offsets <= 1e-12).all()


def test_generators_and_specs():
    assert P.icosphere(2).vertices.shape == (162, 3)
    assert np.array_equal(P.icosphere(2, 1.0).vertices, P.from_spec("icosphere:2").vertices)
    assert np.array_equal(P.ellipsoid(300, 1, 2, 3, seed=7).vertices, P.from_spec("ellipsoid:1,2,3:300:7").vertices)
    for s in [P.tetrahedron(), P.octahedron(), P.icosahedron(), P.prism(6, 1, 2), P.cone(8, 1, 2)]:
        assert s.dimension == 3 and s.volume > 0
    assert P.sphere(1.5).radius == 1.5 and P.sphere(1.5).dimension == 0
    assert P.capsule(2, 0.5).dimension == 1
    assert P.box(1, 1, 1).with_radius(0.25).radius == 0.25
    assert "icosphere" in polycd.SHAPE_SPECS
    with pytest.raises(polycd.InvalidShapeError, match="bad shape specification"):
        P.from_spec("icosphere:banana")
    with pytest.raises(polycd.InvalidShapeError):
        P.box(1, 1, 1).with_radius(-1)


def test_from_points_flat_and_errors():
    tri = P.from_points(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=float))
    assert tri.dimension == 2
    assert P.from_points([[0, 0, 0], [1, 1, 1]]).dimension == 1  # lists and ints are accepted
    with pytest.raises(polycd.InvalidInputError, match=r"shape \(n, 3\)"):
        P.from_points(np.zeros((4, 2)))
    with pytest.raises(polycd.InvalidInputError, match="row 2 has a non-finite"):
        P.from_points(np.array([[0, 0, 0], [1, 0, 0], [0, np.nan, 0], [0, 0, 1]]))
    with pytest.raises(polycd.InvalidInputError, match="row 0 has a non-finite"):
        P.from_points(np.array([[np.inf, 0, 0]]))
    with pytest.raises(polycd.InvalidInputError, match="dtype bool"):
        P.from_points(np.ones((4, 3), dtype=bool))
    with pytest.raises(polycd.InvalidInputError, match="dtype complex"):
        P.from_points(np.ones((4, 3), dtype=complex))
    with pytest.raises(polycd.InvalidInputError):
        P.from_points("not points")
    with pytest.raises(polycd.InvalidShapeError, match="too few points"):
        P.from_points(np.zeros((0, 3)))
    assert issubclass(polycd.InvalidInputError, polycd.PolycdError)


def test_non_contiguous_and_float32_inputs_give_the_same_shape():
    pts = np.random.default_rng(1).normal(size=(200, 3))
    ref = P.from_points(pts)
    fortran = np.asfortranarray(pts)
    strided = np.zeros((200, 6))
    strided[:, ::2] = pts
    for other in (fortran, strided[:, ::2], pts.tolist()):
        assert np.array_equal(P.from_points(other).vertices, ref.vertices)
    assert P.from_points(pts.astype(np.float32)).vertices.dtype == np.float64


def test_from_mesh_and_read(tmp_path):
    b = P.box(2, 2, 2)
    m = P.from_mesh(b.vertices, [list(f) for f in b.faces])
    assert np.array_equal(m.vertices, b.vertices)
    with pytest.raises(polycd.InvalidInputError, match="face 0"):
        P.from_mesh(b.vertices, [[0, 1, -2]])
    with pytest.raises(polycd.InvalidShapeError, match="invalid boundary"):
        P.from_mesh(b.vertices, [[0, 1, 2]])
    obj = tmp_path / "box.obj"
    lines = [f"v {x} {y} {z}" for x, y, z in b.vertices] + ["f " + " ".join(str(i + 1) for i in f) for f in b.faces]
    obj.write_text("\n".join(lines) + "\n")
    r = P.read(str(obj))
    assert r.vertices.shape == (8, 3) and r.volume == pytest.approx(8.0)
    with pytest.raises(polycd.FileError):
        P.read(str(tmp_path / "missing.obj"))


@pytest.mark.parametrize(
    "shape",
    [P.box(1, 2, 3), P.ellipsoid(500, 1, 2, 3, seed=3), P.from_points([[0, 0, 0], [1, 0, 0], [0, 1, 0]]), P.sphere(1), P.capsule(2, 0.3), P.icosphere(1).with_radius(0.1)],
)
def test_pickle_round_trip_is_exact(shape):
    back = pickle.loads(pickle.dumps(shape))
    assert np.array_equal(back.vertices, shape.vertices)
    assert [list(f) for f in back.faces] == [list(f) for f in shape.faces]
    assert np.array_equal(back.normals, shape.normals)
    assert back.radius == shape.radius and back.dimension == shape.dimension
    other = P.icosphere(2)
    pose = polycd.Pose([3, 0.5, 0.2], [0.9, 0.1, 0.3, 0.2])
    d1 = polycd.distance(shape, None, other, pose)
    d2 = polycd.distance(back, None, other, pose)
    assert d1.to_json() == d2.to_json()
