//! The per-shape tables the algorithms read, built once with the shape from its topology
//! (no table builder sees a [`ConvexPolyhedron`](crate::shape::polyhedron::ConvexPolyhedron);
//! each takes the arrays it reads): the support direction table, the small hulls' scan
//! blocks, the vertices' inscribed normal cones, CD-Dual's inertia model and V-Clip's
//! Voronoi-plane vectors. Owned by the shape, by no algorithm.

use crate::core::math::{DMat3, DVec3};
use crate::core::tolerance::{CONE_MARGIN, CONE_SOLVE_EPS};
use crate::shape::topology::TopologyView;

/// Up to this many vertices, [`ConvexPolyhedron::support_climb`](crate::shape::polyhedron::ConvexPolyhedron::support_climb) scans all of them instead of
/// walking the vertex graph (measured: a cube or icosahedron support is cheaper as a scan).
pub const SMALL_SCAN: usize = 16;

/// Start vertices for hill-climbing, by direction: the sphere of directions is cut into the
/// `6·k²` cells of a cube map (the face of the direction's largest component, then a `k × k`
/// grid on that face), and each cell stores the support vertex of its centre direction. A
/// climb for any direction in the cell starts within a cell's width of its answer — a few
/// steps on any hull — instead of wherever the previous query left it, which after a large
/// change of direction (GJK's and EPA's early iterations, cold queries) is across the hull.
///
/// Only a start: the climb decides the support, so the table never changes an answer (ties
/// aside, where any maximiser is correct). Empty for hulls of at most [`SMALL_SCAN`] vertices,
/// whose supports are scans.
#[derive(Clone, Debug, Default)]
pub(crate) struct SupportHints {
    k: usize,
    start: Vec<u32>,
}

/// Grid resolution per cube face: `k ≈ √n / HINT_SPREAD`, i.e. about one cell per vertex's
/// support region, so a hinted climb is one or two steps. Was 2 (a cell per few regions):
/// 1 saves 3 % of GJK's instructions on separated and 2.5 % on overlapping random 1 000-vertex
/// pairs (callgrind, 9 656 → 9 339 and 69.4k → 67.7k per query); 0.7 with k up to 48 only
/// 1 % more, for 2.25× the memory.
const HINT_SPREAD: f64 = 1.0;
/// Largest grid per cube face (`6·k²` entries of 4 bytes: 6 KiB at k = 16, reached at
/// n ≈ 250; 24 KiB at 32, n ≥ 1 000). Measured on ellipsoid hulls: a hinted climb costs
/// ~330 instructions at n = 100…10 000, the hierarchy 810 / 1 100 / 1 540.
const HINT_MAX_K: usize = 32;

impl SupportHints {
    /// Builds the table for `p` (its vertex graph must be complete).
    /// Builds the table of a hull of `n` vertices from its support functions: `scan` (any
    /// exact support) and `climb` (a hill-climb from a start vertex).
    pub(crate) fn build(
        n: usize,
        scan: impl FnOnce(DVec3) -> u32,
        mut climb: impl FnMut(DVec3, u32) -> u32,
    ) -> SupportHints {
        if n <= SMALL_SCAN {
            return SupportHints::default();
        }
        let k = (((n as f64).sqrt() / HINT_SPREAD).round() as usize).clamp(2, HINT_MAX_K);
        let mut start = Vec::with_capacity(6 * k * k);
        let mut v = scan(DVec3::X);
        for face in 0..6 {
            let (m, sign) = (face / 2, if face % 2 == 0 { 1.0 } else { -1.0 });
            for iu in 0..k {
                for iv in 0..k {
                    let u = (iu as f64 + 0.5) / k as f64 * 2.0 - 1.0;
                    let w = (iv as f64 + 0.5) / k as f64 * 2.0 - 1.0;
                    let d = match m {
                        0 => DVec3::new(sign, u, w),
                        1 => DVec3::new(w, sign, u),
                        _ => DVec3::new(u, w, sign),
                    };
                    // Neighbouring cells have nearby supports: each climb is short.
                    v = climb(d, v);
                    start.push(v);
                }
            }
        }
        SupportHints { k, start }
    }

    /// The stored start for `dir` (`None` when the table is empty). Any direction, including
    /// zero or non-finite ones, maps to some cell (saturating casts).
    #[inline]
    pub(crate) fn get(&self, dir: DVec3) -> Option<u32> {
        if self.start.is_empty() {
            return None;
        }
        let a = dir.abs();
        let (m, s, u, w) = if a.x >= a.y && a.x >= a.z {
            (0, dir.x, dir.y, dir.z)
        } else if a.y >= a.z {
            (1, dir.y, dir.z, dir.x)
        } else {
            (2, dir.z, dir.x, dir.y)
        };
        let face = 2 * m + usize::from(s < 0.0);
        let k = self.k;
        let half = 0.5 * k as f64;
        let inv = half / s.abs();
        // `u·inv + half` lies in [0, k] for finite directions; the `u32` casts saturate (NaN to
        // 0) and are shorter than `usize` ones.
        let last = (k - 1) as u32;
        let iu = ((u * inv + half) as u32).min(last) as usize;
        let iw = ((w * inv + half) as u32).min(last) as usize;
        self.start.get(face * k * k + iu * k + iw).copied()
    }
}

