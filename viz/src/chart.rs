//! Score distributions (SPEC section 6): a season's similarities against
//! rank, and two seasons overlaid.
//!
//! Values that are not finite are left out (and counted in the caption);
//! the others are clamped to `0..=1`. Lines are thinned to at most two points
//! per pixel column, so a season with a million pairs still gives a small
//! file.

use crate::canvas::canvas;
use crate::escape::xml_safe;
use crate::fmt::{decimal, percent, px};
use svg::node::element::{Circle, Group, Line, Path, Rectangle, Text};
use svg::Document;

const WIDTH: f64 = 800.0;
const HEIGHT: f64 = 520.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 30.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 400.0;
/// Neutral, so it is not mistaken for a series.
const THRESHOLD_COLOUR: &str = "#222222";
const SERIES_COLOURS: [&str; 2] = ["#4e79a7", "#e15759"];

/// One season's similarities, for [`compare`].
#[derive(Debug, Clone, Copy)]
pub struct Series<'a> {
    /// How the season is named in the legend, e.g. "season 6".
    pub label: &'a str,
    /// Similarities of all its directed pairs, in any order.
    pub similarities: &'a [f64],
}

/// Similarities sorted descending, clamped to `0..=1`, and how many values
/// were left out as not finite.
struct Sorted {
    values: Vec<f64>,
    dropped: usize,
}

impl Sorted {
    fn new(similarities: &[f64]) -> Self {
        let mut values: Vec<f64> = similarities
            .iter()
            .filter(|v| v.is_finite())
            .map(|v| v.clamp(0.0, 1.0))
            .collect();
        values.sort_unstable_by(|a, b| b.total_cmp(a));
        Sorted {
            dropped: similarities.len() - values.len(),
            values,
        }
    }

    /// How many values are at or above `threshold`.
    fn at_or_above(&self, threshold: f64) -> usize {
        self.values.partition_point(|&v| v >= threshold)
    }
}

/// Similarity (y, 0 to 1) against rank (x, 1 to n, most similar first) of
/// all directed pairs of a scan, with the threshold drawn and the count and
/// share at or above it in the caption.
pub fn distribution(similarities: &[f64], threshold: f64, title: &str) -> Document {
    let s = Sorted::new(similarities);
    let n = s.values.len();
    let x = |rank: usize| {
        if n <= 1 {
            (LEFT + WIDTH - RIGHT) / 2.0
        } else {
            LEFT + (rank - 1) as f64 / (n - 1) as f64 * plot_width()
        }
    };
    let mut ticks: Vec<(f64, String)> = Vec::new();
    if n > 0 {
        let step = nice_step(n);
        ticks.push((x(1), "1".to_owned()));
        ticks.extend(
            (step..=n)
                .step_by(step)
                .filter(|&r| r > 1)
                .map(|r| (x(r), r.to_string())),
        );
    }
    let k = s.at_or_above(threshold);
    let mut caption = format!(
        "{k} of {n} directed pairs ({}%) at or above {}",
        percent(k, n),
        decimal(threshold)
    );
    if s.dropped > 0 {
        caption.push_str(&format!(" ({} values not finite, left out)", s.dropped));
    }
    let points = s.values.iter().enumerate().map(|(i, &v)| (x(i + 1), y(v)));
    frame(title, "rank (directed pairs, most similar first)", &ticks)
        .add(threshold_line(threshold))
        .add(series(points, SERIES_COLOURS[0], 0))
        .add(
            Text::new(caption)
                .set("x", LEFT)
                .set("y", BOTTOM + 74.0)
                .set("class", "caption"),
        )
}

