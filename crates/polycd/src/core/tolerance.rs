//! Every numerical tolerance polycd uses, in one place.
//!
//! Each tolerance is *relative*: it is multiplied by a length scale of the shapes involved
//! (a polyhedron's [`scale`](crate::shape::polyhedron::ConvexPolyhedron::scale), or a pair's scale: the sum of
//! both shapes' scales plus the distance between their reference points, because the error of
//! a coordinate after a pose is applied grows with the translation too). Combinatorial
//! decisions in the hull use exact predicates and need no tolerance at all.

/// Largest accepted coordinate magnitude. Shapes and queries work over the whole range below
/// it, down to the smallest (subnormal) floats: computations whose products of coordinates
/// would overflow or underflow are done on coordinates scaled by a power of two
/// ([`SAFE_MAGNITUDE_MAX`]). The bound keeps what is still computed on the raw coordinates
/// finite: squared lengths of differences (3·(2·1e150)² < f64::MAX: the pair scale, bounding
/// spheres, the broad phase's boxes, `verify`). A shape's volume beyond f64::MAX is +∞.
pub const MAX_COORDINATE: f64 = 1e150;

/// Coordinates whose largest magnitude (of a shape, or of a pair with its translations) lies
/// outside `[SAFE_MAGNITUDE_MIN, SAFE_MAGNITUDE_MAX]` are first scaled by a power of two into
/// it (`math::pow2_normaliser`): exactly, so every answer is the answer at the scaled size
/// multiplied back, exactly. Inside the band the arithmetic is untouched. The bound: products
/// of up to four coordinates (a squared cross product, a Gram determinant) stay far from
/// overflow (2^512) and from the subnormals (2^-512), with room for the algorithms' own
/// ratios of lengths; `tests/scale.rs` checks every algorithm at both ends of the band.
pub const SAFE_MAGNITUDE_MAX: f64 = 1.329_227_995_784_916e36; // 2^120
/// Lower end of the safe band (see [`SAFE_MAGNITUDE_MAX`]).
pub const SAFE_MAGNITUDE_MIN: f64 = 7.523_163_845_262_64e-37; // 2^-120

/// A quaternion whose squared length is within this of 1 is used as a rotation as it is, not
/// renormalised: dividing by a square root within a few ulps of 1 would only move it by
/// rounding, and the matrix it gives is orthogonal to ~1e-15 either way. Input poses pass
/// within [`UNIT_QUAT_SLACK`]`/4` unchanged (`query::checked_pose`); the relative rotation
/// of two such poses is one product of them and lands within the full slack.
pub const UNIT_QUAT_SLACK: f64 = 16.0 * f64::EPSILON;

/// Smallest accepted coordinate magnitude of a *shape extent* relative to its position: a
/// point set thinner than this fraction of its diameter is rejected as flat. Below it, face
/// normals computed in floating point have no correct digits left.
pub const FLATNESS_REL: f64 = 1e-10;

/// A facet joins a merged polygonal face only if every vertex of the merged face lies within
/// this fraction of the shape's scale from the face plane. 64 ulps of the scale: it absorbs
/// the rounding of rotated or scaled input (a rotated cube still has 6 faces) and nothing more,
/// so a curved surface sampled at any density can never chain into one face.
pub const COPLANAR_REL: f64 = 64.0 * f64::EPSILON;

/// Tolerance used when *validating* a polyhedron given by faces: planarity and convexity are
/// checked up to this fraction of the scale. Looser than [`COPLANAR_REL`] because input files
/// are written with limited decimal precision.
pub const VALIDATION_REL: f64 = 1e-9;

/// A mesh file's faces, each on the boundary of the convex hull of its vertices and closed
/// into a surface that winds once around it, are that boundary when their total area agrees
/// with the hull's to this fraction (`io::hull_boundary_defect`). Such a surface covers the
/// boundary at least once, so any excess is a fold or overlap; the vertices may each sit
/// [`VALIDATION_REL`] × scale off their plane (decimal rounding of files), which moves the
/// area by a few times that fraction, far below this bound.
pub const HULL_AREA_REL: f64 = 1e-6;

/// Two shapes whose signed distance lies within this fraction of the pair's scale of zero are
/// reported as *touching*. Applying a pose alone rounds coordinates by a few ulps of the pair
/// scale, so contact cannot be resolved more finely than this from floating-point input.
pub const CONTACT_REL: f64 = 1e-14;

