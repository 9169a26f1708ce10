//! The OBJ, OFF, STL and point-list readers on arbitrary bytes: typed errors, never a panic;
//! whatever parses goes on to the hull.
#![no_main]

use libfuzzer_sys::fuzz_target;
use polycd::io::{mesh_from_bytes, points_from_bytes, MeshFormat};

fuzz_target!(|data: (u8, &[u8])| {
    let format = match data.0 % 4 {
        0 => MeshFormat::Obj,
        1 => MeshFormat::Off,
        2 => MeshFormat::Stl,
        _ => MeshFormat::Points,
    };
    if let Ok(points) = points_from_bytes(data.1, format, "fuzz") {
        let _ = polycd::ConvexPolyhedron::from_points(&points);
    }
    if format != MeshFormat::Points {
        if let Ok(mesh) = mesh_from_bytes(data.1, format, "fuzz") {
            let _ = mesh;
        }
    }
});
