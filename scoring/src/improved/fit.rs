//! Fitting improved mode's logistic model: L2-regularised logistic
//! regression whose weights keep the sign reasoning fixed for each feature
//! ([`Sign`]), pulled toward given weights (a prior: the shipped model's,
//! when a site fits on its own verdicts), and its cross-validated figures.
//!
//! Pure: rows in, weights out. Newton's method on the weights free to move
//! (an active set): a weight at zero whose gradient pushes it across its
//! sign stays at zero, the others take a Newton step, clamped back to their
//! sign, halved until the loss falls.

use serde::{Deserialize, Serialize};

/// Which way a feature's weight may point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sign {
    /// More of it reads as more likely one person: the weight is >= 0.
    Positive,
    /// More of it reads as less likely one person: the weight is <= 0.
    Negative,
}

impl Sign {
    /// `w` moved to the nearest value of this sign.
    pub fn clamp(self, w: f64) -> f64 {
        match self {
            Sign::Positive => w.max(0.0),
            Sign::Negative => w.min(0.0),
        }
    }

    /// Whether a weight of `w` has this sign (0 has both).
    pub fn allows(self, w: f64) -> bool {
        match self {
            Sign::Positive => w >= 0.0,
            Sign::Negative => w <= 0.0,
        }
    }
}

/// One labelled example: its feature values, whether it is one person, and
/// how much it counts (1 for one pair; families or verdicts may be
/// balanced by weighing their rows).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub x: Vec<f64>,
    pub y: bool,
    pub weight: f64,
    /// Added to the row's log-odds as it is, not fitted: what is known of
    /// its prior odds (a timing pair's members read against,
    /// [`super::timing::prior_offset`]); 0 for most rows.
    pub offset: f64,
}

/// How to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct FitOptions {
    /// The L2 penalty's strength: `l2 / 2 * sum (w - prior)^2` over the
    /// weights (and the intercept when `prior_intercept` is given), against
    /// a loss summed over the rows' weights.
    pub l2: f64,
    /// The weights the penalty pulls toward (all zero when `None`).
    pub prior: Option<Vec<f64>>,
    /// The intercept the penalty pulls toward; `None`: the intercept is
    /// free. Pulled when the rows are a chosen sample (pairs moderators
    /// judged), whose share of one-person pairs says nothing of a season's.
    pub prior_intercept: Option<f64>,
    /// The most Newton steps.
    pub max_steps: usize,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            l2: 1.0,
            prior: None,
            prior_intercept: None,
            max_steps: 100,
        }
    }
}

/// A fitted logistic model: the intercept and one weight per feature.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    pub intercept: f64,
    pub weights: Vec<f64>,
}

impl Fitted {
    /// The probability of one person for feature values `x`.
    pub fn probability(&self, x: &[f64]) -> f64 {
        logistic(self.log_odds(x))
    }

    /// The log-odds of one person for feature values `x`.
    pub fn log_odds(&self, x: &[f64]) -> f64 {
        self.intercept + self.weights.iter().zip(x).map(|(w, v)| w * v).sum::<f64>()
    }
}

/// `1 / (1 + e^-z)`, 0 for NaN.
pub fn logistic(z: f64) -> f64 {
    let p = 1.0 / (1.0 + (-z).exp());
    if p.is_nan() {
        0.0
    } else {
        p.clamp(0.0, 1.0)
    }
}

/// Fits the weights of features with `signs` on `rows` (each row's `x` as
/// long as `signs`). The weights respect their signs: a [`Sign::Positive`]
/// weight is never below zero, a [`Sign::Negative`] one never above.
pub fn fit(signs: &[Sign], rows: &[Row], opts: &FitOptions) -> Fitted {
    let n = signs.len();
    let prior = opts.prior.clone().unwrap_or_else(|| vec![0.0; n]);
    assert_eq!(prior.len(), n, "one prior weight per feature");
    // w[0] is the intercept; w[1..] the weights, started at the prior
    // clamped to its sign.
    let mut w = vec![opts.prior_intercept.unwrap_or(0.0); n + 1];
    for (k, s) in signs.iter().enumerate() {
        w[k + 1] = s.clamp(prior[k]);
    }
    // What each of w is pulled toward, if anything.
    let pull: Vec<Option<f64>> = std::iter::once(opts.prior_intercept)
        .chain(prior.iter().copied().map(Some))
        .collect();
    let prior = pull.as_slice();
    let mut loss = objective(&w, rows, prior, opts.l2);
    for _ in 0..opts.max_steps {
        let (g, h) = gradient_hessian(&w, rows, prior, opts.l2);
        // Free: the intercept, every weight off its bound, and weights at
        // zero whose descent direction keeps their sign.
        let free: Vec<usize> = (0..=n)
            .filter(|&i| {
                i == 0 || {
                    let s = signs[i - 1];
                    w[i] != 0.0 || s.allows(-g[i])
                }
            })
            .collect();
        let hf: Vec<Vec<f64>> = free
            .iter()
            .map(|&i| free.iter().map(|&j| h[i][j]).collect())
            .collect();
        let gf: Vec<f64> = free.iter().map(|&i| g[i]).collect();
        let Some(step) = solve(hf, gf) else { break };
        let mut t = 1.0;
        let mut improved = false;
        for _ in 0..40 {
            let mut cand = w.clone();
            for (k, &i) in free.iter().enumerate() {
                let v = w[i] - t * step[k];
                cand[i] = if i == 0 { v } else { signs[i - 1].clamp(v) };
            }
            let l = objective(&cand, rows, prior, opts.l2);
            if l <= loss {
                let moved = cand
                    .iter()
                    .zip(&w)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f64::max);
                w = cand;
                let gain = loss - l;
                loss = l;
                improved = moved > 1e-9 && gain > 1e-12 * loss.abs().max(1.0);
                break;
            }
            t /= 2.0;
        }
        if !improved {
            break;
        }
    }
    Fitted {
        intercept: w[0],
        weights: w[1..].to_vec(),
    }
}

