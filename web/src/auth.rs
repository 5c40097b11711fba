//! Sign-in: argon2id password hashes, session cookies, CSRF tokens, login
//! rate limiting, and the [`SignedIn`] extractor every page but the sign-in
//! page asks for.
//!
//! The session cookie holds 32 random bytes; the store keeps only their
//! SHA-256, so a copy of the database opens no session. The cookie is
//! `HttpOnly`, `SameSite=Strict`, and `Secure` when the application runs
//! behind TLS (`--secure-cookies`, or a request with
//! `X-Forwarded-Proto: https`). Each session has its own CSRF token that
//! every form sends back; the sign-in form, which has no session yet, uses a
//! token in a short-lived cookie of its own (double submit).

use crate::render::{page, LoginPage, Me};
use crate::{AppState, WebError};
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use axum::extract::{ConnectInfo, FromRequestParts, Query, State};
use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{AppendHeaders, IntoResponse, Redirect, Response};
use axum::Form;
use cookie::{Cookie, SameSite};
use rand::RngCore;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::net::SocketAddr;
use store::{NewSession, Role, User};

pub const SESSION_COOKIE: &str = "detect_session";
const LOGIN_COOKIE: &str = "detect_login";

/// Failed sign-ins allowed per account name, and per client address, in
/// [`LIMIT_WINDOW`] seconds.
pub const FAILURES_PER_NAME: usize = 5;
pub const FAILURES_PER_CLIENT: usize = 20;
pub const LIMIT_WINDOW: i64 = 15 * 60;

/// An argon2id hash (PHC string, random salt) of a password.
pub fn hash_password(password: &str) -> Result<String, String> {
    let salt = SaltString::generate(&mut rand::rngs::OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| format!("cannot hash the password: {e}"))
}

/// Whether `password` matches the PHC string `hash`.
pub fn verify_password(hash: &str, password: &str) -> bool {
    PasswordHash::new(hash)
        .map(|h| {
            Argon2::default()
                .verify_password(password.as_bytes(), &h)
                .is_ok()
        })
        .unwrap_or(false)
}

/// 32 random bytes, hex.
fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// Compares two secrets in time independent of where they differ.
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

fn cookie_value(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == name)
        .map(|c| c.value().to_owned())
}

fn behind_tls(state: &AppState, headers: &HeaderMap) -> bool {
    state.options().secure_cookies
        || headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.eq_ignore_ascii_case("https"))
}

fn set_cookie(name: &str, value: String, max_age: i64, secure: bool) -> HeaderValue {
    let c = Cookie::build((name, value))
        .http_only(true)
        .same_site(SameSite::Strict)
        .path("/")
        .secure(secure)
        .max_age(cookie::time::Duration::seconds(max_age))
        .build();
    HeaderValue::from_str(&c.to_string()).expect("cookies are ASCII")
}

/// The signed-in user of a request, with their session's CSRF token.
#[derive(Debug, Clone)]
pub struct SignedIn {
    pub user: User,
    pub csrf: String,
    token_hash: String,
}

impl SignedIn {
    pub fn me(&self) -> Me {
        Me::of(&self.user, &self.csrf)
    }

    /// Refuses a form whose CSRF token is not this session's.
    pub fn check_csrf(&self, sent: &str) -> Result<(), WebError> {
        if same_secret(sent, &self.csrf) {
            Ok(())
        } else {
            Err(WebError::Forbidden(
                "This form's security token is missing or wrong; reload the page and try again."
                    .to_owned(),
            ))
        }
    }

    /// Refuses users below `role`.
    pub fn require(&self, role: Role, to: &str) -> Result<(), WebError> {
        if self.user.role >= role {
            Ok(())
        } else {
            Err(WebError::Forbidden(format!(
                "Only a {role} or above may {to}; you are signed in as a {}.",
                self.user.role
            )))
        }
    }
}

