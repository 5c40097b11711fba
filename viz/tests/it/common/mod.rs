//! Hand-built inputs for the viz tests (no ingest), and the golden-file
//! helper.
#![allow(dead_code)]

use schema::{
    bucket_of, Clique, Epoch, Evidence, Mode, PairScore, ScanParams, ScanResult, Segment, Segments,
};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// 2015-05-03 00:00 UTC.
pub const T0: Epoch = 1_430_611_200;
pub const HOUR: Epoch = 3600;
pub const DAY: Epoch = 86_400;

/// Builds [`Segments`] from moves and stalls given in any order.
pub struct Build {
    segments: Segments,
    cells: BTreeMap<(u32, Epoch), Segment>,
}

impl Build {
    pub fn new(bucket_seconds: i64) -> Self {
        Build {
            segments: Segments::new(bucket_seconds),
            cells: BTreeMap::new(),
        }
    }

    fn cell(&mut self, account: &str, t: Epoch) -> &mut Segment {
        let u = self.segments.accounts.intern(account);
        let bucket = bucket_of(t, self.segments.bucket_seconds);
        self.cells.entry((u, bucket)).or_insert_with(|| Segment {
            bucket,
            ..Default::default()
        })
    }

    /// `account` moved `count` times from `ip` at `t`.
    pub fn moved(&mut self, account: &str, t: Epoch, ip: &str, count: u32) -> &mut Self {
        let ip = self.segments.ips.intern(ip);
        let seg = self.cell(account, t);
        match seg.moves.iter_mut().find(|(i, _)| *i == ip) {
            Some((_, c)) => *c += count,
            None => seg.moves.push((ip, count)),
        }
        self
    }

    /// `account` was stalled at `t`; their next move was from `next_ip`.
    pub fn stalled(&mut self, account: &str, t: Epoch, next_ip: Option<&str>) -> &mut Self {
        let ip = next_ip.map(|ip| self.segments.ips.intern(ip));
        let seg = self.cell(account, t);
        seg.stalls = 1;
        seg.stall_ip = ip.map(schema::StallIp::new);
        self
    }

    pub fn finish(&mut self) -> Segments {
        let mut s = self.segments.clone();
        s.by_account = vec![Vec::new(); s.accounts.len()];
        for (&(u, _), seg) in &self.cells {
            s.by_account[u as usize].push(seg.clone());
        }
        // Consecutive stalls as one run, as the segmenter keeps them.
        for list in &mut s.by_account {
            *list = schema::join_runs(std::mem::take(list), s.bucket_seconds);
        }
        s
    }
}

/// Moves (account, bucket, IP) and stalled buckets of `accounts` in the segments,
/// counted from the data (what the picture must show one mark for each).
pub fn count_marks(s: &Segments, accounts: &[&str], from: Epoch, to: Epoch) -> (usize, usize) {
    let mut moves = 0;
    let mut stalls = 0;
    for u in accounts {
        let buckets = schema::expand(s.of(u), s.bucket_seconds);
        for seg in buckets.iter().filter(|g| g.bucket >= from && g.bucket < to) {
            moves += seg.moves.len();
            stalls += usize::from(seg.stalled());
        }
    }
    (moves, stalls)
}

/// The small fixture of the structure and golden tests:
///
/// - `1.1.1.1`: alice and bob (shared) — IP-1;
/// - `2.2.2.2`: bob alone, 5 buckets (not ephemeral) — IP-2;
/// - `3.3.3.3`: alice once — IP-3, ephemeral;
/// - `4.4.4.4`: bob twice, first named by a stall — IP-4, ephemeral;
/// - alice stalls 3 buckets before her 28h move, bob 2 before his 26h move.
pub fn small() -> Segments {
    let mut b = Build::new(1800);
    b.moved("alice", T0 + HOUR, "1.1.1.1", 2)
        .moved("bob", T0 + HOUR + 60, "1.1.1.1", 1);
    for h in [3, 5, 7, 9, 11] {
        b.moved("bob", T0 + h * HOUR, "2.2.2.2", 1);
    }
    b.moved("alice", T0 + 20 * HOUR, "3.3.3.3", 1)
        .stalled("bob", T0 + 25 * HOUR, Some("4.4.4.4"))
        .stalled("bob", T0 + 25 * HOUR + 1800, Some("4.4.4.4"))
        .moved("bob", T0 + 26 * HOUR, "4.4.4.4", 3)
        .stalled("alice", T0 + 26 * HOUR, Some("1.1.1.1"))
        .stalled("alice", T0 + 26 * HOUR + 1800, Some("1.1.1.1"))
        .stalled("alice", T0 + 27 * HOUR, Some("1.1.1.1"))
        .moved("alice", T0 + 28 * HOUR, "1.1.1.1", 1)
        .moved("bob", T0 + 30 * HOUR, "4.4.4.4", 1)
        .moved("alice", T0 + 40 * HOUR, "1.1.1.1", 1);
    b.finish()
}

