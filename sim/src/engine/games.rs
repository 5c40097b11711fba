//! Games: league and casual games opened, filled with players, named and
//! finished, and the games already under way when the simulation begins.

use super::queue::Ev;
use super::{Sim, DAY};
use crate::draw::{index, pick};
use crate::names::casual_game;
use crate::world::league_name;
use rand::seq::SliceRandom;
use rand::Rng;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    League(u32),
    /// A league game of the previous season, finishing.
    OldLeague,
    Casual,
    Free,
}

pub(super) struct Game {
    pub(super) name: String,
    pub(super) players: [u32; 5],
    pub(super) n: u8,
    pub(super) turn: u8,
    pub(super) moves_left: u16,
    /// When the current turn began.
    pub(super) since: i64,
    kind: Kind,
}

impl Sim {
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

    pub(super) fn start_league_game(&mut self, group: u32, t: i64) {
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

    pub(super) fn finish(&mut self, game: u32, t: i64) {
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
        let (mut players, n) = self.casual_table(creator, size);
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

    /// The players of a casual game of `size` created by `creator`: friends
    /// and family, now and then the creator's own second account, and
    /// others with room for a game. Returns the players and how many.
    fn casual_table(&mut self, creator: u32, size: usize) -> ([u32; 5], usize) {
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
        (players, n)
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
    pub(super) fn open_initial_games(&mut self) {
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
    pub(super) fn lobby(&mut self, day_start: i64) {
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
