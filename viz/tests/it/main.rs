//! The drawing crate's tests, one test binary: golden pictures, rendering,
//! escaping, charts, the report page and timelines.

mod common;

mod charts;
mod escaping;
mod golden;
mod highlights;
mod overview;
mod render;
mod report;
mod timeline;
