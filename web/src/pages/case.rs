//! A case to export for an appeal: one self-contained HTML file of a pair
//! or a clique (the scores, the evidence in words, the timeline, the verdict
//! history with who, when and why), downloaded from its page. It holds no
//! raw IP address (the season's pseudonyms only), no script and no link to
//! anything outside the file: the stylesheet is inside it, the timeline is
//! inline SVG. [`case_file`] builds it, for the page's download and for
//! `detect case export` alike.

use super::clique::timeline_svg;
use super::{latest_scan, VerdictRow};
use crate::auth::SignedIn;
use crate::render::{scanned, sim, when};
use crate::{AppState, WebError};
use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use schema::Segments;
use serde::Deserialize;
use store::StoredScan;

/// The strongest buckets the evidence lists per direction (as the pair page).
const TOP_BUCKETS: usize = 12;

pub struct CasePair {
    pub a: String,
    pub b: String,
    pub ab: String,
    pub ba: String,
    pub flagged: bool,
}

pub struct CaseEvidence {
    pub title: String,
    pub text: String,
}

#[derive(Template)]
#[template(path = "case.html")]
pub struct CaseFile {
    pub title: String,
    pub css: &'static str,
    pub exported_by: String,
    pub exported_at: String,
    pub scanned: String,
    pub threshold: f64,
    pub members: Vec<String>,
    pub pairs: Vec<CasePair>,
    pub evidence: Vec<CaseEvidence>,
    pub timeline_svg: String,
    pub history: Vec<VerdictRow>,
}

#[derive(Debug, Deserialize)]
pub struct CaseQuery {
    pub season: Option<u32>,
}

/// Which case to build: a pair of accounts or the K-th clique (from 1) of
/// a season's latest scan.
#[derive(Debug, Clone)]
pub enum CaseOf {
    Pair { a: String, b: String },
    Clique(usize),
}

/// A case file built: its title (what the audit records), the file name
/// to save it as, and the self-contained HTML document.
#[derive(Debug, Clone)]
pub struct CaseExport {
    pub title: String,
    pub file_name: String,
    pub html: String,
}

/// `/pair/{a}/{b}/case`: the case of a pair.
pub async fn pair_case(
    State(state): State<AppState>,
    me: SignedIn,
    Path((a, b)): Path<(String, String)>,
    Query(q): Query<CaseQuery>,
) -> Result<Response, WebError> {
    let season = super::pair::season_of_pair(&state, &a, &b, q.season).await?;
    export(&state, &me, season, CaseOf::Pair { a, b }).await
}

/// `/clique/{season}/{k}/case`: the case of a clique.
pub async fn clique_case(
    State(state): State<AppState>,
    me: SignedIn,
    Path((season, k)): Path<(u32, usize)>,
) -> Result<Response, WebError> {
    export(&state, &me, season, CaseOf::Clique(k)).await
}

/// The case `of` in `season`'s latest scan, built by [`case_file`] (as
/// `detect case export` builds it), audited and sent as an attachment.
async fn export(
    state: &AppState,
    me: &SignedIn,
    season: u32,
    of: CaseOf,
) -> Result<Response, WebError> {
    let scan = latest_scan(state, season).await?;
    let segments = state.segments(scan.result.params.bucket_seconds).await?;
    let now = chrono::Utc::now().timestamp();
    let case = case_file(state.store(), &scan, &segments, &of, &me.user.name, now).await?;
    state
        .store()
        .record_audit(&me.user.name, "export-case", &case.title)
        .await?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{}\"", case.file_name),
            ),
        ],
        case.html,
    )
        .into_response())
}

