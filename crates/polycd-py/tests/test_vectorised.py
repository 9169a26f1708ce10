import gc
import resource
import threading

import numpy as np
import pytest

import polycd
from polycd import ConvexPolyhedron as P, Pose
from conftest import random_rows, rows_to_matrices

A = P.ellipsoid(300, 1, 2, 3, seed=1)
B = P.icosphere(2, 1.2)


def scalar_arrays(query, rows, algorithm="auto", direction=None):
    out = {"status": [], "signed_distance": [], "distance": [], "point_a": [], "point_b": [], "directional": []}
    nan3 = [np.nan] * 3
    for r in rows:
        if query == "directional":
            ans = polycd.directional(A, None, B, r, direction, algorithm=algorithm)
        else:
            ans = getattr(polycd, query)(A, None, B, r, algorithm=algorithm)
        out["status"].append(ans.status_code)
        out["distance"].append(np.nan if ans.distance is None else ans.distance)
        out["signed_distance"].append(np.nan if ans.signed_distance is None else ans.signed_distance)
        out["directional"].append(np.nan if ans.directional is None else ans.directional)
        out["point_a"].append(nan3 if ans.point_a is None else ans.point_a)
        out["point_b"].append(nan3 if ans.point_b is None else ans.point_b)
    return {k: np.array(v) for k, v in out.items()}


@pytest.mark.parametrize("algorithm", ["auto", "gjk", "vclip", "qp_fast"])
def test_distance_many_equals_scalar_bit_for_bit(algorithm):
    rows = random_rows(3000, seed=2, spread=3)
    v = polycd.distance_many(A, B, rows, algorithm=algorithm)
    s = scalar_arrays("distance", rows, algorithm)
    assert v["status"].dtype == np.int8 and v["status"].shape == (3000,)
    assert set(np.unique(v["status"])) <= {0, 1, 2}
    for k in ("status", "distance", "signed_distance", "point_a", "point_b"):
        np.testing.assert_array_equal(v[k], s[k], err_msg=k)
    # the (N, 4, 4) form answers the same poses the same way up to the quaternion's rounding
    m = polycd.distance_many(A, B, rows_to_matrices(rows), algorithm=algorithm)
    np.testing.assert_array_equal(m["status"], v["status"])
    np.testing.assert_allclose(m["signed_distance"], v["signed_distance"], rtol=1e-9, atol=1e-12)


def test_intersect_and_directional_many_equal_scalar():
    rows = random_rows(2000, seed=4, spread=3)
    v = polycd.intersect_many(A, B, rows)
    s = scalar_arrays("intersect", rows)
    np.testing.assert_array_equal(v["status"], s["status"])
    np.testing.assert_array_equal(v["point_a"], s["point_a"])
    d = [0.3, -1.0, 0.2]
    v = polycd.directional_many(A, B, rows, d)
    s = scalar_arrays("directional", rows, direction=d)
    np.testing.assert_array_equal(v["status"], s["status"])
    np.testing.assert_array_equal(v["directional"], s["directional"])
    per_row = polycd.directional_many(A, B, rows[:10], np.tile(d, (10, 1)))
    np.testing.assert_array_equal(per_row["directional"], v["directional"][:10])


def test_poses_a_broadcast_and_pairs():
    rows = random_rows(500, seed=6, spread=3)
    pa = Pose([0.1, 0.2, 0.3], [0.9, 0.1, 0.0, 0.2])
    v = polycd.distance_many(A, B, rows, poses_a=pa)
    v2 = polycd.distance_many(A, B, rows, poses_a=np.tile(pa.row(), (500, 1)))
    np.testing.assert_array_equal(v["signed_distance"], v2["signed_distance"])
    for i in (0, 17, 499):
        assert v["signed_distance"][i] == polycd.distance(A, pa, B, rows[i]).signed_distance
    shapes = [A, B, P.box(1, 1, 1), P.sphere(0.5)]
    rng = np.random.default_rng(0)
    ia, ib = rng.integers(0, 4, 400), rng.integers(0, 4, 400)
    ra, rb = random_rows(400, seed=7), random_rows(400, seed=8)
    out = polycd.distance_pairs(shapes, ia, ib, ra, rb)
    for i in range(0, 400, 37):
        ans = polycd.distance(shapes[ia[i]], ra[i], shapes[ib[i]], rb[i])
        assert out["status"][i] == ans.status_code
        assert out["signed_distance"][i] == ans.signed_distance
    out = polycd.intersect_pairs(shapes, ia, ib, ra, rb)
    assert out["status"][5] == polycd.intersect(shapes[ia[5]], ra[5], shapes[ib[5]], rb[5]).status_code


