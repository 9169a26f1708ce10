//! A batch answer before serialisation ([`Answer`]), its JSON (and [`write_answer`], which writes
//! the same bytes without building it), and the names the batch format
//! gives statuses, features and manifolds; [`Summary`], how a run ended. Shared by the batch
//! files, `polycd query`, the viewer and the Python bindings; it uses only the library.

use polycd::mesh::{self, SolidFeature};
use polycd::query::{ContactManifold, Status};
use polycd::{DVec3, Feature, FeaturePair};
use serde_json::{json, Map, Value};

/// Which question a line asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryKind {
    Intersect,
    Distance,
    Directional,
    /// One shape and a point (`query::point_query`).
    Point,
    /// One shape and a ray (`query::ray_cast`).
    Ray,
    /// The distance answer plus the contact manifold (`query::contact_manifold`).
    Manifold,
}

impl QueryKind {
    pub fn parse(s: &str) -> Result<QueryKind, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "intersect" | "intersection" | "overlap" => Ok(QueryKind::Intersect),
            "distance" => Ok(QueryKind::Distance),
            "directional" => Ok(QueryKind::Directional),
            "point" => Ok(QueryKind::Point),
            "ray" => Ok(QueryKind::Ray),
            "manifold" => Ok(QueryKind::Manifold),
            other => Err(format!(
                "unknown query '{other}' (known: intersect, distance, directional, manifold, point, ray)"
            )),
        }
    }

    /// Whether the question is about one shape (`a`) alone.
    pub fn single_shape(self) -> bool {
        matches!(self, QueryKind::Point | QueryKind::Ray)
    }
}

/// A ray cast's hit, as the `"ray"` output key shows it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayOut {
    /// The ray parameter (units of the direction as given).
    pub t: f64,
    /// The hit point.
    pub point: DVec3,
    /// The outward unit normal; `None` when the origin is strictly inside.
    pub normal: Option<DVec3>,
}

/// One answer, before serialisation.
#[derive(Clone, Debug, Default)]
pub struct Answer {
    pub id: Value,
    pub status: &'static str,
    pub distance: Option<f64>,
    pub signed_distance: Option<f64>,
    pub directional: Option<f64>,
    pub point_a: Option<DVec3>,
    pub point_b: Option<DVec3>,
    pub features: Option<FeaturePair>,
    /// The feature of shape `a` of a single-shape query (`"features": {"a": …, "b": null}`).
    pub feature_a: Option<Feature>,
    /// A ray cast's hit (`"ray"`; `null` on a miss and on every other query).
    pub ray: Option<RayOut>,
    /// The features of a pair with a mesh side (`features` shows these when set).
    pub solid_features: Option<(polycd::mesh::SolidFeature, polycd::mesh::SolidFeature)>,
    /// The feature of a mesh `a` of a point or ray query (`"features": {"a": {"kind":
    /// "triangle", …}, "b": null}`).
    pub solid_feature_a: Option<polycd::mesh::SolidFeature>,
    pub iterations: Option<u32>,
    pub error: Option<String>,
    /// The contact manifold of a `"manifold"` line (`Some(None)`: apart beyond the margin,
    /// `"manifold": null`); `None` on every other line, which carries no `"manifold"` key.
    pub manifold: Option<Option<ContactManifold>>,
    /// The contact manifolds of a `"manifold"` line with a mesh side (`"manifolds"`: one per
    /// touching piece pair after merging; empty when apart beyond the margin); `None` on every
    /// other line, which carries no `"manifolds"` key.
    pub mesh_manifolds: Option<Vec<polycd::mesh::MeshManifold>>,
    /// The `"toc"` object of a `"toc"` line (`toc::toc_object`); `None` on every other line,
    /// which carries no `"toc"` key.
    pub toc: Option<Value>,
}

fn vec_json(v: Option<DVec3>) -> Value {
    match v {
        Some(p) if p.is_finite() => json!([p.x, p.y, p.z]),
        _ => Value::Null,
    }
}

fn num_json(v: Option<f64>) -> Value {
    match v {
        Some(x) if x.is_finite() => json!(x),
        _ => Value::Null,
    }
}

fn feature_json(f: Feature) -> Value {
    match f {
        Feature::Vertex(i) => json!({"kind": "vertex", "id": i}),
        Feature::Edge(i) => json!({"kind": "edge", "id": i}),
        Feature::Face(i) => json!({"kind": "face", "id": i}),
    }
}

