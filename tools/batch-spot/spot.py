#!/usr/bin/env python3
"""Spot check of `polycd batch` against brute-force oracles written here (Python standard
library only, floating point; independent of polycd's code).

Families: a triangle against a box, two capsules (segments with radii), an L-shaped prism
(`"kind": "mesh"`) against a box and against another L-prism, a yawed box resting on a box
(`"manifold"`: the point count is the clipped polygon's, every separation the penetration);
then point queries and ray casts on the L-prism mesh, a triangle lying on a box face (3
manifold points), the L-prism resting exactly on a box (touching). Scales 1e-3…1e3, far
from the origin (1e3, 1e5). Distances agree within 1e-9 × (scale + offset).

Usage: python3 spot.py POLYCD_BINARY N SEED   (exit status 1 on any disagreement)"""
import json, math, random, subprocess, sys

def sub(a, b): return (a[0]-b[0], a[1]-b[1], a[2]-b[2])
def add(a, b): return (a[0]+b[0], a[1]+b[1], a[2]+b[2])
def mul(a, s): return (a[0]*s, a[1]*s, a[2]*s)
def dot(a, b): return a[0]*b[0]+a[1]*b[1]+a[2]*b[2]
def cross(a, b): return (a[1]*b[2]-a[2]*b[1], a[2]*b[0]-a[0]*b[2], a[0]*b[1]-a[1]*b[0])
def norm(a): return math.sqrt(dot(a, a))

def qrot(q, v):
    w, x, y, z = q
    u = (x, y, z)
    t = mul(cross(u, v), 2.0)
    return add(add(v, mul(t, w)), cross(u, t))

def pose_pt(pose, v):
    return add(qrot(pose[1], v), pose[0])

def rand_quat(rng):
    q = [rng.gauss(0, 1) for _ in range(4)]
    n = math.sqrt(sum(c*c for c in q))
    return tuple(c/n for c in q)

def clamp(x, lo, hi): return lo if x < lo else hi if x > hi else x

def closest_pt_tri(p, a, b, c):
    ab, ac, ap = sub(b, a), sub(c, a), sub(p, a)
    d1, d2 = dot(ab, ap), dot(ac, ap)
    if d1 <= 0 and d2 <= 0: return a
    bp = sub(p, b); d3, d4 = dot(ab, bp), dot(ac, bp)
    if d3 >= 0 and d4 <= d3: return b
    vc = d1*d4 - d3*d2
    if vc <= 0 and d1 >= 0 and d3 <= 0: return add(a, mul(ab, d1/(d1-d3)))
    cp = sub(p, c); d5, d6 = dot(ab, cp), dot(ac, cp)
    if d6 >= 0 and d5 <= d6: return c
    vb = d5*d2 - d1*d6
    if vb <= 0 and d2 >= 0 and d6 <= 0: return add(a, mul(ac, d2/(d2-d6)))
    va = d3*d6 - d5*d4
    if va <= 0 and (d4-d3) >= 0 and (d5-d6) >= 0:
        return add(b, mul(sub(c, b), (d4-d3)/((d4-d3)+(d5-d6))))
    den = 1.0/(va+vb+vc)
    return add(a, add(mul(ab, vb*den), mul(ac, vc*den)))

def seg_seg(p1, q1, p2, q2):
    d1, d2, r = sub(q1, p1), sub(q2, p2), sub(p1, p2)
    a, e, f = dot(d1, d1), dot(d2, d2), dot(d2, r)
    if a <= 1e-300 and e <= 1e-300: return norm(sub(p1, p2))
    if a <= 1e-300: s, t = 0.0, clamp(f/e, 0, 1)
    else:
        c = dot(d1, r)
        if e <= 1e-300: t, s = 0.0, clamp(-c/a, 0, 1)
        else:
            b = dot(d1, d2); den = a*e - b*b
            s = clamp((b*f - c*e)/den, 0, 1) if den > 1e-300 else 0.0
            t = (b*s + f)/e
            if t < 0: t, s = 0.0, clamp(-c/a, 0, 1)
            elif t > 1: t, s = 1.0, clamp((b-c)/a, 0, 1)
    # also try endpoints for robustness (parallel cases)
    best = norm(sub(add(p1, mul(d1, s)), add(p2, mul(d2, t))))
    return best

