//! One module per page family. Handlers read through the store, record
//! what was viewed in the audit log, and render a template.

pub mod account;
pub mod admin;
pub mod case;
pub mod clique;
pub mod pair;
pub mod queue;
pub mod seasons;
pub mod verdict;

use crate::render::{account_href, when};
use crate::{AppState, WebError};
use schema::verdict::Verdict;
use store::StoredScan;

/// The pages' stylesheet (a file of its own: the content security policy
/// allows no inline style). It holds nothing private, so browsers may keep it.
pub async fn style() -> impl axum::response::IntoResponse {
    (
        [
            (axum::http::header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (axum::http::header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        include_str!("../../templates/style.css"),
    )
}

/// The keyboard shortcuts of the queue's pages: a file of its own, as the
/// content security policy allows no inline script.
pub async fn keys_js() -> impl axum::response::IntoResponse {
    (
        [
            (
                axum::http::header::CONTENT_TYPE,
                "text/javascript; charset=utf-8",
            ),
            (axum::http::header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        include_str!("../../templates/keys.js"),
    )
}

/// The latest scan of a season, or a 404 page.
pub async fn latest_scan(state: &AppState, season: u32) -> Result<StoredScan, WebError> {
    state
        .store()
        .latest_scan(season)
        .await?
        .ok_or_else(|| WebError::NotFound(format!("Season {season} has no scan yet.")))
}

/// The latest scan of a season with only its flagged pairs (what the
/// season pages list), or a 404 page.
pub async fn flagged_scan(state: &AppState, season: u32) -> Result<StoredScan, WebError> {
    state
        .store()
        .latest_scan_flagged(season)
        .await?
        .ok_or_else(|| WebError::NotFound(format!("Season {season} has no scan yet.")))
}

/// Whether raw IPs are shown: asked for by an admin (and audited).
pub async fn reveal(
    state: &AppState,
    me: &crate::auth::SignedIn,
    asked: Option<&str>,
    target: &str,
) -> Result<bool, WebError> {
    if asked.is_none_or(|r| r.is_empty() || r == "0") {
        return Ok(false);
    }
    me.require(store::Role::Admin, "reveal raw IP addresses")?;
    state
        .store()
        .record_audit(&me.user.name, "reveal-ips", target)
        .await?;
    Ok(true)
}

/// A verdict as a history row shows it.
pub struct VerdictRow {
    pub id: i64,
    /// "supersedes #N", or empty.
    pub supersedes: String,
    pub kind: &'static str,
    pub known: bool,
    pub accounts: String,
    pub note: String,
    pub by: String,
    pub at: String,
    pub season: String,
    pub similarity: String,
}

impl VerdictRow {
    pub fn of(v: &Verdict) -> VerdictRow {
        VerdictRow {
            id: v.id,
            supersedes: v
                .supersedes
                .map_or(String::new(), |old| format!("supersedes #{old}")),
            kind: v.kind.label(),
            known: v.kind.is_known_relationship(),
            accounts: v.accounts.join(", "),
            note: v.note.clone(),
            by: v.by.clone(),
            at: when(v.at),
            season: v.season.map(|s| s.to_string()).unwrap_or_default(),
            similarity: v.similarity.map(crate::render::sim).unwrap_or_default(),
        }
    }
}

/// An account with the link to its page.
pub struct AccountLink {
    pub name: String,
    pub href: String,
}

impl AccountLink {
    pub fn of(name: &str) -> AccountLink {
        AccountLink {
            name: name.to_owned(),
            href: account_href(name),
        }
    }
}

/// The confirmation of the verdict just recorded (`?recorded=ID`), on the
/// pair's page or on the next flag's: what it said, on which accounts.
pub async fn recorded_words(
    state: &crate::AppState,
    recorded: Option<i64>,
) -> Result<Option<String>, crate::WebError> {
    let Some(id) = recorded else { return Ok(None) };
    Ok(state.store().verdict_by_id(id).await?.map(|v| {
        format!(
            "Verdict #{} recorded: {}, by {}, on {}.",
            v.id,
            v.kind.label(),
            v.by,
            v.accounts.join(", ")
        )
    }))
}

/// The choices of a verdict form: value and label.
pub fn verdict_choices() -> Vec<(&'static str, &'static str)> {
    schema::verdict::VerdictKind::ALL
        .into_iter()
        .map(|k| (k.as_str(), k.label()))
        .collect()
}
