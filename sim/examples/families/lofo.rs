//! Fitting a design (which features, whether timing pairs) on some worlds
//! and measuring it on others.

use super::collect::{Pair, World};
use schema::PairScore;
use scoring::improved::features::Feature;
use scoring::improved::fit::Sign;
use scoring::improved::fit::{self, FitOptions, Row};
use scoring::improved::model::{Model, Provenance};
use scoring::improved::timing::{self, TIME_SIGNS};
use scoring::improved::TimeModel;

/// What is fitted: the features of ordinary pairs, and whether timing pairs
/// are looked for (and fitted).
pub struct Design {
    pub features: Vec<&'static Feature>,
    pub timing: bool,
    pub l2: f64,
}

/// Undirected figures of one season at one threshold (sim's definitions).
#[derive(Debug, Clone, Copy, Default)]
pub struct Figures {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub average_precision: f64,
}

impl Figures {
    /// The mean of several seasons' figures.
    pub fn mean(all: &[Figures]) -> Figures {
        let n = all.len().max(1) as f64;
        let sum = |f: fn(&Figures) -> f64| all.iter().map(f).sum::<f64>() / n;
        Figures {
            precision: sum(|x| x.precision),
            recall: sum(|x| x.recall),
            f1: sum(|x| x.f1),
            average_precision: sum(|x| x.average_precision),
        }
    }
}

/// Each world's rows count as much in all as any other world's, whatever
/// its number of pairs (a sparse or crowded world has many more).
const ROWS_PER_WORLD: f64 = 1000.0;

/// Fits `design` on `worlds`: the pairs' model, the timing model, and the
/// threshold with the best mean F1 over them.
pub fn fit_design(design: &Design, worlds: &[&World]) -> Model {
    let signs: Vec<Sign> = design.features.iter().map(|f| f.sign).collect();
    let mut rows = Vec::new();
    let mut timing_rows = Vec::new();
    for w in worlds {
        let n = w.pairs.iter().filter(|p| !p.timing()).count().max(1) as f64;
        for p in &w.pairs {
            if p.timing() {
                let x = timing::features(&p.signals).expect("a timing pair");
                timing_rows.push(Row {
                    x: x.to_vec(),
                    y: p.one,
                    weight: 1.0,
                    offset: p.signals.timing.map_or(0.0, |t| timing::prior_offset(&t)),
                });
            } else {
                let r = p.reading();
                rows.push(Row {
                    x: design.features.iter().map(|f| (f.value)(&r)).collect(),
                    y: p.one,
                    weight: ROWS_PER_WORLD / n,
                    offset: 0.0,
                });
            }
        }
    }
    let opts = FitOptions {
        l2: design.l2,
        ..FitOptions::default()
    };
    let m = fit::fit(&signs, &rows, &opts);
    let time = (design.timing && timing_rows.iter().any(|r| r.y)).then(|| {
        let signs: Vec<Sign> = TIME_SIGNS.iter().map(|s| s.0).collect();
        let t = fit::fit(&signs, &timing_rows, &opts);
        TimeModel {
            intercept: t.intercept,
            weights: [t.weights[0], t.weights[1], t.weights[2]],
            per_member: true,
        }
    });
    let names: Vec<&str> = design.features.iter().map(|f| f.name).collect();
    let draft = Model::new(
        "draft",
        &names,
        m.intercept,
        &m.weights,
        0.5,
        time,
        Provenance::default(),
    )
    .expect("a fit keeps to the signs");
    let threshold = best_threshold(&draft, worlds);
    Model::new(
        "fitted",
        &names,
        m.intercept,
        &m.weights,
        threshold,
        time,
        Provenance::default(),
    )
    .expect("a fit keeps to the signs")
}

/// The score of a pair: the model's, the timing model's for a timing pair
/// (`None` when the model looks for no timing pairs).
pub fn score(model: &Model, p: &Pair) -> Option<f64> {
    if p.timing() {
        model.timing().map(|t| t.probability(&p.signals))
    } else {
        Some(model.probability(&p.reading()))
    }
}

/// The threshold (a hundredth from 0.05 to 0.95) with the best mean F1
/// over `worlds` (all true pairs counted, scored or not).
pub fn best_threshold(model: &Model, worlds: &[&World]) -> f64 {
    let lists: Vec<(Vec<(f64, bool)>, usize)> = worlds
        .iter()
        .map(|w| {
            let mut v: Vec<(f64, bool)> = w
                .pairs
                .iter()
                .filter_map(|p| Some((score(model, p)?, p.one)))
                .collect();
            v.sort_by(|a, b| b.0.total_cmp(&a.0));
            (v, w.true_pairs())
        })
        .collect();
    let mut best = (f64::NEG_INFINITY, 0.5);
    for k in 5..=95 {
        let t = k as f64 / 100.0;
        let f1: f64 = lists
            .iter()
            .map(|(v, total)| {
                let flagged = v.partition_point(|x| x.0 >= t);
                let tp = v[..flagged].iter().filter(|x| x.1).count();
                let (fp, fn_) = (flagged - tp, total.saturating_sub(tp));
                2.0 * tp as f64 / (2 * tp + fp + fn_).max(1) as f64
            })
            .sum();
        if f1 > best.0 {
            best = (f1, t);
        }
    }
    best.1
}

/// The figures of `w` with each pair scored by `score` (left out when
/// `None`), flagged at `threshold`.
pub fn figures(w: &World, score: impl Fn(&Pair) -> Option<f64>, threshold: f64) -> Figures {
    let pairs: Vec<PairScore> = w
        .pairs
        .iter()
        .filter_map(|p| {
            Some(PairScore {
                account_a: p.a.clone(),
                account_b: p.b.clone(),
                similarity: score(p)?,
                sum: 0,
                weight: 20,
                evidence: Default::default(),
            })
        })
        .collect();
    let e = detect_sim::evaluate(&pairs, &w.truth, threshold);
    Figures {
        precision: e.undirected.precision.unwrap_or(1.0),
        recall: e.undirected.recall.unwrap_or(0.0),
        f1: e.undirected.f1.unwrap_or(0.0),
        average_precision: e.ranking.average_precision.unwrap_or(0.0),
    }
}

/// Reference mode's figures: the larger reference similarity of the
/// ordinary candidate pairs, flagged at 0.9.
pub fn reference(w: &World) -> Figures {
    figures(w, |p| (!p.timing()).then_some(p.ab.max(p.ba)), 0.9)
}
