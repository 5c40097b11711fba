//! Slow and idle clients cannot hold connections (issue item 6): a request
//! head that trickles in, a connection that sends nothing, a body that
//! never ends, are all cut off after the timeout, and the server answers
//! others meanwhile.

use crate::support::*;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn quick() -> web::Options {
    web::Options {
        server: web::ServerLimits {
            header_timeout: Duration::from_secs(1),
            body_timeout: Duration::from_secs(1),
            max_connections: 1024,
        },
        ..web::Options::default()
    }
}

/// Waits until the server closes `s` (a read gives 0 bytes or an error,
/// after whatever answer it sent), at most `limit`.
async fn closed_within(mut s: TcpStream, limit: Duration) -> bool {
    let mut buf = [0u8; 4096];
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue,
            Err(_) => return false,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_trickling_connections_are_closed() {
    let app = App::start(quick()).await;
    let mut idle = Vec::new();
    let mut trickling = Vec::new();
    for _ in 0..50 {
        idle.push(TcpStream::connect(app.addr).await.unwrap());
        trickling.push(TcpStream::connect(app.addr).await.unwrap());
    }
    // One byte of a request head every 200 ms, for 3 s.
    let trickle = tokio::spawn(async move {
        let head = b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaa";
        for i in 0..15 {
            for s in &mut trickling {
                if s.write_all(&head[i..=i]).await.is_err() {
                    continue;
                }
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        trickling
    });
    // Meanwhile the server answers.
    let r = client().get(app.url("/login")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let trickling = trickle.await.unwrap();
    for s in idle.into_iter().chain(trickling) {
        assert!(closed_within(s, Duration::from_secs(3)).await, "still open");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_never_ends_ends_its_request() {
    let app = App::start(quick()).await;
    let mut s = TcpStream::connect(app.addr).await.unwrap();
    s.write_all(
        format!(
            "POST /login HTTP/1.1\r\nHost: {}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
             Content-Length: 100000\r\n\r\nname=mo&pass",
            app.addr
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let started = Instant::now();
    assert!(closed_within(s, Duration::from_secs(5)).await);
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_beyond_the_cap_wait_their_turn() {
    let mut options = quick();
    options.server.max_connections = 4;
    let app = App::start(options).await;
    let held: Vec<_> = futures_util::future::join_all((0..4).map(|_| TcpStream::connect(app.addr)))
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    // The cap is reached: the next request is answered only once the idle
    // ones are closed by the header timeout.
    let started = Instant::now();
    let r = client().get(app.url("/login")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        started.elapsed() >= Duration::from_millis(500),
        "{:?}",
        started.elapsed()
    );
    drop(held);
}

/// The daemon's metrics listener is served by the same loop: connections
/// beyond its cap wait their turn, and idle ones are closed after the
/// header timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metrics_listener_caps_and_closes_idle_connections() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let render: web::RenderMetrics = std::sync::Arc::new(|| "detect_up 1\n".to_owned());
    let limits = web::ServerLimits {
        max_connections: 2,
        ..quick().server
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(web::serve_metrics(listener, render, limits, async {
        stopped.await.ok();
    }));
    let held = [
        TcpStream::connect(addr).await.unwrap(),
        TcpStream::connect(addr).await.unwrap(),
    ];
    let started = Instant::now();
    let r = client()
        .get(format!("http://{addr}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        started.elapsed() >= Duration::from_millis(500),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(r.text().await.unwrap(), "detect_up 1\n");
    for s in held {
        assert!(closed_within(s, Duration::from_secs(3)).await, "still open");
    }
    stop.send(()).unwrap();
    server.await.unwrap().unwrap();
}
