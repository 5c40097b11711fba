//! Users and sessions of the web application in the store, on SQLite and
//! PostgreSQL.

use crate::common::*;
use store::{NewSession, Role, Store};

async fn users_and_sessions(url: &str) {
    let store = Store::open(url).await.unwrap();
    add_and_read_users(&store).await;
    session_lifecycle(&store).await;
    list_and_remove_users(&store).await;
    store.close().await;
}

/// Adding users (a taken name refused), and reading one with its hash.
async fn add_and_read_users(store: &Store) {
    assert!(store
        .add_user("ann", Role::Moderator, "hash-1", 100)
        .await
        .unwrap());
    assert!(
        !store
            .add_user("ann", Role::Admin, "hash-2", 200)
            .await
            .unwrap(),
        "a taken name"
    );
    assert!(store
        .add_user("<b>&'\"", Role::Viewer, "hash-3", 300)
        .await
        .unwrap());
    let (user, hash) = store.user_with_password("ann").await.unwrap().unwrap();
    assert_eq!(
        (user.role, hash.as_str(), user.created_at),
        (Role::Moderator, "hash-1", 100)
    );
    assert!(store.user_with_password("nobody").await.unwrap().is_none());
}

/// A session read until it expires, its user's new role seen through it,
/// and sessions ended by a new password, by expiry and by sign-out.
async fn session_lifecycle(store: &Store) {
    let session = NewSession {
        token_hash: "t1",
        username: "ann",
        csrf: "c1",
        created_at: 1000,
        expires_at: 2000,
    };
    store.create_session(&session).await.unwrap();
    let s = store.session("t1", 1500).await.unwrap().unwrap();
    assert_eq!((s.user.name.as_str(), s.csrf.as_str()), ("ann", "c1"));
    assert!(
        store.session("t1", 2000).await.unwrap().is_none(),
        "expired"
    );
    assert!(store.session("t2", 1500).await.unwrap().is_none());

    assert!(store.set_user_role("ann", Role::Admin).await.unwrap());
    assert_eq!(
        store.session("t1", 1500).await.unwrap().unwrap().user.role,
        Role::Admin
    );
    // A new password ends the user's sessions.
    assert!(store.set_user_password("ann", "hash-9").await.unwrap());
    assert!(store.session("t1", 1500).await.unwrap().is_none());

    store
        .create_session(&NewSession {
            token_hash: "t3",
            expires_at: 1200,
            ..session.clone()
        })
        .await
        .unwrap();
    assert_eq!(store.delete_expired_sessions(1500).await.unwrap(), 1);
    store
        .create_session(&NewSession {
            token_hash: "t4",
            ..session
        })
        .await
        .unwrap();
    store.delete_session("t4").await.unwrap();
    assert!(store.session("t4", 1500).await.unwrap().is_none());
}

/// The users listed by name, and one removed once.
async fn list_and_remove_users(store: &Store) {
    let names: Vec<(String, Role)> = store
        .users()
        .await
        .unwrap()
        .into_iter()
        .map(|u| (u.name, u.role))
        .collect();
    assert_eq!(
        names,
        [
            ("<b>&'\"".to_owned(), Role::Viewer),
            ("ann".to_owned(), Role::Admin)
        ]
    );
    assert!(store.remove_user("ann").await.unwrap());
    assert!(!store.remove_user("ann").await.unwrap());
    assert_eq!(store.users().await.unwrap().len(), 1);
}

#[test]
fn users_and_sessions_sqlite() {
    let db = TestDb::new(Backend::Sqlite);
    block_on(users_and_sessions(&db.url));
}

#[test]
fn users_and_sessions_postgres() {
    let db = TestDb::new(Backend::Postgres);
    block_on(users_and_sessions(&db.url));
}
