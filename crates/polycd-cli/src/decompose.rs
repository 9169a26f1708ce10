//! `polycd decompose`: a closed mesh's convex surface decomposition as a product — an OBJ
//! file with one group per piece, the binary decomposition (mesh, pieces and hull tree, read
//! back by `TriMesh::load` and by `toc` as a `.pcdm` file), and a summary.

use crate::toc;
use polycd::mesh::TriMesh;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

/// What to decompose and where to write it.
pub struct DecomposeInput<'a> {
    /// A mesh file (`.obj`, `.off`, `.stl`), a saved decomposition (`.pcdm`) or a
    /// `torus-knot:` spec.
    pub shape: &'a str,
    /// The OBJ file to write (one `g piece_<i>` group per piece).
    pub obj: Option<&'a Path>,
    /// The binary decomposition to write.
    pub save: Option<&'a Path>,
}

/// Builds (or reads) the decomposition, writes the requested files and returns the summary
/// (pieces, triangles per piece, build time, repair) as JSON.
pub fn run(input: &DecomposeInput) -> Result<Value, String> {
    let start = Instant::now();
    let mesh = toc::load_mesh(input.shape).map_err(|e| e.to_string())?;
    let build_s = start.elapsed().as_secs_f64();
    if let Some(path) = input.obj {
        std::fs::write(path, obj_text(&mesh)).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    }
    if let Some(path) = input.save {
        mesh.save(path).map_err(|e| e.to_string())?;
    }
    let mut sizes: Vec<usize> = mesh.pieces().iter().map(Vec::len).collect();
    sizes.sort_unstable();
    let median = sizes.get(sizes.len() / 2).copied().unwrap_or(0);
    let mut histogram = serde_json::Map::new();
    for (lo, hi) in [
        (1, 1),
        (2, 3),
        (4, 7),
        (8, 15),
        (16, 31),
        (32, 63),
        (64, 127),
        (128, usize::MAX),
    ] {
        let n = sizes.iter().filter(|&&s| s >= lo && s <= hi).count();
        if n > 0 {
            let key = if hi == usize::MAX {
                format!("{lo}+")
            } else if lo == hi {
                format!("{lo}")
            } else {
                format!("{lo}-{hi}")
            };
            histogram.insert(key, json!(n));
        }
    }
    Ok(json!({
        "shape": input.shape,
        "triangles": mesh.triangles().len(),
        "vertices": mesh.vertices().len(),
        "pieces": mesh.pieces().len(),
        "tree_nodes": mesh.nodes().len(),
        "triangles_per_piece": {
            "min": sizes.first().copied().unwrap_or(0),
            "median": median,
            "max": sizes.last().copied().unwrap_or(0),
            "mean": mesh.triangles().len() as f64 / mesh.pieces().len().max(1) as f64,
            "histogram": Value::Object(histogram),
        },
        "build_seconds": build_s,
        "volume": mesh.volume(),
        "repair": mesh.repair().to_string(),
        "obj": input.obj.map(|p| p.display().to_string()),
        "saved": input.save.map(|p| p.display().to_string()),
    }))
}

/// The summary as text.
pub fn text(v: &Value) -> String {
    let mut s = String::new();
    let tp = &v["triangles_per_piece"];
    let _ = writeln!(s, "shape:               {}", v["shape"].as_str().unwrap_or(""));
    let _ = writeln!(s, "triangles:           {}", v["triangles"]);
    let _ = writeln!(s, "pieces:              {}", v["pieces"]);
    let _ = writeln!(
        s,
        "triangles per piece: min {}, median {}, mean {:.2}, max {}",
        tp["min"],
        tp["median"],
        tp["mean"].as_f64().unwrap_or(0.0),
        tp["max"]
    );
    if let Some(h) = tp["histogram"].as_object() {
        let parts: Vec<String> = h.iter().map(|(k, n)| format!("{k}: {n}")).collect();
        let _ = writeln!(s, "  histogram:         {}", parts.join(", "));
    }
    let _ = writeln!(s, "hull tree nodes:     {}", v["tree_nodes"]);
    let _ = writeln!(
        s,
        "build time:          {:.3} s (repair, checks, decomposition, hull tree)",
        v["build_seconds"].as_f64().unwrap_or(0.0)
    );
    let _ = writeln!(s, "repair:              {}", v["repair"].as_str().unwrap_or(""));
    if let Some(p) = v["obj"].as_str() {
        let _ = writeln!(s, "wrote:               {p} (one OBJ group per piece)");
    }
    if let Some(p) = v["saved"].as_str() {
        let _ = writeln!(s, "saved:               {p} (decomposition and hull tree)");
    }
    s
}

/// The mesh as OBJ text: its vertices in order (1-based), then one group per piece with its
/// triangles (counter-clockwise from outside).
pub fn obj_text(m: &TriMesh) -> String {
    let mut s = String::with_capacity(m.vertices().len() * 40 + m.triangles().len() * 24);
    let _ = writeln!(
        s,
        "# polycd decompose: {} triangles in {} convex pieces",
        m.triangles().len(),
        m.pieces().len()
    );
    for p in m.vertices() {
        let _ = writeln!(s, "v {:?} {:?} {:?}", p.x, p.y, p.z);
    }
    for (i, piece) in m.pieces().iter().enumerate() {
        let _ = writeln!(s, "g piece_{i}");
        for &t in piece {
            let [a, b, c] = m.triangles()[t as usize];
            let _ = writeln!(s, "f {} {} {}", a + 1, b + 1, c + 1);
        }
    }
    s
}
