//! The batch's fast path: a query line of the common form — shapes by `ref`, poses, a
//! two-shape question — read by a small typed scanner instead of a `serde_json::Value`.
//!
//! It answers a line only when it is sure the general path ([`crate::batch`]) would answer it
//! without error, and then with the very same call ([`crate::batch::answer`]) on the very same
//! values: numbers are checked against JSON's grammar and converted by the standard library's
//! correctly rounded parser (what `serde_json::Number::as_f64` does with `arbitrary_precision`),
//! the pose goes through [`crate::schema::pose_from`], the `id` is parsed by serde_json. Anything
//! else — an escape in a string, a duplicate or unknown key, a `null`, an inline shape, a
//! number out of range, a point or ray query, any error — returns `None`, and the general path
//! answers the line (with its error messages).

use crate::answer::{Answer, QueryKind};
use crate::batch;
use crate::schema::pose_from;
use crate::shape_cache::LineCtx;
use polycd::{Algorithm, ConvexPolyhedron, DVec3};
use serde_json::Value;

/// The answer to `line` when the fast path can give it; `None`: use the general path.
pub(crate) fn answer<'a>(line: &'a str, ctx: &LineCtx<'a>) -> Option<Answer> {
    let line = parse(line, ctx)?;
    let a = line.a?;
    let b = line.b?;
    let kind = line.query.unwrap_or(QueryKind::Intersect);
    match kind {
        QueryKind::Intersect | QueryKind::Distance => {}
        QueryKind::Directional if line.direction.is_some() => {}
        _ => return None,
    }
    let pa = pose(line.pose_a)?;
    let pb = pose(line.pose_b)?;
    let id = match line.id {
        Some(raw) => id_value(raw.trim_end_matches([' ', '\t', '\n', '\r']))?,
        None => Value::Null,
    };
    let mut ans = batch::answer(
        a,
        &pa,
        b,
        &pb,
        kind,
        line.direction,
        line.algorithm.unwrap_or(Algorithm::Auto),
    );
    ans.id = id;
    Some(ans)
}

/// The `id` as serde_json reads it: a plain integer directly (its text is what serde_json
/// writes back), anything else parsed.
fn id_value(raw: &str) -> Option<Value> {
    let digits = raw.strip_prefix('-').unwrap_or(raw);
    let plain = !digits.is_empty()
        && digits.len() <= 18
        && digits.bytes().all(|c| c.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    if plain && raw != "-0" {
        let n: i64 = raw.parse().ok()?;
        return Some(Value::from(n));
    }
    serde_json::from_str(raw).ok()
}

fn pose(p: Option<RawPose>) -> Option<polycd::Pose> {
    let p = p.unwrap_or_default();
    pose_from(
        p.translation.unwrap_or(DVec3::ZERO),
        p.rotation.unwrap_or([1.0, 0.0, 0.0, 0.0]),
    )
    .ok()
}

#[derive(Default, Clone, Copy)]
struct RawPose {
    translation: Option<DVec3>,
    rotation: Option<[f64; 4]>,
}

#[derive(Default)]
struct Line<'a> {
    id: Option<&'a str>,
    a: Option<&'a ConvexPolyhedron>,
    b: Option<&'a ConvexPolyhedron>,
    pose_a: Option<RawPose>,
    pose_b: Option<RawPose>,
    query: Option<QueryKind>,
    algorithm: Option<Algorithm>,
    direction: Option<DVec3>,
}

struct Scanner<'a> {
    /// The line (valid UTF-8: slices between ASCII bytes are `str`s).
    text: &'a str,
    s: &'a [u8],
    i: usize,
}

