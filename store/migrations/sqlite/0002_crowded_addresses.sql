-- Crowded addresses: an (IP, UTC day) shared by more participating accounts
-- than the scan's crowd limit gives no candidate pairs (they would grow with
-- the square of its size); the scan keeps which addresses it left out, so
-- stored reports name them. `crowd_limit` is NULL for scans stored before
-- the limit existed.
ALTER TABLE scans ADD COLUMN crowd_limit BIGINT;

CREATE TABLE scan_crowds (
    scan_id  INTEGER NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
    day      BIGINT NOT NULL,
    ip       TEXT   NOT NULL,
    accounts BIGINT NOT NULL
);
CREATE INDEX scan_crowds_by_scan ON scan_crowds (scan_id);
