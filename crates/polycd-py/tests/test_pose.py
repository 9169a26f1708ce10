import pickle

import numpy as np
import pytest

import polycd
from polycd import Pose
from conftest import quat_to_matrix, random_rows


def test_quaternion_normalised_and_scalar_first():
    p = Pose([1, 2, 3], [2, 0, 0, 0])
    assert np.array_equal(p.quaternion_wxyz, [1, 0, 0, 0])
    assert np.array_equal(p.translation, [1, 2, 3])
    assert np.array_equal(p.row(), [1, 2, 3, 1, 0, 0, 0])
    # 90 degrees about z maps x to y
    s = np.sqrt(0.5)
    q = Pose(None, [s, 0, 0, s])
    assert np.allclose(q.transform(np.array([[1.0, 0, 0]])), [[0, 1, 0]], atol=1e-15)


def test_matrix_and_rotation_agree_with_quaternion():
    rows = random_rows(50, seed=3)
    rots = quat_to_matrix(rows[:, 3:])
    pts = np.random.default_rng(0).normal(size=(5, 3))
    for r, m in zip(rows, rots):
        p = Pose(r[:3], r[3:])
        h = np.eye(4)
        h[:3, :3] = m
        h[:3, 3] = r[:3]
        for other in (Pose.from_matrix(h), Pose.from_rotation(m, r[:3])):
            assert np.allclose(other.transform(pts), p.transform(pts), atol=1e-14)
        assert np.allclose(p.matrix(), h, atol=1e-15)
        assert np.allclose(Pose.from_row(r).transform(pts), p.transform(pts), atol=0)


def test_bad_poses():
    with pytest.raises(polycd.InvalidPoseError, match="zero length"):
        Pose([0, 0, 0], [0, 0, 0, 0])
    with pytest.raises(polycd.InvalidInputError):
        Pose([0, 0, np.nan])
    with pytest.raises(polycd.InvalidInputError, match="4 numbers"):
        Pose([0, 0, 0], [1, 0, 0])
    with pytest.raises(polycd.InvalidPoseError, match="not a rotation"):
        Pose.from_rotation(2 * np.eye(3))
    with pytest.raises(polycd.InvalidPoseError, match="determinant"):
        Pose.from_rotation(np.diag([1.0, 1.0, -1.0]))
    bad = np.eye(4)
    bad[3, 0] = 1
    with pytest.raises(polycd.InvalidPoseError, match="last row"):
        Pose.from_matrix(bad)
    with pytest.raises(polycd.InvalidInputError, match=r"\(4, 4\)"):
        Pose.from_matrix(np.eye(3))


def test_compose_inverse_pickle():
    p = Pose([1, 2, 3], [0.9, 0.1, 0.3, 0.2])
    ident = p.compose(p.inverse())
    assert np.allclose(ident.transform(np.array([[1.0, 2, 3]])), [[1, 2, 3]], atol=1e-14)
    assert pickle.loads(pickle.dumps(p)) == p
    assert "Pose(" in repr(p)
