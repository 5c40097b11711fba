//! `detect daemon`: scheduled ingests and scans.

use crate::cli::DaemonArgs;

pub async fn run(_db: &str, args: DaemonArgs) -> anyhow::Result<()> {
    anyhow::bail!(
        "the daemon cannot run yet: {} was not read",
        args.config.display()
    )
}
