//! Structure of the timeline SVG: columns, marks, legend, folding, trimming.

use crate::common::*;
use detect_viz as viz;
use viz::{timeline, TimelineOptions};

pub(crate) fn render(
    segments: &schema::Segments,
    accounts: &[&str],
    opts: &TimelineOptions,
) -> String {
    timeline(segments, accounts, opts).to_string()
}

pub(crate) fn opts() -> TimelineOptions {
    TimelineOptions {
        title: "clique 1".to_owned(),
        ..Default::default()
    }
}

fn number(node: roxmltree::Node, attr: &str) -> f64 {
    node.attribute(attr)
        .unwrap_or_else(|| panic!("no {attr}"))
        .parse()
        .expect("a number")
}

#[test]
fn one_column_per_ip_after_folding_and_one_mark_per_record() {
    let s = small();
    let svg = render(&s, &["bob", "carol", "alice"], &opts());
    let doc = parse(&svg);

    let columns: Vec<&str> = with_class(&doc, "ip-column")
        .map(|g| g.attribute("data-ip").expect("data-ip"))
        .collect();
    // 1.1.1.1 and 2.2.2.2 keep their columns; 3.3.3.3 and 4.4.4.4 are folded.
    assert_eq!(columns, ["IP-1", "IP-2", "other"]);
    let other = with_class(&doc, "ip-column").last().expect("a column");
    assert!(other
        .descendants()
        .any(|n| n.text().map(str::trim) == Some("other IPs")));

    let (moves, stalls) = count_marks(&s, &["alice", "bob"], i64::MIN, i64::MAX);
    assert_eq!((moves, stalls), (12, 5));
    assert_eq!(with_class(&doc, "move").count(), moves);
    assert_eq!(with_class(&doc, "stall").count(), stalls);

    // Marks sit in the column of their IP (stalls: of the next move's IP).
    let in_column = |key: &str, class: &str| {
        with_class(&doc, "ip-column")
            .find(|g| g.attribute("data-ip") == Some(key))
            .expect("column")
            .descendants()
            .filter(|n| n.attribute("class") == Some(class))
            .count()
    };
    assert_eq!(in_column("IP-1", "move"), 4);
    assert_eq!(in_column("IP-1", "stall"), 3);
    assert_eq!(in_column("IP-2", "move"), 5);
    assert_eq!(in_column("other", "move"), 3);
    assert_eq!(in_column("other", "stall"), 2);

    for mark in with_class(&doc, "move").chain(with_class(&doc, "stall")) {
        let tip = tooltip(mark).expect("every mark has a tooltip");
        let account = mark.attribute("data-account").expect("data-account");
        assert!(tip.starts_with(&format!("{account} · ")), "{tip}");
        assert!(tip.ends_with("move") || tip.ends_with("moves") || tip.ends_with("stalled"));
    }
    let first = with_class(&doc, "move")
        .find(|m| m.attribute("data-account") == Some("alice"))
        .expect("alice moved");
    assert_eq!(
        tooltip(first).as_deref(),
        Some("alice · 2015-05-03 01:00 UTC · IP-1 · 2 moves")
    );
    let folded = with_class(&doc, "stall")
        .find(|m| m.attribute("data-account") == Some("bob"))
        .expect("bob stalled");
    assert_eq!(
        tooltip(folded).as_deref(),
        Some("bob · 2015-05-04 01:00 UTC · IP-4 (other IPs) · stalled")
    );
}

#[test]
fn legend_lists_every_account_sorted_even_without_marks() {
    let svg = render(&small(), &["carol", "bob", "alice", "bob"], &opts());
    let doc = parse(&svg);
    let entries: Vec<&str> = with_class(&doc, "legend-entry")
        .map(|e| e.attribute("data-account").expect("data-account"))
        .collect();
    assert_eq!(entries, ["alice", "bob", "carol"]);
    let fills: Vec<&str> = with_class(&doc, "legend-entry")
        .map(|e| {
            e.children()
                .find(|c| c.has_tag_name("rect"))
                .and_then(|r| r.attribute("fill"))
                .expect("swatch")
        })
        .collect();
    assert_eq!(fills, [viz::colour(0), viz::colour(1), viz::colour(2)]);
    // Marks take their account's legend colour.
    for mark in with_class(&doc, "move") {
        let i = entries
            .iter()
            .position(|u| Some(*u) == mark.attribute("data-account"))
            .expect("known account");
        assert_eq!(mark.attribute("fill"), Some(viz::colour(i)));
    }
    assert!(!with_class(&doc, "move").any(|m| m.attribute("data-account") == Some("carol")));
}

