//! Point queries and ray casts on a closed mesh (issue 22 item 6, issue 23): [`point_query`]
//! and [`ray_cast`].
//!
//! **Inside or outside** is decided exactly by the winding number of the surface about the
//! point (the ray-crossing count of `nest::winding_at`, exact `orient3d` signs, the one the
//! components' nesting uses): a point exactly on a triangle is on the boundary. Where every
//! probe ray of the count grazes an edge (at most 8 fixed directions), the closest distance
//! decides on the boundary (0) and the solid-angle sum ([`TriMesh::contains_point`]) otherwise.
//!
//! **Closest point**: the nearest triangle, by a depth-first walk of the hull tree that skips
//! nodes whose bounding sphere lies farther than the best distance so far (a fixed stack of
//! [`STACK`] nodes; a deeper tree falls back to every triangle, allocation-free either way).
//!
//! **Ray**: the first triangle the ray's segment from the origin to a point beyond the mesh
//! passes through (exact `orient3d` signs of the segment against the triangle's edges: a ray
//! through an edge or vertex hits), nodes pruned by their bounding spheres; `t` from the
//! triangle's plane. A ray starting inside has `t = 0` and no normal; one starting on the
//! surface `t = 0` and the normal of a triangle through the origin.

use crate::contract::{checked_pose, Containment};
use crate::core::error::PolycdError;
use crate::core::geometry::closest_on_triangle;
use crate::core::math::{DVec3, Pose};
use crate::core::predicates::{orient3d, Orientation};
use crate::core::tolerance::MAX_COORDINATE;

use super::nest::{winding_at, Winding};
use super::trimesh::TriMesh;

/// Depth of the fixed traversal stack.
const STACK: usize = 96;

/// A point against a mesh: exact containment, signed distance (negative inside), the closest
/// surface point (world frame) and the triangle carrying it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshPointAnswer {
    /// Inside, on the surface or outside (exact, see the module header).
    pub containment: Containment,
    /// Distance to the surface: positive outside, negative inside, 0 on it.
    pub signed_distance: f64,
    /// The closest surface point (world frame); the point itself on the surface.
    pub point: DVec3,
    /// The triangle (mesh triangle index) carrying [`point`](Self::point); its input face is
    /// [`TriMesh::input_face`].
    pub triangle: u32,
}

/// A ray's first hit on a mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshRayHit {
    /// The ray parameter in units of the direction as given (0 when the origin is in the
    /// solid or on its surface).
    pub t: f64,
    /// The hit point (world frame).
    pub point: DVec3,
    /// The outward unit normal of the triangle hit (world frame); zero from strictly inside.
    pub normal: DVec3,
    /// The triangle hit (mesh triangle index); `None` from strictly inside.
    pub triangle: Option<u32>,
}

fn check_vector(v: DVec3, name: &'static str) -> Result<(), PolycdError> {
    if !v.is_finite() {
        return Err(PolycdError::InvalidOption {
            name,
            message: "coordinates must be finite",
        });
    }
    let m = v.abs().max_element();
    if m > MAX_COORDINATE {
        return Err(PolycdError::AbsurdMagnitude { value: m });
    }
    Ok(())
}

/// A box holding every vertex: the cube about the bounding-box centre of half-side `scale`
/// (the ball of that radius holds the mesh), widened by rounding.
pub(super) fn mesh_box(mesh: &TriMesh) -> (DVec3, DVec3) {
    let h = mesh.scale * (1.0 + 1e-9) + 1e-300;
    (mesh.box_centre - DVec3::splat(h), mesh.box_centre + DVec3::splat(h))
}

fn triangle(mesh: &TriMesh, t: u32) -> [DVec3; 3] {
    mesh.triangles[t as usize].map(|v| mesh.vertices[v as usize])
}

fn unit_normal(tri: [DVec3; 3]) -> DVec3 {
    let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
    let l = n.length();
    if l > 0.0 {
        n / l
    } else {
        DVec3::ZERO
    }
}

