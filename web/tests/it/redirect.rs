//! Where sign-in sends the browser: never off the site (issue item 3), and
//! a `next` with a newline is no server error and sets no cookie on an
//! error (item 11).

use crate::support::*;
use reqwest::header::HeaderMap;
use reqwest::StatusCode;

/// Where a browser on the site goes for `location`.
fn lands(app: &App, location: &str) -> url::Url {
    url::Url::parse(&app.url("/login"))
        .unwrap()
        .join(location)
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_never_sends_the_browser_off_the_site() {
    let app = App::start(web::Options::default()).await;
    let c = client();
    for next in [
        "/\t/evil.example",
        "/\t/evil.example/phish",
        "/%09/evil.example/phish",
        "//evil.example",
        "/\\evil.example",
        "https://evil.example/",
        "/\n/evil.example",
    ] {
        let r = sign_in(&c, &app, "mo", PASSWORD, next, HeaderMap::new()).await;
        assert_eq!(r.status(), StatusCode::SEE_OTHER, "{next:?}");
        let to = location(&r);
        let url = lands(&app, &to);
        assert_eq!(url.host_str(), Some("127.0.0.1"), "{next:?} -> {to:?}");
        assert_eq!(url.port(), Some(app.addr.port()), "{next:?} -> {to:?}");
    }
}

/// The sign-in page's own form carries only a path of the site.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sign_in_page_keeps_only_a_path_of_the_site() {
    let app = App::start(web::Options::default()).await;
    let c = client();
    for (query, kept) in [
        ("next=%2F%09%2Fevil.example%2Fphish", "/"),
        ("next=/%09/evil.example/phish", "/"),
        ("next=%2Fseason%2F1", "/season/1"),
    ] {
        let page = c
            .get(app.url(&format!("/login?{query}")))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            page.contains(&format!("name=\"next\" value=\"{kept}\"")),
            "{query}: {page}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_next_with_a_newline_is_no_error_and_errors_set_no_cookie() {
    let app = App::start(web::Options {
        trusted_proxies: web::TrustedProxies::parse(&["127.0.0.1"]).unwrap(),
        ..web::Options::default()
    })
    .await;
    let c = client();
    let nexts = [
        "/season/1\n/x",
        "/a\r\nSet-Cookie: evil=1",
        "/\u{0}",
        "/é\u{85}",
    ];
    for (i, next) in nexts.into_iter().enumerate() {
        // A client of its own each time: the failures below do not add up.
        let from = || forwarded_for(&format!("192.0.2.{i}"));
        let r = sign_in(&c, &app, "mo", PASSWORD, next, from()).await;
        assert_eq!(r.status(), StatusCode::SEE_OTHER, "{next:?}");
        assert!(sets_session(&r));
        assert_eq!(lands(&app, &location(&r)).host_str(), Some("127.0.0.1"));
        let wrong = sign_in(&c, &app, "nobody", "x", next, from()).await;
        assert!(!wrong.status().is_server_error(), "{next:?}");
        assert!(!sets_session(&wrong), "{next:?}");
    }
}
