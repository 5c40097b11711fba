//! The evaluation on a hand-made truth and pair list, every figure worked
//! out by hand in the comments.

use detect_sim::eval::{average_precision, roc_auc, CliqueStatus};
use detect_sim::{evaluate, Group, Lookalike, LookalikeKind, Style, Truth};
use schema::{Evidence, PairScore};

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Groups (one person each):
///   p1 lockstep {a, b, c}   3 undirected / 6 directed true pairs
///   p2 cautious {d, e}      1 / 2
///   p3 phone    {f, g}      1 / 2   (never scored: not candidates)
///   p4 rare     {t, u, v}   3 / 6
///   total                   8 / 16
/// Lookalikes: household {h, i}; family {j, k}; office {l, m};
/// university {n, o}; carrier NAT {a, h, l, p, q}. r and s are unknown.
fn truth() -> Truth {
    let group = |p: &str, acc: &[&str], style| Group {
        person: p.into(),
        accounts: names(acc),
        style,
    };
    let look = |kind, acc: &[&str]| Lookalike {
        kind,
        accounts: names(acc),
    };
    Truth {
        seed: 0,
        season: 1,
        groups: vec![
            group("p1", &["a", "b", "c"], Style::Lockstep),
            group("p2", &["d", "e"], Style::Cautious),
            group("p3", &["f", "g"], Style::Phone),
            group("p4", &["t", "u", "v"], Style::RarePuppet),
        ],
        lookalikes: vec![
            look(LookalikeKind::Household, &["h", "i"]),
            look(LookalikeKind::FamilySharedComputer, &["j", "k"]),
            look(LookalikeKind::Office, &["l", "m"]),
            look(LookalikeKind::University, &["n", "o"]),
            look(LookalikeKind::CarrierNat, &["a", "h", "l", "p", "q"]),
        ],
        ..Default::default()
    }
}

fn pair(a: &str, b: &str, similarity: f64) -> PairScore {
    PairScore {
        account_a: a.into(),
        account_b: b.into(),
        similarity,
        sum: 0,
        weight: 20,
        evidence: Evidence::default(),
    }
}

/// Directed pairs (T = true pair, F = flagged at 0.9):
///
/// | pair | score | | pair | score | | undirected (max) |
/// |------|-------|-|------|-------|-|------------------|
/// | a→b  | .95 TF| | b→a  | .92 TF| | ab .95 T flagged |
/// | a→c  | .91 TF| | c→a  | .60 T | | ac .91 T flagged |
/// | b→c  | .70 T | | c→b  | .85 T | | bc .85 T         |
/// | d→e  | .50 T | | e→d  | .55 T | | de .55 T         |
/// | t→u  | .97 TF| | u→t  | .50 T | | tu .97 T flagged |
/// | t→v  | .30 T | | v→t  | .30 T | | tv .30 T         |
/// | u→v  | .20 T | | v→u  | .20 T | | uv .20 T         |
/// | h→i  | .93 F | | i→h  | .40   | | hi .93 flagged (household) |
/// | j→k  | .89   | | k→j  | .90 F | | jk .90 flagged (household: family) |
/// | l→m  | .91 F | | (m→l not scored) | lm .91 flagged (office) |
/// | p→q  | .95 F | | q→p  | .95 F | | pq .95 flagged (carrier NAT) |
/// | a→h  | .30   | | h→a  | .20   | | ah .30 (carrier NAT, not flagged) |
/// | r→s  | .92 F | | s→r  | .10   | | rs .92 flagged (other) |
/// | n→o  | .60   | | o→n  | .65   | | no .65 |
/// | c→r  | .50   | | r→c  | .91 F | | cr .91 flagged (other) |
///
/// Plus a duplicate a→b at .80 (the larger score counts) and a self-pair
/// a→a (ignored).
fn pairs() -> Vec<PairScore> {
    [
        ("a", "b", 0.95),
        ("b", "a", 0.92),
        ("a", "c", 0.91),
        ("c", "a", 0.60),
        ("b", "c", 0.70),
        ("c", "b", 0.85),
        ("d", "e", 0.50),
        ("e", "d", 0.55),
        ("t", "u", 0.97),
        ("u", "t", 0.50),
        ("t", "v", 0.30),
        ("v", "t", 0.30),
        ("u", "v", 0.20),
        ("v", "u", 0.20),
        ("h", "i", 0.93),
        ("i", "h", 0.40),
        ("j", "k", 0.89),
        ("k", "j", 0.90),
        ("l", "m", 0.91),
        ("p", "q", 0.95),
        ("q", "p", 0.95),
        ("a", "h", 0.30),
        ("h", "a", 0.20),
        ("r", "s", 0.92),
        ("s", "r", 0.10),
        ("n", "o", 0.60),
        ("o", "n", 0.65),
        ("c", "r", 0.50),
        ("r", "c", 0.91),
        ("a", "b", 0.80),
        ("a", "a", 0.99),
    ]
    .into_iter()
    .map(|(a, b, s)| pair(a, b, s))
    .collect()
}

