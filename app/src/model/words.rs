//! What `detect model` says: of a fit, of a model stored, and the table of
//! the stored versions.

use super::Fitted;
use scoring::improved::verdicts::Agreement;
use scoring::improved::Model;
use std::fmt::Write;
use store::StoredModel;

/// What a fit says: the verdicts it was fitted on, its cross-validated
/// agreement beside `prior`'s, and each weight before and after; one line
/// each.
pub fn fit_words(fitted: &Fitted, prior: &Model) -> String {
    let mut out = format!(
        "fitted on {} judged pairs of scan #{} ({} one person, {} different people), \
         starting from the model {}\n",
        fitted.same + fitted.different,
        fitted.scan_id,
        fitted.same,
        fitted.different,
        prior.name()
    );
    let cv = &fitted.cross_validated;
    let words = |a: &Agreement| {
        format!(
            "precision {:.3}, recall {:.3}, F1 {:.3}",
            a.precision, a.recall, a.f1
        )
    };
    let _ = writeln!(
        out,
        "cross-validated on these verdicts ({} folds, flags at {}): the new model {}; \
         the model {} on the same verdicts {}",
        cv.folds,
        prior.threshold(),
        words(&cv.fitted),
        prior.name(),
        words(&cv.prior)
    );
    for (name, before, after) in &fitted.weights {
        let _ = writeln!(out, "  {name:<28} {before:>8.3} -> {after:>8.3}");
    }
    out
}

/// "stored as model version 3: NAME", or that the store held it already.
pub fn stored_words(version: i64, added: bool, name: &str) -> String {
    if added {
        format!("stored as model version {version}: {name}")
    } else {
        format!("the store holds this model already, as model version {version}: {name}")
    }
}

/// The stored model versions as `detect model list` shows them: a table,
/// or a sentence saying how versions come when there is none; lines ending
/// with a newline.
pub fn list_table(models: &[StoredModel]) -> String {
    if models.is_empty() {
        return "no model versions stored yet: improved scans, `detect model import` and \
                `detect model fit --save` add them\n"
            .to_owned();
    }
    let mut out = format!(
        "{:>7}  {:<24}  {:>5}  {:<20}  source (added by)\n",
        "version", "name", "scans", "added"
    );
    for m in models {
        let added = chrono::DateTime::from_timestamp(m.added_at, 0).map_or_else(
            || m.added_at.to_string(),
            |t| t.format("%Y-%m-%d %H:%M UTC").to_string(),
        );
        let _ = writeln!(
            out,
            "{:>7}  {:<24}  {:>5}  {:<20}  {} ({})",
            m.version, m.name, m.scans, added, m.source, m.added_by
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_words_say_whether_the_store_held_the_model() {
        assert_eq!(stored_words(3, true, "m"), "stored as model version 3: m");
        assert_eq!(
            stored_words(2, false, "m"),
            "the store holds this model already, as model version 2: m"
        );
    }

    #[test]
    fn an_empty_list_says_how_versions_come() {
        let table = list_table(&[]);
        assert!(table.starts_with("no model versions stored yet: improved scans"));
        assert!(table.ends_with("add them\n"));
    }
}
