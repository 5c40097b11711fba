//! Improved mode's model fitted on a site's own verdicts: the judged pairs
//! of a season as its latest improved scan read them
//! (`scoring::improved::verdicts`), the fit pulled toward a prior model;
//! and the models a store keeps, versioned (`stored`).

use anyhow::{bail, Context, Result};
use schema::{Mode, DEFAULT_BUCKET_SECONDS};
use scoring::improved::verdicts::{
    cross_validate, fit_on_verdicts, judged_pairs, CrossValidated, Verdict, DEFAULT_L2,
};
use scoring::improved::Model;
use store::Store;

mod stored;
mod words;
pub use stored::{
    add, digest, read_model_file, resolve, scan_version, stored, ModelChoice, ModelFile,
};
pub use words::{fit_words, list_table, stored_words};

/// A model fitted on a season's verdicts.
#[derive(Debug)]
pub struct Fitted {
    pub model: Model,
    /// The improved scan whose readings of the judged pairs it was fitted on.
    pub scan_id: i64,
    /// Judged pairs: one person, different people.
    pub same: usize,
    pub different: usize,
    /// Each feature's weight in the prior and in the fitted model.
    pub weights: Vec<(&'static str, f64, f64)>,
    /// The fit's agreement with verdicts it did not see, beside the
    /// prior's with the same verdicts.
    pub cross_validated: CrossValidated,
}

/// Folds of the cross-validation `detect model fit` prints.
pub const FOLDS: u64 = 5;

/// Fits `prior`'s features on the verdicts of the pairs that the latest
/// improved scan of season `season` (30-minute buckets) scored. Refused, in
/// one sentence, without such a scan or with too few verdicts of either
/// kind.
pub async fn fit_on_season(
    store: &Store,
    season: u32,
    prior: &Model,
    name: &str,
) -> Result<Fitted> {
    let Some(scan) = store
        .latest_scan_like(season, DEFAULT_BUCKET_SECONDS, Mode::Improved)
        .await?
    else {
        bail!(
            "season {season} has no improved scan to read the judged pairs from: \
             run `detect scan --season {season} --mode improved` first"
        );
    };
    let verdicts = store.verdicts().await?;
    let judged = judged_pairs(&scan.result.pairs, &verdicts);
    let same = judged.iter().filter(|j| j.same).count();
    let different = judged.len() - same;
    let rows: Vec<Verdict<'_>> = judged.iter().map(|j| j.verdict()).collect();
    let model = fit_on_verdicts(prior, &rows, name, DEFAULT_L2)
        .with_context(|| format!("the judged pairs of scan #{} of season {season}", scan.id))?;
    let weights = prior
        .features()
        .iter()
        .zip(prior.weights().iter().zip(model.weights()))
        .map(|(f, (&before, &after))| (f.name, before, after))
        .collect();
    let cross_validated = cross_validate(prior, &rows, DEFAULT_L2, FOLDS);
    let model = model.measured(&measured_words(&cross_validated, prior));
    Ok(Fitted {
        model,
        cross_validated,
        scan_id: scan.id,
        same,
        different,
        weights,
    })
}

/// How a model fitted on verdicts was measured, as its provenance says it:
/// its cross-validated agreement with the verdicts beside the prior's.
fn measured_words(cv: &CrossValidated, prior: &Model) -> String {
    let words = |a: &scoring::improved::verdicts::Agreement| {
        format!(
            "precision {:.3}, recall {:.3}, F1 {:.3}",
            a.precision, a.recall, a.f1
        )
    };
    format!(
        "cross-validated on the verdicts it was fitted on ({} folds, flags at {}): {}; \
         the model {} on the same verdicts: {}",
        cv.folds,
        prior.threshold(),
        words(&cv.fitted),
        prior.name(),
        words(&cv.prior)
    )
}