fn close(x: Option<f64>, want: f64) {
    let x = x.expect("defined");
    assert!((x - want).abs() < 1e-12, "{x} != {want}");
}

#[test]
fn directed_counts() {
    let e = evaluate(&pairs(), &truth(), 0.9);
    let d = &e.directed;
    // 29 distinct directed pairs (the duplicate and the self-pair dropped).
    assert_eq!(d.scored, 29);
    // True in the truth: 6 + 2 + 2 + 6 = 16; scored: all but f→g, g→f.
    assert_eq!(
        (d.true_pairs, d.true_scored, d.missed_not_candidates),
        (16, 14, 2)
    );
    // Flagged: a→b b→a a→c t→u (true) h→i k→j l→m p→q q→p r→s r→c (false).
    assert_eq!((d.flagged, d.tp, d.fp), (11, 4, 7));
    // fn = 16 - 4 = 12 (10 scored below .9, 2 never scored).
    assert_eq!(d.fn_, 12);
    close(d.precision, 4.0 / 11.0);
    close(d.recall, 4.0 / 16.0);
    close(d.recall_of_candidates, 4.0 / 14.0);
    // F1 = 2tp / (2tp + fp + fn) = 8 / 27.
    close(d.f1, 8.0 / 27.0);
}

#[test]
fn undirected_counts_and_causes() {
    let e = evaluate(&pairs(), &truth(), 0.9);
    let u = &e.undirected;
    // 15 undirected pairs; true: ab ac bc de tu tv uv (7 of 8, fg unscored).
    assert_eq!((u.scored, u.true_pairs, u.true_scored), (15, 8, 7));
    assert_eq!(u.missed_not_candidates, 1);
    // Flagged: ab ac tu (true); hi jk lm pq rs cr (false).
    assert_eq!((u.flagged, u.tp, u.fp, u.fn_), (9, 3, 6, 5));
    close(u.precision, 3.0 / 9.0);
    close(u.recall, 3.0 / 8.0);
    close(u.recall_of_candidates, 3.0 / 7.0);
    close(u.f1, 6.0 / 17.0);

    // hi household, jk household (family), lm office, pq carrier NAT, rs and
    // cr other.
    let fp = &e.false_positives;
    assert_eq!(
        (fp.household, fp.office, fp.carrier_nat, fp.other),
        (2, 1, 1, 2)
    );
    // Highest first; the .91 tie ordered by names (c/r before l/m).
    let worst: Vec<(&str, &str, f64)> = e
        .worst_false_positives
        .iter()
        .map(|x| (x.a.as_str(), x.b.as_str(), x.similarity))
        .collect();
    assert_eq!(
        worst,
        [
            ("p", "q", 0.95),
            ("h", "i", 0.93),
            ("r", "s", 0.92),
            ("c", "r", 0.91),
            ("l", "m", 0.91),
            ("j", "k", 0.90)
        ]
    );
}

#[test]
fn cliques_and_styles() {
    let e = evaluate(&pairs(), &truth(), 0.9);
    let c = &e.cliques;
    // Components of flagged pairs: {a,b,c,r,s} {h,i} {j,k} {l,m} {p,q} {t,u};
    // only {t,u} lies inside one group.
    assert_eq!((c.cliques, c.pure), (6, 1));
    // p1 full (with r and s extra), p2 and p3 missed, p4 partly (t, u of 3).
    assert_eq!((c.groups, c.full, c.partly, c.missed), (4, 1, 1, 2));
    let o: Vec<(CliqueStatus, usize, Vec<String>)> = c
        .outcomes
        .iter()
        .map(|o| (o.status, o.found, o.extra.clone()))
        .collect();
    assert_eq!(
        o,
        [
            (CliqueStatus::Full, 3, names(&["r", "s"])),
            (CliqueStatus::Missed, 1, vec![]),
            (CliqueStatus::Missed, 1, vec![]),
            (CliqueStatus::Partly, 2, vec![]),
        ]
    );
    // Per style (lockstep, phone, cautious, rare): flagged true pairs of 3, 1,
    // 1, 3: ab ac; none; none; tu.
    let s: Vec<(Style, usize, usize, Option<f64>)> = e
        .by_style
        .iter()
        .map(|s| (s.style, s.true_pairs, s.tp, s.recall))
        .collect();
    assert_eq!(
        s,
        [
            (Style::Lockstep, 3, 2, Some(2.0 / 3.0)),
            (Style::Phone, 1, 0, Some(0.0)),
            (Style::Cautious, 1, 0, Some(0.0)),
            (Style::RarePuppet, 3, 1, Some(1.0 / 3.0)),
        ]
    );
}

