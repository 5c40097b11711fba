//! The audit log (`audit_log`): append-only. There is no method to change or
//! delete an entry, and the table's triggers refuse it.

use super::{Result, Store};
use schema::verdict::AuditEntry;
use sqlx::Row;

impl Store {
    /// Appends an entry at the current time: `by` did `action` to `target`.
    pub async fn record_audit(&self, by: &str, action: &str, target: &str) -> Result<()> {
        sqlx::query("INSERT INTO audit_log (at, by_name, action, target) VALUES ($1, $2, $3, $4)")
            .bind(chrono::Utc::now().timestamp())
            .bind(by.to_owned())
            .bind(action.to_owned())
            .bind(target.to_owned())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The log, oldest first: entries at or after `since` (UTC epoch
    /// seconds) by `by`, when given.
    pub async fn audit_log(&self, since: Option<i64>, by: Option<&str>) -> Result<Vec<AuditEntry>> {
        let mut sql =
            "SELECT id, at, by_name, action, target FROM audit_log WHERE at >= $1".to_owned();
        if by.is_some() {
            sql.push_str(" AND by_name = $2");
        }
        sql.push_str(" ORDER BY at, id");
        let mut q = sqlx::query(&sql).bind(since.unwrap_or(i64::MIN));
        if let Some(by) = by {
            q = q.bind(by.to_owned());
        }
        let rows = q.fetch_all(&self.pool).await?;
        rows.iter()
            .map(|r| {
                Ok(AuditEntry {
                    id: r.try_get(0)?,
                    at: r.try_get(1)?,
                    by: r.try_get(2)?,
                    action: r.try_get(3)?,
                    target: r.try_get(4)?,
                })
            })
            .collect()
    }
}
