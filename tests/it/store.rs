//! The store's scan bookkeeping on both back ends: scans are kept whole and
//! pruned whole (rescans and their chains: tests/rescan.rs).

use crate::common::*;
use store::Store;

fn scans_are_pruned_whole(backend: Backend) {
    let db = TestDb::new(backend);
    let log = golden_dir().join("random/01/input.jsonl");
    db.ok(&["ingest", log.to_str().unwrap()]);
    db.ok(&["season", "add", "1", "--games", "^4pLeague_"]);
    // Two 60-minute scans (the second a rescan of the first, stored as a
    // change to it), then a 30-minute one, whole.
    for (threshold, minutes) in [("0.9", "60"), ("0.8", "60"), ("0.7", "30")] {
        let args = ["--threshold", threshold, "--bucket-minutes", minutes];
        db.ok(&[&["scan", "--season", "1"][..], &args].concat());
    }
    block_on(async {
        let store = Store::open(&db.url).await.expect("open");
        assert_eq!(store.scan_count(1).await.unwrap(), 3);
        let before = store.latest_scan(1).await.unwrap().expect("a scan");
        assert_eq!(store.prune_scans(1, 1).await.unwrap(), 2);
        assert_eq!(store.scan_count(1).await.unwrap(), 1);
        assert_eq!(store.prune_scans(1, 1).await.unwrap(), 0);
        let after = store
            .latest_scan(1)
            .await
            .unwrap()
            .expect("the newest scan stays");
        assert_eq!(after.id, before.id);
        assert_eq!(after.result, before.result);
        assert_eq!(after.result.pairs.len(), 48);
        // Only the pairs at or above a similarity, the rest of the scan whole.
        let flagged = store.latest_scan_at_least(1, 0.9).await.unwrap().unwrap();
        let mut expected = after.clone();
        expected.result.pairs.retain(|p| p.similarity >= 0.9);
        assert!(!expected.result.pairs.is_empty());
        assert!(expected.result.pairs.len() < after.result.pairs.len());
        assert_eq!(flagged.result, expected.result);
        assert_eq!(flagged.id, after.id);
        store.close().await;
    });
}

#[test]
fn scans_are_pruned_whole_sqlite() {
    scans_are_pruned_whole(Backend::Sqlite);
}

#[test]
fn scans_are_pruned_whole_postgres() {
    scans_are_pruned_whole(Backend::Postgres);
}

#[test]
fn a_report_reuses_the_current_scan_of_its_bucket_size() {
    let db = TestDb::new(Backend::Sqlite);
    let log = golden_dir().join("random/01/input.jsonl");
    db.ok(&["ingest", log.to_str().unwrap()]);
    let count = || {
        block_on(async {
            let store = Store::open(&db.url).await.expect("open");
            let n = store.scan_count(1).await.unwrap();
            store.close().await;
            n
        })
    };
    db.ok(&["report", "--season", "1"]);
    assert_eq!(count(), 1);
    db.ok(&["report", "--season", "1", "--bucket-minutes", "60"]);
    assert_eq!(count(), 2);
    // Back to 30 minutes: the first scan still holds, whatever the threshold.
    db.ok(&["report", "--season", "1", "--threshold", "0.5"]);
    db.ok(&["report", "--season", "1", "--bucket-minutes", "60"]);
    assert_eq!(count(), 2);
    // New moves make both stale.
    let more = db.dir.path().join("more.jsonl");
    std::fs::write(
        &more,
        "{\"username\": \"u000\", \"game\": \"4pLeague_S1_X\", \"timestamp_utc\": \"2015-06-01 10:00:00\", \"ip\": \"9.9.9.9\"}\n",
    )
    .unwrap();
    db.ok(&["ingest", more.to_str().unwrap()]);
    db.ok(&["report", "--season", "1"]);
    assert_eq!(count(), 3);
}

