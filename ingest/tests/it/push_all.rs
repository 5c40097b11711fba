//! Moves pushed a chunk at a time (`Segmenter::push_moves`: the chunk's
//! names interned, then its ids pushed by `Segmenter::push_all`, which
//! asks for the memory of moves ahead) cut exactly as moves pushed one by
//! one, in time order and in reference order on unsorted input alike.

use detect_ingest::{segment_moves, Segmenter};
use proptest::prelude::*;
use schema::Move;

use crate::common::{moves, B};

/// Time-sorted moves, or the same moves in any order.
fn any_order() -> impl Strategy<Value = Vec<Move>> {
    moves().prop_flat_map(|m| prop_oneof![Just(m.clone()), Just(m).prop_shuffle()])
}

/// `cuts` that fall inside `len` moves, sorted, and `len` last.
fn ends(cuts: Vec<usize>, len: usize) -> Vec<usize> {
    let mut cuts: Vec<usize> = cuts.into_iter().filter(|&c| c < len).collect();
    cuts.sort_unstable();
    cuts.push(len);
    cuts
}

proptest! {
    #[test]
    fn chunks_cut_as_moves_one_by_one(
        moves in any_order(),
        cuts in prop::collection::vec(0..120usize, 0..6),
    ) {
        let whole = segment_moves(&moves, B);
        let mut segmenter = Segmenter::new(B);
        let mut from = 0;
        for to in ends(cuts, moves.len()) {
            segmenter.push_moves(&moves[from..to]);
            from = to;
        }
        let chunked = segmenter.finish();
        prop_assert_eq!(&chunked.by_account, &whole.by_account);
        prop_assert_eq!(&chunked.ip_days, &whole.ip_days);
        prop_assert_eq!(&chunked.game_days, &whole.game_days);
        prop_assert_eq!(chunked.accounts.as_slice(), whole.accounts.as_slice());
        prop_assert_eq!(chunked.games.as_slice(), whole.games.as_slice());
        prop_assert_eq!(chunked.ips.as_slice(), whole.ips.as_slice());
    }
}
