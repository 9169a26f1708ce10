//! Step 5 of the hull (see the parent module): Quickhull's triangles grouped into planar
//! faces, the extreme vertices picked, each face's boundary walked — and the closure check
//! of the result. The steps, in order: [`Quickhull::compact_facets`] (alive facets in
//! creation order, O(F log F)), [`group_facets`] (seeds by area, O(F log F); O(1) exact tests
//! per facet against its seed's plane), [`extreme_vertices`] (O(F); a byte per point when no
//! facets merged), [`boundary_loops`] (O(F)), then [`faces_are_closed`] (O(E log d)).

use super::{internal, Quickhull, NONE};
use crate::core::error::PolycdError;
use crate::core::math::DVec3;
use crate::core::predicates::{orient3d, Orientation};

impl Quickhull<'_> {
    /// Groups facets into planar faces and extracts the extreme vertices.
    /// Returns (faces over the returned vertex list, input index of each returned vertex).
    pub(super) fn merge(&self, tol: f64) -> Result<(Vec<Vec<u32>>, Vec<u32>), PolycdError> {
        let tri = self.compact_facets()?;
        let (group, ngroups) = group_facets(&tri, self.pts, tol);
        let (kept, new_index) = extreme_vertices(&tri, &group, ngroups, self.pts.len());
        let faces = boundary_loops(&tri, &group, ngroups, &new_index)?;
        Ok((faces, kept))
    }

    /// The alive facets as a compact table numbered in creation order.
    fn compact_facets(&self) -> Result<Vec<CompactFacet>, PolycdError> {
        // Alive facets in creation order (slots are reused, so not in index order), copied
        // into a compact table numbered in that order: the merge walks facets in seed and
        // neighbour order, and on 10⁶-point clouds reading the large, scattered `Facet`
        // records there was mostly cache misses. The same facets in the same order, so the
        // same faces.
        let mut by_seq: Vec<(u64, u32)> = (0..self.facets.len() as u32)
            .filter(|&f| self.facets[f as usize].alive)
            .map(|f| (self.facets[f as usize].seq, f))
            .collect();
        by_seq.sort_unstable();
        let orig: Vec<u32> = by_seq.into_iter().map(|(_, f)| f).collect();
        let mut compact = vec![NONE; self.facets.len()];
        for (k, &f) in orig.iter().enumerate() {
            compact[f as usize] = k as u32;
        }
        let tri: Vec<CompactFacet> = orig
            .iter()
            .map(|&f| {
                let facet = &self.facets[f as usize];
                CompactFacet {
                    v: facet.v,
                    nbr: facet.nbr.map(|h| compact.get(h as usize).copied().unwrap_or(NONE)),
                    normal: facet.normal,
                    offset: facet.offset,
                }
            })
            .collect();
        drop(compact);
        if tri.iter().any(|t| t.nbr.contains(&NONE)) {
            return Err(internal("an alive facet has a dead neighbour"));
        }
        Ok(tri)
    }
}

/// Each facet's face (group) label and the number of faces: a facet joins the face grown
/// from the largest-area seed facet (ties in creation order) when its corners are exactly
/// coplanar with the seed triangle or within `tol` of the seed's plane.
fn group_facets(tri: &[CompactFacet], pts: &[DVec3], tol: f64) -> (Vec<u32>, u32) {
    group_facets_by(tri, pts, tol, true)
}

