//! Nesting of a mesh's closed shells: which shell encloses which (exact ray crossings).

use crate::core::error::{MeshDefect, MeshFace, PolycdError};
use crate::core::math::DVec3;
use crate::core::predicates::{orient3d, Orientation};

/// Where one component lies relative to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Nest {
    /// Outside it.
    Out,
    /// Enclosed by it.
    In,
    /// No vertex of it is off the other's surface, or every ray from its vertices grazes an
    /// edge: the two touch.
    Touching,
    /// The other component's crossing count exceeds one: it crosses itself.
    SelfCrossing,
}

/// Directions of the rays of [`nested_in`]: fixed, and in no plane or line of the simple
/// coordinates a mesh usually has (a ray that grazes an edge or vertex is retried along the
/// next one).
const RAY_DIRECTIONS: [[f64; 3]; 8] = [
    [0.8173, 0.3141, 0.4827],
    [-0.2718, 0.9016, 0.3363],
    [0.4142, -0.5772, 0.7032],
    [-0.6933, -0.4472, -0.5654],
    [0.1234, 0.7073, -0.6962],
    [0.9273, -0.2236, -0.3005],
    [-0.3827, 0.1618, 0.9096],
    [-0.5878, -0.8090, 0.1049],
];

/// Is the component whose triangles are `own` inside the closed component `theirs` (with
/// bounding box `bx`)? A vertex of `own` outside the box is outside. Otherwise the segment
/// from the vertex to a point beyond the box along a fixed direction is tested against each
/// triangle of `theirs` with exact [`orient3d`] signs, and the signed crossings summed (the
/// winding number: 0 outside, ±1 inside an embedded closed surface). A vertex on the other
/// surface, or a ray through an edge or vertex, is retried with the next direction and then
/// the next vertex. Bounded: at most 8 rays per vertex of `own`, each over `theirs`.
pub(crate) fn nested_in(
    vertices: &[DVec3],
    triangles: &[[u32; 3]],
    own: &[u32],
    theirs: &[u32],
    bx: (DVec3, DVec3),
) -> Nest {
    for &t in own {
        for &v in &triangles[t as usize] {
            let p = vertices[v as usize];
            match winding_at(vertices, triangles, theirs.iter().copied(), p, bx) {
                Winding::Count(0) => return Nest::Out,
                Winding::Count(1 | -1) => return Nest::In,
                Winding::Count(_) => return Nest::SelfCrossing,
                // On the other surface, or every ray grazing: try another vertex.
                Winding::On(_) | Winding::Grazing => {}
            }
        }
    }
    Nest::Touching
}

/// The exact winding number of a closed surface about a point ([`winding_at`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Winding {
    /// The signed count of crossings of a ray from the point (0 outside, ±1 inside an
    /// embedded closed surface).
    Count(i64),
    /// The point lies exactly on this triangle of the surface.
    On(u32),
    /// Every ray direction passed through an edge or vertex, or slid in a triangle's plane.
    Grazing,
}

