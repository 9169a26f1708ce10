//! `polycd bench batch`: the batch's throughput (issue 27 item 3) — answered lines per second
//! on the line, on 1 thread and on every core, with the two runs' answers compared
//! byte for byte. Lives in the CLI (the batch is the CLI's), reached through `polycd bench`.

use crate::batch_run;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hash::Hasher;
use std::io::Write;
use std::time::Instant;

/// The benchmark's input: two define lines (`cube`, `ico`), then `lines - 2` distance lines
/// by `ref` with an identity `pose_a` and a random `pose_b` (full-precision numbers, ~250
/// bytes a line), seeded.
pub fn input(lines: usize, seed: u64) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut s = String::with_capacity(lines * 260);
    s.push_str("{\"define\": \"cube\", \"shape\": {\"shape\": \"cube\"}}\n");
    s.push_str("{\"define\": \"ico\", \"shape\": {\"shape\": \"icosahedron\"}}\n");
    for id in 2..lines {
        let t: [f64; 3] = std::array::from_fn(|_| rng.random_range(-2.5..2.5));
        let q = polycd::shapes::random_rotation(&mut rng);
        s.push_str(&format!(
            "{{\"id\": {id}, \"a\": {{\"ref\": \"cube\"}}, \"b\": {{\"ref\": \"ico\"}}, \"pose_a\": {{\"translation\": [0, 0, 0], \"rotation\": [1, 0, 0, 0]}}, \"pose_b\": {{\"translation\": [{:?}, {:?}, {:?}], \"rotation\": [{:?}, {:?}, {:?}, {:?}]}}, \"query\": \"distance\"}}\n",
            t[0], t[1], t[2], q.w, q.x, q.y, q.z
        ));
    }
    s.into_bytes()
}

/// Counts and hashes what is written (the timed runs only count).
struct Sink {
    bytes: u64,
    hash: Option<std::collections::hash_map::DefaultHasher>,
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes += buf.len() as u64;
        if let Some(h) = &mut self.hash {
            h.write(buf);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One run: (seconds, answer lines, error lines, output bytes, output hash when hashing).
fn run_once(input: &[u8], threads: usize, hash: bool) -> Result<(f64, u64, u64, u64, Option<u64>), String> {
    let mut sink = Sink {
        bytes: 0,
        hash: hash.then(Default::default),
    };
    let t0 = Instant::now();
    let s = batch_run::run(input, &mut sink, threads).map_err(|e| e.to_string())?;
    let dt = t0.elapsed().as_secs_f64();
    Ok((dt, s.lines, s.errors, sink.bytes, sink.hash.map(|h| h.finish())))
}

/// Runs the benchmark and prints its table; `Err` when the thread counts' answers differ or
/// a line is an error.
pub fn run(quick: bool) -> Result<(), String> {
    let lines = if quick { 100_000 } else { 1_000_000 };
    let reps = if quick { 2 } else { 5 };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let data = input(lines, 27);
    println!(
        "batch throughput: {lines} lines ({:.0} bytes a line, distance between `ref` shapes cube and icosahedron), best of {reps}",
        data.len() as f64 / lines as f64
    );
    let mut counts = vec![1, 2];
    if cores > 2 {
        counts.push(cores);
    }
    let mut reference = None;
    let mut rate1 = 0.0;
    println!("| threads | seconds | lines/s | of the ideal (threads × 1-thread rate) |");
    println!("|---|---|---|---|");
    for &t in &counts {
        let (_, n, errors, bytes, hash) = run_once(&data, t, true)?;
        if n != lines as u64 || errors != 0 {
            return Err(format!("{t} threads: {n} lines answered, {errors} errors"));
        }
        match reference {
            None => reference = Some((bytes, hash)),
            Some(r) if r != (bytes, hash) => return Err(format!("{t} threads: the answers differ from 1 thread's")),
            Some(_) => {}
        }
        let best = (0..reps)
            .map(|_| run_once(&data, t, false).map(|r| r.0))
            .collect::<Result<Vec<f64>, String>>()?
            .into_iter()
            .fold(f64::INFINITY, f64::min);
        let rate = lines as f64 / best;
        if t == 1 {
            rate1 = rate;
        }
        println!(
            "| {t} | {best:.3} | {:.0} | {:.0} % |",
            rate,
            100.0 * rate / (t as f64 * rate1)
        );
    }
    println!(
        "answers identical on every thread count ({} bytes)",
        reference.map_or(0, |r| r.0)
    );
    Ok(())
}
