//! The timeline of a group of accounts (SPEC section 6).
//!
//! One column per IP, time running down the page; inside each column a
//! narrow strip per user. A square marks a bucket in which the user moved
//! from that IP; a thin bar marks a stalled bucket, in the strip of the IP the
//! user next moved from. Rules every 8 hours, heavier at midnight UTC.
//!
//! To stay readable with many IPs:
//! - **folding**: an IP used by one account only, in at most
//!   [`FOLD_MAX_BUCKETS`] moved buckets, is ephemeral; when there are at least
//!   two such IPs, and at least one IP that is not, the ephemeral ones share
//!   one "other IPs" column, placed last (folding everything into one column
//!   would show nothing). Stalls with no known next IP go there too;
//! - **trimming**: the time range ends [`TAIL_MARGIN_SECONDS`] after the last
//!   record of the second-to-last account to stop, so the tail in which only
//!   one account plays on is cut;
//! - **strips**: every user's strip is [`STRIP`] px wide, whatever the
//!   number of IPs: a wide picture scrolls, a narrow strip cannot be read.
//!
//! Each user has a colour and a shape ([`crate::colour`], [`crate::shape`]).
//! IPs are named by [`TimelineOptions::pseudonyms`] when given (the season's
//! stored pseudonyms, the same as in `explain` and the reports), else `IP-1`,
//! `IP-2`, ... in order of first use in the picture. The buckets that
//! produced the score ([`TimelineOptions::highlights`]) are marked with a
//! star at the time axis and a band across the columns.
//!
//! Marks are tagged for tools and tests: moves have `class="move"`, stall
//! bars `class="stall"`, both with `data-user` (the username) and `data-ip`
//! (the IP's pseudonym); each IP column is a `<g class="ip-column"
//! data-ip="IP-1">` (`data-ip="other"` for the folded column); legend entries
//! have `class="legend-entry"`. Raw IP addresses never appear in attributes,
//! only in labels and tooltips, and only with [`TimelineOptions::show_ips`].

use crate::escape::xml_safe;
use crate::fmt::{px, utc_date, utc_minute};
use schema::{Epoch, IpId, IpPseudonyms, Segments};
use std::collections::{BTreeSet, HashMap};
use svg::node::element::{Group, Line, Rectangle, Text, Title};
use svg::Document;

/// An IP used by a single account in at most this many moved buckets is
/// folded into the "other IPs" column.
pub const FOLD_MAX_BUCKETS: usize = 3;
/// Time kept after the second-to-last account's last record.
pub const TAIL_MARGIN_SECONDS: Epoch = 12 * 3600;
/// Vertical scale: 4 px an hour, so a 30-minute bucket is 2 px and 60 days
/// about 5800 px.
pub const PX_PER_HOUR: f64 = 4.0;
/// Width of one user's strip inside an IP column. The picture starts at the
/// UTC midnight before its first mark.
pub const STRIP: f64 = 12.0;
/// The narrowest strip: strips never shrink below a readable width.
pub const MIN_STRIP: f64 = 12.0;

const RULE_SECONDS: Epoch = 8 * 3600;
const LEFT: f64 = 104.0;
const RIGHT: f64 = 24.0;
const COLUMN_GAP: f64 = 10.0;
const MIN_COLUMN: f64 = 40.0;
const LINE: f64 = 16.0;
/// Rough width of a character of 11 px sans-serif, to size the canvas.
const CHAR: f64 = 6.5;
const OTHER: &str = "other IPs";

/// What to draw and how.
#[derive(Debug, Clone, Default)]
pub struct TimelineOptions {
    /// Label IP columns with raw addresses instead of pseudonyms `IP-1`, ...
    pub show_ips: bool,
    /// Draw only buckets starting at or after this time.
    pub from: Option<Epoch>,
    /// Draw only buckets starting before this time.
    pub to: Option<Epoch>,
    /// The heading of the picture.
    pub title: String,
    /// The season's IP pseudonyms; `None` numbers IPs by first use in the
    /// picture.
    pub pseudonyms: Option<IpPseudonyms>,
    /// Buckets to mark as the strongest evidence, with what they showed.
    pub highlights: Vec<Highlight>,
}

