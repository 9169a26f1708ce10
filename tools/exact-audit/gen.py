"""Seeded case generators. A case is a dict:
  a, b: JSON shape spec; A, B: local float vertices (for the oracle; None when not exact)
  pa, pb: (t, q) or None; dir: direction or None; tag: sub-family label
"""
import math
import random

ALGOS = ["auto", "gjk", "vclip", "cd_dual", "hs_jump", "qp", "qp_fast"]
QUESTIONS = ["intersect", "distance", "directional"]

INT_QUATS = [(1, 1, 0, 0), (1, 2, 3, 4), (3, 4, 0, 0), (0, 0, 0, 1), (1, 0, 0, 1), (0, 1, 0, 0),
             (2, -1, 5, 3), (1, 1, 1, 1), (0, 1, 1, 0), (4, 0, 3, 0), (5, -2, 1, 7), (1, 0, 0, 0),
             (2.0, 0, 0, 0)]


# ------------------------------------------------------------------ shapes (float replicas)
def cuboid(x, y, z):
    h = (x * 0.5, y * 0.5, z * 0.5)
    return [((h[0] if i & 1 else -h[0]), (h[1] if i & 2 else -h[1]), (h[2] if i & 4 else -h[2])) for i in range(8)]


def octahedron(r=1.0):
    return [(r, 0.0, 0.0), (-r, 0.0, 0.0), (0.0, r, 0.0), (0.0, -r, 0.0), (0.0, 0.0, r), (0.0, 0.0, -r)]


def tetrahedron(r=1.0):
    s = r / math.sqrt(3.0)
    return [(s, s, s), (s, -s, -s), (-s, s, -s), (-s, -s, s)]


def icosahedron(r=1.0):
    phi = (1.0 + math.sqrt(5.0)) / 2.0
    pts = []
    for a in (-1.0, 1.0):
        for b in (-phi, phi):
            pts += [(0.0, a, b), (a, b, 0.0), (b, 0.0, a)]
    out = []
    for p in pts:
        l = math.sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2])
        rl = 1.0 / l
        out.append(tuple((c * rl) * r for c in p))
    return out


def prism(n, r, h):
    pts = []
    for i in range(n):
        t = math.tau * i / n
        s, c = math.sin(t), math.cos(t)
        pts.append((r * c, r * s, -0.5 * h))
        pts.append((r * c, r * s, 0.5 * h))
    return pts


# ------------------------------------------------------------------ random helpers
def rand_quat(rng):
    k = rng.random()
    if k < 0.25:
        return (1.0, 0.0, 0.0, 0.0)
    if k < 0.6:
        return tuple(float(c) for c in rng.choice(INT_QUATS))
    q = [rng.gauss(0, 1) for _ in range(4)]
    if rng.random() < 0.5:
        n = math.sqrt(sum(c * c for c in q))
        q = [c / n for c in q]
    return tuple(q)


def rand_trans(rng, size=1.0):
    k = rng.random()
    if k < 0.3:
        return (0.0, 0.0, 0.0)
    if k < 0.7:
        return tuple(rng.randint(-8, 8) * size / 4 for _ in range(3))
    if k < 0.85:
        return tuple(rng.uniform(-3, 3) * size for _ in range(3))
    return tuple(1e6 + rng.randint(-8, 8) * size / 4 for _ in range(3))


def rand_dir(rng):
    k = rng.random()
    if k < 0.3:
        d = [0, 0, 0]
        d[rng.randrange(3)] = rng.choice([-1, 1]) * rng.choice([1, 2, 0.5, 3])
        return tuple(float(c) for c in d)
    if k < 0.6:
        while True:
            d = tuple(float(rng.randint(-3, 3)) for _ in range(3))
            if any(d):
                return d
    return tuple(rng.gauss(0, 1) * rng.choice([1, 1e-3, 1e3]) for _ in range(3))


def dyadic(rng, lo, hi, bits=2):
    return rng.randint(lo * (1 << bits), hi * (1 << bits)) / (1 << bits)


def rand_cloud(rng, n, span=4, bits=1):
    return [tuple(dyadic(rng, -span, span, bits) for _ in range(3)) for _ in range(n)]


def centroid(pts):
    return tuple(sum(p[i] for p in pts) / len(pts) for i in range(3))


