//! Verdicts (`verdicts`, `verdict_accounts`): append-only. There is no
//! method to change or delete one, and the tables' triggers refuse it.

use super::scans::PairFilter;
use super::{Result, Store, StoreError};
use schema::model::PairScore;
use schema::verdict::{newest_first, NewVerdict, Verdict, VerdictKind};
use sqlx::Row;
use std::collections::BTreeMap;

/// The invalid verdicts [`Store::add_verdict`] refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerdictError {
    #[error("a verdict needs at least two different accounts, got {0}")]
    TooFewAccounts(usize),
    #[error("a verdict needs the name of who decided")]
    NoDecider,
    #[error("an account name is empty")]
    EmptyAccount,
    #[error(
        "{} no stored move on this site (a typo?): nothing recorded; --unseen records it anyway",
        unseen_words(.0)
    )]
    Unseen(Vec<String>),
    #[error("there is no verdict #{0} to supersede")]
    NoSuchVerdict(i64),
    #[error("verdict #{0} is on {1}: a verdict superseding it names the same accounts")]
    OtherAccounts(i64, String),
    #[error("a verdict superseding another needs a note saying why (--note)")]
    NoReason,
}

/// "u03 has" or "u03 and u04 have".
fn unseen_words(accounts: &[String]) -> String {
    match accounts {
        [one] => format!("{one} has"),
        many => format!("{} have", many.join(" and ")),
    }
}

const COLUMNS: &str = "SELECT v.id, v.kind, v.note, v.decided_by, v.decided_at, v.season, \
     v.similarity, v.unseen, v.supersedes FROM verdicts v";

