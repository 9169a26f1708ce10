//! Continuous collision detection among many bodies (issue 24 item 2): a world of convex and
//! non-convex (closed mesh) bodies, each moving from a pose `q₀` to a pose `q₁` over the frame
//! or fixed, answering the earliest time of contact over all pairs and every pair's first
//! contact in time order.
//!
//! # Method
//! 1. **Swept boxes.** Per body and frame, a box holding every point of the body over
//!    `t ∈ [0, 1]`: the body's box at `q₀` (support points in the six axis directions, of the
//!    polyhedron or of the mesh's root hull, which holds every piece), extended per axis by
//!    the motion bound of [`crate::ccd`] ([`directional_bound`] along the axis at `t = 0`,
//!    integrated over the unit step: the translation's signed component plus
//!    `min(angular + slope, cap)` for the rotation), intersected with the box of the ball
//!    argument (the reference point moves on a segment, every point stays within the bounding
//!    radius about it; about the bounding-sphere centre without rotation). Both boxes hold
//!    the swept volume, so their intersection does.
//! 2. **Pad.** Each box is widened by the body's share of the pair's stop distance (the
//!    advancement reports contact at a distance up to the threshold, not only at touching):
//!    [`CCD_DISTANCE_REL`] × the body's scale for the default relative threshold (the pair's
//!    threshold is `CCD_DISTANCE_REL × (s_a + s_b)`), the whole absolute threshold otherwise;
//!    plus the piece hulls' margin of the mesh query (2 × [`CCD_PIECE_REL`] × scale) and
//!    rounding ([`AABB_PAD_REL`] × scale). Two bodies whose padded boxes are apart are farther
//!    apart than the threshold over the whole frame, so the pair's continuous query would
//!    answer "no contact": pruning them changes no answer.
//! 3. **Sweep.** The boxes sorted by their low x (ties by body index), a sweep along x, the
//!    y and z intervals tested; pairs of two fixed bodies are skipped (they cannot start
//!    touching during the frame; see [`CcdWorld::step`]).
//! 4. **Narrow phase.** Per candidate pair, conservative advancement: two convex bodies by
//!    [`ccd::time_of_contact`], a pair with a mesh by [`ccd::mesh::time_of_contact`] (a convex
//!    side as a one-piece closed mesh, built once per body and shared by every pair through an
//!    `Arc`). The lower body index is always side A. Each pair's cache ([`CcdCache`] or
//!    [`MeshToiCache`]: coherence of the discrete queries, node-pair caches) is kept by the
//!    world across frames while the pair stays a candidate.
//! 5. **Order.** Contacts sorted by `(t, a, b)`: the answer does not depend on the order the
//!    pairs were computed in, so the pairs run on every core (rayon, cargo feature `parallel`)
//!    and the result is the same with any number of threads (each pair's answer depends only
//!    on its bodies, its motions and its own cache).
//! 6. **Earliest contact only** ([`CcdWorld::set_earliest_only`]): the pairs run in rounds of
//!    [`EARLIEST_ROUND`] in `(a, b)` order, each round's queries with the time limit
//!    ([`CcdOptions::time_limit`]) of the earliest contact of the rounds before it, so a
//!    pair's advancement stops once its contact-free time passes that contact (its own
//!    contact, if any, is later). A pair whose contact is the earliest of the frame never
//!    stops (its contact-free time stays at or below its contact, at or below every limit),
//!    so [`CcdWorld::contacts`] then lists exactly the contacts at the earliest time. The
//!    limits depend on the rounds, fixed by the pair order, not on the threads: the answers
//!    (and the caches the pairs carry to the next frame) are the same with any number of
//!    threads.
//!
//! # Motions
//! Each body has one [`RigidMotion`] per frame, about its own reference point (a polyhedron's
//! volume centroid, a mesh's centroid), used for all its pairs: every pair sees the same path
//! of the body. A body keeps its motion until it is set again.
//!
//! # Errors
//! Non-finite or zero-quaternion poses: [`PolycdError::NonFinitePose`] /
//! [`PolycdError::ZeroQuaternion`] (from [`RigidMotion::new`]) when set. Open or non-manifold
//! meshes cannot be inserted: [`TriMesh::new`] refuses them with [`PolycdError::InvalidMesh`].
//! Flat and rounded convex shapes move against each other and against solids
//! ([`ccd::time_of_contact`]); a flat or rounded shape paired with a mesh fails at
//! [`CcdWorld::step`] with [`TriMesh::from_convex`]'s [`PolycdError::UnsupportedShape`].
//! A failing pair makes [`CcdWorld::step`] return the error of the first failing pair in
//! `(a, b)` order (every pair is still computed; the contact list is left empty).
//!
//! # Termination and allocation
//! The sweep visits each body once and each x-overlapping pair once; each pair's query is
//! bounded by [`crate::ccd::CcdOptions::max_iterations`]. Buffers (boxes, pairs, contacts)
//! keep their capacity from frame to frame; a pair new to the candidate set starts a fresh
//! cache.
//!
//! [`CCD_DISTANCE_REL`]: crate::core::tolerance::CCD_DISTANCE_REL
//! [`CCD_PIECE_REL`]: crate::core::tolerance::CCD_PIECE_REL
//! [`AABB_PAD_REL`]: crate::core::tolerance::AABB_PAD_REL

