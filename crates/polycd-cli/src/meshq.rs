//! Non-convex meshes in `polycd batch` and `polycd query --mesh` (issue 23 item 4).
//!
//! A batch shape object with `"kind": "mesh"` and `"vertices"` + `"faces"` (or `"file"`, or a
//! `"shape"` spec: `torus-knot:…`, or a convex built-in triangulated) is a closed non-convex
//! solid ([`TriMesh`]). Pairs with at least one mesh side are answered by
//! [`polycd::mesh::intersect`] / [`polycd::mesh::distance`]: exact distances, `features` naming
//! `{"kind": "triangle", "id": <input face index>}` on a mesh side (convex sides keep the
//! vertex/edge/face format), and for overlapping solids `signed_distance` = minus a certified
//! **lower bound** of the penetration depth (the deepest overlapping pair of convex pieces,
//! or for a solid inside the other the distance of the surfaces).
//!
//! A mesh's decomposition is built once per distinct mesh in a process (so once per batch
//! run): meshes are kept in a process-wide cache keyed by their content (the vertices' and
//! faces' bytes; a file by its path and a 128-bit hash of its bytes; a spec by its text).

use crate::answer::{status_name, unknown_answer, Answer, QueryKind};
use polycd::mesh::{self, Body, MeshAnswer, Solid, SolidCache, TriSurface};
use polycd::{Algorithm, DVec3, PolycdError, Pose};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Most meshes kept by the process-wide cache (later distinct meshes are built per line).
pub const MESH_CACHE_ENTRIES: usize = 64;
/// Most triangles (summed) kept by the cache.
pub const MESH_CACHE_TRIANGLES: usize = 4_000_000;

type MeshCacheMap = HashMap<Vec<u8>, Arc<polycd::mesh::TriMesh>>;

fn meshes() -> &'static Mutex<MeshCacheMap> {
    static MESHES: OnceLock<Mutex<MeshCacheMap>> = OnceLock::new();
    MESHES.get_or_init(|| Mutex::new(HashMap::new()))
}

/// How many distinct meshes the process has built and kept (for tests).
pub fn cached_meshes() -> usize {
    meshes().lock().map_or(0, |m| m.len())
}

/// The mesh under `key`, built by `build` the first time.
fn cached(
    key: Vec<u8>,
    build: impl FnOnce() -> Result<polycd::mesh::TriMesh, String>,
) -> Result<Arc<polycd::mesh::TriMesh>, String> {
    if let Some(m) = meshes().lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(m);
    }
    let m = Arc::new(build()?);
    if let Ok(mut c) = meshes().lock() {
        let held: usize = c.values().map(|m| m.triangles().len()).sum();
        if c.len() < MESH_CACHE_ENTRIES && held + m.triangles().len() <= MESH_CACHE_TRIANGLES {
            c.insert(key, m.clone());
        }
    }
    Ok(m)
}

pub use crate::shape_cache::BatchSolid;

/// The kind of a shape object: `"convex"` (the default), `"mesh"` or `"surface"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeKind {
    /// A convex shape.
    Convex,
    /// A closed non-convex triangle mesh.
    Mesh,
    /// An open (or non-manifold) triangle surface (issue 23 item 7).
    Surface,
}

/// Reads `"kind"` of a shape object.
pub fn shape_kind(obj: &Map<String, Value>) -> Result<ShapeKind, String> {
    match obj.get("kind") {
        None | Some(Value::Null) => Ok(ShapeKind::Convex),
        Some(Value::String(s)) => match s.as_str() {
            "convex" => Ok(ShapeKind::Convex),
            "mesh" => Ok(ShapeKind::Mesh),
            "surface" => Ok(ShapeKind::Surface),
            other => Err(format!("unknown \"kind\" '{other}' (known: convex, mesh, surface)")),
        },
        Some(_) => Err("\"kind\" must be a string: \"convex\", \"mesh\" or \"surface\"".into()),
    }
}

/// Where a mesh or surface of a shape object comes from, with its cache key.
enum Source {
    Inline(Vec<DVec3>, Vec<Vec<u32>>),
    File(String),
    Spec(String),
}

