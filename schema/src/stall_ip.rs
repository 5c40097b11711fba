//! The IP a stall is charged to, in four bytes: `Option<StallIp>` uses the
//! niche of a non-zero integer, so a [`crate::Segment`] fits in 32 bytes
//! (with `Option<IpId>` it took 40; a season of 10 million moves has some
//! 30 million segments).

use crate::IpId;
use std::num::NonZeroU32;

/// An [`IpId`] stored as `id + 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StallIp(NonZeroU32);

impl StallIp {
    /// # Panics
    /// For `IpId::MAX`, which no table of names reaches.
    pub fn new(ip: IpId) -> Self {
        StallIp(NonZeroU32::new(ip.wrapping_add(1)).expect("an IP id below u32::MAX"))
    }

    pub fn get(self) -> IpId {
        self.0.get() - 1
    }
}

impl From<IpId> for StallIp {
    fn from(ip: IpId) -> Self {
        StallIp::new(ip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_the_option_takes_four_bytes() {
        for ip in [0, 1, 7, u32::MAX - 1] {
            assert_eq!(StallIp::new(ip).get(), ip);
        }
        assert_eq!(std::mem::size_of::<Option<StallIp>>(), 4);
        assert_eq!(std::mem::size_of::<crate::Segment>(), 32);
    }
}
