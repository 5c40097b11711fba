//! Alerts: after each scan of a season the daemon posts a webhook for each
//! pair or clique to review that no verdict covers (and for each known
//! relationship that re-opened), to every `[[alert]] url` of the
//! configuration.
//!
//! - The body suits Slack and Discord incoming webhooks: a `text` line
//!   (Slack) and `content` (Discord) plus structured fields (`attachments`,
//!   `embeds`), and a `detect` object for machines. Names are escaped for
//!   Slack's markup; Discord mentions are switched off.
//! - It names accounts, the season and similarities, never an IP address,
//!   and links to the pair's or clique's page when `public_url` is set.
//! - A failed post is retried with exponential backoff; a flag delivered to
//!   a webhook is recorded in the store (`alerts_sent`) and never sent there
//!   again, across ticks and restarts. One that still fails is retried at
//!   the next scan tick.
//! - Webhook URLs hold secrets: logs and errors name a webhook by a hash of
//!   its URL only.

use crate::daemon::fnv::fnv1a;
use serde::Deserialize;
use serde_json::Value;
use std::time::Duration;
use store::Store;
use url::Url;

mod compose;
pub use compose::{alerts_for, clique_link, pair_link, Alert};

/// The default number of retries of a failed post.
pub const DEFAULT_RETRIES: u32 = 3;
/// The wait before the first retry; each further retry waits twice as long.
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// How long one post may take.
const POST_TIMEOUT: Duration = Duration::from_secs(10);

/// An `[[alert]]` table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAlert {
    url: Option<String>,
    retries: Option<u32>,
}

/// A webhook to post alerts to.
#[derive(Clone)]
pub struct AlertTarget {
    url: Url,
    /// The webhook's name in the store and in logs: a hash of its URL.
    pub destination: String,
    pub retries: u32,
}

impl std::fmt::Debug for AlertTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AlertTarget({})", self.destination)
    }
}

/// An http(s) URL, or why not.
fn http_url(s: &str, what: &str) -> Result<Url, String> {
    let u = Url::parse(s.trim()).map_err(|e| format!("{what} is not a URL ({e})"))?;
    if !matches!(u.scheme(), "http" | "https") || u.host().is_none() {
        return Err(format!("{what} must be an http:// or https:// URL"));
    }
    Ok(u)
}

/// Checks one `[[alert]]` table. Messages never show the URL.
pub fn check_alert(raw: RawAlert) -> Result<AlertTarget, String> {
    let url = raw.url.ok_or("it needs `url`, the webhook to post to")?;
    let url = http_url(&url, "its url")?;
    Ok(AlertTarget {
        destination: format!("webhook-{:016x}", fnv1a(url.as_str().as_bytes())),
        url,
        retries: raw.retries.unwrap_or(DEFAULT_RETRIES),
    })
}

/// Checks `public_url`, the address moderators reach `detect serve` at.
pub fn check_public_url(s: &str) -> Result<Url, String> {
    http_url(s, "public_url")
}

/// Posts `body` to the webhook, retrying with backoff; the error names the
/// webhook by its hash only.
async fn post(client: &reqwest::Client, target: &AlertTarget, body: &Value) -> Result<(), String> {
    let mut wait = FIRST_BACKOFF;
    let mut attempt = 0;
    loop {
        let why = match client.post(target.url.clone()).json(body).send().await {
            Ok(r) if r.status().is_success() => return Ok(()),
            Ok(r) => format!("answered {}", r.status()),
            Err(e) => e.without_url().to_string(),
        };
        if attempt >= target.retries {
            return Err(format!(
                "{} failed after {} attempts: {why}",
                target.destination,
                attempt + 1
            ));
        }
        tracing::debug!(
            "alert to {} failed ({why}); retrying in {wait:?}",
            target.destination
        );
        tokio::time::sleep(wait).await;
        wait *= 2;
        attempt += 1;
    }
}

