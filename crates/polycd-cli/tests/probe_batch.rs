//! Issue 22 item 6 (+ issue 23): `"query": "point"` and `"query": "ray"` batch lines on every
//! shape kind — a point, a segment, a triangle, a sphere, a capsule, a rounded box and a
//! non-convex mesh — with answers computed by hand.

use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `polycd batch` on the lines, returns the answers.
fn batch(lines: &[String]) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_polycd"))
        .arg("batch")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn point(a: &str, p: [f64; 3]) -> String {
    format!(r#"{{"query":"point","a":{a},"point":{}}}"#, json!(p))
}

fn ray(a: &str, o: [f64; 3], d: [f64; 3]) -> String {
    format!(
        r#"{{"query":"ray","a":{a},"origin":{},"direction":{}}}"#,
        json!(o),
        json!(d)
    )
}

/// A JSON `[x, y, z]` as numbers (so that −0.0 equals 0.0).
fn nums(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

fn feature(kind: &str, id: u64) -> Value {
    json!({"a": {"kind": kind, "id": id}, "b": null})
}

#[test]
fn flat_shapes() {
    let pt = r#"{"vertices":[[1,2,3]]}"#;
    let seg = r#"{"vertices":[[-1,0,0],[1,0,0]]}"#;
    let tri = r#"{"vertices":[[0,0,0],[1,0,0],[0,1,0]]}"#;
    let out = batch(&[
        point(pt, [4.0, 6.0, 3.0]),
        point(seg, [0.5, 3.0, -4.0]),
        ray(seg, [0.5, -2.0, 0.0], [0.0, 1.0, 0.0]),
        point(tri, [0.25, 0.25, 0.0]),
        point(tri, [0.25, 0.25, -2.0]),
        ray(tri, [0.25, 0.25, -3.0], [0.0, 0.0, 1.0]),
        ray(tri, [0.25, 0.25, 3.0], [0.0, 0.0, -2.0]),
        ray(tri, [2.0, 2.0, 3.0], [0.0, 0.0, -1.0]),
    ]);
    assert!(out.iter().all(|a| a["error"].is_null()), "{out:?}");
    // A point shape: 5 away (3-4-5), the vertex.
    assert_eq!(out[0]["status"], "disjoint");
    assert_eq!(out[0]["signed_distance"], 5.0);
    assert_eq!(out[0]["point_a"], json!([1.0, 2.0, 3.0]));
    assert_eq!(out[0]["features"], feature("vertex", 0));
    // A segment: 5 from its interior point (0.5, 0, 0), its edge.
    assert_eq!(out[1]["signed_distance"], 5.0);
    assert_eq!(out[1]["point_a"], json!([0.5, 0.0, 0.0]));
    assert_eq!(out[1]["features"], feature("edge", 0));
    // A ray across the segment: t = 2, the normal facing the ray.
    assert_eq!(out[2]["status"], "touching");
    assert_eq!(
        out[2]["ray"],
        json!({"t": 2.0, "point": [0.5, 0.0, 0.0], "normal": [0.0, -1.0, 0.0]})
    );
    assert_eq!(out[2]["features"], feature("edge", 0));
    // A point on the triangle: signed distance 0, touching, face 0; 2 below it: face 1.
    assert_eq!(out[3]["status"], "touching");
    assert_eq!(out[3]["signed_distance"], 0.0);
    assert_eq!(out[3]["features"], feature("face", 0));
    assert_eq!(out[4]["signed_distance"], 2.0);
    assert_eq!(out[4]["point_a"], json!([0.25, 0.25, 0.0]));
    assert_eq!(out[4]["features"], feature("face", 1));
    // Rays from below (face 1, normal −z) and above (face 0, t in the direction's units).
    assert_eq!(out[5]["ray"]["t"], 3.0);
    assert_eq!(nums(&out[5]["ray"]["point"]), [0.25, 0.25, 0.0]);
    assert_eq!(nums(&out[5]["ray"]["normal"]), [0.0, 0.0, -1.0]);
    assert_eq!(out[5]["features"], feature("face", 1));
    assert_eq!(
        out[6]["ray"],
        json!({"t": 1.5, "point": [0.25, 0.25, 0.0], "normal": [0.0, 0.0, 1.0]})
    );
    assert_eq!(out[6]["features"], feature("face", 0));
    // A miss: disjoint, no ray.
    assert_eq!(out[7]["status"], "disjoint");
    assert!(out[7]["ray"].is_null());
}

#[test]
fn rounded_shapes() {
    let sphere = r#"{"shape":"sphere:2"}"#;
    let capsule = r#"{"shape":"capsule:2,0.5"}"#;
    let rbox = r#"{"shape":"box:1,1,1+r=0.25"}"#;
    let out = batch(&[
        point(sphere, [0.0, 0.0, 5.0]),
        point(sphere, [0.0, 0.0, 0.5]),
        ray(sphere, [-5.0, 0.0, 0.0], [3.0, 0.0, 0.0]),
        ray(sphere, [0.5, 0.0, 0.0], [1.0, 0.0, 0.0]),
        ray(capsule, [-3.0, 0.0, 0.25], [1.0, 0.0, 0.0]),
        ray(capsule, [0.0, 0.0, 4.0], [0.0, 0.0, -1.0]),
        ray(rbox, [-3.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
        point(rbox, [2.0, 0.0, 0.0]),
    ]);
    assert!(out.iter().all(|a| a["error"].is_null()), "{out:?}");
    // Sphere: 5 − 2 outside, the closest point on the sphere; 0.5 − 2 inside.
    assert_eq!(out[0]["signed_distance"], 3.0);
    assert_eq!(out[0]["point_a"], json!([0.0, 0.0, 2.0]));
    assert_eq!(out[1]["status"], "overlapping");
    assert_eq!(out[1]["signed_distance"], -1.5);
    // Ray on the sphere: enters at x = −2 (t = 3/3), normal −x; from inside t = 0, no normal.
    assert_eq!(
        out[2]["ray"],
        json!({"t": 1.0, "point": [-2.0, 0.0, 0.0], "normal": [-1.0, 0.0, 0.0]})
    );
    assert_eq!(out[3]["status"], "overlapping");
    assert_eq!(
        out[3]["ray"],
        json!({"t": 0.0, "point": [0.5, 0.0, 0.0], "normal": null})
    );
    // Capsule (axis z ∈ [−1, 1], r = 0.5): the side at x = −0.5, the top cap at z = 1.5.
    assert_eq!(
        out[4]["ray"],
        json!({"t": 2.5, "point": [-0.5, 0.0, 0.25], "normal": [-1.0, 0.0, 0.0]})
    );
    assert_eq!(
        out[5]["ray"],
        json!({"t": 2.5, "point": [0.0, 0.0, 1.5], "normal": [0.0, 0.0, 1.0]})
    );
    // Rounded unit box (r = 0.25): its −x face at x = −0.75; 2 − 0.75 from +x.
    assert_eq!(
        out[6]["ray"],
        json!({"t": 2.25, "point": [-0.75, 0.0, 0.0], "normal": [-1.0, 0.0, 0.0]})
    );
    assert_eq!(out[7]["signed_distance"], 1.25);
}

/// The U-shaped solid of mesh_batch.rs: profile (0,0) (3,0) (3,2) (2,2) (2,1) (1,1) (1,2)
/// (0,2) in x–z over y ∈ [0, 1]; 12 cap triangles, then side quad 12 + i from profile point i.
fn u_json() -> String {
    let profile = [(0, 0), (3, 0), (3, 2), (2, 2), (2, 1), (1, 1), (1, 2), (0, 2)];
    let mut v = Vec::new();
    for y in [0, 1] {
        for (x, z) in profile {
            v.push(format!("[{x},{y},{z}]"));
        }
    }
    let mut f = Vec::new();
    for c in [[0, 1, 4], [1, 2, 3], [1, 3, 4], [0, 4, 5], [0, 5, 6], [0, 6, 7]] {
        f.push(format!("[{},{},{}]", c[0], c[1], c[2]));
        f.push(format!("[{},{},{}]", c[0] + 8, c[2] + 8, c[1] + 8));
    }
    for i in 0..8 {
        let j = (i + 1) % 8;
        f.push(format!("[{j},{i},{},{}]", i + 8, j + 8));
    }
    format!(
        r#"{{"kind":"mesh","vertices":[{}],"faces":[{}]}}"#,
        v.join(","),
        f.join(",")
    )
}

#[test]
fn meshes() {
    let u = u_json();
    let out = batch(&[
        point(&u, [1.25, 0.5, 1.75]),
        point(&u, [1.5, 0.5, 0.75]),
        point(&u, [1.5, 0.5, 1.0]),
        ray(&u, [1.5, 0.5, 5.0], [0.0, 0.0, -2.0]),
        ray(&u, [1.25, 0.5, 1.5], [1.0, 0.0, 0.0]),
        ray(&u, [0.5, 0.5, 0.5], [1.0, 0.0, 0.0]),
        ray(&u, [-1.0, 0.5, 2.5], [1.0, 0.0, 0.0]),
    ]);
    assert!(out.iter().all(|a| a["error"].is_null()), "{out:?}");
    // In the notch: 0.25 from the left pillar's inner wall (side 5: x = 1).
    assert_eq!(out[0]["status"], "disjoint");
    assert_eq!(out[0]["signed_distance"], 0.25);
    assert_eq!(out[0]["point_a"], json!([1.0, 0.5, 1.75]));
    assert_eq!(out[0]["features"], feature("triangle", 17));
    // In the base, 0.25 below the notch floor (side 4: z = 1).
    assert_eq!(out[1]["status"], "overlapping");
    assert_eq!(out[1]["signed_distance"], -0.25);
    assert_eq!(out[1]["point_a"], json!([1.5, 0.5, 1.0]));
    assert_eq!(out[1]["features"], feature("triangle", 16));
    // On the floor exactly.
    assert_eq!(out[2]["status"], "touching");
    assert_eq!(out[2]["signed_distance"], 0.0);
    assert_eq!(out[2]["features"], feature("triangle", 16));
    // Down into the notch: the floor, t in the direction's units.
    assert_eq!(
        out[3]["ray"],
        json!({"t": 2.0, "point": [1.5, 0.5, 1.0], "normal": [0.0, 0.0, 1.0]})
    );
    assert_eq!(out[3]["features"], feature("triangle", 16));
    // Across the notch: the right pillar's inner wall (side 3: x = 2).
    assert_eq!(
        out[4]["ray"],
        json!({"t": 0.75, "point": [2.0, 0.5, 1.5], "normal": [-1.0, 0.0, 0.0]})
    );
    assert_eq!(out[4]["features"], feature("triangle", 15));
    // From inside: t = 0, no normal, overlapping; above the U: a miss.
    assert_eq!(out[5]["status"], "overlapping");
    assert_eq!(
        out[5]["ray"],
        json!({"t": 0.0, "point": [0.5, 0.5, 0.5], "normal": null})
    );
    assert_eq!(out[6]["status"], "disjoint");
}
