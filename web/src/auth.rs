//! Sign-in: argon2id password hashes, session cookies, CSRF tokens, the
//! limit on failed sign-ins (see [`crate::limit`]), and the [`SignedIn`]
//! extractor every page but the sign-in page asks for.
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
use std::net::SocketAddr;
use store::{NewSession, Role, User};

pub use crate::next::safe_next;

pub const SESSION_COOKIE: &str = "detect_session";
const LOGIN_COOKIE: &str = "detect_login";

/// Bytes of a name tried that the limit, the audit log and the log keep.
const NAME_KEPT: usize = 128;

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
            Err(WebError::Forbidden(refusal(role, self.user.role, to)))
        }
    }
}

/// "a viewer", "an admin".
fn article(role: Role) -> String {
    let name = role.as_str();
    let an = name.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {name}", if an { "an" } else { "a" })
}

/// Why a user signed in as `current` may not do `to`, which needs `role`.
fn refusal(role: Role, current: Role, to: &str) -> String {
    format!(
        "Only {} or above may {to}; you are signed in as {}.",
        article(role),
        article(current)
    )
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

#[derive(Debug, Deserialize)]
pub struct NextQuery {
    next: Option<String>,
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

/// The first [`NAME_KEPT`] bytes of a name tried (a whole character).
fn kept_name(name: &str) -> &str {
    let mut end = name.len().min(NAME_KEPT);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    &name[..end]
}

/// Signs in: the form's token; an attempt taken from the limit on failed
/// sign-ins before any work; the password, checked in a turn of the hash
/// gate; then a new session and its cookie, and back to `next`. Every
/// failure is audited with the name tried and the client's fingerprint.
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
    let client = state.options().trusted_proxies.client(peer.ip(), &headers);
    let tried = Tried {
        name: kept_name(&form.name),
        client: client.to_string(),
        fingerprint: state.store().audit_ip(&client.to_string()).await?,
    };
    let t = now();
    let taken = state.limiter().begin(tried.name, &tried.client, t);
    let attempt = match taken {
        Ok(a) => a,
        Err(refusal) => {
            metrics::counter!("detect_sign_in_failures_total", "reason" => "refused").increment(1);
            return Err(tried.refused(&state, refusal).await);
        }
    };
    let user = match check_password(&state, &form.name, form.password).await {
        Ok(Some(user)) => {
            state.limiter().forgive(attempt, true);
            user
        }
        Ok(None) => {
            metrics::counter!("detect_sign_in_failures_total", "reason" => "password").increment(1);
            tried.failed(&state).await?;
            return login_form(
                &state,
                &headers,
                next,
                Some("Wrong name or password.".to_owned()),
            );
        }
        Err(e) => {
            state.limiter().forgive(attempt, false);
            return Err(e);
        }
    };
    let token = start_session(&state, &user, t).await?;
    metrics::counter!("detect_sign_ins_total").increment(1);
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

/// A sign-in attempt: the name tried and the client, raw (for the limit)
/// and as the audit log and the log name it.
struct Tried<'a> {
    name: &'a str,
    client: String,
    fingerprint: String,
}

impl Tried<'_> {
    /// A wrong name or password: audited and logged.
    async fn failed(&self, state: &AppState) -> Result<(), WebError> {
        state
            .store()
            .record_audit(self.name, "failed sign-in", &self.fingerprint)
            .await?;
        tracing::info!(
            account = %viz::escape::terminal(self.name),
            client = %self.fingerprint,
            "failed sign-in"
        );
        Ok(())
    }

    /// Refused by the limit: audited once per client in a window (a flood
    /// of refusals would fill the log), logged at debug after.
    async fn refused(&self, state: &AppState, refusal: crate::limit::Refusal) -> WebError {
        let account = viz::escape::terminal(self.name);
        if refusal.first {
            tracing::info!(account = %account, client = %self.fingerprint, wait = refusal.wait,
                "sign-in refused: too many failures");
            if let Err(e) = state
                .store()
                .record_audit(self.name, "sign-in refused", &self.fingerprint)
                .await
            {
                return e.into();
            }
        } else {
            tracing::debug!(account = %account, client = %self.fingerprint, "sign-in refused");
        }
        let minutes = (refusal.wait + 59) / 60;
        WebError::TooManyRequests {
            message: if refusal.wait < 60 {
                format!(
                    "Too many failed sign-ins; wait {} seconds and try again.",
                    refusal.wait
                )
            } else {
                format!("Too many failed sign-ins; wait {minutes} minutes and try again.")
            },
            retry_after: refusal.wait,
        }
    }
}

/// The account `name` if `password` is its password, verified off the
/// async threads in a turn of the hash gate; an unknown name costs the same
/// time. No turn within the gate's wait is a busy server.
async fn check_password(
    state: &AppState,
    name: &str,
    password: String,
) -> Result<Option<User>, WebError> {
    let found = state.store().user_with_password(name).await?;
    let checked = state
        .hashing()
        .run(move || match &found {
            Some((user, hash)) => verify_password(hash, &password).then(|| user.clone()),
            None => {
                // Spend the same time as for a real account.
                verify_password(dummy_hash(), &password);
                None
            }
        })
        .await;
    match checked {
        Some(result) => result.map_err(|e| WebError::Internal(e.to_string())),
        None => Err(busy()),
    }
}

/// Every turn at checking a password is taken.
pub(crate) fn busy() -> WebError {
    WebError::Busy {
        message: "The server is busy checking other sign-ins; try again in a few seconds."
            .to_owned(),
        retry_after: 5,
    }
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
    fn secrets_compare_whole() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("abc", "ab"));
        assert!(!same_secret("", "a"));
    }

    #[test]
    fn refusals_use_a_and_an_as_english_does() {
        assert_eq!(
            refusal(Role::Admin, Role::Moderator, "read the audit log"),
            "Only an admin or above may read the audit log; you are signed in as a moderator."
        );
        assert_eq!(
            refusal(Role::Moderator, Role::Viewer, "record verdicts"),
            "Only a moderator or above may record verdicts; you are signed in as a viewer."
        );
    }
}
