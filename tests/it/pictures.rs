//! Pictures end to end: `report --out`, `timeline` and `compare` write SVG
//! and HTML that parse, escape every username, and show what they should.

use crate::common::*;

/// Two pairs of lockstep accounts with hostile and non-ASCII names: each
/// pair moves from one IP every few hours, in league games, for days.
fn hostile_log() -> String {
    let pairs = [
        ("<script>alert(1)</script>", "a&b", "10.0.0.1"),
        ("\"quoted\"", "Ünïcødé名前", "10.0.0.2"),
    ];
    let mut lines = Vec::new();
    let start = 1_430_647_200i64; // 2015-05-03 10:00 UTC
    for step in 0..60i64 {
        let t = start + step * 3 * 3600;
        for (k, (a, b, ip)) in pairs.iter().enumerate() {
            for (n, account) in [a, b].into_iter().enumerate() {
                let game = format!("4pLeague_S3_{k}{n}");
                lines.push(serde_json::json!({
                    "username": account, "game": game, "timestamp": t + 60 * n as i64, "ip": ip
                }));
            }
        }
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn assert_no_script(doc: &roxmltree::Document, what: &str) {
    assert!(
        !doc.descendants()
            .any(|n| n.tag_name().name().eq_ignore_ascii_case("script")),
        "{what} has a script element"
    );
}

#[test]
fn report_out_writes_escaped_pictures_and_page() {
    let db = TestDb::new(Backend::Sqlite);
    let log = db.dir.path().join("log.jsonl");
    std::fs::write(&log, hostile_log()).unwrap();
    db.ok(&["ingest", log.to_str().unwrap()]);
    let out = db.dir.path().join("report");
    let text = db.ok(&["report", "--season", "3", "--out", out.to_str().unwrap()]);
    assert!(text.contains("cliques           2"), "{text}");

    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(!html.contains("<script"), "unescaped script tag in HTML");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("a&amp;b") && html.contains("Ünïcødé名前"));
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let page =
        roxmltree::Document::parse_with_options(&html, opts).expect("the page is well-formed");
    assert_no_script(&page, "index.html");
    // The overviews are inline, the timelines folded frames of their files
    // (their tooltips work), every picture linked as a file.
    let links: Vec<&str> = page
        .descendants()
        .filter(|n| n.has_tag_name("a"))
        .filter_map(|n| n.attribute("href"))
        .collect();
    for src in ["clique-1.svg", "clique-2.svg", "distribution.svg"] {
        assert!(
            links.contains(&src),
            "index.html does not link {src}: {links:?}"
        );
        let svg = std::fs::read_to_string(out.join(src)).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_no_script(&doc, src);
    }
    let inline = |class: &str| {
        page.descendants()
            .filter(|n| n.has_tag_name("svg") && n.attribute("class") == Some(class))
            .count()
    };
    assert_eq!((inline("timeline"), inline("overview")), (0, 2));
    let frames: Vec<&str> = page
        .descendants()
        .filter(|n| n.has_tag_name("iframe"))
        .filter_map(|n| n.attribute("src"))
        .collect();
    assert_eq!(frames, ["clique-1.svg", "clique-2.svg"]);
    assert!(page.descendants().all(|n| !n.has_tag_name("img")));
    // Each clique timeline names its two members in its legend, unescaped
    // once parsed.
    let legend = |src: &str| -> Vec<String> {
        let svg = std::fs::read_to_string(out.join(src)).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        doc.descendants()
            .filter(|n| n.attribute("class") == Some("legend-entry"))
            .map(|n| n.descendants().filter_map(|t| t.text()).collect::<String>())
            .collect()
    };
    let all: Vec<String> = [legend("clique-1.svg"), legend("clique-2.svg")].concat();
    for name in [
        "<script>alert(1)</script>",
        "a&b",
        "\"quoted\"",
        "Ünïcødé名前",
    ] {
        assert!(
            all.iter().any(|l| l.contains(name)),
            "legend lacks {name}: {all:?}"
        );
    }
    // --format html prints the same page, without pictures, to stdout.
    let printed = db.ok(&["report", "--season", "3", "--format", "html"]);
    let doc = roxmltree::Document::parse_with_options(&printed, opts).expect("well-formed page");
    assert_no_script(&doc, "--format html");
    assert!(printed.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));

    // No raw IP address anywhere without --show-ips.
    for file in ["index.html", "clique-1.svg", "clique-2.svg"] {
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        assert!(!text.contains("10.0.0."), "{file} shows a raw IP");
    }
}

#[test]
fn timeline_and_compare_commands_write_svg() {
    let db = TestDb::new(Backend::Sqlite);
    let log = db.dir.path().join("log.jsonl");
    std::fs::write(&log, hostile_log()).unwrap();
    db.ok(&["ingest", log.to_str().unwrap()]);
    let file = db.dir.path().join("t.svg");
    db.ok(&[
        "timeline",
        "--season",
        "3",
        "-o",
        file.to_str().unwrap(),
        "a&b",
        "\"quoted\"",
    ]);
    let svg = std::fs::read_to_string(&file).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let entries = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("legend-entry"))
        .count();
    assert_eq!(entries, 2);
    assert!(doc
        .descendants()
        .any(|n| n.attribute("class") == Some("move")));

    let stdout = db.ok(&["timeline", "--season", "3", "--show-ips", "a&b"]);
    assert!(
        stdout.contains("10.0.0.1"),
        "--show-ips labels columns with addresses"
    );

    let out = db.run(&["timeline", "--season", "3", "nobody"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no moves are stored for nobody"));

    db.ok(&["season", "add", "4", "--games", "^4pLeague_S3_0"]);
    let chart = db.dir.path().join("c.svg");
    let run = db.run(&[
        "compare",
        "--season",
        "3",
        "--season",
        "4",
        "-o",
        chart.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("season 3: 4 of 4 directed pairs at or above 0.9"),
        "{err}"
    );
    assert!(err.contains("season 4: 2 of 2 directed pairs"), "{err}");
    roxmltree::Document::parse(&std::fs::read_to_string(&chart).unwrap()).unwrap();
}
