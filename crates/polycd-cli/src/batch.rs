//! The JSON-lines batch format (documented in the README).
//!
//! Every input line gets exactly one output line, in order. A line that cannot be answered
//! (invalid JSON, a bad shape, an unsupported algorithm…) gets `"status": "error"` with a
//! message, and the batch goes on.

use crate::batch_run::{LineCtx, Shapes};
use crate::meshq::BatchSolid;
use polycd::query::{self, ContactManifold, ManifoldCache, ManifoldOptions, Status};
use polycd::{
    shapes, Algorithm, ConvexPolyhedron, DVec3, Directional, Distance, Feature, FeaturePair, Intersection,
    OverlapWitness, PairCache, PolycdError, Pose,
};
use serde_json::{json, Map, Value};
use std::io::{BufRead, Write};
use std::sync::Arc;

/// One key of a batch object: the schema the README's table shows (its test checks that the
/// table is [`schema_markdown`] exactly). Adding a key is one line in [`LINE_KEYS`],
/// [`SHAPE_KEYS`] or [`POSE_KEYS`] (plus the code that reads it); any key not listed is refused
/// by [`check_keys`].
#[derive(Clone, Copy, Debug)]
pub struct Key {
    /// The key as written in JSON.
    pub name: &'static str,
    /// Its JSON type.
    pub ty: &'static str,
    /// Its default when absent (or `null`).
    pub default: &'static str,
    /// What it means.
    pub meaning: &'static str,
}

const fn key(name: &'static str, ty: &'static str, default: &'static str, meaning: &'static str) -> Key {
    Key {
        name,
        ty,
        default,
        meaning,
    }
}

/// The keys of a query line.
pub const LINE_KEYS: &[Key] = &[
    key(
        "id",
        "any JSON value",
        "`null`",
        "echoed in the answer; the only free-form key",
    ),
    key("a", "shape object", "required", "shape A"),
    key(
        "b",
        "shape object",
        "required (not for `\"point\"`, `\"ray\"`)",
        "shape B; a point or ray query checks it when given and ignores it",
    ),
    key("pose_a", "pose object", "identity", "placement of A"),
    key("pose_b", "pose object", "identity", "placement of B"),
    key(
        "query",
        "string",
        "`\"intersect\"`",
        "`\"intersect\"`, `\"distance\"`, `\"directional\"`, `\"manifold\"` (two shapes), `\"point\"` or `\"ray\"` (shape `a` only)",
    ),
    key(
        "algorithm",
        "string",
        "`\"auto\"`",
        "`\"auto\"`, `\"gjk\"`, `\"vclip\"`, `\"cd_dual\"`, `\"hs_jump\"`, `\"qp\"`, `\"qp_fast\"`",
    ),
    key(
        "direction",
        "`[x, y, z]`",
        "required for `\"directional\"`",
        "translation direction of B, or the ray's direction for `\"ray\"` (any non-zero length); ignored by other queries",
    ),
    key(
        "point",
        "`[x, y, z]`",
        "required for `\"point\"`",
        "the query point (world frame); ignored by other queries",
    ),
    key(
        "origin",
        "`[x, y, z]`",
        "required for `\"ray\"`",
        "the ray's origin (world frame); ignored by other queries",
    ),
    key(
        "margin",
        "number",
        "`0`",
        "`\"manifold\"`: speculative margin, a finite number ≥ 0 (points apart by up to it are reported; a pair apart by more gives `\"manifold\": null`); ignored by other queries",
    ),
    key(
        "reduce",
        "boolean",
        "`false`",
        "`\"manifold\"`: `true` keeps at most 4 points (the deepest, then the largest area), else the full contact polygon; ignored by other queries",
    ),
];

/// The keys of a shape object (`a`, `b`): exactly one of `vertices`, `file`, `shape`, `ref`.
pub const SHAPE_KEYS: &[Key] = &[
    key("ref", "string", "—", "the name given by an earlier define line: that shape as defined (no other key alongside)"),
    key("kind", "string", "`\"convex\"`", "`\"convex\"`: a convex shape, as without `kind`; `\"mesh\"`: `vertices` with `faces`, a `file` or a `shape` spec (e.g. `torus-knot:2,3:120,12`) is a closed non-convex solid — its features are `{\"kind\": \"triangle\", \"id\": <input face index>}`, and for overlapping solids `signed_distance` is minus a lower bound of the penetration depth; `\"surface\"` is not supported yet"),
    key("vertices", "`[[x, y, z], …]`", "—", "points: their convex hull — a solid, or (exactly) a convex polygon when all are coplanar, a segment when collinear, a point when all are equal"),
    key("faces", "`[[i, j, k, …], …]`", "none", "with `vertices`: the boundary representation, used as given and validated (0-based indices, counter-clockwise seen from outside)"),
    key("file", "string", "—", "a mesh file (OBJ, OFF, STL) or point list (.xyz, .pts, .txt); its faces must bound a convex solid"),
    key("shape", "string", "—", "a built-in shape spec, e.g. `\"icosphere:2\"`"),
    key("hull", "boolean", "`false`", "`true`: use the convex hull of the vertices of a `file` (or of `vertices` with `faces`) even when the faces bound a non-convex solid"),
    key("radius", "number", "`0`", "rounds the shape (with `vertices`, `file` or `shape`): the Minkowski sum with a ball of this radius, a finite number ≥ 0 (added to a `shape` spec's own radius)"),
];

