//! Fitting improved mode's model on a site's verdicts: too few verdicts of
//! either kind are refused with one sentence; a fit moves the weights the
//! way the verdicts point, no further than their signs allow, and keeps
//! the prior's features, threshold and timing model.

use detect_scoring::improved::model::{Model, Reading};
use detect_scoring::improved::verdicts::{fit_on_verdicts, Verdict, DEFAULT_L2, MIN_EACH};
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
    };
    let mut v: Vec<Verdict<'_>> = (0..same).map(|_| one(p_same, true)).collect();
    v.extend((0..different).map(|_| one(p_different, false)));
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
