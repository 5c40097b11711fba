-- A scan's pairs as one row per account a: every directed pair (a, b) of
-- the scan in one value of bytes, in the order of b
-- (store/src/scans/blocks.rs). Saving a 10M-move season's 1.3M directed
-- pairs a row each took SQLite 6.2-6.7 s of inserts and 1.4 s of commit; its
-- 31,325 blocks take 0.4 s and 1.0 s (BENCHMARKS.md). `strongest` is
-- the block's highest similarity: the pairs at or above one are read from
-- the blocks whose strongest pair is. Scans stored before keep their rows
-- in scan_pairs, read as before; a scan's pairs are the rows and the
-- blocks it has (a pair whose other direction is not in the scan is kept as
-- a row, so that the pairs naming an account are its block and, from its
-- partners' blocks, the pairs naming it second).
CREATE TABLE scan_pair_blocks (
    scan_id   BIGINT  NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
    account_a TEXT    NOT NULL,
    strongest DOUBLE PRECISION NOT NULL,
    pairs     BYTEA   NOT NULL,
    PRIMARY KEY (scan_id, account_a)
);
CREATE INDEX scan_pair_blocks_strongest ON scan_pair_blocks (scan_id, strongest);
