//! The review in a real browser, on the sample season scanned at 0.98 (not
//! the default): the HTML report, the season page and the pair page show
//! one threshold and one count, before and after a verdict; the verdict
//! form has no default, confirms what it recorded and the pair page then
//! shows the verdict instead of "Flagged"; a viewer is told why there is no
//! form; find alts tells a typo from an account no pair names.

use super::*;

/// The sample season and one move of `loner`, who plays with nobody.
fn sample_world(dir: &std::path::Path) -> std::path::PathBuf {
    let sample =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sample-season.jsonl");
    let mut text = std::fs::read_to_string(sample).expect("sample season");
    text.push_str(
        "{\"username\": \"loner\", \"game\": \"casual_1\", \"timestamp_utc\": \"2015-05-10 00:00:00\", \"ip\": \"192.0.2.1\"}\n",
    );
    let path = dir.join("sample.jsonl");
    std::fs::write(&path, text).expect("write the world");
    path
}

async fn report_figures(c: &Client, dir: &std::path::Path) -> (String, String) {
    c.goto(&format!("file://{}", dir.join("index.html").display()))
        .await
        .unwrap();
    let threshold = c
        .execute(
            "const th = [...document.querySelectorAll('#summary th')].find(t => t.textContent === 'Threshold');
             return th.nextElementSibling.textContent;",
            vec![],
        )
        .await
        .unwrap();
    let count = text_of(c, "#contents a[href='#pairs']").await;
    (threshold.as_str().unwrap().to_owned(), count)
}

async fn season_figures(c: &Client, base: &str) -> (String, String, usize) {
    c.goto(&format!("{base}/season/1")).await.unwrap();
    let rows = c.find_all(Locator::Css("#flagged tr")).await.unwrap().len();
    (
        text_of(c, "#scan").await,
        text_of(c, "#flagged-heading").await,
        rows - 1,
    )
}

/// The report's and the season page's threshold and count, `flagged`
/// pairs at 0.98.
async fn one_threshold_one_count(c: &Client, base: &str, report: &std::path::Path, flagged: usize) {
    let (threshold, count) = report_figures(c, report).await;
    assert_eq!(threshold, "0.98");
    assert_eq!(count, format!("Flagged pairs ({flagged})"));
    let (scan, heading, rows) = season_figures(c, base).await;
    assert!(scan.contains("threshold 0.98;"), "{scan}");
    assert!(
        heading.contains(&format!("({flagged}; known relationships not counted)")),
        "{heading}"
    );
    assert_eq!(rows, flagged);
}