/// Relative gap at which iterative distance algorithms (GJK, the fast QP) stop: the upper and
/// lower bounds on the distance agree to this fraction of the pair's scale. Well below the
/// 1e-12 agreement the test suites demand.
pub const DISTANCE_GAP_REL: f64 = 1e-14;

/// Agreement demanded between two distance algorithms in the differential tests, as a
/// fraction of the pair's scale.
pub const AGREEMENT_REL: f64 = 1e-12;

/// A witness point within this fraction of its shape's scale of a lower-dimensional feature
/// (vertex, then edge) is labelled with that feature when the feature has to be found from
/// the point alone. Between the rounding of a computed boundary point (a few ulps) and the
/// 1e-12 agreement `verify` allows, so the label always verifies.
pub const FEATURE_SNAP_REL: f64 = 1e-13;

/// Below this fraction of the pair's scale, a separating plane whose normal comes from the
/// closest-point vector (rather than from a face or two crossing edges) is checked against the
/// shapes' supports before it is returned. That vector's direction carries an error of about
/// ulp(coordinates) / distance, which tilts the plane across the whole shape; above 1e-6 the
/// tilt stays orders of magnitude below the distance (so the plane separates), below it the
/// check replaces the plane by the best face or edge-pair normal around the closest features.
pub const PLANE_CHECK_REL: f64 = 1e-6;

/// Barycentric weights (which sum to 1) no more negative than this are rounding: Wolfe's
/// algorithm may then take the affine minimiser of its corral as a tie (fast QP, module docs)
/// instead of stalling. 64 ulps of 1 — weights of points far from a nearest point near the
/// origin come out of cross products of O(size) vectors, accurate to a few ulps.
pub const WEIGHT_TIE: f64 = 64.0 * f64::EPSILON;

/// A directional answer whose contact normal makes `|n·s|` at most this with the (unit)
/// direction `s` lies on a face parallel to `s`: the line grazes it (one shape slides along
/// the other) and `t = k / (n·s)` is rounding noise. A thousand ulps: exact parallelism
/// computed through rotated coordinates, nothing a genuine crossing reaches at the agreement
/// the tests demand.
pub const GRAZING_COS: f64 = 1024.0 * f64::EPSILON;

/// CD-Dual stops its search at a face of `M` as soon as the ray from its interior point meets
/// that face (the paper's §3.2 characterisation of `f_opt`), but only when the meeting point
/// lies inside the face's generating features by at least this fraction of the pair's scale
/// (times `1 + 1/cos` of the ray's angle to the face normal, the amplification of the
/// rounding of the ray parameter). The computed meeting point is off by a few ulps of that
/// scale; 1 024 ulps leave ample room, and a point closer to the face's border only means the
/// search goes on and confirms the face by its whole neighbourhood, as before.
pub const RAY_HIT_REL: f64 = 1024.0 * f64::EPSILON;

/// A paired support climb (HS-jump) stops at a vertex without scanning its neighbours when
/// the direction lies in a circular cone inscribed in the vertex's normal cone
/// (`support::VertexCones`); the cone's cosine threshold is raised by this margin. The
/// threshold comes from unit edge directions whose differences are exactly rounded (relative
/// error a few ulps, whatever the edge length) and the test at query time rounds by a few ulps
/// of `|dir|`: 1e-9 exceeds both by six orders of magnitude, so an accepted direction has the
/// vertex as a strict maximiser, never a tie within rounding (the climb, started there, would
/// stop there too), and costs nothing measurable in acceptance.
pub const CONE_MARGIN: f64 = 1e-9;

/// CD-Dual's directional query projects only the silhouette along the direction `s` (unit):
/// a vertex is kept when one of its faces has `n·s ≤ SILHOUETTE_MARGIN` and one has
/// `n·s ≥ −SILHOUETTE_MARGIN` (`n` the stored unit normals). A stored normal is off its
/// face's true normal by a few ulps times the face's diameter over its width (1e-10 on a
/// needle 1e-6 thin), so every vertex whose true normal cone meets the plane normal to `s`
/// is kept; the extra vertices within the margin are a vanishing fraction and change no hull.
pub const SILHOUETTE_MARGIN: f64 = 1e-6;