/// A bucket that weighed in a score, marked on the timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Highlight {
    /// Start of the bucket, UTC epoch seconds.
    pub bucket: Epoch,
    /// What it showed, for the tooltip (e.g. `+22: alice and bob moved from
    /// IP-3 after 12 buckets of joint waiting`).
    pub note: String,
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Move { ip: IpId, count: u32 },
    Stall { ip: Option<IpId> },
}

/// One thing to draw: user (index into the sorted users), bucket, kind.
#[derive(Debug, Clone, Copy)]
struct Mark {
    user: usize,
    bucket: Epoch,
    kind: Kind,
}

/// How an IP is used in the drawn range.
struct IpUse {
    ip: IpId,
    users: BTreeSet<usize>,
    moved_buckets: usize,
}

/// A column of the picture.
struct Column {
    /// `IP-n`, or "other".
    key: String,
    label: String,
    tooltip: String,
    other: bool,
}

/// Draws the timeline of `users` (sorted by name, duplicates dropped; users
/// without segments get a legend entry and no marks).
pub fn timeline(segments: &Segments, users: &[&str], opts: &TimelineOptions) -> Document {
    let mut names: Vec<&str> = users.to_vec();
    names.sort_unstable();
    names.dedup();

    let mut marks = collect(segments, &names, opts);
    trim_tail(&mut marks, names.len());

    // IPs in order of first use (time, then user name), numbered from 1.
    let mut uses: Vec<IpUse> = Vec::new();
    let mut index: HashMap<IpId, usize> = HashMap::new();
    for m in &marks {
        let ip = match m.kind {
            Kind::Move { ip, .. } | Kind::Stall { ip: Some(ip) } => ip,
            Kind::Stall { ip: None } => continue,
        };
        let i = *index.entry(ip).or_insert_with(|| {
            uses.push(IpUse {
                ip,
                users: BTreeSet::new(),
                moved_buckets: 0,
            });
            uses.len() - 1
        });
        uses[i].users.insert(m.user);
        if matches!(m.kind, Kind::Move { .. }) {
            uses[i].moved_buckets += 1;
        }
    }
    let ephemeral: Vec<bool> = uses
        .iter()
        .map(|u| u.users.len() <= 1 && u.moved_buckets <= FOLD_MAX_BUCKETS)
        .collect();
    let n_ephemeral = ephemeral.iter().filter(|&&e| e).count();
    let fold = n_ephemeral >= 2 && n_ephemeral < uses.len();
    let folded = |i: usize| fold && ephemeral[i];
    let unknown_stall = marks
        .iter()
        .any(|m| matches!(m.kind, Kind::Stall { ip: None }));

    let pseudonym = |i: usize| -> String {
        match &opts.pseudonyms {
            Some(p) => p.label(uses[i].ip),
            None => format!("IP-{}", i + 1),
        }
    };
    let label_of = |i: usize| -> String {
        if opts.show_ips {
            xml_safe(segments.ips.name(uses[i].ip)).into_owned()
        } else {
            pseudonym(i)
        }
    };
    let mut columns: Vec<Column> = Vec::new();
    let mut column_of_use: Vec<usize> = vec![0; uses.len()];
    for (i, u) in uses.iter().enumerate() {
        if folded(i) {
            continue;
        }
        column_of_use[i] = columns.len();
        let label = label_of(i);
        columns.push(Column {
            key: pseudonym(i),
            tooltip: format!(
                "{label}: {} account{}, {} moved bucket{}",
                u.users.len(),
                plural(u.users.len()),
                u.moved_buckets,
                plural(u.moved_buckets)
            ),
            label,
            other: false,
        });
    }
    let other_column = if fold || unknown_stall {
        let n = (0..uses.len()).filter(|&i| folded(i)).count();
        columns.push(Column {
            key: "other".to_owned(),
            label: OTHER.to_owned(),
            tooltip: format!(
                "{OTHER}: {n} address{} each used by one account in at most {FOLD_MAX_BUCKETS} \
                 moved buckets, and stalls with no later move",
                if n == 1 { "" } else { "es" }
            ),
            other: true,
        });
        Some(columns.len() - 1)
    } else {
        None
    };
    for (i, c) in column_of_use.iter_mut().enumerate() {
        if folded(i) {
            *c = other_column.expect("folding makes the other column");
        }
    }

    // Geometry.
    let nusers = names.len().max(1) as f64;
    let ncols = columns.len().max(1) as f64;
    // Strips keep their width: a picture with many IPs grows wider (the
    // report scrolls it) rather than shrink its marks out of sight.
    let strip = STRIP.max(MIN_STRIP);
    let col_w = (strip * nusers).max(MIN_COLUMN) + COLUMN_GAP;
    let gap = COLUMN_GAP;
    let bucket = segments.bucket_seconds.max(1);
    let (t0, t1) = match (marks.first(), marks.iter().map(|m| m.bucket).max()) {
        (Some(first), Some(last)) => (
            first.bucket - first.bucket.rem_euclid(schema::SECONDS_PER_DAY),
            ceil_to(last + bucket, RULE_SECONDS),
        ),
        _ => (0, 0),
    };
    let title_h = 30.0;
    let legend_h = LINE * (names.len() + 4) as f64 + 12.0;
    let header_h = if opts.show_ips { 96.0 } else { 28.0 };
    let top = title_h + legend_h + header_h;
    let plot_h = (t1 - t0) as f64 / 3600.0 * PX_PER_HOUR;
    let y = |t: Epoch| px(top + (t - t0) as f64 / 3600.0 * PX_PER_HOUR);
    let longest_name = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    // Rotated raw addresses lean right, past their column.
    let lean = if opts.show_ips { 90.0 } else { 0.0 };
    let width = px((LEFT + ncols * col_w + RIGHT + lean)
        .max(LEFT + 24.0 + CHAR * (longest_name + 22).min(160) as f64)
        .max(24.0 + CHAR * 1.4 * opts.title.chars().count().min(120) as f64)
        .max(520.0));
    let height = px(top + plot_h.max(LINE * 2.0) + 24.0);
    let col_x = |c: usize| LEFT + c as f64 * col_w;

    let mut doc = Document::new()
        .set("width", width)
        .set("height", height)
        .set("viewBox", (0, 0, width, height))
        .set("font-family", "sans-serif")
        .set("font-size", 11)
        .set("class", "timeline")
        .add(
            Rectangle::new()
                .set("width", "100%")
                .set("height", "100%")
                .set("fill", "#ffffff"),
        )
        .add(
            Text::new(xml_safe(&opts.title))
                .set("x", 12)
                .set("y", 22)
                .set("font-size", 16)
                .set("font-weight", "bold")
                .set("class", "title"),
        );

    // Legend: one entry per user, then the key to the marks.
    let mut legend = Group::new().set("class", "legend");
    let drawn: BTreeSet<usize> = marks.iter().map(|m| m.user).collect();
    for (i, name) in names.iter().enumerate() {
        let ly = title_h + LINE * i as f64;
        let note = if drawn.contains(&i) {
            ""
        } else {
            " (nothing in range)"
        };
        legend = legend.add(
            Group::new()
                .set("class", "legend-entry")
                .set("data-user", xml_safe(name).into_owned())
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
    // The key: what a square, a bar and a rule mean, each with a sample.
    let key_y = title_h + LINE * names.len() as f64 + 4.0;
    let samples = [
        Rectangle::new().set("width", 8).set("height", 8),
        Rectangle::new().set("width", 1.5).set("height", 8),
        Rectangle::new().set("width", 10).set("height", 1.2),
        Rectangle::new().set("width", 10).set("height", 4),
    ];
    let lines = [
        format!(
            "shape: moved from this IP in a {} bucket (each account its own colour and shape)",
            duration(bucket)
        ),
        "thin bar: stalled (a game waited), at the IP of the next move".to_owned(),
        "rules every 8 hours, heavier at midnight UTC".to_owned(),
        "\u{2605} and band: a bucket that weighed most in the score".to_owned(),
    ];
    for (i, (sample, line)) in samples.into_iter().zip(lines).enumerate() {
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
    doc = doc.add(legend);

    if marks.is_empty() {
        return doc.add(
            Text::new("no activity in the selected range")
                .set("x", LEFT)
                .set("y", px(top + LINE))
                .set("class", "empty"),
        );
    }

    // Column backgrounds, then rules, then the columns with their marks.
    let mut backgrounds = Group::new().set("class", "backgrounds");
    for (c, column) in columns.iter().enumerate() {
        backgrounds = backgrounds.add(
            Rectangle::new()
                .set("x", px(col_x(c)))
                .set("y", px(top))
                .set("width", px(col_w - gap))
                .set("height", px(plot_h))
                .set("fill", if column.other { "#efe9dc" } else { "#f3f3f3" }),
        );
    }
    doc = doc.add(backgrounds);

    let right = px(LEFT + ncols * col_w - gap);
    let mut rules = Group::new().set("class", "rules");
    for t in (t0..=t1).step_by(RULE_SECONDS as usize) {
        let midnight = t.rem_euclid(schema::SECONDS_PER_DAY) == 0;
        rules = rules.add(
            Line::new()
                .set("x1", LEFT - 6.0)
                .set("x2", right)
                .set("y1", y(t))
                .set("y2", y(t))
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
                .set("y", px(y(t) + 4.0))
                .set("text-anchor", "end")
                .set("fill", colour)
                .set("class", class),
        );
    }
    doc = doc.add(rules);

    doc = doc.add(highlights(&opts.highlights, bucket, t0, t1, right, &y));

    let mut column_marks: Vec<Vec<Box<dyn svg::Node>>> =
        (0..columns.len()).map(|_| Vec::new()).collect();
    let side = strip - 3.0;
    let bar = (strip / 4.0).clamp(1.0, 1.5);
    let bucket_h = (bucket as f64 / 3600.0 * PX_PER_HOUR).max(1.0);
    for m in &marks {
        let name = names[m.user];
        let (use_index, class, what) = match m.kind {
            Kind::Move { ip, count } => (
                Some(index[&ip]),
                "move",
                format!("{count} move{}", plural(count as usize)),
            ),
            Kind::Stall { ip } => (ip.map(|ip| index[&ip]), "stall", "stalled".to_owned()),
        };
        let c = use_index.map_or_else(
            || other_column.expect("a stall without IP makes the other column"),
            |i| column_of_use[i],
        );
        let ip_label = match use_index {
            Some(i) if folded(i) => format!("{} ({OTHER})", label_of(i)),
            Some(i) => label_of(i),
            None => "no later move".to_owned(),
        };
        let strip_x = col_x(c) + m.user as f64 * strip;
        let tooltip = format!(
            "{} · {} UTC · {ip_label} · {what}",
            xml_safe(name),
            utc_minute(m.bucket)
        );
        let data_ip = use_index.map_or_else(|| "none".to_owned(), pseudonym);
        let node: Box<dyn svg::Node> = match m.kind {
            Kind::Move { .. } => Box::new(
                crate::marks::mark(
                    crate::shape(m.user),
                    strip_x + (strip - side) / 2.0,
                    y(m.bucket),
                    side,
                    crate::colour(m.user),
                    Some(tooltip),
                )
                .set("class", class)
                .set("data-user", xml_safe(name).into_owned())
                .set("data-ip", data_ip),
            ),
            Kind::Stall { .. } => Box::new(
                Rectangle::new()
                    .set("class", class)
                    .set("data-user", xml_safe(name).into_owned())
                    .set("data-ip", data_ip)
                    .set("x", px(strip_x + (strip - bar) / 2.0))
                    .set("y", y(m.bucket))
                    .set("width", px(bar))
                    .set("height", px(bucket_h))
                    .set("fill", crate::colour(m.user))
                    .add(Title::new(tooltip)),
            ),
        };
        column_marks[c].push(node);
    }
    for (c, (column, marks)) in columns.iter().zip(column_marks).enumerate() {
        let (lx, ly) = (px(col_x(c)), px(top - 8.0));
        let mut label = Text::new(column.label.clone())
            .set("x", lx)
            .set("y", ly)
            .set("class", "ip-label")
            .add(Title::new(column.tooltip.clone()));
        if opts.show_ips && !column.other {
            label = label.set("transform", format!("rotate(-40 {lx} {ly})"));
        }
        let mut group = Group::new()
            .set("class", "ip-column")
            .set("data-ip", column.key.clone())
            .add(label);
        for mark in marks {
            group = group.add(mark);
        }
        doc = doc.add(group);
    }
    doc
}

/// The marks of the sorted `names` within `opts.from..opts.to`, in time
/// order, then user order; within a user's bucket moves come first, in the
/// order of their IPs' first move, then the stall.
fn collect(segments: &Segments, names: &[&str], opts: &TimelineOptions) -> Vec<Mark> {
    let mut marks = Vec::new();
    for (user, name) in names.iter().enumerate() {
        for seg in segments.of(name) {
            let bucket = seg.bucket;
            if opts.from.is_some_and(|f| bucket < f) || opts.to.is_some_and(|t| bucket >= t) {
                continue;
            }
            for &(ip, count) in &seg.moves {
                marks.push(Mark {
                    user,
                    bucket,
                    kind: Kind::Move { ip, count },
                });
            }
            if seg.stalled {
                marks.push(Mark {
                    user,
                    bucket,
                    kind: Kind::Stall { ip: seg.stall_ip },
                });
            }
        }
    }
    marks.sort_by_key(|m| (m.bucket, m.user));
    marks
}

/// Drops the marks more than [`TAIL_MARGIN_SECONDS`] after the last record of
/// the second-to-last user to stop (nothing if fewer than two users have
/// marks).
fn trim_tail(marks: &mut Vec<Mark>, users: usize) {
    let mut last: Vec<Option<Epoch>> = vec![None; users];
    for m in marks.iter() {
        last[m.user] = Some(m.bucket);
    }
    let mut ends: Vec<Epoch> = last.into_iter().flatten().collect();
    ends.sort_unstable_by(|a, b| b.cmp(a));
    if let Some(&second) = ends.get(1) {
        let cutoff = second + TAIL_MARGIN_SECONDS;
        marks.retain(|m| m.bucket <= cutoff);
    }
}

/// The highlighted buckets inside `t0..t1`: a pale band across the columns
/// and a star left of the time axis, each with the highlight's note.
fn highlights(
    list: &[Highlight],
    bucket: Epoch,
    t0: Epoch,
    t1: Epoch,
    right: f64,
    y: &dyn Fn(Epoch) -> f64,
) -> Group {
    let mut g = Group::new().set("class", "highlights");
    let h = (bucket as f64 / 3600.0 * PX_PER_HOUR).max(3.0);
    for hl in list.iter().filter(|h| h.bucket >= t0 && h.bucket < t1) {
        let top = y(hl.bucket);
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

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The smallest multiple of `step` at or above `t`.
fn ceil_to(t: Epoch, step: Epoch) -> Epoch {
    let r = t.rem_euclid(step);
    if r == 0 {
        t
    } else {
        t + step - r
    }
}

/// A bucket size in words: "30-minute", "2-hour", "90-second".
fn duration(seconds: Epoch) -> String {
    if seconds % 3600 == 0 {
        format!("{}-hour", seconds / 3600)
    } else if seconds % 60 == 0 {
        format!("{}-minute", seconds / 60)
    } else {
        format!("{seconds}-second")
    }
}
