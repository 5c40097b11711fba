//! The steps of a moderator's day in `moderators_work_in_a_real_browser`.

use super::*;
use url::Url;

/// The moderator, the viewer and the admin, each with a password.
pub fn add_users(db: &TestDb) {
    for (name, role, password) in [
        ("mo", "moderator", "moderator-pass"),
        ("vi", "viewer", "viewer-pass-1"),
        ("ad", "admin", "admin-pass-12"),
    ] {
        let out = db.run_stdin(
            &["user", "add", name, "--role", role],
            format!("{password}\n").as_bytes(),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Without sign-in, a page sends the browser to the sign-in page.
pub async fn signed_out_goes_to_sign_in(c: &Client, base: &str) {
    c.goto(&format!("{base}/season/1")).await.unwrap();
    let url = c.current_url().await.unwrap();
    assert_eq!(url.path(), "/login", "{url}");
    assert_eq!(url.query(), Some("next=%2Fseason%2F1"));
}

/// A moderator opens the season, then the hostile clique; returns its page's address.
pub async fn open_hostile_clique(c: &Client, ips: &[String]) -> Url {
    c.find(Locator::LinkText("Season 1"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.wait().for_element(Locator::Id("cliques")).await.unwrap();
    let scan = text_of(c, "#scan").await;
    assert!(
        scan.contains("reference mode") && !scan.contains("calibrated"),
        "{scan}"
    );
    let cliques = text_of(c, "#cliques").await;
    assert!(
        cliques.contains(HOSTILE_A) && cliques.contains(HOSTILE_B),
        "{cliques}"
    );
    assert_clean(c, ips, false).await;
    let rows = c.find_all(Locator::Css("#cliques tr")).await.unwrap();
    let mut hostile_row = None;
    for r in rows {
        if r.text().await.unwrap().contains(HOSTILE_A) {
            hostile_row = Some(r);
        }
    }
    let link = hostile_row
        .unwrap()
        .find(Locator::Css("a.clique-link"))
        .await
        .unwrap();
    link.click().await.unwrap();
    c.wait()
        .for_element(Locator::Css("#timeline svg"))
        .await
        .unwrap();
    let clique_url = c.current_url().await.unwrap();
    assert!(clique_url.path().starts_with("/clique/1/"), "{clique_url}");
    let members = text_of(c, "#members").await;
    assert!(
        members.contains(HOSTILE_A) && members.contains(HOSTILE_B),
        "{members}"
    );
    clique_url
}

/// The timeline: inline, wide enough at 1400 px, names as SVG text, hover titles.
pub async fn timeline_is_drawn(c: &Client, ips: &[String]) {
    let svg = c.find(Locator::Css("#timeline svg")).await.unwrap();
    let (_, _, width, height) = svg.rectangle().await.unwrap();
    assert!(
        width >= 1200.0 && height >= 200.0,
        "timeline drawn {width} x {height}"
    );
    let svg_text = c
        .execute(
            "return document.querySelector('#timeline svg').textContent",
            vec![],
        )
        .await
        .unwrap();
    let svg_text = svg_text.as_str().unwrap();
    assert!(
        svg_text.contains(HOSTILE_A) && svg_text.contains(HOSTILE_B),
        "{svg_text}"
    );
    let titles = c
        .execute(
            "return document.querySelectorAll('#timeline svg title').length",
            vec![],
        )
        .await
        .unwrap();
    assert!(titles.as_u64().unwrap() > 10, "hover titles: {titles}");
    // The key's star and band are drawn on the buckets that weighed most.
    let stars = c
        .execute(
            "return document.querySelectorAll('#timeline svg .highlight').length",
            vec![],
        )
        .await
        .unwrap();
    assert!(stars.as_u64().unwrap() > 0, "stars: {stars}");
    assert!(svg_text.contains("weighed most"));
    // Above it, the days played, as in the report.
    let overview = c
        .execute(
            "return document.querySelectorAll('#overview svg.overview').length",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(overview, serde_json::json!(1));
    assert_clean(c, ips, false).await;
}

/// The README's picture, when DETECT_TEST_SCREENSHOT names a file: the first clique, plain names.
pub async fn screenshot_if_asked(c: &Client, base: &str, clique_url: &Url) {
    if let Ok(path) = std::env::var("DETECT_TEST_SCREENSHOT") {
        // The README's picture: the first clique, plain names.
        c.goto(&format!("{base}/clique/1/1")).await.unwrap();
        c.wait()
            .for_element(Locator::Css("#timeline svg"))
            .await
            .unwrap();
        std::fs::write(&path, c.screenshot().await.unwrap()).unwrap();
        c.goto(clique_url.as_str()).await.unwrap();
        c.wait()
            .for_element(Locator::Id("verdict-kind"))
            .await
            .unwrap();
    }
}

/// A household verdict on the whole clique, then seen in its pair's history.
pub async fn record_household_verdict(c: &Client, ips: &[String]) {
    choose(c, "verdict-kind", "household").await;
    fill(c, "verdict-note", "siblings <i>& co</i>").await;
    click(c, "record-verdict").await;
    c.wait().for_element(Locator::Id("verdicts")).await.unwrap();
    c.find(Locator::Css("#clique-pairs a.evidence-link"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.wait().for_element(Locator::Id("evidence")).await.unwrap();
    assert!(c.current_url().await.unwrap().path().starts_with("/pair/"));
    let history = text_of(c, "#verdicts").await;
    for part in ["different people: household", "siblings <i>& co</i>", "mo"] {
        assert!(
            history.contains(part),
            "pair history lacks {part:?}: {history}"
        );
    }
    let evidence = text_of(c, "#evidence").await;
    assert!(
        evidence.contains(HOSTILE_A) && evidence.contains("IP-1"),
        "{evidence}"
    );
    assert_clean(c, ips, false).await;
}

/// The season now lists the pair among known relationships, not flags.
pub async fn known_not_flagged(c: &Client, base: &str) {
    c.goto(&format!("{base}/season/1")).await.unwrap();
    let known = text_of(c, "#known").await;
    assert!(
        known.contains(HOSTILE_A) && known.contains("household"),
        "{known}"
    );
    assert!(!text_of(c, "#flagged").await.contains(HOSTILE_A));
}

/// A forged form without the CSRF token is refused.
pub async fn forged_form_refused(c: &Client) {
    forge(
        c,
        serde_json::json!({"season": "1", "clique": "1", "kind": "same-person"}),
    )
    .await;
    assert!(text_of(c, "h1").await.starts_with("403"));
    assert!(text_of(c, "#error-message")
        .await
        .contains("security token"));
}

/// The account page ("find alts of X") of a hostile name.
pub async fn account_page(c: &Client, base: &str, ips: &[String]) {
    c.goto(&format!("{base}/")).await.unwrap();
    let search = c.find(Locator::Css("input[name=name]")).await.unwrap();
    search.send_keys(HOSTILE_B).await.unwrap();
    search.send_keys("\u{E007}").await.unwrap(); // Enter
    c.wait().for_element(Locator::Id("links")).await.unwrap();
    let links = text_of(c, "#links").await;
    assert!(links.contains(HOSTILE_A), "{links}");
    assert!(text_of(c, "h1").await.contains(HOSTILE_B));
    assert_clean(c, ips, false).await;
}

/// A viewer reads but cannot record a verdict, even with the right token, nor read the audit log.
pub async fn viewer_cannot_record(c: &Client, base: &str, clique_url: &Url, ips: &[String]) {
    sign_in(c, base, "vi", "viewer-pass-1").await;
    c.goto(clique_url.as_str()).await.unwrap();
    c.wait().for_element(Locator::Id("timeline")).await.unwrap();
    assert!(
        c.find(Locator::Id("verdict-form")).await.is_err(),
        "a viewer sees a verdict form"
    );
    assert_clean(c, ips, false).await;
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
        serde_json::json!({"csrf": csrf, "season": "1", "clique": "1", "kind": "same-person"}),
    )
    .await;
    assert!(text_of(c, "h1").await.starts_with("403"));
    assert!(text_of(c, "#error-message").await.contains("moderator"));
    c.goto(&format!("{base}/audit")).await.unwrap();
    assert!(
        text_of(c, "h1").await.starts_with("403"),
        "a viewer reads the audit log"
    );
    sign_out(c, base).await;
}

/// The admin reads the audit log: every evidence view, with its viewer.
pub async fn admin_reads_audit(c: &Client, base: &str, ips: &[String]) {
    sign_in(c, base, "ad", "admin-pass-12").await;
    c.goto(&format!("{base}/audit?by=mo")).await.unwrap();
    let audit = text_of(c, "#audit").await;
    for action in [
        "sign-in",
        "view-clique",
        "view-pair",
        "view-account",
        "verdict",
    ] {
        assert!(
            audit.contains(action),
            "the audit log lacks {action}: {audit}"
        );
    }
    assert!(audit.contains(HOSTILE_B));
    assert_clean(c, ips, true).await;
}

/// An improved scan says so, and what its similarities mean, by the model
/// it scored with (a site's file here, not the shipped one), on the season
/// page and in a pair's evidence.
pub async fn improved_scan_says_so(db: &TestDb, c: &Client, base: &str) {
    let shipped = scoring::improved::Model::shipped();
    let mut file: serde_json::Value = serde_json::from_str(&shipped.to_json()).unwrap();
    file["name"] = "site model".into();
    let file = file.to_string();
    std::fs::write(db.dir.path().join("site.json"), &file).unwrap();
    db.ok(&[
        "scan",
        "--season",
        "1",
        "--mode",
        "improved",
        "--model",
        "site.json",
    ]);
    c.goto(&format!("{base}/season/1")).await.unwrap();
    let scan = text_of(c, "#scan").await;
    assert!(scan.contains("improved mode"), "{scan}");
    let model = scoring::improved::Model::from_json(&file).unwrap();
    assert!(
        scan.contains(&scoring::improved::score_words(&model)),
        "{scan}"
    );
    let mut pair = Url::parse(base).unwrap();
    pair.path_segments_mut()
        .unwrap()
        .extend(["pair", HOSTILE_A, HOSTILE_B]);
    pair.set_query(Some("season=1"));
    c.goto(pair.as_str()).await.unwrap();
    c.wait().for_element(Locator::Id("evidence")).await.unwrap();
    let evidence = text_of(c, "#evidence").await;
    assert!(
        evidence.contains("probability (site model)") && !evidence.contains(shipped.name()),
        "{evidence}"
    );
}

/// Only the one household verdict was stored, on the whole clique.
pub async fn one_household_verdict_stored(db: &TestDb) {
    let store = store::Store::open(&db.url).await.unwrap();
    let verdicts = store.verdicts().await.unwrap();
    assert_eq!(verdicts.len(), 1, "{verdicts:?}");
    assert_eq!(verdicts[0].kind.as_str(), "household");
    assert_eq!(verdicts[0].accounts, [HOSTILE_A, HOSTILE_B]);
    assert_eq!(verdicts[0].by, "mo");
    store.close().await;
}

/// Signing in from a sign-in page whose `next` leads off the site ends on
/// the site (`/login?next=/%09/evil.example/phish` ended at
/// http://evil.example/phish: Chromium drops the tab and reads `//`).
pub async fn hostile_next_stays_on_the_site(c: &Client, base: &str) {
    c.goto(&format!("{base}/login?next=/%09/evil.example/phish"))
        .await
        .unwrap();
    fill(c, "name", "mo").await;
    fill(c, "password", "moderator-pass").await;
    click(c, "sign-in").await;
    c.wait().for_element(Locator::Id("sign-out")).await.unwrap();
    let url = c.current_url().await.unwrap();
    assert_eq!(url.host_str(), Some("127.0.0.1"), "{url}");
    assert_eq!(url.path(), "/", "{url}");
    sign_out(c, base).await;
}
