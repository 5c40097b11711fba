//! The daemon pulls moves from a site's MySQL / MariaDB database,
//! incrementally: two batches, each move stored once, reports as
//! `report --input` on the same lines. Needs `DETECT_TEST_MYSQL_URL` (a
//! database the tests may create tables in; `bash .ci/run` starts MariaDB
//! and sets it) and fails loudly without it.

use crate::common::*;
use serde_json::Value;
use sqlx::Connection;
use std::path::Path;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/sample-season.jsonl");

fn mysql_url() -> String {
    std::env::var("DETECT_TEST_MYSQL_URL").unwrap_or_else(|_| {
        panic!(
            "DETECT_TEST_MYSQL_URL is not set: the MySQL source tests need a running MariaDB or MySQL \
             server (bash .ci/run starts one and sets it, e.g. mysql://detect:detect@127.0.0.1:3306/detect_test)"
        )
    })
}

/// Runs SQL statements on the test's MariaDB server.
fn my_exec(statements: &[String]) {
    block_on(async {
        let mut conn = sqlx::MySqlConnection::connect(&mysql_url())
            .await
            .unwrap_or_else(|e| panic!("cannot reach MariaDB at DETECT_TEST_MYSQL_URL: {e}"));
        for sql in statements {
            sqlx::query(sql)
                .execute(&mut conn)
                .await
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
        conn.close().await.ok();
    })
}

/// `INSERT`s of log lines into `table` (username, game, epoch and text
/// time, ip).
fn inserts(table: &str, lines: &[String]) -> Vec<String> {
    let q = |v: &Value| match v.as_str() {
        Some(s) => format!("'{}'", s.replace('\'', "''")),
        None => "NULL".to_owned(),
    };
    lines
        .chunks(1000)
        .map(|chunk| {
            let values: Vec<String> = chunk
                .iter()
                .map(|l| {
                    let v: Value = serde_json::from_str(l).unwrap();
                    let t = ingest::time::parse_time(v["timestamp_utc"].as_str().unwrap()).unwrap();
                    format!(
                        "({}, {}, {t}, {}, {})",
                        q(&v["username"]),
                        q(&v["game"]),
                        q(&v["timestamp_utc"]),
                        q(&v["ip"])
                    )
                })
                .collect();
            format!(
                "INSERT INTO {table} (username, game, ts, time_utc, ip) VALUES {}",
                values.join(",")
            )
        })
        .collect()
}

fn stored_moves(url: &str) -> i64 {
    block_on(async {
        let store = store::Store::open(url).await.unwrap();
        let n = store.move_count().await.unwrap();
        store.close().await;
        n
    })
}

/// The daemon's JSON report of season 1 has the pairs of `report --input`.
fn assert_report_matches(db: &TestDb, lines: &[String]) {
    let want = report_of_lines(db, lines);
    let got: Value = serde_json::from_str(
        &std::fs::read_to_string(db.dir.path().join("reports/season-1.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(got["summary"], want["summary"]);
    assert_eq!(got["cliques"], want["cliques"]);
    assert_eq!(got["pairs"], want["pairs"]);
}

fn mysql_source(store_backend: Backend, text_times: bool) {
    let store = TestDb::new(store_backend);
    let table = format!(
        "moves_{}_{}",
        std::process::id(),
        if text_times { "text" } else { "int" }
    );
    my_exec(&[
        format!("DROP TABLE IF EXISTS {table}"),
        format!(
            "CREATE TABLE {table} (id BIGINT AUTO_INCREMENT PRIMARY KEY, username VARCHAR(64), \
             game VARCHAR(64), ts BIGINT NOT NULL, time_utc VARCHAR(19) NOT NULL, ip VARCHAR(64))"
        ),
    ]);
    let timestamp = if text_times { "time_utc" } else { "ts" };
    let config = store.dir.path().join("detect.toml");
    std::fs::write(
        &config,
        format!(
            "report_dir = \"reports\"\nseasons = [1]\nip_key = \"site key\"\n\
             [[source]]\nname = \"site\"\nurl = {:?}\nkey = \"id\"\n\
             query = \"SELECT id, username, game, {timestamp} AS timestamp, ip FROM {table} WHERE id > ? ORDER BY id LIMIT 700\"\n",
            mysql_url()
        ),
    )
    .unwrap();
    let lines: Vec<String> = std::fs::read_to_string(SAMPLE)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let (first, second) = lines.split_at(2500);

    my_exec(&inserts(&table, first));
    let log = daemon_once(&store, &config);
    assert!(log.contains("source db:site: "), "{log}");
    assert_eq!(stored_moves(&store.url), moves_in(first));
    assert_report_matches(&store, first);

    my_exec(&inserts(&table, second));
    daemon_once(&store, &config);
    assert_eq!(stored_moves(&store.url), moves_in(&lines));
    assert_report_matches(&store, &lines);

    let log = daemon_once(&store, &config);
    assert!(log.contains("new_moves=0"), "{log}");
    assert_eq!(stored_moves(&store.url), moves_in(&lines));
    assert!(store.raw_ips_stored(Path::new(SAMPLE)).is_empty());
    my_exec(&[format!("DROP TABLE {table}")]);
}

#[test]
fn mysql_source_ingests_each_move_once_sqlite_store() {
    mysql_source(Backend::Sqlite, false);
}

#[test]
fn mysql_source_ingests_each_move_once_postgres_store() {
    mysql_source(Backend::Postgres, true);
}
