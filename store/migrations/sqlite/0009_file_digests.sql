-- Files already ingested: the SHA-256 of a file's bytes as read (a gzip
-- file's compressed bytes), per site, written in the same transaction as
-- the file's moves. A second ingest of the same file is skipped unread.
-- Kept by purge: purged moves are never brought back.
CREATE TABLE file_digests (
    site        TEXT   NOT NULL,
    digest      TEXT   NOT NULL,
    bytes       BIGINT NOT NULL,
    moves       BIGINT NOT NULL,
    ingested_at BIGINT NOT NULL,
    PRIMARY KEY (site, digest)
);