#[test]
fn rules_every_eight_hours_with_dates_at_midnight() {
    let svg = render(&small(), &["alice", "bob"], &opts());
    let doc = parse(&svg);
    let dates: Vec<&str> = with_class(&doc, "date")
        .filter_map(|n| n.text().map(str::trim))
        .collect();
    // Marks from 01:00 on day one to 20:00 on day two: rules from midnight
    // to the next midnight after the last bucket.
    assert_eq!(dates, ["2015-05-03", "2015-05-04", "2015-05-05"]);
    let hours: Vec<&str> = with_class(&doc, "hour")
        .filter_map(|n| n.text().map(str::trim))
        .collect();
    assert_eq!(hours, ["08:00", "16:00", "08:00", "16:00"]);
    let rules = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("rules"))
        .expect("rules");
    let widths: Vec<f64> = rules
        .children()
        .filter(|n| n.has_tag_name("line"))
        .map(|l| number(l, "stroke-width"))
        .collect();
    assert_eq!(widths.len(), 7);
    assert!(widths[0] > widths[1] && widths[3] > widths[1] && widths[6] > widths[5]);
    // Time runs down: 8 hours is 32 px at 4 px an hour.
    let ys: Vec<f64> = rules
        .children()
        .filter(|n| n.has_tag_name("line"))
        .map(|l| number(l, "y1"))
        .collect();
    assert!(
        ys.windows(2).all(|w| (w[1] - w[0] - 32.0).abs() < 1e-9),
        "{ys:?}"
    );
}

#[test]
fn marks_run_down_the_page_in_time_order() {
    let svg = render(&small(), &["alice", "bob"], &opts());
    let doc = parse(&svg);
    let bob_ip2: Vec<f64> = with_class(&doc, "move")
        .filter(|m| m.attribute("data-ip") == Some("IP-2"))
        .map(|m| number(m, "y"))
        .collect();
    assert_eq!(bob_ip2.len(), 5);
    // Moves two hours apart: 8 px apart.
    assert!(
        bob_ip2.windows(2).all(|w| (w[1] - w[0] - 8.0).abs() < 1e-9),
        "{bob_ip2:?}"
    );
}

#[test]
fn pseudonyms_follow_first_use_by_time_then_account_name() {
    let mut b = Build::new(1800);
    b.moved("zed", T0, "9.9.9.9", 1)
        .moved("amy", T0 + 100, "8.8.8.8", 1)
        .moved("amy", T0 + HOUR, "9.9.9.9", 1)
        .moved("zed", T0 + 2 * HOUR, "8.8.8.8", 1);
    let svg = render(&b.finish(), &["zed", "amy"], &opts());
    // Raw addresses are not shown by default.
    assert!(!svg.contains("8.8.8.8") && !svg.contains("9.9.9.9"));
    let doc = parse(&svg);
    let mut marks: Vec<(String, String)> = with_class(&doc, "move")
        .map(|m| {
            (
                tooltip(m).expect("tooltip"),
                m.attribute("data-ip").expect("data-ip").to_owned(),
            )
        })
        .collect();
    marks.sort();
    let ip = |account: &str, time: &str| {
        let prefix = format!("{account} · 2015-05-03 {time} UTC · ");
        marks
            .iter()
            .find(|(tip, _)| tip.starts_with(&prefix))
            .map(|(_, ip)| ip.as_str())
            .unwrap_or_else(|| panic!("no mark {prefix} in {marks:?}"))
    };
    // Same bucket: amy's IP (8.8.8.8) is numbered first.
    assert_eq!(ip("amy", "00:00"), "IP-1");
    assert_eq!(ip("zed", "00:00"), "IP-2");
    assert_eq!(ip("amy", "01:00"), "IP-2");
    assert_eq!(ip("zed", "02:00"), "IP-1");
}

#[test]
fn show_ips_labels_columns_with_addresses_but_keeps_pseudonyms_in_attributes() {
    let o = TimelineOptions {
        show_ips: true,
        ..opts()
    };
    let svg = render(&small(), &["alice", "bob"], &o);
    let doc = parse(&svg);
    let labels: Vec<&str> = with_class(&doc, "ip-label")
        .filter_map(|n| n.text().map(str::trim))
        .collect();
    assert_eq!(labels, ["1.1.1.1", "2.2.2.2", "other IPs"]);
    let tip = with_class(&doc, "stall")
        .find(|m| m.attribute("data-account") == Some("bob"))
        .and_then(tooltip)
        .expect("tooltip");
    assert!(tip.contains("4.4.4.4 (other IPs)"), "{tip}");
    for n in doc.descendants() {
        for a in n.attributes() {
            assert!(
                !a.value().contains("1.1.1.1"),
                "{} = {}",
                a.name(),
                a.value()
            );
        }
    }
}

