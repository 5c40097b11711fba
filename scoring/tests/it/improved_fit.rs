//! Fitting improved mode's model: signs kept, known weights recovered, a
//! prior holding when the data say little, and out-of-fold scores.

use detect_scoring::improved::fit::Sign;
use detect_scoring::improved::fit::{cross_validated, fit, FitOptions, Row};

/// A deterministic pseudo-random stream in [0, 1).
fn stream(seed: u64) -> impl FnMut() -> f64 {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Rows drawn from a logistic model with `weights` and `intercept`.
fn rows(n: usize, intercept: f64, weights: &[f64], seed: u64) -> Vec<Row> {
    let mut u = stream(seed);
    (0..n)
        .map(|_| {
            let x: Vec<f64> = weights.iter().map(|_| 4.0 * u() - 2.0).collect();
            let z = intercept + x.iter().zip(weights).map(|(a, b)| a * b).sum::<f64>();
            let p = 1.0 / (1.0 + (-z).exp());
            Row {
                y: u() < p,
                x,
                weight: 1.0,
                offset: 0.0,
            }
        })
        .collect()
}

#[test]
fn a_fit_recovers_the_weights_the_data_were_drawn_with() {
    let data = rows(20_000, -0.5, &[1.5, -2.0, 0.0], 1);
    let m = fit(
        &[Sign::Positive, Sign::Negative, Sign::Positive],
        &data,
        &FitOptions::default(),
    );
    for (got, want) in m.weights.iter().zip([1.5, -2.0, 0.0]) {
        assert!((got - want).abs() < 0.1, "{:?}", m.weights);
    }
    assert!((m.intercept + 0.5).abs() < 0.1, "{}", m.intercept);
}

#[test]
fn a_weight_the_data_push_across_its_sign_stays_at_zero() {
    // The data say -1.5 for a feature whose sign is fixed positive.
    let data = rows(5_000, 0.0, &[-1.5, 1.0], 2);
    let m = fit(
        &[Sign::Positive, Sign::Positive],
        &data,
        &FitOptions::default(),
    );
    assert_eq!(m.weights[0], 0.0, "{:?}", m.weights);
    assert!(m.weights[1] > 0.5, "{:?}", m.weights);
    let m = fit(
        &[Sign::Negative, Sign::Negative],
        &data,
        &FitOptions::default(),
    );
    assert!(
        m.weights[0] < -1.0 && m.weights[1] == 0.0,
        "{:?}",
        m.weights
    );
}

#[test]
fn with_few_rows_a_strong_prior_holds_the_weights_near_it() {
    let data = rows(30, 0.0, &[2.0], 3);
    let prior = FitOptions {
        l2: 1000.0,
        prior: Some(vec![-0.5]),
        ..FitOptions::default()
    };
    let m = fit(&[Sign::Negative], &data, &prior);
    assert!((m.weights[0] + 0.5).abs() < 0.05, "{:?}", m.weights);
    let loose = fit(&[Sign::Positive], &data, &FitOptions::default());
    assert!(loose.weights[0] > 0.5, "{:?}", loose.weights);
}

#[test]
fn cross_validated_scores_come_from_the_folds_that_did_not_see_them() {
    let data = rows(2_000, 0.0, &[2.0], 4);
    let folds: Vec<u64> = (0..data.len() as u64).map(|i| i % 4).collect();
    let out = cross_validated(&[Sign::Positive], &data, &folds, 4, &FitOptions::default());
    assert_eq!(out.len(), data.len());
    // Each fold's model differs a little from the others: scores of equal
    // feature values differ between folds, and all lie in (0, 1).
    assert!(out.iter().all(|p| (0.0..1.0).contains(p) && *p > 0.0));
    let full = fit(&[Sign::Positive], &data, &FitOptions::default());
    let same = data
        .iter()
        .zip(&out)
        .filter(|(r, p)| (full.probability(&r.x) - **p).abs() < 1e-12)
        .count();
    assert!(same < data.len() / 10, "{same}");
    // Higher feature values score higher.
    let (lo, hi): (Vec<_>, Vec<_>) = data.iter().zip(&out).partition(|(r, _)| r.x[0] < 0.0);
    let mean = |v: &[(&Row, &f64)]| v.iter().map(|x| *x.1).sum::<f64>() / v.len() as f64;
    assert!(mean(&hi) > mean(&lo) + 0.3);
}
