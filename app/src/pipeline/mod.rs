//! The pipeline: read logs into the store, cut segments, resolve seasons,
//! scan. Commands and the daemon are thin layers over these steps.

use anyhow::{bail, Result};

use schema::season::seasons_in_game_names;
use store::Store;
mod cut;
mod files;
mod held;
mod into_store;
mod scan;

pub use cut::{
    cut_segments, cut_segments_in_pages, update_segments, update_segments_in_pages, Cut, CUT_PAGE,
};
pub use files::{
    segments_and_times_from_files, segments_from_files, segments_settling_from_files, Handover,
    Settle,
};
pub use held::{Held, HeldChanges, HeldSegments};
pub use into_store::{
    ingest_file, read_log_into, spinner, IngestSummary, Log, Shown, BAD_LINES_LISTED,
};
pub use scan::{
    current_scan, recorded_model, rethreshold, scan, scan_is_current, scan_segments, scan_whole,
    Rescanned, Scanned,
};

use schema::{ScanParams, Season, Segments, DEFAULT_BUCKET_SECONDS};

/// The segments of every stored move for a bucket size, brought up to date
/// when moves arrived since they were stored (extended, or cut again) or
/// cut again when another order is asked for.
/// `reference_order: None` keeps the order of the last segmentation.
pub async fn segments(
    store: &Store,
    bucket_seconds: i64,
    reference_order: Option<bool>,
) -> Result<Segments> {
    // A stale segmentation is not loaded only to be thrown away.
    if let Some(generation) = segments_current(store, bucket_seconds, reference_order).await? {
        let loading = crate::progress::step("loading the stored buckets");
        let stored = store.load_segmentation(bucket_seconds).await?;
        loading.finish();
        if let Some(stored) = stored.filter(|s| s.generation == generation) {
            return Ok(stored.segments);
        }
    }
    let order = match reference_order {
        Some(r) => r,
        None => store.segmentation_order().await?.unwrap_or(false),
    };
    let cut = update_segments(store, bucket_seconds, order, true).await?;
    Ok(cut.segments.expect("kept"))
}

/// The moves generation, if the stored segmentation for `bucket_seconds`
/// was cut from the moves as they are now, in the order asked for (`None`:
/// any): one query each, without loading it.
pub async fn segments_current(
    store: &Store,
    bucket_seconds: i64,
    reference_order: Option<bool>,
) -> Result<Option<i64>> {
    let generation = store.moves_generation().await?;
    let current = store
        .segmentation_state(bucket_seconds)
        .await?
        .is_some_and(|(g, order)| g == generation && reference_order.is_none_or(|r| r == order));
    Ok(current.then_some(generation))
}

/// Every stored move's second and address, for improved mode's hand-offs
/// (the segments keep buckets only), and each address's network as stored
/// (all a keyed store keeps of it).
pub async fn move_times(
    store: &Store,
    segments: &Segments,
    generation: i64,
) -> Result<scoring::improved::MoveTimes> {
    let mut times = scoring::improved::MoveTimes::new(segments);
    // Saved beside the segments by the cut that read the moves; else (a
    // concurrent ingest cut them again meanwhile) read from the moves.
    let saved = store
        .for_each_time_chunk(
            segments.bucket_seconds,
            generation,
            |account, ips, moves| times.push_chunk(segments, account, ips, moves),
        )
        .await?;
    if saved {
        return Ok(times.finish());
    }
    store
        .for_each_move_time(|username, t, ip, net| {
            times.push_with_network(segments, username, t, ip, net)
        })
        .await?;
    Ok(times.finish())
}

/// Season `number`: as defined with `season add`, else inferred from game
/// names (`4pLeague_S{number}_...`).
pub async fn resolve_season(store: &Store, number: u32) -> Result<Season> {
    if let Some(s) = store.season(number).await? {
        return Ok(s);
    }
    // The usual name first, by the index; then every name, which also
    // finds `4pLeague_S01_...`.
    if store.has_season_games(number).await? {
        return Ok(Season::inferred(number));
    }
    let games = store.game_names().await?;
    if seasons_in_game_names(games.iter().map(String::as_str)).contains(&number) {
        return Ok(Season::inferred(number));
    }
    bail!(
        "season {number} is not defined and no stored game is named 4pLeague_S{number}_...; \
         define it with `detect season add {number} --games REGEX`"
    )
}

/// Minutes to seconds, checked.
pub fn bucket_seconds(minutes: u32) -> i64 {
    minutes as i64 * 60
}

/// The scan parameters from the command line.
pub fn scan_params(threshold: f64, bucket_minutes: u32) -> Result<ScanParams> {
    if !(0.0..=1.0).contains(&threshold) {
        bail!("the threshold must lie between 0 and 1, not {threshold}");
    }
    Ok(ScanParams {
        threshold,
        bucket_seconds: bucket_seconds(bucket_minutes),
        ..ScanParams::default()
    })
}

/// The mode a scan scores in unless told otherwise.
pub const DEFAULT_MODE: schema::Mode = schema::Mode::Reference;

/// The threshold a mode flags at unless told otherwise.
pub fn default_threshold(mode: schema::Mode) -> f64 {
    match mode {
        schema::Mode::Reference => 0.9,
        schema::Mode::Improved => scoring::improved::DEFAULT_THRESHOLD,
    }
}

/// The default bucket size, in minutes.
pub const DEFAULT_BUCKET_MINUTES: u32 = (DEFAULT_BUCKET_SECONDS / 60) as u32;

/// The store and site named on the command line (`--db`, `--site`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Db {
    pub url: String,
    pub site: String,
}

impl Db {
    /// The default site of the store at `url`.
    pub fn new(url: impl Into<String>) -> Db {
        Db {
            url: url.into(),
            site: store::DEFAULT_SITE.to_owned(),
        }
    }
}

/// Opens the store named on the command line, seen as its site, with the
/// IP key of `DETECT_IP_KEY` when it is set.
pub async fn open_store(db: &Db) -> Result<Store> {
    let key = crate::privacy::ip_key_from_env()?;
    Ok(Store::open(&db.url)
        .await?
        .with_ip_key(key)
        .await?
        .with_site(&db.site)?)
}

/// The IP pseudonyms of a season, kept by the store
/// ([`Store::season_pseudonyms`]).
pub async fn ip_pseudonyms(
    store: &Store,
    season: &Season,
    segments: &Segments,
) -> Result<schema::IpPseudonyms> {
    Ok(store.season_pseudonyms(season, segments).await?)
}

/// The IP pseudonyms of data with no store behind it (`report --input`):
/// the same order of first sight, numbered afresh.
pub fn ip_pseudonyms_in_memory(season: &Season, segments: &Segments) -> schema::IpPseudonyms {
    schema::IpPseudonyms::numbered_in_order(&schema::pseudonym::first_seen(
        segments,
        season.from,
        season.to,
    ))
}
