import numpy as np
import pytest

import polycd
from polycd import ConvexPolyhedron as P, Pose


def test_world_pairs_and_numpy_updates():
    w = polycd.World()
    box = P.box(1, 1, 1)
    ids = [w.insert(box, Pose([2.0 * i, 0, 0])) for i in range(5)]
    assert len(w) == 5
    w.update()
    assert len(w.contacts()["a"]) == 0
    # move every body onto a line 0.9 apart: neighbours overlap
    rows = np.array([[0.9 * i, 0, 0, 1, 0, 0, 0] for i in range(5)])
    w.set_poses(ids, rows)
    w.update()
    c = w.contacts()
    pairs = sorted(zip(c["a"].tolist(), c["b"].tolist()))
    assert pairs == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert (c["status"] == polycd.OVERLAPPING).all()
    assert np.allclose(c["signed_distance"], -0.1)
    for a, b, sd in zip(c["a"], c["b"], c["signed_distance"]):
        ref = polycd.distance(box, rows[a], box, rows[b]).signed_distance
        assert sd == pytest.approx(ref, abs=1e-12)
    assert w.remove(ids[2]) and not w.remove(ids[2])
    w.update()
    assert len(w.contacts()["a"]) == 2
    with pytest.raises(polycd.InvalidInputError, match="body 2"):
        w.set_pose(ids[2], Pose())
    bad = rows[:2].copy()
    bad[1, 3:] = 0
    with pytest.raises(polycd.InvalidPoseError, match="row 1"):
        w.set_poses([0, 1], bad)
    with pytest.raises(polycd.InvalidInputError):
        polycd.World(query="nope")
    w2 = polycd.World(algorithm="gjk", query="intersect")
    w2.insert(box, None)
    w2.insert(box, Pose([0.5, 0, 0]))
    w2.update()
    assert w2.contacts()["status"].tolist() == [polycd.OVERLAPPING]
    assert len(w2.within(1.0)["a"]) == 1
