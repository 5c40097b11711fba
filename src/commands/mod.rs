//! One module per command family.

pub mod audit;
pub mod backup;
pub mod buckets;
pub mod case;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod daemon;
pub mod docs;
pub mod ingest;
pub mod ip;
pub mod model;
pub mod pictures;
pub mod purge;
pub mod scan;
pub mod season;
pub mod serve;
pub mod simulate;
pub mod user;
pub mod verdict;

use anyhow::Result;

/// Season `number` and its current scan as `opts` ask for it (scanned
/// first when no stored scan holds), at the threshold `--threshold` asks
/// for, else the scan's own.
pub(crate) async fn season_scan(
    store: &store::Store,
    number: u32,
    opts: &crate::cli::ScanOptions,
) -> Result<(schema::Season, store::StoredScan)> {
    let params = opts.params()?;
    let model = opts.model(Some(store)).await?;
    let season = app::pipeline::resolve_season(store, number).await?;
    let scan = app::pipeline::current_scan(store, &season, &params, model.as_ref(), opts.threshold)
        .await?;
    Ok((season, scan))
}
