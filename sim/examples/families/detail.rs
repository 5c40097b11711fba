//! What the held-out figures are made of: the held-out score against the
//! share of one person (is it calibrated?), recall per owner style, and the
//! false flags by what the two people share.

use super::collect::World;
use super::lofo::score;
use detect_sim::Family;
use scoring::improved::model::Model;
use std::collections::BTreeMap;

/// Score bands of the calibration table.
const BANDS: [f64; 7] = [0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0001];

/// A band is off when the share of one person differs from the mean score
/// by more than this, among at least [`MIN_PAIRS`] pairs.
const OFF_BY: f64 = 0.1;
const MIN_PAIRS: usize = 20;

/// Per held-out family, its seasons scored by the model fitted without it.
pub struct Held<'a> {
    pub family: Family,
    pub model: &'a Model,
    pub worlds: Vec<&'a World>,
}

/// The calibration table: per family and band, pairs, mean score, share
/// one person; and whether every band of every family is within
/// [`OFF_BY`].
pub fn calibration(held: &[Held<'_>]) {
    println!("| held-out family | {} | calibrated |", bands_header());
    println!("|---|{}---|", "---|".repeat(BANDS.len() - 1));
    let mut everywhere = true;
    for h in held {
        let mut rows = vec![(0usize, 0.0f64, 0usize); BANDS.len() - 1];
        for p in h.worlds.iter().flat_map(|w| w.pairs.iter()) {
            let Some(s) = score(h.model, p) else { continue };
            let i = BANDS.windows(2).position(|b| (b[0]..b[1]).contains(&s));
            if let Some(r) = i.map(|i| &mut rows[i]) {
                r.0 += 1;
                r.1 += s;
                r.2 += usize::from(p.one);
            }
        }
        let mut ok = true;
        let cells: Vec<String> = rows
            .iter()
            .map(|&(n, sum, one)| {
                if n == 0 {
                    return "-".into();
                }
                let (mean, share) = (sum / n as f64, one as f64 / n as f64);
                ok &= n < MIN_PAIRS || (mean - share).abs() <= OFF_BY;
                format!("{n}: {mean:.2} / {share:.2}")
            })
            .collect();
        everywhere &= ok;
        println!(
            "| {} | {} | {} |",
            h.family.as_str(),
            cells.join(" | "),
            if ok { "yes" } else { "no" }
        );
    }
    println!();
    println!(
        "Cells: pairs: mean score / share one person. Calibrated on every held-out family (each band of {MIN_PAIRS} pairs or more within {OFF_BY}): {}.",
        if everywhere { "yes" } else { "no" }
    );
}

fn bands_header() -> String {
    BANDS
        .windows(2)
        .map(|b| format!("{:.1}-{:.1}", b[0], b[1].min(1.0)))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Per family: recall per owner style (flagged / true pairs, never-scored
/// pairs counted as missed) and the false flags by what the two people
/// share.
pub fn breakdown(held: &[Held<'_>]) {
    println!("| held-out family | lockstep | phone | cautious | rare puppet | false flags: household | office | carrier NAT | other |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for h in held {
        let t = h.model.threshold();
        let mut found: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        let mut false_flags: BTreeMap<&str, usize> = BTreeMap::new();
        for w in &h.worlds {
            for g in &w.truth.groups {
                let n = g.accounts.len() * (g.accounts.len() - 1) / 2;
                found.entry(g.style.as_str()).or_default().1 += n;
            }
            for p in &w.pairs {
                let flagged = score(h.model, p).is_some_and(|s| s >= t);
                if flagged && p.one {
                    found.entry(p.kind.as_str()).or_default().0 += 1;
                } else if flagged {
                    *false_flags.entry(p.kind.as_str()).or_default() += 1;
                }
            }
        }
        let style = |s: &str| match found.get(s) {
            Some(&(f, n)) if n > 0 => format!("{f}/{n} = {:.3}", f as f64 / n as f64),
            _ => "-".into(),
        };
        let ff = |k: &str| false_flags.get(k).copied().unwrap_or(0);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            h.family.as_str(),
            style("lockstep"),
            style("phone"),
            style("cautious"),
            style("rare_puppet"),
            ff("household"),
            ff("office"),
            ff("carrier_nat"),
            ff("other")
        );
    }
}
