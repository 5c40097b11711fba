//! The store's personal data: `detect purge` (retention) and `detect ip`
//! (which accounts moved from an address).

use clap::{Args, Subcommand};

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("cutoff").required(true))]
pub struct PurgeArgs {
    /// Delete what is older than this, counted back from now: 90d, 12w, 36h.
    #[arg(long, group = "cutoff", value_parser = parse_age)]
    pub older_than: Option<i64>,
    /// Delete what is before this UTC time (YYYY-MM-DD or a full time).
    #[arg(long, group = "cutoff")]
    pub before: Option<String>,
}

/// `90d` (days), `12w` (weeks) or `36h` (hours) as seconds.
pub fn parse_age(s: &str) -> Result<i64, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(split);
    let n: i64 = n
        .parse()
        .map_err(|_| format!("{s:?} is not an age such as 90d, 12w or 36h"))?;
    let unit = match unit {
        "h" => 3_600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return Err(format!("{s:?} is not an age such as 90d, 12w or 36h")),
    };
    if n == 0 {
        return Err("an age of 0 would delete every move".into());
    }
    Ok(n * unit)
}

#[derive(Debug, Subcommand)]
pub enum IpCommand {
    /// List the accounts (and days) that moved from an IP address.
    #[command(
        after_help = "Examples:\n  detect ip lookup 192.0.2.7\n  detect ip lookup 2001:db8::7 --actor ann"
    )]
    Lookup(IpLookupArgs),
}

#[derive(Debug, Args)]
pub struct IpLookupArgs {
    /// The IP address, as the logs write it.
    pub address: String,
    /// Who looks the address up, for the audit log [default: the operating
    /// system's user: $USER, $LOGNAME, else the process's uid].
    #[arg(long, value_name = "NAME")]
    pub actor: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages() {
        assert_eq!(parse_age("90d"), Ok(90 * 86_400));
        assert_eq!(parse_age("2w"), Ok(14 * 86_400));
        assert_eq!(parse_age("36h"), Ok(36 * 3_600));
        for bad in ["90", "d", "9x", "-3d", "0d", ""] {
            assert!(parse_age(bad).is_err(), "{bad}");
        }
    }
}
