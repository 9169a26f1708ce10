//! The batch's fast path: a query line of the common form — shapes by `ref`, poses, a
//! two-shape question — read by a small byte-level scanner instead of a `serde_json::Value`,
//! and its answer written straight into the output buffer.
//!
//! It answers a line only when it is sure the general path ([`crate::batch`]) would answer it
//! without error, and then with the very same computation ([`crate::batch::answer_in`], which
//! is [`crate::batch::answer`] through a reused, forgotten cache) on the very same values:
//! numbers are checked against JSON's grammar and converted to the correctly rounded `f64` —
//! by [`decimal_f64`] when the decimal mantissa has at most 19 digits and the exponent is
//! within ±55 (bit for bit what the standard library's parser gives, which is what
//! `serde_json::Number::as_f64` uses with `arbitrary_precision`), by the standard parser
//! otherwise — the pose goes through [`crate::schema::pose_from`] (the same inputs give the
//! same pose, so a worker keeps the last one of each side), an `id` that is a plain integer is
//! copied as written (serde_json writes such an integer back as it reads it) and any other
//! `id` is parsed by serde_json. Anything else — an escape in a string, a duplicate or unknown
//! key, a `null`, an inline shape, a number out of range, a point, ray or manifold query, any
//! error — returns `None`, and the general path answers the line (with its error messages).
//!
//! The scanner reads bytes, not a `str`: a line it answers is ASCII outside its strings, and
//! every string it keeps is checked (a key or query name must equal an ASCII one, a `ref` name
//! must equal a defined name, which is UTF-8, a non-integer `id` is validated), so a line that
//! is not UTF-8 is never answered here and gets the general path's error.
//!
//! Per line nothing is allocated: the names and poses are remembered in fixed arrays of
//! [`FastState`], the query cache is reused, the answer is appended to the caller's buffer.

use crate::answer::{write_features, write_u32, Answer, QueryKind};
use crate::batch;
use crate::schema::pose_from;
use crate::shape_cache::LineCtx;
use polycd::query::PairCache;
use polycd::{Algorithm, ConvexPolyhedron, DVec3, Pose};
use serde_json::Value;

/// How many `ref` names a worker remembers (a batch names a few shapes; more are looked up).
const NAME_MEMO: usize = 4;

/// The numbers of a line the fast path reads, by place in [`Parsed::vals`]: `pose_a`'s
/// translation and rotation, `pose_b`'s, the direction.
const POSE_A: usize = 0;
const POSE_B: usize = 7;
const DIRECTION: usize = 14;
const N_VALS: usize = 17;

/// Which optional parts a line has (bits of [`Parsed::has`]).
const HAS_POSE_A: u16 = 1;
const HAS_POSE_B: u16 = 1 << 1;
/// A pose's translation (shifted by the pose: `HAS_T << 0` for A, `<< 1` for B) ...
const HAS_T: u16 = 1 << 2;
/// ... and rotation.
const HAS_R: u16 = 1 << 4;
const HAS_DIRECTION: u16 = 1 << 6;

/// The [`Slot::target`] of the `id` (the others are places in [`Parsed::vals`]).
const ID_SLOT: u8 = u8::MAX;
/// At most this many values a line's template varies: the 17 numbers and the id.
const MAX_SLOTS: usize = N_VALS + 1;
// A template's slots are bits of a `u32` (`Template::read`'s `same`).
const _: () = assert!(MAX_SLOTS <= 32);

/// How many numbers' texts a worker remembers ([`NumberTexts`]; a power of two).
const NUMBER_MEMO: usize = 16;
/// The longest text of a finite `f64` (`zmij`'s buffer: sign, 17 digits, point, `e-308`).
const NUMBER_TEXT: usize = 24;

/// A worker's reusable state for a run of lines read against the same definitions (one piece
/// of work): the query cache, the last names looked up, the last pose of each side and the
/// template of the last line read in full.
pub(crate) struct FastState<'a> {
    cache: PairCache,
    /// `(name, defining line, shape)` of convex definitions looked up before.
    names: [Option<(&'a str, u64, &'a ConvexPolyhedron)>; NAME_MEMO],
    next_name: usize,
    /// The last `pose_a` and `pose_b` made: the inputs' bits and the pose made of them.
    poses: [Option<([u64; 7], Pose)>; 2],
    template: Option<Template<'a>>,
    numbers: NumberTexts,
}

/// The texts of the numbers a worker wrote lately (serde_json's shortest round-trip text, by
/// `zmij`), by their bits in a direct-mapped table: answers repeat coordinates (the cube's
/// ±0.5 in about a third of the witness points' coordinates), and a remembered text costs a
/// hash and one fixed-size copy instead of the formatting.
struct NumberTexts {
    /// The `f64` bits of each entry; `u64::MAX` (a NaN, never written through the table) when
    /// empty.
    bits: [u64; NUMBER_MEMO],
    len: [u8; NUMBER_MEMO],
    text: [[u8; NUMBER_TEXT]; NUMBER_MEMO],
}

impl NumberTexts {
    fn new() -> Self {
        NumberTexts {
            bits: [u64::MAX; NUMBER_MEMO],
            len: [0; NUMBER_MEMO],
            text: [[0; NUMBER_TEXT]; NUMBER_MEMO],
        }
    }

