//! Running a batch: named shapes (`define` / `ref`), the shape cache, and the streaming run
//! on every core with the answers in input order.
//!
//! The answer to a line is a function of the line and of the definitions made on earlier
//! lines (plus the files it names); [`crate::batch`] computes it. This module only decides
//! which definitions a line sees and on which thread it is answered:
//!
//! - The input is read in chunks of at most [`CHUNK_LINES`] lines and [`CHUNK_BYTES`] bytes
//!   (a longer single line is read whole, as before), in blocks of at most [`READ_BLOCK`]
//!   bytes split at the newlines: memory holds one chunk, one block read ahead and the
//!   chunk's answers (two chunks and two chunks' answers with a pool), however long the
//!   input.
//! - A chunk's lines are cut into pieces of [`PIECE_LINES`] lines, handed to a rayon pool of
//!   `threads` threads (one thread: the same pieces in order, no pool). First each piece
//!   lists its lines that can be define lines (only lines containing `define` or a backslash
//!   can be: a key `"define"` written with escapes has a backslash); then this thread answers
//!   those, one after the other in input order. Every definition records its line number; a
//!   `ref` on line k sees only definitions made on lines before k, so answering the chunk's
//!   other lines afterwards, in any order, gives what a line-by-line run gives.
//! - Then every piece answers its other lines into its own buffer — through the fast path
//!   (`batch_fast`) when it takes the line, which writes the answer straight into the
//!   buffer and reuses the piece's query cache — and the buffers are written in order.
//!   With a pool, the calling thread writes the previous chunk's buffers and reads the next
//!   chunk while the pool answers this one (the reading and writing overlap the answering;
//!   the next chunk's define lines wait until this chunk is answered).
//!   `--threads 1` and `--threads N` print the same bytes.

pub use crate::answer::write_answer;
use crate::answer::{Answer, Summary};
use crate::batch::{self, solid_of};
use crate::schema::{check_keys, DEFINE_KEYS};
use crate::shape_cache::{Def, LineCtx, Shapes, MAX_DEFINITIONS};
use rayon::prelude::*;
use serde_json::Value;
use std::io::{BufRead, Read, Write};

/// At most this many lines are read before they are answered (the streaming window).
pub const CHUNK_LINES: usize = 8192;
/// A chunk ends once it holds this many bytes (a single longer line is still read whole).
pub const CHUNK_BYTES: usize = 4 << 20;
/// Lines per piece of work handed to a thread: small enough to balance uneven lines, large
/// enough that scheduling costs little per line.
pub const PIECE_LINES: usize = 256;
/// The input is read this many bytes at a time (at most: a pipe gives what it holds), into
/// the run's buffer: less than this is held beyond a chunk's lines. As large as the CLI's
/// `BufReader`, whose reads then go straight to the run's buffer.
pub const READ_BLOCK: usize = 1 << 16;
/// Answers a define line (`v` is an object with the key `define`) made on line `line`.
fn define_line(v: &Value, shapes: &mut Shapes, line: u64) -> Answer {
    let id = v.get("id").cloned().unwrap_or(Value::Null);
    match define(v, shapes, line) {
        Ok(()) => Answer {
            id,
            status: "defined",
            ..Answer::default()
        },
        Err(msg) => Answer::error(id, msg),
    }
}

fn define(v: &Value, shapes: &mut Shapes, line: u64) -> Result<(), String> {
    let obj = v.as_object().ok_or("a define line must be a JSON object")?;
    check_keys(obj, DEFINE_KEYS, "the define line")?;
    let name = match obj.get("define") {
        Some(Value::String(s)) if !s.is_empty() => s,
        Some(Value::String(_)) => return Err("\"define\": the name must not be empty".into()),
        _ => return Err("\"define\" must be a string (the shape's name)".into()),
    };
    if let Some(d) = shapes.defs.get(name) {
        return Err(format!(
            "\"define\": \"{name}\" is already defined (line {}); a name is defined once",
            d.line
        ));
    }
    if shapes.defs.len() >= MAX_DEFINITIONS {
        return Err(format!(
            "\"define\": too many definitions (at most {MAX_DEFINITIONS} names in one batch)"
        ));
    }
    let shape = obj
        .get("shape")
        .filter(|v| !v.is_null())
        .ok_or("missing \"shape\" (the shape object the name stands for)")?;
    let built = solid_of(shape, &LineCtx { shapes, line }).map_err(|e| format!("shape: {e}"));
    // A name whose shape failed is taken too: its refs say why.
    shapes.defs.insert(
        name.clone(),
        Def {
            line,
            shape: built.clone(),
        },
    );
    built.map(|_| ())
}

