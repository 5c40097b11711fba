//! A pair of accounts: both similarities, the evidence in words (as
//! `detect explain` prints it), the timeline of their clique, the verdict
//! history and a form to record a verdict.

use super::{latest_scan, reveal, verdict_choices, AccountLink, VerdictRow};
use crate::auth::SignedIn;
use crate::render::{clique_href, page, sim, Me};
use crate::{AppState, WebError};
use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::Html;
use serde::Deserialize;

/// How many of the strongest buckets the evidence lists per direction.
const TOP_BUCKETS: usize = 12;

#[derive(Debug, Deserialize)]
pub struct PairQuery {
    pub season: Option<u32>,
    /// Show raw IP addresses (admins only; audited).
    #[serde(default)]
    pub reveal: Option<String>,
    /// The review queue it was opened from (its filters), for "next".
    #[serde(default)]
    pub queue: Option<String>,
    /// The verdict just recorded, confirmed on the page.
    #[serde(default)]
    pub recorded: Option<i64>,
}

#[derive(Template)]
#[template(path = "pair.html")]
pub struct PairPage {
    pub me: Me,
    pub season: u32,
    pub a: AccountLink,
    pub b: AccountLink,
    pub ab: String,
    pub ba: String,
    pub flagged: bool,
    /// The scan's threshold, as the season page shows it.
    pub threshold: f64,
    /// The verdict in force on the pair, if any: shown instead of "Flagged".
    pub judged: Option<VerdictRow>,
    pub recorded: Option<String>,
    pub evidence: String,
    pub clique: Option<(usize, String)>,
    pub timeline_svg: String,
    pub history: Vec<VerdictRow>,
    pub choices: Vec<(&'static str, &'static str)>,
    pub revealed: bool,
    pub reveal_href: String,
    /// Opened from the review queue: back, skip, and the form's "next".
    pub queue: Option<super::queue::QueueNav>,
    /// The case file to download for an appeal.
    pub case_href: String,
}

/// The season to show a pair in: the one asked for, else the latest
/// season whose latest scan scored it.
pub(super) async fn season_of_pair(
    state: &AppState,
    a: &str,
    b: &str,
    asked: Option<u32>,
) -> Result<u32, WebError> {
    if let Some(s) = asked {
        return Ok(s);
    }
    state
        .store()
        .pairs_of_account(a)
        .await?
        .iter()
        .filter(|p| p.account_a == b || p.account_b == b)
        .map(|p| p.season)
        .max()
        .ok_or_else(|| {
            WebError::NotFound(format!("{a} and {b} are not a scored pair of any season."))
        })
}

pub async fn pair(
    State(state): State<AppState>,
    me: SignedIn,
    Path((a, b)): Path<(String, String)>,
    Query(q): Query<PairQuery>,
) -> Result<Html<String>, WebError> {
    let number = season_of_pair(&state, &a, &b, q.season).await?;
    let queue = q
        .queue
        .as_deref()
        .map(|query| super::queue::QueueNav::of(query, number, &a, &b))
        .transpose()?;
    let scan = latest_scan(&state, number).await?;
    let target = format!("season {number}: {a}, {b}");
    let revealed = reveal(&state, &me, q.reveal.as_deref(), &target).await?;
    state
        .store()
        .record_audit(&me.user.name, "view-pair", &target)
        .await?;
    let result = &scan.result;
    let find = |x: &str, y: &str| {
        result
            .pairs
            .iter()
            .find(|p| p.account_a == x && p.account_b == y)
    };
    let (ab, ba) = (find(&a, &b), find(&b, &a));
    if ab.is_none() && ba.is_none() {
        return Err(WebError::NotFound(format!(
            "{a} and {b} are not a scored pair of season {number}."
        )));
    }
    let t = result.params.threshold;
    let segments = state.segments(result.params.bucket_seconds).await?;
    let pseudonyms = state
        .store()
        .season_pseudonyms(&scan.season, &segments)
        .await?;
    let model = super::seasons::scan_model(&scan)?;
    let evidence = viz::explain(
        &segments,
        &scan.season,
        (result, &model),
        &a,
        &b,
        TOP_BUCKETS,
        revealed,
        &pseudonyms,
    )
    .map_err(|e| WebError::NotFound(e.to_string()))?;
    let clique = result
        .cliques
        .iter()
        .position(|c| c.members.contains(&a) && c.members.contains(&b));
    let members: Vec<&str> = match clique {
        Some(k) => result.cliques[k]
            .members
            .iter()
            .map(String::as_str)
            .collect(),
        None => vec![a.as_str(), b.as_str()],
    };
    let timeline_svg = super::clique::timeline_svg(
        &segments,
        &scan.season,
        &members,
        revealed,
        &pseudonyms,
        Some(result),
    );
    let mut history: Vec<_> = state.store().verdicts_for_pair(&a, &b).await?;
    schema::verdict::newest_first(&mut history);
    let shown = |p: Option<&schema::PairScore>| p.map_or("-".to_owned(), |p| sim(p.similarity));
    page(&PairPage {
        me: me.me(),
        season: number,
        ab: shown(ab),
        ba: shown(ba),
        flagged: [ab, ba].iter().flatten().any(|p| p.similarity >= t),
        threshold: t,
        judged: history.first().map(VerdictRow::of),
        recorded: super::recorded_words(&state, q.recorded).await?,
        evidence,
        clique: clique.map(|k| (k + 1, clique_href(number, k + 1))),
        timeline_svg,
        history: history.iter().map(VerdictRow::of).collect(),
        choices: verdict_choices(),
        revealed,
        reveal_href: format!("{}&reveal=1", crate::render::pair_href(number, &a, &b)),
        queue,
        case_href: format!(
            "/pair/{}/{}/case?season={number}",
            crate::render::url_component(&a),
            crate::render::url_component(&b)
        ),
        a: AccountLink::of(&a),
        b: AccountLink::of(&b),
    })
}
