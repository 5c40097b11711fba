//! "Find alts of X": every account linked to X by a scored pair in the
//! latest scan of any season, ranked by the larger similarity.

use super::{AccountLink, VerdictRow};
use crate::auth::SignedIn;
use crate::render::{account_href, page, pair_href, sim, Me};
use crate::{AppState, WebError};
use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::{Html, IntoResponse, Redirect, Response};
use schema::{day_of, Segments};
use serde::Deserialize;
use std::collections::BTreeMap;
use store::AccountPair;

/// A pair's two directions: from the account to the other, and back.
type Directions<'p> = (Option<&'p AccountPair>, Option<&'p AccountPair>);

pub struct LinkRow {
    pub other: AccountLink,
    pub season: u32,
    pub larger: f64,
    pub larger_shown: String,
    pub to_other: String,
    pub from_other: String,
    pub flagged: bool,
    pub shared_ips: usize,
    /// [`viz::guide::same_ip_words`] of the stronger direction.
    pub same_ip: String,
    pub href: String,
    pub verdict: Option<VerdictRow>,
}

#[derive(Template)]
#[template(path = "account.html")]
pub struct AccountPage {
    pub me: Me,
    pub name: String,
    pub links: Vec<LinkRow>,
    pub verdicts: Vec<VerdictRow>,
    /// No pair names it: whether the site has seen the account at all ...
    pub seen: bool,
    /// ... and if not, the names it may have meant.
    pub suggestions: Vec<AccountLink>,
}

/// Suggestions shown for an account the site has not seen.
const SUGGESTIONS: usize = 10;

#[derive(Debug, Deserialize)]
pub struct SearchQuery {
    #[serde(default)]
    pub name: String,
}

/// The header's search box: on to the account's page.
pub async fn search(_me: SignedIn, Query(q): Query<SearchQuery>) -> Response {
    let name = q.name.trim();
    if name.is_empty() {
        Redirect::to("/").into_response()
    } else {
        Redirect::to(&account_href(name)).into_response()
    }
}

/// IPs both accounts moved from on one day within the season's bounds.
fn shared_ips(segments: &Segments, a: &str, b: &str, from: Option<i64>, to: Option<i64>) -> usize {
    let (Some(ia), Some(ib)) = (segments.accounts.get(a), segments.accounts.get(b)) else {
        return 0;
    };
    let (lo, hi) = (from.map_or(i64::MIN, day_of), to.map_or(i64::MAX, day_of));
    let days = |u| {
        segments
            .ip_days
            .iter()
            .filter(move |d| d.account == u && d.day >= lo && d.day <= hi)
            .map(|d| (d.day, d.ip))
            .collect::<std::collections::BTreeSet<_>>()
    };
    let (da, db) = (days(ia), days(ib));
    let mut ips: Vec<u32> = da.intersection(&db).map(|&(_, ip)| ip).collect();
    ips.sort_unstable();
    ips.dedup();
    ips.len()
}

pub async fn account(
    State(state): State<AppState>,
    me: SignedIn,
    Path(name): Path<String>,
) -> Result<Html<String>, WebError> {
    state
        .store()
        .record_audit(&me.user.name, "view-account", &name)
        .await?;
    let pairs = state.store().pairs_of_account(&name).await?;
    // Both directions of a pair in a season, keyed by (season, other).
    let mut both: BTreeMap<(u32, String), Directions> = BTreeMap::new();
    for p in &pairs {
        if p.account_a == name {
            both.entry((p.season, p.account_b.clone())).or_default().0 = Some(p);
        } else {
            both.entry((p.season, p.account_a.clone())).or_default().1 = Some(p);
        }
    }
    let mut verdicts = state.store().verdicts_for_account(&name).await?;
    schema::verdict::newest_first(&mut verdicts);
    let segments = match pairs.first() {
        Some(p) => Some(state.segments(p.bucket_seconds).await?),
        None => None,
    };
    let mut links: Vec<LinkRow> = both
        .into_iter()
        .map(|((season, other), (to, from))| {
            let any = to.or(from).expect("one direction at least");
            let larger = [to, from]
                .iter()
                .flatten()
                .map(|p| p.similarity)
                .fold(f64::MIN, f64::max);
            let shown = |p: Option<&AccountPair>| p.map_or("-".to_owned(), |p| sim(p.similarity));
            LinkRow {
                season,
                larger,
                larger_shown: sim(larger),
                to_other: shown(to),
                from_other: shown(from),
                flagged: larger >= any.threshold,
                shared_ips: segments.as_ref().map_or(0, |s| {
                    shared_ips(s, &name, &other, any.season_from, any.season_to)
                }),
                same_ip: same_ip(to, from),
                href: pair_href(season, &name, &other),
                verdict: verdicts
                    .iter()
                    .find(|v| v.covers(&name, &other))
                    .map(VerdictRow::of),
                other: AccountLink::of(&other),
            }
        })
        .collect();
    links.sort_by(|x, y| {
        y.larger
            .total_cmp(&x.larger)
            .then_with(|| y.season.cmp(&x.season))
            .then_with(|| x.other.name.cmp(&y.other.name))
    });
    // "No pair" must not read as innocence when the name is a typo.
    let seen = !links.is_empty() || state.store().account_seen(&name).await?;
    let suggestions = if seen {
        Vec::new()
    } else {
        let like = state.store().accounts_like(&name, SUGGESTIONS).await?;
        like.iter().map(|n| AccountLink::of(n)).collect()
    };
    page(&AccountPage {
        me: me.me(),
        name,
        links,
        verdicts: verdicts.iter().map(VerdictRow::of).collect(),
        seen,
        suggestions,
    })
}

/// The same-IP time of the pair's stronger direction, as every surface
/// words it ([`viz::guide::same_ip_words`]).
fn same_ip(to: Option<&AccountPair>, from: Option<&AccountPair>) -> String {
    let stronger = match (to, from) {
        (Some(x), Some(y)) if y.similarity > x.similarity => y,
        (Some(x), _) => x,
        (None, Some(y)) => y,
        (None, None) => return "-".to_owned(),
    };
    viz::guide::same_ip_words(
        stronger.same_ip_count,
        &stronger.account_a,
        stronger.bucket_seconds,
    )
}
