//! Shape generators for tests, demos and benchmarks, and the built-in shape specifications
//! the CLI and batch format accept (`box:1,2,3`, `icosphere:3`, `ellipsoid:200,100,100:1000:7`…).

use crate::core::error::PolycdError;
use crate::core::math::DVec3;
use crate::shape::polyhedron::ConvexPolyhedron;
#[cfg(any(test, feature = "generators"))]
use rand::{Rng, SeedableRng};
#[cfg(any(test, feature = "generators"))]
use rand_chacha::ChaCha8Rng;

/// A box with the given side lengths, centred at the origin.
pub fn cuboid(x: f64, y: f64, z: f64) -> Result<ConvexPolyhedron, PolycdError> {
    let h = DVec3::new(x, y, z) * 0.5;
    let mut pts = Vec::with_capacity(8);
    for i in 0..8 {
        pts.push(DVec3::new(
            if i & 1 == 0 { -h.x } else { h.x },
            if i & 2 == 0 { -h.y } else { h.y },
            if i & 4 == 0 { -h.z } else { h.z },
        ));
    }
    ConvexPolyhedron::from_points(&pts)
}

/// Regular tetrahedron with circumradius `r`.
pub fn tetrahedron(r: f64) -> Result<ConvexPolyhedron, PolycdError> {
    let s = r / 3f64.sqrt();
    let pts = [
        DVec3::new(1.0, 1.0, 1.0),
        DVec3::new(1.0, -1.0, -1.0),
        DVec3::new(-1.0, 1.0, -1.0),
        DVec3::new(-1.0, -1.0, 1.0),
    ];
    ConvexPolyhedron::from_points(&pts.map(|p| p * s))
}

/// Regular octahedron with circumradius `r`.
pub fn octahedron(r: f64) -> Result<ConvexPolyhedron, PolycdError> {
    let pts = [DVec3::X, -DVec3::X, DVec3::Y, -DVec3::Y, DVec3::Z, -DVec3::Z];
    ConvexPolyhedron::from_points(&pts.map(|p| p * r))
}

fn icosahedron_points() -> Vec<DVec3> {
    let phi = (1.0 + 5f64.sqrt()) / 2.0;
    let mut pts = Vec::with_capacity(12);
    for &a in &[-1.0, 1.0] {
        for &b in &[-phi, phi] {
            pts.push(DVec3::new(0.0, a, b));
            pts.push(DVec3::new(a, b, 0.0));
            pts.push(DVec3::new(b, 0.0, a));
        }
    }
    pts.into_iter().map(|p| p.normalize()).collect()
}

/// Regular icosahedron with circumradius `r`.
pub fn icosahedron(r: f64) -> Result<ConvexPolyhedron, PolycdError> {
    let pts: Vec<DVec3> = icosahedron_points().into_iter().map(|p| p * r).collect();
    ConvexPolyhedron::from_points(&pts)
}

/// Icosphere: the icosahedron subdivided `k` times, vertices projected on the sphere of
/// radius `r` (10·4^k + 2 vertices).
pub fn icosphere(k: u32, r: f64) -> Result<ConvexPolyhedron, PolycdError> {
    if k > 7 {
        return Err(PolycdError::ShapeSpec {
            spec: format!("icosphere:{k}"),
            message: "subdivision level above 7 (163 842 vertices) is not supported".into(),
        });
    }
    let base = ConvexPolyhedron::from_points(&icosahedron_points())?;
    let mut pts: Vec<DVec3> = base.vertices().to_vec();
    let mut tris: Vec<[u32; 3]> = (0..base.faces().len() as u32)
        .map(|f| {
            let v = base.face_vertices(f);
            [v[0], v[1], v[2]]
        })
        .collect();
    for _ in 0..k {
        let mut mid = std::collections::HashMap::new();
        let mut next = Vec::with_capacity(tris.len() * 4);
        let mut midpoint = |a: u32, b: u32, pts: &mut Vec<DVec3>| -> u32 {
            let key = (a.min(b), a.max(b));
            *mid.entry(key).or_insert_with(|| {
                pts.push(((pts[a as usize] + pts[b as usize]) * 0.5).normalize());
                (pts.len() - 1) as u32
            })
        };
        for t in &tris {
            let ab = midpoint(t[0], t[1], &mut pts);
            let bc = midpoint(t[1], t[2], &mut pts);
            let ca = midpoint(t[2], t[0], &mut pts);
            next.push([t[0], ab, ca]);
            next.push([t[1], bc, ab]);
            next.push([t[2], ca, bc]);
            next.push([ab, bc, ca]);
        }
        tris = next;
    }
    let pts: Vec<DVec3> = pts.into_iter().map(|p| p * r).collect();
    ConvexPolyhedron::from_points(&pts)
}

