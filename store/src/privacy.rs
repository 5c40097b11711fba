//! Keyed pseudonymisation of IP addresses at rest, and `ip lookup`.
//!
//! A store is either **plain** (IPs stored as read) or **keyed**: every IP is
//! replaced, before it is written, by a keyed hash (HMAC-SHA256 truncated to
//! 16 bytes, hex, prefixed `ipk_`), and its network (/24 for IPv4, /64 for
//! IPv6) by another (`netk_`), kept in `moves.net`. Equal addresses give
//! equal hashes, so every score is the same as without the key.
//!
//! Which kind a store is, is decided by its first ingest and recorded in
//! `store_state` as `ip_key_check`, the HMAC of a fixed label: a keyed store
//! refuses a different key (and ingests only with its key), and a plain
//! store that holds moves refuses to become keyed (it would be half-applied).

use super::{Result, Store, StoreError};
use hmac::{Hmac, Mac};
use secrecy::{ExposeSecret, SecretString};
use sha2::Sha256;
use sqlx::{Any, Row, Transaction};
use std::net::IpAddr;

/// The prefix of a pseudonymised IP.
pub const IP_HASH_PREFIX: &str = "ipk_";
/// The prefix of a pseudonymised network.
pub const NET_HASH_PREFIX: &str = "netk_";
/// Bytes of the HMAC kept.
const HASH_BYTES: usize = 16;
/// The `store_state` key of the key check value.
const CHECK_KEY: &str = "ip_key_check";

/// The secret key of a keyed store. Its `Debug` shows no secret.
#[derive(Clone)]
pub struct IpKey {
    secret: SecretString,
}

impl std::fmt::Debug for IpKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IpKey([REDACTED])")
    }
}

impl IpKey {
    /// A key; `None` when it is empty or blank (no key at all is meant
    /// differently from an empty one, and an empty key protects nothing).
    pub fn new(secret: SecretString) -> Option<IpKey> {
        if secret.expose_secret().trim().is_empty() {
            return None;
        }
        Some(IpKey { secret })
    }

    fn mac(&self, label: &str, data: &str) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(self.secret.expose_secret().as_bytes())
            .expect("HMAC takes keys of any length");
        mac.update(label.as_bytes());
        mac.update(&[0]);
        mac.update(data.as_bytes());
        let bytes = mac.finalize().into_bytes();
        bytes[..HASH_BYTES]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The stored form of an IP: `ipk_` and 32 hex digits.
    pub fn pseudonym(&self, ip: &str) -> String {
        format!("{IP_HASH_PREFIX}{}", self.mac("ip", ip))
    }

    /// The stored form of a network (as [`network_of`] writes it).
    pub fn network(&self, net: &str) -> String {
        format!("{NET_HASH_PREFIX}{}", self.mac("net", net))
    }

    /// What `store_state` keeps to recognise the key.
    fn check_value(&self) -> String {
        self.mac("check", "detect ip key")
    }
}

/// The network of an IP address, `a.b.c.0/24` or the /64 of an IPv6
/// address; `None` for what is not an address (logs hold other strings).
pub fn network_of(ip: &str) -> Option<String> {
    match ip.trim().parse::<IpAddr>().ok()? {
        IpAddr::V4(v4) => {
            let [a, b, c, _] = v4.octets();
            Some(format!("{a}.{b}.{c}.0/24"))
        }
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            Some(format!("{}/64", std::net::Ipv6Addr::from(bits)))
        }
    }
}

/// The stored forms of an IP and its network, with or without a key.
pub(super) fn stored_ip(key: Option<&IpKey>, ip: &str) -> (String, Option<String>) {
    let net = network_of(ip);
    match key {
        Some(k) => (k.pseudonym(ip), net.map(|n| k.network(&n))),
        None => (ip.to_owned(), net),
    }
}

/// The `store_state` key of a plain store's own secret that its audit
/// fingerprints are keyed with.
pub(super) const FINGERPRINT_SECRET: &str = "audit_fingerprint_secret";