/// CD-Dual's overlap certificate (a point of `M` near the ray beyond `o`, and a ball about the
/// interior point `c` inside `M`) is accepted only with this fraction of the pair's scale to
/// spare, per rounded quantity: `c`, the ray point and the point of `M` are each computed
/// through a pose (a few ulps of that scale), and the ball's radius comes from depth bounds
/// that are already lower bounds. 1 024 ulps, as for [`RAY_HIT_REL`]: far above the rounding,
/// far below any depth the certificate is meant for (a certificate refused by the margin only
/// means the search goes on).
pub const OVERLAP_CERT_REL: f64 = 1024.0 * f64::EPSILON;

/// Continuous collision detection ([`crate::ccd`]) stops conservative advancement once the
/// distance is at most this fraction of the summed shape scales (bounding radii); callers may
/// pass their own absolute threshold instead. FAST (§6) uses a fixed user threshold of 0.001
/// on models of unit size (about 1e-3 of their radius); we take it relative so that the same
/// default works at every scale, and ten times tighter. It must stay far above the rounding of
/// a distance query (a few ulps of the pair's scale, [`CONTACT_REL`]) — the advancement only
/// approaches contact geometrically, so a threshold at the rounding level would never be met —
/// and each decade below costs a few more advancement steps on oblique or rotating approaches.
pub const CCD_DISTANCE_REL: f64 = 1e-4;

/// Convex surface decomposition ([`crate::mesh`]): a piece's hull is accepted when no
/// other triangle of the mesh reaches deeper than this fraction of the mesh's scale into it.
/// The hull's planes are computed in floating point (a few ulps of the scale off), and the
/// triangles next to a patch touch the hull along shared edges and vertices, so a zero margin
/// would reject every patch; 1e-9 is far above that rounding. Consequence, documented in the
/// module: a piece may protrude from the solid by at most this much, so mesh distances can be
/// *underestimated* by at most twice this (which only makes the advancement more cautious).
pub const CCD_PIECE_REL: f64 = 1e-9;

/// Optional welding of mesh vertices ([`crate::mesh::MeshOptions::weld_tolerance`]): a vertex
/// within this fraction of the mesh's scale (half its bounding box diagonal) of an earlier one
/// is the same vertex. Meant for files whose shared corners were written with rounding (six
/// decimals, single precision: relative errors of 1e-7…1e-6 of the coordinates); far below the
/// smallest feature a real mesh models (≈ 1e-4 of its size), so distinct corners are not
/// merged. Off by default: only bit-equal vertices are welded unless the caller asks.
pub const MESH_WELD_REL: f64 = 1e-6;

/// Convex surface decomposition ([`crate::mesh`]): nearly coplanar triangles merge into one
/// piece when every vertex of the patch lies at most this fraction of the mesh's scale above
/// the plane of every triangle of the patch (an in-plane subdivision of a triangle is flat only
/// up to the rounding of its new vertices, a few ulps of the coordinates, so exact predicates
/// alone would refuse to merge it). The piece is still the exact hull of its vertices, so it may
/// leave the surface by at most this much: kept ten times below [`CCD_PIECE_REL`], the bound a
/// piece's protrusion already had, so mesh distances stay within 2·[`CCD_PIECE_REL`]·scale.
pub const COPLANAR_MERGE_REL: f64 = 1e-10;
const _: () = assert!(COPLANAR_MERGE_REL < CCD_PIECE_REL);

/// Relative area by which a piece's hull face may exceed the patch triangles lying in its
/// plane (the decomposition's in-plane convexity test). The two areas are sums of a few
/// hundred floating-point cross products (relative error ~1e-13); a patch that is not convex
/// in its plane leaves out a real region (a notch's corner), whose area is a finite fraction
/// of the face, far above 1e-9.
pub const COVER_SLACK: f64 = 1e-9;

/// Pad of a body's bounding box in the broad phase ([`crate::broad`]), as a fraction of the
/// body's scale plus its coordinate magnitude plus its largest translation component. The box
/// comes from support vertices found on rounded dot products and from rounded coordinates
/// (`row_k · v + t_k`), a few ulps of that length off the exact extent; 450 ulps cover it
/// with room. It is also at least twice [`CONTACT_REL`] of the summed lengths, so two bodies
/// the narrow phase calls *touching* (distance within the pair's contact tolerance) always
/// have overlapping boxes. Tightness costs nothing here: 1e-13 of a body's size adds no
/// candidates in practice.
pub const AABB_PAD_REL: f64 = 1e-13;