/// [`group_facets`]; `shortcut`: whether a hull whose facets take no neighbour skips the seed
/// sort (false only in the tests, which compare the two).
fn group_facets_by(tri: &[CompactFacet], pts: &[DVec3], tol: f64, shortcut: bool) -> (Vec<u32>, u32) {
    let alive: Vec<u32> = (0..tri.len() as u32).collect();
    let area = |f: u32| {
        let v = tri[f as usize].v;
        (pts[v[1] as usize] - pts[v[0] as usize])
            .cross(pts[v[2] as usize] - pts[v[0] as usize])
            .length()
    };
    // Whether facet `h`'s corners all lie in the plane of seed `s` (see `SeedPlane`).
    let in_plane_of = |s: u32, h: u32| SeedPlane::of(&tri[s as usize], pts, tol).takes(tri[h as usize].v, pts);
    // Which of its neighbours each facet would take in as a seed: bit i for `nbr[i]`.
    // Computed in table order, where a facet and its neighbours and corners are mostly close
    // in memory; a seed none of whose neighbours lies in its plane is a face by itself
    // (every facet of a hull of points in general position), and the seed loop below, in
    // area order (all over memory), then reads nothing but its group entry.
    let joinable = |f: u32| -> u8 {
        let t = &tri[f as usize];
        let plane = SeedPlane::of(t, pts, tol);
        (0..3).fold(0u8, |m, i| {
            m | (u8::from(plane.takes(tri[t.nbr[i] as usize].v, pts)) << i)
        })
    };
    let masks: Vec<u8> = alive.iter().map(|&f| joinable(f)).collect();
    if shortcut && masks.iter().all(|&m| m == 0) {
        // No facet takes a neighbour (a cloud in general position): every facet is a face by
        // itself, whatever the seed order, so the areas and their sort are not needed. Group
        // numbers are only labels (faces are listed in creation order of their first facet),
        // so numbering the groups by facet gives the same faces.
        return (alive, tri.len() as u32);
    }
    // Largest area first, ties in creation order (areas computed once; the facet number
    // breaks ties, so the unstable sort gives the order of a stable one, without its buffer).
    let mut seeds: Vec<(f64, u32, u8)> = alive.iter().map(|&f| (area(f), f, masks[f as usize])).collect();
    drop(masks);
    seeds.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut group = vec![NONE; tri.len()];
    let mut ngroups = 0u32;
    let mut queue: Vec<u32> = Vec::new();
    for &(_, s, mask) in &seeds {
        if group[s as usize] != NONE {
            continue;
        }
        // A face is labelled by its seed's facet number (not by a count in seed order, which
        // is area order): a facet that is a face by itself — nearly all of them, also on the
        // 10⁶ sphere with its one merged face — is labelled by its own number, so the boundary
        // walk's per-face tables are read in facet order instead of at random. Labels only
        // tell faces apart; the faces are the same.
        let gid = s;
        ngroups += 1;
        group[s as usize] = gid;
        if mask == 0 {
            // No neighbour lies in the seed's plane: the face is this facet alone (the loop
            // below would test each neighbour and take none).
            continue;
        }
        queue.clear();
        queue.push(s);
        while let Some(f) = queue.pop() {
            for i in 0..3 {
                let h = tri[f as usize].nbr[i];
                if group[h as usize] != NONE {
                    continue;
                }
                if in_plane_of(s, h) {
                    group[h as usize] = gid;
                    queue.push(h);
                }
            }
        }
    }
    (group, ngroups)
}

/// A seed facet's plane, as the merge tests other facets against it.
struct SeedPlane {
    ids: [u32; 3],
    corners: [DVec3; 3],
    normal: DVec3,
    offset: f64,
    tol: f64,
}

impl SeedPlane {
    fn of(seed: &CompactFacet, pts: &[DVec3], tol: f64) -> Self {
        Self {
            ids: seed.v,
            corners: seed.v.map(|i| pts[i as usize]),
            normal: seed.normal,
            offset: seed.offset,
            tol,
        }
    }

    /// Whether the facet with corners `hv` lies in this plane: each corner is one of the
    /// seed's, or within the tolerance of its float plane, or exactly coplanar with the seed
    /// triangle. A neighbour whose vertices are all (nearly) in the seed plane lies in the
    /// same face: the shape is far thicker than the tolerance. The float normal of a sliver
    /// facet is unreliable, so it is not consulted. (The seed's own corners are in its
    /// plane; the cheap tests go first, the exact one — slow on the seed's own corners, which
    /// it cannot certify by its float filter — last: the same answer.)
    #[inline]
    fn takes(&self, hv: [u32; 3], pts: &[DVec3]) -> bool {
        let [a, b, c] = self.corners;
        hv.iter().all(|&v| {
            let p = pts[v as usize];
            self.ids.contains(&v)
                || (self.tol > 0.0 && (self.normal.dot(p) - self.offset).abs() <= self.tol)
                || orient3d(a, b, c, p) == Orientation::On
        })
    }
}