/// The vertices of a hull of at most [`SMALL_SCAN`] vertices in blocks of four, coordinates
/// apart (four x's, four y's, four z's), so a scan computes four dot products per block with
/// vector instructions instead of one per vertex from interleaved `DVec3`s. The last block
/// is padded with copies of the last vertex (equal values at larger indices never win a
/// tie). Empty for larger hulls, whose supports are climbs.
#[derive(Clone, Debug, Default)]
pub(crate) struct ScanBlocks {
    blocks: Vec<[[f64; 4]; 3]>,
}

impl ScanBlocks {
    pub(crate) fn build(p: &TopologyView) -> ScanBlocks {
        let n = p.vertices.len();
        if n == 0 || n > SMALL_SCAN {
            return ScanBlocks::default();
        }
        let blocks = (0..n.div_ceil(4))
            .map(|b| {
                let v = |k: usize| p.vertices[(4 * b + k).min(n - 1)];
                [
                    std::array::from_fn(|k| v(k).x),
                    std::array::from_fn(|k| v(k).y),
                    std::array::from_fn(|k| v(k).z),
                ]
            })
            .collect();
        ScanBlocks { blocks }
    }

    /// The largest `dir · v` and the first vertex attaining it (`(-∞, 0)` when no product
    /// compares greater than −∞: a NaN direction). Each product is evaluated as
    /// `DVec3::dot` does, `(x·x' + y·y') + z·z'`, so the values are bit-identical to the
    /// climb's and the scan's.
    #[inline]
    pub(crate) fn argmax(&self, dir: DVec3) -> (f64, u32) {
        let mut best = [f64::NEG_INFINITY; 4];
        let mut idx = [0u32; 4];
        for (b, [x, y, z]) in self.blocks.iter().enumerate() {
            let d: [f64; 4] = std::array::from_fn(|k| dir.x * x[k] + dir.y * y[k] + dir.z * z[k]);
            for k in 0..4 {
                if d[k] > best[k] {
                    best[k] = d[k];
                    idx[k] = (4 * b + k) as u32;
                }
            }
        }
        // Lane k holds the first maximiser among indices ≡ k (mod 4); across lanes the larger
        // value wins, equal values the smaller index.
        let mut pick = (best[0], idx[0]);
        for k in 1..4 {
            if best[k] > pick.0 || (best[k] == pick.0 && idx[k] < pick.1) {
                pick = (best[k], idx[k]);
            }
        }
        pick
    }
}

/// Per vertex, a circular cone `{u : u·a ≥ t·|u|}` inside the vertex's normal cone
/// `{u : u·(v − w) ≥ 0 for every neighbour w}`: a direction in it has the vertex as its support,
/// with no neighbour to scan. The axis `a` is the largest inscribed cap's (the Chebyshev centre
/// of the normal cone on the sphere: the minimum-norm point of `{x : x·ê_w ≥ 1}`, `ê_w` the unit
/// edge directions `(v − w)/|v − w|`, normalised; its inscribed half-angle θ has
/// `sin θ = min_w a·ê_w`), and `t = cos θ` raised by [`CONE_MARGIN`]. On 1 000-vertex ellipsoid
/// hulls about half of all directions fall in the inscribed cone of their support.
///
/// Only a shortcut: the test accepts a vertex only where the neighbour scan would stop there
/// too (strict maximiser by far more than rounding), so the climbs' answers do not change.
/// Stored as `[a.x, a.y, a.z, t²]`; `t² > 1` (never accepted) for a vertex whose cone could not
/// be computed. Empty for hulls of at most [`SMALL_SCAN`] vertices, whose supports are scans.
#[derive(Clone, Debug, Default)]
pub(crate) struct VertexCones {
    cone: Vec<[f64; 4]>,
}

/// Vertices of more neighbours than this get no cone (the active-set enumeration is cubic in
/// the degree; such vertices are rare on the hulls where the shortcut matters).
const CONE_MAX_DEGREE: usize = 16;