def pose_json(t, q):
    return {"translation": list(t), "rotation": list(q)}


def verts_json(pts):
    return {"vertices": [list(p) for p in pts]}


def case(A, B, pa=None, pb=None, d=None, tag="", a=None, b=None):
    return {"a": a if a is not None else verts_json(A), "b": b if b is not None else verts_json(B),
            "A": A, "B": B, "pa": pa, "pb": pb, "dir": d, "tag": tag}


def scale_pts(pts, s):
    return [tuple(c * s for c in p) for p in pts]


def shift_pts(pts, v):
    return [tuple(p[i] + v[i] for i in range(3)) for p in pts]


# ------------------------------------------------------------------ offsets along a direction
def offset_cases(rng, A, B, pa, pb, tag, n_each=1):
    """B placed along a random direction near exact contact, deep, far, using the oracle."""
    from oracle import Pair, apply_pose
    from fractions import Fraction as F
    out = []
    ta, qa = pa
    tb, qb = pb
    d = rand_dir(rng)
    try:
        P = Pair(apply_pose(A, ta, qa), apply_pose(B, tb, qb))
    except Exception:
        return out
    iv = P.directional_interval(d)
    if iv is None:
        out.append(case(A, B, pa, pb, d, tag + ":miss"))
        return out
    u0, u1 = iv
    for kind in ("contact", "near+", "near-", "deep", "far", "exit"):
        if kind == "contact":
            u = u0
        elif kind == "near+":
            u = u0 - (u1 - u0) * F(rng.choice([1e-3, 1e-9, 1e-12]))
        elif kind == "near-":
            u = u0 + (u1 - u0) * F(rng.choice([1e-3, 1e-9, 1e-12]))
        elif kind == "deep":
            u = u0 + (u1 - u0) * F(rng.choice([0.3, 0.45, 0.6, 0.7]))
        elif kind == "far":
            u = u0 - (u1 - u0) * rng.choice([1, 3])
        else:
            u = u1
        # translate B by u*d (rounded to floats) -> pose_b translation
        nt = tuple(float(F(tb[i]) + u * F(d[i])) for i in range(3))
        dd = rand_dir(rng) if rng.random() < 0.5 else tuple(-c for c in d)
        out.append(case(A, B, pa, (nt, qb), dd, tag + ":" + kind))
    return out


# ------------------------------------------------------------------ families
def fam_tetra(rng, n):
    T = [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
    cases = []
    I = ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0))
    # Jin et al. examples
    cases.append(case(T, shift_pts(T, (1, 0, 0)), None, None, (-1.0, 0.0, 0.0), "jin:touch"))
    cases.append(case(T, shift_pts(T, (2, 0, 0)), None, None, (-1.0, 0.0, 0.0), "jin:dist1"))
    cases.append(case(T, T, None, ((1.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0)), (1.0, 0.0, 0.0), "jin:touch-pose"))
    cases.append(case(T, T, None, ((2.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0)), (-1.0, 0.0, 0.0), "jin:dist1-pose"))
    while len(cases) < n:
        A = T if rng.random() < 0.3 else rand_cloud(rng, 4, 3, 1)
        B = T if rng.random() < 0.3 else rand_cloud(rng, 4, 3, 1)
        pa = (rand_trans(rng), rand_quat(rng))
        pb = (rand_trans(rng), rand_quat(rng))
        if rng.random() < 0.5:
            cases.append(case(A, B, pa, pb, rand_dir(rng), "tetra:rand"))
        else:
            cases += offset_cases(rng, A, B, pa, pb, "tetra")
    return cases


