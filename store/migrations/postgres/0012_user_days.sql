-- Each user's sightings and runs of game days as one row of bytes
-- (store/segments/days.rs) instead of a row per sighting and per run.
-- Segmentations are derived data: those stored before are dropped, and cut
-- again from the moves when next asked for.
DELETE FROM segmentation_games;
DELETE FROM segment_chunks;
DELETE FROM ip_days;
DELETE FROM game_days;
DELETE FROM segmentations;
DROP TABLE ip_days;
DROP TABLE game_days;

-- `sightings` counts the user's (day, IP) sightings in `data`.
CREATE TABLE user_days (
    segmentation_id BIGINT NOT NULL REFERENCES segmentations (id) ON DELETE CASCADE,
    username        TEXT    NOT NULL,
    sightings       BIGINT  NOT NULL,
    data            BYTEA    NOT NULL,
    PRIMARY KEY (segmentation_id, username)
);