    /// Appends the text of `x` (finite) as serde_json writes it.
    #[inline]
    fn write(&mut self, x: f64, out: &mut Vec<u8>) {
        let bits = x.to_bits();
        // Fibonacci hashing: the top bits of the product (the sign bit alone moves the entry).
        let k = (bits.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - NUMBER_MEMO.trailing_zeros())) as usize;
        if self.bits[k] != bits {
            let mut buf = zmij::Buffer::new();
            let t = buf.format_finite(x).as_bytes();
            match self.text[k].get_mut(..t.len()) {
                Some(slot) => slot.copy_from_slice(t),
                // Longer than any f64's text: written as it is, not remembered.
                None => return out.extend_from_slice(t),
            }
            self.len[k] = t.len() as u8;
            self.bits[k] = bits;
        }
        // A fixed-size copy (no library call), then the tail beyond the text dropped.
        let n = out.len();
        out.extend_from_slice(&self.text[k]);
        out.truncate(n + usize::from(self.len[k]));
    }

    /// A number or `null` (absent or not finite), as [`crate::answer::write_answer`] writes
    /// it.
    #[inline]
    fn write_opt(&mut self, v: Option<f64>, out: &mut Vec<u8>) {
        match v {
            Some(x) if x.is_finite() => self.write(x, out),
            _ => out.extend_from_slice(b"null"),
        }
    }

    /// A point `[x,y,z]` or `null` (absent or not finite).
    #[inline]
    fn write_vec(&mut self, v: Option<DVec3>, out: &mut Vec<u8>) {
        match v {
            Some(p) if p.is_finite() => {
                out.push(b'[');
                self.write(p.x, out);
                out.push(b',');
                self.write(p.y, out);
                out.push(b',');
                self.write(p.z, out);
                out.push(b']');
            }
            _ => out.extend_from_slice(b"null"),
        }
    }
}

/// Writes the answer of a fast-path line: [`crate::answer::write_answer_id`]'s bytes, with
/// the numbers through the worker's [`NumberTexts`] and the constant parts as single copies.
/// Answers of another form (an error, a ray, a mesh's features, a manifold, an `id` that is
/// not a plain integer) are left to `write_answer_id`.
fn write_fast(ans: &Answer, id_text: Option<&[u8]>, numbers: &mut NumberTexts, out: &mut Vec<u8>) {
    let head: &[u8] = match ans.status {
        "disjoint" => b",\"status\":\"disjoint\",\"distance\":",
        "touching" => b",\"status\":\"touching\",\"distance\":",
        "overlapping" => b",\"status\":\"overlapping\",\"distance\":",
        _ => b"",
    };
    let plain = !head.is_empty()
        && ans.error.is_none()
        && ans.ray.is_none()
        && ans.solid_features.is_none()
        && ans.solid_feature_a.is_none()
        && ans.manifold.is_none()
        && ans.mesh_manifolds.is_none()
        && ans.toc.is_none();
    let id = match id_text {
        Some(t) if plain => t,
        _ => return crate::answer::write_answer_id(ans, id_text, out),
    };
    out.extend_from_slice(b"{\"id\":");
    out.extend_from_slice(id);
    out.extend_from_slice(head);
    numbers.write_opt(ans.distance, out);
    out.extend_from_slice(b",\"signed_distance\":");
    // The same number as the distance (a separated pair's): a remembered text now.
    numbers.write_opt(ans.signed_distance, out);
    out.extend_from_slice(b",\"directional\":");
    numbers.write_opt(ans.directional, out);
    out.extend_from_slice(b",\"ray\":null,\"point_a\":");
    numbers.write_vec(ans.point_a, out);
    out.extend_from_slice(b",\"point_b\":");
    numbers.write_vec(ans.point_b, out);
    out.extend_from_slice(b",\"features\":");
    write_features(ans.features, ans.feature_a, out);
    out.extend_from_slice(b",\"iterations\":");
    match ans.iterations {
        Some(i) => write_u32(i, out),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"error\":null}\n");
}

impl<'a> FastState<'a> {
    /// A state around `cache` (taken back by [`FastState::into_cache`]).
    pub(crate) fn new(cache: PairCache) -> Self {
        FastState {
            cache,
            names: [None; NAME_MEMO],
            next_name: 0,
            poses: [None; 2],
            template: None,
            numbers: NumberTexts::new(),
        }
    }

    /// The query cache, for the next piece of work.
    pub(crate) fn into_cache(self) -> PairCache {
        self.cache
    }

    /// The convex definition of the name's bytes (its shape and defining line), through the
    /// memo; whether the line sees it is the caller's check.
    fn lookup(&mut self, ctx: &LineCtx<'a>, name: &[u8]) -> Option<Shape<'a>> {
        let hit = self
            .names
            .iter()
            .flatten()
            .find(|(n, _, _)| n.as_bytes() == name)
            .copied();
        let (_, line, shape) = match hit {
            Some(h) => h,
            None => {
                let h = ctx.convex_def(std::str::from_utf8(name).ok()?)?;
                self.names[self.next_name] = Some(h);
                self.next_name = (self.next_name + 1) % NAME_MEMO;
                h
            }
        };
        Some((shape, line))
    }

    /// The pose of side `k` (0: `a`, 1: `b`) as the general path makes it
    /// ([`crate::schema::pose_of`]): identity when absent, else [`pose_from`] of the given
    /// parts (defaults for the missing ones), remembered for the next line.
    fn pose(&mut self, k: usize, p: &Parsed) -> Option<Pose> {
        let shift = k as u16;
        if p.has & (HAS_POSE_A << shift) == 0 {
            return Some(Pose::IDENTITY);
        }
        let v = &p.vals[if k == 0 { POSE_A } else { POSE_B }..][..7];
        let t = if p.has & (HAS_T << shift) != 0 {
            [v[0], v[1], v[2]]
        } else {
            [0.0; 3]
        };
        let q = if p.has & (HAS_R << shift) != 0 {
            [v[3], v[4], v[5], v[6]]
        } else {
            [1.0, 0.0, 0.0, 0.0]
        };
        let mut bits = [0u64; 7];
        for (b, x) in bits.iter_mut().zip(t.iter().chain(q.iter())) {
            *b = x.to_bits();
        }
        if let Some((key, pose)) = self.poses[k] {
            if key == bits {
                return Some(pose);
            }
        }
        let pose = pose_from(DVec3::from_array(t), q).ok()?;
        self.poses[k] = Some((bits, pose));
        Some(pose)
    }
}

/// A shape by `ref`, with the line that defined it.
type Shape<'a> = (&'a ConvexPolyhedron, u64);

