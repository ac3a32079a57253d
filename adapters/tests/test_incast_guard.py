"""The incast guard: its share policy by hand, and its tc programs on real veths in namespaces.

Crafted packets (built here, checksums computed here) go through the switch namespace, where the
guard sits on the receiver's port, and are captured on the far side, so every count and every
rewritten window is checked against values worked out by hand, and every checksum independently.
A real TCP exchange then shows the sender's kernel honouring the capped window (read with ss).
"""

from __future__ import annotations

import ctypes
import ipaddress
import re
import socket
import struct
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest

from cheetah_adapters.incast.guard import BIN, PIN_ROOT, Guard
from tests.conftest import require_tool
from tests.incast_topology import FAKE6_R, FAKE6_X, FAKE_R, FAKE_X, Topology, topology  # noqa: F401 (fixture)
from tests.namespaces import sh

SYN, ACK, FIN, RST, PSH = 0x02, 0x10, 0x01, 0x04, 0x08
BUFFER, MSS = 64000, 1000


# --- the share policy, by hand ------------------------------------------------------------------


@pytest.fixture(scope="module")
def policy() -> ctypes.CDLL:
    lib = ctypes.CDLL(str(BIN / "libincast_policy.so"))
    lib.policy_window.restype = ctypes.c_uint64
    lib.policy_window.argtypes = [ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint32]
    lib.policy_window_field.argtypes = [ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint32]
    lib.policy_tier_on_admit.argtypes = [ctypes.c_uint64, ctypes.c_uint64]
    return lib


FULL, ONE_MSS = 0, 1


def test_policy_tier_edges_at_75_percent(policy: ctypes.CDLL) -> None:
    assert policy.policy_tier_on_admit(64000, 0) == FULL
    assert policy.policy_tier_on_admit(64000, 47999) == FULL  # 74.998 %
    assert policy.policy_tier_on_admit(64000, 48000) == ONE_MSS  # 75 % exactly
    assert policy.policy_tier_on_admit(64000, 60000) == ONE_MSS


def test_policy_window_shares_75_percent_among_full_senders(policy: ctypes.CDLL) -> None:
    assert policy.policy_window(64000, 1000, 1, 0, FULL) == 48000
    assert policy.policy_window(64000, 1000, 2, 0, FULL) == 24000
    assert policy.policy_window(64000, 1000, 3, 0, FULL) == 16000
    assert policy.policy_window(64000, 1000, 7, 0, FULL) == 6857  # 48000 / 7, rounded down
    assert policy.policy_window(64000, 1000, 0, 0, FULL) == 48000  # no one counted yet: as one
    # A FIN that takes the count from 4 to 3 gives each remaining sender 16000 instead of 12000.
    assert policy.policy_window(64000, 1000, 4, 0, FULL) == 12000


def test_policy_one_mss_and_zero_edges(policy: ctypes.CDLL) -> None:
    assert policy.policy_window(64000, 1000, 2, 50000, ONE_MSS) == 1000
    assert policy.policy_window(64000, 1000, 2, 50000, FULL) == 24000  # counted before: keeps its share
    assert policy.policy_window(64000, 1000, 2, 60799, FULL) == 24000  # 94.998 %
    assert policy.policy_window(64000, 1000, 2, 60800, FULL) == 0  # 95 % exactly
    assert policy.policy_window(64000, 1000, 2, 60800, ONE_MSS) == 0


def test_policy_window_field_with_scaling(policy: ctypes.CDLL) -> None:
    assert policy.policy_window_field(24000, 7, 65535) == 187  # 24000 / 128 = 187.5
    assert policy.policy_window_field(24000, 0, 65535) == 24000
    assert policy.policy_window_field(100000, 0, 65535) == 65535
    assert policy.policy_window_field(24000, 7, 100) == 100  # never raised
    assert policy.policy_window_field(50, 7, 65535) == 1  # a non-zero window stays non-zero
    assert policy.policy_window_field(0, 7, 500) == 0
    assert policy.policy_window_field(24000, 20, 65535) == 1  # shifts above 14 count as 14 (RFC 7323)


# --- packets built by hand ----------------------------------------------------------------------


