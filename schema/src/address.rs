//! The one normal form of an IP address, for every source of moves (files,
//! standard input, watched directories, site databases), the store's insert
//! path, and the web application's reading of its clients.
//!
//! - surrounding white space is trimmed;
//! - `a.b.c.d:port` and `[v6]:port` lose the port, `[v6]` its brackets;
//! - an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is its IPv4 address;
//! - IPv6 is written in its canonical text (RFC 5952: lower case, the
//!   longest run of zeros compressed), so one address has one spelling;
//! - the empty string and the word `delay` are kept as they are: the
//!   reference implementation keeps both as addresses that pair their
//!   accounts like any other (golden cases 10 and 21), and reference mode
//!   reproduces it;
//! - anything else is not an address, and the line is refused.

use std::borrow::Cow;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

/// The values that are not addresses yet are kept, as the reference keeps
/// them.
pub const KEPT_AS_ADDRESSES: [&str; 2] = ["", "delay"];

/// An IP field that is no address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the ip is not an IP address (IPv4 or IPv6, with or without a port)")]
pub struct NotAnAddress;

/// `ip` parsed as an address, with or without a port; mapped IPv6 unmapped.
pub fn parse_ip(ip: &str) -> Option<IpAddr> {
    let ip = ip.trim();
    let addr = ip
        .parse::<IpAddr>()
        .ok()
        .or_else(|| ip.parse::<SocketAddr>().ok().map(|s| s.ip()))
        .or_else(|| {
            ip.strip_prefix('[')
                .and_then(|r| r.strip_suffix(']'))
                .and_then(|r| r.parse::<std::net::Ipv6Addr>().ok())
                .map(IpAddr::V6)
        })?;
    Some(unmapped(addr))
}

/// An IPv4-mapped IPv6 address as its IPv4 address; any other as it is.
pub fn unmapped(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// The normal form of an IP field (see the module), or why it has none.
/// Borrows when the field is already in normal form (the usual case).
pub fn normal_ip(ip: &str) -> Result<Cow<'_, str>, NotAnAddress> {
    // Dotted IPv4 that std reads as it stands (four decimal octets, no
    // leading zeros, nothing around them) is its own normal form: the
    // usual field, taken without writing the address out again.
    if KEPT_AS_ADDRESSES.contains(&ip) || ip.parse::<Ipv4Addr>().is_ok() {
        return Ok(Cow::Borrowed(ip));
    }
    let addr = parse_ip(ip).ok_or(NotAnAddress)?;
    let text = addr.to_string();
    Ok(if text == ip {
        Cow::Borrowed(ip)
    } else {
        Cow::Owned(text)
    })
}

/// What stands in a message for an address a keyed store must not show.
pub const REDACTED: &str = "[address]";

/// `text` with every address in it (IPv4 or IPv6, with or without a port
/// or brackets, mapped or not) replaced by [`REDACTED`]: what a keyed store
/// shows of a bad line, whichever field held the address. Borrows when
/// there is none (the usual case).
pub fn redact_addresses(text: &str) -> Cow<'_, str> {
    let in_token = |c: char| c.is_ascii_hexdigit() || matches!(c, ':' | '.' | '[' | ']');
    let mut out = String::new();
    let mut last = 0;
    let mut rest = text.char_indices().peekable();
    while let Some((start, c)) = rest.next() {
        if !in_token(c) {
            continue;
        }
        let mut end = start + c.len_utf8();
        while let Some(&(i, c)) = rest.peek() {
            if !in_token(c) {
                break;
            }
            end = i + c.len_utf8();
            rest.next();
        }
        let token = text[start..end].trim_end_matches(['.', ':']);
        if parse_ip(token).is_some() || contains_address(token) {
            out.push_str(&text[last..start]);
            out.push_str(REDACTED);
            last = start + token.len();
        }
    }
    if last == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// Whether a run of address characters holds an address inside it (glued
