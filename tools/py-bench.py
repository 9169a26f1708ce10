#!/usr/bin/env python3
"""Python peers benchmark (not part of CI): polycd vs coal and python-fcl (when importable)
on two 1 000-vertex ellipsoid hulls at random poses: per-call distance latency, vectorised
throughput, and disagreements with polycd's verified answers. Every figure is µs per query,
wall clock and CPU (`time.process_time`, summed over the process's threads: for
`distance_many` on k cores the CPU figure is about k × the wall figure when the cores are
free).

    target/pyenv/bin/pip install coal python-fcl   # optional peers
    target/pyenv/bin/python tools/py-bench.py [--n 20000]
"""

import argparse
import os
import time

# numpy's OpenBLAS worker threads spin for a while after the script's own numpy work; one
# thread keeps that idle spinning out of the CPU figures (they are polycd's and the peers').
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import polycd


def random_rows(n, seed, spread):
    rng = np.random.default_rng(seed)
    t = rng.uniform(-spread, spread, size=(n, 3))
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return np.hstack([t, q])


def quat_to_matrix(q):
    w, x, y, z = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


class Us(float):
    """Wall-clock µs per query, carrying the CPU µs per query (`time.process_time`, all of
    the process's threads) as `.cpu`: on a machine shared with other jobs the wall time
    counts waiting for a core, the CPU time does not."""

    cpu = 0.0

    def __format__(self, spec):
        return f"{float(self):{spec}} wall / {self.cpu:{spec}} CPU"


def timed(f, n):
    c0, t0 = time.process_time(), time.perf_counter()
    out = f()
    us = Us((time.perf_counter() - t0) / n * 1e6)
    us.cpu = (time.process_time() - c0) / n * 1e6
    return out, us


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--vertices", type=int, default=1000)
    args = ap.parse_args()
    n = args.n
    a = polycd.ConvexPolyhedron.ellipsoid(args.vertices, 1.0, 0.6, 0.4, seed=1)
    b = polycd.ConvexPolyhedron.ellipsoid(args.vertices, 0.5, 1.0, 0.7, seed=2)
    rows = random_rows(n, 7, 2.5)
    poses = [polycd.Pose(r[:3], r[3:]) for r in rows]
    print(f"pairs: two {args.vertices}-point ellipsoid hulls ({len(a.vertices)}, {len(b.vertices)} vertices), {n} random poses")
    results = {}
    for algorithm in ("auto", "gjk", "vclip"):
        cache = polycd.PairCache()
        ans, us = timed(lambda: [polycd.distance(a, None, b, p, algorithm=algorithm, cache=cache).signed_distance for p in poses], n)
        print(f"polycd distance per call ({algorithm}, warm cache): {us:.2f} µs")
        ans, us = timed(lambda: [polycd.distance(a, None, b, p, algorithm=algorithm).signed_distance for p in poses], n)
        print(f"polycd distance per call ({algorithm}, cold): {us:.2f} µs")
        # Five calls back to back, the median reported: the first call after a pause often
        # runs on one core while the pool's second thread wakes (the idle vCPU of this VM
        # takes milliseconds to wake; a 5 000-row call lasts ≈ 5 ms), which a dataset job
        # calling in a loop does not see. The first call's figure is printed too.
        reps = [timed(lambda: polycd.distance_many(a, b, rows, algorithm=algorithm), n) for _ in range(5)]
        out, first = reps[0]
        for o, _ in reps[1:]:
            assert np.array_equal(o["signed_distance"], out["signed_distance"], equal_nan=True), "distance_many is not deterministic"
        us = sorted((u for _, u in reps), key=float)[2]
        print(f"polycd distance_many ({algorithm}): {us:.3f} µs per query, median of 5 calls ({1 / us:.2f} M/s wall; CPU summed over threads); first call {first:.3f}")
        results[algorithm] = out
    ref = results["auto"]
    sd = ref["signed_distance"]
    try:
        import coal

        def hull(p):
            v = coal.StdVec_Vec3s()
            for x in p.vertices:
                v.append(x)
            return coal.Convex.convexHull(v, False, None)

        ca, cb = hull(a), hull(b)
        tfs = [coal.Transform3s(quat_to_matrix(r[3:]), r[:3]) for r in rows]
        ident = coal.Transform3s()
        req = coal.DistanceRequest()
        res = coal.DistanceResult()

        def run():
            out = np.empty(n)
            for i, tf in enumerate(tfs):
                res.clear()
                out[i] = coal.distance(ca, ident, cb, tf, req, res)
            return out

        got, us = timed(run, n)
        bad = np.sum((sd > 0) & (np.abs(got - sd) > 1e-6 * (1 + np.abs(sd))))
        print(f"coal {getattr(coal, '__version__', '?')} distance per call: {us:.2f} µs; disagreements on separated pairs (>1e-6 rel): {bad}")
    except ImportError as e:
        print(f"coal: not importable ({e})")
    try:
        import fcl

        def convex(p):
            faces = p.faces
            flat = np.concatenate([[len(f), *f] for f in faces]).astype(np.int32)
            return fcl.Convex(p.vertices, len(faces), flat)

        oa = fcl.CollisionObject(convex(a), fcl.Transform())
        ob = fcl.CollisionObject(convex(b), fcl.Transform())
        tfs = [fcl.Transform(quat_to_matrix(r[3:]), r[:3]) for r in rows]

        def run():
            out = np.empty(n)
            req = fcl.DistanceRequest()
            for i, tf in enumerate(tfs):
                ob.setTransform(tf)
                out[i] = fcl.distance(oa, ob, req, fcl.DistanceResult())
            return out

        got, us = timed(run, n)
        bad = np.sum((sd > 0) & (np.abs(got - sd) > 1e-6 * (1 + np.abs(sd))))
        print(f"python-fcl distance per call: {us:.2f} µs; disagreements on separated pairs (>1e-6 rel): {bad}")
    except ImportError as e:
        print(f"python-fcl: not importable ({e})")


if __name__ == "__main__":
    main()
