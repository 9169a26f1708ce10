//! `polycd toc`: the first time of contact of a moving shape with another (FAST, `polycd::ccd`).
//!
//! Shapes are convex (built-in specs, or a file's convex hull) unless one of them is a
//! `torus-knot:…` spec or `--mesh` is given: then both are closed triangle meshes (files read
//! as meshes, convex built-ins triangulated) and the hierarchical advancement answers.

use crate::input::torus_knot_spec;
use polycd::ccd::mesh::{self, MeshToiCache};
use polycd::ccd::{self, CcdCache, CcdOptions, RigidMotion};
use polycd::mesh::{MeshDistance, TriMesh};
use polycd::{ConvexPolyhedron, DVec3, PolycdError, Pose};
use serde_json::{json, Value};

/// A shape for `toc`.
pub enum Solid {
    /// A convex polyhedron.
    Convex(Box<ConvexPolyhedron>),
    /// A closed triangle mesh.
    Mesh(Box<TriMesh>),
}

/// Loads a `toc` shape; `mesh` asks for mesh mode.
pub fn load(s: &str, mesh: bool) -> Result<Solid, PolycdError> {
    if torus_knot_spec(s).is_some() || mesh {
        return load_mesh(s).map(|m| Solid::Mesh(Box::new(m)));
    }
    crate::input::load_shape(s).map(|c| Solid::Convex(Box::new(c)))
}

/// Loads a closed mesh: a `torus-knot:` spec, a saved decomposition (`.pcdm`, see
/// `polycd decompose --save`), a mesh file (repaired and checked; what was repaired and any
/// re-oriented component is said on stderr), or a convex shape as a mesh.
pub fn load_mesh(s: &str) -> Result<TriMesh, PolycdError> {
    if let Some(k) = torus_knot_spec(s) {
        return k;
    }
    let path = std::path::Path::new(s);
    if path.is_file() {
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("pcdm")) {
            return TriMesh::load(path);
        }
        let m = TriMesh::read(s)?;
        if !m.repair().is_empty() {
            eprintln!("note: {s}: repaired: {}", m.repair());
        }
        // Components wound against their nesting were reversed: say so (the answer is
        // for the solid the nesting describes).
        for note in crate::meshq::reoriented_notes(s, &m) {
            eprintln!("{note}");
        }
        return Ok(m);
    }
    let c = crate::input::load_shape(s)?;
    convex_to_mesh(&c)
}

/// A convex polyhedron as a closed triangle mesh (its faces fan-triangulated).
pub fn convex_to_mesh(c: &ConvexPolyhedron) -> Result<TriMesh, PolycdError> {
    let faces: Vec<Vec<u32>> = (0..c.faces().len() as u32)
        .map(|f| c.face_vertices(f).to_vec())
        .collect();
    TriMesh::new(c.vertices(), &faces)
}

/// The inputs of one `toc` run.
pub struct TocInput<'a> {
    /// Shape A (moving).
    pub a: &'a str,
    /// Shape B.
    pub b: &'a str,
    /// A's poses at t = 0 and t = 1.
    pub pose_a: (Pose, Pose),
    /// B's poses at t = 0 and t = 1 (equal: B fixed).
    pub pose_b: (Pose, Pose),
    /// Force mesh mode.
    pub mesh: bool,
    /// Options.
    pub options: CcdOptions,
}

fn vec_json(p: DVec3) -> Value {
    json!([p.x, p.y, p.z])
}

fn pose_json(p: &Pose) -> Value {
    let q = p.rotation;
    json!({"translation": vec_json(p.translation), "rotation": [q.w, q.x, q.y, q.z]})
}

/// The first keys of a `contact` answer of [`run`], in their order.
fn contact_head(t: f64, iterations: u32, distance: f64, pose_a: &Pose, pose_b: &Pose) -> Value {
    json!({
        "status": "contact", "t": t, "iterations": iterations, "distance": distance,
        "pose_a": pose_json(pose_a), "pose_b": pose_json(pose_b),
    })
}

