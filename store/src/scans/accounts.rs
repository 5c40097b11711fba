//! What a scan keeps for the next rescan (`scan_accounts`): each account's digest
//! and, for a scan stored as a change, the replaced accounts. Both as bytes:
//! a season has tens of thousands of accounts, and a row each would cost a
//! rescan more than it saves.

use super::super::segments::chunk::{put, put_name, Reader};
use super::super::{Result, Store, StoreError, StoredScan};
use schema::model::Mode;
use schema::rescan::AccountDigests;
use sqlx::{Any, Row, Transaction};

/// What a rescan starts from: the latest scan of a season with a bucket
/// size and mode, the digests it kept, and the chain it is stored in.
#[derive(Debug, Clone)]
pub struct RescanBase {
    /// With only its pairs at or above the similarity asked for.
    pub scan: StoredScan,
    pub digests: AccountDigests,
    /// The scans of its chain, itself included.
    pub depth: usize,
    /// The pairs stored with the changes of its chain.
    pub changed_pairs: u64,
    /// The pairs stored with the scan at the root of its chain.
    pub root_pairs: u64,
}

/// Each (name, digest) as the name, then the digest's 8 bytes.
pub(super) fn encode_digests(digests: &AccountDigests) -> Vec<u8> {
    let mut out = Vec::with_capacity(digests.len() * 20);
    for (name, d) in digests.iter() {
        put_name(&mut out, name);
        out.extend_from_slice(&d.to_le_bytes());
    }
    out
}

pub(super) fn decode_digests(data: &[u8]) -> Result<AccountDigests> {
    let corrupt = |e: String| StoreError::Corrupt(format!("the account digests of a scan: {e}"));
    let mut r = Reader::new(data);
    let mut out = Vec::new();
    while !r.done() {
        let name = r.name().map_err(corrupt)?.to_owned();
        let bytes = r.bytes(8).map_err(corrupt)?;
        out.push((name, u64::from_le_bytes(bytes.try_into().expect("8 bytes"))));
    }
    Ok(AccountDigests::new(out))
}

/// Names, each as its length and bytes, after their count.
pub(super) fn encode_names(names: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    put(&mut out, names.len() as u64);
    for n in names {
        put_name(&mut out, n);
    }
    out
}

pub(super) fn decode_names(data: &[u8]) -> Result<Vec<String>> {
    let corrupt = |e: String| StoreError::Corrupt(format!("the replaced accounts of a scan: {e}"));
    let mut r = Reader::new(data);
    let n = r.int().map_err(corrupt)?;
    (0..n)
        .map(|_| Ok(r.name().map_err(corrupt)?.to_owned()))
        .collect()
}

/// Stores a scan's digests and replaced accounts in the scan's transaction.
pub(super) async fn save_accounts(
    tx: &mut Transaction<'_, Any>,
    scan_id: i64,
    digests: &AccountDigests,
    replaced: Option<&[String]>,
) -> Result<()> {
    sqlx::query("INSERT INTO scan_accounts (scan_id, digests, replaced) VALUES ($1, $2, $3)")
        .bind(scan_id)
        .bind(encode_digests(digests))
        .bind(replaced.map(encode_names))
        .execute(&mut **tx)
        .await?;
    Ok(())
}

impl Store {
    /// The latest scan of a season with this bucket size and mode, if it
    /// kept digests for a rescan, with its pairs at or above
    /// `min_similarity`.
    pub async fn rescan_base(
        &self,
        season: u32,
        bucket_seconds: i64,
        mode: Mode,
        min_similarity: f64,
    ) -> Result<Option<RescanBase>> {
        let Some(scan) = self
            .latest_scan_where(season, Some((bucket_seconds, mode)), Some(min_similarity))
            .await?
        else {
            return Ok(None);
        };
        let Some(digests) = self.scan_digests(scan.id).await? else {
            return Ok(None);
        };
        let chain = self.scan_chain(scan.id).await?;
        let mut stored = Vec::with_capacity(chain.len());
        for level in &chain {
            let n: Option<i64> = sqlx::query("SELECT stored_pairs FROM scans WHERE id = $1")
                .bind(level.id)
                .fetch_one(&self.pool)
                .await?
                .try_get(0)?;
            stored.push(n.unwrap_or(0) as u64);
        }
        let root_pairs = stored.pop().unwrap_or(0);
        Ok(Some(RescanBase {
            scan,
            digests,
            depth: chain.len(),
            changed_pairs: stored.iter().sum(),
            root_pairs,
        }))
    }

    /// The digests a scan kept, if it kept any (scans stored before rescans,
    /// and improved-mode scans, did not).
    pub(super) async fn scan_digests(&self, scan_id: i64) -> Result<Option<AccountDigests>> {
        let row = sqlx::query("SELECT digests FROM scan_accounts WHERE scan_id = $1")
            .bind(scan_id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| decode_digests(&r.try_get::<Vec<u8>, _>(0)?))
            .transpose()
    }

    /// The accounts a scan stored as a change replaced (empty for a scan that
    /// stores every pair).
    pub(super) async fn scan_replaced(&self, scan_id: i64) -> Result<Vec<String>> {
        let row = sqlx::query("SELECT replaced FROM scan_accounts WHERE scan_id = $1")
            .bind(scan_id)
            .fetch_optional(&self.pool)
            .await?;
        match row.and_then(|r| r.try_get::<Option<Vec<u8>>, _>(0).transpose()) {
            Some(data) => decode_names(&data?),
            None => Ok(Vec::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_and_names_round_trip() {
        let d = AccountDigests::new(vec![
            ("bob".into(), u64::MAX),
            ("".into(), 0),
            ("älva\n".into(), 42),
        ]);
        assert_eq!(decode_digests(&encode_digests(&d)).unwrap(), d);
        let names = vec!["a".to_owned(), "".to_owned(), "b c".to_owned()];
        assert_eq!(decode_names(&encode_names(&names)).unwrap(), names);
        assert!(decode_digests(&encode_digests(&d)[..5]).is_err());
    }
}
