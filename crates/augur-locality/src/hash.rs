//! A fast hasher for `u64` keys (line and page numbers).
//!
//! Line numbers of strided streams share many low bits (a power-of-two
//! stride leaves them all zero), so a plain multiplicative hash would put
//! them in few buckets. The splitmix64 finalizer mixes every input bit into
//! every output bit at the cost of two multiplications.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The splitmix64 finalizer: a bijective, well-mixing map of `u64`.
#[inline]
pub fn mix64(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Hasher for integer keys built on [`mix64`].
#[derive(Default, Clone, Copy)]
pub struct MixHasher(u64);

impl Hasher for MixHasher {
    #[inline]
    fn finish(&self) -> u64 {
        mix64(self.0)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = self.0.rotate_left(32) ^ n;
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// A `HashMap` keyed by integers with [`MixHasher`].
pub type MixMap<K, V> = HashMap<K, V, BuildHasherDefault<MixHasher>>;

/// An empty [`MixMap`] with room for `n` entries.
pub fn map_with_capacity<K, V>(n: usize) -> MixMap<K, V> {
    HashMap::with_capacity_and_hasher(n, BuildHasherDefault::default())
}