/// The `id` of a line the fast path answers.
#[derive(Clone, Copy)]
enum Id<'a> {
    /// No `id` key: `null`.
    Absent,
    /// A plain integer (optional minus, 1–18 digits, no leading zero, not `-0`): serde_json
    /// writes it back exactly as written.
    Int(&'a [u8]),
    /// Any other JSON text (parsed by serde_json, or the line goes to the general path).
    Raw(&'a [u8]),
}

/// A line as the fast path reads it, before its shapes are checked against its line number.
#[derive(Clone, Copy)]
struct Parsed<'a> {
    id: Id<'a>,
    a: Option<Shape<'a>>,
    b: Option<Shape<'a>>,
    has: u16,
    query: Option<QueryKind>,
    algorithm: Option<Algorithm>,
    vals: [f64; N_VALS],
}

/// Where a value of a line read in full lies in its text, and where it goes: a place in
/// [`Parsed::vals`] or [`ID_SLOT`].
#[derive(Clone, Copy, Default)]
struct Slot {
    start: u32,
    end: u32,
    target: u8,
}

/// A line read in full, as the template of the lines like it: the same bytes around its
/// numbers and plain-integer id. A line that has those bytes with other numbers (and another
/// plain integer) at those places has the same keys in the same order, the same names and the
/// same query, so it reads as the template's line with its own values — which is all the
/// scanner would find. Batches repeat one form of line: most lines are read this way, with a
/// few byte comparisons and the numbers.
///
/// The first line read against a fresh template *compacts* it: the values that line spells
/// as the template does (an identity pose's `0` and `1`, a fixed direction) stop being slots
/// and become part of the bytes around the others, compared a word at a time with them. A
/// later line that spells one of them otherwise differs from the template outside its slots,
/// is read in full and becomes the next (fresh) template: the same answer as before, through
/// the scanner.
#[derive(Clone, Copy)]
struct Template<'a> {
    text: &'a [u8],
    slots: [Slot; MAX_SLOTS],
    n: usize,
    parsed: Parsed<'a>,
    /// Whether [`Template::compact`] has run.
    compacted: bool,
}

impl<'a> Template<'a> {
    /// Drops the slots whose bit is set in `same` (the values a line spelled as the
    /// template's text does): their bytes join the literal runs around the other slots, and
    /// their values stay the template's, which those bytes spell.
    fn compact(&mut self, same: u32) {
        self.compacted = true;
        let mut kept = 0;
        for k in 0..self.n {
            if same & (1 << k) == 0 {
                self.slots[kept] = self.slots[k];
                kept += 1;
            }
        }
        self.n = kept;
    }

    /// `s` read against the template, `None` when it differs outside the values; with the
    /// line, the slots (bits by index) whose text is the template's own.
    fn read(&self, s: &'a [u8]) -> Option<(Parsed<'a>, u32)> {
        let mut out = self.parsed;
        let mut same = 0u32;
        let (mut pos, mut prev) = (0usize, 0usize);
        for (k, slot) in self.slots[..self.n].iter().enumerate() {
            let lit = self.text.get(prev..slot.start as usize)?;
            if !same_bytes(s.get(pos..pos + lit.len())?, lit) {
                return None;
            }
            pos += lit.len();
            if slot.target == ID_SLOT {
                // The byte after the id is the template's, a `,`, `}` or whitespace.
                let end = plain_int(s, pos)?;
                out.id = Id::Int(&s[pos..end]);
                pos = end;
            } else {
                // The template's own number (a constant of the batch's lines, like an identity
                // pose's `0` and `1`) followed by the same byte, which ends a number: the same
                // value. Else the number is read.
                let own = self.text.get(slot.start as usize..=slot.end as usize)?;
                if s.get(pos..pos + own.len()).is_some_and(|t| same_bytes(t, own)) {
                    pos += own.len() - 1;
                    same |= 1 << k;
                } else {
                    let (x, end) = json_number(s, pos)?;
                    if !x.is_finite() {
                        return None;
                    }
                    out.vals[slot.target as usize] = x;
                    pos = end;
                }
            }
            prev = slot.end as usize;
        }
        same_bytes(s.get(pos..)?, self.text.get(prev..)?).then_some((out, same))
    }
}

/// `a == b` for the short runs of a template, compared a word at a time in line (the
/// library's `memcmp` call costs more than these few bytes).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], i: usize| {
        s.get(i..i + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map(u64::from_ne_bytes)
    };
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            if word(a, i) != word(b, i) {
                return false;
            }
            i += 8;
        }
        // The last 8 bytes (overlapping the words before when n is not a multiple of 8).
        return word(a, n - 8) == word(b, n - 8);
    }
    if n >= 4 {
        let half = |s: &[u8], i: usize| s.get(i..i + 4).and_then(|w| <[u8; 4]>::try_from(w).ok());
        return half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4);
    }
    a.iter().zip(b).all(|(x, y)| x == y)
}

