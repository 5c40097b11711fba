//! The overview of a group of accounts: days across the page, one row per
//! account, a cell per day the account played (darker for more moves, grey
//! for a day it only kept games waiting). Above the detailed timeline, it
//! shows at a glance when the accounts played and which days hold the
//! strongest evidence (a star over the day).
//!
//! Cells have `class="day"` with `data-account` and `data-day` (`YYYY-MM-DD`)
//! and a tooltip naming the moves, stalled buckets and IPs of that day (IP
//! pseudonyms from [`TimelineOptions::pseudonyms`], never raw addresses
//! unless [`TimelineOptions::show_ips`]).

use crate::canvas::canvas;
use crate::escape::xml_safe;
use crate::fmt::{px, utc_date};
use crate::timeline::TimelineOptions;
use schema::{Epoch, IpId, Segments, SECONDS_PER_DAY};
use std::collections::{BTreeMap, BTreeSet};
use svg::node::element::{Rectangle, Text, Title};
use svg::Document;

const ROW: f64 = 18.0;
const TOP: f64 = 44.0;
const CHAR: f64 = 6.5;

/// One account's day.
#[derive(Default)]
struct Day {
    moves: u32,
    stalled: u32,
    ips: BTreeSet<IpId>,
}

/// Draws the overview of `accounts` (sorted by name, duplicates dropped) over
/// `opts.from..opts.to`.
pub fn overview(segments: &Segments, accounts: &[&str], opts: &TimelineOptions) -> Document {
    let mut names: Vec<&str> = accounts.to_vec();
    names.sort_unstable();
    names.dedup();
    let days = days_of(segments, &names, opts);
    let grid = Grid::new(&names, &days);
    let width = px((grid.left + grid.ndays() * grid.cell + 16.0).max(360.0));
    let height = px(TOP + ROW * names.len() as f64 + 12.0);
    let most = days
        .iter()
        .flat_map(|d| d.values().map(|x| x.moves))
        .max()
        .unwrap_or(1)
        .max(1);

    let mut doc = frame(width, height, &opts.title);
    doc = dates(doc, &grid);
    doc = stars(doc, &grid, opts);
    for (u, (name, by_day)) in names.iter().zip(&days).enumerate() {
        let y = TOP + ROW * u as f64;
        doc = doc.add(
            Text::new(xml_safe(name).into_owned())
                .set("x", px(grid.left - 6.0))
                .set("y", px(y + 12.0))
                .set("text-anchor", "end")
                .set("class", "account"),
        );
        for (&day, d) in by_day {
            doc = doc.add(day_cell(
                segments,
                opts,
                name,
                u,
                day,
                d,
                most,
                grid.x_of(day),
                y,
                grid.cell,
            ));
        }
    }
    doc
}

/// Each account's days within `opts.from..opts.to`.
fn days_of(segments: &Segments, names: &[&str], opts: &TimelineOptions) -> Vec<BTreeMap<i64, Day>> {
    let mut days = Vec::with_capacity(names.len());
    for name in names {
        let mut by_day: BTreeMap<i64, Day> = BTreeMap::new();
        let bs = segments.bucket_seconds;
        let within = segments.of(name).iter();
        for seg in within.filter_map(|s| s.clip(opts.from, opts.to, bs)) {
            for &(ip, n) in &seg.moves {
                let d = by_day
                    .entry(seg.bucket.div_euclid(SECONDS_PER_DAY))
                    .or_default();
                d.moves += n;
                d.ips.insert(ip);
            }
            // A run's stalls, day by day.
            let mut b = seg.bucket;
            let mut left = seg.stalls as i64;
            while left > 0 {
                let day = b.div_euclid(SECONDS_PER_DAY);
                let next_day = (day + 1) * SECONDS_PER_DAY;
                let n = ((next_day - b + bs - 1) / bs).min(left);
                by_day.entry(day).or_default().stalled += n as u32;
                b += n * bs;
                left -= n;
            }
            if seg.moves.is_empty() && seg.stalls == 0 {
                by_day
                    .entry(seg.bucket.div_euclid(SECONDS_PER_DAY))
                    .or_default();
            }
        }
        days.push(by_day);
    }
    days
}

/// Where the days go across the page.
struct Grid {
    /// The first and last day drawn (days since 1970-01-01); `last` <
    /// `first` when nothing is drawn.
    first: i64,
    last: i64,
    /// Width of a day.
    cell: f64,
    /// Left edge of the first day, after the account names.
    left: f64,
}

