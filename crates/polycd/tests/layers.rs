//! The library's layer rule, checked on its sources: every `crate::` path in a module names
//! its own module or one of a lower layer, and no algorithm names another algorithm.
//!
//! Layers, lowest first (ARCHITECTURE.md draws them):
//! core ← shape ← contract ← {gjk, vclip, cd_dual, hs_jump, qp; verify, oracle} ← query ←
//! mesh ← ccd ← broad. `lib.rs` only declares and re-exports, and is not checked. Comments are
//! stripped first (a doc link is no dependency); the root re-exports (`crate::math`, …) are
//! mapped to the module they re-export.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The layer of a top-level module, or `None` for a name the rule does not know.
fn layer(module: &str) -> Option<u32> {
    Some(match module {
        "core" => 0,
        "shape" => 1,
        "contract" => 2,
        "gjk" | "vclip" | "cd_dual" | "hs_jump" | "qp" | "verify" | "oracle" => 3,
        "query" => 4,
        "mesh" => 5,
        "ccd" => 6,
        "broad" => 7,
        _ => return None,
    })
}

/// Modules of layer 3 that must not name each other (the algorithms).
const ALGORITHMS: [&str; 5] = ["gjk", "vclip", "cd_dual", "hs_jump", "qp"];

/// The module a root re-export (`pub use` in lib.rs) stands for.
fn canonical(name: &str) -> &str {
    match name {
        "error" | "geometry" | "math" | "predicates" | "tolerance" | "hash" | "progress" => "core",
        "dk" | "hull" | "io" | "polyhedron" | "shapes" | "support" | "tables" | "topology" | "feature" => "shape",
        other => other,
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source folder") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source with `//` comments and string literals removed.
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut in_str = false;
        let mut prev = ' ';
        let mut kept = String::new();
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if !in_str && c == '/' && chars.get(i + 1) == Some(&'/') {
                break;
            }
            if c == '"' && prev != '\\' && !(prev == '\'' && chars.get(i + 1) == Some(&'\'')) {
                in_str = !in_str;
            } else if !in_str {
                kept.push(c);
            }
            prev = c;
            i += 1;
        }
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

/// The top-level module names after each `crate::` (a `crate::{a, b::c}` group gives `a`, `b`).
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    let mut rest = code;
    while let Some(k) = rest.find("crate::") {
        rest = &rest[k + "crate::".len()..];
        let trimmed = rest.trim_start();
        if let Some(group) = trimmed.strip_prefix('{') {
            // Top-level entries of the group: split at commas outside nested braces.
            let mut depth = 0;
            let mut start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && !c.is_whitespace() => {
                        names.insert(ident(&group[i..]));
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            names.insert(ident(trimmed));
        }
    }
    names.remove("");
    names
}

#[test]
fn every_crate_path_points_down_the_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    assert!(
        files.len() > 20,
        "found only {} source files under {}",
        files.len(),
        src.display()
    );
    let mut violations = Vec::new();
    let mut checked = 0;
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .into_owned();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "lib" {
            continue;
        }
        let Some(own) = layer(&module) else {
            violations.push(format!(
                "{}: module `{module}` has no layer (add it to tests/layers.rs)",
                rel.display()
            ));
            continue;
        };
        let code = code_only(&std::fs::read_to_string(file).unwrap());
        for name in crate_paths(&code) {
            let target = canonical(&name);
            if target == module {
                continue;
            }
            checked += 1;
            match layer(target) {
                None => violations.push(format!(
                    "{}: `crate::{name}` is not a layered module (name the module, not a root re-export)",
                    rel.display()
                )),
                Some(l) if l > own => violations.push(format!(
                    "{}: `crate::{name}` points up (layer {l} from {own})",
                    rel.display()
                )),
                Some(_) if ALGORITHMS.contains(&module.as_str()) && ALGORITHMS.contains(&target) => violations.push(
                    format!("{}: algorithm `{module}` names algorithm `{target}`", rel.display()),
                ),
                Some(l) if l == own && layer(&module) == Some(3) && ALGORITHMS.contains(&target) => {
                    violations.push(format!("{}: `{module}` names algorithm `{target}`", rel.display()))
                }
                _ => {}
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} cross-module paths seen: is the parser broken?"
    );
    assert!(violations.is_empty(), "layer rule broken:\n{}", violations.join("\n"));
}

#[test]
fn the_path_parser_reads_groups_and_skips_comments() {
    let code = code_only(
        "use crate::core::math::DVec3; // crate::query in a comment\n\
         use crate::{cd_dual, gjk::epa, shape::{hull, dk}};\n\
         let s = \"crate::broad in a string\";\n\
         let x = crate::contract::pair_scale(a, b);\n",
    );
    let names: Vec<String> = crate_paths(&code).into_iter().collect();
    assert_eq!(names, ["cd_dual", "contract", "core", "gjk", "shape"]);
}