/// Whether a raw line can be a define line: only those contain `define`, or a backslash
/// (an escaped key). One pass for a backslash or an `f`, each `f` checked as the third letter
/// of `define` (a query line has few: the `f` of `ref`).
fn maybe_define(raw: &[u8]) -> bool {
    let mut at = 0;
    // Bounded: `at` grows on every pass.
    while let Some(k) = memchr::memchr2(b'\\', b'f', &raw[at..]) {
        let k = at + k;
        if raw[k] == b'\\' || (k >= 2 && raw[k - 2..].starts_with(b"define")) {
            return true;
        }
        at = k + 1;
    }
    false
}

/// The define line's answer, when the raw line is a define line (a JSON object with the key
/// `define`); `None` for any other line (answered by [`batch::answer_bytes`]).
fn try_define(raw: &[u8], shapes: &mut Shapes, line: u64) -> Option<Answer> {
    let text = batch::line_text(raw).ok()?;
    let v: Value = serde_json::from_str(text.trim_start_matches('\u{feff}')).ok()?;
    if v.as_object()?.contains_key("define") {
        Some(define_line(&v, shapes, line))
    } else {
        None
    }
}

/// Answers one raw query line (its newline, and a carriage return before it, are dropped):
/// not a define line — [`crate::batch_run`] routes those — at the place `ctx` says.
pub(crate) fn answer_bytes(raw: &[u8], ctx: &LineCtx) -> Answer {
    match batch::line_text(raw) {
        Ok(line) => answer_query_line(line, ctx),
        Err(msg) => Answer::error(Value::Null, msg),
    }
}

/// Answers one query line (not a define line) at the place `ctx` says.
pub(crate) fn answer_query_line(line: &str, ctx: &LineCtx) -> Answer {
    if let Some(ans) = crate::batch_fast::answer(line, ctx) {
        return ans;
    }
    answer_general(line, ctx)
}

/// [`answer_query_line`] without the fast path.
fn answer_general(line: &str, ctx: &LineCtx) -> Answer {
    // A byte-order mark (files saved by some editors start with one) is not JSON.
    let line = line.trim_start_matches('\u{feff}');
    let v: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return Answer::error(Value::Null, format!("invalid JSON: {e}")),
    };
    batch::answer_query_value(&v, ctx)
}

/// Appends the answer to one raw query line (not a define line) to `out`: the fast path's
/// when it takes the line, else [`answer_bytes`]' (the same bytes by construction); returns
/// whether it is an error answer.
fn answer_raw_into<'a>(
    raw: &'a [u8],
    ctx: &LineCtx<'a>,
    st: &mut crate::batch_fast::FastState<'a>,
    out: &mut Vec<u8>,
) -> bool {
    let line = raw.strip_suffix(b"\n").unwrap_or(raw);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if let Some(error) = crate::batch_fast::answer_into(line, ctx, st, out) {
        return error;
    }
    let ans = match batch::line_text(raw) {
        Ok(line) => answer_general(line, ctx),
        Err(msg) => Answer::error(Value::Null, msg),
    };
    write_answer(&ans, out);
    ans.status == "error"
}

/// [`answer_next`] without the fast path: the reference the fast path's tests compare with.
#[cfg(test)]
pub(crate) fn answer_next_general(line: &str, shapes: &mut Shapes) -> Answer {
    shapes.lines += 1;
    let n = shapes.lines;
    match try_define(line.as_bytes(), shapes, n) {
        Some(ans) => ans,
        None => match batch::line_text(line.as_bytes()) {
            Ok(text) => answer_general(text, &LineCtx { shapes, line: n }),
            Err(msg) => Answer::error(Value::Null, msg),
        },
    }
}

/// Answers `line` as the next line of the batch `shapes` holds (a define line too): what
/// [`run`] prints for it.
pub fn answer_next(line: &str, shapes: &mut Shapes) -> Answer {
    shapes.lines += 1;
    let n = shapes.lines;
    match try_define(line.as_bytes(), shapes, n) {
        Some(ans) => ans,
        None => answer_bytes(line.as_bytes(), &LineCtx { shapes, line: n }),
    }
}

/// One piece of a chunk's lines, answered by one thread: the answers' bytes, the error count,
/// the piece's candidate define lines (their index in the chunk) and the answers of those
/// that are define lines, and the query cache its lines reuse (kept from chunk to chunk).
#[derive(Default)]
struct Piece {
    out: Vec<u8>,
    errors: u64,
    candidates: Vec<usize>,
    defined: Vec<(usize, Answer)>,
    cache: polycd::query::PairCache,
}

/// The input buffer of a run: `data[..filled]` holds the bytes read and not yet answered
/// (the current chunk's lines first). Its length is its capacity, zero-filled once, so a read
/// goes straight into it.
#[derive(Default)]
struct InputBuf {
    data: Vec<u8>,
    filled: usize,
}

impl InputBuf {
    /// Drops the first `used` bytes (the lines answered), keeping the rest at the front.
    fn consume(&mut self, used: usize) {
        self.data.copy_within(used..self.filled, 0);
        self.filled -= used;
    }