def seg_tri_cross(p, q, a, b, c):
    n = cross(sub(b, a), sub(c, a))
    dp, dq = dot(sub(p, a), n), dot(sub(q, a), n)
    if dp*dq > 0 or dp == dq: return False
    t = dp/(dp-dq)
    x = add(p, mul(sub(q, p), t))
    for u, v in ((a, b), (b, c), (c, a)):
        if dot(cross(sub(v, u), sub(x, u)), n) < 0: return False
    return True

def tri_tri(t1, t2):
    for i in range(3):
        if seg_tri_cross(t1[i], t1[(i+1) % 3], *t2) or seg_tri_cross(t2[i], t2[(i+1) % 3], *t1):
            return 0.0
    best = math.inf
    for i in range(3):
        for j in range(3):
            best = min(best, seg_seg(t1[i], t1[(i+1) % 3], t2[j], t2[(j+1) % 3]))
        best = min(best, norm(sub(t1[i], closest_pt_tri(t1[i], *t2))))
        best = min(best, norm(sub(t2[i], closest_pt_tri(t2[i], *t1))))
    return best

def box_mesh(w, h, d):
    v = [(x*w/2, y*h/2, z*d/2) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
    idx = lambda x, y, z: x*4 + y*2 + z
    f = []
    quads = [
        [idx(0,0,0), idx(0,0,1), idx(0,1,1), idx(0,1,0)],
        [idx(1,0,0), idx(1,1,0), idx(1,1,1), idx(1,0,1)],
        [idx(0,0,0), idx(1,0,0), idx(1,0,1), idx(0,0,1)],
        [idx(0,1,0), idx(0,1,1), idx(1,1,1), idx(1,1,0)],
        [idx(0,0,0), idx(0,1,0), idx(1,1,0), idx(1,0,0)],
        [idx(0,0,1), idx(1,0,1), idx(1,1,1), idx(0,1,1)],
    ]
    for qd in quads:
        f.append([qd[0], qd[1], qd[2]]); f.append([qd[0], qd[2], qd[3]])
    return v, f

def l_prism():
    poly = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]
    v = [(x - 0.8, y - 0.8, -0.5) for x, y in poly] + [(x - 0.8, y - 0.8, 0.5) for x, y in poly]
    tris2 = [(3, 4, 5), (3, 5, 0), (3, 0, 1), (3, 1, 2)]
    f = []
    for a, b, c in tris2:
        f.append([a, c, b])            # bottom, facing -z
        f.append([a+6, b+6, c+6])      # top
    for i in range(6):
        j = (i+1) % 6
        f.append([i, j, j+6]); f.append([i, j+6, i+6])
    return v, f

def world_tris(v, f, pose):
    w = [pose_pt(pose, p) for p in v]
    return [(w[a], w[b], w[c]) for a, b, c in f]

def inside_closed(p, tris):
    # ray parity along a random direction (robust enough for spot checks)
    d = (0.5773, 0.5774, 0.5775)
    cnt = 0
    for a, b, c in tris:
        e1, e2 = sub(b, a), sub(c, a)
        h = cross(d, e2); det = dot(e1, h)
        if abs(det) < 1e-300: continue
        s = sub(p, a); u = dot(s, h)/det
        if u < 0 or u > 1: continue
        qv = cross(s, e1); vv = dot(d, qv)/det
        if vv < 0 or u + vv > 1: continue
        if dot(e2, qv)/det > 0: cnt += 1
    return cnt % 2 == 1

def mesh_dist(ta, tb, closed_a=True, closed_b=True):
    best = math.inf
    for x in ta:
        for y in tb:
            best = min(best, tri_tri(x, y))
            if best == 0.0: return 0.0
    if (closed_b and inside_closed(ta[0][0], tb)) or (closed_a and inside_closed(tb[0][0], ta)): return 0.0
    return best