/// Each account's segments by name: `(bucket, stalled, stall IP, [(IP, count)])`.
type Named = Vec<(String, Vec<(i64, u32, Option<String>, Vec<(String, u32)>)>)>;

fn by_name(s: &schema::Segments) -> Named {
    let mut named: Named = s
        .by_account
        .iter()
        .enumerate()
        .map(|(u, segs)| {
            let segs = segs
                .iter()
                .map(|g| {
                    let stall_ip = g.stall_ip.map(|ip| s.ips.name(ip.get()).to_owned());
                    let moves = g
                        .moves
                        .iter()
                        .map(|&(ip, n)| (s.ips.name(ip).to_owned(), n))
                        .collect();
                    (g.bucket, g.stalls, stall_ip, moves)
                })
                .collect();
            (s.accounts.name(u as schema::AccountId).to_owned(), segs)
        })
        .collect();
    named.sort();
    named
}

fn sightings(s: &schema::Segments) -> Vec<(String, i64, String)> {
    let mut d: Vec<_> = s
        .ip_days
        .iter()
        .map(|d| {
            let account = s.accounts.name(d.account).to_owned();
            (account, d.day, s.ips.name(d.ip).to_owned())
        })
        .collect();
    d.sort();
    d
}

fn game_days(s: &schema::Segments) -> Vec<(String, String, i64, i64)> {
    let mut g: Vec<_> = s
        .game_days
        .iter()
        .map(|d| {
            let account = s.accounts.name(d.account).to_owned();
            let game = s.games.name(d.game).to_owned();
            (account, game, d.first_day, d.last_day)
        })
        .collect();
    g.sort();
    g
}

/// A cut that saves segments page by page as they settle, loaded back, is
/// the cut made whole in memory: segments, sightings and game days.
fn a_streamed_cut_loads_as_the_whole_cut(backend: Backend) {
    let db = TestDb::new(backend);
    let log = golden_dir().join("random/01/input.jsonl");
    db.ok(&["ingest", log.to_str().unwrap()]);
    block_on(async {
        let store = Store::open(&db.url).await.expect("open");
        // Chunks of a few segments: accounts span many, and extensions take
        // several back.
        let store = store.with_chunk_bytes(24);
        let whole = app::pipeline::cut_segments(&store, 1800, false, true)
            .await
            .unwrap()
            .segments
            .expect("kept");
        // Pages of 7 moves: settled segments go out dozens of times.
        let cut = app::pipeline::cut_segments_in_pages(&store, 1800, false, false, 7)
            .await
            .unwrap();
        assert!(cut.segments.is_none());
        let loaded = store.load_segmentation(1800).await.unwrap().expect("saved");
        let loaded = loaded.segments;
        let total: usize = whole.by_account.iter().map(Vec::len).sum();
        // Counted by bucket, as the reference counts them (a run of n is n).
        let buckets: u64 = whole
            .by_account
            .iter()
            .map(|l| schema::bucket_counts(l).0)
            .sum();
        assert_eq!(cut.counts.segments, buckets);
        assert_eq!(cut.accounts, whole.accounts.len());
        assert!(total > 100, "the log is big enough to page: {total}");
        assert_eq!(by_name(&loaded), by_name(&whole));
        assert_eq!(sightings(&loaded), sightings(&whole));
        assert_eq!(game_days(&loaded), game_days(&whole));
        store.close().await;
    });
}

#[test]
fn a_streamed_cut_loads_as_the_whole_cut_sqlite() {
    a_streamed_cut_loads_as_the_whole_cut(Backend::Sqlite);
}

#[test]
fn a_streamed_cut_loads_as_the_whole_cut_postgres() {
    a_streamed_cut_loads_as_the_whole_cut(Backend::Postgres);
}

