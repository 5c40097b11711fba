//! How good a scan is, measured against the ground truth: pure arithmetic on
//! the scored pairs and a [`Truth`].
//!
//! Definitions (all documented on the fields too):
//!
//! - A directed pair is **flagged** when its similarity is at least the
//!   threshold; it is **true** when both accounts belong to one person
//!   ([`Truth::same_person`]). An undirected pair's score is the larger of
//!   its two directions (one direction if only one was scored).
//! - **Recall** is over *all* true pairs of the truth, including those the
//!   scan never scored because the accounts never shared an IP on a day
//!   (`missed_not_candidates`); **recall of candidates** is over the true
//!   pairs that were scored.
//! - Precision is undefined (`None`, `null` in JSON) when nothing is
//!   flagged, recall when the truth has no pairs; F1 is `2tp / (2tp + fp +
//!   fn)`, which equals the harmonic mean of precision and recall when both
//!   are defined, is 0 when nothing true is found, and `None` only when there
//!   is nothing to find and nothing flagged.
//! - ROC AUC and average precision rank the scored undirected pairs (those
//!   the scan never scored are not ranked): AUC is the Mann-Whitney statistic
//!   with average ranks for ties (a tie between a true and a false pair
//!   counts one half); AP is the sum over distinct scores, highest first, of
//!   the recall gained at that score times the precision at it.
//! - Duplicate pairs in the input count once, with their largest score;
//!   pairs of an account with itself are ignored.

use crate::truth::{FalsePositiveCause, Style, Truth, TruthIndex};
use schema::PairScore;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// Thresholds of the sweep (the evaluation's own threshold is added).
pub const SWEEP: [f64; 12] = [
    0.50, 0.55, 0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.90, 0.95, 0.975, 0.99,
];

/// Flag counts and the rates derived from them, for directed or undirected
/// pairs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Counts {
    /// Pairs that were scored.
    pub scored: usize,
    /// Pairs of accounts of one person in the truth (all of them, scored or
    /// not).
    pub true_pairs: usize,
    /// True pairs among the scored ones.
    pub true_scored: usize,
    /// Scored pairs at or above the threshold.
    pub flagged: usize,
    pub tp: usize,
    pub fp: usize,
    /// True pairs not flagged: scored below the threshold, or never scored.
    #[serde(rename = "fn")]
    pub fn_: usize,
    /// True pairs that were never scored (part of `fn`).
    pub missed_not_candidates: usize,
    /// `tp / flagged`; `None` when nothing is flagged.
    pub precision: Option<f64>,
    /// `tp / true_pairs`; `None` when the truth has no pairs.
    pub recall: Option<f64>,
    /// `tp / true_scored`; `None` when no true pair was scored.
    pub recall_of_candidates: Option<f64>,
    /// `2tp / (2tp + fp + fn)`; `None` when all three are 0.
    pub f1: Option<f64>,
}

impl Counts {
    fn new(scored: usize, true_pairs: usize, true_scored: usize, tp: usize, fp: usize) -> Counts {
        let fn_ = true_pairs - tp;
        Counts {
            scored,
            true_pairs,
            true_scored,
            flagged: tp + fp,
            tp,
            fp,
            fn_,
            missed_not_candidates: true_pairs - true_scored,
            precision: ratio(tp, tp + fp),
            recall: ratio(tp, true_pairs),
            recall_of_candidates: ratio(tp, true_scored),
            f1: ratio(2 * tp, 2 * tp + fp + fn_),
        }
    }
}

fn ratio(a: usize, b: usize) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

/// Flagged undirected pairs of distinct people, by what explains them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FalsePositives {
    pub household: usize,
    pub office: usize,
    pub carrier_nat: usize,
    pub other: usize,
}

impl FalsePositives {
    pub fn get(&self, cause: FalsePositiveCause) -> usize {
        match cause {
            FalsePositiveCause::Household => self.household,
            FalsePositiveCause::Office => self.office,
            FalsePositiveCause::CarrierNat => self.carrier_nat,
            FalsePositiveCause::Other => self.other,
        }
    }

    fn add(&mut self, cause: FalsePositiveCause) {
        *match cause {
            FalsePositiveCause::Household => &mut self.household,
            FalsePositiveCause::Office => &mut self.office,
            FalsePositiveCause::CarrierNat => &mut self.carrier_nat,
            FalsePositiveCause::Other => &mut self.other,
        } += 1;
    }
}

