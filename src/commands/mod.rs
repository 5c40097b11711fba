//! One module per command family.

pub mod audit;
pub mod backup;
pub mod buckets;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod daemon;
pub mod docs;
pub mod ingest;
pub mod ip;
pub mod model;
pub mod pictures;
pub mod purge;
pub mod scan;
pub mod season;
pub mod serve;
pub mod simulate;
pub mod user;
pub mod verdict;
