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
//!   chunk's answers, however long the input.
//! - A chunk's lines are cut into pieces of [`PIECE_LINES`] lines, handed to a rayon pool of
//!   `threads` threads (one thread: the same pieces in order, no pool). First each piece
//!   lists its lines that can be define lines (only lines containing `define` or a backslash
//!   can be: a key `"define"` written with escapes has a backslash); then this thread answers
//!   those, one after the other in input order. Every definition records its line number; a
//!   `ref` on line k sees only definitions made on lines before k, so answering the chunk's
//!   other lines afterwards, in any order, gives what a line-by-line run gives.
//! - Then every piece answers its other lines into its own buffer — through the fast path
//!   ([`crate::batch_fast`]) when it takes the line, which writes the answer straight into the
//!   buffer and reuses the piece's query cache — and the buffers are written in order.
//!   `--threads 1` and `--threads N` print the same bytes.

use crate::answer::{Answer, Summary};
use crate::batch::{self, solid_of};
use crate::schema::{check_keys, DEFINE_KEYS};
use crate::shape_cache::{Def, LineCtx, Shapes, MAX_DEFINITIONS};
use polycd::DVec3;
use rayon::prelude::*;
use serde_json::Value;
use std::io::{BufRead, Write};

/// At most this many lines are read before they are answered (the streaming window).
pub const CHUNK_LINES: usize = 8192;
/// A chunk ends once it holds this many bytes (a single longer line is still read whole).
pub const CHUNK_BYTES: usize = 4 << 20;
/// Lines per piece of work handed to a thread: small enough to balance uneven lines, large
/// enough that scheduling costs little per line.
pub const PIECE_LINES: usize = 256;
/// At most this many bytes are taken from the input at a time (an in-memory input hands out
/// all it has at once): the most a chunk's buffer holds beyond its lines.
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
/// (an escaped key).
fn maybe_define(raw: &[u8], finder: &memchr::memmem::Finder) -> bool {
    memchr::memchr(b'\\', raw).is_some() || finder.find(raw).is_some()
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

/// Reads the next chunk's lines into `buf` (after the `keep` bytes already there, which
/// begin with the rest of the input read before) and their ends into `ends`: complete lines
/// until [`CHUNK_LINES`] lines or [`CHUNK_BYTES`] bytes, or all that is left. Returns whether
/// the input ended (at its end, a last line without a newline is a line; after a read error
/// too, and the error goes to `read_error`). Bytes read beyond the chunk's last line stay in
/// `buf` for the next chunk: at most [`READ_BLOCK`] of them.
fn read_chunk(
    input: &mut impl BufRead,
    buf: &mut Vec<u8>,
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
        if let Some(k) = memchr::memchr(b'\n', &buf[scan..]) {
            scan += k + 1;
            ends.push(scan);
            continue;
        }
        scan = buf.len();
        match input.fill_buf() {
            Ok([]) => {
                if buf.len() > last {
                    ends.push(buf.len());
                }
                return true;
            }
            Ok(data) => {
                let k = data.len().min(READ_BLOCK);
                buf.extend_from_slice(&data[..k]);
                input.consume(k);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                // A partial line read before the error is answered as it is.
                if buf.len() > last {
                    ends.push(buf.len());
                }
                *read_error = Some(e);
                return true;
            }
        }
    }
}

