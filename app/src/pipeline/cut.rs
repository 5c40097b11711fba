//! Cutting stored moves into stored segments: a whole cut of every move, or
//! an extension of the stored segmentation with the moves stored since
//! (what a daemon tick needs). Both save as they go; neither holds the
//! season's segments unless asked to keep them.

use anyhow::Result;
use ingest::Segmenter;
use schema::{AccountId, Segment, Segments, StallIp};
use std::collections::BTreeSet;
use store::{SegmentCounts, SegmentationWriter, Store, TailRecord};

/// What a cut did.
#[derive(Debug)]
pub struct Cut {
    /// The segments, when asked to keep them.
    pub segments: Option<Segments>,
    /// Over the whole stored segmentation.
    pub counts: SegmentCounts,
    pub accounts: usize,
    /// Moves cut (for an extension, the new ones only).
    pub moves: u64,
    /// Whether the stored segmentation was extended rather than cut whole.
    pub extended: bool,
    /// The site's stored moves, as the cut counted them.
    pub rows: u64,
}

/// Stored moves read per page of a cut.
pub const CUT_PAGE: usize = 100_000;

/// Brings the stored segmentation of `bucket_seconds` up to date: in time
/// order it is extended with the moves stored since, when they are not
/// older than the moves it has cut; otherwise every move is cut again.
pub async fn update_segments(
    store: &Store,
    bucket_seconds: i64,
    reference_order: bool,
    keep: bool,
) -> Result<Cut> {
    update_segments_in_pages(store, bucket_seconds, reference_order, keep, CUT_PAGE).await
}

/// [`update_segments`] reading `page` moves at a time (tests use small
/// pages).
pub async fn update_segments_in_pages(
    store: &Store,
    bucket_seconds: i64,
    reference_order: bool,
    keep: bool,
    page: usize,
) -> Result<Cut> {
    if !reference_order {
        match extend_segments(store, bucket_seconds, page).await {
            Ok(Some(mut cut)) => {
                if keep {
                    let loading = crate::progress::step("loading the stored buckets");
                    let stored = store.load_segmentation(bucket_seconds).await?;
                    loading.finish();
                    cut.segments = stored.map(|s| s.segments);
                }
                return Ok(cut);
            }
            Ok(None) => {}
            // Nothing was saved: the whole cut below starts from the moves.
            Err(e) => tracing::warn!(
                error = %e,
                "extending the stored segments failed; cutting every move again"
            ),
        }
    }
    cut_segments_in_pages(store, bucket_seconds, reference_order, keep, page).await
}

/// Cuts every stored move into segments of `bucket_seconds` and saves them,
/// in one transaction that reads the moves it cuts. With `keep` the
/// segments are handed back too. Without it, and in time order, each page
/// of moves hands its settled segments to the store at once, so memory
/// holds each account's latest segments, not the season's.
pub async fn cut_segments(
    store: &Store,
    bucket_seconds: i64,
    reference_order: bool,
    keep: bool,
) -> Result<Cut> {
    cut_segments_in_pages(store, bucket_seconds, reference_order, keep, CUT_PAGE).await
}

/// [`cut_segments`] reading `page` moves at a time (tests use small pages).
pub async fn cut_segments_in_pages(
    store: &Store,
    bucket_seconds: i64,
    reference_order: bool,
    keep: bool,
    page: usize,
) -> Result<Cut> {
    let started = std::time::Instant::now();
    let bar = crate::progress::step("cutting the stored moves into buckets");
    let mut writer = store
        .begin_segmentation(bucket_seconds, reference_order)
        .await?;
    let mut segmenter = Segmenter::new(bucket_seconds);
    let stream = !keep && !reference_order;
    let limit = page;
    loop {
        let page = writer.next_moves(limit).await?;
        if page.is_empty() {
            break;
        }
        // The database reads the next page while this one is cut: `biased`
        // polls the read first, which sends it to the database's thread.
        let cut = async { segmenter.push_moves(&page) };
        let (ahead, ()) = tokio::join!(biased; writer.read_ahead(limit), cut);
        ahead?;
        if stream {
            write_settled(&mut writer, &mut segmenter).await?;
        }
    }
    bar.set_message("saving the buckets".into());
    let cut = finish(writer, segmenter, keep).await?;
    bar.finish();
    tracing::info!(
        moves = cut.moves,
        bucket_seconds,
        reference_order,
        segments = cut.counts.segments,
        ms = started.elapsed().as_millis() as u64,
        "segments cut from stored moves and saved"
    );
    Ok(cut)
}