/// The winding number of the triangles `theirs` (with bounding box `bx`) about `p`: a point
/// outside the box is outside (count 0). Otherwise the segment from `p` to a point beyond
/// the box along a fixed direction is tested against each triangle with exact [`orient3d`]
/// signs, and the signed crossings summed. A ray through an edge or vertex is retried with
/// the next direction; `p` exactly on a triangle is reported as such. Bounded: at most 8
/// rays, each over `theirs`.
pub(crate) fn winding_at(
    vertices: &[DVec3],
    triangles: &[[u32; 3]],
    theirs: impl Iterator<Item = u32> + Clone,
    p: DVec3,
    bx: (DVec3, DVec3),
) -> Winding {
    if p.cmplt(bx.0).any() || p.cmpgt(bx.1).any() {
        return Winding::Count(0);
    }
    let centre = 0.5 * (bx.0 + bx.1);
    let radius = 0.5 * (bx.1 - bx.0).length();
    'rays: for d in RAY_DIRECTIONS {
        let d = DVec3::from_array(d);
        // The far end: beyond the box (checked, as the sum rounds).
        let mut reach = 2.0 * ((p - centre).length() + radius);
        let mut q = p + d * reach;
        for _ in 0..64 {
            if q.cmplt(bx.0).any() || q.cmpgt(bx.1).any() {
                break;
            }
            reach *= 2.0;
            q = p + d * reach;
        }
        if !(q.cmplt(bx.0).any() || q.cmpgt(bx.1).any()) {
            continue;
        }
        let mut winding = 0i64;
        for u in theirs.clone() {
            let [a, b, c] = triangles[u as usize].map(|w| vertices[w as usize]);
            let sp = orient3d(a, b, c, p);
            let sq = orient3d(a, b, c, q);
            let sides = [orient3d(p, q, a, b), orient3d(p, q, b, c), orient3d(p, q, c, a)];
            let above = sides.iter().filter(|&&o| o == Orientation::Above).count();
            let below = sides.iter().filter(|&&o| o == Orientation::Below).count();
            match (sp, sq) {
                (Orientation::On, Orientation::On) => {
                    // The segment lies in the triangle's plane: retry unless the line
                    // misses it.
                    if above > 0 && below > 0 {
                        continue;
                    }
                    continue 'rays;
                }
                (Orientation::On, _) => {
                    // The segment meets the plane at p only: p on the triangle?
                    if above == 0 || below == 0 {
                        return Winding::On(u);
                    }
                }
                // q is beyond the box, so not on the triangle: meets the plane only there.
                (_, Orientation::On) => {}
                (x, y) if x == y => {}
                _ => {
                    if above == 3 || below == 3 {
                        winding += if sp == Orientation::Below { 1 } else { -1 };
                    } else if above == 0 || below == 0 {
                        // Through an edge or a vertex of the triangle.
                        continue 'rays;
                    }
                }
            }
        }
        return Winding::Count(winding);
    }
    Winding::Grazing
}

/// Nesting depth of each of `k > 1` components (how many other components enclose it), by
/// one vertex of each against each other component whose bounding box holds it. Refuses
/// components that cross or touch ([`MeshDefect::IntersectingComponents`], naming each by
/// its first face, `first_face(c)`).
pub(crate) fn nesting_depths(
    vertices: &[DVec3],
    triangles: &[[u32; 3]],
    comp_of: &[u32],
    boxes: &[(DVec3, DVec3)],
    first_face: impl Fn(usize) -> MeshFace,
) -> Result<Vec<u32>, PolycdError> {
    let bad = |d: MeshDefect| PolycdError::InvalidMesh(Box::new(d));
    let (k, n) = (boxes.len(), triangles.len());
    let mut depth = vec![0u32; k];
    // Each component's triangles, contiguous (counting sort by component).
    let mut start = vec![0usize; k + 1];
    for &c in comp_of {
        start[c as usize + 1] += 1;
    }
    for c in 0..k {
        start[c + 1] += start[c];
    }
    let mut fill = start.clone();
    let mut members = vec![0u32; n];
    for (i, &c) in comp_of.iter().enumerate() {
        members[fill[c as usize]] = i as u32;
        fill[c as usize] += 1;
    }
    // The (inner, outer) pairs found, in increasing order (c, then d): as many as
    // the sum of the depths (not a k × k table: many small shells stay cheap).
    let mut inside: Vec<(u32, u32)> = Vec::new();
    for c in 0..k {
        let own = &members[start[c]..start[c + 1]];
        for d in 0..k {
            if d == c {
                continue;
            }
            let theirs = &members[start[d]..start[d + 1]];
            match nested_in(vertices, triangles, own, theirs, boxes[d]) {
                Nest::Out => {}
                Nest::In => {
                    let (bc, bd) = (boxes[c], boxes[d]);
                    if bc.0.cmplt(bd.0).any() || bc.1.cmpgt(bd.1).any() {
                        return Err(bad(MeshDefect::IntersectingComponents {
                            first: first_face(d),
                            second: first_face(c),
                        }));
                    }
                    inside.push((c as u32, d as u32));
                    depth[c] += 1;
                }
                Nest::Touching => {
                    return Err(bad(MeshDefect::IntersectingComponents {
                        first: first_face(d),
                        second: first_face(c),
                    }))
                }
                Nest::SelfCrossing => {
                    return Err(bad(MeshDefect::IntersectingComponents {
                        first: first_face(d),
                        second: first_face(d),
                    }))
                }
            }
        }
    }
    // Mutual containment: the shells cross. `inside` is sorted (pushed in order).
    for &(c, d) in &inside {
        if c < d && inside.binary_search(&(d, c)).is_ok() {
            return Err(bad(MeshDefect::IntersectingComponents {
                first: first_face(c as usize),
                second: first_face(d as usize),
            }));
        }
    }
    Ok(depth)
}
