//! The pipeline: read logs into the store, cut segments, resolve seasons,
//! scan. Commands and the daemon are thin layers over these steps.

use anyhow::{anyhow, bail, Result};
use ingest::{open_log_with, Limits, LogLine, ReadError, Segmenter};
use schema::season::seasons_in_game_names;
use schema::store::{IngestBatch, Store, StoredScan};
use schema::{Names, ScanParams, ScanResult, Season, Segments, DEFAULT_BUCKET_SECONDS};

/// How many bad lines a `--skip-bad` summary lists.
pub const BAD_LINES_LISTED: usize = 5;

/// What ingesting one file did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct IngestSummary {
    pub file: String,
    /// Records read (lines with a record).
    pub records: u64,
    /// Moves among them (records with a username and an IP).
    pub moves: u64,
    /// Moves stored for the first time.
    pub stored: u64,
    /// Records without username or IP.
    pub skipped: u64,
    /// Moves already in the store.
    pub duplicates: u64,
    /// Moves older than the store's purge cutoff, not stored.
    pub expired: u64,
    /// Lines that could not be read (only with `--skip-bad`).
    pub bad: u64,
    /// The first few bad lines.
    pub bad_examples: Vec<ReadError>,
    /// The same file was ingested into the site before: not read again
    /// (`moves` are the moves it held then).
    pub already_stored: bool,
    /// The store was purged: a file skipped as already stored does not
    /// bring purged moves back.
    pub purged_store: bool,
}

impl std::fmt::Display for IngestSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.already_stored {
            write!(f, "already stored: {} ({} moves)", self.file, self.moves)?;
            if self.purged_store {
                write!(f, "; not read again, so purged moves are not brought back")?;
            }
            return Ok(());
        }
        write!(
            f,
            "{}: {} moves read, {} stored, {} skipped (no username or ip), {} duplicates ignored",
            self.file, self.moves, self.stored, self.skipped, self.duplicates
        )?;
        if self.expired > 0 {
            write!(
                f,
                ", {} older than the store's purge cutoff not stored",
                self.expired
            )?;
        }
        if self.bad > 0 {
            write!(f, ", {} bad lines skipped", self.bad)?;
            for e in &self.bad_examples {
                write!(f, "\n  {e}")?;
            }
            if self.bad as usize > self.bad_examples.len() {
                write!(f, "\n  ...")?;
            }
        }
        Ok(())
    }
}

/// A progress spinner counting lines on standard error when it is a
/// terminal (hidden otherwise, and with `-q`).
pub fn spinner(message: String) -> indicatif::ProgressBar {
    crate::ui::line_counter(message)
}

/// Ingests one log into the store in one transaction. A bad line rejects the
/// whole file (nothing of it is stored) unless `skip_bad`.
pub async fn ingest_file(store: &Store, path: &str, skip_bad: bool) -> Result<IngestSummary> {
    let mut batch = store.begin_ingest().await?;
    let bar = spinner(format!("reading {path}"));
    let read = read_log_into(&mut batch, path, store.limits(), skip_bad, Some(&bar)).await;
    bar.finish_and_clear();
    let summary = match read {
        Ok(s) => s,
        Err(e) => {
            batch.rollback().await?;
            let hint = match e.downcast_ref::<ReadError>() {
                Some(r) if r.line.is_some() => {
                    " (nothing of this file was stored; --skip-bad stores the good lines)"
                }
                _ => "",
            };
            return Err(anyhow!("{}{hint}", crate::error_sentence(&e)));
        }
    };
    batch.commit().await?;
    tracing::info!(file = %summary.file, moves = summary.moves, stored = summary.stored, "file ingested");
    Ok(summary)
}

