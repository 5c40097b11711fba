//! One pair reads the same on every surface: the same-IP figure that
//! `detect explain` prints (with its unit and whose time it counts) is the
//! one the text report's table (time and windows), the HTML report, and the
//! web's season, pair and account pages show.

use super::*;

/// The words after `same IP: ` on explain's "In short" line.
fn same_ip_of_explain(text: &str) -> String {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("In short: same IP: "))
        .unwrap_or_else(|| panic!("no summary line in explain:\n{text}"));
    line.trim().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_pair_reads_the_same_on_every_surface() {
    let db = TestDb::new(Backend::Sqlite);
    let log = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sample-season.jsonl");
    db.ok(&["ingest", log.to_str().unwrap()]);
    db.ok(&["scan", "--season", "1"]);
    let report: serde_json::Value =
        serde_json::from_str(&db.ok(&["report", "--season", "1", "--format", "json"])).unwrap();
    let first = &report["pairs"][0];
    let (a, b) = (
        first["account_a"].as_str().unwrap().to_owned(),
        first["account_b"].as_str().unwrap().to_owned(),
    );
    let words = same_ip_of_explain(&db.ok(&["explain", "--season", "1", &a, &b]));
    assert!(
        words.contains(" half-hour windows) of ") && words.ends_with("'s active time"),
        "{words}"
    );
    // The text report's row: the same time and windows.
    let (time, rest) = words.split_once(" (").unwrap();
    let windows = rest.split_once(' ').unwrap().0;
    let text = db.ok(&["report", "--season", "1"]);
    let sorted = [a.as_str().min(&b), a.as_str().max(&b)];
    let row = text
        .lines()
        .find(|l| l.split_whitespace().take(2).eq(sorted))
        .unwrap_or_else(|| panic!("no row of {a} and {b}:\n{text}"));
    assert!(
        row.contains(&format!(" {time} ({windows} windows) ")),
        "{row} lacks {time} ({windows} windows)"
    );
    // The HTML report: the pair's fold, and its evidence.
    let dir = db.dir.path().join("report");
    db.ok(&["report", "--season", "1", "--out", dir.to_str().unwrap()]);
    let page = std::fs::read_to_string(dir.join("index.html")).unwrap();
    let escaped = words.replace('\'', "&#39;");
    assert!(
        page.matches(&format!("same IP: {escaped}")).count() >= 2,
        "the report lacks {escaped:?}"
    );
    // The web: the season's table, the pair page, both accounts' pages.
    add_users(&db);
    let (_app, base) = serve(&db);
    let (_driver, driver_url) = chromedriver();
    let profile = tempfile::tempdir().unwrap();
    let c = browser(&driver_url, profile.path()).await;
    sign_in(&c, &base, "mo", "moderator-pass").await;
    for path in [
        "/season/1".to_owned(),
        format!("/pair/{a}/{b}?season=1"),
        format!("/account/{a}"),
        format!("/account/{b}"),
    ] {
        c.goto(&format!("{base}{path}")).await.unwrap();
        let text = text_of(&c, "body").await;
        assert!(text.contains(&words), "{path} lacks {words:?}:\n{text}");
    }
    c.close().await.unwrap();
}
