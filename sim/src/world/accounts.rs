//! Accounts: one per honest person, several per multi-account owner, with
//! their names, league membership and how many casual games they keep.

use super::records::Person;
use super::WorldConfig;
use crate::names::Handles;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

pub(crate) struct Account {
    pub name: String,
    pub person: u32,
    pub league: bool,
    pub casual_target: u8,
    pub casual_now: u8,
    /// The account is logged in (answers moves) until this time.
    pub active_until: i64,
    /// The IP of its current session.
    pub ip: u32,
    /// Games waiting on this account's move.
    pub waiting: Vec<u32>,
}

/// Draws every person's accounts, numbered in order of the people.
pub(super) fn draw_accounts(
    cfg: &WorldConfig,
    persons: &mut [Person],
    rng: &mut ChaCha8Rng,
) -> Vec<Account> {
    let mut handles = Handles::new();
    let mut accounts: Vec<Account> = Vec::with_capacity(cfg.accounts);
    for (pi, p) in persons.iter_mut().enumerate() {
        p.first_account = accounts.len() as u32;
        for k in 0..p.n_accounts {
            let name = if k > 0 && rng.gen_bool(0.25) {
                let main = accounts[p.first_account as usize].name.clone();
                handles.derived(rng, &main)
            } else {
                handles.fresh(rng)
            };
            let multi = p.style.is_some();
            let league = multi || rng.gen_bool(0.8);
            let h = &cfg.habits;
            let casual_target = if multi && k > 0 {
                rng.gen_range(h.puppet_casual_games.0..h.puppet_casual_games.1)
            } else if league && rng.gen_bool(0.1) {
                0
            } else {
                (h.casual_games.0
                    + (0.6 * p.keen
                        + 0.4 * {
                            let u: f64 = rng.gen();
                            u * u
                        })
                        * h.casual_games.1) as u8
            };
            accounts.push(Account {
                name,
                person: pi as u32,
                league,
                casual_target,
                casual_now: 0,
                active_until: i64::MIN,
                ip: 0,
                waiting: Vec::new(),
            });
        }
    }
    accounts
}
