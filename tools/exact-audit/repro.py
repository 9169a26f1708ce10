"""Run minimal reproduction lines through polycd and the exact oracle. usage: python3 repro.py FILE"""
import json, sys, subprocess
import gen, run
from collections import Counter

def shape_pts(s):
    if 'vertices' in s: return [tuple(float(c) for c in p) for p in s['vertices']]
    sp = s['shape']; name, _, arg = sp.partition(':')
    if name == 'cube': x = float(arg or 1); return gen.cuboid(x, x, x)
    if name == 'box': return gen.cuboid(*[float(v) for v in arg.split(',')])
    if name == 'octahedron': return gen.octahedron(float(arg or 1))
    if name == 'tetrahedron': return gen.tetrahedron(float(arg or 1))
    if name == 'icosahedron': return gen.icosahedron(float(arg or 1))
    if name in ('prism', 'cylinder'):
        n, r, h = arg.split(','); return gen.prism(int(n), float(r), float(h))
    raise ValueError(sp)

lines = [l.rstrip('\n') for l in open(sys.argv[1]) if l.strip() and not l.startswith('#')]
p = subprocess.run([run.BIN, 'batch'], input=('\n'.join(lines) + '\n').encode(), capture_output=True)
outs = p.stdout.decode().splitlines()
for l, o in zip(lines, outs):
    inp = json.loads(l); out = json.loads(o)
    pose = lambda k: (tuple(float(c) for c in inp[k].get('translation', [0, 0, 0])), tuple(float(c) for c in inp[k].get('rotation', [1, 0, 0, 0]))) if k in inp else None
    c = {'A': shape_pts(inp['a']), 'B': shape_pts(inp['b']), 'pa': pose('pose_a'), 'pb': pose('pose_b'),
         'dir': tuple(float(x) for x in inp['direction']) if 'direction' in inp else None, 'tag': 'repro'}
    P, r, S = run.compute_oracle(c)
    probs = run.check_line(out, c, P, r, S, inp.get('query', 'intersect'), inp.get('algorithm', 'auto'), Counter())
    print(l)
    print('  polycd:', o)
    ivs = None
    if r.get('dir_interval'):
        import math; dn = math.sqrt(sum(x * x for x in c['dir'])); ivs = (float(r['dir_interval'][0]) * dn, float(r['dir_interval'][1]) * dn)
    print('  exact : status=%s sd=%r directional=%r (alt %r) t-interval=%s scale=%.4g' % (run.STN[r['status']], r['sd'], r.get('dir'), r.get('dir_alt'), ivs, S))
    print('  verdict:', 'OK' if not probs else probs)
    print()
