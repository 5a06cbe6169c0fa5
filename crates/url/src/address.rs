//! The address-safety check, made after DNS resolution and before connecting: a crawler fed
//! URLs by strangers must not be steered into the machine it runs on or the network behind it
//! (server-side request forgery; DNS rebinding, where a public name resolves to a private
//! address, is why the check is on the resolved address, not the URL).
//!
//! [`classify`] sorts an address into the IANA special-purpose registries' ranges
//! (IPv4: RFC 6890 and its updates; IPv6: RFC 6890, RFC 4291). Everything but
//! [`AddressClass::Public`] is refused by default; `--allow-private` opts in.
//! IPv6 addresses that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, the deprecated
//! IPv4-compatible `::a.b.c.d`, and the NAT64 well-known prefix `64:ff9b::/96`) are classified
//! by the IPv4 address they carry: `::ffff:127.0.0.1` is loopback.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// What kind of address an IP address is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AddressClass {
    /// A globally routed unicast address: the only kind crawled by default.
    Public,
    /// `127.0.0.0/8`, `::1`.
    Loopback,
    /// `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16` (RFC 1918); `fec0::/10` (IPv6 site-local,
    /// deprecated).
    Private,
    /// `169.254.0.0/16`, `fe80::/10`.
    LinkLocal,
    /// `fc00::/7` (RFC 4193).
    UniqueLocal,
    /// `0.0.0.0/8` ("this network"), `::`.
    Unspecified,
    /// `224.0.0.0/4`, `ff00::/8`.
    Multicast,
    /// `255.255.255.255`.
    Broadcast,
    /// `192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24` (RFC 5737); `2001:db8::/32`
    /// (RFC 3849); `3fff::/20` (RFC 9637).
    Documentation,
    /// `100.64.0.0/10`, the carrier-grade NAT shared address space (RFC 6598).
    SharedAddressSpace,
    /// `198.18.0.0/15` (RFC 2544); `2001:2::/48` (RFC 5180).
    Benchmarking,
    /// Other special-purpose ranges: `192.0.0.0/24` (IETF protocol assignments),
    /// `192.88.99.0/24` (6to4 relay anycast, deprecated), `240.0.0.0/4` (reserved),
    /// `100::/64` (discard-only), `64:ff9b:1::/48` (local-use NAT64).
    Reserved,
}

impl AddressClass {
    /// Whether a crawler may connect to this kind of address by default.
    pub fn is_public(self) -> bool {
        self == Self::Public
    }
}

