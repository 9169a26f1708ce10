//! `polycd view`: one self-contained HTML page that shows two shapes and an answer about them
//! (a query's or a time of contact's), drawn with three.js.
//!
//! The page is `view/template.html` with `view/viewer.css`, `view/viewer.js` (the page's own,
//! hand-written script) and the vendored three.js (`view/vendor/three`, MIT) filled in, and the
//! scene as one JSON blob. It makes no network request: three.js is imported through an
//! import map of `data:` URLs, and a Content-Security-Policy forbids every other source.
//!
//! The scene format (`"format": "polycd-view/1"`):
//! - `answer`: the answer exactly as `polycd query --json`, `polycd toc --json` or
//!   `polycd batch` prints it; `status`, `query`, `command`, `units`, `title`;
//! - `bodies`: A and B in their own frames (`vertices`, polygon `faces`; meshes also `pieces`,
//!   the triangles of each convex piece, and `hull_levels`, the convex hull tree level by level);
//! - `frames`: poses of A and B (`t` along a motion; one frame for a static query) and the frame
//!   shown first (`frame`), with `marks` (`start`, `contact`, `end`) for motions;
//! - `layers`: what the answer adds, in world coordinates, each with `id`, `label`, `kind`,
//!   `color`, `visible` and `frame` (shown only at that frame, or at every frame when null).
//!   Kinds: `points` (witness or contact points: a manifold's points on A and on B are two
//!   more `points` layers, one when they coincide), `segment`, `plane` (a clipped quad),
//!   `arrow`, `polygon` (closed outlines, `loops`: contact polygons), `features` (vertices,
//!   edges or faces of the bodies, or a mesh's triangles), `body_copy` (a body at another
//!   pose), `simplex` (the Minkowski simplex certificate: pairs of vertices of A and B),
//!   `hulls` (a mesh's convex pieces as hulls, world frame);
//! - `view` (optional): the direction the camera looks from (a contact polygon seen obliquely).

use crate::answer::QueryKind;
use crate::batch;
use crate::toc::{self, Solid, TocInput};
use polycd::ccd::mesh::{self as cmesh, MeshToiCache};
use polycd::ccd::{self, CcdCache, RigidMotion};
use polycd::mesh::{self as pmesh, MeshAnswer, MeshDistance, Solid as PSolid, SolidCache, SolidFeature, TriMesh};
use polycd::query::{self, Directional, Distance, Intersection, OverlapWitness};
use polycd::{Algorithm, ConvexPolyhedron, DVec3, Feature, FeaturePair, ManifoldOptions, PairCache, Plane, Pose};
use serde_json::{json, Value};

const TEMPLATE: &str = include_str!("../view/template.html");
const CSS: &str = include_str!("../view/viewer.css");
const VIEWER_JS: &str = include_str!("../view/viewer.js");
const THREE_JS: &str = include_str!("../view/vendor/three/three.module.min.js");
const ORBIT_CONTROLS_JS: &str = include_str!("../view/vendor/three/OrbitControls.js");

/// The scene format's name and version.
pub const FORMAT: &str = "polycd-view/1";

/// Body colours (A, B).
pub const COLOR_A: &str = "#3b6fd6";
/// Body B's colour.
pub const COLOR_B: &str = "#e0892b";
/// The witness point on A (closest or deepest point).
pub const COLOR_POINT_A: &str = "#c000c0";
/// The witness point on B.
pub const COLOR_POINT_B: &str = "#00a040";
/// A point common to both shapes (touching, overlapping, contact).
pub const COLOR_CONTACT: &str = "#e00000";
const COLOR_SEGMENT: &str = "#202020";
const COLOR_PLANE: &str = "#7f8c99";
const COLOR_PENETRATION: &str = "#b0006a";
const COLOR_FEATURES: &str = "#101060";
const COLOR_SIMPLEX: &str = "#6a2cb0";
const COLOR_MOTION: &str = "#606060";
/// The outline of a contact polygon (a manifold's points on A, in order).
const COLOR_POLYGON: &str = "#d0a000";
/// A manifold's normal.
const COLOR_NORMAL: &str = "#008a8a";

/// The page's note when a manifold query found no manifold.
const NO_MANIFOLD: &str =
    "no contact manifold: the shapes are apart by more than the margin (the closest points are drawn)";

/// The page's note when the query gave no geometry to draw (its status and error are in the
/// answer).
const NO_GEOMETRY: &str = "nothing drawn for the answer: the query did not converge or failed (see its status)";
/// Samples of a motion on the timeline (plus the time of contact).
const TIMELINE_SAMPLES: usize = 120;
/// Hull tree levels sent at most (deeper levels are left out and said so).
const MAX_HULL_LEVELS: usize = 16;
/// Hull vertices sent at most over all levels of one body.
const MAX_HULL_LEVEL_VERTICES: usize = 200_000;

fn v3(p: DVec3) -> Value {
    json!([p.x, p.y, p.z])
}

fn pose_json(p: &Pose) -> Value {
    let q = p.rotation;
    json!({"translation": v3(p.translation), "rotation": [q.w, q.x, q.y, q.z]})
}

fn layer(id: &str, label: String, kind: &str, color: &str, visible: bool) -> Value {
    json!({"id": id, "label": label, "kind": kind, "color": color, "visible": visible, "frame": null})
}

fn points_layer(id: &str, label: String, color: &str, points: &[(String, DVec3)]) -> Value {
    let mut l = layer(id, label, "points", color, true);
    l["points"] = points.iter().map(|(n, p)| json!({"name": n, "at": v3(*p)})).collect();
    l
}

fn segment_layer(id: &str, label: String, from: DVec3, to: DVec3) -> Value {
    let mut l = layer(id, label, "segment", COLOR_SEGMENT, true);
    l["from"] = v3(from);
    l["to"] = v3(to);
    l
}

/// A plane as a square of side `size` centred at the projection of `near` onto it.
fn plane_layer(id: &str, label: String, plane: &Plane, near: DVec3, size: f64) -> Value {
    let center = near - plane.normal * plane.signed_distance(near);
    let mut l = layer(id, label, "plane", COLOR_PLANE, true);
    l["normal"] = v3(plane.normal);
    l["offset"] = json!(plane.offset);
    l["center"] = v3(center);
    l["size"] = json!(size);
    l
}

fn arrow_layer(id: &str, label: String, color: &str, from: DVec3, vector: DVec3) -> Value {
    let mut l = layer(id, label, "arrow", color, true);
    l["from"] = v3(from);
    l["vector"] = v3(vector);
    l
}

/// The world-frame corners of a feature (1 for a vertex, 2 for an edge, the polygon of a face).
fn feature_points(c: &ConvexPolyhedron, pose: &Pose, f: Feature) -> Vec<DVec3> {
    let ids: Vec<u32> = match f {
        Feature::Vertex(v) if (v as usize) < c.vertices().len() => vec![v],
        Feature::Edge(e) if (e as usize) < c.edges().len() => c.edge(e).vertices.to_vec(),
        Feature::Face(f) if (f as usize) < c.faces().len() => c.face_vertices(f).to_vec(),
        _ => Vec::new(),
    };
    ids.into_iter().map(|v| pose.transform_point(c.vertex(v))).collect()
}