def ones_complement(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def pseudo_header(src: str, dst: str, length: int) -> bytes:
    s, d = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    if s.version == 4:
        return s.packed + d.packed + struct.pack("!BBH", 0, 6, length)
    return s.packed + d.packed + struct.pack("!IxxxB", length, 6)


def tcp(src: str, dst: str, sport: int, dport: int, flags: int, window: int, seq: int = 1000, ack: int = 0,
        wscale: int | None = None, payload: bytes = b"") -> bytes:
    options = b"\x02\x04\x05\xb4"  # MSS 1460
    if wscale is not None:
        options += b"\x01\x03\x03" + bytes([wscale])  # NOP, window scale
    options += b"\0" * (-len(options) % 4)
    header = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, (5 + len(options) // 4) << 4, flags, window, 0, 0)
    segment = header + options + payload
    check = 0xFFFF - ones_complement(pseudo_header(src, dst, len(segment)) + segment)
    return segment[:16] + struct.pack("!H", check) + segment[18:]


def ip_packet(src: str, dst: str, segment: bytes, proto: int = 6) -> tuple[int, bytes]:
    if ipaddress.ip_address(src).version == 4:
        header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(segment), 1, 0, 64, proto, 0,
                             ipaddress.ip_address(src).packed, ipaddress.ip_address(dst).packed)
        header = header[:10] + struct.pack("!H", 0xFFFF - ones_complement(header)) + header[12:]
        return 0x0800, header + segment
    header = struct.pack("!IHBB16s16s", 6 << 28, len(segment), proto, 64,
                         ipaddress.ip_address(src).packed, ipaddress.ip_address(dst).packed)
    return 0x86DD, header + segment


class Wire:
    """Sends crafted frames from the receiver side or the sender side; captures on the other."""

    def __init__(self, t: Topology) -> None:
        self.r = t.raw(t.r, "r0")
        self.x = t.raw(t.x, "x0")
        self.r_mac, self.x_mac = t.mac(t.r, "r0"), t.mac(t.x, "x0")
        self.sr_mac, self.sx_mac = t.mac(t.s, "s-r"), t.mac(t.s, "s-x")

    def _send(self, out: socket.socket, capture: socket.socket, dst_mac: bytes, src_mac: bytes, src: str, dst: str,
              segment: bytes, proto: int = 6) -> bytes:
        ethertype, packet = ip_packet(src, dst, segment, proto)
        out.send(dst_mac + src_mac + struct.pack("!H", ethertype) + packet)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                frame, address = capture.recvfrom(65535)
            except TimeoutError:
                continue
            if address[2] == socket.PACKET_OUTGOING:
                continue
            got = frame[14:]
            header = 20 if ethertype == 0x0800 else 40
            if got[header:header + 4] == segment[:4] and got[header + 4:header + 8] == segment[4:8]:
                return got
        raise AssertionError("the crafted packet did not come out of the switch")

    def from_receiver(self, src: str, dst: str, segment: bytes, proto: int = 6) -> bytes:
        """Receiver -> switch (guard ingress) -> sender side; returns the packet as captured there."""
        return self._send(self.r, self.x, self.sr_mac, self.r_mac, src, dst, segment, proto)

    def to_receiver(self, src: str, dst: str, segment: bytes) -> bytes:
        """Sender side -> switch -> (guard egress) receiver; returns the packet as captured there."""
        return self._send(self.x, self.r, self.sx_mac, self.x_mac, src, dst, segment)

    def close(self) -> None:
        self.r.close()
        self.x.close()


def segment_of(packet: bytes) -> tuple[str, str, bytes]:
    if packet[0] >> 4 == 4:
        length = struct.unpack("!H", packet[2:4])[0]
        return str(ipaddress.IPv4Address(packet[12:16])), str(ipaddress.IPv4Address(packet[16:20])), packet[20:length]
    length = struct.unpack("!H", packet[4:6])[0]
    return str(ipaddress.IPv6Address(packet[8:24])), str(ipaddress.IPv6Address(packet[24:40])), packet[40:40 + length]


def window_and_checksum_ok(packet: bytes) -> tuple[int, bool]:
    src, dst, segment = segment_of(packet)
    return struct.unpack("!H", segment[14:16])[0], ones_complement(pseudo_header(src, dst, len(segment)) + segment) == 0xFFFF


@pytest.fixture
def guard(topology: Topology) -> Iterator[Guard]:
    g = Guard.attach("s-r", topology.s, pin_dir=PIN_ROOT / f"test-{topology.tag}")
    try:
        yield g
    finally:
        g.detach()


def counts(g: Guard, receiver: str) -> dict[str, int]:
    return g.stats()[receiver]


@pytest.mark.parametrize("family", [4, 6])
def test_counts_are_exact_and_acks_capped_with_valid_checksums(topology: Topology, guard: Guard, family: int) -> None:
    r, x = (FAKE_R, FAKE_X) if family == 4 else (FAKE6_R, FAKE6_X)
    guard.set_receiver(r, BUFFER, MSS)
    wire = Wire(topology)
    try:
        # Connection 1: receiver's SYN with window scale 7, the sender's SYN-ACK with scale 7.
        wire.from_receiver(r, x, tcp(r, x, 40001, 5001, SYN, 65535, wscale=7))
        wire.to_receiver(x, r, tcp(x, r, 5001, 40001, SYN | ACK, 65535, ack=1001, wscale=7))
        assert counts(guard, r)["senders"] == 1 and counts(guard, r)["syn_acks"] == 1
        wire.to_receiver(x, r, tcp(x, r, 5001, 40001, SYN | ACK, 65535, ack=1001, wscale=7))  # retransmitted
        assert counts(guard, r)["senders"] == 1 and counts(guard, r)["syn_acks"] == 1
        # Connection 2: no window scale from the receiver (so none in force: shift 0).
        wire.from_receiver(r, x, tcp(r, x, 40002, 5001, SYN, 65535))
        wire.to_receiver(x, r, tcp(x, r, 5001, 40002, SYN | ACK, 65535, ack=1001, wscale=7))
        # Connection 3: its SYN-ACK is counted, but the receiver's SYN was never seen: not capped.
        wire.to_receiver(x, r, tcp(x, r, 5001, 40003, SYN | ACK, 65535, ack=1001, wscale=7))
        assert counts(guard, r)["senders"] == 3

        # Share: 75 % of 64000 among 3 = 16000 bytes. Connection 1 (shift 7): 16000 >> 7 = 125.
        field, ok = window_and_checksum_ok(wire.from_receiver(r, x, tcp(r, x, 40001, 5001, ACK, 65535, seq=1001, ack=2)))
        assert (field, ok) == (125, True)
        # Connection 2 (shift 0): 16000 itself.
        field, ok = window_and_checksum_ok(wire.from_receiver(r, x, tcp(r, x, 40002, 5001, ACK, 65535, seq=1001, ack=2)))
        assert (field, ok) == (16000, True)
        # An ACK already below the share keeps its window: 100 << 7 = 12800 < 16000.
        field, ok = window_and_checksum_ok(wire.from_receiver(r, x, tcp(r, x, 40001, 5001, ACK, 100, seq=1001, ack=2)))
        assert (field, ok) == (100, True)
        # Connection 3: untouched, byte for byte.
        sent = tcp(r, x, 40003, 5001, ACK, 65535, seq=1001, ack=2)
        assert segment_of(wire.from_receiver(r, x, sent))[2] == sent
        c = counts(guard, r)
        assert (c["acks_seen"], c["acks_capped"], c["share_bytes"]) == (3, 2, 16000)

        # FIN from the receiver releases connection 1; the sender's FIN afterwards changes nothing.
        wire.from_receiver(r, x, tcp(r, x, 40001, 5001, FIN | ACK, 65535, seq=1001, ack=2))
        wire.to_receiver(x, r, tcp(x, r, 5001, 40001, FIN | ACK, 65535, seq=2, ack=1002))
        assert (counts(guard, r)["senders"], counts(guard, r)["releases"]) == (2, 1)
        # RST from the sender releases connection 2: one sender left, whose share is 48000.
        wire.to_receiver(x, r, tcp(x, r, 5001, 40002, RST, 0, seq=2))
        assert (counts(guard, r)["senders"], counts(guard, r)["releases"]) == (1, 2)
    finally:
        wire.close()


def test_occupancy_one_mss_promotion_and_zero(topology: Topology, guard: Guard) -> None:
    r, x = FAKE_R, FAKE_X
    guard.set_receiver(r, BUFFER, MSS)
    wire = Wire(topology)

    def open_connection(port: int) -> None:
        wire.from_receiver(r, x, tcp(r, x, port, 5001, SYN, 65535))
        wire.to_receiver(x, r, tcp(x, r, 5001, port, SYN | ACK, 65535, ack=1001))

    def ack_window(port: int) -> int:
        field, ok = window_and_checksum_ok(wire.from_receiver(r, x, tcp(r, x, port, 5001, ACK, 65535, seq=1001, ack=2)))
        assert ok
        return field

    try:
        open_connection(41001)
        guard.set_backlog(48000)  # 75 % of the buffer: the next sender gets 1 MSS
        open_connection(41002)
        c = counts(guard, r)
        assert (c["senders"], c["senders_one_mss"]) == (1, 1)
        assert ack_window(41002) == MSS
        assert ack_window(41001) == 48000  # counted before: the whole share among 1
        guard.set_backlog(10000)  # below 75 %: promoted at its next ACK, shares now among 2
        assert ack_window(41002) == 24000
        c = counts(guard, r)
        assert (c["senders"], c["senders_one_mss"], c["promotions"]) == (2, 0, 1)
        guard.set_backlog(60800)  # 95 %: every window 0
        assert ack_window(41001) == 0 and ack_window(41002) == 0
    finally:
        wire.close()


def test_other_traffic_passes_untouched(topology: Topology, guard: Guard) -> None:
    r, x = FAKE_R, FAKE_X
    guard.set_receiver("10.78.1.99", BUFFER, MSS)  # some other receiver is guarded, not this one
    wire = Wire(topology)
    try:
        wire.from_receiver(r, x, tcp(r, x, 42001, 5001, SYN, 65535, wscale=7))
        wire.to_receiver(x, r, tcp(x, r, 5001, 42001, SYN | ACK, 65535, ack=1001, wscale=7))
        ack = tcp(r, x, 42001, 5001, ACK, 65535, seq=1001, ack=2)
        assert segment_of(wire.from_receiver(r, x, ack))[2] == ack
        udp = struct.pack("!HHHH", 42002, 5001, 12, 0) + b"abcd"
        assert segment_of(wire.from_receiver(r, x, udp, proto=17))[2] == udp
        data = tcp(x, r, 5001, 42001, ACK | PSH, 65535, seq=2, ack=1001, payload=b"x" * 200)
        assert segment_of(wire.to_receiver(x, r, data))[2] == data
        assert counts(guard, "10.78.1.99")["syn_acks"] == 0
        assert FAKE_R not in guard.stats()
    finally:
        wire.close()


# --- a real TCP exchange ------------------------------------------------------------------------


def snd_windows(t: Topology, port: int) -> list[int]:
    """The peer windows the sender's kernel holds for its connections on port (ss -ti)."""
    text = sh("ip", "netns", "exec", t.x, "ss", "-tin", "state", "established", f"( sport = :{port} )")
    return [int(w) for w in re.findall(r"snd_wnd:(\d+)", text)]


def test_real_senders_are_held_to_their_share(topology: Topology, guard: Guard) -> None:
    require_tool("ss", "iproute2")
    receiver, sender, port, block = "10.78.1.2", "10.78.2.2", 5201, 1_000_000
    guard.set_receiver(receiver, BUFFER, 1448)

    def listen() -> socket.socket:
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((sender, port))
        s.listen(8)
        return s

    from cheetah_adapters.incast.qdisc import in_netns

    server = in_netns(topology.x, listen)
    accepted: list[socket.socket] = []

    def serve() -> None:
        while len(accepted) < 4:
            conn, _ = server.accept()
            accepted.append(conn)

    acceptor = threading.Thread(target=serve, daemon=True)
    acceptor.start()
    clients = [in_netns(topology.r, lambda: socket.create_connection((sender, port), timeout=10)) for _ in range(4)]
    acceptor.join(10)
    try:
        assert counts(guard, receiver)["senders"] == 4
        for conn in accepted:  # each sender answers a block; the receiver reads them all
            threading.Thread(target=conn.sendall, args=(b"y" * block,), daemon=True).start()
        received = [0] * 4
        while sum(received) < 4 * block:
            for i, c in enumerate(clients):
                if received[i] < block:
                    received[i] += len(c.recv(65536))
        # 75 % of 64000 among 4 senders = 12000 bytes, in the receiver's scale units (rounded down).
        windows = snd_windows(topology, port)
        assert len(windows) == 4 and all(0 < w <= 12000 for w in windows), windows
        c = counts(guard, receiver)
        assert c["acks_capped"] > 0 and c["share_bytes"] == 12000
    finally:
        for s in clients + accepted + [server]:
            s.close()
    deadline = time.monotonic() + 10
    while counts(guard, receiver)["senders"] and time.monotonic() < deadline:
        time.sleep(0.05)
    c = counts(guard, receiver)
    assert (c["senders"], c["releases"], c["syn_acks"]) == (0, 4, 4)