/// The extreme vertices (those on at least three faces), in input order, and each input
/// point's index among them (`NONE` for the others).
fn extreme_vertices(tri: &[CompactFacet], group: &[u32], ngroups: u32, npts: usize) -> (Vec<u32>, Vec<u32>) {
    if ngroups as usize == tri.len() {
        // Every facet a face by itself (a cloud in general position: every hull of the
        // 10⁶-point clouds measured): a vertex's faces are its facets, so counting its facets
        // up to three decides the same — one byte per point where the general case below
        // keeps twelve (its random accesses were half of the merge at 10⁶ points).
        let mut count = vec![0u8; npts];
        for t in tri {
            for (k, &v) in t.v.iter().enumerate() {
                // (A corner repeated within a facet counts once, as its one group does.)
                if t.v[..k].contains(&v) {
                    continue;
                }
                let c = &mut count[v as usize];
                *c = (*c + 1).min(3);
            }
        }
        return number_extreme(npts, |v| count[v] >= 3);
    }
    extreme_by_groups(tri, group, npts)
}

/// [`extreme_vertices`] in general: each point's first three distinct faces.
fn extreme_by_groups(tri: &[CompactFacet], group: &[u32], npts: usize) -> (Vec<u32>, Vec<u32>) {
    // Faces per vertex: a vertex is extreme iff it lies on at least three faces.
    // Indexed by input point; a point on no alive facet keeps `[NONE; 3]` and is skipped.
    let mut vertex_groups: Vec<[u32; 3]> = vec![[NONE; 3]; npts];
    for f in 0..tri.len() as u32 {
        let g = group[f as usize];
        for &v in &tri[f as usize].v {
            let e = &mut vertex_groups[v as usize];
            if !e.contains(&g) {
                if let Some(slot) = e.iter_mut().find(|x| **x == NONE) {
                    *slot = g;
                }
            }
        }
    }
    number_extreme(npts, |v| vertex_groups[v][2] != NONE)
}

/// The points `v < npts` with `extreme(v)`, in input order, and each point's index among them
/// (`NONE` for the others).
fn number_extreme(npts: usize, extreme: impl Fn(usize) -> bool) -> (Vec<u32>, Vec<u32>) {
    let mut new_index: Vec<u32> = vec![NONE; npts];
    let mut kept: Vec<u32> = Vec::new();
    for (v, slot) in new_index.iter_mut().enumerate() {
        if extreme(v) {
            *slot = kept.len() as u32;
            kept.push(v as u32);
        }
    }
    (kept, new_index)
}

/// Each face's boundary loop over the extreme vertices (corners that are not extreme are
/// skipped), faces in the order of their first facet in creation order.
fn boundary_loops(
    tri: &[CompactFacet],
    group: &[u32],
    ngroups: u32,
    new_index: &[u32],
) -> Result<Vec<Vec<u32>>, PolycdError> {
    boundary_loops_by(tri, group, ngroups, new_index, true)
}

