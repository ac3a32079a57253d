"""Classic pcap (libpcap 2.4, microsecond, LINKTYPE_ETHERNET) of Ethernet/IPv4/TCP|UDP packets.

Each packet is truncated to `snaplen` bytes in the file but keeps its true
wire length (orig_len), so a flow of gigabytes fits in a few megabytes. The
IPv4 total length field carries the real size; checksums are computed as if
the missing payload were zeros.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

from .flows import PROTO_TCP, PROTO_UDP

ETH_HEADER = 14
IP_HEADER = 20
TCP_HEADER = 20
UDP_HEADER = 8
LINKTYPE_ETHERNET = 1
_GLOBAL = struct.Struct("<IHHiIII")
_RECORD = struct.Struct("<IIII")
_ETH = struct.Struct("!6s6sH")
_IP = struct.Struct("!BBHHHBBHII")
_TCP = struct.Struct("!HHIIBBHHH")
_UDP = struct.Struct("!HHHH")
SRC_MAC = bytes.fromhex("020000000001")
DST_MAC = bytes.fromhex("020000000002")


def l4_header_len(proto: int) -> int:
    return TCP_HEADER if proto == PROTO_TCP else UDP_HEADER


def _csum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\x00"
    s: int = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def build_packet(
    src: int,
    dst: int,
    proto: int,
    sport: int,
    dport: int,
    ip_len: int,
    *,
    tcp_flags: int = 0,
    seq: int = 0,
    ack: int = 0,
    ident: int = 0,
    tos: int = 0,
    ttl: int = 64,
) -> bytes:
    """A full-header frame (payload omitted): Ethernet + IPv4 + TCP/UDP, ip_len = IPv4 total length."""
    l4 = l4_header_len(proto)
    if ip_len < IP_HEADER + l4 or ip_len > 65535:
        raise ValueError(f"IPv4 total length {ip_len} must be in [{IP_HEADER + l4}, 65535]")
    ip = _IP.pack(0x45, tos, ip_len, ident & 0xFFFF, 0x4000, ttl, proto, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", _csum(ip)) + ip[12:]
    payload_len = ip_len - IP_HEADER - l4
    pseudo = struct.pack("!IIBBH", src, dst, 0, proto, ip_len - IP_HEADER)
    if proto == PROTO_TCP:
        hdr = _TCP.pack(sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, 5 << 4, tcp_flags, 65535, 0, 0)
        hdr = hdr[:16] + struct.pack("!H", _csum(pseudo + hdr)) + hdr[18:]
    elif proto == PROTO_UDP:
        hdr = _UDP.pack(sport, dport, UDP_HEADER + payload_len, 0)
        c = _csum(pseudo + hdr) or 0xFFFF
        hdr = hdr[:6] + struct.pack("!H", c)
    else:
        raise ValueError(f"protocol {proto}: only TCP (6) and UDP (17)")
    return _ETH.pack(DST_MAC, SRC_MAC, 0x0800) + ip + hdr


class PcapWriter:
    def __init__(self, path: Path, snaplen: int = 64) -> None:
        if snaplen < ETH_HEADER + IP_HEADER + TCP_HEADER:
            raise ValueError(f"snaplen {snaplen} must keep the Ethernet/IPv4/TCP headers (>= 54)")
        self.snaplen = snaplen
        self._fh: BinaryIO = path.open("wb")
        self._fh.write(_GLOBAL.pack(0xA1B2C3D4, 2, 4, 0, 0, snaplen, LINKTYPE_ETHERNET))
        self.packets = 0

    def write(self, ts_us: int, frame_headers: bytes, wire_len: int) -> None:
        """One packet at ts_us (epoch µs); frame_headers are padded with zero payload up to snaplen."""
        cap = min(self.snaplen, wire_len)
        data = frame_headers[:cap] + b"\x00" * (cap - min(cap, len(frame_headers)))
        sec, usec = divmod(ts_us, 1_000_000)
        self._fh.write(_RECORD.pack(sec, usec, cap, wire_len))
        self._fh.write(data)
        self.packets += 1

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> PcapWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