impl Grid {
    fn new(names: &[&str], days: &[BTreeMap<i64, Day>]) -> Grid {
        let first = days.iter().filter_map(|d| d.keys().next()).min().copied();
        let last = days
            .iter()
            .filter_map(|d| d.keys().next_back())
            .max()
            .copied();
        let (first, last) = match (first, last) {
            (Some(f), Some(l)) => (f, l),
            _ => (0, -1),
        };
        let ndays = (last - first + 1).max(0) as f64;
        let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(4);
        Grid {
            first,
            last,
            cell: (900.0 / ndays.max(1.0)).clamp(6.0, 16.0),
            left: (CHAR * longest.min(40) as f64 + 16.0).max(80.0),
        }
    }

    fn ndays(&self) -> f64 {
        (self.last - self.first + 1).max(0) as f64
    }

    fn x_of(&self, day: i64) -> f64 {
        self.left + (day - self.first) as f64 * self.cell
    }
}

/// The canvas with its white ground and the title.
fn frame(width: f64, height: f64, title: &str) -> Document {
    canvas(width, height, 11, "overview").add(
        Text::new(format!("{}: days played", xml_safe(title)))
            .set("x", 8)
            .set("y", 16)
            .set("font-weight", "bold")
            .set("class", "title"),
    )
}

/// A date every week.
fn dates(mut doc: Document, grid: &Grid) -> Document {
    for day in (grid.first..=grid.last).step_by(7) {
        doc = doc.add(
            Text::new(utc_date(day * SECONDS_PER_DAY))
                .set("x", px(grid.x_of(day)))
                .set("y", 30)
                .set("fill", "#555555")
                .set("class", "date"),
        );
    }
    doc
}

/// Stars over the days of the strongest evidence, with their notes.
fn stars(mut doc: Document, grid: &Grid, opts: &TimelineOptions) -> Document {
    let starred: BTreeSet<i64> = opts
        .highlights
        .iter()
        .map(|h| h.bucket.div_euclid(SECONDS_PER_DAY))
        .filter(|d| (grid.first..=grid.last).contains(d))
        .collect();
    for &day in &starred {
        let notes: Vec<String> = opts
            .highlights
            .iter()
            .filter(|h| h.bucket.div_euclid(SECONDS_PER_DAY) == day)
            .map(|h| xml_safe(&h.note).into_owned())
            .collect();
        doc = doc.add(
            Text::new("\u{2605}")
                .set("x", px(grid.x_of(day) + grid.cell / 2.0))
                .set("y", TOP - 2.0)
                .set("text-anchor", "middle")
                .set("fill", "#d55e00")
                .set("class", "highlight")
                .add(Title::new(format!(
                    "{}: {}",
                    utc_date(day * SECONDS_PER_DAY),
                    notes.join("; ")
                ))),
        );
    }
    doc
}

#[allow(clippy::too_many_arguments)]
fn day_cell(
    segments: &Segments,
    opts: &TimelineOptions,
    name: &str,
    account: usize,
    day: i64,
    d: &Day,
    most: u32,
    x: f64,
    y: f64,
    cell: f64,
) -> Rectangle {
    let ips: Vec<String> = d
        .ips
        .iter()
        .map(|&ip| ip_name(segments, opts, ip))
        .collect();
    let date: Epoch = day * SECONDS_PER_DAY;
    let (fill, opacity) = if d.moves == 0 {
        ("#999999".to_owned(), 0.5)
    } else {
        (
            crate::colour(account).to_owned(),
            0.3 + 0.7 * f64::from(d.moves) / f64::from(most),
        )
    };
    Rectangle::new()
        .set("class", "day")
        .set("data-account", xml_safe(name).into_owned())
        .set("data-day", utc_date(date))
        .set("x", px(x + 0.5))
        .set("y", px(y + 2.0))
        .set("width", px(cell - 1.0))
        .set("height", ROW - 4.0)
        .set("fill", fill)
        .set("fill-opacity", px(opacity))
        .add(Title::new(format!(
            "{} · {} · {} move{}, {} stalled bucket{}{}",
            xml_safe(name),
            utc_date(date),
            d.moves,
            if d.moves == 1 { "" } else { "s" },
            d.stalled,
            if d.stalled == 1 { "" } else { "s" },
            if ips.is_empty() {
                String::new()
            } else {
                format!(" · from {}", ips.join(", "))
            }
        )))
}

/// The name an IP is shown by: its raw address with `show_ips`, else its
/// pseudonym.
fn ip_name(segments: &Segments, opts: &TimelineOptions, ip: IpId) -> String {
    if opts.show_ips {
        xml_safe(segments.ips.name(ip)).into_owned()
    } else {
        opts.pseudonyms
            .as_ref()
            .map_or_else(|| format!("IP #{ip}"), |p| p.label(ip))
    }
}