/// Human-readable feature, e.g. `edge 12`.
pub fn feature_text(f: Feature) -> String {
    match f {
        Feature::Vertex(i) => format!("vertex {i}"),
        Feature::Edge(i) => format!("edge {i}"),
        Feature::Face(i) => format!("face {i}"),
    }
}

impl Answer {
    pub(crate) fn error(id: Value, msg: String) -> Answer {
        Answer {
            id,
            status: "error",
            error: Some(msg),
            ..Answer::default()
        }
    }

    pub fn to_json(&self) -> Value {
        if self.status == "defined" {
            return json!({"id": self.id.clone(), "status": "defined", "error": Value::Null});
        }
        let mut m = Map::new();
        m.insert("id".into(), self.id.clone());
        m.insert("status".into(), json!(self.status));
        m.insert("distance".into(), num_json(self.distance));
        m.insert("signed_distance".into(), num_json(self.signed_distance));
        m.insert("directional".into(), num_json(self.directional));
        m.insert(
            "ray".into(),
            match self.ray {
                Some(r) => {
                    json!({"t": num_json(Some(r.t)), "point": vec_json(Some(r.point)), "normal": vec_json(r.normal)})
                }
                None => Value::Null,
            },
        );
        m.insert("point_a".into(), vec_json(self.point_a));
        m.insert("point_b".into(), vec_json(self.point_b));
        m.insert(
            "features".into(),
            match (self.features, self.solid_features) {
                (_, Some(f)) => features_json(f),
                (Some(f), None) => json!({"a": feature_json(f.a), "b": feature_json(f.b)}),
                (None, None) => match (self.feature_a, self.solid_feature_a) {
                    (Some(f), _) => json!({"a": feature_json(f), "b": Value::Null}),
                    (None, Some(f)) => json!({"a": solid_feature_json(f), "b": Value::Null}),
                    (None, None) => Value::Null,
                },
            },
        );
        m.insert(
            "iterations".into(),
            match self.iterations {
                Some(i) => json!(i),
                None => Value::Null,
            },
        );
        m.insert(
            "error".into(),
            match &self.error {
                Some(e) => json!(e),
                None => Value::Null,
            },
        );
        if let Some(man) = &self.manifold {
            m.insert("manifold".into(), manifold_json(man.as_ref()));
        }
        if let Some(ms) = &self.mesh_manifolds {
            m.insert("manifolds".into(), manifolds_json(ms));
        }
        if let Some(t) = &self.toc {
            m.insert("toc".into(), t.clone());
        }
        Value::Object(m)
    }
}

/// The `"manifold"` output object: `{"normal", "points": [{"a", "b", "separation",
/// "features": {"a", "b"}}, …]}`, `null` when apart beyond the margin.
pub fn manifold_json(m: Option<&ContactManifold>) -> Value {
    match m {
        None => Value::Null,
        Some(m) => json!({
            "normal": vec_json(Some(m.normal)),
            "points": m.points.iter().map(|q| json!({
                "a": vec_json(Some(q.a)),
                "b": vec_json(Some(q.b)),
                "separation": num_json(Some(q.separation)),
                "features": {"a": feature_json(q.features.a), "b": feature_json(q.features.b)},
            })).collect::<Vec<_>>(),
        }),
    }
}

/// The batch format's name for a contact status.
pub fn status_name(s: Status) -> &'static str {
    match s {
        Status::Disjoint => "disjoint",
        Status::Touching => "touching",
        Status::Overlapping => "overlapping",
        // Unknown, and any status a newer polycd adds: no contact status can be claimed.
        _ => "error",
    }
}

/// The error answer for an answer variant this CLI does not know (the library's answer
/// enums are `#[non_exhaustive]`: a newer polycd may add one). Never a guessed status.
pub fn unknown_answer(what: &str, answer: &dyn std::fmt::Debug) -> Answer {
    Answer {
        status: "error",
        error: Some(format!(
            "polycd gave a {what} answer this CLI does not know: {answer:?}"
        )),
        ..Answer::default()
    }
}

pub fn not_converged(iterations: u32) -> Answer {
    Answer {
        status: "error",
        iterations: Some(iterations),
        error: Some(format!("the algorithm did not converge within {iterations} iterations")),
        ..Answer::default()
    }
}

