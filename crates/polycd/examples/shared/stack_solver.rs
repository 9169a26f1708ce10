//! A small sequential-impulse rigid-body solver for boxes, driven by polycd's contact
//! manifolds. Shared by `examples/stacking.rs` and `tests/stacking.rs` (included with
//! `#[path]`); it is a demonstration of how an engine uses manifolds, not part of the library.
//!
//! One step of `World::step`:
//! 1. gravity is added to the velocities;
//! 2. every pair of bodies whose bounding spheres are within the margin asks
//!    `query::contact_manifold` (speculative `MARGIN`, `reduce: true`, one `ManifoldCache` per
//!    pair, so each point keeps its `id` while its features do); a manifold of fewer than 4
//!    points keeps last step's other points that still touch (a persistent manifold);
//! 3. each contact point starts with the impulses its id carried last step, else those of last
//!    step's nearest point (warm start);
//! 4. `ITERATIONS` Gauss–Seidel passes over the points, alternately forwards and backwards: a
//!    normal impulse (accumulated ≥ 0) that stops approach and lets a speculative point close
//!    its gap this step; two friction impulses clamped to the friction cone
//!    `FRICTION · normal impulse`;
//! 5. `ITERATIONS` passes of split impulses pushing each penetrating point out by the fraction
//!    `BAUMGARTE` of its depth beyond `SLOP` (pseudo velocities, dropped after the step);
//! 6. positions and orientations are integrated (semi-implicit Euler).

use polycd::query::{contact_manifold, ManifoldCache, ManifoldOptions};
use polycd::{shapes, ConvexPolyhedron, DQuat, DVec3, PolycdError, Pose};

/// Speculative margin: points apart by up to this are solved (approach allowed up to the gap).
pub const MARGIN: f64 = 0.02;
/// Penetration left alone by the position correction (keeps resting contacts persistent).
pub const SLOP: f64 = 5e-4;
/// Position-correction factor: the fraction of the penetration beyond `SLOP` removed per
/// step (by split impulses).
pub const BAUMGARTE: f64 = 0.2;
/// Coulomb friction coefficient.
pub const FRICTION: f64 = 0.6;
/// A point whose id is new takes the impulses of last step's nearest point within this
/// distance (in A's body frame).
pub const MATCH_RADIUS: f64 = 0.05;
/// A remembered point is kept while the normal turned by less than this cosine (~2.5°) ...
pub const KEEP_COS: f64 = 0.999;
/// ... and its two anchors slid apart across the normal by at most this.
pub const KEEP_LATERAL: f64 = 0.01;
/// Velocity iterations, and position iterations, per step.
pub const ITERATIONS: usize = 40;
/// Gravity (z up).
pub const GRAVITY: DVec3 = DVec3::new(0.0, 0.0, -9.81);

/// A rigid box: a static one has zero inverse mass and inverse inertia.
pub struct Body {
    pub shape: ConvexPolyhedron,
    pub radius: f64,
    pub pos: DVec3,
    pub rot: DQuat,
    pub vel: DVec3,
    pub ang: DVec3,
    /// Split-impulse pseudo velocities: they move the body out of penetration this step and
    /// are then dropped, so position correction adds no kinetic energy.
    push: DVec3,
    turn: DVec3,
    pub inv_mass: f64,
    /// Inverse inertia in the body frame (diagonal, a box's principal axes).
    pub inv_inertia: DVec3,
}

impl Body {
    /// A box of full extents `size` at `pos`, of density 1 (static when `fixed`).
    pub fn cuboid(size: DVec3, pos: DVec3, fixed: bool) -> Result<Body, PolycdError> {
        let mass = size.x * size.y * size.z;
        let inertia = DVec3::new(
            size.y * size.y + size.z * size.z,
            size.x * size.x + size.z * size.z,
            size.x * size.x + size.y * size.y,
        ) * (mass / 12.0);
        Ok(Body {
            shape: shapes::cuboid(size.x, size.y, size.z)?,
            radius: 0.5 * size.length(),
            pos,
            rot: DQuat::IDENTITY,
            vel: DVec3::ZERO,
            ang: DVec3::ZERO,
            push: DVec3::ZERO,
            turn: DVec3::ZERO,
            inv_mass: if fixed { 0.0 } else { 1.0 / mass },
            inv_inertia: if fixed { DVec3::ZERO } else { inertia.recip() },
        })
    }

