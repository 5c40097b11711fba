//! One module per command family.

pub mod buckets;
pub mod docs;
pub mod ingest;
pub mod pictures;
pub mod scan;
pub mod season;
pub mod simulate;