fn features_layer(
    label: String,
    (a, pa): (&ConvexPolyhedron, &Pose),
    (b, pb): (&ConvexPolyhedron, &Pose),
    f: FeaturePair,
) -> Value {
    let mut l = layer("features", label, "features", COLOR_FEATURES, true);
    l["items"] = json!([
        {"body": 0, "feature": crate::answer::feature_text(f.a), "points": feature_points(a, pa, f.a).into_iter().map(v3).collect::<Vec<_>>()},
        {"body": 1, "feature": crate::answer::feature_text(f.b), "points": feature_points(b, pb, f.b).into_iter().map(v3).collect::<Vec<_>>()},
    ]);
    l
}

/// Two witness points (layers `{id}_a`, `{id}_b` and the segment `{id}_segment`), or one
/// common point (layer `{id}`) when they coincide.
fn witness_layers(out: &mut Vec<Value>, id: &str, what: &str, pa: DVec3, pb: DVec3) {
    if pa == pb {
        out.push(points_layer(id, what.to_string(), COLOR_CONTACT, &[(id.into(), pa)]));
        return;
    }
    out.push(points_layer(
        &format!("{id}_a"),
        format!("{what} on A"),
        COLOR_POINT_A,
        &[(format!("{id}_a"), pa)],
    ));
    out.push(points_layer(
        &format!("{id}_b"),
        format!("{what} on B"),
        COLOR_POINT_B,
        &[(format!("{id}_b"), pb)],
    ));
    out.push(segment_layer(
        &format!("{id}_segment"),
        format!("segment between the {what}s (length {:.6e})", (pb - pa).length()),
        pa,
        pb,
    ));
}

/// A point `[x, y, z]` of an answer's JSON (`None` for anything else).
fn json_point(v: &Value) -> Option<DVec3> {
    let a = v.as_array().filter(|a| a.len() == 3)?;
    let p = DVec3::new(a[0].as_f64()?, a[1].as_f64()?, a[2].as_f64()?);
    p.is_finite().then_some(p)
}

/// The layers of contact manifolds as the answer's JSON gives them (`"manifold"`, or each of a
/// mesh pair's `"manifolds"`: `{"normal", "points": [{"a", "b", "separation"}, …]}`): the
/// points on A and on B (one common layer when they coincide), the contact polygons (A's
/// points in order) and each manifold's normal, drawn from its points' centre with length
/// `arrow`. Returns a camera direction that looks at the first polygon obliquely from B's side.
fn manifold_layers(layers: &mut Vec<Value>, manifolds: &[Value], arrow: f64) -> Option<DVec3> {
    let (mut on_a, mut on_b, mut loops) = (Vec::new(), Vec::new(), Vec::new());
    let mut seps: Vec<String> = Vec::new();
    let mut normals = Vec::new();
    for (k, m) in manifolds.iter().enumerate() {
        let Some(points) = m.get("points").and_then(Value::as_array) else {
            continue;
        };
        let mut polygon = Vec::new();
        for (i, q) in points.iter().enumerate() {
            let name = if manifolds.len() == 1 {
                format!("{i}")
            } else {
                format!("{k}.{i}")
            };
            if let Some(a) = json_point(&q["a"]) {
                on_a.push((name.clone(), a));
                polygon.push(a);
            }
            if let Some(b) = json_point(&q["b"]) {
                on_b.push((name.clone(), b));
            }
            if let Some(s) = q.get("separation").and_then(Value::as_f64) {
                seps.push(format!("{name}: {s:.6e}"));
            }
        }
        if polygon.len() >= 2 {
            loops.push(Value::Array(polygon.iter().map(|p| v3(*p)).collect()));
        }
        if let Some(n) = json_point(&m["normal"]).filter(|n| n.length() > 0.0) {
            let centre = polygon.iter().fold(DVec3::ZERO, |s, p| s + *p) / polygon.len().max(1) as f64;
            if !polygon.is_empty() {
                normals.push((k, centre, n.normalize()));
            }
        }
    }
    if on_a.is_empty() {
        return None;
    }
    let n = on_a.len();
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let same = on_a.len() == on_b.len() && on_a.iter().zip(&on_b).all(|(p, q)| p.1 == q.1);
    if same {
        layers.push(points_layer(
            "manifold",
            format!(
                "contact point{} (on A and B alike; separations {})",
                plural(n),
                seps.join(", ")
            ),
            COLOR_CONTACT,
            &on_a,
        ));
    } else {
        layers.push(points_layer(
            "manifold_a",
            format!("{n} contact point{} on A", plural(n)),
            COLOR_POINT_A,
            &on_a,
        ));
        layers.push(points_layer(
            "manifold_b",
            format!(
                "{} contact point{} on B (separations along the normal: {})",
                on_b.len(),
                plural(on_b.len()),
                seps.join(", ")
            ),
            COLOR_POINT_B,
            &on_b,
        ));
    }
    if !loops.is_empty() {
        let mut l = layer(
            "manifold_polygon",
            format!("contact polygon{} (the points on A, in order)", plural(loops.len())),
            "polygon",
            COLOR_POLYGON,
            true,
        );
        l["loops"] = Value::Array(loops);
        layers.push(l);
    }
    for &(k, centre, normal) in &normals {
        let id = if k == 0 {
            "manifold_normal".to_string()
        } else {
            format!("manifold_normal_{k}")
        };
        let what = if manifolds.len() == 1 {
            String::new()
        } else {
            format!(" {k}")
        };
        layers.push(arrow_layer(
            &id,
            format!("manifold{what}'s normal (from A toward B)"),
            COLOR_NORMAL,
            centre,
            normal * arrow,
        ));
    }
    // Looking at the first polygon from about 50 degrees above its plane, on B's side.
    let &(_, _, normal) = normals.first()?;
    let side = DVec3::new(0.45, 0.5, 1.0);
    let mut across = side - normal * side.dot(normal);
    if across.length() < 0.2 {
        across = DVec3::new(0.0, 1.0, 0.0) - normal * normal.y;
    }
    Some((across.normalize() * 0.85 + normal).normalize())
}

/// A named point of a `points` layer.
type NamedPoint = (String, DVec3);

/// The contact points of a `toc` answer's `"contacts"` (when the answer carries them): a list
/// whose items give points as `"point_a"`/`"point_b"` (the toc answer's format), `"a"`/`"b"`,
/// `"point"`, or manifold-like `"points"` lists of those. Absent or of another shape: no points (the page draws what the answer has).
fn toc_contact_points(answer: &Value) -> (Vec<NamedPoint>, Vec<NamedPoint>) {
    let (mut on_a, mut on_b) = (Vec::new(), Vec::new());
    let Some(items) = answer.get("contacts").and_then(Value::as_array) else {
        return (on_a, on_b);
    };
    let mut take = |q: &Value, name: String| {
        if let Some(p) = json_point(&q["a"]) {
            on_a.push((name.clone(), p));
        }
        if let Some(p) = json_point(&q["b"]) {
            on_b.push((name.clone(), p));
        }
        // The toc answer's own format (`toc::contacts_json`): features in "a"/"b", points in
        // "point_a"/"point_b".
        if let Some(p) = json_point(&q["point_a"]) {
            on_a.push((name.clone(), p));
        }
        if let Some(p) = json_point(&q["point_b"]) {
            on_b.push((name.clone(), p));
        }
        if let Some(p) = json_point(&q["point"]) {
            on_a.push((name.clone(), p));
            on_b.push((name, p));
        }
    };
    for (k, item) in items.iter().enumerate() {
        match item.get("points").and_then(Value::as_array) {
            Some(points) => {
                for (i, q) in points.iter().enumerate() {
                    take(q, format!("{k}.{i}"));
                }
            }
            None => take(item, format!("{k}")),
        }
    }
    (on_a, on_b)
}

