//! `"query": "manifold"` in the batch format and `polycd query --query manifold` (issue 25):
//! literal lines with hand-computed answers.

use serde_json::Value;

mod common;
use common::{batch, polycd};

fn one(line: &str) -> Value {
    let v = batch(&format!("{line}\n"));
    assert_eq!(v.len(), 1);
    v.into_iter().next().unwrap()
}

fn vec3(v: &Value) -> [f64; 3] {
    let a = v.as_array().expect("[x, y, z]");
    [a[0].as_f64().unwrap(), a[1].as_f64().unwrap(), a[2].as_f64().unwrap()]
}

/// One point: a, b, separation, feature kinds of a and b.
type Point = ([f64; 3], [f64; 3], f64, String, String);

/// The manifold's points.
fn points(ans: &Value) -> Vec<Point> {
    ans["manifold"]["points"]
        .as_array()
        .expect("manifold points")
        .iter()
        .map(|p| {
            (
                vec3(&p["a"]),
                vec3(&p["b"]),
                p["separation"].as_f64().unwrap(),
                p["features"]["a"]["kind"].as_str().unwrap().to_string(),
                p["features"]["b"]["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Counter-clockwise around `n` (every consecutive turn positive).
fn ccw(pts: &[[f64; 3]], n: [f64; 3]) -> bool {
    let k = pts.len();
    (0..k).all(|i| {
        let (p, q, r) = (pts[i], pts[(i + 1) % k], pts[(i + 2) % k]);
        let u = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
        let w = [r[0] - q[0], r[1] - q[1], r[2] - q[2]];
        let c = [
            u[1] * w[2] - u[2] * w[1],
            u[2] * w[0] - u[0] * w[2],
            u[0] * w[1] - u[1] * w[0],
        ];
        c[0] * n[0] + c[1] * n[1] + c[2] * n[2] > 0.0
    })
}

fn same_set(got: &[[f64; 3]], want: &[[f64; 3]]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for w in want {
        assert!(got.contains(w), "{w:?} missing from {got:?}");
    }
}

const BOX: &str = r#"{"shape": "box:4,4,2"}"#;

/// A 2×2×2 cube centred at (0.5, 0, 2) on the 4×4×2 box's top face (z = 1): the contact is the
/// square x ∈ [−0.5, 1.5], y ∈ [−1, 1] at z = 1 — four points, exactly, separation 0, each an
/// incident vertex of the cube on the box's top face, counter-clockwise around +z.
#[test]
fn box_on_box_gives_its_four_corners_exactly() {
    let ans = one(&format!(
        r#"{{"id": 1, "query": "manifold", "a": {BOX}, "b": {{"shape": "cube:2"}}, "pose_b": {{"translation": [0.5, 0, 2]}}}}"#
    ));
    assert_eq!(ans["status"], "touching");
    assert_eq!(vec3(&ans["manifold"]["normal"]), [0.0, 0.0, 1.0]);
    let p = points(&ans);
    let a: Vec<_> = p.iter().map(|q| q.0).collect();
    let b: Vec<_> = p.iter().map(|q| q.1).collect();
    let want = [[1.5, -1.0, 1.0], [1.5, 1.0, 1.0], [-0.5, 1.0, 1.0], [-0.5, -1.0, 1.0]];
    same_set(&a, &want);
    same_set(&b, &want);
    assert!(ccw(&a, [0.0, 0.0, 1.0]), "{a:?}");
    for q in &p {
        assert_eq!(q.2, 0.0);
        assert_eq!((q.3.as_str(), q.4.as_str()), ("face", "vertex"));
    }
    // The distance fields are today's distance answer, byte for byte.
    let dist = one(&format!(
        r#"{{"id": 1, "query": "distance", "a": {BOX}, "b": {{"shape": "cube:2"}}, "pose_b": {{"translation": [0.5, 0, 2]}}}}"#
    ));
    assert!(dist.get("manifold").is_none(), "only manifold lines carry the key");
    let mut stripped = ans.clone();
    stripped.as_object_mut().unwrap().remove("manifold");
    assert_eq!(stripped.to_string(), dist.to_string());
}

/// Apart by 0.5: no manifold without a margin (`null`, the distance fields still given); with
/// margin 1 the four speculative points, separation 0.5, B's points at z = 1.5.
#[test]
fn margin_gives_speculative_points_and_null_beyond_it() {
    let line = |margin: &str| {
        format!(
            r#"{{"query": "manifold", {margin} "a": {BOX}, "b": {{"shape": "cube:2"}}, "pose_b": {{"translation": [0.5, 0, 2.5]}}}}"#
        )
    };
    let ans = one(&line(""));
    assert_eq!(ans["status"], "disjoint");
    assert_eq!(ans["distance"], 0.5);
    assert!(ans["manifold"].is_null());
    assert!(ans.as_object().unwrap().contains_key("manifold"));
    let ans = one(&line(r#""margin": 0.25,"#));
    assert!(ans["manifold"].is_null());
    let ans = one(&line(r#""margin": 1,"#));
    let p = points(&ans);
    same_set(
        &p.iter().map(|q| q.1).collect::<Vec<_>>(),
        &[[1.5, -1.0, 1.5], [1.5, 1.0, 1.5], [-0.5, 1.0, 1.5], [-0.5, -1.0, 1.5]],
    );
    same_set(
        &p.iter().map(|q| q.0).collect::<Vec<_>>(),
        &[[1.5, -1.0, 1.0], [1.5, 1.0, 1.0], [-0.5, 1.0, 1.0], [-0.5, -1.0, 1.0]],
    );
    assert!(p.iter().all(|q| q.2 == 0.5));
}

/// A capsule (segment from (−1,0,1.5) to (1,0,1.5), radius 0.5) lying on the box: two points,
/// its ends, at z = 1 on both surfaces; a ball of radius 0.5 at (0.25, 0.5, 1.5): one point.
#[test]
fn capsule_gives_two_points_and_sphere_one() {
    let ans = one(&format!(
        r#"{{"query": "manifold", "a": {BOX}, "b": {{"vertices": [[-1, 0, 1.5], [1, 0, 1.5]], "radius": 0.5}}}}"#
    ));
    let p = points(&ans);
    assert_eq!(vec3(&ans["manifold"]["normal"]), [0.0, 0.0, 1.0]);
    same_set(
        &p.iter().map(|q| q.0).collect::<Vec<_>>(),
        &[[-1.0, 0.0, 1.0], [1.0, 0.0, 1.0]],
    );
    same_set(
        &p.iter().map(|q| q.1).collect::<Vec<_>>(),
        &[[-1.0, 0.0, 1.0], [1.0, 0.0, 1.0]],
    );
    assert!(p.iter().all(|q| q.2 == 0.0 && q.4 == "vertex"));
    let ans = one(&format!(
        r#"{{"query": "manifold", "a": {BOX}, "b": {{"shape": "sphere:0.5"}}, "pose_b": {{"translation": [0.25, 0.5, 1.5]}}}}"#
    ));
    let p = points(&ans);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].0, [0.25, 0.5, 1.0]);
    assert_eq!(p[0].1, [0.25, 0.5, 1.0]);
    assert_eq!(p[0].2, 0.0);
}

/// A box standing on an edge (square cross-section turned 45°, its lowest edge along x at
/// z = 1) gives two points, the edge's ends; two ridges crossing at right angles (edges along
/// x and y, 0.5 apart, margin 1) give one point, edge against edge.
#[test]
fn edge_contact_gives_two_points_and_crossing_edges_one() {
    let tilted = r#"{"vertices": [[-1,0,1],[1,0,1],[-1,1,2],[1,1,2],[-1,-1,2],[1,-1,2],[-1,0,3],[1,0,3]]}"#;
    let ans = one(&format!(r#"{{"query": "manifold", "a": {BOX}, "b": {tilted}}}"#));
    let p = points(&ans);
    same_set(
        &p.iter().map(|q| q.0).collect::<Vec<_>>(),
        &[[-1.0, 0.0, 1.0], [1.0, 0.0, 1.0]],
    );
    assert!(p.iter().all(|q| q.2 == 0.0));
    let ridge_x = r#"{"vertices": [[-1,-1,0],[1,-1,0],[-1,1,0],[1,1,0],[-1,0,1],[1,0,1]]}"#;
    let ridge_y = r#"{"vertices": [[0,-1,1.5],[0,1,1.5],[-1,-1,2.5],[-1,1,2.5],[1,-1,2.5],[1,1,2.5]]}"#;
    let ans = one(&format!(
        r#"{{"query": "manifold", "margin": 1, "a": {ridge_x}, "b": {ridge_y}}}"#
    ));
    let p = points(&ans);
    assert_eq!(p.len(), 1, "{ans}");
    assert_eq!(vec3(&ans["manifold"]["normal"]), [0.0, 0.0, 1.0]);
    assert_eq!(p[0].0, [0.0, 0.0, 1.0]);
    assert_eq!(p[0].1, [0.0, 0.0, 1.5]);
    assert_eq!(p[0].2, 0.5);
    assert_eq!((p[0].3.as_str(), p[0].4.as_str()), ("edge", "edge"));
}

/// A 12-sided prism standing on the box: twelve points, all its bottom corners; with
/// `"reduce": true` at most four of them, still counter-clockwise.
#[test]
fn reduce_keeps_at_most_four_of_the_polygon() {
    let line = |reduce: &str| {
        format!(
            r#"{{"query": "manifold", {reduce} "a": {BOX}, "b": {{"shape": "prism:12,1,1"}}, "pose_b": {{"translation": [0, 0, 1.5]}}}}"#
        )
    };
    let full = points(&one(&line("")));
    assert_eq!(full.len(), 12);
    let ans = one(&line(r#""reduce": true,"#));
    let red = points(&ans);
    assert_eq!(red.len(), 4);
    for q in &red {
        assert!(full.iter().any(|f| f.0 == q.0 && f.1 == q.1));
    }
    assert!(ccw(&red.iter().map(|q| q.0).collect::<Vec<_>>(), [0.0, 0.0, 1.0]));
    let ans = one(&line(r#""reduce": false,"#));
    assert_eq!(points(&ans).len(), 12);
}

/// Bad `margin` and `reduce` values are error lines naming the key.
#[test]
fn bad_manifold_options_name_the_key() {
    for (kv, key) in [
        (r#""margin": -1"#, "margin"),
        (r#""margin": "1""#, "margin"),
        (r#""margin": 1e999"#, "margin"),
        (r#""reduce": 1"#, "reduce"),
        (r#""reduce": "yes""#, "reduce"),
    ] {
        let v = batch(&format!(
            "{{\"query\": \"manifold\", {kv}, \"a\": {BOX}, \"b\": {{\"shape\": \"cube:2\"}}}}\n"
        ));
        if v.is_empty() {
            continue; // 1e999 is not JSON serde accepts: the line is an invalid-JSON error
        }
        assert_eq!(v[0]["status"], "error", "{kv}");
        let msg = v[0]["error"].as_str().unwrap();
        assert!(msg.contains(key) || msg.contains("JSON"), "{kv}: {msg}");
    }
}

/// `polycd query --query manifold` prints the points (text) and the batch answer (`--json`).
#[test]
fn query_command_prints_the_manifold() {
    let out = polycd()
        .args([
            "query",
            "box:4,4,2",
            "cube:2",
            "--pose-b",
            "0.5 0 2 1 0 0 0",
            "--query",
            "manifold",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("manifold:        4 points"), "{text}");
    let out = polycd()
        .args([
            "query",
            "box:4,4,2",
            "cube:2",
            "--pose-b",
            "0.5 0 3 1 0 0 0",
            "--query",
            "manifold",
            "--margin",
            "2",
            "--reduce",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(points(&v).len(), 4);
    assert!(points(&v).iter().all(|q| q.2 == 1.0));
    let out = polycd()
        .args(["query", "box:4,4,2", "cube:2", "--margin", "1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}

/// Two capsules lying along each other (cores from x = −1 to 1 at z = 0 and from −0.5 to 1.5
/// at z = 1, radius 0.5): the ends of their common stretch, x = −0.5 and x = 1, at z = 0.5;
/// crossing capsules: one point.
#[test]
fn parallel_capsules_give_two_points_crossing_ones_one() {
    let ans = one(
        r#"{"query": "manifold", "a": {"vertices": [[-1,0,0],[1,0,0]], "radius": 0.5}, "b": {"vertices": [[-0.5,0,1],[1.5,0,1]], "radius": 0.5}}"#,
    );
    let p = points(&ans);
    assert_eq!(vec3(&ans["manifold"]["normal"]), [0.0, 0.0, 1.0]);
    same_set(
        &p.iter().map(|q| q.0).collect::<Vec<_>>(),
        &[[-0.5, 0.0, 0.5], [1.0, 0.0, 0.5]],
    );
    same_set(
        &p.iter().map(|q| q.1).collect::<Vec<_>>(),
        &[[-0.5, 0.0, 0.5], [1.0, 0.0, 0.5]],
    );
    let ans = one(
        r#"{"query": "manifold", "a": {"vertices": [[-1,0,0],[1,0,0]], "radius": 0.5}, "b": {"vertices": [[0,-1,1],[0,1,1]], "radius": 0.5}}"#,
    );
    let p = points(&ans);
    assert_eq!(p.len(), 1);
    assert_eq!((p[0].0, p[0].1), ([0.0, 0.0, 0.5], [0.0, 0.0, 0.5]));
    assert_eq!((p[0].3.as_str(), p[0].4.as_str()), ("edge", "edge"));
}
