//! Interned names: accounts, IPs and games as dense ids, so that segments,
//! sightings and pairs carry 4-byte numbers instead of strings.

use rustc_hash::FxHashMap;
use std::borrow::Borrow;
use std::hash::{Hash, Hasher};

/// Interned names (accounts, IPs, games): a dense id for each distinct string.
#[derive(Debug, Clone, Default)]
pub struct Names {
    names: Vec<String>,
    index: FxHashMap<Key, u32>,
}

impl Names {
    /// The id of `name`, adding it if new.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.index.get(name.as_bytes()) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.index.insert(Key::new(name), id);
        id
    }

    /// The id of `name`, if known.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.index.get(name.as_bytes()).copied()
    }

    /// The name behind `id`.
    ///
    /// # Panics
    /// If `id` was not handed out by this table.
    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// All names, by id.
    pub fn as_slice(&self) -> &[String] {
        &self.names
    }
}

/// A name as the index holds it: a short one (almost every account, game
/// and address) inside the index's own slot, so that a lookup compares
/// bytes it has already loaded instead of following a pointer to them.
#[derive(Debug, Clone)]
enum Key {
    Inline(u8, [u8; Key::INLINE]),
    Heap(Box<[u8]>),
}

impl Key {
    /// The longest name kept inline (the key is then 24 bytes, as a
    /// `String` is).
    const INLINE: usize = 22;

    fn new(name: &str) -> Key {
        if name.len() <= Key::INLINE {
            let mut bytes = [0; Key::INLINE];
            bytes[..name.len()].copy_from_slice(name.as_bytes());
            Key::Inline(name.len() as u8, bytes)
        } else {
            Key::Heap(name.as_bytes().into())
        }
    }

    /// The name's bytes (looked up by bytes: no check that they are
    /// UTF-8 on the way).
    #[inline]
    fn as_bytes(&self) -> &[u8] {
        match self {
            Key::Inline(len, bytes) => &bytes[..*len as usize],
            Key::Heap(name) => name,
        }
    }
}

impl Borrow<[u8]> for Key {
    #[inline]
    fn borrow(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// Hashed and compared as the bytes it holds, as `Borrow<[u8]>` requires.
impl Hash for Key {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl PartialEq for Key {
    #[inline]
    fn eq(&self, other: &Key) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Key {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_first_appearance_short_and_long_names_alike() {
        let long = "a-game-whose-name-is-longer-than-a-key-holds";
        let mut n = Names::default();
        let names = ["", "bob", long, "x".repeat(22).as_str(), "é", "bob"].map(String::from);
        let ids: Vec<u32> = names.iter().map(|s| n.intern(s)).collect();
        assert_eq!(ids, [0, 1, 2, 3, 4, 1]);
        assert_eq!(n.len(), 5);
        assert_eq!(n.name(2), long);
        assert_eq!(n.get(&"x".repeat(22)), Some(3));
        assert_eq!(n.get(&"x".repeat(23)), None);
        assert_eq!(n.get("bo"), None);
        assert_eq!(n.get("é"), Some(4));
        assert_eq!(n.intern(&"x".repeat(23)), 5);
        assert_eq!(n.as_slice()[5], "x".repeat(23));
    }
}