def fam_box(rng, n):
    cases = []
    while len(cases) < n:
        dims = [tuple(rng.choice([0.5, 1.0, 2.0, 3.0, 0.25, 1.5]) for _ in range(3)) for _ in range(2)]
        if rng.random() < 0.5:
            a = {"shape": "box:%r,%r,%r" % dims[0]}
            A = cuboid(*dims[0])
        else:
            A = cuboid(*dims[0])
            a = None
        B = cuboid(*dims[1])
        b = {"shape": "box:%r,%r,%r" % dims[1]} if rng.random() < 0.5 else None
        if rng.random() < 0.15:
            A, a = cuboid(1, 1, 1), {"shape": "cube"}
        pa = (rand_trans(rng), rand_quat(rng))
        pb = (rand_trans(rng), rand_quat(rng))
        k = rng.random()
        if k < 0.3:
            # axis-aligned flush / gaps
            pa = ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0))
            ax = rng.randrange(3)
            t = [rng.randint(-4, 4) / 4 for _ in range(3)]
            gap = rng.choice([0, 0, 0, 1e-3, -1e-3, 1e-9, -1e-9, 1e-12, -1e-12, 0.5, -0.25])
            t[ax] = rng.choice([-1, 1]) * ((dims[0][ax] + dims[1][ax]) / 2 + gap)
            pb = (tuple(t), (1.0, 0.0, 0.0, 0.0))
            cases.append(case(A, B, pa, pb, rand_dir(rng), "box:axis", a, b))
        elif k < 0.6:
            cases.append(case(A, B, pa, pb, rand_dir(rng), "box:rand", a, b))
        else:
            for c in offset_cases(rng, A, B, pa, pb, "box"):
                c["a"] = a if a is not None else c["a"]
                c["b"] = b if b is not None else c["b"]
                cases.append(c)
    return cases


def fam_octa(rng, n):
    cases = []
    while len(cases) < n:
        ra = rng.choice([1.0, 2.0, 0.5, 1.5])
        rb = rng.choice([1.0, 2.0, 0.5, 3.0])
        A = octahedron(ra)
        B = octahedron(rb) if rng.random() < 0.7 else cuboid(1, 1, 1)
        a = {"shape": "octahedron:%r" % ra} if rng.random() < 0.5 else None
        b = None
        pa = (rand_trans(rng), rand_quat(rng))
        pb = (rand_trans(rng), rand_quat(rng))
        k = rng.random()
        if k < 0.3:
            # vertex-vertex / vertex-face contacts axis-aligned
            pa = ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0))
            ax = rng.randrange(3)
            t = [0.0, 0.0, 0.0]
            gap = rng.choice([0, 0, 1e-3, -1e-3, 1e-9, -1e-9, 1e-12, -1e-12])
            ext_b = rb if len(B) == 6 else 0.5
            t[ax] = ra + ext_b + gap
            if rng.random() < 0.5:
                # shift sideways: vertex of A touching face/edge of B or vv off-center
                t[(ax + 1) % 3] = rng.choice([0.0, 0.25, 0.5])
                if len(B) == 6:
                    t[ax] = ra + rb - abs(t[(ax + 1) % 3]) + gap  # vertex of A on edge/face of B
            pb = (tuple(t), (1.0, 0.0, 0.0, 0.0))
            cases.append(case(A, B, pa, pb, rand_dir(rng), "octa:axis", a, b))
        elif k < 0.6:
            cases.append(case(A, B, pa, pb, rand_dir(rng), "octa:rand", a, b))
        else:
            for c in offset_cases(rng, A, B, pa, pb, "octa"):
                if a is not None:
                    c["a"] = a
                cases.append(c)
    return cases


def fam_hull(rng, n):
    cases = []
    while len(cases) < n:
        def cloud():
            m = rng.randint(4, 20)
            pts = rand_cloud(rng, m, rng.choice([2, 4, 8]), rng.choice([0, 1, 3]))
            if rng.random() < 0.4:
                pts += [rng.choice(pts) for _ in range(rng.randint(1, 3))]  # duplicates
            if rng.random() < 0.4:
                c = centroid(pts)
                pts.append(tuple(float(x) for x in c))  # interior point
            rng.shuffle(pts)
            return pts
        A, B = cloud(), cloud()
        pa = (rand_trans(rng), rand_quat(rng))
        pb = (rand_trans(rng), rand_quat(rng))
        if rng.random() < 0.3:
            cases.append(case(A, B, pa, pb, rand_dir(rng), "hull:rand"))
        else:
            cases += offset_cases(rng, A, B, pa, pb, "hull")
    return cases


