//! Fitting improved mode's model on a site's verdicts: too few verdicts of
//! either kind are refused with one sentence; a fit moves the weights the
//! way the verdicts point, no further than their signs allow, and keeps
//! the prior's features, threshold and timing model.

use detect_scoring::improved::verdicts::{fit_on_verdicts, Verdict, DEFAULT_L2, MIN_EACH};
use detect_scoring::improved::{Model, Reading};
use schema::Signals;

/// `same` verdicts of one person and `different` of different people, the
/// one-person pairs scoring `p_same` in reference mode and the others
/// `p_different`.
fn verdicts(
    signals: &Signals,
    same: usize,
    p_same: f64,
    different: usize,
    p_different: f64,
) -> Vec<Verdict<'_>> {
    let one = |p: f64, same: bool| Verdict {
        reading: Reading {
            ab: p,
            ba: p / 2.0,
            signals,
        },
        same,
        group: 0,
    };
    let mut v: Vec<Verdict<'_>> = (0..same).map(|_| one(p_same, true)).collect();
    v.extend((0..different).map(|_| one(p_different, false)));
    // Each verdict a group of its own (pairs of distinct accounts).
    for (i, x) in v.iter_mut().enumerate() {
        x.group = i as u64;
    }
    v
}

#[test]
fn too_few_verdicts_of_either_kind_are_refused_with_one_sentence() {
    let s = Signals::default();
    let shipped = Model::shipped();
    let few_same = verdicts(&s, MIN_EACH - 1, 0.95, 80, 0.5);
    let e = fit_on_verdicts(shipped, &few_same, "site", DEFAULT_L2).unwrap_err();
    assert!(
        e.0.starts_with(&format!("{} verdicts of one person and 80", MIN_EACH - 1)),
        "{e}"
    );
    assert!(
        e.0.contains("at least 10 of each") && !e.0.contains('\n'),
        "{e}"
    );
    let no_different = verdicts(&s, 200, 0.95, 0, 0.5);
    let e = fit_on_verdicts(shipped, &no_different, "site", DEFAULT_L2).unwrap_err();
    assert!(e.0.contains("and 0 of different people"), "{e}");
    // At the bar, it fits.
    let enough = verdicts(&s, MIN_EACH, 0.95, MIN_EACH, 0.5);
    assert!(fit_on_verdicts(shipped, &enough, "site", DEFAULT_L2).is_ok());
}

#[test]
fn verdicts_against_the_2015_score_lower_its_weight_to_zero_at_most() {
    let s = Signals::default();
    let shipped = Model::shipped();
    let k = shipped
        .features()
        .iter()
        .position(|f| f.name == "reference_max_log_odds")
        .expect("the shipped model reads the 2015 score");
    // The site's verdicts: pairs with a high 2015 score were different
    // people, pairs with a low one the same person, the reverse of the
    // feature's reasoning.
    let v = verdicts(&s, 40, 0.3, 40, 0.97);
    let m = fit_on_verdicts(shipped, &v, "site-1", 1.0).unwrap();
    assert!(m.weights()[k] < shipped.weights()[k], "{:?}", m.weights());
    assert!(m.weights()[k] >= 0.0, "a positive weight stays positive");
    // And verdicts that agree with it raise it.
    let v = verdicts(&s, 40, 0.97, 40, 0.9);
    let up = fit_on_verdicts(shipped, &v, "site-2", 1.0).unwrap();
    assert!(up.weights()[k] > shipped.weights()[k], "{:?}", up.weights());
    // The rest is the prior's.
    assert_eq!(m.name(), "site-1");
    assert_eq!(m.threshold(), shipped.threshold());
    assert_eq!(m.timing(), shipped.timing());
    let names = |m: &Model| m.features().iter().map(|f| f.name).collect::<Vec<_>>();
    assert_eq!(names(&m), names(shipped));
    assert_eq!((m.provenance().pairs, m.provenance().positives), (80, 40));
    assert!(m.provenance().fitted_on.contains(shipped.name()));
}

#[test]
fn a_stronger_pull_keeps_the_weights_nearer_the_prior() {
    let s = Signals::default();
    let shipped = Model::shipped();
    let v = verdicts(&s, 40, 0.97, 40, 0.9);
    let distance = |l2: f64| {
        let m = fit_on_verdicts(shipped, &v, "site", l2).unwrap();
        m.weights()
            .iter()
            .zip(shipped.weights())
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
    };
    assert!(distance(100.0) < distance(1.0));
}

#[test]
fn verdicts_in_few_groups_move_the_weights_less_than_as_many_apart() {
    // The same 80 verdicts, once each a group of its own and once in eight
    // groups of pairs sharing accounts: the groups are less evidence, so
    // the fit stays nearer the prior.
    let s = Signals::default();
    let shipped = Model::shipped();
    let apart = verdicts(&s, 40, 0.3, 40, 0.97);
    let mut grouped = apart.clone();
    for (i, v) in grouped.iter_mut().enumerate() {
        v.group = i as u64 % 8;
    }
    let distance = |v: &[Verdict<'_>]| {
        let m = fit_on_verdicts(shipped, v, "site", DEFAULT_L2).unwrap();
        m.weights()
            .iter()
            .zip(shipped.weights())
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
    };
    let (near, far) = (distance(&grouped), distance(&apart));
    assert!(near > 0.0 && near < far, "{near} against {far}");
    let m = fit_on_verdicts(shipped, &grouped, "site", DEFAULT_L2).unwrap();
    assert!(
        m.provenance().fitted_on.contains("8 groups"),
        "{}",
        m.provenance().fitted_on
    );
}