/// A plain store's fingerprint of an address: `ipfp_` and 16 bytes of an
/// HMAC-SHA256 keyed with the store's own random secret, in hex. An
/// unsalted hash of an IPv4 address is reversed by trying the 2^32
/// addresses (a /8 took 6.2 s); without the secret there is nothing to try
/// against, and two stores fingerprint one address differently.
pub(super) fn fingerprint(secret: &str, ip: &str) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(b"audit fingerprint\0");
    mac.update(ip.as_bytes());
    let bytes = mac.finalize().into_bytes();
    let hex: String = bytes[..HASH_BYTES]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("ipfp_{hex}")
}

/// One account seen at an address on one UTC day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IpSighting {
    pub username: String,
    /// UTC day number, `floor(t / 86400)`.
    pub day: i64,
    pub moves: i64,
}

impl Store {
    /// Uses `key` for this store: refused when the store was keyed with
    /// another key. (Whether a plain store may become keyed is decided at
    /// its first ingest.)
    pub async fn with_ip_key(mut self, key: Option<IpKey>) -> Result<Store> {
        if let (Some(k), Some(check)) = (&key, self.ip_key_check().await?) {
            if check != k.check_value() {
                return Err(StoreError::WrongIpKey);
            }
        }
        self.ip_key = key.map(std::sync::Arc::new);
        Ok(self)
    }

    /// Whether the store keeps IPs keyed.
    pub async fn is_keyed(&self) -> Result<bool> {
        Ok(self.ip_key_check().await?.is_some())
    }

    /// The form an IP has in this store (its hash in a keyed store).
    pub fn stored_ip(&self, ip: &str) -> String {
        stored_ip(self.ip_key.as_deref(), ip).0
    }

    async fn ip_key_check(&self) -> Result<Option<String>> {
        Ok(sqlx::query("SELECT value FROM store_state WHERE key = $1")
            .bind(CHECK_KEY)
            .fetch_optional(&self.pool)
            .await?
            .map(|r| r.try_get(0))
            .transpose()?)
    }

    /// How the audit log and the log name `ip`: never the raw address. In
    /// a keyed store its stored form (`ipk_...`, which only the key's holder
    /// can match); in a plain store its fingerprint keyed with the store's
    /// own secret (an HMAC-SHA256, see `fingerprint` in this module), made
    /// at the first use and replaced by every purge, so fingerprints written
    /// before a purge match no address any more.
    pub async fn audit_ip(&self, ip: &str) -> Result<String> {
        let ip = schema::address::normal_ip(ip).unwrap_or(std::borrow::Cow::Borrowed(ip.trim()));
        if let Some(k) = &self.ip_key {
            return Ok(k.pseudonym(&ip));
        }
        Ok(fingerprint(&self.fingerprint_secret().await?, &ip))
    }

    /// The plain store's fingerprint secret, made (32 random bytes, hex)
    /// when it has none.
    async fn fingerprint_secret(&self) -> Result<String> {
        let read = || async {
            sqlx::query("SELECT value FROM store_state WHERE key = $1")
                .bind(FINGERPRINT_SECRET)
                .fetch_optional(&self.pool)
                .await?
                .map(|r| r.try_get::<String, _>(0))
                .transpose()
        };
        if let Some(secret) = read().await? {
            return Ok(secret);
        }
        let mut bytes = [0u8; 32];
        rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut bytes);
        let fresh: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        // Two first uses at once: one secret wins, both read it.
        sqlx::query(
            "INSERT INTO store_state (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
        )
        .bind(FINGERPRINT_SECRET)
        .bind(fresh)
        .execute(&self.pool)
        .await?;
        Ok(read().await?.expect("the secret was just stored"))
    }

    /// The site's accounts that moved from `ip`, by day, from the stored
    /// moves. A keyed store needs its key.
    pub async fn lookup_ip(&self, ip: &str) -> Result<Vec<IpSighting>> {
        if self.ip_key.is_none() && self.is_keyed().await? {
            return Err(StoreError::IpKeyNeeded);
        }
        let rows = sqlx::query(
            "SELECT username, ts FROM moves WHERE ip = $1 AND site = $2 ORDER BY username, ts",
        )
        .bind(self.stored_ip(ip.trim()))
        .bind(self.site.to_string())
        .fetch_all(&self.pool)
        .await?;
        let mut out: Vec<IpSighting> = Vec::new();
        for r in &rows {
            let username: String = r.try_get(0)?;
            let day = r.try_get::<i64, _>(1)?.div_euclid(86_400);
            match out.last_mut() {
                Some(s) if s.username == username && s.day == day => s.moves += 1,
                _ => out.push(IpSighting {
                    username,
                    day,
                    moves: 1,
                }),
            }
        }
        Ok(out)
    }
}

