//! The review queue: the flagged pairs of every season's latest scan, most
//! urgent first, filtered, sorted and paged by the store in SQL; and "next",
//! the flag after a pair in the same queue.

use super::AccountLink;
use crate::auth::SignedIn;
use crate::render::{clique_href, page, pair_href, sim, url_component, Me};
use crate::{AppState, WebError};
use askama::Template;
use axum::extract::{Query, State};
use axum::response::{Html, Redirect};
use serde::Deserialize;
use store::{QueueFilter, QueueItem, QueueStatus};

/// Flags per page, unless the address asks for 1 to [`MAX_PAGE_SIZE`].
pub const PAGE_SIZE: u64 = 50;
pub const MAX_PAGE_SIZE: u64 = 500;

/// The queue's filters and page as the address carries them (empty fields
/// are "any").
#[derive(Debug, Default, Deserialize, Clone)]
pub struct QueueParams {
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub season: String,
    /// At least this many accounts in the pair's clique (2: any).
    #[serde(default)]
    pub group: String,
    /// At least this score.
    #[serde(default)]
    pub score: String,
    #[serde(default)]
    pub page: String,
    /// Flags per page.
    #[serde(default)]
    pub size: String,
    /// The verdict just recorded (when "next" found no flag left), confirmed
    /// on the page as the pair page confirms it; not kept by its links.
    #[serde(default)]
    pub recorded: String,
}

fn field<T: std::str::FromStr>(value: &str, what: &str) -> Result<Option<T>, WebError> {
    let v = value.trim();
    if v.is_empty() {
        return Ok(None);
    }
    v.parse()
        .map(Some)
        .map_err(|_| WebError::BadRequest(format!("{what} {v:?} is not a number.")))
}

impl QueueParams {
    /// The store's filter, or why the address is wrong.
    pub fn filter(&self) -> Result<QueueFilter, WebError> {
        let status = match self.status.trim() {
            "" => QueueStatus::default(),
            s => QueueStatus::parse(s).ok_or_else(|| {
                WebError::BadRequest(format!(
                    "Status {s:?} is none of to-review, open, re-opened, judged, all."
                ))
            })?,
        };
        let min_score: Option<f64> = field(&self.score, "Score")?;
        if min_score.is_some_and(|s| !s.is_finite()) {
            return Err(WebError::BadRequest("A score is a finite number.".into()));
        }
        Ok(QueueFilter {
            season: field(&self.season, "Season")?,
            min_group: field(&self.group, "Clique size")?,
            min_score,
            status,
        })
    }

    /// The page asked for, from 1.
    pub fn page(&self) -> Result<u64, WebError> {
        Ok(field::<u64>(&self.page, "Page")?.unwrap_or(1).max(1))
    }

    /// Flags per page.
    pub fn size(&self) -> Result<u64, WebError> {
        let n = field::<u64>(&self.size, "Page size")?.unwrap_or(PAGE_SIZE);
        if !(1..=MAX_PAGE_SIZE).contains(&n) {
            return Err(WebError::BadRequest(format!(
                "A page holds 1 to {MAX_PAGE_SIZE} flags."
            )));
        }
        Ok(n)
    }

