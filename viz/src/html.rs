//! The HTML report of a scan: one self-contained page, readable without
//! JavaScript, with inline CSS. It shows account names (pseudonymous by
//! nature) and never IP addresses: [`schema::ScanResult`] carries none.
//!
//! The page is well-formed XML too (self-closed void elements, no named
//! entities beyond XML's), so tools can parse it as XHTML.

use crate::escape::html as esc;
use crate::fmt::{decimal, percent};
use schema::{Cell, Evidence, PairScore, ScanResult};
use std::collections::BTreeSet;
use std::fmt::Write;

/// What the report page shows.
#[derive(Debug, Clone)]
pub struct ReportPage<'a> {
    pub title: String,
    pub season: u32,
    pub result: &'a ScanResult,
    /// File names (relative links) of the clique timelines, e.g.
    /// `clique-1.svg`, index-aligned with `result.cliques`. Cliques past
    /// its end are shown without a picture.
    pub clique_svgs: Vec<String>,
    /// File name of the distribution chart, if drawn.
    pub distribution_svg: Option<String>,
    /// A line about how the report was made (e.g. scan parameters), shown
    /// at the foot of the page; supplied by the caller so the page stays
    /// deterministic.
    pub generated_note: String,
}

const CSS: &str = "\
body { font-family: sans-serif; margin: 2em auto; max-width: 78em; padding: 0 1em; color: #222; }
h1 { margin-bottom: 0.2em; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
thead th { background: #f0f0f0; }
.flag { font-weight: bold; color: #a11; }
.note { color: #555; }
.clique { border-top: 1px solid #ddd; padding-top: 0.5em; }
img { max-width: 100%; border: 1px solid #ddd; }
footer { margin-top: 2em; color: #555; font-size: 0.9em; }
";

/// The report page as a complete HTML5 document.
pub fn report_html(page: &ReportPage) -> String {
    let r = page.result;
    let threshold = r.params.threshold;
    let rows = scoring::both_ways(r, false);
    let flagged = r.flagged().count();
    let title = esc(&page.title);
    let mut h = String::new();
    // `write!` to a String cannot fail.
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n\
         <title>{title} (season {season})</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n\
         <h1>{title}</h1>\n<p class=\"note\">Season {season}</p>\n",
        season = page.season
    );

    h.push_str("<section id=\"summary\">\n<h2>Summary</h2>\n<table class=\"summary\">\n");
    let summary = [
        ("Participants", r.participants.to_string()),
        ("Candidate pairs", r.candidate_pairs.to_string()),
        (
            "Flagged directed pairs",
            format!(
                "{flagged} of {} ({}%)",
                r.pairs.len(),
                percent(flagged, r.pairs.len())
            ),
        ),
        ("Cliques", r.cliques.len().to_string()),
        ("Threshold", decimal(threshold)),
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
    for (k, v) in summary {
        let _ = writeln!(h, "<tr><th>{k}</th><td>{}</td></tr>", esc(&v));
    }
    h.push_str("</table>\n</section>\n");

    h.push_str("<section id=\"pairs\">\n<h2>Flagged pairs</h2>\n");
    if rows.is_empty() {
        h.push_str("<p>No pair reached the threshold.</p>\n");
    } else {
        let _ = writeln!(
            h,
            "<p class=\"note\">Each pair of accounts A, B with a similarity of at least {} in \
             either direction (flagged directions in bold). Similarity is asymmetric; evidence \
             cells count buckets as A&#8594;B / B&#8594;A.</p>",
            decimal(threshold)
        );
        h.push_str(
            "<table class=\"pairs\">\n<thead><tr><th>A</th><th>B</th><th>sim(A,B)</th>\
             <th>sim(B,A)</th>",
        );
        for cell in Cell::ALL {
            let _ = write!(
                h,
                "<th title=\"{}\">{}</th>",
                esc(cell.describe()),
                cell.as_str()
            );
        }
        h.push_str(
            "<th title=\"the largest stall-length boost paid on a same-IP move\">max boost</th>\
             </tr></thead>\n<tbody>\n",
        );
        for row in &rows {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td>{}{}",
                esc(row.a),
                esc(row.b),
                sim_cell(row.ab, threshold),
                sim_cell(row.ba, threshold)
            );
            let ab = row.ab.map(|p| counts(&p.evidence));
            let ba = row.ba.map(|p| counts(&p.evidence));
            for i in 0..Cell::ALL.len() + 1 {
                let side = |c: Option<[u64; 6]>| {
                    c.map_or_else(|| "&#8211;".to_owned(), |c| c[i].to_string())
                };
                let _ = write!(h, "<td class=\"num\">{} / {}</td>", side(ab), side(ba));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</tbody>\n</table>\n");
    }
    h.push_str("</section>\n");

    h.push_str("<section id=\"cliques\">\n<h2>Cliques</h2>\n");
    if r.cliques.is_empty() {
        h.push_str("<p>No clique.</p>\n");
    }
    for (i, clique) in r.cliques.iter().enumerate() {
        let n = i + 1;
        let _ = writeln!(
            h,
            "<div class=\"clique\" id=\"clique-{n}\">\n<h3>Clique {n}: {} accounts</h3>",
            clique.members.len()
        );
        let members: Vec<String> = clique.members.iter().map(|m| esc(m)).collect();
        let _ = writeln!(h, "<p>Members: {}</p>", members.join(", "));
        let inside: BTreeSet<&str> = clique.members.iter().map(String::as_str).collect();
        let pairs: Vec<String> = rows
            .iter()
            .filter(|row| inside.contains(row.a) && inside.contains(row.b))
            .map(|row| {
                format!(
                    "{} &#8596; {} ({} / {})",
                    esc(row.a),
                    esc(row.b),
                    score(row.ab),
                    score(row.ba)
                )
            })
            .collect();
        if !pairs.is_empty() {
            let _ = writeln!(h, "<p>Flagged pairs: {}</p>", pairs.join("; "));
        }
        match page.clique_svgs.get(i) {
            Some(file) => {
                let file = esc(file);
                let _ = writeln!(
                    h,
                    "<p><a href=\"{file}\"><img src=\"{file}\" alt=\"Timeline of clique {n}\" \
                     /></a></p>"
                );
            }
            None => h.push_str("<p class=\"note\">No timeline drawn.</p>\n"),
        }
        h.push_str("</div>\n");
    }
    h.push_str("</section>\n");

    if let Some(file) = &page.distribution_svg {
        let file = esc(file);
        let _ = writeln!(
            h,
            "<section id=\"distribution\">\n<h2>Score distribution</h2>\n\
             <p><a href=\"{file}\"><img src=\"{file}\" alt=\"Similarity of all directed pairs \
             against rank\" /></a></p>\n</section>"
        );
    }
    let _ = write!(
        h,
        "<footer>\n<p>{}</p>\n</footer>\n</body>\n</html>\n",
        esc(&page.generated_note)
    );
    h
}

/// The count of each evidence cell, in [`Cell::ALL`] order, then the max
/// boost.
fn counts(e: &Evidence) -> [u64; 6] {
    let [a, b, c, d, f] = Cell::ALL.map(|cell| e.tally(cell).count);
    [a, b, c, d, f, e.max_boost.into()]
}

/// A similarity cut (not rounded) to four decimals, so a shown value is at
/// or above a threshold of up to four decimals exactly when the score is.
fn score(p: Option<&PairScore>) -> String {
    p.map_or_else(
        || "&#8211;".to_owned(),
        |p| format!("{:.4}", (p.similarity * 1e4 + 1e-7).floor() / 1e4),
    )
}

fn sim_cell(p: Option<&PairScore>, threshold: f64) -> String {
    let flagged = p.is_some_and(|p| p.similarity >= threshold);
    format!(
        "<td class=\"num{}\">{}</td>",
        if flagged { " flag" } else { "" },
        score(p)
    )
}

fn minutes(seconds: i64) -> String {
    if seconds % 60 == 0 {
        format!("{} min", seconds / 60)
    } else {
        format!("{:.1} min", seconds as f64 / 60.0)
    }
}
