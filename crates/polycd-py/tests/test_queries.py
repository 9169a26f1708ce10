import json

import numpy as np
import pytest

import polycd
from polycd import ConvexPolyhedron as P, Pose
from conftest import random_rows, run_batch_cli


def test_cube_distance_readme_example():
    a, b = P.box(1, 1, 1), P.box(1, 1, 1)
    d = polycd.distance(a, None, b, Pose([2, 0, 0]))
    assert d.status == "disjoint" and d.status_code == polycd.DISJOINT
    assert d.distance == 1.0 and d.signed_distance == 1.0
    assert d.point_a[0] == 0.5 and d.point_b[0] == 1.5
    assert d.features["a"][0] in ("vertex", "edge", "face")
    assert d.certificate["kind"] == "closest_points"
    assert d.verify() is True
    j = json.loads(d.to_json(id="x"))
    assert j["id"] == "x" and j["distance"] == 1.0


def test_statuses_certificates_and_verify():
    a, b = P.icosphere(2), P.box(1, 1, 1)
    over = polycd.intersect(a, None, b, Pose([0.5, 0, 0]))
    assert over.status == "overlapping" and over.certificate["kind"] in (
        "common_point", "intersecting_features", "minkowski_simplex")
    assert over.verify()
    apart = polycd.intersect(a, None, b, Pose([3, 0, 0]))
    assert apart.status == "disjoint" and apart.certificate["kind"] == "separating_plane"
    assert apart.verify()
    pen = polycd.distance(a, None, b, Pose([0.5, 0, 0]))
    assert pen.status == "overlapping" and pen.signed_distance < 0 and pen.distance == 0.0
    assert pen.certificate["kind"] == "penetration" and pen.certificate["penetration"]["depth"] > 0
    assert pen.verify()
    touch = polycd.distance(P.box(1, 1, 1), None, P.box(1, 1, 1), Pose([1, 0, 0]))
    assert touch.status == "touching"
    dr = polycd.directional(a, None, b, Pose([3, 0, 0]), [-1, 0, 0])
    assert dr.directional == pytest.approx(1.5, abs=1e-12)  # B moves 1.5 along -x
    assert dr.certificate["kind"] == "contact_plane" and dr.verify()
    never = polycd.directional(a, None, b, Pose([3, 0, 0]), [0, 1, 0])
    assert never.directional is None and never.certificate["kind"] == "never"


@pytest.mark.parametrize("algorithm", polycd.ALGORITHMS)
def test_every_algorithm_answers_intersect(algorithm):
    a, b = P.ellipsoid(200, 1, 2, 3, seed=1), P.icosphere(2)
    for row in random_rows(20, seed=5, spread=3):
        ans = polycd.intersect(a, None, b, row, algorithm=algorithm)
        ref = polycd.intersect(a, None, b, row, algorithm="auto")
        assert ans.status == ref.status
        assert ans.verify()


def test_query_errors():
    a = P.box(1, 1, 1)
    with pytest.raises(polycd.InvalidInputError, match="unknown algorithm 'nope'"):
        polycd.distance(a, None, a, None, algorithm="nope")
    with pytest.raises(polycd.InvalidInputError, match="direction"):
        polycd.directional(a, None, a, None, [0, 0, 0])
    with pytest.raises(polycd.UnsupportedError):
        polycd.distance(a, None, a, Pose([3, 0, 0]), algorithm="cd_dual")
    with pytest.raises(polycd.InvalidPoseError):
        polycd.distance(a, [0, 0, 0, 0, 0, 0, 0], a, None)
    with pytest.raises(polycd.InvalidInputError, match="pose_b"):
        polycd.distance(a, None, a, np.zeros(5))
    with pytest.raises(TypeError):
        polycd.distance("box", None, a, None)


