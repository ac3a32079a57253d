"""A rule's match as tc u32 keys: (offset, value, mask) on 32-bit words of the IP header.

u32 is used rather than flower because it is the classifier every kernel has (this machine's kernel
has no cls_flower). Ports sit right after the fixed header: for IPv4 the keys also require a
20-byte header (IHL 5) and a first fragment, so a packet with IP options or a later fragment is not
matched rather than matched on the wrong bytes; for IPv6 the transport header must follow directly
(no extension headers).
"""

from __future__ import annotations

from cheetah_adapters.rules import IPNetwork, Match

Key = tuple[int, int, int]  # offset, value, mask


def _prefix_words(network: IPNetwork, offset: int) -> list[Key]:
    bits = network.max_prefixlen
    value = int(network.network_address)
    mask = ((1 << bits) - 1) ^ ((1 << (bits - network.prefixlen)) - 1)
    keys = []
    for word in range(bits // 32):
        shift = bits - 32 * (word + 1)
        m = (mask >> shift) & 0xFFFFFFFF
        if m:
            keys.append((offset + 4 * word, (value >> shift) & m, m))
    return keys


def u32_keys(match: Match) -> list[Key]:
    """Keys sorted by offset, at most one per offset (u32 ANDs them)."""
    words: dict[int, tuple[int, int]] = {}

    def add(offset: int, value: int, mask: int) -> None:
        v, m = words.get(offset, (0, 0))
        words[offset] = (v | (value & mask), m | mask)

    v4 = match.family == 4
    src_at, dst_at, ports_at = (12, 16, 20) if v4 else (8, 24, 40)
    for network, at in ((match.src, src_at), (match.dst, dst_at)):
        if network is not None:
            for key in _prefix_words(network, at):
                add(*key)
    if match.proto:
        if v4:
            add(8, match.proto << 16, 0x00FF0000)  # byte 9: protocol
        else:
            add(4, match.proto << 8, 0x0000FF00)  # byte 6: next header
    if match.src_port or match.dst_port:
        if v4:
            add(0, 0x05000000, 0x0F000000)  # IHL 5: ports at byte 20
            add(4, 0, 0x00001FFF)  # fragment offset 0: the ports are in this packet
        add(ports_at, (match.src_port << 16) | match.dst_port, (0xFFFF0000 if match.src_port else 0) | (0xFFFF if match.dst_port else 0))
    return sorted((o, v, m) for o, (v, m) in words.items())


def describe_keys(keys: list[Key]) -> str:
    return ",".join(f"{o}:{v:08x}/{m:08x}" for o, v, m in sorted(keys))
