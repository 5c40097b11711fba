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

use crate::draw::{exp, index, pick};
use crate::format::JsonLines;
use crate::names::casual_game;
use crate::schedule::{household_day, renew_home_ip, Device, Session};
use crate::truth::{Style, Truth};
use crate::world::{league_name, World, WorldConfig};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cmp::Ordering;
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
    let world = World::build(cfg, &mut rng);
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

#[derive(Debug, Clone, Copy)]
enum Ev {
    /// An account logs in until `until`, from `ip`.
    Activate { account: u32, until: i64, ip: u32 },
    /// An account moves in a game.
    Move { game: u32, account: u32, ip: u32 },
    /// A new game opens: its first player's turn begins.
    Open { game: u32 },
}

struct Entry {
    t: i64,
    seq: u64,
    ev: Ev,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        (self.t, self.seq) == (o.t, o.seq)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    /// Reversed: the heap pops the earliest event, ties in push order.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.t, o.seq).cmp(&(self.t, self.seq))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    League(u32),
    /// A league game of the previous season, finishing.
    OldLeague,
    Casual,
    Free,
}

struct Game {
    name: String,
    players: [u32; 5],
    n: u8,
    turn: u8,
    moves_left: u16,
    /// When the current turn began.
    since: i64,
    kind: Kind,
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