impl VertexCones {
    /// Builds the cones of `p` (its vertex graph must be complete).
    pub(crate) fn build(p: &TopologyView) -> VertexCones {
        let n = p.vertices.len();
        if n <= SMALL_SCAN {
            return VertexCones::default();
        }
        let mut e = Vec::with_capacity(CONE_MAX_DEGREE);
        let cone = (0..n as u32).map(|v| vertex_cone(p, v, &mut e)).collect();
        VertexCones { cone }
    }

    /// [`build`](Self::build) for the shape `p` renumbered: `p` numbers vertex `order[l]` of
    /// the shape as `l`, with the same rings (the same neighbours in the same order), and the
    /// table is indexed in the shape's numbering — the same table, entry for entry. The
    /// construction's local numbering (`ConvexPolyhedron::build_local`) puts a vertex's
    /// neighbours close in memory, where the given numbering of a 10⁶-point cloud scatters
    /// them (each neighbour read was a cache miss: a third of the tables phase). `None` when
    /// `order` is not one entry per vertex (the caller then builds the table plainly).
    pub(crate) fn build_renumbered(p: &TopologyView, order: &[u32]) -> Option<VertexCones> {
        let n = p.vertices.len();
        if order.len() != n {
            return None;
        }
        if n <= SMALL_SCAN {
            return Some(VertexCones::default());
        }
        let mut e = Vec::with_capacity(CONE_MAX_DEGREE);
        let mut cone = vec![[0.0; 4]; n];
        for (l, &v) in order.iter().enumerate() {
            cone[v as usize] = vertex_cone(p, l as u32, &mut e);
        }
        Some(VertexCones { cone })
    }

    /// Is `dir` (with `len2 = |dir|²`) inside the inscribed cone of `v`?
    #[inline]
    pub(crate) fn contains(&self, v: u32, dir: DVec3, len2: f64) -> bool {
        match self.cone.get(v as usize) {
            Some(c) => {
                let x = dir.x * c[0] + dir.y * c[1] + dir.z * c[2];
                x > 0.0 && x * x >= c[3] * len2
            }
            None => false,
        }
    }
}

/// The cone entry of vertex `v` of `p` (`e`: scratch for its edge directions).
#[inline]
fn vertex_cone(p: &TopologyView, v: u32, e: &mut Vec<DVec3>) -> [f64; 4] {
    let pv = p.vertices[v as usize];
    e.clear();
    e.extend(
        p.neighbors(v)
            .iter()
            .map(|&w| (pv - p.vertices[w as usize]).normalize_or_zero()),
    );
    inscribed_cone(e).unwrap_or([0.0, 0.0, 0.0, 2.0])
}

/// The inscribed cone `[a, t²]` for the unit edge directions `e` of one vertex (see
/// `VertexCones`), or `None` when the degree is too high or the cone is degenerate.
fn inscribed_cone(e: &[DVec3]) -> Option<[f64; 4]> {
    let m = e.len();
    if !(3..=CONE_MAX_DEGREE).contains(&m) || e.iter().any(|x| *x == DVec3::ZERO || !x.is_finite()) {
        return None;
    }
    // Minimum-norm point of {x : x·e_i ≥ 1}: the equality-constrained minimiser of every
    // active set of one to three constraints; the feasible one of least norm is the optimum.
    let feasible = |x: DVec3| e.iter().all(|ei| x.dot(*ei) >= 1.0 - CONE_SOLVE_EPS);
    let mut best: Option<DVec3> = None;
    let mut consider = |x: DVec3| {
        if x.is_finite() && feasible(x) && best.is_none_or(|b| x.length_squared() < b.length_squared()) {
            best = Some(x);
        }
    };
    for i in 0..m {
        consider(e[i] / e[i].length_squared());
        for j in i + 1..m {
            // x = λ e_i + μ e_j with x·e_i = x·e_j = 1.
            let (g11, g12, g22) = (e[i].dot(e[i]), e[i].dot(e[j]), e[j].dot(e[j]));
            let det = g11 * g22 - g12 * g12;
            if det > CONE_SOLVE_EPS {
                let (l, mu) = ((g22 - g12) / det, (g11 - g12) / det);
                consider(e[i] * l + e[j] * mu);
            }
            for k in j + 1..m {
                // x·e_i = x·e_j = x·e_k = 1: x = (e_j×e_k + e_k×e_i + e_i×e_j) / det.
                let det = e[i].dot(e[j].cross(e[k]));
                if det.abs() > CONE_SOLVE_EPS {
                    consider((e[j].cross(e[k]) + e[k].cross(e[i]) + e[i].cross(e[j])) / det);
                }
            }
        }
    }
    let a = best?.normalize_or_zero();
    // sin θ = min a·ê (recomputed from the normalised axis); t = cos θ.
    let s = e.iter().map(|ei| a.dot(*ei)).fold(f64::INFINITY, f64::min);
    if !(s > 0.0) || !a.is_finite() {
        return None;
    }
    let t = (1.0 - s * s).max(0.0).sqrt() + CONE_MARGIN;
    Some([a.x, a.y, a.z, t * t])
}