/// At the start of an ingest: checks the key against the store, and makes an
/// empty store keyed when a key is given. Returns the key to hash with.
pub(super) async fn check_ingest_key(
    tx: &mut Transaction<'_, Any>,
    key: Option<&std::sync::Arc<IpKey>>,
) -> Result<()> {
    let check: Option<String> = sqlx::query("SELECT value FROM store_state WHERE key = $1")
        .bind(CHECK_KEY)
        .fetch_optional(&mut **tx)
        .await?
        .map(|r| r.try_get(0))
        .transpose()?;
    match (check, key) {
        (Some(c), Some(k)) if c != k.check_value() => Err(StoreError::WrongIpKey),
        (Some(_), Some(_)) | (None, None) => Ok(()),
        (Some(_), None) => Err(StoreError::IpKeyNeeded),
        (None, Some(k)) => {
            let moves: i64 = sqlx::query("SELECT COUNT(*) FROM moves")
                .fetch_one(&mut **tx)
                .await?
                .try_get(0)?;
            if moves > 0 {
                return Err(StoreError::PlainStore);
            }
            sqlx::query("INSERT INTO store_state (key, value) VALUES ($1, $2)")
                .bind(CHECK_KEY)
                .bind(k.check_value())
                .execute(&mut **tx)
                .await?;
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> IpKey {
        IpKey::new(SecretString::from(s.to_owned())).unwrap()
    }

    #[test]
    fn networks() {
        assert_eq!(network_of("10.2.3.4").as_deref(), Some("10.2.3.0/24"));
        assert_eq!(
            network_of("2001:db8:1:2:3:4:5:6").as_deref(),
            Some("2001:db8:1:2::/64")
        );
        assert_eq!(network_of("delay"), None);
        assert_eq!(network_of(""), None);
    }

    #[test]
    fn pseudonyms_are_keyed_stable_and_distinct() {
        let (a, b) = (key("one"), key("two"));
        let p = a.pseudonym("10.0.0.1");
        assert_eq!(p, a.pseudonym("10.0.0.1"));
        assert_eq!(p.len(), IP_HASH_PREFIX.len() + 2 * HASH_BYTES);
        assert!(p.starts_with(IP_HASH_PREFIX) && !p.contains("10.0.0.1"));
        assert_ne!(p, a.pseudonym("10.0.0.2"));
        assert_ne!(p, b.pseudonym("10.0.0.1"));
        assert_ne!(a.check_value(), b.check_value());
        // Same network, same network hash; another network, another.
        let (_, n1) = stored_ip(Some(&a), "10.0.0.1");
        let (_, n2) = stored_ip(Some(&a), "10.0.0.200");
        let (_, n3) = stored_ip(Some(&a), "10.0.1.1");
        assert_eq!(n1, n2);
        assert_ne!(n1, n3);
        assert!(n1.unwrap().starts_with(NET_HASH_PREFIX));
        assert_eq!(
            stored_ip(None, "10.0.0.1"),
            ("10.0.0.1".into(), Some("10.0.0.0/24".into()))
        );
    }

    #[test]
    fn fingerprints_are_keyed_by_the_stores_secret() {
        use sha2::Digest;
        let f = fingerprint("one", "10.0.0.1");
        assert_eq!(f, fingerprint("one", "10.0.0.1"));
        assert_ne!(f, fingerprint("two", "10.0.0.1"), "another store");
        assert_ne!(f, fingerprint("one", "10.0.0.2"));
        assert_eq!(f.len(), "ipfp_".len() + 2 * HASH_BYTES);
        // Not the unsalted hash that a scan of addresses reverses.
        let plain: String = Sha256::digest(b"10.0.0.1")[..HASH_BYTES]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_ne!(f, format!("ipfp_{plain}"));
    }

    #[test]
    fn no_secret_in_debug_and_no_empty_key() {
        assert_eq!(format!("{:?}", key("hunter2")), "IpKey([REDACTED])");
        assert!(IpKey::new(SecretString::from("  ".to_owned())).is_none());
    }
}
