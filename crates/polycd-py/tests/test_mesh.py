"""TriMesh (closed meshes and open surfaces) and its queries: every answer equals the line
`polycd batch` writes for the same shapes and poses, byte for byte."""

import json
import pickle

import numpy as np
import pytest

import polycd
from polycd import ConvexPolyhedron as P, Pose, TriMesh
from conftest import REPO, random_rows, run_batch_cli

LID_LESS = str(REPO / "examples" / "lid_less_box.obj")
CUBE_OBJ = str(REPO / "examples" / "cube.obj")
KNOT = "torus-knot:2,3:60,8"

# An L-shaped prism (non-convex): the unit square [0,2]x[0,1] plus [0,1]x[1,2], height 1.
L_XY = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]


def l_prism():
    v = [[x, y, 0.0] for x, y in L_XY] + [[x, y, 1.0] for x, y in L_XY]
    n = len(L_XY)
    bottom = list(reversed(range(n)))  # seen from below: clockwise from above
    top = [n + i for i in range(n)]
    sides = [[i, (i + 1) % n, n + (i + 1) % n, n + i] for i in range(n)]
    return np.array(v), [bottom, top] + sides


def pose_obj(row):
    return {"translation": [float(x) for x in row[:3]], "rotation": [float(x) for x in row[3:]]}


def check_lines(lines, answers):
    """Runs the CLI on the lines; each Python answer's to_json(id=i) must equal its line."""
    expected = run_batch_cli("".join(json.dumps(l) + "\n" for l in lines)).splitlines()
    assert len(expected) == len(answers)
    for i, (e, a) in enumerate(zip(expected, answers)):
        assert a == e, f"line {i}: {lines[i]}"


def test_trimesh_constructors_and_summary():
    v, f = l_prism()
    m = TriMesh.from_mesh(v, f)
    assert m.kind == "mesh" and m.vertices.shape == (12, 3)
    assert m.triangles.shape == (20, 3) and m.triangles.dtype == np.int64
    assert m.volume == pytest.approx(3.0, abs=1e-12)  # three unit cubes
    info = m.info()
    assert info["triangles"] == 20 and info["pieces"] == len(m.pieces) >= 2  # non-convex
    assert sorted(np.concatenate(m.pieces).tolist()) == list(range(20))  # every triangle once
    assert set(m.input_faces.tolist()) == set(range(8))
    knot = TriMesh.from_spec(KNOT)
    assert knot.info()["pieces"] > 10 and knot.info()["hull_tree_nodes"] == 2 * knot.info()["pieces"] - 1
    s = TriMesh.read(LID_LESS, kind="surface")
    assert s.kind == "surface" and s.volume is None and s.info()["open_edges"] == 4
    assert TriMesh.read(CUBE_OBJ).volume == pytest.approx(TriMesh.from_convex(P.read(CUBE_OBJ)).volume)
    assert "TriMesh(kind='mesh'" in repr(m)


def test_trimesh_errors():
    v, f = l_prism()
    with pytest.raises(polycd.InvalidMeshError):
        TriMesh.from_mesh(v, f[:-1])  # one side missing: not closed
    with pytest.raises(polycd.InvalidInputError, match="kind"):
        TriMesh.from_mesh(v, f, kind="solid")
    with pytest.raises(polycd.InvalidInputError, match="vertices: row 3"):
        w = v.copy()
        w[3, 1] = np.nan
        TriMesh.from_mesh(w, f)
    with pytest.raises(polycd.InvalidInputError, match=r"vertices: expected an array of shape \(n, 3\)"):
        TriMesh.from_mesh(v[:, :2], f)
    with pytest.raises(polycd.FileError):
        TriMesh.read("/nonexistent/mesh.obj")
    with pytest.raises(TypeError, match="a: expected a ConvexPolyhedron or a TriMesh, got str"):
        polycd.distance("box", None, P.box(), None)
    with pytest.raises(polycd.UnsupportedError):
        polycd.distance(TriMesh.from_spec(KNOT), None, P.box(), None, algorithm="gjk")
    with pytest.raises(polycd.UnsupportedError):
        polycd.directional(TriMesh.read(LID_LESS, kind="surface"), None, P.box(), None, [1, 0, 0])


def test_trimesh_pickles_to_the_same_answers():
    v, f = l_prism()
    meshes = [TriMesh.from_mesh(v, f), TriMesh.from_spec(KNOT), TriMesh.read(LID_LESS, kind="surface"),
              TriMesh.from_mesh(v, f, kind="surface"), TriMesh.from_spec("box:1,2,3", kind="surface")]
    b = P.ellipsoid(60, 0.5, 0.7, 0.4, seed=3)
    rows = random_rows(12, seed=8, spread=2.5)
    for m in meshes:
        m2 = pickle.loads(pickle.dumps(m))
        assert m2.kind == m.kind and np.array_equal(m2.triangles, m.triangles)
        assert np.array_equal(m2.input_faces, m.input_faces)
        for r in rows:
            assert polycd.distance(m2, None, b, r).to_json() == polycd.distance(m, None, b, r).to_json()


