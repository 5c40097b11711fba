//! The address space: public-looking /16 prefixes, each drawn once, and
//! hosts in them. Homes, sites, carriers, VPN exits and places away all
//! take their addresses from here.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;

/// Draws public-looking /16 prefixes, each once.
pub(super) struct Prefixes(pub(super) HashSet<u32>);

impl Prefixes {
    pub(super) fn draw(&mut self, rng: &mut ChaCha8Rng) -> u32 {
        loop {
            let a: u32 = rng.gen_range(1..224);
            if matches!(a, 10 | 100 | 127 | 169 | 172 | 192 | 198) {
                continue;
            }
            let p = (a << 24) | (rng.gen_range(0..256u32) << 16);
            if self.0.insert(p) {
                return p;
            }
        }
    }
}

/// A host in the /16 `prefix` (last byte 1-254).
pub(crate) fn host(rng: &mut ChaCha8Rng, prefix: u32) -> u32 {
    prefix | (rng.gen_range(0..256u32) << 8) | rng.gen_range(1..255u32)
}
