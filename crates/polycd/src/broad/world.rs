//! [`World`]: bodies with poses and margins, the broad phase over their boxes and the narrow
//! phase through [`crate::query`] on the candidate pairs, each with its own `PairCache`.

use crate::core::error::PolycdError;
use crate::core::math::{DMat3, DVec3, Pose};
use crate::core::tolerance::{AABB_PAD_REL, MAX_COORDINATE, POSE_UNIT_SLACK};
use crate::query::{self, Algorithm, Distance, Intersection, PairCache, Status};
use crate::shape::polyhedron::ConvexPolyhedron;
use std::sync::Arc;

use super::sap::{Aabb, PairData, SweepAndPrune, SweepStats};

/// Hulls of at most this many vertices get their box from every vertex (one pass), larger ones
/// from six warm-started support climbs. Measured (callgrind, 1 000 coherently moving bodies,
/// broad phase per frame): climbs everywhere 2.61 M instructions; direct up to 16 vertices
/// 2.04 M, up to 32 1.88 M, up to 64 1.94 M. In cycles the 64-vertex pass wins: the climbs'
/// branches (which neighbour is higher) are data-dependent, the pass has none. `bench
/// many-body`'s scene at 1 000 bodies (`broad_peer_profile`, `perf record`, 2 000 frames): the
/// boxes' share of the cycles fell by a fifth from 32 to 64 (21.5 → 17.2 % at density 0.05,
/// 15.8 → 12.1 % at 0.2) for 2 % more instructions.
const DIRECT_BOX_MAX: usize = 64;

/// A body in a [`World`]: a slot index and the slot's generation (a handle of a removed body
/// is refused even when its slot is reused). Ordered by index, which is the order pairs are
/// reported in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyHandle {
    index: u32,
    generation: u32,
}

impl BodyHandle {
    /// The slot index (dense, reused after removal).
    pub fn index(self) -> u32 {
        self.index
    }
}

/// Which narrow-phase question a [`World`] asks of its candidate pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum PairQuery {
    /// [`query::distance`]: distance and closest points, or penetration.
    #[default]
    Distance,
    /// [`query::intersect`]: overlap status with a witness.
    Intersect,
}

/// Options of a [`World`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct WorldOptions {
    /// The narrow-phase algorithm. Default V-Clip: the candidates of a coherent simulation
    /// are queried frame after frame, which is what V-Clip's feature tracking is fast at.
    pub algorithm: Algorithm,
    /// The narrow-phase question.
    pub query: PairQuery,
}

impl Default for WorldOptions {
    fn default() -> Self {
        Self {
            algorithm: Algorithm::VClip,
            query: PairQuery::Distance,
        }
    }
}

/// Builders: the struct is `#[non_exhaustive]`, so callers outside polycd start from
/// [`WorldOptions::default`] and set what they need.
impl WorldOptions {
    /// With [`WorldOptions::algorithm`] set.
    #[must_use]
    pub fn with_algorithm(mut self, algorithm: Algorithm) -> Self {
        self.algorithm = algorithm;
        self
    }

    /// With [`WorldOptions::query`] set.
    #[must_use]
    pub fn with_query(mut self, query: PairQuery) -> Self {
        self.query = query;
        self
    }
}

/// The narrow phase's answer for one candidate pair (world frame, body `a` as shape A).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum PairAnswer {
    /// From [`query::distance`].
    Distance(Distance),
    /// From [`query::intersect`].
    Intersection(Intersection),
}

/// One candidate pair's state: its coherence cache and its last answer.
#[derive(Debug, Default)]
pub struct PairState {
    cache: PairCache,
    answer: Option<(PairAnswer, Status)>,
    /// The frame the answer was computed in.
    frame: u64,
    /// Contact-manifold state ([`World::manifolds`]), created by the first manifold query on
    /// the pair (pairs never asked keep one pointer).
    manifold: Option<Box<query::ManifoldCache>>,
}