/// to other digits or dots, `x1.2.3.4` or `1.2.3.4.5`): any four dotted
/// numbers that make an IPv4 address.
fn contains_address(token: &str) -> bool {
    let parts: Vec<&str> = token.split(['.', ':', '[', ']']).collect();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    parts.windows(4).any(|w| {
        let first = w[0].trim_start_matches(|c: char| !c.is_ascii_digit());
        let first = &first[first
            .rfind(|c: char| !c.is_ascii_digit())
            .map_or(0, |i| i + 1)..];
        let last = w[3].trim_end_matches(|c: char| !c.is_ascii_digit());
        let last = &last[..last
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(last.len())];
        digits(first)
            && digits(w[1])
            && digits(w[2])
            && digits(last)
            && format!("{first}.{}.{}.{last}", w[1], w[2])
                .parse::<std::net::Ipv4Addr>()
                .is_ok()
    }) || token.parse::<std::net::Ipv6Addr>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_redacted_wherever_they_stand() {
        for (text, shown) in [
            (
                "cannot read the time \"198.51.100.77\"",
                "cannot read the time \"[address]\"",
            ),
            ("from 198.51.100.77:8080, again", "from [address], again"),
            (
                "v6 [2001:db8::1]:443 and ::ffff:10.0.0.1.",
                "v6 [address] and [address].",
            ),
            ("glued x198.51.100.77y", "glued x[address]y"),
            ("glued a198.51.100.77b", "glued [address]"),
            ("1.2.3.4.5", "[address]"),
        ] {
            assert_eq!(redact_addresses(text), shown, "{text}");
        }
        for plain in [
            "the time 2015-05-03 16:11:00 lies outside",
            "the record has 5 fields, the header has 4",
            "bad JSON: expected value at line 1 column 12",
            "cafe: deadbeef",
            "1430670540",
        ] {
            assert!(
                matches!(redact_addresses(plain), Cow::Borrowed(_)),
                "{plain}"
            );
        }
    }

    #[test]
    fn one_spelling_per_address() {
        for (raw, normal) in [
            ("10.0.0.1", "10.0.0.1"),
            ("  10.0.0.1\t", "10.0.0.1"),
            ("10.0.0.1:443", "10.0.0.1"),
            ("[2001:DB8::1]:8080", "2001:db8::1"),
            ("[2001:db8::1]", "2001:db8::1"),
            ("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"),
            ("::ffff:198.51.100.7", "198.51.100.7"),
            ("[::ffff:198.51.100.7]:1", "198.51.100.7"),
            ("::1", "::1"),
            ("", ""),
            ("delay", "delay"),
        ] {
            assert_eq!(normal_ip(raw).as_deref(), Ok(normal), "{raw:?}");
        }
    }

    #[test]
    fn dotted_ipv4_read_as_it_stands_is_written_the_same() {
        // The fast path of `normal_ip`: whatever std's parser takes as
        // IPv4 is written back unchanged, and what it refuses is not.
        for raw in [
            "0.0.0.0",
            "10.0.0.1",
            "255.255.255.255",
            "1.22.133.4",
            "010.0.0.1",
            "1.2.3",
            "1.2.3.4.",
            "1.2.3.04",
            "256.1.1.1",
            " 1.2.3.4",
            "+1.2.3.4",
        ] {
            let fast = raw.parse::<Ipv4Addr>();
            let written = parse_ip(raw).map(|a| a.to_string());
            match fast {
                Ok(a) => assert_eq!(a.to_string(), raw, "{raw:?}"),
                Err(_) => assert_ne!(written.as_deref(), Some(raw), "{raw:?}"),
            }
        }
    }

    #[test]
    fn what_is_not_an_address_is_refused() {
        for raw in [
            "   ",
            "1",
            "host.example",
            "10.0.0.256",
            "10.0.0.1:99999",
            "010.0.0.1",
            " delay",
            "Delay",
            "fe80::1%eth0",
            "10.0.0.1/24",
        ] {
            assert_eq!(normal_ip(raw), Err(NotAnAddress), "{raw:?}");
        }
    }

    #[test]
    fn normal_forms_are_fixed_points() {
        for raw in ["10.0.0.1:1", "[::ffff:1.2.3.4]:9", "2001:DB8::0:1"] {
            let once = normal_ip(raw).unwrap().into_owned();
            assert_eq!(normal_ip(&once).unwrap(), once);
        }
    }
}
