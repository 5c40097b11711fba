//! The HTML report in a real headless Chromium, at a wide (1400 px) and a
//! narrow (800 px) window: the pairs table never overflows, every flagged
//! pair's evidence is one link away and folded, the timelines keep their
//! tooltips (SVG documents, not images), and the demo's page is short and
//! small enough to review.

use crate::common::browser::Browser;
use crate::common::*;

/// A report directory of the sample season (3 cliques, 7 flagged pairs).
fn sample_report(db: &TestDb) -> std::path::PathBuf {
    let log = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sample-season.jsonl");
    db.ok(&["ingest", log.to_str().unwrap()]);
    let dir = db.dir.path().join("report");
    db.ok(&["report", "--season", "1", "--out", dir.to_str().unwrap()]);
    dir.join("index.html")
}

/// The report at a window `width` px wide: it fits, its evidence is one
/// link away, its timelines' tooltips are in the page.
async fn check_at_width(b: &Browser, url: &str, width: u32) {
    b.client.set_window_size(width, 1000).await.expect("resize");
    b.client.goto(url).await.expect("open the report");
    let inner = b.eval("return window.innerWidth;").await;
    let inner = inner.as_f64().unwrap();
    assert!(
        inner <= width as f64 && inner > width as f64 * 0.8,
        "{inner}"
    );
    no_sideways_overflow(b, width).await;
    evidence_one_link_away(b).await;
    evidence_unfolds(b).await;
    tooltips_in_the_timelines(b, url).await;
}

/// No horizontal overflow: the table fits its section, the page fits the
/// window (wide timelines scroll inside their own box).
async fn no_sideways_overflow(b: &Browser, width: u32) {
    let fit = b
        .eval(
            "const t = document.querySelector('table.pairs');
             const s = t.parentElement;
             return [t.scrollWidth, t.getBoundingClientRect().right, s.clientWidth,
                     s.getBoundingClientRect().right, document.documentElement.scrollWidth,
                     window.innerWidth];",
        )
        .await;
    let f: Vec<f64> = fit
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert!(
        f[0] <= f[2] + 0.5,
        "at {width} px the pairs table is {} px in {} px: {f:?}",
        f[0],
        f[2]
    );
    assert!(
        f[1] <= f[3] + 0.5,
        "at {width} px the table sticks out: {f:?}"
    );
    assert!(
        f[4] <= f[5] + 0.5,
        "at {width} px the page scrolls sideways: {f:?}"
    );
}

/// Every flagged pair links to its evidence, which names both accounts;
/// following a link brings the evidence into view.
async fn evidence_one_link_away(b: &Browser) {
    let links = b
        .eval(
            "return [...document.querySelectorAll('table.pairs tbody tr')].map(tr => {
               const cells = tr.querySelectorAll('td');
               const a = tr.querySelector('a.evidence-link');
               const id = a ? a.getAttribute('href').slice(1) : null;
               const target = id ? document.getElementById(id) : null;
               return [cells[0].textContent, cells[1].textContent, id,
                       target ? target.textContent : null];
             });",
        )
        .await;
    let links = links.as_array().unwrap();
    assert_eq!(links.len(), 7, "{links:?}");
    for l in links {
        let (a, bb) = (l[0].as_str().unwrap(), l[1].as_str().unwrap());
        let text = l[3]
            .as_str()
            .unwrap_or_else(|| panic!("no evidence target for {a}/{bb}: {l:?}"));
        assert!(
            text.contains(&format!("{a} and {bb}, season 1")) && text.contains("Strongest buckets"),
            "{a}/{bb}: {text}"
        );
    }
    b.client
        .find(fantoccini::Locator::Css("table.pairs a.evidence-link"))
        .await
        .expect("a link")
        .click()
        .await
        .expect("click");
    let shown = b
        .eval(
            "const e = document.getElementById(location.hash.slice(1));
             const r = e.getBoundingClientRect();
             return [location.hash, r.top >= -1 && r.top < window.innerHeight];",
        )
        .await;
    assert_eq!(shown, serde_json::json!(["#pair-1", true]));
}

