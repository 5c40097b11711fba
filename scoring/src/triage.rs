//! Triage: a scan's pairs and cliques sorted against the moderators'
//! verdicts. A pair whose current verdict says "different people" or
//! "cleared" is a *known relationship*: listed apart with its current
//! scores, not flagged, no alert. It comes back flagged, *re-opened*, when its
//! similarity rises above the level at which it was decided by more than a
//! margin. A clique whose flagged pairs are all known relationships is not a
//! clique to review.
//!
//! Reports, the web pages and the daemon's alerts all call [`triage`].

use crate::both_ways::{both_ways, BothWays};
use rustc_hash::FxHashMap;
use schema::{Clique, ScanResult, Verdict};
use std::borrow::Cow;
use std::collections::HashMap;

/// How far above the similarity at which a known relationship was decided
/// its similarity must rise for it to be flagged again.
pub const DEFAULT_REOPEN_MARGIN: f64 = 0.05;

/// A pair to review: a new flag, or a known relationship that re-opened.
#[derive(Debug, Clone, Copy)]
pub struct Flag<'a> {
    pub pair: BothWays<'a>,
    /// The pair's current verdict, if any ("suspicious", "same person", or
    /// the known relationship that re-opened).
    pub verdict: Option<&'a Verdict>,
    /// A known relationship whose similarity rose above the decided level
    /// plus the margin.
    pub reopened: bool,
}

/// A known relationship, with its current scores.
#[derive(Debug, Clone, Copy)]
pub struct Known<'a> {
    pub pair: BothWays<'a>,
    pub verdict: &'a Verdict,
}

/// A clique with at least one flag to review.
#[derive(Debug, Clone, Copy)]
pub struct CliqueToReview<'a> {
    /// Its number in the scan (1-based, as in reports and page links).
    pub number: usize,
    pub clique: &'a Clique,
    /// The newest verdict naming every member, if any.
    pub verdict: Option<&'a Verdict>,
}

/// A scan sorted against the verdicts.
#[derive(Debug, Clone, Default)]
pub struct Triage<'a> {
    /// Pairs to review (new flags and re-opened ones), strongest first.
    pub flags: Vec<Flag<'a>>,
    /// Known relationships, strongest first.
    pub known: Vec<Known<'a>>,
    /// Cliques that hold at least one pair to review.
    pub cliques: Vec<CliqueToReview<'a>>,
}

/// The newest verdict of each unordered pair `(a, b)`, `a < b`: its own or
/// that of a clique verdict containing both.
pub struct VerdictIndex<'v> {
    by_pair: FxHashMap<(&'v str, &'v str), &'v Verdict>,
}

fn newer(x: &Verdict, y: &Verdict) -> bool {
    (x.at, x.id) > (y.at, y.id)
}

impl<'v> VerdictIndex<'v> {
    pub fn new(verdicts: &'v [Verdict]) -> Self {
        let mut by_pair: FxHashMap<(&str, &str), &Verdict> = FxHashMap::default();
        for v in verdicts {
            for (i, a) in v.accounts.iter().enumerate() {
                for b in &v.accounts[i + 1..] {
                    let key = if a < b { (a, b) } else { (b, a) };
                    let slot = by_pair.entry((key.0.as_str(), key.1.as_str())).or_insert(v);
                    if newer(v, slot) {
                        *slot = v;
                    }
                }
            }
        }
        VerdictIndex { by_pair }
    }

    /// The current verdict of the pair, in either order.
    pub fn current(&self, a: &str, b: &str) -> Option<&'v Verdict> {
        if self.by_pair.is_empty() {
            return None;
        }
        let key = if a < b { (a, b) } else { (b, a) };
        self.by_pair.get(&key).copied()
    }
}

