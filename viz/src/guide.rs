//! The words every report shares, text and HTML alike: how to read it, the
//! measured precision of the mode in use, the names of the columns (with
//! units), and the one rounding rule for numbers shown to people.
//!
//! Rounding: a person sees a similarity rounded to four decimals
//! ([`similarity`]); whether a pair is flagged is always marked separately,
//! never read off the rounded figure. Machine formats (JSON, CSV) carry the
//! full value.

use chrono::DateTime;
use schema::{Mode, PairScore, ScanParams, ScanResult, Season, SECONDS_PER_DAY};
use serde::Serialize;

/// What a mode's flags were worth when measured against ground truth
/// (EVALUATION.md).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeasuredPrecision {
    /// Share of flagged pairs that were one person, mean over the worlds.
    pub mean: f64,
    /// The lowest and highest share seen over those worlds.
    pub low: f64,
    pub high: f64,
    /// Where it was measured, in a few words.
    pub measured_on: &'static str,
}

/// Reference mode at threshold 0.9, 30-minute buckets, undirected pairs
/// (EVALUATION.md: over the eight world families of `detect simulate`, ten
/// seasons each, mean 0.80, from 0.41 in the sparse family to 0.95).
pub const REFERENCE_PRECISION: MeasuredPrecision = MeasuredPrecision {
    mean: 0.80,
    low: 0.41,
    high: 0.95,
    measured_on: "eight simulated world families at threshold 0.9 (EVALUATION.md)",
};

/// Improved mode at the shipped model's threshold: its held-out figures
/// (each world family measured with the model's features fitted on the
/// others; [`scoring::improved::model::Provenance::held_out`]).
pub fn improved_precision() -> MeasuredPrecision {
    let held = &scoring::improved::Model::shipped().provenance().held_out;
    let p: Vec<f64> = held.iter().map(|h| h.precision).collect();
    MeasuredPrecision {
        mean: p.iter().sum::<f64>() / p.len().max(1) as f64,
        low: p.iter().copied().fold(f64::INFINITY, f64::min).min(1.0),
        high: p.iter().copied().fold(0.0, f64::max),
        measured_on: "simulated world families, each held out of the model's fit in turn, at the model's threshold (EVALUATION.md)",
    }
}

/// The measured precision of a mode.
pub fn measured_precision(mode: Mode) -> MeasuredPrecision {
    match mode {
        Mode::Reference => REFERENCE_PRECISION,
        Mode::Improved => improved_precision(),
    }
}

/// "How to read this report": short paragraphs of plain text (the caller
/// escapes them for its format).
pub fn how_to_read(params: &ScanParams) -> Vec<String> {
    let p = measured_precision(params.mode);
    vec![
        "A flag is a reason to look, not a verdict. Two accounts are flagged when, \
         seen from one of them, they move at the same moments from the same place \
         and stay silent at the same moments while games wait on them."
            .to_owned(),
        "People who share a home or an office are the usual false positive: a couple \
         playing side by side every evening looks like one person. Read the evidence \
         and the timeline before acting, and ask the players."
            .to_owned(),
        format!(
            "How often a flag is right: in {} mode, {:.0} % of flagged pairs were one \
             person on average ({:.0} % to {:.0} %), measured on {}.",
            params.mode.as_str(),
            p.mean * 100.0,
            p.low * 100.0,
            p.high * 100.0,
            p.measured_on
        ),
        format!(
            "Similarity runs from 0 to 1 (flagged at {} or above, in either direction). \
             It is asymmetric: a main account also played from a phone scores lower \
             on its own side than its second account does.",
            crate::fmt::decimal(params.threshold)
        ),
    ]
}

/// A similarity as people see it: rounded to four decimals.
pub fn similarity(x: f64) -> String {
    format!("{x:.4}")
}

