# A/B inputs for `polycd batch` (issue 27): (1) ab_old.jsonl — every audit family's lines and
# errors.py's edge cases, for an old and a new binary (and --threads 1 vs 2) to print the same
# bytes; (2) ab_refs.jsonl / ab_inline.jsonl — the same queries with the shapes defined once and
# used by "ref" (shuffled key order, number spellings, whitespace, odd ids) and with the shapes
# inline: equal answers except for refs to definitions that failed.
#   python3 ab_batch.py [CASES_PER_FAMILY]      (writes into $AUDIT_OUT, default audit-out/)
import sys, json, random, os, re
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen, run
rng = random.Random(7)
N = int(sys.argv[1]) if len(sys.argv) > 1 else 60
old = []
for fam in gen.FAMILIES:
    cases = gen.FAMILIES[fam](random.Random(3), N)
    lines, meta = run.make_lines(cases, fam)
    old += lines
# errors.py's edge-case lines (without running it)
src = open(os.path.join(HERE, 'errors.py')).read()
src = src[:src.index('data="\\n"')]
ns = {}
exec(src, ns)
old += [x[1] for x in ns['L']]
OUT = os.environ.get('AUDIT_OUT', 'audit-out')
os.makedirs(OUT, exist_ok=True)
open(os.path.join(OUT, 'ab_old.jsonl'), 'w').write("\n".join(old) + "\n")
# ref variant
def spell(x):
    if isinstance(x, bool) or x is None: return json.dumps(x)
    if isinstance(x, (int, float)):
        r = rng.random()
        if isinstance(x, float) and r < 0.2: return '%.17e' % x
        if isinstance(x, float) and r < 0.3 and x == int(x) and abs(x) < 1e15: return str(int(x))
        return json.dumps(x)
    if isinstance(x, str): return json.dumps(x)
    if isinstance(x, list):
        sep = rng.choice([',', ', ', ' ,\t'])
        return '[' + sep.join(spell(v) for v in x) + ']'
    items = list(x.items()); rng.shuffle(items)
    sep = rng.choice([',', ', '])
    return '{' + sep.join('%s:%s%s' % (json.dumps(k), rng.choice(['', ' ']), spell(v)) for k, v in items) + '}'
refs, inline = [], []
names = {}
shapes = {}
for k, line in enumerate(old):
    try:
        o = json.loads(line)
    except Exception:
        continue
    if not isinstance(o, dict) or not isinstance(o.get('a'), dict) or not isinstance(o.get('b'), dict):
        continue
    o2 = dict(o)
    for key in ('a', 'b'):
        txt = json.dumps(o[key], sort_keys=True)
        if txt not in names:
            names[txt] = 's%d' % len(names)
            shapes[names[txt]] = json.dumps(o[key])
            d = '{"define": "%s", "shape": %s}' % (names[txt], json.dumps(o[key]))
            refs.append(d); inline.append(d)
        o2[key] = {"ref": names[txt]}
    if rng.random() < 0.3: o2['id'] = rng.choice([k, -k, str(k), [k, "x"], {"n": k}, 1.5, None, True])
    try:
        t = spell(o2)
    except (OverflowError, ValueError):
        continue
    if 'Infinity' in t or 'NaN' in t:
        continue
    refs.append(t)
    inline.append(re.sub(r'\{"ref": ?"(s\d+)"\}', lambda m: shapes[m.group(1)], t))
open(os.path.join(OUT, 'ab_refs.jsonl'), 'w').write("\n".join(refs) + "\n")
open(os.path.join(OUT, 'ab_inline.jsonl'), 'w').write("\n".join(inline) + "\n")
print(len(old), len(refs))
