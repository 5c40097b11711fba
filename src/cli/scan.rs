//! The options every scoring command shares: threshold, bucket size, mode,
//! crowd limit and improved mode's model.

use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args, Clone)]
pub struct ScanOptions {
    /// Flag directed pairs at or above this similarity, 0 to 1 [default: 0.9 in
    /// reference mode, the model's (0.36) in improved mode].
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
    /// model fit`) instead of the shipped model; the scan records it.
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
}

impl ScanOptions {
    /// The model file `--model` names, read and checked; `None`: the
    /// shipped model. Refused in reference mode, which has no model.
    pub fn model(&self) -> anyhow::Result<Option<scoring::improved::Model>> {
        let Some(path) = &self.model else {
            return Ok(None);
        };
        anyhow::ensure!(
            self.mode == schema::Mode::Improved,
            "--model is for improved mode (--mode improved): reference mode has no model"
        );
        read_model(path).map(Some)
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

/// `detect model`: improved mode's model, fitted on the site's own verdicts.
#[derive(Debug, clap::Subcommand)]
pub enum ModelCommand {
    /// Fit a model on the verdicts of a season's pairs: each judged pair as
    /// the season's latest improved scan read it, "same person" against
    /// "household", "shared network" and "cleared" ("suspicious" is not an
    /// answer). The fit starts from a prior model (the shipped one unless
    /// --prior) and is pulled toward it; every weight keeps its sign.
    #[command(
        after_help = "Example:\n  detect scan --season 7 --mode improved\n  detect model fit --season 7 --out site-model.json\n  detect scan --season 8 --mode improved --model site-model.json"
    )]
    Fit(ModelFitArgs),
}

#[derive(Debug, Args)]
pub struct ModelFitArgs {
    /// The season whose judged pairs the model is fitted on.
    #[arg(long, value_name = "N")]
    pub season: u32,
    /// The model to start from and be pulled toward [default: the shipped one].
    #[arg(long, value_name = "FILE")]
    pub prior: Option<PathBuf>,
    /// The new model's name, as reports will show it.
    #[arg(long, default_value = "site verdicts")]
    pub name: String,
    /// Write the model file here [default: standard output].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Reads and checks a model file, naming it in any error.
pub fn read_model(path: &std::path::Path) -> anyhow::Result<scoring::improved::Model> {
    let text =
        std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    scoring::improved::Model::from_json(&text)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}