/// The mesh of a shape object with `"kind": "mesh"` (its keys already checked).
pub fn mesh_of(obj: &Map<String, Value>) -> Result<Arc<polycd::mesh::TriMesh>, String> {
    let (key, src) = source_of(obj, "mesh")?;
    match src {
        Source::Inline(pts, fs) => cached(key, || polycd::mesh::TriMesh::new(&pts, &fs).map_err(|e| e.to_string())),
        Source::File(path) => cached(key, || polycd::mesh::TriMesh::read(&path).map_err(|e| e.to_string())),
        Source::Spec(spec) => cached(key, || mesh_spec(&spec).map_err(|e| e.to_string())),
    }
}

type SurfaceCacheMap = HashMap<Vec<u8>, Arc<TriSurface>>;

/// The open surface of a shape object with `"kind": "surface"` (its keys already checked):
/// `"vertices"` + `"faces"`, a `"file"`, or a `"shape"` spec (a closed mesh's triangles, its
/// inside forgotten). Cached by content as meshes are (same limits).
pub fn surface_of(obj: &Map<String, Value>) -> Result<Arc<TriSurface>, String> {
    static SURFACES: OnceLock<Mutex<SurfaceCacheMap>> = OnceLock::new();
    let cache = SURFACES.get_or_init(|| Mutex::new(HashMap::new()));
    let (key, src) = source_of(obj, "surface")?;
    if let Some(m) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(m);
    }
    let s = Arc::new(
        match src {
            Source::Inline(pts, fs) => TriSurface::new(&pts, &fs),
            Source::File(path) => TriSurface::read(&path),
            Source::Spec(spec) => mesh_spec(&spec).map(|m| TriSurface::from_mesh(&m)),
        }
        .map_err(|e| e.to_string())?,
    );
    if let Ok(mut c) = cache.lock() {
        let held: usize = c.values().map(|m| m.triangles().len()).sum();
        if c.len() < MESH_CACHE_ENTRIES && held + s.triangles().len() <= MESH_CACHE_TRIANGLES {
            c.insert(key, s.clone());
        }
    }
    Ok(s)
}

/// The source of a mesh or surface shape object and its cache key; `what` names the kind.
fn source_of(obj: &Map<String, Value>, what: &str) -> Result<(Vec<u8>, Source), String> {
    let given = |k: &str| obj.get(k).filter(|v| !v.is_null());
    for k in ["hull", "radius"] {
        if given(k).is_some() {
            return Err(format!("\"{k}\" is for convex shapes, not \"kind\": \"{what}\""));
        }
    }
    let sources: Vec<&str> = ["vertices", "file", "shape"]
        .into_iter()
        .filter(|k| given(k).is_some())
        .collect();
    if sources.len() != 1 {
        return Err(format!(
            "a {what} takes exactly one of \"vertices\" (with \"faces\"), \"file\", \"shape\" (found {})",
            if sources.is_empty() {
                "none".to_string()
            } else {
                format!("\"{}\"", sources.join("\" and \""))
            }
        ));
    }
    if given("faces").is_some() && given("vertices").is_none() {
        return Err("\"faces\" needs \"vertices\"".into());
    }
    if let Some(verts) = given("vertices") {
        let arr = verts.as_array().ok_or("\"vertices\" must be an array of [x, y, z]")?;
        let mut pts = Vec::with_capacity(arr.len());
        let mut key = Vec::with_capacity(2 + 24 * arr.len());
        key.push(b'v');
        for (i, p) in arr.iter().enumerate() {
            let p = crate::schema::vec3(p).map_err(|e| format!("vertex {i}: {e}"))?;
            for c in p.to_array() {
                key.extend_from_slice(&c.to_bits().to_le_bytes());
            }
            pts.push(p);
        }
        let faces = match given("faces") {
            Some(Value::Array(f)) => f,
            Some(_) => return Err("\"faces\" must be an array of index lists [[i, j, k, …], …]".into()),
            None => {
                return Err("a mesh needs \"faces\" with its \"vertices\" (a closed triangle or polygon mesh)".into())
            }
        };
        key.push(b'f');
        let mut fs: Vec<Vec<u32>> = Vec::with_capacity(faces.len());
        for (i, f) in faces.iter().enumerate() {
            let idx = f.as_array().ok_or(format!("face {i}: expected an index list"))?;
            let mut face = Vec::with_capacity(idx.len());
            key.extend_from_slice(&(idx.len() as u32).to_le_bytes());
            for x in idx {
                let k = x
                    .as_u64()
                    .filter(|&k| k <= u32::MAX as u64)
                    .ok_or(format!("face {i}: indices must be non-negative integers"))?;
                key.extend_from_slice(&(k as u32).to_le_bytes());
                face.push(k as u32);
            }
            fs.push(face);
        }
        return Ok((key, Source::Inline(pts, fs)));
    }
    if let Some(f) = given("file") {
        let path = f.as_str().ok_or("\"file\" must be a string")?;
        // Keyed by the path and the file's content (two 64-bit SipHashes of its bytes and its
        // length): an edited file is read again.
        let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        let hash = |salt: u8| {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            salt.hash(&mut h);
            bytes.hash(&mut h);
            h.finish()
        };
        let mut key = b"file:".to_vec();
        key.extend_from_slice(path.as_bytes());
        key.push(0);
        key.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        key.extend_from_slice(&hash(1).to_le_bytes());
        key.extend_from_slice(&hash(2).to_le_bytes());
        drop(bytes);
        return Ok((key, Source::File(path.to_string())));
    }
    let spec = given("shape")
        .and_then(|s| s.as_str())
        .ok_or("\"shape\" must be a string")?
        .to_string();
    let mut key = b"shape:".to_vec();
    key.extend_from_slice(spec.as_bytes());
    Ok((key, Source::Spec(spec)))
}

