//! `polycd view` pages rendered in a real browser (headless Chromium, WebGL by SwiftShader):
//! one test per kind of answer. Each writes a page with the `polycd` binary, checks the
//! scene's geometry against the known answer, has Chromium dump the page's DOM (the page must
//! report `data-status="ok"`, no error, no blocked request) and take a screenshot (not blank;
//! at the pixel where the page projects each witness marker, the marker's colour).
//!
//! Without Chromium these tests SKIP with a loud message, unless the environment variable `CI`
//! or `POLYCD_REQUIRE_CHROMIUM` is set: then they fail (`.ci/run` installs Chromium and sets
//! the latter). `POLYCD_CHROMIUM` names another browser binary.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const WIDTH: u32 = 900;
const HEIGHT: u32 = 560;
/// The page's side panel's width (viewer.css).
const PANEL: u32 = 270;
/// One Chromium run's bound (a loaded machine renders a page in a few seconds).
const BROWSER_LIMIT: Duration = Duration::from_secs(120);
/// Colour tolerance per channel (0-255) at a marker's centre: colour management rounds.
const COLOR_TOLERANCE: i32 = 10;

fn flag(name: &str) -> bool {
    std::env::var(name)
        .map(|v| !v.is_empty() && v != "0" && v != "false")
        .unwrap_or(false)
}

/// Chromium is required (its absence fails the tests): in CI (`CI` set) and under `.ci/run`
/// (`POLYCD_REQUIRE_CHROMIUM` set).
fn required() -> bool {
    flag("CI") || flag("POLYCD_REQUIRE_CHROMIUM")
}