/// Each pair's evidence is folded: its summary line shows, its text only
/// once opened.
async fn evidence_unfolds(b: &Browser) {
    let shown = "const d = document.getElementById('pair-1');
                 return [d.tagName, d.open, d.querySelector('summary').offsetHeight > 0,
                         d.querySelector('pre.evidence').checkVisibility()];";
    assert_eq!(
        b.eval(shown).await,
        serde_json::json!(["DETAILS", false, true, false])
    );
    b.client
        .find(fantoccini::Locator::Css("#pair-1 > summary"))
        .await
        .expect("the summary")
        .click()
        .await
        .expect("click");
    assert_eq!(
        b.eval(shown).await,
        serde_json::json!(["DETAILS", true, true, true])
    );
}

/// The timelines are folded frames of the SVG files beside the page (no
/// image): opened alone, a timeline's tooltips are in its document.
async fn tooltips_in_the_timelines(b: &Browser, url: &str) {
    let frames = b
        .eval(
            "return [...document.querySelectorAll('details.timeline iframe')]
               .map(f => [f.getAttribute('src'), f.loading]);",
        )
        .await;
    assert_eq!(
        frames,
        serde_json::json!([
            ["clique-1.svg", "lazy"],
            ["clique-2.svg", "lazy"],
            ["clique-3.svg", "lazy"]
        ])
    );
    assert!(
        b.eval("return document.querySelectorAll('img').length;")
            .await
            == 0
    );
    let svg = url.replace("index.html", "clique-1.svg");
    b.client.goto(&svg).await.expect("open the timeline");
    let tips = b
        .eval(
            "return [...document.querySelectorAll('svg.timeline .move > title')]
               .map(t => t.textContent);",
        )
        .await;
    let tips = tips.as_array().unwrap();
    assert!(tips.len() > 50, "{} tooltips", tips.len());
    assert!(
        tips.iter()
            .all(|t| t.as_str().unwrap().contains(" UTC · IP-")),
        "{:?}",
        &tips[..3]
    );
    b.client.goto(url).await.expect("back to the report");
}

#[test]
fn the_report_reads_at_1400_and_800_px() {
    let db = TestDb::new(Backend::Sqlite);
    let index = sample_report(&db);
    let url = format!("file://{}", index.display());
    block_on(async {
        let b = Browser::start().await;
        check_at_width(&b, &url, 1400).await;
        check_at_width(&b, &url, 800).await;
        b.close().await;
    });
}

/// The demo's report page, as a moderator opens it: under 8,000 px tall at
/// 1400 px with every pair's evidence folded, under 1.5 MB, and no wider
/// than the window at 800 px. Prints the figures.
#[test]
fn the_demo_report_is_short_and_small() {
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("demo");
    let out = run_default_store(dir.path(), &["demo", "--dir", demo.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index = demo.join("report/index.html");
    let bytes = std::fs::metadata(&index).unwrap().len();
    let url = format!("file://{}", index.display());
    let heights = block_on(async {
        let b = Browser::start().await;
        let mut heights = Vec::new();
        for width in [1400, 800] {
            b.client.set_window_size(width, 1000).await.expect("resize");
            b.client.goto(&url).await.expect("open the report");
            no_sideways_overflow(&b, width).await;
            let h = b
                .eval("return document.documentElement.scrollHeight;")
                .await;
            heights.push((width, h.as_f64().unwrap()));
        }
        b.close().await;
        heights
    });
    eprintln!("demo report: {bytes} bytes; height (px) by window width: {heights:?}");
    assert!(bytes < 1_500_000, "{bytes} bytes");
    assert!(heights[0].1 < 8000.0, "{heights:?}");
}
