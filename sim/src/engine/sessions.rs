//! Sessions: everyone's check-ins of a day turned into account logins by
//! each owner's style, and home addresses that change.

use super::queue::{Entry, Ev};
use super::Sim;
use crate::draw::{exp, pick};
use crate::schedule::{household_day, renew_home_ip, Device, Session};
use crate::truth::Style;
use rand::seq::SliceRandom;
use rand::Rng;

impl Sim {
    /// Draws everyone's check-ins of local day `day` and turns them into
    /// account logins by each owner's style.
    pub(super) fn schedule_day(&mut self, day: i32) {
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
        let (style, rare, puppet_vpn) = (p.style, p.rare, p.puppet_vpn);
        let home = self.w.households[p.household as usize].ip;
        // The accounts in the order the owner opens them: the main one
        // first, or a new order every sitting for an owner who shuffles.
        let mut order = [0u32; 8];
        let order = &mut order[..p.n_accounts as usize];
        for (k, a) in order.iter_mut().zip(p.accounts()) {
            *k = a;
        }
        if p.shuffle {
            order.shuffle(&mut self.rng);
        }
        let (main, puppets) = (order[0], &order[1..]);
        let h = &self.w.cfg.habits;
        let (gap_lo, gap_hi) = (
            h.cautious_gap_minutes.0 as i64 * 60,
            h.cautious_gap_minutes.1 as i64 * 60,
        );
        let careless = h.careless;
        match style {
            None => self.login(main, s.start, s.end, s.ip),
            Some(Style::Lockstep) => {
                for &a in order.iter() {
                    self.login(a, s.start, s.end, s.ip);
                }
            }
            Some(Style::Phone) => {
                self.login(main, s.start, s.end, s.ip);
                if s.device != Device::Phone {
                    for &a in puppets {
                        self.login(a, s.start, s.end, s.ip);
                    }
                }
            }
            Some(Style::Cautious) => {
                // The second accounts (not the main one, whatever the
                // order) go through a VPN, or play from home or work.
                let true_main = p.first_account;
                let puppet_ip = |sim: &mut Sim| {
                    if sim.rng.gen_bool(puppet_vpn) {
                        pick(&mut sim.rng, &sim.w.vpn)
                    } else if matches!(s.device, Device::Home | Device::Work) {
                        s.ip
                    } else {
                        home
                    }
                };
                let first_ip = if main == true_main {
                    s.ip
                } else {
                    puppet_ip(self)
                };
                self.login(main, s.start, s.end, first_ip);
                if puppet_vpn < 1.0 && self.rng.gen_bool(careless) {
                    // Careless today: all at once.
                    for &a in puppets {
                        self.login(a, s.start, s.end, s.ip);
                    }
                    return;
                }
                let mut t = s.start;
                for &a in puppets {
                    t += self.rng.gen_range(gap_lo..gap_hi);
                    let len = 240 + exp(&mut self.rng, 480.0) as i64;
                    let ip = if a == true_main {
                        s.ip
                    } else {
                        puppet_ip(self)
                    };
                    self.login(a, t, t + len, ip);
                }
            }
            Some(Style::RarePuppet) => {
                self.login(main, s.start, s.end, s.ip);
                for &a in puppets {
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

    pub(super) fn renew_ips(&mut self, now: i64) {
        for h in 0..self.w.households.len() {
            if self.w.households[h].next_change <= now {
                renew_home_ip(&mut self.w, h, now, &mut self.rng);
            }
        }
    }
}