#[test]
fn ranking() {
    let e = evaluate(&pairs(), &truth(), 0.9);
    assert_eq!((e.ranking.pairs, e.ranking.positives), (15, 7));
    // Ascending, with ranks (ties share the average):
    //   .20 uv T 1 | .30 tv T, ah N 2.5 | .55 de T 4 | .65 no N 5 |
    //   .85 bc T 6 | .90 jk N 7 | .91 ac T, lm N, cr N 9 | .92 rs N 11 |
    //   .93 hi N 12 | .95 ab T, pq N 13.5 | .97 tu T 15
    // Rank sum of the 7 true: 1 + 2.5 + 4 + 6 + 9 + 13.5 + 15 = 51.
    // AUC = (51 - 7*8/2) / (7*8) = 23/56. (Pair count: true above false
    // 0 + .5 + 1 + 2 + 4 + 7.5 + 8 = 23 of 56.)
    close(e.ranking.roc_auc, 23.0 / 56.0);
    // AP, distinct scores descending, (tp so far / seen so far) where a
    // true pair is gained:
    //   .97 1/1, .95 2/3, .91 3/8, .85 4/10, .55 5/12, .30 6/14, .20 7/15
    // AP = (1 + 2/3 + 3/8 + 4/10 + 5/12 + 6/14 + 7/15) / 7 = 3153/5880.
    close(e.ranking.average_precision, 3153.0 / 5880.0);
}

#[test]
fn sweep() {
    let e = evaluate(&pairs(), &truth(), 0.9);
    let t: Vec<f64> = e.sweep.iter().map(|p| p.threshold).collect();
    assert_eq!(
        t,
        [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.975, 0.99]
    );
    // At .5: all but tv, ah, uv flagged (12): true tu ab ac bc de (5).
    let p = &e.sweep[0];
    assert_eq!((p.flagged, p.tp, p.fp), (12, 5, 7));
    close(p.precision, 5.0 / 12.0);
    close(p.recall, 5.0 / 8.0);
    close(p.f1, 10.0 / 20.0);
    // At .9 the sweep agrees with the undirected counts.
    assert_eq!(e.sweep[8].flagged, e.undirected.flagged);
    assert_eq!(e.sweep[8].f1, e.undirected.f1);
    // At .95: tu ab pq.
    let p = &e.sweep[9];
    assert_eq!((p.flagged, p.tp, p.fp), (3, 2, 1));
    close(p.f1, 4.0 / 11.0);
    // At .99 nothing: precision undefined, recall and F1 zero.
    let p = &e.sweep[11];
    assert_eq!((p.flagged, p.precision), (0, None));
    close(p.recall, 0.0);
    close(p.f1, 0.0);
    // A threshold of its own joins the sweep.
    let e = evaluate(&pairs(), &truth(), 0.93);
    assert_eq!(e.sweep.len(), 13);
    assert_eq!(e.sweep[9].threshold, 0.93);
    // ab tu hi pq at .93.
    assert_eq!((e.undirected.flagged, e.undirected.tp), (4, 2));
}

#[test]
fn undefined_figures_are_null_in_json() {
    let e = evaluate(&pairs(), &truth(), 0.999);
    assert_eq!(e.undirected.flagged, 0);
    let v = serde_json::to_value(&e).unwrap();
    assert!(v["undirected"]["precision"].is_null());
    assert_eq!(v["undirected"]["fn"], 8);
    assert_eq!(v["undirected"]["f1"], 0.0);
    assert_eq!(v["cliques"]["outcomes"][0]["status"], "missed");
    assert_eq!(v["by_style"][0]["style"], "lockstep");
    // Nothing scored at all: no ranking.
    let e = evaluate(&[], &truth(), 0.9);
    assert_eq!(
        (e.ranking.roc_auc, e.ranking.average_precision),
        (None, None)
    );
    assert_eq!(e.undirected.missed_not_candidates, 8);
    assert_eq!(e.cliques.missed, 4);
    // An empty truth: recall undefined.
    let e = evaluate(&pairs(), &Truth::default(), 0.9);
    assert_eq!((e.undirected.recall, e.undirected.tp), (None, 0));
}

#[test]
fn ranking_extremes() {
    // Perfect separation, complete inversion, all tied.
    let good = [(0.9, true), (0.8, true), (0.2, false)];
    assert_eq!(roc_auc(&good), Some(1.0));
    assert_eq!(average_precision(&good), Some(1.0));
    let bad = [(0.1, true), (0.8, false), (0.9, false)];
    assert_eq!(roc_auc(&bad), Some(0.0));
    // The true one comes third: AP = 1/3.
    close(average_precision(&bad), 1.0 / 3.0);
    let tied = [(0.5, true), (0.5, false), (0.5, false), (0.5, true)];
    assert_eq!(roc_auc(&tied), Some(0.5));
    // All at one threshold: precision 2/4 at full recall.
    assert_eq!(average_precision(&tied), Some(0.5));
    assert_eq!(roc_auc(&[(0.5, true)]), None);
    assert_eq!(average_precision(&[(0.5, false)]), None);
}

#[test]
fn display_is_compact() {
    let e = evaluate(&pairs(), &truth(), 0.9);
    let text = e.to_string();
    assert!(text.lines().all(|l| l.len() < 100), "{text}");
    assert!(
        text.contains("household 2, office 1, carrier_nat 1, other 2"),
        "{text}"
    );
    assert!(text.contains("1 full, 1 partly, 2 missed"), "{text}");
}
