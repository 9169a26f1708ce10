//! The shapes of a batch run: the definitions made so far (`define` / `ref`), the cache of
//! shapes by content, and [`LineCtx`], where a line is answered (which definitions it sees).
//! `crate::batch_run` makes the definitions; `crate::batch` reads them.

use polycd::mesh::{Body, Solid, TriMesh, TriSurface};
use polycd::{ConvexPolyhedron, DVec3};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The shape cache (built-in specs, files, inline shapes by content) holds at most this many
/// shapes; when full it is emptied and refills with the shapes in use.
pub const CACHE_SHAPES: usize = 1024;
/// ... and at most this many inline coordinates in its keys (the same eviction).
pub const CACHE_COORDINATES: usize = 1 << 22;
/// At most this many names can be defined in one batch (every definition is kept to the end
/// of the run: the one part of the state that grows with the input, so it is bounded).
pub const MAX_DEFINITIONS: usize = 1 << 16;

/// A shape cache key: a built-in spec or file (with its options, as text), or an inline
/// shape's exact content — the coordinates' bits, the faces and the options. A hit compares
/// the whole key, never a hash alone.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ShapeKey {
    /// `shape:SPEC`, `file:HULL:PATH`, with `+radius=R` when rounded.
    Named(String),
    /// `vertices` (and `faces`) given on the line.
    Inline {
        /// The coordinates' bit patterns (so 0.0 and -0.0 are different keys, never equal
        /// values with different bits).
        points: Vec<[u64; 3]>,
        /// The faces, when given.
        faces: Option<Vec<Vec<u32>>>,
        /// `"hull": true`.
        hull: bool,
        /// The radius' bits, when given.
        radius: Option<u64>,
    },
}

impl ShapeKey {
    /// The key of an inline shape.
    pub fn inline(points: &[DVec3], faces: Option<&[Vec<u32>]>, hull: bool, radius: Option<f64>) -> ShapeKey {
        ShapeKey::Inline {
            points: points.iter().map(|p| p.to_array().map(f64::to_bits)).collect(),
            faces: faces.map(<[Vec<u32>]>::to_vec),
            hull,
            radius: radius.map(f64::to_bits),
        }
    }

    fn coordinates(&self) -> usize {
        match self {
            ShapeKey::Named(_) => 0,
            ShapeKey::Inline { points, .. } => points.len() * 3,
        }
    }
}

/// A batch shape: convex (today's meaning), a closed non-convex mesh or an open surface.
#[derive(Clone, Debug)]
pub enum BatchSolid {
    /// A convex shape.
    Convex(Arc<ConvexPolyhedron>),
    /// A closed triangle mesh.
    Mesh(Arc<TriMesh>),
    /// An open (or non-manifold) triangle surface, without an inside.
    Surface(Arc<TriSurface>),
}

impl BatchSolid {
    /// As a [`Solid`] of the library (`None` for a surface, which is no solid).
    pub fn solid(&self) -> Option<Solid<'_>> {
        match self {
            BatchSolid::Convex(c) => Some(Solid::Convex(c)),
            BatchSolid::Mesh(m) => Some(Solid::Mesh(m)),
            BatchSolid::Surface(_) => None,
        }
    }

    /// As a [`Body`] (either kind of solid, or a surface).
    pub fn body(&self) -> Body<'_> {
        match self {
            BatchSolid::Convex(c) => Body::Solid(Solid::Convex(c)),
            BatchSolid::Mesh(m) => Body::Solid(Solid::Mesh(m)),
            BatchSolid::Surface(s) => Body::Surface(s),
        }
    }
}

#[derive(Default)]
struct Cache {
    shapes: HashMap<ShapeKey, Arc<ConvexPolyhedron>>,
    coordinates: usize,
}

/// A definition: the line that made it and the shape — convex, a mesh (its decomposition
/// built once, here) or a surface — or why it could not be built.
#[derive(Clone, Debug)]
pub(crate) struct Def {
    pub(crate) line: u64,
    pub(crate) shape: Result<BatchSolid, String>,
}

