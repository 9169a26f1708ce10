"""Extra analysis of directional answers (only for answers that are not the exact ones)."""
import math
from fractions import Fraction as F

import oracle
from oracle import Pair


def _facets_float(P):
    """candidate normals as float unit vectors with float h (world units)."""
    out = []
    for n in P.normals():
        nn = math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
        h = float(F(P.hM(n), P.D)) / nn
        out.append(((n[0] / nn, n[1] / nn, n[2] / nn), h))
    return out


def line_max_depth(P, d, iv):
    """max over u in [u0,u1] of depth of u*d inside M (float, world units)."""
    fs = _facets_float(P)
    df = [float(x) for x in d]

    def depth(u):
        return min(h - u * (n[0] * df[0] + n[1] * df[1] + n[2] * df[2]) for n, h in fs)

    lo, hi = float(iv[0]), float(iv[1])
    for _ in range(200):
        m1 = lo + (hi - lo) / 3
        m2 = hi - (hi - lo) / 3
        if depth(m1) < depth(m2):
            lo = m1
        else:
            hi = m2
    return max(depth(lo), depth(float(iv[0])), depth(float(iv[1])))


def line_miss_distance(P, d):
    """distance between the line {u d} and M (float): 2-D distance after projecting along d."""
    df = [float(x) for x in d]
    dn = math.sqrt(sum(x * x for x in df))
    e = [x / dn for x in df]
    # orthonormal basis of the plane normal to e
    a = (1.0, 0.0, 0.0) if abs(e[0]) < 0.9 else (0.0, 1.0, 0.0)
    u = oracle.cross(e, a)
    un = math.sqrt(oracle.dot(u, u))
    u = tuple(x / un for x in u)
    v = oracle.cross(e, u)
    D = P.D
    pa = [(float(F(oracle.dot(u, p)) / D) if False else oracle.dot(u, p) / D, oracle.dot(v, p) / D) for p in P.A.vertices]
    pb = [(oracle.dot(u, p) / D, oracle.dot(v, p) / D) for p in P.B.vertices]
    pts = sorted(set((x[0] - y[0], x[1] - y[1]) for x in pa for y in pb))
    hull = _hull2(pts)
    # distance from origin to polygon
    inside = True
    best = float("inf")
    for i in range(len(hull)):
        p, q = hull[i], hull[(i + 1) % len(hull)]
        ex, ey = q[0] - p[0], q[1] - p[1]
        if ex * (-p[1]) - ey * (-p[0]) < 0:
            inside = False
        L = ex * ex + ey * ey
        t = 0.0 if L == 0 else max(0.0, min(1.0, (-p[0] * ex - p[1] * ey) / L))
        cx, cy = p[0] + t * ex, p[1] + t * ey
        best = min(best, math.hypot(cx, cy))
    return 0.0 if inside else best


def _hull2(pts):
    def cr(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cr(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cr(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def sd_at(P, d, t):
    """exact signed distance (float) with B translated by t * d/|d| (translation rounded to floats
    the way a caller would compute it)."""
    df = [float(x) for x in d]
    dn = math.sqrt(sum(x * x for x in df))
    shift = [F(t * x / dn) for x in df]
    # shift in integer units of P: B' = B + shift  ->  M' = M - shift
    A = [tuple(F(c, P.D) for c in p) for p in P.A.vertices]
    B = [tuple(F(p[i], P.D) + shift[i] for i in range(3)) for p in P.B.vertices]
    Q = Pair(A, B)
    r = Q.result(None)
    return r["sd"]