    pub fn pose(&self) -> Pose {
        Pose::new(self.rot, self.pos)
    }

    /// The world inverse inertia applied to `v`: R · I⁻¹ · Rᵀ · v.
    fn inv_inertia_times(&self, v: DVec3) -> DVec3 {
        self.rot * (self.inv_inertia * (self.rot.inverse() * v))
    }

    /// Velocity of the body's material point at offset `r` from its centre.
    fn velocity_at(&self, r: DVec3) -> DVec3 {
        self.vel + self.ang.cross(r)
    }

    fn apply_impulse(&mut self, r: DVec3, p: DVec3) {
        self.vel += p * self.inv_mass;
        self.ang += self.inv_inertia_times(r.cross(p));
    }

    fn push_at(&self, r: DVec3) -> DVec3 {
        self.push + self.turn.cross(r)
    }

    fn apply_push(&mut self, r: DVec3, p: DVec3) {
        self.push += p * self.inv_mass;
        self.turn += self.inv_inertia_times(r.cross(p));
    }
}

/// One solved contact point of a pair (A = body `i`, B = body `j`, normal from A to B).
struct Contact {
    i: usize,
    j: usize,
    id: u32,
    normal: DVec3,
    t1: DVec3,
    t2: DVec3,
    ra: DVec3,
    rb: DVec3,
    separation: f64,
    /// The point's `a` in A's body frame and `b` in B's (kept for the next step).
    on_a: DVec3,
    on_b: DVec3,
    mass_n: f64,
    mass_t1: f64,
    mass_t2: f64,
    /// Accumulated impulses (normal, two tangents) and split (position) impulse.
    jp: f64,
    jn: f64,
    jt1: f64,
    jt2: f64,
}

/// Last step's accumulated impulses of one contact point: its id, its position in A's body
/// frame, and the normal and two friction impulses.
#[derive(Clone, Copy)]
struct Carried {
    id: u32,
    local: DVec3,
    /// The point's `a` in A's body frame and `b` in B's, and the normal (world).
    on_a: DVec3,
    on_b: DVec3,
    normal: DVec3,
    jn: f64,
    jt1: f64,
    jt2: f64,
}

/// A pair's persistent state: its manifold cache and last step's impulses.
#[derive(Default)]
struct PairState {
    cache: ManifoldCache,
    impulses: Vec<Carried>,
    /// Which of `impulses` were taken this step.
    used: Vec<bool>,
}

/// Last step's impulses for a point with this `id` at `local` (A's frame): the point with
/// the same id, else the nearest untaken one within `MATCH_RADIUS`. Ids are stable while
/// the features are; where two faces' corners coincide (a box on an equal box) a jitter
/// of the poses changes which features a corner comes from, and the position still finds it.
fn take(impulses: &[Carried], used: &mut Vec<bool>, id: u32, local: DVec3) -> (f64, f64, f64) {
    used.resize(impulses.len(), false);
    let by_id = impulses.iter().position(|c| c.id == id);
    let hit = by_id.filter(|&k| !used[k]).or_else(|| {
        (0..impulses.len())
            .filter(|&k| !used[k])
            .map(|k| (k, impulses[k].local.distance(local)))
            .filter(|&(_, d)| d <= MATCH_RADIUS)
            .min_by(|x, y| x.1.total_cmp(&y.1))
            .map(|(k, _)| k)
    });
    match hit {
        Some(k) => {
            used[k] = true;
            let c = impulses[k];
            (c.jn, c.jt1, c.jt2)
        }
        None => (0.0, 0.0, 0.0),
    }
}

