//! The report page's one model: [`PageSource`] names everything a page is
//! made from (the season, the scan sorted against the verdicts, the
//! segments for its pictures and evidence), [`report_page`] turns it and
//! the drawn pictures into the one [`viz::ReportPage`] value, and
//! [`viz::report_html`] writes it, once. Standard output (`report --format
//! html`, [`page_html`]) and a report directory (`report --out`, the
//! daemon, the demo: [`super::pictures::write_report_dir`]) differ only in
//! whether the pictures are files beside the page.

use super::known::Reviewed;
use super::picture_cache::{self, PictureCache};
use super::{describe_scan, ScanInfo};
use anyhow::Result;
use rayon::prelude::*;
use schema::{IpPseudonyms, ScanResult, Season, Segments};
use std::collections::BTreeMap;

/// What a report page is made from.
pub struct PageSource<'a> {
    pub season: &'a Season,
    /// Where the scan came from, for the page's footer.
    pub info: &'a ScanInfo,
    /// The scan sorted against the verdicts: the page shows the part to
    /// review, the known relationships and the verdicts apart.
    pub reviewed: &'a Reviewed<'a>,
    pub segments: &'a Segments,
    pub pseudonyms: &'a IpPseudonyms,
    /// Raw IP addresses in the pictures and evidence instead of pseudonyms.
    pub show_ips: bool,
    /// Every directed pair's similarity, for the distribution chart, when
    /// the scan holds only some (a rescan).
    pub similarities: Option<&'a [f64]>,
}

/// `all` less one value equal to each of `drop` (a multiset difference:
/// pairs of equal similarity are one point of the chart as much as another).
fn without(all: &[f64], drop: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut left: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
    for x in drop {
        *left.entry(x.to_bits()).or_default() += 1;
    }
    all.iter()
        .copied()
        .filter(|x| match left.get_mut(&x.to_bits()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect()
}

/// The files a page's pictures were written to, beside it.
pub struct PageFiles {
    /// Per clique, index-aligned with the scan's cliques.
    pub clique_svgs: Vec<String>,
    pub distribution_svg: String,
}

/// The report page of `src`, with the pictures and evidence in `parts` and,
/// in a report directory, the `files` they were written to.
pub fn report_page<'a>(
    src: &PageSource<'a>,
    parts: PageParts,
    files: Option<PageFiles>,
) -> viz::ReportPage<'a> {
    let (clique_svgs, distribution_svg) = match files {
        Some(f) => (f.clique_svgs, Some(f.distribution_svg)),
        None => (Vec::new(), None),
    };
    viz::ReportPage {
        title: format!("detect: {}", src.info.title(src.season)),
        season: (!src.info.no_season).then_some(src.season.number),
        result: &src.reviewed.to_review,
        clique_svgs,
        clique_pictures: parts.pictures,
        distribution_svg,
        distribution_inline: Some(parts.distribution),
        evidence: parts.evidence,
        generated_note: footer(src),
        verdicts: Some(viz::Verdicts {
            triage: &src.reviewed.triage,
            margin: src.reviewed.margin,
        }),
        directed_pairs: Some(parts.directed_pairs),
    }
}

/// The page's foot: `Scan #3 of 2026-05-01 10:00:00 UTC; games ^4pLeague_S7_,
/// all time.`
fn footer(src: &PageSource) -> String {
    let line = describe_scan(src.season, src.info);
    let mut chars = line.chars();
    let first = chars.next().map(|c| c.to_uppercase().collect::<String>());
    format!("{}{}.", first.unwrap_or_default(), chars.as_str())
}

/// The report page of `src` as one self-contained document (pictures
/// inline), for standard output.
pub fn page_html(src: &PageSource) -> Result<String> {
    let parts = page_parts(src, None)?;
    Ok(viz::report_html(&report_page(src, parts, None)))
}

/// How many of the strongest buckets the evidence of a pair lists per
/// direction in the HTML report.
const EVIDENCE_BUCKETS: usize = 10;

/// The pictures and evidence of a report page, drawn once for the page and
/// the files beside it.
pub struct PageParts {
    /// Per clique: its timeline (also written as `clique-K.svg`) and
    /// overview, as SVG text (each drawing is dropped once written out: a
    /// season of 801 cliques held 9 GB of drawings).
    pub pictures: Vec<viz::CliquePictures>,
    /// Per clique: the key its pictures were drawn for
    /// ([`picture_cache::key`]).
    pub keys: Vec<String>,
    /// Per clique: whether its pictures were read back from an earlier
    /// report, not drawn (its timeline then only up to its root element:
    /// the file is not written again).
    pub kept: Vec<bool>,
    /// The distribution chart, as SVG text.
    pub distribution: String,
    /// The directed pairs the chart shows: every pair the scan scored but
    /// the known relationships'.
    pub directed_pairs: usize,
    /// `detect explain` of each flagged pair, by (a, b) with a < b.
    pub evidence: BTreeMap<(String, String), String>,
}