/// Right prism over a regular `n`-gon of circumradius `r`, height `h`, axis z. The V-Clip
/// paper's "disk" is `prism(60, 10.0, 1.0)`; a cylinder approximation is a prism.
pub fn prism(n: u32, r: f64, h: f64) -> Result<ConvexPolyhedron, PolycdError> {
    if n < 3 {
        return Err(PolycdError::TooFewPoints { found: 2 * n as usize });
    }
    let mut pts = Vec::with_capacity(2 * n as usize);
    for i in 0..n {
        let t = std::f64::consts::TAU * i as f64 / n as f64;
        let (s, c) = t.sin_cos();
        pts.push(DVec3::new(r * c, r * s, -0.5 * h));
        pts.push(DVec3::new(r * c, r * s, 0.5 * h));
    }
    ConvexPolyhedron::from_points(&pts)
}

/// Cone over a regular `n`-gon of circumradius `r`, apex at height `h` above the base
/// (centred on the base's centre).
pub fn cone(n: u32, r: f64, h: f64) -> Result<ConvexPolyhedron, PolycdError> {
    if n < 3 {
        return Err(PolycdError::TooFewPoints { found: n as usize + 1 });
    }
    let mut pts = Vec::with_capacity(n as usize + 1);
    for i in 0..n {
        let t = std::f64::consts::TAU * i as f64 / n as f64;
        let (s, c) = t.sin_cos();
        pts.push(DVec3::new(r * c, r * s, -0.5 * h));
    }
    pts.push(DVec3::new(0.0, 0.0, 0.5 * h));
    ConvexPolyhedron::from_points(&pts)
}

