//! Triage of a scan against verdicts: known relationships leave the flags,
//! re-open above their level plus the margin, and cliques made only of them
//! are not to review. Tables, then properties.

use crate::common::{pair, scan_of as scan};
use detect_scoring::triage::{clique_verdict, triage};
use proptest::prelude::*;
use schema::{PairScore, ScanResult, Verdict, VerdictKind};

fn verdict(id: i64, at: i64, accounts: &[&str], kind: VerdictKind, level: Option<f64>) -> Verdict {
    let mut accounts: Vec<String> = accounts.iter().map(|s| s.to_string()).collect();
    accounts.sort();
    Verdict {
        id,
        accounts,
        kind,
        note: String::new(),
        by: "mod".into(),
        at,
        season: Some(1),
        similarity: level,
        unseen: false,
        supersedes: None,
    }
}

fn names<'a>(rows: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<String> {
    rows.map(|(a, b)| format!("{a}-{b}")).collect()
}

/// Flags (with "R" for re-opened), known relationships, cliques to review.
fn outcome(result: &ScanResult, verdicts: &[Verdict]) -> (Vec<String>, Vec<String>, Vec<usize>) {
    let t = triage(result, verdicts, false, 0.05);
    let flags = t
        .flags
        .iter()
        .map(|f| {
            format!(
                "{}-{}{}",
                f.pair.a,
                f.pair.b,
                if f.reopened { " R" } else { "" }
            )
        })
        .collect();
    let known = names(t.known.iter().map(|k| (k.pair.a, k.pair.b)));
    let cliques = t.cliques.iter().map(|c| c.number).collect();
    (flags, known, cliques)
}

use VerdictKind::*;

#[test]
fn verdicts_sort_flags_known_and_reopened() {
    let result = scan(vec![
        pair("a", "b", 0.95),
        pair("b", "a", 0.80),
        pair("c", "d", 0.93),
        pair("e", "f", 0.99),
        pair("g", "h", 0.91),
        pair("x", "y", 0.50),
    ]);
    type Case<'a> = (&'a str, Vec<Verdict>, &'a [&'a str], &'a [&'a str]);
    let cases: Vec<Case> = vec![
        ("no verdicts", vec![], &["e-f", "a-b", "c-d", "g-h"], &[]),
        (
            "household, cleared and shared network are known",
            vec![
                verdict(1, 10, &["a", "b"], Household, Some(0.95)),
                verdict(2, 10, &["c", "d"], Cleared, Some(0.93)),
                verdict(3, 10, &["g", "h"], SharedNetwork, Some(0.9)),
            ],
            &["e-f"],
            &["a-b", "c-d", "g-h"],
        ),
        (
            "suspicious and same person stay flagged",
            vec![
                verdict(1, 10, &["a", "b"], Suspicious, Some(0.95)),
                verdict(2, 10, &["e", "f"], SamePerson, Some(0.99)),
            ],
            &["e-f", "a-b", "c-d", "g-h"],
            &[],
        ),
        (
            "risen by more than the margin: re-opened",
            vec![
                verdict(1, 10, &["e", "f"], Household, Some(0.93)),
                verdict(2, 10, &["a", "b"], Household, Some(0.85)),
            ],
            &["e-f R", "a-b R", "c-d", "g-h"],
            &[],
        ),
        (
            "risen by the margin or less: still known",
            vec![verdict(1, 10, &["e", "f"], Household, Some(0.95))],
            &["a-b", "c-d", "g-h"],
            &["e-f"],
        ),
        (
            "a newer verdict supersedes, whatever the ids",
            vec![
                verdict(9, 10, &["a", "b"], Household, Some(0.95)),
                verdict(1, 20, &["a", "b"], SamePerson, Some(0.95)),
                verdict(2, 10, &["c", "d"], Suspicious, Some(0.93)),
                verdict(3, 20, &["c", "d"], Cleared, Some(0.93)),
            ],
            &["e-f", "a-b", "g-h"],
            &["c-d"],
        ),
        (
            "a clique verdict covers its pairs; without a level it never re-opens",
            vec![verdict(1, 10, &["a", "b", "e", "f"], Cleared, None)],
            &["c-d", "g-h"],
            &["e-f", "a-b"],
        ),
        (
            "a verdict on other accounts changes nothing",
            vec![verdict(1, 10, &["a", "f"], Household, Some(0.5))],
            &["e-f", "a-b", "c-d", "g-h"],
            &[],
        ),
    ];
    for (what, verdicts, flags, known) in cases {
        let (got_flags, got_known, _) = outcome(&result, &verdicts);
        assert_eq!(got_flags, flags, "{what}: flags");
        assert_eq!(got_known, known, "{what}: known");
    }
}

