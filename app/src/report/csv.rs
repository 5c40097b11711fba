//! The CSV reports: `--format csv` (the JSON report's pair fields) and
//! `--format reference-csv` (the reference's columns, then the evidence).
//! Every user-supplied cell goes through [`viz::escape::csv_cell`].

use super::listed;
use schema::{Cell, PairScore, ScanResult};
use std::io::Write;
use viz::escape::csv_cell;

/// The reference's header, then the evidence columns (`--format
/// reference-csv`).
pub const REFERENCE_CSV_HEADER: [&str; 18] = [
    "similarity",
    "user_a",
    "user_b",
    "match",
    "mismatch",
    "delay_match",
    "delay_mismatch",
    "same_ip_score",
    "other_ip_score",
    "moved_stalled",
    "moved_stalled_score",
    "stalled_moved",
    "stalled_moved_score",
    "both_stalled_score",
    "sum",
    "weight",
    "max_boost",
    "max_boost_bucket",
];

/// The CSV header: the JSON report's pair fields, nested ones joined by dots.
pub const CSV_HEADER: [&str; 18] = [
    "account_a",
    "account_b",
    "similarity",
    "flagged",
    "sum",
    "weight",
    "evidence.same_ip.count",
    "evidence.same_ip.score",
    "evidence.other_ip.count",
    "evidence.other_ip.score",
    "evidence.moved_stalled.count",
    "evidence.moved_stalled.score",
    "evidence.stalled_moved.count",
    "evidence.stalled_moved.score",
    "evidence.both_stalled.count",
    "evidence.both_stalled.score",
    "evidence.max_boost",
    "evidence.max_boost_bucket",
];

/// Writes one CSV row: the one place CSV cells are written.
fn csv_row<W: Write, I, S>(w: &mut csv::Writer<W>, cells: I) -> anyhow::Result<()>
where
    I: IntoIterator<Item = S>,
    S: AsRef<[u8]>,
{
    w.write_record(cells)?;
    Ok(())
}

/// Pairs formatted per batch: the batch's rows are made on every core, then
/// written in order; memory stays at one batch of text (about 8 MB).
const CSV_BATCH: usize = 65_536;

