//! The timeline of a group of accounts (SPEC section 6).
//!
//! One column per IP, time running down the page; inside each column a
//! narrow strip per account. A square marks a bucket in which the account moved
//! from that IP; a thin bar marks a stalled bucket, in the strip of the IP the
//! account next moved from. Rules every 8 hours, heavier at midnight UTC.
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
//! - **strips**: every account's strip is [`STRIP`] px wide, whatever the
//!   number of IPs: a wide picture scrolls, a narrow strip cannot be read.
//!
//! Each account has a colour and a shape ([`crate::colour`], [`crate::shape`]).
//! IPs are named by [`TimelineOptions::pseudonyms`] when given (the season's
//! stored pseudonyms, the same as in `explain` and the reports), else `IP-1`,
//! `IP-2`, ... in order of first use in the picture. The buckets that
//! produced the score ([`TimelineOptions::highlights`]) are marked with a
//! star at the time axis and a band across the columns.
//!
//! Marks are tagged for tools and tests: moves have `class="move"`, stall
//! bars `class="stall"`, both with `data-account` (the username) and `data-ip`
//! (the IP's pseudonym); each IP column is a `<g class="ip-column"
//! data-ip="IP-1">` (`data-ip="other"` for the folded column); legend entries
//! have `class="legend-entry"`. Raw IP addresses never appear in attributes,
//! only in labels and tooltips, and only with [`TimelineOptions::show_ips`].

mod columns;
mod draw;
mod layout;

use columns::Columns;
use layout::Layout;
use schema::{Epoch, IpId, IpPseudonyms, Segments};
use svg::Document;

/// An IP used by a single account in at most this many moved buckets is
/// folded into the "other IPs" column.
pub const FOLD_MAX_BUCKETS: usize = 3;
/// Time kept after the second-to-last account's last record.
pub const TAIL_MARGIN_SECONDS: Epoch = 12 * 3600;
/// Vertical scale: 4 px an hour, so a 30-minute bucket is 2 px and 60 days
/// about 5800 px.
pub const PX_PER_HOUR: f64 = 4.0;
/// Width of one account's strip inside an IP column. The picture starts at the
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

/// One thing to draw: account (index into the sorted accounts), bucket, kind.
#[derive(Debug, Clone, Copy)]
struct Mark {
    account: usize,
    bucket: Epoch,
    kind: Kind,
}

/// Draws the timeline of `accounts` (sorted by name, duplicates dropped; accounts
/// without segments get a legend entry and no marks).
pub fn timeline(segments: &Segments, accounts: &[&str], opts: &TimelineOptions) -> Document {
    let mut names: Vec<&str> = accounts.to_vec();
    names.sort_unstable();
    names.dedup();

    let mut marks = collect(segments, &names, opts);
    trim_tail(&mut marks, names.len());
    let columns = Columns::new(&marks, segments, opts);
    let layout = Layout::new(&names, &marks, &columns, segments.bucket_seconds, opts);

    let doc = draw::frame(&layout, &opts.title).add(draw::legend(
        &names,
        &marks,
        &layout,
        !opts.highlights.is_empty(),
    ));
    if marks.is_empty() {
        return doc.add(draw::empty(&layout));
    }
    let doc = doc
        .add(draw::backgrounds(&columns, &layout))
        .add(draw::rules(&layout))
        .add(draw::highlights(&opts.highlights, &layout));
    draw::columns(&names, &marks, &columns, &layout, opts.show_ips)
        .into_iter()
        .fold(doc, |doc, group| doc.add(group))
}

/// The marks of the sorted `names` within `opts.from..opts.to`, in time
/// order, then account order; within an account's bucket moves come first, in the
/// order of their IPs' first move, then the stall.
fn collect(segments: &Segments, names: &[&str], opts: &TimelineOptions) -> Vec<Mark> {
    let mut marks = Vec::new();
    for (account, name) in names.iter().enumerate() {
        let bs = segments.bucket_seconds;
        let within = segments.of(name).iter();
        let within = within.filter_map(|s| s.clip(opts.from, opts.to, bs));
        for seg in within.flat_map(|s| s.buckets(bs).collect::<Vec<_>>()) {
            let bucket = seg.bucket;
            for &(ip, count) in &seg.moves {
                marks.push(Mark {
                    account,
                    bucket,
                    kind: Kind::Move { ip, count },
                });
            }
            if seg.stalled() {
                marks.push(Mark {
                    account,
                    bucket,
                    kind: Kind::Stall {
                        ip: seg.stall_ip.map(|ip| ip.get()),
                    },
                });
            }
        }
    }
    marks.sort_by_key(|m| (m.bucket, m.account));
    marks
}

/// Drops the marks more than [`TAIL_MARGIN_SECONDS`] after the last record of
/// the second-to-last account to stop (nothing if fewer than two accounts have
/// marks).
fn trim_tail(marks: &mut Vec<Mark>, accounts: usize) {
    let mut last: Vec<Option<Epoch>> = vec![None; accounts];
    for m in marks.iter() {
        last[m.account] = Some(m.bucket);
    }
    let mut ends: Vec<Epoch> = last.into_iter().flatten().collect();
    ends.sort_unstable_by(|a, b| b.cmp(a));
    if let Some(&second) = ends.get(1) {
        let cutoff = second + TAIL_MARGIN_SECONDS;
        marks.retain(|m| m.bucket <= cutoff);
    }
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

/// How many buckets a clique's timeline marks as the strongest evidence.
const HIGHLIGHTS: usize = 12;

/// The buckets that weighed most in the flagged pairs inside `members`,
/// to mark on their timeline: each flagged direction's top buckets,
/// strongest first, one mark per bucket, twelve at most. The
/// report and the web's pair and clique pages all mark these.
pub fn strongest_buckets(result: &schema::ScanResult, members: &[&str]) -> Vec<Highlight> {
    let t = result.params.threshold;
    let inside = |u: &str| members.contains(&u);
    let mut all: Vec<(i64, i64, String)> = Vec::new();
    for p in &result.pairs {
        if p.similarity < t || !inside(&p.account_a) || !inside(&p.account_b) {
            continue;
        }
        for c in p.evidence.top_buckets.iter().filter(|c| c.score > 0) {
            all.push((
                c.score,
                c.bucket,
                format!(
                    "{:+} for {} \u{2192} {}: {}",
                    c.score,
                    p.account_a,
                    p.account_b,
                    c.cell.describe()
                ),
            ));
        }
    }
    all.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    let mut seen = std::collections::BTreeSet::new();
    all.into_iter()
        .filter(|(_, bucket, _)| seen.insert(*bucket))
        .take(HIGHLIGHTS)
        .map(|(_, bucket, note)| Highlight { bucket, note })
        .collect()
}
