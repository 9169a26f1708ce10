//! Runs a scenario without the CLI (the CLI's `polycd bench` does the same):
//! `cargo run --release -p polycd-bench --example run -- NAME|all|--list [--quick] [--out DIR] [--seed N]`.

fn main() {
    let mut args = std::env::args().skip(1);
    let mut name = None;
    let mut opts = polycd_bench::RunOptions {
        progress: true,
        ..Default::default()
    };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--list" => {
                for s in polycd_bench::scenarios() {
                    println!("{:<16} {}", s.name, s.description);
                }
                return;
            }
            "--quick" => opts.quick = true,
            "--out" => opts.out_dir = args.next().unwrap_or_default().into(),
            "--seed" => opts.seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(opts.seed),
            _ => name = Some(a),
        }
    }
    let name = name.unwrap_or_else(|| "all".into());
    match polycd_bench::run(&name, &opts) {
        Ok(r) => {
            print!("{}", r.table);
            for f in &r.files {
                println!("wrote {}", f.display());
            }
            for u in &r.unavailable {
                println!("n/a: {u}");
            }
            if !r.agrees() {
                std::process::exit(2);
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
