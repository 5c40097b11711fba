//! Which accounts the site has seen: for refusing a verdict on a typo and
//! for suggesting names when a search finds no account.

use super::{Result, Store};
use sqlx::Row;

/// An account the site has seen: a primary-key lookup in `accounts`
/// (migration 0019), which every ingest fills.
const SEEN: &str = "SELECT 1 FROM accounts WHERE site = $1 AND username = $2";

impl Store {
    /// Whether the site has stored a move of `account` (ever: purging old
    /// moves keeps the names).
    pub async fn account_seen(&self, account: &str) -> Result<bool> {
        let found = sqlx::query(SEEN)
            .bind(self.site.to_string())
            .bind(account.to_owned())
            .fetch_optional(&self.pool)
            .await?;
        Ok(found.is_some())
    }

    /// Up to `limit` account names of the site that equal `name` or start
    /// with it, ignoring ASCII case, sorted: from the stored segmentations'
    /// days (the accounts a scan has seen).
    pub async fn accounts_like(&self, name: &str, limit: usize) -> Result<Vec<String>> {
        let rows = sqlx::query(
            "SELECT DISTINCT d.username FROM account_days d \
             JOIN segmentations s ON s.id = d.segmentation_id \
             WHERE s.site = $1 AND substr(lower(d.username), 1, length($2)) = lower($2) \
             ORDER BY d.username LIMIT $3",
        )
        .bind(self.site.to_string())
        .bind(name.to_owned())
        .bind(limit as i64)
        .fetch_all(&self.pool)
        .await?;
        let mut names: Vec<String> = rows
            .iter()
            .map(|r| r.try_get(0))
            .collect::<std::result::Result<_, _>>()?;
        // The same name in another case first.
        names.sort_by_key(|n| !n.eq_ignore_ascii_case(name));
        Ok(names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seen check is one search of the accounts' primary key on
    /// SQLite, and an ingest fills the accounts of its site only.
    #[tokio::test]
    async fn the_seen_check_is_an_index_lookup_of_ingested_accounts() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("s.db").display());
        let store = Store::open(&url).await.unwrap();
        let rows = sqlx::query(&format!("EXPLAIN QUERY PLAN {SEEN}"))
            .bind("default")
            .bind("u017")
            .fetch_all(&store.pool)
            .await
            .unwrap();
        let plan: Vec<String> = rows.iter().map(|r| r.try_get("detail").unwrap()).collect();
        assert_eq!(
            plan,
            ["SEARCH accounts USING COVERING INDEX sqlite_autoindex_accounts_1 (site=? AND username=?)"]
        );
        let mut batch = store.begin_ingest().await.unwrap();
        for (name, timestamp) in [
            ("u017", 1_430_670_540),
            ("u017", 1_430_670_600),
            ("ann", 1_430_670_540),
        ] {
            let mv = schema::Move {
                username: name.into(),
                game: "g".into(),
                timestamp,
                ip: "10.0.0.1".into(),
            };
            batch.push(mv).await.unwrap();
        }
        assert_eq!(batch.commit().await.unwrap(), 3);
        assert!(store.account_seen("u017").await.unwrap());
        assert!(store.account_seen("ann").await.unwrap());
        assert!(!store.account_seen("u01").await.unwrap());
        let other = Store::open(&url).await.unwrap().with_site("other").unwrap();
        assert!(!other.account_seen("u017").await.unwrap());
        store.close().await;
    }
}