use std::sync::Arc;

use crate::ccd::mesh::MeshToiCache;
use crate::ccd::{self, directional_bound, CcdCache, CcdOptions, RigidMotion};
use crate::core::error::PolycdError;
use crate::core::math::{DVec3, Pose};
use crate::core::tolerance::{AABB_PAD_REL, CCD_DISTANCE_REL, CCD_PIECE_REL};
use crate::mesh::{MeshDistance, TriMesh};
use crate::shape::polyhedron::ConvexPolyhedron;

/// A body of a [`CcdWorld`], by insertion order (handles are never reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CcdHandle(u32);

impl CcdHandle {
    /// The body's index (its insertion order, from 0).
    pub fn index(self) -> u32 {
        self.0
    }
}

/// The shape of a [`CcdWorld`] body.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum CcdShape {
    /// A convex shape: a solid, a flat shape or a rounded one.
    Convex(Arc<ConvexPolyhedron>),
    /// A closed triangle mesh (its hull tree shared by every pair).
    Mesh(Arc<TriMesh>),
}

/// The first contact of one pair of a [`CcdWorld`] frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcdContact {
    /// The body of lower index (side A of the pair's query).
    pub a: CcdHandle,
    /// The other body.
    pub b: CcdHandle,
    /// Time of contact in `[0, 1]`: no contact of the pair on `[0, t)`, distance at most the
    /// pair's threshold at `t`.
    pub t: f64,
    /// The distance at `t` (0 when overlapping).
    pub distance: f64,
    /// Closest points on A and B at `t` (world frame), `None` when overlapping at `t`.
    pub points: Option<(DVec3, DVec3)>,
    /// Advancement steps the pair's query took.
    pub iterations: u32,
}

/// Pairs per round of the earliest-contact mode ([`CcdWorld::set_earliest_only`]): each
/// round's queries stop at the earliest contact of the rounds before it. Smaller rounds stop
/// more queries earlier; larger ones give the threads more pairs at a time.
pub const EARLIEST_ROUND: usize = 16;

/// Counts of the last [`CcdWorld::step`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CcdWorldStats {
    /// Live bodies.
    pub bodies: usize,
    /// Moving bodies.
    pub moving: usize,
    /// Candidate pairs (swept boxes overlapping, at least one body moving): continuous
    /// queries run.
    pub candidates: usize,
    /// Candidate pairs whose cache was kept from the previous frame.
    pub kept_caches: usize,
    /// Pairs with a contact in the frame.
    pub contacts: usize,
    /// Advancement steps over all pairs.
    pub iterations: u64,
    /// Earliest-contact mode ([`CcdWorld::set_earliest_only`]): candidate pairs whose query
    /// ran with a time limit below 1 (the earliest contact of the rounds before theirs).
    pub limited: usize,
}

