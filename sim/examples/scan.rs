//! Simulates a world, scans it in reference mode and prints the evaluation.
//!
//! `cargo run --release -p detect-sim --example scan -- [ACCOUNTS] [DAYS] [SEED] [THRESHOLD]`

use detect_sim as sim;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: f64| args.get(i).map_or(d, |s| s.parse().expect("a number"));
    let accounts = num(0, 300.0) as usize;
    let cfg = sim::WorldConfig {
        accounts,
        days: num(1, 28.0) as u32,
        seed: num(2, 1.0) as u64,
        cliques: (accounts / 25).max(1),
        ..Default::default()
    };
    let threshold = num(3, 0.9);
    let t = Instant::now();
    let (mut moves, truth) = sim::simulate_moves(&cfg).expect("simulate");
    let t_sim = t.elapsed();
    ingest::sort_by_time(&mut moves);
    let segments = ingest::segment_moves(&moves, 1800);
    let params = schema::ScanParams {
        threshold,
        ..Default::default()
    };
    let scan =
        scoring::scan(&segments, &schema::Season::inferred(cfg.season), &params).expect("scan");
    eprintln!(
        "{} moves in {:.2?}, scan {:.2?}: {} participants, {} candidate pairs",
        moves.len(),
        t_sim,
        t.elapsed() - t_sim,
        scan.participants,
        scan.candidate_pairs
    );
    let t = Instant::now();
    let e = sim::evaluate(&scan.pairs, &truth, threshold);
    eprintln!(
        "evaluated {} pairs in {:.2?}",
        scan.pairs.len(),
        t.elapsed()
    );
    print!("{e}");
    for o in &e.cliques.outcomes {
        println!(
            "  {} {:<12} {} accounts: {:<7} found {} extra {:?}",
            o.person,
            o.style.as_str(),
            o.accounts,
            o.status.as_str(),
            o.found,
            o.extra
        );
    }
    if std::env::var("SHOW").is_ok() {
        let ix = truth.index();
        for p in scan
            .pairs
            .iter()
            .filter(|p| ix.same_person(&p.account_a, &p.account_b))
        {
            let g = &truth.groups[ix.group_of(&p.account_a).unwrap()];
            println!(
                "  {:.3} {} -> {} {} {:?}",
                p.similarity,
                p.account_a,
                p.account_b,
                g.style,
                (
                    p.evidence.same_ip.count,
                    p.evidence.other_ip.count,
                    p.evidence.moved_stalled.count,
                    p.evidence.stalled_moved.count,
                    p.evidence.both_stalled.count
                )
            );
        }
    }
}
