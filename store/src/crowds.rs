//! Crowded addresses of a scan (`scan_crowds`): the (IP, day)s left out of
//! its candidate pairs for crowding.

use super::sql::insert_rows;
use super::{Backend, Result, Store};
use schema::model::CrowdedAddress;
use sqlx::{Any, Row, Transaction};

/// Stores a scan's crowded addresses in the scan's transaction.
pub(super) async fn save_crowds(
    backend: Backend,
    tx: &mut Transaction<'_, Any>,
    scan_id: i64,
    crowded: &[CrowdedAddress],
) -> Result<()> {
    insert_rows(
        backend,
        tx,
        "scan_crowds (scan_id, day, ip, accounts)",
        4,
        "",
        crowded,
        |q, c| {
            q.bind(scan_id)
                .bind(c.day)
                .bind(c.ip.clone())
                .bind(c.accounts as i64)
        },
    )
    .await?;
    Ok(())
}

impl Store {
    /// A scan's crowded addresses, most accounts first.
    pub async fn scan_crowds(&self, scan_id: i64) -> Result<Vec<CrowdedAddress>> {
        let rows = sqlx::query(
            "SELECT day, ip, accounts FROM scan_crowds WHERE scan_id = $1 \
             ORDER BY accounts DESC, day, ip",
        )
        .bind(scan_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(CrowdedAddress {
                    day: r.try_get(0)?,
                    ip: r.try_get(1)?,
                    accounts: r.try_get::<i64, _>(2)? as usize,
                })
            })
            .collect()
    }
}
