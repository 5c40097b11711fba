-- One word for a game account: "account" (a "user" is a person who signs in
-- to the workbench, the `users` table). Columns, tables and indexes that
-- named accounts "user" are renamed; their rows are kept as they are.
ALTER TABLE scan_pairs RENAME COLUMN user_a TO account_a;
ALTER TABLE scan_pairs RENAME COLUMN user_b TO account_b;
ALTER TABLE segmentations RENAME COLUMN user_count TO account_count;
ALTER TABLE user_days RENAME TO account_days;
ALTER TABLE scan_users RENAME TO scan_accounts;

-- SQLite cannot rename an index: made again under the new name.
DROP INDEX segment_chunks_by_user;
CREATE INDEX segment_chunks_by_account ON segment_chunks (segmentation_id, username, first_bucket);
DROP INDEX verdict_accounts_by_user;
CREATE INDEX verdict_accounts_by_account ON verdict_accounts (username, verdict_id);
