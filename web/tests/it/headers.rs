//! The security headers on every response, and forms only from the site
//! (issue item 6).

use crate::support::*;
use reqwest::header::{HeaderMap, COOKIE};
use reqwest::StatusCode;

const EVERY_RESPONSE: [&str; 4] = [
    "content-security-policy",
    "x-frame-options",
    "x-content-type-options",
    "referrer-policy",
];

fn assert_headers(r: &reqwest::Response, what: &str) {
    for h in EVERY_RESPONSE {
        assert!(r.headers().contains_key(h), "{what}: no {h}");
    }
    assert_eq!(r.headers()["x-frame-options"], "DENY", "{what}");
    assert_eq!(r.headers()["x-content-type-options"], "nosniff", "{what}");
    let csp = r.headers()["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_response_carries_the_security_headers() {
    let app = App::start(web::Options::default()).await;
    let c = client();
    let signed_in = sign_in(&c, &app, "mo", PASSWORD, "/", HeaderMap::new()).await;
    let session = signed_in
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("detect_session="))
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    assert_headers(&signed_in, "the sign-in redirect");
    let anonymous = [
        "/",
        "/login",
        "/style.css",
        "/season/1",
        "/no/such/page",
        "/audit",
    ];
    for path in anonymous {
        let r = c.get(app.url(path)).send().await.unwrap();
        assert_headers(&r, path);
    }
    for path in [
        "/",
        "/season/1",
        "/account?name=x",
        "/account/x",
        "/audit",
        "/nope",
    ] {
        let r = c
            .get(app.url(path))
            .header(COOKIE, &session)
            .send()
            .await
            .unwrap();
        assert_headers(&r, path);
        assert_eq!(r.headers()["cache-control"], "no-store", "{path}");
    }
    let r = c
        .post(app.url("/verdict"))
        .header(COOKIE, &session)
        .form(&[("csrf", "wrong")])
        .send()
        .await
        .unwrap();
    assert!(r.status().is_client_error(), "{}", r.status());
    assert_headers(&r, "a refused form");
    let css = c.get(app.url("/style.css")).send().await.unwrap();
    assert!(css.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/css"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_from_another_site_is_refused() {
    let app = App::start(web::Options::default()).await;
    let c = client();
    let token = login_token(&c, &app).await;
    for (header, value) in [
        ("origin", "http://evil.example".to_owned()),
        ("origin", "null".to_owned()),
        ("referer", "http://evil.example/login".to_owned()),
    ] {
        let r = c
            .post(app.url("/login"))
            .header(COOKIE, format!("detect_login={token}"))
            .header(header, value.as_str())
            .form(&[("name", "mo"), ("password", PASSWORD), ("csrf", &token)])
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{header}: {value}");
        assert!(!sets_session(&r));
    }
    assert!(app.audited("sign-in").await.is_empty());
}