/// How a batch run ended: what the exit status reports.
#[derive(Debug, Default)]
pub struct Summary {
    /// Lines answered.
    pub lines: u64,
    /// Lines answered with `"status": "error"`.
    pub errors: u64,
    /// The read error that ended the run early, if any (not a bad line: the input itself
    /// could not be read, e.g. stdin is a directory).
    pub read_error: Option<std::io::Error>,
}

impl Summary {
    /// The exit status: 0 every line answered without error, 1 some lines were errors, 3 the
    /// input could not be read (2 is clap's, for usage errors).
    pub fn exit_code(&self) -> u8 {
        if self.read_error.is_some() {
            3
        } else if self.errors > 0 {
            1
        } else {
            0
        }
    }
}

fn solid_feature_json(f: SolidFeature) -> Value {
    match f {
        SolidFeature::Triangle(i) => json!({"kind": "triangle", "id": i}),
        SolidFeature::Convex(Feature::Vertex(i)) => json!({"kind": "vertex", "id": i}),
        SolidFeature::Convex(Feature::Edge(i)) => json!({"kind": "edge", "id": i}),
        SolidFeature::Convex(Feature::Face(i)) => json!({"kind": "face", "id": i}),
        other => json!({"kind": format!("{other:?}")}),
    }
}

/// The answer's `features` for a pair with a mesh side.
pub fn features_json(f: (SolidFeature, SolidFeature)) -> Value {
    json!({"a": solid_feature_json(f.0), "b": solid_feature_json(f.1)})
}

/// Human-readable feature, e.g. `triangle (input face) 12`.
pub fn solid_feature_text(f: SolidFeature) -> String {
    match f {
        SolidFeature::Triangle(i) => format!("triangle of input face {i}"),
        SolidFeature::Convex(f) => feature_text(f),
        other => format!("{other:?}"),
    }
}

