//! Who a request comes from: the peer of the connection, or, when that peer
//! is a reverse proxy named in the configuration (`--trusted-proxy`), the
//! address the proxies recorded in `X-Forwarded-For`.
//!
//! `X-Forwarded-For` is read from the right: each trusted proxy appends the
//! address it was reached from, so the first address from the right that is
//! not a trusted proxy is the client. What a client writes into the header
//! itself stands to the left of that and is never believed. From a peer that
//! is not a trusted proxy the header is ignored.

use axum::http::HeaderMap;
use ipnet::IpNet;
use schema::address::{parse_ip, unmapped};
use std::net::IpAddr;

/// The reverse proxies whose `X-Forwarded-For` is believed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Proxies named by address (`127.0.0.1`, `::1`) or network
    /// (`10.0.0.0/8`); the error names what is not one.
    pub fn parse<S: AsRef<str>>(names: &[S]) -> Result<TrustedProxies, String> {
        names
            .iter()
            .map(|n| {
                let n = n.as_ref().trim();
                n.parse::<IpNet>()
                    .or_else(|_| n.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| {
                        format!(
                            "a trusted proxy is an IP address or a network such as 10.0.0.0/8, \
                             not {n:?}"
                        )
                    })
            })
            .collect::<Result<_, _>>()
            .map(TrustedProxies)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn trusts(&self, ip: IpAddr) -> bool {
        let ip = unmapped(ip);
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// The client of a request that came over a connection from `peer`.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = unmapped(peer);
        if !self.trusts(peer) {
            return peer;
        }
        let hops: Vec<&str> = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .collect();
        let mut client = peer;
        for hop in hops.iter().rev() {
            // A hop that is no address ends the chain: the last proxy that
            // wrote a good one is who we know.
            let Some(ip) = parse_ip(hop) else {
                break;
            };
            client = ip;
            if !self.trusts(ip) {
                break;
            }
        }
        client
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn xff(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append("x-forwarded-for", HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn the_header_is_believed_only_from_a_trusted_proxy() {
        let none = TrustedProxies::default();
        let proxy = TrustedProxies::parse(&["127.0.0.1", "10.0.0.0/8"]).unwrap();
        let h = xff(&["198.51.100.7"]);
        assert_eq!(none.client(ip("127.0.0.1"), &h), ip("127.0.0.1"));
        assert_eq!(proxy.client(ip("192.0.2.1"), &h), ip("192.0.2.1"));
        assert_eq!(proxy.client(ip("127.0.0.1"), &h), ip("198.51.100.7"));
        assert_eq!(
            proxy.client(ip("::ffff:127.0.0.1"), &h),
            ip("198.51.100.7"),
            "a mapped peer is its IPv4 address"
        );
    }

    #[test]
    fn what_a_client_writes_itself_is_not_believed() {
        let proxy = TrustedProxies::parse(&["127.0.0.1", "10.0.0.0/8"]).unwrap();
        // The client wrote 203.0.113.9; nginx appended the real peer; an
        // inner proxy at 10.1.1.1 appended nginx's.
        let h = xff(&["203.0.113.9, 198.51.100.7", "10.1.1.1"]);
        assert_eq!(proxy.client(ip("127.0.0.1"), &h), ip("198.51.100.7"));
        let h = xff(&["garbage, 198.51.100.7:5555"]);
        assert_eq!(proxy.client(ip("127.0.0.1"), &h), ip("198.51.100.7"));
        let h = xff(&["198.51.100.7, garbage"]);
        assert_eq!(proxy.client(ip("127.0.0.1"), &h), ip("127.0.0.1"));
        assert_eq!(
            proxy.client(ip("127.0.0.1"), &HeaderMap::new()),
            ip("127.0.0.1")
        );
        let h = xff(&["10.2.2.2"]);
        assert_eq!(
            proxy.client(ip("127.0.0.1"), &h),
            ip("10.2.2.2"),
            "only proxies: the farthest"
        );
    }

    #[test]
    fn proxies_are_addresses_or_networks() {
        assert!(TrustedProxies::parse(&["::1", "fd00::/8", " 127.0.0.1 "]).is_ok());
        let e = TrustedProxies::parse(&["nginx"]).unwrap_err();
        assert!(e.contains("\"nginx\""), "{e}");
    }
}