#[derive(Clone, Debug)]
struct Body {
    shape: CcdShape,
    /// The convex shape as a one-piece mesh, for pairs with a mesh (built on first need).
    as_mesh: Option<Arc<TriMesh>>,
    motion: RigidMotion,
    /// Length scale: the largest scale any pair's threshold uses for this body.
    scale: f64,
}

impl Body {
    /// The convex set whose motion bounds the body's: the polyhedron, or the mesh's root hull.
    fn outer(&self) -> Result<&ConvexPolyhedron, PolycdError> {
        match &self.shape {
            CcdShape::Convex(c) => Ok(c),
            CcdShape::Mesh(m) => m.nodes()[m.root() as usize].hull(),
        }
    }

    fn mesh(&self) -> Option<&TriMesh> {
        match &self.shape {
            CcdShape::Mesh(m) => Some(m),
            CcdShape::Convex(_) => self.as_mesh.as_deref(),
        }
    }
}

/// A pair's cache across frames: the convex query's, or (for a pair with a mesh, made on
/// first use) the mesh query's.
#[derive(Clone, Debug, Default)]
struct PairCcd {
    convex: CcdCache,
    mesh: Option<Box<MeshToiCache>>,
}

#[derive(Clone, Debug)]
struct PairEntry {
    a: u32,
    b: u32,
    cache: PairCcd,
    answer: Result<Option<CcdContact>, PolycdError>,
}

/// Continuous collision detection among many bodies; see the module header.
///
/// ```
/// use std::sync::Arc;
/// use polycd::broad::{CcdShape, CcdWorld};
/// use polycd::ccd::CcdOptions;
/// use polycd::{shapes, DVec3, Pose};
///
/// let cube = Arc::new(shapes::cuboid(1.0, 1.0, 1.0).unwrap());
/// let mut world = CcdWorld::new(CcdOptions::default());
/// // A unit cube flying along x from 0 to 10 through a fixed cube at x = 5.
/// let mover = world.insert(CcdShape::Convex(cube.clone()), Pose::IDENTITY).unwrap();
/// let wall = world.insert(CcdShape::Convex(cube), Pose::from_translation(DVec3::new(5.0, 0.0, 0.0))).unwrap();
/// world.set_motion(mover, Pose::IDENTITY, Pose::from_translation(DVec3::new(10.0, 0.0, 0.0))).unwrap();
/// world.step().unwrap();
/// let hit = world.earliest().unwrap();
/// assert_eq!((hit.a, hit.b), (mover, wall));
/// // The faces meet when the mover has travelled 4 of its 10 (within the stop distance).
/// assert!((hit.t - 0.4).abs() < 1e-3 && hit.t <= 0.4);
/// ```
#[derive(Debug)]
pub struct CcdWorld {
    options: CcdOptions,
    bodies: Vec<Option<Body>>,
    parallel: bool,
    /// Answer the earliest contact only (see [`CcdWorld::set_earliest_only`]).
    earliest_only: bool,
    /// Swept boxes of the live bodies this frame: (index, min, max).
    boxes: Vec<(u32, DVec3, DVec3)>,
    /// Candidate pairs this frame, sorted.
    candidates: Vec<(u32, u32)>,
    /// Per candidate pair (sorted by `(a, b)`): its cache and answer.
    pairs: Vec<PairEntry>,
    /// The previous frame's entries while merging.
    spare: Vec<PairEntry>,
    contacts: Vec<CcdContact>,
    stats: CcdWorldStats,
}

impl CcdWorld {
    /// An empty world whose pairs use `options` (threshold, iteration bound, discrete algorithm).
    pub fn new(options: CcdOptions) -> Self {
        Self {
            options,
            bodies: Vec::new(),
            parallel: true,
            earliest_only: false,
            boxes: Vec::new(),
            candidates: Vec::new(),
            pairs: Vec::new(),
            spare: Vec::new(),
            contacts: Vec::new(),
            stats: CcdWorldStats::default(),
        }
    }

