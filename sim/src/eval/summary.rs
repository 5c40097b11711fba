//! The terminal summary of an [`Evaluation`] (`detect eval`'s text output).

use super::Evaluation;
use std::fmt;

/// `0.812` or `-` for undefined.
struct Opt(Option<f64>);

impl fmt::Display for Opt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(x) => write!(f, "{x:>w$.3}", w = f.width().unwrap_or(0)),
            None => write!(f, "{:>w$}", "-", w = f.width().unwrap_or(0)),
        }
    }
}

impl fmt::Display for Evaluation {
    /// A compact terminal summary (lines under 100 characters).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "evaluation at threshold {}", self.threshold)?;
        write_counts(self, f)?;
        write_false_positives(self, f)?;
        write_cliques(self, f)?;
        write_ranking(self, f)
    }
}

/// The directed and undirected counts, one table.
fn write_counts(e: &Evaluation, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    writeln!(
        f,
        "{:<11}{:>8}{:>8}{:>6}{:>6}{:>6}{:>8}{:>7}{:>8}{:>7}{:>7}",
        "pairs", "scored", "flagged", "tp", "fp", "fn", "no-cand", "prec", "recall", "r-cand", "f1"
    )?;
    for (name, c) in [("directed", &e.directed), ("undirected", &e.undirected)] {
        writeln!(
            f,
            "{:<11}{:>8}{:>8}{:>6}{:>6}{:>6}{:>8}{:>7}{:>8}{:>7}{:>7}",
            name,
            c.scored,
            c.flagged,
            c.tp,
            c.fp,
            c.fn_,
            c.missed_not_candidates,
            Opt(c.precision),
            Opt(c.recall),
            Opt(c.recall_of_candidates),
            Opt(c.f1)
        )?;
    }
    Ok(())
}

/// False positives by cause, and the three highest.
fn write_false_positives(e: &Evaluation, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let fp = &e.false_positives;
    writeln!(
        f,
        "false positives: household {}, office {}, carrier_nat {}, other {}",
        fp.household, fp.office, fp.carrier_nat, fp.other
    )?;
    for x in e.worst_false_positives.iter().take(3) {
        writeln!(
            f,
            "  {:.3} {} / {} ({})",
            x.similarity,
            x.a,
            x.b,
            x.cause.as_str()
        )?;
    }
    Ok(())
}

/// Clique recovery, overall and per style.
fn write_cliques(e: &Evaluation, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let c = &e.cliques;
    writeln!(
        f,
        "groups: {} ({} full, {} partly, {} missed); cliques found: {} ({} pure)",
        c.groups, c.full, c.partly, c.missed, c.cliques, c.pure
    )?;
    for s in &e.by_style {
        writeln!(
            f,
            "  {:<12} {:>3} groups: {:>3} full {:>3} partly {:>3} missed, pairs {:>4}/{:<4} {}",
            s.style.as_str(),
            s.groups,
            s.full,
            s.partly,
            s.missed,
            s.tp,
            s.true_pairs,
            Opt(s.recall)
        )?;
    }
    Ok(())
}

/// The ranking figures and the threshold sweep.
fn write_ranking(e: &Evaluation, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let r = &e.ranking;
    writeln!(
        f,
        "ranking of {} scored pairs ({} true): ROC AUC {}, average precision {}",
        r.pairs,
        r.positives,
        Opt(r.roc_auc),
        Opt(r.average_precision)
    )?;
    writeln!(
        f,
        "{:>9}{:>9}{:>6}{:>6}{:>7}{:>8}{:>7}",
        "threshold", "flagged", "tp", "fp", "prec", "recall", "f1"
    )?;
    for p in &e.sweep {
        writeln!(
            f,
            "{:>9}{:>9}{:>6}{:>6}{:>7}{:>8}{:>7}",
            format!("{:.3}", p.threshold),
            p.flagged,
            p.tp,
            p.fp,
            Opt(p.precision),
            Opt(p.recall),
            Opt(p.f1)
        )?;
    }
    Ok(())
}