/// Buckets as hours (or days past 48 hours), one decimal at most:
/// `3.5 h`, `2 h`, `4.5 d`.
pub fn buckets_as_time(buckets: u64, bucket_seconds: i64) -> String {
    let hours = buckets as f64 * bucket_seconds as f64 / 3600.0;
    let (value, unit) = if hours > 48.0 {
        (hours / 24.0, "d")
    } else {
        (hours, "h")
    };
    let s = format!("{value:.1}");
    let s = s.strip_suffix(".0").unwrap_or(&s);
    format!("{s} {unit}")
}

/// A bucket's length as a window's name: `half-hour`, `hour`, `15-minute`.
fn window_words(bucket_seconds: i64) -> String {
    match bucket_seconds {
        1800 => "half-hour".to_owned(),
        3600 => "hour".to_owned(),
        s if s % 60 == 0 => format!("{}-minute", s / 60),
        s => format!("{s}-second"),
    }
}

/// How long the two accounts of a pair moved from one IP, with its unit
/// and the account whose time it counts (the walked side of a direction):
/// `18 h (36 half-hour windows) of u023's active time`.
pub fn same_ip_words(count: u64, walked: &str, bucket_seconds: i64) -> String {
    format!(
        "{} ({count} {} window{}) of {walked}'s active time",
        buckets_as_time(count, bucket_seconds),
        window_words(bucket_seconds),
        if count == 1 { "" } else { "s" }
    )
}

/// The same-IP cell of a pairs table, in the unit of [`same_ip_words`]:
/// `18 h (36 windows)`, the windows being the scan's buckets.
pub fn same_ip_cell(count: u64, bucket_seconds: i64) -> String {
    format!(
        "{} ({count} window{})",
        buckets_as_time(count, bucket_seconds),
        if count == 1 { "" } else { "s" }
    )
}

/// The one summary of a pair that every surface shows (the CLI's
/// `explain`, the report, the web's pages), from its stronger direction:
/// `same IP: 18 h (36 half-hour windows) of u023's active time`.
pub fn pair_summary(row: &scoring::BothWays<'_>, bucket_seconds: i64) -> String {
    match stronger(row) {
        Some(p) => direction_summary(p, &p.account_a, bucket_seconds),
        None => "not scored".to_owned(),
    }
}

/// [`pair_summary`] of the direction `p`, its walked account shown as
/// `walked` (escaped for where it is shown).
pub fn direction_summary(p: &PairScore, walked: &str, bucket_seconds: i64) -> String {
    format!(
        "same IP: {}",
        same_ip_words(p.evidence.same_ip.count, walked, bucket_seconds)
    )
}

/// The columns of a pairs table, in order: (short heading, what it means).
/// Evidence columns describe the stronger direction of the pair.
pub const PAIR_COLUMNS: [(&str, &str); 8] = [
    ("Account A", "one account of the pair (names sorted)"),
    ("Account B", "the other account"),
    (
        "A\u{2192}B",
        "similarity seen from A's moves (0 to 1; flagged ones marked)",
    ),
    (
        "B\u{2192}A",
        "similarity seen from B's moves (0 to 1; flagged ones marked)",
    ),
    (
        "Same IP",
        "time both moved within the same hour and a half from one IP (and in how many \
         windows), of the stronger direction's first account's active time",
    ),
    (
        "Other IPs",
        "time both moved within the same hour and a half from different IPs",
    ),
    ("Both waiting", "time both kept games waiting at once"),
    (
        "Longest joint wait",
        "the longest joint wait that ended with both moving from one IP",
    ),
];

/// The evidence figures of a pair's stronger direction, as shown in the
/// last four columns of [`PAIR_COLUMNS`].
pub fn evidence_cells(p: &PairScore, bucket_seconds: i64) -> [String; 4] {
    let e = &p.evidence;
    let t = |n: u64| buckets_as_time(n, bucket_seconds);
    [
        same_ip_cell(e.same_ip.count, bucket_seconds),
        t(e.other_ip.count),
        t(e.both_stalled.count),
        if e.max_boost == 0 {
            "\u{2013}".to_owned()
        } else {
            t(e.max_boost.into())
        },
    ]
}

