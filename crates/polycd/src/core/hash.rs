//! The one hasher for the library's internal maps and sets keyed by small integer ids (pairs
//! of vertex, node or body ids packed into a `u64`, or tuples of them). The keys are never
//! adversarial input, and SipHash costs more than the work these maps save: a multiply–rotate
//! round per word, its high bits folded down at the end (hashbrown takes the top 7 bits as
//! tags and the low bits as the bucket).

use std::hash::{BuildHasherDefault, Hasher};

/// Multiply–rotate hasher over `u64` words (see the module header).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct IdHasher(u64);

/// `BuildHasher` for [`IdHasher`].
pub(crate) type IdBuildHasher = BuildHasherDefault<IdHasher>;

impl Hasher for IdHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// The key of an unordered pair of ids: the smaller in the high half.
#[inline]
pub(crate) fn pair_key(a: u32, b: u32) -> u64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    (u64::from(lo) << 32) | u64::from(hi)
}