    /// The options the pairs use.
    pub fn options(&self) -> &CcdOptions {
        &self.options
    }

    /// Adds a body at rest at `pose` (give it a motion with [`CcdWorld::set_motion`]).
    /// Bad poses give the pose errors of [`RigidMotion::new`].
    pub fn insert(&mut self, shape: CcdShape, pose: Pose) -> Result<CcdHandle, PolycdError> {
        let (center, scale) = match &shape {
            CcdShape::Convex(c) => {
                // A pair with a mesh takes the polyhedron's triangulation's scale (half its
                // box diagonal), which may exceed the polyhedron's own.
                let (lo, hi) = c.vertices().iter().fold(
                    (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
                    |(l, h), &v| (l.min(v), h.max(v)),
                );
                (c.centroid(), c.bounding_radius().max(0.5 * (hi - lo).length()))
            }
            CcdShape::Mesh(m) => (m.centroid(), m.scale()),
        };
        let motion = RigidMotion::new(pose, pose, center)?;
        let index = u32::try_from(self.bodies.len()).map_err(|_| PolycdError::InvalidOption {
            name: "bodies",
            message: "a CcdWorld holds at most 2^32 - 1 bodies",
        })?;
        self.bodies.push(Some(Body {
            shape,
            as_mesh: None,
            motion,
            scale,
        }));
        Ok(CcdHandle(index))
    }

    /// Removes a body; `false` when it was not there.
    pub fn remove(&mut self, h: CcdHandle) -> bool {
        match self.bodies.get_mut(h.0 as usize) {
            Some(slot) if slot.is_some() => {
                *slot = None;
                true
            }
            _ => false,
        }
    }

    /// Number of live bodies.
    pub fn len(&self) -> usize {
        self.bodies.iter().filter(|b| b.is_some()).count()
    }

    /// `true` without live bodies.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn body_mut(&mut self, h: CcdHandle) -> Result<&mut Body, PolycdError> {
        self.bodies
            .get_mut(h.0 as usize)
            .and_then(Option::as_mut)
            .ok_or(PolycdError::InvalidOption {
                name: "body",
                message: "no such body in this CcdWorld (never inserted, or removed)",
            })
    }

    /// The body's motion over the coming frames: from `start` (t = 0) to `end` (t = 1) about
    /// its reference point (see the module header). Kept until set again.
    pub fn set_motion(&mut self, h: CcdHandle, start: Pose, end: Pose) -> Result<(), PolycdError> {
        let body = self.body_mut(h)?;
        body.motion = RigidMotion::new(start, end, body.motion.center())?;
        Ok(())
    }

    /// The body rests at `pose` over the coming frames.
    pub fn set_fixed(&mut self, h: CcdHandle, pose: Pose) -> Result<(), PolycdError> {
        self.set_motion(h, pose, pose)
    }

    /// The body's current motion (what its pairs use), `None` for an unknown handle.
    pub fn motion(&self, h: CcdHandle) -> Option<&RigidMotion> {
        self.bodies.get(h.0 as usize)?.as_ref().map(|b| &b.motion)
    }

    /// The body's shape, `None` for an unknown handle.
    pub fn shape(&self, h: CcdHandle) -> Option<&CcdShape> {
        self.bodies.get(h.0 as usize)?.as_ref().map(|b| &b.shape)
    }

    /// Whether [`CcdWorld::step`] may run the pairs on every core (default: yes, with the
    /// cargo feature `parallel`; without it this changes nothing). The answers are the same
    /// either way.
    pub fn set_parallel(&mut self, on: bool) {
        self.parallel = on;
    }

    /// Whether [`CcdWorld::step`] answers the earliest contact only (default: no, every
    /// pair's first contact). On, the pairs run in rounds (module header, step 6) and a pair's
    /// query stops once it is contact-free past the earliest contact found in the rounds
    /// before; [`CcdWorld::contacts`] then lists the contacts at the frame's earliest time
    /// only (several on ties), and [`CcdWorld::earliest`] is the same as without the mode.
    pub fn set_earliest_only(&mut self, on: bool) {
        self.earliest_only = on;
    }

