"""IPFIX wire encoding (RFC 7011), IPv4 flow records with absolute ms timestamps.

Sampling is announced with an options template whose scope is the
observation domain and whose option is samplingInterval (IE 34, "packet
interval at which to sample" = N). goflow2 v2.2.6 reads IE 305, then 50, then
34 from options data and uses the value as the rate; IE 305
(samplingPacketInterval) means "packets sampled consecutively" in RFC 5477,
i.e. 1 for 1:N sampling, so 34 is the element whose meaning matches.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

VERSION = 10
HEADER_LEN = 16
SET_HEADER_LEN = 4
TEMPLATE_SET_ID = 2
OPTIONS_TEMPLATE_SET_ID = 3

# Information element ids (IANA IPFIX registry).
OCTET_DELTA_COUNT = 1
PACKET_DELTA_COUNT = 2
PROTOCOL_IDENTIFIER = 4
IP_CLASS_OF_SERVICE = 5
TCP_CONTROL_BITS = 6
SOURCE_TRANSPORT_PORT = 7
SOURCE_IPV4_ADDRESS = 8
INGRESS_INTERFACE = 10
DESTINATION_TRANSPORT_PORT = 11
DESTINATION_IPV4_ADDRESS = 12
EGRESS_INTERFACE = 14
BGP_SOURCE_AS_NUMBER = 16
BGP_DESTINATION_AS_NUMBER = 17
SAMPLING_INTERVAL = 34
SAMPLING_ALGORITHM = 35
OBSERVATION_DOMAIN_ID = 149
FLOW_START_MILLISECONDS = 152
FLOW_END_MILLISECONDS = 153

FLOW_FIELDS: tuple[tuple[int, int], ...] = (
    (OCTET_DELTA_COUNT, 8),
    (PACKET_DELTA_COUNT, 8),
    (PROTOCOL_IDENTIFIER, 1),
    (IP_CLASS_OF_SERVICE, 1),
    (TCP_CONTROL_BITS, 2),
    (SOURCE_TRANSPORT_PORT, 2),
    (SOURCE_IPV4_ADDRESS, 4),
    (DESTINATION_TRANSPORT_PORT, 2),
    (DESTINATION_IPV4_ADDRESS, 4),
    (BGP_SOURCE_AS_NUMBER, 4),
    (BGP_DESTINATION_AS_NUMBER, 4),
    (INGRESS_INTERFACE, 4),
    (EGRESS_INTERFACE, 4),
    (FLOW_START_MILLISECONDS, 8),
    (FLOW_END_MILLISECONDS, 8),
)
FLOW_RECORD = struct.Struct("!QQBBHHIHIIIIIQQ")
assert FLOW_RECORD.size == sum(length for _, length in FLOW_FIELDS)

OPTION_SCOPES: tuple[tuple[int, int], ...] = ((OBSERVATION_DOMAIN_ID, 4),)
OPTION_FIELDS: tuple[tuple[int, int], ...] = ((SAMPLING_INTERVAL, 4), (SAMPLING_ALGORITHM, 1))
OPTION_RECORD = struct.Struct("!IIB")

_HEADER = struct.Struct("!HHIII")


def header(length: int, export_time_s: int, sequence: int, domain_id: int) -> bytes:
    """16-byte message header; length = whole message, sequence = data records sent before it."""
    return _HEADER.pack(VERSION, length, export_time_s, sequence & 0xFFFFFFFF, domain_id)


def pad4(body: bytes) -> bytes:
    return body + b"\x00" * (-len(body) % 4)


def set_(set_id: int, body: bytes) -> bytes:
    padded = pad4(body)
    return struct.pack("!HH", set_id, SET_HEADER_LEN + len(padded)) + padded


def template_set(template_id: int, fields: Sequence[tuple[int, int]]) -> bytes:
    body = struct.pack("!HH", template_id, len(fields))
    body += b"".join(struct.pack("!HH", t, n) for t, n in fields)
    return set_(TEMPLATE_SET_ID, body)


def options_template_set(
    template_id: int, scopes: Sequence[tuple[int, int]], options: Sequence[tuple[int, int]]
) -> bytes:
    """Options template: field count (scopes + options), scope field count, then the specs."""
    body = struct.pack("!HHH", template_id, len(scopes) + len(options), len(scopes))
    body += b"".join(struct.pack("!HH", t, n) for t, n in (*scopes, *options))
    return set_(OPTIONS_TEMPLATE_SET_ID, body)


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
) -> bytes:
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
        first_ms,
        last_ms,
    )


def sampling_record(domain_id: int, interval: int, algorithm: int = 1) -> bytes:
    return OPTION_RECORD.pack(domain_id, interval, algorithm)
