//! `detect audit`: the append-only audit log (sign-ins, evidence viewed,
//! verdicts, IP reveals), oldest first.

use crate::cli::{AuditArgs, EvalFormat};
use anyhow::{anyhow, Result};
use app::pipeline;
use ingest::time::{format_utc, parse_date, parse_time};
use std::io::Write;
use viz::escape::terminal;

/// `--since`: a day (its UTC midnight) or a UTC time.
fn since(s: &str) -> Result<i64> {
    parse_date(s).or_else(|_| parse_time(s)).map_err(|_| {
        anyhow!("cannot read --since {s:?}: expected YYYY-MM-DD or YYYY-MM-DD HH:MM:SS (UTC)")
    })
}

pub async fn run(db: &app::pipeline::Db, args: AuditArgs) -> Result<()> {
    let from = args.since.as_deref().map(since).transpose()?;
    let store = pipeline::open_store(db).await?;
    let entries = store.audit_log(from, args.by.as_deref()).await?;
    store.close().await;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match args.format {
        EvalFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &entries)?;
            writeln!(out)?;
        }
        EvalFormat::Text => {
            if entries.is_empty() {
                writeln!(out, "No audit entries.")?;
            }
            for e in &entries {
                writeln!(
                    out,
                    "{} UTC  {}  {}  {}",
                    format_utc(e.at),
                    terminal(&e.by),
                    terminal(&e.action),
                    terminal(&e.target)
                )?;
            }
        }
    }
    out.flush()?;
    Ok(())
}
