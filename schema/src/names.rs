//! Interned names: accounts, IPs and games as dense ids, so that segments,
//! sightings and pairs carry 4-byte numbers instead of strings.

use rustc_hash::FxHashMap;

/// Interned names (accounts, IPs, games): a dense id for each distinct string.
#[derive(Debug, Clone, Default)]
pub struct Names {
    names: Vec<String>,
    index: FxHashMap<String, u32>,
}

impl Names {
    /// The id of `name`, adding it if new.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.index.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.index.insert(name.to_owned(), id);
        id
    }

    /// The id of `name`, if known.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.index.get(name).copied()
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
