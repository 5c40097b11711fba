-- The moves generation each account's rows of a segmentation were written
-- at: a process that holds a segmentation in memory (the daemon, between
-- ticks) reads back only the accounts whose rows changed since it loaded
-- it. Rows written before this column count as generation 0, older than
-- any segmentation loaded after it.
ALTER TABLE segment_chunks ADD COLUMN generation BIGINT NOT NULL DEFAULT 0;
ALTER TABLE account_days ADD COLUMN generation BIGINT NOT NULL DEFAULT 0;
-- Which accounts changed is read from these alone, not from the rows,
-- whose data would be read past to reach the column.
CREATE INDEX segment_chunks_by_generation ON segment_chunks (segmentation_id, generation, username);
CREATE INDEX account_days_by_generation ON account_days (segmentation_id, generation, username);