impl FromRequestParts<AppState> for SignedIn {
    type Rejection = WebError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, WebError> {
        let next = parts
            .uri
            .path_and_query()
            .map(|p| p.as_str().to_owned())
            .unwrap_or_else(|| "/".to_owned());
        let Some(token) = cookie_value(&parts.headers, SESSION_COOKIE) else {
            return Err(WebError::SignIn { next });
        };
        let hash = token_hash(&token);
        match state.store().session(&hash, now()).await? {
            Some(s) => Ok(SignedIn {
                user: s.user,
                csrf: s.csrf,
                token_hash: hash,
            }),
            None => Err(WebError::SignIn { next }),
        }
    }
}

/// Recent failed sign-ins, by account name and by client address.
#[derive(Debug, Default)]
pub struct LoginLimiter {
    failures: HashMap<String, Vec<i64>>,
}

impl LoginLimiter {
    fn recent(&mut self, key: &str, now: i64) -> usize {
        match self.failures.get_mut(key) {
            Some(times) => {
                times.retain(|&t| t > now - LIMIT_WINDOW);
                times.len()
            }
            None => 0,
        }
    }

    /// Whether another attempt for this name from this client may be tried.
    pub fn allows(&mut self, name: &str, client: &str, now: i64) -> bool {
        self.recent(&format!("name:{name}"), now) < FAILURES_PER_NAME
            && self.recent(&format!("client:{client}"), now) < FAILURES_PER_CLIENT
    }

