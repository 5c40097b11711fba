//! The evidence section of the report page: one fold per flagged pair
//! (`id="pair-N"`), its summary line always visible (the accounts, both
//! directions' similarities, [`guide::pair_summary`], the verdict) and the text of `detect explain`
//! inside, so a season of many pairs stays a page one can scroll.

use super::ReportPage;
use crate::escape::html as esc;
use crate::guide::{self, pair_anchor};
use schema::{PairScore, Verdict};
use scoring::BothWays;
use std::collections::BTreeMap;
use std::fmt::Write;

pub(super) fn evidence(h: &mut String, page: &ReportPage, rows: &[BothWays]) {
    if rows.is_empty() {
        return;
    }
    h.push_str(
        "<section id=\"evidence\">\n<h2>Evidence of each flagged pair</h2>\n\
         <p class=\"note\">The buckets behind each score, as <code>detect explain</code> \
         prints them; open a pair to read them.</p>\n",
    );
    let verdicts = flag_verdicts(page);
    let t = page.result.params.threshold;
    for (i, row) in rows.iter().enumerate() {
        let verdict = verdicts.get(&(row.a, row.b)).copied();
        let _ = writeln!(
            h,
            "<details class=\"pair-evidence\" id=\"{}\">\n<summary>{} &#8596; {}: {}, {}; {}; {}\
             </summary>",
            pair_anchor(i),
            esc(row.a),
            esc(row.b),
            direction(row.a, row.b, row.ab, t),
            direction(row.b, row.a, row.ba, t),
            esc(&guide::pair_summary(row, page.result.params.bucket_seconds)),
            verdict_words(verdict)
        );
        match page.evidence.get(&(row.a.to_owned(), row.b.to_owned())) {
            Some(text) => {
                let _ = writeln!(h, "<pre class=\"evidence\">{}</pre>", esc(text));
            }
            None => match page.season {
                Some(n) => {
                    let _ = writeln!(
                        h,
                        "<p class=\"note\">Run <code>detect explain --season {n} {} {}</code> \
                         for the buckets behind this score.</p>",
                        esc(row.a),
                        esc(row.b)
                    );
                }
                None => h.push_str(
                    "<p class=\"note\">For the buckets behind this score: ingest these logs, \
                     define their season (<code>detect season add N</code>), then run \
                     <code>detect explain --season N ACCOUNT_A ACCOUNT_B</code>.</p>\n",
                ),
            },
        }
        h.push_str("<p><a class=\"back\" href=\"#pairs\">Back to the pairs</a></p>\n</details>\n");
    }
    h.push_str("</section>\n");
}

/// The verdicts of the flagged pairs that carry one, by (a, b) with a < b.
fn flag_verdicts<'p>(page: &'p ReportPage) -> BTreeMap<(&'p str, &'p str), &'p Verdict> {
    let Some(v) = &page.verdicts else {
        return BTreeMap::new();
    };
    v.triage
        .flags
        .iter()
        .filter_map(|f| Some(((f.pair.a, f.pair.b), f.verdict?)))
        .collect()
}

/// `ann&#8594;ben 0.9712 &#9873;` (flagged) or `ben&#8594;ann not scored`.
fn direction(x: &str, y: &str, p: Option<&PairScore>, threshold: f64) -> String {
    let score = match p {
        Some(p) if p.similarity >= threshold => {
            format!("{} &#9873;", guide::similarity(p.similarity))
        }
        Some(p) => guide::similarity(p.similarity),
        None => "not scored".to_owned(),
    };
    format!("{}&#8594;{} {score}", esc(x), esc(y))
}

/// `no verdict yet`, or `verdict: household by ann`.
fn verdict_words(v: Option<&Verdict>) -> String {
    match v {
        None => "no verdict yet".to_owned(),
        Some(v) => format!("verdict: {} by {}", esc(v.kind.label()), esc(&v.by)),
    }
}
