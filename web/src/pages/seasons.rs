//! The seasons, each with its latest scan: flagged pairs and cliques, as the
//! report shows them, each linking to its evidence.

use super::{flagged_scan, AccountLink, VerdictRow};
use crate::auth::SignedIn;
use crate::render::{clique_href, page, pair_href, scanned, sim, Me};
use crate::{AppState, WebError};
use askama::Template;
use axum::extract::{Path, State};
use axum::response::Html;

pub struct SeasonRow {
    pub number: u32,
    pub href: String,
    pub scanned: String,
    pub participants: usize,
    pub flagged_pairs: usize,
    pub cliques: usize,
}

#[derive(Template)]
#[template(path = "index.html")]
pub struct IndexPage {
    pub me: Me,
    pub seasons: Vec<SeasonRow>,
}

pub async fn index(State(state): State<AppState>, me: SignedIn) -> Result<Html<String>, WebError> {
    let mut seasons = Vec::new();
    for number in state.store().scanned_seasons().await? {
        let scan = flagged_scan(&state, number).await?;
        seasons.push(SeasonRow {
            number,
            href: format!("/season/{number}"),
            scanned: scanned(&scan),
            participants: scan.result.participants,
            flagged_pairs: scoring::both_ways(&scan.result, false).len(),
            cliques: scan.result.cliques.len(),
        });
    }
    page(&IndexPage {
        me: me.me(),
        seasons,
    })
}

pub struct PairRow {
    pub a: AccountLink,
    pub b: AccountLink,
    pub ab: String,
    pub ba: String,
    /// [`viz::guide::same_ip_words`] of the stronger direction.
    pub same_ip: String,
    pub href: String,
    pub verdict: Option<VerdictRow>,
    /// A known relationship whose similarity rose past its decided level.
    pub reopened: bool,
}

pub struct CliqueRow {
    pub number: usize,
    pub members: Vec<AccountLink>,
    pub href: String,
    pub verdict: Option<VerdictRow>,
    /// It holds a flag to review (not only known relationships).
    pub to_review: bool,
}

#[derive(Template)]
#[template(path = "season.html")]
pub struct SeasonPage {
    pub me: Me,
    pub number: u32,
    pub scanned: String,
    /// What the similarities mean, for an improved scan.
    pub meaning: Option<String>,
    /// Which stored model version scored it, for an improved scan that
    /// recorded one.
    pub model: Option<String>,
    pub threshold: f64,
    pub participants: usize,
    pub candidate_pairs: usize,
    pub flagged: Vec<PairRow>,
    pub known: Vec<PairRow>,
    pub cliques: Vec<CliqueRow>,
}

pub async fn season(
    State(state): State<AppState>,
    me: SignedIn,
    Path(number): Path<u32>,
) -> Result<Html<String>, WebError> {
    let scan = flagged_scan(&state, number).await?;
    let verdicts = state.store().verdicts().await?;
    let model = match scan.model_version {
        Some(v) => state.store().model(v).await?.map(|m| model_words(&m)),
        None => None,
    };
    let result = &scan.result;
    let t = result.params.threshold;
    // One path for the report and the pages: scoring::triage.
    let triage = scoring::triage(
        result,
        &verdicts,
        false,
        scoring::triage::DEFAULT_REOPEN_MARGIN,
    );
    let row = |r: &scoring::BothWays, v: Option<&schema::verdict::Verdict>, reopened: bool| {
        let shown = |p: Option<&schema::PairScore>| {
            p.map(|p| {
                let mark = if p.similarity >= t { " *" } else { "" };
                format!("{}{mark}", sim(p.similarity))
            })
            .unwrap_or_else(|| "-".to_owned())
        };
        PairRow {
            a: AccountLink::of(r.a),
            b: AccountLink::of(r.b),
            ab: shown(r.ab),
            ba: shown(r.ba),
            same_ip: viz::guide::stronger(r).map_or_else(
                || "-".to_owned(),
                |p| {
                    viz::guide::same_ip_words(
                        p.evidence.same_ip.count,
                        &p.account_a,
                        result.params.bucket_seconds,
                    )
                },
            ),
            href: pair_href(number, r.a, r.b),
            verdict: v.map(VerdictRow::of),
            reopened,
        }
    };
    let flagged = triage
        .flags
        .iter()
        .map(|f| row(&f.pair, f.verdict, f.reopened))
        .collect();
    let known = triage
        .known
        .iter()
        .map(|k| row(&k.pair, Some(k.verdict), false))
        .collect();
    let cliques = result
        .cliques
        .iter()
        .enumerate()
        .map(|(i, c)| CliqueRow {
            number: i + 1,
            members: c.members.iter().map(|m| AccountLink::of(m)).collect(),
            href: clique_href(number, i + 1),
            to_review: triage.cliques.iter().any(|r| r.number == i + 1),
            verdict: scoring::triage::clique_verdict(&verdicts, &c.members).map(VerdictRow::of),
        })
        .collect();
    page(&SeasonPage {
        me: me.me(),
        number,
        scanned: scanned(&scan),
        meaning: (result.params.mode == schema::Mode::Improved)
            .then(|| scan_model_words(&scan))
            .transpose()?,
        model,
        threshold: t,
        participants: result.participants,
        candidate_pairs: result.candidate_pairs,
        flagged,
        known,
        cliques,
    })
}

/// The model a scan scored with ([`scoring::improved::Model::recorded`]):
/// the one its words and its weights are shown by.
pub(super) fn scan_model(
    scan: &store::StoredScan,
) -> Result<std::borrow::Cow<'static, scoring::improved::Model>, WebError> {
    scoring::improved::Model::recorded(scan.model.as_deref())
        .map_err(|e| WebError::Internal(format!("the model scan {} recorded: {e}", scan.id)))
}

/// What an improved scan's similarities mean, by the model it recorded
/// (its name and how it was measured or fitted).
fn scan_model_words(scan: &store::StoredScan) -> Result<String, WebError> {
    Ok(scoring::improved::score_words(&*scan_model(scan)?))
}

/// Which stored model version scored a scan, where it came from and when
/// it was added.
fn model_words(m: &store::StoredModel) -> String {
    let added = chrono::DateTime::from_timestamp(m.added_at, 0).map_or_else(
        || m.added_at.to_string(),
        |t| t.format("%Y-%m-%d %H:%M UTC").to_string(),
    );
    format!(
        "Scored with model version {} ({}): {}, added {added} by {}.",
        m.version, m.name, m.source, m.added_by
    )
}