impl Store {
    /// Records a verdict (accounts sorted and deduplicated) at the current
    /// time, in one transaction; returns its id.
    pub async fn add_verdict(&self, v: &NewVerdict) -> Result<i64> {
        let accounts = v.normalized_accounts();
        if accounts.iter().any(|a| a.is_empty()) {
            return Err(VerdictError::EmptyAccount.into());
        }
        if accounts.len() < 2 {
            return Err(VerdictError::TooFewAccounts(accounts.len()).into());
        }
        if v.by.trim().is_empty() {
            return Err(VerdictError::NoDecider.into());
        }
        let corrects_same_accounts = self.check_supersedes(v, &accounts).await?;
        let mut unseen = Vec::new();
        for a in &accounts {
            if !self.account_seen(a).await? {
                unseen.push(a.clone());
            }
        }
        if !unseen.is_empty() && !v.unseen && !corrects_same_accounts {
            return Err(VerdictError::Unseen(unseen).into());
        }
        let at = chrono::Utc::now().timestamp();
        let mut tx = self.pool.begin().await?;
        let id: i64 = sqlx::query(
            "INSERT INTO verdicts (kind, note, decided_by, decided_at, season, similarity, site, \
             unseen, supersedes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
        )
        .bind(v.kind.as_str())
        .bind(v.note.clone())
        .bind(v.by.clone())
        .bind(at)
        .bind(v.season.map(i64::from))
        .bind(v.similarity)
        .bind(self.site.to_string())
        .bind(i64::from(!unseen.is_empty()))
        .bind(v.supersedes)
        .fetch_one(&mut *tx)
        .await?
        .try_get(0)?;
        for a in accounts {
            sqlx::query("INSERT INTO verdict_accounts (verdict_id, username) VALUES ($1, $2)")
                .bind(id)
                .bind(a)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(id)
    }

    /// Checks the verdict `v` supersedes, if any: one of the site's, on the
    /// same `accounts`, and `v` says why. Returns whether it supersedes one.
    async fn check_supersedes(&self, v: &NewVerdict, accounts: &[String]) -> Result<bool> {
        let Some(old) = v.supersedes else {
            return Ok(false);
        };
        if v.note.trim().is_empty() {
            return Err(VerdictError::NoReason.into());
        }
        let old_v = self.verdict_by_id(old).await?;
        let Some(old_v) = old_v else {
            return Err(VerdictError::NoSuchVerdict(old).into());
        };
        if old_v.accounts != accounts {
            return Err(VerdictError::OtherAccounts(old, old_v.accounts.join(", ")).into());
        }
        Ok(true)
    }

    /// The site's verdict numbered `id`, if any (read among all: a site
    /// holds few verdicts).
    pub async fn verdict_by_id(&self, id: i64) -> Result<Option<Verdict>> {
        Ok(self.verdicts().await?.into_iter().find(|v| v.id == id))
    }

    /// The verdicts that speak about both accounts (pair verdicts on them and
    /// clique verdicts containing both), newest first.
    pub async fn verdicts_for_pair(&self, a: &str, b: &str) -> Result<Vec<Verdict>> {
        if a == b {
            return Ok(Vec::new());
        }
        self.verdicts_where(
            " WHERE v.id IN (SELECT x.verdict_id FROM verdict_accounts x \
             JOIN verdict_accounts y ON y.verdict_id = x.verdict_id \
             WHERE x.username = $1 AND y.username = $2)",
            &[a, b],
        )
        .await
    }

    /// The verdicts naming an account, newest first.
    pub async fn verdicts_for_account(&self, x: &str) -> Result<Vec<Verdict>> {
        self.verdicts_where(
            " WHERE v.id IN (SELECT verdict_id FROM verdict_accounts WHERE username = $1)",
            &[x],
        )
        .await
    }

    /// Every verdict, newest first.
    pub async fn verdicts(&self) -> Result<Vec<Verdict>> {
        self.verdicts_where("", &[]).await
    }

    /// The level at which a verdict on `accounts` is decided: from the
    /// newest scan (of `season`, when given) that scored a pair among them,
    /// its season and the largest similarity among them.
    pub async fn decision_level(
        &self,
        accounts: &[String],
        season: Option<u32>,
    ) -> Result<Option<(u32, f64)>> {
        if accounts.is_empty() {
            return Ok(None);
        }
        let mut sql = "SELECT id, season FROM scans WHERE site = $1".to_owned();
        if season.is_some() {
            sql.push_str(" AND season = $2");
        }
        sql.push_str(" ORDER BY id DESC");
        let mut q = sqlx::query(&sql).bind(self.site.to_string());
        if let Some(s) = season {
            q = q.bind(i64::from(s));
        }
        let scans = q.fetch_all(&self.pool).await?;
        // Newest first; each stored level is read once, however many
        // scans' chains pass through it.
        let mut read: std::collections::HashMap<i64, Vec<PairScore>> = Default::default();
        for row in &scans {
            let id: i64 = row.try_get(0)?;
            let mut best: Option<f64> = None;
            let mut replaced: std::collections::HashSet<String> = Default::default();
            for level in self.scan_chain(id).await? {
                if let std::collections::hash_map::Entry::Vacant(e) = read.entry(level.id) {
                    e.insert(
                        self.stored_pairs(level.id, PairFilter::Among(accounts))
                            .await?,
                    );
                }
                for p in &read[&level.id] {
                    if !replaced.contains(&p.account_a) && !replaced.contains(&p.account_b) {
                        best = Some(best.map_or(p.similarity, |b: f64| b.max(p.similarity)));
                    }
                }
                replaced.extend(level.replaced);
            }
            if let Some(best) = best {
                let season: i64 = row.try_get(1)?;
                return Ok(Some((season as u32, best)));
            }
        }
        Ok(None)
    }

    /// The site's verdicts `filter` (empty or ` WHERE ...` over `args`)
    /// selects, newest first.
    async fn verdicts_where(&self, filter: &str, args: &[&str]) -> Result<Vec<Verdict>> {
        let site_is = format!("v.site = ${}", args.len() + 1);
        let filter = if filter.is_empty() {
            format!(" WHERE {site_is}")
        } else {
            format!("{filter} AND {site_is}")
        };
        let filter = filter.as_str();
        let mut args = args.to_vec();
        args.push(&self.site);
        let args = &args[..];
        let sql = format!("{COLUMNS}{filter}");
        let mut q = sqlx::query(&sql);
        for a in args {
            q = q.bind(a.to_string());
        }
        let rows = q.fetch_all(&self.pool).await?;
        let mut verdicts = Vec::with_capacity(rows.len());
        for r in &rows {
            let kind: String = r.try_get(1)?;
            let season: Option<i64> = r.try_get(5)?;
            verdicts.push(Verdict {
                id: r.try_get(0)?,
                accounts: Vec::new(),
                kind: kind
                    .parse::<VerdictKind>()
                    .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                note: r.try_get(2)?,
                by: r.try_get(3)?,
                at: r.try_get(4)?,
                season: season.map(|s| s as u32),
                similarity: r.try_get(6)?,
                unseen: r.try_get::<i64, _>(7)? != 0,
                supersedes: r.try_get(8)?,
            });
        }
        let accounts = self.verdict_accounts(filter, args).await?;
        for v in &mut verdicts {
            v.accounts = accounts.get(&v.id).cloned().unwrap_or_default();
        }
        newest_first(&mut verdicts);
        Ok(verdicts)
    }

    /// The accounts of the verdicts `filter` selects, sorted, by verdict id.
    async fn verdict_accounts(
        &self,
        filter: &str,
        args: &[&str],
    ) -> Result<BTreeMap<i64, Vec<String>>> {
        let sql = format!(
            "SELECT va.verdict_id, va.username FROM verdict_accounts va \
             WHERE va.verdict_id IN (SELECT v.id FROM verdicts v{filter}) \
             ORDER BY va.verdict_id"
        );
        let mut q = sqlx::query(&sql);
        for a in args {
            q = q.bind(a.to_string());
        }
        let mut out: BTreeMap<i64, Vec<String>> = BTreeMap::new();
        for r in q.fetch_all(&self.pool).await? {
            out.entry(r.try_get(0)?).or_default().push(r.try_get(1)?);
        }
        // Sorted here, not in SQL: PostgreSQL's collation may differ from
        // byte order.
        for names in out.values_mut() {
            names.sort();
        }
        Ok(out)
    }
}
