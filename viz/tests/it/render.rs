//! Every picture rasterises (resvg) to its declared size and is not blank.
//! Text is not drawn (no fonts are loaded): the marks alone must show.

use crate::common::*;
use detect_viz as viz;
use resvg::{tiny_skia, usvg};
use std::collections::BTreeSet;

/// Renders `svg`; returns its size and the set of opaque colours drawn.
fn rasterise(svg: &str) -> ((u32, u32), BTreeSet<[u8; 3]>) {
    let tree = usvg::Tree::from_str(svg, &usvg::Options::default()).expect("usvg parses");
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).expect("pixmap");
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    let colours = pixmap
        .pixels()
        .iter()
        .filter(|p| p.alpha() == 255)
        .map(|p| [p.red(), p.green(), p.blue()])
        .collect();
    ((size.width(), size.height()), colours)
}

fn declared_size(svg: &str) -> (u32, u32) {
    let doc = parse(svg);
    let get = |a: &str| -> u32 {
        let v: f64 = doc
            .root_element()
            .attribute(a)
            .and_then(|v| v.parse().ok())
            .expect("size");
        v.ceil() as u32
    };
    (get("width"), get("height"))
}

fn rgb(hex: &str) -> [u8; 3] {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).expect("hex colour");
    [(v >> 16) as u8, (v >> 8) as u8, v as u8]
}

/// Whether some drawn colour is within `tolerance` (per channel) of `hex`.
fn has_colour(colours: &BTreeSet<[u8; 3]>, hex: &str, tolerance: u8) -> bool {
    let want = rgb(hex);
    colours
        .iter()
        .any(|c| c.iter().zip(want).all(|(&a, b)| a.abs_diff(b) <= tolerance))
}

#[test]
fn timeline_renders_with_every_accounts_colour() {
    let (s, accounts) = big_clique();
    let accounts: Vec<&str> = accounts.iter().map(String::as_str).collect();
    let opts = viz::TimelineOptions {
        to: Some(T0 + 10 * DAY),
        ..Default::default()
    };
    let svg = viz::timeline(&s, &accounts, &opts).to_string();
    let (size, colours) = rasterise(&svg);
    assert_eq!(size, declared_size(&svg));
    assert!(colours.len() >= 10, "{} colours", colours.len());
    for i in 0..accounts.len() {
        assert!(has_colour(&colours, viz::colour(i), 0), "account {i}");
    }
}

#[test]
fn distribution_renders_series_and_threshold() {
    let sims: Vec<f64> = (0..500).map(|i| 1.0 - (i as f64 / 500.0).sqrt()).collect();
    let svg = viz::distribution(&sims, 0.9, "t").to_string();
    let (size, colours) = rasterise(&svg);
    assert_eq!(size, (800, 520));
    assert_eq!(size, declared_size(&svg));
    assert!(colours.len() >= 4, "{} colours", colours.len());
    assert!(has_colour(&colours, "#4e79a7", 8), "the series");
    assert!(has_colour(&colours, "#ffffff", 0), "the background");
}

#[test]
fn compare_renders_both_series() {
    let a: Vec<f64> = (0..80).map(|i| 1.0 - i as f64 / 80.0).collect();
    let b: Vec<f64> = (0..200).map(|i| 0.9 - i as f64 / 400.0).collect();
    let svg = viz::compare(
        &viz::Series {
            label: "a",
            similarities: &a,
        },
        &viz::Series {
            label: "b",
            similarities: &b,
        },
        0.9,
    )
    .to_string();
    let (size, colours) = rasterise(&svg);
    assert_eq!(size, declared_size(&svg));
    assert!(has_colour(&colours, "#4e79a7", 8), "season a");
    assert!(has_colour(&colours, "#e15759", 8), "season b");
}