/// A closed tube around the `(p, q)` torus knot, as a triangle mesh (FAST §6's torus knots,
/// non-convex). The knot's centre line is `((R + r·cos qφ)·cos pφ, (R + r·cos qφ)·sin pφ,
/// r·sin qφ)` with `R = 2`, `r = 1`, `φ ∈ [0, 2π)`; `segments` rings of `sides` vertices at
/// radius `tube` around it (frame: the tangent and `tangent × z`, which is never degenerate
/// because the centre line never runs along z). `2·segments·sides` triangles: the paper's
/// 2 880 and 11 520 are `(120, 12)` and `(480, 12)`. `p` and `q` must be coprime for a knot;
/// `tube` must stay below the centre line's self-distance (0.4 is safe for (2, 3)) or the
/// surface self-intersects. Returns vertices and triangles ([`crate::mesh::TriMesh::new`]
/// builds the solid).
pub fn torus_knot(
    p: u32,
    q: u32,
    segments: u32,
    sides: u32,
    tube: f64,
) -> Result<(Vec<DVec3>, Vec<Vec<u32>>), PolycdError> {
    if p == 0 || q == 0 || segments < 3 || sides < 3 || !(tube.is_finite() && tube > 0.0) {
        return Err(PolycdError::ShapeSpec {
            spec: format!("torus-knot:{p},{q}:{segments},{sides}:{tube}"),
            message: "p, q ≥ 1, segments and sides ≥ 3, tube a positive finite radius".to_string(),
        });
    }
    if segments as u64 * sides as u64 > 10_000_000 {
        return Err(PolycdError::ShapeSpec {
            spec: format!("torus-knot:{p},{q}:{segments},{sides}:{tube}"),
            message: "at most 10 000 000 vertices".to_string(),
        });
    }
    let (pf, qf) = (p as f64, q as f64);
    let centre = |phi: f64| {
        let rr = 2.0 + (qf * phi).cos();
        DVec3::new(rr * (pf * phi).cos(), rr * (pf * phi).sin(), (qf * phi).sin())
    };
    let tangent = |phi: f64| {
        let (sq, cq) = (qf * phi).sin_cos();
        let (sp, cp) = (pf * phi).sin_cos();
        let rr = 2.0 + cq;
        DVec3::new(-qf * sq * cp - rr * pf * sp, -qf * sq * sp + rr * pf * cp, qf * cq).normalize()
    };
    let mut vertices = Vec::with_capacity((segments * sides) as usize);
    for i in 0..segments {
        let phi = std::f64::consts::TAU * i as f64 / segments as f64;
        let c = centre(phi);
        let t = tangent(phi);
        let b = t.cross(DVec3::Z).normalize();
        let n = b.cross(t);
        for j in 0..sides {
            let a = std::f64::consts::TAU * j as f64 / sides as f64;
            let (s, co) = a.sin_cos();
            vertices.push(c + (n * co + b * s) * tube);
        }
    }
    let mut faces = Vec::with_capacity(2 * (segments * sides) as usize);
    for i in 0..segments {
        let i1 = (i + 1) % segments;
        for j in 0..sides {
            let j1 = (j + 1) % sides;
            let v = |a: u32, b: u32| a * sides + b;
            faces.push(vec![v(i, j), v(i1, j), v(i1, j1)]);
            faces.push(vec![v(i, j), v(i1, j1), v(i, j1)]);
        }
    }
    Ok((vertices, faces))
}

/// Splits every triangle of `faces` into `n²` in its plane (FAST §6's finer bunnies: `n = 3`
/// gives 1:9, `n = 4` 1:16): each edge into `n` equal parts, each triangle into the grid of
/// its barycentric points `(n − a − b, a, b)/n`. An edge's points are shared by its two
/// triangles, so a closed mesh stays closed, and the surface (hence the volume) is unchanged.
/// The output keeps `vertices` first, in order, then each edge's points (created at the
/// edge's first triangle, from its lower index to its higher) and each triangle's interior
/// points, in face order; triangles come face by face, each oriented as its face.
///
/// Errors ([`PolycdError::ShapeSpec`]): `n` outside `1..=64`, a face that is not a triangle
/// or names a vertex that does not exist, or more than 2³¹ output triangles or vertices.
pub fn subdivide(vertices: &[DVec3], faces: &[Vec<u32>], n: u32) -> Result<(Vec<DVec3>, Vec<Vec<u32>>), PolycdError> {
    let fail = |message: String| PolycdError::ShapeSpec {
        spec: format!("subdivide:{n}"),
        message,
    };
    if !(1..=64).contains(&n) {
        return Err(fail("n must be in 1..=64".to_string()));
    }
    if let Some(k) = faces
        .iter()
        .position(|t| t.len() != 3 || t.iter().any(|&i| i as usize >= vertices.len()))
    {
        return Err(fail(format!("face {k} is not a triangle of existing vertices")));
    }
    let nn = u64::from(n) * u64::from(n);
    // Each triangle adds at most (n + 1)(n + 2)/2 points (fewer: its corners and shared
    // edge points are counted once), each face n² triangles.
    let points = vertices.len() as u64 + faces.len() as u64 * (nn + 3 * u64::from(n));
    if faces.len() as u64 * nn > 1 << 31 || points > 1 << 31 {
        return Err(fail("more than 2^31 output triangles or vertices".to_string()));
    }
    let mut v = vertices.to_vec();
    // The points of edge (lo, hi), lo < hi, from lo to hi (ends excluded).
    let mut edge_points: std::collections::HashMap<(u32, u32), Vec<u32>> =
        std::collections::HashMap::with_capacity(faces.len() * 2);
    let mut out = Vec::with_capacity(faces.len() * nn as usize);
    let mut grid = vec![0u32; ((n + 1) * (n + 1)) as usize];
    for t in faces {
        let c = [t[0], t[1], t[2]];
        let p = c.map(|i| v[i as usize]);
        // grid[a·(n + 1) + b]: the point with weights (n − a − b, a, b)/n on (p0, p1, p2).
        for a in 0..=n {
            for b in 0..=(n - a) {
                let w0 = n - a - b;
                let id = if a == 0 && b == 0 {
                    c[0]
                } else if a == n {
                    c[1]
                } else if b == n {
                    c[2]
                } else {
                    // On an edge when one weight is 0: the edge's shared points, `k` steps
                    // from its first corner.
                    let on = if b == 0 {
                        Some((c[0], c[1], a))
                    } else if a == 0 {
                        Some((c[0], c[2], b))
                    } else if w0 == 0 {
                        Some((c[1], c[2], b))
                    } else {
                        None
                    };
                    match on {
                        Some((i, j, k)) => {
                            let (lo, hi) = (i.min(j), i.max(j));
                            let pts = edge_points.entry((lo, hi)).or_insert_with(|| {
                                (1..n)
                                    .map(|s| {
                                        let x = f64::from(s) / f64::from(n);
                                        v.push(v[lo as usize] * (1.0 - x) + v[hi as usize] * x);
                                        (v.len() - 1) as u32
                                    })
                                    .collect()
                            });
                            let s = if i == lo { k } else { n - k };
                            pts[(s - 1) as usize]
                        }
                        None => {
                            v.push((p[0] * f64::from(w0) + p[1] * f64::from(a) + p[2] * f64::from(b)) / f64::from(n));
                            (v.len() - 1) as u32
                        }
                    }
                };
                grid[(a * (n + 1) + b) as usize] = id;
            }
        }
        let g = |a: u32, b: u32| grid[(a * (n + 1) + b) as usize];
        for a in 0..n {
            for b in 0..(n - a) {
                out.push(vec![g(a, b), g(a + 1, b), g(a, b + 1)]);
                if a + b + 1 < n {
                    out.push(vec![g(a + 1, b), g(a + 1, b + 1), g(a, b + 1)]);
                }
            }
        }
    }
    Ok((v, out))
}