/// The convex pieces of a mesh as hulls in the world frame (a toggle, off by default).
fn pieces_layer(id: &str, name: &str, m: &TriMesh, pose: &Pose) -> Value {
    let hulls: Vec<Value> = (0..m.pieces().len() as u32)
        .filter_map(|i| m.piece_hull(i))
        .map(|h| {
            let faces: Vec<Vec<u32>> = (0..h.faces().len() as u32)
                .map(|f| h.face_vertices(f).to_vec())
                .collect();
            json!({
                "vertices": h.vertices().iter().map(|p| v3(pose.transform_point(*p))).collect::<Vec<_>>(),
                "faces": faces,
            })
        })
        .collect();
    let mut l = layer(
        id,
        format!(
            "{name}'s {} convex pieces as hulls (translucent, one colour each)",
            hulls.len()
        ),
        "hulls",
        COLOR_FEATURES,
        false,
    );
    l["hulls"] = Value::Array(hulls);
    l
}

/// The world-frame triangles of a solid's feature: the triangles of a mesh's input face, or a
/// convex feature's corners.
fn solid_feature_items(s: PSolid, pose: &Pose, f: SolidFeature, body: u32) -> Vec<Value> {
    match (s, f) {
        (PSolid::Mesh(m), SolidFeature::Triangle(face)) => (0..m.triangles().len() as u32)
            .filter(|&t| m.input_face(t) == face)
            .map(|t| {
                let pts: Vec<Value> = m.triangles()[t as usize]
                    .iter()
                    .map(|&v| v3(pose.transform_point(m.vertices()[v as usize])))
                    .collect();
                json!({"body": body, "feature": format!("triangle {t} (input face {face})"), "points": pts})
            })
            .collect(),
        (PSolid::Convex(c), SolidFeature::Convex(f)) => vec![json!({
            "body": body,
            "feature": crate::answer::feature_text(f),
            "points": feature_points(c, pose, f).into_iter().map(v3).collect::<Vec<_>>(),
        })],
        _ => Vec::new(),
    }
}

fn body_json(name: &str, spec: &str, color: &str, c: &ConvexPolyhedron) -> Value {
    let faces: Vec<Vec<u32>> = (0..c.faces().len() as u32)
        .map(|f| c.face_vertices(f).to_vec())
        .collect();
    json!({
        "name": name, "spec": spec, "color": color, "kind": "convex",
        "vertices": c.vertices().iter().map(|p| v3(*p)).collect::<Vec<_>>(),
        "faces": faces,
    })
}

fn hull_json(c: &ConvexPolyhedron) -> Value {
    let faces: Vec<Vec<u32>> = (0..c.faces().len() as u32)
        .map(|f| c.face_vertices(f).to_vec())
        .collect();
    json!({"vertices": c.vertices().iter().map(|p| v3(*p)).collect::<Vec<_>>(), "faces": faces})
}

/// The convex hull tree of a mesh, level by level from the root (a leaf above the deepest level
/// stays in the levels below it, so that every level covers the whole mesh), within
/// `MAX_HULL_LEVELS` levels and `MAX_HULL_LEVEL_VERTICES` vertices; the flag says whether
/// levels were left out.
fn hull_levels(m: &TriMesh) -> (Vec<Value>, bool) {
    let nodes = m.nodes();
    let mut levels = Vec::new();
    let mut level = vec![m.root()];
    let mut sent = 0usize;
    for _ in 0..MAX_HULL_LEVELS {
        let Some(hulls) = level
            .iter()
            .map(|&n| nodes.get(n as usize).and_then(|node| node.hull().ok()))
            .collect::<Option<Vec<_>>>()
        else {
            return (levels, true);
        };
        let size: usize = hulls.iter().map(|h| h.vertices().len()).sum();
        if sent + size > MAX_HULL_LEVEL_VERTICES {
            return (levels, true);
        }
        sent += size;
        levels.push(Value::Array(hulls.into_iter().map(hull_json).collect()));
        let mut next = Vec::with_capacity(level.len() * 2);
        let mut split = false;
        for &n in &level {
            match nodes.get(n as usize).and_then(|node| node.children) {
                Some((l, r)) => {
                    next.push(l);
                    next.push(r);
                    split = true;
                }
                None => next.push(n),
            }
        }
        if !split {
            return (levels, false);
        }
        level = next;
    }
    (levels, true)
}

fn mesh_body_json(name: &str, spec: &str, color: &str, m: &TriMesh) -> Value {
    let (levels, truncated) = hull_levels(m);
    json!({
        "name": name, "spec": spec, "color": color, "kind": "mesh",
        "vertices": m.vertices().iter().map(|p| v3(*p)).collect::<Vec<_>>(),
        "faces": m.triangles(),
        "pieces": m.pieces(),
        "hull_levels": levels,
        "hull_levels_truncated": truncated,
    })
}

fn scene(title: String, query: &str, answer: Value, bodies: Vec<Value>, frames: Vec<Value>) -> Value {
    let status = answer.get("status").cloned().unwrap_or(Value::Null);
    json!({
        "format": FORMAT,
        "title": title,
        "query": query,
        "status": status,
        "answer": answer,
        "units": "units of the input",
        "command": "",
        "bodies": bodies,
        "frames": frames,
        "frame": 0,
        "marks": {},
        "layers": [],
        "notes": [],
    })
}

/// One query between two convex shapes (`polycd query`'s inputs).
pub struct PairInput<'a> {
    /// How shape A was given (shown on the page).
    pub a_label: &'a str,
    /// How shape B was given.
    pub b_label: &'a str,
    /// Shape A.
    pub a: &'a ConvexPolyhedron,
    /// A's pose.
    pub pose_a: Pose,
    /// Shape B.
    pub b: &'a ConvexPolyhedron,
    /// B's pose.
    pub pose_b: Pose,
    /// The question.
    pub kind: QueryKind,
    /// The directional query's direction.
    pub direction: Option<DVec3>,
    /// The algorithm.
    pub algorithm: Algorithm,
    /// The manifold query's margin and reduction (`--margin`, `--reduce`).
    pub options: ManifoldOptions,
}

fn kind_name(k: QueryKind) -> &'static str {
    match k {
        QueryKind::Intersect => "intersect",
        QueryKind::Distance => "distance",
        QueryKind::Directional => "directional",
        QueryKind::Point => "point",
        QueryKind::Ray => "ray",
        QueryKind::Manifold => "manifold",
    }
}

