-- A scan's pairs kept in the order of their key (scan, account a,
-- account b), as the rows of the table itself (WITHOUT ROWID), and indexed
-- by similarity only from 0.7 up: saving a 10M-move season's 1.3M directed
-- pairs paid a B-tree insert at a random place in an index of every pair's
-- similarity (8.3 s of SQLite's own work, against 3.4 s now, saved in key
-- order; 3 % of those pairs are at 0.7 or more). Every query reads one
-- scan's pairs, which lie side by side under this key: the pairs of an
-- account or a list of pairs by the key, the pairs at or above a
-- similarity of 0.7 or more through the partial index (the query repeats
-- its condition, `similarity >= 0.7`, word for word:
-- store/src/scans/pairs.rs), below that by walking the scan's pairs (a
-- tenth of a second at 1.3M). PostgreSQL keeps its table and indexes (its
-- 0024).
CREATE TABLE scan_pairs_by_key (
    scan_id             INTEGER NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
    account_a           TEXT    NOT NULL,
    account_b           TEXT    NOT NULL,
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
    top_buckets         TEXT    NOT NULL,
    signals             TEXT,
    evidence            BLOB,
    PRIMARY KEY (scan_id, account_a, account_b)
) WITHOUT ROWID;
INSERT INTO scan_pairs_by_key
SELECT scan_id, account_a, account_b, similarity, score_sum, score_weight,
       same_ip_count, same_ip_score, other_ip_count, other_ip_score,
       moved_stalled_count, moved_stalled_score, stalled_moved_count,
       stalled_moved_score, both_stalled_count, both_stalled_score,
       max_boost, max_boost_bucket, top_buckets, signals, evidence
FROM scan_pairs
ORDER BY scan_id, account_a, account_b;
DROP TABLE scan_pairs;
ALTER TABLE scan_pairs_by_key RENAME TO scan_pairs;
CREATE INDEX scan_pairs_strong ON scan_pairs (scan_id, similarity) WHERE similarity >= 0.7;