/// Reads one log into an open ingest: the one way a file comes in, from
/// the command line and from the daemon's watched directories. A bad line
/// ends it with the error unless `skip_bad`; the caller then rolls the batch
/// back. Sets, marks and commits are the caller's. A file (not standard
/// input) whose digest the site already has is skipped unread; a file read
/// whole records its digest in the batch.
pub async fn read_log_into(
    batch: &mut IngestBatch<'_>,
    path: &str,
    limits: &Limits,
    skip_bad: bool,
    bar: Option<&indicatif::ProgressBar>,
) -> Result<IngestSummary> {
    let reader = open_log_with(path, limits)?;
    let digest = crate::file_digest::FileDigest::of(path)?;
    if let Some(d) = &digest {
        if let Some(file) = batch.stored_file(&d.hex).await? {
            return Ok(IngestSummary {
                file: reader.file().to_owned(),
                moves: file.moves,
                already_stored: true,
                purged_store: batch.purged(),
                ..Default::default()
            });
        }
    }
    let mut summary = IngestSummary {
        file: reader.file().to_owned(),
        ..Default::default()
    };
    let stored_before = batch.stored_so_far().await?;
    let expired_before = batch.expired();
    for (i, line) in reader.enumerate() {
        if let Some(bar) = bar.filter(|_| i % 10_000 == 0) {
            bar.set_position(i as u64);
        }
        match line {
            Ok((_, LogLine::Move(m))) => {
                summary.records += 1;
                summary.moves += 1;
                batch.push(m).await?;
            }
            Ok((_, LogLine::Skipped)) => {
                summary.records += 1;
                summary.skipped += 1;
            }
            Err(e) if skip_bad && e.is_bad_line() => {
                summary.bad += 1;
                if summary.bad_examples.len() < BAD_LINES_LISTED {
                    summary.bad_examples.push(e);
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    summary.stored = batch.stored_so_far().await? - stored_before;
    summary.expired = batch.expired() - expired_before;
    summary.duplicates = summary.moves - summary.stored - summary.expired;
    if let Some(d) = digest {
        let now = chrono::Utc::now().timestamp();
        batch
            .record_file(&d.hex, d.bytes, summary.moves, now)
            .await?;
    }
    Ok(summary)
}

/// The segments of every stored move for a bucket size, cut again when moves
/// arrived since they were stored or when another order is asked for.
/// `reference_order: None` keeps the order of the last segmentation.
pub async fn segments(
    store: &Store,
    bucket_seconds: i64,
    reference_order: Option<bool>,
) -> Result<Segments> {
    let generation = store.moves_generation().await?;
    let loading = crate::ui::spinner("loading the stored buckets");
    let stored = store.load_segmentation(bucket_seconds).await?;
    loading.finish_and_clear();
    if let Some(stored) = stored {
        if stored.generation == generation
            && reference_order.is_none_or(|r| r == stored.reference_order)
        {
            return Ok(stored.segments);
        }
    }
    let order = match reference_order {
        Some(r) => r,
        None => store.segmentation_order().await?.unwrap_or(false),
    };
    let started = std::time::Instant::now();
    let bar = crate::ui::spinner("cutting the stored moves into buckets");
    let mut segmenter = Segmenter::new(bucket_seconds);
    let moves = store
        .for_each_move(order, |m| segmenter.push_move(&m))
        .await?;
    let segments = segmenter.finish();
    let cut = started.elapsed();
    bar.set_message("saving the buckets");
    store
        .save_segmentation(&segments, order, generation)
        .await?;
    bar.finish_and_clear();
    tracing::info!(
        moves,
        bucket_seconds,
        reference_order = order,
        cut_ms = cut.as_millis() as u64,
        saved_ms = (started.elapsed() - cut).as_millis() as u64,
        "segments cut from stored moves and saved"
    );
    Ok(segments)
}

/// Every stored move's second and address, for improved mode's hand-offs
/// (the segments keep buckets only).
pub async fn move_times(
    store: &Store,
    segments: &Segments,
) -> Result<scoring::improved::MoveTimes> {
    let mut times = scoring::improved::MoveTimes::new(segments);
    store
        .for_each_move(false, |m| {
            times.push(segments, &m.username, m.timestamp, &m.ip)
        })
        .await?;
    Ok(times.finish())
}

/// The moves' seconds and addresses from logs already cut into `segments`
/// (read again: `detect report --input` in improved mode).
pub fn move_times_from_files(
    files: &[String],
    segments: &Segments,
    limits: &Limits,
) -> Result<scoring::improved::MoveTimes> {
    let mut times = scoring::improved::MoveTimes::new(segments);
    for path in files {
        let mut reader = open_log_with(path, limits)?;
        while let Some(line) = reader.next_ref() {
            if let (_, Some(m)) = line? {
                times.push(segments, &m.username, m.timestamp, &m.ip);
            }
        }
    }
    Ok(times.finish())
}

/// Season `number`: as defined with `season add`, else inferred from game
/// names (`4pLeague_S{number}_...`).
pub async fn resolve_season(store: &Store, number: u32) -> Result<Season> {
    if let Some(s) = store.season(number).await? {
        return Ok(s);
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

/// Scores a season from the store and stores the scan.
pub async fn scan(store: &Store, season: &Season, params: &ScanParams) -> Result<StoredScan> {
    let generation = store.moves_generation().await?;
    let started = std::time::Instant::now();
    let segments = segments(store, params.bucket_seconds, None).await?;
    tracing::debug!(ms = started.elapsed().as_millis() as u64, "segments ready");
    scan_segments(store, season, params, &segments, generation).await
}

/// Scores a season from segments already at hand (cut from the moves of
/// `generation`) and stores the scan in one transaction.
pub async fn scan_segments(
    store: &Store,
    season: &Season,
    params: &ScanParams,
    segments: &Segments,
    generation: i64,
) -> Result<StoredScan> {
    let started = std::time::Instant::now();
    let bar = crate::ui::spinner(format!("scoring season {}", season.number));
    let times = match params.mode {
        schema::Mode::Improved => Some(move_times(store, segments).await?),
        schema::Mode::Reference => None,
    };
    // Scoring is CPU-bound (rayon): the runtime's other tasks, signals among
    // them, keep running meanwhile.
    let result = tokio::task::block_in_place(|| {
        scoring::scan_with_times(segments, times.as_ref(), season, params)
    })?;
    let scored = started.elapsed();
    bar.set_message(format!("storing the scan of season {}", season.number));
    let created_at = chrono::Utc::now().timestamp();
    let id = store
        .save_scan(season, &result, generation, created_at)
        .await?;
    tracing::info!(
        season = season.number,
        scan = id,
        pairs = result.pairs.len(),
        flagged = result.flagged().count(),
        score_ms = scored.as_millis() as u64,
        save_ms = (started.elapsed() - scored).as_millis() as u64,
        "scan stored"
    );
    bar.finish_and_clear();
    Ok(StoredScan {
        id,
        season: season.clone(),
        generation,
        created_at,
        result,
    })
}

/// The latest scan of a season if it is current (same moves, same season
/// definition, same bucket size and mode), else a new scan. The threshold
/// is applied afresh, since every pair is stored.
pub async fn current_scan(
    store: &Store,
    season: &Season,
    params: &ScanParams,
) -> Result<StoredScan> {
    let generation = store.moves_generation().await?;
    if let Some(mut latest) = store
        .latest_scan_like(season.number, params.bucket_seconds, params.mode)
        .await?
    {
        if scan_is_current(&latest, season, params, generation) {
            latest.season = season.clone();
            rethreshold(&mut latest.result, params.threshold);
            return Ok(latest);
        }
    }
    scan(store, season, params).await
}

/// Whether a stored scan still holds for the season: same moves, same season
/// definition, same bucket size and mode (the threshold is applied afresh).
pub fn scan_is_current(
    scan: &StoredScan,
    season: &Season,
    params: &ScanParams,
    generation: i64,
) -> bool {
    let p = &scan.result.params;
    scan.generation == generation
        && scan.season.from == season.from
        && scan.season.to == season.to
        && scan.season.games == season.games
        && p.bucket_seconds == params.bucket_seconds
        && p.mode == params.mode
        && p.crowd_limit == params.crowd_limit
}

/// Applies another threshold to a scan's pairs: the flags and cliques follow.
pub fn rethreshold(result: &mut ScanResult, threshold: f64) {
    result.params.threshold = threshold;
    result.cliques = scoring::cliques(&result.pairs, threshold);
}

/// Reads logs straight into segments, storing nothing: `detect report
/// --input`. Sorts by time (stably) unless `reference_order`.
///
/// Reading and segmenting overlap: a reader thread parses lines and interns
/// names into 24-byte moves, sent in chunks; this thread segments them as
/// they come. A log found out of time order is read again, sorted and
/// segmented at the end; only standard input, which cannot be read twice,
/// has its moves kept meanwhile.
pub fn segments_from_files(
    files: &[String],
    bucket_seconds: i64,
    reference_order: bool,
    limits: &Limits,
) -> Result<Segments> {
    let keep = !reference_order && files.iter().any(|f| f == "-");
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Compact>>(8);
    let reader = {
        let files = files.to_vec();
        let limits = *limits;
        std::thread::spawn(move || {
            read_compact(&files, &limits, |chunk| {
                tx.send(chunk).map_err(|_| anyhow!("the segmenter stopped"))
            })
        })
    };
    let mut seg = Segmenter::new(bucket_seconds);
    let mut kept: Vec<Vec<Compact>> = Vec::new();
    let mut latest = i64::MIN;
    let mut in_order = true;
    for chunk in rx {
        for m in &chunk {
            in_order &= m.timestamp >= latest;
            latest = latest.max(m.timestamp);
            if in_order || reference_order {
                seg.push_ids(m.user, m.game, m.timestamp, m.ip);
            }
        }
        if keep {
            kept.push(chunk);
        }
    }
    let names = reader
        .join()
        .map_err(|_| anyhow!("the log reader panicked"))??;
    if in_order || reference_order {
        return Ok(seg.finish_with_names(names.0, names.1, names.2));
    }
    drop(seg);
    let (mut moves, (users, games, ips)) = if keep {
        (kept.concat(), names)
    } else {
        let mut moves = Vec::new();
        let names = read_compact(files, limits, |chunk| {
            moves.extend_from_slice(&chunk);
            Ok(())
        })?;
        (moves, names)
    };
    moves.sort_by_key(|m| m.timestamp);
    let mut seg = Segmenter::new(bucket_seconds);
    for m in &moves {
        seg.push_ids(m.user, m.game, m.timestamp, m.ip);
    }
    Ok(seg.finish_with_names(users, games, ips))
}

/// A move with its names interned: 24 bytes.
#[derive(Clone, Copy)]
struct Compact {
    timestamp: i64,
    user: u32,
    game: u32,
    ip: u32,
}

/// Reads logs into chunks of [`Compact`] moves handed to `each`; returns the
/// tables of user, game and IP names.
fn read_compact(
    files: &[String],
    limits: &Limits,
    mut each: impl FnMut(Vec<Compact>) -> Result<()>,
) -> Result<(Names, Names, Names)> {
    const CHUNK: usize = 16_384;
    let (mut users, mut games, mut ips) = (Names::default(), Names::default(), Names::default());
    for path in files {
        let mut reader = open_log_with(path, limits)?;
        let bar = spinner(format!("reading {}", reader.file()));
        let mut chunk = Vec::with_capacity(CHUNK);
        let mut lines = 0u64;
        while let Some(line) = reader.next_ref() {
            if let (_, Some(m)) = line? {
                chunk.push(Compact {
                    timestamp: m.timestamp,
                    user: users.intern(&m.username),
                    game: games.intern(&m.game),
                    ip: ips.intern(&m.ip),
                });
                if chunk.len() == CHUNK {
                    lines += CHUNK as u64;
                    bar.set_position(lines);
                    each(std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK)))?;
                }
            }
        }
        bar.finish_and_clear();
        if !chunk.is_empty() {
            each(chunk)?;
        }
    }
    Ok((users, games, ips))
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
            site: schema::store::DEFAULT_SITE.to_owned(),
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