/// The keys of a define line: `{"define": NAME, "shape": SHAPE_OBJECT}` names a shape for the
/// `ref` of later lines (see [`crate::batch_run`]).
pub const DEFINE_KEYS: &[Key] = &[
    key("id", "any JSON value", "`null`", "echoed in the answer"),
    key(
        "define",
        "string",
        "required",
        "the name (non-empty); defined once, seen by later lines only",
    ),
    key(
        "shape",
        "shape object",
        "required",
        "the shape the name stands for (any shape object; a `ref` to an earlier name is an alias)",
    ),
];

/// The keys of a pose object (`pose_a`, `pose_b`).
pub const POSE_KEYS: &[Key] = &[
    key("translation", "`[x, y, z]`", "`[0, 0, 0]`", "translation"),
    key(
        "rotation",
        "`[w, x, y, z]`",
        "`[1, 0, 0, 0]`",
        "rotation quaternion, scalar first; normalised on input (zero length is an error)",
    ),
];

/// The schema table of the README's batch section, generated from the key tables.
pub fn schema_markdown() -> String {
    let mut s = String::from("| object | key | type | default | meaning |\n|---|---|---|---|---|\n");
    for (object, keys) in [
        ("line", LINE_KEYS),
        ("define", DEFINE_KEYS),
        ("shape", SHAPE_KEYS),
        ("pose", POSE_KEYS),
    ] {
        for k in keys {
            s.push_str(&format!(
                "| {object} | `{}` | {} | {} | {} |\n",
                k.name, k.ty, k.default, k.meaning
            ));
        }
    }
    s
}

/// Refuses any key of `obj` not in `keys`, naming it, the object kind and the known keys (and
/// the known key it most likely misspells).
pub fn check_keys(obj: &Map<String, Value>, keys: &[Key], what: &str) -> Result<(), String> {
    for name in obj.keys() {
        if keys.iter().any(|k| k.name == name) {
            continue;
        }
        let known: Vec<&str> = keys.iter().map(|k| k.name).collect();
        let hint = keys
            .iter()
            .map(|k| (edit_distance(&name.to_ascii_lowercase(), k.name), k.name))
            .filter(|&(d, _)| d <= 2)
            .min()
            .map(|(_, k)| format!("did you mean \"{k}\"? "))
            .unwrap_or_default();
        return Err(format!(
            "unknown key \"{name}\" in {what} ({hint}known: {})",
            known.join(", ")
        ));
    }
    Ok(())
}

/// Levenshtein distance of two short keys (bounded: keys longer than 64 bytes are "far").
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() > 64 || b.len() > 64 {
        return usize::MAX;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, &x) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &y) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(x != y)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

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
    pub iterations: Option<u32>,
    pub error: Option<String>,
    /// The contact manifold of a `"manifold"` line (`Some(None)`: apart beyond the margin,
    /// `"manifold": null`); `None` on every other line, which carries no `"manifold"` key.
    pub manifold: Option<Option<ContactManifold>>,
    /// The contact manifolds of a `"manifold"` line with a mesh side (`"manifolds"`: one per
    /// touching piece pair after merging; empty when apart beyond the margin); `None` on every
    /// other line, which carries no `"manifolds"` key.
    pub mesh_manifolds: Option<Vec<polycd::mesh::MeshManifold>>,
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
                (_, Some(f)) => crate::meshq::features_json(f),
                (Some(f), None) => json!({"a": feature_json(f.a), "b": feature_json(f.b)}),
                (None, None) => match self.feature_a {
                    Some(f) => json!({"a": feature_json(f), "b": Value::Null}),
                    None => Value::Null,
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
            m.insert("manifolds".into(), crate::meshq::manifolds_json(ms));
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

fn status_str(s: Status) -> &'static str {
    crate::status_name(s)
}

