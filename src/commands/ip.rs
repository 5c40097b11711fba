//! `detect ip lookup ADDRESS`: which accounts moved from an address, by day.
//! In a keyed store the address is hashed with the key (DETECT_IP_KEY) and
//! looked up by its hash: the raw address is never stored.

use crate::pipeline;
use anyhow::Result;
use clap::{Args, Subcommand};
use ingest::time::format_utc;

#[derive(Debug, Subcommand)]
pub enum IpCommand {
    /// List the accounts (and days) that moved from an IP address.
    Lookup(IpLookupArgs),
}

#[derive(Debug, Args)]
pub struct IpLookupArgs {
    /// The IP address, as the logs write it.
    pub address: String,
}

pub async fn run(db: &crate::pipeline::Db, command: IpCommand) -> Result<()> {
    let IpCommand::Lookup(args) = command;
    let store = pipeline::open_store(db).await?;
    let sightings = store.lookup_ip(&args.address).await?;
    let mut accounts: Vec<&str> = sightings.iter().map(|s| s.username.as_str()).collect();
    accounts.dedup();
    if sightings.is_empty() {
        println!("no stored move comes from this address");
    } else {
        println!(
            "{} accounts moved from this address: {}",
            accounts.len(),
            accounts.join(", ")
        );
        for s in &sightings {
            println!(
                "  {}  {}  {} moves",
                &format_utc(s.day * 86_400)[..10],
                s.username,
                s.moves
            );
        }
    }
    store.close().await;
    Ok(())
}
