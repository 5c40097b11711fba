//! One numbering of identical moves, whatever the source: a log ingested as
//! a file, and the same log as the rows of a site's own database (SQLite)
//! read by the daemon in pages of 700 over two ticks, store the same moves,
//! identical ones included (a pair across a page boundary, a triple inside a
//! page, a pair across the two ticks), on a SQLite and a PostgreSQL store.

use crate::common::*;
use crate::daemon::support::*;
use serde_json::Value;
use sqlx::Connection;

/// The sample season with identical lines added: line 699 twice more (rows
/// 700-702 straddle the first page boundary), line 1200 once more, and line
/// 2499 once more (its copy is the first row of the second tick).
fn log_with_duplicates() -> Vec<String> {
    let mut out = Vec::new();
    for (i, l) in sample().into_iter().enumerate() {
        let copies = match i {
            699 => 3,
            1200 | 2499 => 2,
            _ => 1,
        };
        out.extend(std::iter::repeat_n(l, copies));
    }
    out
}

/// The site's `moves` table holding `lines`, in their order.
fn insert_rows(site_db: &str, lines: &[String]) {
    block_on(async {
        let mut conn = sqlx::SqliteConnection::connect(&format!("{site_db}?mode=rwc"))
            .await
            .unwrap();
        sqlx::query(
            "CREATE TABLE IF NOT EXISTS moves \
             (id INTEGER PRIMARY KEY, username TEXT, game TEXT, time TEXT, ip TEXT)",
        )
        .execute(&mut conn)
        .await
        .unwrap();
        let mut tx = conn.begin().await.unwrap();
        for l in lines {
            let v: Value = serde_json::from_str(l).unwrap();
            sqlx::query("INSERT INTO moves (username, game, time, ip) VALUES ($1, $2, $3, $4)")
                .bind(v["username"].as_str())
                .bind(v["game"].as_str())
                .bind(v["timestamp_utc"].as_str())
                .bind(v["ip"].as_str())
                .execute(&mut *tx)
                .await
                .unwrap();
        }
        tx.commit().await.unwrap();
        conn.close().await.unwrap();
    })
}

/// Every stored move of a store, sorted: identical moves appear as often as
/// they are stored.
fn stored_moves(url: &str) -> Vec<(String, String, i64, String)> {
    block_on(async {
        let store = store::Store::open(url).await.unwrap();
        let mut out = Vec::new();
        store
            .for_each_move(false, |m| {
                out.push((m.username, m.game, m.timestamp, m.ip));
            })
            .await
            .unwrap();
        store.close().await;
        out.sort();
        out
    })
}

#[test]
fn a_log_as_a_file_and_as_site_database_rows_stores_the_same_moves_sqlite() {
    file_and_site_rows_store_the_same_moves(Backend::Sqlite);
}

#[test]
fn a_log_as_a_file_and_as_site_database_rows_stores_the_same_moves_postgres() {
    file_and_site_rows_store_the_same_moves(Backend::Postgres);
}

/// The same log as a file and as a site's rows, each into a store of
/// `backend` (the site's own database is SQLite either way).
fn file_and_site_rows_store_the_same_moves(backend: Backend) {
    let lines = log_with_duplicates();
    let from_file = TestDb::new(backend);
    let log = from_file.dir.path().join("log.jsonl");
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    from_file.ok(&["ingest", log.to_str().unwrap()]);

    let from_site = TestDb::new(backend);
    let dir = from_site.dir.path();
    let site_db = format!("sqlite://{}", dir.join("site.db").display());
    let config = write_config(
        dir,
        &format!(
            "[[source]]\nurl = {site_db:?}\nkey = \"id\"\n\
             query = \"SELECT id, username, game, time AS timestamp, ip FROM moves \
             WHERE id > $1 ORDER BY id LIMIT 700\"\n"
        ),
    );
    let (first, second) = lines.split_at(2503);
    assert_eq!(first.last(), second.first(), "a pair across the ticks");
    insert_rows(&site_db, first);
    once_ok(dir, &from_site.url, &config);
    insert_rows(&site_db, second);
    once_ok(dir, &from_site.url, &config);

    let stored = stored_moves(&from_site.url);
    assert_eq!(stored.len() as i64, moves_in(&lines), "every row a move");
    assert_eq!(stored, stored_moves(&from_file.url));
    let twice = |i: usize| {
        let v: Value = serde_json::from_str(&sample()[i]).unwrap();
        let t = ingest::time::parse_time(v["timestamp_utc"].as_str().unwrap()).unwrap();
        let m = (
            v["username"].as_str().unwrap().to_owned(),
            v["game"].as_str().unwrap().to_owned(),
            t,
            v["ip"].as_str().unwrap().to_owned(),
        );
        stored.iter().filter(|s| **s == m).count()
    };
    assert_eq!((twice(699), twice(1200), twice(2499)), (3, 2, 2));
}