/// A season ingested part by part, each part's moves cut onto the stored
/// segments (by the ingest for 60-minute buckets, by pages of 7 moves for
/// 30-minute ones), loads as one cut of all its moves; a move older than
/// the latest one cut makes the next cut a whole one. A copy loaded once
/// and brought up to date after each part reads only the accounts who
/// moved in it, and equals a load.
fn extended_segments_load_as_one_cut(backend: Backend) {
    let db = TestDb::new(backend);
    let mut files = Vec::new();
    let mut held: Option<store::StoredSegmentation> = None;
    // A thin part too, which only some accounts move in.
    let mut partly = false;
    for (i, part) in parts_by_time(&[0.4, 0.7, 0.71, 0.9])
        .into_iter()
        .enumerate()
    {
        let path = db.dir.path().join(format!("part{i}.jsonl"));
        std::fs::write(&path, part.join("\n") + "\n").unwrap();
        files.push(path);
    }
    let late = db.dir.path().join("late.jsonl");
    std::fs::write(
        &late,
        "{\"username\": \"u003\", \"game\": \"casual_179\", \"timestamp_utc\": \"2015-05-01 02:00:00\", \"ip\": \"10.2.0.3\"}\n",
    )
    .unwrap();
    files.push(late);
    block_on(async {
        for (i, file) in files.iter().enumerate() {
            let out = db.ok(&["ingest", "--bucket-minutes", "60", file.to_str().unwrap()]);
            let extended = i > 0 && i + 1 < files.len();
            assert_eq!(
                out.contains("new moves cut onto"),
                extended,
                "part {i}: {out}"
            );
            let store = Store::open(&db.url).await.expect("open");
            // Chunks of a few segments: accounts span many, and extensions take
            // several back.
            let store = store.with_chunk_bytes(24);
            let cut = app::pipeline::update_segments_in_pages(&store, 1800, false, false, 7)
                .await
                .unwrap();
            assert_eq!(cut.extended, extended, "part {i}");
            for bucket in [3600, 1800] {
                // One cut of every stored move, in memory: what is stored
                // must be the same.
                let mut segmenter = ingest::Segmenter::new(bucket);
                store
                    .for_each_move(false, |m| segmenter.push_move(&m))
                    .await
                    .unwrap();
                let whole = segmenter.finish();
                let loaded = store.load_segmentation(bucket).await.unwrap().unwrap();
                let loaded = &loaded.segments;
                assert_eq!(by_name(loaded), by_name(&whole), "part {i}, {bucket} s");
                assert_eq!(sightings(loaded), sightings(&whole));
                assert_eq!(game_days(loaded), game_days(&whole));
                if bucket == 1800 {
                    // Counted by bucket, as the reference counts them.
                    let (mut segments, mut stalled) = (0, 0);
                    for list in &whole.by_account {
                        let (n, s) = schema::bucket_counts(list);
                        (segments, stalled) = (segments + n, stalled + s);
                    }
                    assert_eq!(cut.counts.segments, segments);
                    assert_eq!(cut.counts.stalled, stalled);
                    assert_eq!(cut.accounts, whole.accounts.len());
                }
            }
            held = Some(match held {
                Some(h) => held_copy(&store, h, file, extended, &mut partly).await,
                None => store.load_segmentation(1800).await.unwrap().unwrap(),
            });
            store.close().await;
        }
    });
    assert!(partly, "a part that only some accounts moved in");
}

/// `h` brought up to date after `file` was ingested and cut: only `file`'s
/// accounts read again when the segmentation was `extended`, else none.
async fn held_copy(
    store: &Store,
    mut h: store::StoredSegmentation,
    file: &std::path::Path,
    extended: bool,
    partly: &mut bool,
) -> store::StoredSegmentation {
    let loaded = store.load_segmentation(1800).await.unwrap().unwrap();
    let read = store.refresh_segmentation(&mut h).await.unwrap();
    if !extended {
        assert_eq!(read, None, "a whole cut is another segmentation");
        return loaded;
    }
    let text = std::fs::read_to_string(file).unwrap();
    let moved = accounts_moving_in(&text.lines().collect::<Vec<_>>());
    let read: Option<std::collections::BTreeSet<String>> =
        read.map(|names| names.into_iter().collect());
    assert_eq!(
        read.as_ref(),
        Some(&moved),
        "the accounts who moved, read again"
    );
    *partly |= moved.len() < loaded.segments.accounts.len();
    assert_eq!(h.generation, loaded.generation);
    let (a, b) = (&h.segments, &loaded.segments);
    assert_eq!(by_name(a), by_name(b));
    assert_eq!(sightings(a), sightings(b));
    assert_eq!(game_days(a), game_days(b));
    assert!(a.ip_days.is_sorted() && a.game_days.is_sorted());
    // Scored alike, though the copy numbers accounts and addresses in
    // another order than a load.
    assert_scored_alike(a, b);
    h
}

