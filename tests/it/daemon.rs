//! `detect daemon`, end to end through the binary: incremental ingest from a
//! watched directory and from the site's own PostgreSQL database (each move
//! exactly once, on an SQLite and a PostgreSQL store), a daemon killed in
//! the middle of a tick and restarted, ticks that never overlap and a clean
//! SIGTERM; segments held from one tick to the next (`daemon/held.rs`).
//! Bad configurations are in `daemon_config.rs`.
//!
//! Slow ticks come from `DETECT_DAEMON_TEST_PAUSE_MS`, which makes the
//! daemon sleep inside each ingest transaction and between the steps of a
//! tick.

mod held;
mod idle;
pub(crate) mod support;

use crate::common::*;
use serde_json::Value;
use support::*;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

// ---- 1. incremental ingest: a watched directory ---------------------------

fn directory_source(backend: Backend) {
    let store = TestDb::new(backend);
    let dir = store.dir.path();
    let logs = dir.join("logs");
    let reports = dir.join("reports");
    std::fs::create_dir(&logs).unwrap();
    let (config, cli_db) = directory_config(&store, backend, &logs, &reports);
    let lines = sample();
    let (first, second, third) = (&lines[..2000], &lines[2000..4000], &lines[4000..]);
    std::fs::write(logs.join("a.jsonl"), first.join("\n") + "\n").unwrap();
    std::fs::write(logs.join("notes.txt"), "not a log").unwrap();

    let log = once_ok(dir, &cli_db, &config);
    assert!(log.contains("season 1: "), "{log}");
    assert!(log.contains("newly flagged"), "{log}");
    assert_eq!(store_state(&store.url, &[], dir).moves, moves_in(first));
    assert_report_matches(&store, &reports, first);

    // The file grows.
    let mut grown = first.to_vec();
    grown.extend_from_slice(second);
    std::fs::write(logs.join("a.jsonl"), grown.join("\n") + "\n").unwrap();
    once_ok(dir, &cli_db, &config);
    assert_eq!(store_state(&store.url, &[], dir).moves, moves_in(&grown));
    assert_report_matches(&store, &reports, &grown);

    // A second file, and a bad one: the bad one is named, nothing of it is
    // stored, the rest of the tick goes on, and --once says so by its exit.
    std::fs::write(logs.join("b.jsonl"), third.join("\n") + "\n").unwrap();
    std::fs::write(
        logs.join("c.jsonl"),
        format!(
            "{}\n{{\"username\": \"x\", \"timestamp\": \"soon\", \"ip\": \"1\"}}\n",
            lines[0]
        ),
    )
    .unwrap();
    let out = once(dir, &cli_db, &config);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "a bad file must make --once fail:\n{stderr}"
    );
    assert!(
        stderr.contains("c.jsonl, line 2: cannot read the time"),
        "{stderr}"
    );
    assert_eq!(store_state(&store.url, &[], dir).moves, moves_in(&lines));
    assert_report_matches(&store, &reports, &lines);

    // Without the bad file, a tick stores nothing new and succeeds.
    std::fs::remove_file(logs.join("c.jsonl")).unwrap();
    let log = once_ok(dir, &cli_db, &config);
    assert!(log.contains("new_moves=0"), "{log}");
    assert!(log.contains("(unchanged)"), "{log}");
    // What was flagged before is read back from the stored scan: nothing
    // is newly flagged by a tick that changed nothing.
    assert!(!log.contains("newly flagged"), "{log}");
    assert_eq!(store_state(&store.url, &[], dir).moves, moves_in(&lines));
    assert!(
        !dir.join("ignored.db").exists(),
        "--db must yield to the configuration"
    );
}

/// The configuration of a watched directory, and the --db given beside
/// it: on PostgreSQL the configuration names the store and wins over --db;
/// on SQLite it names none and --db applies.
fn directory_config(
    store: &TestDb,
    backend: Backend,
    logs: &Path,
    reports: &Path,
) -> (PathBuf, String) {
    let (database, cli_db) = match backend {
        Backend::Postgres => (
            format!("database = {:?}\n", store.url),
            "sqlite://ignored.db".to_owned(),
        ),
        Backend::Sqlite => (String::new(), store.url.clone()),
    };
    let config = write_config(
        store.dir.path(),
        &format!(
            "{database}report_dir = {}\nseasons = \"current\"\n[schedule]\nscan = \"0 0 * * * *\"\n\
             [[source]]\ndirectory = {}\nfiles = '\\.jsonl$'\n",
            toml_str(reports),
            toml_str(logs)
        ),
    );
    (config, cli_db)
}

