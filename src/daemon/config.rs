//! The daemon's configuration: a TOML file, read and checked once at start.
//!
//! Everything that can be wrong with it is found before the daemon does any
//! work, and reported as one sentence naming the file and the problem:
//! unknown keys (every table denies them), cron expressions that do not
//! parse, a missing directory, an empty list of seasons, a threshold outside
//! `[0, 1]`. See `detect.example.toml` at the root of the repository.

use anyhow::{anyhow, bail, Context, Result};
use regex::Regex;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// The default of `current_days`.
pub const DEFAULT_CURRENT_DAYS: u32 = 14;
/// The default of `keep_scans`.
pub const DEFAULT_KEEP_SCANS: u32 = 10;
/// The default of `report_dir`.
pub const DEFAULT_REPORT_DIR: &str = "reports";

/// The configuration as written in the file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    database: Option<String>,
    threshold: Option<f64>,
    bucket_minutes: Option<u32>,
    mode: Option<schema::Mode>,
    report_dir: Option<PathBuf>,
    seasons: Option<Seasons>,
    current_days: Option<u32>,
    keep_scans: Option<u32>,
    ip_key: Option<secrecy::SecretString>,
    retention_days: Option<u32>,
    schedule: Option<RawSchedule>,
    #[serde(default, rename = "source")]
    sources: Vec<RawSource>,
    public_url: Option<String>,
    reopen_margin: Option<f64>,
    #[serde(default, rename = "alert")]
    alerts: Vec<super::alerts::RawAlert>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSchedule {
    ingest: Option<String>,
    scan: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSource {
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

/// Which seasons each scan covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seasons {
    /// These season numbers.
    List(Vec<u32>),
    /// Every season with a move in its games during the `current_days` days
    /// up to the newest stored move.
    Current,
}

impl<'de> Deserialize<'de> for Seasons {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Seasons;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("\"current\" or a list of season numbers such as [6, 7]")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Seasons, E> {
                if s == "current" {
                    Ok(Seasons::Current)
                } else {
                    Err(E::invalid_value(de::Unexpected::Str(s), &self))
                }
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Seasons, A::Error> {
                let mut list = Vec::new();
                while let Some(n) = seq.next_element::<u32>()? {
                    list.push(n);
                }
                Ok(Seasons::List(list))
            }
        }
        d.deserialize_any(V)
    }
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

/// The checked configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file it was read from, as given.
    pub path: PathBuf,
    /// The store URL, when the file names one (it then wins over `--db`).
    pub database: Option<String>,
    pub threshold: f64,
    pub bucket_minutes: u32,
    /// Which rules score (`mode = "improved"` or `"reference"`).
    pub mode: schema::Mode,
    pub report_dir: PathBuf,
    pub seasons: Seasons,
    pub current_days: u32,
    /// How many scans of each season the store keeps (older ones are
    /// deleted after a new scan).
    pub keep_scans: u32,
    /// The key IPs are hashed with (a secret; wins over DETECT_IP_KEY).
    pub ip_key: Option<schema::store::IpKey>,
    /// Moves and IP rows older than this many days are purged once a day.
    pub retention_days: Option<u32>,
    /// Cron expressions (with a seconds field), UTC.
    pub ingest_schedule: Option<String>,
    pub scan_schedule: Option<String>,
    pub sources: Vec<Source>,
    /// Where moderators reach `detect serve`, for links in alerts.
    pub public_url: Option<url::Url>,
    /// How far above its decided level a known relationship must rise to
    /// be flagged again.
    pub reopen_margin: f64,
    /// Webhooks alerted of new flags.
    pub alerts: Vec<super::alerts::AlertTarget>,
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

impl Config {
    /// The sites the sources feed, sorted, each once; the default site when
    /// there is no source.
    pub fn sites(&self) -> Vec<String> {
        let mut sites: Vec<String> = self.sources.iter().map(|s| s.site().to_owned()).collect();
        if sites.is_empty() {
            sites.push(schema::store::DEFAULT_SITE.to_owned());
        }
        sites.sort();
        sites.dedup();
        sites
    }

    /// Where the reports of `site` go: `report_dir` for the default site,
    /// `report_dir/SITE` for another.
    pub fn site_report_dir(&self, site: &str) -> PathBuf {
        if site == schema::store::DEFAULT_SITE {
            self.report_dir.clone()
        } else {
            self.report_dir.join(site)
        }
    }

    /// Reads and checks the configuration.
    pub fn load(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the configuration {}", path.display()))?;
        Config::parse(path, &text)
    }

    /// Checks the configuration `text` read from `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Config> {
        let shown = path.display();
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            let at = e
                .span()
                .map(|s| {
                    let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
                    format!(", line {line}")
                })
                .unwrap_or_default();
            anyhow!(
                "the configuration {shown}{at}: {}",
                e.message().trim().replace('\n', " ")
            )
        })?;
        let fail = |m: String| anyhow!("the configuration {shown}: {m}");

        let mode = raw.mode.unwrap_or(crate::pipeline::DEFAULT_MODE);
        let threshold = raw
            .threshold
            .unwrap_or(crate::pipeline::default_threshold(mode));
        if !(0.0..=1.0).contains(&threshold) {
            return Err(fail(format!(
                "threshold must lie between 0 and 1, not {threshold}"
            )));
        }
        let bucket_minutes = raw
            .bucket_minutes
            .unwrap_or(crate::pipeline::DEFAULT_BUCKET_MINUTES);
        if !(1..=1440).contains(&bucket_minutes) {
            return Err(fail(format!(
                "bucket_minutes must lie between 1 and 1440, not {bucket_minutes}"
            )));
        }
        let seasons = raw.seasons.unwrap_or(Seasons::Current);
        if seasons == Seasons::List(vec![]) {
            return Err(fail(
                "seasons is an empty list: name at least one season, or write seasons = \"current\""
                    .into(),
            ));
        }
        let current_days = raw.current_days.unwrap_or(DEFAULT_CURRENT_DAYS);
        if current_days == 0 {
            return Err(fail("current_days must be at least 1".into()));
        }
        let keep_scans = raw.keep_scans.unwrap_or(DEFAULT_KEEP_SCANS);
        if keep_scans == 0 {
            return Err(fail("keep_scans must be at least 1".into()));
        }
        let ip_key = match raw.ip_key {
            Some(k) => {
                Some(schema::store::IpKey::new(k).ok_or_else(|| fail("ip_key is empty".into()))?)
            }
            None => None,
        };
        if raw.retention_days == Some(0) {
            return Err(fail("retention_days must be at least 1".into()));
        }
        if let Some(db) = &raw.database {
            if db.trim().is_empty() {
                return Err(fail("database is empty".into()));
            }
        }
        let (ingest_schedule, scan_schedule) = match raw.schedule {
            Some(s) => {
                for (key, expr) in [("ingest", &s.ingest), ("scan", &s.scan)] {
                    if let Some(expr) = expr {
                        check_cron(expr).map_err(|why| {
                            fail(format!(
                                "schedule.{key} {expr:?} is not a cron expression: {why}"
                            ))
                        })?;
                    }
                }
                (s.ingest, s.scan)
            }
            None => (None, None),
        };
        let mut sources = Vec::new();
        for (i, s) in raw.sources.into_iter().enumerate() {
            let n = i + 1;
            let source = check_source(s)
                .map_err(|m| fail(format!("source {n} (the [[source]] table number {n}): {m}")))?;
            sources.push(source);
        }
        let mut names = std::collections::BTreeSet::new();
        for s in &sources {
            let key = match s {
                Source::Directory { dir, .. } => format!("dir:{}", dir.display()),
                Source::Database { name, .. } => name.clone(),
            };
            if !names.insert(key) {
                return Err(fail(format!(
                    "the {} is configured twice (give one of them another name)",
                    s.describe()
                )));
            }
        }
        let public_url = raw
            .public_url
            .map(|u| super::alerts::check_public_url(&u))
            .transpose()
            .map_err(fail)?;
        let reopen_margin = raw.reopen_margin.unwrap_or(scoring::DEFAULT_REOPEN_MARGIN);
        if !(0.0..=1.0).contains(&reopen_margin) {
            return Err(fail(format!(
                "reopen_margin must lie between 0 and 1, not {reopen_margin}"
            )));
        }
        let mut alerts = Vec::new();
        for (i, a) in raw.alerts.into_iter().enumerate() {
            let n = i + 1;
            alerts.push(
                super::alerts::check_alert(a).map_err(|m| {
                    fail(format!("alert {n} (the [[alert]] table number {n}): {m}"))
                })?,
            );
        }
        Ok(Config {
            path: path.to_owned(),
            database: raw.database,
            threshold,
            bucket_minutes,
            mode,
            report_dir: raw
                .report_dir
                .unwrap_or_else(|| PathBuf::from(DEFAULT_REPORT_DIR)),
            seasons,
            current_days,
            keep_scans,
            ip_key,
            retention_days: raw.retention_days,
            ingest_schedule,
            scan_schedule,
            sources,
            public_url,
            reopen_margin,
            alerts,
        })
    }
}