/// The shapes of a batch run: the definitions made so far and the shape cache.
#[derive(Default)]
pub struct Shapes {
    pub(crate) defs: HashMap<String, Def>,
    cache: Mutex<Cache>,
    /// Lines answered by `batch_run::answer_next`.
    pub(crate) lines: u64,
}

impl Shapes {
    /// The shape of `key` from the cache, or built by `build` (and then cached; errors are
    /// not cached).
    pub fn cached(
        &self,
        key: ShapeKey,
        build: impl FnOnce() -> Result<ConvexPolyhedron, String>,
    ) -> Result<Arc<ConvexPolyhedron>, String> {
        if let Some(p) = self.lock().shapes.get(&key) {
            return Ok(p.clone());
        }
        let p = Arc::new(build()?);
        let mut cache = self.lock();
        let n = key.coordinates();
        if cache.shapes.len() >= CACHE_SHAPES || cache.coordinates + n > CACHE_COORDINATES {
            cache.shapes.clear();
            cache.coordinates = 0;
        }
        if n <= CACHE_COORDINATES {
            cache.coordinates += n;
            cache.shapes.insert(key, p.clone());
        }
        Ok(p)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        // A panic while holding the lock would leave a consistent map (inserts are single
        // calls): use it.
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Where a line is answered: the batch's shapes and the line's number (from 1), which
/// decides the definitions it sees.
#[derive(Clone, Copy)]
pub struct LineCtx<'a> {
    /// The batch's shapes.
    pub shapes: &'a Shapes,
    /// The line's number, from 1.
    pub line: u64,
}

impl<'a> LineCtx<'a> {
    /// The convex shape named `name` when it was defined, without error, on an earlier line
    /// (borrowed: no reference count shared between threads is touched); `None` for a name of
    /// a mesh or a surface too.
    pub fn lookup(&self, name: &str) -> Option<&'a ConvexPolyhedron> {
        match self.shapes.defs.get(name) {
            Some(Def {
                line,
                shape: Ok(BatchSolid::Convex(p)),
            }) if *line < self.line => Some(&**p),
            _ => None,
        }
    }

    /// The definition of `name` when it is a convex shape built without error, whatever its
    /// line: the name as stored (borrowed for as long as the shapes), the line that defined
    /// it and the shape. [`LineCtx::lookup`] is this plus `line < self.line`; the batch's fast
    /// path keeps a few of these per piece of work (the definitions cannot change while
    /// borrowed) so that a repeated name is compared, not hashed.
    pub(crate) fn convex_def(&self, name: &str) -> Option<(&'a str, u64, &'a ConvexPolyhedron)> {
        match self.shapes.defs.get_key_value(name) {
            Some((
                key,
                Def {
                    line,
                    shape: Ok(BatchSolid::Convex(p)),
                },
            )) => Some((key.as_str(), *line, &**p)),
            _ => None,
        }
    }

    /// The shape a `{"ref": NAME}` object names (of any kind): defined on an earlier line,
    /// with no other key alongside.
    pub fn resolve_ref(&self, obj: &Map<String, Value>, name: &Value) -> Result<BatchSolid, String> {
        if let Some((k, _)) = obj.iter().find(|(k, v)| k.as_str() != "ref" && !v.is_null()) {
            return Err(format!(
                "\"ref\" takes no other key (found \"{k}\"): the named shape is used as defined"
            ));
        }
        let name = name
            .as_str()
            .ok_or("\"ref\" must be a string (a name given by an earlier define line)")?;
        match self.shapes.defs.get(name) {
            Some(d) if d.line < self.line => d
                .shape
                .clone()
                .map_err(|e| format!("\"ref\": the definition of \"{name}\" (line {}) failed: {e}", d.line)),
            // Defined on a later line (seen here only because its chunk was read) or never:
            // the same answer as a line-by-line run gives.
            _ => Err(format!(
                "\"ref\": no shape named \"{name}\" is defined before this line (define it first: {{\"define\": \"{name}\", \"shape\": {{…}}}})"
            )),
        }
    }
}
