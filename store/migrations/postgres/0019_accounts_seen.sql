-- The accounts each site has seen, one row per name: filled by the one
-- insert path of moves, as `games` is, and from the moves stored before.
-- `verdict set` refuses a verdict on an account the site never saw; asking
-- the moves walked every move of the site (6 s on a store of 10M moves),
-- and an index on the moves by account slowed every ingest by half.
-- Purging old moves keeps the names (as the scans keep them).
CREATE TABLE accounts (
    site     TEXT NOT NULL,
    username TEXT NOT NULL,
    PRIMARY KEY (site, username)
);
INSERT INTO accounts (site, username) SELECT DISTINCT site, username FROM moves;
