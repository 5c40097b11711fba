//! Leave one world family out: for each family of `detect simulate`, fit
//! improved mode's design on the other families' seasons and measure it on
//! the held-out family's, beside reference mode on the same seasons; the
//! mean over families and the worst family. With `--fit FILE`, also fit the
//! design on every family and write the model file, its provenance holding
//! the held-out figures. With `--verdicts N`, learning from verdicts on the
//! N highest-scored pairs of a season, scored on the next (`verdicts.rs`).
//! With `--ceiling`, each family fitted on half of its own seeds and
//! measured on the other half: how far the design's readings go when the
//! family is known (`ceiling.rs`).
//!
//! ```text
//! cargo run --release -p detect-sim --example families -- \
//!     [--seeds 1-10] [--features a,b,...] [--no-timing] [--l2 X] \
//!     [--cache DIR] [--fit FILE] [--diag FAMILY] [--detail] [--verdicts N] \
//!     [--ceiling]
//! ```
//!
//! `scripts/evaluate` runs it; EVALUATION.md holds its table.

mod ceiling;
mod collect;
mod detail;
mod lofo;
mod verdicts;

use collect::{collect_cached, World};
use detect_sim::Family;
use lofo::{figures, fit_design, reference, score, Design, Figures};
use scoring::improved::features::feature;
use scoring::improved::model::{HeldOut, Model, Provenance};

struct Args {
    seeds: Vec<u64>,
    design: Design,
    cache: Option<String>,
    fit: Option<String>,
    diag: Option<String>,
    detail: bool,
    verdicts: Option<usize>,
    ceiling: bool,
}

fn parse() -> Result<Args, String> {
    let shipped = Model::shipped();
    let mut args = Args {
        seeds: (1..=10).collect(),
        design: Design {
            features: shipped.features().to_vec(),
            timing: shipped.timing().is_some(),
            l2: 1.0,
        },
        cache: None,
        fit: None,
        diag: None,
        detail: false,
        verdicts: None,
        ceiling: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--seeds" => {
                let v = value()?;
                let (lo, hi) = v.split_once('-').unwrap_or((&v, &v));
                let (lo, hi) = (lo.parse::<u64>(), hi.parse::<u64>());
                let (Ok(lo), Ok(hi)) = (lo, hi) else {
                    return Err(format!("--seeds takes FIRST-LAST, not {v}"));
                };
                args.seeds = (lo..=hi).collect();
            }
            "--features" => {
                args.design.features = value()?
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|n| feature(n).ok_or(format!("no feature {n}")))
                    .collect::<Result<_, _>>()?;
            }
            "--no-timing" => args.design.timing = false,
            "--l2" => args.design.l2 = value()?.parse().map_err(|e| format!("--l2: {e}"))?,
            "--cache" => args.cache = Some(value()?),
            "--fit" => args.fit = Some(value()?),
            "--diag" => args.diag = Some(value()?),
            "--detail" => args.detail = true,
            "--ceiling" => args.ceiling = true,
            "--verdicts" => {
                let v = value()?;
                args.verdicts = Some(v.parse().map_err(|e| format!("--verdicts {v}: {e}"))?);
            }
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    Ok(args)
}

/// Every family's seasons, two at a time.
fn worlds(args: &Args) -> Vec<World> {
    let jobs: Vec<(Family, u64)> = Family::ALL
        .iter()
        .flat_map(|&f| args.seeds.iter().map(move |&s| (f, s)))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let out = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(f, s)) = jobs.get(i) else { break };
                let w = collect_cached(args.cache.as_deref(), f, s);
                out.lock().expect("no worker panicked").push((i, w));
            });
        }
    });
    let mut all = out.into_inner().expect("no worker panicked");
    all.sort_by_key(|x| x.0);
    all.into_iter().map(|x| x.1).collect()
}

/// One held-out family's figures: reference mode's and the design's.
struct Row {
    family: Family,
    reference: Figures,
    improved: Figures,
    model: Model,
}