/// What [`walk`] shows its visitor.
enum Visit {
    /// A node's bounding sphere (centre, radius): descend when the visitor returns `true`.
    Node(DVec3, f64),
    /// A leaf's piece (its triangles are the visitor's to test).
    Piece(usize),
}

/// A depth-first walk of the hull tree: nodes whose sphere the visitor keeps are descended,
/// leaves handed over as pieces; every piece when the fixed stack overflows.
fn walk(mesh: &TriMesh, mut visit: impl FnMut(Visit) -> bool) {
    if mesh.nodes.is_empty() {
        return;
    }
    let mut stack = [0u32; STACK];
    stack[0] = mesh.root;
    let mut top = 1;
    while top > 0 {
        top -= 1;
        let node = &mesh.nodes[stack[top] as usize];
        let (c, r) = node.bounding_sphere();
        if !visit(Visit::Node(c, r)) {
            continue;
        }
        match node.children {
            Some((x, y)) if top + 2 <= STACK => {
                stack[top] = x;
                stack[top + 1] = y;
                top += 2;
            }
            Some(_) => {
                for piece in 0..mesh.pieces.len() {
                    visit(Visit::Piece(piece));
                }
                return;
            }
            None => {
                visit(Visit::Piece(node.piece as usize));
            }
        }
    }
}

/// The nearest triangle to `q` (mesh frame): (squared distance, closest point, triangle).
fn nearest(mesh: &TriMesh, q: DVec3) -> (f64, DVec3, u32) {
    let mut best = (f64::INFINITY, q, 0u32);
    walk(mesh, |visit| {
        let (c, r) = match visit {
            Visit::Node(c, r) => (c, r),
            Visit::Piece(piece) => {
                for &t in &mesh.pieces[piece] {
                    let [a, b, cc] = triangle(mesh, t);
                    let p = closest_on_triangle(q, a, b, cc);
                    let d = (p - q).length_squared();
                    if d < best.0 {
                        best = (d, p, t);
                    }
                }
                return true;
            }
        };
        let lower = ((q - c).length() - r).max(0.0);
        // Keep the node unless it is certainly farther (a relative margin for rounding).
        lower * lower <= best.0 * (1.0 + 1e-9)
    });
    best
}

/// The point `point` (world frame) against `mesh` at `pose`.
///
/// Errors: a non-finite or absurd point, a bad pose.
pub fn point_query(mesh: &TriMesh, pose: &Pose, point: DVec3) -> Result<MeshPointAnswer, PolycdError> {
    check_vector(point, "point")?;
    let pose = checked_pose(pose)?;
    let q = pose.inverse_transform_point(point);
    let (d2, closest, tri) = nearest(mesh, q);
    let d = d2.sqrt();
    let all = 0..mesh.triangles.len() as u32;
    let containment = match winding_at(&mesh.vertices, &mesh.triangles, all, q, mesh_box(mesh)) {
        Winding::On(t) => {
            return Ok(MeshPointAnswer {
                containment: Containment::Boundary,
                signed_distance: 0.0,
                point,
                triangle: t,
            })
        }
        Winding::Count(0) => Containment::Outside,
        Winding::Count(_) => Containment::Inside,
        Winding::Grazing if d == 0.0 => Containment::Boundary,
        Winding::Grazing if mesh.contains_point(q) => Containment::Inside,
        Winding::Grazing => Containment::Outside,
    };
    Ok(MeshPointAnswer {
        containment,
        signed_distance: match containment {
            Containment::Inside => -d,
            Containment::Boundary => 0.0,
            Containment::Outside => d,
        },
        point: if containment == Containment::Boundary {
            point
        } else {
            pose.transform_point(closest)
        },
        triangle: tri,
    })
}

