//! The batch's fast path: a query line of the common form — shapes by `ref`, poses, a
//! two-shape question — read by a small typed scanner instead of a `serde_json::Value`.
//!
//! It answers a line only when it is sure the general path ([`crate::batch`]) would answer it
//! without error, and then with the very same call ([`crate::batch::answer`]) on the very same
//! values: numbers are checked against JSON's grammar and converted to the correctly rounded
//! `f64` — by [`decimal_f64`] when the decimal mantissa has at most 19 digits and the exponent
//! is within ±55 (bit for bit what the standard library's parser gives, which is what
//! `serde_json::Number::as_f64` uses with `arbitrary_precision`), by the standard parser otherwise,
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

    /// A number in JSON's grammar, finite as an `f64` (correctly rounded: [`json_number`]).
    fn number(&mut self) -> Option<f64> {
        self.ws();
        let (x, end) = json_number(self.text, self.i)?;
        self.i = end;
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

/// Reads a number in JSON's grammar at byte `start` of `text`: its value, correctly rounded to
/// `f64` (bit for bit `str::parse::<f64>` of its text, infinite when out of range), and the
/// index after it; `None` when the text there is not a JSON number. The digits are gathered
/// while the grammar is checked; [`decimal_f64`] converts them when it can, the standard
/// parser otherwise (more than 19 significant digits, exponents beyond ±55, the rare
/// undecidable rounding).
fn json_number(text: &str, start: usize) -> Option<(f64, usize)> {
    let s = text.as_bytes();
    let mut i = start;
    let neg = s.get(i) == Some(&b'-');
    i += usize::from(neg);
    // Significant digits (leading zeros skipped), at most 19 of them, and the power of ten.
    let (mut w, mut digits, mut exp10, mut many) = (0u64, 0u32, 0i64, false);
    let mut digit = |c: u8, frac: bool, exp10: &mut i64| {
        if w != 0 || c != b'0' {
            if digits == 19 {
                many = true;
                return;
            }
            w = w * 10 + u64::from(c - b'0');
            digits += 1;
        }
        *exp10 -= i64::from(frac);
    };
    match *s.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => {
            while let Some(&c @ b'0'..=b'9') = s.get(i) {
                digit(c, false, &mut exp10);
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
        while let Some(&c @ b'0'..=b'9') = s.get(i) {
            digit(c, true, &mut exp10);
            i += 1;
        }
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
    let fast = if many { None } else { decimal_f64(w, exp10) };
    let x = match fast {
        Some(x) => {
            if neg {
                -x
            } else {
                x
            }
        }
        // The text is ASCII by construction.
        None => text.get(start..i)?.parse().ok()?,
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
    let (t, scale) = if e >= 0 {
        let p = 5u128.pow(k as u32);
        (POW5_UP[k], -(p.leading_zeros() as i64))
    } else {
        let b = 128 - 5u128.pow(k as u32).leading_zeros();
        (POW5_DOWN[k], -127 - i64::from(b))
    };
    // P = wn · t as three 64-bit words (p2, p1, p0).
    let (t_hi, t_lo) = (t >> 64, t & u128::from(u64::MAX));
    let lo = wn * t_lo;
    let hi = wn * t_hi + (lo >> 64);
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
        let (got, end) = json_number(t, 0).unwrap_or_else(|| panic!("{t}: not read"));
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
            assert!(json_number(t, 0).is_none_or(|(_, end)| end < t.len()), "{t}");
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