impl PairData for PairState {
    fn reset(&mut self) {
        self.cache.forget();
        self.answer = None;
        self.frame = 0;
        if let Some(m) = &mut self.manifold {
            m.forget();
        }
    }
}

/// One candidate pair as reported by [`World::pairs`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairReport {
    /// The body of lower index (shape A of the query).
    pub a: BodyHandle,
    /// The other body (shape B).
    pub b: BodyHandle,
    /// The narrow-phase answer.
    pub answer: PairAnswer,
    /// Its contact status ([`Distance::status`] with the pair's
    /// [`query::contact_tolerance`]).
    pub status: Status,
}

impl PairReport {
    /// Signed distance when known (distance apart, minus the depth when penetrating), `Some(0)`
    /// for a touching intersection answer, `None` otherwise.
    pub fn signed_distance(&self) -> Option<f64> {
        match &self.answer {
            PairAnswer::Distance(d) => d.signed_distance(),
            PairAnswer::Intersection(Intersection::Touching { .. }) => Some(0.0),
            PairAnswer::Intersection(_) => None,
        }
    }
}

#[derive(Debug)]
struct Body {
    shape: Arc<ConvexPolyhedron>,
    pose: Pose,
    margin: f64,
    /// Warm vertices of the six support climbs (+x, −x, +y, −y, +z, −z).
    warm: [u32; 6],
    /// The first frame (broad-phase update) that sees the body's last pose or margin change.
    changed: u64,
}

#[derive(Debug, Default)]
struct BodySlot {
    generation: u32,
    body: Option<Body>,
}

/// What one [`World::update`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorldStats {
    /// The broad phase's figures.
    pub sweep: SweepStats,
    /// Boxes computed since the previous update (insertions, pose and margin changes).
    pub boxes: usize,
    /// Narrow-phase queries run (candidates with a moved body, or new).
    pub queries: usize,
}

/// Many convex bodies with poses; each [`update`](World::update) finds the pairs whose boxes
/// overlap (sweep-and-prune, module docs) and runs the narrow phase on them.
///
/// ```
/// use polycd::broad::World;
/// use polycd::{shapes, DVec3, Pose};
/// use std::sync::Arc;
///
/// let cube = Arc::new(shapes::cuboid(1.0, 1.0, 1.0).unwrap());
/// let mut world = World::default(); // V-Clip distance on every candidate pair
/// let a = world.insert(cube.clone(), Pose::IDENTITY).unwrap();
/// let b = world.insert(cube.clone(), Pose::from_translation(DVec3::new(1.5, 0.0, 0.0))).unwrap();
/// let _far = world.insert(cube, Pose::from_translation(DVec3::new(9.0, 0.0, 0.0))).unwrap();
/// world.set_margin(a, 0.5).unwrap(); // report b when within 0.5 of a
/// world.update().unwrap();
/// let near: Vec<_> = world.within(0.5).collect();
/// assert_eq!(near.len(), 1);
/// assert_eq!((near[0].a, near[0].b), (a, b));
/// assert!((near[0].signed_distance().unwrap() - 0.5).abs() < 1e-12);
/// ```
#[derive(Debug, Default)]
pub struct World {
    options: WorldOptions,
    slots: Vec<BodySlot>,
    free: Vec<u32>,
    sap: SweepAndPrune<PairState>,
    /// Frame counter: incremented by each [`World::update_broad_phase`].
    frame: u64,
    /// Boxes computed since the last broad phase.
    boxes: usize,
    stats: WorldStats,
    /// [`World::set_parallel`]`(false)`: the narrow phase stays on the calling thread.
    serial: bool,
}

/// [`World::update_narrow_phase`] uses every core (cargo feature `parallel`) from this many
/// candidate pairs on: below it, handing work to other threads costs more than a few hundred
/// queries of a microsecond, and a small world's frame stays on the calling thread (which is
/// also what keeps its frames free of allocation: the pool's job queue is rayon's).
pub const PARALLEL_MIN_PAIRS: usize = 512;

impl World {
    /// An empty world with these options.
    pub fn new(options: WorldOptions) -> Self {
        Self {
            options,
            ..Self::default()
        }
    }

