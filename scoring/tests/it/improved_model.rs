//! Improved mode's model as a data value: the shipped model keeps every
//! weight to the sign reasoning fixed for its feature, files round-trip,
//! bad files are refused with a sentence, and every feature reads the same
//! pair the same from either side.

use detect_scoring::improved::features::feature;
use detect_scoring::improved::features::FEATURES;
use detect_scoring::improved::fit::Sign;
use detect_scoring::improved::model::{HeldOut, Model, Provenance};
use detect_scoring::improved::timing::TIME_SIGNS;
use detect_scoring::improved::{Reading, TimeModel, DEFAULT_THRESHOLD};
use proptest::prelude::*;
use schema::Signals;

#[test]
fn the_shipped_model_keeps_every_weight_to_its_sign() {
    let m = Model::shipped();
    assert!(!m.features().is_empty());
    for (f, &w) in m.features().iter().zip(m.weights()) {
        match f.sign {
            Sign::Positive => assert!(w >= 0.0, "{}: {w}", f.name),
            Sign::Negative => assert!(w <= 0.0, "{}: {w}", f.name),
        }
        assert!(!f.reason.is_empty());
    }
    if let Some(t) = m.timing() {
        for (w, (sign, _)) in t.weights.iter().zip(TIME_SIGNS) {
            assert!(sign.allows(*w), "timing weight {w}");
        }
    }
    assert_eq!(m.threshold(), DEFAULT_THRESHOLD);
}

#[test]
fn the_shipped_model_says_where_it_comes_from_and_how_it_did_held_out() {
    let p = Model::shipped().provenance();
    assert!(p.families.len() >= 6, "{:?}", p.families);
    assert!(p.positives > 0 && p.pairs > p.positives);
    // Every family it was fitted on was also held out once.
    let held: Vec<&str> = p.held_out.iter().map(|h| h.family.as_str()).collect();
    let fitted: Vec<&str> = p.families.iter().map(String::as_str).collect();
    assert_eq!(held, fitted);
    for h in &p.held_out {
        for x in [
            h.precision,
            h.recall,
            h.f1,
            h.average_precision,
            h.reference_f1,
        ] {
            assert!((0.0..=1.0).contains(&x), "{h:?}");
        }
    }
    assert!(!p.measured.is_empty() && !p.fitted_on.is_empty());
}

fn small() -> Model {
    Model::new(
        "test",
        &[
            "reference_max_log_odds",
            "private_min",
            "following_ratio_max",
        ],
        -2.0,
        &[0.5, -3.0, 4.0],
        0.4,
        Some(TimeModel {
            intercept: -6.0,
            weights: [0.5, 0.2, -1.0],
            per_member: true,
        }),
        Provenance {
            fitted_on: "a test".into(),
            held_out: vec![HeldOut {
                family: "default".into(),
                precision: 0.9,
                ..HeldOut::default()
            }],
            ..Provenance::default()
        },
    )
    .unwrap()
}

#[test]
fn a_model_file_reads_back_as_written() {
    let m = small();
    let text = m.to_json();
    assert!(
        text.contains("\"private_min\"") && text.ends_with('\n'),
        "{text}"
    );
    assert_eq!(Model::from_json(&text).unwrap(), m);
    let shipped = Model::shipped();
    assert_eq!(&Model::from_json(&shipped.to_json()).unwrap(), shipped);
}

#[test]
fn a_model_fitted_on_verdicts_says_how_it_was_fitted_and_measured() {
    let fitted = Model::new(
        "site",
        &["reference_max_log_odds"],
        -1.0,
        &[0.5],
        0.4,
        None,
        Provenance {
            fitted_on: "30 verdicts".into(),
            ..Provenance::default()
        },
    )
    .unwrap();
    let words = detect_scoring::improved::score_words(&fitted);
    assert!(
        words.ends_with("How the model was fitted: 30 verdicts."),
        "{words}"
    );
    let measured = fitted
        .measured("cross-validated: F1 0.8")
        .renamed("site, May");
    let words = detect_scoring::improved::score_words(&measured);
    assert!(
        words.contains("probability (site, May)")
            && words.ends_with(
                "How the model was fitted: 30 verdicts. How it was measured: cross-validated: F1 0.8."
            ),
        "{words}"
    );
    // Renaming and measuring change nothing else.
    assert_eq!(measured.weights(), fitted.weights());
    assert_eq!(measured.provenance().fitted_on, "30 verdicts");
}

