from oracle import *
from fractions import Fraction as F
T=[(0,0,0),(1,0,0),(0,1,0),(0,0,1)]
def mk(A,B,tA=(0,0,0),qA=(1,0,0,0),tB=(0,0,0),qB=(1,0,0,0)):
    return Pair(apply_pose(A,tA,qA),apply_pose(B,tB,qB))
# Jin examples
p=mk(T,T,tB=(1,0,0)); r=p.result((-1,0,0)); print('touch',r)
p=mk(T,T,tB=(2,0,0)); r=p.result((-1,0,0)); print('dist1',r)
# cube vs cube
C=[(x,y,z) for x in (-.5,.5) for y in (-.5,.5) for z in (-.5,.5)]
p=mk(C,C,tB=(0.5,0,0)); print('cube overlap',p.result((0,0,2)))
p=mk(C,C,tB=(3,1,0)); print('graze',p.result((-1,0,0)))
p=mk(C,C,tB=(2,2,0)); print('edge-edge dist sqrt2',p.result((-1,-1,0)))
p=mk(C,C,tB=(2,2,2)); print('vv dist sqrt3',p.result((-1,-1,-1.0)))
# rotated cube 45deg about z  (irrational), use (1,1,0,0)? that's 90 about x. use q=(3,0,0,1)? rotation by angle 2atan(1/3)
p=mk(C,C,tB=(2,0,0),qB=(1,0,0,1)); print('90z',p.result((-1,0,0)))
# point inside-prism: tetra vertex above face
p=mk(C,T,tB=(-0.2,-0.2,1.5)); print('v-face',p.result((0,0,-1)))
# interior and duplicate points
p=Pair(apply_pose(C+[(0,0,0),(0.5,0.5,0.5),(0.5,0,0)],),apply_pose(T,(3,0,0)))
print(len(p.A.vertices),len(p.A.edges),len(p.A.facets), p.result())
# edge-edge skew: segments
print(seg_seg_d2((0,0,0),(2,0,0),(1,-1,1),(1,1,1)))
print(seg_seg_d2((0,0,0),(2,0,0),(3,0,1),(5,0,1)))  # parallel offset -> (1,1)
print(seg_seg_d2((0,0,0),(2,0,0),(1,0,1),(5,0,1)))  # parallel overlap -> 1
for pt in [(0,0,0),(1,1,1),(0.5,0.5,0.5),(1,0,0)]:
    print(pt, p.point_dist2('a',pt))
