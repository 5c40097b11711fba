-- The network of each move's IP (a.b.c.0/24, or the /64 of an IPv6
-- address), so that same-network comparisons work in a keyed store, where
-- both the IP and its network are stored as keyed hashes. NULL when the IP
-- is not an address. Whether a store is keyed is `ip_key_check` in
-- store_state (absent in a plain store).
ALTER TABLE moves ADD COLUMN net TEXT;
