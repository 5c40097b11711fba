//! Number and time formatting shared by the pictures.

use schema::Epoch;

/// `x` rounded to two decimals for an SVG coordinate (no `-0`, no
/// `0.30000000000000004`).
pub(crate) fn px(x: f64) -> f64 {
    (x * 100.0).round() / 100.0 + 0.0
}

/// `t` as `YYYY-MM-DD hh:mm` UTC (the raw number if out of chrono's range).
pub(crate) fn utc_minute(t: Epoch) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .map(|d| d.format("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_else(|| t.to_string())
}

/// The UTC date of `t`, `YYYY-MM-DD`.
pub(crate) fn utc_date(t: Epoch) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .map(|d| d.format("%Y-%m-%d").to_string())
        .unwrap_or_else(|| t.to_string())
}

/// A threshold or similarity with at least two decimals and as many more
/// (up to six) as it needs: `0.9` is "0.90", `0.925` is "0.925".
pub(crate) fn decimal(x: f64) -> String {
    let mut s = format!("{x:.6}");
    while s.ends_with('0') && s.len() - s.find('.').map_or(s.len(), |d| d + 1) > 2 {
        s.pop();
    }
    s
}

/// `part / whole` as a percentage with one decimal (`0.0` for an empty whole).
pub(crate) fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "0.0".to_owned()
    } else {
        format!("{:.1}", part as f64 * 100.0 / whole as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(px(-0.001), 0.0);
        assert_eq!(px(0.1 + 0.2).to_string(), "0.3");
        assert_eq!(utc_minute(1_430_670_540), "2015-05-03 16:29");
        assert_eq!(utc_date(1_430_670_540), "2015-05-03");
        assert_eq!(decimal(0.9), "0.90");
        assert_eq!(decimal(0.925), "0.925");
        assert_eq!(decimal(1.0), "1.00");
        assert_eq!(percent(1, 8), "12.5");
        assert_eq!(percent(0, 0), "0.0");
    }
}
