//! What a segmentation holds once saved ([`Saved`], [`SegmentCounts`]), and
//! what it held before an extension: plain numbers, shared by the writer and
//! the extension.

/// What a saved segmentation holds, and what its cut read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Saved {
    /// Over the whole segmentation.
    pub counts: SegmentCounts,
    pub accounts: u64,
    /// Moves read by this cut (only the new ones for an extension).
    pub moves: u64,
    /// Whether the cut extended the stored segmentation.
    pub extended: bool,
    /// The move rows the whole segmentation was cut from, refused ones
    /// too: the site's stored moves, without counting them again.
    pub rows: u64,
}

/// How many segments a segmentation saved, and how many of them stalled,
/// counted by bucket as the reference counts them (a run of n stalls is n).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SegmentCounts {
    pub segments: u64,
    pub stalled: u64,
}

/// What a segmentation held before an extension.
#[derive(Debug, Clone, Copy)]
pub(super) struct Before {
    pub(super) through_id: i64,
    pub(super) through_ts: i64,
    pub(super) rows: u64,
    pub(super) accounts: u64,
    pub(super) counts: SegmentCounts,
    /// Taken back out to be cut again: the tails.
    pub(super) removed: SegmentCounts,
    /// Accounts the extension found no record of.
    pub(super) new_accounts: u64,
}

impl Before {
    /// The totals once `written` segments were saved in place of the tails.
    pub(super) fn saved(&self, written: SegmentCounts, moves: u64) -> Saved {
        let counts = SegmentCounts {
            segments: self.counts.segments - self.removed.segments + written.segments,
            stalled: self.counts.stalled - self.removed.stalled + written.stalled,
        };
        Saved {
            counts,
            accounts: self.accounts + self.new_accounts,
            moves,
            extended: true,
            rows: 0,
        }
    }
}
