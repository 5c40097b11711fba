//! The game site in motion: an event-driven simulation of check-ins and
//! moves in asynchronous games, in time order.
//!
//! Games wait on the player whose turn it is. A player moves in the games
//! waiting on them when they check in (oldest first, one move at a time, as
//! long as the session lasts), and answers quickly while still online. A
//! multi-account owner is one person: their accounts' moves take turns on the
//! same clock.
//!
//! Memory is bounded by the number of accounts and live games: sessions are
//! drawn one day ahead, finished games are recycled, and moves are handed out
//! as they happen.

mod games;
mod moves;
mod queue;
mod sessions;

use crate::format::JsonLines;
use crate::schedule::Session;
use crate::truth::Truth;
use crate::world::{World, WorldConfig};
use games::Game;
use queue::{Entry, Ev};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::BinaryHeap;
use std::io::{self, Write};
use std::net::Ipv4Addr;

/// Days simulated before day 0 and not written, so that day 0 finds games
/// under way.
const WARMUP_DAYS: i32 = 2;
const DAY: i64 = 86_400;

/// One move, borrowed from the simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveRef<'a> {
    pub username: &'a str,
    pub game: &'a str,
    /// UTC epoch seconds.
    pub timestamp: i64,
    pub ip: Ipv4Addr,
}

impl MoveRef<'_> {
    /// An owned [`schema::Move`].
    pub fn to_move(&self) -> schema::Move {
        schema::Move {
            username: self.username.to_owned(),
            game: self.game.to_owned(),
            timestamp: self.timestamp,
            ip: self.ip.to_string(),
        }
    }
}

/// Simulates the world of `cfg` and writes its moves to `moves` as JSON lines
/// in the reference format, sorted by time; returns the ground truth.
///
/// Output is buffered internally (64 KiB blocks) and flushed at the end, so
/// `moves` may be a bare file. The same config always gives the same bytes.
/// A bad config is an [`io::ErrorKind::InvalidInput`] error.
pub fn simulate(cfg: &WorldConfig, moves: &mut impl Write) -> io::Result<Truth> {
    let mut out = JsonLines::new(moves);
    let truth = simulate_each(cfg, |m| {
        out.push(m.username, m.game, m.timestamp, m.ip.into())
    })?;
    out.finish()?;
    Ok(truth)
}

/// Simulates the world of `cfg`, handing each move to `f` in time order
/// (equal times in a fixed order); returns the ground truth. The first error
/// of `f` stops the simulation and is returned.
pub fn simulate_each<F>(cfg: &WorldConfig, mut f: F) -> io::Result<Truth>
where
    F: FnMut(&MoveRef<'_>) -> io::Result<()>,
{
    cfg.validate()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let world =
        World::build(cfg, &mut rng).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let truth = world.truth();
    let mut sim = Sim::new(world, rng);
    sim.run(&mut f)?;
    Ok(truth)
}

/// The moves of a world in memory, with its truth: for small worlds (tests,
/// demos). About 100 bytes a move.
pub fn simulate_moves(cfg: &WorldConfig) -> io::Result<(Vec<schema::Move>, Truth)> {
    let mut moves =
        Vec::with_capacity(cfg.expected_moves() as usize + cfg.expected_moves() as usize / 4);
    let truth = simulate_each(cfg, |m| {
        moves.push(m.to_move());
        Ok(())
    })?;
    Ok((moves, truth))
}

struct Sim {
    w: World,
    rng: ChaCha8Rng,
    /// Moves and game openings to come.
    heap: BinaryHeap<Entry>,
    /// Logins to come, latest first (drawn a day ahead, sorted once a day:
    /// far cheaper than keeping them in the heap).
    logins: Vec<Entry>,
    seq: u64,
    games: Vec<Game>,
    free: Vec<u32>,
    games_made: u32,
    casual_pool: Vec<u32>,
    league_next: Vec<u32>,
    max_league_games: u32,
    t0: i64,
    t_end: i64,
    now: i64,
    sessions: Vec<Session>,
}

impl Sim {
    fn new(w: World, rng: ChaCha8Rng) -> Sim {
        let t0 = w.cfg.start;
        let t_end = t0 + w.cfg.days as i64 * DAY;
        let casual_pool = (0..w.accounts.len() as u32)
            .filter(|&a| w.accounts[a as usize].casual_target > 0)
            .collect();
        let groups = w.league.len();
        let max_league_games = 2 + w.cfg.days / 10;
        Sim {
            w,
            rng,
            heap: BinaryHeap::new(),
            logins: Vec::new(),
            seq: 0,
            games: Vec::new(),
            free: Vec::new(),
            games_made: 0,
            casual_pool,
            league_next: vec![1; groups],
            max_league_games,
            t0,
            t_end,
            now: t0 - WARMUP_DAYS as i64 * DAY,
            sessions: Vec::new(),
        }
    }

    fn run<F>(&mut self, f: &mut F) -> io::Result<()>
    where
        F: FnMut(&MoveRef<'_>) -> io::Result<()>,
    {
        let first = -WARMUP_DAYS;
        for day in first - 1..=first + 1 {
            self.schedule_day(day);
        }
        self.open_initial_games();
        for day in first..self.w.cfg.days as i32 {
            let day_start = self.t0 + day as i64 * DAY;
            self.now = day_start;
            if day > first {
                self.schedule_day(day + 1);
                self.renew_ips(day_start);
                self.lobby(day_start);
            }
            if day == 0 {
                for g in 0..self.w.league.len() as u32 {
                    self.start_league_game(g, day_start);
                    self.start_league_game(g, day_start);
                }
            }
            let day_end = day_start + DAY;
            loop {
                // The earlier of the next move and the next login.
                let from_heap = match (self.heap.peek(), self.logins.last()) {
                    (Some(h), Some(l)) => h > l,
                    (h, _) => h.is_some(),
                };
                let next = if from_heap {
                    self.heap.peek()
                } else {
                    self.logins.last()
                };
                if next.is_none_or(|e| e.t >= day_end) {
                    break;
                }
                let Entry { t, ev, .. } = if from_heap {
                    self.heap.pop()
                } else {
                    self.logins.pop()
                }
                .expect("peeked");
                self.now = t;
                match ev {
                    Ev::Activate { account, until, ip } => self.activate(account, t, until, ip),
                    Ev::Move { game, account, ip } => {
                        if t >= self.t0 {
                            let g = &self.games[game as usize];
                            f(&MoveRef {
                                username: &self.w.accounts[account as usize].name,
                                game: &g.name,
                                timestamp: t,
                                ip: Ipv4Addr::from(ip),
                            })?;
                        }
                        self.moved(game, t);
                    }
                    Ev::Open { game } => {
                        let g = &mut self.games[game as usize];
                        g.since = t;
                        let first = g.players[g.turn as usize];
                        self.offer(first, game, t, 0);
                    }
                }
            }
        }
        Ok(())
    }
}