/// The `"manifolds"` output of a mesh pair: `[{"normal", "points": [{"a", "b", "separation",
/// "features": {"a", "b"}}, …]}, …]`, one object per touching piece pair after merging.
pub fn manifolds_json(ms: &[mesh::MeshManifold]) -> Value {
    let v3 = |p: DVec3| json!([p.x, p.y, p.z]);
    Value::Array(
        ms.iter()
            .map(|m| {
                json!({
                    "normal": v3(m.normal),
                    "points": m.points.iter().map(|q| json!({
                        "a": v3(q.a),
                        "b": v3(q.b),
                        "separation": q.separation,
                        "features": {"a": solid_feature_json(q.features.0), "b": solid_feature_json(q.features.1)},
                    })).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

/// Appends the answer's JSON line (with its newline) to `out`: the bytes of
/// `format!("{}\n", ans.to_json())`, written without building the JSON value.
pub fn write_answer(ans: &Answer, out: &mut Vec<u8>) {
    write_answer_id(ans, None, out);
}

/// [`write_answer`] with the id given as the JSON text serde_json writes for it (`ans.id` is
/// then not read): `id_text` is a plain integer's text, which serde_json writes back as read.
pub(crate) fn write_answer_id(ans: &Answer, id_text: Option<&[u8]>, out: &mut Vec<u8>) {
    // Answers with keys this writer does not spell out (a mesh side's features, a manifold) take the
    // general serialisation: the same bytes by construction.
    if ans.solid_features.is_some()
        || ans.solid_feature_a.is_some()
        || ans.manifold.is_some()
        || ans.mesh_manifolds.is_some()
        || ans.toc.is_some()
    {
        let mut v = ans.to_json();
        if let Some(id) = id_text.and_then(|t| serde_json::from_slice(t).ok()) {
            v["id"] = id;
        }
        write_value(&v, out);
        out.push(b'\n');
        return;
    }
    out.extend_from_slice(b"{\"id\":");
    match id_text {
        Some(t) => out.extend_from_slice(t),
        None => write_value(&ans.id, out),
    }
    out.extend_from_slice(b",\"status\":\"");
    out.extend_from_slice(ans.status.as_bytes());
    if ans.status == "defined" {
        out.extend_from_slice(b"\",\"error\":null}\n");
        return;
    }
    out.extend_from_slice(b"\",\"distance\":");
    let d = out.len();
    write_num(ans.distance, out);
    let d = d..out.len();
    out.extend_from_slice(b",\"signed_distance\":");
    match (ans.distance, ans.signed_distance) {
        // The same number (a separated pair's two distances): the same text.
        (Some(x), Some(y)) if x.to_bits() == y.to_bits() => out.extend_from_within(d),
        _ => write_num(ans.signed_distance, out),
    }
    out.extend_from_slice(b",\"directional\":");
    write_num(ans.directional, out);
    out.extend_from_slice(b",\"ray\":");
    match ans.ray {
        Some(r) => {
            out.extend_from_slice(b"{\"t\":");
            write_num(Some(r.t), out);
            out.extend_from_slice(b",\"point\":");
            write_vec(Some(r.point), out);
            out.extend_from_slice(b",\"normal\":");
            write_vec(r.normal, out);
            out.push(b'}');
        }
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"point_a\":");
    write_vec(ans.point_a, out);
    out.extend_from_slice(b",\"point_b\":");
    write_vec(ans.point_b, out);
    out.extend_from_slice(b",\"features\":");
    write_features(ans.features, ans.feature_a, out);
    out.extend_from_slice(b",\"iterations\":");
    match ans.iterations {
        Some(i) => write_u32(i, out),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"error\":");
    match &ans.error {
        Some(e) => write_value_str(e, out),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b"}\n");
}

fn write_value(v: &Value, out: &mut Vec<u8>) {
    // Writing to a Vec cannot fail, and a Value always serialises.
    let _ = serde_json::to_writer(&mut *out, v);
}

fn write_value_str(s: &str, out: &mut Vec<u8>) {
    let _ = serde_json::to_writer(&mut *out, s);
}

/// A finite number as serde_json writes an `f64` (shortest round-trip text), else `null`.
fn write_num(v: Option<f64>, out: &mut Vec<u8>) {
    match v {
        Some(x) if x.is_finite() => out.extend_from_slice(zmij::Buffer::new().format_finite(x).as_bytes()),
        _ => out.extend_from_slice(b"null"),
    }
}

fn write_vec(v: Option<DVec3>, out: &mut Vec<u8>) {
    match v {
        Some(p) if p.is_finite() => {
            out.push(b'[');
            write_num(Some(p.x), out);
            out.push(b',');
            write_num(Some(p.y), out);
            out.push(b',');
            write_num(Some(p.z), out);
            out.push(b']');
        }
        _ => out.extend_from_slice(b"null"),
    }
}

/// The `"features"` value of a convex answer: `{"a": …, "b": …}` for a pair, `{"a": …,
/// "b": null}` for a single-shape query, `null` otherwise (the general and the fast writers
/// share it).
pub(crate) fn write_features(features: Option<FeaturePair>, feature_a: Option<Feature>, out: &mut Vec<u8>) {
    match (features, feature_a) {
        (Some(f), _) => {
            out.extend_from_slice(b"{\"a\":");
            write_feature(f.a, out);
            out.extend_from_slice(b",\"b\":");
            write_feature(f.b, out);
            out.push(b'}');
        }
        (None, Some(f)) => {
            out.extend_from_slice(b"{\"a\":");
            write_feature(f, out);
            out.extend_from_slice(b",\"b\":null}");
        }
        (None, None) => out.extend_from_slice(b"null"),
    }
}

fn write_feature(f: Feature, out: &mut Vec<u8>) {
    // One constant copy per kind (each of a length the compiler knows).
    let i = match f {
        Feature::Vertex(i) => {
            out.extend_from_slice(b"{\"kind\":\"vertex\",\"id\":");
            i
        }
        Feature::Edge(i) => {
            out.extend_from_slice(b"{\"kind\":\"edge\",\"id\":");
            i
        }
        Feature::Face(i) => {
            out.extend_from_slice(b"{\"kind\":\"face\",\"id\":");
            i
        }
    };
    write_u32(i, out);
    out.push(b'}');
}

/// A `u32` in decimal (the one- and two-digit ids of small shapes without `itoa`'s buffer).
#[inline]
pub(crate) fn write_u32(i: u32, out: &mut Vec<u8>) {
    if i < 10 {
        out.push(b'0' + i as u8);
    } else if i < 100 {
        out.extend_from_slice(&[b'0' + (i / 10) as u8, b'0' + (i % 10) as u8]);
    } else {
        out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes());
    }
}