#[test]
fn directory_source_ingests_each_move_once_sqlite() {
    directory_source(Backend::Sqlite);
}

#[test]
fn directory_source_ingests_each_move_once_postgres() {
    directory_source(Backend::Postgres);
}

// ---- 1. incremental ingest: the site's PostgreSQL database -----------------

/// Inserts log lines as rows of the site's `moves` table.
fn insert_rows(site: &str, lines: &[String]) {
    let q = |v: &Value| match v.as_str() {
        Some(s) => format!("'{}'", s.replace('\'', "''")),
        None => "NULL".to_owned(),
    };
    for chunk in lines.chunks(1000) {
        let values: Vec<String> = chunk
            .iter()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                format!(
                    "({}, {}, '{}+00', {})",
                    q(&v["username"]),
                    q(&v["game"]),
                    v["timestamp_utc"].as_str().unwrap(),
                    q(&v["ip"])
                )
            })
            .collect();
        pg_exec(
            site,
            &format!(
                "INSERT INTO moves (username, game, time, ip) VALUES {}",
                values.join(",")
            ),
        );
    }
}

fn site_database_source(store_backend: Backend, text_times: bool) {
    let site = TestDb::new(Backend::Postgres);
    pg_exec(
        &site.url,
        "CREATE TABLE moves (id serial PRIMARY KEY, username text, game text, time timestamptz NOT NULL, ip text)",
    );
    let store = TestDb::new(store_backend);
    let dir = store.dir.path();
    let reports = dir.join("reports");
    let timestamp = if text_times {
        "to_char(time AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')"
    } else {
        "extract(epoch FROM time)::bigint"
    };
    let config = write_config(
        dir,
        &format!(
            "database = {:?}\nreport_dir = {}\nseasons = [1]\nthreshold = 0.9\n\
             [schedule]\ningest = \"0 */5 * * * *\"\nscan = \"0 0 * * * *\"\n\
             [[source]]\nurl = {:?}\nkey = \"id\"\n\
             query = \"SELECT id, username, game, {timestamp} AS timestamp, ip FROM moves WHERE id > $1 ORDER BY id LIMIT 700\"\n",
            store.url,
            toml_str(&reports),
            site.url
        ),
    );
    let lines = sample();
    // The last move of the first batch happens twice: the second row, same
    // account, game, second and IP, comes in the next batch. Both are moves.
    let mut first = lines[..2500].to_vec();
    let mut second = vec![first.last().unwrap().clone()];
    second.extend_from_slice(&lines[2500..]);
    // And a pair of identical rows straddling a page boundary (rows 700/701).
    first.insert(700, first[699].clone());

    insert_rows(&site.url, &first);
    let log = once_ok(dir, &store.url, &config);
    assert!(log.contains("season 1: "), "{log}");
    assert_eq!(store_state(&store.url, &[], dir).moves, moves_in(&first));
    assert_report_matches(&store, &reports, &first);

    insert_rows(&site.url, &second);
    let log = once_ok(dir, &store.url, &config);
    let mut all = first.clone();
    all.extend_from_slice(&second);
    assert_eq!(store_state(&store.url, &[], dir).moves, moves_in(&all));
    assert!(log.contains("(new)"), "the second tick must rescan:\n{log}");
    assert_report_matches(&store, &reports, &all);

    let log = once_ok(dir, &store.url, &config);
    assert!(log.contains("new_moves=0"), "{log}");
    assert_eq!(store_state(&store.url, &[], dir).moves, moves_in(&all));
    // Never an IP address at info level.
    assert!(
        !log.contains("100.64.") && !log.contains("10.2.0."),
        "{log}"
    );
}

#[test]
fn site_database_source_ingests_each_move_once_sqlite_store() {
    site_database_source(Backend::Sqlite, false);
}

#[test]
fn site_database_source_ingests_each_move_once_postgres_store() {
    site_database_source(Backend::Postgres, true);
}

// ---- 2. killed in the middle of a tick -----------------------------------

