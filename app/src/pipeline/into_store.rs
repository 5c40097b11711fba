//! Reading a log into the store through the store's one ingest batch.

use anyhow::{anyhow, Context, Result};
use ingest::{open_log_as, Limits, LogLine, ReadError};
use std::io::Read;
use store::{IngestBatch, Store};

/// How many bad lines a `--skip-bad` summary lists.
pub const BAD_LINES_LISTED: usize = 5;

/// What ingesting one file did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct IngestSummary {
    pub file: String,
    /// Records read (lines with a record).
    pub records: u64,
    /// Moves among them (records with a username and an IP).
    pub moves: u64,
    /// Moves stored for the first time.
    pub stored: u64,
    /// Records without username or IP.
    pub skipped: u64,
    /// Moves already in the store.
    pub duplicates: u64,
    /// Moves older than the store's purge cutoff, not stored.
    pub expired: u64,
    /// Lines that could not be read (only with `--skip-bad`).
    pub bad: u64,
    /// The first few bad lines.
    pub bad_examples: Vec<ReadError>,
    /// The same file was ingested into the site before: not read again
    /// (`moves` are the moves it held then).
    pub already_stored: bool,
    /// The store was purged: a file skipped as already stored does not
    /// bring purged moves back.
    pub purged_store: bool,
}

impl std::fmt::Display for IngestSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.already_stored {
            write!(f, "already stored: {} ({} moves)", self.file, self.moves)?;
            if self.purged_store {
                write!(f, "; not read again, so purged moves are not brought back")?;
            }
            return Ok(());
        }
        write!(
            f,
            "{}: {} moves read, {} stored, {} skipped (no username or ip), {} duplicates ignored",
            self.file, self.moves, self.stored, self.skipped, self.duplicates
        )?;
        if self.expired > 0 {
            write!(
                f,
                ", {} older than the store's purge cutoff not stored",
                self.expired
            )?;
        }
        if self.bad > 0 {
            write!(f, ", {} bad lines skipped", self.bad)?;
            for e in &self.bad_examples {
                write!(f, "\n  {e}")?;
            }
            if self.bad as usize > self.bad_examples.len() {
                write!(f, "\n  ...")?;
            }
        }
        Ok(())
    }
}

/// A step counting lines, reported to the installed progress.
pub fn spinner(message: String) -> Box<dyn crate::progress::Step> {
    crate::progress::counter(message)
}

/// A log to read: where it is named from (a path, or `-`), and, for
/// standard input or a named pipe, the temporary file it was read into.
pub struct Log {
    pub path: String,
    spool: Option<tempfile::NamedTempFile>,
}

impl Log {
    /// A regular file, read where it is.
    pub fn file(path: &str) -> Log {
        Log {
            path: path.to_owned(),
            spool: None,
        }
    }

    /// Standard input or a named pipe read to its end into a temporary
    /// file, before any transaction: a slow or silent writer must not hold
    /// the store's write lock (`scan` and `verdict set` would wait and fail).
    /// A regular file is read where it is.
    pub async fn spooled(path: &str) -> Result<Log> {
        let regular = path != "-" && std::fs::metadata(path).map_or(true, |m| m.is_file());
        if regular {
            return Ok(Log::file(path));
        }
        let owned = path.to_owned();
        let spool = tokio::task::spawn_blocking(move || spool(&owned)).await??;
        Ok(Log {
            path: path.to_owned(),
            spool: Some(spool),
        })
    }

    /// Where the bytes are read from.
    fn read_from(&self) -> &str {
        match &self.spool {
            Some(s) => s.path().to_str().unwrap_or(&self.path),
            None => &self.path,
        }
    }

    /// Whether the log can be read twice and recognised by its digest (not
    /// standard input or a pipe).
    fn is_file(&self) -> bool {
        self.spool.is_none() && self.path != "-"
    }
}

/// Copies standard input or a named pipe into a temporary file.
fn spool(path: &str) -> Result<tempfile::NamedTempFile> {
    let name = ingest::shown_name(path);
    let mut input: Box<dyn Read> = if path == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        ingest::warn_if_fifo(path, &name);
        Box::new(std::fs::File::open(path).with_context(|| format!("{name}: cannot open"))?)
    };
    let mut out = tempfile::NamedTempFile::new()
        .context("cannot make a temporary file to read standard input into")?;
    std::io::copy(&mut input, &mut out).with_context(|| format!("{name}: cannot read"))?;
    Ok(out)
}

