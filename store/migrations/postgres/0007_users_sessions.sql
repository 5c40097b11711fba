-- PostgreSQL twin of migrations/sqlite/0007_users_sessions.sql.
-- Accounts of the tool itself (moderators of the web application), and
-- their sign-in sessions. Passwords are kept as argon2id PHC strings only.
-- `role` is one of viewer, moderator, admin.
CREATE TABLE users (
    name          TEXT    PRIMARY KEY,
    role          TEXT    NOT NULL CHECK (role IN ('viewer', 'moderator', 'admin')),
    password_hash TEXT    NOT NULL,
    created_at    BIGINT  NOT NULL
);

-- A signed-in browser. The cookie carries a random token; only its SHA-256
-- is stored here, so a copy of the database opens no session. `csrf` is the
-- session's token that every form sends back.
CREATE TABLE sessions (
    token_hash  TEXT    PRIMARY KEY,
    username    TEXT    NOT NULL REFERENCES users (name) ON DELETE CASCADE,
    csrf        TEXT    NOT NULL,
    created_at  BIGINT  NOT NULL,
    expires_at  BIGINT  NOT NULL
);
CREATE INDEX sessions_by_expiry ON sessions (expires_at);