    /// Reads once from `input` into the free space (made at least [`READ_BLOCK`] bytes);
    /// returns the bytes read (0 at the end of the input).
    fn read_more(&mut self, input: &mut impl Read) -> std::io::Result<usize> {
        if self.data.len() - self.filled < READ_BLOCK {
            let grown = (self.filled + READ_BLOCK).max(2 * self.data.len());
            self.data.resize(grown, 0);
        }
        let k = input.read(&mut self.data[self.filled..self.filled + READ_BLOCK])?;
        self.filled += k;
        Ok(k)
    }
}

/// Reads the next chunk's lines into `buf` (after the bytes already there, which begin with
/// the rest of the input read before) and their ends into `ends`: complete lines until
/// [`CHUNK_LINES`] lines or [`CHUNK_BYTES`] bytes, or all that is left. Returns whether the
/// input ended (at its end, a last line without a newline is a line; after a read error too,
/// and the error goes to `read_error`). Bytes read beyond the chunk's last line stay in `buf`
/// for the next chunk: less than [`READ_BLOCK`] of them.
fn read_chunk(
    input: &mut impl Read,
    buf: &mut InputBuf,
    ends: &mut Vec<usize>,
    read_error: &mut Option<std::io::Error>,
) -> bool {
    ends.clear();
    let mut scan = 0;
    // Bounded by the input: every pass ends a line, reads at least one byte, or returns
    // (an interrupted read is retried, as `read_until` does).
    loop {
        let last = ends.last().copied().unwrap_or(0);
        if ends.len() >= CHUNK_LINES || last >= CHUNK_BYTES {
            return false;
        }
        if let Some(k) = memchr::memchr(b'\n', &buf.data[scan..buf.filled]) {
            scan += k + 1;
            ends.push(scan);
            continue;
        }
        scan = buf.filled;
        match buf.read_more(input) {
            Ok(0) => {
                if buf.filled > last {
                    ends.push(buf.filled);
                }
                return true;
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                // A partial line read before the error is answered as it is.
                if buf.filled > last {
                    ends.push(buf.filled);
                }
                *read_error = Some(e);
                return true;
            }
        }
    }
}

/// One chunk of the input: its lines in `buf.data[..ends.last()]`, line `i` ending (after
/// its newline) at `ends[i]`, and the bytes read after them (the next chunk's first bytes).
#[derive(Default)]
struct Chunk {
    buf: InputBuf,
    ends: Vec<usize>,
}

impl Chunk {
    /// Line `i`'s bytes, its newline included.
    fn line(&self, i: usize) -> &[u8] {
        &self.buf.data[if i == 0 { 0 } else { self.ends[i - 1] }..self.ends[i]]
    }

    /// Makes this chunk hold only `prev`'s bytes after its last line (the next chunk's start).
    fn start_after(&mut self, prev: &Chunk) {
        let tail = &prev.buf.data[prev.ends.last().copied().unwrap_or(0)..prev.buf.filled];
        if self.buf.data.len() < tail.len() {
            self.buf.data.resize(tail.len(), 0);
        }
        self.buf.data[..tail.len()].copy_from_slice(tail);
        self.buf.filled = tail.len();
        self.ends.clear();
    }
}

/// The lines of piece `p` of a chunk of `n` lines.
fn lines_of(p: usize, n: usize) -> std::ops::Range<usize> {
    p * PIECE_LINES..((p + 1) * PIECE_LINES).min(n)
}

/// Cuts the chunk into pieces, lists each piece's candidate define lines (on `pool` when
/// given) and answers the define lines, in input order, on this thread; returns the number of
/// pieces. The chunk's first line is line `first + 1` of the batch.
fn prepare(
    chunk: &Chunk,
    pieces: &mut Vec<Piece>,
    shapes: &mut Shapes,
    first: u64,
    pool: Option<&rayon::ThreadPool>,
) -> usize {
    let n = chunk.ends.len();
    let n_pieces = n.div_ceil(PIECE_LINES);
    if pieces.len() < n_pieces {
        pieces.resize_with(n_pieces, Default::default);
    }
    let find = |(p, piece): (usize, &mut Piece)| {
        piece.candidates.clear();
        piece.defined.clear();
        piece
            .candidates
            .extend(lines_of(p, n).filter(|&i| maybe_define(chunk.line(i))));
    };
    match pool {
        Some(pool) => pool.install(|| pieces[..n_pieces].par_iter_mut().enumerate().for_each(find)),
        None => pieces[..n_pieces].iter_mut().enumerate().for_each(find),
    }
    for piece in &mut pieces[..n_pieces] {
        for &i in &piece.candidates {
            if let Some(ans) = try_define(chunk.line(i), shapes, first + i as u64 + 1) {
                piece.defined.push((i, ans));
            }
        }
    }
    n_pieces
}