def fam_thin(rng, n):
    """needles and slabs with aspect 1e3..1e6"""
    cases = []
    while len(cases) < n:
        def thin():
            asp = rng.choice([1e3, 1e4, 1e5, 1e6, 2.0 ** 10, 2.0 ** 20])
            kind = rng.random()
            L = rng.choice([1.0, 2.0, 8.0])
            w = L / asp
            if kind < 0.5:  # needle: box L x w x w or tetra-ish needle
                if rng.random() < 0.5:
                    return cuboid(L, w, w)
                return [(-L / 2, 0.0, 0.0), (L / 2, 0.0, 0.0), (0.0, w, 0.0), (0.0, 0.0, w), (0.0, -w, -w)]
            else:  # slab
                if rng.random() < 0.5:
                    return cuboid(L, L, w)
                return [(-L, -L, 0.0), (L, -L, 0.0), (0.0, L, 0.0), (0.0, 0.0, w), (0.0, 0.0, -w)]
        A, B = thin(), thin()
        pa = (rand_trans(rng), rand_quat(rng))
        pb = (rand_trans(rng), rand_quat(rng))
        if rng.random() < 0.3:
            cases.append(case(A, B, pa, pb, rand_dir(rng), "thin:rand"))
        else:
            cases += offset_cases(rng, A, B, pa, pb, "thin")
    return cases


def fam_prism(rng, n):
    cases = []
    while len(cases) < n:
        def tri():
            pts = [tuple(dyadic(rng, -2, 2, 1) for _ in range(2)) for _ in range(3)]
            h = rng.choice([0.5, 1.0, 4.0])
            return [(p[0], p[1], z) for p in pts for z in (-h / 2, h / 2)]
        A = tri()
        B = tri() if rng.random() < 0.7 else rand_cloud(rng, 6, 2, 1)
        pa = (rand_trans(rng), rand_quat(rng))
        pb = (rand_trans(rng), rand_quat(rng))
        if rng.random() < 0.3:
            cases.append(case(A, B, pa, pb, rand_dir(rng), "prism:rand"))
        else:
            cases += offset_cases(rng, A, B, pa, pb, "prism")
    return cases


def common_pose(rng):
    q = rand_quat(rng)
    k = rng.random()
    if k < 0.4:
        t = (0.0, 0.0, 0.0)
    elif k < 0.75:
        t = tuple(float(rng.randint(-5, 5)) for _ in range(3))
    else:
        t = tuple(1e6 + rng.randint(-5, 5) for _ in range(3))
    return (t, q)


