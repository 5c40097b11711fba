//! Where the IP key comes from: `DETECT_IP_KEY`, or `ip_key` in the daemon's
//! configuration. It is a secret: held as [`SecretString`], never printed,
//! and never a command-line flag (those show in process lists).

use anyhow::{bail, Result};
use secrecy::SecretString;
use store::IpKey;

/// The environment variable of the IP key.
pub const IP_KEY_ENV: &str = "DETECT_IP_KEY";

/// The key of `DETECT_IP_KEY`; `None` when it is not set.
pub fn ip_key_from_env() -> Result<Option<IpKey>> {
    match std::env::var(IP_KEY_ENV) {
        Ok(v) => match IpKey::new(SecretString::from(v)) {
            Some(k) => Ok(Some(k)),
            None => bail!("{IP_KEY_ENV} is set but empty: give it the store's key, or unset it"),
        },
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => bail!("{IP_KEY_ENV} is not valid UTF-8"),
    }
}