/// Adds the `contacts` array of [`run`]'s `contact` answer: the contact features of the
/// solids at their poses of contact, within the stop distance the advancement used (of the
/// summed length `scale` of the two shapes).
fn add_contacts(
    v: &mut Value,
    a: polycd::mesh::Solid<'_>,
    pose_a: &Pose,
    b: polycd::mesh::Solid<'_>,
    pose_b: &Pose,
    scale: f64,
    options: &CcdOptions,
) -> Result<(), PolycdError> {
    let threshold = options.threshold(scale)?;
    let c = ccd::contact_features(a, pose_a, b, pose_b, threshold)?;
    v["contacts"] = contacts_json(&c);
    Ok(())
}

/// Runs the query and returns the answer as JSON (`status`: `contact`, `none` or
/// `not_converged`); other failures are errors.
pub fn run(input: &TocInput) -> Result<Value, String> {
    let e = |e: PolycdError| match e {
        PolycdError::NotConvex { .. } => format!("{e}; pass --mesh to answer for the solid itself"),
        e => e.to_string(),
    };
    let knot = |s: &str| s.trim().starts_with("torus-knot:");
    let mesh_mode = input.mesh || knot(input.a) || knot(input.b);
    let sa = load(input.a, mesh_mode).map_err(e)?;
    let sb = load(input.b, mesh_mode).map_err(e)?;
    let not_converged = |r: PolycdError| match r {
        PolycdError::CcdNotConverged { iterations, t_free } => {
            Ok(json!({"status": "not_converged", "iterations": iterations, "t_free": t_free}))
        }
        other => Err(other.to_string()),
    };
    match (sa, sb) {
        (Solid::Convex(a), Solid::Convex(b)) => {
            let ma = RigidMotion::about_centroid(&a, input.pose_a.0, input.pose_a.1).map_err(e)?;
            let mb = RigidMotion::about_centroid(&b, input.pose_b.0, input.pose_b.1).map_err(e)?;
            match ccd::time_of_contact(&a, &ma, &b, &mb, &input.options, &mut CcdCache::default()) {
                Ok(None) => Ok(toc_object(None, None, &[])),
                Ok(Some(t)) => {
                    let mut v = contact_head(t.t, t.iterations, t.distance, &t.pose_a, &t.pose_b);
                    if let Some((pa, pb)) = t.closest {
                        v["point_a"] = vec_json(pa);
                        v["point_b"] = vec_json(pb);
                    }
                    if let Some(f) = t.features {
                        v["features"] = json!([crate::answer::feature_text(f.a), crate::answer::feature_text(f.b)]);
                    }
                    if t.closest.is_none() {
                        // Overlapping at t: the overlap witness as the points.
                        v["overlapping"] = json!(true);
                        if let Some((pa, pb)) = overlap_points(&a, &t.pose_a, &b, &t.pose_b) {
                            v["point_a"] = vec_json(pa);
                            v["point_b"] = vec_json(pb);
                        }
                    }
                    let (sa, sb) = (polycd::mesh::Solid::Convex(&a), polycd::mesh::Solid::Convex(&b));
                    add_contacts(
                        &mut v,
                        sa,
                        &t.pose_a,
                        sb,
                        &t.pose_b,
                        a.bounding_radius() + b.bounding_radius(),
                        &input.options,
                    )
                    .map_err(e)?;
                    Ok(v)
                }
                Err(r) => not_converged(r),
            }
        }
        (Solid::Mesh(a), Solid::Mesh(b)) => {
            let ma = RigidMotion::new(input.pose_a.0, input.pose_a.1, a.centroid()).map_err(e)?;
            let mb = RigidMotion::new(input.pose_b.0, input.pose_b.1, b.centroid()).map_err(e)?;
            match mesh::time_of_contact(&a, &ma, &b, &mb, &input.options, &mut MeshToiCache::default()) {
                Ok(None) => Ok(toc_object(None, None, &[])),
                Ok(Some(t)) => {
                    let mut v = contact_head(t.t, t.iterations, t.distance(), &t.pose_a, &t.pose_b);
                    match t.answer {
                        MeshDistance::Separated {
                            point_a,
                            point_b,
                            pieces,
                            triangles,
                            ..
                        } => {
                            v["point_a"] = vec_json(point_a);
                            v["point_b"] = vec_json(point_b);
                            v["pieces"] = json!([pieces.0, pieces.1]);
                            v["triangles"] = json!([triangles.0, triangles.1]);
                        }
                        MeshDistance::Overlapping { pieces } => {
                            v["overlapping"] = json!(true);
                            if let Some(p) = pieces {
                                v["pieces"] = json!([p.0, p.1]);
                            }
                            let (sa, sb) = (polycd::mesh::Solid::Mesh(&a), polycd::mesh::Solid::Mesh(&b));
                            let mut cache = polycd::mesh::SolidCache::default();
                            if let Ok(polycd::mesh::MeshAnswer::Overlapping { point_a, point_b, .. }) =
                                polycd::mesh::distance(sa, &t.pose_a, sb, &t.pose_b, &mut cache)
                            {
                                if point_a.is_finite() && point_b.is_finite() {
                                    v["point_a"] = vec_json(point_a);
                                    v["point_b"] = vec_json(point_b);
                                }
                            }
                        }
                        other => {
                            return Err(format!("polycd gave a mesh distance this CLI does not know: {other:?}"));
                        }
                    }
                    let (sa, sb) = (polycd::mesh::Solid::Mesh(&a), polycd::mesh::Solid::Mesh(&b));
                    add_contacts(
                        &mut v,
                        sa,
                        &t.pose_a,
                        sb,
                        &t.pose_b,
                        a.scale() + b.scale(),
                        &input.options,
                    )
                    .map_err(e)?;
                    Ok(v)
                }
                Err(r) => not_converged(r),
            }
        }
        _ => Err("internal: mixed convex and mesh shapes".to_string()),
    }
}

