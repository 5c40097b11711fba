//! The end-to-end tests of the `detect` binary, one test binary (each
//! module was a test file of its own): the command line, the daemon, the
//! store on SQLite and PostgreSQL, the reports, the web application in a
//! headless browser, the site databases and, with the `cluster` feature,
//! the cluster scan. Helpers shared by the modules are in `common/`.

mod common;

mod account_columns;
mod bad_input;
mod case_export;
mod cli;
#[cfg(feature = "cluster")]
mod cluster;
mod concurrency;
mod crash;
mod crowds;
mod daemon;
mod daemon_config;
mod digests;
mod explain;
mod first_runs;
mod flag_list;
mod golden;
mod hostile_names;
mod ingest;
mod keyed_errors;
mod model;
mod model_versions;
mod moves_index;
mod mysql_source;
mod ops;
mod pair_evidence;
mod pictures;
mod privacy;
mod purge;
mod report_browser;
mod report_dir;
mod rescan;
mod review_queue;
mod scan_pair_blocks;
mod scan_pairs_key;
mod segment_generations;
mod serve_load;
mod simulate;
mod site_database;
mod sites;
mod slow_stdin;
mod store;
mod store_users;
mod store_verdicts;
mod timing;
mod user_add;
mod verdicts;
mod web;
