"""Shared helpers of the polycd Python tests."""

import os
import pathlib
import subprocess

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


def cli_binary():
    """The `polycd` CLI: $POLYCD_BIN, else target/{release,debug}/polycd (built by cargo)."""
    env = os.environ.get("POLYCD_BIN")
    if env:
        return env
    for profile in ("release", "debug"):
        p = REPO / "target" / profile / "polycd"
        if p.exists():
            return str(p)
    pytest.fail("the polycd CLI is not built: run `cargo build -p polycd-cli` or set POLYCD_BIN")


def run_batch_cli(text: str) -> str:
    """`polycd batch` on the lines, its stdout."""
    r = subprocess.run([cli_binary(), "batch"], input=text.encode(), capture_output=True, check=False)
    assert r.returncode in (0, 1), r.stderr.decode()
    return r.stdout.decode()


def random_rows(n, seed=0, spread=2.0):
    """n random poses as rows [tx, ty, tz, qw, qx, qy, qz] (unit quaternions)."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(-spread, spread, size=(n, 3))
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return np.ascontiguousarray(np.hstack([t, q]))


def quat_to_matrix(q):
    """Rotation matrices (n, 3, 3) of unit quaternions (n, 4) [w, x, y, z] (test oracle)."""
    w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], axis=-1),
            np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], axis=-1),
            np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=-1),
        ],
        axis=1,
    )


def rows_to_matrices(rows):
    """(n, 4, 4) homogeneous matrices of rows (n, 7)."""
    m = np.zeros((len(rows), 4, 4))
    m[:, :3, :3] = quat_to_matrix(rows[:, 3:])
    m[:, :3, 3] = rows[:, :3]
    m[:, 3, 3] = 1.0
    return m