fn not_converged(iterations: u32) -> Answer {
    Answer {
        status: "error",
        iterations: Some(iterations),
        error: Some(format!("the algorithm did not converge within {iterations} iterations")),
        ..Answer::default()
    }
}

/// Answers one query (the shared core of `query` and `batch`).
pub fn answer(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    kind: QueryKind,
    direction: Option<DVec3>,
    algorithm: Algorithm,
) -> Answer {
    answer_with(a, pa, b, pb, kind, direction, algorithm, &ManifoldOptions::default())
}

/// [`answer`] with the options of a `"manifold"` query (ignored by the others). A manifold
/// answer is the distance answer (same fields) plus the `"manifold"` key.
#[allow(clippy::too_many_arguments)]
pub fn answer_with(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    kind: QueryKind,
    direction: Option<DVec3>,
    algorithm: Algorithm,
    options: &ManifoldOptions,
) -> Answer {
    let r = answer_inner(a, pa, b, pb, kind, direction, algorithm).and_then(|mut ans| {
        if kind == QueryKind::Manifold && ans.status != "error" {
            let mut cache = ManifoldCache::default();
            ans.manifold = Some(query::contact_manifold(a, pa, b, pb, options, &mut cache)?.cloned());
        }
        Ok(ans)
    });
    match r {
        Ok(ans) => ans,
        Err(e) => Answer::error(Value::Null, e.to_string()),
    }
}

fn answer_inner(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    kind: QueryKind,
    direction: Option<DVec3>,
    algorithm: Algorithm,
) -> Result<Answer, PolycdError> {
    let mut cache = PairCache::default();
    let tol = query::contact_tolerance(a, pa, b, pb);
    match kind {
        QueryKind::Intersect => {
            let r = query::intersect(a, pa, b, pb, algorithm, &mut cache)?;
            Ok(match r {
                Intersection::NotConverged { iterations } => not_converged(iterations),
                Intersection::Disjoint { iterations, .. } => Answer {
                    status: "disjoint",
                    iterations: Some(iterations),
                    ..Answer::default()
                },
                Intersection::Touching { point, iterations, .. } => Answer {
                    status: "touching",
                    point_a: Some(point),
                    point_b: Some(point),
                    iterations: Some(iterations),
                    ..Answer::default()
                },
                Intersection::Overlapping { witness, iterations } => {
                    let (point, features) = witness_point(&witness, a, pa, b, pb);
                    Answer {
                        status: "overlapping",
                        point_a: point,
                        point_b: point,
                        features,
                        iterations: Some(iterations),
                        ..Answer::default()
                    }
                }
            })
        }
        QueryKind::Distance | QueryKind::Manifold => {
            let d = query::distance(a, pa, b, pb, algorithm, &mut cache)?;
            let status = d.status(tol);
            Ok(match d {
                Distance::NotConverged { iterations } => not_converged(iterations),
                Distance::Separated {
                    distance,
                    point_a,
                    point_b,
                    features,
                    iterations,
                } => Answer {
                    status: status_str(status),
                    distance: Some(distance),
                    signed_distance: Some(distance),
                    point_a: Some(point_a),
                    point_b: Some(point_b),
                    features: Some(features),
                    iterations: Some(iterations),
                    ..Answer::default()
                },
                Distance::Penetrating {
                    witness,
                    penetration,
                    iterations,
                } => {
                    let (point, features) = witness_point(&witness, a, pa, b, pb);
                    Answer {
                        status: status_str(status),
                        distance: Some(0.0),
                        signed_distance: penetration.map(|p| -p.depth),
                        point_a: penetration.map(|p| p.point_a).or(point),
                        point_b: penetration.map(|p| p.point_b).or(point),
                        features,
                        iterations: Some(iterations),
                        ..Answer::default()
                    }
                }
            })
        }
        QueryKind::Directional => {
            let s = direction.ok_or(PolycdError::BadDirection)?;
            let r = query::directional(a, pa, b, pb, s, algorithm, &mut cache)?;
            let (t, iterations) = match r {
                Directional::NotConverged { iterations } => return Ok(not_converged(iterations)),
                Directional::Contact { t, iterations, .. } => (Some(t), iterations),
                Directional::Never { iterations } => (None, iterations),
            };
            // The contact status at the current pose.
            let status = match t {
                Some(t) if t.abs() <= tol => "touching",
                None => "disjoint",
                _ => {
                    let mut c2 = PairCache::default();
                    match query::intersect(a, pa, b, pb, Algorithm::Auto, &mut c2)? {
                        Intersection::NotConverged { iterations } => return Ok(not_converged(iterations)),
                        r => status_str(r.status()),
                    }
                }
            };
            Ok(Answer {
                status,
                directional: t,
                iterations: Some(iterations),
                ..Answer::default()
            })
        }
        QueryKind::Point | QueryKind::Ray => Err(PolycdError::InvalidOption {
            name: "query",
            message: "point and ray queries take one shape: answered by batch::answer_probe",
        }),
    }
}

