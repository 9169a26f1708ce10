"""Independent exact oracle for convex polytope pair queries.

All geometry is done exactly: float inputs -> Fraction -> world coordinates (rational
rotation matrix R(q)/|q|^2) -> common denominator -> Python ints.
"""
from fractions import Fraction as F
from math import gcd, sqrt, isqrt
import math


def frac(x):
    return F(x)


def quat_matrix(q):
    """Exact rational rotation matrix of quaternion q=(w,x,y,z) (any non-zero length)."""
    w, x, y, z = (F(c) for c in q)
    n2 = w * w + x * x + y * y + z * z
    if n2 == 0:
        raise ValueError("zero quaternion")
    m = [
        [w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z],
    ]
    return [[e / n2 for e in row] for row in m]


def apply_pose(pts, t=(0, 0, 0), q=(1, 0, 0, 0)):
    R = quat_matrix(q)
    tt = [F(c) for c in t]
    out = []
    for p in pts:
        pf = [F(c) for c in p]
        out.append(tuple(R[i][0] * pf[0] + R[i][1] * pf[1] + R[i][2] * pf[2] + tt[i] for i in range(3)))
    return out


def lcm(a, b):
    return a // gcd(a, b) * b


# ---------- integer vector helpers ----------
def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def neg(a):
    return (-a[0], -a[1], -a[2])


def scal(s, a):
    return (s * a[0], s * a[1], s * a[2])


