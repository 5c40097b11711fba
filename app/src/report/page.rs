//! The report page's one model: [`PageSource`] names everything a page is
//! made from (the season, the scan sorted against the verdicts, the
//! segments for its pictures and evidence), [`report_page`] turns it and
//! the drawn pictures into the one [`viz::ReportPage`] value, and
//! [`viz::report_html`] writes it, once. Standard output (`report --format
//! html`, [`page_html`]) and a report directory (`report --out`, the
//! daemon, the demo: [`super::pictures::write_report_dir`]) differ only in
//! whether the pictures are files beside the page.

use super::known::Reviewed;
use super::pictures::{page_parts, PageParts};
use super::{describe_scan, ScanInfo};
use anyhow::Result;
use schema::{IpPseudonyms, Season, Segments};

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
        title: format!("detect: season {}", src.season.number),
        season: src.season.number,
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