def fam_contact(rng, n):
    """exact contact constructions in a frame where the contact plane is z = h; both shapes
    then get the same pose (exact contact is preserved exactly)."""
    cases = []
    kinds = ["face-face", "edge-edge", "vertex-face", "edge-face", "vertex-vertex", "vertex-edge", "edge-edge-par"]
    while len(cases) < n:
        kind = rng.choice(kinds)
        h = float(rng.randint(-2, 2))
        def below(m, span=2):
            return [(dyadic(rng, -span, span, 1), dyadic(rng, -span, span, 1), h - dyadic(rng, 1, 3, 1)) for _ in range(m)]
        def above(m, span=2):
            return [(dyadic(rng, -span, span, 1), dyadic(rng, -span, span, 1), h + dyadic(rng, 1, 3, 1)) for _ in range(m)]
        def ontri(span=2):
            while True:
                tri = [(dyadic(rng, -span, span, 1), dyadic(rng, -span, span, 1), h) for _ in range(3)]
                ax, ay = tri[1][0] - tri[0][0], tri[1][1] - tri[0][1]
                bx, by = tri[2][0] - tri[0][0], tri[2][1] - tri[0][1]
                if ax * by - ay * bx != 0:
                    return tri
        def seg(span=2):
            while True:
                s = [(dyadic(rng, -span, span, 1), dyadic(rng, -span, span, 1), h) for _ in range(2)]
                if s[0] != s[1]:
                    return s
        if kind == "face-face":
            A = ontri() + (ontri() if rng.random() < 0.5 else []) + below(rng.randint(1, 4))
            B = ontri() + above(rng.randint(1, 4))
        elif kind == "edge-edge":
            sa = seg()
            # B edge crossing sa's midpoint
            mx, my = (sa[0][0] + sa[1][0]) / 2, (sa[0][1] + sa[1][1]) / 2
            dx, dy = rng.choice([(1, 0), (0, 1), (1, 1), (1, -1), (2, 1), (1, 3)])
            sc = rng.choice([0.5, 1.0, 2.0])
            sb = [(mx - dx * sc, my - dy * sc, h), (mx + dx * sc * rng.choice([1, 0.5]), my + dy * sc * rng.choice([1, 0.5]), h)]
            A = sa + below(rng.randint(2, 4))
            B = sb + above(rng.randint(2, 4))
        elif kind == "edge-edge-par":
            sa = seg()
            ex, ey = sa[1][0] - sa[0][0], sa[1][1] - sa[0][1]
            sh = rng.choice([0.25, 0.5, 1.5])
            sb = [(sa[0][0] + ex * sh, sa[0][1] + ey * sh, h), (sa[0][0] + ex * (sh + 1), sa[0][1] + ey * (sh + 1), h)]
            A = sa + below(rng.randint(2, 4))
            B = sb + above(rng.randint(2, 4))
        elif kind == "vertex-face":
            tri = ontri()
            w = [rng.randint(1, 3) for _ in range(3)]
            s = sum(w)
            # barycentric with denominator s may not be dyadic; use s in {3,4}: choose weights summing to 4
            w = rng.choice([(1, 1, 2), (2, 1, 1), (1, 2, 1), (1, 1, 0), (2, 2, 0), (4, 0, 0)])
            vx = sum(w[i] * tri[i][0] for i in range(3)) / 4
            vy = sum(w[i] * tri[i][1] for i in range(3)) / 4
            A = tri + below(rng.randint(1, 4))
            B = [(vx, vy, h)] + above(rng.randint(3, 4))
        elif kind == "edge-face":
            tri = ontri()
            c = ((tri[0][0] + tri[1][0] + tri[2][0]) / 4 + tri[0][0] / 4, (tri[0][1] + tri[1][1] + tri[2][1]) / 4 + tri[0][1] / 4)
            # segment through interior-ish point c, short
            e = (rng.choice([-1, 1]) * 0.125, rng.choice([-1, 0, 1]) * 0.125)
            A = tri + below(rng.randint(1, 4))
            B = [(c[0] - e[0], c[1] - e[1], h), (c[0] + e[0], c[1] + e[1], h)] + above(rng.randint(2, 4))
        elif kind == "vertex-vertex":
            v = (dyadic(rng, -2, 2, 1), dyadic(rng, -2, 2, 1), h)
            A = [v] + below(rng.randint(3, 5))
            B = [v] + above(rng.randint(3, 5))
        else:  # vertex-edge
            sa = seg()
            v = ((sa[0][0] + sa[1][0]) / 2, (sa[0][1] + sa[1][1]) / 2, h)
            A = sa + below(rng.randint(2, 4))
            B = [v] + above(rng.randint(3, 4))
        gap = rng.choice([0.0, 0.0, 0.0, 1e-3, -1e-3, 1e-9, -1e-9, 1e-12, -1e-12])
        if gap:
            B = [(p[0], p[1], p[2] + gap) for p in B]
        s = rng.choice([1.0, 1.0, 2.0 ** -20, 2.0 ** 20, 2.0 ** -10, 1e-6, 1e6])
        if s != 1.0:
            A, B = scale_pts(A, s), scale_pts(B, s)
        pose = common_pose(rng)
        if rng.random() < 0.3:
            # B in its own frame shifted by an exact dyadic offset, compensated by the translation
            # (only exact without rotation)
            off = (float(rng.randint(-3, 3)), float(rng.randint(-3, 3)), 0.0)
            if pose[1] == (1.0, 0.0, 0.0, 0.0) and max(abs(c) for c in pose[0]) < 1e3:
                B = shift_pts(B, off)
                pb = (tuple(pose[0][i] - off[i] for i in range(3)), pose[1])
                cases.append(case(A, B, pose, pb, rand_dir(rng), "contact:%s:%g:%g" % (kind, gap, s)))
                continue
        d = rand_dir(rng) if rng.random() < 0.5 else (0.0, 0.0, -1.0)
        cases.append(case(A, B, pose, pose, d, "contact:%s:%g:%g" % (kind, gap, s)))
    return cases


