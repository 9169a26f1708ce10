//! The batch-line parser and query dispatcher on arbitrary text: always one answer, no panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
fuzz_target!(|line: &str| {
    if line.contains('\n') || line.contains("\"file\"") {
        return;
    }
    let mut shapes = polycd_cli::shape_cache::Shapes::default();
    let ans = polycd_cli::batch_run::answer_next(line, &mut shapes);
    let json = ans.to_json();
    assert!(json.get("status").is_some());
});