/// One flagged undirected pair of distinct people.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FalsePositive {
    pub a: String,
    pub b: String,
    pub similarity: f64,
    pub cause: FalsePositiveCause,
}

/// How much of a truth group the cliques recovered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CliqueStatus {
    /// One clique holds all its accounts.
    Full,
    /// A clique holds two or more of its accounts, but not all.
    Partly,
    /// No clique holds two of its accounts.
    Missed,
}

impl CliqueStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CliqueStatus::Full => "full",
            CliqueStatus::Partly => "partly",
            CliqueStatus::Missed => "missed",
        }
    }
}

/// One truth group against the cliques.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GroupOutcome {
    pub person: String,
    pub style: Style,
    /// The group's accounts.
    pub accounts: usize,
    pub status: CliqueStatus,
    /// The most of its accounts found in one clique (1 when none is flagged).
    pub found: usize,
    /// Members of that clique who are not the group's accounts, sorted.
    pub extra: Vec<String>,
}

/// Cliques (connected components of flagged undirected pairs) against the
/// truth groups.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CliqueRecovery {
    pub groups: usize,
    pub full: usize,
    pub partly: usize,
    pub missed: usize,
    /// Cliques found (components of two or more accounts).
    pub cliques: usize,
    /// Cliques whose members all belong to one truth group.
    pub pure: usize,
    /// Per truth group, in the truth's order.
    pub outcomes: Vec<GroupOutcome>,
}

/// Recovery of the groups of one style.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StyleRecovery {
    pub style: Style,
    pub groups: usize,
    pub full: usize,
    pub partly: usize,
    pub missed: usize,
    /// Undirected true pairs of these groups, and how many were flagged.
    pub true_pairs: usize,
    pub tp: usize,
    pub recall: Option<f64>,
}

/// How well the scores rank the scored undirected pairs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranking {
    pub pairs: usize,
    pub positives: usize,
    /// `None` unless both true and false pairs were scored.
    pub roc_auc: Option<f64>,
    /// `None` unless a true pair was scored.
    pub average_precision: Option<f64>,
}

/// Undirected figures at one threshold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepPoint {
    pub threshold: f64,
    pub flagged: usize,
    pub tp: usize,
    pub fp: usize,
    pub precision: Option<f64>,
    pub recall: Option<f64>,
    pub f1: Option<f64>,
}

/// A scan measured against the truth (`detect eval`; stable JSON).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evaluation {
    pub threshold: f64,
    pub directed: Counts,
    pub undirected: Counts,
    /// Flagged undirected false pairs by cause.
    pub false_positives: FalsePositives,
    /// The highest-scoring false positives (at most 10), highest first.
    pub worst_false_positives: Vec<FalsePositive>,
    pub cliques: CliqueRecovery,
    /// Per style, in [`Style::ALL`] order, styles without groups left out.
    pub by_style: Vec<StyleRecovery>,
    pub ranking: Ranking,
    /// Undirected figures at [`SWEEP`] and at `threshold`, ascending.
    pub sweep: Vec<SweepPoint>,
}

