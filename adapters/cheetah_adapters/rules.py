"""A redirect rule as devices see it: a match (IPv4 or IPv6) and an action, from a verified command.

Addresses arrive as 16 bytes with IPv6 prefix lengths (docs/REDIRECTS.md); an IPv4-mapped
address (::ffff:a.b.c.d) with a length of at least 96 becomes an IPv4 match of length - 96.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")
PROTO_NAMES = {1: "icmp", 6: "tcp", 17: "udp", 58: "ipv6-icmp", 132: "sctp"}


class InvalidMatch(ValueError):
    pass


@dataclass(frozen=True)
class Match:
    family: int  # 4 or 6
    src: IPNetwork | None  # None: any
    dst: IPNetwork | None
    src_port: int  # 0: any
    dst_port: int
    proto: int  # 0: any

    def describe(self) -> str:
        parts = [f"src {self.src or 'any'}", f"dst {self.dst or 'any'}"]
        if self.proto:
            parts.append(f"proto {PROTO_NAMES.get(self.proto, self.proto)}")
        if self.src_port:
            parts.append(f"sport {self.src_port}")
        if self.dst_port:
            parts.append(f"dport {self.dst_port}")
        return " ".join(parts)


@dataclass(frozen=True)
class Rule:
    """An add command's rule: what to match, what to do, until when."""

    rule_id: str  # the add command's id
    match: Match
    action: str  # RedirectAction name without its prefix: SCAVENGER, DSCP_MARK, ...
    dscp: int
    path: str
    rate_limit_bps: float
    expires_ms: int
    rwnd_bytes: int = 0  # RWND_CAP: the receiver's port buffer (0: the adapter reads its queue's limit)


def _network(raw: bytes, length: int, side: str) -> IPNetwork | None:
    if length == 0 and not raw.strip(b"\x00"):
        return None
    if len(raw) != 16:
        raise InvalidMatch(f"{side}_prefix has {len(raw)} bytes; addresses are 16 bytes (IPv4 as IPv4-mapped IPv6)")
    if length > 128:
        raise InvalidMatch(f"{side}_prefix_len {length} exceeds 128")
    address = ipaddress.IPv6Address(raw)
    if address in _MAPPED and length >= 96:
        v4 = address.ipv4_mapped
        assert v4 is not None
        try:
            return ipaddress.IPv4Network((v4, length - 96), strict=True)
        except ValueError as e:
            raise InvalidMatch(f"{side} prefix {v4}/{length - 96} has host bits set ({e})") from e
    try:
        return ipaddress.IPv6Network((address, length), strict=True)
    except ValueError as e:
        raise InvalidMatch(f"{side} prefix {address}/{length} has host bits set ({e})") from e


def match_of(command: Any) -> Match:
    src = _network(bytes(command.src_prefix), command.src_prefix_len, "src")
    dst = _network(bytes(command.dst_prefix), command.dst_prefix_len, "dst")
    families = {n.version for n in (src, dst) if n is not None}
    if len(families) > 1:
        raise InvalidMatch(f"src {src} and dst {dst} are of different address families")
    if not families:
        raise InvalidMatch("neither a source nor a destination prefix: a rule matching every address is refused")
    for name in ("src_port", "dst_port"):
        if getattr(command, name) > 0xFFFF:
            raise InvalidMatch(f"{name} {getattr(command, name)} exceeds 65535")
    if command.proto > 0xFF:
        raise InvalidMatch(f"proto {command.proto} exceeds 255")
    if (command.src_port or command.dst_port) and command.proto not in (6, 17, 132):
        raise InvalidMatch(f"ports given with proto {command.proto}: ports need tcp (6), udp (17) or sctp (132)")
    return Match(families.pop(), src, dst, command.src_port, command.dst_port, command.proto)


def rule_of(command: Any, action: str) -> Rule:
    return Rule(
        rule_id=command.command_id,
        match=match_of(command),
        action=action,
        dscp=command.dscp,
        path=command.path,
        rate_limit_bps=command.rate_limit_bps,
        expires_ms=command.expires_ms,
        rwnd_bytes=command.rwnd_bytes,
    )
