//! Which accounts the site has seen: for refusing a verdict on a typo and
//! for suggesting names when a search finds no account.

use super::{Result, Store};
use sqlx::Row;

impl Store {
    /// Whether the site holds a move of `account`: first in a stored
    /// segmentation's days (one index lookup each), else in the moves (a
    /// scan, reached only for an account no segmentation names).
    pub async fn account_seen(&self, account: &str) -> Result<bool> {
        let site = self.site.to_string();
        let in_days = sqlx::query(
            "SELECT 1 FROM account_days d JOIN segmentations s ON s.id = d.segmentation_id \
             WHERE s.site = $1 AND d.username = $2 LIMIT 1",
        )
        .bind(site.clone())
        .bind(account.to_owned())
        .fetch_optional(&self.pool)
        .await?;
        if in_days.is_some() {
            return Ok(true);
        }
        let in_moves = sqlx::query("SELECT 1 FROM moves WHERE site = $1 AND username = $2 LIMIT 1")
            .bind(site)
            .bind(account.to_owned())
            .fetch_optional(&self.pool)
            .await?;
        Ok(in_moves.is_some())
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
