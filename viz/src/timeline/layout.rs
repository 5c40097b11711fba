//! The geometry of a picture: the time range, the size of the canvas, where
//! each column and each bucket is.

use super::columns::Columns;
use super::{
    ceil_to, Mark, TimelineOptions, CHAR, COLUMN_GAP, LEFT, LINE, MIN_COLUMN, MIN_STRIP,
    PX_PER_HOUR, RIGHT, RULE_SECONDS, STRIP,
};
use crate::fmt::px;
use schema::Epoch;

pub(super) struct Layout {
    /// Width of one account's strip.
    pub strip: f64,
    /// Width of a column, its gap included.
    pub col_w: f64,
    pub ncols: f64,
    pub bucket: Epoch,
    /// The drawn range: the UTC midnight before the first mark, and the
    /// rule after the last bucket.
    pub t0: Epoch,
    pub t1: Epoch,
    pub title_h: f64,
    /// Top of the plot.
    pub top: f64,
    pub plot_h: f64,
    pub width: f64,
    pub height: f64,
}

impl Layout {
    pub fn new(
        names: &[&str],
        marks: &[Mark],
        columns: &Columns,
        bucket_seconds: Epoch,
        opts: &TimelineOptions,
    ) -> Layout {
        let naccounts = names.len().max(1) as f64;
        let ncols = columns.columns.len().max(1) as f64;
        // Strips keep their width: a picture with many IPs grows wider (the
        // report scrolls it) rather than shrink its marks out of sight.
        let strip = STRIP.max(MIN_STRIP);
        let col_w = (strip * naccounts).max(MIN_COLUMN) + COLUMN_GAP;
        let bucket = bucket_seconds.max(1);
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
        let longest_name = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
        // Rotated raw addresses lean right, past their column.
        let lean = if opts.show_ips { 90.0 } else { 0.0 };
        let width = px((LEFT + ncols * col_w + RIGHT + lean)
            .max(LEFT + 24.0 + CHAR * (longest_name + 22).min(160) as f64)
            .max(24.0 + CHAR * 1.4 * opts.title.chars().count().min(120) as f64)
            .max(520.0));
        let height = px(top + plot_h.max(LINE * 2.0) + 24.0);
        Layout {
            strip,
            col_w,
            ncols,
            bucket,
            t0,
            t1,
            title_h,
            top,
            plot_h,
            width,
            height,
        }
    }

    /// The y of time `t`.
    pub fn y(&self, t: Epoch) -> f64 {
        px(self.top + (t - self.t0) as f64 / 3600.0 * PX_PER_HOUR)
    }

    /// The left edge of column `c`.
    pub fn col_x(&self, c: usize) -> f64 {
        LEFT + c as f64 * self.col_w
    }

    /// The right edge of the last column.
    pub fn right(&self) -> f64 {
        px(LEFT + self.ncols * self.col_w - COLUMN_GAP)
    }

    /// The height of one bucket, at least a pixel.
    pub fn bucket_h(&self) -> f64 {
        (self.bucket as f64 / 3600.0 * PX_PER_HOUR).max(1.0)
    }
}