pub struct World {
    pub bodies: Vec<Body>,
    /// Pair states, `pairs[i * n + j]` for `i < j`, created on first contact.
    pairs: Vec<Option<PairState>>,
    contacts: Vec<Contact>,
}

/// Two unit tangents completing `n` to an orthonormal frame (a fixed function of `n`, so
/// warm-started friction impulses keep their meaning while the normal does).
fn tangents(n: DVec3) -> (DVec3, DVec3) {
    let helper = if n.x.abs() < 0.6 { DVec3::X } else { DVec3::Y };
    let t1 = n.cross(helper).normalize();
    (t1, n.cross(t1))
}

impl World {
    pub fn new(bodies: Vec<Body>) -> World {
        let n = bodies.len();
        World {
            bodies,
            pairs: (0..n * n).map(|_| None).collect(),
            contacts: Vec::new(),
        }
    }

    /// Number of contact points solved in the last step.
    pub fn contact_count(&self) -> usize {
        self.contacts.len()
    }

    fn effective_mass(&self, i: usize, j: usize, ra: DVec3, rb: DVec3, d: DVec3) -> f64 {
        let (a, b) = (&self.bodies[i], &self.bodies[j]);
        let (ca, cb) = (ra.cross(d), rb.cross(d));
        let k = a.inv_mass + b.inv_mass + ca.dot(a.inv_inertia_times(ca)) + cb.dot(b.inv_inertia_times(cb));
        if k > 0.0 {
            1.0 / k
        } else {
            0.0
        }
    }

    /// Finds the contact points of every near pair, warm-started from last step's impulses.
    fn collide(&mut self) -> Result<(), PolycdError> {
        let n = self.bodies.len();
        let options = ManifoldOptions::default().with_margin(MARGIN).with_reduce(true);
        self.contacts.clear();
        for i in 0..n {
            for j in i + 1..n {
                let (a, b) = (&self.bodies[i], &self.bodies[j]);
                let slot = &mut self.pairs[i * n + j];
                let near =
                    (a.inv_mass > 0.0 || b.inv_mass > 0.0) && a.pos.distance(b.pos) <= a.radius + b.radius + MARGIN;
                if !near {
                    *slot = None;
                    continue;
                }
                let PairState { cache, impulses, used } = slot.get_or_insert_with(PairState::default);
                let found = contact_manifold(&a.shape, &a.pose(), &b.shape, &b.pose(), &options, cache)?;
                let Some(m) = found else {
                    impulses.clear();
                    continue;
                };
                let (t1, t2) = tangents(m.normal);
                used.clear();
                for p in &m.points {
                    let mid = 0.5 * (p.a + p.b);
                    let (ra, rb) = (mid - a.pos, mid - b.pos);
                    let local = a.rot.inverse() * (mid - a.pos);
                    let (jn, jt1, jt2) = take(impulses, used, p.id, local);
                    self.contacts.push(Contact {
                        i,
                        j,
                        id: p.id,
                        normal: m.normal,
                        t1,
                        t2,
                        ra,
                        rb,
                        separation: p.separation,
                        on_a: a.rot.inverse() * (p.a - a.pos),
                        on_b: b.rot.inverse() * (p.b - b.pos),
                        mass_n: 0.0,
                        mass_t1: 0.0,
                        mass_t2: 0.0,
                        jp: 0.0,
                        jn,
                        jt1,
                        jt2,
                    });
                }
                // A manifold of fewer than 4 points keeps last step's other points that are
                // still in contact (Bullet's persistent manifold): two equal boxes stacked
                // with a tilt and a twist of ~1e-4 rad, their deepest corner overhanging,
                // touch along crossing edges, whose manifold is one point; the remembered
                // corners keep supporting the box.
                let mut count = m.points.len();
                for (k, c) in impulses.iter().enumerate() {
                    if count >= 4 || used.get(k).copied().unwrap_or(false) || c.normal.dot(m.normal) < KEEP_COS {
                        continue;
                    }
                    let (pa, pb) = (a.pos + a.rot * c.on_a, b.pos + b.rot * c.on_b);
                    let separation = (pb - pa).dot(m.normal);
                    let lateral = (pb - pa - m.normal * separation).length();
                    if separation > MARGIN || lateral > KEEP_LATERAL {
                        continue;
                    }
                    let mid = 0.5 * (pa + pb);
                    count += 1;
                    self.contacts.push(Contact {
                        i,
                        j,
                        id: c.id,
                        normal: m.normal,
                        t1,
                        t2,
                        ra: mid - a.pos,
                        rb: mid - b.pos,
                        separation,
                        on_a: c.on_a,
                        on_b: c.on_b,
                        mass_n: 0.0,
                        mass_t1: 0.0,
                        mass_t2: 0.0,
                        jp: 0.0,
                        jn: c.jn,
                        jt1: c.jt1,
                        jt2: c.jt2,
                    });
                }
            }
        }
        for k in 0..self.contacts.len() {
            let c = &self.contacts[k];
            let (i, j, ra, rb) = (c.i, c.j, c.ra, c.rb);
            let mass_n = self.effective_mass(i, j, ra, rb, c.normal);
            let mass_t1 = self.effective_mass(i, j, ra, rb, c.t1);
            let mass_t2 = self.effective_mass(i, j, ra, rb, c.t2);
            let c = &mut self.contacts[k];
            (c.mass_n, c.mass_t1, c.mass_t2) = (mass_n, mass_t1, mass_t2);
            let p = c.normal * c.jn + c.t1 * c.jt1 + c.t2 * c.jt2;
            let (i, j, ra, rb) = (c.i, c.j, c.ra, c.rb);
            self.bodies[i].apply_impulse(ra, -p);
            self.bodies[j].apply_impulse(rb, p);
        }
        Ok(())
    }