/// The direction of a pair with the higher similarity: the one whose
/// evidence a table shows.
pub fn stronger<'a>(r: &scoring::BothWays<'a>) -> Option<&'a PairScore> {
    match (r.ab, r.ba) {
        (Some(x), Some(y)) => Some(if y.similarity > x.similarity { y } else { x }),
        (x, y) => x.or(y),
    }
}

/// The anchor of a pair in the HTML report (and the name of its evidence):
/// `pair-3` for the third row of the pairs table.
pub fn pair_anchor(index: usize) -> String {
    format!("pair-{}", index + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_in_hours_then_days() {
        assert_eq!(buckets_as_time(7, 1800), "3.5 h");
        assert_eq!(buckets_as_time(4, 1800), "2 h");
        assert_eq!(buckets_as_time(0, 1800), "0 h");
        assert_eq!(buckets_as_time(216, 1800), "4.5 d");
    }

    #[test]
    fn one_rounding_rule() {
        assert_eq!(similarity(0.989_151), "0.9892");
        assert_eq!(similarity(0.989_149), "0.9891");
        assert_eq!(similarity(0.5), "0.5000");
    }

    #[test]
    fn the_guide_names_the_household_caveat_and_the_precision() {
        let text = how_to_read(&ScanParams::default()).join(" ");
        assert!(text.contains("not a verdict"));
        assert!(text.contains("home or an office"));
        assert!(text.contains("80 % of flagged pairs"), "{text}");
        assert!(text.contains("(41 % to 95 %)"), "{text}");
    }

    #[test]
    fn improved_mode_claims_its_held_out_precision_range() {
        let params = ScanParams {
            mode: Mode::Improved,
            ..ScanParams::default()
        };
        let text = how_to_read(&params).join(" ");
        let held = &scoring::improved::Model::shipped().provenance().held_out;
        let low = held.iter().map(|h| h.precision).fold(1.0, f64::min);
        assert!(text.contains(&format!("({:.0} %", low * 100.0)), "{text}");
        assert!(text.contains("held out of the model's fit"), "{text}");
    }
}

/// `YYYY-MM-DD` of a UTC epoch second.
fn utc_day(t: i64) -> String {
    DateTime::from_timestamp(t, 0)
        .map_or_else(|| t.to_string(), |d| d.format("%Y-%m-%d").to_string())
}

/// A season in words: `games ^4pLeague_S7_, 2015-05-01 to 2015-06-30`.
pub fn season_words(s: &Season) -> String {
    let range = match (s.from, s.to) {
        (None, None) => "all time".to_owned(),
        (Some(f), None) => format!("from {}", utc_day(f)),
        (None, Some(t)) => format!("until {}", utc_day(t - 1)),
        (Some(f), Some(t)) => format!("{} to {}", utc_day(f), utc_day(t - 1)),
    };
    format!("games {}, {}", s.games, range)
}

/// A crowded address as every report shows it: by pseudonym.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CrowdedLine {
    /// `crowded-IP-1`, ... most accounts first.
    pub address: String,
    /// `YYYY-MM-DD`.
    pub day: String,
    pub accounts: usize,
}

/// The pseudonym of the `k`-th crowded address (1-based, most accounts
/// first): `crowded-IP-k`. The raw address stays in the store.
pub fn crowded_pseudonym(k: usize) -> String {
    format!("crowded-IP-{k}")
}

/// The scan's crowded addresses, by pseudonym, in the scan's order (most
/// accounts first).
pub fn crowded_lines(result: &ScanResult) -> Vec<CrowdedLine> {
    result
        .crowded
        .iter()
        .enumerate()
        .map(|(k, c)| CrowdedLine {
            address: crowded_pseudonym(k + 1),
            day: utc_day(c.day * SECONDS_PER_DAY),
            accounts: c.accounts,
        })
        .collect()
}

/// The heading of the crowded-address list, text and HTML alike.
pub fn crowded_heading(params: &ScanParams) -> String {
    format!(
        "Crowded addresses: more than {} accounts on one day, left out of that day's candidate pairs",
        params.crowd_limit
    )
}
