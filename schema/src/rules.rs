//! The record rule: what a move must look like to be read, stored or loaded.
//!
//! One rule for every source (files, standard input, directories, site
//! databases) and for the store's one insert path, so that the store never
//! holds what a reader refuses. A record that breaks it is a bad line, like
//! a parse error: named by file and line, rejected whole or counted under
//! `--skip-bad`.
//!
//! - the time lies in a plausible range, by default 2000-01-01 to one day
//!   after now;
//! - the username has a character other than white space;
//! - the IP is either empty (the reference keeps `"ip": ""` as an address
//!   that pairs its accounts like any other; golden case 10 pins it) or has
//!   a character other than white space;
//! - the IP is an address, and is stored in its one normal form
//!   ([`crate::address`]: trimmed, no port, IPv4-mapped IPv6 unmapped; `""`
//!   and `delay` kept as the reference keeps them). [`normal_ip`] is applied
//!   by every reader and again by the store's insert path, before a key
//!   hashes the address; [`Limits::check`] does not ask for it, because a
//!   keyed store's moves hold hashes.
//! - no field is longer than [`Limits::max_field`] bytes and none holds a
//!   NUL character (PostgreSQL cannot store it).
//!
//! Other control characters are kept: they are escaped where names are
//! shown (see `viz::escape`).

use crate::Epoch;

/// 2000-01-01 00:00:00 UTC.
pub const DEFAULT_EARLIEST: Epoch = 946_684_800;

/// Bytes per field, by default.
pub const DEFAULT_MAX_FIELD: usize = 1024;

/// Bytes per line, by default.
pub const DEFAULT_MAX_LINE: usize = 64 * 1024;

/// The bounds of the record rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The earliest plausible time, UTC epoch seconds (inclusive).
    pub earliest: Epoch,
    /// The latest plausible time, UTC epoch seconds (inclusive).
    pub latest: Epoch,
    /// Bytes per field.
    pub max_field: usize,
    /// Bytes per line of a log (readers only).
    pub max_line: usize,
}

impl Default for Limits {
    /// 2000-01-01 to one day after now, 1 KiB per field, 64 KiB per line.
    fn default() -> Self {
        Limits {
            earliest: DEFAULT_EARLIEST,
            latest: chrono::Utc::now().timestamp() + crate::SECONDS_PER_DAY,
            max_field: DEFAULT_MAX_FIELD,
            max_line: DEFAULT_MAX_LINE,
        }
    }
}

/// Why a record breaks the rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Violation {
    #[error("the time {time} lies outside the plausible range {earliest} to {latest} (epoch seconds; see --earliest/--latest)")]
    TimeOutOfRange {
        time: Epoch,
        earliest: Epoch,
        latest: Epoch,
    },
    #[error("the username is empty")]
    EmptyUsername,
    #[error("the ip is only white space")]
    BlankIp,
    #[error("the ip is not an IP address (IPv4 or IPv6, with or without a port)")]
    NotAnAddress,
    /// A time too large or too small for epoch seconds at all, as written.
    #[error("the time {time} lies outside the plausible range {earliest} to {latest} (epoch seconds; see --earliest/--latest)")]
    TimeOutOfRangeAsWritten {
        time: String,
        earliest: Epoch,
        latest: Epoch,
    },
    #[error("the {field} field is {len} bytes long, more than the limit of {max}")]
    FieldTooLong {
        field: &'static str,
        len: usize,
        max: usize,
    },
    #[error("the {field} field holds a NUL character")]
    Nul { field: &'static str },
}

impl Limits {
    /// Checks one record against the rule.
    pub fn check(
        &self,
        username: &str,
        game: &str,
        time: Epoch,
        ip: &str,
    ) -> Result<(), Violation> {
        for (field, value) in [("username", username), ("game", game), ("ip", ip)] {
            if value.len() > self.max_field {
                return Err(Violation::FieldTooLong {
                    field,
                    len: value.len(),
                    max: self.max_field,
                });
            }
            if value.contains('\0') {
                return Err(Violation::Nul { field });
            }
        }
        if username.trim().is_empty() {
            return Err(Violation::EmptyUsername);
        }
        if !ip.is_empty() && ip.trim().is_empty() {
            return Err(Violation::BlankIp);
        }
        self.check_time(time)
    }

    /// Checks the time of a record alone (the last check of
    /// [`Limits::check`]).
    #[inline]
    pub fn check_time(&self, time: Epoch) -> Result<(), Violation> {
        if time < self.earliest || time > self.latest {
            return Err(Violation::TimeOutOfRange {
                time,
                earliest: self.earliest,
                latest: self.latest,
            });
        }
        Ok(())
    }

    /// Checks a move.
    pub fn check_move(&self, m: &crate::Move) -> Result<(), Violation> {
        self.check(&m.username, &m.game, m.timestamp, &m.ip)
    }

    /// A time that is no epoch second at all (`1e300`), refused with its
    /// value as written rather than a saturated integer.
    pub fn time_as_written(&self, time: String) -> Violation {
        Violation::TimeOutOfRangeAsWritten {
            time,
            earliest: self.earliest,
            latest: self.latest,
        }
    }
}

/// The IP of a record in its normal form ([`crate::address`]), or why it
/// has none.
pub fn normal_ip(ip: &str) -> Result<std::borrow::Cow<'_, str>, Violation> {
    if !ip.is_empty() && ip.trim().is_empty() {
        return Err(Violation::BlankIp);
    }
    crate::address::normal_ip(ip).map_err(|_| Violation::NotAnAddress)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rule_and_its_message() {
        let l = Limits {
            earliest: 100,
            latest: 200,
            max_field: 4,
            max_line: 64,
        };
        assert_eq!(l.check("a", "g", 150, "1"), Ok(()));
        assert_eq!(l.check("a", "g", 150, ""), Ok(()));
        assert_eq!(l.check("a", "g", 100, "1"), Ok(()));
        assert_eq!(l.check("a", "g", 200, "1"), Ok(()));
        assert!(matches!(
            l.check("a", "g", 99, "1"),
            Err(Violation::TimeOutOfRange { .. })
        ));
        assert!(matches!(
            l.check("a", "g", i64::MAX, "1"),
            Err(Violation::TimeOutOfRange { .. })
        ));
        assert_eq!(l.check(" \t", "g", 150, "1"), Err(Violation::EmptyUsername));
        assert_eq!(l.check("", "g", 150, "1"), Err(Violation::EmptyUsername));
        assert_eq!(l.check("a", "g", 150, "  "), Err(Violation::BlankIp));
        assert_eq!(
            l.check("abcde", "g", 150, "1"),
            Err(Violation::FieldTooLong {
                field: "username",
                len: 5,
                max: 4
            })
        );
        assert_eq!(
            l.check("a", "g\0", 150, "1"),
            Err(Violation::Nul { field: "game" })
        );
        assert_eq!(normal_ip(" 10.0.0.1:80 ").as_deref(), Ok("10.0.0.1"));
        assert_eq!(normal_ip("  "), Err(Violation::BlankIp));
        assert_eq!(normal_ip("host"), Err(Violation::NotAnAddress));
        assert_eq!(
            l.time_as_written("1e300".into()).to_string(),
            "the time 1e300 lies outside the plausible range 100 to 200 \
             (epoch seconds; see --earliest/--latest)"
        );
        let d = Limits::default();
        assert_eq!(d.earliest, 946_684_800);
        assert!(d.latest > chrono::Utc::now().timestamp());
    }
}
