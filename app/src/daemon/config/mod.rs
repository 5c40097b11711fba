//! The daemon's configuration: a TOML file, read and checked once at start.
//!
//! Everything that can be wrong with it is found before the daemon does any
//! work, and reported as one sentence naming the file and the problem:
//! unknown keys (every table denies them), cron expressions that do not
//! parse, a missing directory, an empty list of seasons, a threshold outside
//! `[0, 1]`. See `detect.example.toml` at the root of the repository.

use anyhow::{anyhow, bail, Context, Result};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};

mod cluster;
mod source;

pub use cluster::ClusterTarget;
use source::{check_source, RawSource};
pub use source::{Mark, Source};

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
    model: Option<PathBuf>,
    model_version: Option<i64>,
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
    metrics_listen: Option<std::net::SocketAddr>,
    log_format: Option<crate::log_format::LogFormat>,
    cluster: Option<cluster::RawCluster>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSchedule {
    ingest: Option<String>,
    scan: Option<String>,
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
    /// Improved mode's model (`model = "FILE"`, a file from `detect model
    /// fit`, read when the configuration loads; `model_version = N`, read
    /// from the store at start); `None`: the shipped one.
    pub model: Option<std::sync::Arc<scoring::improved::Model>>,
    /// Which model the configuration names, resolved at start
    /// ([`crate::model::resolve`]): a file is then stored as a version.
    pub model_choice: crate::model::ModelChoice,
    pub report_dir: PathBuf,
    pub seasons: Seasons,
    pub current_days: u32,
    /// How many scans of each season the store keeps (older ones are
    /// deleted after a new scan).
    pub keep_scans: u32,
    /// The key IPs are hashed with (a secret; wins over DETECT_IP_KEY).
    pub ip_key: Option<store::IpKey>,
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
    /// Where `/metrics` is served (Prometheus text format); none by default.
    pub metrics_listen: Option<std::net::SocketAddr>,
    /// Log lines as text (the default) or JSON; `--log-format` wins.
    pub log_format: Option<crate::log_format::LogFormat>,
    /// Where scans run when not in the daemon (`[cluster]`).
    pub cluster: Option<ClusterTarget>,
}

impl Config {
    /// The sites the sources feed, sorted, each once; the default site when
    /// there is no source.
    pub fn sites(&self) -> Vec<String> {
        let mut sites: Vec<String> = self.sources.iter().map(|s| s.site().to_owned()).collect();
        if sites.is_empty() {
            sites.push(store::DEFAULT_SITE.to_owned());
        }
        sites.sort();
        sites.dedup();
        sites
    }

    /// Where the reports of `site` go: `report_dir` for the default site,
    /// `report_dir/SITE` for another.
    pub fn site_report_dir(&self, site: &str) -> PathBuf {
        if site == store::DEFAULT_SITE {
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
        let mut raw = read_raw(text).map_err(|m| anyhow!("the configuration {shown}{m}"))?;
        let fail = |m: String| anyhow!("the configuration {shown}: {m}");
        let mode = raw.mode.unwrap_or(crate::pipeline::DEFAULT_MODE);
        let threshold = raw
            .threshold
            .unwrap_or(crate::pipeline::default_threshold(mode));
        let bucket_minutes = raw
            .bucket_minutes
            .unwrap_or(crate::pipeline::DEFAULT_BUCKET_MINUTES);
        let seasons = raw.seasons.take().unwrap_or(Seasons::Current);
        let current_days = raw.current_days.unwrap_or(DEFAULT_CURRENT_DAYS);
        let keep_scans = raw.keep_scans.unwrap_or(DEFAULT_KEEP_SCANS);
        let reopen_margin = raw.reopen_margin.unwrap_or(scoring::DEFAULT_REOPEN_MARGIN);
        check_ranges(
            threshold,
            bucket_minutes,
            &seasons,
            current_days,
            keep_scans,
        )
        .and_then(|()| check_kept(&raw, reopen_margin))
        .map_err(fail)?;
        let ip_key = match raw.ip_key {
            Some(k) => Some(store::IpKey::new(k).ok_or_else(|| fail("ip_key is empty".into()))?),
            None => None,
        };
        let (ingest_schedule, scan_schedule) = check_schedule(raw.schedule).map_err(fail)?;
        let sources = check_sources(raw.sources).map_err(fail)?;
        let public_url = raw
            .public_url
            .map(|u| super::alerts::check_public_url(&u))
            .transpose()
            .map_err(fail)?;
        let alerts = numbered(raw.alerts, "alert", super::alerts::check_alert).map_err(fail)?;
        let model_choice = model_choice(raw.model, raw.model_version, mode).map_err(fail)?;
        let model = match &model_choice {
            crate::model::ModelChoice::File(file) => Some(read_model(file)),
            _ => None,
        }
        .transpose()
        .map_err(fail)?;
        let built = cfg!(feature = "cluster");
        let cluster = cluster::check_cluster(raw.cluster, mode, built).map_err(fail)?;
        Ok(Config {
            path: path.to_owned(),
            database: raw.database,
            threshold,
            bucket_minutes,
            mode,
            model,
            model_choice,
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
            metrics_listen: raw.metrics_listen,
            log_format: raw.log_format,
            cluster,
        })
    }
}

/// The model `model = "FILE"` or `model_version = N` names (not both);
/// refused outside improved mode.
fn model_choice(
    file: Option<PathBuf>,
    version: Option<i64>,
    mode: schema::Mode,
) -> Result<crate::model::ModelChoice, String> {
    use crate::model::ModelChoice;
    let choice = match (file, version) {
        (None, None) => return Ok(ModelChoice::Shipped),
        (Some(_), Some(_)) => {
            return Err("name the model once: model = \"FILE\" or model_version = N".into())
        }
        (Some(file), None) => ModelChoice::File(file),
        (None, Some(version)) => ModelChoice::Version(version),
    };
    if mode != schema::Mode::Improved {
        let key = match choice {
            ModelChoice::Version(_) => "model_version",
            _ => "model",
        };
        return Err(format!(
            "{key} is for mode = \"improved\": reference mode has no model"
        ));
    }
    Ok(choice)
}

/// The model file `model` names, read and checked.
fn read_model(file: &Path) -> Result<std::sync::Arc<scoring::improved::Model>, String> {
    crate::model::read_model_file(file)
        .map(|f| std::sync::Arc::new(f.model))
        .map_err(|e| format!("model {e}"))
}

/// The `log_format` a configuration file names, read before logging
/// starts; text when it names none or cannot be read (loading it later
/// says what is wrong).
pub fn log_format(path: &Path) -> crate::log_format::LogFormat {
    #[derive(Deserialize)]
    struct Only {
        log_format: Option<crate::log_format::LogFormat>,
    }
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| toml::from_str::<Only>(&text).ok())
        .and_then(|only| only.log_format)
        .unwrap_or_default()
}