/// `POLYCD_CHROMIUM` (a browser's path), else `chromium` or `chromium-browser` on the `PATH`.
fn find_chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("POLYCD_CHROMIUM") {
        let p = PathBuf::from(p);
        assert!(p.is_file(), "POLYCD_CHROMIUM={} is not a file", p.display());
        return Some(p);
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Chromium, or `None` after a loud message (outside CI); in CI its absence is a failure.
fn browser() -> Option<PathBuf> {
    match find_chromium() {
        Some(p) => Some(p),
        None if required() => {
            panic!(
                "chromium is not installed, and CI or POLYCD_REQUIRE_CHROMIUM is set: .ci/run installs it \
                 (apt-get install chromium), or set POLYCD_CHROMIUM to a browser's path"
            )
        }
        None => {
            // Written to the process's stderr directly: the test harness captures eprintln!.
            use std::io::Write;
            let _ = std::io::stderr().write_all(
                b"\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\
                  !!! SKIPPED: polycd view browser test: chromium is not installed      !!!\n\
                  !!! (apt-get install chromium, or POLYCD_CHROMIUM=/path/to/chrome;    !!!\n\
                  !!!  in CI, or with POLYCD_REQUIRE_CHROMIUM=1, this is a failure)     !!!\n\
                  !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n",
            );
            None
        }
    }
}

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("polycd-view-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Runs a command with stdout and stderr into files, within `BROWSER_LIMIT`.
fn run_bounded(mut cmd: Command, out: &Path, what: &str) -> String {
    let stdout = std::fs::File::create(out).unwrap();
    let stderr = std::fs::File::create(out.with_extension("stderr")).unwrap();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    let start = Instant::now();
    loop {
        match child.try_wait().unwrap() {
            Some(status) => {
                assert!(status.success(), "{what}: exit status {status}");
                break;
            }
            None if start.elapsed() > BROWSER_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{what}: no answer within {BROWSER_LIMIT:?}");
            }
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    std::fs::read_to_string(out).unwrap_or_default()
}

fn chromium(chrome: &Path, dir: &Path, tag: &str, extra: &[String], url: &str) -> String {
    let mut cmd = Command::new(chrome);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--no-first-run",
        // No background connections (this machine's network is closed; the page needs none).
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--disable-extensions",
        "--disable-dev-shm-usage",
        "--use-gl=angle",
        "--use-angle=swiftshader",
        "--enable-unsafe-swiftshader",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        "--virtual-time-budget=20000",
    ])
    .arg(format!("--window-size={WIDTH},{HEIGHT}"))
    .arg(format!(
        "--user-data-dir={}",
        dir.join(format!("profile-{tag}")).display()
    ))
    .args(extra)
    .arg(url);
    run_bounded(cmd, &dir.join(format!("{tag}.out")), &format!("chromium {tag}"))
}

fn polycd(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_polycd"))
        .args(args)
        .output()
        .expect("run polycd");
    assert!(
        out.status.success(),
        "polycd {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The text inside the element that starts with `open` (up to `close`).
fn element_text<'a>(html: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let i = html.find(open)?;
    let rest = &html[i + open.len()..];
    let rest = &rest[rest.find('>')? + 1..];
    Some(&rest[..rest.find(close)?])
}

/// What a rendered page showed.
struct Rendered {
    scene: Value,
    /// The window pixel and colour of every visible point marker.
    probes: Vec<Value>,
    /// Every body's and body copy's centroid (world), colour, and a pixel showing it alone.
    solids: Vec<Value>,
    /// The timeline's frame the page shows.
    frame: u64,
    /// The text of the timeline's time label (empty without a motion).
    time_label: String,
    png: (u32, u32, Vec<u8>),
}

/// Hue (degrees) and saturation of a pixel.
fn hue_sat(c: [i32; 3]) -> (f64, f64) {
    let (r, g, b) = (c[0] as f64, c[1] as f64, c[2] as f64);
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    if max <= 0.0 || max == min {
        return (0.0, 0.0);
    }
    let d = max - min;
    let h = if max == r {
        60.0 * ((g - b) / d).rem_euclid(6.0)
    } else if max == g {
        60.0 * ((b - r) / d + 2.0)
    } else {
        60.0 * ((r - g) / d + 4.0)
    };
    (h, d / max)
}

fn hue_gap(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(360.0);
    d.min(360.0 - d)
}

/// Translucent faces over white keep their colour's hue (shading and blending with white only
/// lighten or darken it): a pixel is tinted with `want` when it is saturated enough and its hue
/// is near `want`'s.
const HUE_TOLERANCE: f64 = 15.0;
const MIN_TINT: f64 = 0.08;

impl Rendered {
    fn layer(&self, id: &str) -> &Value {
        self.scene["layers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["id"] == id)
            .unwrap_or_else(|| panic!("no layer {id} in {}", self.layer_ids()))
    }
    fn layer_ids(&self) -> String {
        let ids: Vec<&str> = self.scene["layers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["id"].as_str().unwrap())
            .collect();
        ids.join(", ")
    }
    fn point(&self, id: &str) -> [f64; 3] {
        xyz(&self.layer(id)["points"][0]["at"])
    }
    /// The body (`A`, `B`) or body copy (a layer id) `id` is drawn where the page puts it:
    /// about the pixel of a point of it that the page reports as covered by this body's faces
    /// alone, most pixels of an 11×11 window, apart from point markers, are tinted with its
    /// colour. Returns the body's centroid (world frame), where the page draws it.
    fn check_solid(&self, id: &str) -> [f64; 3] {
        let s = self
            .solids
            .iter()
            .find(|s| s["id"] == id)
            .unwrap_or_else(|| panic!("no probe for body {id}: {:?}", self.solids));
        assert_eq!(s["clear"], true, "{id}: no pixel shows this body alone: {s}");
        let want: Vec<i32> = s["color"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_i64().unwrap() as i32)
            .collect();
        let (want_hue, _) = hue_sat([want[0], want[1], want[2]]);
        let (x, y) = (s["x"].as_f64().unwrap(), s["y"].as_f64().unwrap());
        let (w, h, _) = self.png;
        assert!(
            x >= 6.0 && y >= 6.0 && x < w as f64 - 6.0 && y < h as f64 - 6.0,
            "{id}: {s}"
        );
        let under_marker = |px: f64, py: f64| {
            self.probes.iter().any(|p| {
                let r = p["radius"].as_f64().unwrap() * 1.6 + 1.0;
                (p["x"].as_f64().unwrap() - px).hypot(p["y"].as_f64().unwrap() - py) < r
            })
        };
        let (cx, cy) = (x.floor() as u32, y.floor() as u32);
        let (mut seen, mut tinted) = (0, 0);
        let mut sample = Vec::new();
        for py in cy - 5..=cy + 5 {
            for px in cx - 5..=cx + 5 {
                if under_marker(px as f64 + 0.5, py as f64 + 0.5) {
                    continue;
                }
                seen += 1;
                let c = self.pixel(px, py);
                let (hue, sat) = hue_sat(c);
                if sat >= MIN_TINT && hue_gap(hue, want_hue) <= HUE_TOLERANCE {
                    tinted += 1;
                } else if sample.len() < 5 {
                    sample.push(c);
                }
            }
        }
        assert!(
            seen >= 60 && tinted * 10 >= seen * 7,
            "{id}: only {tinted} of {seen} pixels about ({cx}, {cy}) have the hue of {want:?}; others: {sample:?}"
        );
        xyz(&s["centroid"])
    }

    /// Layer `id` (a segment, an arrow, a simplex: drawn unlit in its colour) is drawn: at
    /// least `min` pixels of the 3-D view have its colour.
    fn check_drawn(&self, id: &str, min: usize) {
        let hex = self.layer(id)["color"]
            .as_str()
            .unwrap()
            .trim_start_matches('#')
            .to_string();
        let want: Vec<i32> = (0..3)
            .map(|k| i32::from_str_radix(&hex[2 * k..2 * k + 2], 16).unwrap())
            .collect();
        let mut n = 0;
        for y in 0..HEIGHT {
            for x in PANEL + 10..WIDTH {
                let c = self.pixel(x, y);
                n += (0..3).all(|k| (c[k] - want[k]).abs() <= 6) as usize;
            }
        }
        assert!(n >= min, "{id}: {n} pixels of its colour {want:?}, fewer than {min}");
    }

    fn pixel(&self, x: u32, y: u32) -> [i32; 3] {
        let (w, _, ref px) = self.png;
        let i = ((y * w + x) * 4) as usize;
        [px[i] as i32, px[i + 1] as i32, px[i + 2] as i32]
    }
    /// The marker of layer `id` is on screen, not hidden by another, at least 3 pixels in
    /// radius, and the screenshot has its colour at its centre and most of its 5×5 core.
    fn check_marker(&self, id: &str) {
        let p = self
            .probes
            .iter()
            .find(|p| p["layer"] == id)
            .unwrap_or_else(|| panic!("no probe for layer {id}: {:?}", self.probes));
        self.check_probe(id, p);
    }
    /// Every marker of layer `id` (a manifold's points) passes [`Rendered::check_marker`]'s
    /// checks; returns how many there are.
    fn check_markers(&self, id: &str) -> usize {
        let all: Vec<&Value> = self.probes.iter().filter(|p| p["layer"] == id).collect();
        for p in &all {
            self.check_probe(&format!("{id} {}", p["name"]), p);
        }
        all.len()
    }
    fn check_probe(&self, id: &str, p: &Value) {
        assert_eq!(p["covered"], false, "{id}: hidden by another marker: {p}");
        assert_eq!(p["inside"], true, "{id}: outside the view: {p}");
        let r = p["radius"].as_f64().unwrap();
        assert!(r >= 3.0, "{id}: marker too small to check ({r} px)");
        let (x, y) = (p["x"].as_f64().unwrap(), p["y"].as_f64().unwrap());
        let (w, h, _) = self.png;
        assert!(
            x >= 2.0 && y >= 2.0 && x < w as f64 - 2.0 && y < h as f64 - 2.0,
            "{id}: {p}"
        );
        let want: Vec<i32> = p["color"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_i64().unwrap() as i32)
            .collect();
        let close = |c: [i32; 3]| (0..3).all(|k| (c[k] - want[k]).abs() <= COLOR_TOLERANCE);
        let (cx, cy) = (x.floor() as u32, y.floor() as u32);
        let centre = self.pixel(cx, cy);
        assert!(
            close(centre),
            "{id}: pixel ({cx}, {cy}) is {centre:?}, the marker's colour is {want:?}"
        );
        let mut hits = 0;
        for dy in 0..5 {
            for dx in 0..5 {
                hits += close(self.pixel(cx + dx - 2, cy + dy - 2)) as u32;
            }
        }
        assert!(
            hits >= 20,
            "{id}: only {hits} of the 25 core pixels have the marker's colour"
        );
    }
}

fn xyz(v: &Value) -> [f64; 3] {
    let a = v.as_array().unwrap_or_else(|| panic!("not a point: {v}"));
    [a[0].as_f64().unwrap(), a[1].as_f64().unwrap(), a[2].as_f64().unwrap()]
}

fn near(p: [f64; 3], q: [f64; 3], tol: f64) -> bool {
    (0..3).all(|k| (p[k] - q[k]).abs() <= tol)
}

/// Writes the page with `polycd view ARGS -o`, renders it and checks what every page must
/// show; `None` when Chromium is missing outside CI.
fn render(name: &str, args: &[&str], hash: &str) -> Option<Rendered> {
    let chrome = browser()?;
    let scratch = Scratch::new(name);
    let dir = &scratch.0;
    let page = dir.join("page.html");
    let mut full: Vec<&str> = vec!["view"];
    full.extend_from_slice(args);
    let page_s = page.to_str().unwrap().to_string();
    full.extend_from_slice(&["-o", &page_s]);
    polycd(&full);
    let html = std::fs::read_to_string(&page).unwrap();
    for remote in ["http://", "https://", "//cdn", "src=\"http"] {
        // three.js is inlined as base64, so nothing remote can hide in plain text.
        assert!(!html.contains(remote), "the page names a remote source ({remote})");
    }
    let data = element_text(
        &html,
        "<script type=\"application/json\" id=\"polycd-data\"",
        "</script>",
    )
    .expect("the page carries its scene");
    let scene: Value = serde_json::from_str(data).unwrap();
    assert_eq!(scene["format"], "polycd-view/1");
    assert!(
        scene["command"].as_str().unwrap().starts_with("polycd view "),
        "{}",
        scene["command"]
    );

    // A fixed size of the 3-D view, whatever the browser's window.
    let sep = if hash.is_empty() { "#" } else { "&" };
    let url = format!("file://{}{hash}{sep}size={}x{HEIGHT}", page.display(), WIDTH - PANEL);
    // One browser run dumps the DOM and takes the screenshot of the same page.
    let shot = dir.join("shot.png");
    let dom = chromium(
        &chrome,
        dir,
        "page",
        &["--dump-dom".to_string(), format!("--screenshot={}", shot.display())],
        &url,
    );
    let start = dom.find("<html").unwrap_or(0);
    let html_tag = &dom[start..start + dom[start..].find('>').unwrap_or(0)];
    let errors = element_text(&dom, "<pre id=\"errors\"", "</pre>")
        .map(unescape)
        .unwrap_or_default();
    assert!(
        html_tag.contains("data-status=\"ok\"") && errors.trim().is_empty(),
        "{name}: the page did not render cleanly: <html> tag {html_tag:?}, errors {errors:?}"
    );
    let probes: Value = serde_json::from_str(&unescape(
        element_text(&dom, "<pre id=\"probes\"", "</pre>").expect("probes"),
    ))
    .unwrap();
    assert_eq!(probes["devicePixelRatio"], 1);
    let time_label = element_text(&dom, "<div id=\"time\"", "</div>")
        .map(unescape)
        .unwrap_or_default();

    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&shot).expect("a screenshot"),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (WIDTH, HEIGHT));
    let rgba: Vec<u8> = match info.color_type {
        png::ColorType::Rgba => buf[..info.buffer_size()].to_vec(),
        png::ColorType::Rgb => buf[..info.buffer_size()]
            .chunks(3)
            .flat_map(|c| [c[0], c[1], c[2], 255])
            .collect(),
        other => panic!("unexpected screenshot colour type {other:?}"),
    };
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let r = Rendered {
        scene,
        probes: probes["probes"].as_array().unwrap().clone(),
        solids: probes["solids"].as_array().unwrap().clone(),
        frame: probes["frame"].as_u64().unwrap(),
        time_label,
        png: (WIDTH, HEIGHT, rgba),
    };
    // Not blank: the 3-D view (right of the 270-pixel panel) has drawn shapes, in colours.
    let mut inked = 0usize;
    let mut colours = std::collections::HashSet::new();
    for y in 0..HEIGHT {
        for x in PANEL + 10..WIDTH {
            let c = r.pixel(x, y);
            if c != [255, 255, 255] {
                inked += 1;
            }
            colours.insert(c);
        }
    }
    let area = ((WIDTH - PANEL - 10) * HEIGHT) as usize;
    assert!(
        inked * 20 > area,
        "{name}: the view is (nearly) blank: {inked} of {area} pixels drawn"
    );
    assert!(colours.len() > 50, "{name}: only {} colours drawn", colours.len());
    Some(r)
}

#[test]
fn disjoint_boxes_show_their_closest_points() {
    // Unit cubes, B at (2, 2, 2): the closest points are the corners (½, ½, ½) and (3/2, 3/2, 3/2).
    let args = ["cube", "cube", "--pose-b", "2 2 2", "--query", "distance"];
    let Some(r) = render("disjoint", &args, "") else { return };
    assert_eq!(r.scene["status"], "disjoint");
    assert!((r.scene["answer"]["distance"].as_f64().unwrap() - 3f64.sqrt()).abs() < 1e-12);
    assert!(near(r.point("closest_a"), [0.5; 3], 1e-12));
    assert!(near(r.point("closest_b"), [1.5; 3], 1e-12));
    let n = xyz(&r.layer("plane")["normal"]);
    assert!(near(n, [1.0 / 3f64.sqrt(); 3], 1e-12), "{n:?}");
    let query: Value =
        serde_json::from_str(&polycd(&["query", "cube", "cube", "--pose-b", "2 2 2", "--json"])).unwrap();
    assert_eq!(
        r.scene["answer"], query,
        "the page shows `polycd query --json`'s answer"
    );
    r.check_marker("closest_a");
    r.check_marker("closest_b");
    r.check_drawn("closest_segment", 40);
    assert!(near(r.check_solid("A"), [0.0; 3], 1e-9));
    assert!(near(r.check_solid("B"), [2.0; 3], 1e-9));
}

#[test]
fn touching_boxes_show_the_touching_point() {
    // Corner to corner at (½, ½, ½).
    let args = ["cube", "cube", "--pose-b", "1 1 1", "--query", "intersect"];
    let Some(r) = render("touching", &args, "") else { return };
    assert_eq!(r.scene["status"], "touching");
    assert!(near(r.point("touching"), [0.5; 3], 1e-9), "{:?}", r.point("touching"));
    r.layer("plane");
    r.check_marker("touching");
    assert!(near(r.check_solid("A"), [0.0; 3], 1e-9));
    assert!(near(r.check_solid("B"), [1.0; 3], 1e-9));
}

#[test]
fn overlapping_boxes_show_the_penetration() {
    // B at (0.8, 0.5, 0.5) overlaps A by 0.2 along x, 0.5 along y and z: depth 0.2 along +x.
    let args = ["cube", "cube", "--pose-b", "0.8 0.5 0.5", "--query", "distance"];
    let Some(r) = render("overlapping", &args, "") else {
        return;
    };
    assert_eq!(r.scene["status"], "overlapping");
    assert!((r.scene["answer"]["signed_distance"].as_f64().unwrap() + 0.2).abs() < 1e-9);
    let pen = r.layer("penetration");
    assert!(near(xyz(&pen["vector"]), [0.2, 0.0, 0.0], 1e-9), "{pen}");
    let (a, b) = (r.point("deepest_a"), r.point("deepest_b"));
    assert!((a[0] - 0.5).abs() < 1e-9 && (b[0] - 0.3).abs() < 1e-9, "{a:?} {b:?}");
    r.check_marker("deepest_a");
    r.check_marker("deepest_b");
    r.check_drawn("penetration", 20);
    r.check_solid("A");
    r.check_solid("B");
}

#[test]
fn overlapping_with_gjk_shows_the_simplex_on_request() {
    let args = [
        "cube",
        "icosphere:2",
        "--pose-b",
        "0.9 0.6 0.3",
        "--query",
        "intersect",
        "--algo",
        "gjk",
    ];
    let Some(r) = render("simplex", &args, "#show=simplex") else {
        return;
    };
    assert_eq!(r.scene["status"], "overlapping");
    let l = r.layer("simplex");
    assert_eq!(l["visible"], false, "the simplex is shown on request only");
    assert!(!l["pairs"].as_array().unwrap().is_empty());
    // The common point lies in both shapes: in the cube, and within the unit sphere about B.
    let p = r.point("overlap");
    assert!(p.iter().all(|c| c.abs() <= 0.5 + 1e-9), "{p:?}");
    let d = ((p[0] - 0.9).powi(2) + (p[1] - 0.6).powi(2) + (p[2] - 0.3).powi(2)).sqrt();
    assert!(d <= 1.0 + 1e-9, "{p:?}");
    r.check_marker("overlap");
    r.check_drawn("simplex", 100);
    r.check_solid("A");
    r.check_solid("B");
}

#[test]
fn directional_shows_the_translated_copy() {
    // B at (3, 0.2, 0.1) translated along -x touches A after t = 2.
    let args = [
        "cube",
        "cube",
        "--pose-b",
        "3 0.2 0.1",
        "--query",
        "directional",
        "--direction",
        "-1 0 0",
    ];
    let Some(r) = render("directional", &args, "") else {
        return;
    };
    assert!((r.scene["answer"]["directional"].as_f64().unwrap() - 2.0).abs() < 1e-9);
    let copy = r.layer("translated_b");
    assert!(near(xyz(&copy["pose"]["translation"]), [1.0, 0.2, 0.1], 1e-9), "{copy}");
    let c = r.point("contact");
    assert!(
        (c[0] - 0.5).abs() < 1e-9 && c[1] > -0.3 - 1e-9 && c[2] > -0.4 - 1e-9,
        "{c:?}"
    );
    r.check_marker("contact");
    r.check_drawn("translation", 40);
    assert!(near(r.check_solid("A"), [0.0; 3], 1e-9));
    assert!(near(r.check_solid("B"), [3.0, 0.2, 0.1], 1e-9));
    assert!(near(r.check_solid("translated_b"), [1.0, 0.2, 0.1], 1e-9));
}

#[test]
fn toc_shows_the_motion_and_the_contact() {
    // An octahedron (vertex at +x, circumradius 1) moving from x = -4 to x = 0 hits the unit
    // cube's face x = -½ when its centre is at -3/2: t = 5/8.
    let args = ["octahedron", "cube", "--pose-a", "-4 0 0", "--pose-a1", "0 0 0"];
    let Some(r) = render("toc", &args, "") else { return };
    assert_eq!(r.scene["status"], "contact");
    let t = r.scene["answer"]["t"].as_f64().unwrap();
    assert!((t - 0.625).abs() < 1e-3, "t = {t}");
    let frames = r.scene["frames"].as_array().unwrap();
    let k = r.scene["marks"]["contact"].as_u64().unwrap() as usize;
    assert_eq!(r.scene["frame"], k as u64, "the page opens at the time of contact");
    assert_eq!(frames[k]["t"].as_f64().unwrap(), t);
    assert!(frames.len() > 100);
    let toc: Value = serde_json::from_str(&polycd(&[
        "toc",
        "octahedron",
        "cube",
        "--pose-a0",
        "-4 0 0",
        "--pose-a1",
        "0 0 0",
        "--json",
    ]))
    .unwrap();
    assert_eq!(r.scene["answer"], toc, "the page shows `polycd toc --json`'s answer");
    // The closest points at contact: one common point, or two a hair apart (then B's marker,
    // drawn last, is the one to see).
    let ids = r.layer_ids();
    let (a, b, id) = if ids.split(", ").any(|i| i == "contact") {
        (r.point("contact"), r.point("contact"), "contact")
    } else {
        (r.point("contact_a"), r.point("contact_b"), "contact_b")
    };
    assert!(
        near(a, [-0.5, 0.0, 0.0], 1e-3) && near(b, [-0.5, 0.0, 0.0], 1e-3),
        "{a:?} {b:?}"
    );
    assert_eq!(r.layer(id)["frame"], k as u64);
    r.check_marker(id);
    // The bodies are drawn at their poses at the time of contact, and the timeline says so.
    assert_eq!(r.frame, k as u64);
    assert!(
        r.time_label.contains(&format!("{t:.9}")[..6]) && r.time_label.contains("time of contact"),
        "{:?}",
        r.time_label
    );
    assert!(near(r.check_solid("A"), [-4.0 + 4.0 * t, 0.0, 0.0], 1e-9));
    assert!(near(r.check_solid("B"), [0.0; 3], 1e-9));
    r.check_drawn("path_a", 40);
}

#[test]
fn mesh_toc_shows_the_convex_pieces() {
    let knot = "torus-knot:2,3:48,8";
    let motion = ["--pose-a", "-9 0.5 0.3", "--pose-a1", "0 0.5 0.3", "--mesh"];
    let args: Vec<&str> = [knot, "octahedron:1.5"].into_iter().chain(motion).collect();
    let Some(r) = render("mesh", &args, "") else { return };
    let mut toc_args = vec!["toc", knot, "octahedron:1.5", "--json"];
    toc_args.extend(motion.iter().map(|a| if *a == "--pose-a" { "--pose-a0" } else { a }));
    let toc: Value = serde_json::from_str(&polycd(&toc_args)).unwrap();
    assert_eq!(r.scene["answer"], toc, "the page shows `polycd toc --json`'s answer");
    assert_eq!(r.scene["status"], "contact");
    let a = &r.scene["bodies"][0];
    assert_eq!(a["kind"], "mesh");
    let pieces = a["pieces"].as_array().unwrap();
    assert!(pieces.len() > 1, "a knot has several convex pieces");
    let covered: usize = pieces.iter().map(|p| p.as_array().unwrap().len()).sum();
    assert_eq!(
        covered,
        a["faces"].as_array().unwrap().len(),
        "the pieces cover the mesh"
    );
    let levels = a["hull_levels"].as_array().unwrap();
    assert_eq!(levels[0].as_array().unwrap().len(), 1, "level 0 is the root");
    assert!(levels.len() > 2);
    // At contact: closest points (apart by the answer's distance), or a common point of the
    // overlapping pieces; either way on the octahedron |x| + |y| + |z| <= 1.5 (B stays put).
    let ids = r.layer_ids();
    let id = ["overlap", "contact", "contact_b"]
        .into_iter()
        .find(|i| ids.split(", ").any(|x| x == *i))
        .unwrap_or_else(|| panic!("no contact layer in {ids}"));
    let p = r.point(id);
    assert!(p.iter().map(|c| c.abs()).sum::<f64>() <= 1.5 + 1e-6, "{id} {p:?}");
    if id == "contact_b" {
        let q = r.point("contact_a");
        let d = ((0..3).map(|k| (p[k] - q[k]).powi(2)).sum::<f64>()).sqrt();
        assert!((d - toc["distance"].as_f64().unwrap()).abs() < 1e-9);
    }
    r.check_marker(id);
    assert!(near(r.check_solid("B"), [0.0; 3], 1e-9));
    // The pieces are drawn in colours of their own: many hues, each over a fair area.
    let mut buckets = [0usize; 24];
    for y in 0..HEIGHT {
        for x in PANEL + 10..WIDTH {
            let (hue, sat) = hue_sat(r.pixel(x, y));
            if sat >= 0.25 {
                buckets[(hue / 15.0) as usize % 24] += 1;
            }
        }
    }
    let hues = buckets.iter().filter(|&&n| n >= 150).count();
    assert!(hues >= 6, "the pieces show only {hues} hues: {buckets:?}");
}

#[test]
fn batch_line_shows_that_line() {
    let scratch = Scratch::new("batch");
    let input = scratch.0.join("in.jsonl");
    std::fs::write(
        &input,
        "{\"a\":{\"shape\":\"cube\"},\"b\":{\"shape\":\"cube\"},\"query\":\"distance\"}\n\
         {\"id\":7,\"a\":{\"shape\":\"cube\"},\"b\":{\"vertices\":[[0,0,0],[1,0,0],[0,1,0],[0,0,1]]},\"pose_b\":{\"translation\":[2,2,2]},\"query\":\"distance\"}\n",
    )
    .unwrap();
    let spec = format!("{}:2", input.display());
    let Some(r) = render("batchline", &["--batch-line", &spec], "") else {
        return;
    };
    assert_eq!(r.scene["answer"]["id"], 7);
    assert_eq!(r.scene["status"], "disjoint");
    assert!(near(r.point("closest_a"), [0.5; 3], 1e-12));
    assert!(near(r.point("closest_b"), [2.0; 3], 1e-12));
    r.check_marker("closest_a");
    r.check_marker("closest_b");
    r.check_solid("A");
    assert!(near(r.check_solid("B"), [2.25; 3], 1e-9));
}

/// The points of a points layer.
fn layer_points(r: &Rendered, id: &str) -> Vec<[f64; 3]> {
    r.layer(id)["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| xyz(&p["at"]))
        .collect()
}

/// `got` and `want` hold the same points (any order), each within `tol`.
fn same_points(got: &[[f64; 3]], want: &[[f64; 3]], tol: f64) -> bool {
    got.len() == want.len() && want.iter().all(|w| got.iter().any(|g| near(*g, *w, tol)))
}

#[test]
fn manifold_box_on_box_shows_four_contact_points() {
    // B at (0.3, 0.2, 0.75) sinks 0.25 into A's top: the contact rectangle is x in [-0.2, 0.5],
    // y in [-0.3, 0.5]; its corners on A's top (z = 1/2) and on B's bottom (z = 1/4), normal +z.
    let args = ["cube", "cube", "--pose-b", "0.3 0.2 0.75", "--query", "manifold"];
    let Some(r) = render("manifold", &args, "") else { return };
    assert_eq!(r.scene["status"], "overlapping");
    let query: Value = serde_json::from_str(&polycd(&[
        "query",
        "cube",
        "cube",
        "--pose-b",
        "0.3 0.2 0.75",
        "--query",
        "manifold",
        "--json",
    ]))
    .unwrap();
    assert_eq!(
        r.scene["answer"], query,
        "the page shows `polycd query --json`'s answer"
    );
    let corners = |z: f64| -> Vec<[f64; 3]> {
        [[-0.2, -0.3], [0.5, -0.3], [0.5, 0.5], [-0.2, 0.5]]
            .iter()
            .map(|c| [c[0], c[1], z])
            .collect()
    };
    let (a, b) = (layer_points(&r, "manifold_a"), layer_points(&r, "manifold_b"));
    assert!(same_points(&a, &corners(0.5), 1e-9), "{a:?}");
    assert!(same_points(&b, &corners(0.25), 1e-9), "{b:?}");
    let n = r.layer("manifold_normal");
    let v = xyz(&n["vector"]);
    assert!(v[0].abs() < 1e-12 && v[1].abs() < 1e-12 && v[2] > 0.0, "{n}");
    assert_eq!(r.layer("manifold_polygon")["loops"][0].as_array().unwrap().len(), 4);
    assert_eq!(r.check_markers("manifold_a"), 4);
    assert_eq!(r.check_markers("manifold_b"), 4);
    r.check_drawn("manifold_polygon", 40);
    r.check_drawn("manifold_normal", 40);
    r.check_solid("A");
}

/// A U-shaped solid as an OBJ file: the profile (0,0) (3,0) (3,2) (2,2) (2,1) (1,1) (1,2)
/// (0,2) in x–z extruded over y in [0, 1]; its notch is (1,2) × (0,1) × (1,2).
fn u_obj() -> String {
    let profile = [(0, 0), (3, 0), (3, 2), (2, 2), (2, 1), (1, 1), (1, 2), (0, 2)];
    let mut s = String::new();
    for y in [0, 1] {
        for (x, z) in profile {
            s += &format!("v {x} {y} {z}\n");
        }
    }
    for c in [[0, 1, 4], [1, 2, 3], [1, 3, 4], [0, 4, 5], [0, 5, 6], [0, 6, 7]] {
        s += &format!("f {} {} {}\n", c[0] + 1, c[1] + 1, c[2] + 1);
        s += &format!("f {} {} {}\n", c[0] + 9, c[2] + 9, c[1] + 9);
    }
    for i in 0..8 {
        let j = (i + 1) % 8;
        s += &format!("f {} {} {} {}\n", j + 1, i + 1, i + 9, j + 9);
    }
    s
}

/// The U's faces as batch JSON (`"kind": "mesh"`).
fn u_json() -> String {
    let mut v = Vec::new();
    let mut f = Vec::new();
    for l in u_obj().lines() {
        let w: Vec<&str> = l.split(' ').collect();
        match w[0] {
            "v" => v.push(format!("[{},{},{}]", w[1], w[2], w[3])),
            _ => f.push(format!(
                "[{}]",
                w[1..]
                    .iter()
                    .map(|i| (i.parse::<u32>().unwrap() - 1).to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            )),
        }
    }
    format!(
        r#"{{"kind":"mesh","vertices":[{}],"faces":[{}]}}"#,
        v.join(","),
        f.join(",")
    )
}

#[test]
fn mesh_pair_shows_the_closest_triangles_and_pieces() {
    // A half-size cube in the U's notch, 0.2 above its floor (z = 1) and 0.25 from its walls.
    let scratch = Scratch::new("meshpair-in");
    let u = scratch.0.join("u.obj");
    std::fs::write(&u, u_obj()).unwrap();
    let u = u.to_str().unwrap();
    let args = [
        "--mesh",
        u,
        "cube:0.5",
        "--pose-b",
        "1.5 0.5 1.45",
        "--query",
        "distance",
    ];
    let Some(r) = render("meshpair", &args, "#show=pieces_a") else {
        return;
    };
    let query: Value = serde_json::from_str(&polycd(&[
        "query",
        "--mesh",
        u,
        "cube:0.5",
        "--pose-b",
        "1.5 0.5 1.45",
        "--query",
        "distance",
        "--json",
    ]))
    .unwrap();
    assert_eq!(
        r.scene["answer"], query,
        "the page shows `polycd query --mesh --json`'s answer"
    );
    assert_eq!(r.scene["status"], "disjoint");
    assert!((query["distance"].as_f64().unwrap() - 0.2).abs() < 1e-12, "{query}");
    let (a, b) = (r.point("closest_a"), r.point("closest_b"));
    assert!((a[2] - 1.0).abs() < 1e-12 && (b[2] - 1.2).abs() < 1e-12, "{a:?} {b:?}");
    assert!((1.25..=1.75).contains(&b[0]) && (0.25..=0.75).contains(&b[1]), "{b:?}");
    // The closest features: A's triangles lie in the floor z = 1; B's (a convex feature of the
    // cube carrying its closest point) in the cube's bottom z = 1.2.
    let items = r.layer("features")["items"].as_array().unwrap().clone();
    for (body, z, min) in [(0, 1.0, 3), (1, 1.2, 1)] {
        let pts: Vec<[f64; 3]> = items
            .iter()
            .filter(|i| i["body"] == body)
            .flat_map(|i| i["points"].as_array().unwrap().iter().map(xyz).collect::<Vec<_>>())
            .collect();
        assert!(
            pts.len() >= min && pts.iter().all(|p| (p[2] - z).abs() < 1e-12),
            "body {body}: {pts:?}"
        );
    }
    assert_eq!(r.scene["bodies"][0]["kind"], "mesh");
    assert_eq!(r.scene["bodies"][1]["kind"], "convex");
    let pieces = r.layer("pieces_a");
    assert_eq!(pieces["visible"], false, "the piece hulls are shown on request");
    assert_eq!(
        pieces["hulls"].as_array().unwrap().len(),
        r.scene["bodies"][0]["pieces"].as_array().unwrap().len()
    );
    assert!(
        r.scene["bodies"][0]["pieces"].as_array().unwrap().len() >= 3,
        "a U has 3 pieces at least"
    );
    r.check_marker("closest_a");
    r.check_marker("closest_b");
}

#[test]
fn batch_line_with_a_ref_shows_a_mesh_manifold() {
    // Line 1 defines a half-size box; line 2 rests it on the U's notch floor (z = 1) by
    // reference: one contact rectangle, its 4 corners common to both (separation 0).
    let scratch = Scratch::new("batchref-in");
    let input = scratch.0.join("in.jsonl");
    let text = format!(
        "{{\"define\":\"box\",\"shape\":{{\"shape\":\"box:0.5,0.5,0.5\"}}}}\n\
         {{\"id\":\"m\",\"query\":\"manifold\",\"a\":{},\"b\":{{\"ref\":\"box\"}},\"pose_b\":{{\"translation\":[1.5,0.5,1.25]}}}}\n",
        u_json()
    );
    std::fs::write(&input, &text).unwrap();
    let spec = format!("{}:2", input.display());
    let Some(r) = render("batchref", &["--batch-line", &spec], "") else {
        return;
    };
    // The answer the batch prints for line 2.
    let out = Command::new(env!("CARGO_BIN_EXE_polycd"))
        .arg("batch")
        .stdin(std::fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    let batch: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(batch[0]["status"], "defined");
    assert_eq!(
        r.scene["answer"], batch[1],
        "the page shows the batch's answer to line 2"
    );
    assert!(batch[1]["error"].is_null(), "{}", batch[1]);
    assert_eq!(batch[1]["manifolds"].as_array().unwrap().len(), 1, "{}", batch[1]);
    let corners: Vec<[f64; 3]> = [[1.25, 0.25], [1.75, 0.25], [1.75, 0.75], [1.25, 0.75]]
        .iter()
        .map(|c| [c[0], c[1], 1.0])
        .collect();
    let p = layer_points(&r, "manifold");
    assert!(same_points(&p, &corners, 1e-9), "{p:?}");
    assert_eq!(r.check_markers("manifold"), 4);
    r.check_drawn("manifold_polygon", 40);
    r.check_drawn("manifold_normal", 40);
    assert_eq!(r.scene["bodies"][0]["kind"], "mesh");
    assert_eq!(r.scene["bodies"][1]["spec"], "ref box");
}

/// The README's `polycd view` command (its Viewer section), as it stands, renders the page it
/// describes: two shapes apart, their closest points and the segment between them.
#[test]
fn readme_command_renders() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let section = &readme[readme.find("## Viewer").expect("README has a Viewer section")..];
    let line = section
        .lines()
        .find(|l| l.starts_with("polycd view "))
        .expect("the Viewer section shows a `polycd view` command");
    // Shell words: spaces separate, double quotes group.
    let mut words = Vec::new();
    let (mut word, mut quoted) = (String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    words.push(word);
    assert!(!quoted, "unbalanced quotes in {line:?}");
    let o = words
        .iter()
        .position(|w| w == "-o")
        .expect("the command names its output");
    words.drain(o..o + 2);
    let args: Vec<&str> = words[2..].iter().map(String::as_str).collect();
    let Some(r) = render("readme", &args, "") else { return };
    assert_eq!(r.scene["status"], "disjoint", "{line}");
    let (a, b) = (r.point("closest_a"), r.point("closest_b"));
    let d = ((0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>()).sqrt();
    assert!((d - r.scene["answer"]["distance"].as_f64().unwrap()).abs() < 1e-9);
    r.check_marker("closest_a");
    r.check_marker("closest_b");
    r.check_drawn("closest_segment", 40);
    r.check_solid("A");
    r.check_solid("B");
}

/// Without a browser: a batch line using `{"ref": NAME}` from an earlier line is answered as
/// the batch answers it (before, every ref failed: the line was answered alone), a define
/// line is refused with its place, and flags that would be ignored are refused.
#[test]
fn batch_line_refs_and_refusals_without_a_browser() {
    let scratch = Scratch::new("refs-nobrowser");
    let input = scratch.0.join("in.jsonl");
    std::fs::write(
        &input,
        "{\"define\":\"c\",\"shape\":{\"shape\":\"cube\"}}\n\
         {\"id\":2,\"a\":{\"ref\":\"c\"},\"b\":{\"ref\":\"c\"},\"pose_b\":{\"translation\":[2,2,2]},\"query\":\"distance\"}\n",
    )
    .unwrap();
    let page = scratch.0.join("p.html");
    let run = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_polycd")).args(args).output().unwrap();
    let p = page.to_str().unwrap();
    let out = run(&["view", "--batch-line", &format!("{}:2", input.display()), "-o", p]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    let data = element_text(
        &html,
        "<script type=\"application/json\" id=\"polycd-data\"",
        "</script>",
    )
    .unwrap();
    let scene: Value = serde_json::from_str(data).unwrap();
    assert_eq!(scene["answer"]["id"], 2);
    assert_eq!(scene["status"], "disjoint", "{}", scene["answer"]);
    assert!((scene["answer"]["distance"].as_f64().unwrap() - 3f64.sqrt()).abs() < 1e-12);
    assert_eq!(scene["bodies"][0]["spec"], "ref c");
    let ids: Vec<&str> = scene["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"closest_a") && ids.contains(&"closest_b"), "{ids:?}");
    for (args, want) in [
        (
            vec!["view", "--batch-line", &format!("{}:1", input.display()), "-o", p],
            "defines a shape",
        ),
        (
            vec!["view", "--batch-line", &format!("{}:3", input.display()), "-o", p],
            "has no line 3",
        ),
        (
            vec!["view", "cube", "cube", "--pose-a1", "1 0 0", "--margin", "0.1", "-o", p],
            "--margin and --reduce",
        ),
        (
            vec!["view", "cube", "cube", "--query", "distance", "--reduce", "-o", p],
            "--margin and --reduce are for --query manifold",
        ),
    ] {
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(want), "{args:?}: {err}");
    }
}
