//! Every account's moves by second ([`MoveTimes`]): what improved mode reads
//! beside the segments, which keep buckets only; and the grouping of moves
//! by address the per-account indexes share.

use schema::{AccountId, Epoch, IpId, Season, Segments};

/// Every account's moves as (second, address), sorted; ids are those of the
/// [`Segments`] they were built beside.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MoveTimes {
    by_account: Vec<Vec<(Epoch, IpId)>>,
    /// Per address id, the network the store recorded for it (`moves.net`),
    /// numbered in order of first sight: all a keyed store keeps of an
    /// address's network, as its addresses are hashes (see
    /// [`MoveTimes::network`]).
    networks: Vec<Option<u32>>,
    network_ids: rustc_hash::FxHashMap<String, u32>,
}

impl MoveTimes {
    /// An empty set for the accounts of `segments`.
    pub fn new(segments: &Segments) -> Self {
        MoveTimes {
            by_account: vec![Vec::new(); segments.accounts.len()],
            ..MoveTimes::default()
        }
    }

    /// Adds one move; accounts or addresses the segments do not know are
    /// left out (they have no candidate pair).
    pub fn push(&mut self, segments: &Segments, account: &str, t: Epoch, ip: &str) {
        self.push_with_network(segments, account, t, ip, None);
    }

    /// [`MoveTimes::push`], with the network the store recorded for the
    /// address (`moves.net`: `None` for what is not an address).
    pub fn push_with_network(
        &mut self,
        segments: &Segments,
        account: &str,
        t: Epoch,
        ip: &str,
        network: Option<&str>,
    ) {
        let (Some(u), Some(ip)) = (segments.accounts.get(account), segments.ips.get(ip)) else {
            return;
        };
        if let Some(list) = self.by_account.get_mut(u as usize) {
            list.push((t, ip));
        }
        self.note_network(segments, ip, network);
    }

    /// Adds some moves of one account, as a store keeps them beside its
    /// segments: its addresses with their networks, and the moves as
    /// (second, index into the addresses). The same as
    /// [`MoveTimes::push_with_network`] move by move, names looked up once.
    pub fn push_chunk(
        &mut self,
        segments: &Segments,
        account: &str,
        ips: &[(&str, Option<&str>)],
        moves: &[(Epoch, u32)],
    ) {
        let Some(u) = segments.accounts.get(account) else {
            return;
        };
        let ids: Vec<Option<IpId>> = ips.iter().map(|&(ip, _)| segments.ips.get(ip)).collect();
        let Some(list) = self.by_account.get_mut(u as usize) else {
            return;
        };
        list.reserve(moves.len());
        list.extend(
            moves
                .iter()
                .filter_map(|&(t, i)| Some((t, ids.get(i as usize).copied().flatten()?))),
        );
        for (&(_, network), id) in ips.iter().zip(&ids) {
            if let Some(id) = *id {
                self.note_network(segments, id, network);
            }
        }
    }

    /// Records the network the store gave address `ip`, numbered in order
    /// of first sight.
    fn note_network(&mut self, segments: &Segments, ip: IpId, network: Option<&str>) {
        let Some(net) = network else {
            return;
        };
        if self.networks.len() <= ip as usize {
            self.networks
                .resize(segments.ips.len().max(ip as usize + 1), None);
        }
        if self.networks[ip as usize].is_none() {
            let next = self.network_ids.len() as u32;
            let id = *self.network_ids.entry(net.to_owned()).or_insert(next);
            self.networks[ip as usize] = Some(id);
        }
    }

    /// The network the store recorded for address `ip`, as a number (equal
    /// numbers, one network): read where the address itself says nothing,
    /// as in a keyed store, so that a key changes no score.
    pub fn network(&self, ip: IpId) -> Option<u32> {
        self.networks.get(ip as usize).copied().flatten()
    }

    /// Adds one move by ids: those the names will have in the [`Segments`]
    /// it is read beside, while a reader is still interning them (the list
    /// of accounts grows as they come). Finish with [`MoveTimes::finish_for`].
    pub fn push_ids(&mut self, account: AccountId, t: Epoch, ip: IpId) {
        let u = account as usize;
        if u >= self.by_account.len() {
            self.by_account.resize_with(u + 1, Vec::new);
        }
        self.by_account[u].push((t, ip));
    }

    /// Sorts every account's moves and makes room for every account of
    /// `segments`, as [`MoveTimes::new`] would have.
    pub fn finish_for(mut self, segments: &Segments) -> Self {
        let n = segments.accounts.len().max(self.by_account.len());
        self.by_account.resize_with(n, Vec::new);
        self.finish()
    }

    /// Sorts every account's moves (call once after the last push).
    pub fn finish(mut self) -> Self {
        for list in &mut self.by_account {
            list.sort_unstable();
        }
        self
    }

    /// The moves of `account` inside the season's range.
    pub fn in_season(&self, account: AccountId, season: &Season) -> &[(Epoch, IpId)] {
        let all = self
            .by_account
            .get(account as usize)
            .map_or(&[][..], Vec::as_slice);
        let lo = season.from.map_or(0, |f| all.partition_point(|m| m.0 < f));
        let hi = season
            .to
            .map_or(all.len(), |t| all.partition_point(|m| m.0 < t));
        &all[lo..hi.max(lo)]
    }
}

/// Sorted `(address, item)` pairs as groups: the addresses, where each
/// address's items begin in the third list (one more entry than addresses,
/// the last the end), and the items, so that the items of `ips[i]` are
/// `by_ip[ip_from[i]..ip_from[i + 1]]`.
pub(super) fn groups(pairs: &[(IpId, u32)]) -> (Vec<IpId>, Vec<u32>, Vec<u32>) {
    let (mut ips, mut ip_from, mut by_ip) = (Vec::new(), vec![0], Vec::with_capacity(pairs.len()));
    for (n, &(ip, i)) in pairs.iter().enumerate() {
        if ips.last() != Some(&ip) {
            if !ips.is_empty() {
                ip_from.push(n as u32);
            }
            ips.push(ip);
        }
        by_ip.push(i);
    }
    if !ips.is_empty() {
        ip_from.push(pairs.len() as u32);
    }
    (ips, ip_from, by_ip)
}