/// The broad phase's grid ([`crate::broad::SweepAndPrune`] with many boxes) makes its cell
/// side this fraction larger than the largest box it holds. The home cells of two overlapping
/// boxes are then at most one apart per axis even after the rounding of the cell coordinates
/// (a few ulps of at most 2²⁰ cells, ~1e-10 of a cell): the slack only has to exceed that.
/// It decides which pairs are tested, never the answer (every test is exact).
pub const GRID_CELL_SLACK: f64 = 1e-3;

/// A quaternion given to the broad phase's world ([`crate::broad::World::set_pose`]) must have
/// a squared length within this of 1; it is then normalised. Rounding drift of unit
/// quaternions is far smaller (one product moves the length by a few ulps; a million
/// unnormalised products stay near 1e-10), so a larger deviation is a scaled or corrupt
/// rotation, a bug of the caller that silent normalisation would hide.
pub const POSE_UNIT_SLACK: f64 = 1e-6;

/// A rotation given as a matrix (the Python bindings' 4×4 and 3×3 poses) must be orthonormal
/// with determinant +1 within this (largest entry of `RᵀR − I`, and `|det R − 1|`), the same
/// slack [`POSE_UNIT_SLACK`] gives a quaternion: a matrix rounded from float32 (errors near
/// 1e-7) passes, a scaled, sheared or reflected one is refused rather than silently
/// orthonormalised.
pub const ROTATION_MATRIX_SLACK: f64 = POSE_UNIT_SLACK;

/// When rounding stops a nearest-point iteration (GJK's `|v|`, the fast QP solver's Wolfe
/// cycle) from decreasing further, the answer is accepted only if its upper and lower distance
/// bounds agree within this fraction of the pair scale: ten times the normal stopping gap
/// ([`DISTANCE_GAP_REL`]) and still ten times below the 1e-12 agreement target. Beyond it the
/// query reports non-convergence rather than a guessed distance.
pub const ACCEPT_GAP_REL: f64 = 1e-13;

/// Cross-check between the faithful QP solver's interior-point answer and its polished
/// answer: their squared distances, in the solver's scaled units (pair scale = 1), may differ
/// by at most this. The interior-point method runs with gap tolerances of 1e-10; 1e-7 leaves
/// room for its reduced-accuracy status.
pub const IPM_AGREEMENT: f64 = 1e-7;

/// Output only (separating planes, never the iteration): two closest edges whose directions
/// satisfy `|u₁ × u₂|² > CROSSING_EDGES_SIN2 · |u₁|²|u₂|²` (angle above ~1e-3 rad) take their
/// cross product as the plane normal; below that the cross product's direction loses digits
/// and another normal is used (V-Clip's separating and touching planes).
pub const CROSSING_EDGES_SIN2: f64 = 1e-6;

/// CD-Dual's overlap witness: a point of the Minkowski difference on its optimal face is split
/// into a point of A and a point of B, each on its shape within this fraction of the pair
/// scale (`split_point`); the certified depth of the common point is lowered by as much. The
/// split solves a small linear system on the face's features, whose rounding is far below it.
pub const WITNESS_SPLIT_REL: f64 = 1e-9;

/// The correction step of a nearest point on a segment or triangle
/// (`geometry::refine_nearest`) is kept only if it does not lengthen the point by more than
/// this fraction of its squared length: the step only restores the direction lost to rounding,
/// so a longer result means the step itself was ill-conditioned.
pub const REFINE_GROWTH_REL: f64 = 1e-9;

/// A quaternion shorter than this (it is dimensionless) is refused as zero
/// (`PolycdError::ZeroQuaternion`): normalising it would turn its rounding into the rotation.
pub const ZERO_QUAT_NORM: f64 = 1e-12;

/// Validation of given faces (`ConvexPolyhedron::from_faces`, strict mode): two faces across an
/// edge whose unit normals' dot product is at least `1 − FACE_MERGE_COS` lie in one plane to
/// within the rounding of their normals (a few ulps), and must be given as one face, as the
/// hull would have merged them.
pub const FACE_MERGE_COS: f64 = 1e-15;