/// The end of a plain integer at `s[start..]` (optional minus, 1–18 digits, no leading zero,
/// not `-0`), `None` when the text there is not one (or goes on as a longer number).
fn plain_int(s: &[u8], start: usize) -> Option<usize> {
    let neg = usize::from(s.get(start) == Some(&b'-'));
    let mut end = start + neg;
    while let Some(b'0'..=b'9') = s.get(end) {
        end += 1;
    }
    let digits = end - start - neg;
    let plain = (1..=18).contains(&digits)
        && (digits == 1 || s[start + neg] != b'0')
        && !(neg == 1 && s[start + 1] == b'0')
        && !matches!(s.get(end), Some(b'.' | b'e' | b'E'));
    plain.then_some(end)
}

/// A line the fast path can answer, before its query is run.
struct Ready<'a> {
    id: Id<'a>,
    a: &'a ConvexPolyhedron,
    b: &'a ConvexPolyhedron,
    pa: Pose,
    pb: Pose,
    kind: QueryKind,
    direction: Option<DVec3>,
    algorithm: Algorithm,
}

/// Reads `raw` (one line without its line end) up to the point where only the query is left;
/// `None`: not a fast-path line.
fn ready<'a>(raw: &'a [u8], ctx: &LineCtx<'a>, st: &mut FastState<'a>) -> Option<Ready<'a>> {
    let line = match st.template.as_mut().and_then(|t| t.read(raw).map(|r| (t, r))) {
        Some((t, (p, same))) => {
            if !t.compacted {
                t.compact(same);
            }
            p
        }
        None => {
            let t = parse(raw, ctx, st)?;
            st.template = Some(t);
            t.parsed
        }
    };
    // A name defined on this line or later is not seen (the general path's error).
    let seen = |s: Option<Shape<'a>>| s.and_then(|(shape, def)| (def < ctx.line).then_some(shape));
    let a = seen(line.a)?;
    let b = seen(line.b)?;
    let kind = line.query.unwrap_or(QueryKind::Intersect);
    let direction = (line.has & HAS_DIRECTION != 0).then(|| DVec3::from_slice(&line.vals[DIRECTION..]));
    match kind {
        QueryKind::Intersect | QueryKind::Distance => {}
        QueryKind::Directional if direction.is_some() => {}
        _ => return None,
    }
    let pa = st.pose(0, &line)?;
    let pb = st.pose(1, &line)?;
    Some(Ready {
        id: line.id,
        a,
        b,
        pa,
        pb,
        kind,
        direction,
        algorithm: line.algorithm.unwrap_or(Algorithm::Auto),
    })
}

fn run_query(r: &Ready, cache: &mut PairCache) -> Answer {
    batch::answer_in(r.a, &r.pa, r.b, &r.pb, r.kind, r.direction, r.algorithm, cache)
}

/// The answer to `line` when the fast path can give it; `None`: use the general path.
pub(crate) fn answer<'a>(line: &'a str, ctx: &LineCtx<'a>) -> Option<Answer> {
    let mut st = FastState::new(PairCache::default());
    let r = ready(line.as_bytes(), ctx, &mut st)?;
    let id = id_value(r.id)?;
    let mut ans = run_query(&r, &mut st.cache);
    ans.id = id;
    Some(ans)
}

/// Answers `raw` (one line without its line end) when the fast path can: its answer line
/// (with the newline) appended to `out`, and whether it is an error answer; `None` (and `out`
/// untouched): use the general path.
pub(crate) fn answer_into<'a>(
    raw: &'a [u8],
    ctx: &LineCtx<'a>,
    st: &mut FastState<'a>,
    out: &mut Vec<u8>,
) -> Option<bool> {
    let r = ready(raw, ctx, st)?;
    let (id_text, id) = match r.id {
        Id::Int(t) => (Some(t), Value::Null),
        other => (None, id_value(other)?),
    };
    let mut ans = run_query(&r, &mut st.cache);
    ans.id = id;
    write_fast(&ans, id_text, &mut st.numbers, out);
    Some(ans.status == "error")
}

/// The `id` as serde_json reads it.
fn id_value(id: Id) -> Option<Value> {
    match id {
        Id::Absent => Some(Value::Null),
        Id::Int(t) | Id::Raw(t) => serde_json::from_slice(t).ok(),
    }
}

struct Scanner<'a> {
    s: &'a [u8],
    i: usize,
    /// The values read so far, for the template.
    slots: [Slot; MAX_SLOTS],
    n: usize,
}