#[test]
fn extended_segments_load_as_one_cut_sqlite() {
    extended_segments_load_as_one_cut(Backend::Sqlite);
}

#[test]
fn extended_segments_load_as_one_cut_postgres() {
    extended_segments_load_as_one_cut(Backend::Postgres);
}

/// Whether a season can be inferred from game names is read by the index:
/// `4pLeague_S1_` is not `4pLeague_S10_`.
fn season_games_are_found_by_prefix(backend: Backend) {
    let db = TestDb::new(backend);
    let log = db.dir.path().join("games.jsonl");
    let line = |game: &str, t: i64| {
        format!("{{\"username\": \"a\", \"game\": \"{game}\", \"timestamp\": {t}, \"ip\": \"10.0.0.1\"}}\n")
    };
    let text = [
        line("4pLeague_S10_x", 1_430_000_000),
        line("casual_1", 1_430_000_100),
        line("4pLeague_S3_y", 1_430_000_200),
    ]
    .concat();
    std::fs::write(&log, text).unwrap();
    db.ok(&["ingest", log.to_str().unwrap()]);
    block_on(async {
        let store = Store::open(&db.url).await.unwrap();
        for (n, found) in [(1, false), (10, true), (3, true), (2, false)] {
            assert_eq!(
                store.has_season_games(n).await.unwrap(),
                found,
                "season {n}"
            );
        }
        store.close().await;
    });
}

#[test]
fn season_games_are_found_by_prefix_sqlite() {
    season_games_are_found_by_prefix(Backend::Sqlite);
}

#[test]
fn season_games_are_found_by_prefix_postgres() {
    season_games_are_found_by_prefix(Backend::Postgres);
}

