//! Convex surface decomposition (FAST §3.3): greedy convex patches whose hulls stay inside
//! the solid.

use super::tree::{bounds, HullNode, NONE};
use super::trimesh::TriMesh;
use super::MAX_PATCH;
use crate::core::error::{MeshDefect, PolycdError};
use crate::core::math::DVec3;
use crate::core::predicates::strictly_above;
use crate::core::tolerance::CCD_PIECE_REL;
use crate::shape::polyhedron::ConvexPolyhedron;
use std::collections::HashMap;

impl TriMesh {
    pub(crate) fn decompose(&mut self) -> Result<(), PolycdError> {
        let n = self.triangles.len();
        // Triangle adjacency across each edge.
        let mut edge_tri: HashMap<(u32, u32), u32> = HashMap::with_capacity(n * 3);
        for (i, t) in self.triangles.iter().enumerate() {
            for k in 0..3 {
                edge_tri.insert((t[k], t[(k + 1) % 3]), i as u32);
            }
        }
        let mut nbr = vec![[NONE; 3]; n];
        for (i, t) in self.triangles.iter().enumerate() {
            for k in 0..3 {
                nbr[i][k] = edge_tri.get(&(t[(k + 1) % 3], t[k])).copied().unwrap_or(NONE);
            }
        }
        let boxes: Vec<(DVec3, DVec3)> = self
            .triangles
            .iter()
            .map(|t| bounds(t.iter().map(|&v| self.vertices[v as usize])))
            .collect();
        let eps = CCD_PIECE_REL * self.scale;
        let mut piece_of = vec![NONE; n];
        let mut leaves: Vec<ConvexPolyhedron> = Vec::new();
        let mut queue = std::collections::VecDeque::new();
        for seed in 0..n {
            if piece_of[seed] != NONE {
                continue;
            }
            let id = self.pieces.len() as u32;
            let mut patch = vec![seed as u32];
            let mut hull = self.piece_hull_of(&patch, &boxes, eps).ok_or_else(|| {
                PolycdError::InvalidMesh(Box::new(MeshDefect::Degenerate(
                    "a triangle admits no solid convex piece inside the mesh",
                )))
            })?;
            piece_of[seed] = id;
            queue.clear();
            queue.extend(nbr[seed].iter().copied().filter(|&f| f != NONE));
            while let Some(f) = queue.pop_front() {
                if piece_of[f as usize] != NONE || patch.len() >= MAX_PATCH {
                    continue;
                }
                if !self.convex_with(&patch, f) {
                    continue;
                }
                patch.push(f);
                match self.piece_hull_of(&patch, &boxes, eps) {
                    Some(h) => {
                        hull = h;
                        piece_of[f as usize] = id;
                        queue.extend(nbr[f as usize].iter().copied().filter(|&g| g != NONE));
                    }
                    None => {
                        patch.pop();
                    }
                }
            }
            self.pieces.push(patch);
            leaves.push(hull);
        }
        self.nodes = leaves
            .into_iter()
            .enumerate()
            .map(|(i, hull)| HullNode {
                hull,
                children: None,
                piece: i as u32,
            })
            .collect();
        Ok(())
    }

    /// Patch `∪ {f}` is convex: no vertex strictly above any triangle's plane (exact).
    pub(crate) fn convex_with(&self, patch: &[u32], f: u32) -> bool {
        let tf = self.triangles[f as usize].map(|v| self.vertices[v as usize]);
        for &g in patch {
            let tg = self.triangles[g as usize].map(|v| self.vertices[v as usize]);
            for &p in &tf {
                if strictly_above(tg[0], tg[1], tg[2], p) {
                    return false;
                }
            }
            for &p in &tg {
                if strictly_above(tf[0], tf[1], tf[2], p) {
                    return false;
                }
            }
        }
        true
    }

    /// The piece of a convex patch: its hull (with an inner point when flat), if that hull
    /// stays inside the solid.
    pub(crate) fn piece_hull_of(&self, patch: &[u32], boxes: &[(DVec3, DVec3)], eps: f64) -> Option<ConvexPolyhedron> {
        let mut pts: Vec<DVec3> = Vec::with_capacity(patch.len() * 3 + 1);
        for &g in patch {
            for &v in &self.triangles[g as usize] {
                let p = self.vertices[v as usize];
                if !pts.contains(&p) {
                    pts.push(p);
                }
            }
        }
        // A flat patch's hull is a polygon (issue 22): it takes the point behind it below.
        if let Ok(h) = ConvexPolyhedron::from_points(&pts).map_err(|_| ()).and_then(solid) {
            return self.inside(&h, boxes, eps).then_some(h);
        }
        // Flat patch: add a point behind it.
        let mut normal = DVec3::ZERO;
        for &g in patch {
            let [a, b, c] = self.triangles[g as usize].map(|v| self.vertices[v as usize]);
            normal += (b - a).cross(c - a);
        }
        let normal = normal.try_normalize()?;
        let centre = pts.iter().copied().sum::<DVec3>() / pts.len() as f64;
        let mut depth = pts.iter().map(|p| (*p - centre).length()).fold(0.0, f64::max);
        pts.push(centre);
        for _ in 0..40 {
            if let Some(last) = pts.last_mut() {
                *last = centre - normal * depth;
            }
            if let Ok(h) = ConvexPolyhedron::from_points(&pts).map_err(|_| ()).and_then(solid) {
                if self.inside(&h, boxes, eps) {
                    return Some(h);
                }
            }
            depth *= 0.5;
        }
        None
    }

    /// No mesh triangle reaches more than `eps` into the hull (a solid).
    pub(crate) fn inside(&self, h: &ConvexPolyhedron, boxes: &[(DVec3, DVec3)], eps: f64) -> bool {
        let (lo, hi) = bounds(h.vertices().iter().copied());
        let planes: Vec<_> = (0..h.faces().len() as u32).map(|f| h.face_plane(f)).collect();
        let mut poly: Vec<DVec3> = Vec::with_capacity(16);
        let mut next: Vec<DVec3> = Vec::with_capacity(16);
        for (i, t) in self.triangles.iter().enumerate() {
            let (bl, bh) = boxes[i];
            if bl.cmpgt(hi - DVec3::splat(eps)).any() || bh.cmplt(lo + DVec3::splat(eps)).any() {
                continue;
            }
            poly.clear();
            poly.extend(t.iter().map(|&v| self.vertices[v as usize]));
            for pl in &planes {
                // Keep the part at least eps below the plane (Sutherland–Hodgman).
                next.clear();
                for k in 0..poly.len() {
                    let p = poly[k];
                    let q = poly[(k + 1) % poly.len()];
                    let dp = pl.signed_distance(p) + eps;
                    let dq = pl.signed_distance(q) + eps;
                    if dp <= 0.0 {
                        next.push(p);
                    }
                    if (dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0) {
                        next.push(p + (q - p) * (dp / (dp - dq)));
                    }
                }
                std::mem::swap(&mut poly, &mut next);
                if poly.is_empty() {
                    break;
                }
            }
            if !poly.is_empty() {
                return false;
            }
        }
        true
    }
}

/// `h` if it is a solid (pieces are solids; a flat hull gets a point behind it instead).
fn solid(h: ConvexPolyhedron) -> Result<ConvexPolyhedron, ()> {
    if h.dimension() == 3 {
        Ok(h)
    } else {
        Err(())
    }
}