/// Ingests one log into the store in one transaction. A bad line rejects the
/// whole file (nothing of it is stored) unless `skip_bad`.
pub async fn ingest_file(store: &Store, path: &str, skip_bad: bool) -> Result<IngestSummary> {
    let log = Log::spooled(path).await?;
    let shown = Shown::of(store).await?;
    let mut batch = store.begin_ingest().await?;
    let bar = spinner(format!("reading {}", ingest::shown_name(path)));
    let read = read_log_into(
        &mut batch,
        &log,
        store.limits(),
        skip_bad,
        shown,
        Some(bar.as_ref()),
    )
    .await;
    bar.finish();
    let summary = match read {
        Ok(s) => s,
        Err(e) => {
            batch.rollback().await?;
            let hint = match e.downcast_ref::<ReadError>() {
                Some(r) if r.line.is_some() => {
                    " (nothing of this file was stored; --skip-bad stores the good lines)"
                }
                _ => "",
            };
            return Err(anyhow!("{}{hint}", crate::error_sentence(&e)));
        }
    };
    batch.commit().await?;
    tracing::info!(file = %summary.file, moves = summary.moves, stored = summary.stored, "file ingested");
    Ok(summary)
}

/// What a message about a log may show of its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// A plain store: a bad line's fields as they are.
    Everything,
    /// A keyed store (a key is set, or the store keeps keyed addresses):
    /// every address in a message, whichever field held it, is replaced
    /// by `[address]`.
    NoAddresses,
}

impl Shown {
    pub async fn of(store: &Store) -> Result<Shown> {
        // The store's form of an address differs from it when a key is set.
        const PROBE: &str = "192.0.2.1";
        Ok(
            if store.stored_ip(PROBE) != PROBE || store.is_keyed().await? {
                Shown::NoAddresses
            } else {
                Shown::Everything
            },
        )
    }

    /// A reader's error as it may be shown.
    pub fn error(self, mut e: ReadError) -> ReadError {
        if self == Shown::NoAddresses {
            e.message = schema::address::redact_addresses(&e.message).into_owned();
        }
        e
    }

    /// Any message about a log's content as it may be shown.
    pub fn text(self, text: &str) -> String {
        match self {
            Shown::Everything => text.to_owned(),
            Shown::NoAddresses => schema::address::redact_addresses(text).into_owned(),
        }
    }
}

/// Reads one log into an open ingest: the one way a file comes in, from
/// the command line and from the daemon's watched directories. A bad line
/// ends it with the error unless `skip_bad`; the caller then rolls the batch
/// back. Sets, marks and commits are the caller's. A file (not standard
/// input) whose digest the site already has is skipped unread; a file read
/// whole records its digest in the batch.
pub async fn read_log_into(
    batch: &mut IngestBatch<'_>,
    log: &Log,
    limits: &Limits,
    skip_bad: bool,
    shown: Shown,
    bar: Option<&dyn crate::progress::Step>,
) -> Result<IngestSummary> {
    let reader = open_log_as(log.read_from(), &log.path, limits).map_err(|e| shown.error(e))?;
    let digest = if log.is_file() {
        crate::file_digest::FileDigest::of(&log.path)?
    } else {
        None
    };
    if let Some(d) = &digest {
        if let Some(file) = batch.stored_file(&d.hex).await? {
            return Ok(IngestSummary {
                file: reader.file().to_owned(),
                moves: file.moves,
                already_stored: true,
                purged_store: batch.purged(),
                ..Default::default()
            });
        }
    }
    let mut summary = IngestSummary {
        file: reader.file().to_owned(),
        ..Default::default()
    };
    let stored_before = batch.stored_so_far().await?;
    let expired_before = batch.expired();
    for (i, line) in reader.enumerate() {
        if let Some(bar) = bar.filter(|_| i % 10_000 == 0) {
            bar.set_position(i as u64);
        }
        match line {
            Ok((_, LogLine::Move(m))) => {
                summary.records += 1;
                summary.moves += 1;
                batch.push(m).await?;
            }
            Ok((_, LogLine::Skipped)) => {
                summary.records += 1;
                summary.skipped += 1;
            }
            Err(e) if skip_bad && e.is_bad_line() => {
                summary.bad += 1;
                if summary.bad_examples.len() < BAD_LINES_LISTED {
                    summary.bad_examples.push(shown.error(e));
                }
            }
            Err(e) => return Err(shown.error(e).into()),
        }
    }
    summary.stored = batch.stored_so_far().await? - stored_before;
    summary.expired = batch.expired() - expired_before;
    summary.duplicates = summary.moves - summary.stored - summary.expired;
    if let Some(d) = digest {
        let now = chrono::Utc::now().timestamp();
        batch
            .record_file(&d.hex, d.bytes, summary.moves, now)
            .await?;
    }
    Ok(summary)
}
