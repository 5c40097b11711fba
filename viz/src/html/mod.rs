//! The HTML report of a scan: one page, readable without JavaScript, with
//! inline CSS and inline SVG (so the pictures' tooltips work). It shows
//! account names (pseudonymous by nature) and never raw IP addresses unless
//! the caller drew its pictures with them.
//!
//! Layout, top to bottom: the title, a table of contents (every section),
//! "how to read this" ([`crate::guide`]), the summary, the flagged pairs
//! (each linking to its evidence), the verdict sections ([`crate::known`]:
//! flagged pairs with a verdict, known relationships), the score
//! distribution, the cliques (`cliques.rs`: members, a folded table of their
//! pairs, an overview of days played and the detailed per-IP timeline,
//! folded; in a report directory a lazy frame of its file), and the
//! evidence of every flagged pair (`evidence.rs`: a fold per pair,
//! `id="pair-N"`, its summary line visible). The page fits an 800-px window
//! (tables wrap, pictures scroll in their own box) and prints.
//!
//! The page is well-formed XML too (self-closed void elements, no named
//! entities beyond XML's), so tools can parse it as XHTML.

use crate::escape::html as esc;
use crate::fmt::{decimal, percent};
use crate::guide::{self, pair_anchor, PAIR_COLUMNS};
use schema::{PairScore, ScanResult};
use scoring::BothWays;
use std::collections::BTreeMap;
use std::fmt::Write;

mod cliques;
mod evidence;

/// The pictures of one clique, as inline SVG markup made by this crate
/// ([`crate::overview()`], [`crate::timeline()`]).
#[derive(Debug, Clone, Default)]
pub struct CliquePictures {
    pub overview: String,
    pub timeline: String,
}

/// What the report page shows.
#[derive(Debug, Clone)]
pub struct ReportPage<'a> {
    pub title: String,
    /// The season's number; `None` for logs read into memory without one
    /// (the page is then titled by `title` alone, never "Season 0").
    pub season: Option<u32>,
    pub result: &'a ScanResult,
    /// File names (relative links) of the clique timelines, e.g.
    /// `clique-1.svg`, index-aligned with `result.cliques`, offered as "open
    /// alone"; may be empty.
    pub clique_svgs: Vec<String>,
    /// The clique pictures shown in the page, index-aligned with
    /// `result.cliques`. Cliques past its end are shown without a picture.
    pub clique_pictures: Vec<CliquePictures>,
    /// File name of the distribution chart, if written.
    pub distribution_svg: Option<String>,
    /// The distribution chart as inline SVG markup, if drawn.
    pub distribution_inline: Option<String>,
    /// The evidence of pairs (the text of `detect explain`), by unordered
    /// pair `(a, b)` with `a < b`.
    pub evidence: BTreeMap<(String, String), String>,
    /// A line about how the report was made (e.g. scan parameters), shown
    /// at the foot of the page; supplied by the caller so the page stays
    /// deterministic.
    pub generated_note: String,
    /// The scan sorted against the moderators' verdicts, for the sections
    /// of known relationships and of flagged pairs with a verdict, and the
    /// verdict on each pair's evidence; `None` where no verdict applies.
    pub verdicts: Option<Verdicts<'a>>,
    /// How many directed pairs the scan scored, when `result` holds only
    /// some of them (a daemon's report after a rescan holds the flagged
    /// ones): the summary's share of flagged pairs is of these. `None`:
    /// `result`'s pairs are all of them.
    pub directed_pairs: Option<usize>,
}

/// The verdicts a report page shows.
#[derive(Debug, Clone, Copy)]
pub struct Verdicts<'a> {
    pub triage: &'a scoring::Triage<'a>,
    /// How far a known relationship's similarity must rise to re-open.
    pub margin: f64,
}