    /// The options.
    pub fn options(&self) -> WorldOptions {
        self.options
    }

    /// Number of bodies.
    pub fn len(&self) -> usize {
        self.sap.len()
    }

    /// True when there are no bodies.
    pub fn is_empty(&self) -> bool {
        self.sap.is_empty()
    }

    /// Adds a body (margin 0). Errors: a bad pose ([`World::set_pose`]).
    pub fn insert(&mut self, shape: Arc<ConvexPolyhedron>, pose: Pose) -> Result<BodyHandle, PolycdError> {
        let pose = checked_unit_pose(&pose)?;
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                self.slots.push(BodySlot::default());
                (self.slots.len() - 1) as u32
            }
        };
        let mut warm = [0; 6];
        let aabb = shape_aabb(&shape, &pose, 0.0, &mut warm);
        let body = Body {
            shape,
            pose,
            margin: 0.0,
            warm,
            changed: self.frame + 1,
        };
        self.boxes += 1;
        if let Err(e) = self.sap.insert(index, aabb) {
            self.free.push(index);
            return Err(e);
        }
        let slot = &mut self.slots[index as usize];
        slot.body = Some(body);
        Ok(BodyHandle {
            index,
            generation: slot.generation,
        })
    }

    /// Removes a body and its pairs (their caches are recycled). Returns false for a stale
    /// handle.
    pub fn remove(&mut self, h: BodyHandle) -> bool {
        if self.body(h).is_none() {
            return false;
        }
        let slot = &mut self.slots[h.index as usize];
        slot.body = None;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(h.index);
        self.sap.remove(h.index)
    }

    fn body(&self, h: BodyHandle) -> Option<&Body> {
        let slot = self.slots.get(h.index as usize)?;
        (slot.generation == h.generation).then_some(())?;
        slot.body.as_ref()
    }

    fn body_mut(&mut self, h: BodyHandle) -> Result<&mut Body, PolycdError> {
        match self.slots.get_mut(h.index as usize) {
            Some(BodySlot {
                generation,
                body: Some(body),
            }) if *generation == h.generation => Ok(body),
            _ => Err(PolycdError::InvalidOption {
                name: "body",
                message: "stale or unknown body handle",
            }),
        }
    }

    /// Is `h` a live body?
    pub fn contains(&self, h: BodyHandle) -> bool {
        self.body(h).is_some()
    }

    /// The handles of every body, by index.
    pub fn handles(&self) -> impl Iterator<Item = BodyHandle> + '_ {
        self.slots.iter().enumerate().filter_map(|(i, s)| {
            s.body.as_ref().map(|_| BodyHandle {
                index: i as u32,
                generation: s.generation,
            })
        })
    }

    /// A body's shape.
    pub fn shape(&self, h: BodyHandle) -> Option<&Arc<ConvexPolyhedron>> {
        self.body(h).map(|b| &b.shape)
    }

    /// A body's pose (with its rotation normalised as it is used).
    pub fn pose(&self, h: BodyHandle) -> Option<Pose> {
        self.body(h).map(|b| b.pose)
    }

    /// A body's current box (as of its last pose or margin change: the shape at its pose,
    /// padded by [`AABB_PAD_REL`] and grown by its margin).
    pub fn aabb(&self, h: BodyHandle) -> Option<Aabb> {
        self.body(h).and_then(|_| self.sap.aabb(h.index))
    }

    /// Moves a body (effective at the next update). Errors: a stale handle
    /// ([`PolycdError::InvalidOption`]); a non-finite pose ([`PolycdError::NonFinitePose`]); a
    /// zero quaternion ([`PolycdError::ZeroQuaternion`]); a quaternion whose squared length is
    /// off 1 by more than [`POSE_UNIT_SLACK`] ([`PolycdError::NonUnitQuaternion`]); a
    /// translation beyond [`MAX_COORDINATE`] ([`PolycdError::AbsurdMagnitude`]). On error the
    /// body keeps its previous pose.
    pub fn set_pose(&mut self, h: BodyHandle, pose: Pose) -> Result<(), PolycdError> {
        let pose = checked_unit_pose(&pose)?;
        let margin = self.body_mut(h)?.margin;
        self.place(h, pose, margin)
    }

    /// Sets a body's margin `m ≥ 0`: its box grows by `m` on every side, so a pair of bodies
    /// at distance at most `m_a + m_b` is always a candidate (an axis gap never exceeds the
    /// distance). Use it to ask "which bodies are within `d`" ([`World::within`]).
    pub fn set_margin(&mut self, h: BodyHandle, margin: f64) -> Result<(), PolycdError> {
        if !(margin >= 0.0) || margin > MAX_COORDINATE {
            return Err(PolycdError::InvalidOption {
                name: "margin",
                message: "must be finite and non-negative",
            });
        }
        let pose = self.body_mut(h)?.pose;
        self.place(h, pose, margin)
    }

    /// Gives body `h` a checked pose and margin and its new box; on an error (a box beyond
    /// the coordinate limit) the body keeps its previous pose and margin.
    fn place(&mut self, h: BodyHandle, pose: Pose, margin: f64) -> Result<(), PolycdError> {
        let frame = self.frame;
        let body = self.body_mut(h)?;
        let mut warm = body.warm;
        let aabb = shape_aabb(&body.shape, &pose, margin, &mut warm);
        // The broad phase checks the box (once) and keeps it only if valid; the body changes
        // after that, so an error leaves both as they were.
        self.sap.set_aabb(h.index, aabb)?;
        let body = self.body_mut(h)?;
        body.pose = pose;
        body.margin = margin;
        body.warm = warm;
        body.changed = frame + 1;
        self.boxes += 1;
        Ok(())
    }

    /// Broad phase then narrow phase ([`World::update_broad_phase`],
    /// [`World::update_narrow_phase`]).
    pub fn update(&mut self) -> Result<WorldStats, PolycdError> {
        self.update_broad_phase();
        self.update_narrow_phase()
    }

    /// Sweep-and-prune only: the candidate set of the current boxes. The pairs' answers are
    /// those of the previous narrow phase (none for new pairs) until
    /// [`World::update_narrow_phase`] runs.
    pub fn update_broad_phase(&mut self) -> SweepStats {
        self.frame += 1;
        self.stats = WorldStats {
            sweep: self.sap.update(),
            boxes: self.boxes,
            queries: 0,
        };
        self.boxes = 0;
        self.stats.sweep
    }

    /// The narrow phase on every candidate pair whose answer is missing or older than one of
    /// its bodies' last move (pairs of bodies at rest keep their answer). With the cargo
    /// feature `parallel` (default) and at least [`PARALLEL_MIN_PAIRS`] candidates, the pairs
    /// are queried on every core ([`World::set_parallel`] turns it off): each pair's answer
    /// depends only on its bodies and its own cache, so the reports are the same as on one
    /// thread. Errors: the algorithm does not answer the question
    /// ([`PolycdError::Unsupported`] or [`PolycdError::UnsupportedShape`]; poses were validated
    /// when set): every other pair is still answered, the failing pairs keep their previous
    /// answer (or none) and are queried again by the next call, and the error returned is that
    /// of the first failing pair in sorted order.
    pub fn update_narrow_phase(&mut self) -> Result<WorldStats, PolycdError> {
        let (slots, options, frame) = (&self.slots, self.options, self.frame);
        let parallel = !self.serial && self.sap.candidate_count() >= PARALLEL_MIN_PAIRS;
        let queries = self.sap.try_for_each_pair_all(parallel, |a, b, pair| {
            let (Some(ba), Some(bb)) = (&slots[a as usize].body, &slots[b as usize].body) else {
                return Ok(0);
            };
            if pair.answer.is_some() && ba.changed <= pair.frame && bb.changed <= pair.frame {
                return Ok(0);
            }
            let (sa, pa, sb, pb) = (&*ba.shape, &ba.pose, &*bb.shape, &bb.pose);
            let answer = match options.query {
                PairQuery::Distance => {
                    let d = query::distance(sa, pa, sb, pb, options.algorithm, &mut pair.cache)?;
                    let tol = query::contact_tolerance(sa, pa, sb, pb);
                    (PairAnswer::Distance(d), d.status(tol))
                }
                PairQuery::Intersect => {
                    let i = query::intersect(sa, pa, sb, pb, options.algorithm, &mut pair.cache)?;
                    (PairAnswer::Intersection(i), i.status())
                }
            };
            pair.answer = Some(answer);
            pair.frame = frame;
            Ok::<usize, PolycdError>(1)
        });
        // The queries of a failed call are not counted: its error is the answer.
        self.stats.queries = queries?;
        Ok(self.stats)
    }

    /// Whether [`World::update_narrow_phase`] may use every core (default: yes, with the
    /// cargo feature `parallel`; without it this changes nothing). The reports are the same
    /// either way.
    pub fn set_parallel(&mut self, on: bool) {
        self.serial = !on;
    }

    /// From this many bodies on, the broad phase finds its candidates by a uniform grid
    /// instead of the incremental sweep ([`SweepAndPrune::set_grid_threshold`]; default
    /// [`super::GRID_MIN_BOXES`]). The reports are the same either way.
    pub fn set_grid_threshold(&mut self, bodies: usize) {
        self.sap.set_grid_threshold(bodies);
    }

    /// The figures of the last update.
    pub fn stats(&self) -> WorldStats {
        self.stats
    }

    /// The broad phase (its candidate pairs are body indices).
    pub fn broad_phase(&self) -> &SweepAndPrune<PairState> {
        &self.sap
    }

    fn handle(&self, index: u32) -> BodyHandle {
        BodyHandle {
            index,
            generation: self.slots[index as usize].generation,
        }
    }

    /// Every candidate pair with a narrow-phase answer, sorted by `(a, b)` handle index.
    pub fn pairs(&self) -> impl Iterator<Item = PairReport> + '_ {
        self.sap.pairs_with_data().filter_map(move |(a, b, p)| {
            let (answer, status) = p.answer?;
            Some(PairReport {
                a: self.handle(a),
                b: self.handle(b),
                answer,
                status,
            })
        })
    }

    /// The pairs that touch or overlap (status [`Status::Touching`] or
    /// [`Status::Overlapping`]), sorted.
    pub fn contacts(&self) -> impl Iterator<Item = PairReport> + '_ {
        self.pairs()
            .filter(|p| matches!(p.status, Status::Touching | Status::Overlapping))
    }

    /// The pairs whose distance is at most `d` (touching and overlapping pairs included),
    /// sorted. Complete only when every pair's margins sum to at least `d`
    /// ([`World::set_margin`]); with [`PairQuery::Intersect`] only contacts are listed.
    pub fn within(&self, d: f64) -> impl Iterator<Item = PairReport> + '_ {
        self.pairs().filter(move |p| {
            matches!(p.status, Status::Touching | Status::Overlapping) || p.signed_distance().is_some_and(|s| s <= d)
        })
    }
}

