//! The one insert path of moves, and the writer that runs it beside the
//! reading: while the store writes one chunk of moves, the caller reads,
//! numbers and checks the next.
//!
//! A chunk's insert is a task of its own that holds the ingest's
//! transaction until it is done; [`Writer::settle`] waits for it and takes
//! the transaction back. At most one chunk is in flight, so memory holds
//! two chunks at most, and an error (a refused move, a database error) is
//! the batch's at the next call that settles: the caller then rolls the
//! batch back, as before.
//!
//! The games and accounts a chunk names are stored before its moves, each
//! once per batch: the names the transaction already holds travel with it
//! ([`Named`]), so a name is sent again only when it is new to the batch
//! (a season's chunk of moves names thousands of games, nearly all seen
//! in the chunks before it).

use super::super::privacy::{self, IpKey};
use super::super::sql::insert_rows;
use super::super::{Backend, NewMove, Result, StoreError};
use rustc_hash::FxHashSet;
use schema::rules::Limits;
use schema::Epoch;
use sqlx::{Any, Transaction};
use std::collections::BTreeSet;
use std::sync::Arc;

/// An ingest's transaction.
pub(super) type Tx = Transaction<'static, Any>;

/// What a chunk's insert needs besides its moves.
#[derive(Clone)]
pub(super) struct Inserter {
    pub backend: Backend,
    pub limits: Limits,
    pub ip_key: Option<Arc<IpKey>>,
    /// Moves before this were purged: they are not stored again.
    pub purged_before: Option<Epoch>,
    pub site: Arc<str>,
}

/// What one chunk's insert did.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Inserted {
    /// Moves stored for the first time.
    pub new: u64,
    /// Moves left out as older than the latest purge.
    pub expired: u64,
}

/// The games and accounts the batch's transaction has stored (or found
/// stored): what a later chunk need not send again.
#[derive(Default)]
pub(super) struct Named {
    games: FxHashSet<Box<str>>,
    accounts: FxHashSet<Box<str>>,
}

type InFlight = tokio::task::JoinHandle<(Tx, Named, Result<Inserted>)>;

/// The ingest's transaction, either here or with the chunk being written,
/// and the names it holds.
pub(super) struct Writer {
    tx: Option<(Tx, Named)>,
    in_flight: Option<InFlight>,
}

impl Writer {
    pub fn new(tx: Tx) -> Writer {
        Writer {
            tx: Some((tx, Named::default())),
            in_flight: None,
        }
    }

    /// Waits for the chunk in flight, if any; its counts, or its error.
    pub async fn settle(&mut self) -> Result<Inserted> {
        let Some(task) = self.in_flight.take() else {
            return Ok(Inserted::default());
        };
        let (tx, named, done) = match task.await {
            Ok(r) => r,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => {
                return Err(StoreError::NotReady(format!(
                    "an insert was cancelled: {e}"
                )))
            }
        };
        self.tx = Some((tx, named));
        done
    }

    /// The transaction, once settled.
    ///
    /// # Panics
    /// While a chunk is in flight ([`Writer::settle`] first).
    pub fn tx(&mut self) -> &mut Tx {
        &mut self.tx.as_mut().expect("settled before use").0
    }

    /// The transaction itself, once settled (`None` if its insert was
    /// cancelled, which rolled it back).
    pub fn into_tx(mut self) -> Option<Tx> {
        self.tx.take().map(|(tx, _)| tx)
    }

    /// Starts writing `moves` with `inserter`, after the chunk before it:
    /// returns that chunk's counts (or its error) once it is done.
    pub async fn start(&mut self, inserter: &Inserter, moves: Vec<NewMove>) -> Result<Inserted> {
        let before = self.settle().await?;
        let (mut tx, mut named) = self.tx.take().expect("settled");
        let inserter = inserter.clone();
        self.in_flight = Some(tokio::spawn(async move {
            let done = inserter.insert(&mut tx, &mut named, &moves).await;
            (tx, named, done)
        }));
        Ok(before)
    }
}