/// Improved mode's move times, read a day at a time as JSON built by the
/// database, are every stored move's (username, time, ip): names that need
/// escaping, identical moves, moves on day edges, years apart and in
/// another site. Those a cut saves beside the segments are the same, after
/// a whole cut, an extension and a reference-order cut.
fn move_times_are_every_move(backend: Backend) {
    let db = TestDb::new(backend);
    let names = [
        "plain",
        "quo\"te",
        "back\\slash",
        "tab\there",
        "ctl\u{1}x",
        "émoji🎲",
        "a,b",
    ];
    // Every IP is an address or one of the two values the reference keeps
    // (a log's other strings are bad lines since addresses have a rule).
    let ips = ["10.0.0.1", "", "2001:db8::1", "delay"];
    let mut log = String::new();
    for (k, name) in names.iter().enumerate() {
        for day in 0..3 {
            // Midnight, the second before and the second after.
            for (j, t) in ["00:00:00", "23:59:59", "00:00:01"].iter().enumerate() {
                let ip = ips[(k + day + j) % ips.len()];
                let line = serde_json::json!({
                    "username": name, "game": "4pLeague_S1_1", "ip": ip,
                    "timestamp_utc": format!("2015-05-0{} {t}", day + 1),
                });
                log.push_str(&format!("{line}\n"));
            }
        }
    }
    // An identical move twice: two stored moves.
    let twice = r#"{"username": "plain", "game": "4pLeague_S1_1", "timestamp_utc": "2015-05-02 12:00:00", "ip": "10.0.0.1"}"#;
    log.push_str(&format!("{twice}\n{twice}\n"));
    // Twelve years before the rest: read without walking the days between.
    let early = r#"{"username": "early", "game": "4pLeague_S1_1", "timestamp_utc": "2003-01-01 12:00:00", "ip": "10.0.0.9"}"#;
    log.push_str(&format!("{early}\n"));
    let path = db.dir.path().join("odd.jsonl");
    std::fs::write(&path, &log).unwrap();
    db.ok(&["ingest", path.to_str().unwrap()]);
    db.ok(&["--site", "other", "ingest", path.to_str().unwrap()]);
    block_on(async {
        let store = Store::open(&db.url).await.expect("open");
        let mut every = Vec::new();
        let n = store
            .for_each_move(false, |m| every.push((m.username, m.timestamp, m.ip)))
            .await
            .unwrap();
        assert_eq!(n as usize, names.len() * 9 + 3);
        let mut times = Vec::new();
        let m = store
            .for_each_move_time(|u, t, ip, _| times.push((u.to_owned(), t, ip.to_owned())))
            .await
            .unwrap();
        assert_eq!(m, n);
        every.sort();
        times.sort();
        assert_eq!(times, every);
        // What the cut saved beside the segments is the same.
        assert_eq!(saved_times(&store).await, read_times(&store).await);
        store.close().await;
    });
    // Later moves, of a known account and a new one: the segmentation is
    // extended, and its move times with it.
    let later = [
        r#"{"username": "plain", "game": "4pLeague_S1_1", "timestamp_utc": "2015-05-09 12:00:00", "ip": "10.0.0.7"}"#,
        r#"{"username": "new", "game": "4pLeague_S1_1", "timestamp_utc": "2015-05-09 12:01:00", "ip": "10.0.0.1"}"#,
    ];
    let path = db.dir.path().join("later.jsonl");
    std::fs::write(&path, later.join("\n")).unwrap();
    let out = db.ok(&["ingest", path.to_str().unwrap()]);
    assert!(out.contains("cut onto the stored segments"), "{out}");
    // Then cut again whole, in reference order (moves by ingest order).
    db.ok(&["ingest", "--reference-order", path.to_str().unwrap()]);
    block_on(async {
        let store = Store::open(&db.url).await.expect("open");
        let read = read_times(&store).await;
        assert_eq!(read.len(), names.len() * 9 + 5);
        assert_eq!(saved_times(&store).await, read);
        store.close().await;
    });
}

type MoveTime = (String, i64, String, Option<String>);

/// The move times saved beside the segmentation of the current moves.
async fn saved_times(store: &Store) -> Vec<MoveTime> {
    let generation = store.moves_generation().await.unwrap();
    let mut out = Vec::new();
    let saved = store
        .for_each_time_chunk(1800, generation, |account, ips, moves| {
            for &(t, i) in moves {
                let (ip, net) = ips[i as usize];
                out.push((account.to_owned(), t, ip.to_owned(), net.map(str::to_owned)));
            }
        })
        .await
        .unwrap();
    assert!(saved, "a segmentation of the current moves");
    // None of moves that are not the stored ones: the scan reads the moves.
    let other = store.for_each_time_chunk(1800, generation + 1, |_, _, _| panic!());
    assert!(!other.await.unwrap());
    out.sort();
    out
}

/// The move times read from the moves table.
async fn read_times(store: &Store) -> Vec<MoveTime> {
    let mut out = Vec::new();
    store
        .for_each_move_time(|u, t, ip, net| {
            out.push((u.to_owned(), t, ip.to_owned(), net.map(str::to_owned)))
        })
        .await
        .unwrap();
    out.sort();
    out
}

#[test]
fn move_times_are_every_move_sqlite() {
    move_times_are_every_move(Backend::Sqlite);
}

#[test]
fn move_times_are_every_move_postgres() {
    move_times_are_every_move(Backend::Postgres);
}
