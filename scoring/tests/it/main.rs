//! The scoring crate's tests, one test binary: the reference walk against
//! the bit rows, stall runs against the walk, improved mode's signals and
//! scan path, rescans, triage.

mod common;

mod bits;
mod both_ways;
mod candidates;
mod improved;
mod improved_fit;
mod improved_handoffs;
mod improved_model;
mod improved_order;
mod improved_pace;
mod improved_scan_path;
mod improved_timing;
mod improved_verdicts;
mod order;
mod rescan;
mod runs;
mod similarity;
mod triage;