/// The input of a single-shape query: the point, or the ray's origin and direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Probe {
    /// `"query": "point"`.
    Point(DVec3),
    /// `"query": "ray"`.
    Ray {
        /// The origin.
        origin: DVec3,
        /// The direction (any non-zero length; `t` is in its units).
        direction: DVec3,
    },
}

/// Answers a point query or a ray cast on shape `a` (the shared core of `query` and `batch`).
///
/// Point: `status` overlapping inside, touching on the boundary or within the contact
/// tolerance of it, disjoint outside; `signed_distance` (negative inside), `distance` (its
/// positive part: 0 inside), `point_a` the closest boundary point, `features.a` its feature.
/// Ray: `status` overlapping when the origin is strictly inside (`t` = 0), touching for any
/// other hit, disjoint on a miss; `ray` = `{t, point, normal}` (normal `null` from inside),
/// `point_a` the hit point, `features.a` the feature hit.
pub fn answer_probe(a: &ConvexPolyhedron, pa: &Pose, probe: Probe) -> Answer {
    match probe_inner(a, pa, probe) {
        Ok(ans) => ans,
        Err(e) => Answer::error(Value::Null, e.to_string()),
    }
}

fn probe_inner(a: &ConvexPolyhedron, pa: &Pose, probe: Probe) -> Result<Answer, PolycdError> {
    match probe {
        Probe::Point(p) => {
            let r = query::point_query(a, pa, p)?;
            let tol = query::point_contact_tolerance(a, pa, p);
            Ok(Answer {
                status: status_str(r.status(tol)),
                distance: Some(r.distance()),
                signed_distance: Some(r.signed_distance),
                point_a: Some(r.point),
                feature_a: Some(r.feature),
                ..Answer::default()
            })
        }
        Probe::Ray { origin, direction } => Ok(match query::ray_cast(a, pa, origin, direction)? {
            None => Answer {
                status: "disjoint",
                ..Answer::default()
            },
            Some(h) => Answer {
                status: if h.feature.is_none() { "overlapping" } else { "touching" },
                point_a: Some(h.point),
                feature_a: h.feature,
                ray: Some(RayOut {
                    t: h.t,
                    point: h.point,
                    normal: h.feature.map(|_| h.normal),
                }),
                ..Answer::default()
            },
        }),
    }
}

fn witness_point(
    w: &OverlapWitness,
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
) -> (Option<DVec3>, Option<FeaturePair>) {
    match *w {
        OverlapWitness::CommonPoint(p) => (Some(p), None),
        OverlapWitness::Features { features, point } => (Some(point), Some(features)),
        // The simplex's barycentric point: common to both shapes.
        OverlapWitness::Simplex(s) => (s.common_point(a, pa, b, pb), None),
    }
}

