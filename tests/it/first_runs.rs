//! Parallel first runs on a brand-new store (issue 36, item 9: 17 of 32
//! failed with "while executing migration N: ... already exists"): the
//! migrations of a new store are applied once, whoever comes first, and
//! every run proceeds, on SQLite and on PostgreSQL.

use crate::common::*;
use std::process::{Command, Stdio};

const RUNS: usize = 24;

fn parallel_first_runs(backend: Backend) {
    let db = TestDb::new(backend);
    let log = db.dir.path().join("one.jsonl");
    std::fs::write(
        &log,
        "{\"username\": \"a\", \"game\": \"g\", \"timestamp\": 1430670540, \"ip\": \"10.0.0.1\"}\n",
    )
    .unwrap();
    let children: Vec<_> = (0..RUNS)
        .map(|i| {
            let mut cmd = Command::new(BIN);
            cmd.current_dir(db.dir.path()).arg("--db").arg(&db.url);
            if i % 2 == 0 {
                cmd.args(["ingest", log.to_str().unwrap()]);
            } else {
                cmd.args(["season", "list"]);
            }
            cmd.stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let failed: Vec<String> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .filter(|o| !o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {RUNS} failed:\n{}",
        failed.len(),
        failed.join("")
    );
    let out = db.ok(&["season", "list"]);
    assert!(!out.is_empty());
    block_on(async {
        let store = store::Store::open(&db.url).await.unwrap();
        assert_eq!(store.move_count().await.unwrap(), 1, "stored once");
        store.close().await;
    });
}

#[test]
fn parallel_first_runs_on_a_new_sqlite_store_all_succeed() {
    parallel_first_runs(Backend::Sqlite);
}

#[test]
fn parallel_first_runs_on_a_new_postgres_store_all_succeed() {
    parallel_first_runs(Backend::Postgres);
}