    /// One Gauss–Seidel pass over the contact points.
    fn solve_velocities(&mut self, dt: f64, backward: bool) {
        let count = self.contacts.len();
        for k in 0..count {
            let c = &mut self.contacts[if backward { count - 1 - k } else { k }];
            let (a, b) = (&self.bodies[c.i], &self.bodies[c.j]);
            let dv = b.velocity_at(c.rb) - a.velocity_at(c.ra);
            // Normal: no approach, except that a speculative point may close its gap.
            let gap = c.separation.max(0.0) / dt;
            let old = c.jn;
            c.jn = (old - c.mass_n * (dv.dot(c.normal) + gap)).max(0.0);
            let dn = c.normal * (c.jn - old);
            // Friction: each tangent clamped to the cone of the current normal impulse.
            let limit = FRICTION * c.jn;
            let old1 = c.jt1;
            c.jt1 = (old1 - c.mass_t1 * dv.dot(c.t1)).clamp(-limit, limit);
            let old2 = c.jt2;
            c.jt2 = (old2 - c.mass_t2 * dv.dot(c.t2)).clamp(-limit, limit);
            let p = dn + c.t1 * (c.jt1 - old1) + c.t2 * (c.jt2 - old2);
            self.bodies[c.i].apply_impulse(c.ra, -p);
            self.bodies[c.j].apply_impulse(c.rb, p);
        }
    }

    /// One pass of the split-impulse position correction: pseudo velocities removing the
    /// fraction `BAUMGARTE` of each point's penetration beyond `SLOP` in this step.
    fn solve_positions(&mut self, dt: f64, backward: bool) {
        let count = self.contacts.len();
        for k in 0..count {
            let c = &mut self.contacts[if backward { count - 1 - k } else { k }];
            let depth = -c.separation - SLOP;
            if depth <= 0.0 {
                continue;
            }
            let (a, b) = (&self.bodies[c.i], &self.bodies[c.j]);
            let dv = (b.push_at(c.rb) - a.push_at(c.ra)).dot(c.normal);
            let old = c.jp;
            c.jp = (old + c.mass_n * (BAUMGARTE * depth / dt - dv)).max(0.0);
            let p = c.normal * (c.jp - old);
            self.bodies[c.i].apply_push(c.ra, -p);
            self.bodies[c.j].apply_push(c.rb, p);
        }
    }

