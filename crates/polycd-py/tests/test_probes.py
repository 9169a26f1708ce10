"""Flat and rounded shapes, point queries, ray casts, contact manifolds and toc on convex
shapes: every answer equals the line `polycd batch` writes, byte for byte."""

import json
import numpy as np
import pytest

import polycd
from polycd import ConvexPolyhedron as P, Pose
from conftest import random_rows, run_batch_cli


def pose_obj(row):
    return {"translation": [float(x) for x in row[:3]], "rotation": [float(x) for x in row[3:]]}


def cli_lines(lines):
    return run_batch_cli("".join(json.dumps(l) + "\n" for l in lines)).splitlines()


def test_flat_and_rounded_shapes():
    pt = P.point([1, 2, 3], radius=0.5)
    assert pt.dimension == 0 and pt.radius == 0.5
    seg = P.segment([0, 0, 0], [0, 0, 2], radius=0.25)
    assert seg.dimension == 1 and seg.radius == 0.25 and seg.vertices.tolist() == [[0, 0, 0], [0, 0, 2]]
    tri = P.triangle([0, 0, 0], [1, 0, 0], [0, 1, 0])
    assert tri.dimension == 2 and tri.radius == 0.0
    poly = P.polygon([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0.5, 0.5, 0]], radius=0.1)
    assert poly.dimension == 2 and poly.radius == 0.1
    assert P.from_spec("sphere:1", radius=0.5).radius == 1.5  # added to the spec's own
    assert P.from_points(np.eye(3) * 2, radius=0.2).dimension == 2
    # A rounded segment against a box: distance = gap − radius, exactly as the capsule.
    d = polycd.distance(seg, None, P.box(), Pose([2, 0, 0]))
    assert d.distance == pytest.approx(1.5 - 0.25, abs=1e-12)
    with pytest.raises(polycd.InvalidShapeError, match="segment: the points span a point"):
        P.segment([1, 1, 1], [1, 1, 1])
    with pytest.raises(polycd.InvalidShapeError, match="triangle: the points span a segment"):
        P.triangle([0, 0, 0], [1, 0, 0], [2, 0, 0])
    with pytest.raises(polycd.InvalidShapeError, match="polygon: the points span a solid"):
        P.polygon([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
    with pytest.raises(polycd.InvalidInputError, match="radius"):
        P.box().with_radius(0) and P.from_spec("box:1,1,1", radius=-1)
    with pytest.raises(polycd.InvalidInputError, match="radius"):
        P.point([0, 0, 0], radius=float("nan"))
    with pytest.raises(polycd.InvalidInputError, match="q: values must be finite"):
        P.segment([0, 0, 0], [0, np.inf, 0])


def test_flat_rounded_pairs_equal_the_cli():
    shapes = [
        (P.point([0, 0, 0], radius=0.3), {"vertices": [[0, 0, 0]], "radius": 0.3}),
        (P.segment([0, 0, -1], [0, 0, 1], radius=0.2), {"vertices": [[0, 0, -1], [0, 0, 1]], "radius": 0.2}),
        (P.triangle([0, 0, 0], [1, 0, 0], [0, 1, 0]), {"vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0]]}),
        (P.polygon([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], radius=0.05),
         {"vertices": [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], "radius": 0.05}),
        (P.from_spec("box:1,2,3", radius=0.1), {"shape": "box:1,2,3", "radius": 0.1}),
    ]
    lines, answers = [], []
    for i, row in enumerate(random_rows(75, seed=11, spread=1.5)):
        (sa, ja), (sb, jb) = shapes[i % 5], shapes[(i // 5) % 5]
        q = ["intersect", "distance"][i % 2]
        lines.append({"id": i, "a": ja, "b": jb, "pose_b": pose_obj(row), "query": q})
        answers.append(getattr(polycd, q)(sa, None, sb, Pose.from_row(row)).to_json(id=i))
    assert cli_lines(lines) == answers
    # The shape's own JSON object defines the same shape in a batch.
    for s, _ in shapes:
        line = {"a": json.loads(s.to_json()), "b": {"shape": "icosphere:1"}, "query": "distance",
                "pose_b": {"translation": [3, 0.1, 0]}}
        assert cli_lines([line])[0] == polycd.distance(s, None, P.icosphere(1), Pose([3, 0.1, 0])).to_json()


def test_point_query_and_ray_cast_equal_the_cli():
    shapes = [(P.box(1, 2, 3), {"shape": "box:1,2,3"}),
              (P.ellipsoid(80, 1, 2, 1.5, seed=2), {"shape": "ellipsoid:1,2,1.5:80:2"}),
              (P.segment([0, 0, 0], [1, 0, 0], radius=0.3), {"vertices": [[0, 0, 0], [1, 0, 0]], "radius": 0.3})]
    rng = np.random.default_rng(7)
    rows = random_rows(60, seed=3, spread=1.0)
    lines, answers = [], []
    for i, row in enumerate(rows):
        s, j = shapes[i % 3]
        if i % 2 == 0:
            p = rng.uniform(-2, 2, 3).tolist()
            lines.append({"id": i, "a": j, "pose_a": pose_obj(row), "query": "point", "point": p})
            answers.append(polycd.point_query(s, row, p).to_json(id=i))
        else:
            o = rng.uniform(-4, 4, 3).tolist()
            d = (rng.uniform(-0.5, 0.5, 3) - o).tolist()
            lines.append({"id": i, "a": j, "pose_a": pose_obj(row), "query": "ray", "origin": o, "direction": d})
            answers.append(polycd.ray_cast(s, row, o, d).to_json(id=i))
    assert cli_lines(lines) == answers
    box = P.box(2, 2, 2)
    q = polycd.point_query(box, Pose([1, 0, 0]), [3.5, 0, 0])
    assert q.status == "disjoint" and q.distance == 1.5 and q.point_a.tolist() == [2.0, 0.0, 0.0]
    assert q.features["a"][0] == "face" and q.features["b"] is None
    r = polycd.ray_cast(box, None, [5, 0, 0], [-2, 0, 0])
    assert r.status == "touching" and r.ray["t"] == 2.0 and r.ray["normal"].tolist() == [1.0, 0.0, 0.0]
    inside = polycd.ray_cast(box, None, [0, 0, 0], [1, 0, 0])
    assert inside.status == "overlapping" and inside.ray["t"] == 0.0 and inside.ray["normal"] is None
    assert polycd.ray_cast(box, None, [5, 0, 0], [1, 0, 0]).ray is None
    with pytest.raises(polycd.InvalidInputError, match="direction: a ray needs a non-zero direction"):
        polycd.ray_cast(box, None, [5, 0, 0], [0, 0, 0])
    with pytest.raises(polycd.InvalidInputError, match="point: values must be finite"):
        polycd.point_query(box, None, [np.nan, 0, 0])
    with pytest.raises(polycd.InvalidInputError, match=r"origin: expected 3 numbers"):
        polycd.ray_cast(box, None, [1, 2], [1, 0, 0])


def test_manifold_equals_the_cli():
    a, b = P.box(1, 1, 1), P.ellipsoid(50, 0.6, 0.4, 0.5, seed=9)
    rows = random_rows(40, seed=13, spread=0.9)
    lines, found = [], []
    for i, row in enumerate(rows):
        for margin, reduce in ((0.0, False), (0.2, True)):
            m = polycd.manifold(a, None, b, Pose.from_row(row), margin=margin, reduce=reduce)
            lines.append({"id": len(lines), "a": {"shape": "box:1,1,1"}, "b": {"shape": "ellipsoid:0.6,0.4,0.5:50:9"},
                          "pose_b": pose_obj(row), "query": "manifold", "margin": margin, "reduce": reduce})
            found.append(m)
    out = cli_lines(lines)
    for line, m in zip(out, found):
        if m is None:
            assert '"manifold":null' in line
        else:
            assert '"manifold":' + m.to_json() + "}" in line  # the last key, byte for byte
            if lines[0]["reduce"]:
                assert len(m) <= 4
    assert sum(m is not None for m in found) > 10
    # A box resting on a box: a 4-point face manifold, separations −0.1, ids kept by the cache.
    cache = polycd.ManifoldCache()
    m1 = polycd.manifold(a, None, a, Pose([0, 0, 0.9]), cache=cache)
    m2 = polycd.manifold(a, None, a, Pose([0, 0, 0.89]), cache=cache)
    assert len(m1) == 4 and m1.kind in ("face_a", "face_b") and np.allclose(m1.normal, [0, 0, 1])
    assert np.allclose(m1.separations, -0.1) and np.allclose(m1.points_b - m1.points_a, [0, 0, -0.1])
    assert sorted(m1.ids.tolist()) == sorted(m2.ids.tolist())
    assert m1.points[0]["features"]["a"][0] in ("vertex", "edge", "face")
    assert polycd.manifold(a, None, a, Pose([0, 0, 1.5])) is None
    assert polycd.manifold(a, None, a, Pose([0, 0, 1.05]), margin=0.1) is not None
    with pytest.raises(polycd.InvalidInputError, match="margin"):
        polycd.manifold(a, None, a, None, margin=-1)


def test_toc_equals_the_cli():
    a, b = P.box(1, 1, 1), P.icosphere(1)
    lines, found = [], []
    rows = random_rows(30, seed=17, spread=3)
    for i, row in enumerate(rows):
        t = polycd.toc(a, None, Pose([0, 0, 0]), b, Pose.from_row(row), Pose([0, 0, 0]), threshold=1e-3)
        lines.append({"id": i, "a": {"shape": "box:1,1,1"}, "b": {"shape": "icosphere:1"}, "pose_b": pose_obj(row),
                      "pose_a1": {"translation": [0, 0, 0]}, "pose_b1": {"translation": [0, 0, 0]},
                      "query": "toc", "threshold": 1e-3})
        found.append(t)
    out = cli_lines(lines)
    hits = 0
    for i, (line, t) in enumerate(zip(out, found)):
        if t is None:
            assert '"toc":{"t":null' in line or '"status":"none"' in line
        else:
            hits += 1
            assert t.to_json(id=i) == line
            assert t.distance <= 1e-3 + 1e-12
    assert hits > 5
    # Head-on: unit cubes 10 apart closing at 10/unit time touch at t = 0.9 / ... exactly 0.4.
    t = polycd.toc(a, None, None, a, Pose([5, 0, 0]), Pose([-5, 0, 0]))
    assert t.t == pytest.approx(0.4, abs=1e-6) and len(t.contacts) == 4
    with pytest.raises(polycd.InvalidInputError, match="threshold"):
        polycd.toc(a, None, None, a, Pose([5, 0, 0]), Pose([-5, 0, 0]), threshold=-1.0)
    with pytest.raises(polycd.InvalidInputError, match="not both"):
        polycd.toc(a, None, None, a, Pose([5, 0, 0]), None, threshold=1e-3, distance_threshold=1e-3)