    /// The swept box of a body this frame (min, max corners), padded as the broad phase uses
    /// it: it holds every point of the body over the frame, and more than the stop distance
    /// around it. `None` for an unknown handle.
    pub fn swept_box(&self, h: CcdHandle) -> Option<Result<(DVec3, DVec3), PolycdError>> {
        let body = self.bodies.get(h.0 as usize)?.as_ref()?;
        Some(swept_box(body, &self.options))
    }

    /// One frame: swept boxes, candidate pairs, every candidate pair's continuous query.
    /// Afterwards [`CcdWorld::contacts`] lists every pair's first contact in the frame, sorted
    /// by `(t, a, b)`, and [`CcdWorld::earliest`] the first of them.
    ///
    /// Pairs of two fixed bodies are not asked (they do not move relative to each other, so
    /// nothing starts during the frame; a resting contact between them would otherwise be
    /// reported at `t = 0` in every frame).
    pub fn step(&mut self) -> Result<CcdWorldStats, PolycdError> {
        self.contacts.clear();
        let options = self.options;
        // 1–2. Swept, padded boxes of the live bodies.
        self.boxes.clear();
        let mut moving = 0;
        for (i, body) in self.bodies.iter().enumerate() {
            if let Some(body) = body {
                let (lo, hi) = swept_box(body, &options)?;
                self.boxes.push((i as u32, lo, hi));
                moving += usize::from(!body.motion.is_stationary());
            }
        }
        // 3. Sweep along x.
        self.boxes
            .sort_unstable_by(|x, y| x.1.x.total_cmp(&y.1.x).then(x.0.cmp(&y.0)));
        self.candidates.clear();
        for (k, &(i, lo, hi)) in self.boxes.iter().enumerate() {
            let fixed_i = self.bodies[i as usize]
                .as_ref()
                .is_some_and(|b| b.motion.is_stationary());
            for &(j, lo2, hi2) in &self.boxes[k + 1..] {
                if lo2.x > hi.x {
                    break;
                }
                if lo2.y > hi.y || lo.y > hi2.y || lo2.z > hi.z || lo.z > hi2.z {
                    continue;
                }
                if fixed_i
                    && self.bodies[j as usize]
                        .as_ref()
                        .is_some_and(|b| b.motion.is_stationary())
                {
                    continue;
                }
                self.candidates.push((i.min(j), i.max(j)));
            }
        }
        self.candidates.sort_unstable();
        // Convex bodies paired with a mesh need their one-piece mesh.
        for &(a, b) in &self.candidates {
            let mixed = self.bodies[a as usize]
                .as_ref()
                .zip(self.bodies[b as usize].as_ref())
                .is_some_and(|(x, y)| matches!(x.shape, CcdShape::Mesh(_)) || matches!(y.shape, CcdShape::Mesh(_)));
            if !mixed {
                continue;
            }
            for i in [a, b] {
                if let Some(body) = self.bodies[i as usize].as_mut() {
                    if let (CcdShape::Convex(c), None) = (&body.shape, &body.as_mesh) {
                        body.as_mesh = Some(Arc::new(TriMesh::from_convex(c)?));
                    }
                }
            }
        }
        // Keep the caches of the pairs still candidates (both lists sorted).
        std::mem::swap(&mut self.pairs, &mut self.spare);
        self.pairs.clear();
        let mut old = self.spare.drain(..).peekable();
        let mut kept = 0;
        for &(a, b) in &self.candidates {
            while old.next_if(|e| (e.a, e.b) < (a, b)).is_some() {}
            let cache = match old.next_if(|e| (e.a, e.b) == (a, b)) {
                Some(e) => {
                    kept += 1;
                    e.cache
                }
                None => PairCcd::default(),
            };
            self.pairs.push(PairEntry {
                a,
                b,
                cache,
                answer: Ok(None),
            });
        }
        drop(old);
        // 4. The pairs' continuous queries: all at once, or (earliest contact only) in rounds,
        // each limited to the earliest contact of the rounds before.
        let bodies = &self.bodies;
        let parallel = self.parallel;
        let rounds = if self.earliest_only {
            EARLIEST_ROUND
        } else {
            self.pairs.len().max(1)
        };
        let (mut limit, mut limited) = (1.0f64, 0);
        for round in self.pairs.chunks_mut(rounds) {
            let options = options.with_time_limit(limit);
            limited += if limit < 1.0 { round.len() } else { 0 };
            run_pairs(bodies, round, &options, parallel);
            for e in round.iter() {
                if let Ok(Some(c)) = &e.answer {
                    limit = limit.min(c.t);
                }
            }
        }
        // 5. Collect in a fixed order.
        let mut iterations = 0u64;
        for e in &self.pairs {
            match &e.answer {
                Ok(Some(c)) => {
                    iterations += u64::from(c.iterations);
                    self.contacts.push(*c);
                }
                Ok(None) => {}
                Err(err) => {
                    self.contacts.clear();
                    return Err(err.clone());
                }
            }
        }
        self.contacts
            .sort_unstable_by(|x, y| x.t.total_cmp(&y.t).then(x.a.cmp(&y.a)).then(x.b.cmp(&y.b)));
        if self.earliest_only {
            // Pairs that ran before the earliest contact was found may have later ones.
            let first = self.contacts.first().map_or(f64::INFINITY, |c| c.t);
            self.contacts.retain(|c| c.t <= first);
        }
        self.stats = CcdWorldStats {
            bodies: self.boxes.len(),
            moving,
            candidates: self.pairs.len(),
            kept_caches: kept,
            contacts: self.contacts.len(),
            iterations,
            limited,
        };
        Ok(self.stats)
    }