    pub fn failed(&mut self, name: &str, client: &str, now: i64) {
        for key in [format!("name:{name}"), format!("client:{client}")] {
            self.failures.entry(key).or_default().push(now);
        }
        // Forget keys with no recent failure, so the map stays small.
        if self.failures.len() > 10_000 {
            self.failures
                .retain(|_, times| times.iter().any(|&t| t > now - LIMIT_WINDOW));
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct NextQuery {
    next: Option<String>,
}

/// Only a path of this application: never another site.
fn safe_next(next: Option<&str>) -> String {
    match next {
        Some(n) if n.starts_with('/') && !n.starts_with("//") && !n.contains('\\') => n.to_owned(),
        _ => "/".to_owned(),
    }
}

fn login_form(
    state: &AppState,
    headers: &HeaderMap,
    next: String,
    error: Option<String>,
) -> Result<Response, WebError> {
    let token = random_token();
    let cookie = set_cookie(
        LOGIN_COOKIE,
        token.clone(),
        3600,
        behind_tls(state, headers),
    );
    let html = page(&LoginPage {
        me: Me::anonymous(),
        csrf: token,
        next,
        error,
    })?;
    Ok(([(SET_COOKIE, cookie)], html).into_response())
}

pub async fn login_page(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<NextQuery>,
) -> Result<Response, WebError> {
    login_form(&state, &headers, safe_next(q.next.as_deref()), None)
}

#[derive(Debug, Deserialize)]
pub struct LoginForm {
    name: String,
    password: String,
    #[serde(default)]
    csrf: String,
    next: Option<String>,
}

/// Signs in: the form's token, the limit on failed sign-ins, the
/// password; then a new session and its cookie, and back to `next`.
pub async fn login(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Form(form): Form<LoginForm>,
) -> Result<Response, WebError> {
    let next = safe_next(form.next.as_deref());
    let expected = cookie_value(&headers, LOGIN_COOKIE).unwrap_or_default();
    if expected.is_empty() || !same_secret(&form.csrf, &expected) {
        return Err(WebError::Forbidden(
            "This form's security token is missing or wrong; reload the sign-in page.".to_owned(),
        ));
    }
    let client = peer.ip().to_string();
    let t = now();
    if !state
        .inner
        .limiter
        .lock()
        .expect("limiter lock")
        .allows(&form.name, &client, t)
    {
        return Err(WebError::TooManyRequests(format!(
            "Too many failed sign-ins; wait {} minutes and try again.",
            LIMIT_WINDOW / 60
        )));
    }
    let ok = check_password(&state, &form.name, form.password).await?;
    let Some(user) = ok else {
        state
            .inner
            .limiter
            .lock()
            .expect("limiter lock")
            .failed(&form.name, &client, t);
        tracing::info!("failed sign-in");
        return login_form(
            &state,
            &headers,
            next,
            Some("Wrong name or password.".to_owned()),
        );
    };
    let token = start_session(&state, &user, t).await?;
    let seconds = state.options().session_seconds;
    let secure = behind_tls(&state, &headers);
    Ok((
        AppendHeaders([
            (
                SET_COOKIE,
                set_cookie(SESSION_COOKIE, token, seconds, secure),
            ),
            (
                SET_COOKIE,
                set_cookie(LOGIN_COOKIE, String::new(), 0, secure),
            ),
        ]),
        Redirect::to(&next),
    )
        .into_response())
}

/// The account `name` if `password` is its password, verified off the
/// async threads; an unknown name costs the same time.
async fn check_password(
    state: &AppState,
    name: &str,
    password: String,
) -> Result<Option<User>, WebError> {
    let found = state.store().user_with_password(name).await?;
    tokio::task::spawn_blocking(move || match &found {
        Some((user, hash)) => verify_password(hash, &password).then(|| user.clone()),
        None => {
            // Spend the same time as for a real account.
            verify_password(dummy_hash(), &password);
            None
        }
    })
    .await
    .map_err(|e| WebError::Internal(e.to_string()))
}

/// A new session of `user` at `t`, stored by its token's hash and audited;
/// returns the token for the cookie.
async fn start_session(state: &AppState, user: &User, t: i64) -> Result<String, WebError> {
    let token = random_token();
    let hash = token_hash(&token);
    let csrf = random_token();
    let seconds = state.options().session_seconds;
    state.store().delete_expired_sessions(t).await?;
    state
        .store()
        .create_session(&NewSession {
            token_hash: &hash,
            username: &user.name,
            csrf: &csrf,
            created_at: t,
            expires_at: t + seconds,
        })
        .await?;
    state
        .store()
        .record_audit(&user.name, "sign-in", "")
        .await?;
    Ok(token)
}

/// An argon2id hash of a random password, verified when the account does
/// not exist so that both answers take as long.
fn dummy_hash() -> &'static str {
    static HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HASH.get_or_init(|| hash_password(&random_token()).unwrap_or_default())
}

#[derive(Debug, Deserialize)]
pub struct CsrfForm {
    #[serde(default)]
    pub csrf: String,
}

pub async fn logout(
    State(state): State<AppState>,
    me: SignedIn,
    headers: HeaderMap,
    Form(form): Form<CsrfForm>,
) -> Result<Response, WebError> {
    me.check_csrf(&form.csrf)?;
    state.store().delete_session(&me.token_hash).await?;
    let secure = behind_tls(&state, &headers);
    Ok((
        [(
            SET_COOKIE,
            set_cookie(SESSION_COOKIE, String::new(), 0, secure),
        )],
        Redirect::to("/login"),
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_hash_with_argon2id_and_verify() {
        let h = hash_password("correct horse").unwrap();
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(verify_password(&h, "correct horse"));
        assert!(!verify_password(&h, "correct hors"));
        assert!(!verify_password("not a hash", "x"));
        assert_ne!(h, hash_password("correct horse").unwrap(), "salted");
    }

    #[test]
    fn the_limiter_stops_a_name_after_five_failures_for_a_window() {
        let mut l = LoginLimiter::default();
        for _ in 0..FAILURES_PER_NAME {
            assert!(l.allows("ann", "1.2.3.4", 1000));
            l.failed("ann", "1.2.3.4", 1000);
        }
        assert!(!l.allows("ann", "5.6.7.8", 1000));
        assert!(l.allows("bob", "5.6.7.8", 1000));
        assert!(l.allows("ann", "5.6.7.8", 1000 + LIMIT_WINDOW));
    }

    #[test]
    fn next_stays_on_this_site() {
        assert_eq!(safe_next(Some("/pair/a/b?season=1")), "/pair/a/b?season=1");
        for bad in ["//evil.example", "https://evil.example", "/\\evil", ""] {
            assert_eq!(safe_next(Some(bad)), "/");
        }
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("abc", "ab"));
        assert!(!same_secret("", "a"));
    }
}