/// Runs the query and checks its certificate with `polycd::verify` (an independent routine:
/// separating planes against both vertex sets, closest points against both shapes, overlap
/// certificates by exact orientation tests).
pub fn verify_answer(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    kind: QueryKind,
    direction: Option<DVec3>,
    algorithm: Algorithm,
) -> Result<(), String> {
    use polycd::verify::{verify, Answer as V};
    let mut cache = PairCache::default();
    let answer = match kind {
        QueryKind::Intersect => {
            V::Intersection(query::intersect(a, pa, b, pb, algorithm, &mut cache).map_err(|e| e.to_string())?)
        }
        QueryKind::Distance | QueryKind::Manifold => {
            V::Distance(query::distance(a, pa, b, pb, algorithm, &mut cache).map_err(|e| e.to_string())?)
        }
        QueryKind::Directional => {
            let s = direction.ok_or("a directional query needs --direction")?;
            V::Directional {
                direction: s,
                answer: query::directional(a, pa, b, pb, s, algorithm, &mut cache).map_err(|e| e.to_string())?,
            }
        }
        QueryKind::Point | QueryKind::Ray => {
            return Err("point and ray answers carry no certificate for polycd::verify".into())
        }
    };
    verify(a, pa, b, pb, &answer).map_err(|e| e.to_string())?;
    if kind == QueryKind::Manifold {
        let mut mc = ManifoldCache::default();
        let m =
            query::contact_manifold(a, pa, b, pb, &ManifoldOptions::default(), &mut mc).map_err(|e| e.to_string())?;
        if let Some(m) = m {
            polycd::verify::verify_manifold(a, pa, b, pb, m).map_err(|e| format!("manifold: {e}"))?;
        }
    }
    Ok(())
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

/// Reads JSON lines from `input`, writes one answer per line to `out`.
///
/// A line that is not valid UTF-8 is a bad line (an error answer, the run goes on). A read
/// error ends the run after the lines read before it are answered (a partial last line is
/// answered as it is): it is reported in [`Summary::read_error`], not as an answer line, so a
/// failure that repeats (reading a directory) cannot loop. Errors writing `out` are returned.
pub fn run(input: impl BufRead, out: &mut impl Write) -> std::io::Result<Summary> {
    crate::batch_run::run(input, out, 1)
}

/// Answers one raw query line (its newline, and a carriage return before it, are dropped):
/// not a define line — [`crate::batch_run`] routes those — at the place `ctx` says.
pub(crate) fn answer_bytes(raw: &[u8], ctx: &LineCtx) -> Answer {
    match line_text(raw) {
        Ok(line) => answer_query_line(line, ctx),
        Err(msg) => Answer::error(Value::Null, msg),
    }
}

/// The text of a raw line without its line end, or the error message of a line that is not
/// UTF-8 or is empty.
pub(crate) fn line_text(raw: &[u8]) -> Result<&str, String> {
    let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    let line = match std::str::from_utf8(raw) {
        Ok(l) => l,
        Err(e) => return Err(format!("the line is not valid UTF-8 (byte {})", e.valid_up_to() + 1)),
    };
    if line.trim().is_empty() {
        return Err("empty line".into());
    }
    Ok(line)
}

/// Answers one input line as the next line of the batch `shapes` holds (a define line too;
/// used by `polycd view --batch-line` and by the fuzz target for the batch parser).
pub fn answer_line(line: &str, shapes: &mut Shapes) -> Answer {
    crate::batch_run::answer_next(line, shapes)
}

/// Answers one query line (not a define line) at the place `ctx` says.
pub(crate) fn answer_query_line(line: &str, ctx: &LineCtx) -> Answer {
    if let Some(ans) = crate::batch_fast::answer(line, ctx) {
        return ans;
    }
    // A byte-order mark (files saved by some editors start with one) is not JSON.
    let line = line.trim_start_matches('\u{feff}');
    let v: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return Answer::error(Value::Null, format!("invalid JSON: {e}")),
    };
    answer_query_value(&v, ctx)
}

/// Answers a parsed query line (not a define line).
pub(crate) fn answer_query_value(v: &Value, ctx: &LineCtx) -> Answer {
    let id = v.get("id").cloned().unwrap_or(Value::Null);
    match answer_value(v, ctx) {
        Ok(mut ans) => {
            ans.id = id;
            ans
        }
        Err(msg) => Answer::error(id, msg),
    }
}