/// Answers the chunk's other lines (its define lines are answered by [`prepare`]), piece by
/// piece, each into its own buffer: on the current rayon pool when `parallel`.
fn answer_chunk(chunk: &Chunk, pieces: &mut [Piece], shapes: &Shapes, first: u64, parallel: bool) {
    let n = chunk.ends.len();
    let answer_piece = |(p, piece): (usize, &mut Piece)| {
        piece.out.clear();
        piece.errors = 0;
        let mut st = crate::batch_fast::FastState::new(std::mem::take(&mut piece.cache));
        let mut defined = piece.defined.iter().peekable();
        for i in lines_of(p, n) {
            if let Some((_, ans)) = defined.next_if(|(k, _)| *k == i) {
                piece.errors += u64::from(ans.status == "error");
                write_answer(ans, &mut piece.out);
                continue;
            }
            let ctx = LineCtx {
                shapes,
                line: first + i as u64 + 1,
            };
            piece.errors += u64::from(answer_raw_into(chunk.line(i), &ctx, &mut st, &mut piece.out));
        }
        piece.cache = st.into_cache();
    };
    if parallel {
        pieces.par_iter_mut().enumerate().for_each(answer_piece);
    } else {
        pieces.iter_mut().enumerate().for_each(answer_piece);
    }
}

/// Writes the pieces' answers in order; their error lines go to `errors`.
fn write_pieces(pieces: &[Piece], out: &mut impl Write, errors: &mut u64) -> std::io::Result<()> {
    for piece in pieces {
        out.write_all(&piece.out)?;
        *errors += piece.errors;
    }
    Ok(())
}

/// Reads JSON lines from `input`, writes one answer per line to `out`, answering on
/// `threads` threads (at least 1) with the answers in input order; see the module header.
///
/// A line that is not valid UTF-8 is a bad line (an error answer, the run goes on). A read
/// error ends the run after the lines read before it are answered (a partial last line is
/// answered as it is): it is reported in [`Summary::read_error`], not as an answer line, so a
/// failure that repeats (reading a directory) cannot loop. Errors writing `out` are returned.
///
/// The input is read with [`Read::read`] in blocks of [`READ_BLOCK`] bytes straight into the
/// run's own buffer (a `BufReader` whose capacity is at most that hands its reads through
/// without copying). With more than one thread, the calling thread writes the previous
/// chunk's answers and reads the next chunk while the pool answers this one (two chunks and
/// two chunks' answers in memory at most).
pub fn run(mut input: impl BufRead, out: &mut impl Write, threads: usize) -> std::io::Result<Summary> {
    if threads > 1 {
        let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            Ok(p) => p,
            Err(e) => return Err(std::io::Error::other(format!("cannot start {threads} threads: {e}"))),
        };
        return run_pipelined(input, out, &pool);
    }
    let mut shapes = Shapes::default();
    let mut summary = Summary::default();
    let mut chunk = Chunk::default();
    let mut pieces: Vec<Piece> = Vec::new();
    // Bounded by the input: every chunk but the last holds at least one line.
    loop {
        let end = read_chunk(&mut input, &mut chunk.buf, &mut chunk.ends, &mut summary.read_error);
        let first = summary.lines;
        let n_pieces = prepare(&chunk, &mut pieces, &mut shapes, first, None);
        answer_chunk(&chunk, &mut pieces[..n_pieces], &shapes, first, false);
        write_pieces(&pieces[..n_pieces], out, &mut summary.errors)?;
        summary.lines += chunk.ends.len() as u64;
        if end {
            return Ok(summary);
        }
        // The bytes read after the chunk's last line begin the next chunk.
        chunk.buf.consume(chunk.ends.last().copied().unwrap_or(0));
    }
}