/// CD-Dual's per-shape precomputation, built with the shape: the vertices' mean and
/// covariance (the shape's ellipsoid of inertia, which models M for the start face, see
/// [`Ctx::heuristic_face`]) and the sizes that bound the Search-EE stack. Cold starts of its
/// support queries use the shape's direction table (`ConvexPolyhedron::hint_start`).
#[derive(Clone, Debug, Default)]
pub(crate) struct StartTable {
    /// Mean and covariance of the vertices.
    pub(crate) mean: DVec3,
    pub(crate) cov: DMat3,
    /// `det(cov)`.
    pub(crate) cov_det: f64,
    /// Longest face boundary and largest vertex degree: they size the Search-EE stack.
    pub(crate) max_face_len: usize,
    pub(crate) max_degree: usize,
}

impl StartTable {
    pub(crate) fn build(poly: &TopologyView) -> Self {
        let n = poly.vertices().len();
        let inv = 1.0 / n.max(1) as f64;
        let mean = poly.vertices().iter().fold(DVec3::ZERO, |s, v| s + *v) * inv;
        let mut cov = DMat3::ZERO;
        for v in poly.vertices() {
            let d = *v - mean;
            cov += DMat3::from_cols(d * d.x, d * d.y, d * d.z);
        }
        let cov = cov * inv;
        let max_face_len = poly.faces().iter().map(|f| f.len as usize).max().unwrap_or(0);
        let max_degree = (0..n as u32).map(|v| poly.neighbors(v).len()).max().unwrap_or(0);
        Self {
            mean,
            cov,
            cov_det: cov.determinant(),
            max_face_len,
            max_degree,
        }
    }
}

/// V-Clip's per-shape tables: the Voronoi-plane vectors the handlers scan, computed once in
/// the shape's local frame with the very expressions the handlers used to evaluate per call
/// (so every plane keeps its value bit for bit), laid out next to the adjacency they belong
/// to. Memory: 80 bytes per half-edge (40 in each table), about 3.3× the half-edge records
/// (307 KB for the 642-vertex icosphere).
#[derive(Clone, Debug, Default)]
pub(crate) struct VClipTables {
    /// Per adjacency slot, in the CSR order of `neighbors` / `outgoing`.
    pub(crate) adj: Vec<AdjRec>,
    /// Per half-edge.
    pub(crate) fe: Vec<FeRec>,
}

/// The edge from a vertex `v` to its neighbour `o` (one adjacency slot of `v`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct AdjRec {
    /// `v − o`: the vertex–edge plane of edge `(v, o)` at `v` is `w·(x − v)` (see [`ve_plane`]).
    pub(crate) w: DVec3,
    /// `1 / |v − o|²`, the scale of VV's violation score (a product, not a division, in the
    /// handler: the division's latency sat on the path to VV's data-dependent branches).
    pub(crate) inv_len2: f64,
    /// The neighbour `o`.
    pub(crate) nbr: u32,
    /// The edge `(v, o)`.
    pub(crate) edge: u32,
}

/// A half-edge `a → b` of a face `f`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FeRec {
    /// `n_f × (b − a)`: the face–edge plane is `c·(x − a)` (see [`fe_plane`]).
    pub(crate) c: DVec3,
    /// `1 / |b − a|`, the scale of VF's violation (as `inv_len2` in [`AdjRec`]).
    pub(crate) inv_len: f64,
    /// The tail `a`.
    pub(crate) origin: u32,
    /// The edge.
    pub(crate) edge: u32,
}

impl VClipTables {
    pub(crate) fn build(poly: &TopologyView) -> Self {
        let nv = poly.vertices().len() as u32;
        let mut adj = Vec::with_capacity(poly.adj_vertex.len());
        for v in 0..nv {
            let x = poly.vertex(v);
            for (&o, &h) in poly.neighbors(v).iter().zip(poly.outgoing(v)) {
                let w = x - poly.vertex(o);
                adj.push(AdjRec {
                    w,
                    inv_len2: 1.0 / w.length_squared(),
                    nbr: o,
                    edge: poly.half_edge(h).edge,
                });
            }
        }
        let fe = poly
            .half_edges()
            .iter()
            .map(|he| {
                let a = poly.vertex(he.origin);
                let b = poly.vertex(poly.half_edge(he.next).origin);
                FeRec {
                    c: poly.face(he.face).normal.cross(b - a),
                    inv_len: 1.0 / (b - a).length(),
                    origin: he.origin,
                    edge: he.edge,
                }
            })
            .collect();
        VClipTables { adj, fe }
    }
}
