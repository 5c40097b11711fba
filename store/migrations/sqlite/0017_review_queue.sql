-- The review queue: each season's flagged pairs of its latest scan, one row
-- per unordered pair (account_a < account_b), with the clique holding it
-- and the pair's current verdict, so the queue is filtered, sorted and
-- paged in SQL. The rows are derived data: rebuilt from the scan and the
-- verdicts when `review_scans` says they are behind.
CREATE TABLE review_flags (
    site TEXT NOT NULL,
    season BIGINT NOT NULL,
    scan_id BIGINT NOT NULL,
    account_a TEXT NOT NULL,
    account_b TEXT NOT NULL,
    score DOUBLE PRECISION NOT NULL,
    clique BIGINT,
    clique_size BIGINT NOT NULL,
    verdict_id BIGINT,
    verdict_kind TEXT,
    verdict_similarity DOUBLE PRECISION,
    PRIMARY KEY (site, season, account_a, account_b)
);
CREATE INDEX review_flags_by_score ON review_flags (site, score DESC);
CREATE INDEX review_flags_by_season ON review_flags (site, season, score DESC);

-- What the rows of a season were built from: its latest scan, and the
-- newest verdict of the site then.
CREATE TABLE review_scans (
    site TEXT NOT NULL,
    season BIGINT NOT NULL,
    scan_id BIGINT NOT NULL,
    verdicts_seen BIGINT NOT NULL,
    PRIMARY KEY (site, season)
);

-- A scan's pair by its accounts: a flagged pair's other direction, read
-- without going through every pair of the scan.
CREATE INDEX scan_pairs_by_accounts ON scan_pairs (scan_id, account_a, account_b);
