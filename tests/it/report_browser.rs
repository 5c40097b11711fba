//! The HTML report in a real headless Chromium, at a wide (1400 px) and a
//! narrow (800 px) window: the pairs table never overflows, every flagged
//! pair's evidence is one link away, and the timelines' tooltips are in the
//! page (inline SVG, not images).

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
    tooltips_inline(b).await;
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

/// The timelines are inline SVG: their tooltips are in the DOM, and there
/// is no image.
async fn tooltips_inline(b: &Browser) {
    let tips = b
        .eval(
            "return [...document.querySelectorAll('svg.timeline .move > title')]
               .map(t => t.textContent);",
        )
        .await;
    let tips = tips.as_array().unwrap();
    assert!(tips.len() > 100, "{} tooltips", tips.len());
    assert!(
        tips.iter()
            .all(|t| t.as_str().unwrap().contains(" UTC · IP-")),
        "{:?}",
        &tips[..3]
    );
    assert!(
        b.eval("return document.querySelectorAll('img').length;")
            .await
            == 0
    );
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
