//! How far the readings can go: each family's design fitted on every other
//! family's seasons and on half of its own seeds, and measured on the other
//! half, against the leave-one-family-out figures. A family's model here has
//! seen the family, and the "best threshold" column picks the threshold on
//! the very seasons it measures, so these figures are a ceiling for the
//! design, not an estimate of what a site would see.

use super::collect::World;
use super::lofo::{best_threshold, figures, fit_design, score, Design, Figures};
use detect_sim::Family;

/// One family's within-family figures: at the threshold fitted on the
/// training half, and at the best threshold on the measured half.
pub struct Ceiling {
    pub family: Family,
    pub fitted: Figures,
    pub best: Figures,
    /// The share of the family's true pairs that are scored at all (a
    /// candidate pair or a timing pair), the mean over its seasons: no
    /// score of the same pairs recalls more.
    pub reach: f64,
}

/// The share of `w`'s true pairs that are scored at all.
fn reach(w: &World) -> f64 {
    let scored = w.pairs.iter().filter(|p| p.one).count();
    scored as f64 / w.true_pairs().max(1) as f64
}

/// Two folds over the family's seeds (odd and even positions): fit on one
/// and on the other families, measure on the other fold; the mean of both.
pub fn family(design: &Design, all: &[World], family: Family) -> Ceiling {
    let own: Vec<&World> = all.iter().filter(|w| w.family == family).collect();
    let (mut fitted, mut best) = (Vec::new(), Vec::new());
    for fold in 0..2 {
        let in_fold = |i: usize| i % 2 == fold;
        let own_half = own.iter().enumerate().filter(|(i, _)| in_fold(*i));
        let train: Vec<&World> = all
            .iter()
            .filter(|w| w.family != family)
            .chain(own_half.map(|(_, &w)| w))
            .collect();
        let test: Vec<&World> = own
            .iter()
            .enumerate()
            .filter(|(i, _)| !in_fold(*i))
            .map(|(_, &w)| w)
            .collect();
        let model = fit_design(design, &train);
        let oracle = best_threshold(&model, &test);
        for w in test {
            fitted.push(figures(w, |p| score(&model, p), model.threshold()));
            best.push(figures(w, |p| score(&model, p), oracle));
        }
    }
    Ceiling {
        family,
        fitted: Figures::mean(&fitted),
        best: Figures::mean(&best),
        reach: own.iter().map(|w| reach(w)).sum::<f64>() / own.len().max(1) as f64,
    }
}

/// The within-family table, with the mean over families. The last two
/// columns bound any score of the same pairs: the share of true pairs
/// scored at all, and the F1 of flagging exactly those (precision 1).
pub fn print(rows: &[Ceiling]) {
    let bound = |r: f64| 2.0 * r / (1.0 + r);
    println!("| family (fitted on its own seeds) | P | R | F1 | AP | at the best threshold: P | R | F1 | true pairs scored | F1 at precision 1 |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        row(
            r.family.as_str(),
            (&r.fitted, &r.best),
            r.reach,
            bound(r.reach),
        );
    }
    let fitted: Vec<Figures> = rows.iter().map(|r| r.fitted).collect();
    let best: Vec<Figures> = rows.iter().map(|r| r.best).collect();
    let n = rows.len().max(1) as f64;
    let reach = rows.iter().map(|r| r.reach).sum::<f64>() / n;
    let bounds = rows.iter().map(|r| bound(r.reach)).sum::<f64>() / n;
    let means = (&Figures::mean(&fitted), &Figures::mean(&best));
    row("**mean**", means, reach, bounds);
}

/// One line of the table.
fn row(name: &str, (a, b): (&Figures, &Figures), reach: f64, bound: f64) {
    let cells = [
        a.precision,
        a.recall,
        a.f1,
        a.average_precision,
        b.precision,
        b.recall,
        b.f1,
        reach,
        bound,
    ];
    let cells: Vec<String> = cells.iter().map(|x| format!("{x:.3}")).collect();
    println!("| {name} | {} |", cells.join(" | "));
}
