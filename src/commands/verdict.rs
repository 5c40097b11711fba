//! `detect verdict set` and `detect verdict list`: moderators' decisions on
//! pairs and cliques, kept for good (a newer verdict supersedes, none is
//! deleted). Each verdict set here is written to the audit log too.

use crate::cli::{EvalFormat, VerdictCommand, VerdictListArgs, VerdictSetArgs};
use anyhow::{bail, Result};
use app::pipeline;
use ingest::time::format_utc;
use schema::{NewVerdict, Verdict};
use std::io::Write;
use viz::escape::terminal;

pub async fn run(db: &app::pipeline::Db, cmd: VerdictCommand) -> Result<()> {
    match cmd {
        VerdictCommand::Set(args) => set(db, args).await,
        VerdictCommand::List(args) => list(db, args).await,
    }
}

/// What the audit log says a verdict was about: its kind and accounts.
pub fn audit_target(v: &NewVerdict) -> String {
    format!("{} {}", v.kind.as_str(), v.normalized_accounts().join(" "))
}

async fn set(db: &app::pipeline::Db, args: VerdictSetArgs) -> Result<()> {
    let mut v = NewVerdict {
        accounts: args.accounts,
        kind: args.kind,
        note: args.note,
        by: args.by,
        season: args.season,
        similarity: None,
        unseen: args.unseen,
        supersedes: args.supersedes,
    };
    if v.normalized_accounts().len() < 2 {
        bail!("a verdict needs two different accounts (or more for a clique)");
    }
    let store = pipeline::open_store(db).await?;
    if let Some((season, level)) = store
        .decision_level(&v.normalized_accounts(), args.season)
        .await?
    {
        v.season = Some(season);
        v.similarity = Some(level);
    }
    let id = store.add_verdict(&v).await?;
    store
        .record_audit(&v.by, "verdict", &audit_target(&v))
        .await?;
    let level = match (v.season, v.similarity) {
        (Some(s), Some(x)) => format!(" (season {s}, similarity {x:.4} now)"),
        _ => " (no scan holds these accounts: it will not re-open by itself)".to_owned(),
    };
    let corrects = v
        .supersedes
        .map_or(String::new(), |old| format!(", superseding #{old}"));
    println!(
        "verdict #{id}: {} for {}{level}{corrects}",
        v.kind.label(),
        terminal(&v.normalized_accounts().join(", "))
    );
    store.close().await;
    Ok(())
}

async fn list(db: &app::pipeline::Db, args: VerdictListArgs) -> Result<()> {
    let store = pipeline::open_store(db).await?;
    let verdicts = match &args.account {
        Some(x) => store.verdicts_for_account(x).await?,
        None => store.verdicts().await?,
    };
    store.close().await;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match args.format {
        EvalFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &verdicts)?;
            writeln!(out)?;
        }
        EvalFormat::Text => write_text(&mut out, &verdicts)?,
    }
    out.flush()?;
    Ok(())
}

/// One verdict per paragraph, newest first; names and notes with control
/// characters neutralised.
pub fn write_text(mut out: impl Write, verdicts: &[Verdict]) -> Result<()> {
    if verdicts.is_empty() {
        writeln!(out, "No verdicts.")?;
    }
    for v in verdicts {
        let what = if v.is_clique() { "clique" } else { "pair" };
        write!(
            out,
            "#{} {} UTC  {}  {what} {}  by {}",
            v.id,
            format_utc(v.at),
            v.kind.label(),
            terminal(&v.accounts.join(", ")),
            terminal(&v.by)
        )?;
        match (v.season, v.similarity) {
            (Some(s), Some(x)) => write!(out, "  (season {s}, similarity {x:.4})")?,
            (Some(s), None) => write!(out, "  (season {s})")?,
            _ => {}
        }
        if v.unseen {
            write!(out, "  [recorded with --unseen]")?;
        }
        if let Some(old) = v.supersedes {
            write!(out, "  supersedes #{old}")?;
        }
        if let Some(newer) = verdicts.iter().find(|n| n.supersedes == Some(v.id)) {
            write!(out, "  SUPERSEDED by #{}", newer.id)?;
        }
        writeln!(out)?;
        if !v.note.is_empty() {
            writeln!(out, "    {}", terminal(&v.note))?;
        }
    }
    Ok(())
}
