//! What world to simulate: [`WorldConfig`], its checks, and the volume of
//! moves it makes.

use super::habits::{Family, Habits};
use serde::{Deserialize, Serialize};

/// 2026-01-05 00:00:00 UTC, a Monday.
pub const DEFAULT_START: i64 = 1_767_571_200;

/// About how many moves one account makes per simulated day, averaged over
/// the world: a world writes about `accounts x days x MOVES_PER_ACCOUNT_DAY`
/// moves (within some 15 %), see [`WorldConfig::expected_moves`].
pub const MOVES_PER_ACCOUNT_DAY: f64 = 12.0;

/// What world to simulate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorldConfig {
    /// Same seed and config, same bytes.
    pub seed: u64,
    /// Accounts on the site, multi-accounts included (at least 20).
    pub accounts: usize,
    /// Days simulated from `start`.
    pub days: u32,
    /// People who play several accounts (2 to 8 each); their accounts may
    /// make up at most a third of `accounts`.
    pub cliques: usize,
    /// The season of the league games (`4pLeague_S{season}_...`).
    pub season: u32,
    /// Epoch second of day 0, a UTC midnight.
    pub start: i64,
    /// Crowded carrier NAT: about this many of the site's phone players
    /// share each carrier address (`None`: about three, with one busier
    /// gateway per 80 phones). Carrier-grade NAT puts tens to hundreds of
    /// subscribers behind one public address: port blocks of 512 to 1,024
    /// ports give 64 to 128 subscribers per address (RFC 6888 and RFC 7422
    /// on port-block allocation), and Richter et al., "A Multi-perspective
    /// Analysis of Carrier-Grade NAT Deployment" (IMC 2016) found CGN in
    /// most cellular networks. How many of those subscribers play one site
    /// depends on the site's reach; 25 is the crowded world of
    /// EVALUATION.md, a popular site.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nat_crowd: Option<u32>,
    /// The world family this config was made from (a label: the habits
    /// below are what the world is made of).
    #[serde(default, skip_serializing_if = "Family::is_default")]
    pub family: Family,
    /// The people's habits ([`Habits`]; the default world's by default).
    #[serde(default, skip_serializing_if = "Habits::is_default")]
    pub habits: Habits,
}

impl Default for WorldConfig {
    fn default() -> Self {
        WorldConfig {
            seed: 1,
            accounts: 300,
            days: 28,
            cliques: 12,
            season: 1,
            start: DEFAULT_START,
            nat_crowd: None,
            family: Family::Default,
            habits: Habits::default(),
        }
    }
}

impl WorldConfig {
    /// The approximate number of moves the world writes:
    /// `accounts x days x MOVES_PER_ACCOUNT_DAY`. 300 accounts over 28 days
    /// make about 100k moves, 1,200 over 28 about 400k, 20,000 over 42
    /// about 10M.
    pub fn expected_moves(&self) -> u64 {
        (self.accounts as f64 * self.days as f64 * MOVES_PER_ACCOUNT_DAY).round() as u64
    }

    /// A world of `family` (its habits and size, [`Family::size`] of the
    /// default world's) from `seed`.
    pub fn of_family(family: Family, seed: u64) -> WorldConfig {
        let d = WorldConfig::default();
        let (accounts, cliques, nat_crowd) = family.size(d.accounts, d.cliques);
        WorldConfig {
            seed,
            accounts,
            cliques,
            nat_crowd,
            family,
            habits: family.habits(),
            ..d
        }
    }

    /// A world of about `moves` moves over `days` days, with one
    /// multi-account owner per 25 accounts.
    pub fn for_moves(seed: u64, moves: u64, days: u32) -> WorldConfig {
        let accounts = ((moves as f64 / (days.max(1) as f64 * MOVES_PER_ACCOUNT_DAY)).round()
            as usize)
            .max(20);
        WorldConfig {
            seed,
            accounts,
            days,
            cliques: (accounts / 25).max(1),
            ..WorldConfig::default()
        }
    }

    /// Checks the config; the error is one sentence.
    pub fn validate(&self) -> Result<(), String> {
        if self.accounts < 20 {
            return Err(format!(
                "a world needs at least 20 accounts, not {}",
                self.accounts
            ));
        }
        if self.accounts > 10_000_000 {
            return Err(format!(
                "{} accounts is more than the simulator supports (10M)",
                self.accounts
            ));
        }
        if self.days == 0 || self.days > 3660 {
            return Err(format!(
                "days must be between 1 and 3660, not {}",
                self.days
            ));
        }
        if self.cliques * 2 > self.accounts / 3 {
            return Err(format!(
                "{} multi-account owners need at least {} accounts (theirs may be at most a third)",
                self.cliques,
                self.cliques * 6
            ));
        }
        if self.nat_crowd == Some(0) {
            return Err("nat_crowd must be at least 1".into());
        }
        self.habits.validate()?;
        if self.start.rem_euclid(86_400) != 0 {
            return Err(format!("start {} is not a UTC midnight", self.start));
        }
        if !(0..253_402_300_800 - (self.days as i64 + 2) * 86_400).contains(&self.start) {
            return Err(format!(
                "start {} lies outside the years 1970-9999",
                self.start
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configs_are_checked() {
        assert!(WorldConfig::default().validate().is_ok());
        let bad = [
            WorldConfig {
                accounts: 5,
                ..Default::default()
            },
            WorldConfig {
                days: 0,
                ..Default::default()
            },
            WorldConfig {
                cliques: 60,
                ..Default::default()
            },
            WorldConfig {
                start: DEFAULT_START + 5,
                ..Default::default()
            },
        ];
        for c in bad {
            assert!(c.validate().is_err(), "{c:?}");
        }
        let big = WorldConfig::for_moves(1, 10_000_000, 42);
        assert!(big.validate().is_ok());
        assert!((19_000..21_000).contains(&big.accounts), "{}", big.accounts);
        assert!(big.expected_moves().abs_diff(10_000_000) < 100_000);
    }
}
