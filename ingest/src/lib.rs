//! # detect-ingest
//!
//! Turns move logs into segments.
//!
//! - [`read`]: readers for JSON lines and CSV move logs, plain, gzip or from
//!   standard input, that report every bad line with its file and line number.
//! - [`time`]: the time formats a log may use.
//! - [`segment`]: the segmenter, which buckets moves into per-account segments
//!   (moved / stalled) by the reference's stall rule.
//!
//! What it is not: it does not store anything (`detect-store` does) and it
//! does not score (that is `detect-scoring`).

pub mod lines;
pub mod ranges;
pub mod read;
pub mod segment;
pub mod time;

pub use read::{
    open_log, open_log_as, open_log_with, shown_name, warn_if_fifo, IdMove, LineRef, LogLine,
    LogReader, MoveRef, NewNames, ReadError, ReaderNames,
};
pub use schema::rules::Limits;
pub use segment::{segment_moves, sort_by_time, Segmenter};