/// The pose validated for the world: finite, translation within [`MAX_COORDINATE`], the
/// quaternion unit within [`POSE_UNIT_SLACK`] (normalised unless already unit within the
/// query layer's slack, as [`crate::query`] would use it).
fn checked_unit_pose(p: &Pose) -> Result<Pose, PolycdError> {
    // The query layer's checks (finite, non-zero quaternion, magnitude) and normalisation,
    // plus the world's own: a quaternion far from unit is refused, not normalised.
    let checked = crate::contract::checked_pose(p)?;
    let l2 = p.rotation.length_squared();
    if (l2 - 1.0).abs() > POSE_UNIT_SLACK {
        return Err(PolycdError::NonUnitQuaternion { length: l2.sqrt() });
    }
    Ok(checked)
}

/// The body's box: per world axis ±e_k, the support vertex of the shape along the local
/// direction `±Rᵀe_k` (row k of R) and its world coordinate `row_k · v + t_k` — found by a
/// hinted climb from the last frame's vertex, or for hulls of at most [`DIRECT_BOX_MAX`]
/// vertices by computing every vertex's coordinates; padded by [`AABB_PAD_REL`] × (shape
/// scale + coordinate magnitude + largest translation component), then grown by the margin.
///
/// Why extreme vertices and not the rotated local box: the box is as tight as the shape (a
/// rotated local box is up to √3 times wider for round shapes: more candidates), and under
/// coherence each climb is a step or two. Containment: the climb's vertex maximises the
/// rounded dot product, so a vertex it missed is above it by rounding only (a few ulps of the
/// coordinates), and every coordinate the narrow phase computes from the pose differs from
/// `row_k · v + t_k` by rounding as well; the pad is hundreds of ulps of that scale.
fn shape_aabb(s: &ConvexPolyhedron, pose: &Pose, margin: f64, warm: &mut [u32; 6]) -> Aabb {
    let r = DMat3::from_quat(pose.rotation);
    let t = pose.translation;
    let rows = [r.row(0), r.row(1), r.row(2)];
    let mut lo = DVec3::ZERO;
    let mut hi = DVec3::ZERO;
    if s.vertices().len() <= DIRECT_BOX_MAX {
        // Every vertex through the rotation: for small hulls one pass of three dot products per
        // vertex costs less than six climbs (the same products, so the same box).
        let (mut l, mut h) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
        for &v in s.vertices() {
            let p = DVec3::new(rows[0].dot(v), rows[1].dot(v), rows[2].dot(v));
            l = l.min(p);
            h = h.max(p);
        }
        lo = l + t;
        hi = h + t;
    }
    for k in (0..3).filter(|_| s.vertices().len() > DIRECT_BOX_MAX) {
        let up = s.support_climb_hinted(rows[k], warm[2 * k]);
        let down = s.support_climb_hinted(-rows[k], warm[2 * k + 1]);
        warm[2 * k] = up;
        warm[2 * k + 1] = down;
        hi[k] = rows[k].dot(s.vertex(up)) + t[k];
        lo[k] = rows[k].dot(s.vertex(down)) + t[k];
    }
    // A rounded shape's box is its core's grown by the radius (0: unchanged bit for bit).
    let pad = AABB_PAD_REL * (s.scale() + s.magnitude() + t.abs().max_element()) + margin + s.radius();
    Aabb {
        min: lo - DVec3::splat(pad),
        max: hi + DVec3::splat(pad),
    }
}

