//! A clique of a season's latest scan: members, their pairs, the timeline,
//! a verdict on the whole clique, and what became of its accounts in the
//! next season.

use super::reveal;
use super::{latest_scan, verdict_choices, AccountLink, VerdictRow};
use crate::auth::SignedIn;
use crate::render::{page, pair_href, sim, Me};
use crate::{AppState, WebError};
use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::Html;
use schema::{IpPseudonyms, ScanResult, Season, Segments};
use serde::Deserialize;

/// The SVG timeline of some accounts within a scan's season, as markup to
/// put inline (the `svg` crate escapes every name in it). IPs carry the
/// season's stored pseudonyms, the same names as in `explain` and reports;
/// the buckets that weighed most in `result`'s flagged pairs among them
/// are starred, as in the report.
pub fn timeline_svg(
    segments: &Segments,
    season: &Season,
    members: &[&str],
    show_ips: bool,
    pseudonyms: &IpPseudonyms,
    result: Option<&ScanResult>,
) -> String {
    pictures(segments, season, members, show_ips, pseudonyms, result).timeline
}

/// The overview of days played and the timeline of some accounts, drawn
/// with the same options (see [`timeline_svg`]), as the report draws a
/// clique's.
pub fn pictures(
    segments: &Segments,
    season: &Season,
    members: &[&str],
    show_ips: bool,
    pseudonyms: &IpPseudonyms,
    result: Option<&ScanResult>,
) -> viz::CliquePictures {
    let known: Vec<&str> = members
        .iter()
        .copied()
        .filter(|m| segments.accounts.get(m).is_some())
        .collect();
    let opts = viz::TimelineOptions {
        show_ips,
        from: season.from,
        to: season.to,
        title: format!("Season {}: {}", season.number, members.join(", ")),
        pseudonyms: Some(pseudonyms.clone()),
        highlights: result.map_or_else(Vec::new, |r| viz::timeline::strongest_buckets(r, members)),
    };
    viz::CliquePictures {
        overview: viz::overview(segments, &known, &opts).to_string(),
        timeline: viz::timeline(segments, &known, &opts).to_string(),
    }
}

pub struct CliquePair {
    pub a: AccountLink,
    pub b: AccountLink,
    pub ab: String,
    pub ba: String,
    pub flagged: bool,
    pub href: String,
}

/// One member's next season.
pub struct NextSeasonRow {
    pub member: AccountLink,
    pub played: bool,
    /// Flagged pairs of the member in the next season.
    pub flagged_with: Vec<AccountLink>,
    /// Whether one of them is a member of this clique.
    pub with_clique_mate: bool,
}

#[derive(Template)]
#[template(path = "clique.html")]
pub struct CliquePage {
    pub me: Me,
    pub season: u32,
    pub number: usize,
    pub members: Vec<AccountLink>,
    pub pairs: Vec<CliquePair>,
    /// Days played, as the report's overview.
    pub overview_svg: String,
    pub timeline_svg: String,
    pub history: Vec<VerdictRow>,
    pub recorded: Option<String>,
    pub choices: Vec<(&'static str, &'static str)>,
    pub next_season: u32,
    /// `None` when the next season has no scan.
    pub next: Option<Vec<NextSeasonRow>>,
    pub revealed: bool,
    pub reveal_href: String,
    /// The case file to download for an appeal.
    pub case_href: String,
}

#[derive(Debug, Deserialize)]
pub struct CliqueQuery {
    #[serde(default)]
    pub reveal: Option<String>,
    /// The verdict just recorded, confirmed on the page.
    #[serde(default)]
    pub recorded: Option<i64>,
}