/// Interior depth bounds of a shape (its centroid's depth below every face plane) are scaled
/// down by this fraction, a safety factor against the rounding of the centroid and of the face
/// offsets. The bounds only tell overlaps far beyond the contact tolerance from those near it
/// (CD-Dual's certified depth), where an error of a few ulps of the scale is immaterial.
pub const DEPTH_ROUND_DOWN: f64 = 1e-9;

/// GJK's EPA seed (`blow_up`): a triangle simplex is lifted to a tetrahedron by the support on
/// the origin's side only if that side's height is at least this fraction of the other's;
/// lower, the tetrahedron is a sliver whose faces' normals have few correct digits, and the
/// taller side is taken. A conditioning choice, not a correctness tolerance: both choices are
/// valid seeds.
pub const SLIVER_HEIGHT_RATIO: f64 = 1e-3;

/// HS-jump's interior direction of a two-edge spherical polygon: the sum of the two unit
/// vertex directions is used when longer than this (the vertices are at most ~179.99° apart);
/// shorter, they are nearly antipodal and a cross-product bisector, better conditioned, is
/// used. A conditioning choice; the direction is verified afterwards.
pub const ANTIPODAL_SUM_MIN: f64 = 1e-4;

/// `query::contact_tolerance_bound` over-estimates [`CONTACT_REL`] times the pair scale
/// from absolute coordinates, without rotations or square roots; this relative slack covers
/// the rounding of those sums (a few ulps), so it stays an upper bound.
pub const BOUND_SLACK_REL: f64 = 1e-9;

/// `verify` accepts a plane normal whose length is within this of 1: normals are normalised
/// by the algorithms (a few ulps off); a larger deviation is a malformed answer.
pub const UNIT_NORMAL_SLACK: f64 = 1e-9;

/// The inscribed cone of a vertex's edge directions (`support::inscribed_cone`, a start hint
/// for hill-climbing): its small linear systems are skipped when their determinant is below
/// this, and a candidate satisfies a constraint `x·eᵢ ≥ 1` within it. The edge directions are
/// unit vectors, so this is a conditioning bound on unit-scale quantities; the cone is then
/// shrunk by [`CONE_MARGIN`], which covers the error it allows.
pub const CONE_SOLVE_EPS: f64 = 1e-12;

/// A distance answer of the convex program (QP, fast QP) within this fraction of the pair's
/// scale of contact is measured again by GJK, whose answer decides *touching*: the program's
/// optimum on slender shapes (needles and slabs of aspect 10⁵–10⁶) carries errors of a few
/// times the contact band (5e-13 on a pair of scale 20 whose exact distance is 6e-17, where
/// the band is 2e-13), and on two nearly coplanar triangles touching (tilts e^-16…e^-20:
/// slabs of aspect 10⁷–10⁹) up to 7.5e-9 of the scale (`polycd differential --families flat`,
/// seed 23: 7.5e-5 on a pair of scale 1e4 whose exact distance is −1.5e-12). Ten times that,
/// still far below any distance a caller would call contact; only answers this close to
/// contact pay for the check.
pub const QP_CHECK_REL: f64 = 1e-7;

/// GJK's ray cast takes van den Bergen's step `−v·w / v·r` only when `v·r` is negative by
/// more than this many times its rounding bound (`4 ε |v| |r|₁`): the step's relative error is
/// then at most an eighth, the step lands on the support plane as in exact arithmetic, and the
/// sliding rays whose `v·r` is noise take the conservative step instead (`gjk::ray_cast`).
pub const RAY_STEP_CERTAIN: f64 = 8.0;

/// The directional query on rounded shapes (`query::rounded`) advances B along the line by
/// conservative steps on the cores' distance and stops once the rounded shapes' gap is within
/// this fraction of the pair's scale: the answer is then *touching* by [`CONTACT_REL`]'s
/// measure (the gap is measured by GJK to [`DISTANCE_GAP_REL`]).
pub const ROUNDED_GAP_REL: f64 = CONTACT_REL;

/// Iteration bound of that advancement (per end of the chord). A hit across a smooth part of
/// the rounded difference converges quadratically (each step is Newton's on the tangent
/// plane), a flat face in one step; only a line grazing the surface within rounding
/// converges slowly, and is reported as not converged at the bound.
pub const ROUNDED_MAX_STEPS: u32 = 64;

/// Two edge directions whose normalised cross product is shorter than this are parallel for
/// the normal of a rounded edge–edge answer (the closest-point difference is used instead).
pub const ROUNDED_EDGE_SIN: f64 = 1e-6;