/// `--format csv`: the JSON report's pair fields, one row per directed pair,
/// then the columns `more_header` names, filled for each pair by `more`.
pub fn write_csv<const N: usize>(
    mut out: impl Write,
    result: &ScanResult,
    all: bool,
    more_header: [&str; N],
    more: impl Fn(&PairScore) -> [&'static str; N] + Sync,
) -> anyhow::Result<()> {
    use rayon::iter::ParallelIterator;
    use rayon::slice::ParallelSlice;
    {
        let mut w = csv::Writer::from_writer(&mut out);
        csv_row(&mut w, CSV_HEADER.iter().chain(&more_header))?;
        w.flush()?;
    }
    let t = result.params.threshold;
    for batch in listed(result, all).chunks(CSV_BATCH) {
        let parts: Vec<Vec<u8>> = batch
            .par_chunks(CSV_BATCH / 16)
            .map(|pairs| {
                let mut w = csv::Writer::from_writer(Vec::new());
                for p in pairs {
                    csv_pair(&mut w, p, t, &more(p))?;
                }
                Ok(w.into_inner().map_err(|e| e.into_error())?)
            })
            .collect::<anyhow::Result<_>>()?;
        for part in parts {
            out.write_all(&part)?;
        }
    }
    out.flush()?;
    Ok(())
}

/// One row of `--format csv`.
fn csv_pair<W: Write>(
    w: &mut csv::Writer<W>,
    p: &PairScore,
    threshold: f64,
    more: &[&str],
) -> anyhow::Result<()> {
    // Integers as `Display` writes them, without its machinery.
    let mut num = itoa::Buffer::new();
    let e = &p.evidence;
    w.write_field(csv_cell(&p.account_a).as_bytes())?;
    w.write_field(csv_cell(&p.account_b).as_bytes())?;
    // Written as the JSON report writes it, digit for digit (a float's
    // shortest text fits 32 bytes).
    let mut similarity = std::io::Cursor::new([0u8; 32]);
    serde_json::to_writer(&mut similarity, &p.similarity)?;
    let len = similarity.position() as usize;
    w.write_field(&similarity.get_ref()[..len])?;
    w.write_field(if p.similarity >= threshold {
        "true"
    } else {
        "false"
    })?;
    w.write_field(num.format(p.sum))?;
    w.write_field(num.format(p.weight))?;
    for cell in [
        Cell::SameIp,
        Cell::OtherIp,
        Cell::MovedStalled,
        Cell::StalledMoved,
        Cell::BothStalled,
    ] {
        w.write_field(num.format(e.tally(cell).count))?;
        w.write_field(num.format(e.tally(cell).score))?;
    }
    w.write_field(num.format(e.max_boost))?;
    match e.max_boost_bucket {
        Some(b) => w.write_field(num.format(b))?,
        None => w.write_field("")?,
    }
    for cell in more {
        w.write_field(csv_cell(cell).as_bytes())?;
    }
    w.write_record(None::<&[u8]>)?;
    Ok(())
}

/// `--format reference-csv`: the reference's columns, filled, then the
/// evidence.
pub fn write_reference_csv(out: impl Write, result: &ScanResult, all: bool) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    csv_row(&mut w, REFERENCE_CSV_HEADER)?;
    for p in listed(result, all) {
        let e = &p.evidence;
        let n = |c: Cell| e.tally(c).count.to_string();
        let s = |c: Cell| e.tally(c).score.to_string();
        csv_row(
            &mut w,
            [
                p.similarity.to_string(),
                csv_cell(&p.account_a).into_owned(),
                csv_cell(&p.account_b).into_owned(),
                n(Cell::SameIp),
                n(Cell::OtherIp),
                n(Cell::BothStalled),
                (e.moved_stalled.count + e.stalled_moved.count).to_string(),
                s(Cell::SameIp),
                s(Cell::OtherIp),
                n(Cell::MovedStalled),
                s(Cell::MovedStalled),
                n(Cell::StalledMoved),
                s(Cell::StalledMoved),
                s(Cell::BothStalled),
                p.sum.to_string(),
                p.weight.to_string(),
                e.max_boost.to_string(),
                e.max_boost_bucket
                    .map(|b| b.to_string())
                    .unwrap_or_default(),
            ],
        )?;
    }
    w.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// More pairs than one batch: rows made on several threads come out in
    /// the scan's order, one line each, header first.
    #[test]
    fn rows_of_many_batches_keep_the_scan_order() {
        let n = CSV_BATCH + CSV_BATCH / 3;
        let pairs = (0..n)
            .map(|i| PairScore {
                account_a: format!("a{i}"),
                account_b: format!("=b{i}"),
                similarity: 1.0 - i as f64 / n as f64,
                sum: i as i64,
                weight: 1,
                evidence: Default::default(),
            })
            .collect();
        let result = ScanResult {
            params: Default::default(),
            participants: 0,
            candidate_pairs: 0,
            pairs,
            cliques: Vec::new(),
            crowded: Vec::new(),
        };
        let mut out = Vec::new();
        write_csv(&mut out, &result, true, ["n"], |p| {
            [if p.sum % 2 == 0 { "even" } else { "odd" }]
        })
        .expect("written");
        let text = String::from_utf8(out).expect("UTF-8");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), n + 1);
        assert!(lines[0].starts_with("account_a,account_b,similarity,"));
        for (i, line) in lines[1..].iter().enumerate() {
            let parity = if i % 2 == 0 { "even" } else { "odd" };
            assert!(
                line.starts_with(&format!("a{i},'=b{i},")) && line.ends_with(parity),
                "row {i}: {line}"
            );
        }
    }
}