fn answer_value(v: &Value, ctx: &LineCtx) -> Result<Answer, String> {
    let obj = v.as_object().ok_or("a query line must be a JSON object")?;
    check_keys(obj, LINE_KEYS, "the query line")?;
    let a = solid_of(obj.get("a").ok_or("missing \"a\"")?, ctx).map_err(|e| format!("a: {e}"))?;
    let kind = match obj.get("query") {
        None | Some(Value::Null) => QueryKind::Intersect,
        Some(Value::String(s)) => QueryKind::parse(s)?,
        Some(_) => return Err("\"query\" must be a string".into()),
    };
    // A point or ray query needs no `b`; one given is still checked (and then ignored).
    let b = match obj.get("b").filter(|v| !v.is_null()) {
        Some(b) => Some(solid_of(b, ctx).map_err(|e| format!("b: {e}"))?),
        None if kind.single_shape() => None,
        None => return Err("missing \"b\"".into()),
    };
    let pa = pose_of(obj.get("pose_a")).map_err(|e| format!("pose_a: {e}"))?;
    let pb = pose_of(obj.get("pose_b")).map_err(|e| format!("pose_b: {e}"))?;
    let algorithm = match obj.get("algorithm") {
        None | Some(Value::Null) => Algorithm::Auto,
        Some(Value::String(s)) => Algorithm::parse(s).ok_or_else(|| {
            format!(
                "unknown algorithm '{s}' (known: {})",
                Algorithm::ALL.map(|a| a.name()).join(", ")
            )
        })?,
        Some(_) => return Err("\"algorithm\" must be a string".into()),
    };
    let direction = match obj.get("direction") {
        None | Some(Value::Null) => None,
        Some(d) => Some(vec3(d).map_err(|e| format!("direction: {e}"))?),
    };
    if kind == QueryKind::Directional && direction.is_none() {
        return Err("a directional query needs \"direction\": [x, y, z]".into());
    }
    let point = optional_vec3(obj, "point")?;
    let origin = optional_vec3(obj, "origin")?;
    let options = manifold_options(obj)?;
    // A pair with a mesh side: the mesh queries.
    let a = match (a, &b) {
        (BatchSolid::Convex(a), None | Some(BatchSolid::Convex(_))) => a,
        // A point or ray query asks `a` only (`b` was checked and is ignored).
        (BatchSolid::Convex(a), _) if kind.single_shape() => a,
        (a, b) => {
            let sb = match b {
                Some(b) => b.solid(),
                None => a.solid(),
            };
            return Ok(crate::meshq::answer(
                a.solid(),
                &pa,
                sb,
                &pb,
                kind,
                algorithm,
                direction,
                &options,
            ));
        }
    };
    let b = b.map(|b| match b {
        BatchSolid::Convex(b) => b,
        // (Mesh sides were answered above.)
        BatchSolid::Mesh(_) => a.clone(),
    });
    match (kind, b) {
        (QueryKind::Point, _) => {
            let p = point.ok_or("a point query needs \"point\": [x, y, z]")?;
            Ok(answer_probe(&a, &pa, Probe::Point(p)))
        }
        (QueryKind::Ray, _) => {
            let origin = origin.ok_or("a ray query needs \"origin\": [x, y, z]")?;
            let direction = direction.ok_or("a ray query needs \"direction\": [x, y, z]")?;
            if direction == DVec3::ZERO {
                return Err("direction: a ray needs a non-zero direction".into());
            }
            Ok(answer_probe(&a, &pa, Probe::Ray { origin, direction }))
        }
        (_, Some(b)) => Ok(answer_with(&a, &pa, &b, &pb, kind, direction, algorithm, &options)),
        (_, None) => Err("missing \"b\"".into()),
    }
}

/// The line's `"margin"` (a finite number ≥ 0, default 0) and `"reduce"` (a boolean, default
/// false), each error naming its key.
fn manifold_options(obj: &Map<String, Value>) -> Result<ManifoldOptions, String> {
    let margin = match obj.get("margin") {
        None | Some(Value::Null) => 0.0,
        Some(v) => match v.as_f64() {
            Some(m) if m.is_finite() && m >= 0.0 => m,
            _ => return Err(format!("margin: must be a finite number ≥ 0, got {v}")),
        },
    };
    let reduce = match obj.get("reduce") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(r)) => *r,
        Some(v) => return Err(format!("reduce: must be true or false, got {v}")),
    };
    Ok(ManifoldOptions { margin, reduce })
}

/// The optional `[x, y, z]` key `name` of the line (`null` is absent), its error naming it.
fn optional_vec3(obj: &Map<String, Value>, name: &str) -> Result<Option<DVec3>, String> {
    match obj.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => vec3(v).map(Some).map_err(|e| format!("{name}: {e}")),
    }
}

/// `[x, y, z]` of finite numbers (also used by `polycd view --batch-line`).
pub fn vec3(v: &Value) -> Result<DVec3, String> {
    let arr = v.as_array().ok_or("expected [x, y, z]")?;
    if arr.len() != 3 {
        return Err(format!("expected 3 numbers, got {}", arr.len()));
    }
    let mut out = [0.0; 3];
    for (i, x) in arr.iter().enumerate() {
        out[i] = match x {
            // Numbers are read as written: one beyond the f64 range (1e400) is not finite.
            Value::Number(n) => n.as_f64().unwrap_or(f64::INFINITY),
            _ => return Err("expected numbers".into()),
        };
        if !out[i].is_finite() {
            return Err("coordinates must be finite".into());
        }
    }
    Ok(DVec3::from_array(out))
}

/// A line's pose object (identity when absent; also used by `polycd view --batch-line`).
pub fn pose_of(v: Option<&Value>) -> Result<Pose, String> {
    let Some(v) = v else {
        return Ok(Pose::IDENTITY);
    };
    if v.is_null() {
        return Ok(Pose::IDENTITY);
    }
    let obj = v
        .as_object()
        .ok_or("expected {\"translation\": [x,y,z], \"rotation\": [w,x,y,z]}")?;
    check_keys(obj, POSE_KEYS, "the pose object")?;
    let t = match obj.get("translation") {
        None | Some(Value::Null) => DVec3::ZERO,
        Some(t) => vec3(t).map_err(|e| format!("translation: {e}"))?,
    };
    let q = match obj.get("rotation") {
        None | Some(Value::Null) => [1.0, 0.0, 0.0, 0.0],
        Some(r) => {
            let arr = r.as_array().ok_or("rotation: expected [w, x, y, z]")?;
            if arr.len() != 4 {
                return Err(format!("rotation: expected 4 numbers (w, x, y, z), got {}", arr.len()));
            }
            let mut q = [0.0; 4];
            for (i, x) in arr.iter().enumerate() {
                q[i] = x.as_f64().ok_or("rotation: expected numbers")?;
                if !q[i].is_finite() {
                    return Err("rotation: components must be finite".into());
                }
            }
            q
        }
    };
    pose_from(t, q)
}