fn num_text(x: &Value) -> String {
    match x.as_f64() {
        Some(v) => format!("{v}"),
        None => x.to_string(),
    }
}

fn vec_text(x: &Value) -> String {
    match x.as_array() {
        Some(a) => format!("[{}]", a.iter().map(num_text).collect::<Vec<_>>().join(", ")),
        None => x.to_string(),
    }
}

fn pose_text(x: &Value) -> String {
    format!(
        "translation {}, rotation {}",
        vec_text(&x["translation"]),
        vec_text(&x["rotation"])
    )
}

/// Human-readable text of a `run` answer: a sentence, then labelled numbers (the same
/// content as the JSON answer, which stays the machine format).
pub fn text(v: &Value) -> String {
    let mut s = String::new();
    let mut line = |label: &str, value: String| s.push_str(&format!("{:<15} {value}\n", format!("{label}:")));
    match v["status"].as_str() {
        Some("contact") => {
            let t = v["t"].as_f64().unwrap_or(f64::NAN);
            // No closest points: the shapes overlap at t (only at t = 0, or by rounding in the
            // last step).
            let overlapping = v["overlapping"] == json!(true) || v.get("point_a").is_none();
            let sentence = if overlapping && t == 0.0 {
                "A and B already overlap at t = 0, where the motion starts: no motion is needed for contact."
                    .to_string()
            } else if overlapping {
                format!("A first touches B at t = {t}, where they overlap by rounding in the last step; they are apart for every earlier t.")
            } else {
                format!(
                    "A first touches B at t = {t}, {:.4}% of the way through the motion; they are apart for every earlier t.",
                    100.0 * t
                )
            };
            line("answer", sentence);
            line(
                "t",
                format!(
                    "{} (fraction of the motion: 0 at the first poses, 1 at the last)",
                    num_text(&v["t"])
                ),
            );
            line(
                "gap at t",
                format!(
                    "{} (at most the stop distance; in the input's units)",
                    num_text(&v["distance"])
                ),
            );
            line("A at t", pose_text(&v["pose_a"]));
            line("B at t", pose_text(&v["pose_b"]));
            if let Some(p) = v.get("point_a") {
                line("point on A", vec_text(p));
            }
            if let Some(p) = v.get("point_b") {
                line("point on B", vec_text(p));
            }
            if let Some(f) = v["features"].as_array() {
                let f: Vec<&str> = f.iter().map(|x| x.as_str().unwrap_or("?")).collect();
                line(
                    "features",
                    format!("A {}  B {}", f.first().unwrap_or(&"?"), f.get(1).unwrap_or(&"?")),
                );
            }
            if let Some(p) = v["pieces"].as_array() {
                line("convex pieces", format!("A {}  B {}", num_text(&p[0]), num_text(&p[1])));
            } else if v["overlapping"] == json!(true) {
                line(
                    "convex pieces",
                    "none overlap: one solid contains the other".to_string(),
                );
            }
            if let Some(p) = v["triangles"].as_array() {
                line(
                    "triangles",
                    format!(
                        "A {}  B {} (nearest the closest points)",
                        num_text(&p[0]),
                        num_text(&p[1])
                    ),
                );
            }
            if let Some(c) = v["contacts"].as_array() {
                line(
                    "contacts",
                    format!(
                        "{} feature pair{} within the stop distance (--json lists them)",
                        c.len(),
                        if c.len() == 1 { "" } else { "s" }
                    ),
                );
            }
            line("iterations", num_text(&v["iterations"]));
        }
        Some("none") => {
            line(
                "answer",
                "A does not touch B during the motion (t from 0 to 1): they stay apart.".to_string(),
            );
        }
        Some("not_converged") => {
            line(
                "answer",
                format!(
                    "no answer: the advancement hit its bound of {} steps (raise --max-iterations); A and B are apart for t from 0 to {}.",
                    num_text(&v["iterations"]),
                    num_text(&v["t_free"])
                ),
            );
            line("apart until t", num_text(&v["t_free"]));
            line("iterations", num_text(&v["iterations"]));
        }
        _ => {
            for (k, x) in v.as_object().into_iter().flatten() {
                line(k, x.to_string());
            }
        }
    }
    s
}