/// Whether the scheduler accepts `expr`; if not, why.
pub fn check_cron(expr: &str) -> Result<(), String> {
    let fields = expr.split_whitespace().count();
    if !(6..=7).contains(&fields) {
        return Err(format!(
            "it has {fields} fields where the scheduler wants 6, with seconds first \
             (sec min hour day-of-month month day-of-week, e.g. \"0 */5 * * * *\"), or 7 with a year"
        ));
    }
    tokio_cron_scheduler::Job::new_async(expr, |_, _| Box::pin(async {}))
        .map(|_| ())
        .map_err(|_| {
            "one of its fields is out of range or malformed (sec min hour day-of-month month \
             day-of-week, e.g. \"0 */5 * * * *\")"
                .to_owned()
        })
}

fn check_source(s: RawSource) -> Result<Source, String> {
    let site = s
        .site
        .clone()
        .unwrap_or_else(|| schema::store::DEFAULT_SITE.to_owned());
    schema::store::check_site(&site).map_err(|e| format!("site {site:?}: {e}"))?;
    match (&s.directory, &s.url) {
        (Some(_), Some(_)) => Err(
            "it has both `directory` and `url`: a source is either a directory or a database"
                .into(),
        ),
        (None, None) => Err(
            "it has neither `directory` (a directory of move logs) nor `url` (the site's database)"
                .into(),
        ),
        (Some(dir), None) => {
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
                    Regex::new(&f)
                        .map_err(|e| format!("files {f:?} is not a regular expression: {e}"))
                })
                .transpose()?;
            Ok(Source::Directory {
                dir: abs,
                files,
                site,
            })
        }
        (None, Some(url)) => {
            if s.files.is_some() {
                return Err("`files` belongs to a directory source, not to a database".into());
            }
            let query = s
                .query
                .filter(|q| !q.trim().is_empty())
                .ok_or("a database source needs `query`, returning username, game, timestamp, ip and the key")?;
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
                    schema::store::redact_url(url),
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
    }
}