def test_bad_rows_are_named_before_any_work():
    rows = random_rows(100, seed=1)
    bad = rows.copy()
    bad[42, 3:] = 0.0
    with pytest.raises(polycd.InvalidPoseError, match="row 42"):
        polycd.distance_many(A, B, bad)
    bad = rows.copy()
    bad[7, 1] = np.nan
    with pytest.raises(polycd.InvalidPoseError, match="row 7"):
        polycd.distance_many(A, B, bad)
    with pytest.raises(polycd.InvalidInputError, match=r"\(n, 7\)"):
        polycd.distance_many(A, B, rows[:, :6])
    with pytest.raises(polycd.InvalidInputError, match="dtype"):
        polycd.distance_many(A, B, rows.astype(complex))
    m = rows_to_matrices(rows)
    m[3, 0, 0] = 5.0
    with pytest.raises(polycd.InvalidPoseError, match="row 3"):
        polycd.distance_many(A, B, m)
    with pytest.raises(polycd.InvalidInputError, match="poses_a: 3 rows"):
        polycd.distance_many(A, B, rows, poses_a=rows[:3])
    with pytest.raises(polycd.InvalidInputError, match="row 2"):
        polycd.distance_pairs([A, B], [0, 1, 2], [0, 0, 0])
    with pytest.raises(polycd.InvalidInputError, match="row 1"):
        polycd.directional_many(A, B, rows[:3], [[1, 0, 0], [0, 0, 0], [0, 1, 0]])
    with pytest.raises(polycd.UnsupportedError, match="row 0"):
        polycd.distance_many(A, B, rows, algorithm="cd_dual")
    # non-contiguous input: the same answers
    wide = np.zeros((100, 14))
    wide[:, ::2] = rows
    np.testing.assert_array_equal(
        polycd.distance_many(A, B, wide[:, ::2])["signed_distance"], polycd.distance_many(A, B, rows)["signed_distance"])
    empty = polycd.distance_many(A, B, np.zeros((0, 7)))
    assert empty["status"].shape == (0,) and empty["point_a"].shape == (0, 3)


def test_thread_safety():
    rows = random_rows(4000, seed=12, spread=3)
    ref_v = polycd.distance_many(A, B, rows)["signed_distance"]
    ref_s = [polycd.distance(A, None, B, r).signed_distance for r in rows[:300]]
    errors = []

    def vectorised():
        try:
            for _ in range(3):
                np.testing.assert_array_equal(polycd.distance_many(A, B, rows)["signed_distance"], ref_v)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    def scalar(cache):
        try:
            for _ in range(3):
                got = [polycd.distance(A, None, B, r, cache=cache).signed_distance for r in rows[:300]]
                assert got == pytest.approx(ref_s, rel=1e-9, abs=1e-12)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=vectorised) for _ in range(3)]
    threads += [threading.Thread(target=scalar, args=(polycd.PairCache(),)) for _ in range(3)]
    threads += [threading.Thread(target=scalar, args=(None,)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    # one cache shared by two threads at once: an exception or a correct answer, never a crash
    shared = polycd.PairCache()
    outcomes = []

    def share():
        for r in rows[:200]:
            try:
                outcomes.append(polycd.distance(A, None, B, r, cache=shared).status)
            except RuntimeError:
                outcomes.append("busy")

    ts = [threading.Thread(target=share) for _ in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len(outcomes) == 400


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def test_memory_does_not_grow_over_a_million_vectorised_queries():
    a, b = P.box(1, 1, 1), P.icosphere(1)
    rows = random_rows(100_000, seed=3, spread=3)
    polycd.distance_many(a, b, rows)  # warm-up: the pool and first allocations
    gc.collect()
    before = rss_kib()
    total = 0
    for _ in range(10):
        out = polycd.distance_many(a, b, rows)
        total += len(out["status"])
        del out
    gc.collect()
    after = rss_kib()
    assert total == 1_000_000
    # one call's output is ~ 100 000 × 90 bytes = 9 MB; ten calls leaking would add ≥ 90 MB
    assert after - before < 20_000, (before, after)
