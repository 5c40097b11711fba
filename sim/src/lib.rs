//! # detect-sim
//!
//! A synthetic game site with ground truth, and the evaluation of `detect`'s
//! results against that truth (`detect simulate`, `detect eval`, `detect
//! demo`).
//!
//! ## Simulation
//!
//! [`simulate`] writes the move log of a [`WorldConfig`] (JSON lines in the
//! reference format, sorted by time) and returns its [`Truth`]: which
//! accounts one person plays ([`Truth::groups`]) and which honest people
//! share IPs ([`Truth::lookalikes`]). [`simulate_each`] hands the moves to a
//! callback instead, [`simulate_moves`] collects them (small worlds).
//!
//! The world makes detection hard the ways real sites do: people in time
//! zones with sleep, work or lectures, several check-ins a day, weekends,
//! holidays and absences; asynchronous 3-5 player games with turn order,
//! many at once, the season's league (`4pLeague_S{season}_D{d}L{n}G{k}`) and
//! casual games; dynamic home IPs, offices, universities, carrier NAT shared
//! by strangers' phones, VPNs and hotels; couples and families at one home
//! IP (some taking turns at one computer); and multi-account owners of 2-8
//! accounts in four [`Style`]s (lockstep, main account on the phone,
//! cautious, rarely played puppets), all of whose accounts play in the
//! league.
//!
//! **World families** ([`Family`], `detect simulate --family NAME`): every
//! habit one of improved mode's signals leans on is a knob of the world
//! ([`Habits`], each with its range), and each family sets some of them so
//! that honest people show a habit as strongly as one person does, for
//! their own reasons (colleagues who play at lunch in one order, couples
//! who hand over after an hour, students behind a campus network, families
//! on one phone plan, a sparse site, quick players), or owners lose the
//! habits read as theirs (careful owners). [`Family::Default`] is the
//! default world, byte for byte. EVALUATION.md holds each family out in
//! turn.
//!
//! Volume: about `accounts x days x 12` moves ([`MOVES_PER_ACCOUNT_DAY`],
//! [`WorldConfig::expected_moves`]): 300 x 28 about 100k, 1,200 x 28 about
//! 400k, 20,000 x 42 about 10M ([`WorldConfig::for_moves`] picks the
//! accounts). Streaming: memory grows with accounts, not moves (some 40 MB for
//! 10M moves, written in about 8 s on one core). Deterministic: the same
//! config gives the same bytes on every platform.
//!
//! ## Evaluation
//!
//! [`evaluate`] compares all scored directed pairs of a scan with the truth:
//! precision, recall (over all true pairs, and over candidates) and F1,
//! directed and undirected; false positives by cause; recovered cliques;
//! ROC AUC and average precision; a threshold sweep. See [`eval`] for the
//! exact definitions.
//!
//! ## What it is not
//!
//! It does no scoring (that is `detect-scoring`), reads no logs and opens no
//! database; the CLI wires it to the rest.
//!
//! ```
//! use detect_sim as sim;
//! let cfg = sim::WorldConfig { accounts: 60, days: 3, cliques: 3, ..Default::default() };
//! let mut log = Vec::new();
//! let truth = sim::simulate(&cfg, &mut log).unwrap();
//! assert_eq!(truth.groups.len(), 3);
//! assert!(log.starts_with(b"{\"username\": \""));
//! ```

mod draw;
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
pub use world::{Family, Habits, WorldConfig, DEFAULT_START, MOVES_PER_ACCOUNT_DAY};