/// Two seasons' distributions overlaid. The x axis is the share of a
/// season's pairs (rank / n, 0 to 100 %) so seasons of different sizes
/// compare: at share `x` a curve is at `y` when a share `x` of its pairs are
/// at least `y` similar. The legend gives each season's share at or above
/// the threshold.
pub fn compare(a: &Series, b: &Series, threshold: f64) -> Document {
    let ticks: Vec<(f64, String)> = (0..=4)
        .map(|q| (LEFT + q as f64 / 4.0 * plot_width(), format!("{}%", q * 25)))
        .collect();
    let title = format!(
        "{} vs {}: similarity by share of pairs",
        xml_safe(a.label),
        xml_safe(b.label)
    );
    let mut doc = frame(
        &title,
        "share of directed pairs, most similar first",
        &ticks,
    )
    .add(threshold_line(threshold));
    let mut legend = Group::new().set("class", "legend");
    for (i, season) in [a, b].into_iter().enumerate() {
        let s = Sorted::new(season.similarities);
        let n = s.values.len();
        let k = s.at_or_above(threshold);
        let points = s
            .values
            .iter()
            .enumerate()
            .map(|(r, &v)| (LEFT + (r + 1) as f64 / n as f64 * plot_width(), y(v)));
        doc = doc.add(series(points, SERIES_COLOURS[i], i));
        let ly = BOTTOM + 62.0 + 18.0 * i as f64;
        legend = legend.add(
            Group::new()
                .set("class", "legend-entry")
                .add(
                    Rectangle::new()
                        .set("x", LEFT)
                        .set("y", ly - 9.0)
                        .set("width", 14)
                        .set("height", 10)
                        .set("fill", SERIES_COLOURS[i]),
                )
                .add(
                    Text::new(format!(
                        "{}: {}% of {n} pairs >= {}",
                        xml_safe(season.label),
                        percent(k, n),
                        decimal(threshold)
                    ))
                    .set("x", LEFT + 20.0)
                    .set("y", ly),
                ),
        );
    }
    doc.add(legend)
}

fn plot_width() -> f64 {
    WIDTH - LEFT - RIGHT
}

/// The y coordinate of similarity `v`.
fn y(v: f64) -> f64 {
    BOTTOM - v.clamp(0.0, 1.0) * (BOTTOM - TOP)
}

/// The canvas, title, axes, y ticks and grid, and the given x ticks.
fn frame(title: &str, x_label: &str, x_ticks: &[(f64, String)]) -> Document {
    canvas(WIDTH, HEIGHT, 12, "chart")
        .add(
            Text::new(xml_safe(title))
                .set("x", LEFT)
                .set("y", 28)
                .set("font-size", 16)
                .set("font-weight", "bold")
                .set("class", "title"),
        )
        .add(axes(x_label, x_ticks))
}

/// The y grid with its ticks, the given x ticks, the axis lines and both
/// axis labels.
fn axes(x_label: &str, x_ticks: &[(f64, String)]) -> Group {
    let right = LEFT + plot_width();
    let axes = with_x_ticks(y_grid(Group::new().set("class", "axes")), x_ticks);
    axes.add(
        Path::new()
            .set("d", format!("M {LEFT} {TOP} V {BOTTOM} H {right}"))
            .set("fill", "none")
            .set("stroke", "#333333"),
    )
    .add(
        Text::new(x_label)
            .set("x", px((LEFT + right) / 2.0))
            .set("y", BOTTOM + 40.0)
            .set("text-anchor", "middle"),
    )
    .add(
        Text::new("similarity")
            .set("x", 18)
            .set("y", px((TOP + BOTTOM) / 2.0))
            .set("text-anchor", "middle")
            .set(
                "transform",
                format!("rotate(-90 18 {})", px((TOP + BOTTOM) / 2.0)),
            ),
    )
}

/// A grid line and a label at every tenth of similarity.
fn y_grid(mut axes: Group) -> Group {
    let right = LEFT + plot_width();
    for tenth in 0..=10 {
        let v = tenth as f64 / 10.0;
        axes = axes
            .add(
                Line::new()
                    .set("x1", LEFT)
                    .set("x2", right)
                    .set("y1", px(y(v)))
                    .set("y2", px(y(v)))
                    .set("stroke", "#e4e4e4")
                    .set("stroke-width", 1),
            )
            .add(
                Text::new(format!("{v:.1}"))
                    .set("x", LEFT - 8.0)
                    .set("y", px(y(v) + 4.0))
                    .set("text-anchor", "end"),
            );
    }
    axes
}

/// A tick and its label at each of `x_ticks`.
fn with_x_ticks(mut axes: Group, x_ticks: &[(f64, String)]) -> Group {
    for (x, label) in x_ticks {
        axes = axes
            .add(
                Line::new()
                    .set("x1", px(*x))
                    .set("x2", px(*x))
                    .set("y1", BOTTOM)
                    .set("y2", BOTTOM + 5.0)
                    .set("stroke", "#333333"),
            )
            .add(
                Text::new(label.clone())
                    .set("x", px(*x))
                    .set("y", BOTTOM + 18.0)
                    .set("text-anchor", "middle"),
            );
    }
    axes
}

