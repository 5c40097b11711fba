//! Worlds for improved mode's tests, written one bucket per word (see
//! `improved.rs`): accounts `a` and `b`, and extra accounts on one address.
//! And scans of given pairs, for the tests of what reports make of a scan.

use schema::{day_of, IpDay, Mode, Names, PairScore, ScanParams, ScanResult, Segment, Segments};

/// The directed pair `(a, b)` at similarity `s`, with no evidence.
pub fn pair(a: &str, b: &str, s: f64) -> PairScore {
    PairScore {
        account_a: a.into(),
        account_b: b.into(),
        similarity: s,
        sum: 0,
        weight: 20,
        evidence: Default::default(),
    }
}

/// A reference scan of `pairs` at the threshold 0.9, every candidate pair
/// scored both ways.
pub fn scan_of(pairs: Vec<PairScore>) -> ScanResult {
    let params = ScanParams {
        threshold: 0.9,
        bucket_seconds: B,
        mode: Mode::Reference,
        ..ScanParams::default()
    };
    let candidate_pairs = pairs.len() / 2;
    detect_scoring::scan_result(params, 0, candidate_pairs, pairs, Vec::new())
}

/// The bucket size of every world here: 30 minutes.
pub const B: i64 = 1800;

pub fn address(n: u32) -> String {
    if n == 0 {
        "h:0".into()
    } else {
        format!("10.0.{}.{}", n / 10, n % 10)
    }
}

/// Segments of accounts `a`, `b` and `crowd` extra accounts that moved from
/// IP `crowd_ip` in bucket 0.
pub fn world(a: &str, b: &str, crowd: u32, crowd_ip: u32) -> Segments {
    let mut segs = Segments::new(B);
    let mut ips = Names::default();
    let mut add = |segs: &mut Segments, name: &str, spec: &str| {
        let u = segs.accounts.intern(name);
        let list: Vec<Segment> = spec
            .split_whitespace()
            .enumerate()
            .filter(|(_, w)| *w != ".")
            .map(|(k, w)| {
                let (stalled, rest) = match w.strip_prefix('S') {
                    Some(r) => (true, r),
                    None => (false, w),
                };
                let moves = rest
                    .strip_prefix('M')
                    .map(|l| {
                        l.split('+')
                            .map(|n| (ips.intern(&address(n.parse().expect("IP"))), 1))
                            .collect()
                    })
                    .unwrap_or_default();
                Segment {
                    bucket: k as i64 * B,
                    moves,
                    stalls: stalled as u32,
                    stall_ip: None,
                }
            })
            .collect();
        let list = schema::join_runs(list, B);
        for s in &list {
            for &(ip, _) in &s.moves {
                segs.ip_days.push(IpDay {
                    account: u,
                    day: day_of(s.bucket),
                    ip,
                });
            }
        }
        segs.by_account.push(list);
    };
    add(&mut segs, "a", a);
    add(&mut segs, "b", b);
    for c in 0..crowd {
        add(&mut segs, &format!("c{c}"), &format!("M{crowd_ip}"));
    }
    segs.ips = ips;
    segs.ip_days.sort_unstable();
    segs.ip_days.dedup();
    segs
}
