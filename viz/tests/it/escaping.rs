//! Hostile user-supplied strings are escaped exactly once in every output.

use crate::common::*;
use detect_viz as viz;

const HOSTILE: [&str; 5] = [
    "<script>alert(1)</script>",
    "a&b",
    "\"quoted\"",
    "Ünïcødé名前",
    "o'brien",
];

fn hostile_segments() -> schema::Segments {
    let mut b = Build::new(1800);
    for (i, account) in HOSTILE.iter().enumerate() {
        let t = T0 + i as i64 * HOUR;
        b.moved(account, t, "<img src=x onerror=alert(1)>", 1)
            .stalled(account, t + 3 * HOUR, Some("\"><script>x</script>"))
            .moved(account, t + 4 * HOUR, "\"><script>x</script>", 2);
    }
    b.finish()
}

fn assert_no_script(svg: &str) {
    let doc = parse(svg);
    assert!(
        !doc.descendants()
            .any(|n| n.tag_name().name().eq_ignore_ascii_case("script")),
        "a script element in {svg}"
    );
    assert!(
        !svg.contains("&amp;amp;") && !svg.contains("&amp;lt;"),
        "double escaping"
    );
}

#[test]
fn timeline_escapes_usernames_ips_and_title() {
    let s = hostile_segments();
    for show_ips in [false, true] {
        let opts = viz::TimelineOptions {
            show_ips,
            title: "<script>t</script> & co".to_owned(),
            ..Default::default()
        };
        let svg = viz::timeline(&s, &HOSTILE, &opts).to_string();
        assert_no_script(&svg);
        let doc = parse(&svg);
        // Parsed (unescaped once) text and attributes are the raw strings.
        let legend: Vec<&str> = with_class(&doc, "legend-entry")
            .map(|e| e.attribute("data-account").expect("data-account"))
            .collect();
        let mut sorted = HOSTILE.to_vec();
        sorted.sort();
        assert_eq!(legend, sorted);
        for entry in with_class(&doc, "legend-entry") {
            let text = entry
                .children()
                .find(|c| c.has_tag_name("text"))
                .and_then(|t| t.text())
                .expect("legend text");
            assert_eq!(Some(text.trim()), entry.attribute("data-account"));
        }
        let title = with_class(&doc, "title").next().and_then(|t| t.text());
        assert_eq!(title.map(str::trim), Some("<script>t</script> & co"));
        let tips: Vec<String> = with_class(&doc, "move").filter_map(tooltip).collect();
        assert_eq!(tips.len(), 2 * HOSTILE.len());
        assert!(tips
            .iter()
            .any(|t| t.starts_with("<script>alert(1)</script> · ")));
        if show_ips {
            assert!(tips.iter().any(|t| t.contains("\"><script>x</script>")));
        } else {
            assert!(!svg.contains("onerror"));
        }
    }
}

#[test]
fn control_characters_do_not_break_the_xml() {
    let mut b = Build::new(1800);
    b.moved("bell\u{7}user", T0, "1.2.3.4", 1)
        .moved("plain", T0, "1.2.3.4", 1);
    let svg = viz::timeline(
        &b.finish(),
        &["bell\u{7}user", "plain"],
        &Default::default(),
    )
    .to_string();
    let doc = parse(&svg);
    assert!(with_class(&doc, "legend-entry")
        .any(|e| e.attribute("data-account") == Some("bell\u{FFFD}user")));
}

#[test]
fn charts_escape_titles_and_labels() {
    let svg = viz::distribution(&[0.9, 0.1], 0.9, HOSTILE[0]).to_string();
    assert_no_script(&svg);
    let doc = parse(&svg);
    assert_eq!(
        with_class(&doc, "title")
            .next()
            .and_then(|t| t.text())
            .map(str::trim),
        Some(HOSTILE[0])
    );
    let svg = viz::compare(
        &viz::Series {
            label: HOSTILE[0],
            similarities: &[0.95],
        },
        &viz::Series {
            label: HOSTILE[2],
            similarities: &[0.5],
        },
        0.9,
    )
    .to_string();
    assert_no_script(&svg);
    let doc = parse(&svg);
    let legend = chart_legend(&doc);
    assert_eq!(
        legend,
        [
            "<script>alert(1)</script>: 100.0% of 1 pairs >= 0.90",
            "\"quoted\": 0.0% of 1 pairs >= 0.90"
        ]
    );
}

#[test]
fn report_escapes_usernames_title_files_and_note() {
    let result = scan_result(HOSTILE);
    let page = viz::ReportPage {
        title: "<script>alert('t')</script>".to_owned(),
        season: Some(3),
        result: &result,
        clique_svgs: vec!["a\"b'<c>.svg".to_owned()],
        clique_pictures: Vec::new(),
        distribution_svg: Some("d&e.svg".to_owned()),
        distribution_inline: None,
        evidence: [(
            (HOSTILE[0].to_owned(), HOSTILE[1].to_owned()),
            "</pre><script>e</script>".to_owned(),
        )]
        .into_iter()
        .collect(),
        generated_note: "</footer><script>n</script>".to_owned(),
        verdicts: None,
        directed_pairs: None,
    };
    let html = viz::report_html(&page);
    assert!(!html.to_ascii_lowercase().contains("<script"), "{html}");
    for escaped in [
        "&lt;script&gt;alert(1)&lt;/script&gt;",
        "a&amp;b",
        "&quot;quoted&quot;",
        "Ünïcødé名前",
        "o&#39;brien",
        "a&quot;b&#39;&lt;c&gt;.svg",
        "d&amp;e.svg",
        "&lt;/pre&gt;&lt;script&gt;e&lt;/script&gt;",
    ] {
        assert!(html.contains(escaped), "{escaped} in {html}");
    }
    assert!(!html.contains("&amp;amp;") && !html.contains("&amp;lt;"));
    // Parsed once, every name reads as itself.
    let doc = parse(&html);
    let cells: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("td"))
        .filter_map(|n| n.text())
        .collect();
    for name in HOSTILE {
        assert!(cells.contains(&name), "{name} in {cells:?}");
    }
    assert!(doc
        .descendants()
        .any(|n| n.has_tag_name("a") && n.attribute("href") == Some("a\"b'<c>.svg")));
    assert!(!doc.descendants().any(|n| n.has_tag_name("script")));
}