impl<'a> Scanner<'a> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.i) {
            self.i += 1;
        }
    }

    /// Skips whitespace, then consumes `c` or fails.
    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            Some(())
        } else {
            None
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    /// A string without escapes or control characters (its content).
    fn string(&mut self) -> Option<&'a str> {
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
        let out = self.text.get(start..self.i)?;
        self.i += 1;
        Some(out)
    }

    /// A number in JSON's grammar, finite as an `f64`.
    fn number(&mut self) -> Option<f64> {
        self.ws();
        let s = self.s;
        let start = self.i;
        let mut i = self.i;
        if s.get(i) == Some(&b'-') {
            i += 1;
        }
        match s.get(i)? {
            b'0' => i += 1,
            b'1'..=b'9' => {
                while s.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
            _ => return None,
        }
        if s.get(i) == Some(&b'.') {
            i += 1;
            if !s.get(i).is_some_and(u8::is_ascii_digit) {
                return None;
            }
            while s.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        if let Some(b'e' | b'E') = s.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = s.get(i) {
                i += 1;
            }
            if !s.get(i).is_some_and(u8::is_ascii_digit) {
                return None;
            }
            while s.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        self.i = i;
        // The text is ASCII by construction.
        let x: f64 = self.text.get(start..i)?.parse().ok()?;
        x.is_finite().then_some(x)
    }

    /// `[x, y, …]`: exactly `N` numbers.
    fn numbers<const N: usize>(&mut self) -> Option<[f64; N]> {
        self.eat(b'[')?;
        let mut out = [0.0; N];
        for (k, x) in out.iter_mut().enumerate() {
            if k > 0 {
                self.eat(b',')?;
            }
            *x = self.number()?;
        }
        self.eat(b']')?;
        Some(out)
    }

    /// The raw text of any JSON value (checked later by serde_json): up to the `,` or `}`
    /// that ends it.
    fn raw_value(&mut self) -> Option<&'a str> {
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
        self.text.get(start..self.i)
    }

    /// `{"key": value, …}`, calling `field` on each key (which reads the value); no key twice.
    fn object(&mut self, mut field: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        let mut seen: [&str; 12] = [""; 12];
        let mut n = 0;
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(());
        }
        loop {
            let key = self.string()?;
            if seen[..n].contains(&key) || n == seen.len() {
                return None;
            }
            seen[n] = key;
            n += 1;
            self.eat(b':')?;
            field(self, key)?;
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

fn parse<'a>(text: &'a str, ctx: &LineCtx<'a>) -> Option<Line<'a>> {
    let s = text.as_bytes();
    let mut sc = Scanner { text, s, i: 0 };
    let mut line = Line::default();
    sc.object(|sc, key| {
        match key {
            "id" => line.id = Some(sc.raw_value()?),
            "a" => line.a = Some(shape_ref(sc, ctx)?),
            "b" => line.b = Some(shape_ref(sc, ctx)?),
            "pose_a" => line.pose_a = Some(raw_pose(sc)?),
            "pose_b" => line.pose_b = Some(raw_pose(sc)?),
            "query" => line.query = Some(QueryKind::parse(sc.string()?).ok()?),
            "algorithm" => line.algorithm = Some(Algorithm::parse(sc.string()?)?),
            "direction" => line.direction = Some(DVec3::from_array(sc.numbers::<3>()?)),
            _ => return None,
        }
        Some(())
    })?;
    sc.ws();
    (sc.i == s.len()).then_some(line)
}

/// `{"ref": NAME}` of a name defined on an earlier line (its shape built).
fn shape_ref<'a>(sc: &mut Scanner<'a>, ctx: &LineCtx<'a>) -> Option<&'a ConvexPolyhedron> {
    let mut out = None;
    sc.object(|sc, key| {
        if key != "ref" {
            return None;
        }
        out = Some(ctx.lookup(sc.string()?)?);
        Some(())
    })?;
    out
}

fn raw_pose(sc: &mut Scanner) -> Option<RawPose> {
    let mut p = RawPose::default();
    sc.object(|sc, key| {
        match key {
            "translation" => p.translation = Some(DVec3::from_array(sc.numbers::<3>()?)),
            "rotation" => p.rotation = Some(sc.numbers::<4>()?),
            _ => return None,
        }
        Some(())
    })?;
    Some(p)
}
