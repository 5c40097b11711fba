-- Pseudonyms of IP addresses, one set per season: IP-1, IP-2, ... in order of
-- first sight (the first bucket with a move from the address within the
-- season), assigned once and kept forever, so `explain`, the timelines and
-- the reports of a season always call one address by one name.
CREATE TABLE ip_pseudonyms (
    season  BIGINT NOT NULL,
    ip      TEXT   NOT NULL,
    number  BIGINT NOT NULL,
    PRIMARY KEY (season, ip),
    UNIQUE (season, number)
);