/// Classifies an IP address (see the module docs).
///
/// ```
/// use freshet_url::{AddressClass, classify};
/// assert_eq!(classify("192.168.1.10".parse().unwrap()), AddressClass::Private);
/// assert_eq!(classify("::ffff:127.0.0.1".parse().unwrap()), AddressClass::Loopback);
/// assert!(classify("93.184.215.14".parse().unwrap()).is_public());
/// ```
pub fn classify(address: IpAddr) -> AddressClass {
    match address {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

/// Whether `address` is refused unless private addresses are allowed (everything but
/// [`AddressClass::Public`]).
pub fn is_refused_by_default(address: IpAddr) -> bool {
    !classify(address).is_public()
}

/// Whether `address` lies in `network/prefix`.
fn in_v4(address: Ipv4Addr, network: [u8; 4], prefix: u32) -> bool {
    let mask = u32::MAX.checked_shl(32 - prefix).unwrap_or(0);
    u32::from(address) & mask == u32::from(Ipv4Addr::from(network)) & mask
}

fn classify_v4(address: Ipv4Addr) -> AddressClass {
    use AddressClass::*;
    const RANGES: &[([u8; 4], u32, AddressClass)] = &[
        ([0, 0, 0, 0], 8, Unspecified),
        ([10, 0, 0, 0], 8, Private),
        ([100, 64, 0, 0], 10, SharedAddressSpace),
        ([127, 0, 0, 0], 8, Loopback),
        ([169, 254, 0, 0], 16, LinkLocal),
        ([172, 16, 0, 0], 12, Private),
        ([192, 0, 0, 0], 24, Reserved),
        ([192, 0, 2, 0], 24, Documentation),
        ([192, 88, 99, 0], 24, Reserved),
        ([192, 168, 0, 0], 16, Private),
        ([198, 18, 0, 0], 15, Benchmarking),
        ([198, 51, 100, 0], 24, Documentation),
        ([203, 0, 113, 0], 24, Documentation),
        ([224, 0, 0, 0], 4, Multicast),
        ([255, 255, 255, 255], 32, Broadcast),
        ([240, 0, 0, 0], 4, Reserved),
    ];
    RANGES
        .iter()
        .find(|&&(network, prefix, _)| in_v4(address, network, prefix))
        .map_or(Public, |&(_, _, class)| class)
}

/// Whether `address` lies in `network/prefix`.
fn in_v6(address: Ipv6Addr, network: [u16; 8], prefix: u32) -> bool {
    let mask = u128::MAX.checked_shl(128 - prefix).unwrap_or(0);
    u128::from(address) & mask == u128::from(Ipv6Addr::from(network)) & mask
}

fn classify_v6(address: Ipv6Addr) -> AddressClass {
    use AddressClass::*;
    if address.is_unspecified() {
        return Unspecified;
    }
    if address.is_loopback() {
        return Loopback;
    }
    let bits = u128::from(address);
    let embedded_v4 = || Ipv4Addr::from((bits & 0xFFFF_FFFF) as u32);
    // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64).
    if in_v6(address, [0, 0, 0, 0, 0, 0xFFFF, 0, 0], 96)
        || in_v6(address, [0; 8], 96)
        || in_v6(address, [0x64, 0xFF9B, 0, 0, 0, 0, 0, 0], 96)
    {
        return classify_v4(embedded_v4());
    }
    const RANGES: &[([u16; 8], u32, AddressClass)] = &[
        ([0x64, 0xFF9B, 1, 0, 0, 0, 0, 0], 48, Reserved),
        ([0x100, 0, 0, 0, 0, 0, 0, 0], 64, Reserved),
        ([0x2001, 0x2, 0, 0, 0, 0, 0, 0], 48, Benchmarking),
        ([0x2001, 0xDB8, 0, 0, 0, 0, 0, 0], 32, Documentation),
        ([0x3FFF, 0, 0, 0, 0, 0, 0, 0], 20, Documentation),
        ([0xFC00, 0, 0, 0, 0, 0, 0, 0], 7, UniqueLocal),
        ([0xFE80, 0, 0, 0, 0, 0, 0, 0], 10, LinkLocal),
        ([0xFEC0, 0, 0, 0, 0, 0, 0, 0], 10, Private),
        ([0xFF00, 0, 0, 0, 0, 0, 0, 0], 8, Multicast),
    ];
    RANGES
        .iter()
        .find(|&&(network, prefix, _)| in_v6(address, network, prefix))
        .map_or(Public, |&(_, _, class)| class)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use AddressClass::*;

    fn class(address: &str) -> AddressClass {
        classify(address.parse().unwrap())
    }

    #[test]
    fn loopback() {
        assert_eq!(class("127.0.0.1"), Loopback);
        assert_eq!(class("127.255.255.254"), Loopback);
        assert_eq!(class("::1"), Loopback);
    }

    #[test]
    fn private() {
        for address in
            ["10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.255", "192.168.0.1", "fec0::1"]
        {
            assert_eq!(class(address), Private, "{address}");
        }
        assert_eq!(class("172.15.255.255"), Public);
        assert_eq!(class("172.32.0.0"), Public);
        assert_eq!(class("11.0.0.0"), Public);
    }

    #[test]
    fn link_local() {
        assert_eq!(class("169.254.169.254"), LinkLocal, "the cloud metadata address");
        assert_eq!(class("fe80::1"), LinkLocal);
        assert_eq!(class("febf::1"), LinkLocal);
    }

    #[test]
    fn unique_local() {
        assert_eq!(class("fc00::1"), UniqueLocal);
        assert_eq!(class("fd12:3456::1"), UniqueLocal);
        assert_eq!(class("fe00::1"), Public);
    }

    #[test]
    fn unspecified() {
        assert_eq!(class("0.0.0.0"), Unspecified);
        assert_eq!(class("0.1.2.3"), Unspecified);
        assert_eq!(class("::"), Unspecified);
    }

    #[test]
    fn multicast_and_broadcast() {
        assert_eq!(class("224.0.0.1"), Multicast);
        assert_eq!(class("239.255.255.255"), Multicast);
        assert_eq!(class("ff02::1"), Multicast);
        assert_eq!(class("255.255.255.255"), Broadcast);
    }

    #[test]
    fn documentation() {
        for address in ["192.0.2.1", "198.51.100.7", "203.0.113.255", "2001:db8::1", "3fff::1"] {
            assert_eq!(class(address), Documentation, "{address}");
        }
    }

    #[test]
    fn cgnat_shared_address_space() {
        assert_eq!(class("100.64.0.1"), SharedAddressSpace);
        assert_eq!(class("100.127.255.255"), SharedAddressSpace);
        assert_eq!(class("100.63.255.255"), Public);
        assert_eq!(class("100.128.0.0"), Public);
    }

    #[test]
    fn benchmarking_and_reserved() {
        assert_eq!(class("198.18.0.1"), Benchmarking);
        assert_eq!(class("198.19.255.255"), Benchmarking);
        assert_eq!(class("2001:2::1"), Benchmarking);
        assert_eq!(class("192.0.0.8"), Reserved);
        assert_eq!(class("240.0.0.1"), Reserved);
        assert_eq!(class("100::1"), Reserved);
    }

    #[test]
    fn ipv4_mapped_and_embedded_ipv6_use_the_ipv4_class() {
        assert_eq!(class("::ffff:127.0.0.1"), Loopback);
        assert_eq!(class("::ffff:10.1.2.3"), Private);
        assert_eq!(class("::ffff:169.254.169.254"), LinkLocal);
        assert_eq!(class("::ffff:8.8.8.8"), Public);
        assert_eq!(class("::192.168.0.1"), Private);
        assert_eq!(class("64:ff9b::7f00:1"), Loopback);
        assert_eq!(class("64:ff9b::808:808"), Public);
        assert_eq!(class("64:ff9b:1::1"), Reserved);
    }

    #[test]
    fn public() {
        for address in ["8.8.8.8", "1.1.1.1", "93.184.215.14", "2606:4700::1111", "2a00:1450:4001::1"] {
            assert_eq!(class(address), Public, "{address}");
            assert!(!is_refused_by_default(address.parse().unwrap()));
        }
        assert!(is_refused_by_default("127.0.0.1".parse().unwrap()));
    }
}
