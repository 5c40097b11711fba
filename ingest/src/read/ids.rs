//! Reading a log with its names interned on the reading thread: each
//! move comes back as ids local to that reader ([`ReaderNames`]), and the
//! names new since the last hand-over are taken in one list, so that the
//! thread that merges the readers' moves maps ids through a vector instead
//! of hashing every move's text.
//!
//! A name the reader has already met passed the rule's checks of its field
//! (an address also its normal form), so a record whose three names are all
//! known has only its time checked; any other record is checked in full,
//! as [`LogReader::next_ref`] checks it, and gets the same error.

use super::{checked, LogReader, MoveRef, ReadError};
use schema::rules::Limits;
use schema::{Epoch, Names};

/// A move by ids: local to a [`ReaderNames`] as a reader hands it over,
/// or the merged tables' once mapped. 24 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdMove {
    pub timestamp: Epoch,
    pub account: u32,
    pub game: u32,
    pub ip: u32,
}

/// The names one reader has met, each with a local id in order of first
/// appearance (an address by its field as written, which two spellings of
/// one address make two ids of).
#[derive(Debug, Default)]
pub struct ReaderNames {
    accounts: Names,
    games: Names,
    /// IP fields as written.
    ips: Names,
    /// The normal forms of the IP fields met since the last take.
    new_ips: Vec<String>,
    /// Accounts and games already taken.
    taken: (usize, usize),
}

/// Names new to a reader since the last [`ReaderNames::take_new`], each
/// list in order of local id: the next ids are the lists' positions after
/// all those taken before. Addresses in normal form.
#[derive(Debug, Default)]
pub struct NewNames {
    pub accounts: Vec<String>,
    pub games: Vec<String>,
    pub ips: Vec<String>,
}

impl ReaderNames {
    /// The names met since the last take.
    pub fn take_new(&mut self) -> NewNames {
        let (accounts, games) = self.taken;
        self.taken = (self.accounts.len(), self.games.len());
        NewNames {
            accounts: self.accounts.as_slice()[accounts..].to_vec(),
            games: self.games.as_slice()[games..].to_vec(),
            ips: std::mem::take(&mut self.new_ips),
        }
    }

    /// A record by local ids if the rule accepts it, or the rule's word.
    fn intern(&mut self, m: MoveRef<'_>, limits: &Limits) -> Result<IdMove, String> {
        let known = (
            self.accounts.get(&m.username),
            self.games.get(&m.game),
            self.ips.get(&m.ip),
        );
        if let (Some(account), Some(game), Some(ip)) = known {
            limits.check_time(m.timestamp).map_err(|v| v.to_string())?;
            return Ok(IdMove {
                timestamp: m.timestamp,
                account,
                game,
                ip,
            });
        }
        let written = m.ip.clone();
        let m = checked(m, limits)?;
        let ip = match known.2 {
            Some(ip) => ip,
            None => {
                self.new_ips.push(m.ip.into_owned());
                self.ips.intern(&written)
            }
        };
        Ok(IdMove {
            timestamp: m.timestamp,
            account: self.accounts.intern(&m.username),
            game: self.games.intern(&m.game),
            ip,
        })
    }
}

impl LogReader {
    /// The next line, its move by ids local to `names` (taken from it with
    /// [`ReaderNames::take_new`]); `None` at the end. Lines, errors and
    /// skipped records are those of [`LogReader::next_ref`].
    pub fn next_ids(
        &mut self,
        names: &mut ReaderNames,
    ) -> Option<Result<(u64, Option<IdMove>), ReadError>> {
        self.next_with(|m, limits| names.intern(m, limits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::open_log;

    /// The moves of a log by `next_ids`, their ids mapped back to names
    /// through the lists taken, against `next_ref` on the same log.
    fn same_as_next_ref(log: &str, take_every: usize) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, log).unwrap();
        let p = path.to_str().unwrap();
        let mut want = Vec::new();
        let mut reader = open_log(p).unwrap();
        while let Some(l) = reader.next_ref() {
            want.push(
                l.map(|(n, m)| (n, m.map(MoveRef::into_owned)))
                    .map_err(|e| e.to_string()),
            );
        }
        let mut names = ReaderNames::default();
        let (mut accounts, mut games, mut ips) = (Vec::new(), Vec::new(), Vec::new());
        let mut got = Vec::new();
        let mut reader = open_log(p).unwrap();
        let mut pending = Vec::new();
        type Got = Vec<Result<(u64, Option<schema::Move>), String>>;
        let mut resolve = |pending: &mut Vec<Result<(u64, Option<IdMove>), String>>,
                           names: &mut ReaderNames,
                           got: &mut Got| {
            let new = names.take_new();
            accounts.extend(new.accounts);
            games.extend(new.games);
            ips.extend(new.ips);
            for line in pending.drain(..) {
                got.push(line.map(|(n, m)| {
                    let m = m.map(|m| schema::Move {
                        username: accounts[m.account as usize].clone(),
                        game: games[m.game as usize].clone(),
                        timestamp: m.timestamp,
                        ip: ips[m.ip as usize].clone(),
                    });
                    (n, m)
                }));
            }
        };
        while let Some(l) = reader.next_ids(&mut names) {
            pending.push(l.map_err(|e| e.to_string()));
            if pending.len() == take_every {
                resolve(&mut pending, &mut names, &mut got);
            }
        }
        resolve(&mut pending, &mut names, &mut got);
        assert_eq!(got, want);
    }

    #[test]
    fn moves_by_ids_are_the_moves_and_errors_of_next_ref() {
        let line = |u: &str, t: i64, ip: &str| {
            format!("{{\"username\": \"{u}\", \"game\": \"g\", \"timestamp\": {t}, \"ip\": \"{ip}\"}}\n")
        };
        let mut log = String::new();
        for (u, t, ip) in [
            ("a", 1_430_000_000, "10.0.0.1"),
            ("b", 1_430_000_001, "10.0.0.1"),
            // Another spelling of a known address: one name, two ids.
            ("a", 1_430_000_002, "::ffff:10.0.0.1"),
            ("a", 1_430_000_003, "10.0.0.1"),
            ("b\\u0041", 1_430_000_004, "[::1]:80"),
            ("bA", 1_430_000_005, "::1"),
            ("a", 1_430_000_006, "10.0.0.1"),
        ] {
            log.push_str(&line(u, t, ip));
        }
        log.push_str("{\"username\": \"a\", \"ip\": \"10.0.0.1\", \"timestamp\": 1}\n");
        for take_every in [1, 2, 100] {
            same_as_next_ref(&log, take_every);
        }
        // Known names, a time out of range: the same error.
        let known_bad_time = format!(
            "{}{}",
            line("a", 1_430_000_000, "10.0.0.1"),
            line("a", 1, "10.0.0.1")
        );
        same_as_next_ref(&known_bad_time, 100);
        // A new name on a line that breaks the rule: checked in full.
        let bad = format!(
            "{}{}{}",
            line("a", 1_430_000_000, "10.0.0.1"),
            line("a", 1_430_000_001, "not an address"),
            line(" ", 1_430_000_002, "10.0.0.1")
        );
        same_as_next_ref(&bad, 100);
    }
}
