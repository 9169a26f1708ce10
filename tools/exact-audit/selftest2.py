import random
from oracle import *
from fractions import Fraction as F
R=quat_matrix((1,2,3,4))
print([[sum(R[i][k]*R[j][k] for k in range(3)) for j in range(3)] for i in range(3)])
rng=random.Random(5)
bad=0
for it in range(300):
    A=[tuple(rng.randint(-4,4) for _ in range(3)) for _ in range(rng.randint(4,6))]
    B=[tuple(rng.randint(-4,4) for _ in range(3)) for _ in range(rng.randint(4,6))]
    try:
        p=Pair(apply_pose(A),apply_pose(B,(rng.randint(-6,6),rng.randint(-6,6),0),(1,rng.randint(-2,2),rng.randint(-2,2),1)))
    except Degenerate: continue
    d=(rng.randint(-3,3),rng.randint(-3,3),rng.randint(-3,3))
    if d==(0,0,0): continue
    r=p.result(d)
    # M hull explicitly
    Mp=[sub(a,b) for a in p.A.vertices for b in p.B.vertices]
    H=Hull(Mp)
    st2 = 1 if all(off>0 for n,off in H.facets) else (-1 if any(off<0 for n,off in H.facets) else 0)
    assert st2==r['status'],(st2,r)
    if st2==1:
        dep=min(F(off*off,dot(n,n)) for n,off in H.facets)/(p.D**2)
        assert dep==r['depth2']
    if st2==-1:
        # distance from origin to M hull: via Pair with a degenerate point? use point_dist2 on tiny check
        H2=Pair.__new__(Pair); H2.A=H; H2.D=p.D
        dd=H2.point_dist2('a',(0,0,0))
        assert dd==r['dist2'],(dd,r['dist2'])
    # directional via M facets
    lo=hi=None; empty=False
    for n,off in H.facets:
        nd=dot(n,d)
        if nd==0:
            if off<0: empty=True
            continue
        b=F(off,nd)/p.D
        if nd>0: hi=b if hi is None else min(hi,b)
        else: lo=b if lo is None else max(lo,b)
    if empty or lo>hi: assert r['dir_interval'] is None
    else: assert r['dir_interval']==(lo,hi),(r['dir_interval'],lo,hi)
print('ok')
