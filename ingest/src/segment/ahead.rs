//! Moves pushed a chunk at a time, each move's memory asked for some moves
//! ahead: on a season larger than the processor's caches, the game's
//! latest bucket, the account's list and that list's latest record are
//! each a cache miss, and pushed one by one each move waited for the
//! last move's misses (BENCHMARKS.md, "Moves pushed with their memory
//! asked for ahead").

use super::Segmenter;
use crate::IdMove;
use schema::{AccountId, Move};

impl Segmenter {
    /// Takes moves in processing order, as [`Segmenter::push_move`] one by
    /// one does: their names interned first, then pushed by
    /// [`Segmenter::push_all`].
    pub fn push_moves(&mut self, moves: &[Move]) {
        let ids: Vec<IdMove> = moves
            .iter()
            .map(|m| IdMove {
                timestamp: m.timestamp,
                account: self.account_id(&m.username),
                game: self.game_id(&m.game),
                ip: self.ip_id(&m.ip),
            })
            .collect();
        self.push_all(&ids);
    }

    /// Takes moves by ids in processing order, as [`Segmenter::push_ids`]
    /// one by one does. The memory each move touches (its game's latest
    /// bucket, its account's list and that list's latest record) is asked
    /// for some moves ahead, so that the cache misses of a season larger
    /// than the processor's caches overlap instead of coming one after
    /// another.
    pub fn push_all(&mut self, moves: &[IdMove]) {
        const AHEAD: usize = 16;
        for (i, m) in moves.iter().enumerate() {
            if let Some(far) = moves.get(i + AHEAD) {
                self.prefetch_lists(far.account, far.game);
            }
            if let Some(near) = moves.get(i + AHEAD / 2) {
                self.prefetch_latest(near.account);
            }
            self.push_ids(m.account, m.game, m.timestamp, m.ip);
        }
    }

    /// The first step of [`Segmenter::push_all`]'s look-ahead: the account's
    /// list and latest move, and the game's latest bucket.
    #[inline]
    fn prefetch_lists(&self, account: AccountId, game: u32) {
        if let Some(list) = self.segs.get(account as usize) {
            prefetch(list);
        }
        if let Some(latest) = self.latest.get(account as usize) {
            prefetch(latest);
        }
        if let Some(bucket) = self.last_bucket.get(game as usize) {
            prefetch(bucket);
        }
    }

    /// The second step: the account's latest record, once its list (asked
    /// for by the first step) is at hand.
    #[inline]
    fn prefetch_latest(&self, account: AccountId) {
        if let Some(top) = self.segs.get(account as usize).and_then(|s| s.last()) {
            prefetch(top);
        }
    }
}

/// Asks the processor to bring `value`'s cache line in, without waiting
/// for it. A hint only: it reads nothing the program sees.
#[inline(always)]
fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and has no effect the program can
    // observe; the pointer comes from a live reference besides.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
