//! `detect buckets --season N`: the reference's time-bucket records.

use crate::cli::BucketsArgs;
use anyhow::Result;
use app::pipeline::{self, bucket_seconds};
use std::io::Write;

pub async fn run(db: &app::pipeline::Db, args: BucketsArgs) -> Result<()> {
    let store = pipeline::open_store(db).await?;
    let season = pipeline::resolve_season(&store, args.season).await?;
    let segments = pipeline::segments(&store, bucket_seconds(args.bucket_minutes), None).await?;
    let mut records = season_bucket_records(&segments, &season)?;
    if !args.show_ips {
        // The season's pseudonyms, the same as in explain, the timelines and
        // the reports; a stall without a next IP keeps its empty IP.
        let pseudonyms = pipeline::ip_pseudonyms(&store, &season, &segments).await?;
        for r in &mut records {
            if let Some(ip) = segments.ips.get(&r.ip) {
                r.ip = pseudonyms.label(ip);
            }
        }
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for r in records {
        serde_json::to_writer(&mut out, &r)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    store.close().await;
    Ok(())
}

/// The bucket records of every account in at least one candidate pair of the
/// season, all their buckets, canonical order.
pub fn season_bucket_records(
    segments: &schema::Segments,
    season: &schema::Season,
) -> Result<Vec<schema::BucketRecord>> {
    let members = scoring::participants(segments, season)?;
    let (pairs, _) =
        scoring::candidate_pairs(segments, &members, season, schema::DEFAULT_CROWD_LIMIT);
    let mut accounts: Vec<u32> = pairs.into_iter().flat_map(|(a, b)| [a, b]).collect();
    accounts.sort_unstable();
    accounts.dedup();
    let mut records = segments.bucket_records(&accounts);
    records.retain(|r| season.contains(r.timestamp));
    Ok(records)
}
