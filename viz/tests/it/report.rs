//! Content of the HTML report.

use crate::common::*;
use detect_viz as viz;
use viz::{report_html, ReportPage};

fn page(result: &schema::ScanResult) -> ReportPage<'_> {
    ReportPage {
        title: "Tournament scan".to_owned(),
        season: Some(7),
        result,
        clique_svgs: vec!["clique-1.svg".to_owned()],
        clique_pictures: vec![viz::CliquePictures {
            overview: "<svg class=\"overview\"><title>days</title></svg>".to_owned(),
            timeline: "<svg class=\"timeline\"><title>per IP</title></svg>".to_owned(),
        }],
        distribution_svg: Some("distribution.svg".to_owned()),
        distribution_inline: Some("<svg class=\"chart\"/>".to_owned()),
        evidence: [("ann", "ben"), ("ben", "cat")]
            .into_iter()
            .map(|(a, b)| {
                (
                    (a.to_owned(), b.to_owned()),
                    format!("{a} and {b}: the buckets"),
                )
            })
            .collect(),
        generated_note: "threshold 0.90, 30-minute buckets, reference mode".to_owned(),
        verdicts: None,
        directed_pairs: None,
    }
}

/// The text of each cell of each body row of the table with `class`.
fn rows(doc: &roxmltree::Document, class: &str) -> Vec<Vec<String>> {
    let table = with_class(doc, class).next().expect("table");
    table
        .descendants()
        .filter(|n| n.has_tag_name("tr") && n.parent().is_some_and(|p| p.has_tag_name("tbody")))
        .map(|tr| {
            tr.children()
                .filter(|c| c.has_tag_name("td"))
                .map(|td| td.text().unwrap_or_default().to_owned())
                .collect()
        })
        .collect()
}

/// The report of five accounts' scan, the same in every test here.
fn report() -> String {
    report_html(&page(&scan_result(["ann", "ben", "cat", "dan", "eve"])))
}

#[test]
fn report_is_a_document_without_scripts() {
    let html = report();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(!html.contains("<script"));
    parse(&html);
}

/// The summary table: participants, pairs, flags, cliques and parameters.
#[test]
fn summary_counts_the_scan() {
    let html = report();
    let doc = parse(&html);

    let summary: Vec<(String, String)> = with_class(&doc, "summary")
        .next()
        .expect("summary")
        .children()
        .filter(|n| n.has_tag_name("tr"))
        .map(|tr| {
            let cell = |tag: &str| {
                tr.children()
                    .find(|c| c.has_tag_name(tag))
                    .and_then(|c| c.text())
                    .unwrap_or_default()
                    .to_owned()
            };
            (cell("th"), cell("td"))
        })
        .collect();
    let get = |k: &str| {
        summary
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("{k} in {summary:?}"))
    };
    assert_eq!(get("Participants"), "12");
    assert_eq!(get("Candidate pairs"), "4");
    assert_eq!(get("Flagged directed pairs"), "5 of 8 (62.5%)");
    // A page of a scan holding only some of its pairs (a daemon's report
    // after a rescan holds the flagged ones) counts its share of flags out
    // of every directed pair the scan scored.
    let result = scan_result(["ann", "ben", "cat", "dan", "eve"]);
    let some = report_html(&ReportPage {
        directed_pairs: Some(1000),
        ..page(&result)
    });
    assert!(some.contains("Flagged directed pairs</th><td>5 of 1000 (0.5%)</td>"));
    assert_eq!(get("Cliques"), "2");
    assert_eq!(get("Threshold"), "0.90");
    assert_eq!(get("Bucket size"), "1800 s (30 min)");
    assert_eq!(get("Mode"), "reference");
}