#[cfg(any(test, feature = "generators"))]
/// FAST Fig. 5's random motions of a body across a copy of itself standing at the identity:
/// `n` pairs of start and end poses `(q₀, q₁)` of the moving copy, whose `centre` (the
/// body's centroid, of body size `scale`) goes in a straight line from 3 sizes before the
/// fixed copy's centre to 3 sizes past it, along a random direction, offset by up to 0.6
/// sizes per axis; the first `translate_only` motions keep their random orientation, the
/// others turn by π/3 about Y after π/3 about X. Seeded (ChaCha8): the workload of `bench
/// ccd-bunny` and `examples/ccd_profile.rs --bunny`.
pub fn crossing_poses(
    centre: DVec3,
    scale: f64,
    n: usize,
    translate_only: usize,
    seed: u64,
) -> Vec<(crate::core::math::Pose, crate::core::math::Pose)> {
    use crate::core::math::{DQuat, Pose};
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let turn =
        DQuat::from_rotation_y(std::f64::consts::FRAC_PI_3) * DQuat::from_rotation_x(std::f64::consts::FRAC_PI_3);
    (0..n)
        .map(|k| {
            let dir = unit_vector(&mut rng);
            let off = DVec3::new(
                rng.random_range(-0.6..0.6),
                rng.random_range(-0.6..0.6),
                rng.random_range(-0.6..0.6),
            ) * scale;
            let r0 = random_rotation(&mut rng);
            let r1 = if k < translate_only { r0 } else { turn * r0 };
            (
                Pose::new(r0, centre + dir * (-3.0 * scale) + off - r0 * centre),
                Pose::new(r1, centre + dir * (3.0 * scale) + off - r1 * centre),
            )
        })
        .collect()
}