    /// Remembers each point's accumulated impulses under its id, for the next step.
    fn store_impulses(&mut self) {
        let n = self.bodies.len();
        for state in self.pairs.iter_mut().flatten() {
            state.impulses.clear();
        }
        for c in &self.contacts {
            let local = self.bodies[c.i].rot.inverse() * c.ra;
            if let Some(state) = self.pairs[c.i * n + c.j].as_mut() {
                state.impulses.push(Carried {
                    id: c.id,
                    local,
                    on_a: c.on_a,
                    on_b: c.on_b,
                    normal: c.normal,
                    jn: c.jn,
                    jt1: c.jt1,
                    jt2: c.jt2,
                });
            }
        }
    }

    /// Advances the world by `dt`.
    pub fn step(&mut self, dt: f64) -> Result<(), PolycdError> {
        for b in self.bodies.iter_mut().filter(|b| b.inv_mass > 0.0) {
            b.vel += GRAVITY * dt;
        }
        self.collide()?;
        for k in 0..ITERATIONS {
            self.solve_velocities(dt, k % 2 == 1);
        }
        for k in 0..ITERATIONS {
            self.solve_positions(dt, k % 2 == 1);
        }
        self.store_impulses();
        for b in self.bodies.iter_mut().filter(|b| b.inv_mass > 0.0) {
            b.pos += (b.vel + b.push) * dt;
            b.rot = (DQuat::from_scaled_axis((b.ang + b.turn) * dt) * b.rot).normalize();
            (b.push, b.turn) = (DVec3::ZERO, DVec3::ZERO);
        }
        Ok(())
    }
}

/// Box edge length of the scenes.
pub const BOX: f64 = 1.0;

/// The static ground: a 40 × 40 × 1 box whose top face is the plane z = 0.
pub fn ground() -> Result<Body, PolycdError> {
    Body::cuboid(DVec3::new(40.0, 40.0, 1.0), DVec3::new(0.0, 0.0, -0.5), true)
}

/// A tower of `count` unit boxes resting on the ground at (x, y), each exactly on the one below.
pub fn tower(count: usize, x: f64, y: f64) -> Result<Vec<Body>, PolycdError> {
    (0..count)
        .map(|k| Body::cuboid(DVec3::splat(BOX), DVec3::new(x, y, (k as f64 + 0.5) * BOX), false))
        .collect()
}

/// A pyramid (a wall one box deep) with rows of `base`, `base − 1`, … boxes while their total
/// stays within `count`: neighbours in a row 0.1 apart, each box resting on the two below it.
pub fn pyramid(count: usize, base: usize, x: f64, y: f64) -> Result<Vec<Body>, PolycdError> {
    let pitch = 1.1 * BOX;
    let mut out = Vec::with_capacity(count);
    let mut row = 0;
    while out.len() < count && row < base {
        let len = base - row;
        for k in 0..len.min(count - out.len()) {
            let px = x + (k as f64 - 0.5 * (len - 1) as f64) * pitch;
            out.push(Body::cuboid(
                DVec3::splat(BOX),
                DVec3::new(px, y, (row as f64 + 0.5) * BOX),
                false,
            )?);
        }
        row += 1;
    }
    Ok(out)
}

/// The demonstration scene: the ground, a tower of 10 boxes at x = −6 and a pyramid of 20
/// (rows 6, 5, 4, 3, 2) at x = 4. `tower` and `pyramid` index `world.bodies`.
pub struct Scene {
    pub world: World,
    pub tower: std::ops::Range<usize>,
    pub pyramid: std::ops::Range<usize>,
}

pub fn scene() -> Result<Scene, PolycdError> {
    let mut bodies = vec![ground()?];
    let t0 = bodies.len();
    bodies.extend(tower(10, -6.0, 0.0)?);
    let p0 = bodies.len();
    bodies.extend(pyramid(20, 6, 4.0, 0.0)?);
    let end = bodies.len();
    Ok(Scene {
        world: World::new(bodies),
        tower: t0..p0,
        pyramid: p0..end,
    })
}