/// A built-in spec as a mesh: `torus-knot:…`, or a convex built-in triangulated.
pub fn mesh_spec(spec: &str) -> Result<polycd::mesh::TriMesh, PolycdError> {
    if let Some(k) = crate::input::torus_knot_spec(spec) {
        return k;
    }
    polycd::mesh::TriMesh::from_convex(&polycd::shapes::from_spec(spec)?)
}

/// Answers an intersect or distance query on a pair with at least one mesh side (the shared
/// core of `query --mesh` and `batch`).
#[allow(clippy::too_many_arguments)]
pub fn answer(
    a: Solid<'_>,
    pa: &Pose,
    b: Solid<'_>,
    pb: &Pose,
    kind: QueryKind,
    algorithm: Algorithm,
    direction: Option<DVec3>,
    options: &polycd::ManifoldOptions,
) -> Answer {
    answer_inner(a, pa, b, pb, kind, algorithm, direction, options).unwrap_or_else(error_answer)
}

/// [`answer`] for sides of any kind: two solids as [`answer`]; a pair with an open surface by
/// [`polycd::mesh::surface`]: intersect and distance (features `{"kind": "triangle", "id":
/// <input face>}` on a surface side; overlapping: `signed_distance` = minus the deepest
/// overlapping triangle pair's penetration depth, a certified lower bound); other queries are
/// a typed error.
#[allow(clippy::too_many_arguments)]
pub fn answer_body(
    a: Body<'_>,
    pa: &Pose,
    b: Body<'_>,
    pb: &Pose,
    kind: QueryKind,
    algorithm: Algorithm,
    direction: Option<DVec3>,
    options: &polycd::ManifoldOptions,
) -> Answer {
    if let (Body::Solid(a), Body::Solid(b)) = (a, b) {
        return answer(a, pa, b, pb, kind, algorithm, direction, options);
    }
    surface_answer(a, pa, b, pb, kind, algorithm).unwrap_or_else(error_answer)
}

/// A library error as the answer line's error (the id is set by the caller).
fn error_answer(e: PolycdError) -> Answer {
    Answer::error(Value::Null, e.to_string())
}

fn surface_answer(
    a: Body<'_>,
    pa: &Pose,
    b: Body<'_>,
    pb: &Pose,
    kind: QueryKind,
    algorithm: Algorithm,
) -> Result<Answer, PolycdError> {
    if algorithm != Algorithm::Auto {
        return Err(PolycdError::Unsupported {
            algorithm: algorithm.name(),
            query: "surface",
        });
    }
    let ans = match kind {
        QueryKind::Intersect => mesh::surface::intersect(a, pa, b, pb)?,
        QueryKind::Distance => mesh::surface::distance(a, pa, b, pb)?,
        other => return Err(PolycdError::UnsupportedShape {
            algorithm: match other {
                QueryKind::Directional => "directional",
                QueryKind::Manifold => "manifold",
                QueryKind::Point => "point",
                _ => "ray",
            },
            shape: "surface",
            reason:
                "open surfaces answer intersect and distance queries only (not yet directional, manifold, point or ray)",
        }),
    };
    let tol = mesh::surface::surface_contact_tolerance(a, pa, b, pb)?;
    Ok(from_mesh_answer(kind, ans, tol))
}