/// The page's scene for one query: the answer exactly as `polycd query --json` prints it, and
/// its geometry (separating plane, witnesses, penetration, translated copy, simplex), read off
/// the library's own answer to the same query.
pub fn pair_scene(p: &PairInput) -> Value {
    let (a, pa, b, pb) = (p.a, &p.pose_a, p.b, &p.pose_b);
    let answer = batch::answer_with(a, pa, b, pb, p.kind, p.direction, p.algorithm, &p.options).to_json();
    let mut layers: Vec<Value> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let (ca, ra) = a.bounding_sphere();
    let (cb, rb) = b.bounding_sphere();
    let (ca, cb) = (pa.transform_point(ca), pb.transform_point(cb));
    let plane_size = 1.2 * (ra + rb);
    let mut cache = PairCache::default();
    let mut view = None;
    if p.kind == QueryKind::Manifold && answer.get("manifold").is_some_and(|m| m.is_null()) {
        notes.push(NO_MANIFOLD.into());
    }
    match p.kind {
        QueryKind::Manifold if answer.get("manifold").is_some_and(|m| !m.is_null()) => {
            view = manifold_layers(&mut layers, std::slice::from_ref(&answer["manifold"]), 0.5 * ra.min(rb));
        }
        QueryKind::Intersect => match query::intersect(a, pa, b, pb, p.algorithm, &mut cache) {
            Ok(Intersection::Disjoint { plane, .. }) => {
                layers.push(plane_layer(
                    "plane",
                    "separating plane (A below, B above)".into(),
                    &plane,
                    (ca + cb) * 0.5,
                    plane_size,
                ));
            }
            Ok(Intersection::Touching { point, plane, .. }) => {
                layers.push(plane_layer(
                    "plane",
                    "weakly separating plane".into(),
                    &plane,
                    point,
                    plane_size,
                ));
                witness_layers(&mut layers, "touching", "touching point", point, point);
            }
            Ok(Intersection::Overlapping { witness, .. }) => {
                overlap_layers(&mut layers, &witness, (a, pa), (b, pb));
            }
            // Not converged, failed, or an answer this viewer does not know.
            _ => notes.push(NO_GEOMETRY.into()),
        },
        QueryKind::Distance | QueryKind::Manifold => match query::distance(a, pa, b, pb, p.algorithm, &mut cache) {
            Ok(Distance::Separated {
                distance,
                point_a,
                point_b,
                features,
                ..
            }) => {
                witness_layers(&mut layers, "closest", "closest point", point_a, point_b);
                layers.push(features_layer("closest features".into(), (a, pa), (b, pb), features));
                let n = point_b - point_a;
                if distance > 0.0 && n.length() > 0.0 {
                    let normal = n.normalize();
                    let mid = (point_a + point_b) * 0.5;
                    let plane = Plane {
                        normal,
                        offset: normal.dot(mid),
                    };
                    layers.push(plane_layer(
                        "plane",
                        "separating plane (halfway between the closest points)".into(),
                        &plane,
                        mid,
                        plane_size,
                    ));
                }
            }
            Ok(Distance::Penetrating {
                witness, penetration, ..
            }) => {
                overlap_layers(&mut layers, &witness, (a, pa), (b, pb));
                if let Some(pen) = penetration {
                    witness_layers(&mut layers, "deepest", "deepest point", pen.point_a, pen.point_b);
                    // Drawn from B's centroid: between the deepest points it would hide
                    // under their markers.
                    layers.push(arrow_layer(
                        "penetration",
                        format!(
                            "penetration (from B's centroid): moving B by depth {:.6e} along this direction separates them",
                            pen.depth
                        ),
                        COLOR_PENETRATION,
                        pb.transform_point(b.centroid()),
                        pen.normal * pen.depth,
                    ));
                }
            }
            // Not converged, failed, or an answer this viewer does not know.
            _ => notes.push(NO_GEOMETRY.into()),
        },
        QueryKind::Directional => {
            let s = p.direction.unwrap_or(DVec3::ZERO);
            let r = if s.length() > 0.0 && s.is_finite() {
                query::directional(a, pa, b, pb, s, p.algorithm, &mut cache).ok()
            } else {
                None
            };
            match r {
                Some(Directional::Contact { t, plane, .. }) => {
                    let shift = s.normalize() * t;
                    let moved = Pose::new(pb.rotation, pb.translation + shift);
                    let mut copy = layer(
                        "translated_b",
                        format!("B translated by t = {t:.6e} along the direction"),
                        "body_copy",
                        COLOR_B,
                        true,
                    );
                    copy["body"] = json!(1);
                    copy["pose"] = pose_json(&moved);
                    layers.push(copy);
                    layers.push(arrow_layer(
                        "translation",
                        "B's translation".into(),
                        COLOR_MOTION,
                        cb,
                        shift,
                    ));
                    let mut c2 = PairCache::default();
                    let contact = match query::distance(a, pa, b, &moved, Algorithm::Auto, &mut c2) {
                        Ok(Distance::Separated { point_a, point_b, .. }) => Some((point_a + point_b) * 0.5),
                        Ok(Distance::Penetrating {
                            witness: OverlapWitness::CommonPoint(q) | OverlapWitness::Features { point: q, .. },
                            ..
                        }) => Some(q),
                        _ => None,
                    };
                    if let Some(q) = contact {
                        layers.push(plane_layer(
                            "plane",
                            "plane of contact after the translation".into(),
                            &plane,
                            q,
                            plane_size,
                        ));
                        layers.push(points_layer(
                            "contact",
                            "contact after the translation (a distance query at that pose)".into(),
                            COLOR_CONTACT,
                            &[("contact".into(), q)],
                        ));
                    }
                }
                Some(Directional::Never { .. }) => {
                    notes.push("no translation along this line makes the shapes touch".into());
                }
                _ => notes.push(NO_GEOMETRY.into()),
            }
            if let Some(d) = p.direction.filter(|d| d.length() > 0.0 && d.is_finite()) {
                if !layers.iter().any(|l| l["id"] == "translation") {
                    layers.push(arrow_layer(
                        "translation",
                        "the direction".into(),
                        COLOR_MOTION,
                        cb,
                        d.normalize() * rb,
                    ));
                }
            }
        }
        QueryKind::Point | QueryKind::Ray => {
            notes.push("point and ray queries are answered but not drawn on this page yet".into());
        }
    }
    let bodies = vec![
        body_json("A", p.a_label, COLOR_A, a),
        body_json("B", p.b_label, COLOR_B, b),
    ];
    let frames = vec![json!({"t": null, "label": "pose", "poses": [pose_json(pa), pose_json(pb)]})];
    let mut s = scene(
        format!("{} {} · {}", p.a_label, p.b_label, kind_name(p.kind)),
        kind_name(p.kind),
        answer,
        bodies,
        frames,
    );
    s["layers"] = Value::Array(layers);
    s["notes"] = json!(notes);
    if let Some(d) = view {
        s["view"] = v3(d);
    }
    s
}