/// Measures the scored pairs of a scan (all directed pairs, both directions)
/// against the truth at `threshold`. See the module documentation for the
/// definitions.
pub fn evaluate(pairs: &[PairScore], truth: &Truth, threshold: f64) -> Evaluation {
    let ix = truth.index();

    // Directed pairs, each once with its largest score.
    let mut directed: HashMap<(&str, &str), f64> = HashMap::with_capacity(pairs.len());
    for p in pairs.iter().filter(|p| p.user_a != p.user_b) {
        let s = directed
            .entry((p.user_a.as_str(), p.user_b.as_str()))
            .or_insert(p.similarity);
        *s = s.max(p.similarity);
    }
    // Undirected pairs (smaller name first), sorted for a stable output.
    let mut undirected: BTreeMap<(&str, &str), f64> = BTreeMap::new();
    for (&(a, b), &s) in &directed {
        let key = if a < b { (a, b) } else { (b, a) };
        let u = undirected.entry(key).or_insert(s);
        *u = u.max(s);
    }

    let true_directed = truth_pairs(truth, true);
    let true_undirected = truth_pairs(truth, false);
    let directed_counts = {
        let (mut tp, mut fp, mut true_scored) = (0, 0, 0);
        for (&(a, b), &s) in &directed {
            let same = ix.same_person(a, b);
            true_scored += same as usize;
            if s >= threshold {
                if same {
                    tp += 1;
                } else {
                    fp += 1;
                }
            }
        }
        Counts::new(directed.len(), true_directed, true_scored, tp, fp)
    };

    // Undirected pairs labelled, sorted by score (highest first, then names).
    let mut labelled: Vec<(f64, bool, &str, &str)> = undirected
        .iter()
        .map(|(&(a, b), &s)| (s, ix.same_person(a, b), a, b))
        .collect();
    labelled.sort_by(|x, y| {
        y.0.total_cmp(&x.0)
            .then_with(|| (x.2, x.3).cmp(&(y.2, y.3)))
    });
    let true_scored = labelled.iter().filter(|x| x.1).count();
    let flagged = labelled.partition_point(|x| x.0 >= threshold);
    let tp = labelled[..flagged].iter().filter(|x| x.1).count();
    let undirected_counts = Counts::new(
        labelled.len(),
        true_undirected,
        true_scored,
        tp,
        flagged - tp,
    );

    let mut false_positives = FalsePositives::default();
    let mut worst_false_positives = Vec::new();
    for &(s, same, a, b) in &labelled[..flagged] {
        if same {
            continue;
        }
        let cause = ix.cause(a, b);
        false_positives.add(cause);
        if worst_false_positives.len() < 10 {
            worst_false_positives.push(FalsePositive {
                a: a.to_owned(),
                b: b.to_owned(),
                similarity: s,
                cause,
            });
        }
    }

    let cliques = clique_recovery(&labelled[..flagged], &ix);
    let by_style = Style::ALL
        .into_iter()
        .filter_map(|style| style_recovery(style, &cliques, &labelled[..flagged], &ix))
        .collect();

    let mut thresholds: Vec<f64> = SWEEP.to_vec();
    thresholds.push(threshold);
    thresholds.sort_by(f64::total_cmp);
    thresholds.dedup();
    let sweep = thresholds
        .into_iter()
        .map(|t| {
            let flagged = labelled.partition_point(|x| x.0 >= t);
            let tp = labelled[..flagged].iter().filter(|x| x.1).count();
            let c = Counts::new(
                labelled.len(),
                true_undirected,
                true_scored,
                tp,
                flagged - tp,
            );
            SweepPoint {
                threshold: t,
                flagged,
                tp,
                fp: c.fp,
                precision: c.precision,
                recall: c.recall,
                f1: c.f1,
            }
        })
        .collect();

    let scores: Vec<(f64, bool)> = labelled.iter().map(|x| (x.0, x.1)).collect();
    Evaluation {
        threshold,
        directed: directed_counts,
        undirected: undirected_counts,
        false_positives,
        worst_false_positives,
        cliques,
        by_style,
        ranking: Ranking {
            pairs: scores.len(),
            positives: true_scored,
            roc_auc: roc_auc(&scores),
            average_precision: average_precision(&scores),
        },
        sweep,
    }
}

/// The number of true pairs in the truth, ordered or unordered.
fn truth_pairs(truth: &Truth, ordered: bool) -> usize {
    let d = truth.true_directed_pairs();
    if ordered {
        d
    } else {
        d / 2
    }
}

/// ROC AUC of `(score, is_true)` items: the chance a random true item
/// scores above a random false one, ties counting one half (rank-sum with
/// average ranks). `None` without both kinds.
pub fn roc_auc(items: &[(f64, bool)]) -> Option<f64> {
    let pos = items.iter().filter(|x| x.1).count();
    let neg = items.len() - pos;
    if pos == 0 || neg == 0 {
        return None;
    }
    let mut v: Vec<(f64, bool)> = items.to_vec();
    v.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut rank_sum = 0.0;
    let mut i = 0;
    while i < v.len() {
        let j = i + v[i..].iter().take_while(|x| x.0 == v[i].0).count();
        // Ranks i+1 ..= j share their average.
        let avg = (i + 1 + j) as f64 / 2.0;
        rank_sum += avg * v[i..j].iter().filter(|x| x.1).count() as f64;
        i = j;
    }
    let (p, n) = (pos as f64, neg as f64);
    Some((rank_sum - p * (p + 1.0) / 2.0) / (p * n))
}

