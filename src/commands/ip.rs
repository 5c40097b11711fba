//! `detect ip lookup ADDRESS`: which accounts moved from an address, by day.
//! In a keyed store the address is hashed with the key (DETECT_IP_KEY) and
//! looked up by its hash: the raw address is never stored.

use crate::cli::IpCommand;
use anyhow::Result;
use app::pipeline;
use ingest::time::format_utc;

/// Who looks up: `--actor`, else the operating system's user ($USER,
/// $LOGNAME, else `uid N` of the process).
fn actor(given: Option<String>) -> String {
    given
        .or_else(|| std::env::var("USER").ok())
        .or_else(|| std::env::var("LOGNAME").ok())
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(process_uid)
}

#[cfg(unix)]
fn process_uid() -> String {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").map_or_else(
        |_| "unknown user".to_owned(),
        |m| format!("uid {}", m.uid()),
    )
}

#[cfg(not(unix))]
fn process_uid() -> String {
    "unknown user".to_owned()
}

pub async fn run(db: &app::pipeline::Db, command: IpCommand) -> Result<()> {
    let IpCommand::Lookup(args) = command;
    let by = actor(args.actor);
    let store = pipeline::open_store(db).await?;
    let sightings = store.lookup_ip(&args.address).await?;
    // Audited before anything is shown; the audit names the address only
    // by its hash or fingerprint, and the site.
    let target = format!(
        "site {}: {}",
        store.site(),
        store.audit_ip(&args.address).await?
    );
    store.record_audit(&by, "ip-lookup", &target).await?;
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