#[cfg(any(test, feature = "generators"))]
/// `n` seeded random points on the ellipsoid with semi-axes `(a, b, c)` (uniform directions
/// scaled by the axes, as in the CD-Dual and HS-jump experiments).
pub fn ellipsoid_points(n: usize, a: f64, b: f64, c: f64, seed: u64) -> Vec<DVec3> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let u = unit_vector(&mut rng);
            DVec3::new(u.x * a, u.y * b, u.z * c)
        })
        .collect()
}

#[cfg(any(test, feature = "generators"))]
/// The convex hull of [`ellipsoid_points`].
pub fn ellipsoid(n: usize, a: f64, b: f64, c: f64, seed: u64) -> Result<ConvexPolyhedron, PolycdError> {
    ConvexPolyhedron::from_points(&ellipsoid_points(n, a, b, c, seed))
}

#[cfg(any(test, feature = "generators"))]
/// A uniformly distributed unit vector.
pub fn unit_vector<R: Rng>(rng: &mut R) -> DVec3 {
    loop {
        let v = DVec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        let l2 = v.length_squared();
        if l2 > 1e-6 && l2 <= 1.0 {
            return v / l2.sqrt();
        }
    }
}

#[cfg(any(test, feature = "generators"))]
/// A uniformly distributed rotation.
pub fn random_rotation<R: Rng>(rng: &mut R) -> crate::core::math::DQuat {
    loop {
        let q = glam::DVec4::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        let l2 = q.length_squared();
        if l2 > 1e-6 && l2 <= 1.0 {
            let q = q / l2.sqrt();
            return crate::core::math::DQuat::from_xyzw(q.x, q.y, q.z, q.w);
        }
    }
}

fn nums(spec: &str, part: &str) -> Result<Vec<f64>, PolycdError> {
    part.split(',')
        .map(|s| {
            let v: f64 = s.trim().parse().map_err(|_| PolycdError::ShapeSpec {
                spec: spec.to_string(),
                message: format!("'{s}' is not a number"),
            })?;
            if !v.is_finite() || v <= 0.0 {
                return Err(PolycdError::ShapeSpec {
                    spec: spec.to_string(),
                    message: format!("'{s}' must be a positive finite number"),
                });
            }
            Ok(v)
        })
        .collect()
}

/// The built-in shape names and their syntax, for help texts.
pub const SHAPE_SPECS: &str = "box:X,Y,Z (side lengths) | cube:S | tetrahedron[:R] | octahedron[:R] | \
icosahedron[:R] | icosphere:K[:R] | prism:N,R,H | disk (= prism:60,10,1) | cylinder:N,R,H | cone:N,R,H | \
ellipsoid:A,B,C:N[:SEED] | point:X,Y,Z | segment:X1,Y1,Z1,X2,Y2,Z2 | triangle:X1,Y1,Z1,X2,Y2,Z2,X3,Y3,Z3 | \
sphere:R | capsule:LENGTH,R (axis z, full length) | any of them rounded: SPEC+r=R";

/// `count` points from a parameter of `3·count` comma-separated finite numbers (any sign).
fn coords(spec: &str, p: &str, count: usize) -> Result<Vec<DVec3>, PolycdError> {
    let err = |m: String| PolycdError::ShapeSpec {
        spec: spec.to_string(),
        message: m,
    };
    let mut v = Vec::with_capacity(3 * count);
    for s in p.split(',') {
        let x: f64 = s
            .trim()
            .parse()
            .map_err(|_| err(format!("'{}' is not a number", s.trim())))?;
        if !x.is_finite() {
            return Err(err(format!("'{}' must be a finite number", s.trim())));
        }
        v.push(x);
    }
    if v.len() != 3 * count {
        return Err(err(format!(
            "expected {} comma-separated coordinates ({count} point{}), found {}",
            3 * count,
            if count == 1 { "" } else { "s" },
            v.len()
        )));
    }
    Ok(v.chunks(3).map(|c| DVec3::new(c[0], c[1], c[2])).collect())
}

