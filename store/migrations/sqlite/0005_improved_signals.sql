-- Improved mode's evidence of a pair (schema::Signals as JSON); NULL for
-- reference-mode scans.
ALTER TABLE scan_pairs ADD COLUMN signals TEXT;
