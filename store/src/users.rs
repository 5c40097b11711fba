//! Accounts of the tool itself and their sign-in sessions (`users`,
//! `sessions`). The store keeps password hashes and session-token hashes
//! only; hashing is the caller's (the web application's) business.

use super::{Result, Store, StoreError};
use schema::model::Epoch;
use sqlx::Row;
use std::fmt;
use std::str::FromStr;

/// What a user of the tool may do. Each role may do what the ones before it
/// may: viewers read, moderators also record verdicts, admins also manage
/// users, read the audit log and reveal raw IP addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    Viewer,
    Moderator,
    Admin,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Viewer, Role::Moderator, Role::Admin];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Moderator => "moderator",
            Role::Admin => "admin",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Role {
    type Err = String;

    fn from_str(s: &str) -> Result<Role, String> {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| format!("unknown role {s:?}: viewer, moderator or admin"))
    }
}

/// A user of the tool (not a player).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub name: String,
    pub role: Role,
    /// UTC epoch seconds.
    pub created_at: Epoch,
}

/// A signed-in session, found by the hash of its cookie token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub user: User,
    /// The token every form of this session must send back.
    pub csrf: String,
    pub expires_at: Epoch,
}

/// A session to store.
#[derive(Debug, Clone)]
pub struct NewSession<'a> {
    pub token_hash: &'a str,
    pub username: &'a str,
    pub csrf: &'a str,
    pub created_at: Epoch,
    pub expires_at: Epoch,
}

fn user_of_row(r: &sqlx::any::AnyRow) -> Result<User> {
    let role: String = r.try_get(1)?;
    Ok(User {
        name: r.try_get(0)?,
        role: role.parse().map_err(StoreError::Corrupt)?,
        created_at: r.try_get(2)?,
    })
}

impl Store {
    /// Adds a user; `Ok(false)` if the name is taken (nothing changes).
    pub async fn add_user(
        &self,
        name: &str,
        role: Role,
        password_hash: &str,
        created_at: Epoch,
    ) -> Result<bool> {
        let done = sqlx::query(
            "INSERT INTO users (name, role, password_hash, created_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (name) DO NOTHING",
        )
        .bind(name.to_owned())
        .bind(role.as_str())
        .bind(password_hash.to_owned())
        .bind(created_at)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Sets a user's role; `Ok(false)` if there is no such user.
    pub async fn set_user_role(&self, name: &str, role: Role) -> Result<bool> {
        let done = sqlx::query("UPDATE users SET role = $1 WHERE name = $2")
            .bind(role.as_str())
            .bind(name.to_owned())
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Sets a user's password hash and ends their sessions; `Ok(false)` if
    /// there is no such user.
    pub async fn set_user_password(&self, name: &str, password_hash: &str) -> Result<bool> {
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query("UPDATE users SET password_hash = $1 WHERE name = $2")
            .bind(password_hash.to_owned())
            .bind(name.to_owned())
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM sessions WHERE username = $1")
            .bind(name.to_owned())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }

    /// Removes a user and their sessions; `Ok(false)` if there was none.
    pub async fn remove_user(&self, name: &str) -> Result<bool> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM sessions WHERE username = $1")
            .bind(name.to_owned())
            .execute(&mut *tx)
            .await?;
        let done = sqlx::query("DELETE FROM users WHERE name = $1")
            .bind(name.to_owned())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }

    /// Every user, by name.
    pub async fn users(&self) -> Result<Vec<User>> {
        let rows = sqlx::query("SELECT name, role, created_at FROM users ORDER BY name")
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(user_of_row).collect()
    }

    /// A user and their password hash, for signing in.
    pub async fn user_with_password(&self, name: &str) -> Result<Option<(User, String)>> {
        let row =
            sqlx::query("SELECT name, role, created_at, password_hash FROM users WHERE name = $1")
                .bind(name.to_owned())
                .fetch_optional(&self.pool)
                .await?;
        match row {
            Some(r) => Ok(Some((user_of_row(&r)?, r.try_get(3)?))),
            None => Ok(None),
        }
    }

    /// Stores a session.
    pub async fn create_session(&self, s: &NewSession<'_>) -> Result<()> {
        sqlx::query(
            "INSERT INTO sessions (token_hash, username, csrf, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(s.token_hash.to_owned())
        .bind(s.username.to_owned())
        .bind(s.csrf.to_owned())
        .bind(s.created_at)
        .bind(s.expires_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The session with this token hash, unless it expired before `now`.
    pub async fn session(&self, token_hash: &str, now: Epoch) -> Result<Option<Session>> {
        let row = sqlx::query(
            "SELECT u.name, u.role, u.created_at, s.csrf, s.expires_at \
             FROM sessions s JOIN users u ON u.name = s.username \
             WHERE s.token_hash = $1 AND s.expires_at > $2",
        )
        .bind(token_hash.to_owned())
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        match row {
            Some(r) => Ok(Some(Session {
                user: user_of_row(&r)?,
                csrf: r.try_get(3)?,
                expires_at: r.try_get(4)?,
            })),
            None => Ok(None),
        }
    }

    /// Ends a session (signing out).
    pub async fn delete_session(&self, token_hash: &str) -> Result<()> {
        sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
            .bind(token_hash.to_owned())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Forgets sessions that expired before `now`; returns how many.
    pub async fn delete_expired_sessions(&self, now: Epoch) -> Result<u64> {
        let done = sqlx::query("DELETE FROM sessions WHERE expires_at <= $1")
            .bind(now)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected())
    }
}