/// A deterministic pseudo-random sequence (an LCG), for generated fixtures.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// A clique of 8 accounts over 60 days with 30 IPs: 3 home IPs each shared
/// by several accounts, 27 ephemeral IPs each used by one account in one or
/// two buckets. Every account plays to the end, with stalls before moves.
pub fn big_clique() -> (Segments, Vec<String>) {
    let accounts: Vec<String> = (1..=8).map(|i| format!("acct-{i}")).collect();
    let homes = ["10.0.0.1", "10.0.0.2", "10.0.0.3"];
    let mut rng = Lcg(7);
    let mut b = Build::new(1800);
    for day in 0..60 {
        for (u, name) in accounts.iter().enumerate() {
            for _ in 0..4 {
                let t = T0 + day * DAY + rng.below(48) as i64 * 1800;
                let ip = homes[(u + rng.below(2) as usize) % 3];
                if rng.below(3) == 0 && t > T0 + 3600 {
                    b.stalled(name, t - 1800, Some(ip));
                }
                b.moved(name, t, ip, 1 + rng.below(3) as u32);
            }
        }
    }
    for e in 0..27i64 {
        let name = &accounts[e as usize % 8];
        let ip = format!("172.16.{e}.9");
        let t = T0 + (e * 2 + 1) * DAY + 5 * HOUR + 13;
        b.moved(name, t, &ip, 1);
        if e % 2 == 0 {
            b.moved(name, t + 4 * HOUR, &ip, 2);
        }
    }
    (b.finish(), accounts)
}

fn pair(a: &str, b: &str, similarity: f64, same_ip: u64, other_ip: u64, boost: u32) -> PairScore {
    let mut evidence = Evidence::default();
    evidence.same_ip.count = same_ip;
    evidence.same_ip.score = same_ip as i64 * 10;
    evidence.other_ip.count = other_ip;
    evidence.other_ip.score = -(other_ip as i64) * 10;
    evidence.moved_stalled.count = 2;
    evidence.stalled_moved.count = 1;
    evidence.both_stalled.count = 7;
    evidence.max_boost = boost;
    PairScore {
        account_a: a.to_owned(),
        account_b: b.to_owned(),
        similarity,
        sum: 0,
        weight: 20,
        evidence,
    }
}

/// A scan result with two cliques, one of them of three accounts, and a
/// pair flagged in one direction only; `names` replaces the account names
/// (for the escaping tests).
pub fn scan_result(names: [&str; 5]) -> ScanResult {
    let [a, b, c, d, e] = names;
    let mut pairs = vec![
        pair(a, b, 0.97, 40, 1, 12),
        pair(b, a, 0.95, 38, 2, 12),
        pair(b, c, 0.93, 20, 1, 3),
        pair(c, b, 0.88, 19, 4, 3),
        pair(d, e, 0.9, 11, 0, 0),
        pair(e, d, 0.91, 11, 0, 1),
        pair(a, e, 0.41, 1, 9, 0),
        pair(e, a, 0.47, 1, 8, 0),
    ];
    pairs.sort_by(|x, y| y.similarity.total_cmp(&x.similarity));
    let mut big = vec![a.to_owned(), b.to_owned(), c.to_owned()];
    big.sort();
    let mut small = vec![d.to_owned(), e.to_owned()];
    small.sort();
    ScanResult {
        params: ScanParams {
            threshold: 0.9,
            bucket_seconds: 1800,
            mode: Mode::Reference,
            crowd_limit: schema::DEFAULT_CROWD_LIMIT,
        },
        participants: 12,
        candidate_pairs: 4,
        pairs,
        cliques: vec![Clique { members: big }, Clique { members: small }],
        crowded: Vec::new(),
    }
}

/// Compares `actual` with `tests/golden/<name>`, or writes it there when
/// `DETECT_BLESS=1`.
pub fn golden(name: &str, actual: &str) {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "golden", name]
        .iter()
        .collect();
    if std::env::var("DETECT_BLESS").as_deref() == Ok("1") {
        std::fs::write(&path, actual).expect("write golden file");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run with DETECT_BLESS=1 to create it",
            path.display()
        )
    });
    if expected != actual {
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(x, y)| x != y)
            .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
        panic!(
            "{} differs from the output, first at line {}:\n  golden: {:?}\n  actual: {:?}\n\
             (if the change is intended, rerun with DETECT_BLESS=1 and review the diff)",
            path.display(),
            line + 1,
            expected.lines().nth(line),
            actual.lines().nth(line)
        );
    }
}

/// Parses an SVG (or XHTML-shaped) string, panicking with the error. The
/// DTD is allowed for the report's `<!DOCTYPE html>`.
pub fn parse(xml: &str) -> roxmltree::Document<'_> {
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(xml, opts)
        .unwrap_or_else(|e| panic!("not well-formed: {e}\n{xml}"))
}

/// Elements whose `class` attribute is `class`.
pub fn with_class<'a, 'i>(
    doc: &'a roxmltree::Document<'i>,
    class: &'a str,
) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> + 'a {
    doc.descendants()
        .filter(move |n| n.is_element() && n.attribute("class") == Some(class))
}

/// The label of each chart legend entry (its `<text>` child), trimmed.
pub fn chart_legend(doc: &roxmltree::Document) -> Vec<String> {
    with_class(doc, "legend-entry")
        .filter_map(|e| e.children().find(|c| c.has_tag_name("text")))
        .filter_map(|t| t.text().map(|s| s.trim().to_owned()))
        .collect()
}

/// The text of the `<title>` child of `node`.
pub fn tooltip(node: roxmltree::Node) -> Option<String> {
    node.children()
        .find(|c| c.has_tag_name("title"))
        .and_then(|t| t.text())
        .map(str::to_owned)
}