/// FNV-1a, 64 bits: a hash that stays the same across Rust releases, for
/// the names of marks.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The store URL the daemon uses: the configuration's `database` when it
/// names one, else `--db` / `DETECT_DATABASE_URL` / the default.
pub fn store_url(config: &Config, cli_db: &str) -> String {
    config.database.clone().unwrap_or_else(|| cli_db.to_owned())
}

/// Fails unless the daemon (not `--once`) has something to schedule.
pub fn require_schedule(config: &Config) -> Result<()> {
    if config.scan_schedule.is_none() && config.ingest_schedule.is_none() {
        bail!(
            "the configuration {}: [schedule] names no `scan` (nor `ingest`) cron expression, so the daemon \
             would never run; add one, or run once with --once",
            config.path.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config> {
        Config::parse(Path::new("d.toml"), text)
    }

    fn err(text: &str) -> String {
        crate::error_sentence(&parse(text).unwrap_err())
    }

    #[test]
    fn the_mode_and_its_default_threshold() {
        let c = parse("mode = \"improved\"").unwrap();
        assert_eq!(c.mode, schema::Mode::Improved);
        assert_eq!(c.threshold, scoring::improved::DEFAULT_THRESHOLD);
        let c = parse("mode = \"reference\"\nthreshold = 0.8").unwrap();
        assert_eq!((c.mode, c.threshold), (schema::Mode::Reference, 0.8));
        assert_eq!(parse("").unwrap().mode, crate::pipeline::DEFAULT_MODE);
        let e = err("threshold = 0.9\nmode = \"clever\"");
        assert!(e.contains("line 2") && e.contains("clever"), "{e}");
    }

    #[test]
    fn defaults() {
        let c = parse("").unwrap();
        assert_eq!(c.threshold, 0.9);
        assert_eq!(c.seasons, Seasons::Current);
        assert_eq!(c.current_days, 14);
        assert_eq!(c.keep_scans, 10);
        assert_eq!(c.report_dir, PathBuf::from("reports"));
        assert_eq!(parse("keep_scans = 3").unwrap().keep_scans, 3);
        assert!(c.ip_key.is_none() && c.retention_days.is_none());
        let keyed = parse("ip_key = \"hunter2\"\nretention_days = 90").unwrap();
        assert_eq!(keyed.retention_days, Some(90));
        assert!(keyed.ip_key.is_some());
        assert!(!format!("{keyed:?}").contains("hunter2"));
        assert!(err("ip_key = \" \"").contains("ip_key is empty"));
        assert!(err("retention_days = 0").contains("retention_days must be at least 1"));
        assert!(err("keep_scans = 0").contains("keep_scans must be at least 1"));
        assert!(c.sources.is_empty() && c.database.is_none());
        assert!(require_schedule(&c).is_err());
        assert_eq!(store_url(&c, "sqlite://x.db"), "sqlite://x.db");
    }

    #[test]
    fn a_full_configuration() {
        let dir = tempfile::tempdir().unwrap();
        let text = format!(
            r#"
database = "sqlite://s.db"
threshold = 0.8
seasons = [6, 7]
[schedule]
ingest = "0 */5 * * * *"
scan = "0 0 * * * *"
[[source]]
directory = "{}"
files = '\.jsonl$'
[[source]]
url = "postgres://u:secret@h/db"
query = "SELECT id, username, game, ts AS timestamp, ip FROM m WHERE id > $1 ORDER BY id"
key = "id"
[[source]]
name = "otm"
site = "otm"
url = "sqlite://site.db"
query = "SELECT * FROM m WHERE t > $1 ORDER BY t"
key = "t"
start = "2015-01-01"
"#,
            dir.path().display()
        );
        let c = parse(&text).unwrap();
        assert_eq!(c.seasons, Seasons::List(vec![6, 7]));
        assert_eq!(store_url(&c, "sqlite://x.db"), "sqlite://s.db");
        assert_eq!(c.sources.len(), 3);
        let sites: Vec<&str> = c.sources.iter().map(Source::site).collect();
        assert_eq!(sites, ["default", "default", "otm"]);
        assert_eq!(c.sites(), ["default", "otm"]);
        assert_eq!(c.site_report_dir("default"), c.report_dir);
        assert_eq!(c.site_report_dir("otm"), c.report_dir.join("otm"));
        // The site database's password never shows, not even in `Debug`.
        assert!(!format!("{:?}", c.sources).contains("secret"));
        match &c.sources[1] {
            Source::Database { name, start, .. } => {
                assert!(name.starts_with("db:postgres://u:***@h/db#"), "{name}");
                assert_eq!(start, &Mark::Int(0));
            }
            s => panic!("{s:?}"),
        }
        match &c.sources[2] {
            Source::Database { name, start, .. } => {
                assert_eq!(name, "db:otm");
                assert_eq!(start, &Mark::Text("2015-01-01".into()));
            }
            s => panic!("{s:?}"),
        }
    }

    #[test]
    fn problems_are_one_sentence() {
        let e = err("databse = \"x\"");
        assert!(
            e.starts_with(
                "the configuration d.toml, line 1: unknown field `databse`, expected one of"
            ),
            "{e}"
        );
        assert!(!e.contains('\n'), "{e}");
        let e = err("[schedule]\nscan = \"*/x * * * * *\"");
        assert!(
            e.starts_with("the configuration d.toml: schedule.scan \"*/x * * * * *\" is not a cron expression"),
            "{e}"
        );
        let e = err("[schedule]\ningest = \"*/5 * * * *\"");
        assert!(e.contains("it has 5 fields"), "{e}");
        assert!(err("threshold = 1.5").contains("threshold must lie between 0 and 1"));
        assert!(err("seasons = []").contains("seasons is an empty list"));
        assert!(err("seasons = \"all\"").contains("\"current\" or a list of season numbers"));
        let e = err("[[source]]\ndirectory = \"/no/such/dir\"");
        assert!(
            e.contains("source 1") && e.contains("/no/such/dir cannot be opened"),
            "{e}"
        );
        assert!(err("[[source]]\nurl = \"sqlite://x\"\nkey = \"id\"").contains("needs `query`"));
        assert!(
            err("[[source]]\nurl = \"sqlite://x\"\nkey = \"id\"\nquery = \"SELECT 1\"")
                .contains("never uses $1")
        );
        assert!(err("[[source]]\nurl = \"x\"\nqurey = \"y\"").contains("unknown field `qurey`"));
        let e = err("[[source]]\nsite = \"a/b\"\ndirectory = \".\"");
        assert!(e.contains("source 1") && e.contains("site \"a/b\""), "{e}");
    }

    #[test]
    fn the_example_configuration_is_valid() {
        let dir = tempfile::tempdir().unwrap();
        let text = include_str!("../../detect.example.toml")
            .replace("/var/lib/otm/logs", dir.path().to_str().unwrap());
        let c = parse(&text).unwrap();
        assert_eq!(c.sources.len(), 2);
        assert_eq!(c.scan_schedule.as_deref(), Some("0 0 * * * *"));
        assert!(require_schedule(&c).is_ok());
    }

    #[test]
    fn marks_round_trip() {
        for m in [
            Mark::Int(-3),
            Mark::Text("00123".into()),
            Mark::Text(String::new()),
        ] {
            assert_eq!(Mark::decode(&m.encode()), Some(m));
        }
        assert_eq!(Mark::decode("junk"), None);
    }
}