fn held_out(args: &Args, all: &[World], family: Family) -> Row {
    let train: Vec<&World> = all.iter().filter(|w| w.family != family).collect();
    let test: Vec<&World> = all.iter().filter(|w| w.family == family).collect();
    let model = fit_design(&args.design, &train);
    let t = model.threshold();
    let improved: Vec<Figures> = test
        .iter()
        .map(|w| figures(w, |p| score(&model, p), t))
        .collect();
    let reference: Vec<Figures> = test.iter().map(|w| reference(w)).collect();
    if args.diag.as_deref() == Some(family.as_str()) {
        diagnose(&model, &test);
    }
    Row {
        family,
        reference: Figures::mean(&reference),
        improved: Figures::mean(&improved),
        model,
    }
}

/// The held-out family's worst pairs: false flags and missed pairs, with
/// each feature's value.
fn diagnose(model: &Model, test: &[&World]) {
    let mut all: Vec<(f64, &collect::Pair)> = test
        .iter()
        .flat_map(|w| w.pairs.iter())
        .filter_map(|p| Some((score(model, p)?, p)))
        .collect();
    all.sort_by(|a, b| b.0.total_cmp(&a.0));
    let t = model.threshold();
    let show = |tag: &str, (s, p): &(f64, &collect::Pair)| {
        let values: Vec<String> = model
            .contributions(&p.reading())
            .iter()
            .map(|(n, v, _)| format!("{n}={v:.2}"))
            .collect();
        println!("  {tag} {s:.3} {:<22} {}", p.kind, values.join(" "));
    };
    all.iter()
        .filter(|x| !x.1.one && x.0 >= t)
        .take(12)
        .for_each(|x| show("false flag", x));
    all.iter()
        .filter(|x| x.1.one && x.0 < t)
        .take(12)
        .for_each(|x| show("missed", x));
}

fn cell(x: f64) -> String {
    format!("{x:.3}")
}

fn print_table(rows: &[Row]) {
    println!("| held-out family | reference P | R | F1 | AP | improved P | R | F1 | AP | threshold | F1, AP >= reference |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        let (a, b) = (&r.reference, &r.improved);
        let ok = b.f1 >= a.f1 && b.average_precision >= a.average_precision;
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.family.as_str(),
            cell(a.precision),
            cell(a.recall),
            cell(a.f1),
            cell(a.average_precision),
            cell(b.precision),
            cell(b.recall),
            cell(b.f1),
            cell(b.average_precision),
            r.model.threshold(),
            if ok { "yes" } else { "**no**" }
        );
    }
    let refs: Vec<Figures> = rows.iter().map(|r| r.reference).collect();
    let imps: Vec<Figures> = rows.iter().map(|r| r.improved).collect();
    let (mr, mi) = (Figures::mean(&refs), Figures::mean(&imps));
    println!(
        "| **mean** | {} | {} | {} | {} | {} | {} | {} | {} | | |",
        cell(mr.precision),
        cell(mr.recall),
        cell(mr.f1),
        cell(mr.average_precision),
        cell(mi.precision),
        cell(mi.recall),
        cell(mi.f1),
        cell(mi.average_precision)
    );
    let worst = |v: &[Figures], f: fn(&Figures) -> f64| {
        let (i, x) = v
            .iter()
            .map(f)
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("families");
        format!("{} ({})", cell(x), rows[i].family.as_str())
    };
    println!(
        "| **worst** | {} | {} | {} | {} | {} | {} | {} | {} | | |",
        worst(&refs, |x| x.precision),
        worst(&refs, |x| x.recall),
        worst(&refs, |x| x.f1),
        worst(&refs, |x| x.average_precision),
        worst(&imps, |x| x.precision),
        worst(&imps, |x| x.recall),
        worst(&imps, |x| x.f1),
        worst(&imps, |x| x.average_precision)
    );
    println!();
    for r in rows {
        let w: Vec<String> = r
            .model
            .weights()
            .iter()
            .map(|w| format!("{w:.2}"))
            .collect();
        let t = r.model.timing().map_or(String::new(), |t| {
            format!(" timing {:.2} {:?}", t.intercept, t.weights)
        });
        println!(
            "without {}: intercept {:.2}, weights {}{t}",
            r.family.as_str(),
            r.model.intercept(),
            w.join(" ")
        );
    }
}

