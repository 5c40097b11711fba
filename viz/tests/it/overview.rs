//! The days-played overview beside a clique's timeline.

use crate::common::*;
use crate::timeline::opts;
use detect_viz as viz;
use viz::TimelineOptions;

/// The overview: one row per account, a cell per day played, with a
/// tooltip naming the IPs by pseudonym.
#[test]
fn overview_has_a_row_per_account_and_a_cell_per_day() {
    let s = small();
    let o = TimelineOptions {
        pseudonyms: Some(schema::IpPseudonyms::numbered_in_order(
            &schema::pseudonym::first_seen(&s, None, None),
        )),
        ..opts()
    };
    let svg = viz::overview(&s, &["bob", "alice", "carol"], &o).to_string();
    let doc = parse(&svg);
    let accounts: Vec<&str> = with_class(&doc, "account")
        .filter_map(|n| n.text().map(str::trim))
        .collect();
    assert_eq!(accounts, ["alice", "bob", "carol"]);
    let cells: Vec<roxmltree::Node> = with_class(&doc, "day").collect();
    assert!(!cells.is_empty());
    for c in &cells {
        let tip = tooltip(*c).expect("tooltip");
        assert!(
            tip.starts_with(c.attribute("data-account").unwrap()),
            "{tip}"
        );
        assert!(!tip.contains("1.1.1.1"), "{tip}");
    }
    assert!(cells
        .iter()
        .any(|c| tooltip(*c).unwrap().contains("from IP-1")));
}