/// The case file of `of` in `scan` (a season's latest), exported by
/// `exported_by` at `exported_at` (epoch seconds): the one builder of the
/// web's download and of `detect case export`. Fails (not found) on a pair
/// the scan did not score or a clique it does not hold.
pub async fn case_file(
    store: &store::Store,
    scan: &StoredScan,
    segments: &Segments,
    of: &CaseOf,
    exported_by: &str,
    exported_at: i64,
) -> Result<CaseExport, WebError> {
    let season = scan.season.number;
    let (members, title, file_name, mut history) = match of {
        CaseOf::Pair { a, b } => {
            let members = vec![a.clone(), b.clone()];
            if pairs_among(scan, &members).is_empty() {
                return Err(WebError::NotFound(format!(
                    "{a} and {b} are not a scored pair of season {season}."
                )));
            }
            let history = store.verdicts_for_pair(a, b).await?;
            let title = format!("Season {season}: {a} and {b}");
            (
                members,
                title,
                format!("case-season{season}-{a}-{b}.html"),
                history,
            )
        }
        CaseOf::Clique(k) => {
            let Some(clique) = k.checked_sub(1).and_then(|i| scan.result.cliques.get(i)) else {
                return Err(WebError::NotFound(format!(
                    "Season {season} has no clique {k} in its latest scan."
                )));
            };
            let members = clique.members.clone();
            let history = store
                .verdicts()
                .await?
                .into_iter()
                .filter(|v| v.accounts.iter().all(|x| members.contains(x)))
                .collect();
            let title = format!("Season {season}, clique {k}: {}", members.join(", "));
            (
                members,
                title,
                format!("case-season{season}-clique{k}.html"),
                history,
            )
        }
    };
    let result = &scan.result;
    let pseudonyms = store.season_pseudonyms(&scan.season, segments).await?;
    let pairs = pairs_among(scan, &members);
    let evidence = evidence(scan, segments, &pairs, members.len() == 2, &pseudonyms)?;
    let names: Vec<&str> = members.iter().map(String::as_str).collect();
    let timeline_svg = timeline_svg(
        segments,
        &scan.season,
        &names,
        false,
        &pseudonyms,
        Some(result),
    );
    schema::verdict::newest_first(&mut history);
    let file = CaseFile {
        title: title.clone(),
        css: include_str!("../../templates/style.css"),
        exported_by: exported_by.to_owned(),
        exported_at: when(exported_at),
        scanned: scanned(scan),
        threshold: result.params.threshold,
        members,
        pairs,
        evidence,
        timeline_svg,
        history: history.iter().map(VerdictRow::of).collect(),
    };
    let html = file
        .render()
        .map_err(|e| WebError::Internal(format!("cannot render a case: {e}")))?;
    Ok(CaseExport {
        title,
        file_name: safe_file_name(&file_name),
        html,
    })
}

/// The unordered pairs among `members` the scan scored.
fn pairs_among(scan: &StoredScan, members: &[String]) -> Vec<CasePair> {
    let t = scan.result.params.threshold;
    let shown = |p: Option<&schema::PairScore>| p.map_or("-".to_owned(), |p| sim(p.similarity));
    scoring::both_ways(&scan.result, true)
        .into_iter()
        .filter(|r| members.iter().any(|m| m == r.a) && members.iter().any(|m| m == r.b))
        .map(|r| CasePair {
            a: r.a.to_owned(),
            b: r.b.to_owned(),
            ab: shown(r.ab),
            ba: shown(r.ba),
            flagged: r.max() >= t,
        })
        .collect()
}

/// The evidence of each flagged pair among `pairs` (of a lone pair, flagged
/// or not), with the season's pseudonyms for its IPs.
fn evidence(
    scan: &StoredScan,
    segments: &Segments,
    pairs: &[CasePair],
    lone_pair: bool,
    pseudonyms: &schema::IpPseudonyms,
) -> Result<Vec<CaseEvidence>, WebError> {
    let model = super::seasons::scan_model(scan)?;
    let mut evidence = Vec::new();
    for p in pairs.iter().filter(|p| p.flagged || lone_pair) {
        let text = viz::explain(
            segments,
            &scan.season,
            (&scan.result, &model),
            &p.a,
            &p.b,
            TOP_BUCKETS,
            false,
            pseudonyms,
        )
        .map_err(|e| WebError::NotFound(e.to_string()))?;
        evidence.push(CaseEvidence {
            title: format!("{} and {}", p.a, p.b),
            text,
        });
    }
    Ok(evidence)
}

/// A file name with only letters, digits, `.`, `-` and `_` (others become
/// `_`), so an account's name cannot break the header or reach a directory.
fn safe_file_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_keep_only_safe_characters() {
        assert_eq!(
            safe_file_name("case-season1-<a>\"/..\\b\r\n.html"),
            "case-season1-_a___.._b__.html"
        );
    }
}
