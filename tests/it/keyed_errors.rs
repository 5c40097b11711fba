//! A keyed store never shows a raw address (issue 36, items 3 and 5: an
//! address in the time field printed `cannot read the time
//! "198.51.100.77"` on the terminal and in the daemon's WARN log). Every
//! kind of bad line of the bad-input corpus (tests/bad_input/cases.tsv) is
//! tried with an address placed in each of its fields, through
//! `detect ingest`, `detect ingest --skip-bad` and the daemon's watched
//! directory, on SQLite and on PostgreSQL.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Stdio;

const ADDRESS: &str = "198.51.100.77";
const KEY: &str = "a test key for keyed errors";

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_input")
}

/// The corpus files with their bad line's number (`None`: a file whose
/// header or stream is the problem).
fn cases() -> Vec<(String, Option<usize>)> {
    std::fs::read_to_string(corpus().join("cases.tsv"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_owned(), f[1].parse().ok())
        })
        .collect()
}

/// `line` with the address put in each of its fields in turn: a JSON
/// object's every value, a CSV record's every cell; a line that is
/// neither gets it before and after itself.
fn with_address_in_each_field(line: &[u8]) -> Vec<Vec<u8>> {
    if let Ok(serde_json::Value::Object(obj)) = serde_json::from_slice::<serde_json::Value>(line) {
        let mut keys: Vec<String> = obj.keys().cloned().collect();
        for k in ["username", "game", "timestamp", "timestamp_utc", "ip"] {
            if !keys.iter().any(|x| x == k) {
                keys.push(k.to_owned());
            }
        }
        return keys
            .into_iter()
            .map(|k| {
                let mut o = obj.clone();
                o.insert(k, ADDRESS.into());
                serde_json::to_vec(&o).unwrap()
            })
            .collect();
    }
    let text = String::from_utf8_lossy(line);
    if !text.starts_with('{') && text.contains(',') {
        let cells: Vec<&str> = text.split(',').collect();
        return (0..cells.len())
            .map(|i| {
                let mut c: Vec<String> = cells.iter().map(|s| s.to_string()).collect();
                c[i] = format!("{ADDRESS}:{}", 40000 + i);
                c.join(",").into_bytes()
            })
            .collect();
    }
    vec![
        [ADDRESS.as_bytes(), line].concat(),
        [line, ADDRESS.as_bytes()].concat(),
        [
            line,
            b" ",
            ADDRESS.as_bytes(),
            b" {\"ip\": \"::ffff:",
            ADDRESS.as_bytes(),
            b"\"}",
        ]
        .concat(),
    ]
}

/// Every variant of every case, written as files into `dir`; their paths.
fn variants(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for (file, line) in cases() {
        let bytes = std::fs::read(corpus().join(&file)).unwrap();
        if file.ends_with(".gz") {
            continue; // a broken stream: no line to place an address in
        }
        let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        let targets: Vec<usize> = match line {
            Some(n) => vec![n - 1],
            None => (0..lines.len()).filter(|&i| !lines[i].is_empty()).collect(),
        };
        for t in targets {
            for (k, variant) in with_address_in_each_field(lines[t]).into_iter().enumerate() {
                let mut ls: Vec<Vec<u8>> = lines.iter().map(|l| l.to_vec()).collect();
                ls[t] = variant;
                let path = dir.join(format!("{t}-{k}-{file}"));
                std::fs::write(&path, ls.join(&b'\n')).unwrap();
                out.push(path);
            }
        }
    }
    out
}

fn keyed_store(backend: Backend) -> TestDb {
    let db = TestDb::new(backend);
    let seed = db.dir.path().join("seed.jsonl");
    std::fs::write(
        &seed,
        "{\"username\": \"s\", \"game\": \"g\", \"timestamp\": 1430670540, \"ip\": \"10.9.9.9\"}\n",
    )
    .unwrap();
    db.ok_env(
        &["ingest", seed.to_str().unwrap()],
        &[("DETECT_IP_KEY", KEY)],
    );
    db
}

fn no_address(what: &str, text: &str, failures: &mut Vec<String>) {
    if text.contains(ADDRESS) {
        failures.push(format!("{what}: {text}"));
    }
}

