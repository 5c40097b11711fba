//! A served application over a fresh store, and a client that signs in.

use reqwest::header::{HeaderMap, COOKIE, LOCATION, SET_COOKIE};
use reqwest::redirect::Policy;
use std::net::SocketAddr;
use std::time::Duration;
use store::{Role, Store};

pub const PASSWORD: &str = "correct horse battery";

/// No segments: these tests open no page that draws a timeline.
struct NoSegments;

impl web::SegmentSource for NoSegments {
    fn segments(&self, _store: Store, bucket_seconds: i64) -> web::SegmentsFuture {
        Box::pin(async move {
            Ok(schema::Segments {
                bucket_seconds,
                ..Default::default()
            })
        })
    }
}

/// The application served on 127.0.0.1 until dropped.
pub struct App {
    pub addr: SocketAddr,
    pub store: Store,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    _dir: tempfile::TempDir,
}

impl Drop for App {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            s.send(()).ok();
        }
    }
}

impl App {
    /// Served with `options`; the moderator `mo` can sign in with
    /// [`PASSWORD`].
    pub async fn start(options: web::Options) -> App {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("store.db").display());
        let store = Store::open(&url).await.unwrap();
        let hash = web::hash_password(PASSWORD).unwrap();
        store
            .add_user("mo", Role::Moderator, &hash, 0)
            .await
            .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let state = web::AppState::new(store.clone(), NoSegments, options);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(web::serve(listener, state, async {
            stopped.await.ok();
        }));
        App {
            addr,
            store,
            stop: Some(stop),
            _dir: dir,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The audit log's entries of `action`.
    pub async fn audited(&self, action: &str) -> Vec<schema::AuditEntry> {
        self.store
            .audit_log(None, None)
            .await
            .unwrap()
            .into_iter()
            .filter(|e| e.action == action)
            .collect()
    }
}

/// A client that follows no redirect and keeps no cookie by itself.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(Policy::none())
        .timeout(Duration::from_secs(60))
        .pool_max_idle_per_host(0)
        .build()
        .unwrap()
}

/// The sign-in form's token (also its cookie's value).
pub async fn login_token(c: &reqwest::Client, app: &App) -> String {
    let r = c.get(app.url("/login")).send().await.unwrap();
    let cookie = r
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|v| v.strip_prefix("detect_login="))
        .expect("the sign-in cookie")
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    cookie
}

/// Posts the sign-in form for `name` with `password`, as a browser on the
/// site would (its token, its cookie, its origin), with `extra` headers.
pub async fn sign_in(
    c: &reqwest::Client,
    app: &App,
    name: &str,
    password: &str,
    next: &str,
    extra: HeaderMap,
) -> reqwest::Response {
    let token = login_token(c, app).await;
    c.post(app.url("/login"))
        .header(COOKIE, format!("detect_login={token}"))
        .header("origin", format!("http://{}", app.addr))
        .headers(extra)
        .form(&[
            ("name", name),
            ("password", password),
            ("csrf", &token),
            ("next", next),
        ])
        .send()
        .await
        .unwrap()
}

/// Signs `mo` in; returns the session cookie (`detect_session=...`).
pub async fn session(c: &reqwest::Client, app: &App) -> String {
    let signed_in = sign_in(c, app, "mo", PASSWORD, "/", HeaderMap::new()).await;
    signed_in
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("detect_session="))
        .expect("a session cookie")
        .split(';')
        .next()
        .unwrap()
        .to_owned()
}

pub fn location(r: &reqwest::Response) -> String {
    r.headers()
        .get(LOCATION)
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default()
}

pub fn sets_session(r: &reqwest::Response) -> bool {
    r.headers().get_all(SET_COOKIE).iter().any(|v| {
        v.to_str().unwrap_or("").starts_with("detect_session=")
            && !v.to_str().unwrap_or("").starts_with("detect_session=;")
    })
}

/// `X-Forwarded-For: ip`.
pub fn forwarded_for(ip: &str) -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert("x-forwarded-for", ip.parse().unwrap());
    h
}

/// The log of the test binary, as the daemon's format writes it.
#[derive(Clone, Default)]
pub struct Logs(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl Logs {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl std::io::Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Every log line of this test binary at info and above, from now on.
pub fn capture_logs() -> Logs {
    static LOGS: std::sync::OnceLock<Logs> = std::sync::OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = Logs::default();
        let writer = logs.clone();
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::INFO)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .init();
        logs
    })
    .clone()
}
