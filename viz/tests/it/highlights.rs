//! The stars and bands on the buckets that weighed most, and the key that
//! promises them only where they are drawn.

use crate::common::*;
use crate::timeline::{opts, render};
use detect_viz as viz;
use viz::TimelineOptions;

/// The buckets given as highlights get a star with the note as tooltip.
#[test]
fn highlights_mark_the_strongest_buckets() {
    let o = TimelineOptions {
        highlights: vec![viz::Highlight {
            bucket: T0 + 2 * HOUR,
            note: "+22 for alice \u{2192} bob".to_owned(),
        }],
        ..opts()
    };
    let svg = render(&small(), &["alice", "bob"], &o);
    let doc = parse(&svg);
    let stars: Vec<String> = with_class(&doc, "highlight")
        .map(|n| tooltip(n).expect("tooltip"))
        .collect();
    assert_eq!(stars, ["2015-05-03 02:00 UTC: +22 for alice \u{2192} bob"]);
    assert_eq!(with_class(&doc, "highlight-band").count(), 1);
}

/// The key promises a star and band only on a picture that draws them.
#[test]
fn the_key_promises_stars_only_where_they_are_drawn() {
    let s = small();
    let plain = render(&s, &["alice", "bob"], &opts());
    assert!(!plain.contains("weighed most"), "{plain}");
    assert_eq!(with_class(&parse(&plain), "highlight").count(), 0);
    let marked = TimelineOptions {
        highlights: vec![viz::Highlight {
            bucket: T0 + 2 * HOUR,
            note: "+12 for alice \u{2192} bob: both moved from the same IP".to_owned(),
        }],
        ..opts()
    };
    let starred = render(&s, &["alice", "bob"], &marked);
    assert!(starred.contains("weighed most"));
    assert_eq!(with_class(&parse(&starred), "highlight").count(), 1);
}
