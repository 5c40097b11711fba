-- Every query of moves by time names the site and reads moves_by_site_time;
-- a purge (`ts < cutoff`, every site) reads the unique index, which begins
-- with ts. moves_by_time (ts, id) only cost each stored move another B-tree
-- insert.
DROP INDEX IF EXISTS moves_by_time;