impl<'a> Scanner<'a> {
    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.i) {
            self.i += 1;
        }
    }

    /// Skips whitespace, then consumes `c` or fails.
    #[inline]
    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            Some(())
        } else {
            None
        }
    }

    #[inline]
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    /// Notes that `s[start..self.i]` is the value of `target`.
    fn slot(&mut self, start: usize, target: u8) -> Option<()> {
        let slot = self.slots.get_mut(self.n)?;
        *slot = Slot {
            start: u32::try_from(start).ok()?,
            end: u32::try_from(self.i).ok()?,
            target,
        };
        self.n += 1;
        Some(())
    }

    /// A string without escapes or control characters: its content's bytes.
    fn string(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let start = self.i;
        loop {
            match *self.s.get(self.i)? {
                b'"' => break,
                b'\\' => return None,
                c if c < 0x20 => return None,
                _ => self.i += 1,
            }
        }
        let out = self.s.get(start..self.i)?;
        self.i += 1;
        Some(out)
    }

    /// `[x, y, …]`: exactly `N` numbers in JSON's grammar, finite as `f64`s (correctly
    /// rounded: [`json_number`]), into `vals[at..at + N]`.
    fn numbers<const N: usize>(&mut self, vals: &mut [f64; N_VALS], at: usize) -> Option<()> {
        self.eat(b'[')?;
        for k in 0..N {
            if k > 0 {
                self.eat(b',')?;
            }
            self.ws();
            let start = self.i;
            let (x, end) = json_number(self.s, start)?;
            if !x.is_finite() {
                return None;
            }
            self.i = end;
            *vals.get_mut(at + k)? = x;
            self.slot(start, u8::try_from(at + k).ok()?)?;
        }
        self.eat(b']')
    }

    /// The `id`: a plain integer's text, or the raw text of any JSON value (checked later by
    /// serde_json) up to the `,` or `}` that ends it.
    fn id(&mut self) -> Option<Id<'a>> {
        self.ws();
        let start = self.i;
        if let Some(end) = plain_int(self.s, start) {
            self.i = end;
            self.slot(start, ID_SLOT)?;
            return Some(Id::Int(&self.s[start..end]));
        }
        let raw = self.raw_value()?;
        let mut t = raw.len();
        while t > 0 && matches!(raw[t - 1], b' ' | b'\t' | b'\n' | b'\r') {
            t -= 1;
        }
        Some(Id::Raw(&raw[..t]))
    }

    /// The raw text of any JSON value: up to the `,` or `}` that ends it.
    fn raw_value(&mut self) -> Option<&'a [u8]> {
        self.ws();
        let start = self.i;
        let mut depth = 0usize;
        loop {
            match *self.s.get(self.i)? {
                b'"' => {
                    self.i += 1;
                    loop {
                        match *self.s.get(self.i)? {
                            b'"' => break,
                            b'\\' => self.i += 2,
                            _ => self.i += 1,
                        }
                    }
                }
                b'[' | b'{' => depth += 1,
                b']' | b'}' if depth > 0 => depth -= 1,
                b',' | b'}' if depth == 0 => break,
                _ => {}
            }
            self.i += 1;
        }
        self.s.get(start..self.i)
    }

    /// `{"key": value, …}`: `key_of` numbers each key (`None`: not a key of this object, and
    /// the line is not for the fast path), `field` reads its value; no key twice.
    fn object(
        &mut self,
        key_of: impl Fn(&[u8]) -> Option<u32>,
        mut field: impl FnMut(&mut Self, u32) -> Option<()>,
    ) -> Option<()> {
        self.eat(b'{')?;
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(());
        }
        let mut seen = 0u32;
        loop {
            let k = key_of(self.string()?)?;
            if seen & (1 << k) != 0 {
                return None;
            }
            seen |= 1 << k;
            self.eat(b':')?;
            field(self, k)?;
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }
}

/// The keys of a query line the fast path reads.
fn line_key(k: &[u8]) -> Option<u32> {
    Some(match k {
        b"id" => 0,
        b"a" => 1,
        b"b" => 2,
        b"pose_a" => 3,
        b"pose_b" => 4,
        b"query" => 5,
        b"algorithm" => 6,
        b"direction" => 7,
        _ => return None,
    })
}

/// The query's kind: the exact lower-case names directly, any other spelling as
/// [`QueryKind::parse`] reads it.
fn query_kind(s: &[u8]) -> Option<QueryKind> {
    match s {
        b"distance" => Some(QueryKind::Distance),
        b"intersect" => Some(QueryKind::Intersect),
        b"directional" => Some(QueryKind::Directional),
        _ => QueryKind::parse(std::str::from_utf8(s).ok()?).ok(),
    }
}

/// Reads a line in full: what it says, as the template of the lines like it.
fn parse<'a>(s: &'a [u8], ctx: &LineCtx<'a>, st: &mut FastState<'a>) -> Option<Template<'a>> {
    let mut sc = Scanner {
        s,
        i: 0,
        slots: [Slot::default(); MAX_SLOTS],
        n: 0,
    };
    let mut p = Parsed {
        id: Id::Absent,
        a: None,
        b: None,
        has: 0,
        query: None,
        algorithm: None,
        vals: [0.0; N_VALS],
    };
    sc.object(line_key, |sc, key| {
        match key {
            0 => p.id = sc.id()?,
            1 => p.a = Some(shape_ref(sc, ctx, st)?),
            2 => p.b = Some(shape_ref(sc, ctx, st)?),
            3 => p.has |= HAS_POSE_A | raw_pose(sc, &mut p.vals, POSE_A)?,
            4 => p.has |= HAS_POSE_B | (raw_pose(sc, &mut p.vals, POSE_B)? << 1),
            5 => p.query = Some(query_kind(sc.string()?)?),
            6 => p.algorithm = Some(Algorithm::parse(std::str::from_utf8(sc.string()?).ok()?)?),
            _ => {
                sc.numbers::<3>(&mut p.vals, DIRECTION)?;
                p.has |= HAS_DIRECTION;
            }
        }
        Some(())
    })?;
    sc.ws();
    (sc.i == s.len()).then_some(Template {
        text: s,
        slots: sc.slots,
        n: sc.n,
        parsed: p,
        compacted: false,
    })
}

