//! Moves: an account that logs in answers the games waiting on it, an
//! account online answers quickly, and a move passes the turn on.

use super::queue::Ev;
use super::Sim;
use crate::draw::exp;
use rand::Rng;

impl Sim {
    /// Seconds to decide and make one move.
    fn think(&mut self) -> i64 {
        let (min, mean) = self.w.cfg.habits.think_seconds;
        min + (exp(&mut self.rng, mean) as i64).min(900)
    }

    /// An account logs in: it moves in the games waiting on it, oldest first,
    /// while the session lasts.
    pub(super) fn activate(&mut self, account: u32, t: i64, until: i64, ip: u32) {
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
    pub(super) fn offer(&mut self, account: u32, game: u32, t: i64, react: i64) {
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

    pub(super) fn moved(&mut self, game: u32, t: i64) {
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
            20 + (exp(&mut self.rng, self.w.cfg.habits.react_seconds) as i64).min(1800)
        };
        self.offer(next, game, t, react);
    }
}