fn overlap_layers(
    layers: &mut Vec<Value>,
    w: &OverlapWitness,
    (a, pa): (&ConvexPolyhedron, &Pose),
    (b, pb): (&ConvexPolyhedron, &Pose),
) {
    match *w {
        OverlapWitness::CommonPoint(q) => witness_layers(layers, "overlap", "overlap witness: a common point", q, q),
        OverlapWitness::Features { features, point } => {
            witness_layers(layers, "overlap", "overlap witness: a common point", point, point);
            layers.push(features_layer(
                "intersecting features".into(),
                (a, pa),
                (b, pb),
                features,
            ));
        }
        OverlapWitness::Simplex(s) => {
            let mut l = layer(
                "simplex",
                format!(
                    "Minkowski simplex certificate ({} vertex pairs; A's and B's vertices, their differences placed at the common point)",
                    s.len
                ),
                "simplex",
                COLOR_SIMPLEX,
                false,
            );
            let pairs: Vec<Value> = s
                .pairs()
                .iter()
                .filter(|&&(i, j)| (i as usize) < a.vertices().len() && (j as usize) < b.vertices().len())
                .map(|&(i, j)| {
                    json!({"a": v3(pa.transform_point(a.vertex(i))), "b": v3(pb.transform_point(b.vertex(j))), "ids": [i, j]})
                })
                .collect();
            l["pairs"] = Value::Array(pairs);
            let common = s.common_point(a, pa, b, pb);
            l["point"] = common.map(v3).unwrap_or(Value::Null);
            layers.push(l);
            if let Some(q) = common {
                witness_layers(layers, "overlap", "overlap witness: the simplex's common point", q, q);
            }
        }
        // A witness this viewer does not know: the answer's own fields still show it.
        _ => {}
    }
}

/// One query on a pair with a mesh side (`polycd query --mesh`'s inputs).
pub struct SolidPairInput<'a> {
    /// How shape A was given (shown on the page).
    pub a_label: &'a str,
    /// How shape B was given.
    pub b_label: &'a str,
    /// Shape A (a mesh or convex).
    pub a: PSolid<'a>,
    /// A's pose.
    pub pose_a: Pose,
    /// Shape B.
    pub b: PSolid<'a>,
    /// B's pose.
    pub pose_b: Pose,
    /// The question: intersect, distance or manifold.
    pub kind: QueryKind,
    /// The algorithm (meshes take `auto` only; another one is answered with an error).
    pub algorithm: Algorithm,
    /// The manifold query's margin and reduction.
    pub options: ManifoldOptions,
}

fn solid_json(name: &str, spec: &str, color: &str, s: PSolid) -> Value {
    match s {
        PSolid::Convex(c) => body_json(name, spec, color, c),
        PSolid::Mesh(m) => mesh_body_json(name, spec, color, m),
        _ => json!({"name": name, "spec": spec, "error": "a kind of solid this viewer does not know"}),
    }
}

fn solid_radius(s: PSolid) -> f64 {
    match s {
        PSolid::Convex(c) => c.bounding_sphere().1,
        PSolid::Mesh(m) => m
            .vertices()
            .iter()
            .map(|v| (*v - m.centroid()).length())
            .fold(0.0, f64::max),
        // A kind of solid this viewer does not know (not drawn, see `solid_json`): a unit
        // radius for the view's scale.
        _ => 1.0,
    }
}

/// The page's scene for a pair with a mesh side: the answer exactly as `polycd query --mesh
/// --json` (or a batch line) gives it; the closest points and the closest triangles (input
/// faces) of the solids' distance, or the overlap's witnesses; a manifold query's contact
/// manifolds (several polygons); each mesh's convex pieces as hulls (a toggle).
pub fn solid_pair_scene(p: &SolidPairInput) -> Value {
    let (a, pa, b, pb) = (p.a, &p.pose_a, p.b, &p.pose_b);
    let answer = crate::meshq::answer(a, pa, b, pb, p.kind, p.algorithm, None, &p.options).to_json();
    let mut layers: Vec<Value> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut view = None;
    let manifolds = answer
        .get("manifolds")
        .and_then(Value::as_array)
        .filter(|m| !m.is_empty());
    if p.kind == QueryKind::Manifold && manifolds.is_none() && answer["status"] != "error" {
        notes.push(NO_MANIFOLD.into());
    }
    let drawable = matches!(p.kind, QueryKind::Intersect | QueryKind::Distance | QueryKind::Manifold);
    if answer["status"] == "error" || !drawable {
        notes.push(if drawable {
            NO_GEOMETRY.into()
        } else {
            "only intersect, distance and manifold answers of meshes are drawn on this page".into()
        });
    } else if let Some(ms) = manifolds {
        view = manifold_layers(&mut layers, ms, 0.5 * solid_radius(a).min(solid_radius(b)));
    } else {
        match pmesh::distance(a, pa, b, pb, &mut SolidCache::default()) {
            Ok(MeshAnswer::Separated {
                distance,
                point_a,
                point_b,
                features,
                pieces,
            }) => {
                witness_layers(&mut layers, "closest", "closest point", point_a, point_b);
                let mut l = layer(
                    "features",
                    format!(
                        "closest triangles (A {}, B {}; pieces {} and {}; distance {distance:.6e})",
                        crate::answer::solid_feature_text(features.0),
                        crate::answer::solid_feature_text(features.1),
                        pieces.0,
                        pieces.1
                    ),
                    "features",
                    COLOR_FEATURES,
                    true,
                );
                let mut items = solid_feature_items(a, pa, features.0, 0);
                items.extend(solid_feature_items(b, pb, features.1, 1));
                l["items"] = Value::Array(items);
                layers.push(l);
            }
            Ok(MeshAnswer::Overlapping {
                point_a,
                point_b,
                depth_lower_bound,
                ..
            }) => {
                if point_a.is_finite() && point_b.is_finite() {
                    witness_layers(
                        &mut layers,
                        "deepest",
                        &format!("overlap witness (depth at least {depth_lower_bound:.6e})"),
                        point_a,
                        point_b,
                    );
                }
            }
            // Failed, or an answer this viewer does not know.
            _ => notes.push(NO_GEOMETRY.into()),
        }
    }
    for (id, name, s, pose) in [("pieces_a", "A", a, pa), ("pieces_b", "B", b, pb)] {
        if let PSolid::Mesh(m) = s {
            layers.push(pieces_layer(id, name, m, pose));
        }
    }
    let bodies = vec![
        solid_json("A", p.a_label, COLOR_A, a),
        solid_json("B", p.b_label, COLOR_B, b),
    ];
    let frames = vec![json!({"t": null, "label": "pose", "poses": [pose_json(pa), pose_json(pb)]})];
    let mut s = scene(
        format!("{} {} · {} (meshes)", p.a_label, p.b_label, kind_name(p.kind)),
        kind_name(p.kind),
        answer,
        bodies,
        frames,
    );
    s["layers"] = Value::Array(layers);
    s["notes"] = json!(notes);
    if let Some(d) = view {
        s["view"] = v3(d);
    }
    s
}

