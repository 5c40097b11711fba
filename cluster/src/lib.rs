//! # detect-cluster
//!
//! Scans on Apache DataFusion Ballista (docs/scale-out.md): a season as
//! Parquet partitioned by a hash of the account ([`export`], [`layout`]), the
//! scan as a SQL plan of joins and shuffles ([`plan`]) that scores the
//! candidate pairs by parts ([`part`]), each part's accounts shipped to it
//! once in a compact binary form ([`packed`]), with detect's own [`scoring::score_pair`] registered as the
//! DataFusion window function `detect_score` ([`score`], [`segments`]), and
//! Ballista's scheduler and executor with those functions registered
//! ([`nodes`]). [`scan::run`] runs the plan on any
//! session (a cluster's or a local one) and writes the results as Parquet;
//! [`scan::read`] turns them back into a [`schema::ScanResult`].
//!
//! What it is not: not a cluster of its own (Ballista schedules the tasks,
//! shuffles between executors and spills; this crate supplies the layout,
//! the SQL and the function), not a reader of the store (the binary exports
//! a season and stores the results), and not a second scoring: improved
//! mode has no plan yet, and reference mode is `scoring::score_pair`.

pub mod export;
pub mod layout;
pub mod nodes;
pub mod packed;
pub mod part;
pub mod plan;
pub mod scan;
pub mod score;
pub mod segments;
pub mod spill;
