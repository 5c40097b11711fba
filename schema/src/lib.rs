//! # detect-schema
//!
//! The vocabulary every other crate of `detect` speaks: moves, segments,
//! seasons, candidate pairs and the evidence behind a similarity score,
//! moderators' verdicts, and accounts linked into groups (`linked`).
//!
//! What it is not: it does not parse move logs (that is `detect-ingest`), it
//! does not score (that is `detect-scoring`), and it does not store (that is
//! `detect-store`, the only crate that speaks SQL). The types here are plain
//! data.

pub mod address;
pub mod ip_counts;
pub mod linked;
pub mod model;
mod names;
pub mod order;
pub mod pseudonym;
pub mod rescan;
pub mod rules;
pub mod season;
pub mod segment;
pub mod signals;
mod stall_ip;
pub mod terminal;
pub mod verdict;

pub use ip_counts::IpCounts;
pub use model::*;
pub use pseudonym::IpPseudonyms;
pub use season::{Season, SeasonError};
pub use segment::{bucket_counts, expand, join_runs, push_joined};
pub use signals::{Signals, Timing};
pub use stall_ip::StallIp;
pub use verdict::{AuditEntry, NewVerdict, Verdict, VerdictKind};
