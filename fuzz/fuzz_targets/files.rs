//! The OBJ, OFF and STL readers on arbitrary bytes: typed errors, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: (u8, &[u8])| {
    let ext = ["obj", "off", "stl"][(data.0 % 3) as usize];
    let dir = std::env::temp_dir().join(format!("polycd-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("input.{ext}"));
    if std::fs::write(&path, data.1).is_err() {
        return;
    }
    let _ = polycd::io::read_points(&path);
    let _ = polycd::io::read_polyhedron(&path);
});
