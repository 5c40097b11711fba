//! What the segmenter's property tests share: small worlds of time-sorted
//! moves.

use detect_ingest::sort_by_time;
use proptest::prelude::*;
use schema::Move;

pub const K0: i64 = 1_430_647_200;
pub const B: i64 = 1800;

/// Moves of 4 accounts in 3 games from 3 IPs over about two days, sorted by
/// time (ties keep their order).
pub fn moves() -> impl Strategy<Value = Vec<Move>> {
    prop::collection::vec((0..4u8, 0..3u8, 0..100_000i64, 0..3u8), 0..120).prop_map(|raw| {
        let mut moves: Vec<Move> = raw
            .into_iter()
            .map(|(u, g, t, ip)| Move {
                username: format!("u{u}"),
                game: format!("g{g}"),
                timestamp: K0 + t,
                ip: format!("10.0.0.{ip}"),
            })
            .collect();
        sort_by_time(&mut moves);
        moves
    })
}
