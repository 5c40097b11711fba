-- SQLite's 0024 keeps a scan's pairs in the order of their key, without
-- an index by similarity. PostgreSQL keeps its table and both indexes:
-- its heap has no such order, and the pairs at or above a similarity
-- would be read through the key's index one row at a time. The number
-- stays the same on both back ends, so that one version names one schema.
SELECT 1;
