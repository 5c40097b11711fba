//! The daemon's sources: a directory of move logs and the site's own
//! database (whose SQL is the store's: `store::SiteDatabase`). Every
//! unit of work (one file, one page of rows) is stored in one store
//! transaction together with the mark that says it is done, so a crash
//! at any point neither skips nor double-counts moves: the work is either
//! committed with its mark or not at all, and done again.

use super::config::{Mark, Source};
use super::Control;
use crate::pipeline::{self, IngestSummary};
use anyhow::{Context, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;
use store::{redact_url, SiteDatabase, Store};

mod database;
use database::pull_database;

/// A source ready to be read: a site database has its connections.
pub enum Live {
    Directory {
        dir: PathBuf,
        files: Option<regex::Regex>,
        /// Files that failed, by path, with the state they failed in: they
        /// are not read again (nor warned about again) until they change.
        failed: HashMap<PathBuf, String>,
    },
    Database {
        name: String,
        /// The site's database and its query (store/src/site_db.rs).
        db: SiteDatabase,
        /// The name of the key column, for messages.
        key: String,
        start: Mark,
    },
}

/// What one source did in one tick.
#[derive(Debug, Default)]
pub struct Pulled {
    /// Moves stored for the first time.
    pub new_moves: u64,
    /// Problems, each one sentence (already logged as warnings).
    pub problems: Vec<String>,
}

impl Live {
    /// Opens a source: checks a directory is there, connects to a site
    /// database once and prepares its query, so a wrong URL or query fails
    /// at start.
    pub async fn open(source: &Source) -> Result<Live> {
        match source {
            Source::Directory { dir, files, .. } => Ok(Live::Directory {
                dir: dir.clone(),
                files: files.clone(),
                failed: HashMap::new(),
            }),
            Source::Database {
                name,
                url,
                query,
                key,
                start,
                ..
            } => {
                use secrecy::ExposeSecret;
                let url = url.expose_secret();
                let db = SiteDatabase::open(url, &redact_url(url), query, key).await?;
                Ok(Live::Database {
                    name: name.clone(),
                    db,
                    key: key.clone(),
                    start: start.clone(),
                })
            }
        }
    }

    /// Ingests what is new in this source.
    pub async fn pull(&mut self, store: &Store, control: &Control) -> Pulled {
        match self {
            Live::Directory { dir, files, failed } => {
                pull_directory(store, dir, files.as_ref(), failed, control).await
            }
            Live::Database {
                name,
                db,
                key,
                start,
            } => {
                let mut pulled = Pulled::default();
                if let Err(e) =
                    pull_database(store, name, db, key, start, control, &mut pulled).await
                {
                    let m = format!("source {name}: {}", crate::error_sentence(&e));
                    tracing::warn!("{m}; the rows past the mark are read again next tick");
                    pulled.problems.push(m);
                }
                pulled
            }
        }
    }

    pub async fn close(&self) {
        if let Live::Database { db, .. } = self {
            db.close().await;
        }
    }
}

/// The mark of a file: its size and modification time.
fn file_mark(path: &Path) -> std::io::Result<String> {
    let meta = std::fs::metadata(path)?;
    let mtime = meta
        .modified()?
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    Ok(format!(
        "size={} mtime={}.{:09}",
        meta.len(),
        mtime.as_secs(),
        mtime.subsec_nanos()
    ))
}

/// The log files of a directory, by name: regular files, not hidden,
/// matching `files` when given.
fn log_files(dir: &Path, files: Option<&regex::Regex>) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with('.') || files.is_some_and(|re| !re.is_match(name)) {
            continue;
        }
        if entry.path().is_file() {
            out.push(entry.path());
        }
    }
    out.sort();
    Ok(out)
}

async fn pull_directory(
    store: &Store,
    dir: &Path,
    files: Option<&regex::Regex>,
    failed: &mut HashMap<PathBuf, String>,
    control: &Control,
) -> Pulled {
    let mut pulled = Pulled::default();
    let paths = match log_files(dir, files) {
        Ok(p) => p,
        Err(e) => {
            let m = format!("cannot list the directory {}: {e}", dir.display());
            tracing::warn!("{m}");
            pulled.problems.push(m);
            return pulled;
        }
    };
    for path in paths {
        if control.stopping() {
            break;
        }
        let mark = match file_mark(&path) {
            Ok(m) => m,
            Err(e) => {
                // Removed since it was listed, most likely.
                tracing::debug!(file = %path.display(), "cannot read the file's size and time: {e}");
                continue;
            }
        };
        if failed.get(&path) == Some(&mark) {
            tracing::debug!(file = %path.display(), "unchanged since it failed: not read again");
            continue;
        }
        let source = format!("file:{}", path.display());
        match store.source_mark(&source).await {
            Ok(Some(m)) if m == mark => continue,
            Ok(_) => {}
            Err(e) => {
                let m = format!("cannot read the mark of {}: {e}", path.display());
                tracing::warn!("{m}");
                pulled.problems.push(m);
                return pulled;
            }
        }
        match ingest_file(store, &path, &source, &mark, control).await {
            Ok(f) if f.already_stored => {
                failed.remove(&path);
                tracing::info!("{f}");
            }
            Ok(f) => {
                failed.remove(&path);
                pulled.new_moves += f.stored;
                tracing::info!(
                    "{}: {} moves read, {} new, {} skipped (no username or ip)",
                    path.display(),
                    f.moves,
                    f.stored,
                    f.skipped
                );
            }
            Err(e) => {
                let m = format!(
                    "{} (nothing of the file was stored; it is read again when it changes)",
                    crate::error_sentence(&e)
                );
                tracing::warn!("{m}");
                pulled.problems.push(m);
                failed.insert(path, mark);
            }
        }
    }
    pulled
}

/// Ingests one file whole, and sets its mark, in one store transaction
/// (through [`pipeline::read_log_into`], as `detect ingest` does). A bad
/// line rejects the file (nothing stored, mark unchanged). Moves already
/// stored (the file read before it grew) are ignored.
async fn ingest_file(
    store: &Store,
    path: &Path,
    source: &str,
    mark: &str,
    control: &Control,
) -> Result<IngestSummary> {
    let name = path.to_str().context("the file name is not UTF-8")?;
    let shown = pipeline::Shown::of(store).await?;
    let mut batch = store.begin_ingest().await?;
    let log = pipeline::Log::file(name);
    let read = pipeline::read_log_into(&mut batch, &log, store.limits(), false, shown, None).await;
    let out = match read {
        Ok(out) => out,
        Err(e) => {
            batch.rollback().await?;
            return Err(e);
        }
    };
    batch.set_source_mark(source, mark).await?;
    control.pause_in_transaction().await;
    batch.commit().await?;
    Ok(out)
}
