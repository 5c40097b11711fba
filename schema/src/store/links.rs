//! Read-only look-ups across scans for the web pages: which seasons have
//! scans, and every scored pair an account is part of ("find alts of X").

use super::{Result, Store};
use sqlx::Row;

/// One directed pair of the latest scan of a season that names an account.
#[derive(Debug, Clone, PartialEq)]
pub struct AccountPair {
    pub season: u32,
    pub scan_id: i64,
    pub user_a: String,
    pub user_b: String,
    pub similarity: f64,
    /// Windows of `user_a` where both moved from one IP.
    pub same_ip_count: u64,
    /// The scan's threshold and bucket size, and its season's time bounds.
    pub threshold: f64,
    pub bucket_seconds: i64,
    pub season_from: Option<i64>,
    pub season_to: Option<i64>,
}

impl Store {
    /// The seasons that have at least one stored scan, by number.
    pub async fn scanned_seasons(&self) -> Result<Vec<u32>> {
        let rows = sqlx::query("SELECT DISTINCT season FROM scans WHERE site = $1 ORDER BY season")
            .bind(self.site.to_string())
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| Ok(r.try_get::<i64, _>(0)? as u32))
            .collect()
    }

    /// Every directed pair naming `account`, in the latest scan of each
    /// season, by season.
    pub async fn pairs_of_account(&self, account: &str) -> Result<Vec<AccountPair>> {
        let rows = sqlx::query(
            "SELECT s.season, s.id, p.user_a, p.user_b, p.similarity, p.same_ip_count, \
             s.threshold, s.bucket_seconds, s.season_from, s.season_to \
             FROM scan_pairs p JOIN scans s ON s.id = p.scan_id \
             WHERE s.id IN (SELECT MAX(id) FROM scans WHERE site = $2 GROUP BY season) \
             AND (p.user_a = $1 OR p.user_b = $1) \
             ORDER BY s.season, p.user_a, p.user_b",
        )
        .bind(account.to_owned())
        .bind(self.site.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(AccountPair {
                    season: r.try_get::<i64, _>(0)? as u32,
                    scan_id: r.try_get(1)?,
                    user_a: r.try_get(2)?,
                    user_b: r.try_get(3)?,
                    similarity: r.try_get(4)?,
                    same_ip_count: r.try_get::<i64, _>(5)? as u64,
                    threshold: r.try_get(6)?,
                    bucket_seconds: r.try_get(7)?,
                    season_from: r.try_get(8)?,
                    season_to: r.try_get(9)?,
                })
            })
            .collect()
    }
}