/// Extends the stored segmentation with the moves stored since it was cut:
/// each account who moved again is cut on from their latest two records,
/// each game from its latest bucket (both read for a page of moves at
/// once). `None` when only a whole cut will do
/// ([`Store::extend_segmentation`] says when).
async fn extend_segments(store: &Store, bucket_seconds: i64, page: usize) -> Result<Option<Cut>> {
    let started = std::time::Instant::now();
    let Some(mut writer) = store.extend_segmentation(bucket_seconds).await? else {
        return Ok(None);
    };
    let mut segmenter = Segmenter::new(bucket_seconds);
    loop {
        let page = writer.next_moves(page).await?;
        if page.is_empty() {
            break;
        }
        // The latest bucket of each game, and the latest records of each
        // account, the segmenter has not met yet.
        let (_, _, games) = segmenter.names();
        let new_games = unmet(page.iter().map(|m| m.game.as_str()), games);
        let game_buckets = writer.game_buckets(&new_games).await?;
        let (accounts, _, _) = segmenter.names();
        let new_accounts = unmet(page.iter().map(|m| m.username.as_str()), accounts);
        let mut tails = writer.take_tails(&new_accounts).await?;
        for m in &page {
            let known = segmenter.names().0.len();
            let account = segmenter.account_id(&m.username);
            if account as usize == known {
                let tail = tails.remove(&m.username).unwrap_or_default();
                if !tail.is_empty() {
                    let records: Vec<Segment> = tail
                        .into_iter()
                        .map(|r| record(&mut segmenter, r))
                        .collect();
                    segmenter.resume_account(account, records);
                }
            }
            let known = segmenter.names().2.len();
            let game = segmenter.game_id(&m.game);
            if game as usize == known {
                if let Some(&bucket) = game_buckets.get(&m.game) {
                    segmenter.resume_game(game, bucket);
                }
            }
            let ip = segmenter.ip_id(&m.ip);
            segmenter.push_ids(account, game, m.timestamp, ip);
        }
        write_settled(&mut writer, &mut segmenter).await?;
    }
    let cut = finish(writer, segmenter, false).await?;
    tracing::info!(
        moves = cut.moves,
        bucket_seconds,
        segments = cut.counts.segments,
        ms = started.elapsed().as_millis() as u64,
        "stored segments extended with new moves"
    );
    Ok(Some(cut))
}

/// The names of `names` not in `met`, each once, sorted.
fn unmet<'a>(names: impl Iterator<Item = &'a str>, met: &schema::Names) -> Vec<&'a str> {
    let unmet: BTreeSet<&str> = names.filter(|n| met.get(n).is_none()).collect();
    unmet.into_iter().collect()
}

/// A stored record in the segmenter's ids.
fn record(segmenter: &mut Segmenter, r: TailRecord) -> Segment {
    Segment {
        bucket: r.bucket,
        moves: r
            .moves
            .iter()
            .map(|(ip, n)| (segmenter.ip_id(ip), *n))
            .collect(),
        stalls: r.stalls,
        stall_ip: r.stall_ip.map(|ip| StallIp::new(segmenter.ip_id(&ip))),
    }
}

/// Saves the segments no later move can change.
async fn write_settled(
    writer: &mut SegmentationWriter<'_>,
    segmenter: &mut Segmenter,
) -> Result<()> {
    let settled = segmenter.take_settled();
    let (accounts, ips, _) = segmenter.names();
    let part: Vec<(AccountId, &[Segment])> = settled
        .iter()
        .map(|(u, segs)| (*u, segs.as_slice()))
        .collect();
    writer.write_accounts(accounts, ips, &part).await?;
    Ok(())
}

/// Saves the rest of a cut and commits.
async fn finish(writer: SegmentationWriter<'_>, segmenter: Segmenter, keep: bool) -> Result<Cut> {
    let last_buckets = segmenter.last_buckets();
    let segments = segmenter.finish();
    let saved = writer.finish(&segments, &last_buckets).await?;
    Ok(Cut {
        segments: keep.then_some(segments),
        counts: saved.counts,
        accounts: saved.accounts as usize,
        moves: saved.moves,
        extended: saved.extended,
        rows: saved.rows,
    })
}
