-- Where a time-order segmentation stands, so that moves stored after it
-- extend it instead of cutting every move again: the largest move id and
-- time it has cut, how many move rows it read, its totals, and each game's
-- latest bucket. NULL `through_id`: not extendable (reference order, or
-- saved before this migration); the next cut is a whole one.
ALTER TABLE segmentations ADD COLUMN through_id BIGINT;
ALTER TABLE segmentations ADD COLUMN through_ts BIGINT;
ALTER TABLE segmentations ADD COLUMN rows_read BIGINT;
ALTER TABLE segmentations ADD COLUMN user_count BIGINT;
ALTER TABLE segmentations ADD COLUMN segment_count BIGINT;
ALTER TABLE segmentations ADD COLUMN stalled_count BIGINT;

CREATE TABLE segmentation_games (
    segmentation_id INTEGER NOT NULL REFERENCES segmentations (id) ON DELETE CASCADE,
    game            TEXT    NOT NULL,
    last_bucket     BIGINT  NOT NULL,
    PRIMARY KEY (segmentation_id, game)
);

-- An extension reads the latest sightings and runs of game days.
CREATE INDEX ip_days_by_day ON ip_days (segmentation_id, day);
CREATE INDEX game_days_by_user_game ON game_days (segmentation_id, username, game);