/// The page's scene for a time of contact (`polycd toc`'s inputs): the answer exactly as
/// `polycd toc --json` prints it, the motion sampled on a timeline (with the time of contact
/// itself), and at the time of contact the closest points and features (convex) or the
/// pieces and triangles (meshes).
pub fn toc_scene(input: &TocInput) -> Result<Value, String> {
    let answer = toc::run(input)?;
    let e = |e: polycd::PolycdError| e.to_string();
    let mut sa = toc::load(input.a, input.mesh).map_err(e)?;
    let mut sb = toc::load(input.b, input.mesh).map_err(e)?;
    // Like `toc`: one mesh makes both meshes.
    let to_mesh = |s: Solid| -> Result<Solid, String> {
        match s {
            Solid::Convex(c) => toc::convex_to_mesh(&c).map(|m| Solid::Mesh(Box::new(m))).map_err(e),
            m => Ok(m),
        }
    };
    if matches!(
        (&sa, &sb),
        (Solid::Mesh(_), Solid::Convex(_)) | (Solid::Convex(_), Solid::Mesh(_))
    ) {
        sa = to_mesh(sa)?;
        sb = to_mesh(sb)?;
    }
    let mut layers: Vec<Value> = Vec::new();
    let (bodies, ma, mb, contact) = match (&sa, &sb) {
        (Solid::Convex(a), Solid::Convex(b)) => {
            let ma = RigidMotion::about_centroid(a, input.pose_a.0, input.pose_a.1).map_err(e)?;
            let mb = RigidMotion::about_centroid(b, input.pose_b.0, input.pose_b.1).map_err(e)?;
            let r = ccd::time_of_contact(a, &ma, b, &mb, &input.options, &mut CcdCache::default());
            let contact = match r {
                Ok(Some(t)) => {
                    if let Some((p, q)) = t.closest {
                        witness_layers(&mut layers, "contact", "closest point at contact", p, q);
                    }
                    if let Some(f) = t.features {
                        layers.push(features_layer(
                            "contact features".into(),
                            (a, &t.pose_a),
                            (b, &t.pose_b),
                            f,
                        ));
                    }
                    Some((t.t, t.pose_a, t.pose_b))
                }
                _ => None,
            };
            (
                vec![body_json("A", input.a, COLOR_A, a), body_json("B", input.b, COLOR_B, b)],
                ma,
                mb,
                contact,
            )
        }
        (Solid::Mesh(a), Solid::Mesh(b)) => {
            let ma = RigidMotion::new(input.pose_a.0, input.pose_a.1, a.centroid()).map_err(e)?;
            let mb = RigidMotion::new(input.pose_b.0, input.pose_b.1, b.centroid()).map_err(e)?;
            let r = cmesh::time_of_contact(a, &ma, b, &mb, &input.options, &mut MeshToiCache::default());
            let contact = match r {
                Ok(Some(t)) => {
                    match t.answer {
                        MeshDistance::Separated {
                            point_a,
                            point_b,
                            pieces,
                            triangles,
                            ..
                        } => {
                            witness_layers(&mut layers, "contact", "closest point at contact", point_a, point_b);
                            let tri = |m: &TriMesh, pose: &Pose, k: u32| -> Vec<Value> {
                                m.triangles()
                                    .get(k as usize)
                                    .map(|t| {
                                        t.iter()
                                            .map(|&v| v3(pose.transform_point(m.vertices()[v as usize])))
                                            .collect()
                                    })
                                    .unwrap_or_default()
                            };
                            let mut l = layer(
                                "features",
                                format!(
                                    "contact triangles (A: triangle {} of piece {}, B: triangle {} of piece {})",
                                    triangles.0, pieces.0, triangles.1, pieces.1
                                ),
                                "features",
                                COLOR_FEATURES,
                                true,
                            );
                            l["items"] = json!([
                                {"body": 0, "feature": format!("triangle {}", triangles.0), "piece": pieces.0, "points": tri(a, &t.pose_a, triangles.0)},
                                {"body": 1, "feature": format!("triangle {}", triangles.1), "piece": pieces.1, "points": tri(b, &t.pose_b, triangles.1)},
                            ]);
                            layers.push(l);
                        }
                        MeshDistance::Overlapping { pieces } => {
                            // A point common to the overlapping pieces, from a distance query
                            // between their hulls at the time of contact.
                            let hulls = pieces.and_then(|(i, j)| Some((a.piece_hull(i)?, b.piece_hull(j)?)));
                            if let Some((ha, hb)) = hulls {
                                let mut c = PairCache::default();
                                let q = match query::distance(ha, &t.pose_a, hb, &t.pose_b, Algorithm::Auto, &mut c) {
                                    Ok(Distance::Separated { point_a, point_b, .. }) => Some((point_a + point_b) * 0.5),
                                    Ok(Distance::Penetrating { witness, .. }) => match witness {
                                        OverlapWitness::CommonPoint(q) | OverlapWitness::Features { point: q, .. } => {
                                            Some(q)
                                        }
                                        OverlapWitness::Simplex(s) => s.common_point(ha, &t.pose_a, hb, &t.pose_b),
                                        _ => None,
                                    },
                                    _ => None,
                                };
                                if let Some(q) = q {
                                    let (i, j) = pieces.unwrap_or_default();
                                    witness_layers(
                                        &mut layers,
                                        "overlap",
                                        &format!("overlapping pieces at contact (A piece {i}, B piece {j}): a common point of their hulls"),
                                        q,
                                        q,
                                    );
                                }
                            }
                        }
                        // An answer this viewer does not know: the time and poses, no witness.
                        _ => {}
                    }
                    Some((t.t, t.pose_a, t.pose_b))
                }
                _ => None,
            };
            (
                vec![
                    mesh_body_json("A", input.a, COLOR_A, a),
                    mesh_body_json("B", input.b, COLOR_B, b),
                ],
                ma,
                mb,
                contact,
            )
        }
        _ => return Err("internal: mixed convex and mesh shapes".into()),
    };
    // The timeline: uniform samples, and the time of contact with the answer's own poses.
    let mut frames: Vec<Value> = Vec::with_capacity(TIMELINE_SAMPLES + 2);
    let mut contact_frame = None;
    for k in 0..=TIMELINE_SAMPLES {
        let t = k as f64 / TIMELINE_SAMPLES as f64;
        if let Some((tc, pa, pb)) = contact {
            if contact_frame.is_none() && tc <= t {
                contact_frame = Some(frames.len());
                frames.push(json!({"t": tc, "label": "time of contact", "poses": [pose_json(&pa), pose_json(&pb)]}));
                if tc == t {
                    continue;
                }
            }
        }
        let label = match k {
            0 => "start",
            _ if k == TIMELINE_SAMPLES => "end",
            _ => "",
        };
        frames.push(json!({"t": t, "label": label, "poses": [pose_json(&ma.pose_at(t)), pose_json(&mb.pose_at(t))]}));
    }
    let end = frames.len() - 1;
    // The answer's contact points at the time of contact, when it lists them ("contacts"):
    // first, so that the closest points' markers are drawn over them.
    let (on_a, on_b) = toc_contact_points(&answer);
    for (id, what, color, pts) in [
        ("toc_contacts_b", "B", COLOR_POINT_B, &on_b),
        ("toc_contacts_a", "A", COLOR_POINT_A, &on_a),
    ] {
        if !pts.is_empty() {
            let label = format!("the answer's contact points on {what} at the time of contact");
            layers.insert(0, points_layer(id, label, color, pts));
        }
    }
    for l in layers.iter_mut() {
        l["frame"] = json!(contact_frame);
    }
    // The paths of the reference points (centroids), start to end.
    for (id, m, name) in [("path_a", &ma, "A"), ("path_b", &mb, "B")] {
        if !m.is_stationary() {
            layers.push(arrow_layer(
                id,
                format!("path of {name}'s centroid (straight: constant velocity)"),
                COLOR_MOTION,
                m.center_at(0.0),
                m.center_at(1.0) - m.center_at(0.0),
            ));
        }
    }
    let mesh = matches!(sa, Solid::Mesh(_));
    let mut s = scene(
        format!("{} {} · toc{}", input.a, input.b, if mesh { " (meshes)" } else { "" }),
        "toc",
        answer,
        bodies,
        frames,
    );
    s["frame"] = json!(contact_frame.unwrap_or(0));
    s["marks"] = json!({"start": 0, "contact": contact_frame, "end": end});
    s["layers"] = Value::Array(layers);
    Ok(s)
}

