//! The cliques section of the report page: per clique, its members, a
//! table of its pairs and the detailed timeline, each folded, and the
//! overview of days played. In a report directory the timeline is a file beside
//! the page, loaded only when its fold opens (a lazy frame, so its tooltips
//! still work); a page without files (standard output) inlines it.

use super::{sim_cell, ReportPage};
use crate::escape::html as esc;
use crate::guide::pair_anchor;
use scoring::BothWays;
use std::collections::BTreeMap;
use std::fmt::Write;

pub(super) fn cliques(h: &mut String, page: &ReportPage, rows: &[BothWays]) {
    let r = page.result;
    h.push_str("<section id=\"cliques\">\n<h2>Cliques</h2>\n");
    if r.cliques.is_empty() {
        h.push_str("<p>No clique.</p>\n");
    }
    let index: BTreeMap<(&str, &str), usize> = rows
        .iter()
        .enumerate()
        .map(|(i, row)| ((row.a, row.b), i))
        .collect();
    for (i, clique) in r.cliques.iter().enumerate() {
        let n = i + 1;
        let _ = writeln!(
            h,
            "<div class=\"clique\" id=\"clique-{n}\">\n<h3>Clique {n}: {} accounts</h3>",
            clique.members.len()
        );
        let members: Vec<String> = clique.members.iter().map(|m| esc(m)).collect();
        let _ = writeln!(h, "<p>Members: {}</p>", members.join(", "));
        let inside = |u: &str| clique.members.iter().any(|m| m == u);
        let own: Vec<&BothWays> = rows
            .iter()
            .filter(|row| inside(row.a) && inside(row.b))
            .collect();
        let _ = writeln!(
            h,
            "<details class=\"clique-pairs-fold\"><summary>Its flagged pairs ({})</summary>\n\
             <table class=\"clique-pairs\">\n<thead><tr><th>Account A</th><th>Account B</th>\
             <th>A&#8594;B</th><th>B&#8594;A</th><th>Evidence</th></tr></thead>\n<tbody>",
            own.len()
        );
        for row in own {
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{}</td>{}{}<td><a href=\"#{}\">evidence</a></td></tr>",
                esc(row.a),
                esc(row.b),
                sim_cell(row.ab, r.params.threshold),
                sim_cell(row.ba, r.params.threshold),
                pair_anchor(index[&(row.a, row.b)])
            );
        }
        h.push_str("</tbody>\n</table>\n</details>\n");
        pictures(h, page, i);
        h.push_str("</div>\n");
    }
    h.push_str("</section>\n");
}

/// The overview and the folded timeline of clique `i` (0-based).
fn pictures(h: &mut String, page: &ReportPage, i: usize) {
    let Some(p) = page.clique_pictures.get(i) else {
        h.push_str("<p class=\"note\">No timeline drawn.</p>\n");
        if let Some(file) = page.clique_svgs.get(i) {
            let _ = writeln!(
                h,
                "<p class=\"note\"><a href=\"{}\">Open the timeline alone</a></p>",
                esc(file)
            );
        }
        return;
    };
    let _ = writeln!(
        h,
        "<div class=\"figure overview-figure\">{}</div>\n<details class=\"timeline\">\
         <summary>Detailed timeline: where (IP) and when each account played</summary>",
        p.overview
    );
    match page.clique_svgs.get(i) {
        Some(file) => {
            let (width, height) = svg_size(&p.timeline).unwrap_or(("100%", "600"));
            let _ = writeln!(
                h,
                "<div class=\"figure\"><iframe class=\"timeline\" loading=\"lazy\" src=\"{f}\" \
                 width=\"{w}\" height=\"{ht}\" title=\"Detailed timeline of clique {n}\">\
                 </iframe></div>\n<p class=\"note\"><a href=\"{f}\">Open the timeline \
                 alone</a></p>\n</details>",
                f = esc(file),
                w = esc(width),
                ht = esc(height),
                n = i + 1
            );
        }
        None => {
            let _ = writeln!(h, "<div class=\"figure\">{}</div>\n</details>", p.timeline);
        }
    }
}

/// The `width` and `height` attributes of an SVG document's root element.
fn svg_size(svg: &str) -> Option<(&str, &str)> {
    let start = svg.find("<svg")?;
    let tag = &svg[start..start + svg[start..].find('>')?];
    let attr = |name: &str| {
        let key = format!(" {name}=\"");
        let from = tag.find(&key)? + key.len();
        Some(&tag[from..from + tag[from..].find('"')?])
    };
    Some((attr("width")?, attr("height")?))
}

#[cfg(test)]
mod tests {
    use super::svg_size;

    #[test]
    fn the_size_is_the_root_elements() {
        let svg = "<svg class=\"t\" height=\"480\" viewBox=\"0 0 9 9\" width=\"1200\">\
                   <rect width=\"3\" height=\"4\"/></svg>";
        assert_eq!(svg_size(svg), Some(("1200", "480")));
        assert_eq!(svg_size("<svg class=\"t\"><rect width=\"3\"/></svg>"), None);
    }
}