/// `{"ref": NAME}` of a convex shape defined without error (on any line: checked later).
fn shape_ref<'a>(sc: &mut Scanner<'a>, ctx: &LineCtx<'a>, st: &mut FastState<'a>) -> Option<Shape<'a>> {
    let mut out = None;
    sc.object(
        |k| (k == b"ref").then_some(0),
        |sc, _| {
            out = Some(st.lookup(ctx, sc.string()?)?);
            Some(())
        },
    )?;
    out
}

/// A pose object's numbers into `vals[at..at + 7]`: which parts it has (`HAS_T`, `HAS_R`).
fn raw_pose(sc: &mut Scanner, vals: &mut [f64; N_VALS], at: usize) -> Option<u16> {
    let mut has = 0;
    sc.object(
        |k| match k {
            b"translation" => Some(0),
            b"rotation" => Some(1),
            _ => None,
        },
        |sc, key| {
            if key == 0 {
                sc.numbers::<3>(vals, at)?;
                has |= HAS_T;
            } else {
                sc.numbers::<4>(vals, at + 3)?;
                has |= HAS_R;
            }
            Some(())
        },
    )?;
    Some(has)
}

/// Whether the 8 bytes of `v` (little-endian) are all ASCII digits: every high nibble is 3,
/// and adding 6 to every byte (no carry out of a byte whose high nibble is 3) leaves it 3.
#[inline]
fn eight_digits(v: u64) -> bool {
    const HIGH: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    const THREES: u64 = 0x3030_3030_3030_3030;
    (v & HIGH) == THREES && (v.wrapping_add(0x0606_0606_0606_0606) & HIGH) == THREES
}

/// The value of 8 ASCII digits (first digit in the lowest byte): pairs of digits, then pairs
/// of pairs, combined by multiplications whose partial sums never carry across 32 bits.
#[inline]
fn eight_digit_value(v: u64) -> u64 {
    let v = v - 0x3030_3030_3030_3030;
    // Byte 2k: digit 2k × 10 + digit 2k+1 (every byte ≤ 99: no carry).
    let v = v.wrapping_mul(10).wrapping_add(v >> 8);
    const MASK: u64 = 0x0000_00FF_0000_00FF;
    // Bytes 0 and 4 take 10^6 and 10^2, bytes 2 and 6 take 10^4 and 1; the sum lands in the
    // high half.
    let hi = (v & MASK).wrapping_mul(100 + (1_000_000 << 32));
    let lo = ((v >> 16) & MASK).wrapping_mul(1 + (10_000 << 32));
    hi.wrapping_add(lo) >> 32
}

/// The digits at `s[i..]` accumulated into `w` (`w · 10 + d`, wrapping: the caller counts
/// the digits and trusts `w` up to 19 of them); returns the index after them.
#[inline]
fn digits(s: &[u8], mut i: usize, w: &mut u64) -> usize {
    while let Some(b) = s.get(i..i + 8).and_then(|c| <[u8; 8]>::try_from(c).ok()) {
        let v = u64::from_le_bytes(b);
        if !eight_digits(v) {
            break;
        }
        *w = w.wrapping_mul(100_000_000).wrapping_add(eight_digit_value(v));
        i += 8;
    }
    while let Some(&c @ b'0'..=b'9') = s.get(i) {
        *w = w.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
        i += 1;
    }
    i
}

/// Reads a number in JSON's grammar at byte `start` of `s`: its value, correctly rounded to
/// `f64` (bit for bit `str::parse::<f64>` of its text, infinite when out of range), and the
/// index after it; `None` when the text there is not a JSON number. The significant digits
/// are gathered (8 at a time where they run on) while the grammar is checked; [`decimal_f64`]
/// converts them when it can, the standard parser otherwise (more than 19 significant digits,
/// exponents beyond ±55, the rare undecidable rounding).
fn json_number(s: &[u8], start: usize) -> Option<(f64, usize)> {
    let mut i = start;
    let neg = s.get(i) == Some(&b'-');
    i += usize::from(neg);
    // The significant digits (leading zeros skipped) as an integer, how many there are, and
    // the power of ten.
    let (mut w, mut nd, mut exp10) = (0u64, 0usize, 0i64);
    match *s.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => {
            let end = digits(s, i, &mut w);
            nd = end - i;
            i = end;
        }
        _ => return None,
    }
    if s.get(i) == Some(&b'.') {
        i += 1;
        let first = i;
        if nd == 0 {
            // 0.000…: zeros before the first significant digit.
            while s.get(i) == Some(&b'0') {
                i += 1;
            }
        }
        let sig = i;
        let end = digits(s, i, &mut w);
        if end == first {
            return None;
        }
        nd += end - sig;
        exp10 -= (end - first) as i64;
        i = end;
    }
    if let Some(b'e' | b'E') = s.get(i) {
        i += 1;
        let eneg = s.get(i) == Some(&b'-');
        if let Some(b'+' | b'-') = s.get(i) {
            i += 1;
        }
        if !s.get(i).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        let mut e = 0i64;
        while let Some(&c @ b'0'..=b'9') = s.get(i) {
            // Saturated far beyond any exponent the fast path takes.
            e = (e * 10 + i64::from(c - b'0')).min(1 << 40);
            i += 1;
        }
        exp10 += if eneg { -e } else { e };
    }
    let fast = if nd <= 19 { decimal_f64(w, exp10) } else { None };
    let x = match fast {
        Some(x) => {
            if neg {
                -x
            } else {
                x
            }
        }
        // The text is ASCII by construction.
        None => std::str::from_utf8(s.get(start..i)?).ok()?.parse().ok()?,
    };
    Some((x, i))
}

