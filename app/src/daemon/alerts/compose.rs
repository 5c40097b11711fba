//! What an alert says: its text for Slack and Discord, its fields, its
//! facts for machines and its key, for a pair or a clique of a triaged
//! scan. Names are escaped for Slack's markup; no IP address appears.

use scoring::triage::{CliqueToReview, Flag};
use scoring::Triage;
use serde_json::{json, Value};
use url::Url;

/// `base` with more path segments, each percent-encoded.
fn link(base: &Url, segments: &[&str]) -> String {
    let mut u = base.clone();
    if let Ok(mut path) = u.path_segments_mut() {
        path.pop_if_empty().extend(segments);
    }
    u.to_string()
}

/// The page of a pair: `{public_url}/pair/{a}/{b}`.
pub fn pair_link(base: &Url, a: &str, b: &str) -> String {
    link(base, &["pair", a, b])
}

/// The page of clique `k` of a season's scan: `{public_url}/clique/{season}/{k}`.
pub fn clique_link(base: &Url, season: u32, k: usize) -> String {
    link(base, &["clique", &season.to_string(), &k.to_string()])
}

/// `s` for Slack's markup, where `<`, `>` and `&` are control characters.
fn slack(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// One alert: the flag it announces (its key in the store) and its body.
#[derive(Debug, Clone, PartialEq)]
pub struct Alert {
    pub key: String,
    pub body: Value,
}

fn sim(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_owned(), |s| format!("{s:.4}"))
}

/// The body: a text line, Slack's and Discord's structured fields, and the
/// facts for machines.
fn body(
    text: &str,
    title: &str,
    link: Option<&str>,
    fields: &[(&str, String)],
    facts: Value,
) -> Value {
    let mut line = text.to_owned();
    if let Some(l) = link {
        line.push_str(&format!(" {l}"));
    }
    json!({
        "text": line,
        "content": line,
        "allowed_mentions": { "parse": [] },
        "attachments": [{
            "fallback": line,
            "title": title,
            "title_link": link,
            "fields": fields.iter().map(|(k, v)| json!({"title": k, "value": v, "short": true})).collect::<Vec<_>>(),
        }],
        "embeds": [{
            "title": title,
            "url": link,
            "fields": fields.iter().map(|(k, v)| json!({"name": k, "value": v, "inline": true})).collect::<Vec<_>>(),
        }],
        "detect": facts,
    })
}

/// The alerts of one season's triaged scan: each flag without a verdict,
/// each re-opened known relationship, and each clique of three or more
/// accounts to review without a verdict naming them all (a clique of two is
/// its pair's alert).
pub fn alerts_for(
    site: &str,
    season: u32,
    triage: &Triage,
    public_url: Option<&Url>,
) -> Vec<Alert> {
    let scope = Scope::new(site, season);
    let pairs = triage
        .flags
        .iter()
        .filter(|f| f.verdict.is_none() || f.reopened)
        .map(|f| scope.pair_alert(f, public_url));
    let cliques = triage
        .cliques
        .iter()
        .filter(|c| c.clique.members.len() >= 3 && c.verdict.is_none())
        .map(|c| scope.clique_alert(c, public_url));
    pairs.chain(cliques).collect()
}

/// The site and season an alert speaks of.
struct Scope<'a> {
    site: &'a str,
    season: u32,
    /// The site, unless it is the default one.
    other_site: Option<&'a str>,
    /// How the alert's text names them.
    text: String,
}

impl<'a> Scope<'a> {
    fn new(site: &'a str, season: u32) -> Self {
        // The default site's alerts read and are keyed as before sites
        // existed; another site's name its site, and their keys hold it, so
        // one site's alert never stands in for another's with the same
        // account names.
        let other_site = (site != store::DEFAULT_SITE).then_some(site);
        let text = match other_site {
            Some(site) => format!("site {}, season {season}", slack(site)),
            None => format!("season {season}"),
        };
        Scope {
            site,
            season,
            other_site,
            text,
        }
    }

    /// The alert's key: `parts`, with the site second unless it is the
    /// default one.
    fn key(&self, mut parts: Vec<Value>) -> String {
        if let Some(site) = self.other_site {
            parts.insert(1, json!(site));
        }
        Value::Array(parts).to_string()
    }

    /// The alert of a new flag, or of a known relationship re-opened.
    fn pair_alert(&self, f: &Flag, public_url: Option<&Url>) -> Alert {
        let (site, season, scope) = (self.site, self.season, &self.text);
        let reopened = f.reopened;
        let (a, b) = (f.pair.a, f.pair.b);
        let (ab, ba) = (
            f.pair.ab.map(|p| p.similarity),
            f.pair.ba.map(|p| p.similarity),
        );
        let link = public_url.map(|u| pair_link(u, a, b));
        let (key, text) = match f.verdict.filter(|_| reopened) {
            Some(v) => (
                self.key(vec![
                    json!("reopened"),
                    json!(season),
                    json!(a),
                    json!(b),
                    json!(v.id),
                ]),
                format!(
                    "detect: {scope}: re-opened pair {} and {} (was {}{}), similarity {} / {}",
                    slack(a),
                    slack(b),
                    v.kind.label(),
                    v.similarity
                        .map_or(String::new(), |l| format!(" at {l:.4}")),
                    sim(ab),
                    sim(ba)
                ),
            ),
            None => (
                self.key(vec![json!("pair"), json!(season), json!(a), json!(b)]),
                format!(
                    "detect: {scope}: newly flagged pair {} and {}, similarity {} / {}",
                    slack(a),
                    slack(b),
                    sim(ab),
                    sim(ba)
                ),
            ),
        };
        let fields = [
            ("season", season.to_string()),
            ("accounts", slack(&format!("{a}, {b}"))),
            ("similarity a→b", sim(ab)),
            ("similarity b→a", sim(ba)),
        ];
        let facts = json!({
            "kind": if reopened { "reopened-pair" } else { "pair" },
            "site": site, "season": season, "accounts": [a, b],
            "similarity_ab": ab, "similarity_ba": ba, "url": link,
        });
        let title = format!("Season {season}: {}, {}", slack(a), slack(b));
        Alert {
            key,
            body: body(&text, &title, link.as_deref(), &fields, facts),
        }
    }

    /// The alert of a clique to review.
    fn clique_alert(&self, c: &CliqueToReview, public_url: Option<&Url>) -> Alert {
        let (site, season, scope) = (self.site, self.season, &self.text);
        let m = &c.clique.members;
        let link = public_url.map(|u| clique_link(u, season, c.number));
        let names = slack(&m.join(", "));
        let text = format!(
            "detect: {scope}: clique of {} accounts to review: {names}",
            m.len()
        );
        let fields = [("season", season.to_string()), ("accounts", names.clone())];
        let facts = json!({
            "kind": "clique", "site": site, "season": season, "clique": c.number, "accounts": m, "url": link,
        });
        Alert {
            key: self.key(vec![json!("clique"), json!(season), json!(m)]),
            body: body(
                &text,
                &format!("Season {season}: clique {}", c.number),
                link.as_deref(),
                &fields,
                facts,
            ),
        }
    }
}
