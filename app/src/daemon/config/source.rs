//! The sources of moves a configuration names: directories of move logs and
//! site databases, each checked into a [`Source`] or one sentence saying
//! what is wrong.

use crate::daemon::fnv::fnv1a;
use regex::Regex;
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSource {
    name: Option<String>,
    // The site its moves belong to.
    site: Option<String>,
    // A directory of move logs.
    directory: Option<PathBuf>,
    files: Option<String>,
    // The site's own database.
    url: Option<String>,
    query: Option<String>,
    key: Option<String>,
    start: Option<Mark>,
}

/// A site database source's high-water mark: the last key pulled. It is
/// bound as the query's `$1` with its own type, so an integer key compares
/// with an integer and a text key with text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mark {
    Int(i64),
    Text(String),
}

impl Mark {
    /// As stored in the store's `source_marks`: `int:42` or `text:abc`.
    pub fn encode(&self) -> String {
        match self {
            Mark::Int(n) => format!("int:{n}"),
            Mark::Text(s) => format!("text:{s}"),
        }
    }

    pub fn decode(s: &str) -> Option<Mark> {
        if let Some(n) = s.strip_prefix("int:") {
            n.parse().ok().map(Mark::Int)
        } else {
            s.strip_prefix("text:").map(|t| Mark::Text(t.to_owned()))
        }
    }
}

impl fmt::Display for Mark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mark::Int(n) => write!(f, "{n}"),
            Mark::Text(s) => write!(f, "{s:?}"),
        }
    }
}

impl<'de> Deserialize<'de> for Mark {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Mark;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer or a string")
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Mark, E> {
                Ok(Mark::Int(n))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Mark, E> {
                Ok(Mark::Text(s.to_owned()))
            }
        }
        d.deserialize_any(V)
    }
}

/// Where moves come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// Every log file in a directory; a file is read again, whole, when its
    /// size or modification time changes.
    Directory {
        /// Absolute.
        dir: PathBuf,
        /// Only file names matching this.
        files: Option<Regex>,
        /// The site its moves belong to.
        site: String,
    },
    /// The site's own database, pulled incrementally past a mark.
    Database {
        /// The key of its mark in the store.
        name: String,
        /// It may hold a password: kept as a secret (never shown by
        /// `Debug`), exposed only to connect and shown only redacted.
        url: secrecy::SecretString,
        query: String,
        /// The column holding the monotonic key.
        key: String,
        /// The mark before the first pull.
        start: Mark,
        /// The site its moves belong to.
        site: String,
    },
}

impl Source {
    /// How logs name the source: never with a password.
    pub fn describe(&self) -> String {
        match self {
            Source::Directory { dir, .. } => format!("directory {}", dir.display()),
            Source::Database { name, .. } => name.clone(),
        }
    }

    /// The site its moves belong to (`site = "..."`, default `default`).
    pub fn site(&self) -> &str {
        match self {
            Source::Directory { site, .. } | Source::Database { site, .. } => site,
        }
    }
}

/// Checks one `[[source]]` table: a directory of move logs or a site's
/// database, never both, on a valid site.
pub(super) fn check_source(mut s: RawSource) -> Result<Source, String> {
    let site = s
        .site
        .clone()
        .unwrap_or_else(|| store::DEFAULT_SITE.to_owned());
    store::check_site(&site).map_err(|e| format!("site {site:?}: {e}"))?;
    match (s.directory.take(), s.url.take()) {
        (Some(_), Some(_)) => Err(
            "it has both `directory` and `url`: a source is either a directory or a database"
                .into(),
        ),
        (None, None) => Err(
            "it has neither `directory` (a directory of move logs) nor `url` (the site's database)"
                .into(),
        ),
        (Some(dir), None) => check_directory(s, &dir, site),
        (None, Some(url)) => check_database(s, &url, site),
    }
}

/// A directory source: the directory exists, its file pattern is a regular
/// expression, and no database key is set.
fn check_directory(s: RawSource, dir: &Path, site: String) -> Result<Source, String> {
    for (key, set) in [
        ("query", s.query.is_some()),
        ("key", s.key.is_some()),
        ("start", s.start.is_some()),
        ("name", s.name.is_some()),
    ] {
        if set {
            return Err(format!(
                "`{key}` belongs to a database source, not to a directory"
            ));
        }
    }
    let abs = dir
        .canonicalize()
        .map_err(|e| format!("the directory {} cannot be opened: {e}", dir.display()))?;
    if !abs.is_dir() {
        return Err(format!("{} is not a directory", dir.display()));
    }
    let files = s
        .files
        .map(|f| {
            Regex::new(&f).map_err(|e| format!("files {f:?} is not a regular expression: {e}"))
        })
        .transpose()?;
    Ok(Source::Directory {
        dir: abs,
        files,
        site,
    })
}

/// A database source: its query reads only rows past the mark (`$1`, or `?`
/// for MySQL), it names its key, and no directory key is set.
fn check_database(s: RawSource, url: &str, site: String) -> Result<Source, String> {
    if s.files.is_some() {
        return Err("`files` belongs to a directory source, not to a database".into());
    }
    let query = s.query.filter(|q| !q.trim().is_empty()).ok_or(
        "a database source needs `query`, returning username, game, timestamp, ip and the key",
    )?;
    let key = s
        .key
        .filter(|k| !k.trim().is_empty())
        .ok_or("a database source needs `key`, the column of the monotonic key")?;
    let mysql = url.starts_with("mysql://") || url.starts_with("mariadb://");
    if mysql && !query.contains('?') {
        return Err(
            "the query never uses ?, the mark (MySQL writes parameters as ?): it must read only rows past it (e.g. WHERE id > ? ORDER BY id)"
                .into(),
        );
    }
    if !mysql && !query.contains("$1") {
        return Err(
            "the query never uses $1, the mark: it must read only rows past it (e.g. WHERE id > $1 ORDER BY id)"
                .into(),
        );
    }
    let name = match s.name {
        Some(n) => format!("db:{n}"),
        None => format!(
            "db:{}#{:016x}",
            store::redact_url(url),
            fnv1a(query.as_bytes())
        ),
    };
    Ok(Source::Database {
        name,
        url: secrecy::SecretString::from(url.replacen("mariadb://", "mysql://", 1)),
        query,
        key,
        start: s.start.unwrap_or(Mark::Int(0)),
        site,
    })
}