/// The first hit of the ray `origin + t·direction`, `t ≥ 0`, on the solid `mesh` at `pose`
/// (`None`: a miss).
///
/// Errors: a non-finite or absurd origin, a zero or non-finite direction
/// ([`PolycdError::BadDirection`]), a bad pose.
pub fn ray_cast(
    mesh: &TriMesh,
    pose: &Pose,
    origin: DVec3,
    direction: DVec3,
) -> Result<Option<MeshRayHit>, PolycdError> {
    check_vector(origin, "origin")?;
    if !direction.is_finite() || direction == DVec3::ZERO {
        return Err(PolycdError::BadDirection);
    }
    let pose = checked_pose(pose)?;
    let m = direction.abs().max_element();
    let scaled = direction / m;
    let len = m * scaled.length();
    let o = pose.inverse_transform_point(origin);
    let u = pose.inverse_transform_vector(scaled / scaled.length());
    let p = point_query(mesh, &Pose::IDENTITY, o)?;
    match p.containment {
        Containment::Inside => {
            return Ok(Some(MeshRayHit {
                t: 0.0,
                point: origin,
                normal: DVec3::ZERO,
                triangle: None,
            }))
        }
        Containment::Boundary => {
            // The triangle through the origin: among those holding it, the one most facing
            // the ray.
            let mut best = (f64::INFINITY, p.triangle);
            for (i, _) in mesh.triangles.iter().enumerate() {
                let tri = triangle(mesh, i as u32);
                if closest_on_triangle(o, tri[0], tri[1], tri[2]) == o || i as u32 == p.triangle {
                    let k = unit_normal(tri).dot(u);
                    if k < best.0 {
                        best = (k, i as u32);
                    }
                }
            }
            return Ok(Some(MeshRayHit {
                t: 0.0,
                point: origin,
                normal: pose.transform_vector(unit_normal(triangle(mesh, best.1))),
                triangle: Some(best.1),
            }));
        }
        Containment::Outside => {}
    }
    // The far end: beyond the mesh's ball along the ray.
    let reach = 2.0 * ((o - mesh.box_centre).length() + 2.0 * mesh.scale) + 1.0;
    let far = o + u * reach;
    let mut best: Option<(f64, u32)> = None;
    walk(mesh, |visit| {
        let (c, r) = match visit {
            Visit::Node(c, r) => (c, r),
            Visit::Piece(piece) => {
                for &t in &mesh.pieces[piece] {
                    let tri = triangle(mesh, t);
                    let [a, b, cc] = tri;
                    let (so, sf) = (orient3d(a, b, cc, o), orient3d(a, b, cc, far));
                    if so != Orientation::Above || sf == Orientation::Above {
                        // Entering a solid's surface from outside: through a triangle's front.
                        continue;
                    }
                    let sides = [orient3d(o, far, a, b), orient3d(o, far, b, cc), orient3d(o, far, cc, a)];
                    if sides.contains(&Orientation::Above) {
                        continue;
                    }
                    let n = unit_normal(tri);
                    let nd = n.dot(u);
                    let th = if nd < 0.0 { (a - o).dot(n) / nd } else { (a - o).dot(u) };
                    let th = th.max(0.0);
                    if best.is_none_or(|(bt, _)| th < bt) {
                        best = Some((th, t));
                    }
                }
                return true;
            }
        };
        // The ray against the node's sphere, and against the best hit so far.
        let w = c - o;
        let along = w.dot(u);
        let perp2 = (w - u * along).length_squared();
        let r2 = r * r * (1.0 + 1e-9);
        if perp2 > r2 {
            return false;
        }
        let enter = along - (r2 - perp2).max(0.0).sqrt();
        along + r * (1.0 + 1e-9) >= 0.0 && best.is_none_or(|(bt, _)| enter <= bt * (1.0 + 1e-9) + 1e-300)
    });
    let Some((th, tri)) = best else {
        return Ok(None);
    };
    let t = th / len;
    if !t.is_finite() {
        return Err(PolycdError::InvalidOption {
            name: "direction",
            message: "too short: the hit's parameter t overflows",
        });
    }
    Ok(Some(MeshRayHit {
        t,
        point: origin + pose.transform_vector(u) * th,
        normal: pose.transform_vector(unit_normal(triangle(mesh, tri))),
        triangle: Some(tri),
    }))
}