def canon_dir(v):
    """Primitive integer vector, sign-normalised (first non-zero positive)."""
    g = gcd(gcd(abs(v[0]), abs(v[1])), abs(v[2]))
    v = (v[0] // g, v[1] // g, v[2] // g)
    for c in v:
        if c != 0:
            if c < 0:
                v = neg(v)
            break
    return v


class Degenerate(Exception):
    pass


class Hull:
    """Exact hull of integer points by brute force over triples."""

    def __init__(self, pts):
        pts = list(dict.fromkeys(pts))  # dedupe, keep order
        self.points = pts
        n = len(pts)
        if n < 4:
            raise Degenerate("too few distinct points")
        planes = {}
        for i in range(n):
            pi = pts[i]
            for j in range(i + 1, n):
                dj = sub(pts[j], pi)
                for k in range(j + 1, n):
                    nr = cross(dj, sub(pts[k], pi))
                    if nr == (0, 0, 0):
                        continue
                    off = dot(nr, pi)
                    g = gcd(gcd(gcd(abs(nr[0]), abs(nr[1])), abs(nr[2])), abs(off))
                    key = (nr[0] // g, nr[1] // g, nr[2] // g, off // g)
                    nkey = (-key[0], -key[1], -key[2], -key[3])
                    if key in planes or nkey in planes:
                        continue
                    pos = negs = False
                    for p in pts:
                        s = dot(nr, p) - off
                        if s > 0:
                            pos = True
                        elif s < 0:
                            negs = True
                        if pos and negs:
                            break
                    if pos and negs:
                        planes[key] = None  # mark as seen (not a facet)
                        continue
                    if not pos and not negs:
                        raise Degenerate("flat point set")
                    if pos:
                        key = nkey
                    planes[key] = True
        facets = [k for k, v in planes.items() if v]
        if not facets:
            raise Degenerate("collinear / flat point set")
        self.facets = [((k[0], k[1], k[2]), k[3]) for k in facets]  # outward n, n.x <= off
        # incidence
        inc = []
        for p in pts:
            inc.append(frozenset(fi for fi, (nr, off) in enumerate(self.facets) if dot(nr, p) == off))
        vidx = [i for i in range(n) if len(inc[i]) >= 3]
        self.vertices = [pts[i] for i in vidx]
        vinc = [inc[i] for i in vidx]
        self.vinc = vinc
        edges = []
        for a in range(len(vidx)):
            for b in range(a + 1, len(vidx)):
                if len(vinc[a] & vinc[b]) >= 2:
                    edges.append((a, b))
        self.edges = edges
        V = len(self.vertices)
        E = len(edges)
        Fc = len(self.facets)
        if V - E + Fc != 2:
            raise AssertionError("Euler fails %d %d %d" % (V, E, Fc))
        # facet polygons: vertex list and inward edge normals (in-plane)
        self.fpoly = []
        for fi, (nr, off) in enumerate(self.facets):
            fv = [vi for vi in range(V) if fi in vinc[vi]]
            fe = [(a, b) for (a, b) in edges if fi in vinc[a] and fi in vinc[b]]
            cons = []
            for (a, b) in fe:
                u, v = self.vertices[a], self.vertices[b]
                m = cross(nr, sub(v, u))
                # pick a facet vertex not on this edge
                for w in fv:
                    if w != a and w != b:
                        s = dot(m, sub(self.vertices[w], u))
                        if s != 0:
                            if s < 0:
                                m = neg(m)
                            break
                cons.append((m, dot(m, u)))  # inside: m.p >= c
            self.fpoly.append((fv, cons))
        self.edge_dirs = set(canon_dir(sub(self.vertices[b], self.vertices[a])) for a, b in edges)

    def support_max(self, n):
        return max(dot(n, v) for v in self.vertices)

    def support_min(self, n):
        return min(dot(n, v) for v in self.vertices)

    def in_facet_prism(self, fi, p):
        for m, c in self.fpoly[fi][1]:
            if dot(m, p) < c:
                return False
        return True


def seg_point_d2(p, a, b):
    """Exact squared distance point p to closed segment [a,b] (ints) -> Fraction, param."""
    d = sub(b, a)
    w = sub(p, a)
    dd = dot(d, d)
    t = dot(w, d)
    if t <= 0:
        return F(dot(w, w)), F(0)
    if t >= dd:
        e = sub(p, b)
        return F(dot(e, e)), F(1)
    # |w|^2 - t^2/dd
    return F(dot(w, w) * dd - t * t, dd), F(t, dd)


def seg_seg_d2(p0, p1, q0, q1):
    """Exact squared distance between closed segments; returns (d2, s, t)."""
    u = sub(p1, p0)
    v = sub(q1, q0)
    w = sub(p0, q0)
    uu, vv, uv, uw, vw = dot(u, u), dot(v, v), dot(u, v), dot(u, w), dot(v, w)
    best = None
    det = uv * uv - uu * vv  # = -(uu vv - uv^2)
    if det != 0:
        sn = uw * vv - uv * vw
        tn = uv * uw - uu * vw
        s = F(sn, det)
        t = F(tn, det)
        if 0 <= s <= 1 and 0 <= t <= 1:
            dx = [w[i] + s * u[i] - t * v[i] for i in range(3)]
            best = (dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2], s, t)
    for cand in (
        (lambda r: (r[0], F(0), r[1]))(seg_point_d2(p0, q0, q1)),
        (lambda r: (r[0], F(1), r[1]))(seg_point_d2(p1, q0, q1)),
        (lambda r: (r[0], r[1], F(0)))(seg_point_d2(q0, p0, p1)),
        (lambda r: (r[0], r[1], F(1)))(seg_point_d2(q1, p0, p1)),
    ):
        if best is None or cand[0] < best[0]:
            best = cand
    return best


def fsqrt(x):
    """sqrt of a non-negative Fraction, correctly-ish rounded to float (rel err ~1e-16)."""
    if x == 0:
        return 0.0
    # scale to get ~60 bits precision via isqrt
    num, den = x.numerator, x.denominator
    # sqrt(num/den) = sqrt(num*den)/den
    k = max(0, 200 - (num * den).bit_length())
    k += k & 1
    r = isqrt((num * den) << k)
    return float(F(r, den << (k // 2)))


class Pair:
    """Exact analysis of A (world points) vs B (world points), both lists of Fraction triples."""

    def __init__(self, A, B):
        D = 1
        for p in list(A) + list(B):
            for c in p:
                D = lcm(D, F(c).denominator)
        self.D = D
        Ai = [tuple(int(F(c) * D) for c in p) for p in A]
        Bi = [tuple(int(F(c) * D) for c in p) for p in B]
        self.A = Hull(Ai)
        self.B = Hull(Bi)
        self._normals = None

    def normals(self):
        if self._normals is None:
            ns = set()
            for nr, _ in self.A.facets:
                ns.add(canon_dir(nr))
            for nr, _ in self.B.facets:
                ns.add(canon_dir(nr))
            for ea in self.A.edge_dirs:
                for eb in self.B.edge_dirs:
                    c = cross(ea, eb)
                    if c != (0, 0, 0):
                        ns.add(canon_dir(c))
            out = []
            for n in ns:
                out.append(n)
                out.append(neg(n))
            self._normals = out
        return self._normals

    def hM(self, n):
        return self.A.support_max(n) - self.B.support_min(n)

    def status(self):
        """-1 disjoint, 0 touching, +1 overlapping (exact)."""
        if hasattr(self, "_status"):
            return self._status
        anyzero = False
        st = 1
        for n in self.normals():
            h = self.hM(n)
            if h < 0:
                st = -1
                break
            if h == 0:
                anyzero = True
        if st == 1 and anyzero:
            st = 0
        self._status = st
        return st

    def distance2(self):
        """Exact squared distance (in integer units; divide by D^2). Returns (d2, pa, pb)."""
        A, B = self.A, self.B
        best = None
        for (a0, a1) in A.edges:
            p0, p1 = A.vertices[a0], A.vertices[a1]
            for (b0, b1) in B.edges:
                q0, q1 = B.vertices[b0], B.vertices[b1]
                d2, s, t = seg_seg_d2(p0, p1, q0, q1)
                if best is None or d2 < best[0]:
                    pa = tuple(p0[i] + s * (p1[i] - p0[i]) for i in range(3))
                    pb = tuple(q0[i] + t * (q1[i] - q0[i]) for i in range(3))
                    best = (d2, pa, pb)
        for (X, Y, flip) in ((A, B, False), (B, A, True)):
            for v in X.vertices:
                for fi, (nr, off) in enumerate(Y.facets):
                    s = dot(nr, v) - off
                    if s <= 0:
                        continue
                    if not Y.in_facet_prism(fi, v):
                        continue
                    nn = dot(nr, nr)
                    d2 = F(s * s, nn)
                    if best is None or d2 < best[0]:
                        proj = tuple(v[i] - F(s * nr[i], nn) for i in range(3))
                        best = (d2, proj, v) if flip else (d2, v, proj)
        return best

    def check_distance_certificate(self, pa, pb):
        """n = pb - pa must separate: max_A n.x <= n.pa and min_B n.x >= n.pb."""
        n = tuple(pb[i] - pa[i] for i in range(3))
        den = 1
        for c in n:
            den = lcm(den, F(c).denominator)
        ni = tuple(int(c * den) for c in n)
        return self.A.support_max(ni) <= dot(ni, pa) * 1 and self.B.support_min(ni) >= dot(ni, pb)

    def depth(self):
        """Exact penetration depth^2 as Fraction (integer units) and the normal."""
        best = None
        for n in self.normals():
            h = self.hM(n)
            if h < 0:
                return None
            v = F(h * h, dot(n, n))
            if best is None or v < best[0]:
                best = (v, n, h)
        return best

    def directional_interval(self, d):
        """d: Fraction triple. returns (u0,u1) with {u : u d in M} or None. Units: u unitless."""
        den = 1
        for c in d:
            den = lcm(den, F(c).denominator)
        di = tuple(int(F(c) * den) for c in d)  # u*d = (u/den) * di ; work with u' = u/den
        lo, hi = None, None
        for n in self.normals():
            h = self.hM(n)
            nd = dot(n, di)
            if nd == 0:
                if h < 0:
                    return None
                continue
            b = F(h, nd)
            if nd > 0:
                if hi is None or b < hi:
                    hi = b
            else:
                if lo is None or b > lo:
                    lo = b
            if lo is not None and hi is not None and lo > hi:
                return None
        # u' in [lo,hi] ; actual coordinates are integer units, u'*di in D-units.
        # s = u' * di / D  (world) and d = di/den  -> u (multiple of d) = u' * den / D
        scale = F(den, self.D)
        return (lo * scale, hi * scale)

    # ------------ world-unit results --------------
    def result(self, direction=None):
        r = {}
        st = self.status()
        r["status"] = st
        D = self.D
        if st < 0:
            d2, pa, pb = self.distance2()
            assert self.check_distance_certificate(pa, pb), "distance certificate failed"
            r["dist2"] = F(d2) / (D * D)
            r["distance"] = fsqrt(r["dist2"])
            r["sd"] = r["distance"]
        elif st == 0:
            r["dist2"] = F(0)
            r["distance"] = 0.0
            r["sd"] = 0.0
        else:
            v, n, h = self.depth()
            r["depth2"] = v / (D * D)
            r["sd"] = -fsqrt(r["depth2"])
            r["distance"] = 0.0
        if direction is not None:
            iv = self.directional_interval(direction)
            dn = fsqrt(sum(F(c) ** 2 for c in direction))
            r["dir_interval"] = iv
            if iv is None:
                r["dir"] = None
                r["dir_alt"] = None
            else:
                u0, u1 = iv
                if st == 0:
                    r["dir"] = 0.0
                    r["dir_alt"] = None
                elif st < 0:
                    assert not (u0 <= 0 <= u1)
                    u = u0 if u0 > 0 else u1
                    r["dir"] = float(u) * dn
                    r["dir_alt"] = None
                else:
                    assert u0 < 0 < u1
                    if -u0 < u1:
                        r["dir"], r["dir_alt"] = float(u0) * dn, None
                    elif -u0 > u1:
                        r["dir"], r["dir_alt"] = float(u1) * dn, None
                    else:
                        r["dir"], r["dir_alt"] = float(u0) * dn, float(u1) * dn
        return r

    # ------------ point membership -----------------
    def point_dist2(self, which, p):
        """Exact squared distance (world units) of world point p (float triple) to hull A or B."""
        H = self.A if which == "a" else self.B
        D = self.D
        pi = tuple(F(c) * D for c in p)
        outside = False
        for nr, off in H.facets:
            if dot(nr, pi) > off:
                outside = True
                break
        if not outside:
            return F(0)
        best = None
        for (a, b) in H.edges:
            d2, _ = seg_point_d2_frac(pi, H.vertices[a], H.vertices[b])
            if best is None or d2 < best:
                best = d2
        for fi, (nr, off) in enumerate(H.facets):
            s = dot(nr, pi) - off
            if s <= 0:
                continue
            if all(dot(m, pi) >= c for m, c in H.fpoly[fi][1]):
                d2 = s * s / dot(nr, nr)
                if d2 < best:
                    best = d2
        return best / (D * D)


def seg_point_d2_frac(p, a, b):
    d = sub(b, a)
    w = tuple(p[i] - a[i] for i in range(3))
    dd = dot(d, d)
    t = dot(w, d)
    if t <= 0:
        return dot(w, w), 0
    if t >= dd:
        e = tuple(p[i] - b[i] for i in range(3))
        return dot(e, e), 1
    return dot(w, w) - t * t / dd, t / dd


def local_scale(pts):
    """(radius about AABB centre, magnitude) of float local points."""
    lo = [min(p[i] for p in pts) for i in range(3)]
    hi = [max(p[i] for p in pts) for i in range(3)]
    c = [(lo[i] + hi[i]) / 2 for i in range(3)]
    r = max(math.dist(p, c) for p in pts)
    mag = max(abs(x) for p in pts for x in p)
    return c, r, mag


def to_float_rot(q):
    w, x, y, z = q
    n = math.sqrt(w * w + x * x + y * y + z * z)
    return (w / n, x / n, y / n, z / n)


def fpose(p, t, q):
    w, x, y, z = to_float_rot(q)
    R = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ]
    return [sum(R[i][j] * p[j] for j in range(3)) + t[i] for i in range(3)]


def pair_scale(ptsA, tA, qA, ptsB, tB, qB):
    ca, ra, ma = local_scale(ptsA)
    cb, rb, mb = local_scale(ptsB)
    wa = fpose(ca, tA, qA)
    wb = fpose(cb, tB, qB)
    return ra + rb + math.dist(wa, wb) + max(ma, mb) + max(max(abs(c) for c in tA), max(abs(c) for c in tB))
