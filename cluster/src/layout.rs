//! The columnar layout of a season (docs/scale-out.md): what `detect export`
//! writes and what a site's own pipeline may produce instead.
//!
//! A season folder holds `meta.json`, `segments/part-NNNNN.parquet` and
//! `ip_days/part-NNNNN.parquet`; an account's rows all go to the part
//! [`partition_of`] names (an account is one row of `segments`). A scan's folder holds `pairs.parquet` and
//! `crowded.parquet` beside a copy of `meta.json`.

use datafusion::arrow::datatypes::{DataType, Field, Fields, Schema, SchemaRef};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The layout's version, written into `meta.json`: 2 since a stall run is
/// one segment (`stalls`); version 1 had one segment a bucket (`stalled`),
/// which is still read.
pub const FORMAT: u32 = 2;

/// The oldest layout version read.
pub const OLDEST_FORMAT: u32 = 1;
pub const META: &str = "meta.json";
pub const SEGMENTS: &str = "segments";
pub const IP_DAYS: &str = "ip_days";
pub const PAIRS: &str = "pairs.parquet";
pub const CROWDED: &str = "crowded.parquet";

/// What a season folder says about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    pub format: u32,
    pub season: u32,
    pub bucket_seconds: i64,
    /// The season's participants (accounts with a move in one of its games).
    pub participants: usize,
    pub partitions: u32,
    /// The store's moves generation the segments were cut from (0 when the
    /// folder did not come from a store).
    pub generation: i64,
    /// Segments written: moved buckets and stall runs.
    pub segments: usize,
    pub ip_days: usize,
    /// The pattern of the season's games (absent in folders written before
    /// it was recorded, and perhaps in a site's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games: Option<String>,
}

/// The fields of one segment (an account's moved bucket or stall run in the
/// season, [`schema::Segment`]).
pub fn segment_fields() -> Fields {
    let item = |t: DataType| Arc::new(Field::new("item", t, true));
    Fields::from(vec![
        Field::new("bucket", DataType::Int64, false),
        Field::new("stalls", DataType::UInt32, false),
        Field::new("stall_ip", DataType::Utf8, true),
        Field::new("move_ips", DataType::List(item(DataType::Utf8)), false),
        Field::new("move_counts", DataType::List(item(DataType::UInt32)), false),
    ])
}

/// One row an account: the account's in-season segments, ordered by bucket, as a
/// list of [`segment_fields`] structs. An account's segments travel together
/// (the scoring walks them whole), so the table holds them packed.
pub fn segments_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("account", DataType::Utf8, false),
        Field::new(
            "segments",
            DataType::List(Arc::new(Field::new(
                "item",
                DataType::Struct(segment_fields()),
                false,
            ))),
            false,
        ),
    ]))
}

/// One row a distinct (account, UTC day, IP) sighting in the season.
pub fn ip_days_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("account", DataType::Utf8, false),
        Field::new("day", DataType::Int64, false),
        Field::new("ip", DataType::Utf8, false),
    ]))
}

/// One row a candidate pair `x < y`, scored in both directions; the
/// evidence is [`schema::Evidence`] as JSON.
pub fn pairs_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("account_x", DataType::Utf8, false),
        Field::new("account_y", DataType::Utf8, false),
        Field::new("score", score_type(), false),
    ]))
}

/// The scores of both directions of a pair, as `detect_score` returns them.
pub fn score_type() -> DataType {
    let mut fields = Vec::new();
    for d in ["xy", "yx"] {
        fields.push(Field::new(
            format!("{d}_similarity"),
            DataType::Float64,
            false,
        ));
        fields.push(Field::new(format!("{d}_sum"), DataType::Int64, false));
        fields.push(Field::new(format!("{d}_weight"), DataType::Int64, false));
        fields.push(Field::new(format!("{d}_evidence"), DataType::Utf8, false));
    }
    DataType::Struct(fields.into())
}

/// What `detect_score` gives an account of a part: a list of its pairs
/// there, each the partner (`account_y`) and the [`score_type`] of both
/// directions.
pub fn scored_type() -> DataType {
    let pair = Fields::from(vec![
        Field::new("account_y", DataType::Utf8, false),
        Field::new("score", score_type(), false),
    ]);
    DataType::List(Arc::new(Field::new("item", DataType::Struct(pair), false)))
}

/// One row an (IP, day) left out for crowding.
pub fn crowded_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("day", DataType::Int64, false),
        Field::new("ip", DataType::Utf8, false),
        Field::new("accounts", DataType::Int64, false),
    ]))
}

/// The part an account's rows go to: FNV-1a (64 bit) of the name's UTF-8 bytes,
/// modulo the number of parts. Stable across runs and machines.
pub fn partition_of(account: &str, partitions: u32) -> u32 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in account.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (h % u64::from(partitions.max(1))) as u32
}

/// The file name of part `n`.
pub fn part_name(n: u32) -> String {
    format!("part-{n:05}.parquet")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_are_stable_and_in_range() {
        // FNV-1a of "" is the offset basis; of "a" the published 0xaf63dc4c8601ec8c.
        assert_eq!(
            partition_of("", u32::MAX),
            (0xcbf2_9ce4_8422_2325u64 % u64::from(u32::MAX)) as u32
        );
        assert_eq!(
            partition_of("a", 1 << 31),
            (0xaf63_dc4c_8601_ec8cu64 % (1 << 31)) as u32
        );
        for u in ["alice", "bob", "u001", "ünï"] {
            assert!(partition_of(u, 7) < 7);
            assert_eq!(partition_of(u, 7), partition_of(u, 7));
        }
        assert_eq!(partition_of("alice", 0), 0);
    }
}