/// Reads JSON lines from `input`, writes one answer per line to `out`, answering on
/// `threads` threads (at least 1) with the answers in input order; see the module header.
///
/// A line that is not valid UTF-8 is a bad line (an error answer, the run goes on). A read
/// error ends the run after the lines read before it are answered (a partial last line is
/// answered as it is): it is reported in [`Summary::read_error`], not as an answer line, so a
/// failure that repeats (reading a directory) cannot loop. Errors writing `out` are returned.
pub fn run(mut input: impl BufRead, out: &mut impl Write, threads: usize) -> std::io::Result<Summary> {
    let pool = if threads > 1 {
        match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            Ok(p) => Some(p),
            Err(e) => return Err(std::io::Error::other(format!("cannot start {threads} threads: {e}"))),
        }
    } else {
        None
    };
    let finder = memchr::memmem::Finder::new(b"define");
    let mut shapes = Shapes::default();
    let mut summary = Summary::default();
    let mut buf: Vec<u8> = Vec::new();
    let mut ends: Vec<usize> = Vec::new();
    let mut pieces: Vec<Piece> = Vec::new();
    // Bounded by the input: every chunk but the last holds at least one line.
    loop {
        let end = read_chunk(&mut input, &mut buf, &mut ends, &mut summary.read_error);
        let n = ends.len();
        let first = summary.lines;
        let n_pieces = n.div_ceil(PIECE_LINES);
        if pieces.len() < n_pieces {
            pieces.resize_with(n_pieces, Default::default);
        }
        let buf_ref = &buf;
        let ends_ref = &ends;
        let line_at = |i: usize| &buf_ref[if i == 0 { 0 } else { ends_ref[i - 1] }..ends_ref[i]];
        let lines_of = |p: usize| p * PIECE_LINES..((p + 1) * PIECE_LINES).min(n);
        // The lines that may be define lines, piece by piece (on the pool).
        let find = |(p, piece): (usize, &mut Piece)| {
            piece.candidates.clear();
            piece.defined.clear();
            piece
                .candidates
                .extend(lines_of(p).filter(|&i| maybe_define(line_at(i), &finder)));
        };
        match &pool {
            Some(pool) => pool.install(|| pieces[..n_pieces].par_iter_mut().enumerate().for_each(find)),
            None => pieces[..n_pieces].iter_mut().enumerate().for_each(find),
        }
        // The define lines, in input order, on this thread.
        for piece in &mut pieces[..n_pieces] {
            for &i in &piece.candidates {
                if let Some(ans) = try_define(line_at(i), &mut shapes, first + i as u64 + 1) {
                    piece.defined.push((i, ans));
                }
            }
        }
        // Then every other line, piece by piece, each into its own buffer.
        let shapes_ref = &shapes;
        let answer_piece = |(p, piece): (usize, &mut Piece)| {
            piece.out.clear();
            piece.errors = 0;
            let mut st = crate::batch_fast::FastState::new(std::mem::take(&mut piece.cache));
            let mut defined = piece.defined.iter().peekable();
            for i in lines_of(p) {
                if let Some((_, ans)) = defined.next_if(|(k, _)| *k == i) {
                    piece.errors += u64::from(ans.status == "error");
                    write_answer(ans, &mut piece.out);
                    continue;
                }
                let ctx = LineCtx {
                    shapes: shapes_ref,
                    line: first + i as u64 + 1,
                };
                piece.errors += u64::from(answer_raw_into(line_at(i), &ctx, &mut st, &mut piece.out));
            }
            piece.cache = st.into_cache();
        };
        match &pool {
            Some(pool) => pool.install(|| pieces[..n_pieces].par_iter_mut().enumerate().for_each(answer_piece)),
            None => pieces[..n_pieces].iter_mut().enumerate().for_each(answer_piece),
        }
        for piece in &pieces[..n_pieces] {
            out.write_all(&piece.out)?;
            summary.errors += piece.errors;
        }
        summary.lines += n as u64;
        if end {
            return Ok(summary);
        }
        // The bytes read after the chunk's last line begin the next chunk.
        buf.drain(..ends.last().copied().unwrap_or(0));
    }
}

/// Appends the answer's JSON line (with its newline) to `out`: the bytes of
/// `format!("{}\n", ans.to_json())`, written without building the JSON value.
pub fn write_answer(ans: &Answer, out: &mut Vec<u8>) {
    write_answer_id(ans, None, out);
}