def test_pair_cache_gives_the_same_answers():
    a, b = P.ellipsoid(300, 1, 2, 3, seed=2), P.ellipsoid(300, 2, 1, 1, seed=3)
    cache = polycd.PairCache()
    for algorithm in ("gjk", "vclip", "qp_fast"):
        for row in random_rows(30, seed=9, spread=4):
            warm = polycd.distance(a, None, b, row, algorithm=algorithm, cache=cache)
            cold = polycd.distance(a, None, b, row, algorithm=algorithm)
            assert warm.status == cold.status
            if warm.signed_distance is not None:
                assert warm.signed_distance == pytest.approx(cold.signed_distance, rel=1e-9, abs=1e-12)
    cache.forget()


def test_time_of_contact():
    a, b = P.box(1, 1, 1), P.box(1, 1, 1)
    hit = polycd.toc(a, Pose([0, 0, 0]), Pose([0, 0, 0]), b, Pose([5, 0, 0]), Pose([-5, 0, 0]))
    # B's centre moves 10 in t; faces meet after 4: t = 0.4 (within the distance threshold)
    assert hit is not None and hit.t == pytest.approx(0.4, abs=1e-3)
    assert hit.t <= 0.4 + 1e-12 and hit.distance >= 0
    miss = polycd.toc(a, None, None, b, Pose([5, 0, 0]), Pose([5, 3, 0]))
    assert miss is None
    # Rounded shapes move too (issue 24 item 5): B's face x = centre - 0.5 meets the unit
    # sphere at x = 1 when B's centre is at 1.5, after 3.5 of 10: t = 0.35.
    ball = polycd.toc(P.sphere(1), None, None, b, Pose([5, 0, 0]), Pose([-5, 0, 0]))
    assert ball is not None and ball.t == pytest.approx(0.35, abs=1e-3)
    assert ball.t <= 0.35 + 1e-12 and ball.distance >= 0


PAIRS = [
    ("ellipsoid:1,2,3:200:1", "icosphere:2"),
    ("box:1,2,3", "cone:12,1,2"),
    ("sphere:1", "box:1,1,1"),
    ("triangle:0,0,0,1,0,0,0,1,0", "tetrahedron"),
]
QUERIES = [
    ("intersect", polycd.ALGORITHMS),
    ("distance", ["auto", "gjk", "vclip", "qp_fast", "qp"]),
    ("directional", ["auto", "cd_dual", "gjk"]),
]


def test_agreement_with_polycd_batch_byte_for_byte():
    """The same queries through the CLI (`polycd batch`) and through Python's Answer.to_json."""
    lines, expected = [], []
    rows = random_rows(20, seed=11, spread=2.5)
    k = 0
    for sa, sb in PAIRS:
        a, b = P.from_spec(sa), P.from_spec(sb)
        for query, algorithms in QUERIES:
            for algorithm in algorithms:
                for r in rows:
                    line = {"id": k, "a": {"shape": sa}, "b": {"shape": sb},
                            "pose_b": {"translation": list(r[:3]), "rotation": list(r[3:])},
                            "query": query, "algorithm": algorithm}
                    try:
                        if query == "directional":
                            line["direction"] = [1.0, -0.5, 0.25]
                            ans = polycd.directional(a, None, b, r, [1.0, -0.5, 0.25], algorithm=algorithm)
                        else:
                            ans = getattr(polycd, query)(a, None, b, r, algorithm=algorithm)
                        expected.append(ans.to_json(id=k))
                    except polycd.PolycdError as e:
                        expected.append(("error", str(e)))
                    lines.append(json.dumps(line))
                    k += 1
    text = "\n".join(lines) + "\n"
    out = run_batch_cli(text).splitlines()
    assert len(out) == len(lines) > 1000
    answered = 0
    for got, want in zip(out, expected):
        if isinstance(want, tuple):  # Python raised: the CLI wrote an error line with that message
            g = json.loads(got)
            assert g["status"] == "error" and g["error"] == want[1]
        else:
            assert got == want
            answered += 1
    assert answered > 800
    # polycd.batch runs the CLI library's own loop: identical bytes
    assert polycd.batch(text) == run_batch_cli(text)
    assert polycd.batch(lines[:3]) == "".join(x + "\n" for x in out[:3])
