-- Verdicts, the audit log and sent alerts. Verdicts and the audit log are
-- append-only: a newer verdict supersedes an older one, nothing is changed
-- or deleted, and the triggers below refuse any UPDATE or DELETE.

-- A moderator's decision about two accounts (a pair) or more (a clique).
CREATE TABLE verdicts (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    kind        TEXT    NOT NULL,
    note        TEXT    NOT NULL,
    decided_by  TEXT    NOT NULL,
    decided_at  BIGINT  NOT NULL,
    season      BIGINT,
    similarity  DOUBLE PRECISION
);

-- The accounts of a verdict, one row each.
CREATE TABLE verdict_accounts (
    verdict_id INTEGER NOT NULL REFERENCES verdicts (id),
    username   TEXT    NOT NULL,
    PRIMARY KEY (verdict_id, username)
);
CREATE INDEX verdict_accounts_by_user ON verdict_accounts (username, verdict_id);

-- Who did what, when: sign-ins, evidence views, verdicts, IP reveals.
CREATE TABLE audit_log (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    at      BIGINT  NOT NULL,
    by_name TEXT    NOT NULL,
    action  TEXT    NOT NULL,
    target  TEXT    NOT NULL
);
CREATE INDEX audit_log_by_time ON audit_log (at, id);

-- Alerts delivered: one row per flag and destination, so a flag is never
-- announced twice to the same webhook. `destination` is a hash of the
-- webhook URL (the URL itself may hold a secret).
CREATE TABLE alerts_sent (
    flag        TEXT   NOT NULL,
    destination TEXT   NOT NULL,
    sent_at     BIGINT NOT NULL,
    PRIMARY KEY (flag, destination)
);

CREATE TRIGGER verdicts_no_update BEFORE UPDATE ON verdicts
BEGIN SELECT RAISE(ABORT, 'verdicts are append-only'); END;
CREATE TRIGGER verdicts_no_delete BEFORE DELETE ON verdicts
BEGIN SELECT RAISE(ABORT, 'verdicts are append-only'); END;
CREATE TRIGGER verdict_accounts_no_update BEFORE UPDATE ON verdict_accounts
BEGIN SELECT RAISE(ABORT, 'verdicts are append-only'); END;
CREATE TRIGGER verdict_accounts_no_delete BEFORE DELETE ON verdict_accounts
BEGIN SELECT RAISE(ABORT, 'verdicts are append-only'); END;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