#[allow(clippy::too_many_arguments)]
fn answer_inner(
    a: Solid<'_>,
    pa: &Pose,
    b: Solid<'_>,
    pb: &Pose,
    kind: QueryKind,
    algorithm: Algorithm,
    direction: Option<DVec3>,
    options: &polycd::ManifoldOptions,
) -> Result<Answer, PolycdError> {
    if algorithm != Algorithm::Auto {
        return Err(PolycdError::Unsupported {
            algorithm: algorithm.name(),
            query: "mesh",
        });
    }
    let mut cache = SolidCache::default();
    let ans = match kind {
        QueryKind::Intersect => mesh::intersect(a, pa, b, pb, &mut cache)?,
        QueryKind::Distance => mesh::distance(a, pa, b, pb, &mut cache)?,
        QueryKind::Directional => {
            let s = direction.ok_or(PolycdError::BadDirection)?;
            return directional_answer(a, pa, b, pb, s, &mut cache);
        }
        QueryKind::Point | QueryKind::Ray => {
            return Err(PolycdError::InvalidOption {
                name: "query",
                message: "point and ray queries take one shape: answered by meshq::answer_probe",
            })
        }
        QueryKind::Manifold => {
            let manifolds = mesh::contact_manifolds(a, pa, b, pb, options)?;
            let mut ans = answer_inner(a, pa, b, pb, QueryKind::Distance, algorithm, None, options)?;
            ans.mesh_manifolds = Some(manifolds);
            return Ok(ans);
        }
    };
    let tol = mesh::solid_contact_tolerance(a, pa, b, pb, &mut cache)?;
    Ok(from_mesh_answer(kind, ans, tol))
}

/// The batch answer of an intersect or distance [`MeshAnswer`] (of two solids or a pair with
/// a surface) with contact tolerance `tol`: intersect gives the status and, when touching,
/// the contact points; distance the distances, points and triangle features. Non-finite
/// points (a containment answer without a witness) are left out.
fn from_mesh_answer(kind: QueryKind, ans: MeshAnswer, tol: f64) -> Answer {
    let status = status_name(ans.status(tol));
    let finite = |p: DVec3| p.is_finite().then_some(p);
    match (kind, ans) {
        (QueryKind::Intersect, MeshAnswer::Separated { point_a, point_b, .. }) => {
            let touching = status == "touching";
            Answer {
                status,
                point_a: finite(point_a).filter(|_| touching),
                point_b: finite(point_b).filter(|_| touching),
                ..Answer::default()
            }
        }
        (
            _,
            MeshAnswer::Separated {
                distance,
                point_a,
                point_b,
                features,
                ..
            },
        ) => Answer {
            status,
            distance: Some(distance),
            signed_distance: Some(distance),
            point_a: Some(point_a),
            point_b: Some(point_b),
            solid_features: Some(features),
            ..Answer::default()
        },
        (_, MeshAnswer::Overlapping { point_a, point_b, .. }) => Answer {
            status,
            distance: (kind == QueryKind::Distance).then_some(0.0),
            signed_distance: (kind == QueryKind::Distance).then_some(ans.signed_distance()),
            point_a: finite(point_a),
            point_b: finite(point_b),
            ..Answer::default()
        },
        (_, other) => unknown_answer("mesh", &other),
    }
}

/// A shape of `polycd query --mesh`: a mesh file is a closed non-convex mesh, a
/// `torus-knot:…` spec a mesh, any other built-in spec stays convex. Components of a mesh
/// file wound against their nesting were re-oriented: the notes say so (for stderr).
pub fn load_cli(s: &str) -> Result<(BatchSolid, Vec<String>), PolycdError> {
    if let Some(k) = crate::input::torus_knot_spec(s) {
        return Ok((BatchSolid::Mesh(Arc::new(k?)), Vec::new()));
    }
    if std::path::Path::new(s).is_file() {
        let m = polycd::mesh::TriMesh::read(s)?;
        let notes = reoriented_notes(s, &m);
        return Ok((BatchSolid::Mesh(Arc::new(m)), notes));
    }
    Ok((
        BatchSolid::Convex(std::sync::Arc::new(crate::input::load_shape(s)?)),
        Vec::new(),
    ))
}