def pose_json(p):
    return {"translation": list(p[0]), "rotation": list(p[1])}

def main(exe, n, seed):
    rng = random.Random(seed)
    lines, expect = [], []
    bm = box_mesh(1.0, 2.0, 0.5)
    lv, lf = l_prism()
    for i in range(n):
        kind = i % 5
        far = rng.choice([0.0, 0.0, 1e3, 1e5])
        scale = rng.choice([1.0, 1.0, 1e-3, 1e3])
        off = (far, -far/2, far/3)
        if kind == 0:  # triangle vs box
            tri = [tuple(rng.uniform(-1, 1)*scale for _ in range(3)) for _ in range(3)]
            pb = (add(off, tuple(rng.uniform(-2, 2)*scale for _ in range(3))), rand_quat(rng))
            pa = (off, rand_quat(rng))
            v, f = bm
            v = [mul(p, scale) for p in v]
            ta = [tuple(pose_pt(pa, p) for p in tri)]
            d = mesh_dist(ta, world_tris(v, f, pb), closed_a=False)
            lines.append({"id": i, "a": {"vertices": [list(p) for p in tri]}, "b": {"shape": f"box:{scale},{2*scale},{0.5*scale}"},
                          "pose_a": pose_json(pa), "pose_b": pose_json(pb), "query": "distance"})
            expect.append(("dist", d, scale))
        elif kind == 1:  # capsule vs capsule
            s1 = [tuple(rng.uniform(-1, 1)*scale for _ in range(3)) for _ in range(2)]
            s2 = [tuple(rng.uniform(-1, 1)*scale for _ in range(3)) for _ in range(2)]
            r1, r2 = rng.uniform(0, 0.3)*scale, rng.uniform(0, 0.3)*scale
            pa = (off, rand_quat(rng))
            pb = (add(off, tuple(rng.uniform(-2, 2)*scale for _ in range(3))), rand_quat(rng))
            d = seg_seg(pose_pt(pa, s1[0]), pose_pt(pa, s1[1]), pose_pt(pb, s2[0]), pose_pt(pb, s2[1])) - r1 - r2
            lines.append({"id": i, "a": {"vertices": [list(p) for p in s1], "radius": r1}, "b": {"vertices": [list(p) for p in s2], "radius": r2},
                          "pose_a": pose_json(pa), "pose_b": pose_json(pb), "query": "distance"})
            expect.append(("dist", d, scale))
        elif kind in (2, 3):  # L mesh vs box, L mesh vs L mesh
            lvs = [mul(p, scale) for p in lv]
            pa = (off, rand_quat(rng))
            pb = (add(off, tuple(rng.uniform(-2.5, 2.5)*scale for _ in range(3))), rand_quat(rng))
            ta = world_tris(lvs, lf, pa)
            if kind == 2:
                v, f = bm
                v = [mul(p, 0.5*scale) for p in v]
                b = {"vertices": [list(p) for p in v]}
            else:
                v, f = lvs, lf
                b = {"kind": "mesh", "vertices": [list(p) for p in v], "faces": f}
            d = mesh_dist(ta, world_tris(v, f, pb))
            lines.append({"id": i, "a": {"kind": "mesh", "vertices": [list(p) for p in lvs], "faces": lf}, "b": b,
                          "pose_a": pose_json(pa), "pose_b": pose_json(pb), "query": "distance"})
            expect.append(("dist", d, scale))
        else:  # box resting on a wider box, yawed: manifold point count = clip polygon's
            yaw = rng.uniform(0, math.pi/2)
            dx, dy = rng.uniform(-1.4, 1.4), rng.uniform(-0.9, 0.9)
            pen = rng.choice([0.0, 1e-3, 0.05])
            q = (math.cos(yaw/2), 0.0, 0.0, math.sin(yaw/2))
            pb = ((dx, dy, 0.5 + 0.25 - pen), q)
            lines.append({"id": i, "a": {"shape": "box:3,2,1"}, "b": {"shape": "box:0.5,0.5,0.5"}, "pose_b": pose_json(pb), "query": "manifold"})
            # oracle polygon: B's bottom square (yawed) clipped by A's top rectangle
            sq = [qrot(q, (sx*0.25, sy*0.25, 0)) for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
            poly = [(p[0]+dx, p[1]+dy) for p in sq]
            for axis, lim, sgn in ((0, 1.5, 1), (0, -1.5, -1), (1, 1.0, 1), (1, -1.0, -1)):
                out = []
                for k in range(len(poly)):
                    P, Q = poly[k], poly[(k+1) % len(poly)]
                    ip, iq = sgn*(P[axis]-lim) <= 0, sgn*(Q[axis]-lim) <= 0
                    if ip: out.append(P)
                    if ip != iq:
                        t = (lim-P[axis])/(Q[axis]-P[axis])
                        out.append((P[0]+t*(Q[0]-P[0]), P[1]+t*(Q[1]-P[1])))
                poly = out
            # drop near-duplicate vertices
            ded = []
            for p in poly:
                if all(abs(p[0]-r[0]) + abs(p[1]-r[1]) > 1e-9 for r in ded): ded.append(p)
            area = 0.0
            for k in range(len(ded)):
                area += ded[k][0]*ded[(k+1) % len(ded)][1] - ded[(k+1) % len(ded)][0]*ded[k][1]
            expect.append(("manifold", len(ded), -pen, abs(area)/2))
    inp = "\n".join(json.dumps(l) for l in lines) + "\n"
    out = subprocess.run([exe, "batch"], input=inp.encode(), capture_output=True).stdout.decode().splitlines()
    bad = 0
    for l, e, o in zip(lines, expect, out):
        r = json.loads(o)
        msg = None
        if r["status"] == "error":
            msg = f"error {r['error']}"
        elif e[0] == "dist":
            d, scale = e[1], e[2]
            tol = 1e-9 * (scale + abs(far_of(l)))
            if d > tol:
                if r["status"] != "disjoint" or abs(r["distance"] - d) > tol:
                    msg = f"oracle {d!r} got {r['status']} {r['distance']!r}"
            elif d <= 0 and e[1] == 0.0 and r["status"] == "disjoint" and r["distance"] > tol:
                msg = f"oracle overlap got disjoint {r['distance']!r}"
            elif e[1] < -tol and r["status"] == "disjoint":
                msg = f"oracle {d!r} (rounded overlap) got disjoint {r['distance']!r}"
        else:
            m = r.get("manifold")
            cnt, pen, area = e[1], e[2], e[3]
            if m is None:
                msg = "no manifold"
            else:
                pts = m["points"]
                seps = [p["separation"] for p in pts]
                if len(pts) != cnt or any(abs(s - pen) > 1e-9 for s in seps):
                    msg = f"expected {cnt} points at {pen}, got {len(pts)} seps {seps} normal {m['normal']}"
        if msg:
            bad += 1
            if bad <= 15:
                print(l["id"], msg, json.dumps(l)[:300])
    print(f"{len(out)} answered of {len(lines)}, {bad} disagreements")
    return bad + (len(lines) - len(out))

def far_of(l):
    t = l.get("pose_a", {}).get("translation", [0, 0, 0]) if isinstance(l.get("pose_a"), dict) else [0, 0, 0]
    return max(abs(c) for c in t)




def ray_tri(o, d, a, b, c):
    e1, e2 = sub(b, a), sub(c, a)
    h = cross(d, e2); det = dot(e1, h)
    if abs(det) < 1e-300: return None
    s = sub(o, a); u = dot(s, h)/det
    if u < -1e-12 or u > 1+1e-12: return None
    q = cross(s, e1); v = dot(d, q)/det
    if v < -1e-12 or u+v > 1+1e-12: return None
    t = dot(e2, q)/det
    return t if t >= 0 else None

def run(exe, n, seed):
    rng = random.Random(seed)
    lv, lf = l_prism()
    lines, exp = [], []
    for i in range(n):
        k = i % 4
        scale = rng.choice([1.0, 1e-3, 1e3])
        far = rng.choice([0.0, 1e3])
        off = (far, far, -far)
        lvs = [mul(p, scale) for p in lv]
        pa = (off, rand_quat(rng))
        tris = world_tris(lvs, lf, pa)
        if k == 0:  # point query
            p = add(off, tuple(rng.uniform(-1.5, 1.5)*scale for _ in range(3)))
            inside = inside_closed(p, tris)
            d = min(norm(sub(p, closest_pt_tri(p, *t))) for t in tris)
            lines.append({"id": i, "a": {"kind": "mesh", "vertices": [list(v) for v in lvs], "faces": lf}, "pose_a": pose_json(pa), "query": "point", "point": list(p)})
            exp.append(("point", -d if inside else d, scale + far))
        elif k == 1:  # ray
            o = add(off, tuple(rng.uniform(-3, 3)*scale for _ in range(3)))
            tgt = add(off, tuple(rng.uniform(-0.8, 0.8)*scale for _ in range(3)))
            dvec = sub(tgt, o)
            if inside_closed(o, tris):
                exp.append(("skip",))
            else:
                ts = [t for t in (ray_tri(o, dvec, *tr) for tr in tris) if t is not None]
                exp.append(("ray", min(ts) if ts else None, scale + far))
            lines.append({"id": i, "a": {"kind": "mesh", "vertices": [list(v) for v in lvs], "faces": lf}, "pose_a": pose_json(pa), "query": "ray", "origin": list(o), "direction": list(dvec)})
        elif k == 2:  # triangle lying on a box top, inside the face: 3 points, separation -pen
            pen = rng.choice([0.0, 1e-4])
            tri = [(rng.uniform(-1.4, 1.4), rng.uniform(-0.9, 0.9), 0.5 - pen) for _ in range(3)]
            lines.append({"id": i, "a": {"shape": "box:3,2,1"}, "b": {"vertices": [list(p) for p in tri]}, "query": "manifold"})
            exp.append(("manifold", 3, -pen))
        else:  # L-prism resting exactly on a box (z = 0.5 plane): touching
            dx, dy = rng.uniform(-1, 1), rng.uniform(-1, 1)
            lines.append({"id": i, "a": {"kind": "mesh", "vertices": [list(v) for v in lv], "faces": lf}, "b": {"shape": "box:1,1,1"}, "pose_b": {"translation": [dx*0.5, dy*0.5, -1.0]}, "query": "distance"})
            exp.append(("touch",))
    inp = "\n".join(json.dumps(l) for l in lines) + "\n"
    out = subprocess.run([exe, "batch"], input=inp.encode(), capture_output=True).stdout.decode().splitlines()
    bad = 0
    for l, e, o in zip(lines, exp, out):
        r = json.loads(o); msg = None
        if r["status"] == "error": msg = "error " + r["error"]
        elif e[0] == "point":
            tol = 1e-9*e[2]
            if abs(r["signed_distance"] - e[1]) > tol: msg = f"point oracle {e[1]!r} got {r['signed_distance']!r} {r['status']}"
        elif e[0] == "ray":
            tol = 1e-9*e[2]
            got = r["ray"]["t"] if r["ray"] else None
            if (got is None) != (e[1] is None) or (got is not None and abs(got - e[1]) > 1e-9):
                msg = f"ray oracle {e[1]!r} got {got!r} {r['status']}"
        elif e[0] == "manifold":
            m = r["manifold"]
            if m is None or len(m["points"]) != 3 or any(abs(p["separation"] - e[2]) > 1e-12 for p in m["points"]):
                msg = f"manifold {m}"
        elif e[0] == "touch":
            if r["status"] != "touching": msg = f"expected touching got {r['status']} {r['distance']}"
        if msg:
            bad += 1
            if bad <= 10: print(l["id"], msg, json.dumps(l)[:250])
    print(f"{len(out)} answered of {len(lines)}, {bad} disagreements")
    return bad + (len(lines) - len(out))


if __name__ == "__main__":
    exe, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    failed = main(exe, n, seed) + run(exe, n, seed + 1)
    sys.exit(1 if failed else 0)