/// Average precision of `(score, is_true)` items: over distinct scores,
/// highest first, the recall gained at each times the precision at it.
/// `None` without a true item.
pub fn average_precision(items: &[(f64, bool)]) -> Option<f64> {
    let pos = items.iter().filter(|x| x.1).count();
    if pos == 0 {
        return None;
    }
    let mut v: Vec<(f64, bool)> = items.to_vec();
    v.sort_by(|x, y| y.0.total_cmp(&x.0));
    let (mut ap, mut tp, mut i) = (0.0, 0usize, 0);
    while i < v.len() {
        let j = i + v[i..].iter().take_while(|x| x.0 == v[i].0).count();
        let gained = v[i..j].iter().filter(|x| x.1).count();
        tp += gained;
        if gained > 0 {
            ap += gained as f64 / pos as f64 * (tp as f64 / j as f64);
        }
        i = j;
    }
    Some(ap)
}

/// Union-find over account names.
struct Components<'a> {
    parent: HashMap<&'a str, &'a str>,
}

impl<'a> Components<'a> {
    fn root(&mut self, mut x: &'a str) -> &'a str {
        while let Some(&p) = self.parent.get(x) {
            if p == x {
                break;
            }
            let g = self.parent[p];
            self.parent.insert(x, g);
            x = p;
        }
        x
    }

    fn join(&mut self, a: &'a str, b: &'a str) {
        for u in [a, b] {
            self.parent.entry(u).or_insert(u);
        }
        let (ra, rb) = (self.root(a), self.root(b));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent.insert(hi, lo);
        }
    }
}

fn clique_recovery(flagged: &[(f64, bool, &str, &str)], ix: &TruthIndex<'_>) -> CliqueRecovery {
    let mut uf = Components {
        parent: HashMap::new(),
    };
    for &(_, _, a, b) in flagged {
        uf.join(a, b);
    }
    let names: Vec<&str> = uf.parent.keys().copied().collect();
    let mut members: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for u in names {
        let r = uf.root(u);
        members.entry(r).or_default().push(u);
    }
    for m in members.values_mut() {
        m.sort_unstable();
    }
    let pure = members
        .values()
        .filter(|m| {
            let g = ix.group_of(m[0]);
            g.is_some() && m.iter().all(|u| ix.group_of(u) == g)
        })
        .count();

    let mut outcomes = Vec::with_capacity(ix.truth.groups.len());
    for g in &ix.truth.groups {
        let mut per_clique: BTreeMap<&str, usize> = BTreeMap::new();
        for a in &g.accounts {
            if uf.parent.contains_key(a.as_str()) {
                *per_clique.entry(uf.root(a)).or_default() += 1;
            }
        }
        // The clique holding most of the group (ties: the first by root).
        let best = per_clique
            .iter()
            .fold(None::<(&str, usize)>, |b, (&r, &n)| match b {
                Some((_, m)) if m >= n => b,
                _ => Some((r, n)),
            });
        let found = best.map_or(1, |b| b.1).max(1);
        let status = if found >= 2 && found == g.accounts.len() {
            CliqueStatus::Full
        } else if found >= 2 {
            CliqueStatus::Partly
        } else {
            CliqueStatus::Missed
        };
        let extra = match best {
            Some((r, n)) if n >= 2 => members[r]
                .iter()
                .filter(|u| !g.accounts.iter().any(|a| a == *u))
                .map(|u| u.to_string())
                .collect(),
            _ => Vec::new(),
        };
        outcomes.push(GroupOutcome {
            person: g.person.clone(),
            style: g.style,
            accounts: g.accounts.len(),
            status,
            found,
            extra,
        });
    }
    let count = |s| outcomes.iter().filter(|o| o.status == s).count();
    CliqueRecovery {
        groups: outcomes.len(),
        full: count(CliqueStatus::Full),
        partly: count(CliqueStatus::Partly),
        missed: count(CliqueStatus::Missed),
        cliques: members.len(),
        pure,
        outcomes,
    }
}

