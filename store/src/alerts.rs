//! Alerts delivered (`alerts_sent`): which flag went to which webhook, so
//! none is announced twice. A flag of another site than the default one is
//! kept as `SITE:flag`, so two sites' flags never meet.

use super::{Result, Store};
use sqlx::Row;

impl Store {
    /// Whether the alert for `flag` was delivered to `destination`.
    pub async fn alert_sent(&self, flag: &str, destination: &str) -> Result<bool> {
        let row =
            sqlx::query("SELECT COUNT(*) FROM alerts_sent WHERE flag = $1 AND destination = $2")
                .bind(self.site_flag(flag))
                .bind(destination.to_owned())
                .fetch_one(&self.pool)
                .await?;
        Ok(row.try_get::<i64, _>(0)? > 0)
    }

    /// Records that the alert for `flag` was delivered to `destination`
    /// (once; recording it again changes nothing).
    pub async fn record_alert_sent(&self, flag: &str, destination: &str) -> Result<()> {
        sqlx::query(
            "INSERT INTO alerts_sent (flag, destination, sent_at) VALUES ($1, $2, $3) \
             ON CONFLICT (flag, destination) DO NOTHING",
        )
        .bind(self.site_flag(flag))
        .bind(destination.to_owned())
        .bind(chrono::Utc::now().timestamp())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    fn site_flag(&self, flag: &str) -> String {
        if &*self.site == super::DEFAULT_SITE {
            flag.to_owned()
        } else {
            format!("{}:{flag}", self.site)
        }
    }
}
