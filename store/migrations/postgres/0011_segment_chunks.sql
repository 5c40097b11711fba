-- Segments as chunks of bytes, a few per user (store/segments/chunk.rs),
-- instead of a row per moved bucket and per run of stalls: loading millions
-- of rows one by one was most of a scan from the store. Segmentations are
-- derived data: those stored before are dropped, and cut again from the
-- moves when next asked for.
DELETE FROM segmentation_games;
DELETE FROM ip_days;
DELETE FROM game_days;
DELETE FROM segment_moves;
DELETE FROM segment_stalls;
DELETE FROM segmentations;
DROP TABLE segment_moves;
DROP TABLE segment_stalls;

-- Some of a user's consecutive segments, from first_bucket to last_bucket;
-- `segments` and `stalled` count them.
CREATE TABLE segment_chunks (
    segmentation_id BIGINT NOT NULL REFERENCES segmentations (id) ON DELETE CASCADE,
    username        TEXT    NOT NULL,
    first_bucket    BIGINT  NOT NULL,
    last_bucket     BIGINT  NOT NULL,
    segments        BIGINT  NOT NULL,
    stalled         BIGINT  NOT NULL,
    data            BYTEA    NOT NULL
);
CREATE INDEX segment_chunks_by_user ON segment_chunks (segmentation_id, username, first_bucket);