/// The TOML of `text`, or why not, beginning with the line where the
/// parser stopped (", line N: ...").
fn read_raw(text: &str) -> Result<RawConfig, String> {
    toml::from_str(text).map_err(|e: toml::de::Error| {
        let start = e.span().map(|s| s.start.min(text.len()));
        let at = start
            .map(|s| format!(", line {}", text[..s].matches('\n').count() + 1))
            .unwrap_or_default();
        match start.and_then(|s| secret_key_at(text, s)) {
            // toml's message quotes the value: a key's, a URL's password.
            Some(key) => format!(
                "{at}: {key} has a value of the wrong kind (it must be a string in quotes; \
                 the value is a secret and is not shown)"
            ),
            None => format!("{at}: {}", e.message().trim().replace('\n', " ")),
        }
    })
}

/// The key of the line at byte `at` of `text` when its value is a secret
/// (`ip_key`, or a URL that may hold a password or a webhook's token).
fn secret_key_at(text: &str, at: usize) -> Option<&str> {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("");
    let key = line.split('=').next()?.trim().trim_matches('"');
    (key == "ip_key" || key.ends_with("url")).then_some(key)
}

/// The numbers and the season list, each within its range.
fn check_ranges(
    threshold: f64,
    bucket_minutes: u32,
    seasons: &Seasons,
    current_days: u32,
    keep_scans: u32,
) -> Result<(), String> {
    if !(0.0..=1.0).contains(&threshold) {
        return Err(format!(
            "threshold must lie between 0 and 1, not {threshold}"
        ));
    }
    if !(1..=1440).contains(&bucket_minutes) {
        return Err(format!(
            "bucket_minutes must lie between 1 and 1440, not {bucket_minutes}"
        ));
    }
    if *seasons == Seasons::List(vec![]) {
        return Err(
            "seasons is an empty list: name at least one season, or write seasons = \"current\""
                .into(),
        );
    }
    if current_days == 0 {
        return Err("current_days must be at least 1".into());
    }
    if keep_scans == 0 {
        return Err("keep_scans must be at least 1".into());
    }
    Ok(())
}

/// What is kept and where: the retention, the database and the margin
/// that reopens a decided pair.
fn check_kept(raw: &RawConfig, reopen_margin: f64) -> Result<(), String> {
    if raw.retention_days == Some(0) {
        return Err("retention_days must be at least 1".into());
    }
    if raw.database.as_ref().is_some_and(|db| db.trim().is_empty()) {
        return Err("database is empty".into());
    }
    if !(0.0..=1.0).contains(&reopen_margin) {
        return Err(format!(
            "reopen_margin must lie between 0 and 1, not {reopen_margin}"
        ));
    }
    Ok(())
}

/// The ingest and scan schedules, each a cron expression the scheduler
/// accepts.
fn check_schedule(
    schedule: Option<RawSchedule>,
) -> Result<(Option<String>, Option<String>), String> {
    let Some(s) = schedule else {
        return Ok((None, None));
    };
    for (key, expr) in [("ingest", &s.ingest), ("scan", &s.scan)] {
        if let Some(expr) = expr {
            check_cron(expr).map_err(|why| {
                format!("schedule.{key} {expr:?} is not a cron expression: {why}")
            })?;
        }
    }
    Ok((s.ingest, s.scan))
}

/// Each `[[source]]` checked, and none configured twice.
fn check_sources(raw: Vec<RawSource>) -> Result<Vec<Source>, String> {
    let sources = numbered(raw, "source", check_source)?;
    let mut names = std::collections::BTreeSet::new();
    for s in &sources {
        let key = match s {
            Source::Directory { dir, .. } => format!("dir:{}", dir.display()),
            Source::Database { name, .. } => name.clone(),
        };
        if !names.insert(key) {
            return Err(format!(
                "the {} is configured twice (give one of them another name)",
                s.describe()
            ));
        }
    }
    Ok(sources)
}

/// Each table of an array of `[[table]]`s checked by `check`; an error
/// names the table by its number.
fn numbered<R, T>(
    raw: Vec<R>,
    table: &str,
    check: impl Fn(R) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    raw.into_iter()
        .enumerate()
        .map(|(i, r)| {
            let n = i + 1;
            check(r).map_err(|m| format!("{table} {n} (the [[{table}]] table number {n}): {m}"))
        })
        .collect()
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
mod tests;
