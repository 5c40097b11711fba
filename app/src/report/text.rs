//! The text report, for people: what was scanned, the summary, how to read
//! it, the pairs, the cliques and the crowded addresses.

use super::*;

/// The text report: what was scanned, the summary, how to read it, the
/// pairs (flagged, or `all`), the cliques and the crowded addresses.
pub fn write_text(
    mut out: impl Write,
    season: &Season,
    info: &ScanInfo,
    result: &ScanResult,
    all: bool,
) -> anyhow::Result<()> {
    let p = &result.params;
    write_text_head(&mut out, season, info, result)?;
    if !info.quiet {
        writeln!(out)?;
        writeln!(out, "How to read this")?;
        for paragraph in viz::guide::how_to_read(p) {
            for line in wrap(&paragraph, 76) {
                writeln!(out, "  {line}")?;
            }
        }
    }
    let rows = scoring::both_ways(result, all);
    writeln!(out)?;
    if rows.is_empty() {
        writeln!(out, "No pair reaches the threshold.")?;
    } else {
        writeln!(
            out,
            "{}",
            if all { "Scored pairs" } else { "Flagged pairs" }
        )?;
        write_pairs_table(&mut out, &rows, result)?;
        if !info.quiet {
            writeln!(
                out,
                "  * flagged direction. Times are of the stronger direction, counted in \
                 {}-minute steps.",
                p.bucket_seconds / 60
            )?;
            writeln!(
                out,
                "  Same IP: of the stronger direction's first account's active time \
                 (explain's \"In short\")."
            )?;
            if info.no_season {
                writeln!(
                    out,
                    "  Evidence of a pair: ingest these logs, define their season (detect season \
                     add N), then detect explain --season N ACCOUNT_A ACCOUNT_B"
                )?;
            } else {
                writeln!(
                    out,
                    "  Evidence of a pair: detect explain --season {} ACCOUNT_A ACCOUNT_B",
                    season.number
                )?;
            }
        }
    }
    if !result.cliques.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "Cliques (accounts linked by flagged pairs; -> marks a flagged direction)"
        )?;
        for (k, c) in result.cliques.iter().enumerate() {
            let names: Vec<_> = c.members.iter().map(|m| terminal(m)).collect();
            writeln!(out, "  {}. {}", k + 1, names.join(", "))?;
            for row in rows_in(&rows, &c.members) {
                writeln!(out, "     {}", clique_pair_line(row, p.threshold))?;
            }
        }
    }
    write_crowded(&mut out, result)?;
    Ok(())
}

/// The text report's head: the season, the scan and its parameters, and
/// the summary's figures.
fn write_text_head(
    mut out: impl Write,
    season: &Season,
    info: &ScanInfo,
    result: &ScanResult,
) -> anyhow::Result<()> {
    let p = &result.params;
    let s = summary(result);
    writeln!(
        out,
        "{} ({}{})",
        info.title(season),
        season_words(season),
        if season.inferred {
            ", inferred from game names"
        } else {
            ""
        }
    )?;
    writeln!(
        out,
        "{}; {}-minute buckets, {} mode, threshold {}",
        scan_words(info),
        p.bucket_seconds / 60,
        p.mode.as_str(),
        p.threshold
    )?;
    if p.mode == schema::Mode::Improved {
        writeln!(out, "model: {}", info.model_words()?)?;
        writeln!(out, "{}", scoring::improved::score_words(&*info.model()?))?;
    }
    writeln!(out)?;
    writeln!(out, "  participants      {}", s.participants)?;
    writeln!(
        out,
        "  candidate pairs   {} ({} directed pairs scored)",
        s.candidate_pairs, s.directed_pairs
    )?;
    writeln!(
        out,
        "  flagged pairs     {} ({} directions at or above {}; {})",
        s.flagged_pairs,
        s.flagged_directed_pairs,
        p.threshold,
        info.known_words()
    )?;
    writeln!(out, "  cliques           {}", s.cliques)?;
    Ok(())
}

/// The addresses left out of candidate pairs for crowding, by pseudonym.
fn write_crowded(mut out: impl Write, result: &ScanResult) -> anyhow::Result<()> {
    let lines = crowded_lines(result);
    if lines.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "{}", viz::guide::crowded_heading(&result.params))?;
    for c in &lines {
        writeln!(out, "  {}  {}  {} accounts", c.address, c.day, c.accounts)?;
    }
    Ok(())
}

/// The pairs table of the text report, columns sized to their content.
fn write_pairs_table(
    out: &mut impl Write,
    rows: &[scoring::BothWays<'_>],
    result: &ScanResult,
) -> anyhow::Result<()> {
    let t = result.params.threshold;
    let bs = result.params.bucket_seconds;
    let sim = |x: Option<&PairScore>| {
        x.map(|p| {
            let mark = if p.similarity >= t { "*" } else { " " };
            format!("{}{mark}", viz::guide::similarity(p.similarity))
        })
        .unwrap_or_else(|| "-".into())
    };
    let mut table: Vec<Vec<String>> = vec![viz::guide::PAIR_COLUMNS
        .iter()
        .map(|(h, _)| h.replace('\u{2192}', "->"))
        .collect()];
    for r in rows {
        let strong = viz::guide::stronger(r);
        let ev = strong.map(|p| viz::guide::evidence_cells(p, bs));
        let mut line = vec![
            terminal(r.a).into_owned(),
            terminal(r.b).into_owned(),
            sim(r.ab),
            sim(r.ba),
        ];
        line.extend(ev.unwrap_or_default());
        table.push(line);
    }
    let widths: Vec<usize> = (0..table[0].len())
        .map(|c| {
            table
                .iter()
                .map(|l| l[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for line in &table {
        let mut text = String::from(" ");
        for (c, cell) in line.iter().enumerate() {
            let w = widths[c];
            if c < 2 {
                text.push_str(&format!(" {cell:<w$}"));
            } else {
                text.push_str(&format!(" {cell:>w$}"));
            }
        }
        writeln!(out, "{}", text.trim_end())?;
    }
    Ok(())
}

/// The rows whose two accounts both belong to `members`.
pub fn rows_in<'r, 'a>(
    rows: &'r [scoring::BothWays<'a>],
    members: &[String],
) -> impl Iterator<Item = &'r scoring::BothWays<'a>> + 'r {
    let inside: std::collections::BTreeSet<String> = members.iter().cloned().collect();
    rows.iter()
        .filter(move |r| inside.contains(r.a) && inside.contains(r.b))
}

/// `alice -> bob 0.9512*, bob -> alice 0.8701`: both directions, flagged
/// ones starred.
fn clique_pair_line(r: &scoring::BothWays<'_>, threshold: f64) -> String {
    let dir = |x: &str, y: &str, p: Option<&PairScore>| match p {
        Some(p) => format!(
            "{x} -> {y} {}{}",
            viz::guide::similarity(p.similarity),
            if p.similarity >= threshold { "*" } else { "" }
        ),
        None => format!("{x} -> {y} not scored"),
    };
    let (a, b) = (terminal(r.a), terminal(r.b));
    format!("{}, {}", dir(&a, &b, r.ab), dir(&b, &a, r.ba))
}

/// Greedy word wrap at `width` characters.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}