/// Kills a daemon tick after `kill_after` and checks the store; returns how
/// many of the three files were committed when it died.
fn kill_and_restart(backend: Backend, kill_after: Duration) -> usize {
    let store = TestDb::new(backend);
    let dir = store.dir.path();
    let logs = dir.join("logs");
    let reports = dir.join("reports");
    std::fs::create_dir(&logs).unwrap();
    let lines = sample();
    let parts = [&lines[..2000], &lines[2000..4000], &lines[4000..]];
    let names = ["1.jsonl", "2.jsonl", "3.jsonl"];
    for (name, part) in names.iter().zip(parts) {
        std::fs::write(logs.join(name), part.join("\n") + "\n").unwrap();
    }
    let config = write_config(
        dir,
        &format!(
            "report_dir = {}\n[schedule]\nscan = \"0 0 * * * *\"\n[[source]]\ndirectory = {}\n",
            toml_str(&reports),
            toml_str(&logs)
        ),
    );
    // Each file's transaction stays open 600 ms before its commit, and the
    // tick pauses 600 ms before the scan and before the report.
    let mut child = daemon_cmd(dir, &store.url, &config, &["--once"], Some(600))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the daemon");
    std::thread::sleep(kill_after);
    assert!(
        child.try_wait().unwrap().is_none(),
        "the tick ended before the kill at {kill_after:?}"
    );
    child.kill().expect("SIGKILL");
    child.wait().unwrap();

    // Consistent after the kill: a file's moves are stored if and only if its
    // mark is, and a scan is there whole or not at all (store_state checks).
    let after = store_state(&store.url, &names, &logs);
    let committed: i64 = names
        .iter()
        .zip(parts)
        .filter(|(n, _)| after.marked_files.contains(&n.to_string()))
        .map(|(_, p)| moves_in(p))
        .sum();
    assert_eq!(
        after.moves, committed,
        "killed at {kill_after:?}: moves and marks disagree"
    );
    if let Ok(text) = std::fs::read_to_string(reports.join("season-1.json")) {
        serde_json::from_str::<Value>(&text).expect("a report is whole or absent");
    }

    // The next tick completes the work: every move once, the full report.
    once_ok(dir, &store.url, &config);
    let done = store_state(&store.url, &names, &logs);
    assert_eq!(done.moves, moves_in(&lines));
    assert_eq!(done.marked_files.len(), 3);
    assert_report_matches(&store, &reports, &lines);
    after.marked_files.len()
}

#[test]
fn a_daemon_killed_mid_tick_restarts_consistently() {
    // Kill points: inside the first file's transaction, inside the second's,
    // before the scan, and between the scan and the report.
    let committed: Vec<usize> = [300, 1000, 2300, 2950]
        .into_iter()
        .map(|ms| kill_and_restart(Backend::Sqlite, Duration::from_millis(ms)))
        .collect();
    eprintln!("files committed when killed: {committed:?}");
    assert!(
        committed.iter().any(|&c| c > 0 && c < 3),
        "no kill landed between two files' commits ({committed:?}): the test proves nothing"
    );
    assert_eq!(committed[0], 0, "{committed:?}");
    // Once on PostgreSQL: the server rolls back the dead client's transaction.
    kill_and_restart(Backend::Postgres, Duration::from_millis(1000));
}

// ---- 3. ticks never overlap; SIGTERM ends the daemon cleanly ---------------

#[test]
fn ticks_never_overlap_and_sigterm_exits_cleanly() {
    let store = TestDb::new(Backend::Sqlite);
    let dir = store.dir.path();
    let logs = dir.join("logs");
    std::fs::create_dir(&logs).unwrap();
    let lines = sample();
    std::fs::write(logs.join("a.jsonl"), lines[..1500].join("\n") + "\n").unwrap();
    let config = write_config(
        dir,
        &format!(
            "report_dir = \"reports\"\n[schedule]\ningest = \"* * * * * *\"\nscan = \"* * * * * *\"\n\
             [[source]]\ndirectory = {}\n",
            toml_str(&logs)
        ),
    );
    let log_path = dir.join("daemon.log");
    let mut child = daemon_cmd(dir, &store.url, &config, &[], Some(1250))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log_path).unwrap())
        .spawn()
        .expect("start the daemon");
    std::thread::sleep(Duration::from_millis(5500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the daemon exited early"
    );
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill -TERM");
    assert!(kill.success());
    let status = wait_timeout(&mut child, Duration::from_secs(15)).unwrap_or_else(|| {
        child.kill().ok();
        panic!("the daemon did not stop within 15 s of SIGTERM")
    });
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert!(
        status.success(),
        "SIGTERM must exit 0, got {status}:\n{log}"
    );

    let (finished, skipped) = ticks_in_log(&log);
    assert!(finished >= 2, "{finished} ticks finished:\n{log}");
    assert!(skipped >= 1, "no tick was skipped:\n{log}");
    assert!(
        log.contains("SIGTERM received") && log.contains("daemon stopped"),
        "{log}"
    );
    assert_eq!(
        store_state(&store.url, &[], dir).moves,
        moves_in(&lines[..1500])
    );
    serde_json::from_str::<Value>(
        &std::fs::read_to_string(dir.join("reports/season-1.json")).unwrap(),
    )
    .expect("a whole report");
}