/// Golden-section steps of the touching point/segment cores' distance (`query/rounded.rs`,
/// `line_cores_touching`): each shrinks the bracket on A's segment by 0.618, so 80 steps take
/// it from 1 to 2e-17 — below one ulp of the parameter, where the bracket stops shrinking
/// and the search stops early. A step bound, not a tolerance.
pub const ROUNDED_LINE_STEPS: usize = 80;

const _: () = assert!(ROUNDED_GAP_REL <= CONTACT_REL && DISTANCE_GAP_REL <= ROUNDED_GAP_REL);

/// A ray cast (`query::ray_cast`) calls a ray a miss without exact predicates only when it
/// misses the shape's face half-spaces pushed outward by this fraction of the length scale
/// (shape radius + coordinate magnitude + the origin's distance from the shape): stored face
/// normals are a few ulps times a face's diameter over its width off (1e-10 on a needle 1e-6
/// thin, see [`SILHOUETTE_MARGIN`]), and the slab parameters round by a few ulps of that scale,
/// both far below 1e-9. Rays within the margin are decided by exact `orient3d` signs; the
/// margin only decides which path answers, never the answer.
pub const RAY_MISS_REL: f64 = 1e-9;

const _: () = assert!(4.0 * CONTACT_REL <= AABB_PAD_REL);
const _: () = assert!(CONTACT_REL < QP_CHECK_REL);
const _: () = assert!(CONE_SOLVE_EPS < CONE_MARGIN);
const _: () = assert!(DISTANCE_GAP_REL < ACCEPT_GAP_REL && ACCEPT_GAP_REL < AGREEMENT_REL);
const _: () = assert!(UNIT_QUAT_SLACK < POSE_UNIT_SLACK);
const _: () = assert!(CONTACT_REL < CCD_DISTANCE_REL);
const _: () = assert!(2.0 * CCD_PIECE_REL < CCD_DISTANCE_REL);
const _: () = assert!(COPLANAR_REL < VALIDATION_REL);
const _: () = assert!(COPLANAR_REL < RAY_HIT_REL);
const _: () = assert!(FEATURE_SNAP_REL < AGREEMENT_REL);
const _: () = assert!(CONTACT_REL < AGREEMENT_REL);
const _: () = assert!(DISTANCE_GAP_REL <= CONTACT_REL);

/// Contact manifolds (`query::contact_manifold`): a face of one shape is a *contact face* —
/// the manifold is clipped on it rather than reduced to one point — when its separating-axis
/// separation (how far the other shape lies above its plane) is within this fraction of the
/// pair scale of the pair's signed distance. For a true face contact the two are equal up to
/// the rounding of the distance (GJK/EPA, relative errors near 1e-14); for two crossing edges
/// or a vertex on an edge every face's separation is smaller by the face's tilt times its
/// size, far beyond it unless the face is parallel to the contact to within ~1e-9 rad per
/// unit of size — and then the clip still finds the crossing point (it is a clip point of the
/// reference face's border), with the other points' own separations.
pub const MANIFOLD_FACE_REL: f64 = 1e-9;

/// Contact manifolds: when both shapes have a contact face, the reference face is the better
/// aligned with the contact normal, A's on a tie; cosines within this are a tie. It covers
/// the rounding of two unit normals' dot product (a few ulps), so two faces resting flat on
/// each other — or jittered by rotations of 1e-9 rad, which change the cosines by 1e-18 —
/// always pick A's face and keep their points' feature ids from frame to frame.
pub const MANIFOLD_TIE_COS: f64 = 64.0 * f64::EPSILON;

/// Contact manifolds: a clip point whose distance outside a reference face's side plane is
/// at most this fraction of the pair scale counts as on it (kept, not cut), so an incident
/// vertex lying on the reference face's border (a box on an equal box) is kept as one point
/// instead of two points a rounding error apart; it is the rounding of the side plane's
/// evaluation (products of pair-scale coordinates), far below the 1e-12 × scale agreement
/// the manifold oracle asks.
pub const MANIFOLD_CLIP_REL: f64 = 1e-14;