    /// Every pair's first contact in the last frame, sorted by `(t, a, b)`.
    pub fn contacts(&self) -> &[CcdContact] {
        &self.contacts
    }

    /// The earliest contact of the last frame over all pairs (ties: lowest `(a, b)`).
    pub fn earliest(&self) -> Option<CcdContact> {
        self.contacts.first().copied()
    }

    /// Counts of the last frame.
    pub fn stats(&self) -> CcdWorldStats {
        self.stats
    }

    /// The pairs of the last frame's broad phase (sorted): the pairs whose continuous query ran.
    pub fn candidates(&self) -> impl Iterator<Item = (CcdHandle, CcdHandle)> + '_ {
        self.pairs.iter().map(|e| (CcdHandle(e.a), CcdHandle(e.b)))
    }
}

/// Runs the continuous queries of `pairs` with `options`, on every core when `parallel` (and
/// the cargo feature `parallel`); each pair's answer depends only on its bodies and its cache.
fn run_pairs(bodies: &[Option<Body>], pairs: &mut [PairEntry], options: &CcdOptions, parallel: bool) {
    let run = |e: &mut PairEntry| {
        e.answer = match (&bodies[e.a as usize], &bodies[e.b as usize]) {
            (Some(x), Some(y)) => pair_toc(e.a, x, e.b, y, options, &mut e.cache),
            _ => Ok(None),
        };
    };
    #[cfg(feature = "parallel")]
    if parallel && pairs.len() > 1 {
        use rayon::prelude::*;
        pairs.par_iter_mut().for_each(run);
    } else {
        pairs.iter_mut().for_each(run);
    }
    #[cfg(not(feature = "parallel"))]
    {
        let _ = parallel;
        pairs.iter_mut().for_each(run);
    }
}

