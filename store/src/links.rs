//! Read-only look-ups across scans for the web pages: which seasons have
//! scans, and every scored pair an account is part of ("find alts of X").

use super::scans::PairFilter;
use super::{Result, Store};
use sqlx::Row;

/// One directed pair of the latest scan of a season that names an account.
#[derive(Debug, Clone, PartialEq)]
pub struct AccountPair {
    pub season: u32,
    pub scan_id: i64,
    pub account_a: String,
    pub account_b: String,
    pub similarity: f64,
    /// Windows of `account_a` where both moved from one IP.
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
    /// season, by season (through the chain of a scan stored as a change).
    pub async fn pairs_of_account(&self, account: &str) -> Result<Vec<AccountPair>> {
        let rows = sqlx::query(
            "SELECT s.season, s.id, s.threshold, s.bucket_seconds, s.season_from, s.season_to \
             FROM scans s WHERE s.id IN (SELECT MAX(id) FROM scans WHERE site = $1 GROUP BY season) \
             ORDER BY s.season",
        )
        .bind(self.site.to_string())
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::new();
        for r in &rows {
            let scan_id: i64 = r.try_get(1)?;
            let mut pairs = self
                .scan_pairs(scan_id, PairFilter::Naming(account))
                .await?;
            pairs.sort_by(|x, y| (&x.account_a, &x.account_b).cmp(&(&y.account_a, &y.account_b)));
            for p in pairs {
                out.push(AccountPair {
                    season: r.try_get::<i64, _>(0)? as u32,
                    scan_id,
                    account_a: p.account_a,
                    account_b: p.account_b,
                    similarity: p.similarity,
                    same_ip_count: p.evidence.tally(schema::model::Cell::SameIp).count,
                    threshold: r.try_get(2)?,
                    bucket_seconds: r.try_get(3)?,
                    season_from: r.try_get(4)?,
                    season_to: r.try_get(5)?,
                });
            }
        }
        Ok(out)
    }
}
