//! What every response carries and what every form must come from: the
//! security headers (tower-http layers, so a handler, an error page and a
//! redirect all get them), and the check that a POST comes from a page of
//! this site (its `Origin`, else its `Referer`, names this host).

use crate::{AppState, WebError};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, HOST, ORIGIN, REFERER, REFERRER_POLICY,
    X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::Response;
use axum::Router;
use std::net::SocketAddr;
use tower_http::set_header::SetResponseHeaderLayer;

/// Scripts, styles and images from this site only (no inline script: the
/// one script is /keys.js); forms post
/// here only; no framing; no `<base>` that moves relative links.
pub const CONTENT_SECURITY_POLICY_VALUE: &str =
    "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The headers every response carries, and their values. `Cache-Control`
/// is set where a response has not chosen its own: every page may hold
/// evidence, so none is stored by a browser or a proxy.
pub fn security_headers() -> [(HeaderName, HeaderValue); 5] {
    [
        (
            CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY_VALUE),
        ),
        (X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
        (X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
        (REFERRER_POLICY, HeaderValue::from_static("same-origin")),
        (CACHE_CONTROL, HeaderValue::from_static("no-store")),
    ]
}

/// `router` with the security headers on every response.
pub fn with_security_headers(router: Router) -> Router {
    security_headers()
        .into_iter()
        .fold(router, |r, (name, value)| {
            if name == CACHE_CONTROL {
                r.layer(SetResponseHeaderLayer::if_not_present(name, value))
            } else {
                r.layer(SetResponseHeaderLayer::overriding(name, value))
            }
        })
}

/// The host and port of a URL in an `Origin` or `Referer` header.
fn authority_of(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    let host = url.host_str()?;
    Some(match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_owned(),
    })
}

/// The host a browser reached, as `host[:port]` in lower case: the `Host`
/// header, or `X-Forwarded-Host` written by a trusted proxy.
fn reached_host(headers: &HeaderMap, from_trusted_proxy: bool) -> Option<String> {
    let forwarded = from_trusted_proxy
        .then(|| headers.get("x-forwarded-host"))
        .flatten();
    let host = forwarded.or_else(|| headers.get(HOST))?.to_str().ok()?;
    let host = host.split(',').next()?.trim();
    authority_of(&format!("http://{host}/"))
}

/// Whether a form with these headers comes from a page of this site. A
/// browser sends `Origin` with every POST; a client that sends neither it
/// nor `Referer` is not a browser (CSRF needs one) and still needs the
/// form's token.
pub fn same_site(headers: &HeaderMap, from_trusted_proxy: bool) -> bool {
    let sent = match (headers.get(ORIGIN), headers.get(REFERER)) {
        (Some(o), _) => o,
        (None, Some(r)) => r,
        (None, None) => return true,
    };
    let Some(sent) = sent.to_str().ok().and_then(authority_of) else {
        // `Origin: null` (a sandboxed frame, a redirect from elsewhere)
        // or a header that is no URL.
        return false;
    };
    let drop_default_port = |a: String| {
        a.strip_suffix(":80")
            .or_else(|| a.strip_suffix(":443"))
            .map(str::to_owned)
            .unwrap_or(a)
    };
    reached_host(headers, from_trusted_proxy)
        .is_some_and(|h| drop_default_port(h) == drop_default_port(sent))
}

/// Refuses a POST (or any method that changes something) sent from a page
/// of another site.
pub async fn check_origin(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Result<Response, WebError> {
    if !matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    ) {
        let peer = request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        let trusted = peer.is_some_and(|p| state.options().trusted_proxies.trusts(p));
        if !same_site(request.headers(), trusted) {
            return Err(WebError::Forbidden(
                "This form was sent from a page of another site; open detect's own page and \
                 send it from there."
                    .to_owned(),
            ));
        }
    }
    Ok(next.run(request).await)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(
                HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    #[test]
    fn a_form_from_this_site_passes_and_from_another_does_not() {
        let ok = [
            vec![
                ("host", "127.0.0.1:8080"),
                ("origin", "http://127.0.0.1:8080"),
            ],
            vec![
                ("host", "mods.example.org"),
                ("origin", "https://mods.example.org"),
            ],
            vec![
                ("host", "mods.example.org"),
                ("origin", "https://mods.example.org:443"),
            ],
            vec![
                ("host", "Mods.Example.org"),
                ("origin", "https://mods.example.org"),
            ],
            vec![
                ("host", "127.0.0.1:8080"),
                ("referer", "http://127.0.0.1:8080/pair/a/b"),
            ],
            vec![("host", "127.0.0.1:8080")],
        ];
        for h in ok {
            assert!(same_site(&headers(&h), false), "{h:?}");
        }
        let bad = [
            vec![
                ("host", "127.0.0.1:8080"),
                ("origin", "http://evil.example"),
            ],
            vec![("host", "127.0.0.1:8080"), ("origin", "null")],
            vec![
                ("host", "127.0.0.1:8080"),
                ("origin", "http://127.0.0.1:9090"),
            ],
            vec![
                ("host", "127.0.0.1:8080"),
                ("referer", "http://evil.example/127.0.0.1:8080"),
            ],
            vec![("origin", "http://127.0.0.1:8080")],
        ];
        for h in bad {
            assert!(!same_site(&headers(&h), false), "{h:?}");
        }
    }

    #[test]
    fn the_forwarded_host_counts_only_from_a_trusted_proxy() {
        let h = headers(&[
            ("host", "127.0.0.1:8080"),
            ("x-forwarded-host", "mods.example.org"),
            ("origin", "https://mods.example.org"),
        ]);
        assert!(same_site(&h, true));
        assert!(!same_site(&h, false));
    }
}
