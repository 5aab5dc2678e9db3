"""The client address that limits count: the peer address, widened to a network prefix.

An IPv6 host usually holds a whole /64 (SLAAC, privacy addresses), so counting exact IPv6
addresses would give one client 2^64 buckets. Limits therefore count the address's network:

    RATELIMIT_IPV6_PREFIX   64 (default): every address of one /64 shares a bucket
    RATELIMIT_IPV4_PREFIX   32 (default): each IPv4 address is its own bucket

A shared IPv4 address (a carrier NAT, an office, a university) puts many people in one
bucket; a wider IPv4 prefix (24) puts neighbours together too. Neither is a stable identity:
limits per seat token and per account are the fair ones, address limits the backstop.

Behind a proxy the peer is the proxy: wrap the app in werkzeug's ProxyFix so that
`request.remote_addr` is the client.
"""

from __future__ import annotations

import ipaddress

from flask import current_app, request

IPV6_PREFIX = 64
IPV4_PREFIX = 32


def network_of(address: str | None, ipv4_prefix: int, ipv6_prefix: int) -> str:
    """`address` as its network, e.g. `2001:db8:1:2::/64`; an unparsable one as itself."""
    if not address:
        return "unknown"
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address[:64]
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    prefix = ipv4_prefix if ip.version == 4 else ipv6_prefix
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))


def _prefix(key: str, default: int, most: int) -> int:
    value = current_app.config.get(key)
    try:
        prefix = int(value) if value not in (None, "") else default
    except (TypeError, ValueError):
        prefix = default
    return min(max(prefix, 0), most)


def client_network() -> str:
    """The network of this request's client, as the limits count it."""
    v4 = _prefix("RATELIMIT_IPV4_PREFIX", IPV4_PREFIX, 32)
    v6 = _prefix("RATELIMIT_IPV6_PREFIX", IPV6_PREFIX, 128)
    return network_of(request.remote_addr, v4, v6)
