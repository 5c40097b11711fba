//! A hash that stays the same across Rust releases, for names kept in the
//! store (marks) and shown in logs (webhooks).

/// FNV-1a, 64 bits: a hash that stays the same across Rust releases, for
/// the names of marks.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