    /// The filters (not the page) as a query string, kept by every link of
    /// the queue and by the verdict form.
    pub fn query(&self) -> String {
        let f = |k: &str, v: &str| {
            let v = v.trim();
            (!v.is_empty()).then(|| format!("{k}={}", url_component(v)))
        };
        [
            f("status", &self.status),
            f("season", &self.season),
            f("group", &self.group),
            f("score", &self.score),
            f("size", &self.size),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("&")
    }

    /// Parsed back from [`QueueParams::query`].
    pub fn from_query(q: &str) -> Result<QueueParams, WebError> {
        serde_urlencoded::from_str(q)
            .map_err(|_| WebError::BadRequest("The queue's address is malformed.".into()))
    }
}

/// A pair's page, opened from the queue `query`.
pub fn item_href(item: &QueueItem, query: &str) -> String {
    format!(
        "{}&queue={}",
        pair_href(item.season, &item.account_a, &item.account_b),
        url_component(query)
    )
}

pub struct QueueRow {
    pub season: u32,
    pub a: AccountLink,
    pub b: AccountLink,
    pub href: String,
    pub score: String,
    /// "pair", or the clique and its size.
    pub group: String,
    pub group_href: Option<String>,
    pub status: &'static str,
    pub verdict: String,
}

#[derive(Template)]
#[template(path = "queue.html")]
pub struct QueuePage {
    pub me: Me,
    pub params: QueueParams,
    pub statuses: Vec<(&'static str, bool)>,
    pub rows: Vec<QueueRow>,
    pub total: u64,
    pub first: u64,
    pub last: u64,
    pub page: u64,
    pub pages: u64,
    pub prev_href: Option<String>,
    pub next_href: Option<String>,
    /// The confirmation of the verdict just recorded.
    pub recorded: Option<String>,
}

pub async fn queue(
    State(state): State<AppState>,
    me: SignedIn,
    Query(params): Query<QueueParams>,
) -> Result<Html<String>, WebError> {
    let filter = params.filter()?;
    let recorded = super::recorded_words(&state, field(&params.recorded, "Verdict")?).await?;
    let page_no = params.page()?;
    let size = params.size()?;
    let offset = (page_no - 1).saturating_mul(size);
    let found = state
        .store()
        .review_queue(&filter, margin(), offset, size)
        .await?;
    let query = params.query();
    let pages = found.total.div_ceil(size).max(1);
    let page_href = |p: u64| {
        let sep = if query.is_empty() { "" } else { "&" };
        format!("/queue?{query}{sep}page={p}")
    };
    let rows = found
        .items
        .iter()
        .map(|i| QueueRow {
            season: i.season,
            a: AccountLink::of(&i.account_a),
            b: AccountLink::of(&i.account_b),
            href: item_href(i, &query),
            score: sim(i.score),
            group: match i.clique {
                Some(k) => format!("clique {k} of {} accounts", i.group),
                None => "pair".to_owned(),
            },
            group_href: i.clique.map(|k| clique_href(i.season, k)),
            status: i.status.as_str(),
            verdict: i.verdict.map(|v| v.label().to_owned()).unwrap_or_default(),
        })
        .collect::<Vec<_>>();
    page(&QueuePage {
        me: me.me(),
        statuses: QueueStatus::ALL
            .into_iter()
            .map(|s| (s.as_str(), s == filter.status))
            .collect(),
        first: if rows.is_empty() { 0 } else { offset + 1 },
        last: offset + rows.len() as u64,
        rows,
        total: found.total,
        page: page_no,
        pages,
        prev_href: (page_no > 1).then(|| page_href(page_no - 1)),
        next_href: (page_no < pages).then(|| page_href(page_no + 1)),
        recorded,
        params,
    })
}

/// How far a known relationship must rise to re-open: the triage's.
pub fn margin() -> f64 {
    scoring::triage::DEFAULT_REOPEN_MARGIN
}

/// Where "next" goes from the pair `(a, b)` of `season` in the queue
/// `query`: the next flag's page, or the queue when none is left.
pub async fn next_href(
    state: &AppState,
    query: &str,
    season: u32,
    a: &str,
    b: &str,
) -> Result<String, WebError> {
    let params = QueueParams::from_query(query)?;
    let filter = params.filter()?;
    let next = state
        .store()
        .review_next(&filter, margin(), season, a, b)
        .await?;
    let query = params.query();
    Ok(match next {
        Some(item) => item_href(&item, &query),
        None => format!("/queue?{query}"),
    })
}

#[derive(Debug, Deserialize)]
pub struct NextParams {
    #[serde(default)]
    pub queue: String,
    pub season: u32,
    pub a: String,
    pub b: String,
}

/// `/queue/next`: skips to the flag after a pair without judging it.
pub async fn next(
    State(state): State<AppState>,
    _me: SignedIn,
    Query(p): Query<NextParams>,
) -> Result<Redirect, WebError> {
    let href = next_href(&state, &p.queue, p.season, &p.a, &p.b).await?;
    Ok(Redirect::to(&href))
}

/// The links a pair page opened from the queue shows.
pub struct QueueNav {
    /// The filters, for the verdict form.
    pub query: String,
    pub back_href: String,
    pub skip_href: String,
}

impl QueueNav {
    pub fn of(query: &str, season: u32, a: &str, b: &str) -> Result<QueueNav, WebError> {
        let query = QueueParams::from_query(query)?.query();
        Ok(QueueNav {
            back_href: format!("/queue?{query}"),
            skip_href: format!(
                "/queue/next?queue={}&season={season}&a={}&b={}",
                url_component(&query),
                url_component(a),
                url_component(b)
            ),
            query,
        })
    }
}
