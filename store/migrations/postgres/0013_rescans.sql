-- Rescans (scoring/src/rescan.rs): a scan may store only the pairs it
-- scored again, as a change to an earlier scan (schema/src/rescan.rs).
-- base_scan: the scan whose pairs naming no replaced user are this scan's
-- too; NULL when every pair is stored with the scan. stored_pairs: the
-- pairs stored with the scan itself.
ALTER TABLE scans ADD COLUMN base_scan BIGINT;
ALTER TABLE scans ADD COLUMN stored_pairs BIGINT;

-- A rescan reads the flagged pairs of the scan it changes: by similarity,
-- not every pair of the scan.
CREATE INDEX scan_pairs_by_similarity ON scan_pairs (scan_id, similarity);

-- What a scan keeps for the next rescan: each user's digest of what it
-- brings to the season, and for a change, the replaced users.
CREATE TABLE scan_users (
    scan_id  BIGINT NOT NULL PRIMARY KEY REFERENCES scans (id) ON DELETE CASCADE,
    digests  BYTEA NOT NULL,
    replaced BYTEA
);
