//! # detect-viz
//!
//! The pictures of `detect` (SPEC section 6), for moderators:
//!
//! - [`timeline()`]: one SVG per clique, one column per IP, time running down
//!   the page, a square per move and a thin bar per stalled bucket, with
//!   ephemeral IPs folded into one "other IPs" column and the lone tail
//!   trimmed;
//! - [`distribution`] and [`compare`]: a season's similarities against rank,
//!   alone or two seasons overlaid;
//! - [`report_html`]: the self-contained HTML page of a scan that links them;
//! - [`explain()`]: the evidence behind a pair in words.
//!
//! What it is not: it reads no file and opens no database, and it does not
//! score. It takes data ([`schema::Segments`], similarities, a
//! [`schema::ScanResult`]) and returns data (an [`svg::Document`] or a
//! `String`); the caller decides where to write it. Output is deterministic:
//! the same input gives the same bytes (accounts sorted by name, a fixed colour
//! palette, no generation timestamps).
//!
//! Every user-supplied string (usernames, IPs, titles, file names) is
//! escaped exactly once: the `svg` crate escapes text and attribute values
//! when a document is written, so SVG code hands it raw strings; the HTML is
//! written here and escaped by [`escape::html`].

mod canvas;
pub mod chart;
pub mod escape;
pub mod explain;
pub mod guide;
pub mod html;
pub mod known;
pub mod marks;
pub mod overview;
pub mod timeline;

mod fmt;

pub use chart::{compare, distribution, Series};
pub use explain::{explain, explain_scored, ExplainError, Scored};
pub use html::{report_html, CliquePictures, ReportPage, Verdicts};
pub use known::verdict_sections_html;
pub use overview::overview;
pub use timeline::{timeline, Highlight, TimelineOptions};

/// The colours given to accounts, in order of their sorted names: the
/// Okabe–Ito palette, told apart with every common colour-vision deficiency
/// (its yellow is left out: too pale on white). Accounts also get a shape
/// ([`SHAPES`]), so two marks never differ by colour alone. A picture with
/// more accounts than colours reuses them from the start.
pub const PALETTE: [&str; 7] = [
    "#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9", "#000000",
];

/// The shape of each account's move marks, index-aligned with [`PALETTE`] but of
/// another length, so colour and shape repeat together only after 42 accounts.
pub const SHAPES: [Shape; 6] = [
    Shape::Square,
    Shape::Circle,
    Shape::Triangle,
    Shape::Diamond,
    Shape::Cross,
    Shape::Bar,
];

/// A mark's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Square,
    Circle,
    Triangle,
    Diamond,
    Cross,
    Bar,
}

impl Shape {
    pub fn name(self) -> &'static str {
        match self {
            Shape::Square => "square",
            Shape::Circle => "circle",
            Shape::Triangle => "triangle",
            Shape::Diamond => "diamond",
            Shape::Cross => "cross",
            Shape::Bar => "bar",
        }
    }
}

/// The colour of the `i`-th account (0-based, in sorted order).
pub fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// The shape of the `i`-th account's moves.
pub fn shape(i: usize) -> Shape {
    SHAPES[i % SHAPES.len()]
}