/// The first contact of bodies `x` (index `a`, side A) and `y` (index `b`) under their
/// motions, with the pair's cache.
fn pair_toc(
    a: u32,
    x: &Body,
    b: u32,
    y: &Body,
    options: &CcdOptions,
    cache: &mut PairCcd,
) -> Result<Option<CcdContact>, PolycdError> {
    let (a, b) = (CcdHandle(a), CcdHandle(b));
    if let (CcdShape::Convex(p), CcdShape::Convex(q)) = (&x.shape, &y.shape) {
        let r = ccd::time_of_contact(p, &x.motion, q, &y.motion, options, &mut cache.convex)?;
        return Ok(r.map(|r| CcdContact {
            a,
            b,
            t: r.t,
            distance: r.distance,
            points: r.closest,
            iterations: r.iterations,
        }));
    }
    // The one-piece meshes of convex sides were built before the pairs ran (`step`); built
    // here only should a caller reach this otherwise.
    fn as_mesh(body: &Body) -> Result<std::borrow::Cow<'_, TriMesh>, PolycdError> {
        match (body.mesh(), &body.shape) {
            (Some(m), _) => Ok(std::borrow::Cow::Borrowed(m)),
            (None, CcdShape::Convex(c)) => TriMesh::from_convex(c).map(std::borrow::Cow::Owned),
            (None, CcdShape::Mesh(m)) => Ok(std::borrow::Cow::Borrowed(&**m)),
        }
    }
    let (p, q) = (as_mesh(x)?, as_mesh(y)?);
    let c = cache.mesh.get_or_insert_with(Box::default);
    let r = ccd::mesh::time_of_contact(&p, &x.motion, &q, &y.motion, options, c)?;
    Ok(r.map(|r| CcdContact {
        a,
        b,
        t: r.t,
        distance: r.distance(),
        points: match r.answer {
            MeshDistance::Separated { point_a, point_b, .. } => Some((point_a, point_b)),
            MeshDistance::Overlapping { .. } => None,
        },
        iterations: r.iterations,
    }))
}

/// The padded swept box of a body over the frame (see the module header, steps 1–2).
fn swept_box(body: &Body, options: &CcdOptions) -> Result<(DVec3, DVec3), PolycdError> {
    let shape = body.outer()?;
    let m = &body.motion;
    let pose0 = m.pose_at(0.0);
    let (mut lo, mut hi) = (DVec3::ZERO, DVec3::ZERO);
    let v = m.velocity();
    for (k, axis) in [DVec3::X, DVec3::Y, DVec3::Z].into_iter().enumerate() {
        let local = pose0.inverse_transform_vector(axis);
        let top = pose0.transform_point(shape.vertex(shape.support_climb_hinted(local, u32::MAX)))[k];
        let bottom = pose0.transform_point(shape.vertex(shape.support_climb_hinted(-local, u32::MAX)))[k];
        // The rotation's share of the motion along the axis over the unit step.
        let b = directional_bound(shape, m, &pose0, axis);
        let turn = (b.angular + b.slope).min(b.cap);
        lo[k] = bottom + v[k].min(0.0) - turn;
        hi[k] = top + v[k].max(0.0) + turn;
    }
    // The ball argument: every point stays within `rho` of the moving reference point (of the
    // moving sphere centre when nothing turns).
    let (sc, sr) = shape.bounding_sphere();
    let (c0, rho) = if m.angular_velocity() == DVec3::ZERO {
        (pose0.transform_point(sc), sr)
    } else {
        (m.center_at(0.0), (sc - m.center()).length() + sr)
    };
    let c1 = c0 + v;
    lo = lo.max(c0.min(c1) - DVec3::splat(rho));
    hi = hi.min(c0.max(c1) + DVec3::splat(rho));
    // Both bounds above are the core's; a rounded shape is the core plus a ball (the same set
    // under any rotation), so its box is the core's grown by the radius.
    let r = DVec3::splat(shape.radius());
    let (lo, hi) = (lo - r, hi + r);
    let share = match options.distance_threshold {
        None => CCD_DISTANCE_REL * body.scale,
        Some(_) => options.threshold(body.scale)?,
    };
    let pad = share
        + (2.0 * CCD_PIECE_REL + AABB_PAD_REL) * body.scale
        + AABB_PAD_REL * (lo.abs().max(hi.abs())).max_element();
    let pad = DVec3::splat(pad);
    Ok((lo - pad, hi + pad))
}