/// The page's scene for line `n` (from 1) of a batch input file: the answer exactly as
/// `polycd batch` prints it for that line — lines 1 to `n` are answered in order as the batch
/// answers them ([`crate::batch_run::answer_next`]), so `{"ref": NAME}` sees the names defined
/// on earlier lines — and its geometry (convex pairs, pairs with a mesh side, manifolds).
pub fn batch_line_scene(path: &str, n: usize) -> Result<Value, String> {
    use std::io::BufRead;
    if n == 0 {
        return Err("--batch-line: lines are numbered from 1".into());
    }
    let f = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let mut shapes = crate::shape_cache::Shapes::default();
    let mut lines = std::io::BufReader::new(f).lines();
    let mut line = String::new();
    let mut answer = Value::Null;
    // Bounded by n: one line read and answered per step.
    for k in 1..=n {
        line = lines
            .next()
            .ok_or_else(|| format!("{path}: has no line {n} (it has {})", k - 1))?
            .map_err(|e| format!("{path}:{k}: {e}"))?;
        let ans = crate::batch_run::answer_next(&line, &mut shapes);
        if k == n {
            answer = ans.to_json();
        }
    }
    let at = |m: String| format!("{path}:{n}: {m}");
    if answer["status"] == "defined" {
        return Err(at(
            "this line defines a shape (a define line); view a query line that uses it".into(),
        ));
    }
    let v: Value =
        serde_json::from_str(line.trim_start_matches('\u{feff}')).map_err(|e| at(format!("invalid JSON: {e}")))?;
    let obj = v
        .as_object()
        .ok_or_else(|| at("a query line must be a JSON object".into()))?;
    let ctx = crate::shape_cache::LineCtx {
        shapes: &shapes,
        line: n as u64,
    };
    let shape = |k: &str| -> Result<(crate::meshq::BatchSolid, String), String> {
        let s = obj.get(k).ok_or_else(|| at(format!("missing \"{k}\"")))?;
        let solid = batch::solid_of(s, &ctx).map_err(|e| at(format!("{k}: {e}")))?;
        let vertices = match &solid {
            crate::meshq::BatchSolid::Convex(c) => c.vertices().len(),
            crate::meshq::BatchSolid::Mesh(m) => m.vertices().len(),
            crate::meshq::BatchSolid::Surface(_) => {
                return Err(at(format!("{k}: a surface (\"kind\": \"surface\") is not drawn yet")))
            }
        };
        let label = match ["shape", "file", "ref"]
            .into_iter()
            .find_map(|key| s.get(key).and_then(Value::as_str).map(|x| (key, x)))
        {
            Some(("ref", x)) => format!("ref {x}"),
            Some((_, x)) => x.to_string(),
            None => format!("{k}: {vertices} vertices"),
        };
        Ok((solid, label))
    };
    let (a, a_label) = shape("a")?;
    let (b, b_label) = shape("b")?;
    let pose_a = crate::schema::pose_of(obj.get("pose_a")).map_err(|e| at(format!("pose_a: {e}")))?;
    let pose_b = crate::schema::pose_of(obj.get("pose_b")).map_err(|e| at(format!("pose_b: {e}")))?;
    let kind = match obj.get("query").and_then(Value::as_str) {
        Some(s) => QueryKind::parse(s).map_err(at)?,
        None => QueryKind::Intersect,
    };
    let algorithm = match obj.get("algorithm").and_then(Value::as_str) {
        Some(s) => Algorithm::parse(s).ok_or_else(|| at(format!("unknown algorithm '{s}'")))?,
        None => Algorithm::Auto,
    };
    let direction = match obj.get("direction") {
        None | Some(Value::Null) => None,
        Some(d) => Some(crate::schema::vec3(d).map_err(|e| at(format!("direction: {e}")))?),
    };
    // The batch checked these (an invalid one made the answer an error, shown as such).
    let options = ManifoldOptions::default()
        .with_margin(obj.get("margin").and_then(Value::as_f64).unwrap_or(0.0))
        .with_reduce(obj.get("reduce").and_then(Value::as_bool).unwrap_or(false));
    use crate::meshq::BatchSolid;
    let mut s = match (&a, &b) {
        (BatchSolid::Convex(ca), BatchSolid::Convex(cb)) => pair_scene(&PairInput {
            a_label: &a_label,
            b_label: &b_label,
            a: ca,
            pose_a,
            b: cb,
            pose_b,
            kind,
            direction,
            algorithm,
            options,
        }),
        _ => solid_pair_scene(&SolidPairInput {
            a_label: &a_label,
            b_label: &b_label,
            a: a.solid()
                .ok_or_else(|| at("a: a surface (\"kind\": \"surface\") is not drawn yet".into()))?,
            pose_a,
            b: b.solid()
                .ok_or_else(|| at("b: a surface (\"kind\": \"surface\") is not drawn yet".into()))?,
            pose_b,
            kind,
            algorithm,
            options,
        }),
    };
    if answer["status"] == "error" {
        // Nothing drawn for an answer the batch refused: its error is on the page.
        s["layers"] = json!([]);
        s["notes"] = json!([format!(
            "the batch answers this line with an error: {}",
            answer["error"]
        )]);
        s.as_object_mut().map(|o| o.remove("view"));
    }
    s["answer"] = answer;
    s["status"] = s["answer"]["status"].clone();
    s["title"] = json!(format!("{path}:{n} · {}", kind_name(kind)));
    Ok(s)
}