/// A shape of `polycd query --surface`: a mesh file (or a `torus-knot:…` spec) is an open
/// surface, any other built-in spec stays convex. A repair is noted (for stderr).
pub fn load_cli_surface(s: &str) -> Result<(BatchSolid, Vec<String>), PolycdError> {
    if let Some(k) = crate::input::torus_knot_spec(s) {
        return Ok((BatchSolid::Surface(Arc::new(TriSurface::from_mesh(&k?))), Vec::new()));
    }
    if std::path::Path::new(s).is_file() {
        let m = TriSurface::read(s)?;
        let notes = if m.repair().is_empty() {
            Vec::new()
        } else {
            vec![format!("note: {s}: repaired: {}", m.repair())]
        };
        return Ok((BatchSolid::Surface(Arc::new(m)), notes));
    }
    Ok((
        BatchSolid::Convex(std::sync::Arc::new(crate::input::load_shape(s)?)),
        Vec::new(),
    ))
}

/// `polycd info --surface`: the surface, its open and non-manifold edges, repairs and tree.
pub fn surface_info_text(name: &str, m: &TriSurface, build: std::time::Duration) -> String {
    let mut s = String::new();
    let mut line = |k: &str, v: String| s.push_str(&format!("{k:<22}{v}\n"));
    line("surface:", name.to_string());
    line("vertices:", m.vertices().len().to_string());
    line("triangles:", m.triangles().len().to_string());
    line("open edges:", m.open_edges().to_string());
    line("non-manifold edges:", m.nonmanifold_edges().to_string());
    line("sphere tree nodes:", m.tree_nodes().to_string());
    line(
        "build time:",
        format!("{:.3} s (repair, sphere tree)", build.as_secs_f64()),
    );
    line(
        "repaired:",
        if m.repair().is_empty() {
            "nothing".to_string()
        } else {
            m.repair().to_string()
        },
    );
    s
}

/// One note per closed component of `m` that was re-oriented.
pub fn reoriented_notes(name: &str, m: &polycd::mesh::TriMesh) -> Vec<String> {
    m.components()
        .iter()
        .filter(|c| c.reoriented)
        .map(|c| {
            let what = if c.depth % 2 == 0 {
                "an outer surface wound inward"
            } else {
                "a cavity wound outward"
            };
            format!(
                "note: {name}: the closed component starting at {} is {what}; it was re-oriented",
                c.face
            )
        })
        .collect()
}

/// `polycd info --mesh`: the mesh, its decomposition into convex pieces and its hull tree.
pub fn info_text(name: &str, m: &polycd::mesh::TriMesh, build: std::time::Duration) -> String {
    let pieces = m.pieces();
    let sizes: Vec<usize> = pieces.iter().map(|p| p.len()).collect();
    let (min, max) = (
        sizes.iter().copied().min().unwrap_or(0),
        sizes.iter().copied().max().unwrap_or(0),
    );
    let mean = if sizes.is_empty() {
        0.0
    } else {
        m.triangles().len() as f64 / sizes.len() as f64
    };
    let mut sorted = sizes.clone();
    sorted.sort_unstable();
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0);
    let single = sizes.iter().filter(|&&n| n == 1).count();
    let mut s = String::new();
    let mut line = |k: &str, v: String| s.push_str(&format!("{k:<22}{v}\n"));
    line("mesh:", name.to_string());
    line("vertices:", m.vertices().len().to_string());
    line("triangles:", m.triangles().len().to_string());
    line("components:", m.components().len().to_string());
    line("volume:", format!("{:.12e}", m.volume()));
    let c = m.centroid();
    line("centroid:", format!("[{:.9}, {:.9}, {:.9}]", c.x, c.y, c.z));
    line("convex pieces:", sizes.len().to_string());
    line(
        "triangles per piece:",
        format!("min {min}, median {median}, mean {mean:.2}, max {max} ({single} pieces of one triangle)"),
    );
    line("hull tree nodes:", m.nodes().len().to_string());
    line(
        "build time:",
        format!("{:.3} s (validation, decomposition, hull tree)", build.as_secs_f64()),
    );
    let re: Vec<String> = m
        .components()
        .iter()
        .filter(|c| c.reoriented)
        .map(|c| c.face.to_string())
        .collect();
    line(
        "repaired:",
        if re.is_empty() {
            "nothing (no component re-oriented)".to_string()
        } else {
            format!("re-oriented the components starting at {}", re.join(", "))
        },
    );
    s
}

