//! Batch `"query": "toc"` on flat and rounded shapes (issue 24 item 5: "every shape of the
//! shapes issue moves in CCD too"), on motions with exact answers: a sphere and a capsule
//! sliding into a box face, a point and a triangle passing through a triangle, a segment
//! crossing a segment, a rounded box meeting a rounded box, a pair that never meets, and an
//! overlap at t = 0.

use serde_json::Value;

mod common;
use common::batch;

fn toc_line(a: &str, b: &str, motion: &str) -> String {
    format!(r#"{{"query":"toc","a":{a},"b":{b},{motion}}}"#)
}

fn vec3(v: &Value) -> [f64; 3] {
    let a = v.as_array().expect("[x, y, z]");
    [0, 1, 2].map(|i| a[i].as_f64().unwrap())
}

const SLIDE: &str = r#""pose_a":{"translation":[-5,0,0]},"pose_a1":{"translation":[5,0,0]},"threshold":1e-6"#;

#[test]
fn flat_and_rounded_shapes_move() {
    // (A, B, motion, exact t, the contact point's x on A's side)
    let cases: [(&str, &str, &str, f64, f64); 7] = [
        // Sphere of radius 1 into the face x = −1 of a 2-box: its centre reaches −2, t = 0.3.
        (r#"{"shape":"sphere:1"}"#, r#"{"shape":"box:2,2,2"}"#, SLIDE, 0.3, -1.0),
        // A point plus radius 0.5 in vertices form: the centre reaches −1.5, t = 0.35.
        (
            r#"{"vertices":[[0,0,0]],"radius":0.5}"#,
            r#"{"shape":"box:2,2,2"}"#,
            SLIDE,
            0.35,
            -1.0,
        ),
        // A capsule along z (half length 1, radius 0.25): its side reaches x = −1 at t = 0.375.
        (
            r#"{"shape":"capsule:1,0.25"}"#,
            r#"{"shape":"box:2,2,2"}"#,
            SLIDE,
            0.375,
            -1.0,
        ),
        // A triangle (flat, no radius) whose far vertex leads at x = 1: it reaches −1 at t = 0.3.
        (
            r#"{"vertices":[[1,0,0],[0,0.5,0],[0,-0.5,0.2]]}"#,
            r#"{"shape":"box:2,2,2"}"#,
            SLIDE,
            0.3,
            -1.0,
        ),
        // A point through a triangle in the plane x = 0: t = 0.5.
        (
            r#"{"vertices":[[0,0.2,0.2]]}"#,
            r#"{"vertices":[[0,0,0],[0,1,0],[0,0,1]]}"#,
            SLIDE,
            0.5,
            0.0,
        ),
        // Rounded boxes (cores 2-boxes, radii 0.5 and 0.25): faces meet when A's centre is at
        // −2.75, t = 0.225.
        (
            r#"{"shape":"box:2,2,2","radius":0.5}"#,
            r#"{"shape":"box:2,2,2","radius":0.25}"#,
            SLIDE,
            0.225,
            -1.25,
        ),
        // A segment along y moving along x through a segment along z at the origin: t = 0.5.
        (
            r#"{"vertices":[[0,-1,0],[0,1,0]]}"#,
            r#"{"vertices":[[0,0,-1],[0,0,1]],"radius":0.0}"#,
            SLIDE,
            0.5,
            0.0,
        ),
    ];
    let lines: Vec<String> = cases.iter().map(|c| toc_line(c.0, c.1, c.2)).collect();
    let out = batch(&(lines.join("\n") + "\n"));
    assert_eq!(out.len(), cases.len());
    for (k, (v, c)) in out.iter().zip(&cases).enumerate() {
        assert_eq!(v["error"], Value::Null, "{k}: {v}");
        let toc = &v["toc"];
        assert_eq!(toc["status"], "contact", "{k}: {v}");
        let t = toc["t"].as_f64().unwrap();
        // Conservative: never after the contact; the threshold 1e-6 at speed 10 allows 1e-7
        // early (plus rounding).
        assert!(
            t <= c.3 + 1e-15 && t >= c.3 - 1e-7 - 1e-12,
            "{k}: t = {t}, want {}: {v}",
            c.3
        );
        let contacts = toc["contacts"].as_array().unwrap();
        assert!(!contacts.is_empty(), "{k}: {v}");
        for p in contacts {
            let (pa, pb) = (vec3(&p["point_a"]), vec3(&p["point_b"]));
            assert!((pa[0] - c.4).abs() < 1e-6 && (pb[0] - (pa[0])).abs() < 1e-6, "{k}: {p}");
            assert!(p["distance"].as_f64().unwrap() <= 1e-6, "{k}: {p}");
        }
    }
}

#[test]
fn a_miss_and_an_overlap_at_the_start() {
    let lines = [
        // A capsule passing 0.5 above a box's top (z = 1): no contact.
        toc_line(
            r#"{"shape":"capsule:1,0.25"}"#,
            r#"{"shape":"box:2,2,2"}"#,
            r#""pose_a":{"translation":[-5,0,3.25]},"pose_a1":{"translation":[5,0,3.25]}"#,
        ),
        // Two spheres overlapping at t = 0: contact at 0.
        toc_line(
            r#"{"shape":"sphere:1"}"#,
            r#"{"shape":"sphere:1"}"#,
            r#""pose_a":{"translation":[1,0,0]},"pose_a1":{"translation":[5,0,0]}"#,
        ),
    ];
    let out = batch(&(lines.join("\n") + "\n"));
    assert_eq!(out[0]["error"], Value::Null, "{}", out[0]);
    assert_eq!(out[0]["toc"]["status"], "none", "{}", out[0]);
    assert_eq!(out[0]["toc"]["t"], Value::Null, "{}", out[0]);
    assert_eq!(out[1]["error"], Value::Null, "{}", out[1]);
    assert_eq!(out[1]["toc"]["status"], "contact", "{}", out[1]);
    assert_eq!(out[1]["toc"]["t"].as_f64(), Some(0.0), "{}", out[1]);
    assert_eq!(out[1]["status"], "overlapping", "{}", out[1]);
}