/// Draws the clique pictures (with the season's IP pseudonyms and the
/// strongest buckets marked), the distribution chart, and the evidence of
/// every flagged pair of the scan `src` shows. The chart shows
/// `src.similarities`, every directed pair's, when the scan holds only some
/// pairs (after a rescan); else those of the scan.
pub fn page_parts(src: &PageSource, cache: Option<&PictureCache>) -> Result<PageParts> {
    let season = src.season;
    let result: &ScanResult = &src.reviewed.to_review;
    let started = std::time::Instant::now();
    let (pictures, keys, kept) = clique_pictures(src, cache);
    let drawn = started.elapsed();
    let sims: Vec<f64> = match src.similarities {
        // Every pair's but the known relationships', which the scan's own
        // pairs leave out (`to_review`): the same chart either way.
        Some(s) => without(
            s,
            src.reviewed
                .triage
                .known
                .iter()
                .flat_map(|k| [k.pair.ab, k.pair.ba])
                .flatten()
                .map(|p| p.similarity),
        ),
        None => result.pairs.iter().map(|p| p.similarity).collect(),
    };
    let distribution = viz::distribution(
        &sims,
        result.params.threshold,
        &format!(
            "{}: similarity of every directed pair",
            src.info.title(season)
        ),
    )
    .to_string();
    let evidence = flagged_evidence(src)?;
    tracing::debug!(
        pictures_ms = drawn.as_millis() as u64,
        evidence_ms = (started.elapsed() - drawn).as_millis() as u64,
        "page parts ready"
    );
    Ok(PageParts {
        pictures,
        keys,
        kept,
        distribution,
        directed_pairs: sims.len(),
        evidence,
    })
}

/// Each clique's pictures, their keys, and whether they were kept from
/// `cache`, drawn on every core, in clique order.
fn clique_pictures(
    src: &PageSource,
    cache: Option<&PictureCache>,
) -> (Vec<viz::CliquePictures>, Vec<String>, Vec<bool>) {
    let (season, segments) = (src.season, src.segments);
    let result: &ScanResult = &src.reviewed.to_review;
    // The pictures mark the strongest buckets of the flagged pairs: those
    // picked out once, not every pair of the scan read for each clique (at
    // ten million moves 1.3M pairs for each of 1,300 cliques, 17 s).
    let flagged = ScanResult {
        pairs: result.flagged().cloned().collect(),
        cliques: Vec::new(),
        crowded: Vec::new(),
        ..*result
    };
    // "Season 7", or "Logs read into memory" (never "Season 0").
    let what = src.info.title(season);
    let drawn: Vec<(viz::CliquePictures, String, bool)> = result
        .cliques
        .par_iter()
        .enumerate()
        .map(|(k, clique)| {
            let members: Vec<&str> = clique.members.iter().map(String::as_str).collect();
            let opts = viz::TimelineOptions {
                show_ips: src.show_ips,
                from: season.from,
                to: season.to,
                title: format!("{what}, clique {}: {}", k + 1, clique.members.join(", ")),
                pseudonyms: Some(src.pseudonyms.clone()),
                highlights: viz::timeline::strongest_buckets(&flagged, &members),
            };
            let key = picture_cache::key(segments, &members, &opts);
            let kept = cache.and_then(|c| c.get(k + 1, &key));
            let is_kept = kept.is_some();
            let pictures = kept.unwrap_or_else(|| viz::CliquePictures {
                overview: viz::overview(segments, &members, &opts).to_string(),
                timeline: viz::timeline(segments, &members, &opts).to_string(),
            });
            (pictures, key, is_kept)
        })
        .collect();
    let mut pictures = Vec::with_capacity(drawn.len());
    let mut keys = Vec::with_capacity(drawn.len());
    let mut kept = Vec::with_capacity(drawn.len());
    for (p, key, k) in drawn {
        pictures.push(p);
        keys.push(key);
        kept.push(k);
    }
    (pictures, keys, kept)
}

/// `detect explain` of each pair flagged either way, by (a, b) with a < b,
/// on every core; each pair's scores are those `both_ways` gathered.
fn flagged_evidence(src: &PageSource) -> Result<BTreeMap<(String, String), String>> {
    let season = src.season;
    let result: &ScanResult = &src.reviewed.to_review;
    let model = src.info.model()?;
    scoring::both_ways(result, false)
        .par_iter()
        .map(|row| {
            let pair = viz::Scored {
                names: (row.a, row.b),
                scores: (row.ab, row.ba),
                params: &result.params,
                model: &model,
            };
            let text = viz::explain_scored(
                src.segments,
                season,
                pair,
                EVIDENCE_BUCKETS,
                src.show_ips,
                src.pseudonyms,
            )?;
            let text = if src.info.no_season {
                without_season(text, season)
            } else {
                text
            };
            Ok(((row.a.to_owned(), row.b.to_owned()), text))
        })
        .collect()
}

/// The evidence of a pair read from logs without a season: its first line
/// names no season ("ann and ben (reference mode, ...)"), as the page's
/// title does not.
fn without_season(text: String, season: &Season) -> String {
    text.replacen(&format!(", season {} (", season.number), " (", 1)
}

#[cfg(test)]
mod tests {
    use super::without;

    #[test]
    fn without_drops_one_equal_value_for_each() {
        let all = [0.5, 0.9, 0.9, 0.95, 0.2];
        assert_eq!(
            without(&all, [0.9, 0.95, 0.7].into_iter()),
            vec![0.5, 0.9, 0.2]
        );
        assert_eq!(without(&all, std::iter::empty()), all.to_vec());
    }
}
