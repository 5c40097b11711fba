-- Every move's second, address and network, saved beside a segmentation
-- as chunks of bytes (store/segments/times.rs) by the cut that reads the
-- moves: improved mode reads them instead of every move row again.
-- Segmentations are derived data: those stored before have no move times,
-- so they are dropped and cut again from the moves when next asked for.
DELETE FROM segment_chunks;
DELETE FROM user_days;
DELETE FROM segmentation_games;
DELETE FROM segmentations;

-- Some of a user's moves, the first at first_ts; `moves` counts them.
CREATE TABLE move_time_chunks (
    segmentation_id BIGINT  NOT NULL REFERENCES segmentations (id) ON DELETE CASCADE,
    username        TEXT    NOT NULL,
    first_ts        BIGINT  NOT NULL,
    moves           BIGINT  NOT NULL,
    data            BYTEA   NOT NULL
);
CREATE INDEX move_time_chunks_by_segmentation ON move_time_chunks (segmentation_id);
