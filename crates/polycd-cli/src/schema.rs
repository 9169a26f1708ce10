//! The batch format's schema: the keys of every object (the README's table is generated from
//! it) and the parsers of its small values (vectors, poses). The bottom of the CLI's batch
//! files: it uses only the library.

use polycd::{DVec3, Pose};
use serde_json::{Map, Value};

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
        "`\"intersect\"`, `\"distance\"`, `\"directional\"`, `\"manifold\"`, `\"toc\"` (two shapes), `\"point\"` or `\"ray\"` (shape `a` only)",
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
    key("pose_a1", "pose object", "required for `\"toc\"`", "`\"toc\"`: A's pose at t = 1 (`pose_a` is its pose at t = 0); ignored by other queries"),
    key("pose_b1", "pose object", "`pose_b` (B fixed)", "`\"toc\"`: B's pose at t = 1 (`pose_b` is its pose at t = 0); ignored by other queries"),
    key("threshold", "number", "`1e-4` × the summed shape radii", "`\"toc\"`: the stop distance, a finite number > 0: contact when the shapes are within it, and the contact features are the feature pairs within it; ignored by other queries"),
];

/// The keys of a shape object (`a`, `b`): exactly one of `vertices`, `file`, `shape`, `ref`.
pub const SHAPE_KEYS: &[Key] = &[
    key("ref", "string", "—", "the name given by an earlier define line: that shape as defined (no other key alongside)"),
    key("kind", "string", "`\"convex\"`", "`\"convex\"`: a convex shape, as without `kind`; `\"mesh\"`: `vertices` with `faces`, a `file` or a `shape` spec (e.g. `torus-knot:2,3:120,12`) is a closed non-convex solid — its features are `{\"kind\": \"triangle\", \"id\": <input face index>}`, and for overlapping solids `signed_distance` is minus a lower bound of the penetration depth; `\"surface\"`: the same sources read as an open (or non-manifold) triangle surface without an inside — its features are triangles too, and for overlapping pairs `signed_distance` is minus the deepest overlapping triangle pair's penetration depth (a lower bound); intersect and distance only"),
    key("vertices", "`[[x, y, z], …]`", "—", "points: their convex hull — a solid, or (exactly) a convex polygon when all are coplanar, a segment when collinear, a point when all are equal"),
    key("faces", "`[[i, j, k, …], …]`", "none", "with `vertices`: the boundary representation, used as given and validated (0-based indices, counter-clockwise seen from outside)"),
    key("file", "string", "—", "a mesh file (OBJ, OFF, STL) or point list (.xyz, .pts, .txt); its faces must bound a convex solid"),
    key("shape", "string", "—", "a built-in shape spec, e.g. `\"icosphere:2\"`"),
    key("hull", "boolean", "`false`", "`true`: use the convex hull of the vertices of a `file` (or of `vertices` with `faces`) even when the faces bound a non-convex solid"),
    key("radius", "number", "`0`", "rounds the shape (with `vertices`, `file` or `shape`): the Minkowski sum with a ball of this radius, a finite number ≥ 0 (added to a `shape` spec's own radius)"),
];

/// The keys of a define line: `{"define": NAME, "shape": SHAPE_OBJECT}` names a shape for the
/// `ref` of later lines (see `batch_run`).
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

/// The optional `[x, y, z]` key `name` of the line (`null` is absent), its error naming it.
pub fn optional_vec3(obj: &Map<String, Value>, name: &str) -> Result<Option<DVec3>, String> {
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
