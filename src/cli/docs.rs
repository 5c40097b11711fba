//! The arguments of the documentation commands: `detect completions` and
//! `detect man`.

use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum, ignore_case = true)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write detect.1 and detect-COMMAND.1 pages into this directory instead
    /// of printing detect.1.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}
