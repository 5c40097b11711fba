-- PostgreSQL twin of migrations/sqlite/0015_accounts.sql: one word for a
-- game account, "account" (a "user" is a person who signs in to the
-- workbench, the `users` table). Rows are kept as they are.
ALTER TABLE scan_pairs RENAME COLUMN user_a TO account_a;
ALTER TABLE scan_pairs RENAME COLUMN user_b TO account_b;
ALTER TABLE segmentations RENAME COLUMN user_count TO account_count;
ALTER TABLE user_days RENAME TO account_days;
ALTER TABLE account_days RENAME CONSTRAINT user_days_pkey TO account_days_pkey;
ALTER TABLE account_days RENAME CONSTRAINT user_days_segmentation_id_fkey TO account_days_segmentation_id_fkey;
ALTER TABLE scan_users RENAME TO scan_accounts;
ALTER TABLE scan_accounts RENAME CONSTRAINT scan_users_pkey TO scan_accounts_pkey;
ALTER TABLE scan_accounts RENAME CONSTRAINT scan_users_scan_id_fkey TO scan_accounts_scan_id_fkey;
ALTER INDEX segment_chunks_by_user RENAME TO segment_chunks_by_account;
ALTER INDEX verdict_accounts_by_user RENAME TO verdict_accounts_by_account;
