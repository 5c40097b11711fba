//! A segmentation held from one scan to the next (the daemon's, between
//! ticks). Bringing it up to date reads again only the accounts whose
//! stored rows were written since it was loaded (an extension writes the
//! accounts who moved), not every account: at ten million moves, a tick's
//! thousand new moves touch a few hundred of some forty thousand accounts.

use anyhow::Result;
use schema::Segments;
use store::{Store, StoredSegmentation};

/// Not a stored segmentation's id: a copy cut or loaded while moves
/// arrived, loaded whole again the next time.
const NOT_STORED: i64 = -1;

/// The segments of a store, held between scans; empty until first used.
#[derive(Default)]
pub struct HeldSegments(Option<StoredSegmentation>);

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
        let up_to_date = match self.0.as_mut() {
            Some(held) if held.segments.bucket_seconds == bucket_seconds => {
                let read = store.refresh_segmentation(held).await?;
                if let Some(accounts) = read {
                    tracing::debug!(accounts, "held segments brought up to date");
                }
                read.is_some() && held.generation == generation
            }
            _ => false,
        };
        if !up_to_date {
            // Freed before the next copy is read.
            self.0 = None;
            let stored = store.load_segmentation(bucket_seconds).await?;
            self.0 = Some(match stored.filter(|s| s.generation == generation) {
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
        Ok(&self.0.as_ref().expect("just set").segments)
    }

    /// The segments as last brought up to date, if any.
    pub fn get(&self) -> Option<&Segments> {
        self.0.as_ref().map(|s| &s.segments)
    }
}