/// [`boundary_loops`]; `shortcut`: whether a hull of one face per facet takes each facet's
/// corners without the walk (false only in the tests, which compare the two).
fn boundary_loops_by(
    tri: &[CompactFacet],
    group: &[u32],
    ngroups: u32,
    new_index: &[u32],
    shortcut: bool,
) -> Result<Vec<Vec<u32>>, PolycdError> {
    if shortcut && ngroups as usize == tri.len() && tri.iter().enumerate().all(|(f, t)| !t.nbr.contains(&(f as u32))) {
        // Every facet a face by itself (`ngroups` non-empty groups of `tri.len()` facets):
        // the walk below starts at edge 0 (its neighbour is another facet, so another face)
        // and visits the corners in order, so each face is its facet's corners `v[0], v[1],
        // v[2]` that are extreme, in creation order. Without the walk's reads of three
        // neighbours' groups per corner, or growing each face's list.
        let mut faces: Vec<Vec<u32>> = Vec::with_capacity(tri.len());
        for t in tri {
            let mut face = Vec::with_capacity(3);
            face.extend(t.v.iter().map(|&v| new_index[v as usize]).filter(|&nv| nv != NONE));
            if face.len() < 3 {
                return Err(internal("a merged face has fewer than three corners"));
            }
            faces.push(face);
        }
        return Ok(faces);
    }
    let alive: Vec<u32> = (0..tri.len() as u32).collect();
    // Boundary loops of each group.
    let mut faces: Vec<Vec<u32>> = Vec::with_capacity(ngroups as usize);
    // Indexed by face label: a facet number (see `group_facets_by`).
    let mut done = vec![false; tri.len()];
    // First boundary edge of each group (in `alive` order, then edge order): one pass
    // instead of a search over all facets per group.
    let mut first_boundary: Vec<Option<(u32, usize)>> = vec![None; tri.len()];
    for &h in &alive {
        let g = group[h as usize];
        if first_boundary[g as usize].is_some() {
            continue;
        }
        for i in 0..3 {
            if group[tri[h as usize].nbr[i] as usize] != g {
                first_boundary[g as usize] = Some((h, i));
                break;
            }
        }
    }
    for &f in &alive {
        let g = group[f as usize];
        if done[g as usize] {
            continue;
        }
        // Find a boundary edge of this group starting from any of its facets.
        let start = first_boundary[g as usize];
        done[g as usize] = true;
        let Some((sf, si)) = start else {
            return Err(internal("a face group has no boundary"));
        };
        let mut loop_v: Vec<u32> = Vec::new();
        let (mut cf, mut ci) = (sf, si);
        let limit = 3 * alive.len() + 3;
        let mut steps = 0usize;
        loop {
            steps += 1;
            if steps > limit {
                return Err(internal("face boundary walk did not close"));
            }
            let v = tri[cf as usize].v[ci];
            let nv = new_index[v as usize];
            if nv != NONE {
                loop_v.push(nv);
            }
            // Next boundary edge: from the end vertex of (cf, ci), rotate through facets
            // of the same group.
            let mut nf = cf;
            let mut ni = (ci + 1) % 3;
            let mut guard = 0usize;
            while group[tri[nf as usize].nbr[ni] as usize] == g {
                guard += 1;
                if guard > alive.len() {
                    return Err(internal("face rotation did not terminate"));
                }
                let across = tri[nf as usize].nbr[ni];
                let start_v = tri[nf as usize].v[ni];
                // In `across`, the edge entering start_v's... find edge starting at start_v.
                let av = tri[across as usize].v;
                let k = (0..3)
                    .find(|&k| av[k] == start_v)
                    .ok_or_else(|| internal("broken facet adjacency"))?;
                nf = across;
                ni = k;
            }
            cf = nf;
            ci = ni;
            if cf == sf && ci == si {
                break;
            }
        }
        if loop_v.len() < 3 {
            return Err(internal("a merged face has fewer than three corners"));
        }
        faces.push(loop_v);
    }
    Ok(faces)
}

/// A facet as the merge reads it: corners, neighbours (indices into the compact table) and
/// its float plane (read for each seed: kept here, not in the scattered `Facet` records).
#[derive(Clone, Copy)]
struct CompactFacet {
    v: [u32; 3],
    nbr: [u32; 3],
    normal: DVec3,
    offset: f64,
}

/// Light structural check of merged faces: every face has ≥ 3 corners over vertices `< nv`,
/// every directed edge appears once with its reverse once, and V − E + F = 2.
///
/// O(E log d) for E directed edges and vertex degree d, without hashing: the directed edges
/// are grouped by origin (counting sort), each vertex's targets sorted, duplicates found as
/// equal neighbours and every reverse edge by binary search. (A hash map of the 6·10⁶
/// directed edges of a 10⁶-point sphere took about a second and 100 MB.)
pub(super) fn faces_are_closed(faces: &[Vec<u32>], nv: usize) -> bool {
    let Some((start, targets)) = edges_by_origin(faces, nv) else {
        return false;
    };
    let mut targets = targets;
    for v in 0..nv {
        let list = &mut targets[start[v] as usize..start[v + 1] as usize];
        list.sort_unstable();
        if list.windows(2).any(|w| w[0] == w[1]) {
            return false;
        }
    }
    for a in 0..nv {
        for &b in &targets[start[a] as usize..start[a + 1] as usize] {
            let back = &targets[start[b as usize] as usize..start[b as usize + 1] as usize];
            if back.binary_search(&(a as u32)).is_err() {
                return false;
            }
        }
    }
    let directed = targets.len();
    nv as i64 - (directed / 2) as i64 + faces.len() as i64 == 2
}