#[test]
fn from_and_to_restrict_the_range() {
    let s = small();
    let o = TimelineOptions {
        from: Some(T0 + 24 * HOUR),
        to: Some(T0 + 29 * HOUR),
        ..opts()
    };
    let svg = render(&s, &["alice", "bob"], &o);
    let doc = parse(&svg);
    let (moves, stalls) = count_marks(&s, &["alice", "bob"], T0 + 24 * HOUR, T0 + 29 * HOUR);
    assert_eq!((moves, stalls), (2, 5));
    assert_eq!(with_class(&doc, "move").count(), moves);
    assert_eq!(with_class(&doc, "stall").count(), stalls);
    // Pseudonyms are numbered within the range: bob's stall at 25h names
    // 4.4.4.4 first. Both IPs are single-account and brief, but folding every
    // IP would leave one column, so nothing is folded.
    let columns: Vec<&str> = with_class(&doc, "ip-column")
        .map(|g| g.attribute("data-ip").expect("data-ip"))
        .collect();
    assert_eq!(columns, ["IP-1", "IP-2"]);
    let dates: Vec<&str> = with_class(&doc, "date")
        .filter_map(|n| n.text().map(str::trim))
        .collect();
    assert_eq!(dates, ["2015-05-04"]);
}

#[test]
fn the_tail_after_all_but_one_account_stopped_is_trimmed() {
    let mut b = Build::new(1800);
    for day in 0..3 {
        b.moved("alice", T0 + day * DAY + 10 * HOUR, "1.1.1.1", 1)
            .moved("bob", T0 + day * DAY + 11 * HOUR, "1.1.1.1", 1);
    }
    for day in 3..30 {
        b.moved("alice", T0 + day * DAY + 10 * HOUR, "1.1.1.1", 1);
    }
    let s = b.finish();
    let svg = render(&s, &["alice", "bob"], &opts());
    let doc = parse(&svg);
    // bob's last record: day 2, 11:00; kept until 12 hours later.
    let cutoff = T0 + 2 * DAY + 23 * HOUR;
    let (moves, _) = count_marks(&s, &["alice", "bob"], i64::MIN, cutoff + 1);
    assert_eq!(with_class(&doc, "move").count(), moves);
    assert_eq!(moves, 6);
    let dates: Vec<&str> = with_class(&doc, "date")
        .filter_map(|n| n.text().map(str::trim))
        .collect();
    // From the midnight before the first mark to the 8-hour rule after the
    // last kept one (day 2, 10:00).
    assert_eq!(dates, ["2015-05-03", "2015-05-04", "2015-05-05"]);
    let height = number(doc.root_element(), "height");
    assert!(height < 3.5 * 96.0 + 200.0, "{height}");

    // A single account is never trimmed.
    let alone = render(&s, &["alice"], &opts());
    assert_eq!(with_class(&parse(&alone), "move").count(), 30);
}

#[test]
fn stalls_without_a_next_ip_go_to_the_other_column() {
    let mut b = Build::new(1800);
    b.moved("alice", T0, "1.1.1.1", 1)
        .stalled("alice", T0 + HOUR, None)
        .moved("bob", T0, "1.1.1.1", 1);
    let svg = render(&b.finish(), &["alice", "bob"], &opts());
    let doc = parse(&svg);
    let columns: Vec<&str> = with_class(&doc, "ip-column")
        .map(|g| g.attribute("data-ip").expect("data-ip"))
        .collect();
    assert_eq!(columns, ["IP-1", "other"]);
    let stall = with_class(&doc, "stall").next().expect("the stall");
    assert_eq!(
        stall.parent().and_then(|p| p.attribute("data-ip")),
        Some("other")
    );
    assert!(tooltip(stall).expect("tooltip").contains("no later move"));
}

#[test]
fn a_big_clique_folds_into_a_readable_width() {
    let (s, accounts) = big_clique();
    let accounts: Vec<&str> = accounts.iter().map(String::as_str).collect();
    assert_eq!(s.ips.len(), 30);
    let svg = render(&s, &accounts, &opts());
    let doc = parse(&svg);
    let width = number(doc.root_element(), "width");
    let height = number(doc.root_element(), "height");
    assert!(width <= 1600.0, "{width}");
    // 60 days at 96 px a day, plus the header.
    assert!(
        height > 60.0 * 96.0 && height < 61.0 * 96.0 + 400.0,
        "{height}"
    );
    let columns: Vec<&str> = with_class(&doc, "ip-column")
        .map(|g| g.attribute("data-ip").expect("data-ip"))
        .collect();
    assert_eq!(columns.len(), 4, "{columns:?}");
    assert_eq!(columns.last(), Some(&"other"));
    let (moves, stalls) = count_marks(&s, &accounts, i64::MIN, i64::MAX);
    assert_eq!(with_class(&doc, "move").count(), moves);
    assert_eq!(with_class(&doc, "stall").count(), stalls);
    assert_eq!(with_class(&doc, "legend-entry").count(), 8);
}

