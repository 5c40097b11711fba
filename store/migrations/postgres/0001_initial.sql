-- PostgreSQL twin of migrations/sqlite/0001_initial.sql.
-- Raw moves, exactly as read. `id` is the ingest order (file order across
-- ingests), which reference order replays. `occurrence` numbers identical
-- records within one file, so a log that really holds the same move twice
-- keeps both, while ingesting the same file again stores nothing new.
CREATE TABLE moves (
    id          BIGSERIAL PRIMARY KEY,
    username    TEXT    NOT NULL,
    game        TEXT    NOT NULL,
    ts          BIGINT  NOT NULL,
    ip          TEXT    NOT NULL,
    occurrence  BIGINT NOT NULL,
    -- Time first: a time-sorted log appends to this index instead of
    -- writing all over it.
    UNIQUE (ts, username, game, ip, occurrence)
);
CREATE INDEX moves_by_time ON moves (ts, id);

-- Counters and settings of the store (for example `moves_generation`, bumped
-- by every ingest that stores a move).
CREATE TABLE store_state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT INTO store_state (key, value) VALUES ('moves_generation', '0');

-- Every game name seen, kept by ingest, so seasons are inferred without
-- reading every move.
CREATE TABLE games (
    name TEXT PRIMARY KEY
);

CREATE TABLE seasons (
    number  BIGINT PRIMARY KEY,
    from_ts BIGINT,
    to_ts   BIGINT,
    games   TEXT NOT NULL
);

-- The segments of all moves for one bucket size, tagged with the moves
-- generation they were cut from.
CREATE TABLE segmentations (
    id              BIGSERIAL PRIMARY KEY,
    bucket_seconds  BIGINT  NOT NULL,
    reference_order BIGINT NOT NULL,
    generation      BIGINT  NOT NULL
);

-- Moved buckets: one row per (user, bucket, IP); `rank` keeps the order of
-- first use of the IPs within the bucket.
CREATE TABLE segment_moves (
    segmentation_id BIGINT NOT NULL REFERENCES segmentations (id) ON DELETE CASCADE,
    username        TEXT    NOT NULL,
    bucket          BIGINT  NOT NULL,
    ip              TEXT    NOT NULL,
    move_count      BIGINT NOT NULL,
    rank            BIGINT NOT NULL
);
CREATE INDEX segment_moves_by_user ON segment_moves (segmentation_id, username, bucket);

-- Stalled buckets as runs: every bucket from first_bucket to last_bucket
-- (inclusive, one bucket apart) is stalled, with the IP of the next move.
CREATE TABLE segment_stalls (
    segmentation_id BIGINT NOT NULL REFERENCES segmentations (id) ON DELETE CASCADE,
    username        TEXT    NOT NULL,
    first_bucket    BIGINT  NOT NULL,
    last_bucket     BIGINT  NOT NULL,
    ip              TEXT
);
CREATE INDEX segment_stalls_by_user ON segment_stalls (segmentation_id, username, first_bucket);

-- Who moved from which IP on which UTC day (candidate pairs) and who played
-- which game on which days, as runs of consecutive days (season participants).
CREATE TABLE ip_days (
    segmentation_id BIGINT NOT NULL REFERENCES segmentations (id) ON DELETE CASCADE,
    username        TEXT    NOT NULL,
    day             BIGINT  NOT NULL,
    ip              TEXT    NOT NULL
);
CREATE TABLE game_days (
    segmentation_id BIGINT NOT NULL REFERENCES segmentations (id) ON DELETE CASCADE,
    username        TEXT    NOT NULL,
    game            TEXT    NOT NULL,
    first_day       BIGINT  NOT NULL,
    last_day        BIGINT  NOT NULL
);

-- A scan: one season scored with its parameters, written in one transaction.
CREATE TABLE scans (
    id              BIGSERIAL PRIMARY KEY,
    season          BIGINT NOT NULL,
    season_from     BIGINT,
    season_to       BIGINT,
    season_games    TEXT    NOT NULL,
    threshold       DOUBLE PRECISION NOT NULL,
    bucket_seconds  BIGINT  NOT NULL,
    mode            TEXT    NOT NULL,
    generation      BIGINT  NOT NULL,
    created_at      BIGINT  NOT NULL,
    participants    BIGINT  NOT NULL,
    candidate_pairs BIGINT  NOT NULL
);
CREATE INDEX scans_by_season ON scans (season, id);

CREATE TABLE scan_pairs (
    scan_id             BIGINT NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
    user_a              TEXT    NOT NULL,
    user_b              TEXT    NOT NULL,
    similarity          DOUBLE PRECISION NOT NULL,
    score_sum           BIGINT  NOT NULL,
    score_weight        BIGINT  NOT NULL,
    same_ip_count       BIGINT  NOT NULL,
    same_ip_score       BIGINT  NOT NULL,
    other_ip_count      BIGINT  NOT NULL,
    other_ip_score      BIGINT  NOT NULL,
    moved_stalled_count BIGINT  NOT NULL,
    moved_stalled_score BIGINT  NOT NULL,
    stalled_moved_count BIGINT  NOT NULL,
    stalled_moved_score BIGINT  NOT NULL,
    both_stalled_count  BIGINT  NOT NULL,
    both_stalled_score  BIGINT  NOT NULL,
    max_boost           BIGINT  NOT NULL,
    max_boost_bucket    BIGINT,
    top_buckets         TEXT    NOT NULL
);
CREATE INDEX scan_pairs_by_scan ON scan_pairs (scan_id);

CREATE TABLE scan_cliques (
    scan_id  BIGINT NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
    clique   BIGINT NOT NULL,
    username TEXT    NOT NULL
);

-- High-water marks of the daemon's sources (a directory's files, a site
-- database's monotonic key), committed with the moves they cover.
CREATE TABLE source_marks (
    source TEXT PRIMARY KEY,
    mark   TEXT NOT NULL
);
