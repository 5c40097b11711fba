//! IP pseudonyms: reports, `explain` and the timelines name an IP address
//! `IP-1`, `IP-2`, ... and every one of them must call one address by one
//! name. The numbers of a season are kept by the store
//! (`Store::ip_pseudonyms`, in order of [`first_seen`]) and handed to the
//! pictures and texts as an [`IpPseudonyms`].

use crate::model::{Epoch, IpId, Segments};
use std::collections::HashMap;
use std::sync::Arc;

/// The pseudonym number of each IP of a season. A clone shares the
/// numbers: each of a report's pictures holds the season's (at ten million
/// moves 171,908 addresses for each of 1,300 cliques).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IpPseudonyms {
    by_ip: Arc<HashMap<IpId, u32>>,
}

impl IpPseudonyms {
    pub fn new(by_ip: HashMap<IpId, u32>) -> Self {
        IpPseudonyms {
            by_ip: Arc::new(by_ip),
        }
    }

    /// Numbers 1, 2, ... in the order given (for data with no store behind
    /// it, such as `report --input`).
    pub fn numbered_in_order(ips: &[IpId]) -> Self {
        let mut by_ip = HashMap::with_capacity(ips.len());
        for &ip in ips {
            let next = by_ip.len() as u32 + 1;
            by_ip.entry(ip).or_insert(next);
        }
        IpPseudonyms::new(by_ip)
    }

    pub fn number(&self, ip: IpId) -> Option<u32> {
        self.by_ip.get(&ip).copied()
    }

    /// `IP-7`, or `IP-?` for an address outside the season.
    pub fn label(&self, ip: IpId) -> String {
        match self.number(ip) {
            Some(n) => format!("IP-{n}"),
            None => "IP-?".to_owned(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.by_ip.is_empty()
    }
}

/// The IPs of all accounts' buckets in `from..to` (open ends), in order of
/// first sight: the first bucket with a move from the IP (or a stall
/// charged to it), ties broken by the address.
pub fn first_seen(segments: &Segments, from: Option<Epoch>, to: Option<Epoch>) -> Vec<IpId> {
    // Dense ids: the first sight of each IP by id, `None` if unseen.
    let mut first: Vec<Option<Epoch>> = vec![None; segments.ips.len()];
    let mut see = |ip: IpId, t: Epoch| {
        let f = &mut first[ip as usize];
        *f = Some(f.map_or(t, |f| f.min(t)));
    };
    let bs = segments.bucket_seconds;
    for segs in &segments.by_account {
        let lo = from.map_or(0, |f| segs.partition_point(|s| s.end(bs) <= f));
        for s in &segs[lo..] {
            if to.is_some_and(|t| s.bucket >= t) {
                break;
            }
            // A stall run that began before `from` is first seen at its
            // first bucket in range.
            let Some(s) = s.clip(from, to, bs) else {
                continue;
            };
            for &(ip, _) in &s.moves {
                see(ip, s.bucket);
            }
            if let Some(ip) = s.stall_ip {
                see(ip.get(), s.bucket);
            }
        }
    }
    let mut order: Vec<(Epoch, &str, IpId)> = first
        .into_iter()
        .enumerate()
        .filter_map(|(ip, t)| Some((t?, segments.ips.name(ip as IpId), ip as IpId)))
        .collect();
    order.sort_unstable();
    order.into_iter().map(|(_, _, ip)| ip).collect()
}
