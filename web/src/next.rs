//! Where sign-in sends a browser back to (`next`): only a path of this
//! application, whatever the string says.
//!
//! The string is resolved as a browser resolves a `Location` (the WHATWG URL
//! rules of the `url` crate: tabs and newlines dropped, `\` read as `/`, dot
//! segments removed) against a placeholder origin; anything that lands on
//! another origin, or on a path that a browser would read as another host
//! (`//host`), gives `/`. What is returned is the resolved path and query,
//! percent-encoded, so it is always a valid header value and a browser reads
//! it exactly as it was checked.

use url::Url;

const PLACEHOLDER: &str = "http://detect.invalid/";

/// The same-site absolute path for `next`, or `/`.
pub fn safe_next(next: Option<&str>) -> String {
    next.and_then(resolve).unwrap_or_else(|| "/".to_owned())
}

fn resolve(next: &str) -> Option<String> {
    if !next.starts_with('/') {
        return None;
    }
    let base = Url::parse(PLACEHOLDER).expect("a valid placeholder");
    let url = base.join(next).ok()?;
    if url.origin() != base.origin() || url.username() != "" || url.password().is_some() {
        return None;
    }
    let path = url.path();
    if !path.starts_with('/') || path.starts_with("//") {
        return None;
    }
    let mut out = path.to_owned();
    if let Some(q) = url.query() {
        out.push('?');
        out.push_str(q);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Where a browser on `https://site.example/login` goes for `location`.
    fn lands(location: &str) -> Url {
        Url::parse("https://site.example/login?next=x")
            .unwrap()
            .join(location)
            .unwrap()
    }

    #[test]
    fn paths_of_this_site_are_kept() {
        assert_eq!(safe_next(Some("/pair/a/b?season=1")), "/pair/a/b?season=1");
        assert_eq!(safe_next(Some("/account/%3Cb%3E")), "/account/%3Cb%3E");
        assert_eq!(safe_next(Some("/season/1#top")), "/season/1");
        assert_eq!(safe_next(None), "/");
    }

    #[test]
    fn every_way_off_the_site_gives_the_front_page() {
        for bad in [
            "//evil.example",
            "https://evil.example",
            "/\\evil.example",
            "\\/evil.example",
            "/\t/evil.example",
            "/\t/evil.example/phish",
            "/\n/evil.example",
            "/\r\n/evil.example",
            "/ /evil.example",
            "/.//evil.example",
            "/..//evil.example",
            "/%2e/%2fevil.example",
            "http:evil.example",
            "",
            "evil.example",
        ] {
            let to = safe_next(Some(bad));
            assert_eq!(
                lands(&to).host_str(),
                Some("site.example"),
                "{bad:?} -> {to:?}"
            );
            assert!(!to.starts_with("//"), "{bad:?} -> {to:?}");
        }
        assert_eq!(safe_next(Some("/\t/evil.example")), "/");
    }

    #[test]
    fn a_newline_gives_a_valid_header() {
        let to = safe_next(Some("/season/1\r\nSet-Cookie: x=1"));
        assert!(axum::http::HeaderValue::from_str(&to).is_ok(), "{to:?}");
        assert!(!to.contains('\n') && !to.contains('\r'), "{to:?}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn no_next_leaves_the_site(s in any::<String>()) {
            let to = safe_next(Some(&s));
            prop_assert!(axum::http::HeaderValue::from_str(&to).is_ok(), "{:?}", to);
            let url = lands(&to);
            prop_assert_eq!(url.host_str(), Some("site.example"), "{:?} -> {:?}", s, to);
            prop_assert_eq!(url.scheme(), "https");
            prop_assert!(to.starts_with('/') && !to.starts_with("//"), "{:?}", to);
        }

        #[test]
        fn no_slash_led_next_leaves_the_site(s in "/[/\\\\\t\n\r .%a-z0-9:@?#]{0,24}") {
            let to = safe_next(Some(&s));
            prop_assert!(axum::http::HeaderValue::from_str(&to).is_ok(), "{:?}", to);
            let url = lands(&to);
            prop_assert_eq!(url.host_str(), Some("site.example"), "{:?} -> {:?}", s, to);
            prop_assert!(!to.starts_with("//"), "{:?}", to);
        }
    }
}