def test_mesh_pairs_equal_the_cli():
    v, f = l_prism()
    l_mesh = TriMesh.from_mesh(v, f)
    knot = TriMesh.from_spec(KNOT)
    surf = TriMesh.read(LID_LESS, kind="surface")
    l_obj = {"kind": "mesh", "vertices": v.tolist(), "faces": f}
    sides = [
        (l_mesh, l_obj),
        (knot, {"kind": "mesh", "shape": KNOT}),
        (surf, {"kind": "surface", "file": LID_LESS}),
        (P.from_spec("icosphere:1"), {"shape": "icosphere:1"}),
    ]
    rows = random_rows(60, seed=26, spread=2.0)
    lines, answers = [], []
    for i, row in enumerate(rows):
        (ma, ja), (mb, jb) = sides[i % 3], sides[(i // 3) % 4]
        q = ["intersect", "distance", "directional"][i % 3]
        if q == "directional" and (ja.get("kind") == "surface" or jb.get("kind") == "surface"):
            q = "distance"
        line = {"id": i, "a": ja, "b": jb, "pose_b": pose_obj(row), "query": q}
        if q == "directional":
            line["direction"] = [0.3, -1.0, 0.2]
            ans = polycd.directional(ma, None, mb, Pose.from_row(row), [0.3, -1.0, 0.2])
        else:
            ans = getattr(polycd, q)(ma, None, mb, Pose.from_row(row))
        lines.append(line)
        answers.append(ans.to_json(id=i))
    statuses = {json.loads(a)["status"] for a in answers}
    assert {"disjoint", "overlapping"} <= statuses  # both sides of contact were asked
    assert any('"kind":"triangle"' in a for a in answers)
    check_lines(lines, answers)
    d = polycd.distance(l_mesh, None, P.box(), Pose([3.5, 0.5, 0.5]))
    assert d.distance == pytest.approx(1.0, abs=1e-12)  # face x = 2 to face x = 3
    assert d.features["a"][0] == "triangle" and not d.has_certificate
    with pytest.raises(polycd.VerificationError, match="no certificate"):
        d.verify()


def test_mesh_point_ray_and_manifold_equal_the_cli():
    v, f = l_prism()
    l_mesh = TriMesh.from_mesh(v, f)
    l_obj = {"kind": "mesh", "vertices": v.tolist(), "faces": f}
    lines, answers = [], []
    rng = np.random.default_rng(4)
    for i in range(20):
        p = rng.uniform(-0.5, 2.5, 3).tolist()
        lines.append({"id": i, "a": l_obj, "query": "point", "point": p})
        answers.append(polycd.point_query(l_mesh, None, p).to_json(id=i))
    for i in range(20, 40):
        o = rng.uniform(-3, 3, 3).tolist()
        d = (np.array([1.0, 0.5, 0.5]) - o).tolist()
        lines.append({"id": i, "a": l_obj, "query": "ray", "origin": o, "direction": d})
        answers.append(polycd.ray_cast(l_mesh, None, o, d).to_json(id=i))
    check_lines(lines, answers)
    inside = polycd.point_query(l_mesh, None, [0.5, 1.5, 0.5])
    assert inside.status == "overlapping" and inside.signed_distance == pytest.approx(-0.5, abs=1e-12)
    hit = polycd.ray_cast(l_mesh, None, [5, 0.5, 0.5], [-1, 0, 0])
    assert hit.ray["t"] == pytest.approx(3.0, abs=1e-12) and hit.ray["normal"][0] == pytest.approx(1.0)
    # Manifolds: a box resting on the L's top face; the CLI's "manifolds" key, exactly.
    box = P.box(1, 1, 1)
    pb = Pose([0.5, 0.5, 1.4])
    ms = polycd.manifold(l_mesh, None, box, pb)
    assert len(ms) >= 1 and all(len(m) >= 3 for m in ms)
    assert all(np.allclose(m.normal, [0, 0, 1]) for m in ms)
    assert np.allclose(np.concatenate([m.separations for m in ms]), -0.1)
    line = {"a": l_obj, "b": {"shape": "box:1,1,1"}, "pose_b": {"translation": [0.5, 0.5, 1.4]}, "query": "manifold"}
    out = json.loads(run_batch_cli(json.dumps(line) + "\n"))
    assert out["manifolds"] == [json.loads(m.to_json()) for m in ms]
    assert "[" + ",".join(m.to_json() for m in ms) + "]" in run_batch_cli(json.dumps(line) + "\n")


def test_mesh_toc_equals_the_cli():
    knot = TriMesh.from_spec(KNOT)
    box = P.box(0.5, 0.5, 0.5)
    ans = polycd.toc(box, Pose([6, 0, 0]), Pose([0, 0, 0]), knot, None)
    assert ans is not None and 0 < ans.t < 1
    line = {"id": 1, "a": {"shape": "box:0.5,0.5,0.5"}, "b": {"kind": "mesh", "shape": KNOT},
            "pose_a": {"translation": [6, 0, 0]}, "pose_a1": {"translation": [0, 0, 0]}, "query": "toc"}
    assert ans.to_json(id=1) + "\n" == run_batch_cli(json.dumps(line) + "\n")
    assert ans.contacts and ans.contacts[0]["a"]["kind"] == "vertex" or ans.contacts[0]["a"]["kind"] in ("edge", "face")
    with pytest.raises(polycd.UnsupportedError):
        polycd.toc(box, Pose([6, 0, 0]), None, TriMesh.read(LID_LESS, kind="surface"), None)
