//! The address space: public-looking /16 prefixes, each drawn once, and
//! hosts in them. Homes, sites, carriers, VPN exits and places away all
//! take their addresses from here.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;

/// The public-looking /16 prefixes there are: first bytes 1 to 223 but
/// the seven reserved below, 256 each.
pub(super) const PREFIXES: usize = 216 * 256;

/// Draws public-looking /16 prefixes, each once. When every one is taken,
/// a draw hands back one already drawn and the world is marked
/// `exhausted` (it cannot be built honestly: [`super::World::build`]
/// refuses it) instead of searching forever.
#[derive(Default)]
pub(super) struct Prefixes {
    drawn: HashSet<u32>,
    pub(super) exhausted: bool,
}

impl Prefixes {
    pub(super) fn draw(&mut self, rng: &mut ChaCha8Rng) -> u32 {
        if self.drawn.len() >= PREFIXES {
            self.exhausted = true;
            return *self.drawn.iter().next().expect("every prefix drawn");
        }
        loop {
            let a: u32 = rng.gen_range(1..224);
            if matches!(a, 10 | 100 | 127 | 169 | 172 | 192 | 198) {
                continue;
            }
            let p = (a << 24) | (rng.gen_range(0..256u32) << 16);
            if self.drawn.insert(p) {
                return p;
            }
        }
    }
}

/// A host in the /16 `prefix` (last byte 1-254).
pub(crate) fn host(rng: &mut ChaCha8Rng, prefix: u32) -> u32 {
    prefix | (rng.gen_range(0..256u32) << 8) | rng.gen_range(1..255u32)
}