/// The pose of a translation and a finite quaternion `[w, x, y, z]` of any non-zero length
/// (the last step of [`pose_of`], shared with the batch's fast path).
pub(crate) fn pose_from(t: DVec3, mut q: [f64; 4]) -> Result<Pose, String> {
    // Any non-zero length is normalised: divided by its largest component first, so
    // lengths like 1e-20 or 1e160 neither underflow nor overflow on the way.
    let m = q.iter().fold(0.0f64, |m, c| m.max(c.abs()));
    if m > 0.0 {
        q = q.map(|c| c / m);
    }
    Pose::try_from_wxyz(t.to_array(), q).map_err(|e| e.to_string())
}

/// A line's shape object of either kind (`"kind"`: convex by default, or a closed mesh).
pub fn solid_of(v: &Value, ctx: &LineCtx) -> Result<BatchSolid, String> {
    if let Some(obj) = v.as_object() {
        check_keys(obj, SHAPE_KEYS, "the shape object")?;
        if crate::meshq::shape_kind(obj)? == crate::meshq::ShapeKind::Mesh {
            return crate::meshq::mesh_of(obj).map(BatchSolid::Mesh);
        }
    }
    shape_of(v, ctx).map(BatchSolid::Convex)
}

/// A line's convex shape object (also used by `polycd view --batch-line`): `"kind": "mesh"`
/// is refused here ([`solid_of`] reads both kinds).
pub fn shape_of(v: &Value, ctx: &LineCtx) -> Result<Arc<ConvexPolyhedron>, String> {
    let obj = v
        .as_object()
        .ok_or("a shape is {\"vertices\": [[x,y,z],…]}, {\"file\": path} or {\"shape\": spec}")?;
    if let Some(name) = obj.get("ref").filter(|v| !v.is_null()) {
        return ctx.resolve_ref(obj, name);
    }
    check_keys(obj, SHAPE_KEYS, "the shape object")?;
    if crate::meshq::shape_kind(obj)? == crate::meshq::ShapeKind::Mesh {
        return Err("a \"kind\": \"mesh\" shape is not accepted here (batch and query --mesh take meshes)".into());
    }
    let given = |k: &str| obj.get(k).filter(|v| !v.is_null());
    let sources: Vec<&str> = ["vertices", "file", "shape"]
        .into_iter()
        .filter(|k| given(k).is_some())
        .collect();
    if sources.len() > 1 {
        return Err(format!(
            "a shape takes exactly one of \"vertices\", \"file\", \"shape\" (found \"{}\")",
            sources.join("\" and \"")
        ));
    }
    let hull = match given("hull") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err("\"hull\" must be true or false".into()),
    };
    if given("faces").is_some() && given("vertices").is_none() {
        return Err("\"faces\" needs \"vertices\"".into());
    }
    let radius = match given("radius") {
        None => None,
        // Numbers are read as written: one beyond the f64 range (1e400) is not finite.
        Some(Value::Number(n)) => {
            let r = n.as_f64().unwrap_or(f64::INFINITY);
            if !(r.is_finite() && r >= 0.0) {
                return Err(format!("\"radius\" must be a finite number ≥ 0, found {n}"));
            }
            Some(r)
        }
        Some(other) => {
            return Err(format!(
                "\"radius\" must be a number (a finite number ≥ 0), found {other}"
            ))
        }
    };
    let rounded = |p: ConvexPolyhedron| -> Result<ConvexPolyhedron, PolycdError> {
        match radius {
            Some(r) => {
                let total = p.radius() + r;
                p.with_radius(total)
            }
            None => Ok(p),
        }
    };
    if let Some(verts) = given("vertices") {
        let arr = verts.as_array().ok_or("\"vertices\" must be an array of [x, y, z]")?;
        let mut pts = Vec::with_capacity(arr.len());
        for (i, p) in arr.iter().enumerate() {
            pts.push(vec3(p).map_err(|e| format!("vertex {i}: {e}"))?);
        }
        let faces = match given("faces") {
            Some(Value::Array(faces)) => {
                let mut fs: Vec<Vec<u32>> = Vec::with_capacity(faces.len());
                for (i, f) in faces.iter().enumerate() {
                    let idx = f.as_array().ok_or(format!("face {i}: expected an index list"))?;
                    let mut face = Vec::with_capacity(idx.len());
                    for x in idx {
                        let k = x
                            .as_u64()
                            .filter(|&k| k <= u32::MAX as u64)
                            .ok_or(format!("face {i}: indices must be non-negative integers"))?;
                        face.push(k as u32);
                    }
                    fs.push(face);
                }
                Some(fs)
            }
            None => None,
            Some(_) => return Err("\"faces\" must be an array of index lists [[i, j, k, …], …]".into()),
        };
        // Cached by content: the exact coordinates, faces and options (a hit compares them all).
        let key = crate::batch_run::ShapeKey::inline(&pts, faces.as_deref(), hull, radius);
        return ctx.shapes.cached(key, || {
            match &faces {
                Some(fs) if !hull => ConvexPolyhedron::from_faces(&pts, fs),
                _ => ConvexPolyhedron::from_points(&pts),
            }
            .and_then(rounded)
            .map_err(|e| e.to_string())
        });
    }
    let (key, build): (String, Box<dyn Fn() -> Result<ConvexPolyhedron, PolycdError>>) = if let Some(f) = given("file")
    {
        let path = f.as_str().ok_or("\"file\" must be a string")?.to_string();
        let p2 = path.clone();
        (
            format!("file:{hull}:{path}"),
            Box::new(move || {
                if hull {
                    polycd::io::read_polyhedron(&p2)
                } else {
                    polycd::io::read_convex_polyhedron(&p2)
                }
            }),
        )
    } else if let Some(s) = given("shape") {
        // Built-in shapes are convex: "hull" changes nothing.
        let spec = s.as_str().ok_or("\"shape\" must be a string")?.to_string();
        let s2 = spec.clone();
        (format!("shape:{spec}"), Box::new(move || shapes::from_spec(&s2)))
    } else {
        return Err("a shape needs \"vertices\", \"file\" or \"shape\"".into());
    };
    // The radius is part of the shape: "+r=" cannot occur in a spec's key otherwise.
    let key = match radius {
        Some(r) => format!("{key}+radius={r:?}"),
        None => key,
    };
    ctx.shapes.cached(crate::batch_run::ShapeKey::Named(key), || {
        build().and_then(rounded).map_err(|e| match e {
            PolycdError::NotConvex { .. } => format!("{e}; set \"hull\": true to use its convex hull"),
            e => e.to_string(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that gives `data`, then fails with `kind` on every later read (as a failing
    /// disk does).
    struct FailingAfter {
        data: std::io::Cursor<Vec<u8>>,
        kind: std::io::ErrorKind,
        reads_after: u32,
    }

    impl std::io::Read for FailingAfter {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.data.read(buf)?;
            if n > 0 {
                return Ok(n);
            }
            self.reads_after += 1;
            Err(std::io::Error::new(self.kind, "simulated"))
        }
    }

    /// Issue 29 item 1: a read error after some input answers every line read before it (the
    /// partial last line as it is), then ends the run with the error: one failing read, not a
    /// loop.
    #[test]
    fn a_read_error_ends_the_run_after_answering_what_was_read() {
        let line = r#"{"id":1,"a":{"shape":"cube"},"b":{"shape":"cube"},"pose_b":{"translation":[3,0,0]}}"#;
        let mut reader = std::io::BufReader::new(FailingAfter {
            data: std::io::Cursor::new(format!("{line}\nnot json\n{{\"id\":3").into_bytes()),
            kind: std::io::ErrorKind::Other,
            reads_after: 0,
        });
        let mut out = Vec::new();
        let s = run(&mut reader, &mut out).unwrap();
        assert_eq!(reader.get_ref().reads_after, 1);
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[0].contains(r#""status":"disjoint""#), "{}", lines[0]);
        assert!(
            lines[1].contains("invalid JSON") && lines[2].contains("invalid JSON"),
            "{text}"
        );
        assert_eq!((s.lines, s.errors), (3, 2));
        assert_eq!(s.read_error.as_ref().map(|e| e.kind()), Some(std::io::ErrorKind::Other));
        assert_eq!(s.exit_code(), 3);
        // A clean end: 1 with error lines, 0 without.
        let mut out = Vec::new();
        assert_eq!(run(format!("{line}\n\n").as_bytes(), &mut out).unwrap().exit_code(), 1);
        assert_eq!(run(format!("{line}\n").as_bytes(), &mut out).unwrap().exit_code(), 0);
    }
}