/// Whether a known relationship decided at `verdict.similarity` re-opens at
/// `similarity`: it rose above that level by more than `margin`. A verdict
/// without a recorded level never re-opens.
pub fn reopens(verdict: &Verdict, similarity: f64, margin: f64) -> bool {
    verdict
        .similarity
        .is_some_and(|level| similarity > level + margin)
}

/// The newest verdict naming every member of `members`.
pub fn clique_verdict<'v>(verdicts: &'v [Verdict], members: &[String]) -> Option<&'v Verdict> {
    verdicts
        .iter()
        .filter(|v| members.iter().all(|m| v.accounts.binary_search(m).is_ok()))
        .fold(None, |best: Option<&Verdict>, v| match best {
            Some(b) if !newer(v, b) => Some(b),
            _ => Some(v),
        })
}

/// Sorts the scan's pairs (flagged ones, or every scored pair with `all`)
/// into flags and known relationships, and keeps the cliques that hold a
/// flag. `margin`: see [`reopens`].
pub fn triage<'a>(
    result: &'a ScanResult,
    verdicts: &'a [Verdict],
    all: bool,
    margin: f64,
) -> Triage<'a> {
    let index = VerdictIndex::new(verdicts);
    let threshold = result.params.threshold;
    let mut out = Triage::default();
    let mut settled: HashMap<(&str, &str), bool> = HashMap::new();
    for pair in both_ways(result, all) {
        let verdict = index.current(pair.a, pair.b);
        let known = verdict
            .filter(|v| v.kind.is_known_relationship())
            .filter(|v| !reopens(v, pair.max(), margin));
        if pair.max() >= threshold {
            settled.insert((pair.a, pair.b), known.is_some());
        }
        match known {
            Some(verdict) => out.known.push(Known { pair, verdict }),
            None => out.flags.push(Flag {
                pair,
                verdict,
                reopened: verdict.is_some_and(|v| v.kind.is_known_relationship()),
            }),
        }
    }
    // The cliques holding both accounts of a flag not settled by a verdict.
    let mut cliques_of: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, clique) in result.cliques.iter().enumerate() {
        for m in &clique.members {
            cliques_of.entry(m.as_str()).or_default().push(k);
        }
    }
    let mut has_flag = vec![false; result.cliques.len()];
    for (&(a, b), _) in settled.iter().filter(|(_, &known)| !known) {
        if let (Some(ka), Some(kb)) = (cliques_of.get(a), cliques_of.get(b)) {
            for &k in ka.iter().filter(|k| kb.contains(k)) {
                has_flag[k] = true;
            }
        }
    }
    for (k, clique) in result.cliques.iter().enumerate() {
        let m = &clique.members;
        if has_flag[k] {
            out.cliques.push(CliqueToReview {
                number: k + 1,
                clique,
                verdict: clique_verdict(verdicts, m),
            });
        }
    }
    out
}

/// The scan as a moderator reviews it: without the known relationships'
/// directed pairs, and with only the cliques to review (renumbered from 1).
/// The scan itself, not a copy, when nothing is left out.
pub fn to_review<'a>(result: &'a ScanResult, triage: &Triage) -> Cow<'a, ScanResult> {
    if triage.known.is_empty() && triage.cliques.len() == result.cliques.len() {
        return Cow::Borrowed(result);
    }
    let known: std::collections::HashSet<(&str, &str)> =
        triage.known.iter().map(|k| (k.pair.a, k.pair.b)).collect();
    let is_known = |a: &str, b: &str| {
        let key = if a < b { (a, b) } else { (b, a) };
        known.contains(&key)
    };
    Cow::Owned(ScanResult {
        params: result.params,
        participants: result.participants,
        candidate_pairs: result.candidate_pairs,
        pairs: result
            .pairs
            .iter()
            .filter(|p| !is_known(&p.account_a, &p.account_b))
            .cloned()
            .collect(),
        cliques: triage.cliques.iter().map(|c| c.clique.clone()).collect(),
        crowded: result.crowded.clone(),
    })
}
