//! The parts of a picture, each a group of SVG nodes: the frame and title,
//! the legend and key, column backgrounds, rules, highlights, and the columns
//! with their marks.

use super::columns::Columns;
use super::layout::Layout;
use super::{duration, plural, Highlight, Kind, Mark, LEFT, LINE, PX_PER_HOUR, RULE_SECONDS};
use crate::canvas::canvas;
use crate::escape::xml_safe;
use crate::fmt::{px, utc_date, utc_minute};
use svg::node::element::{Group, Line, Rectangle, Text, Title};
use svg::Document;

/// The canvas with its white ground and the title.
pub(super) fn frame(layout: &Layout, title: &str) -> Document {
    let (width, height) = (layout.width, layout.height);
    canvas(width, height, 11, "timeline").add(
        Text::new(xml_safe(title))
            .set("x", 12)
            .set("y", 22)
            .set("font-size", 16)
            .set("font-weight", "bold")
            .set("class", "title"),
    )
}

/// One entry per account, then the key to the marks.
pub(super) fn legend(names: &[&str], marks: &[Mark], layout: &Layout, marked: bool) -> Group {
    let mut legend = Group::new().set("class", "legend");
    let drawn: std::collections::BTreeSet<usize> = marks.iter().map(|m| m.account).collect();
    for (i, name) in names.iter().enumerate() {
        let ly = layout.title_h + LINE * i as f64;
        let note = if drawn.contains(&i) {
            ""
        } else {
            " (nothing in range)"
        };
        legend = legend.add(
            Group::new()
                .set("class", "legend-entry")
                .set("data-account", xml_safe(name).into_owned())
                .add(
                    Rectangle::new()
                        .set("x", LEFT)
                        .set("y", px(ly))
                        .set("width", 10)
                        .set("height", 10)
                        .set("fill", crate::colour(i)),
                )
                .add(crate::marks::mark(
                    crate::shape(i),
                    LEFT + 14.0,
                    ly,
                    10.0,
                    crate::colour(i),
                    None,
                ))
                .add(
                    Text::new(format!("{}{note}", xml_safe(name)))
                        .set("x", LEFT + 30.0)
                        .set("y", px(ly + 9.0)),
                ),
        );
    }
    key(
        legend,
        layout.title_h + LINE * names.len() as f64 + 4.0,
        layout,
        marked,
    )
}

/// The key: what a shape, a bar and a rule mean, each with a sample, and,
/// when the picture marks buckets (`marked`), what the star and band mean.
fn key(mut legend: Group, key_y: f64, layout: &Layout, marked: bool) -> Group {
    let samples = [
        Rectangle::new().set("width", 8).set("height", 8),
        Rectangle::new().set("width", 1.5).set("height", 8),
        Rectangle::new().set("width", 10).set("height", 1.2),
        Rectangle::new().set("width", 10).set("height", 4),
    ];
    let lines = [
        format!(
            "shape: moved from this IP in a {} bucket (each account its own colour and shape)",
            duration(layout.bucket)
        ),
        "thin bar: stalled (a game waited), at the IP of the next move".to_owned(),
        "rules every 8 hours, heavier at midnight UTC".to_owned(),
        "\u{2605} and band: a bucket that weighed most in the score".to_owned(),
    ];
    let shown = if marked { 4 } else { 3 };
    for (i, (sample, line)) in samples.into_iter().zip(lines).take(shown).enumerate() {
        let ly = key_y + LINE * i as f64;
        legend = legend
            .add(
                sample
                    .set("x", LEFT + 2.0)
                    .set("y", px(ly + 1.0))
                    .set("fill", "#777777"),
            )
            .add(
                Text::new(line)
                    .set("x", LEFT + 16.0)
                    .set("y", px(ly + 9.0))
                    .set("fill", "#555555")
                    .set("class", "key"),
            );
    }
    legend
}

/// What a picture with nothing in range says.
pub(super) fn empty(layout: &Layout) -> Text {
    Text::new("no activity in the selected range")
        .set("x", LEFT)
        .set("y", px(layout.top + LINE))
        .set("class", "empty")
}

/// The pale ground of each column; the "other IPs" column in another tint.
pub(super) fn backgrounds(columns: &Columns, layout: &Layout) -> Group {
    let mut backgrounds = Group::new().set("class", "backgrounds");
    for (c, column) in columns.columns.iter().enumerate() {
        backgrounds = backgrounds.add(
            Rectangle::new()
                .set("x", px(layout.col_x(c)))
                .set("y", px(layout.top))
                .set("width", px(layout.col_w - super::COLUMN_GAP))
                .set("height", px(layout.plot_h))
                .set("fill", if column.other { "#efe9dc" } else { "#f3f3f3" }),
        );
    }
    backgrounds
}