/// Out-of-fold probabilities: the rows split into `k` folds by `fold[i] %
/// k` (a seed, a season, a verdict's number: rows that belong together
/// stay together), each fold scored by a model fit on the others.
pub fn cross_validated(
    signs: &[Sign],
    rows: &[Row],
    fold: &[u64],
    k: u64,
    opts: &FitOptions,
) -> Vec<f64> {
    assert_eq!(fold.len(), rows.len(), "one fold key per row");
    let mut out = vec![0.0; rows.len()];
    for f in 0..k.max(1) {
        let train: Vec<Row> = rows
            .iter()
            .zip(fold)
            .filter(|(_, &g)| g % k != f)
            .map(|(r, _)| r.clone())
            .collect();
        if train.is_empty() {
            continue;
        }
        let m = fit(signs, &train, opts);
        for (i, r) in rows.iter().enumerate() {
            if fold[i] % k == f {
                out[i] = logistic(m.log_odds(&r.x) + r.offset);
            }
        }
    }
    out
}

/// The penalised loss: the rows' weighted log-loss plus the L2 penalty
/// pulling each of `w` toward its `prior` (none for `None`).
fn objective(w: &[f64], rows: &[Row], prior: &[Option<f64>], l2: f64) -> f64 {
    let mut loss = 0.0;
    for r in rows {
        let z = r.offset + w[0] + w[1..].iter().zip(&r.x).map(|(a, b)| a * b).sum::<f64>();
        // log(1 + e^z) - y z, computed without overflow.
        let softplus = if z > 0.0 {
            z + (-z).exp().ln_1p()
        } else {
            z.exp().ln_1p()
        };
        loss += r.weight * (softplus - if r.y { z } else { 0.0 });
    }
    let pen: f64 = w
        .iter()
        .zip(prior)
        .filter_map(|(a, b)| b.map(|b| (a - b) * (a - b)))
        .sum();
    loss + l2 / 2.0 * pen
}

/// The gradient and Hessian of [`objective`].
fn gradient_hessian(
    w: &[f64],
    rows: &[Row],
    prior: &[Option<f64>],
    l2: f64,
) -> (Vec<f64>, Vec<Vec<f64>>) {
    let n = w.len();
    let mut g = vec![0.0; n];
    let mut h = vec![vec![0.0; n]; n];
    let mut v = vec![0.0; n];
    for r in rows {
        v[0] = 1.0;
        v[1..].copy_from_slice(&r.x);
        let z: f64 = r.offset + w.iter().zip(&v).map(|(a, b)| a * b).sum::<f64>();
        let p = logistic(z);
        let e = r.weight * (p - if r.y { 1.0 } else { 0.0 });
        let c = r.weight * p * (1.0 - p);
        for i in 0..n {
            g[i] += e * v[i];
            if c > 0.0 {
                let ci = c * v[i];
                for j in 0..=i {
                    h[i][j] += ci * v[j];
                }
            }
        }
    }
    for i in 0..n {
        let (upper, lower) = h.split_at_mut(i);
        for (j, row) in upper.iter_mut().enumerate() {
            row[i] = lower[0][j];
        }
    }
    for (i, p) in prior.iter().enumerate() {
        if let Some(p) = p {
            g[i] += l2 * (w[i] - p);
            h[i][i] += l2;
        }
    }
    // A whisper of damping keeps a flat direction (a feature that is
    // always 0 in the rows) solvable.
    for (i, row) in h.iter_mut().enumerate() {
        row[i] += 1e-9;
    }
    (g, h)
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting; `None`
/// when `a` is singular.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for c in 0..n {
        let p = (c..n).max_by(|&x, &y| a[x][c].abs().total_cmp(&a[y][c].abs()))?;
        if a[p][c].abs() < 1e-300 {
            return None;
        }
        a.swap(c, p);
        b.swap(c, p);
        let (top, rest) = a.split_at_mut(c + 1);
        let pivot = &top[c];
        for (r, row) in rest.iter_mut().enumerate() {
            let f = row[c] / pivot[c];
            if f != 0.0 {
                for (x, p) in row[c..].iter_mut().zip(&pivot[c..]) {
                    *x -= f * p;
                }
                b[c + 1 + r] -= f * b[c];
            }
        }
    }
    let mut x = vec![0.0; n];
    for c in (0..n).rev() {
        let s: f64 = (c + 1..n).map(|k| a[c][k] * x[k]).sum();
        x[c] = (b[c] - s) / a[c][c];
    }
    Some(x)
}