#[test]
fn bad_model_files_are_refused_with_a_sentence() {
    let good = small().to_json();
    let cases = [
        (
            good.replace("\"private_min\"", "\"shoe_size\""),
            "does not know: shoe_size",
        ),
        (good.replace("-3.0", "3.0"), "sign is fixed negative"),
        (
            good.replace("0.4,", "1.4,"),
            "threshold must lie between 0 and 1",
        ),
        (good.replace("\"format\": 1", "\"format\": 9"), "format 9"),
        (good.replace("-1.0", "1.0"), "timing weight of close moves"),
        ("{}".to_owned(), "not a model file"),
    ];
    for (text, why) in cases {
        let e = Model::from_json(&text).unwrap_err().to_string();
        assert!(e.contains(why), "{e}");
    }
    let e = Model::new(
        "x",
        &["places"],
        0.0,
        &[1.0, 2.0],
        0.5,
        None,
        Provenance::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("1 features and 2 weights"), "{e}");
    let e = Model::new(
        "x",
        &["places", "places"],
        0.0,
        &[1.0, 2.0],
        0.5,
        None,
        Provenance::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("twice"), "{e}");
}

#[test]
fn places_and_private_shares_read_as_written() {
    let s = Signals {
        places: 2,
        a_private_milli: 250,
        b_private_milli: 600,
        ..Signals::default()
    };
    let r = Reading {
        ab: 0.9,
        ba: 0.5,
        signals: &s,
    };
    let v = |name: &str| (feature(name).unwrap().value)(&r);
    assert_eq!(v("places"), 2.0);
    assert_eq!(v("private_min"), 0.25);
    assert_eq!(v("private_max"), 0.6);
    assert!((v("reference_max_log_odds") - 9f64.ln()).abs() < 1e-12);
}

#[test]
fn more_private_life_reads_as_less_likely_one_person() {
    let m = Model::shipped();
    let p = |a: u32, b: u32| {
        let s = Signals {
            a_private_milli: a,
            b_private_milli: b,
            ..Signals::default()
        };
        m.probability(&Reading {
            ab: 0.95,
            ba: 0.9,
            signals: &s,
        })
    };
    assert!(p(0, 0) >= p(0, 400));
    assert!(p(0, 400) >= p(300, 400));
}

fn signals() -> impl Strategy<Value = Signals> {
    (
        prop::array::uniform16(0u32..200),
        prop::array::uniform4(0u32..1001),
    )
        .prop_map(|(c, m)| Signals {
            a_buckets: c[0],
            b_buckets: c[1],
            a_sittings: c[2],
            a_followed: c[3].min(c[2]),
            b_sittings: c[4],
            b_followed: c[5].min(c[4]),
            a_followed_by_chance_milli: m[0],
            b_followed_by_chance_milli: m[1],
            apart: c[6],
            networks: c[7],
            places: c[8].min(c[7]),
            shared_ip_days: c[9] + c[10],
            crowded_ip_days: c[10],
            close: c[11],
            switches: c[12] + c[13] + c[14],
            turns: c[13],
            returns: c[14],
            a_private_milli: m[2],
            b_private_milli: m[3],
            ..Signals::default()
        })
}

proptest! {
    #[test]
    fn every_feature_reads_a_pair_the_same_from_either_side(
        s in signals(), ab in 0.0f64..1.0, ba in 0.0f64..1.0
    ) {
        let swapped = s.swapped();
        let (r, q) = (
            Reading { ab, ba, signals: &s },
            Reading { ab: ba, ba: ab, signals: &swapped },
        );
        for f in FEATURES {
            let (x, y) = ((f.value)(&r), (f.value)(&q));
            prop_assert!(x.is_finite(), "{}", f.name);
            prop_assert_eq!(x, y, "{}", f.name);
        }
        let p = Model::shipped().probability(&r);
        prop_assert!((0.0..=1.0).contains(&p));
        prop_assert_eq!(p, Model::shipped().probability(&q));
    }
}