def fam_directional(rng, n):
    """directional specials: grazing along faces/edges, parallel to a face, non-unit."""
    cases = []
    while len(cases) < n:
        k = rng.random()
        A = cuboid(*[rng.choice([1.0, 2.0]) for _ in range(3)])
        B = cuboid(*[rng.choice([1.0, 0.5]) for _ in range(3)]) if rng.random() < 0.6 else octahedron(1.0)
        hb = [max(abs(p[i]) for p in B) for i in range(3)]
        ha = [max(abs(p[i]) for p in A) for i in range(3)]
        # B on the y side, flush (grazing plane y = ha+hb), moving along x
        gap = rng.choice([0.0, 0.0, 1e-9, -1e-9, 0.25, -0.25])
        tx = rng.choice([-6.0, 6.0, 0.0, 1.0])
        t = (tx, ha[1] + hb[1] + gap, rng.choice([0.0, ha[2] + hb[2], 0.5]))
        d = (rng.choice([-1.0, 1.0, -3.0, 0.001, 1e3]), 0.0, 0.0)
        if rng.random() < 0.3:
            d = (d[0], 0.0, rng.choice([1.0, -1.0, 0.5]))
        pose = common_pose(rng)
        # apply the same rotation to both: put B's translation in the rotated frame -> use
        # vertices pre-shifted instead to keep exactness
        Bs = shift_pts(B, t)
        if pose[1] != (1.0, 0.0, 0.0, 0.0):
            # rotate direction too (approximately; the oracle uses the given direction exactly)
            from oracle import fpose
            d = tuple(fpose(d, (0, 0, 0), pose[1]))
        cases.append(case(A, Bs, pose, pose, d, "dir:graze:%g" % gap))
    return cases


def fam_shapes(rng, n):
    specs = [("cube", cuboid(1, 1, 1)), ("cube:2", cuboid(2, 2, 2)), ("box:1,2,3", cuboid(1, 2, 3)),
             ("box:0.5,0.25,4", cuboid(0.5, 0.25, 4)), ("octahedron", octahedron(1.0)),
             ("octahedron:2", octahedron(2.0)), ("tetrahedron", tetrahedron(1.0)),
             ("tetrahedron:3", tetrahedron(3.0)), ("icosahedron", icosahedron(1.0)),
             ("icosahedron:2", icosahedron(2.0)), ("prism:3,1,1", prism(3, 1.0, 1.0)),
             ("prism:6,2,1", prism(6, 2.0, 1.0)), ("cylinder:5,1,2", prism(5, 1.0, 2.0))]
    cases = []
    while len(cases) < n:
        sa, A = rng.choice(specs)
        sb, B = rng.choice(specs)
        pa = (rand_trans(rng), rand_quat(rng))
        pb = (rand_trans(rng), rand_quat(rng))
        if rng.random() < 0.3:
            cases.append(case(A, B, pa, pb, rand_dir(rng), "shape:" + sa + "|" + sb, {"shape": sa}, {"shape": sb}))
        else:
            for c in offset_cases(rng, A, B, pa, pb, "shape:" + sa + "|" + sb):
                c["a"], c["b"] = {"shape": sa}, {"shape": sb}
                cases.append(c)
    return cases


def fam_scale(rng, n):
    """random hulls/boxes at scales 1e-6..1e6 and far from the origin."""
    cases = []
    while len(cases) < n:
        s = rng.choice([1e-6, 1e-3, 1e3, 1e6, 2.0 ** -30, 2.0 ** 30])
        A = scale_pts(rand_cloud(rng, rng.randint(4, 10), 4, 1), s)
        B = scale_pts(rand_cloud(rng, rng.randint(4, 10), 4, 1), s) if rng.random() < 0.7 else cuboid(s, 2 * s, s)
        pa = (tuple(c * s for c in rand_trans(rng)), rand_quat(rng))
        pb = (tuple(c * s for c in rand_trans(rng)), rand_quat(rng))
        if rng.random() < 0.2:
            far = rng.choice([1e6, 1e3]) * (s if rng.random() < 0.5 else 1)
            pa = (tuple(c + far for c in pa[0]), pa[1])
            pb = (tuple(c + far for c in pb[0]), pb[1])
        if rng.random() < 0.3:
            cases.append(case(A, B, pa, pb, rand_dir(rng), "scale:%g:rand" % s))
        else:
            cases += offset_cases(rng, A, B, pa, pb, "scale:%g" % s)
    return cases


FAMILIES = {
    "tetra": fam_tetra, "box": fam_box, "octa": fam_octa, "hull": fam_hull, "thin": fam_thin,
    "prism": fam_prism, "contact": fam_contact, "directional": fam_directional, "shapes": fam_shapes,
    "scale": fam_scale,
}
