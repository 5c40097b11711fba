//! A segmentation held from one scan to the next (the daemon's, between
//! ticks). Bringing it up to date reads again only the accounts whose
//! stored rows were written since it was loaded (an extension writes the
//! accounts who moved), not every account: at ten million moves, a tick's
//! thousand new moves touch a few hundred of some forty thousand accounts.

use anyhow::Result;
use rustc_hash::FxHashMap;
use schema::Segments;
use store::{Store, StoredSegmentation};

/// Not a stored segmentation's id: a copy cut or loaded while moves
/// arrived, loaded whole again the next time.
const NOT_STORED: i64 = -1;

/// Scans made from a held copy that [`HeldChanges`] remembers (a daemon's
/// seasons each have their latest).
const SCANS_REMEMBERED: usize = 64;

/// The segments of a store, held between scans; empty until first used.
#[derive(Default)]
pub struct HeldSegments {
    stored: Option<StoredSegmentation>,
    changes: HeldChanges,
}

/// What a daemon holds from one scan to the next that a rescan reads
/// instead of the whole season.
#[derive(Clone, Copy)]
pub struct Held<'a> {
    /// Which accounts of the held segments changed since the scans made
    /// from them.
    pub changes: &'a HeldChanges,
    /// Every pair of one scan, when held: the scan's id, and how many of
    /// its candidate pairs name any of some accounts
    /// (`scoring::rescan::PreviousCandidates::naming`).
    pub pairs: Option<(i64, scoring::rescan::PairsNaming<'a>)>,
    /// What a rescan of the season's latest scan starts from, as the last
    /// rescan left it ([`super::Scanned::next_base`]): used instead of
    /// reading it from the store while that scan is still the latest.
    pub base: Option<&'a store::RescanBase>,
}

/// Which accounts of a held copy were read again since a scan was made
/// from it: a rescan whose base is that scan takes again the digests of
/// those accounts only (`scoring::rescan::Previous::changed`).
#[derive(Default)]
pub struct HeldChanges {
    /// Counts the copy's updates: each reading again of some accounts,
    /// each load whole.
    update: u64,
    /// The update that last loaded the copy whole.
    whole: u64,
    /// Each account read again since the copy was loaded whole: the update
    /// that last read it.
    read: FxHashMap<String, u64>,
    /// Scans made from the copy, latest last: each with the update it saw.
    scans: Vec<(i64, u64)>,
}

impl HeldChanges {
    /// By account id of `segments` (the copy as held now): whether the
    /// account may have changed since `scan` was made from the copy; `None`
    /// when `scan` was not made from it since it was last loaded whole.
    pub fn since(&self, scan: i64, segments: &Segments) -> Option<Vec<bool>> {
        let &(_, seen) = self.scans.iter().rev().find(|(id, _)| *id == scan)?;
        if self.whole > seen {
            return None;
        }
        let mut changed = vec![false; segments.accounts.len()];
        for (name, &update) in &self.read {
            if update > seen {
                if let Some(u) = segments.accounts.get(name) {
                    changed[u as usize] = true;
                }
            }
        }
        Some(changed)
    }

    fn read_again(&mut self, names: Vec<String>) {
        if names.is_empty() {
            return;
        }
        self.update += 1;
        for name in names {
            self.read.insert(name, self.update);
        }
    }

    fn loaded_whole(&mut self) {
        self.update += 1;
        self.whole = self.update;
        self.read.clear();
    }
}

impl HeldSegments {
    /// The segments of every stored move for `bucket_seconds`, as
    /// [`super::segments`] hands them (in the order of the last
    /// segmentation, extended or cut first when moves arrived): the held
    /// copy with the changed accounts read again when the store's
    /// segmentation is the one held, else loaded whole.
    pub async fn current(&mut self, store: &Store, bucket_seconds: i64) -> Result<&Segments> {
        let generation = match super::segments_current(store, bucket_seconds, None).await? {
            Some(g) => g,
            None => {
                let order = store.segmentation_order().await?.unwrap_or(false);
                super::update_segments(store, bucket_seconds, order, false).await?;
                store.moves_generation().await?
            }
        };
        let up_to_date = match self.stored.as_mut() {
            Some(held) if held.segments.bucket_seconds == bucket_seconds => {
                match store.refresh_segmentation(held).await? {
                    Some(names) => {
                        tracing::debug!(accounts = names.len(), "held segments brought up to date");
                        self.changes.read_again(names);
                        held.generation == generation
                    }
                    None => false,
                }
            }
            _ => false,
        };
        if !up_to_date {
            // Freed before the next copy is read.
            self.stored = None;
            self.changes.loaded_whole();
            let stored = store.load_segmentation(bucket_seconds).await?;
            self.stored = Some(match stored.filter(|s| s.generation == generation) {
                Some(s) => s,
                // Moves arrived meanwhile: as a scan without a held copy.
                None => StoredSegmentation {
                    id: NOT_STORED,
                    segments: super::segments(store, bucket_seconds, None).await?,
                    reference_order: false,
                    generation,
                },
            });
        }
        Ok(&self.stored.as_ref().expect("just set").segments)
    }

    /// The segments as last brought up to date, if any.
    pub fn get(&self) -> Option<&Segments> {
        self.stored.as_ref().map(|s| &s.segments)
    }

    /// The segments as last brought up to date, if any, and which of
    /// their accounts changed since the scans made from them.
    pub fn with_changes(&self) -> Option<(&Segments, &HeldChanges)> {
        Some((self.get()?, &self.changes))
    }

    /// Records that `scan` was made from the segments as held now (or is
    /// what they would give: a rescan that found nothing new).
    pub fn scanned(&mut self, scan: i64) {
        let scans = &mut self.changes.scans;
        scans.retain(|(id, _)| *id != scan);
        if scans.len() == SCANS_REMEMBERED {
            scans.remove(0);
        }
        scans.push((scan, self.changes.update));
    }
}