/// The directed edges `f[k] → f[k+1]` of `faces` grouped by origin: `(start, targets)` with
/// the targets of vertex `v` at `targets[start[v]..start[v + 1]]`, in face order. `None` when
/// a face has fewer than three corners, names a vertex `≥ nv`, or has an edge from a vertex
/// to itself.
fn edges_by_origin(faces: &[Vec<u32>], nv: usize) -> Option<(Vec<u32>, Vec<u32>)> {
    let mut start = vec![0u32; nv + 1];
    for f in faces {
        if f.len() < 3 {
            return None;
        }
        for (k, &a) in f.iter().enumerate() {
            let b = f[(k + 1) % f.len()];
            if a as usize >= nv || b as usize >= nv || a == b {
                return None;
            }
            start[a as usize + 1] += 1;
        }
    }
    for v in 0..nv {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut targets = vec![0u32; start[nv] as usize];
    for f in faces {
        for (k, &a) in f.iter().enumerate() {
            let slot = &mut fill[a as usize];
            targets[*slot as usize] = f[(k + 1) % f.len()];
            *slot += 1;
        }
    }
    Some((start, targets))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Where no facets merge, counting facets picks the vertices that counting distinct
    /// faces picks, numbered alike (clouds in a ball, on a sphere, and far from the origin).
    #[test]
    fn counting_facets_picks_the_extreme_vertices_of_counting_faces() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
        let mut fast = 0;
        for (n, on_sphere, shift) in [
            (50usize, false, 0.0),
            (2000, false, 0.0),
            (3000, true, 0.0),
            (3000, true, 1e7),
        ] {
            let pts: Vec<DVec3> = (0..n)
                .map(|_| {
                    let p = DVec3::new(
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                    );
                    (if on_sphere { p.normalize() } else { p }) + DVec3::splat(shift)
                })
                .collect();
            let mut q = Quickhull::new(&pts).unwrap();
            q.run(&mut |_, _, _| {}).unwrap();
            let tri = q.compact_facets().unwrap();
            let (group, ngroups) = group_facets(&tri, &pts, 0.0);
            let general = extreme_by_groups(&tri, &group, pts.len());
            let counted = extreme_vertices(&tri, &group, ngroups, pts.len());
            assert_eq!(general, counted);
            fast += usize::from(ngroups as usize == tri.len());
            assert!(general.0.len() >= 4);
        }
        assert!(fast >= 3, "{fast}");
    }

    /// The merge's shortcuts for hulls whose facets take no neighbour (no seed sort; each
    /// face its facet's corners, no walk) give the faces the seed sort and the walk give:
    /// clouds in general position (where the shortcuts apply), in a ball, on a sphere, far
    /// from the origin and tiny, and clouds with coplanar points and a positive tolerance
    /// (where they must not apply), compared face for face.
    #[test]
    fn shortcuts_give_the_faces_of_the_seed_sort_and_the_walk() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2904);
        let mut taken = 0;
        for (n, kind, shift, scale, tol) in [
            (40usize, 0u8, 0.0, 1.0, 0.0),
            (3000, 0, 0.0, 1.0, 0.0),
            (3000, 1, 0.0, 1.0, 0.0),
            (3000, 1, 1e7, 1.0, 0.0),
            (2000, 1, 0.0, 1e-9, 0.0),
            (2000, 1, 0.0, 1.0, 1e-3),
            (500, 2, 0.0, 1.0, 0.0),
            (500, 2, 0.0, 1.0, 1e-9),
        ] {
            let pts: Vec<DVec3> = (0..n)
                .map(|_| {
                    let p = DVec3::new(
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                    );
                    let p = match kind {
                        0 => p,
                        1 => p.normalize(),
                        // Points of a grid: coplanar facets on the cube's sides.
                        _ => (p * 3.0).round(),
                    };
                    p * scale + DVec3::splat(shift)
                })
                .collect();
            let mut q = Quickhull::new(&pts).unwrap();
            q.run(&mut |_, _, _| {}).unwrap();
            let tri = q.compact_facets().unwrap();
            let (group, ngroups) = group_facets_by(&tri, &pts, tol, true);
            let (sorted_group, sorted_ngroups) = group_facets_by(&tri, &pts, tol, false);
            assert_eq!(ngroups, sorted_ngroups);
            // The same partition (labels may differ): facets grouped alike.
            for f in 0..tri.len() {
                for i in 0..3 {
                    let h = tri[f].nbr[i] as usize;
                    assert_eq!(group[f] == group[h], sorted_group[f] == sorted_group[h]);
                }
            }
            let (_, new_index) = extreme_vertices(&tri, &group, ngroups, pts.len());
            let short = boundary_loops_by(&tri, &group, ngroups, &new_index, true).unwrap();
            let walked = boundary_loops_by(&tri, &sorted_group, sorted_ngroups, &new_index, false).unwrap();
            assert_eq!(short, walked);
            taken += usize::from(ngroups as usize == tri.len());
            if kind == 2 {
                assert!((ngroups as usize) < tri.len(), "grid faces merge");
            }
        }
        assert!(taken >= 5, "{taken}");
    }
}
