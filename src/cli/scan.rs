//! The options every scoring command shares: threshold, bucket size, mode,
//! crowd limit and improved mode's model.

use app::model::ModelChoice;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args, Clone)]
pub struct ScanOptions {
    /// Flag directed pairs at or above this similarity, 0 to 1 [default: 0.9 in
    /// reference mode, the model's (0.33) in improved mode].
    #[arg(long, value_name = "SIMILARITY")]
    pub threshold: Option<f64>,
    /// Bucket size in minutes.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=1440), value_name = "MINUTES")]
    pub bucket_minutes: u32,
    /// Which rules score: `improved` (a model's probability that the pair is
    /// one person, over the published score and evidence that held on
    /// simulated world families it was not fitted on; EVALUATION.md) or
    /// `reference` (the published method, exactly).
    #[arg(long, default_value = app::pipeline::DEFAULT_MODE.as_str(), value_parser = parse_mode)]
    pub mode: schema::Mode,
    /// Accounts on one address on one day above which the address is left
    /// out of that day's candidate pairs (and named in the report).
    #[arg(long, default_value_t = schema::DEFAULT_CROWD_LIMIT, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..))]
    pub crowd_limit: usize,
    /// With `--mode improved`: score with this model file (from `detect
    /// model fit` or `detect model export`) instead of the shipped model;
    /// the store keeps it as a version, which the scan records.
    #[arg(long, value_name = "FILE", conflicts_with = "model_version")]
    pub model: Option<PathBuf>,
    /// With `--mode improved`: score with this model version of the store
    /// (`detect model list`) instead of the shipped model.
    #[arg(long, value_name = "N")]
    pub model_version: Option<i64>,
}

impl ScanOptions {
    /// The model `--model` or `--model-version` names; refused in
    /// reference mode, which has no model.
    pub fn model_choice(&self) -> anyhow::Result<ModelChoice> {
        let choice = match (&self.model, self.model_version) {
            (Some(path), _) => ModelChoice::File(path.clone()),
            (None, Some(version)) => ModelChoice::Version(version),
            (None, None) => return Ok(ModelChoice::Shipped),
        };
        let flag = match choice {
            ModelChoice::Version(_) => "--model-version",
            _ => "--model",
        };
        anyhow::ensure!(
            self.mode == schema::Mode::Improved,
            "{flag} is for improved mode (--mode improved): reference mode has no model"
        );
        Ok(choice)
    }

    /// The model these options name, read and checked ([`app::model::resolve`]):
    /// `None`, the shipped model. A model file is stored as a version of
    /// `store` when one is given; a version needs the store.
    pub async fn model(
        &self,
        store: Option<&store::Store>,
    ) -> anyhow::Result<Option<scoring::improved::Model>> {
        app::model::resolve(store, &self.model_choice()?, "the command line").await
    }

    /// The scan parameters these options ask for, checked.
    pub fn params(&self) -> anyhow::Result<schema::ScanParams> {
        Ok(schema::ScanParams {
            mode: self.mode,
            crowd_limit: self.crowd_limit,
            ..app::pipeline::scan_params(
                self.threshold
                    .unwrap_or(app::pipeline::default_threshold(self.mode)),
                self.bucket_minutes,
            )?
        })
    }
}

fn parse_mode(s: &str) -> Result<schema::Mode, String> {
    schema::Mode::parse(s).ok_or_else(|| format!("{s:?} is not a mode: use improved or reference"))
}
