//! The report page's sections about verdicts: known relationships (pairs
//! decided "different people" or "cleared", listed with their current scores
//! instead of among the flags) and flagged pairs that carry a verdict
//! (re-opened ones first marked as such). Every name and note goes through
//! [`crate::escape::html`].

use crate::escape::html as esc;
use crate::fmt::{decimal, utc_date};
use schema::{PairScore, Verdict};
use scoring::Triage;
use std::fmt::Write;

fn sim(p: Option<&PairScore>) -> String {
    p.map_or_else(|| "-".to_owned(), |p| format!("{:.4}", p.similarity))
}

/// "household by ann on 2026-05-01, at 0.93: note".
fn decided(v: &Verdict) -> String {
    let mut s = format!(
        "{} by {} on {}",
        esc(v.kind.label()),
        esc(&v.by),
        utc_date(v.at)
    );
    if let Some(level) = v.similarity {
        let _ = write!(s, ", at {}", decimal(level));
    }
    if !v.note.is_empty() {
        let _ = write!(s, ": {}", esc(&v.note));
    }
    s
}

/// The HTML of the verdict sections (empty when no pair has a verdict): a
/// `<section>` to put in the report page's body.
pub fn verdict_sections_html(triage: &Triage, margin: f64) -> String {
    let mut h = String::new();
    let with_verdict: Vec<_> = triage
        .flags
        .iter()
        .filter(|f| f.verdict.is_some())
        .collect();
    if !with_verdict.is_empty() {
        h.push_str(
            "<section id=\"flag-verdicts\">\n<h2>Flagged pairs with a verdict</h2>\n<table>\n\
             <thead><tr><th>account a</th><th>account b</th><th>sim(a,b)</th><th>sim(b,a)</th>\
             <th>verdict</th></tr></thead>\n<tbody>\n",
        );
        for f in with_verdict {
            let v = f.verdict.expect("filtered");
            let reopened = if f.reopened {
                "<strong class=\"flag\">re-opened</strong>: "
            } else {
                ""
            };
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{reopened}{}</td></tr>",
                esc(f.pair.a),
                esc(f.pair.b),
                sim(f.pair.ab),
                sim(f.pair.ba),
                decided(v)
            );
        }
        let _ = writeln!(
            h,
            "</tbody>\n</table>\n<p class=\"note\">Re-opened: a known relationship whose similarity \
             rose more than {} above the level at which it was decided.</p>\n</section>",
            decimal(margin)
        );
    }
    if !triage.known.is_empty() {
        h.push_str(
            "<section id=\"known-relationships\">\n<h2>Known relationships</h2>\n\
             <p class=\"note\">Pairs decided different people or cleared: not flagged, no alert; \
             their current scores.</p>\n<table>\n<thead><tr><th>account a</th><th>account b</th>\
             <th>sim(a,b)</th><th>sim(b,a)</th><th>verdict</th></tr></thead>\n<tbody>\n",
        );
        for k in &triage.known {
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
                esc(k.pair.a),
                esc(k.pair.b),
                sim(k.pair.ab),
                sim(k.pair.ba),
                decided(k.verdict)
            );
        }
        h.push_str("</tbody>\n</table>\n</section>\n");
    }
    h
}

/// The `(id, title)` of the verdict sections [`verdict_sections_html`]
/// writes for `triage`, for the page's contents.
pub fn sections(triage: &Triage) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let with_verdict = triage.flags.iter().filter(|f| f.verdict.is_some()).count();
    if with_verdict > 0 {
        out.push((
            "flag-verdicts",
            format!("Flagged pairs with a verdict ({with_verdict})"),
        ));
    }
    if !triage.known.is_empty() {
        out.push((
            "known-relationships",
            format!("Known relationships ({})", triage.known.len()),
        ));
    }
    out
}