/// The directional answer of a pair with a mesh side ([`mesh::directional`]; a convex side is
/// asked as its one-piece triangle mesh): `directional` is the `t` of least `|t|` at which the
/// solids touch without overlapping, as for convex pairs; the status is the contact at `t = 0`.
fn directional_answer(
    a: Solid<'_>,
    pa: &Pose,
    b: Solid<'_>,
    pb: &Pose,
    direction: DVec3,
    cache: &mut SolidCache,
) -> Result<Answer, PolycdError> {
    fn as_mesh(s: Solid<'_>) -> Result<std::borrow::Cow<'_, polycd::mesh::TriMesh>, PolycdError> {
        Ok(match s {
            Solid::Mesh(m) => std::borrow::Cow::Borrowed(m),
            Solid::Convex(c) => std::borrow::Cow::Owned(polycd::mesh::TriMesh::from_convex(c)?),
            _ => {
                return Err(PolycdError::Unsupported {
                    algorithm: "mesh directional (CLI)",
                    query: "a kind of solid this CLI does not know",
                })
            }
        })
    }
    let (ma, mb) = (as_mesh(a)?, as_mesh(b)?);
    let r = mesh::directional(&ma, pa, &mb, pb, direction)?;
    let t = r.nearest().map(|touch| touch.t);
    let tol = mesh::solid_contact_tolerance(a, pa, b, pb, cache)?;
    let status = match t {
        Some(t) if t.abs() <= tol => "touching",
        None => "disjoint",
        _ if r.overlapping => "overlapping",
        _ => status_name(mesh::intersect(a, pa, b, pb, cache)?.status(tol)),
    };
    Ok(Answer {
        status,
        directional: t,
        ..Answer::default()
    })
}

/// A point query (`Some` point) or a ray cast (`origin`, `direction`) on the mesh `m` at
/// `pose` (`polycd::mesh::point_query`, `polycd::mesh::ray_cast`), answered as
/// `batch::answer_probe` answers a convex shape, with `features.a` = `{"kind": "triangle",
/// "id": <input face>}`.
pub fn answer_probe(
    m: &polycd::mesh::TriMesh,
    pose: &Pose,
    point: Option<DVec3>,
    ray: Option<(DVec3, DVec3)>,
) -> Answer {
    match probe_inner(m, pose, point, ray) {
        Ok(ans) => ans,
        Err(e) => Answer::error(Value::Null, e.to_string()),
    }
}

fn probe_inner(
    m: &polycd::mesh::TriMesh,
    pose: &Pose,
    point: Option<DVec3>,
    ray: Option<(DVec3, DVec3)>,
) -> Result<Answer, PolycdError> {
    use polycd::mesh::SolidFeature;
    use polycd::query::Containment;
    if let Some(p) = point {
        let r = mesh::point_query(m, pose, p)?;
        // The contact tolerance of a point query, as `query::point_contact_tolerance` measures
        // a convex shape: CONTACT_REL times the length scale of the mesh and the point.
        let scale = m.scale()
            + (pose.transform_point(m.centroid()) - p).length()
            + p.abs().max_element()
            + pose.translation.abs().max_element();
        let tol = polycd::tolerance::CONTACT_REL * scale;
        let status = match r.containment {
            Containment::Boundary => "touching",
            _ if r.signed_distance.abs() <= tol => "touching",
            Containment::Inside => "overlapping",
            Containment::Outside => "disjoint",
            other => return Ok(unknown_answer("point containment", &other)),
        };
        return Ok(Answer {
            status,
            distance: Some(r.signed_distance.max(0.0)),
            signed_distance: Some(r.signed_distance),
            point_a: Some(r.point),
            solid_feature_a: Some(SolidFeature::Triangle(m.input_face(r.triangle))),
            ..Answer::default()
        });
    }
    let (origin, direction) = ray.ok_or(PolycdError::BadDirection)?;
    Ok(match mesh::ray_cast(m, pose, origin, direction)? {
        None => Answer {
            status: "disjoint",
            ..Answer::default()
        },
        Some(h) => Answer {
            status: if h.triangle.is_none() {
                "overlapping"
            } else {
                "touching"
            },
            point_a: Some(h.point),
            solid_feature_a: h.triangle.map(|t| SolidFeature::Triangle(m.input_face(t))),
            ray: Some(crate::answer::RayOut {
                t: h.t,
                point: h.point,
                normal: h.triangle.map(|_| h.normal),
            }),
            ..Answer::default()
        },
    })
}
