//! Pseudonyms of IP addresses per season (`ip_pseudonyms`): `IP-n` names
//! assigned in order of first sight and never changed.

use super::{Result, Store};
use schema::{IpPseudonyms, Season, Segments};
use sqlx::Row;
use std::collections::HashMap;

impl Store {
    /// The IP pseudonyms of a season (`IP-1`, `IP-2`, ... in order of first
    /// sight within the season, kept forever): the one source of IP names
    /// for `explain`, the timelines, the reports and the web pages, so each
    /// address has one name everywhere in a season.
    pub async fn season_pseudonyms(
        &self,
        season: &Season,
        segments: &Segments,
    ) -> Result<IpPseudonyms> {
        let order = schema::pseudonym::first_seen(segments, season.from, season.to);
        let names: Vec<&str> = order.iter().map(|&ip| segments.ips.name(ip)).collect();
        let numbers = self.ip_pseudonyms(season.number, &names).await?;
        Ok(IpPseudonyms::new(
            order
                .iter()
                .filter_map(|&ip| numbers.get(segments.ips.name(ip)).map(|&n| (ip, n)))
                .collect(),
        ))
    }

    /// The numbers of a season's IP pseudonyms (`IP-3` is 3), by address.
    /// `first_seen` lists the addresses in order of first sight; those not yet
    /// numbered get the next numbers, in that order, in one transaction.
    /// Numbers already given never change.
    pub async fn ip_pseudonyms(
        &self,
        season: u32,
        first_seen: &[&str],
    ) -> Result<HashMap<String, u32>> {
        let mut tx = self.pool.begin().await?;
        let rows =
            sqlx::query("SELECT ip, number FROM ip_pseudonyms WHERE season = $1 AND site = $2")
                .bind(season as i64)
                .bind(self.site.to_string())
                .fetch_all(&mut *tx)
                .await?;
        let mut numbers: HashMap<String, u32> = HashMap::with_capacity(rows.len());
        for r in &rows {
            let ip: String = r.try_get(0)?;
            let n: i64 = r.try_get(1)?;
            numbers.insert(ip, n as u32);
        }
        let mut next = numbers.values().copied().max().unwrap_or(0);
        let mut new = Vec::new();
        for &ip in first_seen {
            if !numbers.contains_key(ip) {
                next += 1;
                numbers.insert(ip.to_owned(), next);
                new.push((ip, next));
            }
        }
        let rows: Vec<(i64, String, i64)> = new
            .iter()
            .map(|&(ip, n)| (season as i64, ip.to_owned(), n as i64))
            .collect();
        super::sql::insert_rows(
            self.backend,
            &mut tx,
            "ip_pseudonyms (season, ip, number, site)",
            4,
            "",
            &rows,
            |q, (s, ip, n)| {
                q.bind(*s)
                    .bind(ip.clone())
                    .bind(*n)
                    .bind(self.site.to_string())
            },
        )
        .await?;
        tx.commit().await?;
        Ok(numbers)
    }
}
