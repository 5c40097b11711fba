//! `detect backup` while the daemon's tick runs, and `detect check` on a
//! sound store and on one with a problem of each kind it looks for.

use super::{daemon, daemon_setup, sqlite_exec};
use crate::common::*;

#[test]
fn a_backup_taken_during_a_tick_checks_clean_and_reports_as_the_store_does() {
    let db = TestDb::new(Backend::Sqlite);
    let config = daemon_setup(&db, "");
    // Each step of the tick sleeps 2 s; the daemon says so at debug level.
    let mut daemon = daemon(
        &db,
        &config,
        &[
            ("DETECT_DAEMON_TEST_PAUSE_MS", "2000"),
            ("RUST_LOG", "info,detect_app::daemon=debug"),
        ],
    );
    // The tick's moves and its scan are committed (the first pause is
    // after the ingest, the second after the scan); its reports are not
    // written yet.
    daemon.wait_for_nth("test pause between steps", 2);
    let copy = db.dir.path().join("backup.db");
    let out = db.run(&["backup", copy.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !daemon.text().contains("tick finished"),
        "the backup must be taken during the tick:\n{}",
        daemon.text()
    );
    daemon.wait_for("tick finished");
    let log = daemon.text();
    let warnings = log.lines().filter(|l| l.contains("WARN"));
    assert!(
        warnings
            .filter(|l| !l.contains("DETECT_DAEMON_TEST_PAUSE_MS"))
            .count()
            == 0,
        "the backup disturbed the tick:\n{}",
        daemon.text()
    );

    let copy_url = format!("sqlite://{}", copy.display());
    let check = run_in(db.dir.path(), &copy_url, &["check"], None);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&check.stdout), "");

    let source = db.ok(&["report", "--season", "1"]);
    let copied = run_in(db.dir.path(), &copy_url, &["report", "--season", "1"], None);
    assert!(
        copied.status.success(),
        "{}",
        String::from_utf8_lossy(&copied.stderr)
    );
    assert!(source.contains("u0"), "an empty report:\n{source}");
    assert_eq!(String::from_utf8(copied.stdout).unwrap(), source);

    // A backup never overwrites.
    let again = db.run(&["backup", copy.to_str().unwrap()]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("name a new file"));
}

#[test]
fn backup_of_postgres_says_to_use_pg_dump() {
    let db = TestDb::new(Backend::Postgres);
    let out = db.run(&["backup", "copy.db"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("pg_dump --format=custom"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn check_names_each_problem_in_a_sentence() {
    for backend in [Backend::Sqlite, Backend::Postgres] {
        let db = TestDb::new(backend);
        db.ok(&["ingest", crate::daemon::support::SAMPLE]);
        db.ok(&["scan", "--season", "1"]);
        let out = db.run(&["check"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );

        // A scan claiming moves the site never had, a rescan whose base is
        // gone, and a migration from the future.
        let sql = [
            "UPDATE scans SET generation = 99 WHERE id = 1",
            "UPDATE scans SET base_scan = 77 WHERE id = 1",
        ];
        for s in sql {
            exec(backend, &db.url, s);
        }
        let out = db.run(&["check"]);
        assert_eq!(out.status.code(), Some(1));
        let stdout = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 2, "{stdout}");
        assert!(lines[0].starts_with("scan #1 of site default claims moves generation 99"));
        assert_eq!(lines[1], "scan #1 changes scan #77, which is gone.");
        assert!(String::from_utf8_lossy(&out.stderr).contains("2 problems"));

        let checksum = match backend {
            Backend::Sqlite => "x'00'",
            Backend::Postgres => "'\\x00'::bytea",
        };
        exec(
            backend,
            &db.url,
            &format!(
                "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
                 VALUES (99999, 'future', TRUE, {checksum}, 0)"
            ),
        );
        let out = db.run(&["check"]);
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            stdout,
            "migration 99999 is unknown to this version (a newer detect wrote this store).\n"
        );
    }
}

fn exec(backend: Backend, url: &str, sql: &str) {
    match backend {
        Backend::Sqlite => block_on(sqlite_exec(url, sql)),
        Backend::Postgres => pg_exec(url, sql),
    }
}
