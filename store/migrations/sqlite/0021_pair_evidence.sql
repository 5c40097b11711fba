-- A pair's evidence as one value of bytes (store/src/scans/evidence.rs):
-- one bound value a pair instead of thirteen and a JSON text. Pairs stored
-- before keep theirs in the columns beside it (read as before); pairs
-- stored from now on leave those columns 0, NULL and ''.
ALTER TABLE scan_pairs ADD COLUMN evidence BLOB;
-- Every query by scan uses scan_pairs_by_similarity or
-- scan_pairs_by_accounts, which begin with scan_id: a third index only
-- cost each saved pair another B-tree insert.
DROP INDEX scan_pairs_by_scan;