const CSS: &str = "\
*, *::before, *::after { box-sizing: border-box; }
body { font-family: sans-serif; margin: 1.5em auto; max-width: 78em; padding: 0 1em; color: #222; line-height: 1.4; }
h1 { margin-bottom: 0.2em; }
h2 { margin-top: 1.6em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5em 0 1.2em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
thead th { background: #f0f0f0; }
th small { display: block; font-weight: normal; color: #555; }
table.pairs { width: 100%; }
.flag { font-weight: bold; color: #a11; }
.note { color: #555; }
nav.toc { background: #f7f7f7; border: 1px solid #ddd; padding: 0.5em 1em; }
nav.toc ol { margin: 0.2em 0; padding-left: 1.4em; }
.guide p { margin: 0.4em 0; }
.guide { border-left: 4px solid #e69f00; padding-left: 0.8em; }
.clique { border-top: 1px solid #ddd; padding-top: 0.3em; }
.clique h3 { margin: 0.3em 0 0.1em; }
.clique p { margin: 0.2em 0; }
.clique details > summary { margin: 0.2em 0; }
nav.toc ol ol li { display: inline; }
nav.toc ol ol li + li::before { content: \" \\00b7  \"; }
nav.toc ol ol { padding-left: 0.4em; }
.figure { overflow-x: auto; max-width: 100%; border: 1px solid #ddd; margin: 0.5em 0; }
.figure svg { display: block; }
.figure svg.chart, .figure svg.overview { max-width: 100%; height: auto; }
details > summary { cursor: pointer; font-weight: bold; margin: 0.5em 0; }
details.pair-evidence { border-bottom: 1px solid #eee; }
details.pair-evidence > summary { font-weight: normal; margin: 0.2em 0; overflow-wrap: anywhere; }
iframe.timeline { display: block; border: none; max-width: none; }
pre.evidence { white-space: pre-wrap; overflow-wrap: anywhere; background: #f7f7f7; padding: 0.6em; border: 1px solid #ddd; }
footer { margin-top: 2em; color: #555; font-size: 0.9em; }
@media (max-width: 900px) {
  body { padding: 0 0.4em; font-size: 14px; }
  th, td { padding: 0.2em 0.3em; }
}
@media print {
  nav.toc, a.back { display: none; }
  .figure { overflow: visible; border: none; }
  tr, pre.evidence { page-break-inside: avoid; }
}
";

/// The report page as a complete HTML5 document.
pub fn report_html(page: &ReportPage) -> String {
    let r = page.result;
    let rows = scoring::both_ways(r, false);
    let title = esc(&page.title);
    let mut h = String::new();
    // `write!` to a String cannot fail.
    let note = match page.season {
        Some(n) => format!("Season {n}"),
        None => "Logs read into memory, not a stored season".to_owned(),
    };
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\" />\n\
         <title>{title}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n\
         <h1>{title}</h1>\n<p class=\"note\">{note}</p>\n"
    );
    contents(&mut h, page, rows.len());
    how_to_read(&mut h, r);
    summary(&mut h, r, page.directed_pairs.unwrap_or(r.pairs.len()));
    pairs(&mut h, r, &rows);
    if let Some(v) = &page.verdicts {
        h.push_str(&crate::known::verdict_sections_html(v.triage, v.margin));
    }
    distribution(&mut h, page);
    cliques::cliques(&mut h, page, &rows);
    evidence::evidence(&mut h, page, &rows);
    crowded(&mut h, r);
    let _ = write!(
        h,
        "<footer>\n<p>{}</p>\n</footer>\n</body>\n</html>\n",
        esc(&page.generated_note)
    );
    h
}

fn contents(h: &mut String, page: &ReportPage, flagged: usize) {
    h.push_str(
        "<nav class=\"toc\" id=\"contents\">\n<strong>Contents</strong>\n<ol>\n\
         <li><a href=\"#how-to-read\">How to read this report</a></li>\n\
         <li><a href=\"#summary\">Summary</a></li>\n",
    );
    let _ = writeln!(
        h,
        "<li><a href=\"#pairs\">Flagged pairs ({flagged})</a></li>"
    );
    if let Some(v) = &page.verdicts {
        for (id, title) in crate::known::sections(v.triage) {
            let _ = writeln!(h, "<li><a href=\"#{id}\">{title}</a></li>");
        }
    }
    if page.distribution_inline.is_some() || page.distribution_svg.is_some() {
        h.push_str("<li><a href=\"#distribution\">Score distribution</a></li>\n");
    }
    let _ = write!(
        h,
        "<li><a href=\"#cliques\">Cliques ({})</a>",
        page.result.cliques.len()
    );
    if !page.result.cliques.is_empty() {
        h.push_str("\n<ol>\n");
        for (i, c) in page.result.cliques.iter().enumerate() {
            let _ = writeln!(
                h,
                "<li><a href=\"#clique-{n}\">Clique {n}: {}</a></li>",
                esc(&c.members.join(", ")),
                n = i + 1
            );
        }
        h.push_str("</ol>\n");
    }
    h.push_str("</li>\n");
    if flagged > 0 {
        h.push_str("<li><a href=\"#evidence\">Evidence of each flagged pair</a></li>\n");
    }
    if !page.result.crowded.is_empty() {
        let _ = writeln!(
            h,
            "<li><a href=\"#crowded\">Crowded addresses ({})</a></li>",
            page.result.crowded.len()
        );
    }
    h.push_str("</ol>\n</nav>\n");
}

/// The addresses left out of candidate pairs for crowding, by pseudonym,
/// as the text report lists them.
fn crowded(h: &mut String, r: &ScanResult) {
    let lines = guide::crowded_lines(r);
    if lines.is_empty() {
        return;
    }
    let _ = write!(
        h,
        "<section id=\"crowded\">\n<h2>Crowded addresses</h2>\n<p class=\"note\">{}.</p>\n\
         <table class=\"crowded\">\n<thead><tr><th>Address</th><th>Day (UTC)</th>\
         <th>Accounts</th></tr></thead>\n<tbody>\n",
        esc(&guide::crowded_heading(&r.params))
    );
    for c in &lines {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
            esc(&c.address),
            esc(&c.day),
            c.accounts
        );
    }
    h.push_str("</tbody>\n</table>\n</section>\n");
}

fn how_to_read(h: &mut String, r: &ScanResult) {
    h.push_str("<section id=\"how-to-read\" class=\"guide\">\n<h2>How to read this report</h2>\n");
    for p in guide::how_to_read(&r.params) {
        let _ = writeln!(h, "<p>{}</p>", esc(&p));
    }
    h.push_str("</section>\n");
}

fn summary(h: &mut String, r: &ScanResult, directed: usize) {
    let flagged = r.flagged().count();
    h.push_str("<section id=\"summary\">\n<h2>Summary</h2>\n<table class=\"summary\">\n");
    let rows = [
        ("Participants", r.participants.to_string()),
        ("Candidate pairs", r.candidate_pairs.to_string()),
        (
            "Flagged directed pairs",
            format!("{flagged} of {directed} ({}%)", percent(flagged, directed)),
        ),
        ("Cliques", r.cliques.len().to_string()),
        ("Threshold", decimal(r.params.threshold)),
        (
            "Bucket size",
            format!(
                "{} s ({})",
                r.params.bucket_seconds,
                minutes(r.params.bucket_seconds)
            ),
        ),
        ("Mode", r.params.mode.as_str().to_owned()),
    ];
    for (k, v) in rows {
        let _ = writeln!(h, "<tr><th>{k}</th><td>{}</td></tr>", esc(&v));
    }
    h.push_str("</table>\n</section>\n");
}

fn pairs(h: &mut String, r: &ScanResult, rows: &[BothWays]) {
    h.push_str("<section id=\"pairs\">\n<h2>Flagged pairs</h2>\n");
    if rows.is_empty() {
        h.push_str("<p>No pair reached the threshold.</p>\n</section>\n");
        return;
    }
    let _ = writeln!(
        h,
        "<p class=\"note\">Pairs of accounts with a similarity of at least {} in either \
         direction, strongest first; flagged directions in bold red with &#9873;. Times are \
         those of the stronger direction. Each pair links to its evidence.</p>",
        decimal(r.params.threshold)
    );
    h.push_str("<table class=\"pairs\">\n<thead><tr>");
    for (head, meaning) in PAIR_COLUMNS {
        let _ = write!(h, "<th title=\"{}\">{}</th>", esc(meaning), esc(head));
    }
    h.push_str("<th>Evidence</th></tr></thead>\n<tbody>\n");
    for (i, row) in rows.iter().enumerate() {
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td>{}{}",
            esc(row.a),
            esc(row.b),
            sim_cell(row.ab, r.params.threshold),
            sim_cell(row.ba, r.params.threshold)
        );
        let cells = guide::stronger(row)
            .map(|p| guide::evidence_cells(p, r.params.bucket_seconds))
            .unwrap_or_default();
        for c in cells {
            let _ = write!(h, "<td class=\"num\">{}</td>", esc(&c));
        }
        let _ = writeln!(
            h,
            "<td><a class=\"evidence-link\" href=\"#{}\">evidence</a></td></tr>",
            pair_anchor(i)
        );
    }
    h.push_str("</tbody>\n</table>\n</section>\n");
}

fn distribution(h: &mut String, page: &ReportPage) {
    if page.distribution_inline.is_none() && page.distribution_svg.is_none() {
        return;
    }
    h.push_str("<section id=\"distribution\">\n<h2>Score distribution</h2>\n");
    if let Some(svg) = &page.distribution_inline {
        let _ = writeln!(h, "<div class=\"figure\">{svg}</div>");
    }
    if let Some(file) = &page.distribution_svg {
        let _ = writeln!(
            h,
            "<p class=\"note\"><a href=\"{}\">Open the chart alone</a></p>",
            esc(file)
        );
    }
    h.push_str("</section>\n");
}

pub(super) fn sim_cell(p: Option<&PairScore>, threshold: f64) -> String {
    match p {
        None => "<td class=\"num\">&#8211;</td>".to_owned(),
        Some(p) if p.similarity >= threshold => format!(
            "<td class=\"num flag\" title=\"flagged\">{} &#9873;</td>",
            guide::similarity(p.similarity)
        ),
        Some(p) => format!("<td class=\"num\">{}</td>", guide::similarity(p.similarity)),
    }
}

fn minutes(seconds: i64) -> String {
    if seconds % 60 == 0 {
        format!("{} min", seconds / 60)
    } else {
        format!("{:.1} min", seconds as f64 / 60.0)
    }
}