/// Contact manifolds: two segments (capsule cores) whose directions differ by at most this
/// sine, and whose contact normal is within it of perpendicular to them, lie along each other:
/// their contact is the common stretch's two ends rather than one closest-point pair. Over a
/// segment of length `L` their distance varies by at most this × `L` — the scale of the
/// face-contact test ([`MANIFOLD_FACE_REL`]) — so both ends are contact points to the same
/// accuracy as a face contact's.
pub const MANIFOLD_PARALLEL_SIN: f64 = 1e-9;

/// Two piece pairs' contact manifolds of a mesh pair are merged into one when their unit
/// normals' dot product is at least this (within ~4.5e-5 rad). Piece pairs touching on one
/// flat contact region (a box on a mesh's decomposed face) give normals equal up to the
/// rounding of their distance computations (~1e-12); distinct contact regions of a non-convex
/// pair differ by finite angles.
pub const MANIFOLD_MERGE_COS: f64 = 1.0 - 1e-9;

/// Contact manifolds: the separating-axis depth of two small polytopes (the fast path before
/// GJK/EPA) is used only when every candidate axis shows them overlapping by more than this
/// fraction of the pair scale. Shallower overlaps, touching and near-touching pairs are
/// measured by GJK/EPA, whose touching/overlap decision (at the contact tolerance, 1e-14) is
/// the reference near contact; the margin of 1e5 contact tolerances leaves every such pair to
/// it whatever the rounding of the face and edge separations (~1e-16 × scale).
pub const MANIFOLD_SAT_DEPTH_REL: f64 = 1e-9;

/// Contact manifolds: a crossing edge pair of the separating-axis depth whose directions make
/// a sine below this hands the pair to GJK/EPA. The pair's axis is the normalised cross
/// product of the edges; its rounding (~1e-16) divided by the sine is the axis's direction
/// error, and that times the scale the separation's error: below 1e-12 × scale (the manifold
/// oracle's agreement) for sines of at least 1e-4.
pub const MANIFOLD_SAT_EDGE_SIN: f64 = 1e-4;

/// Shapes: a polytope is read as a parallelepiped (`shape::parallelepiped`, extents from a
/// centre and three half-edge vectors) when every vertex equals its sign pattern's corner
/// within this fraction of the shape's magnitude: a few ulps of the coordinates, so the
/// table's extents are the vertices' own to ~1e-15 × magnitude (the manifold's answers agree
/// with the oracle to 1e-12 × scale), while any shape off a parallelepiped by more is read
/// through its vertices as before.
pub const PARALLELEPIPED_FIT_REL: f64 = 16.0 * f64::EPSILON;

/// Contact features at the time of contact ([`crate::ccd::contact_features`]): a closest
/// point within this fraction of the pair's summed scales of a vertex (or of an edge) is
/// named by that vertex (edge) rather than by the edge (face) it lies on. The closest points
/// of a vertex–face or edge–edge pair are computed to a few ulps of the scale; 2²⁰ ulps keeps
/// the naming stable under that rounding (the same feature pair found through its vertex–face
/// and its edge–edge test gets one name, so it is reported once) while a real feature is
/// never smaller than this fraction of a shape on any input the hull accepts.
pub const CONTACT_FEATURE_SNAP_REL: f64 = 1048576.0 * f64::EPSILON;

/// The floor on a pair's contact tolerance bound below which `Auto`'s direct closed forms
/// (query/closed.rs: spheres, capsules and points against small solids, answered without
/// rescaling into the safe band) hand the pair to the checked path: `CONTACT_REL` × 1e-100.
/// Above it the pair's largest coordinate is at least ~1e-101, so a core distance beyond
/// the bound has a squared length of at least ~1e-230 — a normal number, with no underflow
/// in any of the closed forms' products. A range guard, not an agreement tolerance.
pub const DIRECT_MIN_BOUND: f64 = 1e-114;

/// Mesh decomposition (`mesh::decompose`): relative rounding allowance of the ball culling of
/// triangle runs — far above the few ulps of a dot product, so a culled run holds no triangle
/// the direct coplanarity test would find coplanar. A culling margin: it can only make the
/// culling keep more, never change an answer.
pub const BALL_ROUNDING: f64 = 1e-12;

/// Mesh decomposition: relative rounding allowance of the box test that skips a node lying
/// wholly above a plane — far above the few ulps of the dot products it bounds, so a skipped
/// box holds no triangle corner the per-triangle test would keep. A culling margin, as
/// [`BALL_ROUNDING`].
pub const BOX_ROUNDING: f64 = 1e-14;