/// `10^k` for `k ≤ 22`: exact in `f64`.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// The largest `|exponent|` of [`decimal_f64`]'s 128-bit path: `5^55 < 2^128`.
const MAX_EXP10: usize = 55;

/// The bit length of `5^k`, `k = 0 … 55`.
const POW5_BITS: [u8; MAX_EXP10 + 1] = {
    let mut t = [0u8; MAX_EXP10 + 1];
    let mut k = 0;
    while k <= MAX_EXP10 {
        t[k] = (128 - 5u128.pow(k as u32).leading_zeros()) as u8;
        k += 1;
    }
    t
};

/// `5^k` shifted left until its top bit is bit 127 (exact), `k = 0 … 55`.
const POW5_UP: [u128; MAX_EXP10 + 1] = {
    let mut t = [0u128; MAX_EXP10 + 1];
    let mut k = 0;
    while k <= MAX_EXP10 {
        let p = 5u128.pow(k as u32);
        t[k] = p << p.leading_zeros();
        k += 1;
    }
    t
};

/// `⌊2^(127 + b) / 5^k⌋` with `b` the bit length of `5^k` (in `[2^127, 2^128)`), `k = 0 … 55`:
/// `5^−k` truncated to 128 bits, by restoring long division at compile time.
const POW5_DOWN: [u128; MAX_EXP10 + 1] = {
    let mut t = [0u128; MAX_EXP10 + 1];
    let mut k = 0;
    while k <= MAX_EXP10 {
        let d = 5u128.pow(k as u32);
        let b = 128 - d.leading_zeros();
        // The numerator's bits, top first: a one, then 127 + b zeros.
        let (mut r, mut q, mut bit) = (0u128, 0u128, 0);
        while bit < 128 + b {
            let top = r >> 127;
            r = (r << 1) | (bit == 0) as u128;
            q <<= 1;
            if top == 1 || r >= d {
                r = r.wrapping_sub(d);
                q |= 1;
            }
            bit += 1;
        }
        t[k] = q;
        k += 1;
    }
    t
};

/// The correctly rounded `f64` of `w · 10^e` (round half to even), or `None` when this fast
/// path cannot decide it (then the standard parser does).
///
/// - `w < 2^53` and `|e| ≤ 22`: both `w` and `10^|e|` are exact `f64`s, so one IEEE
///   multiplication or division rounds the exact value once (Clinger's fast path).
/// - `|e| ≤ 55`: `w · 10^e = w · 5^e · 2^e`. The 192-bit product `P` of `w` (shifted to 64
///   bits) and the 128-bit `5^e` of [`POW5_UP`] is exact for `e ≥ 0`, and the value's 53
///   mantissa bits, its rounding bit and whether anything below is non-zero are read off `P`.
///   For `e < 0` the factor [`POW5_DOWN`] is `5^e` truncated: the exact product is `P + δ` with
///   `0 < δ < 2^64` (`5^−k` is never a dyadic fraction). Unless the middle 64-bit word of `P`
///   is all ones, `δ` cannot carry into the top word, so the mantissa and rounding bit are
///   those of `P` and the bits below are non-zero (`δ > 0`): below half rounds down, half or
///   above rounds up (never an exact tie). The all-ones case (probability 2^−64; it includes
///   every exact tie and every exactly representable value with `e < 0`) is left undecided.
/// - otherwise `None`.
fn decimal_f64(mut w: u64, mut e: i64) -> Option<f64> {
    if w == 0 {
        return Some(0.0);
    }
    // Trailing zeros of a fraction moved to the exponent: `1.50000000000000000` is `15e-1`.
    while e < 0 && w.is_multiple_of(10) {
        w /= 10;
        e += 1;
    }
    if w < 1 << 53 && e.unsigned_abs() <= 22 {
        let p = POW10[e.unsigned_abs() as usize];
        let x = w as f64;
        return Some(if e < 0 { x / p } else { x * p });
    }
    let k = e.unsigned_abs() as usize;
    if k > MAX_EXP10 {
        return None;
    }
    let lw = w.leading_zeros();
    let wn = u128::from(w << lw);
    // `5^k` has `b` bits.
    let b = i64::from(POW5_BITS[k]);
    let (t, scale) = if e >= 0 {
        (POW5_UP[k], b - 128)
    } else {
        (POW5_DOWN[k], -127 - b)
    };
    // P = wn · t as three 64-bit words (p2, p1, p0), from two 64 × 64 → 128-bit products.
    let (t_hi, t_lo) = ((t >> 64) as u64, t as u64);
    let lo = wn * u128::from(t_lo);
    let hi = wn * u128::from(t_hi) + (lo >> 64);
    let (p2, p1, p0) = ((hi >> 64) as u64, hi as u64, lo as u64);
    // The value is P · 2^(e + scale − lw).
    let exp2 = e + scale - i64::from(lw);
    let top = 127 - i64::from(p2.leading_zeros()) + 64; // 191 or 190
    let shift = (top - 128 - 52) as u32; // 11 or 10
    let mut m = p2 >> shift;
    let round = (p2 >> (shift - 1)) & 1 == 1;
    let below = p2 & ((1u64 << (shift - 1)) - 1);
    let up = if e >= 0 {
        let sticky = below != 0 || p1 != 0 || p0 != 0;
        round && (sticky || m & 1 == 1)
    } else {
        if p1 == u64::MAX {
            return None;
        }
        round
    };
    let mut x2 = exp2 + top - 52;
    if up {
        m += 1;
        if m == 1 << 53 {
            m = 1 << 52;
            x2 += 1;
        }
    }
    // m · 2^x2 with m in [2^52, 2^53): biased exponent x2 + 52 + 1023.
    let biased = x2 + 52 + 1023;
    if !(1..=2046).contains(&biased) {
        return None;
    }
    Some(f64::from_bits(((biased as u64) << 52) | (m - (1 << 52))))
}

