//! Improved mode's evidence of an unordered pair, beside the reference
//! evidence in [`crate::Evidence`]: counts read from how two accounts use
//! their addresses and times (computed in `scoring::improved`).

use serde::{Deserialize, Serialize};

/// What improved mode reads from how two accounts use their addresses, for
/// the unordered pair `{a, b}` (`a` is the directed pair's first account).
/// Counts only, so that evidence compares exactly. The store keeps them as
/// an array in this order: a field added here goes last, with
/// `#[serde(default)]`, so that rows stored before it still read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Signals {
    /// Buckets in which `a` (resp. `b`) moved.
    pub a_buckets: u32,
    pub b_buckets: u32,
    /// One sitting: of those buckets, how many had the other account moving
    /// from the same address within the sitting horizon, each weighted by how
    /// uncrowded the address was that day, in thousandths of a bucket.
    pub a_accompanied_milli: u32,
    pub b_accompanied_milli: u32,
    /// Following: `a`'s (resp. `b`'s) sittings (runs of moved buckets
    /// with gaps under an hour), and how many of them began within two
    /// hours after (or in the bucket of) a move of the other account, from
    /// any address. A careful owner's second account only ever plays after
    /// the first; two people each also play alone.
    pub a_sittings: u32,
    pub a_followed: u32,
    pub b_sittings: u32,
    pub b_followed: u32,
    /// Following by chance, in thousandths: the share of `a`'s (resp.
    /// `b`'s) sittings that follow the other account when moved one to
    /// three days either way (same hours of the day), of those that land
    /// where the other played this season. Two evening players follow each
    /// other by chance; a puppet follows its owner's main account more.
    /// Absent (0) in scans stored before it.
    #[serde(default)]
    pub a_followed_by_chance_milli: u32,
    #[serde(default)]
    pub b_followed_by_chance_milli: u32,
    /// Long following: as following, within four hours instead of two
    /// (an owner of several accounts plays his last ones hours after his
    /// first), and by chance in thousandths. Absent (0) in scans stored
    /// before it.
    #[serde(default)]
    pub a_followed_long: u32,
    #[serde(default)]
    pub b_followed_long: u32,
    #[serde(default)]
    pub a_followed_long_by_chance_milli: u32,
    #[serde(default)]
    pub b_followed_long_by_chance_milli: u32,
    /// Two bodies: buckets in which both moved, from different networks.
    pub apart: u32,
    /// Co-travel: distinct uncrowded networks both moved from on one day.
    pub networks: u32,
    /// Days and addresses both moved from, and how many of those addresses
    /// were crowded (many accounts on them that day).
    pub shared_ip_days: u32,
    pub crowded_ip_days: u32,
    /// Hand-offs (at second resolution): moves of the two accounts within
    /// seconds of each other (two bodies); switches from one account to the
    /// other on one uncrowded address within the sitting horizon, split by
    /// gap into quick (under 5 minutes), turns (under 30) and spaced (up to
    /// two hours); and returns, switches back after the other account's run
    /// of at most 30 minutes. Absent (0) in scans stored before them.
    #[serde(default)]
    pub close: u32,
    #[serde(default)]
    pub switches: u32,
    #[serde(default)]
    pub quick: u32,
    #[serde(default)]
    pub turns: u32,
    #[serde(default)]
    pub spaced: u32,
    #[serde(default)]
    pub returns: u32,
    /// First mover: of the stretches of play (both accounts' moves, from any
    /// address, with no pause over four hours) in which both moved, how many
    /// `a` (resp. `b`) opened. One person tends to open his accounts in the
    /// same order; a family taking turns, or housemates, in either order.
    /// Absent (0) in scans stored before them.
    #[serde(default)]
    pub a_first: u32,
    #[serde(default)]
    pub b_first: u32,
    /// Timing: present only for a pair that never shared an address on a
    /// day, kept because one of them is hidden behind shared exits and
    /// follows the other in time (`scoring::improved::timing`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
    /// Places: the most uncrowded networks the two shared that were in use
    /// at one time of the season (each from the first day both moved from
    /// it to the last): home and work, home and a hotel. A home whose
    /// address was renumbered is one place at a time. Absent (0) in scans
    /// stored before it.
    #[serde(default)]
    pub places: u32,
    /// Private: the share of `a`'s (resp. `b`'s) moves made from networks
    /// the other account never moved from this season, in thousandths.
    /// One person's second account lives where his first does; two people
    /// each have places of their own. Absent (0) in scans stored before it.
    #[serde(default)]
    pub a_private_milli: u32,
    #[serde(default)]
    pub b_private_milli: u32,
    /// Pace: of `a`'s (resp. `b`'s) own consecutive moves at most five
    /// minutes apart, how many were within [`Self::close`]'s seconds; and,
    /// when the pair made a close move, the moves of either account with
    /// one of the other's within five minutes (its chances of a close
    /// move; 0 without a close move, where there is nothing to read).
    /// Close moves take two bodies only more often than each account's
    /// own pace makes them. Absent (0) in scans stored before it.
    #[serde(default)]
    pub a_pace_close: u32,
    #[serde(default)]
    pub a_pace_near: u32,
    #[serde(default)]
    pub b_pace_close: u32,
    #[serde(default)]
    pub b_pace_near: u32,
    #[serde(default)]
    pub near: u32,
}

