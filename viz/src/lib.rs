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
//! the same input gives the same bytes (users sorted by name, a fixed colour
//! palette, no generation timestamps).
//!
//! Every user-supplied string (usernames, IPs, titles, file names) is
//! escaped exactly once: the `svg` crate escapes text and attribute values
//! when a document is written, so SVG code hands it raw strings; the HTML is
//! written here and escaped by [`escape::html`].

pub mod chart;
pub mod escape;
pub mod explain;
pub mod html;
pub mod known;
pub mod timeline;

mod fmt;

pub use chart::{compare, distribution, Series};
pub use explain::{explain, ExplainError};
pub use html::{report_html, ReportPage};
pub use known::verdict_sections_html;
pub use timeline::{timeline, TimelineOptions};

/// The colours given to users, in order of their sorted names (Tableau 10).
/// A picture with more users than colours reuses them from the start.
pub const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

/// The colour of the `i`-th user (0-based, in sorted order).
pub fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}
