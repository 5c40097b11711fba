//! Recording a verdict (moderators and admins). The accounts and the
//! similarity come from the stored scan, not from the form: a form names a
//! pair or a clique of a season. Verdicts are only ever added; no page
//! changes or deletes one.

use super::latest_scan;
use crate::auth::SignedIn;
use crate::render::{clique_href, pair_href};
use crate::{AppState, WebError};
use axum::extract::State;
use axum::response::Redirect;
use axum::Form;
use schema::verdict::{NewVerdict, VerdictKind};
use serde::Deserialize;
use store::Role;

/// Notes longer than this are refused.
const MAX_NOTE: usize = 4000;

#[derive(Debug, Deserialize)]
pub struct VerdictForm {
    #[serde(default)]
    pub csrf: String,
    pub season: u32,
    /// A pair ...
    pub a: Option<String>,
    pub b: Option<String>,
    /// ... or a clique of the season's latest scan (1-based).
    pub clique: Option<usize>,
    /// No default: a form sent without a choice is refused.
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub note: String,
    /// The review queue the pair was opened from: after the verdict, its
    /// next flag.
    #[serde(default)]
    pub queue: Option<String>,
}

pub async fn record(
    State(state): State<AppState>,
    me: SignedIn,
    Form(form): Form<VerdictForm>,
) -> Result<Redirect, WebError> {
    me.check_csrf(&form.csrf)?;
    me.require(Role::Moderator, "record verdicts")?;
    if form.kind.trim().is_empty() {
        return Err(WebError::BadRequest(
            "Choose a verdict: there is no default.".to_owned(),
        ));
    }
    let kind: VerdictKind = form
        .kind
        .parse()
        .map_err(|e: schema::verdict::UnknownVerdictKind| WebError::BadRequest(e.to_string()))?;
    if form.note.chars().count() > MAX_NOTE {
        return Err(WebError::BadRequest(format!(
            "A note holds at most {MAX_NOTE} characters."
        )));
    }
    let scan = latest_scan(&state, form.season).await?;
    let result = &scan.result;
    let (accounts, back) = match (&form.a, &form.b, form.clique) {
        (Some(a), Some(b), None) if a != b => {
            (vec![a.clone(), b.clone()], pair_href(form.season, a, b))
        }
        (None, None, Some(k)) => {
            let c = k
                .checked_sub(1)
                .and_then(|i| result.cliques.get(i))
                .ok_or_else(|| {
                    WebError::NotFound(format!("Season {} has no clique {k}.", form.season))
                })?;
            (c.members.clone(), clique_href(form.season, k))
        }
        _ => {
            return Err(WebError::BadRequest(
                "A verdict names two different accounts or one clique.".to_owned(),
            ))
        }
    };
    let similarity = result
        .pairs
        .iter()
        .filter(|p| accounts.contains(&p.account_a) && accounts.contains(&p.account_b))
        .map(|p| p.similarity)
        .reduce(f64::max);
    if similarity.is_none() {
        return Err(WebError::NotFound(format!(
            "{} are not a scored pair of season {}.",
            accounts.join(" and "),
            form.season
        )));
    }
    // The flag after this pair, found before the verdict moves it.
    let back = match (&form.queue, &form.a, &form.b) {
        (Some(query), Some(a), Some(b)) => {
            super::queue::next_href(&state, query, form.season, a, b).await?
        }
        _ => back,
    };
    let id = state
        .store()
        .add_verdict(&NewVerdict {
            accounts: accounts.clone(),
            kind,
            note: form.note.trim().to_owned(),
            by: me.user.name.clone(),
            season: Some(form.season),
            similarity,
            unseen: false,
            supersedes: None,
        })
        .await?;
    state
        .store()
        .record_audit(
            &me.user.name,
            "verdict",
            &format!("{} on {}", kind.as_str(), accounts.join(", ")),
        )
        .await?;
    // The page confirms the verdict it finds in its history under this id.
    let sep = if back.contains('?') { '&' } else { '?' };
    Ok(Redirect::to(&format!("{back}{sep}recorded={id}")))
}
