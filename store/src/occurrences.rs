//! The one numbering of identical moves, for files, standard input,
//! watched directories and site databases alike: a log that really holds
//! the same move twice keeps both (occurrences 0 and 1), and the same move
//! read again stores nothing new.
//!
//! A file is numbered within its batch. A source read in several batches (a
//! site database, page by page and tick by tick) carries the numbering on:
//! within a pull from batch to batch ([`Store::begin_ingest_numbered`],
//! [`IngestBatch::commit_numbered`]), and from one pull to the next through
//! the tail kept with its mark ([`IngestBatch::numbering_tail`],
//! [`Occurrences::from_tail`]), so identical rows that a page or a tick
//! splits keep distinct numbers.
//!
//! [`Store::begin_ingest_numbered`]: crate::Store::begin_ingest_numbered
//! [`IngestBatch::commit_numbered`]: crate::IngestBatch::commit_numbered
//! [`IngestBatch::numbering_tail`]: crate::IngestBatch::numbering_tail

use super::NewMove;
use schema::{Epoch, Move};
use std::collections::HashMap;

/// How many identical moves of one second were numbered, by account, game
/// and IP as stored.
type Counts = HashMap<(String, String, String), u32>;

/// Numbers identical moves. For time-sorted input only the current second
/// is kept in memory; once a move comes older than the latest, every
/// second from then on is.
pub struct Occurrences {
    seen: HashMap<(String, String, Epoch, String), u32>,
    latest: Epoch,
    sorted: bool,
    /// Moves of second `.0` numbered by an earlier pull, by account, game
    /// and IP as stored: their numbers go on from there.
    resumed: Option<(Epoch, Counts)>,
}

/// The tail as a source keeps it with its mark: the latest second, and how
/// many identical moves of that second were numbered, by account, game and
/// IP as stored (its hash in a keyed store: no raw address is kept).
#[derive(serde::Serialize, serde::Deserialize)]
struct Tail {
    second: Option<Epoch>,
    /// (username, game, ip, moves numbered so far)
    seen: Vec<(String, String, String, u32)>,
}

impl Default for Occurrences {
    fn default() -> Self {
        Occurrences {
            seen: HashMap::new(),
            latest: Epoch::MIN,
            sorted: true,
            resumed: None,
        }
    }
}

impl Occurrences {
    /// A numbering that goes on from a tail kept by `Occurrences::tail`;
    /// `None` if the text is not one.
    pub fn from_tail(text: &str) -> Option<Occurrences> {
        let tail: Tail = serde_json::from_str(text).ok()?;
        let Some(second) = tail.second else {
            return Some(Occurrences::default());
        };
        let seen = tail
            .seen
            .into_iter()
            .map(|(u, g, ip, n)| ((u, g, ip), n))
            .collect();
        Some(Occurrences {
            latest: second,
            resumed: Some((second, seen)),
            ..Occurrences::default()
        })
    }

    /// The tail to keep with a source's mark; `stored` gives an IP's stored
    /// form.
    pub(crate) fn tail(&self, stored: impl Fn(&str) -> String) -> String {
        let mut at_latest: Counts = match &self.resumed {
            Some((t, r)) if *t == self.latest => r.clone(),
            _ => HashMap::new(),
        };
        for ((u, g, t, ip), &n) in &self.seen {
            if *t == self.latest {
                at_latest.insert((u.clone(), g.clone(), stored(ip)), n);
            }
        }
        let mut seen: Vec<_> = at_latest
            .into_iter()
            .map(|((u, g, ip), n)| (u, g, ip, n))
            .collect();
        seen.sort();
        let second = (self.latest != Epoch::MIN).then_some(self.latest);
        serde_json::to_string(&Tail { second, seen }).expect("a tail serializes")
    }

    /// Numbers `m`; `stored` gives an IP's stored form, asked only for a
    /// move of the second a tail resumed.
    pub(crate) fn number(&mut self, m: Move, stored: impl Fn(&str) -> String) -> NewMove {
        if m.timestamp < self.latest {
            self.sorted = false;
        } else if m.timestamp > self.latest {
            if self.sorted {
                self.seen.clear();
                if self.resumed.as_ref().is_some_and(|(t, _)| *t < m.timestamp) {
                    self.resumed = None;
                }
            }
            self.latest = m.timestamp;
        }
        let Move {
            username,
            game,
            timestamp,
            ip,
        } = m;
        let key = (username, game, timestamp, ip);
        let n = match self.seen.get_mut(&key) {
            Some(n) => n,
            None => {
                let first = match &self.resumed {
                    Some((t, r)) if *t == timestamp => {
                        let k = (key.0.clone(), key.1.clone(), stored(&key.3));
                        r.get(&k).copied().unwrap_or(0)
                    }
                    _ => 0,
                };
                self.seen.entry(key.clone()).or_insert(first)
            }
        };
        let occurrence = *n;
        *n += 1;
        let (username, game, timestamp, ip) = key;
        NewMove {
            mv: Move {
                username,
                game,
                timestamp,
                ip,
            },
            occurrence,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(u: &str, t: i64) -> Move {
        Move {
            username: u.into(),
            game: "g".into(),
            timestamp: t,
            ip: "1.2.3.4".into(),
        }
    }

    /// The stored form of an address in a keyed store: not the address.
    fn hashed(ip: &str) -> String {
        format!("hash-{}", ip.len())
    }

    fn numbers(o: &mut Occurrences, moves: &[(&str, i64)]) -> Vec<u32> {
        moves
            .iter()
            .map(|&(u, t)| o.number(mv(u, t), hashed).occurrence)
            .collect()
    }

    #[test]
    fn identical_moves_are_numbered_and_others_start_at_zero() {
        let mut o = Occurrences::default();
        let got = numbers(&mut o, &[("x", 1), ("x", 1), ("y", 1), ("x", 2), ("x", 1)]);
        // The last one comes out of order: its second was let go.
        assert_eq!(got, [0, 1, 0, 0, 0]);
    }

    #[test]
    fn numbering_goes_on_across_pulls_through_the_tail() {
        let mut a = Occurrences::default();
        assert_eq!(
            numbers(&mut a, &[("x", 1), ("x", 2), ("y", 2), ("x", 2)]),
            [0, 0, 0, 1]
        );
        let tail = a.tail(hashed);
        assert!(
            !tail.contains("1.2.3.4"),
            "no raw address in a tail: {tail}"
        );
        let mut b = Occurrences::from_tail(&tail).unwrap();
        let got = numbers(&mut b, &[("x", 2), ("y", 2), ("x", 3), ("x", 3)]);
        assert_eq!(got, [2, 1, 0, 1]);
        // A tail of a pull that numbered nothing new keeps the old one.
        let c = Occurrences::from_tail(&tail).unwrap();
        let mut d = Occurrences::from_tail(&c.tail(hashed)).unwrap();
        assert_eq!(numbers(&mut d, &[("x", 2)]), [2]);
        assert!(Occurrences::from_tail("junk").is_none());
        let empty = Occurrences::default().tail(hashed);
        assert_eq!(
            numbers(&mut Occurrences::from_tail(&empty).unwrap(), &[("x", 1)]),
            [0]
        );
    }
}
