-- Sites: one store holds the moves of several game sites, and a username
-- means one account only within its site. Every row that names accounts,
-- games or seasons carries its site; what was stored before is site
-- 'default'. Rows of scans and segmentations hang off their parent row, so
-- only the parents carry the site. SQLite cannot change a table's keys, so
-- moves, games, seasons and ip_pseudonyms are rebuilt (ids kept).
CREATE TABLE moves_sited (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    username    TEXT    NOT NULL,
    game        TEXT    NOT NULL,
    ts          BIGINT  NOT NULL,
    ip          TEXT    NOT NULL,
    occurrence  INTEGER NOT NULL,
    net         TEXT,
    site        TEXT    NOT NULL DEFAULT 'default',
    UNIQUE (ts, username, game, ip, occurrence, site)
);
INSERT INTO moves_sited (id, username, game, ts, ip, occurrence, net, site)
    SELECT id, username, game, ts, ip, occurrence, net, 'default' FROM moves;
DROP TABLE moves;
ALTER TABLE moves_sited RENAME TO moves;
CREATE INDEX moves_by_time ON moves (ts, id);
CREATE INDEX moves_by_site_time ON moves (site, ts, id);

CREATE TABLE games_sited (
    site TEXT NOT NULL DEFAULT 'default',
    name TEXT NOT NULL,
    PRIMARY KEY (site, name)
);
INSERT INTO games_sited (site, name) SELECT 'default', name FROM games;
DROP TABLE games;
ALTER TABLE games_sited RENAME TO games;

CREATE TABLE seasons_sited (
    site    TEXT   NOT NULL DEFAULT 'default',
    number  INTEGER NOT NULL,
    from_ts BIGINT,
    to_ts   BIGINT,
    games   TEXT NOT NULL,
    PRIMARY KEY (site, number)
);
INSERT INTO seasons_sited (site, number, from_ts, to_ts, games)
    SELECT 'default', number, from_ts, to_ts, games FROM seasons;
DROP TABLE seasons;
ALTER TABLE seasons_sited RENAME TO seasons;

ALTER TABLE segmentations ADD COLUMN site TEXT NOT NULL DEFAULT 'default';

ALTER TABLE scans ADD COLUMN site TEXT NOT NULL DEFAULT 'default';
CREATE INDEX scans_by_site_season ON scans (site, season, id);

CREATE TABLE ip_pseudonyms_sited (
    site    TEXT   NOT NULL DEFAULT 'default',
    season  BIGINT NOT NULL,
    ip      TEXT   NOT NULL,
    number  BIGINT NOT NULL,
    PRIMARY KEY (site, season, ip),
    UNIQUE (site, season, number)
);
INSERT INTO ip_pseudonyms_sited (site, season, ip, number)
    SELECT 'default', season, ip, number FROM ip_pseudonyms;
DROP TABLE ip_pseudonyms;
ALTER TABLE ip_pseudonyms_sited RENAME TO ip_pseudonyms;

ALTER TABLE verdicts ADD COLUMN site TEXT NOT NULL DEFAULT 'default';