#[test]
fn pairs_linked_by_shared_accounts_share_a_group() {
    use detect_scoring::improved::verdicts::groups;
    // a-b and c-d apart until b-c links them; e-f alone; numbered in the
    // order groups first appear.
    let g = groups([("a", "b"), ("c", "d"), ("e", "f"), ("b", "c"), ("g", "e")]);
    assert_eq!(g, [0, 0, 1, 0, 1]);
    assert_eq!(groups([("x", "y"), ("z", "w")]), [0, 1]);
}

#[test]
fn the_share_of_one_person_verdicts_leaves_the_intercept_near_the_prior() {
    // Moderators judge the pairs they were shown: which share of them was
    // one person says nothing of a season's pairs. Here the verdicts
    // cannot tell the pairs apart (the same reading, one in six judged
    // one person); the fitted intercept stays near the prior's, where a
    // free one would follow the sample's share.
    let s = Signals::default();
    let shipped = Model::shipped();
    let v = verdicts(&s, 10, 0.97, 50, 0.97);
    let m = fit_on_verdicts(shipped, &v, "site", DEFAULT_L2).unwrap();
    assert!(
        (m.intercept() - shipped.intercept()).abs() < 1.0,
        "intercept {} against the prior's {}",
        m.intercept(),
        shipped.intercept()
    );
}

/// A directed improved pair `a`→`b` with 2015 sum and weight.
fn pair(a: &str, b: &str, sum: i64, weight: i64, signals: Option<Signals>) -> schema::PairScore {
    schema::PairScore {
        account_a: a.into(),
        account_b: b.into(),
        similarity: 0.5,
        sum,
        weight,
        evidence: schema::Evidence {
            signals: signals.map(Box::new),
            ..Default::default()
        },
    }
}

fn verdict(id: i64, at: i64, accounts: &[&str], kind: schema::VerdictKind) -> schema::Verdict {
    schema::Verdict {
        id,
        accounts: accounts.iter().map(|s| s.to_string()).collect(),
        kind,
        note: String::new(),
        by: "ann".into(),
        at,
        season: Some(1),
        similarity: None,
        unseen: false,
        supersedes: None,
    }
}

#[test]
fn judged_pairs_take_each_pairs_newest_verdict_and_skip_what_answers_nothing() {
    use detect_scoring::improved::verdicts::judged_pairs;
    use schema::VerdictKind::*;
    let s = Signals {
        turns: 7,
        ..Signals::default()
    };
    let pairs = vec![
        pair("a", "b", 8, 10, Some(s)),
        pair("b", "a", -2, 10, Some(s.swapped())),
        pair("a", "c", 0, 10, Some(s)),
        pair("c", "a", 0, 10, Some(s.swapped())),
        pair("b", "c", 0, 10, Some(s)),
        pair("c", "b", 0, 10, Some(s.swapped())),
        // A reference scan's pair: no signals, nothing to read.
        pair("d", "e", 10, 10, None),
        pair("e", "d", 10, 10, None),
    ];
    let verdicts = vec![
        // a-b: judged one person, later superseded by "household".
        verdict(1, 100, &["a", "b"], SamePerson),
        verdict(2, 200, &["a", "b"], Household),
        // a-c: by a clique verdict on a, c and x.
        verdict(3, 150, &["a", "c", "x"], SamePerson),
        // b-c: only watched.
        verdict(4, 150, &["b", "c"], Suspicious),
        verdict(5, 150, &["d", "e"], SamePerson),
    ];
    let judged = judged_pairs(&pairs, &verdicts);
    let got: Vec<(&str, &str, bool)> = judged
        .iter()
        .map(|j| (j.a.as_str(), j.b.as_str(), j.same))
        .collect();
    assert_eq!(got, [("a", "b", false), ("a", "c", true)]);
    // Both take in account a: one group.
    assert_eq!((judged[0].group, judged[1].group), (0, 0));
    // Each side's 2015 similarity, (sum / weight) / 2 + 0.5.
    assert_eq!((judged[0].ab, judged[0].ba), (0.9, 0.4));
    assert_eq!(judged[0].signals, s);
}

#[test]
fn cross_validation_scores_each_verdict_by_a_fit_that_did_not_see_it() {
    use detect_scoring::improved::verdicts::cross_validate;
    let s = Signals::default();
    let shipped = Model::shipped();
    // Different people scoring as high as one person in 2015 terms: the
    // shipped model flags them all; fits on the other folds learn to lower
    // the pairs' scores below the threshold for some.
    let v = verdicts(&s, 40, 0.999, 40, 0.99);
    let cv = cross_validate(shipped, &v, 1.0, 5);
    assert_eq!(cv.folds, 5);
    assert!(cv.prior.precision <= 0.5 + 1e-9, "{cv:?}");
    assert!(cv.fitted.precision > cv.prior.precision, "{cv:?}");
    // Verdicts the shipped model already gets right stay right.
    let easy = verdicts(&s, 20, 0.999, 20, 0.05);
    let cv = cross_validate(shipped, &easy, DEFAULT_L2, 5);
    assert_eq!((cv.prior.f1, cv.fitted.f1), (1.0, 1.0), "{cv:?}");
}