/// Many IPs never shrink the strips out of sight: each account's strip stays
/// at least 12 px wide and the picture grows wider instead (the report
/// scrolls it).
#[test]
fn many_shared_ips_keep_readable_strips() {
    // 30 IPs, each used by two accounts in many buckets: nothing to fold.
    let accounts: Vec<String> = (1..=8).map(|i| format!("u{i}")).collect();
    let mut b = Build::new(1800);
    for ip in 0..30i64 {
        for k in 0..6i64 {
            let account = &accounts[((ip + k) % 8) as usize];
            b.moved(
                account,
                T0 + (ip * 6 + k) * HOUR,
                &format!("10.1.{ip}.1"),
                1,
            );
        }
    }
    let accounts: Vec<&str> = accounts.iter().map(String::as_str).collect();
    let svg = render(&b.finish(), &accounts, &opts());
    let doc = parse(&svg);
    assert_eq!(with_class(&doc, "ip-column").count(), 30);
    assert!(number(doc.root_element(), "width") >= 30.0 * 8.0 * 12.0);
    // In one column, neighbouring accounts' marks sit a strip (>= 12 px) apart.
    let column = with_class(&doc, "ip-column").next().expect("a column");
    let mut xs: Vec<(String, f64)> = column
        .descendants()
        .filter(|n| n.attribute("class") == Some("move"))
        .map(|m| {
            (
                m.attribute("data-account").unwrap().to_owned(),
                number(m, "x"),
            )
        })
        .collect();
    xs.sort_by(|a, b| a.1.total_cmp(&b.1));
    xs.dedup_by(|a, b| a.0 == b.0);
    assert!(xs.len() >= 2, "{xs:?}");
    for w in xs.windows(2) {
        assert!(w[1].1 - w[0].1 >= 12.0 - 1e-9, "{xs:?}");
    }
}

/// Each account's moves differ by shape as well as colour, and the legend shows
/// both.
#[test]
fn accounts_get_distinct_shapes_and_colours() {
    let svg = render(&small(), &["alice", "bob", "carol"], &opts());
    let doc = parse(&svg);
    let mut by_account: std::collections::BTreeMap<&str, (&str, &str)> = Default::default();
    for m in with_class(&doc, "move") {
        let account = m.attribute("data-account").unwrap();
        let look = (
            m.attribute("data-shape").unwrap(),
            m.attribute("fill").unwrap(),
        );
        assert_eq!(
            *by_account.entry(account).or_insert(look),
            look,
            "{account}"
        );
    }
    let shapes: std::collections::BTreeSet<&str> = by_account.values().map(|l| l.0).collect();
    let fills: std::collections::BTreeSet<&str> = by_account.values().map(|l| l.1).collect();
    assert_eq!(
        (shapes.len(), fills.len()),
        (by_account.len(), by_account.len())
    );
    for entry in with_class(&doc, "legend-entry") {
        assert!(entry
            .descendants()
            .any(|n| n.attribute("data-shape").is_some()));
    }
}

/// Given the season's pseudonyms, columns and marks use them, not numbers
/// of their own.
#[test]
fn stored_pseudonyms_name_the_columns() {
    let s = small();
    let mut numbers = std::collections::HashMap::new();
    for (i, ip) in ["1.1.1.1", "2.2.2.2", "3.3.3.3", "4.4.4.4"]
        .iter()
        .enumerate()
    {
        if let Some(id) = s.ips.get(ip) {
            numbers.insert(id, 40 + i as u32);
        }
    }
    let o = TimelineOptions {
        pseudonyms: Some(schema::IpPseudonyms::new(numbers)),
        ..opts()
    };
    let svg = render(&s, &["alice", "bob"], &o);
    let doc = parse(&svg);
    let keys: Vec<&str> = with_class(&doc, "ip-column")
        .map(|g| g.attribute("data-ip").unwrap())
        .collect();
    assert_eq!(keys, ["IP-40", "IP-41", "other"]);
    assert!(with_class(&doc, "move").all(|m| m
        .attribute("data-ip")
        .is_some_and(|ip| ip.starts_with("IP-4"))));
}

#[test]
fn nothing_to_draw_still_gives_a_valid_picture() {
    let svg = render(&schema::Segments::new(1800), &["ghost"], &opts());
    let doc = parse(&svg);
    assert_eq!(with_class(&doc, "legend-entry").count(), 1);
    assert_eq!(with_class(&doc, "ip-column").count(), 0);
    assert!(with_class(&doc, "empty").next().is_some());
}

#[test]
fn output_is_deterministic_and_independent_of_account_order() {
    let (s, accounts) = big_clique();
    let mut names: Vec<&str> = accounts.iter().map(String::as_str).collect();
    let a = render(&s, &names, &opts());
    names.reverse();
    let b = render(&s, &names, &opts());
    assert_eq!(a, b);
}
