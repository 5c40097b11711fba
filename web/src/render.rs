//! Rendering: the signed-in user every page shows, the page helper, and
//! links. Templates live in `web/templates` (askama, compiled in, HTML
//! escaped by default). The only text a template writes unescaped is an SVG
//! timeline from `viz`, which escapes user-supplied strings itself.

use crate::WebError;
use askama::Template;
use axum::response::Html;
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use store::{Role, User};

/// Who is looking, as the page header shows it.
#[derive(Debug, Clone, Default)]
pub struct Me {
    pub name: String,
    pub role: String,
    /// The session's CSRF token, sent back by every form.
    pub csrf: String,
    pub signed_in: bool,
    pub moderator: bool,
    pub admin: bool,
}

impl Me {
    pub fn of(user: &User, csrf: &str) -> Me {
        Me {
            name: user.name.clone(),
            role: user.role.as_str().to_owned(),
            csrf: csrf.to_owned(),
            signed_in: true,
            moderator: user.role >= Role::Moderator,
            admin: user.role >= Role::Admin,
        }
    }

    pub fn anonymous() -> Me {
        Me::default()
    }
}

/// A template rendered into a response body.
pub fn page(t: &impl Template) -> Result<Html<String>, WebError> {
    t.render()
        .map(Html)
        .map_err(|e| WebError::Internal(format!("cannot render a page: {e}")))
}

/// `s` as one URL path segment or query value (everything but letters and
/// digits percent-encoded).
pub fn url_component(s: &str) -> String {
    utf8_percent_encode(s, NON_ALPHANUMERIC).to_string()
}

/// The page of a pair of accounts in a season.
pub fn pair_href(season: u32, a: &str, b: &str) -> String {
    format!(
        "/pair/{}/{}?season={season}",
        url_component(a),
        url_component(b)
    )
}

pub fn account_href(name: &str) -> String {
    format!("/account/{}", url_component(name))
}

pub fn clique_href(season: u32, k: usize) -> String {
    format!("/clique/{season}/{k}")
}

/// A similarity with four decimals.
pub fn sim(x: f64) -> String {
    format!("{x:.4}")
}

/// A scan as the pages name it: number, time and mode.
pub fn scanned(scan: &store::StoredScan) -> String {
    format!(
        "scan #{} of {}, {} mode",
        scan.id,
        when(scan.created_at),
        scan.result.params.mode.as_str()
    )
}

/// UTC epoch seconds as `YYYY-MM-DD hh:mm UTC`.
pub fn when(t: i64) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .map(|d| d.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_else(|| t.to_string())
}

#[derive(Template)]
#[template(path = "error.html")]
pub struct ErrorPage {
    pub me: Me,
    pub status: u16,
    pub reason: &'static str,
    pub message: String,
}

#[derive(Template)]
#[template(path = "login.html")]
pub struct LoginPage {
    pub me: Me,
    pub csrf: String,
    pub next: String,
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_encode_every_special_character() {
        assert_eq!(
            pair_href(3, "<a>/b", "x y&z"),
            "/pair/%3Ca%3E%2Fb/x%20y%26z?season=3"
        );
        assert_eq!(account_href("é"), "/account/%C3%A9");
    }
}
