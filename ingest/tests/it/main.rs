//! The ingest crate's tests, one test binary: readers under fuzzing, and
//! the segmenter resumed and settled as the store uses it.

mod common;

mod fuzz;
mod push_all;
mod resume;
mod settled;
