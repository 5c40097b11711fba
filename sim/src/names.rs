//! Handles that look like a game site's usernames, and casual game names.
//!
//! Everything is drawn from the world's seeded generator, so names are
//! deterministic; all are ASCII without quotes, backslashes or commas.

use rand::Rng;
use std::collections::HashSet;
use std::fmt::Write;

const ADJECTIVES: &[&str] = &[
    "dark", "swift", "lazy", "iron", "silver", "red", "blue", "green", "old", "mad", "happy",
    "wild", "lucky", "grim", "misty", "frosty", "sunny", "quiet", "brave", "sly", "golden",
    "hidden", "crazy", "little", "big", "north", "stone", "night", "salty", "shy",
];

const NOUNS: &[&str] = &[
    "wolf",
    "mage",
    "witch",
    "nomad",
    "giant",
    "dwarf",
    "halfling",
    "engineer",
    "mermaid",
    "darkling",
    "alchemist",
    "cultist",
    "auren",
    "fakir",
    "swarm",
    "builder",
    "trader",
    "priest",
    "river",
    "temple",
    "spade",
    "bridge",
    "tower",
    "fox",
    "owl",
    "bear",
    "otter",
    "raven",
    "dragon",
    "monk",
    "yeti",
    "ice",
    "acolyte",
    "chaos",
    "shaper",
    "rider",
    "gnome",
    "pilot",
];

const FIRST_NAMES: &[&str] = &[
    "anna", "ben", "carla", "david", "elena", "felix", "greta", "hugo", "ines", "jonas", "kai",
    "lena", "marco", "nina", "oscar", "paula", "quinn", "rafael", "sofia", "tom", "ulla", "viktor",
    "wendy", "xavier", "yuki", "zoe", "mikko", "juha", "aino", "pierre", "chloe", "lukas", "mia",
    "sam", "alex", "chris", "jan", "eva", "ivan", "olga", "li", "wei", "ana", "diego", "maria",
    "noah", "emma", "liam", "ola", "kim",
];

/// Uppercases the first letter.
fn cap(s: &str, out: &mut String) {
    let mut c = s.chars();
    if let Some(f) = c.next() {
        out.push(f.to_ascii_uppercase());
        out.push_str(c.as_str());
    }
}

fn pick<'a, R: Rng>(rng: &mut R, list: &[&'a str]) -> &'a str {
    list[rng.gen_range(0..list.len() as u32) as usize]
}

/// Draws unique usernames.
pub(crate) struct Handles {
    taken: HashSet<String>,
}

impl Handles {
    pub(crate) fn new() -> Self {
        Handles {
            taken: HashSet::new(),
        }
    }

    /// A fresh handle.
    pub(crate) fn fresh<R: Rng>(&mut self, rng: &mut R) -> String {
        let mut s = String::with_capacity(16);
        match rng.gen_range(0..8) {
            0 => {
                cap(pick(rng, ADJECTIVES), &mut s);
                cap(pick(rng, NOUNS), &mut s);
            }
            1 => {
                s.push_str(pick(rng, ADJECTIVES));
                s.push('_');
                s.push_str(pick(rng, NOUNS));
            }
            2 => {
                s.push_str(pick(rng, FIRST_NAMES));
                let year = rng.gen_bool(0.4);
                let n: u32 = if year {
                    rng.gen_range(1960..2008)
                } else {
                    rng.gen_range(1..100)
                };
                write!(s, "{n}").expect("string");
            }
            3 => {
                cap(pick(rng, FIRST_NAMES), &mut s);
                s.push_str(if rng.gen_bool(0.5) { "The" } else { "_" });
                cap(pick(rng, NOUNS), &mut s);
            }
            4 => {
                s.push_str(pick(rng, NOUNS));
                write!(s, "{}", rng.gen_range(1..1000)).expect("string");
            }
            5 => {
                s.push_str(pick(rng, FIRST_NAMES));
                s.push(if rng.gen_bool(0.5) { '_' } else { '.' });
                s.push((b'a' + rng.gen_range(0..26u8)) as char);
            }
            6 => {
                s.push_str("TM");
                cap(pick(rng, NOUNS), &mut s);
                if rng.gen_bool(0.5) {
                    write!(s, "{}", rng.gen_range(1..100)).expect("string");
                }
            }
            _ => {
                cap(pick(rng, FIRST_NAMES), &mut s);
                cap(pick(rng, ADJECTIVES), &mut s);
            }
        }
        self.claim(rng, s)
    }

    /// A handle derived from `main` (`kai88` → `kai88_2`, `kai88alt`), as some
    /// multi-account owners choose.
    pub(crate) fn derived<R: Rng>(&mut self, rng: &mut R, main: &str) -> String {
        let suffixes = ["2", "_alt", "jr", "x", "_b", "II", "0"];
        let s = format!("{main}{}", pick(rng, &suffixes));
        self.claim(rng, s)
    }

    /// `s`, or `s` with digits added until it is not taken.
    fn claim<R: Rng>(&mut self, rng: &mut R, mut s: String) -> String {
        while self.taken.contains(&s) {
            write!(s, "{}", rng.gen_range(0..10)).expect("string");
        }
        self.taken.insert(s.clone());
        s
    }
}

/// Writes a casual game's name into `out` (cleared first): unique per `id`,
/// never starting with `4pLeague_`.
pub(crate) fn casual_game<R: Rng>(
    rng: &mut R,
    id: u32,
    players: usize,
    creator: &str,
    out: &mut String,
) {
    out.clear();
    let r = match rng.gen_range(0..7) {
        0 => write!(out, "casual_{id}"),
        1 => write!(out, "{players}pRandom{id}"),
        2 => write!(out, "friendly{id}"),
        3 => write!(out, "{creator}s_game{id}"),
        4 => write!(out, "{players}p_open_{id}"),
        5 => write!(out, "FireAndIce_{id}"),
        _ => write!(out, "practice{id}"),
    };
    r.expect("string");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::plain;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn handles_are_unique_plain_and_deterministic() {
        let draw = |seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut h = Handles::new();
            (0..5000).map(|_| h.fresh(&mut rng)).collect::<Vec<_>>()
        };
        let a = draw(1);
        assert_eq!(a, draw(1));
        assert_ne!(a, draw(2));
        assert!(a.iter().all(|s| plain(s) && !s.is_empty() && s.len() < 40));
        assert_eq!(a.iter().collect::<HashSet<_>>().len(), a.len());
    }

    #[test]
    fn casual_names_are_not_league_names() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut s = String::new();
        let mut seen = HashSet::new();
        for id in 0..3000 {
            casual_game(&mut rng, id, 4, "kai88", &mut s);
            assert!(plain(&s) && !s.starts_with("4pLeague_"), "{s}");
            assert!(seen.insert(s.clone()), "{s} twice");
        }
    }
}
