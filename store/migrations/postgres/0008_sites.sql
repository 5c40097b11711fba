-- Sites: one store holds the moves of several game sites, and a username
-- means one account only within its site. Every row that names accounts,
-- games or seasons carries its site; what was stored before is site
-- 'default'. Rows of scans and segmentations hang off their parent row, so
-- only the parents carry the site.
ALTER TABLE moves ADD COLUMN site TEXT NOT NULL DEFAULT 'default';
ALTER TABLE moves DROP CONSTRAINT moves_ts_username_game_ip_occurrence_key;
ALTER TABLE moves ADD CONSTRAINT moves_once_per_site
    UNIQUE (ts, username, game, ip, occurrence, site);
CREATE INDEX moves_by_site_time ON moves (site, ts, id);

ALTER TABLE games ADD COLUMN site TEXT NOT NULL DEFAULT 'default';
ALTER TABLE games DROP CONSTRAINT games_pkey;
ALTER TABLE games ADD PRIMARY KEY (site, name);

ALTER TABLE seasons ADD COLUMN site TEXT NOT NULL DEFAULT 'default';
ALTER TABLE seasons DROP CONSTRAINT seasons_pkey;
ALTER TABLE seasons ADD PRIMARY KEY (site, number);

ALTER TABLE segmentations ADD COLUMN site TEXT NOT NULL DEFAULT 'default';

ALTER TABLE scans ADD COLUMN site TEXT NOT NULL DEFAULT 'default';
CREATE INDEX scans_by_site_season ON scans (site, season, id);

ALTER TABLE ip_pseudonyms ADD COLUMN site TEXT NOT NULL DEFAULT 'default';
ALTER TABLE ip_pseudonyms DROP CONSTRAINT ip_pseudonyms_pkey;
ALTER TABLE ip_pseudonyms DROP CONSTRAINT ip_pseudonyms_season_number_key;
ALTER TABLE ip_pseudonyms ADD PRIMARY KEY (site, season, ip);
ALTER TABLE ip_pseudonyms ADD CONSTRAINT ip_pseudonyms_number_once
    UNIQUE (site, season, number);

ALTER TABLE verdicts ADD COLUMN site TEXT NOT NULL DEFAULT 'default';
