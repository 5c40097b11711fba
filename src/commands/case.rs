//! `detect case export`: the case file of a pair or a clique, written by
//! the web application's own builder ([`web::case_file`]) from the season's
//! latest scan, and audited as the web's download is.

use crate::cli::{CaseCommand, CaseExportArgs};
use anyhow::{anyhow, Context, Result};
use app::pipeline;
use viz::escape::terminal;
use web::CaseOf;

pub async fn run(db: &pipeline::Db, cmd: CaseCommand) -> Result<()> {
    match cmd {
        CaseCommand::Export(args) => export(db, args).await,
    }
}

async fn export(db: &pipeline::Db, args: CaseExportArgs) -> Result<()> {
    let of = match (args.clique, args.accounts.as_slice()) {
        (Some(k), _) => CaseOf::Clique(k),
        (None, [a, b]) => CaseOf::Pair {
            a: a.clone(),
            b: b.clone(),
        },
        _ => unreachable!("clap asks for two accounts or --clique"),
    };
    let n = args.season;
    let store = pipeline::open_store(db).await?;
    let scan = store.latest_scan(n).await?.ok_or_else(|| {
        anyhow!("season {n} has no scan yet: scan it first (detect scan --season {n})")
    })?;
    let segments = pipeline::segments(&store, scan.result.params.bucket_seconds, None).await?;
    let now = chrono::Utc::now().timestamp();
    // The sentence names the accounts as given: escaped for the terminal.
    let case = web::case_file(&store, &scan, &segments, &of, &args.by, now)
        .await
        .map_err(|e| anyhow!("{}", terminal(&e.to_string())))?;
    store
        .record_audit(&args.by, "export-case", &case.title)
        .await?;
    store.close().await;
    std::fs::write(&args.out, &case.html)
        .with_context(|| format!("cannot write the case file {}", args.out.display()))?;
    crate::ui::note(format!("case file written to {}", args.out.display()));
    Ok(())
}