fn the_cli_never_shows_an_address(backend: Backend) {
    let scratch = tempfile::tempdir().unwrap();
    let files = variants(scratch.path());
    assert!(files.len() > 150, "{} variants", files.len());
    // A few keyed stores, each ingesting its share of the variants one
    // after the other (see `each_case`).
    let shares: Vec<&[PathBuf]> = files.chunks(files.len().div_ceil(4)).collect();
    let failures: Vec<String> = each_case(&shares, |share| {
        let db = keyed_store(backend);
        let mut failures = Vec::new();
        for path in share.iter() {
            let p = path.to_str().unwrap();
            for args in [vec!["ingest", p], vec!["ingest", "--skip-bad", p]] {
                let out = db.run_env(&args, &[("DETECT_IP_KEY", KEY)]);
                let shown = format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                no_address(&format!("{backend:?} {args:?}"), &shown, &mut failures);
            }
        }
        failures
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_keyed_sqlite_store_never_shows_an_address_of_a_bad_line() {
    the_cli_never_shows_an_address(Backend::Sqlite);
}

#[test]
fn a_keyed_postgres_store_never_shows_an_address_of_a_bad_line() {
    the_cli_never_shows_an_address(Backend::Postgres);
}

/// The daemon reads the same files from a watched directory: its log (at
/// -v, warnings and info) shows no address either.
#[test]
fn the_daemon_of_a_keyed_store_never_logs_an_address_of_a_bad_line() {
    let db = keyed_store(Backend::Sqlite);
    let dir = db.dir.path();
    let logs = dir.join("logs");
    std::fs::create_dir(&logs).unwrap();
    let count = variants(&logs).len();
    let config = dir.join("detect.toml");
    std::fs::write(
        &config,
        format!(
            "report_dir = {:?}\nseasons = \"current\"\nip_key = {KEY:?}\n[schedule]\nscan = \"0 0 * * * *\"\n\
             [[source]]\ndirectory = {:?}\n",
            dir.join("reports").to_str().unwrap(),
            logs.to_str().unwrap()
        ),
    )
    .unwrap();
    let out = output_within(
        std::process::Command::new(BIN)
            .current_dir(dir)
            .args(["-v", "--db", &db.url, "daemon", "--config"])
            .arg(&config)
            .arg("--once")
            .env_remove("RUST_LOG")
            .env_remove("DETECT_DATABASE_URL")
            .env_remove("DETECT_IP_KEY")
            .stdin(Stdio::null()),
    );
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(log.matches("WARN").count() >= count / 2, "{log}");
    let mut failures = Vec::new();
    for line in log.lines() {
        no_address("daemon log", line, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A site database read by the daemon into a keyed store: a row whose time
/// holds an address and a row whose IP is no address are skipped with
/// warnings that show no address; spellings of an address are stored in
/// its one normal form, as the log readers store them.
#[test]
fn a_site_database_row_shows_no_address_and_is_stored_in_normal_form() {
    let site = TestDb::new(Backend::Postgres);
    pg_exec(
        &site.url,
        "CREATE TABLE moves (id serial PRIMARY KEY, username text, game text, time text, ip text)",
    );
    pg_exec(
        &site.url,
        "INSERT INTO moves (username, game, time, ip) VALUES \
         ('porty', 'g', '2015-05-03 16:00:00', '198.51.100.8:443'), \
         ('mapped', 'g', '2015-05-03 16:01:00', '::ffff:198.51.100.9'), \
         ('spaced', 'g', '2015-05-03 16:02:00', ' 198.51.100.10 '), \
         ('badtime', 'g', '198.51.100.77', '10.0.0.1'), \
         ('badip', 'g', '2015-05-03 16:03:00', 'unknown')",
    );
    let db = keyed_store(Backend::Sqlite);
    let dir = db.dir.path();
    let config = dir.join("detect.toml");
    std::fs::write(
        &config,
        format!(
            "report_dir = {:?}\nseasons = \"current\"\nip_key = {KEY:?}\n[schedule]\nscan = \"0 0 * * * *\"\n\
             [[source]]\nurl = {:?}\nkey = \"id\"\n\
             query = \"SELECT id, username, game, time AS timestamp, ip FROM moves WHERE id > $1 ORDER BY id\"\n",
            dir.join("reports").to_str().unwrap(),
            site.url
        ),
    )
    .unwrap();
    let out = output_within(
        std::process::Command::new(BIN)
            .current_dir(dir)
            .args(["-v", "--db", &db.url, "daemon", "--config"])
            .arg(&config)
            .arg("--once")
            .env_remove("RUST_LOG")
            .env_remove("DETECT_DATABASE_URL")
            .env_remove("DETECT_IP_KEY")
            .stdin(Stdio::null()),
    );
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    // Unreadable rows are the tick's problem: the exit says so.
    assert!(
        log.contains("3 new moves, 0 skipped (no username or ip), 2 unreadable"),
        "{log}"
    );
    assert_eq!(log.matches("a row is skipped").count(), 2, "{log}");
    assert!(log.contains("the ip is not an IP address"), "{log}");
    assert!(!log.contains("198.51.100."), "{log}");
    for (address, account) in [
        ("198.51.100.8", "porty"),
        ("198.51.100.9", "mapped"),
        ("198.51.100.10", "spaced"),
    ] {
        let found = db.ok_env(
            &["ip", "lookup", address, "--actor", "test"],
            &[("DETECT_IP_KEY", KEY)],
        );
        assert!(found.contains(account), "{address}: {found}");
    }
}
