//! `detect buckets --season N`: the reference's time-bucket records.

use crate::cli::BucketsArgs;
use crate::pipeline::{self, bucket_seconds};
use anyhow::Result;
use std::io::Write;

pub async fn run(db: &str, args: BucketsArgs) -> Result<()> {
    let store = pipeline::open_store(db).await?;
    let season = pipeline::resolve_season(&store, args.season).await?;
    let segments = pipeline::segments(&store, bucket_seconds(args.bucket_minutes), None).await?;
    let mut records = season_bucket_records(&segments, &season)?;
    if !args.show_ips {
        pseudonymise(&mut records);
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

/// The bucket records of every user in at least one candidate pair of the
/// season, all their buckets, canonical order.
pub fn season_bucket_records(
    segments: &schema::Segments,
    season: &schema::Season,
) -> Result<Vec<schema::BucketRecord>> {
    let members = scoring::participants(segments, season)?;
    let mut users: Vec<u32> = scoring::candidate_pairs(segments, &members, season)
        .into_iter()
        .flat_map(|(a, b)| [a, b])
        .collect();
    users.sort_unstable();
    users.dedup();
    let mut records = segments.bucket_records(&users);
    records.retain(|r| season.contains(r.timestamp));
    Ok(records)
}

/// Replaces each IP by `IP-1`, `IP-2`, ... in order of first appearance
/// (records in canonical order); a stall without a next IP keeps its empty
/// IP.
pub fn pseudonymise(records: &mut [schema::BucketRecord]) {
    let mut names: std::collections::HashMap<String, String> = Default::default();
    for r in records {
        if r.ip.is_empty() {
            continue;
        }
        let next = names.len() + 1;
        r.ip = names
            .entry(std::mem::take(&mut r.ip))
            .or_insert_with(|| format!("IP-{next}"))
            .clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pseudonyms_follow_first_appearance() {
        let rec = |ip: &str| schema::BucketRecord {
            user: "u".into(),
            timestamp: 0,
            ip: ip.into(),
            count: 1,
            delay: 0,
        };
        let mut rs = vec![rec("9.9.9.9"), rec("1.1.1.1"), rec(""), rec("9.9.9.9")];
        pseudonymise(&mut rs);
        let ips: Vec<&str> = rs.iter().map(|r| r.ip.as_str()).collect();
        assert_eq!(ips, ["IP-1", "IP-2", "", "IP-1"]);
    }
}