/// A shell-quoted command line.
pub fn command_line(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            let plain = !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:,=+@%".contains(c));
            if plain {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        for (k, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if k <= c.len() {
                s.push(A[(n >> shift & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// JSON that is safe inside a `<script>` element: `<`, `>` and `&` (which only occur inside
/// strings) as `\u` escapes, so no `</script>` can end the element early.
pub fn script_safe_json(v: &Value) -> String {
    let s = serde_json::to_string(v).unwrap_or_else(|_| "null".into());
    s.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// Fills `{{NAME}}` slots in one pass (filled text is not searched again).
fn fill(template: &str, slots: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + slots.iter().map(|s| s.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find("}}").map(|j| (&after[..j], j)) {
            Some((name, j)) if slots.iter().any(|s| s.0 == name) => {
                out.push_str(slots.iter().find(|s| s.0 == name).map(|s| s.1).unwrap_or(""));
                rest = &after[j + 2..];
            }
            _ => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The self-contained page of a scene.
pub fn html(scene: &Value) -> String {
    let data_url = |js: &str| format!("data:text/javascript;base64,{}", base64(js.as_bytes()));
    let import_map = json!({"imports": {
        "three": data_url(THREE_JS),
        "three/addons/controls/OrbitControls.js": data_url(ORBIT_CONTROLS_JS),
    }});
    let title = scene["title"].as_str().unwrap_or("polycd view");
    fill(
        TEMPLATE,
        &[
            ("TITLE", &escape_html(&format!("polycd view: {title}"))),
            ("CSS", CSS),
            ("IMPORTMAP", &script_safe_json(&import_map)),
            ("DATA", &script_safe_json(scene)),
            ("VIEWER", VIEWER_JS),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_4648_examples() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes()), o);
        }
    }

    #[test]
    fn embedded_text_cannot_close_its_element() {
        for (name, text) in [("viewer.js", VIEWER_JS), ("viewer.css", CSS)] {
            let t = text.to_ascii_lowercase();
            assert!(!t.contains("</script") && !t.contains("</style"), "{name}");
        }
        let v = json!({"spec": "</script><script>alert(1)</script> & <!--"});
        let s = script_safe_json(&v);
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'));
        assert_eq!(serde_json::from_str::<Value>(&s).unwrap(), v);
    }

    #[test]
    fn slots_are_filled_once() {
        let t = "a{{X}}b{{Y}}c{{Z}}";
        assert_eq!(fill(t, &[("X", "{{Y}}"), ("Y", "1")]), "a{{Y}}b1c{{Z}}");
    }

    #[test]
    fn page_has_no_unfilled_slot_and_no_remote_reference() {
        let a = polycd::shapes::from_spec("cube").unwrap();
        let s = pair_scene(&PairInput {
            a_label: "cube",
            b_label: "cube",
            a: &a,
            pose_a: Pose::IDENTITY,
            b: &a,
            pose_b: Pose::from_translation(DVec3::new(2.0, 0.0, 0.0)),
            kind: QueryKind::Distance,
            direction: None,
            algorithm: Algorithm::Auto,
            options: ManifoldOptions::default(),
        });
        let page = html(&s);
        for slot in ["{{TITLE}}", "{{CSS}}", "{{IMPORTMAP}}", "{{DATA}}", "{{VIEWER}}"] {
            assert!(!page.contains(slot), "{slot}");
        }
        assert!(!page.contains("http://") && !page.contains("https://"));
        assert_eq!(s["answer"]["distance"], json!(1.0));
        let ids: Vec<&str> = s["layers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["closest_a", "closest_b", "closest_segment", "features", "plane"]);
    }

    #[test]
    fn toc_contacts_are_drawn_when_listed_and_absent_is_fine() {
        // Today's toc answers carry no "contacts": nothing to draw, no error.
        let (a, b) = toc_contact_points(&json!({"status": "contact", "t": 0.5}));
        assert!(a.is_empty() && b.is_empty());
        // Not a list, or items without points: nothing either.
        let (a, b) = toc_contact_points(&json!({"contacts": {"a": [0, 0, 0]}}));
        assert!(a.is_empty() && b.is_empty());
        let (a, b) = toc_contact_points(&json!({"contacts": [{"a": "x"}, 3, {"b": [1, 2]}]}));
        assert!(a.is_empty() && b.is_empty());
        // Pairs of points, a common point, manifold-like lists.
        let (a, b) = toc_contact_points(&json!({"contacts": [
            {"a": [0, 0, 1], "b": [0, 0, 1.5]},
            {"point": [2, 0, 0]},
            {"normal": [0, 0, 1], "points": [{"a": [1, 1, 1], "b": [1, 1, 2]}]},
        ]}));
        let names = |v: &[(String, DVec3)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(names(&a), ["0", "1", "2.0"]);
        assert_eq!(names(&b), ["0", "1", "2.0"]);
        assert_eq!(a[0].1, DVec3::new(0.0, 0.0, 1.0));
        assert_eq!(b[0].1, DVec3::new(0.0, 0.0, 1.5));
        assert_eq!(a[1].1, b[1].1);
        assert_eq!(b[2].1, DVec3::new(1.0, 1.0, 2.0));
    }

    #[test]
    fn toc_answers_contact_points_are_drawn() {
        // A unit cube moving along x from 3 apart onto a fixed one: face-to-face contact at
        // t = 2/3, whose contact features have their points on the plane x = -0.5.
        let input = toc::TocInput {
            a: "cube",
            b: "cube",
            pose_a: (
                Pose::from_translation(DVec3::new(-3.0, 0.0, 0.0)),
                Pose::from_translation(DVec3::new(0.0, 0.0, 0.0)),
            ),
            pose_b: (Pose::IDENTITY, Pose::IDENTITY),
            mesh: false,
            options: polycd::ccd::CcdOptions::default(),
        };
        let answer = toc::run(&input).unwrap();
        let (a, b) = toc_contact_points(&answer);
        assert!(!a.is_empty() && a.len() == b.len(), "{answer}");
        for (_, p) in &a {
            assert!((p.x + 0.5).abs() < 1e-3, "{p} {answer}");
        }
        for (_, p) in &b {
            assert!((p.x + 0.5).abs() < 1e-3, "{p} {answer}");
        }
    }

    #[test]
    fn manifold_layers_follow_the_answer() {
        let m = json!({"normal": [0, 0, 1], "points": [
            {"a": [0, 0, 0], "b": [0, 0, -0.1], "separation": -0.1},
            {"a": [1, 0, 0], "b": [1, 0, -0.1], "separation": -0.1},
            {"a": [1, 1, 0], "b": [1, 1, -0.1], "separation": -0.1},
        ]});
        let mut layers = Vec::new();
        let view = manifold_layers(&mut layers, &[m], 2.0).unwrap();
        let ids: Vec<&str> = layers.iter().map(|l| l["id"].as_str().unwrap()).collect();
        assert_eq!(ids, ["manifold_a", "manifold_b", "manifold_polygon", "manifold_normal"]);
        assert_eq!(layers[2]["loops"][0].as_array().unwrap().len(), 3);
        assert_eq!(layers[3]["vector"], json!([0.0, 0.0, 2.0]));
        assert_eq!(layers[3]["from"], json!([2.0 / 3.0, 1.0 / 3.0, 0.0]));
        // The camera looks from B's side of the polygon, obliquely.
        assert!(view.z > 0.5 && view.z < 0.95, "{view}");
        // No manifold (an empty list): no layer.
        let mut none = Vec::new();
        assert!(manifold_layers(&mut none, &[], 1.0).is_none() && none.is_empty());
    }

    #[test]
    fn commands_are_shell_quoted() {
        let args: Vec<String> = ["polycd", "view", "cube", "--pose-b", "2 0 0", "it's"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(command_line(&args), "polycd view cube --pose-b '2 0 0' 'it'\\''s'");
    }
}
