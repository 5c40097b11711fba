//! Structure of the distribution and comparison charts.

use crate::common::*;
use detect_viz as viz;
use viz::{compare, distribution, Series};

fn texts(doc: &roxmltree::Document) -> Vec<String> {
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(|t| t.trim().to_owned()))
        .collect()
}

/// The (x, y) points of the path of series `i`.
fn series_points(doc: &roxmltree::Document, i: &str) -> Vec<(f64, f64)> {
    let group = with_class(doc, "series")
        .find(|g| g.attribute("data-series") == Some(i))
        .expect("series group");
    let d = group
        .descendants()
        .find_map(|n| n.attribute("d"))
        .expect("a path");
    let nums: Vec<f64> = d
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect();
    nums.chunks(2).map(|c| (c[0], c[1])).collect()
}

fn threshold_y(doc: &roxmltree::Document) -> f64 {
    let line = with_class(doc, "threshold")
        .next()
        .and_then(|g| g.children().find(|c| c.has_tag_name("line")))
        .expect("threshold line");
    let (y1, y2) = (line.attribute("y1"), line.attribute("y2"));
    assert_eq!(y1, y2, "horizontal");
    y1.and_then(|y| y.parse().ok()).expect("y")
}

#[test]
fn distribution_draws_sorted_ranks_threshold_and_caption() {
    let sims = [0.5, 0.95, 0.2, 0.91, 0.9, 0.7, 0.89, 0.3];
    let doc_s = distribution(&sims, 0.9, "season 7").to_string();
    let doc = parse(&doc_s);
    let t = texts(&doc);
    assert!(t.contains(&"season 7".to_owned()), "{t:?}");
    assert!(t.contains(&"threshold 0.90".to_owned()), "{t:?}");
    assert!(
        t.contains(&"3 of 8 directed pairs (37.5%) at or above 0.90".to_owned()),
        "{t:?}"
    );
    // y ticks 0.0 .. 1.0 and x ticks from rank 1 to n.
    for tick in ["0.0", "0.5", "1.0", "1", "2", "8"] {
        assert!(t.contains(&tick.to_owned()), "tick {tick} in {t:?}");
    }
    let points = series_points(&doc, "0");
    assert_eq!(points.len(), sims.len());
    // x increases with rank, y decreases with similarity (sorted descending).
    assert!(points
        .windows(2)
        .all(|w| w[1].0 > w[0].0 && w[1].1 >= w[0].1));
    // The first three points (>= 0.9) are on or above the threshold line.
    let ty = threshold_y(&doc);
    assert!(points[..3].iter().all(|p| p.1 <= ty + 1e-9));
    assert!(points[3..].iter().all(|p| p.1 > ty));
}

#[test]
fn distribution_of_nothing_or_one_value_is_still_valid() {
    let empty = distribution(&[], 0.9, "empty").to_string();
    let doc = parse(&empty);
    assert!(texts(&doc).contains(&"0 of 0 directed pairs (0.0%) at or above 0.90".to_owned()));
    let one = distribution(&[0.95, f64::NAN], 0.925, "one").to_string();
    let doc = parse(&one);
    assert!(doc.descendants().any(|n| n.has_tag_name("circle")));
    let t = texts(&doc);
    assert!(
        t.iter()
            .any(|s| s.starts_with("1 of 1 directed pairs (100.0%) at or above 0.925")),
        "{t:?}"
    );
    assert!(t.iter().any(|s| s.contains("1 values not finite")), "{t:?}");
}

#[test]
fn compare_normalises_rank_and_reports_each_share() {
    let six: Vec<f64> = (0..80).map(|i| 1.0 - i as f64 / 80.0).collect();
    let seven: Vec<f64> = (0..20).map(|i| 1.0 - i as f64 / 40.0).collect();
    let svg = compare(
        &Series {
            label: "season 6",
            similarities: &six,
        },
        &Series {
            label: "season 7",
            similarities: &seven,
        },
        0.9,
    )
    .to_string();
    let doc = parse(&svg);
    let legend = chart_legend(&doc);
    // six: 1.0 .. 0.9125 is 8 of 80 at or above 0.9 (0.9 itself is i = 8).
    assert_eq!(
        legend,
        [
            "season 6: 11.2% of 80 pairs >= 0.90",
            "season 7: 25.0% of 20 pairs >= 0.90"
        ]
    );
    let a = series_points(&doc, "0");
    let b = series_points(&doc, "1");
    // Both series span the same x range whatever their sizes.
    let span = |p: &[(f64, f64)]| (p.first().expect("points").0, p.last().expect("points").0);
    assert_eq!(span(&a).1, span(&b).1);
    assert!(
        span(&a).0 < span(&b).0,
        "the first of 80 is nearer the origin"
    );
    let colours: Vec<&str> = with_class(&doc, "series")
        .filter_map(|g| g.descendants().find_map(|n| n.attribute("stroke")))
        .collect();
    assert_eq!(colours.len(), 2);
    assert_ne!(colours[0], colours[1]);
    assert!(texts(&doc).contains(&"100%".to_owned()));
}
