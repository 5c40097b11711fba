//! Sessions: everyone's check-ins of a day turned into account logins by
//! each owner's style, and home addresses that change.

use super::queue::{Entry, Ev};
use super::Sim;
use crate::draw::{exp, pick};
use crate::schedule::{household_day, renew_home_ip, Device, Session};
use crate::truth::Style;
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

    pub(super) fn renew_ips(&mut self, now: i64) {
        for h in 0..self.w.households.len() {
            if self.w.households[h].next_change <= now {
                renew_home_ip(&mut self.w, h, now, &mut self.rng);
            }
        }
    }
}
