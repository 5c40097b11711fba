//! Learning from a site's verdicts, on simulated seasons: for each held-out
//! family, the model fitted without it stands for the shipped model a site
//! starts from. Moderators judge the 100 highest-scored pairs of one
//! season (the truth gives their verdicts); a model fitted on those
//! verdicts, starting from that model, scores the next season (the next
//! seed) beside the model it started from.

use super::collect::{Pair, World};
use super::lofo::{figures, score, Figures};
use scoring::improved::model::Model;
use scoring::improved::verdicts::{fit_on_verdicts, groups, Verdict, DEFAULT_L2};

/// One family's figures: the next seasons' mean under the starting model
/// and under the model fitted on the verdicts, and how many fits were
/// refused (too few verdicts of one kind).
pub struct Outcome {
    pub family: &'static str,
    pub seasons: usize,
    pub before: Figures,
    pub after: Figures,
    pub refused: usize,
}

/// The verdicts of the `top` highest-scored ordinary pairs of `w` under
/// `model`, taken from the truth, grouped as a site's would be (by the
/// accounts the judged pairs share).
fn judged<'w>(model: &Model, w: &'w World, top: usize) -> Vec<Verdict<'w>> {
    let mut ranked: Vec<(f64, &Pair)> = w
        .pairs
        .iter()
        .filter(|p| !p.timing())
        .map(|p| (model.probability(&p.reading()), p))
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    ranked.truncate(top);
    let g = groups(ranked.iter().map(|(_, p)| (p.a.as_str(), p.b.as_str())));
    ranked
        .iter()
        .zip(g)
        .map(|((_, p), group)| Verdict {
            reading: p.reading(),
            same: p.one,
            group,
        })
        .collect()
}

/// The experiment on one family's seasons (sorted by seed), starting from
/// `start`.
pub fn family(start: &Model, worlds: &[&World], top: usize) -> Outcome {
    let (mut before, mut after, mut refused) = (Vec::new(), Vec::new(), 0);
    for two in worlds.windows(2) {
        let (judged_season, next) = (two[0], two[1]);
        let v = judged(start, judged_season, top);
        let name = format!("verdicts-{}", judged_season.seed);
        let Ok(m) = fit_on_verdicts(start, &v, &name, DEFAULT_L2) else {
            refused += 1;
            continue;
        };
        before.push(figures(next, |p| score(start, p), start.threshold()));
        after.push(figures(next, |p| score(&m, p), m.threshold()));
    }
    Outcome {
        family: worlds[0].family.as_str(),
        seasons: before.len(),
        before: Figures::mean(&before),
        after: Figures::mean(&after),
        refused,
    }
}

/// The table of [`family`]'s outcomes.
pub fn print(outcomes: &[Outcome], top: usize) {
    println!(
        "Verdicts on the {top} highest-scored pairs of season N, the model scoring season N+1 \
         (mean over the family's consecutive seeds):"
    );
    println!();
    println!("| family | seasons | F1 before | F1 after | P before | P after | AP before | AP after | refused |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for o in outcomes {
        println!(
            "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {} |",
            o.family,
            o.seasons,
            o.before.f1,
            o.after.f1,
            o.before.precision,
            o.after.precision,
            o.before.average_precision,
            o.after.average_precision,
            o.refused
        );
    }
}
