//! Golden files: the exact bytes of one picture of each kind. Set
//! `DETECT_BLESS=1` to rewrite them after an intended change, then review the
//! diff.

use crate::common::*;
use detect_viz as viz;

fn season(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Lcg(seed);
    (0..n).map(|_| rng.below(1000) as f64 / 1000.0).collect()
}

fn timeline_options() -> viz::TimelineOptions {
    viz::TimelineOptions {
        title: "Clique 1: alice, bob, carol".to_owned(),
        highlights: vec![viz::Highlight {
            bucket: T0 + 2 * HOUR,
            note: "+12 for alice \u{2192} bob: both moved from the same IP".to_owned(),
        }],
        ..Default::default()
    }
}

#[test]
fn timeline_golden() {
    let svg = viz::timeline(&small(), &["alice", "bob", "carol"], &timeline_options()).to_string();
    golden("timeline.svg", &svg);
}

#[test]
fn overview_golden() {
    let s = small();
    let opts = viz::TimelineOptions {
        pseudonyms: Some(schema::IpPseudonyms::numbered_in_order(
            &schema::pseudonym::first_seen(&s, None, None),
        )),
        ..timeline_options()
    };
    let svg = viz::overview(&s, &["alice", "bob", "carol"], &opts).to_string();
    golden("overview.svg", &svg);
}

#[test]
fn distribution_golden() {
    let svg = viz::distribution(&season(120, 6), 0.9, "Season 6: similarity by rank").to_string();
    golden("distribution.svg", &svg);
}

#[test]
fn compare_golden() {
    let (six, seven) = (season(80, 6), season(120, 7));
    let svg = viz::compare(
        &viz::Series {
            label: "season 6",
            similarities: &six,
        },
        &viz::Series {
            label: "season 7",
            similarities: &seven,
        },
        0.9,
    )
    .to_string();
    golden("compare.svg", &svg);
}

#[test]
fn report_golden() {
    let result = scan_result(["ann", "ben", "cat", "dan", "a&b"]);
    let page = viz::ReportPage {
        title: "Season 7 scan".to_owned(),
        season: Some(7),
        result: &result,
        clique_svgs: vec!["clique-1.svg".to_owned(), "clique-2.svg".to_owned()],
        clique_pictures: vec![viz::CliquePictures {
            overview: "<svg class=\"overview\"/>".to_owned(),
            timeline: "<svg class=\"timeline\"/>".to_owned(),
        }],
        distribution_svg: Some("distribution.svg".to_owned()),
        distribution_inline: None,
        evidence: [(
            ("ann".to_owned(), "ben".to_owned()),
            "ann and ben, season 7\n\nann -> ben: similarity 0.9700 (FLAGGED)".to_owned(),
        )]
        .into_iter()
        .collect(),
        generated_note: "threshold 0.90, 30-minute buckets, reference mode".to_owned(),
        verdicts: None,
        directed_pairs: None,
    };
    golden("report.html", &viz::report_html(&page));
}