/// The pairs table: flagged pairs, both directions, evidence in hours.
#[test]
fn flagged_pairs_list_both_directions_and_their_evidence() {
    let html = report();
    let doc = parse(&html);

    // Unordered flagged pairs, most similar first, both directions side by
    // side; ann/eve (0.47) is not flagged and not listed.
    let pairs = rows(&doc, "pairs");
    let heads: Vec<(&str, &str, &str, &str)> = pairs
        .iter()
        .map(|r| (r[0].as_str(), r[1].as_str(), r[2].as_str(), r[3].as_str()))
        .collect();
    assert_eq!(
        heads,
        [
            ("ann", "ben", "0.9700 \u{2691}", "0.9500 \u{2691}"),
            ("ben", "cat", "0.9300 \u{2691}", "0.8800"),
            ("dan", "eve", "0.9000 \u{2691}", "0.9100 \u{2691}"),
        ]
    );
    let heads: Vec<&str> = with_class(&doc, "pairs")
        .next()
        .expect("pairs table")
        .descendants()
        .filter(|n| n.has_tag_name("th"))
        .filter_map(|n| n.text())
        .collect();
    assert_eq!(
        heads,
        [
            "Account A",
            "Account B",
            "A\u{2192}B",
            "B\u{2192}A",
            "Same IP",
            "Other IPs",
            "Both waiting",
            "Longest joint wait",
            "Evidence"
        ]
    );
    // Evidence of the stronger direction in hours: ann->ben has 40 same-IP
    // windows of 30 minutes, 1 other-IP, 7 both waiting, a 12-bucket wait.
    assert_eq!(
        pairs[0][4..8],
        ["20 h (40 windows)", "0.5 h", "3.5 h", "6 h"]
    );
    // dan/eve: the stronger direction (eve->dan) had a 1-bucket wait.
    assert_eq!(pairs[2][7], "0.5 h");
    // The unflagged direction of ben/cat is not marked.
    let flagged_cells = with_class(&doc, "num flag").count();
    assert_eq!(flagged_cells, 5 * 2, "pairs and clique tables");
}

/// Each pair's link reaches its evidence, or says how to get it.
#[test]
fn every_pair_links_to_its_evidence() {
    let html = report();
    let doc = parse(&html);

    // Every pair links to an anchor that exists; evidence given is shown,
    // missing evidence says how to get it.
    let anchors: Vec<&str> = with_class(&doc, "evidence-link")
        .map(|a| a.attribute("href").expect("href"))
        .collect();
    assert_eq!(anchors, ["#pair-1", "#pair-2", "#pair-3"]);
    for a in &anchors {
        let target = doc
            .descendants()
            .find(|n| n.attribute("id") == Some(&a[1..]))
            .unwrap_or_else(|| panic!("{a} has no target"));
        let text: String = target.descendants().filter_map(|n| n.text()).collect();
        assert!(
            text.contains("the buckets") || text.contains("detect explain --season 7 dan eve"),
            "{text}"
        );
    }
}

/// Logs read into memory without a season: the page is titled by its
/// title alone, and a pair without evidence says how to get some, with no
/// "season 0" anywhere.
#[test]
fn a_page_without_a_season_names_none() {
    let result = scan_result(["ann", "ben", "cat", "dan", "eve"]);
    let p = ReportPage {
        title: "detect: Logs read into memory".to_owned(),
        season: None,
        ..page(&result)
    };
    let html = report_html(&p);
    parse(&html);
    assert!(!html.to_lowercase().contains("season 0"), "{html}");
    assert!(html.contains("<title>detect: Logs read into memory</title>"));
    assert!(html.contains("define their season (<code>detect season add N</code>)"));
    let with = report_html(&page(&result));
    assert!(with.contains("<p class=\"note\">Season 7</p>"));
}

/// The table of contents and how to read the report.
#[test]
fn contents_and_guide() {
    let html = report();
    let doc = parse(&html);

    // A table of contents links every section and clique.
    let toc: Vec<&str> = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("contents"))
        .expect("contents")
        .descendants()
        .filter_map(|n| n.attribute("href"))
        .collect();
    for target in toc {
        assert!(
            doc.descendants()
                .any(|n| n.attribute("id") == Some(&target[1..])),
            "{target}"
        );
    }
    // How to read this: the caveat and the measured precision.
    let guide: String = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("how-to-read"))
        .expect("guide")
        .descendants()
        .filter_map(|n| n.text())
        .collect();
    assert!(guide.contains("not a verdict") && guide.contains("home or an office"));
    assert!(guide.contains("80 % of flagged pairs"), "{guide}");
}