pub async fn clique(
    State(state): State<AppState>,
    me: SignedIn,
    Path((season, k)): Path<(u32, usize)>,
    Query(q): Query<CliqueQuery>,
) -> Result<Html<String>, WebError> {
    let scan = latest_scan(&state, season).await?;
    let result = &scan.result;
    let Some(clique) = k.checked_sub(1).and_then(|i| result.cliques.get(i)) else {
        return Err(WebError::NotFound(format!(
            "Season {season} has no clique {k} in its latest scan."
        )));
    };
    let members: Vec<&str> = clique.members.iter().map(String::as_str).collect();
    let target = format!("season {season} clique {k}: {}", members.join(", "));
    let revealed = reveal(&state, &me, q.reveal.as_deref(), &target).await?;
    state
        .store()
        .record_audit(&me.user.name, "view-clique", &target)
        .await?;
    let t = result.params.threshold;
    let pairs = scoring::both_ways(result, true)
        .into_iter()
        .filter(|r| members.contains(&r.a) && members.contains(&r.b))
        .map(|r| {
            let shown =
                |p: Option<&schema::PairScore>| p.map_or("-".to_owned(), |p| sim(p.similarity));
            CliquePair {
                flagged: [r.ab, r.ba].iter().flatten().any(|p| p.similarity >= t),
                ab: shown(r.ab),
                ba: shown(r.ba),
                href: pair_href(season, r.a, r.b),
                a: AccountLink::of(r.a),
                b: AccountLink::of(r.b),
            }
        })
        .collect();
    let segments = state.segments(result.params.bucket_seconds).await?;
    let pseudonyms = state
        .store()
        .season_pseudonyms(&scan.season, &segments)
        .await?;
    let drawn = pictures(
        &segments,
        &scan.season,
        &members,
        revealed,
        &pseudonyms,
        Some(&scan.result),
    );
    let mut history: Vec<_> = state
        .store()
        .verdicts()
        .await?
        .into_iter()
        .filter(|v| v.accounts.iter().all(|x| members.contains(&x.as_str())))
        .collect();
    schema::verdict::newest_first(&mut history);
    let next = next_season(&state, season + 1, &members).await?;
    page(&CliquePage {
        me: me.me(),
        season,
        number: k,
        members: members.iter().map(|m| AccountLink::of(m)).collect(),
        pairs,
        overview_svg: drawn.overview,
        timeline_svg: drawn.timeline,
        history: history.iter().map(VerdictRow::of).collect(),
        recorded: super::recorded_words(&state, q.recorded).await?,
        choices: verdict_choices(),
        next_season: season + 1,
        next,
        revealed,
        reveal_href: format!("/clique/{season}/{k}?reveal=1"),
        case_href: format!("/clique/{season}/{k}/case"),
    })
}

/// Which members played in season `next` (they are participants of its
/// latest scan) and whom they are flagged with there.
async fn next_season(
    state: &AppState,
    next: u32,
    members: &[&str],
) -> Result<Option<Vec<NextSeasonRow>>, WebError> {
    let Some(scan) = state.store().latest_scan(next).await? else {
        return Ok(None);
    };
    let segments = state.segments(scan.result.params.bucket_seconds).await?;
    let participants = scoring::participants(&segments, &scan.season)
        .map_err(|e| WebError::Internal(e.to_string()))?;
    let played = |m: &str| {
        segments
            .accounts
            .get(m)
            .is_some_and(|id| participants.contains(&id))
    };
    let flagged = scoring::both_ways(&scan.result, false);
    Ok(Some(
        members
            .iter()
            .map(|&m| {
                let with: Vec<&str> = flagged
                    .iter()
                    .filter_map(|r| match (r.a == m, r.b == m) {
                        (true, _) => Some(r.b),
                        (_, true) => Some(r.a),
                        _ => None,
                    })
                    .collect();
                NextSeasonRow {
                    member: AccountLink::of(m),
                    played: played(m),
                    with_clique_mate: with.iter().any(|w| members.contains(w)),
                    flagged_with: with.iter().map(|w| AccountLink::of(w)).collect(),
                }
            })
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use schema::Segment;
    use std::collections::HashMap;

    /// The timeline names an address by the season's stored pseudonym, not
    /// by its order in the picture, so it agrees with `explain`.
    #[test]
    fn the_timeline_uses_the_seasons_pseudonyms() {
        let mut segments = Segments::new(1800);
        let a = segments.accounts.intern("alice");
        let ip = segments.ips.intern("192.0.2.7");
        segments.by_account.resize(a as usize + 1, Vec::new());
        segments.by_account[a as usize].push(Segment {
            bucket: 0,
            moves: vec![(ip, 1)].into(),
            stalls: 0,
            stall_ip: None,
        });
        let season = Season::new(1, None, None, None).unwrap();
        let pseudonyms = IpPseudonyms::new(HashMap::from([(ip, 7)]));
        let svg = timeline_svg(&segments, &season, &["alice"], false, &pseudonyms, None);
        assert!(svg.contains("IP-7"), "{svg}");
        assert!(
            !svg.contains("IP-1<") && !svg.contains("192.0.2.7"),
            "{svg}"
        );
    }
}
