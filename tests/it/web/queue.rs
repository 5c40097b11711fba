//! The review queue and the case file in a real browser: the queue's order,
//! filters and pages, the keyboard, "next" after a verdict, and a case file
//! that opens offline with no raw IP.

use super::*;
use url::Url;

/// The queue's rows on the page: (pair page address, status, score).
async fn rows(c: &Client) -> Vec<(String, String, f64)> {
    let got = c
        .execute(
            "return Array.from(document.querySelectorAll('tr.queue-row')).map(r => [
               r.querySelector('a.queue-open').getAttribute('href'),
               r.children[5].textContent, parseFloat(r.children[3].textContent)])",
            vec![],
        )
        .await
        .unwrap();
    serde_json::from_value(got).unwrap()
}

/// The `(a, b)` of a pair page's address.
fn pair_of(href: &str) -> (String, String) {
    let url = Url::parse("http://x").unwrap().join(href).unwrap();
    // Compared as the server encoded them (every character but letters
    // and digits), which the browser keeps.
    let parts: Vec<String> = url.path_segments().unwrap().map(str::to_owned).collect();
    (parts[1].clone(), parts[2].clone())
}

/// Waits (10 s at most) for the page of the pair `href` names.
async fn wait_for_pair(c: &Client, href: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let url = c.current_url().await.unwrap();
        if url.path().starts_with("/pair/") && pair_of(url.as_str()) == pair_of(href) {
            c.wait().for_element(Locator::Id("evidence")).await.unwrap();
            return;
        }
        assert!(Instant::now() < deadline, "still on {url}, not {href}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn key(c: &Client, k: &str) {
    c.find(Locator::Css("body"))
        .await
        .unwrap()
        .send_keys(k)
        .await
        .unwrap();
}

async fn goto_and_wait(c: &Client, url: &str, id: &str) {
    c.goto(url).await.unwrap();
    c.wait().for_element(Locator::Id(id)).await.unwrap();
}

/// Every flagged pair, most urgent first, across pages of 3 walked with the
/// keyboard; filters narrow it. Returns the whole list.
async fn queue_order_filters_pages(c: &Client, base: &str) -> Vec<(String, String, f64)> {
    c.goto(&format!("{base}/")).await.unwrap();
    click(c, "nav-queue").await;
    c.wait().for_element(Locator::Id("urgency")).await.unwrap();
    let all = rows(c).await;
    assert_eq!(all.len(), 7, "the sample season's 7 flagged pairs: {all:?}");
    assert!(all.iter().all(|r| r.1 == "open"), "{all:?}");
    assert!(
        all.windows(2).all(|w| w[0].2 >= w[1].2),
        "highest score first: {all:?}"
    );
    let urgency = text_of(c, "#urgency").await;
    assert!(
        urgency.contains("re-opened") && urgency.contains("score"),
        "{urgency}"
    );

    // Pages of 3, walked with "n": the same rows in the same order.
    goto_and_wait(c, &format!("{base}/queue?size=3"), "queue-count").await;
    let mut paged = rows(c).await;
    for page in 2..=3 {
        key(c, "n").await;
        c.wait()
            .for_element(Locator::Css(&format!("#queue-count[data-page='{page}']")))
            .await
            .unwrap();
        paged.extend(rows(c).await);
    }
    let same = |r: &Vec<(String, String, f64)>| {
        r.iter()
            .map(|(href, status, score)| (pair_of(href), status.clone(), *score))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        same(&paged),
        same(&all),
        "three pages of 3 hold the 7 in order"
    );
    assert!(text_of(c, "#queue-count").await.contains("7 to 7 of 7"));
    key(c, "p").await;
    c.wait()
        .for_element(Locator::Css("#queue-count[data-page='2']"))
        .await
        .unwrap();

    // Filters, in the form.
    let cut = all[3].2;
    goto_and_wait(c, &format!("{base}/queue"), "queue-filters").await;
    fill(c, "filter-score", &format!("{cut}")).await;
    click(c, "filter-apply").await;
    c.wait()
        .for_element(Locator::Id("queue-count"))
        .await
        .unwrap();
    let strong = rows(c).await;
    let want: Vec<_> = all.iter().filter(|r| r.2 >= cut).cloned().collect();
    assert_eq!(same(&strong), same(&want));
    assert!(c
        .current_url()
        .await
        .unwrap()
        .query()
        .unwrap()
        .contains("score="));
    goto_and_wait(c, &format!("{base}/queue?group=3"), "queue-count").await;
    let big = c
        .execute(
            "return Array.from(document.querySelectorAll('tr.queue-row')).map(r => r.children[4].textContent)",
            vec![],
        )
        .await
        .unwrap();
    let big: Vec<String> = serde_json::from_value(big).unwrap();
    assert!(!big.is_empty() && big.len() < 7, "{big:?}");
    assert!(
        big.iter()
            .all(|g| g.starts_with("clique") && !g.ends_with("of 2 accounts")),
        "{big:?}"
    );
    goto_and_wait(c, &format!("{base}/queue?season=2"), "queue-count").await;
    assert_eq!(text_of(c, "#queue-count").await, "No flag matches.");
    goto_and_wait(c, &format!("{base}/queue?status=judged"), "queue-count").await;
    assert!(rows(c).await.is_empty());
    goto_and_wait(c, &format!("{base}/queue?score=x"), "error-message").await;
    all
}

/// j j o opens the second flag; a verdict there lands on the third; the
/// judged one leaves "to review".
async fn next_after_a_verdict(
    c: &Client,
    base: &str,
    all: &[(String, String, f64)],
    ips: &[String],
) {
    goto_and_wait(c, &format!("{base}/queue?size=5"), "queue").await;
    key(c, "j").await;
    key(c, "j").await;
    let selected = c
        .execute(
            "return document.querySelector('tr.queue-row.selected a.queue-open').getAttribute('href')",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(pair_of(selected.as_str().unwrap()), pair_of(&all[1].0));
    key(c, "o").await;
    c.wait()
        .for_element(Locator::Id("queue-nav"))
        .await
        .unwrap();
    let here = c.current_url().await.unwrap();
    assert_eq!(pair_of(here.as_str()), pair_of(&all[1].0), "{here}");
    assert_clean_but_keys(c, ips).await;
    choose(c, "verdict-kind", "suspicious").await;
    fill(c, "verdict-note", "same hours as the other").await;
    click(c, "record-verdict").await;
    wait_for_pair(c, &all[2].0).await;
    let url = c.current_url().await.unwrap();
    assert!(
        url.query().unwrap().contains("queue=size%3D5"),
        "filters kept: {url}"
    );
    // "n" skips without a verdict.
    c.wait()
        .for_element(Locator::Id("queue-nav"))
        .await
        .unwrap();
    key(c, "n").await;
    wait_for_pair(c, &all[3].0).await;
    key(c, "u").await;
    c.wait().for_element(Locator::Id("queue")).await.unwrap();
    let left = rows(c).await;
    assert_eq!(left.len(), 5, "a page of 5 of the 6 left");
    assert!(left.iter().all(|r| pair_of(&r.0) != pair_of(&all[1].0)));
    goto_and_wait(c, &format!("{base}/queue?status=judged"), "queue").await;
    let judged = rows(c).await;
    assert_eq!(judged.len(), 1);
    assert_eq!(pair_of(&judged[0].0), pair_of(&all[1].0));
    assert_eq!(judged[0].1, "judged");
}

/// A verdict recorded from the queue when no flag is left after it lands
/// on the queue, which confirms it as the pair page does.
async fn confirmed_on_the_queue(c: &Client, base: &str, all: &[(String, String, f64)]) {
    // Between the two highest scores as shown (rounded): the top flag alone.
    assert!(all[0].2 > all[1].2, "{all:?}");
    let between = (all[0].2 + all[1].2) / 2.0;
    goto_and_wait(c, &format!("{base}/queue?score={between}"), "queue").await;
    let only = rows(c).await;
    assert_eq!(only.len(), 1, "the top flag alone: {only:?}");
    goto_and_wait(c, &format!("{base}{}", only[0].0), "queue-nav").await;
    choose(c, "verdict-kind", "household").await;
    fill(c, "verdict-note", "one flat").await;
    click(c, "record-verdict").await;
    c.wait().for_element(Locator::Id("recorded")).await.unwrap();
    let url = c.current_url().await.unwrap();
    assert_eq!(url.path(), "/queue", "{url}");
    let said = text_of(c, "#recorded").await;
    assert!(
        said.starts_with("Verdict #")
            && said.contains(" recorded: different people: household, by mo, on "),
        "{said}"
    );
    assert_eq!(text_of(c, "#queue-count").await, "No flag matches.");
    // The queue's own links do not carry the confirmation on.
    let carried = c
        .execute(
            "return Array.from(document.querySelectorAll('a')).some(a => (a.getAttribute('href') || '').includes('recorded='))",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(carried, false);
}

/// A pair page opened from the queue carries /keys.js and nothing else.
async fn assert_clean_but_keys(c: &Client, ips: &[String]) {
    let scripts = c
        .execute(
            "return Array.from(document.querySelectorAll('script')).map(s => s.getAttribute('src'))",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(scripts, serde_json::json!(["/keys.js"]));
    let source = c.source().await.unwrap();
    for ip in ips {
        assert!(!source.contains(ip.as_str()), "raw IP {ip}");
    }
}

/// GET `href` as the signed-in browser (its cookies), on loopback: the
/// status, the Content-Disposition header and the body. (A script in the
/// page could not: the content security policy allows it no request.)
async fn download(c: &Client, base: &str, href: &str) -> (u16, String, String) {
    use std::io::{Read, Write};
    let cookies: Vec<String> = c
        .get_all_cookies()
        .await
        .unwrap()
        .iter()
        .map(|k| format!("{}={}", k.name(), k.value()))
        .collect();
    let host = base.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(host).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET {href} HTTP/1.1\r\nHost: {host}\r\nCookie: {}\r\nConnection: close\r\n\r\n",
        cookies.join("; ")
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let disposition = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .starts_with("content-disposition:")
                .then(|| l[20..].trim().to_owned())
        })
        .unwrap_or_default();
    (status, disposition, body.to_owned())
}

/// The case file of a pair and of a clique: an attachment, which opened
/// from disk renders its evidence and timeline, loads nothing and holds no
/// raw IP.
async fn case_files_open_offline(
    c: &Client,
    db: &TestDb,
    base: &str,
    pair: &str,
    ips: &[String],
    dir: &std::path::Path,
) {
    let (a, b) = pair_of(pair);
    for (what, page, id) in [
        ("pair", pair, "evidence"),
        ("clique", "/clique/1/1", "members"),
    ] {
        goto_and_wait(c, &format!("{base}{page}"), id).await;
        let href = c
            .find(Locator::Id("export-case"))
            .await
            .unwrap()
            .attr("href")
            .await
            .unwrap()
            .unwrap();
        let (status, disposition, body) = download(c, base, &href).await;
        assert_eq!(status, 200, "{what}");
        assert!(
            disposition.starts_with("attachment; filename=\"case-season1-"),
            "{disposition}"
        );
        assert_case_file_self_contained(&format!("{what}'s case file"), &body, ips);
        let file = dir.join(format!("{what}-case.html"));
        std::fs::write(&file, &body).unwrap();
        same_as_the_command_line(db, what, (&a, &b), &body, dir);
        c.goto(&format!("file://{}", file.display())).await.unwrap();
        c.wait().for_element(Locator::Id("case")).await.unwrap();
        let seen = c
            .execute(
                "return [performance.getEntriesByType('resource').length,
                         document.querySelectorAll('#timeline > svg').length,
                         document.querySelectorAll('pre.evidence').length,
                         document.querySelectorAll('script').length,
                         getComputedStyle(document.querySelector('th')).backgroundColor,
                         document.querySelector('h1').textContent]",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(
            seen[0], 0,
            "the {what}'s case file loaded something: {seen}"
        );
        assert_eq!(seen[1], 1, "{seen}");
        assert!(seen[2].as_u64().unwrap() >= 1, "{seen}");
        assert_eq!(seen[3], 0, "{seen}");
        assert_eq!(
            seen[4], "rgb(238, 241, 244)",
            "the inline stylesheet applies"
        );
        if what == "pair" {
            let h1 = seen[5].as_str().unwrap();
            assert!(h1.contains(&a) && h1.contains(&b), "{h1}");
            let history = text_of(c, "#verdicts").await;
            assert!(
                history.contains("same hours as the other") && history.contains("mo"),
                "{history}"
            );
        }
    }
}

/// `detect case export` writes what the web served, but for who exported
/// it and when.
fn same_as_the_command_line(
    db: &TestDb,
    what: &str,
    (a, b): (&str, &str),
    web: &str,
    dir: &std::path::Path,
) {
    // The page's address encodes the names; the command takes them as
    // they are.
    let decoded = |s: &str| {
        url::form_urlencoded::parse(format!("x={s}").as_bytes())
            .next()
            .unwrap()
            .1
            .into_owned()
    };
    let (a, b) = (decoded(a), decoded(b));
    let out = dir.join(format!("{what}-cli.html"));
    let o = out.to_str().unwrap();
    let base = ["case", "export", "--season", "1", "--by", "mo", "--out", o];
    match what {
        "pair" => db.ok(&[&base[..], &["--", &a, &b]].concat()),
        _ => db.ok(&[&base[..], &["--clique", "1"]].concat()),
    };
    let cli = std::fs::read_to_string(&out).unwrap();
    let after = |html: &str| html.split_once("<h2>Accounts</h2>").unwrap().1.to_owned();
    assert!(after(web).contains("<pre class=\"evidence\">"));
    assert_eq!(after(&cli), after(web), "the {what}'s case file");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_review_queue_in_a_real_browser() {
    let db = TestDb::new(Backend::Sqlite);
    let (world, ips) = hostile_world(db.dir.path());
    db.ok(&["ingest", world.to_str().unwrap()]);
    db.ok(&["scan", "--season", "1"]);
    add_users(&db);
    let (_app, base) = serve(&db);
    let (_driver, driver_url) = chromedriver();
    let profile = tempfile::tempdir().unwrap();
    let c = browser(&driver_url, profile.path()).await;
    sign_in(&c, &base, "mo", "moderator-pass").await;
    let all = queue_order_filters_pages(&c, &base).await;
    next_after_a_verdict(&c, &base, &all, &ips).await;
    confirmed_on_the_queue(&c, &base, &all).await;
    let cases = tempfile::tempdir().unwrap();
    case_files_open_offline(&c, &db, &base, &all[1].0, &ips, cases.path()).await;
    c.close().await.unwrap();
}
