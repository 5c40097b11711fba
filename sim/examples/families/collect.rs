//! One world of a family through improved mode's scan: every scored pair
//! with what a model reads of it, its truth, and the world's truth.

use detect_sim as sim;
use schema::{Mode, PairScore, ScanParams, Season, Signals};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// An undirected scored pair.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Pair {
    pub a: String,
    pub b: String,
    /// One person.
    pub one: bool,
    /// The owner's style, or what explains two people sharing addresses.
    pub kind: String,
    /// The reference similarity from each side.
    pub ab: f64,
    pub ba: f64,
    pub signals: Signals,
}

impl Pair {
    /// A timing pair (never shared an address on a day).
    pub fn timing(&self) -> bool {
        self.signals.timing.is_some()
    }

    /// What a model reads.
    pub fn reading(&self) -> scoring::improved::Reading<'_> {
        scoring::improved::Reading {
            ab: self.ab,
            ba: self.ba,
            signals: &self.signals,
        }
    }
}

/// A simulated season, scanned.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct World {
    pub family: sim::Family,
    pub seed: u64,
    pub truth: sim::Truth,
    pub pairs: Vec<Pair>,
}

impl World {
    /// The true undirected pairs of the season, scored or not.
    pub fn true_pairs(&self) -> usize {
        self.truth
            .groups
            .iter()
            .map(|g| g.accounts.len() * (g.accounts.len() - 1) / 2)
            .sum()
    }
}

/// Simulates `family` from `seed` and scans it in improved mode (which
/// scores every candidate pair both ways the reference way too, and the
/// timing pairs of the shipped model).
pub fn collect(family: sim::Family, seed: u64) -> World {
    let cfg = sim::WorldConfig::of_family(family, seed);
    let (mut moves, truth) = sim::simulate_moves(&cfg).expect("a family's world simulates");
    ingest::sort_by_time(&mut moves);
    let segments = ingest::segment_moves(&moves, 1800);
    let mut times = scoring::improved::MoveTimes::new(&segments);
    for m in &moves {
        times.push(&segments, &m.username, m.timestamp, &m.ip);
    }
    let times = times.finish();
    drop(moves);
    let params = ScanParams {
        mode: Mode::Improved,
        ..Default::default()
    };
    let season = Season::inferred(cfg.season);
    let scan = scoring::scan_with_times(&segments, Some(&times), &season, &params)
        .expect("a simulated season scans");
    let ix = truth.index();
    let by: HashMap<(&str, &str), &PairScore> = scan
        .pairs
        .iter()
        .map(|p| ((p.account_a.as_str(), p.account_b.as_str()), p))
        .collect();
    let reference = |p: &PairScore| (p.sum as f64 / p.weight as f64) / 2.0 + 0.5;
    let pairs = scan
        .pairs
        .iter()
        .filter(|p| p.account_a < p.account_b)
        .map(|p| {
            let q = by[&(p.account_b.as_str(), p.account_a.as_str())];
            let one = ix.same_person(&p.account_a, &p.account_b);
            let kind = match ix.group_of(&p.account_a).filter(|_| one) {
                Some(g) => truth.groups[g].style.as_str().to_owned(),
                None => ix.cause(&p.account_a, &p.account_b).as_str().to_owned(),
            };
            Pair {
                a: p.account_a.clone(),
                b: p.account_b.clone(),
                one,
                kind,
                ab: reference(p),
                ba: reference(q),
                signals: *p
                    .evidence
                    .signals
                    .as_deref()
                    .expect("improved mode reads signals"),
            }
        })
        .collect();
    World {
        family,
        seed,
        truth,
        pairs,
    }
}

/// [`collect`], read from `dir` when it was kept there before (JSON), else
/// kept there.
pub fn collect_cached(dir: Option<&str>, family: sim::Family, seed: u64) -> World {
    let Some(dir) = dir else {
        return collect(family, seed);
    };
    let path = format!("{dir}/{}-{seed}.json", family.as_str());
    if let Some(w) = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
    {
        return w;
    }
    let w = collect(family, seed);
    std::fs::create_dir_all(dir).expect("the cache directory");
    std::fs::write(
        &path,
        serde_json::to_string(&w).expect("a world serializes"),
    )
    .expect("the cache is writable");
    w
}