impl World {
    /// The contact manifold of every candidate pair of the last broad phase that is within
    /// `options.margin` ([`query::contact_manifold`], body of lower index as shape A), handed
    /// to `each` in sorted pair order with the two handles; returns how many pairs had one.
    /// Each pair keeps its own [`query::ManifoldCache`], so point ids persist from call to
    /// call (warm-started impulses); complete only when every pair's body margins sum to at
    /// least `options.margin` ([`World::set_margin`]), as for [`World::within`].
    pub fn manifolds(
        &mut self,
        options: &query::ManifoldOptions,
        mut each: impl FnMut(BodyHandle, BodyHandle, &query::ContactManifold),
    ) -> Result<usize, PolycdError> {
        let slots = &self.slots;
        let handle = |i: u32| BodyHandle {
            index: i,
            generation: slots[i as usize].generation,
        };
        let mut found = 0;
        self.sap.for_each_pair_mut(|a, b, pair| {
            let (Some(ba), Some(bb)) = (&slots[a as usize].body, &slots[b as usize].body) else {
                return Ok(());
            };
            let cache = pair.manifold.get_or_insert_with(Box::default);
            if let Some(m) = query::contact_manifold(&ba.shape, &ba.pose, &bb.shape, &bb.pose, options, cache)? {
                found += 1;
                each(handle(a), handle(b), m);
            }
            Ok::<(), PolycdError>(())
        })?;
        Ok(found)
    }
}
