//! Defined seasons (`seasons`).

use super::{Result, Store};
use schema::season::Season;
use sqlx::Row;

impl Store {
    /// Defines (or redefines) a season.
    pub async fn put_season(&self, season: &Season) -> Result<()> {
        sqlx::query(
            "INSERT INTO seasons (number, from_ts, to_ts, games, site) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (site, number) DO UPDATE SET from_ts = excluded.from_ts, to_ts = excluded.to_ts, games = excluded.games",
        )
        .bind(season.number as i64)
        .bind(season.from)
        .bind(season.to)
        .bind(season.games.clone())
        .bind(self.site.to_string())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The seasons defined by hand, by number.
    pub async fn seasons(&self) -> Result<Vec<Season>> {
        let rows = sqlx::query(
            "SELECT number, from_ts, to_ts, games FROM seasons WHERE site = $1 ORDER BY number",
        )
        .bind(self.site.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(season_of_row).collect()
    }

    pub async fn season(&self, number: u32) -> Result<Option<Season>> {
        let row = sqlx::query(
            "SELECT number, from_ts, to_ts, games FROM seasons WHERE number = $1 AND site = $2",
        )
        .bind(number as i64)
        .bind(self.site.to_string())
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(season_of_row).transpose()
    }
}

fn season_of_row(r: &sqlx::any::AnyRow) -> Result<Season> {
    let number: i64 = r.try_get(0)?;
    Ok(Season {
        number: number as u32,
        from: r.try_get(1)?,
        to: r.try_get(2)?,
        games: r.try_get(3)?,
        inferred: false,
    })
}
