//! The JSON-lines batch format (documented in the README).
//!
//! Every input line gets exactly one output line, in order. A line that cannot be answered
//! (invalid JSON, a bad shape, an unsupported algorithm…) gets `"status": "error"` with a
//! message, and the batch goes on.

use crate::answer::{not_converged, status_name, unknown_answer, Answer, QueryKind, RayOut};
use crate::meshq::BatchSolid;
use crate::schema::{check_keys, optional_vec3, pose_of, vec3, LINE_KEYS, SHAPE_KEYS};
use crate::shape_cache::{LineCtx, ShapeKey};
use polycd::query::{self, ManifoldCache, ManifoldOptions};
use polycd::{
    shapes, Algorithm, ConvexPolyhedron, DVec3, Directional, Distance, FeaturePair, Intersection, OverlapWitness,
    PairCache, PolycdError, Pose,
};
use serde_json::{Map, Value};
use std::sync::Arc;
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
    let r = answer_inner(a, pa, b, pb, kind, direction, algorithm, &mut PairCache::default()).and_then(|mut ans| {
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

/// [`answer`] of an intersect, distance or directional query (not a manifold) through a
/// reused cache: `cache` is forgotten first ([`PairCache::forget`]: the query starts cold, as
/// with a new cache — the same answer, bit for bit, which `batch_run`'s differential test
/// checks against the general path for every algorithm) and keeps its scratch buffers, so a
/// batch's worker does not allocate per line.
#[allow(clippy::too_many_arguments)]
pub(crate) fn answer_in(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    kind: QueryKind,
    direction: Option<DVec3>,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Answer {
    if kind == QueryKind::Manifold {
        return answer(a, pa, b, pb, kind, direction, algorithm);
    }
    cache.forget();
    match answer_inner(a, pa, b, pb, kind, direction, algorithm, cache) {
        Ok(ans) => ans,
        Err(e) => Answer::error(Value::Null, e.to_string()),
    }
}

#[allow(clippy::too_many_arguments)]
fn answer_inner(
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
    kind: QueryKind,
    direction: Option<DVec3>,
    algorithm: Algorithm,
    cache: &mut PairCache,
) -> Result<Answer, PolycdError> {
    let tol = query::contact_tolerance(a, pa, b, pb);
    match kind {
        QueryKind::Intersect => {
            let r = query::intersect(a, pa, b, pb, algorithm, cache)?;
            Ok(intersection_answer(&r, a, pa, b, pb))
        }
        QueryKind::Distance | QueryKind::Manifold => {
            let d = query::distance(a, pa, b, pb, algorithm, cache)?;
            Ok(distance_answer(&d, tol, a, pa, b, pb))
        }
        QueryKind::Directional => {
            let s = direction.ok_or(PolycdError::BadDirection)?;
            let r = query::directional(a, pa, b, pb, s, algorithm, cache)?;
            directional_answer(&r, tol, a, pa, b, pb)
        }
        QueryKind::Point | QueryKind::Ray => Err(PolycdError::InvalidOption {
            name: "query",
            message: "point and ray queries take one shape: answered by batch::answer_probe",
        }),
    }
}

/// The batch fields of an intersect answer (`polycd batch`, `polycd query` and the Python
/// bindings map answers through this one function).
pub fn intersection_answer(
    r: &Intersection,
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
) -> Answer {
    match *r {
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
        Intersection::Overlapping {
            ref witness,
            iterations,
        } => {
            let (point, features) = witness_point(witness, a, pa, b, pb);
            Answer {
                status: "overlapping",
                point_a: point,
                point_b: point,
                features,
                iterations: Some(iterations),
                ..Answer::default()
            }
        }
        ref other => unknown_answer("intersection", other),
    }
}

/// The batch fields of a distance answer; `tol` is the pair's contact tolerance
/// ([`query::contact_tolerance`]), which decides touching.
pub fn distance_answer(
    d: &Distance,
    tol: f64,
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
) -> Answer {
    let status = d.status(tol);
    match *d {
        Distance::NotConverged { iterations } => not_converged(iterations),
        Distance::Separated {
            distance,
            point_a,
            point_b,
            features,
            iterations,
        } => Answer {
            status: status_name(status),
            distance: Some(distance),
            signed_distance: Some(distance),
            point_a: Some(point_a),
            point_b: Some(point_b),
            features: Some(features),
            iterations: Some(iterations),
            ..Answer::default()
        },
        Distance::Penetrating {
            ref witness,
            penetration,
            iterations,
        } => {
            // The witness' point stands in only when there is no penetration (its features
            // are shown either way): not computed otherwise.
            let features = witness_features(witness);
            let (point_a, point_b) = match penetration {
                Some(p) => (Some(p.point_a), Some(p.point_b)),
                None => {
                    let point = witness_point(witness, a, pa, b, pb).0;
                    (point, point)
                }
            };
            Answer {
                status: status_name(status),
                distance: Some(0.0),
                signed_distance: penetration.map(|p| -p.depth),
                point_a,
                point_b,
                features,
                iterations: Some(iterations),
                ..Answer::default()
            }
        }
        ref other => unknown_answer("distance", other),
    }
}

/// The batch fields of a directional answer: `directional` is `t`, and `status` the contact
/// status at the current pose (touching when `|t|` is within the contact tolerance `tol`,
/// disjoint when the line misses, else an intersect query decides).
pub fn directional_answer(
    r: &Directional,
    tol: f64,
    a: &ConvexPolyhedron,
    pa: &Pose,
    b: &ConvexPolyhedron,
    pb: &Pose,
) -> Result<Answer, PolycdError> {
    let (t, iterations) = match *r {
        Directional::NotConverged { iterations } => return Ok(not_converged(iterations)),
        Directional::Contact { t, iterations, .. } => (Some(t), iterations),
        Directional::Never { iterations } => (None, iterations),
        ref other => return Ok(unknown_answer("directional", other)),
    };
    let status = match t {
        Some(t) if t.abs() <= tol => "touching",
        None => "disjoint",
        _ => {
            let mut c2 = PairCache::default();
            match query::intersect(a, pa, b, pb, Algorithm::Auto, &mut c2)? {
                Intersection::NotConverged { iterations } => return Ok(not_converged(iterations)),
                r => status_name(r.status()),
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
                status: status_name(r.status(tol)),
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

/// The features of an overlap witness ([`witness_point`]'s second part, without its point).
fn witness_features(w: &OverlapWitness) -> Option<FeaturePair> {
    match *w {
        OverlapWitness::Features { features, .. } => Some(features),
        _ => None,
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
        // A witness this CLI does not know: the answer keeps its status, without a point.
        _ => (None, None),
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

/// The text of a raw line without its line end, or the error message of a line that is not
/// UTF-8 or is empty.
pub fn line_text(raw: &[u8]) -> Result<&str, String> {
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

/// Answers a parsed query line (not a define line).
pub fn answer_query_value(v: &Value, ctx: &LineCtx) -> Answer {
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
    if obj
        .get("query")
        .and_then(Value::as_str)
        .is_some_and(|s| s.trim().eq_ignore_ascii_case("toc"))
    {
        return toc_line(obj, a, ctx);
    }
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
    // A point or ray query on a mesh: the mesh's own point query and ray cast.
    if let (BatchSolid::Mesh(m), true) = (&a, kind.single_shape()) {
        if kind == QueryKind::Point {
            let p = point.ok_or("a point query needs \"point\": [x, y, z]")?;
            return Ok(crate::meshq::answer_probe(m, &pa, Some(p), None));
        }
        let origin = origin.ok_or("a ray query needs \"origin\": [x, y, z]")?;
        let direction = direction.ok_or("a ray query needs \"direction\": [x, y, z]")?;
        return Ok(crate::meshq::answer_probe(m, &pa, None, Some((origin, direction))));
    }
    // A pair with a mesh side: the mesh queries.
    let a = match (a, &b) {
        (BatchSolid::Convex(a), None | Some(BatchSolid::Convex(_))) => a,
        // A point or ray query asks `a` only (`b` was checked and is ignored).
        (BatchSolid::Convex(a), _) if kind.single_shape() => a,
        (a, b) => {
            let sb = match b {
                Some(b) => b.body(),
                None => a.body(),
            };
            return Ok(crate::meshq::answer_body(
                a.body(),
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
        // (Mesh and surface sides were answered above.)
        BatchSolid::Mesh(_) | BatchSolid::Surface(_) => a.clone(),
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

/// A `"query": "toc"` line: the first contact of A moving from `pose_a` to `pose_a1` and B
/// from `pose_b` to `pose_b1` (fixed when absent), with the contact features at that time.
/// The usual fields are the distance answer at the reported time (at t = 1 when there is no
/// contact), `status` `"touching"` at a contact unless the shapes overlap there
/// (`"overlapping"`, e.g. at t = 0), and `iterations` the advancement steps.
fn toc_line(obj: &Map<String, Value>, a: BatchSolid, ctx: &LineCtx) -> Result<Answer, String> {
    let b =
        solid_of(obj.get("b").filter(|v| !v.is_null()).ok_or("missing \"b\"")?, ctx).map_err(|e| format!("b: {e}"))?;
    let pa0 = pose_of(obj.get("pose_a")).map_err(|e| format!("pose_a: {e}"))?;
    let pb0 = pose_of(obj.get("pose_b")).map_err(|e| format!("pose_b: {e}"))?;
    let pa1 = match obj.get("pose_a1") {
        None | Some(Value::Null) => {
            return Err("pose_a1: a toc query needs \"pose_a1\", A's pose at t = 1 (the end of the motion)".into())
        }
        Some(v) => pose_of(Some(v)).map_err(|e| format!("pose_a1: {e}"))?,
    };
    let pb1 = match obj.get("pose_b1") {
        None | Some(Value::Null) => pb0,
        Some(v) => pose_of(Some(v)).map_err(|e| format!("pose_b1: {e}"))?,
    };
    let threshold = match obj.get("threshold") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_f64() {
            Some(x) if x.is_finite() && x > 0.0 => Some(x),
            _ => return Err(format!("threshold: must be a finite number > 0, got {v}")),
        },
    };
    let algorithm = algorithm_of(obj)?;
    let options = polycd::ccd::CcdOptions::default()
        .with_distance_threshold(threshold)
        .with_max_iterations(polycd::ccd::DEFAULT_MAX_ITERATIONS)
        .with_algorithm(algorithm);
    let (Some(sa), Some(sb)) = (a.solid(), b.solid()) else {
        return Err("toc on a surface (\"kind\": \"surface\") is not supported yet: the motion needs closed solids or convex shapes".into());
    };
    let m = crate::toc::solve(sa, sb, (pa0, pa1), (pb0, pb1), &options).map_err(|e| e.to_string())?;
    let mut ans = match (&a, &b) {
        (BatchSolid::Convex(x), BatchSolid::Convex(y)) => {
            answer(x, &m.pose_a, y, &m.pose_b, QueryKind::Distance, None, algorithm)
        }
        _ => crate::meshq::answer(
            sa,
            &m.pose_a,
            sb,
            &m.pose_b,
            QueryKind::Distance,
            algorithm,
            None,
            &ManifoldOptions::default(),
        ),
    };
    if ans.status == "error" {
        return Err(ans.error.unwrap_or_default());
    }
    let contacts = match m.t {
        Some(_) => {
            polycd::ccd::contact_features(sa, &m.pose_a, sb, &m.pose_b, m.threshold).map_err(|e| e.to_string())?
        }
        None => Vec::new(),
    };
    if m.t.is_some() && ans.status != "overlapping" {
        ans.status = "touching";
    }
    ans.iterations = Some(m.iterations);
    let points = ans.point_a.zip(ans.point_b);
    ans.toc = Some(crate::toc::toc_object(m.t, points, &contacts));
    Ok(ans)
}

/// The line's `"algorithm"` (default `auto`).
fn algorithm_of(obj: &Map<String, Value>) -> Result<Algorithm, String> {
    match obj.get("algorithm") {
        None | Some(Value::Null) => Ok(Algorithm::Auto),
        Some(Value::String(s)) => Algorithm::parse(s).ok_or_else(|| {
            format!(
                "unknown algorithm '{s}' (known: {})",
                Algorithm::ALL.map(|a| a.name()).join(", ")
            )
        }),
        Some(_) => Err("\"algorithm\" must be a string".into()),
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
    Ok(ManifoldOptions::default().with_margin(margin).with_reduce(reduce))
}

/// A line's shape object of either kind (`"kind"`: convex by default, or a closed mesh).
pub fn solid_of(v: &Value, ctx: &LineCtx) -> Result<BatchSolid, String> {
    if let Some(obj) = v.as_object() {
        if let Some(name) = obj.get("ref").filter(|v| !v.is_null()) {
            return ctx.resolve_ref(obj, name);
        }
        check_keys(obj, SHAPE_KEYS, "the shape object")?;
        match crate::meshq::shape_kind(obj)? {
            crate::meshq::ShapeKind::Mesh => return crate::meshq::mesh_of(obj).map(BatchSolid::Mesh),
            crate::meshq::ShapeKind::Surface => return crate::meshq::surface_of(obj).map(BatchSolid::Surface),
            crate::meshq::ShapeKind::Convex => {}
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
        return match ctx.resolve_ref(obj, name)? {
            BatchSolid::Convex(p) => Ok(p),
            BatchSolid::Mesh(_) | BatchSolid::Surface(_) => Err(format!(
                "\"ref\": {name} names a \"kind\": \"mesh\" or \"surface\" shape, not accepted here"
            )),
        };
    }
    check_keys(obj, SHAPE_KEYS, "the shape object")?;
    if crate::meshq::shape_kind(obj)? != crate::meshq::ShapeKind::Convex {
        return Err(
            "a \"kind\": \"mesh\" or \"surface\" shape is not accepted here (batch and query --mesh take meshes)"
                .into(),
        );
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
        let key = ShapeKey::inline(&pts, faces.as_deref(), hull, radius);
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
    ctx.shapes.cached(ShapeKey::Named(key), || {
        build().and_then(rounded).map_err(|e| match e {
            PolycdError::NotConvex { .. } => format!("{e}; set \"hull\": true to use its convex hull"),
            e => e.to_string(),
        })
    })
}