/// The outcome of a continuous query on a pair of either kind ([`solve`]).
#[derive(Clone, Copy, Debug)]
pub struct Motion {
    /// The time of contact; `None`: no contact for t in [0, 1].
    pub t: Option<f64>,
    /// Advancement steps taken.
    pub iterations: u32,
    /// A's pose at `t` (at t = 1 when there is no contact).
    pub pose_a: Pose,
    /// B's pose at `t` (at t = 1 when there is no contact).
    pub pose_b: Pose,
    /// The stop distance the advancement used (the contact features' threshold).
    pub threshold: f64,
}

/// The first contact of `a` moving from `pose_a.0` to `pose_a.1` and `b` from `pose_b.0` to
/// `pose_b.1` (each about its volume centroid, constant linear and angular velocity: see
/// [`RigidMotion`]). Two convex shapes: [`ccd::time_of_contact`]; a pair with a mesh side: the
/// convex side as a closed mesh (its faces fan-triangulated) and [`mesh::time_of_contact`].
pub fn solve(
    a: polycd::mesh::Solid<'_>,
    b: polycd::mesh::Solid<'_>,
    pose_a: (Pose, Pose),
    pose_b: (Pose, Pose),
    options: &CcdOptions,
) -> Result<Motion, PolycdError> {
    use polycd::mesh::Solid;
    if let (Solid::Convex(a), Solid::Convex(b)) = (a, b) {
        let ma = RigidMotion::about_centroid(a, pose_a.0, pose_a.1)?;
        let mb = RigidMotion::about_centroid(b, pose_b.0, pose_b.1)?;
        let threshold = options.threshold(a.bounding_radius() + b.bounding_radius())?;
        let r = ccd::time_of_contact(a, &ma, b, &mb, options, &mut CcdCache::default())?;
        return Ok(match r {
            Some(t) => Motion {
                t: Some(t.t),
                iterations: t.iterations,
                pose_a: t.pose_a,
                pose_b: t.pose_b,
                threshold,
            },
            None => Motion {
                t: None,
                iterations: 0,
                pose_a: ma.pose_at(1.0),
                pose_b: mb.pose_at(1.0),
                threshold,
            },
        });
    }
    fn as_mesh<'s>(s: Solid<'s>) -> Result<std::borrow::Cow<'s, TriMesh>, PolycdError> {
        match s {
            Solid::Mesh(m) => Ok(std::borrow::Cow::Borrowed(m)),
            Solid::Convex(c) => convex_to_mesh(c).map(std::borrow::Cow::Owned),
            _ => Err(PolycdError::Unsupported {
                algorithm: "mesh time of contact (CLI)",
                query: "a kind of solid this CLI does not know",
            }),
        }
    }
    let (ma_, mb_) = (as_mesh(a)?, as_mesh(b)?);
    let ma = RigidMotion::new(pose_a.0, pose_a.1, ma_.centroid())?;
    let mb = RigidMotion::new(pose_b.0, pose_b.1, mb_.centroid())?;
    let threshold = options.threshold(ma_.scale() + mb_.scale())?;
    let r = mesh::time_of_contact(&ma_, &ma, &mb_, &mb, options, &mut MeshToiCache::default())?;
    Ok(match r {
        Some(t) => Motion {
            t: Some(t.t),
            iterations: t.iterations,
            pose_a: t.pose_a,
            pose_b: t.pose_b,
            threshold,
        },
        None => Motion {
            t: None,
            iterations: 0,
            pose_a: ma.pose_at(1.0),
            pose_b: mb.pose_at(1.0),
            threshold,
        },
    })
}