    fn push(&mut self, t: i64, ev: Ev) {
        debug_assert!(t >= self.now);
        self.seq += 1;
        self.heap.push(Entry {
            t,
            seq: self.seq,
            ev,
        });
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

    // ---- sessions -------------------------------------------------------

    /// Draws everyone's check-ins of local day `day` and turns them into
    /// account logins by each owner's style.
    fn schedule_day(&mut self, day: i32) {
        let mut sessions = std::mem::take(&mut self.sessions);
        sessions.clear();
        for h in 0..self.w.households.len() as u32 {
            household_day(&self.w, h, day, &mut self.rng, &mut sessions);
        }
        for s in &sessions {
            self.logins_of(s);
        }
        self.sessions = sessions;
        // Latest first: `Entry` orders earlier as greater.
        self.logins.sort_unstable();
    }

    fn login(&mut self, account: u32, start: i64, end: i64, ip: u32) {
        let start = start.max(self.now);
        if end > start {
            self.seq += 1;
            self.logins.push(Entry {
                t: start,
                seq: self.seq,
                ev: Ev::Activate {
                    account,
                    until: end,
                    ip,
                },
            });
        }
    }

    fn logins_of(&mut self, s: &Session) {
        let p = &self.w.persons[s.person as usize];
        let main = p.first_account;
        let puppets = main + 1..main + p.n_accounts;
        let (style, rare, puppet_vpn) = (p.style, p.rare, p.puppet_vpn);
        let home = self.w.households[p.household as usize].ip;
        match style {
            None => self.login(main, s.start, s.end, s.ip),
            Some(Style::Lockstep) => {
                for a in main..puppets.end {
                    self.login(a, s.start, s.end, s.ip);
                }
            }
            Some(Style::Phone) => {
                self.login(main, s.start, s.end, s.ip);
                if s.device != Device::Phone {
                    for a in puppets {
                        self.login(a, s.start, s.end, s.ip);
                    }
                }
            }
            Some(Style::Cautious) => {
                self.login(main, s.start, s.end, s.ip);
                if puppet_vpn < 1.0 && self.rng.gen_bool(0.08) {
                    // Careless today: all at once.
                    for a in puppets {
                        self.login(a, s.start, s.end, s.ip);
                    }
                    return;
                }
                let mut t = s.start;
                for a in puppets {
                    t += self.rng.gen_range(30 * 60..90 * 60);
                    let len = 240 + exp(&mut self.rng, 480.0) as i64;
                    let ip = if self.rng.gen_bool(puppet_vpn) {
                        pick(&mut self.rng, &self.w.vpn)
                    } else if matches!(s.device, Device::Home | Device::Work) {
                        s.ip
                    } else {
                        home
                    };
                    self.login(a, t, t + len, ip);
                }
            }
            Some(Style::RarePuppet) => {
                self.login(main, s.start, s.end, s.ip);
                for a in puppets {
                    let overdue = self.w.accounts[a as usize]
                        .waiting
                        .iter()
                        .any(|&g| self.games[g as usize].since < s.start - 40 * 3600);
                    if overdue || self.rng.gen_bool(rare) {
                        self.login(a, s.start, s.end, s.ip);
                    }
                }
            }
        }
    }

    fn renew_ips(&mut self, now: i64) {
        for h in 0..self.w.households.len() {
            if self.w.households[h].next_change <= now {
                renew_home_ip(&mut self.w, h, now, &mut self.rng);
            }
        }
    }

    // ---- moves ----------------------------------------------------------

    /// Seconds to decide and make one move.
    fn think(&mut self) -> i64 {
        20 + (exp(&mut self.rng, 70.0) as i64).min(900)
    }

    /// An account logs in: it moves in the games waiting on it, oldest first,
    /// while the session lasts.
    fn activate(&mut self, account: u32, t: i64, until: i64, ip: u32) {
        let a = &mut self.w.accounts[account as usize];
        a.active_until = a.active_until.max(until);
        a.ip = ip;
        let mut waiting = std::mem::take(&mut a.waiting);
        let person = a.person as usize;
        waiting.sort_by_key(|&g| (self.games[g as usize].since, g));
        let mut cursor = self.w.persons[person].busy.max(t) + self.rng.gen_range(15..90);
        let mut done = 0;
        for &g in &waiting {
            let next = cursor + self.think();
            if next >= until {
                break;
            }
            cursor = next;
            done += 1;
            self.push(
                next,
                Ev::Move {
                    game: g,
                    account,
                    ip,
                },
            );
        }
        waiting.drain(..done);
        self.w.persons[person].busy = self.w.persons[person].busy.max(cursor);
        self.w.accounts[account as usize].waiting = waiting;
    }

    /// It is `account`'s turn in `game` from `t`: it moves soon if online,
    /// else the game waits for its next check-in.
    fn offer(&mut self, account: u32, game: u32, t: i64, react: i64) {
        let a = &self.w.accounts[account as usize];
        if a.active_until > t {
            let person = a.person as usize;
            let (until, ip) = (a.active_until, a.ip);
            let at = (t + react).max(self.w.persons[person].busy) + self.think();
            if at < until {
                self.w.persons[person].busy = at;
                self.push(at, Ev::Move { game, account, ip });
                return;
            }
        }
        self.w.accounts[account as usize].waiting.push(game);
    }

    fn moved(&mut self, game: u32, t: i64) {
        let double = self.rng.gen_bool(0.06);
        let g = &mut self.games[game as usize];
        g.moves_left -= 1;
        if g.moves_left == 0 {
            self.finish(game, t);
            return;
        }
        if !double {
            g.turn = (g.turn + 1) % g.n;
        }
        g.since = t;
        let next = g.players[g.turn as usize];
        let react = if double {
            self.rng.gen_range(5..40)
        } else {
            20 + (exp(&mut self.rng, 150.0) as i64).min(1800)
        };
        self.offer(next, game, t, react);
    }

    // ---- games ----------------------------------------------------------

    fn new_game(&mut self, players: &[u32], moves: u16, kind: Kind, since: i64) -> u32 {
        let mut p = [0u32; 5];
        p[..players.len()].copy_from_slice(players);
        let game = Game {
            name: String::new(),
            players: p,
            n: players.len() as u8,
            turn: 0,
            moves_left: moves.max(1),
            since,
            kind,
        };
        self.games_made += 1;
        match self.free.pop() {
            Some(id) => {
                let name = std::mem::take(&mut self.games[id as usize].name);
                self.games[id as usize] = Game { name, ..game };
                id
            }
            None => {
                self.games.push(game);
                (self.games.len() - 1) as u32
            }
        }
    }

    fn start_league_game(&mut self, group: u32, t: i64) {
        let k = self.league_next[group as usize];
        self.league_next[group as usize] += 1;
        let mut players = self.w.league[group as usize];
        players.shuffle(&mut self.rng);
        let moves = (0..4).map(|_| self.rng.gen_range(22..32u16)).sum();
        let id = self.new_game(&players, moves, Kind::League(group), t);
        let mut name = std::mem::take(&mut self.games[id as usize].name);
        league_name(self.w.cfg.season, group as usize, k, &mut name);
        self.games[id as usize].name = name;
        self.offer(players[0], id, t, 0);
    }

    fn finish(&mut self, game: u32, t: i64) {
        let g = &mut self.games[game as usize];
        let kind = std::mem::replace(&mut g.kind, Kind::Free);
        let (players, n) = (g.players, g.n as usize);
        self.free.push(game);
        match kind {
            Kind::League(group) => {
                if self.league_next[group as usize] <= self.max_league_games
                    && t < self.t_end - 7 * DAY
                {
                    self.start_league_game(group, t);
                }
            }
            Kind::Casual => {
                for &a in &players[..n] {
                    let acc = &mut self.w.accounts[a as usize];
                    acc.casual_now -= 1;
                    if acc.casual_now < acc.casual_target && self.rng.gen_bool(0.5) {
                        let open = t + self.rng.gen_range(600..6 * 3600);
                        self.open_casual(a, open, false);
                    }
                }
            }
            Kind::OldLeague | Kind::Free => {}
        }
    }

    /// Opens a casual game of 3-5 players created by `creator`; its first
    /// turn begins at `open`. Returns whether enough players joined.
    fn open_casual(&mut self, creator: u32, open: i64, under_way: bool) -> bool {
        let size = match self.rng.gen_range(0..10) {
            0..=2 => 3,
            3..=7 => 4,
            _ => 5,
        };
        let mut players = [creator; 5];
        let mut n = 1;
        let person = self.w.accounts[creator as usize].person;
        // Friends and family, and now and then one's own second account.
        if self.rng.gen_bool(0.2) {
            if let Some(friend) = self.friend_of(person) {
                let acc = self.w.persons[friend as usize].first_account;
                if self.w.accounts[acc as usize].casual_target > 0 {
                    players[n] = acc;
                    n += 1;
                }
            }
        }
        let p = &self.w.persons[person as usize];
        if p.n_accounts > 1 && self.rng.gen_bool(0.1) {
            let own = p.first_account + self.rng.gen_range(0..p.n_accounts);
            if !players[..n].contains(&own) {
                players[n] = own;
                n += 1;
            }
        }
        let mut tries = 0;
        while n < size && tries < 40 {
            tries += 1;
            let c = pick(&mut self.rng, &self.casual_pool);
            let acc = &self.w.accounts[c as usize];
            // Players prefer opponents awake at the same hours.
            let far = self.w.persons[acc.person as usize].region
                != self.w.persons[person as usize].region;
            if far && self.rng.gen_bool(0.5) {
                continue;
            }
            let room = if tries < 20 {
                acc.casual_now < acc.casual_target
            } else {
                acc.casual_now < acc.casual_target + 2
            };
            if room && !players[..n].contains(&c) {
                players[n] = c;
                n += 1;
            }
        }
        if n < 3 {
            return false;
        }
        let players = &mut players[..n];
        players.shuffle(&mut self.rng);
        let full: u16 = (0..n).map(|_| self.rng.gen_range(18..33u16)).sum();
        let moves = if under_way {
            self.rng.gen_range(1..=full)
        } else {
            full
        };
        let id = self.new_game(players, moves, Kind::Casual, open);
        for &a in players.iter() {
            self.w.accounts[a as usize].casual_now += 1;
        }
        let mut name = std::mem::take(&mut self.games[id as usize].name);
        let made = self.games_made;
        casual_game(
            &mut self.rng,
            made,
            n,
            &self.w.accounts[creator as usize].name,
            &mut name,
        );
        self.games[id as usize].name = name;
        if under_way {
            // Waiting since some time before the simulation began.
            self.games[id as usize].since = open - self.rng.gen_range(0..DAY);
            self.offer(players[0], id, open, 0);
        } else {
            self.push(open, Ev::Open { game: id });
        }
        true
    }

    /// Someone in the household or at the office or university.
    fn friend_of(&mut self, person: u32) -> Option<u32> {
        let p = &self.w.persons[person as usize];
        let circle: &[u32] = if self.rng.gen_bool(0.5) {
            &self.w.households[p.household as usize].members
        } else {
            p.site
                .map_or(&[], |s| &self.w.sites[s as usize].members[..])
        };
        let f = *circle.get(index(&mut self.rng, circle.len().max(1)))?;
        (f != person).then_some(f)
    }

    /// Day -2: games under way (to every account's casual target), and the
    /// last league games of the previous season.
    fn open_initial_games(&mut self) {
        let now = self.now;
        let mut pool = self.casual_pool.clone();
        pool.shuffle(&mut self.rng);
        for &a in &pool {
            let mut fails = 0;
            while self.w.accounts[a as usize].casual_now < self.w.accounts[a as usize].casual_target
                && fails < 3
            {
                if !self.open_casual(a, now, true) {
                    fails += 1;
                }
            }
        }
        let season = self.w.cfg.season;
        if season > 1 && !self.w.league.is_empty() {
            let mut name = String::new();
            for i in 0..self.w.league.len() / 4 + 1 {
                let mut players = pick(&mut self.rng, &self.w.league);
                players.shuffle(&mut self.rng);
                let moves = self.rng.gen_range(1..60);
                let id = self.new_game(&players, moves, Kind::OldLeague, now);
                league_name(season - 1, i, self.rng.gen_range(1..4), &mut name);
                std::mem::swap(&mut self.games[id as usize].name, &mut name);
                self.offer(players[0], id, now, 0);
            }
        }
    }

    /// Every day, about half of the accounts short of their casual target
    /// open a game.
    fn lobby(&mut self, day_start: i64) {
        for i in 0..self.casual_pool.len() {
            let a = self.casual_pool[i];
            let acc = &self.w.accounts[a as usize];
            if acc.casual_now < acc.casual_target && self.rng.gen_bool(0.5) {
                let open = day_start + self.rng.gen_range(0..DAY);
                self.open_casual(a, open, false);
            }
        }
    }
}
