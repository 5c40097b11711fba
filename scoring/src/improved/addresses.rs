//! What improved mode knows about addresses before it looks at a pair: how
//! crowded each address was on each day, which network it belongs to, and
//! which are shared exits. Pure functions of the segments (and the
//! networks a store recorded), below the per-scan [`super::context`].

use super::moves::MoveTimes;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use schema::{AccountId, IpId, Season, Segments};
use std::net::IpAddr;

/// An address with at most this many accounts on a day counts fully.
pub const CROWD_FULL: u32 = 6;
/// An address with at least this many accounts on a day counts for nothing
/// (carrier NAT, a university, a VPN exit).
pub const CROWD_NONE: u32 = 18;

/// How much one sighting on an address shared by `accounts` accounts that
/// day counts: 1 up to [`CROWD_FULL`], falling linearly to 0 at
/// [`CROWD_NONE`].
pub fn crowd_weight(accounts: u32) -> f64 {
    if accounts <= CROWD_FULL {
        1.0
    } else if accounts >= CROWD_NONE {
        0.0
    } else {
        (CROWD_NONE - accounts) as f64 / (CROWD_NONE - CROWD_FULL) as f64
    }
}

/// The network of an address: its /24 (IPv4) or /64 (IPv6). `None` when the
/// string is not an address (a hashed IP in a keyed store): the network is
/// then unknown and only the address itself compares.
pub fn network_of(ip: &str) -> Option<u128> {
    match ip.trim().parse::<IpAddr>().ok()? {
        IpAddr::V4(v4) => Some(u128::from(u32::from(v4) >> 8) | 1 << 64),
        IpAddr::V6(v6) => Some(u128::from(v6) >> 64 | 2 << 64),
    }
}

/// An address-day counts as crowded below this crowd weight.
pub const CROWDED_BELOW: f64 = 0.5;

/// An address used by at least this many accounts over the season is a
/// shared exit (a household has fewer; a VPN exit, carrier NAT or a campus
/// more).
pub const EXIT_ACCOUNTS: usize = 8;
/// Per address id, whether it is a shared exit: used by at least
/// [`EXIT_ACCOUNTS`] accounts in the season (a VPN exit,
/// carrier NAT, a campus; a household has fewer).
pub fn shared_exits(segments: &Segments, season: &Season) -> Vec<bool> {
    let mut seen: Vec<(IpId, AccountId)> = segments
        .ip_days
        .iter()
        .filter(|d| crate::day_in_season(d.day, season))
        .map(|d| (d.ip, d.account))
        .collect();
    seen.sort_unstable();
    seen.dedup();
    let mut accounts = vec![0usize; segments.ips.len()];
    for (ip, _) in seen {
        if let Some(n) = accounts.get_mut(ip as usize) {
            *n += 1;
        }
    }
    accounts.into_iter().map(|n| n >= EXIT_ACCOUNTS).collect()
}

/// Accounts that moved from an address on a day, by `(day, ip)`.
pub(super) fn crowd_of(segments: &Segments) -> FxHashMap<(i64, IpId), u32> {
    let mut crowd: FxHashMap<(i64, IpId), u32> = FxHashMap::default();
    for d in &segments.ip_days {
        *crowd.entry((d.day, d.ip)).or_default() += 1;
    }
    crowd
}

/// The network of each address id: read from the address, else as the
/// store recorded it (a keyed store's addresses are hashes).
pub(super) fn networks_of(segments: &Segments, times: &MoveTimes) -> Vec<Option<u128>> {
    segments
        .ips
        .as_slice()
        .par_iter()
        .enumerate()
        .map(|(ip, s)| {
            network_of(s).or_else(|| times.network(ip as IpId).map(|n| u128::from(n) | 4 << 64))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crowded_addresses_count_for_less_down_to_nothing() {
        assert_eq!(crowd_weight(2), 1.0);
        assert_eq!(crowd_weight(CROWD_FULL), 1.0);
        assert_eq!(crowd_weight(12), 0.5);
        assert_eq!(crowd_weight(CROWD_NONE), 0.0);
        assert_eq!(crowd_weight(400), 0.0);
    }

    #[test]
    fn networks_are_the_slash_24_or_slash_64_and_unknown_for_other_strings() {
        assert_eq!(network_of("10.1.2.3"), network_of("10.1.2.200"));
        assert_ne!(network_of("10.1.2.3"), network_of("10.1.3.3"));
        assert_eq!(
            network_of("2001:db8:0:1::5"),
            network_of("2001:db8:0:1:ffff::1")
        );
        assert_ne!(network_of("2001:db8:0:1::5"), network_of("2001:db8:0:2::5"));
        assert_ne!(network_of("0.0.0.1"), network_of("::1"));
        assert_eq!(network_of("k1:9f2c4e"), None);
    }
}
