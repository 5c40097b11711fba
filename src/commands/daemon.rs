//! `detect daemon --config FILE [--once]`: the daemon of `app::daemon`.

use crate::cli::DaemonArgs;
use anyhow::Result;
use app::daemon::{self, DaemonOptions};
use app::pipeline::Db;

pub async fn run(db: &Db, args: DaemonArgs) -> Result<()> {
    let options = DaemonOptions {
        config: args.config,
        once: args.once,
    };
    daemon::run(&db.url, options).await
}
