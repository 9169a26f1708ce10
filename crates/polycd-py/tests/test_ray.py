"""polycd.ray on a local Ray cluster: ≥ 10⁴ lines answered byte for byte as `polycd batch`,
from JSON lines and from Parquet with shapes shipped once per worker.

Runs when Ray is importable; POLYCD_REQUIRE_RAY=1 (set by tools/py-setup.sh when it installed
Ray and pyarrow) makes their absence a failure instead of a skip.
"""

import json
import os

import pytest

from conftest import random_rows, run_batch_cli

if os.environ.get("POLYCD_REQUIRE_RAY") == "1":
    import pyarrow  # noqa: F401
    import ray  # noqa: F401
else:
    ray = pytest.importorskip("ray")
    pytest.importorskip("pyarrow")

import polycd
import polycd.ray


@pytest.fixture(scope="module")
def cluster():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_ray_batch_is_byte_identical_to_the_cli(tmp_path, cluster):

    specs = ["ellipsoid:1,2,3:100:1", "icosphere:1", "box:1,2,3", "sphere:0.7", "cone:8,1,2"]
    rows = random_rows(10_240, seed=21, spread=2.5)
    lines = []
    for i, r in enumerate(rows):
        q = ["intersect", "distance", "directional"][i % 3]
        line = {"id": i, "a": {"shape": specs[i % 5]}, "b": {"shape": specs[(i // 5) % 5]},
                "pose_b": {"translation": list(r[:3]), "rotation": list(r[3:])}, "query": q}
        if q == "directional":
            line["direction"] = [0.2, -1.0, 0.5]
        lines.append(json.dumps(line))
    src = tmp_path / "q.jsonl"
    src.write_text("\n".join(lines) + "\n")
    out = polycd.ray.run_batch(str(src), str(tmp_path / "a.jsonl"), batch_size=1000)
    expected = run_batch_cli(src.read_text())
    assert len(out) == 10_240
    assert (tmp_path / "a.jsonl").read_text() == expected


def test_ray_parquet_with_shipped_shapes_is_byte_identical_to_the_cli(tmp_path, cluster):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from polycd import ConvexPolyhedron as P

    shapes = {
        "rock": P.ellipsoid(100, 1, 2, 3, seed=1),
        "ball": P.from_spec("sphere:0.7"),
        "pill": P.segment([0, 0, -0.5], [0, 0, 0.5], radius=0.3),
    }
    names = list(shapes)
    inline = ['{"shape": "box:1,2,3"}', '{"shape": "cone:8,1,2"}']
    n = 10_240
    rows = random_rows(n, seed=26, spread=2.5)
    cols = {k: [] for k in ("id", "a", "b", "pose_b", "query", "direction", "point", "margin")}
    lines = []
    for i, r in enumerate(rows):
        q = ["intersect", "distance", "directional", "manifold", "point"][i % 5]
        a = '{"ref": "%s"}' % names[i % 3] if i % 4 else inline[i % 2]
        b = '{"ref": "%s"}' % names[(i // 3) % 3] if i % 7 else inline[(i // 7) % 2]
        line = {"id": i, "a": json.loads(a), "b": json.loads(b),
                "pose_b": {"translation": [float(x) for x in r[:3]], "rotation": [float(x) for x in r[3:]]},
                "query": q}
        cols["id"].append(i)
        cols["a"].append(a)
        cols["b"].append(b)
        cols["pose_b"].append([float(x) for x in r])
        cols["query"].append(q)
        d = p = m = None
        if q == "directional":
            d = line["direction"] = [0.2, -1.0, 0.5]
        if q == "point":
            p = line["point"] = [float(x) for x in r[:3] * 0.5]
        if q == "manifold":
            m = line["margin"] = 0.05
        cols["direction"].append(d)
        cols["point"].append(p)
        cols["margin"].append(m)
        lines.append(json.dumps(line))
    table = pa.table({
        "id": pa.array(cols["id"], pa.int64()),
        "a": pa.array(cols["a"], pa.string()),
        "b": pa.array(cols["b"], pa.string()),
        "pose_b": pa.array(cols["pose_b"], pa.list_(pa.float64())),
        "query": pa.array(cols["query"], pa.string()),
        "direction": pa.array(cols["direction"], pa.list_(pa.float64())),
        "point": pa.array(cols["point"], pa.list_(pa.float64())),
        "margin": pa.array(cols["margin"], pa.float64()),
    })
    src = tmp_path / "q.parquet"
    pq.write_table(table, src, row_group_size=2048)
    out = polycd.ray.run_batch(str(src), str(tmp_path / "a.jsonl"), batch_size=1000, shapes=shapes)
    defines = [json.dumps({"define": k, "shape": json.loads(s.to_json())}) for k, s in shapes.items()]
    expected = run_batch_cli("".join(l + "\n" for l in defines + lines)).splitlines()
    assert [json.loads(e)["status"] for e in expected[:3]] == ["defined"] * 3
    expected = expected[3:]
    assert len(out) == n == len(expected)
    assert out == expected
    assert (tmp_path / "a.jsonl").read_text() == "".join(e + "\n" for e in expected)
    statuses = {json.loads(e)["status"] for e in expected}
    assert {"disjoint", "overlapping"} <= statuses and "error" not in statuses


def test_parquet_row_conversion_names_the_row():
    with pytest.raises(ValueError, match="row 3: column 'pose_b': a pose is 7 numbers"):
        polycd.ray.row_to_line({"a": '{"shape": "box"}', "pose_b": [1, 2, 3]}, 3)
    with pytest.raises(ValueError, match="row 0: column 'a': not JSON text"):
        polycd.ray.row_to_line({"a": "{oops"})
    line = json.loads(polycd.ray.row_to_line({"id": 5, "a": '{"ref": "x"}', "pose_a": [1, 2, 3, 1, 0, 0, 0],
                                               "direction": None}))
    assert line == {"id": 5, "a": {"ref": "x"}, "pose_a": {"translation": [1.0, 2.0, 3.0], "rotation": [1.0, 0.0, 0.0, 0.0]}}
