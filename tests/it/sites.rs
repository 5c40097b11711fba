//! Sites: one store holding two sites whose usernames overlap reports each
//! site exactly as a store of its own would, on SQLite and PostgreSQL, from
//! the command line and from the daemon.

use crate::common::{golden_dir, output_within, toml_str, Backend, TestDb, BIN};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Two golden logs of season 1 with the same usernames (u000, u001, ...).
fn logs() -> [PathBuf; 2] {
    let random = golden_dir().join("random");
    [random.join("01/input.jsonl"), random.join("02/input.jsonl")]
}

const SITES: [&str; 2] = ["alpha", "beta"];

/// The store's URL and the scan ids and times differ between one store and
/// two (the shared store numbers the scans of both sites): blanked out.
/// Nothing else is touched.
fn normalise(text: &str, url: &str) -> String {
    let mut text = text.replace(url, "<store>");
    for (pattern, with) in [
        (r"scan #[0-9]+", "scan #N"),
        (
            r"[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}( UTC|Z)?",
            "TIME",
        ),
        (r#""(scan_id|created_at)":\s*[0-9]+"#, r#""$1":N"#),
    ] {
        let re = regex::Regex::new(pattern).unwrap();
        text = re.replace_all(&text, with).into_owned();
    }
    text
}

/// The first scored pair of a CSV report.
fn first_pair(csv: &str) -> (String, String) {
    let (a, b, _) = crate::common::pairs_of_csv(csv)
        .into_iter()
        .next()
        .expect("a scored pair");
    (a, b)
}

fn reports(db: &TestDb, site: &str, pair: &(String, String)) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for format in ["text", "csv", "json"] {
        let args = [
            "--site", site, "report", "--season", "1", "--all", "--format", format,
        ];
        out.push((format.to_owned(), normalise(&db.ok(&args), &db.url)));
    }
    out.push((
        "season list".to_owned(),
        db.ok(&["--site", site, "season", "list"]),
    ));
    out.push((
        "buckets".to_owned(),
        db.ok(&["--site", site, "buckets", "--season", "1"]),
    ));
    out.push((
        "explain".to_owned(),
        normalise(
            &db.ok(&["--site", site, "explain", "--season", "1", &pair.0, &pair.1]),
            &db.url,
        ),
    ));
    out.push((
        "ip lookup".to_owned(),
        db.ok(&["--site", site, "ip", "lookup", "10.2.0.1"]),
    ));
    out
}

fn two_sites_in_one_store(backend: Backend) {
    let logs = logs();
    let shared = TestDb::new(backend);
    for (log, site) in logs.iter().zip(SITES) {
        shared.ok(&["ingest", "--site", site, log.to_str().unwrap()]);
    }
    // The same file again changes nothing: it is skipped within its site.
    let again = shared.ok(&["--site", "beta", "ingest", logs[1].to_str().unwrap()]);
    assert!(again.starts_with("already stored: "), "{again}");
    for (log, site) in logs.iter().zip(SITES) {
        let alone = TestDb::new(backend);
        alone.ok(&["ingest", log.to_str().unwrap()]);
        let pair = first_pair(&alone.ok(&["report", "--season", "1", "--all", "--format", "csv"]));
        let want = reports(&alone, "default", &pair);
        let got = reports(&shared, site, &pair);
        for ((what, w), (_, g)) in want.iter().zip(&got) {
            assert!(!w.trim().is_empty(), "{what} of site {site} is empty");
            assert_eq!(g, w, "site {site}: {what} differs from a store of its own");
        }
    }
    // The sites are distinct: their reports differ, and the default site of
    // the shared store holds nothing.
    let csv = |site| {
        shared.ok(&[
            "--site", site, "report", "--season", "1", "--all", "--format", "csv",
        ])
    };
    assert_ne!(csv("alpha"), csv("beta"));
    let out = shared.run(&["report", "--season", "1"]);
    assert!(!out.status.success(), "the default site has no moves");
    let bad = shared.run(&["--site", "no/such", "season", "list"]);
    assert_eq!(bad.status.code(), Some(2), "a site name with / is refused");
}

#[test]
fn two_sites_in_one_store_report_as_two_stores_sqlite() {
    two_sites_in_one_store(Backend::Sqlite);
}

#[test]
fn two_sites_in_one_store_report_as_two_stores_postgres() {
    two_sites_in_one_store(Backend::Postgres);
}

// ---- the daemon: two watched directories of two sites ----------------------

fn daemon_once(dir: &Path, db: &str, config_text: &str) {
    let config = dir.join("detect.toml");
    std::fs::write(&config, config_text).unwrap();
    let out = output_within(
        Command::new(BIN)
            .current_dir(dir)
            .args(["-v", "--db", db, "daemon", "--once", "--config"])
            .arg(&config)
            .env_remove("DETECT_DATABASE_URL")
            .env_remove("DETECT_SITE")
            .env_remove("RUST_LOG")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null()),
    );
    assert!(
        out.status.success(),
        "detect daemon --once failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A directory holding one log.
fn log_dir(dir: &Path, name: &str, log: &Path) -> PathBuf {
    let d = dir.join(name);
    std::fs::create_dir(&d).unwrap();
    std::fs::copy(log, d.join("moves.jsonl")).unwrap();
    d
}

fn daemon_sources_of_two_sites(backend: Backend) {
    let logs = logs();
    let shared = TestDb::new(backend);
    let dir = shared.dir.path();
    let reports = dir.join("reports");
    let mut sources = String::new();
    for (log, site) in logs.iter().zip(SITES) {
        let d = log_dir(dir, site, log);
        sources.push_str(&format!(
            "[[source]]\ndirectory = {}\nsite = {site:?}\n",
            toml_str(&d)
        ));
    }
    daemon_once(
        dir,
        &shared.url,
        &format!(
            "report_dir = {}\nseasons = [1]\nthreshold = 0.9\n{sources}",
            toml_str(&reports)
        ),
    );
    for (log, site) in logs.iter().zip(SITES) {
        let alone = TestDb::new(backend);
        let adir = alone.dir.path();
        let areports = adir.join("reports");
        let d = log_dir(adir, "logs", log);
        daemon_once(
            adir,
            &alone.url,
            &format!(
                "report_dir = {}\nseasons = [1]\nthreshold = 0.9\n[[source]]\ndirectory = {}\n",
                toml_str(&areports),
                toml_str(&d)
            ),
        );
        for file in ["season-1.json", "season-1.txt"] {
            let want = std::fs::read_to_string(areports.join(file)).expect("report of one store");
            let got = std::fs::read_to_string(reports.join(site).join(file))
                .unwrap_or_else(|e| panic!("the daemon's report of site {site}: {e}"));
            assert_eq!(
                normalise(&got, &shared.url),
                normalise(&want, &alone.url),
                "site {site}: the daemon's {file} differs from a store of its own"
            );
        }
    }
    assert!(
        !reports.join("season-1.json").exists(),
        "no source feeds the default site: it gets no report"
    );
}

#[test]
fn daemon_sources_of_two_sites_sqlite() {
    daemon_sources_of_two_sites(Backend::Sqlite);
}

#[test]
fn daemon_sources_of_two_sites_postgres() {
    daemon_sources_of_two_sites(Backend::Postgres);
}
