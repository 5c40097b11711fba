//! `detect backup DEST` and `detect check`: a consistent copy of the store
//! while the daemon runs, and a check of what a store holds.

use anyhow::{bail, Result};
use app::pipeline::Db;
use clap::Args;
use std::path::PathBuf;
use store::Store;

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  detect --db /var/lib/detect/detect.db backup /var/backups/detect-$(date +%F).db\n  detect --db /var/backups/detect-2026-11-26.db check"
)]
pub struct BackupArgs {
    /// The new SQLite file to write (it must not exist).
    pub dest: PathBuf,
}

/// Copies the store (every site) into `dest`, one consistent snapshot,
/// while other processes go on reading and writing it.
pub async fn run_backup(db: &Db, args: BackupArgs) -> Result<()> {
    let store = Store::open(&db.url).await?;
    store.backup(&args.dest).await?;
    store.close().await;
    if !crate::ui::quiet() {
        eprintln!("backed up {} to {}", store.url(), args.dest.display());
    }
    Ok(())
}

/// Checks the store as it is (nothing is migrated or changed): prints one
/// sentence per problem, and fails when there is any.
pub async fn run_check(db: &Db) -> Result<()> {
    let store = Store::open_unmigrated(&db.url).await?;
    let problems = store.check().await?;
    store.close().await;
    for p in &problems {
        println!("{p}");
    }
    match problems.len() {
        0 => {
            if !crate::ui::quiet() {
                eprintln!("{}: no problem found", store.url());
            }
            Ok(())
        }
        1 => bail!("the store has a problem"),
        n => bail!("the store has {n} problems"),
    }
}
