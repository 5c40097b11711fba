//! # detect-app
//!
//! The application: the pipeline that wires the crates together (read →
//! store → segment → score), the report writers, retention, and the
//! daemon's ticks. The `detect` binary parses the command line and calls
//! in here; the daemon and the benches use it too. Long steps report their
//! progress through [`progress`]; nothing here writes to the terminal.

#[cfg(feature = "cluster")]
pub mod cluster;
pub mod daemon;
pub mod demo;
pub mod file_digest;
pub mod log_format;
pub mod model;
pub mod pipeline;
pub mod privacy;
pub mod progress;
pub mod prometheus;
pub mod purge;
pub mod report;

/// An error chain as one sentence: the outermost message, then its causes
/// where they add something.
pub fn error_sentence(e: &anyhow::Error) -> String {
    let mut out = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !out.contains(&c) {
            out.push_str(": ");
            out.push_str(&c);
        }
    }
    out
}