/// The ticks finished and skipped in the daemon's log, checking that no
/// tick started while another ran and that none was left unfinished.
fn ticks_in_log(log: &str) -> (usize, usize) {
    let mut open: Option<String> = None;
    let (mut finished, mut skipped) = (0, 0);
    for line in log.lines() {
        let tick = line
            .split_whitespace()
            .find(|w| w.starts_with("tick="))
            .map(str::to_owned);
        if line.contains("tick started") {
            assert!(open.is_none(), "a tick started while another ran:\n{log}");
            open = tick;
        } else if line.contains("tick finished") {
            assert_eq!(
                open.take(),
                tick,
                "a tick finished that was not running:\n{log}"
            );
            finished += 1;
        } else if line.contains("tick skipped: the previous tick is still running") {
            assert!(open.is_some(), "a tick was skipped while none ran:\n{log}");
            skipped += 1;
        }
    }
    assert!(
        open.is_none(),
        "the daemon exited in the middle of a tick:\n{log}"
    );
    (finished, skipped)
}

/// A site database's rows go through the same record rule as log lines: an
/// implausible time, an empty name or a blank IP skips that row (named by
/// its key), and the good rows around it are stored.
#[test]
fn site_database_rows_that_break_the_record_rule_are_skipped() {
    let site = TestDb::new(Backend::Postgres);
    pg_exec(
        &site.url,
        "CREATE TABLE moves (id serial PRIMARY KEY, username text, game text, time timestamptz NOT NULL, ip text)",
    );
    pg_exec(
        &site.url,
        "INSERT INTO moves (username, game, time, ip) VALUES \
         ('ann', '4pLeague_S1_G', '2015-05-03 10:00:00+00', '10.3.3.3'), \
         ('mallory', '4pLeague_S1_G', '9999-12-31 23:59:59+00', '10.3.3.3'), \
         ('', '4pLeague_S1_G', '2015-05-03 10:05:00+00', '10.3.3.3'), \
         ('mallory', '4pLeague_S1_G', '1970-01-01 00:00:05+00', '10.3.3.3'), \
         ('mallory', '4pLeague_S1_G', '2015-05-03 10:06:00+00', '   '), \
         ('ben', '4pLeague_S1_G', '2015-05-03 10:10:00+00', '10.3.3.3')",
    );
    let store = TestDb::new(Backend::Sqlite);
    let dir = store.dir.path();
    let config = write_config(
        dir,
        &format!(
            "report_dir = {}\nseasons = [1]\n[schedule]\nscan = \"0 0 * * * *\"\n\
             [[source]]\nurl = {:?}\nkey = \"id\"\n\
             query = \"SELECT id, username, game, extract(epoch FROM time)::bigint AS timestamp, ip FROM moves WHERE id > $1 ORDER BY id\"\n",
            toml_str(&dir.join("reports")),
            site.url
        ),
    );
    let out = once(dir, &store.url, &config);
    let log = String::from_utf8_lossy(&out.stderr);
    assert_eq!(store_state(&store.url, &[], dir).moves, 2, "{log}");
    assert_eq!(log.matches("a row is skipped").count(), 4, "{log}");
    for key in ["row=2", "row=3", "row=4", "row=5"] {
        assert!(log.contains(key), "{key}: {log}");
    }
    assert!(log.contains("outside the plausible range"), "{log}");
    assert!(log.contains("the username is empty"), "{log}");
}