#[test]
fn a_clique_of_known_relationships_only_is_not_to_review() {
    let result = scan(vec![
        pair("a", "b", 0.95),
        pair("b", "c", 0.92),
        pair("p", "q", 0.97),
        pair("q", "p", 0.97),
    ]);
    let numbers: Vec<Vec<String>> = result.cliques.iter().map(|c| c.members.clone()).collect();
    assert_eq!(numbers, [vec!["a", "b", "c"], vec!["p", "q"]]);
    let one_known = [verdict(1, 10, &["a", "b"], Household, Some(0.95))];
    assert_eq!(
        outcome(&result, &one_known).2,
        [1, 2],
        "b-c is still a flag"
    );
    let both_known = [
        verdict(1, 10, &["a", "b"], Household, Some(0.95)),
        verdict(2, 10, &["b", "c"], Cleared, Some(0.92)),
    ];
    assert_eq!(outcome(&result, &both_known).2, [2]);
    let clique_known = [verdict(1, 10, &["p", "q"], SharedNetwork, Some(0.97))];
    assert_eq!(outcome(&result, &clique_known).2, [1]);
    let t = triage(&result, &clique_known, false, 0.05);
    assert_eq!(t.cliques[0].clique.members, ["a", "b", "c"]);
    assert!(t.cliques[0].verdict.is_none());
}

#[test]
fn a_clique_verdict_names_every_member() {
    let vs = [
        verdict(1, 10, &["a", "b", "c", "d"], Suspicious, None),
        verdict(2, 20, &["a", "b"], Household, None),
        verdict(3, 5, &["a", "b", "c"], Cleared, None),
    ];
    let members = |m: &[&str]| m.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        clique_verdict(&vs, &members(&["a", "b", "c"])).unwrap().id,
        1
    );
    assert_eq!(clique_verdict(&vs, &members(&["a", "b"])).unwrap().id, 2);
    assert!(clique_verdict(&vs, &members(&["a", "e"])).is_none());
}

#[test]
fn with_all_known_relationships_below_the_threshold_are_listed_too() {
    let result = scan(vec![pair("a", "b", 0.5), pair("c", "d", 0.95)]);
    let vs = [verdict(1, 10, &["a", "b"], Household, Some(0.95))];
    assert!(triage(&result, &vs, false, 0.05).known.is_empty());
    let t = triage(&result, &vs, true, 0.05);
    assert_eq!(names(t.known.iter().map(|k| (k.pair.a, k.pair.b))), ["a-b"]);
    assert_eq!(t.known[0].pair.max(), 0.5, "current scores");
}

proptest! {
    /// Every listed pair is either a flag or a known relationship, never
    /// both; a known one has a known-relationship verdict not exceeded by
    /// more than the margin.
    #[test]
    fn flags_and_known_partition_the_pairs(
        sims in proptest::collection::vec(0.8f64..1.0, 6),
        kinds in proptest::collection::vec(0usize..6, 6),
        levels in proptest::collection::vec(0.8f64..1.0, 6),
        margin in 0.0f64..0.1,
    ) {
        let accounts = ["a", "b", "c", "d", "e", "f"];
        let pairs: Vec<PairScore> = (0..6)
            .map(|i| pair(accounts[i], accounts[(i + 1) % 6], sims[i]))
            .collect();
        let result = scan(pairs);
        let verdicts: Vec<Verdict> = (0..6)
            .filter(|&i| kinds[i] < 5)
            .map(|i| verdict(i as i64, 0, &[accounts[i], accounts[(i + 1) % 6]], VerdictKind::ALL[kinds[i]], Some(levels[i])))
            .collect();
        let t = triage(&result, &verdicts, true, margin);
        prop_assert_eq!(t.flags.len() + t.known.len(), 6);
        for k in &t.known {
            prop_assert!(k.verdict.kind.is_known_relationship());
            prop_assert!(k.pair.max() <= k.verdict.similarity.unwrap() + margin);
        }
        for f in &t.flags {
            prop_assert_eq!(f.reopened, f.verdict.is_some_and(|v| v.kind.is_known_relationship()));
        }
    }
}

#[test]
fn the_scan_to_review_drops_known_pairs_in_both_directions_and_their_cliques() {
    let result = scan(vec![
        pair("a", "b", 0.95),
        pair("b", "a", 0.80),
        pair("p", "q", 0.97),
        pair("x", "y", 0.5),
    ]);
    let vs = [verdict(1, 10, &["a", "b"], Household, Some(0.95))];
    let t = triage(&result, &vs, false, 0.05);
    let r = detect_scoring::triage::to_review(&result, &t);
    let left: Vec<String> = r
        .pairs
        .iter()
        .map(|p| format!("{}-{}", p.account_a, p.account_b))
        .collect();
    assert_eq!(left, ["p-q", "x-y"]);
    assert_eq!(r.cliques.len(), 1);
    assert_eq!(r.cliques[0].members, ["p", "q"]);
    assert_eq!(r.candidate_pairs, result.candidate_pairs);
}