/// The design fitted on every family, its provenance the held-out figures.
fn fit_all(args: &Args, all: &[World], rows: &[Row]) -> Model {
    let every: Vec<&World> = all.iter().collect();
    let m = fit_design(&args.design, &every);
    let (lo, hi) = (args.seeds[0], args.seeds[args.seeds.len() - 1]);
    let scored = || all.iter().flat_map(|w| w.pairs.iter());
    let provenance = Provenance {
        fitted_on: format!(
            "simulated seasons of {} world families (detect simulate --family NAME --seed N), seeds {lo}-{hi}",
            Family::ALL.len()
        ),
        families: Family::ALL.iter().map(|f| f.as_str().to_owned()).collect(),
        seeds: format!("{lo}-{hi}"),
        pairs: scored().count() as u64,
        positives: scored().filter(|p| p.one).count() as u64,
        measured: "leave one family out: each family's figures are those of the same features fitted on the other families (threshold chosen on them), mean over its seeds, undirected pairs; reference mode at 0.9 on the same seasons".into(),
        held_out: rows
            .iter()
            .map(|r| HeldOut {
                family: r.family.as_str().to_owned(),
                precision: round(r.improved.precision),
                recall: round(r.improved.recall),
                f1: round(r.improved.f1),
                average_precision: round(r.improved.average_precision),
                reference_precision: round(r.reference.precision),
                reference_recall: round(r.reference.recall),
                reference_f1: round(r.reference.f1),
                reference_average_precision: round(r.reference.average_precision),
            })
            .collect(),
    };
    let names: Vec<&str> = m.features().iter().map(|f| f.name).collect();
    let weights: Vec<f64> = m.weights().iter().map(|&w| round(w)).collect();
    let timing = m.timing().map(|t| scoring::improved::TimeModel {
        intercept: round(t.intercept),
        weights: t.weights.map(round),
        per_member: t.per_member,
    });
    Model::new(
        &format!("families-{lo}-{hi}"),
        &names,
        round(m.intercept()),
        &weights,
        m.threshold(),
        timing,
        provenance,
    )
    .expect("a fit keeps to the signs")
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn main() {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("families: {e}");
            std::process::exit(2);
        }
    };
    let all = worlds(&args);
    let names: Vec<&str> = args.design.features.iter().map(|f| f.name).collect();
    println!(
        "features: {}; timing pairs: {}; seeds {:?}",
        names.join(", "),
        args.design.timing,
        (args.seeds[0], args.seeds[args.seeds.len() - 1])
    );
    println!();
    if args.ceiling {
        let rows: Vec<ceiling::Ceiling> = Family::ALL
            .iter()
            .map(|&f| ceiling::family(&args.design, &all, f))
            .collect();
        ceiling::print(&rows);
        return;
    }
    let rows: Vec<Row> = Family::ALL
        .iter()
        .map(|&f| held_out(&args, &all, f))
        .collect();
    print_table(&rows);
    if args.detail {
        let held: Vec<detail::Held<'_>> = rows
            .iter()
            .map(|r| detail::Held {
                family: r.family,
                model: &r.model,
                worlds: all.iter().filter(|w| w.family == r.family).collect(),
            })
            .collect();
        println!();
        detail::breakdown(&held);
        println!();
        detail::calibration(&held);
    }
    if let Some(top) = args.verdicts {
        let outcomes: Vec<verdicts::Outcome> = rows
            .iter()
            .map(|r| {
                let worlds: Vec<&World> = all.iter().filter(|w| w.family == r.family).collect();
                verdicts::family(&r.model, &worlds, top)
            })
            .collect();
        println!();
        verdicts::print(&outcomes, top);
    }
    if let Some(path) = &args.fit {
        let m = fit_all(&args, &all, &rows);
        std::fs::write(path, m.to_json()).expect("the model file is writable");
        println!("\nwrote {path}: threshold {}", m.threshold());
    }
}