impl Inserter {
    /// Stores numbered moves not stored before. The one insert path of
    /// moves: a move that breaks the record rule is refused (an error, and
    /// nothing of the chunk is inserted). `named`: the names `tx` holds,
    /// to which the chunk's are added.
    pub async fn insert(
        &self,
        tx: &mut Tx,
        named: &mut Named,
        moves: &[NewMove],
    ) -> Result<Inserted> {
        self.check(moves)?;
        let kept: Vec<NewMove>;
        let mut expired = 0;
        let moves = match self.purged_before {
            Some(cut) if moves.iter().any(|m| m.mv.timestamp < cut) => {
                kept = moves
                    .iter()
                    .filter(|m| m.mv.timestamp >= cut)
                    .cloned()
                    .collect();
                expired = (moves.len() - kept.len()) as u64;
                &kept[..]
            }
            _ => moves,
        };
        self.insert_names(tx, named, moves).await?;
        // No raw address is written in a keyed store: the IP and its
        // network are hashed here, on the one way moves come in.
        let ips: Vec<(String, Option<String>)> = moves
            .iter()
            .map(|m| privacy::stored_ip(self.ip_key.as_deref(), &m.mv.ip))
            .collect();
        // Each value bound borrowed from its row: no copy of a name a move.
        let rows: Vec<_> = moves
            .iter()
            .zip(&ips)
            .map(|(m, ip)| (m, ip, &*self.site))
            .collect();
        let new = insert_rows(
            self.backend,
            tx,
            "moves (username, game, ts, ip, occurrence, net, site)",
            7,
            " ON CONFLICT (ts, username, game, ip, occurrence, site) DO NOTHING",
            &rows,
            |q, (m, (ip, net), site)| {
                q.bind(m.mv.username.as_str())
                    .bind(m.mv.game.as_str())
                    .bind(m.mv.timestamp)
                    .bind(ip.as_str())
                    .bind(m.occurrence as i64)
                    .bind(net.as_deref())
                    .bind(*site)
            },
        )
        .await?;
        Ok(Inserted { new, expired })
    }

    /// Refuses the chunk if a move breaks the record rule or has its
    /// address in another than its one normal form (`schema::address`,
    /// which every source gives before numbering and hashing it).
    fn check(&self, moves: &[NewMove]) -> Result<()> {
        for m in moves {
            self.limits
                .check_move(&m.mv)
                .map_err(|v| StoreError::Refused(format!("a move of {:?}: {v}", m.mv.username)))?;
            if !schema::rules::normal_ip(&m.mv.ip).is_ok_and(|n| n == m.mv.ip) {
                return Err(StoreError::Refused(format!(
                    "a move of {:?}: its ip is not an IP address in normal form",
                    m.mv.username
                )));
            }
        }
        Ok(())
    }

    /// The games and accounts of `moves` not in `named`, each once per
    /// site; added to `named` once stored.
    async fn insert_names(&self, tx: &mut Tx, named: &mut Named, moves: &[NewMove]) -> Result<()> {
        let games = new_names(&named.games, moves.iter().map(|m| m.mv.game.as_str()));
        insert_rows(
            self.backend,
            tx,
            "games (site, name)",
            2,
            " ON CONFLICT (site, name) DO NOTHING",
            &games,
            |q, g| q.bind(self.site.to_string()).bind(g.to_string()),
        )
        .await?;
        named.games.extend(games.into_iter().map(Box::from));
        let accounts = new_names(
            &named.accounts,
            moves.iter().map(|m| m.mv.username.as_str()),
        );
        insert_rows(
            self.backend,
            tx,
            "accounts (site, username)",
            2,
            " ON CONFLICT (site, username) DO NOTHING",
            &accounts,
            |q, a| q.bind(self.site.to_string()).bind(a.to_string()),
        )
        .await?;
        named.accounts.extend(accounts.into_iter().map(Box::from));
        Ok(())
    }
}

/// The distinct `names` not in `known`, sorted.
fn new_names<'a>(
    known: &FxHashSet<Box<str>>,
    names: impl Iterator<Item = &'a str>,
) -> Vec<&'a str> {
    let new: BTreeSet<&str> = names.filter(|n| !known.contains(*n)).collect();
    new.into_iter().collect()
}