/// Each clique: its members, its pairs, its pictures or a note.
#[test]
fn cliques_show_members_pairs_and_pictures() {
    let html = report();
    let doc = parse(&html);

    // Cliques: members, a table of their pairs (folded), and the pictures
    // (overview, then the timeline folded), linked to the file too.
    let cliques: Vec<roxmltree::Node> = with_class(&doc, "clique").collect();
    assert_eq!(cliques.len(), 2);
    let first = cliques[0];
    assert!(first
        .descendants()
        .any(|n| n.text() == Some("Members: ann, ben, cat")));
    assert_eq!(rows_of(first, "clique-pairs").len(), 2);
    let details = first
        .descendants()
        .find(|n| n.has_tag_name("details") && n.attribute("class") == Some("timeline"))
        .expect("folded timeline");
    assert!(rows_of(first, "clique-pairs")[0]
        .ancestors()
        .any(|n| n.has_tag_name("details")));
    assert!(details
        .descendants()
        .any(|n| n.attribute("class") == Some("timeline")));
    assert!(first
        .descendants()
        .any(|n| n.attribute("class") == Some("overview")));
    assert!(first
        .descendants()
        .any(|n| n.attribute("href") == Some("clique-1.svg")));
    // The second clique has no picture: a note instead.
    assert!(!cliques[1].descendants().any(|n| n.has_tag_name("svg")));
    assert!(html.contains("No timeline drawn."));
    assert!(with_class(&doc, "chart").next().is_some());
    assert!(html.contains("threshold 0.90, 30-minute buckets, reference mode"));
}

fn rows_of<'a, 'i>(node: roxmltree::Node<'a, 'i>, class: &str) -> Vec<roxmltree::Node<'a, 'i>> {
    node.descendants()
        .find(|n| n.attribute("class") == Some(class))
        .expect("table")
        .descendants()
        .filter(|n| n.has_tag_name("tr") && n.parent().is_some_and(|p| p.has_tag_name("tbody")))
        .collect()
}

/// One rounding rule (four decimals, rounded) with the flag marked apart:
/// 0.89999 shows as 0.9000 but is not marked flagged.
#[test]
fn similarities_are_rounded_and_flags_marked_apart() {
    let mut result = scan_result(["ann", "ben", "cat", "dan", "eve"]);
    for p in &mut result.pairs {
        if p.account_a == "dan" {
            p.similarity = 0.899_99;
        }
    }
    let html = report_html(&page(&result));
    let doc = parse(&html);
    let dan = rows(&doc, "pairs")
        .into_iter()
        .find(|r| r[0] == "dan")
        .expect("dan/eve still flagged through eve");
    assert_eq!(dan[2], "0.9000");
    assert_eq!(dan[3], "0.9100 \u{2691}");
}

#[test]
fn a_scan_without_flags_says_so() {
    let mut result = scan_result(["ann", "ben", "cat", "dan", "eve"]);
    result.params.threshold = 0.99;
    result.cliques.clear();
    let p = ReportPage {
        clique_svgs: Vec::new(),
        clique_pictures: Vec::new(),
        distribution_svg: None,
        distribution_inline: None,
        ..page(&result)
    };
    let html = report_html(&p);
    parse(&html);
    assert!(html.contains("No pair reached the threshold."));
    assert!(html.contains("No clique."));
    assert!(!html.contains("<svg") && !html.contains("id=\"evidence\""));
}

#[test]
fn crowded_addresses_are_listed_by_pseudonym_never_raw() {
    let mut result = scan_result(["ann", "ben", "cat", "dan", "eve"]);
    result.crowded = vec![
        schema::CrowdedAddress {
            day: 16_500,
            ip: "198.51.100.9".to_owned(),
            accounts: 812,
        },
        schema::CrowdedAddress {
            day: 16_501,
            ip: "2001:db8::1".to_owned(),
            accounts: 640,
        },
    ];
    let html = report_html(&page(&result));
    let doc = parse(&html);
    assert_eq!(
        rows(&doc, "crowded"),
        vec![
            vec!["crowded-IP-1", "2015-03-06", "812"],
            vec!["crowded-IP-2", "2015-03-07", "640"],
        ]
    );
    assert!(html.contains("href=\"#crowded\""));
    assert!(!html.contains("198.51.100.9") && !html.contains("2001:db8::1"));

    result.crowded.clear();
    let html = report_html(&page(&result));
    assert!(!html.contains("id=\"crowded\"") && !html.contains("href=\"#crowded\""));
}