/// [`run`] on a pool of two threads or more: while the pool answers chunk k, this thread
/// writes chunk k − 1's answers and reads chunk k + 1 (into the other chunk buffer). The
/// define lines of chunk k + 1 are answered after chunk k's lines (a definition is made
/// before any later line is answered, as in the one-thread run), so the answers are the same.
fn run_pipelined(mut input: impl BufRead, out: &mut impl Write, pool: &rayon::ThreadPool) -> std::io::Result<Summary> {
    let mut shapes = Shapes::default();
    let mut summary = Summary::default();
    let (mut cur, mut next) = (Chunk::default(), Chunk::default());
    // The pieces being answered, and the previous chunk's answered pieces (`done_n` of them)
    // waiting to be written.
    let (mut pieces, mut done): (Vec<Piece>, Vec<Piece>) = (Vec::new(), Vec::new());
    let mut done_n = 0;
    let mut end = read_chunk(&mut input, &mut cur.buf, &mut cur.ends, &mut summary.read_error);
    // Bounded by the input: every chunk but the last holds at least one line.
    loop {
        let first = summary.lines;
        let n_pieces = prepare(&cur, &mut pieces, &mut shapes, first, Some(pool));
        let mut written = Ok(());
        let mut next_end = true;
        {
            let (cur, shapes, work) = (&cur, &shapes, &mut pieces[..n_pieces]);
            let (done, next, summary) = (&done[..done_n], &mut next, &mut summary);
            let (input, out) = (&mut input, &mut *out);
            pool.in_place_scope(|s| {
                s.spawn(move |_| answer_chunk(cur, work, shapes, first, true));
                written = write_pieces(done, out, &mut summary.errors);
                if !end {
                    next.start_after(cur);
                    next_end = read_chunk(input, &mut next.buf, &mut next.ends, &mut summary.read_error);
                }
            });
        }
        written?;
        summary.lines += cur.ends.len() as u64;
        std::mem::swap(&mut pieces, &mut done);
        done_n = n_pieces;
        if end {
            write_pieces(&done[..done_n], out, &mut summary.errors)?;
            return Ok(summary);
        }
        std::mem::swap(&mut cur, &mut next);
        end = next_end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::RayOut;
    use polycd::{Algorithm, DVec3, Feature, FeaturePair};

    /// The direct writer prints what `Answer::to_json` prints, for every shape of answer.
    #[test]
    fn write_answer_is_to_json() {
        let p = DVec3::new(0.1, -2.5e-17, 3.0e21);
        let answers = [
            Answer::default(),
            Answer::error(Value::String("é\"\\\n\u{1}".into()), "bad \"thing\"\t…".into()),
            Answer {
                id: serde_json::from_str("[1, {\"x\": 1.50}, null, -0]").unwrap(),
                status: "disjoint",
                distance: Some(1.0),
                signed_distance: Some(f64::NAN),
                directional: Some(-0.0),
                point_a: Some(p),
                point_b: Some(DVec3::new(f64::INFINITY, 0.0, 0.0)),
                features: Some(FeaturePair {
                    a: Feature::Vertex(3),
                    b: Feature::Face(u32::MAX),
                }),
                iterations: Some(7),
                ..Answer::default()
            },
            Answer {
                id: serde_json::from_str("123456789012345678901234567890").unwrap(),
                status: "touching",
                feature_a: Some(Feature::Edge(0)),
                ray: Some(RayOut {
                    t: 1e-300,
                    point: p,
                    normal: None,
                }),
                ..Answer::default()
            },
            Answer {
                status: "overlapping",
                ray: Some(RayOut {
                    t: 0.0,
                    point: p,
                    normal: Some(DVec3::Z),
                }),
                ..Answer::default()
            },
            Answer {
                id: Value::from(17),
                status: "defined",
                ..Answer::default()
            },
        ];
        for ans in &answers {
            let mut out = Vec::new();
            write_answer(ans, &mut out);
            assert_eq!(String::from_utf8(out).unwrap(), format!("{}\n", ans.to_json()));
        }
    }

    /// xorshift64*: the test's own generator (no dependency).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn unit(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 53) as f64
        }
        fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
            xs[self.below(xs.len() as u64) as usize]
        }
    }

    /// A number as a user's program may spell it: shortest, `{:e}`, 17 significant digits,
    /// with a trailing zero, an upper-case or signed exponent; integers as integers.
    fn spell(x: f64, rng: &mut Rng) -> String {
        match rng.below(6) {
            0 => format!("{x:e}"),
            1 => format!("{x:.16e}"),
            2 => format!("{x:.16e}").replace('e', "E+").replace("E+-", "E-"),
            3 if x == x.trunc() && x.abs() < 1e15 => format!("{}", x as i64),
            4 => format!("{x:?}0").replace("e0", "e").replace("e-0", "e-"),
            _ => format!("{x:?}"),
        }
    }

    /// The fast path (templates, remembered names and poses, the reused query cache, the
    /// answer written in place) against the general path alone, line by line, on 24 000 lines
    /// of every form the fast path reads and many it must refuse: every algorithm and query,
    /// near-contact and overlapping poses, shapes tiny, huge and far from the origin, numbers
    /// in every spelling, ids of every kind, broken numbers, keys and values in lines that
    /// match the previous line's template everywhere else. `run` on 1 and 2 threads prints
    /// exactly the reference's bytes.
    #[test]
    fn the_fast_path_prints_what_the_general_path_prints() {
        let mut rng = Rng(0x5eed_1234_abcd_ef01);
        let defines = [
            r#"{"define": "cube", "shape": {"shape": "cube"}}"#,
            r#"{"define": "ico", "shape": {"shape": "icosahedron"}}"#,
            r#"{"define": "ball", "shape": {"shape": "icosphere:1"}}"#,
            r#"{"define": "rbox", "shape": {"shape": "box:1,2,3", "radius": 0.25}}"#,
            r#"{"define": "tiny", "shape": {"vertices": [[0,0,0],[1e-7,0,0],[0,1e-7,0],[0,0,1e-7]]}}"#,
            r#"{"define": "huge", "shape": {"vertices": [[0,0,0],[1e7,0,0],[0,1e7,0],[0,0,1e7]]}}"#,
            r#"{"define": "knot", "shape": {"kind": "mesh", "shape": "torus-knot:2,3:24,6"}}"#,
        ];
        let names = ["cube", "ico", "ball", "rbox", "tiny", "huge", "knot", "nowhere"];
        let queries = [
            "distance",
            "intersect",
            "directional",
            "Distance",
            " distance",
            "point",
            "manifold",
        ];
        let algorithms: Vec<String> = Algorithm::ALL.iter().map(|a| a.name().to_string()).collect();
        // Replacements of one number or of the id by text the fast path must refuse or read
        // as the general path does.
        let bad_numbers = [
            "1.", "01", "-", "1e400", "-1e400", "1e-400", "NaN", "\"1\"", "null", "1.5e", "--1", "0x1", "1e+", "+1",
        ];
        let ids = [
            "0",
            "-0",
            "017",
            "1.0",
            "1e2",
            "-12",
            "123456789012345678",
            "1234567890123456789",
            "\"x\"",
            "null",
            "[1, 2]",
            "{\"k\": 1.50}",
            "-",
            "17 ",
        ];
        let mut input = String::new();
        let mut lines = 0;
        for (k, d) in defines.iter().enumerate() {
            input.push_str(d);
            input.push('\n');
            lines += 1;
            // Lines before the later definitions refer to names not yet defined.
            if k == 1 {
                for _ in 0..50 {
                    input.push_str(r#"{"id": 1, "a": {"ref": "cube"}, "b": {"ref": "ball"}, "query": "distance"}"#);
                    input.push('\n');
                    lines += 1;
                }
            }
        }
        let mut prev = String::new();
        while lines < 24_000 {
            let has_digit = prev.bytes().any(|c| c.is_ascii_digit());
            let line = if has_digit && rng.below(4) == 0 {
                // The previous line with one value replaced: the template path's edge.
                let nums: Vec<(usize, usize)> = {
                    let b = prev.as_bytes();
                    let mut v = Vec::new();
                    let mut i = 0;
                    while i < b.len() {
                        if b[i].is_ascii_digit() || (b[i] == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
                            let s = i;
                            while i < b.len() && matches!(b[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                                i += 1;
                            }
                            v.push((s, i));
                        } else {
                            i += 1;
                        }
                    }
                    v
                };
                let (s, e) = nums[rng.below(nums.len() as u64) as usize];
                let with = match rng.below(3) {
                    0 => rng.pick(&bad_numbers).to_string(),
                    1 if prev[..s].ends_with("\"id\": ") => rng.pick(&ids).to_string(),
                    _ => spell((rng.unit() - 0.5) * 6.0, &mut rng),
                };
                format!("{}{with}{}", &prev[..s], &prev[e..])
            } else {
                let a = if rng.below(10) == 0 {
                    rng.pick(&names)
                } else {
                    rng.pick(&names[..2])
                };
                let b = if rng.below(10) == 0 {
                    rng.pick(&names)
                } else {
                    rng.pick(&names[..2])
                };
                let big = if a == "huge" || b == "huge" {
                    1e7
                } else if a == "tiny" || b == "tiny" {
                    1e-7
                } else {
                    1.0
                };
                let far = if rng.below(8) == 0 { 1e6 } else { 0.0 };
                // Near contact most of the time: a random direction at about the contact distance.
                let dir: [f64; 3] = std::array::from_fn(|_| rng.unit() - 0.5);
                let n = dir.iter().map(|c| c * c).sum::<f64>().sqrt().max(1e-9);
                let r = big * (0.5 + 2.0 * rng.unit());
                let t = dir.map(|c| far + c / n * r);
                let q: [f64; 4] = std::array::from_fn(|_| rng.unit() - 0.5);
                let num = |x: f64, rng: &mut Rng| spell(x, rng);
                let mut parts: Vec<String> = Vec::new();
                if rng.below(6) != 0 {
                    parts.push(format!(
                        "\"id\": {}",
                        if rng.below(5) == 0 {
                            rng.pick(&ids).to_string()
                        } else {
                            lines.to_string()
                        }
                    ));
                }
                parts.push(format!("\"a\": {{\"ref\": \"{a}\"}}"));
                parts.push(format!("\"b\": {{\"ref\": \"{b}\"}}"));
                match rng.below(4) {
                    0 => {}
                    1 => parts.push("\"pose_a\": {\"translation\": [0, 0, 0], \"rotation\": [1, 0, 0, 0]}".into()),
                    _ => parts.push(format!(
                        "\"pose_a\": {{\"translation\": [{}, {}, {}]}}",
                        num(far, &mut rng),
                        num(far, &mut rng),
                        num(far, &mut rng)
                    )),
                }
                if rng.below(10) != 0 {
                    parts.push(format!(
                        "\"pose_b\": {{\"translation\": [{}, {}, {}], \"rotation\": [{}, {}, {}, {}]}}",
                        num(t[0], &mut rng),
                        num(t[1], &mut rng),
                        num(t[2], &mut rng),
                        num(q[0], &mut rng),
                        num(q[1], &mut rng),
                        num(q[2], &mut rng),
                        num(q[3], &mut rng)
                    ));
                }
                let query = if rng.below(3) == 0 {
                    rng.pick(&queries)
                } else {
                    "distance"
                };
                parts.push(format!("\"query\": \"{query}\""));
                if rng.below(3) == 0 {
                    parts.push(format!(
                        "\"algorithm\": \"{}\"",
                        algorithms[rng.below(algorithms.len() as u64) as usize]
                    ));
                }
                if query == "directional" || rng.below(8) == 0 {
                    parts.push(format!(
                        "\"direction\": [{}, {}, 0]",
                        num(-t[0], &mut rng),
                        num(-t[1], &mut rng)
                    ));
                }
                match rng.below(40) {
                    0 => parts.push("\"colour\": 1".into()),
                    1 => parts.push("\"query\": \"distance\"".into()),
                    2 => parts.push("\"pose_b\": null".into()),
                    3 => parts.swap(0, 1),
                    _ => {}
                }
                let sep = if rng.below(10) == 0 { " ,  " } else { ", " };
                format!("{{{}}}", parts.join(sep))
            };
            input.push_str(&line);
            input.push_str(if rng.below(50) == 0 { "\r\n" } else { "\n" });
            prev = line;
            lines += 1;
        }
        let mut shapes = Shapes::default();
        let mut want = Vec::new();
        for line in input.split_terminator('\n') {
            write_answer(&answer_next_general(line, &mut shapes), &mut want);
        }
        let want = String::from_utf8(want).unwrap();
        let (mut errors, mut answered) = (0, 0);
        for l in want.lines() {
            if l.contains("\"status\":\"error\"") {
                errors += 1;
            } else {
                answered += 1;
            }
        }
        // The sample covers both sides: most lines answered (the fast path's), many refused.
        assert!(
            answered > 15_000 && errors > 1_000,
            "{answered} answered, {errors} errors"
        );
        for threads in [1, 2] {
            let mut out = Vec::new();
            let s = run(input.as_bytes(), &mut out, threads).unwrap();
            assert_eq!(s.lines, lines as u64);
            let got = String::from_utf8(out).unwrap();
            for (k, (g, w)) in got.lines().zip(want.lines()).enumerate() {
                assert_eq!(g, w, "line {}: {}", k + 1, input.lines().nth(k).unwrap_or(""));
            }
            assert_eq!(got.len(), want.len());
        }
    }

    /// A reader that hands out its bytes in reads of 1 to 9 000 bytes (seeded), as a pipe may.
    struct Trickle {
        data: Vec<u8>,
        at: usize,
        rng: Rng,
    }

    impl std::io::Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let k = (1 + self.rng.below(9000) as usize)
                .min(buf.len())
                .min(self.data.len() - self.at);
            buf[..k].copy_from_slice(&self.data[self.at..self.at + k]);
            self.at += k;
            Ok(k)
        }
    }

    /// The pipelined run (the next chunk read while this one is answered): definitions made on
    /// every chunk, at the chunks' first and last lines, used by the very next line across a
    /// chunk's end, redefinitions, lines longer than a read, reads of any size — line by line
    /// what the general path gives, on 1, 2 and 3 threads, byte for byte.
    #[test]
    fn definitions_across_chunks_on_every_thread_count() {
        let mut rng = Rng(0x0dd_ba11_5eed);
        let shapes = ["cube", "icosahedron", "box:1,2,3", "icosphere:1", "tetrahedron"];
        let mut input = String::new();
        let mut names: Vec<String> = vec!["s0".into()];
        input.push_str("{\"define\": \"s0\", \"shape\": {\"shape\": \"cube\"}}\n");
        let total = 3 * CHUNK_LINES + 500;
        let mut n = 1;
        while n < total {
            let at = n % CHUNK_LINES;
            // Definitions at both ends of every chunk, and a few anywhere.
            let line = if at == 0 || at == CHUNK_LINES - 1 || rng.below(150) == 0 {
                let name = if rng.below(10) == 0 {
                    names[rng.below(names.len() as u64) as usize].clone()
                } else {
                    format!("s{n}")
                };
                names.push(name.clone());
                format!(
                    "{{\"define\": \"{name}\", \"shape\": {{\"shape\": \"{}\"}}}}",
                    rng.pick(&shapes)
                )
            } else {
                // Mostly the newest name (defined on the line before, maybe in the last chunk).
                let a = if rng.below(3) == 0 {
                    &names[rng.below(names.len() as u64) as usize]
                } else {
                    names.last().unwrap()
                };
                let b = &names[rng.below(names.len() as u64) as usize];
                let x = 0.5 + 3.0 * rng.unit();
                let pad = if rng.below(200) == 0 {
                    " ".repeat(70_000)
                } else {
                    String::new()
                };
                format!(
                    "{{\"id\": {n}, \"a\": {{\"ref\": \"{a}\"}},{pad} \"b\": {{\"ref\": \"{b}\"}}, \"pose_b\": {{\"translation\": [{x:?}, 0.25, 0], \"rotation\": [{:?}, 0.5, 0.5, 0.5]}}, \"query\": \"distance\"}}",
                    0.5 + rng.unit()
                )
            };
            input.push_str(&line);
            input.push('\n');
            n += 1;
        }
        let mut reference = Shapes::default();
        let mut want = Vec::new();
        for line in input.split_terminator('\n') {
            write_answer(&answer_next_general(line, &mut reference), &mut want);
        }
        let text = String::from_utf8(want.clone()).unwrap();
        let defined = text.lines().filter(|l| l.contains("\"status\":\"defined\"")).count();
        let refused = text.lines().filter(|l| l.contains("already defined")).count();
        assert!(
            defined > 100 && refused > 5,
            "{defined} defined, {refused} redefinitions"
        );
        for threads in [1, 2, 3] {
            for trickle in [false, true] {
                let mut out = Vec::new();
                let s = if trickle {
                    let reader = std::io::BufReader::new(Trickle {
                        data: input.clone().into_bytes(),
                        at: 0,
                        rng: Rng(threads as u64 + 7),
                    });
                    run(reader, &mut out, threads).unwrap()
                } else {
                    run(input.as_bytes(), &mut out, threads).unwrap()
                };
                assert_eq!(s.lines, total as u64);
                if out != want {
                    let got = String::from_utf8(out).unwrap();
                    let k = got.lines().zip(text.lines()).position(|(g, w)| g != w);
                    panic!("{threads} threads, trickle {trickle}: first difference at line {k:?}");
                }
            }
        }
    }

    /// The define-line scan: every line with `define` (or a backslash) is a candidate, and the
    /// `f`s of other lines are not.
    #[test]
    fn define_candidates() {
        for (line, want) in [
            (r#"{"define": "x", "shape": {"shape": "cube"}}"#, true),
            (r#"{"a": {"ref": "f"}, "b": {"ref": "ff"}, "query": "distance"}"#, false),
            (r#"{"\u0064efine": "x"}"#, true),
            ("define", true),
            ("fdefine", true),
            ("defin", false),
            ("efine", false),
            ("", false),
            ("f", false),
            ("ddefinedefine", true),
        ] {
            assert_eq!(maybe_define(line.as_bytes()), want, "{line}");
        }
    }

    /// A reader that gives `data`, then fails with `kind` on every later read (as a failing
    /// disk does).
    struct FailingAfter {
        data: std::io::Cursor<Vec<u8>>,
        kind: std::io::ErrorKind,
        reads_after: u32,
    }

    impl std::io::Read for FailingAfter {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.data.read(buf)?;
            if n > 0 {
                return Ok(n);
            }
            self.reads_after += 1;
            Err(std::io::Error::new(self.kind, "simulated"))
        }
    }

    /// Issue 29 item 1: a read error after some input answers every line read before it (the
    /// partial last line as it is), then ends the run with the error: one failing read, not a
    /// loop.
    #[test]
    fn a_read_error_ends_the_run_after_answering_what_was_read() {
        let line = r#"{"id":1,"a":{"shape":"cube"},"b":{"shape":"cube"},"pose_b":{"translation":[3,0,0]}}"#;
        let mut reader = std::io::BufReader::new(FailingAfter {
            data: std::io::Cursor::new(format!("{line}\nnot json\n{{\"id\":3").into_bytes()),
            kind: std::io::ErrorKind::Other,
            reads_after: 0,
        });
        let mut out = Vec::new();
        let s = run(&mut reader, &mut out, 1).unwrap();
        assert_eq!(reader.get_ref().reads_after, 1);
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[0].contains(r#""status":"disjoint""#), "{}", lines[0]);
        assert!(
            lines[1].contains("invalid JSON") && lines[2].contains("invalid JSON"),
            "{text}"
        );
        assert_eq!((s.lines, s.errors), (3, 2));
        assert_eq!(s.read_error.as_ref().map(|e| e.kind()), Some(std::io::ErrorKind::Other));
        assert_eq!(s.exit_code(), 3);
        // A clean end: 1 with error lines, 0 without.
        let mut out = Vec::new();
        assert_eq!(
            run(format!("{line}\n\n").as_bytes(), &mut out, 1).unwrap().exit_code(),
            1
        );
        assert_eq!(run(format!("{line}\n").as_bytes(), &mut out, 1).unwrap().exit_code(), 0);
    }
}