/// How a hidden account (nearly all its moves from addresses strangers used
/// that day: VPN exits, carrier NAT, a campus) follows the other account of
/// its pair in time, against chance read from the same accounts on other
/// days. Counts and thousandths only, so that evidence compares exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Timing {
    /// Whether `a` (else `b`) is the hidden account.
    pub a_hidden: bool,
    /// The hidden account's sittings, and how many began within two hours
    /// after a move of the other account (in the bucket of one of its moves
    /// or the four 30-minute buckets after it).
    pub sittings: u32,
    pub followed: u32,
    /// The share of sittings followed by chance, in thousandths: the same
    /// count with the hidden account's sittings moved one to three days
    /// either way (same hours of the day).
    pub followed_by_chance_milli: u32,
    /// Stretches of play in which both moved: how many the other account
    /// opened, how many the hidden one did.
    pub other_opened: u32,
    pub hidden_opened: u32,
    /// The share the other account opens by chance, in thousandths, from
    /// the same shifted days.
    pub other_opened_by_chance_milli: u32,
    /// The members the hidden account was read against (0 in scans stored
    /// before they were counted): the more there are, the more of them it
    /// follows by chance.
    #[serde(default)]
    pub tested: u32,
}

impl Signals {
    /// The same evidence seen from `b`'s side.
    pub fn swapped(self) -> Signals {
        Signals {
            a_buckets: self.b_buckets,
            b_buckets: self.a_buckets,
            a_accompanied_milli: self.b_accompanied_milli,
            b_accompanied_milli: self.a_accompanied_milli,
            a_sittings: self.b_sittings,
            a_followed: self.b_followed,
            b_sittings: self.a_sittings,
            b_followed: self.a_followed,
            a_followed_by_chance_milli: self.b_followed_by_chance_milli,
            b_followed_by_chance_milli: self.a_followed_by_chance_milli,
            a_followed_long: self.b_followed_long,
            b_followed_long: self.a_followed_long,
            a_followed_long_by_chance_milli: self.b_followed_long_by_chance_milli,
            b_followed_long_by_chance_milli: self.a_followed_long_by_chance_milli,
            a_first: self.b_first,
            b_first: self.a_first,
            a_private_milli: self.b_private_milli,
            b_private_milli: self.a_private_milli,
            a_pace_close: self.b_pace_close,
            a_pace_near: self.b_pace_near,
            b_pace_close: self.a_pace_close,
            b_pace_near: self.a_pace_near,
            timing: self.timing.map(|t| Timing {
                a_hidden: !t.a_hidden,
                ..t
            }),
            ..self
        }
    }
}