/// A ball of radius `r` about the origin: a point rounded by `r`.
///
/// Needs point shapes (a one-vertex [`ConvexPolyhedron`]); where the build cannot make one,
/// the error says so.
pub fn sphere(r: f64) -> Result<ConvexPolyhedron, PolycdError> {
    ConvexPolyhedron::from_points(&[DVec3::ZERO])
        .map_err(|e| PolycdError::ShapeSpec {
            spec: format!("sphere:{r}"),
            message: format!("a sphere is a point rounded by its radius, and the point cannot be built: {e}"),
        })?
        .with_radius(r)
}

/// A capsule along z: the segment from `z = −length/2` to `z = +length/2` rounded by `r`.
///
/// Needs segment shapes (a two-vertex [`ConvexPolyhedron`]); where the build cannot make one,
/// the error says so.
pub fn capsule(length: f64, r: f64) -> Result<ConvexPolyhedron, PolycdError> {
    let h = DVec3::new(0.0, 0.0, 0.5 * length);
    ConvexPolyhedron::from_points(&[-h, h])
        .map_err(|e| PolycdError::ShapeSpec {
            spec: format!("capsule:{length},{r}"),
            message: format!("a capsule is a segment rounded by its radius, and the segment cannot be built: {e}"),
        })?
        .with_radius(r)
}

/// Parses a built-in shape specification (see [`SHAPE_SPECS`]). A suffix `+r=R` rounds the
/// shape by `R` (a finite number ≥ 0, added to the shape's own radius: `sphere:1+r=0.5` is a
/// ball of radius 1.5).
pub fn from_spec(spec: &str) -> Result<ConvexPolyhedron, PolycdError> {
    let Some((base, r)) = spec.rsplit_once("+r=") else {
        return from_base_spec(spec);
    };
    let bad = |m: String| PolycdError::ShapeSpec {
        spec: spec.to_string(),
        message: m,
    };
    let radius: f64 = r
        .trim()
        .parse()
        .map_err(|_| bad(format!("the radius after '+r=' ('{r}') is not a number")))?;
    if !(radius.is_finite() && radius >= 0.0) {
        return Err(bad(format!(
            "the radius after '+r=' ('{r}') must be a finite number ≥ 0"
        )));
    }
    let p = from_base_spec(base)?;
    let total = p.radius() + radius;
    p.with_radius(total)
}

