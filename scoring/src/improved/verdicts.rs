//! Fitting improved mode's model on a site's own verdicts: pairs its
//! moderators judged one person or different people. The fit starts from
//! a prior model (the shipped one, or a site's earlier one) and is pulled
//! toward its weights, so a hundred verdicts move the weights only as far
//! as they show; every weight keeps the sign its feature's reasoning fixed.
//! Timing pairs keep the prior's timing model, and the threshold is the
//! prior's.
//!
//! Pure: verdicts in, a model out.

use super::fit::{fit, FitOptions, Row};
use super::model::{Model, ModelError, Provenance, Reading, Sign};

/// The fewest verdicts of each kind (one person, different people) a fit
/// takes: with fewer, the weights would follow a handful of pairs.
pub const MIN_EACH: usize = 10;

/// How strongly the fit is pulled toward the prior's weights: the L2
/// penalty `l2 / 2 * sum (w - prior)^2` against the log-loss summed over
/// the verdicts (about ten verdicts' worth per unit of weight).
pub const DEFAULT_L2: f64 = 10.0;

/// One judged pair: what improved mode read of it, and the verdict.
#[derive(Debug, Clone, Copy)]
pub struct Verdict<'a> {
    pub reading: Reading<'a>,
    pub same: bool,
}

/// Fits `prior`'s features on `verdicts`, pulled toward `prior`'s
/// weights with strength `l2`. Refused, in one sentence, when there are
/// fewer than [`MIN_EACH`] verdicts of either kind.
pub fn fit_on_verdicts(
    prior: &Model,
    verdicts: &[Verdict<'_>],
    name: &str,
    l2: f64,
) -> Result<Model, ModelError> {
    let same = verdicts.iter().filter(|v| v.same).count();
    let different = verdicts.len() - same;
    if same < MIN_EACH || different < MIN_EACH {
        return Err(ModelError(format!(
            "{same} verdicts of one person and {different} of different people are too few: \
             a model is fitted on at least {MIN_EACH} of each"
        )));
    }
    let rows: Vec<Row> = verdicts
        .iter()
        .map(|v| Row {
            x: prior.values(&v.reading),
            y: v.same,
            weight: 1.0,
        })
        .collect();
    let signs: Vec<Sign> = prior.features().iter().map(|f| f.sign).collect();
    let opts = FitOptions {
        l2,
        prior: Some(prior.weights().to_vec()),
        ..FitOptions::default()
    };
    let fitted = fit(&signs, &rows, &opts);
    let names: Vec<&str> = prior.features().iter().map(|f| f.name).collect();
    let provenance = Provenance {
        fitted_on: format!(
            "{} verdicts ({same} one person, {different} different people), \
             starting from the model {}",
            verdicts.len(),
            prior.name()
        ),
        pairs: verdicts.len() as u64,
        positives: same as u64,
        ..Provenance::default()
    };
    Model::new(
        name,
        &names,
        fitted.intercept,
        &fitted.weights,
        prior.threshold(),
        prior.timing().copied(),
        provenance,
    )
}
