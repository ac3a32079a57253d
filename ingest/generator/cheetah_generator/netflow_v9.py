"""NetFlow v9 wire encoding (RFC 3954), IPv4 flow records.

Times: FIRST_SWITCHED / LAST_SWITCHED are sysUptime-relative ms. A collector
(goflow2 included) computes a flow time as
    unix_secs * 1000 - sysUptime + SWITCHED   (ms)
so the header is written with sysUptime = unix_secs * 1000 - boot_ms, which
makes that expression exactly boot_ms + SWITCHED = the intended ms.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

VERSION = 9
HEADER_LEN = 20
FLOWSET_HEADER_LEN = 4
TEMPLATE_FLOWSET_ID = 0
OPTIONS_TEMPLATE_FLOWSET_ID = 1

# Field type ids (RFC 3954 section 8).
IN_BYTES = 1
IN_PKTS = 2
PROTOCOL = 4
SRC_TOS = 5
TCP_FLAGS = 6
L4_SRC_PORT = 7
IPV4_SRC_ADDR = 8
INPUT_SNMP = 10
L4_DST_PORT = 11
IPV4_DST_ADDR = 12
OUTPUT_SNMP = 14
SRC_AS = 16
DST_AS = 17
LAST_SWITCHED = 21
FIRST_SWITCHED = 22
SAMPLING_INTERVAL = 34
SAMPLING_ALGORITHM = 35
SCOPE_SYSTEM = 1

# (type, length) in wire order; the struct format below must match it.
FLOW_FIELDS: tuple[tuple[int, int], ...] = (
    (IN_BYTES, 8),
    (IN_PKTS, 8),
    (PROTOCOL, 1),
    (SRC_TOS, 1),
    (TCP_FLAGS, 1),
    (L4_SRC_PORT, 2),
    (IPV4_SRC_ADDR, 4),
    (L4_DST_PORT, 2),
    (IPV4_DST_ADDR, 4),
    (SRC_AS, 4),
    (DST_AS, 4),
    (INPUT_SNMP, 4),
    (OUTPUT_SNMP, 4),
    (LAST_SWITCHED, 4),
    (FIRST_SWITCHED, 4),
)
FLOW_RECORD = struct.Struct("!QQBBBHIHIIIIIII")
assert FLOW_RECORD.size == sum(length for _, length in FLOW_FIELDS)

OPTION_SCOPES: tuple[tuple[int, int], ...] = ((SCOPE_SYSTEM, 4),)
OPTION_FIELDS: tuple[tuple[int, int], ...] = ((SAMPLING_INTERVAL, 4), (SAMPLING_ALGORITHM, 1))
OPTION_RECORD = struct.Struct("!IIB")  # scope System = source id, interval, algorithm

_HEADER = struct.Struct("!HHIIII")


def header(count: int, sys_uptime_ms: int, unix_secs: int, sequence: int, source_id: int) -> bytes:
    """20-byte packet header; count = number of records (template, options and data) in the packet."""
    return _HEADER.pack(VERSION, count, sys_uptime_ms & 0xFFFFFFFF, unix_secs, sequence & 0xFFFFFFFF, source_id)


def pad4(body: bytes) -> bytes:
    return body + b"\x00" * (-len(body) % 4)


def flowset(flowset_id: int, body: bytes) -> bytes:
    """A flowset (id, length incl. header and padding) padded to a 4-byte boundary."""
    padded = pad4(body)
    return struct.pack("!HH", flowset_id, FLOWSET_HEADER_LEN + len(padded)) + padded


def template_flowset(template_id: int, fields: Sequence[tuple[int, int]]) -> bytes:
    body = struct.pack("!HH", template_id, len(fields))
    body += b"".join(struct.pack("!HH", t, n) for t, n in fields)
    return flowset(TEMPLATE_FLOWSET_ID, body)


def options_template_flowset(
    template_id: int, scopes: Sequence[tuple[int, int]], options: Sequence[tuple[int, int]]
) -> bytes:
    """Options template: scope and option lengths are in bytes (4 per field spec)."""
    body = struct.pack("!HHH", template_id, 4 * len(scopes), 4 * len(options))
    body += b"".join(struct.pack("!HH", t, n) for t, n in (*scopes, *options))
    return flowset(OPTIONS_TEMPLATE_FLOWSET_ID, body)


def flow_record(
    *,
    bytes_: int,
    packets: int,
    proto: int,
    tos: int,
    tcp_flags: int,
    src_port: int,
    src: int,
    dst_port: int,
    dst: int,
    src_as: int,
    dst_as: int,
    in_if: int,
    out_if: int,
    first_ms: int,
    last_ms: int,
    boot_ms: int,
) -> bytes:
    first = first_ms - boot_ms
    last = last_ms - boot_ms
    if not (0 <= first <= last <= 0xFFFFFFFF):
        raise ValueError(
            f"v9 switched times must be within 49.7 days after exporter boot: first={first} last={last} ms"
        )
    return FLOW_RECORD.pack(
        bytes_,
        packets,
        proto,
        tos,
        tcp_flags,
        src_port,
        src,
        dst_port,
        dst,
        src_as,
        dst_as,
        in_if,
        out_if,
        last,
        first,
    )


def sampling_record(source_id: int, interval: int, algorithm: int = 1) -> bytes:
    """Options data: scope System = source id, SAMPLING_INTERVAL = N, algorithm 1 = deterministic."""
    return OPTION_RECORD.pack(source_id, interval, algorithm)
