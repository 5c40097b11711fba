//! Content of the HTML report.

mod common;

use common::*;
use detect_viz as viz;
use viz::{report_html, ReportPage};

fn page(result: &schema::ScanResult) -> ReportPage<'_> {
    ReportPage {
        title: "Tournament scan".to_owned(),
        season: 7,
        result,
        clique_svgs: vec!["clique-1.svg".to_owned()],
        distribution_svg: Some("distribution.svg".to_owned()),
        generated_note: "threshold 0.90, 30-minute buckets, reference mode".to_owned(),
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

#[test]
fn report_has_summary_pairs_cliques_and_pictures() {
    let result = scan_result(["ann", "ben", "cat", "dan", "eve"]);
    let html = report_html(&page(&result));
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(!html.contains("<script"));
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
    assert_eq!(get("Cliques"), "2");
    assert_eq!(get("Threshold"), "0.90");
    assert_eq!(get("Bucket size"), "1800 s (30 min)");
    assert_eq!(get("Mode"), "reference");

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
            ("ann", "ben", "0.9700", "0.9500"),
            ("ben", "cat", "0.9300", "0.8800"),
            ("dan", "eve", "0.9000", "0.9100"),
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
            "A",
            "B",
            "sim(A,B)",
            "sim(B,A)",
            "same_ip",
            "other_ip",
            "moved_stalled",
            "stalled_moved",
            "both_stalled",
            "max boost"
        ]
    );
    // Evidence: same_ip, other_ip, moved_stalled, stalled_moved,
    // both_stalled, max boost, as A→B / B→A.
    assert_eq!(
        pairs[0][4..],
        ["40 / 38", "1 / 2", "2 / 2", "1 / 1", "7 / 7", "12 / 12"]
    );
    assert_eq!(pairs[2][9], "0 / 1");
    // The unflagged direction of ben/cat is not bold.
    let flagged_cells = with_class(&doc, "num flag").count();
    assert_eq!(flagged_cells, 5);

    // Cliques: members, and the picture both linked and shown.
    let cliques: Vec<roxmltree::Node> = with_class(&doc, "clique").collect();
    assert_eq!(cliques.len(), 2);
    let first = cliques[0];
    assert!(first
        .descendants()
        .any(|n| n.text() == Some("Members: ann, ben, cat")));
    let img = first
        .descendants()
        .find(|n| n.has_tag_name("img"))
        .expect("img");
    assert_eq!(img.attribute("src"), Some("clique-1.svg"));
    assert_eq!(
        img.parent().and_then(|a| a.attribute("href")),
        Some("clique-1.svg")
    );
    // The second clique has no file name: no picture, a note instead.
    assert!(!cliques[1].descendants().any(|n| n.has_tag_name("img")));
    assert!(html.contains("No timeline drawn."));
    assert!(html.contains("<img src=\"distribution.svg\""));
    assert!(html.contains("threshold 0.90, 30-minute buckets, reference mode"));
}

#[test]
fn similarities_are_cut_not_rounded_up_to_the_threshold() {
    let mut result = scan_result(["ann", "ben", "cat", "dan", "eve"]);
    for p in &mut result.pairs {
        if p.user_a == "dan" {
            p.similarity = 0.899_99;
        }
    }
    let html = report_html(&page(&result));
    let doc = parse(&html);
    let dan = rows(&doc, "pairs")
        .into_iter()
        .find(|r| r[0] == "dan")
        .expect("dan/eve still flagged through eve");
    assert_eq!(dan[2], "0.8999");
}

#[test]
fn a_scan_without_flags_says_so() {
    let mut result = scan_result(["ann", "ben", "cat", "dan", "eve"]);
    result.params.threshold = 0.99;
    result.cliques.clear();
    let p = ReportPage {
        clique_svgs: Vec::new(),
        distribution_svg: None,
        ..page(&result)
    };
    let html = report_html(&p);
    parse(&html);
    assert!(html.contains("No pair reached the threshold."));
    assert!(html.contains("No clique."));
    assert!(!html.contains("<img"));
}
