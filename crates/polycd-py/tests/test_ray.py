"""polycd.ray on a local Ray cluster: ≥ 10⁴ lines answered byte for byte as `polycd batch`.

Runs when Ray is importable; POLYCD_REQUIRE_RAY=1 (set by tools/py-setup.sh when it installed
Ray) makes its absence a failure instead of a skip.
"""

import json
import os

import pytest

from conftest import random_rows, run_batch_cli

if os.environ.get("POLYCD_REQUIRE_RAY") == "1":
    import ray  # noqa: F401
else:
    ray = pytest.importorskip("ray")

import polycd
import polycd.ray


def test_ray_batch_is_byte_identical_to_the_cli(tmp_path):
    import ray

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
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    try:
        out = polycd.ray.run_batch(str(src), str(tmp_path / "a.jsonl"), batch_size=1000)
    finally:
        ray.shutdown()
    expected = run_batch_cli(src.read_text())
    assert len(out) == 10_240
    assert (tmp_path / "a.jsonl").read_text() == expected