/// The `contacts` array: `[{"a": feature, "b": feature, "point_a", "point_b", "distance",
/// "normal"}, …]`, features in the batch's format (convex vertex/edge/face ids, a mesh's
/// `{"kind": "triangle", "id": <input face>}`).
pub fn contacts_json(contacts: &[ccd::ContactFeature]) -> Value {
    Value::Array(
        contacts
            .iter()
            .map(|c| {
                let f = crate::answer::features_json((c.a.feature, c.b.feature));
                json!({
                    "a": f["a"], "b": f["b"],
                    "point_a": vec_json(c.point_a), "point_b": vec_json(c.point_b),
                    "distance": c.distance, "normal": vec_json(c.normal),
                })
            })
            .collect(),
    )
}

/// The `toc` object of a batch line and of `polycd toc --json`: `{"t", "status": "contact" |
/// "none", "point_a", "point_b", "contacts"}` (`t` and the points `null` when none; the
/// points are the closest points at `t`, or the overlap witness when the shapes overlap).
pub fn toc_object(t: Option<f64>, points: Option<(DVec3, DVec3)>, contacts: &[ccd::ContactFeature]) -> Value {
    let p = |x: Option<DVec3>| x.filter(|p| p.is_finite()).map_or(Value::Null, vec_json);
    match t {
        None => {
            json!({"t": Value::Null, "status": "none", "point_a": Value::Null, "point_b": Value::Null, "contacts": []})
        }
        Some(t) => json!({
            "t": t, "status": "contact",
            "point_a": p(points.map(|x| x.0)), "point_b": p(points.map(|x| x.1)),
            "contacts": contacts_json(contacts),
        }),
    }
}

/// The overlap witness of two overlapping convex shapes: the penetration's points, else a
/// common point (twice).
fn overlap_points(a: &ConvexPolyhedron, pa: &Pose, b: &ConvexPolyhedron, pb: &Pose) -> Option<(DVec3, DVec3)> {
    let mut cache = polycd::PairCache::default();
    match polycd::query::distance(a, pa, b, pb, polycd::Algorithm::Auto, &mut cache).ok()? {
        polycd::Distance::Penetrating {
            witness, penetration, ..
        } => match penetration {
            Some(p) => Some((p.point_a, p.point_b)),
            None => match witness {
                polycd::OverlapWitness::CommonPoint(p) | polycd::OverlapWitness::Features { point: p, .. } => {
                    Some((p, p))
                }
                polycd::OverlapWitness::Simplex(s) => s.common_point(a, pa, b, pb).map(|p| (p, p)),
                // A witness this CLI does not know: no points (they are optional).
                _ => None,
            },
        },
        _ => None,
    }
}