/// Sending the form without choosing is refused by the page and, forged,
/// by the server.
async fn no_default_verdict(c: &Client, pair_url: &str) {
    c.goto(pair_url).await.unwrap();
    let select = c.find(Locator::Id("verdict-kind")).await.unwrap();
    assert_eq!(select.prop("value").await.unwrap().as_deref(), Some(""));
    click(c, "record-verdict").await;
    let missing = c
        .execute(
            "return document.getElementById('verdict-kind').validity.valueMissing",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(missing, serde_json::json!(true));
    assert_eq!(
        c.current_url().await.unwrap().as_str(),
        pair_url,
        "not sent"
    );
    assert!(c.find(Locator::Id("recorded")).await.is_err());
    let csrf = c
        .find(Locator::Css("header input[name=csrf]"))
        .await
        .unwrap()
        .attr("value")
        .await
        .unwrap()
        .unwrap();
    forge(
        c,
        serde_json::json!({"csrf": csrf, "season": "1", "a": "u014", "b": "u036", "kind": ""}),
    )
    .await;
    assert!(text_of(c, "h1").await.starts_with("400"));
    assert!(text_of(c, "#error-message")
        .await
        .contains("Choose a verdict"));
}

/// A household verdict: confirmed, then shown instead of "Flagged".
async fn verdict_confirmed_and_shown(c: &Client, pair_url: &str) {
    c.goto(pair_url).await.unwrap();
    let status = text_of(c, "#pair-status").await;
    assert!(
        status.starts_with("Flagged: at or above the threshold 0.98"),
        "{status}"
    );
    choose(c, "verdict-kind", "household").await;
    click(c, "record-verdict").await;
    c.wait().for_element(Locator::Id("recorded")).await.unwrap();
    let recorded = text_of(c, "#recorded").await;
    assert!(
        recorded.starts_with("Verdict #1 recorded: different people: household, by mo"),
        "{recorded}"
    );
    let status = text_of(c, "#pair-status").await;
    assert!(
        status.starts_with("Verdict: different people: household (#1, by mo")
            && status.contains("at or above the threshold 0.98")
            && !status.contains("Flagged"),
        "{status}"
    );
    let red = c
        .execute(
            "return document.querySelectorAll('#pair-status .flag').length",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(red, serde_json::json!(0), "nothing red once judged");
}

/// Find alts: a name in another case or a prefix is a typo, with close
/// names; an account that moved but is in no pair says so.
async fn find_alts_tells_typos(c: &Client, base: &str) {
    c.goto(&format!("{base}/account/U014")).await.unwrap();
    assert!(text_of(c, "#no-account")
        .await
        .contains("No account named U014"));
    let suggestions = text_of(c, "#suggestions").await;
    assert!(
        suggestions.starts_with("Did you mean u014?"),
        "{suggestions}"
    );
    c.goto(&format!("{base}/account/u01")).await.unwrap();
    let suggestions = text_of(c, "#suggestions").await;
    assert!(
        suggestions.contains("u014") && suggestions.contains("u017"),
        "{suggestions}"
    );
    c.goto(&format!("{base}/account/nobody")).await.unwrap();
    assert!(c.find(Locator::Id("no-account")).await.is_ok());
    assert!(c.find(Locator::Id("suggestions")).await.is_err());
    assert!(c.find(Locator::Id("no-links")).await.is_err());
    c.goto(&format!("{base}/account/loner")).await.unwrap();
    assert!(c.find(Locator::Id("no-account")).await.is_err());
    assert!(text_of(c, "#no-links")
        .await
        .contains("it moved on this site"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_threshold_and_count_and_the_verdict_form() {
    let db = TestDb::new(Backend::Sqlite);
    let world = sample_world(db.dir.path());
    db.ok(&["ingest", world.to_str().unwrap()]);
    let scan = db.ok(&["scan", "--season", "1", "--threshold", "0.98"]);
    assert!(
        scan.contains(
            "6 flagged pairs (no known relationship among them), 3 cliques; threshold 0.98"
        ),
        "{scan}"
    );
    let report = db.dir.path().join("report");
    let report_s = report.to_str().unwrap();
    db.ok(&["report", "--season", "1", "--out", report_s]);
    add_users(&db);
    let (_app, base) = serve(&db);
    let (_driver, driver_url) = chromedriver();
    let profile = tempfile::tempdir().unwrap();
    let c = browser(&driver_url, profile.path()).await;
    sign_in(&c, &base, "mo", "moderator-pass").await;

    one_threshold_one_count(&c, &base, &report, 6).await;
    let pair_url = format!("{base}/pair/u014/u036?season=1");
    no_default_verdict(&c, &pair_url).await;
    verdict_confirmed_and_shown(&c, &pair_url).await;
    let rescan = db.ok(&["scan", "--season", "1", "--threshold", "0.98"]);
    assert!(
        rescan.contains("5 flagged pairs (1 known relationship not counted)"),
        "{rescan}"
    );
    db.ok(&["report", "--season", "1", "--out", report_s]);
    one_threshold_one_count(&c, &base, &report, 5).await;
    let known = text_of(&c, "#known-heading").await;
    assert_eq!(known, "Known relationships (1)");
    find_alts_tells_typos(&c, &base).await;
    // A correction from the command line: both rows in the pair's history.
    db.ok(&[
        "verdict",
        "set",
        "u014",
        "u036",
        "--as",
        "cleared",
        "--by",
        "bo",
        "--supersedes",
        "1",
        "--note",
        "not siblings after all",
    ]);
    c.goto(&pair_url).await.unwrap();
    let rows = c
        .find_all(Locator::Css("#verdicts tr"))
        .await
        .unwrap()
        .len();
    assert_eq!(rows, 3, "a header and both verdicts");
    let history = text_of(&c, "#verdicts").await;
    assert!(
        history.contains("(supersedes #1)") && history.contains("household"),
        "{history}"
    );
    assert!(text_of(&c, "#pair-status")
        .await
        .starts_with("Verdict: cleared (#2, by bo"));

    sign_out(&c, &base).await;
    sign_in(&c, &base, "vi", "viewer-pass-1").await;
    c.goto(&pair_url).await.unwrap();
    assert!(c.find(Locator::Id("verdict-form")).await.is_err());
    let why = text_of(&c, "#no-verdict-form").await;
    assert!(
        why.contains("viewer") && why.contains("moderators"),
        "{why}"
    );
    c.close().await.unwrap();
}