/// A rule every 8 hours with its time, heavier at midnight with the date.
pub(super) fn rules(layout: &Layout) -> Group {
    let right = layout.right();
    let mut rules = Group::new().set("class", "rules");
    for t in (layout.t0..=layout.t1).step_by(RULE_SECONDS as usize) {
        let y = layout.y(t);
        let midnight = t.rem_euclid(schema::SECONDS_PER_DAY) == 0;
        rules = rules.add(
            Line::new()
                .set("x1", LEFT - 6.0)
                .set("x2", right)
                .set("y1", y)
                .set("y2", y)
                .set("stroke", if midnight { "#777777" } else { "#cccccc" })
                .set("stroke-width", if midnight { 1.2 } else { 0.6 }),
        );
        let (label, class, colour) = if midnight {
            (utc_date(t), "date", "#222222")
        } else {
            (
                format!("{:02}:00", t.rem_euclid(86_400) / 3600),
                "hour",
                "#888888",
            )
        };
        rules = rules.add(
            Text::new(label)
                .set("x", LEFT - 10.0)
                .set("y", px(y + 4.0))
                .set("text-anchor", "end")
                .set("fill", colour)
                .set("class", class),
        );
    }
    rules
}

/// The highlighted buckets inside the drawn range: a pale band across the
/// columns and a star left of the time axis, each with the highlight's note.
pub(super) fn highlights(list: &[Highlight], layout: &Layout) -> Group {
    let mut g = Group::new().set("class", "highlights");
    let h = (layout.bucket as f64 / 3600.0 * PX_PER_HOUR).max(3.0);
    let right = layout.right();
    for hl in list
        .iter()
        .filter(|h| h.bucket >= layout.t0 && h.bucket < layout.t1)
    {
        let top = layout.y(hl.bucket);
        g = g
            .add(
                Rectangle::new()
                    .set("x", LEFT)
                    .set("y", px(top - 1.0))
                    .set("width", px(right - LEFT))
                    .set("height", px(h + 2.0))
                    .set("fill", "#f0e442")
                    .set("fill-opacity", 0.45)
                    .set("class", "highlight-band"),
            )
            .add(
                Text::new("\u{2605}")
                    .set("x", 4)
                    .set("y", px(top + 5.0))
                    .set("font-size", 14)
                    .set("fill", "#d55e00")
                    .set("class", "highlight")
                    .add(Title::new(format!(
                        "{} UTC: {}",
                        utc_minute(hl.bucket),
                        xml_safe(&hl.note)
                    ))),
            );
    }
    g
}

/// Each column as a group: its label, then its marks in time order.
pub(super) fn columns(
    names: &[&str],
    marks: &[Mark],
    columns: &Columns,
    layout: &Layout,
    show_ips: bool,
) -> Vec<Group> {
    let mut column_marks: Vec<Vec<Box<dyn svg::Node>>> =
        (0..columns.columns.len()).map(|_| Vec::new()).collect();
    for m in marks {
        let placement = columns.place(m.kind);
        column_marks[placement.column].push(mark(names[m.account], m, placement, layout));
    }
    let top = layout.top;
    columns
        .columns
        .iter()
        .zip(column_marks)
        .enumerate()
        .map(|(c, (column, marks))| {
            let (lx, ly) = (px(layout.col_x(c)), px(top - 8.0));
            let mut label = Text::new(column.label.clone())
                .set("x", lx)
                .set("y", ly)
                .set("class", "ip-label")
                .add(Title::new(column.tooltip.clone()));
            if show_ips && !column.other {
                label = label.set("transform", format!("rotate(-40 {lx} {ly})"));
            }
            let group = Group::new()
                .set("class", "ip-column")
                .set("data-ip", column.key.clone())
                .add(label);
            marks.into_iter().fold(group, |g, mark| g.add(mark))
        })
        .collect()
}

/// One mark: the account's shape for a moved bucket, a thin bar for a stall.
fn mark(
    name: &str,
    m: &Mark,
    placement: super::columns::Placement,
    layout: &Layout,
) -> Box<dyn svg::Node> {
    let strip = layout.strip;
    let side = strip - 3.0;
    let bar = (strip / 4.0).clamp(1.0, 1.5);
    let (class, what) = match m.kind {
        Kind::Move { count, .. } => ("move", format!("{count} move{}", plural(count as usize))),
        Kind::Stall { .. } => ("stall", "stalled".to_owned()),
    };
    let strip_x = layout.col_x(placement.column) + m.account as f64 * strip;
    let tooltip = format!(
        "{} · {} UTC · {} · {what}",
        xml_safe(name),
        utc_minute(m.bucket),
        placement.ip_label
    );
    match m.kind {
        Kind::Move { .. } => Box::new(
            crate::marks::mark(
                crate::shape(m.account),
                strip_x + (strip - side) / 2.0,
                layout.y(m.bucket),
                side,
                crate::colour(m.account),
                Some(tooltip),
            )
            .set("class", class)
            .set("data-account", xml_safe(name).into_owned())
            .set("data-ip", placement.data_ip),
        ),
        Kind::Stall { .. } => Box::new(
            Rectangle::new()
                .set("class", class)
                .set("data-account", xml_safe(name).into_owned())
                .set("data-ip", placement.data_ip)
                .set("x", px(strip_x + (strip - bar) / 2.0))
                .set("y", layout.y(m.bucket))
                .set("width", px(bar))
                .set("height", px(layout.bucket_h()))
                .set("fill", crate::colour(m.account))
                .add(Title::new(tooltip)),
        ),
    }
}