#[cfg(test)]
mod tests {
    use super::{decimal_f64, json_number};

    /// The fast number path against `str::parse::<f64>`, bit for bit.
    fn check(t: &str) {
        let want: f64 = t.parse().unwrap();
        let (got, end) = json_number(t.as_bytes(), 0).unwrap_or_else(|| panic!("{t}: not read"));
        assert_eq!(end, t.len(), "{t}");
        assert_eq!(got.to_bits(), want.to_bits(), "{t}: {got:e} vs {want:e}");
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
    }

    #[test]
    fn edge_cases_match_the_standard_parser() {
        for t in [
            "0",
            "-0",
            "0.0",
            "-0.0",
            "0e0",
            "-0e-400",
            "0.000",
            "1",
            "-1",
            "0.5",
            "0.1",
            "0.2",
            "0.3",
            "1e22",
            "1e23",
            "1e-22",
            "1e-23",
            "9007199254740992",
            "9007199254740993",
            "9007199254740994",
            "9007199254740995",
            "18014398509481985",
            "123456789012345678",
            "1234567890123456789",
            "12345678901234567890",
            "99999999999999999999",
            "9999999999999999999",
            "0.1234567890123456789",
            "0.12345678901234567890",
            "1e308",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "2.2250738585072014e-308",
            "2.2250738585072011e-308",
            "4.9e-324",
            "5e-324",
            "2e-324",
            "1e-400",
            "1e400",
            "-1e400",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "1.5e55",
            "1.5e-55",
            "1.5e56",
            "1.5e-56",
            "123456789e-55",
            "1234567890123456789e55",
            "1234567890123456789e-55",
            "0.0000000000000000000000001",
            "1E5",
            "1e+5",
            "1E-5",
            "7.0e-10",
            "3.0000000000000004",
            "0.30000000000000004",
            "2.225073858507201e-308",
            "8.98846567431158e307",
            "0.9999999999999999",
            "0.99999999999999999",
            "1.0000000000000002",
            "1.00000000000000011",
            "1.00000000000000011102230246251565404",
            "4503599627370496.5",
            "4503599627370497.5",
            "9007199254740993.0",
            "5e-1",
            "25e-2",
            "125e-3",
            "0.000000000000000000000000000000000000000000000000000012345",
        ] {
            check(t);
        }
        // Not numbers: left to the general path.
        for t in ["", "-", "01", ".5", "1.", "1e", "1e+", "+1", "-.5", "1.e5", "x"] {
            assert!(json_number(t.as_bytes(), 0).is_none_or(|(_, end)| end < t.len()), "{t}");
        }
    }

    #[test]
    fn a_million_random_decimals_match_the_standard_parser() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut s = String::new();
        for n in 0..1_000_000u32 {
            s.clear();
            match n % 4 {
                // Shortest round-trip text of a random double (what a user's program writes).
                0 => {
                    let x = f64::from_bits(rng.next());
                    if !x.is_finite() {
                        continue;
                    }
                    s.push_str(&format!("{x}"));
                }
                1 => {
                    let x = f64::from_bits(rng.next());
                    if !x.is_finite() {
                        continue;
                    }
                    s.push_str(&format!("{x:e}"));
                }
                // Random digit strings of 1–21 digits, a point anywhere, an exponent.
                _ => {
                    if rng.below(2) == 0 {
                        s.push('-');
                    }
                    let len = 1 + rng.below(21) as usize;
                    let point = rng.below(len as u64 + 1) as usize;
                    for d in 0..len {
                        if d == point && d > 0 {
                            s.push('.');
                        }
                        let lead = d == 0 && len > 1 && point != 1;
                        let c = if lead { 1 + rng.below(9) } else { rng.below(10) };
                        s.push(char::from(b'0' + c as u8));
                    }
                    if rng.below(2) == 0 {
                        let e = rng.below(141) as i64 - 70;
                        s.push_str(&format!("e{e}"));
                    }
                }
            }
            check(&s);
        }
    }

    #[test]
    fn the_fast_path_decides_nearly_everything_it_is_given() {
        // Random 1–19 digit mantissas with exponents in ±55: the 128-bit path (and Clinger's)
        // must answer, and answer what the standard parser gives for `{w}e{e}`.
        let mut rng = Rng(12345);
        let (mut answered, total) = (0, 300_000);
        for _ in 0..total {
            let w = rng.next() % 10u64.pow(1 + rng.below(19) as u32);
            let e = rng.below(111) as i64 - 55;
            let want: f64 = format!("{w}e{e}").parse().unwrap();
            if let Some(x) = decimal_f64(w, e) {
                assert_eq!(x.to_bits(), want.to_bits(), "{w}e{e}");
                answered += 1;
            }
        }
        // Left to the standard parser: values exactly representable or exactly halfway with
        // e < 0 (`53045222929421955e-1` is 5304522292942195.5, a tie between two doubles:
        // about 1 in 4 000 of these random inputs; a double's shortest text is such a value
        // only when it is the double itself with 16+ digits and a fraction, as
        // 4503599627370497.5).
        assert!(answered * 1000 >= total * 999, "{answered} of {total} answered");
    }
}