fn style_recovery(
    style: Style,
    cliques: &CliqueRecovery,
    flagged: &[(f64, bool, &str, &str)],
    ix: &TruthIndex<'_>,
) -> Option<StyleRecovery> {
    let outcomes: Vec<&GroupOutcome> = cliques
        .outcomes
        .iter()
        .filter(|o| o.style == style)
        .collect();
    if outcomes.is_empty() {
        return None;
    }
    let count = |s| outcomes.iter().filter(|o| o.status == s).count();
    let true_pairs = outcomes
        .iter()
        .map(|o| o.accounts * (o.accounts - 1) / 2)
        .sum();
    let tp = flagged
        .iter()
        .filter(|x| x.1)
        .filter(|x| {
            ix.group_of(x.2)
                .is_some_and(|g| ix.truth.groups[g].style == style)
        })
        .count();
    Some(StyleRecovery {
        style,
        groups: outcomes.len(),
        full: count(CliqueStatus::Full),
        partly: count(CliqueStatus::Partly),
        missed: count(CliqueStatus::Missed),
        true_pairs,
        tp,
        recall: ratio(tp, true_pairs),
    })
}

/// `0.812` or `-` for undefined.
struct Opt(Option<f64>);

impl fmt::Display for Opt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(x) => write!(f, "{x:>w$.3}", w = f.width().unwrap_or(0)),
            None => write!(f, "{:>w$}", "-", w = f.width().unwrap_or(0)),
        }
    }
}

impl fmt::Display for Evaluation {
    /// A compact terminal summary (lines under 100 characters).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "evaluation at threshold {}", self.threshold)?;
        writeln!(
            f,
            "{:<11}{:>8}{:>8}{:>6}{:>6}{:>6}{:>8}{:>7}{:>8}{:>7}{:>7}",
            "pairs",
            "scored",
            "flagged",
            "tp",
            "fp",
            "fn",
            "no-cand",
            "prec",
            "recall",
            "r-cand",
            "f1"
        )?;
        for (name, c) in [
            ("directed", &self.directed),
            ("undirected", &self.undirected),
        ] {
            writeln!(
                f,
                "{:<11}{:>8}{:>8}{:>6}{:>6}{:>6}{:>8}{:>7}{:>8}{:>7}{:>7}",
                name,
                c.scored,
                c.flagged,
                c.tp,
                c.fp,
                c.fn_,
                c.missed_not_candidates,
                Opt(c.precision),
                Opt(c.recall),
                Opt(c.recall_of_candidates),
                Opt(c.f1)
            )?;
        }
        let fp = &self.false_positives;
        writeln!(
            f,
            "false positives: household {}, office {}, carrier_nat {}, other {}",
            fp.household, fp.office, fp.carrier_nat, fp.other
        )?;
        for x in self.worst_false_positives.iter().take(3) {
            writeln!(
                f,
                "  {:.3} {} / {} ({})",
                x.similarity,
                x.a,
                x.b,
                x.cause.as_str()
            )?;
        }
        let c = &self.cliques;
        writeln!(
            f,
            "groups: {} ({} full, {} partly, {} missed); cliques found: {} ({} pure)",
            c.groups, c.full, c.partly, c.missed, c.cliques, c.pure
        )?;
        for s in &self.by_style {
            writeln!(
                f,
                "  {:<12} {:>3} groups: {:>3} full {:>3} partly {:>3} missed, pairs {:>4}/{:<4} {}",
                s.style.as_str(),
                s.groups,
                s.full,
                s.partly,
                s.missed,
                s.tp,
                s.true_pairs,
                Opt(s.recall)
            )?;
        }
        let r = &self.ranking;
        writeln!(
            f,
            "ranking of {} scored pairs ({} true): ROC AUC {}, average precision {}",
            r.pairs,
            r.positives,
            Opt(r.roc_auc),
            Opt(r.average_precision)
        )?;
        writeln!(
            f,
            "{:>9}{:>9}{:>6}{:>6}{:>7}{:>8}{:>7}",
            "threshold", "flagged", "tp", "fp", "prec", "recall", "f1"
        )?;
        for p in &self.sweep {
            writeln!(
                f,
                "{:>9}{:>9}{:>6}{:>6}{:>7}{:>8}{:>7}",
                format!("{:.3}", p.threshold),
                p.flagged,
                p.tp,
                p.fp,
                Opt(p.precision),
                Opt(p.recall),
                Opt(p.f1)
            )?;
        }
        Ok(())
    }
}