/// [`write_answer`] with the id given as the JSON text serde_json writes for it (`ans.id` is
/// then not read): `id_text` is a plain integer's text, which serde_json writes back as read.
pub(crate) fn write_answer_id(ans: &Answer, id_text: Option<&[u8]>, out: &mut Vec<u8>) {
    // Answers with keys this writer does not spell out (a mesh side's features, a manifold) take the
    // general serialisation: the same bytes by construction.
    if ans.solid_features.is_some()
        || ans.solid_feature_a.is_some()
        || ans.manifold.is_some()
        || ans.mesh_manifolds.is_some()
        || ans.toc.is_some()
    {
        let mut v = ans.to_json();
        if let Some(id) = id_text.and_then(|t| serde_json::from_slice(t).ok()) {
            v["id"] = id;
        }
        write_value(&v, out);
        out.push(b'\n');
        return;
    }
    out.extend_from_slice(b"{\"id\":");
    match id_text {
        Some(t) => out.extend_from_slice(t),
        None => write_value(&ans.id, out),
    }
    out.extend_from_slice(b",\"status\":\"");
    out.extend_from_slice(ans.status.as_bytes());
    if ans.status == "defined" {
        out.extend_from_slice(b"\",\"error\":null}\n");
        return;
    }
    out.extend_from_slice(b"\",\"distance\":");
    let d = out.len();
    write_num(ans.distance, out);
    let d = d..out.len();
    out.extend_from_slice(b",\"signed_distance\":");
    match (ans.distance, ans.signed_distance) {
        // The same number (a separated pair's two distances): the same text.
        (Some(x), Some(y)) if x.to_bits() == y.to_bits() => out.extend_from_within(d),
        _ => write_num(ans.signed_distance, out),
    }
    out.extend_from_slice(b",\"directional\":");
    write_num(ans.directional, out);
    out.extend_from_slice(b",\"ray\":");
    match ans.ray {
        Some(r) => {
            out.extend_from_slice(b"{\"t\":");
            write_num(Some(r.t), out);
            out.extend_from_slice(b",\"point\":");
            write_vec(Some(r.point), out);
            out.extend_from_slice(b",\"normal\":");
            write_vec(r.normal, out);
            out.push(b'}');
        }
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"point_a\":");
    write_vec(ans.point_a, out);
    out.extend_from_slice(b",\"point_b\":");
    write_vec(ans.point_b, out);
    out.extend_from_slice(b",\"features\":");
    match (ans.features, ans.feature_a) {
        (Some(f), _) => {
            out.extend_from_slice(b"{\"a\":");
            write_feature(f.a, out);
            out.extend_from_slice(b",\"b\":");
            write_feature(f.b, out);
            out.push(b'}');
        }
        (None, Some(f)) => {
            out.extend_from_slice(b"{\"a\":");
            write_feature(f, out);
            out.extend_from_slice(b",\"b\":null}");
        }
        (None, None) => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"iterations\":");
    match ans.iterations {
        Some(i) => out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes()),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"error\":");
    match &ans.error {
        Some(e) => write_value_str(e, out),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b"}\n");
}

fn write_value(v: &Value, out: &mut Vec<u8>) {
    // Writing to a Vec cannot fail, and a Value always serialises.
    let _ = serde_json::to_writer(&mut *out, v);
}

fn write_value_str(s: &str, out: &mut Vec<u8>) {
    let _ = serde_json::to_writer(&mut *out, s);
}

/// A finite number as serde_json writes an `f64` (shortest round-trip text), else `null`.
fn write_num(v: Option<f64>, out: &mut Vec<u8>) {
    match v {
        Some(x) if x.is_finite() => out.extend_from_slice(zmij::Buffer::new().format_finite(x).as_bytes()),
        _ => out.extend_from_slice(b"null"),
    }
}

fn write_vec(v: Option<DVec3>, out: &mut Vec<u8>) {
    match v {
        Some(p) if p.is_finite() => {
            out.push(b'[');
            write_num(Some(p.x), out);
            out.push(b',');
            write_num(Some(p.y), out);
            out.push(b',');
            write_num(Some(p.z), out);
            out.push(b']');
        }
        _ => out.extend_from_slice(b"null"),
    }
}

fn write_feature(f: polycd::Feature, out: &mut Vec<u8>) {
    let (kind, i): (&[u8], u32) = match f {
        polycd::Feature::Vertex(i) => (b"vertex", i),
        polycd::Feature::Edge(i) => (b"edge", i),
        polycd::Feature::Face(i) => (b"face", i),
    };
    out.extend_from_slice(b"{\"kind\":\"");
    out.extend_from_slice(kind);
    out.extend_from_slice(b"\",\"id\":");
    out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes());
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::RayOut;
    use polycd::{Feature, FeaturePair};

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