/// The dashed threshold line across the plot, labelled at its right end.
fn threshold_line(threshold: f64) -> Group {
    let ty = px(y(threshold));
    let right = LEFT + plot_width();
    Group::new()
        .set("class", "threshold")
        .add(
            Line::new()
                .set("x1", LEFT)
                .set("x2", right)
                .set("y1", ty)
                .set("y2", ty)
                .set("stroke", THRESHOLD_COLOUR)
                .set("stroke-width", 1.5)
                .set("stroke-dasharray", "6 4"),
        )
        .add(
            Text::new(format!("threshold {}", decimal(threshold)))
                .set("x", right)
                .set("y", px(ty - 5.0))
                .set("text-anchor", "end")
                .set("fill", THRESHOLD_COLOUR),
        )
}

/// A line through `points` (in x order), thinned to the first and last point
/// of each pixel column; a dot when there is a single point.
fn series(points: impl Iterator<Item = (f64, f64)>, colour: &str, index: usize) -> Group {
    let mut kept: Vec<(f64, f64)> = Vec::new();
    let mut column: Option<i64> = None;
    let mut pending: Option<(f64, f64)> = None;
    for (x, y) in points {
        let c = x.floor() as i64;
        if column == Some(c) {
            pending = Some((x, y));
            continue;
        }
        kept.extend(pending.take());
        kept.push((x, y));
        column = Some(c);
    }
    kept.extend(pending);
    let group = Group::new()
        .set("class", "series")
        .set("data-series", index);
    match kept.as_slice() {
        [] => group,
        [(x, y)] => group.add(
            Circle::new()
                .set("cx", px(*x))
                .set("cy", px(*y))
                .set("r", 3)
                .set("fill", colour),
        ),
        _ => {
            let d: Vec<String> = kept
                .iter()
                .enumerate()
                .map(|(i, (x, y))| {
                    format!("{} {} {}", if i == 0 { "M" } else { "L" }, px(*x), px(*y))
                })
                .collect();
            group.add(
                Path::new()
                    .set("d", d.join(" "))
                    .set("fill", "none")
                    .set("stroke", colour)
                    .set("stroke-width", 2)
                    .set("stroke-linejoin", "round"),
            )
        }
    }
}

/// A round tick step (1, 2 or 5 times a power of ten) giving about six ticks
/// for `n` ranks.
fn nice_step(n: usize) -> usize {
    let target = n.div_ceil(6).max(1);
    let mut base = 1usize;
    loop {
        for m in [1, 2, 5] {
            if m * base >= target {
                return m * base;
            }
        }
        base *= 10;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(1), 1);
        assert_eq!(nice_step(10), 2);
        assert_eq!(nice_step(80), 20);
        assert_eq!(nice_step(1000), 200);
        assert_eq!(nice_step(100_000), 20_000);
    }

    #[test]
    fn sorted_drops_non_finite_and_counts_at_threshold() {
        let s = Sorted::new(&[0.5, f64::NAN, 0.95, 0.9, f64::INFINITY, 1.2]);
        assert_eq!(s.values, vec![1.0, 0.95, 0.9, 0.5]);
        assert_eq!(s.dropped, 2);
        assert_eq!(s.at_or_above(0.9), 3);
        assert_eq!(s.at_or_above(0.99), 1);
    }

    #[test]
    fn long_series_are_thinned_to_the_plot_width() {
        let values: Vec<f64> = (0..200_000).map(|i| 1.0 - i as f64 / 200_000.0).collect();
        let svg = distribution(&values, 0.9, "big").to_string();
        let d = svg
            .split(" d=\"")
            .filter(|p| p.starts_with("M 70 "))
            .map(|p| p.split('"').next().unwrap_or_default())
            .max_by_key(|d| d.len())
            .expect("the series path");
        let points = d.matches(['M', 'L']).count();
        assert!(
            points >= 2 && points <= 2 * (plot_width() as usize + 2),
            "{points}"
        );
        assert!(svg.len() < 100_000, "{}", svg.len());
    }
}