/// Delivers each alert to each webhook that has not had it, recording each
/// delivery. Returns the failures, one sentence each.
pub async fn deliver(
    store: &Store,
    season: u32,
    targets: &[AlertTarget],
    alerts: &[Alert],
) -> Vec<String> {
    if targets.is_empty() || alerts.is_empty() {
        return Vec::new();
    }
    let client = match reqwest::Client::builder().timeout(POST_TIMEOUT).build() {
        Ok(c) => c,
        Err(e) => return vec![format!("cannot start the HTTP client for alerts: {e}")],
    };
    let labels = [
        ("site", store.site().to_owned()),
        ("season", season.to_string()),
    ];
    let mut problems = Vec::new();
    for alert in alerts {
        for t in targets {
            match store.alert_sent(&alert.key, &t.destination).await {
                Ok(true) => continue,
                Ok(false) => {}
                Err(e) => {
                    problems.push(format!("alerts: {e}"));
                    continue;
                }
            }
            match post(&client, t, &alert.body).await {
                Ok(()) => {
                    metrics::counter!("detect_alerts_sent_total", &labels).increment(1);
                    tracing::info!("alert sent to {}: {}", t.destination, alert.key);
                    if let Err(e) = store.record_alert_sent(&alert.key, &t.destination).await {
                        problems.push(format!("alerts: {e}"));
                    }
                }
                Err(m) => {
                    metrics::counter!("detect_alerts_failed_total", &labels).increment(1);
                    problems.push(format!("alert {}: {m}", alert.key));
                }
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use schema::{Mode, PairScore, ScanParams, ScanResult, Verdict, VerdictKind};
    use serde_json::json;

    fn pair(a: &str, b: &str, s: f64) -> PairScore {
        PairScore {
            account_a: a.into(),
            account_b: b.into(),
            similarity: s,
            sum: 0,
            weight: 20,
            evidence: Default::default(),
        }
    }

    fn result(pairs: Vec<PairScore>) -> ScanResult {
        let params = ScanParams {
            threshold: 0.9,
            bucket_seconds: 1800,
            mode: Mode::Reference,
            ..ScanParams::default()
        };
        scoring::scan_result(params, 0, 0, pairs, Vec::new())
    }

    fn verdict(id: i64, accounts: &[&str], kind: VerdictKind) -> Verdict {
        Verdict {
            id,
            accounts: accounts.iter().map(|s| s.to_string()).collect(),
            kind,
            note: String::new(),
            by: "m".into(),
            at: id,
            season: Some(7),
            similarity: Some(0.9),
            unseen: false,
            supersedes: None,
        }
    }

    #[test]
    fn links_percent_encode_names() {
        let base = Url::parse("https://mods.example.org/detect/").unwrap();
        assert_eq!(
            pair_link(&base, "a/b?c#d", "é %"),
            "https://mods.example.org/detect/pair/a%2Fb%3Fc%23d/%C3%A9%20%25"
        );
        let bare = Url::parse("https://mods.example.org").unwrap();
        assert_eq!(
            clique_link(&bare, 7, 2),
            "https://mods.example.org/clique/7/2"
        );
    }

    #[test]
    fn only_flags_without_verdict_reopened_ones_and_big_cliques_alert() {
        let r = result(vec![
            pair("a", "b", 0.95),
            pair("b", "c", 0.93),
            pair("p", "q", 0.99),
            pair("x", "y", 0.97),
            pair("h", "k", 0.97),
        ]);
        let vs = [
            verdict(1, &["x", "y"], VerdictKind::Suspicious),
            verdict(2, &["h", "k"], VerdictKind::Household),
            verdict(3, &["p", "q"], VerdictKind::Cleared),
        ];
        let mut vs = vs.to_vec();
        vs[2].similarity = Some(0.9); // 0.99 > 0.9 + 0.05: re-opened
        vs[1].similarity = Some(0.95); // 0.97 <= 1.0: still known
        let t = scoring::triage(&r, &vs, false, 0.05);
        let base = Url::parse("https://m.example/").unwrap();
        let alerts = alerts_for("default", 7, &t, Some(&base));
        let keys: Vec<&str> = alerts.iter().map(|a| a.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                r#"["reopened",7,"p","q",3]"#,
                r#"["pair",7,"a","b"]"#,
                r#"["pair",7,"b","c"]"#,
                r#"["clique",7,["a","b","c"]]"#,
            ]
        );
        assert_eq!(
            alerts[1].body["detect"]["url"],
            "https://m.example/pair/a/b"
        );
        assert_eq!(
            alerts[3].body["detect"]["url"],
            "https://m.example/clique/7/1"
        );
        assert!(alerts[0].body["text"]
            .as_str()
            .unwrap()
            .contains("re-opened"));
        assert!(alerts_for("default", 7, &t, None)[1].body["detect"]["url"].is_null());

        // Another site's alerts name it and are keyed apart: the same
        // account names on two sites are two alerts.
        let beta = alerts_for("beta", 7, &t, None);
        let keys: Vec<&str> = beta.iter().map(|a| a.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                r#"["reopened","beta",7,"p","q",3]"#,
                r#"["pair","beta",7,"a","b"]"#,
                r#"["pair","beta",7,"b","c"]"#,
                r#"["clique","beta",7,["a","b","c"]]"#,
            ]
        );
        let text = beta[1].body["text"].as_str().unwrap();
        assert!(
            text.starts_with("detect: site beta, season 7: newly flagged pair"),
            "{text}"
        );
        assert_eq!(beta[1].body["detect"]["site"], "beta");
        assert!(alerts[1].body["text"]
            .as_str()
            .unwrap()
            .starts_with("detect: season 7: newly flagged pair"));
    }

    #[test]
    fn hostile_names_cannot_ping_or_mark_up() {
        let r = result(vec![pair("<!channel>", "@everyone&", 0.95)]);
        let t = scoring::triage(&r, &[], false, 0.05);
        let a = &alerts_for("default", 1, &t, None)[0];
        let text = a.body["text"].as_str().unwrap();
        assert!(text.contains("&lt;!channel&gt;") && text.contains("@everyone&amp;"));
        assert!(!text.contains('<'));
        assert_eq!(a.body["allowed_mentions"]["parse"], json!([]));
        assert_eq!(a.body["detect"]["accounts"][0], "<!channel>");
    }

    #[test]
    fn webhook_urls_are_checked_and_never_shown() {
        let t = check_alert(RawAlert {
            url: Some("https://hooks.example/services/SECRET".into()),
            retries: None,
        })
        .unwrap();
        assert!(!format!("{t:?}").contains("SECRET"));
        assert!(t.destination.starts_with("webhook-"));
        assert_eq!(t.retries, DEFAULT_RETRIES);
        let e = check_alert(RawAlert {
            url: Some("ftp://x/SECRET".into()),
            retries: None,
        })
        .unwrap_err();
        assert!(!e.contains("SECRET"), "{e}");
        assert!(check_alert(RawAlert {
            url: None,
            retries: Some(1)
        })
        .is_err());
    }
}
