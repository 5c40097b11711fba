//! # detect-sim
//!
//! A synthetic game site with ground truth, and the evaluation of `detect`'s
//! results against that truth.
//!
//! - [`simulate`] writes a season's move log (JSON lines in the reference
//!   format, time-sorted) for a [`WorldConfig`] and returns its [`Truth`]:
//!   which accounts one person plays ([`Truth::groups`]) and which honest
//!   people share IPs ([`Truth::lookalikes`]). The world is built to make
//!   detection hard the ways real sites do: time zones and daily rhythms,
//!   many asynchronous games at once, dynamic home IPs, offices,
//!   universities, carrier NAT shared by strangers' phones, households and
//!   families at one computer, and multi-account owners with different
//!   habits ([`Style`]).
//! - [`evaluate`] compares the scored pairs of a scan with the truth:
//!   precision and recall (directed and undirected), false positives by
//!   cause, recovered cliques, ROC AUC, average precision and a threshold
//!   sweep.
//!
//! What it is not: it does no scoring (that is `detect-scoring`), reads no
//! logs and opens no database. Deterministic: the same config gives the
//! same bytes on every platform.
//!
//! ```
//! use detect_sim as sim;
//! let cfg = sim::WorldConfig { players: 60, days: 3, cliques: 3, ..Default::default() };
//! let mut log = Vec::new();
//! let truth = sim::simulate(&cfg, &mut log).unwrap();
//! assert_eq!(truth.groups.len(), 3);
//! assert!(log.starts_with(b"{\"username\": \""));
//! ```

mod engine;
pub mod eval;
mod format;
mod names;
mod schedule;
pub mod truth;
mod world;

pub use engine::{simulate, simulate_each, simulate_moves, MoveRef};
pub use eval::{evaluate, Evaluation};
pub use format::format_utc;
pub use truth::{FalsePositiveCause, Group, Lookalike, LookalikeKind, Style, Truth, TruthIndex};
pub use world::{WorldConfig, DEFAULT_START, MOVES_PER_PLAYER_DAY};
