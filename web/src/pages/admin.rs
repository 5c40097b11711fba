//! Admins only: the audit log and the tool's users.

use crate::auth::{hash_password, SignedIn};
use crate::render::{page, when, Me};
use crate::{AppState, WebError};
use askama::Template;
use axum::extract::{Query, State};
use axum::response::{Html, Redirect};
use axum::Form;
use serde::Deserialize;
use store::Role;

/// The most entries the audit page lists (newest first).
const AUDIT_SHOWN: usize = 2000;

pub struct AuditRow {
    pub at: String,
    pub by: String,
    pub action: String,
    pub target: String,
}

#[derive(Template)]
#[template(path = "audit.html")]
pub struct AuditPage {
    pub me: Me,
    pub by: String,
    pub rows: Vec<AuditRow>,
    pub total: usize,
}

#[derive(Debug, Deserialize)]
pub struct AuditQuery {
    #[serde(default)]
    pub by: String,
}

pub async fn audit(
    State(state): State<AppState>,
    me: SignedIn,
    Query(q): Query<AuditQuery>,
) -> Result<Html<String>, WebError> {
    me.require(Role::Admin, "read the audit log")?;
    let by = q.by.trim().to_owned();
    let entries = state
        .store()
        .audit_log(None, (!by.is_empty()).then_some(by.as_str()))
        .await?;
    let total = entries.len();
    let rows = entries
        .into_iter()
        .rev()
        .take(AUDIT_SHOWN)
        .map(|e| AuditRow {
            at: when(e.at),
            by: e.by,
            action: e.action,
            target: e.target,
        })
        .collect();
    page(&AuditPage {
        me: me.me(),
        by,
        rows,
        total,
    })
}

pub struct UserRow {
    pub name: String,
    pub role: &'static str,
    pub since: String,
}

#[derive(Template)]
#[template(path = "users.html")]
pub struct UsersPage {
    pub me: Me,
    pub users: Vec<UserRow>,
    pub roles: Vec<&'static str>,
}

pub async fn users(State(state): State<AppState>, me: SignedIn) -> Result<Html<String>, WebError> {
    me.require(Role::Admin, "manage users")?;
    let users = state
        .store()
        .users()
        .await?
        .into_iter()
        .map(|u| UserRow {
            role: u.role.as_str(),
            since: when(u.created_at),
            name: u.name,
        })
        .collect();
    page(&UsersPage {
        me: me.me(),
        users,
        roles: Role::ALL.iter().map(|r| r.as_str()).collect(),
    })
}

#[derive(Debug, Deserialize)]
pub struct UserForm {
    #[serde(default)]
    pub csrf: String,
    pub name: String,
    pub role: String,
    pub password: String,
}

/// Adds a user, or sets the role and password of an existing one.
pub async fn add_user(
    State(state): State<AppState>,
    me: SignedIn,
    Form(form): Form<UserForm>,
) -> Result<Redirect, WebError> {
    me.check_csrf(&form.csrf)?;
    me.require(Role::Admin, "manage users")?;
    let role: Role = form.role.parse().map_err(WebError::BadRequest)?;
    let name = form.name.trim();
    if name.is_empty() || form.password.chars().count() < 8 {
        return Err(WebError::BadRequest(
            "A user needs a name and a password of at least 8 characters.".to_owned(),
        ));
    }
    let password = form.password.clone();
    let hash = state
        .hashing()
        .run(move || hash_password(&password))
        .await
        .ok_or_else(crate::auth::busy)?
        .map_err(|e| WebError::Internal(e.to_string()))?
        .map_err(WebError::Internal)?;
    let store = state.store();
    if !store
        .add_user(name, role, &hash, chrono::Utc::now().timestamp())
        .await?
    {
        store.set_user_role(name, role).await?;
        store.set_user_password(name, &hash).await?;
    }
    store
        .record_audit(&me.user.name, "user", &format!("{name} as {role}"))
        .await?;
    Ok(Redirect::to("/users"))
}