/// A timeline with a file beside the page is framed from it, loaded only
/// when its fold opens, never inlined: the page's size does not grow with
/// the season's timelines. Without a file (standard output) it is inlined.
#[test]
fn timelines_with_a_file_are_framed_lazily_not_inlined() {
    let result = scan_result(["ann", "ben", "cat", "dan", "eve"]);
    let big = |k: usize| {
        let pad = "x".repeat(100_000);
        format!(
            "<svg class=\"timeline\" height=\"480\" width=\"1200\"><title>clique {k}</title>\
             <desc>{pad}</desc></svg>"
        )
    };
    let mut p = page(&result);
    p.clique_svgs = vec!["clique-1.svg".to_owned(), "clique-2.svg".to_owned()];
    p.clique_pictures = (1..=2)
        .map(|k| viz::CliquePictures {
            overview: format!("<svg class=\"overview\"><title>days {k}</title></svg>"),
            timeline: big(k),
        })
        .collect();
    let html = report_html(&p);
    assert!(!html.contains("<title>clique 1</title>") && !html.contains("<title>clique 2</title>"));
    assert!(html.contains("<title>days 2</title>"), "the overviews stay");
    assert!(html.len() < 50_000, "{} bytes", html.len());
    let doc = parse(&html);
    let frames: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("iframe"))
        .map(|n| {
            assert_eq!(n.attribute("loading"), Some("lazy"));
            assert!(n.ancestors().any(|a| a.has_tag_name("details")), "folded");
            (
                n.attribute("src").unwrap(),
                n.attribute("width").unwrap(),
                n.attribute("height").unwrap(),
            )
        })
        .collect();
    assert_eq!(
        frames,
        vec![
            ("clique-1.svg", "1200", "480"),
            ("clique-2.svg", "1200", "480")
        ]
    );
    // Written to standard output there are no files: both are inlined.
    p.clique_svgs.clear();
    let html = report_html(&p);
    assert!(html.contains("<title>clique 2</title>"));
    assert!(!html.contains("<iframe"));
}

/// Each flagged pair's evidence is a fold whose summary names the pair,
/// both directions' scores and its verdict; the verdict sections come
/// after the pairs and are in the contents.
#[test]
fn evidence_is_folded_and_verdict_sections_are_in_the_contents() {
    use schema::{Verdict, VerdictKind};
    let result = scan_result(["ann", "ben", "cat", "dan", "eve"]);
    let verdict = |id: i64, a: &str, b: &str, kind| Verdict {
        id,
        accounts: vec![a.to_owned(), b.to_owned()],
        kind,
        note: String::new(),
        by: "ann&co".to_owned(),
        at: 1_700_000_000,
        season: Some(7),
        similarity: Some(0.99),
        unseen: false,
        supersedes: None,
    };
    let verdicts = vec![
        verdict(1, "ann", "ben", VerdictKind::Suspicious),
        verdict(2, "dan", "eve", VerdictKind::Household),
    ];
    let triage = scoring::triage(&result, &verdicts, false, 0.05);
    let shown = scoring::triage::to_review(&result, &triage);
    let mut p = page(&shown);
    p.verdicts = Some(viz::Verdicts {
        triage: &triage,
        margin: 0.05,
    });
    let html = report_html(&p);
    let doc = parse(&html);
    let folds: Vec<String> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("pair-evidence"))
        .map(|n| {
            assert!(n.has_tag_name("details") && n.attribute("open").is_none());
            let summary = n.children().find(|c| c.has_tag_name("summary")).unwrap();
            summary
                .descendants()
                .filter(|t| t.is_text())
                .filter_map(|t| t.text())
                .collect()
        })
        .collect();
    assert_eq!(
        folds,
        vec![
            "ann \u{2194} ben: ann\u{2192}ben 0.9700 \u{2691}, ben\u{2192}ann 0.9500 \u{2691}; \
             same IP: 20 h (40 half-hour windows) of ann's active time; \
             verdict: suspicious by ann&co",
            "ben \u{2194} cat: ben\u{2192}cat 0.9300 \u{2691}, cat\u{2192}ben 0.8800; \
             same IP: 10 h (20 half-hour windows) of ben's active time; no verdict yet",
        ]
    );
    let toc: Vec<String> = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("contents"))
        .unwrap()
        .descendants()
        .filter(|n| n.has_tag_name("a"))
        .map(|n| n.text().unwrap_or_default().to_owned())
        .collect();
    assert!(
        toc.contains(&"Known relationships (1)".to_owned()),
        "{toc:?}"
    );
    assert!(
        toc.contains(&"Flagged pairs with a verdict (1)".to_owned()),
        "{toc:?}"
    );
    let order = |id: &str| html.find(&format!("id=\"{id}\"")).expect(id);
    assert!(order("pairs") < order("known-relationships"));
    assert!(order("known-relationships") < order("distribution"));
}
