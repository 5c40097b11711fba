//! `detect model`: improved mode's models, fitted on the site's own
//! verdicts and kept in the store as numbered versions.

use clap::Args;
use std::path::PathBuf;

/// `detect model`: improved mode's models: fitted on the site's own
/// verdicts, kept in the store as numbered versions, moved between stores
/// as files.
#[derive(Debug, clap::Subcommand)]
pub enum ModelCommand {
    /// Fit a model on the verdicts of a season's pairs: each judged pair as
    /// the season's latest improved scan read it, "same person" against
    /// "household", "shared network" and "cleared" ("suspicious" is not an
    /// answer). The fit starts from a prior model (the shipped one unless
    /// --prior) and is pulled toward it; every weight keeps its sign.
    #[command(
        after_help = "Example:\n  detect scan --season 7 --mode improved\n  detect model fit --season 7 --save\n  detect model fit --season 7 --out site-model.json\n  detect scan --season 8 --mode improved --model-version 2"
    )]
    Fit(ModelFitArgs),
    /// Store a model file (from `detect model fit` or `detect model
    /// export`) as the store's next model version, checked as `--model`
    /// checks it; prints the version. A model the store holds already
    /// keeps its version.
    #[command(
        after_help = "Examples:\n  detect model import site-model.json\n  detect model import site-model.json --name \"north site, May\"\n  detect scan --season 8 --mode improved --model-version 2"
    )]
    Import(ModelImportArgs),
    /// Write a stored model version to a file, byte for byte as it was
    /// stored, to import into another store.
    #[command(
        after_help = "Example:\n  detect model export 2 --out site-model.json\n  detect --db postgres://detect@db/detect model import site-model.json"
    )]
    Export(ModelExportArgs),
    /// List the store's model versions: name, where each came from, when
    /// and by whom it was added, how many scans scored with it.
    #[command(after_help = "Example:\n  detect model list")]
    List,
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
    /// Write the model file here [default: standard output, unless --save].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Store the model as the store's next model version (and print the
    /// version).
    #[arg(long)]
    pub save: bool,
}

#[derive(Debug, Args)]
pub struct ModelImportArgs {
    /// The model file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Store it under this name (reports show it) instead of the file's;
    /// the stored file is then the renamed model as this build writes it.
    #[arg(long)]
    pub name: Option<String>,
}

#[derive(Debug, Args)]
pub struct ModelExportArgs {
    /// The stored model version (`detect model list`).
    #[arg(value_name = "VERSION")]
    pub model_version: i64,
    /// The file to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}