/// [`from_spec`] without the rounding suffix.
fn from_base_spec(spec: &str) -> Result<ConvexPolyhedron, PolycdError> {
    let err = |m: &str| PolycdError::ShapeSpec {
        spec: spec.to_string(),
        message: m.to_string(),
    };
    let mut parts = spec.trim().split(':');
    let name = parts.next().unwrap_or("").to_ascii_lowercase();
    let rest: Vec<&str> = parts.collect();
    // How many ':'-separated parameters each name takes at most, and their syntax: nothing
    // beyond them is ignored.
    let (most, syntax) = match name.as_str() {
        "box" | "cuboid" => (1, "box:X,Y,Z"),
        "cube" => (1, "cube[:S]"),
        "tetrahedron" | "octahedron" | "icosahedron" => (1, "NAME[:R]"),
        "icosphere" => (2, "icosphere:K[:R]"),
        "disk" => (0, "disk"),
        "prism" | "cylinder" | "cone" => (1, "NAME:N,R,H"),
        "ellipsoid" => (3, "ellipsoid:A,B,C:N[:SEED]"),
        "sphere" => (1, "sphere:R"),
        "capsule" => (1, "capsule:LENGTH,R"),
        "point" => (1, "point:X,Y,Z"),
        "segment" => (1, "segment:X1,Y1,Z1,X2,Y2,Z2"),
        "triangle" => (1, "triangle:X1,Y1,Z1,X2,Y2,Z2,X3,Y3,Z3"),
        _ => (usize::MAX, ""),
    };
    if let Some(extra) = rest.get(most) {
        let syntax = syntax.replace("NAME", &name);
        return Err(err(&format!(
            "unexpected parameter '{extra}' (parameter {} after the name; '{name}' takes at most {most}: {syntax})",
            most + 1
        )));
    }
    // A parameter that is a single number.
    let single = |p: &str| -> Result<f64, PolycdError> {
        let v = nums(spec, p)?;
        match v[..] {
            [x] => Ok(x),
            _ => Err(err(&format!("'{p}' must be a single number, found {}", v.len()))),
        }
    };
    let one = |default: f64| -> Result<f64, PolycdError> {
        match rest.first() {
            None => Ok(default),
            Some(p) => single(p),
        }
    };
    let three = |i: usize| -> Result<Vec<f64>, PolycdError> {
        let p = rest.get(i).ok_or_else(|| err("missing parameters"))?;
        let v = nums(spec, p)?;
        if v.len() != 3 {
            return Err(err("expected three comma-separated numbers"));
        }
        Ok(v)
    };
    let count = |v: f64| -> Result<u32, PolycdError> {
        if v.fract() != 0.0 || !(3.0..=1_000_000.0).contains(&v) {
            return Err(err("the side count must be an integer between 3 and 1 000 000"));
        }
        Ok(v as u32)
    };
    match name.as_str() {
        "box" | "cuboid" => {
            let v = three(0)?;
            cuboid(v[0], v[1], v[2])
        }
        "cube" => {
            let s = one(1.0)?;
            cuboid(s, s, s)
        }
        "tetrahedron" => tetrahedron(one(1.0)?),
        "octahedron" => octahedron(one(1.0)?),
        "icosahedron" => icosahedron(one(1.0)?),
        "icosphere" => {
            let k: u32 = rest
                .first()
                .ok_or_else(|| err("missing subdivision level"))?
                .trim()
                .parse()
                .map_err(|_| err("the subdivision level must be a non-negative integer"))?;
            let r = match rest.get(1) {
                Some(p) => single(p)?,
                None => 1.0,
            };
            icosphere(k, r)
        }
        "disk" => prism(60, 10.0, 1.0),
        "sphere" => sphere(single(rest.first().ok_or_else(|| err("missing radius: sphere:R"))?)?),
        "capsule" => {
            let p = rest
                .first()
                .ok_or_else(|| err("missing parameters: capsule:LENGTH,R"))?;
            let v = nums(spec, p)?;
            if v.len() != 2 {
                return Err(err("expected two comma-separated numbers: capsule:LENGTH,R"));
            }
            capsule(v[0], v[1])
        }
        "prism" | "cylinder" => {
            let v = three(0)?;
            prism(count(v[0])?, v[1], v[2])
        }
        "cone" => {
            let v = three(0)?;
            cone(count(v[0])?, v[1], v[2])
        }
        "ellipsoid" => {
            let axes = three(0)?;
            let n: usize = rest
                .get(1)
                .ok_or_else(|| err("missing point count"))?
                .trim()
                .parse()
                .map_err(|_| err("the point count must be an integer"))?;
            if !(4..=10_000_000).contains(&n) {
                return Err(err("the point count must be between 4 and 10 000 000"));
            }
            let seed: u64 = match rest.get(2) {
                Some(s) => s
                    .trim()
                    .parse()
                    .map_err(|_| err("the seed must be a non-negative integer"))?,
                None => 0,
            };
            #[cfg(any(test, feature = "generators"))]
            return ellipsoid(n, axes[0], axes[1], axes[2], seed);
            #[cfg(not(any(test, feature = "generators")))]
            return Err(err(&format!(
                "{n} random points on {axes:?} with seed {seed}: this build of polycd has no random \
                 shape generators (the `generators` feature is off)"
            )));
        }
        // Flat shapes: the hull of the given points (a segment or triangle whose points
        // coincide or are collinear is the lower-dimensional shape they span).
        "point" | "segment" | "triangle" => {
            let n = match name.as_str() {
                "point" => 1,
                "segment" => 2,
                _ => 3,
            };
            let p = rest.first().ok_or_else(|| err("missing coordinates"))?;
            ConvexPolyhedron::from_points(&coords(spec, p, n)?)
        }
        _ => Err(err(&format!("unknown shape name; known: {SHAPE_SPECS}"))),
    }
}
